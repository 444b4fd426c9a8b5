# What tiering costs the workload (issue 15). A benchmark, not a test: no
# tests/vm/expect file, so make check never boots it; bench/overhead.sh
# does and prints the table.
# One workload, work (tests/vm/work.c) in /bench, runs through all the
# runs: a fixed hot set in tier 0 swept in a loop, which counts the pages
# it touches (PLACE's touches=), and a cold set in tier 3 it never touches
# again: tiering's steady state, where nothing is left to move and what a
# part costs is what it takes from the workload. One process, so every run
# sweeps the same pages at the same addresses (the touch rate still varies
# up to 2.5x from window to window on the build machine: bench/README.md).
# Each run measures its touches/s over WINDOW s after WARMUP s, under one
# mode:
#   none         no tiering: NUMA balancing off, demotion off, no tierd
#   linux        the kernel's tiering: NUMA balancing 2, demotion on
#   damon        tierd with DAMON only, no cgroup managed: the kdamonds
#   attribution  the same with /bench managed (strategy none): the
#                kdamonds, /proc/kpagecgroup each tick, the ticks' work
#   bpf          tierd with the BPF sampler only, /bench managed (strategy
#                none): NUMA balancing 2 and the sampler
#   tierd        tierd as shipped (DAMON, sampler, attribution, the
#                default strategy), /bench managed
# Modes alternate within each round, so drift hits all alike. Besides the
# rate, each run reports the CPU of the workload, of tierd and of the
# kernel threads (kdamonds, kswapd), and the hint faults and migrations
# over the window.
set -u
. /scenarios/lib.sh
echo +memory >$CG/cgroup.subtree_control

# bench/overhead.sh may name other modes and rounds on the kernel's command
# line: tierd.overhead_modes=none,linux tierd.overhead_rounds=5.
cmdline() { tr ' ' '\n' </proc/cmdline | sed -n "s/^tierd\.$1=//p" | tr , ' '; }
MODES=$(cmdline overhead_modes)
: "${MODES:=none linux damon attribution bpf tierd}"
ROUNDS=$(cmdline overhead_rounds)
: "${ROUNDS:=5}"
HOT_MIB=32      # the hot set: 8,192 pages, one sweep a few ms under TCG
HOT_NODE=0      # tier 0, where tiering keeps a hot set
COLD_MIB=128
COLD_NODE=3
WARMUP=10       # s before the window: tierd up, its kdamonds started
WINDOW=30       # s measured
echo "RESULT config hot_mib=$HOT_MIB hot_node=$HOT_NODE cold_mib=$COLD_MIB" \
	"cold_node=$COLD_NODE warmup=$WARMUP window=$WINDOW rounds=$ROUNDS modes=$(echo $MODES | tr ' ' ,)"

# place_at: "T_MS TOUCHES HOT_ON_NODE_0" of work's last PLACE line.
place_at() {
	grep '^PLACE ' /tmp/bench.out | tail -n 1 |
		sed -n 's/^PLACE t_ms=\([0-9]*\) hotset=A hot=\([0-9]*\),.* touches=\([0-9]*\)$/\1 \3 \2/p'
}

# per_second_median T0 T1: the median of work's touches/s over each second
# between its PLACE lines at t_ms T0 and T1: a burst of the host's own load
# (the VM's clock runs on while the host gives it no core) moves the
# window's mean, not its median.
per_second_median() {
	sed -n 's/^PLACE t_ms=\([0-9]*\) .* touches=\([0-9]*\)$/\1 \2/p' /tmp/bench.out |
		awk -v t0=$1 -v t1=$2 '$1 >= t0 && $1 <= t1 {
			if (seen && $1 > t) r[++n] = ($2 - c) * 1000 / ($1 - t)
			seen = 1; t = $1; c = $2 }
		END {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && r[j - 1] > r[j]; j--) { x = r[j]; r[j] = r[j - 1]; r[j - 1] = x }
			if (!n) print 0
			else printf "%.0f\n", n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2 }'
}

# family_sum NAME: the sum of all samples of metric NAME, whatever labels.
family_sum() {
	grep -v '^#' /tmp/tierd.prom 2>/dev/null |
		awk -v n="$1" 'index($1, n) == 1 && (length($1) == length(n) ||
			substr($1, length(n) + 1, 1) == "{") { s += $NF } END { print s + 0 }'
}

# settings MODE: the kernel's tiering knobs as the mode starts.
settings() {
	if [ $1 = linux ]; then
		tiering_linux
	else
		echo 0 >/proc/sys/kernel/numa_balancing
		echo false >/sys/kernel/mm/numa/demotion_enabled
	fi
}

# start_tierd MODE: tierd configured for MODE; waits for its first tick.
start_tierd() {
	rm -f /tmp/tierd.prom /tmp/policies.d/*
	case $1 in
	damon|attribution) write_config 1s '"bpf": false, "manage_demotion": false' ;;
	bpf) write_config 1s '"damon": false, "manage_demotion": false' ;;
	tierd) write_config 1s ;;
	esac
	case $1 in
	damon) echo '{ "name": "none", "match": { "path": "/absent" }, "strategy": "none" }' ;;
	attribution|bpf) echo '{ "name": "bench", "match": { "path": "/bench" }, "strategy": "none" }' ;;
	tierd) echo '{ "name": "bench", "match": { "path": "/bench" } }' ;;
	esac >/tmp/policies.d/bench.json
	tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
	tierd_pid=$!
	i=0
	while [ "$(metric tierd_ticks_total)" = "" ] && kill -0 $tierd_pid 2>/dev/null &&
		[ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

# run ROUND MODE: one run; prints RESULT run ROUND MODE key=value...
run() {
	settings $2
	tierd_pid=
	[ $2 = none ] || [ $2 = linux ] || start_tierd $2
	sleep $WARMUP
	wpid=$(work_pid bench)
	set -- $1 $2 $(place_at)
	w0=$(pid_cpu_ms $wpid) d0=$(comm_cpu_ms 'kdamond*') k0=$(comm_cpu_ms 'kswapd*')
	t0=${tierd_pid:+$(pid_cpu_ms $tierd_pid)} f0=$(vmstat numa_hint_faults)
	p0=$(vmstat pgpromote_success) m0=$(vmstat pgmigrate_success)
	sleep $WINDOW
	set -- "$@" $(place_at)
	w1=$(pid_cpu_ms $wpid) d1=$(comm_cpu_ms 'kdamond*') k1=$(comm_cpu_ms 'kswapd*')
	t1=${tierd_pid:+$(pid_cpu_ms $tierd_pid)} f1=$(vmstat numa_hint_faults)
	p1=$(vmstat pgpromote_success) m1=$(vmstat pgmigrate_success)
	tierd_ms=0
	if [ -n "$tierd_pid" ]; then
		tierd_ms=$((t1 - t0))
		echo "RESULT run$1_$2_tierd damon=$(metric tierd_damon_kdamonds)" \
			"bpf_samples=$(metric tierd_bpf_samples_read_total)" \
			"ticks=$(metric tierd_ticks_total)" \
			"migration_requests=$(family_sum tierd_migration_requests_total)" \
			"migration_tried_bytes=$(family_sum tierd_migration_tried_bytes_total)" \
			"kdamond_restarts=$(metric tierd_damon_kdamond_restarts_total)"
		stop_tierd
	fi
	if [ $# -ne 8 ]; then
		echo "RESULT run $1 $2 no_place_lines"
		return
	fi
	echo "RESULT run $1 $2 touches_per_sec=$(per_second_median $3 $6)" \
		"touches_per_sec_mean=$((($7 - $4) * 1000 / ($6 - $3)))" \
		"work_cpu_ms=$((w1 - w0)) tierd_cpu_ms=$tierd_ms kdamond_cpu_ms=$((d1 - d0))" \
		"kswapd_cpu_ms=$((k1 - k0)) hint_faults=$((f1 - f0))" \
		"promoted=$((p1 - p0)) migrated=$((m1 - m0)) hot_node0_start=$5 hot_node0_end=$8" \
		"window_ms=$(($6 - $3))"
}

start_work /bench bench --hot $HOT_MIB --hot-node $HOT_NODE --cold $COLD_MIB \
	--cold-node $COLD_NODE
r=0
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	for m in $MODES; do
		run $r $m
	done
done
stop_work bench
echo "RESULT numa_balancing_after $(cat /proc/sys/kernel/numa_balancing)"
