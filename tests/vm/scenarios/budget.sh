# Budget (issue 4, scenario 1): a cgroup holding ~1.5 GiB, 256 MiB of it
# hot, under a policy with tier 0 max 512M. tierd demotes the cold part
# through DAMOS migrate_cold straight to the lowest tier (staging demotion):
# its tier-0 usage ends within the budget, what left node 0 went to node 3,
# nodes 1 and 2 did not grow, the hot set stayed on node 0.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control

# Hot set first so it sits on node 0; the cold part fills node 0 and
# spills to nodes 1 and 2 (first touch follows the zonelist: docs/vm.md).
start_work /budget w --hot 256 --cold 1280 --report-ms 1000
for n in 0 1 2 3; do echo "RESULT before_node$n $(cgroup_node_mib /budget $n)"; done

# DAMON alone: the BPF sampler's promotions have their own scenario (bpfpromote).
write_config 1s '"bpf": false'
cat >/tmp/policies.d/budget.json <<'JSON'
{ "name": "budget", "match": { "path": "/budget" },
  "tiers": [ { "tier": 0, "max": "512M" } ], "strategy": "none" }
JSON
echo "RESULT damon_stat_before $(damon_stat)"
start=$(cut -d' ' -f1 /proc/uptime)
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
sleep 3
kill -0 $tierd_pid 2>/dev/null || { echo "RESULT tierd_died yes"; sed 's/^/TIERD /' /tmp/tierd.log; }
i=0
while [ "$(cgroup_node_mib /budget 0)" -gt 512 ] && [ $i -lt 150 ]; do sleep 1; i=$((i + 1)); done
end=$(cut -d' ' -f1 /proc/uptime)
sleep 2
echo "RESULT within_budget_s $(awk -v a=$start -v b=$end 'BEGIN { printf "%d", b - a + 0.5 }')"
echo "RESULT ticks $(metric tierd_ticks_total)"
echo "RESULT damon_stat_running $(damon_stat)"
for n in 0 1 2 3; do echo "RESULT after_node$n $(cgroup_node_mib /budget $n)"; done
echo "RESULT hot_place $(last_place w hot)"
echo "RESULT damon_mode $(grep -F 'tierd_damon_mode{' /tmp/tierd.prom | awk '$NF == 1' | sed 's/.*mode="\([a-z]*\)".*/\1/')"
echo "RESULT kdamonds $(damon_read /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds)"
echo "RESULT cold_succeeded_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="damos_migrate_cold"}')")"
echo "RESULT reclaim_tried $(metric 'tierd_migration_tried_bytes_total{path="memory_reclaim"}')"
echo "RESULT moved_0_3_mib $(mib "$(metric 'tierd_migrated_bytes_total{from_tier="0",to_tier="3"}')")"
echo "RESULT moved_0_1 $(metric 'tierd_migrated_bytes_total{from_tier="0",to_tier="1"}')"
tierctl status --state-file /tmp/state.json | sed 's/^/STATUS /'

kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
echo "RESULT kdamonds_after $(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds)"
echo "RESULT numa_balancing_after $(cat /proc/sys/kernel/numa_balancing)"
echo "RESULT damon_stat_after $(damon_stat)"
sed 's/^/TIERD /' /tmp/tierd.log | head -n 60
grep -i 'damon_stat' /tmp/tierd.log | sed 's/^/DAMON_STAT_LOG /'

# Where the kernel has DAMON_STAT: a tierd killed (SIGKILL) leaves it off
# with its record; the next tierd turns it on at its exit. The dead one's
# kdamonds are removed by hand first, so that this checks the DAMON_STAT
# record alone (taking them back is the systemd scenario's check).
if [ "$(damon_stat)" = Y ]; then
	K=/sys/kernel/mm/damon/admin/kdamonds
	tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd2.log &
	tierd_pid=$!
	i=0
	while ! grep -q 'kdamonds started' /tmp/tierd2.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL $tierd_pid
	wait $tierd_pid
	echo "RESULT killed_stat $(damon_stat) $(cat /run/tierd/damon_stat.stopped 2>/dev/null)"
	for k in $K/[0-9]*; do printf '%s' off >$k/state; done
	printf '%s' 0 >$K/nr_kdamonds
	tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd3.log &
	tierd_pid=$!
	i=0
	while ! grep -q 'kdamonds started' /tmp/tierd3.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	echo "RESULT next_stat_running $(damon_stat)"
	kill -TERM $tierd_pid
	wait $tierd_pid
	echo "RESULT next_exit $? $(damon_stat) $([ -e /run/tierd/damon_stat.stopped ] && echo record || echo no-record)"
	grep -i 'damon_stat' /tmp/tierd2.log /tmp/tierd3.log | sed 's/^/DAMON_STAT_LOG /'
fi
stop_work w
