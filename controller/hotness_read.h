/* Each managed cgroup's hotness regions for the engine, from the DAMON
 * backend's per-tier readings split by page owner (/proc/kpagecgroup and
 * policy/attribution.h). A cgroup is attributed the pages charged to its
 * own memcg: DAMOS memcg filters on 6.12 act on that exact memcg, not its
 * descendants (docs/kernel.md §1.5), so that is what tierd can move. */
#ifndef TIERD_HOTNESS_READ_H
#define TIERD_HOTNESS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "damon_async.h"
#include "kpagecgroup.h"
#include "../policy/attribution.h"
#include "../policy/hotness.h"

/* Page owners kept at most: 4 GiB of 4 KiB pages exactly, larger machines
 * are sampled with a stride (8 bytes per page: 8 MiB). */
#define TIERD_HOTNESS_MAX_PAGES_READ (1ull << 20)
/* Page owners read again per tick once all were read: a quarter of the
 * most kept, so none is more than 4 ticks old. Reading all of a 4 GiB
 * machine's each tick cost tierd 218 ms of CPU a second in the test VM
 * (bench/README.md, "overhead.sh"). */
#define TIERD_HOTNESS_PAGES_PER_TICK (TIERD_HOTNESS_MAX_PAGES_READ / 4)

/* The sampled owners of every physical range of the DAMON layout, in
 * layout order (tier by tier, range by range), kept between ticks. */
struct tierd_owner_cache {
	uint64_t *owner;
	size_t nr, cap;
	uint64_t stride;
	uint64_t layout_hash;  /* of the ranges and stride the entries are of */
	size_t next;           /* the entry the next refresh starts at */
	bool complete;         /* every entry read since the layout was seen */
};

struct tierd_hotness_set {
	size_t nr;                    /* cgroups */
	struct tierd_attr_out *out;   /* per cgroup: its regions over all tiers */
	struct tierd_hotness *hot;    /* per cgroup: the engine's view of out */
	struct tierd_attr_out *part;  /* scratch: one physical range's result */
	struct tierd_owner_cache owners;
};

/* Builds set for the cgroups obs[0..nr) from b's last readings. Page
 * owners come from set's cache: all read when the layout is new (or the
 * last read failed), else the pages_per_tick entries after the last
 * refresh, round robin. Without kc (no /proc/kpagecgroup) every cgroup
 * gets no regions. Returns 0, -ENOMEM, or the -errno of a failed read,
 * told to log at debug level. */
int tierd_hotness_build(const struct tierd_damon_view *b, const struct tierd_kpagecgroup *kc,
			const struct tierd_cgroup_obs *obs, size_t nr, uint64_t pages_per_tick,
			struct tierd_hotness_set *set, const struct tierd_logger *log);

void tierd_hotness_set_free(struct tierd_hotness_set *set);

#endif
