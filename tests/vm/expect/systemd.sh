# Sourced by tests/test_vm.sh: the operator's life cycle under systemd as
# PID 1, tierd installed from its .deb (tests/vm/scenarios/systemd.sh).
# Builds the package and the Debian root first (cached under $BUILD/vm).
if ! BUILD=$BUILD tests/vm/mksdinitrd.sh >"$VM/mksdinitrd.log" 2>&1; then
	no "systemd: the Debian root or the .deb could not be built (see $VM/mksdinitrd.log)"
else
	# lintian: no error or warning (overrides explained in debian/).
	tags=$(grep -E '^[EW]: ' "$BUILD/deb/lintian.log")
	expect_eq "$tags" "" "systemd: lintian errors and warnings on the package"
	VM_INITRD=$VM/sdinitrd.gz VM_APPEND="rdinit=/sbin/init systemd.show_status=false" \
		VM_TIMEOUT_SEC=${VM_TIMEOUT_SEC:-420} tests/vm/boot.sh systemd
	expect_eq "$?" 0 "systemd: VM ran and powered off"
	expect_eq "$(res pid1)" systemd "systemd: PID 1"
	expect_eq "$(res tierd_installed)" "install ok installed 0.1.0" "systemd: tierd installed from the .deb"
	expect_eq "$(res enabled_before)" disabled "systemd: the package leaves tierd disabled"
	expect_eq "$(res enable_rc) $(res active)" "0 active enabled" "systemd: enable --now"
	[ -s "$BUILD/deb/lintian.log" ] && ok || no "systemd: lintian did not run (no $BUILD/deb/lintian.log)"
	[ -n "$(res status_text)" ] && ok || no "systemd: no STATUS= text after READY"
	expect_eq "$(res kdamonds_start)" "4 4" "systemd: DAMON on, one kdamond per tier"
	series=$(res scrape_tierd_series)
	expect_range "${series% *}" 50 1000 "systemd: tierd series node-exporter serves"
	expect_eq "${series% *}" "${series#* }" "systemd: node-exporter serves every series of tierd's file"
	expect_eq "$(res scrape_error)" 0 "systemd: node_textfile_scrape_error"
	expect_range "$(res journal_ready)" 1 100000 "systemd: journal entries with TIERD_EVENT"
	expect_eq "$(res reload_good_rc)" 0 "systemd: reload of a good set"
	expect_eq "$(res active_after_bad)" active "systemd: tierd runs on after a refused reload"
	expect_eq "$(res reload_fixed_rc)" 0 "systemd: reload after the bad file is gone"
	expect_eq "$(res fifo_same_pid)" yes "systemd: a FIFO in policies.d does not hang the reload"
	expect_eq "$(res validate_fifo_rc)" 1 "systemd: tierctl validate refuses a FIFO, without waiting"
	expect_eq "$(res validate_fifo)" "/etc/tierd/policies.d/50-fifo.json: refused: not a regular file (a FIFO)" "systemd: tierctl validate names the file and the rule"
	expect_eq "$(res watchdog_restarted | cut -d' ' -f1)" 0 "systemd: restarted after the watchdog"
	# sd-event pings at most every WatchdogSec/4 (7.5 s) while its loop runs,
	# so the last ping before SIGSTOP is up to 7.5 s old: the watchdog fires
	# 22.5 to 30 s after SIGSTOP and the restart comes RestartSec (5 s)
	# later, 27.5 to 35 s, read in whole seconds and polled every second.
	# Seen: 6.12 36, 37, 37, 38 s; 7.3 29, 29, 30 s.
	expect_range "$(res watchdog_restarted | cut -d' ' -f2)" 27 120 "systemd: seconds from SIGSTOP to the restart (WatchdogSec 30 s less up to a quarter, + RestartSec 5 s)"
	expect_range "$(res watchdog_logged)" 1 10 "systemd: the watchdog timeout in the journal"
	expect_eq "$(res kill9_restarted | cut -d' ' -f1)" 0 "systemd: restarted after kill -9"
	expect_eq "$(res stop_rc)" 0 "systemd: systemctl stop"
	# Threads after stop: as many as before tierd started (DAMON_STAT's own
	# on 7.3, turned on again), none of tierd's.
	expect_eq "$(res kdamonds_after_stop)" "0 $(res kthreads_before)" "systemd: no kdamond of tierd's after stop"
	# DAMON_STAT as found, turned off where it was on ("-": no DAMON_STAT).
	stat_off=$(res damon_stat_before | sed 's/Y/N/')
	expect_eq "$(res damon_stat_running) $(res damon_stat_after_kill9)" "$stat_off $stat_off" \
		"systemd: DAMON_STAT off while tierd runs, also after kill -9"
	expect_eq "$(res damon_stat_after_stop)" "$(res damon_stat_before)" "systemd: DAMON_STAT as found, after stop"
	expect_eq "$(res foreign_start_rc)" 0 "systemd: start beside a foreign kdamond"
	expect_eq "$(res foreign_while_running)" "on same-pid" "systemd: the foreign kdamond untouched while tierd runs"
	case "$(res damon_with_foreign)" in
	degraded:*"in use by someone else"*) ok ;;
	*) no "systemd: DAMON beside a foreign kdamond: got '$(res damon_with_foreign)', expected degraded" ;;
	esac
	expect_eq "$(res foreign_after_stop)" "on same-pid" "systemd: the foreign kdamond untouched by stop"
	# The foreign user turned DAMON_STAT off to run its kdamond (7.3): tierd
	# found it off and leaves it so.
	expect_eq "$(res damon_stat_with_foreign)" "$stat_off" \
		"systemd: DAMON_STAT as the foreign user left it, after stop"
	expect_eq "$(res settings_final)" "$(res settings_before)" "systemd: kernel settings after the foreign run"
	expect_eq "$(res failed_units)" "" "systemd: failed units"
	# Crash-safe state, honest reload, metrics that cannot lie (issue 13).
	expect_eq "$(res scrape_up)" 1 "systemd: tierd_up while running"
	expect_eq "$(res reload_bad_rc | grep -c '^[1-9]')" 1 "systemd: a refused reload fails systemctl reload"
	expect_eq "$(res kdamonds_after_watchdog)" "4 4" "systemd: DAMON on again after the watchdog restart"
	case "$(res damon_after_watchdog)" in
	running*) ok ;;
	*) no "systemd: DAMON after the watchdog restart: got '$(res damon_after_watchdog)', expected running" ;;
	esac
	expect_eq "$(res kdamond_new_after_watchdog)" yes "systemd: the predecessor's kdamonds replaced"
	expect_eq "$(res kdamonds_after_kill9)" "4 4" "systemd: DAMON on again after kill -9"
	case "$(res damon_after_kill9)" in
	running*) ok ;;
	*) no "systemd: DAMON after kill -9: got '$(res damon_after_kill9)', expected running" ;;
	esac
	expect_eq "$(res kthreads_after_kill9)" 4 "systemd: no orphaned kdamond after kill -9"
	expect_eq "$(res settings_after_kill9)" "$(res settings_running)" "systemd: settings tierd holds after kill -9"
	expect_eq "$(res settings_after_stop)" "$(res settings_before)" "systemd: settings as before tierd ever started, after a watchdog kill and kill -9"
	expect_eq "$(res metrics_after_stop)" absent "systemd: tierd's metrics file after stop"
	expect_eq "$(res scrape_after_stop)" "0 " "systemd: tierd series node-exporter serves after stop (count, tierd_up)"
fi
