/* The clairvoyant oracle and the static optimum. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal.h"
#include "oracle.h"

struct ranked {
	uint64_t key;
	uint64_t reads, writes;
	uint64_t page;          /* flat index over all cgroups, for a total order */
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/* Fills the fastest tiers with the highest-ranked pages; returns the summed
 * latency, and in *ret_hot the accesses of the tier-0-capacity first. */
static uint64_t place(struct ranked *items, size_t n, const struct tiersim_tier_spec *tiers,
		    size_t nr_tiers, uint64_t *ret_hot)
{
	size_t t = 0;
	uint64_t left = tiers[0].capacity_pages, hot = 0, sum = 0;

	qsort(items, n, sizeof(*items), ranked_cmp);
	for (size_t i = 0; i < n; i++) {
		while (!left && t + 1 < nr_tiers)
			left = tiers[++t].capacity_pages;
		sum += items[i].reads * tiers[t].read_ns + items[i].writes * tiers[t].write_ns;
		if (left)
			left--;
		if (i < tiers[0].capacity_pages)
			hot += items[i].reads + items[i].writes;
	}
	*ret_hot = hot;
	return sum;
}

static uint64_t rank_key(const struct tiersim_tier_spec *tiers, size_t nr_tiers,
			 uint64_t reads, uint64_t writes)
{
	const struct tiersim_tier_spec *fast = &tiers[0], *slow = &tiers[nr_tiers - 1];
	uint64_t dr = slow->read_ns > fast->read_ns ? slow->read_ns - fast->read_ns : 0;
	uint64_t dw = slow->write_ns > fast->write_ns ? slow->write_ns - fast->write_ns : 0;

	/* Equal latencies everywhere: rank by accesses. */
	if (!dr && !dw)
		dr = dw = 1;
	return reads * dr + writes * dw;
}

void tiersim_oracle_free(struct tiersim_oracle *o)
{
	free(o->window_ns);
	free(o->window_accesses);
	free(o->hot_accesses);
	memset(o, 0, sizeof(*o));
}

int tiersim_oracle_compute(const struct tiersim_run_config *cfg, struct tiersim_oracle *ret,
			   char *err, size_t err_size)
{
	struct tiersim_oracle o = { 0 };
	struct tiersim_workload *w = NULL;
	struct tiersim_tier_spec tiers[TIERSIM_MAX_TIERS];
	uint64_t offset[TIERSIM_MAX_CGROUPS + 1] = { 0 }, footprint;
	uint32_t *reads = NULL, *writes = NULL;
	uint64_t *total_reads = NULL, *total_writes = NULL;
	struct ranked *items = NULL;
	struct tiersim_causal *causal = NULL;
	int r;

	r = tiersim_workload_new(&cfg->workload, &w, err, err_size);
	if (r < 0)
		return r;
	footprint = tiersim_workload_footprint(w);
	r = tiersim_tier_specs(cfg, footprint, tiers);
	if (r < 0) {
		snprintf(err, err_size, "ratio: no tiers");
		goto out;
	}
	for (size_t c = 0; c < w->nr_cgroups; c++)
		offset[c + 1] = offset[c] + w->pages[c];
	r = tiersim_causal_new(cfg, w, tiers, &causal);
	if (r < 0)
		goto out;
	o.nr_ticks = tiersim_run_ticks(w, cfg->tick_usec);
	r = -ENOMEM;
	o.window_ns = calloc(o.nr_ticks + 1, sizeof(*o.window_ns));
	o.window_accesses = calloc(o.nr_ticks + 1, sizeof(*o.window_accesses));
	o.hot_accesses = calloc(o.nr_ticks + 1, sizeof(*o.hot_accesses));
	reads = calloc(footprint, sizeof(*reads));
	writes = calloc(footprint, sizeof(*writes));
	total_reads = calloc(footprint, sizeof(*total_reads));
	total_writes = calloc(footprint, sizeof(*total_writes));
	items = calloc(footprint, sizeof(*items));
	if (!o.window_ns || !o.window_accesses || !o.hot_accesses || !reads || !writes ||
	    !total_reads || !total_writes || !items)
		goto out;

	for (size_t k = 0; k < o.nr_ticks; k++) {
		uint64_t end = (k + 1) * cfg->tick_usec;
		struct tiersim_access a;
		size_t n = 0;

		while (tiersim_workload_next(w, end, &a) > 0) {
			uint64_t p = offset[a.cgroup] + a.page;

			if (a.write)
				writes[p]++;
			else
				reads[p]++;
			o.window_accesses[k]++;
			o.causal_ns += tiersim_causal_access(causal, &a);
		}
		tiersim_causal_tick(causal);
		for (uint64_t p = 0; p < footprint; p++) {
			if (!reads[p] && !writes[p])
				continue;
			items[n++] = (struct ranked){
				.key = rank_key(tiers, cfg->nr_tiers, reads[p], writes[p]),
				.reads = reads[p], .writes = writes[p], .page = p,
			};
			total_reads[p] += reads[p];
			total_writes[p] += writes[p];
			reads[p] = writes[p] = 0;
		}
		o.window_ns[k] = place(items, n, tiers, cfg->nr_tiers, &o.hot_accesses[k]);
		o.total_ns += o.window_ns[k];
		o.accesses += o.window_accesses[k];
	}
	{
		size_t n = 0;
		uint64_t hot;

		for (uint64_t p = 0; p < footprint; p++)
			if (total_reads[p] || total_writes[p])
				items[n++] = (struct ranked){
					.key = rank_key(tiers, cfg->nr_tiers, total_reads[p],
							total_writes[p]),
					.reads = total_reads[p], .writes = total_writes[p], .page = p,
				};
		o.static_ns = place(items, n, tiers, cfg->nr_tiers, &hot);
	}
	if (o.accesses) {
		o.mean_ns = o.total_ns / (double)o.accesses;
		o.static_mean_ns = o.static_ns / (double)o.accesses;
		o.causal_mean_ns = o.causal_ns / (double)o.accesses;
	}
	*ret = o;
	memset(&o, 0, sizeof(o));
	r = 0;
out:
	tiersim_oracle_free(&o);
	free(reads);
	free(writes);
	free(total_reads);
	free(total_writes);
	free(items);
	tiersim_causal_free(causal);
	tiersim_workload_free(w);
	return r;
}
