# Pool (issue 4, scenario 3): two cgroups share tier 0 in pool mode (HMM-V
# §3.4) with different hot sets: /big has 800 MiB hot, /small 256 MiB, both
# first placed on slow nodes; together more than tier 0 holds. Each member starts from half of tier 0, keeps
# 75% of that as its floor, and the rest goes by measured need: /big gets
# more than half of tier 0, /small keeps its floor and all its hot set.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control

# The two hot loops fill both vCPUs: at nice 0 they starved tierd and the
# kdamonds (11 ticks in 61 s on 6.12, 16 on 7.3, and DAMON saw 377 to
# 523 MiB of /big's 800 MiB hot on 7.3). This measures the sharing, so
# they yield (--nice 19).
start_work /big big --hot 800 --hot-node 3 --cpu 0 --report-ms 1000 --nice 19
start_work /small small --hot 256 --hot-node 2 --cpu 1 --report-ms 1000 --nice 19
# DAMON alone: the BPF sampler's promotions have their own scenario (bpfpromote).
write_config 1s '"bpf": false'
for name in big small; do
	cat >/tmp/policies.d/$name.json <<JSON
{ "name": "$name", "match": { "path": "/$name" }, "strategy": "mole", "sharing": "pool" }
JSON
done
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
sleep 50
# The hot loops' sweeps (pages touched) while the shares are read: the
# need tierd can see is what they touch.
touches0=$(last_place big touches)
share() { metric "tierd_cgroup_tier_share_bytes{cgroup=\"/$1\",policy=\"$1\",tier=\"0\"}"; }
# Shares follow each tick's measured need, which one DAMON reading can
# undershoot (seen under a loaded host: /big at 402 MiB for a tick): the
# median of the last 11 ticks' shares.
for i in 0 1 2 3 4 5 6 7 8 9 10; do
	echo "$(mib "$(share big)") $(mib "$(share small)") $(metric tierd_ticks_total)"
	sleep 1
done >/tmp/shares
echo "RESULT big_touches_window $(($(last_place big touches) - touches0))"
median() { awk -v f=$1 '{ print $f }' /tmp/shares | sort -n | sed -n 6p; }
echo "RESULT tier0_mib $(mib "$(metric 'tierd_tier_capacity_bytes{tier="0",nodes="0"}')")"
echo "RESULT share_big_mib $(median 1)"
echo "RESULT share_small_mib $(median 2)"
sed 's/^/SHARES /' /tmp/shares
echo "RESULT big_node0_mib $(cgroup_node_mib /big 0)"
echo "RESULT small_node0_mib $(cgroup_node_mib /small 0)"
echo "RESULT big_hot $(last_place big hot)"
# Ticks that planned from a reading seen already (their need rounds kept).
echo "RESULT damon_late_readings $(metric tierd_damon_late_readings_total)"
echo "RESULT damon_skipped_commits $(metric tierd_damon_skipped_commits_total)"
echo "RESULT small_hot $(last_place small hot)"
kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
stop_work big
stop_work small
sed 's/^/TIERD /' /tmp/tierd.log | head -n 30
