# Sourced by tests/test_vm.sh: issue 15, sampled promotions' move_pages(2)
# batches on tierd's kernel worker, never on the tick
# (tests/vm/scenarios/promotebatch.sh).
tests/vm/boot.sh promotebatch
expect_eq "$?" 0 "promotebatch: VM ran and powered off"
expect_eq "$(res tierd_exit)" 0 "promotebatch: tierd exits 0 on SIGTERM (the worker thread takes no signal)"
expect_eq "$(res w_checksum)" "pages=65536 bad=0" "promotebatch: every page of /big intact"
# The first run (6.12) planned batches of up to 53,461 pages (209 MiB) and
# moved 256 MiB.
expect_range "$(res batch_max_planned_pages)" 16384 100000000 "promotebatch: a batch of at least 64 MiB handed to the worker"
expect_range "$(res moved_mib)" 64 1024 "promotebatch: MiB move_pages moved"
expect_eq "$(res batches)" "$(res batches_logged)" "promotebatch: every batch ended and was accounted (metric = log lines)"
# The tick hands each batch over and does not wait for it: the longest
# the tick waited on the kernel while acting stays far below the batches'
# time (hundreds of ms). The ticks' own work on tens of thousands of
# samples may still make one run past the next one's time (overruns, and
# the gap between two publications, for the record).
expect_range "$(res act_wait_max_ms)" 0 100 "promotebatch: ms the tick waited on the kernel while acting, at most"
echo "NOTE [$VM_KERNEL]: promotebatch: largest batch $(res batch_max_planned_pages) pages planned, $(res batch_max_run_pages) run in $(res batch_max_ms) ms; $(res deadline_hits) deadline hits, $(res busy_ticks) busy ticks; the tick waited at most $(res act_wait_max_ms) ms on the kernel while acting; longest gap between ticks $(res max_tick_gap_ms) ms, $(res overruns) slots overrun" >&2
