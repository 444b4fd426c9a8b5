/* Hint faults per sampled page kept across ticks, so a page is taken as hot
 * only when more than one scan found it accessed. A page faults at most once
 * per scan (the fault makes it accessible again until the next scan unmaps
 * it), so its fault count is the number of scans that saw it accessed. One
 * fault says little: a cold page touched once faults the same way, and
 * promoting those wastes the budget (issue 14 counted 1,600-5,000 such
 * pages a tick on gups). Pure: no I/O, no globals. */
#ifndef TIERD_SAMPLE_HISTORY_H
#define TIERD_SAMPLE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hotness.h"
#include "strategy_scratch.h"

/* Scans that must have seen a page accessed before it is promoted: two,
 * the least that tells a page reaccessed from one touched once. */
#define TIERD_SAMPLE_CONFIRM_FAULTS 2u
/* Ticks a page's count is kept after its last fault. The kernel's default
 * scan unmaps 256 MB a second (scan_size_mb 256, scan_period_min_ms 1000:
 * docs/kernel.md), so a pass over a cgroup of up to 1 GiB
 * takes four ticks and a page still hot faults again within them. */
#define TIERD_SAMPLE_HISTORY_TTL_TICKS 4u

struct tierd_page_seen {
	uint32_t faults;    /* hint faults while the page was remembered */
	uint32_t last_tick; /* tick of the latest one */
	uint32_t timed;             /* those of them with a known interval */
	uint64_t interval_sum_usec; /* their intervals (tierd_sample), summed */
};

/* Two generations, swapped each tick: the new one holds last tick's pages
 * not yet expired plus this tick's, so a tick costs O(kept + samples). */
struct tierd_sample_history {
	uint32_t tick;
	unsigned cur;
	struct tierd_page_set set[2];
	struct tierd_page_seen *seen[2];
	size_t cap_seen[2];
};

/* Counts this tick's samples (every one a fault) and forgets pages with no
 * fault in TIERD_SAMPLE_HISTORY_TTL_TICKS ticks. Call once a tick, before
 * the lookups. Returns 0 or -ENOMEM, leaving the history as it was. */
int tierd_sample_history_update(struct tierd_sample_history *h, const struct tierd_hotness *hot);

/* Faults remembered for the page holding addr; 0 when none. */
uint32_t tierd_sample_history_faults(const struct tierd_sample_history *h, uint64_t addr);

/* The mean interval of the page's remembered faults with a known one, in
 * usec; 0 when none. The shortest of them overrates a cold page: with exponential
 * reaccess times, 1 / interval has a heavy tail. */
uint64_t tierd_sample_history_mean_interval(const struct tierd_sample_history *h, uint64_t addr);

/* True when the page holding addr was seen in enough scans to promote. */
bool tierd_sample_history_confirmed(const struct tierd_sample_history *h, uint64_t addr);

void tierd_sample_history_free(struct tierd_sample_history *h);

#endif
