/* The DAMON-like sampler: sampling, aggregation, merge and split, shaped
 * after mm/damon/core.c (kdamond_merge_regions, damon_merge_regions_of,
 * kdamond_split_regions, damon_split_regions_of); written afresh. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "damon.h"

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
		       uint64_t nr_pages, uint64_t base_addr, size_t nr_tiers,
		       uint64_t seed, uint64_t stream)
{
	memset(d, 0, sizeof(*d));
	if (!nr_pages || !cfg->sample_usec || cfg->aggr_usec < cfg->sample_usec ||
	    !cfg->min_regions || cfg->max_regions < cfg->min_regions || !nr_tiers ||
	    nr_tiers > TIERSIM_MAX_TIERS)
		return -EINVAL;
	d->cfg = *cfg;
	d->nr_pages = nr_pages;
	d->base_addr = base_addr;
	d->nr_tiers = nr_tiers;
	tiersim_rng_seed(&d->rng, seed, stream);
	/* A split never runs above max/2 regions and makes at most three of
	 * each: 1.5 * max, plus the initial min. */
	d->cap = (size_t)cfg->max_regions * 3 + cfg->min_regions + 3;
	d->regions = calloc(d->cap, sizeof(*d->regions));
	d->scratch = calloc(d->cap, sizeof(*d->scratch));
	d->out = calloc(d->cap, sizeof(*d->out));
	if (!d->regions || !d->scratch || !d->out) {
		tiersim_damon_free(d);
		return -ENOMEM;
	}
	for (size_t b = 0; b <= nr_tiers; b++) {
		d->window_usec[b] = cfg->aggr_usec;
		d->interval_usec[b] = cfg->sample_usec;
		d->next_sample_usec[b] = cfg->sample_usec;
		d->next_window_usec[b] = cfg->aggr_usec;
	}
	d->next_aggr_usec = cfg->aggr_usec;
	d->next_update_usec = TIERSIM_DAMON_UPDATE_USEC;
	return 0;
}

/* The mapped part: what has been touched, up to whole chunks. */
static uint64_t mapped_of(const struct tiersim_damon *d, const struct tiersim_space *s)
{
	uint64_t top = (s->top_page + TIERSIM_DAMON_MAP_CHUNK_PAGES - 1) /
		       TIERSIM_DAMON_MAP_CHUNK_PAGES * TIERSIM_DAMON_MAP_CHUNK_PAGES;

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
			r->bucket = d->nr_tiers;
			r->sample_page = UINT64_MAX;
		}
		d->nr = (size_t)nr;
	} else {
		d->regions[d->nr - 1].end = mapped;
	}
	d->mapped_pages = mapped;
}

void tiersim_damon_free(struct tiersim_damon *d)
{
	free(d->regions);
	free(d->scratch);
	free(d->out);
	d->regions = d->scratch = NULL;
	d->out = NULL;
}

void tiersim_damon_set_intervals(struct tiersim_damon *d, const uint64_t *interval_usec)
{
	uint64_t aggr = d->cfg.aggr_usec;

	for (size_t t = 0; t < d->nr_tiers; t++) {
		uint64_t window = interval_usec[t] ? interval_usec[t] : aggr;
		uint64_t sample;

		if (window > TIERSIM_DAMON_MAX_WINDOW_USEC)
			window = TIERSIM_DAMON_MAX_WINDOW_USEC;
		window = window < aggr ? aggr : window / aggr * aggr;
		sample = (uint64_t)((unsigned __int128)window * d->cfg.sample_usec / aggr);
		if (sample < TIERSIM_DAMON_MIN_SAMPLE_USEC)
			sample = TIERSIM_DAMON_MIN_SAMPLE_USEC;
		d->interval_usec[t] = sample;
		if (window != d->window_usec[t]) {
			d->window_usec[t] = window;
			d->next_window_usec[t] = d->next_aggr_usec - aggr + window;
		}
	}
}

/* Picks the page the next sample checks and clears its accessed and dirty
 * bits (DAMON's prepare_access_checks: mkold on a random address; HMM-V's
 * scanner clears both A/D bits, §3.2), so the check sees only what happened
 * since. */
static void arm(struct tiersim_damon *d, struct tiersim_space *s, struct tiersim_damon_region *r)
{
	r->sample_page = r->start + tiersim_rng_below(&d->rng, size_of(r));
	s->pages[r->sample_page].flags &= (uint8_t)~(TIERSIM_PAGE_ACCESSED | TIERSIM_PAGE_DIRTY);
}

/* The tier holding most of a region's pages decides its sampling interval. */
static void assign_buckets(struct tiersim_damon *d, const struct tiersim_space *s)
{
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];
		uint64_t count[TIERSIM_MAX_TIERS] = { 0 }, best = 0;

		r->bucket = d->nr_tiers;
		for (uint64_t p = r->start; p < r->end; p++)
			if (s->pages[p].tier >= 0)
				count[s->pages[p].tier]++;
		for (size_t t = 0; t < d->nr_tiers; t++) {
			if (count[t] > best) {
				best = count[t];
				r->bucket = t;
			}
		}
	}
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

static void aggregate(struct tiersim_damon *d, struct tiersim_space *s, uint64_t now_usec)
{
	uint64_t size_limit = d->mapped_pages / d->cfg.min_regions;
	uint32_t threshold = MERGE_THRESHOLD_PMY;
	bool closing[TIERSIM_MAX_TIERS + 1] = { false };

	if (!size_limit)
		size_limit = 1;
	for (size_t b = 0; b <= d->nr_tiers; b++) {
		if (d->next_window_usec[b] > now_usec)
			continue;
		closing[b] = true;
		while (d->next_window_usec[b] <= now_usec)
			d->next_window_usec[b] += d->window_usec[b];
	}
	/* Close the windows due: age, then the counts become the last window's. */
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];

		if (!closing[r->bucket] || r->frozen)
			continue;
		if (diff_u32(rate_pmy(r->nr_accesses, r->nr_samples),
			     rate_pmy(r->last_accesses, r->last_samples)) > MERGE_THRESHOLD_PMY)
			r->age = 0;
		else
			r->age++;
		r->last_accesses = r->nr_accesses;
		r->last_samples = r->nr_samples;
		r->last_writes = r->nr_writes;
		r->last_window_usec = d->window_usec[r->bucket];
		r->nr_accesses = 0;
		r->nr_samples = 0;
		r->nr_writes = 0;
	}
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
			.tier = -1,
			.nr_accesses = r->last_accesses,
			.max_accesses = r->last_samples,
			.age = r->age,
			.aggr_usec = r->last_window_usec ? r->last_window_usec : d->cfg.aggr_usec,
			.reads = r->last_accesses - r->last_writes,
			.writes = r->last_writes,
		};
	}
	d->windows++;
	split_regions(d);
	assign_buckets(d, s);
	for (size_t i = 0; i < d->nr; i++) {
		struct tiersim_damon_region *r = &d->regions[i];

		if (!r->frozen && (r->sample_page < r->start || r->sample_page >= r->end))
			arm(d, s, r);
	}
}

int tiersim_damon_step(struct tiersim_damon *d, struct tiersim_space *s, uint64_t now_usec)
{
	bool due[TIERSIM_MAX_TIERS + 1] = { false }, any = false;

	if (!d->armed || now_usec >= d->next_update_usec) {
		size_t before = d->nr;

		update_mapping(d, s);
		if (!d->armed || d->nr != before) {
			assign_buckets(d, s);
			for (size_t i = 0; i < d->nr; i++)
				if (!d->regions[i].frozen &&
				    d->regions[i].sample_page >= d->regions[i].end)
					arm(d, s, &d->regions[i]);
		}
		d->armed = 1;
		while (d->next_update_usec <= now_usec)
			d->next_update_usec += TIERSIM_DAMON_UPDATE_USEC;
	}
	for (size_t b = 0; b <= d->nr_tiers; b++) {
		if (d->next_sample_usec[b] > now_usec)
			continue;
		due[b] = any = true;
		while (d->next_sample_usec[b] <= now_usec)
			d->next_sample_usec[b] += d->interval_usec[b];
	}
	if (any) {
		for (size_t i = 0; i < d->nr; i++) {
			struct tiersim_damon_region *r = &d->regions[i];
			uint8_t flags;

			if (!due[r->bucket])
				continue;
			if (r->frozen) {
				d->skipped_checks++;
				continue;
			}
			/* Check the bits cleared at the last sample, then arm anew.
			 * A write sets both, so accessed and dirty is a write. */
			flags = s->pages[r->sample_page].flags;
			if (flags & TIERSIM_PAGE_ACCESSED) {
				r->nr_accesses++;
				if (flags & TIERSIM_PAGE_DIRTY)
					r->nr_writes++;
			}
			r->nr_samples++;
			d->checks++;
			arm(d, s, r);
		}
	}
	if (now_usec >= d->next_aggr_usec) {
		aggregate(d, s, now_usec);
		while (d->next_aggr_usec <= now_usec)
			d->next_aggr_usec += d->cfg.aggr_usec;
	}
	return 0;
}

/* The page of an address in the space. */
static uint64_t page_of(const struct tiersim_damon *d, uint64_t addr)
{
	return (addr - d->base_addr) / TIERSIM_PAGE_BYTES;
}

void tiersim_damon_filter(struct tiersim_damon *d, struct tiersim_space *s,
			  tiersim_damon_sample_fn *sample, const void *ctx)
{
	size_t n = 0, o = 0, asked = SIZE_MAX;
	bool sampled = true;

	for (size_t i = 0; i < d->nr;) {
		struct tiersim_damon_region *r = &d->regions[n++];
		const struct tierd_region *out = NULL;

		*r = d->regions[i++];
		/* The reported region holding its start: both lists are in
		 * address order, and a split only cuts inside a region. */
		while (o < d->nr_out && page_of(d, d->out[o].end) <= r->start)
			o++;
		if (o < d->nr_out && page_of(d, d->out[o].start) <= r->start)
			out = &d->out[o];
		if (out && o != asked) {
			asked = o;
			sampled = !sample || sample(ctx, out->start);
		}
		if (!out || sampled) {
			if (r->frozen) {
				r->frozen = false;
				arm(d, s, r);
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
		d->skipped_regions++;
	}
	d->nr = n;
}

const struct tierd_region *tiersim_damon_regions(struct tiersim_damon *d,
						 const struct tiersim_space *s, size_t *ret_nr)
{
	for (size_t i = 0; i < d->nr_out; i++) {
		struct tierd_region *o = &d->out[i];
		uint64_t first = (o->start - d->base_addr) / TIERSIM_PAGE_BYTES;
		uint64_t last = (o->end - d->base_addr) / TIERSIM_PAGE_BYTES;
		int tier = -2;

		for (uint64_t p = first; p < last && tier != -1; p++) {
			int t = s->pages[p].tier;

			if (t < 0)
				continue;
			tier = tier == -2 ? t : tier == t ? tier : -1;
		}
		o->tier = tier == -2 ? -1 : tier;
	}
	*ret_nr = d->nr_out;
	return d->out;
}
