# BPF hint-fault sampler (issue 5): NUMA balancing in tiering mode makes
# the slow-tier pages of two workloads fault; bpftest (tests/vm/bpftest.c)
# loads the sampler, manages one cgroup and checks the samples are that
# cgroup's and name its workload's process (the pid start_work's workload
# printed) with a reaccess interval, then shrinks its token bucket by a map
# update (a storm) and counts the drops. The kernel's own promotion is held
# off by numa_balancing_promote_rate_limit_MBps=0: in 6.12's
# should_numa_migrate_memory() a slow-tier page is promoted only when the
# fast node has "enough" free space (free above the promo watermark plus
# max(1 GiB, 1/16 of the node): never on the VM's 1 GiB node 0) or when
# numa_promotion_rate_limit() allows it, which with a limit of 0 pages it
# never does (nr_cand - start >= 0). So pgpromote_success must not move.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
fast_numa_scan
echo 0 >/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps
echo "RESULT rate_limit $(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"

start_work /managed m --hot 64 --hot-node 3 --report-ms 5000
start_work /unmanaged u --hot 64 --hot-node 3 --report-ms 5000 --cpu 1
echo "RESULT managed_pid $(work_pid m)"
promote_before=$(vmstat pgpromote_success)
hint_before=$(vmstat numa_hint_faults)

# Nodes 1-3 are the slow tiers 1-3 (docs/vm.md); node 0 is not sampled.
bpftest --cgroup $CG/managed --node-tier 1:1 --node-tier 2:2 --node-tier 3:3 \
	--phase-sec 25 --storm-sec 15 --storm-rate 5 --storm-burst 2 >/tmp/bpftest.out 2>&1 &
bpf_pid=$!
# Tiering mode once the sampler is attached, so every hint fault is seen.
i=0
while ! grep -q '^RESULT configured' /tmp/bpftest.out && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
echo 2 >/proc/sys/kernel/numa_balancing
wait $bpf_pid
echo "RESULT bpftest_exit $?"
echo 0 >/proc/sys/kernel/numa_balancing
cat /tmp/bpftest.out

echo "RESULT pgpromote_delta $(($(vmstat pgpromote_success) - promote_before))"
echo "RESULT hint_faults_delta $(($(vmstat numa_hint_faults) - hint_before))"
echo "RESULT pgpromote_candidate $(vmstat pgpromote_candidate)"
echo "RESULT managed_cgroup_pgpromote $(awk '$1 == "pgpromote_success" { print $2 }' $CG/managed/memory.stat)"
echo "RESULT managed_hot_nodes $(last_place m hot)"
echo "RESULT unmanaged_hot_nodes $(last_place u hot)"
stop_work m
stop_work u
