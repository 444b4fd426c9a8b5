/* The benchmark matrix that `make bench` runs: every workload x capacity
 * ratio x strategy, each group against its own oracle; the table on stdout,
 * the CSVs and the plots in the output directory. */
#ifndef TIERSIM_BENCH_H
#define TIERSIM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run.h"

#define TIERSIM_BENCH_MAX_ITEMS 16
#define TIERSIM_BENCH_MAX_RATIOS 8

struct tiersim_bench_item {
	enum tiersim_workload_kind kind;
	enum tierd_sharing sharing;       /* multi-tenant only */
};

struct tiersim_bench_ratio {
	size_t nr_tiers;
	uint32_t ratio[TIERSIM_MAX_TIERS];
};

struct tiersim_bench_config {
	struct tiersim_run_config base;   /* latencies, scale, seed, samplers */
	size_t nr_items;
	struct tiersim_bench_item items[TIERSIM_BENCH_MAX_ITEMS];
	size_t nr_ratios;
	struct tiersim_bench_ratio ratios[TIERSIM_BENCH_MAX_RATIOS];
	size_t nr_strategies;
	enum tierd_strategy strategies[TIERD_STRATEGY_NR];
	const char *out_dir;              /* NULL: no files */
	bool quiet;                       /* no table, no notes */
	unsigned jobs;                    /* runs at once (processes), >= 1 */
};

/* Runs the matrix. Returns 0 when every run completed with no invariant
 * broken, -EUCLEAN when one broke an invariant, or the first error. */
int tiersim_bench(const struct tiersim_bench_config *cfg, FILE *out, FILE *log);

#endif
