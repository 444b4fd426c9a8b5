/* Proactive reclaim of one cgroup through its cgroup v2 memory.reclaim file
 * (docs/kernel.md §2.3). With demotion_enabled=true the kernel
 * demotes instead of evicting (6.12, docs/vm.md): one pass moves pages
 * N0->N1->N2->N3 a hop at a time and counts every hop as reclaimed, so the
 * bytes asked for are not the bytes that leave the top tier. Callers
 * measure what moved in memory.numa_stat, before and after. */
#ifndef TIERD_RECLAIM_H
#define TIERD_RECLAIM_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"

/* Writes bytes (decimal, no newline) to memory.reclaim in cgroup_dirfd, the
 * cgroup's directory; cgroup is its path for messages ("/test"). The call
 * blocks while the kernel reclaims (seconds for hundreds of MiB under
 * TCG). Less than a page asks for nothing and succeeds.
 * Returns 0 when the whole amount was reclaimed; -EAGAIN when the kernel
 * reclaimed less but kept what it did (partial: measure it); -ENOENT when
 * the cgroup is gone (or has no memory controller); -EINTR when a signal
 * stopped it part way; other -errno (-EINVAL, -EBUSY, ...) as the kernel
 * answered. Every failure is told to log at debug level (log.h). */
int tierd_memory_reclaim(int cgroup_dirfd, const char *cgroup, uint64_t bytes,
			 const struct tierd_logger *log);

#endif
