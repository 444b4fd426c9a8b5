/* Orders for the migflow strategy without comparison sorts: regions by
 * address, LFU victims by (tier, accesses, age), promotion candidates by
 * gain. An LSD radix sort over 64-bit keys, a byte a pass, is O(n) per pass
 * and skips the passes where every key has the same byte. Pure. */
#ifndef TIERD_MIGFLOW_SORT_H
#define TIERD_MIGFLOW_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Reorders idx[0..n) so that keys[idx[i]] ascend; stable (equal keys keep
 * their order in idx). tmp is scratch of n entries. */
void tierd_migflow_radix_sort(const uint64_t *keys, size_t *idx, size_t *tmp, size_t n);

/* Grows *buf to hold at least n items of item_size bytes (doubling).
 * Returns 0 or -ENOMEM, leaving *buf as it was. */
int tierd_migflow_reserve(void **buf, size_t *cap, size_t n, size_t item_size);

#endif
