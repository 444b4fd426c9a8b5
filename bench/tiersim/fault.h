/* A NUMA-balancing-like hint-fault sampler over one cgroup's address space
 * (kernel/sched/fair.c task_numa_work with NUMA_BALANCING_MEMORY_TIERING):
 * every scan period it makes the next scan-size worth of pages that sit on
 * a non-top tier inaccessible (PROT_NONE), skipping pages already so; the
 * first access to such a page faults, and the fault is reported with how
 * long the page had been inaccessible, the reaccess interval Linux's
 * tiering promotion and Mole's interval histogram (§4.4,
 * the Mole paper) read as hotness. Faults past a per-tick limit
 * are dropped, as a full BPF ring buffer drops them. */
#ifndef TIERSIM_FAULT_H
#define TIERSIM_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../policy/hotness.h"
#include "machine.h"

/* Linux's defaults: numa_balancing_scan_period_min_ms = 1000 and
 * numa_balancing_scan_size_mb = 256 (65536 pages of 4 KiB). */
#define TIERSIM_FAULT_SCAN_PERIOD_USEC 1000000ull
#define TIERSIM_FAULT_SCAN_PAGES 65536ull
/* Samples kept per cgroup per tick: a 1 MiB ring buffer of 16-byte records. */
#define TIERSIM_FAULT_MAX_SAMPLES 65536u

struct tiersim_fault_config {
	uint64_t scan_period_usec;
	uint64_t scan_pages;
	size_t max_samples;
};

struct tiersim_fault {
	struct tiersim_fault_config cfg;
	uint64_t base_addr;
	uint64_t scan_pos;
	uint64_t next_scan_usec;
	size_t nr;
	struct tierd_sample *samples;   /* this tick's, max_samples of room */
	uint64_t total, dropped;
};

void tiersim_fault_config_defaults(struct tiersim_fault_config *cfg);

/* Returns 0, -EINVAL, -ENOMEM. The first scan runs at the first step. */
int tiersim_fault_init(struct tiersim_fault *f, const struct tiersim_fault_config *cfg,
		       uint64_t base_addr);
void tiersim_fault_free(struct tiersim_fault *f);

/* Runs the scans due by now. */
void tiersim_fault_step(struct tiersim_fault *f, struct tiersim_space *s, uint64_t now_usec);

/* An access hit a PROT_NONE page: report it and restore access. */
static inline void tiersim_fault_hit(struct tiersim_fault *f, struct tiersim_space *s,
				     uint64_t page, uint64_t now_usec, bool write)
{
	struct tiersim_page *pg = &s->pages[page];

	pg->flags &= (uint8_t)~TIERSIM_PAGE_PROT;
	f->total++;
	if (f->nr >= f->cfg.max_samples) {
		f->dropped++;
		return;
	}
	f->samples[f->nr++] = (struct tierd_sample){
		.addr = s->base_addr + page * TIERSIM_PAGE_BYTES,
		.tier = pg->tier,
		.time_usec = now_usec,
		.interval_usec = now_usec - pg->prot_usec,
		.write = write,
	};
}

/* Forgets this tick's samples (after the engine has seen them). */
static inline void tiersim_fault_clear(struct tiersim_fault *f)
{
	f->nr = 0;
}

#endif
