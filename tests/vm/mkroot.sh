#!/bin/sh
# Builds the systemd scenario's Debian root once: a minimal bookworm
# (mmdebstrap --variant=minbase) with systemd as init, dbus, the libraries
# tierd links, prometheus-node-exporter, curl and procps, as a directory
# cached at $BUILD/vm/debroot/ (docs/vm.md). Needs Debian's mirror the
# first time; mmdebstrap's own apt configuration, not the machine's.
set -eu
: "${BUILD:=build}"
VM=$BUILD/vm
ROOT=$VM/debroot
MIRROR=http://deb.debian.org/debian
# tierd's runtime libraries (dpkg -S of what ldd lists; the .deb's
# Depends names the same), then what the scenario drives it with.
PKGS=libsystemd0,libjson-c5,libnuma1,libcgroup2,libbpf1,libelf1,zlib1g
PKGS=$PKGS,systemd,systemd-sysv,dbus,prometheus-node-exporter,curl,procps

[ -x "$ROOT/sbin/init" ] && exit 0
mkdir -p "$VM"
rm -rf "$ROOT.tmp"
start=$(date +%s)
# Documentation, manuals and translations are left out: the root is the
# VM's RAM.
mmdebstrap --variant=minbase --include="$PKGS" \
	--aptopt='Apt::Install-Recommends "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/info/*' \
	--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
	bookworm "$ROOT.tmp" "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" \
	"deb http://deb.debian.org/debian-security bookworm-security main"
mv "$ROOT.tmp" "$ROOT"
echo "mkroot: $ROOT built in $(($(date +%s) - start)) s"
