/* Hotness observations of one cgroup in one tick, as plain structs: DAMON-like
 * regions (an address range, where it sits, how often it was seen accessed
 * and for how long that pattern held) and individual page accesses seen by
 * a (hint-)fault sampler. The daemon fills them from DAMON and BPF, the
 * simulator from its own samplers; the strategies read only these. */
#ifndef TIERD_HOTNESS_H
#define TIERD_HOTNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIERD_PAGE_BYTES 4096ull /* base page: what migrations move */

/* Bytes rounded down to whole base pages. */
static inline uint64_t tierd_page_down(uint64_t bytes)
{
	return bytes / TIERD_PAGE_BYTES * TIERD_PAGE_BYTES;
}

/* Bytes rounded up to whole base pages. */
static inline uint64_t tierd_page_up(uint64_t bytes)
{
	return tierd_page_down(bytes + TIERD_PAGE_BYTES - 1);
}

struct tierd_region {
	uint64_t start, end;    /* [start, end), page aligned: physical or virtual */
	int tier;               /* tier index holding it, -1 when unknown or mixed */
	uint32_t nr_accesses;   /* samples that saw it accessed in the last window */
	uint32_t max_accesses;  /* samples per window (aggregation / sampling interval) */
	uint32_t age;           /* windows its access pattern has held (DAMON age) */
	uint64_t aggr_usec;     /* aggregation window of the tier it was sampled on */
	uint32_t reads, writes; /* accesses by kind when the sampler can tell, else 0 */
	uint64_t bytes;         /* the cgroup's bytes in [start, end) when attribution
				 * knows them (a run merged across gaps holds
				 * fewer than its span); 0: the whole span */
};

/* What moving the whole of region r moves: its bytes, or its span. */
static inline uint64_t tierd_region_bytes(const struct tierd_region *r)
{
	return r->bytes ? r->bytes : r->end - r->start;
}

/* `bytes` held evenly over [start, end): what `span` bytes of it hold. */
static inline uint64_t tierd_even_share(uint64_t bytes, uint64_t start, uint64_t end,
					uint64_t span)
{
	if (end <= start)
		return 0;
	return (uint64_t)((unsigned __int128)bytes * span / (end - start));
}

/* Region r's bytes in `span` bytes of its span, r taken as evenly filled. */
static inline uint64_t tierd_region_share(const struct tierd_region *r, uint64_t span)
{
	return tierd_even_share(tierd_region_bytes(r), r->start, r->end, span);
}

/* The span, in whole pages, that holds `bytes` of region r. */
static inline uint64_t tierd_region_span_for(const struct tierd_region *r, uint64_t bytes)
{
	uint64_t held = tierd_region_bytes(r);

	if (!held)
		return 0;
	return tierd_page_up((uint64_t)(((unsigned __int128)bytes * (r->end - r->start) + held - 1) /
					held));
}

struct tierd_sample {
	uint64_t addr;          /* page address */
	int tier;               /* tier of the page when it was accessed */
	uint64_t time_usec;     /* when */
	uint64_t interval_usec; /* time since the page was made inaccessible: the
				 * reaccess interval of a hint fault; 0 unknown */
	bool write;
};

struct tierd_hotness {
	size_t nr_regions;
	/* Disjoint and sorted by start, as DAMON reports them. nr_accesses
	 * counts samples of one random page of the region per sampling
	 * interval (DAMON semantics), so it describes every page alike. */
	const struct tierd_region *regions;
	/* The regions are a reading an earlier tick was given already: the
	 * daemon's DAMON collect ran past its deadline. An observer that keeps
	 * rounds of readings must not count it as a new one. */
	bool regions_repeated;
	size_t nr_samples;
	const struct tierd_sample *samples;
};

/* What happened to last tick's plan for a cgroup: the actuator's report. */
struct tierd_feedback {
	uint64_t promoted_bytes, promote_failed_bytes;
	uint64_t demoted_bytes, demote_failed_bytes;
};

#endif
