/* A pool member's need over its recent readings (pool_need.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool_need.h"
#include "util.h"

static int cmp_start(const void *a, const void *b)
{
	const struct tierd_need_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The kept reading `age` readings before the newest (0: the newest). */
static struct tierd_need_round *kept(const struct tierd_pool_need *n, unsigned age)
{
	return &n->rounds[(n->next + TIERD_POOL_NEED_MAX_ROUNDS - 1 - age) % TIERD_POOL_NEED_MAX_ROUNDS];
}

/* A cursor into one kept reading for the merge. */
struct cursor {
	const struct tierd_need_round *round;
	size_t at;
};

static uint64_t cursor_start(const struct cursor *c)
{
	return c->round->spans[c->at].start;
}

/* Restores the min-heap order of h[0..nr) below slot i. */
static void sift_down(struct cursor *h, size_t nr, size_t i)
{
	for (;;) {
		size_t low = i, l = 2 * i + 1, r = l + 1;
		struct cursor t;

		if (l < nr && cursor_start(&h[l]) < cursor_start(&h[low]))
			low = l;
		if (r < nr && cursor_start(&h[r]) < cursor_start(&h[low]))
			low = r;
		if (low == i)
			return;
		t = h[i];
		h[i] = h[low];
		h[low] = t;
		i = low;
	}
}

/* Bytes of [start, end) inside the footprint's spans; *f is the first
 * span that may overlap, kept for the next call, whose start is higher. */
static uint64_t in_footprint(const struct tierd_need_round *fp, size_t *f, uint64_t start,
			     uint64_t end)
{
	uint64_t bytes = 0;

	while (*f < fp->nr && fp->spans[*f].end <= start)
		(*f)++;
	for (size_t k = *f; k < fp->nr && fp->spans[k].start < end; k++) {
		bytes += tierd_min_u64(fp->spans[k].end, end) - tierd_max_u64(fp->spans[k].start, start);
	}
	return bytes;
}

/* Bytes covered by the union of the kept readings and inside the
 * footprint: their sorted spans merged through a heap, the lowest start
 * first, O(spans x log readings + footprint). */
static uint64_t union_bytes(const struct tierd_pool_need *n)
{
	struct cursor heap[TIERD_POOL_NEED_MAX_ROUNDS];
	uint64_t bytes = 0, end = 0;
	size_t nr = 0, f = 0;

	for (unsigned age = 0; age < n->nr; age++)
		if (kept(n, age)->nr)
			heap[nr++] = (struct cursor){ .round = kept(n, age) };
	for (size_t i = nr; i-- > 0;)
		sift_down(heap, nr, i);
	while (nr) {
		const struct tierd_need_span *low = &heap[0].round->spans[heap[0].at];

		if (low->end > end) {
			bytes += in_footprint(&n->footprint, &f, tierd_max_u64(low->start, end),
					      low->end);
			end = low->end;
		}
		if (++heap[0].at == heap[0].round->nr)
			heap[0] = heap[--nr];
		sift_down(heap, nr, 0);
	}
	return bytes;
}

/* Room for nr spans in r; its spans are kept. 0 or -ENOMEM. */
static int reserve(struct tierd_need_round *r, size_t nr)
{
	struct tierd_need_span *spans;

	if (nr <= r->cap)
		return 0;
	spans = realloc(r->spans, nr * sizeof(*spans));
	if (!spans)
		return -ENOMEM;
	r->spans = spans;
	r->cap = nr;
	return 0;
}

static void sort_spans(struct tierd_need_round *r)
{
	if (r->nr > 1)
		qsort(r->spans, r->nr, sizeof(*r->spans), cmp_start);
}

/* The window a reading stands for: its regions' shortest aggregation
 * window, so that every tier in it was watched at least that long. */
static uint64_t reading_window(const struct tierd_hotness *hot)
{
	uint64_t w = 0;

	for (size_t i = 0; hot && i < hot->nr_regions; i++)
		if (hot->regions[i].aggr_usec && (!w || hot->regions[i].aggr_usec < w))
			w = hot->regions[i].aggr_usec;
	return w ? w : TIERD_POOL_NEED_DEFAULT_WINDOW_USEC;
}

int tierd_pool_need_update(struct tierd_pool_need *n, const struct tierd_hotness *hot,
			   uint64_t *ret_bytes)
{
	struct tierd_need_round *round;
	uint64_t covered = 0;
	size_t accessed = 0;
	unsigned keep = 0;

	/* A reading seen already would push a distinct one out: the union
	 * would shrink toward what one reading sees. */
	if (hot && hot->regions_repeated) {
		*ret_bytes = union_bytes(n);
		return 0;
	}
	if (!n->rounds) {
		n->rounds = calloc(TIERD_POOL_NEED_MAX_ROUNDS, sizeof(*n->rounds));
		if (!n->rounds)
			return -ENOMEM;
	}
	round = &n->rounds[n->next];
	for (size_t i = 0; hot && i < hot->nr_regions; i++)
		accessed += hot->regions[i].nr_accesses > 0;
	if (reserve(round, accessed) < 0 || reserve(&n->footprint, hot ? hot->nr_regions : 0) < 0)
		return -ENOMEM;
	round->nr = n->footprint.nr = 0;
	for (size_t i = 0; hot && i < hot->nr_regions; i++) {
		struct tierd_need_span span = { .start = hot->regions[i].start,
						.end = hot->regions[i].end };

		n->footprint.spans[n->footprint.nr++] = span;
		if (hot->regions[i].nr_accesses)
			round->spans[round->nr++] = span;
	}
	/* Tiers' regions come one tier after another: not sorted across them. */
	sort_spans(round);
	sort_spans(&n->footprint);
	round->window_usec = reading_window(hot);
	n->next = (n->next + 1) % TIERD_POOL_NEED_MAX_ROUNDS;
	if (n->nr < TIERD_POOL_NEED_MAX_ROUNDS)
		n->nr++;
	/* The newest readings that cover the need's time; older ones go. */
	while (keep < n->nr && covered < TIERD_POOL_NEED_USEC)
		covered += kept(n, keep++)->window_usec;
	n->nr = keep;
	*ret_bytes = union_bytes(n);
	return 0;
}

void tierd_pool_need_free(struct tierd_pool_need *n)
{
	for (size_t r = 0; n->rounds && r < TIERD_POOL_NEED_MAX_ROUNDS; r++)
		free(n->rounds[r].spans);
	free(n->rounds);
	free(n->footprint.spans);
	memset(n, 0, sizeof(*n));
}
