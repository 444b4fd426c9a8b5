/* The strategies' own counters, read through the accessors each one's
 * header (policy/strategy_<name>.h) declares, from the state the engine
 * keeps (tierd_engine_strategy_state()). */
#ifndef TIERSIM_STATS_H
#define TIERSIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "../../policy/engine.h"
#include "run.h"

/* Sums the counters of the cgroups ids[0..n) into res: the failure counts
 * (Mole §3.1) and every other counter as a name = value pair. */
void tiersim_strategy_stats(const struct tierd_engine *e, const uint64_t *ids, size_t n,
			    struct tiersim_result *res);

#endif
