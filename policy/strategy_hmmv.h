/* HMM-V as a tierd strategy: page-degree from
 * read:write weighted access counts, a bucket sort, the hot set sized to the
 * cgroup's fast-tier capacity, hot pages in slow tiers exchanged with the
 * coldest pages of the fast tier, a multi-level queue that lets the sampler
 * leave hot regions undisturbed, and a clock switch that stops tracking while
 * migrations stay few. What a sampler (the simulator) and reports use of it.
 * `state` is the one init() made for the cgroup. */
#ifndef TIERD_STRATEGY_HMMV_H
#define TIERD_STRATEGY_HMMV_H

#include <stdbool.h>
#include <stdint.h>

#include "strategy.h"

struct tierd_hmmv_stats {
	uint64_t windows;          /* monitoring windows observed (one per observe) */
	uint64_t hot_set_pages;    /* pages in the hot set at the last plan */
	uint64_t promoted_bytes;   /* proposed to tier 0 since start */
	uint64_t demoted_bytes;    /* proposed out of tier 0 by exchange since start */
	uint64_t migrated_bytes;   /* promoted + demoted as feedback reported */
	bool tracking_on;          /* the clock switch */
	uint32_t quiet_counter;    /* HMM-V's migration history counter */
	uint64_t skipped_dnd;      /* region-windows left unsampled in do-not-disturb time */
};

/* The monitoring window the next observe() stands for: windows count from 0,
 * one per observe(). */
uint64_t tierd_hmmv_window(const void *state);

/* Whether the sampler should clear and read the access bits of the region
 * starting at `start` in monitoring window `window`: false while the region is
 * in its do-not-disturb time (level x waits 2^(x-1) windows after it was last
 * sampled) and while tracking is off; true for regions never seen. A region
 * not sampled is still reported (its counts are then ignored: it counts as
 * accessed at its last sampled degree). HMM-V §3.2. */
bool tierd_hmmv_should_sample(const void *state, uint64_t start, uint64_t window);

/* The clock switch: false while tracking is off, when the sampler need not
 * sample at all and the strategy proposes nothing. HMM-V §3.2. */
bool tierd_hmmv_tracking_on(const void *state);

void tierd_hmmv_stats(const void *state, struct tierd_hmmv_stats *ret);

/* HMM-V's params (tierd-policy(5)); config/strategy_keys.c reads and checks
 * them. */
struct tierd_hmmv_params {
	uint64_t read_weight, write_weight;  /* §3.3 */
	uint64_t round_windows;              /* windows summed into a degree, §3.2 */
	uint64_t max_level;                  /* of the multi-level queue, §5.3 */
	uint64_t window_usec;                /* monitoring window, §5.3 */
	uint64_t clock_usec;                 /* clock switch period, §3.2 */
	uint64_t quiet_bytes;                /* a round moving less is quiet, §3.2;
					      * TIERD_HMMV_QUIET_RELATIVE: quiet_pmy
					      * of the cgroup's memory instead */
	uint64_t quiet_pmy;                  /* that share, in permyriad */
	uint64_t quiet_limit;                /* quiet rounds before tracking stops */
};

#define TIERD_HMMV_QUIET_RELATIVE UINT64_MAX

void tierd_hmmv_params_default(struct tierd_hmmv_params *p);

#endif
