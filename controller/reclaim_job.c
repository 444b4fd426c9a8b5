/* memory.reclaim on the kernel worker; see reclaim_job.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fd_util.h"
#include "fsread.h"
#include "reclaim.h"
#include "reclaim_job.h"

void tierd_reclaim_job_init(struct tierd_reclaim_job *job, const struct tierd_cgroupfs *fs,
			    const struct tierd_topology *topo, const struct tierd_logger *log,
			    uint64_t deadline_usec)
{
	tierd_reclaim_job_clear(job);
	job->fs = fs;
	job->topo = *topo;
	job->log = *log;
	job->deadline_usec = deadline_usec;
}

int tierd_reclaim_job_add(struct tierd_reclaim_job *job, const struct tierd_cgroup_obs *obs,
			  uint64_t bytes)
{
	struct tierd_reclaim_item *it;

	if (job->nr == job->cap) {
		size_t cap = job->cap ? 2 * job->cap : 4;

		it = realloc(job->items, cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		job->items = it;
		job->cap = cap;
	}
	it = &job->items[job->nr++];
	*it = (struct tierd_reclaim_item){
		.cgroup_id = obs->id,
		.bytes = bytes,
		.before_top = tierd_cgroup_tier_bytes(&job->topo, obs, 0, NULL, NULL),
	};
	memcpy(it->path, obs->path, sizeof(it->path));
	return 0;
}

/* Writes the item's memory.reclaim and measures tier 0 after it. */
static void run_item(struct tierd_reclaim_job *job, struct tierd_reclaim_item *it,
		     struct tierd_buf *buf)
{
	_cleanup_close_ int fd = -1;
	struct tierd_cgroup_obs after = { 0 };
	uint64_t after_top;

	it->ran = true;
	fd = openat(job->fs->root_fd, it->path[1] ? it->path + 1 : ".",
		    O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		it->r = -errno;
		return;
	}
	it->r = tierd_memory_reclaim(fd, it->path, it->bytes, &job->log);
	if (tierd_cgroupfs_read(job->fs, it->path, &job->topo, &after, buf, NULL, &job->log) < 0)
		return;
	after_top = tierd_cgroup_tier_bytes(&job->topo, &after, 0, NULL, NULL);
	it->moved = it->before_top > after_top ? it->before_top - after_top : 0;
}

void tierd_reclaim_job_run(void *data)
{
	struct tierd_reclaim_job *job = data;
	struct tierd_buf buf = { 0 };

	for (size_t i = 0; i < job->nr; i++) {
		/* The first always runs: a deadline shorter than one write
		 * would leave every cgroup over its max for good. */
		if (i && tierd_clock_usec(CLOCK_MONOTONIC) >= job->deadline_usec)
			break;
		run_item(job, &job->items[i], &buf);
	}
	tierd_buf_free(&buf);
}

void tierd_reclaim_job_clear(struct tierd_reclaim_job *job)
{
	free(job->items);
	job->items = NULL;
	job->nr = job->cap = 0;
}
