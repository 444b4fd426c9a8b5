# Sourced by tests/test_vm.sh: issue 5, first slice: the BPF hint-fault
# sampler loaded on the VM's 6.12 kernel (tests/vm/scenarios/bpf.sh).
tests/vm/boot.sh bpf
expect_eq "$?" 0 "bpf: VM ran and powered off"
expect_eq "$(res hooks)" "numa_fault=btf fault_addr=btf migrate=btf" "bpf: hooks found in 6.12's BTF"
expect_eq "$(res load)" "0 ok" "bpf: programs loaded and attached"
expect_eq "$(res configured)" 0 "bpf: maps filled"
expect_eq "$(res bpftest_rc)" 0 "bpf: sampling ran to its end"
expect_eq "$(res bpftest_exit)" 0 "bpf: bpftest exit status"
# The managed workload's 64 MiB hot set on node 3 is seen, page by page.
expect_range "$(res normal_samples)" 1000 100000000 "bpf: samples of the managed cgroup"
expect_range "$(res normal_distinct_pages)" 1000 16384 "bpf: distinct hot pages sampled (of 16384)"
expect_eq "$(res normal_foreign_samples)" 0 "bpf: no sample of another cgroup"
expect_eq "$(res storm_foreign_samples)" 0 "bpf: no sample of another cgroup in the storm"
# The unmanaged workload faulted too: the in-kernel filter dropped it.
expect_range "$(res unmanaged_faults)" 1000 100000000 "bpf: hint faults of unmanaged cgroups seen and filtered"
# Storm: 15 s at 5 samples/s and a burst of 2 per CPU (2 CPUs) lets at most
# 2 * (2 + 5 * 15) = 154 through, the rest is dropped and counted.
expect_range "$(res storm_samples)" 1 154 "bpf: samples let through by the tiny bucket"
expect_range "$(res storm_kernel_drops)" 1000 100000000 "bpf: drops counted in the storm"
expect_eq "$(res storm_ring_full)" 0 "bpf: the ring buffer never filled"
# Kernel promotion held off: rate limit 0 on a 1 GiB fast node.
expect_eq "$(res rate_limit)" 0 "bpf: numa_balancing_promote_rate_limit_MBps"
expect_eq "$(res pgpromote_delta)" 0 "bpf: pgpromote_success unchanged"
expect_eq "$(res managed_hot_nodes)" "0 0 0 16384" "bpf: the managed hot set stays on node 3"
expect_eq "$(res m_checksum)" "pages=16384 bad=0" "bpf: managed workload intact"
expect_eq "$(res u_checksum)" "pages=16384 bad=0" "bpf: unmanaged workload intact"
