# Sourced by tests/test_vm.sh: issue 14, Debian's memcached driven by
# memcaslap while a cold tenant holds tier 0, under Linux's tiering and
# under tierd (tests/vm/scenarios/memcached.sh). Asserted: every value read
# back intact, memcaslap ran to its end, tierd exited 0. The throughput and
# the placement are figures for the record (NOTE lines, MCSERIES in the log):
# TCG makes every node equally fast, so the throughput says what tierd
# costs in CPU, not what placement gains.
tests/vm/boot.sh memcached
expect_eq "$?" 0 "memcached: VM ran and powered off"
for who in linux tierd; do
	expect_eq "$(res ${who}_slap_exit)" 0 "memcached: memcaslap ran to its end under $who"
	expect_eq "$(res ${who}_values)" "64 bad=0" "memcached: the known values read back intact under $who"
	expect_eq "$(res ${who}_verify_failed)" 0 "memcached: memcaslap verified every value it read under $who"
	expect_eq "$(res ${who}_cold_set)" 32768 "memcached: the cold keys set under $who"
done
expect_eq "$(res tierd_exit)" 0 "memcached: tierd exits 0"
for who in linux tierd; do
	grep "^MCSERIES $who " "$L" | tr -d '\r' | awk -v who=$who -v k="$VM_KERNEL" '
		{ all = $4 + $5 + $6 + $7; if (!all) next; p = int($4 * 1000 / all); sum += p; n++; last = p; if (t50 == "" && p >= 500) t50 = $3 }
		END { printf "NOTE [%s]: memcached %s: memcached in tier 0: mean %d per mille over %d s, final %d, >= 50%% after %s s\n", k, who, n ? sum / n : 0, n, last, t50 == "" ? "never" : t50 }' >&2
	echo "NOTE [$VM_KERNEL]: memcached $who: CPU ms during memcaslap's run (tierd kdamonds memcached kswapd): $(res ${who}_cpu_ms)" >&2
	echo "NOTE [$VM_KERNEL]: memcached $who: $(res ${who}_tps) ops/s, verify_misses $(res ${who}_verify_misses), get_misses $(res ${who}_get_misses), memcached MiB per node at the end $(res ${who}_mc_mib_end), cold tenant left $(res ${who}_coldt_node0_mib_end) MiB in tier 0" >&2
done
