/* The "autotiering" strategy: a baseline of the greedy promotion and
 * stepwise demotion of AutoTiering (Kim et al., ATC'21) and MTM, in the form
 * Mole describes and measures them (Mole §1, §2.2.2, §3.1,
 * the Mole paper).
 *
 * Greedy promotion: a hot page or region on a lower tier first tries the top
 * tier; what the top tier cannot take falls back tier by tier downward, to
 * the first tier with room above the one it is on. Every attempt that found
 * tier 0 full is counted (Mole §3.1 reports 97-99% of them failing under
 * pressure), and so is every fallback.
 *
 * Stepwise demotion: a tier whose free memory is below its watermark moves
 * its coldest regions down to the first lower tier with room, skipping full
 * tiers, until the watermark holds again. Promotions are proposed first:
 * they are what the fault path does, and demotion then restores what they
 * used up, so both converge on the same intermediate tiers (Mole §3.1).
 *
 * Inputs: a page sample is a hint fault and AutoTiering promotes on the
 * fault, so every sampled lower-tier page is hot. A tick with no samples
 * uses DAMON regions seen accessed at least hot_accesses times in their
 * window. With samples, regions are not used for promotion, so nothing is
 * counted twice. Profiling is the same on every tier (Mole §1: AutoTiering
 * uses "an identical profiling frequency across tiers"). */
#include <errno.h>
#include <stdlib.h>

#include "baseline_util.h"
#include "strategy.h"
#include "strategy_autotiering.h"
#include "strategy_params.h"
#include "units.h"
#include "util.h"

/* AutoTiering runs on AutoNUMA (its README: kernel.numa_balancing=1 must be
 * on), where a hint fault, one observed access, is what promotes a page: one
 * access seen in the window makes a region hot. */
#define AUTOTIERING_HOT_ACCESSES 1u
/* Mole §1 describes the trigger only as "a predefined watermark". AutoTiering
 * takes a node as a migration target only while it stays above its high
 * watermark (migrate_balanced_pgdat() on high_wmark_pages(), Sys-KU/AutoTiering
 * autotiering.patch, mm/migrate.c), so a tier is "full" below WMARK_HIGH:
 * WMARK_MIN + 2 x watermark_scale_factor (0.1% by default) of the node, 0.2%
 * leaving out WMARK_MIN (0.04% on a 96 GiB node). */
#define AUTOTIERING_WATERMARK_PMY 20u
/* AutoNUMA's scan_period_min_ms default 1000 (docs/kernel.md §4.2),
 * on which AutoTiering builds, for every tier alike. */
#define AUTOTIERING_SCAN_PERIOD_USEC TIERD_USEC_PER_SEC

struct autotiering_state {
	/* params */
	uint64_t hot_accesses;
	uint64_t watermark_pmy;
	struct tierd_baseline_stats stats;
	struct tierd_baseline_scratch scratch;
};

void tierd_autotiering_params_default(struct tierd_autotiering_params *p)
{
	p->hot_accesses = AUTOTIERING_HOT_ACCESSES;
	p->watermark_pmy = AUTOTIERING_WATERMARK_PMY;
}

static int autotiering_init(const struct tierd_strategy_params *params, void **ret_state)
{
	struct tierd_autotiering_params p;
	_cleanup_free_ struct autotiering_state *s = NULL;

	if (tierd_strategy_params_get(params, TIERD_STRATEGY_AUTOTIERING, &p, sizeof(p)) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->hot_accesses = p.hot_accesses;
	s->watermark_pmy = p.watermark_pmy;
	*ret_state = TIERD_TAKE_PTR(s);
	return 0;
}

static void autotiering_profile(void *state, const struct tierd_topology *topo,
				uint64_t *interval_usec)
{
	(void)state;
	for (size_t t = 0; t < topo->nr_tiers; t++)
		interval_usec[t] = AUTOTIERING_SCAN_PERIOD_USEC;
}

/* Greedy and stepwise moves react to this tick's room alone: nothing to
 * carry over but the counters, which plan keeps. */
static void autotiering_observe(void *state, const struct tierd_strategy_input *in)
{
	(void)state;
	(void)in;
}

static int promote_samples(struct autotiering_state *s, struct tierd_ledger *l,
			   const struct tierd_hotness *hot)
{
	int r;

	r = tierd_page_set_reset(&s->scratch.pages, hot->nr_samples);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_samples && tierd_ledger_has_budget(l); i++) {
		const struct tierd_sample *sm = &hot->samples[i];

		if (sm->tier <= 0 || (size_t)sm->tier >= l->nr_tiers)
			continue;
		/* A page is attempted once per tick, however often it faulted. */
		if (!tierd_page_set_add(&s->scratch.pages, sm->addr, NULL))
			continue;
		r = tierd_baseline_promote(l, TIERD_REASON_GREEDY_PROMOTION, (size_t)sm->tier,
					   tierd_page_down(sm->addr),
					   TIERD_PAGE_BYTES, true, &s->stats);
		if (r < 0)
			return r;
	}
	return 0;
}

static int promote_regions(struct autotiering_state *s, struct tierd_ledger *l,
			   const struct tierd_hotness *hot)
{
	const size_t *order;
	size_t n;
	int r;

	/* Hottest first, so a full tier 0 turns away the coolest ones. */
	r = tierd_baseline_hot_order(&s->scratch, hot, l->nr_tiers, (uint32_t)s->hot_accesses,
				     &order, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && tierd_ledger_has_budget(l); i++) {
		const struct tierd_region *reg = &hot->regions[order[i]];

		r = tierd_baseline_promote(l, TIERD_REASON_GREEDY_PROMOTION, (size_t)reg->tier,
					   reg->start, reg->end - reg->start, true, &s->stats);
		if (r < 0)
			return r;
	}
	return 0;
}

static int autotiering_plan(void *state, const struct tierd_strategy_input *in,
			    struct tierd_action_list *out)
{
	struct autotiering_state *s = state;
	struct tierd_ledger l;
	int r;

	tierd_ledger_init(&l, in, out);
	if (l.nr_tiers < 2)
		return 0;
	if (in->hot->nr_samples)
		r = promote_samples(s, &l, in->hot);
	else
		r = promote_regions(s, &l, in->hot);
	if (r < 0)
		return r;
	return tierd_baseline_demote(&l, &s->scratch, in, (uint32_t)s->watermark_pmy,
				     TIERD_REASON_STEPWISE_DEMOTION, &s->stats);
}

static void autotiering_free(void *state)
{
	struct autotiering_state *s = state;

	if (!s)
		return;
	tierd_baseline_scratch_free(&s->scratch);
	free(s);
}

void tierd_autotiering_stats(const void *state, struct tierd_baseline_stats *ret)
{
	const struct autotiering_state *s = state;

	*ret = s->stats;
}

const struct tierd_strategy_ops tierd_strategy_autotiering = {
	.name = "autotiering",
	.init = autotiering_init,
	.profile = autotiering_profile,
	.observe = autotiering_observe,
	.plan = autotiering_plan,
	.free = autotiering_free,
};
