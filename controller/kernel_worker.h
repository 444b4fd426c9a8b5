/* A thread for the tick's slow kernel calls, one job at a time, so that
 * the event loop (ticks, the watchdog, signals, the sampler's ring buffer)
 * never waits for them: the tick submits a job and goes on; a later tick
 * reaps it when it has ended and takes its results. A job owns everything
 * it touches until it is reaped (the submitter must not touch it); it may
 * log (the logger keeps no state).
 *
 * Sampled promotions (move_pages(2) batches) run on one, DAMON's commits
 * and reads on another, memory.reclaim on a third (docs/design.md,
 * "Kernel calls and the tick"). */
#ifndef TIERD_KERNEL_WORKER_H
#define TIERD_KERNEL_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* A job's deadline, a part of the tick interval: the next tick should find
 * it ended. */
#define TIERD_KERNEL_DEADLINE_DIVISOR 2u

enum tierd_worker_job_state { TIERD_JOB_NONE, TIERD_JOB_RUNNING, TIERD_JOB_DONE };

struct tierd_kernel_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;       /* a job submitted, a job ended, or stop */
	bool started, stopping;
	enum tierd_worker_job_state state;
	void (*run)(void *arg);
	void *arg;
	uint64_t started_usec, ended_usec; /* CLOCK_MONOTONIC, of the job */
};

/* Starts the thread. Returns 0 or -errno. */
int tierd_kernel_worker_start(struct tierd_kernel_worker *w);

/* Hands run(arg) to the thread. -EBUSY while a job has not been reaped,
 * -EINVAL when the worker is not started. */
int tierd_kernel_worker_submit(struct tierd_kernel_worker *w, void (*run)(void *arg), void *arg);

/* True, and the worker idle again, when the job has ended; false while it
 * runs or when there is none. *ret_usec (may be NULL) gets how long it
 * ran. Never blocks on the job. */
bool tierd_kernel_worker_reap(struct tierd_kernel_worker *w, uint64_t *ret_usec);

/* True while a job has not been reaped. */
bool tierd_kernel_worker_busy(struct tierd_kernel_worker *w);

/* Blocks until no job runs (none, or it has ended) or CLOCK_MONOTONIC
 * reaches deadline_usec; true in the first case. */
bool tierd_kernel_worker_wait_until(struct tierd_kernel_worker *w, uint64_t deadline_usec);

/* Blocks until the job, if any, has ended (it is then reaped by the next
 * tierd_kernel_worker_reap). For shutdown. */
void tierd_kernel_worker_wait(struct tierd_kernel_worker *w);

/* Waits for the job, ends the thread. The worker may be started again. */
void tierd_kernel_worker_stop(struct tierd_kernel_worker *w);

#endif
