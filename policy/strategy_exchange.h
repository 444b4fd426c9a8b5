/* The "exchange" strategy, tierd's own: every tier filled from the top
 * with the memory that is accessed most per byte the budget pays, each
 * promotion into a full tier paid for by demoting that tier's memory that
 * is clearly colder. Its ops table is tierd_strategy_exchange
 * (strategy.h); these are its params and counters. */
#ifndef TIERD_STRATEGY_EXCHANGE_H
#define TIERD_STRATEGY_EXCHANGE_H

#include <stdint.h>

/* Its params (tierd-policy(5)); config/strategy_keys.c reads and checks
 * them. */
struct tierd_exchange_params {
	uint64_t gain_pmy;       /* a victim must be this many times colder */
	uint64_t reserve_usec;   /* fastest-tier room kept for new pages */
};

void tierd_exchange_params_default(struct tierd_exchange_params *p);

/* Counters since init, in bytes proposed (the engine may clip them). */
struct tierd_exchange_stats {
	uint64_t promoted_bytes;   /* into a faster tier */
	uint64_t demoted_bytes;    /* victims, to make room */
	uint64_t reserve_bytes;    /* of those, room for new pages */
	uint64_t refused_bytes;    /* candidates no victim was cold enough for */
	uint64_t alloc_rate;       /* the cgroup's growth per second, smoothed */
};

void tierd_exchange_stats(const void *state, struct tierd_exchange_stats *ret);

#endif
