/* memory.reclaim as a kernel worker's job (kernel_worker.h): the tick
 * lists the cgroups to reclaim and goes on; the job writes each one's
 * memory.reclaim and reads where its memory sits after, and a later tick
 * accounts and logs what moved. memory.reclaim blocks while the kernel
 * demotes (570 to 834 ms for one cgroup seen in the test VM, seconds for
 * hundreds of MiB), which on the tick's thread delayed the tick, the
 * watchdog ping and the sampler's ring buffer with it. */
#ifndef TIERD_RECLAIM_JOB_H
#define TIERD_RECLAIM_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroupfs.h"
#include "log.h"
#include "../policy/snapshot.h"

/* One cgroup's reclaim. */
struct tierd_reclaim_item {
	uint64_t cgroup_id;
	char path[TIERD_CGROUP_PATH_MAX];
	uint64_t bytes;            /* asked for */
	uint64_t before_top;       /* in tier 0, as the tick observed */
	uint64_t moved;            /* out of tier 0, measured after the write */
	int r;                     /* tierd_memory_reclaim's, or the openat's -errno */
	bool ran;                  /* false: left at the deadline */
};

/* The job owns its copies: the tick may reload its logger and topology
 * while it runs. */
struct tierd_reclaim_job {
	const struct tierd_cgroupfs *fs; /* outlives the worker */
	struct tierd_topology topo;
	struct tierd_logger log;
	uint64_t deadline_usec;    /* CLOCK_MONOTONIC: no new write after it */
	size_t nr, cap;
	struct tierd_reclaim_item *items;
};

/* Starts an empty job. */
void tierd_reclaim_job_init(struct tierd_reclaim_job *job, const struct tierd_cgroupfs *fs,
			    const struct tierd_topology *topo, const struct tierd_logger *log,
			    uint64_t deadline_usec);

/* Adds a reclaim of bytes from the cgroup obs. Returns 0 or -ENOMEM. */
int tierd_reclaim_job_add(struct tierd_reclaim_job *job, const struct tierd_cgroup_obs *obs,
			  uint64_t bytes);

/* The worker's run(): the items in order, each written and measured; the
 * ones not begun by the deadline are left (ran false) for a later tick's
 * plan. */
void tierd_reclaim_job_run(void *job);

/* Frees the items; the job is empty again. */
void tierd_reclaim_job_clear(struct tierd_reclaim_job *job);

#endif
