#!/bin/sh
# Fetches what the VM tests need from Debian's repositories, idempotently:
# QEMU 10 from bookworm-backports (bookworm's QEMU 7.2 double-faults this
# kernel under multi-threaded TCG: docs/vm.md), the bookworm-backports 6.12
# cloud kernel (cached under $BUILD/vm), busybox-static, cpio and mmdebstrap
# (the systemd scenario's Debian root, tests/vm/mkroot.sh). Uses a
# private apt configuration; the machine's sources are not touched.
set -eu
: "${BUILD:=build}"
VM=$BUILD/vm
KPKG=linux-image-6.12.95+deb12-cloud-amd64-unsigned
MIRROR=http://deb.debian.org/debian

mkdir -p "$VM/apt/lists/partial"
cat >"$VM/apt/sources.list" <<LIST
deb $MIRROR bookworm-backports main
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
O="-o Dir::Etc::SourceList=$PWD/$VM/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$PWD/$VM/apt/lists"
export DEBIAN_FRONTEND=noninteractive

qemu_ok() { qemu-system-x86_64 --version 2>/dev/null | grep -q 'version 1[0-9]\.'; }
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

updated=0
update() { [ $updated -eq 1 ] || apt-get $O update -qq; updated=1; }

if ! qemu_ok; then
	update
	apt-get $O install -y -qq --no-install-recommends -t bookworm-backports qemu-system-x86
fi
for p in busybox-static cpio mmdebstrap; do
	have $p || { update; apt-get $O install -y -qq --no-install-recommends $p; }
done
if [ ! -s "$VM/vmlinuz" ]; then
	update
	rm -rf "$VM/kpkg" && mkdir -p "$VM/kpkg"
	(cd "$VM/kpkg" && apt-get $O download "$KPKG")
	dpkg-deb -x "$VM"/kpkg/*.deb "$VM/kpkg/root"
	cp "$VM"/kpkg/root/boot/vmlinuz-* "$VM/vmlinuz"
fi
qemu_ok
