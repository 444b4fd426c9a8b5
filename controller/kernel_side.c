/* The daemon's kernel side; see kernel_side.h. */
#include <stdio.h>
#include <string.h>

#include "daemon_undo.h"
#include "kernel_side.h"
#include "../policy/util.h"

/* The kernel promotes a hint-faulted page of a slower tier, whatever the
 * rate limit, while the fast node has this much free memory above its
 * promotion watermark, or 1/16 of its memory if more (6.12
 * kernel/sched/fair.c, pgdat_free_space_enough()). */
#define KERNEL_PROMOTES_FREE_MIN_BYTES (1ull << 30)
#define KERNEL_PROMOTES_FREE_SHIFT 4

/* tierd promotes what the sampler sees: the kernel's own promotion is held
 * off with a rate limit of 0 MB/s, which holds only while the fast nodes
 * are short of free memory (bpf/README.md): said when they are not. */
static void hold_kernel_promotion(struct tierd_daemon *d)
{
	char was[TIERD_KSETTING_VALUE_MAX] = "";
	int r;

	r = tierd_ksetting_get(&d->ksettings, TIERD_KSETTING_PROMOTE_RATE_LIMIT, was, sizeof(was),
			       &d->log);
	if (r == 0)
		r = tierd_ksetting_set(&d->ksettings, TIERD_KSETTING_PROMOTE_RATE_LIMIT, "0",
				       &d->log);
	if (r < 0) {
		tierd_log(&d->log, TIERD_LOG_WARNING,
			  "the kernel's own promotion not held off: %s: %s; it promotes hint-faulted pages alongside tierd",
			  d->ksettings.s[TIERD_KSETTING_PROMOTE_RATE_LIMIT].path, strerror(-r));
		return;
	}
	if (strcmp(was, "0") != 0)
		tierd_log(&d->log, TIERD_LOG_NOTICE,
			  "numa_balancing_promote_rate_limit_MBps set to 0 (was %s; restored on exit): tierd promotes what the BPF sampler sees",
			  was);
	for (size_t i = 0; i < d->topo.nr_nodes; i++) {
		const struct tierd_node *n = &d->topo.nodes[i];
		uint64_t enough = tierd_max_u64(KERNEL_PROMOTES_FREE_MIN_BYTES,
						n->total_bytes >> KERNEL_PROMOTES_FREE_SHIFT);

		if (n->tier == 0 && n->free_bytes > enough)
			tierd_log(&d->log, TIERD_LOG_WARNING,
				  "node %d has %llu MiB free, more than max(1 GiB, 1/16 of it): while that lasts the kernel promotes hint-faulted pages to it despite the rate limit of 0",
				  n->nid, (unsigned long long)(n->free_bytes >> 20));
	}
}

/* The kernel's NUMA balancing, as tierd.json asks; tiering mode, with the
 * kernel's promotion held off, when the BPF sampler runs. */
static void setup_numa_balancing(struct tierd_daemon *d)
{
	static const char *const want[] = { [TIERD_NUMAB_OFF] = "0", [TIERD_NUMAB_TIERING] = "2" };
	const char *path = d->ksettings.s[TIERD_KSETTING_NUMA_BALANCING].path;
	char was[TIERD_KSETTING_VALUE_MAX] = "";
	enum tierd_numa_balancing mode = d->cfg.numa_balancing;
	int r;

	if (d->bpf.state.mode == TIERD_BPF_RUNNING) {
		/* Hint faults on the slower tiers only: the sampler's evidence. */
		mode = TIERD_NUMAB_TIERING;
		hold_kernel_promotion(d);
	}

	r = tierd_ksetting_get(&d->ksettings, TIERD_KSETTING_NUMA_BALANCING, was, sizeof(was),
			       &d->log);
	if (r < 0) {
		if (mode != TIERD_NUMAB_LEAVE)
			tierd_log(&d->log, TIERD_LOG_WARNING, "numa_balancing not set: %s: %s",
				  path, strerror(-r));
		return;
	}
	if (mode == TIERD_NUMAB_LEAVE) {
		/* Bit 1 (NUMA_BALANCING_NORMAL) migrates pages toward the CPUs
		 * that touch them, whatever their tier. */
		if (strcmp(was, "1") == 0 || strcmp(was, "3") == 0)
			tierd_log(&d->log, TIERD_LOG_WARNING,
				  "kernel.numa_balancing is %s: the kernel also moves managed cgroups' memory toward the CPUs' nodes; set \"numa_balancing\": \"off\" in tierd.json to leave placement to tierd",
				  was);
		return;
	}
	r = tierd_ksetting_set(&d->ksettings, TIERD_KSETTING_NUMA_BALANCING, want[mode], &d->log);
	if (r < 0)
		tierd_log(&d->log, TIERD_LOG_WARNING, "numa_balancing not set: %s: %s", path,
			  strerror(-r));
	else if (strcmp(was, want[mode]) != 0)
		tierd_log(&d->log, TIERD_LOG_NOTICE,
			  "kernel.numa_balancing set to %s (was %s; restored on exit)", want[mode], was);
}

/* Opens /proc/kpagecgroup once DAMON runs, at start or at the tick a
 * start that found DAMON busy succeeds (before, a late start left DAMON's
 * regions unattributed and nothing was promoted for the whole run). */
void tierd_kernel_side_open_attribution(struct tierd_daemon *d)
{
	int r;

	if (d->kpagecgroup_tried || d->damon_async.view.state.damon != TIERD_DAMON_RUNNING)
		return;
	d->kpagecgroup_tried = true;
	r = tierd_kpagecgroup_open(d->opts.root, &d->kpagecgroup, &d->log);
	if (r < 0)
		tierd_log(&d->log, TIERD_LOG_WARNING,
			  "DAMON regions cannot be attributed to cgroups: %s: %s; only budgets are enforced",
			  d->kpagecgroup.path, strerror(-r));
	d->kpagecgroup_open = r == 0;
}

static void start_sampler(struct tierd_daemon *d)
{
	if (!d->cfg.bpf)
		tierd_bpf_backend_off(&d->bpf, "\"bpf\": false in tierd.json");
	else if (d->cfg.numa_balancing == TIERD_NUMAB_OFF)
		tierd_bpf_backend_off(&d->bpf,
				      "\"numa_balancing\": \"off\" in tierd.json: no hint faults to sample");
	else if (d->opts.once)
		tierd_bpf_backend_off(&d->bpf, "--once: no event loop to read samples in");
	else
		tierd_bpf_backend_start(&d->bpf, d->opts.root, &d->topo, &d->log);
}

void tierd_kernel_side_start(struct tierd_daemon *d)
{
	int r;

	start_sampler(d);
	r = tierd_ksettings_init(&d->ksettings, d->opts.root, &d->log);
	if (r < 0) {
		tierd_log_errno(&d->log, TIERD_LOG_WARNING, r, "kernel settings unavailable");
	} else {
		d->ksettings_ready = true;
		tierd_daemon_undo_settings(d);
		setup_numa_balancing(d);
	}
	tierd_daemon_undo_kdamonds(d);
	if (d->cfg.damon) {
		tierd_damon_backend_start(&d->damon, d->opts.root, &d->topo, d->cfg.stop_damon_stat,
					  &d->log);
	} else {
		d->damon.state.damon = TIERD_DAMON_OFF;
		snprintf(d->damon.state.damon_why, sizeof(d->damon.state.damon_why),
			 "\"damon\": false in tierd.json");
	}
	(void)tierd_daemon_undo_sync(d);
	r = tierd_damon_async_start(&d->damon_async, &d->damon, !d->opts.once);
	if (r < 0)
		tierd_log(&d->log, TIERD_LOG_WARNING,
			  "DAMON's commands run on the tick: no thread for them: %s", strerror(-r));
	tierd_kernel_side_open_attribution(d);
	d->kernel = (struct tierd_kernel_actuator){
		.damon = &d->damon_async,
		.fs = &d->fs,
		.ks = d->ksettings_ready ? &d->ksettings : NULL,
		.bpf = &d->bpf,
		.manage_demotion = d->cfg.manage_demotion,
		.stats = &d->migrations,
		.log = &d->log,
	};
	if (!d->opts.once) {
		r = tierd_kernel_actuator_start(&d->kernel);
		if (r < 0)
			tierd_log(&d->log, TIERD_LOG_WARNING,
				  "memory.reclaim runs on the tick: no thread for it: %s",
				  strerror(-r));
	}
	d->actuator = &tierd_kernel_actuator_ops;
	d->actuator_data = &d->kernel;
}

/* The first setting a failed restore left changed: the one whose error
 * the restore returned. */
static const char *first_unrestored(const struct tierd_ksettings *ks)
{
	for (size_t i = 0; i < TIERD_KSETTING_COUNT; i++)
		if (ks->s[i].changed)
			return ks->s[i].path;
	return "?";
}

void tierd_kernel_side_stop(struct tierd_daemon *d)
{
	int r;

	tierd_kernel_actuator_free(&d->kernel);
	if (d->kpagecgroup_open)
		tierd_kpagecgroup_close(&d->kpagecgroup);
	d->kpagecgroup_open = false;
	d->kpagecgroup_tried = false;
	tierd_damon_async_stop(&d->damon_async, &d->migrations);
	tierd_damon_backend_stop(&d->damon, &d->log);
	r = d->ksettings_ready ? tierd_ksettings_restore(&d->ksettings, &d->log) : 0;
	if (r < 0)
		tierd_log(&d->log, TIERD_LOG_WARNING, "kernel settings not all restored: %s: %s",
			  first_unrestored(&d->ksettings), strerror(-r));
	tierd_daemon_undo_close(d);
	d->ksettings_ready = false;
	tierd_bpf_backend_stop(&d->bpf);
}
