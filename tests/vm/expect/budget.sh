# Sourced by tests/test_vm.sh: issue 4 scenario 1, budget enforcement by
# staging demotion (tests/vm/scenarios/budget.sh).
tests/vm/boot.sh budget
expect_eq "$?" 0 "budget: VM ran and powered off"
b0=$(res before_node0) b1=$(res before_node1) b2=$(res before_node2) b3=$(res before_node3)
expect_range "$b0" 700 1024 "budget: /budget over its 512M tier-0 max at start (MiB on node 0)"
expect_range "$((b0 + b1 + b2 + b3))" 1530 1560 "budget: /budget holds ~1.5 GiB"
# The time is the kdamond's migration of ~390 MiB under TCG, which scales
# with the host's load: 8 s on an idle host (6.12); on a host loaded 10 to
# 17 on 2 cores, 54 s on 6.12 and 89 s on 7.3 (kern branch runs, 2026-12-03).
expect_range "$(res within_budget_s)" 0 150 "budget: seconds until tier 0 <= 512M"
echo "NOTE [$VM_KERNEL]: budget: tier 0 within budget after $(res within_budget_s) s" >&2
expect_range "$(res ticks)" 1 60 "budget: ticks until then"
expect_range "$(res after_node0)" 0 512 "budget: tier-0 MiB within the budget"
# Staging demotion: what left node 0 went to node 3; nodes 1 and 2 kept
# what first touch put there (a MiB of slack for the shells around).
expect_range "$(res after_node1)" $((b1 - 1)) $((b1 + 1)) "budget: node 1 untouched"
expect_range "$(res after_node2)" $((b2 - 1)) $((b2 + 1)) "budget: node 2 untouched"
expect_range "$(res after_node3)" $((b3 + b0 - $(res after_node0) - 2)) $((b3 + b0 - $(res after_node0) + 2)) "budget: node 0's loss is node 3's gain"
expect_eq "$(res damon_mode) $(res kdamonds)" "running 4" "budget: DAMON running, a kdamond per tier"
expect_range "$(res moved_0_3_mib)" 1 1024 "budget: the 0->3 cell of the migration matrix"
expect_eq "$(res moved_0_1)" 0 "budget: nothing moved 0->1"
expect_eq "$(res reclaim_tried)" 0 "budget: DAMOS alone, no memory.reclaim"
expect_eq "$(res tierd_exit)" 0 "budget: tierd exits 0 on SIGTERM"
expect_eq "$(res kdamonds_after)" 0 "budget: tierd's kdamonds removed on exit"
expect_eq "$(res w_checksum)" "pages=393216 bad=0" "budget: every page intact"
# DAMON_STAT, where the kernel has it (Debian's 7.3 enables it at boot):
# off while tierd runs, on again after, also after a tierd was killed.
case "$(res damon_stat_before)" in
absent) expect_eq "$(res damon_stat_running) $(res damon_stat_after)" "absent absent" "budget: no DAMON_STAT" ;;
Y) expect_eq "$(res damon_stat_running) $(res damon_stat_after)" "N Y" "budget: DAMON_STAT off while tierd runs, on after"
   grep -q 'DAMON_STAT_LOG .*DAMON_STAT turned off while tierd runs' "$L" && ok || no "budget: tierd logs that it turned DAMON_STAT off"
   grep -q 'DAMON_STAT_LOG .*DAMON_STAT turned on again' "$L" && ok || no "budget: tierd logs that it turned DAMON_STAT on again"
   expect_eq "$(res killed_stat)" "N Y" "budget: a killed tierd leaves DAMON_STAT off, with its record"
   expect_eq "$(res next_stat_running)" N "budget: the next tierd keeps DAMON_STAT off"
   expect_eq "$(res next_exit)" "0 Y no-record" "budget: the next tierd turns DAMON_STAT on at exit, record removed"
   grep -q 'DAMON_STAT_LOG .*left off by a tierd that did not exit cleanly' "$L" && ok || no "budget: the next tierd says it found the record" ;;
*) no "budget: DAMON_STAT at start: got '$(res damon_stat_before)', expected absent or Y" ;;
esac
