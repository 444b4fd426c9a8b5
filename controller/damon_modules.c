/* DAMON's built-in modules beside tierd's kdamonds; see damon_modules.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damon_modules.h"
#include "fd_util.h"
#include "fsread.h"
#include "../policy/util.h"

#define RUNTIME_DIR_MODE 0755
#define RECORD_MODE 0644

static const char *const module_names[] = { "DAMON_STAT", "DAMON_RECLAIM", "DAMON_LRU_SORT" };
static const char *const module_dirs[] = { "stat", "reclaim", "lru_sort" };

const char *tierd_damon_module_name(enum tierd_damon_module which)
{
	return (size_t)which < TIERD_ARRAY_SIZE(module_names) ? module_names[which] : NULL;
}

/* Writes text to an existing file or, with O_CREAT in flags, a new one. */
static int write_text(const char *path, int flags, const char *text,
		      const struct tierd_logger *log)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | flags,
				      RECORD_MODE);
	size_t len = strlen(text);
	ssize_t n;
	int r;

	if (fd < 0) {
		r = -errno;
	} else {
		n = write(fd, text, len);
		r = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	}
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "writing \"%s\" to %s", text, path);
	return 0;
}

/* Reads a module parameter: Y (true) or N (false). */
static int read_flag(const char *path, bool *on, const struct tierd_logger *log)
{
	struct tierd_buf b = { 0 };
	int r = tierd_read_at(AT_FDCWD, path, &b);

	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
	if (b.len >= 1 && (b.data[0] == 'Y' || b.data[0] == 'N'))
		*on = b.data[0] == 'Y';
	else
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				    "%s: expected Y or N, got \"%.*s\"", path, (int)b.len, b.data);
	tierd_buf_free(&b);
	return r;
}

/* mkdir -p of the record's directory, below root. */
static int make_record_dir(const char *record, const struct tierd_logger *log)
{
	char dir[TIERD_FILE_PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", record);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, RUNTIME_DIR_MODE) < 0 && errno != EEXIST)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "creating %s", dir);
		*p = '/';
	}
	return 0;
}

int tierd_damon_modules_probe(struct tierd_damon_modules *m, const char *root,
			      const struct tierd_logger *log)
{
	struct stat st;
	int r;

	*m = (struct tierd_damon_modules){ 0 };
	if (tierd_root_path(root, TIERD_DAMON_STAT_RECORD, m->record, sizeof(m->record)) < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s", root);
	for (size_t i = 0; i < TIERD_DAMON_MODULE_COUNT; i++) {
		char rel[TIERD_FILE_PATH_MAX];

		snprintf(rel, sizeof(rel), TIERD_DAMON_MODULE_PARAM, module_dirs[i]);
		if (tierd_root_path(root, rel, m->param[i], sizeof(m->param[i])) < 0)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s", root);
		if (stat(m->param[i], &st) < 0)
			continue;
		m->present[i] = true;
		r = read_flag(m->param[i], &m->enabled[i], log);
		if (r < 0)
			return r;
	}
	m->stat_stopped = m->present[TIERD_DAMON_MODULE_STAT] && stat(m->record, &st) == 0;
	return 0;
}

int tierd_damon_modules_stop_stat(struct tierd_damon_modules *m, const struct tierd_logger *log)
{
	const char *param = m->param[TIERD_DAMON_MODULE_STAT];
	int r;

	if (!m->enabled[TIERD_DAMON_MODULE_STAT])
		return 0;
	r = make_record_dir(m->record, log);
	if (r == 0)
		r = write_text(m->record, O_CREAT, "Y\n", log);
	if (r < 0)
		return r;
	r = write_text(param, 0, "N", log);
	if (r < 0) {
		if (!m->stat_stopped)
			unlink(m->record);
		return r;
	}
	m->enabled[TIERD_DAMON_MODULE_STAT] = false;
	m->stat_stopped = true;
	return 0;
}

int tierd_damon_modules_restore(struct tierd_damon_modules *m, const struct tierd_logger *log)
{
	int r;

	if (!m->stat_stopped)
		return 0;
	r = write_text(m->param[TIERD_DAMON_MODULE_STAT], 0, "Y", log);
	if (r < 0)
		return r;
	m->enabled[TIERD_DAMON_MODULE_STAT] = true;
	m->stat_stopped = false;
	if (unlink(m->record) < 0 && errno != ENOENT)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "removing %s", m->record);
	return 0;
}

enum tierd_damon_module tierd_damon_modules_conflict(const struct tierd_damon_modules *m,
						     bool leave_stat)
{
	if (leave_stat && m->enabled[TIERD_DAMON_MODULE_STAT])
		return TIERD_DAMON_MODULE_STAT;
	if (m->enabled[TIERD_DAMON_MODULE_RECLAIM])
		return TIERD_DAMON_MODULE_RECLAIM;
	if (m->enabled[TIERD_DAMON_MODULE_LRU_SORT])
		return TIERD_DAMON_MODULE_LRU_SORT;
	return TIERD_DAMON_MODULE_COUNT;
}
