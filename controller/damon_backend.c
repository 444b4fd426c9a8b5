/* tierd's DAMON backend; see damon_backend.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damon_backend.h"
#include "physmem.h"
#include "../policy/strategy.h"
#include "../policy/units.h"
#include "../policy/util.h"


static void set_mode(struct tierd_damon_backend *b, enum tierd_damon_mode mode, const char *why)
{
	size_t n = why ? strnlen(why, sizeof(b->state.damon_why) - 1) : 0;

	b->state.damon = mode;
	memcpy(b->state.damon_why, why ? why : "", n);
	b->state.damon_why[n] = '\0';
}

/* DAMON is not used for good: why, "<what failed>: <strerror>", is kept
 * as the backend's reason. */
static void not_used(struct tierd_damon_backend *b, const char *what, int r,
		     const struct tierd_logger *log)
{
	char why[TIERD_ERR_MAX];

	snprintf(why, sizeof(why), "%s: %s", what, strerror(-r));
	set_mode(b, TIERD_DAMON_FAILED, why);
	tierd_log_ev(log, TIERD_LOG_ERR, "damon-failed", NULL, NULL, -1, 0, "DAMON not used: %s",
		     why);
}

/* Every tier's physical ranges, from its nodes' memory blocks. */
static int read_layout(const char *root, const struct tierd_topology *topo,
		       struct tierd_damon_layout *layout, const struct tierd_logger *log)
{
	struct tierd_phys_range ranges[TIERD_DAMON_MAX_REGIONS];

	memset(layout, 0, sizeof(*layout));
	if (topo->nr_tiers > TIERD_DAMON_MAX_CONTEXTS)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -E2BIG,
				       "%zu tiers, DAMON backend handles at most %d",
				       topo->nr_tiers, TIERD_DAMON_MAX_CONTEXTS);
	layout->nr_tiers = topo->nr_tiers;
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct tierd_node *n = &topo->nodes[i];
		struct tierd_damon_tier_layout *t;
		size_t nr = 0;
		int r;

		if (n->tier < 0 || (size_t)n->tier >= topo->nr_tiers)
			continue;
		t = &layout->tiers[n->tier];
		r = tierd_physmem_node_ranges(root, n->nid, ranges, TIERD_ARRAY_SIZE(ranges), &nr,
					      log);
		if (r < 0)
			return r;
		if (t->nr_ranges + nr > TIERD_DAMON_MAX_REGIONS)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -E2BIG,
					       "tier %d: more than %d physical ranges", n->tier,
					       TIERD_DAMON_MAX_REGIONS);
		for (size_t k = 0; k < nr; k++)
			t->ranges[t->nr_ranges++] =
				(struct tierd_damon_region){ ranges[k].start, ranges[k].end };
	}
	for (size_t t = 0; t < layout->nr_tiers; t++) {
		struct tierd_damon_tier_layout *tl = &layout->tiers[t];

		if (tl->nr_ranges == 0)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOENT,
					       "tier %zu: its nodes have no memory blocks", t);
		/* DAMON wants a target's regions sorted and disjoint. */
		for (size_t i = 1; i < tl->nr_ranges; i++)
			for (size_t j = i; j > 0 && tl->ranges[j].start < tl->ranges[j - 1].start; j--) {
				struct tierd_damon_region tmp = tl->ranges[j];

				tl->ranges[j] = tl->ranges[j - 1];
				tl->ranges[j - 1] = tmp;
			}
	}
	return 0;
}

/* Starts tierd's kdamonds from b->spec. A busy DAMON sysfs (-EAGAIN) is
 * tried again by a tick's collect, on a backoff from
 * TIERD_DAMON_RETRY_MIN_USEC (now_usec: monotonic); someone else's
 * kdamonds (-EBUSY) mean degraded mode for good. */
static void start_kdamonds(struct tierd_damon_backend *b, unsigned busy_retries, uint64_t now_usec,
			   const struct tierd_logger *log)
{
	struct tierd_log_keep keep;
	char why[TIERD_ERR_MAX];
	int r = 0;

	/* A failed start whose clean-up failed too (sysfs busy: seen on 6.12)
	 * left tierd's own kdamonds behind, some perhaps still on: removed
	 * first, or this start would take them for someone else's and give
	 * DAMON up for good. The retry's warning says which write failed. */
	if (b->kd.nr_kdamonds && tierd_damon_stop(&b->kd, tierd_log_keep(&keep, log)) < 0)
		r = -EAGAIN;
	if (r == 0)
		r = tierd_damon_start(b->root, b->spec, busy_retries, &b->kd,
				      tierd_log_keep(&keep, log));
	b->start_pending = r == -EAGAIN;
	if (r == -EBUSY || r == -EAGAIN)
		snprintf(why, sizeof(why), "kdamonds not started: %s", tierd_log_kept(&keep, r));
	if (r == -EBUSY && b->kd.nr_foreign)
		snprintf(why, sizeof(why),
			 "%s/kdamonds/nr_kdamonds is %" PRIu64 ": DAMON is in use by someone else; tierd leaves those kdamonds alone and runs without DAMON",
			 b->kd.admin, b->kd.nr_foreign);
	if (r == -EBUSY) {
		set_mode(b, TIERD_DAMON_DEGRADED, why);
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-degraded", NULL, NULL, -1, 0,
			  "DAMON not used: %s", why);
	} else if (r == -EAGAIN) {
		b->retry_backoff_usec = b->retry_backoff_usec == 0 ? TIERD_DAMON_RETRY_MIN_USEC
					: b->retry_backoff_usec * 2 > TIERD_DAMON_RETRY_MAX_USEC
						? TIERD_DAMON_RETRY_MAX_USEC
						: b->retry_backoff_usec * 2;
		b->retry_usec = now_usec + b->retry_backoff_usec;
		set_mode(b, TIERD_DAMON_FAILED, why);
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-failed", NULL, NULL, -1, 0,
			  "DAMON not started yet, trying again in %llu s: %s",
			  (unsigned long long)(b->retry_backoff_usec / TIERD_USEC_PER_SEC), why);
	} else if (r < 0) {
		not_used(b, "kdamonds not started", r, log);
	} else {
		set_mode(b, TIERD_DAMON_RUNNING, NULL);
		b->retry_backoff_usec = 0;
		memset(b->applied_base, 0, sizeof(b->applied_base));
		b->state.nr_kdamonds = b->kd.nr_kdamonds;
		tierd_log_ev(log, TIERD_LOG_INFO, "damon-started", NULL, NULL, -1, 0,
			  "DAMON: %zu kdamonds started, one per tier (paddr, stat scheme for hotness, scheme filters in %s)",
			  b->kd.nr_kdamonds,
			  b->features.split_filters ? "core_filters/ and ops_filters/" : "filters/");
	}
}

/* DAMON's modules (damon_modules.h) before tierd's kdamonds: returns
 * whether tierd may start them; when not, b->state says why. */
static bool settle_modules(struct tierd_damon_backend *b, bool stop_damon_stat,
			   const struct tierd_logger *log)
{
	struct tierd_damon_modules *m = &b->modules;
	const char *stat_param = m->param[TIERD_DAMON_MODULE_STAT];
	char why[TIERD_ERR_MAX];
	enum tierd_damon_module conflict;
	bool was_stopped;
	int r;

	r = tierd_damon_modules_probe(m, b->root, log);
	if (r < 0) {
		not_used(b, "DAMON's module parameters could not be read", r, log);
		return false;
	}
	was_stopped = m->stat_stopped;
	/* A tierd that died turned DAMON_STAT off; "leave" wants it back now. */
	if (was_stopped && !stop_damon_stat) {
		r = tierd_damon_modules_restore(m, log);
		if (r < 0)
			tierd_log_ev(log, TIERD_LOG_ERR, "damon-stat-restore-failed", NULL, NULL, -1, 0,
				  "DAMON_STAT, turned off by a tierd that did not exit cleanly, could not be turned on again: %s",
				  strerror(-r));
		else
			tierd_log_ev(log, TIERD_LOG_NOTICE, "damon-stat-restored", NULL, NULL, -1, 0,
				  "DAMON_STAT, turned off by a tierd that did not exit cleanly, turned on again (\"damon_stat\": \"leave\" in tierd.json)");
	}
	conflict = tierd_damon_modules_conflict(m, !stop_damon_stat);
	if (conflict != TIERD_DAMON_MODULE_COUNT) {
		snprintf(why, sizeof(why), "%s is enabled (%s is Y)%s",
			 tierd_damon_module_name(conflict), m->param[conflict],
			 conflict == TIERD_DAMON_MODULE_STAT
				 ? " and \"damon_stat\": \"leave\" in tierd.json keeps it; its kdamond excludes tierd's"
				 : "; it moves pages by its own rules and its kdamond excludes tierd's; tierd never turns it off");
		set_mode(b, TIERD_DAMON_DEGRADED, why);
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-degraded", NULL, NULL, -1, 0,
			  "DAMON not used: %s; budgets go through memory.reclaim", why);
		return false;
	}
	if (m->enabled[TIERD_DAMON_MODULE_STAT]) {
		r = tierd_damon_modules_stop_stat(m, log);
		if (r < 0) {
			snprintf(why, sizeof(why), "DAMON_STAT could not be turned off: %s",
				 strerror(-r));
			set_mode(b, TIERD_DAMON_DEGRADED, why);
			tierd_log_ev(log, TIERD_LOG_WARNING, "damon-degraded", NULL, NULL, -1, 0,
				  "DAMON not used: %s; budgets go through memory.reclaim", why);
			return false;
		}
		tierd_log_ev(log, TIERD_LOG_NOTICE, "damon-stat-stopped", NULL, NULL, -1, 0,
			  "DAMON_STAT turned off while tierd runs (%s was Y; its kdamond excludes tierd's; recorded in %s); turned on again at exit",
			  stat_param, m->record);
	} else if (was_stopped) {
		tierd_log_ev(log, TIERD_LOG_NOTICE, "damon-stat-stopped", NULL, NULL, -1, 0,
			  "DAMON_STAT was left off by a tierd that did not exit cleanly (%s); turned on again at exit",
			  m->record);
	}
	return true;
}

void tierd_damon_backend_start(struct tierd_damon_backend *b, const char *root,
			       const struct tierd_topology *topo, bool stop_damon_stat,
			       const struct tierd_logger *log)
{
	char why[TIERD_ERR_MAX];
	int r;

	memset(b, 0, sizeof(*b));
	snprintf(b->root, sizeof(b->root), "%s", root ? root : "/");
	r = tierd_damon_probe(root, &b->features, log);
	/* Beside someone else's kdamond without schemes the per-scheme files
	 * cannot be looked at (probed false): starting tells then (-EBUSY). */
	if (r < 0 || !b->features.present || !b->features.op_paddr ||
	    (b->features.probed && !b->features.target_nid)) {
		if (r < 0)
			snprintf(why, sizeof(why),
				 "DAMON's sysfs interface could not be probed: %s", strerror(-r));
		else
			snprintf(why, sizeof(why), "%s",
				 !b->features.present ? "the kernel has no DAMON sysfs interface (CONFIG_DAMON_SYSFS)"
				 : !b->features.op_paddr ? "DAMON has no paddr operations (CONFIG_DAMON_PADDR)"
							  : "DAMOS has no target_nid (migrate_hot/migrate_cold need Linux 6.11+)");
		set_mode(b, r == -EBUSY ? TIERD_DAMON_DEGRADED : TIERD_DAMON_ABSENT, why);
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-unavailable", NULL, NULL, -1, 0,
			  "DAMON not used: %s; tierd runs without DAMON monitoring and DAMOS migrations",
			  why);
		return;
	}
	if (!settle_modules(b, stop_damon_stat, log))
		return;
	b->spec = calloc(1, sizeof(*b->spec));
	b->batch = calloc(1, sizeof(*b->batch));
	b->slot_cgroup_id = calloc(TIERD_DAMON_MAX_ACTIONS, sizeof(*b->slot_cgroup_id));
	if (!b->spec || !b->batch || !b->slot_cgroup_id) {
		set_mode(b, TIERD_DAMON_FAILED, "out of memory");
		tierd_log_ev(log, TIERD_LOG_ERR, "damon-failed", NULL, NULL, -1, 0,
			  "DAMON not used: out of memory");
		return;
	}
	r = read_layout(root, topo, &b->layout, log);
	if (r < 0) {
		not_used(b, "the tiers' physical address ranges could not be read", r, log);
		return;
	}
	r = tierd_damon_build(&b->layout, topo, NULL, 0, NULL, b->spec, b->batch, log);
	if (r < 0) {
		not_used(b, "the kdamonds' configuration could not be built", r, log);
		return;
	}
	start_kdamonds(b, TIERD_DAMON_BUSY_RETRIES, 0, log);
}

/* Removes kdamond k's action slots from batch (and their cgroup ids, kept
 * in step, when given). */
static void drop_slots(struct tierd_damos_batch *batch, uint64_t *cgroup_ids, size_t k)
{
	for (size_t i = 0; i < batch->nr_slots;) {
		if (batch->slots[i].ctx != k) {
			i++;
			continue;
		}
		batch->slots[i] = batch->slots[--batch->nr_slots];
		if (cgroup_ids)
			cgroup_ids[i] = cgroup_ids[batch->nr_slots];
	}
}

/* Kernel schemes from index nr of kdamond k on are gone after a commit of
 * nr schemes; one a later commit adds counts from 0. */
static void schemes_committed(struct tierd_damon_backend *b, size_t k, size_t nr)
{
	for (size_t s = nr; s < TIERD_DAMON_MAX_SCHEMES; s++)
		b->applied_base[k][s] = 0;
}

/* Turns kdamond k on again with the configuration in force, or, when that
 * is refused (a cgroup of an action scheme is gone), with its stat scheme
 * alone. */
static void restart(struct tierd_damon_backend *b, size_t k, const char *why,
		    const struct tierd_logger *log)
{
	int r;

	r = tierd_damon_restart(&b->kd, b->spec, k, log);
	if (r < 0) {
		struct tierd_damon_ctx_spec *ctx = &b->spec->contexts[k];

		/* Its action schemes go; their slots are dropped from the batch. */
		ctx->nr_schemes = 1;
		drop_slots(b->batch, b->slot_cgroup_id, k);
		r = tierd_damon_restart(&b->kd, b->spec, k, log);
	}
	/* A kdamond turned on has new schemes, counting from 0. */
	schemes_committed(b, k, 0);
	b->state.kdamond_restarts++;
	if (r < 0)
		tierd_log_ev(log, TIERD_LOG_ERR, "kdamond-restart-failed", NULL, NULL, -1, 0,
			  "DAMON: kdamond %zu (tier %zu) %s and could not be turned on again: %s", k,
			  k, why, strerror(-r));
	else
		tierd_log_ev(log, TIERD_LOG_WARNING, "kdamond-restarted", NULL, NULL, -1, 0,
			  "DAMON: kdamond %zu (tier %zu) %s; turned on again", k, k, why);
}

/* Stops kdamond k's action schemes until this tick's plan replaces them:
 * the plan is made from this tick's observation, and schemes still moving
 * pages after it would move them twice over (seen in the VM: a budget
 * overshot by what the old schemes moved meanwhile). They stay, with an
 * access pattern no region matches (larger than any region, more accesses
 * than samples), so that their counters, read after this commit, hold
 * everything they moved: removing them before the last read lost what
 * they moved in between. Returns 0 or -errno. */
static int quiesce(struct tierd_damon_backend *b, size_t k, const struct tierd_logger *log)
{
	struct tierd_damon_ctx_spec *ctx = &b->spec->contexts[k];
	int r;

	for (size_t s = TIERD_DAMON_STAT_SCHEME + 1; s < ctx->nr_schemes; s++) {
		struct tierd_damon_scheme_spec *sc = &ctx->schemes[s];

		sc->sz_min = sc->sz_max = TIERD_DAMON_SZ_UNLIMITED;
		sc->nr_accesses_min = sc->nr_accesses_max = TIERD_DAMON_NR_UNLIMITED;
	}
	r = tierd_damon_commit_ctx(&b->kd, b->spec, k, log);
	if (r < 0)
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-commit-failed", NULL, NULL, -1, 0,
			  "DAMON: kdamond %zu (tier %zu): stopping last tick's migrations: %s", k, k,
			  strerror(-r));
	return r;
}

/* A debug line on tier k's new reading; summed only when it is logged. */
static void log_reading(const struct tierd_logger *log, size_t k,
			const struct tierd_region *regions, size_t n)
{
	uint32_t hottest = 0;
	uint64_t accessed = 0;

	if (log->level < TIERD_LOG_DEBUG)
		return;
	for (size_t i = 0; i < n; i++) {
		if (regions[i].nr_accesses > hottest)
			hottest = regions[i].nr_accesses;
		if (regions[i].nr_accesses)
			accessed += regions[i].end - regions[i].start;
	}
	tierd_log(log, TIERD_LOG_DEBUG,
		  "DAMON: tier %zu: %zu regions, %llu bytes seen accessed, hottest %u of %u samples",
		  k, n, (unsigned long long)accessed, hottest, n ? regions[0].max_accesses : 0);
}

static void read_regions(struct tierd_damon_backend *b, size_t k, uint64_t now_usec,
			 const struct tierd_logger *log)
{
	const struct tierd_damon_ctx_spec *ctx = &b->spec->contexts[k];
	struct tierd_damon_tried_region *tried = NULL;
	struct tierd_region *regions = NULL;
	int n;

	tried = calloc(TIERD_DAMON_READ_REGIONS, sizeof(*tried));
	regions = calloc(TIERD_DAMON_READ_REGIONS, sizeof(*regions));
	if (!tried || !regions) {
		tierd_log_ev(log, TIERD_LOG_ERR, "damon-read-failed", NULL, NULL, -1, 0,
			  "DAMON: tier %zu regions not read: out of memory", k);
		goto out;
	}
	n = tierd_damon_read_tried_regions(&b->kd, k, TIERD_DAMON_STAT_SCHEME, tried,
					   TIERD_DAMON_READ_REGIONS, log);
	if (n < 0) {
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-read-failed", NULL, NULL, -1, 0,
			  "DAMON: tier %zu regions not read, last reading kept: %s", k,
			  strerror(-n));
		goto out;
	}
	for (int i = 0; i < n; i++)
		regions[i] = (struct tierd_region){
			.start = tried[i].start,
			.end = tried[i].end,
			.tier = (int)k,
			.nr_accesses = tried[i].nr_accesses,
			.max_accesses = (uint32_t)(ctx->aggr_us / ctx->sample_us),
			.age = tried[i].age,
			.aggr_usec = ctx->aggr_us,
		};
	log_reading(log, k, regions, (size_t)n);
	free(b->regions[k]);
	b->regions[k] = regions;
	regions = NULL;
	b->nr_regions[k] = (size_t)n;
	b->read_usec[k] = now_usec;
out:
	free(regions);
	free(tried);
}

/* Reads the action schemes' sz_applied into stats and moved[] and removes
 * the schemes (quiesce). Returns how many entries moved[] got. */
static size_t account(struct tierd_damon_backend *b, struct tierd_migration_stats *stats,
		      struct tierd_damon_moved *moved, const struct tierd_logger *log)
{
	struct tierd_damon_scheme_stats st[TIERD_DAMON_MAX_SCHEMES];
	size_t nr_moved = 0;
	int r;

	for (size_t k = 0; k < b->kd.nr_kdamonds; k++) {
		const struct tierd_damon_ctx_spec *ctx = &b->spec->contexts[k];

		if (ctx->nr_schemes <= 1)
			continue;
		/* A refused commit (6.12) stopped the kdamond and its counters
		 * with it: collect restarts it next tick. */
		if (quiesce(b, k, log) < 0)
			continue;
		r = tierd_damon_read_stats(&b->kd, k, st, ctx->nr_schemes, log);
		if (r < 0) {
			tierd_log_ev(log, TIERD_LOG_WARNING, "damon-read-failed", NULL, NULL, -1, 0,
				  "DAMON: kdamond %zu (tier %zu): its schemes' stats not read: %s",
				  k, k, strerror(-r));
			continue;
		}
		for (size_t i = 0; i < b->batch->nr_slots; i++) {
			const struct tierd_damos_slot *sl = &b->batch->slots[i];
			uint64_t now, base, got;

			if (sl->ctx != k)
				continue;
			now = st[sl->scheme].sz_applied;
			base = b->applied_base[k][sl->scheme];
			/* Below the base: the counter started again from 0. */
			got = now >= base ? now - base : now;
			tierd_log(log, TIERD_LOG_DEBUG,
				  "DAMON: kdamond %zu scheme %zu: %llu of %llu bytes moved (tried %llu regions, %llu bytes)",
				  k, sl->scheme, (unsigned long long)got,
				  (unsigned long long)sl->planned_bytes,
				  (unsigned long long)st[sl->scheme].nr_tried,
				  (unsigned long long)st[sl->scheme].sz_tried);
			tierd_migration_account(stats, sl->path, sl->planned_bytes, got, sl->from_tier,
						sl->to_tier);
			moved[nr_moved++] = (struct tierd_damon_moved){
				.cgroup_id = b->slot_cgroup_id[i],
				.promotion = sl->path == TIERD_PATH_DAMOS_MIGRATE_HOT,
				.planned_bytes = sl->planned_bytes,
				.moved_bytes = got,
			};
		}
		for (size_t s = 0; s < ctx->nr_schemes; s++)
			b->applied_base[k][s] = st[s].sz_applied;
	}
	/* Accounted: the same schemes are not counted again. */
	b->batch->nr_slots = 0;
	return nr_moved;
}

size_t tierd_damon_backend_collect(struct tierd_damon_backend *b, uint64_t now_usec,
				   struct tierd_migration_stats *stats,
				   struct tierd_damon_moved *moved, const struct tierd_logger *log)
{
	size_t nr_moved;
	int r;

	if (b->start_pending && now_usec >= b->retry_usec)
		start_kdamonds(b, TIERD_DAMON_TICK_BUSY_RETRIES, now_usec, log);
	if (b->state.damon != TIERD_DAMON_RUNNING)
		return 0;
	for (size_t k = 0; k < b->kd.nr_kdamonds; k++) {
		bool on = false;

		r = tierd_damon_is_on(&b->kd, k, &on, log);
		if (r < 0) {
			tierd_log_ev(log, TIERD_LOG_WARNING, "damon-read-failed", NULL, NULL, -1, 0,
				  "DAMON: kdamond %zu (tier %zu): its state not read: %s", k, k,
				  strerror(-r));
			continue;
		}
		if (!on)
			restart(b, k, "was turned off (by someone else, or a rejected commit)", log);
	}
	nr_moved = account(b, stats, moved, log);
	for (size_t k = 0; k < b->kd.nr_kdamonds; k++)
		if (!b->regions[k] || now_usec - b->read_usec[k] >= b->period_usec[k])
			read_regions(b, k, now_usec, log);
	return nr_moved;
}

static bool same_context(const struct tierd_damon_ctx_spec *a, const struct tierd_damon_ctx_spec *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

void tierd_damon_backend_apply(struct tierd_damon_backend *b, const struct tierd_topology *topo,
			       const struct tierd_damos_span *spans, size_t nr_spans,
			       const char *const *memcg_paths, const uint64_t *cgroup_ids,
			       const uint64_t *period_usec, const struct tierd_logger *log)
{
	struct tierd_damon_spec *next = NULL;
	struct tierd_damos_batch *batch = NULL;
	int r;

	if (b->state.damon != TIERD_DAMON_RUNNING)
		return;
	next = calloc(1, sizeof(*next));
	batch = calloc(1, sizeof(*batch));
	if (!next || !batch) {
		tierd_log_ev(log, TIERD_LOG_ERR, "damon-commit-failed", NULL, NULL, -1, 0,
			  "DAMON: out of memory");
		goto out;
	}
	for (size_t t = 0; t < b->layout.nr_tiers; t++) {
		b->period_usec[t] = period_usec[t];
		b->layout.tiers[t].aggr_us = tierd_profile_aggr_usec(period_usec[t]);
	}
	r = tierd_damon_build(&b->layout, topo, spans, nr_spans, memcg_paths, next, batch, log);
	if (r < 0) {
		tierd_log_ev(log, TIERD_LOG_ERR, "damon-commit-failed", NULL, NULL, -1, 0,
			  "DAMON: this tick's schemes not built: %s", strerror(-r));
		goto out;
	}
	if (batch->nr_deferred)
		tierd_log(log, TIERD_LOG_DEBUG,
			  "DAMON: %zu migration spans (%llu bytes) wait for a free scheme slot",
			  batch->nr_deferred, (unsigned long long)batch->deferred_bytes);
	for (size_t k = 0; k < b->kd.nr_kdamonds; k++) {
		bool on = false;

		if (same_context(&next->contexts[k], &b->spec->contexts[k]))
			continue;
		r = tierd_damon_commit_ctx(&b->kd, next, k, log);
		if (r == 0) {
			schemes_committed(b, k, next->contexts[k].nr_schemes);
			continue;
		}
		tierd_log_ev(log, TIERD_LOG_WARNING, "damon-commit-failed", NULL, NULL, -1, 0,
			  "DAMON: kdamond %zu (tier %zu): commit refused: %s", k, k, strerror(-r));
		next->contexts[k].nr_schemes = 1;
		drop_slots(batch, NULL, k);
		/* Kernels differ (docs/damon-modules.md): 6.12 takes the write
		 * and stops the kdamond, which collect turns on again next tick
		 * with the stat scheme alone; 7.3 refuses the write and keeps
		 * the kdamond on under its old schemes, which go now. */
		if (tierd_damon_is_on(&b->kd, k, &on, log) == 0 && on) {
			r = tierd_damon_commit_ctx(&b->kd, next, k, log);
			if (r < 0)
				tierd_log_ev(log, TIERD_LOG_WARNING, "damon-commit-failed", NULL, NULL, -1, 0,
					  "DAMON: kdamond %zu (tier %zu): its stat scheme alone refused too: %s",
					  k, k, strerror(-r));
			else
				schemes_committed(b, k, 1);
		}
	}
	for (size_t i = 0; i < batch->nr_slots; i++) {
		const struct tierd_damos_slot *sl = &batch->slots[i];
		const struct tierd_damon_scheme_spec *sc = &next->contexts[sl->ctx].schemes[sl->scheme];

		b->slot_cgroup_id[i] = cgroup_ids[sl->cgroup];
		tierd_log(log, TIERD_LOG_DEBUG,
			  "DAMON: kdamond %zu scheme %zu: %s of %s in [0x%llx, 0x%llx) to node %d, %llu bytes planned",
			  sl->ctx, sl->scheme, tierd_damon_action_name(sc->action), sc->memcg_path,
			  (unsigned long long)sc->addr_start, (unsigned long long)sc->addr_end,
			  sc->target_nid, (unsigned long long)sl->planned_bytes);
	}
	memcpy(b->spec, next, sizeof(*next));
	memcpy(b->batch, batch, sizeof(*batch));
out:
	free(batch);
	free(next);
}

void tierd_damon_backend_stop(struct tierd_damon_backend *b, const struct tierd_logger *log)
{
	bool was_stopped = b->modules.stat_stopped;
	int r;

	if (b->state.damon == TIERD_DAMON_RUNNING) {
		r = tierd_damon_stop(&b->kd, log);
		if (r < 0)
			tierd_log_ev(log, TIERD_LOG_WARNING, "damon-stop-failed", NULL, NULL, -1, 0,
				  "DAMON: stopping tierd's kdamonds: %s", strerror(-r));
		else
			tierd_log_ev(log, TIERD_LOG_INFO, "damon-stopped", NULL, NULL, -1, 0,
				  "DAMON: tierd's kdamonds turned off and removed");
	}
	/* After tierd's kdamonds: DAMON_STAT's start is exclusive. */
	r = tierd_damon_modules_restore(&b->modules, log);
	if (r < 0)
		tierd_log_ev(log, TIERD_LOG_ERR, "damon-stat-restore-failed", NULL, NULL, -1, 0,
			  "DAMON_STAT could not be turned on again (the record stays for the next tierd): %s",
			  strerror(-r));
	else if (b->modules.enabled[TIERD_DAMON_MODULE_STAT] && was_stopped)
		tierd_log_ev(log, TIERD_LOG_NOTICE, "damon-stat-restored", NULL, NULL, -1, 0,
			  "DAMON_STAT turned on again");
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++)
		free(b->regions[t]);
	free(b->slot_cgroup_id);
	free(b->batch);
	free(b->spec);
	memset(b, 0, sizeof(*b));
}
