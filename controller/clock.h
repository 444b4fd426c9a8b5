/* A clock's reading in microseconds: tick timing, deadlines; and a pause. */
#ifndef TIERD_CLOCK_H
#define TIERD_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "../policy/units.h"

#define TIERD_NSEC_PER_USEC 1000u

static inline uint64_t tierd_clock_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * TIERD_USEC_PER_SEC + (uint64_t)ts.tv_nsec / TIERD_NSEC_PER_USEC;
}

/* Sleeps usec microseconds, through interrupting signals. */
static inline void tierd_sleep_usec(uint64_t usec)
{
	struct timespec ts = { .tv_sec = (time_t)(usec / TIERD_USEC_PER_SEC),
			       .tv_nsec = (long)(usec % TIERD_USEC_PER_SEC * TIERD_NSEC_PER_USEC) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#endif
