/* A DAMON-like access sampler, one context per tier as the daemon runs one
 * paddr kdamond per tier (docs/design.md), over one cgroup's address space
 * (mm/damon/core.c and vaddr.c; the admin guide's defaults): regions of
 * pages; every sampling interval one random page of the context's tier per
 * region has its accessed bit checked (set by any access), and a region's
 * nr_accesses counts the checks that found it set during one aggregation
 * window. As in kdamond_fn(), every region is armed (its page's bits
 * cleared) at once and checked one full sampling interval later; merge and
 * split come right after a check, and the pieces are armed with the rest.
 * The dirty bit is checked and cleared with it, as HMM-V's scanner reads
 * both A/D bits (HMM-V §3.2): a check that finds the page accessed and
 * dirty counts a write, accessed and clean a read. Every aggregation window
 * adjacent regions whose access rates differ by at most a tenth are merged
 * (age kept as a size-weighted mean, reset when a region's rate changed by
 * more than that), then every region is split at random points, within
 * [min_regions, max_regions]. Regions cover the mapped part of the space
 * only: as the heap grows (new 2 MiB chunks touched), DAMON's update
 * interval stretches the last region over the new mapping, as
 * damon_set_regions() does for a VMA that grew.
 *
 * A tier's context sees only that tier's pages, as a paddr context sees
 * only its node's frames: a page elsewhere is a hole, never sampled. What
 * the engine gets is what the daemon's attribution (policy/attribution.h)
 * makes of a physical region: the runs of the tier's pages inside each
 * region, at most TIERD_ATTR_MAX_RUNS_PER_REGION of them, each with the
 * region's figures and the context's tier. So no reported region spans two
 * tiers. Each context has its own sampling and aggregation intervals: the
 * ones tierd_engine_profile() asks for that tier (Mole's tier-specific
 * profiling periods, §4.3), sampled at DAMON's default 1:20 ratio.
 *
 * A strategy may leave regions unsampled (HMM-V's multi-level queue and
 * clock switch, §3.2): tiersim_damon_filter() freezes them as they were
 * last reported, so they keep being reported with the same start, extent
 * and counts until they are sampled again. */
#ifndef TIERSIM_DAMON_H
#define TIERSIM_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../policy/attribution.h"
#include "../../policy/hotness.h"
#include "machine.h"
#include "rng.h"

/* DAMON's defaults (Documentation/admin-guide/mm/damon/usage.rst):
 * sample 5 ms, aggregate 100 ms, 10..1000 regions. */
#define TIERSIM_DAMON_SAMPLE_USEC 5000ull
#define TIERSIM_DAMON_AGGR_USEC 100000ull
#define TIERSIM_DAMON_MIN_REGIONS 10u
#define TIERSIM_DAMON_MAX_REGIONS 1000u
/* Finest sampling interval honoured: the simulator's time step. */
#define TIERSIM_DAMON_MIN_SAMPLE_USEC 1000ull
/* DAMON's ops update interval (1 s): how often the mapping is re-read. */
#define TIERSIM_DAMON_UPDATE_USEC 1000000ull
/* Mappings grow in 2 MiB chunks (jemalloc's default extent and a huge
 * page's size). */
#define TIERSIM_DAMON_MAP_CHUNK_PAGES 512ull
/* A tier's context reports its regions at base + (tier + 1) * this: the
 * tiers' ranges never overlap, as nodes' physical ranges do not, and a
 * range is never read as a virtual one (cgroup spaces are 1 TiB apart). */
#define TIERSIM_DAMON_TIER_STRIDE_ADDR (1ull << 36)

struct tiersim_damon_config {
	uint64_t sample_usec;
	uint64_t aggr_usec;
	uint32_t min_regions, max_regions;
};

struct tiersim_damon_region {
	uint64_t start, end;            /* pages [start, end) */
	uint32_t nr_accesses, nr_samples;     /* this window */
	uint32_t nr_writes;             /* of nr_accesses, found dirty */
	uint32_t last_accesses, last_samples; /* the last complete window */
	uint32_t last_writes;           /* of last_accesses */
	uint64_t last_window_usec;      /* how long that window was */
	uint32_t age;
	uint64_t sample_page;           /* its bits were cleared when it was armed */
	bool sample_on_tier;            /* that page was on the context's tier */
	uint64_t armed_usec;            /* when */
	/* Left unsampled by the filter: not checked, merged, split or aged,
	 * and its last window stays what it was. */
	bool frozen;
};

struct tiersim_damon {
	struct tiersim_damon_config cfg;
	int tier;                       /* the tier whose pages it samples */
	/* Set: the context's pages are the tier's frames, and a frame counts
	 * when it holds a page of `space` (tiersim_damon_use_frames()). */
	const struct tiersim_frame *frames;
	int32_t space;
	uint64_t nr_pages, base_addr;   /* regions reported at base_addr */
	uint64_t mapped_pages;          /* regions cover [0, mapped_pages) */
	uint64_t next_update_usec;
	struct tiersim_rng rng;
	size_t nr, cap;
	struct tiersim_damon_region *regions;
	struct tiersim_damon_region *scratch; /* split target, cap entries */
	/* This context's intervals. */
	uint64_t window_usec, interval_usec;
	uint64_t next_sample_usec, next_aggr_usec, last_aggr_usec;
	int armed;                      /* sample pages chosen */
	/* The last complete window's DAMON regions. */
	size_t nr_out;
	struct tierd_region *out;
	/* What the daemon last read of them (tiersim_damon_read()): a copy
	 * of out taken once per read period, and how many reads so far. */
	uint64_t read_period_usec, read_usec;
	size_t nr_held;
	struct tierd_region *held;
	uint64_t reads;
	/* What the engine gets: the runs of the tier's pages in the held
	 * regions, and per held region the index of its first run and how
	 * many (what a strategy knows it by), valid while ask_reads == reads. */
	struct tierd_attr_out runs;
	uint64_t *owner;                /* per page: 1 on the tier, else 0 */
	/* The tier's pages in address order, as of the last reindex: what a
	 * region arms a random one of. */
	uint64_t *on_tier;
	size_t nr_on_tier;
	uint64_t *ask;
	size_t *ask_runs;               /* and how many runs it has */
	uint64_t ask_reads;
	/* Sampling work: page checks made (of a page on the tier), checks the
	 * filter saved (a frozen region due for a sample), and the regions
	 * the strategy refused, as it knows them (by runs, once per
	 * tiersim_damon_filter() call); a region is frozen when it refused
	 * all of its runs. */
	uint64_t checks, skipped_checks, skipped_regions;
};

/* DAMON's defaults. */
void tiersim_damon_config_defaults(struct tiersim_damon_config *cfg);

/* Prepares to sample the pages on `tier` of an address space of nr_pages
 * pages, reporting them at base_addr (tiersim_damon_tier_base()); the first
 * step splits its mapped part evenly into min_regions regions. Returns 0,
 * -EINVAL for a bad config or tier, -ENOMEM. */
int tiersim_damon_init(struct tiersim_damon *d, const struct tiersim_damon_config *cfg,
		       uint64_t nr_pages, uint64_t base_addr, int tier, uint64_t seed,
		       uint64_t stream);
void tiersim_damon_free(struct tiersim_damon *d);

/* Samples a tier's frames (nr_pages at init: the tier's capacity) for the
 * pages of space `space` there, as the daemon's kdamond samples a node's
 * physical pages and attributes them to cgroups; without it the context
 * runs over the space's own pages. */
void tiersim_damon_use_frames(struct tiersim_damon *d, const struct tiersim_frame *frames,
			      int32_t space);

/* Where tier `tier`'s context of a space at space_base reports. */
static inline uint64_t tiersim_damon_tier_base(uint64_t space_base, size_t tier)
{
	return space_base + (tier + 1) * TIERSIM_DAMON_TIER_STRIDE_ADDR;
}

/* Per-tier profiling periods (usec, 0 = none): as the daemon's kdamond,
 * the context aggregates over tierd_profile_aggr_usec() of its tier's,
 * sampled at window * sample / aggr (at least
 * TIERSIM_DAMON_MIN_SAMPLE_USEC), and its regions are read once per period
 * (every tiersim_damon_read() without one). A changed window starts at the
 * last aggregation. */
void tiersim_damon_set_intervals(struct tiersim_damon *d, const uint64_t *interval_usec);

/* Re-reads which pages are on the tier (after pages moved). Each update
 * interval does it too, for pages first touched since. */
void tiersim_damon_reindex(struct tiersim_damon *d, const struct tiersim_space *s);

/* Takes every sample and closes every window due by now. Returns 0 or
 * -ENOMEM. */
int tiersim_damon_step(struct tiersim_damon *d, struct tiersim_space *s, uint64_t now_usec);

/* Whether the region reported (by the last aggregation) at start_addr is
 * sampled until the next filter. */
typedef bool tiersim_damon_sample_fn(const void *ctx, uint64_t start_addr);

/* Chooses the regions sampled from now on: each region of the last complete
 * window that sample() refuses is frozen whole (the pieces the split made
 * of it since are joined again), the others are sampled, a frozen one
 * starting afresh with a page armed at now_usec. sample NULL: every region. */
void tiersim_damon_filter(struct tiersim_damon *d, struct tiersim_space *s,
			  tiersim_damon_sample_fn *sample, const void *ctx, uint64_t now_usec);

/* What the daemon reads at now_usec: the last complete window's regions,
 * when a read period has passed since the last read (always the first
 * time, or without a period); else the regions of that last read stay. */
void tiersim_damon_read(struct tiersim_damon *d, uint64_t now_usec);

/* The runs of the tier's pages, as they are now, inside the regions of the
 * last read (tierd_attribute()), each with its region's figures and
 * the context's tier; reads + writes = nr_accesses, split by the dirty bit.
 * Returns 0 or -ENOMEM. */
int tiersim_damon_regions(struct tiersim_damon *d, const struct tiersim_space *s,
			  const struct tierd_region **ret, size_t *ret_nr);

#endif
