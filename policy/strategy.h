/* Pluggable tiering strategies, sched_ext style: each is an ops table the
 * engine calls per cgroup (init with the policy's typed params, observe the tick's
 * hotness, plan actions, free). A strategy proposes; the engine disposes:
 * it clips every action to the migration budgets, the cgroup's tier shares
 * and the free bytes of the destination tier. Pure: no I/O, no clock reads,
 * no globals; `now` comes in the input. */
#ifndef TIERD_STRATEGY_H
#define TIERD_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "hotness.h"
#include "policy.h"

#define TIERD_SHARE_NONE UINT64_MAX /* no cap on a tier */

struct tierd_strategy_params;

struct tierd_strategy_input {
	uint64_t now_usec;
	const struct tierd_topology *topo;
	const struct tierd_cgroup_obs *obs;
	const struct tierd_hotness *hot;          /* never NULL; may be empty */
	const struct tierd_feedback *feedback;    /* last tick's outcome; never NULL */
	const struct tierd_cgroup_standing *standing;
	/* Bytes this cgroup may hold per tier: under a max, the ceiling the
	 * engine set after enforcement (engine.h); else its pool share of the
	 * fast tier; TIERD_SHARE_NONE where nothing caps it. */
	uint64_t share_bytes[TIERD_MAX_TIERS];
	/* Free bytes per tier not yet planned into by anyone this tick. */
	uint64_t room_bytes[TIERD_MAX_TIERS];
	/* Bytes the cgroup may still move this tick (migration budgets). */
	uint64_t budget_bytes;
	size_t cgroup;                            /* index to put in actions */
};

struct tierd_action_list {
	size_t nr, cap;
	struct tierd_action *items;
};

/* Returns 0 or -ENOMEM. */
int tierd_action_list_push(struct tierd_action_list *l, const struct tierd_action *a);
void tierd_action_list_free(struct tierd_action_list *l);

struct tierd_strategy_ops {
	const char *name;
	/* Creates the state from the policy's typed params, as the
	 * configuration loader read and checked them (NULL: the strategy's
	 * defaults). -EINVAL when they are another strategy's; -ENOMEM. */
	int (*init)(const struct tierd_strategy_params *params, void **ret_state);
	/* Profiling period it wants per tier (Mole's tier-specific profiling
	 * periods), in usec; leaves 0 where it has no preference. May be NULL.
	 * What a period becomes: tierd_profile_aggr_usec(). */
	void (*profile)(void *state, const struct tierd_topology *topo, uint64_t *interval_usec);
	/* Takes in this tick's observations (histograms, queues, counters). */
	void (*observe)(void *state, const struct tierd_strategy_input *in);
	/* Appends the actions it wants, most important first. -ENOMEM. */
	int (*plan)(void *state, const struct tierd_strategy_input *in, struct tierd_action_list *out);
	void (*free)(void *state);
};

/* A profiling period is how often a tier's DAMON regions are read (every
 * tick without one); the tier's kdamond aggregates over a tenth of it,
 * between these bounds, sampling 20 times a window (DAMON's ratio). The
 * daemon and tiersim both take it through tierd_profile_aggr_usec(). A
 * region reading covers one window, and a DAMON sysfs command waits up to
 * one window for its kdamond, so windows stay short. */
#define TIERD_PROFILE_AGGR_DEFAULT_USEC 100000u /* DAMON's aggr_us default */
#define TIERD_PROFILE_AGGR_MIN_USEC 20000u
#define TIERD_PROFILE_AGGR_MAX_USEC 100000u
#define TIERD_PROFILE_AGGRS_PER_PERIOD 10u

static inline uint64_t tierd_profile_aggr_usec(uint64_t period_usec)
{
	uint64_t a = period_usec / TIERD_PROFILE_AGGRS_PER_PERIOD;

	if (!period_usec)
		return TIERD_PROFILE_AGGR_DEFAULT_USEC;
	if (a < TIERD_PROFILE_AGGR_MIN_USEC)
		return TIERD_PROFILE_AGGR_MIN_USEC;
	return a < TIERD_PROFILE_AGGR_MAX_USEC ? a : TIERD_PROFILE_AGGR_MAX_USEC;
}

/* The ops of a strategy; NULL for TIERD_STRATEGY_NONE (observe only). */
const struct tierd_strategy_ops *tierd_strategy_get(enum tierd_strategy s);

extern const struct tierd_strategy_ops tierd_strategy_exchange;
extern const struct tierd_strategy_ops tierd_strategy_mole;
extern const struct tierd_strategy_ops tierd_strategy_migflow;
extern const struct tierd_strategy_ops tierd_strategy_hmmv;
extern const struct tierd_strategy_ops tierd_strategy_linux;
extern const struct tierd_strategy_ops tierd_strategy_autotiering;

#endif
