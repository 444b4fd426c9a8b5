/* vm-link: controller/move_pages.c */
/* Moves NPAGES pages of PID from START_ADDR on to NODE with
 * tierd_move_pages (controller/move_pages.c) on the VM's real kernel, then
 * queries where the pages are, and prints "RESULT key value" lines: the
 * result counts, the pages found on NODE afterwards and how many of the
 * pages given back for a retry sit on NODE (none should); and an INFO line
 * per move call. Static, like every VM program. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../controller/move_pages.h"

#define MS_PER_SEC 1000
#define NS_PER_MS 1000000

static int parse(const char *text, const char *what, unsigned long long max,
		 unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, 0);
	if (errno || end == text || *end || *out > max) {
		fprintf(stderr, "movetest: %s: \"%s\" is not a number up to %llu\n", what, text,
			max);
		return -EINVAL;
	}
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * MS_PER_SEC + (uint64_t)ts.tv_nsec / NS_PER_MS;
}

/* The kernel's move_pages, with each call's outcome printed. A move: how
 * many pages, what it returned, how many statuses say "on the target". A
 * query (data points at the target node): how many pages, and how many
 * answered the target, another node, -ENOENT (not present: also a page
 * under migration), -EBUSY or anything else. */
static long logged_move_pages(void *data, int pid, unsigned long count, void **pages,
			      const int *nodes, int *status, int flags)
{
	long r = tierd_move_pages_kernel.move_pages(data, pid, count, pages, nodes, status, flags);
	unsigned long on_target = 0, other_node = 0, enoent = 0, ebusy = 0, other = 0;
	const int *target = data;

	if (nodes) {
		for (unsigned long i = 0; i < count; i++)
			on_target += status[i] == nodes[i];
		printf("INFO move count %lu ret %ld on_target %lu\n", count, r, on_target);
		return r;
	}
	for (unsigned long i = 0; r >= 0 && i < count; i++) {
		on_target += status[i] == *target;
		other_node += status[i] >= 0 && status[i] != *target;
		enoent += status[i] == -ENOENT;
		ebusy += status[i] == -EBUSY;
		other += status[i] < 0 && status[i] != -ENOENT && status[i] != -EBUSY;
	}
	printf("INFO query count %lu ret %ld on_target %lu other_node %lu enoent %lu ebusy %lu "
	       "other %lu\n", count, r, on_target, other_node, enoent, ebusy, other);
	return r;
}

static const struct tierd_move_pages_ops logged_ops = { .move_pages = logged_move_pages };

static size_t count_on(const int *nodes, size_t n, int node)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += nodes[i] == node;
	return c;
}

static void print_result(const struct tierd_move_result *res, size_t nr_retry)
{
	printf("RESULT requested %" PRIu64 "\n", res->requested);
	printf("RESULT already_on_target %" PRIu64 "\n", res->already_on_target);
	printf("RESULT moved %" PRIu64 "\n", res->moved);
	printf("RESULT failed_unmapped %" PRIu64 "\n", res->failed_unmapped);
	printf("RESULT failed_transient %" PRIu64 "\n", res->failed_transient);
	printf("RESULT failed_nomem %" PRIu64 "\n", res->failed_nomem);
	printf("RESULT failed_other %" PRIu64 "\n", res->failed_other);
	printf("RESULT syscalls %" PRIu64 "\n", res->syscalls);
	printf("RESULT nr_retry %zu\n", nr_retry);
	/* Every source node as NID:PAGES, so one line says where all came from. */
	printf("RESULT moved_from");
	for (int nid = 0; nid < TIERD_MAX_NODES; nid++)
		if (res->moved_from_node[nid])
			printf(" %d:%" PRIu64, nid, res->moved_from_node[nid]);
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned long long pid, node, start, npages;
	struct tierd_move_result res;
	uint64_t *addrs = NULL, *retry = NULL;
	int *where = NULL;
	size_t nr_retry = 0;
	uint64_t t0;
	int target, r = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: movetest PID NODE START_ADDR NPAGES\n");
		return 2;
	}
	if (parse(argv[1], "PID", INT32_MAX, &pid) < 0 ||
	    parse(argv[2], "NODE", TIERD_MAX_NODES - 1, &node) < 0 ||
	    parse(argv[3], "START_ADDR", UINT64_MAX, &start) < 0 ||
	    parse(argv[4], "NPAGES", SIZE_MAX / sizeof(uint64_t), &npages) < 0)
		return 2;
	addrs = calloc(npages, sizeof(*addrs));
	retry = calloc(npages, sizeof(*retry));
	where = calloc(npages, sizeof(*where));
	if (!addrs || !retry || !where) {
		fprintf(stderr, "movetest: no memory for %llu pages\n", npages);
		goto out;
	}
	for (size_t i = 0; i < npages; i++)
		addrs[i] = start + i * TIERD_PAGE_BYTES;

	t0 = now_ms();
	target = (int)node;
	r = tierd_move_pages(&logged_ops, &target, (int)pid, addrs, npages, (int)node, &res, retry,
			     &nr_retry);
	printf("RESULT rc %d\n", r);
	printf("INFO move_ms %" PRIu64 "\n", now_ms() - t0);
	print_result(&res, nr_retry);

	r = tierd_pages_where(&tierd_move_pages_kernel, NULL, (int)pid, addrs, npages, where);
	if (r < 0) {
		fprintf(stderr, "movetest: querying %llu pages of pid %llu: %s\n", npages, pid,
			strerror(-r));
		goto out;
	}
	printf("RESULT found_on_target %zu\n", count_on(where, npages, (int)node));
	r = tierd_pages_where(&tierd_move_pages_kernel, NULL, (int)pid, retry, nr_retry, where);
	if (r < 0) {
		fprintf(stderr, "movetest: querying the %zu retry pages of pid %llu: %s\n",
			nr_retry, pid, strerror(-r));
		goto out;
	}
	printf("RESULT retry_on_target %zu\n", count_on(where, nr_retry, (int)node));
out:
	free(addrs);
	free(retry);
	free(where);
	return r < 0 ? 1 : r;
}
