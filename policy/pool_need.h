/* A pool member's measured need (HMM-V §3.4 shares tier 0 by it): the
 * memory it was seen accessing in any of its last TIERD_POOL_NEED_ROUNDS
 * readings. HMM-V §3.2 classifies pages after 8 rounds of monitoring; one
 * DAMON aggregation samples a page per region per sampling interval, so a
 * region hot but touched more slowly than that reads 0 accesses in many
 * windows (seen in the VM: /big's 800 MiB hot set read 377 to 585 MiB
 * accessed per tick on 7.3), while the union over rounds holds it. Pure. */
#ifndef TIERD_POOL_NEED_H
#define TIERD_POOL_NEED_H

#include <stddef.h>
#include <stdint.h>

#include "hotness.h"

#define TIERD_POOL_NEED_ROUNDS 8

struct tierd_need_span {
	uint64_t start, end;
};

/* One reading's accessed ranges, sorted and disjoint. */
struct tierd_need_round {
	struct tierd_need_span *spans;
	size_t nr, cap;
};

struct tierd_pool_need {
	struct tierd_need_round rounds[TIERD_POOL_NEED_ROUNDS];
	unsigned next;          /* the round the next reading replaces */
};

/* Records the regions of hot seen accessed (nr_accesses > 0) as the newest
 * round, dropping the oldest, and sets *ret_bytes to the bytes covered by
 * any round. Regions marked repeated are no new round: nothing is recorded. Returns 0 or -ENOMEM (then nothing changed). Regions need
 * not be sorted. */
int tierd_pool_need_update(struct tierd_pool_need *n, const struct tierd_hotness *hot,
			   uint64_t *ret_bytes);

void tierd_pool_need_free(struct tierd_pool_need *n);

#endif
