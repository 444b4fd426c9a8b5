/* Batched move_pages(2) with every failure accounted; see move_pages.h. */
#include <errno.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "move_pages.h"
#include "../policy/util.h"

/* Pre-filled in status[]: neither a node id nor a -errno the kernel writes,
 * so an entry still holding it was not written (docs/kernel.md §5.1). */
#define STATUS_UNWRITTEN INT_MIN
/* Query mode takes no flags; moves take MPOL_MF_MOVE (not _ALL: shared
 * pages stay, and _ALL would need CAP_SYS_NICE). */
#define QUERY_FLAGS 0
/* A page the kernel is migrating when the re-check queries it (compaction
 * on the target, after the move) reads -ENOENT (docs/kernel.md §5.1): such
 * pages are queried again, up to this many times, after a pause that
 * starts here and doubles. The kernel unmaps up to 512 pages of a batch
 * before it copies them one by one (2 MiB, about 2 ms at 1 GB/s), so the
 * last pause covers one such batch with room to spare. */
#define SETTLE_QUERIES 3
#define SETTLE_FIRST_PAUSE_USEC 1000

static long kernel_move_pages(void *data, int pid, unsigned long count, void **pages,
			      const int *nodes, int *status, int flags)
{
	long r;

	(void)data;
	r = syscall(SYS_move_pages, pid, count, pages, nodes, status, flags);
	return r < 0 ? -errno : r;
}

const struct tierd_move_pages_ops tierd_move_pages_kernel = {
	.move_pages = kernel_move_pages,
};

enum failure {
	FAIL_UNMAPPED,
	FAIL_TRANSIENT,
	FAIL_NOMEM,
	FAIL_OTHER,
};

/* One request, and its per-batch arrays (~100 KiB: kept off the stack). */
struct mover {
	const struct tierd_move_pages_ops *ops;
	void *data;
	int pid;
	int target;
	struct tierd_move_result *res;
	uint64_t *retry;
	size_t *nr_retry;
	void *pages[TIERD_MOVE_PAGES_BATCH];
	int nodes[TIERD_MOVE_PAGES_BATCH];  /* target_nid, for every entry */
	int status[TIERD_MOVE_PAGES_BATCH];
	int source[TIERD_MOVE_PAGES_BATCH]; /* node of each page to move */
	int again[TIERD_MOVE_PAGES_BATCH];  /* the re-query's answer */
};

static int query(struct mover *m, size_t count, int *status)
{
	long r;

	m->res->syscalls++;
	r = m->ops->move_pages(m->data, m->pid, count, m->pages, NULL, status, QUERY_FLAGS);
	return r < 0 ? (int)r : 0;
}

/* A per-page -errno (from a query or a move) as a failure cause. */
static enum failure failure_of(int status)
{
	switch (status) {
	case -EFAULT:
		return FAIL_UNMAPPED;
	case -ENOENT:
	case -EBUSY:
	case -EAGAIN:
		return FAIL_TRANSIENT;
	case -ENOMEM:
		return FAIL_NOMEM;
	default:
		return FAIL_OTHER;
	}
}

static void count_failed(struct mover *m, enum failure why, const void *page)
{
	switch (why) {
	case FAIL_UNMAPPED:
		m->res->failed_unmapped++;
		return;
	case FAIL_OTHER:
		m->res->failed_other++;
		return;
	case FAIL_TRANSIENT:
		m->res->failed_transient++;
		break;
	case FAIL_NOMEM:
		m->res->failed_nomem++;
		break;
	}
	m->retry[(*m->nr_retry)++] = (uintptr_t)page;
}

static void count_moved(struct mover *m, int source)
{
	m->res->moved++;
	if (source < TIERD_MAX_NODES)
		m->res->moved_from_node[source]++;
}

/* Whether a move's failure status is final. Not so for an unwritten entry,
 * a page seen on another node, nor a transient error: a THP's other pages
 * report -EBUSY when its first page moved the whole folio. */
static bool failed_for_sure(int status)
{
	enum failure why;

	if (status >= 0 || status == STATUS_UNWRITTEN)
		return false;
	why = failure_of(status);
	return why == FAIL_UNMAPPED || why == FAIL_OTHER;
}

/* A re-check's answer that may be a page in migration (not present) or
 * busy for a moment, as opposed to a page that stayed where it was. Only
 * pages the move left unwritten are asked again: one the move reported
 * failed for itself stayed put. */
static bool in_flight(int where)
{
	return where < 0 && failure_of(where) == FAIL_TRANSIENT;
}

/* Queries the count pages left to re-check (m->pages, their move status in
 * m->status) and settles them: on the target they moved, else they failed,
 * for the reason the move gave or, unwritten, for unwritten_why. Unwritten
 * pages that read in flight are queried again (SETTLE_QUERIES). The arrays
 * are compacted in place as pages settle. */
static int recheck(struct mover *m, size_t count, enum failure unwritten_why)
{
	uint64_t pause = SETTLE_FIRST_PAUSE_USEC;
	enum failure why;
	int r;

	for (int settle = 0;; settle++) {
		size_t nr_left = 0;

		r = query(m, count, m->again);
		if (r < 0)
			return r;
		for (size_t i = 0; i < count; i++) {
			if (m->again[i] == m->target) {
				count_moved(m, m->source[i]);
				continue;
			}
			if (m->status[i] == STATUS_UNWRITTEN && in_flight(m->again[i]) &&
			    settle < SETTLE_QUERIES) {
				m->source[nr_left] = m->source[i];
				m->status[nr_left] = m->status[i];
				m->pages[nr_left++] = m->pages[i];
				continue;
			}
			if (m->again[i] == -EFAULT)
				why = FAIL_UNMAPPED;
			else if (m->status[i] == STATUS_UNWRITTEN)
				why = unwritten_why;
			else if (m->status[i] == -ENOMEM)
				why = FAIL_NOMEM;
			else
				why = FAIL_TRANSIENT;
			count_failed(m, why, m->pages[i]);
		}
		if (nr_left == 0)
			return 0;
		count = nr_left;
		tierd_sleep_usec(pause);
		pause *= 2;
	}
}

/* Moves what of addrs[0..count) is not on the target yet: query, move,
 * re-check. The arrays are compacted in place as pages drop out: the write
 * index never passes the read index. */
static int move_batch(struct mover *m, const uint64_t *addrs, size_t count)
{
	enum failure unwritten_why;
	size_t nr_move = 0, nr_recheck = 0;
	long r;

	for (size_t i = 0; i < count; i++)
		m->pages[i] = (void *)(uintptr_t)addrs[i];
	r = query(m, count, m->status);
	if (r < 0)
		return (int)r;
	for (size_t i = 0; i < count; i++) {
		if (m->status[i] == m->target) {
			m->res->already_on_target++;
		} else if (m->status[i] >= 0) {
			m->source[nr_move] = m->status[i];
			m->pages[nr_move++] = m->pages[i];
		} else {
			count_failed(m, failure_of(m->status[i]), m->pages[i]);
		}
	}
	if (nr_move == 0)
		return 0;

	for (size_t i = 0; i < nr_move; i++) {
		m->nodes[i] = m->target;
		m->status[i] = STATUS_UNWRITTEN;
	}
	m->res->syscalls++;
	r = m->ops->move_pages(m->data, m->pid, nr_move, m->pages, m->nodes, m->status,
			       MPOL_MF_MOVE);
	/* ENOMEM: the target node filled up mid-batch; the rest of the call's
	 * errors concern the whole process or node, and nothing moved. */
	if (r < 0 && r != -ENOMEM)
		return (int)r;
	unwritten_why = r < 0 ? FAIL_NOMEM : FAIL_TRANSIENT;

	for (size_t i = 0; i < nr_move; i++) {
		if (m->status[i] == m->target) {
			count_moved(m, m->source[i]);
		} else if (failed_for_sure(m->status[i])) {
			count_failed(m, failure_of(m->status[i]), m->pages[i]);
		} else {
			m->source[nr_recheck] = m->source[i];
			m->status[nr_recheck] = m->status[i];
			m->pages[nr_recheck++] = m->pages[i];
		}
	}
	if (nr_recheck == 0)
		return 0;
	return recheck(m, nr_recheck, unwritten_why);
}

int tierd_move_pages(const struct tierd_move_pages_ops *ops, void *data, int pid,
		     const uint64_t *addrs, size_t n, int target_nid,
		     struct tierd_move_result *res, uint64_t *retry, size_t *nr_retry)
{
	_cleanup_free_ struct mover *m = NULL;
	int r = 0;

	if (!ops || !ops->move_pages || !res || !nr_retry || target_nid < 0 ||
	    (n > 0 && (!addrs || !retry)))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->requested = n;
	*nr_retry = 0;
	if (n == 0)
		return 0;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = (struct mover){ .ops = ops, .data = data, .pid = pid, .target = target_nid,
			     .res = res, .retry = retry, .nr_retry = nr_retry };
	for (size_t off = 0; off < n && r == 0; off += TIERD_MOVE_PAGES_BATCH)
		r = move_batch(m, addrs + off,
			       n - off < TIERD_MOVE_PAGES_BATCH ? n - off : TIERD_MOVE_PAGES_BATCH);
	return r;
}

int tierd_pages_where(const struct tierd_move_pages_ops *ops, void *data, int pid,
		      const uint64_t *addrs, size_t n, int *node_out)
{
	_cleanup_free_ void **pages = NULL;
	size_t batch = n < TIERD_MOVE_PAGES_BATCH ? n : TIERD_MOVE_PAGES_BATCH;
	long r = 0;

	if (!ops || !ops->move_pages || (n > 0 && (!addrs || !node_out)))
		return -EINVAL;
	if (n == 0)
		return 0;
	pages = calloc(batch, sizeof(*pages));
	if (!pages)
		return -ENOMEM;
	for (size_t off = 0; off < n && r >= 0; off += batch) {
		size_t count = n - off < batch ? n - off : batch;

		for (size_t i = 0; i < count; i++)
			pages[i] = (void *)(uintptr_t)addrs[off + i];
		r = ops->move_pages(data, pid, count, pages, NULL, node_out + off, QUERY_FLAGS);
	}
	return r < 0 ? (int)r : 0;
}
