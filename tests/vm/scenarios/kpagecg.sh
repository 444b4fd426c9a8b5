# kpagecg: /proc/kpagecgroup on the real 6.12 kernel names the memory
# cgroup of each physical page by the inode of its cgroup2 directory, so
# DAMON's machine-wide paddr regions can be split per cgroup
# (controller/physmem.c, controller/kpagecgroup.c, policy/attribution.c).
# A 64 MiB hog bound to node 3 in cgroup a: kpcount counts node 3's pages
# owned by a's inode.
set -u
echo 0 >/proc/sys/kernel/numa_balancing
if [ ! -e /proc/kpagecgroup ]; then
	echo "RESULT kpagecgroup absent"
	exit 1
fi
echo "RESULT kpagecgroup present"
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/a
sh -c 'echo $$ >/sys/fs/cgroup/a/cgroup.procs; exec /bin/hog 64 3' >/tmp/hog &
i=0
while ! grep -q ready /tmp/hog && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "RESULT hog $(grep ready /tmp/hog)"
ino=$(stat -c %i /sys/fs/cgroup/a)
echo "RESULT cgroup_ino $ino"
echo "RESULT anon_n3_bytes $(sed -n 's/^anon .*N3=\([0-9]*\).*/\1/p' /sys/fs/cgroup/a/memory.numa_stat)"
echo "RESULT anon_n0_bytes $(sed -n 's/^anon .*N0=\([0-9]*\).*/\1/p' /sys/fs/cgroup/a/memory.numa_stat)"
echo "RESULT file_n0_bytes $(sed -n 's/^file .*N0=\([0-9]*\).*/\1/p' /sys/fs/cgroup/a/memory.numa_stat)"
for key in anon_thp pagetables kernel_stack slab percpu sock vmalloc; do
	echo "RESULT ${key}_bytes $(sed -n "s/^$key \([0-9]*\)$/\1/p" /sys/fs/cgroup/a/memory.stat)"
done
grep -E '^(kernel_stack|pagetables) ' /sys/fs/cgroup/a/memory.numa_stat | sed 's/^/RESULT numa_/'
echo "RESULT current_bytes $(cat /sys/fs/cgroup/a/memory.current)"
for n in 0 1 2 3; do
	echo "RESULT node${n}_blocks $(ls -d /sys/devices/system/node/node$n/memory[0-9]* | sed 's|.*/memory||' | sort -n | tr '\n' ' ')"
done
/bin/kpcount 3 "$ino"
echo "RESULT kpcount3_rc $?"
/bin/kpcount 0 "$ino"
echo "RESULT kpcount0_rc $?"
# Not root's: the hog's pages are charged to a, whatever else shares node 3.
/bin/kpcount 3 1 | sed 's/^RESULT /RESULT rootcg_/'
