/* DAMON's commits and reads off the tick's thread (docs/design.md, "Kernel
 * calls and the tick"). A DAMON sysfs command waits for the kdamond, and a
 * kdamond applying a large migration answers only when it is done: in the
 * test VM a collect waited 5.8 to 7.0 s behind tick 1's 736 MiB
 * migrate_cold. So collect and apply run as jobs on a kernel worker, and the
 * backend belongs to the worker while one runs. The tick works from a view
 * of the backend (its state, layout and last regions) copied when a job
 * ends, and waits for a collect at most until a deadline; after it, the
 * tick goes on with the view it has, and the collect's results come to a
 * later tick.
 *
 * Without a started worker (--once, tierctl, unit tests) every step runs
 * at once on the caller's thread and the view follows the backend. */
#ifndef TIERD_DAMON_ASYNC_H
#define TIERD_DAMON_ASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "damon_backend.h"
#include "kernel_worker.h"

/* What the tick reads of DAMON: the backend's as of the last ended job. */
struct tierd_damon_view {
	struct tierd_backend_state state;
	struct tierd_damon_layout layout;
	size_t nr_regions[TIERD_MAX_TIERS];
	struct tierd_region *regions[TIERD_MAX_TIERS];
};

/* One job: a collect, or an apply with copies of what it needs. */
struct tierd_damon_job {
	struct tierd_damon_backend *b;
	struct tierd_logger log;   /* a copy: a reload may change the tick's */
	bool collect;
	bool follows_apply;         /* a collect submitted after an apply job */
	uint64_t now_usec;
	struct tierd_migration_stats stats; /* the collect's, added at reap */
	size_t nr_moved;
	struct tierd_damon_moved moved[TIERD_DAMON_MAX_ACTIONS];
	struct tierd_topology topo;
	size_t nr_spans, nr_cgroups;
	struct tierd_damos_span *spans;
	char (*paths)[TIERD_CGROUP_PATH_MAX];
	const char **path_of;
	uint64_t *ids;
	uint64_t period_usec[TIERD_MAX_TIERS];
};

struct tierd_damon_async {
	struct tierd_kernel_worker worker;
	struct tierd_damon_job job;
	struct tierd_damon_view view;
	/* The tick's collect read what a whole interval of the last plan's
	 * schemes did: it ended in time, after that plan was committed. A
	 * tick without it says nothing of whether DAMON makes progress. */
	bool fresh;
	bool apply_pending;         /* an apply submitted since the last collect */
	uint64_t late_collects;     /* collects that had not ended by their deadline */
	uint64_t skipped_applies;   /* plans not committed: the worker was busy */
};

/* threaded: start the worker (the daemon's event loop); else run every
 * step at once. The view is taken from b. Returns 0 or -errno (then
 * nothing runs threaded). */
int tierd_damon_async_start(struct tierd_damon_async *a, struct tierd_damon_backend *b,
			    bool threaded);

/* tierd_damon_backend_collect() for this tick: waits for a job under way
 * until deadline_usec (monotonic) at most and reaps it: a collect's
 * accounting added to stats and its moved[] (room for
 * TIERD_DAMON_MAX_ACTIONS) returned, the view refreshed. A collect that
 * ended so is this tick's reading; otherwise the tick's own collect runs,
 * waited for until the same deadline. *ret_fresh: whether the view is a
 * reading taken since the last tick. Returns the moved[] entries filled. */
size_t tierd_damon_async_collect(struct tierd_damon_async *a, uint64_t now_usec,
				 uint64_t deadline_usec, struct tierd_migration_stats *stats,
				 struct tierd_damon_moved *moved, bool *ret_fresh,
				 const struct tierd_logger *log);

/* tierd_damon_backend_apply() as a job (copies of the arguments), unless a
 * job has not been reaped: then this tick's schemes are not committed
 * (counted in skipped_applies), last tick's stay stopped, and it returns
 * false (the caller gives the plan's DAMON actions back to the budgets). */
bool tierd_damon_async_apply(struct tierd_damon_async *a, const struct tierd_topology *topo,
			     const struct tierd_damos_span *spans, size_t nr_spans,
			     const char *const *memcg_paths, const uint64_t *cgroup_ids,
			     size_t nr_cgroups, const uint64_t *period_usec,
			     const struct tierd_logger *log);

/* Waits for a job under way, adds its accounting to stats, ends the
 * thread, frees the view. The backend is the caller's again. */
void tierd_damon_async_stop(struct tierd_damon_async *a, struct tierd_migration_stats *stats);

/* The view taken from the backend again (it must not be busy). */
void tierd_damon_async_refresh(struct tierd_damon_async *a);

#endif
