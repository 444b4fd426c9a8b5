/* The per-tick ledger strategies book their proposals in; see
 * strategy_ledger.h. */
#include <string.h>

#include "strategy_ledger.h"
#include "util.h"

void tierd_ledger_init(struct tierd_ledger *l, const struct tierd_strategy_input *in,
		       struct tierd_action_list *out)
{
	memset(l, 0, sizeof(*l));
	l->nr_tiers = tierd_min_u64(in->topo->nr_tiers, TIERD_MAX_TIERS);
	l->cgroup = in->cgroup;
	l->budget = in->budget_bytes;
	l->out = out;
	for (size_t t = 0; t < l->nr_tiers; t++) {
		const struct tierd_cgroup_standing *st = in->standing;
		uint64_t held = st ? st->tiers[t].anon_bytes + st->tiers[t].file_bytes : 0;

		l->room[t] = in->room_bytes[t];
		if (in->share_bytes[t] == TIERD_SHARE_NONE)
			l->take[t] = TIERD_SHARE_NONE;
		else
			l->take[t] = in->share_bytes[t] - tierd_min_u64(held, in->share_bytes[t]);
	}
}

uint64_t tierd_ledger_fits(const struct tierd_ledger *l, size_t tier)
{
	return tierd_page_down(tierd_min_u64(l->room[tier], l->take[tier]));
}

bool tierd_ledger_has_budget(const struct tierd_ledger *l)
{
	return l->budget >= TIERD_PAGE_BYTES;
}

uint64_t tierd_ledger_budget_clip(const struct tierd_ledger *l, uint64_t bytes)
{
	return tierd_page_down(tierd_min_u64(bytes, l->budget));
}

uint64_t tierd_ledger_region_clip(const struct tierd_ledger *l, const struct tierd_region *reg,
				  uint64_t bytes)
{
	if (reg)
		bytes = tierd_min_u64(bytes, tierd_region_share(reg, l->budget));
	return tierd_ledger_budget_clip(l, bytes);
}

/* Books a move of `bytes` from one tier to another as the engine will:
 * the destination fills, the source frees, the budget pays `cost`
 * (tierd_action_cost). Never below 0, should a caller overreach. */
static void book(struct tierd_ledger *l, size_t from, size_t to, uint64_t bytes, uint64_t cost)
{
	l->room[to] -= tierd_min_u64(l->room[to], bytes);
	l->room[from] = tierd_add_sat(l->room[from], bytes);
	if (l->take[to] != TIERD_SHARE_NONE)
		l->take[to] -= tierd_min_u64(l->take[to], bytes);
	if (l->take[from] != TIERD_SHARE_NONE)
		l->take[from] = tierd_add_sat(l->take[from], bytes);
	l->budget -= tierd_min_u64(l->budget, cost);
}

int tierd_ledger_move(struct tierd_ledger *l, enum tierd_reason reason, size_t from, size_t to,
		      uint64_t start, uint64_t bytes)
{
	return tierd_ledger_move_span(l, reason, from, to, start, start + bytes, bytes);
}

int tierd_ledger_move_span(struct tierd_ledger *l, enum tierd_reason reason, size_t from,
			   size_t to, uint64_t start, uint64_t end, uint64_t bytes)
{
	const struct tierd_action a = {
		.kind = TIERD_ACTION_MIGRATE,
		.reason = reason,
		.cgroup = l->cgroup,
		.from_tier = from,
		.to_tier = to,
		.start = start,
		.end = end,
		.bytes = bytes,
	};
	int r;

	r = tierd_action_list_push(l->out, &a);
	if (r < 0)
		return r;
	book(l, from, to, bytes, end - start);
	return 0;
}

int tierd_ledger_demote(struct tierd_ledger *l, enum tierd_reason reason, size_t from, size_t to,
			uint64_t bytes)
{
	const struct tierd_action a = {
		.kind = TIERD_ACTION_DEMOTE,
		.reason = reason,
		.cgroup = l->cgroup,
		.from_tier = from,
		.to_tier = to,
		.bytes = bytes,
	};
	int r;

	r = tierd_action_list_push(l->out, &a);
	if (r < 0)
		return r;
	book(l, from, to, bytes, bytes);
	return 0;
}
