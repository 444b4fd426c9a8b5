/* The simulated machine: a page-granular (4 KiB) model of memory tiers and
 * of which tier holds each page of each cgroup. It is the ground truth the
 * strategies never see: they get only what the samplers (damon.h, fault.h)
 * and the per-node byte counts of the snapshot tell them.
 *
 * Every page is in exactly one tier or not yet allocated; per-tier and
 * per-cgroup counts follow every change, and tiersim_machine_check()
 * recounts them from the page map. A move into a full tier fails, as a
 * kernel migration fails when the destination node has no free page (Mole
 * §3.1, the Mole paper, counts those failures). */
#ifndef TIERSIM_MACHINE_H
#define TIERSIM_MACHINE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../policy/hotness.h"

#define TIERSIM_MAX_TIERS 8
#define TIERSIM_PAGE_BYTES TIERD_PAGE_BYTES

/* Load-to-use latencies of the two-socket DRAM + Optane DCPMM machine of
 * Mole §6.1 (Table 2, measured with Intel MLC):
 * local DRAM, remote DRAM, local PMEM, remote PMEM, in ns. Reads and writes
 * default to the same figure; both are configurable per tier. */
#define TIERSIM_LAT_LOCAL_DRAM_NS 80u
#define TIERSIM_LAT_REMOTE_DRAM_NS 140u
#define TIERSIM_LAT_LOCAL_PMEM_NS 300u
#define TIERSIM_LAT_REMOTE_PMEM_NS 600u

/* Cost of migrating one 4 KiB page, in ns: copying 4 KiB between DRAM and
 * PMEM at ~3 GB/s (~1.5 us), unmapping it and the TLB shootdown IPI to the
 * other CPUs (~1.5 us), and the rmap/page-table work and syscall share of
 * move_pages(2) (~1 us). About 1 GB/s of base pages per thread, the order of
 * magnitude Linux reaches for base-page migration. An estimate, not a
 * measurement: it is charged separately (migration_ms and mean_ns_mig in
 * the results), never folded into the placement latency that the ratio to
 * the oracle compares. */
#define TIERSIM_MIGRATE_PAGE_NS 4000u

/* Page flags. */
#define TIERSIM_PAGE_ACCESSED 0x1u /* the PTE accessed bit DAMON samples */
#define TIERSIM_PAGE_PROT 0x2u     /* made inaccessible by the fault sampler */
/* The PTE dirty bit: set by a write, read and cleared by the DAMON-like
 * sampler with the accessed bit, which tells it writes from reads (HMM-V
 * §3.2, the HMM-V paper, records both A/D bits per page). */
#define TIERSIM_PAGE_DIRTY 0x4u
/* The accessed bit as reclaim reads it, as of the tick's start: accessed
 * since the LRU last looked at the page. DAMON's own clearing does not hide
 * an access from reclaim: the kernel's DAMON marks a page young when it
 * clears its accessed bit (docs/kernel.md §3.3). */
#define TIERSIM_PAGE_YOUNG 0x8u

/* The multi-generational LRU, the reclaim Debian's kernels run
 * (docs/kernel.md §3.3): a lruvec per cgroup and node keeps its pages in
 * generations min_seq..max_seq; eviction takes the oldest, aging opens a
 * new youngest one. MIN_NR_GENS in include/linux/mmzone.h: eviction never
 * takes from the two youngest. */
#define TIERSIM_LRU_MIN_NR_GENS 2u
/* lru_gen_init_lruvec(): max_seq starts at MIN_NR_GENS + 1, min_seq at 0. */
#define TIERSIM_LRU_INIT_MAX_SEQ (TIERSIM_LRU_MIN_NR_GENS + 1)
/* The instants of a tick at which the model's kswapd works: the kernel's
 * wakes whenever a promotion finds the top tier short, many times a second
 * (bench/README.md gives the runs at 8 and 32). Each access is recorded in
 * the sixteenth of the tick it falls in (lru_bits). */
#define TIERSIM_LRU_SUBTICKS 16u
/* No check yet this tick (lru_checked). */
#define TIERSIM_LRU_UNCHECKED (-1)

struct tiersim_page {
	uint64_t prot_usec;  /* when the fault sampler made it inaccessible */
	uint64_t lru_order;  /* when it joined its generation: its list position */
	uint32_t lru_seq;    /* its generation in its tier's lruvec */
	uint32_t lru_bits;   /* accessed in sub-tick i of this tick: bit i */
	int8_t lru_checked;  /* the sub-tick the LRU last looked at it, this tick */
	int8_t tier;         /* -1 until first touched */
	uint8_t flags;
	uint32_t frame;      /* its physical page on its tier */
};

struct tiersim_lruvec {
	uint32_t min_seq, max_seq;
};

/* One cgroup's address space: pages [0, nr_pages) at base_addr. */
struct tiersim_space {
	uint64_t nr_pages;
	uint64_t base_addr;
	struct tiersim_page *pages;
	uint64_t tier_pages[TIERSIM_MAX_TIERS];
	uint64_t allocated_pages;
	uint64_t top_page;        /* one past the highest page ever allocated */
	struct tiersim_lruvec lru[TIERSIM_MAX_TIERS];
	uint64_t lru_clock;       /* orders pages within a generation */
};

struct tiersim_tier_spec {
	uint64_t capacity_pages;
	uint32_t read_ns, write_ns;
};

/* A tier's physical page: the space and page it holds, space -1 when free.
 * The DAMON-like sampler runs over a tier's frames, as the daemon's
 * kdamonds run over a node's physical addresses. */
struct tiersim_frame {
	int32_t space;
	uint64_t page;
};

struct tiersim_machine {
	size_t nr_tiers;
	struct tiersim_tier_spec tiers[TIERSIM_MAX_TIERS];
	uint64_t used_pages[TIERSIM_MAX_TIERS];
	/* Per tier: its frames, and the free ones as a stack, the last freed
	 * on top (the buddy allocator's per-CPU lists hand out the page freed
	 * last first); at the start frame 0 is on top. */
	struct tiersim_frame *frames[TIERSIM_MAX_TIERS];
	uint32_t *free_frames[TIERSIM_MAX_TIERS];
	size_t nr_spaces;
	struct tiersim_space *spaces;
	uint64_t alloc_failed_pages; /* first touches with every tier full */
};

/* Cgroup c's space starts at BASE + c * STRIDE: 1 TiB apart, so a range
 * meant for one cgroup can never be read as another's. */
#define TIERSIM_SPACE_BASE_ADDR 0x100000000ull
#define TIERSIM_SPACE_STRIDE_ADDR (1ull << 40)

/* Creates a machine with nr_tiers tiers (fastest first) and one address
 * space per cgroup of pages[c] pages, none allocated. Returns 0, -EINVAL for
 * a bad shape, -ENOMEM. */
int tiersim_machine_new(const struct tiersim_tier_spec *tiers, size_t nr_tiers,
			const uint64_t *pages, size_t nr_spaces, struct tiersim_machine **ret);
void tiersim_machine_free(struct tiersim_machine *m);

/* Puts a page that arrives on tier t into its lruvec as lru_gen_add_folio()
 * does for an anonymous folio: an active one (freshly faulted in, or taken
 * from one of its old lruvec's two youngest generations by a migration) into
 * the youngest generation, any other into the second youngest. A list adds
 * at its head and reclaim takes from its tail: lru_order is a FIFO. */
static inline void tiersim_lru_add(struct tiersim_space *s, struct tiersim_page *pg, size_t t,
				   bool active)
{
	pg->lru_seq = active ? s->lru[t].max_seq : s->lru[t].max_seq - 1;
	pg->lru_order = ++s->lru_clock;
}

/* Gives page `page` of space `space` a free frame of tier t (which has one). */
static inline void tiersim_frame_take(struct tiersim_machine *m, size_t t, size_t space,
				      uint64_t page, struct tiersim_page *pg)
{
	uint64_t top = m->tiers[t].capacity_pages - m->used_pages[t];

	pg->frame = m->free_frames[t][top - 1];
	m->frames[t][pg->frame] = (struct tiersim_frame){ .space = (int32_t)space, .page = page };
}

/* Frees page pg's frame on tier t; call before used_pages[t] drops. */
static inline void tiersim_frame_release(struct tiersim_machine *m, size_t t,
					 const struct tiersim_page *pg)
{
	uint64_t top = m->tiers[t].capacity_pages - m->used_pages[t];

	m->frames[t][pg->frame].space = -1;
	m->free_frames[t][top] = pg->frame;
}

/* First-touch allocation: the nearest tier with a free page, in tier order
 * (the fastest first, as the kernel's fallback list by distance from the
 * local socket would), into the youngest generation (folio_add_lru() marks
 * a folio added in a fault active). Returns the tier, or -ENOMEM when every
 * tier is full. */
static inline int tiersim_machine_alloc(struct tiersim_machine *m, struct tiersim_space *s,
					struct tiersim_page *pg)
{
	for (size_t t = 0; t < m->nr_tiers; t++) {
		if (m->used_pages[t] < m->tiers[t].capacity_pages) {
			tiersim_frame_take(m, t, (size_t)(s - m->spaces), (uint64_t)(pg - s->pages), pg);
			m->used_pages[t]++;
			s->tier_pages[t]++;
			s->allocated_pages++;
			pg->tier = (int8_t)t;
			tiersim_lru_add(s, pg, t, true);
			if ((uint64_t)(pg - s->pages) >= s->top_page)
				s->top_page = (uint64_t)(pg - s->pages) + 1;
			return (int)t;
		}
	}
	m->alloc_failed_pages++;
	return -ENOMEM;
}

/* Moves page `page` of space c to tier `to`. Returns 0; -ENOSPC when `to` is
 * full (the page stays); -ENOENT when it is not allocated or out of range;
 * -EALREADY when it is already there. */
int tiersim_machine_move(struct tiersim_machine *m, size_t c, uint64_t page, size_t to);

_Static_assert(TIERSIM_LRU_SUBTICKS <= 32, "lru_bits holds one bit a sub-tick");

/* Records an access in sub-tick `sub` of the tick. */
static inline void tiersim_lru_access(struct tiersim_page *pg, unsigned sub)
{
	pg->lru_bits |= 1u << sub;
}

/* Ends a tick for the LRU: a page accessed since it was last looked at
 * carries its accessed bit into the next tick. Call before a tick's
 * accesses. */
void tiersim_machine_lru_tick(struct tiersim_machine *m);

/* Kernel reclaim's demotion (kswapd under MGLRU): moves up to max_pages of
 * space c's pages on tier `from` to tier `to`, taken from the oldest
 * generation in list order (evict_folios()). A page found accessed there
 * is not demoted: it is activated into the youngest generation
 * (folio_check_references(), FOLIOREF_ACTIVATE). When only MIN_NR_GENS
 * generations are left the lruvec ages (try_to_inc_max_seq()): a new
 * youngest generation takes every page found accessed. kswapd does this
 * between the accesses, so the request is spread over the tick's
 * TIERSIM_LRU_SUBTICKS instants, each seeing the accesses before it. When
 * `to` is full the rest of the request fails, counted in *ret_failed.
 * Returns 0 or -ENOMEM. */
int tiersim_machine_demote_lru(struct tiersim_machine *m, size_t c, size_t from, size_t to,
			       uint64_t max_pages, uint64_t *ret_moved, uint64_t *ret_failed);

/* Recounts everything from the page map: every page in exactly one tier or
 * unallocated and held by its frame, per-tier and per-space counts equal to
 * the page map and to the frames taken, no tier over capacity. Returns 0,
 * or -EUCLEAN with the first mismatch in err. */
int tiersim_machine_check(const struct tiersim_machine *m, char *err, size_t err_size);

/* The space and page index of an address, or -ENOENT. */
int tiersim_machine_page_of(const struct tiersim_machine *m, size_t c, uint64_t addr,
			    uint64_t *ret_page);

#endif
