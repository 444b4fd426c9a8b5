/* The Mole strategy: interval buckets at every
 * segment boundary (§4.4), thresholds from capacities (§4.4), profiling
 * periods (§4.3, §5), staging demotion (§4.5.1), targeted promotion with
 * fallback, deferral and retry (§4.5.2), failure counters (§3.1) and params
 * errors. Every expected value is computed by hand in the comments. */
#include "../policy/mole_hist.h"
#include "../policy/strategy_mole.h"
#include "strategy_fixture.h"

TIERD_TEST_MAIN_COUNTS;

#define TH (1024 * MSEC)     /* the default time threshold */
#define TIER_PAGES 1024ull   /* every test tier holds 4 MiB */
#define NR_TIERS 4
#define PLENTY (TIER_PAGES * PAGE)

static const struct tierd_strategy_ops *const ops = &tierd_strategy_mole;

/* ---- fixtures -------------------------------------------------------- */

/* Tiers of TIER_PAGES pages, all free. */
static void topology(struct tierd_topology *topo, size_t nr_tiers)
{
	uint64_t bytes[TIERD_MAX_TIERS];

	for (size_t t = 0; t < nr_tiers; t++)
		bytes[t] = PLENTY;
	fixture_topology(topo, nr_tiers, bytes, bytes, NULL);
}

/* Mole on NR_TIERS tiers with room everywhere and nothing observed. */
static void fixture_init(struct fixture *f, const char *params)
{
	memset(f, 0, sizeof(*f));
	topology(&f->topo, NR_TIERS);
	CHECK_EQ_INT(fixture_start(f, ops, params), 0);
	CHECK_EQ_STR(f->err, "");
}

static void set_room(struct fixture *f, uint64_t p0, uint64_t p1, uint64_t p2, uint64_t p3)
{
	f->in.room_bytes[0] = p0 * PAGE;
	f->in.room_bytes[1] = p1 * PAGE;
	f->in.room_bytes[2] = p2 * PAGE;
	f->in.room_bytes[3] = p3 * PAGE;
}

static void set_hot(struct fixture *f, const struct tierd_region *r, size_t nr_regions,
		    const struct tierd_sample *s, size_t nr_samples)
{
	f->hot = (struct tierd_hotness){ .nr_regions = nr_regions, .regions = r,
					 .nr_samples = nr_samples, .samples = s };
}

/* A region of `pages` pages from page `first`, seen accessed nr times in a
 * window of `window` usec. */
static struct tierd_region accessed(uint64_t first, uint64_t pages, int tier, uint32_t nr,
				    uint64_t window)
{
	return (struct tierd_region){ .start = first * PAGE, .end = (first + pages) * PAGE,
				      .tier = tier, .nr_accesses = nr, .max_accesses = 20,
				      .age = 3, .aggr_usec = window };
}

/* A region not accessed for age + 1 windows. */
static struct tierd_region idle(uint64_t first, uint64_t pages, int tier, uint32_t age,
				uint64_t window)
{
	return (struct tierd_region){ .start = first * PAGE, .end = (first + pages) * PAGE,
				      .tier = tier, .max_accesses = 20, .age = age,
				      .aggr_usec = window };
}

static struct tierd_sample sampled(uint64_t page, int tier, uint64_t interval_usec)
{
	return (struct tierd_sample){ .addr = page * PAGE + 100, .tier = tier,
				      .time_usec = 1, .interval_usec = interval_usec };
}

/* Action i of *out moves `pages` pages from page `first`. */
#define CHECK_PAGES(out, i, reason, from, to, first, pages)                    \
	CHECK_MOVE(out, i, reason, from, to, (first) * PAGE, (pages) * PAGE)

static void check_thresholds(const void *state, int t0, int t1, int t2, int t3)
{
	CHECK_EQ_INT(tierd_mole_threshold(state, 0), t0);
	CHECK_EQ_INT(tierd_mole_threshold(state, 1), t1);
	CHECK_EQ_INT(tierd_mole_threshold(state, 2), t2);
	CHECK_EQ_INT(tierd_mole_threshold(state, 3), t3);
}

/* ---- §4.4 buckets ---------------------------------------------------- */

static void test_buckets(void)
{
	/* log2 of whole ms below T_h: bucket k is [2^(k-1), 2^k) ms. */
	CHECK_EQ_INT(tierd_mole_bucket(0, TH), 0);
	CHECK_EQ_INT(tierd_mole_bucket(999, TH), 0);
	CHECK_EQ_INT(tierd_mole_bucket(1000, TH), 1);
	CHECK_EQ_INT(tierd_mole_bucket(1999, TH), 1);
	CHECK_EQ_INT(tierd_mole_bucket(2000, TH), 2);
	CHECK_EQ_INT(tierd_mole_bucket(3999, TH), 2);
	CHECK_EQ_INT(tierd_mole_bucket(4000, TH), 3);
	CHECK_EQ_INT(tierd_mole_bucket(511999, TH), 9);
	CHECK_EQ_INT(tierd_mole_bucket(512000, TH), 10);
	CHECK_EQ_INT(tierd_mole_bucket(TH - 1, TH), 10);
	/* Linear with step T_h from T_h: 11 + j for [(j + 1) T_h, (j + 2) T_h). */
	CHECK_EQ_INT(tierd_mole_bucket(TH, TH), 11);
	CHECK_EQ_INT(tierd_mole_bucket(2 * TH - 1, TH), 11);
	CHECK_EQ_INT(tierd_mole_bucket(2 * TH, TH), 12);
	CHECK_EQ_INT(tierd_mole_bucket(21 * TH - 1, TH), 30);
	CHECK_EQ_INT(tierd_mole_bucket(21 * TH, TH), 31);
	CHECK_EQ_INT(tierd_mole_bucket(1000 * TH, TH), 31);
	CHECK_EQ_INT(tierd_mole_bucket(UINT64_MAX, TH), 31);
	/* A T_h that is not a power of two ms: the last log bucket is cut
	 * short at T_h (999 ms is still [512, 1024) ms). */
	CHECK_EQ_INT(tierd_mole_bucket(SEC - 1, SEC), 10);
	CHECK_EQ_INT(tierd_mole_bucket(SEC, SEC), 11);
	CHECK_EQ_INT(tierd_mole_bucket(3 * SEC, SEC), 13);
	/* T_h = 1 ms: no log segment but bucket 0, then 1 ms steps. */
	CHECK_EQ_INT(tierd_mole_bucket(999, MSEC), 0);
	CHECK_EQ_INT(tierd_mole_bucket(1000, MSEC), 1);
	CHECK_EQ_INT(tierd_mole_bucket(5999, MSEC), 5);
	/* No threshold: log2 all the way, capped. */
	CHECK_EQ_INT(tierd_mole_bucket(4 * SEC, 0), 12);
	CHECK_EQ_INT(tierd_mole_bucket(UINT64_MAX, 0), 31);
}

/* ---- §4.4 thresholds ------------------------------------------------- */

static void test_thresholds(void)
{
	struct tierd_mole_hist h;
	const uint64_t caps[NR_TIERS] = { 100, 100, 200, 200 };
	const uint64_t no_top[NR_TIERS] = { 0, 100, 200, 200 };
	const uint64_t huge[NR_TIERS] = { 1000, 1000, 1000, 1000 };
	int thr[NR_TIERS];

	/* Buckets over all tiers: b0 50, b3 40, b5 30, b11 100, b20 300;
	 * cumulative 50, 90, 120, 220, 520. */
	tierd_mole_hist_reset(&h, NR_TIERS);
	tierd_mole_hist_add(&h, 0, 0, 50);
	tierd_mole_hist_add(&h, 1, 3, 40);
	tierd_mole_hist_add(&h, 2, 5, 30);
	tierd_mole_hist_add(&h, 3, 11, 60);
	tierd_mole_hist_add(&h, 0, 11, 40);
	tierd_mole_hist_add(&h, 3, 20, 300);
	tierd_mole_hist_add(&h, 4, 0, 1000);   /* no such tier: ignored */
	tierd_mole_hist_add(&h, 0, 32, 1000);  /* no such bucket: ignored */
	CHECK_EQ_U64(tierd_mole_hist_total(&h), 520);

	/* No headroom: targets 100, 200, 400 reached at b5, b11, b20. */
	tierd_mole_thresholds(&h, caps, 0, thr);
	CHECK_EQ_INT(thr[0], 5);
	CHECK_EQ_INT(thr[1], 11);
	CHECK_EQ_INT(thr[2], 20);
	CHECK_EQ_INT(thr[3], 31);
	/* 10% headroom: targets 90, 180, 360: b3 (exactly 90), b11, b20. */
	tierd_mole_thresholds(&h, caps, 1000, thr);
	CHECK_EQ_INT(thr[0], 3);
	CHECK_EQ_INT(thr[1], 11);
	CHECK_EQ_INT(thr[2], 20);
	CHECK_EQ_INT(thr[3], 31);
	/* A tier with no capacity share takes nothing; the next targets 100. */
	tierd_mole_thresholds(&h, no_top, 0, thr);
	CHECK_EQ_INT(thr[0], TIERD_MOLE_NO_THRESHOLD);
	CHECK_EQ_INT(thr[1], 5);
	CHECK_EQ_INT(thr[2], 20);
	/* Everything fits in tier 0: the coldest bucket. */
	tierd_mole_thresholds(&h, huge, 0, thr);
	CHECK_EQ_INT(thr[0], 31);
	CHECK_EQ_INT(thr[2], 31);
}

/* ---- §4.3, §5 profiling periods -------------------------------------- */

static void test_profile(void)
{
	struct tierd_topology topo;
	uint64_t iv[TIERD_MAX_TIERS];
	char err[256];
	void *st;

	/* §5: m = 4, 3, 2, 1 top to bottom, T = 1 s. */
	CHECK_EQ_INT(strategy_init(ops, NULL, &st, err, sizeof(err)), 0);
	topology(&topo, 4);
	ops->profile(st, &topo, iv);
	CHECK_EQ_U64(iv[0], 4 * SEC);
	CHECK_EQ_U64(iv[1], 3 * SEC);
	CHECK_EQ_U64(iv[2], 2 * SEC);
	CHECK_EQ_U64(iv[3], 1 * SEC);
	/* Three tiers: 1 at the bottom, one more per tier up. */
	topology(&topo, 3);
	ops->profile(st, &topo, iv);
	CHECK_EQ_U64(iv[0], 3 * SEC);
	CHECK_EQ_U64(iv[1], 2 * SEC);
	CHECK_EQ_U64(iv[2], 1 * SEC);
	ops->free(st);

	CHECK_EQ_INT(strategy_init(ops, "{\"scan_period\": \"500ms\"}", &st, err, sizeof(err)), 0);
	topology(&topo, 4);
	ops->profile(st, &topo, iv);
	CHECK_EQ_U64(iv[0], 2000 * MSEC);
	CHECK_EQ_U64(iv[1], 1500 * MSEC);
	CHECK_EQ_U64(iv[2], 1000 * MSEC);
	CHECK_EQ_U64(iv[3], 500 * MSEC);
	ops->free(st);

	/* A list shorter than the tiers is aligned to the bottom; the tiers
	 * above it take its first entry. Longer: its bottom part is used. */
	CHECK_EQ_INT(strategy_init(ops, "{\"period_multipliers\": [8, 2, 1]}", &st, err, sizeof(err)), 0);
	ops->profile(st, &topo, iv);
	CHECK_EQ_U64(iv[0], 8 * SEC);
	CHECK_EQ_U64(iv[1], 8 * SEC);
	CHECK_EQ_U64(iv[2], 2 * SEC);
	CHECK_EQ_U64(iv[3], 1 * SEC);
	topology(&topo, 2);
	ops->profile(st, &topo, iv);
	CHECK_EQ_U64(iv[0], 2 * SEC);
	CHECK_EQ_U64(iv[1], 1 * SEC);
	ops->free(st);
}

/* ---- params ---------------------------------------------------------- */

static void test_params(void)
{
	char err[256] = "";
	void *st;

	CHECK_EQ_INT(strategy_init(ops, "{\"scan_period\": \"2s\", \"period_multipliers\": [4, 3, 2, 1], "
			       "\"time_threshold\": \"512ms\", \"headroom\": \"0%\"}",
			       &st, err, sizeof(err)),
		     0);
	ops->free(st);
	CHECK_EQ_INT(strategy_init(ops, "{}", &st, err, sizeof(err)), 0);
	ops->free(st);

	check_param_error(ops, "{\"scan_period\": 3}",
			  "\"scan_period\": expected a duration from 10ms to 1h such as \"1s\", "
			  "got 3");
	check_param_error(ops, "{\"scan_period\": \"5ms\"}",
			  "\"scan_period\": expected a duration from 10ms to 1h such as \"1s\", "
			  "got \"5ms\"");
	check_param_error(ops, "{\"time_threshold\": \"2h\"}",
			  "\"time_threshold\": expected a duration from 1ms to 1h such as "
			  "\"1024ms\", got \"2h\"");
	check_param_error(ops, "{\"time_threshold\": \"500us\"}",
			  "\"time_threshold\": expected a duration from 1ms to 1h such as "
			  "\"1024ms\", got \"500us\"");
	check_param_error(ops, "{\"headroom\": \"60%\"}",
			  "\"headroom\": expected a percentage from 0% to 50% such as \"5%\", "
			  "got \"60%\"");
	check_param_error(ops, "{\"headroom\": 5}",
			  "\"headroom\": expected a percentage from 0% to 50% such as \"5%\", "
			  "got 5");
	check_param_error(ops, "{\"headroom\": \"5%x\"}",
			  "\"headroom\": expected a percentage from 0% to 50% such as \"5%\", "
			  "got \"5%x\"");
	check_param_error(ops, "{\"period_multipliers\": [1, 2]}",
			  "\"period_multipliers\": expected an array of 1 to 16 integers from 1 "
			  "to 64, non-increasing from the top tier down, such as [4, 3, 2, 1], "
			  "got [1,2]");
	check_param_error(ops, "{\"period_multipliers\": [0]}",
			  "\"period_multipliers\": expected an array of 1 to 16 integers from 1 "
			  "to 64, non-increasing from the top tier down, such as [4, 3, 2, 1], "
			  "got [0]");
	check_param_error(ops, "{\"period_multipliers\": [65]}",
			  "\"period_multipliers\": expected an array of 1 to 16 integers from 1 "
			  "to 64, non-increasing from the top tier down, such as [4, 3, 2, 1], "
			  "got [65]");
	check_param_error(ops, "{\"period_multipliers\": []}",
			  "\"period_multipliers\": expected an array of 1 to 16 integers from 1 "
			  "to 64, non-increasing from the top tier down, such as [4, 3, 2, 1], "
			  "got []");
	check_param_error(ops, "{\"period_multipliers\": [2, \"1\"]}",
			  "\"period_multipliers\": expected an array of 1 to 16 integers from 1 "
			  "to 64, non-increasing from the top tier down, such as [4, 3, 2, 1], "
			  "got [2,\"1\"]");
	check_param_error(ops, "{\"unmap_budget\": 1}",
			  "\"unmap_budget\": unknown key; expected one of: scan_period, "
			  "period_multipliers, time_threshold, headroom");
	check_param_error(ops, "[1]", "expected a JSON object of params, got [1]");
	check_param_error(ops, "{", "expected a JSON object of params, got {");
}

/* ---- §4.5.1 staging demotion ----------------------------------------- */

/* Tiers of 1024 pages, no headroom: targets 1024, 2048, 3072 pages.
 *   A: tier 0, 1024 pages, 10 accesses / 4 s  -> 400 ms  -> bucket 9
 *   B: tier 0,  512 pages, idle 10 x 4 s      -> 40 s    -> bucket 31
 *   C: tier 1,  256 pages, idle 5 x 3 s       -> 15 s    -> 10 + 14 = 24
 *   D: tier 1, 1024 pages, 5 accesses / 3 s   -> 600 ms  -> bucket 10
 *   E: tier 3, 1024 pages, idle 1 x 1 s       -> 1000 ms -> bucket 10
 * Cumulative: b9 1024, b10 3072, b24 3328, b31 3840: thresholds 9, 10,
 * 10, 31. Colder than their tier: B (31 > 9) and C (24 > 10). */
static void demotion_regions(struct tierd_region *r)
{
	r[0] = idle(2048, 256, 1, 4, 3 * SEC);       /* C, listed first */
	r[1] = accessed(0, 1024, 0, 10, 4 * SEC);    /* A */
	r[2] = idle(1024, 512, 0, 9, 4 * SEC);       /* B */
	r[3] = accessed(4096, 1024, 1, 5, 3 * SEC);  /* D */
	r[4] = idle(8192, 1024, 3, 0, 1 * SEC);      /* E */
}

static void test_staging_demotion(void)
{
	struct tierd_mole_stats stats;
	struct tierd_region r[5];
	struct fixture f;

	demotion_regions(r);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 9, 10, 10, 31);
	/* Coldest first, both straight to tier 3 though tiers 1 and 2 have
	 * room; E is idle, not a promotion candidate. */
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_STAGING_DEMOTION, 0, 3, 1024, 512);
	CHECK_PAGES(&f.out, 1, TIERD_REASON_STAGING_DEMOTION, 1, 3, 2048, 256);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.demote_attempts, 768);
	CHECK_EQ_U64(stats.demote_no_room, 0);

	/* The lowest tier has 600 pages: B whole, 88 of C. */
	set_room(&f, 0, TIER_PAGES, TIER_PAGES, 600);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_STAGING_DEMOTION, 0, 3, 1024, 512);
	CHECK_PAGES(&f.out, 1, TIERD_REASON_STAGING_DEMOTION, 1, 3, 2048, 88);

	/* The lowest tier full: nothing, and never an intermediate tier. */
	set_room(&f, 0, TIER_PAGES, TIER_PAGES, 0);
	CHECK_EQ_INT(fixture_tick(&f, 12 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.demote_attempts, 3 * 768);
	CHECK_EQ_U64(stats.demote_no_room, 168 + 768);

	/* A budget of 100 pages: staging demotion takes half of it, so the
	 * promotions it makes room for need not wait; the coldest first. */
	set_room(&f, 0, 0, 0, TIER_PAGES);
	f.in.budget_bytes = 100 * PAGE;
	CHECK_EQ_INT(fixture_tick(&f, 13 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_STAGING_DEMOTION, 0, 3, 1024, 50);
	fixture_done(&f);
}

/* ---- §4.5.2 targeted promotion --------------------------------------- */

/* Tiers of 1024 pages, no headroom:
 *   H0:   tier 0, 1024 pages, 20 accesses / 4 s -> 200 ms -> bucket 8
 *   H1:   tier 1, 1024 pages,  3 accesses / 3 s -> 1 s    -> bucket 10
 *   P:    tier 3,   64 pages, 10 accesses / 1 s -> 100 ms -> bucket 7
 *   Q:    tier 3,   64 pages,  2 accesses / 1 s -> 500 ms -> bucket 9
 *   cold: tier 3, 2048 pages, idle 30 x 1 s    -> 30 s   -> bucket 31
 * Cumulative: b7 64, b8 1088, b9 1152, b10 2176, b31 4224: thresholds 8,
 * 10, 31, 31. P matches tier 0, Q tier 1; nothing to demote. */
#define P_PAGE 4096
#define Q_PAGE 5120
static void promotion_regions(struct tierd_region *r, bool q_hot)
{
	r[0] = accessed(Q_PAGE, 64, 3, 2, 1 * SEC);   /* Q, listed first */
	r[1] = accessed(0, 1024, 0, 20, 4 * SEC);     /* H0 */
	r[2] = accessed(1024, 1024, 1, 3, 3 * SEC);   /* H1 */
	r[3] = accessed(P_PAGE, 64, 3, 10, 1 * SEC);  /* P */
	r[4] = idle(8192, 2048, 3, 29, 1 * SEC);      /* cold */
	if (!q_hot)
		r[0] = idle(Q_PAGE, 64, 3, 0, 1 * SEC);
}

static void test_targeted_promotion(void)
{
	struct tierd_mole_stats stats;
	struct tierd_region r[5];
	struct fixture f;

	promotion_regions(r, true);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	/* Tier 0 has room, tier 1 none: P to tier 0; Q falls back to tier 2.
	 * Hottest first. */
	set_room(&f, 256, 0, TIER_PAGES, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_TARGETED_PROMOTION, 3, 0, P_PAGE, 64);
	CHECK_PAGES(&f.out, 1, TIERD_REASON_PROMOTION_FALLBACK, 3, 2, Q_PAGE, 64);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.promote_attempts, 128);
	CHECK_EQ_U64(stats.promote_fallbacks, 64);
	CHECK_EQ_U64(stats.promote_deferred, 0);

	/* Tier 0 takes 40 pages of P; the other 24 fall back to tier 1. */
	set_room(&f, 40, TIER_PAGES, TIER_PAGES, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 3);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_TARGETED_PROMOTION, 3, 0, P_PAGE, 40);
	CHECK_PAGES(&f.out, 1, TIERD_REASON_PROMOTION_FALLBACK, 3, 1, P_PAGE + 40, 24);
	CHECK_PAGES(&f.out, 2, TIERD_REASON_TARGETED_PROMOTION, 3, 1, Q_PAGE, 64);

	/* A budget of 64 pages: only the hottest. */
	set_room(&f, TIER_PAGES, TIER_PAGES, TIER_PAGES, TIER_PAGES);
	f.in.budget_bytes = 64 * PAGE;
	CHECK_EQ_INT(fixture_tick(&f, 12 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_TARGETED_PROMOTION, 3, 0, P_PAGE, 64);
	fixture_done(&f);

	/* The cgroup's share of tier 0 (512 pages, all held) leaves no room
	 * there though the tier has some; thresholds are unchanged (targets
	 * 512, 1536, 2560: b8, b10, b31). */
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	f.in.share_bytes[0] = 512 * PAGE;
	f.standing.tiers[0].anon_bytes = 512 * PAGE;
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_PROMOTION_FALLBACK, 3, 1, P_PAGE, 64);
	CHECK_PAGES(&f.out, 1, TIERD_REASON_TARGETED_PROMOTION, 3, 1, Q_PAGE, 64);
	fixture_done(&f);
}

static void test_deferred_promotion(void)
{
	struct tierd_mole_stats stats;
	struct tierd_region r[5];
	struct fixture f;

	promotion_regions(r, true);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	/* Tiers 0 to 2 full: P and Q are deferred. */
	set_room(&f, 0, 0, 0, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.promote_attempts, 128);
	CHECK_EQ_U64(stats.promote_deferred, 128);
	CHECK_EQ_U64(stats.promote_dropped, 0);

	/* Room appears on tier 0: P is retried; Q still finds tiers 1 and 2
	 * full and stays owed. */
	set_room(&f, 64, 0, 0, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_DEFERRED_PROMOTION, 3, 0, P_PAGE, 64);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.promote_attempts, 256);
	CHECK_EQ_U64(stats.promote_deferred, 192);

	/* Nothing observed this tick: the thresholds stay and Q, seen hot
	 * 1 s ago (within 2 periods of tier 3), is retried into tier 1. */
	set_hot(&f, NULL, 0, NULL, 0);
	set_room(&f, 0, 64, 0, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 12 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_DEFERRED_PROMOTION, 3, 1, Q_PAGE, 64);
	/* Both placed: nothing owed any more. */
	set_room(&f, TIER_PAGES, TIER_PAGES, TIER_PAGES, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 13 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);

	/* Q turns idle: its deferred promotion is dropped though tier 1 now
	 * has room; P, not observed, is still retried. */
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	set_room(&f, 0, 0, 0, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	/* H0, H1, cold and Q idle; P not observed. */
	promotion_regions(r, false);
	r[3] = r[0];
	set_hot(&f, r + 1, 4, NULL, 0);
	set_room(&f, TIER_PAGES, TIER_PAGES, TIER_PAGES, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_DEFERRED_PROMOTION, 3, 0, P_PAGE, 64);
	fixture_done(&f);

	/* Not seen hot for longer than 2 periods of tier 3 (2 s): forgotten. */
	promotion_regions(r, true);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	set_room(&f, 0, 0, 0, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	set_hot(&f, NULL, 0, NULL, 0);
	set_room(&f, TIER_PAGES, TIER_PAGES, TIER_PAGES, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 13 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
}

/* Hint-fault samples are single-page ranges, each page once at its
 * shortest interval. Regions H0, H1 and cold as above plus:
 *   page 20000, tier 2: 50 ms and 300 ms      -> 50 ms  -> bucket 6
 *   page 20001, tier 1: interval unknown       -> ignored
 *   page 20002, tier 1: 150 ms                 -> bucket 8
 *   page 20003, tier 0: 10 ms                  -> bucket 4
 * Cumulative: b4 1, b6 2, b8 1027, b10 2051, b31 4099: thresholds 8, 10.
 * Page 20000 matches tier 0; page 20002 too, but its fallback would be
 * its own tier. */
static void test_sampled_promotion(void)
{
	struct tierd_mole_stats stats;
	struct tierd_region r[5];
	struct tierd_sample s[5];
	struct fixture f;

	promotion_regions(r, true);
	s[0] = sampled(20000, 2, 300 * MSEC);
	s[1] = sampled(20001, 1, 0);
	s[2] = sampled(20002, 1, 150 * MSEC);
	s[3] = sampled(20000, 2, 50 * MSEC);
	s[4] = sampled(20003, 0, 10 * MSEC);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	r[3] = r[4];    /* r[1..3]: H0, H1, cold */
	set_hot(&f, r + 1, 3, s, 5);
	set_room(&f, 1, 0, TIER_PAGES, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_TARGETED_PROMOTION, 2, 0, 20000, 1);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.promote_attempts, 2);
	CHECK_EQ_U64(stats.promote_deferred, 1);

	/* Page 20002 faults again and tier 0 has a page free: the retry. */
	set_hot(&f, r + 1, 3, s + 2, 1);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_DEFERRED_PROMOTION, 1, 0, 20002, 1);
	fixture_done(&f);
}

/* §4.4: an idle duration shorter than its tier's expected range does not
 * count as that hot. Tick 1 (promotion regions) gives thresholds 8, 10,
 * 31. Tick 2 adds Z: tier 3, 1024 pages idle 1 x 1 s -> bucket 10, which
 * the histogram takes at tier 2's threshold, 31: cumulative b10 2176,
 * b31 5248, so tier 2 stays 31 (counted at b10, b10 would reach 3200 >=
 * 3072 and tier 2 would drop to 10). */
static void test_idle_not_hotter_than_tier(void)
{
	struct tierd_region r[6];
	struct fixture f;

	promotion_regions(r, true);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	set_room(&f, 0, 0, 0, 0);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	r[5] = idle(16384, 1024, 3, 0, 1 * SEC);
	set_hot(&f, r, 6, NULL, 0);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	fixture_done(&f);
}

/* Demotions go first and free the room promotions then use (tier 0 full):
 *   H0: tier 0, 960 pages, bucket 8; B: tier 0, 64 pages, idle 40 s, b31;
 *   H1: tier 1, 1024 pages, b10; P: tier 3, 64 pages, b7; cold: b31.
 * Cumulative: b7 64, b8 1024, b10 2048, b31 4160: thresholds 8, 10, 31. */
static void test_demotion_frees_room(void)
{
	struct tierd_region r[5];
	struct fixture f;

	r[0] = accessed(P_PAGE, 64, 3, 10, 1 * SEC);
	r[1] = accessed(0, 960, 0, 20, 4 * SEC);
	r[2] = idle(960, 64, 0, 9, 4 * SEC);
	r[3] = accessed(1024, 1024, 1, 3, 3 * SEC);
	r[4] = idle(8192, 2048, 3, 29, 1 * SEC);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, r, 5, NULL, 0);
	set_room(&f, 0, 0, 0, TIER_PAGES);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 8, 10, 31, 31);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_STAGING_DEMOTION, 0, 3, 960, 64);
	CHECK_PAGES(&f.out, 1, TIERD_REASON_TARGETED_PROMOTION, 3, 0, P_PAGE, 64);
	fixture_done(&f);
}

/* ---- §3.1 failure accounting ----------------------------------------- */

static void test_failure_accounting(void)
{
	struct tierd_sample s[TIERD_MOLE_DEFER_MAX + 1];
	struct tierd_mole_stats stats;
	struct fixture f;

	/* 1025 pages sampled hot in tier 3 (10 ms: bucket 4; threshold of
	 * tier 0 is b4; 1025 pages never reach tier 1's target of 2048, so
	 * the rest are 31), no room anywhere above: 1024 remembered, 1
	 * dropped. */
	for (size_t i = 0; i < TIERD_MOLE_DEFER_MAX + 1; i++)
		s[i] = sampled(100000 + i, 3, 10 * MSEC);
	fixture_init(&f, "{\"headroom\": \"0%\"}");
	set_hot(&f, NULL, 0, s, TIERD_MOLE_DEFER_MAX + 1);
	set_room(&f, 0, 0, 0, TIER_PAGES);
	f.feedback = (struct tierd_feedback){ .promote_failed_bytes = 2 * PAGE,
					      .demote_failed_bytes = 1 * PAGE,
					      .promoted_bytes = 10 * PAGE };
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_thresholds(f.state, 4, 31, 31, 31);
	CHECK_EQ_INT(f.out.nr, 0);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.promote_attempts, TIERD_MOLE_DEFER_MAX + 1);
	CHECK_EQ_U64(stats.promote_deferred, TIERD_MOLE_DEFER_MAX + 1);
	CHECK_EQ_U64(stats.promote_dropped, 1);
	CHECK_EQ_U64(stats.promote_fallbacks, 0);
	CHECK_EQ_U64(stats.promote_failed, 2);
	CHECK_EQ_U64(stats.demote_failed, 1);

	/* Room for 10 on tier 0 and 5 on tier 1: the 1024 owed pages are
	 * retried first (claimed by their samples), 10 placed, 5 fall back;
	 * the dropped page, fresh again, is deferred anew into a freed slot. */
	set_room(&f, 10, 5, 0, TIER_PAGES);
	f.feedback = (struct tierd_feedback){ 0 };
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 15);
	CHECK_PAGES(&f.out, 0, TIERD_REASON_DEFERRED_PROMOTION, 3, 0, 100000, 1);
	CHECK_PAGES(&f.out, 10, TIERD_REASON_PROMOTION_FALLBACK, 3, 1, 100010, 1);
	tierd_mole_stats(f.state, &stats);
	CHECK_EQ_U64(stats.promote_attempts, 2 * (TIERD_MOLE_DEFER_MAX + 1));
	CHECK_EQ_U64(stats.promote_fallbacks, 5);
	CHECK_EQ_U64(stats.promote_deferred, 2 * (TIERD_MOLE_DEFER_MAX + 1) - 15);
	CHECK_EQ_U64(stats.promote_dropped, 1);
	fixture_done(&f);
}

/* No thresholds before the first observation, one tier: nothing to do. */
static void test_nothing_to_do(void)
{
	struct tierd_region r[5];
	struct fixture f;

	fixture_init(&f, NULL);
	CHECK_EQ_INT(fixture_tick(&f, 1), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_INT(tierd_mole_threshold(f.state, 0), TIERD_MOLE_NO_THRESHOLD);
	fixture_done(&f);

	promotion_regions(r, true);
	fixture_init(&f, NULL);
	topology(&f.topo, 1);
	r[0].tier = 0;
	r[3].tier = 0;
	r[4].tier = -1;    /* unknown: skipped */
	set_hot(&f, r, 5, NULL, 0);
	CHECK_EQ_INT(fixture_tick(&f, 1), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
}

int main(void)
{
	test_buckets();
	test_thresholds();
	test_profile();
	test_params();
	test_staging_demotion();
	test_targeted_promotion();
	test_deferred_promotion();
	test_sampled_promotion();
	test_idle_not_hotter_than_tier();
	test_demotion_frees_room();
	test_failure_accounting();
	test_nothing_to_do();
	return tierd_test_finish();
}
