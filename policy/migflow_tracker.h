/* MigFlow's 2Q allocation tracker ("Kernel module":
 * ktrackd keeps every newly faulted page in a burst queue, then a grace
 * queue, and reports whether it cooled down), over DAMON-like regions.
 *
 * Address space covered neither by the previous tick's regions nor by a
 * live entry is new (on the first tick, all of it is): it is tracked as an
 * entry keyed by its start. At the first tick `burst` or more after it
 * appeared, it moves from the burst queue, where accesses are expected and
 * ignored, to the grace queue, as ktrackd clears the access bit then. An
 * entry seen accessed (a region over it with nr_accesses > 0) in a later
 * tick, up to and including the first one `grace` or more after it entered
 * grace, is warm and forgotten; one idle through all of them has cooled
 * and is queued for quick demotion. A cooled entry seen
 * accessed again before it was demoted is re-accessed and dropped. The
 * strategy takes cooled entries off the queue as it proposes their
 * demotion: it moves their start past what it proposed, or marks them
 * done. Pure; O(regions + entries) a tick. */
#ifndef TIERD_MIGFLOW_TRACKER_H
#define TIERD_MIGFLOW_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hotness.h"

enum tierd_migflow_stage {
	TIERD_MIGFLOW_BURST,   /* just appeared: accesses are its allocation burst */
	TIERD_MIGFLOW_GRACE,   /* watched for any access */
	TIERD_MIGFLOW_COOLED,  /* idle through grace: queued for quick demotion */
	TIERD_MIGFLOW_DONE,    /* forgotten at the next update */
};

struct tierd_migflow_entry {
	uint64_t start, end;       /* page aligned; start moves up as a cooled
				    * entry is demoted a prefix at a time */
	uint64_t since_usec;       /* when it entered its stage */
	enum tierd_migflow_stage stage;
	bool accessed;             /* seen accessed in the grace window so far */
};

struct tierd_migflow_range {
	uint64_t start, end;
};

/* Counters since the tracker started, in base pages, as MigFlow's [Alloc]
 * line: pages that finished burst and grace, the cooled and warm among
 * them, and the cooled ones accessed again before their demotion. */
struct tierd_migflow_tracker_counts {
	uint64_t tracked_pages;
	uint64_t cooled_pages;
	uint64_t warm_pages;
	uint64_t reaccessed_pages;
};

struct tierd_migflow_tracker {
	size_t nr, cap;
	struct tierd_migflow_entry *entries;  /* sorted by start, disjoint */
	size_t nr_known, cap_known;
	struct tierd_migflow_range *known;    /* last tick's regions and live
					       * entries, merged, sorted */
	/* buffers the next generation is built in, swapped in at the end */
	size_t cap_next, cap_next_known;
	struct tierd_migflow_entry *next;
	struct tierd_migflow_range *next_known;
	size_t nr_fresh, cap_fresh;
	struct tierd_migflow_range *fresh;    /* new address space this tick */
	struct tierd_migflow_tracker_counts counts;
};

void tierd_migflow_tracker_free(struct tierd_migflow_tracker *t);

/* One tick: ages the entries against the regions (order[] lists region
 * indexes by start; regions are disjoint), then starts tracking the new
 * address space. A tick without regions, or with regions repeated from an
 * earlier tick, says nothing and changes nothing.
 * Returns 0 or -ENOMEM (the tracker is left as it was). */
int tierd_migflow_tracker_update(struct tierd_migflow_tracker *t, const struct tierd_hotness *hot,
				 const size_t *order, uint64_t now_usec, uint64_t burst_usec,
				 uint64_t grace_usec);

/* First position p >= pos in order[] whose region ends after addr. */
size_t tierd_migflow_seek(const struct tierd_hotness *hot, const size_t *order, size_t pos,
			  uint64_t addr);

/* Bytes of cooled entries waiting for quick demotion. */
uint64_t tierd_migflow_tracker_queued_bytes(const struct tierd_migflow_tracker *t);

#endif
