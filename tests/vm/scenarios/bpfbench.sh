# Overhead of the BPF hint-fault sampler (issue 5). A benchmark, not a
# test: no tests/vm/expect file, so make check never boots it;
# bench/bpf_overhead.sh does and prints the table.
# Part 1: faultbench (tests/vm/faultbench.c) touches 128 MiB on node 3 in
# tiering mode with fast scanning, every page hint-faulting once per scan,
# the kernel's promotion held off (rate limit 0, bpf.sh says why) so the
# pages stay on node 3 and every run faults alike. Runs alternate OFF (no
# sampler) and ON (bpftest sampling the cgroup, default token bucket),
# same duration, so drift of the host under the TCG VM hits both alike.
# Part 2: tierd samples the same workload (strategy "none": no promotion
# drains the slow node, DAMON off) and its CPU time per 1,000 samples is
# read from /proc/PID/stat, net of a run with "bpf": false.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
fast_numa_scan
echo 0 >/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps
echo 2 >/proc/sys/kernel/numa_balancing

PAIRS=3        # OFF/ON pairs: three runs of each mode for a median
BENCH_MIB=128  # faultbench's default: one scan (256 MiB) covers it
BENCH_NODE=3   # the slowest tier (docs/vm.md)
SEC=15         # timed seconds per run
WARMUP=3       # faultbench's warm-up before its timed window
# bpftest samples until faultbench is surely done: allocating 128 MiB under
# TCG takes about 1 s (docs/vm.md: faults 10-30x slower than the host).
PHASE=$((WARMUP + SEC + 5))
BENCH_CPU=0    # faultbench's CPU; bpftest drains on the other one
SAMPLER_MASK=2 # taskset mask of CPU 1
TIERD_WINDOW=30 # seconds of tierd's CPU time measured, whole ticks
USER_HZ=100    # /proc/PID/stat's clock ticks: busybox has no getconf
               # CLK_TCK; x86's USER_HZ is 100 whatever CONFIG_HZ is
echo "RESULT config mib=$BENCH_MIB node=$BENCH_NODE sec=$SEC warmup=$WARMUP pairs=$PAIRS"
echo "RESULT numa_balancing $(cat /proc/sys/kernel/numa_balancing)"
echo "RESULT rate_limit $(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"

mkdir -p $CG/bench
# key FILE KEY: KEY's value in a "key value" file (faultbench's output).
key() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# res_of FILE KEY: a bpftest RESULT line's value.
res_of() { sed -n "s/^RESULT $2 //p" "$1" | head -n 1; }

# cpu_ticks PID FIELD: utime (14) or stime (15) of /proc/PID/stat, in
# USER_HZ ticks; the fields after the command name, which ends in ") ".
cpu_ticks() { sed 's/^.*) //' /proc/$1/stat | awk -v f=$2 '{ print $(f - 2) }'; }
# proc_cpu_ms PID: utime + stime in ms.
proc_cpu_ms() { echo $((($(cpu_ticks $1 14) + $(cpu_ticks $1 15)) * 1000 / USER_HZ)); }

# faultbench SEC OUT: faultbench in /bench for SEC timed seconds.
faultbench() {
	sh -c 'echo $$ >"$0/cgroup.procs"; shift; exec /bin/faultbench "$@"' "$CG/bench" x \
		--node $BENCH_NODE --mib $BENCH_MIB --sec $1 --warmup-sec $WARMUP \
		--cpu $BENCH_CPU >$2 2>&1
}

# start_sampler: bpftest sampling /bench for PHASE s; waits until its maps
# are filled. Returns non-zero if it did not get there.
start_sampler() {
	taskset $SAMPLER_MASK bpftest --cgroup $CG/bench --node-tier 1:1 --node-tier 2:2 \
		--node-tier 3:3 --phase-sec $PHASE --storm-sec 0 >/tmp/bpftest.out 2>&1 &
	bpf_pid=$!
	i=0
	while ! grep -q '^RESULT configured' /tmp/bpftest.out && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	[ "$(res_of /tmp/bpftest.out configured)" = 0 ]
}

# run N MODE: one faultbench run, with the sampler when MODE is "on".
run() {
	samples=0 faults=0 drops=0 sampler_ms=0
	if [ $2 = on ] && ! start_sampler; then
		echo "RESULT run$1 mode=on sampler_failed $(grep '^RESULT load' /tmp/bpftest.out)"
		wait $bpf_pid
		return
	fi
	hint_before=$(vmstat numa_hint_faults)
	faultbench $SEC /tmp/fb.out
	rc=$?
	hint=$(($(vmstat numa_hint_faults) - hint_before))
	if [ $2 = on ]; then
		# Still sampling when faultbench ended, else the counts miss some.
		if kill -0 $bpf_pid 2>/dev/null; then
			sampler_ms=$(proc_cpu_ms $bpf_pid)
		else
			echo "RESULT run${1}_sampler_ended_early yes"
		fi
		wait $bpf_pid
		samples=$(res_of /tmp/bpftest.out normal_samples)
		faults=$(res_of /tmp/bpftest.out normal_kernel_faults)
		drops=$(res_of /tmp/bpftest.out normal_kernel_drops)
		# The first ON run (run 2) names the hooks the sampler chose.
		[ $1 -eq 2 ] && grep -E '^RESULT (hooks|load) ' /tmp/bpftest.out | sed 's/^RESULT /INFO bpftest /'
	fi
	echo "RESULT run$1 mode=$2 rc=$rc touches_per_sec=$(key /tmp/fb.out touches_per_sec)" \
		"passes=$(key /tmp/fb.out passes) elapsed_ms=$(key /tmp/fb.out elapsed_ms)" \
		"user_ms=$(key /tmp/fb.out user_ms) sys_ms=$(key /tmp/fb.out sys_ms)" \
		"window_faults=$(key /tmp/fb.out hint_faults) hint_faults=$hint" \
		"sampler_faults=$faults samples=$samples drops=$drops sampler_cpu_ms=$sampler_ms" \
		"on_node=$(key /tmp/fb.out pages_on_node)/$(key /tmp/fb.out pages)"
	if [ $rc -eq 0 ]; then
		key /tmp/fb.out touches_per_sec >>/tmp/tps.$2
	else
		sed 's/^/INFO faultbench: /' /tmp/fb.out
	fi
}

# median FILE: the median of the numbers in FILE, one a line.
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "none"
		else if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: >/tmp/tps.off
: >/tmp/tps.on
n=0
while [ $n -lt $((PAIRS * 2)) ]; do
	n=$((n + 1))
	if [ $((n % 2)) -eq 1 ]; then run $n off; else run $n on; fi
done
echo "RESULT off_median_touches_per_sec $(median /tmp/tps.off)"
echo "RESULT on_median_touches_per_sec $(median /tmp/tps.on)"
echo "RESULT off_touches_per_sec $(tr '\n' ' ' </tmp/tps.off)"
echo "RESULT on_touches_per_sec $(tr '\n' ' ' </tmp/tps.on)"
echo "RESULT pgpromote_success $(vmstat pgpromote_success)"

# Part 2: tierd.
bench_samples() {
	grep -v '^#' /tmp/tierd.prom | grep -F 'tierd_bpf_samples_total{cgroup="/bench"' |
		awk '{ s += $NF } END { print s + 0 }'
}
# wakeups PID: the process's voluntary context switches so far.
wakeups() { awk '$1 == "voluntary_ctxt_switches:" { print $2 }' /proc/$1/status; }
# next_tick: returns just after tierd wrote its metrics for a new tick.
next_tick() {
	t=$(metric tierd_ticks_total) i=0
	while [ "$(metric tierd_ticks_total)" = "$t" ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

# tierd_run BPF: tierd with "bpf": BPF while faultbench runs; prints its
# CPU ms, ticks and /bench's samples over TIERD_WINDOW s of whole ticks.
# Returns non-zero when tierd did not load the sampler though asked to.
tierd_run() {
	rm -f /tmp/tierd.prom
	write_config 1s "\"damon\": false, \"manage_demotion\": false, \"bpf\": $1"
	cat >/tmp/policies.d/bench.json <<'JSON'
{ "name": "bench", "match": { "path": "/bench" }, "strategy": "none" }
JSON
	tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
	tierd_pid=$!
	i=0
	while ! grep -q 'BPF hint-fault sampler loaded\|BPF sampler not used' /tmp/tierd.log &&
		[ "$(metric tierd_ticks_total)" = "" ] && kill -0 $tierd_pid 2>/dev/null &&
		[ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	if [ $1 = true ] && ! grep -q 'BPF hint-fault sampler loaded' /tmp/tierd.log; then
		sed 's/^/INFO tierd: /' /tmp/tierd.log | head -n 10
		kill -TERM $tierd_pid 2>/dev/null
		wait $tierd_pid
		return 1
	fi
	faultbench $((TIERD_WINDOW + 5)) /tmp/fbt.out &
	fb_pid=$!
	# faultbench allocated and warm, /bench managed since a tick.
	sleep $((WARMUP + 2))
	next_tick
	u0=$(cpu_ticks $tierd_pid 14) k0=$(cpu_ticks $tierd_pid 15)
	ticks0=$(metric tierd_ticks_total) s0=$(bench_samples) w0=$(wakeups $tierd_pid)
	sleep $TIERD_WINDOW
	next_tick
	u1=$(cpu_ticks $tierd_pid 14) k1=$(cpu_ticks $tierd_pid 15)
	ticks1=$(metric tierd_ticks_total) s1=$(bench_samples) w1=$(wakeups $tierd_pid)
	wait $fb_pid
	user_ms=$(((u1 - u0) * 1000 / USER_HZ)) sys_ms=$(((k1 - k0) * 1000 / USER_HZ))
	cpu_ms=$((user_ms + sys_ms)) ticks=$((ticks1 - ticks0)) samples=$((s1 - s0))
	echo "RESULT tierd_bpf_$1 cpu_ms=$cpu_ms user_ms=$user_ms sys_ms=$sys_ms" \
		"ticks=$ticks samples=$samples wakeups=$((w1 - w0))" \
		"samples_read=$(metric tierd_bpf_samples_read_total)" \
		"touches_per_sec=$(key /tmp/fbt.out touches_per_sec)" \
		"on_node=$(key /tmp/fbt.out pages_on_node)/$(key /tmp/fbt.out pages)"
	kill -TERM $tierd_pid
	wait $tierd_pid
	echo "RESULT tierd_bpf_${1}_exit $?"
	return 0
}

if tierd_run true; then
	on_ms=$cpu_ms on_ticks=$ticks on_samples=$samples
	tierd_run false
	# The sampler's share: tierd's CPU time less what the same ticks cost
	# without it.
	awk -v on=$on_ms -v t=$on_ticks -v s=$on_samples -v off=$cpu_ms -v toff=$ticks 'BEGIN {
		if (s == 0 || toff == 0) { print "RESULT tierd_cpu_ms_per_1000_samples none"; exit }
		printf "RESULT tierd_cpu_ms_per_1000_samples %.2f\n", on * 1000 / s
		printf "RESULT tierd_net_cpu_ms_per_1000_samples %.2f\n", (on - off * t / toff) * 1000 / s
		printf "RESULT tierd_samples_per_sec %.0f\n", s / t }'
else
	echo "RESULT tierd_bpf unsupported"
fi
echo "RESULT numa_balancing_after $(cat /proc/sys/kernel/numa_balancing)"
