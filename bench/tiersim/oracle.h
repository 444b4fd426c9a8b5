/* The physical limit. Two placements that know the future and pay nothing
 * to move:
 *
 * - the clairvoyant per-window oracle: in each tick's window the pages that
 *   window accesses most sit in the fastest tiers, re-placed for free at
 *   every window boundary. A strategy's placement is constant within a
 *   window (it changes only at ticks; first touch fixes a new page's tier
 *   for the rest of the window) and never over capacity, so it is one of
 *   the placements the oracle chooses from: the oracle's latency is a lower
 *   bound on every strategy's.
 * - the static optimum: one placement for the whole run from whole-run
 *   access counts (what a perfect offline profile-guided placement gets).
 *
 * Beside them the causal oracle (causal.h): what a policy knowing the exact
 * past, not the future, reaches under the runs' budget and capacities.
 *
 * Pages are ranked by reads * (r_slowest - r_fastest) + writes * (w_slowest
 * - w_fastest); that ranking is exactly optimal when every tier's latencies
 * are one common multiple of the fastest tier's (true of the defaults) and
 * a close approximation otherwise. The oracle replays the workload from the
 * same seed: the access stream never depends on placement. */
#ifndef TIERSIM_ORACLE_H
#define TIERSIM_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

struct tiersim_oracle {
	size_t nr_ticks;
	uint64_t *window_ns;        /* per tick: the latency sum */
	uint64_t *window_accesses;
	uint64_t *hot_accesses;     /* per tick: of the tier-0-capacity hottest pages */
	uint64_t accesses;
	uint64_t total_ns, static_ns, causal_ns;
	double mean_ns, static_mean_ns, causal_mean_ns;
};

/* Returns 0; -EINVAL with a message in err; -ENOMEM. */
int tiersim_oracle_compute(const struct tiersim_run_config *cfg, struct tiersim_oracle *ret,
			   char *err, size_t err_size);
void tiersim_oracle_free(struct tiersim_oracle *o);

#endif
