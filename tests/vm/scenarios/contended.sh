# Contended (issue 14): tier 0 is taken. A cold tenant (/coldt, a hog) fills
# node 0 but FILL_SLACK_MIB (lib.sh), then a hot tenant (/hott:
# 64 MiB hot and 64 MiB cold, first touched on node 3) starts. Run twice:
# under Linux's own tiering (numa_balancing 2, demotion on, no tierd), and
# under tierd as shipped (DAMON and the BPF sampler) started between the
# fill and the hot tenant, with the cold tenant capped at 128M of tier 0 and
# the hot tenant under the default strategy (its policy names none). Each
# second: the hot set's share of tier 0 and its effective latency (series
# in lib.sh). A benchmark: only that both runs kept every page and tierd
# exited 0 is asserted.
set -u
. /scenarios/lib.sh
echo +memory >$CG/cgroup.subtree_control
RUN_S=45

hot_tenant() { start_work /hott $1 --hot 64 --hot-node 3 --cold 64 --cold-node 3 --report-ms 1000; }
# frames NAME: how the hot set's pages on node 0 lie in physical memory
# (work's FRAMES line: pages, runs of consecutive frames, 2 MiB blocks).
frames() { echo "RESULT $1_hot_frames $(sed -n 's/^FRAMES set=A //p' /tmp/$1.out)"; }

tiering_linux
fill linux
hot_tenant linux
sleep $RUN_S
stop_work linux
frames linux
echo "RESULT linux_pgpromote_success $(sed -n 's/^pgpromote_success //p' $CG/hott/memory.stat)"
series linux
rmdir $CG/hott
unfill linux

tierd_over_fill hott '{ "name": "hott", "match": { "path": "/hott" }, "tiers": [ { "tier": 0, "max": "1G", "min": "64M" } ] }'
hot_tenant tierd
sleep $RUN_S
keep_metrics
stop_tierd
stop_work tierd
frames tierd
series tierd
echo "RESULT tierd_demoted_mib $(mib "$(metric 'tierd_migration_succeeded_bytes_total{path="damos_migrate_cold"}')")"
# What tierd as shipped (DAMON on four tiers, the sampler) waited on the
# kernel in its ticks, the longest wait of each step, in ms; the ticks, and
# the slots a tick ran past.
echo "RESULT tierd_kernel_wait_max_ms $(metric 'tierd_tick_kernel_wait_max_seconds{step="sense"}' | awk '{ print int($1 * 1000) }') $(metric 'tierd_tick_kernel_wait_max_seconds{step="act"}' | awk '{ print int($1 * 1000) }')"
echo "RESULT tierd_ticks $(metric tierd_ticks_total) $(metric tierd_tick_overruns_total)"
# Ticks that planned from the last DAMON reading again (its collect late)
# and plans whose DAMON schemes were not committed (the worker busy).
echo "RESULT tierd_damon_late $(metric tierd_damon_late_readings_total) $(metric tierd_damon_skipped_commits_total)"
# memory.reclaim's jobs on their thread: how many, the longest in ms, and
# the ticks that found one still running.
echo "RESULT tierd_reclaim_jobs $(metric tierd_reclaim_jobs_total) $(metric tierd_reclaim_job_max_seconds | awk '{ print int($1 * 1000) }') $(metric tierd_reclaim_busy_ticks_total)"
unfill tierd
sed 's/^/TIERD /' /tmp/tierd.log | head -n 30
