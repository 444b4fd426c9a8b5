/* Helpers over the snapshot structs: node lookup, tier assembly, per-tier
 * sums of a cgroup's memory. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "snapshot.h"

int tierd_topology_node_index(const struct tierd_topology *topo, int nid)
{
	for (size_t i = 0; i < topo->nr_nodes; i++)
		if (topo->nodes[i].nid == nid)
			return (int)i;
	return -1;
}

int tierd_topology_assign_tiers(struct tierd_topology *topo,
				const struct tierd_nodeset *sets, const int *kernel_ids,
				size_t nr_sets, enum tierd_tier_source source,
				char *err, size_t err_size)
{
	if (nr_sets == 0 || nr_sets > TIERD_MAX_TIERS) {
		snprintf(err, err_size, "%zu tiers given, expected 1 to %d", nr_sets,
			 TIERD_MAX_TIERS);
		return -EINVAL;
	}
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		struct tierd_node *node = &topo->nodes[i];

		node->tier = -1;
		for (size_t t = 0; t < nr_sets; t++) {
			if (!tierd_nodeset_has(&sets[t], node->nid))
				continue;
			if (node->tier >= 0) {
				snprintf(err, err_size, "node %d is in tier %d and tier %zu",
					 node->nid, node->tier, t);
				return -EINVAL;
			}
			node->tier = (int)t;
		}
		if (node->tier < 0) {
			snprintf(err, err_size, "node %d (it has memory) is in no tier", node->nid);
			return -EINVAL;
		}
	}
	for (size_t t = 0; t < nr_sets; t++) {
		for (int nid = tierd_nodeset_next(&sets[t], -1); nid >= 0;
		     nid = tierd_nodeset_next(&sets[t], nid)) {
			if (tierd_topology_node_index(topo, nid) < 0) {
				snprintf(err, err_size, "tier %zu names node %d, which has no memory",
					 t, nid);
				return -EINVAL;
			}
		}
	}

	memset(topo->tiers, 0, sizeof(topo->tiers));
	topo->nr_tiers = nr_sets;
	topo->source = source;
	for (size_t t = 0; t < nr_sets; t++) {
		topo->tiers[t].kernel_id = kernel_ids ? kernel_ids[t] : -1;
		topo->tiers[t].nodes = sets[t];
	}
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct tierd_node *node = &topo->nodes[i];
		struct tierd_tier *tier = &topo->tiers[node->tier];

		tier->total_bytes += node->total_bytes;
		tier->free_bytes += node->free_bytes;
		if (node->has_hmat && node->read_latency_ns > tier->read_latency_ns)
			tier->read_latency_ns = node->read_latency_ns;
	}
	return 0;
}

uint64_t tierd_cgroup_tier_bytes(const struct tierd_topology *topo,
				 const struct tierd_cgroup_obs *obs, size_t tier,
				 uint64_t *ret_anon, uint64_t *ret_file)
{
	uint64_t anon = 0, file = 0;

	for (size_t i = 0; i < topo->nr_nodes; i++) {
		if (topo->nodes[i].tier != (int)tier)
			continue;
		anon += obs->anon_bytes[i];
		file += obs->file_bytes[i];
	}
	if (ret_anon)
		*ret_anon = anon;
	if (ret_file)
		*ret_file = file;
	return anon + file;
}

uint64_t tierd_cgroup_total_bytes(const struct tierd_topology *topo,
				  const struct tierd_cgroup_obs *obs)
{
	uint64_t total = 0;

	for (size_t i = 0; i < topo->nr_nodes; i++)
		total += obs->anon_bytes[i] + obs->file_bytes[i];
	return total;
}
