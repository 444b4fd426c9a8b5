/* Parsers for the kernel's text files: memory.numa_stat, memory.stat,
 * memory.pressure, memory.{min,low,high,max,current}, nodeN/meminfo,
 * single numbers (HMAT figures) and /proc/self/mountinfo.
 * Pure: they take the bytes already read and fill plain structs, so they are
 * tested on exact inputs. Unknown keys are ignored (the kernel adds keys in
 * the middle: docs/kernel.md §2.1). A malformed line makes the parser
 * return -EINVAL with *ret_line set to its 1-based number; outputs are then
 * unspecified. A NUL inside the text is malformed. */
#ifndef TIERD_KPARSE_H
#define TIERD_KPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/snapshot.h"

/* memory.numa_stat: "anon N0=123 N1=0\n...". Fills obs->anon_bytes[] and
 * obs->file_bytes[] (indexed like topo->nodes; zeroed first) from the "anon"
 * and "file" lines. Nodes absent from topo are ignored. Both lines missing
 * is -ENODATA. */
int tierd_kparse_numa_stat(const char *text, size_t len, const struct tierd_topology *topo,
			   struct tierd_cgroup_obs *obs, int *ret_line);

/* memory.stat: "key value\n" lines; fills the keys of TIERD_MEMSTAT_KEYS
 * and their present bits (zeroed first). */
int tierd_kparse_memstat(const char *text, size_t len, struct tierd_memstat *stat, int *ret_line);

/* memory.pressure / /proc/pressure/memory:
 * "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull ...\n". */
int tierd_kparse_psi(const char *text, size_t len, struct tierd_psi *psi, int *ret_line);

/* The kernel reads "max" in memory.{high,max} as no limit. */
#define TIERD_LIMIT_NONE UINT64_MAX

/* memory.current, in the format memory.{min,low,high,max} share: a number
 * of bytes or "max" (TIERD_LIMIT_NONE), one line. */
int tierd_kparse_limit(const char *text, size_t len, uint64_t *ret_bytes);

/* A single unsigned decimal number on one line (HMAT latency, bandwidth). */
int tierd_kparse_u64(const char *text, size_t len, uint64_t *ret_value);

/* nodeN/meminfo: "Node 0 MemTotal:  1048576 kB" lines; MemTotal and MemFree
 * in bytes. Either missing is -ENODATA. */
int tierd_kparse_node_meminfo(const char *text, size_t len, uint64_t *ret_total,
			      uint64_t *ret_free, int *ret_line);

struct tierd_mounts {
	bool has_cgroup2;
	char cgroup2_path[TIERD_CGROUP_PATH_MAX]; /* first cgroup2 mount point */
	bool memory_v1;  /* a cgroup (v1) mount carries the memory controller */
};

/* /proc/self/mountinfo (proc(5)): finds the cgroup2 mount and whether the
 * memory controller is bound to a v1 hierarchy (then cgroup2 cannot have it).
 * Octal escapes in mount points (\040) are decoded. */
int tierd_kparse_mountinfo(const char *text, size_t len, struct tierd_mounts *mounts,
			   int *ret_line);

#endif
