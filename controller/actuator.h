/* The seam between the plan and the kernel: an ops table, so the same
 * daemon carries plans out through DAMON, memory.reclaim and move_pages
 * (later releases) or only records them (--dry-run, and every run of this
 * release, which writes nothing to the kernel). */
#ifndef TIERD_ACTUATOR_H
#define TIERD_ACTUATOR_H

#include <stdint.h>

#include "../policy/engine.h"

struct tierd_actuator_ops {
	const char *name;
	/* Carries out (or records) one planned action for the cgroup.
	 * Returns 0 or -errno. */
	int (*apply)(void *data, const struct tierd_cgroup_obs *cgroup,
		     const struct tierd_action *action);
};

/* What the dry-run actuator recorded. */
struct tierd_dry_run {
	uint64_t actions;
	uint64_t bytes;
};

extern const struct tierd_actuator_ops tierd_dry_run_ops;

#endif
