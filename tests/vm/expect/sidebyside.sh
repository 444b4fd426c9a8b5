# Sourced by tests/test_vm.sh: issue 4 scenario 6, Linux's tiering and
# tierd side by side (tests/vm/scenarios/sidebyside.sh). Figures for the
# record (printed as NOTE lines); only that both ran and kept every page is
# asserted.
tests/vm/boot.sh sidebyside
expect_eq "$?" 0 "sidebyside: VM ran and powered off"
expect_eq "$(res linux_checksum)" "pages=49152 bad=0" "sidebyside: pages intact under Linux's tiering"
expect_eq "$(res tierd_checksum)" "pages=49152 bad=0" "sidebyside: pages intact under tierd"
expect_eq "$(res tierd_exit)" 0 "sidebyside: tierd exits 0"
expect_eq "$(res tierdbpf_checksum)" "pages=49152 bad=0" "sidebyside: pages intact under tierd with BPF"
expect_eq "$(res tierdbpf_exit)" 0 "sidebyside: tierd with BPF exits 0"
for who in linux tierd tierdbpf; do
	echo "NOTE: sidebyside $who: hot set >= 90% in tier 0 after $(res ${who}_top_90pct_ms) ms, final $(res ${who}_final_top_pmy) per mille, effective latency mean $(res ${who}_mean_latency_ns) ns, final $(res ${who}_final_latency_ns) ns, cold pages in tier 0 at the end $(res ${who}_final_cold_top_pages) of 32768" >&2
done
