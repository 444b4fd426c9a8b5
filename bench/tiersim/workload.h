/* Workloads: deterministic streams of page accesses, from a seed (each with
 * its own PRNG stream, independent of where pages sit) or replayed from a
 * trace file. A stream is a sequence of (time, cgroup, page, read|write);
 * the first access to a page allocates it (first touch). Synthetic workloads
 * run at a fixed rate and touch a prefix of each address space at time 0,
 * as their initialisation would.
 *
 * Scale: footprint and access rate grow together, so per-page access rates,
 * and with them what the samplers can see in a window, stay the same. */
#ifndef TIERSIM_WORKLOAD_H
#define TIERSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define TIERSIM_MAX_CGROUPS 64

/* Footprint at scale 1: 32768 pages, 128 MiB. With the access rate below a
 * hot GUPS page is touched ~35 times a second and a cold one every ~3 s:
 * the hot:cold per-page ratio of Mole's GUPS (~100:1, §6.2), at rates where
 * a 5 ms DAMON sample and a 1 s hint-fault threshold can tell them apart. */
#define TIERSIM_FOOTPRINT_PAGES 32768ull
/* Simulated accesses per second at scale 1 (each stands for one LLC miss). */
#define TIERSIM_ACCESSES_PER_SEC 200000ull
/* Default run length: 120 ticks of 1 s, a few seconds of wall time. */
#define TIERSIM_DEFAULT_DURATION_USEC (120 * 1000000ull)

#define TIERSIM_WORKLOADS(X)                                                   \
	X(TIERSIM_WL_GUPS, "gups")                                             \
	X(TIERSIM_WL_ZIPF, "zipf")                                             \
	X(TIERSIM_WL_PHASE, "phase")                                           \
	X(TIERSIM_WL_ALLOC_BURST, "alloc-burst")                               \
	X(TIERSIM_WL_GRAPH, "graph")                                           \
	X(TIERSIM_WL_MULTI_TENANT, "multi-tenant")                             \
	X(TIERSIM_WL_TRACE, "trace")

enum tiersim_workload_kind {
#define TIERSIM_X(id, name) id,
	TIERSIM_WORKLOADS(TIERSIM_X)
#undef TIERSIM_X
	TIERSIM_WL_NR
};

const char *tiersim_workload_name(enum tiersim_workload_kind k);
/* Returns 0 or -EINVAL. */
int tiersim_workload_parse(const char *name, enum tiersim_workload_kind *ret);

struct tiersim_workload_config {
	enum tiersim_workload_kind kind;
	double scale;            /* > 0; 1 = TIERSIM_FOOTPRINT_PAGES */
	uint64_t duration_usec;  /* synthetic workloads; a trace runs to its end */
	uint64_t seed;
	const char *trace_path;  /* TIERSIM_WL_TRACE */
};

struct tiersim_access {
	uint64_t time_usec;
	uint64_t page;           /* index in the cgroup's address space */
	uint32_t cgroup;
	bool write;
};

/* graph: one Graph500 iteration (workload.c). */
#define TIERSIM_GRAPH_ITERATION_USEC (6 * 1000000ull)

struct tiersim_workload {
	enum tiersim_workload_kind kind;
	size_t nr_cgroups;
	uint64_t pages[TIERSIM_MAX_CGROUPS];          /* address space sizes */
	uint64_t prefault_pages[TIERSIM_MAX_CGROUPS]; /* touched at time 0, in order */
	uint64_t duration_usec;
	uint64_t rate_per_sec;
	uint64_t next;           /* index of the next access */
	struct tiersim_rng rng;
	uint64_t seed;

	/* gups, phase, multi-tenant: a contiguous hot range per cgroup. */
	uint64_t hot_start[TIERSIM_MAX_CGROUPS], hot_pages[TIERSIM_MAX_CGROUPS];
	uint32_t hot_pmy;        /* share of accesses to the hot range */
	uint32_t write_pmy;      /* share of accesses that write */
	uint64_t phase;          /* phase: which hot set; graph: which iteration */

	/* zipf: Vose alias table over ranks, and rank -> page. */
	double *alias_prob;
	uint32_t *alias;
	uint32_t *rank_page;

	/* graph: clusters, moved every TIERSIM_GRAPH_ITERATION_USEC. */
	size_t nr_clusters;
	uint64_t cluster_start[16], cluster_pages;

	/* alloc-burst: the allocation frontier. */
	uint64_t frontier;       /* pages [0, frontier) allocated */

	/* trace */
	size_t nr_records, record;
	struct tiersim_access *records;
	char cgroup_names[TIERSIM_MAX_CGROUPS][64];
};

/* Builds a workload. Returns 0; -EINVAL with a message in err (a bad
 * parameter, a malformed trace line); -ENOENT and others from reading the
 * trace; -ENOMEM. */
int tiersim_workload_new(const struct tiersim_workload_config *cfg,
			 struct tiersim_workload **ret, char *err, size_t err_size);
void tiersim_workload_free(struct tiersim_workload *w);

/* The next access before until_usec: returns 1 and fills *a, or 0 when the
 * stream has nothing more before until_usec. */
int tiersim_workload_next(struct tiersim_workload *w, uint64_t until_usec,
			  struct tiersim_access *a);

/* Pages over all cgroups (the machine is sized from it). */
uint64_t tiersim_workload_footprint(const struct tiersim_workload *w);

#endif
