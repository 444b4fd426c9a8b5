/* tierd's BPF backend; see bpf_backend.h. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_backend.h"
#include "clock.h"
#include "fsread.h"


/* A policy without "sampling" gets the sampler's own defaults. */
_Static_assert(TIERD_SAMPLING_DEFAULT_RATE == TIERD_BPF_DEFAULT_RATE_PER_SEC &&
		       TIERD_SAMPLING_DEFAULT_BURST == TIERD_BPF_DEFAULT_BURST,
	       "policy.h's sampling defaults are bpf/tierd_sampler.h's");
_Static_assert(TIERD_MIGRATE_REASONS == TIERD_BPF_NR_REASONS,
	       "bpfstats.h's reason slots are bpf/tierd_sampler.h's");
#define BTF_PATH "/sys/kernel/btf/vmlinux"
#define TRACEFS_PATH "/sys/kernel/tracing"

static void set_mode(struct tierd_bpf_backend *b, enum tierd_bpf_mode mode, const char *why)
{
	size_t n = why ? strnlen(why, sizeof(b->state.why) - 1) : 0;

	b->state.mode = mode;
	memcpy(b->state.why, why ? why : "", n);
	b->state.why[n] = '\0';
}

void tierd_bpf_backend_off(struct tierd_bpf_backend *b, const char *why)
{
	set_mode(b, TIERD_BPF_OFF, why);
}

static void describe_hooks(const struct tierd_bpf_hooks *h, char *buf, size_t size)
{
	snprintf(buf, size, "numa_fault=%s fault_addr=%s numa_scan=%s migrate=%s",
		 tierd_bpf_attach_name(h->numa_fault), tierd_bpf_attach_name(h->fault_addr),
		 tierd_bpf_attach_name(h->numa_scan), tierd_bpf_attach_name(h->migrate));
}

/* Slow tiers are sampled, the fastest is not: its pages need no promotion. */
static int set_node_tiers(struct tierd_bpf_backend *b, const struct tierd_topology *topo,
			  const struct tierd_logger *log)
{
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct tierd_node *n = &topo->nodes[i];
		uint32_t tier = n->tier > 0 ? (uint32_t)n->tier : TIERD_BPF_TIER_SKIP;
		int r = tierd_bpf_sampler_set_node_tier(b->sampler, (uint32_t)n->nid, tier);

		if (r < 0)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
					       "node %d: setting its tier in the sampler", n->nid);
	}
	return 0;
}

static int alloc_buffers(struct tierd_bpf_backend *b)
{
	int r = tierd_sample_pages_init(&b->pages, TIERD_SAMPLE_PAGES_DEFAULT);

	if (r < 0)
		return r;
	r = tierd_sample_promoter_init(&b->promoter, &tierd_move_pages_kernel, NULL, &b->pages);
	if (r < 0)
		return r;
	b->pending = calloc(TIERD_BPF_TICK_SAMPLES, sizeof(*b->pending));
	b->tick = calloc(TIERD_BPF_TICK_SAMPLES, sizeof(*b->tick));
	b->tick_samples = calloc(TIERD_BPF_TICK_SAMPLES, sizeof(*b->tick_samples));
	b->managed = calloc(TIERD_BPF_MAX_CGROUPS, sizeof(*b->managed));
	return b->pending && b->tick && b->tick_samples && b->managed ? 0 : -ENOMEM;
}

/* libbpf's own messages go to tierd's logger at their levels. libbpf's
 * print callback takes no context, so the logger it uses is the one of the
 * backend last started (a process runs one daemon, so one backend). */
static const struct tierd_logger *libbpf_logger;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	enum tierd_log_level l = level == LIBBPF_WARN   ? TIERD_LOG_WARNING
				 : level == LIBBPF_INFO ? TIERD_LOG_INFO
							: TIERD_LOG_DEBUG;
	char msg[TIERD_ERR_MAX];
	size_t n;

	if (!libbpf_logger)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	tierd_log(libbpf_logger, l, "libbpf: %s", msg);
	return 0;
}

void tierd_bpf_backend_start(struct tierd_bpf_backend *b, const char *root,
			     const struct tierd_topology *topo, const struct tierd_logger *log)
{
	char btf[TIERD_FILE_PATH_MAX], tracefs[TIERD_FILE_PATH_MAX], why[TIERD_ERR_MAX];
	struct tierd_bpf_hooks hooks;
	int r;

	memset(b, 0, sizeof(*b));
	b->log = log;
	libbpf_logger = log;
	libbpf_set_print(libbpf_print);
	if (tierd_root_path(root, BTF_PATH, btf, sizeof(btf)) < 0 ||
	    tierd_root_path(root, TRACEFS_PATH, tracefs, sizeof(tracefs)) < 0) {
		snprintf(why, sizeof(why), "%s: %s", root, strerror(ENAMETOOLONG));
		goto fail;
	}
	r = tierd_bpf_probe_hooks(btf, tracefs, &hooks, log);
	if (r == -EOPNOTSUPP) {
		snprintf(why, sizeof(why),
			 "%s: no task_numa_fault hook (inlined, or another kernel version): hint faults cannot be sampled",
			 btf);
		goto fail;
	}
	if (r < 0) {
		snprintf(why, sizeof(why),
			 "%s: cannot read the kernel's BTF (%s); the BPF sampler needs a kernel built with CONFIG_DEBUG_INFO_BTF",
			 btf, strerror(-r));
		goto fail;
	}
	r = tierd_bpf_sampler_new(&hooks, &b->sampler, log);
	if (r < 0) {
		snprintf(why, sizeof(why), "loading the sampler: %s%s", strerror(-r),
			 r == -EPERM ? " (needs CAP_BPF and CAP_PERFMON, or root)" : "");
		goto fail;
	}
	r = set_node_tiers(b, topo, log);
	if (r < 0) {
		snprintf(why, sizeof(why), "setting the nodes' tiers in the sampler: %s",
			 strerror(-r));
		goto fail;
	}
	r = alloc_buffers(b);
	if (r < 0) {
		snprintf(why, sizeof(why), "its buffers: %s", strerror(-r));
		goto fail;
	}
	b->job.ops = b->promoter.ops;
	b->job.ops_data = b->promoter.ops_data;
	r = tierd_kernel_worker_start(&b->worker);
	if (r < 0) {
		snprintf(why, sizeof(why), "the thread for move_pages: %s", strerror(-r));
		goto fail;
	}
	describe_hooks(&hooks, b->state.hooks, sizeof(b->state.hooks));
	set_mode(b, TIERD_BPF_RUNNING, NULL);
	tierd_log_ev(log, TIERD_LOG_INFO, "bpf-started", NULL, NULL, -1, 0,
			"BPF hint-fault sampler loaded (%s); slow tiers sampled, promotions by move_pages",
			b->state.hooks);
	return;
fail:
	tierd_bpf_backend_stop(b);
	b->log = log;
	set_mode(b, TIERD_BPF_UNAVAILABLE, why);
	tierd_log_ev(log, TIERD_LOG_WARNING, "bpf-unavailable", NULL, NULL, -1, 0,
			"BPF sampler not used: %s; promotion relies on DAMON alone", why);
}

int tierd_bpf_backend_fd(const struct tierd_bpf_backend *b)
{
	return b->state.mode == TIERD_BPF_RUNNING ? tierd_bpf_sampler_fd(b->sampler) : -1;
}

static int on_sample(uint64_t cgroup_id, uint32_t tgid, const struct tierd_sample *sample,
		     uint32_t pages, void *userdata)
{
	struct tierd_bpf_backend *b = userdata;
	struct tierd_bpf_tick_sample *t;

	/* A huge page's fault names one address: its first base page stands
	 * for it, the engine moves what it plans page by page. */
	(void)pages;
	if (b->nr_pending == TIERD_BPF_TICK_SAMPLES) {
		b->state.samples_lost++;
		return 0;
	}
	t = &b->pending[b->nr_pending++];
	t->cgroup_id = cgroup_id;
	t->sample = *sample;
	t->sample.addr = tierd_sample_pages_token(&b->pages, tgid, sample->addr);
	return 0;
}

void tierd_bpf_backend_drain(struct tierd_bpf_backend *b)
{
	int r;

	if (b->state.mode != TIERD_BPF_RUNNING)
		return;
	r = tierd_bpf_sampler_drain(b->sampler, on_sample, b);
	if (r > 0)
		b->state.samples_read += (uint64_t)r;
	else if (r < 0)
		tierd_log(b->log, TIERD_LOG_WARNING, "BPF: reading the ring buffer: %s",
			  strerror(-r));
}

static bool observed(const struct tierd_engine_cgroup *cgroups, size_t nr, uint64_t id)
{
	for (size_t c = 0; c < nr; c++)
		if (cgroups[c].obs->id == id)
			return true;
	return false;
}

static struct tierd_bpf_managed *find_managed(const struct tierd_bpf_backend *b, uint64_t id)
{
	for (size_t i = 0; i < b->nr_managed; i++)
		if (b->managed[i].cgroup_id == id)
			return &b->managed[i];
	return NULL;
}

/* The sampler's cgroups map becomes cgroups', with their policies' token
 * buckets: a reload's new settings take effect here, in the map. */
static void follow_cgroups(struct tierd_bpf_backend *b, const struct tierd_engine_cgroup *cgroups,
			   size_t nr)
{
	for (size_t i = 0; i < b->nr_managed;) {
		if (observed(cgroups, nr, b->managed[i].cgroup_id)) {
			i++;
			continue;
		}
		(void)tierd_bpf_sampler_unmanage(b->sampler, b->managed[i].cgroup_id);
		b->managed[i] = b->managed[--b->nr_managed];
	}
	for (size_t c = 0; c < nr; c++) {
		const struct tierd_cgroup_obs *obs = cgroups[c].obs;
		struct tierd_bpf_managed want = { .cgroup_id = obs->id,
						  .rate = cgroups[c].policy->sampling_rate,
						  .burst = cgroups[c].policy->sampling_burst };
		struct tierd_bpf_managed *m = find_managed(b, obs->id);
		int r;

		if (m && m->rate == want.rate && m->burst == want.burst)
			continue;
		r = tierd_bpf_sampler_manage(b->sampler, obs->id, want.rate, want.burst);
		if (r < 0) {
			tierd_log(b->log, TIERD_LOG_WARNING, "BPF: %s not sampled: %s", obs->path,
				  r == -ENOSPC ? "the sampler's cgroup slots are all taken"
					       : strerror(-r));
			continue;
		}
		if (!m)
			m = &b->managed[b->nr_managed++];
		*m = want;
	}
}

static void read_counts(const struct tierd_bpf_backend *b, uint64_t id,
			struct tierd_bpf_cgroup_counts *out)
{
	struct tierd_bpf_counters cnt;

	memset(out, 0, sizeof(*out));
	if (tierd_bpf_sampler_counters(b->sampler, id, &cnt) < 0)
		return;
	for (size_t t = 0; t < TIERD_MAX_TIERS && t < TIERD_BPF_MAX_TIERS; t++) {
		out->faults[t] = cnt.faults[t];
		out->samples[t] = cnt.samples[t];
		out->drops[t] = cnt.drops[t];
	}
}

static int cmp_cgroup(const void *a, const void *b)
{
	const struct tierd_bpf_tick_sample *x = a, *y = b;

	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	return (x->sample.time_usec > y->sample.time_usec) -
	       (x->sample.time_usec < y->sample.time_usec);
}

/* The first of the tick's samples (sorted by cgroup) of cgroup id or a
 * later one: where that cgroup's run starts. */
static size_t first_of(const struct tierd_bpf_backend *b, uint64_t id)
{
	size_t lo = 0, hi = b->nr_tick;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->tick[mid].cgroup_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void tierd_bpf_backend_tick(struct tierd_bpf_backend *b, const struct tierd_engine_cgroup *cgroups,
			    size_t nr, struct tierd_hotness *hot)
{
	struct tierd_bpf_migrations migrations[TIERD_BPF_NR_REASONS];
	struct tierd_bpf_tick_sample *swap;
	struct tierd_bpf_global g;
	size_t k = 0;

	if (b->state.mode != TIERD_BPF_RUNNING)
		return;
	tierd_bpf_backend_drain(b);
	follow_cgroups(b, cgroups, nr);
	if (tierd_bpf_sampler_global(b->sampler, &g) == 0) {
		b->state.unmanaged_faults = g.unmanaged_faults;
		b->state.no_addr = g.no_addr;
	}
	if (tierd_bpf_sampler_migrations(b->sampler, migrations) == 0)
		for (size_t i = 0; i < TIERD_BPF_NR_REASONS; i++)
			b->state.kernel_migrations[i] = (struct tierd_kernel_migrations){
				.succeeded = migrations[i].succeeded, .failed = migrations[i].failed
			};
	swap = b->tick;
	b->tick = b->pending;
	b->nr_tick = b->nr_pending;
	b->pending = swap;
	b->nr_pending = 0;
	qsort(b->tick, b->nr_tick, sizeof(*b->tick), cmp_cgroup);
	for (size_t c = 0; c < nr; c++) {
		uint64_t id = cgroups[c].obs->id;
		size_t first = k;

		for (size_t i = first_of(b, id); i < b->nr_tick && b->tick[i].cgroup_id == id; i++)
			b->tick_samples[k++] = b->tick[i].sample;
		hot[c].samples = k > first ? b->tick_samples + first : NULL;
		hot[c].nr_samples = k - first;
	}
}

bool tierd_bpf_backend_counts(const struct tierd_bpf_backend *b, uint64_t cgroup_id,
			      struct tierd_bpf_cgroup_counts *counts)
{
	memset(counts, 0, sizeof(*counts));
	if (b->state.mode != TIERD_BPF_RUNNING || !find_managed(b, cgroup_id))
		return false;
	read_counts(b, cgroup_id, counts);
	return true;
}

struct promote_log {
	const struct tierd_logger *log;
	const struct tierd_cgroup_obs *obs;
	size_t nr;
};

static void log_move_failure(void *userdata, uint64_t cgroup_id, uint32_t tgid, int node, int err)
{
	const struct promote_log *pl = userdata;
	const char *path = "?";

	for (size_t c = 0; c < pl->nr; c++)
		if (pl->obs[c].id == cgroup_id)
			path = pl->obs[c].path;
	/* A process that exited (ESRCH) is routine: its pages are forgotten. */
	tierd_log_ev(pl->log, err == -ESRCH ? TIERD_LOG_INFO : TIERD_LOG_WARNING, "promote-failed",
		     path, NULL, -1, 0, "move_pages of process %u in %s to node %d failed: %s", tgid, path, node,
			strerror(-err));
}

/* On the kernel worker's thread: the batch alone. */
static void run_promotions(void *data)
{
	struct tierd_promote_job *job = data;

	tierd_promote_batch_run(job->ops, job->ops_data, &job->batch, job->deadline_usec);
}

static void finish_promotions(struct tierd_bpf_backend *b, const struct tierd_topology *topo,
			      uint64_t ran_usec, struct tierd_migration_stats *stats,
			      const struct tierd_cgroup_obs *obs, size_t nr)
{
	struct promote_log pl = { b->log, obs, nr };
	struct tierd_bpf_state *st = &b->state;
	const struct tierd_promote_batch *batch = &b->job.batch;
	bool hit = batch->deadline_hit;
	size_t groups = batch->nr_groups, ran = batch->nr_ran, pages = 0;

	for (size_t i = 0; i < ran; i++)
		pages += batch->groups[i].n;
	st->promote_batches++;
	st->promote_last_usec = ran_usec;
	if (ran_usec > st->promote_max_usec)
		st->promote_max_usec = ran_usec;
	tierd_log(b->log, hit ? TIERD_LOG_INFO : TIERD_LOG_DEBUG,
		  "move_pages: batch of %zu pages in %zu calls: %zu pages in %zu calls made in %llu us%s",
		  batch->nr_items, groups, pages, ran, (unsigned long long)ran_usec,
		  hit ? ", the rest left at the deadline for the next batch" : "");
	if (tierd_sample_promote_finish(&b->promoter, topo, &b->job.batch, stats, &st->promotions,
					log_move_failure, &pl) < 0)
		tierd_log(b->log, TIERD_LOG_ERR, "out of memory accounting sampled promotions");
	st->promote_deadline_hits = b->promoter.deadline_hits;
}

void tierd_bpf_backend_reap(struct tierd_bpf_backend *b, const struct tierd_topology *topo,
			    struct tierd_migration_stats *stats, const struct tierd_cgroup_obs *obs,
			    size_t nr)
{
	uint64_t ran_usec = 0;

	if (tierd_kernel_worker_reap(&b->worker, &ran_usec))
		finish_promotions(b, topo, ran_usec, stats, obs, nr);
}

bool tierd_bpf_backend_promote(struct tierd_bpf_backend *b, const struct tierd_engine_input *in,
			       const struct tierd_plan *plan, uint64_t tick_usec)
{
	int r;

	if (b->state.mode != TIERD_BPF_RUNNING)
		return true;
	/* This tick read the feedback of the batch reaped at its start. */
	tierd_sample_promoter_consumed(&b->promoter);
	if (tierd_kernel_worker_busy(&b->worker)) {
		b->state.promote_busy_ticks++;
		tierd_log(b->log, TIERD_LOG_DEBUG,
			  "move_pages: the last batch still runs; this tick's promotions wait for its samples to come again");
		return false;
	}
	r = tierd_sample_promote_prepare(&b->promoter, in, plan, &b->job.batch);
	if (r < 0) {
		tierd_log(b->log, TIERD_LOG_ERR, "out of memory promoting sampled pages");
		return false;
	}
	if (!b->job.batch.nr_groups) {
		/* Nothing to move: no call to hand over. */
		tierd_promote_batch_free(&b->job.batch);
		return true;
	}
	b->job.deadline_usec = tierd_clock_usec(CLOCK_MONOTONIC) +
			       tick_usec / TIERD_KERNEL_DEADLINE_DIVISOR;
	r = tierd_kernel_worker_submit(&b->worker, run_promotions, &b->job);
	if (r < 0) {
		tierd_log(b->log, TIERD_LOG_ERR, "sampled promotions not started: %s", strerror(-r));
		tierd_promote_batch_free(&b->job.batch);
		return false;
	}
	return true;
}

void tierd_bpf_backend_feedback(const struct tierd_bpf_backend *b, uint64_t cgroup_id,
				struct tierd_feedback *fb)
{
	for (size_t i = 0; i < b->promoter.nr_feedback; i++) {
		const struct tierd_promote_feedback *f = &b->promoter.feedback[i];

		if (f->cgroup_id != cgroup_id)
			continue;
		fb->promoted_bytes += f->promoted_bytes;
		fb->promote_failed_bytes += f->failed_bytes;
	}
}

void tierd_bpf_backend_stop(struct tierd_bpf_backend *b)
{
	struct tierd_bpf_state state;

	/* A batch under way ends first; what it moved is accounted in no
	 * report (tierd stops). */
	tierd_kernel_worker_stop(&b->worker);
	tierd_promote_batch_free(&b->job.batch);
	state = b->state;

	tierd_bpf_sampler_free(b->sampler);
	tierd_sample_promoter_free(&b->promoter);
	tierd_sample_pages_free(&b->pages);
	free(b->pending);
	free(b->tick);
	free(b->tick_samples);
	free(b->managed);
	libbpf_logger = NULL;
	memset(b, 0, sizeof(*b));
	/* What it saw stays for the last report. */
	b->state = state;
}
