/* HMM-V as a tierd strategy; see strategy_hmmv.h.
 *
 * Each observe() is one monitoring window: the multi-level queue decides
 * which regions were sampled (the others are in their do-not-disturb time and
 * count as accessed at their last degree), and each region's page-degree is
 * added to the current round. Every round of windows the sums become the
 * degrees plan() works from: bucket sort, hot set sized to the fast tier,
 * exchange of hot slow regions with the coldest fast ones. A clock switch
 * turns tracking off while rounds migrate little.
 *
 * O(regions) per tick when the regions come in address order, as DAMON
 * reports them: the window's entries are an array sorted by region start,
 * built each window by one merge with the last window's (which also forgets
 * regions gone), and a counting sort. Regions out of order are sorted first
 * (O(n log n)). Pure: no I/O, no clock, no globals. */
#include <errno.h>
#include <stdlib.h>

#include "hmmv_bucket.h"
#include "strategy_hmmv.h"
#include "strategy_ledger.h"
#include "strategy_params.h"
#include "strategy_scratch.h"
#include "units.h"
#include "util.h"

/* Read:write weights 1:3: the ratio of read to write slowdown on NVM
 * measured with micro-benchmarks (HMM-V §3.3). */
#define DEFAULT_READ_WEIGHT 1u
#define DEFAULT_WRITE_WEIGHT 3u
/* Windows summed into one degree: "after several rounds of monitoring (8 in
 * our evaluation), the GPT scanner records the number of reads and writes
 * per VM page" (HMM-V §3.2). */
#define DEFAULT_ROUND_WINDOWS 8u
/* "The maximum queue level is configured as 7" (HMM-V §5.3). */
#define DEFAULT_MAX_LEVEL 7u
/* Monitoring window size: at 600 ms tracking costs under 2% (HMM-V §5.3). */
#define DEFAULT_WINDOW_USEC (600 * TIERD_USEC_PER_MSEC)
/* The clock switch turns tracking on "every minute for regular page VMs"
 * (HMM-V §3.2). */
#define DEFAULT_CLOCK_USEC (60 * TIERD_USEC_PER_SEC)
/* A round that migrated less than 256 MB is quiet in HMM-V's evaluation
 * (§3.2), whose micro-benchmarks ran with 16 GB of RSS (§5): 1/64 of the
 * memory, 156 permyriad. An absolute 256 MB would call every round of a
 * small cgroup quiet and turn its tracking off for good. */
#define DEFAULT_QUIET_PMY 156u
/* The quiet counter's upper limit, 3 (HMM-V §3.2). */
#define DEFAULT_QUIET_LIMIT 3u

/* What the multi-level queue and the round remember of one region. */
struct entry {
	uint64_t start;         /* the region's, the table's sort key */
	uint64_t next_window;   /* first window it is sampled in again */
	uint64_t last_degree;   /* page-degree of its last sampled window */
	uint64_t acc;           /* degrees summed over round acc_round */
	uint64_t degree;        /* the sum of round degree_round, complete */
	uint32_t acc_round, degree_round;
	uint32_t level;
};

/* One window's entries, one per distinct region start, sorted by start. */
struct table {
	size_t nr, cap;
	struct entry *entries;
};

struct hmmv {
	struct tierd_hmmv_params p;
	struct table cur, prev; /* this window's regions, the last window's */
	size_t nr;              /* regions of this window */
	size_t cap_degree, cap_order, cap_by_start;
	uint64_t *degree;       /* per region: page-degree of the last complete round */
	size_t *order;          /* region indexes, hottest first */
	size_t *by_start;       /* region indexes by start, when they come out of order */
	bool oom;               /* observe() could not allocate: plan() says so */
	uint64_t window;        /* the window the next observe() stands for */
	uint32_t round_id;      /* the round being summed, from 1 */
	uint32_t completed_round; /* the last complete round, 0 none */
	uint64_t round_done;    /* windows of the current round seen */
	uint64_t round_migrated_bytes;
	bool tracking_on;
	uint32_t quiet_counter;
	uint64_t memory_bytes;  /* the cgroup's, last observed: the relative threshold's base */
	bool clock_started;
	uint64_t clock_start_usec;
	struct tierd_hmmv_stats stats;
};

/* ---- params ---------------------------------------------------------- */

void tierd_hmmv_params_default(struct tierd_hmmv_params *p)
{
	p->read_weight = DEFAULT_READ_WEIGHT;
	p->write_weight = DEFAULT_WRITE_WEIGHT;
	p->round_windows = DEFAULT_ROUND_WINDOWS;
	p->max_level = DEFAULT_MAX_LEVEL;
	p->window_usec = DEFAULT_WINDOW_USEC;
	p->clock_usec = DEFAULT_CLOCK_USEC;
	p->quiet_bytes = TIERD_HMMV_QUIET_RELATIVE;
	p->quiet_pmy = DEFAULT_QUIET_PMY;
	p->quiet_limit = DEFAULT_QUIET_LIMIT;
}

/* ---- region table ---------------------------------------------------- */

/* The entry of start, NULL when the window had no such region. */
static struct entry *table_find(const struct table *t, uint64_t start)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->entries[mid].start == start)
			return &t->entries[mid];
		if (t->entries[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_by_start(const void *a, const void *b, void *regions)
{
	const struct tierd_region *r = regions;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (r[i].start != r[j].start)
		return r[i].start < r[j].start ? -1 : 1;
	/* Equal starts keep their order: the first claims the entry. */
	return i < j ? -1 : i > j;
}

/* The regions' indexes by start, equal starts in their order; NULL when
 * they already come in that order (the identity). */
static const size_t *order_by_start(struct hmmv *s, const struct tierd_hotness *hot)
{
	size_t i;

	for (i = 1; i < hot->nr_regions; i++)
		if (hot->regions[i].start < hot->regions[i - 1].start)
			break;
	if (i >= hot->nr_regions)
		return NULL;
	for (i = 0; i < hot->nr_regions; i++)
		s->by_start[i] = i;
	qsort_r(s->by_start, hot->nr_regions, sizeof(*s->by_start), cmp_by_start,
		(void *)hot->regions);
	return s->by_start;
}

/* ---- observe: multi-level queue, degrees, clock switch --------------- */

/* Page-degree of one window: read_weight * reads + write_weight * writes
 * (HMM-V §3.3); a sampler that cannot tell reads from writes reports
 * nr_accesses, counted as reads. It applies to every page of the region. */
static uint64_t window_degree(const struct tierd_hmmv_params *p, const struct tierd_region *r)
{
	if (r->reads || r->writes)
		return p->read_weight * r->reads + p->write_weight * r->writes;
	return p->read_weight * r->nr_accesses;
}

/* Do-not-disturb time of a level, in windows: 2^(x-1) for level x > 0,
 * none at level 0 (HMM-V §3.2). */
static uint64_t dnd_windows(uint32_t level)
{
	return level ? 1ull << (level - 1) : 0;
}

/* The multi-level queue (HMM-V §3.2) for one region this window. In its
 * do-not-disturb time the region was not sampled and counts as accessed at
 * its last degree ("treated as continuous visits"). Otherwise it was: found
 * accessed, it goes a level up (a longer rest); found idle, a level down. The
 * window after its rest ends it is sampled again. Returns its degree. */
static uint64_t queue_step(struct hmmv *s, struct entry *e, const struct tierd_region *r)
{
	uint64_t degree;

	if (s->window < e->next_window) {
		s->stats.skipped_dnd++;
		return e->last_degree;
	}
	degree = window_degree(&s->p, r);
	if (degree && e->level < s->p.max_level)
		e->level++;
	else if (!degree && e->level)
		e->level--;
	e->last_degree = degree;
	e->next_window = s->window + 1 + dnd_windows(e->level);
	return degree;
}

/* The clock switch (HMM-V §3.2): on each tick the migration history counter
 * goes down by one, and tracking runs for the next period only if it is 0.
 * Tracking turned back on starts a new round. */
static void clock_tick(struct hmmv *s)
{
	bool on;

	if (s->quiet_counter)
		s->quiet_counter--;
	on = s->quiet_counter == 0;
	if (on && !s->tracking_on) {
		s->round_id++;
		s->completed_round = 0;
		s->round_done = 0;
		s->round_migrated_bytes = 0;
	}
	s->tracking_on = on;
}

static void clock_advance(struct hmmv *s, uint64_t now_usec)
{
	if (!s->clock_started || now_usec < s->clock_start_usec) {
		s->clock_started = true;
		s->clock_start_usec = now_usec;
		return;
	}
	if (now_usec - s->clock_start_usec < s->p.clock_usec)
		return;
	/* Keeps the clock's phase when ticks are late. */
	s->clock_start_usec += (now_usec - s->clock_start_usec) / s->p.clock_usec * s->p.clock_usec;
	clock_tick(s);
}

/* A round is over: its sums become the degrees to plan from. A round that
 * had degrees to plan from and migrated less than the threshold raises the
 * counter, up to its limit (HMM-V §3.2). */
static uint64_t quiet_bytes(const struct hmmv *s)
{
	if (s->p.quiet_bytes != TIERD_HMMV_QUIET_RELATIVE)
		return s->p.quiet_bytes;
	return (uint64_t)((unsigned __int128)s->memory_bytes * s->p.quiet_pmy / TIERD_PMY_ONE);
}

static void round_complete(struct hmmv *s)
{
	if (s->completed_round && s->round_migrated_bytes < quiet_bytes(s) &&
	    s->quiet_counter < s->p.quiet_limit)
		s->quiet_counter++;
	s->completed_round = s->round_id++;
	s->round_done = 0;
	s->round_migrated_bytes = 0;
}

static int ensure_arrays(struct hmmv *s, size_t n)
{
	const struct tierd_reserve_req reqs[] = {
		{ (void **)&s->degree, &s->cap_degree, n, sizeof(*s->degree) },
		{ (void **)&s->order, &s->cap_order, n, sizeof(*s->order) },
		{ (void **)&s->by_start, &s->cap_by_start, n, sizeof(*s->by_start) },
		{ (void **)&s->cur.entries, &s->cur.cap, n, sizeof(*s->cur.entries) },
		{ (void **)&s->prev.entries, &s->prev.cap, n, sizeof(*s->prev.entries) },
	};

	return tierd_reserve_all(reqs, TIERD_ARRAY_SIZE(reqs));
}

/* Runs the queue over this window's regions and adds their degrees to the
 * round; fills s->degree with the last complete round's. The regions are
 * visited by start, merged with the last window's entries: a region keeps
 * its entry when its start was there. */
static int track_window(struct hmmv *s, const struct tierd_hotness *hot)
{
	bool completing = s->round_done + 1 >= s->p.round_windows;
	struct table last;
	const size_t *by_start;
	uint32_t valid_round;
	size_t p = 0;
	int r;

	r = ensure_arrays(s, hot->nr_regions);
	if (r < 0)
		return r;
	last = s->cur;
	s->cur = s->prev;
	s->prev = last;
	s->cur.nr = 0;
	by_start = order_by_start(s, hot);
	valid_round = completing ? s->round_id : s->completed_round;
	for (size_t k = 0; k < hot->nr_regions; k++) {
		size_t i = by_start ? by_start[k] : k;
		const struct tierd_region *reg = &hot->regions[i];
		struct entry *e;
		uint64_t degree;

		if (s->cur.nr && s->cur.entries[s->cur.nr - 1].start == reg->start) {
			e = &s->cur.entries[s->cur.nr - 1];
		} else {
			while (p < s->prev.nr && s->prev.entries[p].start < reg->start)
				p++;
			e = &s->cur.entries[s->cur.nr++];
			if (p < s->prev.nr && s->prev.entries[p].start == reg->start)
				*e = s->prev.entries[p];
			else
				*e = (struct entry){ .start = reg->start, .acc_round = s->round_id };
		}
		degree = queue_step(s, e, reg);
		if (e->acc_round != s->round_id) {
			e->acc = 0;
			e->acc_round = s->round_id;
		}
		e->acc = tierd_add_sat(e->acc, degree);
		if (completing) {
			e->degree = e->acc;
			e->degree_round = s->round_id;
		}
		s->degree[i] = valid_round && e->degree_round == valid_round ? e->degree : 0;
	}
	s->nr = hot->nr_regions;
	if (completing)
		round_complete(s);
	else
		s->round_done++;
	return 0;
}

static void hmmv_observe(void *state, const struct tierd_strategy_input *in)
{
	struct hmmv *s = state;
	uint64_t migrated = tierd_add_sat(in->feedback->promoted_bytes, in->feedback->demoted_bytes);

	s->stats.migrated_bytes = tierd_add_sat(s->stats.migrated_bytes, migrated);
	s->memory_bytes = in->obs->current_bytes;
	if (s->tracking_on)
		s->round_migrated_bytes = tierd_add_sat(s->round_migrated_bytes, migrated);
	clock_advance(s, in->now_usec);
	s->nr = 0;
	s->oom = false;
	/* A tick with nothing observed, or with a reading already tracked,
	 * leaves the queue and the round as they were rather than forgetting
	 * every region or counting one twice. */
	if (s->tracking_on && in->hot->nr_regions && !in->hot->regions_repeated &&
	    track_window(s, in->hot) < 0)
		s->oom = true;
	s->window++;
	s->stats.windows = s->window;
}

/* ---- plan: hot set and exchange -------------------------------------- */

static bool placed(const struct tierd_region *r, const struct tierd_topology *topo)
{
	return r->tier >= 0 && (size_t)r->tier < topo->nr_tiers;
}

/* Books a move in the ledger and in the counters of what went up and down. */
static int propose(struct hmmv *s, struct tierd_ledger *l, enum tierd_reason reason, size_t from,
		   size_t to, uint64_t start, uint64_t bytes)
{
	if (to == 0)
		s->stats.promoted_bytes += bytes;
	else
		s->stats.demoted_bytes += bytes;
	return tierd_ledger_move(l, reason, from, to, start, bytes);
}

/* The cgroup's fast-tier capacity: its share of tier 0 when capped (an
 * island's fixed share or a pool's measured one, HMM-V §3.4), else the tier. */
static uint64_t fast_capacity(const struct tierd_strategy_input *in)
{
	if (in->share_bytes[0] != TIERD_SHARE_NONE)
		return in->share_bytes[0];
	return in->topo->tiers[0].total_bytes;
}

/* The hot set (HMM-V §3.3): the regions hottest first, pages accumulated up
 * to the fast-tier capacity; never-accessed pages are not hot. It is
 * order[0 .. *ret_nr); of the last, only *ret_last_bytes from its start when
 * the capacity cut it. Returns its pages. */
static uint64_t hot_set(const struct hmmv *s, const struct tierd_strategy_input *in,
			size_t *ret_nr, uint64_t *ret_last_bytes)
{
	const struct tierd_region *regions = in->hot->regions;
	uint64_t left = tierd_page_down(fast_capacity(in));
	uint64_t pages = 0;

	*ret_nr = 0;
	*ret_last_bytes = 0;
	for (size_t k = 0; k < s->nr && left; k++) {
		size_t i = s->order[k];
		uint64_t take;

		if (!s->degree[i])
			break;
		if (!placed(&regions[i], in->topo))
			continue;
		take = tierd_min_u64(regions[i].end - regions[i].start, left);
		left -= take;
		pages += take / TIERD_PAGE_BYTES;
		*ret_nr = k + 1;
		*ret_last_bytes = take;
	}
	return pages;
}

/* The coldest fast-tier regions outside the hot set, coldest first: a cursor
 * from the end of the order down to the hot set, with the bytes of the
 * current one already demoted this tick. */
struct cold_cursor {
	size_t pos;             /* order[pos - 1] is the current one */
	size_t stop;            /* the hot set's length */
	uint64_t done;
};

static const struct tierd_region *cold_next(const struct hmmv *s,
					    const struct tierd_strategy_input *in,
					    struct cold_cursor *c)
{
	for (; c->pos > c->stop; c->pos--, c->done = 0) {
		const struct tierd_region *r = &in->hot->regions[s->order[c->pos - 1]];

		if (r->tier == 0 && c->done < r->end - r->start)
			return r;
	}
	return NULL;
}

/* Bytes of a promotion the budget allows when it must also pay for the
 * demotions making room for it: what fits tier 0 now, plus half of what the
 * budget has beyond that. */
static uint64_t promote_cap(const struct tierd_ledger *l)
{
	uint64_t fit = tierd_ledger_fits(l, 0);

	if (l->budget <= fit)
		return tierd_page_down(l->budget);
	return tierd_page_down(fit + (l->budget - fit) / 2);
}

/* Exchange (HMM-V §3.3): promotes up to `bytes` of hot region r from its slow
 * tier to tier 0, first demoting to that tier as many of the coldest
 * fast-tier pages outside the hot set as the promotion needs room for. Tier 0
 * never gets more than its room plus what the demotions free. */
static int exchange(struct hmmv *s, struct tierd_ledger *l, const struct tierd_strategy_input *in,
		    const struct tierd_region *r, uint64_t bytes, struct cold_cursor *cold)
{
	size_t from = (size_t)r->tier;
	uint64_t want = tierd_min_u64(tierd_page_down(bytes), promote_cap(l));
	const struct tierd_region *c;
	int ret;

	while (want > tierd_ledger_fits(l, 0) && (c = cold_next(s, in, cold))) {
		uint64_t d = tierd_min_u64(want - tierd_ledger_fits(l, 0),
				     tierd_min_u64(c->end - c->start - cold->done, tierd_ledger_fits(l, from)));

		if (!d)
			break;
		ret = propose(s, l, TIERD_REASON_EXCHANGE_DEMOTION, 0, from, c->start + cold->done,
			      d);
		if (ret < 0)
			return ret;
		cold->done += d;
	}
	want = tierd_min_u64(want, tierd_ledger_fits(l, 0));
	if (!want)
		return 0;
	return propose(s, l, TIERD_REASON_HOT_SET_PROMOTION, from, 0, r->start, want);
}

static int hmmv_plan(void *state, const struct tierd_strategy_input *in,
		     struct tierd_action_list *out)
{
	struct hmmv *s = state;
	struct cold_cursor cold;
	struct tierd_ledger l;
	size_t nr_hot;
	uint64_t last_bytes;
	int r = 0;

	if (s->oom)
		return -ENOMEM;
	if (!s->tracking_on || !s->nr || s->nr != in->hot->nr_regions)
		return 0;
	tierd_hmmv_bucket_sort(s->degree, s->nr, s->order);
	s->stats.hot_set_pages = hot_set(s, in, &nr_hot, &last_bytes);
	tierd_ledger_init(&l, in, out);
	cold = (struct cold_cursor){ .pos = s->nr, .stop = nr_hot };
	for (size_t k = 0; k < nr_hot && r == 0 && tierd_ledger_has_budget(&l); k++) {
		const struct tierd_region *reg = &in->hot->regions[s->order[k]];
		uint64_t bytes = k + 1 == nr_hot ? last_bytes : reg->end - reg->start;

		if (placed(reg, in->topo) && reg->tier > 0)
			r = exchange(s, &l, in, reg, bytes, &cold);
	}
	return r;
}

/* ---- ops ------------------------------------------------------------- */

static int hmmv_init(const struct tierd_strategy_params *params, void **ret_state)
{
	struct tierd_hmmv_params p;
	struct hmmv *s;

	if (tierd_strategy_params_get(params, TIERD_STRATEGY_HMMV, &p, sizeof(p)) < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->round_id = 1;
	s->tracking_on = true;
	*ret_state = s;
	return 0;
}

/* The sampler looks every monitoring window (HMM-V §5.3). */
static void hmmv_profile(void *state, const struct tierd_topology *topo, uint64_t *interval_usec)
{
	const struct hmmv *s = state;

	for (size_t t = 0; t < topo->nr_tiers; t++)
		interval_usec[t] = s->p.window_usec;
}

static void hmmv_free(void *state)
{
	struct hmmv *s = state;

	if (!s)
		return;
	free(s->cur.entries);
	free(s->prev.entries);
	free(s->degree);
	free(s->order);
	free(s->by_start);
	free(s);
}

uint64_t tierd_hmmv_window(const void *state)
{
	const struct hmmv *s = state;

	return s->window;
}

bool tierd_hmmv_should_sample(const void *state, uint64_t start, uint64_t window)
{
	const struct hmmv *s = state;
	const struct entry *e;

	if (!s->tracking_on)
		return false;
	e = table_find(&s->cur, start);
	return !e || window >= e->next_window;
}

bool tierd_hmmv_tracking_on(const void *state)
{
	const struct hmmv *s = state;

	return s->tracking_on;
}

void tierd_hmmv_stats(const void *state, struct tierd_hmmv_stats *ret)
{
	const struct hmmv *s = state;

	*ret = s->stats;
	ret->tracking_on = s->tracking_on;
	ret->quiet_counter = s->quiet_counter;
}

const struct tierd_strategy_ops tierd_strategy_hmmv = {
	.name = "hmmv",
	.init = hmmv_init,
	.profile = hmmv_profile,
	.observe = hmmv_observe,
	.plan = hmmv_plan,
	.free = hmmv_free,
};
