/* tierd: the memory tiering daemon. See tierd(8). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "table.h"
#include "version.h"

static const char help_text[] =
	"Usage: tierd [OPTIONS]\n"
	"Cgroup-aware memory tiering controller.\n\n"
	"  --config FILE         global configuration (default " TIERD_DEFAULT_CONFIG_FILE ")\n"
	"  --policy-dir DIR      policy directory (default from the configuration)\n"
	"  --metrics-file FILE   Prometheus textfile to write each tick\n"
	"  --state-file FILE     state file read by tierctl status\n"
	"  --runtime-dir DIR     undo record and reload verdict (default /run/tierd,\n                        under --root)\n"
	"  --root DIR            read /sys and /proc below DIR (fixture trees)\n"
	"  --once                run one tick, print the table, exit\n"
	"  --dry-run             write nothing to the kernel (no kdamonds, settings or\n                        migrations); record the plan\n"
	"  --log-target=T        auto, journal or stderr\n"
	"  --log-level=L         err, warning, notice, info or debug\n"
	"  -h, --help            this text\n"
	"  --version             version\n\n"
	"See tierd(8), tierd.json(5) and tierd-policy(5).\n";

enum {
	OPT_CONFIG = 256,
	OPT_POLICY_DIR,
	OPT_METRICS,
	OPT_STATE,
	OPT_RUNTIME_DIR,
	OPT_ROOT,
	OPT_ONCE,
	OPT_DRY_RUN,
	OPT_LOG_TARGET,
	OPT_LOG_LEVEL,
	OPT_VERSION,
};

static int parse_args(int argc, char **argv, struct tierd_options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "policy-dir", required_argument, NULL, OPT_POLICY_DIR },
		{ "metrics-file", required_argument, NULL, OPT_METRICS },
		{ "state-file", required_argument, NULL, OPT_STATE },
		{ "runtime-dir", required_argument, NULL, OPT_RUNTIME_DIR },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "log-target", required_argument, NULL, OPT_LOG_TARGET },
		{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG:
			o->config_file = optarg;
			o->config_explicit = true;
			break;
		case OPT_POLICY_DIR:
			o->policy_dir = optarg;
			break;
		case OPT_METRICS:
			o->metrics_file = optarg;
			break;
		case OPT_STATE:
			o->state_file = optarg;
			break;
		case OPT_RUNTIME_DIR:
			o->runtime_dir = optarg;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_ONCE:
			o->once = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_LOG_TARGET:
			if (tierd_log_target_parse(optarg, &o->log_target) < 0) {
				fprintf(stderr, "tierd: --log-target: expected auto, journal or stderr, got \"%s\"\n",
					optarg);
				return -EINVAL;
			}
			break;
		case OPT_LOG_LEVEL:
			if (tierd_log_level_parse(optarg, &o->log_level) < 0) {
				fprintf(stderr, "tierd: --log-level: expected err, warning, notice, info or debug, got \"%s\"\n",
					optarg);
				return -EINVAL;
			}
			o->log_level_set = true;
			break;
		case 'h':
			fputs(help_text, stdout);
			exit(EXIT_SUCCESS);
		case OPT_VERSION:
			printf("tierd %s\n", TIERD_VERSION);
			exit(EXIT_SUCCESS);
		default:
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tierd: unexpected argument \"%s\"; see tierd --help\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tierd_options opts = {
		.root = "/",
		.config_file = TIERD_DEFAULT_CONFIG_FILE,
		.log_target = TIERD_LOG_TARGET_AUTO,
	};
	struct tierd_daemon d;
	int r;

	if (parse_args(argc, argv, &opts) < 0)
		return EXIT_FAILURE;
	r = tierd_daemon_init(&d, &opts);
	if (r == 0) {
		if (opts.once) {
			r = tierd_daemon_tick(&d);
			if (r == 0)
				tierd_report_print(stdout, &d.last_report);
		} else {
			r = tierd_daemon_run(&d);
		}
	}
	tierd_daemon_free(&d);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
