/* The table and the CSV files. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void tiersim_table_header(FILE *f)
{
	fprintf(f, "%-20s %-9s %-12s %8s %8s %8s %8s %10s %10s %8s %9s %6s %6s\n", "workload",
		"ratio", "strategy", "mean_ns", "x_causal", "x_oracle", "x_static", "promo_fail",
		"demo_fail", "dst_full", "migrated", "hot0", "wall_s");
}

static void fmt_rate(char *buf, size_t size, uint64_t failed, uint64_t attempts)
{
	if (attempts)
		snprintf(buf, size, "%.1f%%", pct(failed, attempts));
	else
		snprintf(buf, size, "-");
}

void tiersim_table_row(FILE *f, const struct tiersim_result *r)
{
	char pfail[16], dfail[16], mig[16];

	/* The strategy's own failure counts where it keeps them (what Mole
	 * §3.1 measures); dst_full is the simulator's: page moves that found
	 * their destination full when carried out. */
	if (r->has_strategy_failures) {
		fmt_rate(pfail, sizeof(pfail), r->s_promote_failed, r->s_promote_attempts);
		fmt_rate(dfail, sizeof(dfail), r->s_demote_failed, r->s_demote_attempts);
	} else {
		snprintf(pfail, sizeof(pfail), "-");
		snprintf(dfail, sizeof(dfail), "-");
	}
	snprintf(mig, sizeof(mig), "%.1fM", (double)r->migrated_bytes / (1 << 20));
	fprintf(f, "%-20s %-9s %-12s %8.1f %8.3f %8.3f %8.3f %10s %10s %8" PRIu64 " %9s %6.3f %6.1f\n",
		r->workload, r->ratio, r->strategy, r->mean_ns, r->x_causal, r->x_oracle, r->x_static,
		pfail, dfail, r->promote_failed + r->demote_failed, mig, r->hot_frac_mean,
		r->wall_ms / 1e3);
	if (r->invariant_violations)
		fprintf(f, "  !! %" PRIu64 " invariant violations, first: %s\n",
			r->invariant_violations, r->first_violation);
	if (r->budget_violations)
		fprintf(f, "  !! %" PRIu64 " budget periods over the migration budget\n",
			r->budget_violations);
	if (r->strategy_error)
		fprintf(f, "  !! strategy failed to start: %s\n", strerror(-r->strategy_error));
}

void tiersim_run_label(const struct tiersim_result *r, bool with_strategy, char *buf, size_t size)
{
	char ratio[sizeof(r->ratio)];

	snprintf(ratio, sizeof(ratio), "%s", r->ratio);
	for (char *p = ratio; *p; p++)
		if (*p == ':')
			*p = '-';
	if (with_strategy)
		snprintf(buf, size, "%s-%s-%s", r->workload, ratio, r->strategy);
	else
		snprintf(buf, size, "%s-%s", r->workload, ratio);
}

static int close_checked(FILE *f)
{
	int r = ferror(f) ? -EIO : 0;

	if (fclose(f) != 0 && !r)
		r = -errno;
	return r;
}

int tiersim_csv_summary(const char *path, const struct tiersim_result *results, size_t n)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "workload,ratio,strategy,seed,scale,footprint_pages,tier0_pages,accesses,"
		   "mean_ns,oracle_ns,static_ns,x_oracle,x_static,causal_ns,x_causal,"
		   "promote_attempt_pages,promote_failed_pages,promote_fail_rate,"
		   "demote_attempt_pages,demote_failed_pages,demote_fail_rate,"
		   "strategy_promote_attempt_pages,strategy_promote_failed_pages,"
		   "strategy_promote_fail_rate,strategy_demote_attempt_pages,"
		   "strategy_demote_failed_pages,strategy_demote_fail_rate,"
		   "migrated_bytes,planned_bytes,clipped_bytes,migration_ms,mean_ns_mig,"
		   "hot_frac_mean,hot_frac_last,fault_samples,fault_dropped,"
		   "damon_checks,damon_skipped_checks,damon_skipped_regions,alloc_failed_pages,"
		   "budget_bytes,max_period_bytes,invariant_violations,budget_violations,"
		   "strategy_error,strategy_stats,wall_ms\n");
	for (size_t i = 0; i < n; i++) {
		const struct tiersim_result *r = &results[i];

		fprintf(f, "%s,%s,%s,%" PRIu64 ",%g,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			   ",%.3f,%.3f,%.3f,%.4f,%.4f,%.3f,%.4f",
			r->workload, r->ratio, r->strategy, r->seed, r->scale, r->footprint_pages,
			r->capacity_pages[0], r->accesses, r->mean_ns, r->oracle_ns, r->static_ns,
			r->x_oracle, r->x_static, r->causal_ns, r->x_causal);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%.4f",
			r->promote_attempts, r->promote_failed,
			r->promote_attempts ? (double)r->promote_failed / (double)r->promote_attempts : 0.0,
			r->demote_attempts, r->demote_failed,
			r->demote_attempts ? (double)r->demote_failed / (double)r->demote_attempts : 0.0);
		if (r->has_strategy_failures)
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%.4f",
				r->s_promote_attempts, r->s_promote_failed,
				r->s_promote_attempts ? (double)r->s_promote_failed /
								(double)r->s_promote_attempts : 0.0,
				r->s_demote_attempts, r->s_demote_failed,
				r->s_demote_attempts ? (double)r->s_demote_failed /
							       (double)r->s_demote_attempts : 0.0);
		else
			fprintf(f, ",,,,,,");
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.4f,%.4f",
			r->migrated_bytes, r->planned_bytes, r->clipped_bytes, r->migration_ms,
			r->mean_ns_mig, r->hot_frac_mean, r->hot_frac_last);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			r->fault_samples, r->fault_dropped, r->damon_checks,
			r->damon_skipped_checks, r->damon_skipped_regions);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,",
			r->alloc_failed_pages, r->budget_bytes, r->max_period_bytes,
			r->invariant_violations, r->budget_violations, r->strategy_error);
		for (size_t k = 0; k < r->nr_strategy_stats; k++)
			fprintf(f, "%s%s=%" PRIu64, k ? ";" : "", r->strategy_stats[k].name,
				r->strategy_stats[k].value);
		fprintf(f, ",%.1f\n", r->wall_ms);
	}
	return close_checked(f);
}

int tiersim_csv_series(const char *path, const struct tiersim_result *r)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "time_s,accesses,mean_ns,oracle_ns,hot_frac,promoted_pages,demoted_pages,"
		   "promote_failed_pages,demote_failed_pages,fault_samples,regions,actions,"
		   "damon_checks,damon_skipped_checks,region_reads,region_writes");
	for (size_t t = 0; t < r->nr_tiers; t++)
		fprintf(f, ",used_pages_t%zu", t);
	fputc('\n', f);
	for (size_t k = 0; k < r->nr_ticks; k++) {
		const struct tiersim_tick *tk = &r->ticks[k];
		double mean = tk->accesses ? (double)tk->latency_ns / (double)tk->accesses : 0;
		double omean = tk->accesses ? (double)tk->oracle_ns / (double)tk->accesses : 0;
		double hot = tk->hot_accesses ? (double)tk->tier0_accesses / (double)tk->hot_accesses : 0;

		fprintf(f, "%.3f,%" PRIu64 ",%.3f,%.3f,%.4f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			   ",%" PRIu64 ",%" PRIu64 ",%zu,%zu",
			(double)tk->time_usec / 1e6, tk->accesses, mean, omean, hot, tk->promoted_pages,
			tk->demoted_pages, tk->promote_failed_pages, tk->demote_failed_pages,
			tk->fault_samples, tk->nr_regions, tk->nr_actions);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, tk->damon_checks,
			tk->damon_skipped_checks, tk->region_reads, tk->region_writes);
		for (size_t t = 0; t < r->nr_tiers; t++)
			fprintf(f, ",%" PRIu64, tk->used_pages[t]);
		fputc('\n', f);
	}
	return close_checked(f);
}
