/* What the two baseline strategies (linux, autotiering) share: promotion
 * with or without fallback, watermark demotion of the coldest regions, and
 * the counters the simulator reports failure rates from (Mole §3.1,
 * the Mole paper). Pure: no I/O, no clock, no globals. */
#ifndef TIERD_BASELINE_UTIL_H
#define TIERD_BASELINE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strategy.h"
#include "strategy_ledger.h"
#include "strategy_scratch.h"

/* Counters since the strategy started, in base pages (TIERD_PAGE_BYTES), so
 * page samples and DAMON regions count alike. An attempt is counted each tick
 * it is made, as the kernel retries a page on every hint fault. */
struct tierd_baseline_stats {
	uint64_t promote_attempts;     /* hot pages the strategy tried to promote */
	uint64_t promote_failed;       /* of those, found tier 0 without room */
	uint64_t promote_fallbacks;    /* of the failed, placed on a lower tier instead */
	uint64_t promote_rate_limited; /* hot pages a rate limit refused before any attempt */
	uint64_t demote_attempts;      /* cold pages picked to restore a watermark */
	uint64_t demote_failed;        /* of those, found no lower tier with room */
};

/* Buffers kept between ticks so a tick allocates only while they grow. */
struct tierd_baseline_scratch {
	size_t cap_index, cap_index_tmp, cap_keys;
	size_t *index, *index_tmp;     /* region orders */
	uint64_t *keys;                /* their sort keys, per region */
	struct tierd_page_set pages;   /* sampled pages seen this tick */
};

void tierd_baseline_scratch_free(struct tierd_baseline_scratch *s);

/* Proposes [start, start + bytes) of tier `from` upward: to tier 0 what it
 * can take, the rest (when fallback) to tiers 1 .. from-1 in order, counting
 * the attempt, the pages that found tier 0 full and those placed lower.
 * `bytes` is clipped to the budget first. Returns 0 or -ENOMEM. */
int tierd_baseline_promote(struct tierd_ledger *l, enum tierd_reason reason,
			   size_t from, uint64_t start, uint64_t bytes, bool fallback,
			   struct tierd_baseline_stats *st);

/* Region indexes of hot, placed, not-top-tier regions (nr_accesses >=
 * min_accesses), hottest (highest nr_accesses / max_accesses, in whole
 * percent) first, in region order within a percent. *ret_index points into
 * the scratch. Returns 0 or -ENOMEM. */
int tierd_baseline_hot_order(struct tierd_baseline_scratch *s, const struct tierd_hotness *hot,
			     size_t nr_tiers, uint32_t min_accesses, const size_t **ret_index,
			     size_t *ret_nr);

/* Watermark demotion: for each tier above the lowest, top down, while its
 * free bytes (as planned so far) are below watermark_pmy of its capacity,
 * moves its cold regions (nr_accesses 0), oldest first, to the next tier
 * down; what that tier cannot take goes to the next lower tier with room,
 * skipping full ones. Returns 0 or -ENOMEM. */
int tierd_baseline_demote(struct tierd_ledger *l, struct tierd_baseline_scratch *s,
			  const struct tierd_strategy_input *in, uint32_t watermark_pmy,
			  enum tierd_reason reason, struct tierd_baseline_stats *st);

/* A tier's watermark in bytes. */
uint64_t tierd_baseline_watermark_bytes(const struct tierd_topology *topo, size_t tier,
					uint32_t watermark_pmy);

#endif
