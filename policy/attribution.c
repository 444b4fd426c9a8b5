/* Per-cgroup hotness regions from DAMON's physical regions and page
 * owners; see attribution.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "attribution.h"

#define FIRST_RUNS 16 /* entries first allocated per cgroup; doubled as needed */
#define NO_INDEX SIZE_MAX

/* The gap after run `at` of a region's runs. */
struct gap {
	uint64_t bytes;
	size_t at;
};

/* Where an output cgroup's runs of the current DAMON region begin. */
struct slot {
	size_t seen;  /* 1 + the DAMON region `first` belongs to; 0: none yet */
	size_t first; /* its first run inside that DAMON region */
};

/* Per-call bookkeeping. */
struct scratch {
	struct slot *slots; /* one per output cgroup */
	size_t *touched;    /* cgroups with runs in the current DAMON region */
	size_t nr_touched;
	struct gap *gaps;
	size_t cap_gaps;
	uint64_t last_ino; /* one-entry cache of the map lookup */
	size_t last_index;
};

uint64_t tierd_attr_stride(uint64_t total_pages, uint64_t max_pages_read)
{
	if (max_pages_read == 0 || total_pages <= max_pages_read)
		return 1;
	return (total_pages - 1) / max_pages_read + 1;
}

void tierd_attr_out_free(struct tierd_attr_out *out, size_t nr_out)
{
	for (size_t i = 0; i < nr_out; i++) {
		free(out[i].regions);
		out[i] = (struct tierd_attr_out){ 0 };
	}
}

static bool valid_input(const struct tierd_region *regions, size_t nr_regions,
			const struct tierd_attr_owners *owners,
			const struct tierd_attr_cgroup *map, size_t nr_map, size_t nr_out)
{
	for (size_t i = 0; i < nr_regions; i++) {
		const struct tierd_region *r = &regions[i];

		if (r->start >= r->end || r->start % TIERD_PAGE_BYTES || r->end % TIERD_PAGE_BYTES)
			return false;
		if (i && regions[i - 1].end > r->start)
			return false;
	}
	for (size_t i = 0; i < nr_map; i++) {
		if (map[i].ino == 0 || map[i].index >= nr_out)
			return false;
		if (i && map[i - 1].ino >= map[i].ino)
			return false;
	}
	if (owners->stride == 0 || (owners->nr && !owners->owner))
		return false;
	/* The covered PFNs, as byte addresses, must fit in 64 bits. */
	return owners->nr <= UINT64_MAX / TIERD_PAGE_BYTES / owners->stride &&
	       owners->base_pfn <= UINT64_MAX / TIERD_PAGE_BYTES - owners->nr * owners->stride;
}

/* The output index of owner ino, or NO_INDEX. */
static size_t lookup(struct scratch *s, const struct tierd_attr_cgroup *map, size_t nr_map,
		     uint64_t ino)
{
	size_t lo = 0, hi = nr_map;

	if (ino == 0)
		return NO_INDEX;
	if (ino == s->last_ino)
		return s->last_index;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->last_ino = ino;
	s->last_index = lo < nr_map && map[lo].ino == ino ? map[lo].index : NO_INDEX;
	return s->last_index;
}

/* p with room for need entries of size bytes (*cap held now), grown by
 * doubling; NULL when out of memory (p is then still valid). */
static void *reserve(void *p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : FIRST_RUNS;
	void *np;

	if (need <= *cap)
		return p;
	while (ncap < need && ncap <= SIZE_MAX / 2)
		ncap *= 2;
	if (ncap < need || ncap > SIZE_MAX / size)
		return NULL;
	np = realloc(p, ncap * size);
	if (np)
		*cap = ncap;
	return np;
}

/* Adds PFNs [s_pfn, e_pfn) of DAMON region j to cgroup c. */
static int add_pages(struct scratch *s, struct tierd_attr_out *out, size_t c,
		     const struct tierd_region *reg, size_t j, uint64_t s_pfn, uint64_t e_pfn)
{
	struct tierd_attr_out *o = &out[c];
	uint64_t start = s_pfn * TIERD_PAGE_BYTES, end = e_pfn * TIERD_PAGE_BYTES;
	struct tierd_region *last = o->nr_regions ? &o->regions[o->nr_regions - 1] : NULL;
	struct tierd_region *regions;

	o->pages += e_pfn - s_pfn;
	/* Runs end at DAMON region boundaries: extend only within region j. */
	if (last && last->start >= reg->start && last->end == start) {
		last->end = end;
		last->bytes += end - start;
		return 0;
	}
	regions = reserve(o->regions, &o->cap, o->nr_regions + 1, sizeof(*o->regions));
	if (!regions)
		return -ENOMEM;
	o->regions = regions;
	if (s->slots[c].seen != j + 1) {
		s->slots[c].seen = j + 1;
		s->slots[c].first = o->nr_regions;
		s->touched[s->nr_touched++] = c;
	}
	o->regions[o->nr_regions] = *reg;
	o->regions[o->nr_regions].start = start;
	o->regions[o->nr_regions].end = end;
	o->regions[o->nr_regions].bytes = end - start;
	o->nr_regions++;
	return 0;
}

static int cmp_gap_bytes(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int cmp_gap_at(const void *a, const void *b)
{
	const struct gap *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* Merges the runs of one DAMON region, out->regions[first..], down to
 * TIERD_ATTR_MAX_RUNS_PER_REGION by closing the smallest gaps: the largest
 * TIERD_ATTR_MAX_RUNS_PER_REGION - 1 gaps stay as separators. A merged run
 * keeps the sum of its runs' bytes. */
static int cap_runs(struct scratch *s, struct tierd_attr_out *o, size_t first)
{
	struct tierd_region *runs = o->regions + first;
	size_t k = o->nr_regions - first, nr_kept = TIERD_ATTR_MAX_RUNS_PER_REGION - 1;
	struct gap *gaps, *kept;
	size_t begin = 0;

	if (k <= TIERD_ATTR_MAX_RUNS_PER_REGION)
		return 0;
	gaps = reserve(s->gaps, &s->cap_gaps, k - 1, sizeof(*s->gaps));
	if (!gaps)
		return -ENOMEM;
	s->gaps = gaps;
	for (size_t t = 0; t + 1 < k; t++)
		s->gaps[t] = (struct gap){ .bytes = runs[t + 1].start - runs[t].end, .at = t };
	qsort(s->gaps, k - 1, sizeof(*s->gaps), cmp_gap_bytes);
	kept = s->gaps + (k - 1 - nr_kept);
	qsort(kept, nr_kept, sizeof(*kept), cmp_gap_at);
	/* In place: run m is written after runs[begin..last], all at index
	 * >= m, were read. */
	for (size_t m = 0; m <= nr_kept; m++) {
		size_t last = m < nr_kept ? kept[m].at : k - 1;
		uint64_t bytes = 0;

		for (size_t t = begin; t <= last; t++)
			bytes += runs[t].bytes;
		runs[m].start = runs[begin].start;
		runs[m].end = runs[last].end;
		runs[m].bytes = bytes;
		begin = last + 1;
	}
	o->nr_regions = first + TIERD_ATTR_MAX_RUNS_PER_REGION;
	return 0;
}

/* Attributes DAMON region j's pages that owners covers. */
static int attribute_region(struct scratch *s, const struct tierd_region *reg, size_t j,
			    const struct tierd_attr_owners *ow, const struct tierd_attr_cgroup *map,
			    size_t nr_map, struct tierd_attr_out *out)
{
	uint64_t lo = reg->start / TIERD_PAGE_BYTES, hi = reg->end / TIERD_PAGE_BYTES;
	uint64_t limit = ow->base_pfn + ow->nr * ow->stride;
	int r = 0;

	if (lo < ow->base_pfn)
		lo = ow->base_pfn;
	if (hi > limit)
		hi = limit;
	if (lo >= hi)
		return 0;
	for (size_t i = (size_t)((lo - ow->base_pfn) / ow->stride); i < ow->nr; i++) {
		uint64_t s_pfn = ow->base_pfn + i * ow->stride, e_pfn = s_pfn + ow->stride;
		size_t c;

		if (s_pfn >= hi)
			break;
		c = lookup(s, map, nr_map, ow->owner[i]);
		if (c == NO_INDEX)
			continue;
		r = add_pages(s, out, c, reg, j, s_pfn < lo ? lo : s_pfn, e_pfn > hi ? hi : e_pfn);
		if (r < 0)
			return r;
	}
	for (size_t t = 0; t < s->nr_touched && r == 0; t++) {
		size_t c = s->touched[t];

		r = cap_runs(s, &out[c], s->slots[c].first);
	}
	s->nr_touched = 0;
	return r;
}

int tierd_attribute(const struct tierd_region *regions, size_t nr_regions,
		    const struct tierd_attr_owners *owners, const struct tierd_attr_cgroup *map,
		    size_t nr_map, struct tierd_attr_out *out, size_t nr_out)
{
	struct scratch s = { .last_index = NO_INDEX };
	int r = 0;

	if (!valid_input(regions, nr_regions, owners, map, nr_map, nr_out))
		return -EINVAL;
	for (size_t c = 0; c < nr_out; c++) {
		out[c].nr_regions = 0;
		out[c].pages = 0;
	}
	if (nr_out == 0 || nr_map == 0 || owners->nr == 0)
		return 0;
	s.slots = calloc(nr_out, sizeof(*s.slots));
	s.touched = calloc(nr_out, sizeof(*s.touched));
	if (!s.slots || !s.touched) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < nr_regions && r == 0; j++)
		r = attribute_region(&s, &regions[j], j, owners, map, nr_map, out);
out:
	free(s.slots);
	free(s.touched);
	free(s.gaps);
	return r;
}
