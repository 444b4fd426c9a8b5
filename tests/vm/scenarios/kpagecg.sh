# kpagecg: /proc/kpagecgroup on the real 6.12 kernel names the memory
# cgroup of each physical page by the inode of its cgroup2 directory, so
# DAMON's machine-wide paddr regions can be split per cgroup
# (controller/physmem.c, controller/kpagecgroup.c, policy/attribution.c).
# A 64 MiB hog bound to node 3 in cgroup a: kpcount counts node 3's pages
# owned by a's inode.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
if [ ! -e /proc/kpagecgroup ]; then
	echo "RESULT kpagecgroup absent"
	exit 1
fi
echo "RESULT kpagecgroup present"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/a
sh -c 'echo $$ >/sys/fs/cgroup/a/cgroup.procs; exec /bin/hog 64 3' >/tmp/hog &
i=0
while ! grep -q ready /tmp/hog && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "RESULT hog $(grep ready /tmp/hog)"
ino=$(stat -c %i /sys/fs/cgroup/a)
echo "RESULT cgroup_ino $ino"
echo "RESULT anon_n3_bytes $(sed -n 's/^anon .*N3=\([0-9]*\).*/\1/p' /sys/fs/cgroup/a/memory.numa_stat)"
echo "RESULT anon_n0_bytes $(sed -n 's/^anon .*N0=\([0-9]*\).*/\1/p' /sys/fs/cgroup/a/memory.numa_stat)"
echo "RESULT file_n0_bytes $(sed -n 's/^file .*N0=\([0-9]*\).*/\1/p' /sys/fs/cgroup/a/memory.numa_stat)"
for key in anon_thp pagetables kernel_stack slab percpu sock vmalloc; do
	echo "RESULT ${key}_bytes $(sed -n "s/^$key \([0-9]*\)$/\1/p" /sys/fs/cgroup/a/memory.stat)"
done
grep -E '^(kernel_stack|pagetables) ' /sys/fs/cgroup/a/memory.numa_stat | sed 's/^/RESULT numa_/'
echo "RESULT current_bytes $(cat /sys/fs/cgroup/a/memory.current)"
for n in 0 1 2 3; do
	echo "RESULT node${n}_blocks $(ls -d /sys/devices/system/node/node$n/memory[0-9]* | sed 's|.*/memory||' | sort -n | tr '\n' ' ')"
done
/bin/kpcount 3 "$ino"
echo "RESULT kpcount3_rc $?"
/bin/kpcount 0 "$ino"
echo "RESULT kpcount0_rc $?"
# Not root's: the hog's pages are charged to a, whatever else shares node 3.
/bin/kpcount 3 1 | sed 's/^RESULT /RESULT rootcg_/'

# What the alternative costs where the kernel has it (ops_filters, 7.2+): a
# DAMOS stat scheme with a memcg filter reports per region the bytes of
# that one cgroup (sz_filter_passed), but the paddr operations walk every
# folio of every region for it at each apply, once per scheme, so once per
# cgroup. A kdamond over node 3 (sample 5 ms, aggregation 100 ms, applied
# each aggregation) with NS stat schemes, FILTERED (a memcg filter for a on
# each) or not: its CPU over 5 s in ms per second, and a's bytes that scheme
# 0 saw in its tried regions.
D=/sys/kernel/mm/damon/admin
K=$D/kdamonds/0
C=$K/contexts/0
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
damos_cost() {
	w 1 $C/targets/nr_targets
	w 1 $C/targets/0/regions/nr_regions
	w $1 $C/schemes/nr_schemes
	w paddr $C/operations
	w 5000 $C/monitoring_attrs/intervals/sample_us
	w 100000 $C/monitoring_attrs/intervals/aggr_us
	w 1000000 $C/monitoring_attrs/intervals/update_us
	w $((4 << 30)) $C/targets/0/regions/0/start
	w $((5 << 30)) $C/targets/0/regions/0/end
	for s in $(seq 0 $(($1 - 1))); do
		S=$C/schemes/$s
		w stat $S/action
		w 18446744073709551615 $S/access_pattern/sz/max
		w 4294967295 $S/access_pattern/nr_accesses/max
		w 4294967295 $S/access_pattern/age/max
		[ "$2" = 1 ] || continue
		w 1 $S/ops_filters/nr_filters
		w memcg $S/ops_filters/0/type
		w /a $S/ops_filters/0/memcg_path
		w Y $S/ops_filters/0/matching
		w Y $S/ops_filters/0/allow
	done
	w on $K/state
	sleep 2
	pid=$(cat $K/pid)
	c0=$(cpu_ticks $pid)
	sleep 5
	c1=$(cpu_ticks $pid)
	w update_schemes_tried_regions $K/state
	passed=0
	for r in $C/schemes/0/tried_regions/*/; do
		[ -f "$r/sz_filter_passed" ] && passed=$((passed + $(cat $r/sz_filter_passed)))
	done
	w off $K/state
	# USER_HZ is 100: a tick is 10 ms; over 5 s, ms per second is ticks * 2.
	echo "RESULT damos_cost_$1_$2 $(((c1 - c0) * 2)) $passed"
}
w 1 $D/kdamonds/nr_kdamonds
w 1 $K/contexts/nr_contexts
w 1 $C/schemes/nr_schemes
if [ -d $C/schemes/0/ops_filters ]; then
	[ "$(damon_stat)" = Y ] && w N $DAMON_STAT
	damos_cost 1 0
	damos_cost 1 1
	damos_cost 8 1
else
	echo "RESULT damos_cost absent"
fi
w 0 $D/kdamonds/nr_kdamonds
