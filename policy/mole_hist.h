/* Mole's hotness histogram (Mole §4.4 and §5):
 * time intervals (reaccess intervals and unaccessed durations, shorter is
 * hotter) quantised into 32 buckets by a segmented scale, pages counted per
 * bucket per tier, and per-tier thresholds found by walking the buckets from
 * hot to cold until the tiers' capacities are filled. Pure: no I/O. */
#ifndef TIERD_MOLE_HIST_H
#define TIERD_MOLE_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* Mole §4.4: the recorded interval is 5 bits, 0..31; §5: "a 32-element
 * counter array per memory tier". */
#define TIERD_MOLE_NR_BUCKETS 32u
#define TIERD_MOLE_LAST_BUCKET (TIERD_MOLE_NR_BUCKETS - 1u)
/* Below the time threshold the scale is log2 of whole milliseconds: the
 * sub-second intervals §4.4 says hot and warm pages have are told apart at
 * 1, 2, 4, ... ms. */
#define TIERD_MOLE_LOG_UNIT_USEC 1000ull
/* A tier whose capacity share is 0 pages: no interval belongs there. */
#define TIERD_MOLE_NO_THRESHOLD (-1)

/* The bucket of an interval against the time threshold T_h (Mole §4.4,
 * Figure 6):
 *   interval < 1 ms                     -> 0
 *   1 ms <= interval < T_h              -> k with 2^(k-1) ms <= interval < 2^k ms
 *                                          (so up to L, the bucket of T_h - 1 usec)
 *   T_h * j <= interval < T_h * (j + 1) -> L + j, for j >= 1
 * capped at 31, which is open-ended. With T_h = 1024 ms: L = 10
 * ([512, 1024) ms), [1024, 2048) ms is 11, and 31 is 21 * T_h and above.
 * threshold_usec 0 means a pure log2 scale. */
unsigned tierd_mole_bucket(uint64_t interval_usec, uint64_t threshold_usec);

/* Pages per bucket per tier; tier 0 fastest. */
struct tierd_mole_hist {
	size_t nr_tiers;
	uint64_t pages[TIERD_MAX_TIERS][TIERD_MOLE_NR_BUCKETS];
};

void tierd_mole_hist_reset(struct tierd_mole_hist *h, size_t nr_tiers);
/* Adds pages (saturating) to a bucket of a tier; out-of-range arguments are
 * ignored. */
void tierd_mole_hist_add(struct tierd_mole_hist *h, size_t tier, unsigned bucket,
			 uint64_t pages);
/* Pages over all tiers and buckets (saturating). */
uint64_t tierd_mole_hist_total(const struct tierd_mole_hist *h);

/* Per-tier thresholds (Mole §4.4): walking the buckets of all tiers summed
 * from hot (0) to cold, tier t's threshold is the first bucket at which the
 * pages counted reach the capacity of tiers 0..t less headroom_pmy of it
 * (the "slightly reduced" threshold that reserves free space). A page of
 * bucket b belongs on the highest tier t with b <= threshold[t]. A tier
 * whose cumulative target is 0 pages gets TIERD_MOLE_NO_THRESHOLD; when the
 * histogram never reaches the target, everything fits: the last bucket.
 * The lowest tier always gets the last bucket. capacity_pages[] and
 * threshold[] have h->nr_tiers entries. */
void tierd_mole_thresholds(const struct tierd_mole_hist *h, const uint64_t *capacity_pages,
			   uint32_t headroom_pmy, int *threshold);

#endif
