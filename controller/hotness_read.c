/* Per-cgroup hotness from DAMON readings and page owners; see hotness_read.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hotness_read.h"

static int cmp_map(const void *a, const void *b)
{
	const struct tierd_attr_cgroup *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_region(const void *a, const void *b)
{
	const struct tierd_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	void *np;

	if (want <= *cap)
		return 0;
	np = realloc(*p, want * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = want;
	return 0;
}

static int resize_set(struct tierd_hotness_set *set, size_t nr)
{
	if (nr > set->nr) {
		struct tierd_attr_out *out = realloc(set->out, nr * sizeof(*out));
		struct tierd_attr_out *part;
		struct tierd_hotness *hot;

		if (!out)
			return -ENOMEM;
		set->out = out;
		memset(out + set->nr, 0, (nr - set->nr) * sizeof(*out));
		part = realloc(set->part, nr * sizeof(*part));
		if (!part)
			return -ENOMEM;
		set->part = part;
		memset(part + set->nr, 0, (nr - set->nr) * sizeof(*part));
		hot = realloc(set->hot, nr * sizeof(*hot));
		if (!hot)
			return -ENOMEM;
		set->hot = hot;
		set->nr = nr;
	}
	for (size_t c = 0; c < set->nr; c++)
		set->out[c].nr_regions = set->out[c].pages = 0;
	return 0;
}

/* Appends src's regions to dst. */
static int append(struct tierd_attr_out *dst, const struct tierd_attr_out *src)
{
	int r = grow((void **)&dst->regions, &dst->cap, dst->nr_regions + src->nr_regions,
		     sizeof(*dst->regions));

	if (r < 0)
		return r;
	memcpy(dst->regions + dst->nr_regions, src->regions,
	       src->nr_regions * sizeof(*src->regions));
	dst->nr_regions += src->nr_regions;
	dst->pages += src->pages;
	return 0;
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo): offset basis and prime. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define BYTE_BITS 8
#define BYTE_MASK 0xffu

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
	for (size_t i = 0; i < sizeof(v); i++) {
		h ^= (v >> (BYTE_BITS * i)) & BYTE_MASK;
		h *= FNV_PRIME;
	}
	return h;
}

/* The cache's entries for one physical range. */
static size_t range_entries(const struct tierd_damon_region *range, uint64_t stride)
{
	uint64_t pages = range->end / TIERD_PAGE_BYTES - range->start / TIERD_PAGE_BYTES;

	return (size_t)((pages + stride - 1) / stride);
}

/* Sizes the cache for layout; new ranges or a new stride make it
 * incomplete, to be read whole. */
static int fit_cache(struct tierd_owner_cache *c, const struct tierd_damon_layout *layout)
{
	uint64_t total_pages = 0, hash = FNV_OFFSET, stride;
	size_t n = 0;
	int r;

	for (size_t t = 0; t < layout->nr_tiers; t++)
		for (size_t i = 0; i < layout->tiers[t].nr_ranges; i++)
			total_pages += (layout->tiers[t].ranges[i].end -
					layout->tiers[t].ranges[i].start) / TIERD_PAGE_BYTES;
	stride = tierd_attr_stride(total_pages, TIERD_HOTNESS_MAX_PAGES_READ);
	hash = hash_u64(hash, stride);
	for (size_t t = 0; t < layout->nr_tiers; t++)
		for (size_t i = 0; i < layout->tiers[t].nr_ranges; i++) {
			const struct tierd_damon_region *range = &layout->tiers[t].ranges[i];

			hash = hash_u64(hash_u64(hash_u64(hash, t), range->start), range->end);
			n += range_entries(range, stride);
		}
	if (hash != c->layout_hash || n != c->nr)
		c->complete = false;
	r = grow((void **)&c->owner, &c->cap, n, sizeof(*c->owner));
	if (r < 0)
		return r;
	c->layout_hash = hash;
	c->nr = n;
	c->stride = stride;
	return 0;
}

/* Reads the cache's entries [lo, hi) from kc, range by range. */
static int read_owners(struct tierd_owner_cache *c, const struct tierd_damon_layout *layout,
		       const struct tierd_kpagecgroup *kc, size_t lo, size_t hi,
		       const struct tierd_logger *log)
{
	size_t off = 0;
	int r = 0;

	for (size_t t = 0; r == 0 && t < layout->nr_tiers; t++)
		for (size_t i = 0; r == 0 && i < layout->tiers[t].nr_ranges && off < hi; i++) {
			const struct tierd_damon_region *range = &layout->tiers[t].ranges[i];
			size_t n = range_entries(range, c->stride);
			size_t from = lo > off ? lo : off, to = hi < off + n ? hi : off + n;

			if (from < to)
				r = tierd_kpagecgroup_read_sampled(
					kc, range->start / TIERD_PAGE_BYTES + (from - off) * c->stride,
					c->stride, to - from, c->owner + from, log);
			off += n;
		}
	return r;
}

/* This tick's reads: all entries when the cache is incomplete, else the
 * pages_per_tick after the last refresh, wrapping around. */
static int refresh_owners(struct tierd_owner_cache *c, const struct tierd_damon_layout *layout,
			  const struct tierd_kpagecgroup *kc, uint64_t pages_per_tick,
			  const struct tierd_logger *log)
{
	size_t want, end;
	int r;

	if (!c->complete) {
		r = read_owners(c, layout, kc, 0, c->nr, log);
		c->complete = r == 0;
		c->next = 0;
		return r;
	}
	if (c->nr == 0)
		return 0;
	want = pages_per_tick < c->nr ? (size_t)pages_per_tick : c->nr;
	end = c->next + want;
	r = read_owners(c, layout, kc, c->next, end < c->nr ? end : c->nr, log);
	if (r == 0 && end > c->nr)
		r = read_owners(c, layout, kc, 0, end - c->nr, log);
	c->next = end % c->nr;
	c->complete = r == 0;
	return r;
}

/* The regions of one tier inside one physical range, split by the owners
 * of its pages (owner[0..n), one per stride pages from the range's start). */
static int attribute_range(struct tierd_hotness_set *set, const struct tierd_region *regions,
			   size_t nr_regions, const struct tierd_damon_region *range,
			   const uint64_t *owner, size_t n, const struct tierd_attr_cgroup *map,
			   size_t nr)
{
	size_t first = 0, count = 0;
	struct tierd_attr_owners owners;
	int r;

	while (first < nr_regions && regions[first].end <= range->start)
		first++;
	while (first + count < nr_regions && regions[first + count].start < range->end)
		count++;
	if (count == 0)
		return 0;
	owners = (struct tierd_attr_owners){ .base_pfn = range->start / TIERD_PAGE_BYTES,
					     .stride = set->owners.stride, .nr = n, .owner = owner };
	r = tierd_attribute(regions + first, count, &owners, map, nr, set->part, nr);
	for (size_t c = 0; r == 0 && c < nr; c++)
		r = append(&set->out[c], &set->part[c]);
	return r;
}

int tierd_hotness_build(const struct tierd_damon_view *b, const struct tierd_kpagecgroup *kc,
			const struct tierd_cgroup_obs *obs, size_t nr, uint64_t pages_per_tick,
			struct tierd_hotness_set *set, const struct tierd_logger *log)
{
	struct tierd_owner_cache *cache = &set->owners;
	struct tierd_attr_cgroup *map = NULL;
	size_t off = 0;
	int r;

	r = resize_set(set, nr);
	if (r < 0)
		return r;
	for (size_t c = 0; c < nr; c++)
		set->hot[c] = (struct tierd_hotness){ 0 };
	if (!kc || nr == 0 || b->state.damon != TIERD_DAMON_RUNNING) {
		/* Not kept up to date meanwhile: read whole when used again. */
		cache->complete = false;
		return 0;
	}
	r = fit_cache(cache, &b->layout);
	if (r == 0)
		r = refresh_owners(cache, &b->layout, kc, pages_per_tick, log);
	if (r < 0)
		goto out;
	map = calloc(nr, sizeof(*map));
	if (!map) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < nr; c++)
		map[c] = (struct tierd_attr_cgroup){ .ino = obs[c].id, .index = c };
	qsort(map, nr, sizeof(*map), cmp_map);
	for (size_t t = 0; r == 0 && t < b->layout.nr_tiers; t++)
		for (size_t i = 0; r == 0 && i < b->layout.tiers[t].nr_ranges; i++) {
			const struct tierd_damon_region *range = &b->layout.tiers[t].ranges[i];
			size_t n = range_entries(range, cache->stride);

			r = attribute_range(set, b->regions[t], b->nr_regions[t], range,
					    cache->owner + off, n, map, nr);
			off += n;
		}
	for (size_t c = 0; r == 0 && c < nr; c++) {
		qsort(set->out[c].regions, set->out[c].nr_regions, sizeof(struct tierd_region),
		      cmp_region);
		set->hot[c] = (struct tierd_hotness){ .nr_regions = set->out[c].nr_regions,
						      .regions = set->out[c].regions };
	}
out:
	if (r == -ENOMEM)
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "attributing DAMON regions");
	free(map);
	return r;
}

void tierd_hotness_set_free(struct tierd_hotness_set *set)
{
	tierd_attr_out_free(set->out, set->nr);
	tierd_attr_out_free(set->part, set->nr);
	free(set->out);
	free(set->part);
	free(set->hot);
	free(set->owners.owner);
	memset(set, 0, sizeof(*set));
}
