# DAMON: the sysfs facts controller/damon.c relies on, on the real 6.12
# kernel, written exactly as tierd writes them (printf '%s', no newline):
# nr_* files create the tree and a rewrite resets children, access pattern
# maxima default to 0, target_nid exists, paddr + migrate_cold + a memcg
# filter with matching N moves only that cgroup's cold pages, state
# on/commit/off, the commit trap, tried_regions after an update.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/test

D=/sys/kernel/mm/damon/admin
K=$D/kdamonds/0
C=$K/contexts/0
S=$C/schemes/0
NODE0_END=1073741824 # node 0 is [0, 1 GiB) in this VM (docs/vm.md)

anon_mib() { # NODE: anon MiB of /test on NODE
	sed -n "s/^anon .*N$1=\([0-9]*\).*/\1/p" /sys/fs/cgroup/test/memory.numa_stat |
		awk -v m=$MIB '{ print int($1 / m) }'
}
yn() { [ -e "$1" ] && echo yes || echo no; }
# try VALUE FILE: the write's exit status and errno message (busybox's
# echo -n, unlike its printf, names the errno; from a child shell, so the
# message is captured).
try() {
	msg=$(sh -c 'echo -n "$1" >"$2"' x "$1" "$2" 2>&1)
	echo "$? ${msg##*: }"
}

sh -c 'echo $$ >/sys/fs/cgroup/test/cgroup.procs; exec /bin/hog 64 0' >/tmp/hog.test &
sh -c 'exec /bin/hog 32 0' >/tmp/hog.other &
i=0
while ! { grep -q ready /tmp/hog.test && grep -q ready /tmp/hog.other; } && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
other=$!

echo "RESULT damon_admin $(yn $D)"
echo "RESULT nr_kdamonds_before $(cat $D/kdamonds/nr_kdamonds)"
# DAMON_STAT (controller/damon_modules.c), where the kernel has it: its
# kdamond is not one of nr_kdamonds and excludes sysfs kdamonds.
if [ -e $DAMON_STAT ]; then
	echo "RESULT damon_stat_boot $(cat $DAMON_STAT)"
	if [ "$(cat $DAMON_STAT)" = Y ]; then
		w 1 $D/kdamonds/nr_kdamonds
		w 1 $K/contexts/nr_contexts
		w vaddr $K/contexts/0/operations
		w 1 $K/contexts/0/targets/nr_targets
		w $$ $K/contexts/0/targets/0/pid_target
		echo "RESULT on_beside_stat_rc $(try on $K/state)"
		w 0 $D/kdamonds/nr_kdamonds
		w N $DAMON_STAT
	fi
	echo "RESULT damon_stat_off $(cat $DAMON_STAT)"
else
	echo "RESULT damon_stat_boot absent"
fi
w 1 $D/kdamonds/nr_kdamonds
echo "RESULT kdamond0 $(yn $K/state) $(cat $K/state)"
w 1 $K/contexts/nr_contexts
# One operations set per line.
echo "RESULT avail_operations" $(cat $C/avail_operations)
w 1 $C/targets/nr_targets
w 1 $C/targets/0/regions/nr_regions
w 2 $C/schemes/nr_schemes
w 1 $S/filters/nr_filters
w 1 $S/quotas/goals/nr_goals
echo "RESULT target_nid $(yn $S/target_nid) $(cat $S/target_nid)"
echo "RESULT filter_allow $(yn $S/filters/0/allow)"
echo "RESULT dests $(yn $S/dests)"
echo "RESULT goal_nid $(yn $S/quotas/goals/0/nid)"
echo "RESULT ops_filters $(yn $S/ops_filters)"
echo "RESULT core_filters $(yn $S/core_filters)"
echo "RESULT refresh_ms $(yn $K/refresh_ms)"
w 0 $S/quotas/goals/nr_goals
echo "RESULT default_max $(cat $S/access_pattern/sz/max) $(cat $S/access_pattern/nr_accesses/max) $(cat $S/access_pattern/age/max)"
# Rewriting an nr_* file re-creates the children with defaults.
w 4096 $C/targets/0/regions/0/start
w 1 $C/targets/0/regions/nr_regions
echo "RESULT nr_rewrite_resets $(cat $C/targets/0/regions/0/start)"

# What tierd_damon_start writes for one paddr context over node 0: demote
# /test's cold pages to node 3, at most 64 MiB per second.
w paddr $C/operations
w 5000 $C/monitoring_attrs/intervals/sample_us
w 100000 $C/monitoring_attrs/intervals/aggr_us
w 1000000 $C/monitoring_attrs/intervals/update_us
w 10 $C/monitoring_attrs/nr_regions/min
w 1000 $C/monitoring_attrs/nr_regions/max
w 0 $C/targets/0/regions/0/start
w $NODE0_END $C/targets/0/regions/0/end
w migrate_cold $S/action
w 3 $S/target_nid
w 0 $S/access_pattern/sz/min
w 18446744073709551615 $S/access_pattern/sz/max
w 0 $S/access_pattern/nr_accesses/min
w 0 $S/access_pattern/nr_accesses/max
w 5 $S/access_pattern/age/min
w 4294967295 $S/access_pattern/age/max
w $((64 * MIB)) $S/quotas/bytes
w 1000 $S/quotas/reset_interval_ms
w memcg $S/filters/0/type
w /test $S/filters/0/memcg_path
w N $S/filters/0/matching
# Scheme 1: stat over everything, no quota, no filter (hotness observation).
S1=$C/schemes/1
w stat $S1/action
for f in sz/min nr_accesses/min age/min; do w 0 $S1/access_pattern/$f; done
w 18446744073709551615 $S1/access_pattern/sz/max
w 4294967295 $S1/access_pattern/nr_accesses/max
w 4294967295 $S1/access_pattern/age/max
echo "RESULT memcg_path_read $(cat $S/filters/0/memcg_path)"
w on $K/state
echo "RESULT state_on $(cat $K/state)"
pid=$(cat $K/pid)
[ "$pid" -gt 0 ] && echo "RESULT pid_positive yes" || echo "RESULT pid_positive no $pid"

i=0
while [ "$(anon_mib 3)" -lt 63 ] && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
echo "RESULT test_anon_mib_node3 $(anon_mib 3)"
echo "RESULT test_anon_mib_node0 $(anon_mib 0)"
# The process outside /test keeps its 32 MiB (8192 pages) on node 0.
for nd in 0 3; do
	echo "RESULT other_pages_node$nd $(grep -o "N$nd=[0-9]*" /proc/$other/numa_maps |
		awk -F= '{ s += $2 } END { print s + 0 }')"
done

w update_schemes_stats $K/state
echo "RESULT sz_applied_mib $(($(cat $S/stats/sz_applied) / MIB))"
w update_schemes_tried_regions $K/state
for sc in 0 1; do
	n=0
	names=
	for r in $C/schemes/$sc/tried_regions/*/; do
		[ -f "$r/start" ] || continue
		n=$((n + 1))
		b=${r%/}
		names="$names ${b##*/}"
	done
	echo "RESULT tried_regions$sc $n"
	echo "TRIED_NAMES$sc$names"
	echo "RESULT tried_total_bytes$sc $(cat $C/schemes/$sc/tried_regions/total_bytes)"
done
# The regions scheme 1 saw cover node 0 ([start, end) sorted by start).
for r in $C/schemes/1/tried_regions/*/; do
	[ -f "$r/start" ] && echo "TRIED $(cat $r/start) $(cat $r/end) $(cat $r/nr_accesses) $(cat $r/age)"
done

# DAMON_STAT cannot start beside a sysfs kdamond.
if [ -e $DAMON_STAT ]; then
	echo "RESULT stat_on_beside_kdamond_rc $(try Y $DAMON_STAT) $(cat $DAMON_STAT)"
fi

# A good commit keeps it on. A commit with a memcg_path that does not
# exist: 6.12 accepts the write and stops the kdamond; 7.3 refuses the
# write and keeps it on under its old schemes (damon_backend.c handles
# both by reading state back).
w $((32 * MIB)) $S/quotas/bytes
w commit $K/state
echo "RESULT state_after_commit $(cat $K/state)"
w /no-such-cgroup $S/filters/0/memcg_path
printf '%s' commit >$K/state 2>/dev/null
echo "RESULT bad_commit_write_rc $?"
i=0
while [ "$(cat $K/state)" = on ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "RESULT state_after_bad_commit $(cat $K/state)"
echo "RESULT sz_applied_after_bad_commit $(($(cat $S/stats/sz_applied) / MIB))"
printf '%s' off >$K/state 2>/dev/null
echo "RESULT off_after_bad_commit_rc $?"

# on with a bad memcg_path fails at the write (-ENOMEM in 6.12).
printf '%s' on >$K/state 2>/dev/null
echo "RESULT bad_on_rc $?"
w /test $S/filters/0/memcg_path
w on $K/state
echo "RESULT state_on_again $(cat $K/state)"
w off $K/state
echo "RESULT state_off $(cat $K/state)"
w 0 $D/kdamonds/nr_kdamonds
echo "RESULT nr_kdamonds_after $(cat $D/kdamonds/nr_kdamonds)"
if [ -e $DAMON_STAT ]; then
	printf '%s' Y >$DAMON_STAT 2>/dev/null
	echo "RESULT damon_stat_restored $? $(cat $DAMON_STAT)"
fi
