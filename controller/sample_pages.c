/* Token addresses of sampled pages; see sample_pages.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sample_pages.h"
#include "../policy/hotness.h"

#define PAGE_SHIFT 12 /* TIERD_PAGE_BYTES = 1 << PAGE_SHIFT */
#define MAX_CAP (1u << 30)

/* splitmix64's finalizer (Steele et al., "Fast splittable pseudorandom
 * number generators", 2014): spreads pages of one process over the slots. */
static uint64_t mix(uint32_t tgid, uint64_t vaddr)
{
	uint64_t x = vaddr ^ ((uint64_t)tgid << 32 | tgid);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static size_t nr_slots(const struct tierd_sample_pages *t)
{
	return t->cap * 2;
}

int tierd_sample_pages_init(struct tierd_sample_pages *t, size_t cap)
{
	memset(t, 0, sizeof(*t));
	if (cap == 0 || cap > MAX_CAP || (cap & (cap - 1)))
		return -EINVAL;
	t->cap = cap;
	t->next_seq = 1;
	t->ring = calloc(cap, sizeof(*t->ring));
	t->slots = calloc(nr_slots(t), sizeof(*t->slots));
	if (!t->ring || !t->slots) {
		tierd_sample_pages_free(t);
		return -ENOMEM;
	}
	return 0;
}

void tierd_sample_pages_free(struct tierd_sample_pages *t)
{
	free(t->ring);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* The slot holding (tgid, vaddr), or the empty slot where it would go. */
static size_t find(const struct tierd_sample_pages *t, uint32_t tgid, uint64_t vaddr)
{
	size_t mask = nr_slots(t) - 1, i = mix(tgid, vaddr) & mask;

	/* Never full: at most cap of the 2 * cap slots are taken. */
	for (;; i = (i + 1) & mask) {
		const struct tierd_sample_page *e;

		if (!t->slots[i])
			return i;
		e = &t->ring[t->slots[i] - 1];
		if (e->tgid == tgid && e->vaddr == vaddr)
			return i;
	}
}

/* Empties slot i, shifting back the entries of its probe run (Knuth's
 * algorithm R for linear probing), so lookups need no tombstones. */
static void remove_slot(struct tierd_sample_pages *t, size_t i)
{
	size_t mask = nr_slots(t) - 1, j = i;

	for (;;) {
		const struct tierd_sample_page *e;
		size_t home;

		t->slots[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!t->slots[j])
				return;
			e = &t->ring[t->slots[j] - 1];
			home = mix(e->tgid, e->vaddr) & mask;
			/* Stays when its home lies cyclically in (i, j]. */
			if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
				continue;
			break;
		}
		t->slots[i] = t->slots[j];
		i = j;
	}
}

static uint64_t token_of(uint64_t seq)
{
	return TIERD_SAMPLE_TOKEN_BIT | seq << PAGE_SHIFT;
}

static void drop(struct tierd_sample_pages *t, struct tierd_sample_page *e)
{
	remove_slot(t, find(t, e->tgid, e->vaddr));
	e->seq = 0;
	t->nr--;
}

uint64_t tierd_sample_pages_token(struct tierd_sample_pages *t, uint32_t tgid, uint64_t vaddr)
{
	uint64_t page = vaddr & ~(TIERD_PAGE_BYTES - 1);
	size_t i = find(t, tgid, page), k;
	struct tierd_sample_page *e;

	if (t->slots[i])
		return token_of(t->ring[t->slots[i] - 1].seq);
	k = t->next_seq & (t->cap - 1);
	e = &t->ring[k];
	if (e->seq) {
		drop(t, e);
		i = find(t, tgid, page);
	}
	*e = (struct tierd_sample_page){ .seq = t->next_seq++, .vaddr = page, .tgid = tgid };
	t->slots[i] = (uint32_t)k + 1;
	t->nr++;
	return token_of(e->seq);
}

int tierd_sample_pages_lookup(const struct tierd_sample_pages *t, uint64_t token, uint32_t *tgid,
			      uint64_t *vaddr)
{
	uint64_t seq = (token & ~TIERD_SAMPLE_TOKEN_BIT) >> PAGE_SHIFT;
	const struct tierd_sample_page *e;

	if (!tierd_sample_token(token) || !t->cap || seq == 0 || seq >= t->next_seq)
		return -ENOENT;
	e = &t->ring[seq & (t->cap - 1)];
	if (e->seq != seq)
		return -ENOENT;
	*tgid = e->tgid;
	*vaddr = e->vaddr;
	return 0;
}

size_t tierd_sample_pages_forget(struct tierd_sample_pages *t, uint32_t tgid)
{
	size_t n = 0;

	for (size_t k = 0; k < t->cap; k++) {
		struct tierd_sample_page *e = &t->ring[k];

		if (e->seq && e->tgid == tgid) {
			drop(t, e);
			n++;
		}
	}
	return n;
}
