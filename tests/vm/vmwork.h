/* What the VM's workloads (work.c, faultbench.c) share: NUMA memory policy
 * by raw syscall (the programs are static, without libnuma) and strict
 * number parsing for their options. Header-only: every VM program is
 * built alone, static. */
#ifndef TIERD_VM_WORK_H
#define TIERD_VM_WORK_H

#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1024ul * 1024)
#define MPOL_DEFAULT_MODE 0 /* <linux/mempolicy.h> MPOL_DEFAULT */
#define MPOL_BIND_MODE 2    /* MPOL_BIND */
#define NODEMASK_BITS 64    /* the nodemask is one unsigned long */

/* A decimal number in [min, max], nothing else: 0 or -EINVAL. */
static inline int vm_parse_num(const char *s, unsigned long min, unsigned long max,
			       unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* mbind(2) of [addr, addr + len): MPOL_BIND_MODE to node, or
 * MPOL_DEFAULT_MODE. 0 or -errno. */
static inline int vm_set_policy(void *addr, size_t len, int mode, int node)
{
	unsigned long mask = mode == MPOL_BIND_MODE ? 1ul << node : 0;

	if (syscall(SYS_mbind, addr, len, mode, mode == MPOL_BIND_MODE ? &mask : NULL,
		    mode == MPOL_BIND_MODE ? NODEMASK_BITS : 0, 0) < 0)
		return -errno;
	return 0;
}

#endif
