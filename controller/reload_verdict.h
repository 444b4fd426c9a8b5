/* The reload verdict: after each SIGHUP tierd writes, atomically, whether
 * the new configuration and policies were taken, under a generation that
 * counts reloads, to <runtime dir>/reload:
 *
 *   pid 1234
 *   generation 3
 *   result refused
 *   message /etc/tierd/policies.d/x.json: refused: writable by group ...
 *
 * `tierctl reload` (the unit's ExecReload=) reads the generation, sends
 * SIGHUP, and waits for the next one, so `systemctl reload tierd` fails
 * when the reload was refused (systemd 252 has no Type=notify-reload). */
#ifndef TIERD_RELOAD_VERDICT_H
#define TIERD_RELOAD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "../policy/policy.h"

#define TIERD_RELOAD_FILE "reload"
#define TIERD_RELOAD_MESSAGE_MAX (TIERD_FILE_PATH_MAX + 1024)
/* How long tierctl reload waits for the verdict: a reload reads a few
 * small files; a tick in progress (DAMON commands block up to an
 * aggregation interval each) delays it by at most a second or two. */
#define TIERD_RELOAD_WAIT_SEC 30
#define TIERD_RELOAD_POLL_USEC 20000

struct tierd_reload_verdict {
	int pid;
	uint64_t generation;
	bool ok;
	char message[TIERD_RELOAD_MESSAGE_MAX];
};

/* Strict and pure: the four lines above, in that order. Returns 0 or
 * -EINVAL, told to log at debug level with the line named. */
int tierd_reload_verdict_parse(const char *text, size_t len, struct tierd_reload_verdict *out,
			       const struct tierd_logger *log);

/* Writes v to dir/reload atomically (a newline in the message becomes a
 * space). Returns 0 or -errno. */
int tierd_reload_verdict_write(const char *dir, const struct tierd_reload_verdict *v);

/* Reads dir/reload. Returns 0, -ENOENT, or -errno/-EINVAL, told with the
 * file named. */
int tierd_reload_verdict_read(const char *dir, struct tierd_reload_verdict *out,
			      const struct tierd_logger *log);

#endif
