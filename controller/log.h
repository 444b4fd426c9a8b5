/* Logging for the daemon and CLI: journald with structured fields when
 * running under systemd, stderr otherwise. The logger is part of the
 * daemon's context, not a global, and is passed to the code that needs it.
 *
 * Errors are negative errno values, and one convention reports them: the
 * code that meets an error logs what it knows (which file, which line) at
 * debug level and returns the errno in one statement, with
 * tierd_log_errno; the code that handles it logs the consequence at its
 * own level, naming what it knows and strerror(-r). A function that can
 * fail takes the logger as its last parameter. */
#ifndef TIERD_LOG_H
#define TIERD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/policy.h"

enum tierd_log_target {
	TIERD_LOG_TARGET_AUTO,    /* journal when stderr is the journal's stream */
	TIERD_LOG_TARGET_JOURNAL,
	TIERD_LOG_TARGET_STDERR,
};

struct tierd_logger {
	enum tierd_log_target target; /* resolved: never AUTO after setup */
	enum tierd_log_level level;
	/* When set, gets each message the level lets through, formatted and
	 * without its fields, instead of the journal or stderr: for tests and
	 * for tierd_log_keep. */
	void (*sink)(void *ctx, enum tierd_log_level level, const char *msg);
	void *sink_ctx;
};

void tierd_log_setup(struct tierd_logger *log, enum tierd_log_target target,
		     enum tierd_log_level level);
int tierd_log_target_parse(const char *s, enum tierd_log_target *ret);

/* A message with structured fields, each "KEY=value" (journald field names:
 * uppercase, digits, '_'). The message explains itself; fields are for
 * filtering (journalctl TIERD_CGROUP=/x). Every function here takes log
 * NULL as "say nothing": for a caller that has nothing to add, e.g. a
 * retry whose first failure was already told. */
void tierd_log_fields(const struct tierd_logger *log, enum tierd_log_level level,
		      const char *const *fields, size_t nr_fields, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define tierd_log(log, level, ...) tierd_log_fields(log, level, NULL, 0, __VA_ARGS__)

/* Room for one message: a path and what went wrong with it. */
#define TIERD_ERR_MAX (TIERD_FILE_PATH_MAX + 1024)

/* Logs "message: strerror(-r)" and returns r (a negative errno), so an
 * error is told and passed on in one statement, as systemd's
 * log_error_errno does:
 *	return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL, "%s: expected Y or N", path); */
int tierd_log_errno(const struct tierd_logger *log, enum tierd_log_level level, int r,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Keeps the last message logged through it, for a handler whose own
 * message must carry the cause as the code that met it worded it: an
 * answer someone waits for (tierd refusing to start or to reload,
 * tierctl), or a failure met every tick and told once. */
struct tierd_log_keep {
	struct tierd_logger log;
	const struct tierd_logger *to; /* where messages also go; NULL: nowhere */
	size_t nr;                     /* messages kept so far */
	char last[TIERD_ERR_MAX];
};

/* Empties k and returns the logger to pass down: it lets every level
 * through to k, and on to `to` at that logger's own level. */
const struct tierd_logger *tierd_log_keep(struct tierd_log_keep *k, const struct tierd_logger *to);

/* The last message kept, or strerror(-r) when the call logged none. */
const char *tierd_log_kept(const struct tierd_log_keep *k, int r);

/* The structured fields of an event: TIERD_EVENT always; TIERD_CGROUP and
 * TIERD_POLICY when set; TIERD_TIER when tier >= 0; TIERD_BYTES with a tier
 * or when has_bytes. */
struct tierd_event {
	const char *event;
	const char *cgroup;
	const char *policy;
	int tier;
	bool has_bytes;
	uint64_t bytes;
};

void tierd_log_event(const struct tierd_logger *log, enum tierd_log_level level,
		     const struct tierd_event *ev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An event with the fields it has: the cgroup and policy when not NULL, the
 * tier and its bytes when tier >= 0. */
#define tierd_log_ev(log, level, event_, cgroup_, policy_, tier_, bytes_, ...)   \
	tierd_log_event(log, level,                                            \
			&(const struct tierd_event){ .event = (event_),          \
						     .cgroup = (cgroup_),        \
						     .policy = (policy_),        \
						     .tier = (tier_),            \
						     .bytes = (bytes_) },        \
			__VA_ARGS__)

#endif
