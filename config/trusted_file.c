/* Reading configuration only from files no one else could have written;
 * see trusted_file.h for the rules. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trusted_file.h"
#include "../controller/fd_util.h"
#include "../policy/util.h"

static const char *file_type(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

int tierd_trusted_check(const struct stat *st, uid_t euid, char *why, size_t why_size)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, why_size, "not a regular file (%s)", file_type(st->st_mode));
		return -EINVAL;
	}
	if (st->st_uid != 0 && st->st_uid != euid) {
		snprintf(why, why_size, "owned by uid %u, not by root%s", (unsigned)st->st_uid,
			 euid ? " nor by the user reading it" : "");
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, why_size, "writable by %s (mode %04o); run chmod go-w on it",
			 (st->st_mode & S_IWGRP) && (st->st_mode & S_IWOTH) ? "group and others"
			 : st->st_mode & S_IWGRP ? "group" : "others",
			 (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	if (st->st_size > TIERD_TRUSTED_FILE_MAX_BYTES) {
		snprintf(why, why_size, "%lld bytes, above the limit of %d",
			 (long long)st->st_size, TIERD_TRUSTED_FILE_MAX_BYTES);
		return -EFBIG;
	}
	return 0;
}

int tierd_trusted_read(const char *file, char **ret_text, size_t *ret_len, char *why,
		       size_t why_size)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	char reason[TIERD_TRUSTED_WHY_MAX];
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int r;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, why_size, "cannot read: %s", strerror(-r));
		return r;
	}
	r = tierd_trusted_check(&st, geteuid(), reason, sizeof(reason));
	if (r < 0) {
		snprintf(why, why_size, "refused: %s", reason);
		return r;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(why, why_size, "cannot read: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	/* Reads no more than fstat said: a file growing meanwhile is cut at
	 * the size that was checked. */
	while (len < (size_t)st.st_size &&
	       (n = read(fd, buf + len, (size_t)st.st_size - len)) != 0) {
		if (n < 0) {
			r = -errno;
			snprintf(why, why_size, "cannot read: %s", strerror(-r));
			return r;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_text = TIERD_TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}
