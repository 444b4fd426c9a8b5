/* DAMON's commands off the tick (controller/damon_async.c), with the
 * worker held busy by a job the test controls: a collect waits only until
 * its deadline and leaves the view as it was, an apply is skipped while a
 * job runs, and the next collect after the job ended is the tick's own
 * again. Unthreaded, every step runs at once. The backend is not running
 * (collect has nothing to read), so what is asserted is the hand-over. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "../controller/clock.h"
#include "../controller/damon_async.h"
#include "gate.h"

TIERD_TEST_MAIN_COUNTS;

/* How long a collect may wait for the held worker here: short, and long
 * enough to be measured. */
#define DEADLINE_USEC 30000u

static void test_threaded(void)
{
	struct tierd_damon_backend b = { .state.damon = TIERD_DAMON_DEGRADED };
	struct tierd_damon_async a;
	struct tierd_migration_stats stats = { 0 };
	struct tierd_damon_moved moved[TIERD_DAMON_MAX_ACTIONS];
	struct tierd_topology topo = { 0 };
	struct gate g;
	struct tierd_logger log;
	uint64_t period[TIERD_MAX_TIERS] = { 0 }, t0, waited;
	bool fresh = false;

	gate_init(&g);
	tierd_log_setup(&log, TIERD_LOG_TARGET_STDERR, TIERD_LOG_ERR);
	snprintf(b.state.damon_why, sizeof(b.state.damon_why), "someone else's kdamond");
	CHECK_EQ_INT(tierd_damon_async_start(&a, &b, true), 0);
	CHECK(a.worker.started);
	CHECK_EQ_INT(a.view.state.damon, TIERD_DAMON_DEGRADED);
	CHECK_EQ_STR(a.view.state.damon_why, "someone else's kdamond");
	/* Nothing runs: the collect is the tick's. */
	t0 = tierd_clock_usec(CLOCK_MONOTONIC);
	CHECK_EQ_U64(tierd_damon_async_collect(&a, t0, t0 + DEADLINE_USEC, &stats, moved, &fresh,
					       &log), 0);
	CHECK(fresh);
	CHECK_EQ_U64(a.late_collects, 0);
	/* A reading, but of no committed plan: it says nothing of progress. */
	CHECK(!a.fresh);
	/* A job holds the worker: it stands for a collect whose commit waits
	 * for a kdamond busy migrating (the job is marked a collect, as the
	 * last one left it). */
	CHECK(a.job.collect);
	CHECK_EQ_INT(tierd_kernel_worker_submit(&a.worker, gated, &g), 0);
	b.state.kdamond_restarts = 5; /* the worker's now: the view must not see it */
	t0 = tierd_clock_usec(CLOCK_MONOTONIC);
	CHECK_EQ_U64(tierd_damon_async_collect(&a, t0, t0 + DEADLINE_USEC, &stats, moved, &fresh,
					       &log), 0);
	waited = tierd_clock_usec(CLOCK_MONOTONIC) - t0;
	CHECK(!fresh);
	CHECK(waited >= DEADLINE_USEC);
	CHECK_EQ_U64(a.late_collects, 1);
	CHECK_EQ_U64(a.view.state.kdamond_restarts, 0);
	CHECK(!tierd_damon_async_apply(&a, &topo, NULL, 0, NULL, NULL, 0, period, &log));
	CHECK_EQ_U64(a.skipped_applies, 1);
	/* It ends: the next tick takes it as its reading, with the backend as
	 * it is now, and starts no other (so that the worker is free for the
	 * tick's apply). */
	open_gate(&g);
	tierd_kernel_worker_wait(&a.worker);
	t0 = tierd_clock_usec(CLOCK_MONOTONIC);
	CHECK_EQ_U64(tierd_damon_async_collect(&a, t0, t0 + 10 * DEADLINE_USEC, &stats, moved,
					       &fresh, &log), 0);
	CHECK(fresh);
	CHECK(!tierd_kernel_worker_busy(&a.worker));
	CHECK_EQ_U64(a.late_collects, 1);
	CHECK_EQ_U64(a.view.state.kdamond_restarts, 5);
	/* An apply with the worker free is handed over, and copied: the
	 * caller's arrays may go at once. */
	{
		struct tierd_damos_span span = { .cgroup = 0, .from_tier = 0, .to_tier = 1,
						 .start = 4096, .end = 8192, .bytes = 4096 };
		char path[] = "/a";
		const char *paths[] = { path };
		uint64_t ids[] = { 7 };

		CHECK(tierd_damon_async_apply(&a, &topo, &span, 1, paths, ids, 1, period, &log));
		path[1] = 'b';
		CHECK_EQ_U64(a.skipped_applies, 1);
		CHECK_EQ_STR(a.job.paths[0], "/a");
		CHECK_EQ_U64(a.job.ids[0], 7);
		CHECK_EQ_U64(a.job.spans[0].end, 8192);
	}
	/* After an apply, the next tick runs its own collect. */
	tierd_kernel_worker_wait(&a.worker);
	b.state.nr_kdamonds = 2;
	t0 = tierd_clock_usec(CLOCK_MONOTONIC);
	CHECK_EQ_U64(tierd_damon_async_collect(&a, t0, t0 + 10 * DEADLINE_USEC, &stats, moved,
					       &fresh, &log), 0);
	CHECK(fresh);
	CHECK(a.job.collect);
	CHECK_EQ_U64(a.view.state.nr_kdamonds, 2);
	/* This one read a whole interval of the committed plan. */
	CHECK(a.fresh);
	tierd_damon_async_stop(&a, &stats);
	CHECK(!a.worker.started);
	CHECK(a.job.spans == NULL);
}

/* Without the worker each step runs at once and the view follows. */
static void test_unthreaded(void)
{
	struct tierd_damon_backend b = { .state.damon = TIERD_DAMON_OFF };
	struct tierd_damon_async a;
	struct tierd_migration_stats stats = { 0 };
	struct tierd_damon_moved moved[TIERD_DAMON_MAX_ACTIONS];
	struct tierd_logger log;
	bool fresh = false;

	tierd_log_setup(&log, TIERD_LOG_TARGET_STDERR, TIERD_LOG_ERR);
	CHECK_EQ_INT(tierd_damon_async_start(&a, &b, false), 0);
	CHECK(!a.worker.started);
	b.state.nr_kdamonds = 3;
	CHECK_EQ_U64(tierd_damon_async_collect(&a, 1, 0, &stats, moved, &fresh, &log), 0);
	CHECK(fresh);
	CHECK(a.fresh);
	CHECK_EQ_U64(a.view.state.nr_kdamonds, 3);
	tierd_damon_async_stop(&a, &stats);
}

int main(void)
{
	test_threaded();
	test_unthreaded();
	return tierd_test_finish();
}
