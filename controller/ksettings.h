/* The kernel knobs tierd may change, and putting them back: tierd saves a
 * knob's value the first time it sets it and writes that value back on
 * exit (tierd_ksettings_restore), so the machine ends as tierd found it.
 * Paths live under a root prefix (tierd_root_path) so unit tests use a
 * fixture tree.
 *
 * Values are strings as the kernel prints them without the newline:
 * "true"/"false" for demotion_enabled, decimal numbers for the sysctls.
 * tierd writes only canonical values (no sign, no leading zero, no
 * newline), so "the value already there" is a plain string comparison.
 * 6.12 facts (docs/kernel.md §3.2, §4; docs/vm.md): demotion_enabled
 * reads "false" at boot, numa_balancing 1, the promote rate limit 65536.
 * A failure is told to log at debug level, naming the file and what
 * failed (log.h), and its -errno returned. */
#ifndef TIERD_KSETTINGS_H
#define TIERD_KSETTINGS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "log.h"
#include "../policy/policy.h"

/* Longest value kept: "false", or a decimal int (the sysctls are C ints). */
#define TIERD_KSETTING_VALUE_MAX 32

/* Largest numa_balancing tierd writes: a bitmask of NUMA_BALANCING_NORMAL
 * (1) and NUMA_BALANCING_MEMORY_TIERING (2), docs/kernel.md §4.1.
 * 6.12 also takes 4 (its range is 0..SYSCTL_FOUR; seen in the VM), a value
 * without a meaning. */
#define TIERD_KSETTING_NUMA_BALANCING_MAX 3
/* numa_balancing_promote_rate_limit_MBps is proc_dointvec_minmax with min 0
 * and no max ([6.12] kernel/sched/fair.c): INT_MAX is the largest value the
 * kernel takes (INT_MAX + 1 and -1 refused in the VM). */
#define TIERD_KSETTING_RATE_LIMIT_MAX INT_MAX

enum tierd_ksetting_kind {
	TIERD_KSETTING_BOOL, /* "true" / "false" (kstrtobool reads back as these) */
	TIERD_KSETTING_UINT, /* decimal 0..max */
};

/* X(ID, name for logs, kernel path, kind, max for UINT, what a kernel
 * without the file lacks) */
#define TIERD_KSETTINGS(X)                                                                       \
	X(DEMOTION_ENABLED, "demotion_enabled",                                                  \
	  "/sys/kernel/mm/numa/demotion_enabled", TIERD_KSETTING_BOOL, 0,                        \
	  "memory tier demotion (Linux 5.15+, CONFIG_NUMA, CONFIG_MIGRATION)")                   \
	X(NUMA_BALANCING, "numa_balancing",                                                      \
	  "/proc/sys/kernel/numa_balancing", TIERD_KSETTING_UINT,                                \
	  TIERD_KSETTING_NUMA_BALANCING_MAX, "CONFIG_NUMA_BALANCING")                            \
	X(PROMOTE_RATE_LIMIT, "numa_balancing_promote_rate_limit_MBps",                          \
	  "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps", TIERD_KSETTING_UINT,        \
	  TIERD_KSETTING_RATE_LIMIT_MAX, "the NUMA balancing promotion rate limit (Linux 6.0+)")

enum tierd_ksetting {
#define TIERD_KSETTING_ENUM(id, name, path, kind, max, needs) TIERD_KSETTING_##id,
	TIERD_KSETTINGS(TIERD_KSETTING_ENUM)
#undef TIERD_KSETTING_ENUM
	TIERD_KSETTING_COUNT
};

struct tierd_ksetting_state {
	char path[TIERD_FILE_PATH_MAX]; /* root + kernel path */
	bool exists;                    /* the file was there when last looked at */
	bool saved;                     /* original holds the value before tierd's first write */
	bool changed;                   /* tierd's write left it different from original */
	char original[TIERD_KSETTING_VALUE_MAX];
};

struct tierd_ksettings {
	struct tierd_ksetting_state s[TIERD_KSETTING_COUNT];
	/* Called before tierd's first write makes a setting differ from its
	 * original, with that setting already marked changed: the daemon
	 * records the original where a later tierd finds it (undo.h). A
	 * failure cancels the write. NULL: nothing to call. */
	int (*record)(void *data);
	void *record_data;
};

/* Computes the paths under root ("/" or "" for the real machine) and looks
 * which files exist; touches no value. Returns 0 or -ENAMETOOLONG. */
int tierd_ksettings_init(struct tierd_ksettings *ks, const char *root,
			 const struct tierd_logger *log);

/* The setting's name for log lines, e.g. "numa_balancing"; NULL when which
 * is out of range. */
const char *tierd_ksetting_name(enum tierd_ksetting which);

/* Reads the current value (newline stripped) into value. Returns 0;
 * -ENOENT when the file is missing (the message names what the kernel
 * lacks); -EINVAL when it holds more than TIERD_KSETTING_VALUE_MAX - 1
 * bytes or a newline inside; other -errno. */
int tierd_ksetting_get(struct tierd_ksettings *ks, enum tierd_ksetting which, char *value,
		       size_t size, const struct tierd_logger *log);

/* Sets the setting to value (canonical: "true"/"false" or decimal 0..max;
 * else -EINVAL naming what was expected, nothing written). Reads the file
 * first: its value is saved as the original on tierd's first set, and when
 * it already holds value nothing is written (changed stays as it was).
 * After a write, changed says whether the value differs from the original.
 * Returns 0; -ENOENT for a missing file; the write's -errno (e.g. -EINVAL
 * when the kernel refuses it), the setting then unchanged. */
int tierd_ksetting_set(struct tierd_ksettings *ks, enum tierd_ksetting which, const char *value,
		       const struct tierd_logger *log);

/* Takes over the original a dead tierd recorded for the setting named
 * name: kept as the original (not the value found now, which may be the
 * dead tierd's) and marked changed so it is written back on exit. Returns
 * 0, or -ENOENT for a name that is not one of tierd's settings, or -EINVAL
 * for a value tierd would not write. */
int tierd_ksettings_adopt(struct tierd_ksettings *ks, const char *name, const char *original,
			  const struct tierd_logger *log);

/* Writes back the original of every setting tierd changed. Continues past a
 * failure and returns the first -errno (only that one is told); a setting
 * whose write failed stays changed so a later call retries it, the others
 * are done: a second call writes nothing more. Returns 0 when nothing was
 * left to restore. */
int tierd_ksettings_restore(struct tierd_ksettings *ks, const struct tierd_logger *log);

#endif
