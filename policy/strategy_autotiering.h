/* The "autotiering" baseline strategy: greedy promotion and stepwise
 * demotion (AutoTiering, MTM). Its ops table is tierd_strategy_autotiering
 * (strategy.h); this reads one cgroup's state. */
#ifndef TIERD_STRATEGY_AUTOTIERING_H
#define TIERD_STRATEGY_AUTOTIERING_H

#include "baseline_util.h"

/* Its counters since init (pages): promotion attempts, those that found
 * tier 0 full and those that fell back to a lower tier, as Mole §3.1
 * (the Mole paper) counts them, and the demotion ones. */
void tierd_autotiering_stats(const void *state, struct tierd_baseline_stats *ret);

/* AutoTiering's params (tierd-policy(5)); config/strategy_keys.c reads and
 * checks them. */
struct tierd_autotiering_params {
	uint64_t hot_accesses;
	uint64_t watermark_pmy;
};

void tierd_autotiering_params_default(struct tierd_autotiering_params *p);

#endif
