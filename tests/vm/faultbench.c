/* A fault-heavy workload for the BPF sampler's overhead benchmark
 * (tests/vm/scenarios/bpfbench.sh, bench/bpf_overhead.sh): anonymous
 * memory placed on one node, then touched page by page, every page once a
 * pass, pass after pass. Under NUMA balancing in tiering mode each scan
 * makes the pages of a slow node inaccessible, so the next pass takes one
 * hint fault per page: the faults come as fast as the kernel scans, and
 * what a fault costs shows in the touches per second.
 *
 * usage: faultbench --node K [--mib N] [--sec S] [--warmup-sec W] [--cpu C]
 *
 * Every run does the same work: the same pages on the same node, touched
 * in the same order by one thread pinned to one CPU, a warm-up of W
 * seconds (the scanner's first delay and period, the page tables) before S
 * timed seconds. The timed window ends at the end of the first pass that
 * finishes after S seconds, so it holds whole passes only.
 *
 * Output on stdout, "key value" lines, after the timed window:
 *   pages, passes, touches (passes x pages), elapsed_ms,
 *   touches_per_sec, user_ms and sys_ms (getrusage over the timed window
 *   only: sys holds the hint faults and the scanning, which runs in the
 *   task's own context), hint_faults (/proc/vmstat numa_hint_faults over
 *   the timed window: the whole machine's, so run nothing else that
 *   faults), pages_on_node (pages still on --node at the end,
 *   from move_pages(2): fewer means something migrated them and the run
 *   measured something else).
 * Exit 0, 1 on an error (on stderr), 2 on a usage error. Static, like
 * every VM program: mbind and move_pages are raw syscalls. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vmwork.h"

#define QUERY_BATCH 4096    /* pages per move_pages query: bounded arrays */
#define DEFAULT_MIB 128     /* half of the kernel's 256 MiB scan size, so one
			     * scan covers it all (numa_balancing_scan_size_mb) */
#define DEFAULT_SEC 15
#define DEFAULT_WARMUP_SEC 3 /* past the scenario's 100 ms scan delay and
			      * the scanner's first periods */
#define DEFAULT_CPU 0       /* node 0 holds the VM's CPUs (docs/vm.md) */
#define MAX_SEC 3600        /* an hour: a sanity bound on --sec and --warmup-sec */
#define MS_PER_SEC 1000u
#define US_PER_MS 1000u
#define NS_PER_MS 1000000u
#define NS_PER_SEC 1000000000u
#define EXIT_USAGE 2
#define VMSTAT_PATH "/proc/vmstat"
#define HINT_FAULTS_KEY "numa_hint_faults" /* mm/vmstat.c, CONFIG_NUMA_BALANCING */
#define VMSTAT_NAME_LEN 63                 /* longer than any vmstat name */
#define STR(x) #x
#define XSTR(x) STR(x)

struct opts {
	unsigned long mib, sec, warmup_sec;
	int node, cpu;
};

struct region {
	uint64_t *base;
	size_t len, pages, page_words;
};

struct result {
	uint64_t passes, elapsed_ns, user_us, sys_us, hint_faults;
	size_t on_node;
};

static void usage(void)
{
	fprintf(stderr, "usage: faultbench --node K [--mib N] [--sec S] [--warmup-sec W] "
		"[--cpu C]\n");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * MS_PER_SEC * US_PER_MS + (uint64_t)tv->tv_usec;
}

enum opt_id { OPT_NODE = 256, OPT_MIB, OPT_SEC, OPT_WARMUP, OPT_CPU };

static const struct option long_opts[] = {
	{ "node", required_argument, NULL, OPT_NODE },
	{ "mib", required_argument, NULL, OPT_MIB },
	{ "sec", required_argument, NULL, OPT_SEC },
	{ "warmup-sec", required_argument, NULL, OPT_WARMUP },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ NULL, 0, NULL, 0 },
};

static int apply_opt(struct opts *o, int id, const char *arg)
{
	unsigned long v = 0;
	int r;

	switch (id) {
	case OPT_NODE:
		r = vm_parse_num(arg, 0, NODEMASK_BITS - 1, &v);
		o->node = (int)v;
		break;
	case OPT_MIB:
		r = vm_parse_num(arg, 1, SIZE_MAX / MIB, &o->mib);
		break;
	case OPT_SEC:
		r = vm_parse_num(arg, 1, MAX_SEC, &o->sec);
		break;
	case OPT_WARMUP:
		r = vm_parse_num(arg, 0, MAX_SEC, &o->warmup_sec);
		break;
	case OPT_CPU:
		r = vm_parse_num(arg, 0, CPU_SETSIZE - 1, &v);
		o->cpu = (int)v;
		break;
	default:
		r = -EINVAL;
	}
	return r;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int id, idx = 0;

	*o = (struct opts){ .mib = DEFAULT_MIB, .sec = DEFAULT_SEC,
			    .warmup_sec = DEFAULT_WARMUP_SEC, .node = -1, .cpu = DEFAULT_CPU };
	while ((id = getopt_long(argc, argv, "", long_opts, &idx)) != -1) {
		if (apply_opt(o, id, optarg) < 0) {
			if (optarg)
				fprintf(stderr, "faultbench: bad value '%s' for --%s\n", optarg,
					long_opts[idx].name);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "faultbench: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (o->node < 0) {
		fprintf(stderr, "faultbench: --node K is required\n");
		return -EINVAL;
	}
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) < 0) {
		fprintf(stderr, "faultbench: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Maps the region and touches every page on node, then resets the policy:
 * NUMA balancing scans only VMAs whose policy allows moving
 * (vma_policy_mof()), which a plain MPOL_BIND does not. */
static int alloc_region(struct region *g, unsigned long mib, int node)
{
	size_t page_size = (size_t)sysconf(_SC_PAGESIZE);
	int r = 0;

	g->len = mib * MIB;
	g->pages = g->len / page_size;
	g->page_words = page_size / sizeof(uint64_t);
	g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->base == MAP_FAILED) {
		r = -errno;
		g->base = NULL;
		fprintf(stderr, "faultbench: mmap of %lu MiB: %s\n", mib, strerror(-r));
		goto out;
	}
	/* A huge page takes one fault for 512 pages: the fault rate would
	 * depend on what THP managed to allocate. */
	if (madvise(g->base, g->len, MADV_NOHUGEPAGE) < 0) {
		r = -errno;
		fprintf(stderr, "faultbench: madvise(MADV_NOHUGEPAGE): %s\n", strerror(-r));
		goto out;
	}
	r = vm_set_policy(g->base, g->len, MPOL_BIND_MODE, node);
	if (r < 0) {
		fprintf(stderr, "faultbench: mbind to node %d: %s\n", node, strerror(-r));
		goto out;
	}
	memset(g->base, 0, g->len);
	r = vm_set_policy(g->base, g->len, MPOL_DEFAULT_MODE, 0);
	if (r < 0)
		fprintf(stderr, "faultbench: mbind back to MPOL_DEFAULT: %s\n", strerror(-r));
out:
	return r;
}

/* One pass: a read and a write of the first word of every page, in
 * address order. volatile: the accesses are the point. */
static void pass(const struct region *g)
{
	for (size_t page = 0; page < g->pages; page++) {
		volatile uint64_t *p = g->base + page * g->page_words;

		(*p)++;
	}
}

/* Passes until sec seconds have gone by; returns how many. */
static uint64_t run_for(const struct region *g, uint64_t sec, uint64_t *elapsed_ns)
{
	uint64_t t0 = now_ns(), passes = 0, t;

	do {
		pass(g);
		passes++;
		t = now_ns() - t0;
	} while (t < sec * NS_PER_SEC);
	*elapsed_ns = t;
	return passes;
}

/* Pages of the region on node, from a move_pages(2) query. */
static int count_on_node(const struct region *g, int node, size_t *out)
{
	void **addrs = calloc(QUERY_BATCH, sizeof(*addrs));
	int *status = calloc(QUERY_BATCH, sizeof(*status));
	size_t done, n, i;
	int r = 0;

	*out = 0;
	if (!addrs || !status) {
		r = -ENOMEM;
		fprintf(stderr, "faultbench: no memory for the move_pages arrays\n");
		goto out;
	}
	for (done = 0; done < g->pages; done += n) {
		n = g->pages - done < QUERY_BATCH ? g->pages - done : QUERY_BATCH;
		for (i = 0; i < n; i++)
			addrs[i] = g->base + (done + i) * g->page_words;
		if (syscall(SYS_move_pages, 0, n, addrs, NULL, status, 0) < 0) {
			r = -errno;
			fprintf(stderr, "faultbench: move_pages query: %s\n", strerror(-r));
			goto out;
		}
		for (i = 0; i < n; i++)
			*out += status[i] == node;
	}
out:
	free(addrs);
	free(status);
	return r;
}

static int self_rusage(struct rusage *ru)
{
	if (getrusage(RUSAGE_SELF, ru) < 0) {
		fprintf(stderr, "faultbench: getrusage: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The machine's NUMA hint faults so far. */
static int hint_faults(uint64_t *out)
{
	char name[VMSTAT_NAME_LEN + 1];
	uint64_t v;
	FILE *f = fopen(VMSTAT_PATH, "r");
	int r = -ENOENT;

	if (!f) {
		r = -errno;
		fprintf(stderr, "faultbench: %s: %s\n", VMSTAT_PATH, strerror(-r));
		goto out;
	}
	while (fscanf(f, "%" XSTR(VMSTAT_NAME_LEN) "s %" SCNu64, name, &v) == 2) {
		if (strcmp(name, HINT_FAULTS_KEY) == 0) {
			*out = v;
			r = 0;
			break;
		}
	}
	fclose(f);
	if (r < 0)
		fprintf(stderr, "faultbench: %s: no %s line (a kernel without NUMA balancing?)\n",
			VMSTAT_PATH, HINT_FAULTS_KEY);
out:
	return r;
}

/* The warm-up, then the timed window, then where the pages are. */
static int measure(const struct region *g, const struct opts *o, struct result *res)
{
	struct rusage before, after;
	uint64_t warm_ns, faults0 = 0, faults1 = 0;
	int r;

	if (o->warmup_sec)
		run_for(g, o->warmup_sec, &warm_ns);
	r = hint_faults(&faults0);
	if (r == 0)
		r = self_rusage(&before);
	if (r < 0)
		goto out;
	res->passes = run_for(g, o->sec, &res->elapsed_ns);
	r = self_rusage(&after);
	if (r == 0)
		r = hint_faults(&faults1);
	if (r < 0)
		goto out;
	res->user_us = tv_us(&after.ru_utime) - tv_us(&before.ru_utime);
	res->sys_us = tv_us(&after.ru_stime) - tv_us(&before.ru_stime);
	res->hint_faults = faults1 - faults0;
	r = count_on_node(g, o->node, &res->on_node);
out:
	return r;
}

static void print_result(const struct region *g, const struct result *res)
{
	uint64_t touches = res->passes * g->pages;

	printf("pages %zu\n", g->pages);
	printf("passes %" PRIu64 "\n", res->passes);
	printf("touches %" PRIu64 "\n", touches);
	printf("elapsed_ms %" PRIu64 "\n", res->elapsed_ns / NS_PER_MS);
	printf("touches_per_sec %.0f\n", (double)touches * NS_PER_SEC / (double)res->elapsed_ns);
	printf("user_ms %" PRIu64 "\n", res->user_us / US_PER_MS);
	printf("sys_ms %" PRIu64 "\n", res->sys_us / US_PER_MS);
	printf("hint_faults %" PRIu64 "\n", res->hint_faults);
	printf("pages_on_node %zu\n", res->on_node);
}

int main(int argc, char **argv)
{
	struct region g = { .base = NULL, .len = 0, .pages = 0, .page_words = 0 };
	struct result res;
	struct opts o;
	int r;

	if (parse_args(argc, argv, &o) < 0) {
		usage();
		return EXIT_USAGE;
	}
	r = pin(o.cpu);
	if (r == 0)
		r = alloc_region(&g, o.mib, o.node);
	if (r == 0)
		r = measure(&g, &o, &res);
	if (r == 0)
		print_result(&g, &res);
	if (g.base)
		munmap(g.base, g.len);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
