#!/bin/sh
# Installs tierd's build and test dependencies from Debian's repositories.
# Idempotent; with --if-missing it calls apt-get only when something is absent.
set -eu

PKGS="gcc make pkg-config libsystemd-dev libjson-c-dev libnuma-dev libcgroup-dev \
systemd python3 python3-prometheus-client gnuplot-nox \
clang-14 libclang-rt-14-dev llvm-14 bpftool libbpf-dev libelf-dev zlib1g-dev zstd \
debhelper dpkg-dev lintian"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

if [ "${1:-}" = "--if-missing" ] && [ -z "$missing" ]; then
	exit 0
fi
[ -n "$missing" ] || { echo "deps: all installed"; exit 0; }

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
