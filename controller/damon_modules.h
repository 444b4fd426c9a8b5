/* DAMON's built-in modules beside tierd's kdamonds, found by their module
 * parameters (/sys/module/damon_{stat,reclaim,lru_sort}/parameters/enabled,
 * "Y" or "N"), never by kernel version (docs/damon-modules.md):
 *  - DAMON_STAT (Linux 6.17+) only monitors, but starts its kdamond
 *    exclusively: while it runs, turning a sysfs kdamond on fails with
 *    EBUSY, and while a sysfs kdamond runs, enabling it fails with EBUSY.
 *    Debian's 7.3 enables it at boot. tierd turns it off while it runs and
 *    back on at exit, unless tierd.json says "damon_stat": "leave".
 *  - DAMON_RECLAIM and DAMON_LRU_SORT reclaim and reorder pages on their
 *    own, against tierd's placement, and also start exclusively: tierd
 *    never turns them off, and runs without DAMON (degraded) while one is
 *    enabled.
 * That tierd turned DAMON_STAT off is recorded in a file under the runtime
 * directory before it writes "N": a tierd that starts after one that died
 * finds the record and turns DAMON_STAT back on at its own exit. */
#ifndef TIERD_DAMON_MODULES_H
#define TIERD_DAMON_MODULES_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"
#include "../policy/policy.h"

#define TIERD_DAMON_MODULE_PARAM "/sys/module/damon_%s/parameters/enabled"
/* Beside the state file (TIERD_DEFAULT_STATE_FILE); holds "Y". */
#define TIERD_DAMON_STAT_RECORD "/run/tierd/damon_stat.stopped"

enum tierd_damon_module {
	TIERD_DAMON_MODULE_STAT,
	TIERD_DAMON_MODULE_RECLAIM,
	TIERD_DAMON_MODULE_LRU_SORT,
	TIERD_DAMON_MODULE_COUNT
};

struct tierd_damon_modules {
	char param[TIERD_DAMON_MODULE_COUNT][TIERD_FILE_PATH_MAX]; /* root + enabled */
	char record[TIERD_FILE_PATH_MAX];                          /* root + record */
	bool present[TIERD_DAMON_MODULE_COUNT]; /* the kernel has the module */
	bool enabled[TIERD_DAMON_MODULE_COUNT]; /* its enabled parameter read "Y" */
	bool stat_stopped; /* tierd (this run or one that died) turned DAMON_STAT off */
};

/* "DAMON_STAT", "DAMON_RECLAIM", "DAMON_LRU_SORT"; NULL out of range. */
const char *tierd_damon_module_name(enum tierd_damon_module which);

/* Reads every module's enabled parameter under root, and whether a record
 * says an earlier tierd turned DAMON_STAT off (then stat_stopped is set:
 * this run restores it). Returns 0 or -errno, told to log at debug level
 * with the file named (log.h). */
int tierd_damon_modules_probe(struct tierd_damon_modules *m, const char *root,
			      const struct tierd_logger *log);

/* Turns DAMON_STAT off when it is enabled, writing the record first.
 * Returns 0 (also when it was off) or -errno, told (the record is removed
 * again when the write fails). */
int tierd_damon_modules_stop_stat(struct tierd_damon_modules *m, const struct tierd_logger *log);

/* Turns DAMON_STAT back on when stat_stopped, then removes the record.
 * tierd's kdamonds must be off first (DAMON_STAT's start is exclusive).
 * Returns 0 (also when there was nothing to restore) or -errno, told; the
 * record stays when the write fails, so a later tierd tries again. */
int tierd_damon_modules_restore(struct tierd_damon_modules *m, const struct tierd_logger *log);

/* The first enabled module tierd does not turn off (DAMON_RECLAIM,
 * DAMON_LRU_SORT, or DAMON_STAT when leave_stat), or
 * TIERD_DAMON_MODULE_COUNT when none is. */
enum tierd_damon_module tierd_damon_modules_conflict(const struct tierd_damon_modules *m,
						     bool leave_stat);

#endif
