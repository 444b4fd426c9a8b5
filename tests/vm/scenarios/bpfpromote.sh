# Promotion driven through BPF (issue 5): tierd loads the hint-fault
# sampler, switches NUMA balancing to tiering mode and holds the kernel's
# own promotion off (rate limit 0), and promotes what the samples show with
# move_pages(2). DAMON is off ("damon": false), so every promotion here is
# the sampler's. /bpfp (managed, mole): 64 MiB hot + 128 MiB cold on node 3.
# /other (no policy): 32 MiB hot on node 3, whose faults must not be
# sampled. Then /storm (managed, a bucket of 5 samples/s) faults hard: the
# bucket drops, tierd keeps ticking.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
fast_numa_scan
RUN_S=55 # past the 50 s bound of tests/vm/expect/bpfpromote.sh
echo "RESULT rate_limit_before $(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"

start_work /bpfp w --hot 64 --hot-node 3 --cold 128 --cold-node 3 --report-ms 1000
start_work /other o --hot 32 --hot-node 3 --report-ms 5000 --cpu 1
write_config 1s '"damon": false'
cat >/tmp/policies.d/bpfp.json <<'JSON'
{ "name": "bpfp", "match": { "path": "/bpfp" }, "strategy": "mole" }
JSON
cat >/tmp/policies.d/storm.json <<'JSON'
{ "name": "storm", "match": { "path": "/storm" }, "strategy": "mole",
  "sampling": { "rate": 5, "burst": 2 } }
JSON
promote_before=$(vmstat pgpromote_success)
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
# Started: the line that follows the kernel settings (the sampler's line
# comes before them; CI once read numa_balancing 0 between the two).
i=0
while ! grep -q ' policies from /tmp/policies.d' /tmp/tierd.log && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
echo "RESULT numa_balancing_during $(cat /proc/sys/kernel/numa_balancing)"
echo "RESULT rate_limit_during $(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"
sleep $RUN_S
stop_work w
# The storm: 256 MiB touched as fast as it goes, all on node 3.
start_work /storm s --hot 256 --hot-node 3 --report-ms 5000
ticks_before=$(metric tierd_ticks_total)
sleep 15
ticks_after=$(metric tierd_ticks_total)
echo "RESULT storm_ticks $((${ticks_after:-0} - ${ticks_before:-0}))"
echo "RESULT tierd_alive $(kill -0 $tierd_pid 2>/dev/null && echo yes || echo no)"
stop_work s
stop_work o
echo "RESULT pgpromote_delta $(($(vmstat pgpromote_success) - promote_before))"
keep_metrics
kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
echo "RESULT numa_balancing_after $(cat /proc/sys/kernel/numa_balancing)"
echo "RESULT rate_limit_after $(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"

# Hot-set share in tiers 0-1 and in tier 0 per second, and when >= 90% of
# it first sat in tiers 0-1.
grep '^PLACE ' /tmp/w.out | sed -n 's/^PLACE t_ms=\([0-9]*\) hotset=A hot=\([0-9,]*\) cold=\([0-9,]*\).*/\1 \2 \3/p' | tr , ' ' |
	awk '{ all = $2 + $3 + $4 + $5; if (!all) next
	       top2 = int(($2 + $3) * 1000 / all); top = int($2 * 1000 / all)
	       printf "SERIES bpfp %d %d %d\n", $1 / 1000, top2, top
	       if (t90 == "" && top2 >= 900) t90 = $1
	       last = top2; cold = $6 + $7 }
	     END { print "RESULT promote_ms " (t90 == "" ? -1 : t90)
	           print "RESULT final_hot_top2_pmy " last
	           print "RESULT final_cold_top2_pages " cold }'
sum_metric() { grep -v '^#' "$(prom)" | grep -F "$1" | awk '{ s += $NF } END { print s + 0 }'; }
echo "RESULT samples_bpfp $(sum_metric 'tierd_bpf_samples_total{cgroup="/bpfp"')"
echo "RESULT faults_bpfp $(sum_metric 'tierd_bpf_hint_faults_total{cgroup="/bpfp"')"
echo "RESULT samples_other $(sum_metric 'tierd_bpf_samples_total{cgroup="/other"')"
echo "RESULT samples_storm $(sum_metric 'tierd_bpf_samples_total{cgroup="/storm"')"
echo "RESULT drops_storm $(sum_metric 'tierd_bpf_dropped_total{cgroup="/storm"')"
echo "RESULT unmanaged_faults $(metric tierd_bpf_unmanaged_faults_total)"
echo "RESULT samples_read $(metric tierd_bpf_samples_read_total)"
echo "RESULT bpf_running $(metric 'tierd_bpf_mode{mode="running"}')"
echo "RESULT moved_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="move_pages"}')")"
echo "RESULT promoted_t0_pages $(metric 'tierd_sample_promotions_pages_total{target_tier="0",result="succeeded"}')"
echo "RESULT promoted_t1_pages $(metric 'tierd_sample_promotions_pages_total{target_tier="1",result="succeeded"}')"
echo "RESULT bpfp_pgpromote $(awk '$1 == "pgpromote_success" { print $2 }' $CG/bpfp/memory.stat)"
grep -v '^#' "$(prom)" | grep -E 'bpf|sample_promotions|move_pages' | sed 's/^/METRIC /'
sed 's/^/TIERD /' /tmp/tierd.log | head -n 40
