/* Migration accounting and the DAMON backend's state as the outputs carry
 * them: the state file's JSON (written, read back, read from an earlier
 * release, refused when malformed) and the Prometheus metrics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../controller/metrics.h"
#include "../policy/report.h"

TIERD_TEST_MAIN_COUNTS;

#define MIB (1024ull * 1024)
#define GIB (1024 * MIB)

/* A state file as the release before migration accounting wrote it: one
 * tier, no "migrations" nor "backend". */
static const char old_state[] =
	"{\"realtime_usec\": 1700000000000000, \"dry_run\": true, \"conflicts\": 0, "
	"\"over_budget\": 0, \"topology\": {\"source\": \"single\", \"nodes\": [{\"nid\": 0, "
	"\"tier\": 0, \"total_bytes\": 4294967296, \"free_bytes\": 2147483648, \"cpulist\": "
	"\"0-1\", \"hmat\": false, \"read_latency_ns\": 0, \"write_latency_ns\": 0, "
	"\"read_bandwidth_mbps\": 0, \"write_bandwidth_mbps\": 0}], \"tiers\": [{\"index\": 0, "
	"\"kernel_id\": -1, \"nodes\": \"0\", \"total_bytes\": 4294967296, \"free_bytes\": "
	"2147483648, \"read_latency_ns\": 0}]}, \"cgroups\": [], \"plan\": []}";

/* nr tiers of one node each, 1 GiB per node. */
static void tiers_of_one_node(struct tierd_topology *topo, size_t nr)
{
	struct tierd_nodeset sets[TIERD_MAX_TIERS];
	char err[128];

	memset(topo, 0, sizeof(*topo));
	topo->nr_nodes = nr;
	for (size_t i = 0; i < nr; i++) {
		topo->nodes[i] = (struct tierd_node){ .nid = (int)i, .total_bytes = GIB,
						      .free_bytes = GIB / 2 };
		tierd_nodeset_clear(&sets[i]);
		(void)tierd_nodeset_add(&sets[i], (int)i);
	}
	if (tierd_topology_assign_tiers(topo, sets, NULL, nr, TIERD_TIERS_CONFIG, err, sizeof(err)))
		abort();
}

/* Every path and several matrix cells with distinct values, one above
 * INT64_MAX: what the JSON must carry unchanged. */
static void fill_stats(struct tierd_migration_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->path[TIERD_PATH_DAMOS_MIGRATE_COLD] = (struct tierd_path_stats){
		.tried_bytes = 512 * MIB, .succeeded_bytes = 500 * MIB, .failed_bytes = 12 * MIB,
		.calls = 3 };
	s->path[TIERD_PATH_DAMOS_MIGRATE_HOT] = (struct tierd_path_stats){
		.tried_bytes = 4096, .succeeded_bytes = 4096, .failed_bytes = 0, .calls = 1 };
	s->path[TIERD_PATH_MEMORY_RECLAIM] = (struct tierd_path_stats){
		.tried_bytes = 3 * GIB, .succeeded_bytes = GIB, .failed_bytes = 2 * GIB, .calls = 7 };
	s->path[TIERD_PATH_MOVE_PAGES] = (struct tierd_path_stats){
		.tried_bytes = (1ull << 63) + 5, .succeeded_bytes = 8192, .failed_bytes = 11,
		.calls = 2 };
	s->matrix[0][3] = 500 * MIB;
	s->matrix[3][0] = 4096;
	s->matrix[0][1] = GIB;
	s->matrix[2][1] = (1ull << 63) + 1;
}

static int parse(const char *text, struct tierd_report *out, char *err, size_t size)
{
	return tierd_report_from_json(text, strlen(text), out, err, size);
}

static void test_json_round_trip(void)
{
	struct tierd_report rep = { 0 }, back = { 0 };
	char *text = NULL, err[256] = "";

	tiers_of_one_node(&rep.topo, 4);
	fill_stats(&rep.migrations);
	rep.backend = (struct tierd_backend_state){ .damon = TIERD_DAMON_DEGRADED, .nr_kdamonds = 2,
						    .kdamond_restarts = 7 };
	snprintf(rep.backend.damon_why, sizeof(rep.backend.damon_why),
		 "kdamond \"0\" runs someone else's contexts");
	CHECK_EQ_INT(tierd_report_to_json(&rep, false, &text), 0);
	CHECK(text && strstr(text, "\"migrations\":{\"paths\":{"
				   "\"damos_migrate_cold\":{\"tried_bytes\":536870912,\"succeeded_bytes\":524288000,\"failed_bytes\":12582912,\"calls\":3},"
				   "\"damos_migrate_hot\":{\"tried_bytes\":4096,\"succeeded_bytes\":4096,\"failed_bytes\":0,\"calls\":1},"
				   "\"memory_reclaim\":{\"tried_bytes\":3221225472,\"succeeded_bytes\":1073741824,\"failed_bytes\":2147483648,\"calls\":7},"
				   "\"move_pages\":{\"tried_bytes\":9223372036854775813,\"succeeded_bytes\":8192,\"failed_bytes\":11,\"calls\":2}},"
				   "\"matrix\":[[0,1073741824,0,524288000],[0,0,0,0],[0,9223372036854775809,0,0],[4096,0,0,0]]},"
				   "\"backend\":{\"damon\":\"degraded\",\"damon_why\":\"kdamond \\\"0\\\" runs someone else's contexts\",\"kdamonds\":2,\"kdamond_restarts\":7}}"));
	CHECK_EQ_INT(parse(text ? text : "", &back, err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");
	CHECK(memcmp(&back.migrations, &rep.migrations, sizeof(rep.migrations)) == 0);
	CHECK_EQ_U64(back.migrations.path[TIERD_PATH_MOVE_PAGES].tried_bytes, (1ull << 63) + 5);
	CHECK_EQ_U64(back.migrations.matrix[2][1], (1ull << 63) + 1);
	CHECK_EQ_U64(back.migrations.matrix[1][2], 0);
	CHECK_EQ_INT(back.backend.damon, TIERD_DAMON_DEGRADED);
	CHECK_EQ_STR(back.backend.damon_why, "kdamond \"0\" runs someone else's contexts");
	CHECK_EQ_U64(back.backend.nr_kdamonds, 2);
	CHECK_EQ_U64(back.backend.kdamond_restarts, 7);
	tierd_report_free(&back);
	free(text);

	/* Every mode, by name, both ways. */
	for (enum tierd_damon_mode m = TIERD_DAMON_OFF; m <= TIERD_DAMON_RUNNING; m++) {
		char want[64];

		rep.backend.damon = m;
		text = NULL;
		CHECK_EQ_INT(tierd_report_to_json(&rep, true, &text), 0);
		snprintf(want, sizeof(want), "\"damon\": \"%s\"", tierd_damon_mode_name(m));
		CHECK(text && strstr(text, want));
		CHECK_EQ_INT(parse(text ? text : "", &back, err, sizeof(err)), 0);
		CHECK_EQ_INT(back.backend.damon, m);
		tierd_report_free(&back);
		free(text);
	}
	CHECK_EQ_STR(tierd_damon_mode_name(TIERD_DAMON_RUNNING), "running");

	/* A mode without a name would give a file the reader refuses. */
	rep.backend.damon = (enum tierd_damon_mode)(TIERD_DAMON_RUNNING + 1);
	text = NULL;
	CHECK_EQ_INT(tierd_report_to_json(&rep, false, &text), -EINVAL);
	CHECK(text == NULL);
}

static void test_json_old_release(void)
{
	struct tierd_report back;
	struct tierd_migration_stats zero = { 0 };
	char err[256] = "";

	memset(&back, 0xff, sizeof(back));
	CHECK_EQ_INT(parse(old_state, &back, err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");
	CHECK_EQ_INT(back.topo.nr_tiers, 1);
	CHECK(memcmp(&back.migrations, &zero, sizeof(zero)) == 0);
	CHECK_EQ_INT(back.backend.damon, TIERD_DAMON_OFF);
	CHECK_EQ_STR(back.backend.damon_why, "");
	CHECK_EQ_U64(back.backend.nr_kdamonds, 0);
	CHECK_EQ_U64(back.backend.kdamond_restarts, 0);
	tierd_report_free(&back);
}

/* The old one-tier state file with keys added before its closing brace. */
static int parse_with(const char *keys, char *err, size_t size)
{
	char text[sizeof(old_state) + 512];
	struct tierd_report back;
	int r;

	snprintf(text, sizeof(text), "%.*s, %s}", (int)strlen(old_state) - 1, old_state, keys);
	err[0] = '\0';
	r = parse(text, &back, err, size);
	if (r == 0)
		tierd_report_free(&back);
	return r;
}

#define PATH_STATS "{\"tried_bytes\": 1, \"succeeded_bytes\": 1, \"failed_bytes\": 0, \"calls\": 1}"
#define BACKEND_REST "\"damon_why\": \"\", \"kdamonds\": 0, \"kdamond_restarts\": 0"

static void test_json_malformed(void)
{
	char err[256];

	/* The additions alone, well formed, parse: the cases below fail only
	 * by what each changes. */
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {\"move_pages\": " PATH_STATS
				"}, \"matrix\": [[0]]}, \"backend\": {\"damon\": \"running\", " BACKEND_REST
				"}", err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");

	CHECK_EQ_INT(parse_with("\"migrations\": 5", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"migrations\": null", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"matrix\": [[0]]}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.paths\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {}, \"matrix\": {}}", err, sizeof(err)),
		     -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.matrix\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {\"numa_balancing\": " PATH_STATS
				"}, \"matrix\": [[0]]}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.paths.numa_balancing\": unknown path; expected one of: "
			  "damos_migrate_cold, damos_migrate_hot, memory_reclaim, move_pages");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {\"move_pages\": 3}, \"matrix\": [[0]]}",
				err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.paths.move_pages\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {\"memory_reclaim\": {\"tried_bytes\": 1, "
				"\"succeeded_bytes\": 1, \"failed_bytes\": 0}}, \"matrix\": [[0]]}",
				err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.paths.memory_reclaim.calls\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {}, \"matrix\": [[0, 0]]}", err,
				sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.matrix\": expected 1 arrays of 1 byte counts "
			  "(a row and a column per tier)");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {}, \"matrix\": [[\"0\"]]}", err,
				sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.matrix\": expected 1 arrays of 1 byte counts "
			  "(a row and a column per tier)");
	CHECK_EQ_INT(parse_with("\"migrations\": {\"paths\": {}, \"matrix\": [0]}", err, sizeof(err)),
		     -EINVAL);
	CHECK_EQ_STR(err, "key \"migrations.matrix\": expected 1 arrays of 1 byte counts "
			  "(a row and a column per tier)");

	CHECK_EQ_INT(parse_with("\"backend\": []", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"backend\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"backend\": {\"damon\": \"sleeping\", " BACKEND_REST "}", err,
				sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"backend.damon\": unknown mode \"sleeping\"; expected one of: "
			  "off, absent, degraded, failed, running");
	CHECK_EQ_INT(parse_with("\"backend\": {\"damon\": \"running\", \"damon_why\": \"\", "
				"\"kdamonds\": \"4\", \"kdamond_restarts\": 0}", err, sizeof(err)),
		     -EINVAL);
	CHECK_EQ_STR(err, "key \"backend.kdamonds\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"backend\": {\"damon\": 4, " BACKEND_REST "}", err, sizeof(err)),
		     -EINVAL);
	CHECK_EQ_STR(err, "key \"backend.damon\": missing or of the wrong type");
}

/* The new series, exactly, for two tiers. */
static void test_metrics(void)
{
	struct tierd_report rep = { 0 };
	struct tierd_metrics_input in = { .report = &rep, .page_size_bytes = 4096 };
	char *text = NULL;

	tiers_of_one_node(&rep.topo, 2);
	rep.migrations.path[TIERD_PATH_DAMOS_MIGRATE_COLD] = (struct tierd_path_stats){
		.tried_bytes = 8192, .succeeded_bytes = 4096, .failed_bytes = 4096, .calls = 2 };
	rep.migrations.path[TIERD_PATH_MOVE_PAGES] = (struct tierd_path_stats){
		.tried_bytes = 12288, .succeeded_bytes = 12288, .failed_bytes = 0, .calls = 1 };
	rep.migrations.matrix[0][1] = 4096;
	rep.migrations.matrix[1][0] = 12288;
	rep.migrations.matrix[1][1] = 999; /* the diagonal is not exported */
	rep.backend = (struct tierd_backend_state){ .damon = TIERD_DAMON_RUNNING, .nr_kdamonds = 4,
						    .kdamond_restarts = 1 };
	in.planned_actions_total = 5;
	in.planned_bytes_total = 20480;
	CHECK_EQ_INT(tierd_metrics_format(&in, &text), 0);
	CHECK(text && strstr(text,
		"# HELP tierd_migration_tried_bytes_total Bytes tierd asked a migration path to move.\n"
		"# TYPE tierd_migration_tried_bytes_total counter\n"
		"tierd_migration_tried_bytes_total{path=\"damos_migrate_cold\"} 8192\n"
		"tierd_migration_tried_bytes_total{path=\"damos_migrate_hot\"} 0\n"
		"tierd_migration_tried_bytes_total{path=\"memory_reclaim\"} 0\n"
		"tierd_migration_tried_bytes_total{path=\"move_pages\"} 12288\n"
		"# HELP tierd_migration_succeeded_bytes_total Bytes a migration path moved, as the kernel reports it.\n"
		"# TYPE tierd_migration_succeeded_bytes_total counter\n"
		"tierd_migration_succeeded_bytes_total{path=\"damos_migrate_cold\"} 4096\n"
		"tierd_migration_succeeded_bytes_total{path=\"damos_migrate_hot\"} 0\n"
		"tierd_migration_succeeded_bytes_total{path=\"memory_reclaim\"} 0\n"
		"tierd_migration_succeeded_bytes_total{path=\"move_pages\"} 12288\n"
		"# HELP tierd_migration_failed_bytes_total Bytes a migration path was asked to move and did not.\n"
		"# TYPE tierd_migration_failed_bytes_total counter\n"
		"tierd_migration_failed_bytes_total{path=\"damos_migrate_cold\"} 4096\n"
		"tierd_migration_failed_bytes_total{path=\"damos_migrate_hot\"} 0\n"
		"tierd_migration_failed_bytes_total{path=\"memory_reclaim\"} 0\n"
		"tierd_migration_failed_bytes_total{path=\"move_pages\"} 0\n"
		"# HELP tierd_migration_requests_total Requests tierd made on a migration path.\n"
		"# TYPE tierd_migration_requests_total counter\n"
		"tierd_migration_requests_total{path=\"damos_migrate_cold\"} 2\n"
		"tierd_migration_requests_total{path=\"damos_migrate_hot\"} 0\n"
		"tierd_migration_requests_total{path=\"memory_reclaim\"} 0\n"
		"tierd_migration_requests_total{path=\"move_pages\"} 1\n"
		"# HELP tierd_migrated_bytes_total Bytes tierd's migrations moved from one tier to another, all paths.\n"
		"# TYPE tierd_migrated_bytes_total counter\n"
		"tierd_migrated_bytes_total{from_tier=\"0\",to_tier=\"1\"} 4096\n"
		"tierd_migrated_bytes_total{from_tier=\"1\",to_tier=\"0\"} 12288\n"
		"# HELP tierd_damon_mode 1 for the mode the DAMON backend is in (off, absent, degraded, failed, running).\n"
		"# TYPE tierd_damon_mode gauge\n"
		"tierd_damon_mode{mode=\"off\"} 0\n"
		"tierd_damon_mode{mode=\"absent\"} 0\n"
		"tierd_damon_mode{mode=\"degraded\"} 0\n"
		"tierd_damon_mode{mode=\"failed\"} 0\n"
		"tierd_damon_mode{mode=\"running\"} 1\n"
		"# HELP tierd_damon_kdamonds tierd's kdamonds running.\n"
		"# TYPE tierd_damon_kdamonds gauge\n"
		"tierd_damon_kdamonds 4\n"
		"# HELP tierd_damon_kdamond_restarts_total Restarts of tierd's kdamonds: found stopped behind its back, or after a rejected commit.\n"
		"# TYPE tierd_damon_kdamond_restarts_total counter\n"
		"tierd_damon_kdamond_restarts_total 1\n"));
	/* The dry-run recorder's counters are unchanged by the new series. */
	CHECK(text && strstr(text, "\ntierd_dry_run_actions_total 5\n"));
	CHECK(text && strstr(text, "\ntierd_dry_run_bytes_total 20480\n"));
	CHECK(text && !strstr(text, "from_tier=\"1\",to_tier=\"1\""));
	free(text);

	/* Nothing moved yet: every series is there, at zero. */
	memset(&rep.migrations, 0, sizeof(rep.migrations));
	rep.backend = (struct tierd_backend_state){ .damon = TIERD_DAMON_OFF };
	text = NULL;
	CHECK_EQ_INT(tierd_metrics_format(&in, &text), 0);
	CHECK(text && strstr(text, "\ntierd_migration_requests_total{path=\"memory_reclaim\"} 0\n"));
	CHECK(text && strstr(text, "\ntierd_migrated_bytes_total{from_tier=\"0\",to_tier=\"1\"} 0\n"
				   "tierd_migrated_bytes_total{from_tier=\"1\",to_tier=\"0\"} 0\n"));
	CHECK(text && strstr(text, "\ntierd_damon_mode{mode=\"off\"} 1\n"));
	CHECK(text && strstr(text, "\ntierd_damon_mode{mode=\"running\"} 0\n"));
	free(text);
}

int main(void)
{
	test_json_round_trip();
	test_json_old_release();
	test_json_malformed();
	test_metrics();
	return tierd_test_finish();
}
