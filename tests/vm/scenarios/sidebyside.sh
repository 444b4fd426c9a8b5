# Side by side (issue 4, scenario 6): the same workload, a 64 MiB hot set
# and 128 MiB cold on node 3, first under Linux's own tiering
# (numa_balancing=2, demotion enabled, kernel defaults, no tierd), then
# under tierd (mole) with DAMON alone, then with DAMON and BPF (issue 5). Each second: the hot set's share in the top tier and
# its effective access latency, sum(pages on node n / all * latency n),
# with HMAT's 80/140/300/600 ns. A benchmark, not a pass/fail threshold.
set -u
. /scenarios/lib.sh
echo +memory >$CG/cgroup.subtree_control
RUN_S=45

# Linux: tiering mode NUMA balancing promotes, demotion on.
echo 2 >/proc/sys/kernel/numa_balancing
echo true >/sys/kernel/mm/numa/demotion_enabled
start_work /linux linux --hot 64 --hot-node 3 --cold 128 --cold-node 3 --report-ms 1000
sleep $RUN_S
stop_work linux
echo "RESULT linux_pgpromote_success $(sed -n 's/^pgpromote_success //p' $CG/linux/memory.stat)"
series linux

# tierd_run NAME CONFIG: tierd (mole) on the same workload in /NAME.
tierd_run() {
	write_config 1s "$2"
	cat >/tmp/policies.d/sbs.json <<JSON
{ "name": "sbs", "match": { "path": "/$1" }, "strategy": "mole" }
JSON
	start_work /$1 $1 --hot 64 --hot-node 3 --cold 128 --cold-node 3 --report-ms 1000
	tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/$1.log &
	tierd_pid=$!
	sleep $RUN_S
	kill -TERM $tierd_pid
	wait $tierd_pid
	echo "RESULT $1_exit $?"
	stop_work $1
	series $1
	sed "s/^/TIERD $1 /" /tmp/$1.log | head -n 30
}

# tierd with DAMON alone, NUMA balancing off.
echo 0 >/proc/sys/kernel/numa_balancing
echo false >/sys/kernel/mm/numa/demotion_enabled
tierd_run tierd '"bpf": false'
# tierd as shipped: DAMON and the BPF sampler (it sets tiering mode and
# holds the kernel's promotion off).
tierd_run tierdbpf ''
