/* What tierd's migrations did, per path and tier to tier, since start, and
 * the state of the kernel backends it acts through. Plain structs: the
 * daemon fills them, the report carries them to the state file, metrics and
 * `tierctl status`. */
#ifndef TIERD_MIGSTATS_H
#define TIERD_MIGSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/snapshot.h"

/* Migration paths; X(id, name). */
#define TIERD_MIGRATION_PATHS(X)                                               \
	X(TIERD_PATH_DAMOS_MIGRATE_COLD, "damos_migrate_cold")                 \
	X(TIERD_PATH_DAMOS_MIGRATE_HOT, "damos_migrate_hot")                   \
	X(TIERD_PATH_MEMORY_RECLAIM, "memory_reclaim")                         \
	X(TIERD_PATH_MOVE_PAGES, "move_pages")

enum tierd_migration_path {
#define TIERD_X(id, name) id,
	TIERD_MIGRATION_PATHS(TIERD_X)
#undef TIERD_X
	TIERD_PATH_NR
};

/* Bytes handed to a path (tried), moved as the kernel reports it
 * (succeeded), and not moved (failed: tried - succeeded, whatever the
 * reason: target full, pages busy or gone, quota not reached in time). */
struct tierd_path_stats {
	uint64_t tried_bytes;
	uint64_t succeeded_bytes;
	uint64_t failed_bytes;
	uint64_t calls;           /* requests made on this path */
};

struct tierd_migration_stats {
	struct tierd_path_stats path[TIERD_PATH_NR];
	/* Bytes moved from tier [from] to tier [to], all paths. memory.reclaim
	 * demotes stepwise (N0 -> N1 -> ...), so its bytes count one tier
	 * down from where they were reclaimed. */
	uint64_t matrix[TIERD_MAX_TIERS][TIERD_MAX_TIERS];
};

/* The DAMON backend. */
enum tierd_damon_mode {
	TIERD_DAMON_OFF,        /* not used: --dry-run, or not needed */
	TIERD_DAMON_ABSENT,     /* the kernel has no DAMON sysfs or no paddr */
	TIERD_DAMON_DEGRADED,   /* someone else's kdamonds run: tierd leaves DAMON alone */
	TIERD_DAMON_FAILED,     /* tierd's kdamonds could not be started */
	TIERD_DAMON_RUNNING,
};

#define TIERD_BACKEND_WHY_MAX 256

struct tierd_backend_state {
	enum tierd_damon_mode damon;
	char damon_why[TIERD_BACKEND_WHY_MAX]; /* for every mode but RUNNING/OFF */
	size_t nr_kdamonds;                    /* tierd's, running */
	uint64_t kdamond_restarts;             /* found off behind tierd's back, or after a rejected commit */
	/* What the tick itself waited on the kernel, the last tick's and the
	 * longest: sensing (for DAMON's reading, on its worker) and acting
	 * (memory.reclaim; DAMON's commits too where they run on the tick). */
	uint64_t sense_wait_usec, sense_wait_max_usec;
	uint64_t act_wait_usec, act_wait_max_usec;
	/* DAMON's worker (controller/damon_async.h): readings not ended by the
	 * tick's deadline, and plans not committed while it was busy. */
	uint64_t late_readings, skipped_commits;
	/* Bytes of DAMOS migrations the actuator's pacing left for later
	 * ticks (controller/actuator_kernel.h). */
	uint64_t paced_bytes;
};

/* memory.reclaim's jobs on their worker (controller/reclaim_job.h). */
struct tierd_reclaim_stats {
	uint64_t jobs;             /* ended */
	uint64_t busy_ticks;       /* ticks whose reclaims waited: a job still ran */
	uint64_t deadline_hits;    /* jobs that left cgroups at their deadline */
	uint64_t last_usec, max_usec; /* how long the last and the longest job ran */
};

/* Name of a path or mode, or NULL for a value out of range. */
const char *tierd_migration_path_name(enum tierd_migration_path p);
const char *tierd_damon_mode_name(enum tierd_damon_mode m);
/* Parses a name back; returns 0 or -EINVAL. */
int tierd_migration_path_parse(const char *name, enum tierd_migration_path *ret);
int tierd_damon_mode_parse(const char *name, enum tierd_damon_mode *ret);

/* Adds one request's outcome: tried and succeeded bytes, and where the
 * succeeded bytes went (from, to tiers). */
void tierd_migration_account(struct tierd_migration_stats *s, enum tierd_migration_path p,
			     uint64_t tried, uint64_t succeeded, size_t from_tier, size_t to_tier);

/* Adds src's counts to dst: what a job on the kernel worker accounted
 * apart, added when the tick reaps it. */
void tierd_migration_stats_add(struct tierd_migration_stats *dst,
			       const struct tierd_migration_stats *src);

#endif
