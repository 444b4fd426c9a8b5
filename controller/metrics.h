/* Prometheus text exposition (format 0.0.4) for node-exporter's textfile
 * collector: formatting is pure (tested on exact output), writing is atomic
 * (temporary file in the same directory, fsync, rename, mode 0644). */
#ifndef TIERD_METRICS_H
#define TIERD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "../report/report.h"

struct tierd_metrics_input {
	const struct tierd_report *report;
	const struct tierd_cgroup_obs *obs; /* report->nr_cgroups entries, same order */
	uint64_t page_size_bytes;           /* memory.stat pg* counts are in pages */
	size_t nr_policies;
	uint64_t tick_duration_usec;
	uint64_t ticks_total;
	uint64_t tick_overruns_total;
	uint64_t policy_load_errors_total;
	uint64_t last_reload_success_realtime_usec; /* 0 = never */
	uint64_t planned_actions_total;             /* actions recorded by the dry-run actuator */
	uint64_t planned_bytes_total;
};

/* Formats into a malloc'd string. Returns 0 or -ENOMEM. */
int tierd_metrics_format(const struct tierd_metrics_input *in, char **ret_text);

/* Writes text to path atomically. Returns 0 or -errno. */
int tierd_write_atomic(const char *path, const char *text, size_t len);

#endif
