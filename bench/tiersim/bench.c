/* The benchmark matrix. A group is one workload at one capacity ratio: its
 * oracle, then every strategy. Groups run in parallel in child processes
 * (cfg->jobs at once); each writes its own series CSVs and plots, and sends
 * its summary rows back through a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "oracle.h"
#include "output.h"
#include "plot.h"

struct group {
	struct tiersim_run_config cfg;
	struct tiersim_result *rows;      /* group_rows(): the strategies', the oracles' */
	int status;
	bool done;
	pid_t pid;
	int fd;
	size_t got;                       /* bytes read from the child */
};

/* Rows per group: one per strategy, then the oracle's and the causal
 * oracle's. */
static size_t group_rows(const struct tiersim_bench_config *bc)
{
	return bc->nr_strategies + 2;
}

static void group_config(const struct tiersim_bench_config *bc, size_t g,
			 struct tiersim_run_config *cfg)
{
	const struct tiersim_bench_item *item = &bc->items[g / bc->nr_ratios];
	const struct tiersim_bench_ratio *ratio = &bc->ratios[g % bc->nr_ratios];

	*cfg = bc->base;
	cfg->workload.kind = item->kind;
	cfg->sharing = item->sharing;
	cfg->nr_tiers = ratio->nr_tiers;
	memcpy(cfg->ratio, ratio->ratio, sizeof(cfg->ratio));
}

/* The oracle as a row of its own: x_oracle 1 by definition. */
static void oracle_row(const struct tiersim_result *like, const struct tiersim_oracle *o,
		       struct tiersim_result *row)
{
	memset(row, 0, sizeof(*row));
	memcpy(row->workload, like->workload, sizeof(row->workload));
	memcpy(row->ratio, like->ratio, sizeof(row->ratio));
	snprintf(row->strategy, sizeof(row->strategy), "oracle");
	row->seed = like->seed;
	row->scale = like->scale;
	row->nr_tiers = like->nr_tiers;
	row->footprint_pages = like->footprint_pages;
	memcpy(row->capacity_pages, like->capacity_pages, sizeof(row->capacity_pages));
	row->accesses = o->accesses;
	row->latency_ns = o->total_ns;
	row->mean_ns = row->mean_ns_mig = row->oracle_ns = o->mean_ns;
	row->static_ns = o->static_mean_ns;
	row->x_oracle = 1.0;
	row->x_static = o->static_mean_ns > 0 ? o->mean_ns / o->static_mean_ns : 0;
	row->causal_ns = o->causal_mean_ns;
	row->x_causal = o->causal_mean_ns > 0 ? o->mean_ns / o->causal_mean_ns : 0;
	row->hot_frac_mean = row->hot_frac_last = 1.0;
}

/* The causal oracle as a row of its own: x_causal 1 by definition. */
static void causal_row(const struct tiersim_result *oracle, const struct tiersim_oracle *o,
		       struct tiersim_result *row)
{
	*row = *oracle;
	snprintf(row->strategy, sizeof(row->strategy), "causal");
	row->latency_ns = o->causal_ns;
	row->mean_ns = row->mean_ns_mig = o->causal_mean_ns;
	row->x_causal = 1.0;
	row->x_oracle = o->mean_ns > 0 ? o->causal_mean_ns / o->mean_ns : 0;
	row->x_static = o->static_mean_ns > 0 ? o->causal_mean_ns / o->static_mean_ns : 0;
	row->hot_frac_mean = row->hot_frac_last = 0;
}

static int run_group(const struct tiersim_bench_config *bc, struct group *gr, FILE *log,
		     bool gnuplot)
{
	struct tiersim_oracle oracle;
	const char *names[TIERD_STRATEGY_NR];
	char err[512], label[128], path[4400];
	int r;

	r = tiersim_oracle_compute(&gr->cfg, &oracle, err, sizeof(err));
	if (r < 0) {
		fprintf(log, "tiersim: oracle: %s\n", err);
		return r;
	}
	for (size_t i = 0; i < bc->nr_strategies; i++) {
		struct tiersim_run_config cfg = gr->cfg;
		struct tiersim_result *row = &gr->rows[i];

		cfg.strategy = bc->strategies[i];
		names[i] = tierd_strategy_name(cfg.strategy);
		r = tiersim_run(&cfg, &oracle, row, err, sizeof(err));
		if (r < 0) {
			fprintf(log, "tiersim: %s/%s: %s\n", tiersim_workload_name(cfg.workload.kind),
				names[i], err);
			goto out;
		}
		if (bc->out_dir) {
			tiersim_run_label(row, true, label, sizeof(label));
			snprintf(path, sizeof(path), "%s/series-%s.csv", bc->out_dir, label);
			r = tiersim_csv_series(path, row);
			if (r < 0) {
				fprintf(log, "tiersim: %s: %s\n", path, strerror(-r));
				goto out;
			}
		}
		tiersim_result_free(row);
	}
	if (bc->nr_strategies) {
		oracle_row(&gr->rows[0], &oracle, &gr->rows[bc->nr_strategies]);
		causal_row(&gr->rows[bc->nr_strategies], &oracle, &gr->rows[bc->nr_strategies + 1]);
	}
	if (bc->out_dir && bc->nr_strategies) {
		tiersim_run_label(&gr->rows[0], false, label, sizeof(label));
		r = tiersim_plot(bc->out_dir, label, names, bc->nr_strategies, gnuplot);
		if (r < 0) {
			fprintf(log, "tiersim: plot %s: %s\n", label, strerror(-r));
			r = 0; /* the CSVs stand without the pictures */
		}
	}
	r = 0;
out:
	tiersim_oracle_free(&oracle);
	return r;
}

static void print_group(const struct tiersim_bench_config *bc, const struct group *gr, FILE *out)
{
	if (bc->quiet || gr->status < 0)
		return;
	for (size_t i = 0; i < group_rows(bc); i++)
		tiersim_table_row(out, &gr->rows[i]);
	fflush(out);
}

static int start_child(const struct tiersim_bench_config *bc, struct group *gr, FILE *log,
		       bool gnuplot)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	gr->pid = fork();
	if (gr->pid < 0) {
		int r = -errno;

		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (gr->pid == 0) {
		size_t size = group_rows(bc) * sizeof(*gr->rows);
		const char *p = (const char *)gr->rows;
		int status;

		close(fds[0]);
		status = run_group(bc, gr, log, gnuplot);
		fflush(NULL);
		/* The rows, then the status; a short write means the parent
		 * sees a truncated answer and counts the group failed. */
		while (size) {
			ssize_t n = write(fds[1], p, size);

			if (n <= 0)
				_exit(1);
			p += n;
			size -= (size_t)n;
		}
		if (write(fds[1], &status, sizeof(status)) != sizeof(status))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	gr->fd = fds[0];
	gr->got = 0;
	return 0;
}

/* Reads a child's answer to the end and reaps it. */
static void finish_child(const struct tiersim_bench_config *bc, struct group *gr)
{
	size_t size = group_rows(bc) * sizeof(*gr->rows);
	int status = -EIO, wstatus;
	ssize_t n;

	while (gr->got < size && (n = read(gr->fd, (char *)gr->rows + gr->got, size - gr->got)) > 0)
		gr->got += (size_t)n;
	if (gr->got == size && read(gr->fd, &status, sizeof(status)) != sizeof(status))
		status = -EIO;
	close(gr->fd);
	if (waitpid(gr->pid, &wstatus, 0) < 0 || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus))
		status = status < 0 ? status : -EIO;
	gr->status = status;
	gr->done = true;
	for (size_t i = 0; i < group_rows(bc); i++) {
		gr->rows[i].ticks = NULL; /* the child's pointers mean nothing here */
		gr->rows[i].nr_ticks = 0;
	}
}

int tiersim_bench(const struct tiersim_bench_config *bc, FILE *out, FILE *log)
{
	size_t nr_groups = bc->nr_items * bc->nr_ratios, next_print = 0, running = 0, started = 0;
	size_t nr_rows = group_rows(bc);
	struct group *groups;
	struct tiersim_result *all = NULL;
	bool gnuplot = bc->out_dir && tiersim_gnuplot_available();
	int r = 0;

	if (bc->out_dir && mkdir(bc->out_dir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		fprintf(log, "tiersim: %s: %s\n", bc->out_dir, strerror(errno));
		return r;
	}
	if (bc->out_dir && !gnuplot && !bc->quiet)
		fprintf(log, "tiersim: gnuplot not found on PATH: writing the CSVs and the gnuplot "
			     "scripts (plot-*.gp) but no PNG plots; install gnuplot-nox "
			     "(apt-get install gnuplot-nox) and rerun, or run the scripts later\n");
	groups = calloc(nr_groups ? nr_groups : 1, sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	for (size_t g = 0; g < nr_groups; g++) {
		group_config(bc, g, &groups[g].cfg);
		groups[g].rows = calloc(nr_rows, sizeof(*groups[g].rows));
		if (!groups[g].rows) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (!bc->quiet)
		tiersim_table_header(out);
	while (next_print < nr_groups) {
		/* Start what the job limit allows. */
		while (started < nr_groups && running < (bc->jobs ? bc->jobs : 1)) {
			struct group *gr = &groups[started++];

			if (bc->jobs <= 1) {
				gr->status = run_group(bc, gr, log, gnuplot);
				gr->done = true;
				break;
			}
			r = start_child(bc, gr, log, gnuplot);
			if (r < 0) {
				fprintf(log, "tiersim: fork: %s\n", strerror(-r));
				goto out;
			}
			running++;
		}
		/* Collect the oldest running group: the table stays in order. */
		if (bc->jobs > 1 && !groups[next_print].done) {
			finish_child(bc, &groups[next_print]);
			running--;
		}
		while (next_print < nr_groups && groups[next_print].done)
			print_group(bc, &groups[next_print++], out);
	}
	all = calloc(nr_groups * nr_rows + 1, sizeof(*all));
	if (!all) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t g = 0; g < nr_groups; g++) {
		if (groups[g].status < 0) {
			if (!r)
				r = groups[g].status;
			continue;
		}
		for (size_t i = 0; i < nr_rows; i++) {
			all[g * nr_rows + i] = groups[g].rows[i];
			if (groups[g].rows[i].invariant_violations && !r)
				r = -EUCLEAN;
		}
	}
	if (bc->out_dir) {
		char path[4400];
		int q;

		snprintf(path, sizeof(path), "%s/summary.csv", bc->out_dir);
		q = tiersim_csv_summary(path, all, nr_groups * nr_rows);
		if (q < 0) {
			fprintf(log, "tiersim: %s: %s\n", path, strerror(-q));
			if (!r)
				r = q;
		} else if (!bc->quiet) {
			fprintf(out, "\nwrote %s, series-*.csv%s in %s\n", path,
				gnuplot ? ", latency-*.png, hotfrac-*.png" : " (no PNGs: gnuplot missing)",
				bc->out_dir);
		}
	}
out:
	/* Children still running after an error: reap them. */
	for (size_t g = 0; g < started && g < nr_groups; g++)
		if (bc->jobs > 1 && !groups[g].done && groups[g].pid > 0)
			finish_child(bc, &groups[g]);
	for (size_t g = 0; g < nr_groups; g++)
		free(groups[g].rows);
	free(groups);
	free(all);
	return r;
}
