/* The previous tick's regions: region_history.h. */
#include <stdlib.h>

#include "region_history.h"
#include "strategy_scratch.h"

static int by_start(const void *a, const void *b)
{
	const struct tierd_region_held *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool sorted(const struct tierd_region_held *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (r[i].start < r[i - 1].start)
			return false;
	return true;
}

int tierd_region_history_update(struct tierd_region_history *h, const struct tierd_region *regions,
				size_t n)
{
	int r = tierd_reserve((void **)&h->held, &h->cap, n, sizeof(*h->held));

	if (r < 0) {
		h->nr = 0;
		h->known = false;
		return r;
	}
	for (size_t i = 0; i < n; i++)
		h->held[i] = (struct tierd_region_held){ .start = regions[i].start,
							 .end = regions[i].end,
							 .bytes = tierd_region_bytes(&regions[i]) };
	h->nr = n;
	h->known = true;
	/* The daemon's lists are in address order per tier; sort only when
	 * the tiers' ranges interleave. */
	if (!sorted(h->held, n))
		qsort(h->held, n, sizeof(*h->held), by_start);
	return 0;
}

/* The first kept region that ends after start, from *pos forward when the
 * list has not gone past start there, else by bisection. Kept regions are
 * disjoint, so their ends are in the order of their starts. */
static size_t first_after(const struct tierd_region_history *h, size_t pos, uint64_t start)
{
	size_t lo = 0, hi = h->nr;

	if (pos < h->nr && h->held[pos].start <= start) {
		while (pos < h->nr && h->held[pos].end <= start)
			pos++;
		return pos;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->held[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t tierd_region_history_bytes(const struct tierd_region_history *h, size_t *pos,
				    uint64_t start, uint64_t end)
{
	size_t i = first_after(h, *pos, start);
	uint64_t sum = 0;

	*pos = i;
	for (; i < h->nr && h->held[i].start < end; i++) {
		const struct tierd_region_held *k = &h->held[i];
		uint64_t a = k->start > start ? k->start : start;
		uint64_t b = k->end < end ? k->end : end;

		if (b > a)
			sum += tierd_even_share(k->bytes, k->start, k->end, b - a);
	}
	return sum;
}

bool tierd_region_history_grew(const struct tierd_region_history *h, size_t *pos,
			       const struct tierd_region *r)
{
	if (!h->known || r->end <= r->start)
		return false;
	return tierd_region_bytes(r) > tierd_region_history_bytes(h, pos, r->start, r->end) +
					       TIERD_REGION_GROWTH_SLACK_BYTES;
}

void tierd_region_history_free(struct tierd_region_history *h)
{
	free(h->held);
	*h = (struct tierd_region_history){ 0 };
}
