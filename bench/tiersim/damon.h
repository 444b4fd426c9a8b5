/* A DAMON-like access sampler over one cgroup's address space, as the
 * daemon would read it from the kernel (mm/damon/core.c and vaddr.c; the
 * admin guide's defaults): regions of pages; every sampling interval one
 * random page per region has its accessed bit checked (set by any access)
 * and cleared, and a region's nr_accesses counts the checks that found it
 * set during one aggregation window. The dirty bit is checked and cleared
 * with it, as HMM-V's scanner reads both A/D bits (§3.2 of
 * the HMM-V paper): a check that finds the page accessed and dirty
 * counts a write, accessed and clean a read. Every base aggregation interval
 * adjacent regions whose access rates differ by at most a tenth are merged
 * (age kept as a size-weighted mean, reset when a region's rate changed by
 * more than that), then every region is split at random points, within
 * [min_regions, max_regions]. Regions cover the mapped part of the space
 * only: as the heap grows (new 2 MiB chunks touched), DAMON's update
 * interval stretches the last region over the new mapping, as
 * damon_set_regions() does for a VMA that grew.
 *
 * Per-tier profiling (tierd_engine_profile(); Mole's tier-specific
 * profiling periods, §4.3 of the Mole paper): the interval a
 * strategy asks for a tier is the aggregation window of the regions that
 * tier holds most of, as if each tier had its own DAMON context; their
 * sampling interval keeps DAMON's default ratio to it (5 ms : 100 ms). A
 * region's window closes at its tier's pace, so max_accesses and aggr_usec
 * differ between tiers; merging compares rates, nr_accesses / samples. The
 * strategies see each region's last complete window, never true counts.
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
/* Longest per-tier window honoured: past a minute a tier's regions would
 * report nothing for most of a run. */
#define TIERSIM_DAMON_MAX_WINDOW_USEC (60 * 1000000ull)

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
	uint64_t sample_page;           /* its bits were cleared at the last sample */
	size_t bucket;                  /* sampling tier; nr_tiers = no page yet */
	/* Left unsampled by the filter: not checked, merged, split or aged,
	 * and its last window stays what it was. */
	bool frozen;
};

struct tiersim_damon {
	struct tiersim_damon_config cfg;
	uint64_t nr_pages, base_addr;
	uint64_t mapped_pages;          /* regions cover [0, mapped_pages) */
	uint64_t next_update_usec;
	size_t nr_tiers;
	struct tiersim_rng rng;
	size_t nr, cap;
	struct tiersim_damon_region *regions;
	struct tiersim_damon_region *scratch; /* split target, cap entries */
	/* Per bucket (tier; nr_tiers = no page yet): window and sampling. */
	uint64_t window_usec[TIERSIM_MAX_TIERS + 1];
	uint64_t interval_usec[TIERSIM_MAX_TIERS + 1];
	uint64_t next_sample_usec[TIERSIM_MAX_TIERS + 1];
	uint64_t next_window_usec[TIERSIM_MAX_TIERS + 1];
	uint64_t next_aggr_usec;        /* base aggregation: merge and split */
	int armed;                      /* sample pages chosen */
	/* The last complete window, as strategies see it. */
	size_t nr_out;
	struct tierd_region *out;
	uint64_t windows;
	/* Sampling work: page checks made, checks the filter saved (a frozen
	 * region due for a sample), and regions it froze (one per region per
	 * tiersim_damon_filter() call). */
	uint64_t checks, skipped_checks, skipped_regions;
};

/* DAMON's defaults. */
void tiersim_damon_config_defaults(struct tiersim_damon_config *cfg);

/* Prepares to sample an address space of nr_pages pages at base_addr; the
 * first step splits its mapped part evenly into min_regions regions.
 * Returns 0, -EINVAL for a bad config, -ENOMEM. */
int tiersim_damon_init(struct tiersim_damon *d, const struct tiersim_damon_config *cfg,
		       uint64_t nr_pages, uint64_t base_addr, size_t nr_tiers,
		       uint64_t seed, uint64_t stream);
void tiersim_damon_free(struct tiersim_damon *d);

/* Per-tier profiling intervals (usec, 0 = the default aggregation window):
 * each tier's window, rounded down to whole base windows within
 * [aggr_usec, TIERSIM_DAMON_MAX_WINDOW_USEC], sampled at window * sample /
 * aggr (at least TIERSIM_DAMON_MIN_SAMPLE_USEC). A changed window starts
 * at the last base aggregation. */
void tiersim_damon_set_intervals(struct tiersim_damon *d, const uint64_t *interval_usec);

/* Takes every sample and closes every window due by now. Returns 0 or
 * -ENOMEM. */
int tiersim_damon_step(struct tiersim_damon *d, struct tiersim_space *s, uint64_t now_usec);

/* Whether the region reported (by the last aggregation) at start_addr is
 * sampled until the next filter. */
typedef bool tiersim_damon_sample_fn(const void *ctx, uint64_t start_addr);

/* Chooses the regions sampled from now on: each region of the last complete
 * window that sample() refuses is frozen whole (the pieces the split made
 * of it since are joined again), the others are sampled, a frozen one
 * starting afresh with a newly armed page. sample NULL: every region. */
void tiersim_damon_filter(struct tiersim_damon *d, struct tiersim_space *s,
			  tiersim_damon_sample_fn *sample, const void *ctx);

/* The last complete window's regions with the tier holding each one now
 * (-1 when its pages are in several tiers or none); reads + writes =
 * nr_accesses, split by the dirty bit. */
const struct tierd_region *tiersim_damon_regions(struct tiersim_damon *d,
						 const struct tiersim_space *s, size_t *ret_nr);

#endif
