/* A test workload for the VM scenarios that proves demotion and promotion:
 * known hot and cold sets of anonymous memory, a hot loop over the hot set,
 * periodic reports of where each set's pages are, and a final check that
 * migration lost or corrupted no page. Built static (no libnuma in the
 * initramfs): move_pages and mbind are raw syscalls.
 *
 * usage: work --hot MIB [--cold MIB] [--hot2 MIB] [--hot-node N]
 *             [--cold-node N] [--hot2-node N] [--move-after SEC]
 *             [--duration SEC] [--report-ms MS] [--cpu N] [--no-sleeper]
 *             [--seed N] [--nice N]
 *
 * Sets: hot set A (--hot), the cold set (--cold) and hot set B (--hot2).
 * A set with a node is bound to it (MPOL_BIND) while it is first touched,
 * then its policy is reset to MPOL_DEFAULT so the kernel and tierd may
 * move it (a VMA bound to a slow node is never promoted). A is hot from
 * the start; --move-after SEC makes B hot instead and A goes cold. The
 * cold set is never touched after its first touch.
 *
 * Output on stdout, one line each, flushed:
 *   pid <pid>
 *   ready
 *   PLACE t_ms=<ms> hotset=A|B hot=<n0>,<n1>,<n2>,<n3> cold=<...> hot2=<...> touches=<n>
 *   moved t_ms=<ms>
 *   FRAMES set=A node0=<pages> runs=<n> blocks=<n>
 *   CHECKSUM pages=<pages checked> bad=<pages whose pattern is wrong>
 * t_ms counts from "ready". PLACE comes at t_ms=0, then every --report-ms
 * (default 1000). Each set's field is its pages on nodes 0..3 from
 * move_pages(2); when some page has a negative status (-EFAULT, -ENOENT
 * while under migration) or sits on a node above 3, a fifth item ",x=<n>"
 * counts them. hot= is the set hot now (hotset= names it), hot2= the other
 * of A and B (B before the move, A after), so "hot2" after the move is the
 * set that went cold. Without --hot2, hot2=0,0,0,0. touches= counts the
 * pages the hot loop has swept since it started: the workload's own
 * operations, whose rate is its throughput (bench/overhead.sh).
 * FRAMES, before CHECKSUM, says how set A's pages on node 0 lie in physical
 * memory (/proc/self/pagemap, docs/kernel.md §5.2): how many there are,
 * in how many runs of consecutive frames, and in how many 2 MiB blocks.
 * CHECKSUM comes after --duration SEC or on SIGTERM/SIGINT; exit 0, or 1
 * if bad > 0 or on an error (on stderr). Usage errors exit 2.
 *
 * Every page holds a pattern of (set, page index, seed) except word 0, the
 * counter the hot loop writes. TCG needs the hot loop and a sleeper on the
 * same CPU (--cpu, default 0) so DAMON sees accesses (docs/vm.md, "accessed
 * bits"); --no-sleeper drops the sleeper. --nice N lowers the priority of
 * all of it, for scenarios whose hot loops would starve tierd. */
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
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

#define NR_REPORT_NODES 4   /* the test VM's nodes 0-3 (docs/vm.md) */
#define QUERY_BATCH 4096    /* pages per move_pages query: bounded arrays */
#define DEFAULT_REPORT_MS 1000
#define DEFAULT_CPU 0       /* node 0 holds the VM's CPUs (docs/vm.md) */
#define NICE_LOWEST 19      /* the lowest priority a nice value gives (setpriority(2)) */
#define SLEEPER_US 1000     /* docs/vm.md's sleeper: usleep(1000) forever */
#define DEFAULT_SEED 1
#define COUNTER_WORD 0      /* the hot loop's word, outside the pattern */
#define FIRST_PATTERN_WORD 1
#define NO_NODE (-1)
#define NO_TIME (-1L)
#define MS_PER_SEC 1000L
#define NS_PER_MS 1000000L
/* splitmix64 (Steele, Lea, Flood 2014): golden-ratio increment and mixer. */
#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull
#define SPLITMIX_MUL1 0xbf58476d1ce4e5b9ull
#define SPLITMIX_MUL2 0x94d049bb133111ebull
#define SPLITMIX_SHIFT1 30
#define SPLITMIX_SHIFT2 27
#define SPLITMIX_SHIFT3 31
#define EXIT_USAGE 2
/* /proc/PID/pagemap: one 64-bit entry per page, bit 63 "present", bits
 * 0-54 the frame number (docs/kernel.md §5.2). */
#define PAGEMAP_ENTRY_BYTES 8
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_PFN_MASK ((1ull << 55) - 1)
#define PMD_PAGES 512       /* a 2 MiB block of 4 KiB frames */
#define COUNTS_MAX 128 /* NR_REPORT_NODES + 1 unsigned longs, commas, "x=" */

enum set_id { SET_A, SET_COLD, SET_B, NR_SETS };

static const char *const set_names[NR_SETS] = { "hot", "cold", "hot2" };

struct opts {
	unsigned long mib[NR_SETS];
	int node[NR_SETS];
	long move_after_ms;
	long duration_ms;
	long report_ms;
	int cpu;
	bool sleeper;
	uint64_t seed;
	int nice;
};

struct set {
	uint64_t *base;
	size_t pages;
};

struct work {
	struct set sets[NR_SETS];
	size_t page_words;
	size_t page_size;
	uint64_t seed;
	atomic_int hot;     /* SET_A, or SET_B after the move */
	atomic_bool stop;   /* tells the hot loop to return */
	atomic_ulong touches; /* pages swept by the hot loop */
	void **addrs;       /* QUERY_BATCH page addresses for move_pages */
	int *status;        /* their nodes or negative errnos */
};

static void usage(void)
{
	fprintf(stderr, "usage: work --hot MIB [--cold MIB] [--hot2 MIB] [--hot-node N] "
		"[--cold-node N] [--hot2-node N] [--move-after SEC] [--duration SEC] "
		"[--report-ms MS] [--cpu N] [--no-sleeper] [--seed N] [--nice N]\n");
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> SPLITMIX_SHIFT1)) * SPLITMIX_MUL1;
	z = (z ^ (z >> SPLITMIX_SHIFT2)) * SPLITMIX_MUL2;
	return z ^ (z >> SPLITMIX_SHIFT3);
}

/* A different key per page, so a page swapped with another one or zeroed
 * by a bad migration does not verify. */
static uint64_t page_key(uint64_t seed, int set, size_t page)
{
	return mix64(mix64(seed + (uint64_t)set * SPLITMIX_GAMMA) + page);
}

static uint64_t pattern_word(uint64_t key, size_t word)
{
	return key ^ (word * SPLITMIX_GAMMA);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS;
}

enum opt_id {
	OPT_HOT = 256, OPT_COLD, OPT_HOT2, OPT_HOT_NODE, OPT_COLD_NODE, OPT_HOT2_NODE,
	OPT_MOVE_AFTER, OPT_DURATION, OPT_REPORT_MS, OPT_CPU, OPT_NO_SLEEPER, OPT_SEED, OPT_NICE,
};

static const struct option long_opts[] = {
	{ "hot", required_argument, NULL, OPT_HOT },
	{ "cold", required_argument, NULL, OPT_COLD },
	{ "hot2", required_argument, NULL, OPT_HOT2 },
	{ "hot-node", required_argument, NULL, OPT_HOT_NODE },
	{ "cold-node", required_argument, NULL, OPT_COLD_NODE },
	{ "hot2-node", required_argument, NULL, OPT_HOT2_NODE },
	{ "move-after", required_argument, NULL, OPT_MOVE_AFTER },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "report-ms", required_argument, NULL, OPT_REPORT_MS },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "no-sleeper", no_argument, NULL, OPT_NO_SLEEPER },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "nice", required_argument, NULL, OPT_NICE },
	{ NULL, 0, NULL, 0 },
};

static int apply_opt(struct opts *o, int id, const char *arg)
{
	unsigned long v = 0;
	int r = 0;

	switch (id) {
	case OPT_HOT:
	case OPT_COLD:
	case OPT_HOT2:
		r = vm_parse_num(arg, 0, SIZE_MAX / MIB, &v);
		o->mib[id == OPT_HOT ? SET_A : id == OPT_COLD ? SET_COLD : SET_B] = v;
		break;
	case OPT_HOT_NODE:
	case OPT_COLD_NODE:
	case OPT_HOT2_NODE:
		r = vm_parse_num(arg, 0, NODEMASK_BITS - 1, &v);
		o->node[id == OPT_HOT_NODE ? SET_A : id == OPT_COLD_NODE ? SET_COLD : SET_B] = (int)v;
		break;
	case OPT_MOVE_AFTER:
	case OPT_DURATION:
		r = vm_parse_num(arg, 0, LONG_MAX / MS_PER_SEC, &v);
		*(id == OPT_MOVE_AFTER ? &o->move_after_ms : &o->duration_ms) = (long)v * MS_PER_SEC;
		break;
	case OPT_REPORT_MS:
		r = vm_parse_num(arg, 1, LONG_MAX, &v);
		o->report_ms = (long)v;
		break;
	case OPT_CPU:
		r = vm_parse_num(arg, 0, CPU_SETSIZE - 1, &v);
		o->cpu = (int)v;
		break;
	case OPT_NO_SLEEPER:
		o->sleeper = false;
		break;
	case OPT_SEED:
		r = vm_parse_num(arg, 0, ULONG_MAX, &v);
		o->seed = v;
		break;
	case OPT_NICE:
		r = vm_parse_num(arg, 0, NICE_LOWEST, &v);
		o->nice = (int)v;
		break;
	default:
		r = -EINVAL;
	}
	return r;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int id, idx = 0;

	*o = (struct opts){
		.node = { NO_NODE, NO_NODE, NO_NODE },
		.move_after_ms = NO_TIME,
		.duration_ms = NO_TIME,
		.report_ms = DEFAULT_REPORT_MS,
		.cpu = DEFAULT_CPU,
		.sleeper = true,
		.seed = DEFAULT_SEED,
	};
	while ((id = getopt_long(argc, argv, "", long_opts, &idx)) != -1) {
		if (apply_opt(o, id, optarg) < 0) {
			if (optarg)
				fprintf(stderr, "work: bad value '%s' for --%s\n", optarg, long_opts[idx].name);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "work: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (o->mib[SET_A] == 0) {
		fprintf(stderr, "work: --hot MIB (at least 1) is required\n");
		return -EINVAL;
	}
	if (o->move_after_ms != NO_TIME && o->mib[SET_B] == 0) {
		fprintf(stderr, "work: --move-after needs --hot2 MIB\n");
		return -EINVAL;
	}
	return 0;
}

/* Maps a set, stamps every page (the first touch, on node if it is not
 * NO_NODE), then leaves the pages free to move. */
static int alloc_set(struct work *w, int id, unsigned long mib, int node)
{
	struct set *s = &w->sets[id];
	size_t len = mib * MIB;
	size_t page, i;
	int r = 0;

	if (len == 0)
		goto out;
	s->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->base == MAP_FAILED) {
		r = -errno;
		s->base = NULL;
		fprintf(stderr, "work: mmap of %lu MiB for set %s: %s\n", mib, set_names[id], strerror(-r));
		goto out;
	}
	s->pages = len / w->page_size;
	/* THP would place and move 2 MiB at once and skew the per-page counts. */
	if (madvise(s->base, len, MADV_NOHUGEPAGE) < 0) {
		r = -errno;
		fprintf(stderr, "work: madvise(MADV_NOHUGEPAGE) of set %s: %s\n", set_names[id], strerror(-r));
		goto out;
	}
	if (node != NO_NODE && (r = vm_set_policy(s->base, len, MPOL_BIND_MODE, node)) < 0) {
		fprintf(stderr, "work: mbind of set %s to node %d: %s\n", set_names[id], node, strerror(-r));
		goto out;
	}
	for (page = 0; page < s->pages; page++) {
		uint64_t *p = s->base + page * w->page_words;
		uint64_t key = page_key(w->seed, id, page);

		p[COUNTER_WORD] = 0;
		for (i = FIRST_PATTERN_WORD; i < w->page_words; i++)
			p[i] = pattern_word(key, i);
	}
	if (node != NO_NODE && (r = vm_set_policy(s->base, len, MPOL_DEFAULT_MODE, NO_NODE)) < 0)
		fprintf(stderr, "work: mbind of set %s back to MPOL_DEFAULT: %s\n", set_names[id], strerror(-r));
out:
	return r;
}

/* One sweep: a read of the first, middle and last pattern words and a
 * write of the counter word on every page. volatile: the reads are the
 * point, and nothing uses their values. */
static void sweep(const struct set *s, size_t page_words)
{
	size_t page;

	for (page = 0; page < s->pages; page++) {
		volatile uint64_t *p = s->base + page * page_words;

		(void)p[FIRST_PATTERN_WORD];
		(void)p[page_words / 2];
		(void)p[page_words - 1];
		p[COUNTER_WORD]++;
	}
}

static void *hot_loop(void *arg)
{
	struct work *w = arg;

	while (!atomic_load(&w->stop)) {
		const struct set *s = &w->sets[atomic_load(&w->hot)];

		sweep(s, w->page_words);
		atomic_fetch_add_explicit(&w->touches, s->pages, memory_order_relaxed);
	}
	return NULL;
}

/* QEMU flushes its soft TLB only when CR3 is written, i.e. on a switch to
 * another address space: a sleeper *process* (a thread shares the mm, so
 * switching to it writes no CR3) waking on the hot loop's CPU every
 * SLEEPER_US makes one, so accessed bits DAMON cleared are set again
 * (docs/vm.md). It dies with its parent (PR_SET_PDEATHSIG). */
static int start_sleeper(int cpu, pid_t *ret)
{
	cpu_set_t cpus;
	pid_t pid;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "work: cannot fork the sleeper: %s\n", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
		    sched_setaffinity(0, sizeof(cpus), &cpus) < 0)
			_exit(EXIT_FAILURE);
		for (;;)
			usleep(SLEEPER_US);
	}
	*ret = pid;
	return 0;
}

static int start_pinned(pthread_t *t, void *(*fn)(void *), struct work *w, int cpu, const char *what)
{
	pthread_attr_t attr;
	cpu_set_t cpus;
	int r;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	r = -pthread_attr_init(&attr);
	if (r < 0)
		goto out;
	r = -pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	if (r == 0)
		r = -pthread_create(t, &attr, fn, w);
	pthread_attr_destroy(&attr);
out:
	if (r < 0)
		fprintf(stderr, "work: cannot start the %s on CPU %d: %s\n", what, cpu, strerror(-r));
	return r;
}

/* Queries the nodes of set id's pages [done, done + n) (n <= QUERY_BATCH)
 * into w->addrs and w->status. Returns 0 or -errno (said on stderr). */
static int query_batch(struct work *w, int id, size_t done, size_t n)
{
	const struct set *s = &w->sets[id];
	int r;

	for (size_t i = 0; i < n; i++)
		w->addrs[i] = s->base + (done + i) * w->page_words;
	if (syscall(SYS_move_pages, 0, n, w->addrs, NULL, w->status, 0) == 0)
		return 0;
	r = -errno;
	fprintf(stderr, "work: move_pages query of set %s: %s\n", set_names[id], strerror(-r));
	return r;
}

/* Pages of set s per node 0..NR_REPORT_NODES-1, then the others (x). */
static int count_nodes(struct work *w, int id, unsigned long counts[NR_REPORT_NODES + 1])
{
	const struct set *s = &w->sets[id];
	size_t done, n, i;
	int r = 0;

	memset(counts, 0, sizeof(unsigned long) * (NR_REPORT_NODES + 1));
	for (done = 0; done < s->pages; done += n) {
		n = s->pages - done < QUERY_BATCH ? s->pages - done : QUERY_BATCH;
		r = query_batch(w, id, done, n);
		if (r < 0)
			goto out;
		for (i = 0; i < n; i++)
			counts[w->status[i] >= 0 && w->status[i] < NR_REPORT_NODES ?
			       w->status[i] : NR_REPORT_NODES]++;
	}
out:
	return r;
}

static int format_counts(struct work *w, int id, char *buf, size_t size)
{
	unsigned long c[NR_REPORT_NODES + 1];
	int r = count_nodes(w, id, c);
	size_t n = 0;
	int node;

	if (r < 0)
		return r;
	for (node = 0; node < NR_REPORT_NODES; node++)
		n += (size_t)snprintf(buf + n, size - n, "%s%lu", node ? "," : "", c[node]);
	if (c[NR_REPORT_NODES])
		snprintf(buf + n, size - n, ",x=%lu", c[NR_REPORT_NODES]);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The frame of each of set id's pages on node 0, into pfn; their count. */
static size_t node0_frames(struct work *w, int id, int fd, uint64_t *pfn)
{
	const struct set *s = &w->sets[id];
	size_t nr = 0, done, n, i;

	for (done = 0; done < s->pages; done += n) {
		n = s->pages - done < QUERY_BATCH ? s->pages - done : QUERY_BATCH;
		if (query_batch(w, id, done, n) < 0)
			return nr;
		for (i = 0; i < n; i++) {
			uint64_t e = 0;
			off_t at = (off_t)((uintptr_t)w->addrs[i] / w->page_size) * PAGEMAP_ENTRY_BYTES;

			if (w->status[i] == 0 && pread(fd, &e, sizeof(e), at) == (ssize_t)sizeof(e) &&
			    (e & PAGEMAP_PRESENT))
				pfn[nr++] = e & PAGEMAP_PFN_MASK;
		}
	}
	return nr;
}

/* The FRAMES line for set A: its pages on node 0, the runs of consecutive
 * frames they make, and the 2 MiB blocks they touch. */
static void report_frames(struct work *w)
{
	const struct set *s = &w->sets[SET_A];
	uint64_t *pfn = calloc(s->pages ? s->pages : 1, sizeof(*pfn));
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t nr = 0, runs = 0, blocks = 0;

	if (pfn && fd >= 0)
		nr = node0_frames(w, SET_A, fd, pfn);
	else
		fprintf(stderr, "work: cannot read /proc/self/pagemap: %s\n", strerror(errno));
	if (nr)
		qsort(pfn, nr, sizeof(*pfn), cmp_u64);
	for (size_t i = 0; i < nr; i++) {
		runs += !i || pfn[i] != pfn[i - 1] + 1;
		blocks += !i || pfn[i] / PMD_PAGES != pfn[i - 1] / PMD_PAGES;
	}
	emit("FRAMES set=A node0=%zu runs=%zu blocks=%zu\n", nr, runs, blocks);
	if (fd >= 0)
		close(fd);
	free(pfn);
}

static int report(struct work *w, long t_ms)
{
	int hot = atomic_load(&w->hot);
	int other = hot == SET_A ? SET_B : SET_A;
	char h[COUNTS_MAX], c[COUNTS_MAX], h2[COUNTS_MAX];
	int r;

	r = format_counts(w, hot, h, sizeof(h));
	if (r == 0)
		r = format_counts(w, SET_COLD, c, sizeof(c));
	if (r == 0)
		r = format_counts(w, other, h2, sizeof(h2));
	if (r == 0)
		emit("PLACE t_ms=%ld hotset=%s hot=%s cold=%s hot2=%s touches=%lu\n", t_ms,
		     hot == SET_A ? "A" : "B", h, c, h2,
		     atomic_load_explicit(&w->touches, memory_order_relaxed));
	return r;
}

/* Pages whose pattern words are not what the first touch wrote. */
static size_t verify(const struct work *w, size_t *checked)
{
	size_t bad = 0, page, i;
	int id;

	*checked = 0;
	for (id = 0; id < NR_SETS; id++) {
		const struct set *s = &w->sets[id];

		for (page = 0; page < s->pages; page++) {
			const uint64_t *p = s->base + page * w->page_words;
			uint64_t key = page_key(w->seed, id, page);

			for (i = FIRST_PATTERN_WORD; i < w->page_words; i++)
				if (p[i] != pattern_word(key, i))
					break;
			bad += i < w->page_words;
		}
		*checked += s->pages;
	}
	return bad;
}

static long min_time(long a, long b)
{
	if (a == NO_TIME)
		return b;
	if (b == NO_TIME)
		return a;
	return a < b ? a : b;
}

/* Reports, moves the hot set and waits for the end: --duration or a
 * signal (blocked everywhere, taken here by sigtimedwait, so no handler
 * and no global flag). */
static int run(struct work *w, const struct opts *o, const sigset_t *stop_sigs, long t0)
{
	long next_report = 0, move_at = o->move_after_ms, t, wait;
	struct timespec ts;
	int r = 0;

	for (;;) {
		t = now_ms() - t0;
		if (move_at != NO_TIME && t >= move_at) {
			atomic_store(&w->hot, SET_B);
			emit("moved t_ms=%ld\n", t);
			move_at = NO_TIME;
		}
		if (t >= next_report) {
			r = report(w, t);
			if (r < 0)
				goto out;
			while (next_report <= t)
				next_report += o->report_ms;
		}
		if (o->duration_ms != NO_TIME && t >= o->duration_ms)
			goto out;
		wait = min_time(min_time(next_report, move_at), o->duration_ms) - (now_ms() - t0);
		if (wait < 0)
			wait = 0;
		ts.tv_sec = wait / MS_PER_SEC;
		ts.tv_nsec = wait % MS_PER_SEC * NS_PER_MS;
		if (sigtimedwait(stop_sigs, NULL, &ts) >= 0)
			goto out;
		if (errno != EAGAIN && errno != EINTR) {
			r = -errno;
			fprintf(stderr, "work: sigtimedwait: %s\n", strerror(-r));
			goto out;
		}
	}
out:
	return r;
}

int main(int argc, char **argv)
{
	struct work w = { .hot = SET_A };
	pthread_t hot_thread;
	bool hot_started = false;
	pid_t sleeper = -1;
	size_t pages, bad = 0;
	sigset_t stop_sigs;
	struct opts o;
	int id, r;

	if (parse_args(argc, argv, &o) < 0) {
		usage();
		return EXIT_USAGE;
	}
	/* Blocked before any thread starts, so every thread inherits it and a
	 * SIGTERM during the allocation waits for run(). */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGINT);
	r = -pthread_sigmask(SIG_BLOCK, &stop_sigs, NULL);
	if (r < 0)
		goto out;
	/* Before any thread or child: they inherit it. */
	if (o.nice && setpriority(PRIO_PROCESS, 0, o.nice) < 0) {
		r = -errno;
		fprintf(stderr, "work: nice %d: %s\n", o.nice, strerror(errno));
		goto out;
	}
	emit("pid %d\n", (int)getpid());
	w.page_size = (size_t)sysconf(_SC_PAGESIZE);
	w.page_words = w.page_size / sizeof(uint64_t);
	w.seed = o.seed;
	w.addrs = calloc(QUERY_BATCH, sizeof(*w.addrs));
	w.status = calloc(QUERY_BATCH, sizeof(*w.status));
	if (!w.addrs || !w.status) {
		r = -ENOMEM;
		fprintf(stderr, "work: no memory for the move_pages arrays\n");
		goto out;
	}
	/* Before the sets exist: a child forked later would share their pages
	 * copy-on-write, and the hot loop's writes would copy them to node 0. */
	if (o.sleeper) {
		r = start_sleeper(o.cpu, &sleeper);
		if (r < 0)
			goto out;
	}
	for (id = 0; id < NR_SETS; id++) {
		r = alloc_set(&w, id, o.mib[id], o.node[id]);
		if (r < 0)
			goto out;
	}
	r = start_pinned(&hot_thread, hot_loop, &w, o.cpu, "hot loop");
	if (r < 0)
		goto out;
	hot_started = true;

	emit("ready\n");
	r = run(&w, &o, &stop_sigs, now_ms());
out:
	atomic_store(&w.stop, true);
	if (hot_started)
		pthread_join(hot_thread, NULL);
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	if (r == 0) {
		report_frames(&w);
		bad = verify(&w, &pages);
		emit("CHECKSUM pages=%zu bad=%zu\n", pages, bad);
	}
	for (id = 0; id < NR_SETS; id++)
		if (w.sets[id].base)
			munmap(w.sets[id].base, o.mib[id] * MIB);
	free(w.addrs);
	free(w.status);
	return r < 0 || bad > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
