/* The daemon's top-level context and its life cycle: start-up checks, the
 * sd_event loop (tick timer, SIGHUP reload, SIGTERM/SIGINT exit, watchdog),
 * sd_notify, and one tick. All mutable state of tierd lives here. */
#ifndef TIERD_DAEMON_H
#define TIERD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "actuator.h"
#include "actuator_kernel.h"
#include "bpf_backend.h"
#include "cgroup_watch.h"
#include "cgroupfs.h"
#include "damon_async.h"
#include "damon_backend.h"
#include "hotness_read.h"
#include "journal.h"
#include "kpagecgroup.h"
#include "ksettings.h"
#include "log.h"
#include "reload_verdict.h"
#include "undo.h"
#include "../policy/engine.h"
#include "../policy/policy.h"
#include "../report/report.h"

/* Command-line settings; each set one wins over tierd.json. */
struct tierd_options {
	const char *root;          /* prefix for /sys and /proc, "/" live */
	const char *config_file;
	bool config_explicit;      /* --config given: a missing file is an error */
	const char *policy_dir;
	const char *metrics_file;
	const char *state_file;
	const char *runtime_dir;   /* NULL: /run/tierd under root */
	enum tierd_log_target log_target;
	bool log_level_set;
	enum tierd_log_level log_level;
	bool once;
	bool dry_run;
	bool read_only;            /* tierctl --live: no metrics, no state file */
};

struct tierd_daemon {
	struct tierd_options opts;
	struct tierd_config cfg;
	struct tierd_logger log;
	struct tierd_topology topo;
	struct tierd_cgroupfs fs;
	struct tierd_cgroup_watch cgroups; /* the cgroup list, kept between ticks */
	struct tierd_policy_set policies;
	struct tierd_engine *engine;
	const struct tierd_actuator_ops *actuator;
	void *actuator_data;       /* &dry_run or &kernel */
	struct tierd_dry_run dry_run;
	struct tierd_kernel_actuator kernel;

	/* The kernel side; untouched with --dry-run. */
	struct tierd_ksettings ksettings;
	bool ksettings_ready;
	struct tierd_damon_backend damon; /* the DAMON worker's while a job runs */
	struct tierd_damon_async damon_async; /* ... and the tick reads its view */
	/* What ticks waited on the kernel: the last and the longest. */
	uint64_t sense_wait_usec, sense_wait_max_usec;
	uint64_t act_wait_usec, act_wait_max_usec;
	struct tierd_kpagecgroup kpagecgroup;
	bool kpagecgroup_open;
	bool kpagecgroup_tried;    /* opened, or failed and said so, once */
	struct tierd_hotness_set hotness;
	struct tierd_bpf_backend bpf;
	sd_event_source *bpf_source; /* the sampler's ring buffer readable */
	struct tierd_migration_stats migrations; /* since start */

	/* The undo record (daemon_undo.h). */
	char runtime_dir[TIERD_FILE_PATH_MAX];
	char undo_path[TIERD_FILE_PATH_MAX];
	char *undo_text;           /* as last written; NULL none */
	bool undo_failing;
	bool have_inherited;       /* a dead tierd's record was found */
	struct tierd_undo inherited;
	/* The reload verdict (reload_verdict.h). */
	uint64_t reload_generation;
	char reload_why[TIERD_RELOAD_MESSAGE_MAX]; /* the first reason of a refusal */

	sd_event *event;
	sd_event_source *timer;
	bool ready;

	struct tierd_journal journal;  /* what was said of each cgroup */
	/* The last tick's failure, logged when it starts or changes: 0 or
	 * its -errno, and the step that failed. */
	int tick_error;
	const char *tick_failed_in;
	bool metrics_failing, state_failing, free_failing;

	uint64_t ticks;
	uint64_t tick_overruns;        /* tick slots skipped: a tick ran past them */
	uint64_t load_errors;
	uint64_t last_load_realtime_usec;
	struct tierd_report last_report;
};

/* Loads configuration, topology, cgroup root and policies. Logs why it
 * fails. Returns 0 or -errno. */
int tierd_daemon_init(struct tierd_daemon *d, const struct tierd_options *opts);
/* One tick: collect what DAMON saw and did, observe, attribute, plan, log
 * changes, act (or record with --dry-run), export. */
int tierd_daemon_tick(struct tierd_daemon *d);
/* Reloads tierd.json and the policies; keeps the old ones unless all of the
 * new ones validate. Returns 0 or the refusal's -errno. */
int tierd_daemon_reload(struct tierd_daemon *d);
/* Runs the event loop until SIGTERM/SIGINT. */
int tierd_daemon_run(struct tierd_daemon *d);
void tierd_daemon_free(struct tierd_daemon *d);

#endif
