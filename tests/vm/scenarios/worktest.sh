# Worktest: the workload tests/vm/work.c on the real four-node kernel, no
# tierd. Each set is first touched on the node it is bound to and stays
# there after its policy is reset (nothing moves pages here), the hot loop
# switches from set A to set B at --move-after, and the final verification
# finds every page intact.
set -u
echo 0 >/proc/sys/kernel/numa_balancing

/bin/work --hot 32 --hot-node 3 --cold 32 --cold-node 2 --hot2 16 --hot2-node 1 \
	--move-after 3 --duration 6 >/tmp/work.out 2>/tmp/work.err
echo "RESULT work_exit $?"
sed 's/^/WORK /' /tmp/work.out /tmp/work.err

field() { # LINE NAME: a PLACE field, its counts separated by spaces
	echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p" | tr , ' '
}
first=$(grep '^PLACE ' /tmp/work.out | head -n 1)
last=$(grep '^PLACE ' /tmp/work.out | tail -n 1)
echo "RESULT ready $(grep -c '^ready$' /tmp/work.out)"
echo "RESULT pid_line $(grep -c '^pid [0-9][0-9]*$' /tmp/work.out)"
echo "RESULT place_lines $(grep -c '^PLACE ' /tmp/work.out)"
echo "RESULT moved_ms $(sed -n 's/^moved t_ms=\([0-9]*\)$/\1/p' /tmp/work.out)"
# Before the move hot= is set A and hot2= set B; after it the other way round.
echo "RESULT first_hotset $(field "$first" hotset)"
echo "RESULT first_a $(field "$first" hot)"
echo "RESULT first_cold $(field "$first" cold)"
echo "RESULT first_b $(field "$first" hot2)"
echo "RESULT last_hotset $(field "$last" hotset)"
echo "RESULT last_a $(field "$last" hot2)"
echo "RESULT last_cold $(field "$last" cold)"
echo "RESULT last_b $(field "$last" hot)"
# The hot loop's touches: counted from its start, so they grow.
echo "RESULT touches_grew $([ "$(field "$last" touches)" -gt "$(field "$first" touches)" ] && echo yes || echo no)"
echo "RESULT checksum $(sed -n 's/^CHECKSUM //p' /tmp/work.out)"
