# Journal: tierd's decisions reach a real systemd-journald with their
# structured fields (TIERD_EVENT, TIERD_CGROUP, TIERD_POLICY, TIERD_TIER,
# TIERD_BYTES, PRIORITY).
set -u
echo 0 >/proc/sys/kernel/numa_balancing
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/test
mkdir -p /run/systemd/journal /run/log/journal /var/log/journal /etc/systemd
echo "0123456789abcdef0123456789abcdef" >/etc/machine-id
/lib/systemd/systemd-journald &
i=0
while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "RESULT journald_socket $([ -S /run/systemd/journal/socket ] && echo yes || echo no)"

sh -c 'echo $$ >/sys/fs/cgroup/test/cgroup.procs; exec /bin/hog "$0" "$1"' 200 0 >/tmp/hog.0 &
i=0
while ! grep -q ready /tmp/hog.0 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done

tierd --once --dry-run --config /etc/tierd/tierd.json --log-target=journal >/dev/null 2>/tmp/tierd.err
echo "RESULT tierd_exit $?"
sleep 1
journalctl --sync 2>/dev/null
journalctl -D /run/log/journal --no-pager -o export TIERD_EVENT=over-budget |
	grep -E '^(MESSAGE|PRIORITY|SYSLOG_IDENTIFIER|TIERD_[A-Z]+)=' | sed 's/^/JOURNAL /'
journalctl -D /run/log/journal --no-pager -o export TIERD_EVENT=cgroup-managed |
	grep -E '^TIERD_[A-Z]+=' | sed 's/^/MANAGED /'
