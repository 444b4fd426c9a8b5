/* Token addresses of sampled pages (controller/sample_pages.c): stable per
 * page, distinct per process, mapped back exactly, never reused after the
 * oldest page is forgotten, and lookups that stay right through the
 * back-shift deletions of a full table. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "../controller/sample_pages.h"

TIERD_TEST_MAIN_COUNTS;

#define PAGE 4096ull

static void test_tokens(void)
{
	struct tierd_sample_pages t;
	uint64_t a, b, c, vaddr = 0;
	uint32_t tgid = 0;

	CHECK_EQ_INT(tierd_sample_pages_init(&t, 0), -EINVAL);
	CHECK_EQ_INT(tierd_sample_pages_init(&t, 3), -EINVAL);
	CHECK_EQ_INT(tierd_sample_pages_init(&t, 4), 0);
	a = tierd_sample_pages_token(&t, 100, 0x7f0000001234ull);
	CHECK_EQ_U64(a, TIERD_SAMPLE_TOKEN_BIT | 1 * PAGE);
	CHECK(tierd_sample_token(a));
	CHECK(!tierd_sample_token(0x100000000ull));
	/* Same page, another offset: the same token. */
	CHECK_EQ_U64(tierd_sample_pages_token(&t, 100, 0x7f0000001ff8ull), a);
	/* The same address in another process is another page. */
	b = tierd_sample_pages_token(&t, 101, 0x7f0000001000ull);
	CHECK_EQ_U64(b, TIERD_SAMPLE_TOKEN_BIT | 2 * PAGE);
	c = tierd_sample_pages_token(&t, 100, 0x7f0000002000ull);
	CHECK_EQ_U64(c, TIERD_SAMPLE_TOKEN_BIT | 3 * PAGE);
	CHECK_EQ_U64(t.nr, 3);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, b, &tgid, &vaddr), 0);
	CHECK_EQ_U64(tgid, 101);
	CHECK_EQ_U64(vaddr, 0x7f0000001000ull);
	/* Any address inside the token's page. */
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, a + 123, &tgid, &vaddr), 0);
	CHECK_EQ_U64(tgid, 100);
	CHECK_EQ_U64(vaddr, 0x7f0000001000ull);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, 0x1000, &tgid, &vaddr), -ENOENT);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, TIERD_SAMPLE_TOKEN_BIT, &tgid, &vaddr), -ENOENT);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, TIERD_SAMPLE_TOKEN_BIT | 4 * PAGE, &tgid, &vaddr),
		     -ENOENT);
	tierd_sample_pages_free(&t);
}

static void test_full(void)
{
	struct tierd_sample_pages t;
	uint64_t tok[6], vaddr = 0;
	uint32_t tgid = 0;

	CHECK_EQ_INT(tierd_sample_pages_init(&t, 4), 0);
	for (int i = 0; i < 4; i++)
		tok[i] = tierd_sample_pages_token(&t, 7, (uint64_t)(i + 1) * PAGE);
	/* Full: the fifth page takes the first one's place, with a new token. */
	tok[4] = tierd_sample_pages_token(&t, 7, 5 * PAGE);
	CHECK_EQ_U64(tok[4], TIERD_SAMPLE_TOKEN_BIT | 5 * PAGE);
	CHECK_EQ_U64(t.nr, 4);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, tok[0], &tgid, &vaddr), -ENOENT);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, tok[1], &tgid, &vaddr), 0);
	CHECK_EQ_U64(vaddr, 2 * PAGE);
	/* The forgotten page comes back with a token never given before. */
	tok[5] = tierd_sample_pages_token(&t, 7, 1 * PAGE);
	CHECK_EQ_U64(tok[5], TIERD_SAMPLE_TOKEN_BIT | 6 * PAGE);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, tok[1], &tgid, &vaddr), -ENOENT);
	for (int i = 2; i < 6; i++) {
		CHECK_EQ_INT(tierd_sample_pages_lookup(&t, tok[i], &tgid, &vaddr), 0);
		CHECK_EQ_U64(vaddr, (uint64_t)(i == 5 ? 1 : i + 1) * PAGE);
		/* And each is still found by its page. */
		CHECK_EQ_U64(tierd_sample_pages_token(&t, 7, vaddr), tok[i]);
	}
	tierd_sample_pages_free(&t);
}

/* Many evictions through a small table: every page still known maps both
 * ways, whatever the probe runs looked like when its neighbours left. */
static void test_churn(void)
{
	enum { CAP = 64, PAGES = 1000, PROCS = 3 };
	struct tierd_sample_pages t;
	uint64_t tok[PAGES * PROCS];
	size_t known = 0, bad = 0;

	CHECK_EQ_INT(tierd_sample_pages_init(&t, CAP), 0);
	for (uint64_t i = 0; i < PAGES * PROCS; i++)
		tok[i] = tierd_sample_pages_token(&t, (uint32_t)(i % PROCS + 1), (i / PROCS) * PAGE);
	for (uint64_t i = 0; i < PAGES * PROCS; i++) {
		uint64_t vaddr = 0;
		uint32_t tgid = 0;

		if (tierd_sample_pages_lookup(&t, tok[i], &tgid, &vaddr) < 0)
			continue;
		known++;
		if (tgid != i % PROCS + 1 || vaddr != (i / PROCS) * PAGE ||
		    tierd_sample_pages_token(&t, tgid, vaddr) != tok[i])
			bad++;
	}
	/* Exactly the last CAP pages are known. */
	CHECK_EQ_U64(known, CAP);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(t.nr, CAP);
	tierd_sample_pages_free(&t);
}

static void test_forget(void)
{
	struct tierd_sample_pages t;
	uint64_t a, b, vaddr = 0;
	uint32_t tgid = 0;

	CHECK_EQ_INT(tierd_sample_pages_init(&t, 8), 0);
	a = tierd_sample_pages_token(&t, 1, PAGE);
	(void)tierd_sample_pages_token(&t, 2, PAGE);
	(void)tierd_sample_pages_token(&t, 2, 2 * PAGE);
	b = tierd_sample_pages_token(&t, 1, 3 * PAGE);
	CHECK_EQ_U64(tierd_sample_pages_forget(&t, 2), 2);
	CHECK_EQ_U64(tierd_sample_pages_forget(&t, 2), 0);
	CHECK_EQ_U64(t.nr, 2);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, a, &tgid, &vaddr), 0);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&t, b, &tgid, &vaddr), 0);
	CHECK_EQ_U64(vaddr, 3 * PAGE);
	CHECK_EQ_U64(tierd_sample_pages_token(&t, 2, PAGE), TIERD_SAMPLE_TOKEN_BIT | 5 * PAGE);
	tierd_sample_pages_free(&t);
}

int main(void)
{
	test_tokens();
	test_full();
	test_churn();
	test_forget();
	return tierd_test_finish();
}
