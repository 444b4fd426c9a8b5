# Sampled promotions off the tick's thread (issue 15): move_pages(2)
# batches of tens of MiB run on tierd's kernel worker while the tick goes
# on. /big (managed, mole, a sampling bucket wide enough for every fault
# and a migration budget of 1 GiB a second) holds a 256 MiB hot set on
# node 3; DAMON is off, so every promotion is a sampled one. A poller reads
# the metrics file every 100 ms (uptime, 10 ms resolution): when each tick published, and how many
# batches had ended. The log (debug) gives each batch's pages and time.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
fast_numa_scan
RUN_S=30

start_work /big w --hot 256 --hot-node 3 --report-ms 1000
write_config 1s '"damon": false'
sed -i 's/"log_level": "info"/"log_level": "debug"/' /tmp/tierd.json
cat >/tmp/policies.d/big.json <<'JSON'
{ "name": "big", "match": { "path": "/big" }, "strategy": "mole",
  "sampling": { "rate": 1000000, "burst": 1000000 },
  "migration_budget": { "bytes": "1G", "period": "1s" } }
JSON
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
end=$(($(date +%s) + RUN_S))
while [ "$(date +%s)" -lt $end ]; do
	awk 'BEGIN { getline u <"/proc/uptime"; split(u, f, " "); t = int(f[1] * 1000) }
		$1 == "tierd_ticks_total" { k = $2 }
		$1 == "tierd_sample_promote_batches_total" { b = $2 }
		END { print "POLL", t, k + 0, b + 0 }' /tmp/tierd.prom 2>/dev/null
	sleep 0.1
done >/tmp/poll.txt
keep_metrics
kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
stop_work w

# When each tick first showed in the metrics, and the gaps between them.
awk '$1 == "POLL" && $3 > last { if (last) { gap = $2 - t; if (gap > max) max = gap; n++ }
				 t = $2; last = $3 }
     END { print "RESULT tick_gaps " n + 0; print "RESULT max_tick_gap_ms " max + 0 }' /tmp/poll.txt
# Each batch: pages planned, pages moved, microseconds.
sed -n 's/.*move_pages: batch of \([0-9]*\) pages in [0-9]* calls: \([0-9]*\) pages in [0-9]* calls made in \([0-9]*\) us.*/\1 \2 \3/p' /tmp/tierd.log |
	awk '{ printf "SERIES batch %d %d %d %d\n", NR, $1, $2, $3 / 1000
	       if ($1 > maxp) maxp = $1
	       if ($2 > maxr) maxr = $2
	       if ($3 > maxu) maxu = $3 }
	     END { print "RESULT batches_logged " NR + 0
	           print "RESULT batch_max_planned_pages " maxp + 0
	           print "RESULT batch_max_run_pages " maxr + 0
	           print "RESULT batch_max_ms " int(maxu / 1000) }'
echo "RESULT batches $(metric tierd_sample_promote_batches_total)"
echo "RESULT busy_ticks $(metric tierd_sample_promote_busy_ticks_total)"
echo "RESULT deadline_hits $(metric tierd_sample_promote_deadline_hits_total)"
echo "RESULT batch_max_s $(metric tierd_sample_promote_batch_max_seconds)"
# What the tick itself waited on the kernel while acting (it hands the
# batches over), in ms, and the tick slots a tick ran past.
echo "RESULT act_wait_max_ms $(metric 'tierd_tick_kernel_wait_max_seconds{step="act"}' | awk '{ print int($1 * 1000) }')"
echo "RESULT overruns $(metric tierd_tick_overruns_total)"
echo "RESULT moved_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="move_pages"}')")"
grep '^PLACE ' /tmp/w.out | sed -n 's/^PLACE t_ms=\([0-9]*\) hotset=A hot=\([0-9,]*\).*/\1 \2/p' | tr , ' ' |
	awk '{ all = $2 + $3 + $4 + $5; if (all) printf "SERIES big %d %d\n", $1 / 1000, int($2 * 1000 / all) }'
sed 's/^/POLLRAW /' /tmp/poll.txt | head -n 400
grep -E 'move_pages|error|warning|debug: tick [0-9]*:' /tmp/tierd.log | sed 's/^/TIERD /' | head -n 120
