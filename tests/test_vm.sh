#!/bin/sh
# Scenarios on real four-tier kernels in QEMU (tests/vm/). Each scenario
# prints RESULT and METRIC lines on the console; this script checks them.
# A VM that hangs or panics fails, its console kept in
# $BUILD/vm/KERNEL/NAME.log. VM_KERNEL=6.12, 7.3 or all (the default) picks
# the kernels, VM_ONLY="a b" the scenarios. Every failure and each kernel's
# own count is labelled with the kernel. Without a kernel's ingredients (no
# network to Debian's mirrors) that kernel is one skipped check.
set -u
: "${BUILD:=build}"
: "${VM_KERNEL:=all}"
VM=$BUILD/vm
MIB=1048576

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL [$VM_KERNEL]: $*" >&2; }
expect_eq() { [ "$1" = "$2" ] && ok || no "$3: got '$1', expected '$2'"; }
# expect_range VALUE LOW HIGH WHAT
expect_range() {
	if [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; then ok; else no "$4: got '$1', expected $2..$3"; fi
}
metric() { # LOG NAME{labels}
	grep -F "METRIC $2 " "$1" | head -n 1 | awk '{print $NF}' | tr -d '\r'
}
res() { grep "^RESULT $1 " "$L" | head -n 1 | sed "s/^RESULT $1 //" | tr -d '\r'; }

case $VM_KERNEL in
all) kernels="6.12 7.3" ;;
6.12 | 7.3) kernels=$VM_KERNEL ;;
*) echo "VM_KERNEL: expected 6.12, 7.3 or all, got '$VM_KERNEL'" >&2
   echo "0 passed, 1 failed, 0 skipped"; exit 1 ;;
esac

mkdir -p "$VM"
initrd=0
tpass=0 tfail=0 tskip=0
for VM_KERNEL in $kernels; do
	export VM_KERNEL
	pass=0 fail=0 skip=0
	started=$(date +%s)
	if ! tests/vm/setup.sh "$VM_KERNEL" >"$BUILD/vm-setup-$VM_KERNEL.log" 2>&1; then
		echo "SKIP [$VM_KERNEL]: the VM's kernel or QEMU 10 could not be fetched (see $BUILD/vm-setup-$VM_KERNEL.log)" >&2
		skip=1
	else
		# Each tests/vm/expect/NAME.sh boots scenario NAME (tests/vm/scenarios/)
		# and checks what it printed. The initramfs is built before the
		# first boot only (none when VM_ONLY picks no scenario).
		for e in tests/vm/expect/*.sh; do
			name=$(basename "$e" .sh)
			if [ -n "${VM_ONLY:-}" ] && ! echo " $VM_ONLY " | grep -q " $name "; then
				continue
			fi
			if [ $initrd -eq 0 ]; then
				tests/vm/mkinitrd.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
				initrd=1
			fi
			L=$VM/$VM_KERNEL/$name.log
			. "$e"
		done
	fi
	echo "kernel $VM_KERNEL: $pass passed, $fail failed, $skip skipped in $(($(date +%s) - started)) s" >&2
	tpass=$((tpass + pass)) tfail=$((tfail + fail)) tskip=$((tskip + skip))
done

echo "$tpass passed, $tfail failed, $tskip skipped"
[ $tfail -eq 0 ]
