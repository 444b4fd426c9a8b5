/* Topology discovery from sysfs and libnuma. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsread.h"
#include "kparse.h"
#include "topology_read.h"
#include "../policy/util.h"

#define NODE_DIR "/sys/devices/system/node"
#define TIERING_DIR "/sys/devices/virtual/memory_tiering"
#define TIER_PREFIX "memory_tier"

static bool is_live(const char *root)
{
	return !root || !*root || strcmp(root, "/") == 0;
}

/* Reads root+path whole; the caller owns b. */
static int read_path(const char *root, const char *path, struct tierd_buf *b)
{
	char full[TIERD_FILE_PATH_MAX];
	int r = tierd_root_path(root, path, full, sizeof(full));

	if (r < 0)
		return r;
	return tierd_read_at(AT_FDCWD, full, b);
}

static int add_node(struct tierd_topology *topo, int nid, const struct tierd_logger *log)
{
	if (topo->nr_nodes == TIERD_MAX_NODES)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -E2BIG,
				       "more than %d nodes with memory; tierd handles at most %d",
				       TIERD_MAX_NODES, TIERD_MAX_NODES);
	memset(&topo->nodes[topo->nr_nodes], 0, sizeof(topo->nodes[0]));
	topo->nodes[topo->nr_nodes].nid = nid;
	topo->nodes[topo->nr_nodes].tier = -1;
	topo->nr_nodes++;
	return 0;
}

/* Live system: libnuma's view of the nodes that hold memory. */
static int nodes_from_libnuma(struct tierd_topology *topo, const struct tierd_logger *log)
{
	int r;

	for (int nid = 0; nid <= numa_max_node(); nid++) {
		long long free_bytes = 0, total;

		if (!numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)nid))
			continue;
		total = numa_node_size64(nid, &free_bytes);
		if (total <= 0)
			continue;
		r = add_node(topo, nid, log);
		if (r < 0)
			return r;
		topo->nodes[topo->nr_nodes - 1].total_bytes = (uint64_t)total;
		topo->nodes[topo->nr_nodes - 1].free_bytes = (uint64_t)free_bytes;
	}
	return 0;
}

static int node_meminfo(const char *root, struct tierd_node *node, struct tierd_buf *b,
			const struct tierd_logger *log)
{
	char path[TIERD_FILE_PATH_MAX];
	int line = 0, r;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/meminfo", node->nid);
	r = read_path(root, path, b);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
	r = tierd_kparse_node_meminfo(b->data, b->len, &node->total_bytes, &node->free_bytes, &line);
	if (r == -ENODATA)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s: expected \"Node N MemTotal:\" and \"MemFree:\" lines",
				       path);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s:%d: expected \"Node N MemTotal: <n> kB\" lines",
				       path, line);
	return 0;
}

/* Under --root: sysfs has_memory (or online on kernels without it). */
static int nodes_from_sysfs(const char *root, struct tierd_topology *topo, struct tierd_buf *b,
			    const struct tierd_logger *log)
{
	struct tierd_nodeset set;
	int r;

	r = read_path(root, NODE_DIR "/has_memory", b);
	if (r == -ENOENT)
		r = read_path(root, NODE_DIR "/online", b);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s: cannot read the list of nodes",
				       NODE_DIR);
	if (tierd_nodeset_parse(b->data, &set) < 0 || tierd_nodeset_empty(&set))
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s/has_memory: expected a node list such as \"0-3\"",
				       NODE_DIR);
	for (int nid = tierd_nodeset_next(&set, -1); nid >= 0; nid = tierd_nodeset_next(&set, nid)) {
		r = add_node(topo, nid, log);
		if (r < 0)
			return r;
		r = node_meminfo(root, &topo->nodes[topo->nr_nodes - 1], b, log);
		if (r < 0)
			return r;
	}
	return 0;
}

static uint32_t read_hmat(const char *root, int nid, const char *name, struct tierd_buf *b,
			  bool *found)
{
	char path[TIERD_FILE_PATH_MAX];
	uint64_t v;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/access0/initiators/%s", nid, name);
	if (read_path(root, path, b) < 0 || tierd_kparse_u64(b->data, b->len, &v) < 0 ||
	    v > UINT32_MAX)
		return 0;
	*found = true;
	return (uint32_t)v;
}

/* CPUs and HMAT figures: optional, a missing file is no error. */
static void node_details(const char *root, struct tierd_node *node, struct tierd_buf *b)
{
	char path[TIERD_FILE_PATH_MAX];
	bool found = false;

	snprintf(path, sizeof(path), NODE_DIR "/node%d/cpulist", node->nid);
	if (read_path(root, path, b) == 0) {
		b->data[strcspn(b->data, "\n")] = '\0';
		snprintf(node->cpulist, sizeof(node->cpulist), "%s", b->data);
	}
	node->read_latency_ns = read_hmat(root, node->nid, "read_latency", b, &found);
	node->write_latency_ns = read_hmat(root, node->nid, "write_latency", b, &found);
	node->read_bandwidth_mbps = read_hmat(root, node->nid, "read_bandwidth", b, &found);
	node->write_bandwidth_mbps = read_hmat(root, node->nid, "write_bandwidth", b, &found);
	node->has_hmat = found;
}

struct kernel_tier {
	int id;
	struct tierd_nodeset nodes;
};

static int cmp_tier(const void *a, const void *b)
{
	const struct kernel_tier *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* memory_tierN directories, fastest (smallest N) first. No directory means
 * one tier. */
static int kernel_tiers(const char *root, struct kernel_tier *tiers, size_t *ret_nr,
			struct tierd_buf *b, const struct tierd_logger *log)
{
	char dirpath[TIERD_FILE_PATH_MAX], path[TIERD_FILE_PATH_MAX];
	struct dirent *de;
	size_t nr = 0;
	DIR *d;
	int r = 0;

	r = tierd_root_path(root, TIERING_DIR, dirpath, sizeof(dirpath));
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s under --root", TIERING_DIR);
	d = opendir(dirpath);
	if (!d) {
		*ret_nr = 0;
		if (errno == ENOENT)
			return 0;
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "%s", dirpath);
	}
	while ((de = readdir(d))) {
		char *end;
		long id;

		if (strncmp(de->d_name, TIER_PREFIX, strlen(TIER_PREFIX)) != 0)
			continue;
		id = strtol(de->d_name + strlen(TIER_PREFIX), &end, 10);
		if (*end || end == de->d_name + strlen(TIER_PREFIX) || id < 0)
			continue;
		snprintf(path, sizeof(path), TIERING_DIR "/%s/nodelist", de->d_name);
		r = read_path(root, path, b);
		if (r < 0) {
			tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
			goto out;
		}
		if (nr == TIERD_MAX_TIERS) {
			r = tierd_log_errno(log, TIERD_LOG_DEBUG, -E2BIG,
					    "%s: more than %d memory tiers", TIERING_DIR,
					    TIERD_MAX_TIERS);
			goto out;
		}
		if (tierd_nodeset_parse(b->data, &tiers[nr].nodes) < 0) {
			r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					    "%s: expected a node list such as \"0-1\"", path);
			goto out;
		}
		if (tierd_nodeset_empty(&tiers[nr].nodes))
			continue;
		tiers[nr++].id = (int)id;
	}
	qsort(tiers, nr, sizeof(*tiers), cmp_tier);
	*ret_nr = nr;
out:
	closedir(d);
	return r;
}

/* The core words the node sets it refuses but cannot log (policy/ does no
 * I/O): its message is told here. */
static int assign_tiers(struct tierd_topology *topo, const struct tierd_nodeset *sets,
			const int *ids, size_t nr, enum tierd_tier_source source,
			const struct tierd_logger *log)
{
	char why[TIERD_ERR_MAX];
	int r = tierd_topology_assign_tiers(topo, sets, ids, nr, source, why, sizeof(why));

	return r < 0 ? tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", why) : 0;
}

int tierd_topology_read(const char *root, const struct tierd_config *cfg,
			struct tierd_topology *topo, const struct tierd_logger *log)
{
	struct tierd_nodeset sets[TIERD_MAX_TIERS];
	int ids[TIERD_MAX_TIERS];
	struct kernel_tier ktiers[TIERD_MAX_TIERS];
	struct tierd_buf b = { 0 };
	size_t nr_sets = 0;
	int r;

	memset(topo, 0, sizeof(*topo));
	if (is_live(root) && numa_available() >= 0)
		r = nodes_from_libnuma(topo, log);
	else
		r = nodes_from_sysfs(root, topo, &b, log);
	if (r < 0)
		goto out;
	if (topo->nr_nodes == 0) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOENT,
				    "no NUMA node with memory found");
		goto out;
	}
	for (size_t i = 0; i < topo->nr_nodes; i++)
		node_details(root, &topo->nodes[i], &b);

	if (cfg->nr_tier_override) {
		memcpy(sets, cfg->tier_override, cfg->nr_tier_override * sizeof(sets[0]));
		r = assign_tiers(topo, sets, NULL, cfg->nr_tier_override, TIERD_TIERS_CONFIG, log);
		goto out;
	}
	r = kernel_tiers(root, ktiers, &nr_sets, &b, log);
	if (r < 0)
		goto out;
	if (nr_sets == 0) {
		tierd_nodeset_clear(&sets[0]);
		for (size_t i = 0; i < topo->nr_nodes; i++)
			(void)tierd_nodeset_add(&sets[0], topo->nodes[i].nid);
		ids[0] = -1;
		r = assign_tiers(topo, sets, ids, 1, TIERD_TIERS_SINGLE, log);
		goto out;
	}
	for (size_t t = 0; t < nr_sets; t++) {
		sets[t] = ktiers[t].nodes;
		ids[t] = ktiers[t].id;
	}
	r = assign_tiers(topo, sets, ids, nr_sets, TIERD_TIERS_KERNEL, log);
out:
	tierd_buf_free(&b);
	return r;
}

int tierd_topology_refresh_free(const char *root, struct tierd_topology *topo,
				const struct tierd_logger *log)
{
	uint64_t node_free[TIERD_MAX_NODES], tier_free[TIERD_MAX_TIERS] = { 0 };
	struct tierd_buf b = { 0 };
	int r = 0;

	/* All nodes or none: a half-refreshed topology would contradict itself. */
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		struct tierd_node node = topo->nodes[i];

		if (is_live(root) && numa_available() >= 0) {
			long long free_bytes = 0;

			if (numa_node_size64(node.nid, &free_bytes) > 0)
				node.free_bytes = (uint64_t)free_bytes;
		} else {
			r = node_meminfo(root, &node, &b, log);
			if (r < 0)
				break;
		}
		node_free[i] = node.free_bytes;
		tier_free[node.tier] += node.free_bytes;
	}
	tierd_buf_free(&b);
	if (r < 0)
		return r;
	for (size_t i = 0; i < topo->nr_nodes; i++)
		topo->nodes[i].free_bytes = node_free[i];
	for (size_t t = 0; t < topo->nr_tiers; t++)
		topo->tiers[t].free_bytes = tier_free[t];
	return 0;
}
