#!/bin/sh
# The pinned fallback header (bpf/vmlinux-min.h) builds the sampler into the
# same object as the vmlinux.h generated from kernel BTF: the same sections,
# maps and programs. A kernel type the program starts to use and the pinned
# header lacks fails here, not on a machine without BTF.
set -u
: "${BUILD:=build}"
: "${BPFTOOL:=bpftool}"
# The Makefile's BPF_CFLAGS (make check passes them; the target arch is the
# build machine's).
: "${BPF_CFLAGS:=-g -O2 -mcpu=v3 -Wall -Werror -target bpf -D__TARGET_ARCH_x86}"
CLANG=clang-14 STRIP=llvm-strip-14
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $1" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

sections() { llvm-objdump-14 -h "$1" | awk 'NR > 5 { print $2 }' | sort; }
members() { grep -E '^[[:space:]]+struct bpf_(map|program) \*' "$1"; }

if ! command -v $CLANG >/dev/null 2>&1 || [ ! -f "$BUILD/bpf/tierd_sampler.bpf.o" ]; then
	skip=$((skip + 1))
	echo "SKIP: no $CLANG or no $BUILD/bpf/tierd_sampler.bpf.o (make all first)" >&2
else
	cp bpf/vmlinux-min.h "$T/vmlinux.h"
	if $CLANG $BPF_CFLAGS -I"$T" -Ibpf \
		-c bpf/tierd_sampler.bpf.c -o "$T/s.o" 2>"$T/err"; then
		ok
	else
		no "tierd_sampler.bpf.c does not build against bpf/vmlinux-min.h: $(cat "$T/err")"
	fi
	$STRIP -g "$T/s.o" 2>/dev/null
	[ "$(sections "$T/s.o")" = "$(sections "$BUILD/bpf/tierd_sampler.bpf.o")" ] && ok ||
		no "sections differ from the BTF-generated build's"
	$BPFTOOL gen skeleton "$T/s.o" name tierd_sampler_bpf >"$T/s.skel.h" 2>"$T/err" && ok ||
		no "no skeleton from the pinned build: $(cat "$T/err")"
	[ -n "$(members "$T/s.skel.h")" ] &&
		[ "$(members "$T/s.skel.h")" = "$(members "$BUILD/bpf/tierd_sampler.skel.h")" ] && ok ||
		no "maps or programs differ from the BTF-generated build's"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
