/* From the engine's plan to DAMON's configuration, pure (no I/O): one
 * kdamond per memory tier over the physical ranges of the tier's nodes
 * (Mole §4.2 tier-specific profiling), each
 * with an unfiltered `stat` scheme whose tried regions are tierd's hotness
 * observation, plus this tick's migrations as DAMOS actions.
 *
 * How a migration is carried by DAMOS on 6.12 (tests/vm/scenarios/damon.sh
 * and docs/vm.md): migrate_hot/migrate_cold with target_nid, an addr filter
 * naming a physical span and a memcg filter naming the cgroup, so only that
 * cgroup's pages inside the span move. The span bounds what moves, not a
 * quota: a quota ranks *all* the context's regions by priority before any
 * filter, so regions inside the span fall below the cut-off and nothing
 * moves, and it is charged for regions the memcg filter rejects (seen in
 * the VM). Pages that moved are no longer in the source tier's span, so the
 * scheme, reapplied until the next tick's commit replaces it, moves each
 * page once.
 *
 * An addr filter splits the DAMON region holding the span's start and
 * skips the part after the split for that pass; each aggregation merges
 * the regions back before schemes apply, so a scheme applied once per
 * aggregation never reaches a span that does not start on a region
 * boundary ([6.12] mm/damon/core.c __damos_filter_out and kdamond_fn; seen
 * in the VM: such schemes tried 0 regions). Applied several times per
 * aggregation, the second pass finds the split in place. */
#define TIERD_DAMOS_APPLIES_PER_AGGR 4
#ifndef TIERD_DAMON_PLAN_H
#define TIERD_DAMON_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "damon.h"
#include "../policy/engine.h"
#include "../report/migstats.h"

/* DAMON's own defaults (docs/kernel.md §1.1): 5 ms sampling, 100 ms
 * aggregation, 60 s region update; at least 10, at most 1000 regions. */
#define TIERD_DAMON_SAMPLE_US 5000u
#define TIERD_DAMON_AGGR_US 100000u
#define TIERD_DAMON_UPDATE_US 60000000u
#define TIERD_DAMON_MIN_NR_REGIONS 10u
#define TIERD_DAMON_MAX_NR_REGIONS 1000u
/* Samples per aggregation window at DAMON's default ratio (100 ms / 5 ms). */
#define TIERD_DAMON_SAMPLES_PER_AGGR (TIERD_DAMON_AGGR_US / TIERD_DAMON_SAMPLE_US)
/* The stat scheme is scheme 0 of every kdamond; actions take the rest. */
#define TIERD_DAMON_STAT_SCHEME 0
#define TIERD_DAMON_ACTION_SLOTS (TIERD_DAMON_MAX_SCHEMES - 1)

/* Physical memory and profiling intervals of each tier. */
struct tierd_damon_tier_layout {
	size_t nr_ranges;
	struct tierd_damon_region ranges[TIERD_DAMON_MAX_REGIONS];
	uint64_t aggr_us;          /* 0: DAMON's default */
};

struct tierd_damon_layout {
	size_t nr_tiers;           /* = kdamonds; a tier without ranges is refused */
	struct tierd_damon_tier_layout tiers[TIERD_DAMON_MAX_CONTEXTS];
};

/* One physical span of one cgroup's memory to move. */
struct tierd_damos_span {
	size_t cgroup;             /* index into the tick's cgroups */
	size_t from_tier, to_tier;
	uint64_t start, end;       /* physical, page aligned */
	uint64_t bytes;            /* the cgroup's bytes the engine planned in it */
	uint32_t nr_accesses;      /* hottest (promotion: coldest) region in it */
};

/* What one action scheme carries, for accounting its sz_applied. */
struct tierd_damos_slot {
	size_t ctx, scheme;
	size_t cgroup;
	size_t from_tier, to_tier;
	enum tierd_migration_path path;
	uint64_t planned_bytes;
};

struct tierd_damos_batch {
	size_t nr_slots;
	struct tierd_damos_slot slots[TIERD_DAMON_MAX_CONTEXTS * TIERD_DAMON_ACTION_SLOTS];
	size_t nr_deferred;        /* spans left for a later tick: no scheme slot free */
	uint64_t deferred_bytes;
};

/* The node a migration into tier `tier` targets: its node with the most
 * free bytes (lowest nid on a tie), or -1 when the tier has no node. */
int tierd_damon_target_node(const struct tierd_topology *topo, size_t tier);

/* Spans for one engine action of the cgroup whose hotness regions (sorted,
 * disjoint, physical, attributed to it) are given: a MIGRATE is its range;
 * a DEMOTE takes the cgroup's coldest regions of from_tier (fewest
 * accesses, then oldest) until `bytes` are covered, the last one cut short,
 * skipping memory the spans in taken[0..nr_taken) of the same cgroup and
 * source tier already cover (a budget split over two destination tiers
 * would otherwise pick the same coldest pages twice). Appends to out
 * (capacity cap), returns how many were appended, or -E2BIG when out is
 * full (what fit stays). */
int tierd_damos_spans_after(const struct tierd_action *action, const struct tierd_hotness *hot,
			    const struct tierd_damos_span *taken, size_t nr_taken,
			    struct tierd_damos_span *out, size_t cap);

/* Builds the whole DAMON spec: kdamond t monitors tier t with its stat
 * scheme; spans become action schemes in the kdamond of their source tier.
 * Spans of one (cgroup, from, to) are merged across their smallest gaps
 * until every group of the tier fits the free slots (each group keeps at
 * least one; groups that find no slot are deferred, largest first served).
 * memcg_paths[c] is cgroup c's path for the memcg filter. Returns 0,
 * -ENOMEM, or -EINVAL (a tier without physical ranges, too many tiers, a
 * span whose tiers are out of range), told to log at debug level. */
int tierd_damon_build(const struct tierd_damon_layout *layout, const struct tierd_topology *topo,
		      const struct tierd_damos_span *spans, size_t nr_spans,
		      const char *const *memcg_paths, struct tierd_damon_spec *spec,
		      struct tierd_damos_batch *batch, const struct tierd_logger *log);

#endif
