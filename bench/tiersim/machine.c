/* The simulated machine: page map, tier occupancy, moves and LRU demotion. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

int tiersim_machine_new(const struct tiersim_tier_spec *tiers, size_t nr_tiers,
			const uint64_t *pages, size_t nr_spaces, struct tiersim_machine **ret)
{
	struct tiersim_machine *m;

	if (!nr_tiers || nr_tiers > TIERSIM_MAX_TIERS || !nr_spaces)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->nr_tiers = nr_tiers;
	memcpy(m->tiers, tiers, nr_tiers * sizeof(*tiers));
	m->spaces = calloc(nr_spaces, sizeof(*m->spaces));
	if (!m->spaces) {
		free(m);
		return -ENOMEM;
	}
	m->nr_spaces = nr_spaces;
	for (size_t t = 0; t < nr_tiers; t++) {
		uint64_t n = tiers[t].capacity_pages;

		if (n > UINT32_MAX) {
			tiersim_machine_free(m);
			return -EINVAL;
		}
		m->frames[t] = calloc(n ? n : 1, sizeof(*m->frames[t]));
		m->free_frames[t] = calloc(n ? n : 1, sizeof(*m->free_frames[t]));
		if (!m->frames[t] || !m->free_frames[t]) {
			tiersim_machine_free(m);
			return -ENOMEM;
		}
		for (uint64_t f = 0; f < n; f++) {
			m->frames[t][f].space = -1;
			m->free_frames[t][f] = (uint32_t)(n - 1 - f);
		}
	}
	for (size_t c = 0; c < nr_spaces; c++) {
		struct tiersim_space *s = &m->spaces[c];

		s->nr_pages = pages[c];
		s->base_addr = TIERSIM_SPACE_BASE_ADDR + c * TIERSIM_SPACE_STRIDE_ADDR;
		s->pages = calloc(pages[c] ? pages[c] : 1, sizeof(*s->pages));
		if (!s->pages) {
			tiersim_machine_free(m);
			return -ENOMEM;
		}
		for (uint64_t p = 0; p < pages[c]; p++) {
			s->pages[p].tier = -1;
			s->pages[p].lru_checked = TIERSIM_LRU_UNCHECKED;
		}
		for (size_t t = 0; t < nr_tiers; t++)
			s->lru[t] = (struct tiersim_lruvec){ .max_seq = TIERSIM_LRU_INIT_MAX_SEQ };
	}
	*ret = m;
	return 0;
}

void tiersim_machine_free(struct tiersim_machine *m)
{
	if (!m)
		return;
	for (size_t c = 0; c < m->nr_spaces; c++)
		free(m->spaces[c].pages);
	for (size_t t = 0; t < TIERSIM_MAX_TIERS; t++) {
		free(m->frames[t]);
		free(m->free_frames[t]);
	}
	free(m->spaces);
	free(m);
}

/* lru_gen_del_folio() marks a folio active for its next lruvec when it
 * leaves from one of the two youngest generations, unless reclaim takes it. */
static bool lru_leaves_active(const struct tiersim_space *s, const struct tiersim_page *pg,
			      bool reclaiming)
{
	return !reclaiming && pg->lru_seq + 1 >= s->lru[pg->tier].max_seq;
}

static int move_page(struct tiersim_machine *m, size_t c, uint64_t page, size_t to,
		     bool reclaiming)
{
	struct tiersim_space *s;
	struct tiersim_page *pg;
	size_t from;

	if (c >= m->nr_spaces || to >= m->nr_tiers)
		return -ENOENT;
	s = &m->spaces[c];
	if (page >= s->nr_pages)
		return -ENOENT;
	pg = &s->pages[page];
	if (pg->tier < 0)
		return -ENOENT;
	from = (size_t)pg->tier;
	if (from == to)
		return -EALREADY;
	if (m->used_pages[to] >= m->tiers[to].capacity_pages)
		return -ENOSPC;
	tiersim_frame_release(m, from, pg);
	tiersim_frame_take(m, to, c, page, pg);
	m->used_pages[from]--;
	m->used_pages[to]++;
	s->tier_pages[from]--;
	s->tier_pages[to]++;
	tiersim_lru_add(s, pg, to, lru_leaves_active(s, pg, reclaiming));
	pg->tier = (int8_t)to;
	/* The new PTE is built from the VMA's protection: a hint-fault
	 * PROT_NONE does not survive migration; the accessed bit does
	 * (remove_migration_pte()). */
	pg->flags &= (uint8_t)~TIERSIM_PAGE_PROT;
	return 0;
}

int tiersim_machine_move(struct tiersim_machine *m, size_t c, uint64_t page, size_t to)
{
	return move_page(m, c, page, to, false);
}

struct lru_entry {
	uint64_t order;
	uint64_t page;
};

static int lru_cmp(const void *a, const void *b)
{
	const struct lru_entry *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Accessed since the LRU last looked, as seen at sub-tick `now`. */
static bool lru_young(const struct tiersim_page *pg, int now)
{
	unsigned after = (unsigned)(pg->lru_checked + 1);
	uint64_t mask = now < pg->lru_checked ? 0 :
		((UINT64_C(1) << (now + 1)) - 1) & ~((UINT64_C(1) << after) - 1);

	return (pg->lru_bits & mask) ||
	       (pg->lru_checked == TIERSIM_LRU_UNCHECKED && (pg->flags & TIERSIM_PAGE_YOUNG));
}

/* Looks at the page at sub-tick `now`: its accessed bit is cleared. */
static void lru_look(struct tiersim_page *pg, int now)
{
	pg->lru_checked = (int8_t)now;
	pg->flags &= (uint8_t)~TIERSIM_PAGE_YOUNG;
}

void tiersim_machine_lru_tick(struct tiersim_machine *m)
{
	for (size_t c = 0; c < m->nr_spaces; c++) {
		struct tiersim_space *s = &m->spaces[c];

		for (uint64_t p = 0; p < s->top_page; p++) {
			struct tiersim_page *pg = &s->pages[p];

			if (lru_young(pg, TIERSIM_LRU_SUBTICKS - 1))
				pg->flags |= TIERSIM_PAGE_YOUNG;
			else
				pg->flags &= (uint8_t)~TIERSIM_PAGE_YOUNG;
			pg->lru_bits = 0;
			pg->lru_checked = TIERSIM_LRU_UNCHECKED;
		}
	}
}

/* inc_max_seq() and the page-table walk at sub-tick `now`: every page of
 * the lruvec accessed since last looked at joins the new youngest
 * generation; every page is looked at. */
static void lru_age(struct tiersim_space *s, size_t t, int now)
{
	s->lru[t].max_seq++;
	for (uint64_t p = 0; p < s->top_page; p++) {
		struct tiersim_page *pg = &s->pages[p];

		if (pg->tier != (int8_t)t)
			continue;
		if (lru_young(pg, now))
			tiersim_lru_add(s, pg, t, true);
		lru_look(pg, now);
	}
}

/* The oldest generation's pages on tier t, tail of the list first. */
static uint64_t lru_oldest(const struct tiersim_space *s, size_t t, struct lru_entry *out)
{
	uint64_t n = 0;

	for (uint64_t p = 0; p < s->top_page; p++)
		if (s->pages[p].tier == (int8_t)t && s->pages[p].lru_seq == s->lru[t].min_seq)
			out[n++] = (struct lru_entry){ .order = s->pages[p].lru_order, .page = p };
	qsort(out, n, sizeof(*out), lru_cmp);
	return n;
}

/* evict_folios() at sub-tick `now` until `want` pages left tier `from`,
 * adding them to *moved. Returns 0, or -ENOSPC when `to` filled first. */
static int lru_evict(struct tiersim_machine *m, size_t c, size_t from, size_t to, int now,
		     uint64_t want, struct lru_entry *lru, uint64_t *moved)
{
	struct tiersim_space *s = &m->spaces[c];
	struct tiersim_lruvec *v = &s->lru[from];
	uint64_t done = 0;

	while (done < want && s->tier_pages[from]) {
		uint64_t n;

		if (v->min_seq + TIERSIM_LRU_MIN_NR_GENS > v->max_seq) {
			lru_age(s, from, now);
			continue;
		}
		n = lru_oldest(s, from, lru);
		if (!n)
			v->min_seq++;
		for (uint64_t i = 0; i < n && done < want; i++) {
			struct tiersim_page *pg = &s->pages[lru[i].page];
			int r;

			if (lru_young(pg, now)) {
				tiersim_lru_add(s, pg, from, true);
				lru_look(pg, now);
				continue;
			}
			r = move_page(m, c, lru[i].page, to, true);
			if (r == -ENOSPC) {
				*moved += done;
				return -ENOSPC;
			}
			done += r == 0;
		}
	}
	*moved += done;
	return 0;
}

int tiersim_machine_demote_lru(struct tiersim_machine *m, size_t c, size_t from, size_t to,
			       uint64_t max_pages, uint64_t *ret_moved, uint64_t *ret_failed)
{
	struct tiersim_space *s = &m->spaces[c];
	struct lru_entry *lru;
	uint64_t moved = 0;
	int r = 0;

	*ret_moved = 0;
	*ret_failed = 0;
	if (from >= m->nr_tiers || to >= m->nr_tiers || from == to || !max_pages ||
	    !s->tier_pages[from])
		return 0;
	lru = malloc(s->tier_pages[from] * sizeof(*lru));
	if (!lru)
		return -ENOMEM;
	for (unsigned k = 0; k < TIERSIM_LRU_SUBTICKS && r == 0; k++) {
		uint64_t want = max_pages * (k + 1) / TIERSIM_LRU_SUBTICKS -
				max_pages * k / TIERSIM_LRU_SUBTICKS;

		r = lru_evict(m, c, from, to, (int)k, want, lru, &moved);
	}
	free(lru);
	*ret_moved = moved;
	*ret_failed = r == -ENOSPC ? max_pages - moved : 0;
	return 0;
}

int tiersim_machine_check(const struct tiersim_machine *m, char *err, size_t err_size)
{
	uint64_t used[TIERSIM_MAX_TIERS] = { 0 };

	for (size_t c = 0; c < m->nr_spaces; c++) {
		const struct tiersim_space *s = &m->spaces[c];
		uint64_t held[TIERSIM_MAX_TIERS] = { 0 }, allocated = 0;

		for (uint64_t p = 0; p < s->nr_pages; p++) {
			int t = s->pages[p].tier;

			if (t < -1 || t >= (int)m->nr_tiers) {
				snprintf(err, err_size, "cgroup %zu page %" PRIu64 " in tier %d of %zu",
					 c, p, t, m->nr_tiers);
				return -EUCLEAN;
			}
			if (t < 0)
				continue;
			held[t]++;
			allocated++;
			if (s->pages[p].frame >= m->tiers[t].capacity_pages ||
			    m->frames[t][s->pages[p].frame].space != (int32_t)c ||
			    m->frames[t][s->pages[p].frame].page != p) {
				snprintf(err, err_size, "cgroup %zu page %" PRIu64
					 ": its frame %u of tier %d holds another", c, p,
					 s->pages[p].frame, t);
				return -EUCLEAN;
			}
		}
		if (allocated != s->allocated_pages) {
			snprintf(err, err_size, "cgroup %zu: %" PRIu64 " pages in the map, %" PRIu64
				 " counted", c, allocated, s->allocated_pages);
			return -EUCLEAN;
		}
		for (size_t t = 0; t < m->nr_tiers; t++) {
			if (held[t] != s->tier_pages[t]) {
				snprintf(err, err_size, "cgroup %zu tier %zu: %" PRIu64
					 " pages in the map, %" PRIu64 " counted",
					 c, t, held[t], s->tier_pages[t]);
				return -EUCLEAN;
			}
			used[t] += held[t];
		}
	}
	for (size_t t = 0; t < m->nr_tiers; t++) {
		uint64_t taken = 0;

		for (uint64_t f = 0; f < m->tiers[t].capacity_pages; f++)
			taken += m->frames[t][f].space >= 0;
		if (taken != m->used_pages[t]) {
			snprintf(err, err_size, "tier %zu: %" PRIu64 " frames taken, %" PRIu64
				 " counted", t, taken, m->used_pages[t]);
			return -EUCLEAN;
		}
		if (used[t] != m->used_pages[t]) {
			snprintf(err, err_size, "tier %zu: %" PRIu64 " pages in the map, %" PRIu64
				 " counted", t, used[t], m->used_pages[t]);
			return -EUCLEAN;
		}
		if (used[t] > m->tiers[t].capacity_pages) {
			snprintf(err, err_size, "tier %zu over capacity: %" PRIu64 " > %" PRIu64
				 " pages", t, used[t], m->tiers[t].capacity_pages);
			return -EUCLEAN;
		}
	}
	return 0;
}

int tiersim_machine_page_of(const struct tiersim_machine *m, size_t c, uint64_t addr,
			    uint64_t *ret_page)
{
	const struct tiersim_space *s;
	uint64_t page;

	if (c >= m->nr_spaces)
		return -ENOENT;
	s = &m->spaces[c];
	if (addr < s->base_addr)
		return -ENOENT;
	page = (addr - s->base_addr) / TIERSIM_PAGE_BYTES;
	if (page >= s->nr_pages)
		return -ENOENT;
	*ret_page = page;
	return 0;
}
