/* Physical address ranges of a NUMA node, from its memory blocks in sysfs
 * (docs/kernel.md §1: paddr DAMON targets need them written
 * explicitly). Node N's blocks are the `memoryX` entries of
 * /sys/devices/system/node/nodeN/ (symlinks to ../../memory/memoryX on a
 * real system; plain directories are accepted too, as in the fixtures);
 * block X covers [X * bs, (X + 1) * bs) with bs read from
 * /sys/devices/system/memory/block_size_bytes, hex without 0x
 * ([6.12] drivers/base/memory.c:499-503). Blocks whose memoryX/online
 * reads 0 are offline and skipped. */
#ifndef TIERD_PHYSMEM_H
#define TIERD_PHYSMEM_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"

#define TIERD_PHYSMEM_NODE_DIR "/sys/devices/system/node"
#define TIERD_PHYSMEM_BLOCK_DIR "/sys/devices/system/memory"

struct tierd_phys_range {
	uint64_t start, end; /* physical addresses, [start, end) */
};

/* Reads node nid's online memory blocks under root (see tierd_root_path),
 * merges contiguous ones and stores the ranges, sorted by start, in
 * out[0..*ret_nr). A node without memory blocks gives *ret_nr = 0.
 * Returns 0, or -errno, told to log at debug level with the file named
 * (log.h): -ENOENT (no such node directory or no block_size_bytes),
 * -EINVAL (malformed block_size_bytes or online file), -E2BIG (more than
 * cap ranges), -ENOMEM. */
int tierd_physmem_node_ranges(const char *root, int nid, struct tierd_phys_range *out,
			      size_t cap, size_t *ret_nr, const struct tierd_logger *log);

#endif
