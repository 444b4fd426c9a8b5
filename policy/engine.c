/* The decision core: budgets first, then each cgroup's strategy, every
 * action clipped to the migration budgets, the cgroup's tier shares and the
 * free bytes of the destination tier. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "budget_bucket.h"
#include "engine.h"
#include "pool_need.h"
#include "strategy.h"
#include "units.h"
#include "util.h"

/* A cgroup missing from a few ticks (a file it could not read, a slow
 * listing) keeps its strategy state and budget bucket; one gone longer is
 * forgotten. */
#define ENGINE_STATE_GRACE_TICKS 10
/* The mins' reserve is at most 1/2 of the global budget left (our choice:
 * a min can starve max enforcement no more than the other way round). */
#define ENGINE_MIN_RESERVE_DIVISOR 2
/* A tier's max keeps a band below it that promotions do not fill and that
 * enforcement demotes back to: what a cgroup allocates between two ticks
 * then lands in the band instead of over the max, and a cgroup at its max
 * is not demoted and promoted again every tick. 1/64 of the max (our
 * choice: every cgroup gives up the same part of its cap), at least a
 * page, at most half the max. A fixed floor such as a huge page would cost
 * a small cap much of itself: in tiersim's multi-tenant-island, where a
 * share is a few MiB, a 2 MiB floor made every strategy but one worse. */
#define ENGINE_MAX_BAND_DIVISOR 64
#define ENGINE_MAX_BAND_MIN_BYTES TIERD_PAGE_BYTES

/* What the engine remembers of one cgroup between ticks. */
struct cgroup_state {
	uint64_t id;
	enum tierd_strategy strategy;
	char *params;                    /* to notice a reload that changed them */
	const struct tierd_strategy_ops *ops;
	void *state;
	int error;                       /* init failure, -errno */
	struct tierd_budget_bucket budget; /* its policy's migration budget */
	bool seen;
	unsigned missed;                 /* ticks in a row it was not planned for */
	struct tierd_pool_need need;     /* pool mode: its last readings */
};

struct tierd_engine {
	size_t nr, cap;
	struct cgroup_state *cgroups;    /* sorted by id */
	struct tierd_budget_bucket budget; /* the global migration budget */
};

/* Per-tick bookkeeping while the plan is built. */
struct tick {
	const struct tierd_engine_input *in;
	struct tierd_plan *plan;
	struct tierd_action_list actions; /* plan->actions points into it */
	uint64_t room[TIERD_MAX_TIERS];
	uint64_t (*held)[TIERD_MAX_TIERS];  /* per cgroup: bytes on each tier, as planned */
	uint64_t (*ceiling)[TIERD_MAX_TIERS]; /* per cgroup: what promotions may fill to */
	uint64_t *cgroup_left;
	uint64_t global_left;
	bool *min_moved;                  /* per cgroup: its min planned promotions */
};

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

void tierd_pool_shares(size_t n, const uint64_t *initial, const uint64_t *need,
		       uint32_t floor_pmy, uint64_t *share)
{
	unsigned __int128 pool = 0, floors = 0, wants = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t floor = (uint64_t)((unsigned __int128)initial[i] * floor_pmy / TIERD_PMY_ONE);

		pool += initial[i];
		floors += floor;
		share[i] = floor;
		if (need[i] > floor)
			wants += need[i] - floor;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t want = need[i] > share[i] ? need[i] - share[i] : 0;

		if (wants <= pool - floors)
			share[i] += want;
		else
			share[i] += (uint64_t)(want * (pool - floors) / wants);
	}
}

/* The max less its band (ENGINE_MAX_BAND_DIVISOR). */
static uint64_t fill_line(uint64_t max_bytes)
{
	uint64_t band = tierd_max_u64(max_bytes / ENGINE_MAX_BAND_DIVISOR, ENGINE_MAX_BAND_MIN_BYTES);

	return max_bytes - tierd_min_u64(band, max_bytes / 2);
}

static void measure(const struct tierd_topology *topo, const struct tierd_engine_cgroup *cg,
		    struct tierd_cgroup_standing *st)
{
	st->usage_bytes = tierd_cgroup_total_bytes(topo, cg->obs);
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++)
		st->share_bytes[t] = UINT64_MAX;
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
		ts->fill_bytes = fill_line(ts->max_bytes);
		st->share_bytes[t] = ts->max_bytes;
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

/* Bytes of memory a cgroup's hotness showed in use over its last readings
 * (pool_need.h); without any, what it holds on the fast tier. */
static int measured_need(struct cgroup_state *s, const struct tierd_engine_cgroup *cg,
			 const struct tierd_cgroup_standing *st, uint64_t *ret_bytes)
{
	int r = tierd_pool_need_update(&s->need, cg->hot, ret_bytes);

	if (r < 0)
		return r;
	if (!*ret_bytes && (!cg->hot || !cg->hot->nr_regions))
		*ret_bytes = st->tiers[0].anon_bytes + st->tiers[0].file_bytes;
	return 0;
}

static struct cgroup_state *find_state(const struct tierd_engine *e, uint64_t id);

/* Pool members share tier 0 by need; island members keep fixed shares. */
static int pool_shares(struct tierd_engine *e, const struct tierd_engine_input *in,
		       struct tierd_plan *plan)
{
	size_t n = 0, k = 0, nr_without_max = 0;
	uint64_t *initial, *need, *share, free_share;
	uint64_t capacity = in->topo->tiers[0].total_bytes;
	int r = 0;

	for (size_t c = 0; c < in->nr_cgroups; c++)
		n += in->cgroups[c].policy->sharing == TIERD_SHARING_POOL;
	if (!n)
		return 0;
	initial = calloc(n, sizeof(*initial));
	need = calloc(n, sizeof(*need));
	share = calloc(n, sizeof(*share));
	if (!initial || !need || !share) {
		r = -ENOMEM;
		goto out;
	}
	/* A member without a tier-0 max starts from an equal split. */
	for (size_t c = 0; c < in->nr_cgroups; c++)
		nr_without_max += in->cgroups[c].policy->sharing == TIERD_SHARING_POOL &&
				     !plan->standings[c].tiers[0].has_max;
	free_share = nr_without_max ? capacity / n : 0;
	for (size_t c = 0; c < in->nr_cgroups; c++) {
		const struct tierd_cgroup_standing *st = &plan->standings[c];

		if (in->cgroups[c].policy->sharing != TIERD_SHARING_POOL)
			continue;
		initial[k] = st->tiers[0].has_max ? st->tiers[0].max_bytes : free_share;
		r = measured_need(find_state(e, in->cgroups[c].obs->id), &in->cgroups[c], st,
				  &need[k]);
		if (r < 0)
			goto out;
		k++;
	}
	tierd_pool_shares(n, initial, need, TIERD_POOL_FLOOR_PMY, share);
	k = 0;
	for (size_t c = 0; c < in->nr_cgroups; c++) {
		struct tierd_cgroup_standing *st = &plan->standings[c];

		if (in->cgroups[c].policy->sharing != TIERD_SHARING_POOL)
			continue;
		/* A tier-0 max stays a hard cap: the pool shares below it. */
		st->share_bytes[0] = st->tiers[0].has_max ? tierd_min_u64(share[k], st->tiers[0].max_bytes)
							  : share[k];
		k++;
	}
out:
	free(initial);
	free(need);
	free(share);
	return r;
}

static int push_action(struct tick *tk, const struct tierd_action *a)
{
	int r = tierd_action_list_push(&tk->actions, a);

	tk->plan->actions = tk->actions.items;
	tk->plan->nr_actions = tk->actions.nr;
	return r;
}

/* Bytes cgroup c may put on tier `to` now, moving them from tier `from`:
 * room and share (for a promotion, the ceiling under a max). */
static uint64_t room_into(const struct tick *tk, size_t c, size_t from, size_t to)
{
	uint64_t share = tk->plan->standings[c].share_bytes[to];
	uint64_t held = tk->held[c][to];
	uint64_t limit = tk->room[to];

	if (to < from && tk->plan->standings[c].tiers[to].has_max)
		share = tierd_min_u64(share, tk->ceiling[c][to]);
	if (share != UINT64_MAX)
		limit = tierd_min_u64(limit, share > held ? share - held : 0);
	return limit;
}

/* What cgroup c's migration budget and the global one still let it move. */
static uint64_t budget_left(const struct tick *tk, size_t c)
{
	return tierd_min_u64(tk->cgroup_left[c], tk->global_left);
}

/* room_into() within the budgets, for moves that cost what they move. */
static uint64_t limit_into(const struct tick *tk, size_t c, size_t from, size_t to)
{
	return tierd_min_u64(room_into(tk, c, from, to), budget_left(tk, c));
}

/* Books a move: `bytes` expected to leave `from` for `to`, `cost` spent of
 * the budgets (tierd_action_cost). */
static void account(struct tick *tk, size_t c, size_t from, size_t to, uint64_t bytes,
		    uint64_t cost)
{
	tk->room[to] -= bytes;
	tk->room[from] += bytes;
	tk->held[c][to] += bytes;
	tk->held[c][from] -= tierd_min_u64(tk->held[c][from], bytes);
	tk->cgroup_left[c] -= cost;
	tk->global_left -= cost;
	tk->plan->planned_bytes += bytes;
	tk->plan->charged_bytes += cost;
}

/* Demotes up to *left bytes of cgroup c's coldest memory out of tier t, the
 * lowest tier first, within what each can take: staging demotion (Mole
 * §4.5.1) keeps the intermediate tiers free for promotions; a tier without
 * room sends the rest one tier up. *left keeps what could not be planned. */
static int demote_staged(struct tick *tk, size_t c, size_t t, uint64_t *left,
			 enum tierd_reason reason)
{
	for (size_t to = tk->in->topo->nr_tiers - 1; to > t && *left; to--) {
		struct tierd_action a = { .kind = TIERD_ACTION_DEMOTE, .reason = reason,
					  .cgroup = c, .from_tier = t, .to_tier = to };
		int r;

		a.bytes = tierd_page_down(tierd_min_u64(*left, limit_into(tk, c, t, to)));
		if (!a.bytes)
			continue;
		r = push_action(tk, &a);
		if (r < 0)
			return r;
		account(tk, c, t, to, a.bytes, a.bytes);
		*left -= a.bytes;
	}
	return 0;
}

/* The global budget the mins' shortfalls may need: budget enforcement
 * leaves it, so one cgroup far over its max cannot empty the budget
 * while another waits below its min. Only shortfalls the mins can act on
 * (a cgroup with hotness, a tier with slower ones, within its own budget),
 * and never more than half: enforcement always moves. */
static uint64_t min_reserve(const struct tick *tk)
{
	uint64_t sum = 0;

	for (size_t c = 0; c < tk->in->nr_cgroups; c++) {
		if (!tk->in->cgroups[c].hot)
			continue;
		for (size_t t = 0; t + 1 < tk->in->topo->nr_tiers; t++)
			sum = tierd_add_sat(sum, tierd_min_u64(tk->plan->standings[c].tiers[t].under_min_bytes,
							       tk->cgroup_left[c]));
	}
	return tierd_min_u64(sum, tk->global_left / ENGINE_MIN_RESERVE_DIVISOR);
}

/* Budget enforcement: a cgroup over a tier's max is demoted to the max's
 * fill line, into the tiers below, within the global budget less the mins'
 * reserve. */
static int enforce_budgets(struct tick *tk)
{
	uint64_t reserve = min_reserve(tk);
	int r = 0;

	tk->global_left -= reserve;
	for (size_t t = 0; r == 0 && t + 1 < tk->in->topo->nr_tiers; t++) {
		for (size_t c = 0; r == 0 && c < tk->in->nr_cgroups; c++) {
			const struct tierd_tier_standing *ts = &tk->plan->standings[c].tiers[t];
			uint64_t left = ts->over_bytes ? tk->held[c][t] - ts->fill_bytes : 0;

			r = demote_staged(tk, c, t, &left, TIERD_REASON_OVER_TIER_MAX);
		}
	}
	tk->global_left += reserve;
	return r;
}

/* After enforcement: promotions raise a cgroup to its fill line, or keep
 * it where it is within the band (an exchange: what it demotes of its
 * own comes back up), never over its max. */
static void set_ceilings(struct tick *tk)
{
	for (size_t c = 0; c < tk->in->nr_cgroups; c++) {
		struct tierd_cgroup_standing *st = &tk->plan->standings[c];

		for (size_t t = 0; t < tk->in->topo->nr_tiers; t++) {
			struct tierd_tier_standing *ts = &st->tiers[t];

			if (!ts->has_max)
				continue;
			ts->ceiling_bytes = tierd_max_u64(ts->fill_bytes,
							  tierd_min_u64(tk->held[c][t], ts->max_bytes));
			tk->ceiling[c][t] = ts->ceiling_bytes;
		}
	}
}

/* Trims [*start, *end) to what no min-protection move of cgroup c took:
 * from the front where one covers the start, else up to the first one
 * inside it. Empty (*end <= *start) when nothing is left. */
static void trim_min_moved(const struct tick *tk, size_t c, uint64_t *start, uint64_t *end)
{
	bool trimmed = true;

	while (trimmed && *start < *end) {
		trimmed = false;
		for (size_t i = 0; i < tk->actions.nr; i++) {
			const struct tierd_action *m = &tk->actions.items[i];

			if (m->cgroup != c || m->reason != TIERD_REASON_MIN_PROTECTION ||
			    m->start >= *end || *start >= m->end)
				continue;
			if (m->start <= *start)
				*start = m->end;
			else
				*end = m->start;
			trimmed = true;
		}
	}
}

/* The bytes a proposal moves: a DEMOTE's, or a MIGRATE's span, or fewer
 * when the strategy knows the span is not full (tierd_region_bytes). */
static uint64_t proposal_bytes(const struct tierd_action *a)
{
	uint64_t span = a->end - a->start;

	if (a->kind != TIERD_ACTION_MIGRATE)
		return a->bytes;
	return a->bytes && a->bytes < span ? a->bytes : span;
}

/* Takes a strategy's proposal, clipped to every limit, or drops it. A
 * MIGRATE costs the budgets its span (tierd_action_cost); when trimmed or
 * clipped it keeps the front of its span, and the bytes it is expected to
 * move shrink in proportion, the span taken as evenly filled
 * (tierd_region_share). */
static int admit(struct tick *tk, size_t c, struct tierd_action a)
{
	const struct tierd_topology *topo = tk->in->topo;
	uint64_t want, cost, fit, bytes;

	a.cgroup = c;
	if (a.from_tier >= topo->nr_tiers || a.to_tier >= topo->nr_tiers ||
	    a.from_tier == a.to_tier || (a.kind == TIERD_ACTION_MIGRATE && a.end <= a.start)) {
		tk->plan->nr_clipped++;
		return 0;
	}
	want = proposal_bytes(&a);
	cost = tierd_action_cost(&a);
	/* What the cgroup's min moved this tick is not moved again. */
	if (a.kind == TIERD_ACTION_MIGRATE && tk->min_moved[c]) {
		uint64_t was = cost;

		trim_min_moved(tk, c, &a.start, &a.end);
		cost = a.end > a.start ? a.end - a.start : 0;
		want = (uint64_t)((unsigned __int128)want * cost / was);
	}
	fit = room_into(tk, c, a.from_tier, a.to_tier);
	if (a.kind == TIERD_ACTION_MIGRATE) {
		uint64_t len = tierd_min_u64(cost, budget_left(tk, c));

		if (want > fit)
			len = tierd_min_u64(len, (uint64_t)((unsigned __int128)fit * cost / want));
		len = tierd_page_down(len);
		bytes = len == cost ? want : tierd_page_down((uint64_t)((unsigned __int128)want * len / cost));
		cost = len;
	} else {
		bytes = cost = tierd_page_down(tierd_min_u64(want, tierd_min_u64(fit, budget_left(tk, c))));
	}
	if (bytes < want) {
		tk->plan->nr_clipped++;
		tk->plan->clipped_bytes += want - bytes;
	}
	if (!bytes)
		return 0;
	a.bytes = bytes;
	if (a.kind == TIERD_ACTION_MIGRATE)
		a.end = a.start + cost;
	account(tk, c, a.from_tier, a.to_tier, bytes, cost);
	return push_action(tk, &a);
}

static struct cgroup_state *find_state(const struct tierd_engine *e, uint64_t id)
{
	size_t lo = 0, hi = e->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e->cgroups[mid].id == id)
			return &e->cgroups[mid];
		if (e->cgroups[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void state_reset(struct cgroup_state *s)
{
	if (s->ops && s->state)
		s->ops->free(s->state);
	free(s->params);
	s->ops = NULL;
	s->state = NULL;
	s->params = NULL;
	s->error = 0;
}

/* A cgroup the engine stops remembering: its state and its pool need. */
static void state_forget(struct cgroup_state *s)
{
	state_reset(s);
	tierd_pool_need_free(&s->need);
}

static bool same_params(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The state of cgroup id under policy p: created on first sight, made anew
 * when a reload changed its strategy or params. */
static int get_state(struct tierd_engine *e, uint64_t id, const struct tierd_policy *p,
		     struct cgroup_state **ret)
{
	struct cgroup_state *s = find_state(e, id);

	if (!s) {
		size_t pos = 0;

		if (e->nr == e->cap) {
			size_t cap = e->cap ? e->cap * 2 : 16;
			struct cgroup_state *cg = realloc(e->cgroups, cap * sizeof(*cg));

			if (!cg)
				return -ENOMEM;
			e->cgroups = cg;
			e->cap = cap;
		}
		while (pos < e->nr && e->cgroups[pos].id < id)
			pos++;
		memmove(&e->cgroups[pos + 1], &e->cgroups[pos], (e->nr - pos) * sizeof(*s));
		e->nr++;
		s = &e->cgroups[pos];
		memset(s, 0, sizeof(*s));
		s->id = id;
		s->strategy = TIERD_STRATEGY_NR; /* forces the init below */
	}
	s->seen = true;
	*ret = s;
	if (s->strategy == p->strategy && same_params(s->params, p->strategy_params_json))
		return 0;
	state_reset(s);
	s->strategy = p->strategy;
	if (p->strategy_params_json) {
		s->params = strdup(p->strategy_params_json);
		if (!s->params) {
			s->strategy = TIERD_STRATEGY_NR;
			return -ENOMEM;
		}
	}
	s->ops = tierd_strategy_get(p->strategy);
	if (s->ops) {
		s->error = s->ops->init(p->strategy_params, &s->state);
		if (s->error == -ENOMEM) {
			/* Not a verdict on the params: try again next tick. */
			state_reset(s);
			s->strategy = TIERD_STRATEGY_NR;
			return -ENOMEM;
		}
	}
	return 0;
}

/* The cgroups' indexes by policy priority, highest first, stable within
 * one priority; NULL when out of memory. */
static size_t *priority_order(const struct tierd_engine_input *in)
{
	size_t *order = calloc(in->nr_cgroups + 1, sizeof(*order));

	if (!order)
		return NULL;
	for (size_t c = 0; c < in->nr_cgroups; c++) {
		size_t j = c;

		while (j > 0 && in->cgroups[order[j - 1]].policy->priority <
				       in->cgroups[c].policy->priority) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = c;
	}
	return order;
}

static int run_strategies(struct tierd_engine *e, struct tick *tk)
{
	const struct tierd_engine_input *in = tk->in;
	static const struct tierd_hotness no_hotness;
	static const struct tierd_feedback no_feedback;
	struct tierd_action_list proposed = { 0 };
	size_t *order;
	int r = 0;

	order = priority_order(in);
	if (!order)
		return -ENOMEM;
	for (size_t k = 0; k < in->nr_cgroups; k++) {
		size_t c = order[k];
		const struct tierd_engine_cgroup *cg = &in->cgroups[c];
		struct tierd_strategy_input si = { 0 };
		struct cgroup_state *s;

		r = get_state(e, cg->obs->id, cg->policy, &s);
		if (r < 0)
			break;
		tk->plan->standings[c].strategy_error = s->error;
		if (!s->ops || s->error)
			continue;
		si.now_usec = in->now_usec;
		si.topo = in->topo;
		si.obs = cg->obs;
		si.hot = cg->hot ? cg->hot : &no_hotness;
		si.feedback = cg->feedback ? cg->feedback : &no_feedback;
		si.standing = &tk->plan->standings[c];
		memcpy(si.share_bytes, tk->plan->standings[c].share_bytes, sizeof(si.share_bytes));
		for (size_t t = 0; t < in->topo->nr_tiers; t++)
			if (tk->plan->standings[c].tiers[t].has_max)
				si.share_bytes[t] = tierd_min_u64(si.share_bytes[t], tk->ceiling[c][t]);
		memcpy(si.room_bytes, tk->room, sizeof(si.room_bytes));
		si.budget_bytes = tierd_min_u64(tk->cgroup_left[c], tk->global_left);
		si.cgroup = c;
		s->ops->observe(s->state, &si);
		proposed.nr = 0;
		r = s->ops->plan(s->state, &si, &proposed);
		for (size_t i = 0; r == 0 && i < proposed.nr; i++)
			r = admit(tk, c, proposed.items[i]);
		if (r < 0)
			break;
	}
	tierd_action_list_free(&proposed);
	free(order);
	return r;
}

/* ---- mins ---------------------------------------------------------- */

/* A region of a cgroup seen accessed on a tier slower than t, by its share
 * of samples that saw it accessed. */
struct min_pick {
	const struct tierd_region *region;
	uint32_t rate_pmy;
};

static int cmp_pick(const void *a, const void *b)
{
	const struct min_pick *x = a, *y = b;

	if (x->rate_pmy != y->rate_pmy)
		return x->rate_pmy < y->rate_pmy ? 1 : -1;
	return (x->region->start > y->region->start) - (x->region->start < y->region->start);
}

/* Room on tier t for `want` bytes: other cgroups' coldest memory there,
 * above their own min, demoted; lowest priority first, and none of a
 * higher priority than cgroup c's. */
static int make_room(struct tick *tk, const size_t *order, size_t c, size_t t, uint64_t want)
{
	const struct tierd_engine_input *in = tk->in;

	for (size_t k = in->nr_cgroups; k-- > 0 && tk->room[t] < want;) {
		size_t v = order[k];
		const struct tierd_tier_standing *ts = &tk->plan->standings[v].tiers[t];
		uint64_t keep = ts->has_min ? ts->min_bytes : 0, left;
		int r;

		if (v == c || in->cgroups[v].policy->priority > in->cgroups[c].policy->priority ||
		    tk->held[v][t] <= keep)
			continue;
		left = tierd_min_u64(want - tk->room[t], tk->held[v][t] - keep);
		r = demote_staged(tk, v, t, &left, TIERD_REASON_MIN_ROOM_DEMOTION);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Cgroup c below its min on tier t: its regions on slower tiers seen
 * accessed, hottest first, promoted up to the shortfall, after making room
 * for them. */
static int protect_min(struct tick *tk, const size_t *order, size_t c, size_t t,
		       struct min_pick *picks)
{
	const struct tierd_hotness *hot = tk->in->cgroups[c].hot;
	const struct tierd_tier_standing *ts = &tk->plan->standings[c].tiers[t];
	uint64_t want = 0, found = 0;
	size_t n = 0;
	int r;

	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *rg = &hot->regions[i];
		uint64_t start = rg->start, end = rg->end;

		if (rg->tier <= (int)t || (size_t)rg->tier >= tk->in->topo->nr_tiers ||
		    !rg->nr_accesses || !rg->max_accesses || end <= start)
			continue;
		/* A min of a faster tier took it already. */
		trim_min_moved(tk, c, &start, &end);
		if (end != rg->end || start != rg->start)
			continue;
		picks[n++] = (struct min_pick){
			.region = rg,
			.rate_pmy = (uint32_t)((uint64_t)tierd_min_u64(rg->nr_accesses, rg->max_accesses) *
					       TIERD_PMY_ONE / rg->max_accesses),
		};
		found += rg->end - rg->start;
	}
	if (ts->min_bytes > tk->held[c][t])
		want = tierd_min_u64(ts->min_bytes - tk->held[c][t], found);
	want = tierd_min_u64(want, tierd_min_u64(tk->cgroup_left[c], tk->global_left));
	/* The room it makes is paid from the same global budget: half each. */
	if (tk->room[t] < want)
		want = tierd_min_u64(want, tierd_add_sat(tk->global_left, tk->room[t]) / 2);
	want = tierd_page_down(want);
	if (!want)
		return 0;
	qsort(picks, n, sizeof(*picks), cmp_pick);
	r = make_room(tk, order, c, t, want);
	for (size_t i = 0; r == 0 && i < n && want >= TIERD_PAGE_BYTES; i++) {
		const struct tierd_region *rg = picks[i].region;
		struct tierd_action a = { .kind = TIERD_ACTION_MIGRATE,
					  .reason = TIERD_REASON_MIN_PROTECTION, .cgroup = c,
					  .from_tier = (size_t)rg->tier, .to_tier = t,
					  .start = rg->start };

		a.bytes = tierd_page_down(tierd_min_u64(tierd_min_u64(rg->end - rg->start, want),
							limit_into(tk, c, a.from_tier, t)));
		if (!a.bytes)
			break;
		a.end = a.start + a.bytes;
		r = push_action(tk, &a);
		if (r == 0) {
			account(tk, c, a.from_tier, t, a.bytes, a.bytes);
			want -= a.bytes;
			tk->min_moved[c] = true;
		}
	}
	return r;
}

/* Every cgroup with hotness below a min, by priority. */
static int protect_mins(struct tick *tk)
{
	const struct tierd_engine_input *in = tk->in;
	struct min_pick *picks = NULL;
	size_t *order, most = 0;
	int r = 0;

	for (size_t c = 0; c < in->nr_cgroups; c++)
		if (in->cgroups[c].hot)
			most = tierd_max_u64(most, in->cgroups[c].hot->nr_regions);
	order = priority_order(in);
	picks = calloc(most + 1, sizeof(*picks));
	if (!order || !picks) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; r == 0 && k < in->nr_cgroups; k++) {
		size_t c = order[k];

		for (size_t t = 0; r == 0 && t + 1 < in->topo->nr_tiers; t++)
			if (in->cgroups[c].hot && tk->plan->standings[c].tiers[t].has_min)
				r = protect_min(tk, order, c, t, picks);
	}
out:
	free(picks);
	free(order);
	return r;
}

void tierd_engine_refund(struct tierd_engine *e, const struct tierd_engine_input *in,
			 const struct tierd_action *a, uint64_t cost)
{
	const struct tierd_engine_cgroup *cg = a->cgroup < in->nr_cgroups ? &in->cgroups[a->cgroup]
									   : NULL;
	struct cgroup_state *s = cg ? find_state(e, cg->obs->id) : NULL;

	tierd_budget_bucket_refund(&e->budget, &in->global_budget, cost);
	if (s && cg->policy->has_migration_budget)
		tierd_budget_bucket_refund(&s->budget, &cg->policy->migration_budget, cost);
}

/* Spends what was planned and forgets cgroups gone for a while. */
static void settle(struct tierd_engine *e, const struct tierd_engine_input *in,
		   const struct tierd_plan *plan)
{
	size_t kept = 0;

	tierd_budget_bucket_spend(&e->budget, plan->charged_bytes);
	for (size_t i = 0; i < plan->nr_actions; i++) {
		struct cgroup_state *s = find_state(e, in->cgroups[plan->actions[i].cgroup].obs->id);

		if (s)
			tierd_budget_bucket_spend(&s->budget, tierd_action_cost(&plan->actions[i]));
	}
	for (size_t i = 0; i < e->nr; i++) {
		struct cgroup_state *s = &e->cgroups[i];

		s->missed = s->seen ? 0 : s->missed + 1;
		if (s->missed > ENGINE_STATE_GRACE_TICKS) {
			state_forget(s);
			continue;
		}
		s->seen = false;
		e->cgroups[kept++] = *s;
	}
	e->nr = kept;
}

int tierd_engine_plan(struct tierd_engine *e, const struct tierd_engine_input *in,
		      struct tierd_plan *out)
{
	const struct tierd_topology *topo = in->topo;
	struct tierd_plan plan = { 0 };
	struct tick tk = { .in = in, .plan = &plan };
	int r;

	memset(out, 0, sizeof(*out));
	plan.nr_cgroups = in->nr_cgroups;
	plan.standings = calloc(in->nr_cgroups + 1, sizeof(*plan.standings));
	tk.held = calloc(in->nr_cgroups + 1, sizeof(*tk.held));
	tk.ceiling = calloc(in->nr_cgroups + 1, sizeof(*tk.ceiling));
	tk.cgroup_left = calloc(in->nr_cgroups + 1, sizeof(*tk.cgroup_left));
	tk.min_moved = calloc(in->nr_cgroups + 1, sizeof(*tk.min_moved));
	if (!plan.standings || !tk.held || !tk.ceiling || !tk.cgroup_left || !tk.min_moved) {
		r = -ENOMEM;
		goto fail;
	}
	tk.global_left = tierd_budget_bucket_left(&e->budget, &in->global_budget, in->now_usec);
	for (size_t t = 0; t < topo->nr_tiers; t++)
		tk.room[t] = topo->tiers[t].free_bytes;
	for (size_t c = 0; c < in->nr_cgroups; c++) {
		const struct tierd_engine_cgroup *cg = &in->cgroups[c];
		struct cgroup_state *s;

		plan.standings[c].cgroup = c;
		measure(topo, cg, &plan.standings[c]);
		if (plan.standings[c].over_budget)
			plan.nr_over_budget++;
		for (size_t t = 0; t < topo->nr_tiers; t++)
			tk.held[c][t] = plan.standings[c].tiers[t].anon_bytes +
					plan.standings[c].tiers[t].file_bytes;
		r = get_state(e, cg->obs->id, cg->policy, &s);
		if (r < 0)
			goto fail;
		tk.cgroup_left[c] = cg->policy->has_migration_budget
					    ? tierd_budget_bucket_left(&s->budget,
								       &cg->policy->migration_budget,
								       in->now_usec)
					    : UINT64_MAX;
	}
	r = pool_shares(e, in, &plan);
	if (r < 0)
		goto fail;
	r = enforce_budgets(&tk);
	if (r < 0)
		goto fail;
	set_ceilings(&tk);
	r = protect_mins(&tk);
	if (r < 0)
		goto fail;
	r = run_strategies(e, &tk);
	if (r < 0)
		goto fail;
	settle(e, in, &plan);
	free(tk.held);
	free(tk.ceiling);
	free(tk.cgroup_left);
	free(tk.min_moved);
	*out = plan;
	return 0;
fail:
	free(tk.held);
	free(tk.ceiling);
	free(tk.cgroup_left);
	free(tk.min_moved);
	tierd_plan_free(&plan);
	return r;
}

void tierd_plan_free(struct tierd_plan *plan)
{
	free(plan->standings);
	free(plan->actions);
	memset(plan, 0, sizeof(*plan));
}

int tierd_engine_new(struct tierd_engine **ret)
{
	struct tierd_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	*ret = e;
	return 0;
}

void tierd_engine_free(struct tierd_engine *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nr; i++)
		state_forget(&e->cgroups[i]);
	free(e->cgroups);
	free(e);
}

void tierd_engine_profile(const struct tierd_engine *e, uint64_t cgroup_id,
			  const struct tierd_topology *topo, uint64_t *interval_usec)
{
	const struct cgroup_state *s = find_state(e, cgroup_id);

	memset(interval_usec, 0, topo->nr_tiers * sizeof(*interval_usec));
	if (s && s->ops && !s->error && s->ops->profile)
		s->ops->profile(s->state, topo, interval_usec);
}

const void *tierd_engine_strategy_state(const struct tierd_engine *e, uint64_t cgroup_id,
					enum tierd_strategy *ret_strategy)
{
	const struct cgroup_state *s = find_state(e, cgroup_id);

	if (!s || !s->ops || s->error)
		return NULL;
	*ret_strategy = s->strategy;
	return s->state;
}

const char *tierd_reason_name(enum tierd_reason r)
{
	static const char *const names[] = {
#define TIERD_X(id, name) [id] = name,
		TIERD_REASONS(TIERD_X)
#undef TIERD_X
	};

	return (unsigned)r < TIERD_REASON_NR ? names[r] : "?";
}
