/* A small test harness: each test binary counts its checks and ends with the
 * line "N passed, N failed" (and ", N skipped"). A failed check prints the
 * expression, both values and the line. Not a framework: just enough. */
#ifndef TIERD_TEST_CHECK_H
#define TIERD_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct tierd_test_counts {
	unsigned passed, failed, skipped;
};

extern struct tierd_test_counts tierd_test_counts;

#define TIERD_TEST_MAIN_COUNTS struct tierd_test_counts tierd_test_counts

#define CHECK(expr)                                                            \
	do {                                                                   \
		if (expr) {                                                    \
			tierd_test_counts.passed++;                            \
		} else {                                                       \
			tierd_test_counts.failed++;                            \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #expr); \
		}                                                              \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                     \
	do {                                                                   \
		long long _a = (long long)(a), _b = (long long)(b);            \
		if (_a == _b) {                                                \
			tierd_test_counts.passed++;                            \
		} else {                                                       \
			tierd_test_counts.failed++;                            \
			fprintf(stderr, "%s:%d: FAIL: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);           \
		}                                                              \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                     \
	do {                                                                   \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);               \
		if (_a == _b) {                                                \
			tierd_test_counts.passed++;                            \
		} else {                                                       \
			tierd_test_counts.failed++;                            \
			fprintf(stderr, "%s:%d: FAIL: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", \
				__FILE__, __LINE__, #a, #b, _a, _b);           \
		}                                                              \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                     \
	do {                                                                   \
		const char *_a = (a), *_b = (b);                               \
		if (_a && _b && strcmp(_a, _b) == 0) {                         \
			tierd_test_counts.passed++;                            \
		} else {                                                       \
			tierd_test_counts.failed++;                            \
			fprintf(stderr, "%s:%d: FAIL: %s == %s\n  got:      \"%s\"\n  expected: \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
		}                                                              \
	} while (0)

#define SKIP(why)                                                              \
	do {                                                                   \
		tierd_test_counts.skipped++;                                   \
		fprintf(stderr, "%s:%d: SKIP: %s\n", __FILE__, __LINE__, why);  \
	} while (0)

/* Prints the closing line; exit status 1 when anything failed. */
static inline int tierd_test_finish(void)
{
	printf("%u passed, %u failed, %u skipped\n", tierd_test_counts.passed,
	       tierd_test_counts.failed, tierd_test_counts.skipped);
	return tierd_test_counts.failed ? 1 : 0;
}

#endif
