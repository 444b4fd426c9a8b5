/* What tierd sees of the machine in one tick, as plain structs: the memory
 * topology (nodes grouped into tiers, fastest first) and, per managed cgroup,
 * where its memory sits and how it is doing. The I/O shell fills these; the
 * decision core only reads them. */
#ifndef TIERD_SNAPSHOT_H
#define TIERD_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nodeset.h"

/* Nodes with memory and tiers tierd handles. Machines past these limits are
 * refused at start with a clear message rather than half-handled. */
#define TIERD_MAX_NODES 64
#define TIERD_MAX_TIERS 16
/* Longest cgroup path (relative to the cgroup2 mount) tierd keeps. */
#define TIERD_CGROUP_PATH_MAX 512

struct tierd_node {
	int nid;
	int tier;                 /* index into tierd_topology.tiers, 0 = fastest */
	uint64_t total_bytes;     /* nodeN/meminfo MemTotal */
	uint64_t free_bytes;      /* nodeN/meminfo MemFree */
	char cpulist[64];         /* nodeN/cpulist, "" for CPU-less nodes */
	bool has_hmat;            /* access0/initiators figures present */
	uint32_t read_latency_ns;
	uint32_t write_latency_ns;
	uint32_t read_bandwidth_mbps;
	uint32_t write_bandwidth_mbps;
};

enum tierd_tier_source {
	TIERD_TIERS_KERNEL,   /* /sys/devices/virtual/memory_tiering */
	TIERD_TIERS_CONFIG,   /* explicit override in tierd.json */
	TIERD_TIERS_SINGLE,   /* no memory_tiering: every node in one tier */
};

struct tierd_tier {
	int kernel_id;            /* N of memory_tierN, -1 when not from the kernel */
	struct tierd_nodeset nodes;
	uint64_t total_bytes;
	uint64_t free_bytes;
	uint32_t read_latency_ns; /* slowest HMAT read latency among its nodes, 0 unknown */
};

struct tierd_topology {
	enum tierd_tier_source source;
	size_t nr_nodes;
	struct tierd_node nodes[TIERD_MAX_NODES];
	size_t nr_tiers;
	struct tierd_tier tiers[TIERD_MAX_TIERS];
};

/* Index of nid in topo->nodes, or -1. */
int tierd_topology_node_index(const struct tierd_topology *topo, int nid);
/* Builds tiers from an ordered list of node sets (fastest first), filling
 * per-tier totals from the nodes. Nodes in no set, or in two, are refused:
 * returns -EINVAL and writes a message naming the node into err. */
int tierd_topology_assign_tiers(struct tierd_topology *topo,
				const struct tierd_nodeset *sets, const int *kernel_ids,
				size_t nr_sets, enum tierd_tier_source source,
				char *err, size_t err_size);

/* PSI averages are printed with two decimals of a percent, which is exactly
 * permyriad. */
struct tierd_psi_line {
	uint32_t avg10_pmy;
	uint32_t avg60_pmy;
	uint32_t avg300_pmy;
	uint64_t total_usec;
};

struct tierd_psi {
	bool has_some;
	bool has_full;
	struct tierd_psi_line some;
	struct tierd_psi_line full;
};

/* memory.stat keys tierd reads; X(name, field). Counts are pages for the
 * pg* and numa_* events (docs/kernel.md §2.1), bytes otherwise. */
#define TIERD_MEMSTAT_KEYS(X)                                                  \
	X("anon", anon)                                                        \
	X("file", file)                                                        \
	X("pgdemote_kswapd", pgdemote_kswapd)                                  \
	X("pgdemote_direct", pgdemote_direct)                                  \
	X("pgdemote_khugepaged", pgdemote_khugepaged)                          \
	X("pgdemote_proactive", pgdemote_proactive)                            \
	X("pgpromote_success", pgpromote_success)                              \
	X("numa_pages_migrated", numa_pages_migrated)                          \
	X("numa_hint_faults", numa_hint_faults)

enum tierd_memstat_key {
#define TIERD_X(name, field) TIERD_MEMSTAT_##field,
	TIERD_MEMSTAT_KEYS(TIERD_X)
#undef TIERD_X
	TIERD_MEMSTAT_NR
};

struct tierd_memstat {
	uint32_t present;  /* bit (1 << enum tierd_memstat_key) per key seen */
	uint64_t value[TIERD_MEMSTAT_NR];
};

/* One cgroup's memory as read in one tick. Per-node arrays are indexed like
 * tierd_topology.nodes. */
struct tierd_cgroup_obs {
	char path[TIERD_CGROUP_PATH_MAX]; /* "/system.slice/x.service" */
	uint64_t id;                      /* cgroup id = inode of its directory */
	uint64_t anon_bytes[TIERD_MAX_NODES];
	uint64_t file_bytes[TIERD_MAX_NODES];
	uint64_t current_bytes;
	struct tierd_memstat stat;
	bool has_pressure;
	struct tierd_psi pressure;
};

/* Bytes (anon + file) of a cgroup on the nodes of tier t. */
uint64_t tierd_cgroup_tier_bytes(const struct tierd_topology *topo,
				 const struct tierd_cgroup_obs *obs, size_t tier,
				 uint64_t *ret_anon, uint64_t *ret_file);
/* Bytes (anon + file) of a cgroup over all nodes. */
uint64_t tierd_cgroup_total_bytes(const struct tierd_topology *topo,
				  const struct tierd_cgroup_obs *obs);

#endif
