/* The hint-fault sampler's scanner. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

void tiersim_fault_config_defaults(struct tiersim_fault_config *cfg)
{
	cfg->scan_period_usec = TIERSIM_FAULT_SCAN_PERIOD_USEC;
	cfg->scan_pages = TIERSIM_FAULT_SCAN_PAGES;
	cfg->max_samples = TIERSIM_FAULT_MAX_SAMPLES;
}

int tiersim_fault_init(struct tiersim_fault *f, const struct tiersim_fault_config *cfg,
		       uint64_t base_addr)
{
	memset(f, 0, sizeof(*f));
	if (!cfg->scan_period_usec || !cfg->scan_pages || !cfg->max_samples)
		return -EINVAL;
	f->cfg = *cfg;
	f->base_addr = base_addr;
	f->samples = calloc(cfg->max_samples, sizeof(*f->samples));
	return f->samples ? 0 : -ENOMEM;
}

void tiersim_fault_free(struct tiersim_fault *f)
{
	free(f->samples);
	f->samples = NULL;
}

void tiersim_fault_step(struct tiersim_fault *f, struct tiersim_space *s, uint64_t now_usec)
{
	while (f->next_scan_usec <= now_usec) {
		uint64_t n = f->cfg.scan_pages < s->nr_pages ? f->cfg.scan_pages : s->nr_pages;

		for (uint64_t i = 0; i < n; i++) {
			struct tiersim_page *pg = &s->pages[f->scan_pos];

			/* Tiering mode leaves the top tier alone: only pages
			 * that could be promoted are worth a fault. */
			if (pg->tier > 0 && !(pg->flags & TIERSIM_PAGE_PROT)) {
				pg->flags |= TIERSIM_PAGE_PROT;
				pg->prot_usec = now_usec;
			}
			if (++f->scan_pos == s->nr_pages)
				f->scan_pos = 0;
		}
		f->next_scan_usec += f->cfg.scan_period_usec;
	}
}
