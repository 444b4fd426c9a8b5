#!/bin/sh
# make demo: boots the four-tier VM on the demo scenario and shows its
# console as it runs. Without the VM's ingredients (no network to Debian's
# mirrors, no QEMU 10) it says so and shows one tick against the bundled
# fixture machine instead.
set -u
: "${BUILD:=build}"
VM=$BUILD/vm
: "${VM_KERNEL:=6.12}" # or 7.3
export VM_KERNEL
if ! tests/vm/setup.sh "$VM_KERNEL" >"$BUILD/vm-setup.log" 2>&1; then
	echo "demo: the VM cannot be set up (see $BUILD/vm-setup.log); one tick on the fixture machine instead" >&2
	exec make --no-print-directory demo-fixture
fi
tests/vm/mkinitrd.sh || exit 1
echo "demo: booting the four-tier VM (QEMU, software emulation; about 2 minutes)"
: >"$VM/$VM_KERNEL/demo.log"
VM_TIMEOUT_SEC=600 tests/vm/boot.sh demo &
boot=$!
# The console from the scenario on, without the firmware's and kernel's lines.
tail -f "$VM/$VM_KERNEL/demo.log" --pid=$boot 2>/dev/null | tr -d '\r' |
	sed -n '/SCENARIO demo/,/^EXIT/{/SCENARIO demo/d;/^EXIT/d;/^\[ *[0-9.]*\]/d;p}'
wait $boot
