/* The engine scale benchmark. Observations are synthetic but shaped like
 * the simulator's: regions of 8 pages placed 1:1:2:2 down the tiers, one
 * in six hot, nr_accesses redrawn every tick so strategies see change, and
 * a batch of hint-fault samples per cgroup. To keep memory to what the
 * engine itself needs, cgroups share a few region arrays (the engine only
 * reads them). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../policy/engine.h"
#include "engine_bench.h"
#include "rng.h"

#define VARIANTS 8u
#define REGION_PAGES 8u
#define SAMPLES_PER_CGROUP 1024u
#define PAGE_BYTES TIERD_PAGE_BYTES
#define NR_TIERS 4u
#define SAMPLES_PER_WINDOW 20u   /* DAMON: 100 ms / 5 ms */
#define HOT_ONE_IN 6u            /* Mole's GUPS: a sixth of the memory is hot */
#define CGROUP_ID_BASE 1000u

static const enum tierd_strategy five[] = {
	TIERD_STRATEGY_MOLE, TIERD_STRATEGY_MIGFLOW, TIERD_STRATEGY_HMMV,
	TIERD_STRATEGY_LINUX, TIERD_STRATEGY_AUTOTIERING,
};
#define NR_FIVE (sizeof(five) / sizeof(five[0]))

struct variant {
	struct tierd_region *regions;
	struct tierd_sample *samples;
	struct tierd_hotness hot;
	uint64_t tier_bytes[NR_TIERS];
};

static int tier_of(size_t i, size_t n)
{
	/* 1:1:2:2 by position. */
	if (i < n / 6)
		return 0;
	if (i < n / 3)
		return 1;
	if (i < 2 * n / 3)
		return 2;
	return 3;
}

static void redraw(struct variant *v, size_t nr_regions, struct tiersim_rng *rng, uint64_t now,
		   uint64_t base)
{
	for (size_t i = 0; i < nr_regions; i++) {
		struct tierd_region *r = &v->regions[i];
		bool hot = tiersim_rng_below(rng, HOT_ONE_IN) == 0;

		r->nr_accesses = hot ? 10 + (uint32_t)tiersim_rng_below(rng, SAMPLES_PER_WINDOW - 9)
				     : (uint32_t)tiersim_rng_below(rng, 2);
		r->age = (uint32_t)tiersim_rng_below(rng, 50);
	}
	for (size_t i = 0; i < SAMPLES_PER_CGROUP; i++) {
		size_t reg = (size_t)tiersim_rng_below(rng, nr_regions);

		v->samples[i] = (struct tierd_sample){
			.addr = base + ((uint64_t)reg * REGION_PAGES +
					tiersim_rng_below(rng, REGION_PAGES)) * PAGE_BYTES,
			.tier = v->regions[reg].tier,
			.time_usec = now,
			.interval_usec = 1000 + tiersim_rng_below(rng, 4000000),
			.write = tiersim_rng_below(rng, 4) == 0,
		};
	}
}

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

int tiersim_engine_bench(size_t nr_cgroups, size_t nr_regions, size_t nr_ticks, uint64_t seed,
			 const enum tierd_strategy *cycle, size_t nr_cycle, FILE *out)
{
	const uint64_t base = 0x100000000ull;
	struct variant variants[VARIANTS] = { 0 };
	struct tierd_policy *policies = NULL;
	struct tierd_cgroup_obs *obs = NULL;
	struct tierd_engine_cgroup *ecg = NULL;
	struct tierd_engine *engine = NULL;
	struct tierd_topology *topo = NULL;
	struct tiersim_rng rng;
	double first_ms = 0, rest_ms = 0, max_ms = 0, first_cpu = 0, rest_cpu = 0, max_cpu = 0;
	uint64_t total_bytes = 0;
	int r = -ENOMEM;

	if (!nr_cgroups || !nr_regions || !nr_ticks || nr_regions > UINT32_MAX)
		return -EINVAL;
	if (!nr_cycle) {
		cycle = five;
		nr_cycle = NR_FIVE;
	}
	tiersim_rng_seed(&rng, seed, 0x656e67ull /* "eng" */);
	for (size_t v = 0; v < VARIANTS; v++) {
		variants[v].regions = calloc(nr_regions, sizeof(*variants[v].regions));
		variants[v].samples = calloc(SAMPLES_PER_CGROUP, sizeof(*variants[v].samples));
		if (!variants[v].regions || !variants[v].samples)
			goto out;
		for (size_t i = 0; i < nr_regions; i++) {
			struct tierd_region *reg = &variants[v].regions[i];

			reg->start = base + (uint64_t)i * REGION_PAGES * PAGE_BYTES;
			reg->end = reg->start + REGION_PAGES * PAGE_BYTES;
			reg->tier = tier_of(i, nr_regions);
			reg->max_accesses = SAMPLES_PER_WINDOW;
			reg->aggr_usec = 100000;
			variants[v].tier_bytes[reg->tier] += REGION_PAGES * PAGE_BYTES;
		}
		variants[v].hot = (struct tierd_hotness){
			.nr_regions = nr_regions, .regions = variants[v].regions,
			.nr_samples = SAMPLES_PER_CGROUP, .samples = variants[v].samples,
		};
	}
	policies = calloc(nr_cycle, sizeof(*policies));
	obs = calloc(nr_cgroups, sizeof(*obs));
	ecg = calloc(nr_cgroups, sizeof(*ecg));
	topo = calloc(1, sizeof(*topo));
	if (!policies || !obs || !ecg || !topo)
		goto out;
	for (size_t i = 0; i < nr_cycle; i++) {
		snprintf(policies[i].name, sizeof(policies[i].name), "bench-%s",
			 tierd_strategy_name(cycle[i]));
		policies[i].strategy = cycle[i];
		policies[i].has_migration_budget = true;
		policies[i].migration_budget = (struct tierd_migration_budget){
			.bytes = TIERD_DEFAULT_MIGRATION_BYTES,
			.period_usec = TIERD_DEFAULT_MIGRATION_PERIOD_USEC,
		};
	}
	for (size_t c = 0; c < nr_cgroups; c++) {
		const struct variant *v = &variants[c % VARIANTS];

		snprintf(obs[c].path, sizeof(obs[c].path), "/bench.slice/cg%zu.scope", c);
		obs[c].id = CGROUP_ID_BASE + c;
		for (size_t t = 0; t < NR_TIERS; t++) {
			obs[c].anon_bytes[t] = v->tier_bytes[t];
			obs[c].current_bytes += v->tier_bytes[t];
		}
		total_bytes += obs[c].current_bytes;
		ecg[c] = (struct tierd_engine_cgroup){
			.obs = &obs[c], .policy = &policies[c % nr_cycle], .hot = &v->hot,
		};
	}
	topo->source = TIERD_TIERS_CONFIG;
	topo->nr_nodes = topo->nr_tiers = NR_TIERS;
	for (size_t t = 0; t < NR_TIERS; t++) {
		static const uint32_t parts[NR_TIERS] = { 1, 1, 2, 2 };
		static const uint32_t lat[NR_TIERS] = { 80, 140, 300, 600 };
		uint64_t used = 0, cap = total_bytes / 6 * parts[t];

		for (size_t c = 0; c < nr_cgroups; c++)
			used += obs[c].anon_bytes[t];
		/* 5% headroom, as in the simulator. */
		cap += cap / 20;
		topo->nodes[t] = (struct tierd_node){
			.nid = (int)t, .tier = (int)t, .total_bytes = cap,
			.free_bytes = cap > used ? cap - used : 0, .has_hmat = true,
			.read_latency_ns = lat[t], .write_latency_ns = lat[t],
		};
		topo->tiers[t].kernel_id = (int)t;
		(void)tierd_nodeset_add(&topo->tiers[t].nodes, (int)t);
		topo->tiers[t].total_bytes = cap;
		topo->tiers[t].free_bytes = topo->nodes[t].free_bytes;
		topo->tiers[t].read_latency_ns = lat[t];
	}
	r = tierd_engine_new(&engine);
	if (r < 0)
		goto out;
	fprintf(out, "engine bench: %zu cgroups x %zu regions (%zu region arrays shared), "
		     "%u samples each, strategies cycling", nr_cgroups, nr_regions, (size_t)VARIANTS,
		SAMPLES_PER_CGROUP);
	for (size_t i = 0; i < nr_cycle; i++)
		fprintf(out, "%s%s", i ? "/" : " ", tierd_strategy_name(cycle[i]));
	fputc('\n', out);
	for (size_t k = 0; k < nr_ticks; k++) {
		/* Ticks a budget period apart, and a global budget of everyone's
		 * sum: every tick plans afresh instead of finding the budgets
		 * spent by the first. */
		uint64_t now = (k + 1) * TIERD_DEFAULT_MIGRATION_PERIOD_USEC;
		struct tierd_engine_input in = {
			.now_usec = now, .topo = topo,
			.global_budget = { .bytes = TIERD_DEFAULT_MIGRATION_BYTES * nr_cgroups,
					   .period_usec = TIERD_DEFAULT_MIGRATION_PERIOD_USEC },
			.nr_cgroups = nr_cgroups, .cgroups = ecg,
		};
		struct tierd_plan plan;
		struct timespec t0, t1, c0, c1;
		double ms, cpu;

		for (size_t v = 0; v < VARIANTS; v++)
			redraw(&variants[v], nr_regions, &rng, now, base);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		r = tierd_engine_plan(engine, &in, &plan);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (r < 0)
			goto out;
		ms = ms_between(&t0, &t1);
		cpu = ms_between(&c0, &c1);
		fprintf(out, "tick %zu: %.1f ms (%.1f ms cpu), %zu actions, %" PRIu64
			     " bytes planned, %zu clipped\n",
			k + 1, ms, cpu, plan.nr_actions, plan.planned_bytes, plan.nr_clipped);
		fflush(out);
		tierd_plan_free(&plan);
		if (k == 0) {
			first_ms = ms;
			first_cpu = cpu;
		} else {
			rest_ms += ms;
			rest_cpu += cpu;
		}
		max_ms = ms > max_ms ? ms : max_ms;
		max_cpu = cpu > max_cpu ? cpu : max_cpu;
	}
	fprintf(out, "time per tick: first %.1f ms (strategy state created), then mean %.1f ms, "
		     "max %.1f ms\n", first_ms, nr_ticks > 1 ? rest_ms / (double)(nr_ticks - 1) : first_ms,
		max_ms);
	/* CPU time: wall time on a shared machine counts the neighbours too. */
	fprintf(out, "cpu per tick: first %.1f ms, then mean %.1f ms, max %.1f ms; "
		     "%.1f ns cpu per region at most\n", first_cpu,
		nr_ticks > 1 ? rest_cpu / (double)(nr_ticks - 1) : first_cpu, max_cpu,
		max_cpu * 1e6 / ((double)nr_cgroups * (double)nr_regions));
	r = 0;
out:
	tierd_engine_free(engine);
	for (size_t v = 0; v < VARIANTS; v++) {
		free(variants[v].regions);
		free(variants[v].samples);
	}
	free(policies);
	free(obs);
	free(ecg);
	free(topo);
	return r;
}
