/* Who owns physical pages: /proc/kpagecgroup is an array of u64, one per
 * PFN at offset pfn * 8, holding the inode number of the memory cgroup the
 * page is charged to (0: none), i.e. the cgroup id tierd keeps per cgroup
 * (proc(5); [6.12] fs/proc/page.c kpagecgroup_read). It exists with
 * CONFIG_MEMCG and CONFIG_PROC_PAGE_MONITOR and needs CAP_SYS_ADMIN. The
 * kernel fills each read page by page, so the cost is per PFN read:
 * sample with a stride on big machines (policy/attribution.h). */
#ifndef TIERD_KPAGECGROUP_H
#define TIERD_KPAGECGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "../policy/policy.h"

#define TIERD_KPAGECGROUP_PATH "/proc/kpagecgroup"

struct tierd_kpagecgroup {
	int fd;
	char path[TIERD_FILE_PATH_MAX]; /* root + TIERD_KPAGECGROUP_PATH, for messages */
};

/* Opens root's /proc/kpagecgroup (see tierd_root_path). Returns 0, -ENOENT
 * when the kernel has none (the caller then has no per-cgroup regions),
 * -EACCES/-EPERM without CAP_SYS_ADMIN, or another -errno; each told to
 * log at debug level with the file and why (log.h). */
int tierd_kpagecgroup_open(const char *root, struct tierd_kpagecgroup *kc,
			   const struct tierd_logger *log);

/* Reads the owners of PFNs [pfn, pfn + n) into out[0..n), in as few
 * preads as the kernel allows. The file ends at the kernel's highest PFN,
 * which need not end a memory block: PFNs past it read as 0 (no page), as
 * holes do. Returns 0, -ERANGE when the range lies beyond any file offset,
 * or -errno, told with the PFNs. */
int tierd_kpagecgroup_read(const struct tierd_kpagecgroup *kc, uint64_t pfn, size_t n,
			   uint64_t *out, const struct tierd_logger *log);

/* Reads n samples: out[i] = owner of PFN pfn + i * stride (stride >= 1;
 * stride 1 is tierd_kpagecgroup_read). One 8-byte pread per sample when
 * stride > 1, so the kernel looks at n pages, not n * stride. Returns as
 * tierd_kpagecgroup_read, or -EINVAL for stride 0. */
int tierd_kpagecgroup_read_sampled(const struct tierd_kpagecgroup *kc, uint64_t pfn,
				   uint64_t stride, size_t n, uint64_t *out,
				   const struct tierd_logger *log);

void tierd_kpagecgroup_close(struct tierd_kpagecgroup *kc);

#endif
