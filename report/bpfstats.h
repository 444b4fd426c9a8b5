/* What the BPF hint-fault sampler saw and what the promotions it drives
 * did, as plain structs: the daemon fills them (controller/bpf_backend.c),
 * the report carries them to the state file, metrics and `tierctl status`. */
#ifndef TIERD_BPFSTATS_H
#define TIERD_BPFSTATS_H

#include <stdint.h>

#include "migstats.h"
#include "../policy/snapshot.h"

enum tierd_bpf_mode {
	TIERD_BPF_OFF,         /* not used: "bpf": false, --dry-run, --once, or
				* "numa_balancing": "off" (no hint faults to see) */
	TIERD_BPF_UNAVAILABLE, /* no BTF, no usable hook, no capability: why says which */
	TIERD_BPF_RUNNING,
};

#define TIERD_BPF_HOOKS_MAX 128

/* Sampler counters of one managed cgroup since it was first managed,
 * summed over CPUs, by the tier of the faulting page. */
struct tierd_bpf_cgroup_counts {
	uint64_t faults[TIERD_MAX_TIERS];  /* hint faults seen */
	uint64_t samples[TIERD_MAX_TIERS]; /* pushed to tierd through the ring buffer */
	uint64_t drops[TIERD_MAX_TIERS];   /* refused by the cgroup's token bucket */
};

/* Promotions of sampled pages with move_pages(2), in pages, by the tier
 * they were sent to. failed = tried - succeeded; pages found already on
 * the target node are not counted. */
struct tierd_promotion_counts {
	uint64_t tried[TIERD_MAX_TIERS];
	uint64_t succeeded[TIERD_MAX_TIERS];
	uint64_t failed[TIERD_MAX_TIERS];
};

/* Slots for the kernel's enum migrate_reason (bpf/tierd_sampler.h's
 * TIERD_BPF_NR_REASONS; 6.12 has 10 reasons). */
#define TIERD_MIGRATE_REASONS 16

/* Pages the kernel migrated for one reason, whatever the cgroup, since the
 * sampler started (its migrate:mm_migrate_pages programs). */
struct tierd_kernel_migrations {
	uint64_t succeeded;
	uint64_t failed;
};

struct tierd_bpf_state {
	enum tierd_bpf_mode mode;
	char why[TIERD_BACKEND_WHY_MAX];  /* UNAVAILABLE and OFF: the reason */
	char hooks[TIERD_BPF_HOOKS_MAX];  /* RUNNING: e.g. "numa_fault=btf fault_addr=btf ..." */
	uint64_t samples_read;            /* ring-buffer records consumed */
	uint64_t samples_lost;            /* consumed but not kept: the tick's buffer was full */
	uint64_t unmanaged_faults;        /* hint faults of cgroups tierd does not manage */
	uint64_t no_addr;                 /* sampled faults without an address */
	struct tierd_promotion_counts promotions;
	/* move_pages batches, on the kernel worker's thread. */
	uint64_t promote_batches;         /* batches run */
	uint64_t promote_busy_ticks;      /* ticks whose promotions waited: a batch still ran */
	uint64_t promote_deadline_hits;   /* batches stopped at their deadline */
	uint64_t promote_last_usec;       /* how long the last batch ran */
	uint64_t promote_max_usec;        /* the longest batch */
	struct tierd_kernel_migrations kernel_migrations[TIERD_MIGRATE_REASONS];
};

/* Name of a mode, or NULL out of range; parse back: 0 or -EINVAL. */
const char *tierd_bpf_mode_name(enum tierd_bpf_mode m);
int tierd_bpf_mode_parse(const char *name, enum tierd_bpf_mode *ret);
/* The kernel's name of a migrate_reason (as the mm_migrate_pages
 * tracepoint prints it), NULL for a slot 6.12 does not use. */
const char *tierd_migrate_reason_name(size_t reason);

#endif
