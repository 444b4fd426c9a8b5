/* What the two baseline strategies (linux, autotiering) share: their params
 * reader, a per-tick ledger of room, share and budget, promotion with or
 * without fallback, watermark demotion of the coldest regions, and the
 * counters the simulator reports failure rates from (Mole §3.1,
 * 000_bbe4f560f9caaec8.txt). Pure: no I/O, no clock, no globals. */
#ifndef TIERD_BASELINE_UTIL_H
#define TIERD_BASELINE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strategy.h"

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
	size_t cap_index;
	size_t *index, *index_tmp;     /* region orders */
	size_t cap_pages, nr_slots;    /* allocated, in use (a power of two) */
	uint64_t *pages;               /* open-addressing set of page addresses */
};

void tierd_baseline_scratch_free(struct tierd_baseline_scratch *s);

/* Bytes rounded down to whole base pages; an address to its page. */
static inline uint64_t tierd_baseline_page_down(uint64_t bytes)
{
	return bytes / TIERD_PAGE_BYTES * TIERD_PAGE_BYTES;
}

/* a + b, stuck at UINT64_MAX rather than wrapping. */
static inline uint64_t tierd_baseline_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One strategy param: its key, what the error says was expected, the range
 * allowed (in the kind's unit) and where the value goes (holding the
 * default on entry). */
enum tierd_baseline_param_kind {
	TIERD_BASELINE_DURATION,       /* "1s" → usec */
	TIERD_BASELINE_PERCENT,        /* "0.3%" → permyriad */
	TIERD_BASELINE_UINT,           /* JSON integer */
};

struct tierd_baseline_param {
	const char *key;
	enum tierd_baseline_param_kind kind;
	const char *expected;
	uint64_t min, max;
	uint64_t *value;
};

/* Reads params_json (NULL: all defaults) into params[]. Unknown keys, wrong
 * types and out-of-range values give -EINVAL and err
 * "\"key\": expected ..., got ..."; -ENOMEM. */
int tierd_baseline_parse_params(const char *params_json, const struct tierd_baseline_param *params,
				size_t nr_params, char *err, size_t err_size);

/* What a cgroup may still do this tick, as its own proposals use it up. */
struct tierd_baseline_ledger {
	size_t nr_tiers;
	size_t cgroup;
	uint64_t room[TIERD_MAX_TIERS];  /* free bytes per tier not yet planned into */
	uint64_t take[TIERD_MAX_TIERS];  /* bytes its share still lets it add; UINT64_MAX none */
	uint64_t budget;                 /* bytes it may still move */
	struct tierd_action_list *out;
};

void tierd_baseline_ledger_init(struct tierd_baseline_ledger *l,
				const struct tierd_strategy_input *in,
				struct tierd_action_list *out);

/* Page-aligned bytes the cgroup may still put on tier t (room and share). */
uint64_t tierd_baseline_fits(const struct tierd_baseline_ledger *l, size_t tier);

/* Whether at least one page may still move this tick. */
bool tierd_baseline_has_budget(const struct tierd_baseline_ledger *l);

/* Bytes of a candidate that the migration budget leaves, page aligned. */
uint64_t tierd_baseline_budget_clip(const struct tierd_baseline_ledger *l, uint64_t bytes);

/* Proposes [start, start + bytes) of tier `from` upward: to tier 0 what it
 * can take, the rest (when fallback) to tiers 1 .. from-1 in order, counting
 * the attempt, the pages that found tier 0 full and those placed lower.
 * `bytes` is clipped to the budget first. Returns 0 or -ENOMEM. */
int tierd_baseline_promote(struct tierd_baseline_ledger *l, enum tierd_reason reason,
			   size_t from, uint64_t start, uint64_t bytes, bool fallback,
			   struct tierd_baseline_stats *st);

/* Region indexes of hot, placed, not-top-tier regions (nr_accesses >=
 * min_accesses), hottest (highest nr_accesses / max_accesses) first, by a
 * bucket sort. *ret_index points into the scratch. Returns 0 or -ENOMEM. */
int tierd_baseline_hot_order(struct tierd_baseline_scratch *s, const struct tierd_hotness *hot,
			     size_t nr_tiers, uint32_t min_accesses, const size_t **ret_index,
			     size_t *ret_nr);

/* Empties the page set, sized for n pages. Returns 0 or -ENOMEM. */
int tierd_baseline_pages_reset(struct tierd_baseline_scratch *s, size_t n);
/* Adds the page holding addr; false when it was already there. */
bool tierd_baseline_pages_add(struct tierd_baseline_scratch *s, uint64_t addr);

/* Watermark demotion: for each tier above the lowest, top down, while its
 * free bytes (as planned so far) are below watermark_pmy of its capacity,
 * moves its cold regions (nr_accesses 0), oldest first, to the next tier
 * down; what that tier cannot take goes to the next lower tier with room,
 * skipping full ones. Returns 0 or -ENOMEM. */
int tierd_baseline_demote(struct tierd_baseline_ledger *l, struct tierd_baseline_scratch *s,
			  const struct tierd_strategy_input *in, uint32_t watermark_pmy,
			  enum tierd_reason reason, struct tierd_baseline_stats *st);

/* A tier's watermark in bytes. */
uint64_t tierd_baseline_watermark_bytes(const struct tierd_topology *topo, size_t tier,
					uint32_t watermark_pmy);

#endif
