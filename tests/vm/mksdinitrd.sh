#!/bin/sh
# Builds $BUILD/vm/sdinitrd.gz, the systemd scenario's initramfs: the cached
# Debian root (mkroot.sh) with tierd installed from its .deb (mkdeb.sh) by
# dpkg, as an operator would, and the scenario's driver
# (tests/vm/scenarios/systemd.sh) as a unit started after
# multi-user.target. systemd is PID 1 (the kernel is booted with
# rdinit=/sbin/init) and the root stays the initramfs in RAM.
set -eu
: "${BUILD:=build}"
VM=$BUILD/vm
R=$VM/sdroot
U=$R/etc/systemd/system

tests/vm/mkroot.sh
tests/vm/mkdeb.sh
rm -rf "$R"
cp -a "$VM/debroot" "$R"
cp "$BUILD"/deb/tierd_*_amd64.deb "$R/tmp/tierd.deb"
chroot "$R" dpkg -i /tmp/tierd.deb >"$VM/sdroot-dpkg.log" 2>&1 ||
	{ cat "$VM/sdroot-dpkg.log" >&2; exit 1; }
rm "$R/tmp/tierd.deb"
mkdir -p "$R/scenarios"
cp tests/vm/scenarios/lib.sh tests/vm/scenarios/systemd.sh "$R/scenarios/"
cp tests/vm/systemd/tierd-vmtest.service "$U/"
ln -sf /etc/systemd/system/tierd-vmtest.service "$U/multi-user.target.wants/tierd-vmtest.service"
# Nothing else on the console, and no timer waking up under TCG.
for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer \
	apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
	ln -sf /dev/null "$U/$unit"
done
echo tierd-vm >"$R/etc/hostname"
(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) >"$VM/sdinitrd.gz"
