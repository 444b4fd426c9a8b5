/* What keeps the tick on time. The tick schedule (controller/tick_schedule.h):
 * a fixed rate, missed slots skipped and counted. The kernel worker
 * (controller/kernel_worker.c) with a job that blocks
 * until the test lets it go: the submitter is never held up, a second job
 * is refused while the first is not reaped, reaping comes only after the
 * job ended and tells how long it ran, stop waits for a job under way, and
 * the thread takes no signal. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "check.h"
#include "../controller/kernel_worker.h"
#include "../controller/tick_schedule.h"
#include "gate.h"

TIERD_TEST_MAIN_COUNTS;

static void test_job_in_flight(void)
{
	struct tierd_kernel_worker w;
	struct gate g;
	uint64_t usec = 0;

	gate_init(&g);
	CHECK_EQ_INT(tierd_kernel_worker_submit(&(struct tierd_kernel_worker){ 0 }, gated, &g),
		     -EINVAL);
	CHECK_EQ_INT(tierd_kernel_worker_start(&w), 0);
	CHECK(!tierd_kernel_worker_busy(&w));
	CHECK(!tierd_kernel_worker_reap(&w, &usec));
	CHECK_EQ_INT(tierd_kernel_worker_submit(&w, gated, &g), 0);
	wait_entered(&g);
	/* The job holds: the submitter goes on. */
	CHECK(tierd_kernel_worker_busy(&w));
	CHECK(!tierd_kernel_worker_reap(&w, &usec));
	CHECK_EQ_INT(tierd_kernel_worker_submit(&w, gated, &g), -EBUSY);
	open_gate(&g);
	tierd_kernel_worker_wait(&w);
	CHECK_EQ_INT(g.runs, 1);
	/* Ended, not reaped: still busy for a new job. */
	CHECK(tierd_kernel_worker_busy(&w));
	CHECK_EQ_INT(tierd_kernel_worker_submit(&w, gated, &g), -EBUSY);
	CHECK(tierd_kernel_worker_reap(&w, &usec));
	CHECK(usec >= GATE_HOLD_USEC);
	CHECK(!tierd_kernel_worker_busy(&w));
	CHECK(!tierd_kernel_worker_reap(&w, NULL));
	/* A second job runs on the same thread. */
	CHECK_EQ_INT(tierd_kernel_worker_submit(&w, gated, &g), 0);
	tierd_kernel_worker_stop(&w);
	CHECK_EQ_INT(g.runs, 2);
	CHECK(!w.started);
}

/* stop() while the job is held ends only after the job. */
struct stopper {
	struct tierd_kernel_worker *w;
	bool stopped;
};

static void *stop_thread(void *data)
{
	struct stopper *s = data;

	tierd_kernel_worker_stop(s->w);
	s->stopped = true;
	return NULL;
}

static void test_stop_waits(void)
{
	struct tierd_kernel_worker w;
	struct stopper s = { .w = &w };
	struct gate g;
	pthread_t t;

	gate_init(&g);
	CHECK_EQ_INT(tierd_kernel_worker_start(&w), 0);
	CHECK_EQ_INT(tierd_kernel_worker_submit(&w, gated, &g), 0);
	wait_entered(&g);
	CHECK_EQ_INT(pthread_create(&t, NULL, stop_thread, &s), 0);
	CHECK_EQ_INT(g.runs, 0);
	open_gate(&g);
	pthread_join(t, NULL);
	CHECK(s.stopped);
	CHECK_EQ_INT(g.runs, 1);
}

/* The thread blocks every signal, whatever the starter's mask: the event
 * loop's SIGTERM must never land on it. */
struct mask_seen {
	bool term, hup, chld;
};

static void read_mask(void *data)
{
	struct mask_seen *m = data;
	sigset_t set;

	pthread_sigmask(SIG_BLOCK, NULL, &set);
	m->term = sigismember(&set, SIGTERM) == 1;
	m->hup = sigismember(&set, SIGHUP) == 1;
	m->chld = sigismember(&set, SIGCHLD) == 1;
}

static void test_signals_blocked(void)
{
	struct tierd_kernel_worker w;
	struct mask_seen m = { 0 };
	sigset_t none, mine;

	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	CHECK_EQ_INT(tierd_kernel_worker_start(&w), 0);
	CHECK_EQ_INT(tierd_kernel_worker_submit(&w, read_mask, &m), 0);
	tierd_kernel_worker_wait(&w);
	CHECK(m.term && m.hup && m.chld);
	/* The starter's own mask is as it was. */
	pthread_sigmask(SIG_BLOCK, NULL, &mine);
	CHECK(sigismember(&mine, SIGTERM) == 0);
	tierd_kernel_worker_stop(&w);
}

static void test_tick_schedule(void)
{
	uint64_t missed = 99;

	/* On time, or late within the interval: one interval after due. */
	CHECK_EQ_U64(tierd_next_tick(10000000, 10000000, 1000000, &missed), 11000000);
	CHECK_EQ_U64(missed, 0);
	CHECK_EQ_U64(tierd_next_tick(10000000, 10999999, 1000000, &missed), 11000000);
	CHECK_EQ_U64(missed, 0);
	/* Ended at the next slot or past it: those slots are skipped. */
	CHECK_EQ_U64(tierd_next_tick(10000000, 11000000, 1000000, &missed), 12000000);
	CHECK_EQ_U64(missed, 1);
	CHECK_EQ_U64(tierd_next_tick(10000000, 13500000, 1000000, &missed), 14000000);
	CHECK_EQ_U64(missed, 3);
	/* The first tick, armed at once: due when it ran. */
	CHECK_EQ_U64(tierd_next_tick(5, 7, 100000, &missed), 100005);
	CHECK_EQ_U64(missed, 0);
}

int main(void)
{
	test_tick_schedule();
	test_job_in_flight();
	test_stop_waits();
	test_signals_blocked();
	return tierd_test_finish();
}
