/* The decision core's entry point. Pure: takes the tick's snapshot and the
 * policies matched to each cgroup, returns plain structs: each cgroup's
 * standing against its per-tier budgets and the plan of moves it would need.
 * No I/O, no clock reads, no globals: the daemon and (later) the simulator
 * drive the same function.
 *
 * In this release the plan holds only budget-enforcing demotions; the
 * strategies (mole, migflow, hmmv, linux) plug in behind the same interface. */
#ifndef TIERD_ENGINE_H
#define TIERD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "snapshot.h"

struct tierd_engine_cgroup {
	const struct tierd_cgroup_obs *obs;
	const struct tierd_policy *policy;
};

struct tierd_engine_input {
	uint64_t now_usec;
	const struct tierd_topology *topo;
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
	uint64_t under_min_bytes;  /* min above usage, else 0 */
};

struct tierd_cgroup_standing {
	size_t cgroup;             /* index into tierd_engine_input.cgroups */
	uint64_t usage_bytes;      /* anon + file over all tiers */
	struct tierd_tier_standing tiers[TIERD_MAX_TIERS];
	bool over_budget;          /* over max on any tier */
};

enum tierd_action_kind {
	TIERD_ACTION_DEMOTE,       /* move bytes of a cgroup from one tier down */
};

/* Why an action was planned: the rule that produced it. */
enum tierd_reason {
	TIERD_REASON_OVER_TIER_MAX, /* usage above the tier's max budget */
};

struct tierd_action {
	enum tierd_action_kind kind;
	enum tierd_reason reason;
	size_t cgroup;             /* index into tierd_engine_input.cgroups */
	size_t from_tier;
	size_t to_tier;
	uint64_t bytes;
};

struct tierd_plan {
	size_t nr_cgroups;
	struct tierd_cgroup_standing *standings; /* one per input cgroup */
	size_t nr_actions;
	struct tierd_action *actions;
	size_t nr_over_budget;     /* cgroups over max on some tier */
	uint64_t planned_bytes;    /* sum of action bytes */
};

/* Resolves an amount to bytes against a cgroup's usage and a tier's capacity. */
uint64_t tierd_amount_resolve(const struct tierd_amount *a, uint64_t usage_bytes,
			      uint64_t tier_capacity_bytes);

/* Resolves a policy's tier selector against the topology: the tier index
 * (for a node list, the tier holding all of its nodes), or -1 when the
 * selector names no tier of this machine. */
int tierd_budget_tier(const struct tierd_tier_budget *b, const struct tierd_topology *topo);

/* Computes the plan. The global migration budget (bytes this tick may move)
 * caps the actions; per-policy budgets cap each cgroup's share.
 * Returns 0 or -ENOMEM; on error *out is left empty. */
int tierd_engine_plan(const struct tierd_engine_input *in, uint64_t global_budget_bytes,
		      struct tierd_plan *out);
void tierd_plan_free(struct tierd_plan *plan);

const char *tierd_reason_name(enum tierd_reason r);

#endif
