#!/bin/sh
# Overhead of the BPF hint-fault sampler (issue 5): builds tierd and the
# VM's initramfs, boots the four-tier test VM on the bpfbench scenario
# (tests/vm/scenarios/bpfbench.sh) and prints its figures as a table:
# faultbench's touches/s with the sampler off and on (runs alternated),
# the slowdown ratio, the run-to-run spread, and tierd's CPU time per
# 1,000 samples. A benchmark, not a test: it exits non-zero only when the
# VM cannot be set up or does not run the scenario to its end, never on a
# figure. The console stays in $BUILD/vm/$VM_KERNEL/bpfbench.log
# (VM_KERNEL 6.12 by default, or 7.3).
#
# usage: [BUILD=DIR] bench/bpf_overhead.sh   (DIR relative to the repository)
BENCH=bpf_overhead SCENARIO=bpfbench
: "${VM_TIMEOUT_SEC:=900}" # the scenario takes about 4 minutes under TCG
. "$(dirname "$0")/vm_bench.sh"
vm_bench_boot 4

tr -d '\r' <"$L" | awk -v config="$(res config)" -v host="$host" -v cores="$(nproc)" '
	# field NAME: the value of NAME=value on the current line.
	function field(name,   i) {
		for (i = 3; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# spread: (max - min) / median, in percent.
	function spread(a, n, m,   i, lo, hi) {
		lo = hi = a[1]
		for (i = 2; i <= n; i++) {
			if (a[i] < lo) lo = a[i]
			if (a[i] > hi) hi = a[i]
		}
		return m ? 100 * (hi - lo) / m : 0
	}
	BEGIN {
		fmt = "%-4s %-4s %11s %8s %11s %8s %8s %8s %9s %11s\n"
		print "bpfbench: " config
		split(host, h, /[= ]/)
		print "host: " cores " cores, " host
		# Our own VM keeps about two host threads busy.
		if (h[4] > 0 || h[2] > cores + 1)
			print "WARNING: the host was busy during the run: the figures are inflated"
		printf fmt, "run", "mode", "touches/s", "sys_ms", "win_faults", "sys_us/f",
			"samples", "drops", "smp_cpu", "on_node"
	}
	/^RESULT run[0-9]+ mode=/ {
		mode = field("mode"); f = field("window_faults")
		usf = f > 0 ? sprintf("%.2f", field("sys_ms") * 1000 / f) : "-"
		printf fmt, substr($2, 4), mode, field("touches_per_sec"), field("sys_ms"), f, usf,
			field("samples"), field("drops"), field("sampler_cpu_ms"), field("on_node")
		if (field("rc") != "0" || field("touches_per_sec") == "")
			next
		# + 0: numbers, which compare as numbers when sorted.
		if (mode == "off") { off[++noff] = field("touches_per_sec") + 0; uoff[noff] = usf + 0 }
		else { on[++non] = field("touches_per_sec") + 0; uon[non] = usf + 0 }
	}
	/^RESULT tierd_bpf_(true|false) / { tierd[$2] = $0 }
	/^RESULT tierd_bpf unsupported/ { unsupported = 1 }
	/^RESULT tierd_cpu_ms_per_1000_samples / { raw = $3 }
	/^RESULT tierd_net_cpu_ms_per_1000_samples / { net = $3 }
	/^RESULT tierd_samples_per_sec / { rate = $3 }
	END {
		print "(sys_us/f: faultbench system time per hint fault of its timed window;"
		print " smp_cpu: CPU ms of bpftest, the sampler'"'"'s reader, over the run)"
		print ""
		if (!noff || !non) { print "no complete OFF and ON runs: no ratio"; exit }
		moff = median(off, noff); mon = median(on, non)
		printf "OFF median touches/s   %.0f (%d runs, spread %.1f%% of the median)\n",
			moff, noff, spread(off, noff, moff)
		printf "ON  median touches/s   %.0f (%d runs, spread %.1f%% of the median)\n",
			mon, non, spread(on, non, mon)
		printf "slowdown ratio ON/OFF  %.3f (%.1f%% fewer touches/s with the sampler)\n",
			mon / moff, 100 * (1 - mon / moff)
		if (uoff[1] > 0 && uon[1] > 0)
			printf "system us per hint fault, medians: OFF %.2f, ON %.2f (+%.2f us per fault)\n",
				median(uoff, noff), median(uon, non), median(uon, non) - median(uoff, noff)
		if (unsupported) { print "tierd: no \"bpf\" support, no CPU figure"; exit }
		if (raw == "") { print "tierd: no CPU figure (see the log)"; exit }
		printf "tierd CPU per 1,000 samples: %s ms (net of a \"bpf\": false run: %s ms; %s samples/s)\n",
			raw, net, rate
		print "  " substr(tierd["tierd_bpf_true"], 8)
		print "  " substr(tierd["tierd_bpf_false"], 8)
	}'
