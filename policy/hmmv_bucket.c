/* Counting sort of page-degrees; see hmmv_bucket.h. */
#include "hmmv_bucket.h"

static size_t bucket_of(uint64_t degree)
{
	return degree < TIERD_HMMV_NR_BUCKETS ? (size_t)degree : TIERD_HMMV_NR_BUCKETS - 1;
}

void tierd_hmmv_bucket_sort(const uint64_t *degree, size_t n, size_t *order)
{
	size_t first[TIERD_HMMV_NR_BUCKETS] = { 0 };
	size_t pos = 0;

	for (size_t i = 0; i < n; i++)
		first[bucket_of(degree[i])]++;
	/* Highest bucket first: each bucket starts where the hotter ones end. */
	for (size_t b = TIERD_HMMV_NR_BUCKETS; b-- > 0;) {
		size_t count = first[b];

		first[b] = pos;
		pos += count;
	}
	for (size_t i = 0; i < n; i++)
		order[first[bucket_of(degree[i])]++] = i;
}
