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

/* The Linux baseline's params (tierd-policy(5)); config/strategy_keys.c
 * reads and checks them. */
struct tierd_linux_params {
	uint64_t hot_threshold_usec;
	uint64_t rate_limit_mbps;
	uint64_t watermark_pmy;
};

void tierd_linux_params_default(struct tierd_linux_params *p);

#endif
