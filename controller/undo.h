/* The undo record: everything tierd must put back, kept in the runtime
 * directory (/run/tierd/undo; systemd keeps the directory across restarts
 * with RuntimeDirectoryPreserve=restart) and rewritten before tierd changes
 * the kernel, so that whatever ends tierd (SIGKILL, the watchdog, a crash)
 * the next tierd, or `tierctl cleanup` run by ExecStopPost=, can:
 *  - write back each kernel setting's original, as tierd first found it
 *    (not what a crashed tierd left: numa_balancing=2 is tierd's own);
 *  - turn off the kdamonds tierd started, told apart from anyone else's by
 *    their kdamond thread's pid (kdamonds/K/pid reads the pid of the
 *    kthread while it runs, -1 when off: a pid is not reused while the
 *    thread lives, so a kdamond whose pid still reads as recorded is the
 *    one tierd turned on; one turned off and on again by someone else, or
 *    a stranger's at the same index, has another pid and is left alone);
 *  - remove the metrics file, so nothing serves a dead tierd's figures.
 * The file is text, one item per line, written atomically:
 *
 *   tierd-undo 1
 *   pid 1234
 *   metrics /var/lib/prometheus/node-exporter/tierd.prom
 *   setting numa_balancing 1
 *   setting numa_balancing_promote_rate_limit_MBps 65536
 *   kdamond 0 4567
 *
 * The parser is strict and pure (a buffer in, a struct out): anything not
 * exactly this shape is refused, the line and what was expected told to
 * log at debug level (log.h). */
#ifndef TIERD_UNDO_H
#define TIERD_UNDO_H

#include <stddef.h>

#include "damon.h"
#include "ksettings.h"
#include "log.h"
#include "../policy/policy.h"

#define TIERD_DEFAULT_RUNTIME_DIR "/run/tierd"
#define TIERD_UNDO_FILE "undo"
#define TIERD_UNDO_MAGIC "tierd-undo 1"
/* Settings a record holds: more than tierd's (TIERD_KSETTING_COUNT), so a
 * record of a later tierd with more settings still parses. */
#define TIERD_UNDO_MAX_SETTINGS 16
#define TIERD_UNDO_NAME_MAX 64

struct tierd_undo_setting {
	char name[TIERD_UNDO_NAME_MAX];        /* [A-Za-z0-9_]+ */
	char value[TIERD_KSETTING_VALUE_MAX];  /* [A-Za-z0-9_.-]+ */
};

struct tierd_undo_kdamond {
	unsigned index;                        /* kdamonds/<index> */
	int pid;                               /* its thread's pid when tierd owned it */
};

struct tierd_undo {
	int pid;                               /* the tierd that wrote it */
	char metrics_file[TIERD_FILE_PATH_MAX]; /* "" none */
	size_t nr_settings;
	struct tierd_undo_setting settings[TIERD_UNDO_MAX_SETTINGS];
	size_t nr_kdamonds;
	struct tierd_undo_kdamond kdamonds[TIERD_DAMON_MAX_CONTEXTS];
};

/* Parses a record. Returns 0, or -EINVAL, told as "line N: expected ...".
 * Pure. */
int tierd_undo_parse(const char *text, size_t len, struct tierd_undo *out,
		     const struct tierd_logger *log);

/* The record as text (malloc'd into *ret_text). Returns 0, -EINVAL for a
 * record the parser would refuse, or -ENOMEM. Pure. */
int tierd_undo_format(const struct tierd_undo *u, char **ret_text, const struct tierd_logger *log);

/* The record of what tierd holds now: the settings it changed (with their
 * originals), the kdamonds it runs (with their pids), its metrics file. */
void tierd_undo_build(const struct tierd_ksettings *ks, const struct tierd_damon *kd,
		      int pid, const char *metrics_file, struct tierd_undo *out);

/* dir/undo into path. Returns 0 or -ENAMETOOLONG. */
int tierd_undo_path(const char *dir, char *path, size_t size);

/* Reads and parses path. Returns 0, -ENOENT (not told) when there is none,
 * or -errno, told with the file named. */
int tierd_undo_load(const char *path, struct tierd_undo *out, const struct tierd_logger *log);

/* Writes text to path atomically (a reader sees the old or the new record,
 * never half of one). Returns 0 or -errno. */
int tierd_undo_write(const char *path, const char *text);

/* Whether the tierd that wrote u still runs (a live process named tierd
 * with its pid, other than this one). */
bool tierd_undo_writer_alive(const struct tierd_undo *u);

#endif
