/* The trace-driven simulator (bench/tiersim/): its invariants on every run
 * and with every strategy (no page lost or duplicated, no tier over
 * capacity, migrations within the budget, the oracle below everyone),
 * determinism, trace replay, and the machine, DAMON and fault-sampler
 * pieces on their own. Small scale, so it runs in seconds under ASan. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../bench/tiersim/damon.h"
#include "../bench/tiersim/fault.h"
#include "../bench/tiersim/machine.h"
#include "../bench/tiersim/oracle.h"
#include "../bench/tiersim/run.h"
#include "../bench/tiersim/workload.h"

TIERD_TEST_MAIN_COUNTS;

/* 0.03 of the default footprint: ~1000 pages, 6000 accesses a second. */
#define SMALL_SCALE 0.03
#define SMALL_DURATION_USEC (6 * 1000000ull)

static const enum tierd_strategy strategies[] = {
	TIERD_STRATEGY_NONE, TIERD_STRATEGY_LINUX, TIERD_STRATEGY_AUTOTIERING,
	TIERD_STRATEGY_MOLE, TIERD_STRATEGY_MIGFLOW, TIERD_STRATEGY_HMMV,
};
#define NR_STRATEGIES (sizeof(strategies) / sizeof(strategies[0]))

static void small(struct tiersim_run_config *cfg, enum tiersim_workload_kind kind, uint64_t seed)
{
	tiersim_run_config_defaults(cfg);
	cfg->workload.kind = kind;
	cfg->workload.scale = SMALL_SCALE;
	cfg->workload.duration_usec = SMALL_DURATION_USEC;
	cfg->workload.seed = seed;
	cfg->check_every_tick = true;
}

/* Everything a run must hold, whatever the strategy. */
static void check_run(const struct tiersim_run_config *cfg, const struct tiersim_oracle *o,
		      const char *what)
{
	struct tiersim_result res;
	char err[512] = "";
	int r = tiersim_run(cfg, o, &res, err, sizeof(err));

	CHECK_EQ_INT(r, 0);
	if (r < 0) {
		fprintf(stderr, "  %s: %s\n", what, err);
		return;
	}
	if (res.invariant_violations)
		fprintf(stderr, "  %s: %s\n", what, res.first_violation);
	CHECK_EQ_U64(res.invariant_violations, 0);
	CHECK_EQ_U64(res.budget_violations, 0);
	CHECK(res.max_period_bytes <= res.budget_bytes);
	CHECK_EQ_U64(res.alloc_failed_pages, 0);
	CHECK_EQ_INT(res.strategy_error, 0);
	CHECK_EQ_U64(res.accesses, o->accesses);
	CHECK(res.accesses > 0);
	/* The oracle is a lower bound, in every window and over the run. */
	CHECK(o->total_ns <= res.latency_ns);
	for (size_t k = 0; k < res.nr_ticks; k++) {
		if (res.ticks[k].oracle_ns > res.ticks[k].latency_ns) {
			fprintf(stderr, "  %s: tick %zu: oracle %llu > %llu ns\n", what, k,
				(unsigned long long)res.ticks[k].oracle_ns,
				(unsigned long long)res.ticks[k].latency_ns);
			CHECK(false);
			break;
		}
	}
	CHECK(res.hot_frac_mean >= 0 && res.hot_frac_mean <= 1.0 + 1e-9);
	CHECK_EQ_U64(res.migrated_bytes, res.migrated_pages * TIERSIM_PAGE_BYTES);
	/* Without a strategy only a tier budget moves pages: island mode
	 * with several cgroups (multi-tenant, the two-cgroup trace). */
	if (cfg->strategy == TIERD_STRATEGY_NONE &&
	    !((cfg->workload.kind == TIERSIM_WL_MULTI_TENANT ||
	       cfg->workload.kind == TIERSIM_WL_TRACE) && cfg->sharing == TIERD_SHARING_ISLAND)) {
		if (res.migrated_pages)
			fprintf(stderr, "  %s: migrated without a strategy\n", what);
		CHECK_EQ_U64(res.migrated_pages, 0);
	}
	tiersim_result_free(&res);
}

static void test_every_strategy(void)
{
	static const struct {
		enum tiersim_workload_kind kind;
		enum tierd_sharing sharing;
		const char *ratio;
	} cases[] = {
		{ TIERSIM_WL_GUPS, TIERD_SHARING_ISLAND, "1:1:2:2" },
		{ TIERSIM_WL_ZIPF, TIERD_SHARING_ISLAND, "1:1:8:8" },
		{ TIERSIM_WL_ALLOC_BURST, TIERD_SHARING_ISLAND, "1:1:2:2" },
		{ TIERSIM_WL_MULTI_TENANT, TIERD_SHARING_ISLAND, "1:1:2:2" },
		{ TIERSIM_WL_MULTI_TENANT, TIERD_SHARING_POOL, "1:1:8:8" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tiersim_run_config cfg;
		struct tiersim_oracle o;
		char err[512];

		small(&cfg, cases[i].kind, 3);
		cfg.sharing = cases[i].sharing;
		CHECK_EQ_INT(tiersim_ratio_parse(cases[i].ratio, &cfg), 0);
		CHECK_EQ_INT(tiersim_oracle_compute(&cfg, &o, err, sizeof(err)), 0);
		/* Whole-run placement can only lose to per-window placement. */
		CHECK(o.total_ns <= o.static_ns);
		for (size_t s = 0; s < NR_STRATEGIES; s++) {
			char what[96];

			cfg.strategy = strategies[s];
			snprintf(what, sizeof(what), "%s/%s", tiersim_workload_name(cases[i].kind),
				 tierd_strategy_name(strategies[s]));
			check_run(&cfg, &o, what);
		}
		tiersim_oracle_free(&o);
	}
}

static void test_determinism(void)
{
	struct tiersim_run_config cfg;
	struct tiersim_result a, b, c;
	char err[512];

	small(&cfg, TIERSIM_WL_PHASE, 11);
	cfg.strategy = TIERD_STRATEGY_MOLE;
	CHECK_EQ_INT(tiersim_run(&cfg, NULL, &a, err, sizeof(err)), 0);
	CHECK_EQ_INT(tiersim_run(&cfg, NULL, &b, err, sizeof(err)), 0);
	cfg.workload.seed = 12;
	CHECK_EQ_INT(tiersim_run(&cfg, NULL, &c, err, sizeof(err)), 0);

	CHECK_EQ_U64(a.accesses, b.accesses);
	CHECK_EQ_U64(a.latency_ns, b.latency_ns);
	CHECK_EQ_U64(a.migrated_pages, b.migrated_pages);
	CHECK_EQ_U64(a.promote_attempts, b.promote_attempts);
	CHECK_EQ_U64(a.demote_attempts, b.demote_attempts);
	CHECK_EQ_U64(a.s_promote_attempts, b.s_promote_attempts);
	CHECK_EQ_U64(a.fault_samples, b.fault_samples);
	CHECK_EQ_U64(a.planned_bytes, b.planned_bytes);
	CHECK_EQ_U64(a.nr_ticks, b.nr_ticks);
	CHECK(a.nr_ticks == b.nr_ticks &&
	      memcmp(a.ticks, b.ticks, a.nr_ticks * sizeof(*a.ticks)) == 0);
	/* Another seed, another run. */
	CHECK(a.latency_ns != c.latency_ns);
	tiersim_result_free(&a);
	tiersim_result_free(&b);
	tiersim_result_free(&c);
}

/* A small recorded trace: two cgroups, one with a hot range, over 4 s. */
static int write_trace(char *path, size_t size, size_t *ret_lines, uint64_t *ret_pages)
{
	int fd;
	FILE *f;
	uint64_t x = 42;
	bool db_seen[600] = { false }, web_seen[64] = { false };

	snprintf(path, size, "%s/test_tiersim_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fprintf(f, "# time_usec cgroup addr r|w\n\n");
	*ret_lines = 0;
	for (uint64_t t = 0; t < 4000000; t += 200) {
		/* A fixed LCG: the trace is the same on every machine. */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((x >> 33) % 4 == 0) {
			/* "web": 64 pages 8 KiB apart, written sometimes */
			web_seen[(x >> 20) % 64] = true;
			fprintf(f, "%llu web 0x%llx %c\n", (unsigned long long)t,
				(unsigned long long)(0x7f0000000000ull + ((x >> 20) % 64) * 8192),
				(x >> 40) % 3 ? 'r' : 'w');
		} else {
			/* "db": 400 pages, 90% of accesses to the 40 at 0x200000 */
			uint64_t page = (x >> 45) % 10 ? 0x200 + (x >> 20) % 40 : (x >> 20) % 400;

			db_seen[page] = true;
			fprintf(f, "%llu db %llu r\n", (unsigned long long)t,
				(unsigned long long)(page * 4096 + (x >> 50) % 4096));
		}
		(*ret_lines)++;
	}
	*ret_pages = 0;
	for (size_t i = 0; i < 600; i++)
		*ret_pages += db_seen[i];
	for (size_t i = 0; i < 64; i++)
		*ret_pages += web_seen[i];
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

static void test_trace(void)
{
	struct tiersim_run_config cfg;
	struct tiersim_workload *w;
	struct tiersim_oracle o;
	char path[512], err[512], bad[512];
	size_t lines = 0;
	uint64_t pages = 0;
	FILE *f;
	int fd;

	CHECK_EQ_INT(write_trace(path, sizeof(path), &lines, &pages), 0);
	small(&cfg, TIERSIM_WL_TRACE, 5);
	cfg.workload.trace_path = path;
	CHECK_EQ_INT(tiersim_workload_new(&cfg.workload, &w, err, sizeof(err)), 0);
	if (w) {
		CHECK_EQ_U64(w->nr_cgroups, 2);
		CHECK_EQ_STR(w->cgroup_names[0], "db");
		CHECK_EQ_STR(w->cgroup_names[1], "web");
		CHECK_EQ_U64(w->nr_records, lines);
		CHECK_EQ_U64(tiersim_workload_footprint(w), pages);
		CHECK_EQ_U64(w->prefault_pages[0], 0);
		tiersim_workload_free(w);
	}
	CHECK_EQ_INT(tiersim_oracle_compute(&cfg, &o, err, sizeof(err)), 0);
	CHECK_EQ_U64(o.accesses, lines);
	for (size_t s = 0; s < NR_STRATEGIES; s++) {
		char what[64];

		cfg.strategy = strategies[s];
		snprintf(what, sizeof(what), "trace/%s", tierd_strategy_name(strategies[s]));
		check_run(&cfg, &o, what);
	}
	tiersim_oracle_free(&o);
	unlink(path);

	/* A malformed line is refused with its number; time must not go back. */
	snprintf(bad, sizeof(bad), "%s/test_tiersim_bad_XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(bad);
	CHECK(fd >= 0);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return;
	fprintf(f, "10 a 0x1000 r\n20 a 0x2000 x\n");
	fclose(f);
	cfg.workload.trace_path = bad;
	w = NULL;
	CHECK_EQ_INT(tiersim_workload_new(&cfg.workload, &w, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "line 2") != NULL);
	f = fopen(bad, "w");
	if (f) {
		fprintf(f, "20 a 0x1000 r\n10 a 0x2000 w\n");
		fclose(f);
	}
	CHECK_EQ_INT(tiersim_workload_new(&cfg.workload, &w, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "goes back") != NULL);
	unlink(bad);
}

static void test_machine(void)
{
	const struct tiersim_tier_spec tiers[2] = {
		{ .capacity_pages = 2, .read_ns = 80, .write_ns = 80 },
		{ .capacity_pages = 4, .read_ns = 300, .write_ns = 300 },
	};
	const uint64_t pages[1] = { 5 };
	struct tiersim_machine *m = NULL;
	struct tiersim_space *s;
	uint64_t moved, failed, page;
	char err[256];

	CHECK_EQ_INT(tiersim_machine_new(tiers, 2, pages, 1, &m), 0);
	if (!m)
		return;
	s = &m->spaces[0];
	/* First touch falls back by tier order. */
	for (uint64_t p = 0; p < 5; p++) {
		CHECK_EQ_INT(tiersim_machine_alloc(m, s, &s->pages[p]), p < 2 ? 0 : 1);
		s->pages[p].last_usec = 100 - p; /* page 4 the least recently used */
	}
	CHECK_EQ_U64(m->used_pages[0], 2);
	CHECK_EQ_U64(m->used_pages[1], 3);
	CHECK_EQ_INT(tiersim_machine_check(m, err, sizeof(err)), 0);
	/* Into a full tier: fails, nothing moves. */
	CHECK_EQ_INT(tiersim_machine_move(m, 0, 4, 0), -ENOSPC);
	CHECK_EQ_INT(tiersim_machine_move(m, 0, 0, 0), -EALREADY);
	CHECK_EQ_INT(tiersim_machine_move(m, 0, 9, 0), -ENOENT);
	/* LRU demotion takes the least recently used page of tier 0 (page 1). */
	CHECK_EQ_INT(tiersim_machine_demote_lru(m, 0, 0, 1, 1, &moved, &failed), 0);
	CHECK_EQ_U64(moved, 1);
	CHECK_EQ_U64(failed, 0);
	CHECK_EQ_INT(s->pages[1].tier, 1);
	CHECK_EQ_INT(s->pages[0].tier, 0);
	/* Tier 1 is now full (4 of 4): demoting more fails, counted. */
	CHECK_EQ_INT(tiersim_machine_demote_lru(m, 0, 0, 1, 1, &moved, &failed), 0);
	CHECK_EQ_U64(moved, 0);
	CHECK_EQ_U64(failed, 1);
	CHECK_EQ_INT(tiersim_machine_move(m, 0, 4, 0), 0);
	CHECK_EQ_INT(tiersim_machine_check(m, err, sizeof(err)), 0);
	CHECK_EQ_INT(tiersim_machine_page_of(m, 0, s->base_addr + 3 * 4096 + 17, &page), 0);
	CHECK_EQ_U64(page, 3);
	CHECK_EQ_INT(tiersim_machine_page_of(m, 0, s->base_addr + 5 * 4096, &page), -ENOENT);
	/* The check sees a lost page. */
	s->pages[2].tier = -1;
	CHECK_EQ_INT(tiersim_machine_check(m, err, sizeof(err)), -EUCLEAN);
	s->pages[2].tier = 1;
	m->used_pages[1]++;
	CHECK_EQ_INT(tiersim_machine_check(m, err, sizeof(err)), -EUCLEAN);
	tiersim_machine_free(m);
}

static void test_samplers(void)
{
	const struct tiersim_tier_spec tiers[2] = {
		{ .capacity_pages = 1024, .read_ns = 80, .write_ns = 80 },
		{ .capacity_pages = 4096, .read_ns = 300, .write_ns = 300 },
	};
	const uint64_t pages[1] = { 4096 };
	struct tiersim_machine *m = NULL;
	struct tiersim_damon d;
	struct tiersim_damon_config dc;
	struct tiersim_fault f;
	struct tiersim_fault_config fc;
	struct tiersim_rng rng;
	const struct tierd_region *regions;
	size_t nr = 0;
	uint64_t hot_hits = 0, hot_samples = 0, cold_hits = 0, cold_samples = 0, covered = 0;
	bool ordered = true, bounded = true, interval_ok = true, top_spared = true;
	struct tiersim_space *s;

	CHECK_EQ_INT(tiersim_machine_new(tiers, 2, pages, 1, &m), 0);
	if (!m)
		return;
	s = &m->spaces[0];
	for (uint64_t p = 0; p < 4096; p++)
		(void)tiersim_machine_alloc(m, s, &s->pages[p]);
	tiersim_damon_config_defaults(&dc);
	tiersim_fault_config_defaults(&fc);
	CHECK_EQ_INT(tiersim_damon_init(&d, &dc, 4096, s->base_addr, 2, 1, 1), 0);
	CHECK_EQ_INT(tiersim_fault_init(&f, &fc, s->base_addr), 0);
	tiersim_rng_seed(&rng, 1, 2);
	/* Pages [2048, 2560) are touched every millisecond, the rest rarely. */
	for (uint64_t now = 1000; now <= 2000000; now += 1000) {
		for (int i = 0; i < 20; i++) {
			uint64_t p = i < 19 ? 2048 + tiersim_rng_below(&rng, 512)
					    : tiersim_rng_below(&rng, 4096);

			s->pages[p].flags |= TIERSIM_PAGE_ACCESSED;
			if (s->pages[p].flags & TIERSIM_PAGE_PROT)
				tiersim_fault_hit(&f, s, p, now, false);
		}
		CHECK_EQ_INT(tiersim_damon_step(&d, s, now), 0);
		tiersim_fault_step(&f, s, now);
	}
	regions = tiersim_damon_regions(&d, s, &nr);
	CHECK(nr >= 1 && nr <= dc.max_regions);
	for (size_t i = 0; i < nr; i++) {
		const struct tierd_region *r = &regions[i];
		uint64_t first = (r->start - s->base_addr) / 4096;

		if (i && r->start != regions[i - 1].end)
			ordered = false;
		if (r->nr_accesses > r->max_accesses || r->end <= r->start)
			bounded = false;
		covered += (r->end - r->start) / 4096;
		if (first >= 2048 && first < 2560) {
			hot_hits += r->nr_accesses;
			hot_samples += r->max_accesses;
		} else if (first < 1024 || first >= 3072) {
			cold_hits += r->nr_accesses;
			cold_samples += r->max_accesses;
		}
	}
	CHECK(ordered);
	CHECK(bounded);
	CHECK_EQ_U64(covered, 4096);
	CHECK_EQ_U64(regions[0].start, s->base_addr);
	/* DAMON tells the hot range from the cold. */
	CHECK(hot_samples > 0 && cold_samples > 0);
	CHECK(hot_hits * cold_samples > 4 * cold_hits * hot_samples);
	/* Hint faults: only non-top tiers, intervals from the unmap. */
	CHECK(f.total > 0);
	for (size_t i = 0; i < f.nr; i++) {
		if (f.samples[i].interval_usec > f.samples[i].time_usec)
			interval_ok = false;
		if (f.samples[i].tier == 0)
			top_spared = false;
	}
	CHECK(interval_ok);
	CHECK(top_spared);
	tiersim_damon_free(&d);
	tiersim_fault_free(&f);
	tiersim_machine_free(m);
}

static void test_ratio(void)
{
	struct tiersim_run_config cfg;
	struct tiersim_tier_spec specs[TIERSIM_MAX_TIERS];
	char buf[32];

	tiersim_run_config_defaults(&cfg);
	CHECK_EQ_INT(tiersim_ratio_parse("1:1:8:8", &cfg), 0);
	tiersim_ratio_format(&cfg, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "1:1:8:8");
	CHECK_EQ_INT(tiersim_ratio_parse("1:x", &cfg), -EINVAL);
	CHECK_EQ_INT(tiersim_ratio_parse("", &cfg), -EINVAL);
	/* Capacities: the footprint plus headroom, all of it assigned. */
	CHECK_EQ_INT(tiersim_ratio_parse("1:1:2:2", &cfg), 0);
	CHECK_EQ_INT(tiersim_tier_specs(&cfg, 6000, specs), 0);
	CHECK_EQ_U64(specs[0].capacity_pages + specs[1].capacity_pages + specs[2].capacity_pages +
			     specs[3].capacity_pages,
		     6000 + 6000 * TIERSIM_HEADROOM_PMY / 10000);
	CHECK_EQ_U64(specs[0].capacity_pages, 1050);
	CHECK_EQ_INT(specs[3].read_ns, TIERSIM_LAT_REMOTE_PMEM_NS);
}

int main(void)
{
	test_ratio();
	test_machine();
	test_samplers();
	test_every_strategy();
	test_determinism();
	test_trace();
	return tierd_test_finish();
}
