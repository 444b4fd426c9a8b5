/* Hint faults per page across ticks: sample_history.h. */
#include <errno.h>
#include <stdlib.h>

#include "sample_history.h"
#include "util.h"

int tierd_sample_history_update(struct tierd_sample_history *h, const struct tierd_hotness *hot)
{
	unsigned old = h->cur, cur = !h->cur;
	uint32_t tick = h->tick + 1;
	size_t kept = h->set[old].nr, n = kept + hot->nr_samples;
	struct tierd_page_set *set = &h->set[cur];
	int r;

	r = tierd_page_set_reset(set, n);
	if (r < 0)
		return r;
	r = tierd_reserve((void **)&h->seen[cur], &h->cap_seen[cur], n, sizeof(*h->seen[cur]));
	if (r < 0)
		return r;
	for (size_t i = 0; i < kept; i++) {
		const struct tierd_page_seen *p = &h->seen[old][i];
		size_t k;

		if (tick - p->last_tick > TIERD_SAMPLE_HISTORY_TTL_TICKS)
			continue;
		tierd_page_set_add(set, h->set[old].pages[i] * TIERD_PAGE_BYTES, &k);
		h->seen[cur][k] = *p;
	}
	for (size_t i = 0; i < hot->nr_samples; i++) {
		size_t k;

		if (tierd_page_set_add(set, hot->samples[i].addr, &k))
			h->seen[cur][k] = (struct tierd_page_seen){ 0 };
		h->seen[cur][k].faults++;
		h->seen[cur][k].last_tick = tick;
		if (hot->samples[i].interval_usec) {
			h->seen[cur][k].timed++;
			h->seen[cur][k].interval_sum_usec += hot->samples[i].interval_usec;
		}
	}
	h->cur = cur;
	h->tick = tick;
	return 0;
}

uint32_t tierd_sample_history_faults(const struct tierd_sample_history *h, uint64_t addr)
{
	size_t k;

	if (!tierd_page_set_find(&h->set[h->cur], addr, &k))
		return 0;
	return h->seen[h->cur][k].faults;
}

uint64_t tierd_sample_history_mean_interval(const struct tierd_sample_history *h, uint64_t addr)
{
	const struct tierd_page_seen *p;
	size_t k;

	if (!tierd_page_set_find(&h->set[h->cur], addr, &k))
		return 0;
	p = &h->seen[h->cur][k];
	return p->timed ? p->interval_sum_usec / p->timed : 0;
}

bool tierd_sample_history_confirmed(const struct tierd_sample_history *h, uint64_t addr)
{
	return tierd_sample_history_faults(h, addr) >= TIERD_SAMPLE_CONFIRM_FAULTS;
}

void tierd_sample_history_free(struct tierd_sample_history *h)
{
	for (unsigned i = 0; i < TIERD_ARRAY_SIZE(h->set); i++) {
		tierd_page_set_free(&h->set[i]);
		free(h->seen[i]);
	}
	*h = (struct tierd_sample_history){ 0 };
}
