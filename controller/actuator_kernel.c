/* The actuator that acts on the kernel; see actuator_kernel.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actuator_kernel.h"
#include "clock.h"
#include "../policy/units.h"
#include "../policy/util.h"


/* A migration event of a cgroup: TIERD_EVENT, TIERD_CGROUP, TIERD_BYTES. */
#define log_cgroup(k, level, event_, cgroup_, bytes_, ...)                       \
	tierd_log_event((k)->log, level,                                       \
			&(const struct tierd_event){ .event = (event_), .cgroup = (cgroup_), \
						     .tier = -1, .has_bytes = true,   \
						     .bytes = (bytes_) },             \
			__VA_ARGS__)

/* Counts, per cgroup over its tier-0 max, the ticks it got no closer.
 * A tick without a fresh DAMON reading does not count: DAMON's worker
 * is still busy (a kdamond migrating what the last plan asked, seconds for
 * hundreds of MiB), and memory.reclaim on top of it would compete with the
 * kdamond for as long (seen on the tick's thread: 26 s, 26 slots lost). */
static int count_over(struct tierd_kernel_actuator *k, const struct tierd_actuation *a)
{
	struct tierd_over_count *next = NULL;
	size_t n = 0;

	if (a->in->nr_cgroups) {
		next = calloc(a->in->nr_cgroups, sizeof(*next));
		if (!next)
			return -ENOMEM;
	}
	for (size_t c = 0; c < a->in->nr_cgroups; c++) {
		uint64_t id = a->in->cgroups[c].obs->id;
		uint64_t over = a->plan->standings[c].tiers[0].over_bytes;
		enum tierd_reclaim_outcome reclaimed = TIERD_RECLAIM_NONE;
		uint32_t ticks = 1;

		if (!over)
			continue;
		for (size_t i = 0; i < k->nr_over; i++)
			if (k->over[i].cgroup_id == id) {
				ticks = over < k->over[i].over_bytes ? 0
					: k->damon->fresh          ? k->over[i].ticks + 1
								    : k->over[i].ticks;
				reclaimed = k->over[i].reclaim;
			}
		next[n++] = (struct tierd_over_count){ .cgroup_id = id, .over_bytes = over,
						       .ticks = ticks, .reclaim = reclaimed };
	}
	free(k->over);
	k->over = next;
	k->nr_over = n;
	return 0;
}

static struct tierd_over_count *find_over(struct tierd_kernel_actuator *k, uint64_t id)
{
	for (size_t i = 0; i < k->nr_over; i++)
		if (k->over[i].cgroup_id == id)
			return &k->over[i];
	return NULL;
}

static uint32_t over_ticks(struct tierd_kernel_actuator *k, uint64_t id)
{
	const struct tierd_over_count *o = find_over(k, id);

	return o ? o->ticks : 0;
}

/* INFO when the cgroup's outcome differs from the one last logged, DEBUG
 * when it repeats. */
static enum tierd_log_level outcome_level(struct tierd_kernel_actuator *k, uint64_t id,
					  enum tierd_reclaim_outcome outcome,
					  enum tierd_log_level level)
{
	struct tierd_over_count *o = find_over(k, id);

	if (o && o->reclaim == outcome)
		return TIERD_LOG_DEBUG;
	if (o)
		o->reclaim = outcome;
	return level;
}

/* memory.reclaim demotes only with demotion_enabled; without it, it would
 * evict (or, without swap, fail at once: docs/vm.md). */
static bool demotion_ready(struct tierd_kernel_actuator *k)
{
	char value[TIERD_KSETTING_VALUE_MAX];
	int r = 0;

	if (k->ks)
		r = tierd_ksetting_get(k->ks, TIERD_KSETTING_DEMOTION_ENABLED, value,
				       sizeof(value), k->log);
	if (k->ks && r == 0 && strcmp(value, "true") == 0)
		return true;
	if (k->ks && r == 0 && k->manage_demotion) {
		r = tierd_ksetting_set(k->ks, TIERD_KSETTING_DEMOTION_ENABLED, "true", k->log);
		if (r == 0) {
			tierd_log(k->log, TIERD_LOG_NOTICE,
				  "set demotion_enabled to true for memory.reclaim demotion (restored on exit)");
			return true;
		}
	}
	if (k->demotion_warned)
		return false;
	if (!k->ks)
		tierd_log(k->log, TIERD_LOG_WARNING,
			  "memory.reclaim not used to enforce tier-0 budgets: kernel settings unavailable");
	else if (r < 0)
		tierd_log(k->log, TIERD_LOG_WARNING,
			  "memory.reclaim not used to enforce tier-0 budgets: %s: %s",
			  k->ks->s[TIERD_KSETTING_DEMOTION_ENABLED].path, strerror(-r));
	else
		tierd_log(k->log, TIERD_LOG_WARNING,
			  "memory.reclaim not used to enforce tier-0 budgets: demotion_enabled is false and tierd.json sets manage_demotion false");
	k->demotion_warned = true;
	return false;
}

/* An ended reclaim: what each cgroup gave up of tier 0, accounted and
 * logged. */
static void finish_reclaim(struct tierd_kernel_actuator *k, uint64_t ran_usec)
{
	const struct tierd_reclaim_job *job = &k->reclaim_job;
	size_t left = 0;

	for (size_t i = 0; i < job->nr; i++)
		left += !job->items[i].ran;
	k->reclaim_stats.jobs++;
	k->reclaim_stats.last_usec = ran_usec;
	if (ran_usec > k->reclaim_stats.max_usec)
		k->reclaim_stats.max_usec = ran_usec;
	/* Only the deadline leaves items not run. */
	if (left) {
		k->reclaim_stats.deadline_hits++;
		tierd_log(k->log, TIERD_LOG_INFO,
			  "memory.reclaim: %zu of %zu cgroups left at the deadline for a later tick",
			  left, job->nr);
	}
	for (size_t i = 0; i < job->nr; i++) {
		const struct tierd_reclaim_item *it = &job->items[i];

		if (!it->ran)
			continue;
		tierd_migration_account(k->stats, TIERD_PATH_MEMORY_RECLAIM, it->bytes, it->moved,
					0, job->topo.nr_tiers > 1 ? 1 : 0);
		if (it->r < 0 && it->r != -EAGAIN)
			log_cgroup(k,
				   outcome_level(k, it->cgroup_id, TIERD_RECLAIM_FAILED,
						 TIERD_LOG_WARNING),
				   "reclaim-failed", it->path, it->bytes,
				   "memory.reclaim of %s failed: %s", it->path, strerror(-it->r));
		else
			log_cgroup(k,
				   outcome_level(k, it->cgroup_id,
						 it->r == -EAGAIN || it->moved < it->bytes
							 ? TIERD_RECLAIM_SHORT
							 : TIERD_RECLAIM_GAVE_UP,
						 TIERD_LOG_INFO),
				   "reclaimed", it->path, it->moved,
				   "memory.reclaim of %s: asked %llu bytes, tier 0 gave up %llu%s",
				   it->path, (unsigned long long)it->bytes,
				   (unsigned long long)it->moved,
				   it->r == -EAGAIN ? " (the kernel reclaimed less than asked)" : "");
	}
	tierd_reclaim_job_clear(&k->reclaim_job);
}

/* Runs the job: on the worker, or at once without one. */
static void start_reclaim(struct tierd_kernel_actuator *k)
{
	uint64_t t0, ran_usec;
	int r;

	if (k->reclaim_worker.started) {
		r = tierd_kernel_worker_submit(&k->reclaim_worker, tierd_reclaim_job_run,
					       &k->reclaim_job);
		if (r == 0)
			return;
		tierd_log(k->log, TIERD_LOG_ERR, "memory.reclaim not started: %s", strerror(-r));
		tierd_reclaim_job_clear(&k->reclaim_job);
		return;
	}
	t0 = tierd_clock_usec(CLOCK_MONOTONIC);
	tierd_reclaim_job_run(&k->reclaim_job);
	ran_usec = tierd_clock_usec(CLOCK_MONOTONIC) - t0;
	k->wait_usec += ran_usec;
	finish_reclaim(k, ran_usec);
}

/* Budget enforcement by memory.reclaim, where DAMOS cannot do it. */
static void reclaim_fallback(struct tierd_kernel_actuator *k, const struct tierd_actuation *a,
			     bool reaped)
{
	bool damon = k->damon->view.state.damon == TIERD_DAMON_RUNNING;

	/* DAMON is still at the last plan (a kdamond migrating): reclaim
	 * would do what DAMON is doing. */
	if (damon && !k->damon->fresh)
		return;
	/* A reclaim that ended during this tick may have ended after its
	 * cgroups were read: their over-max bytes are the next tick's to
	 * trust. */
	if (reaped)
		return;
	if (tierd_kernel_worker_busy(&k->reclaim_worker)) {
		k->reclaim_stats.busy_ticks++;
		tierd_log(k->log, TIERD_LOG_DEBUG,
			  "memory.reclaim: the last job still runs; this tick's reclaims wait");
		return;
	}
	tierd_reclaim_job_init(&k->reclaim_job, k->fs, a->in->topo, k->log,
			       tierd_clock_usec(CLOCK_MONOTONIC) +
				       a->tick_usec / TIERD_KERNEL_DEADLINE_DIVISOR);
	for (size_t c = 0; c < a->in->nr_cgroups; c++) {
		uint64_t planned = 0;

		if (damon && over_ticks(k, a->in->cgroups[c].obs->id) < TIERD_RECLAIM_FALLBACK_TICKS)
			continue;
		/* Within the migration budget: what the engine planned out of tier 0. */
		for (size_t i = 0; i < a->plan->nr_actions; i++) {
			const struct tierd_action *act = &a->plan->actions[i];

			if (act->cgroup == c && act->reason == TIERD_REASON_OVER_TIER_MAX &&
			    act->from_tier == 0)
				planned += act->bytes;
		}
		if (!planned || !demotion_ready(k))
			continue;
		if (tierd_reclaim_job_add(&k->reclaim_job, a->in->cgroups[c].obs, planned) < 0) {
			tierd_log(k->log, TIERD_LOG_ERR, "out of memory planning memory.reclaim");
			break;
		}
	}
	if (k->reclaim_job.nr)
		start_reclaim(k);
}

uint64_t tierd_damos_tick_bytes(const struct tierd_migration_budget *global, uint64_t tick_usec)
{
	uint64_t bytes;

	if (!global->period_usec)
		return UINT64_MAX;
	bytes = tierd_page_down((uint64_t)((unsigned __int128)global->bytes * tick_usec /
					   global->period_usec));
	return bytes ? bytes : TIERD_PAGE_BYTES;
}

/* Action act cut to `room` bytes of cost: a DEMOTE's bytes, a MIGRATE's
 * range from its start. */
static struct tierd_action cut(const struct tierd_action *act, uint64_t room)
{
	struct tierd_action part = *act;

	if (part.kind == TIERD_ACTION_MIGRATE) {
		part.end = part.start + room;
		part.bytes = tierd_min_u64(part.bytes, room);
	} else {
		part.bytes = room;
	}
	return part;
}

/* Records that plan action i leaves `cost` for a later tick. False
 * without memory for the record: then the action goes whole, unpaced. */
static bool leave(struct tierd_kernel_actuator *k, size_t nr_actions, size_t i, uint64_t cost)
{
	if (!k->left_cost)
		k->left_cost = calloc(nr_actions, sizeof(*k->left_cost));
	if (!k->left_cost)
		return false;
	k->left_cost[i] = cost;
	k->paced_bytes += cost;
	return true;
}

static void apply(void *data, const struct tierd_actuation *a)
{
	struct tierd_kernel_actuator *k = data;
	const struct tierd_engine_input *in = a->in;
	struct tierd_damos_span *spans = NULL;
	const char **paths = NULL;
	uint64_t *ids = NULL, ran_usec = 0;
	uint64_t used[TIERD_MAX_TIERS] = { 0 };
	uint64_t cap = k->paced ? tierd_damos_tick_bytes(&in->global_budget, a->tick_usec)
				: UINT64_MAX;
	size_t nr = 0;
	bool reaped;

	k->wait_usec = 0;
	k->damon_skipped = false;
	k->sampled_skipped = false;
	free(k->left_cost);
	k->left_cost = NULL;
	if (count_over(k, a) < 0)
		tierd_log(k->log, TIERD_LOG_ERR, "out of memory counting over-budget ticks");
	reaped = tierd_kernel_worker_reap(&k->reclaim_worker, &ran_usec);
	if (reaped)
		finish_reclaim(k, ran_usec);
	if (k->damon->view.state.damon == TIERD_DAMON_RUNNING) {
		spans = calloc(TIERD_ACTUATOR_MAX_SPANS, sizeof(*spans));
		paths = calloc(in->nr_cgroups + 1, sizeof(*paths));
		ids = calloc(in->nr_cgroups + 1, sizeof(*ids));
		if (!spans || !paths || !ids) {
			tierd_log(k->log, TIERD_LOG_ERR, "out of memory planning DAMOS migrations");
			goto out;
		}
		for (size_t c = 0; c < in->nr_cgroups; c++) {
			paths[c] = in->cgroups[c].obs->path;
			ids[c] = in->cgroups[c].obs->id;
		}
		for (size_t i = 0; i < a->plan->nr_actions && nr < TIERD_ACTUATOR_MAX_SPANS; i++) {
			const struct tierd_action *act = &a->plan->actions[i];
			struct tierd_action part = *act;
			uint64_t cost = tierd_action_cost(act), room;
			size_t t = tierd_min_u64(act->from_tier, TIERD_MAX_TIERS - 1);
			int r;

			/* Sampled pages: move_pages's, below. */
			if (tierd_action_is_sampled(act))
				continue;
			room = cap > used[t] ? tierd_page_down(cap - used[t]) : 0;
			if (cost > room && leave(k, a->plan->nr_actions, i, cost - room)) {
				if (!room)
					continue;
				part = cut(act, room);
				cost = room;
			}
			used[t] += cost;
			r = tierd_damos_spans_after(&part, in->cgroups[act->cgroup].hot, spans, nr,
						    spans + nr, TIERD_ACTUATOR_MAX_SPANS - nr);
			if (r == -E2BIG)
				nr = TIERD_ACTUATOR_MAX_SPANS;
			else if (r > 0)
				nr += (size_t)r;
		}
		uint64_t t0 = tierd_clock_usec(CLOCK_MONOTONIC);

		k->damon_skipped = !tierd_damon_async_apply(k->damon, in->topo, spans, nr, paths,
							    ids, in->nr_cgroups, a->period_usec,
							    k->log);
		k->wait_usec += tierd_clock_usec(CLOCK_MONOTONIC) - t0;
	}
	if (k->bpf)
		k->sampled_skipped = !tierd_bpf_backend_promote(k->bpf, in, a->plan, a->tick_usec);
	reclaim_fallback(k, a, reaped);
out:
	free(ids);
	free(paths);
	free(spans);
}

const struct tierd_actuator_ops tierd_kernel_actuator_ops = {
	.name = "kernel",
	.apply = apply,
};

int tierd_kernel_actuator_start(struct tierd_kernel_actuator *k)
{
	k->paced = true;
	return tierd_kernel_worker_start(&k->reclaim_worker);
}

void tierd_kernel_actuator_free(struct tierd_kernel_actuator *k)
{
	uint64_t ran_usec = 0;

	tierd_kernel_worker_wait(&k->reclaim_worker);
	if (tierd_kernel_worker_reap(&k->reclaim_worker, &ran_usec))
		finish_reclaim(k, ran_usec);
	tierd_kernel_worker_stop(&k->reclaim_worker);
	tierd_reclaim_job_clear(&k->reclaim_job);
	free(k->over);
	k->over = NULL;
	k->nr_over = 0;
	free(k->left_cost);
	k->left_cost = NULL;
}
