# Observe: tierd on the real four-tier kernel sees the tiers HMAT built and
# where a cgroup's memory sits, per tier, against its budget.
set -u
# The kernel boots with NUMA balancing on; it would move pages meanwhile.
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/test

start_hog() { # MIB NODE
	sh -c 'echo $$ >/sys/fs/cgroup/test/cgroup.procs; exec /bin/hog "$0" "$1"' "$1" "$2" >/tmp/hog.$2 &
	i=0
	while ! grep -q ready /tmp/hog.$2 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
start_hog 200 0
start_hog 96 3

for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	echo "RESULT kernel_tier ${t##*memory_tier} $(cat $t/nodelist)"
done
tierctl topology
tierd --once --dry-run --config /etc/tierd/tierd.json --log-target=stderr 2>/tmp/tierd.log
echo "RESULT tierd_exit $?"
cat /tmp/tierd.log
grep -v '^#' /tmp/tierd.prom | sed 's/^/METRIC /'
