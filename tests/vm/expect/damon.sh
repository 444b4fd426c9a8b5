# Sourced by tests/test_vm.sh: boots scenario damon and checks its results.
# --- damon: the DAMON sysfs facts controller/damon.c relies on ----------------
# Per feature, not per kernel version: DAMON_STAT's facts where the kernel
# has it, both kernels' outcomes of a rejected commit.
tests/vm/boot.sh damon
expect_eq "$?" 0 "damon: VM ran and powered off"
expect_eq "$(res damon_admin)" yes "damon: admin/ present"
expect_eq "$(res nr_kdamonds_before)" 0 "damon: no kdamond before"
expect_eq "$(res kdamond0)" "yes off" "damon: nr_kdamonds creates kdamonds/0"
expect_eq "$(res avail_operations)" "vaddr fvaddr paddr" "damon: operations (one per line)"
expect_eq "$(res target_nid)" "yes -1" "damon: target_nid present, default -1"
echo "NOTE [$VM_KERNEL]: damon: filters/N/allow $(res filter_allow), dests $(res dests), quota goal nid $(res goal_nid), ops_filters $(res ops_filters), core_filters $(res core_filters), refresh_ms $(res refresh_ms)" >&2
case "$(res damon_stat_boot)" in
absent) ok ;;
Y) expect_eq "$(res on_beside_stat_rc)" "1 Device or resource busy" "damon: a sysfs kdamond cannot start while DAMON_STAT runs"
   expect_eq "$(res damon_stat_off)" N "damon: DAMON_STAT turned off"
   expect_eq "$(res stat_on_beside_kdamond_rc)" "1 Device or resource busy N" "damon: DAMON_STAT cannot start beside a sysfs kdamond"
   expect_eq "$(res damon_stat_restored)" "0 Y" "damon: DAMON_STAT on again once no kdamond runs" ;;
*) no "damon: DAMON_STAT at boot: got '$(res damon_stat_boot)', expected absent or Y" ;;
esac
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
# Either the write succeeds and stops the kdamond (then off fails), or it
# fails and the kdamond stays on (then off works).
case "$(res bad_commit_write_rc) $(res state_after_bad_commit) $(res off_after_bad_commit_rc)" in
"0 off 1" | "1 on 0") ok ;;
*) no "damon: a bad commit: got write rc, state, off rc '$(res bad_commit_write_rc) $(res state_after_bad_commit) $(res off_after_bad_commit_rc)', expected '0 off 1' or '1 on 0'" ;;
esac
expect_eq "$(res bad_on_rc)" 1 "damon: on with a bad memcg_path fails at the write"
expect_eq "$(res state_on_again) $(res state_off)" "on off" "damon: on again, then off"
expect_eq "$(res nr_kdamonds_after)" 0 "damon: nr_kdamonds back to 0"
