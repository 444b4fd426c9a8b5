# Sourced by tests/test_vm.sh: boots scenario observe and checks its results.
# --- observe: topology and per-tier usage of a cgroup on the real kernel -----
tests/vm/boot.sh observe
expect_eq "$?" 0 "observe: VM ran and powered off"
expect_eq "$(grep -c '^RESULT kernel_tier' "$L")" 4 "observe: four memory tiers"
for spec in "4 0" "15 1" "84 2" "337 3"; do
	grep -q "^RESULT kernel_tier $spec" "$L" && ok || no "observe: memory_tier${spec% *} holds node ${spec#* }"
done
grep -q '^4 tiers (kernel memory_tiering), 4 nodes' "$L" && ok || no "observe: tierctl topology"
grep -q '^3     memory_tier337  3 .* 600ns' "$L" && ok || no "observe: tier 3 latency from HMAT"
expect_eq "$(grep '^RESULT tierd_exit' "$L" | awk '{print $3}' | tr -d '\r')" 0 "observe: tierd --once"
t0=$(metric "$L" 'tierd_cgroup_tier_bytes{cgroup="/test",policy="test",tier="0",type="anon"}')
t3=$(metric "$L" 'tierd_cgroup_tier_bytes{cgroup="/test",policy="test",tier="3",type="anon"}')
t1=$(metric "$L" 'tierd_cgroup_tier_bytes{cgroup="/test",policy="test",tier="1",type="anon"}')
over=$(metric "$L" 'tierd_cgroup_tier_over_budget_bytes{cgroup="/test",policy="test",tier="0"}')
plan=$(metric "$L" 'tierd_plan_demote_bytes')
# The workloads hold 200 MiB on node 0 and 96 MiB on node 3; the shells
# around them add a few pages.
expect_range "$t0" $((200 * MIB)) $((204 * MIB)) "observe: anon bytes on tier 0"
expect_range "$t3" $((96 * MIB)) $((97 * MIB)) "observe: anon bytes on tier 3"
expect_eq "$t1" 0 "observe: anon bytes on tier 1"
expect_range "$over" $((72 * MIB)) $((76 * MIB)) "observe: over the 128M tier-0 budget"
# Down to the max's fill line: what is over and the band below the max,
# 1/64 of 128M (policy/engine.c).
expect_eq "$plan" "$((over + 2 * MIB))" "observe: the plan demotes what is over and the max's band"
expect_eq "$(metric "$L" 'tierd_cgroups_over_budget')" 1 "observe: one cgroup over budget"
grep -q 'cgroup /test is over its tier 0 budget by' "$L" && ok || no "observe: over-budget log line"
