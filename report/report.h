/* What one tick found and decided, as the daemon publishes it in its state
 * file and `tierctl status` shows it: the topology, each managed cgroup's
 * standing per tier, and the plan. Plain structs; JSON in report_json.c. */
#ifndef TIERD_REPORT_H
#define TIERD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfstats.h"
#include "../policy/engine.h"
#include "migstats.h"
#include "../policy/policy.h"
#include "../policy/snapshot.h"

struct tierd_report_cgroup {
	char path[TIERD_CGROUP_PATH_MAX];
	char policy[TIERD_NAME_MAX];
	enum tierd_strategy strategy;
	enum tierd_sharing sharing;
	uint64_t current_bytes;
	struct tierd_cgroup_standing standing;
	bool bpf_sampled;          /* managed by the BPF sampler: bpf holds its counters */
	struct tierd_bpf_cgroup_counts bpf;
};

struct tierd_report {
	uint64_t realtime_usec;   /* when the tick ran, CLOCK_REALTIME */
	bool dry_run;
	size_t nr_conflicts;      /* cgroups left unmanaged: equal-priority policies */
	struct tierd_topology topo;
	size_t nr_cgroups;
	struct tierd_report_cgroup *cgroups;
	size_t nr_over_budget;
	size_t nr_actions;
	struct tierd_action *actions; /* cgroup indexes into cgroups */
	/* Since the daemon started; the daemon fills these after building. */
	struct tierd_migration_stats migrations;
	struct tierd_backend_state backend;
	struct tierd_reclaim_stats reclaim;
	struct tierd_bpf_state bpf;
};

/* Builds a report from the engine's input and plan. Returns 0 or -ENOMEM. */
int tierd_report_build(const struct tierd_engine_input *in, const struct tierd_plan *plan,
		       uint64_t realtime_usec, bool dry_run, size_t nr_conflicts,
		       struct tierd_report *out);
void tierd_report_free(struct tierd_report *r);

/* Serialises to JSON text (malloc'd). Returns 0 or -ENOMEM. */
int tierd_report_to_json(const struct tierd_report *r, bool pretty, char **ret_text);
/* Only the topology part, as `tierctl topology --json` prints it. */
int tierd_topology_to_json(const struct tierd_topology *topo, bool pretty, char **ret_text);
/* Parses what tierd_report_to_json wrote. Returns 0, -EINVAL (err says
 * where), -ENOMEM. */
int tierd_report_from_json(const char *text, size_t len, struct tierd_report *out, char *err,
			   size_t err_size);

#endif
