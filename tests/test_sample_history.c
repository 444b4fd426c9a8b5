/* Hint faults per sampled page across ticks (policy/sample_history.c):
 * counted per page whatever the offset, confirmed at the second fault in
 * the same or a later tick, forgotten TIERD_SAMPLE_HISTORY_TTL_TICKS ticks
 * after the last one, and counted afresh after that. */
#include <stdint.h>

#include "check.h"
#include "../policy/sample_history.h"

TIERD_TEST_MAIN_COUNTS;

#define PAGE 4096ull

static int one_tick(struct tierd_sample_history *h, const struct tierd_sample *s, size_t n)
{
	const struct tierd_hotness hot = { .samples = s, .nr_samples = n };

	return tierd_sample_history_update(h, &hot);
}

static void test_confirm(void)
{
	struct tierd_sample_history h = { 0 };
	const struct tierd_sample a = { .addr = 5 * PAGE + 16, .tier = 2, .interval_usec = 1000 };
	const struct tierd_sample b = { .addr = 9 * PAGE, .tier = 1, .interval_usec = 1000 };
	const struct tierd_sample twice[2] = {
		{ .addr = 7 * PAGE, .tier = 3, .interval_usec = 1000 },
		{ .addr = 7 * PAGE + 4000, .tier = 3, .interval_usec = 500 },
	};

	/* Nothing seen yet: nothing to find in an empty history. */
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 5 * PAGE), 0);
	CHECK(!tierd_sample_history_confirmed(&h, 5 * PAGE));
	CHECK_EQ_INT(one_tick(&h, &a, 1), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 5 * PAGE), 1);
	CHECK(!tierd_sample_history_confirmed(&h, 5 * PAGE));
	/* The same page a tick later, at another offset: two scans. */
	CHECK_EQ_INT(one_tick(&h, &(struct tierd_sample){ .addr = 5 * PAGE + 8, .interval_usec = 3000 },
			      1),
		     0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 5 * PAGE + 100), 2);
	/* (1000 + 3000) / 2; a page never seen has none. */
	CHECK_EQ_U64(tierd_sample_history_mean_interval(&h, 5 * PAGE), 2000);
	CHECK_EQ_U64(tierd_sample_history_mean_interval(&h, 6 * PAGE), 0);
	CHECK(tierd_sample_history_confirmed(&h, 5 * PAGE));
	CHECK(!tierd_sample_history_confirmed(&h, 6 * PAGE));
	/* Two faults in one tick are two scans too. */
	CHECK_EQ_INT(one_tick(&h, twice, 2), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 7 * PAGE), 2);
	CHECK(tierd_sample_history_confirmed(&h, 7 * PAGE));
	CHECK_EQ_U64(tierd_sample_history_mean_interval(&h, 7 * PAGE), 750);
	/* A fault without a known interval counts, but not in the mean. */
	CHECK_EQ_INT(one_tick(&h, &(struct tierd_sample){ .addr = 7 * PAGE }, 1), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 7 * PAGE), 3);
	CHECK_EQ_U64(tierd_sample_history_mean_interval(&h, 7 * PAGE), 750);
	/* Kept through ticks without a fault, up to the TTL. */
	CHECK_EQ_INT(one_tick(&h, &b, 1), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 5 * PAGE), 2);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 9 * PAGE), 1);
	tierd_sample_history_free(&h);
}

static void test_forget(void)
{
	struct tierd_sample_history h = { 0 };
	const struct tierd_sample a = { .addr = 3 * PAGE, .tier = 2, .interval_usec = 1000 };

	CHECK_EQ_INT(one_tick(&h, &a, 1), 0);
	/* Tick 1 + TTL is the last tick that still remembers it. */
	for (unsigned t = 0; t < TIERD_SAMPLE_HISTORY_TTL_TICKS; t++)
		CHECK_EQ_INT(one_tick(&h, NULL, 0), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 3 * PAGE), 1);
	CHECK_EQ_INT(one_tick(&h, NULL, 0), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 3 * PAGE), 0);
	/* A fault after that starts over: one scan, not confirmed. */
	CHECK_EQ_INT(one_tick(&h, &a, 1), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 3 * PAGE), 1);
	CHECK(!tierd_sample_history_confirmed(&h, 3 * PAGE));
	/* A fault within the TTL keeps the count: the second confirms. */
	for (unsigned t = 0; t < TIERD_SAMPLE_HISTORY_TTL_TICKS - 1; t++)
		CHECK_EQ_INT(one_tick(&h, NULL, 0), 0);
	CHECK_EQ_INT(one_tick(&h, &a, 1), 0);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 3 * PAGE), 2);
	CHECK(tierd_sample_history_confirmed(&h, 3 * PAGE));
	tierd_sample_history_free(&h);
	CHECK_EQ_U64(tierd_sample_history_faults(&h, 3 * PAGE), 0);
}

int main(void)
{
	test_confirm();
	test_forget();
	return tierd_test_finish();
}
