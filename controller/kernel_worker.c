/* The kernel worker thread; see kernel_worker.h. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "clock.h"
#include "kernel_worker.h"

static void *loop(void *data)
{
	struct tierd_kernel_worker *w = data;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stopping && !(w->state == TIERD_JOB_RUNNING && w->run))
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->state != TIERD_JOB_RUNNING || !w->run)
			break;
		void (*run)(void *) = w->run;
		void *arg = w->arg;

		pthread_mutex_unlock(&w->lock);
		run(arg);
		pthread_mutex_lock(&w->lock);
		w->run = NULL;
		w->ended_usec = tierd_clock_usec(CLOCK_MONOTONIC);
		w->state = TIERD_JOB_DONE;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int tierd_kernel_worker_start(struct tierd_kernel_worker *w)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	int r;

	*w = (struct tierd_kernel_worker){ 0 };
	r = pthread_mutex_init(&w->lock, NULL);
	if (r)
		return -r;
	r = pthread_condattr_init(&attr);
	if (!r) {
		/* Deadlines are CLOCK_MONOTONIC, like the tick's. */
		r = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		if (!r)
			r = pthread_cond_init(&w->cond, &attr);
		pthread_condattr_destroy(&attr);
	}
	if (r) {
		pthread_mutex_destroy(&w->lock);
		return -r;
	}
	/* The thread takes no signal: SIGTERM, SIGHUP and the rest are the
	 * event loop's (a signal the kernel gave this thread instead would
	 * end tierd by its default action). It inherits the mask it is
	 * created with. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&w->thread, NULL, loop, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		return -r;
	}
	w->started = true;
	return 0;
}

int tierd_kernel_worker_submit(struct tierd_kernel_worker *w, void (*run)(void *arg), void *arg)
{
	int r = 0;

	if (!w->started)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	if (w->state != TIERD_JOB_NONE) {
		r = -EBUSY;
	} else {
		w->run = run;
		w->arg = arg;
		w->started_usec = tierd_clock_usec(CLOCK_MONOTONIC);
		w->state = TIERD_JOB_RUNNING;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}

bool tierd_kernel_worker_reap(struct tierd_kernel_worker *w, uint64_t *ret_usec)
{
	bool done;

	if (!w->started)
		return false;
	pthread_mutex_lock(&w->lock);
	done = w->state == TIERD_JOB_DONE;
	if (done) {
		w->state = TIERD_JOB_NONE;
		if (ret_usec)
			*ret_usec = w->ended_usec - w->started_usec;
	}
	pthread_mutex_unlock(&w->lock);
	return done;
}

bool tierd_kernel_worker_busy(struct tierd_kernel_worker *w)
{
	bool busy;

	if (!w->started)
		return false;
	pthread_mutex_lock(&w->lock);
	busy = w->state != TIERD_JOB_NONE;
	pthread_mutex_unlock(&w->lock);
	return busy;
}

bool tierd_kernel_worker_wait_until(struct tierd_kernel_worker *w, uint64_t deadline_usec)
{
	struct timespec at = { .tv_sec = (time_t)(deadline_usec / TIERD_USEC_PER_SEC),
			       .tv_nsec = (long)(deadline_usec % TIERD_USEC_PER_SEC *
						 TIERD_NSEC_PER_USEC) };
	bool idle;

	if (!w->started)
		return true;
	pthread_mutex_lock(&w->lock);
	while (w->state == TIERD_JOB_RUNNING &&
	       pthread_cond_timedwait(&w->cond, &w->lock, &at) != ETIMEDOUT)
		;
	idle = w->state != TIERD_JOB_RUNNING;
	pthread_mutex_unlock(&w->lock);
	return idle;
}

void tierd_kernel_worker_wait(struct tierd_kernel_worker *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->state == TIERD_JOB_RUNNING)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void tierd_kernel_worker_stop(struct tierd_kernel_worker *w)
{
	if (!w->started)
		return;
	tierd_kernel_worker_wait(w);
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	*w = (struct tierd_kernel_worker){ 0 };
}
