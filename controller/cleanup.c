/* tierctl cleanup; see cleanup.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "damon.h"
#include "damon_modules.h"
#include "ksettings.h"
#include "undo.h"

/* The file of the setting named name, for messages. */
static const char *setting_path(const struct tierd_ksettings *ks, const char *name)
{
	for (size_t k = 0; k < TIERD_KSETTING_COUNT; k++)
		if (strcmp(tierd_ksetting_name((enum tierd_ksetting)k), name) == 0)
			return ks->s[k].path;
	return name;
}

static int restore_settings(const char *root, const struct tierd_undo *u,
			    const struct tierd_logger *log)
{
	struct tierd_ksettings ks;
	int r, first = 0;

	r = tierd_ksettings_init(&ks, root, log);
	if (r < 0) {
		tierd_log_ev(log, TIERD_LOG_ERR, "setting-not-restored", NULL, NULL, -1, 0,
			     "kernel settings: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; i < u->nr_settings; i++) {
		const struct tierd_undo_setting *s = &u->settings[i];

		r = tierd_ksettings_adopt(&ks, s->name, s->value, log);
		if (r < 0) {
			tierd_log_ev(log, TIERD_LOG_WARNING, "setting-not-restored", NULL, NULL, -1, 0,
				 "%s not restored to %s: %s", s->name, s->value,
				 r == -ENOENT ? "not a setting tierd changes"
					      : "not a value tierd writes");
			continue;
		}
		r = tierd_ksettings_restore(&ks, log);
		if (r < 0) {
			tierd_log_ev(log, TIERD_LOG_ERR, "setting-not-restored", NULL, NULL, -1, 0,
				 "%s not restored to %s: %s: %s", s->name, s->value,
				 setting_path(&ks, s->name), strerror(-r));
			if (!first)
				first = r;
			continue;
		}
		tierd_log_ev(log, TIERD_LOG_NOTICE, "setting-restored", NULL, NULL, -1, 0,
			 "%s restored to %s, as before tierd (pid %d) changed it", s->name, s->value,
			 u->pid);
	}
	return first;
}

static int stop_kdamonds(const char *root, const struct tierd_undo *u,
			 const struct tierd_logger *log)
{
	struct tierd_kdamond_claim c[TIERD_DAMON_MAX_CONTEXTS];
	bool removed = false;
	int r;

	if (!u->nr_kdamonds)
		return 0;
	for (size_t i = 0; i < u->nr_kdamonds; i++)
		c[i] = (struct tierd_kdamond_claim){ .index = u->kdamonds[i].index,
						     .pid = u->kdamonds[i].pid };
	r = tierd_damon_take_back(root, c, u->nr_kdamonds, &removed, log);
	for (size_t i = 0; i < u->nr_kdamonds; i++) {
		if (c[i].verdict == TIERD_KDAMOND_TAKEN_BACK)
			tierd_log_ev(log, TIERD_LOG_NOTICE, "kdamond-taken-back", NULL, NULL, -1, 0,
				 "kdamond %zu (pid %d) of tierd (pid %d) turned off", c[i].index,
				 c[i].pid, u->pid);
		else if (c[i].verdict == TIERD_KDAMOND_FOREIGN)
			tierd_log_ev(log, TIERD_LOG_WARNING, "kdamond-foreign", NULL, NULL, -1, 0,
				 "kdamond %zu runs with pid %d, not the recorded %d: not tierd's, left alone",
				 c[i].index, c[i].now_pid, c[i].pid);
	}
	if (r < 0)
		tierd_log_ev(log, TIERD_LOG_ERR, "kdamond-not-taken-back", NULL, NULL, -1, 0,
			 "tierd's kdamonds not all turned off: %s", strerror(-r));
	else if (removed)
		tierd_log_ev(log, TIERD_LOG_INFO, "kdamonds-removed", NULL, NULL, -1, 0, "tierd's kdamonds removed (nr_kdamonds 0)");
	return r;
}

/* DAMON_STAT, turned off by tierd and recorded apart (damon_modules.h),
 * turned on again once tierd's kdamonds are off (its start is
 * exclusive). */
static int restore_damon_stat(const char *root, const struct tierd_logger *log)
{
	struct tierd_damon_modules m;
	int r;

	r = tierd_damon_modules_probe(&m, root, log);
	if (r == 0 && !m.stat_stopped)
		return 0;
	if (r == 0)
		r = tierd_damon_modules_restore(&m, log);
	if (r < 0)
		tierd_log_ev(log, TIERD_LOG_ERR, "damon-stat-restore-failed", NULL, NULL, -1, 0,
			     "DAMON_STAT not turned on again: %s", strerror(-r));
	else
		tierd_log_ev(log, TIERD_LOG_NOTICE, "damon-stat-restored", NULL, NULL, -1, 0,
			     "DAMON_STAT, turned off by tierd, turned on again");
	return r;
}

int tierd_cleanup(const char *root, const char *runtime_dir, const struct tierd_logger *log)
{
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_log_keep keep;
	struct tierd_undo u;
	int r, r2;

	r = tierd_undo_path(runtime_dir, path, sizeof(path));
	if (r < 0) {
		tierd_log(log, TIERD_LOG_ERR, "%s/%s: path too long", runtime_dir, TIERD_UNDO_FILE);
		return r;
	}
	/* tierctl's answer names the line a malformed record fails at. */
	r = tierd_undo_load(path, &u, tierd_log_keep(&keep, log));
	if (r == -ENOENT) {
		tierd_log(log, TIERD_LOG_INFO, "nothing to clean up: no %s", path);
		return restore_damon_stat(root, log);
	}
	if (r < 0) {
		tierd_log_ev(log, TIERD_LOG_ERR, "undo-unreadable", NULL, NULL, -1, 0,
			     "undo record unreadable: %s", tierd_log_kept(&keep, r));
		return r;
	}
	if (tierd_undo_writer_alive(&u)) {
		tierd_log(log, TIERD_LOG_ERR,
			  "tierd (pid %d) still runs and puts the kernel back itself when it stops; nothing done",
			  u.pid);
		return -EBUSY;
	}
	r = restore_settings(root, &u, log);
	r2 = stop_kdamonds(root, &u, log);
	if (r == 0)
		r = r2;
	r2 = restore_damon_stat(root, log);
	if (r == 0)
		r = r2;
	if (u.metrics_file[0]) {
		if (unlink(u.metrics_file) == 0)
			tierd_log_ev(log, TIERD_LOG_INFO, "metrics-removed", NULL, NULL, -1, 0, "metrics file %s removed",
				 u.metrics_file);
		else if (errno != ENOENT && r == 0)
			r = -errno;
	}
	if (r < 0)
		return r;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	tierd_log_ev(log, TIERD_LOG_INFO, "undo-done", NULL, NULL, -1, 0,
		 "what tierd (pid %d) changed is put back; %s removed", u.pid, path);
	return 0;
}
