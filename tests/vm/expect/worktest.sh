# Sourced by tests/test_vm.sh: boots scenario worktest and checks its results.
# --- worktest: the work.c workload places, sweeps and verifies its sets -----
tests/vm/boot.sh worktest
expect_eq "$?" 0 "worktest: VM ran and powered off"
expect_eq "$(res work_exit)" 0 "worktest: work exits 0"
expect_eq "$(res ready)" 1 "worktest: ready printed once"
expect_eq "$(res pid_line)" 1 "worktest: pid printed once"
# One PLACE at t_ms=0, then one a second until --duration 6.
expect_eq "$(res place_lines)" 7 "worktest: PLACE lines over 6 s"
expect_range "$(res moved_ms)" 3000 3999 "worktest: moved after --move-after 3"
# 32 MiB = 8192 pages of 4 KiB (MADV_NOHUGEPAGE), 16 MiB = 4096; counts
# are for nodes 0 1 2 3. No tolerance: nothing moves pages in this VM.
expect_eq "$(res first_hotset)" A "worktest: set A hot first"
expect_eq "$(res first_a)" "0 0 0 8192" "worktest: set A on node 3 at ready"
expect_eq "$(res first_cold)" "0 0 8192 0" "worktest: cold set on node 2 at ready"
expect_eq "$(res first_b)" "0 4096 0 0" "worktest: set B on node 1 at ready"
expect_eq "$(res last_hotset)" B "worktest: set B hot after the move"
expect_eq "$(res last_a)" "0 0 0 8192" "worktest: set A still on node 3"
expect_eq "$(res last_cold)" "0 0 8192 0" "worktest: cold set still on node 2"
expect_eq "$(res last_b)" "0 4096 0 0" "worktest: set B still on node 1"
expect_eq "$(res touches_grew)" yes "worktest: the hot loop's touches grow"
expect_eq "$(res checksum)" "pages=20480 bad=0" "worktest: every page verified intact"
