/* A pool member's measured need (HMM-V §3.4 shares tier 0 by it): the
 * memory it was seen accessing in its recent readings. HMM-V §3.2 counts a
 * page accessed if any of 8 rounds of monitoring saw it, each round a
 * window of 600 ms (§5.3) in which any access sets the page's A bit. One
 * DAMON aggregation window is shorter (100 ms at most, as tierd sets it)
 * and samples one page per region per sampling interval, so a region hot
 * but touched more slowly than that reads 0 accesses in many windows (in
 * the VM /big's 800 MiB hot set read 377 to 585 MiB accessed per reading on
 * 7.3, less when the host was loaded and its loop swept a third as often).
 * So readings are kept until their windows add up to HMM-V's 8 x 600 ms,
 * and the need is the union of what they saw accessed. Pure. */
#ifndef TIERD_POOL_NEED_H
#define TIERD_POOL_NEED_H

#include <stddef.h>
#include <stdint.h>

#include "hotness.h"

#define TIERD_POOL_NEED_WINDOWS 8u                 /* HMM-V §3.2: rounds */
#define TIERD_POOL_NEED_WINDOW_USEC 600000u        /* HMM-V §5.3: window size */
#define TIERD_POOL_NEED_USEC ((uint64_t)TIERD_POOL_NEED_WINDOWS * TIERD_POOL_NEED_WINDOW_USEC)
/* The window a reading stands for when its regions do not say: DAMON's
 * default aggregation interval (aggr_us, 100 ms). */
#define TIERD_POOL_NEED_DEFAULT_WINDOW_USEC 100000u
/* Readings kept at most: 48 windows of 100 ms fill TIERD_POOL_NEED_USEC;
 * shorter windows cover less. Bounds the memory and the union's cost. */
#define TIERD_POOL_NEED_MAX_ROUNDS 64u

struct tierd_need_span {
	uint64_t start, end;
};

/* One reading's accessed ranges, sorted and disjoint, and its window. */
struct tierd_need_round {
	struct tierd_need_span *spans;
	size_t nr, cap;
	uint64_t window_usec;
};

struct tierd_pool_need {
	struct tierd_need_round *rounds;  /* a ring of TIERD_POOL_NEED_MAX_ROUNDS,
					   * allocated at the first reading */
	unsigned next;                    /* the slot the next reading takes */
	unsigned nr;                      /* readings kept, the newest before next */
	/* Every region of the newest reading, accessed or not: where the
	 * cgroup's memory is now. A page that moved left its old address in
	 * older readings; only what lies here counts, or a page would be
	 * needed twice (in the VM /small's 256 MiB hot set, promoted from
	 * node 2, read 392 MiB over 48 readings). */
	struct tierd_need_round footprint;
};

/* Records the regions of hot seen accessed (nr_accesses > 0) as the newest
 * reading, its window the shortest aggr_usec of its regions, and all its
 * regions as the footprint; keeps the fewest newest readings whose windows
 * add up to TIERD_POOL_NEED_USEC (all, up to TIERD_POOL_NEED_MAX_ROUNDS,
 * until they do); sets *ret_bytes to the bytes of the footprint any kept
 * reading saw accessed. Regions marked repeated are no new
 * reading: nothing is recorded. Regions need not be sorted. Returns 0 or
 * -ENOMEM (then nothing changed). */
int tierd_pool_need_update(struct tierd_pool_need *n, const struct tierd_hotness *hot,
			   uint64_t *ret_bytes);

void tierd_pool_need_free(struct tierd_pool_need *n);

#endif
