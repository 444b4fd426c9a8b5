# Sourced by tests/test_vm.sh: issue 14, a hot tenant starting in the slow
# tiers while a cold tenant holds tier 0, under Linux's tiering and under
# tierd (tests/vm/scenarios/contended.sh). Figures for the record (NOTE
# lines and the SERIES lines in the log); only that both runs kept every
# page and tierd exited 0 is asserted.
tests/vm/boot.sh contended
expect_eq "$?" 0 "contended: VM ran and powered off"
expect_eq "$(res linux_checksum)" "pages=32768 bad=0" "contended: pages intact under Linux's tiering"
expect_eq "$(res tierd_checksum)" "pages=32768 bad=0" "contended: pages intact under tierd"
expect_eq "$(res tierd_exit)" 0 "contended: tierd exits 0"
for who in linux tierd; do
	echo "NOTE [$VM_KERNEL]: contended $who: tier 0 filled with $(res ${who}_fill_mib | cut -d' ' -f2) MiB of the cold tenant, $(res ${who}_coldt_node0_mib_end) MiB at the end; hot set >= 90% in tier 0 after $(res ${who}_top_90pct_ms) ms, final $(res ${who}_final_top_pmy) per mille, effective latency mean $(res ${who}_mean_latency_ns) ns, final $(res ${who}_final_latency_ns) ns" >&2
done
for who in linux tierd; do
	echo "NOTE [$VM_KERNEL]: contended $who: the hot set on node 0 in physical memory: $(res ${who}_hot_frames)" >&2
done
# Seconds from 10 s on at which tierd held at least Linux's share.
at_least=$(grep '^SERIES ' "$L" | tr -d '\r' | awk '$3 >= 10 { top[$2, $3] = $4; t[$3] = 1 }
	END { for (s in t) if ((("linux", s) in top) && (("tierd", s) in top)) { n++; if (top["tierd", s] >= top["linux", s]) k++ }
	      printf "%d of %d", k, n }')
echo "NOTE [$VM_KERNEL]: contended: tierd's share of the hot set in tier 0 >= Linux's at $at_least seconds from 10 s on" >&2
echo "NOTE [$VM_KERNEL]: contended tierd: longest wait on the kernel in a tick: $(res tierd_kernel_wait_max_ms | cut -d' ' -f1) ms sensing, $(res tierd_kernel_wait_max_ms | cut -d' ' -f2) ms acting; $(res tierd_ticks | cut -d' ' -f1) ticks, $(res tierd_ticks | cut -d' ' -f2) slots overrun" >&2
echo "NOTE [$VM_KERNEL]: contended tierd: memory.reclaim jobs $(res tierd_reclaim_jobs | cut -d' ' -f1), longest $(res tierd_reclaim_jobs | cut -d' ' -f2) ms, $(res tierd_reclaim_jobs | cut -d' ' -f3) ticks found one running" >&2
echo "NOTE [$VM_KERNEL]: contended tierd: DAMON readings late $(res tierd_damon_late | cut -d' ' -f1), plans not committed $(res tierd_damon_late | cut -d' ' -f2)" >&2
