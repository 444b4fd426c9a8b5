/* What the Mole strategy (policy/strategy_mole.c) shows beyond its ops: the
 * counters a simulator reports Mole's promotion failure rate from (Mole
 * §3.1, §6.2, the Mole paper) and its current thresholds. */
#ifndef TIERD_STRATEGY_MOLE_H
#define TIERD_STRATEGY_MOLE_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* Most promotions Mole remembers to retry (Mole §4.5.2 "defers the current
 * attempt and retries it in the background"). Each entry is a range (a
 * region or a sampled page); a hot range not kept is seen again by the next
 * profiling period anyway. Bounded so a lookup costs O(log) of it. */
#define TIERD_MOLE_DEFER_MAX 1024u

/* Counters since the strategy started, in base pages (TIERD_PAGE_BYTES). A
 * promotion attempt is counted each tick it is made, retries included. The
 * §3.1 failure rate of promotions (not placed on the tier first targeted)
 * is (promote_fallbacks + promote_deferred + promote_failed) /
 * promote_attempts; promote_fallbacks + promote_deferred is what the
 * baselines count as promote_failed (policy/baseline_util.h). */
struct tierd_mole_stats {
	uint64_t promote_attempts;  /* hot pages proposed for promotion */
	uint64_t promote_fallbacks; /* matching tier full: one tier lower instead */
	uint64_t promote_deferred;  /* no room on either: queued for a retry */
	uint64_t promote_dropped;   /* of the deferred, not kept: queue full */
	uint64_t promote_failed;    /* proposed, but the actuator failed them (feedback) */
	uint64_t demote_attempts;   /* cold pages proposed for staging demotion */
	uint64_t demote_no_room;    /* of those, left: the lowest tier was full */
	uint64_t demote_failed;     /* proposed, but the actuator failed them (feedback) */
};

/* Copies the counters of a Mole state (as its init returned it). */
void tierd_mole_stats(const void *state, struct tierd_mole_stats *ret);

/* A tier's current threshold bucket (0..31), TIERD_MOLE_NO_THRESHOLD (-1)
 * when no interval belongs there or nothing was observed yet. */
int tierd_mole_threshold(const void *state, size_t tier);

/* Mole's params (tierd-policy(5)); config/strategy_keys.c reads and checks
 * them. */
struct tierd_mole_params {
	uint64_t scan_period_usec;          /* T (§4.3) */
	uint64_t time_threshold_usec;       /* §4.4 */
	uint64_t headroom_pmy;              /* §4.4 free-space reserve */
	size_t nr_multipliers;              /* 0: the §5 default */
	uint32_t multipliers[TIERD_MAX_TIERS];
};

void tierd_mole_params_default(struct tierd_mole_params *p);

#endif
