/* journald or stderr. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "log.h"

/* Message, priority, syslog identifier, event fields. */
#define LOG_MAX_FIELDS 16
/* Event field buffers: the "KEY=" prefix and the longest value. */
#define EVENT_FIELD_MAX 64
#define CGROUP_FIELD_MAX (TIERD_CGROUP_PATH_MAX + sizeof("TIERD_CGROUP="))
#define POLICY_FIELD_MAX (TIERD_NAME_MAX + sizeof("TIERD_POLICY="))
#define NUM_FIELD_MAX 48 /* "TIERD_BYTES=" and a 64-bit number */

/* systemd sets JOURNAL_STREAM=dev:ino for a service whose stderr is the
 * journal (systemd.exec(5)); then native journal logging is preferred. */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void tierd_log_setup(struct tierd_logger *log, enum tierd_log_target target,
		     enum tierd_log_level level)
{
	if (target == TIERD_LOG_TARGET_AUTO)
		target = stderr_is_journal() ? TIERD_LOG_TARGET_JOURNAL : TIERD_LOG_TARGET_STDERR;
	*log = (struct tierd_logger){ .target = target, .level = level };
}

int tierd_log_target_parse(const char *s, enum tierd_log_target *ret)
{
	if (strcmp(s, "auto") == 0)
		*ret = TIERD_LOG_TARGET_AUTO;
	else if (strcmp(s, "journal") == 0)
		*ret = TIERD_LOG_TARGET_JOURNAL;
	else if (strcmp(s, "stderr") == 0)
		*ret = TIERD_LOG_TARGET_STDERR;
	else
		return -EINVAL;
	return 0;
}

static const char *level_name(enum tierd_log_level level)
{
	switch (level) {
	case TIERD_LOG_ERR:
		return "error";
	case TIERD_LOG_WARNING:
		return "warning";
	case TIERD_LOG_NOTICE:
		return "notice";
	case TIERD_LOG_INFO:
		return "info";
	case TIERD_LOG_DEBUG:
		return "debug";
	}
	return "?";
}

void tierd_log_fields(const struct tierd_logger *log, enum tierd_log_level level,
		      const char *const *fields, size_t nr_fields, const char *fmt, ...)
{
	char msg[TIERD_ERR_MAX], message[TIERD_ERR_MAX + sizeof("MESSAGE=")], prio[16];
	struct iovec iov[LOG_MAX_FIELDS];
	size_t n = 0;
	va_list ap;

	if (!log || level > log->level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (log->sink) {
		log->sink(log->sink_ctx, level, msg);
		return;
	}
	if (log->target != TIERD_LOG_TARGET_JOURNAL) {
		fprintf(stderr, "tierd: %s: %s\n", level_name(level), msg);
		return;
	}
	snprintf(message, sizeof(message), "MESSAGE=%s", msg);
	snprintf(prio, sizeof(prio), "PRIORITY=%d", (int)level);
	iov[n++] = (struct iovec){ .iov_base = message, .iov_len = strlen(message) };
	iov[n++] = (struct iovec){ .iov_base = prio, .iov_len = strlen(prio) };
	iov[n++] = (struct iovec){ .iov_base = (char *)"SYSLOG_IDENTIFIER=tierd",
				   .iov_len = strlen("SYSLOG_IDENTIFIER=tierd") };
	for (size_t i = 0; i < nr_fields && n < LOG_MAX_FIELDS; i++)
		iov[n++] = (struct iovec){ .iov_base = (char *)fields[i], .iov_len = strlen(fields[i]) };
	if (sd_journal_sendv(iov, (int)n) < 0)
		fprintf(stderr, "tierd: %s: %s\n", level_name(level), msg);
}

void tierd_log_event(const struct tierd_logger *log, enum tierd_log_level level,
		     const struct tierd_event *ev, const char *fmt, ...)
{
	char f_event[EVENT_FIELD_MAX], f_cgroup[CGROUP_FIELD_MAX], f_policy[POLICY_FIELD_MAX],
		f_tier[NUM_FIELD_MAX], f_bytes[NUM_FIELD_MAX], msg[TIERD_ERR_MAX];
	const char *fields[5];
	size_t n = 0;
	va_list ap;

	if (!log || level > log->level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(f_event, sizeof(f_event), "TIERD_EVENT=%s", ev->event);
	fields[n++] = f_event;
	if (ev->cgroup) {
		snprintf(f_cgroup, sizeof(f_cgroup), "TIERD_CGROUP=%s", ev->cgroup);
		fields[n++] = f_cgroup;
	}
	if (ev->policy) {
		snprintf(f_policy, sizeof(f_policy), "TIERD_POLICY=%s", ev->policy);
		fields[n++] = f_policy;
	}
	if (ev->tier >= 0) {
		snprintf(f_tier, sizeof(f_tier), "TIERD_TIER=%d", ev->tier);
		fields[n++] = f_tier;
	}
	if (ev->tier >= 0 || ev->has_bytes) {
		snprintf(f_bytes, sizeof(f_bytes), "TIERD_BYTES=%llu", (unsigned long long)ev->bytes);
		fields[n++] = f_bytes;
	}
	tierd_log_fields(log, level, fields, n, "%s", msg);
}

int tierd_log_errno(const struct tierd_logger *log, enum tierd_log_level level, int r,
		    const char *fmt, ...)
{
	char msg[TIERD_ERR_MAX];
	va_list ap;

	if (!log || level > log->level)
		return r;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tierd_log(log, level, "%s: %s", msg, strerror(-r));
	return r;
}

static void keep_message(void *ctx, enum tierd_log_level level, const char *msg)
{
	struct tierd_log_keep *k = ctx;

	snprintf(k->last, sizeof(k->last), "%s", msg);
	k->nr++;
	tierd_log(k->to, level, "%s", msg);
}

const struct tierd_logger *tierd_log_keep(struct tierd_log_keep *k, const struct tierd_logger *to)
{
	*k = (struct tierd_log_keep){
		.log = { .target = TIERD_LOG_TARGET_STDERR, .level = TIERD_LOG_DEBUG,
			 .sink = keep_message },
		.to = to,
	};
	k->log.sink_ctx = k;
	return &k->log;
}

const char *tierd_log_kept(const struct tierd_log_keep *k, int r)
{
	return k->nr ? k->last : strerror(-r);
}
