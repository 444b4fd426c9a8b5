/* Shared pieces of the baseline strategies (linux, autotiering); see
 * baseline_util.h. Every per-tick pass is O(regions + samples): region
 * orders are bucket and radix sorts, duplicate samples are found with a
 * hash set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "baseline_util.h"
#include "units.h"

/* Hottest-first order: access rate in whole percent, 0 .. 100. */
#define HOT_BUCKETS 101u
#define PERCENT_ONE 100u
/* Coldest-first order: DAMON age sorted a byte at a time (LSD radix). */
#define RADIX_BITS 8u
#define RADIX_BUCKETS (1u << RADIX_BITS)
#define RADIX_MASK (RADIX_BUCKETS - 1u)
#define AGE_BITS 32u
/* The page set stays at most half full, so probes stay short. */
#define PAGES_MIN_SLOTS 16u
#define PAGES_LOAD_FACTOR 2u
#define PAGES_EMPTY UINT64_MAX          /* no page address is all ones */
#define HASH_MULT 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio: Fibonacci hashing */
#define HASH_SHIFT_1 33u
#define HASH_SHIFT_2 29u
/* Longest JSON text quoted back in an error. */
#define GOT_MAX_CHARS 64

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t page_up(uint64_t bytes)
{
	return (bytes + TIERD_PAGE_BYTES - 1) / TIERD_PAGE_BYTES * TIERD_PAGE_BYTES;
}

void tierd_baseline_scratch_free(struct tierd_baseline_scratch *s)
{
	free(s->index);
	free(s->index_tmp);
	free(s->pages);
	memset(s, 0, sizeof(*s));
}

/* ---- params ---------------------------------------------------------- */

static const char *json_text(json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Reads one value; -EINVAL for a wrong type or text, -ERANGE out of range. */
static int read_param(const struct tierd_baseline_param *p, json_object *v, uint64_t *ret)
{
	const char *rest;
	uint32_t pmy;
	uint64_t x;
	int r;

	switch (p->kind) {
	case TIERD_BASELINE_DURATION:
		if (!json_object_is_type(v, json_type_string))
			return -EINVAL;
		r = tierd_parse_duration(json_object_get_string(v), &x);
		if (r < 0)
			return r;
		break;
	case TIERD_BASELINE_PERCENT:
		if (!json_object_is_type(v, json_type_string))
			return -EINVAL;
		r = tierd_parse_percent(json_object_get_string(v), &pmy, &rest);
		if (r < 0)
			return r;
		if (*rest)
			return -EINVAL;
		x = pmy;
		break;
	case TIERD_BASELINE_UINT:
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return -EINVAL;
		x = (uint64_t)json_object_get_int64(v);
		break;
	default:
		return -EINVAL;
	}
	if (x < p->min || x > p->max)
		return -ERANGE;
	*ret = x;
	return 0;
}

static const struct tierd_baseline_param *find_param(const struct tierd_baseline_param *params,
						     size_t nr_params, const char *key)
{
	for (size_t i = 0; i < nr_params; i++)
		if (strcmp(params[i].key, key) == 0)
			return &params[i];
	return NULL;
}

static void unknown_key(const struct tierd_baseline_param *params, size_t nr_params,
			const char *key, char *err, size_t err_size)
{
	int n = snprintf(err, err_size, "\"%s\": unknown key; expected one of: ", key);

	for (size_t i = 0; i < nr_params && n >= 0 && (size_t)n < err_size; i++)
		n += snprintf(err + n, err_size - (size_t)n, "%s%s", i ? ", " : "", params[i].key);
}

int tierd_baseline_parse_params(const char *params_json, const struct tierd_baseline_param *params,
				size_t nr_params, char *err, size_t err_size)
{
	json_object *root;
	int r = 0;

	if (!params_json)
		return 0;
	root = json_tokener_parse(params_json);
	if (!root || !json_object_is_type(root, json_type_object)) {
		snprintf(err, err_size, "expected a JSON object of params, got %.*s",
			 GOT_MAX_CHARS, params_json);
		r = -EINVAL;
		goto out;
	}
	json_object_object_foreach(root, key, val) {
		const struct tierd_baseline_param *p = find_param(params, nr_params, key);

		if (!p) {
			unknown_key(params, nr_params, key, err, err_size);
			r = -EINVAL;
			goto out;
		}
		if (read_param(p, val, p->value) < 0) {
			snprintf(err, err_size, "\"%s\": expected %s, got %.*s", p->key,
				 p->expected, GOT_MAX_CHARS, json_text(val));
			r = -EINVAL;
			goto out;
		}
	}
out:
	json_object_put(root);
	return r;
}

/* ---- ledger ---------------------------------------------------------- */

void tierd_baseline_ledger_init(struct tierd_baseline_ledger *l,
				const struct tierd_strategy_input *in,
				struct tierd_action_list *out)
{
	memset(l, 0, sizeof(*l));
	l->nr_tiers = min_u64(in->topo->nr_tiers, TIERD_MAX_TIERS);
	l->cgroup = in->cgroup;
	l->budget = in->budget_bytes;
	l->out = out;
	for (size_t t = 0; t < l->nr_tiers; t++) {
		const struct tierd_cgroup_standing *st = in->standing;
		uint64_t held = st ? st->tiers[t].anon_bytes + st->tiers[t].file_bytes : 0;

		l->room[t] = in->room_bytes[t];
		if (in->share_bytes[t] == TIERD_SHARE_NONE)
			l->take[t] = UINT64_MAX;
		else
			l->take[t] = in->share_bytes[t] > held ? in->share_bytes[t] - held : 0;
	}
}

uint64_t tierd_baseline_fits(const struct tierd_baseline_ledger *l, size_t tier)
{
	return tierd_baseline_page_down(min_u64(l->room[tier], l->take[tier]));
}

bool tierd_baseline_has_budget(const struct tierd_baseline_ledger *l)
{
	return l->budget >= TIERD_PAGE_BYTES;
}

uint64_t tierd_baseline_budget_clip(const struct tierd_baseline_ledger *l, uint64_t bytes)
{
	return tierd_baseline_page_down(min_u64(bytes, l->budget));
}

/* Proposes one move and books it as the engine will: room and share taken
 * on `to`, given back on `from`, budget spent. */
static int move(struct tierd_baseline_ledger *l, enum tierd_reason reason, size_t from, size_t to,
		uint64_t start, uint64_t bytes)
{
	const struct tierd_action a = {
		.kind = TIERD_ACTION_MIGRATE,
		.reason = reason,
		.cgroup = l->cgroup,
		.from_tier = from,
		.to_tier = to,
		.start = start,
		.end = start + bytes,
		.bytes = bytes,
	};
	int r;

	r = tierd_action_list_push(l->out, &a);
	if (r < 0)
		return r;
	l->room[to] -= bytes;
	l->room[from] = tierd_baseline_add_sat(l->room[from], bytes);
	if (l->take[to] != UINT64_MAX)
		l->take[to] -= bytes;
	if (l->take[from] != UINT64_MAX)
		l->take[from] = tierd_baseline_add_sat(l->take[from], bytes);
	l->budget -= bytes;
	return 0;
}

int tierd_baseline_promote(struct tierd_baseline_ledger *l, enum tierd_reason reason,
			   size_t from, uint64_t start, uint64_t bytes, bool fallback,
			   struct tierd_baseline_stats *st)
{
	uint64_t left;
	int r;

	if (from == 0 || from >= l->nr_tiers)
		return 0;
	bytes = tierd_baseline_budget_clip(l, bytes);
	if (!bytes)
		return 0;
	st->promote_attempts += bytes / TIERD_PAGE_BYTES;
	left = bytes;
	for (size_t to = 0; to < from && left; to++) {
		uint64_t n = min_u64(left, tierd_baseline_fits(l, to));

		if (to == 0)
			st->promote_failed += (left - n) / TIERD_PAGE_BYTES;
		else
			st->promote_fallbacks += n / TIERD_PAGE_BYTES;
		if (n) {
			r = move(l, reason, from, to, start + (bytes - left), n);
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

static int ensure_index(struct tierd_baseline_scratch *s, size_t n)
{
	size_t *a, *b;

	if (n <= s->cap_index)
		return 0;
	a = realloc(s->index, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	s->index = a;
	b = realloc(s->index_tmp, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	s->index_tmp = b;
	s->cap_index = n;
	return 0;
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
	size_t start[HOT_BUCKETS] = { 0 }, pos = 0;
	int r;

	r = ensure_index(s, hot->nr_regions);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_regions; i++)
		if (hot_candidate(&hot->regions[i], nr_tiers, min_accesses))
			start[access_percent(&hot->regions[i])]++;
	/* Highest rate first: bucket 100 starts the order. */
	for (size_t b = HOT_BUCKETS; b-- > 0;) {
		size_t count = start[b];

		start[b] = pos;
		pos += count;
	}
	for (size_t i = 0; i < hot->nr_regions; i++)
		if (hot_candidate(&hot->regions[i], nr_tiers, min_accesses))
			s->index[start[access_percent(&hot->regions[i])]++] = i;
	*ret_index = s->index;
	*ret_nr = pos;
	return 0;
}

/* A cold region's bucket: its tier, or one byte of its age, reversed so
 * that older comes first. */
static size_t cold_key(const struct tierd_region *r, unsigned shift, bool by_tier)
{
	return by_tier ? (size_t)r->tier : RADIX_MASK - ((r->age >> shift) & RADIX_MASK);
}

/* One stable counting-sort pass of s->index[0, n) by cold_key(). */
static void counting_pass(struct tierd_baseline_scratch *s, size_t n, size_t nr_buckets,
			  const struct tierd_hotness *hot, unsigned shift, bool by_tier,
			  size_t *first)
{
	size_t count[RADIX_BUCKETS + 1] = { 0 }, pos = 0;
	size_t *swap;

	for (size_t i = 0; i < n; i++)
		count[cold_key(&hot->regions[s->index[i]], shift, by_tier)]++;
	for (size_t b = 0; b < nr_buckets; b++) {
		size_t c = count[b];

		count[b] = pos;
		if (first)
			first[b] = pos;
		pos += c;
	}
	if (first)
		first[nr_buckets] = pos;
	for (size_t i = 0; i < n; i++) {
		size_t k = cold_key(&hot->regions[s->index[i]], shift, by_tier);

		s->index_tmp[count[k]++] = s->index[i];
	}
	swap = s->index;
	s->index = s->index_tmp;
	s->index_tmp = swap;
}

/* Cold regions (nr_accesses 0) of every tier but the lowest, grouped by
 * tier, oldest first within a tier: LSD radix sort on age (descending),
 * then a stable pass on tier. Tier t's are index[first[t] .. first[t+1]). */
static int cold_order(struct tierd_baseline_scratch *s, const struct tierd_hotness *hot,
		      size_t nr_tiers, size_t *first)
{
	size_t n = 0;
	int r;

	r = ensure_index(s, hot->nr_regions);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[i];

		if (placed(reg, nr_tiers) && (size_t)reg->tier + 1 < nr_tiers && !reg->nr_accesses)
			s->index[n++] = i;
	}
	for (unsigned shift = 0; shift < AGE_BITS; shift += RADIX_BITS)
		counting_pass(s, n, RADIX_BUCKETS, hot, shift, false, NULL);
	counting_pass(s, n, nr_tiers, hot, 0, true, first);
	return 0;
}

/* ---- page set -------------------------------------------------------- */

int tierd_baseline_pages_reset(struct tierd_baseline_scratch *s, size_t n)
{
	size_t slots = PAGES_MIN_SLOTS;

	while (slots < n * PAGES_LOAD_FACTOR)
		slots *= 2;
	if (slots > s->cap_pages) {
		uint64_t *p = realloc(s->pages, slots * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->pages = p;
		s->cap_pages = slots;
	}
	s->nr_slots = slots;
	for (size_t i = 0; i < slots; i++)
		s->pages[i] = PAGES_EMPTY;
	return 0;
}

bool tierd_baseline_pages_add(struct tierd_baseline_scratch *s, uint64_t addr)
{
	uint64_t page = addr / TIERD_PAGE_BYTES, h = page;
	size_t mask = s->nr_slots - 1, i;

	h ^= h >> HASH_SHIFT_1;
	h *= HASH_MULT;
	h ^= h >> HASH_SHIFT_2;
	for (i = (size_t)h & mask; s->pages[i] != PAGES_EMPTY; i = (i + 1) & mask)
		if (s->pages[i] == page)
			return false;
	s->pages[i] = page;
	return true;
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
static int demote_range(struct tierd_baseline_ledger *l, enum tierd_reason reason, size_t from,
			uint64_t start, uint64_t bytes, uint64_t *ret_moved)
{
	uint64_t moved = 0;
	int r;

	for (size_t to = from + 1; to < l->nr_tiers && moved < bytes; to++) {
		uint64_t n = min_u64(bytes - moved, tierd_baseline_fits(l, to));

		if (!n)
			continue;
		r = move(l, reason, from, to, start + moved, n);
		if (r < 0)
			return r;
		moved += n;
	}
	*ret_moved = moved;
	return 0;
}

int tierd_baseline_demote(struct tierd_baseline_ledger *l, struct tierd_baseline_scratch *s,
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

			if (!tierd_baseline_has_budget(l))
				return 0;
			bytes = min_u64(reg->end - reg->start, page_up(wm - l->room[t]));
			bytes = tierd_baseline_budget_clip(l, bytes);
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
