/* One simulated run: a workload on a machine under one strategy, driven
 * through the same snapshot -> tierd_engine_plan -> actions interface as the
 * daemon. Each tick (1 s): the accesses of that second, sampled by the DAMON
 * and hint-fault samplers every time step; then the tick's topology, each
 * cgroup's tierd_cgroup_obs, hotness and last tick's feedback go to the
 * engine, and its plan is carried out in order against the page map.
 *
 * Results are the mean access latency (placement only; the migration cost
 * is reported beside it), the tier-to-tier move counts and failures, the
 * migrated bytes and, per tick, a time series. */
#ifndef TIERSIM_RUN_H
#define TIERSIM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../policy/policy.h"
#include "damon.h"
#include "fault.h"
#include "machine.h"
#include "workload.h"

/* The daemon's default tick (TIERD_DEFAULT_TICK_USEC). */
#define TIERSIM_TICK_USEC 1000000ull
/* The time step: accesses are generated and the samplers run at this
 * granularity; it bounds the finest DAMON sampling interval. */
#define TIERSIM_STEP_USEC 1000ull
/* Capacity above the footprint. Mole §6.1 makes
 * the tiers sum to "approximately" the RSS; with exactly the RSS no tier
 * would ever have a free page and no migration could succeed. 5% is the
 * order of what the kernel's watermarks and the rest of the system leave. */
#define TIERSIM_HEADROOM_PMY 500u
/* Migration budget per tick, as a share of the footprint. Simulated time
 * runs ~100x faster than Mole's GUPS (per-page access rates are ~100x
 * theirs), and MigFlow's 800 MB / 10 s against a
 * 66 GB database is ~0.12%/s; 5%/s lets a GUPS hot set of 1/6 converge in
 * about 7 s of a 120 s run. */
#define TIERSIM_BUDGET_PMY_PER_TICK 500u

enum tiersim_layout {
	TIERSIM_LAYOUT_VIRTUAL,
	TIERSIM_LAYOUT_FRAMES,
};

struct tiersim_run_config {
	struct tiersim_workload_config workload;
	size_t nr_tiers;
	uint32_t ratio[TIERSIM_MAX_TIERS];
	uint32_t read_ns[TIERSIM_MAX_TIERS], write_ns[TIERSIM_MAX_TIERS];
	uint32_t headroom_pmy;
	enum tierd_strategy strategy;
	enum tierd_sharing sharing;       /* multi-tenant: island or pool */
	uint64_t tick_usec;
	uint32_t budget_pmy;              /* per tick, of the footprint */
	struct tiersim_damon_config damon;
	struct tiersim_fault_config fault;
	bool check_every_tick;            /* else only after the last tick */
	/* What a tier's DAMON-like context runs over: the cgroup's own
	 * pages (virtual order), or the tier's frames, which pages take and
	 * free as they come and go (bench/README.md "Layout"). */
	enum tiersim_layout layout;
};

/* Four tiers 1:1:2:2 with Mole §6.1's latencies, gups, strategy none. */
void tiersim_run_config_defaults(struct tiersim_run_config *cfg);

/* Tier capacities for a footprint: (1 + headroom) * footprint split by the
 * ratio, the rounding remainder to the last tier. Returns 0 or -EINVAL. */
int tiersim_tier_specs(const struct tiersim_run_config *cfg, uint64_t footprint_pages,
		       struct tiersim_tier_spec *ret);

/* One tick of a run. */
struct tiersim_tick {
	uint64_t time_usec;               /* end of the tick */
	uint64_t accesses;
	uint64_t latency_ns;              /* summed over its accesses */
	uint64_t oracle_ns;               /* the oracle's sum for the same window */
	uint64_t tier0_accesses;
	uint64_t hot_accesses;            /* of the tier-0-capacity hottest pages */
	uint64_t promoted_pages, demoted_pages;
	uint64_t promote_failed_pages, demote_failed_pages;
	uint64_t used_pages[TIERSIM_MAX_TIERS];
	uint64_t fault_samples;
	size_t nr_regions;
	size_t nr_actions;
	/* DAMON-like sampling: page checks made and those HMM-V's filter
	 * saved during the tick; reads and writes of the regions the engine
	 * got at its end. */
	uint64_t damon_checks, damon_skipped_checks;
	uint64_t region_reads, region_writes;
};

/* Counters a strategy keeps of its own (policy/strategy_<name>.h), as
 * name = value pairs; filled by tiersim_strategy_stats() where known. */
#define TIERSIM_MAX_STRATEGY_STATS 16
struct tiersim_strategy_stat {
	char name[48];
	uint64_t value;
};

struct tiersim_result {
	char workload[32];
	char ratio[32];
	char strategy[16];
	uint64_t seed;
	double scale;
	size_t nr_tiers;
	uint64_t footprint_pages;
	uint64_t capacity_pages[TIERSIM_MAX_TIERS];
	uint64_t accesses;
	uint64_t latency_ns;              /* summed over all accesses */
	double mean_ns;
	double oracle_ns, static_ns;      /* means; 0 without an oracle */
	double causal_ns;                 /* the causal oracle's mean (causal.h) */
	double x_oracle, x_static, x_causal; /* mean_ns over them */
	/* Mole §3.1's counts, in pages: a promotion moves a page to a faster
	 * tier, a demotion to a slower one; failed = destination full. */
	uint64_t promote_attempts, promote_failed;
	uint64_t demote_attempts, demote_failed;
	uint64_t migrated_pages, migrated_bytes;
	uint64_t planned_bytes, clipped_bytes;  /* engine: planned, cut by limits */
	double migration_ms;              /* migrated_pages * TIERSIM_MIGRATE_PAGE_NS */
	double mean_ns_mig;               /* mean_ns with migration cost added */
	double hot_frac_mean, hot_frac_last;
	uint64_t fault_samples, fault_dropped;
	/* The DAMON-like sampler's work: page checks made, checks left out
	 * because HMM-V's multi-level queue or clock switch said not to sample
	 * the region (the work saved), and the regions so left out, one per
	 * region per tick. */
	uint64_t damon_checks, damon_skipped_checks, damon_skipped_regions;
	uint64_t alloc_failed_pages;
	uint64_t invariant_violations;
	char first_violation[256];
	uint64_t budget_violations;       /* ticks where a cgroup moved more than its budget */
	uint64_t budget_bytes;            /* per cgroup per period */
	uint64_t max_period_bytes;        /* most any cgroup moved in one period */
	int strategy_error;               /* a cgroup's strategy failed to start */
	/* The strategy's own promotion/demotion counts (policy/strategy_<name>.h)
	 * summed over cgroups, in pages, where it keeps them: attempts it
	 * proposed and those that found no room (the engine clips a proposal
	 * to the free bytes, so the simulator's own failures above are rare). */
	bool has_strategy_failures;
	uint64_t s_promote_attempts, s_promote_failed;
	uint64_t s_demote_attempts, s_demote_failed;
	size_t nr_strategy_stats;
	struct tiersim_strategy_stat strategy_stats[TIERSIM_MAX_STRATEGY_STATS];
	size_t nr_ticks;
	struct tiersim_tick *ticks;
	double wall_ms;                   /* not part of the deterministic output */
};

struct tiersim_oracle;

/* Runs one configuration. oracle (may be NULL) is the oracle of the same
 * configuration, for the ratios and the hot-set fraction. Returns 0; -EINVAL
 * with a message in err; -ENOMEM. *ret is filled only on success. */
int tiersim_run(const struct tiersim_run_config *cfg, const struct tiersim_oracle *oracle,
		struct tiersim_result *ret, char *err, size_t err_size);
void tiersim_result_free(struct tiersim_result *r);

/* Ticks a run of workload w lasts: its duration rounded up to ticks. */
size_t tiersim_run_ticks(const struct tiersim_workload *w, uint64_t tick_usec);

/* "1:1:2:2" from the ratio. */
void tiersim_ratio_format(const struct tiersim_run_config *cfg, char *buf, size_t size);
/* Parses "1:1:2:2" into cfg->ratio / nr_tiers. Returns 0 or -EINVAL. */
int tiersim_ratio_parse(const char *text, struct tiersim_run_config *cfg);

#endif
