#!/bin/sh
# Fetches what the VM tests need from Debian's repositories, idempotently:
# QEMU 10 from bookworm-backports (bookworm's QEMU 7.2 double-faults the 6.12
# kernel under multi-threaded TCG: docs/vm.md), busybox-static, cpio, mmdebstrap
# (the systemd scenario's Debian root, tests/vm/mkroot.sh), memcached and
# memcaslap for the memcached scenario (below), and the
# kernels named as arguments (default 6.12), each cached once as
# $BUILD/vm/KERNEL/vmlinuz:
#   6.12  bookworm-backports linux-image-6.12.95+deb12-cloud-amd64-unsigned
#   7.3   trixie-backports linux-binary-unsigned-7.3.4+deb13-cloud-amd64 (the
#         image of linux-image-7.3.4+deb13-cloud-amd64)
# Both cloud kernels have everything the VM uses built in (DAMON, HMAT, cgroup
# v2, BTF, NUMA balancing), so the initramfs carries no modules. Private apt
# configurations (one per Debian release, so bookworm's QEMU never resolves
# against trixie); the machine's sources are not touched.
set -eu
: "${BUILD:=build}"
VM=$BUILD/vm
MIRROR=http://deb.debian.org/debian
export DEBIAN_FRONTEND=noninteractive

# apt_opts DIR RELEASE: writes DIR's sources.list and prints apt's options.
apt_opts() {
	mkdir -p "$1/lists/partial"
	cat >"$1/sources.list" <<LIST
deb $MIRROR $2-backports main
deb $MIRROR $2 main
deb $MIRROR $2-updates main
deb http://deb.debian.org/debian-security $2-security main
LIST
	echo "-o Dir::Etc::SourceList=$PWD/$1/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$PWD/$1/lists"
}
O=$(apt_opts "$VM/apt" bookworm)

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

# fetch_kernel KERNEL: downloads and unpacks its package, keeps the image.
fetch_kernel() {
	case $1 in
	6.12) release=bookworm pkg=linux-image-6.12.95+deb12-cloud-amd64-unsigned
	      image='boot/vmlinuz-*' ;;
	7.3) release=trixie pkg=linux-binary-unsigned-7.3.4+deb13-cloud-amd64
	     image='usr/lib/modules/*/vmlinuz*' ;;
	*) echo "setup.sh: unknown kernel '$1' (6.12 or 7.3)" >&2; return 1 ;;
	esac
	dir=$VM/$1
	[ -s "$dir/vmlinuz" ] && return 0
	# The 6.12 image of a build tree from before kernels had directories.
	if [ "$1" = 6.12 ] && [ -s "$VM/vmlinuz" ]; then
		mkdir -p "$dir" && mv "$VM/vmlinuz" "$dir/vmlinuz" && return 0
	fi
	ko=$(apt_opts "$VM/apt-$release" "$release")
	apt-get $ko update -qq
	rm -rf "$dir/kpkg" && mkdir -p "$dir/kpkg"
	(cd "$dir/kpkg" && apt-get $ko download "$pkg")
	dpkg-deb -x "$dir"/kpkg/*.deb "$dir/kpkg/root"
	# shellcheck disable=SC2086 # image is a glob
	cp $dir/kpkg/root/$image "$dir/vmlinuz"
}
# Debian's memcached and memcaslap (libmemcached-tools), with the shared
# libraries they load (readelf's NEEDED, closed over), unpacked into
# $VM/memcached/root: the memcached scenario runs them through that root's
# own loader, the initramfs having no dynamic libc of bookworm's.
MEMCACHED_PKGS="memcached libmemcached-tools libmemcached11 libhashkit2 libevent-2.1-7
libsasl2-2 libsasl2-modules-db libdb5.3 libssl3 libstdc++6 libgcc-s1 libc6"
fetch_memcached() {
	dir=$VM/memcached
	[ -x "$dir/root/usr/bin/memcaslap" ] && return 0
	update
	rm -rf "$dir" && mkdir -p "$dir/debs"
	# shellcheck disable=SC2086 # one word per package
	(cd "$dir/debs" && apt-get $O download $MEMCACHED_PKGS)
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root.tmp"
	done
	rm -rf "$dir/root.tmp/usr/share"
	mv "$dir/root.tmp" "$dir/root"
}
[ $# -gt 0 ] || set -- 6.12
for k in "$@"; do
	fetch_kernel "$k"
done
fetch_memcached
qemu_ok
