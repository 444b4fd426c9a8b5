#!/bin/sh
# Boots the four-tier test VM on scenario $1 with kernel $VM_KERNEL (6.12 or
# 7.3); the console goes to $BUILD/vm/$VM_KERNEL/$1.log. Four NUMA nodes of
# 1 GiB (node 0 with the CPUs, nodes 1-3 CPU-less) with HMAT latencies
# 80/140/300/600 ns and bandwidths 100/50/20/10 GB/s, from which the kernel
# builds memory tiers 4/15/84/337 (docs/vm.md). TCG only: this machine has
# no KVM.
set -eu
: "${BUILD:=build}"
: "${VM_TIMEOUT_SEC:=300}"
: "${VM_KERNEL:=6.12}" # a kernel tests/vm/setup.sh fetched
VM=$BUILD/vm
name=$1
# The systemd scenario boots its own initramfs with systemd as init.
INITRD=${VM_INITRD:-$VM/initrd.gz}

# no_timer_check: on a loaded host the emulated 8254 timer can miss the
# kernel's IO-APIC timer check, which then panics at boot ("IO-APIC + timer
# doesn't work", seen once on 6.12 with the host loaded 7 to 10 on 2 cores).
set -- -accel tcg,thread=multi -cpu max -m 4G -smp 2 -nographic -no-reboot \
	-machine pc,hmat=on -kernel "$VM/$VM_KERNEL/vmlinuz" -initrd "$INITRD" \
	-append "console=ttyS0 quiet panic=-1 no_timer_check tierd.scenario=$name${VM_APPEND:+ $VM_APPEND}"
for n in 0 1 2 3; do
	set -- "$@" -object memory-backend-ram,size=1G,id=m$n
done
set -- "$@" -numa node,nodeid=0,memdev=m0,cpus=0-1,initiator=0
for n in 1 2 3; do
	set -- "$@" -numa node,nodeid=$n,memdev=m$n,initiator=0
done
for spec in 0:80:100G 1:140:50G 2:300:20G 3:600:10G; do
	node=${spec%%:*} rest=${spec#*:}
	set -- "$@" \
		-numa hmat-lb,initiator=0,target=$node,hierarchy=memory,data-type=access-latency,latency=${rest%%:*} \
		-numa hmat-lb,initiator=0,target=$node,hierarchy=memory,data-type=access-bandwidth,bandwidth=${rest#*:}
done
timeout "$VM_TIMEOUT_SEC" qemu-system-x86_64 "$@" </dev/null >"$VM/$VM_KERNEL/$name.log" 2>&1
