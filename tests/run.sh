#!/bin/sh
# Runs every test binary and script, sums their closing lines
# ("N passed, N failed, N skipped") and prints the total last.
set -u
passed=0 failed=0 skipped=0 broken=0
: "${BUILD:=build}"

run_one() {
	name=$1; shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v '^[0-9]* passed, [0-9]* failed' | sed "s|^|  [$name] |" >&2
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "  [$name] exited $rc without a closing line" >&2
		broken=$((broken + 1))
		return
	fi
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] exited $rc" >&2
		broken=$((broken + 1))
	fi
	echo "$name: $line"
}

for t in "$@"; do
	run_one "$(basename "$t")" "$t"
done
for s in tests/test_*.sh; do
	[ -e "$s" ] || continue
	run_one "$(basename "$s")" sh "$s"
done

failed=$((failed + broken))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
