# Sourced by tests/test_vm.sh: issue 4 scenario 2, promotion of a hot set
# from the lowest tier and following it when it moves
# (tests/vm/scenarios/promote.sh).
tests/vm/boot.sh promote
expect_eq "$?" 0 "promote: VM ran and powered off"
expect_range "$(res promote_a_ms)" 0 30000 "promote: ms until >= 90% of hot set A (node 3) is in tiers 0-1"
expect_range "$(res follow_b_ms)" 0 30000 "promote: ms after the move until >= 90% of hot set B (node 2) is in tiers 0-1"
expect_range "$(res final_hot_top2_pmy)" 900 1000 "promote: hot set in tiers 0-1 at the end (per mille)"
# The cold set (32768 pages on node 3) is not promoted wholesale. DAMON's
# physical regions mix hot and cold pages and a span merged across a gap
# carries some along: 0, 0, 504, 605, 3177 and 6687 pages in six runs;
# then 659, 13, 1031, 16235 (6.12) and 2433, 256, 1555 (7.3). The 16235
# moved within the first 5 s, with hot set A: a first DAMON region half
# hot, half cold, promoted whole. Until promotion filters pages by their
# own access (a DAMOS young filter), a quarter of the cold set must stay.
expect_range "$(res final_cold_top2_pages)" 0 24576 "promote: cold pages in tiers 0-1 (< 75%)"
# Every page of the workload in tiers 0-1 came there through migrate_hot
# (nothing is demoted, NUMA balancing is off, first touch was on nodes 2
# and 3): what migrate_hot reports is at least that (set A as last seen
# before the move, B and the cold pages at the end; 1 MiB for rounding).
# More when a page moved twice (tier 1, then tier 0): at most one hot set's
# 64 MiB more. The bound was 200 MiB flat until a 7.3 run (stop 26) saw
# 206 MiB promoted, 79 of them cold pages carried along (the cold bound
# above allows 96), and migrate_hot reported 206.
seen_mib=$(($(res promoted_seen_pages) * 4096 / MIB))
expect_range "$(res hot_succeeded_mib)" $((seen_mib - 1)) $((seen_mib + 64)) "promote: bytes migrate_hot reports moved, at least the $seen_mib MiB seen promoted"
expect_eq "$(res cold_succeeded_mib)" 0 "promote: nothing demoted (tier 0 has room)"
# A scheme's memcg filter goes where the kernel reads it best: ops_filters/
# on kernels that split the filter directories (7.2+: 7.3 here), filters/
# on the others (6.12), probed per scheme directory, never by version.
case "$(res memcg_filter_dir)" in
*" Y") want="ops_filters Y" ;;
*) want="filters N" ;;
esac
expect_eq "$(res memcg_filter_dir)" "$want" "promote: tierd's memcg filter in ops_filters/ where the scheme has it, else in filters/"
expect_eq "$(res tierd_exit)" 0 "promote: tierd exits 0"
expect_eq "$(res w_checksum)" "pages=65536 bad=0" "promote: every page intact"
