/* Stable engine addresses for pages the BPF sampler saw.
 *
 * The sampler reports a page as (process, virtual address); the engine and
 * its strategies know a page by one 64-bit address that must stay the same
 * from tick to tick (Mole keeps deferred promotions across ticks) and must
 * not collide with the physical addresses of DAMON's regions. This table
 * gives each (tgid, page) a token address with TIERD_SAMPLE_TOKEN_BIT set,
 * which no physical address has (x86-64 addresses at most 52 bits), and
 * maps tokens back for move_pages(2). When full it forgets the page that
 * got its token first. Tokens are never reused, so an action planned on a
 * forgotten token is refused instead of moving another page. Pure: no I/O. */
#ifndef TIERD_SAMPLE_PAGES_H
#define TIERD_SAMPLE_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIERD_SAMPLE_TOKEN_BIT (1ull << 63)
/* Pages remembered: 65,536 = 256 MiB of sampled 4 KiB pages, more than a
 * tick's ring buffer holds (bpf/tierd_sampler.h), for 1.5 MiB of table. */
#define TIERD_SAMPLE_PAGES_DEFAULT (1u << 16)

struct tierd_sample_page {
	uint64_t seq;   /* token sequence number; 0: free */
	uint64_t vaddr; /* page-aligned virtual address in tgid */
	uint32_t tgid;
};

struct tierd_sample_pages {
	size_t cap;                     /* entries, a power of two */
	struct tierd_sample_page *ring; /* index: seq & (cap - 1) */
	uint32_t *slots;                /* 2 * cap open-addressing slots: ring index + 1, 0 empty */
	uint64_t next_seq;
	size_t nr;
};

static inline bool tierd_sample_token(uint64_t addr)
{
	return (addr & TIERD_SAMPLE_TOKEN_BIT) != 0;
}

/* cap: a power of two from 1 to 1 << 30. 0, -EINVAL or -ENOMEM. */
int tierd_sample_pages_init(struct tierd_sample_pages *t, size_t cap);
void tierd_sample_pages_free(struct tierd_sample_pages *t);

/* The token address of the page holding vaddr in tgid: its own when known,
 * else a new one (forgetting the oldest page when full). */
uint64_t tierd_sample_pages_token(struct tierd_sample_pages *t, uint32_t tgid, uint64_t vaddr);

/* The page behind token (any address inside the token's page). 0, or
 * -ENOENT: not a token, never given, or forgotten since. */
int tierd_sample_pages_lookup(const struct tierd_sample_pages *t, uint64_t token, uint32_t *tgid,
			      uint64_t *vaddr);

/* Forgets every page of tgid (the process is gone). Returns how many. */
size_t tierd_sample_pages_forget(struct tierd_sample_pages *t, uint32_t tgid);

#endif
