/* Mole's hotness histogram and thresholds; see mole_hist.h. */
#include <string.h>

#include "mole_hist.h"
#include "units.h"

#define U64_BITS 64u

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* 0 below one unit, else floor(log2(units)) + 1. */
static unsigned log_bucket(uint64_t interval_usec)
{
	uint64_t units = interval_usec / TIERD_MOLE_LOG_UNIT_USEC;

	return units ? U64_BITS - (unsigned)__builtin_clzll(units) : 0;
}

static unsigned cap_bucket(uint64_t bucket)
{
	return bucket < TIERD_MOLE_LAST_BUCKET ? (unsigned)bucket : TIERD_MOLE_LAST_BUCKET;
}

unsigned tierd_mole_bucket(uint64_t interval_usec, uint64_t threshold_usec)
{
	uint64_t last_log, steps;

	if (!threshold_usec || interval_usec < threshold_usec)
		return cap_bucket(log_bucket(interval_usec));
	/* Mole §4.4: at and above T_h, linear with step T_h. */
	last_log = log_bucket(threshold_usec - 1);
	steps = interval_usec / threshold_usec;
	if (steps > TIERD_MOLE_LAST_BUCKET)
		return TIERD_MOLE_LAST_BUCKET;
	return cap_bucket(last_log + steps);
}

void tierd_mole_hist_reset(struct tierd_mole_hist *h, size_t nr_tiers)
{
	memset(h, 0, sizeof(*h));
	h->nr_tiers = nr_tiers < TIERD_MAX_TIERS ? nr_tiers : TIERD_MAX_TIERS;
}

void tierd_mole_hist_add(struct tierd_mole_hist *h, size_t tier, unsigned bucket,
			 uint64_t pages)
{
	if (tier >= h->nr_tiers || bucket >= TIERD_MOLE_NR_BUCKETS)
		return;
	h->pages[tier][bucket] = add_sat(h->pages[tier][bucket], pages);
}

uint64_t tierd_mole_hist_total(const struct tierd_mole_hist *h)
{
	uint64_t total = 0;

	for (size_t t = 0; t < h->nr_tiers; t++)
		for (unsigned b = 0; b < TIERD_MOLE_NR_BUCKETS; b++)
			total = add_sat(total, h->pages[t][b]);
	return total;
}

void tierd_mole_thresholds(const struct tierd_mole_hist *h, const uint64_t *capacity_pages,
			   uint32_t headroom_pmy, int *threshold)
{
	uint64_t sum[TIERD_MOLE_NR_BUCKETS] = { 0 };
	uint64_t capacity = 0, seen;
	uint32_t keep_pmy = headroom_pmy < TIERD_PMY_ONE ? TIERD_PMY_ONE - headroom_pmy : 0;
	unsigned b = 0;

	/* Thresholds partition the cgroup's whole hotness space, so the
	 * tiers' histograms are walked as one. */
	for (size_t t = 0; t < h->nr_tiers; t++)
		for (unsigned k = 0; k < TIERD_MOLE_NR_BUCKETS; k++)
			sum[k] = add_sat(sum[k], h->pages[t][k]);
	seen = sum[0];
	/* Targets only grow with t, so one walk serves all tiers. */
	for (size_t t = 0; t < h->nr_tiers; t++) {
		uint64_t target;

		capacity = add_sat(capacity, capacity_pages[t]);
		target = (uint64_t)((unsigned __int128)capacity * keep_pmy / TIERD_PMY_ONE);
		if (t + 1 == h->nr_tiers) {
			threshold[t] = TIERD_MOLE_LAST_BUCKET;
			continue;
		}
		if (!target) {
			threshold[t] = TIERD_MOLE_NO_THRESHOLD;
			continue;
		}
		while (seen < target && b < TIERD_MOLE_LAST_BUCKET)
			seen = add_sat(seen, sum[++b]);
		threshold[t] = (int)b;
	}
}
