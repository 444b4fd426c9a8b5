/* The DAMON kdamond lifecycle through sysfs (docs/kernel.md §1), under
 * a root prefix so unit tests can point it at a fixture tree.
 *
 * tierd owns only the kdamonds it created: when nr_kdamonds is already > 0
 * some other user (damo, a DAMON module, the machine's infrastructure) runs
 * DAMON, and tierd leaves it alone (-EBUSY, degraded mode).
 *
 * 6.12 facts this code is built around (docs/kernel.md §1, §1.1):
 *  - only one context per kdamond, so each context of a spec gets its own
 *    kdamond (kdamond K <-> spec context K);
 *  - writing an nr_* file re-creates its children with defaults, so every
 *    nr_* file is written first, then the children, then the state command;
 *  - access pattern min/max all default to 0: all six are always written;
 *  - a failed `commit` stops the kdamond while the write succeeds: `state`
 *    is re-read after `on` and after every `commit`;
 *  - `state` writes return -EBUSY while another DAMON sysfs op runs: retried
 *    TIERD_DAMON_BUSY_RETRIES times.
 * A failure is told to log at debug level, naming the file and what
 * failed (log.h), and its -errno returned. */
#ifndef TIERD_DAMON_H
#define TIERD_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "../policy/policy.h"

#define TIERD_DAMON_ADMIN "/sys/kernel/mm/damon/admin"
#define TIERD_DAMON_MAX_CONTEXTS TIERD_MAX_TIERS /* = kdamonds, one context each (6.12): one per tier */
#define TIERD_DAMON_MAX_REGIONS 16 /* physical ranges per target */
#define TIERD_DAMON_MAX_SCHEMES 16 /* one stat scheme + a tick's actions */
#define TIERD_DAMON_OPS_MAX 16     /* "vaddr", "fvaddr", "paddr" */
/* 5 s: under load (seen under TCG) a kdamond holding the sysfs lock in
 * its callbacks can be descheduled for over a second. */
#define TIERD_DAMON_BUSY_RETRIES 250
#define TIERD_DAMON_BUSY_RETRY_US 20000
/* A start retried from a tick waits at most 10 x 20 ms = 200 ms, a fifth
 * of the default tick, so a start that cannot succeed never stalls one. */
#define TIERD_DAMON_TICK_BUSY_RETRIES 10
/* The "no upper bound" values for access pattern maxima. */
#define TIERD_DAMON_SZ_UNLIMITED UINT64_MAX
#define TIERD_DAMON_NR_UNLIMITED UINT32_MAX

struct tierd_damon_features {
	bool present;       /* admin/ exists (CONFIG_DAMON_SYSFS) */
	bool probed;        /* the per-scheme files below were looked at */
	bool op_vaddr, op_fvaddr, op_paddr;
	bool target_nid;    /* schemes/<S>/target_nid: 6.11 */
	bool filter_allow;  /* filters/<F>/allow: 6.14 */
	bool split_filters; /* schemes/<S>/{core,ops}_filters/: 7.2 */
	bool dests;         /* schemes/<S>/dests/: 6.17 */
	bool goal_nid;      /* quotas/goals/<G>/nid: 6.16 */
};

enum tierd_damon_action {
	TIERD_DAMON_ACTION_STAT,
	TIERD_DAMON_ACTION_MIGRATE_HOT,
	TIERD_DAMON_ACTION_MIGRATE_COLD,
};

struct tierd_damon_region {
	uint64_t start, end; /* physical addresses, [start, end) */
};

struct tierd_damon_scheme_spec {
	enum tierd_damon_action action;
	int target_nid;                     /* -1: none (stat) */
	uint64_t sz_min, sz_max;            /* bytes */
	uint32_t nr_accesses_min, nr_accesses_max; /* samples per aggregation */
	uint32_t age_min, age_max;          /* aggregation intervals */
	uint64_t apply_interval_us;         /* 0: every aggregation */
	uint64_t quota_bytes;               /* 0: no quota */
	uint64_t quota_reset_ms;
	/* Non-empty: a memcg filter with matching N, i.e. act only on this
	 * cgroup (exact memcg, not its descendants); path relative to the
	 * cgroup2 mount, e.g. "/test". */
	char memcg_path[TIERD_CGROUP_PATH_MAX];
	/* Act only inside [addr_start, addr_end): written as addr filters
	 * rejecting what lies below and above (see damon.c for why not one
	 * filter with matching N), before the memcg filter. */
	bool has_addr;
	uint64_t addr_start, addr_end;
};

struct tierd_damon_ctx_spec {
	char ops[TIERD_DAMON_OPS_MAX];      /* "paddr" */
	uint64_t sample_us, aggr_us, update_us;
	uint64_t min_nr_regions, max_nr_regions;
	size_t nr_regions;
	struct tierd_damon_region regions[TIERD_DAMON_MAX_REGIONS];
	size_t nr_schemes;
	struct tierd_damon_scheme_spec schemes[TIERD_DAMON_MAX_SCHEMES];
};

struct tierd_damon_spec {
	size_t nr_contexts;
	struct tierd_damon_ctx_spec contexts[TIERD_DAMON_MAX_CONTEXTS];
};

/* A running set of kdamonds tierd created. */
struct tierd_damon {
	char admin[TIERD_FILE_PATH_MAX]; /* root + TIERD_DAMON_ADMIN */
	size_t nr_kdamonds;              /* ours: 0..nr_kdamonds-1 */
	uint64_t nr_foreign;             /* -EBUSY from start: the kdamonds someone else runs */
	bool running;
	/* kdamonds/K/pid read after tierd turned K on: what proves the
	 * kdamond is tierd's to a later tierd (undo.h); 0 unknown. */
	int pid[TIERD_DAMON_MAX_CONTEXTS];
};

/* What tierd_damon_take_back found of a kdamond a record says tierd ran. */
enum tierd_kdamond_verdict {
	TIERD_KDAMOND_TAKEN_BACK,  /* its pid read as recorded: turned off */
	TIERD_KDAMOND_NOT_RUNNING, /* no such kdamond, or off (pid -1) */
	TIERD_KDAMOND_FOREIGN,     /* runs with another pid: not tierd's */
};

struct tierd_kdamond_claim {
	size_t index;                    /* in: kdamonds/<index> */
	int pid;                         /* in: its pid while tierd ran it */
	enum tierd_kdamond_verdict verdict; /* out */
	int now_pid;                     /* out: kdamonds/<index>/pid now */
};

struct tierd_damon_tried_region {
	uint64_t start, end;
	uint32_t nr_accesses;
	uint32_t age;
};

/* Which DAMON features this kernel has. When no kdamond exists, creates a
 * throw-away kdamond with one context, scheme, filter and quota goal, checks
 * which files exist and sets nr_kdamonds back to 0. When someone else's
 * kdamond exists, only reads: its kdamond 0 tells what its tree has, and the
 * per-scheme features stay false with probed=false if it has no scheme.
 * Returns 0 (features->present false when DAMON sysfs is absent) or
 * -errno. */
int tierd_damon_probe(const char *root, struct tierd_damon_features *features,
		      const struct tierd_logger *log);

/* Creates one kdamond per spec context, configures it and turns it on.
 * -EBUSY (nothing written) when kdamonds already exist, d->nr_foreign
 * saying how many; -EAGAIN when a
 * write stayed busy past busy_retries retries (TIERD_DAMON_BUSY_RETRIES at
 * start-up; fewer when a tick retries, so that it never stalls), also
 * what an exclusive DAMON user the module probe did not know gives (try
 * again later); -EINVAL
 * for a bad spec; -EIO when the kdamond is not "on" afterwards; other
 * -errno from sysfs. On failure the kdamonds created are removed again;
 * when that fails too, d->nr_kdamonds still counts them, for a
 * tierd_damon_stop before the next start. Only the first failure is told. */
int tierd_damon_start(const char *root, const struct tierd_damon_spec *spec, unsigned busy_retries,
		      struct tierd_damon *d, const struct tierd_logger *log);

/* Rewrites running kdamond ctx's files from spec context ctx and commits;
 * -EIO when the kdamond is not "on" after the commit (6.12: a bad input,
 * e.g. a removed memcg_path, stops it silently), -EINVAL when ctx is not
 * one of the kdamonds tierd started. */
int tierd_damon_commit_ctx(struct tierd_damon *d, const struct tierd_damon_spec *spec, size_t ctx,
			   const struct tierd_logger *log);

/* Asks kdamond ctx for scheme's tried regions (blocks up to one apply
 * interval in the kernel) and reads up to n of them into out, ordered by
 * start. Returns how many were read, or -errno. */
int tierd_damon_read_tried_regions(struct tierd_damon *d, size_t ctx, size_t scheme,
				   struct tierd_damon_tried_region *out, size_t n,
				   const struct tierd_logger *log);

/* Turns our kdamonds off and sets nr_kdamonds back to 0 when it still holds
 * only ours. Returns 0 or the first -errno; when an "off" failed, nothing
 * is removed and d still counts its kdamonds as running, for the next
 * stop to turn off. */
int tierd_damon_stop(struct tierd_damon *d, const struct tierd_logger *log);

/* Takes back the kdamonds a dead tierd left running: each claimed kdamond
 * whose pid still reads as claimed is turned off; any other is left alone
 * (verdicts in c[]). When then every kdamond there is was proven tierd's,
 * nr_kdamonds is set to 0 (*removed true) so a new tierd can start its
 * own. Returns 0 or the first -errno (the other claims are still looked
 * at). */
int tierd_damon_take_back(const char *root, struct tierd_kdamond_claim *c, size_t n,
			  bool *removed, const struct tierd_logger *log);

/* A scheme's counters (stats/), as of the last update_schemes_stats. */
struct tierd_damon_scheme_stats {
	uint64_t nr_tried, sz_tried;
	uint64_t nr_applied, sz_applied; /* sz_applied: bytes really migrated */
	uint64_t qt_exceeds;
};

/* Asks kdamond ctx to refresh its schemes' stats (blocks up to one
 * aggregation interval) and reads the first n schemes'. Returns 0 or -errno. */
int tierd_damon_read_stats(struct tierd_damon *d, size_t ctx, struct tierd_damon_scheme_stats *out,
			   size_t n, const struct tierd_logger *log);

/* Reads whether kdamond ctx is "on" (someone may have turned it off, or a
 * rejected commit stopped it). Returns 0 or -errno. */
int tierd_damon_is_on(struct tierd_damon *d, size_t ctx, bool *on, const struct tierd_logger *log);

/* Rewrites kdamond ctx's files from spec context ctx and turns it on again.
 * Returns 0, -EIO when it does not stay on, or -errno. */
int tierd_damon_restart(struct tierd_damon *d, const struct tierd_damon_spec *spec, size_t ctx,
			const struct tierd_logger *log);

const char *tierd_damon_action_name(enum tierd_damon_action action);

#endif
