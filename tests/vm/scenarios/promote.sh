# Promotion (issue 4, scenario 2): a hot set placed on node 3 (the lowest
# tier) is promoted by tierd through DAMOS migrate_hot until >= 90% of it
# sits in the top two tiers; then the hot set moves (a second set, on
# node 2, becomes hot) and tierd follows it. The workload reports where its
# sets are every second (PLACE lines; tests/vm/work.c).
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
STRATEGY=${STRATEGY:-mole}

start_work /promote w --hot 64 --hot-node 3 --cold 128 --cold-node 3 --hot2 64 --hot2-node 2 \
	--move-after 30 --report-ms 1000
# DAMON alone: the BPF sampler's promotions have their own scenario (bpfpromote).
write_config 1s '"bpf": false'
cat >/tmp/policies.d/promote.json <<JSON
{ "name": "promote", "match": { "path": "/promote" }, "strategy": "$STRATEGY" }
JSON
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
# Until the move (30 s after ready) and 30 s past it.
# Meanwhile, where its migrate_hot schemes hold their memcg filter.
i=0
fdir="none -"
while ! grep -q "^moved" /tmp/w.out && [ $i -lt 60 ]; do
	[ "$fdir" = "none -" ] && fdir=$(memcg_filter_dir)
	sleep 1
	i=$((i + 1))
done
sleep 30
echo "RESULT memcg_filter_dir $fdir"
keep_metrics
kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
stop_work w
# PLACE lines: t_ms, hot set (A, then B) pages on nodes 0..3.
grep '^PLACE ' /tmp/w.out | sed -n 's/^PLACE t_ms=\([0-9]*\) hotset=\([AB]\) hot=\([0-9,]*\) cold=\([0-9,]*\).*/HOT \1 \2 \3 \4/p' | tr , ' '
moved=$(sed -n 's/^moved t_ms=//p' /tmp/w.out)
echo "RESULT moved_ms $moved"
# First time >= 90% of the hot set sits in the top two tiers (nodes 0-1):
# set A from ready, set B from the move; and the fractions at the end.
grep '^PLACE ' /tmp/w.out | sed -n 's/^PLACE t_ms=\([0-9]*\) hotset=\([AB]\) hot=\([0-9,]*\) cold=\([0-9,]*\).*/\1 \2 \3 \4/p' | tr , ' ' |
	awk -v moved="${moved:-0}" '
	{ top = $3 + $4; all = $3 + $4 + $5 + $6; pmy = all ? int(top * 1000 / all) : 0
	  if ($2 == "A" && a == "" && pmy >= 900) a = $1
	  if ($2 == "B" && b == "" && pmy >= 900) b = $1 - moved
	  if ($2 == "A") top_a = top; else top_b = top
	  last = pmy; cold = $7 + $8 }
	END { print "RESULT promote_a_ms " (a == "" ? -1 : a)
	      print "RESULT follow_b_ms " (b == "" ? -1 : b)
	      print "RESULT final_hot_top2_pmy " last
	      print "RESULT final_cold_top2_pages " cold
	      print "RESULT promoted_seen_pages " top_a + top_b + cold }'

echo "RESULT hot_succeeded_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="damos_migrate_hot"}')")"
echo "RESULT cold_succeeded_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="damos_migrate_cold"}')")"
grep -v '^#' "$(prom)" | grep migrat | sed 's/^/METRIC /'
sed 's/^/TIERD /' /tmp/tierd.log | head -n 40
