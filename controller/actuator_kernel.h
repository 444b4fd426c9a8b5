/* The actuator that acts on the kernel: the plan's migrations of physical
 * ranges become DAMOS schemes (damon_backend.h), its promotions of sampled
 * pages move_pages(2) calls (bpf_backend.h), and memory.reclaim enforces a
 * top-tier budget when DAMON cannot: no DAMON, or a cgroup still over its
 * tier-0 max after TIERD_RECLAIM_FALLBACK_TICKS ticks of DAMOS demotion.
 * All three run off the tick's thread, each on its own kernel worker
 * (memory.reclaim's: reclaim_job.h). */
#ifndef TIERD_ACTUATOR_KERNEL_H
#define TIERD_ACTUATOR_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actuator.h"
#include "bpf_backend.h"
#include "cgroupfs.h"
#include "damon_async.h"
#include "kernel_worker.h"
#include "ksettings.h"
#include "log.h"
#include "reclaim_job.h"
#include "../report/migstats.h"

/* Ticks a cgroup stays over its tier-0 max without getting any closer
 * before memory.reclaim steps in: DAMOS applies within an aggregation
 * interval, so three ticks without progress mean it cannot do the job
 * (no hotness attributed yet, pages it cannot isolate). */
#define TIERD_RECLAIM_FALLBACK_TICKS 3
/* Spans handed to DAMON per tick; the rest waits for the next tick. */
#define TIERD_ACTUATOR_MAX_SPANS 4096

/* DAMOS pacing: the bytes of migrations one kdamond is handed per tick,
 * what the global migration budget refills in a tick (80 MiB at the
 * default 800 MiB per 10 s and 1 s ticks), at least a page. A kdamond
 * migrating answers DAMON's sysfs commands only when it is done, and every
 * tier's reading waits for it: the budget's bucket may hold a period's
 * bytes, and handed at once in the VM's `contended` scenario they held tier
 * 0's kdamond about 5 s under TCG while the hot tenant's promotion from
 * tier 3 waited (docs/design.md, "DAMOS pacing"). What is left costs no
 * budget and comes back with a later tick's plan. */
uint64_t tierd_damos_tick_bytes(const struct tierd_migration_budget *global, uint64_t tick_usec);

/* How memory.reclaim last went for a cgroup: logged when it changes, so a
 * cgroup reclaimed tick after tick (degraded mode) is one line, not one a
 * tick. */
enum tierd_reclaim_outcome {
	TIERD_RECLAIM_NONE,        /* not reclaimed since it went over */
	TIERD_RECLAIM_GAVE_UP,     /* tier 0 gave up what was asked */
	TIERD_RECLAIM_SHORT,       /* less than asked (EAGAIN or less moved) */
	TIERD_RECLAIM_FAILED,
};

struct tierd_over_count {
	uint64_t cgroup_id;
	uint64_t over_bytes;       /* over its tier-0 max at the last tick */
	uint32_t ticks;            /* consecutive ticks over it without shrinking */
	enum tierd_reclaim_outcome reclaim; /* last logged */
};

struct tierd_kernel_actuator {
	struct tierd_damon_async *damon; /* commits on its worker, state from its view */
	struct tierd_bpf_backend *bpf; /* promotions of sampled pages; NULL: none */
	const struct tierd_cgroupfs *fs;
	struct tierd_ksettings *ks;
	bool manage_demotion;      /* tierd.json manage_demotion */
	bool demotion_warned;      /* said once that reclaim would not demote */
	struct tierd_migration_stats *stats;
	const struct tierd_logger *log;
	uint64_t wait_usec;        /* the last apply's kernel calls on the tick */
	bool damon_skipped;        /* the last apply's DAMON schemes not committed */
	bool sampled_skipped;      /* the last apply's sampled promotions not started */
	/* DAMOS pacing, on once started (not with --once, where nothing
	 * waits on a reading): per action of the last apply, the cost it
	 * left for a later tick (NULL: none left); bytes left since start. */
	bool paced;
	uint64_t *left_cost;
	uint64_t paced_bytes;
	size_t nr_over;
	struct tierd_over_count *over;
	/* memory.reclaim: without a started worker (--once, unit tests) a
	 * job runs at once on the tick. */
	struct tierd_kernel_worker reclaim_worker;
	struct tierd_reclaim_job reclaim_job;
	struct tierd_reclaim_stats reclaim_stats;
};

extern const struct tierd_actuator_ops tierd_kernel_actuator_ops;

/* Starts memory.reclaim's worker and the DAMOS pacing; until then (or
 * when it fails: returns -errno) reclaims run on the tick. */
int tierd_kernel_actuator_start(struct tierd_kernel_actuator *k);

/* Waits for a reclaim under way and accounts it, ends its worker, frees
 * the over-max counts. */
void tierd_kernel_actuator_free(struct tierd_kernel_actuator *k);

#endif
