# Sourced by tests/test_vm.sh: boots scenario damon and checks its results.
# --- damon: the DAMON sysfs facts controller/damon.c relies on (6.12) --------
tests/vm/boot.sh damon
expect_eq "$?" 0 "damon: VM ran and powered off"
expect_eq "$(res damon_admin)" yes "damon: admin/ present"
expect_eq "$(res nr_kdamonds_before)" 0 "damon: no kdamond before"
expect_eq "$(res kdamond0)" "yes off" "damon: nr_kdamonds creates kdamonds/0"
expect_eq "$(res avail_operations)" "vaddr fvaddr paddr" "damon: operations (one per line)"
expect_eq "$(res target_nid)" "yes -1" "damon: target_nid present, default -1"
expect_eq "$(res filter_allow) $(res dests) $(res goal_nid)" "no no no" "damon: no 6.14+ files"
expect_eq "$(res default_max)" "0 0 0" "damon: access pattern maxima default to 0"
expect_eq "$(res nr_rewrite_resets)" 0 "damon: rewriting nr_regions resets its children"
expect_eq "$(res memcg_path_read)" /test "damon: memcg_path written without newline"
grep -q '^RESULT write_failed' "$L" && no "damon: a write failed: $(grep '^RESULT write_failed' "$L" | head -n 1)" || ok
expect_eq "$(res state_on)" on "damon: state on"
expect_eq "$(res pid_positive)" yes "damon: kdamond pid"
expect_range "$(res test_anon_mib_node3)" 60 64 "damon: /test's cold pages moved to node 3"
expect_range "$(res test_anon_mib_node0)" 0 4 "damon: /test's pages left node 0"
expect_eq "$(res other_pages_node3)" 0 "damon: memcg filter matching N spares other cgroups"
expect_range "$(res other_pages_node0)" 8192 9000 "damon: other cgroup stays on node 0"
expect_range "$(res sz_applied_mib)" 60 64 "damon: sz_applied"
expect_range "$(res tried_regions1)" 3 1000 "damon: tried_regions after update"
names=$(grep '^TRIED_NAMES1' "$L" | tr -d '\r' | cut -d' ' -f2-)
[ -n "$names" ] && [ "$names" != "$(seq -s ' ' 0 $(($(res tried_regions1) - 1)))" ] && ok ||
	echo "NOTE: damon: tried_regions names were 0..n-1 this time ($names)" >&2
expect_eq "$(res state_after_commit)" on "damon: a good commit keeps it on"
expect_eq "$(res bad_commit_write_rc)" 0 "damon: a bad commit's write succeeds (6.12 trap)"
expect_eq "$(res state_after_bad_commit)" off "damon: a bad commit stops the kdamond"
expect_eq "$(res off_when_stopped_rc)" 1 "damon: off on a stopped kdamond fails"
expect_eq "$(res bad_on_rc)" 1 "damon: on with a bad memcg_path fails at the write"
expect_eq "$(res state_on_again) $(res state_off)" "on off" "damon: on again, then off"
expect_eq "$(res nr_kdamonds_after)" 0 "damon: nr_kdamonds back to 0"
