/* The "exchange" strategy driven directly through its ops: promotion into
 * the fastest tier with room, made by demoting victims at least `gain`
 * times colder; the gate that refuses warmer victims; candidates and
 * victims ordered per byte of budget; a region unseen for longer taken as
 * colder; hint faults taken once two scans saw the page; room kept for new
 * pages; no victim where memory arrived since last tick; its params
 * errors. */
#include "../policy/strategy_exchange.h"
#include "strategy_fixture.h"

TIERD_TEST_MAIN_COUNTS;

static const struct tierd_strategy_ops *const ops = &tierd_strategy_exchange;

/* Tiers 0 and 1 full, 2 and 3 with 512M free. */
static const uint64_t two_full[4] = { 0, 0, 512 * MIB, 512 * MIB };

static struct tierd_exchange_stats stats(const struct fixture *f)
{
	struct tierd_exchange_stats st;

	tierd_exchange_stats(f->state, &st);
	return st;
}

static void test_params(void)
{
	char err[256] = "";
	void *state = NULL;

	CHECK_EQ_INT(strategy_init(ops, NULL, &state, err, sizeof(err)), 0);
	ops->free(state);
	CHECK_EQ_INT(strategy_init(ops, "{\"gain\": 2.5, \"reserve\": \"0s\"}",
				   &state, err, sizeof(err)),
		     0);
	ops->free(state);
	check_param_error(ops, "{\"gain\": 0.5}",
			  "\"gain\": expected a number from 1 to 1000 such as 32, got 0.5");
	check_param_error(ops, "{\"reserve\": \"2m\"}",
			  "\"reserve\": expected a duration from 0s to 60s such as \"2s\", got \"2m\"");
	check_param_error(ops, "{\"horizon\": \"10s\"}",
			  "\"horizon\": unknown key; expected one of: gain, reserve");
}

/* A region on tier 3 seen in every sample (74 Hz a page) goes up to a full
 * tier 0 by demoting the cold region there (0 of 20 for 6 windows: 0.17
 * Hz) to tier 2, the first below with room; tier 0's warm region (10 of
 * 20: 14 Hz, above 74 / 32) stays. */
static void test_exchange(void)
{
	struct tierd_exchange_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, two_full, NULL);
	fixture_region(&f, 0, 8 * MIB, 0, 0, 5, SEC);
	fixture_region(&f, 8 * MIB, 8 * MIB, 0, 10, 5, SEC);
	fixture_region(&f, 64 * MIB, 4 * MIB, 3, 20, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, 0, 4 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 64 * MIB, 4 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.promoted_bytes, 4 * MIB);
	CHECK_EQ_U64(st.demoted_bytes, 4 * MIB);
	CHECK_EQ_U64(st.refused_bytes, 0);
	fixture_done(&f);
}

/* 4 of 20 (4.5 Hz) on tier 3 against a victim seen once (1.0 Hz, above
 * 4.5 / 32): no exchange into tier 0; tier 1 has no victim; it goes to tier
 * 2, which has room. With a gain of 4 the victim is cold enough. */
static void test_gain_gate(void)
{
	struct fixture f;

	fixture_baseline(&f, ops, GIB, two_full, NULL);
	fixture_region(&f, 0, 8 * MIB, 0, 1, 5, SEC);
	fixture_region(&f, 64 * MIB, 4 * MIB, 3, 4, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_PROMOTION, 3, 2, 64 * MIB, 4 * MIB);
	fixture_done(&f);

	fixture_baseline(&f, ops, GIB, two_full, "{\"gain\": 4}");
	fixture_region(&f, 0, 8 * MIB, 0, 1, 5, SEC);
	fixture_region(&f, 64 * MIB, 4 * MIB, 3, 4, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, 0, 4 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 64 * MIB, 4 * MIB);
	fixture_done(&f);
}

/* Per byte of budget: of two cold victims the dense one goes first (the
 * sparse one holds 2M in its 8M span); of two equally hot candidates the
 * dense one, and the sparse one, with no room left anywhere above it, is
 * refused. */
static void test_density_order(void)
{
	const uint64_t free_bytes[4] = { 2 * MIB, 0, 0, 512 * MIB };
	struct tierd_exchange_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, two_full, NULL);
	fixture_region(&f, 0, 8 * MIB, 0, 0, 5, SEC);
	f.regions[0].bytes = 2 * MIB;
	fixture_region(&f, 8 * MIB, 8 * MIB, 0, 0, 5, SEC);
	fixture_region(&f, 64 * MIB, 2 * MIB, 3, 20, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, 8 * MIB, 2 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 64 * MIB, 2 * MIB);
	fixture_done(&f);

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_region(&f, GIB, 8 * MIB, 3, 20, 5, SEC);
	f.regions[0].bytes = 2 * MIB;
	fixture_region(&f, 2 * GIB, 2 * MIB, 3, 20, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 2 * GIB, 2 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.refused_bytes, 2 * MIB);
	fixture_done(&f);
}

/* Two regions no sample saw: the one unseen for 10 windows (0.1 Hz) is
 * cold enough for 4 of 20 (4.5 Hz, over 32: 0.14 Hz), the one unseen for
 * one window (1 Hz) is not, though it comes first in address order and is
 * as dense: 2M go each way, and no more. */
static void test_age(void)
{
	struct fixture f;

	fixture_baseline(&f, ops, GIB, two_full, NULL);
	fixture_region(&f, 0, 8 * MIB, 0, 0, 0, SEC);
	fixture_region(&f, 16 * MIB, 2 * MIB, 0, 0, 9, SEC);
	fixture_region(&f, 64 * MIB, 4 * MIB, 3, 4, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, 16 * MIB, 2 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 64 * MIB, 2 * MIB);
	fixture_done(&f);
}

/* Tier 0 full of two cold regions: 0 of 20 for 5 windows, and colder, for
 * 9 windows, with `held` of its 8M span. */
static void two_cold(struct fixture *f, uint64_t held)
{
	fixture_baseline(f, ops, GIB, two_full, NULL);
	fixture_region(f, 0, 8 * MIB, 0, 0, 5, SEC);
	fixture_region(f, 8 * MIB, 8 * MIB, 0, 0, 9, SEC);
	f->regions[1].bytes = held;
}

/* A region seen in every sample arrives on tier 3 and displaces 4M of tier
 * 0 from `victim`. */
static void check_displaces(struct fixture *f, uint64_t now, uint64_t victim)
{
	fixture_region(f, 64 * MIB, 4 * MIB, 3, 20, 5, SEC);
	CHECK_EQ_INT(fixture_tick(f, now), 0);
	CHECK_EQ_INT(f->out.nr, 2);
	CHECK_MOVE(&f->out, 0, TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, victim, 4 * MIB);
	CHECK_MOVE(&f->out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 64 * MIB, 4 * MIB);
	fixture_done(f);
}

/* 4M arrive in the colder region, half filled, before the next tick: its
 * figures are older than its memory, so the other region is the victim.
 * Without a tick before, nothing is known and the colder one goes. */
static void test_arrivals(void)
{
	struct fixture f;

	two_cold(&f, 4 * MIB);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	f.regions[1].bytes = 8 * MIB;
	check_displaces(&f, 11 * SEC, 0);

	two_cold(&f, 8 * MIB);
	check_displaces(&f, 11 * SEC, 8 * MIB);
}

/* A page one scan saw is not taken; seen by a second scan it goes up. */
static void test_samples_confirmed(void)
{
	const uint64_t free_bytes[4] = { 512 * MIB, 0, 0, 0 };
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_sample(&f, 0x100000, 2, 10 * MSEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_PROMOTION, 2, 0, 0x100000, PAGE);
	fixture_done(&f);
}

/* Growing 100M a second: the smoothed rate is 25M/s after one interval, so
 * tier 0 keeps 50M free (2 s of it): 10M free, 40M demoted from its
 * cheapest memory whatever its rate; a hot candidate finds no room left
 * on tier 0 and no victim (the warm one is not 8 times colder). */
static void test_reserve(void)
{
	const uint64_t free_bytes[4] = { 10 * MIB, 0, 512 * MIB, 512 * MIB };
	struct tierd_exchange_stats st;
	struct fixture f;

	fixture_baseline(&f, ops, GIB, free_bytes, NULL);
	fixture_region(&f, 0, 64 * MIB, 0, 10, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	f.standing.usage_bytes = 100 * MIB;
	fixture_region(&f, GIB, 4 * MIB, 3, 20, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 11 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_RESERVE_DEMOTION, 0, 2, 0, 40 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 2, GIB, 4 * MIB);
	st = stats(&f);
	CHECK_EQ_U64(st.alloc_rate, 25 * MIB);
	CHECK_EQ_U64(st.reserve_bytes, 40 * MIB);
	fixture_done(&f);
}

/* The budget pays every move: with 6M, a 4M exchange spends 8M, so 3M go
 * each way. */
static void test_budget(void)
{
	struct fixture f;

	fixture_baseline(&f, ops, GIB, two_full, NULL);
	f.in.budget_bytes = 6 * MIB;
	fixture_region(&f, 0, 8 * MIB, 0, 0, 5, SEC);
	fixture_region(&f, 64 * MIB, 4 * MIB, 3, 20, 5, SEC);
	CHECK_EQ_INT(fixture_tick(&f, 10 * SEC), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_MOVE(&f.out, 0, TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, 0, 3 * MIB);
	CHECK_MOVE(&f.out, 1, TIERD_REASON_EXCHANGE_PROMOTION, 3, 0, 64 * MIB, 3 * MIB);
	fixture_done(&f);
}

static void test_ops(void)
{
	CHECK_EQ_STR(ops->name, "exchange");
	CHECK(ops->profile == NULL);
	CHECK(tierd_strategy_get(TIERD_STRATEGY_EXCHANGE) == ops);
	CHECK_EQ_INT(TIERD_STRATEGY_DEFAULT, TIERD_STRATEGY_EXCHANGE);
}

int main(void)
{
	test_params();
	test_exchange();
	test_gain_gate();
	test_density_order();
	test_age();
	test_samples_confirmed();
	test_reserve();
	test_arrivals();
	test_budget();
	test_ops();
	return tierd_test_finish();
}
