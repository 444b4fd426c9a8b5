/* The decision core's entry point. Pure: takes the tick's snapshot, the
 * policies matched to each cgroup and their hotness observations, returns
 * plain structs: each cgroup's standing against its per-tier budgets and the
 * plan of actions, each with the rule that produced it. No I/O, no clock
 * reads, no globals: the daemon and the simulator (bench/) drive the same
 * function. Everything remembered between ticks (strategy state, migration
 * budget buckets) lives in the explicit struct tierd_engine.
 *
 * Order of a tick: budgets first (a cgroup over a tier's max is demoted
 * before anything else, whatever its strategy), then the mins (a cgroup
 * below a tier's min gets its memory on slower tiers that was seen accessed
 * promoted there, hottest first, room made by demoting the coldest memory
 * of cgroups of no higher priority above their own mins), then each
 * cgroup's strategy by policy priority. Every action is clipped to the global and per-cgroup migration budgets,
 * the cgroup's share of the destination tier, and the bytes that tier has
 * free. */
#ifndef TIERD_ENGINE_H
#define TIERD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hotness.h"
#include "policy.h"
#include "snapshot.h"

struct tierd_engine_cgroup {
	const struct tierd_cgroup_obs *obs;     /* obs->id keys the strategy state */
	const struct tierd_policy *policy;
	const struct tierd_hotness *hot;        /* NULL: nothing observed */
	const struct tierd_feedback *feedback;  /* NULL: no report */
};

struct tierd_engine_input {
	uint64_t now_usec;
	const struct tierd_topology *topo;
	struct tierd_migration_budget global_budget; /* bytes per period, all cgroups */
	size_t nr_cgroups;
	const struct tierd_engine_cgroup *cgroups;
};

/* One cgroup's standing on one tier. */
struct tierd_tier_standing {
	uint64_t anon_bytes;
	uint64_t file_bytes;
	bool has_max;
	uint64_t max_bytes;        /* resolved budget in force */
	bool has_min;
	uint64_t min_bytes;
	uint64_t over_bytes;       /* usage above max, else 0 */
	uint64_t fill_bytes;       /* with a max: the max less its band, where
				    * promotions stop and enforcement demotes to */
	uint64_t ceiling_bytes;    /* with a max: what promotions may raise it to
				    * this tick, after enforcement (engine.c) */
	uint64_t under_min_bytes;  /* min above usage, else 0 */
};

struct tierd_cgroup_standing {
	size_t cgroup;             /* index into tierd_engine_input.cgroups */
	uint64_t usage_bytes;      /* anon + file over all tiers */
	struct tierd_tier_standing tiers[TIERD_MAX_TIERS];
	bool over_budget;          /* over max on any tier */
	/* Bytes it may hold per tier this tick: its max budget, or for tier 0
	 * in pool mode its pool share; UINT64_MAX where nothing caps it. */
	uint64_t share_bytes[TIERD_MAX_TIERS];
	int strategy_error;        /* -errno when its strategy could not run */
};

enum tierd_action_kind {
	TIERD_ACTION_DEMOTE,       /* move `bytes` of the cgroup's coldest memory down
				    * (memory.reclaim-like: no address range) */
	TIERD_ACTION_MIGRATE,      /* move the range [start, end) to tier to_tier */
};

/* Why an action was planned: the rule that produced it. X(id, name). */
#define TIERD_REASONS(X)                                                       \
	X(TIERD_REASON_OVER_TIER_MAX, "over-tier-max")                         \
	X(TIERD_REASON_STAGING_DEMOTION, "staging-demotion")                   \
	X(TIERD_REASON_TARGETED_PROMOTION, "targeted-promotion")               \
	X(TIERD_REASON_PROMOTION_FALLBACK, "promotion-fallback")               \
	X(TIERD_REASON_DEFERRED_PROMOTION, "deferred-promotion-retry")         \
	X(TIERD_REASON_QUICK_DEMOTION, "quick-demotion")                       \
	X(TIERD_REASON_COST_BENEFIT_PROMOTION, "cost-benefit-promotion")       \
	X(TIERD_REASON_LFU_DEMOTION, "lfu-demotion")                           \
	X(TIERD_REASON_HOT_SET_PROMOTION, "hot-set-promotion")                 \
	X(TIERD_REASON_EXCHANGE_DEMOTION, "exchange-demotion")                 \
	X(TIERD_REASON_FAULT_PROMOTION, "fault-promotion")                     \
	X(TIERD_REASON_WATERMARK_DEMOTION, "watermark-demotion")               \
	X(TIERD_REASON_GREEDY_PROMOTION, "greedy-promotion")                   \
	X(TIERD_REASON_STEPWISE_DEMOTION, "stepwise-demotion")                 \
	X(TIERD_REASON_MIN_PROTECTION, "min-protection")                       \
	X(TIERD_REASON_MIN_ROOM_DEMOTION, "min-room-demotion")                 \
	X(TIERD_REASON_EXCHANGE_PROMOTION, "exchange-promotion")               \
	X(TIERD_REASON_RESERVE_DEMOTION, "reserve-demotion")

enum tierd_reason {
#define TIERD_X(id, name) id,
	TIERD_REASONS(TIERD_X)
#undef TIERD_X
	TIERD_REASON_NR
};

struct tierd_action {
	enum tierd_action_kind kind;
	enum tierd_reason reason;
	size_t cgroup;             /* index into tierd_engine_input.cgroups */
	size_t from_tier;
	size_t to_tier;
	uint64_t start, end;       /* MIGRATE: the range, page aligned */
	uint64_t bytes;            /* what it is expected to move: a DEMOTE's
				    * bytes; a MIGRATE's span or, when the span
				    * is not full of the cgroup's memory, fewer */
};

/* What an action costs the migration budgets: what it may move at most. A
 * MIGRATE's span can hold more of the cgroup's memory than it was
 * expected to move (memory that arrived since it was observed), never more
 * than the span; a DEMOTE's spans are cut to its bytes (cold_spans.h). */
static inline uint64_t tierd_action_cost(const struct tierd_action *a)
{
	return a->kind == TIERD_ACTION_MIGRATE ? a->end - a->start : a->bytes;
}

struct tierd_plan {
	size_t nr_cgroups;
	struct tierd_cgroup_standing *standings; /* one per input cgroup */
	size_t nr_actions;
	struct tierd_action *actions;  /* in the order to carry them out */
	size_t nr_over_budget;     /* cgroups over max on some tier */
	uint64_t planned_bytes;    /* sum of action bytes */
	uint64_t charged_bytes;    /* sum of action costs (tierd_action_cost) */
	size_t nr_clipped;         /* strategy actions cut short or dropped by a limit */
	uint64_t clipped_bytes;
};

/* The engine's memory between ticks. */
struct tierd_engine;

/* Returns 0 or -ENOMEM. */
int tierd_engine_new(struct tierd_engine **ret);
void tierd_engine_free(struct tierd_engine *e);

/* Resolves an amount to bytes against a cgroup's usage and a tier's capacity. */
uint64_t tierd_amount_resolve(const struct tierd_amount *a, uint64_t usage_bytes,
			      uint64_t tier_capacity_bytes);

/* Resolves a policy's tier selector against the topology: the tier index
 * (for a node list, the tier holding all of its nodes), or -1 when the
 * selector names no tier of this machine. */
int tierd_budget_tier(const struct tierd_tier_budget *b, const struct tierd_topology *topo);

/* Computes the plan and spends the migration budgets on it. A cgroup whose
 * strategy fails to start (bad params) keeps its budget enforcement; its
 * standing says why. Returns 0 or -ENOMEM; on error *out is left empty. */
int tierd_engine_plan(struct tierd_engine *e, const struct tierd_engine_input *in,
		      struct tierd_plan *out);
void tierd_plan_free(struct tierd_plan *plan);

/* Gives back to the global budget and the cgroup's `cost` bytes of what
 * action a of the plan made for in cost (tierd_action_cost(a) for all of
 * it): an actuator could not carry it out (DAMON's worker still busy, or
 * DAMOS pacing left part of it), so that a tick that moved nothing spent
 * nothing. Within the same tick as the plan. */
void tierd_engine_refund(struct tierd_engine *e, const struct tierd_engine_input *in,
			 const struct tierd_action *a, uint64_t cost);

/* Per-tier sampling intervals the cgroup's strategy asks for (usec, 0 = no
 * preference); all 0 for a cgroup the engine has not planned for yet. */
void tierd_engine_profile(const struct tierd_engine *e, uint64_t cgroup_id,
			  const struct tierd_topology *topo, uint64_t *interval_usec);

/* The strategy state the engine keeps for a cgroup, for the statistics
 * accessors in policy/strategy_<name>.h (the simulator reports them), or
 * NULL when it has none; *ret_strategy says whose state it is. */
const void *tierd_engine_strategy_state(const struct tierd_engine *e, uint64_t cgroup_id,
					enum tierd_strategy *ret_strategy);

/* Pool mode (HMM-V §3.4): the fast tier shared by
 * measured need. Each member i starts from initial[i]; it keeps at least
 * floor_pmy of it; above the floors, the pool (sum of initial shares) goes to
 * need[i], scaled down in proportion when needs exceed it. Writes share[]. */
void tierd_pool_shares(size_t n, const uint64_t *initial, const uint64_t *need,
		       uint32_t floor_pmy, uint64_t *share);
/* HMM-V's pool floor: 75% of the initial share. */
#define TIERD_POOL_FLOOR_PMY 7500u

const char *tierd_reason_name(enum tierd_reason r);

#endif
