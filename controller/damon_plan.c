/* From the engine's plan to DAMON's configuration; see damon_plan.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damon_plan.h"
#include "../policy/cold_spans.h"
#include "../policy/util.h"

int tierd_damon_target_node(const struct tierd_topology *topo, size_t tier)
{
	int best = -1;
	uint64_t best_free = 0;

	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct tierd_node *n = &topo->nodes[i];

		if (n->tier < 0 || (size_t)n->tier != tier)
			continue;
		if (best < 0 || n->free_bytes > best_free ||
		    (n->free_bytes == best_free && n->nid < best)) {
			best = n->nid;
			best_free = n->free_bytes;
		}
	}
	return best;
}

static bool promotes(size_t from, size_t to)
{
	return to < from;
}

static int push(struct tierd_damos_span *out, size_t cap, size_t *n, struct tierd_damos_span s)
{
	if (*n >= cap)
		return -E2BIG;
	out[(*n)++] = s;
	return 0;
}

/* Hottest (demotion) or coldest (promotion) of the regions overlapping
 * [start, end); without any, no restriction. */
static uint32_t span_accesses(const struct tierd_hotness *hot, uint64_t start, uint64_t end,
			      bool promotion)
{
	uint32_t v = promotion ? UINT32_MAX : 0;
	bool any = false;

	for (size_t i = 0; hot && i < hot->nr_regions; i++) {
		const struct tierd_region *r = &hot->regions[i];

		if (r->end <= start || r->start >= end)
			continue;
		any = true;
		v = promotion ? (r->nr_accesses < v ? r->nr_accesses : v)
			      : (r->nr_accesses > v ? r->nr_accesses : v);
	}
	if (!any)
		return promotion ? 0 : UINT32_MAX;
	return v;
}

/* A DEMOTE: the cgroup's coldest regions of the source tier
 * (policy/cold_spans.h), past what the same cgroup's earlier demotions out
 * of that tier took. */
static int demote_spans(const struct tierd_action *a, const struct tierd_hotness *hot,
			const struct tierd_damos_span *taken, size_t nr_taken,
			struct tierd_damos_span *out, size_t cap, size_t *n)
{
	size_t room = cap - *n, nr_prior = 0, got;
	_cleanup_free_ struct tierd_cold_span *prior = calloc(nr_taken + 1, sizeof(*prior));
	_cleanup_free_ struct tierd_cold_span *cold = calloc(room + 1, sizeof(*cold));
	int r;

	if (!prior || !cold)
		return -ENOMEM;
	for (size_t i = 0; i < nr_taken; i++)
		if (taken[i].cgroup == a->cgroup && taken[i].from_tier == a->from_tier)
			prior[nr_prior++] = (struct tierd_cold_span){ .start = taken[i].start,
								      .end = taken[i].end };
	r = tierd_cold_spans(hot, a->from_tier, a->bytes, prior, nr_prior, cold, room);
	got = r == -E2BIG ? room : r > 0 ? (size_t)r : 0;
	for (size_t i = 0; i < got; i++)
		out[(*n)++] = (struct tierd_damos_span){
			.cgroup = a->cgroup, .from_tier = a->from_tier, .to_tier = a->to_tier,
			.start = cold[i].start, .end = cold[i].end,
			.bytes = cold[i].bytes, .nr_accesses = cold[i].nr_accesses };
	return r < 0 ? r : 0;
}

int tierd_damos_spans_after(const struct tierd_action *a, const struct tierd_hotness *hot,
			    const struct tierd_damos_span *taken, size_t nr_taken,
			    struct tierd_damos_span *out, size_t cap)
{
	size_t n = 0;
	int r;

	if (a->kind == TIERD_ACTION_MIGRATE) {
		bool up = promotes(a->from_tier, a->to_tier);

		r = push(out, cap, &n, (struct tierd_damos_span){
			.cgroup = a->cgroup, .from_tier = a->from_tier, .to_tier = a->to_tier,
			.start = a->start, .end = a->end, .bytes = a->bytes,
			.nr_accesses = span_accesses(hot, a->start, a->end, up) });
	} else {
		r = demote_spans(a, hot, taken, nr_taken, out, cap, &n);
	}
	return r < 0 ? r : (int)n;
}

/* Groups: runs of spans with the same (from, cgroup, to), sorted by start. */
static int cmp_span(const void *a, const void *b)
{
	const struct tierd_damos_span *x = a, *y = b;

	if (x->from_tier != y->from_tier)
		return x->from_tier < y->from_tier ? -1 : 1;
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	if (x->to_tier != y->to_tier)
		return x->to_tier < y->to_tier ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

struct group {
	size_t first, n;     /* spans[first .. first + n) */
	uint64_t bytes;
	size_t slots;
};

static int cmp_group_bytes(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Merges s[0..*n) (sorted) across the smallest gaps until at most k remain. */
static void merge_spans(struct tierd_damos_span *s, size_t *n, size_t k, bool promotion)
{
	while (*n > k && *n > 1) {
		size_t at = 0;
		uint64_t gap = UINT64_MAX;

		for (size_t i = 0; i + 1 < *n; i++) {
			uint64_t g = s[i + 1].start > s[i].end ? s[i + 1].start - s[i].end : 0;

			if (g < gap) {
				gap = g;
				at = i;
			}
		}
		s[at].end = s[at + 1].end > s[at].end ? s[at + 1].end : s[at].end;
		s[at].bytes += s[at + 1].bytes;
		s[at].nr_accesses = promotion ? (s[at + 1].nr_accesses < s[at].nr_accesses
							 ? s[at + 1].nr_accesses : s[at].nr_accesses)
					      : (s[at + 1].nr_accesses > s[at].nr_accesses
							 ? s[at + 1].nr_accesses : s[at].nr_accesses);
		memmove(&s[at + 1], &s[at + 2], (*n - at - 2) * sizeof(*s));
		(*n)--;
	}
}

static void stat_scheme(struct tierd_damon_scheme_spec *sc)
{
	*sc = (struct tierd_damon_scheme_spec){
		.action = TIERD_DAMON_ACTION_STAT,
		.target_nid = -1,
		.sz_max = TIERD_DAMON_SZ_UNLIMITED,
		.nr_accesses_max = TIERD_DAMON_NR_UNLIMITED,
		.age_max = TIERD_DAMON_NR_UNLIMITED,
	};
}

/* A migration scheme for one merged span. Promotion: regions seen accessed
 * at least once (if the engine picked accessed ones); demotion: no hotter
 * than the hottest region the engine picked, so the cgroup's hot pages in a
 * merged gap stay. */
static void action_scheme(struct tierd_damon_scheme_spec *sc, const struct tierd_damos_span *s,
			  int target_nid, const char *memcg_path, uint64_t aggr_us)
{
	bool up = promotes(s->from_tier, s->to_tier);

	stat_scheme(sc);
	sc->apply_interval_us = aggr_us / TIERD_DAMOS_APPLIES_PER_AGGR;
	sc->action = up ? TIERD_DAMON_ACTION_MIGRATE_HOT : TIERD_DAMON_ACTION_MIGRATE_COLD;
	sc->target_nid = target_nid;
	if (up)
		sc->nr_accesses_min = s->nr_accesses > 0 ? 1 : 0;
	else
		sc->nr_accesses_max = s->nr_accesses;
	snprintf(sc->memcg_path, sizeof(sc->memcg_path), "%s", memcg_path);
	sc->has_addr = true;
	sc->addr_start = s->start;
	sc->addr_end = s->end;
}

static int check_inputs(const struct tierd_damon_layout *layout,
			const struct tierd_topology *topo, const struct tierd_damos_span *spans,
			size_t nr_spans, const struct tierd_logger *log)
{
	if (layout->nr_tiers == 0 || layout->nr_tiers > TIERD_DAMON_MAX_CONTEXTS ||
	    layout->nr_tiers != topo->nr_tiers)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "damon: %zu tiers laid out for %zu tiers (at most %d)",
				       layout->nr_tiers, topo->nr_tiers, TIERD_DAMON_MAX_CONTEXTS);
	for (size_t t = 0; t < layout->nr_tiers; t++)
		if (layout->tiers[t].nr_ranges == 0 ||
		    layout->tiers[t].nr_ranges > TIERD_DAMON_MAX_REGIONS)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "damon: tier %zu has %zu physical ranges, expected 1..%d",
					       t, layout->tiers[t].nr_ranges,
					       TIERD_DAMON_MAX_REGIONS);
	for (size_t i = 0; i < nr_spans; i++)
		if (spans[i].from_tier >= topo->nr_tiers || spans[i].to_tier >= topo->nr_tiers ||
		    spans[i].from_tier == spans[i].to_tier || spans[i].end <= spans[i].start)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "damon: span %zu: tiers %zu -> %zu, [%llu, %llu)", i,
					       spans[i].from_tier, spans[i].to_tier,
					       (unsigned long long)spans[i].start,
					       (unsigned long long)spans[i].end);
	return 0;
}

static void build_context(struct tierd_damon_ctx_spec *ctx, const struct tierd_damon_tier_layout *l)
{
	uint64_t aggr = l->aggr_us ? l->aggr_us : TIERD_DAMON_AGGR_US;

	*ctx = (struct tierd_damon_ctx_spec){
		.sample_us = aggr / TIERD_DAMON_SAMPLES_PER_AGGR,
		.aggr_us = aggr,
		.update_us = TIERD_DAMON_UPDATE_US,
		.min_nr_regions = TIERD_DAMON_MIN_NR_REGIONS,
		.max_nr_regions = TIERD_DAMON_MAX_NR_REGIONS,
		.nr_regions = l->nr_ranges,
		.nr_schemes = 1,
	};
	snprintf(ctx->ops, sizeof(ctx->ops), "paddr");
	memcpy(ctx->regions, l->ranges, l->nr_ranges * sizeof(l->ranges[0]));
	stat_scheme(&ctx->schemes[TIERD_DAMON_STAT_SCHEME]);
}

/* Hands the action slots of one tier's kdamond to its groups. */
static void assign_slots(struct group *g, size_t nr, struct tierd_damos_batch *batch,
			 const struct tierd_damos_span *s)
{
	size_t served = nr < TIERD_DAMON_ACTION_SLOTS ? nr : TIERD_DAMON_ACTION_SLOTS;

	qsort(g, nr, sizeof(*g), cmp_group_bytes);
	for (size_t i = 0; i < nr; i++) {
		g[i].slots = 0;
		if (i >= served) {
			batch->nr_deferred += g[i].n;
			for (size_t j = 0; j < g[i].n; j++)
				batch->deferred_bytes += s[g[i].first + j].bytes;
			continue;
		}
		g[i].slots = TIERD_DAMON_ACTION_SLOTS / served +
			     (i < TIERD_DAMON_ACTION_SLOTS % served ? 1 : 0);
	}
}

int tierd_damon_build(const struct tierd_damon_layout *layout, const struct tierd_topology *topo,
		      const struct tierd_damos_span *spans, size_t nr_spans,
		      const char *const *memcg_paths, struct tierd_damon_spec *spec,
		      struct tierd_damos_batch *batch, const struct tierd_logger *log)
{
	struct tierd_damos_span *s = NULL;
	struct group *groups = NULL;
	int r;

	memset(batch, 0, sizeof(*batch));
	r = check_inputs(layout, topo, spans, nr_spans, log);
	if (r < 0)
		return r;
	spec->nr_contexts = layout->nr_tiers;
	for (size_t t = 0; t < layout->nr_tiers; t++)
		build_context(&spec->contexts[t], &layout->tiers[t]);
	if (nr_spans == 0)
		return 0;
	s = calloc(nr_spans, sizeof(*s));
	groups = calloc(nr_spans, sizeof(*groups));
	if (!s || !groups) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(s, spans, nr_spans * sizeof(*s));
	qsort(s, nr_spans, sizeof(*s), cmp_span);
	for (size_t i = 0; i < nr_spans;) {
		size_t tier = s[i].from_tier, nr = 0;
		struct tierd_damon_ctx_spec *ctx = &spec->contexts[tier];

		/* This tier's groups. */
		while (i < nr_spans && s[i].from_tier == tier) {
			struct group *g = &groups[nr++];

			*g = (struct group){ .first = i };
			do {
				g->bytes += s[i].bytes;
				g->n++;
				i++;
			} while (i < nr_spans && s[i].from_tier == tier &&
				 s[i].cgroup == s[g->first].cgroup &&
				 s[i].to_tier == s[g->first].to_tier);
		}
		assign_slots(groups, nr, batch, s);
		for (size_t gi = 0; gi < nr; gi++) {
			struct group *g = &groups[gi];
			struct tierd_damos_span *gs = &s[g->first];
			size_t n = g->n;
			int nid;

			if (!g->slots)
				continue;
			nid = tierd_damon_target_node(topo, gs->to_tier);
			if (nid < 0) {
				r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						    "damon: tier %zu has no node", gs->to_tier);
				goto out;
			}
			merge_spans(gs, &n, g->slots, promotes(gs->from_tier, gs->to_tier));
			for (size_t j = 0; j < n; j++) {
				size_t sc = ctx->nr_schemes++;

				action_scheme(&ctx->schemes[sc], &gs[j], nid, memcg_paths[gs[j].cgroup],
					      ctx->aggr_us);
				batch->slots[batch->nr_slots++] = (struct tierd_damos_slot){
					.ctx = tier, .scheme = sc, .cgroup = gs[j].cgroup,
					.from_tier = gs[j].from_tier, .to_tier = gs[j].to_tier,
					.path = promotes(gs[j].from_tier, gs[j].to_tier)
							? TIERD_PATH_DAMOS_MIGRATE_HOT
							: TIERD_PATH_DAMOS_MIGRATE_COLD,
					.planned_bytes = gs[j].bytes,
				};
			}
		}
	}
out:
	free(groups);
	free(s);
	return r;
}
