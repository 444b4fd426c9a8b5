# tierd — build, test, install. `make help` lists the targets.

CC ?= gcc
PKG_CONFIG ?= pkg-config
BUILD ?= build
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

PKGS := libsystemd json-c numa libcgroup libbpf
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Werror -Werror=undef -Wmissing-field-initializers -Wshadow
CFLAGS ?= -O2 -g
# CPPFLAGS and LDFLAGS come from the environment (dpkg-buildflags' hardening).
ALL_CFLAGS := -std=gnu17 $(WARN) -D_GNU_SOURCE $(CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -I$(BUILD)/bpf
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

POLICY_SRC := $(sort $(wildcard policy/*.c))
CTL_SRC := $(filter-out controller/tierd.c controller/tierctl.c,$(sort $(wildcard controller/*.c)))
LIB_SRC := $(POLICY_SRC) $(CTL_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
SAN_OBJ := $(LIB_SRC:%.c=$(BUILD)/san/%.o)
SIM_SRC := $(filter-out bench/tiersim/main.c,$(sort $(wildcard bench/tiersim/*.c)))
SIM_OBJ := $(SIM_SRC:%.c=$(BUILD)/obj/%.o)
SIM_SAN_OBJ := $(SIM_SRC:%.c=$(BUILD)/san/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/test/%)
HDRS := $(wildcard policy/*.h controller/*.h tests/*.h bench/tiersim/*.h bpf/*.h)
BPF_CLANG ?= clang-14
BPF_STRIP ?= llvm-strip-14
BPFTOOL ?= bpftool
BPF_CFLAGS := -g -O2 -mcpu=v3 -Wall -Werror -target bpf -D__TARGET_ARCH_x86
BPF_SKEL := $(BUILD)/bpf/tierd_sampler.skel.h

# libFuzzer harnesses (fuzz/): the library built again with clang's fuzzer
# instrumentation and ASan+UBSan; fuzz/README.md.
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJ := $(LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps check fuzz fuzzers vmcheck demo demo-fixture bench bench-bpf install clean help tests

all: $(BUILD)/tierd $(BUILD)/tierctl

help:
	@echo "make            build $(BUILD)/tierd and $(BUILD)/tierctl"
	@echo "make deps       install build and test dependencies (apt-get, idempotent)"
	@echo "make check      build and run every test (ASan+UBSan test build; includes vmcheck)"
	@echo "make fuzz       every libFuzzer harness for FUZZ_SECONDS (60) each (fuzz/)"
	@echo "make vmcheck    only the scenarios in the four-tier QEMU VM (tests/vm/)"
	@echo "make demo       tierd at work in the four-tier QEMU VM (about 2 minutes)"
	@echo "make demo-fixture  one tick against the bundled four-tier fixture machine"
	@echo "make bench      every strategy on every workload in the simulator (build/bench/)"
	@echo "make bench-bpf  the BPF sampler's overhead in the four-tier VM (idle host: ~4 min)"
	@echo "make install    install binaries, unit, configs, man pages (DESTDIR, PREFIX)"
	@echo "V=1             show full commands"

deps:
	$(Q)tests/deps.sh

# vmlinux.h from the VM kernel's BTF, else the running kernel's, else the
# pinned bpf/vmlinux-min.h (bpf/README.md).
$(BUILD)/bpf/vmlinux.h: bpf/gen-vmlinux-h.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)BUILD=$(BUILD) BPFTOOL=$(BPFTOOL) sh bpf/gen-vmlinux-h.sh $@ || \
		{ echo "no kernel BTF to read: building against the pinned bpf/vmlinux-min.h" >&2; \
		  cp bpf/vmlinux-min.h $@; }

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/tierd_sampler.h $(BUILD)/bpf/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -I$(BUILD)/bpf -Ibpf -c $< -o $@
	$(Q)$(BPF_STRIP) -g $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf >$@

# What includes the skeleton.
$(BUILD)/obj/controller/bpf_sampler.o $(BUILD)/san/controller/bpf_sampler.o $(BUILD)/test/test_bpf: $(BPF_SKEL)
$(BUILD)/fuzz/obj/controller/bpf_sampler.o: $(BPF_SKEL)

$(BUILD)/obj/%.o: %.c $(HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/san/%.o: %.c $(HDRS)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -O1 -c -o $@ $<

$(BUILD)/tierd: $(BUILD)/obj/controller/tierd.o $(LIB_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/tierctl: $(BUILD)/obj/controller/tierctl.o $(LIB_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(PKG_LIBS)

$(BUILD)/tiersim: $(BUILD)/obj/bench/tiersim/main.o $(SIM_OBJ) $(LIB_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(PKG_LIBS) -lm

# Sanitized daemon and CLI for the integration tests.
$(BUILD)/san/tierd: $(BUILD)/san/controller/tierd.o $(SAN_OBJ)
	$(call msg,LD-SAN,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/san/tierctl: $(BUILD)/san/controller/tierctl.o $(SAN_OBJ)
	$(call msg,LD-SAN,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/test/%: tests/%.c $(SAN_OBJ) $(SIM_SAN_OBJ) $(HDRS)
	$(call msg,LD-SAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -O1 -o $@ $< $(SAN_OBJ) $(SIM_SAN_OBJ) $(PKG_LIBS) -lm

$(BUILD)/fuzz/obj/%.o: %.c $(HDRS)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/%: fuzz/%.c $(FUZZ_OBJ) $(HDRS)
	$(call msg,LD-FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS)

fuzzers: $(FUZZ_BIN)

# Each harness for FUZZ_SECONDS on a copy of its seed corpus (fuzz/corpus/).
fuzz: $(FUZZ_BIN)
	$(Q)BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/test_fuzz.sh

tests: $(FUZZ_BIN) $(TEST_BIN) $(BUILD)/san/tierd $(BUILD)/san/tierctl $(BUILD)/tierd $(BUILD)/tierctl

# Installs what is missing first, so a fresh machine needs only this.
check:
	$(Q)tests/deps.sh --if-missing
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)BUILD=$(BUILD) tests/run.sh $(TEST_BIN)

# The four-tier VM scenarios alone (make check runs them too).
vmcheck: $(BUILD)/tierd $(BUILD)/tierctl
	$(Q)BUILD=$(BUILD) sh tests/test_vm.sh

# tierd at work in the four-tier VM (tests/vm/scenarios/demo.sh).
demo:
	$(Q)tests/deps.sh --if-missing
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BUILD=$(BUILD) sh tests/vm/demo.sh

# One tick of the daemon against the bundled four-tier fixture machine.
demo-fixture: all
	$(Q)mkdir -p $(BUILD)/demo
	$(Q)$(BUILD)/tierd --root tests/fixtures/four-tier --config configs/tierd.json \
		--policy-dir configs/policies.d --once --dry-run --log-target=stderr --log-level=notice \
		--metrics-file $(BUILD)/demo/tierd.prom --state-file $(BUILD)/demo/state.json

# Benchmarks are not tests: they measure, nothing asserts a timing.
bench: $(BUILD)/tiersim
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$(BUILD)/tiersim --out $(BUILD)/bench

bench-bpf: all
	$(Q)BUILD=$(BUILD) sh bench/bpf_overhead.sh

install: all
	install -Dm0755 $(BUILD)/tierd $(DESTDIR)$(PREFIX)/sbin/tierd
	install -Dm0755 $(BUILD)/tierctl $(DESTDIR)$(PREFIX)/bin/tierctl
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' units/tierd.service > $(BUILD)/tierd.service
	install -Dm0644 $(BUILD)/tierd.service $(DESTDIR)$(UNITDIR)/tierd.service
	install -Dm0644 configs/tierd.json $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.json
	install -d $(DESTDIR)$(SYSCONFDIR)/tierd/policies.d
	install -Dm0644 -t $(DESTDIR)$(SYSCONFDIR)/tierd/policies.d configs/policies.d/*.json
	install -Dm0644 docs/tierd.8 $(DESTDIR)$(MANDIR)/man8/tierd.8
	install -Dm0644 docs/tierctl.8 $(DESTDIR)$(MANDIR)/man8/tierctl.8
	install -Dm0644 docs/tierd.json.5 $(DESTDIR)$(MANDIR)/man5/tierd.json.5
	install -Dm0644 docs/tierd-policy.5 $(DESTDIR)$(MANDIR)/man5/tierd-policy.5

clean:
	rm -rf $(BUILD)
