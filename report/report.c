/* Report assembly from the engine's input and plan. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int tierd_report_build(const struct tierd_engine_input *in, const struct tierd_plan *plan,
		       uint64_t realtime_usec, bool dry_run, size_t nr_conflicts,
		       struct tierd_report *out)
{
	struct tierd_report r = { 0 };

	r.realtime_usec = realtime_usec;
	r.dry_run = dry_run;
	r.nr_conflicts = nr_conflicts;
	r.topo = *in->topo;
	r.nr_over_budget = plan->nr_over_budget;
	if (in->nr_cgroups) {
		r.cgroups = calloc(in->nr_cgroups, sizeof(*r.cgroups));
		if (!r.cgroups)
			return -ENOMEM;
	}
	if (plan->nr_actions) {
		r.actions = calloc(plan->nr_actions, sizeof(*r.actions));
		if (!r.actions) {
			free(r.cgroups);
			return -ENOMEM;
		}
		memcpy(r.actions, plan->actions, plan->nr_actions * sizeof(*r.actions));
	}
	r.nr_actions = plan->nr_actions;
	r.nr_cgroups = in->nr_cgroups;
	for (size_t i = 0; i < in->nr_cgroups; i++) {
		struct tierd_report_cgroup *c = &r.cgroups[i];
		const struct tierd_engine_cgroup *e = &in->cgroups[i];

		snprintf(c->path, sizeof(c->path), "%s", e->obs->path);
		snprintf(c->policy, sizeof(c->policy), "%s", e->policy->name);
		c->strategy = e->policy->strategy;
		c->sharing = e->policy->sharing;
		c->current_bytes = e->obs->current_bytes;
		c->standing = plan->standings[i];
	}
	*out = r;
	return 0;
}

void tierd_report_free(struct tierd_report *r)
{
	free(r->cgroups);
	free(r->actions);
	memset(r, 0, sizeof(*r));
}
