#!/bin/sh
# Scenarios on a real four-tier kernel in QEMU (tests/vm/). Each scenario
# prints RESULT and METRIC lines on the console; this script checks them.
# A VM that hangs or panics fails, its console kept in $BUILD/vm/NAME.log.
# Without the VM's ingredients (no network to Debian's mirrors) it skips.
set -u
: "${BUILD:=build}"
VM=$BUILD/vm
pass=0 fail=0 skip=0
MIB=1048576

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_eq() { [ "$1" = "$2" ] && ok || no "$3: got '$1', expected '$2'"; }
# expect_range VALUE LOW HIGH WHAT
expect_range() {
	if [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; then ok; else no "$4: got '$1', expected $2..$3"; fi
}
metric() { # LOG NAME{labels}
	grep -F "METRIC $2 " "$1" | head -n 1 | awk '{print $NF}' | tr -d '\r'
}

if ! tests/vm/setup.sh >"$BUILD/vm-setup.log" 2>&1; then
	echo "SKIP: the VM's kernel or QEMU 10 could not be fetched (see $BUILD/vm-setup.log)" >&2
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
tests/vm/mkinitrd.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

# --- observe: topology and per-tier usage of a cgroup on the real kernel -----
tests/vm/boot.sh observe
expect_eq "$?" 0 "observe: VM ran and powered off"
L=$VM/observe.log
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
expect_eq "$plan" "$over" "observe: the plan demotes what is over"
expect_eq "$(metric "$L" 'tierd_cgroups_over_budget')" 1 "observe: one cgroup over budget"
grep -q 'cgroup /test is over its tier 0 budget by' "$L" && ok || no "observe: over-budget log line"

# --- journal: structured fields on a real systemd-journald ------------------
tests/vm/boot.sh journal
expect_eq "$?" 0 "journal: VM ran and powered off"
L=$VM/journal.log
field() { grep "^$1 $2=" "$L" | head -n 1 | sed "s/^$1 $2=//" | tr -d '\r'; }
expect_eq "$(grep -c "^RESULT journald_socket yes" "$L")" 1 "journal: journald listening"
expect_eq "$(field JOURNAL TIERD_EVENT)" over-budget "journal: TIERD_EVENT"
expect_eq "$(field JOURNAL TIERD_CGROUP)" /test "journal: TIERD_CGROUP"
expect_eq "$(field JOURNAL TIERD_POLICY)" test "journal: TIERD_POLICY"
expect_eq "$(field JOURNAL TIERD_TIER)" 0 "journal: TIERD_TIER"
expect_eq "$(field JOURNAL PRIORITY)" 4 "journal: PRIORITY (warning)"
expect_eq "$(field JOURNAL SYSLOG_IDENTIFIER)" tierd "journal: SYSLOG_IDENTIFIER"
expect_range "$(field JOURNAL TIERD_BYTES)" $((72 * MIB)) $((76 * MIB)) "journal: TIERD_BYTES (over by)"
grep -q '^JOURNAL MESSAGE=cgroup /test is over its tier 0 budget by ' "$L" && ok || no "journal: MESSAGE"
expect_eq "$(field MANAGED TIERD_EVENT)" cgroup-managed "journal: cgroup-managed event"

# --- damon: the DAMON sysfs facts controller/damon.c relies on (6.12) --------
tests/vm/boot.sh damon
expect_eq "$?" 0 "damon: VM ran and powered off"
L=$VM/damon.log
res() { grep "^RESULT $1 " "$L" | head -n 1 | sed "s/^RESULT $1 //" | tr -d '\r'; }
expect_eq "$(res damon_admin)" yes "damon: admin/ present"
expect_eq "$(res nr_kdamonds_before)" 0 "damon: no kdamond before"
expect_eq "$(res kdamond0)" "yes off" "damon: nr_kdamonds creates kdamonds/0"
expect_eq "$(res avail_operations)" "vaddr fvaddr paddr" "damon: operations (one per line)"
expect_eq "$(res target_nid)" "yes -1" "damon: target_nid present, default -1"
expect_eq "$(res filter_allow) $(res dests) $(res goal_nid)" "no no no" "damon: no 6.14+ files"
expect_eq "$(res default_max)" "0 0 0" "damon: access pattern maxima default to 0"
expect_eq "$(res nr_rewrite_resets)" 0 "damon: rewriting nr_regions resets its children"
expect_eq "$(res memcg_path_read)" /test "damon: memcg_path written without newline"
grep -q '^RESULT write_failed' "$L" && no "damon: a write failed: $(grep '^RESULT write_failed' "$L" | head -n 1)" || ok
expect_eq "$(res state_on)" on "damon: state on"
expect_eq "$(res pid_positive)" yes "damon: kdamond pid"
expect_range "$(res test_anon_mib_node3)" 60 64 "damon: /test's cold pages moved to node 3"
expect_range "$(res test_anon_mib_node0)" 0 4 "damon: /test's pages left node 0"
expect_eq "$(res other_pages_node3)" 0 "damon: memcg filter matching N spares other cgroups"
expect_range "$(res other_pages_node0)" 8192 9000 "damon: other cgroup stays on node 0"
expect_range "$(res sz_applied_mib)" 60 64 "damon: sz_applied"
expect_range "$(res tried_regions1)" 3 1000 "damon: tried_regions after update"
names=$(grep '^TRIED_NAMES1' "$L" | tr -d '\r' | cut -d' ' -f2-)
[ -n "$names" ] && [ "$names" != "$(seq -s ' ' 0 $(($(res tried_regions1) - 1)))" ] && ok ||
	echo "NOTE: damon: tried_regions names were 0..n-1 this time ($names)" >&2
expect_eq "$(res state_after_commit)" on "damon: a good commit keeps it on"
expect_eq "$(res bad_commit_write_rc)" 0 "damon: a bad commit's write succeeds (6.12 trap)"
expect_eq "$(res state_after_bad_commit)" off "damon: a bad commit stops the kdamond"
expect_eq "$(res off_when_stopped_rc)" 1 "damon: off on a stopped kdamond fails"
expect_eq "$(res bad_on_rc)" 1 "damon: on with a bad memcg_path fails at the write"
expect_eq "$(res state_on_again) $(res state_off)" "on off" "damon: on again, then off"
expect_eq "$(res nr_kdamonds_after)" 0 "damon: nr_kdamonds back to 0"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
