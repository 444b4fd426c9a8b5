#!/bin/sh
# Scenarios on a real four-tier kernel in QEMU (tests/vm/). Each scenario
# prints RESULT and METRIC lines on the console; this script checks them.
# A VM that hangs or panics fails, its console kept in $BUILD/vm/NAME.log.
# Without the VM's ingredients (no network to Debian's mirrors) it skips.
set -u
: "${BUILD:=build}"
VM=$BUILD/vm
pass=0 fail=0 skip=0
MIB=1048576

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_eq() { [ "$1" = "$2" ] && ok || no "$3: got '$1', expected '$2'"; }
# expect_range VALUE LOW HIGH WHAT
expect_range() {
	if [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; then ok; else no "$4: got '$1', expected $2..$3"; fi
}
metric() { # LOG NAME{labels}
	grep -F "METRIC $2 " "$1" | head -n 1 | awk '{print $NF}' | tr -d '\r'
}

if ! tests/vm/setup.sh >"$BUILD/vm-setup.log" 2>&1; then
	echo "SKIP: the VM's kernel or QEMU 10 could not be fetched (see $BUILD/vm-setup.log)" >&2
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
tests/vm/mkinitrd.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

res() { grep "^RESULT $1 " "$L" | head -n 1 | sed "s/^RESULT $1 //" | tr -d '\r'; }

# Each tests/vm/expect/NAME.sh boots scenario NAME (tests/vm/scenarios/) and
# checks what it printed; VM_ONLY="a b" runs only those.
for e in tests/vm/expect/*.sh; do
	name=$(basename "$e" .sh)
	if [ -n "${VM_ONLY:-}" ] && ! echo " $VM_ONLY " | grep -q " $name "; then
		continue
	fi
	L=$VM/$name.log
	. "$e"
done

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
