/* Moving pages of another process to one node with move_pages(2), in large
 * batches, and telling exactly what moved (docs/kernel.md §5.1).
 *
 * 6.12 facts this code is built around (docs/vm.md; the THP cases as seen
 * by tests/vm/scenarios/movepages.sh):
 *  - every call drains the per-CPU LRU caches of all CPUs, so pages go in
 *    batches of TIERD_MOVE_PAGES_BATCH, one call each, not one per page;
 *  - a full target node gives no per-page -ENOMEM: for base pages the call
 *    fails with ENOMEM, status[] stays unwritten and part of the batch has
 *    moved; for THPs it is a failed migration batch instead;
 *  - a failed migration batch makes the call return a positive count and
 *    leave that batch's status[] unwritten (part of it may have moved);
 *  - moving one page of a THP moves the whole folio, and its other pages
 *    then report -EBUSY although they moved.
 * So each batch is queried first (source node, pages already there), moved
 * with status[] pre-filled with a sentinel, and every page whose outcome is
 * not certain is queried again: what sits on the target then has moved.
 *
 * The syscall is behind an ops table so the logic runs on a fake kernel in
 * the unit tests. Needs only libc and policy/ headers (the VM's static
 * tests/vm/movetest links this file alone). */
#ifndef TIERD_MOVE_PAGES_H
#define TIERD_MOVE_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "../policy/hotness.h"
#include "../policy/snapshot.h"

/* Pages per move_pages(2) call: large enough that the LRU drain each call
 * costs is paid rarely, small enough for the arrays (~100 KiB) to be cheap. */
#define TIERD_MOVE_PAGES_BATCH 4096

struct tierd_move_pages_ops {
	/* move_pages(2) of pid: nodes NULL queries, else moves (flags as the
	 * kernel takes them). Returns what the kernel returned: 0, a positive
	 * count of pages not migrated, or -errno (not -1 with errno). */
	long (*move_pages)(void *data, int pid, unsigned long count, void **pages,
			   const int *nodes, int *status, int flags);
};

/* The real syscall; data is unused. */
extern const struct tierd_move_pages_ops tierd_move_pages_kernel;

/* What one request did, in pages. Without a whole-call error,
 * requested = already_on_target + moved + every failed_* count, and the
 * pages of failed_transient and failed_nomem are the ones given back for a
 * retry. */
struct tierd_move_result {
	uint64_t requested;
	uint64_t already_on_target;
	uint64_t moved;
	uint64_t failed_unmapped;  /* -EFAULT: no VMA or zero page; dropped */
	uint64_t failed_transient; /* -ENOENT, -EBUSY, -EAGAIN, or a failed
				    * migration batch (positive return; a
				    * full node shows so for THPs) */
	uint64_t failed_nomem;     /* the call failed with ENOMEM (target
				    * node full), or -ENOMEM */
	uint64_t failed_other;     /* -EACCES (shared page) and the rest: not
				    * retried, they would fail again */
	/* Pages moved, by the node they left; nodes past TIERD_MAX_NODES (which
	 * tierd refuses at start) are in moved only. */
	uint64_t moved_from_node[TIERD_MAX_NODES];
	uint64_t syscalls;         /* move_pages(2) calls made, queries included */
};

/* Moves the pages at addrs[0..n) (page addresses in pid) to target_nid, in
 * batches. A page whose move status is unknown or a failure is looked up
 * afterwards; one whose status the call left unwritten and that reads not
 * present (the kernel migrating it) is looked up again, up to 3 times over
 * 7 ms, before it counts as failed.
 * res is zeroed first and filled in. Pages worth another try later
 * (failed_transient, failed_nomem) are stored in retry, which has room for
 * n addresses, and counted in *nr_retry. Returns 0 (however many pages
 * failed), -EINVAL for bad arguments, -ENOMEM, or the -errno of a call
 * that failed as a whole: -ESRCH no such process, -EPERM not allowed,
 * -ENODEV or -EACCES a target node without memory or outside the task's
 * cpuset, -EINVAL a task without memory (a zombie). Then res counts what
 * was settled before the failing call; the rest is in no count. */
int tierd_move_pages(const struct tierd_move_pages_ops *ops, void *data, int pid,
		     const uint64_t *addrs, size_t n, int target_nid,
		     struct tierd_move_result *res, uint64_t *retry, size_t *nr_retry);

/* Where the pages at addrs[0..n) of pid are: node_out[i] is a node id or
 * the kernel's -errno for that page (-EFAULT unmapped, -ENOENT not
 * present). Queries in batches. Returns 0 or -errno of a failed call. */
int tierd_pages_where(const struct tierd_move_pages_ops *ops, void *data, int pid,
		      const uint64_t *addrs, size_t n, int *node_out);

/* Bytes of a page count: what migrations move are base pages. */
static inline uint64_t tierd_move_pages_bytes(uint64_t pages)
{
	return pages * TIERD_PAGE_BYTES;
}

#endif
