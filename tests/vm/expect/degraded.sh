# Sourced by tests/test_vm.sh: someone else's kdamond, tierd degraded to
# memory.reclaim, kernel settings restored (tests/vm/scenarios/degraded.sh).
tests/vm/boot.sh degraded
expect_eq "$?" 0 "degraded: VM ran and powered off"
expect_range "$(res before_node0)" 300 330 "degraded: /over's MiB on tier 0 at start (max 128M)"
expect_range "$(res after_node0)" 0 128 "degraded: within budget through memory.reclaim"
expect_eq "$(res damon_degraded) $(res degraded_logged)" "1 yes" "degraded: DAMON mode degraded, said so"
# Who the someone else is depends on the kernel's features: DAMON_STAT
# where it runs from boot (kept by "damon_stat": "leave"), else a kdamond.
case "$(res degraded_by)" in
damon_stat)
	expect_eq "$(res status_line)" "DAMON: degraded: DAMON_STAT is enabled (/sys/module/damon_stat/parameters/enabled is Y) and \"damon_stat\": \"leave\" in tierd.json keeps it; its kdamond excludes tierd's" "degraded: tierctl status says why"
	expect_eq "$(res foreign_kdamond)" "0 Y" "degraded: DAMON_STAT untouched" ;;
*)
	expect_eq "$(res status_line)" "DAMON: degraded: /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds is 1: DAMON is in use by someone else; tierd leaves those kdamonds alone and runs without DAMON" "degraded: tierctl status says why"
	expect_eq "$(res foreign_kdamond)" "1 on same-pid" "degraded: the foreign kdamond untouched" ;;
esac
expect_range "$(res reclaim_requests)" 1 60 "degraded: memory.reclaim requests"
# One job a tick at most, each with the one cgroup over its max: as many
# jobs as requests.
expect_eq "$(res reclaim_jobs_requests | awk '{ print ($1 == $2 && $1 > 0) ? "same" : $0 }')" same \
	"degraded: memory.reclaim ran as jobs off the tick, one a request"
expect_range "$(res reclaim_moved_mib)" 150 330 "degraded: MiB memory.reclaim took off tier 0"
expect_eq "$(res numa_balancing_running) $(res demotion_running)" "0 true" "degraded: settings tierd changed while it runs"
expect_eq "$(res numa_balancing_after) $(res demotion_after)" "1 false" "degraded: both restored on exit"
expect_eq "$(res tierd_exit)" 0 "degraded: tierd exits 0"
expect_eq "$(res w_checksum)" "pages=81920 bad=0" "degraded: pages intact"
