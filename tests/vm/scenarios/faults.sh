# Faults (issue 4, scenario 4): while tierd manages two cgroups, one is
# removed, one of tierd's kdamonds is turned off behind its back, and a
# policy with an error is reloaded. tierd keeps running, says so for each,
# and recovers: the cgroup is dropped, the kdamond turned on again, the old
# policies stay in force until a good reload.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
K0=/sys/kernel/mm/damon/admin/kdamonds/0/state

start_work /a a --hot 32 --hot-node 3 --report-ms 1000
start_work /b b --hot 32 --hot-node 3 --cpu 1 --report-ms 1000
# DAMON alone: the BPF sampler's promotions have their own scenario (bpfpromote).
write_config 1s '"bpf": false'
for name in a b; do
	cat >/tmp/policies.d/$name.json <<JSON
{ "name": "$name", "match": { "path": "/$name" }, "strategy": "mole" }
JSON
done
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
sleep 8
alive() { kill -0 $tierd_pid 2>/dev/null && echo yes || echo no; }
ticks() { metric tierd_ticks_total; }

# 1. A managed cgroup goes away.
stop_work b
i=0
while [ -d $CG/b ] && ! rmdir $CG/b 2>/dev/null && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
echo "RESULT b_removed $([ -d $CG/b ] && echo no || echo yes)"
# Up to 60 s for the next tick to notice: a tick waits on DAMON sysfs
# commands, which wait while a kdamond migrates (seconds under a loaded host).
i=0
while ! grep -q 'cgroup /b is no longer managed' /tmp/tierd.log && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
sleep 1
echo "RESULT dropped_s $i"
echo "RESULT alive_after_rmdir $(alive)"
echo "RESULT dropped_logged $(grep -c 'cgroup /b is no longer managed' /tmp/tierd.log)"

# 2. A kdamond of tierd's turned off by someone else.
# DAMON's sysfs answers EBUSY while tierd's own commands run: retry.
P0=/sys/kernel/mm/damon/admin/kdamonds/0/pid
pid_before=$(damon_read $P0)
i=0
until printf '%s' off 2>/dev/null >$K0 || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "RESULT k0_off_written $([ $i -lt 100 ] && echo yes || echo no)"
i=0
while ! grep -q 'kdamond 0 (tier 0) was turned off' /tmp/tierd.log && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
echo "RESULT k0_recovered_s $i"
sleep 1
echo "RESULT k0_state $(damon_read $K0)"
pid_after=$(damon_read $P0)
echo "RESULT k0_pids $pid_before $pid_after"
echo "RESULT k0_new_pid $([ -n "$pid_before" ] && [ "$pid_after" != "$pid_before" ] && [ "$pid_after" -gt 0 ] && echo yes || echo no)"
echo "RESULT restart_logged $(grep -c 'kdamond 0 (tier 0) was turned off' /tmp/tierd.log)"
echo "RESULT restarts_metric $(metric tierd_damon_kdamond_restarts_total)"

# 3. A policy with an error, then a good reload.
printf '{ "name": "c", "match": { "path": "/c" }, "tiers": [ { "tier": 0, "max": "lots" } ] }\n' \
	>/tmp/policies.d/c.json
t_before=$(ticks)
kill -HUP $tierd_pid
sleep 4
echo "RESULT alive_after_bad_reload $(alive)"
echo "RESULT refused_logged $(grep -c 'reload refused; the 2 policies loaded before stay in force' /tmp/tierd.log)"
grep 'c.json:1:' /tmp/tierd.log | head -n 1 | sed 's/^/RESULT bad_policy_error /'
echo "RESULT ticks_went_on $([ "$(ticks)" -gt "$t_before" ] && echo yes || echo no)"
rm /tmp/policies.d/c.json
kill -HUP $tierd_pid
sleep 3
echo "RESULT reload_logged $(grep -c 'reloaded: 2 policies from /tmp/policies.d' /tmp/tierd.log)"
echo "RESULT a_hot $(last_place a hot)"

kill -TERM $tierd_pid
wait $tierd_pid
echo "RESULT tierd_exit $?"
echo "RESULT kdamonds_after $(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds)"
stop_work a
sed 's/^/TIERD /' /tmp/tierd.log | head -n 40
