/* The DAMON kdamond lifecycle through sysfs; see damon.h for the rules. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fd_util.h"
#include "damon.h"
#include "fsread.h"
#include "kparse.h"
#include "../policy/util.h"

#define NUM_MAX 32 /* a decimal uint64_t or int with its sign, and NUL */

/* Where a series of writes goes, and where its error is told. */
struct dio {
	const char *admin;
	const struct tierd_logger *log;
	unsigned busy_retries; /* -EBUSY reads and writes retried this many times */
};

const char *tierd_damon_action_name(enum tierd_damon_action action)
{
	switch (action) {
	case TIERD_DAMON_ACTION_STAT:
		return "stat";
	case TIERD_DAMON_ACTION_MIGRATE_HOT:
		return "migrate_hot";
	case TIERD_DAMON_ACTION_MIGRATE_COLD:
		return "migrate_cold";
	}
	return NULL;
}

/* After an attempt that returned r: true, having waited, when r is a
 * busy DAMON sysfs (or an interrupt) and io allows another attempt. */
static bool busy_again(const struct dio *io, int r, unsigned *attempt)
{
	if ((r != -EBUSY && r != -EINTR) || *attempt >= io->busy_retries)
		return false;
	(*attempt)++;
	tierd_sleep_usec(TIERD_DAMON_BUSY_RETRY_US);
	return true;
}

static int vpath(const struct dio *io, char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = snprintf(buf, size, "%s/", io->admin);
	int m;

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	if (m < 0 || (size_t)m >= size - (size_t)n)
		return -ENAMETOOLONG;
	return 0;
}

static int pathf(const struct dio *io, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int pathf(const struct dio *io, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(io, buf, size, fmt, ap);
	va_end(ap);
	if (r < 0)
		return tierd_log_errno(io->log, TIERD_LOG_DEBUG, r, "%s/%s", io->admin, fmt);
	return 0;
}

/* Writes value to an existing file (sysfs files are never created; a missing
 * one is -ENOENT), retrying -EBUSY: DAMON's sysfs takes its lock with
 * mutex_trylock. */
static int write_file(const struct dio *io, const char *path, const char *value)
{
	size_t len = strlen(value);
	unsigned attempt = 0;
	int r;

	do {
		_cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
		ssize_t n;

		if (fd < 0) {
			r = -errno;
		} else {
			n = write(fd, value, len);
			r = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
		}
	} while (busy_again(io, r, &attempt));
	if (r < 0)
		return tierd_log_errno(io->log, TIERD_LOG_DEBUG, r, "writing \"%s\" to %s", value,
				       path);
	return 0;
}

static int putf(const struct dio *io, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int putf(const struct dio *io, const char *value, const char *fmt, ...)
{
	char path[TIERD_FILE_PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(io, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return tierd_log_errno(io->log, TIERD_LOG_DEBUG, r, "%s/%s", io->admin, fmt);
	return write_file(io, path, value);
}

static const char *u64s(char buf[NUM_MAX], uint64_t v)
{
	snprintf(buf, NUM_MAX, "%" PRIu64, v);
	return buf;
}

static const char *ints(char buf[NUM_MAX], long long v)
{
	snprintf(buf, NUM_MAX, "%lld", v);
	return buf;
}

/* Reads a one-line file, trailing newline removed, retrying -EBUSY like
 * write_file: 6.12's state and pid files take DAMON's sysfs lock with
 * mutex_trylock too, and a running kdamond takes that lock every sample
 * interval (docs/kernel.md §1.2). */
static int read_line(const struct dio *io, const char *path, struct tierd_buf *b)
{
	unsigned attempt = 0;
	int r;

	do
		r = tierd_read_at(AT_FDCWD, path, b);
	while (busy_again(io, r, &attempt));
	if (r < 0)
		return tierd_log_errno(io->log, TIERD_LOG_DEBUG, r, "%s", path);
	while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == ' '))
		b->data[--b->len] = '\0';
	return 0;
}

static int read_u64(const struct dio *io, const char *path, uint64_t *v)
{
	struct tierd_buf b = { 0 };
	int r = read_line(io, path, &b);

	if (r == 0 && tierd_kparse_u64(b.data, b.len, v) < 0)
		r = tierd_log_errno(io->log, TIERD_LOG_DEBUG, -EINVAL, "%s: not a number: \"%s\"",
				    path, b.data);
	tierd_buf_free(&b);
	return r;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static bool existsf(const struct dio *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool existsf(const struct dio *io, const char *fmt, ...)
{
	char path[TIERD_FILE_PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(io, path, sizeof(path), fmt, ap);
	va_end(ap);
	return r == 0 && exists(path);
}

static int read_nr_kdamonds(const struct dio *io, uint64_t *nr)
{
	char path[TIERD_FILE_PATH_MAX];
	int r = pathf(io, path, sizeof(path), "kdamonds/nr_kdamonds");

	return r < 0 ? r : read_u64(io, path, nr);
}

/* Sends a state command to kdamond k; *sent tells whether the write went
 * through. When want_on, re-reads state and fails with -EIO unless it says
 * "on" (the 6.12 commit trap). */
static int state_cmd_sent(const struct dio *io, size_t k, const char *cmd, bool want_on,
			  bool *sent)
{
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_buf b = { 0 };
	int r;

	r = pathf(io, path, sizeof(path), "kdamonds/%zu/state", k);
	if (r == 0)
		r = write_file(io, path, cmd);
	*sent = r == 0;
	if (r < 0 || !want_on)
		return r;
	r = read_line(io, path, &b);
	if (r == 0 && strcmp(b.data, "on") != 0)
		r = tierd_log_errno(io->log, TIERD_LOG_DEBUG, -EIO,
				    "%s is \"%s\" after \"%s\": the kdamond stopped (its input was rejected, e.g. a memcg_path that does not exist)",
				    path, b.data, cmd);
	tierd_buf_free(&b);
	return r;
}

static int state_cmd(const struct dio *io, size_t k, const char *cmd, bool want_on)
{
	bool sent;

	return state_cmd_sent(io, k, cmd, want_on, &sent);
}

/* kdamonds/K/pid: the kdamond thread's pid, -1 while it is off. */
static int read_pid(const struct dio *io, size_t k, int *pid)
{
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_buf b = { 0 };
	uint64_t v = 0;
	int r;

	r = pathf(io, path, sizeof(path), "kdamonds/%zu/pid", k);
	if (r == 0)
		r = read_line(io, path, &b);
	if (r < 0)
		goto out;
	if (strcmp(b.data, "-1") == 0) {
		*pid = -1;
	} else if (tierd_kparse_u64(b.data, b.len, &v) == 0 && v > 0 && v <= INT_MAX) {
		*pid = (int)v;
	} else {
		r = tierd_log_errno(io->log, TIERD_LOG_DEBUG, -EINVAL,
				    "%s: expected a pid or -1, read \"%s\"", path, b.data);
	}
out:
	tierd_buf_free(&b);
	return r;
}

/* Turns kdamond k on and keeps its pid (0 when it cannot be read). Once
 * the "on" went through, d counts as running even if what follows fails:
 * a kdamond may run, and only a stop that turns it off can remove it (a
 * forgotten one kept 6.12's nr_kdamonds busy, and DAMON from starting). */
static int turn_on(struct tierd_damon *d, const struct dio *io, size_t k)
{
	const struct dio quiet = { io->admin, NULL, io->busy_retries };
	bool sent;
	int r = state_cmd_sent(io, k, "on", true, &sent);

	if (sent)
		d->running = true;
	d->pid[k] = 0;
	if (r == 0 && read_pid(&quiet, k, &d->pid[k]) < 0)
		d->pid[k] = 0;
	return r;
}

static int validate(const struct tierd_damon_spec *spec, const struct tierd_logger *log)
{
	if (spec->nr_contexts == 0 || spec->nr_contexts > TIERD_DAMON_MAX_CONTEXTS)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "damon: %zu contexts, expected 1..%d", spec->nr_contexts,
				       TIERD_DAMON_MAX_CONTEXTS);
	for (size_t c = 0; c < spec->nr_contexts; c++) {
		const struct tierd_damon_ctx_spec *ctx = &spec->contexts[c];

		if (!ctx->ops[0] || ctx->nr_regions > TIERD_DAMON_MAX_REGIONS ||
		    ctx->nr_schemes > TIERD_DAMON_MAX_SCHEMES)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "damon context %zu: needs operations, at most %d regions and %d schemes",
					       c, TIERD_DAMON_MAX_REGIONS, TIERD_DAMON_MAX_SCHEMES);
		for (size_t i = 0; i < ctx->nr_regions; i++)
			if (ctx->regions[i].end <= ctx->regions[i].start)
				return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						       "damon context %zu region %zu: end <= start",
						       c, i);
		for (size_t s = 0; s < ctx->nr_schemes; s++) {
			const struct tierd_damon_scheme_spec *sc = &ctx->schemes[s];

			if (!tierd_damon_action_name(sc->action))
				return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						       "damon context %zu scheme %zu: unknown action",
						       c, s);
			if (sc->has_addr && sc->addr_end <= sc->addr_start)
				return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
						       "damon context %zu scheme %zu: addr filter end <= start",
						       c, s);
		}
	}
	return 0;
}

/* "Act only inside [addr_start, addr_end)" as filters that 6.12 applies
 * right: its paddr operations run every filter of a scheme against each
 * folio and treat types they do not know (addr) as not matching, so an addr
 * filter with matching N rejects every folio ([6.12] mm/damon/paddr.c
 * __damos_pa_filter_out, default case; seen in the VM). Filters with
 * matching Y that reject what lies below and above the range work at both
 * layers: the core layer drops those regions, the paddr layer passes. */
static size_t addr_filters(const struct tierd_damon_scheme_spec *sc)
{
	if (!sc->has_addr)
		return 0;
	return (sc->addr_start > 0 ? 1 : 0) + (sc->addr_end < UINT64_MAX ? 1 : 0);
}

/* Where a kdamond's scheme filters go. 6.12 has one filters/ directory;
 * 7.2 and later split it into core_filters/ (addr, target: DAMON's core)
 * and ops_filters/ (anon, memcg, young: the paddr operations) and keep
 * filters/ only as a deprecated alias (docs/kernel.md §1.5). tierd writes
 * the split directories where the kernel has them; every scheme of a
 * kernel has the same ones, so scheme s = 0 (once it exists) tells. */
struct filter_dirs {
	bool split;
	const char *addr;  /* "filters" or "core_filters" */
	const char *memcg; /* "filters" or "ops_filters" */
};

static struct filter_dirs filter_dirs_of(const struct dio *io, size_t k, size_t s)
{
	if (existsf(io, "kdamonds/%zu/contexts/0/schemes/%zu/core_filters", k, s) &&
	    existsf(io, "kdamonds/%zu/contexts/0/schemes/%zu/ops_filters", k, s))
		return (struct filter_dirs){ true, "core_filters", "ops_filters" };
	return (struct filter_dirs){ false, "filters", "filters" };
}

static int write_addr_filter(const struct dio *io, size_t k, size_t s, const char *dir, size_t f,
			     uint64_t start, uint64_t end)
{
#define FILTER "kdamonds/%zu/contexts/0/schemes/%zu/%s/%zu/"
	char v[NUM_MAX];
	int r;

	r = putf(io, "addr", FILTER "type", k, s, dir, f);
	if (r == 0)
		r = putf(io, u64s(v, start), FILTER "addr_start", k, s, dir, f);
	if (r == 0)
		r = putf(io, u64s(v, end), FILTER "addr_end", k, s, dir, f);
	if (r == 0)
		r = putf(io, "Y", FILTER "matching", k, s, dir, f);
	return r;
#undef FILTER
}

/* The nr_* files of kdamond k below contexts/nr_contexts: a write re-creates
 * the children, so they all come before any child file. *dirs gets where
 * the schemes' filters went. */
static int write_counts(const struct dio *io, size_t k, const struct tierd_damon_ctx_spec *ctx,
			struct filter_dirs *dirs)
{
#define SCHEME "kdamonds/%zu/contexts/0/schemes/%zu/"
	char v[NUM_MAX];
	int r;

	r = putf(io, u64s(v, 1), "kdamonds/%zu/contexts/0/targets/nr_targets", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->nr_regions),
			 "kdamonds/%zu/contexts/0/targets/0/regions/nr_regions", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->nr_schemes), "kdamonds/%zu/contexts/0/schemes/nr_schemes",
			 k);
	if (r == 0 && ctx->nr_schemes > 0)
		*dirs = filter_dirs_of(io, k, 0);
	for (size_t s = 0; r == 0 && s < ctx->nr_schemes; s++) {
		const struct tierd_damon_scheme_spec *sc = &ctx->schemes[s];
		size_t nr_addr = addr_filters(sc), nr_memcg = sc->memcg_path[0] ? 1 : 0;

		if (!dirs->split) {
			r = putf(io, u64s(v, nr_addr + nr_memcg), SCHEME "filters/nr_filters", k, s);
			continue;
		}
		r = putf(io, u64s(v, nr_addr), SCHEME "%s/nr_filters", k, s, dirs->addr);
		if (r == 0)
			r = putf(io, u64s(v, nr_memcg), SCHEME "%s/nr_filters", k, s, dirs->memcg);
	}
	return r;
#undef SCHEME
}

static int write_scheme(const struct dio *io, size_t k, size_t s,
			const struct tierd_damon_scheme_spec *sc, const struct filter_dirs *dirs)
{
#define SCHEME "kdamonds/%zu/contexts/0/schemes/%zu/"
	char v[NUM_MAX];
	size_t f = 0;
	int r;

	r = putf(io, tierd_damon_action_name(sc->action), SCHEME "action", k, s);
	if (r == 0 && sc->action != TIERD_DAMON_ACTION_STAT)
		r = putf(io, ints(v, sc->target_nid), SCHEME "target_nid", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->apply_interval_us), SCHEME "apply_interval_us", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->sz_min), SCHEME "access_pattern/sz/min", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->sz_max), SCHEME "access_pattern/sz/max", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->nr_accesses_min), SCHEME "access_pattern/nr_accesses/min",
			 k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->nr_accesses_max), SCHEME "access_pattern/nr_accesses/max",
			 k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->age_min), SCHEME "access_pattern/age/min", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->age_max), SCHEME "access_pattern/age/max", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->quota_bytes), SCHEME "quotas/bytes", k, s);
	if (r == 0)
		r = putf(io, u64s(v, sc->quota_reset_ms), SCHEME "quotas/reset_interval_ms", k, s);
	/* Filters reject what they match (allow stays N where it exists). */
	if (r == 0 && sc->has_addr && sc->addr_start > 0)
		r = write_addr_filter(io, k, s, dirs->addr, f++, 0, sc->addr_start);
	if (r == 0 && sc->has_addr && sc->addr_end < UINT64_MAX)
		r = write_addr_filter(io, k, s, dirs->addr, f++, sc->addr_end, UINT64_MAX);
	if (dirs->split)
		f = 0;
	/* matching N rejects what is NOT in the cgroup, i.e. acts on it only. */
	if (r == 0 && sc->memcg_path[0]) {
		r = putf(io, "memcg", SCHEME "%s/%zu/type", k, s, dirs->memcg, f);
		if (r == 0)
			r = putf(io, sc->memcg_path, SCHEME "%s/%zu/memcg_path", k, s, dirs->memcg, f);
		if (r == 0)
			r = putf(io, "N", SCHEME "%s/%zu/matching", k, s, dirs->memcg, f);
	}
	return r;
#undef SCHEME
}

/* Every file below kdamond k's context, nr_* first. */
static int write_context(const struct dio *io, size_t k, const struct tierd_damon_ctx_spec *ctx)
{
#define CTX "kdamonds/%zu/contexts/0/"
	struct filter_dirs dirs = { false, "filters", "filters" };
	char v[NUM_MAX];
	int r;

	r = write_counts(io, k, ctx, &dirs);
	if (r == 0)
		r = putf(io, ctx->ops, CTX "operations", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->sample_us), CTX "monitoring_attrs/intervals/sample_us", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->aggr_us), CTX "monitoring_attrs/intervals/aggr_us", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->update_us), CTX "monitoring_attrs/intervals/update_us", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->min_nr_regions), CTX "monitoring_attrs/nr_regions/min", k);
	if (r == 0)
		r = putf(io, u64s(v, ctx->max_nr_regions), CTX "monitoring_attrs/nr_regions/max", k);
	for (size_t i = 0; r == 0 && i < ctx->nr_regions; i++) {
		r = putf(io, u64s(v, ctx->regions[i].start), CTX "targets/0/regions/%zu/start", k, i);
		if (r == 0)
			r = putf(io, u64s(v, ctx->regions[i].end), CTX "targets/0/regions/%zu/end", k,
				 i);
	}
	for (size_t s = 0; r == 0 && s < ctx->nr_schemes; s++)
		r = write_scheme(io, k, s, &ctx->schemes[s], &dirs);
	return r;
#undef CTX
}

int tierd_damon_probe(const char *root, struct tierd_damon_features *f,
		      const struct tierd_logger *log)
{
	char admin[TIERD_FILE_PATH_MAX], v[NUM_MAX], path[TIERD_FILE_PATH_MAX];
	const struct dio io = { admin, log, TIERD_DAMON_BUSY_RETRIES };
	/* What the probe only looks at, and may not find, is not told. */
	const struct dio quiet = { admin, NULL, TIERD_DAMON_BUSY_RETRIES };
	struct tierd_buf b = { 0 };
	uint64_t nr = 0;
	bool created = false;
	int r;

	*f = (struct tierd_damon_features){ 0 };
	if (tierd_root_path(root, TIERD_DAMON_ADMIN, admin, sizeof(admin)) < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s", root);
	if (!exists(admin))
		return 0;
	f->present = true;
	r = read_nr_kdamonds(&io, &nr);
	if (r < 0)
		return r;
	if (nr == 0) {
		/* A throw-away kdamond with one of everything shows its files. */
		created = true;
		r = putf(&io, u64s(v, 1), "kdamonds/nr_kdamonds");
		if (r == 0)
			r = putf(&io, u64s(v, 1), "kdamonds/0/contexts/nr_contexts");
		if (r == 0)
			r = putf(&io, u64s(v, 1), "kdamonds/0/contexts/0/schemes/nr_schemes");
		if (r == 0)
			r = putf(&io, u64s(v, 1),
				 "kdamonds/0/contexts/0/schemes/0/filters/nr_filters");
		if (r == 0)
			r = putf(&io, u64s(v, 1),
				 "kdamonds/0/contexts/0/schemes/0/quotas/goals/nr_goals");
		if (r < 0)
			goto out;
	}
	if (pathf(&quiet, path, sizeof(path), "kdamonds/0/contexts/0/avail_operations") == 0 &&
	    read_line(&quiet, path, &b) == 0) {
		/* One name per line in 6.12; spaces accepted too. */
		for (char *tok = strtok(b.data, " \n"); tok; tok = strtok(NULL, " \n")) {
			f->op_vaddr |= strcmp(tok, "vaddr") == 0;
			f->op_fvaddr |= strcmp(tok, "fvaddr") == 0;
			f->op_paddr |= strcmp(tok, "paddr") == 0;
		}
	}
#define S0 "kdamonds/0/contexts/0/schemes/0/"
	f->probed = existsf(&quiet, S0 "action");
	f->target_nid = existsf(&quiet, S0 "target_nid");
	f->dests = existsf(&quiet, S0 "dests");
	f->filter_allow = existsf(&quiet, S0 "filters/0/allow");
	f->split_filters = filter_dirs_of(&quiet, 0, 0).split;
	f->goal_nid = existsf(&quiet, S0 "quotas/goals/0/nid");
#undef S0
out:
	tierd_buf_free(&b);
	if (created) {
		int r2 = putf(&io, u64s(v, 0), "kdamonds/nr_kdamonds");

		if (r == 0)
			r = r2;
	}
	return r;
}

int tierd_damon_start(const char *root, const struct tierd_damon_spec *spec, unsigned busy_retries,
		      struct tierd_damon *d, const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, busy_retries };
	char v[NUM_MAX], path[TIERD_FILE_PATH_MAX];
	uint64_t nr = 0;
	int r;

	*d = (struct tierd_damon){ 0 };
	r = validate(spec, log);
	if (r < 0)
		return r;
	if (tierd_root_path(root, TIERD_DAMON_ADMIN, d->admin, sizeof(d->admin)) < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s", root);
	r = pathf(&io, path, sizeof(path), "kdamonds/nr_kdamonds");
	if (r < 0)
		return r;
	if (!exists(path))
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOENT,
				       "%s: DAMON sysfs is not available (CONFIG_DAMON_SYSFS)",
				       path);
	r = read_u64(&io, path, &nr);
	if (r < 0)
		return r;
	if (nr > 0) {
		d->nr_foreign = nr;
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EBUSY,
				       "%s is %" PRIu64 ": DAMON is in use by someone else; tierd leaves those kdamonds alone and runs without DAMON",
				       path, nr);
	}
	r = write_file(&io, path, u64s(v, spec->nr_contexts));
	if (r < 0)
		return r;
	d->nr_kdamonds = spec->nr_contexts;
	for (size_t k = 0; r == 0 && k < spec->nr_contexts; k++)
		r = putf(&io, u64s(v, 1), "kdamonds/%zu/contexts/nr_contexts", k);
	for (size_t k = 0; r == 0 && k < spec->nr_contexts; k++)
		r = write_context(&io, k, &spec->contexts[k]);
	for (size_t k = 0; r == 0 && k < spec->nr_contexts; k++)
		r = turn_on(d, &io, k);
	/* Busy past the retries (seen on 6.12 while another kdamond starts):
	 * worth trying again later, unlike someone else's kdamonds. */
	if (r == -EBUSY)
		r = -EAGAIN;
	/* The first error is the one told. */
	if (r < 0)
		tierd_damon_stop(d, NULL);
	return r;
}

int tierd_damon_commit_ctx(struct tierd_damon *d, const struct tierd_damon_spec *spec, size_t ctx,
			   const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, TIERD_DAMON_BUSY_RETRIES };
	int r = validate(spec, log);

	if (r < 0)
		return r;
	if (!d->running || ctx >= d->nr_kdamonds || ctx >= spec->nr_contexts)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: kdamond %zu is not one of tierd's %zu running ones",
				       d->admin, ctx, d->nr_kdamonds);
	r = write_context(&io, ctx, &spec->contexts[ctx]);
	if (r == 0)
		r = state_cmd(&io, ctx, "commit", true);
	return r;
}

int tierd_damon_read_stats(struct tierd_damon *d, size_t ctx, struct tierd_damon_scheme_stats *out,
			   size_t n, const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, TIERD_DAMON_BUSY_RETRIES };
	char path[TIERD_FILE_PATH_MAX];
	int r;

	if (ctx >= d->nr_kdamonds)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: kdamond %zu is not one of tierd's %zu", d->admin, ctx,
				       d->nr_kdamonds);
	r = state_cmd(&io, ctx, "update_schemes_stats", false);
	for (size_t s = 0; r == 0 && s < n; s++) {
		static const char *const fields[] = { "nr_tried", "sz_tried", "nr_applied",
						      "sz_applied", "qt_exceeds" };
		uint64_t val[TIERD_ARRAY_SIZE(fields)];

		for (size_t i = 0; r == 0 && i < TIERD_ARRAY_SIZE(fields); i++) {
			r = pathf(&io, path, sizeof(path), "kdamonds/%zu/contexts/0/schemes/%zu/stats/%s",
				  ctx, s, fields[i]);
			if (r == 0)
				r = read_u64(&io, path, &val[i]);
		}
		if (r == 0)
			out[s] = (struct tierd_damon_scheme_stats){
				.nr_tried = val[0], .sz_tried = val[1], .nr_applied = val[2],
				.sz_applied = val[3], .qt_exceeds = val[4],
			};
	}
	return r;
}

int tierd_damon_is_on(struct tierd_damon *d, size_t ctx, bool *on, const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, TIERD_DAMON_BUSY_RETRIES };
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_buf b = { 0 };
	int r;

	r = pathf(&io, path, sizeof(path), "kdamonds/%zu/state", ctx);
	if (r == 0)
		r = read_line(&io, path, &b);
	if (r == 0)
		*on = strcmp(b.data, "on") == 0;
	tierd_buf_free(&b);
	return r;
}

int tierd_damon_restart(struct tierd_damon *d, const struct tierd_damon_spec *spec, size_t ctx,
			const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, TIERD_DAMON_BUSY_RETRIES };
	int r = validate(spec, log);

	if (r == 0 && (ctx >= d->nr_kdamonds || ctx >= spec->nr_contexts))
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				    "%s: kdamond %zu is not one of tierd's %zu", d->admin, ctx,
				    d->nr_kdamonds);
	if (r == 0)
		r = write_context(&io, ctx, &spec->contexts[ctx]);
	if (r == 0)
		r = turn_on(d, &io, ctx);
	return r;
}

int tierd_damon_take_back(const char *root, struct tierd_kdamond_claim *c, size_t n,
			  bool *removed, const struct tierd_logger *log)
{
	char admin[TIERD_FILE_PATH_MAX], path[TIERD_FILE_PATH_MAX];
	const struct dio io = { admin, log, TIERD_DAMON_BUSY_RETRIES };
	uint32_t proven = 0;
	uint64_t nr = 0;
	int first = 0, r;

	*removed = false;
	for (size_t i = 0; i < n; i++) {
		c[i].verdict = TIERD_KDAMOND_NOT_RUNNING;
		c[i].now_pid = -1;
	}
	if (tierd_root_path(root, TIERD_DAMON_ADMIN, admin, sizeof(admin)) < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s", root);
	r = pathf(&io, path, sizeof(path), "kdamonds/nr_kdamonds");
	if (r < 0 || !exists(path))
		return r;
	r = read_u64(&io, path, &nr);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (c[i].index >= nr || c[i].index >= TIERD_DAMON_MAX_CONTEXTS)
			continue;
		r = read_pid(&io, c[i].index, &c[i].now_pid);
		if (r == 0 && c[i].now_pid == c[i].pid) {
			c[i].verdict = TIERD_KDAMOND_TAKEN_BACK;
			r = state_cmd(&io, c[i].index, "off", false);
			if (r == 0)
				proven |= 1u << c[i].index;
		} else if (r == 0 && c[i].now_pid != -1) {
			c[i].verdict = TIERD_KDAMOND_FOREIGN;
		}
		if (r < 0 && first == 0)
			first = r;
	}
	if (nr == 0 || nr > TIERD_DAMON_MAX_CONTEXTS || proven != (1u << nr) - 1)
		return first;
	r = write_file(&io, path, "0");
	if (r == 0)
		*removed = true;
	return first ? first : r;
}

struct named_region {
	unsigned long idx;
	struct tierd_damon_tried_region r;
};

static int cmp_region(const void *a, const void *b)
{
	const struct tierd_damon_tried_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int tierd_damon_read_tried_regions(struct tierd_damon *d, size_t ctx, size_t scheme,
				   struct tierd_damon_tried_region *out, size_t n,
				   const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, TIERD_DAMON_BUSY_RETRIES };
	char dir[TIERD_FILE_PATH_MAX], path[TIERD_FILE_PATH_MAX];
	struct dirent *de;
	size_t got = 0;
	DIR *dp;
	int r;

	if (ctx >= d->nr_kdamonds)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: kdamond %zu is not one of tierd's %zu", d->admin, ctx,
				       d->nr_kdamonds);
	r = state_cmd(&io, ctx, "update_schemes_tried_regions", false);
	if (r < 0)
		return r;
	r = pathf(&io, dir, sizeof(dir), "kdamonds/%zu/contexts/0/schemes/%zu/tried_regions", ctx,
		  scheme);
	if (r < 0)
		return r;
	dp = opendir(dir);
	if (!dp)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "%s", dir);
	/* Entry names are not 0..n-1: take every numeric directory there is. */
	while (got < n && (de = readdir(dp))) {
		static const char *const fields[] = { "start", "end", "nr_accesses", "age" };
		uint64_t val[TIERD_ARRAY_SIZE(fields)];

		if (!all_digits(de->d_name))
			continue;
		for (size_t i = 0; r == 0 && i < TIERD_ARRAY_SIZE(fields); i++) {
			if (snprintf(path, sizeof(path), "%s/%s/%s", dir, de->d_name, fields[i]) >=
			    (int)sizeof(path)) {
				r = tierd_log_errno(log, TIERD_LOG_DEBUG, -ENAMETOOLONG, "%s/%s",
						    dir, de->d_name);
			} else {
				r = read_u64(&io, path, &val[i]);
			}
		}
		if (r == -ENOENT) {
			r = 0; /* the kernel re-created the list meanwhile: skip it */
			continue;
		}
		if (r < 0)
			break;
		out[got++] = (struct tierd_damon_tried_region){
			.start = val[0],
			.end = val[1],
			.nr_accesses = val[2] > UINT32_MAX ? UINT32_MAX : (uint32_t)val[2],
			.age = val[3] > UINT32_MAX ? UINT32_MAX : (uint32_t)val[3],
		};
	}
	closedir(dp);
	if (r < 0)
		return r;
	qsort(out, got, sizeof(*out), cmp_region);
	return (int)got;
}

int tierd_damon_stop(struct tierd_damon *d, const struct tierd_logger *log)
{
	const struct dio io = { d->admin, log, TIERD_DAMON_BUSY_RETRIES };
	char path[TIERD_FILE_PATH_MAX];
	uint64_t nr = 0;
	int r = 0, r2;

	if (d->nr_kdamonds == 0)
		return 0;
	if (d->running) {
		for (size_t k = 0; k < d->nr_kdamonds; k++) {
			r2 = state_cmd(&io, k, "off", false);
			/* That kdamond was not running: -EINVAL when it was
			 * never turned on, -EPERM when its thread ended (a
			 * rejected commit or input). */
			if (r2 < 0 && r2 != -EINVAL && r2 != -EPERM && r == 0)
				r = r2;
		}
		/* A kdamond an "off" did not reach still runs: the next stop
		 * must turn it off again, and removing the kdamonds now would
		 * only meet -EBUSY (on 6.12 it kept DAMON from ever starting). */
		if (r < 0)
			return r;
		d->running = false;
		memset(d->pid, 0, sizeof(d->pid));
	}
	/* Remove the kdamonds only while nr_kdamonds still counts just ours. */
	r2 = pathf(&io, path, sizeof(path), "kdamonds/nr_kdamonds");
	if (r2 == 0)
		r2 = read_u64(&io, path, &nr);
	if (r2 == 0 && nr == d->nr_kdamonds)
		r2 = write_file(&io, path, "0");
	if (r2 < 0 && r == 0)
		r = r2;
	if (r == 0)
		d->nr_kdamonds = 0;
	return r;
}
