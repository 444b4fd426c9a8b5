/* The previous tick's regions of one cgroup, kept so that a strategy can
 * tell where memory arrived since. DAMON's figures for a region describe
 * the pages that were in it during its window: a page allocated or moved
 * into a range DAMON found unaccessed (free frames, or addresses it had no
 * page at) inherits that range's count and age until a later window
 * samples it. The newest pages, often the hottest, then read as the
 * coldest (tiersim's alloc-burst: a cgroup's last second of allocations
 * demoted to tier 3 while still in their burst). A region that holds more
 * of the cgroup than the kept regions held in its span has such memory.
 * Pure: no I/O, no globals. */
#ifndef TIERD_REGION_HISTORY_H
#define TIERD_REGION_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hotness.h"

/* Growth below this is taken as rounding: a run merged across gaps gives
 * its bytes as an even share of its span (tierd_region_share), so the same
 * pages can read up to a page apart from one layout to the next. */
#define TIERD_REGION_GROWTH_SLACK_BYTES TIERD_PAGE_BYTES

/* What a kept region held: its span and the cgroup's bytes in it. */
struct tierd_region_held {
	uint64_t start, end, bytes;
};

struct tierd_region_history {
	struct tierd_region_held *held; /* sorted by start */
	size_t nr, cap;
	bool known;                     /* a tick's regions are kept */
};

/* Keeps what regions[0..n) hold, sorted by start, in place of the last.
 * Returns 0 or -ENOMEM, which leaves nothing known. */
int tierd_region_history_update(struct tierd_region_history *h, const struct tierd_region *regions,
				size_t n);

/* The bytes the kept regions held in [start, end), each taken as evenly
 * filled. *pos is where the lookup starts and is left where the next may
 * (0 at first): ranges asked in address order cost one walk of the list,
 * any other order a bisection each. */
uint64_t tierd_region_history_bytes(const struct tierd_region_history *h, size_t *pos,
				    uint64_t start, uint64_t end);

/* True when region r holds more than TIERD_REGION_GROWTH_SLACK_BYTES above
 * what the kept regions held in its span; false while nothing is known.
 * pos as for tierd_region_history_bytes(). */
bool tierd_region_history_grew(const struct tierd_region_history *h, size_t *pos,
			       const struct tierd_region *r);

void tierd_region_history_free(struct tierd_region_history *h);

#endif
