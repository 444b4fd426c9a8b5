/* The "linux" baseline strategy: NUMA balancing in memory-tiering mode plus
 * watermark demotion, as the kernel does today. Its ops table is
 * tierd_strategy_linux (strategy.h); these read one cgroup's state. */
#ifndef TIERD_STRATEGY_LINUX_H
#define TIERD_STRATEGY_LINUX_H

#include <stdint.h>

#include "baseline_util.h"

/* Its counters since init (pages), for promotion and demotion failure rates. */
void tierd_linux_stats(const void *state, struct tierd_baseline_stats *ret);

/* The hot threshold in force (usec): the hot_threshold param as the kernel
 * adjusts it against the promotion rate limit. */
uint64_t tierd_linux_hot_threshold_usec(const void *state);

#endif
