/* LSD radix sort of indexes by 64-bit keys; see migflow_sort.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "migflow_sort.h"

#define RADIX_BITS 8u
#define RADIX_BUCKETS (1u << RADIX_BITS)
#define RADIX_MASK (RADIX_BUCKETS - 1u)
#define KEY_BITS 64u
/* The smallest array worth allocating when a buffer first grows. */
#define RESERVE_MIN_ITEMS 64u

void tierd_migflow_radix_sort(const uint64_t *keys, size_t *idx, size_t *tmp, size_t n)
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

int tierd_migflow_reserve(void **buf, size_t *cap, size_t n, size_t item_size)
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
