/* Mole: tier-specific profiling periods (§4.3),
 * one time-interval hotness metric summarised in a segmented histogram with
 * capacity-derived per-tier thresholds (§4.4), staging demotion of cold
 * memory straight to the lowest tier and targeted promotion of hot memory
 * to the tier its interval matches, one tier lower when that one is full,
 * else deferred and retried (§4.5). Promotion failures are counted (§3.1).
 *
 * Per tick O(regions + samples): buckets, counting sorts and a hash set of
 * sampled pages; the deferred queue is bounded (TIERD_MOLE_DEFER_MAX), so a
 * lookup in it costs a bounded binary search. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mole_hist.h"
#include "strategy.h"
#include "strategy_ledger.h"
#include "strategy_mole.h"
#include "strategy_params.h"
#include "strategy_scratch.h"
#include "units.h"
#include "util.h"

/* Mole §5 sets the scan period T to "1 second per 1280 MB". tierd's regions
 * cover all of a cgroup every window, so the per-1280 MB part has nothing to
 * scale; 1 s is also the default tick (TIERD_DEFAULT_TICK_USEC), so the
 * lowest tier (m = 1) is profiled anew every tick. */
#define MOLE_DEFAULT_SCAN_PERIOD_USEC TIERD_USEC_PER_SEC
/* Mole §4.4: "T=1024 ms provides a good balance between interval precision
 * and metadata range". */
#define MOLE_DEFAULT_TIME_THRESHOLD_USEC (1024 * TIERD_USEC_PER_MSEC)
/* Mole §4.4 "slightly reduces the threshold of each tier ... reserving free
 * space" without a figure: 5% leaves each tier room for a tick of newly
 * hot pages (the range allowed: config/strategy_keys.c). */
#define MOLE_DEFAULT_HEADROOM_PMY 500u
/* A deferred range is kept while its tier is re-profiled: a page still hot
 * is seen hot again within one unmap period of its tier (§4.3); two allow
 * one period without a fresh sample. */
#define MOLE_DEFER_TTL_PERIODS 2u

#define MOLE_NO_BUCKET UINT8_MAX
/* Staging demotion takes at most budget / this in a tick: all of it would
 * leave the promotions it makes room for to wait a tick. */
#define MOLE_DEMOTE_BUDGET_DIVISOR 2u
/* Demotion order key: bucket (coldest first), then tier (top first). */
#define MOLE_MAX_KEYS (TIERD_MOLE_NR_BUCKETS * TIERD_MAX_TIERS)

/* This tick's reading of one region. */
struct mole_region {
	uint8_t bucket;            /* MOLE_NO_BUCKET: not placed, not measured */
	bool accessed;             /* a reaccess interval, not an idle duration */
	bool claimed;              /* a deferred promotion took it over */
};

/* One sampled page, at its shortest reaccess interval this tick. */
struct mole_page {
	uint64_t addr;
	uint64_t interval_usec;
	size_t tier;
	uint8_t bucket;
	bool claimed;
};

/* A promotion Mole owes (§4.5.2): a range that found no room. */
struct mole_deferred {
	uint64_t start, end;
	uint64_t seen_usec;        /* when it was last seen hot */
	size_t tier;               /* where it sits */
	uint8_t bucket;
	bool live;
};

/* A range to move, as ordered for one pass. */
struct mole_cand {
	uint64_t start, end;
	size_t tier;
	size_t deferred;           /* index in the queue, SIZE_MAX if fresh */
	uint16_t key;
	uint8_t bucket;
};

struct mole {
	/* params */
	uint64_t scan_period_usec;
	uint64_t time_threshold_usec;
	uint64_t headroom_pmy;
	size_t nr_multipliers;     /* 0: the §5 default */
	uint32_t multipliers[TIERD_MAX_TIERS];

	/* what observe found */
	int error;                 /* -ENOMEM from observe, returned by plan */
	size_t nr_tiers;
	struct tierd_mole_hist hist;
	bool has_thresholds;
	int threshold[TIERD_MAX_TIERS];
	struct tierd_mole_stats stats;

	/* Grown as entries come, up to TIERD_MOLE_DEFER_MAX: most cgroups
	 * defer little, and a thousand full queues would be 40 MiB. */
	size_t nr_deferred, defer_cursor, cap_deferred;
	struct mole_deferred *deferred;

	/* scratch kept between ticks: a tick allocates only while it grows */
	size_t cap_regions, cap_pages, cap_cands, cap_sorted;
	struct mole_region *regions;
	struct tierd_page_set sampled;
	struct mole_page *pages;   /* by the number sampled gave the page */
	struct mole_cand *cands, *sorted;
};

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t to_pages(uint64_t bytes)
{
	return bytes / TIERD_PAGE_BYTES;
}

/* ---- params ---------------------------------------------------------- */

void tierd_mole_params_default(struct tierd_mole_params *p)
{
	p->scan_period_usec = MOLE_DEFAULT_SCAN_PERIOD_USEC;
	p->time_threshold_usec = MOLE_DEFAULT_TIME_THRESHOLD_USEC;
	p->headroom_pmy = MOLE_DEFAULT_HEADROOM_PMY;
	p->nr_multipliers = 0;
}

/* ---- profiling periods (§4.3, §5) ------------------------------------ */

/* m of tier t: the configured list aligned to the lowest tier (tiers above
 * its first entry take that entry); by default (§5: 4, 3, 2, 1 on four
 * tiers) 1 at the bottom and one more per tier up. */
static uint64_t tier_multiplier(const struct mole *m, size_t nr_tiers, size_t tier)
{
	size_t from_bottom = nr_tiers - 1 - tier;

	if (!m->nr_multipliers)
		return from_bottom + 1;
	if (from_bottom < m->nr_multipliers)
		return m->multipliers[m->nr_multipliers - 1 - from_bottom];
	return m->multipliers[0];
}

/* §4.3: the unmap (observation) period of a tier is m * T. */
static uint64_t tier_period_usec(const struct mole *m, size_t nr_tiers, size_t tier)
{
	return mul_sat(tier_multiplier(m, nr_tiers, tier), m->scan_period_usec);
}

static void mole_profile(void *state, const struct tierd_topology *topo, uint64_t *interval_usec)
{
	const struct mole *m = state;
	size_t nr_tiers = tierd_min_u64(topo->nr_tiers, TIERD_MAX_TIERS);

	for (size_t t = 0; t < nr_tiers; t++)
		interval_usec[t] = tier_period_usec(m, nr_tiers, t);
}

/* ---- scratch --------------------------------------------------------- */

static int reserve_scratch(struct mole *m, const struct tierd_hotness *hot)
{
	/* No entry is deferred between here and the candidates' lists. */
	size_t nr_cands = m->nr_deferred + hot->nr_regions + hot->nr_samples;
	const struct tierd_reserve_req reqs[] = {
		{ (void **)&m->regions, &m->cap_regions, hot->nr_regions, sizeof(*m->regions) },
		{ (void **)&m->pages, &m->cap_pages, hot->nr_samples, sizeof(*m->pages) },
		{ (void **)&m->sorted, &m->cap_sorted, nr_cands, sizeof(*m->sorted) },
		{ (void **)&m->cands, &m->cap_cands, nr_cands, sizeof(*m->cands) },
	};

	return tierd_reserve_all(reqs, TIERD_ARRAY_SIZE(reqs));
}

/* ---- hotness (§4.4) -------------------------------------------------- */

/* The unified interval metric of a region: a region seen accessed
 * nr_accesses times in one window was reaccessed every window / nr_accesses;
 * one not accessed has been idle since its pattern last changed, i.e. for
 * age + 1 windows (DAMON resets age to 0 in the first window of a new
 * pattern, which already was a window without access). An unknown window
 * is the one its tier was asked to be profiled at. */
static uint64_t region_interval_usec(const struct mole *m, const struct tierd_region *r)
{
	uint64_t window = r->aggr_usec ? r->aggr_usec
				       : tier_period_usec(m, m->nr_tiers, (size_t)r->tier);

	if (r->nr_accesses)
		return window / r->nr_accesses;
	return mul_sat((uint64_t)r->age + 1, window);
}

/* §4.4: an idle duration shorter than the expected range of its tier was
 * not watched long enough to say the page is that hot, so the histogram
 * takes it no hotter than the boundary of the tier above (last tick's). */
static unsigned hist_bucket(const struct mole *m, size_t tier, unsigned bucket, bool accessed)
{
	int lo;

	if (accessed || !tier || !m->has_thresholds)
		return bucket;
	lo = m->threshold[tier - 1];
	return lo > (int)bucket ? (unsigned)lo : bucket;
}

static void read_regions(struct mole *m, const struct tierd_hotness *hot)
{
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *r = &hot->regions[i];
		struct mole_region *mr = &m->regions[i];

		mr->bucket = MOLE_NO_BUCKET;
		mr->accessed = r->nr_accesses > 0;
		mr->claimed = false;
		if (r->tier < 0 || (size_t)r->tier >= m->nr_tiers || r->end <= r->start)
			continue;
		mr->bucket = (uint8_t)tierd_mole_bucket(region_interval_usec(m, r),
							m->time_threshold_usec);
		tierd_mole_hist_add(&m->hist, (size_t)r->tier,
				    hist_bucket(m, (size_t)r->tier, mr->bucket, mr->accessed),
				    to_pages(r->end - r->start));
	}
}

/* Hint-fault samples (§4.2): each page once, at its shortest reaccess
 * interval. A sampled page inside a region is also counted with the region;
 * samples are few next to region pages, and looking each up in the regions
 * would not be O(regions + samples). */
static int read_samples(struct mole *m, const struct tierd_hotness *hot)
{
	int r = tierd_page_set_reset(&m->sampled, hot->nr_samples);

	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_samples; i++) {
		const struct tierd_sample *s = &hot->samples[i];
		struct mole_page *p;
		size_t k;
		bool is_new;

		if (!s->interval_usec || s->tier < 0 || (size_t)s->tier >= m->nr_tiers)
			continue;
		is_new = tierd_page_set_add(&m->sampled, s->addr, &k);
		p = &m->pages[k];
		if (!is_new && p->interval_usec <= s->interval_usec)
			continue;
		*p = (struct mole_page){ .addr = tierd_page_down(s->addr), .tier = (size_t)s->tier,
					 .interval_usec = s->interval_usec };
	}
	for (size_t i = 0; i < m->sampled.nr; i++) {
		struct mole_page *p = &m->pages[i];

		p->bucket = (uint8_t)tierd_mole_bucket(p->interval_usec, m->time_threshold_usec);
		tierd_mole_hist_add(&m->hist, p->tier, p->bucket, 1);
	}
	return 0;
}

/* §4.4: thresholds partition the hotness space by the tiers' capacities,
 * the cgroup's share of a tier where one caps it. A tick that observed
 * nothing keeps the last ones rather than calling everything cold. */
static void update_thresholds(struct mole *m, const struct tierd_strategy_input *in)
{
	uint64_t capacity_pages[TIERD_MAX_TIERS];

	if (!tierd_mole_hist_total(&m->hist))
		return;
	for (size_t t = 0; t < m->nr_tiers; t++) {
		uint64_t bytes = in->topo->tiers[t].total_bytes;

		if (in->share_bytes[t] != TIERD_SHARE_NONE)
			bytes = tierd_min_u64(bytes, in->share_bytes[t]);
		capacity_pages[t] = to_pages(bytes);
	}
	tierd_mole_thresholds(&m->hist, capacity_pages, (uint32_t)m->headroom_pmy, m->threshold);
	m->has_thresholds = true;
}

/* The highest tier above `tier` whose band takes an interval of `bucket`
 * (§4.5.2 "compares it with the tier thresholds to select a promotion
 * target"), or -1 when it belongs where it is or lower. */
static int target_tier(const struct mole *m, size_t tier, unsigned bucket)
{
	if (!m->has_thresholds)
		return -1;
	for (size_t u = 0; u < tier && u < m->nr_tiers; u++)
		if (m->threshold[u] != TIERD_MOLE_NO_THRESHOLD && (int)bucket <= m->threshold[u])
			return (int)u;
	return -1;
}

/* ---- deferred promotions (§4.5.2) ------------------------------------ */

static int cmp_deferred(const void *a, const void *b)
{
	const struct mole_deferred *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* First entry with start >= addr. */
static size_t deferred_lower_bound(const struct mole *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr_deferred;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->deferred[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keeps the live entries still within their time to live, sorted by start
 * (a comparison sort, but of a bounded queue). */
static void compact_deferred(struct mole *m, uint64_t now)
{
	size_t kept = 0;

	for (size_t i = 0; i < m->nr_deferred; i++) {
		struct mole_deferred *d = &m->deferred[i];
		uint64_t ttl;

		if (!d->live || d->tier >= m->nr_tiers)
			continue;
		ttl = mul_sat(MOLE_DEFER_TTL_PERIODS, tier_period_usec(m, m->nr_tiers, d->tier));
		if (now > d->seen_usec && now - d->seen_usec > ttl)
			continue;
		m->deferred[kept++] = *d;
	}
	m->nr_deferred = kept;
	/* Not allocated before the first deferral. */
	if (m->nr_deferred)
		qsort(m->deferred, m->nr_deferred, sizeof(*m->deferred), cmp_deferred);
}

/* This tick's regions speak for the entries that start inside them: a
 * region still hot enough for a higher tier takes over the first one (the
 * retry moves the region as it is now, and the region is not proposed a
 * second time); any other entry in it is covered or no longer hot. */
static void refresh_from_regions(struct mole *m, const struct tierd_hotness *hot, uint64_t now)
{
	for (size_t i = 0; i < hot->nr_regions && m->nr_deferred; i++) {
		const struct tierd_region *r = &hot->regions[i];
		struct mole_region *mr = &m->regions[i];
		bool hot_enough;

		if (mr->bucket == MOLE_NO_BUCKET)
			continue;
		hot_enough = mr->accessed && target_tier(m, (size_t)r->tier, mr->bucket) >= 0;
		for (size_t j = deferred_lower_bound(m, r->start);
		     j < m->nr_deferred && m->deferred[j].start < r->end; j++) {
			struct mole_deferred *d = &m->deferred[j];

			if (!d->live)
				continue;
			if (!hot_enough || mr->claimed) {
				d->live = false;
				continue;
			}
			*d = (struct mole_deferred){ .start = r->start, .end = r->end,
						     .seen_usec = now, .tier = (size_t)r->tier,
						     .bucket = mr->bucket, .live = true };
			mr->claimed = true;
		}
	}
}

/* A sampled page inside a deferred range is left to the range; a page
 * deferred on its own is refreshed, or dropped when no longer hot. */
static void refresh_from_pages(struct mole *m, uint64_t now)
{
	for (size_t i = 0; i < m->sampled.nr && m->nr_deferred; i++) {
		struct mole_page *p = &m->pages[i];
		size_t j = deferred_lower_bound(m, p->addr + 1);
		struct mole_deferred *d;
		bool hot_enough;

		if (!j)
			continue;
		d = &m->deferred[j - 1];
		if (!d->live || p->addr >= d->end)
			continue;
		hot_enough = target_tier(m, p->tier, p->bucket) >= 0;
		if (d->end - d->start == TIERD_PAGE_BYTES) {
			d->live = hot_enough;
			d->seen_usec = now;
			d->tier = p->tier;
			d->bucket = p->bucket;
		}
		p->claimed = hot_enough;
	}
}

/* A slot for a new entry: a dead one, else a fresh one; SIZE_MAX if full
 * (or out of memory to grow the queue). A dead entry is never a pending
 * candidate, so reusing it is safe. */
static size_t defer_slot(struct mole *m)
{
	while (m->defer_cursor < m->nr_deferred && m->deferred[m->defer_cursor].live)
		m->defer_cursor++;
	if (m->defer_cursor < m->nr_deferred)
		return m->defer_cursor;
	if (m->nr_deferred >= TIERD_MOLE_DEFER_MAX ||
	    tierd_reserve((void **)&m->deferred, &m->cap_deferred, m->nr_deferred + 1,
			  sizeof(*m->deferred)) < 0)
		return SIZE_MAX;
	return m->nr_deferred++;
}

static void defer(struct mole *m, const struct mole_cand *c, uint64_t start, uint64_t end,
		  uint64_t now)
{
	size_t slot = defer_slot(m);

	if (slot == SIZE_MAX) {
		m->stats.promote_dropped += to_pages(end - start);
		return;
	}
	m->deferred[slot] = (struct mole_deferred){ .start = start, .end = end, .seen_usec = now,
						    .tier = c->tier, .bucket = c->bucket,
						    .live = true };
}

/* ---- observe --------------------------------------------------------- */

/* §3.1: what the actuator could not carry out of last tick's plan. */
static void account_feedback(struct mole *m, const struct tierd_feedback *fb)
{
	m->stats.promote_failed = tierd_add_sat(m->stats.promote_failed,
					  to_pages(fb->promote_failed_bytes));
	m->stats.demote_failed = tierd_add_sat(m->stats.demote_failed,
					 to_pages(fb->demote_failed_bytes));
}

static void mole_observe(void *state, const struct tierd_strategy_input *in)
{
	struct mole *m = state;

	m->error = 0;
	m->nr_tiers = tierd_min_u64(in->topo->nr_tiers, TIERD_MAX_TIERS);
	account_feedback(m, in->feedback);
	m->error = reserve_scratch(m, in->hot);
	if (m->error)
		return;
	/* Rebuilt every tick: the regions cover all of the cgroup's memory,
	 * so they are the whole picture §4.4 keeps up to date page by page. */
	tierd_mole_hist_reset(&m->hist, m->nr_tiers);
	read_regions(m, in->hot);
	m->error = read_samples(m, in->hot);
	if (m->error)
		return;
	update_thresholds(m, in);
	compact_deferred(m, in->now_usec);
	refresh_from_regions(m, in->hot, in->now_usec);
	refresh_from_pages(m, in->now_usec);
}

/* ---- plan ------------------------------------------------------------ */

/* Stable counting sort by key: O(n + keys). */
static void sort_cands(const struct mole_cand *in, size_t n, struct mole_cand *out)
{
	size_t first[MOLE_MAX_KEYS + 1] = { 0 };

	for (size_t i = 0; i < n; i++)
		first[in[i].key + 1]++;
	for (size_t k = 0; k < MOLE_MAX_KEYS; k++)
		first[k + 1] += first[k];
	for (size_t i = 0; i < n; i++)
		out[first[in[i].key]++] = in[i];
}

/* §4.5.1 staging demotion: memory colder than its tier's threshold, in any
 * tier above the lowest, goes straight to the lowest tier, never to an
 * intermediate one, so those stay free for promotions. Coldest first, from
 * the top tier first within a bucket. */
static int stage_demotions(struct mole *m, const struct tierd_hotness *hot, struct tierd_ledger *l)
{
	size_t lowest = m->nr_tiers - 1, n = 0;

	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *r = &hot->regions[i];
		unsigned bucket = m->regions[i].bucket;
		size_t tier = (size_t)r->tier;

		if (bucket == MOLE_NO_BUCKET || tier >= lowest || (int)bucket <= m->threshold[tier])
			continue;
		m->cands[n++] = (struct mole_cand){
			.start = r->start, .end = r->end, .tier = tier, .deferred = SIZE_MAX,
			.bucket = (uint8_t)bucket,
			.key = (uint16_t)((TIERD_MOLE_LAST_BUCKET - bucket) * TIERD_MAX_TIERS + tier),
		};
	}
	sort_cands(m->cands, n, m->sorted);
	for (size_t i = 0; i < n && tierd_ledger_has_budget(l); i++) {
		const struct mole_cand *c = &m->sorted[i];
		uint64_t want = tierd_ledger_budget_clip(l, c->end - c->start);
		uint64_t bytes = tierd_min_u64(want, tierd_ledger_fits(l, lowest));
		int r;

		m->stats.demote_attempts += to_pages(want);
		m->stats.demote_no_room += to_pages(want - bytes);
		if (!bytes)
			continue;
		r = tierd_ledger_move(l, TIERD_REASON_STAGING_DEMOTION, c->tier, lowest, c->start,
				      bytes);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Promotion candidates, hottest bucket first; within a bucket the deferred
 * ones (they have waited longest), then regions, then sampled pages. */
static size_t promotion_cands(struct mole *m, const struct tierd_hotness *hot)
{
	size_t n = 0;

	for (size_t j = 0; j < m->nr_deferred; j++) {
		struct mole_deferred *d = &m->deferred[j];

		if (!d->live)
			continue;
		if (target_tier(m, d->tier, d->bucket) < 0) {
			d->live = false; /* thresholds moved: no longer hot */
			continue;
		}
		m->cands[n++] = (struct mole_cand){ .start = d->start, .end = d->end,
						    .tier = d->tier, .deferred = j,
						    .key = d->bucket, .bucket = d->bucket };
	}
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *r = &hot->regions[i];
		const struct mole_region *mr = &m->regions[i];

		if (mr->bucket == MOLE_NO_BUCKET || !mr->accessed || mr->claimed ||
		    target_tier(m, (size_t)r->tier, mr->bucket) < 0)
			continue;
		m->cands[n++] = (struct mole_cand){ .start = r->start, .end = r->end,
						    .tier = (size_t)r->tier, .deferred = SIZE_MAX,
						    .key = mr->bucket, .bucket = mr->bucket };
	}
	for (size_t i = 0; i < m->sampled.nr; i++) {
		const struct mole_page *p = &m->pages[i];

		if (p->claimed || target_tier(m, p->tier, p->bucket) < 0)
			continue;
		m->cands[n++] = (struct mole_cand){ .start = p->addr,
						    .end = p->addr + TIERD_PAGE_BYTES,
						    .tier = p->tier, .deferred = SIZE_MAX,
						    .key = p->bucket, .bucket = p->bucket };
	}
	return n;
}

/* §4.5.2 targeted promotion of one range: to the tier its interval
 * matches; what that tier cannot take, to the next lower tier if that is
 * still above where it sits; what neither can take is deferred. */
static int promote(struct mole *m, struct tierd_ledger *l, const struct mole_cand *c,
		   uint64_t now)
{
	size_t target = (size_t)target_tier(m, c->tier, c->bucket), fallback = target + 1;
	bool retry = c->deferred != SIZE_MAX;
	uint64_t want = tierd_ledger_budget_clip(l, c->end - c->start);
	uint64_t placed = tierd_min_u64(want, tierd_ledger_fits(l, target)), fell = 0, left, rest;
	int r = 0;

	m->stats.promote_attempts += to_pages(want);
	if (placed)
		r = tierd_ledger_move(l, retry ? TIERD_REASON_DEFERRED_PROMOTION
					       : TIERD_REASON_TARGETED_PROMOTION,
				      c->tier, target, c->start, placed);
	if (!r && fallback < c->tier)
		fell = tierd_min_u64(want - placed, tierd_ledger_fits(l, fallback));
	if (fell)
		r = tierd_ledger_move(l, TIERD_REASON_PROMOTION_FALLBACK, c->tier, fallback,
				      c->start + placed, fell);
	if (r < 0)
		return r;
	left = want - placed - fell;
	rest = c->start + placed + fell;
	m->stats.promote_fallbacks += to_pages(fell);
	m->stats.promote_deferred += to_pages(left);
	if (retry) {
		/* It keeps owing what was not placed, budget-clipped part too. */
		struct mole_deferred *d = &m->deferred[c->deferred];

		d->start = rest;
		d->live = rest < c->end;
	} else if (left) {
		defer(m, c, rest, rest + left, now);
	}
	return 0;
}

static int target_promotions(struct mole *m, const struct tierd_strategy_input *in,
			     struct tierd_ledger *l)
{
	size_t n = promotion_cands(m, in->hot);

	sort_cands(m->cands, n, m->sorted);
	m->defer_cursor = 0;
	for (size_t i = 0; i < n && tierd_ledger_has_budget(l); i++) {
		int r = promote(m, l, &m->sorted[i], in->now_usec);

		if (r < 0)
			return r;
	}
	return 0;
}

/* Demotions first: they free room, which the engine credits to the
 * promotions after them (§4.5: demotion is space reclamation for
 * promotion). */
static int mole_plan(void *state, const struct tierd_strategy_input *in,
		     struct tierd_action_list *out)
{
	struct mole *m = state;
	struct tierd_ledger l;
	uint64_t budget;
	int r;

	if (m->error)
		return m->error;
	if (!m->has_thresholds || m->nr_tiers < 2)
		return 0;
	tierd_ledger_init(&l, in, out);
	budget = l.budget;
	l.budget = tierd_page_down(budget / MOLE_DEMOTE_BUDGET_DIVISOR);
	r = stage_demotions(m, in->hot, &l);
	if (r < 0)
		return r;
	l.budget += budget - tierd_page_down(budget / MOLE_DEMOTE_BUDGET_DIVISOR);
	return target_promotions(m, in, &l);
}

/* ---- life cycle ------------------------------------------------------ */

static void mole_free(void *state)
{
	struct mole *m = state;

	if (!m)
		return;
	free(m->regions);
	tierd_page_set_free(&m->sampled);
	free(m->pages);
	free(m->cands);
	free(m->sorted);
	free(m->deferred);
	free(m);
}

static int mole_init(const struct tierd_strategy_params *params, void **ret_state)
{
	struct tierd_mole_params p;
	struct mole *m;

	if (tierd_strategy_params_get(params, TIERD_STRATEGY_MOLE, &p, sizeof(p)) < 0)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->scan_period_usec = p.scan_period_usec;
	m->time_threshold_usec = p.time_threshold_usec;
	m->headroom_pmy = p.headroom_pmy;
	m->nr_multipliers = p.nr_multipliers;
	memcpy(m->multipliers, p.multipliers, sizeof(m->multipliers));
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++)
		m->threshold[t] = TIERD_MOLE_NO_THRESHOLD;
	*ret_state = m;
	return 0;
}

void tierd_mole_stats(const void *state, struct tierd_mole_stats *ret)
{
	const struct mole *m = state;

	*ret = m->stats;
}

int tierd_mole_threshold(const void *state, size_t tier)
{
	const struct mole *m = state;

	if (!m->has_thresholds || tier >= m->nr_tiers)
		return TIERD_MOLE_NO_THRESHOLD;
	return m->threshold[tier];
}

const struct tierd_strategy_ops tierd_strategy_mole = {
	.name = "mole",
	.init = mole_init,
	.profile = mole_profile,
	.observe = mole_observe,
	.plan = mole_plan,
	.free = mole_free,
};
