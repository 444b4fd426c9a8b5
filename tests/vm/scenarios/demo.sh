# The demo (make demo): tierd at work on the four-tier VM with the example
# policies of configs/policies.d, on three workloads in the cgroups they
# match. db.service's hot set starts on the slowest tier and moves half way
# through; it also holds more than its 512M tier-0 max. Every 10 s the
# per-cgroup, per-tier table; at the end the migration totals.
set -u
. /scenarios/lib.sh
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >$CG/cgroup.subtree_control
for d in system.slice workload.slice; do
	mkdir -p $CG/$d
	echo +memory >$CG/$d/cgroup.subtree_control
done
echo "demo: starting the workloads (first touch is slow under emulation)"
start_work /workload.slice/db.service db --hot 128 --hot-node 3 --cold 512 --hot2 64 --hot2-node 2 \
	--move-after 40 --report-ms 5000
start_work /system.slice/nginx.service web --hot 64 --cold 64 --hot-node 2 --cpu 1 --report-ms 5000
start_work /workload.slice/batch-1.scope batch --hot 96 --hot-node 1 --cpu 1 --report-ms 5000
write_config 1s '"numa_balancing": "off"'
cp /etc/tierd/examples.d/*.json /tmp/policies.d/
echo "demo: tierd with the example policies:"
for f in /tmp/policies.d/*.json; do echo "  $f"; done
tierd --config /tmp/tierd.json --log-target=stderr 2>/tmp/tierd.log &
tierd_pid=$!
for round in 1 2 3 4 5 6 7 8; do
	sleep 10
	echo
	echo "=== after $((round * 10)) s ==="
	tierctl status --state-file /tmp/state.json | awk '/^CGROUP/ { p = 1 } p { print } p && /^$/ { exit }'
	echo "db.service hot set $(grep '^PLACE' /tmp/db.out | tail -n 1 | sed 's/.*hotset=\([AB]\) hot=\([0-9,]*\).*/\1, pages per node 0,1,2,3: \2/')"
done
kill -TERM $tierd_pid
wait $tierd_pid
echo
echo "=== tierd's log ==="
grep -v 'debug' /tmp/tierd.log
echo
echo "=== totals ==="
tierctl status --state-file /tmp/state.json | sed -n '/^DAMON/,$p'
for w in db web batch; do stop_work $w; done | sed 's/^RESULT /demo: /'
