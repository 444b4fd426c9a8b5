/* The kernel knobs tierd sets and restores; see ksettings.h for the rules. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_util.h"
#include "fsread.h"
#include "kparse.h"
#include "ksettings.h"
#include "../policy/util.h"

struct ksetting_def {
	const char *name;
	const char *path;
	enum tierd_ksetting_kind kind;
	uint64_t max;
	const char *needs;
};

static const struct ksetting_def defs[TIERD_KSETTING_COUNT] = {
#define TIERD_KSETTING_DEF(id, n, p, k, m, w) \
	[TIERD_KSETTING_##id] = { .name = n, .path = p, .kind = k, .max = m, .needs = w },
	TIERD_KSETTINGS(TIERD_KSETTING_DEF)
#undef TIERD_KSETTING_DEF
};

const char *tierd_ksetting_name(enum tierd_ksetting which)
{
	return (unsigned)which < TIERD_KSETTING_COUNT ? defs[which].name : NULL;
}

int tierd_ksettings_init(struct tierd_ksettings *ks, const char *root,
			 const struct tierd_logger *log)
{
	struct stat st;

	*ks = (struct tierd_ksettings){ 0 };
	for (size_t i = 0; i < TIERD_KSETTING_COUNT; i++) {
		if (tierd_root_path(root, defs[i].path, ks->s[i].path, sizeof(ks->s[i].path)) < 0)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s%s", root,
					       defs[i].path);
		ks->s[i].exists = stat(ks->s[i].path, &st) == 0;
	}
	return 0;
}

static int check_which(enum tierd_ksetting which, const struct tierd_logger *log)
{
	if ((unsigned)which < TIERD_KSETTING_COUNT)
		return 0;
	return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL, "kernel setting %d: expected 0..%d",
			       (int)which, TIERD_KSETTING_COUNT - 1);
}

/* Tells why a file could not be opened, read or written (what: "" or
 * "writing ..."), and returns r. */
static int io_error(const struct tierd_ksetting_state *s, const struct ksetting_def *d,
		    const char *what, int r, const struct tierd_logger *log)
{
	if (r == -ENOENT)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s%s%s (this kernel lacks %s)",
				       s->path, what[0] ? ": " : "", what, d->needs);
	return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s%s%s", s->path, what[0] ? ": " : "",
			       what);
}

/* A decimal 0..max as tierd writes it: no sign, no leading zero, no
 * newline (tierd_kparse_u64 alone would take "2\n"). */
static bool canonical_uint(const char *value, uint64_t max)
{
	size_t len = strlen(value);
	uint64_t v = 0;

	if (len == 0 || len >= TIERD_KSETTING_VALUE_MAX || value[len - 1] == '\n' ||
	    (value[0] == '0' && len > 1))
		return false;
	return tierd_kparse_u64(value, len, &v) == 0 && v <= max;
}

/* Only canonical values, so that string equality is value equality. */
static int check_value(const struct tierd_ksetting_state *s, const struct ksetting_def *d,
		       const char *value, const struct tierd_logger *log)
{
	if (d->kind == TIERD_KSETTING_BOOL) {
		if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
			return 0;
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: \"%s\" is not a value tierd writes: expected true or false",
				       s->path, value);
	}
	if (canonical_uint(value, d->max))
		return 0;
	return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
			       "%s: \"%s\" is not a value tierd writes: expected a decimal number 0..%" PRIu64
			       " without sign or leading zeros",
			       s->path, value, d->max);
}

int tierd_ksetting_get(struct tierd_ksettings *ks, enum tierd_ksetting which, char *value,
		       size_t size, const struct tierd_logger *log)
{
	struct tierd_buf b = { 0 };
	struct tierd_ksetting_state *s;
	int r = check_which(which, log);

	if (r < 0)
		return r;
	s = &ks->s[which];
	r = tierd_read_at(AT_FDCWD, s->path, &b);
	s->exists = r != -ENOENT;
	if (r < 0) {
		io_error(s, &defs[which], "", r, log);
		goto out;
	}
	if (b.len && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	if (b.len >= size || b.len >= TIERD_KSETTING_VALUE_MAX || memchr(b.data, '\n', b.len) ||
	    strlen(b.data) != b.len) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				    "%s: expected one short line (under %d bytes), read %zu bytes",
				    s->path, TIERD_KSETTING_VALUE_MAX, b.len);
		goto out;
	}
	memcpy(value, b.data, b.len + 1);
out:
	tierd_buf_free(&b);
	return r;
}

/* Writes value to the existing file (never creates it): one write(2), as
 * sysfs and procfs take a value in a single call. */
static int write_value(struct tierd_ksetting_state *s, const struct ksetting_def *d,
		       const char *value, const struct tierd_logger *log)
{
	size_t len = strlen(value);
	_cleanup_close_ int fd = -1;
	char what[TIERD_KSETTING_VALUE_MAX + sizeof("writing \"\"")];
	ssize_t n;
	int r;

	fd = open(s->path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		s->exists = r != -ENOENT;
	} else {
		n = write(fd, value, len);
		r = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	}
	if (r < 0) {
		snprintf(what, sizeof(what), "writing \"%s\"", value);
		io_error(s, d, what, r, log);
	}
	return r;
}

int tierd_ksetting_set(struct tierd_ksettings *ks, enum tierd_ksetting which, const char *value,
		       const struct tierd_logger *log)
{
	char current[TIERD_KSETTING_VALUE_MAX];
	struct tierd_ksetting_state *s;
	bool was_changed;
	int r = check_which(which, log);

	if (r < 0)
		return r;
	s = &ks->s[which];
	r = check_value(s, &defs[which], value, log);
	if (r == 0)
		r = tierd_ksetting_get(ks, which, current, sizeof(current), log);
	if (r < 0)
		return r;
	if (!s->saved) {
		memcpy(s->original, current, sizeof(current));
		s->saved = true;
	}
	if (strcmp(current, value) == 0)
		return 0;
	was_changed = s->changed;
	if (!was_changed && ks->record) {
		s->changed = true;
		r = ks->record(ks->record_data);
		if (r < 0) {
			s->changed = false;
			return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
					       "%s: not changed: its original (%s) could not be recorded",
					       s->path, s->original);
		}
	}
	r = write_value(s, &defs[which], value, log);
	/* A failed write left the kernel as it was; a record saying the
	 * original would be written back stays harmless. */
	s->changed = r == 0 ? strcmp(value, s->original) != 0 : was_changed;
	return r;
}

int tierd_ksettings_adopt(struct tierd_ksettings *ks, const char *name, const char *original,
			  const struct tierd_logger *log)
{
	for (size_t i = 0; i < TIERD_KSETTING_COUNT; i++) {
		struct tierd_ksetting_state *s = &ks->s[i];
		int r;

		if (strcmp(defs[i].name, name) != 0)
			continue;
		r = check_value(s, &defs[i], original, log);
		if (r < 0)
			return r;
		snprintf(s->original, sizeof(s->original), "%s", original);
		s->saved = true;
		s->changed = true;
		return 0;
	}
	return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOENT,
			       "\"%s\" is not a kernel setting tierd changes", name);
}

int tierd_ksettings_restore(struct tierd_ksettings *ks, const struct tierd_logger *log)
{
	int first = 0;

	for (size_t i = 0; i < TIERD_KSETTING_COUNT; i++) {
		struct tierd_ksetting_state *s = &ks->s[i];
		int r;

		if (!s->changed)
			continue;
		/* Only the first failure is told: later ones go to no logger. */
		r = write_value(s, &defs[i], s->original, first ? NULL : log);
		if (r == 0)
			s->changed = false;
		else if (first == 0)
			first = r;
	}
	return first;
}
