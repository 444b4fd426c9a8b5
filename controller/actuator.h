/* The seam between the plan and the kernel: an ops table, so the daemon
 * carries a tick's plan out through DAMON, memory.reclaim and move_pages
 * (actuator_kernel.c) or only records it (--dry-run, below). */
#ifndef TIERD_ACTUATOR_H
#define TIERD_ACTUATOR_H

#include <stdint.h>

#include "../policy/engine.h"

/* One tick's plan and what carrying it out needs. */
struct tierd_actuation {
	const struct tierd_engine_input *in;  /* topology, cgroups with their hotness */
	const struct tierd_plan *plan;
	const uint64_t *period_usec;          /* per tier: profiling period asked for, 0 none */
	uint64_t tick_usec;
};

struct tierd_actuator_ops {
	const char *name;
	/* Carries out (or records) the plan. Failures are the actuator's to
	 * log and account; the tick goes on. */
	void (*apply)(void *data, const struct tierd_actuation *a);
};

/* What the dry-run actuator recorded. */
struct tierd_dry_run {
	uint64_t actions;
	uint64_t bytes;
};

extern const struct tierd_actuator_ops tierd_dry_run_ops;

#endif
