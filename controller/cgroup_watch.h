/* The cgroup list kept between ticks. inotify watches every cgroup
 * directory; the hierarchy is walked again only when a directory came, went
 * or moved, or events were lost, so a steady tick lists nothing. mkdir and
 * rmdir of cgroups (systemd, the kubelet, tests' fixture trees) go through
 * the VFS, which reports them to directory watches. Without inotify or
 * without room for a watch (fs.inotify.max_user_watches) every tick walks,
 * as before. */
#ifndef TIERD_CGROUP_WATCH_H
#define TIERD_CGROUP_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroupfs.h"

struct tierd_cgroup_watch {
	int fd;                        /* inotify, -1: none */
	bool current;                  /* list is what the hierarchy holds */
	bool watching;                 /* the last walk watched every directory */
	struct tierd_cgroup_list list;
	struct tierd_cgroup_files *files; /* list.nr: each cgroup's files held open */
	struct tierd_fd_pool pool;     /* max: set by the owner; 0 holds none */
	uint64_t walks;                /* hierarchy walks so far */
};

void tierd_cgroup_watch_init(struct tierd_cgroup_watch *w);

/* Every cgroup below the root (as tierd_cgroupfs_list()), walked again
 * only when the watches saw a change; w->files[i] holds cgroup i's files
 * for tierd_cgroupfs_read() (all closed at each walk: a path listed again
 * may be a new cgroup). *ret stays valid until the next call or
 * tierd_cgroup_watch_free(). Returns 0 or -errno of the walk. */
int tierd_cgroup_watch_list(struct tierd_cgroup_watch *w, const struct tierd_cgroupfs *fs,
			    const struct tierd_cgroup_list **ret);

void tierd_cgroup_watch_free(struct tierd_cgroup_watch *w);

#endif
