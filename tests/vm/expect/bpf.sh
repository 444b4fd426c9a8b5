# Sourced by tests/test_vm.sh: issue 5: the BPF hint-fault sampler loaded
# on the VM's 6.12 kernel (tests/vm/scenarios/bpf.sh).
tests/vm/boot.sh bpf
expect_eq "$?" 0 "bpf: VM ran and powered off"
expect_eq "$(res hooks)" "numa_fault=btf fault_addr=btf migrate=btf numa_scan=btf" \
	"bpf: hooks found in 6.12's BTF"
expect_eq "$(res load)" "0 ok" "bpf: programs loaded and attached"
expect_eq "$(res loaded_numa_scan)" btf "bpf: the sampler reports the scan hook in use"
expect_eq "$(res configured)" 0 "bpf: maps filled"
expect_eq "$(res bpftest_rc)" 0 "bpf: sampling ran to its end"
expect_eq "$(res bpftest_exit)" 0 "bpf: bpftest exit status"
# The managed workload's 64 MiB hot set on node 3 is seen, page by page.
expect_range "$(res normal_samples)" 1000 100000000 "bpf: samples of the managed cgroup"
expect_range "$(res normal_distinct_pages)" 1000 16384 "bpf: distinct hot pages sampled (of 16384)"
expect_eq "$(res normal_foreign_samples)" 0 "bpf: no sample of another cgroup"
# Every managed sample names the managed workload's process, none another
# (4194304: PID_MAX_LIMIT of 64-bit kernels).
expect_range "$(res managed_pid)" 2 4194304 "bpf: the managed workload's pid is known"
expect_eq "$(res normal_tgids)" "$(res managed_pid)" "bpf: samples' tgid is the workload's pid"
expect_eq "$(res storm_tgids)" "$(res managed_pid)" "bpf: storm samples' tgid is the workload's pid"
# Reaccess intervals: >= 90% of the (addressed) samples found their scanned
# range; the hot loop touches its pages again soon after each scan.
n=$(res normal_samples)
expect_range "$(res normal_interval_samples)" $(((${n:-0} * 9 + 9) / 10)) "${n:-0}" \
	"bpf: samples with a reaccess interval (>= 90% of $n)"
# The hot loop touches a page again within one sweep of its 64 MiB; 1 s is
# the scan period ceiling the scenario sets (seen: 28 ms, 36 ms).
expect_range "$(res normal_interval_median_ms)" 0 1000 "bpf: median reaccess interval (ms)"
# Kernel side: addressed hint faults whose range was not remembered (every
# managed fault had its address: no_addr_faults is 0 in the VM).
f=$(res storm_kernel_faults)
expect_range "$(res no_interval_faults)" 0 $((${f:-0} / 10)) \
	"bpf: hint faults without a scanned range (<= 10% of $f)"
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
