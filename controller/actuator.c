/* The dry-run actuator: counts what would have been done. */
#include "actuator.h"

static int dry_run_apply(void *data, const struct tierd_cgroup_obs *cgroup,
			 const struct tierd_action *action)
{
	struct tierd_dry_run *rec = data;

	(void)cgroup;
	rec->actions++;
	rec->bytes += action->bytes;
	return 0;
}

const struct tierd_actuator_ops tierd_dry_run_ops = {
	.name = "dry-run",
	.apply = dry_run_apply,
};
