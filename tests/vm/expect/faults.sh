# Sourced by tests/test_vm.sh: issue 4 scenario 4, faults tierd survives
# (tests/vm/scenarios/faults.sh).
tests/vm/boot.sh faults
expect_eq "$?" 0 "faults: VM ran and powered off"
expect_eq "$(res b_removed) $(res alive_after_rmdir)" "yes yes" "faults: /b removed, tierd alive"
expect_eq "$(res dropped_logged)" 1 "faults: /b reported no longer managed (within 60 s)"
echo "NOTE [$VM_KERNEL]: faults: /b's removal logged after $(res dropped_s) s" >&2
expect_eq "$(res k0_off_written)" yes "faults: kdamond 0 turned off behind tierd's back"
expect_range "$(res k0_recovered_s)" 0 10 "faults: seconds until tierd noticed"
expect_eq "$(res k0_state) $(res k0_new_pid)" "on yes" "faults: kdamond 0 on again, a new kdamond thread"
expect_eq "$(res restart_logged) $(res restarts_metric)" "1 1" "faults: restart logged and counted"
expect_eq "$(res alive_after_bad_reload) $(res refused_logged)" "yes 1" "faults: bad policy refused, tierd alive"
expect_eq "$(res bad_policy_error)" 'tierd: error: /tmp/policies.d/c.json:1:74: tiers[0].max: expected a size such as "512M" or "4G" (K, M, G, T, P, E), got "lots"' "faults: the error names file, line, column and key"
expect_eq "$(res ticks_went_on)" yes "faults: ticks go on under the old policies"
expect_eq "$(res reload_logged)" 1 "faults: the good reload"
set -- $(res a_hot)
expect_range "$((${1:-0} + ${2:-0}))" 7373 8192 "faults: >= 90% of /a's hot set (8192 pages) promoted to tiers 0-1 all the same"
expect_eq "$(res tierd_exit) $(res kdamonds_after)" "0 0" "faults: clean exit, kdamonds removed"
expect_eq "$(res a_checksum) $(res b_checksum)" "pages=8192 bad=0 pages=8192 bad=0" "faults: pages intact"
