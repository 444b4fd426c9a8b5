/* The causal oracle's placement and mover; see causal.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "causal.h"

#define PMY_ONE 10000u
/* The past a page's rank counts: each window's counts weigh half the
 * next's. The last window alone ranks by its noise (a GUPS page hit 30
 * times against one hit 40 times), and exchanges on such noise spend the
 * budget for nothing. */
#define CAUSAL_DECAY_SHIFT 1u
/* An exchange only for a page at least this many times hotter than the one
 * it displaces: between two pages of one hot set, the ranks are noise. */
#define CAUSAL_EXCHANGE_GAIN 2u

struct tiersim_causal {
	size_t nr_tiers, nr_cgroups;
	struct tiersim_tier_spec tiers[TIERSIM_MAX_TIERS];
	uint64_t used[TIERSIM_MAX_TIERS];
	uint64_t offset[TIERSIM_MAX_CGROUPS + 1];    /* flat page index per cgroup */
	uint64_t nr_pages;
	int8_t *tier;                                /* per page, -1 unallocated */
	uint32_t *reads, *writes;                    /* this window's */
	uint64_t dr, dw;                             /* latency gaps, the ranking's weights */
	/* Domains: one per cgroup in island mode, else one for all. */
	size_t nr_domains;
	uint64_t budget_pages;                       /* per domain per tick */
	uint64_t max0_pages;                         /* tier-0 max per domain; UINT64_MAX none */
	uint64_t used0[TIERSIM_MAX_CGROUPS];         /* per domain, pages on tier 0 */
	uint64_t fresh[TIERSIM_MAX_CGROUPS];         /* per domain, first touches this window */
	uint64_t *hot, *cold, *keys;                 /* scratch: page lists, keys per page */
};

static size_t domain_of(const struct tiersim_causal *c, uint64_t page)
{
	size_t d = 0;

	if (c->nr_domains == 1)
		return 0;
	while (d + 1 < c->nr_cgroups && c->offset[d + 1] <= page)
		d++;
	return d;
}

static int alloc_page(struct tiersim_causal *c, uint64_t p)
{
	for (size_t t = 0; t < c->nr_tiers; t++) {
		if (c->used[t] < c->tiers[t].capacity_pages) {
			c->used[t]++;
			c->tier[p] = (int8_t)t;
			if (t == 0)
				c->used0[domain_of(c, p)]++;
			return (int)t;
		}
	}
	return -ENOMEM;
}

void tiersim_causal_free(struct tiersim_causal *c)
{
	if (!c)
		return;
	free(c->tier);
	free(c->reads);
	free(c->writes);
	free(c->hot);
	free(c->cold);
	free(c->keys);
	free(c);
}

int tiersim_causal_new(const struct tiersim_run_config *cfg, const struct tiersim_workload *w,
		       const struct tiersim_tier_spec *tiers, struct tiersim_causal **ret)
{
	struct tiersim_causal *c = calloc(1, sizeof(*c));
	uint64_t max_prefault = 0, footprint = tiersim_workload_footprint(w), budget;

	if (!c)
		return -ENOMEM;
	c->nr_tiers = cfg->nr_tiers;
	c->nr_cgroups = w->nr_cgroups;
	memcpy(c->tiers, tiers, cfg->nr_tiers * sizeof(*tiers));
	for (size_t g = 0; g < w->nr_cgroups; g++)
		c->offset[g + 1] = c->offset[g] + w->pages[g];
	c->nr_pages = c->offset[w->nr_cgroups];
	c->tier = malloc((c->nr_pages ? c->nr_pages : 1) * sizeof(*c->tier));
	c->reads = calloc(c->nr_pages + 1, sizeof(*c->reads));
	c->writes = calloc(c->nr_pages + 1, sizeof(*c->writes));
	c->hot = calloc(c->nr_pages + 1, sizeof(*c->hot));
	c->cold = calloc(c->nr_pages + 1, sizeof(*c->cold));
	c->keys = calloc(c->nr_pages + 1, sizeof(*c->keys));
	if (!c->tier || !c->reads || !c->writes || !c->hot || !c->cold || !c->keys) {
		tiersim_causal_free(c);
		return -ENOMEM;
	}
	memset(c->tier, -1, c->nr_pages * sizeof(*c->tier));
	c->dr = tiers[cfg->nr_tiers - 1].read_ns > tiers[0].read_ns ?
			tiers[cfg->nr_tiers - 1].read_ns - tiers[0].read_ns : 0;
	c->dw = tiers[cfg->nr_tiers - 1].write_ns > tiers[0].write_ns ?
			tiers[cfg->nr_tiers - 1].write_ns - tiers[0].write_ns : 0;
	if (!c->dr && !c->dw)
		c->dr = c->dw = 1;
	/* The runs' budgets and island maxes (run.c sim_setup). */
	budget = footprint * cfg->budget_pmy / PMY_ONE / w->nr_cgroups;
	if (w->nr_cgroups > 1 && cfg->sharing == TIERD_SHARING_ISLAND) {
		c->nr_domains = w->nr_cgroups;
		c->budget_pages = budget;
		c->max0_pages = tiers[0].capacity_pages / w->nr_cgroups;
	} else {
		c->nr_domains = 1;
		c->budget_pages = budget * w->nr_cgroups;
		c->max0_pages = UINT64_MAX;
	}
	/* The runs' initialisation: prefixes in address order, interleaved. */
	for (size_t g = 0; g < w->nr_cgroups; g++)
		if (w->prefault_pages[g] > max_prefault)
			max_prefault = w->prefault_pages[g];
	for (uint64_t p = 0; p < max_prefault; p++)
		for (size_t g = 0; g < w->nr_cgroups; g++)
			if (p < w->prefault_pages[g])
				(void)alloc_page(c, c->offset[g] + p);
	*ret = c;
	return 0;
}

uint64_t tiersim_causal_access(struct tiersim_causal *c, const struct tiersim_access *a)
{
	uint64_t p = c->offset[a->cgroup] + a->page;
	int t = c->tier[p];

	if (t < 0) {
		t = alloc_page(c, p);
		if (t < 0)
			return 0;
		c->fresh[domain_of(c, p)]++;
	}
	if (a->write)
		c->writes[p]++;
	else
		c->reads[p]++;
	return a->write ? c->tiers[t].write_ns : c->tiers[t].read_ns;
}

/* Pages by key, hottest first, then by index: a total order. */
static int hotter_first(const void *x, const void *y, void *keys_)
{
	const uint64_t *keys = keys_;
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	if (keys[a] != keys[b])
		return keys[a] > keys[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int colder_first(const void *x, const void *y, void *keys)
{
	return hotter_first(y, x, keys);
}

static void move_page(struct tiersim_causal *c, size_t d, uint64_t p, size_t to)
{
	size_t from = (size_t)c->tier[p];

	c->used[from]--;
	c->used[to]++;
	if (from == 0)
		c->used0[d]--;
	if (to == 0)
		c->used0[d]++;
	c->tier[p] = (int8_t)to;
}

/* The fastest tier below t with a free page, or nr_tiers. */
static size_t room_below(const struct tiersim_causal *c, size_t t)
{
	for (size_t to = t + 1; to < c->nr_tiers; to++)
		if (c->used[to] < c->tiers[to].capacity_pages)
			return to;
	return c->nr_tiers;
}

/* Moves domain d's pages, tier by tier from the top, within its budget.
 * Tier 0 keeps free room for as many first touches as the last window had
 * (new pages are often the hottest: alloc-burst), demoting its coldest
 * pages for it. */
static void move_domain(struct tiersim_causal *c, size_t d)
{
	uint64_t first = c->nr_domains == 1 ? 0 : c->offset[d];
	uint64_t last = c->nr_domains == 1 ? c->nr_pages : c->offset[d + 1];
	uint64_t budget = c->budget_pages;

	for (size_t t = 0; t + 1 < c->nr_tiers && budget; t++) {
		size_t nh = 0, nc = 0, i = 0, j = 0;
		uint64_t room = c->tiers[t].capacity_pages - c->used[t];
		uint64_t reserve = t == 0 ? c->fresh[d] : 0;

		if (t == 0 && c->max0_pages != UINT64_MAX)
			room = c->used0[d] >= c->max0_pages ? 0 :
			       room < c->max0_pages - c->used0[d] ? room : c->max0_pages - c->used0[d];
		room = room > reserve ? room - reserve : 0;
		for (uint64_t p = first; p < last; p++) {
			if (c->tier[p] < 0)
				continue;
			if ((size_t)c->tier[p] > t && c->keys[p])
				c->hot[nh++] = p;
			else if ((size_t)c->tier[p] == t)
				c->cold[nc++] = p;
		}
		qsort_r(c->hot, nh, sizeof(*c->hot), hotter_first, c->keys);
		qsort_r(c->cold, nc, sizeof(*c->cold), colder_first, c->keys);
		while (i < nh && budget) {
			uint64_t h = c->hot[i];
			size_t below = (size_t)c->tier[h];

			if (room) {
				move_page(c, d, h, t);
				room--;
				budget--;
				i++;
				continue;
			}
			if (budget < 2 || j >= nc ||
			    c->keys[c->cold[j]] >= c->keys[h] / CAUSAL_EXCHANGE_GAIN)
				break;
			move_page(c, d, c->cold[j], below);
			move_page(c, d, h, t);
			budget -= 2;
			i++;
			j++;
		}
		/* The reserve: tier 0's coldest pages make way. */
		while (t == 0 && j < nc && budget &&
		       c->tiers[0].capacity_pages - c->used[0] < reserve) {
			size_t to = room_below(c, 0);

			if (to == c->nr_tiers)
				break;
			move_page(c, d, c->cold[j++], to);
			budget--;
		}
	}
	c->fresh[d] = 0;
}

void tiersim_causal_tick(struct tiersim_causal *c)
{
	for (uint64_t p = 0; p < c->nr_pages; p++) {
		c->keys[p] = (c->keys[p] >> CAUSAL_DECAY_SHIFT) + c->reads[p] * c->dr +
			     c->writes[p] * c->dw;
		c->reads[p] = c->writes[p] = 0;
	}
	for (size_t d = 0; d < c->nr_domains; d++)
		move_domain(c, d);
}
