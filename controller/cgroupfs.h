/* The cgroup v2 hierarchy: finding it, listing its cgroups, and reading one
 * cgroup's memory files. memory.* files are read with openat + pread, not
 * libcgroup (its 2.0.2 values stop at 4 KiB; docs/design.md). */
#ifndef TIERD_CGROUPFS_H
#define TIERD_CGROUPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsread.h"
#include "log.h"
#include "../policy/snapshot.h"

struct tierd_cgroupfs {
	int root_fd;                       /* the cgroup2 mount, O_DIRECTORY */
	char mount[TIERD_CGROUP_PATH_MAX]; /* where it is mounted, e.g. /sys/fs/cgroup */
};

/* Finds the cgroup2 mount from root/proc/self/mountinfo and opens it.
 * Refuses a memory controller bound to cgroup v1 (-EMEDIUMTYPE), no cgroup2
 * mount (-ENOENT) and a cgroup2 root without the memory controller
 * (-ENOMEDIUM), telling log at debug level what and how to fix it
 * (log.h). */
int tierd_cgroupfs_open(const char *root, struct tierd_cgroupfs *fs,
			const struct tierd_logger *log);
void tierd_cgroupfs_close(struct tierd_cgroupfs *fs);

struct tierd_cgroup_list {
	size_t nr;
	char **paths; /* "/a/b", sorted; the root cgroup itself is not listed */
};

/* Every cgroup below the root, at most TIERD_CGROUP_MAX_DEPTH deep. A cgroup
 * that vanishes while the walk is in it is skipped. Returns 0 or -errno. */
int tierd_cgroupfs_list(const struct tierd_cgroupfs *fs, struct tierd_cgroup_list *list);
/* The same, adding an inotify watch (mask) on each directory before reading
 * it; *ret_watched false when a watch could not be added. */
int tierd_cgroupfs_list_watched(const struct tierd_cgroupfs *fs, int inotify_fd, uint32_t mask,
				struct tierd_cgroup_list *list, bool *ret_watched);
void tierd_cgroup_list_free(struct tierd_cgroup_list *list);

/* cgroup v2 nests at most this deep in practice (systemd: slice/slice/unit). */
#define TIERD_CGROUP_MAX_DEPTH 32

/* What tierd reads of a cgroup, kept open between ticks by the daemon:
 * each tick reads every file again from offset 0 (the kernel prints a
 * cgroup file afresh for a read from its start), one pread(2) a file
 * instead of openat, pread and close. fds are held while the pool has room
 * (the daemon sizes it under RLIMIT_NOFILE); past it, files are opened and
 * closed as before. */
#define TIERD_CGROUP_NR_FILES 4

struct tierd_fd_pool {
	size_t held, max;
};

struct tierd_cgroup_files {
	int dir_fd;                      /* -1: not open */
	uint64_t id;                     /* the directory's inode */
	int fd[TIERD_CGROUP_NR_FILES];   /* -1: not open */
	struct tierd_fd_pool *pool;
};

void tierd_cgroup_files_init(struct tierd_cgroup_files *f, struct tierd_fd_pool *pool);
void tierd_cgroup_files_close(struct tierd_cgroup_files *f);

/* Reads memory.numa_stat, .current, .stat and .pressure of cgroup path
 * into obs (nothing reads the limits: four preads a cgroup a tick, a fifth
 * of the tick's CPU at 1,000 cgroups, went to them), through files when not NULL (opening
 * what is not open yet; a failed read closes them all and reads once more
 * afresh, so a cgroup removed and made again is read anew). Returns 0; -ENOENT when the cgroup
 * went away meanwhile (skip it); -ENOMEDIUM when a memory file is missing
 * from a cgroup that is there (the memory controller is not enabled for
 * it); -EINVAL, told as "file:line: ...", on a malformed file; -ENOMEM;
 * other -errno. Failures are told to log at debug level with the file. */
int tierd_cgroupfs_read(const struct tierd_cgroupfs *fs, const char *path,
			const struct tierd_topology *topo, struct tierd_cgroup_obs *obs,
			struct tierd_buf *buf, struct tierd_cgroup_files *files,
			const struct tierd_logger *log);

#endif
