/* The "exchange" strategy: tierd's own.
 *
 * Every tier, from the fastest, takes the memory below it that is accessed
 * most per byte the budget pays; when it is full, it makes room by demoting
 * its own memory that is at least `gain` times colder, one tier down (or
 * further, to the first with room). Candidates are hint-fault samples (one
 * page each, once two scans saw it: sample_history.h) and DAMON regions of
 * the slower tiers; victims are DAMON regions. Before any promotion the
 * fastest tier keeps room for `reserve` of the cgroup's allocation rate, as
 * kswapd keeps room at its watermarks: a new page is often its hottest.
 *
 * Rates are per page, in accesses per second. A hint fault that came
 * interval_usec after the unmap says 1 / interval (the mean of the page's
 * remembered faults). A DAMON region seen accessed in n of its m samples
 * of one random page, one every window / m, says -ln(1 - n/m) / (window /
 * m): a page accessed at rate r is seen with probability 1 - e^(-r window /
 * m). A region seen in every sample is taken at n = m - 1/2.
 *
 * A region seen in none of its samples says less: in DAMON's 100 ms of 20
 * samples a page accessed 3 times a second reads 0 in three windows out of
 * four, as a page never accessed does. But DAMON's age says for how many
 * windows the count held: a region at 0 for `age` windows went (age + 1) x
 * m samples unseen, so it is taken at one access per (age + 1) windows
 * (the rate that would expect one hit in them), and that is also the floor
 * under any victim's rate. Victims are then chosen by evidence, not by one
 * window's noise (tiersim: geometric mean x_causal 1.21 -> 1.14).
 *
 * A region holding more of the cgroup than last tick's regions held in its
 * span is no victim: its figures predate the memory that arrived, often
 * the newest and hottest (region_history.h; tiersim alloc-burst at 1:1:2:2
 * 123.5 -> 106.5 ns).
 *
 * Why per byte the budget pays: a move is charged its span
 * (tierd_action_cost), and a region whose span holds few of the cgroup's
 * pages costs the budget many bytes for each it moves. Candidates go by
 * rate x bytes / span, highest first; victims by rate x span / bytes,
 * lowest first: among the cold, the densest, which free the most room per
 * byte of budget.
 *
 * What it does not do: cost-benefit (MigFlow prices a move at 20 us a page
 * and refuses warm memory the budget could afford); staging (Mole); a
 * history of region rates (DAMON's age is the one it uses; last tick's
 * layout only tells arrivals). Pure: no I/O, no clock, no globals. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_rate.h"
#include "region_history.h"
#include "sample_history.h"
#include "strategy.h"
#include "strategy_exchange.h"
#include "strategy_ledger.h"
#include "strategy_params.h"
#include "strategy_scratch.h"
#include "units.h"
#include "util.h"

/* A victim must be 32 times colder than the candidate that displaces it:
 * below, exchanges chase the noise of one window's counts (tiersim geometric
 * mean x_causal 1.178 at 4, 1.135 at 8, 1.120 at 16, 1.104 at 32, 1.119 at
 * 64). */
#define EXCHANGE_GAIN_PMY (32u * TIERD_PMY_ONE)
/* MigFlow's headroom (strategy_migflow.c): two seconds of allocation. */
#define EXCHANGE_RESERVE_USEC (2 * TIERD_USEC_PER_SEC)
/* Rates in milli-accesses per second: a page's rate over a usec interval. */
#define EXCHANGE_MHZ_PER_PER_USEC 1e9
/* A region seen in every sample: n taken as m less this. */
#define EXCHANGE_ALL_SEEN_SLACK 0.5
/* Victim sort key: tier in the top byte, cost in the rest. */
#define EXCHANGE_TIER_SHIFT 56u
#define EXCHANGE_KEY_MAX ((1ull << EXCHANGE_TIER_SHIFT) - 1)
#define NO_REGION SIZE_MAX

struct candidate {
	uint64_t start, end, bytes;  /* bytes: the cgroup's in [start, end) */
	size_t tier, region;         /* region: index, or NO_REGION (a page) */
	uint64_t rate;               /* mHz per page */
};

struct exchange_state {
	struct tierd_exchange_params p;
	struct tierd_exchange_stats stats;
	struct tierd_sample_history history;
	struct tierd_alloc_rate alloc;   /* of usage, anon + file, all tiers */
	struct tierd_region_history last; /* last tick's regions */
	int error;                   /* from observe, returned by plan */
	/* per-tick buffers, kept so a tick allocates only while they grow */
	size_t cap_cand, cap_key, cap_idx, cap_tmp, cap_vict, cap_claim;
	struct candidate *cand;
	uint64_t *key;
	size_t *idx, *tmp, *vict;
	uint8_t *claim;              /* per region: moved this tick */
	struct tierd_page_set pages; /* sampled pages already candidates */
	size_t nr_cand;
	size_t vpos[TIERD_MAX_TIERS], vend[TIERD_MAX_TIERS];
	uint64_t voff[TIERD_MAX_TIERS];
};

void tierd_exchange_params_default(struct tierd_exchange_params *p)
{
	p->gain_pmy = EXCHANGE_GAIN_PMY;
	p->reserve_usec = EXCHANGE_RESERVE_USEC;
}

static uint64_t clamp_u64(double v)
{
	return v >= (double)UINT64_MAX ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)v;
}

/* One access per (age + 1) windows of region r, mHz: the rate of a region
 * no sample saw in that long, and the floor under a victim's. */
static uint64_t region_floor(const struct tierd_region *r)
{
	if (!r->aggr_usec)
		return 0;
	return clamp_u64(EXCHANGE_MHZ_PER_PER_USEC / ((double)r->aggr_usec * ((double)r->age + 1)));
}

/* A region's rate per page, mHz; 0 when no sample saw it accessed. */
static uint64_t region_rate(const struct tierd_region *r)
{
	double n = r->nr_accesses, m = r->max_accesses;

	if (!r->nr_accesses || !r->max_accesses || !r->aggr_usec)
		return 0;
	if (n >= m)
		n = m - EXCHANGE_ALL_SEEN_SLACK;
	return clamp_u64(-log1p(-n / m) * m / (double)r->aggr_usec * EXCHANGE_MHZ_PER_PER_USEC);
}

/* rate x num / den, saturated. */
static uint64_t scale(uint64_t rate, uint64_t num, uint64_t den)
{
	unsigned __int128 v = (unsigned __int128)rate * num / (den ? den : 1);

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static int exchange_init(const struct tierd_strategy_params *params, void **ret_state)
{
	struct exchange_state *s;
	struct tierd_exchange_params p;

	if (tierd_strategy_params_get(params, TIERD_STRATEGY_EXCHANGE, &p, sizeof(p)) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->p = p;
	*ret_state = s;
	return 0;
}

static void exchange_free(void *state)
{
	struct exchange_state *s = state;

	if (!s)
		return;
	tierd_sample_history_free(&s->history);
	tierd_region_history_free(&s->last);
	tierd_page_set_free(&s->pages);
	free(s->cand);
	free(s->key);
	free(s->idx);
	free(s->tmp);
	free(s->vict);
	free(s->claim);
	free(s);
}

static void exchange_observe(void *state, const struct tierd_strategy_input *in)
{
	struct exchange_state *s = state;
	int r;

	tierd_alloc_rate_update(&s->alloc, in->standing->usage_bytes, in->now_usec);
	r = tierd_sample_history_update(&s->history, in->hot);
	if (r < 0)
		s->error = r;
}

static int reserve_tick(struct exchange_state *s, const struct tierd_hotness *hot)
{
	size_t both = hot->nr_regions + hot->nr_samples;
	const struct tierd_reserve_req reqs[] = {
		{ (void **)&s->cand, &s->cap_cand, both, sizeof(*s->cand) },
		{ (void **)&s->key, &s->cap_key, both, sizeof(*s->key) },
		{ (void **)&s->idx, &s->cap_idx, both, sizeof(*s->idx) },
		{ (void **)&s->tmp, &s->cap_tmp, both, sizeof(*s->tmp) },
		{ (void **)&s->vict, &s->cap_vict, hot->nr_regions, sizeof(*s->vict) },
		{ (void **)&s->claim, &s->cap_claim, hot->nr_regions, sizeof(*s->claim) },
	};
	int r = tierd_reserve_all(reqs, TIERD_ARRAY_SIZE(reqs));

	if (r < 0)
		return r;
	return tierd_page_set_reset(&s->pages, hot->nr_samples);
}

/* A victim's rate: what its samples say, or, seen in none, its floor. */
static uint64_t victim_rate(const struct tierd_region *r)
{
	return r->nr_accesses ? region_rate(r) : region_floor(r);
}

/* Victims: every region of a known tier holding some of the cgroup's
 * memory and none that arrived since last tick, by tier, then by cost per
 * byte freed, lowest first; and where each tier's run starts and ends. */
static void order_victims(struct exchange_state *s, const struct tierd_hotness *hot,
			  size_t nr_tiers)
{
	size_t n = 0, pos = 0;

	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];
		uint64_t bytes = tierd_region_bytes(reg), cost;

		if (reg->tier < 0 || (size_t)reg->tier >= nr_tiers || reg->end <= reg->start ||
		    tierd_page_down(bytes) == 0 || tierd_region_history_grew(&s->last, &pos, reg))
			continue;
		cost = scale(tierd_add_sat(victim_rate(reg), region_floor(reg)),
			     reg->end - reg->start, bytes);
		s->key[i] = (uint64_t)reg->tier << EXCHANGE_TIER_SHIFT | tierd_min_u64(cost, EXCHANGE_KEY_MAX);
		s->vict[n++] = i;
	}
	tierd_radix_sort(s->key, s->vict, s->tmp, n);
	memset(s->vpos, 0, sizeof(s->vpos));
	memset(s->vend, 0, sizeof(s->vend));
	memset(s->voff, 0, sizeof(s->voff));
	for (size_t i = n; i-- > 0;) {
		size_t t = (size_t)hot->regions[s->vict[i]].tier;

		if (!s->vend[t])
			s->vend[t] = i + 1;
		s->vpos[t] = i;
	}
}

/* The span from `a` in region reg that holds `bytes` of it, within the
 * region and the budget. */
static uint64_t span_for(const struct tierd_ledger *l, const struct tierd_region *reg, uint64_t a,
			 uint64_t bytes)
{
	uint64_t span = tierd_region_span_for(reg, bytes);

	return tierd_min_u64(tierd_min_u64(span, reg->end - a), tierd_page_down(l->budget));
}

/* Frees up to `want` bytes of tier d by moving its cheapest victims whose
 * rate is below `limit` (mHz) to the first tier below with room. */
static int make_room(struct exchange_state *s, struct tierd_ledger *l,
		     const struct tierd_hotness *hot, size_t d, uint64_t want, uint64_t limit,
		     enum tierd_reason reason)
{
	while (want >= TIERD_PAGE_BYTES && s->vpos[d] < s->vend[d]) {
		size_t ri = s->vict[s->vpos[d]];
		const struct tierd_region *reg = &hot->regions[ri];
		uint64_t a = reg->start + s->voff[d], held, bytes, span;
		size_t to = d + 1;
		int r;

		held = tierd_page_down(tierd_region_share(reg, reg->end - a));
		if (s->claim[ri] || !held) {
			s->vpos[d]++;
			s->voff[d] = 0;
			continue;
		}
		if (victim_rate(reg) >= limit)
			break;
		while (to < l->nr_tiers && tierd_ledger_fits(l, to) < TIERD_PAGE_BYTES)
			to++;
		if (to >= l->nr_tiers)
			break;
		bytes = tierd_min_u64(tierd_min_u64(held, want), tierd_ledger_fits(l, to));
		bytes = tierd_ledger_region_clip(l, reg, tierd_page_down(bytes));
		span = bytes ? span_for(l, reg, a, bytes) : 0;
		if (!span)
			break;
		r = tierd_ledger_move_span(l, reason, d, to, a, a + span, bytes);
		if (r < 0)
			return r;
		s->stats.demoted_bytes += bytes;
		if (reason == TIERD_REASON_RESERVE_DEMOTION)
			s->stats.reserve_bytes += bytes;
		want -= tierd_min_u64(want, bytes);
		s->voff[d] += span;
		if (s->voff[d] >= reg->end - reg->start) {
			s->claim[ri] = 1;
			s->vpos[d]++;
			s->voff[d] = 0;
		}
	}
	return 0;
}

static void add_candidate(struct exchange_state *s, const struct candidate *c)
{
	/* Highest rate per byte of budget first. */
	s->key[s->nr_cand] = UINT64_MAX - scale(c->rate, c->bytes, c->end - c->start);
	s->idx[s->nr_cand] = s->nr_cand;
	s->cand[s->nr_cand++] = *c;
}

/* Regions of the slower tiers seen accessed, and pages two scans saw. */
static void collect_candidates(struct exchange_state *s, const struct tierd_hotness *hot,
			       size_t nr_tiers)
{
	s->nr_cand = 0;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];
		uint64_t rate = region_rate(reg);

		if (reg->tier <= 0 || (size_t)reg->tier >= nr_tiers || reg->end <= reg->start ||
		    !rate || !tierd_page_down(tierd_region_bytes(reg)))
			continue;
		add_candidate(s, &(struct candidate){ .start = reg->start, .end = reg->end,
						      .bytes = tierd_region_bytes(reg),
						      .tier = (size_t)reg->tier, .region = i,
						      .rate = rate });
	}
	for (size_t i = 0; i < hot->nr_samples; i++) {
		const struct tierd_sample *sm = &hot->samples[i];
		uint64_t mean, page = tierd_page_down(sm->addr);

		if (sm->tier <= 0 || (size_t)sm->tier >= nr_tiers ||
		    !tierd_sample_history_confirmed(&s->history, sm->addr))
			continue;
		mean = tierd_sample_history_mean_interval(&s->history, sm->addr);
		if (!mean || !tierd_page_set_add(&s->pages, sm->addr, NULL))
			continue;
		add_candidate(s, &(struct candidate){ .start = page, .end = page + TIERD_PAGE_BYTES,
						      .bytes = TIERD_PAGE_BYTES,
						      .tier = (size_t)sm->tier, .region = NO_REGION,
						      .rate = clamp_u64(EXCHANGE_MHZ_PER_PER_USEC /
									(double)mean) });
	}
	tierd_radix_sort(s->key, s->idx, s->tmp, s->nr_cand);
}

/* Candidate c into the fastest tier above it that has, or can be given,
 * room. Returns 0 or -ENOMEM. */
static int promote(struct exchange_state *s, struct tierd_ledger *l,
		   const struct tierd_hotness *hot, const struct candidate *c)
{
	const struct tierd_region *reg = c->region != NO_REGION ? &hot->regions[c->region] : NULL;
	/* victim rate x gain < candidate rate */
	uint64_t limit = scale(c->rate, TIERD_PMY_ONE, s->p.gain_pmy);
	int r;

	for (size_t d = 0; d < c->tier; d++) {
		uint64_t want = tierd_ledger_region_clip(l, reg, c->bytes);
		uint64_t fits = tierd_ledger_fits(l, d), span;

		if (want < TIERD_PAGE_BYTES)
			return 0;
		/* A byte of room costs a byte of demotion and one of promotion. */
		if (fits < want) {
			r = make_room(s, l, hot, d, tierd_min_u64(want - fits, tierd_page_down(l->budget / 2)),
				      limit, TIERD_REASON_EXCHANGE_DEMOTION);
			if (r < 0)
				return r;
			want = tierd_ledger_region_clip(l, reg, c->bytes);
			fits = tierd_ledger_fits(l, d);
		}
		want = tierd_page_down(tierd_min_u64(want, fits));
		if (want < TIERD_PAGE_BYTES)
			continue;
		span = reg ? (want >= c->bytes && c->end - c->start <= l->budget ? c->end - c->start :
			      span_for(l, reg, c->start, want)) : want;
		if (!span)
			return 0;
		r = tierd_ledger_move_span(l, TIERD_REASON_EXCHANGE_PROMOTION, c->tier, d, c->start,
					   c->start + span, want);
		if (r < 0)
			return r;
		s->stats.promoted_bytes += want;
		if (reg)
			s->claim[c->region] = 1;
		return 0;
	}
	s->stats.refused_bytes += c->bytes;
	return 0;
}

static int exchange_plan(void *state, const struct tierd_strategy_input *in,
			 struct tierd_action_list *out)
{
	struct exchange_state *s = state;
	const struct tierd_hotness *hot = in->hot;
	struct tierd_ledger l;
	uint64_t reserve, held;
	int r;

	if (s->error) {
		r = s->error;
		s->error = 0;
		return r;
	}
	tierd_ledger_init(&l, in, out);
	if (l.nr_tiers < 2)
		return 0;
	r = reserve_tick(s, hot);
	if (r < 0)
		return r;
	if (hot->nr_regions)
		memset(s->claim, 0, hot->nr_regions * sizeof(*s->claim));
	order_victims(s, hot, l.nr_tiers);
	r = tierd_region_history_update(&s->last, hot->regions, hot->nr_regions);
	if (r < 0)
		return r;
	/* Room for new pages first, from whatever is cheapest to move. */
	reserve = tierd_page_down(scale(s->alloc.bytes_per_sec, s->p.reserve_usec, TIERD_USEC_PER_SEC));
	if (tierd_ledger_fits(&l, 0) < reserve) {
		r = make_room(s, &l, hot, 0, reserve - tierd_ledger_fits(&l, 0), UINT64_MAX,
			      TIERD_REASON_RESERVE_DEMOTION);
		if (r < 0)
			return r;
	}
	held = tierd_min_u64(reserve, l.room[0]);
	l.room[0] -= held;
	/* The victims' keys are spent: the candidates reuse the buffer. */
	collect_candidates(s, hot, l.nr_tiers);
	for (size_t i = 0; i < s->nr_cand && tierd_ledger_has_budget(&l); i++) {
		const struct candidate *c = &s->cand[s->idx[i]];

		if (c->region != NO_REGION && s->claim[c->region])
			continue;
		r = promote(s, &l, hot, c);
		if (r < 0)
			break;
	}
	l.room[0] += held;
	return r < 0 ? r : 0;
}

void tierd_exchange_stats(const void *state, struct tierd_exchange_stats *ret)
{
	const struct exchange_state *s = state;

	*ret = s->stats;
	ret->alloc_rate = s->alloc.bytes_per_sec;
}

const struct tierd_strategy_ops tierd_strategy_exchange = {
	.name = "exchange",
	.init = exchange_init,
	.observe = exchange_observe,
	.plan = exchange_plan,
	.free = exchange_free,
};
