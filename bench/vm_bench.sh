# Shared by the benchmarks that boot the four-tier test VM (sourced by
# bench/bpf_overhead.sh and bench/overhead.sh, not run itself). The caller
# sets BENCH (its name in messages) and SCENARIO, and may set
# VM_TIMEOUT_SEC before sourcing.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
: "${VM_KERNEL:=6.12}" # or 7.3
# The guest's RAM in the host's small pages: throughput that does not
# depend on where a run's pages land (tests/vm/boot.sh).
: "${VM_HOST_THP:=off}"
export BUILD VM_TIMEOUT_SEC VM_KERNEL VM_HOST_THP
VM=$BUILD/vm
L=$VM/$VM_KERNEL/$SCENARIO.log

die() { echo "$BENCH: $*" >&2; exit 1; }

# vm_bench_boot MINUTES: builds tierd and the initramfs, boots the VM on
# SCENARIO and checks it ran to its end. Sets host: the highest 1-minute
# load average of the host while it ran and the most other QEMU processes.
# The VM's clock runs on while the host gives its vCPUs no core, and the
# guest charges that time to whatever it was running: other VMs or builds
# on this host inflate the guest's CPU figures and slow its workloads.
vm_bench_boot() {
	make --no-print-directory -j2 BUILD="$BUILD" all || die "make all failed"
	mkdir -p "$VM"
	tests/vm/setup.sh "$VM_KERNEL" >"$BUILD/vm-setup.log" 2>&1 ||
		die "the VM's kernel or QEMU 10 could not be fetched (see $BUILD/vm-setup.log)"
	tests/vm/mkinitrd.sh || die "tests/vm/mkinitrd.sh failed"
	echo "$BENCH: booting the VM ($VM_KERNEL) on $SCENARIO (about $1 minutes; console in $L)"
	host_log=$VM/$SCENARIO.host
	: >"$host_log"
	(
		while :; do
			echo "$(cut -d' ' -f1 /proc/loadavg) $(ps -e -o comm= | grep -c '^qemu-system')"
			sleep 5
		done >>"$host_log"
	) &
	watch=$!
	tests/vm/boot.sh "$SCENARIO"
	rc=$?
	kill "$watch"
	[ $rc -eq 0 ] || die "the VM failed or timed out after $VM_TIMEOUT_SEC s (see $L)"
	grep -q '^EXIT 0' "$L" || die "the scenario did not run to its end (see $L)"
	# Ours is one of the QEMU processes.
	host=$(awk '$1 > load { load = $1 } $2 > vms { vms = $2 }
		END { printf "load_max=%s other_vms_max=%d", load + 0, (vms > 0 ? vms - 1 : 0) }' "$host_log")
}

# res KEY: the value of the scenario's "RESULT KEY ..." line.
res() { tr -d '\r' <"$L" | sed -n "s/^RESULT $1 //p" | head -n 1; }
