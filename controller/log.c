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
#define LOG_MSG_MAX 1024

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
	log->target = target;
	log->level = level;
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
	char msg[LOG_MSG_MAX], message[LOG_MSG_MAX + sizeof("MESSAGE=")], prio[16];
	struct iovec iov[LOG_MAX_FIELDS];
	size_t n = 0;
	va_list ap;

	if (level > log->level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

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
