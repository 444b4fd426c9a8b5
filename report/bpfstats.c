/* BPF sampler mode names. */
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
