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

/* The regions of one tier inside one physical range, split by owner. */
static int attribute_range(struct tierd_hotness_set *set, const struct tierd_region *regions,
			   size_t nr_regions, const struct tierd_damon_region *range,
			   uint64_t stride, const struct tierd_kpagecgroup *kc,
			   const struct tierd_attr_cgroup *map, size_t nr,
			   const struct tierd_logger *log)
{
	uint64_t base = range->start / TIERD_PAGE_BYTES;
	size_t n = (size_t)((range->end / TIERD_PAGE_BYTES - base + stride - 1) / stride);
	size_t first = 0, count = 0;
	struct tierd_attr_owners owners;
	int r;

	while (first < nr_regions && regions[first].end <= range->start)
		first++;
	while (first + count < nr_regions && regions[first + count].start < range->end)
		count++;
	if (count == 0)
		return 0;
	r = grow((void **)&set->owners, &set->cap_owners, n, sizeof(*set->owners));
	if (r < 0)
		return r;
	r = tierd_kpagecgroup_read_sampled(kc, base, stride, n, set->owners, log);
	if (r < 0)
		return r;
	owners = (struct tierd_attr_owners){
		.base_pfn = base, .stride = stride, .nr = n, .owner = set->owners };
	r = tierd_attribute(regions + first, count, &owners, map, nr, set->part, nr);
	for (size_t c = 0; r == 0 && c < nr; c++)
		r = append(&set->out[c], &set->part[c]);
	return r;
}

int tierd_hotness_build(const struct tierd_damon_backend *b, const struct tierd_kpagecgroup *kc,
			const struct tierd_cgroup_obs *obs, size_t nr, struct tierd_hotness_set *set,
			const struct tierd_logger *log)
{
	struct tierd_attr_cgroup *map = NULL;
	uint64_t total_pages = 0, stride;
	int r;

	r = resize_set(set, nr);
	if (r < 0)
		return r;
	for (size_t c = 0; c < nr; c++)
		set->hot[c] = (struct tierd_hotness){ 0 };
	if (!kc || nr == 0 || b->state.damon != TIERD_DAMON_RUNNING)
		return 0;
	map = calloc(nr, sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (size_t c = 0; c < nr; c++)
		map[c] = (struct tierd_attr_cgroup){ .ino = obs[c].id, .index = c };
	qsort(map, nr, sizeof(*map), cmp_map);
	for (size_t t = 0; t < b->layout.nr_tiers; t++)
		for (size_t i = 0; i < b->layout.tiers[t].nr_ranges; i++)
			total_pages += (b->layout.tiers[t].ranges[i].end -
					b->layout.tiers[t].ranges[i].start) / TIERD_PAGE_BYTES;
	stride = tierd_attr_stride(total_pages, TIERD_HOTNESS_MAX_PAGES_READ);
	for (size_t t = 0; r == 0 && t < b->layout.nr_tiers; t++)
		for (size_t i = 0; r == 0 && i < b->layout.tiers[t].nr_ranges; i++)
			r = attribute_range(set, b->regions[t], b->nr_regions[t],
					    &b->layout.tiers[t].ranges[i], stride, kc, map, nr,
					    log);
	for (size_t c = 0; r == 0 && c < nr; c++) {
		qsort(set->out[c].regions, set->out[c].nr_regions, sizeof(struct tierd_region),
		      cmp_region);
		set->hot[c] = (struct tierd_hotness){ .nr_regions = set->out[c].nr_regions,
						      .regions = set->out[c].regions };
	}
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
	free(set->owners);
	memset(set, 0, sizeof(*set));
}
