# Sourced by tests/test_vm.sh: issue 5, promotion driven through the BPF
# sampler and move_pages(2), DAMON off (tests/vm/scenarios/bpfpromote.sh).
tests/vm/boot.sh bpfpromote
expect_eq "$?" 0 "bpfpromote: VM ran and powered off"
expect_eq "$(res bpf_running)" 1 "bpfpromote: the BPF sampler runs (tierd_bpf_mode running)"
expect_eq "$(res numa_balancing_during) $(res rate_limit_during)" "2 0" "bpfpromote: tiering mode, kernel promotion held off while tierd runs"
expect_eq "$(res numa_balancing_after) $(res rate_limit_after)" "0 $(res rate_limit_before)" "bpfpromote: both restored on exit"
# Measured from the workload's ready (tierd starts after /other's ready):
# 6.12 18.0 and 19 s on an idle host; 7.3 23 to 36 s (the runs:
# fewer hint faults with the same scan settings, reaccess intervals of
# 91-147 ms against 17 ms) and 34.0 s on a host loaded 10 on 2 cores.
expect_range "$(res promote_ms)" 0 50000 "bpfpromote: ms until >= 90% of the hot set (node 3) is in tiers 0-1"
echo "NOTE [$VM_KERNEL]: bpfpromote: 90% of the hot set in tiers 0-1 after $(res promote_ms) ms" >&2
expect_range "$(res final_hot_top2_pmy)" 900 1000 "bpfpromote: hot set in tiers 0-1 at the end (per mille)"
expect_range "$(res samples_bpfp)" 1000 100000000 "bpfpromote: samples of /bpfp"
expect_eq "$(res samples_other)" 0 "bpfpromote: no sample of the unmanaged /other"
expect_range "$(res unmanaged_faults)" 1 100000000 "bpfpromote: /other's hint faults seen and filtered in the kernel"
expect_range "$(res moved_mib)" 58 512 "bpfpromote: MiB move_pages moved"
# The kernel's own promotion stays off: rate limit 0 and a fast node with
# less than max(1 GiB, 1/16) free (bpf/README.md).
expect_eq "$(res pgpromote_delta)" 0 "bpfpromote: pgpromote_success unchanged"
expect_range "$(res drops_storm)" 1 100000000 "bpfpromote: the storm's samples dropped by its bucket"
expect_range "$(res storm_ticks)" 10 16 "bpfpromote: tierd ticked through the 15 s storm"
expect_eq "$(res tierd_alive)" yes "bpfpromote: tierd alive after the storm"
expect_eq "$(res tierd_exit)" 0 "bpfpromote: tierd exits 0"
expect_eq "$(res w_checksum)" "pages=49152 bad=0" "bpfpromote: every page of /bpfp intact"
expect_eq "$(res s_checksum)" "pages=65536 bad=0" "bpfpromote: every page of /storm intact"
