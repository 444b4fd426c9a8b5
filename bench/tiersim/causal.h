/* The causal oracle: the best a policy could do knowing the exact past, not
 * the future. It places pages as the simulator does (prefault, then first
 * touch in tier order), and at the end of each tick it knows the exact
 * access counts of the window just ended and moves pages for the next one,
 * under the runs' migration budget (pages moved per tick, each promotion
 * and each demotion counting) and the tiers' capacities; with several
 * cgroups in island mode each has its own budget and its tier-0 max, and
 * moves only its own pages. Moves cost nothing in latency, as in the runs.
 *
 * The mover is greedy, tier by tier from the top: the hottest pages below
 * the tier (ranked as the per-window oracle ranks them, by last window's
 * reads x read gap + writes x write gap, each older window weighing half
 * the next) go into its free room first, then are exchanged with the
 * tier's coldest pages while they are at least twice as hot, an exchange
 * costing two moves. Tier 0 keeps room for as many first touches as the
 * last window had, its coldest pages demoted for them.
 *
 * It is a reference, not a bound: a policy may beat it by knowing what it
 * does not use (recency within a window, the workload's structure). */
#ifndef TIERSIM_CAUSAL_H
#define TIERSIM_CAUSAL_H

#include <stdint.h>

#include "run.h"
#include "workload.h"

struct tiersim_causal;

/* For a run of cfg over workload w (its shape: cgroups, pages, prefault)
 * on tiers. Returns 0, -ENOMEM. */
int tiersim_causal_new(const struct tiersim_run_config *cfg, const struct tiersim_workload *w,
		       const struct tiersim_tier_spec *tiers, struct tiersim_causal **ret);
void tiersim_causal_free(struct tiersim_causal *c);

/* One access: allocates its page on first touch; returns its latency in ns
 * (0 when no tier has room, as the runs do not count such an access). */
uint64_t tiersim_causal_access(struct tiersim_causal *c, const struct tiersim_access *a);

/* The end of a tick: moves pages by the window's counts, then forgets them. */
void tiersim_causal_tick(struct tiersim_causal *c);

#endif
