/* The decision core, budget part: resolve each cgroup's per-tier budgets,
 * measure where it stands, and plan the demotions that would bring it back
 * under its maxima, bounded by the migration budgets and by the free bytes of
 * the tiers the bytes would go to. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "units.h"

uint64_t tierd_amount_resolve(const struct tierd_amount *a, uint64_t usage_bytes,
			      uint64_t tier_capacity_bytes)
{
	switch (a->kind) {
	case TIERD_AMOUNT_BYTES:
		return a->bytes;
	case TIERD_AMOUNT_PCT_USAGE:
		return (uint64_t)((unsigned __int128)usage_bytes * a->pmy / TIERD_PMY_ONE);
	case TIERD_AMOUNT_PCT_CAPACITY:
		return (uint64_t)((unsigned __int128)tier_capacity_bytes * a->pmy / TIERD_PMY_ONE);
	}
	return 0;
}

int tierd_budget_tier(const struct tierd_tier_budget *b, const struct tierd_topology *topo)
{
	int tier = -1;

	if (b->selector == TIERD_SELECT_INDEX)
		return b->index >= 0 && (size_t)b->index < topo->nr_tiers ? b->index : -1;
	/* A node list names the tier holding all of its nodes. */
	for (int nid = tierd_nodeset_next(&b->nodes, -1); nid >= 0;
	     nid = tierd_nodeset_next(&b->nodes, nid)) {
		int i = tierd_topology_node_index(topo, nid);

		if (i < 0 || (tier >= 0 && topo->nodes[i].tier != tier))
			return -1;
		tier = topo->nodes[i].tier;
	}
	return tier;
}

static void measure(const struct tierd_topology *topo, const struct tierd_engine_cgroup *cg,
		    struct tierd_cgroup_standing *st)
{
	st->usage_bytes = tierd_cgroup_total_bytes(topo, cg->obs);
	for (size_t t = 0; t < topo->nr_tiers; t++)
		(void)tierd_cgroup_tier_bytes(topo, cg->obs, t, &st->tiers[t].anon_bytes,
					      &st->tiers[t].file_bytes);

	for (size_t i = 0; i < cg->policy->nr_tiers; i++) {
		const struct tierd_tier_budget *b = &cg->policy->tiers[i];
		int t = tierd_budget_tier(b, topo);
		struct tierd_tier_standing *ts;
		uint64_t used;

		if (t < 0)
			continue;
		ts = &st->tiers[t];
		used = ts->anon_bytes + ts->file_bytes;
		ts->has_max = true;
		ts->max_bytes = tierd_amount_resolve(&b->max, st->usage_bytes,
						     topo->tiers[t].total_bytes);
		ts->over_bytes = used > ts->max_bytes ? used - ts->max_bytes : 0;
		if (b->has_min) {
			ts->has_min = true;
			ts->min_bytes = tierd_amount_resolve(&b->min, st->usage_bytes,
							     topo->tiers[t].total_bytes);
			ts->under_min_bytes = ts->min_bytes > used ? ts->min_bytes - used : 0;
		}
		if (ts->over_bytes)
			st->over_budget = true;
	}
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Bytes a cgroup's policy lets it move this tick; UINT64_MAX when only the
 * global budget applies. */
static uint64_t cgroup_budget(const struct tierd_policy *p)
{
	return p->has_migration_budget ? p->migration_budget.bytes : UINT64_MAX;
}

int tierd_engine_plan(const struct tierd_engine_input *in, uint64_t global_budget_bytes,
		      struct tierd_plan *out)
{
	const struct tierd_topology *topo = in->topo;
	uint64_t room[TIERD_MAX_TIERS];
	uint64_t global_left = global_budget_bytes;
	struct tierd_plan plan = { 0 };
	uint64_t *cgroup_left = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	plan.nr_cgroups = in->nr_cgroups;
	if (in->nr_cgroups) {
		plan.standings = calloc(in->nr_cgroups, sizeof(*plan.standings));
		/* At most one demotion per tier and cgroup. */
		plan.actions = calloc(in->nr_cgroups * topo->nr_tiers, sizeof(*plan.actions));
		cgroup_left = calloc(in->nr_cgroups, sizeof(*cgroup_left));
		if (!plan.standings || !plan.actions || !cgroup_left) {
			r = -ENOMEM;
			goto fail;
		}
	}
	for (size_t t = 0; t < topo->nr_tiers; t++)
		room[t] = topo->tiers[t].free_bytes;

	for (size_t c = 0; c < in->nr_cgroups; c++) {
		plan.standings[c].cgroup = c;
		cgroup_left[c] = cgroup_budget(in->cgroups[c].policy);
		measure(topo, &in->cgroups[c], &plan.standings[c]);
		if (plan.standings[c].over_budget)
			plan.nr_over_budget++;
	}

	/* Tier by tier from the fastest: bytes over a tier's max go one tier
	 * down, never more than the tier below has free. */
	for (size_t t = 0; t + 1 < topo->nr_tiers; t++) {
		for (size_t c = 0; c < in->nr_cgroups && global_left; c++) {
			struct tierd_tier_standing *ts = &plan.standings[c].tiers[t];
			struct tierd_action *a;
			uint64_t bytes;

			if (!ts->over_bytes)
				continue;
			bytes = min_u64(ts->over_bytes, min_u64(cgroup_left[c], global_left));
			bytes = min_u64(bytes, room[t + 1]);
			if (!bytes)
				continue;
			a = &plan.actions[plan.nr_actions++];
			a->kind = TIERD_ACTION_DEMOTE;
			a->reason = TIERD_REASON_OVER_TIER_MAX;
			a->cgroup = c;
			a->from_tier = t;
			a->to_tier = t + 1;
			a->bytes = bytes;
			room[t + 1] -= bytes;
			cgroup_left[c] -= bytes;
			global_left -= bytes;
			plan.planned_bytes += bytes;
		}
	}
	*out = plan;
	free(cgroup_left);
	return 0;
fail:
	free(cgroup_left);
	tierd_plan_free(&plan);
	return r;
}

void tierd_plan_free(struct tierd_plan *plan)
{
	free(plan->standings);
	free(plan->actions);
	memset(plan, 0, sizeof(*plan));
}

const char *tierd_reason_name(enum tierd_reason r)
{
	switch (r) {
	case TIERD_REASON_OVER_TIER_MAX:
		return "over-tier-max";
	}
	return "?";
}
