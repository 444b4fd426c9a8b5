/* The "linux" strategy: a baseline that does what Linux does today with
 * numa_balancing=2 and demotion enabled (docs/kernel.md §4, §3.2).
 *
 * Promotion (NUMA balancing in memory-tiering mode, §4.1): the scanner
 * unmaps slow-tier pages only, and a hint fault on one promotes it to the
 * faulting CPU's node, the top tier, when the fault came sooner than the hot
 * threshold after the unmap, within a per-node promotion rate limit; when
 * the top tier has plenty free (pgdat_free_space_enough) every faulted page
 * goes up, unlimited. The threshold is retuned once per scan_period_max
 * against the rate limit. A page goes up alone (one MIGRATE per page) and
 * only to tier 0: a full tier 0 fails the promotion, no fallback.
 *
 * Demotion on demand (kswapd, §3.2, §4.2): a promotion that finds the top
 * tier unbalanced fails and wakes its kswapd (mm/migrate.c
 * migrate_misplaced_folio_prepare(): !migrate_balanced_pgdat() ->
 * wakeup_kswapd()), which demotes the LRU's coldest pages until the node is
 * balanced again at the promotion watermark (mm/vmscan.c pgdat_balanced()
 * checks WMARK_PROMO in tiering mode); the next faults then promote. The
 * kernel runs this loop many times a second; per tick it comes to this:
 * the tick's admitted candidates are the demand, tier 0 demotes its LRU
 * tail until it has room for the demand above its watermark, and the
 * candidates go up in the same tick. A demotion fills the next tier down,
 * whose own kswapd then demotes further: stepwise, one tier at a time
 * (mm/vmscan.c demote_folio_list() to next_demotion_node(), falling back to
 * any lower node with room, as this does). Demotion takes at most half the
 * migration budget, so promotion always has at least the other half.
 *
 * Inputs: page samples are hint faults, their interval_usec the fault
 * latency. A tick with no samples falls back on DAMON regions, which the
 * kernel's scanner would cover too: a region seen accessed nr_accesses times
 * in a window of aggr_usec is taken to fault aggr_usec / nr_accesses after
 * an unmap, and the whole region is one candidate. With samples, regions are
 * not used for promotion, so nothing is counted twice.
 *
 * Where it is not the kernel: its state is per cgroup, where the kernel's
 * rate limit and threshold are per top-tier node and shared by everyone; one
 * watermark stands for both kswapd's wake-up and its balance point;
 * promotions may use tier 0's free memory down to nothing, where
 * migrate_balanced_pgdat() stops them at WMARK_HIGH (0.1% of the node below
 * the default watermark); candidates are counted in bytes per whole
 * one-second window. */
#include <errno.h>
#include <stdlib.h>

#include "baseline_util.h"
#include "strategy.h"
#include "strategy_linux.h"
#include "strategy_params.h"
#include "units.h"
#include "util.h"

/* debugfs numa_balancing/hot_threshold_ms default 1000 (§4.2). */
#define LINUX_HOT_THRESHOLD_USEC (1000 * TIERD_USEC_PER_MSEC)
/* numa_balancing_promote_rate_limit_MBps default 65536, effectively no
 * limit (§4.2). */
#define LINUX_PROMOTE_RATE_LIMIT_MBPS 65536u
#define LINUX_BYTES_PER_MB (1ull << 20) /* MB_TO_PAGES(): MB << (20 - PAGE_SHIFT), MiB */
/* The rate limit counts candidates per one-second window
 * (numa_promotion_rate_limit, [6.12] kernel/sched/fair.c). */
#define LINUX_RATE_WINDOW_USEC TIERD_USEC_PER_SEC
/* Watermark: kswapd balances a node to WMARK_PROMO in tiering mode (§4.2).
 * WMARK_PROMO = WMARK_MIN + 3 x max(WMARK_MIN / 4, managed x
 * watermark_scale_factor / 10000) ([6.12] mm/page_alloc.c
 * __setup_per_zone_wmarks); watermark_scale_factor defaults to 10 (0.1%),
 * so 0.3% of the node plus WMARK_MIN, which min_free_kbytes
 * (sqrt(16 x lowmem KiB)) makes 0.04% on a 96 GiB node: 0.3%. */
#define LINUX_WATERMARK_PMY 30u
/* pgdat_free_space_enough(): above WMARK_PROMO + max(1 GiB, node / 16)
 * free, every faulted page is promoted, regardless of threshold and rate
 * limit ([6.12] kernel/sched/fair.c). */
#define LINUX_ENOUGH_FREE_MIN_BYTES (1ull << 30)
#define LINUX_ENOUGH_FREE_SHIFT 4u
/* numa_promotion_adjust_threshold(): once per scan_period_max_ms (default
 * 60000, §4.2) the threshold moves by 2 x hot_threshold / 16, down when the
 * period's candidates exceeded 110% of rate_limit x period, up below 90%,
 * within [one step, 2 x hot_threshold] (§4.1). */
#define LINUX_ADJUST_PERIOD_USEC (60 * TIERD_USEC_PER_SEC)
#define LINUX_ADJUST_STEPS 16u
#define LINUX_ADJUST_RANGE 2u
#define LINUX_ADJUST_HIGH_PCT 110u
#define LINUX_ADJUST_LOW_PCT 90u
#define LINUX_PCT_ONE 100u
/* scan_period_min_ms default 1000 (§4.2): how often slow-tier pages are
 * unmapped at the fastest; the top tier is not scanned at all (§4.1). */
#define LINUX_SCAN_PERIOD_USEC TIERD_USEC_PER_SEC
/* A region seen accessed at all is a candidate; its latency decides. */
#define LINUX_REGION_MIN_ACCESSES 1u
/* kswapd's demotion takes at most budget / this, promotion the rest. */
#define LINUX_DEMOTE_BUDGET_DIVISOR 2u

/* A promotion candidate the threshold and rate limit let through. */
struct linux_cand {
	size_t from;
	uint64_t start, bytes;
};

struct linux_state {
	/* params */
	uint64_t hot_threshold_usec;
	uint64_t rate_limit_mbps;
	uint64_t watermark_pmy;
	/* the kernel's per-node promotion state (pgdat->nbp_*) */
	bool started;
	uint64_t threshold_usec;         /* in force */
	uint64_t window_start_usec;      /* rate limit window */
	uint64_t window_bytes;           /* candidates in it */
	uint64_t period_start_usec;      /* threshold adjustment period */
	uint64_t period_bytes;           /* candidates in it */
	struct tierd_baseline_stats stats;
	struct tierd_baseline_scratch scratch;
	struct linux_cand *cand;         /* this tick's, kept to reuse */
	size_t nr_cand, cap_cand;
};

static uint64_t rate_limit_bytes(const struct linux_state *s)
{
	return s->rate_limit_mbps * LINUX_BYTES_PER_MB;
}

void tierd_linux_params_default(struct tierd_linux_params *p)
{
	p->hot_threshold_usec = LINUX_HOT_THRESHOLD_USEC;
	p->rate_limit_mbps = LINUX_PROMOTE_RATE_LIMIT_MBPS;
	p->watermark_pmy = LINUX_WATERMARK_PMY;
}

static int linux_init(const struct tierd_strategy_params *params, void **ret_state)
{
	struct tierd_linux_params p;
	_cleanup_free_ struct linux_state *s = NULL;

	if (tierd_strategy_params_get(params, TIERD_STRATEGY_LINUX, &p, sizeof(p)) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->hot_threshold_usec = p.hot_threshold_usec;
	s->rate_limit_mbps = p.rate_limit_mbps;
	s->watermark_pmy = p.watermark_pmy;
	s->threshold_usec = s->hot_threshold_usec;
	*ret_state = TIERD_TAKE_PTR(s);
	return 0;
}

static void linux_profile(void *state, const struct tierd_topology *topo, uint64_t *interval_usec)
{
	(void)state;
	for (size_t t = 1; t < topo->nr_tiers; t++)
		interval_usec[t] = LINUX_SCAN_PERIOD_USEC;
}

/* pgdat_free_space_enough() for the top tier with `free` bytes free. */
static bool free_space_enough(const struct linux_state *s, const struct tierd_topology *topo,
			      uint64_t free)
{
	uint64_t enough = tierd_max_u64(LINUX_ENOUGH_FREE_MIN_BYTES,
				  topo->tiers[0].total_bytes >> LINUX_ENOUGH_FREE_SHIFT);
	uint64_t wm = tierd_baseline_watermark_bytes(topo, 0, (uint32_t)s->watermark_pmy);

	return free > tierd_add_sat(wm, enough);
}

/* numa_promotion_adjust_threshold(), at the end of a period. */
static void adjust_threshold(struct linux_state *s, uint64_t now)
{
	uint64_t step = s->hot_threshold_usec * LINUX_ADJUST_RANGE / LINUX_ADJUST_STEPS;
	uint64_t ref = rate_limit_bytes(s) * (LINUX_ADJUST_PERIOD_USEC / TIERD_USEC_PER_SEC);

	if (s->period_bytes > ref / LINUX_PCT_ONE * LINUX_ADJUST_HIGH_PCT)
		s->threshold_usec = tierd_max_u64(s->threshold_usec > step ? s->threshold_usec - step : 0,
					    step);
	else if (s->period_bytes < ref / LINUX_PCT_ONE * LINUX_ADJUST_LOW_PCT)
		s->threshold_usec = tierd_min_u64(s->threshold_usec + step,
					    s->hot_threshold_usec * LINUX_ADJUST_RANGE);
	s->period_start_usec = now;
	s->period_bytes = 0;
}

/* Rolls the rate-limit window and retunes the threshold as the kernel does
 * on the tick's first fault. A clock that went back restarts both. */
static void linux_observe(void *state, const struct tierd_strategy_input *in)
{
	struct linux_state *s = state;
	uint64_t now = in->now_usec;

	if (!in->topo->nr_tiers)
		return;
	if (!s->started || now < s->window_start_usec || now < s->period_start_usec) {
		s->started = true;
		s->window_start_usec = s->period_start_usec = now;
		s->window_bytes = s->period_bytes = 0;
	}
	if (now - s->window_start_usec >= LINUX_RATE_WINDOW_USEC) {
		s->window_start_usec = now;
		s->window_bytes = 0;
	}
	/* Plenty free: the workload changed, the threshold starts over. */
	if (free_space_enough(s, in->topo, in->room_bytes[0]))
		s->threshold_usec = s->hot_threshold_usec;
	else if (now - s->period_start_usec >= LINUX_ADJUST_PERIOD_USEC)
		adjust_threshold(s, now);
}

static bool is_hot(const struct linux_state *s, uint64_t latency_usec)
{
	/* should_numa_migrate_memory(): latency >= th means no promotion; an
	 * unknown latency (0) cannot pass. */
	return latency_usec && latency_usec < s->threshold_usec;
}

/* One candidate through the rate limit (unless free space is plentiful):
 * what it lets through joins the tick's demand. `budget` is what the
 * candidates may still add up to. */
static int admit(struct linux_state *s, size_t from, uint64_t start, uint64_t bytes, bool plenty,
		 uint64_t *budget)
{
	bytes = tierd_page_down(tierd_min_u64(bytes, *budget));
	if (!bytes)
		return 0;
	if (!plenty) {
		uint64_t limit = rate_limit_bytes(s), allowed = 0;

		if (s->window_bytes < limit)
			allowed = tierd_page_down(limit - s->window_bytes);
		/* The kernel counts every candidate, refused or not. */
		s->window_bytes = tierd_add_sat(s->window_bytes, bytes);
		s->period_bytes = tierd_add_sat(s->period_bytes, bytes);
		if (allowed < bytes) {
			s->stats.promote_rate_limited += (bytes - allowed) / TIERD_PAGE_BYTES;
			bytes = allowed;
		}
	}
	if (!bytes)
		return 0;
	if (s->nr_cand == s->cap_cand) {
		size_t cap = s->cap_cand ? s->cap_cand * 2 : 64;
		struct linux_cand *grown = realloc(s->cand, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->cand = grown;
		s->cap_cand = cap;
	}
	s->cand[s->nr_cand++] = (struct linux_cand){ .from = from, .start = start, .bytes = bytes };
	*budget -= bytes;
	return 0;
}

static int collect_samples(struct linux_state *s, const struct tierd_strategy_input *in,
			   size_t nr_tiers, bool plenty, uint64_t *budget)
{
	const struct tierd_hotness *hot = in->hot;
	int r;

	r = tierd_page_set_reset(&s->scratch.pages, hot->nr_samples);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_samples && *budget >= TIERD_PAGE_BYTES; i++) {
		const struct tierd_sample *sm = &hot->samples[i];

		/* The top tier is not scanned; an unknown tier cannot move. */
		if (sm->tier <= 0 || (size_t)sm->tier >= nr_tiers)
			continue;
		if (!plenty && !is_hot(s, sm->interval_usec))
			continue;
		/* Once a page is promoted its next fault is on tier 0. */
		if (!tierd_page_set_add(&s->scratch.pages, sm->addr, NULL))
			continue;
		r = admit(s, (size_t)sm->tier, tierd_page_down(sm->addr), TIERD_PAGE_BYTES, plenty,
			  budget);
		if (r < 0)
			return r;
	}
	return 0;
}

static int collect_regions(struct linux_state *s, const struct tierd_strategy_input *in,
			   size_t nr_tiers, bool plenty, uint64_t *budget)
{
	const struct tierd_hotness *hot = in->hot;
	const size_t *order;
	size_t n;
	int r;

	r = tierd_baseline_hot_order(&s->scratch, hot, nr_tiers, LINUX_REGION_MIN_ACCESSES,
				     &order, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && *budget >= TIERD_PAGE_BYTES; i++) {
		const struct tierd_region *reg = &hot->regions[order[i]];

		if (!plenty && !is_hot(s, reg->aggr_usec / reg->nr_accesses))
			continue;
		r = admit(s, (size_t)reg->tier, reg->start, reg->end - reg->start, plenty, budget);
		if (r < 0)
			return r;
	}
	return 0;
}

/* kswapd, tier by tier from the top: each tier below its watermark plus
 * what is about to land on it (tier 0: the promotion demand) demotes its
 * LRU tail to the next tier down, the rest to lower tiers with room, within
 * `cap` bytes in all. A cgroup capped on a tier sees the room its cap
 * leaves as the tier's free memory, as memcg reclaim does at a limit. */
static int kswapd(struct linux_state *s, struct tierd_ledger *l,
		  const struct tierd_strategy_input *in, uint64_t demand, uint64_t cap)
{
	for (size_t t = 0; t + 1 < l->nr_tiers && cap >= TIERD_PAGE_BYTES; t++) {
		uint64_t want = tierd_baseline_watermark_bytes(in->topo, t, (uint32_t)s->watermark_pmy);
		uint64_t room = tierd_ledger_fits(l, t), bytes, left;

		if (t == 0)
			want = tierd_add_sat(want, demand);
		if (room >= want)
			continue;
		bytes = tierd_min_u64(tierd_min_u64(want - room, cap), in->obs->anon_bytes[t]);
		bytes = tierd_page_down(tierd_min_u64(bytes, l->budget));
		left = bytes;
		for (size_t to = t + 1; to < l->nr_tiers && left; to++) {
			uint64_t n = tierd_min_u64(left, tierd_ledger_fits(l, to));
			int r;

			if (!n)
				continue;
			r = tierd_ledger_demote(l, TIERD_REASON_WATERMARK_DEMOTION, t, to, n);
			if (r < 0)
				return r;
			left -= n;
		}
		s->stats.demote_attempts += bytes / TIERD_PAGE_BYTES;
		s->stats.demote_failed += left / TIERD_PAGE_BYTES;
		cap -= bytes - left;
	}
	return 0;
}

static int linux_plan(void *state, const struct tierd_strategy_input *in,
		      struct tierd_action_list *out)
{
	struct linux_state *s = state;
	struct tierd_ledger l;
	uint64_t cap, budget, demand = 0;
	bool plenty;
	int r;

	tierd_ledger_init(&l, in, out);
	if (l.nr_tiers < 2)
		return 0;
	s->nr_cand = 0;
	cap = tierd_page_down(l.budget / LINUX_DEMOTE_BUDGET_DIVISOR);
	budget = l.budget;
	plenty = free_space_enough(s, in->topo, l.room[0]);
	if (in->hot->nr_samples)
		r = collect_samples(s, in, l.nr_tiers, plenty, &budget);
	else
		r = collect_regions(s, in, l.nr_tiers, plenty, &budget);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->nr_cand; i++)
		demand += s->cand[i].bytes;
	/* Unbalanced: kswapd makes room first, then the faults promote. */
	r = kswapd(s, &l, in, demand, cap);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->nr_cand; i++) {
		r = tierd_baseline_promote(&l, TIERD_REASON_FAULT_PROMOTION, s->cand[i].from,
					   s->cand[i].start, s->cand[i].bytes, false, &s->stats);
		if (r < 0)
			return r;
	}
	return 0;
}

static void linux_free(void *state)
{
	struct linux_state *s = state;

	if (!s)
		return;
	tierd_baseline_scratch_free(&s->scratch);
	free(s->cand);
	free(s);
}

void tierd_linux_stats(const void *state, struct tierd_baseline_stats *ret)
{
	const struct linux_state *s = state;

	*ret = s->stats;
}

uint64_t tierd_linux_hot_threshold_usec(const void *state)
{
	const struct linux_state *s = state;

	return s->threshold_usec;
}

const struct tierd_strategy_ops tierd_strategy_linux = {
	.name = "linux",
	.init = linux_init,
	.profile = linux_profile,
	.observe = linux_observe,
	.plan = linux_plan,
	.free = linux_free,
};
