# Memcached (issue 14): a program no one here wrote, Debian's memcached
# (bookworm's, unpacked in /mc by setup.sh), driven by memcaslap on a
# skewed key set while a cold tenant holds tier 0 (fill, lib.sh). Run
# twice, as contended does: under Linux's tiering (numa_balancing 2,
# demotion on, no tierd), and under tierd as shipped with the cold tenant
# capped at 128M of tier 0 and memcached under the default strategy.
# Each run: 64 values of known content stored first, then MC_COLD_KEYS
# values set once and never read again (the cold keys), then memcaslap's
# gets and sets for MC_RUN_S on a window of recent keys (the hot ones),
# verifying every value it reads. Each second: memcached's MiB on each
# node ("MCSERIES NAME S N0 N1 N2 N3"). At the end: memcaslap's
# throughput and verification counts, the 64 values read back, and the CPU
# time tierd, the kdamonds, memcached and kswapd took meanwhile.
set -u
. /scenarios/lib.sh
echo +memory >$CG/cgroup.subtree_control
ip link set lo up
# memcached started as root wants a user to run as (-u root), looked up in
# /etc/passwd, which the initramfs lacks.
grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root:x:0:0:root:/:/bin/sh' >>/etc/passwd
MC_RUN_S=30
MC_SERVER=127.0.0.1:11211
# 4 KiB values: 32768 of them are 128 MiB, set once (cold).
MC_VALUE_BYTES=4096
MC_COLD_KEYS=32768
MC_CHECK_KEYS=64
MC_LIB=/mc/lib/x86_64-linux-gnu:/mc/usr/lib/x86_64-linux-gnu
MC_LD=/mc/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2

# mc PROGRAM ARGS...: a program of /mc/usr/bin through bookworm's loader.
mc() {
	prog=$1
	shift
	$MC_LD --library-path $MC_LIB /mc/usr/bin/$prog "$@"
}

# memcaslap's command file for the cold keys: only sets.
cat >/tmp/set.cfg <<CFG
key
64 64 1
value
$MC_VALUE_BYTES $MC_VALUE_BYTES 1
cmd
0 1
1 0
CFG

# cpu_all: "tierd kdamond memcached kswapd" CPU ms so far (not memcaslap's:
# the shell reaps it before its last figure can be read). memcached runs
# through the loader, so its comm is the loader's: it is counted by pid.
cpu_all() {
	echo "$(comm_cpu_ms tierd) $(comm_cpu_ms 'kdamond*') $(pid_cpu_ms $mc_pid) $(comm_cpu_ms 'kswapd*')"
}

# run_memcached NAME: memcached in /mc, the known values, the cold keys,
# the hot run with its per-second placement; RESULT lines for NAME.
run_memcached() {
	mkdir -p $CG/mc
	sh -c 'echo $$ >"$0/cgroup.procs"; shift; exec "$@"' $CG/mc x \
		$MC_LD --library-path $MC_LIB /mc/usr/bin/memcached \
		-u root -l 127.0.0.1 -p 11211 -m 1024 -t 2 &
	mc_pid=$!
	i=0
	while ! mc memcstat --servers=$MC_SERVER >/dev/null 2>&1 && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mkdir -p /tmp/mcv
	for k in $(seq 1 $MC_CHECK_KEYS); do
		head -c $MC_VALUE_BYTES /dev/urandom >/tmp/mcv/check$k
	done
	(cd /tmp/mcv && mc memccp --servers=$MC_SERVER check*)
	mc memcaslap -s $MC_SERVER -T 1 -c 4 -F /tmp/set.cfg -x $MC_COLD_KEYS >/tmp/$1.cold 2>&1
	echo "RESULT $1_cold_set $(sed -n 's/^Run time: .* Ops: \([0-9]*\) .*/\1/p' /tmp/$1.cold)"
	start=$(cut -d. -f1 /proc/uptime)
	sh -c 'exec "$@"' x $MC_LD --library-path $MC_LIB \
		/mc/usr/bin/memcaslap -s $MC_SERVER -T 1 -c 4 -w 4k -X $MC_VALUE_BYTES -t ${MC_RUN_S}s \
		--verify=1.0 >/tmp/$1.slap 2>&1 &
	slap_pid=$!
	cpu_start=$(cpu_all)
	while kill -0 $slap_pid 2>/dev/null; do
		echo "MCSERIES $1 $(($(cut -d. -f1 /proc/uptime) - start)) $(for n in 0 1 2 3; do cgroup_node_mib /mc $n; done | tr '\n' ' ')"
		sleep 1
	done
	cpu_end=$(cpu_all)
	wait $slap_pid
	echo "RESULT $1_slap_exit $?"
	echo "RESULT $1_cpu_ms $(echo $cpu_start $cpu_end | awk '{ for (i = 1; i <= 4; i++) printf "%d ", $(i + 4) - $i }')"
	echo "RESULT $1_tps $(sed -n 's/^Run time: .* TPS: \([0-9]*\) .*/\1/p' /tmp/$1.slap | tail -n 1)"
	for k in verify_failed verify_misses get_misses; do
		echo "RESULT $1_$k $(sed -n "s/^$k: //p" /tmp/$1.slap | tail -n 1)"
	done
	bad=0
	for k in $(seq 1 $MC_CHECK_KEYS); do
		mc memccat --servers=$MC_SERVER check$k | head -c $MC_VALUE_BYTES | cmp -s - /tmp/mcv/check$k ||
			bad=$((bad + 1))
	done
	echo "RESULT $1_values $MC_CHECK_KEYS bad=$bad"
	echo "RESULT $1_mc_mib_end $(for n in 0 1 2 3; do cgroup_node_mib /mc $n; done | tr '\n' ' ')"
	kill $mc_pid
	wait $mc_pid
	i=0
	while ! rmdir $CG/mc 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

tiering_linux
fill linux
run_memcached linux
unfill linux

tierd_over_fill mc '{ "name": "mc", "match": { "path": "/mc" } }'
run_memcached tierd
stop_tierd
unfill tierd
sed 's/^/TIERD /' /tmp/tierd.log | head -n 30
