/* A cgroup's allocation rate: its usage's growth per second, smoothed over
 * ticks, as the strategies that keep fast-tier room for new pages (migflow,
 * exchange) measure it. Pure: no I/O, no clock. */
#ifndef TIERD_ALLOC_RATE_H
#define TIERD_ALLOC_RATE_H

#include <stdint.h>

struct tierd_alloc_rate {
	uint64_t bytes_per_sec;    /* smoothed; 0 until two readings */
	uint64_t last_usage_bytes, last_usec;
};

/* Takes the usage read at now_usec: the growth since the last reading
 * (none when it shrank) moves the rate a quarter of the way to it. A clock
 * that did not advance only records the reading. */
void tierd_alloc_rate_update(struct tierd_alloc_rate *a, uint64_t usage_bytes, uint64_t now_usec);

#endif
