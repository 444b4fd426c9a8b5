/* The DAMON-like sampler: sampling, aggregation, merge and split, shaped
 * after mm/damon/core.c (kdamond_fn, kdamond_merge_regions,
 * damon_merge_regions_of, kdamond_split_regions, damon_split_regions_of);
 * written afresh. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "damon.h"
#include "../../policy/strategy.h"

#define PMY_ONE 10000u
/* Regions merge when their rates differ by at most 10% of the samples in a
 * window: DAMON's max_nr_accesses / 10. */
#define MERGE_THRESHOLD_PMY 1000u

void tiersim_damon_config_defaults(struct tiersim_damon_config *cfg)
{
	cfg->sample_usec = TIERSIM_DAMON_SAMPLE_USEC;
	cfg->aggr_usec = TIERSIM_DAMON_AGGR_USEC;
	cfg->min_regions = TIERSIM_DAMON_MIN_REGIONS;
	cfg->max_regions = TIERSIM_DAMON_MAX_REGIONS;
}

static uint64_t size_of(const struct tiersim_damon_region *r)
{
	return r->end - r->start;
}

static uint32_t rate_pmy(uint32_t accesses, uint32_t samples)
{
	return samples ? (uint32_t)((uint64_t)accesses * PMY_ONE / samples) : 0;
}

static uint32_t diff_u32(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

int tiersim_damon_init(struct tiersim_damon *d, const struct tiersim_damon_config *cfg,
		       uint64_t nr_pages, uint64_t base_addr, int tier, uint64_t seed,
		       uint64_t stream)
{
	memset(d, 0, sizeof(*d));
	if (!nr_pages || !cfg->sample_usec || cfg->aggr_usec < cfg->sample_usec ||
	    !cfg->min_regions || cfg->max_regions < cfg->min_regions || tier < 0 ||
	    tier >= TIERSIM_MAX_TIERS)
		return -EINVAL;
	d->cfg = *cfg;
	d->nr_pages = nr_pages;
	d->base_addr = base_addr;
	d->tier = tier;
	tiersim_rng_seed(&d->rng, seed, stream);
	/* A split never runs above max/2 regions and makes at most three of
	 * each: 1.5 * max, plus the initial min. */
	d->cap = (size_t)cfg->max_regions * 3 + cfg->min_regions + 3;
	d->regions = calloc(d->cap, sizeof(*d->regions));
	d->scratch = calloc(d->cap, sizeof(*d->scratch));
	d->out = calloc(d->cap, sizeof(*d->out));
	d->held = calloc(d->cap, sizeof(*d->held));
	d->ask = calloc(d->cap, sizeof(*d->ask));
	d->ask_runs = calloc(d->cap, sizeof(*d->ask_runs));
	d->owner = calloc(nr_pages, sizeof(*d->owner));
	d->on_tier = calloc(nr_pages, sizeof(*d->on_tier));
	if (!d->regions || !d->scratch || !d->out || !d->held || !d->ask || !d->ask_runs || !d->owner || !d->on_tier) {
		tiersim_damon_free(d);
		return -ENOMEM;
	}
	d->window_usec = cfg->aggr_usec;
	d->interval_usec = cfg->sample_usec;
	d->next_sample_usec = cfg->sample_usec;
	d->next_aggr_usec = cfg->aggr_usec;
	d->ask_reads = UINT64_MAX;
	d->next_update_usec = TIERSIM_DAMON_UPDATE_USEC;
	return 0;
}

/* Whether index i of the context holds a page of the space on its tier. */
static bool on_tier(const struct tiersim_damon *d, const struct tiersim_space *s, uint64_t i)
{
	if (d->frames)
		return d->frames[i].space == d->space;
	return s->pages[i].tier == d->tier;
}

/* The page at index i (on_tier() must hold): the frame's, or the space's. */
static struct tiersim_page *page_at(const struct tiersim_damon *d, struct tiersim_space *s,
				    uint64_t i)
{
	return &s->pages[d->frames ? d->frames[i].page : i];
}

/* The mapped part: what has been touched, up to whole chunks; a node's
 * physical pages are all there from the start. */
static uint64_t mapped_of(const struct tiersim_damon *d, const struct tiersim_space *s)
{
	uint64_t top = (s->top_page + TIERSIM_DAMON_MAP_CHUNK_PAGES - 1) /
		       TIERSIM_DAMON_MAP_CHUNK_PAGES * TIERSIM_DAMON_MAP_CHUNK_PAGES;

	if (d->frames)
		return d->nr_pages;
	return top < d->nr_pages ? top : d->nr_pages;
}

/* Follows the mapping: the first regions evenly over it, later growth
 * added to the last region (damon_set_regions()). */
static void update_mapping(struct tiersim_damon *d, struct tiersim_space *s)
{
	uint64_t mapped = mapped_of(d, s);

	if (mapped <= d->mapped_pages)
		return;
	if (!d->nr) {
		uint64_t nr = mapped < d->cfg.min_regions ? mapped : d->cfg.min_regions;

		for (uint64_t i = 0; i < nr; i++) {
			struct tiersim_damon_region *r = &d->regions[i];

			memset(r, 0, sizeof(*r));
			r->start = mapped * i / nr;
			r->end = mapped * (i + 1) / nr;
			r->sample_page = UINT64_MAX;
		}
		d->nr = (size_t)nr;
	} else {
		d->regions[d->nr - 1].end = mapped;
	}
	d->mapped_pages = mapped;
}

void tiersim_damon_use_frames(struct tiersim_damon *d, const struct tiersim_frame *frames,
			      int32_t space)
{
	d->frames = frames;
	d->space = space;
}

void tiersim_damon_free(struct tiersim_damon *d)
{
	free(d->regions);
	free(d->scratch);
	free(d->out);
	free(d->held);
	free(d->ask);
	free(d->ask_runs);
	free(d->owner);
	free(d->on_tier);
	tierd_attr_out_free(&d->runs, 1);
	d->regions = d->scratch = NULL;
	d->out = d->held = NULL;
	d->ask = d->owner = d->on_tier = NULL;
	d->ask_runs = NULL;
}

void tiersim_damon_set_intervals(struct tiersim_damon *d, const uint64_t *interval_usec)
{
	uint64_t aggr = d->cfg.aggr_usec, period = interval_usec[d->tier];
	uint64_t window = period ? tierd_profile_aggr_usec(period) : aggr;
	uint64_t sample;

	d->read_period_usec = period;
	sample = (uint64_t)((unsigned __int128)window * d->cfg.sample_usec / aggr);
	if (sample < TIERSIM_DAMON_MIN_SAMPLE_USEC)
		sample = TIERSIM_DAMON_MIN_SAMPLE_USEC;
	d->interval_usec = sample;
	if (window != d->window_usec) {
		d->window_usec = window;
		d->next_aggr_usec = d->last_aggr_usec + window;
	}
}

void tiersim_damon_reindex(struct tiersim_damon *d, const struct tiersim_space *s)
{
	d->nr_on_tier = 0;
	for (uint64_t p = 0; p < d->nr_pages; p++)
		if (on_tier(d, s, p))
			d->on_tier[d->nr_on_tier++] = p;
}

/* The first index of on_tier at or after page p. */
static size_t lower_bound(const struct tiersim_damon *d, uint64_t p)
{
	size_t lo = 0, hi = d->nr_on_tier;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->on_tier[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Picks the page the next check reads, a random one of the region's pages
 * on the tier, and clears its accessed and dirty bits (DAMON's
 * prepare_access_checks: mkold on a random address; HMM-V's scanner clears
 * both A/D bits, §3.2), so the check sees only what happens in between. A
 * region with no page on the tier has nothing to arm: its checks find
 * nothing, as a paddr check of a free frame does. */
static void arm(struct tiersim_damon *d, struct tiersim_space *s, struct tiersim_damon_region *r,
		uint64_t now_usec)
{
	size_t lo = lower_bound(d, r->start), hi = lower_bound(d, r->end);

	r->armed_usec = now_usec;
	r->sample_on_tier = lo < hi;
	if (!r->sample_on_tier) {
		r->sample_page = r->start;
		return;
	}
	r->sample_page = d->on_tier[lo + tiersim_rng_below(&d->rng, hi - lo)];
	if (on_tier(d, s, r->sample_page))
		page_at(d, s, r->sample_page)->flags &=
			(uint8_t)~(TIERSIM_PAGE_ACCESSED | TIERSIM_PAGE_DIRTY);
}

static uint32_t region_rate(const struct tiersim_damon_region *r)
{
	/* A window just closed, or one barely begun, speaks through the last. */
	if (r->nr_samples)
		return rate_pmy(r->nr_accesses, r->nr_samples);
	return rate_pmy(r->last_accesses, r->last_samples);
}

static void merge_two(struct tiersim_damon_region *l, const struct tiersim_damon_region *r)
{
	uint64_t sl = size_of(l), sr = size_of(r), sum = sl + sr;

#define WMEAN(f) (l->f = (uint32_t)(((uint64_t)l->f * sl + (uint64_t)r->f * sr) / sum))
	/* A weighted mean of writes never exceeds that of their accesses. */
	WMEAN(nr_accesses);
	WMEAN(nr_samples);
	WMEAN(nr_writes);
	WMEAN(last_accesses);
	WMEAN(last_samples);
	WMEAN(last_writes);
	WMEAN(age);
#undef WMEAN
	if (r->last_window_usec > l->last_window_usec)
		l->last_window_usec = r->last_window_usec;
	l->end = r->end;
}

static void merge_pass(struct tiersim_damon *d, uint32_t threshold_pmy, uint64_t size_limit)
{
	size_t kept = 0;

	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];

		if (kept) {
			struct tiersim_damon_region *prev = &d->regions[kept - 1];

			if (prev->end == r->start && !prev->frozen && !r->frozen &&
			    diff_u32(region_rate(prev), region_rate(r)) <= threshold_pmy &&
			    size_of(prev) + size_of(r) <= size_limit) {
				merge_two(prev, r);
				continue;
			}
		}
		d->regions[kept++] = *r;
	}
	d->nr = kept;
}

static void split_regions(struct tiersim_damon *d)
{
	size_t nr_subs, n = 0;

	if (d->nr > d->cfg.max_regions / 2)
		return;
	nr_subs = d->nr < d->cfg.max_regions / 3 ? 3 : 2;
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region pieces[3];
		size_t nr_pieces = 1;
		uint64_t sz = size_of(&d->regions[i]);

		pieces[0] = d->regions[i];
		/* As damon_split_regions_of: cut the left part again and again
		 * at a random tenth (1..9) of its size. A frozen region stays
		 * whole: its start is what the filter knows it by. */
		for (size_t k = 0; k + 1 < nr_subs && sz > 2 && !pieces[0].frozen; k++) {
			uint64_t sub = (1 + tiersim_rng_below(&d->rng, 9)) * sz / 10;
			struct tiersim_damon_region right;

			if (!sub || sub >= sz)
				continue;
			right = pieces[0];
			right.start = pieces[0].start + sub;
			right.end = pieces[0].start + sz;
			right.sample_page = UINT64_MAX;
			pieces[0].end = right.start;
			/* The new right piece sits just after the left one. */
			memmove(&pieces[2], &pieces[1], (nr_pieces - 1) * sizeof(pieces[0]));
			pieces[1] = right;
			nr_pieces++;
			sz = sub;
		}
		memcpy(&d->scratch[n], pieces, nr_pieces * sizeof(pieces[0]));
		n += nr_pieces;
	}
	memcpy(d->regions, d->scratch, n * sizeof(*d->regions));
	d->nr = n;
}

static void aggregate(struct tiersim_damon *d, uint64_t now_usec)
{
	uint64_t size_limit = d->mapped_pages / d->cfg.min_regions;
	uint32_t threshold = MERGE_THRESHOLD_PMY;

	if (!size_limit)
		size_limit = 1;
	/* Close the window: age, then the counts become the last window's. */
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];

		if (r->frozen)
			continue;
		if (diff_u32(rate_pmy(r->nr_accesses, r->nr_samples),
			     rate_pmy(r->last_accesses, r->last_samples)) > MERGE_THRESHOLD_PMY)
			r->age = 0;
		else
			r->age++;
		r->last_accesses = r->nr_accesses;
		r->last_samples = r->nr_samples;
		r->last_writes = r->nr_writes;
		r->last_window_usec = now_usec - d->last_aggr_usec;
		r->nr_accesses = 0;
		r->nr_samples = 0;
		r->nr_writes = 0;
	}
	d->last_aggr_usec = now_usec;
	/* Merge with a doubling threshold while there are too many regions
	 * (kdamond_merge_regions). */
	do {
		merge_pass(d, threshold, size_limit);
		threshold *= 2;
	} while (d->nr > d->cfg.max_regions && threshold / 2 < PMY_ONE);

	/* What the daemon reads: each region's last complete window. */
	d->nr_out = d->nr;
	for (size_t i = 0; i < d->nr; i++) {
		const struct tiersim_damon_region *r = &d->regions[i];

		d->out[i] = (struct tierd_region){
			.start = d->base_addr + r->start * TIERSIM_PAGE_BYTES,
			.end = d->base_addr + r->end * TIERSIM_PAGE_BYTES,
			.tier = d->tier,
			.nr_accesses = r->last_accesses,
			.max_accesses = r->last_samples,
			.age = r->age,
			.aggr_usec = r->last_window_usec ? r->last_window_usec : d->window_usec,
			.reads = r->last_accesses - r->last_writes,
			.writes = r->last_writes,
		};
	}
	split_regions(d);
}

/* One kdamond_fn() pass when a sampling interval is up: check every region
 * armed a full interval ago, close the window, merge and split when the
 * aggregation interval is up, then arm every region for the next check. */
int tiersim_damon_step(struct tiersim_damon *d, struct tiersim_space *s, uint64_t now_usec)
{
	if (!d->armed || now_usec >= d->next_update_usec) {
		update_mapping(d, s);
		tiersim_damon_reindex(d, s);
		for (size_t i = 0; i < d->nr; i++)
			if (!d->regions[i].frozen && d->regions[i].sample_page >= d->regions[i].end)
				arm(d, s, &d->regions[i], now_usec);
		if (!d->armed)
			d->next_sample_usec = now_usec + d->interval_usec;
		d->armed = 1;
		while (d->next_update_usec <= now_usec)
			d->next_update_usec += TIERSIM_DAMON_UPDATE_USEC;
	}
	if (now_usec < d->next_sample_usec)
		return 0;
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];
		uint8_t flags = 0;

		if (r->frozen) {
			d->skipped_checks++;
			continue;
		}
		/* Armed later (a region let through again): its check is due
		 * a full interval after its arming. */
		if (now_usec - r->armed_usec < d->interval_usec)
			continue;
		/* A write sets both bits, so accessed and dirty is a write. A
		 * page that left the tier since is not there to be found; a
		 * frame reads whichever page holds it now. */
		if (r->sample_on_tier && on_tier(d, s, r->sample_page))
			flags = page_at(d, s, r->sample_page)->flags;
		if (flags & TIERSIM_PAGE_ACCESSED) {
			r->nr_accesses++;
			if (flags & TIERSIM_PAGE_DIRTY)
				r->nr_writes++;
		}
		r->nr_samples++;
		/* No page of the tier, nothing to read: no work. */
		d->checks += r->sample_on_tier;
	}
	if (now_usec >= d->next_aggr_usec) {
		aggregate(d, now_usec);
		d->next_aggr_usec = now_usec + d->window_usec;
	}
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];

		if (!r->frozen && (now_usec - r->armed_usec >= d->interval_usec ||
				   r->sample_page < r->start || r->sample_page >= r->end))
			arm(d, s, r, now_usec);
	}
	d->next_sample_usec = now_usec + d->interval_usec;
	return 0;
}
/* The page of an address in the space. */
static uint64_t page_of(const struct tiersim_damon *d, uint64_t addr)
{
	return (addr - d->base_addr) / TIERSIM_PAGE_BYTES;
}

/* Whether reported region o is sampled: unless the strategy refuses every
 * run of it it knows (one it does not know, it has no say over). The
 * refusals are counted, as the strategy counts them, in *ret_refused. */
static bool ask_region(const struct tiersim_damon *d, size_t o, tiersim_damon_sample_fn *sample,
		       const void *ctx, bool known, size_t *ret_refused)
{
	size_t runs = known ? d->ask_runs[o] : 0;

	*ret_refused = 0;
	if (!sample || (known && !runs))
		return true;
	if (!runs) {
		*ret_refused = !sample(ctx, d->held[o].start);
		return !*ret_refused;
	}
	for (size_t k = 0; k < runs; k++)
		*ret_refused += !sample(ctx, d->runs.regions[d->ask[o] + k].start);
	return *ret_refused < runs;
}

void tiersim_damon_filter(struct tiersim_damon *d, struct tiersim_space *s,
			  tiersim_damon_sample_fn *sample, const void *ctx, uint64_t now_usec)
{
	size_t n = 0, o = 0, asked = SIZE_MAX, refused = 0;
	bool sampled = true, known = d->ask_reads == d->reads;

	for (size_t i = 0; i < d->nr;) {
		struct tiersim_damon_region *r = &d->regions[n++];
		const struct tierd_region *out = NULL;

		*r = d->regions[i++];
		/* The reported region holding its start: both lists are in
		 * address order, and a split only cuts inside a region. */
		while (o < d->nr_held && page_of(d, d->held[o].end) <= r->start)
			o++;
		if (o < d->nr_held && page_of(d, d->held[o].start) <= r->start)
			out = &d->held[o];
		if (out && o != asked) {
			asked = o;
			sampled = ask_region(d, o, sample, ctx, known, &refused);
			d->skipped_regions += refused;
		}
		if (!out || sampled) {
			if (r->frozen) {
				r->frozen = false;
				arm(d, s, r, now_usec);
			}
			continue;
		}
		/* Frozen whole, as it was reported; the window under way is
		 * dropped, the last complete one is what it keeps reporting. */
		while (i < d->nr && d->regions[i].start < page_of(d, out->end)) {
			if (d->regions[i].end > r->end)
				r->end = d->regions[i].end;
			i++;
		}
		if (!r->frozen) {
			r->nr_accesses = r->nr_samples = r->nr_writes = 0;
			r->frozen = true;
		}

	}
	d->nr = n;
}

void tiersim_damon_read(struct tiersim_damon *d, uint64_t now_usec)
{
	if (d->reads && d->read_period_usec && now_usec >= d->read_usec &&
	    now_usec - d->read_usec < d->read_period_usec)
		return;
	memcpy(d->held, d->out, d->nr_out * sizeof(*d->held));
	d->nr_held = d->nr_out;
	d->read_usec = now_usec;
	d->reads++;
}

int tiersim_damon_regions(struct tiersim_damon *d, const struct tiersim_space *s,
			  const struct tierd_region **ret, size_t *ret_nr)
{
	/* The daemon's attribution, with the tier's pages as the one owner. */
	const struct tierd_attr_cgroup map = { .ino = 1, .index = 0 };
	struct tierd_attr_owners owners = {
		.base_pfn = d->base_addr / TIERSIM_PAGE_BYTES, .stride = 1, .nr = d->mapped_pages,
		.owner = d->owner,
	};
	size_t run = 0;
	int r;

	*ret = NULL;
	*ret_nr = 0;
	for (uint64_t p = 0; p < d->mapped_pages; p++)
		d->owner[p] = on_tier(d, s, p);
	r = tierd_attribute(d->held, d->nr_held, &owners, &map, 1, &d->runs, 1);
	if (r < 0)
		return r;
	for (size_t i = 0; i < d->nr_held; i++) {
		while (run < d->runs.nr_regions && d->runs.regions[run].end <= d->held[i].start)
			run++;
		d->ask[i] = run;
		d->ask_runs[i] = 0;
		while (run + d->ask_runs[i] < d->runs.nr_regions &&
		       d->runs.regions[run + d->ask_runs[i]].start < d->held[i].end)
			d->ask_runs[i]++;
	}
	d->ask_reads = d->reads;
	*ret = d->runs.regions;
	*ret_nr = d->runs.nr_regions;
	return 0;
}
