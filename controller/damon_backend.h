/* tierd's DAMON backend, the I/O shell around damon_plan.c: one kdamond
 * per tier, started at daemon start, read and reconfigured each tick,
 * turned off at exit. The daemon owns one struct tierd_damon_backend.
 *
 * Each tick:
 *  1. collect, before the cgroups are observed: checks tierd's kdamonds are
 *     still on (restarts one turned off behind its back or stopped by a
 *     rejected commit), commits last tick's action schemes inert (so
 *     nothing moves between the observation and the new plan; a commit
 *     keeps the counters of the schemes that keep their index), then reads
 *     their sz_applied, which now holds every byte they moved, and accounts
 *     it as the growth since the last reading of that index; re-reads the stat
 *     scheme's tried regions of every tier whose profiling period (the
 *     strategy's, Mole §4.3) has passed;
 *  2. the daemon observes, attributes the regions to cgroups, plans;
 *  3. apply: turns the plan's migrations into DAMOS schemes and commits
 *     the kdamonds whose configuration changed.
 * DAMON sysfs commands block up to one aggregation interval each and are
 * served one at a time by the kernel, so aggregation intervals stay short
 * (tierd_profile_aggr_usec()). */
#ifndef TIERD_DAMON_BACKEND_H
#define TIERD_DAMON_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "damon.h"
#include "damon_modules.h"
#include "damon_plan.h"
#include "log.h"
#include "../report/migstats.h"

/* Regions read per tier and tick; DAMON keeps at most max_nr_regions. */
#define TIERD_DAMON_READ_REGIONS TIERD_DAMON_MAX_NR_REGIONS
#define TIERD_DAMON_MAX_ACTIONS (TIERD_DAMON_MAX_CONTEXTS * TIERD_DAMON_ACTION_SLOTS)
/* A start that failed busy is retried after 1 s, then twice as long each
 * time, up to a minute: a DAMON user tierd cannot see keeps it failing, and
 * each try costs a tick up to TIERD_DAMON_TICK_BUSY_RETRIES waits. */
#define TIERD_DAMON_RETRY_MIN_USEC 1000000ull
#define TIERD_DAMON_RETRY_MAX_USEC 60000000ull

struct tierd_damon_backend {
	char root[TIERD_FILE_PATH_MAX];
	struct tierd_damon kd;
	struct tierd_damon_features features;
	struct tierd_damon_layout layout;
	struct tierd_damon_spec *spec;       /* in force; NULL until started */
	struct tierd_damos_batch *batch;     /* the action schemes in force */
	uint64_t *slot_cgroup_id;            /* batch->slots[i]'s cgroup */
	/* sz_applied of kdamond k's scheme s as last read: the kernel's
	 * counter runs on across commits while the scheme keeps its index, and
	 * starts from 0 for a scheme a commit adds or an `on` creates. */
	uint64_t applied_base[TIERD_DAMON_MAX_CONTEXTS][TIERD_DAMON_MAX_SCHEMES];
	size_t nr_regions[TIERD_MAX_TIERS];
	struct tierd_region *regions[TIERD_MAX_TIERS]; /* last reading, per tier */
	uint64_t read_usec[TIERD_MAX_TIERS];             /* when it was taken */
	uint64_t period_usec[TIERD_MAX_TIERS];           /* profiling period asked for */
	struct tierd_backend_state state;
	struct tierd_damon_modules modules;  /* DAMON_STAT & co., restored at stop */
	bool start_pending;                  /* start failed with -EAGAIN: retried at retry_usec */
	uint64_t retry_usec;                 /* monotonic; 0: at the next tick */
	uint64_t retry_backoff_usec;         /* the wait before the next retry */
};

/* What collect learnt of one action scheme of last tick. */
struct tierd_damon_moved {
	uint64_t cgroup_id;
	bool promotion;
	uint64_t planned_bytes, moved_bytes;
};

/* Probes DAMON under root and starts tierd's kdamonds over the tiers of
 * topo. DAMON's modules first (damon_modules.h): DAMON_STAT is turned off
 * when stop_damon_stat, else it, like an enabled DAMON_RECLAIM or
 * DAMON_LRU_SORT, means degraded mode. Never fails the daemon: a kernel
 * without DAMON, someone else's kdamonds or modules (degraded mode) or a
 * failed start end in b->state with the reason, logged once. */
void tierd_damon_backend_start(struct tierd_damon_backend *b, const char *root,
			       const struct tierd_topology *topo, bool stop_damon_stat,
			       const struct tierd_logger *log);

/* Step 1 above. Fills moved[] (room for TIERD_DAMON_MAX_ACTIONS) with
 * last tick's action schemes and returns how many; stats gets the
 * accounting. now_usec: monotonic. */
size_t tierd_damon_backend_collect(struct tierd_damon_backend *b, uint64_t now_usec,
				   struct tierd_migration_stats *stats,
				   struct tierd_damon_moved *moved, const struct tierd_logger *log);

/* Step 3 above: spans of the tick's migrations (damon_plan.h), memcg paths
 * and ids per cgroup index, per-tier profiling periods (0 = none asked). */
void tierd_damon_backend_apply(struct tierd_damon_backend *b, const struct tierd_topology *topo,
			       const struct tierd_damos_span *spans, size_t nr_spans,
			       const char *const *memcg_paths, const uint64_t *cgroup_ids,
			       const uint64_t *period_usec, const struct tierd_logger *log);

/* Turns tierd's kdamonds off and removes them, then turns DAMON_STAT back
 * on if tierd turned it off. */
void tierd_damon_backend_stop(struct tierd_damon_backend *b, const struct tierd_logger *log);

#endif
