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
CPPFLAGS ?=
LDFLAGS ?=
# -MMD -MP: each object depends on exactly the headers it includes (the .d
# files included at the end), not on every header of the tree.
ALL_CPPFLAGS := -D_GNU_SOURCE -I$(BUILD)/bpf $(CPPFLAGS)
ALL_CFLAGS := -std=gnu17 $(WARN) $(ALL_CPPFLAGS) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# The decision core (policy/): plain structs in, plain structs out. It is
# built as a static library that tiersim and the core's tests link alone, so
# a call from the core into the I/O shell fails to link.
CORE_SRC := $(sort $(wildcard policy/*.c))
CORE_LIB := $(BUILD)/libtierd-core.a
CORE_SAN_LIB := $(BUILD)/san/libtierd-core.a
# The I/O shell around it: configuration loading, the report, the daemon.
CONFIG_SRC := $(sort $(wildcard config/*.c))
CTL_SRC := $(filter-out controller/tierd.c controller/tierctl.c,$(sort $(wildcard controller/*.c)))
SHELL_SRC := $(CONFIG_SRC) $(sort $(wildcard report/*.c)) $(CTL_SRC)
SHELL_OBJ := $(SHELL_SRC:%.c=$(BUILD)/obj/%.o)
SHELL_SAN_OBJ := $(SHELL_SRC:%.c=$(BUILD)/san/%.o)
CONFIG_SAN_OBJ := $(CONFIG_SRC:%.c=$(BUILD)/san/%.o)
SIM_SRC := $(filter-out bench/tiersim/main.c,$(sort $(wildcard bench/tiersim/*.c)))
SIM_OBJ := $(SIM_SRC:%.c=$(BUILD)/obj/%.o)
SIM_SAN_OBJ := $(SIM_SRC:%.c=$(BUILD)/san/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/test/%)
BPF_CLANG ?= clang-14
BPF_STRIP ?= llvm-strip-14
BPFTOOL ?= bpftool
# libbpf's PT_REGS/BPF_KPROBE macros need the target architecture: the
# build machine's, in the kernel's naming (uname -m differs for some).
BPF_ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/i.86/x86/' -e 's/aarch64.*/arm64/' \
	-e 's/arm.*/arm/' -e 's/ppc64.*/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/' \
	-e 's/loongarch64/loongarch/' -e 's/mips.*/mips/')
BPF_CFLAGS := -g -O2 -mcpu=v3 -Wall -Werror -target bpf -D__TARGET_ARCH_$(BPF_ARCH)
BPF_SKEL := $(BUILD)/bpf/tierd_sampler.skel.h
# libFuzzer harnesses (fuzz/): the core and the shell built again with
# clang's fuzzer instrumentation and ASan+UBSan; fuzz/README.md.
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJ := $(CORE_SRC:%.c=$(BUILD)/fuzz/obj/%.o) $(SHELL_SRC:%.c=$(BUILD)/fuzz/obj/%.o)

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps check fuzz fuzzers vmcheck demo demo-fixture bench bench-bpf bench-overhead bench-scale install clean help tests

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
	@echo "make bench-overhead  what tiering costs a workload in the VM, by part (idle host: ~25 min)"
	@echo "make bench-scale  tierd's tick at 100, 1,000, 5,000 cgroups, and the engine alone"
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

$(BUILD)/obj/%.o: %.c Makefile
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/san/%.o: %.c Makefile
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -O1 -c -o $@ $<

$(CORE_LIB): $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CORE_SAN_LIB): $(CORE_SRC:%.c=$(BUILD)/san/%.o)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tierd: $(BUILD)/obj/controller/tierd.o $(SHELL_OBJ) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/tierctl: $(BUILD)/obj/controller/tierctl.o $(SHELL_OBJ) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# The simulator drives the core alone: no shell objects, no libraries but libm.
$(BUILD)/tiersim: $(BUILD)/obj/bench/tiersim/main.o $(SIM_OBJ) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lm

# Sanitized daemon and CLI for the integration tests.
$(BUILD)/san/tierd: $(BUILD)/san/controller/tierd.o $(SHELL_SAN_OBJ) $(CORE_SAN_LIB)
	$(call msg,LD-SAN,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/san/tierctl: $(BUILD)/san/controller/tierctl.o $(SHELL_SAN_OBJ) $(CORE_SAN_LIB)
	$(call msg,LD-SAN,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# What each test links: tiersim's test the simulator and the core library
# alone; the strategies' tests the core and the configuration loader that
# reads their params; the rest the whole shell.
SIM_TESTS := $(BUILD)/test/test_tiersim
STRATEGY_TESTS := $(patsubst tests/%.c,$(BUILD)/test/%,$(wildcard tests/test_strategy_*.c))
$(SIM_TESTS): TEST_LINK = $(SIM_SAN_OBJ) $(CORE_SAN_LIB) -lm
$(STRATEGY_TESTS): TEST_LINK = $(CONFIG_SAN_OBJ) $(CORE_SAN_LIB) $(shell $(PKG_CONFIG) --libs json-c) -lm
$(filter-out $(SIM_TESTS) $(STRATEGY_TESTS),$(TEST_BIN)): TEST_LINK = $(SHELL_SAN_OBJ) $(SIM_SAN_OBJ) $(CORE_SAN_LIB) $(PKG_LIBS) -lm
# test_damon injects the kernel errors no plain file gives (-EBUSY reads,
# -EPERM writes) by wrapping damon.c's calls.
$(BUILD)/test/test_damon: TEST_LINK += -Wl,--wrap=tierd_read_at -Wl,--wrap=write

$(BUILD)/test/%: tests/%.c $(SHELL_SAN_OBJ) $(SIM_SAN_OBJ) $(CORE_SAN_LIB)
	$(call msg,LD-SAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -O1 $(LDFLAGS) -o $@ $< $(TEST_LINK)

$(BUILD)/fuzz/obj/%.o: %.c Makefile
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/%: fuzz/%.c $(FUZZ_OBJ)
	$(call msg,LD-FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS) -lm

fuzzers: $(FUZZ_BIN)

# Each harness for FUZZ_SECONDS on a copy of its seed corpus (fuzz/corpus/).
fuzz: $(FUZZ_BIN)
	$(Q)BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/test_fuzz.sh

tests: $(FUZZ_BIN) $(TEST_BIN) $(BUILD)/san/tierd $(BUILD)/san/tierctl $(BUILD)/tierd $(BUILD)/tierctl $(CORE_LIB)

# Installs what is missing first, so a fresh machine needs only this.
check:
	$(Q)tests/deps.sh --if-missing
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)BUILD=$(BUILD) CC="$(CC)" BPF_CFLAGS="$(BPF_CFLAGS)" tests/run.sh $(TEST_BIN)

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

bench-overhead: all
	$(Q)BUILD=$(BUILD) sh bench/overhead.sh

# SCALE_ARGS, e.g. --sizes 100,1000 --engine-sizes 100 (bench/scale/README.md).
bench-scale: all $(BUILD)/tiersim
	$(Q)python3 bench/scale/run.py --tierd $(BUILD)/tierd --tiersim $(BUILD)/tiersim \
		--out $(BUILD)/bench-scale $(SCALE_ARGS)

install: all
	install -Dm0755 $(BUILD)/tierd $(DESTDIR)$(PREFIX)/sbin/tierd
	install -Dm0755 $(BUILD)/tierctl $(DESTDIR)$(PREFIX)/bin/tierctl
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@BINDIR@|$(PREFIX)/bin|g' units/tierd.service > $(BUILD)/tierd.service
	install -Dm0644 $(BUILD)/tierd.service $(DESTDIR)$(UNITDIR)/tierd.service
	@# An edited tierd.json is kept; the example policies go in only on a
	@# first install (no policies.d yet), so deleted ones stay deleted.
	$(Q)if [ -e $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.json ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.json"; \
	else install -Dm0644 configs/tierd.json $(DESTDIR)$(SYSCONFDIR)/tierd/tierd.json; fi
	$(Q)if [ -d $(DESTDIR)$(SYSCONFDIR)/tierd/policies.d ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/tierd/policies.d"; \
	else install -Dm0644 -t $(DESTDIR)$(SYSCONFDIR)/tierd/policies.d configs/policies.d/*.json; fi
	install -Dm0644 docs/tierd.8 $(DESTDIR)$(MANDIR)/man8/tierd.8
	install -Dm0644 docs/tierctl.8 $(DESTDIR)$(MANDIR)/man8/tierctl.8
	install -Dm0644 docs/tierd.json.5 $(DESTDIR)$(MANDIR)/man5/tierd.json.5
	install -Dm0644 docs/tierd-policy.5 $(DESTDIR)$(MANDIR)/man5/tierd-policy.5

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/san $(BUILD)/test $(BUILD)/fuzz -name '*.d' 2>/dev/null)
