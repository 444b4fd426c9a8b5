/* A clock's reading in microseconds: tick timing, deadlines. */
#ifndef TIERD_CLOCK_H
#define TIERD_CLOCK_H

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

#endif
