# Sourced by tests/test_vm.sh: boots scenario journal and checks its results.
# --- journal: structured fields on a real systemd-journald ------------------
tests/vm/boot.sh journal
expect_eq "$?" 0 "journal: VM ran and powered off"
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
