/* Working memory the strategies keep between ticks, so that a tick
 * allocates only while it grows: growable arrays, a set of sampled pages
 * and an index sort, all O(n) a tick. Pure: no I/O, no globals. */
#ifndef TIERD_STRATEGY_SCRATCH_H
#define TIERD_STRATEGY_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Grows *buf to hold at least n items of item_size bytes (doubling).
 * Returns 0 or -ENOMEM, leaving *buf as it was. */
int tierd_reserve(void **buf, size_t *cap, size_t n, size_t item_size);

/* One buffer of a set reserved together. */
struct tierd_reserve_req {
	void **buf;
	size_t *cap;
	size_t n, item_size;
};

/* tierd_reserve() for each; stops at the first -ENOMEM. */
int tierd_reserve_all(const struct tierd_reserve_req *reqs, size_t nr);

/* Reorders idx[0..n) so that keys[idx[i]] ascend; stable (equal keys keep
 * their order in idx). tmp is scratch of n entries. An LSD radix sort a
 * byte a pass, skipping the passes where every key has the same byte. */
void tierd_radix_sort(const uint64_t *keys, size_t *idx, size_t *tmp, size_t n);

/* The base pages sampled in a tick, each once, numbered 0, 1, ... in the
 * order they were first added: an open-addressing hash set. */
struct tierd_page_set {
	size_t nr;                 /* pages added */
	size_t nr_slots, cap_slots; /* in use (a power of two), allocated */
	size_t *slots;             /* index into pages[], or empty */
	size_t cap_pages;
	uint64_t *pages;           /* page numbers, in the order added */
};

/* Empties the set, sized for n pages. Returns 0 or -ENOMEM. */
int tierd_page_set_reset(struct tierd_page_set *s, size_t n);

/* Adds the page holding addr: true when it is new, false when it was there
 * already; *ret_index (may be NULL) gets its number either way. At most the
 * n pages reset() was sized for. */
bool tierd_page_set_add(struct tierd_page_set *s, uint64_t addr, size_t *ret_index);

/* True when the page holding addr is in the set, its number in *ret_index. */
bool tierd_page_set_find(const struct tierd_page_set *s, uint64_t addr, size_t *ret_index);

void tierd_page_set_free(struct tierd_page_set *s);

#endif
