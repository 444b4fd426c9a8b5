# Sourced by tests/test_vm.sh: boots scenario movepages and checks its results.
# --- movepages: controller/move_pages.c on the real kernel (6.12) ------------
tests/vm/boot.sh movepages
expect_eq "$?" 0 "movepages: VM ran and powered off"
expect_eq "$(res thp)" "[always] madvise never" "movepages: THP always (the counts below assume it)"

# 64 MiB of THPs from node 3 to node 0: every page moves. Per 4096-page
# batch a query, a move, and a re-check of the 8 THPs' second pages, which
# report -EBUSY although their folio moved.
expect_eq "$(res hog_fast)" "ready 64 MiB node 3" "movepages: 64 MiB hog on node 3"
expect_eq "$(res fast_rc)" 0 "movepages: fast: rc"
expect_eq "$(res fast_requested)" 16384 "movepages: fast: requested"
expect_eq "$(res fast_already_on_target)" 0 "movepages: fast: none on node 0 before"
expect_eq "$(res fast_moved)" 16384 "movepages: fast: all moved"
expect_eq "$(res fast_moved_from)" "3:16384" "movepages: fast: moved_from_node[3]"
expect_eq "$(res fast_failed_unmapped) $(res fast_failed_transient) $(res fast_failed_nomem) $(res fast_failed_other)" \
	"0 0 0 0" "movepages: fast: no failure"
expect_eq "$(res fast_nr_retry)" 0 "movepages: fast: nothing to retry"
expect_eq "$(res fast_syscalls)" 12 "movepages: fast: 4 batches of query, move, re-check"
expect_eq "$(res fast_found_on_target)" 16384 "movepages: fast: found on node 0"
expect_eq "$(res fast_numa_maps_n3)" 0 "movepages: fast: numa_maps shows none on node 3"

expect_eq "$(res hog_filler)" "ready 850 MiB node 1" "movepages: 850 MiB hog fills node 1"
# FULL: 256 MiB from node 3 onto the nearly full node 1, all pages settled:
# moved, or failed and given back for a retry; what counts as moved is what
# the kernel shows on node 1 (query and numa_maps).
full_requested=65536
check_full() { # LABEL
	p=$1
	moved=$(res ${p}_moved)
	failed=$(($(res ${p}_failed_transient) + $(res ${p}_failed_nomem)))
	expect_eq "$(res hog_$p)" "ready 256 MiB node 3" "movepages: $p: 256 MiB hog on node 3"
	expect_eq "$(res ${p}_rc)" 0 "movepages: $p: rc"
	expect_eq "$(res ${p}_requested)" $full_requested "movepages: $p: requested"
	expect_range "$moved" 1 $((full_requested - 1)) "movepages: $p: a partial move"
	expect_eq "$(res ${p}_already_on_target) $(res ${p}_failed_unmapped) $(res ${p}_failed_other)" \
		"0 0 0" "movepages: $p: no other outcome"
	expect_eq "$((moved + failed))" $full_requested "movepages: $p: moved + failed = requested"
	expect_eq "$(res ${p}_nr_retry)" "$failed" "movepages: $p: every failed page is retried"
	expect_eq "$(res ${p}_moved_from)" "3:$moved" "movepages: $p: moved_from_node[3]"
	expect_eq "$(res ${p}_found_on_target)" "$moved" "movepages: $p: moved = pages found on node 1"
	expect_eq "$(res ${p}_numa_maps_n1)" "$moved" "movepages: $p: moved = numa_maps on node 1"
	expect_eq "$(res ${p}_numa_maps_n3)" "$failed" "movepages: $p: the rest stays on node 3"
	expect_eq "$(res ${p}_retry_on_target)" 0 "movepages: $p: no retry page is on node 1"
}
# As THPs the full node shows as a failed migration batch (positive return).
check_full thpfull
expect_range "$(res thpfull_failed_transient)" 1 $full_requested "movepages: thpfull: failed batches"
# As base pages it is the call failing with ENOMEM, status[] unwritten.
check_full full
expect_range "$(res full_failed_nomem)" 1 $full_requested "movepages: full: pages failed for ENOMEM"
expect_eq "$(res filler_alive)" yes "movepages: no OOM kill"
