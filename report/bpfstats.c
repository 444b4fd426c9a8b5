/* BPF sampler mode names and the kernel's migration reasons. */
#include <errno.h>
#include <string.h>

#include "bpfstats.h"
#include "../policy/util.h"

static const char *const mode_names[] = {
	[TIERD_BPF_OFF] = "off",
	[TIERD_BPF_UNAVAILABLE] = "unavailable",
	[TIERD_BPF_RUNNING] = "running",
};

const char *tierd_bpf_mode_name(enum tierd_bpf_mode m)
{
	return (unsigned)m < TIERD_ARRAY_SIZE(mode_names) ? mode_names[m] : NULL;
}

int tierd_bpf_mode_parse(const char *name, enum tierd_bpf_mode *ret)
{
	for (unsigned i = 0; i < TIERD_ARRAY_SIZE(mode_names); i++)
		if (strcmp(name, mode_names[i]) == 0) {
			*ret = (enum tierd_bpf_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* include/linux/migrate_mode.h, enum migrate_reason, in 6.12 (docs/kernel.md
 * §3.2 for demotion, §4.1 for numa_misplaced). */
static const char *const reason_names[] = {
	"compaction",      "memory_failure", "memory_hotplug", "syscall_or_cpuset",
	"mempolicy_mbind", "numa_misplaced", "contig_range",   "longterm_pin",
	"demotion",        "damon",
};

const char *tierd_migrate_reason_name(size_t reason)
{
	return reason < TIERD_ARRAY_SIZE(reason_names) ? reason_names[reason] : NULL;
}
