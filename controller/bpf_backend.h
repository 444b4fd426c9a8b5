/* tierd's BPF backend: the hint-fault sampler (bpf_sampler.h) at work in
 * the daemon. It manages in the sampler's maps the cgroups tierd manages
 * (a policy reload changes maps, never reloads programs), collects the
 * ring buffer's samples as they come (the daemon drains on an sd_event IO
 * source), hands each tick's samples to the engine as token addresses
 * (sample_pages.h), and carries the engine's promotions of sampled pages
 * out with move_pages(2) (sample_promote.h). */
#ifndef TIERD_BPF_BACKEND_H
#define TIERD_BPF_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "bpf_sampler.h"
#include "kernel_worker.h"
#include "log.h"
#include "sample_pages.h"
#include "sample_promote.h"
#include "../report/bpfstats.h"
#include "../policy/engine.h"

/* Samples kept between ticks at most: three full ring buffers
 * (TIERD_BPF_RING_BYTES of records), so a tick that comes late loses none
 * of a full ring's. */
#define TIERD_BPF_TICK_SAMPLES (3 * (TIERD_BPF_RING_BYTES / sizeof(struct tierd_bpf_sample)))

struct tierd_bpf_tick_sample {
	uint64_t cgroup_id;
	struct tierd_sample sample; /* addr: a token address */
};

/* A cgroup in the sampler's map, with the bucket it was given. */
struct tierd_bpf_managed {
	uint64_t cgroup_id;
	uint32_t rate, burst;
};

/* What the kernel worker runs for sampled promotions. */
struct tierd_promote_job {
	const struct tierd_move_pages_ops *ops;
	void *ops_data;
	struct tierd_promote_batch batch;
	uint64_t deadline_usec;     /* CLOCK_MONOTONIC */
};

struct tierd_bpf_backend {
	struct tierd_bpf_state state;
	struct tierd_bpf_sampler *sampler;
	struct tierd_sample_pages pages;
	struct tierd_sample_promoter promoter;
	struct tierd_kernel_worker worker;     /* runs job: move_pages off the tick */
	struct tierd_promote_job job;
	const struct tierd_logger *log;
	size_t nr_managed;
	struct tierd_bpf_managed *managed;     /* TIERD_BPF_MAX_CGROUPS */
	size_t nr_pending;
	struct tierd_bpf_tick_sample *pending; /* drained, not yet given to the engine */
	size_t nr_tick;
	struct tierd_bpf_tick_sample *tick;    /* given to the engine this tick */
	struct tierd_sample *tick_samples;     /* tick's samples grouped by cgroup */
};

/* Probes and loads the sampler for topo (fast tier 0 not sampled). Any
 * failure leaves state.mode UNAVAILABLE with the reason, logged. root: the
 * BTF and tracefs are looked for under it. */
void tierd_bpf_backend_start(struct tierd_bpf_backend *b, const char *root,
			     const struct tierd_topology *topo, const struct tierd_logger *log);
/* Sets mode OFF with why; for "bpf": false and the like. */
void tierd_bpf_backend_off(struct tierd_bpf_backend *b, const char *why);

/* The fd to watch for records (epoll), or -1 when not running. */
int tierd_bpf_backend_fd(const struct tierd_bpf_backend *b);
/* Consumes the waiting records into the pending samples. */
void tierd_bpf_backend_drain(struct tierd_bpf_backend *b);

/* Per tick, before planning: the sampler's map follows cgroups[0..nr)
 * (new cgroups managed, gone ones dropped, buckets from their policies'
 * "sampling"), and hot[c] gets the samples drained since the last tick,
 * valid until the next call. */
void tierd_bpf_backend_tick(struct tierd_bpf_backend *b, const struct tierd_engine_cgroup *cgroups,
			    size_t nr, struct tierd_hotness *hot);

/* Whether the running sampler samples cgroup_id; *counts gets its counters
 * then, zeros otherwise. */
bool tierd_bpf_backend_counts(const struct tierd_bpf_backend *b, uint64_t cgroup_id,
			      struct tierd_bpf_cgroup_counts *counts);

/* Hands plan's promotions of sampled pages to the kernel worker, with a
 * deadline of tick_usec / TIERD_KERNEL_DEADLINE_DIVISOR (a call under way
 * when it passes still ends); while the last
 * batch still runs, this tick's wait (counted: promote_busy_ticks) and the
 * retry queue keeps what it held. Never waits for the kernel. Returns
 * false when this tick's promotions were not started (the worker busy, or
 * out of memory): the caller gives them back to the budgets. */
bool tierd_bpf_backend_promote(struct tierd_bpf_backend *b, const struct tierd_engine_input *in,
			       const struct tierd_plan *plan, uint64_t tick_usec);

/* When the last batch has ended: accounts it (stats, the promotion counts,
 * the feedback the next tierd_bpf_backend_feedback() calls read), logging
 * failed calls with the paths of obs[0..nr). Does nothing while it runs. */
void tierd_bpf_backend_reap(struct tierd_bpf_backend *b, const struct tierd_topology *topo,
			    struct tierd_migration_stats *stats, const struct tierd_cgroup_obs *obs,
			    size_t nr);

/* What the batch reaped this tick did for the cgroup: bytes moved and
 * failed (none when no batch ended since the last promote). */
void tierd_bpf_backend_feedback(const struct tierd_bpf_backend *b, uint64_t cgroup_id,
				struct tierd_feedback *fb);

void tierd_bpf_backend_stop(struct tierd_bpf_backend *b);

#endif
