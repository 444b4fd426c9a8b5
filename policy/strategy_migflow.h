/* The "migflow" strategy (MigFlow): quick
 * demotion of memory that cooled right after its allocation burst,
 * cost-benefit promotion with a dynamic penalty factor, LFU demotion to make
 * room, under a per-phase migration budget. Its ops table is
 * tierd_strategy_migflow (strategy.h); these are its placement advice and
 * the counters of one cgroup's state. */
#ifndef TIERD_STRATEGY_MIGFLOW_H
#define TIERD_STRATEGY_MIGFLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"

/* Lowest-latency-first allocation (MigFlow's MPOL_TOP_DOWN): the tier a new
 * allocation of `bytes` should land on, the fastest with that much room
 * (room_bytes[] per tier). Fastest is the lowest read_latency_ns; when any
 * tier's latency is unknown (0), tier order decides. Returns the tier
 * index, or -ENOSPC when no tier has room. */
int tierd_migflow_place(const struct tierd_topology *topo, const uint64_t *room_bytes,
			uint64_t bytes);

/* What MigFlow's [Alloc] and [Phase] lines report, since init. Pages are
 * base pages (TIERD_PAGE_BYTES); bytes are what the strategy proposed (the
 * engine may clip, the actuator may fail). */
struct tierd_migflow_stats {
	uint64_t tracked_pages;       /* finished the burst and grace windows */
	uint64_t cooled_pages;        /* of those, idle through grace */
	uint64_t warm_pages;          /* of those, accessed in grace */
	uint64_t reaccessed_pages;    /* cooled, then accessed before demotion */
	uint64_t queued_bytes;        /* cooled, waiting for quick demotion now */
	uint64_t quick_demoted_bytes;
	uint64_t promoted_bytes;
	uint64_t lfu_demoted_bytes;
	uint64_t phase_used_bytes;    /* proposed in the current budget phase */
	uint64_t phase_budget_bytes;
	uint64_t alloc_rate_bytes;    /* the cgroup's growth per second, smoothed */
	uint32_t hit_ratio_pmy;       /* share of observed accesses on the fastest tier */
	uint32_t alpha_pmy;           /* penalty factor in force, 10000 = 1.0 */
};

void tierd_migflow_stats(const void *state, struct tierd_migflow_stats *ret);

/* MigFlow's params (tierd-policy(5)); config/strategy_keys.c reads and
 * checks them. */
struct tierd_migflow_params {
	uint64_t burst_usec, grace_usec;   /* the 2Q tracker's residence times */
	uint64_t cost_usec;                /* migration cost per page */
	uint64_t horizon_usec;
	uint64_t alpha_min_pmy;
	bool dynamic_alpha, quick_demotion;
	uint64_t budget_bytes, budget_period_usec;
};

void tierd_migflow_params_default(struct tierd_migflow_params *p);

#endif
