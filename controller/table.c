/* Plain-text tables. */
#include <stdio.h>
#include <string.h>

#include "table.h"
#include "../policy/units.h"

#define BYTES_COL 16

static const char *source_text(enum tierd_tier_source s)
{
	switch (s) {
	case TIERD_TIERS_KERNEL:
		return "kernel memory_tiering";
	case TIERD_TIERS_CONFIG:
		return "tierd.json override";
	case TIERD_TIERS_SINGLE:
		return "no memory_tiering: one tier";
	}
	return "?";
}

void tierd_topology_print(FILE *f, const struct tierd_topology *topo)
{
	fprintf(f, "%zu tiers (%s), %zu nodes\n", topo->nr_tiers, source_text(topo->source),
		topo->nr_nodes);
	fprintf(f, "%-5s %-15s %-8s %10s %10s %9s %9s\n", "TIER", "KERNEL-TIER", "NODES", "CAPACITY",
		"FREE", "READ-LAT", "CPUS");
	for (size_t t = 0; t < topo->nr_tiers; t++) {
		const struct tierd_tier *tier = &topo->tiers[t];
		char nodes[64], cap[BYTES_COL], fr[BYTES_COL], kid[24], lat[24], cpus[64] = "";

		(void)tierd_nodeset_format(&tier->nodes, nodes, sizeof(nodes));
		tierd_format_bytes(tier->total_bytes, cap, sizeof(cap));
		tierd_format_bytes(tier->free_bytes, fr, sizeof(fr));
		if (tier->kernel_id >= 0)
			snprintf(kid, sizeof(kid), "memory_tier%d", tier->kernel_id);
		else
			snprintf(kid, sizeof(kid), "-");
		if (tier->read_latency_ns)
			snprintf(lat, sizeof(lat), "%uns", tier->read_latency_ns);
		else
			snprintf(lat, sizeof(lat), "-");
		for (size_t i = 0; i < topo->nr_nodes; i++) {
			if (topo->nodes[i].tier != (int)t || !topo->nodes[i].cpulist[0])
				continue;
			snprintf(cpus + strlen(cpus), sizeof(cpus) - strlen(cpus), "%s%s",
				 cpus[0] ? "," : "", topo->nodes[i].cpulist);
		}
		fprintf(f, "%-5zu %-15s %-8s %10s %10s %9s %9s\n", t, kid, nodes, cap, fr, lat,
			cpus[0] ? cpus : "-");
	}
}

void tierd_report_summary(const struct tierd_report *rep, char *buf, size_t size)
{
	snprintf(buf, size, "%zu tiers, %zu cgroups managed, %zu over budget%s", rep->topo.nr_tiers,
		 rep->nr_cgroups, rep->nr_over_budget, rep->dry_run ? ", dry run" : "");
}

static void fmt_opt(bool has, uint64_t v, char *buf, size_t size)
{
	if (has)
		tierd_format_bytes(v, buf, (int)size);
	else
		snprintf(buf, size, "-");
}

void tierd_report_print(FILE *f, const struct tierd_report *rep)
{
	char summary[256];

	tierd_report_summary(rep, summary, sizeof(summary));
	fprintf(f, "tierd: %s\n\n", summary);
	tierd_topology_print(f, &rep->topo);
	fprintf(f, "\n%-34s %-10s %-8s %4s %10s %10s %10s %10s %10s\n", "CGROUP", "POLICY",
		"STRATEGY", "TIER", "ANON", "FILE", "MAX", "MIN", "OVER");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const struct tierd_report_cgroup *cg = &rep->cgroups[c];

		for (size_t t = 0; t < rep->topo.nr_tiers; t++) {
			const struct tierd_tier_standing *ts = &cg->standing.tiers[t];
			char anon[BYTES_COL], file[BYTES_COL], max[BYTES_COL], min[BYTES_COL],
				over[BYTES_COL];

			tierd_format_bytes(ts->anon_bytes, anon, sizeof(anon));
			tierd_format_bytes(ts->file_bytes, file, sizeof(file));
			fmt_opt(ts->has_max, ts->max_bytes, max, sizeof(max));
			fmt_opt(ts->has_min, ts->min_bytes, min, sizeof(min));
			fmt_opt(ts->has_max, ts->over_bytes, over, sizeof(over));
			fprintf(f, "%-34s %-10s %-8s %4zu %10s %10s %10s %10s %10s\n",
				t == 0 ? cg->path : "", t == 0 ? cg->policy : "",
				t == 0 ? tierd_strategy_name(cg->strategy) : "", t, anon, file, max,
				min, over);
		}
	}
	if (rep->nr_conflicts)
		fprintf(f, "\n%zu cgroups left unmanaged: two policies of equal priority match them\n",
			rep->nr_conflicts);
	fprintf(f, "\nPLAN (%s)\n", rep->dry_run ? "dry run: recorded, not carried out" : "carried out");
	if (!rep->nr_actions)
		fprintf(f, "  nothing to move\n");
	for (size_t i = 0; i < rep->nr_actions; i++) {
		const struct tierd_action *a = &rep->actions[i];
		const struct tierd_tier_standing *ts = &rep->cgroups[a->cgroup].standing.tiers[a->from_tier];
		char bytes[BYTES_COL], used[BYTES_COL], max[BYTES_COL];

		tierd_format_bytes(a->bytes, bytes, sizeof(bytes));
		if (a->kind == TIERD_ACTION_MIGRATE) {
			fprintf(f, "  %s %s of %s [0x%llx, 0x%llx) from tier %zu to tier %zu (%s)\n",
				a->to_tier < a->from_tier ? "promote" : "demote", bytes,
				rep->cgroups[a->cgroup].path, (unsigned long long)a->start,
				(unsigned long long)a->end, a->from_tier, a->to_tier,
				tierd_reason_name(a->reason));
			continue;
		}
		tierd_format_bytes(ts->anon_bytes + ts->file_bytes, used, sizeof(used));
		tierd_format_bytes(ts->max_bytes, max, sizeof(max));
		fprintf(f, "  demote %s of %s from tier %zu to tier %zu (%s: tier %zu holds %s, max %s)\n",
			bytes, rep->cgroups[a->cgroup].path, a->from_tier, a->to_tier,
			tierd_reason_name(a->reason), a->from_tier, used, max);
	}
}
