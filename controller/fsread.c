/* Whole-file reads with openat + pread. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd_util.h"
#include "fsread.h"
#include "../policy/util.h"

/* memory.stat on a 6.12 kernel is ~2 KiB; a file of this size is not one we
 * read. */
#define READ_MAX_BYTES (4u << 20)
#define READ_FIRST_BYTES 4096u

void tierd_buf_free(struct tierd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static int read_fd(int fd, struct tierd_buf *b, bool one_record)
{
	b->len = 0;
	for (;;) {
		ssize_t n;

		if (b->cap - b->len < 2) {
			size_t cap = b->cap ? b->cap * 2 : READ_FIRST_BYTES;
			char *data;

			if (cap > READ_MAX_BYTES)
				return -EFBIG;
			data = realloc(b->data, cap);
			if (!data)
				return -ENOMEM;
			b->data = data;
			b->cap = cap;
		}
		size_t want = b->cap - b->len - 1;

		n = pread(fd, b->data + b->len, want, (off_t)b->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		if (one_record && (size_t)n < want)
			break;
	}
	b->data[b->len] = '\0';
	return 0;
}

static int read_whole(int dirfd, const char *name, struct tierd_buf *b, bool one_record)
{
	_cleanup_close_ int fd = -1;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_fd(fd, b, one_record);
}

int tierd_read_at(int dirfd, const char *name, struct tierd_buf *b)
{
	return read_whole(dirfd, name, b, false);
}

int tierd_read_cgroup_file(int dirfd, const char *name, struct tierd_buf *b)
{
	return read_whole(dirfd, name, b, true);
}

int tierd_pread_cgroup_file(int fd, struct tierd_buf *b)
{
	return read_fd(fd, b, true);
}

int tierd_root_path(const char *root, const char *path, char *buf, size_t size)
{
	int n;

	if (!root || !*root || strcmp(root, "/") == 0)
		n = snprintf(buf, size, "%s", path);
	else
		n = snprintf(buf, size, "%s%s", root, path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
