/* Each managed cgroup's hotness regions for the engine, from the DAMON
 * backend's per-tier readings split by page owner (/proc/kpagecgroup and
 * policy/attribution.h). A cgroup is attributed the pages charged to its
 * own memcg: DAMOS memcg filters on 6.12 act on that exact memcg, not its
 * descendants (docs/kernel.md §1.5), so that is what tierd can move. */
#ifndef TIERD_HOTNESS_READ_H
#define TIERD_HOTNESS_READ_H

#include <stddef.h>
#include <stdint.h>

#include "damon_backend.h"
#include "kpagecgroup.h"
#include "../policy/attribution.h"
#include "../policy/hotness.h"

/* Page owners read per tick at most: 4 GiB of 4 KiB pages exactly, larger
 * machines are sampled with a stride (8 bytes per page read: 8 MiB). */
#define TIERD_HOTNESS_MAX_PAGES_READ (1ull << 20)

struct tierd_hotness_set {
	size_t nr;                    /* cgroups */
	struct tierd_attr_out *out;   /* per cgroup: its regions over all tiers */
	struct tierd_hotness *hot;    /* per cgroup: the engine's view of out */
	struct tierd_attr_out *part;  /* scratch: one physical range's result */
	uint64_t *owners;             /* scratch: page owners of one range */
	size_t cap_owners;
};

/* Builds set for the cgroups obs[0..nr) from b's last readings. Without
 * kc (no /proc/kpagecgroup) every cgroup gets no regions. Returns 0,
 * -ENOMEM, or the -errno of a failed read, told to log at debug level. */
int tierd_hotness_build(const struct tierd_damon_backend *b, const struct tierd_kpagecgroup *kc,
			const struct tierd_cgroup_obs *obs, size_t nr, struct tierd_hotness_set *set,
			const struct tierd_logger *log);

void tierd_hotness_set_free(struct tierd_hotness_set *set);

#endif
