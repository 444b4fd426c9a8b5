/* vm-link: controller/bpf_sampler.c -lbpf -lelf -lz */
/* Loads the hint-fault sampler (controller/bpf_sampler.c) on the VM's real
 * kernel and samples for two phases: first with the normal token bucket,
 * then, by a map update alone, with a tiny one (a storm). It drains the
 * ring buffer when its epoll fd says so, as tierd's event loop will, and
 * prints "RESULT key value" lines: the hooks chosen, per phase the samples
 * drained for the managed cgroup and for any other cgroup, the distinct
 * pages seen, the processes (tgids) the managed samples name, how many
 * carried a reaccess interval and its median, the kernel-side counters, and
 * migrations by reason.
 *
 * usage: bpftest --cgroup DIR [--node-tier NODE:TIER]... [--phase-sec N]
 *                [--storm-sec N] [--rate N] [--burst N] [--storm-rate N]
 *                [--storm-burst N]
 * Nodes not named are not sampled. Static, like every VM program. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>

#include "../../controller/bpf_sampler.h"

#define MS_PER_SEC 1000
#define USEC_PER_SEC 1000000
#define NS_PER_USEC 1000
#define USEC_PER_MS 1000
#define POLL_MS 100        /* the longest wait between two drains */
#define MAX_PAGES 65536    /* distinct pages remembered: 256 MiB of 4 KiB pages */
#define MAX_INTERVALS 262144 /* intervals kept for the median: 2,000 samples/s per
			      * CPU on 2 CPUs for 65 s */
#define MAX_TGIDS 8        /* distinct processes listed; more print as "+" */
#define DEFAULT_PHASE_SEC 20
#define DEFAULT_STORM_SEC 10
#define STORM_RATE 5       /* samples/s per CPU during the storm */
#define STORM_BURST 2

struct phase {
	uint64_t managed_id; /* cgroup2 directory inode of --cgroup */
	uint64_t start_usec; /* CLOCK_MONOTONIC when the phase began */
	uint64_t earlier;    /* samples of faults before start_usec (the last
			      * phase's, drained late): not counted */
	uint64_t managed, foreign, writes;
	uint64_t tier_samples[TIERD_BPF_MAX_TIERS];
	uint64_t with_interval; /* managed samples with a reaccess interval */
	size_t nr_pages, nr_intervals, nr_tgids;
	bool more_tgids;
	uint32_t tgids[MAX_TGIDS]; /* distinct, in order of first sample */
	uint64_t pages[MAX_PAGES]; /* distinct page addresses, unsorted */
	uint64_t intervals[MAX_INTERVALS]; /* microseconds, unsorted */
};

/* The last failure the sampler told, for the RESULT load line. */
static char told[TIERD_ERR_MAX];

/* The one logging call bpf_sampler.c makes. The initramfs programs are
 * static and libsystemd has no static library, so log.c is not linked:
 * the message is kept here instead. */
int tierd_log_errno(const struct tierd_logger *log, enum tierd_log_level level, int r,
		    const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!log || level > log->level)
		return r;
	va_start(ap, fmt);
	vsnprintf(told, sizeof(told), fmt, ap);
	va_end(ap);
	n = strlen(told);
	snprintf(told + n, sizeof(told) - n, ": %s", strerror(-r));
	return r;
}

struct opts {
	const char *cgroup;
	unsigned phase_sec, storm_sec;
	uint32_t rate, burst, storm_rate, storm_burst;
};

/* CLOCK_MONOTONIC, the clock of the samples' time_usec. */
static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NS_PER_USEC;
}

static uint64_t now_ms(void)
{
	return now_usec() / USEC_PER_MS;
}

static void add_tgid(struct phase *p, uint32_t tgid)
{
	size_t i;

	for (i = 0; i < p->nr_tgids && p->tgids[i] != tgid; i++)
		;
	if (i < p->nr_tgids)
		return;
	if (p->nr_tgids == MAX_TGIDS)
		p->more_tgids = true;
	else
		p->tgids[p->nr_tgids++] = tgid;
}

static int on_sample(uint64_t cgroup_id, uint32_t tgid, const struct tierd_sample *s,
		     uint32_t pages, void *userdata)
{
	struct phase *p = userdata;
	size_t i;

	(void)pages;
	if (s->time_usec < p->start_usec) {
		p->earlier++;
		return 0;
	}
	if (cgroup_id != p->managed_id) {
		p->foreign++;
		return 0;
	}
	p->managed++;
	p->writes += s->write;
	add_tgid(p, tgid);
	if (s->interval_usec) {
		p->with_interval++;
		if (p->nr_intervals < MAX_INTERVALS)
			p->intervals[p->nr_intervals++] = s->interval_usec;
	}
	if (s->tier >= 0 && s->tier < TIERD_BPF_MAX_TIERS)
		p->tier_samples[s->tier]++;
	for (i = 0; i < p->nr_pages && p->pages[i] != s->addr; i++)
		;
	if (i == p->nr_pages && p->nr_pages < MAX_PAGES)
		p->pages[p->nr_pages++] = s->addr;
	return 0;
}

/* Drains whenever the ring buffer's epoll fd is readable, for sec seconds. */
static int run_phase(struct tierd_bpf_sampler *s, unsigned sec, struct phase *phase)
{
	uint64_t end = now_ms() + (uint64_t)sec * MS_PER_SEC;
	int epfd = tierd_bpf_sampler_fd(s);
	uint64_t managed_id = phase->managed_id;

	/* memset, not a compound literal: no 2.5 MB temporary on the stack. */
	memset(phase, 0, sizeof(*phase));
	phase->managed_id = managed_id;
	phase->start_usec = now_usec();
	while (now_ms() < end) {
		struct epoll_event ev;
		int n = epoll_wait(epfd, &ev, 1, POLL_MS);

		if (n < 0 && errno != EINTR)
			return -errno;
		n = tierd_bpf_sampler_drain(s, on_sample, phase);
		if (n < 0)
			return n;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorts the phase's intervals; prints their count, median and spread. */
static void print_intervals(struct phase *phase, const char *name)
{
	size_t n = phase->nr_intervals;

	printf("RESULT %s_interval_samples %" PRIu64 "\n", name, phase->with_interval);
	if (n == 0)
		return;
	qsort(phase->intervals, n, sizeof(phase->intervals[0]), cmp_u64);
	printf("RESULT %s_interval_median_ms %" PRIu64 "\n", name,
	       phase->intervals[n / 2] / USEC_PER_MS);
	printf("INFO %s interval us: min %" PRIu64 " p10 %" PRIu64 " median %" PRIu64
	       " p90 %" PRIu64 " max %" PRIu64 "\n", name, phase->intervals[0],
	       phase->intervals[n / 10], phase->intervals[n / 2], phase->intervals[n * 9 / 10],
	       phase->intervals[n - 1]);
}

static void print_phase(const struct tierd_bpf_sampler *s, struct phase *phase,
			const char *name)
{
	struct tierd_bpf_counters c;
	uint64_t faults = 0, samples = 0, drops = 0;

	printf("RESULT %s_samples %" PRIu64 "\n", name, phase->managed);
	printf("INFO %s samples of earlier faults %" PRIu64 "\n", name, phase->earlier);
	printf("RESULT %s_foreign_samples %" PRIu64 "\n", name, phase->foreign);
	printf("RESULT %s_write_samples %" PRIu64 "\n", name, phase->writes);
	printf("RESULT %s_distinct_pages %zu\n", name, phase->nr_pages);
	printf("RESULT %s_tgids", name);
	for (size_t i = 0; i < phase->nr_tgids; i++)
		printf(" %" PRIu32, phase->tgids[i]);
	printf("%s\n", phase->more_tgids ? " +" : "");
	print_intervals(phase, name);
	for (int t = 0; t < TIERD_BPF_MAX_TIERS; t++)
		if (phase->tier_samples[t])
			printf("INFO %s tier %d samples %" PRIu64 "\n", name, t,
			       phase->tier_samples[t]);
	if (tierd_bpf_sampler_counters(s, phase->managed_id, &c) < 0)
		return;
	for (int t = 0; t < TIERD_BPF_MAX_TIERS; t++) {
		faults += c.faults[t];
		samples += c.samples[t];
		drops += c.drops[t];
	}
	/* Counters are cumulative: the storm's include the first phase's. */
	printf("RESULT %s_kernel_faults %" PRIu64 "\n", name, faults);
	printf("RESULT %s_kernel_samples %" PRIu64 "\n", name, samples);
	printf("RESULT %s_kernel_drops %" PRIu64 "\n", name, drops);
	printf("RESULT %s_ring_full %" PRIu64 "\n", name, (uint64_t)c.ring_full);
	printf("RESULT %s_kernel_migrated %" PRIu64 "\n", name, (uint64_t)c.migrated);
}

static void print_totals(const struct tierd_bpf_sampler *s)
{
	struct tierd_bpf_migrations m[TIERD_BPF_NR_REASONS];
	struct tierd_bpf_global g;

	if (tierd_bpf_sampler_global(s, &g) == 0) {
		printf("RESULT unmanaged_faults %" PRIu64 "\n", (uint64_t)g.unmanaged_faults);
		printf("RESULT skipped_tier_faults %" PRIu64 "\n", (uint64_t)g.skipped_tier);
		printf("RESULT no_addr_faults %" PRIu64 "\n", (uint64_t)g.no_addr);
		printf("RESULT no_interval_faults %" PRIu64 "\n", (uint64_t)g.no_interval);
	}
	if (tierd_bpf_sampler_migrations(s, m) == 0)
		for (int r = 0; r < TIERD_BPF_NR_REASONS; r++)
			if (m[r].calls)
				printf("RESULT migrate_reason_%d %" PRIu64 " calls %" PRIu64
				       " pages %" PRIu64 " failed\n",
				       r, (uint64_t)m[r].calls, (uint64_t)m[r].succeeded,
				       (uint64_t)m[r].failed);
}

static int parse_u32(const char *text, const char *what, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 0);
	if (errno || end == text || *end || v > UINT32_MAX) {
		fprintf(stderr, "bpftest: %s: \"%s\" is not a 32-bit number\n", what, text);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "node-tier", required_argument, NULL, 'n' },
		{ "phase-sec", required_argument, NULL, 'p' },
		{ "storm-sec", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "storm-rate", required_argument, NULL, 'R' },
		{ "storm-burst", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .cgroup = NULL, .phase_sec = DEFAULT_PHASE_SEC,
			  .storm_sec = DEFAULT_STORM_SEC,
			  .rate = TIERD_BPF_DEFAULT_RATE_PER_SEC, .burst = TIERD_BPF_DEFAULT_BURST,
			  .storm_rate = STORM_RATE, .storm_burst = STORM_BURST };
	uint32_t node_tier[TIERD_BPF_MAX_NODES];
	struct tierd_bpf_sampler *s = NULL;
	struct phase *phase = NULL;
	struct tierd_bpf_hooks hooks;
	const struct tierd_logger log = { .level = TIERD_LOG_DEBUG };
	struct stat st;
	uint32_t v, node;
	char *colon;
	int opt, r;

	for (size_t i = 0; i < TIERD_BPF_MAX_NODES; i++)
		node_tier[i] = TIERD_BPF_TIER_SKIP;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		r = 0;
		switch (opt) {
		case 'c':
			o.cgroup = optarg;
			break;
		case 'n':
			colon = strchr(optarg, ':');
			if (!colon) {
				fprintf(stderr, "bpftest: --node-tier %s: expected NODE:TIER\n", optarg);
				return 2;
			}
			*colon = '\0';
			r = parse_u32(optarg, "node", &node);
			if (r == 0 && node >= TIERD_BPF_MAX_NODES)
				r = -EINVAL;
			if (r == 0)
				r = parse_u32(colon + 1, "tier", &node_tier[node]);
			break;
		case 'p':
			r = parse_u32(optarg, "--phase-sec", &v);
			o.phase_sec = v;
			break;
		case 's':
			r = parse_u32(optarg, "--storm-sec", &v);
			o.storm_sec = v;
			break;
		case 'r':
			r = parse_u32(optarg, "--rate", &o.rate);
			break;
		case 'b':
			r = parse_u32(optarg, "--burst", &o.burst);
			break;
		case 'R':
			r = parse_u32(optarg, "--storm-rate", &o.storm_rate);
			break;
		case 'B':
			r = parse_u32(optarg, "--storm-burst", &o.storm_burst);
			break;
		default:
			return 2;
		}
		if (r < 0)
			return 2;
	}
	if (!o.cgroup) {
		fprintf(stderr, "bpftest: --cgroup DIR is required\n");
		return 2;
	}
	if (stat(o.cgroup, &st) < 0) {
		fprintf(stderr, "bpftest: %s: %s\n", o.cgroup, strerror(errno));
		return 1;
	}
	phase = calloc(1, sizeof(*phase));
	if (!phase)
		return 1;
	phase->managed_id = st.st_ino;

	r = tierd_bpf_probe_hooks(NULL, NULL, &hooks, &log);
	printf("RESULT hooks numa_fault=%s fault_addr=%s migrate=%s numa_scan=%s\n",
	       tierd_bpf_attach_name(hooks.numa_fault), tierd_bpf_attach_name(hooks.fault_addr),
	       tierd_bpf_attach_name(hooks.migrate), tierd_bpf_attach_name(hooks.numa_scan));
	if (r == 0)
		r = tierd_bpf_sampler_new(&hooks, &s, &log);
	printf("RESULT load %d %s\n", r, r < 0 ? told : "ok");
	if (r < 0)
		goto out;
	printf("RESULT loaded_numa_scan %s\n",
	       tierd_bpf_attach_name(tierd_bpf_sampler_hooks(s)->numa_scan));
	for (node = 0; node < TIERD_BPF_MAX_NODES && r == 0; node++)
		if (node_tier[node] != TIERD_BPF_TIER_SKIP)
			r = tierd_bpf_sampler_set_node_tier(s, node, node_tier[node]);
	if (r == 0)
		r = tierd_bpf_sampler_manage(s, phase->managed_id, o.rate, o.burst);
	printf("RESULT configured %d\n", r);
	fflush(stdout);
	if (r == 0)
		r = run_phase(s, o.phase_sec, phase);
	if (r == 0) {
		print_phase(s, phase, "normal");
		/* A policy reload's way: new bucket settings in the map, same programs. */
		r = tierd_bpf_sampler_manage(s, phase->managed_id, o.storm_rate, o.storm_burst);
	}
	if (r == 0)
		r = run_phase(s, o.storm_sec, phase);
	if (r == 0)
		print_phase(s, phase, "storm");
	print_totals(s);
	printf("RESULT bpftest_rc %d\n", r);
out:
	tierd_bpf_sampler_free(s);
	free(phase);
	return r < 0;
}
