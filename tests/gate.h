/* A job for the kernel worker that holds it until the test lets it go:
 * the tests of controller/kernel_worker.c and controller/damon_async.c
 * stand it for a kernel call that waits (a commit behind a busy kdamond, a
 * long move_pages batch). Header-only: each test is one file. */
#ifndef TIERD_TEST_GATE_H
#define TIERD_TEST_GATE_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

/* How long the job runs on after the gate opens: long enough to be
 * measured as a duration well above zero. */
#define GATE_HOLD_NSEC 20000000L
#define GATE_HOLD_USEC 20000u

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool entered, open;
	unsigned runs;
};

static inline void gate_init(struct gate *g)
{
	*g = (struct gate){ 0 };
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
}

/* The job: says it entered, waits for the gate, runs GATE_HOLD_NSEC on. */
static inline void gated(void *data)
{
	struct gate *g = data;
	const struct timespec hold = { .tv_nsec = GATE_HOLD_NSEC };

	pthread_mutex_lock(&g->lock);
	g->entered = true;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	nanosleep(&hold, NULL);
	g->runs++;
}

static inline void wait_entered(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	while (!g->entered)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static inline void open_gate(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

#endif
