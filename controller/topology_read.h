/* Reads the machine's memory topology: nodes with memory (libnuma on the
 * live system, sysfs under --root), their size, free memory, CPUs and HMAT
 * figures, and the kernel's memory tiers, or the override from tierd.json. */
#ifndef TIERD_TOPOLOGY_READ_H
#define TIERD_TOPOLOGY_READ_H

#include <stddef.h>

#include "log.h"
#include "../policy/policy.h"
#include "../policy/snapshot.h"

/* root: "/" for the live system (libnuma enumerates nodes), or a fixture
 * tree (sysfs only). A failure is told to log at debug level, saying what
 * and where (log.h). Returns 0, -ENOENT (no node information), -E2BIG
 * (more nodes than TIERD_MAX_NODES), -EINVAL (malformed file or bad
 * override), -ENOMEM. */
int tierd_topology_read(const char *root, const struct tierd_config *cfg,
			struct tierd_topology *topo, const struct tierd_logger *log);

/* Updates only free bytes per node and tier, for ticks between full reads. */
int tierd_topology_refresh_free(const char *root, struct tierd_topology *topo,
				const struct tierd_logger *log);

#endif
