# Sourced by tests/test_vm.sh: boots scenario ksettings and checks its results.
# --- ksettings: the settings tierd restores, and memory.reclaim --------------
PAGE=4096
field() { res "$1" | cut -d' ' -f"$2"; } # KEY N: the Nth word of a RESULT
# The cgroup's anon per node and the demotion hop counts (numa_stat
# pgdemote_*, pages) agree to within this many pages: both runs seen
# had one page more on node 0 and one less on node 3 than the hops say.
HOP_SLACK_PAGES=16
# memory.reclaim stops once the pages reclaimed (= demotion hops) reach the
# request; the last batch may overshoot by a few 32-page LRU batches per
# node (seen: 33 and 36 pages over 25600 on 6.12). The hog's memory is in
# base pages (the scenario turns THP off): with 2 MiB folios 7.3 overshot
# by 1057 pages.
RECLAIM_OVERSHOOT_PAGES=512

tests/vm/boot.sh ksettings
expect_eq "$?" 0 "ksettings: VM ran and powered off"
expect_eq "$(grep '^EXIT' "$L" | tr -d '\r')" "EXIT 0" "ksettings: scenario ran to its end"

# Boot values and their byte form: one value and a newline.
expect_eq "$(res numa_balancing_boot)" "1 2" "ksettings: numa_balancing reads 1 at boot"
expect_eq "$(res demotion_boot)" "false 6" "ksettings: demotion_enabled reads false at boot"
expect_eq "$(res rate_boot)" "65536 6" "ksettings: promote rate limit reads 65536 at boot"
# Written without a newline, read back canonical.
expect_eq "$(res demotion_write_true)" "0 true 5" "ksettings: demotion_enabled takes true"
expect_eq "$(res demotion_write_false)" "0 false" "ksettings: demotion_enabled takes false"
expect_eq "$(res demotion_write_1)" "0 true" "ksettings: kstrtobool: 1 reads back true"
expect_eq "$(res demotion_write_no)" "0 false" "ksettings: kstrtobool: no reads back false"
expect_eq "$(res demotion_write_bad)" "1 false" "ksettings: demotion_enabled refuses maybe"
expect_eq "$(res numa_balancing_write_2)" "0 2" "ksettings: numa_balancing takes 2 (tiering)"
expect_eq "$(res numa_balancing_write_3)" "0 3" "ksettings: numa_balancing takes 3"
expect_eq "$(res numa_balancing_write_4)" "0 4" "ksettings: numa_balancing takes 4 (range 0..4; tierd refuses it)"
expect_eq "$(res numa_balancing_write_5)" "1 4" "ksettings: numa_balancing refuses 5"
expect_eq "$(res numa_balancing_write_0)" "0 0" "ksettings: numa_balancing takes 0"
expect_eq "$(res rate_write_1000)" "0 1000" "ksettings: rate limit takes 1000"
expect_eq "$(res rate_write_int_max)" "0 2147483647" "ksettings: rate limit takes INT_MAX"
expect_eq "$(res rate_write_over)" "1 2147483647" "ksettings: rate limit refuses INT_MAX + 1"
expect_eq "$(res rate_write_negative)" "1 2147483647" "ksettings: rate limit refuses -1"
expect_eq "$(res rate_write_back)" "0 65536" "ksettings: rate limit back to 65536"
expect_eq "$(res demotion_restored)" "0 false" "ksettings: demotion_enabled restored"

expect_eq "$(res hog)" "ready 200 MiB node 0" "ksettings: 200 MiB hog on node 0"
expect_eq "$(res swap_total_kb)" 0 "ksettings: no swap"

# Demotion off: EAGAIN and nothing moves.
expect_eq "$(res off_rc)" 1 "ksettings: reclaim with demotion off fails"
expect_eq "$(res off_msg)" "sh: write error: Resource temporarily unavailable" "ksettings: ... with EAGAIN"
expect_range "$(field off_anon_node0_before_after 1)" $((200 * MIB)) $((201 * MIB)) \
	"ksettings: /test's anon on node 0"
expect_eq "$(field off_anon_node0_before_after 2)" "$(field off_anon_node0_before_after 1)" \
	"ksettings: nothing left node 0 with demotion off"
expect_eq "$(res off_pgdemote)" 0 "ksettings: no demotion with demotion off"
echo "NOTE: ksettings: EAGAIN with demotion off took $(res off_secs) s" >&2

# Demotion on, 100 MiB asked: success; every hop N0->N1, N1->N2, N2->N3
# counts as reclaimed, so the hops add up to the request while node 0 loses
# less. A page reaches node k+1 only from node k (all started on node 0),
# so hops from 2 <= hops from 1 <= hops from 0, and node 0's share is at
# least a third of the hops.
expect_eq "$(res on_rc)" 0 "ksettings: reclaim 100M with demotion on succeeds"
h0=$(res on_hops_from_node0) h1=$(res on_hops_from_node1) h2=$(res on_hops_from_node2)
hops=$((${h0:-0} + ${h1:-0} + ${h2:-0}))
expect_range "$hops" 25600 $((25600 + RECLAIM_OVERSHOOT_PAGES)) "ksettings: demotion hops (pages) = the 100 MiB asked"
expect_eq "$(res on_hops_from_node3)" 0 "ksettings: no demotion from the lowest tier"
[ "${h2:-0}" -le "${h1:-0}" ] && [ "${h1:-0}" -le "${h0:-0}" ] && ok ||
	no "ksettings: hops from node 2 <= from node 1 <= from node 0: $h2 $h1 $h0"
prev_hops=0
for n in 0 1 2 3; do
	before=$(field on_anon_node$n 1) after=$(field on_anon_node$n 2)
	out=$(res on_hops_from_node$n)
	expect_range "$((${before:-0} - ${after:-0} + (prev_hops - ${out:-0}) * PAGE))" $((-HOP_SLACK_PAGES * PAGE)) \
		$((HOP_SLACK_PAGES * PAGE)) "ksettings: node $n anon change = hops in - hops out"
	prev_hops=$out
	[ $n -eq 0 ] && drop0=$((${before:-0} - ${after:-0}))
done
expect_range "$drop0" $(((hops + 2) / 3 * PAGE - HOP_SLACK_PAGES * PAGE)) $((hops * PAGE)) \
	"ksettings: node 0 loses between a third and all of the hops"
echo "NOTE: ksettings: memory.reclaim 100M moved $((drop0 / MIB)) MiB off node 0 in $(res on_secs) s" >&2
expect_eq "$(field on_anon_total 2)" "$(field on_anon_total 1)" \
	"ksettings: demotion keeps the cgroup's anon total"
expect_eq "$(field on_current 2)" "$(field on_current 1)" \
	"ksettings: demotion keeps memory.current (the charge moves along)"
expect_eq "$(res on_pgdemote_kswapd)" 0 "ksettings: memory.reclaim demotion is not kswapd's"
# 6.12 counts it as direct reclaim, 7.3 as proactive: one of them, once.
case "$(res on_pgdemote_by)" in
direct | proactive) ok ;;
*) no "ksettings: memory.reclaim demotion counted as pgdemote_direct or pgdemote_proactive: got '$(res on_pgdemote_by)'" ;;
esac

# More than can be demoted: EAGAIN, the work is kept, all ends on node 3.
expect_eq "$(res big_rc)" 1 "ksettings: reclaim 1G fails"
expect_eq "$(res big_msg)" "sh: write error: Resource temporarily unavailable" "ksettings: ... with EAGAIN"
expect_eq "$(res big_anon_node0) $(res big_anon_node1) $(res big_anon_node2)" "0 0 0" \
	"ksettings: partial reclaim kept: nodes 0-2 empty"
expect_eq "$(res big_anon_node3)" "$(res big_anon_total)" "ksettings: all on node 3"
expect_eq "$(res big_anon_total)" "$(field on_anon_total 1)" "ksettings: anon total unchanged"
expect_eq "$(res bottom_rc)" "1 sh: write error: Resource temporarily unavailable" \
	"ksettings: reclaim with everything on the lowest tier: EAGAIN"
echo "NOTE: ksettings: 1G took $(res big_secs) s, the lowest-tier EAGAIN $(res bottom_secs) s" >&2

# Error mapping reclaim.c passes on.
expect_eq "$(res empty_rc)" "1 sh: write error: Invalid argument" "ksettings: a blank request is EINVAL"
expect_eq "$(res garbage_rc)" "1 sh: write error: Invalid argument" "ksettings: 100Q is EINVAL"
expect_eq "$(res removed_rc)" "1 sh: write error: No such device" "ksettings: a cgroup removed under an open fd is ENODEV"
expect_eq "$(res gone_rc)" "1 sh: can't create /sys/fs/cgroup/gone/memory.reclaim: nonexistent directory" \
	"ksettings: a removed cgroup's memory.reclaim is gone (ENOENT)"
