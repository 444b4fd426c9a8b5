# Kernel settings and memory.reclaim: the facts controller/ksettings.c and
# controller/reclaim.c rely on, on the real 6.12 kernel, written exactly as
# they write (printf '%s', no newline): boot values and their byte form,
# which values each file takes, and what memory.reclaim does with demotion
# off (EAGAIN, nothing moves) and on (demotes hop by hop, counts each hop).
set -u
NB=/proc/sys/kernel/numa_balancing
# Read before anything else changes it: the boot value is a fact to check.
echo "RESULT numa_balancing_boot $(cat $NB) $(wc -c <$NB)"
echo 0 >$NB

DEM=/sys/kernel/mm/numa/demotion_enabled
RATE=/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps
CG=/sys/fs/cgroup/test
PAGE=4096

w() { # VALUE FILE: write as tierd does; prints the exit status
	printf '%s' "$1" >"$2" 2>/dev/null
	echo $?
}
# One field of memory.numa_stat of /test on NODE: bytes for anon, pages
# for pgdemote_*.
numa() { # KEY NODE
	sed -n "s/^$1 .*N$2=\([0-9]*\).*/\1/p" $CG/memory.numa_stat
}
stat_key() { sed -n "s/^$1 //p" $CG/memory.stat; }
# demoted NODE: pages demoted from NODE by every reclaimer (pgdemote_*):
# 6.12 counts memory.reclaim's as pgdemote_direct, 7.3 as
# pgdemote_proactive.
demoted() {
	awk -v n="N$1=" '/^pgdemote_/ {
		for (i = 2; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1)
	} END { print s + 0 }' $CG/memory.numa_stat
}
# memcg statistics are flushed at the latest every 2 s; reading after that
# gives exact numbers once nothing runs any more.
settle() { sleep 3; }
snapshot() { # PREFIX: anon and pgdemote_* per node into shell variables
	for n in 0 1 2 3; do
		eval "$1_anon$n=$(numa anon $n)"
		eval "$1_dem$n=$(demoted $n)"
	done
	eval "$1_current=$(cat $CG/memory.current)"
}
# reclaim BYTES: writes BYTES to memory.reclaim in one write(2) without a
# newline, as tierd does; busybox's echo -n writes the same bytes as
# printf '%s' and, unlike its printf, names the errno of a failed write.
# From a child shell, so its message is captured; sets rc, msg and secs.
reclaim() {
	t0=$(date +%s)
	sh -c "echo -n '$1' >$CG/memory.reclaim" 2>/tmp/reclaim.err
	rc=$?
	secs=$(($(date +%s) - t0))
	msg=$(head -n 1 /tmp/reclaim.err)
}

# --- demotion_enabled -------------------------------------------------------
echo "RESULT demotion_boot $(cat $DEM) $(wc -c <$DEM)"
echo "RESULT demotion_write_true $(w true $DEM) $(cat $DEM) $(wc -c <$DEM)"
echo "RESULT demotion_write_false $(w false $DEM) $(cat $DEM)"
# kstrtobool takes more spellings than tierd writes; it reads back canonical.
echo "RESULT demotion_write_1 $(w 1 $DEM) $(cat $DEM)"
echo "RESULT demotion_write_no $(w no $DEM) $(cat $DEM)"
echo "RESULT demotion_write_bad $(w maybe $DEM) $(cat $DEM)"

# --- numa_balancing ---------------------------------------------------------
echo "RESULT numa_balancing_write_2 $(w 2 $NB) $(cat $NB)"
echo "RESULT numa_balancing_write_3 $(w 3 $NB) $(cat $NB)"
# The sysctl's range is 0..4 (extra2 = SYSCTL_FOUR), although only bits 1
# and 2 have a meaning: tierd refuses 4 itself.
echo "RESULT numa_balancing_write_4 $(w 4 $NB) $(cat $NB)"
echo "RESULT numa_balancing_write_5 $(w 5 $NB) $(cat $NB)"
echo "RESULT numa_balancing_write_0 $(w 0 $NB) $(cat $NB)"

# --- numa_balancing_promote_rate_limit_MBps ---------------------------------
echo "RESULT rate_boot $(cat $RATE) $(wc -c <$RATE)"
echo "RESULT rate_write_1000 $(w 1000 $RATE) $(cat $RATE)"
echo "RESULT rate_write_int_max $(w 2147483647 $RATE) $(cat $RATE)"
echo "RESULT rate_write_over $(w 2147483648 $RATE) $(cat $RATE)"
echo "RESULT rate_write_negative $(w -1 $RATE) $(cat $RATE)"
echo "RESULT rate_write_back $(w 65536 $RATE) $(cat $RATE)"

# --- memory.reclaim -----------------------------------------------------------
echo +memory >/sys/fs/cgroup/cgroup.subtree_control
mkdir $CG
# Base pages only: reclaim counts a demoted 2 MiB folio as 512 pages at
# once, which no page-level bound on the hops holds (7.3 overshot the
# request by 1057 pages, two THPs and 33).
echo "RESULT thp_boot $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
sh -c "echo \$\$ >$CG/cgroup.procs; exec /bin/hog 200 0" >/tmp/hog &
i=0
while ! grep -q ready /tmp/hog && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo "RESULT hog $(grep ready /tmp/hog)"
echo "RESULT swap_total_kb $(sed -n 's/^SwapTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"

# Demotion off, no swap: nothing can be reclaimed from anon memory.
w false $DEM >/dev/null
settle
snapshot a
reclaim 104857600
settle
snapshot b
echo "RESULT off_rc $rc"
echo "RESULT off_msg $msg"
echo "RESULT off_secs $secs"
echo "RESULT off_anon_node0_before_after $a_anon0 $b_anon0"
echo "RESULT off_pgdemote $((b_dem0 + b_dem1 + b_dem2 - a_dem0 - a_dem1 - a_dem2))"

# Demotion on: 100 MiB are reclaimed as demotion hops.
w true $DEM >/dev/null
reclaim 104857600
settle
snapshot c
echo "RESULT on_rc $rc"
echo "RESULT on_msg $msg"
echo "RESULT on_secs $secs"
for n in 0 1 2 3; do
	eval "echo RESULT on_anon_node$n \$b_anon$n \$c_anon$n"
	eval "echo RESULT on_hops_from_node$n \$((c_dem$n - b_dem$n))"
done
echo "RESULT on_anon_total $((b_anon0 + b_anon1 + b_anon2 + b_anon3)) $((c_anon0 + c_anon1 + c_anon2 + c_anon3))"
echo "RESULT on_current $b_current $c_current"
echo "RESULT on_pgdemote_kswapd $(stat_key pgdemote_kswapd)"
echo "RESULT on_pgdemote_by $(for k in direct proactive; do [ "$(stat_key pgdemote_$k)" -gt 0 ] 2>/dev/null && echo $k; done)"

# More than can be demoted (200 MiB x 3 hops < 1 GiB): EAGAIN, and what was
# done stays done.
reclaim 1073741824
settle
snapshot d
echo "RESULT big_rc $rc"
echo "RESULT big_msg $msg"
echo "RESULT big_secs $secs"
for n in 0 1 2 3; do
	eval "echo RESULT big_anon_node$n \$d_anon$n"
done
echo "RESULT big_anon_total $((d_anon0 + d_anon1 + d_anon2 + d_anon3))"

# Everything on the lowest tier: EAGAIN at once.
reclaim $PAGE
echo "RESULT bottom_rc $rc $msg"
echo "RESULT bottom_secs $secs"

# Input errors, and a cgroup removed while its memory.reclaim is open.
reclaim " "
echo "RESULT empty_rc $rc $msg"
reclaim 100Q
echo "RESULT garbage_rc $rc $msg"
mkdir /sys/fs/cgroup/gone
exec 3>/sys/fs/cgroup/gone/memory.reclaim
rmdir /sys/fs/cgroup/gone
sh -c "echo -n $PAGE >&3" 2>/tmp/reclaim.err
echo "RESULT removed_rc $? $(head -n 1 /tmp/reclaim.err)"
exec 3>&-
sh -c "echo -n $PAGE >/sys/fs/cgroup/gone/memory.reclaim" 2>/tmp/reclaim.err
echo "RESULT gone_rc $? $(head -n 1 /tmp/reclaim.err)"

echo "RESULT demotion_restored $(w false $DEM) $(cat $DEM)"
