/* The "linux" strategy driven directly through its ops: fault promotion
 * under the hot threshold to tier 0 only, the rate limit across ticks, the
 * free-space bypass, the threshold adjustment, LRU demotion one tier down
 * until the watermark holds, sized to the promotion demand in the same tick,
 * and its params errors. */
#include "../policy/strategy_linux.h"
#include "strategy_fixture.h"

TIERD_TEST_MAIN_COUNTS;

static const struct tierd_strategy_ops *const ops = &tierd_strategy_linux;

static struct tierd_baseline_stats stats(const struct fixture *f)
{
	struct tierd_baseline_stats st;

	tierd_linux_stats(f->state, &st);
	return st;
}

static void test_params(void)
{
	char err[256] = "";
	void *state = NULL;

	CHECK_EQ_INT(strategy_init(&tierd_strategy_linux, NULL, &state, err, sizeof(err)), 0);
	CHECK_EQ_U64(tierd_linux_hot_threshold_usec(state), 1000 * MSEC);
	tierd_strategy_linux.free(state);
	CHECK_EQ_INT(strategy_init(&tierd_strategy_linux, "{}", &state, err, sizeof(err)), 0);
	tierd_strategy_linux.free(state);
	CHECK_EQ_INT(strategy_init(&tierd_strategy_linux, "{\"hot_threshold\": \"500ms\", \"watermark\": "
					       "\"1.5%\", \"promote_rate_limit\": 0}",
					       &state, err, sizeof(err)),
		     0);
	CHECK_EQ_U64(tierd_linux_hot_threshold_usec(state), 500 * MSEC);
	tierd_strategy_linux.free(state);

	check_param_error(ops, "{\"hot_threshold\": 3}",
			  "\"hot_threshold\": expected a duration from 1ms to 1h such as \"1s\", "
			  "got 3");
	check_param_error(ops, "{\"hot_threshold\": \"0s\"}",
			  "\"hot_threshold\": expected a duration from 1ms to 1h such as \"1s\", "
			  "got \"0s\"");
	check_param_error(ops, "{\"hot_threshold\": \"2h\"}",
			  "\"hot_threshold\": expected a duration from 1ms to 1h such as \"1s\", "
			  "got \"2h\"");
	check_param_error(ops, "{\"promote_rate_limit\": \"fast\"}",
			  "\"promote_rate_limit\": expected an integer number of MB/s from 0 to "
			  "4294967295, got \"fast\"");
	check_param_error(ops, "{\"promote_rate_limit\": 4294967296}",
			  "\"promote_rate_limit\": expected an integer number of MB/s from 0 to "
			  "4294967295, got 4294967296");
	check_param_error(ops, "{\"promote_rate_limit\": -1}",
			  "\"promote_rate_limit\": expected an integer number of MB/s from 0 to "
			  "4294967295, got -1");
	check_param_error(ops, "{\"watermark\": 5}",
			  "\"watermark\": expected a percentage of the tier's capacity such as "
			  "\"0.3%\", got 5");
	check_param_error(ops, "{\"watermark\": \"5%usage\"}",
			  "\"watermark\": expected a percentage of the tier's capacity such as "
			  "\"0.3%\", got \"5%usage\"");
	check_param_error(ops, "{\"hot_thresold\": \"1s\"}",
			  "\"hot_thresold\": unknown key; expected one of: hot_threshold, "
			  "promote_rate_limit, watermark");
	check_param_error(ops, "[1]", "expected a JSON object of params, got [1]");
	check_param_error(ops, "{", "expected a JSON object of params, got {");
}

/* Only samples on lower tiers faulting sooner than 1s after the unmap go
 * up, one page each, all to tier 0; regions are ignored when samples exist. */
static void test_promotes_under_threshold(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_sample(&f, 0x100000, 2, 500 * MSEC);        /* hot */
	fixture_sample(&f, 0x200000, 3, 1000 * MSEC - 1);   /* hot, just */
	fixture_sample(&f, 0x300000, 1, 1000 * MSEC);       /* at the threshold: not */
	fixture_sample(&f, 0x400000, 2, 0);                 /* latency unknown */
	fixture_sample(&f, 0x500000, 0, 10 * MSEC);         /* top tier: not scanned */
	fixture_sample(&f, 0x100000 + 123, 2, 10 * MSEC);   /* same page again */
	fixture_sample(&f, 0x600000, -1, 10 * MSEC);        /* tier unknown */
	fixture_region(&f, 0x10000000, 4 * MIB, 1, 20, 1, 100 * MSEC);

	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x100000, PAGE);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_FAULT_PROMOTION, 3, 0, 0x200000, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 2);
	CHECK_EQ_U64(st.promote_failed, 0);
	CHECK_EQ_U64(st.promote_fallbacks, 0);
	CHECK_EQ_U64(st.promote_rate_limited, 0);
	fixture_done(&f);
}

/* With tier 0 full the promotion fails (no fallback to tier 1) and counts. */
static void test_tier0_full(void)
{
	const uint64_t free_bytes[4] = { 2 * PAGE, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_sample(&f, 0x100000, 3, 10 * MSEC);
	fixture_sample(&f, 0x200000, 2, 10 * MSEC);
	fixture_sample(&f, 0x300000, 3, 10 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 3, 0, 0x100000, PAGE);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x200000, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 3);
	CHECK_EQ_U64(st.promote_failed, 1);
	CHECK_EQ_U64(st.promote_fallbacks, 0);
	fixture_done(&f);
}

/* 1 MB/s = 256 pages per one-second window: 300 candidates at 10s give 256;
 * the window is spent at 10.5s; at 11s a new window opens. */
static void test_rate_limit(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, "{\"promote_rate_limit\": 1}");
	for (uint64_t i = 0; i < 300; i++)
		fixture_sample(&f, i * PAGE, 1, MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 256);
	CHECK_MOVE(&f.out, 255, TIERD_REASON_FAULT_PROMOTION, 1, 0, 255 * PAGE, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 256);
	CHECK_EQ_U64(st.promote_rate_limited, 44);

	f.hot.nr_samples = 0;
	for (uint64_t i = 0; i < 10; i++)
		fixture_sample(&f, (1000 + i) * PAGE, 1, MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC + 500 * MSEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 256);
	CHECK_EQ_U64(st.promote_rate_limited, 54);

	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 10);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 1, 0, 1000 * PAGE, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 266);
	CHECK_EQ_U64(st.promote_rate_limited, 54);
	fixture_done(&f);
}

/* A 4G tier 0 with 3G free is above WMARK_PROMO + 1G: any faulted page goes
 * up, threshold and rate limit aside. With 1G free it is not. */
static void test_free_space_enough(void)
{
	const uint64_t free_bytes[4] = { 3 * GIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, 4 * GIB, free_bytes, "{\"promote_rate_limit\": 0}");
	fixture_sample(&f, 0x100000, 2, 5 * SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x100000, PAGE);

	f.in.room_bytes[0] = GIB;
	fixture_sample(&f, 0x200000, 2, 500 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 20 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 1);
	CHECK_EQ_U64(st.promote_rate_limited, 1);
	fixture_done(&f);
}

/* Once per 60s the threshold steps by 2 x 1s / 16 = 125ms: up when the
 * period's candidates stayed under 90% of the rate limit, to at most 2s;
 * down when they passed 110%. */
static void test_threshold_adjust(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_sample(&f, 0x100000, 1, 1100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 0), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_U64(tierd_linux_hot_threshold_usec(f.state), 1000 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 60 * SEC), 0);
	CHECK_EQ_U64(tierd_linux_hot_threshold_usec(f.state), 1125 * MSEC);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 1, 0, 0x100000, PAGE);
	for (uint64_t p = 2; p <= 20; p++)
		CHECK_EQ_INT(fixture_tick(&f, p * 60 * SEC), 0);
	CHECK_EQ_U64(tierd_linux_hot_threshold_usec(f.state), 2000 * MSEC);
	fixture_done(&f);

	/* 1 MB/s over 60s is 60M of candidates; a hot 100M region is 100M. */
	fixture_baseline(&f, ops, GIB, free_bytes, "{\"promote_rate_limit\": 1}");
	fixture_region(&f, 0x10000000, 100 * MIB, 2, 20, 1, 100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 0), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x10000000, MIB);
	f.hot.nr_regions = 0;
	CHECK_EQ_INT(fixture_tick(&f, 60 * SEC), 0);
	CHECK_EQ_U64(tierd_linux_hot_threshold_usec(f.state), 875 * MSEC);
	fixture_done(&f);
}

/* No samples: a region's fault latency is aggr_usec / nr_accesses; the whole
 * region is one candidate. */
static void test_regions_without_samples(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_region(&f, 0x10000000, 8 * MIB, 2, 5, 3, 100 * MSEC);  /* 20ms: hot */
	fixture_region(&f, 0x20000000, 8 * MIB, 1, 1, 3, 2 * SEC);     /* 2s: not */
	fixture_region(&f, 0x30000000, 8 * MIB, 3, 4, 3, 0);           /* unknown */
	fixture_region(&f, 0x40000000, 8 * MIB, 0, 20, 3, 100 * MSEC); /* on top already */
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x10000000, 8 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 8 * MIB / PAGE);
	fixture_done(&f);
}

/* kswapd demotes the LRU tail (a DEMOTE action, no range), never DAMON's
 * regions. Watermark 25% of 1G = 256M, tier 0 has 200M free and nothing
 * to promote: 56M go exactly one tier down, and no more. */
static void check_demote(const struct tierd_action_list *out, size_t i, size_t from, size_t to,
			 uint64_t bytes)
{
	CHECK(i < out->nr);
	if (i >= out->nr)
		return;
	CHECK_EQ_INT(out->items[i].kind, TIERD_ACTION_DEMOTE);
	CHECK_EQ_INT(out->items[i].reason, TIERD_REASON_WATERMARK_DEMOTION);
	CHECK_EQ_INT(out->items[i].from_tier, from);
	CHECK_EQ_INT(out->items[i].to_tier, to);
	CHECK_EQ_U64(out->items[i].bytes, bytes);
}

static void test_watermark_demotion(void)
{
	const uint64_t free_bytes[4] = { 200 * MIB, 800 * MIB, 800 * MIB, 800 * MIB };
	const uint64_t full1[4] = { 200 * MIB, 0, 800 * MIB, 800 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, "{\"watermark\": \"25%\"}");
	f.obs.anon_bytes[0] = 512 * MIB;
	fixture_region(&f, 0, 32 * MIB, 0, 0, 5, 100 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	check_demote(&f.out, 0, 0, 1, 56 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.demote_attempts, 56 * MIB / PAGE);
	CHECK_EQ_U64(st.demote_failed, 0);
	fixture_done(&f);

	/* As demote_folio_list() does, a next tier without room sends the
	 * pages to the next lower tier that has some. */
	fixture_baseline(&f, ops, GIB, full1, "{\"watermark\": \"25%\"}");
	f.obs.anon_bytes[0] = 512 * MIB;
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	check_demote(&f.out, 0, 0, 2, 56 * MIB);
	fixture_done(&f);
}

/* Demotion on demand: tier 0 is full (1 page free; watermark 0.3% of 1G =
 * 3,221,225 bytes) and 100 hot pages fault on tier 2: kswapd demotes
 * 3,221,225 + 100 pages - 1 page, in whole pages 885, of tier 0's LRU
 * tail to tier 1 in the same tick, and then all 100 go up. Demotion is capped at half the
 * budget: with a budget of 200 pages 100 are demoted, room enough for the
 * 100 promotions with the page already free. */
static void test_demotion_on_demand(void)
{
	const uint64_t free_bytes[4] = { PAGE, 512 * MIB, 512 * MIB, 512 * MIB };
	struct tierd_baseline_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	f.obs.anon_bytes[0] = GIB - PAGE;
	for (uint64_t i = 0; i < 100; i++)
		fixture_sample(&f, 0x100000 + i * PAGE, 2, 10 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 101);
	check_demote(&f.out, 0, 0, 1, 885 * PAGE);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x100000, PAGE);
	CHECK_MOVE(&f.out, 100, TIERD_REASON_FAULT_PROMOTION, 2, 0, 0x100000 + 99 * PAGE, PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 100);
	CHECK_EQ_U64(st.promote_failed, 0);
	CHECK_EQ_U64(st.demote_attempts, 885);
	fixture_done(&f);

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	f.obs.anon_bytes[0] = GIB - PAGE;
	f.in.budget_bytes = 200 * PAGE;
	for (uint64_t i = 0; i < 100; i++)
		fixture_sample(&f, 0x100000 + i * PAGE, 2, 10 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	check_demote(&f.out, 0, 0, 1, 100 * PAGE);
	st = stats(&f);
	CHECK_EQ_U64(st.promote_attempts, 100);
	CHECK_EQ_U64(st.promote_failed, 0);
	fixture_done(&f);
}

/* A budget of two pages: two promotions, the rest not even attempted. */
static void test_budget(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	f.in.budget_bytes = 2 * PAGE;
	for (uint64_t i = 0; i < 5; i++)
		fixture_sample(&f, i * PAGE, 1, MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_EQ_U64(stats(&f).promote_attempts, 2);
	fixture_done(&f);
}

static void test_profile(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	uint64_t interval[TIERD_MAX_TIERS] = { 0 };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	tierd_strategy_linux.profile(f.state, &f.topo, interval);
	CHECK_EQ_U64(interval[0], 0);
	CHECK_EQ_U64(interval[1], SEC);
	CHECK_EQ_U64(interval[3], SEC);
	fixture_done(&f);
}

int main(void)
{
	CHECK_EQ_STR(tierd_strategy_linux.name, "linux");
	test_params();
	test_promotes_under_threshold();
	test_tier0_full();
	test_rate_limit();
	test_free_space_enough();
	test_threshold_adjust();
	test_regions_without_samples();
	test_watermark_demotion();
	test_demotion_on_demand();
	test_budget();
	test_profile();
	return tierd_test_finish();
}
