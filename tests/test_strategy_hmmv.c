/* The HMM-V strategy, driven through its ops on a
 * hand-built 4-tier machine: page-degree weights, the bucket sort, the hot
 * set sized to the fast tier (and to a smaller pool share), the exchange,
 * the multi-level queue's do-not-disturb waits, the tracking clock switch and
 * the params errors. Sizes are in pages so the expected values read plainly. */
#include "../policy/hmmv_bucket.h"
#include "../policy/strategy_hmmv.h"
#include "strategy_fixture.h"

TIERD_TEST_MAIN_COUNTS;

#define NR_TIERS FIXTURE_TIERS
#define WINDOW_USEC (600 * TIERD_USEC_PER_MSEC)
#define SAMPLES_PER_WINDOW 20u
#define AGGR_USEC (100 * TIERD_USEC_PER_MSEC)
/* Region addresses: region i starts at BASE + i MiB, far apart. */
#define BASE (1ull << 32)

static const struct tierd_strategy_ops *const ops = &tierd_strategy_hmmv;

/* One node per tier; total and free in pages. */
static void four_tiers(struct tierd_topology *topo, const uint64_t *total_pages,
		       const uint64_t *free_pages)
{
	uint64_t total[NR_TIERS], free_bytes[NR_TIERS];

	for (size_t t = 0; t < NR_TIERS; t++) {
		total[t] = total_pages[t] * PAGE;
		free_bytes[t] = free_pages[t] * PAGE;
	}
	fixture_topology(topo, NR_TIERS, total, free_bytes, NULL);
}

static struct tierd_region region(unsigned i, uint64_t pages, int tier, uint32_t accesses)
{
	return (struct tierd_region){ .start = BASE + i * MIB, .end = BASE + i * MIB + pages * PAGE,
				      .tier = tier, .nr_accesses = accesses,
				      .max_accesses = SAMPLES_PER_WINDOW, .aggr_usec = AGGR_USEC };
}

/* Starts the strategy; held pages per tier go in the standing. */
static void setup(struct fixture *f, const char *params, const uint64_t *total_pages,
		  const uint64_t *free_pages, const uint64_t *held_pages)
{
	memset(f, 0, sizeof(*f));
	four_tiers(&f->topo, total_pages, free_pages);
	f->obs.id = 1;
	for (size_t t = 0; t < NR_TIERS; t++) {
		f->obs.anon_bytes[t] = held_pages[t] * PAGE;
		f->standing.tiers[t].anon_bytes = held_pages[t] * PAGE;
	}
	CHECK_EQ_INT(fixture_start(f, ops, params), 0);
	CHECK_EQ_STR(f->err, "");
}

/* One window: observe then plan, with the machine's free bytes as room and
 * no share or budget limit unless the caller set them after this. */
static void input(struct fixture *f, const struct tierd_region *regions, size_t n, uint64_t now)
{
	f->hot = (struct tierd_hotness){ .nr_regions = n, .regions = regions };
	fixture_wire(f);
	f->in.now_usec = now;
}

static int step(struct fixture *f)
{
	return fixture_tick(f, f->in.now_usec);
}

/* Action *a moves `pages` pages from start. */
#define CHECK_PAGES(a, reason, from, to, start, pages)                          \
	CHECK_ACTION(a, reason, from, to, start, (pages) * PAGE)

static const uint64_t big_total[NR_TIERS] = { 64, 64, 64, 64 };
static const uint64_t big_free[NR_TIERS] = { 64, 64, 64, 64 };
static const uint64_t nothing_held[NR_TIERS] = { 0 };

static void test_bucket_sort(void)
{
	/* 2000 and 1023 both clamp into the last bucket and keep their order. */
	const uint64_t degree[] = { 5, 0, 7, 5, 2000, 1023, 7 };
	const size_t expected[] = { 4, 5, 2, 6, 0, 3, 1 };
	size_t order[7];

	tierd_hmmv_bucket_sort(degree, 7, order);
	for (size_t i = 0; i < 7; i++)
		CHECK_EQ_INT(order[i], expected[i]);
	tierd_hmmv_bucket_sort(degree, 0, order);
	CHECK_EQ_INT(order[0], 4);
}

/* Degree = 1 * reads + 3 * writes, nr_accesses as reads when the sampler
 * cannot tell; with everything on tier 1 and room on tier 0 the promotions
 * come hottest first. */
static void test_degree_weights(void)
{
	struct tierd_region r[4] = {
		region(0, 1, 1, 0), region(1, 1, 1, 0), region(2, 1, 1, 4), region(3, 1, 1, 0),
	};
	struct fixture f;

	r[0].reads = 2;                 /* 2 */
	r[1].writes = 1;                /* 3 */
	r[2].reads = 0;                 /* nr_accesses 4 as reads: 4 */
	r[3].reads = 1;                 /* 1 + 3 = 4 */
	r[3].writes = 1;
	r[3].nr_accesses = 9;           /* ignored: reads/writes known */
	setup(&f, "{\"round_windows\": 1}", big_total, big_free, nothing_held);
	input(&f, r, 4, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 4);
	if (f.out.nr == 4) {
		CHECK_PAGES(&f.out.items[0], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, r[2].start, 1);
		CHECK_PAGES(&f.out.items[1], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, r[3].start, 1);
		CHECK_EQ_U64(f.out.items[2].start, r[1].start);
		CHECK_EQ_U64(f.out.items[3].start, r[0].start);
	}
	fixture_done(&f);

	/* 3:1 instead: 6, 1, 12, 4. */
	setup(&f, "{\"round_windows\": 1, \"read_weight\": 3, \"write_weight\": 1}", big_total,
	      big_free, nothing_held);
	input(&f, r, 4, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 4);
	if (f.out.nr == 4) {
		CHECK_EQ_U64(f.out.items[0].start, r[2].start);
		CHECK_EQ_U64(f.out.items[1].start, r[0].start);
		CHECK_EQ_U64(f.out.items[2].start, r[3].start);
		CHECK_EQ_U64(f.out.items[3].start, r[1].start);
	}
	fixture_done(&f);
}

/* A round sums its windows (HMM-V §3.2): nothing is planned before the first
 * round completes, and the sums, not the last window, order the regions. */
static void test_round(void)
{
	struct tierd_region r[2] = { region(0, 1, 1, 4), region(1, 1, 1, 3) };
	struct fixture f;

	setup(&f, "{\"round_windows\": 2, \"max_level\": 0}", big_total, big_free, nothing_held);
	input(&f, r, 2, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	r[0].nr_accesses = 0;           /* sums: 4 and 6 */
	input(&f, r, 2, WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_EQ_U64(f.out.items[0].start, r[1].start);
		CHECK_EQ_U64(f.out.items[1].start, r[0].start);
	}
	fixture_done(&f);
}

/* A window whose regions repeat an earlier reading adds nothing to the
 * round: with the first window repeated the round is still incomplete, and
 * the sums are the two distinct windows' (4 and 6, not 8 and 9). */
static void test_repeated_window(void)
{
	struct tierd_region r[2] = { region(0, 1, 1, 4), region(1, 1, 1, 3) };
	struct fixture f;

	setup(&f, "{\"round_windows\": 2, \"max_level\": 0}", big_total, big_free, nothing_held);
	input(&f, r, 2, 0);
	CHECK_EQ_INT(step(&f), 0);
	f.hot.regions_repeated = true;
	f.in.now_usec = WINDOW_USEC;
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	r[0].nr_accesses = 0;
	input(&f, r, 2, 2 * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_EQ_U64(f.out.items[0].start, r[1].start);
		CHECK_EQ_U64(f.out.items[1].start, r[0].start);
	}
	fixture_done(&f);
}

/* Tier 0 of 8 pages, empty: the hot set is the hottest 8 pages, the last
 * region cut; a never-accessed region is not hot. A pool share of 5 pages
 * shrinks it to 5. */
static void test_hot_set(void)
{
	const uint64_t total[NR_TIERS] = { 8, 64, 64, 64 };
	const uint64_t free_pages[NR_TIERS] = { 8, 50, 50, 50 };
	struct tierd_region r[4] = {
		region(0, 4, 1, 10), region(1, 2, 2, 8), region(2, 4, 1, 6), region(3, 4, 1, 0),
	};
	struct tierd_hmmv_stats st;
	struct fixture f;

	setup(&f, "{\"round_windows\": 1}", total, free_pages, nothing_held);
	input(&f, r, 4, 0);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.hot_set_pages, 8);
	CHECK_EQ_INT(f.out.nr, 3);
	if (f.out.nr == 3) {
		CHECK_PAGES(&f.out.items[0], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, r[0].start, 4);
		CHECK_PAGES(&f.out.items[1], TIERD_REASON_HOT_SET_PROMOTION, 2, 0, r[1].start, 2);
		CHECK_PAGES(&f.out.items[2], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, r[2].start, 2);
	}
	CHECK_EQ_U64(st.promoted_bytes, 8 * PAGE);
	fixture_done(&f);

	/* Pool mode: the engine's share of tier 0 is what reaches the strategy. */
	setup(&f, "{\"round_windows\": 1}", total, free_pages, nothing_held);
	input(&f, r, 4, 0);
	f.in.share_bytes[0] = 5 * PAGE;
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.hot_set_pages, 5);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_PAGES(&f.out.items[0], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, r[0].start, 4);
		CHECK_PAGES(&f.out.items[1], TIERD_REASON_HOT_SET_PROMOTION, 2, 0, r[1].start, 1);
	}
	fixture_done(&f);
}

/* Bytes the actions put on tier 0 beyond `room`, at the worst point: the
 * exchange must never need more than its room plus what it freed. */
static int64_t tier0_overfill(const struct tierd_action_list *l, uint64_t room)
{
	int64_t used = 0, worst = 0;

	for (size_t i = 0; i < l->nr; i++) {
		if (l->items[i].to_tier == 0)
			used += (int64_t)l->items[i].bytes;
		if (l->items[i].from_tier == 0)
			used -= (int64_t)l->items[i].bytes;
		if (used - (int64_t)room > worst)
			worst = used - (int64_t)room;
	}
	return worst;
}

/* Tier 0 (8 pages) full: the hottest slow regions are paired with the
 * coldest fast ones outside the hot set, each demoted to the tier its
 * partner comes from, demotion first. */
static void test_exchange(void)
{
	const uint64_t total[NR_TIERS] = { 8, 64, 64, 64 };
	const uint64_t free_pages[NR_TIERS] = { 0, 50, 50, 50 };
	const uint64_t held[NR_TIERS] = { 8, 2, 2, 4 };
	struct tierd_region r[6] = {
		region(0, 4, 0, 1),     /* F0: cool, fast */
		region(1, 2, 0, 9),     /* F1: hot, fast: stays */
		region(2, 2, 0, 0),     /* F2: idle, fast: coldest */
		region(3, 2, 2, 10),    /* S0: hottest, tier 2 */
		region(4, 2, 1, 5),     /* S1: tier 1 */
		region(5, 4, 3, 2),     /* S2: tier 3, half of it in the hot set */
	};
	struct tierd_hmmv_stats st;
	struct fixture f;

	setup(&f, "{\"round_windows\": 1}", total, free_pages, held);
	input(&f, r, 6, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 6);
	if (f.out.nr == 6) {
		CHECK_PAGES(&f.out.items[0], TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, r[2].start, 2);
		CHECK_PAGES(&f.out.items[1], TIERD_REASON_HOT_SET_PROMOTION, 2, 0, r[3].start, 2);
		CHECK_PAGES(&f.out.items[2], TIERD_REASON_EXCHANGE_DEMOTION, 0, 1, r[0].start, 2);
		CHECK_PAGES(&f.out.items[3], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, r[4].start, 2);
		CHECK_PAGES(&f.out.items[4], TIERD_REASON_EXCHANGE_DEMOTION, 0, 3,
			     r[0].start + 2 * PAGE, 2);
		CHECK_PAGES(&f.out.items[5], TIERD_REASON_HOT_SET_PROMOTION, 3, 0, r[5].start, 2);
	}
	CHECK_EQ_INT(tier0_overfill(&f.out, 0), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.hot_set_pages, 8);
	CHECK_EQ_U64(st.promoted_bytes, 6 * PAGE);
	CHECK_EQ_U64(st.demoted_bytes, 6 * PAGE);
	fixture_done(&f);
}

/* One page of room: only one page is demoted for a two-page promotion. */
static void test_exchange_room(void)
{
	const uint64_t total[NR_TIERS] = { 8, 64, 64, 64 };
	const uint64_t free_one[NR_TIERS] = { 1, 50, 50, 50 };
	const uint64_t held_seven[NR_TIERS] = { 7, 2, 0, 0 };
	struct tierd_region q[3] = { region(0, 2, 1, 10), region(1, 5, 0, 5),
				     region(2, 2, 0, 0) };
	struct fixture f;

	setup(&f, "{\"round_windows\": 1}", total, free_one, held_seven);
	input(&f, q, 3, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_PAGES(&f.out.items[0], TIERD_REASON_EXCHANGE_DEMOTION, 0, 1, q[2].start, 1);
		CHECK_PAGES(&f.out.items[1], TIERD_REASON_HOT_SET_PROMOTION, 1, 0, q[0].start, 2);
	}
	CHECK_EQ_INT(tier0_overfill(&f.out, 1 * PAGE), 0);
	fixture_done(&f);
}

/* A budget of 3 pages and no room pays for one page each way; with no cold
 * fast pages left to exchange, HMM-V stops migrating (§5.7). */
static void test_exchange_limits(void)
{
	const uint64_t total[NR_TIERS] = { 8, 64, 64, 64 };
	const uint64_t free_pages[NR_TIERS] = { 0, 50, 50, 50 };
	const uint64_t held[NR_TIERS] = { 8, 2, 2, 4 };
	struct tierd_region r[6] = {
		region(0, 4, 0, 1), region(1, 2, 0, 9), region(2, 2, 0, 0),
		region(3, 2, 2, 10), region(4, 2, 1, 5), region(5, 4, 3, 2),
	};
	struct tierd_region full[2] = { region(0, 8, 0, 9), region(1, 2, 1, 5) };
	struct fixture f;

	setup(&f, "{\"round_windows\": 1}", total, free_pages, held);
	input(&f, r, 6, 0);
	f.in.budget_bytes = 3 * PAGE;
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 2);
	if (f.out.nr == 2) {
		CHECK_PAGES(&f.out.items[0], TIERD_REASON_EXCHANGE_DEMOTION, 0, 2, r[2].start, 1);
		CHECK_PAGES(&f.out.items[1], TIERD_REASON_HOT_SET_PROMOTION, 2, 0, r[3].start, 1);
	}
	fixture_done(&f);

	setup(&f, "{\"round_windows\": 1}", total, free_pages, held);
	input(&f, full, 2, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	fixture_done(&f);
}

/* Multi-level queue (HMM-V §3.2): accessed each time it is sampled, a region
 * climbs a level and rests 1, then 2, then 4 windows; meanwhile it counts as
 * accessed at its last degree; found idle it drops a level. */
static void test_dnd(void)
{
	struct tierd_region r[1] = { region(0, 1, 1, 5) };
	struct tierd_hmmv_stats st;
	struct fixture f;
	uint64_t w = 0;

	setup(&f, "{\"round_windows\": 1}", big_total, big_free, nothing_held);
	CHECK(tierd_hmmv_should_sample(f.state, r[0].start, 0));
	/* Window 0: sampled, accessed: level 1, rests window 1. */
	input(&f, r, 1, w * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	w++;
	CHECK_EQ_U64(tierd_hmmv_window(f.state), 1);
	CHECK(!tierd_hmmv_should_sample(f.state, r[0].start, 1));
	CHECK(tierd_hmmv_should_sample(f.state, r[0].start, 2));
	CHECK(tierd_hmmv_should_sample(f.state, BASE + 100 * MIB, 1));
	/* Window 1: not sampled (reported idle), still hot at degree 5. */
	r[0].nr_accesses = 0;
	input(&f, r, 1, w * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	w++;
	CHECK_EQ_INT(f.out.nr, 1);
	/* Window 2: sampled, accessed: level 2, rests windows 3 and 4. */
	r[0].nr_accesses = 5;
	input(&f, r, 1, w * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	w++;
	CHECK(!tierd_hmmv_should_sample(f.state, r[0].start, 3));
	CHECK(!tierd_hmmv_should_sample(f.state, r[0].start, 4));
	CHECK(tierd_hmmv_should_sample(f.state, r[0].start, 5));
	for (; w < 5; w++) {
		input(&f, r, 1, w * WINDOW_USEC);
		CHECK_EQ_INT(step(&f), 0);
	}
	/* Window 5: level 3, rests windows 6 to 9. */
	input(&f, r, 1, w * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	w++;
	for (uint64_t x = 6; x < 10; x++)
		CHECK(!tierd_hmmv_should_sample(f.state, r[0].start, x));
	CHECK(tierd_hmmv_should_sample(f.state, r[0].start, 10));
	r[0].nr_accesses = 0;
	for (; w < 10; w++) {
		input(&f, r, 1, w * WINDOW_USEC);
		CHECK_EQ_INT(step(&f), 0);
	}
	/* Window 10: sampled, idle: down to level 2, rests 11 and 12. */
	input(&f, r, 1, w * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK(!tierd_hmmv_should_sample(f.state, r[0].start, 12));
	CHECK(tierd_hmmv_should_sample(f.state, r[0].start, 13));
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.skipped_dnd, 1 + 2 + 4);
	CHECK_EQ_U64(st.windows, 11);
	fixture_done(&f);
}

/* Clock switch (HMM-V §3.2): quiet rounds raise the counter up to its limit;
 * each clock tick lowers it by one and tracking runs only at 0. */
static void test_tracking(void)
{
	struct tierd_region r[1] = { region(0, 1, 1, 5) };
	const uint64_t fifth = 200 * TIERD_USEC_PER_MSEC;
	struct tierd_hmmv_stats st;
	struct fixture f;

	setup(&f, "{\"round_windows\": 1, \"max_level\": 0, \"clock_period\": \"1s\", "
		  "\"quiet_migration\": \"1M\"}",
	      big_total, big_free, nothing_held);
	/* 0 s: the first round has nothing before it to judge. */
	input(&f, r, 1, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 1);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 0);
	/* Three quiet rounds, a fourth held at the limit of 3. */
	for (uint64_t i = 1; i <= 4; i++) {
		input(&f, r, 1, i * fifth);
		CHECK_EQ_INT(step(&f), 0);
		tierd_hmmv_stats(f.state, &st);
		CHECK_EQ_INT(st.quiet_counter, i < 3 ? i : 3);
		CHECK(st.tracking_on);
	}
	/* 1 s: the clock ticks, 2 left: off. */
	input(&f, r, 1, TIERD_USEC_PER_SEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK(!tierd_hmmv_tracking_on(f.state));
	CHECK(!tierd_hmmv_should_sample(f.state, r[0].start, tierd_hmmv_window(f.state)));
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 2);
	/* 2 s: 1 left, still off. */
	input(&f, r, 1, 2 * TIERD_USEC_PER_SEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK_EQ_INT(f.out.nr, 0);
	CHECK(!tierd_hmmv_tracking_on(f.state));
	/* 3 s: 0: on again, a fresh round. */
	input(&f, r, 1, 3 * TIERD_USEC_PER_SEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK(tierd_hmmv_tracking_on(f.state));
	CHECK_EQ_INT(f.out.nr, 1);
	/* Busy rounds (2M migrated each) keep the counter at 0 across a tick. */
	f.feedback.promoted_bytes = 2 * MIB;
	for (uint64_t i = 1; i <= 4; i++) {
		input(&f, r, 1, 3 * TIERD_USEC_PER_SEC + i * fifth);
		CHECK_EQ_INT(step(&f), 0);
	}
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 0);
	CHECK(st.tracking_on);
	CHECK_EQ_U64(st.migrated_bytes, 4 * 2 * MIB);
	fixture_done(&f);
}

/* By default a round is quiet below 1.56% (156 permyriad) of the cgroup's
 * memory, not below an absolute 256 MB: with 1 GiB, 16,750,372 bytes. A
 * round moving 16 MiB is busy; one moving 15 MiB is quiet. quiet_share
 * sets the share; quiet_migration, an absolute size, wins over it. */
static void test_quiet_relative(void)
{
	struct tierd_region r[1] = { region(0, 1, 1, 5) };
	const uint64_t fifth = 200 * TIERD_USEC_PER_MSEC;
	struct tierd_hmmv_stats st;
	struct fixture f;

	setup(&f, "{\"round_windows\": 1, \"max_level\": 0}", big_total, big_free, nothing_held);
	f.obs.current_bytes = GIB;
	input(&f, r, 1, 0);
	CHECK_EQ_INT(step(&f), 0);
	f.feedback.promoted_bytes = 16 * MIB;
	input(&f, r, 1, fifth);
	CHECK_EQ_INT(step(&f), 0);
	input(&f, r, 1, 2 * fifth);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 0);
	f.feedback.promoted_bytes = 15 * MIB;
	input(&f, r, 1, 3 * fifth);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 1);
	fixture_done(&f);

	/* 2% of 1 GiB is 21,474,836 bytes: both 16 MiB rounds are quiet now. */
	setup(&f, "{\"round_windows\": 1, \"max_level\": 0, \"quiet_share\": \"2%\"}",
	      big_total, big_free, nothing_held);
	f.obs.current_bytes = GIB;
	input(&f, r, 1, 0);
	CHECK_EQ_INT(step(&f), 0);
	f.feedback.promoted_bytes = 16 * MIB;
	input(&f, r, 1, fifth);
	CHECK_EQ_INT(step(&f), 0);
	input(&f, r, 1, 2 * fifth);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 2);
	fixture_done(&f);

	/* An absolute 1M: 16 MiB rounds are busy whatever the share. */
	setup(&f, "{\"round_windows\": 1, \"max_level\": 0, \"quiet_share\": \"50%\", "
		  "\"quiet_migration\": \"1M\"}",
	      big_total, big_free, nothing_held);
	f.obs.current_bytes = GIB;
	input(&f, r, 1, 0);
	CHECK_EQ_INT(step(&f), 0);
	f.feedback.promoted_bytes = 16 * MIB;
	input(&f, r, 1, fifth);
	CHECK_EQ_INT(step(&f), 0);
	input(&f, r, 1, 2 * fifth);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_INT(st.quiet_counter, 0);
	fixture_done(&f);
}

static void test_params(void)
{
	struct tierd_topology topo;
	uint64_t interval[NR_TIERS] = { 0 };
	char err[256] = "";
	void *state = NULL;

	CHECK_EQ_INT(strategy_init(&tierd_strategy_hmmv, NULL, &state, err, sizeof(err)), 0);
	four_tiers(&topo, big_total, big_free);
	tierd_strategy_hmmv.profile(state, &topo, interval);
	for (size_t t = 0; t < NR_TIERS; t++)
		CHECK_EQ_U64(interval[t], WINDOW_USEC);
	CHECK(tierd_hmmv_tracking_on(state));
	tierd_strategy_hmmv.free(state);
	CHECK_EQ_INT(strategy_init(&tierd_strategy_hmmv, "{\"read_weight\": 2, \"write_weight\": 5, "
					      "\"round_windows\": 4, \"max_level\": 0, "
					      "\"monitoring_window\": \"1s\", "
					      "\"clock_period\": \"2m\", "
					      "\"quiet_migration\": \"1G\", \"quiet_limit\": 0}",
					      &state, err, sizeof(err)),
		     0);
	tierd_strategy_hmmv.profile(state, &topo, interval);
	CHECK_EQ_U64(interval[0], TIERD_USEC_PER_SEC);
	tierd_strategy_hmmv.free(state);

	check_param_error(ops, "{\"weight\": 1}",
			  "\"weight\": unknown key; expected one of: read_weight, write_weight, "
			  "round_windows, max_level, monitoring_window, clock_period, "
			  "quiet_migration, quiet_share, quiet_limit");
	check_param_error(ops, "{\"read_weight\": \"1\"}",
			  "\"read_weight\": expected an integer from 1 to 1000, got \"1\"");
	check_param_error(ops, "{\"write_weight\": 0}",
			  "\"write_weight\": expected an integer from 1 to 1000, got 0");
	check_param_error(ops, "{\"write_weight\": 1.5}",
			  "\"write_weight\": expected an integer from 1 to 1000, got 1.5");
	check_param_error(ops, "{\"round_windows\": 65}",
			  "\"round_windows\": expected an integer from 1 to 64, got 65");
	check_param_error(ops, "{\"max_level\": -1}",
			  "\"max_level\": expected an integer from 0 to 16, got -1");
	check_param_error(ops, "{\"monitoring_window\": \"500us\"}",
			  "\"monitoring_window\": expected a duration of 1ms or more such as "
			  "\"600ms\", got \"500us\"");
	check_param_error(ops, "{\"clock_period\": 3}",
			  "\"clock_period\": expected a duration of 1ms or more such as \"1m\", "
			  "got 3");
	check_param_error(ops, "{\"quiet_migration\": \"12X\"}",
			  "\"quiet_migration\": expected a size such as \"256M\", got \"12X\"");
	check_param_error(ops, "{\"quiet_limit\": 65}",
			  "\"quiet_limit\": expected an integer from 0 to 64, got 65");
	check_param_error(ops, "[1]", "expected a JSON object of params, got [1]");
}

/* The queue's memory follows region starts whatever order the regions come
 * in: out of address order they are matched as in order, a region that was
 * not reported is forgotten, and a start reported twice in one window is one
 * entry stepped twice (the second time in its do-not-disturb rest). */
static void test_region_order(void)
{
	struct tierd_region w0[3] = { region(2, 1, 1, 5), region(0, 1, 1, 0), region(1, 1, 1, 3) };
	struct tierd_region w1[3] = { w0[2], w0[0], w0[1] };
	struct tierd_region w3[2] = { w0[0], w0[1] };
	struct tierd_region w4[2] = { region(0, 1, 1, 5), region(0, 1, 1, 5) };
	struct tierd_hmmv_stats st;
	struct fixture f;

	setup(&f, "{\"round_windows\": 1}", big_total, big_free, nothing_held);
	input(&f, w0, 3, 0);
	CHECK_EQ_INT(step(&f), 0);
	CHECK(!tierd_hmmv_should_sample(f.state, w0[0].start, 1));
	CHECK(tierd_hmmv_should_sample(f.state, w0[0].start, 2));
	CHECK(tierd_hmmv_should_sample(f.state, w0[1].start, 1));
	CHECK(!tierd_hmmv_should_sample(f.state, w0[2].start, 1));
	/* Window 1, another order: regions 2 and 1 rest, region 0 is sampled. */
	input(&f, w1, 3, WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.skipped_dnd, 2);
	/* Window 2 without region 2: forgotten, it starts afresh in window 3
	 * (level 1, resting window 4) instead of resuming (level 2). */
	input(&f, &w0[1], 1, 2 * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK(tierd_hmmv_should_sample(f.state, w0[0].start, 3));
	input(&f, w3, 2, 3 * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	CHECK(!tierd_hmmv_should_sample(f.state, w0[0].start, 4));
	CHECK(tierd_hmmv_should_sample(f.state, w0[0].start, 5));
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.skipped_dnd, 2);
	/* Window 4: region 0 twice: sampled once (level 1, rests window 5), then
	 * resting. */
	input(&f, w4, 2, 4 * WINDOW_USEC);
	CHECK_EQ_INT(step(&f), 0);
	tierd_hmmv_stats(f.state, &st);
	CHECK_EQ_U64(st.skipped_dnd, 3);
	CHECK(!tierd_hmmv_should_sample(f.state, w4[0].start, 5));
	CHECK(tierd_hmmv_should_sample(f.state, w4[0].start, 6));
	fixture_done(&f);
}

int main(void)
{
	test_bucket_sort();
	test_degree_weights();
	test_round();
	test_repeated_window();
	test_hot_set();
	test_exchange();
	test_exchange_room();
	test_exchange_limits();
	test_dnd();
	test_region_order();
	test_tracking();
	test_quiet_relative();
	test_params();
	return tierd_test_finish();
}
