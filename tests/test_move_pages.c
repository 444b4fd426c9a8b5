/* Unit tests for controller/move_pages.c against a fake kernel: a location
 * per page of one fake process, per-page move errors, THP folios, and one
 * scripted call that fails as a whole, the way 6.12 does (docs/vm.md): a
 * full node fails with ENOMEM after moving part of the batch and writes no
 * status; a failed migration batch returns a positive count. */
#include <errno.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../controller/move_pages.h"
#include "check.h"

TIERD_TEST_MAIN_COUNTS;

#define PID 4242
#define BASE 0x7f0000000000ull  /* first page of the fake process */
#define BATCH TIERD_MOVE_PAGES_BATCH
/* Three batches, the last one partial. */
#define BIG_N (2 * BATCH + 100)
#define NO_CALL 0               /* fake.fail_call: no call fails */
#define FOLIO_NONE 0            /* fake.folio: a base page */

struct fake {
	size_t n;
	int *node;        /* where each page is, or the query's -errno */
	int *move_err;    /* 0, or the -errno a move reports for the page */
	int *folio;       /* FOLIO_NONE, or an id shared by a THP's pages */
	/* The call (1-based, queries included) that fails as a whole: it
	 * moves fail_moved pages, writes the status of the first fail_written
	 * of them, and returns fail_ret. */
	unsigned fail_call;
	long fail_ret;
	size_t fail_moved, fail_written;
	/* Pages [in_flight_first, +in_flight_n) read -ENOENT in
	 * in_flight_queries queries from call in_flight_call on, as pages the
	 * kernel is migrating do. */
	unsigned in_flight_call, in_flight_queries;
	size_t in_flight_first, in_flight_n;
	/* What the module did. */
	unsigned calls, queries, moves;
	unsigned bad_args;      /* wrong pid, flags or node in a call */
	unsigned long max_count;
	unsigned long last_move_count;
};

static struct fake *fake_new(size_t n, int node)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->n = n;
	f->node = calloc(n, sizeof(int));
	f->move_err = calloc(n, sizeof(int));
	f->folio = calloc(n, sizeof(int));
	if (!f->node || !f->move_err || !f->folio)
		abort();
	for (size_t i = 0; i < n; i++)
		f->node[i] = node;
	return f;
}

static void fake_free(struct fake *f)
{
	free(f->node);
	free(f->move_err);
	free(f->folio);
	free(f);
}

static uint64_t page_addr(size_t i)
{
	return BASE + i * TIERD_PAGE_BYTES;
}

/* Index of a page address, or f->n outside the fake process. */
static size_t page_index(const struct fake *f, const void *page)
{
	uint64_t a = (uintptr_t)page;

	if (a < BASE || (a - BASE) % TIERD_PAGE_BYTES)
		return f->n;
	return (a - BASE) / TIERD_PAGE_BYTES < f->n ? (a - BASE) / TIERD_PAGE_BYTES : f->n;
}

static int where(const struct fake *f, size_t idx)
{
	return idx < f->n ? f->node[idx] : -EFAULT;
}

/* Moves one page (and its whole folio) as the kernel would, and returns its
 * status. A page of a folio the previous entry moved reports -EBUSY, as a
 * THP's second page does in 6.12. */
static int fake_move_one(struct fake *f, size_t idx, int target, int *moved_folio)
{
	int folio;

	if (idx >= f->n || f->node[idx] < 0)
		return where(f, idx);
	folio = f->folio[idx];
	if (folio != FOLIO_NONE && folio == *moved_folio) {
		*moved_folio = FOLIO_NONE;
		return -EBUSY;
	}
	*moved_folio = FOLIO_NONE;
	if (f->node[idx] == target)
		return target;
	if (f->move_err[idx])
		return f->move_err[idx];
	if (folio == FOLIO_NONE) {
		f->node[idx] = target;
		return target;
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->folio[i] == folio)
			f->node[i] = target;
	*moved_folio = folio;
	return target;
}

static long fake_move_pages(void *data, int pid, unsigned long count, void **pages,
			    const int *nodes, int *status, int flags)
{
	struct fake *f = data;
	int moved_folio = FOLIO_NONE;
	size_t written = 0;

	f->calls++;
	if (count > f->max_count)
		f->max_count = count;
	if (pid != PID || flags != (nodes ? MPOL_MF_MOVE : 0))
		f->bad_args++;
	if (!nodes) {
		f->queries++;
		if (f->calls == f->fail_call)
			return f->fail_ret;
		bool flying = f->in_flight_queries && f->calls >= f->in_flight_call;

		for (unsigned long i = 0; i < count; i++) {
			size_t idx = page_index(f, pages[i]);

			status[i] = flying && idx >= f->in_flight_first &&
						    idx - f->in_flight_first < f->in_flight_n ?
					    -ENOENT :
					    where(f, idx);
		}
		f->in_flight_queries -= flying;
		return 0;
	}
	f->moves++;
	f->last_move_count = count;
	for (unsigned long i = 1; i < count; i++)
		if (nodes[i] != nodes[0])
			f->bad_args++;
	if (f->calls == f->fail_call) {
		for (unsigned long i = 0; i < count && i < f->fail_moved; i++) {
			int s = fake_move_one(f, page_index(f, pages[i]), nodes[0], &moved_folio);

			if (written < f->fail_written)
				status[written++] = s;
		}
		return f->fail_ret;
	}
	for (unsigned long i = 0; i < count; i++)
		status[i] = fake_move_one(f, page_index(f, pages[i]), nodes[0], &moved_folio);
	return 0;
}

static const struct tierd_move_pages_ops fake_ops = { .move_pages = fake_move_pages };

/* One request over pages [0, n) of f. */
struct run {
	int ret;
	struct tierd_move_result res;
	uint64_t *retry;
	size_t nr_retry;
};

static void run(struct fake *f, size_t n, int target, struct run *out)
{
	uint64_t *addrs = calloc(n, sizeof(*addrs));

	out->retry = calloc(n, sizeof(*out->retry));
	if (!addrs || !out->retry)
		abort();
	for (size_t i = 0; i < n; i++)
		addrs[i] = page_addr(i);
	out->ret = tierd_move_pages(&fake_ops, f, PID, addrs, n, target, &out->res, out->retry,
				    &out->nr_retry);
	free(addrs);
}

static size_t count_on(const struct fake *f, int node)
{
	size_t c = 0;

	for (size_t i = 0; i < f->n; i++)
		c += f->node[i] == node;
	return c;
}

static void test_all_move(void)
{
	struct fake *f = fake_new(10, 3);
	struct run r;

	run(f, 10, 0, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.requested, 10);
	CHECK_EQ_U64(r.res.already_on_target, 0);
	CHECK_EQ_U64(r.res.moved, 10);
	CHECK_EQ_U64(r.res.moved_from_node[3], 10);
	CHECK_EQ_U64(r.res.moved_from_node[0], 0);
	CHECK_EQ_U64(r.res.failed_unmapped + r.res.failed_transient + r.res.failed_nomem +
			     r.res.failed_other, 0);
	CHECK_EQ_U64(r.res.syscalls, 2); /* query, move: nothing to re-check */
	CHECK_EQ_INT(f->queries, 1);
	CHECK_EQ_INT(f->moves, 1);
	CHECK_EQ_INT(f->bad_args, 0);
	CHECK_EQ_INT(r.nr_retry, 0);
	CHECK_EQ_INT(count_on(f, 0), 10);
	CHECK_EQ_U64(tierd_move_pages_bytes(r.res.moved), 40960);
	free(r.retry);
	fake_free(f);
}

static void test_some_on_target(void)
{
	struct fake *f = fake_new(10, 3);
	struct run r;

	f->node[0] = f->node[4] = f->node[9] = 1;
	f->node[1] = f->node[2] = 2;
	run(f, 10, 1, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.already_on_target, 3);
	CHECK_EQ_U64(r.res.moved, 7);
	CHECK_EQ_U64(r.res.moved_from_node[2], 2);
	CHECK_EQ_U64(r.res.moved_from_node[3], 5);
	CHECK_EQ_U64(r.res.moved_from_node[1], 0);
	CHECK_EQ_U64(r.res.syscalls, 2);
	CHECK_EQ_INT(f->last_move_count, 7); /* the pages on node 1 were not sent */
	CHECK_EQ_INT(r.nr_retry, 0);
	CHECK_EQ_INT(count_on(f, 1), 10);
	free(r.retry);
	fake_free(f);

	/* Everything already there: one query, no move. */
	f = fake_new(5, 0);
	run(f, 5, 0, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.already_on_target, 5);
	CHECK_EQ_U64(r.res.moved, 0);
	CHECK_EQ_U64(r.res.syscalls, 1);
	CHECK_EQ_INT(f->moves, 0);
	free(r.retry);
	fake_free(f);
}

/* Pages 0-11 on node 2, moved to node 0:
 *   0 unmapped (query -EFAULT)     1 not present (query -ENOENT)
 *   2 moves                        3 busy at the move (-EBUSY)
 *   4 shared (-EACCES)             5 unmapped meanwhile (move -EFAULT)
 *   6 moves                        7 -ENOMEM at the move
 *   8 -EAGAIN at the move          9-11 move */
static void test_per_page_errors(void)
{
	struct fake *f = fake_new(12, 2);
	struct run r;

	f->node[0] = -EFAULT;
	f->node[1] = -ENOENT;
	f->move_err[3] = -EBUSY;
	f->move_err[4] = -EACCES;
	f->move_err[5] = -EFAULT;
	f->move_err[7] = -ENOMEM;
	f->move_err[8] = -EAGAIN;
	run(f, 12, 0, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.requested, 12);
	CHECK_EQ_U64(r.res.moved, 5);
	CHECK_EQ_U64(r.res.moved_from_node[2], 5);
	CHECK_EQ_U64(r.res.failed_unmapped, 2);
	CHECK_EQ_U64(r.res.failed_transient, 3);
	CHECK_EQ_U64(r.res.failed_nomem, 1);
	CHECK_EQ_U64(r.res.failed_other, 1);
	/* query, move, re-check of pages 3, 7 and 8 */
	CHECK_EQ_U64(r.res.syscalls, 3);
	CHECK_EQ_INT(f->last_move_count, 10);
	CHECK_EQ_INT(r.nr_retry, 4);
	CHECK_EQ_U64(r.retry[0], page_addr(1));
	CHECK_EQ_U64(r.retry[1], page_addr(3));
	CHECK_EQ_U64(r.retry[2], page_addr(7));
	CHECK_EQ_U64(r.retry[3], page_addr(8));
	CHECK_EQ_INT(count_on(f, 0), 5);
	free(r.retry);
	fake_free(f);

	/* Nothing mapped: the query settles all, no move is tried. */
	f = fake_new(4, -EFAULT);
	run(f, 4, 0, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.failed_unmapped, 4);
	CHECK_EQ_U64(r.res.syscalls, 1);
	CHECK_EQ_INT(r.nr_retry, 0);
	free(r.retry);
	fake_free(f);
}

/* A THP's second page reports -EBUSY although its folio moved: the
 * re-check finds it on the target. */
static void test_thp_busy_but_moved(void)
{
	struct fake *f = fake_new(6, 3);
	struct run r;

	for (size_t i = 1; i < 5; i++)
		f->folio[i] = 1;
	run(f, 6, 0, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.moved, 6);
	CHECK_EQ_U64(r.res.moved_from_node[3], 6);
	CHECK_EQ_U64(r.res.failed_transient, 0);
	CHECK_EQ_U64(r.res.syscalls, 3);
	CHECK_EQ_INT(r.nr_retry, 0);
	free(r.retry);
	fake_free(f);
}

/* 100 pages on node 3 whose move fails with ENOMEM after moving 37 of them
 * and writing no status; 7 of the 37 (30-36) read -ENOENT in `in_flight`
 * queries from the re-check on (call 3: the first query is 1, the move 2),
 * as pages the kernel is migrating on the target do. */
static struct fake *full_node(unsigned in_flight)
{
	struct fake *f = fake_new(100, 3);

	f->fail_call = 2;
	f->fail_ret = -ENOMEM;
	f->fail_moved = 37;
	f->in_flight_first = 30;
	f->in_flight_n = 7;
	f->in_flight_call = 3;
	f->in_flight_queries = in_flight;
	return f;
}

/* The target fills up mid-batch. */
static void test_full_node(void)
{
	struct fake *f = full_node(0);
	struct run r;

	run(f, 100, 1, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.moved, 37);
	CHECK_EQ_U64(r.res.moved_from_node[3], 37);
	CHECK_EQ_U64(r.res.failed_nomem, 63);
	CHECK_EQ_U64(r.res.failed_transient, 0);
	CHECK_EQ_U64(r.res.syscalls, 3);
	CHECK_EQ_INT(f->queries, 2);
	CHECK_EQ_INT(r.nr_retry, 63);
	CHECK_EQ_U64(r.retry[0], page_addr(37));
	CHECK_EQ_U64(r.retry[62], page_addr(99));
	CHECK_EQ_INT(count_on(f, 1), 37);
	free(r.retry);
	fake_free(f);
}

/* Pages in migration when the module checks where they went: asked again
 * until they settle on the target; still not present after SETTLE_QUERIES
 * more queries, they count as failed (the VM's movepages once found 31
 * "failed" pages on the target afterwards). */
static void test_full_node_in_flight(void)
{
	struct fake *f = full_node(2);
	struct run r;

	run(f, 100, 1, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.moved, 37);
	CHECK_EQ_U64(r.res.failed_nomem, 63);
	CHECK_EQ_INT(r.nr_retry, 63);
	CHECK_EQ_U64(r.retry[0], page_addr(37));
	/* The first query, the re-check, and two more for the 7 pages. */
	CHECK_EQ_INT(f->queries, 4);
	CHECK_EQ_U64(r.res.syscalls, 5);
	CHECK_EQ_INT(f->last_move_count, 100);
	free(r.retry);
	fake_free(f);

	/* In flight for longer than the module waits. */
	f = full_node(100);
	run(f, 100, 1, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.moved, 30);
	CHECK_EQ_U64(r.res.failed_nomem, 70);
	CHECK_EQ_INT(r.nr_retry, 70);
	CHECK_EQ_U64(r.retry[63], page_addr(30));
	CHECK_EQ_U64(r.retry[69], page_addr(36));
	/* The first query, the re-check and SETTLE_QUERIES (3) more. */
	CHECK_EQ_INT(f->queries, 5);
	free(r.retry);
	fake_free(f);

	/* A page whose move reported its own failure is not asked again,
	 * whatever the re-check reads. */
	f = fake_new(10, 3);
	f->move_err[2] = -EBUSY;
	f->in_flight_first = 2;
	f->in_flight_n = 1;
	f->in_flight_call = 3;
	f->in_flight_queries = 100;
	run(f, 10, 1, &r);
	CHECK_EQ_U64(r.res.moved, 9);
	CHECK_EQ_U64(r.res.failed_transient, 1);
	CHECK_EQ_U64(r.retry[0], page_addr(2));
	CHECK_EQ_INT(f->queries, 2);
	free(r.retry);
	fake_free(f);
}

/* A failed migration batch: the call returns 8 (pages not migrated); of the
 * 20 pages, 12 moved, the statuses of the first 5 were written. */
static void test_positive_return(void)
{
	struct fake *f = fake_new(20, 2);
	struct run r;

	f->fail_call = 2;
	f->fail_ret = 8;
	f->fail_moved = 12;
	f->fail_written = 5;
	run(f, 20, 0, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.moved, 12);
	CHECK_EQ_U64(r.res.moved_from_node[2], 12);
	CHECK_EQ_U64(r.res.failed_transient, 8);
	CHECK_EQ_U64(r.res.failed_nomem, 0);
	CHECK_EQ_U64(r.res.syscalls, 3);
	CHECK_EQ_INT(r.nr_retry, 8);
	CHECK_EQ_U64(r.retry[0], page_addr(12));
	CHECK_EQ_U64(r.retry[7], page_addr(19));
	free(r.retry);
	fake_free(f);
}

/* Whole-call errors end the request with their -errno. */
static void test_whole_call_errors(void)
{
	struct fake *f = fake_new(10, 3);
	struct run r;

	/* A node without memory: the query's findings stay counted. */
	f->node[0] = 0;
	f->node[1] = -EFAULT;
	f->fail_call = 2;
	f->fail_ret = -ENODEV;
	run(f, 10, 0, &r);
	CHECK_EQ_INT(r.ret, -ENODEV);
	CHECK_EQ_U64(r.res.requested, 10);
	CHECK_EQ_U64(r.res.already_on_target, 1);
	CHECK_EQ_U64(r.res.failed_unmapped, 1);
	CHECK_EQ_U64(r.res.moved, 0);
	CHECK_EQ_U64(r.res.syscalls, 2);
	CHECK_EQ_INT(r.nr_retry, 0);
	CHECK_EQ_INT(count_on(f, 3), 8);
	free(r.retry);
	fake_free(f);

	/* The process is gone before the first query. */
	f = fake_new(10, 3);
	f->fail_call = 1;
	f->fail_ret = -ESRCH;
	run(f, 10, 0, &r);
	CHECK_EQ_INT(r.ret, -ESRCH);
	CHECK_EQ_U64(r.res.requested, 10);
	CHECK_EQ_U64(r.res.already_on_target + r.res.moved + r.res.failed_unmapped, 0);
	CHECK_EQ_U64(r.res.syscalls, 1);
	CHECK_EQ_INT(f->moves, 0);
	free(r.retry);
	fake_free(f);

	/* ... or exits between the move and the re-check: what the move's
	 * statuses settled stays counted. */
	f = fake_new(10, 3);
	f->move_err[4] = -EBUSY;
	f->fail_call = 3;
	f->fail_ret = -ESRCH;
	run(f, 10, 0, &r);
	CHECK_EQ_INT(r.ret, -ESRCH);
	CHECK_EQ_U64(r.res.moved, 9);
	CHECK_EQ_U64(r.res.failed_transient, 0);
	CHECK_EQ_U64(r.res.syscalls, 3);
	CHECK_EQ_INT(r.nr_retry, 0);
	free(r.retry);
	fake_free(f);

	/* Not allowed (no ptrace read access). */
	f = fake_new(10, 3);
	f->fail_call = 2;
	f->fail_ret = -EPERM;
	run(f, 10, 0, &r);
	CHECK_EQ_INT(r.ret, -EPERM);
	CHECK_EQ_U64(r.res.moved, 0);
	CHECK_EQ_INT(count_on(f, 3), 10);
	free(r.retry);
	fake_free(f);
}

/* Three batches, the middle one hits a full node after 1000 pages: the
 * others move whole, one call per batch, never more than BATCH pages. */
static void test_batches(void)
{
	struct fake *f = fake_new(BIG_N, 2);
	struct run r;

	f->fail_call = 4; /* batch 1: calls 1-2; batch 2: query 3, move 4 */
	f->fail_ret = -ENOMEM;
	f->fail_moved = 1000;
	run(f, BIG_N, 1, &r);
	CHECK_EQ_INT(r.ret, 0);
	CHECK_EQ_U64(r.res.requested, BIG_N);
	CHECK_EQ_U64(r.res.moved, BATCH + 1000 + 100);
	CHECK_EQ_U64(r.res.moved_from_node[2], BATCH + 1000 + 100);
	CHECK_EQ_U64(r.res.failed_nomem, BATCH - 1000);
	CHECK_EQ_U64(r.res.failed_transient + r.res.failed_unmapped + r.res.failed_other, 0);
	CHECK_EQ_U64(r.res.syscalls, 7); /* 2 + 3 (re-check) + 2 */
	CHECK_EQ_INT(f->moves, 3);
	CHECK_EQ_INT(f->max_count, BATCH);
	CHECK_EQ_INT(f->last_move_count, 100);
	CHECK_EQ_INT(f->bad_args, 0);
	CHECK_EQ_INT(r.nr_retry, BATCH - 1000);
	CHECK_EQ_U64(r.retry[0], page_addr(BATCH + 1000));
	CHECK_EQ_U64(r.retry[r.nr_retry - 1], page_addr(2 * BATCH - 1));
	CHECK_EQ_INT(count_on(f, 1), BATCH + 1000 + 100);
	CHECK_EQ_INT(count_on(f, 2), BATCH - 1000);
	free(r.retry);
	fake_free(f);
}

static void test_where(void)
{
	struct fake *f = fake_new(BIG_N, 3);
	uint64_t *addrs = calloc(BIG_N + 1, sizeof(*addrs));
	int *nodes = calloc(BIG_N + 1, sizeof(int));

	if (!addrs || !nodes)
		abort();
	for (size_t i = 0; i < BIG_N; i++)
		addrs[i] = page_addr(i);
	addrs[BIG_N] = BASE - TIERD_PAGE_BYTES; /* outside the process */
	f->node[0] = 0;
	f->node[BATCH] = -ENOENT;
	f->node[BIG_N - 1] = 1;
	CHECK_EQ_INT(tierd_pages_where(&fake_ops, f, PID, addrs, BIG_N + 1, nodes), 0);
	CHECK_EQ_INT(f->queries, 3);
	CHECK_EQ_INT(f->max_count, BATCH);
	CHECK_EQ_INT(f->bad_args, 0);
	CHECK_EQ_INT(nodes[0], 0);
	CHECK_EQ_INT(nodes[1], 3);
	CHECK_EQ_INT(nodes[BATCH], -ENOENT);
	CHECK_EQ_INT(nodes[BIG_N - 2], 3);
	CHECK_EQ_INT(nodes[BIG_N - 1], 1);
	CHECK_EQ_INT(nodes[BIG_N], -EFAULT);

	f->calls = 0;
	f->queries = 0;
	f->fail_call = 2;
	f->fail_ret = -ESRCH;
	CHECK_EQ_INT(tierd_pages_where(&fake_ops, f, PID, addrs, BIG_N, nodes), -ESRCH);
	CHECK_EQ_INT(f->queries, 2);
	CHECK_EQ_INT(tierd_pages_where(&fake_ops, f, PID, addrs, 0, nodes), 0);
	CHECK_EQ_INT(tierd_pages_where(NULL, f, PID, addrs, 1, nodes), -EINVAL);
	free(addrs);
	free(nodes);
	fake_free(f);
}

static void test_bad_arguments(void)
{
	struct fake *f = fake_new(1, 3);
	struct tierd_move_result res;
	uint64_t addr = page_addr(0), retry;
	size_t nr_retry = 1;

	CHECK_EQ_INT(tierd_move_pages(NULL, f, PID, &addr, 1, 0, &res, &retry, &nr_retry),
		     -EINVAL);
	CHECK_EQ_INT(tierd_move_pages(&fake_ops, f, PID, &addr, 1, -1, &res, &retry, &nr_retry),
		     -EINVAL);
	CHECK_EQ_INT(tierd_move_pages(&fake_ops, f, PID, &addr, 1, 0, &res, NULL, &nr_retry),
		     -EINVAL);
	CHECK_EQ_INT(f->calls, 0);
	CHECK_EQ_INT(tierd_move_pages(&fake_ops, f, PID, NULL, 0, 0, &res, NULL, &nr_retry), 0);
	CHECK_EQ_U64(res.requested, 0);
	CHECK_EQ_U64(res.syscalls, 0);
	CHECK_EQ_INT(nr_retry, 0);
	fake_free(f);
}

int main(void)
{
	test_all_move();
	test_some_on_target();
	test_per_page_errors();
	test_thp_busy_but_moved();
	test_full_node();
	test_full_node_in_flight();
	test_positive_return();
	test_whole_call_errors();
	test_batches();
	test_where();
	test_bad_arguments();
	return tierd_test_finish();
}
