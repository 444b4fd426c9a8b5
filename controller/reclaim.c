/* memory.reclaim writes; see reclaim.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "fd_util.h"
#include "reclaim.h"
#include "../policy/util.h"

#define RECLAIM_FILE "memory.reclaim"
#define NUM_MAX 24 /* a decimal uint64_t and its NUL */

int tierd_memory_reclaim(int cgroup_dirfd, const char *cgroup, uint64_t bytes,
			 const struct tierd_logger *log)
{
	_cleanup_close_ int fd = -1;
	char value[NUM_MAX];
	size_t len;
	ssize_t n;
	int r = 0;

	len = (size_t)snprintf(value, sizeof(value), "%" PRIu64, bytes);
	fd = openat(cgroup_dirfd, RECLAIM_FILE, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	n = write(fd, value, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
out:
	/* -ENODEV: the cgroup was removed while the file was open. */
	if (r == -ENODEV)
		r = -ENOENT;
	if (r == -EAGAIN)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s/%s: reclaimed less than the %s bytes asked for (the part done is kept)",
				       cgroup, RECLAIM_FILE, value);
	if (r == -ENOENT)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s/%s (the cgroup is gone or has no memory controller)",
				       cgroup, RECLAIM_FILE);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s/%s: writing \"%s\"", cgroup,
				       RECLAIM_FILE, value);
	return 0;
}
