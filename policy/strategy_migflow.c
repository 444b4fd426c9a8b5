/* The "migflow" strategy: MigFlow's three mechanisms over DAMON-like
 * regions (the MigFlow README, "What is MigFlow?").
 *
 * Quick demotion: new address space goes through the 2Q tracker
 * (migflow_tracker.h); what cooled right after its allocation burst is moved
 * straight to the slowest tier with room.
 *
 * Cost-benefit promotion: a region on a slower tier is promoted when the
 * latency it would save over the horizon beats its migration cost times the
 * penalty factor alpha = max(alpha_min, 4 x tier-0 hit ratio). Candidates go
 * best gain first (the gain-rank table of daemon/migration.cc) into the
 * fastest tier with room; when that tier has none, its least-frequently-used
 * regions, colder than the candidate, are LFU-demoted first to make room.
 * alpha prices that displacement: a move into room the tier already has
 * free displaces nothing and pays at alpha_min.
 *
 * Room for new pages: before the promotions, the fastest tier keeps room
 * for MIGFLOW_HEADROOM_USEC of the cgroup's allocation rate, made by LFU
 * demotion and left alone by the promotions (alloc-burst in tiersim: 1.98
 * -> 1.40 x_causal at 1:1:2:2; README.md).
 *
 * Budget: a phase of `budget.period` may move `budget.bytes`, spent as the
 * daemon's [Phase] line shows: quick demotion (at most half), LFU
 * demotion, promotion, then quick demotion again with what is left.
 *
 * The access model: DAMON checks one random page of a region per sampling
 * interval, so nr_accesses / max_accesses is a page's chance of being seen
 * accessed in one interval, and a page of the region is accessed about
 * nr_accesses x horizon / aggr_usec times over the horizon (a lower bound:
 * one access per interval seen). Gains and costs are then per page, which
 * is what the budget buys. Hint-fault samples are candidates beside the
 * regions: a page whose remembered faults came a mean interval_usec after
 * it was made inaccessible is accessed about horizon / interval_usec times
 * (sample_history.h; the shortest interval made thousands of cold pages a
 * tick outrank hot ones: reaccess intervals are about exponential, so 1 /
 * interval has a heavy tail). Candidates go in two
 * passes: in the first only a region's promotion makes room by LFU
 * demotion; in the second a sampled page that found no room makes its own,
 * an exchange, so hint faults move a full tier 0 as the kernel's do.
 * Attributed regions can hold fewer bytes than their span
 * (tierd_region_bytes): moves book the bytes for room and the span for the
 * budget (tierd_action_cost), a part of a region its even share of them
 * (tierd_region_share); quick demotion's half of the budget and the phase
 * count the span too. Measured in tiersim (README.md): geomean x_causal
 * 1.332 -> 1.27 over the 14 runs with the exchange for sampled pages, 1.20
 * with room for new pages and the span counted, 1.16 with the mean interval
 * and alpha_min into free room.
 *
 * Where it is not MigFlow: regions, not pages; the burst and grace windows
 * are fixed (ktrackd stretches them with the burst-access pressure); the
 * cooled queue is served in address order, not per tier; one per-page
 * migration cost for every pair of tiers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_rate.h"
#include "migflow_tracker.h"
#include "sample_history.h"
#include "strategy.h"
#include "strategy_ledger.h"
#include "strategy_migflow.h"
#include "strategy_params.h"
#include "strategy_scratch.h"
#include "units.h"
#include "util.h"

/* ktrackd's base residence times in the burst and the grace queue:
 * burst_msec = 15000, grace_msec = 2000 in the artifact's module/tracker.c
 * (github.com/dgist-datalab/MigFlow), the 2Q tracker that
 * the MigFlow README "Kernel module" describes. ktrackd stretches
 * both under burst-access pressure; we keep the base. */
#define MIGFLOW_BURST_USEC (15 * TIERD_USEC_PER_SEC)
#define MIGFLOW_GRACE_USEC (2 * TIERD_USEC_PER_SEC)
/* Migrating one 4 KiB page: the artifact's measured table (mig_cost in
 * daemon/migration.cc, the "cost-benefit promotion" of
 * the MigFlow README "Daemon": copy plus unmap, TLB shootdown and
 * move_pages(2) work) gives 11.6 us from remote DRAM, 19.3 us from local PMEM and 30.1 us
 * from remote PMEM into local DRAM. 20 us is the middle, the common
 * PMEM-to-DRAM promotion. */
#define MIGFLOW_COST_PER_PAGE_USEC 20u
#define MIGFLOW_NSEC_PER_USEC 1000u
/* The horizon a promotion must pay back in: one phase, after which the
 * daemon decides again (the MigFlow README, Results: a [Phase] line
 * every 10 seconds). */
#define MIGFLOW_HORIZON_USEC (10 * TIERD_USEC_PER_SEC)
/* alpha = max(alpha_min, 4 x tier-0 hit ratio), "at least 1.0"
 * (the MigFlow README, Results, the [Phase] line; Appendix B, -l).
 * Without the dynamic factor (-a 0) the artifact keeps alpha at its base. */
#define MIGFLOW_ALPHA_BASE 4u
#define MIGFLOW_ALPHA_MIN_PMY TIERD_PMY_ONE
/* 800 MB per 10 s (the MigFlow README, "Daemon": "an 800 MB / 10 s
 * migration budget"); the daemon counts MB of 4 KiB pages, so MiB. */
#define MIGFLOW_BUDGET_BYTES (800ull << 20)
#define MIGFLOW_BUDGET_PERIOD_USEC (10 * TIERD_USEC_PER_SEC)
/* Quick demotion before the promotions takes at most half of the budget
 * (the MigFlow README, Results, the [Phase] line: 399 of 800 MB
 * first, the rest after the promotions). */
#define MIGFLOW_QUICK_FIRST_PMY 5000u
/* Read latencies when the topology does not know them (no HMAT): the
 * artifact's tier_lat for local DRAM, remote DRAM, local PMEM and remote
 * PMEM; deeper tiers count as the last. */
#define MIGFLOW_FALLBACK_T0_NS 80u
#define MIGFLOW_FALLBACK_T1_NS 130u
#define MIGFLOW_FALLBACK_T2_NS 300u
#define MIGFLOW_FALLBACK_T3_NS 350u
/* Room kept free in the fastest tier for the cgroup's new pages: as many
 * seconds of its allocation rate. First touch puts a page in the fastest
 * tier with a free page (the MigFlow README: lowest-latency-first
 * allocation), and a new page is at its hottest (its burst), so a full
 * fast tier sends the hottest pages to a slow one; the kernel's kswapd
 * keeps such room at its watermarks when demotion is on, as MigFlow runs. */
#define MIGFLOW_HEADROOM_USEC (2 * TIERD_USEC_PER_SEC)
/* LFU order key: tier in the top byte, accesses in the next 24 bits, age
 * (inverted, so older first) in the low 32. */
#define LFU_TIER_SHIFT 56u
#define LFU_ACCESS_SHIFT 32u
#define LFU_ACCESS_MAX ((1u << (LFU_TIER_SHIFT - LFU_ACCESS_SHIFT)) - 1u)
/* A candidate from a page sample: no region to claim or make room for. */
#define NO_REGION SIZE_MAX

/* What this tick already moved a region for, so no region moves twice. */
enum claim {
	CLAIM_NONE,
	CLAIM_QUICK,
	CLAIM_LFU,
	CLAIM_PROMOTE,
};

/* The tiers as this tick sees them: fastest first, with latencies. */
struct view {
	size_t nr;
	size_t speed[TIERD_MAX_TIERS];   /* tier indexes, fastest first */
	size_t rank[TIERD_MAX_TIERS];    /* where each tier is in speed[] */
	uint32_t lat_ns[TIERD_MAX_TIERS];
};

struct candidate {
	uint64_t start, end;
	size_t tier;
	size_t region;                   /* index in hot->regions, or NO_REGION */
	uint64_t accesses;               /* per page over the horizon */
	bool moved;                      /* promote_one proposed some of it */
};

struct migflow_state {
	/* params */
	uint64_t burst_usec, grace_usec;
	uint64_t cost_usec;              /* per page, as written */
	uint64_t cost_ns;                /* the same, in the unit of latencies */
	uint64_t horizon_usec;
	uint64_t alpha_min_pmy;
	bool dynamic_alpha, quick_demotion;
	uint64_t budget_bytes, budget_period_usec;
	/* between ticks */
	bool phase_started;
	uint64_t phase_start_usec, phase_used_bytes;
	uint64_t alpha_pmy, hit_ratio_pmy;
	int error;                       /* from observe, returned by plan */
	struct tierd_migflow_tracker tracker;
	struct tierd_sample_history history; /* faults per sampled page */
	uint64_t quick_bytes, promoted_bytes, lfu_bytes;
	struct tierd_alloc_rate alloc;   /* of usage, anon + file, all tiers */
	/* per-tick buffers, kept so a tick allocates only while they grow */
	size_t cap_order, cap_keys, cap_tmp, cap_claim, cap_lfu, cap_pick;
	size_t cap_cand, cap_cand_key, cap_cand_idx;
	size_t *order;                   /* region indexes by start */
	uint64_t *keys;                  /* sort keys, any sort */
	size_t *tmp;                     /* radix sort scratch */
	uint8_t *claim;                  /* enum claim per region */
	size_t *lfu;                     /* LFU order of regions */
	size_t *pick;                    /* sample indexes by page */
	struct candidate *cand;
	uint64_t *cand_key;
	size_t *cand_idx;
	size_t nr_cand;
	bool lfu_ready;
	size_t lfu_pos[TIERD_MAX_TIERS], lfu_end[TIERD_MAX_TIERS];
	uint64_t lfu_off[TIERD_MAX_TIERS];
};

static uint64_t clamp_u64(unsigned __int128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* ---- tiers --------------------------------------------------------- */

static bool latencies_known(const struct tierd_topology *topo)
{
	for (size_t t = 0; t < topo->nr_tiers; t++)
		if (!topo->tiers[t].read_latency_ns)
			return false;
	return true;
}

static uint32_t fallback_latency_ns(size_t tier)
{
	switch (tier) {
	case 0:
		return MIGFLOW_FALLBACK_T0_NS;
	case 1:
		return MIGFLOW_FALLBACK_T1_NS;
	case 2:
		return MIGFLOW_FALLBACK_T2_NS;
	default:
		return MIGFLOW_FALLBACK_T3_NS;
	}
}

/* Tier indexes fastest first: by read latency (ties by tier order), or
 * in tier order when a latency is unknown. Insertion sort: at most
 * TIERD_MAX_TIERS. Returns the number of tiers. */
static size_t speed_order(const struct tierd_topology *topo, size_t *speed)
{
	bool known = latencies_known(topo);
	size_t n = topo->nr_tiers < TIERD_MAX_TIERS ? topo->nr_tiers : TIERD_MAX_TIERS;

	for (size_t t = 0; t < n; t++) {
		size_t j = t;

		while (known && j > 0 &&
		       topo->tiers[speed[j - 1]].read_latency_ns > topo->tiers[t].read_latency_ns) {
			speed[j] = speed[j - 1];
			j--;
		}
		speed[j] = t;
	}
	return n;
}

int tierd_migflow_place(const struct tierd_topology *topo, const uint64_t *room_bytes,
			uint64_t bytes)
{
	size_t speed[TIERD_MAX_TIERS];
	size_t n = speed_order(topo, speed);

	for (size_t i = 0; i < n; i++)
		if (room_bytes[speed[i]] >= bytes)
			return (int)speed[i];
	return -ENOSPC;
}

static void view_init(struct view *v, const struct tierd_topology *topo)
{
	bool known = latencies_known(topo);

	v->nr = speed_order(topo, v->speed);
	for (size_t i = 0; i < v->nr; i++) {
		size_t t = v->speed[i];

		v->rank[t] = i;
		v->lat_ns[t] = known ? topo->tiers[t].read_latency_ns : fallback_latency_ns(t);
	}
}

static bool tier_valid(const struct view *v, int tier)
{
	return tier >= 0 && (size_t)tier < v->nr;
}

/* ---- the ledger ---------------------------------------------------- */

/* The engine's budget, within what is left of the phase's. */
static void ledger_init(struct tierd_ledger *l, const struct tierd_strategy_input *in,
			struct tierd_action_list *out, uint64_t phase_left)
{
	tierd_ledger_init(l, in, out);
	l->budget = tierd_page_down(tierd_min_u64(in->budget_bytes, phase_left));
}

/* Books a move of the `bytes` the span [start, end) holds in the ledger
 * and the [Phase] line's counters; the phase pays the span, as the
 * engine's budget does (tierd_action_cost). */
static int propose(struct migflow_state *s, struct tierd_ledger *l, enum tierd_reason reason,
		   size_t from, size_t to, uint64_t start, uint64_t end, uint64_t bytes)
{
	int r = tierd_ledger_move_span(l, reason, from, to, start, end, bytes);

	if (r < 0)
		return r;
	s->phase_used_bytes += end - start;
	if (reason == TIERD_REASON_QUICK_DEMOTION)
		s->quick_bytes += bytes;
	else if (reason == TIERD_REASON_LFU_DEMOTION)
		s->lfu_bytes += bytes;
	else
		s->promoted_bytes += bytes;
	return 0;
}

/* ---- params -------------------------------------------------------- */

void tierd_migflow_params_default(struct tierd_migflow_params *p)
{
	p->burst_usec = MIGFLOW_BURST_USEC;
	p->grace_usec = MIGFLOW_GRACE_USEC;
	p->cost_usec = MIGFLOW_COST_PER_PAGE_USEC;
	p->horizon_usec = MIGFLOW_HORIZON_USEC;
	p->alpha_min_pmy = MIGFLOW_ALPHA_MIN_PMY;
	p->dynamic_alpha = true;
	p->quick_demotion = true;
	p->budget_bytes = MIGFLOW_BUDGET_BYTES;
	p->budget_period_usec = MIGFLOW_BUDGET_PERIOD_USEC;
}

static uint64_t initial_alpha_pmy(const struct migflow_state *s)
{
	return tierd_max_u64(s->alpha_min_pmy, (uint64_t)MIGFLOW_ALPHA_BASE * TIERD_PMY_ONE);
}

static void migflow_free(void *state)
{
	struct migflow_state *s = state;

	if (!s)
		return;
	tierd_migflow_tracker_free(&s->tracker);
	tierd_sample_history_free(&s->history);
	free(s->order);
	free(s->keys);
	free(s->tmp);
	free(s->claim);
	free(s->lfu);
	free(s->pick);
	free(s->cand);
	free(s->cand_key);
	free(s->cand_idx);
	free(s);
}

static int migflow_init(const struct tierd_strategy_params *params, void **ret_state)
{
	struct tierd_migflow_params p;
	struct migflow_state *s;

	if (tierd_strategy_params_get(params, TIERD_STRATEGY_MIGFLOW, &p, sizeof(p)) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->burst_usec = p.burst_usec;
	s->grace_usec = p.grace_usec;
	s->cost_usec = p.cost_usec;
	s->horizon_usec = p.horizon_usec;
	s->alpha_min_pmy = p.alpha_min_pmy;
	s->dynamic_alpha = p.dynamic_alpha;
	s->quick_demotion = p.quick_demotion;
	s->budget_bytes = p.budget_bytes;
	s->budget_period_usec = p.budget_period_usec;
	s->cost_ns = s->cost_usec * MIGFLOW_NSEC_PER_USEC;
	s->alpha_pmy = initial_alpha_pmy(s);
	*ret_state = s;
	return 0;
}

/* ---- per-tick preparation ------------------------------------------ */

/* Every buffer a tick can need, sized up front: nothing grows mid-plan. */
static int reserve_tick(struct migflow_state *s, const struct tierd_hotness *hot)
{
	size_t regions = hot->nr_regions, samples = hot->nr_samples;
	size_t most = tierd_max_u64(regions, samples), both = regions + samples;
	const struct tierd_reserve_req reqs[] = {
		{ (void **)&s->order, &s->cap_order, regions, sizeof(*s->order) },
		{ (void **)&s->keys, &s->cap_keys, most, sizeof(*s->keys) },
		{ (void **)&s->tmp, &s->cap_tmp, both, sizeof(*s->tmp) },
		{ (void **)&s->claim, &s->cap_claim, regions, sizeof(*s->claim) },
		{ (void **)&s->lfu, &s->cap_lfu, regions, sizeof(*s->lfu) },
		{ (void **)&s->pick, &s->cap_pick, samples, sizeof(*s->pick) },
		{ (void **)&s->cand, &s->cap_cand, both, sizeof(*s->cand) },
		{ (void **)&s->cand_key, &s->cap_cand_key, both, sizeof(*s->cand_key) },
		{ (void **)&s->cand_idx, &s->cap_cand_idx, both, sizeof(*s->cand_idx) },
	};

	return tierd_reserve_all(reqs, TIERD_ARRAY_SIZE(reqs));
}

/* s->order: region indexes by start address. DAMON reports them sorted;
 * anything else is radix sorted. */
static void order_regions(struct migflow_state *s, const struct tierd_hotness *hot)
{
	bool sorted = true;

	for (size_t i = 0; i < hot->nr_regions; i++) {
		s->order[i] = i;
		s->keys[i] = hot->regions[i].start;
		if (i && hot->regions[i - 1].start > hot->regions[i].start)
			sorted = false;
	}
	if (!sorted)
		tierd_radix_sort(s->keys, s->order, s->tmp, hot->nr_regions);
}

/* Budget left in the current phase; a phase that ran out, or a clock that
 * went back, starts a new one. */
static uint64_t phase_left(struct migflow_state *s, uint64_t now)
{
	if (!s->phase_started || now < s->phase_start_usec ||
	    now - s->phase_start_usec >= s->budget_period_usec) {
		s->phase_started = true;
		s->phase_start_usec = now;
		s->phase_used_bytes = 0;
	}
	return s->budget_bytes > s->phase_used_bytes ? s->budget_bytes - s->phase_used_bytes : 0;
}

/* Expected accesses of one page of the region over the horizon. */
static uint64_t region_accesses(const struct migflow_state *s, const struct tierd_region *reg)
{
	if (!reg->aggr_usec)
		return 0;
	return clamp_u64((unsigned __int128)reg->nr_accesses * s->horizon_usec / reg->aggr_usec);
}

/* alpha = max(alpha_min, 4 x h), h the share of this tick's observed
 * accesses on the fastest tier (the artifact's update_dyn_alpha(); a tick
 * that saw nothing keeps the previous alpha). Regions weigh their pages
 * times the accesses of each, as DAMON samples every tier alike; samples,
 * only when no region saw an access, count one each. */
static void update_alpha(struct migflow_state *s, const struct tierd_strategy_input *in,
			 const struct view *v)
{
	const struct tierd_hotness *hot = in->hot;
	unsigned __int128 total = 0, fast = 0;

	if (!v->nr)
		return;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];
		unsigned __int128 w;

		if (!tier_valid(v, reg->tier) || reg->end <= reg->start)
			continue;
		w = (unsigned __int128)region_accesses(s, reg) *
		    ((reg->end - reg->start) / TIERD_PAGE_BYTES);
		total += w;
		if ((size_t)reg->tier == v->speed[0])
			fast += w;
	}
	for (size_t i = 0; !total && i < hot->nr_samples; i++) {
		if (!tier_valid(v, hot->samples[i].tier))
			continue;
		total++;
		fast += (size_t)hot->samples[i].tier == v->speed[0];
	}
	if (!total)
		return;
	s->hit_ratio_pmy = (uint64_t)(fast * TIERD_PMY_ONE / total);
	if (s->dynamic_alpha)
		s->alpha_pmy = tierd_max_u64(s->alpha_min_pmy, MIGFLOW_ALPHA_BASE * s->hit_ratio_pmy);
}

/* Rolls the phase, retunes alpha and ages the tracker. A failure is kept
 * for plan to return. */
static void migflow_observe(void *state, const struct tierd_strategy_input *in)
{
	struct migflow_state *s = state;
	struct view v;
	int r;

	view_init(&v, in->topo);
	(void)phase_left(s, in->now_usec);
	update_alpha(s, in, &v);
	tierd_alloc_rate_update(&s->alloc, in->standing->usage_bytes, in->now_usec);
	r = reserve_tick(s, in->hot);
	if (r >= 0)
		r = tierd_sample_history_update(&s->history, in->hot);
	if (r >= 0) {
		order_regions(s, in->hot);
		r = tierd_migflow_tracker_update(&s->tracker, in->hot, s->order, in->now_usec,
						 s->burst_usec, s->grace_usec);
	}
	if (r < 0)
		s->error = r;
}

/* ---- quick demotion ------------------------------------------------ */

/* Of [a, b), a piece of region reg that holds `held`, the span a move of
 * `bytes` takes: all of it when bytes cover what it holds and the budget
 * pays its span (tierd_action_cost), else the front that holds `bytes`,
 * within the budget. */
static uint64_t span_holding(const struct tierd_ledger *l, const struct tierd_region *reg,
			     uint64_t a, uint64_t b, uint64_t bytes, uint64_t held)
{
	if (bytes >= held && b - a <= l->budget)
		return b - a;
	return tierd_min_u64(tierd_min_u64(b - a, tierd_region_span_for(reg, bytes)),
			     tierd_page_down(l->budget));
}

/* The slowest tier below `from` that can take a page, or -1. */
static int slowest_with_room(const struct view *v, const struct tierd_ledger *l, size_t from)
{
	for (size_t i = v->nr; i-- > v->rank[from] + 1;)
		if (tierd_ledger_fits(l, v->speed[i]))
			return (int)v->speed[i];
	return -1;
}

/* Proposes what it can of [a, b), a piece of region reg, to the slowest
 * tier with room: *ret_bytes of the cgroup's memory in the front *ret_span
 * of the piece, 0 when nothing. Returns 0 or -ENOMEM. */
static int demote_piece(struct migflow_state *s, struct tierd_ledger *l, const struct view *v,
			const struct tierd_region *reg, uint64_t a, uint64_t b, uint64_t limit,
			uint64_t *ret_bytes, uint64_t *ret_span)
{
	int to = slowest_with_room(v, l, (size_t)reg->tier);
	uint64_t held = tierd_region_share(reg, b - a), bytes;

	*ret_bytes = *ret_span = 0;
	if (to < 0)
		return 0;
	bytes = tierd_ledger_region_clip(l, reg, tierd_min_u64(tierd_min_u64(held, tierd_ledger_fits(l, (size_t)to)),
						   tierd_region_share(reg, limit)));
	if (!bytes)
		return 0;
	*ret_bytes = bytes;
	*ret_span = tierd_min_u64(span_holding(l, reg, a, b, bytes, held), tierd_page_down(limit));
	return propose(s, l, TIERD_REASON_QUICK_DEMOTION, (size_t)reg->tier, (size_t)to, a,
		       a + *ret_span, bytes);
}

/* One cooled entry, piece by piece (the part over each region), each from
 * its tier to the slowest tier with room, within *limit. The entry leaves
 * the queue when every piece went or was on the slowest tier already; a
 * prefix that went is cut off it; the rest is tried again next tick. */
static int demote_entry(struct migflow_state *s, struct tierd_ledger *l,
			const struct tierd_hotness *hot, const struct view *v,
			struct tierd_migflow_entry *e, size_t pos, uint64_t *limit)
{
	size_t slowest = v->speed[v->nr - 1];
	bool whole = true;   /* every piece so far went or needs nothing */
	int r;

	for (size_t k = pos; k < hot->nr_regions; k++) {
		size_t ri = s->order[k];
		const struct tierd_region *reg = &hot->regions[ri];
		uint64_t a = tierd_max_u64(e->start, reg->start), b = tierd_min_u64(e->end, reg->end);
		uint64_t bytes = 0, span = b - a;

		if (reg->start >= e->end)
			break;
		if (b <= a)
			continue;
		if (tierd_min_u64(*limit, l->budget) < TIERD_PAGE_BYTES) {
			whole = false;
			break;
		}
		/* Mixed or unknown placement, or moved this tick for
		 * another reason: later. */
		if (!tier_valid(v, reg->tier) ||
		    (s->claim[ri] != CLAIM_NONE && s->claim[ri] != CLAIM_QUICK)) {
			whole = false;
			continue;
		}
		if ((size_t)reg->tier != slowest) {
			r = demote_piece(s, l, v, reg, a, b, *limit, &bytes, &span);
			if (r < 0)
				return r;
			if (bytes)
				s->claim[ri] = CLAIM_QUICK;
			*limit -= tierd_min_u64(*limit, span);
		}
		if (whole)
			e->start = a + span;
		if (a + span < b)
			whole = false;
	}
	if (whole)
		e->stage = TIERD_MIGFLOW_DONE;
	return 0;
}

/* Quick demotion of up to `limit` bytes of the cooled queue, in address
 * order (the artifact's select_qd_cand() serves it per tier). */
static int quick_demote(struct migflow_state *s, struct tierd_ledger *l,
			const struct tierd_strategy_input *in, const struct view *v,
			uint64_t limit)
{
	const struct tierd_hotness *hot = in->hot;
	size_t pos = 0;
	int r;

	if (!s->quick_demotion)
		return 0;
	for (size_t i = 0; i < s->tracker.nr; i++) {
		struct tierd_migflow_entry *e = &s->tracker.entries[i];

		if (tierd_min_u64(limit, l->budget) < TIERD_PAGE_BYTES)
			break;
		if (e->stage != TIERD_MIGFLOW_COOLED)
			continue;
		pos = tierd_migflow_seek(hot, s->order, pos, e->start);
		r = demote_entry(s, l, hot, v, e, pos, &limit);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- LFU demotion -------------------------------------------------- */

/* Regions with a known tier by (tier, nr_accesses, older first), and where
 * each tier's run starts and ends. Built once a tick, when first needed. */
static void lfu_prepare(struct migflow_state *s, const struct tierd_hotness *hot,
			const struct view *v)
{
	size_t n = 0;

	if (s->lfu_ready)
		return;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];

		if (!tier_valid(v, reg->tier) || reg->end <= reg->start)
			continue;
		s->keys[i] = (uint64_t)reg->tier << LFU_TIER_SHIFT |
			     tierd_min_u64(reg->nr_accesses, LFU_ACCESS_MAX) << LFU_ACCESS_SHIFT |
			     (UINT32_MAX - reg->age);
		s->lfu[n++] = i;
	}
	tierd_radix_sort(s->keys, s->lfu, s->tmp, n);
	memset(s->lfu_pos, 0, sizeof(s->lfu_pos));
	memset(s->lfu_end, 0, sizeof(s->lfu_end));
	memset(s->lfu_off, 0, sizeof(s->lfu_off));
	for (size_t i = n; i-- > 0;) {
		size_t t = (size_t)hot->regions[s->lfu[i]].tier;

		if (!s->lfu_end[t])
			s->lfu_end[t] = i + 1;
		s->lfu_pos[t] = i;
	}
	s->lfu_ready = true;
}

/* The next tier below `from` that can take a page, or -1. */
static int next_with_room(const struct view *v, const struct tierd_ledger *l, size_t from)
{
	for (size_t i = v->rank[from] + 1; i < v->nr; i++)
		if (tierd_ledger_fits(l, v->speed[i]))
			return (int)v->speed[i];
	return -1;
}

/* LFU demotion (the MigFlow README, "Daemon"; the artifact's select_demo_cand()): frees up
 * to `want` bytes of tier `tier` by moving its least-frequently-used
 * regions to the next tier down with room; only regions colder than the
 * candidate (fewer accesses per page), as a full tier takes only pages
 * hotter than its coldest. */
static int make_room(struct migflow_state *s, struct tierd_ledger *l,
		     const struct tierd_strategy_input *in, const struct view *v, size_t tier,
		     uint64_t want, uint64_t accesses)
{
	const struct tierd_hotness *hot = in->hot;
	int r;

	lfu_prepare(s, hot, v);
	while (want >= TIERD_PAGE_BYTES && s->lfu_pos[tier] < s->lfu_end[tier]) {
		size_t ri = s->lfu[s->lfu_pos[tier]];
		const struct tierd_region *reg = &hot->regions[ri];
		uint64_t size = reg->end - reg->start, a, held, bytes, span;
		int to;

		if (s->claim[ri] != CLAIM_NONE && s->claim[ri] != CLAIM_LFU) {
			s->lfu_pos[tier]++;
			s->lfu_off[tier] = 0;
			continue;
		}
		if (region_accesses(s, reg) >= accesses)
			break;
		to = next_with_room(v, l, tier);
		if (to < 0)
			break;
		a = reg->start + s->lfu_off[tier];
		held = tierd_region_share(reg, reg->end - a);
		bytes = tierd_ledger_region_clip(l, reg, tierd_min_u64(tierd_min_u64(held, want),
							    tierd_ledger_fits(l, (size_t)to)));
		if (!bytes)
			break;
		span = span_holding(l, reg, a, reg->end, bytes, held);
		r = propose(s, l, TIERD_REASON_LFU_DEMOTION, tier, (size_t)to, a, a + span, bytes);
		if (r < 0)
			return r;
		s->claim[ri] = CLAIM_LFU;
		want -= bytes;
		s->lfu_off[tier] += span;
		if (s->lfu_off[tier] >= size) {
			s->lfu_pos[tier]++;
			s->lfu_off[tier] = 0;
		}
	}
	return 0;
}

/* ---- cost-benefit promotion ---------------------------------------- */

/* Saved latency over the horizon beats the migration cost times alpha:
 * accesses x (lat_from - lat_to) > cost x alpha, exactly, in ns a page. */
static bool pays_at(const struct migflow_state *s, uint64_t accesses, uint32_t lat_from,
		    uint32_t lat_to, uint64_t alpha_pmy)
{
	if (lat_from <= lat_to)
		return false;
	return (unsigned __int128)accesses * (lat_from - lat_to) * TIERD_PMY_ONE >
	       (unsigned __int128)s->cost_ns * alpha_pmy;
}

/* Net gain per page (ns) of a move that pays. */
static uint64_t gain_ns(const struct migflow_state *s, uint64_t accesses, uint32_t lat_from,
			uint32_t lat_to)
{
	unsigned __int128 saved = (unsigned __int128)accesses * (lat_from - lat_to);
	unsigned __int128 cost = (unsigned __int128)s->cost_ns * s->alpha_pmy / TIERD_PMY_ONE;

	return clamp_u64(saved - cost);
}

/* Keeps a candidate whose move into the fastest tier pays, keyed so that
 * the highest gain sorts first (the gain-rank table). */
static void add_candidate(struct migflow_state *s, const struct view *v,
			  const struct candidate *c)
{
	uint32_t lat_from = v->lat_ns[c->tier], lat_to = v->lat_ns[v->speed[0]];

	if (!pays_at(s, c->accesses, lat_from, lat_to, s->alpha_min_pmy))
		return;
	s->cand_key[s->nr_cand] = UINT64_MAX - gain_ns(s, c->accesses, lat_from, lat_to);
	s->cand_idx[s->nr_cand] = s->nr_cand;
	s->cand[s->nr_cand++] = *c;
}

static void region_candidates(struct migflow_state *s, const struct tierd_hotness *hot,
			      const struct view *v)
{
	for (size_t i = 0; i < hot->nr_regions; i++) {
		size_t ri = s->order[i];
		const struct tierd_region *reg = &hot->regions[ri];
		struct candidate c;

		if (!tier_valid(v, reg->tier) || !v->rank[reg->tier] || !reg->nr_accesses ||
		    reg->end <= reg->start)
			continue;
		c = (struct candidate){ .start = reg->start, .end = reg->end,
					.tier = (size_t)reg->tier, .region = ri,
					.accesses = region_accesses(s, reg) };
		add_candidate(s, v, &c);
	}
}

/* One candidate per sampled page (radix sorted by page, so a page's
 * samples are neighbours), at the mean interval of its remembered faults,
 * once more than one scan saw it accessed (sample_history.h). */
static void sample_candidates(struct migflow_state *s, const struct tierd_hotness *hot,
			      const struct view *v)
{
	size_t n = 0;

	for (size_t i = 0; i < hot->nr_samples; i++) {
		const struct tierd_sample *sm = &hot->samples[i];

		if (!tier_valid(v, sm->tier) || !v->rank[sm->tier] || !sm->interval_usec ||
		    !tierd_sample_history_confirmed(&s->history, sm->addr))
			continue;
		s->keys[i] = sm->addr / TIERD_PAGE_BYTES;
		s->pick[n++] = i;
	}
	tierd_radix_sort(s->keys, s->pick, s->tmp, n);
	for (size_t i = 0; i < n;) {
		const struct tierd_sample *first = &hot->samples[s->pick[i]];
		uint64_t page = s->keys[s->pick[i]];
		uint64_t mean = tierd_sample_history_mean_interval(&s->history, first->addr);
		struct candidate c;

		while (++i < n && s->keys[s->pick[i]] == page)
			continue;
		c = (struct candidate){ .start = page * TIERD_PAGE_BYTES,
					.end = (page + 1) * TIERD_PAGE_BYTES,
					.tier = (size_t)first->tier, .region = NO_REGION,
					.accesses = s->horizon_usec / mean };
		add_candidate(s, v, &c);
	}
}

/* One candidate into the fastest tier where it pays and fits; where that
 * tier lacks room, LFU demotion makes some first, so the demotions come
 * right before the promotion that needs them. */
static int promote_one(struct migflow_state *s, struct tierd_ledger *l,
		       const struct tierd_strategy_input *in, const struct view *v,
		       struct candidate *c, bool page_room)
{
	const struct tierd_region *reg = c->region != NO_REGION ? &in->hot->regions[c->region] : NULL;
	uint64_t start = c->start;
	int r;

	for (size_t i = 0; i < v->rank[c->tier] && start < c->end; i++) {
		size_t to = v->speed[i];
		uint64_t held, want, room, bytes, span;

		if (!tierd_ledger_has_budget(l))
			break;
		held = reg ? tierd_region_share(reg, c->end - start) : c->end - start;
		want = tierd_ledger_region_clip(l, reg, held);
		room = tierd_ledger_fits(l, to);
		/* A slower destination saves less for the same cost. */
		if (!pays_at(s, c->accesses, v->lat_ns[c->tier], v->lat_ns[to],
			     room >= want ? s->alpha_min_pmy : s->alpha_pmy))
			break;
		/* A byte of room costs a byte of demotion and a byte of
		 * promotion out of the budget. */
		if (room < want && (reg || page_room) && l->budget > room) {
			r = make_room(s, l, in, v, to,
				      tierd_min_u64(want - room, tierd_page_down((l->budget - room) / 2)),
				      c->accesses);
			if (r < 0)
				return r;
		}
		bytes = tierd_min_u64(want, tierd_ledger_fits(l, to));
		bytes = tierd_ledger_region_clip(l, reg, bytes);
		if (!bytes)
			continue;
		span = reg ? span_holding(l, reg, start, c->end, bytes, held) : bytes;
		r = propose(s, l, TIERD_REASON_COST_BENEFIT_PROMOTION, c->tier, to, start, start + span,
			    bytes);
		if (r < 0)
			return r;
		if (reg)
			s->claim[c->region] = CLAIM_PROMOTE;
		c->moved = true;
		start += span;
	}
	return 0;
}

static int promote(struct migflow_state *s, struct tierd_ledger *l,
		   const struct tierd_strategy_input *in, const struct view *v)
{
	const struct tierd_hotness *hot = in->hot;
	int r;

	/* Both: a region's rate speaks for all its pages, a hint fault for
	 * one page a region may average away. */
	s->nr_cand = 0;
	region_candidates(s, hot, v);
	sample_candidates(s, hot, v);
	tierd_radix_sort(s->cand_key, s->cand_idx, s->tmp, s->nr_cand);
	for (size_t i = 0; i < s->nr_cand && tierd_ledger_has_budget(l); i++) {
		struct candidate *c = &s->cand[s->cand_idx[i]];

		if (c->region != NO_REGION && s->claim[c->region] != CLAIM_NONE)
			continue;
		r = promote_one(s, l, in, v, c, false);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < s->nr_cand && tierd_ledger_has_budget(l); i++) {
		struct candidate *c = &s->cand[s->cand_idx[i]];

		if (c->region != NO_REGION || c->moved)
			continue;
		r = promote_one(s, l, in, v, c, true);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A phase's budget is spent as the artifact's do_migration() spends it:
 * quick demotion (at most half), then promotions best gain first with the
 * LFU demotions they need, then quick demotion with what is left. */
static int migflow_plan(void *state, const struct tierd_strategy_input *in,
			struct tierd_action_list *out)
{
	struct migflow_state *s = state;
	struct tierd_ledger l;
	struct view v;
	uint64_t first, headroom, room, held;
	size_t fast;
	int r;

	if (s->error) {
		r = s->error;
		s->error = 0;
		return r;
	}
	view_init(&v, in->topo);
	if (v.nr < 2)
		return 0;
	r = reserve_tick(s, in->hot);
	if (r < 0)
		return r;
	order_regions(s, in->hot);
	if (in->hot->nr_regions)
		memset(s->claim, CLAIM_NONE, in->hot->nr_regions * sizeof(*s->claim));
	s->lfu_ready = false;
	ledger_init(&l, in, out, phase_left(s, in->now_usec));
	first = tierd_page_down((uint64_t)((unsigned __int128)l.budget * MIGFLOW_QUICK_FIRST_PMY /
					   TIERD_PMY_ONE));
	r = quick_demote(s, &l, in, &v, first);
	if (r < 0)
		return r;
	headroom = tierd_page_down(clamp_u64((unsigned __int128)s->alloc.bytes_per_sec *
					      MIGFLOW_HEADROOM_USEC / TIERD_USEC_PER_SEC));
	fast = v.speed[0];
	/* Like kswapd, before any promotion and from the whole budget: a new
	 * page is hotter than what a promotion would bring. */
	room = tierd_ledger_fits(&l, fast);
	if (room < headroom) {
		r = make_room(s, &l, in, &v, fast, headroom - room, UINT64_MAX);
		if (r < 0)
			return r;
	}
	held = tierd_min_u64(headroom, l.room[fast]);
	l.room[fast] -= held;
	r = promote(s, &l, in, &v);
	l.room[fast] += held;
	if (r < 0)
		return r;
	return quick_demote(s, &l, in, &v, UINT64_MAX);
}

void tierd_migflow_stats(const void *state, struct tierd_migflow_stats *ret)
{
	const struct migflow_state *s = state;

	*ret = (struct tierd_migflow_stats){
		.tracked_pages = s->tracker.counts.tracked_pages,
		.cooled_pages = s->tracker.counts.cooled_pages,
		.warm_pages = s->tracker.counts.warm_pages,
		.reaccessed_pages = s->tracker.counts.reaccessed_pages,
		.queued_bytes = tierd_migflow_tracker_queued_bytes(&s->tracker),
		.quick_demoted_bytes = s->quick_bytes,
		.promoted_bytes = s->promoted_bytes,
		.lfu_demoted_bytes = s->lfu_bytes,
		.phase_used_bytes = s->phase_used_bytes,
		.phase_budget_bytes = s->budget_bytes,
		.alloc_rate_bytes = s->alloc.bytes_per_sec,
		.hit_ratio_pmy = (uint32_t)s->hit_ratio_pmy,
		.alpha_pmy = (uint32_t)s->alpha_pmy,
	};
}

const struct tierd_strategy_ops tierd_strategy_migflow = {
	.name = "migflow",
	.init = migflow_init,
	.observe = migflow_observe,
	.plan = migflow_plan,
	.free = migflow_free,
};
