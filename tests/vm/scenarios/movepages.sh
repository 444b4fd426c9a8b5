# move_pages: controller/move_pages.c (through /bin/movetest) on the real
# 6.12 kernel. 64 MiB bound to node 3 (THPs) moves whole to node 0. Then
# 256 MiB on node 3 is asked onto a node 1 that an ~850 MiB hog has nearly
# filled, twice: as THPs, and as base pages (THP off), since the kernel
# reports the full node differently for each. Whatever the module counts
# as moved must be what the kernel shows on node 1 afterwards.
set -u
echo 0 >/proc/sys/kernel/numa_balancing
PAGE=4096
MIB=1048576
THP=/sys/kernel/mm/transparent_hugepage/enabled

start_hog() { # NAME MIB NODE: sets hog_pid and hog_addr
	/bin/hog "$2" "$3" >/tmp/hog.$1 &
	hog_pid=$!
	i=0
	# First touch runs at ~40 MiB/s under TCG: up to 60 s.
	while ! grep -q ready /tmp/hog.$1 && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	hog_addr=$(sed -n 's/^addr //p' /tmp/hog.$1)
	echo "RESULT hog_$1 $(grep ready /tmp/hog.$1)"
	echo "INFO hog_$1 $(grep AnonHugePages /proc/$hog_pid/smaps_rollup)"
}
pages_on() { # PID NODE: pages of PID on NODE, from numa_maps (base pages)
	grep -o "N$2=[0-9]*" /proc/$1/numa_maps | awk -F= '{ s += $2 } END { print s + 0 }'
}
move() { # LABEL PID NODE ADDR MIB: movetest, its keys prefixed with LABEL_
	/bin/movetest "$2" "$3" "$4" $(($5 * MIB / PAGE)) |
		sed -e "s/^RESULT /RESULT $1_/" -e "s/^INFO /INFO $1_/"
	echo "RESULT $1_numa_maps_n$3 $(pages_on $2 $3)"
}

echo "RESULT thp $(cat $THP)"

start_hog fast 64 3
move fast $hog_pid 0 $hog_addr 64
echo "RESULT fast_numa_maps_n3 $(pages_on $hog_pid 3)"
kill $hog_pid
wait $hog_pid

start_hog filler 850 1
filler=$hog_pid
echo "INFO node1 $(grep MemFree /sys/devices/system/node/node1/meminfo)"
start_hog thpfull 256 3
move thpfull $hog_pid 1 $hog_addr 256
echo "RESULT thpfull_numa_maps_n3 $(pages_on $hog_pid 3)"
kill $hog_pid
wait $hog_pid

echo never >$THP
echo "INFO node1 $(grep MemFree /sys/devices/system/node/node1/meminfo)"
start_hog full 256 3
echo "INFO full_vmstat_before $(grep -E '^(compact_migrate_scanned|compact_isolated|pgmigrate_success|pgmigrate_fail) ' /proc/vmstat | tr '\n' ' ')"
move full $hog_pid 1 $hog_addr 256
echo "INFO full_vmstat_after $(grep -E '^(compact_migrate_scanned|compact_isolated|pgmigrate_success|pgmigrate_fail) ' /proc/vmstat | tr '\n' ' ')"
echo "RESULT full_numa_maps_n3 $(pages_on $hog_pid 3)"
echo "RESULT filler_alive $([ -d /proc/$filler ] && echo yes || echo no)"
