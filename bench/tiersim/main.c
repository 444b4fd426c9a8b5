/* tiersim: the trace-driven simulator's command line. Parses the options
 * into a benchmark matrix (bench.h) or the engine scale benchmark
 * (engine_bench.h); all the work is there. bench/README.md documents it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "engine_bench.h"

static const char help[] =
	"Usage: tiersim [OPTIONS]\n"
	"Simulates tierd's strategies on a four-tier machine (local/remote DRAM and PMEM)\n"
	"and compares their mean access latency with the oracle's.\n"
	"\n"
	"  --workload LIST      gups,zipf,phase,alloc-burst,graph,multi-tenant (island and\n"
	"                       pool), multi-tenant-island, multi-tenant-pool, trace; or all\n"
	"                       (default: all synthetic ones; with --trace: trace)\n"
	"  --ratio LIST         capacity ratios, fastest tier first (default 1:1:2:2,1:1:8:8)\n"
	"  --strategy LIST      none,linux,autotiering,mole,migflow,hmmv,exchange or all (default all)\n"
	"  --seed N             workload and sampler seed (default 1)\n"
	"  --scale X            footprint and access-rate multiplier (default 1: 128 MiB,\n"
	"                       200k accesses/s)\n"
	"  --duration SEC       simulated seconds of a synthetic workload (default 120)\n"
	"  --trace FILE         replay FILE (lines: time_usec cgroup addr r|w)\n"
	"  --latency LIST       read latency per tier in ns (default 80,140,300,600);\n"
	"                       also the write latency unless --write-latency is given\n"
	"  --write-latency LIST write latency per tier in ns\n"
	"  --headroom PCT       capacity above the footprint, percent (default 5)\n"
	"  --layout L           what a tier's DAMON context samples: virtual (the cgroup's\n"
	"                       pages in address order) or frames (the tier's physical\n"
	"                       pages) (default virtual)\n"
	"  --jobs N             runs at once (default 2)\n"
	"  --out DIR            write summary.csv, series-*.csv, plot-*.gp and PNGs to DIR\n"
	"  --quiet              print nothing but errors\n"
	"  --engine-bench       time tierd_engine_plan on 1000 cgroups x 100000 regions\n"
	"  --engine-bench-cgroups N, --engine-bench-regions M, --engine-bench-ticks T\n"
	"                       (with --strategy: time only those strategies)\n"
	"  --help\n";

enum {
	OPT_WORKLOAD = 256, OPT_RATIO, OPT_STRATEGY, OPT_SEED, OPT_SCALE, OPT_DURATION, OPT_TRACE,
	OPT_LATENCY, OPT_WRITE_LATENCY, OPT_HEADROOM, OPT_LAYOUT, OPT_JOBS, OPT_OUT, OPT_QUIET,
	OPT_ENGINE_BENCH, OPT_EB_CGROUPS, OPT_EB_REGIONS, OPT_EB_TICKS, OPT_HELP,
};

static const struct option options[] = {
	{ "workload", required_argument, NULL, OPT_WORKLOAD },
	{ "ratio", required_argument, NULL, OPT_RATIO },
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "latency", required_argument, NULL, OPT_LATENCY },
	{ "write-latency", required_argument, NULL, OPT_WRITE_LATENCY },
	{ "headroom", required_argument, NULL, OPT_HEADROOM },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "engine-bench", no_argument, NULL, OPT_ENGINE_BENCH },
	{ "engine-bench-cgroups", required_argument, NULL, OPT_EB_CGROUPS },
	{ "engine-bench-regions", required_argument, NULL, OPT_EB_REGIONS },
	{ "engine-bench-ticks", required_argument, NULL, OPT_EB_TICKS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static const enum tierd_strategy all_strategies[] = {
	TIERD_STRATEGY_NONE, TIERD_STRATEGY_LINUX, TIERD_STRATEGY_AUTOTIERING,
	TIERD_STRATEGY_MOLE, TIERD_STRATEGY_MIGFLOW, TIERD_STRATEGY_HMMV, TIERD_STRATEGY_EXCHANGE,
};

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max) {
		fprintf(stderr, "tiersim: --%s: expected an integer up to %" PRIu64 ", got \"%s\"\n",
			opt, max, s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

/* Calls fn on each comma-separated item of list. */
static int each_item(const char *list, int (*fn)(const char *item, void *data), void *data)
{
	char *copy = strdup(list), *save = NULL;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *item = strtok_r(copy, ",", &save); item && r == 0;
	     item = strtok_r(NULL, ",", &save))
		r = fn(item, data);
	free(copy);
	return r;
}

static int add_item(struct tiersim_bench_config *bc, enum tiersim_workload_kind k,
		    enum tierd_sharing sharing)
{
	if (bc->nr_items == TIERSIM_BENCH_MAX_ITEMS)
		return -E2BIG;
	bc->items[bc->nr_items++] = (struct tiersim_bench_item){ .kind = k, .sharing = sharing };
	return 0;
}

static int add_all_synthetic(struct tiersim_bench_config *bc)
{
	int r = 0;

	for (unsigned k = 0; r == 0 && k < TIERSIM_WL_NR; k++) {
		if (k == TIERSIM_WL_TRACE)
			continue;
		r = add_item(bc, (enum tiersim_workload_kind)k, TIERD_SHARING_ISLAND);
		if (r == 0 && k == TIERSIM_WL_MULTI_TENANT)
			r = add_item(bc, (enum tiersim_workload_kind)k, TIERD_SHARING_POOL);
	}
	return r;
}

static int workload_item(const char *item, void *data)
{
	struct tiersim_bench_config *bc = data;
	enum tiersim_workload_kind k;

	if (strcmp(item, "all") == 0)
		return add_all_synthetic(bc);
	if (strcmp(item, "multi-tenant-island") == 0)
		return add_item(bc, TIERSIM_WL_MULTI_TENANT, TIERD_SHARING_ISLAND);
	if (strcmp(item, "multi-tenant-pool") == 0)
		return add_item(bc, TIERSIM_WL_MULTI_TENANT, TIERD_SHARING_POOL);
	if (tiersim_workload_parse(item, &k) < 0) {
		fprintf(stderr, "tiersim: --workload: unknown workload \"%s\"\n", item);
		return -EINVAL;
	}
	if (k == TIERSIM_WL_MULTI_TENANT) {
		int r = add_item(bc, k, TIERD_SHARING_ISLAND);

		return r < 0 ? r : add_item(bc, k, TIERD_SHARING_POOL);
	}
	return add_item(bc, k, TIERD_SHARING_ISLAND);
}

static int ratio_item(const char *item, void *data)
{
	struct tiersim_bench_config *bc = data;
	struct tiersim_run_config tmp;

	if (bc->nr_ratios == TIERSIM_BENCH_MAX_RATIOS)
		return -E2BIG;
	if (tiersim_ratio_parse(item, &tmp) < 0) {
		fprintf(stderr, "tiersim: --ratio: expected parts like 1:1:2:2 (at most %d), got \"%s\"\n",
			TIERSIM_MAX_TIERS, item);
		return -EINVAL;
	}
	bc->ratios[bc->nr_ratios].nr_tiers = tmp.nr_tiers;
	memcpy(bc->ratios[bc->nr_ratios].ratio, tmp.ratio, sizeof(tmp.ratio));
	bc->nr_ratios++;
	return 0;
}

static int strategy_item(const char *item, void *data)
{
	struct tiersim_bench_config *bc = data;

	if (strcmp(item, "all") == 0) {
		for (size_t i = 0; i < sizeof(all_strategies) / sizeof(all_strategies[0]); i++)
			bc->strategies[bc->nr_strategies++] = all_strategies[i];
		return 0;
	}
	for (unsigned s = 0; s < TIERD_STRATEGY_NR; s++) {
		if (strcmp(item, tierd_strategy_name((enum tierd_strategy)s)) == 0) {
			if (bc->nr_strategies == TIERD_STRATEGY_NR)
				return -E2BIG;
			bc->strategies[bc->nr_strategies++] = (enum tierd_strategy)s;
			return 0;
		}
	}
	fprintf(stderr, "tiersim: --strategy: unknown strategy \"%s\"\n", item);
	return -EINVAL;
}

struct latency_list {
	size_t n;
	uint32_t ns[TIERSIM_MAX_TIERS];
};

static int latency_item(const char *item, void *data)
{
	struct latency_list *l = data;
	uint64_t v;

	if (l->n == TIERSIM_MAX_TIERS || parse_u64("latency", item, 1000000, &v) < 0 || !v)
		return -EINVAL;
	l->ns[l->n++] = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct tiersim_bench_config bc;
	struct latency_list reads = { 0 }, writes = { 0 };
	const char *trace = NULL;
	bool engine_bench = false;
	uint64_t eb_cgroups = TIERSIM_ENGINE_BENCH_CGROUPS, eb_regions = TIERSIM_ENGINE_BENCH_REGIONS;
	uint64_t eb_ticks = TIERSIM_ENGINE_BENCH_TICKS, v;
	char *end;
	int opt, r;

	memset(&bc, 0, sizeof(bc));
	tiersim_run_config_defaults(&bc.base);
	bc.jobs = 2;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		r = 0;
		switch (opt) {
		case OPT_WORKLOAD:
			r = each_item(optarg, workload_item, &bc);
			break;
		case OPT_RATIO:
			r = each_item(optarg, ratio_item, &bc);
			break;
		case OPT_STRATEGY:
			r = each_item(optarg, strategy_item, &bc);
			break;
		case OPT_SEED:
			r = parse_u64("seed", optarg, UINT64_MAX, &bc.base.workload.seed);
			break;
		case OPT_SCALE:
			errno = 0;
			bc.base.workload.scale = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(bc.base.workload.scale > 0)) {
				fprintf(stderr, "tiersim: --scale: expected a positive number, got \"%s\"\n",
					optarg);
				r = -EINVAL;
			}
			break;
		case OPT_DURATION:
			r = parse_u64("duration", optarg, 86400, &v);
			if (r == 0 && !v)
				r = -EINVAL;
			bc.base.workload.duration_usec = v * 1000000ull;
			break;
		case OPT_TRACE:
			trace = optarg;
			break;
		case OPT_LATENCY:
			r = each_item(optarg, latency_item, &reads);
			break;
		case OPT_WRITE_LATENCY:
			r = each_item(optarg, latency_item, &writes);
			break;
		case OPT_HEADROOM:
			r = parse_u64("headroom", optarg, 1000, &v);
			bc.base.headroom_pmy = (uint32_t)(v * 100);
			break;
		case OPT_LAYOUT:
			if (strcmp(optarg, "virtual") == 0) {
				bc.base.layout = TIERSIM_LAYOUT_VIRTUAL;
			} else if (strcmp(optarg, "frames") == 0) {
				bc.base.layout = TIERSIM_LAYOUT_FRAMES;
			} else {
				fprintf(stderr,
					"tiersim: --layout: expected virtual or frames, got \"%s\"\n",
					optarg);
				r = -EINVAL;
			}
			break;
		case OPT_JOBS:
			r = parse_u64("jobs", optarg, 256, &v);
			bc.jobs = v ? (unsigned)v : 1;
			break;
		case OPT_OUT:
			bc.out_dir = optarg;
			break;
		case OPT_QUIET:
			bc.quiet = true;
			break;
		case OPT_ENGINE_BENCH:
			engine_bench = true;
			break;
		case OPT_EB_CGROUPS:
			engine_bench = true;
			r = parse_u64("engine-bench-cgroups", optarg, 1000000, &eb_cgroups);
			break;
		case OPT_EB_REGIONS:
			engine_bench = true;
			r = parse_u64("engine-bench-regions", optarg, 100000000, &eb_regions);
			break;
		case OPT_EB_TICKS:
			engine_bench = true;
			r = parse_u64("engine-bench-ticks", optarg, 1000, &eb_ticks);
			break;
		case OPT_HELP:
			fputs(help, stdout);
			return 0;
		default:
			fputs(help, stderr);
			return 2;
		}
		if (r < 0) {
			if (r == -E2BIG)
				fprintf(stderr, "tiersim: too many items in a list\n");
			else if (r == -EINVAL && (opt == OPT_LATENCY || opt == OPT_WRITE_LATENCY ||
						  opt == OPT_DURATION))
				fprintf(stderr, "tiersim: bad value \"%s\"\n", optarg);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tiersim: unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	if (engine_bench) {
		/* --strategy picks whose plans to time (none is no strategy). */
		enum tierd_strategy only[TIERD_STRATEGY_NR];
		size_t nr_only = 0;

		for (size_t i = 0; i < bc.nr_strategies; i++)
			if (bc.strategies[i] != TIERD_STRATEGY_NONE && nr_only < TIERD_STRATEGY_NR)
				only[nr_only++] = bc.strategies[i];
		r = tiersim_engine_bench((size_t)eb_cgroups, (size_t)eb_regions, (size_t)eb_ticks,
					 bc.base.workload.seed, only, nr_only, stdout);
		if (r < 0)
			fprintf(stderr, "tiersim: engine bench: %s\n", strerror(-r));
		return r < 0 ? 1 : 0;
	}

	if (trace) {
		bc.base.workload.trace_path = trace;
		if (!bc.nr_items)
			(void)add_item(&bc, TIERSIM_WL_TRACE, TIERD_SHARING_ISLAND);
	} else if (!bc.nr_items) {
		(void)add_all_synthetic(&bc);
	}
	for (size_t i = 0; i < bc.nr_items; i++) {
		if (bc.items[i].kind == TIERSIM_WL_TRACE && !trace) {
			fprintf(stderr, "tiersim: --workload trace needs --trace FILE\n");
			return 2;
		}
	}
	if (!bc.nr_ratios) {
		(void)ratio_item("1:1:2:2", &bc);
		(void)ratio_item("1:1:8:8", &bc);
	}
	if (!bc.nr_strategies)
		(void)strategy_item("all", &bc);
	if (reads.n || writes.n) {
		for (size_t i = 0; i < bc.nr_ratios; i++) {
			if ((reads.n && reads.n != bc.ratios[i].nr_tiers) ||
			    (writes.n && writes.n != bc.ratios[i].nr_tiers)) {
				fprintf(stderr, "tiersim: --latency/--write-latency: expected one "
						"figure per tier (%zu)\n", bc.ratios[i].nr_tiers);
				return 2;
			}
		}
		for (size_t t = 0; t < reads.n; t++)
			bc.base.read_ns[t] = bc.base.write_ns[t] = reads.ns[t];
		for (size_t t = 0; t < writes.n; t++)
			bc.base.write_ns[t] = writes.ns[t];
	} else {
		for (size_t i = 0; i < bc.nr_ratios; i++) {
			if (bc.ratios[i].nr_tiers != 4) {
				fprintf(stderr, "tiersim: --ratio with %zu tiers needs --latency "
						"(the defaults are for four)\n", bc.ratios[i].nr_tiers);
				return 2;
			}
		}
	}
	r = tiersim_bench(&bc, stdout, stderr);
	if (r == -EUCLEAN)
		fprintf(stderr, "tiersim: a run broke a simulator invariant (see the table)\n");
	return r < 0 ? 1 : 0;
}
