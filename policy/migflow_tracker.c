/* The 2Q allocation tracker over regions; see migflow_tracker.h. Every pass
 * is a merge walk of address-sorted lists: entries against regions, regions
 * against the known address space, old entries with new ones. */
#include <errno.h>
#include <stdlib.h>

#include "migflow_tracker.h"
#include "strategy_scratch.h"
#include "util.h"

static uint64_t pages_of(uint64_t start, uint64_t end)
{
	return (end - start) / TIERD_PAGE_BYTES;
}

void tierd_migflow_tracker_free(struct tierd_migflow_tracker *t)
{
	free(t->entries);
	free(t->known);
	free(t->next);
	free(t->next_known);
	free(t->fresh);
	*t = (struct tierd_migflow_tracker){ 0 };
}

size_t tierd_migflow_seek(const struct tierd_hotness *hot, const size_t *order, size_t pos,
			  uint64_t addr)
{
	while (pos < hot->nr_regions && hot->regions[order[pos]].end <= addr)
		pos++;
	return pos;
}

/* Whether any region over [start, end) exists, and whether one was seen
 * accessed. *pos is the walk's cursor; entries come in address order. */
static bool look(const struct tierd_hotness *hot, const size_t *order, size_t *pos,
		 uint64_t start, uint64_t end, bool *ret_accessed)
{
	bool present = false;

	*pos = tierd_migflow_seek(hot, order, *pos, start);
	*ret_accessed = false;
	for (size_t k = *pos; k < hot->nr_regions && hot->regions[order[k]].start < end; k++) {
		present = true;
		if (hot->regions[order[k]].nr_accesses)
			*ret_accessed = true;
	}
	return present;
}

/* Moves an entry through burst, grace and the cooled queue. */
static void age_entry(struct tierd_migflow_tracker *t, struct tierd_migflow_entry *e,
		      bool accessed, uint64_t now, uint64_t burst, uint64_t grace)
{
	uint64_t pages = pages_of(e->start, e->end);

	/* A clock that went back restarts the stage rather than wrapping. */
	if (now < e->since_usec)
		e->since_usec = now;
	switch (e->stage) {
	case TIERD_MIGFLOW_BURST:
		/* ktrackd clears the access bit as the page enters the grace
		 * queue: this tick's window still belongs to the burst. */
		if (now - e->since_usec >= burst) {
			e->stage = TIERD_MIGFLOW_GRACE;
			e->since_usec = now;
			e->accessed = false;
		}
		break;
	case TIERD_MIGFLOW_GRACE:
		e->accessed = e->accessed || accessed;
		if (now - e->since_usec < grace)
			break;
		t->counts.tracked_pages += pages;
		if (e->accessed) {
			t->counts.warm_pages += pages;
			e->stage = TIERD_MIGFLOW_DONE;
		} else {
			t->counts.cooled_pages += pages;
			e->stage = TIERD_MIGFLOW_COOLED;
			e->since_usec = now;
		}
		break;
	case TIERD_MIGFLOW_COOLED:
		if (accessed) {
			t->counts.reaccessed_pages += pages;
			e->stage = TIERD_MIGFLOW_DONE;
		}
		break;
	case TIERD_MIGFLOW_DONE:
		break;
	}
}

static void age_entries(struct tierd_migflow_tracker *t, const struct tierd_hotness *hot,
			const size_t *order, uint64_t now, uint64_t burst, uint64_t grace)
{
	size_t pos = 0;

	for (size_t i = 0; i < t->nr; i++) {
		struct tierd_migflow_entry *e = &t->entries[i];
		bool accessed;

		if (e->stage == TIERD_MIGFLOW_DONE || e->start >= e->end) {
			e->stage = TIERD_MIGFLOW_DONE;
			continue;
		}
		/* No region over it any more: the memory is gone. */
		if (!look(hot, order, &pos, e->start, e->end, &accessed)) {
			e->stage = TIERD_MIGFLOW_DONE;
			continue;
		}
		age_entry(t, e, accessed, now, burst, grace);
	}
}

/* The parts of the regions outside the known address space, in order. */
static int find_fresh(struct tierd_migflow_tracker *t, const struct tierd_hotness *hot,
		      const size_t *order)
{
	uint64_t frontier = 0;
	size_t k = 0;
	int r;

	t->nr_fresh = 0;
	for (size_t i = 0; i < hot->nr_regions; i++) {
		const struct tierd_region *reg = &hot->regions[order[i]];
		uint64_t a = tierd_max_u64(reg->start, frontier);

		frontier = tierd_max_u64(frontier, reg->end);
		while (a < reg->end) {
			uint64_t b;

			while (k < t->nr_known && t->known[k].end <= a)
				k++;
			if (k < t->nr_known && t->known[k].start <= a) {
				a = tierd_min_u64(t->known[k].end, reg->end);
				continue;
			}
			b = k < t->nr_known ? tierd_min_u64(t->known[k].start, reg->end) : reg->end;
			r = tierd_reserve((void **)&t->fresh, &t->cap_fresh, t->nr_fresh + 1,
					  sizeof(*t->fresh));
			if (r < 0)
				return r;
			t->fresh[t->nr_fresh++] = (struct tierd_migflow_range){ a, b };
			a = b;
		}
	}
	return 0;
}

/* Live old entries merged with the fresh ranges, as new burst entries. */
static void merge_entries(struct tierd_migflow_tracker *t, uint64_t now)
{
	size_t i = 0, j = 0, n = 0;

	while (i < t->nr || j < t->nr_fresh) {
		if (i < t->nr && t->entries[i].stage == TIERD_MIGFLOW_DONE) {
			i++;
			continue;
		}
		if (j >= t->nr_fresh || (i < t->nr && t->entries[i].start < t->fresh[j].start)) {
			t->next[n++] = t->entries[i++];
			continue;
		}
		t->next[n++] = (struct tierd_migflow_entry){ .start = t->fresh[j].start,
							     .end = t->fresh[j].end,
							     .since_usec = now,
							     .stage = TIERD_MIGFLOW_BURST };
		j++;
	}
	t->nr = n;
}

static void add_known(struct tierd_migflow_range *known, size_t *n, uint64_t start, uint64_t end)
{
	if (*n && start <= known[*n - 1].end) {
		known[*n - 1].end = tierd_max_u64(known[*n - 1].end, end);
		return;
	}
	known[(*n)++] = (struct tierd_migflow_range){ start, end };
}

/* This tick's regions and live entries, merged: what the next tick
 * compares its regions against. Entries (disjoint from the fresh ranges)
 * stay known while they live, so a range is never tracked twice. */
static void merge_known(struct tierd_migflow_tracker *t, const struct tierd_hotness *hot,
			const size_t *order)
{
	size_t i = 0, j = 0, n = 0;

	while (i < hot->nr_regions || j < t->nr) {
		const struct tierd_region *reg = NULL;

		if (i < hot->nr_regions)
			reg = &hot->regions[order[i]];
		if (!reg || (j < t->nr && t->entries[j].start < reg->start)) {
			add_known(t->next_known, &n, t->entries[j].start, t->entries[j].end);
			j++;
		} else {
			add_known(t->next_known, &n, reg->start, reg->end);
			i++;
		}
	}
	t->nr_known = n;
}

static void swap_entries(struct tierd_migflow_tracker *t)
{
	struct tierd_migflow_entry *e = t->entries;
	size_t cap = t->cap;

	t->entries = t->next;
	t->cap = t->cap_next;
	t->next = e;
	t->cap_next = cap;
}

static void swap_known(struct tierd_migflow_tracker *t)
{
	struct tierd_migflow_range *k = t->known;
	size_t cap = t->cap_known;

	t->known = t->next_known;
	t->cap_known = t->cap_next_known;
	t->next_known = k;
	t->cap_next_known = cap;
}

int tierd_migflow_tracker_update(struct tierd_migflow_tracker *t, const struct tierd_hotness *hot,
				 const size_t *order, uint64_t now_usec, uint64_t burst_usec,
				 uint64_t grace_usec)
{
	int r;

	if (!hot->nr_regions || hot->regions_repeated)
		return 0;
	/* Everything that can fail first, so a failure changes nothing. */
	r = find_fresh(t, hot, order);
	if (r < 0)
		return r;
	r = tierd_reserve((void **)&t->next, &t->cap_next, t->nr + t->nr_fresh, sizeof(*t->next));
	if (r < 0)
		return r;
	r = tierd_reserve((void **)&t->next_known, &t->cap_next_known,
			  hot->nr_regions + t->nr + t->nr_fresh, sizeof(*t->next_known));
	if (r < 0)
		return r;
	age_entries(t, hot, order, now_usec, burst_usec, grace_usec);
	merge_entries(t, now_usec);
	swap_entries(t);
	merge_known(t, hot, order);
	swap_known(t);
	return 0;
}

uint64_t tierd_migflow_tracker_queued_bytes(const struct tierd_migflow_tracker *t)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (t->entries[i].stage == TIERD_MIGFLOW_COOLED)
			bytes += t->entries[i].end - t->entries[i].start;
	return bytes;
}
