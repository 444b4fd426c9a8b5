/* DAMON on the kernel worker; see damon_async.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damon_async.h"

static void free_regions(struct tierd_damon_view *v)
{
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++) {
		free(v->regions[t]);
		v->regions[t] = NULL;
		v->nr_regions[t] = 0;
	}
}

/* The backend's state and layout: what an apply may change. */
static void take_state(struct tierd_damon_async *a)
{
	a->view.state = a->job.b->state;
	a->view.layout = a->job.b->layout;
}

/* A region array that cannot be copied leaves that tier's view empty
 * until the next refresh: no hotness rather than a stale pointer. */
void tierd_damon_async_refresh(struct tierd_damon_async *a)
{
	const struct tierd_damon_backend *b = a->job.b;
	struct tierd_damon_view *v = &a->view;

	free_regions(v);
	take_state(a);
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++) {
		size_t n = b->nr_regions[t];

		if (!n || !b->regions[t])
			continue;
		v->regions[t] = malloc(n * sizeof(*v->regions[t]));
		if (!v->regions[t])
			continue;
		memcpy(v->regions[t], b->regions[t], n * sizeof(*v->regions[t]));
		v->nr_regions[t] = n;
	}
}

static void free_apply_copies(struct tierd_damon_job *job)
{
	free(job->spans);
	free(job->paths);
	free(job->path_of);
	free(job->ids);
	job->spans = NULL;
	job->paths = NULL;
	job->path_of = NULL;
	job->ids = NULL;
	job->nr_spans = job->nr_cgroups = 0;
}

/* On the worker's thread: the backend is the job's. */
static void run(void *data)
{
	struct tierd_damon_job *job = data;

	if (job->collect)
		job->nr_moved = tierd_damon_backend_collect(job->b, job->now_usec, &job->stats,
							    job->moved, &job->log);
	else
		tierd_damon_backend_apply(job->b, &job->topo, job->spans, job->nr_spans,
					  job->path_of, job->ids, job->period_usec, &job->log);
}

/* An ended job's results: the collect's accounting and moved[] (at most
 * room entries), and the view (the regions only after a collect, the one
 * job that reads them). Returns the moved[] entries filled. */
static size_t reap(struct tierd_damon_async *a, struct tierd_migration_stats *stats,
		   struct tierd_damon_moved *moved, size_t room)
{
	struct tierd_damon_job *job = &a->job;
	size_t n = 0;

	if (!tierd_kernel_worker_reap(&a->worker, NULL))
		return 0;
	if (job->collect) {
		tierd_migration_stats_add(stats, &job->stats);
		n = job->nr_moved < room ? job->nr_moved : room;
		if (n)
			memcpy(moved, job->moved, n * sizeof(*moved));
		tierd_damon_async_refresh(a);
	} else {
		take_state(a);
	}
	free_apply_copies(job);
	return n;
}

int tierd_damon_async_start(struct tierd_damon_async *a, struct tierd_damon_backend *b,
			    bool threaded)
{
	int r = 0;

	*a = (struct tierd_damon_async){ .job = { .b = b }, .fresh = true };
	if (threaded)
		r = tierd_kernel_worker_start(&a->worker);
	tierd_damon_async_refresh(a);
	return r;
}

size_t tierd_damon_async_collect(struct tierd_damon_async *a, uint64_t now_usec,
				 uint64_t deadline_usec, struct tierd_migration_stats *stats,
				 struct tierd_damon_moved *moved, bool *ret_fresh,
				 const struct tierd_logger *log)
{
	struct tierd_damon_job *job = &a->job;
	bool collected, follows_apply;
	size_t n;

	if (!a->worker.started) {
		n = tierd_damon_backend_collect(job->b, now_usec, stats, moved, log);
		tierd_damon_async_refresh(a);
		*ret_fresh = a->fresh = true;
		return n;
	}
	*ret_fresh = a->fresh = false;
	if (!tierd_kernel_worker_wait_until(&a->worker, deadline_usec)) {
		a->late_collects++;
		return 0;
	}
	/* A collect that ended since the last tick is this tick's reading:
	 * another now could be late too, and every late collect would leave
	 * the worker busy at act, so that no plan would ever be committed. */
	collected = tierd_kernel_worker_busy(&a->worker) && job->collect;
	follows_apply = job->follows_apply;
	n = reap(a, stats, moved, TIERD_DAMON_MAX_ACTIONS);
	if (collected) {
		*ret_fresh = true;
		a->fresh = follows_apply;
		return n;
	}
	job->collect = true;
	job->follows_apply = a->apply_pending;
	a->apply_pending = false;
	job->now_usec = now_usec;
	job->log = *log;
	job->nr_moved = 0;
	memset(&job->stats, 0, sizeof(job->stats));
	if (tierd_kernel_worker_submit(&a->worker, run, job) < 0)
		return n;
	if (!tierd_kernel_worker_wait_until(&a->worker, deadline_usec)) {
		a->late_collects++;
		return n;
	}
	n += reap(a, stats, moved + n, TIERD_DAMON_MAX_ACTIONS - n);
	*ret_fresh = true;
	a->fresh = job->follows_apply;
	return n;
}

static int copy_apply(struct tierd_damon_job *job, const struct tierd_topology *topo,
		      const struct tierd_damos_span *spans, size_t nr_spans,
		      const char *const *memcg_paths, const uint64_t *cgroup_ids,
		      size_t nr_cgroups, const uint64_t *period_usec)
{
	size_t nc = nr_cgroups ? nr_cgroups : 1;

	job->topo = *topo;
	memcpy(job->period_usec, period_usec, sizeof(job->period_usec));
	job->spans = calloc(nr_spans ? nr_spans : 1, sizeof(*job->spans));
	job->paths = calloc(nc, sizeof(*job->paths));
	job->path_of = calloc(nc, sizeof(*job->path_of));
	job->ids = calloc(nc, sizeof(*job->ids));
	if (!job->spans || !job->paths || !job->path_of || !job->ids)
		return -ENOMEM;
	memcpy(job->spans, spans, nr_spans * sizeof(*spans));
	job->nr_spans = nr_spans;
	for (size_t c = 0; c < nr_cgroups; c++) {
		snprintf(job->paths[c], sizeof(job->paths[c]), "%s", memcg_paths[c]);
		job->path_of[c] = job->paths[c];
		job->ids[c] = cgroup_ids[c];
	}
	job->nr_cgroups = nr_cgroups;
	return 0;
}

bool tierd_damon_async_apply(struct tierd_damon_async *a, const struct tierd_topology *topo,
			     const struct tierd_damos_span *spans, size_t nr_spans,
			     const char *const *memcg_paths, const uint64_t *cgroup_ids,
			     size_t nr_cgroups, const uint64_t *period_usec,
			     const struct tierd_logger *log)
{
	struct tierd_damon_job *job = &a->job;

	if (!a->worker.started) {
		tierd_damon_backend_apply(job->b, topo, spans, nr_spans, memcg_paths, cgroup_ids,
					  period_usec, log);
		take_state(a);
		return true;
	}
	if (tierd_kernel_worker_busy(&a->worker)) {
		a->skipped_applies++;
		tierd_log(log, TIERD_LOG_DEBUG,
			  "DAMON: the last command still runs: this tick's migrations are not committed");
		return false;
	}
	if (copy_apply(job, topo, spans, nr_spans, memcg_paths, cgroup_ids, nr_cgroups,
		       period_usec) < 0) {
		free_apply_copies(job);
		tierd_log(log, TIERD_LOG_ERR, "DAMON: out of memory: this tick's migrations not committed");
		return false;
	}
	job->collect = false;
	job->log = *log;
	if (tierd_kernel_worker_submit(&a->worker, run, job) < 0) {
		free_apply_copies(job);
		return false;
	}
	a->apply_pending = true;
	return true;
}

void tierd_damon_async_stop(struct tierd_damon_async *a, struct tierd_migration_stats *stats)
{
	if (a->worker.started) {
		tierd_kernel_worker_wait(&a->worker);
		/* What an ended collect moved is accounted; no tick reads it. */
		(void)reap(a, stats, NULL, 0);
		tierd_kernel_worker_stop(&a->worker);
	}
	free_apply_copies(&a->job);
	free_regions(&a->view);
}
