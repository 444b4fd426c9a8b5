#!/bin/sh
# Runs each libFuzzer harness of fuzz/ (built by make as $BUILD/fuzz/NAME)
# for FUZZ_SECONDS on a scratch copy of its seed corpus fuzz/corpus/NAME, so
# that what it finds does not change the repository. A harness passes when
# libFuzzer exits 0: no crash, leak, sanitizer report, timeout or out of
# memory. The executions done are printed for the record; a crash input is
# kept under $BUILD/fuzz/crashes/NAME/.
set -u
: "${BUILD:=build}"
: "${FUZZ_SECONDS:=12}"
# Per-input limits: a parser that needs more than this on a small input hangs.
FUZZ_TIMEOUT_SEC=10
FUZZ_RSS_MB=2048
FUZZ_MAX_LEN=65536
pass=0 fail=0

for src in fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin=$BUILD/fuzz/$name
	if [ ! -x "$bin" ]; then
		fail=$((fail + 1)); echo "FAIL: $name: $bin not built" >&2; continue
	fi
	work=$BUILD/fuzz/run/$name crashes=$BUILD/fuzz/crashes/$name
	rm -rf "$work" && mkdir -p "$work" "$crashes"
	cp fuzz/corpus/"$name"/* "$work"/
	log=$BUILD/fuzz/$name.log
	"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=$FUZZ_TIMEOUT_SEC -rss_limit_mb=$FUZZ_RSS_MB \
		-max_len=$FUZZ_MAX_LEN -print_final_stats=1 -artifact_prefix="$crashes/" \
		"$work" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "$name: ${execs:-?} executions in ${FUZZ_SECONDS} s, coverage ${cov:-?} edges"
	else
		fail=$((fail + 1))
		echo "FAIL: $name exited $rc after ${execs:-?} executions (log $log, input in $crashes/):" >&2
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 5 >&2
	fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
