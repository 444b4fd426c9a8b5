/* Attributing DAMON's physical regions to cgroups. With the paddr
 * operations DAMON's regions are machine-wide (6.12 applies the memcg
 * filter only at action time), so the owner of each page, read from
 * /proc/kpagecgroup (controller/kpagecgroup.h), splits a tier's regions
 * into per-cgroup hotness regions: the runs of a cgroup's pages inside each
 * DAMON region, with that region's access figures. Pure: no I/O. */
#ifndef TIERD_ATTRIBUTION_H
#define TIERD_ATTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

#include "hotness.h"

/* Runs kept per cgroup per DAMON region; beyond it the runs are merged
 * across their smallest gaps. DAMON samples one page per region, so runs
 * finer than a region add placement detail but no hotness detail, and a
 * merged run is safe to act on: the DAMOS memcg filter tierd acts through
 * moves only that cgroup's pages. 8 bounds a cgroup's list to 8 times
 * the tier's max_nr_regions (DAMON's default: 1000). */
#define TIERD_ATTR_MAX_RUNS_PER_REGION 8

/* Page owners of a PFN range: owner[i] is the memcg inode (0: none) of
 * PFN base_pfn + i * stride and stands for the stride pages from there.
 * stride 1 is exact; larger strides bound the pages read on big machines. */
struct tierd_attr_owners {
	uint64_t base_pfn;
	uint64_t stride;
	size_t nr;
	const uint64_t *owner;
};

/* A memcg inode whose pages count for managed cgroup index; several inodes
 * may map to one index (a managed cgroup and its descendants). */
struct tierd_attr_cgroup {
	uint64_t ino;
	size_t index;
};

/* One managed cgroup's result, caller-owned; regions is allocated here and
 * reused across calls (free with tierd_attr_out_free). */
struct tierd_attr_out {
	struct tierd_region *regions; /* disjoint, sorted by start, page aligned */
	size_t nr_regions;
	size_t cap;                   /* entries allocated in regions */
	uint64_t pages;               /* pages attributed: each sample counts for
				       * the stride pages it stands for inside
				       * the DAMON regions */
};

/* The stride that reads at most max_pages_read of total_pages:
 * ceil(total_pages / max_pages_read); 1 when max_pages_read is 0 (no
 * budget) or covers everything. */
uint64_t tierd_attr_stride(uint64_t total_pages, uint64_t max_pages_read);

/* Splits one tier's DAMON regions (sorted, disjoint, page aligned) by page
 * owner: out[index] (nr_out of them, reset first) gets the maximal runs of
 * its pages inside each region, split at region boundaries, each run
 * carrying its region's tier, nr_accesses, max_accesses, age, aggr_usec,
 * reads and writes; at most TIERD_ATTR_MAX_RUNS_PER_REGION runs per region
 * (the smallest gaps merged first, the lower address first among equal
 * gaps). Pages outside owners, owned by 0 or by inodes not in map are
 * nobody's. map is sorted by ino, each ino once, index < nr_out.
 * Returns 0; -EINVAL for unsorted, overlapping or unaligned regions, an
 * unsorted map, a bad index or stride 0; -ENOMEM (out then holds a partial
 * result, still to be freed). */
int tierd_attribute(const struct tierd_region *regions, size_t nr_regions,
		    const struct tierd_attr_owners *owners, const struct tierd_attr_cgroup *map,
		    size_t nr_map, struct tierd_attr_out *out, size_t nr_out);

void tierd_attr_out_free(struct tierd_attr_out *out, size_t nr_out);

#endif
