/* Shared pieces of the baseline strategies (linux, autotiering); see
 * baseline_util.h. Every per-tick pass is O(regions + samples): region
 * orders are radix sorts, duplicate samples are found with a hash set. */
#include <stdlib.h>
#include <string.h>

#include "baseline_util.h"
#include "units.h"
#include "util.h"

/* Hottest-first order: access rate in whole percent, 0 .. 100. */
#define PERCENT_ONE 100u
/* Coldest-first order key: tier above the age, which fills 32 bits. */
#define AGE_BITS 32u

static uint64_t page_up(uint64_t bytes)
{
	return (bytes + TIERD_PAGE_BYTES - 1) / TIERD_PAGE_BYTES * TIERD_PAGE_BYTES;
}

void tierd_baseline_scratch_free(struct tierd_baseline_scratch *s)
{
	free(s->index);
	free(s->index_tmp);
	free(s->keys);
	tierd_page_set_free(&s->pages);
	memset(s, 0, sizeof(*s));
}

/* ---- promotion ------------------------------------------------------- */

int tierd_baseline_promote(struct tierd_ledger *l, enum tierd_reason reason,
			   size_t from, uint64_t start, uint64_t bytes, bool fallback,
			   struct tierd_baseline_stats *st)
{
	uint64_t left;
	int r;

	if (from == 0 || from >= l->nr_tiers)
		return 0;
	bytes = tierd_ledger_budget_clip(l, bytes);
	if (!bytes)
		return 0;
	st->promote_attempts += bytes / TIERD_PAGE_BYTES;
	left = bytes;
	for (size_t to = 0; to < from && left; to++) {
		uint64_t n = tierd_min_u64(left, tierd_ledger_fits(l, to));

		if (to == 0)
			st->promote_failed += (left - n) / TIERD_PAGE_BYTES;
		else
			st->promote_fallbacks += n / TIERD_PAGE_BYTES;
		if (n) {
			r = tierd_ledger_move(l, reason, from, to, start + (bytes - left), n);
			if (r < 0)
				return r;
			left -= n;
		}
		if (!fallback)
			break;
	}
	return 0;
}

/* ---- region orders --------------------------------------------------- */

static int reserve_index(struct tierd_baseline_scratch *s, size_t n)
{
	const struct tierd_reserve_req reqs[] = {
		{ (void **)&s->index, &s->cap_index, n, sizeof(*s->index) },
		{ (void **)&s->index_tmp, &s->cap_index_tmp, n, sizeof(*s->index_tmp) },
		{ (void **)&s->keys, &s->cap_keys, n, sizeof(*s->keys) },
	};

	return tierd_reserve_all(reqs, TIERD_ARRAY_SIZE(reqs));
}

static bool placed(const struct tierd_region *r, size_t nr_tiers)
{
	return r->tier >= 0 && (size_t)r->tier < nr_tiers && r->end > r->start;
}

static unsigned access_percent(const struct tierd_region *r)
{
	if (!r->max_accesses || r->nr_accesses >= r->max_accesses)
		return PERCENT_ONE;
	return (unsigned)((uint64_t)r->nr_accesses * PERCENT_ONE / r->max_accesses);
}

static bool hot_candidate(const struct tierd_region *r, size_t nr_tiers, uint32_t min_accesses)
{
	return placed(r, nr_tiers) && r->tier > 0 && r->nr_accesses > 0 &&
	       r->nr_accesses >= min_accesses;
}

int tierd_baseline_hot_order(struct tierd_baseline_scratch *s, const struct tierd_hotness *hot,
			     size_t nr_tiers, uint32_t min_accesses, const size_t **ret_index,
			     size_t *ret_nr)
{
	size_t n = 0;
	int r;

	r = reserve_index(s, hot->nr_regions);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];

		if (!hot_candidate(reg, nr_tiers, min_accesses))
			continue;
		/* Highest rate first. */
		s->keys[i] = PERCENT_ONE - access_percent(reg);
		s->index[n++] = i;
	}
	tierd_radix_sort(s->keys, s->index, s->index_tmp, n);
	*ret_index = s->index;
	*ret_nr = n;
	return 0;
}

/* Cold regions (nr_accesses 0) of every tier but the lowest, grouped by
 * tier, oldest first within a tier. Tier t's are index[first[t] ..
 * first[t+1]). */
static int cold_order(struct tierd_baseline_scratch *s, const struct tierd_hotness *hot,
		      size_t nr_tiers, size_t *first)
{
	size_t n = 0, pos = 0;
	int r;

	r = reserve_index(s, hot->nr_regions);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];

		if (!placed(reg, nr_tiers) || (size_t)reg->tier + 1 >= nr_tiers || reg->nr_accesses)
			continue;
		s->keys[i] = (uint64_t)reg->tier << AGE_BITS | (UINT32_MAX - reg->age);
		s->index[n++] = i;
	}
	tierd_radix_sort(s->keys, s->index, s->index_tmp, n);
	for (size_t t = 0; t <= nr_tiers; t++) {
		while (pos < n && (size_t)hot->regions[s->index[pos]].tier < t)
			pos++;
		first[t] = pos;
	}
	return 0;
}

/* ---- demotion -------------------------------------------------------- */

uint64_t tierd_baseline_watermark_bytes(const struct tierd_topology *topo, size_t tier,
					uint32_t watermark_pmy)
{
	return (uint64_t)((unsigned __int128)topo->tiers[tier].total_bytes * watermark_pmy /
			  TIERD_PMY_ONE);
}

/* Moves [start, start + bytes) of tier `from` to the highest lower tier that
 * can take it, the rest further down; *ret_moved says how much found room. */
static int demote_range(struct tierd_ledger *l, enum tierd_reason reason, size_t from,
			uint64_t start, uint64_t bytes, uint64_t *ret_moved)
{
	uint64_t moved = 0;
	int r;

	for (size_t to = from + 1; to < l->nr_tiers && moved < bytes; to++) {
		uint64_t n = tierd_min_u64(bytes - moved, tierd_ledger_fits(l, to));

		if (!n)
			continue;
		r = tierd_ledger_move(l, reason, from, to, start + moved, n);
		if (r < 0)
			return r;
		moved += n;
	}
	*ret_moved = moved;
	return 0;
}

int tierd_baseline_demote(struct tierd_ledger *l, struct tierd_baseline_scratch *s,
			  const struct tierd_strategy_input *in, uint32_t watermark_pmy,
			  enum tierd_reason reason, struct tierd_baseline_stats *st)
{
	const struct tierd_hotness *hot = in->hot;
	size_t first[TIERD_MAX_TIERS + 1];
	int r;

	if (l->nr_tiers < 2)
		return 0;
	r = cold_order(s, hot, l->nr_tiers, first);
	if (r < 0)
		return r;
	/* Top down, so what a tier receives counts against its own watermark. */
	for (size_t t = 0; t + 1 < l->nr_tiers; t++) {
		uint64_t wm = tierd_baseline_watermark_bytes(in->topo, t, watermark_pmy);

		for (size_t i = first[t]; i < first[t + 1] && l->room[t] < wm; i++) {
			const struct tierd_region *reg = &hot->regions[s->index[i]];
			uint64_t bytes, moved;

			if (!tierd_ledger_has_budget(l))
				return 0;
			bytes = tierd_min_u64(reg->end - reg->start, page_up(wm - l->room[t]));
			bytes = tierd_ledger_budget_clip(l, bytes);
			if (!bytes)
				continue;
			r = demote_range(l, reason, t, reg->start, bytes, &moved);
			if (r < 0)
				return r;
			st->demote_attempts += bytes / TIERD_PAGE_BYTES;
			st->demote_failed += (bytes - moved) / TIERD_PAGE_BYTES;
			/* Nothing below has room left for the rest of this tier. */
			if (moved < bytes)
				break;
		}
	}
	return 0;
}
