# Degraded: someone else runs DAMON: where DAMON_STAT runs from boot
# (Debian's 7.3), DAMON_STAT with "damon_stat": "leave" in tierd.json;
# elsewhere a kdamond started here by hand, as damo would. tierd leaves it
# alone, says so, runs
# without DAMON, and enforces a tier-0 budget with memory.reclaim, turning
# demotion_enabled on for it; on exit it restores demotion_enabled and the
# NUMA balancing setting it changed ("numa_balancing": "off").
set -u
. /scenarios/lib.sh
echo 1 >/proc/sys/kernel/numa_balancing
echo false >/sys/kernel/mm/numa/demotion_enabled
echo +memory >$CG/cgroup.subtree_control
D=/sys/kernel/mm/damon/admin/kdamonds
C=$D/0/contexts/0
if [ "$(damon_stat)" = Y ]; then
	echo "RESULT degraded_by damon_stat"
	extra=', "damon_stat": "leave"'
else
	echo "RESULT degraded_by kdamond"
	extra=
	# A foreign kdamond: vaddr, no scheme, monitoring the shell.
	w 1 $D/nr_kdamonds
	w 1 $D/0/contexts/nr_contexts
	w vaddr $C/operations
	w 1 $C/targets/nr_targets
	w $$ $C/targets/0/pid_target
	w on $D/0/state
	foreign_pid=$(cat $D/0/pid)
fi

start_work /over w --hot 32 --cold 288 --report-ms 1000
write_config 1s '"numa_balancing": "off"'"$extra"
cat >/tmp/policies.d/over.json <<'JSON'
{ "name": "over", "match": { "path": "/over" }, "strategy": "none", "tiers": [ { "tier": 0, "max": "128M" } ] }
JSON
echo "RESULT before_node0 $(cgroup_node_mib /over 0)"
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
i=0
while [ "$(cgroup_node_mib /over 0)" -gt 128 ] && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
sleep 2
echo "RESULT after_node0 $(cgroup_node_mib /over 0)"
echo "RESULT numa_balancing_running $(cat /proc/sys/kernel/numa_balancing)"
echo "RESULT demotion_running $(cat /sys/kernel/mm/numa/demotion_enabled)"
echo "RESULT damon_degraded $(metric 'tierd_damon_mode{mode="degraded"}')"
echo "RESULT reclaim_requests $(metric 'tierd_migration_requests_total{path="memory_reclaim"}')"
# Jobs and requests from one writing of the metrics.
grep -v '^#' "$(prom)" | awk '$1 == "tierd_reclaim_jobs_total" { j = $2 }
	$1 == "tierd_migration_requests_total{path=\"memory_reclaim\"}" { r = $2 }
	END { print "RESULT reclaim_jobs_requests " j " " r }'
echo "RESULT reclaim_moved_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="memory_reclaim"}')")"
grep -q 'DAMON not used: .*\(nr_kdamonds is 1: DAMON is in use by someone else\|DAMON_STAT is enabled\)' /tmp/tierd.log &&
	echo "RESULT degraded_logged yes" || echo "RESULT degraded_logged no"
tierctl status --state-file /tmp/state.json | grep '^DAMON' | sed 's/^/RESULT status_line /'
kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
echo "RESULT numa_balancing_after $(cat /proc/sys/kernel/numa_balancing)"
echo "RESULT demotion_after $(cat /sys/kernel/mm/numa/demotion_enabled)"
if [ "$(damon_stat)" = Y ]; then
	echo "RESULT foreign_kdamond $(cat $D/nr_kdamonds) $(damon_stat)"
else
	echo "RESULT foreign_kdamond $(cat $D/nr_kdamonds) $(cat $D/0/state) $([ "$(cat $D/0/pid)" = "$foreign_pid" ] && echo same-pid || echo other-pid)"
fi
stop_work w
sed 's/^/TIERD /' /tmp/tierd.log | head -n 20
