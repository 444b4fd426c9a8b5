/* The undo record; see undo.h for its purpose and format. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsread.h"
#include "metrics.h"
#include "undo.h"

/* A decimal without sign or leading zero, at most max. */
static bool parse_dec(const char *s, size_t n, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (n == 0 || (s[0] == '0' && n > 1))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long long)(s[i] - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

static bool word_ok(const char *s, size_t n, size_t max, const char *extra)
{
	if (n == 0 || n >= max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || (c && strchr(extra, c))))
			return false;
	}
	return true;
}

/* The line split at single spaces into at most max fields; false when it
 * has another number of fields or empty ones (double, leading or trailing
 * spaces). */
static bool split(const char *line, size_t len, size_t want, const char **f, size_t *flen)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (i == start || n == want)
			return false;
		f[n] = line + start;
		flen[n++] = i - start;
		start = i + 1;
	}
	return n == want;
}

#define FIELDS_MAX 3

/* Line number n of the record; where is "" or "path: " for messages. */
static int parse_line(const char *line, size_t len, struct tierd_undo *u, bool *have_pid,
		      const char *where, int n, const struct tierd_logger *log)
{
	const char *f[FIELDS_MAX];
	size_t fl[FIELDS_MAX];
	unsigned long long v, p;

	if (len > 4 && memcmp(line, "pid ", 4) == 0) {
		if (*have_pid || !split(line, len, 2, f, fl) || !parse_dec(f[1], fl[1], INT_MAX, &v) ||
		    v == 0)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: expected one \"pid N\" with N 1..%d",
					       where, n, INT_MAX);
		u->pid = (int)v;
		*have_pid = true;
		return 0;
	}
	if (len > 8 && memcmp(line, "metrics ", 8) == 0) {
		size_t nm = len - 8;

		if (u->metrics_file[0] || line[8] != '/' || nm >= sizeof(u->metrics_file))
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: expected one \"metrics /absolute/path\" under %d bytes",
					       where, n, TIERD_FILE_PATH_MAX);
		memcpy(u->metrics_file, line + 8, nm);
		u->metrics_file[nm] = '\0';
		return 0;
	}
	if (len > 8 && memcmp(line, "setting ", 8) == 0) {
		struct tierd_undo_setting *s = &u->settings[u->nr_settings];

		if (!split(line, len, 3, f, fl) || !word_ok(f[1], fl[1], TIERD_UNDO_NAME_MAX, "") ||
		    !word_ok(f[2], fl[2], TIERD_KSETTING_VALUE_MAX, ".-"))
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: expected \"setting NAME VALUE\" (NAME [A-Za-z0-9_], under %d bytes; VALUE [A-Za-z0-9_.-], under %d bytes)",
					       where, n, TIERD_UNDO_NAME_MAX,
					       TIERD_KSETTING_VALUE_MAX);
		if (u->nr_settings == TIERD_UNDO_MAX_SETTINGS)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: more than %d settings", where, n,
					       TIERD_UNDO_MAX_SETTINGS);
		memcpy(s->name, f[1], fl[1]);
		s->name[fl[1]] = '\0';
		memcpy(s->value, f[2], fl[2]);
		s->value[fl[2]] = '\0';
		for (size_t i = 0; i < u->nr_settings; i++)
			if (strcmp(u->settings[i].name, s->name) == 0)
				return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						       "%sline %d: setting %s recorded twice",
						       where, n, s->name);
		u->nr_settings++;
		return 0;
	}
	if (len > 8 && memcmp(line, "kdamond ", 8) == 0) {
		if (!split(line, len, 3, f, fl) ||
		    !parse_dec(f[1], fl[1], TIERD_DAMON_MAX_CONTEXTS - 1, &v) ||
		    !parse_dec(f[2], fl[2], INT_MAX, &p) || p == 0)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: expected \"kdamond INDEX PID\" (INDEX 0..%d, PID 1..%d)",
					       where, n, TIERD_DAMON_MAX_CONTEXTS - 1, INT_MAX);
		for (size_t i = 0; i < u->nr_kdamonds; i++)
			if (u->kdamonds[i].index == v)
				return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						       "%sline %d: kdamond %llu recorded twice",
						       where, n, v);
		/* Unique indices below TIERD_DAMON_MAX_CONTEXTS: the array
		 * cannot overflow. */
		u->kdamonds[u->nr_kdamonds++] =
			(struct tierd_undo_kdamond){ .index = (unsigned)v, .pid = (int)p };
		return 0;
	}
	return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
			       "%sline %d: expected \"pid\", \"metrics\", \"setting\" or \"kdamond\"",
			       where, n);
}

static int parse(const char *text, size_t len, struct tierd_undo *out, const char *where,
		 const struct tierd_logger *log)
{
	bool have_pid = false;
	size_t pos = 0;
	int line = 0, r;

	*out = (struct tierd_undo){ 0 };
	if (len == 0 || memchr(text, '\0', len) || text[len - 1] != '\n')
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%sexpected text lines ending in a newline, without NUL bytes",
				       where);
	while (pos < len) {
		const char *l = text + pos;
		size_t n = (size_t)((const char *)memchr(l, '\n', len - pos) - l);

		line++;
		pos += n + 1;
		if (line == 1) {
			if (n != strlen(TIERD_UNDO_MAGIC) || memcmp(l, TIERD_UNDO_MAGIC, n) != 0)
				return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						       "%sline 1: expected \"%s\"", where,
						       TIERD_UNDO_MAGIC);
			continue;
		}
		r = parse_line(l, n, out, &have_pid, where, line, log);
		if (r < 0)
			return r;
	}
	if (!have_pid)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL, "%sno \"pid\" line", where);
	return 0;
}

int tierd_undo_parse(const char *text, size_t len, struct tierd_undo *out,
		     const struct tierd_logger *log)
{
	return parse(text, len, out, "", log);
}

int tierd_undo_format(const struct tierd_undo *u, char **ret_text, const struct tierd_logger *log)
{
	struct tierd_undo check;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int r;

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\npid %d\n", TIERD_UNDO_MAGIC, u->pid);
	if (u->metrics_file[0])
		fprintf(f, "metrics %s\n", u->metrics_file);
	for (size_t i = 0; i < u->nr_settings; i++)
		fprintf(f, "setting %s %s\n", u->settings[i].name, u->settings[i].value);
	for (size_t i = 0; i < u->nr_kdamonds; i++)
		fprintf(f, "kdamond %u %d\n", u->kdamonds[i].index, u->kdamonds[i].pid);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	/* What cannot be read back (a metrics path with a newline) is not
	 * written. */
	r = tierd_undo_parse(text, size, &check, log);
	if (r < 0) {
		free(text);
		return r;
	}
	*ret_text = text;
	return 0;
}

void tierd_undo_build(const struct tierd_ksettings *ks, const struct tierd_damon *kd,
		      int pid, const char *metrics_file, struct tierd_undo *out)
{
	*out = (struct tierd_undo){ .pid = pid };
	snprintf(out->metrics_file, sizeof(out->metrics_file), "%s", metrics_file ? metrics_file : "");
	for (size_t i = 0; ks && i < TIERD_KSETTING_COUNT && out->nr_settings < TIERD_UNDO_MAX_SETTINGS;
	     i++) {
		const struct tierd_ksetting_state *s = &ks->s[i];

		if (!s->changed)
			continue;
		snprintf(out->settings[out->nr_settings].name, TIERD_UNDO_NAME_MAX, "%s",
			 tierd_ksetting_name((enum tierd_ksetting)i));
		memcpy(out->settings[out->nr_settings].value, s->original, sizeof(s->original));
		out->nr_settings++;
	}
	for (size_t k = 0; kd && k < kd->nr_kdamonds; k++)
		if (kd->pid[k] > 0)
			out->kdamonds[out->nr_kdamonds++] =
				(struct tierd_undo_kdamond){ .index = (unsigned)k, .pid = kd->pid[k] };
}

int tierd_undo_path(const char *dir, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/%s", dir, TIERD_UNDO_FILE);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int tierd_undo_load(const char *path, struct tierd_undo *out, const struct tierd_logger *log)
{
	char where[TIERD_FILE_PATH_MAX + sizeof(": ")];
	struct tierd_buf b = { 0 };
	int r;

	r = tierd_read_at(AT_FDCWD, path, &b);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
	snprintf(where, sizeof(where), "%s: ", path);
	r = parse(b.data, b.len, out, where, log);
	tierd_buf_free(&b);
	return r;
}

int tierd_undo_write(const char *path, const char *text)
{
	return tierd_write_atomic(path, text, strlen(text));
}

bool tierd_undo_writer_alive(const struct tierd_undo *u)
{
	char path[64];
	struct tierd_buf b = { 0 };
	bool alive;

	if (u->pid == (int)getpid())
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", u->pid);
	if (tierd_read_at(AT_FDCWD, path, &b) < 0)
		return false;
	alive = strcmp(b.data, "tierd\n") == 0;
	tierd_buf_free(&b);
	return alive;
}
