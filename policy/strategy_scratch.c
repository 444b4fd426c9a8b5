/* Strategies' working memory; see strategy_scratch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hotness.h"
#include "strategy_scratch.h"

/* The smallest array worth allocating when a buffer first grows. */
#define RESERVE_MIN_ITEMS 64u
#define RADIX_BITS 8u
#define RADIX_BUCKETS (1u << RADIX_BITS)
#define RADIX_MASK (RADIX_BUCKETS - 1u)
#define KEY_BITS 64u
/* The page set stays at most half full, so probes stay short. */
#define PAGES_MIN_SLOTS 16u
#define PAGES_LOAD_FACTOR 2u
#define SLOT_EMPTY SIZE_MAX
#define HASH_MULT 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio: Fibonacci hashing */
#define HASH_SHIFT 32u

int tierd_reserve(void **buf, size_t *cap, size_t n, size_t item_size)
{
	size_t want = *cap ? *cap : RESERVE_MIN_ITEMS;
	void *p;

	if (n <= *cap)
		return 0;
	while (want < n) {
		if (want > SIZE_MAX / 2 / item_size)
			return -ENOMEM;
		want *= 2;
	}
	p = realloc(*buf, want * item_size);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

int tierd_reserve_all(const struct tierd_reserve_req *reqs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		int r = tierd_reserve(reqs[i].buf, reqs[i].cap, reqs[i].n, reqs[i].item_size);

		if (r < 0)
			return r;
	}
	return 0;
}

void tierd_radix_sort(const uint64_t *keys, size_t *idx, size_t *tmp, size_t n)
{
	size_t *src = idx, *dst = tmp;

	for (unsigned shift = 0; shift < KEY_BITS; shift += RADIX_BITS) {
		size_t count[RADIX_BUCKETS] = { 0 };
		size_t sum = 0;
		bool constant = false;

		for (size_t i = 0; i < n; i++)
			count[(keys[src[i]] >> shift) & RADIX_MASK]++;
		/* Every key has the same byte here: the pass would change nothing. */
		for (unsigned b = 0; b < RADIX_BUCKETS && !constant; b++)
			constant = count[b] == n;
		if (constant)
			continue;
		for (unsigned b = 0; b < RADIX_BUCKETS; b++) {
			size_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(keys[src[i]] >> shift) & RADIX_MASK]++] = src[i];
		src = dst;
		dst = src == idx ? tmp : idx;
	}
	if (src != idx)
		memcpy(idx, src, n * sizeof(*idx));
}

int tierd_page_set_reset(struct tierd_page_set *s, size_t n)
{
	size_t slots = PAGES_MIN_SLOTS;
	int r;

	while (slots < n * PAGES_LOAD_FACTOR)
		slots *= 2;
	r = tierd_reserve((void **)&s->slots, &s->cap_slots, slots, sizeof(*s->slots));
	if (r < 0)
		return r;
	r = tierd_reserve((void **)&s->pages, &s->cap_pages, n, sizeof(*s->pages));
	if (r < 0)
		return r;
	s->nr_slots = slots;
	for (size_t i = 0; i < slots; i++)
		s->slots[i] = SLOT_EMPTY;
	s->nr = 0;
	return 0;
}

/* The slot holding page, or the empty slot where it would go. */
static size_t page_slot(const struct tierd_page_set *s, uint64_t page)
{
	uint64_t h = page * HASH_MULT;
	size_t mask = s->nr_slots - 1, i;

	for (i = (size_t)(h ^ (h >> HASH_SHIFT)) & mask; s->slots[i] != SLOT_EMPTY;
	     i = (i + 1) & mask)
		if (s->pages[s->slots[i]] == page)
			break;
	return i;
}

bool tierd_page_set_add(struct tierd_page_set *s, uint64_t addr, size_t *ret_index)
{
	uint64_t page = addr / TIERD_PAGE_BYTES;
	size_t i = page_slot(s, page);
	bool is_new;

	is_new = s->slots[i] == SLOT_EMPTY;
	if (is_new) {
		s->slots[i] = s->nr;
		s->pages[s->nr++] = page;
	}
	if (ret_index)
		*ret_index = s->slots[i];
	return is_new;
}

bool tierd_page_set_find(const struct tierd_page_set *s, uint64_t addr, size_t *ret_index)
{
	size_t i;

	if (!s->nr_slots)
		return false;
	i = page_slot(s, addr / TIERD_PAGE_BYTES);
	if (s->slots[i] == SLOT_EMPTY)
		return false;
	*ret_index = s->slots[i];
	return true;
}

void tierd_page_set_free(struct tierd_page_set *s)
{
	free(s->slots);
	free(s->pages);
	memset(s, 0, sizeof(*s));
}
