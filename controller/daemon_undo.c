/* The daemon's side of the undo record; see daemon_undo.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "daemon_undo.h"
#include "fsread.h"

#define RUNTIME_DIR_MODE 0755

int tierd_daemon_runtime_dir(struct tierd_daemon *d)
{
	int r;

	if (d->opts.runtime_dir)
		r = snprintf(d->runtime_dir, sizeof(d->runtime_dir), "%s", d->opts.runtime_dir) <
				    (int)sizeof(d->runtime_dir)
			    ? 0 : -ENAMETOOLONG;
	else if (!d->opts.dry_run)
		r = tierd_root_path(d->opts.root, TIERD_DEFAULT_RUNTIME_DIR, d->runtime_dir,
				    sizeof(d->runtime_dir));
	else
		return 0;
	if (r < 0) {
		tierd_log(&d->log, TIERD_LOG_ERR, "runtime directory path too long");
		return r;
	}
	/* Run by hand (no RuntimeDirectory=): made here, parents too. */
	for (char *p = d->runtime_dir + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		r = mkdir(d->runtime_dir, RUNTIME_DIR_MODE) < 0 && errno != EEXIST ? -errno : 0;
		*p = c;
		if (!c)
			break;
	}
	if (r < 0)
		tierd_log(&d->log, TIERD_LOG_WARNING, "cannot create %s: %s", d->runtime_dir,
			  strerror(-r));
	return 0;
}

int tierd_daemon_undo_open(struct tierd_daemon *d)
{
	int r;

	if (!d->runtime_dir[0])
		return 0;
	r = tierd_undo_path(d->runtime_dir, d->undo_path, sizeof(d->undo_path));
	if (r < 0) {
		tierd_log(&d->log, TIERD_LOG_ERR, "%s/%s: path too long", d->runtime_dir,
			  TIERD_UNDO_FILE);
		return r;
	}
	r = tierd_undo_load(d->undo_path, &d->inherited, &d->log);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		tierd_log_ev(&d->log, TIERD_LOG_WARNING, "undo-unreadable", NULL, NULL, -1, 0,
			 "undo record unreadable, replaced: %s: %s; what a previous tierd changed cannot be taken back from it",
			 d->undo_path, strerror(-r));
		return 0;
	}
	if (tierd_undo_writer_alive(&d->inherited)) {
		tierd_log(&d->log, TIERD_LOG_ERR,
			  "tierd (pid %d) is running with the runtime directory %s; not starting a second one",
			  d->inherited.pid, d->runtime_dir);
		/* Its record is not this tierd's to remove at exit. */
		d->undo_path[0] = '\0';
		return -EBUSY;
	}
	d->have_inherited = true;
	tierd_log_ev(&d->log, TIERD_LOG_NOTICE, "undo-takeover", NULL, NULL, -1, 0,
		 "tierd (pid %d) ended without putting the kernel back: taking over its record %s (%zu settings, %zu kdamonds)",
		 d->inherited.pid, d->undo_path, d->inherited.nr_settings, d->inherited.nr_kdamonds);
	return 0;
}

static int record(void *data)
{
	return tierd_daemon_undo_sync(data);
}

void tierd_daemon_undo_settings(struct tierd_daemon *d)
{
	char now[TIERD_KSETTING_VALUE_MAX];

	d->ksettings.record = record;
	d->ksettings.record_data = d;
	for (size_t i = 0; d->have_inherited && i < d->inherited.nr_settings; i++) {
		const struct tierd_undo_setting *s = &d->inherited.settings[i];
		int r = tierd_ksettings_adopt(&d->ksettings, s->name, s->value, &d->log);

		if (r < 0) {
			tierd_log_ev(&d->log, TIERD_LOG_WARNING, "setting-not-taken-back", NULL, NULL, -1, 0,
				 "the recorded original of %s (%s) is not taken back: %s", s->name,
				 s->value, r == -ENOENT ? "not a setting tierd changes"
							: "not a value tierd writes");
			continue;
		}
		now[0] = '\0';
		for (size_t k = 0; k < TIERD_KSETTING_COUNT; k++)
			if (strcmp(tierd_ksetting_name((enum tierd_ksetting)k), s->name) == 0 &&
			    tierd_ksetting_get(&d->ksettings, (enum tierd_ksetting)k, now, sizeof(now),
					       &d->log) < 0)
				snprintf(now, sizeof(now), "?");
		tierd_log_ev(&d->log, TIERD_LOG_NOTICE, "setting-original-kept", NULL, NULL, -1, 0,
			 "%s: the original %s recorded by tierd (pid %d) is kept and restored on exit (it reads %s now)",
			 s->name, s->value, d->inherited.pid, now);
	}
	(void)tierd_daemon_undo_sync(d);
}

void tierd_daemon_undo_kdamonds(struct tierd_daemon *d)
{
	struct tierd_kdamond_claim c[TIERD_DAMON_MAX_CONTEXTS];
	size_t n = d->have_inherited ? d->inherited.nr_kdamonds : 0;
	bool removed = false;
	int r;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		c[i] = (struct tierd_kdamond_claim){ .index = d->inherited.kdamonds[i].index,
						     .pid = d->inherited.kdamonds[i].pid };
	r = tierd_damon_take_back(d->opts.root, c, n, &removed, &d->log);
	for (size_t i = 0; i < n; i++) {
		if (c[i].verdict == TIERD_KDAMOND_TAKEN_BACK)
			tierd_log_ev(&d->log, TIERD_LOG_NOTICE, "kdamond-taken-back", NULL, NULL, -1, 0,
				 "kdamond %zu (pid %d) left running by tierd (pid %d) turned off",
				 c[i].index, c[i].pid, d->inherited.pid);
		else if (c[i].verdict == TIERD_KDAMOND_FOREIGN)
			tierd_log_ev(&d->log, TIERD_LOG_WARNING, "kdamond-foreign", NULL, NULL, -1, 0,
				 "kdamond %zu runs with pid %d, not the recorded %d: not tierd's, left alone",
				 c[i].index, c[i].now_pid, c[i].pid);
	}
	if (r < 0)
		tierd_log_ev(&d->log, TIERD_LOG_WARNING, "kdamond-not-taken-back", NULL, NULL, -1, 0,
			 "the previous tierd's kdamonds not all taken back: %s", strerror(-r));
	else if (removed)
		tierd_log_ev(&d->log, TIERD_LOG_INFO, "kdamonds-removed", NULL, NULL, -1, 0,
			 "the previous tierd's kdamonds removed (nr_kdamonds 0)");
}

int tierd_daemon_undo_sync(struct tierd_daemon *d)
{
	struct tierd_undo u;
	char *text = NULL;
	int r;

	if (!d->undo_path[0])
		return 0;
	tierd_undo_build(d->ksettings_ready ? &d->ksettings : NULL, &d->damon.kd, (int)getpid(),
			 d->opts.read_only ? NULL : d->cfg.metrics_file, &u);
	r = tierd_undo_format(&u, &text, &d->log);
	if (r == 0 && d->undo_text && strcmp(text, d->undo_text) == 0) {
		free(text);
		return 0;
	}
	if (r == 0)
		r = tierd_undo_write(d->undo_path, text);
	if (r < 0 && !d->undo_failing)
		tierd_log_ev(&d->log, TIERD_LOG_ERR, "undo-failing", NULL, NULL, -1, 0,
			 "cannot write the undo record: %s: %s; a crash would leave the kernel as tierd set it",
			 d->undo_path, strerror(-r));
	else if (r == 0 && d->undo_failing)
		tierd_log_ev(&d->log, TIERD_LOG_INFO, "undo-written", NULL, NULL, -1, 0,
			 "undo record %s written again", d->undo_path);
	d->undo_failing = r < 0;
	if (r < 0) {
		free(text);
		return r;
	}
	free(d->undo_text);
	d->undo_text = text;
	return 0;
}

void tierd_daemon_undo_close(struct tierd_daemon *d)
{
	bool left = false;

	if (!d->undo_path[0])
		return;
	for (size_t i = 0; d->ksettings_ready && i < TIERD_KSETTING_COUNT; i++)
		left |= d->ksettings.s[i].changed;
	left |= d->damon.kd.nr_kdamonds > 0;
	if (left) {
		(void)tierd_daemon_undo_sync(d);
	} else if (unlink(d->undo_path) < 0 && errno != ENOENT) {
		tierd_log(&d->log, TIERD_LOG_WARNING, "cannot remove %s: %s", d->undo_path,
			  strerror(errno));
	}
	free(d->undo_text);
	d->undo_text = NULL;
}
