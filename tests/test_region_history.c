/* The previous tick's regions (policy/region_history.c): bytes held in a
 * range, summed over the kept regions it overlaps as even shares; growth
 * above a page of slack; kept lists sorted whatever order they came in;
 * nothing known before the first update. */
#include <stdint.h>

#include "check.h"
#include "../policy/region_history.h"

TIERD_TEST_MAIN_COUNTS;

#define PAGE 4096ull

static struct tierd_region region(uint64_t start_page, uint64_t pages, uint64_t held_pages)
{
	return (struct tierd_region){ .start = start_page * PAGE,
				      .end = (start_page + pages) * PAGE,
				      .bytes = held_pages * PAGE };
}

/* Kept: [0, 100) holding 50 pages, [100, 110) full, [200, 300) holding
 * 25, given out of order. */
static void test_bytes(void)
{
	const struct tierd_region kept[3] = { region(200, 100, 25), region(0, 100, 50),
					      region(100, 10, 0) };
	struct tierd_region_history h = { 0 };
	size_t pos = 0;

	CHECK_EQ_INT(tierd_region_history_update(&h, kept, 3), 0);
	CHECK_EQ_U64(h.nr, 3);
	CHECK_EQ_U64(h.held[0].start, 0);
	CHECK_EQ_U64(h.held[1].bytes, 10 * PAGE);
	CHECK_EQ_U64(h.held[2].start, 200 * PAGE);
	CHECK_EQ_U64(tierd_region_history_bytes(&h, &pos, 0, 100 * PAGE), 50 * PAGE);
	CHECK_EQ_U64(pos, 0);
	/* Half of the first, all of the second, none of the gap, a fifth of
	 * the third. */
	CHECK_EQ_U64(tierd_region_history_bytes(&h, &pos, 50 * PAGE, 220 * PAGE),
		     25 * PAGE + 10 * PAGE + 5 * PAGE);
	CHECK_EQ_U64(pos, 0);
	CHECK_EQ_U64(tierd_region_history_bytes(&h, &pos, 110 * PAGE, 200 * PAGE), 0);
	CHECK_EQ_U64(pos, 2);
	CHECK_EQ_U64(tierd_region_history_bytes(&h, &pos, 250 * PAGE, 400 * PAGE), 25 * PAGE / 2);
	CHECK_EQ_U64(pos, 2);
	CHECK_EQ_U64(tierd_region_history_bytes(&h, &pos, 300 * PAGE, 400 * PAGE), 0);
	CHECK_EQ_U64(pos, 3);
	/* Back before where the walk is: found by bisection. */
	CHECK_EQ_U64(tierd_region_history_bytes(&h, &pos, 105 * PAGE, 110 * PAGE), 5 * PAGE);
	CHECK_EQ_U64(pos, 1);
	tierd_region_history_free(&h);
	CHECK_EQ_U64(h.nr, 0);
}

/* A region grew when it holds more than a page above what was there. */
static void test_grew(void)
{
	const struct tierd_region kept[1] = { region(0, 100, 50) };
	struct tierd_region_history h = { 0 };
	struct tierd_region same = region(0, 100, 50), one_more = region(0, 100, 51);
	struct tierd_region two_more = region(0, 100, 52), split = region(0, 50, 27);
	struct tierd_region beyond = region(100, 10, 0);
	size_t pos = 0;

	/* Nothing known: nothing grew. */
	CHECK(!tierd_region_history_grew(&h, &pos, &two_more));
	CHECK_EQ_INT(tierd_region_history_update(&h, kept, 1), 0);
	CHECK(!tierd_region_history_grew(&h, &pos, &same));
	CHECK(!tierd_region_history_grew(&h, &pos, &one_more));
	CHECK(tierd_region_history_grew(&h, &pos, &two_more));
	/* Half the span held 25 pages: 27 is two more. */
	CHECK(tierd_region_history_grew(&h, &pos, &split));
	/* A full span (bytes 0) where nothing was kept. */
	CHECK(tierd_region_history_grew(&h, &pos, &beyond));
	/* An empty update is known: everything held since is new. */
	CHECK_EQ_INT(tierd_region_history_update(&h, NULL, 0), 0);
	CHECK(tierd_region_history_grew(&h, &pos, &same));
	tierd_region_history_free(&h);
}

int main(void)
{
	test_bytes();
	test_grew();
	return tierd_test_finish();
}
