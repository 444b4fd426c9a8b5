#!/bin/sh
# Writes vmlinux.h (the kernel's types as C, for CO-RE programs) from a
# kernel's BTF: a bzImage (its zstd payload is extracted and the BTF read
# from the ELF vmlinux inside), an ELF vmlinux, or a raw BTF blob such as
# /sys/kernel/btf/vmlinux.
#
# usage: gen-vmlinux-h.sh [KERNEL] OUT
#   KERNEL defaults to $BUILD/vm/6.12/vmlinuz (the test VM's 6.12 kernel), then
#   /sys/kernel/btf/vmlinux.
set -eu
: "${BUILD:=build}"
: "${BPFTOOL:=bpftool}"
case $# in
1) out=$1
   if [ -f "$BUILD/vm/6.12/vmlinuz" ]; then src=$BUILD/vm/6.12/vmlinuz; else src=/sys/kernel/btf/vmlinux; fi ;;
2) src=$1 out=$2 ;;
*) echo "usage: $0 [KERNEL] OUT" >&2; exit 2 ;;
esac
[ -r "$src" ] || { echo "$0: $src: cannot read the kernel image or BTF" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# u32le FILE OFFSET: the little-endian 32-bit word at OFFSET.
u32le() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }

btf=$src
# A bzImage carries "HdrS" at 0x202 (Documentation/arch/x86/boot.rst).
if [ "$(dd if="$src" bs=1 skip=514 count=4 2>/dev/null)" = "HdrS" ]; then
	# boot.rst: setup_sects (one byte) at 0x1f1, 0 meaning 4; the protected-mode
	# code starts after (setup_sects + 1) 512-byte sectors; payload_offset
	# (0x248) and payload_length (0x24c) locate the compressed vmlinux in it.
	setup_sects=$(od -An -tu1 -j 497 -N1 "$src" | tr -d ' ')
	[ "$setup_sects" -ne 0 ] || setup_sects=4
	start=$(((setup_sects + 1) * 512 + $(u32le "$src" 584)))
	len=$(u32le "$src" 588)
	# The last 4 bytes of the payload are the decompressed size the kernel
	# build appends (scripts/Makefile.lib size_append), not zstd data.
	tail -c +$((start + 1)) "$src" | head -c $((len - 4)) >"$tmp/payload"
	# The payload's first bytes name the compressor; Debian's 6.12 uses zstd.
	zstd -q -d -c "$tmp/payload" >"$tmp/vmlinux" 2>/dev/null || {
		echo "$0: $src: payload is not zstd (only zstd is supported)" >&2; exit 1; }
	btf=$tmp/vmlinux
fi
"$BPFTOOL" btf dump file "$btf" format c >"$tmp/vmlinux.h"
mv "$tmp/vmlinux.h" "$out"
