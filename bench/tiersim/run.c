/* One simulated run: the tick loop between the workload, the samplers, the
 * engine and the page map. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../policy/cold_spans.h"
#include "../../policy/engine.h"
#include "../../policy/snapshot.h"
#include "../../policy/strategy_hmmv.h"
#include "oracle.h"
#include "run.h"
#include "stats.h"

#define PMY_ONE 10000u
/* Cgroup ids start here: any unique value would do; 1 is the root's. */
#define CGROUP_ID_BASE 1000u
/* Streams drawn from the seed for each cgroup's DAMON sampler. */
#define DAMON_STREAM_BASE 0x64616d6f6e000000ull /* "damon" */

void tiersim_run_config_defaults(struct tiersim_run_config *cfg)
{
	static const uint32_t ratio[] = { 1, 1, 2, 2 };
	static const uint32_t lat[] = { TIERSIM_LAT_LOCAL_DRAM_NS, TIERSIM_LAT_REMOTE_DRAM_NS,
					TIERSIM_LAT_LOCAL_PMEM_NS, TIERSIM_LAT_REMOTE_PMEM_NS };

	memset(cfg, 0, sizeof(*cfg));
	cfg->workload.kind = TIERSIM_WL_GUPS;
	cfg->workload.scale = 1.0;
	cfg->workload.duration_usec = TIERSIM_DEFAULT_DURATION_USEC;
	cfg->workload.seed = 1;
	cfg->nr_tiers = 4;
	for (size_t t = 0; t < 4; t++) {
		cfg->ratio[t] = ratio[t];
		cfg->read_ns[t] = lat[t];
		cfg->write_ns[t] = lat[t];
	}
	cfg->headroom_pmy = TIERSIM_HEADROOM_PMY;
	cfg->strategy = TIERD_STRATEGY_NONE;
	cfg->sharing = TIERD_SHARING_ISLAND;
	cfg->tick_usec = TIERSIM_TICK_USEC;
	cfg->budget_pmy = TIERSIM_BUDGET_PMY_PER_TICK;
	tiersim_damon_config_defaults(&cfg->damon);
	tiersim_fault_config_defaults(&cfg->fault);
}

int tiersim_tier_specs(const struct tiersim_run_config *cfg, uint64_t footprint_pages,
		       struct tiersim_tier_spec *ret)
{
	uint64_t sum = 0, total, assigned = 0;

	if (!cfg->nr_tiers || cfg->nr_tiers > TIERSIM_MAX_TIERS)
		return -EINVAL;
	for (size_t t = 0; t < cfg->nr_tiers; t++)
		sum += cfg->ratio[t];
	if (!sum)
		return -EINVAL;
	total = footprint_pages + footprint_pages * cfg->headroom_pmy / PMY_ONE;
	for (size_t t = 0; t < cfg->nr_tiers; t++) {
		ret[t] = (struct tiersim_tier_spec){
			.capacity_pages = total * cfg->ratio[t] / sum,
			.read_ns = cfg->read_ns[t],
			.write_ns = cfg->write_ns[t],
		};
		assigned += ret[t].capacity_pages;
	}
	ret[cfg->nr_tiers - 1].capacity_pages += total - assigned;
	return 0;
}

size_t tiersim_run_ticks(const struct tiersim_workload *w, uint64_t tick_usec)
{
	uint64_t n = (w->duration_usec + tick_usec - 1) / tick_usec;

	return n ? (size_t)n : 1;
}

void tiersim_ratio_format(const struct tiersim_run_config *cfg, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t t = 0; t < cfg->nr_tiers && len < size; t++) {
		int n = snprintf(buf + len, size - len, "%s%u", t ? ":" : "", cfg->ratio[t]);

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

int tiersim_ratio_parse(const char *text, struct tiersim_run_config *cfg)
{
	size_t n = 0;
	const char *p = text;

	while (*p) {
		char *end;
		unsigned long v;

		if (n == TIERSIM_MAX_TIERS || *p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > 1000000)
			return -EINVAL;
		cfg->ratio[n++] = (uint32_t)v;
		if (*end == ':')
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	if (!n)
		return -EINVAL;
	cfg->nr_tiers = n;
	return 0;
}

/* Spans DEMOTE actions took, so a later one picks other memory. */
struct tiersim_taken {
	struct tierd_cold_span *spans;
	size_t nr, cap;
};

/* What the simulator keeps per cgroup. */
struct cgroup_sim {
	/* One DAMON-like context per tier, as the daemon's per-tier kdamonds. */
	struct tiersim_damon damon[TIERSIM_MAX_TIERS];
	struct tierd_region *regions;        /* what the engine gets: every tier's */
	size_t regions_cap;
	struct tiersim_fault fault;
	struct tierd_cgroup_obs obs;
	struct tierd_hotness hot;
	struct tierd_feedback feedback;      /* last tick's, handed to the engine */
	struct tierd_feedback next_feedback; /* this tick's, being counted */
	uint64_t promoted_pages, demoted_pages, hint_faults;
	bool period_started;
	uint64_t period_start_usec, period_bytes;
};

struct sim {
	const struct tiersim_run_config *cfg;
	const struct tiersim_oracle *oracle;
	struct tiersim_result *res;
	struct tiersim_workload *w;
	struct tiersim_machine *m;
	struct tierd_engine *engine;
	size_t nr_cgroups;
	struct cgroup_sim *cg;
	struct tierd_policy *policies;
	struct tierd_engine_cgroup *ecg;
	struct tierd_topology topo;
	uint64_t budget_bytes;
	struct tiersim_tick *tick;
	/* This tick's DEMOTE spans per (cgroup, source tier). */
	struct tiersim_taken *taken;
};

static void build_topology(struct sim *s)
{
	struct tierd_topology *topo = &s->topo;

	memset(topo, 0, sizeof(*topo));
	topo->source = TIERD_TIERS_CONFIG;
	topo->nr_nodes = s->m->nr_tiers;
	topo->nr_tiers = s->m->nr_tiers;
	/* One node per tier, nid = tier index. */
	for (size_t t = 0; t < s->m->nr_tiers; t++) {
		const struct tiersim_tier_spec *spec = &s->m->tiers[t];
		uint64_t total = spec->capacity_pages * TIERSIM_PAGE_BYTES;
		uint64_t free_bytes = (spec->capacity_pages - s->m->used_pages[t]) * TIERSIM_PAGE_BYTES;
		struct tierd_node *node = &topo->nodes[t];
		struct tierd_tier *tier = &topo->tiers[t];

		node->nid = (int)t;
		node->tier = (int)t;
		node->total_bytes = total;
		node->free_bytes = free_bytes;
		node->has_hmat = true;
		node->read_latency_ns = spec->read_ns;
		node->write_latency_ns = spec->write_ns;
		tier->kernel_id = (int)t;
		tierd_nodeset_clear(&tier->nodes);
		(void)tierd_nodeset_add(&tier->nodes, (int)t);
		tier->total_bytes = total;
		tier->free_bytes = free_bytes;
		tier->read_latency_ns = spec->read_ns;
	}
}

static void build_obs(struct sim *s, size_t c)
{
	struct cgroup_sim *cg = &s->cg[c];
	const struct tiersim_space *sp = &s->m->spaces[c];
	struct tierd_cgroup_obs *obs = &cg->obs;
	uint64_t total = 0;

	for (size_t t = 0; t < s->m->nr_tiers; t++) {
		obs->anon_bytes[t] = sp->tier_pages[t] * TIERSIM_PAGE_BYTES;
		total += obs->anon_bytes[t];
	}
	obs->current_bytes = total;
	obs->stat.present = 1u << TIERD_MEMSTAT_anon | 1u << TIERD_MEMSTAT_pgpromote_success |
			    1u << TIERD_MEMSTAT_pgdemote_proactive |
			    1u << TIERD_MEMSTAT_numa_hint_faults;
	obs->stat.value[TIERD_MEMSTAT_anon] = total;
	obs->stat.value[TIERD_MEMSTAT_pgpromote_success] = cg->promoted_pages;
	obs->stat.value[TIERD_MEMSTAT_pgdemote_proactive] = cg->demoted_pages;
	obs->stat.value[TIERD_MEMSTAT_numa_hint_faults] = cg->hint_faults;
}

static void count_move(struct sim *s, size_t c, bool promotion, int r)
{
	struct cgroup_sim *cg = &s->cg[c];
	struct tiersim_tick *tk = s->tick;

	if (promotion) {
		s->res->promote_attempts++;
		if (r == 0) {
			tk->promoted_pages++;
			cg->promoted_pages++;
			cg->next_feedback.promoted_bytes += TIERSIM_PAGE_BYTES;
		} else {
			s->res->promote_failed++;
			tk->promote_failed_pages++;
			cg->next_feedback.promote_failed_bytes += TIERSIM_PAGE_BYTES;
		}
	} else {
		s->res->demote_attempts++;
		if (r == 0) {
			tk->demoted_pages++;
			cg->demoted_pages++;
			cg->next_feedback.demoted_bytes += TIERSIM_PAGE_BYTES;
		} else {
			s->res->demote_failed++;
			tk->demote_failed_pages++;
			cg->next_feedback.demote_failed_bytes += TIERSIM_PAGE_BYTES;
		}
	}
	if (r == 0) {
		s->res->migrated_pages++;
		cg->period_bytes += TIERSIM_PAGE_BYTES;
	}
}

static void move_page(struct sim *s, size_t c, uint64_t p, size_t to)
{
	int from = s->m->spaces[c].pages[p].tier;

	if (from < 0 || (size_t)from == to)
		return;
	count_move(s, c, to < (size_t)from, tiersim_machine_move(s->m, c, p, to));
}

/* Moves the pages of [start, end) in cgroup c's space to tier `to`. A
 * range in a tier's reported space (a DAMON region's run) moves only the
 * cgroup's pages on that tier, as a paddr range with a memcg filter does:
 * in the frames layout those in the range's frames, else those of the
 * range of its space; a virtual range (a sampled page) moves its page. */
static void move_range(struct sim *s, size_t c, uint64_t start, uint64_t end, size_t to)
{
	struct tiersim_space *sp = &s->m->spaces[c];
	uint64_t base = sp->base_addr, first, last, nr = sp->nr_pages;
	size_t only = SIZE_MAX;
	bool frames = false;

	if (start >= tiersim_damon_tier_base(sp->base_addr, 0) &&
	    start < tiersim_damon_tier_base(sp->base_addr, s->m->nr_tiers)) {
		only = (size_t)((start - sp->base_addr) / TIERSIM_DAMON_TIER_STRIDE_ADDR) - 1;
		base = tiersim_damon_tier_base(sp->base_addr, only);
		frames = s->cfg->layout == TIERSIM_LAYOUT_FRAMES;
		if (frames)
			nr = s->m->tiers[only].capacity_pages;
	}
	if (end <= base || start >= end)
		return;
	first = start > base ? (start - base) / TIERSIM_PAGE_BYTES : 0;
	last = (end - base + TIERSIM_PAGE_BYTES - 1) / TIERSIM_PAGE_BYTES;
	if (last > nr)
		last = nr;
	/* A page moved out of a frame frees it, and a later move into this
	 * tier may take it: those are past this range's. */
	for (uint64_t i = first; i < last; i++) {
		if (frames && s->m->frames[only][i].space == (int32_t)c)
			move_page(s, c, s->m->frames[only][i].page, to);
		else if (!frames && (only == SIZE_MAX || sp->pages[i].tier == (int)only))
			move_page(s, c, i, to);
	}
}

/* The sub-tick of an access `since` usec into a tick of `tick` usec. */
static unsigned lru_subtick(uint64_t since, uint64_t tick)
{
	uint64_t sub = since * TIERSIM_LRU_SUBTICKS / tick;

	return sub < TIERSIM_LRU_SUBTICKS ? (unsigned)sub : TIERSIM_LRU_SUBTICKS - 1;
}

/* The kernel's kswapd (the linux model's watermark demotion) takes the
 * LRU's coldest pages; every other DEMOTE is carried as the daemon carries
 * it, by migrate_cold schemes over the cgroup's coldest regions
 * (policy/cold_spans.h), past what its earlier demotions out of the same
 * tier this tick took. */
static int demote(struct sim *s, const struct tierd_action *a)
{
	size_t c = a->cgroup, got;
	struct tiersim_taken *tk;
	int r;

	if (a->reason == TIERD_REASON_WATERMARK_DEMOTION) {
		uint64_t moved, failed;

		r = tiersim_machine_demote_lru(s->m, c, a->from_tier, a->to_tier,
					       a->bytes / TIERSIM_PAGE_BYTES, &moved, &failed);
		if (r < 0)
			return r;
		for (uint64_t i = 0; i < moved; i++)
			count_move(s, c, a->to_tier < a->from_tier, 0);
		for (uint64_t i = 0; i < failed; i++)
			count_move(s, c, a->to_tier < a->from_tier, -ENOSPC);
		return 0;
	}
	tk = &s->taken[c * TIERSIM_MAX_TIERS + a->from_tier];
	if (tk->nr + s->cg[c].hot.nr_regions > tk->cap) {
		size_t cap = (tk->nr + s->cg[c].hot.nr_regions) * 2;
		struct tierd_cold_span *grown = realloc(tk->spans, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		tk->spans = grown;
		tk->cap = cap;
	}
	r = tierd_cold_spans(&s->cg[c].hot, a->from_tier, a->bytes, tk->spans, tk->nr,
			     tk->spans + tk->nr, tk->cap - tk->nr);
	if (r < 0)
		return r;
	got = (size_t)r;
	for (size_t i = 0; i < got; i++)
		move_range(s, c, tk->spans[tk->nr + i].start, tk->spans[tk->nr + i].end, a->to_tier);
	tk->nr += got;
	return 0;
}

/* Carries out one action of the plan against the page map. */
static int execute(struct sim *s, const struct tierd_action *a)
{
	if (a->cgroup >= s->nr_cgroups || a->to_tier >= s->m->nr_tiers ||
	    a->from_tier >= s->m->nr_tiers)
		return 0;
	if (a->kind == TIERD_ACTION_MIGRATE) {
		move_range(s, a->cgroup, a->start, a->end, a->to_tier);
		return 0;
	}
	return demote(s, a);
}

/* What a cgroup moved within one budget period, to check against its
 * budget. The engine's budgets are token buckets (policy/budget_bucket.h);
 * tiersim's period is one tick, so each tick finds its bucket full again
 * and the moves of one period are those of one tick. */
static void budget_period(struct sim *s, size_t c, uint64_t now)
{
	struct cgroup_sim *cg = &s->cg[c];
	uint64_t period = s->policies[c].migration_budget.period_usec;

	if (!cg->period_started || now - cg->period_start_usec >= period) {
		cg->period_started = true;
		cg->period_start_usec = now;
		cg->period_bytes = 0;
	}
}

/* HMM-V's sampler hooks (policy/strategy_hmmv.h), asked about each region
 * for the monitoring window the next observe() stands for. */
struct hmmv_filter {
	const void *state;
	uint64_t window;
};

static bool hmmv_should_sample(const void *ctx, uint64_t start_addr)
{
	const struct hmmv_filter *f = ctx;

	return tierd_hmmv_should_sample(f->state, start_addr, f->window);
}

static bool sample_none(const void *ctx, uint64_t start_addr)
{
	(void)ctx;
	(void)start_addr;
	return false;
}

/* The regions the cgroup's sampler samples this tick. Only HMM-V
 * leaves some out: those in their do-not-disturb time, and all of them while
 * its clock switch has tracking off (HMM-V §3.2).
 * They are still reported, frozen as they were: HMM-V forgets a region left
 * out of its input, and counts one in do-not-disturb time at its last
 * degree whatever it reports. */
static void filter_regions(struct sim *s, size_t c, uint64_t now)
{
	struct cgroup_sim *cg = &s->cg[c];
	enum tierd_strategy which;
	const void *state = tierd_engine_strategy_state(s->engine, cg->obs.id, &which);
	struct hmmv_filter f;
	bool on;

	if (!state || which != TIERD_STRATEGY_HMMV)
		return;
	on = tierd_hmmv_tracking_on(state);
	f = (struct hmmv_filter){ .state = state, .window = tierd_hmmv_window(state) };
	for (size_t t = 0; t < s->m->nr_tiers; t++)
		tiersim_damon_filter(&cg->damon[t], &s->m->spaces[c],
				     on ? hmmv_should_sample : sample_none, on ? &f : NULL, now);
}

/* Every tier's runs, in tier order: disjoint and sorted, as the tiers'
 * reported spaces are; each tier's regions as the daemon last read them.
 * Returns 0 or -ENOMEM. */
static int gather_regions(struct sim *s, size_t c, uint64_t now)
{
	struct cgroup_sim *cg = &s->cg[c];
	size_t n = 0;

	for (size_t t = 0; t < s->m->nr_tiers; t++) {
		const struct tierd_region *runs;
		size_t nr;
		int r;

		tiersim_damon_read(&cg->damon[t], now);
		r = tiersim_damon_regions(&cg->damon[t], &s->m->spaces[c], &runs, &nr);

		if (r < 0)
			return r;
		if (n + nr > cg->regions_cap) {
			size_t cap = (n + nr) * 2;
			struct tierd_region *grown = realloc(cg->regions, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			cg->regions = grown;
			cg->regions_cap = cap;
		}
		if (nr)
			memcpy(cg->regions + n, runs, nr * sizeof(*runs));
		n += nr;
	}
	cg->hot.regions = cg->regions;
	cg->hot.nr_regions = n;
	return 0;
}

static int engine_tick(struct sim *s, uint64_t now)
{
	struct tierd_engine_input in = {
		.now_usec = now,
		.topo = &s->topo,
		.global_budget = { .bytes = s->budget_bytes * s->nr_cgroups,
				   .period_usec = s->cfg->tick_usec },
		.nr_cgroups = s->nr_cgroups,
		.cgroups = s->ecg,
	};
	struct tierd_plan plan;
	int r;

	build_topology(s);
	for (size_t c = 0; c < s->nr_cgroups; c++) {
		struct cgroup_sim *cg = &s->cg[c];

		build_obs(s, c);
		r = gather_regions(s, c, now);
		if (r < 0)
			return r;
		for (size_t i = 0; i < cg->hot.nr_regions; i++) {
			s->tick->region_reads += cg->hot.regions[i].reads;
			s->tick->region_writes += cg->hot.regions[i].writes;
		}
		cg->hot.samples = cg->fault.samples;
		cg->hot.nr_samples = cg->fault.nr;
		s->tick->nr_regions += cg->hot.nr_regions;
		s->tick->fault_samples += cg->fault.nr;
		budget_period(s, c, now);
	}
	r = tierd_engine_plan(s->engine, &in, &plan);
	if (r < 0)
		return r;
	for (size_t c = 0; c < s->nr_cgroups; c++) {
		memset(&s->cg[c].next_feedback, 0, sizeof(s->cg[c].next_feedback));
		if (plan.standings[c].strategy_error && !s->res->strategy_error)
			s->res->strategy_error = plan.standings[c].strategy_error;
	}
	s->res->planned_bytes += plan.planned_bytes;
	s->res->clipped_bytes += plan.clipped_bytes;
	s->tick->nr_actions = plan.nr_actions;
	for (size_t i = 0; i < s->nr_cgroups * TIERSIM_MAX_TIERS; i++)
		s->taken[i].nr = 0;
	for (size_t i = 0; r == 0 && i < plan.nr_actions; i++)
		r = execute(s, &plan.actions[i]);
	tierd_plan_free(&plan);
	if (r < 0)
		return r;
	for (size_t c = 0; c < s->nr_cgroups; c++) {
		struct cgroup_sim *cg = &s->cg[c];
		uint64_t interval[TIERD_MAX_TIERS];

		cg->feedback = cg->next_feedback;
		for (size_t t = 0; t < s->m->nr_tiers; t++)
			tiersim_damon_reindex(&cg->damon[t], &s->m->spaces[c]);
		if (cg->period_bytes > s->res->max_period_bytes)
			s->res->max_period_bytes = cg->period_bytes;
		if (cg->period_bytes > s->budget_bytes)
			s->res->budget_violations++;
		tiersim_fault_clear(&cg->fault);
		/* Mole's tier-specific profiling periods, for the next tick. */
		tierd_engine_profile(s->engine, cg->obs.id, &s->topo, interval);
		for (size_t t = 0; t < s->m->nr_tiers; t++)
			tiersim_damon_set_intervals(&cg->damon[t], interval);
	}
	return 0;
}

/* The DAMON-like samplers' checks made and saved so far, all cgroups. */
static void sampler_work(const struct sim *s, uint64_t *ret_checks, uint64_t *ret_skipped)
{
	*ret_checks = *ret_skipped = 0;
	for (size_t c = 0; c < s->nr_cgroups; c++)
		for (size_t t = 0; t < s->m->nr_tiers; t++) {
			*ret_checks += s->cg[c].damon[t].checks;
			*ret_skipped += s->cg[c].damon[t].skipped_checks;
		}
}

static void check(struct sim *s)
{
	char msg[256];

	if (tiersim_machine_check(s->m, msg, sizeof(msg)) == 0)
		return;
	if (!s->res->invariant_violations)
		snprintf(s->res->first_violation, sizeof(s->res->first_violation), "%s", msg);
	s->res->invariant_violations++;
}

static int sim_setup(struct sim *s, char *err, size_t err_size)
{
	const struct tiersim_run_config *cfg = s->cfg;
	struct tiersim_tier_spec tiers[TIERSIM_MAX_TIERS];
	uint64_t footprint, max_prefault = 0;
	int r;

	r = tiersim_workload_new(&cfg->workload, &s->w, err, err_size);
	if (r < 0)
		return r;
	footprint = tiersim_workload_footprint(s->w);
	if (tiersim_tier_specs(cfg, footprint, tiers) < 0) {
		snprintf(err, err_size, "ratio: expected 1 to %d parts, not all 0", TIERSIM_MAX_TIERS);
		return -EINVAL;
	}
	r = tiersim_machine_new(tiers, cfg->nr_tiers, s->w->pages, s->w->nr_cgroups, &s->m);
	if (r < 0) {
		snprintf(err, err_size, "machine: %s", strerror(-r));
		return r;
	}
	s->nr_cgroups = s->w->nr_cgroups;
	s->cg = calloc(s->nr_cgroups, sizeof(*s->cg));
	s->policies = calloc(s->nr_cgroups, sizeof(*s->policies));
	s->ecg = calloc(s->nr_cgroups, sizeof(*s->ecg));
	s->taken = calloc(s->nr_cgroups * TIERSIM_MAX_TIERS, sizeof(*s->taken));
	if (!s->cg || !s->policies || !s->ecg || !s->taken)
		return -ENOMEM;
	r = tierd_engine_new(&s->engine);
	if (r < 0)
		return r;
	s->budget_bytes = footprint * cfg->budget_pmy / PMY_ONE / s->nr_cgroups *
			  TIERSIM_PAGE_BYTES;
	for (size_t c = 0; c < s->nr_cgroups; c++) {
		struct cgroup_sim *cg = &s->cg[c];
		struct tierd_policy *p = &s->policies[c];
		const struct tiersim_space *sp = &s->m->spaces[c];
		bool frames = cfg->layout == TIERSIM_LAYOUT_FRAMES;

		for (size_t t = 0; t < cfg->nr_tiers; t++) {
			r = tiersim_damon_init(&cg->damon[t], &cfg->damon,
					       frames ? s->m->tiers[t].capacity_pages : sp->nr_pages,
					       tiersim_damon_tier_base(sp->base_addr, t), (int)t,
					       cfg->workload.seed,
					       DAMON_STREAM_BASE + c * TIERSIM_MAX_TIERS + t);
			if (r < 0) {
				snprintf(err, err_size, "damon: %s", strerror(-r));
				return r;
			}
			if (frames)
				tiersim_damon_use_frames(&cg->damon[t], s->m->frames[t], (int32_t)c);
		}
		r = tiersim_fault_init(&cg->fault, &cfg->fault, sp->base_addr);
		if (r < 0) {
			snprintf(err, err_size, "fault sampler: %s", strerror(-r));
			return r;
		}
		if (s->w->kind == TIERSIM_WL_TRACE)
			snprintf(cg->obs.path, sizeof(cg->obs.path), "/tiersim.slice/%s",
				 s->w->cgroup_names[c]);
		else
			snprintf(cg->obs.path, sizeof(cg->obs.path), "/tiersim.slice/cg%zu.scope", c);
		cg->obs.id = CGROUP_ID_BASE + c;

		snprintf(p->name, sizeof(p->name), "tiersim-%s", tierd_strategy_name(cfg->strategy));
		p->strategy = cfg->strategy;
		p->sharing = s->nr_cgroups > 1 ? cfg->sharing : TIERD_SHARING_ISLAND;
		p->has_migration_budget = true;
		p->migration_budget.bytes = s->budget_bytes;
		p->migration_budget.period_usec = cfg->tick_usec;
		/* Island: a fixed equal share of tier 0 as its max (HMM-V §3.4).
		 * Pool: no max; the engine starts each member from an equal split
		 * and moves shares by measured need. */
		if (s->nr_cgroups > 1 && p->sharing == TIERD_SHARING_ISLAND) {
			p->nr_tiers = 1;
			p->tiers[0].selector = TIERD_SELECT_INDEX;
			p->tiers[0].index = 0;
			p->tiers[0].max.kind = TIERD_AMOUNT_BYTES;
			p->tiers[0].max.bytes = tiers[0].capacity_pages / s->nr_cgroups *
						TIERSIM_PAGE_BYTES;
		}
		s->ecg[c] = (struct tierd_engine_cgroup){
			.obs = &cg->obs, .policy = p, .hot = &cg->hot, .feedback = &cg->feedback,
		};
	}
	s->res->budget_bytes = s->budget_bytes;
	/* Initialisation: each cgroup touches its prefix in address order, the
	 * cgroups interleaved as tenants starting together would. */
	for (size_t c = 0; c < s->nr_cgroups; c++)
		if (s->w->prefault_pages[c] > max_prefault)
			max_prefault = s->w->prefault_pages[c];
	for (uint64_t p = 0; p < max_prefault; p++) {
		for (size_t c = 0; c < s->nr_cgroups; c++) {
			struct tiersim_space *sp = &s->m->spaces[c];

			if (p < s->w->prefault_pages[c] && sp->pages[p].tier < 0)
				(void)tiersim_machine_alloc(s->m, sp, &sp->pages[p]);
		}
	}
	return 0;
}

static void sim_teardown(struct sim *s)
{
	if (s->cg)
		for (size_t c = 0; c < s->nr_cgroups; c++) {
			for (size_t t = 0; t < TIERSIM_MAX_TIERS; t++)
				tiersim_damon_free(&s->cg[c].damon[t]);
			free(s->cg[c].regions);
			tiersim_fault_free(&s->cg[c].fault);
		}
	free(s->cg);
	free(s->policies);
	free(s->ecg);
	if (s->taken)
		for (size_t i = 0; i < s->nr_cgroups * TIERSIM_MAX_TIERS; i++)
			free(s->taken[i].spans);
	free(s->taken);
	tierd_engine_free(s->engine);
	tiersim_machine_free(s->m);
	tiersim_workload_free(s->w);
}

void tiersim_result_free(struct tiersim_result *r)
{
	free(r->ticks);
	r->ticks = NULL;
	r->nr_ticks = 0;
}

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static void finish(struct sim *s)
{
	struct tiersim_result *res = s->res;
	double hot_sum = 0;
	size_t hot_n = 0;

	for (size_t k = 0; k < res->nr_ticks; k++) {
		const struct tiersim_tick *tk = &res->ticks[k];

		res->accesses += tk->accesses;
		res->latency_ns += tk->latency_ns;
		if (tk->hot_accesses) {
			double f = (double)tk->tier0_accesses / (double)tk->hot_accesses;

			hot_sum += f;
			hot_n++;
			res->hot_frac_last = f;
		}
	}
	res->hot_frac_mean = hot_n ? hot_sum / (double)hot_n : 0;
	res->migrated_bytes = res->migrated_pages * TIERSIM_PAGE_BYTES;
	res->migration_ms = (double)res->migrated_pages * TIERSIM_MIGRATE_PAGE_NS / 1e6;
	if (res->accesses) {
		res->mean_ns = (double)res->latency_ns / (double)res->accesses;
		res->mean_ns_mig = ((double)res->latency_ns +
				    (double)res->migrated_pages * TIERSIM_MIGRATE_PAGE_NS) /
				   (double)res->accesses;
	}
	if (s->oracle && s->oracle->accesses) {
		res->oracle_ns = s->oracle->mean_ns;
		res->static_ns = s->oracle->static_mean_ns;
		res->x_oracle = res->oracle_ns > 0 ? res->mean_ns / res->oracle_ns : 0;
		res->x_static = res->static_ns > 0 ? res->mean_ns / res->static_ns : 0;
		res->causal_ns = s->oracle->causal_mean_ns;
		res->x_causal = res->causal_ns > 0 ? res->mean_ns / res->causal_ns : 0;
	}
	res->alloc_failed_pages = s->m->alloc_failed_pages;
	for (size_t c = 0; c < s->nr_cgroups; c++) {
		res->fault_samples += s->cg[c].fault.total;
		res->fault_dropped += s->cg[c].fault.dropped;
		for (size_t t = 0; t < s->m->nr_tiers; t++) {
			res->damon_checks += s->cg[c].damon[t].checks;
			res->damon_skipped_checks += s->cg[c].damon[t].skipped_checks;
			res->damon_skipped_regions += s->cg[c].damon[t].skipped_regions;
		}
		tiersim_strategy_stats(s->engine, &s->cg[c].obs.id, 1, res);
	}
}

int tiersim_run(const struct tiersim_run_config *cfg, const struct tiersim_oracle *oracle,
		struct tiersim_result *ret, char *err, size_t err_size)
{
	struct tiersim_result res = { 0 };
	struct sim s = { .cfg = cfg, .oracle = oracle, .res = &res };
	struct timespec t0, t1;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!cfg->tick_usec || cfg->tick_usec % TIERSIM_STEP_USEC) {
		snprintf(err, err_size, "tick: expected a multiple of %llu usec",
			 (unsigned long long)TIERSIM_STEP_USEC);
		return -EINVAL;
	}
	r = sim_setup(&s, err, err_size);
	if (r < 0)
		goto fail;
	snprintf(res.workload, sizeof(res.workload), "%s", tiersim_workload_name(cfg->workload.kind));
	if (s.nr_cgroups > 1)
		snprintf(res.workload, sizeof(res.workload), "%s-%s",
			 tiersim_workload_name(cfg->workload.kind),
			 cfg->sharing == TIERD_SHARING_POOL ? "pool" : "island");
	tiersim_ratio_format(cfg, res.ratio, sizeof(res.ratio));
	snprintf(res.strategy, sizeof(res.strategy), "%s", tierd_strategy_name(cfg->strategy));
	res.seed = cfg->workload.seed;
	res.scale = cfg->workload.scale;
	res.nr_tiers = cfg->nr_tiers;
	res.footprint_pages = tiersim_workload_footprint(s.w);
	for (size_t t = 0; t < cfg->nr_tiers; t++)
		res.capacity_pages[t] = s.m->tiers[t].capacity_pages;
	res.nr_ticks = tiersim_run_ticks(s.w, cfg->tick_usec);
	if (oracle && oracle->nr_ticks != res.nr_ticks) {
		snprintf(err, err_size, "oracle of %zu ticks for a run of %zu", oracle->nr_ticks,
			 res.nr_ticks);
		r = -EINVAL;
		goto fail;
	}
	res.ticks = calloc(res.nr_ticks, sizeof(*res.ticks));
	if (!res.ticks) {
		r = -ENOMEM;
		goto fail;
	}

	for (size_t k = 0; k < res.nr_ticks; k++) {
		struct tiersim_tick *tk = &res.ticks[k];
		uint64_t start = k * cfg->tick_usec, end = start + cfg->tick_usec;
		uint64_t checks0, skipped0, checks, skipped;

		s.tick = tk;
		tk->time_usec = end;
		for (size_t c = 0; c < s.nr_cgroups; c++)
			filter_regions(&s, c, start);
		tiersim_machine_lru_tick(s.m);
		sampler_work(&s, &checks0, &skipped0);
		for (uint64_t step = start + TIERSIM_STEP_USEC; step <= end; step += TIERSIM_STEP_USEC) {
			struct tiersim_access a;

			while (tiersim_workload_next(s.w, step, &a) > 0) {
				struct tiersim_space *sp = &s.m->spaces[a.cgroup];
				struct tiersim_page *pg = &sp->pages[a.page];
				int t = pg->tier;

				if (t < 0) {
					t = tiersim_machine_alloc(s.m, sp, pg);
					if (t < 0)
						continue;
				}
				tk->accesses++;
				tk->latency_ns += a.write ? s.m->tiers[t].write_ns : s.m->tiers[t].read_ns;
				tk->tier0_accesses += t == 0;
				pg->flags |= TIERSIM_PAGE_ACCESSED;
				tiersim_lru_access(pg, lru_subtick(a.time_usec - start, cfg->tick_usec));
				if (a.write)
					pg->flags |= TIERSIM_PAGE_DIRTY;
				if (pg->flags & TIERSIM_PAGE_PROT) {
					tiersim_fault_hit(&s.cg[a.cgroup].fault, sp, a.page, a.time_usec,
							  a.write);
					s.cg[a.cgroup].hint_faults++;
				}
			}
			for (size_t c = 0; c < s.nr_cgroups; c++) {
				r = 0;
				for (size_t t = 0; r == 0 && t < cfg->nr_tiers; t++)
					r = tiersim_damon_step(&s.cg[c].damon[t], &s.m->spaces[c], step);
				if (r < 0)
					goto fail;
				tiersim_fault_step(&s.cg[c].fault, &s.m->spaces[c], step);
			}
		}
		sampler_work(&s, &checks, &skipped);
		tk->damon_checks = checks - checks0;
		tk->damon_skipped_checks = skipped - skipped0;
		if (oracle) {
			tk->oracle_ns = oracle->window_ns[k];
			tk->hot_accesses = oracle->hot_accesses[k];
		}
		for (size_t t = 0; t < cfg->nr_tiers; t++)
			tk->used_pages[t] = s.m->used_pages[t];
		r = engine_tick(&s, end);
		if (r < 0) {
			snprintf(err, err_size, "engine: %s", strerror(-r));
			goto fail;
		}
		if (cfg->check_every_tick || k + 1 == res.nr_ticks)
			check(&s);
	}
	finish(&s);
	sim_teardown(&s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res.wall_ms = elapsed_ms(&t0, &t1);
	*ret = res;
	return 0;
fail:
	sim_teardown(&s);
	tiersim_result_free(&res);
	return r;
}
