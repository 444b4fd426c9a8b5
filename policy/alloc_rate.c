/* A cgroup's smoothed allocation rate; see alloc_rate.h. */
#include "alloc_rate.h"
#include "units.h"

/* The rate moves 1 / 2^this of the way to each new reading. */
#define TIERD_ALLOC_RATE_SHIFT 2u

void tierd_alloc_rate_update(struct tierd_alloc_rate *a, uint64_t usage_bytes, uint64_t now_usec)
{
	if (a->last_usec && now_usec > a->last_usec) {
		unsigned __int128 grown = usage_bytes > a->last_usage_bytes
						  ? (unsigned __int128)(usage_bytes - a->last_usage_bytes) *
							    TIERD_USEC_PER_SEC / (now_usec - a->last_usec)
						  : 0;
		uint64_t now = grown > UINT64_MAX ? UINT64_MAX : (uint64_t)grown;

		if (now >= a->bytes_per_sec)
			a->bytes_per_sec += (now - a->bytes_per_sec) >> TIERD_ALLOC_RATE_SHIFT;
		else
			a->bytes_per_sec -= (a->bytes_per_sec - now) >> TIERD_ALLOC_RATE_SHIFT;
	}
	a->last_usage_bytes = usage_bytes;
	a->last_usec = now_usec;
}
