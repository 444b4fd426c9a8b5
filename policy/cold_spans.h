/* Which memory an engine DEMOTE action takes: the one rule the daemon's
 * DAMOS actuator (controller/damon_plan.h) and the simulator both follow, so
 * tiersim moves what the daemon would. A DEMOTE names only a tier and a
 * byte count; it is carried by migrate_cold schemes over the cgroup's
 * coldest regions of that tier. Pure: no I/O. */
#ifndef TIERD_COLD_SPANS_H
#define TIERD_COLD_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "hotness.h"

struct tierd_cold_span {
	uint64_t start, end;       /* [start, end), in the regions' addresses */
	uint64_t bytes;            /* the cgroup's bytes expected in it */
	uint32_t nr_accesses;      /* of the region it was cut from */
};

/* Appends to out (capacity cap) spans `bytes` long in all of the cgroup's
 * regions on `tier` (hot: the cgroup's hotness, sorted and disjoint),
 * coldest first: fewest accesses, then oldest (DAMON age), then lowest
 * address; the last one cut short. The lengths, not the bytes the spans
 * hold, add up to `bytes`: a migrate_cold scheme moves every page of the
 * cgroup it finds in its span, which may be more than the region held when
 * it was observed, never more than the span, so the demotion stays within
 * its budget. Each span's bytes are its region's bytes in it, the region
 * taken as evenly filled (tierd_region_share). Memory the spans in
 * taken[0..nr_taken) cover is skipped: a demotion split over two
 * destination tiers must not pick the same coldest pages twice; taken
 * spans start where a region starts, as this function makes them. Returns
 * how many were appended, -E2BIG when out filled up (what fit stays), or
 * -ENOMEM. */
int tierd_cold_spans(const struct tierd_hotness *hot, size_t tier, uint64_t bytes,
		     const struct tierd_cold_span *taken, size_t nr_taken,
		     struct tierd_cold_span *out, size_t cap);

#endif
