/* A pool member's need over its last rounds of readings (pool_need.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pool_need.h"

static int cmp_start(const void *a, const void *b)
{
	const struct tierd_need_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Bytes covered by the union of every round's spans: a merge of the
 * sorted rounds, the lowest start first. */
static uint64_t union_bytes(const struct tierd_pool_need *n)
{
	size_t at[TIERD_POOL_NEED_ROUNDS] = { 0 };
	uint64_t bytes = 0, end = 0;

	for (;;) {
		const struct tierd_need_span *low = NULL;
		size_t which = 0;

		for (size_t r = 0; r < TIERD_POOL_NEED_ROUNDS; r++) {
			const struct tierd_need_round *round = &n->rounds[r];

			if (at[r] < round->nr && (!low || round->spans[at[r]].start < low->start)) {
				low = &round->spans[at[r]];
				which = r;
			}
		}
		if (!low)
			return bytes;
		at[which]++;
		if (low->end > end) {
			bytes += low->end - (low->start > end ? low->start : end);
			end = low->end;
		}
	}
}

int tierd_pool_need_update(struct tierd_pool_need *n, const struct tierd_hotness *hot,
			   uint64_t *ret_bytes)
{
	struct tierd_need_round *round = &n->rounds[n->next];
	size_t accessed = 0;

	/* A reading seen already would push a distinct one out: the union
	 * would shrink toward what one reading sees. */
	if (hot && hot->regions_repeated) {
		*ret_bytes = union_bytes(n);
		return 0;
	}
	for (size_t i = 0; hot && i < hot->nr_regions; i++)
		accessed += hot->regions[i].nr_accesses > 0;
	if (accessed > round->cap) {
		struct tierd_need_span *spans = realloc(round->spans, accessed * sizeof(*spans));

		if (!spans)
			return -ENOMEM;
		round->spans = spans;
		round->cap = accessed;
	}
	round->nr = 0;
	for (size_t i = 0; hot && i < hot->nr_regions; i++)
		if (hot->regions[i].nr_accesses)
			round->spans[round->nr++] = (struct tierd_need_span){
				.start = hot->regions[i].start, .end = hot->regions[i].end };
	/* Tiers' regions come one tier after another: not sorted across them. */
	if (round->nr > 1)
		qsort(round->spans, round->nr, sizeof(*round->spans), cmp_start);
	n->next = (n->next + 1) % TIERD_POOL_NEED_ROUNDS;
	*ret_bytes = union_bytes(n);
	return 0;
}

void tierd_pool_need_free(struct tierd_pool_need *n)
{
	for (size_t r = 0; r < TIERD_POOL_NEED_ROUNDS; r++)
		free(n->rounds[r].spans);
	memset(n, 0, sizeof(*n));
}
