# The operator's life cycle under a real systemd (PID 1), tierd installed
# from its .deb (tests/vm/mksdinitrd.sh), run by tierd-vmtest.service after
# multi-user.target. Not run by /init: the systemd initramfs carries it.
# enable --now, node-exporter scraping the metrics, reload accepted and
# refused, a watchdog kill (SIGSTOP past WatchdogSec) and a kill -9 each
# followed by a restart that runs DAMON again, stop restoring the kernel
# settings as found before tierd ever started, and a foreign kdamond left
# alone. Prints RESULT lines; tests/vm/expect/systemd.sh checks them.
set -u
. /scenarios/lib.sh
D=/sys/kernel/mm/damon/admin/kdamonds
PROM=/var/lib/prometheus/node-exporter/tierd.prom
POL=/etc/tierd/policies.d
# The unit's WatchdogSec (30 s) and RestartSec (5 s), and TCG's slowness.
RESTART_WAIT_SEC=120

settings() {
	echo "$(cat /proc/sys/kernel/numa_balancing) $(cat /sys/kernel/mm/numa/demotion_enabled)" \
		"$(cat /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps)"
}
main_pid() { systemctl show -p MainPID --value tierd; }
# "N ON": kdamonds and how many of them are on.
kdamonds() {
	n=$(damon_read $D/nr_kdamonds) on=0 i=0
	while [ "$i" -lt "$n" ]; do
		[ "$(damon_read $D/$i/state)" = on ] && on=$((on + 1))
		i=$((i + 1))
	done
	echo "$n $on"
}
kthreads() { pgrep -c '^kdamond' || true; }
damon_line() { tierctl status 2>&1 | sed -n 's/^DAMON: //p' | head -n 1; }
# wait_for SECONDS COMMAND...: polls every second; 0 when it held in time.
wait_for() {
	limit=$1 t=0
	shift
	until "$@"; do
		[ "$t" -ge "$limit" ] && return 1
		sleep 1
		t=$((t + 1))
	done
}
damon_on() { [ "$(kdamonds)" = "4 4" ]; }
restarted() { # OLD_PID
	p=$(main_pid)
	[ "$p" != "$1" ] && [ "$p" != 0 ] && systemctl is-active -q tierd
}
scrape() { curl -s --max-time 10 http://localhost:9100/metrics; }
scraped_tierd() { scrape | grep -q '^tierd_'; }

echo "SCENARIO systemd"
echo "NOTE multi_user_ms $(($(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target) / 1000))"
echo "RESULT pid1 $(cat /proc/1/comm)"
echo "RESULT tierd_installed $(dpkg-query -W -f='${Status} ${Version}' tierd)"
echo "RESULT enabled_before $(systemctl is-enabled tierd)"
echo "RESULT settings_before $(settings)"
echo "RESULT kthreads_before $(kthreads)"
echo "RESULT damon_stat_before $(damon_stat)"

systemctl enable --now tierd
echo "RESULT enable_rc $?"
echo "RESULT active $(systemctl is-active tierd) $(systemctl is-enabled tierd)"
echo "RESULT status_text $(systemctl show -p StatusText --value tierd)"
wait_for 30 damon_on
echo "RESULT kdamonds_start $(kdamonds)"
echo "RESULT settings_running $(settings)"
echo "RESULT damon_stat_running $(damon_stat)"
first_kdamond=$(damon_read $D/0/pid)

wait_for 30 scraped_tierd
scrape >/tmp/scrape
echo "RESULT scrape_tierd_series $(grep -c '^tierd_' /tmp/scrape) $(grep -c '^tierd_' $PROM)"
echo "RESULT scrape_error $(sed -n 's/^node_textfile_scrape_error //p' /tmp/scrape)"
echo "RESULT scrape_up $(sed -n 's/^tierd_up //p' /tmp/scrape)"
echo "RESULT journal_ready $(journalctl -u tierd -o json | grep -c '"TIERD_EVENT"')"

systemctl reload tierd
echo "RESULT reload_good_rc $?"
cat >$POL/99-bad.json <<'JSON'
{ "name": "bad", "match": { "path": "/bad" }, "tiers": [ { "tier": 0, "max": "lots" } ] }
JSON
systemctl reload tierd
echo "RESULT reload_bad_rc $?"
echo "RESULT active_after_bad $(systemctl is-active tierd)"
rm $POL/99-bad.json
systemctl reload tierd
echo "RESULT reload_fixed_rc $?"

# A FIFO in policies.d: refused, not waited on, by tierctl validate and by
# the daemon's reload (which would otherwise hang until the watchdog).
mkfifo $POL/50-fifo.json
pid=$(main_pid)
timeout 20 systemctl reload tierd
echo "RESULT reload_fifo_rc $?"
sleep 3
echo "RESULT fifo_same_pid $([ "$(main_pid)" = "$pid" ] && systemctl is-active -q tierd && echo yes || echo no)"
timeout 10 tierctl validate $POL/50-fifo.json >/tmp/validate 2>&1
echo "RESULT validate_fifo_rc $?"
echo "RESULT validate_fifo $(head -n 1 /tmp/validate)"
rm $POL/50-fifo.json

# The watchdog: a stopped tierd misses its pings; systemd aborts it and
# restarts it RestartSec later.
pid=$(main_pid)
start=$(date +%s)
kill -STOP "$pid"
wait_for $RESTART_WAIT_SEC restarted "$pid"
echo "RESULT watchdog_restarted $? $(($(date +%s) - start))"
echo "RESULT watchdog_logged $(journalctl -u tierd | grep -c 'Watchdog timeout')"
wait_for 30 damon_on
echo "RESULT kdamonds_after_watchdog $(kdamonds)"
echo "RESULT damon_after_watchdog $(damon_line)"
echo "RESULT kdamond_new_after_watchdog $([ "$(damon_read $D/0/pid)" != "$first_kdamond" ] && echo yes || echo no)"

pid=$(main_pid)
start=$(date +%s)
kill -9 "$pid"
wait_for $RESTART_WAIT_SEC restarted "$pid"
echo "RESULT kill9_restarted $? $(($(date +%s) - start))"
wait_for 30 damon_on
echo "RESULT kdamonds_after_kill9 $(kdamonds)"
echo "RESULT damon_after_kill9 $(damon_line)"
echo "RESULT settings_after_kill9 $(settings)"
echo "RESULT kthreads_after_kill9 $(kthreads)"
echo "RESULT damon_stat_after_kill9 $(damon_stat)"

systemctl stop tierd
echo "RESULT stop_rc $?"
echo "RESULT settings_after_stop $(settings)"
echo "RESULT kdamonds_after_stop $(damon_read $D/nr_kdamonds) $(kthreads)"
echo "RESULT damon_stat_after_stop $(damon_stat)"
if [ -e $PROM ]; then
	echo "RESULT metrics_after_stop present $(sed -n 's/^tierd_up //p' $PROM)"
else
	echo "RESULT metrics_after_stop absent"
fi
echo "RESULT scrape_after_stop $(scrape | grep -c '^tierd_') $(scrape | sed -n 's/^tierd_up //p')"

# Someone else's kdamond (vaddr, on a sleeping process), as damo or a DAMON
# module would run it: tierd must leave it on, under the same thread.
# What a stop left behind is cleared by hand first (the stop checks above
# say whether there was any), so that this part stands on its own.
i=0
while [ "$i" -lt "$(damon_read $D/nr_kdamonds)" ]; do
	printf off >$D/$i/state 2>/dev/null
	i=$((i + 1))
done
printf 0 >$D/nr_kdamonds 2>/dev/null
sleep 600 &
sleeper=$!
# DAMON_STAT's kdamond excludes any other (7.3): the foreign user turns it
# off first, as it would have to.
stat_found=$(damon_stat)
[ "$stat_found" = Y ] && w N $DAMON_STAT
w 1 $D/nr_kdamonds
w 1 $D/0/contexts/nr_contexts
w vaddr $D/0/contexts/0/operations
w 1 $D/0/contexts/0/targets/nr_targets
w $sleeper $D/0/contexts/0/targets/0/pid_target
w on $D/0/state
foreign=$(damon_read $D/0/pid)
foreign_state() {
	[ "$(damon_read $D/nr_kdamonds)" = 1 ] && [ "$(damon_read $D/0/pid)" = "$foreign" ] &&
		echo "$(damon_read $D/0/state) same-pid" || echo "$(kdamonds) other"
}
systemctl start tierd
echo "RESULT foreign_start_rc $?"
sleep 5
echo "RESULT foreign_while_running $(foreign_state)"
echo "RESULT damon_with_foreign $(damon_line)"
systemctl stop tierd
echo "RESULT foreign_after_stop $(foreign_state)"
echo "RESULT damon_stat_with_foreign $(damon_stat)"
echo "RESULT settings_final $(settings)"
w off $D/0/state
kill $sleeper
[ "$stat_found" = Y ] && w Y $DAMON_STAT

echo "RESULT failed_units $(systemctl list-units --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')"
echo "EXIT 0"
systemctl --no-block poweroff
