/* Prometheus textfile metrics. Names follow the Prometheus conventions:
 * tierd_ prefix, base units in the name (bytes, seconds), _total counters. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_util.h"
#include "metrics.h"
#include "../policy/units.h"
#include "../policy/util.h"

#define NSEC_PER_SEC 1e9
#define METRICS_FILE_MODE 0644

struct out {
	char *data;
	size_t len, cap;
	int err;
};

static void __attribute__((format(printf, 2, 3))) emit(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->data + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->err = -EINVAL;
			return;
		}
		if ((size_t)n < o->cap - o->len) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = (o->cap + (size_t)n + 1) * 2;
		char *d = realloc(o->data, cap);

		if (!d) {
			o->err = -ENOMEM;
			return;
		}
		o->data = d;
		o->cap = cap;
	}
}

static void header(struct out *o, const char *name, const char *type, const char *help)
{
	emit(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A counter without labels: its header and its one sample. */
static void counter(struct out *o, const char *name, const char *help, uint64_t value)
{
	header(o, name, "counter", help);
	emit(o, "%s %llu\n", name, (unsigned long long)value);
}

/* Label values escape backslash, double quote and newline: at most twice
 * as long. Returns the end of what was written, NUL included. */
static char *escape(const char *in, char *out)
{
	for (; *in; in++) {
		if (*in == '\\' || *in == '"') {
			*out++ = '\\';
			*out++ = *in;
		} else if (*in == '\n') {
			*out++ = '\\';
			*out++ = 'n';
		} else {
			*out++ = *in;
		}
	}
	*out++ = '\0';
	return out;
}

/* Each managed cgroup's label values, escaped once a format rather than
 * once a series (about 40 series a cgroup). */
struct labels {
	char *text;
	const char **path, **policy;
};

static void labels_free(struct labels *l)
{
	free(l->text);
	free(l->path);
	free(l->policy);
}

static int labels_build(const struct tierd_report *rep, struct labels *l)
{
	size_t size = 0;
	char *p;

	*l = (struct labels){ 0 };
	for (size_t c = 0; c < rep->nr_cgroups; c++)
		size += 2 * (strlen(rep->cgroups[c].path) + strlen(rep->cgroups[c].policy)) + 2;
	l->text = malloc(size ? size : 1);
	l->path = calloc(rep->nr_cgroups ? rep->nr_cgroups : 1, sizeof(*l->path));
	l->policy = calloc(rep->nr_cgroups ? rep->nr_cgroups : 1, sizeof(*l->policy));
	if (!l->text || !l->path || !l->policy) {
		labels_free(l);
		*l = (struct labels){ 0 };
		return -ENOMEM;
	}
	p = l->text;
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		l->path[c] = p;
		p = escape(rep->cgroups[c].path, p);
		l->policy[c] = p;
		p = escape(rep->cgroups[c].policy, p);
	}
	return 0;
}

static void tier_metrics(struct out *o, const struct tierd_topology *topo)
{
	char nodes[256];

	header(o, "tierd_tier_capacity_bytes", "gauge", "Memory of the tier's nodes.");
	for (size_t t = 0; t < topo->nr_tiers; t++) {
		(void)tierd_nodeset_format(&topo->tiers[t].nodes, nodes, sizeof(nodes));
		emit(o, "tierd_tier_capacity_bytes{tier=\"%zu\",nodes=\"%s\"} %llu\n", t, nodes,
		     (unsigned long long)topo->tiers[t].total_bytes);
	}
	header(o, "tierd_tier_free_bytes", "gauge", "Free memory of the tier's nodes.");
	for (size_t t = 0; t < topo->nr_tiers; t++) {
		(void)tierd_nodeset_format(&topo->tiers[t].nodes, nodes, sizeof(nodes));
		emit(o, "tierd_tier_free_bytes{tier=\"%zu\",nodes=\"%s\"} %llu\n", t, nodes,
		     (unsigned long long)topo->tiers[t].free_bytes);
	}
	header(o, "tierd_tier_read_latency_seconds", "gauge",
	       "Slowest HMAT read latency among the tier's nodes (0 when firmware gives none).");
	for (size_t t = 0; t < topo->nr_tiers; t++) {
		(void)tierd_nodeset_format(&topo->tiers[t].nodes, nodes, sizeof(nodes));
		emit(o, "tierd_tier_read_latency_seconds{tier=\"%zu\",nodes=\"%s\"} %.9f\n", t, nodes,
		     topo->tiers[t].read_latency_ns / NSEC_PER_SEC);
	}
}

enum budget_value { BUDGET_MAX, BUDGET_MIN, BUDGET_OVER, BUDGET_SHARE };

/* One gauge per cgroup and tier, for the tiers where the value exists. */
static void budget_gauge(struct out *o, const struct tierd_report *rep, const struct labels *l,
			 enum budget_value which, const char *name, const char *help)
{
	header(o, name, "gauge", help);
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		for (size_t t = 0; t < rep->topo.nr_tiers; t++) {
			const struct tierd_cgroup_standing *st = &rep->cgroups[c].standing;
			const struct tierd_tier_standing *ts = &st->tiers[t];
			bool has = which == BUDGET_MIN     ? ts->has_min
				   : which == BUDGET_SHARE ? st->share_bytes[t] != UINT64_MAX
							   : ts->has_max;
			uint64_t v = which == BUDGET_MAX     ? ts->max_bytes
				     : which == BUDGET_MIN   ? ts->min_bytes
				     : which == BUDGET_SHARE ? st->share_bytes[t]
							     : ts->over_bytes;

			if (has)
				emit(o, "%s{cgroup=\"%s\",policy=\"%s\",tier=\"%zu\"} %llu\n", name,
				     l->path[c], l->policy[c], t, (unsigned long long)v);
		}
	}
}

static void cgroup_tier_metrics(struct out *o, const struct tierd_report *rep,
				const struct labels *l)
{
	header(o, "tierd_cgroup_tier_bytes", "gauge",
	       "Memory of the cgroup on the tier's nodes (memory.numa_stat), by type.");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const struct tierd_report_cgroup *cg = &rep->cgroups[c];

		for (size_t t = 0; t < rep->topo.nr_tiers; t++) {
			emit(o, "tierd_cgroup_tier_bytes{cgroup=\"%s\",policy=\"%s\",tier=\"%zu\",type=\"anon\"} %llu\n",
			     l->path[c], l->policy[c], t,
			     (unsigned long long)cg->standing.tiers[t].anon_bytes);
			emit(o, "tierd_cgroup_tier_bytes{cgroup=\"%s\",policy=\"%s\",tier=\"%zu\",type=\"file\"} %llu\n",
			     l->path[c], l->policy[c], t,
			     (unsigned long long)cg->standing.tiers[t].file_bytes);
		}
	}
	budget_gauge(o, rep, l, BUDGET_MAX, "tierd_cgroup_tier_budget_max_bytes",
		     "Resolved per-tier max budget in force (tiers with a max only).");
	budget_gauge(o, rep, l, BUDGET_MIN, "tierd_cgroup_tier_budget_min_bytes",
		     "Resolved per-tier min budget in force (tiers with a min only).");
	budget_gauge(o, rep, l, BUDGET_OVER, "tierd_cgroup_tier_over_budget_bytes",
		     "Bytes the cgroup holds on the tier above its max budget.");
	budget_gauge(o, rep, l, BUDGET_SHARE, "tierd_cgroup_tier_share_bytes",
		     "Bytes the cgroup may hold on the tier this tick: its max, or on tier 0 in pool mode its pool share (tiers that cap it only).");
}

static void cgroup_kernel_metrics(struct out *o, const struct tierd_report *rep,
				  const struct labels *l, const struct tierd_cgroup_obs *obs,
				  uint64_t page_size)
{
	static const struct {
		enum tierd_memstat_key key;
		const char *reason;
	} demotions[] = {
		{ TIERD_MEMSTAT_pgdemote_kswapd, "kswapd" },
		{ TIERD_MEMSTAT_pgdemote_direct, "direct" },
		{ TIERD_MEMSTAT_pgdemote_khugepaged, "khugepaged" },
		{ TIERD_MEMSTAT_pgdemote_proactive, "proactive" },
	};

	header(o, "tierd_cgroup_memory_current_bytes", "gauge", "memory.current of the cgroup.");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const char *path = l->path[c];

		emit(o, "tierd_cgroup_memory_current_bytes{cgroup=\"%s\"} %llu\n", path,
		     (unsigned long long)obs[c].current_bytes);
	}
	header(o, "tierd_cgroup_kernel_demoted_bytes_total", "counter",
	       "Bytes the kernel demoted from the cgroup (memory.stat pgdemote_*), by reclaimer.");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const char *path = l->path[c];

		for (size_t d = 0; d < TIERD_ARRAY_SIZE(demotions); d++)
			if (obs[c].stat.present & (1u << demotions[d].key))
				emit(o, "tierd_cgroup_kernel_demoted_bytes_total{cgroup=\"%s\",reclaimer=\"%s\"} %llu\n",
				     path, demotions[d].reason,
				     (unsigned long long)(obs[c].stat.value[demotions[d].key] *
							  page_size));
	}
	header(o, "tierd_cgroup_kernel_promoted_bytes_total", "counter",
	       "Bytes NUMA balancing promoted for the cgroup (memory.stat pgpromote_success).");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const char *path = l->path[c];

		if (obs[c].stat.present & (1u << TIERD_MEMSTAT_pgpromote_success))
			emit(o, "tierd_cgroup_kernel_promoted_bytes_total{cgroup=\"%s\"} %llu\n", path,
			     (unsigned long long)(obs[c].stat.value[TIERD_MEMSTAT_pgpromote_success] *
						  page_size));
	}
	header(o, "tierd_cgroup_memory_pressure_stalled_seconds_total", "counter",
	       "Time the cgroup's tasks stalled on memory (memory.pressure total), some or full.");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const char *path = l->path[c];

		if (obs[c].pressure.has_some)
			emit(o, "tierd_cgroup_memory_pressure_stalled_seconds_total{cgroup=\"%s\",kind=\"some\"} %.6f\n",
			     path, (double)obs[c].pressure.some.total_usec / TIERD_USEC_PER_SEC);
		if (obs[c].pressure.has_full)
			emit(o, "tierd_cgroup_memory_pressure_stalled_seconds_total{cgroup=\"%s\",kind=\"full\"} %.6f\n",
			     path, (double)obs[c].pressure.full.total_usec / TIERD_USEC_PER_SEC);
	}
	header(o, "tierd_cgroup_memory_pressure_avg10_ratio", "gauge",
	       "memory.pressure avg10 as a ratio (0.1234 = 12.34%), some or full.");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const char *path = l->path[c];

		if (obs[c].pressure.has_some)
			emit(o, "tierd_cgroup_memory_pressure_avg10_ratio{cgroup=\"%s\",kind=\"some\"} %.4f\n",
			     path, (double)obs[c].pressure.some.avg10_pmy / TIERD_PMY_ONE);
		if (obs[c].pressure.has_full)
			emit(o, "tierd_cgroup_memory_pressure_avg10_ratio{cgroup=\"%s\",kind=\"full\"} %.4f\n",
			     path, (double)obs[c].pressure.full.avg10_pmy / TIERD_PMY_ONE);
	}
}

enum path_value { PATH_TRIED, PATH_SUCCEEDED, PATH_FAILED, PATH_CALLS };

/* One counter per migration path, every path from the start. */
static void path_counter(struct out *o, const struct tierd_migration_stats *s,
			 enum path_value which, const char *name, const char *help)
{
	header(o, name, "counter", help);
	for (int p = 0; p < TIERD_PATH_NR; p++) {
		const struct tierd_path_stats *ps = &s->path[p];
		uint64_t v = which == PATH_TRIED       ? ps->tried_bytes
			     : which == PATH_SUCCEEDED ? ps->succeeded_bytes
			     : which == PATH_FAILED    ? ps->failed_bytes
						       : ps->calls;

		emit(o, "%s{path=\"%s\"} %llu\n", name,
		     tierd_migration_path_name((enum tierd_migration_path)p), (unsigned long long)v);
	}
}

/* Every series exists from the first tick, zeros included, so that rate()
 * sees the first migration. */
static void migration_metrics(struct out *o, const struct tierd_report *rep)
{
	const struct tierd_migration_stats *s = &rep->migrations;

	path_counter(o, s, PATH_TRIED, "tierd_migration_tried_bytes_total",
		     "Bytes tierd asked a migration path to move.");
	path_counter(o, s, PATH_SUCCEEDED, "tierd_migration_succeeded_bytes_total",
		     "Bytes a migration path moved, as the kernel reports it.");
	path_counter(o, s, PATH_FAILED, "tierd_migration_failed_bytes_total",
		     "Bytes a migration path was asked to move and did not.");
	path_counter(o, s, PATH_CALLS, "tierd_migration_requests_total",
		     "Requests tierd made on a migration path.");
	header(o, "tierd_migrated_bytes_total", "counter",
	       "Bytes tierd's migrations moved from one tier to another, all paths.");
	for (size_t from = 0; from < rep->topo.nr_tiers; from++)
		for (size_t to = 0; to < rep->topo.nr_tiers; to++)
			if (from != to)
				emit(o, "tierd_migrated_bytes_total{from_tier=\"%zu\",to_tier=\"%zu\"} %llu\n",
				     from, to, (unsigned long long)s->matrix[from][to]);
}

static void backend_metrics(struct out *o, const struct tierd_backend_state *b)
{
	const char *name;

	header(o, "tierd_damon_mode", "gauge",
	       "1 for the mode the DAMON backend is in (off, absent, degraded, failed, running).");
	for (enum tierd_damon_mode m = TIERD_DAMON_OFF; (name = tierd_damon_mode_name(m)); m++)
		emit(o, "tierd_damon_mode{mode=\"%s\"} %d\n", name, m == b->damon ? 1 : 0);
	header(o, "tierd_damon_kdamonds", "gauge", "tierd's kdamonds running.");
	emit(o, "tierd_damon_kdamonds %zu\n", b->nr_kdamonds);
	counter(o, "tierd_damon_kdamond_restarts_total",
	        "Restarts of tierd's kdamonds: found stopped behind its back, or after a rejected commit.",
	        b->kdamond_restarts);
	header(o, "tierd_tick_kernel_wait_seconds", "gauge",
	       "How long the last tick waited on the kernel: sense (for DAMON's reading, at most half the tick interval), act (handing its moves to the workers; memory.reclaim too where it has none: --once).");
	emit(o, "tierd_tick_kernel_wait_seconds{step=\"sense\"} %.6f\n",
	     (double)b->sense_wait_usec / TIERD_USEC_PER_SEC);
	emit(o, "tierd_tick_kernel_wait_seconds{step=\"act\"} %.6f\n",
	     (double)b->act_wait_usec / TIERD_USEC_PER_SEC);
	header(o, "tierd_tick_kernel_wait_max_seconds", "gauge",
	       "The longest such wait since start, by step.");
	emit(o, "tierd_tick_kernel_wait_max_seconds{step=\"sense\"} %.6f\n",
	     (double)b->sense_wait_max_usec / TIERD_USEC_PER_SEC);
	emit(o, "tierd_tick_kernel_wait_max_seconds{step=\"act\"} %.6f\n",
	     (double)b->act_wait_max_usec / TIERD_USEC_PER_SEC);
	counter(o, "tierd_damon_late_readings_total",
	        "Ticks whose DAMON reading had not ended by the deadline (half the tick interval): the tick planned from the last reading again.",
	        b->late_readings);
	counter(o, "tierd_damon_skipped_commits_total",
	        "Plans whose DAMON schemes were not committed: DAMON's worker was still busy; their moves cost no budget.",
	        b->skipped_commits);
	counter(o, "tierd_damos_paced_bytes_total",
	        "Bytes of planned DAMOS migrations left for a later tick: a kdamond is handed at most what the global migration budget refills in a tick; they cost no budget.",
	        b->paced_bytes);
}

static void reclaim_metrics(struct out *o, const struct tierd_reclaim_stats *r)
{
	counter(o, "tierd_reclaim_jobs_total",
	        "memory.reclaim jobs run off the tick's thread and ended.",
	        r->jobs);
	counter(o, "tierd_reclaim_busy_ticks_total",
	        "Ticks whose memory.reclaim waited: the last job still ran.",
	        r->busy_ticks);
	counter(o, "tierd_reclaim_deadline_hits_total",
	        "Jobs that left cgroups at their deadline (half the tick interval) for a later tick.",
	        r->deadline_hits);
	header(o, "tierd_reclaim_job_seconds", "gauge", "How long the last job ran.");
	emit(o, "tierd_reclaim_job_seconds %.6f\n", (double)r->last_usec / TIERD_USEC_PER_SEC);
	header(o, "tierd_reclaim_job_max_seconds", "gauge", "The longest job since start.");
	emit(o, "tierd_reclaim_job_max_seconds %.6f\n", (double)r->max_usec / TIERD_USEC_PER_SEC);
}

enum bpf_count { BPF_FAULTS, BPF_SAMPLES, BPF_DROPS };

/* One counter per sampled cgroup and tier. */
static void bpf_cgroup_counter(struct out *o, const struct tierd_report *rep,
			       const struct labels *l, enum bpf_count which, const char *name,
			       const char *help)
{
	header(o, name, "counter", help);
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const struct tierd_report_cgroup *cg = &rep->cgroups[c];
		const uint64_t *v = which == BPF_FAULTS    ? cg->bpf.faults
				    : which == BPF_SAMPLES ? cg->bpf.samples
							   : cg->bpf.drops;

		if (!cg->bpf_sampled)
			continue;
		for (size_t t = 0; t < rep->topo.nr_tiers; t++)
			emit(o, "%s{cgroup=\"%s\",tier=\"%zu\"} %llu\n", name, l->path[c], t,
			     (unsigned long long)v[t]);
	}
}

/* The sampler's state, the per-cgroup counters of sampled cgroups, and the
 * promotions of sampled pages; the sampler-wide series exist in every mode,
 * zeros included, as the migration series. */
/* What the sampler's mm_migrate_pages programs counted: every migration
 * the kernel made, by reason, whoever asked for it. Only while the sampler
 * runs (nothing counts them otherwise). */
static void kernel_migration_metrics(struct out *o, const struct tierd_bpf_state *b)
{
	const char *name;

	if (b->mode != TIERD_BPF_RUNNING)
		return;
	header(o, "tierd_kernel_migrated_pages_total", "counter",
	       "Pages the kernel migrated (migrate:mm_migrate_pages), every cgroup, by reason: succeeded and failed.");
	for (size_t r = 0; (name = tierd_migrate_reason_name(r)); r++) {
		emit(o, "tierd_kernel_migrated_pages_total{reason=\"%s\",result=\"succeeded\"} %llu\n",
		     name, (unsigned long long)b->kernel_migrations[r].succeeded);
		emit(o, "tierd_kernel_migrated_pages_total{reason=\"%s\",result=\"failed\"} %llu\n",
		     name, (unsigned long long)b->kernel_migrations[r].failed);
	}
}

static void bpf_metrics(struct out *o, const struct tierd_report *rep, const struct labels *l)
{
	static const char *const results[] = { "tried", "succeeded", "failed" };
	const struct tierd_bpf_state *b = &rep->bpf;
	const struct tierd_promotion_counts *p = &b->promotions;
	const uint64_t *by_result[] = { p->tried, p->succeeded, p->failed };
	const char *name;

	header(o, "tierd_bpf_mode", "gauge",
	       "1 for the mode the BPF hint-fault sampler is in (off, unavailable, running).");
	for (enum tierd_bpf_mode m = TIERD_BPF_OFF; (name = tierd_bpf_mode_name(m)); m++)
		emit(o, "tierd_bpf_mode{mode=\"%s\"} %d\n", name, m == b->mode ? 1 : 0);
	bpf_cgroup_counter(o, rep, l, BPF_FAULTS, "tierd_bpf_hint_faults_total",
			   "NUMA hint faults the BPF sampler saw in the cgroup, by the tier of the faulting page.");
	bpf_cgroup_counter(o, rep, l, BPF_SAMPLES, "tierd_bpf_samples_total",
			   "Hint faults the BPF sampler passed to tierd through its ring buffer, by tier.");
	bpf_cgroup_counter(o, rep, l, BPF_DROPS, "tierd_bpf_dropped_total",
			   "Hint faults the cgroup's in-kernel token bucket kept from tierd, by tier.");
	counter(o, "tierd_bpf_samples_read_total",
	        "Ring-buffer records tierd consumed.",
	        b->samples_read);
	counter(o, "tierd_bpf_samples_lost_total",
	        "Ring-buffer records consumed but not kept: the tick's sample buffer was full.",
	        b->samples_lost);
	counter(o, "tierd_bpf_unmanaged_faults_total",
	        "Hint faults of cgroups tierd does not manage.",
	        b->unmanaged_faults);
	header(o, "tierd_sample_promotions_pages_total", "counter",
	       "Sampled pages tierd asked move_pages(2) to promote, by target tier: tried, moved (succeeded) and not moved (failed).");
	for (size_t t = 0; t < rep->topo.nr_tiers; t++)
		for (size_t r = 0; r < TIERD_ARRAY_SIZE(results); r++)
			emit(o, "tierd_sample_promotions_pages_total{target_tier=\"%zu\",result=\"%s\"} %llu\n",
			     t, results[r], (unsigned long long)by_result[r][t]);
	counter(o, "tierd_sample_promote_batches_total",
	        "move_pages(2) batches of sampled promotions run off the tick's thread.",
	        b->promote_batches);
	counter(o, "tierd_sample_promote_busy_ticks_total",
	        "Ticks whose sampled promotions waited: the last batch still ran.",
	        b->promote_busy_ticks);
	counter(o, "tierd_sample_promote_deadline_hits_total",
	        "Batches stopped at their deadline (half the tick interval); the rest waits for the next.",
	        b->promote_deadline_hits);
	header(o, "tierd_sample_promote_batch_seconds", "gauge", "How long the last batch ran.");
	emit(o, "tierd_sample_promote_batch_seconds %.6f\n",
	     (double)b->promote_last_usec / TIERD_USEC_PER_SEC);
	header(o, "tierd_sample_promote_batch_max_seconds", "gauge", "The longest batch since start.");
	emit(o, "tierd_sample_promote_batch_max_seconds %.6f\n",
	     (double)b->promote_max_usec / TIERD_USEC_PER_SEC);
}

int tierd_metrics_format(const struct tierd_metrics_input *in, char **ret_text)
{
	const struct tierd_report *rep = in->report;
	uint64_t demote = 0, promote = 0;
	struct out o = { 0 };
	struct labels labels;
	int r = labels_build(rep, &labels);

	if (r < 0)
		return r;
	for (size_t i = 0; i < rep->nr_actions; i++) {
		if (rep->actions[i].to_tier > rep->actions[i].from_tier)
			demote += rep->actions[i].bytes;
		else
			promote += rep->actions[i].bytes;
	}
	tier_metrics(&o, &rep->topo);
	cgroup_tier_metrics(&o, rep, &labels);
	cgroup_kernel_metrics(&o, rep, &labels, in->obs, in->page_size_bytes);

	header(&o, "tierd_cgroups_managed", "gauge", "Cgroups a policy manages this tick.");
	emit(&o, "tierd_cgroups_managed %zu\n", rep->nr_cgroups);
	header(&o, "tierd_cgroups_over_budget", "gauge", "Managed cgroups over a tier's max budget.");
	emit(&o, "tierd_cgroups_over_budget %zu\n", rep->nr_over_budget);
	header(&o, "tierd_cgroups_policy_conflicts", "gauge",
	       "Cgroups left unmanaged: matched by two policies of equal priority.");
	emit(&o, "tierd_cgroups_policy_conflicts %zu\n", rep->nr_conflicts);
	header(&o, "tierd_plan_demote_bytes", "gauge", "Bytes this tick's plan moves to slower tiers.");
	emit(&o, "tierd_plan_demote_bytes %llu\n", (unsigned long long)demote);
	header(&o, "tierd_plan_promote_bytes", "gauge", "Bytes this tick's plan moves to faster tiers.");
	emit(&o, "tierd_plan_promote_bytes %llu\n", (unsigned long long)promote);
	counter(&o, "tierd_dry_run_actions_total",
	         "Planned actions recorded instead of carried out (dry run).",
	         in->planned_actions_total);
	counter(&o, "tierd_dry_run_bytes_total",
	         "Bytes of planned actions recorded instead of carried out (dry run).",
	         in->planned_bytes_total);
	header(&o, "tierd_dry_run", "gauge", "1 when tierd only records what it would do.");
	emit(&o, "tierd_dry_run %d\n", rep->dry_run ? 1 : 0);
	migration_metrics(&o, rep);
	backend_metrics(&o, &rep->backend);
	reclaim_metrics(&o, &rep->reclaim);
	bpf_metrics(&o, rep, &labels);
	header(&o, "tierd_policies_loaded", "gauge", "Policies in force.");
	emit(&o, "tierd_policies_loaded %zu\n", in->nr_policies);
	counter(&o, "tierd_policy_load_errors_total",
	         "Policy or configuration loads refused (the last good set stayed in force).",
	         in->policy_load_errors_total);
	header(&o, "tierd_last_reload_success_timestamp_seconds", "gauge",
	       "When policies were last loaded successfully (Unix time).");
	emit(&o, "tierd_last_reload_success_timestamp_seconds %.3f\n",
	     (double)in->last_reload_success_realtime_usec / TIERD_USEC_PER_SEC);
	header(&o, "tierd_tick_duration_seconds", "gauge", "How long the last tick took.");
	emit(&o, "tierd_tick_duration_seconds %.6f\n",
	     (double)in->tick_duration_usec / TIERD_USEC_PER_SEC);
	counter(&o, "tierd_ticks_total",
	         "Ticks run since start.",
	         in->ticks_total);
	counter(&o, "tierd_tick_overruns_total",
	         "Tick slots skipped because the tick before ran past them (ticks keep a fixed rate).",
	         in->tick_overruns_total);
	kernel_migration_metrics(&o, &rep->bpf);
	/* Always 1: tierd removes the file when it stops (tierctl cleanup
	 * after a crash), so absent(tierd_up) is the alert for a tierd down. */
	header(&o, "tierd_up", "gauge", "1 while tierd runs; the file is removed when it stops.");
	emit(&o, "tierd_up 1\n");
	labels_free(&labels);
	if (o.err) {
		free(o.data);
		return o.err;
	}
	*ret_text = o.data;
	return 0;
}

int tierd_write_atomic(const char *path, const char *text, size_t len)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	size_t done = 0;
	int r;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, METRICS_FILE_MODE);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		done += (size_t)n;
	}
	/* The umask may have narrowed the mode; readers need 0644. */
	if (fchmod(fd, METRICS_FILE_MODE) < 0 || fsync(fd) < 0) {
		r = -errno;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto fail;
	}
	return 0;
fail:
	(void)unlink(tmp);
	return r;
}
