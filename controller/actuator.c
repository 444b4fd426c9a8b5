/* The dry-run actuator: counts what would have been done. */
#include "actuator.h"

static void dry_run_apply(void *data, const struct tierd_actuation *a)
{
	struct tierd_dry_run *rec = data;

	rec->actions += a->plan->nr_actions;
	for (size_t i = 0; i < a->plan->nr_actions; i++)
		rec->bytes += a->plan->actions[i].bytes;
}

const struct tierd_actuator_ops tierd_dry_run_ops = {
	.name = "dry-run",
	.apply = dry_run_apply,
};
