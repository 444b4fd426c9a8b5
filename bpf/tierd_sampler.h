/* Types and constants shared by the hint-fault sampler's BPF programs
 * (bpf/tierd_sampler.bpf.c) and their loader (controller/bpf_sampler.c):
 * the ring-buffer record, the map keys and values, and the token bucket
 * both sides compute with. Plain fixed-size types only, so clang -target
 * bpf and gcc lay every struct out alike (tests/test_bpf.c checks the
 * object's map sizes against these). */
#ifndef TIERD_BPF_SAMPLER_H
#define TIERD_BPF_SAMPLER_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define TIERD_BPF_MAX_CGROUPS 256 /* managed cgroups: slots of the per-CPU arrays */
#define TIERD_BPF_MAX_NODES 64    /* node ids the node->tier map covers (MAX_NUMNODES
				   * of a default x86-64 config is 1 << 6) */
#define TIERD_BPF_MAX_TIERS 8     /* tiers counted apart; deeper ones share the last */
#define TIERD_BPF_RING_BYTES (1u << 20) /* ring buffer: 16,384 records of 56 bytes
					 * plus an 8-byte header; a power of two, as
					 * BPF_MAP_TYPE_RINGBUF needs */
/* Ring-buffer bytes waiting that wake tierd: 1/16 of the ring, 1,024
 * records with their 8-byte headers; fewer wait for the next tick's drain. */
#define TIERD_BPF_WAKEUP_BYTES (TIERD_BPF_RING_BYTES / 16)
#define TIERD_BPF_NR_REASONS 16   /* enum migrate_reason slots (6.12 has 10, MR_TYPES) */

/* Token bucket defaults per cgroup and per CPU: 2,000 samples/s (128 KB/s of
 * ring traffic) with a burst of 500, so a 1 MiB ring drained every 100 ms
 * holds a storm of ~80 CPUs; policies override them. */
#define TIERD_BPF_DEFAULT_RATE_PER_SEC 2000
#define TIERD_BPF_DEFAULT_BURST 500

/* Scanned ranges remembered per process (`scans`). task_numa_work() ends a
 * pass after numa_balancing_scan_size_mb (256 MB) of pages it protected, or
 * 8 times that of address space walked, and calls change_prot_numa() once
 * per VMA it visits (several times for a VMA larger than the budget left).
 * 32 ranges hold a whole pass of a process with up to 32 scanned VMAs and
 * the passes before it when it has fewer; with more, the faults in its
 * oldest ranges are counted in no_interval. */
#define TIERD_BPF_SCAN_RANGES 32
/* Processes of managed cgroups whose scans are remembered (LRU: the least
 * recently scanned or faulting is forgotten first); 1024 rings of 776
 * bytes, about 800 KB of kernel memory. */
#define TIERD_BPF_MAX_SCANNED_PROCS 1024

#define TIERD_BPF_NSEC_PER_SEC 1000000000ull
#define TIERD_BPF_TIER_SKIP 0xffffffffu /* node_tiers value: node not sampled */

/* tierd_bpf_sample.flags */
#define TIERD_BPF_SAMPLE_ADDR 0x1  /* addr is the faulting address */
#define TIERD_BPF_SAMPLE_WRITE 0x2 /* the fault was a write (x86 error code) */

/* task_numa_fault()'s flags (include/linux/sched/numa_balancing.h), passed
 * through in tierd_bpf_sample.tnf_flags. */
#define TIERD_TNF_MIGRATED 0x01
#define TIERD_TNF_MIGRATE_FAIL 0x10

/* One sampled hint fault, pushed through the ring buffer. */
struct tierd_bpf_sample {
	__u64 cgroup_id;   /* cgroup2 directory inode of the faulting task */
	__u64 addr;        /* faulting user address, valid with TIERD_BPF_SAMPLE_ADDR */
	__u64 time_ns;     /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 interval_ns; /* reaccess interval: time_ns minus the time the scanner
			    * protected the newest range holding addr; 0 unknown */
	__u32 node;        /* node of the page after the fault (task_numa_fault mem_node) */
	__u32 tier;        /* tier index of that node (node_tiers map) */
	__u32 pages;       /* pages the fault covered (512 for a 2 MiB THP) */
	__u32 tgid;        /* process of the faulting task (what move_pages(2) needs) */
	__u16 flags;       /* TIERD_BPF_SAMPLE_* */
	__u16 tnf_flags;   /* TIERD_TNF_* as the kernel passed them */
	__u32 pad;         /* keeps the size a multiple of 8 for both compilers */
};
/* No map carries the record, so no map size checks it: both compilers must
 * agree here (tests/test_bpf.c checks the same numbers on gcc's side). */
_Static_assert(sizeof(struct tierd_bpf_sample) == 56, "ring record size");
_Static_assert(__builtin_offsetof(struct tierd_bpf_sample, interval_ns) == 24,
	       "ring record interval_ns offset");
_Static_assert(__builtin_offsetof(struct tierd_bpf_sample, tgid) == 44,
	       "ring record tgid offset");

/* Value of the `cgroups` hash map (key: cgroup id), written by userspace:
 * only these cgroups are sampled. Changing rate or burst takes effect at the
 * next fault, without reloading the programs. */
struct tierd_bpf_cgroup {
	__u32 slot;         /* index into `counters` and `buckets`, < TIERD_BPF_MAX_CGROUPS */
	__u32 rate_per_sec; /* token refill per CPU */
	__u32 burst;        /* bucket size per CPU */
	__u32 pad;
};

/* Per-CPU counters of one managed cgroup (`counters`, index = slot). */
struct tierd_bpf_counters {
	__u64 faults[TIERD_BPF_MAX_TIERS];  /* hint faults seen, by tier */
	__u64 samples[TIERD_BPF_MAX_TIERS]; /* pushed to the ring buffer */
	__u64 drops[TIERD_BPF_MAX_TIERS];   /* refused by the token bucket */
	__u64 ring_full;                    /* allowed but the ring had no room */
	__u64 migrated;                     /* faults the kernel migrated (TNF_MIGRATED) */
	__u64 migrate_failed;               /* TNF_MIGRATE_FAIL */
};

/* Per-CPU token bucket state (`buckets`, index = slot). Tokens are counted
 * in nanotokens so integer refill is exact: one sample costs
 * TIERD_BPF_NSEC_PER_SEC. */
struct tierd_bpf_bucket {
	__u64 nanotokens;
	__u64 last_ns; /* 0: never used, the bucket starts full */
};

/* Global per-CPU counters (`global`, one entry). */
struct tierd_bpf_global {
	__u64 unmanaged_faults; /* hint faults of cgroups not in `cgroups` */
	__u64 skipped_tier;     /* hint faults on nodes marked TIERD_BPF_TIER_SKIP */
	__u64 no_addr;          /* hint faults without a matching page_fault_user */
	__u64 no_interval;      /* samples with an address in no remembered scanned range */
};

/* Per-CPU migration counts by reason (`migrations`, index = enum
 * migrate_reason), from migrate:mm_migrate_pages, whatever the cgroup. */
struct tierd_bpf_migrations {
	__u64 calls;
	__u64 succeeded;
	__u64 failed;
};

/* Per-CPU record of the last user page fault (`last_fault`, one entry):
 * the hint fault hook has no address, the fault entry tracepoint does. */
struct tierd_bpf_last_fault {
	__u64 pid_tgid;
	__u64 addr;
	__u64 error_code;
};

/* The last TIERD_BPF_SCAN_RANGES ranges the NUMA-balancing scanner protected
 * in one process (`scans`, key: tgid), a ring: slot next - 1 is the newest.
 * A slot with end 0 is empty. */
struct tierd_bpf_scans {
	__u64 start[TIERD_BPF_SCAN_RANGES];   /* change_prot_numa()'s addr */
	__u64 end[TIERD_BPF_SCAN_RANGES];     /* its end, exclusive */
	__u64 time_ns[TIERD_BPF_SCAN_RANGES]; /* bpf_ktime_get_ns() at the call */
	__u32 next;                           /* slot the next range goes to */
	__u32 pad;
};

/* Adds the range [start, end) protected at now_ns to sc, over its oldest. */
static inline void tierd_bpf_scan_add(struct tierd_bpf_scans *sc, __u64 start, __u64 end,
				      __u64 now_ns)
{
	__u32 slot = sc->next % TIERD_BPF_SCAN_RANGES;

	/* Unlocked: a fault of another thread reading this, the oldest, slot
	 * meanwhile may pair one range's bounds with the other's time. One
	 * interval off now and then costs less than a lock on every fault. */
	sc->start[slot] = start;
	sc->time_ns[slot] = now_ns;
	sc->end[slot] = end;
	sc->next = slot + 1;
}

/* The reaccess interval of a fault at addr at now_ns: now_ns minus the time
 * of the newest range in sc holding addr, at least 1 (a range was found);
 * 0 when none holds it. Shared verbatim by the BPF program and the tests,
 * like the token bucket. */
static inline __u64 tierd_bpf_scan_interval(const struct tierd_bpf_scans *sc, __u64 addr,
					    __u64 now_ns)
{
	for (__u32 i = 0; i < TIERD_BPF_SCAN_RANGES; i++) {
		__u32 slot = (sc->next + TIERD_BPF_SCAN_RANGES - 1 - i) % TIERD_BPF_SCAN_RANGES;

		if (sc->start[slot] <= addr && addr < sc->end[slot])
			return now_ns > sc->time_ns[slot] ? now_ns - sc->time_ns[slot] : 1;
	}
	return 0;
}

#define TIERD_X86_PF_WRITE 0x2 /* arch/x86/include/asm/trap_pf.h X86_PF_WRITE */

/* Takes one token from bucket b at now_ns; returns 1 when the sample may go,
 * 0 when it must be dropped. Shared verbatim by the BPF program and the
 * tests, so the arithmetic tested is the arithmetic run. */
static inline int tierd_bpf_bucket_take(struct tierd_bpf_bucket *b, __u64 now_ns,
					__u32 rate_per_sec, __u32 burst)
{
	__u64 full = (__u64)burst * TIERD_BPF_NSEC_PER_SEC;
	__u64 elapsed;

	if (b->last_ns == 0 || now_ns < b->last_ns) {
		b->nanotokens = full;
	} else {
		elapsed = now_ns - b->last_ns;
		/* Compare before multiplying: elapsed * rate may overflow. */
		if (b->nanotokens >= full)
			b->nanotokens = full;
		else if (rate_per_sec &&
			 elapsed >= (full - b->nanotokens + rate_per_sec - 1) / rate_per_sec)
			b->nanotokens = full; /* elapsed * rate >= the room left */
		else
			b->nanotokens += elapsed * rate_per_sec;
	}
	b->last_ns = now_ns;
	if (b->nanotokens < TIERD_BPF_NSEC_PER_SEC)
		return 0;
	b->nanotokens -= TIERD_BPF_NSEC_PER_SEC;
	return 1;
}

#endif
