/* Reading a file that decides what tierd does (tierd.json, a policy) only
 * when nobody but its administrator could have written it, as sudo does for
 * sudoers.d and sshd's StrictModes for authorized_keys:
 *  - a regular file (a symlink is followed, and its target must be one);
 *  - opened with O_NONBLOCK, so a FIFO or a device fails the check instead
 *    of blocking the open or the read;
 *  - owned by root, or by the user reading it (tierd runs as root, so for
 *    the daemon that is root alone; a user may check their own drafts with
 *    tierctl validate);
 *  - not writable by group or others;
 *  - at most TIERD_TRUSTED_FILE_MAX_BYTES.
 * The checks are made on the open file (fstat), not on the path, so the
 * file cannot be swapped between check and read. */
#ifndef TIERD_TRUSTED_FILE_H
#define TIERD_TRUSTED_FILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* 1 MiB: a policy or tierd.json is a few hundred bytes; anything near this
 * is not one. */
#define TIERD_TRUSTED_FILE_MAX_BYTES (1024 * 1024)

/* Room for any reason tierd_trusted_check gives. */
#define TIERD_TRUSTED_WHY_MAX 128

/* The rules above on st, for a reader running as euid: 0 when they hold,
 * else -EINVAL (not a regular file), -EPERM (owner, mode) or -EFBIG
 * (size), with why saying which rule failed, e.g. "not a regular
 * file (a character device)". Pure, so the owner rule is testable without
 * root. */
int tierd_trusted_check(const struct stat *st, uid_t euid, char *why, size_t why_size);

/* Opens file, checks it (tierd_trusted_check with geteuid()) and reads it
 * whole into a NUL-terminated *ret_text. Returns 0; -errno of open/read
 * with why "cannot read: <strerror>"; or the check's error with why
 * "refused: <the rule that failed>". */
int tierd_trusted_read(const char *file, char **ret_text, size_t *ret_len, char *why,
		       size_t why_size);

#endif
