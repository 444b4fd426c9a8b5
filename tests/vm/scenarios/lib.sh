# Shared by the tierd scenarios (sourced, not a scenario itself).
MIB=1048576
CG=/sys/fs/cgroup

# cgroup_node_mib CGROUP NODE: the cgroup's anon + file MiB on NODE.
cgroup_node_mib() {
	awk -v n="N$2=" -v m=$MIB '/^(anon|file) / {
		for (i = 2; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1)
	} END { print int(s / m) }' "$CG$1/memory.numa_stat"
}

# start_work CGROUP NAME ARGS...: runs /bin/work in CGROUP, its output in
# /tmp/NAME.out; waits up to 180 s for "ready".
start_work() {
	cg=$1 name=$2
	shift 2
	mkdir -p "$CG$cg"
	sh -c 'echo $$ >"$0/cgroup.procs"; shift; exec /bin/work "$@"' "$CG$cg" x "$@" \
		>/tmp/$name.out 2>/tmp/$name.err &
	i=0
	while ! grep -q '^ready$' /tmp/$name.out && [ $i -lt 1800 ]; do sleep 0.1; i=$((i + 1)); done
	grep -q '^ready$' /tmp/$name.out || echo "RESULT ${name}_not_ready $(cat /tmp/$name.err)"
}

# work_pid NAME
work_pid() { sed -n 's/^pid //p' /tmp/$1.out | head -n 1; }

# stop_work NAME: SIGTERM, wait for its CHECKSUM line.
stop_work() {
	pid=$(work_pid "$1")
	kill -TERM "$pid" 2>/dev/null
	i=0
	while ! grep -q '^CHECKSUM' /tmp/$1.out && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	echo "RESULT $1_checksum $(sed -n 's/^CHECKSUM //p' /tmp/$1.out)"
}

# last_place NAME FIELD: the last PLACE line's FIELD counts, space separated.
last_place() {
	grep '^PLACE ' /tmp/$1.out | tail -n 1 | sed -n "s/.* $2=\([^ ]*\).*/\1/p" | tr , ' '
}

# tierd removes its metrics file when it stops (tierd(8), EXIT); what a
# scenario checks after the stop is the copy keep_metrics made.
LAST_PROM=/tmp/tierd.last.prom

# prom: the metrics file tierd writes, or, once it has stopped, the copy.
prom() { [ -e /tmp/tierd.prom ] && echo /tmp/tierd.prom || echo $LAST_PROM; }

# metric NAME{labels}: its value in tierd's metrics file.
metric() { grep -v '^#' "$(prom)" 2>/dev/null | grep -F "$1 " | head -n 1 | awk '{print $NF}'; }

# keep_metrics: waits (up to 10 s) for tierd to write its metrics once more,
# so that they count everything up to now, and copies them for after the stop.
keep_metrics() {
	t0=$(metric tierd_ticks_total)
	i=0
	while [ "$(metric tierd_ticks_total)" = "$t0" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cp /tmp/tierd.prom $LAST_PROM
}

# damon_stat: DAMON_STAT's enabled parameter (Y or N), "absent" without it.
DAMON_STAT=/sys/module/damon_stat/parameters/enabled
damon_stat() { cat $DAMON_STAT 2>/dev/null || echo absent; }

# damon_read FILE: a DAMON sysfs file. DAMON's sysfs takes its lock with a
# trylock, so a read while another of its operations runs (tierd's, for up
# to a second under TCG: docs/vm.md) fails with EBUSY, an empty read. Retried
# for 10 s; "?" then.
damon_read() {
	n=0
	until cat "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -ge 100 ] && { echo "?"; return 1; }
		sleep 0.1
	done
}

# memcg_filter_dir: the directory of the first memcg filter found in a
# running action scheme ("filters", or "ops_filters" where the kernel splits
# the filter directories, 7.2 and later), then whether that scheme has an
# ops_filters/ directory at all (Y or N); "none -" while there is none. A
# read that DAMON's trylock refuses counts as not found.
memcg_filter_dir() {
	for f in /sys/kernel/mm/damon/admin/kdamonds/*/contexts/0/schemes/*/*filters/*/type; do
		[ "$(cat "$f" 2>/dev/null)" = memcg ] || continue
		d=${f%/*/type}
		s=${d%/*}
		if [ -d "$s/ops_filters" ]; then echo "${d##*/} Y"; else echo "${d##*/} N"; fi
		return
	done
	echo "none -"
}

# w VALUE FILE: writes VALUE as tierd does (printf '%s', no newline); a
# failed write is a "RESULT write_failed FILE" line.
w() { printf '%s' "$1" >"$2" || echo "RESULT write_failed $2"; }

# mib BYTES: whole MiB, 0 for an empty value.
mib() { echo $((${1:-0} / MIB)); }

# write_config TICK [extra json members]: /tmp/tierd.json
write_config() {
	cat >/tmp/tierd.json <<JSON
{
  "tick_interval": "$1",
  "policy_dir": "/tmp/policies.d",
  "metrics_file": "/tmp/tierd.prom",
  "state_file": "/tmp/state.json",
  "log_level": "info"${2:+,
  $2}
}
JSON
	mkdir -p /tmp/policies.d
}

# fast_numa_scan: NUMA balancing's scanner starts soon and scans often
# (debugfs; defaults 1000/1000/60000 ms), so hint faults come within
# seconds of a scenario's start (docs/vm.md).
fast_numa_scan() {
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
	nb=/sys/kernel/debug/sched/numa_balancing
	echo 100 >$nb/scan_delay_ms
	echo 100 >$nb/scan_period_min_ms
	echo 1000 >$nb/scan_period_max_ms
}

# vmstat KEY: the /proc/vmstat counter.
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# /proc/PID/stat counts CPU time in USER_HZ ticks: 100 a second on x86,
# whatever CONFIG_HZ is (busybox has no getconf CLK_TCK).
USER_HZ=100

# pid_cpu_ms PID: the process's CPU time (user + system) in ms, 0 once it
# is gone. The fields are counted after its name, which ends in ") ".
pid_cpu_ms() {
	sed 's/^.*) //' /proc/$1/stat 2>/dev/null |
		awk -v hz=$USER_HZ '{ print int(($12 + $13) * 1000 / hz) } END { if (!NR) print 0 }'
}

# comm_cpu_ms PATTERN: the CPU time in ms of every process whose name
# (comm) matches the shell PATTERN, such as 'kdamond*', summed.
comm_cpu_ms() {
	for d in /proc/[0-9]*; do
		read -r c <$d/comm 2>/dev/null || continue
		case $c in $1) pid_cpu_ms ${d#/proc/} ;; esac
	done | awk '{ s += $1 } END { print s + 0 }'
}

# series NAME: from /tmp/NAME.out's PLACE lines (work's hot set A and the
# cold set), per second "SERIES NAME S PER_MILLE_IN_TIER_0 LATENCY_NS" and
# RESULT NAME_top_90pct_ms, _mean_latency_ns, _final_top_pmy,
# _final_latency_ns and _final_cold_top_pages. The latency is the hot set's
# effective one: its pages per node weighted by HMAT's 80/140/300/600 ns.
series() {
	grep '^PLACE ' /tmp/$1.out | sed -n 's/^PLACE t_ms=\([0-9]*\) hotset=A hot=\([0-9,]*\) cold=\([0-9,]*\).*/\1 \2 \3/p' | tr , ' ' |
		awk -v name=$1 '
		{ all = $2 + $3 + $4 + $5; if (!all) next
		  top = int($2 * 1000 / all); lat = ($2 * 80 + $3 * 140 + $4 * 300 + $5 * 600) / all
		  printf "SERIES %s %d %d %.0f\n", name, $1 / 1000, top, lat
		  if (t90 == "" && top >= 900) t90 = $1
		  sum += lat; n++; last_top = top; last_lat = lat; cold_top = $6 }
		END { printf "RESULT %s_top_90pct_ms %s\n", name, t90 == "" ? -1 : t90
		      printf "RESULT %s_mean_latency_ns %.0f\n", name, n ? sum / n : 0
		      printf "RESULT %s_final_top_pmy %d\n", name, last_top
		      printf "RESULT %s_final_latency_ns %.0f\n", name, last_lat
		      printf "RESULT %s_final_cold_top_pages %d\n", name, cold_top }'
}

# Tier 0 taken (contended, memcached): left free on node 0 after the fill,
# above its watermarks (a few MiB on a 1 GiB node), far below what the
# tenant that follows needs, so its hot set only fits in tier 0 once
# something else leaves it.
FILL_SLACK_MIB=32

node0_free_mib() { awk '$3 == "MemFree:" { print int($4 / 1024) }' /sys/devices/system/node/node0/meminfo; }

# fill NAME: a hog in /coldt with node 0's free memory less the slack,
# first touched where the kernel puts it: node 0 holds both CPUs, and what
# does not fit falls back to node 1 (bound to node 0, a fill that met an
# allocation elsewhere was killed by the OOM killer once). Waits up to 180 s.
fill() {
	mkdir -p $CG/coldt
	mib=$(($(node0_free_mib) - FILL_SLACK_MIB))
	sh -c 'echo $$ >"$0/cgroup.procs"; exec /bin/hog "$1"' $CG/coldt $mib >/tmp/hog.$1 &
	hog_pid=$!
	i=0
	while ! grep -q '^ready' /tmp/hog.$1 && kill -0 $hog_pid 2>/dev/null && [ $i -lt 1800 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "RESULT $1_fill_mib $mib $(cgroup_node_mib /coldt 0)"
}

# unfill NAME: the hog gone, its cgroup removed, what it held on node 0 at the end.
unfill() {
	echo "RESULT $1_coldt_node0_mib_end $(cgroup_node_mib /coldt 0)"
	kill $hog_pid
	wait $hog_pid
	i=0
	while ! rmdir $CG/coldt 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# tiering_linux: Linux's own tiering, no tierd: NUMA balancing in tiering
# mode promotes, demotion on.
tiering_linux() {
	echo 2 >/proc/sys/kernel/numa_balancing
	echo true >/sys/kernel/mm/numa/demotion_enabled
}

# tierd_over_fill NAME JSON: tier 0 filled (fill tierd), then tierd with its
# own settings (the sampler sets tiering mode and holds the kernel's
# promotion off), /coldt capped at 128M of tier 0 (strategy none) and
# policy NAME (JSON) for the tenant; waits for its policies. tierd_pid.
tierd_over_fill() {
	echo 0 >/proc/sys/kernel/numa_balancing
	echo false >/sys/kernel/mm/numa/demotion_enabled
	fill tierd
	write_config 1s
	echo '{ "name": "coldt", "match": { "path": "/coldt" }, "strategy": "none", "tiers": [ { "tier": 0, "max": "128M" } ] }' \
		>/tmp/policies.d/coldt.json
	echo "$2" >/tmp/policies.d/$1.json
	tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
	tierd_pid=$!
	i=0
	while ! grep -q ' policies from' /tmp/tierd.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}

# stop_tierd: SIGTERM, RESULT tierd_exit.
stop_tierd() {
	kill -TERM $tierd_pid
	wait $tierd_pid
	echo "RESULT tierd_exit $?"
}
