/* tierctl: look at what tierd sees and check policies. See tierctl(8). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "daemon.h"
#include "fsread.h"
#include "table.h"
#include "topology_read.h"
#include "version.h"
#include "../config/policy_json.h"
#include "../policy/units.h"

/* Exit codes: 0 fine, 1 the answer is "no" (invalid policy), 2 usage or
 * system errors. */
#define EXIT_INVALID 1
#define EXIT_USAGE 2
/* Room for any tierd_format_bytes text ("1023.9E" at most), as table.c. */
#define BYTES_COL 16

static const char help_text[] =
	"Usage: tierctl [OPTIONS] COMMAND\n\n"
	"Commands:\n"
	"  status              per-cgroup, per-tier memory against budgets (daemon state file)\n"
	"  topology            nodes and memory tiers of this machine\n"
	"  validate FILE...    check policy files (and tierd.json); exit 1 on any error\n"
	"  reload              have tierd reload and wait for its verdict; exit 1 if refused\n"
	"  cleanup             put back what a stopped tierd left changed (ExecStopPost=)\n\n"
	"Options:\n"
	"  --json              JSON instead of a table\n"
	"  --live              status: read the system now instead of the state file\n"
	"  --machine           validate: also check against this machine's tiers (--root)\n"
	"  --state-file FILE   daemon state file (default " TIERD_DEFAULT_STATE_FILE ")\n"
	"  --config FILE       tierd.json for --live and topology\n"
	"  --policy-dir DIR    policies for --live\n"
	"  --root DIR          read /sys and /proc below DIR\n"
	"  --runtime-dir DIR   tierd's runtime directory (default /run/tierd under --root)\n"
	"  --pid PID           reload: tierd's pid (default: from the runtime directory)\n"
	"  -h, --help          this text\n"
	"  --version           version\n\n"
	"See tierctl(8).\n";

struct ctl {
	bool json, live, machine;
	const char *state_file;
	const char *runtime_dir;
	int pid;
	struct tierd_options daemon;
};

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void print_backend(FILE *f, const struct tierd_backend_state *b)
{
	const char *mode = tierd_damon_mode_name(b->damon);

	if (b->damon == TIERD_DAMON_RUNNING)
		fprintf(f, "\nDAMON: running, %zu kdamond%s (%llu restart%s)\n", b->nr_kdamonds,
			plural(b->nr_kdamonds), (unsigned long long)b->kdamond_restarts,
			plural(b->kdamond_restarts));
	else if (b->damon_why[0])
		fprintf(f, "\nDAMON: %s: %s\n", mode ? mode : "?", b->damon_why);
	else
		fprintf(f, "\nDAMON: %s\n", mode ? mode : "?");
	/* A state file of a release before these were measured has none. */
	if (b->sense_wait_max_usec || b->act_wait_max_usec)
		fprintf(f, "the tick waited on the kernel: %.1f ms sensing, %.1f ms acting (longest %.1f and %.1f ms)\n",
			(double)b->sense_wait_usec / TIERD_USEC_PER_MSEC,
			(double)b->act_wait_usec / TIERD_USEC_PER_MSEC,
			(double)b->sense_wait_max_usec / TIERD_USEC_PER_MSEC,
			(double)b->act_wait_max_usec / TIERD_USEC_PER_MSEC);
	if (b->late_readings || b->skipped_commits)
		fprintf(f, "DAMON's worker: %llu late reading%s, %llu plan%s not committed\n",
			(unsigned long long)b->late_readings, plural(b->late_readings),
			(unsigned long long)b->skipped_commits, plural(b->skipped_commits));
}

static void print_reclaim(FILE *f, const struct tierd_reclaim_stats *r)
{
	if (!r->jobs && !r->busy_ticks)
		return;
	fprintf(f, "memory.reclaim jobs: %llu (last %.1f ms, longest %.1f ms), %llu stopped at their deadline, %llu tick%s waited for one\n",
		(unsigned long long)r->jobs, (double)r->last_usec / TIERD_USEC_PER_MSEC,
		(double)r->max_usec / TIERD_USEC_PER_MSEC, (unsigned long long)r->deadline_hits,
		(unsigned long long)r->busy_ticks, plural(r->busy_ticks));
}

/* The sampler's line, then, when it runs, each sampled cgroup's counters
 * per tier, laid out as tierd_report_print's cgroup table. */
static void print_bpf(FILE *f, const struct tierd_report *rep)
{
	const struct tierd_bpf_state *b = &rep->bpf;
	const char *mode = tierd_bpf_mode_name(b->mode);

	if (b->mode != TIERD_BPF_RUNNING) {
		if (b->why[0])
			fprintf(f, "BPF: %s: %s\n", mode ? mode : "?", b->why);
		else
			fprintf(f, "BPF: %s\n", mode ? mode : "?");
		return;
	}
	fprintf(f, "BPF: running (hooks: %s), %llu sample%s read, %llu lost\n", b->hooks,
		(unsigned long long)b->samples_read, plural(b->samples_read),
		(unsigned long long)b->samples_lost);
	fprintf(f, "\nHINT FAULTS (BPF sampler, since each cgroup was first managed)\n"
		   "%-34s %4s %10s %10s %10s\n",
		"CGROUP", "TIER", "FAULTS", "SAMPLES", "DROPS");
	for (size_t c = 0; c < rep->nr_cgroups; c++) {
		const struct tierd_report_cgroup *cg = &rep->cgroups[c];

		if (!cg->bpf_sampled)
			continue;
		for (size_t t = 0; t < rep->topo.nr_tiers; t++)
			fprintf(f, "%-34s %4zu %10llu %10llu %10llu\n", t == 0 ? cg->path : "", t,
				(unsigned long long)cg->bpf.faults[t],
				(unsigned long long)cg->bpf.samples[t],
				(unsigned long long)cg->bpf.drops[t]);
	}
}

/* Pages of sampled cgroups moved with move_pages(2), by the tier they were
 * sent to. */
static void print_promotions(FILE *f, const struct tierd_report *rep)
{
	const struct tierd_promotion_counts *p = &rep->bpf.promotions;

	fprintf(f, "\nSAMPLED PROMOTIONS (pages, since tierd started)\n%-7s %10s %10s %10s\n",
		"TO TIER", "TRIED", "SUCCEEDED", "FAILED");
	for (size_t t = 0; t < rep->topo.nr_tiers; t++)
		fprintf(f, "%-7zu %10llu %10llu %10llu\n", t, (unsigned long long)p->tried[t],
			(unsigned long long)p->succeeded[t], (unsigned long long)p->failed[t]);
	fprintf(f, "move_pages batches: %llu (last %.1f ms, longest %.1f ms), %llu stopped at their deadline, %llu tick%s waited for one\n",
		(unsigned long long)rep->bpf.promote_batches,
		(double)rep->bpf.promote_last_usec / TIERD_USEC_PER_MSEC,
		(double)rep->bpf.promote_max_usec / TIERD_USEC_PER_MSEC,
		(unsigned long long)rep->bpf.promote_deadline_hits,
		(unsigned long long)rep->bpf.promote_busy_ticks, plural(rep->bpf.promote_busy_ticks));
}

/* Per path, then tier to tier: rows the tier moved from, columns the tier
 * moved to. */
static void print_migrations(FILE *f, const struct tierd_report *rep)
{
	const struct tierd_migration_stats *s = &rep->migrations;
	char tried[BYTES_COL], done[BYTES_COL], failed[BYTES_COL], cell[BYTES_COL];

	fprintf(f, "\nMIGRATIONS (since tierd started)\n%-18s %10s %10s %10s %10s\n", "PATH",
		"REQUESTS", "TRIED", "SUCCEEDED", "FAILED");
	for (int p = 0; p < TIERD_PATH_NR; p++) {
		const struct tierd_path_stats *ps = &s->path[p];

		tierd_format_bytes(ps->tried_bytes, tried, sizeof(tried));
		tierd_format_bytes(ps->succeeded_bytes, done, sizeof(done));
		tierd_format_bytes(ps->failed_bytes, failed, sizeof(failed));
		fprintf(f, "%-18s %10llu %10s %10s %10s\n",
			tierd_migration_path_name((enum tierd_migration_path)p),
			(unsigned long long)ps->calls, tried, done, failed);
	}
	fprintf(f, "\nMOVED BETWEEN TIERS (row: from, column: to)\n%-4s", "FROM");
	for (size_t to = 0; to < rep->topo.nr_tiers; to++)
		fprintf(f, " %10zu", to);
	fputc('\n', f);
	for (size_t from = 0; from < rep->topo.nr_tiers; from++) {
		fprintf(f, "%-4zu", from);
		for (size_t to = 0; to < rep->topo.nr_tiers; to++) {
			if (from == to)
				snprintf(cell, sizeof(cell), "-");
			else
				tierd_format_bytes(s->matrix[from][to], cell, sizeof(cell));
			fprintf(f, " %10s", cell);
		}
		fputc('\n', f);
	}
}

static int print_report(const struct ctl *c, const struct tierd_report *rep)
{
	char *text = NULL;
	int r;

	if (!c->json) {
		tierd_report_print(stdout, rep);
		print_backend(stdout, &rep->backend);
		print_reclaim(stdout, &rep->reclaim);
		print_bpf(stdout, rep);
		print_migrations(stdout, rep);
		if (rep->bpf.mode == TIERD_BPF_RUNNING)
			print_promotions(stdout, rep);
		return 0;
	}
	r = tierd_report_to_json(rep, true, &text);
	if (r < 0)
		return r;
	puts(text);
	free(text);
	return 0;
}

static int cmd_status(const struct ctl *c)
{
	struct tierd_report rep;
	struct tierd_buf b = { 0 };
	char err[TIERD_ERR_MAX] = "";
	int r;

	if (c->live) {
		struct tierd_daemon d;

		r = tierd_daemon_init(&d, &c->daemon);
		if (r == 0)
			r = tierd_daemon_tick(&d);
		if (r == 0)
			r = print_report(c, &d.last_report);
		tierd_daemon_free(&d);
		return r < 0 ? EXIT_USAGE : 0;
	}
	r = tierd_read_at(AT_FDCWD, c->state_file, &b);
	if (r < 0) {
		fprintf(stderr, "tierctl: %s: %s (is tierd running? --live reads the system directly)\n",
			c->state_file, strerror(-r));
		return EXIT_USAGE;
	}
	r = tierd_report_from_json(b.data, b.len, &rep, err, sizeof(err));
	tierd_buf_free(&b);
	if (r < 0) {
		fprintf(stderr, "tierctl: %s: %s\n", c->state_file,
			r == -EINVAL ? err : strerror(-r));
		return EXIT_USAGE;
	}
	r = print_report(c, &rep);
	tierd_report_free(&rep);
	return r < 0 ? EXIT_USAGE : 0;
}

static int cmd_topology(const struct ctl *c)
{
	struct tierd_diags diags = { 0 };
	struct tierd_topology topo;
	struct tierd_config cfg;
	struct tierd_log_keep keep;
	char *text = NULL;
	int r;

	r = tierd_config_load(c->daemon.config_file, !c->daemon.config_explicit, &cfg, &diags);
	for (size_t i = 0; i < diags.nr; i++)
		fprintf(stderr, "%s\n", diags.items[i].message);
	tierd_diags_free(&diags);
	if (r < 0)
		return EXIT_USAGE;
	r = tierd_topology_read(c->daemon.root, &cfg, &topo, tierd_log_keep(&keep, NULL));
	if (r < 0) {
		fprintf(stderr, "tierctl: cannot read the memory topology: %s\n",
			tierd_log_kept(&keep, r));
		return EXIT_USAGE;
	}
	if (!c->json) {
		tierd_topology_print(stdout, &topo);
		if (topo.nr_tiers == 1)
			printf("note: every node sits in one tier: nothing can move between tiers\n");
		return 0;
	}
	r = tierd_topology_to_json(&topo, true, &text);
	if (r < 0)
		return EXIT_USAGE;
	puts(text);
	free(text);
	return 0;
}

static bool is_config_file(const char *path)
{
	const char *base = strrchr(path, '/');

	return strcmp(base ? base + 1 : path, "tierd.json") == 0;
}

static int cmd_validate(const struct ctl *c, char **files, int nr)
{
	struct tierd_diags diags = { 0 };
	struct tierd_policy_set set = { 0 };
	struct tierd_topology topo;
	const char **policies = calloc((size_t)nr + 1, sizeof(*policies));
	size_t nr_policies = 0;
	char *text = NULL;
	int r = 0, rc;

	if (!policies)
		return EXIT_USAGE;
	for (int i = 0; i < nr; i++) {
		struct tierd_config cfg;

		if (is_config_file(files[i]))
			(void)tierd_config_load(files[i], 0, &cfg, &diags);
		else
			policies[nr_policies++] = files[i];
	}
	if (c->machine) {
		struct tierd_config cfg;
		struct tierd_log_keep keep;

		/* The machine as tierd sees it: with tierd.json's tier override. */
		if (tierd_config_load(c->daemon.config_file, !c->daemon.config_explicit, &cfg,
				      &diags) < 0) {
			for (size_t i = 0; i < diags.nr; i++)
				fprintf(stderr, "%s\n", diags.items[i].message);
			free(policies);
			tierd_diags_free(&diags);
			return EXIT_USAGE;
		}
		r = tierd_topology_read(c->daemon.root, &cfg, &topo, tierd_log_keep(&keep, NULL));
		if (r < 0) {
			fprintf(stderr, "tierctl: cannot read the memory topology: %s\n",
				tierd_log_kept(&keep, r));
			free(policies);
			tierd_diags_free(&diags);
			return EXIT_USAGE;
		}
	}
	r = tierd_policy_load_files(policies, nr_policies, c->machine ? &topo : NULL, &set, &diags);
	tierd_policy_set_free(&set);
	free(policies);
	if (r == -ENOMEM) {
		tierd_diags_free(&diags);
		return EXIT_USAGE;
	}
	rc = diags.nr ? EXIT_INVALID : 0;
	if (c->json) {
		if (tierd_diags_to_json(&diags, &text) < 0)
			rc = EXIT_USAGE;
		else
			puts(text);
		free(text);
	} else {
		for (size_t i = 0; i < diags.nr; i++)
			fprintf(stderr, "%s\n", diags.items[i].message);
		if (!diags.nr)
			printf("%d file%s valid\n", nr, nr == 1 ? "" : "s");
		else
			fprintf(stderr, "%zu error%s\n", diags.nr, diags.nr == 1 ? "" : "s");
	}
	tierd_diags_free(&diags);
	return rc;
}

enum {
	OPT_JSON = 256,
	OPT_LIVE,
	OPT_MACHINE,
	OPT_STATE,
	OPT_CONFIG,
	OPT_POLICY_DIR,
	OPT_ROOT,
	OPT_RUNTIME_DIR,
	OPT_PID,
	OPT_VERSION,
};

/* --runtime-dir, else /run/tierd under --root. */
static int runtime_dir(const struct ctl *c, char *buf, size_t size)
{
	if (c->runtime_dir) {
		snprintf(buf, size, "%s", c->runtime_dir);
		return 0;
	}
	if (tierd_root_path(c->daemon.root, TIERD_DEFAULT_RUNTIME_DIR, buf, size) < 0) {
		fprintf(stderr, "tierctl: %s%s: path too long\n", c->daemon.root,
			TIERD_DEFAULT_RUNTIME_DIR);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int cmd_cleanup(const struct ctl *c)
{
	char dir[TIERD_FILE_PATH_MAX];
	struct tierd_logger log;
	int r;

	if (runtime_dir(c, dir, sizeof(dir)) < 0)
		return EXIT_USAGE;
	/* Under systemd (ExecStopPost=) the steps go to the journal as
	 * events; by hand, to stderr. */
	tierd_log_setup(&log, TIERD_LOG_TARGET_AUTO, TIERD_LOG_INFO);
	r = tierd_cleanup(c->daemon.root, dir, &log);
	return r == 0 ? 0 : r == -EBUSY ? EXIT_USAGE : EXIT_INVALID;
}

static int cmd_reload(const struct ctl *c)
{
	struct tierd_reload_verdict before, v;
	char dir[TIERD_FILE_PATH_MAX];
	struct tierd_log_keep keep;
	int pid, r;

	if (runtime_dir(c, dir, sizeof(dir)) < 0)
		return EXIT_USAGE;
	r = tierd_reload_verdict_read(dir, &before, tierd_log_keep(&keep, NULL));
	if (r < 0) {
		fprintf(stderr, "tierctl: cannot reload: %s%s\n", tierd_log_kept(&keep, r),
			r == -ENOENT ? " (is tierd running?)" : "");
		return EXIT_USAGE;
	}
	pid = c->pid ? c->pid : before.pid;
	if (kill(pid, SIGHUP) < 0) {
		fprintf(stderr, "tierctl: cannot signal tierd (pid %d): %s\n", pid, strerror(errno));
		return EXIT_USAGE;
	}
	for (long waited = 0; waited < TIERD_RELOAD_WAIT_SEC * 1000000L;
	     waited += TIERD_RELOAD_POLL_USEC) {
		usleep(TIERD_RELOAD_POLL_USEC);
		/* A half-written file cannot be seen (written atomically);
		 * a read error is tried again. */
		if (tierd_reload_verdict_read(dir, &v, NULL) < 0 ||
		    (v.pid == before.pid && v.generation == before.generation))
			continue;
		if (v.ok) {
			printf("%s\n", v.message);
			return 0;
		}
		fprintf(stderr, "tierctl: reload refused, the configuration before stays in force: %s\n",
			v.message);
		return EXIT_INVALID;
	}
	fprintf(stderr, "tierctl: no verdict from tierd (pid %d) within %d s in %s/%s\n", pid,
		TIERD_RELOAD_WAIT_SEC, dir, TIERD_RELOAD_FILE);
	return EXIT_USAGE;
}

/* parse_options: the options were read, go on to the command. */
#define OPTIONS_READ (-1)

/* --pid N into *pid; 0, or -EINVAL told on stderr. */
static int parse_pid(const char *arg, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX) {
		fprintf(stderr, "tierctl: --pid: expected a process id, got \"%s\"\n", arg);
		return -EINVAL;
	}
	*pid = (int)v;
	return 0;
}

/* Reads the options into c: OPTIONS_READ, or the exit status when they
 * end the run (--help, --version, a bad option). */
static int parse_options(int argc, char **argv, struct ctl *c)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "machine", no_argument, NULL, OPT_MACHINE },
		{ "state-file", required_argument, NULL, OPT_STATE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "policy-dir", required_argument, NULL, OPT_POLICY_DIR },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "runtime-dir", required_argument, NULL, OPT_RUNTIME_DIR },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON:
			c->json = true;
			break;
		case OPT_LIVE:
			c->live = true;
			break;
		case OPT_MACHINE:
			c->machine = true;
			break;
		case OPT_STATE:
			c->state_file = optarg;
			break;
		case OPT_CONFIG:
			c->daemon.config_file = optarg;
			c->daemon.config_explicit = true;
			break;
		case OPT_POLICY_DIR:
			c->daemon.policy_dir = optarg;
			break;
		case OPT_ROOT:
			c->daemon.root = optarg;
			break;
		case OPT_RUNTIME_DIR:
			c->runtime_dir = optarg;
			break;
		case OPT_PID:
			if (parse_pid(optarg, &c->pid) < 0)
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(help_text, stdout);
			return 0;
		case OPT_VERSION:
			printf("tierctl %s\n", TIERD_VERSION);
			return 0;
		default:
			return EXIT_USAGE;
		}
	}
	return OPTIONS_READ;
}

/* Runs the command that follows the options. */
static int run_command(struct ctl *c, int argc, char **argv)
{
	const char *cmd;

	if (optind >= argc) {
		fputs(help_text, stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (strcmp(cmd, "status") == 0 && optind == argc)
		return cmd_status(c);
	if (strcmp(cmd, "topology") == 0 && optind == argc)
		return cmd_topology(c);
	if (strcmp(cmd, "reload") == 0 && optind == argc)
		return cmd_reload(c);
	if (strcmp(cmd, "cleanup") == 0 && optind == argc)
		return cmd_cleanup(c);
	if (strcmp(cmd, "validate") == 0 && optind < argc)
		return cmd_validate(c, argv + optind, argc - optind);
	fprintf(stderr, "tierctl: unknown command or arguments: \"%s\"; see tierctl --help\n", cmd);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct ctl c = {
		.state_file = TIERD_DEFAULT_STATE_FILE,
		.daemon = {
			.root = "/",
			.config_file = TIERD_DEFAULT_CONFIG_FILE,
			.log_target = TIERD_LOG_TARGET_STDERR,
			.log_level_set = true,
			.log_level = TIERD_LOG_ERR,
			.read_only = true,
		},
	};
	int r = parse_options(argc, argv, &c);

	if (r != OPTIONS_READ)
		return r;
	return run_command(&c, argc, argv);
}
