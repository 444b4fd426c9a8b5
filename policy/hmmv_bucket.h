/* HMM-V's page-degree sort (HMM-V §3.3): the
 * page-degree is an integer of finite range, so one counting pass over the
 * pages orders them, O(n + buckets), no comparisons. Pure. */
#ifndef TIERD_HMMV_BUCKET_H
#define TIERD_HMMV_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/* Buckets, one per degree 0 .. TIERD_HMMV_NR_BUCKETS - 1; higher degrees
 * share the last. Sized for the defaults: DAMON samples a region at most 20
 * times a window (5 ms in 100 ms), write weight 3, 8 windows a round: 480. */
#define TIERD_HMMV_NR_BUCKETS 1024u

/* Writes into order[0 .. n) the indexes 0 .. n-1 by degree[] descending.
 * Degrees past the last bucket are clamped into it; within a bucket the
 * indexes keep their order (stable). */
void tierd_hmmv_bucket_sort(const uint64_t *degree, size_t n, size_t *order);

#endif
