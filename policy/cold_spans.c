/* The coldest regions a DEMOTE takes; see cold_spans.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cold_spans.h"
#include "util.h"

/* Coldest first: fewest accesses, then oldest, then lowest address. */
static int cmp_cold(const void *a, const void *b, void *ctx)
{
	const struct tierd_region *regions = ctx;
	const struct tierd_region *x = &regions[*(const size_t *)a];
	const struct tierd_region *y = &regions[*(const size_t *)b];

	if (x->nr_accesses != y->nr_accesses)
		return x->nr_accesses < y->nr_accesses ? -1 : 1;
	if (x->age != y->age)
		return x->age > y->age ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Where region r's memory not yet taken starts. */
static uint64_t untaken_start(const struct tierd_region *r, const struct tierd_cold_span *taken,
			      size_t nr_taken)
{
	uint64_t start = r->start;
	bool moved = true;

	while (moved) {
		moved = false;
		for (size_t i = 0; i < nr_taken; i++) {
			if (taken[i].start <= start && start < taken[i].end) {
				start = taken[i].end;
				moved = true;
			}
		}
	}
	return tierd_min_u64(start, r->end);
}

int tierd_cold_spans(const struct tierd_hotness *hot, size_t tier, uint64_t bytes,
		     const struct tierd_cold_span *taken, size_t nr_taken,
		     struct tierd_cold_span *out, size_t cap)
{
	_cleanup_free_ size_t *order = NULL;
	size_t nr = 0, n = 0;

	if (!hot || !hot->nr_regions)
		return 0;
	order = calloc(hot->nr_regions, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < hot->nr_regions; i++)
		if (hot->regions[i].tier >= 0 && (size_t)hot->regions[i].tier == tier)
			order[nr++] = i;
	qsort_r(order, nr, sizeof(*order), cmp_cold, (void *)hot->regions);
	for (size_t i = 0; i < nr && bytes; i++) {
		const struct tierd_region *reg = &hot->regions[order[i]];
		uint64_t start = untaken_start(reg, taken, nr_taken);
		uint64_t span = reg->end - start, held = tierd_region_share(reg, span);

		if (!span || !held)
			continue;
		if (span > bytes) {
			span = tierd_page_down(bytes);
			held = tierd_region_share(reg, span);
			if (!span)
				break;
		}
		if (n >= cap)
			return -E2BIG;
		out[n++] = (struct tierd_cold_span){ .start = start, .end = start + span,
						     .bytes = held, .nr_accesses = reg->nr_accesses };
		bytes -= span;
	}
	return (int)n;
}
