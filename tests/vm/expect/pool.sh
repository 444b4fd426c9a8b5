# Sourced by tests/test_vm.sh: issue 4 scenario 3, tier 0 shared in pool
# mode by measured need (tests/vm/scenarios/pool.sh).
tests/vm/boot.sh pool
expect_eq "$?" 0 "pool: VM ran and powered off"
t0=$(res tier0_mib)
expect_range "$t0" 900 1024 "pool: tier 0 capacity (MiB)"
# Each member starts from half of tier 0 and keeps 75% of it (HMM-V's floor).
floor=$((t0 * 3 / 8))
expect_range "$(res share_small_mib)" $((floor - 1)) $((floor + 1)) "pool: /small's share is its floor (its need is below it)"
# /big's need is what its readings of the last 4.8 s of DAMON windows saw
# accessed (policy/pool_need.c); one reading alone saw 377 to 585 MiB of
# its 800 MiB hot set on 7.3. With 8 readings a loaded host (hot loop at a
# third of its sweeps) pulled the share down to 377-412 MiB for ticks.
# Medians seen with the union: 6.12 521, 628 MiB; 7.3 628, 602, 628 MiB.
expect_range "$(res share_big_mib)" $((t0 / 2 + 1)) $((t0 - floor)) "pool: /big's share above an equal split, within what /small's floor leaves"
expect_range "$(res small_node0_mib)" 230 260 "pool: /small's 256 MiB hot set in tier 0"
# A DAMOS span moves every page of it the access pattern matches (no
# quota: design.md, "A DAMOS quota ranks all of a context's regions"), so
# /big's tier 0 can stand above its share by what its spans carried along:
# 29 MiB seen with a steady 628 MiB share. 48 MiB (5% of tier 0) of slack.
expect_range "$(res big_node0_mib)" 400 $((t0 - floor + 48)) "pool: /big promoted by need, not into /small's floor"
echo "NOTE [$VM_KERNEL]: pool: /big's hot loop touched $(res big_touches_window) pages while the shares were read; DAMON readings late $(res damon_late_readings), plans not committed $(res damon_skipped_commits)" >&2
expect_eq "$(res tierd_exit)" 0 "pool: tierd exits 0"
expect_eq "$(res big_checksum)" "pages=204800 bad=0" "pool: /big's pages intact"
expect_eq "$(res small_checksum)" "pages=65536 bad=0" "pool: /small's pages intact"
