/* The migflow strategy (the MigFlow README) driven directly through
 * its ops: placement advice, quick demotion timing, cost-benefit promotion
 * on both sides of break-even, alpha from the tier-0 hit ratio, LFU
 * demotion, the per-phase budget, and params errors. Every expected value
 * is worked out by hand in the comment above it. */
#include "../policy/strategy_migflow.h"
#include "../policy/strategy_scratch.h"
#include "strategy_fixture.h"

TIERD_TEST_MAIN_COUNTS;

#define KIB 1024ull
#define AGGR_100MS (100 * MSEC)
#define QUICK TIERD_REASON_QUICK_DEMOTION
#define PROMOTE TIERD_REASON_COST_BENEFIT_PROMOTION
#define LFU TIERD_REASON_LFU_DEMOTION

static const uint32_t sim_lat[4] = { 80, 140, 300, 600 };   /* Mole Table 2 */
static const uint32_t round_lat[4] = { 100, 200, 300, 400 }; /* easy arithmetic */

static const struct tierd_strategy_ops *const ops = &tierd_strategy_migflow;

/* Four tiers of one node each, 1 GiB, with the given read latencies (0 =
 * no HMAT), like tests/test_core.c's four_tiers(). */
static void four_tiers(struct tierd_topology *topo, const uint32_t *lat)
{
	const uint64_t gib[FIXTURE_TIERS] = { GIB, GIB, GIB, GIB };

	fixture_topology(topo, FIXTURE_TIERS, gib, gib, lat);
}

/* A strategy on four tiers with plenty of room, no share cap and no
 * engine budget: only the strategy's own limits apply. */
static int fixture_init(struct fixture *f, const uint32_t *lat, const char *params)
{
	int r;

	memset(f, 0, sizeof(*f));
	four_tiers(&f->topo, lat);
	r = fixture_start(f, ops, params);
	if (r < 0)
		fprintf(stderr, "init: %s\n", f->err);
	return r;
}

/* One tick: observe then plan, as the engine calls them. */
static int tick(struct fixture *f, uint64_t now, const struct tierd_region *regions, size_t n)
{
	f->hot.regions = regions;
	f->hot.nr_regions = n;
	return fixture_tick(f, now);
}

static struct tierd_region region(uint64_t start, uint64_t bytes, int tier, uint32_t nr)
{
	return (struct tierd_region){ .start = start, .end = start + bytes, .tier = tier,
				      .nr_accesses = nr, .max_accesses = 20,
				      .aggr_usec = AGGR_100MS };
}

static struct tierd_migflow_stats stats_of(const struct fixture *f)
{
	struct tierd_migflow_stats st;

	tierd_migflow_stats(f->state, &st);
	return st;
}

/* Lowest-latency-first allocation: the fastest tier with room. */
static void test_place(void)
{
	struct tierd_topology topo;
	uint64_t room[4] = { GIB, GIB, GIB, GIB };
	const uint32_t shuffled[4] = { 300, 80, 140, 600 };
	const uint32_t unknown[4] = { 300, 80, 0, 600 };

	four_tiers(&topo, sim_lat);
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 0);
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, 0), 0);
	room[0] = PAGE - 1;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 1);
	room[1] = 0;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 2);
	/* Room for one page but not two. */
	room[2] = PAGE;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, 2 * PAGE), 3);
	room[3] = 0;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, 2 * PAGE), -ENOSPC);

	/* Latency, not tier order, decides: 80 (tier 1), 140 (tier 2),
	 * 300 (tier 0), 600 (tier 3). */
	four_tiers(&topo, shuffled);
	for (int t = 0; t < 4; t++)
		room[t] = GIB;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 1);
	room[1] = 0;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 2);
	room[2] = 0;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 0);

	/* One latency unknown: tier order. */
	four_tiers(&topo, unknown);
	for (int t = 0; t < 4; t++)
		room[t] = GIB;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 0);
	room[0] = 0;
	CHECK_EQ_INT(tierd_migflow_place(&topo, room, PAGE), 1);
}

/* burst 2 s, grace 1 s, ticks every second. Everything appears at t = 1:
 * the burst lasts to t = 3, where the grace window starts (its access bit
 * cleared: t = 3's window is still the burst's); grace ends at t = 4 and
 * decides on t = 4's window. A (tier 0) stays idle: cooled, quick-demoted
 * at t = 4 to tier 3, the slowest. B is accessed at t = 4: warm. C (tier
 * 2) cools too, but tier 3 has room for A only (64K): C waits in the queue,
 * is accessed at t = 5 and is dropped as re-accessed. Regions come in
 * reverse address order: the strategy sorts them. */
static void test_quick_demotion(void)
{
	const uint64_t a = 0x100000, b = 0x200000, c = 0x300000, size = 64 * KIB;
	struct tierd_region regs[3];
	struct tierd_migflow_stats st;
	struct fixture f;

	/* A migration too dear for any promotion: only quick demotion. */
	CHECK_EQ_INT(fixture_init(&f, sim_lat,
				  "{\"burst\": \"2s\", \"grace\": \"1s\", "
				  "\"migration_cost_per_page\": \"1s\"}"),
		     0);
	f.in.room_bytes[3] = size;
	for (uint64_t t = 1; t <= 3; t++) {
		/* Burst accesses are expected and ignored. */
		regs[0] = region(c, size, 2, 0);
		regs[1] = region(b, size, 0, 3);
		regs[2] = region(a, size, 0, 3);
		CHECK_EQ_INT(tick(&f, t * SEC, regs, 3), 0);
		CHECK_EQ_INT(f.out.nr, 0);
	}
	st = stats_of(&f);
	CHECK_EQ_U64(st.tracked_pages, 0);

	regs[0] = region(c, size, 2, 0);
	regs[1] = region(b, size, 0, 1);
	regs[2] = region(a, size, 0, 0);
	CHECK_EQ_INT(tick(&f, 4 * SEC, regs, 3), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], QUICK, 0, 3, a, size);
	st = stats_of(&f);
	CHECK_EQ_U64(st.tracked_pages, 48);
	CHECK_EQ_U64(st.cooled_pages, 32);
	CHECK_EQ_U64(st.warm_pages, 16);
	CHECK_EQ_U64(st.reaccessed_pages, 0);
	CHECK_EQ_U64(st.queued_bytes, size);
	CHECK_EQ_U64(st.quick_demoted_bytes, size);

	/* A has moved; C is touched before tier 3 could take it. */
	f.in.room_bytes[3] = GIB;
	regs[0] = region(c, size, 2, 2);
	regs[1] = region(b, size, 0, 0);
	regs[2] = region(a, size, 3, 0);
	CHECK_EQ_INT(tick(&f, 5 * SEC, regs, 3), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	st = stats_of(&f);
	CHECK_EQ_U64(st.reaccessed_pages, 16);
	CHECK_EQ_U64(st.queued_bytes, 0);

	/* Idle again, but no longer tracked: nothing moves, nothing is
	 * tracked anew. */
	regs[0] = region(c, size, 2, 0);
	for (uint64_t t = 6; t <= 10; t++) {
		CHECK_EQ_INT(tick(&f, t * SEC, regs, 3), 0);
		CHECK_EQ_INT(f.out.nr, 0);
	}
	st = stats_of(&f);
	CHECK_EQ_U64(st.tracked_pages, 48);
	CHECK_EQ_U64(st.quick_demoted_bytes, size);
	fixture_done(&f);
}

/* A reading repeated from an earlier tick says nothing of grace: A's
 * accesses in it at t = 4 are the burst's, seen again, so A is not warm;
 * the first fresh idle tick after its grace (t = 5) demotes it. */
static void test_quick_demotion_repeated(void)
{
	const uint64_t a = 0x100000, size = 64 * KIB;
	struct tierd_region reg;
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, sim_lat,
				  "{\"burst\": \"2s\", \"grace\": \"1s\", "
				  "\"migration_cost_per_page\": \"1s\"}"),
		     0);
	f.in.room_bytes[3] = size;
	reg = region(a, size, 0, 3);
	for (uint64_t t = 1; t <= 3; t++) {
		CHECK_EQ_INT(tick(&f, t * SEC, &reg, 1), 0);
		CHECK_EQ_INT(f.out.nr, 0);
	}
	f.hot.regions_repeated = true;
	CHECK_EQ_INT(tick(&f, 4 * SEC, &reg, 1), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_U64(stats_of(&f).warm_pages, 0);
	f.hot.regions_repeated = false;
	reg.nr_accesses = 0;
	CHECK_EQ_INT(tick(&f, 5 * SEC, &reg, 1), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], QUICK, 0, 3, a, size);
	CHECK_EQ_U64(stats_of(&f).cooled_pages, 16);
	fixture_done(&f);
}

/* Defaults, burst 15 s and grace 2 s: memory first seen at t = 0 enters
 * grace at t = 15 and is demoted at t = 17, not a tick earlier. Memory
 * appearing later (t = 5) is tracked from then: demoted at t = 22. */
static void test_quick_demotion_default_timing(void)
{
	const uint64_t a = 0x100000, late = 0x800000, size = 8 * KIB;
	struct tierd_region regs[2];
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, sim_lat, NULL), 0);
	for (uint64_t t = 0; t <= 22; t++) {
		size_t n = 1;

		regs[0] = region(a, size, 1, 0);
		if (t >= 5)
			regs[n++] = region(late, size, 0, 0);
		if (t > 17)
			regs[0].tier = 3;
		if (t > 22)
			regs[1].tier = 3;
		CHECK_EQ_INT(tick(&f, t * SEC, regs, n), 0);
		if (t == 17) {
			CHECK_EQ_INT(f.out.nr, 1);
			if (f.out.nr == 1)
				CHECK_ACTION(&f.out.items[0], QUICK, 1, 3, a, size);
		} else if (t == 22) {
			CHECK_EQ_INT(f.out.nr, 1);
			if (f.out.nr == 1)
				CHECK_ACTION(&f.out.items[0], QUICK, 0, 3, late, size);
		} else if (f.out.nr) {
			CHECK_EQ_INT(f.out.nr, 0);
			fprintf(stderr, "  unexpected action at t = %llu s\n",
				(unsigned long long)t);
		}
	}
	fixture_done(&f);
}

/* Latencies 100/200/300/400 ns, 20 us a page, horizon 10 s, windows of
 * 100 ms: a page of a region seen accessed n times a window is accessed
 * 100 n times over the horizon.
 *   hot0  tier 0, 1 page, n 1:  weight 100
 *   even2 tier 2, 1 page, n 1:  100 x (300 - 100) = 20000 = 20000 x 1.0: no
 *   even1 tier 1, 1 page, n 2:  200 x (200 - 100) = 20000: no
 *   win2  tier 2, 1 page, n 2:  200 x 200 = 40000 > 20000: gain 20000
 *   win3  tier 3, 1 page, n 2:  200 x 300 = 60000 > 20000: gain 40000
 * Hit ratio 100 / (100 + 100 + 200 + 200 + 200) = 1250: 4 x 0.125 = 0.5,
 * below alpha_min, alpha 1.0. win3 goes first (higher gain). */
static void test_cost_benefit(void)
{
	const uint64_t hot0 = 0x10000, even2 = 0x20000, even1 = 0x30000, win2 = 0x40000,
		       win3 = 0x50000;
	struct tierd_region regs[5];
	struct tierd_migflow_stats st;
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	st = stats_of(&f);
	CHECK_EQ_U64(st.alpha_pmy, 40000); /* the artifact starts at its base, 4 */
	regs[0] = region(hot0, PAGE, 0, 1);
	regs[1] = region(even2, PAGE, 2, 1);
	regs[2] = region(even1, PAGE, 1, 2);
	regs[3] = region(win2, PAGE, 2, 2);
	regs[4] = region(win3, PAGE, 3, 2);
	CHECK_EQ_INT(tick(&f, SEC, regs, 5), 0);
	st = stats_of(&f);
	CHECK_EQ_U64(st.hit_ratio_pmy, 1250);
	CHECK_EQ_U64(st.alpha_pmy, 10000);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_ACTION(&f.out.items[0], PROMOTE, 3, 0, win3, PAGE);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 2, 0, win2, PAGE);
	}
	CHECK_EQ_U64(stats_of(&f).promoted_bytes, 2 * PAGE);

	/* A dearer migration, 40 us: win3 still pays (60000 > 40000), win2
	 * now only breaks even (40000 = 40000 x 1.0): it stays. */
	fixture_done(&f);
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"migration_cost_per_page\": \"40us\"}"), 0);
	CHECK_EQ_INT(tick(&f, SEC, regs, 5), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 3, 0, win3, PAGE);
	fixture_done(&f);

	/* Tier 0 full, and hot0 (now n 2: 200 a page, h = 200 / 900, alpha
	 * still 1.0) is not colder than the candidates, so LFU demotion frees
	 * nothing: the next tier down must pay on its own. win3 into tier 1:
	 * 200 x (400 - 200) = 40000, not above 40 us; above 39 us. */
	regs[0].nr_accesses = 2;
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"migration_cost_per_page\": \"40us\"}"), 0);
	f.in.room_bytes[0] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 5), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"migration_cost_per_page\": \"39us\"}"), 0);
	f.in.room_bytes[0] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 5), 0);
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 10000);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 3, 1, win3, PAGE);
	fixture_done(&f);
}

/* alpha = max(alpha_min, 4 x h) prices a move that must displace what
 * tier 0 holds. hot0: 5 pages, n 1, weight 500; cand2: 1 page n 2, weight
 * 200; cand3: 1 page n 3, weight 300. h = 500 / 1000 = 0.5, alpha 2.0.
 * Tier 0 full: cand2 saves 200 x 200 = 40000 = 20000 x 2.0: no; cand3
 * saves 300 x 200 = 60000 > 40000: yes, after LFU demotion of a page of
 * hot0 (100 a page, colder) to tier 1. With free room in tier 0 nothing is
 * displaced and alpha_min (1.0) applies: both move. A tick without
 * observations keeps alpha; alpha_min 2.5 lifts it; without the dynamic
 * factor it is 4. */
static void test_alpha(void)
{
	struct tierd_region regs[3] = {
		region(0x10000, 5 * PAGE, 0, 1),
		region(0x20000, PAGE, 2, 2),
		region(0x30000, PAGE, 2, 3),
	};
	struct tierd_migflow_stats st;
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 3), 0);
	st = stats_of(&f);
	CHECK_EQ_U64(st.hit_ratio_pmy, 5000);
	CHECK_EQ_U64(st.alpha_pmy, 20000);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_ACTION(&f.out.items[0], LFU, 0, 1, 0x10000, PAGE);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 2, 0, 0x30000, PAGE);
	}
	fixture_done(&f);

	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	CHECK_EQ_INT(tick(&f, SEC, regs, 3), 0);
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 20000);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_ACTION(&f.out.items[0], PROMOTE, 2, 0, 0x30000, PAGE);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 2, 0, 0x20000, PAGE);
	}
	CHECK_EQ_INT(tick(&f, 2 * SEC, NULL, 0), 0);
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 20000);
	/* Everything seen on tier 0: h = 1, alpha 4. */
	regs[1].tier = regs[2].tier = 0;
	CHECK_EQ_INT(tick(&f, 3 * SEC, regs, 3), 0);
	st = stats_of(&f);
	CHECK_EQ_U64(st.hit_ratio_pmy, 10000);
	CHECK_EQ_U64(st.alpha_pmy, 40000);
	fixture_done(&f);

	regs[1].tier = regs[2].tier = 2;
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"alpha_min\": 2.5}"), 0);
	CHECK_EQ_INT(tick(&f, SEC, regs, 3), 0);
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 25000);
	fixture_done(&f);

	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"dynamic_alpha\": false}"), 0);
	f.in.room_bytes[0] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 3), 0);
	st = stats_of(&f);
	CHECK_EQ_U64(st.hit_ratio_pmy, 5000);
	CHECK_EQ_U64(st.alpha_pmy, 40000);
	/* 60000 < 20000 x 4: nothing pays its way into a full tier 0. */
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
}

/* Tier 0 has no room. Its regions: v1 (8K, n 0, age 5), v2 (8K, n 0, age
 * 9), hot (8K, n 5: 500 accesses a page). The candidate, 12K on tier 2
 * with n 3 (300 a page), saves 300 x 200 = 60000 a page; h = 1000 / 1900
 * = 5263, alpha 2.1052, cost 42104: it pays. LFU demotion frees 12K of
 * tier 0, oldest idle first: all of v2, then the first 4K of v1, to tier 1
 * (the next down with room); the promotion follows them. hot is not
 * colder than the candidate and stays. */
static void test_lfu_demotion(void)
{
	const uint64_t v1 = 0x100000, v2 = 0x200000, hot = 0x300000, cand = 0x400000;
	struct tierd_region regs[4] = {
		region(v1, 8 * KIB, 0, 0),
		region(v2, 8 * KIB, 0, 0),
		region(hot, 8 * KIB, 0, 5),
		region(cand, 12 * KIB, 2, 3),
	};
	struct fixture f;

	regs[0].age = 5;
	regs[1].age = 9;
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 4), 0);
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 21052);
	CHECK_EQ_INT(f.out.nr, 3);
	if (f.out.nr == 3) {
		CHECK_ACTION(&f.out.items[0], LFU, 0, 1, v2, 8 * KIB);
		CHECK_ACTION(&f.out.items[1], LFU, 0, 1, v1, 4 * KIB);
		CHECK_ACTION(&f.out.items[2], PROMOTE, 2, 0, cand, 12 * KIB);
	}
	CHECK_EQ_U64(stats_of(&f).lfu_demoted_bytes, 12 * KIB);
	fixture_done(&f);

	/* Tier 0's share, not its room, is what is missing: the same. */
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.share_bytes[0] = 24 * KIB;
	f.standing.tiers[0].anon_bytes = 24 * KIB;
	CHECK_EQ_INT(tick(&f, SEC, regs, 4), 0);
	CHECK_EQ_INT(f.out.nr, 3);
	if (f.out.nr == 3)
		CHECK_ACTION(&f.out.items[2], PROMOTE, 2, 0, cand, 12 * KIB);
	fixture_done(&f);

	/* Only hot on tier 0: nothing colder to give way. Tier 1 is full
	 * too, and the candidate does not pay its way into it (300 x 100 =
	 * 30000 < 42104)... */
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 0;
	f.in.room_bytes[1] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs + 2, 2), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
	/* ...but into tier 1's free room it displaces nothing and pays at
	 * alpha_min (30000 > 20000). */
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs + 2, 2), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 2, 1, cand, 12 * KIB);
	fixture_done(&f);
}

/* Room for new pages: the cgroup's usage (as the engine measured it) grew
 * 64K in the second after its first tick, so its allocation rate is
 * 64K / 4 = 16K/s (smoothed from 0) and the fastest tier keeps 2 s of it,
 * 32K, free. Tier 0 is full: LFU demotion frees 32K of the coldest region
 * there. Then a hot 12K candidate
 * on tier 2 with 32K of room already free: the room is held for new pages,
 * so the candidate pays its way with 12K more of demotion. */
static void test_alloc_headroom(void)
{
	const uint64_t cold = 0x100000, cand = 0x400000;
	struct tierd_region regs[2] = {
		region(cold, 256 * KIB, 0, 0),
		region(cand, 12 * KIB, 2, 3),
	};
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 0;
	f.standing.usage_bytes = 256 * KIB;
	CHECK_EQ_INT(tick(&f, SEC, regs, 1), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	f.standing.usage_bytes = 320 * KIB;
	CHECK_EQ_INT(tick(&f, 2 * SEC, regs, 1), 0);
	CHECK_EQ_U64(stats_of(&f).alloc_rate_bytes, 16 * KIB);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], LFU, 0, 1, cold, 32 * KIB);
	fixture_done(&f);

	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 32 * KIB;
	f.standing.usage_bytes = 256 * KIB;
	CHECK_EQ_INT(tick(&f, SEC, regs, 2), 0);
	f.standing.usage_bytes = 320 * KIB;
	CHECK_EQ_INT(tick(&f, 2 * SEC, regs, 2), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_ACTION(&f.out.items[0], LFU, 0, 1, cold, 12 * KIB);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 2, 0, cand, 12 * KIB);
	}
	fixture_done(&f);

	/* No growth, no room kept: the candidate takes the free room. */
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = 32 * KIB;
	f.standing.usage_bytes = 256 * KIB;
	CHECK_EQ_INT(tick(&f, SEC, regs, 2), 0);
	CHECK_EQ_INT(tick(&f, 2 * SEC, regs, 2), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 2, 0, cand, 12 * KIB);
	fixture_done(&f);
}

/* 16K per 10 s. Three 8K candidates that pay: two go at t = 0, none at
 * t = 5 (the phase is spent), two again at t = 10 (a new phase). The
 * engine's own budget clips further. */
static void test_phase_budget(void)
{
	struct tierd_region regs[4] = {
		region(0x10000, PAGE, 0, 1),
		region(0x20000, 8 * KIB, 3, 3),
		region(0x30000, 8 * KIB, 3, 2),
		region(0x40000, 8 * KIB, 3, 1),
	};
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat,
				  "{\"budget\": {\"bytes\": \"16K\", \"period\": \"10s\"}}"),
		     0);
	CHECK_EQ_U64(stats_of(&f).phase_budget_bytes, 16 * KIB);
	CHECK_EQ_INT(tick(&f, 0, regs, 4), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_ACTION(&f.out.items[0], PROMOTE, 3, 0, 0x20000, 8 * KIB);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 3, 0, 0x30000, 8 * KIB);
	}
	CHECK_EQ_U64(stats_of(&f).phase_used_bytes, 16 * KIB);
	CHECK_EQ_INT(tick(&f, 5 * SEC, regs, 4), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_INT(tick(&f, 10 * SEC - 1, regs, 4), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_INT(tick(&f, 10 * SEC, regs, 4), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	CHECK_EQ_U64(stats_of(&f).phase_used_bytes, 16 * KIB);
	/* The engine leaves 4K: the best candidate's first page. */
	f.in.budget_bytes = 4 * KIB;
	CHECK_EQ_INT(tick(&f, 20 * SEC, regs, 4), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 3, 0, 0x20000, 4 * KIB);
	CHECK_EQ_U64(stats_of(&f).phase_used_bytes, 4 * KIB);
	fixture_done(&f);
}

/* The [Phase] order: quick demotion first with at most half the budget
 * (32K: 16K), then promotion, then quick demotion with the rest. burst 0,
 * grace 1 ms: seen at t = 1, in grace at t = 2, cooled at t = 3. */
static void test_phase_order(void)
{
	const uint64_t cold = 0x100000, cand = 0x900000;
	struct tierd_region regs[2] = {
		region(cold, 64 * KIB, 0, 0),
		region(cand, 8 * KIB, 3, 3),
	};
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat,
				  "{\"burst\": \"0s\", \"grace\": \"1ms\", \"budget\": "
				  "{\"bytes\": \"32K\", \"period\": \"1h\"}}"),
		     0);
	/* The candidate idles until t = 3: nothing moves before. Then it is
	 * warm (seen in grace); alpha 1.0 (no access on tier 0), and it saves
	 * 300 x 300 = 90000 > 20000 a page. */
	regs[1].nr_accesses = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 2), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_INT(tick(&f, 2 * SEC, regs, 2), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	regs[1].nr_accesses = 3;
	CHECK_EQ_INT(tick(&f, 3 * SEC, regs, 2), 0);
	CHECK_EQ_INT(f.out.nr, 3);
	if (f.out.nr == 3) {
		CHECK_ACTION(&f.out.items[0], QUICK, 0, 3, cold, 16 * KIB);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 3, 0, cand, 8 * KIB);
		CHECK_ACTION(&f.out.items[2], QUICK, 0, 3, cold + 16 * KIB, 8 * KIB);
	}
	/* The rest of the cooled region waits for the next phase. */
	CHECK_EQ_U64(stats_of(&f).queued_bytes, 40 * KIB);
	CHECK_EQ_U64(stats_of(&f).quick_demoted_bytes, 24 * KIB);
	fixture_done(&f);

	/* The same with the cold region holding 32K of its 64K span: the
	 * half is half of the budget's cost, the span. 16K of span holds 8K;
	 * the promotion takes 8K; the last 8K of budget pays 8K of span
	 * holding 4K. (Charging the bytes took the whole budget in the first
	 * pass: 16K in 32K of span, and no promotion.) */
	CHECK_EQ_INT(fixture_init(&f, round_lat,
				  "{\"burst\": \"0s\", \"grace\": \"1ms\", \"budget\": "
				  "{\"bytes\": \"32K\", \"period\": \"1h\"}}"),
		     0);
	regs[0].bytes = 32 * KIB;
	regs[1].nr_accesses = 0;
	CHECK_EQ_INT(tick(&f, SEC, regs, 2), 0);
	CHECK_EQ_INT(tick(&f, 2 * SEC, regs, 2), 0);
	regs[1].nr_accesses = 3;
	CHECK_EQ_INT(tick(&f, 3 * SEC, regs, 2), 0);
	CHECK_EQ_INT(f.out.nr, 3);
	if (f.out.nr == 3) {
		CHECK_EQ_INT(f.out.items[0].reason, QUICK);
		CHECK_EQ_U64(f.out.items[0].start, cold);
		CHECK_EQ_U64(f.out.items[0].end, cold + 16 * KIB);
		CHECK_EQ_U64(f.out.items[0].bytes, 8 * KIB);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 3, 0, cand, 8 * KIB);
		CHECK_EQ_INT(f.out.items[2].reason, QUICK);
		CHECK_EQ_U64(f.out.items[2].start, cold + 16 * KIB);
		CHECK_EQ_U64(f.out.items[2].end, cold + 24 * KIB);
		CHECK_EQ_U64(f.out.items[2].bytes, 4 * KIB);
	}
	fixture_done(&f);
}

/* Hint-fault samples: a page refaulting after 50 ms and 10 ms is
 * accessed 10 s / 30 ms = 333 times, saving 333 x 200 = 66600 > 20000 (one
 * sample in four on tier 0: h = 0.25, alpha 1.0), proposed once however
 * often it was sampled (twice here: two scans confirm it); one refaulting
 * every second (10 x 200 = 2000) does not pay. */
static void test_samples(void)
{
	const struct tierd_sample samples[4] = {
		{ .addr = 0x20010, .tier = 2, .time_usec = 1, .interval_usec = 50 * MSEC },
		{ .addr = 0x10000, .tier = 0, .time_usec = 2, .interval_usec = 10 * MSEC },
		{ .addr = 0x30000, .tier = 2, .time_usec = 3, .interval_usec = SEC },
		{ .addr = 0x20ff0, .tier = 2, .time_usec = 4, .interval_usec = 10 * MSEC },
	};
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	f.hot.samples = samples;
	f.hot.nr_samples = 4;
	CHECK_EQ_INT(tick(&f, SEC, NULL, 0), 0);
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 10000);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 2, 0, 0x20000, PAGE);
	fixture_done(&f);

	/* One fault is not proof of heat (sample_history.h): a page faulting
	 * once is proposed only when it faults again in a later tick. */
	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	f.hot.samples = &samples[3];
	f.hot.nr_samples = 1;
	CHECK_EQ_INT(tick(&f, SEC, NULL, 0), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK_EQ_INT(tick(&f, 2 * SEC, NULL, 0), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 2, 0, 0x20000, PAGE);
	fixture_done(&f);

	/* A page's estimate is the mean of its remembered intervals, not
	 * the shortest: faulting after 10 ms once and 990 ms once, it is
	 * accessed 10 s / 500 ms = 20 times, saving 20 x 200 = 4000 < 20000.
	 * (The shortest would say 1000 times: a cold page's lucky fault.) */
	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	{
		const struct tierd_sample lucky[2] = {
			{ .addr = 0x40000, .tier = 2, .time_usec = 1, .interval_usec = 10 * MSEC },
			{ .addr = 0x40000, .tier = 2, .time_usec = 2, .interval_usec = 990 * MSEC },
		};

		f.hot.samples = lucky;
		f.hot.nr_samples = 2;
		CHECK_EQ_INT(tick(&f, SEC, NULL, 0), 0);
	}
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);

	/* With regions too (one idle 1 MiB region on tier 1): the samples
	 * still count, the same page goes up and nothing else. */
	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	f.hot.samples = samples;
	f.hot.nr_samples = 4;
	{
		const struct tierd_region idle = region(0x1000000, MIB, 1, 0);

		CHECK_EQ_INT(tick(&f, SEC, &idle, 1), 0);
	}
	CHECK_EQ_U64(stats_of(&f).alpha_pmy, 10000);
	CHECK_EQ_INT(f.out.nr, 1);
	if (f.out.nr == 1)
		CHECK_ACTION(&f.out.items[0], PROMOTE, 2, 0, 0x20000, PAGE);
	fixture_done(&f);

	/* Tiers 0 and 1 full: once the regions had their turn, a sampled
	 * page makes its room by LFU demotion too (an exchange). The idle
	 * tier-0 region holds half its span (attribution's bytes), so the
	 * page of room it gives is two pages of its span, and the budget
	 * pays both. */
	CHECK_EQ_INT(fixture_init(&f, round_lat, "{\"quick_demotion\": false}"), 0);
	f.in.room_bytes[0] = f.in.room_bytes[1] = 0;
	f.hot.samples = samples;
	f.hot.nr_samples = 4;
	{
		struct tierd_region idle = region(0x1000000, 16 * KIB, 0, 0);

		idle.bytes = 8 * KIB;
		CHECK_EQ_INT(tick(&f, SEC, &idle, 1), 0);
	}
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_EQ_INT(f.out.items[0].reason, TIERD_REASON_LFU_DEMOTION);
		CHECK_EQ_U64(f.out.items[0].to_tier, 2);
		CHECK_EQ_U64(f.out.items[0].start, 0x1000000);
		CHECK_EQ_U64(f.out.items[0].end, 0x1000000 + 2 * PAGE);
		CHECK_EQ_U64(f.out.items[0].bytes, PAGE);
		CHECK_ACTION(&f.out.items[1], PROMOTE, 2, 0, 0x20000, PAGE);
	}
	fixture_done(&f);
}

static void test_params(void)
{
	char err[256] = "";
	void *state = NULL;
	struct tierd_migflow_stats st;

	CHECK_EQ_INT(strategy_init(&tierd_strategy_migflow, NULL, &state, err, sizeof(err)), 0);
	tierd_migflow_stats(state, &st);
	CHECK_EQ_U64(st.phase_budget_bytes, 800 * MIB);
	CHECK_EQ_U64(st.alpha_pmy, 40000);
	tierd_strategy_migflow.free(state);
	CHECK_EQ_INT(strategy_init(&tierd_strategy_migflow,
			     "{\"burst\": \"15s\", \"grace\": \"2s\", \"migration_cost_per_page\": "
			     "\"20us\", \"horizon\": \"10s\", \"alpha_min\": 1, \"dynamic_alpha\": "
			     "true, \"quick_demotion\": true, \"budget\": {\"bytes\": 838860800, "
			     "\"period\": \"10s\"}}",
			     &state, err, sizeof(err)),
		     0);
	tierd_migflow_stats(state, &st);
	CHECK_EQ_U64(st.phase_budget_bytes, 800 * MIB);
	tierd_strategy_migflow.free(state);

	check_param_error(ops, "[1]", "expected a JSON object of params, got [1]");
	check_param_error(ops, "{\"burts\": \"1s\"}",
			  "\"burts\": unknown key; expected one of: burst, grace, "
			  "migration_cost_per_page, horizon, alpha_min, dynamic_alpha, "
			  "quick_demotion, budget");
	check_param_error(ops, "{\"burst\": 3}",
			  "\"burst\": expected a duration from 0s to 1h such as \"15s\", got 3");
	check_param_error(ops, "{\"burst\": \"2h\"}",
			  "\"burst\": expected a duration from 0s to 1h such as \"15s\", "
			  "got \"2h\"");
	check_param_error(ops, "{\"grace\": \"0s\"}",
			  "\"grace\": expected a duration from 1ms to 1h such as \"2s\", "
			  "got \"0s\"");
	check_param_error(ops, "{\"migration_cost_per_page\": \"20\"}",
			  "\"migration_cost_per_page\": expected a duration from 0us to 1s such "
			  "as \"20us\", got \"20\"");
	check_param_error(ops, "{\"horizon\": null}",
			  "\"horizon\": expected a duration from 1ms to 1h such as \"10s\", "
			  "got null");
	check_param_error(ops, "{\"alpha_min\": -1}",
			  "\"alpha_min\": expected a number from 0 to 100 such as 1.0, got -1");
	check_param_error(ops, "{\"alpha_min\": \"1.0\"}",
			  "\"alpha_min\": expected a number from 0 to 100 such as 1.0, "
			  "got \"1.0\"");
	check_param_error(ops, "{\"dynamic_alpha\": 1}",
			  "\"dynamic_alpha\": expected true or false, got 1");
	check_param_error(ops, "{\"quick_demotion\": \"no\"}",
			  "\"quick_demotion\": expected true or false, got \"no\"");
	check_param_error(ops, "{\"budget\": \"800M\"}",
			  "\"budget\": expected an object such as "
			  "{\"bytes\": \"800M\", \"period\": \"10s\"}, got \"800M\"");
	check_param_error(ops, "{\"budget\": {\"bytes\": \"800M\"}}",
			  "\"budget\": expected an object such as "
			  "{\"bytes\": \"800M\", \"period\": \"10s\"}, got {\"bytes\":\"800M\"}");
	check_param_error(ops, "{\"budget\": {\"bytes\": \"8x\", \"period\": \"10s\"}}",
			  "\"budget.bytes\": expected a size such as \"800M\" or a number of "
			  "bytes, got \"8x\"");
	check_param_error(ops, "{\"budget\": {\"bytes\": -1, \"period\": \"10s\"}}",
			  "\"budget.bytes\": expected a size such as \"800M\" or a number of "
			  "bytes, got -1");
	check_param_error(ops, "{\"budget\": {\"bytes\": 1, \"period\": \"0s\"}}",
			  "\"budget.period\": expected a duration from 1ms to 1h such as \"10s\", "
			  "got \"0s\"");
	check_param_error(ops, "{\"budget\": {\"bytes\": 1, \"period\": \"1s\", \"max\": 2}}",
			  "\"budget.max\": unknown key; expected one of: bytes, period");
}

/* The radix sort is stable and orders full 64-bit keys. */
static void test_radix_sort(void)
{
	const uint64_t keys[6] = { 5, UINT64_MAX, 0x100000000ull, 5, 0, 0x1ff };
	size_t idx[6] = { 0, 1, 2, 3, 4, 5 }, tmp[6];
	const size_t want[6] = { 4, 0, 3, 5, 2, 1 };

	tierd_radix_sort(keys, idx, tmp, 6);
	for (int i = 0; i < 6; i++)
		CHECK_EQ_U64(idx[i], want[i]);
	tierd_radix_sort(keys, idx, tmp, 0);
}

/* Fewer than two tiers: nothing to do, and no crash. */
static void test_one_tier(void)
{
	struct tierd_region regs[1] = { region(0x10000, PAGE, 0, 1) };
	struct fixture f;

	CHECK_EQ_INT(fixture_init(&f, round_lat, NULL), 0);
	f.topo.nr_tiers = 1;
	CHECK_EQ_INT(tick(&f, SEC, regs, 1), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
}

int main(void)
{
	test_place();
	test_quick_demotion();
	test_quick_demotion_default_timing();
	test_quick_demotion_repeated();
	test_cost_benefit();
	test_alpha();
	test_lfu_demotion();
	test_alloc_headroom();
	test_phase_budget();
	test_phase_order();
	test_samples();
	test_params();
	test_radix_sort();
	test_one_tier();
	return tierd_test_finish();
}
