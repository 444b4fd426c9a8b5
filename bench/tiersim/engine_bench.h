/* The engine scale benchmark: plans N cgroups x M DAMON regions per tick
 * with synthetic observations, each cgroup's strategy cycling through the
 * five, and times tierd_engine_plan alone (CLOCK_MONOTONIC around the call).
 * A benchmark, not a test: nothing asserts a time. */
#ifndef TIERSIM_ENGINE_BENCH_H
#define TIERSIM_ENGINE_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The target: 1,000 cgroups of 100,000 regions each. */
#define TIERSIM_ENGINE_BENCH_CGROUPS 1000u
#define TIERSIM_ENGINE_BENCH_REGIONS 100000u
#define TIERSIM_ENGINE_BENCH_TICKS 5u

#include "../../policy/policy.h"

/* Runs nr_ticks planned ticks and prints one line per tick and a summary to
 * out. The cgroups' strategies cycle through strategies[0..nr_strategies),
 * or through the five when nr_strategies is 0. Returns 0, -EINVAL,
 * -ENOMEM. */
int tiersim_engine_bench(size_t nr_cgroups, size_t nr_regions, size_t nr_ticks, uint64_t seed,
			 const enum tierd_strategy *strategies, size_t nr_strategies, FILE *out);

#endif
