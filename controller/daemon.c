/* tierd's life cycle around the decision core. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "daemon.h"
#include "daemon_undo.h"
#include "kernel_side.h"
#include "metrics.h"
#include "observe.h"
#include "table.h"
#include "tick_schedule.h"
#include "topology_read.h"
#include "../config/policy_json.h"
#include "../policy/units.h"
#include "../policy/util.h"

/* sd-event's default slack is 250 ms, a quarter of a default tick; ticks
 * should come when asked. */
#define TICK_ACCURACY_USEC 1000

static void log_diags(struct tierd_daemon *d, enum tierd_log_level level,
		      const struct tierd_diags *diags)
{
	for (size_t i = 0; i < diags->nr; i++)
		tierd_log(&d->log, level, "%s", diags->items[i].message);
	if (diags->oom)
		tierd_log(&d->log, level, "more errors were found than could be recorded");
}

/* tierd.json, then the command line over it. */
static int load_config(struct tierd_daemon *d, struct tierd_config *cfg)
{
	struct tierd_diags diags = { 0 };
	int r;

	r = tierd_config_load(d->opts.config_file, !d->opts.config_explicit, cfg, &diags);
	if (r < 0) {
		log_diags(d, TIERD_LOG_ERR, &diags);
		snprintf(d->reload_why, sizeof(d->reload_why), "%s",
			 diags.nr ? diags.items[0].message : strerror(-r));
		tierd_log(&d->log, TIERD_LOG_ERR, "configuration %s refused", d->opts.config_file);
	}
	tierd_diags_free(&diags);
	if (r < 0)
		return r;
	if (d->opts.policy_dir)
		snprintf(cfg->policy_dir, sizeof(cfg->policy_dir), "%s", d->opts.policy_dir);
	if (d->opts.metrics_file)
		snprintf(cfg->metrics_file, sizeof(cfg->metrics_file), "%s", d->opts.metrics_file);
	if (d->opts.state_file)
		snprintf(cfg->state_file, sizeof(cfg->state_file), "%s", d->opts.state_file);
	if (d->opts.log_level_set)
		cfg->log_level = d->opts.log_level;
	return 0;
}

static int load_policies(struct tierd_daemon *d, const struct tierd_config *cfg,
			 const struct tierd_topology *topo, struct tierd_policy_set *out)
{
	struct tierd_diags diags = { 0 };
	int r;

	r = tierd_policy_load_dir(cfg->policy_dir, topo, out, &diags);
	if (r < 0) {
		log_diags(d, TIERD_LOG_ERR, &diags);
		if (diags.nr)
			snprintf(d->reload_why, sizeof(d->reload_why), "%s%s", diags.items[0].message,
				 diags.nr > 1 ? " (and more, see the journal)" : "");
		else
			snprintf(d->reload_why, sizeof(d->reload_why), "cannot read policies from %s: %s",
				 cfg->policy_dir, strerror(-r));
		if (!diags.nr)
			tierd_log(&d->log, TIERD_LOG_ERR, "cannot read policies from %s: %s",
				  cfg->policy_dir, strerror(-r));
	}
	tierd_diags_free(&diags);
	return r;
}

static void warn_single_tier(struct tierd_daemon *d)
{
	if (d->topo.nr_tiers > 1)
		return;
	tierd_log(&d->log, TIERD_LOG_WARNING,
		  "every node (%zu) sits in one memory tier (%s): nothing can move between tiers; if firmware put slower memory (CXL, PMEM) in the DRAM tier, list the tiers in \"tiers\" of %s",
		  d->topo.nr_nodes,
		  d->topo.source == TIERD_TIERS_SINGLE ? "the kernel has no memory_tiering"
						       : "as configured",
		  d->opts.config_file);
}

/* Descriptors kept for everything but held cgroup files: sd-event, the
 * BPF sampler's maps and ring buffer, DAMON's sysfs files, kpagecgroup,
 * exports. */
#define FDS_RESERVED 512

/* How many cgroup files tierd may hold open: the soft RLIMIT_NOFILE raised
 * to the hard one (systemd gives services 524288; tierd uses epoll, not
 * select(), so descriptors past 1024 are fine) less the reserve. */
static size_t files_to_hold(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit want = { .rlim_cur = rl.rlim_max, .rlim_max = rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	return rl.rlim_cur > FDS_RESERVED ? (size_t)(rl.rlim_cur - FDS_RESERVED) : 0;
}

int tierd_daemon_init(struct tierd_daemon *d, const struct tierd_options *opts)
{
	struct tierd_log_keep keep;
	int r;

	memset(d, 0, sizeof(*d));
	d->opts = *opts;
	d->fs.root_fd = -1;
	tierd_cgroup_watch_init(&d->cgroups);
	d->cgroups.pool.max = files_to_hold();
	d->kpagecgroup.fd = -1;
	d->actuator = &tierd_dry_run_ops;
	d->actuator_data = &d->dry_run;
	r = tierd_engine_new(&d->engine);
	if (r < 0)
		return r;
	tierd_log_setup(&d->log, opts->log_target,
			opts->log_level_set ? opts->log_level : TIERD_LOG_INFO);

	r = load_config(d, &d->cfg);
	if (r < 0)
		return r;
	d->log.level = d->cfg.log_level;
	if (opts->read_only)
		d->opts.dry_run = true;

	/* Refusing to start, tierd says why: a bad "tiers" override in
	 * tierd.json or a cgroup v1 machine is named, not only its errno. */
	r = tierd_topology_read(opts->root, &d->cfg, &d->topo, tierd_log_keep(&keep, &d->log));
	if (r < 0) {
		tierd_log(&d->log, TIERD_LOG_ERR, "cannot read the memory topology: %s",
			  tierd_log_kept(&keep, r));
		return r;
	}
	warn_single_tier(d);
	r = tierd_cgroupfs_open(opts->root, &d->fs, tierd_log_keep(&keep, &d->log));
	if (r < 0) {
		tierd_log(&d->log, TIERD_LOG_ERR, "%s", tierd_log_kept(&keep, r));
		return r;
	}
	r = load_policies(d, &d->cfg, &d->topo, &d->policies);
	if (r < 0) {
		tierd_log(&d->log, TIERD_LOG_ERR, "policies in %s refused; not starting",
			  d->cfg.policy_dir);
		return r;
	}
	d->last_load_realtime_usec = tierd_clock_usec(CLOCK_REALTIME);
	if (!opts->read_only) {
		r = tierd_daemon_runtime_dir(d);
		if (r < 0)
			return r;
	}
	if (d->opts.dry_run) {
		d->damon.state.damon = TIERD_DAMON_OFF;
		snprintf(d->damon.state.damon_why, sizeof(d->damon.state.damon_why), "dry run");
		(void)tierd_damon_async_start(&d->damon_async, &d->damon, false);
		tierd_bpf_backend_off(&d->bpf, "dry run");
	} else {
		r = tierd_daemon_undo_open(d);
		if (r < 0)
			return r;
		tierd_kernel_side_start(d);
	}
	tierd_log(&d->log, TIERD_LOG_INFO, "%zu tiers, %zu nodes, %zu policies from %s, tick %llu ms",
		  d->topo.nr_tiers, d->topo.nr_nodes, d->policies.nr, d->cfg.policy_dir,
		  (unsigned long long)(d->cfg.tick_usec / TIERD_USEC_PER_MSEC));
	return 0;
}

/* Logs what changed since the last tick (the change journal). */
static int log_changes(struct tierd_daemon *d, const struct tierd_report *rep,
		       const struct tierd_observation *obs)
{
	struct tierd_journal_events ev = { 0 };
	int r = tierd_journal_update(&d->journal, rep, obs, &ev);

	for (size_t i = 0; i < ev.nr; i++) {
		const struct tierd_journal_event *e = &ev.items[i];

		tierd_log_ev(&d->log, e->level, e->event, e->cgroup, e->policy[0] ? e->policy : NULL,
			     e->tier, e->bytes, "%s", e->message);
	}
	tierd_journal_events_free(&ev);
	return r;
}

/* Writes text (formatted with result r) to path, logging only when writing
 * starts or stops failing, so a missing directory is one line, not one a
 * tick. Frees text. */
static void write_export(struct tierd_daemon *d, const char *what, const char *path, int r,
			 char *text, bool *failing)
{
	if (r == 0)
		r = tierd_write_atomic(path, text, strlen(text));
	free(text);
	if ((r < 0) != *failing) {
		if (r < 0)
			tierd_log(&d->log, TIERD_LOG_WARNING, "cannot write %s to %s: %s", what, path,
				  strerror(-r));
		else
			tierd_log(&d->log, TIERD_LOG_INFO, "writing %s to %s again", what, path);
	}
	*failing = r < 0;
}

static void export(struct tierd_daemon *d, const struct tierd_report *rep,
		   const struct tierd_observation *obs, uint64_t tick_usec)
{
	struct tierd_metrics_input in = {
		.report = rep,
		.obs = obs->obs,
		.page_size_bytes = (uint64_t)sysconf(_SC_PAGESIZE),
		.nr_policies = d->policies.nr,
		.tick_duration_usec = tick_usec,
		.ticks_total = d->ticks,
		.tick_overruns_total = d->tick_overruns,
		.policy_load_errors_total = d->load_errors,
		.last_reload_success_realtime_usec = d->last_load_realtime_usec,
		.planned_actions_total = d->dry_run.actions,
		.planned_bytes_total = d->dry_run.bytes,
	};
	char *text = NULL;
	int r;

	r = tierd_metrics_format(&in, &text);
	write_export(d, "metrics", d->cfg.metrics_file, r, text, &d->metrics_failing);
	text = NULL;
	/* Plain: tierctl reads it (and pretty-prints with --json); at 1,000
	 * cgroups the pretty text was 1 MB a tick. */
	r = tierd_report_to_json(rep, false, &text);
	write_export(d, "the state file", d->cfg.state_file, r, text, &d->state_failing);
}

/* Last tick's DAMOS migrations, as the feedback strategies get. */
static void feedback_from(const struct tierd_damon_moved *moved, size_t nr_moved,
			  const struct tierd_cgroup_obs *obs, size_t nr, struct tierd_feedback *fb)
{
	for (size_t c = 0; c < nr; c++) {
		fb[c] = (struct tierd_feedback){ 0 };
		for (size_t i = 0; i < nr_moved; i++) {
			const struct tierd_damon_moved *m = &moved[i];
			uint64_t failed = m->planned_bytes > m->moved_bytes
						  ? m->planned_bytes - m->moved_bytes : 0;

			if (m->cgroup_id != obs[c].id)
				continue;
			if (m->promotion) {
				fb[c].promoted_bytes += m->moved_bytes;
				fb[c].promote_failed_bytes += failed;
			} else {
				fb[c].demoted_bytes += m->moved_bytes;
				fb[c].demote_failed_bytes += failed;
			}
		}
	}
}

/* Per tier, the shortest profiling period any cgroup's strategy asks. */
static void profile_periods(const struct tierd_daemon *d, const struct tierd_observation *obs,
			    uint64_t *period)
{
	uint64_t one[TIERD_MAX_TIERS];

	memset(period, 0, TIERD_MAX_TIERS * sizeof(*period));
	for (size_t c = 0; c < obs->nr; c++) {
		tierd_engine_profile(d->engine, obs->obs[c].id, &d->topo, one);
		for (size_t t = 0; t < d->topo.nr_tiers; t++)
			if (one[t] && (!period[t] || one[t] < period[t]))
				period[t] = one[t];
	}
}

/* What one tick carries from sensing through publishing. Zeroed at the
 * start, so tick_done() frees whatever the steps got to. */
struct tick {
	uint64_t start_usec, cpu_start_usec;
	uint64_t engine_usec, engine_cpu_usec;
	struct tierd_damon_moved moved[TIERD_DAMON_MAX_ACTIONS];
	size_t nr_moved;
	bool damon_fresh;                /* the DAMON view is a reading new this tick */
	struct tierd_observation obs;
	struct tierd_feedback *feedback; /* per managed cgroup: last tick's migrations */
	struct tierd_engine_input in;
	struct tierd_plan plan;
	struct tierd_report rep;
};

static void tick_done(struct tick *tk)
{
	tierd_report_free(&tk->rep);
	tierd_plan_free(&tk->plan);
	free(tk->feedback);
	tierd_observation_free(&tk->obs);
}

/* Sense, kernel side: feedback on last tick's migrations, DAMON's regions
 * attributed to the cgroups, the sampler's samples. */
static void read_kernel_side(struct tierd_daemon *d, struct tick *tk)
{
	struct tierd_observation *obs = &tk->obs;
	bool have_hot;
	int r;

	feedback_from(tk->moved, tk->nr_moved, obs->obs, obs->nr, tk->feedback);
	tierd_bpf_backend_reap(&d->bpf, &d->topo, &d->migrations, obs->obs, obs->nr);
	for (size_t c = 0; c < obs->nr; c++)
		tierd_bpf_backend_feedback(&d->bpf, obs->obs[c].id, &tk->feedback[c]);
	tierd_kernel_side_open_attribution(d);
	r = tierd_hotness_build(&d->damon_async.view, d->kpagecgroup_open ? &d->kpagecgroup : NULL, obs->obs,
				obs->nr, TIERD_HOTNESS_PAGES_PER_TICK, &d->hotness, &d->log);
	if (r < 0)
		tierd_log_errno(&d->log, TIERD_LOG_WARNING, r,
				"DAMON regions not attributed this tick");
	/* Without room for the cgroups (out of memory) there is no hotness. */
	have_hot = d->hotness.nr >= obs->nr;
	if (have_hot)
		tierd_bpf_backend_tick(&d->bpf, obs->cgroups, obs->nr, d->hotness.hot);
	for (size_t c = 0; c < obs->nr; c++) {
		obs->cgroups[c].feedback = &tk->feedback[c];
		if (!have_hot || (r < 0 && !d->hotness.hot[c].nr_samples))
			continue;
		d->hotness.hot[c].regions_repeated = !tk->damon_fresh;
		obs->cgroups[c].hot = &d->hotness.hot[c];
		if (d->hotness.hot[c].nr_samples)
			tierd_log(&d->log, TIERD_LOG_DEBUG, "BPF: %s: %zu samples",
				  obs->obs[c].path, d->hotness.hot[c].nr_samples);
		if (r < 0)
			continue;
		tierd_log(&d->log, TIERD_LOG_DEBUG, "DAMON: %s: %zu regions, %llu pages attributed",
			  obs->obs[c].path, d->hotness.hot[c].nr_regions,
			  (unsigned long long)d->hotness.out[c].pages);
	}
}

/* A tick's wait on the kernel, for the metrics: the last and the longest
 * (docs/design.md, "Kernel calls and the tick"). */
static void kernel_waited(uint64_t *last, uint64_t *max, uint64_t usec)
{
	*last = usec;
	if (usec > *max)
		*max = usec;
}

/* Sense: free memory, what DAMON did since the last tick, the managed
 * cgroups and what the kernel says of them. */
static int sense(struct tierd_daemon *d, struct tick *tk, const char **ret_step)
{
	const struct tierd_cgroup_list *listed;
	struct tierd_log_keep keep;
	int r;

	/* Told once while it fails: with the file and what is wrong in it. */
	r = tierd_topology_refresh_free(d->opts.root, &d->topo, tierd_log_keep(&keep, &d->log));
	if (r < 0 && !d->free_failing)
		tierd_log(&d->log, TIERD_LOG_WARNING,
			  "free memory per node not updated, last figures kept: %s",
			  tierd_log_kept(&keep, r));
	else if (r == 0 && d->free_failing)
		tierd_log(&d->log, TIERD_LOG_INFO, "free memory per node read again");
	d->free_failing = r < 0;
	if (!d->opts.dry_run) {
		uint64_t t0 = tierd_clock_usec(CLOCK_MONOTONIC);

		tk->nr_moved = tierd_damon_async_collect(
			&d->damon_async, tk->start_usec,
			tk->start_usec + d->cfg.tick_usec / TIERD_KERNEL_DEADLINE_DIVISOR,
			&d->migrations, tk->moved, &tk->damon_fresh, &d->log);
		kernel_waited(&d->sense_wait_usec, &d->sense_wait_max_usec,
			      tierd_clock_usec(CLOCK_MONOTONIC) - t0);
		/* A kdamond restarted has a new pid; the backend is the tick's
		 * only when every DAMON job has ended. */
		if (tk->damon_fresh)
			(void)tierd_daemon_undo_sync(d);
	}
	*ret_step = "listing the cgroups";
	r = tierd_cgroup_watch_list(&d->cgroups, &d->fs, &listed);
	if (r < 0)
		return r;
	*ret_step = "reading the cgroups";
	r = tierd_observe(&d->fs, listed, d->cgroups.files, &d->topo, &d->policies, &d->log,
			  &tk->obs);
	if (r < 0)
		return r;
	*ret_step = "allocating the tick's buffers";
	if (tk->obs.nr) {
		tk->feedback = calloc(tk->obs.nr, sizeof(*tk->feedback));
		if (!tk->feedback)
			return -ENOMEM;
	}
	if (!d->opts.dry_run)
		read_kernel_side(d, tk);
	return 0;
}

/* Decide: the engine's plan, the report of it, and the change journal. */
static int decide(struct tierd_daemon *d, struct tick *tk, const char **ret_step)
{
	int r;

	tk->in = (struct tierd_engine_input){
		.now_usec = tk->start_usec,
		.topo = &d->topo,
		.global_budget = d->cfg.migration_budget,
		.nr_cgroups = tk->obs.nr,
		.cgroups = tk->obs.cgroups,
	};
	*ret_step = "the engine's plan";
	tk->engine_usec = tierd_clock_usec(CLOCK_MONOTONIC);
	tk->engine_cpu_usec = tierd_clock_usec(CLOCK_THREAD_CPUTIME_ID);
	r = tierd_engine_plan(d->engine, &tk->in, &tk->plan);
	if (r < 0)
		return r;
	tk->engine_usec = tierd_clock_usec(CLOCK_MONOTONIC) - tk->engine_usec;
	tk->engine_cpu_usec = tierd_clock_usec(CLOCK_THREAD_CPUTIME_ID) - tk->engine_cpu_usec;
	*ret_step = "building the report";
	r = tierd_report_build(&tk->in, &tk->plan, tierd_clock_usec(CLOCK_REALTIME), d->opts.dry_run,
			       tk->obs.nr_conflicts, &tk->rep);
	if (r < 0)
		return r;
	*ret_step = "the change journal";
	return log_changes(d, &tk->rep, &tk->obs);
}

/* Act: the actuator carries out the plan. Cannot fail. */
static void act(struct tierd_daemon *d, struct tick *tk)
{
	uint64_t period[TIERD_MAX_TIERS];
	struct tierd_actuation a;

	profile_periods(d, &tk->obs, period);
	a = (struct tierd_actuation){ .in = &tk->in, .plan = &tk->plan, .period_usec = period,
				      .tick_usec = d->cfg.tick_usec };
	d->actuator->apply(d->actuator_data, &a);
	/* What a busy worker could not take (DAMON's, or the last
	 * move_pages batch still running), and what DAMOS pacing left for a
	 * later tick, cost no budget. */
	if (!d->opts.dry_run && (d->kernel.damon_skipped || d->kernel.sampled_skipped ||
				 d->kernel.left_cost))
		for (size_t i = 0; i < tk->plan.nr_actions; i++) {
			const struct tierd_action *act = &tk->plan.actions[i];
			bool sampled = tierd_action_is_sampled(act);

			if (sampled ? d->kernel.sampled_skipped : d->kernel.damon_skipped)
				tierd_engine_refund(d->engine, &tk->in, act, tierd_action_cost(act));
			else if (!sampled && d->kernel.left_cost && d->kernel.left_cost[i])
				tierd_engine_refund(d->engine, &tk->in, act, d->kernel.left_cost[i]);
		}
	/* A dry run's actuator records; it calls no kernel. */
	if (!d->opts.dry_run)
		kernel_waited(&d->act_wait_usec, &d->act_wait_max_usec, d->kernel.wait_usec);
}

/* Publish: the report completed with the backends' state, the metrics and
 * state files, systemd's status line; the report kept for tierctl. */
static void publish(struct tierd_daemon *d, struct tick *tk)
{
	struct tierd_report *rep = &tk->rep;
	char status[256];

	rep->migrations = d->migrations;
	rep->backend = d->damon_async.view.state;
	rep->backend.sense_wait_usec = d->sense_wait_usec;
	rep->backend.sense_wait_max_usec = d->sense_wait_max_usec;
	rep->backend.act_wait_usec = d->act_wait_usec;
	rep->backend.act_wait_max_usec = d->act_wait_max_usec;
	rep->backend.late_readings = d->damon_async.late_collects;
	rep->backend.skipped_commits = d->damon_async.skipped_applies;
	rep->backend.paced_bytes = d->kernel.paced_bytes;
	rep->reclaim = d->kernel.reclaim_stats;
	rep->bpf = d->bpf.state;
	for (size_t c = 0; c < rep->nr_cgroups; c++)
		rep->cgroups[c].bpf_sampled = tierd_bpf_backend_counts(&d->bpf, tk->obs.obs[c].id,
								       &rep->cgroups[c].bpf);
	d->ticks++;
	if (!d->opts.read_only)
		export(d, rep, &tk->obs, tierd_clock_usec(CLOCK_MONOTONIC) - tk->start_usec);
	/* make bench-scale reads this line (bench/scale/README.md). CPU is
	 * the tick thread's: the kernel worker's is not the tick's. */
	tierd_log(&d->log, TIERD_LOG_DEBUG,
		  "tick %llu: %llu us wall, %llu us cpu; engine %llu us wall, %llu us cpu; %zu cgroups managed",
		  (unsigned long long)d->ticks,
		  (unsigned long long)(tierd_clock_usec(CLOCK_MONOTONIC) - tk->start_usec),
		  (unsigned long long)(tierd_clock_usec(CLOCK_THREAD_CPUTIME_ID) - tk->cpu_start_usec),
		  (unsigned long long)tk->engine_usec, (unsigned long long)tk->engine_cpu_usec,
		  tk->obs.nr);
	tierd_report_summary(rep, status, sizeof(status));
	if (!d->ready) {
		(void)sd_notifyf(0, "READY=1\nSTATUS=%s", status);
		d->ready = true;
	} else {
		(void)sd_notifyf(0, "STATUS=%s", status);
	}
	tierd_report_free(&d->last_report);
	d->last_report = *rep;
	*rep = (struct tierd_report){ 0 };
}

/* One tick: sense, decide, act, publish. Nothing is acted on unless every
 * step before succeeded; on failure *ret_step says which step failed. */
static int tick(struct tierd_daemon *d, const char **ret_step)
{
	struct tick tk = { .start_usec = tierd_clock_usec(CLOCK_MONOTONIC),
			   .cpu_start_usec = tierd_clock_usec(CLOCK_THREAD_CPUTIME_ID) };
	int r;

	r = sense(d, &tk, ret_step);
	if (r == 0)
		r = decide(d, &tk, ret_step);
	if (r == 0) {
		act(d, &tk);
		publish(d, &tk);
	}
	tick_done(&tk);
	return r;
}

int tierd_daemon_tick(struct tierd_daemon *d)
{
	const char *step = "?";
	int r = tick(d, &step);

	/* Logged when ticks start failing or fail differently, not every
	 * tick; and once when they succeed again. */
	if (r < 0 && (r != d->tick_error || step != d->tick_failed_in))
		tierd_log_errno(&d->log, TIERD_LOG_ERR, r, "tick failed in %s", step);
	else if (r == 0 && d->tick_error)
		tierd_log(&d->log, TIERD_LOG_NOTICE, "ticks succeed again (they failed in %s)",
			  d->tick_failed_in);
	d->tick_error = r < 0 ? r : 0;
	d->tick_failed_in = r < 0 ? step : NULL;
	return r;
}

static bool same_tiers(const struct tierd_topology *a, const struct tierd_topology *b)
{
	if (a->nr_tiers != b->nr_tiers)
		return false;
	for (size_t t = 0; t < a->nr_tiers; t++)
		if (!tierd_nodeset_equal(&a->tiers[t].nodes, &b->tiers[t].nodes))
			return false;
	return true;
}

/* "0 | 1 | 2-3": each tier's nodes, fastest first. */
#define TIERS_TEXT_MAX 256
static void describe_tiers(const struct tierd_topology *topo, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t t = 0; t < topo->nr_tiers && n < size; t++) {
		char nodes[128];

		if (tierd_nodeset_format(&topo->tiers[t].nodes, nodes, sizeof(nodes)) < 0)
			snprintf(nodes, sizeof(nodes), "?");
		n += (size_t)snprintf(buf + n, size - n, "%s%s", t ? " | " : "", nodes);
	}
}

/* The verdict of reload d->reload_generation (0: started) for tierctl
 * reload (reload_verdict.h); d->reload_why says what happened. */
static void write_verdict(struct tierd_daemon *d, bool ok)
{
	struct tierd_reload_verdict v = { .pid = (int)getpid(), .ok = ok };
	int r;

	if (!d->runtime_dir[0])
		return;
	v.generation = d->reload_generation;
	snprintf(v.message, sizeof(v.message), "%s", d->reload_why);
	r = tierd_reload_verdict_write(d->runtime_dir, &v);
	if (r < 0)
		tierd_log(&d->log, TIERD_LOG_WARNING,
			  "cannot write the reload verdict to %s/%s: %s; tierctl reload will time out",
			  d->runtime_dir, TIERD_RELOAD_FILE, strerror(-r));
}

int tierd_daemon_reload(struct tierd_daemon *d)
{
	struct tierd_policy_set set = { 0 };
	struct tierd_topology topo;
	struct tierd_config cfg;
	struct tierd_log_keep keep;
	int r;

	(void)sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
			 (unsigned long long)tierd_clock_usec(CLOCK_MONOTONIC));
	d->reload_why[0] = '\0';
	r = load_config(d, &cfg);
	if (r < 0)
		goto refused;
	/* The verdict tierctl reload prints names what the new tierd.json's
	 * "tiers" got wrong. */
	r = tierd_topology_read(d->opts.root, &cfg, &topo, tierd_log_keep(&keep, &d->log));
	if (r < 0) {
		snprintf(d->reload_why, sizeof(d->reload_why), "cannot read the memory topology: %s",
			 tierd_log_kept(&keep, r));
		tierd_log(&d->log, TIERD_LOG_ERR, "%s", d->reload_why);
		goto refused;
	}
	/* DAMON's contexts and the BPF sampler's node map are laid out per
	 * tier when they start: new tiers need a restart. */
	if (!d->opts.dry_run && !same_tiers(&d->topo, &topo)) {
		char was[TIERS_TEXT_MAX], now[TIERS_TEXT_MAX];

		describe_tiers(&d->topo, was, sizeof(was));
		describe_tiers(&topo, now, sizeof(now));
		snprintf(d->reload_why, sizeof(d->reload_why),
			 "the memory tiers would change from %s to %s: DAMON and the BPF sampler are laid out per tier at start; restart tierd (systemctl restart tierd) to use the new tiers",
			 was, now);
		tierd_log(&d->log, TIERD_LOG_ERR, "%s", d->reload_why);
		r = -EBUSY;
		goto refused;
	}
	r = load_policies(d, &cfg, &topo, &set);
	if (r < 0)
		goto refused;
	d->cfg = cfg;
	d->log.level = cfg.log_level;
	if (!same_tiers(&d->topo, &topo)) {
		/* Logged over-budget states name tiers that changed meaning. */
		tierd_journal_forget_budgets(&d->journal);
	}
	d->topo = topo;
	tierd_policy_set_move(&d->policies, &set);
	d->last_load_realtime_usec = tierd_clock_usec(CLOCK_REALTIME);
	if (d->timer)
		(void)sd_event_source_set_time_relative(d->timer, d->cfg.tick_usec);
	tierd_log_ev(&d->log, TIERD_LOG_INFO, "reload", NULL, NULL, -1, 0,
		  "reloaded: %zu policies from %s, %zu tiers", d->policies.nr, d->cfg.policy_dir,
		  d->topo.nr_tiers);
	snprintf(d->reload_why, sizeof(d->reload_why), "reloaded: %zu policies from %s, %zu tiers",
		 d->policies.nr, d->cfg.policy_dir, d->topo.nr_tiers);
	d->reload_generation++;
	write_verdict(d, true);
	(void)sd_notify(0, "READY=1");
	return 0;
refused:
	d->load_errors++;
	tierd_log_ev(&d->log, TIERD_LOG_ERR, "reload-refused", NULL, NULL, -1, 0,
		  "reload refused; the %zu policies loaded before stay in force", d->policies.nr);
	d->reload_generation++;
	write_verdict(d, false);
	(void)sd_notify(0, "READY=1");
	return r;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct tierd_daemon *d = userdata;
	uint64_t next, missed;
	int r;

	r = tierd_daemon_tick(d);
	if (r < 0 && !d->ready) {
		/* Nothing to be ready with: say why to systemd and exit,
		 * rather than leave it to time the start out in silence. */
		(void)sd_notifyf(0, "STATUS=first tick failed in %s: %s\nERRNO=%d",
				 d->tick_failed_in, strerror(-r), -r);
		return sd_event_exit(sd_event_source_get_event(s), r);
	}
	/* A time source fires once; re-arm it for the next tick, due one
	 * interval after this one was (usec). */
	next = tierd_next_tick(usec, tierd_clock_usec(CLOCK_MONOTONIC), d->cfg.tick_usec, &missed);
	if (missed) {
		tierd_log(&d->log, d->tick_overruns ? TIERD_LOG_DEBUG : TIERD_LOG_NOTICE,
			  "tick %llu ran past the next tick's time: %llu tick%s skipped (counted in tierd_tick_overruns_total)",
			  (unsigned long long)d->ticks, (unsigned long long)missed,
			  missed == 1 ? "" : "s");
		d->tick_overruns += missed;
	}
	r = sd_event_source_set_time(s, next);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_samples(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct tierd_daemon *d = userdata;

	(void)s;
	(void)fd;
	(void)revents;
	tierd_bpf_backend_drain(&d->bpf);
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	(void)s;
	(void)si;
	(void)tierd_daemon_reload(userdata);
	return 0;
}

/* Nothing serves a stopped tierd's figures: the metrics file goes (alert
 * on absent(tierd_up)). */
static void remove_metrics(struct tierd_daemon *d)
{
	if (d->opts.read_only || !d->cfg.metrics_file[0])
		return;
	if (unlink(d->cfg.metrics_file) == 0)
		tierd_log_ev(&d->log, TIERD_LOG_INFO, "metrics-removed", NULL, NULL, -1, 0,
			  "metrics file %s removed", d->cfg.metrics_file);
	else if (errno != ENOENT)
		tierd_log(&d->log, TIERD_LOG_WARNING, "cannot remove the metrics file %s: %s",
			  d->cfg.metrics_file, strerror(errno));
}

int tierd_daemon_run(struct tierd_daemon *d)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	r = sd_event_default(&d->event);
	if (r < 0)
		goto fail;
	r = sd_event_add_signal(d->event, NULL, SIGHUP, on_sighup, d);
	if (r < 0)
		goto fail;
	r = sd_event_add_signal(d->event, NULL, SIGTERM, NULL, NULL);
	if (r < 0)
		goto fail;
	r = sd_event_add_signal(d->event, NULL, SIGINT, NULL, NULL);
	if (r < 0)
		goto fail;
	/* First tick at once; each tick re-arms the next. */
	r = sd_event_add_time_relative(d->event, &d->timer, CLOCK_MONOTONIC, 0, TICK_ACCURACY_USEC,
				       on_timer, d);
	if (r < 0)
		goto fail;
	(void)sd_event_source_set_description(d->timer, "tierd-tick");
	if (tierd_bpf_backend_fd(&d->bpf) >= 0) {
		r = sd_event_add_io(d->event, &d->bpf_source, tierd_bpf_backend_fd(&d->bpf),
				    EPOLLIN, on_samples, d);
		if (r < 0)
			goto fail;
		(void)sd_event_source_set_description(d->bpf_source, "tierd-bpf-samples");
	}
	r = sd_event_set_watchdog(d->event, true);
	if (r < 0)
		goto fail;
	snprintf(d->reload_why, sizeof(d->reload_why), "started");
	write_verdict(d, true);
	r = sd_event_loop(d->event);
	(void)sd_notify(0, "STOPPING=1");
	remove_metrics(d);
	tierd_log(&d->log, TIERD_LOG_INFO, "stopping after %llu ticks", (unsigned long long)d->ticks);
	return r < 0 ? r : 0;
fail:
	tierd_log(&d->log, TIERD_LOG_ERR, "cannot set up the event loop: %s", strerror(-r));
	return r;
}

/* Exactly the reverse of start-up: the event loop's sources and the loop
 * (tierd_daemon_run), the kernel side, then what tierd_daemon_init built. */
void tierd_daemon_free(struct tierd_daemon *d)
{
	d->bpf_source = sd_event_source_unref(d->bpf_source);
	d->timer = sd_event_source_unref(d->timer);
	d->event = sd_event_unref(d->event);
	tierd_kernel_side_stop(d);
	tierd_hotness_set_free(&d->hotness);
	tierd_journal_free(&d->journal);
	tierd_report_free(&d->last_report);
	tierd_policy_set_free(&d->policies);
	tierd_cgroup_watch_free(&d->cgroups);
	tierd_cgroupfs_close(&d->fs);
	tierd_engine_free(d->engine);
	d->engine = NULL;
}
