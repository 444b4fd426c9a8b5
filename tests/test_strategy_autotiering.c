/* The "autotiering" strategy driven directly through its ops: greedy
 * promotion falling back below a full tier 0 and counting the failed
 * attempt, hottest regions first, stepwise demotion skipping a full tier
 * (Mole §1, §3.1), and its params errors. */
#include "../policy/strategy_autotiering.h"
#include "strategy_fixture.h"

TIERD_TEST_MAIN_COUNTS;

static const struct tierd_strategy_ops *const ops = &tierd_strategy_autotiering;

static struct tierd_baseline_stats stats(const struct fixture *f)
{
	struct tierd_baseline_stats st;

	tierd_autotiering_stats(f->state, &st);
	return st;
}

static void test_params(void)
{
	char err[256] = "";
	void *state = NULL;

	CHECK_EQ_INT(strategy_init(&tierd_strategy_autotiering, NULL, &state, err, sizeof(err)), 0);
	tierd_strategy_autotiering.free(state);
	CHECK_EQ_INT(strategy_init(&tierd_strategy_autotiering, "{\"hot_accesses\": 3, "
						     "\"watermark\": \"10%\"}",
						     &state, err, sizeof(err)),
		     0);
	tierd_strategy_autotiering.free(state);

	check_param_error(ops, "{\"hot_accesses\": 0}",
			  "\"hot_accesses\": expected an integer from 1 to 4294967295, got 0");
	check_param_error(ops, "{\"hot_accesses\": \"2\"}",
			  "\"hot_accesses\": expected an integer from 1 to 4294967295, got \"2\"");
	check_param_error(ops, "{\"hot_accesses\": true}",
			  "\"hot_accesses\": expected an integer from 1 to 4294967295, got true");
	check_param_error(ops, "{\"watermark\": \"0.5\"}",
			  "\"watermark\": expected a percentage of the tier's capacity such as "
			  "\"0.2%\", got \"0.5\"");
	check_param_error(ops, "{\"watermark\": \"100.5%\"}",
			  "\"watermark\": expected a percentage of the tier's capacity such as "
			  "\"0.2%\", got \"100.5%\"");
	check_param_error(ops, "{\"hot_threshold\": \"1s\"}",
			  "\"hot_threshold\": unknown key; expected one of: hot_accesses, "
			  "watermark");
	check_param_error(ops, "\"greedy\"", "expected a JSON object of params, got \"greedy\"");
}

/* Tier 0 full: a hot page on tier 3 falls back to tier 1; one on tier 1 has
 * no tier between to fall back to. Both attempts found tier 0 full. */
static void test_fallback_when_tier0_full(void)
{
	const uint64_t free_bytes[4] = { 0, 512 * MIB, 512 * MIB, 512 * MIB };
	const uint64_t free_fig1[4] = { 0, 0, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_sample(&f, 0x100000, 3, 0);
	fixture_sample(&f, 0x200000, 1, 0);
	fixture_sample(&f, 0x300000, 2, 0);
	fixture_sample(&f, 0x300000, 2, 0);    /* faulted twice: one attempt */
	fixture_sample(&f, 0x400000, 0, 0);    /* on top already */
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_GREEDY_PROMOTION, 3, 1, 0x100000, PAGE);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_GREEDY_PROMOTION, 2, 1, 0x300000, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 3);
	CHECK_EQ_U64(st.promote_failed, 3);
	CHECK_EQ_U64(st.promote_fallbacks, 2);
	fixture_done(&f);

	/* Mole Figure 1(a): tiers 0 and 1 full, the page lands on tier 2. */
	fixture_baseline(&f, ops, GIB, free_fig1, NULL);
	fixture_sample(&f, 0x100000, 3, 0);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_GREEDY_PROMOTION, 3, 2, 0x100000, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_failed, 1);
	CHECK_EQ_U64(st.promote_fallbacks, 1);
	fixture_done(&f);
}

/* A cgroup at its tier-0 share finds tier 0 full whatever its free bytes. */
static void test_share_full(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	f.standing.tiers[0].anon_bytes = 100 * MIB;
	f.in.share_bytes[0] = 100 * MIB;
	fixture_sample(&f, 0x100000, 2, 0);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_GREEDY_PROMOTION, 2, 1, 0x100000, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_failed, 1);
	CHECK_EQ_U64(st.promote_fallbacks, 1);
	fixture_done(&f);
}

/* Regions, hot_accesses 2, tier 0 with 6M free: the hottest (20/20, on
 * tier 1) goes up whole; the next (5/20, on tier 2) gets the 2M left on
 * tier 0 and falls back to tier 1 for the other 6M; 1/20 is not hot. */
static void test_greedy_regions(void)
{
	const uint64_t free_bytes[4] = { 6 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, "{\"hot_accesses\": 2}");
	fixture_region(&f, 0, 8 * MIB, 2, 5, 3, 100 * MSEC);
	fixture_region(&f, 8 * MIB, 8 * MIB, 3, 1, 3, 100 * MSEC);
	fixture_region(&f, 16 * MIB, 4 * MIB, 1, 20, 3, 100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 3);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_GREEDY_PROMOTION, 1, 0, 16 * MIB, 4 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_GREEDY_PROMOTION, 2, 0, 0, 2 * MIB);
	CHECK_MOVE(&f.out, 2, TIERD_REASON_GREEDY_PROMOTION, 2, 1, 2 * MIB, 6 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 12 * MIB / PAGE);
	CHECK_EQ_U64(st.promote_failed, 6 * MIB / PAGE);
	CHECK_EQ_U64(st.promote_fallbacks, 6 * MIB / PAGE);
	fixture_done(&f);
}

/* Watermark 25% = 256M; tier 0 has 200M free, tier 1 none. Tier 0's cold
 * regions, oldest first (ages 70000, 300, 2 sort across radix bytes), skip
 * the full tier 1 for tier 2 until 56M moved; tier 1, below its watermark
 * too, sends its cold region to tier 2. */
static void test_stepwise_skips_full_tier(void)
{
	const uint64_t free_bytes[4] = { 200 * MIB, 0, 800 * MIB, 800 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, "{\"watermark\": \"25%\"}");
	fixture_region(&f, 0, 16 * MIB, 0, 0, 300, 100 * MSEC);          /* X */
	fixture_region(&f, 16 * MIB, 32 * MIB, 0, 0, 70000, 100 * MSEC); /* Y: oldest */
	fixture_region(&f, 48 * MIB, 32 * MIB, 0, 0, 2, 100 * MSEC);     /* Z */
	fixture_region(&f, 80 * MIB, 32 * MIB, 0, 1, 900, 100 * MSEC);   /* accessed */
	fixture_region(&f, GIB, 4 * MIB, 1, 0, 1, 100 * MSEC);           /* W, tier 1 */
	fixture_region(&f, 2 * GIB, 4 * MIB, 3, 0, 1, 100 * MSEC);       /* lowest tier */
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 4);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_STEPWISE_DEMOTION, 0, 2, 16 * MIB, 32 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_STEPWISE_DEMOTION, 0, 2, 0, 16 * MIB);
	CHECK_MOVE(&f.out, 2, TIERD_REASON_STEPWISE_DEMOTION, 0, 2, 48 * MIB, 8 * MIB);
	CHECK_MOVE(&f.out, 3, TIERD_REASON_STEPWISE_DEMOTION, 1, 2, GIB, 4 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.demote_attempts, 60 * MIB / PAGE);
	CHECK_EQ_U64(st.demote_failed, 0);
	fixture_done(&f);
}

/* Tier 1 can take 4M of the 6M tier 0 needs: the rest goes on to tier 2. */
static void test_stepwise_split(void)
{
	const uint64_t free_bytes[4] = { 250 * MIB, 4 * MIB, 800 * MIB, 800 * MIB };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, "{\"watermark\": \"25%\"}");
	fixture_region(&f, 0, 10 * MIB, 0, 0, 7, 100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_STEPWISE_DEMOTION, 0, 1, 0, 4 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_STEPWISE_DEMOTION, 0, 2, 4 * MIB, 2 * MIB);
	fixture_done(&f);
}

/* Every lower tier full: the cold pages picked find no room and count. */
static void test_demotion_failure(void)
{
	const uint64_t free_bytes[4] = { 0, 0, 0, 0 };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, "{\"watermark\": \"25%\"}");
	fixture_region(&f, 0, 8 * MIB, 0, 0, 7, 100 * MSEC);
	fixture_region(&f, 8 * MIB, 8 * MIB, 0, 0, 3, 100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	st = stats(&f);
	CHECK_EQ_U64(st.demote_attempts, 8 * MIB / PAGE);
	CHECK_EQ_U64(st.demote_failed, 8 * MIB / PAGE);
	fixture_done(&f);
}

/* Promotions first, then the demotion that restores what they used up. */
static void test_promote_then_demote(void)
{
	const uint64_t free_bytes[4] = { 4 * PAGE, 512 * MIB, 512 * MIB, 512 * MIB };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_sample(&f, 0x100000, 2, 0);
	fixture_region(&f, 0, 8 * MIB, 0, 0, 7, 100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_GREEDY_PROMOTION, 2, 0, 0x100000, PAGE);
	/* 0.2% of 1G rounded up to pages, less the 3 pages left free. */
	CHECK_MOVE(&f.out, 1, TIERD_REASON_STEPWISE_DEMOTION, 0, 1, 0, 525 * PAGE - 3 * PAGE);
	fixture_done(&f);
}

static void test_profile(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	uint64_t interval[TIERD_MAX_TIERS] = { 0 };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	tierd_strategy_autotiering.profile(f.state, &f.topo, interval);
	for (size_t t = 0; t < FIXTURE_TIERS; t++)
		CHECK_EQ_U64(interval[t], SEC);
	fixture_done(&f);
}

int main(void)
{
	CHECK_EQ_STR(tierd_strategy_autotiering.name, "autotiering");
	test_params();
	test_fallback_when_tier0_full();
	test_share_full();
	test_greedy_regions();
	test_stepwise_skips_full_tier();
	test_stepwise_split();
	test_demotion_failure();
	test_promote_then_demote();
	test_profile();
	return tierd_test_finish();
}
