/* When the next tick is due. Ticks keep a fixed rate: the next is due one
 * interval after the last was due, not after it ended, so a tick's own
 * length (its kernel calls included) does not push every later tick back.
 * A tick that ran past the next slot skips the slots it missed rather than
 * running them in a burst, and they are counted (tierd_tick_overruns_total). */
#ifndef TIERD_TICK_SCHEDULE_H
#define TIERD_TICK_SCHEDULE_H

#include <stdint.h>

/* The first slot after a tick due at due_usec that ended at now_usec:
 * due + interval, or when that has passed, the first due + k * interval
 * after now; *ret_missed gets the slots skipped (k - 1). Monotonic
 * microseconds; interval_usec > 0. */
static inline uint64_t tierd_next_tick(uint64_t due_usec, uint64_t now_usec,
				       uint64_t interval_usec, uint64_t *ret_missed)
{
	uint64_t next = due_usec + interval_usec, missed = 0;

	if (now_usec >= next) {
		missed = (now_usec - next) / interval_usec + 1;
		next += missed * interval_usec;
	}
	*ret_missed = missed;
	return next;
}

#endif
