/* Reading kernel files whole: sysfs, procfs and cgroupfs files are
 * regenerated on each read from offset 0, and memory.stat/numa_stat pass
 * 4 KiB (docs/kernel.md §6), so the buffer grows as needed. */
#ifndef TIERD_FSREAD_H
#define TIERD_FSREAD_H

#include <stddef.h>

/* A reusable read buffer; free with tierd_buf_free. */
struct tierd_buf {
	char *data;
	size_t len;
	size_t cap;
};

void tierd_buf_free(struct tierd_buf *b);

/* Reads dirfd/name (openat) whole into b (NUL-terminated, len excludes it).
 * Returns 0 or -errno (-ENOENT/-ENODEV when the file or its cgroup went
 * away, -EFBIG past the size cap, -ENOMEM). */
int tierd_read_at(int dirfd, const char *name, struct tierd_buf *b);

/* The same for a cgroup interface file (memory.stat, memory.current, ...).
 * The kernel prints one whole in a single record (cgroup_seqfile_show() in
 * kernel/cgroup/cgroup.c; docs/design.md), so a read that does not fill the
 * buffer has reached the end: one pread(2) per file instead of two. Not for
 * files of many records (mountinfo), where a short read is not the end. */
int tierd_read_cgroup_file(int dirfd, const char *name, struct tierd_buf *b);
/* The same from a cgroup file held open, from offset 0. */
int tierd_pread_cgroup_file(int fd, struct tierd_buf *b);

/* Joins root and an absolute path ("/sys/...") into buf; root "/" or ""
 * gives the path itself. Returns 0 or -ENAMETOOLONG. */
int tierd_root_path(const char *root, const char *path, char *buf, size_t size);

#endif
