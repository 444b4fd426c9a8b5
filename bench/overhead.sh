#!/bin/sh
# What tiering costs the workload (issue 15): builds tierd and the VM's
# initramfs, boots the four-tier test VM on the overhead scenario
# (tests/vm/scenarios/overhead.sh) and prints its figures as a table: the
# workload's touches/s with no tiering, under the kernel's tiering, under
# tierd with one part on (DAMON, attribution, the BPF sampler) and as
# shipped, each mode's ratio to no tiering and to the kernel's tiering,
# and the CPU each spent (workload, tierd, kdamonds, kswapd) with the hint
# faults and migrations. Medians over the scenario's rounds. A benchmark,
# not a test: it exits non-zero only when the VM cannot be set up or does
# not run the scenario to its end, never on a figure. The console stays in
# $BUILD/vm/$VM_KERNEL/overhead.log (VM_KERNEL 6.12 by default, or 7.3).
#
# usage: [BUILD=DIR] [VM_KERNEL=7.3] [MODES=none,linux,...] [ROUNDS=N] bench/overhead.sh
BENCH=overhead SCENARIO=overhead
VM_APPEND="${MODES:+tierd.overhead_modes=$MODES}${ROUNDS:+ tierd.overhead_rounds=$ROUNDS}"
export VM_APPEND
# 30 runs of about 45 s under TCG, and the boot.
: "${VM_TIMEOUT_SEC:=3000}"
. "$(dirname "$0")/vm_bench.sh"
vm_bench_boot 23

tr -d '\r' <"$L" | awk -v config="$(res config)" -v host="$host" -v cores="$(nproc)" \
	-v kernel="$VM_KERNEL" '
	# field NAME: the value of NAME=value on the current line.
	function field(name,   i) {
		for (i = 5; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	# median KEY: the median of vals[KEY, 1..n[KEY]].
	function median(key,   i, j, t, a, m) {
		m = n[key]
		if (!m) return -1
		for (i = 1; i <= m; i++) a[i] = vals[key, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	# spread KEY: (max - min) / median, in percent.
	function spread(key,   i, lo, hi, md) {
		lo = hi = vals[key, 1]
		for (i = 2; i <= n[key]; i++) {
			if (vals[key, i] < lo) lo = vals[key, i]
			if (vals[key, i] > hi) hi = vals[key, i]
		}
		md = median(key)
		return md > 0 ? 100 * (hi - lo) / md : 0
	}
	BEGIN {
		nkeys = split("touches_per_sec work_cpu_ms tierd_cpu_ms kdamond_cpu_ms kswapd_cpu_ms hint_faults promoted migrated hot_node0_end", keys, " ")
		print "overhead (kernel " kernel "): " config
		split(host, h, /[= ]/)
		print "host: " cores " cores, " host
		# Our own VM keeps about two host threads busy.
		if (h[4] > 0 || h[2] > cores + 1)
			print "WARNING: the host was busy during the run: the figures are inflated"
	}
	/^RESULT run [0-9]+ [a-z]+ no_place_lines/ { print "run " $3 " " $4 ": the workload printed no PLACE line" }
	/^RESULT run [0-9]+ [a-z]+ touches_per_sec=/ {
		mode = $4
		if (!(mode in seen)) { seen[mode] = 1; order[++nmodes] = mode }
		for (k = 1; k <= nkeys; k++) vals[mode SUBSEP keys[k], ++n[mode SUBSEP keys[k]]] = field(keys[k]) + 0
		runs[++nruns] = $0
	}
	END {
		if (!nmodes) { print "no complete run"; exit }
		print ""
		print "per mode, medians over the rounds (CPU in ms over the window; hot_on_0: the hot set'"'"'s pages on node 0 at its end)"
		fmt = "%-12s %11s %7s %8s %8s %8s %8s %8s %8s %9s %8s %9s\n"
		printf fmt, "mode", "touches/s", "spread", "/none", "/linux", "work", "tierd", "kdamond", "kswapd", "hint_flt", "promoted", "hot_on_0"
		base = median("none" SUBSEP "touches_per_sec")
		lin = median("linux" SUBSEP "touches_per_sec")
		for (i = 1; i <= nmodes; i++) {
			m = order[i]; tps = median(m SUBSEP "touches_per_sec")
			printf fmt, m, sprintf("%.0f", tps), sprintf("%.1f%%", spread(m SUBSEP "touches_per_sec")),
				(base > 0 ? sprintf("%.3f", tps / base) : "-"), (lin > 0 ? sprintf("%.3f", tps / lin) : "-"),
				median(m SUBSEP "work_cpu_ms"), median(m SUBSEP "tierd_cpu_ms"),
				median(m SUBSEP "kdamond_cpu_ms"), median(m SUBSEP "kswapd_cpu_ms"),
				median(m SUBSEP "hint_faults"), median(m SUBSEP "promoted"),
				median(m SUBSEP "hot_node0_end")
		}
		print ""
		if (lin > 0 && ("tierd" SUBSEP "touches_per_sec") in n)
			printf "overhead: tierd/linux touches/s %.3f (target >= 0.95)\n",
				median("tierd" SUBSEP "touches_per_sec") / lin
		print ""
		print "runs:"
		for (i = 1; i <= nruns; i++) print "  " substr(runs[i], 12)
	}'
