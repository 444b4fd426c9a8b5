/* Migration accounting, the DAMON backend's and the BPF sampler's state as
 * the outputs carry them: the state file's JSON (written, read back, read
 * from an earlier release, refused when malformed) and the Prometheus
 * metrics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../controller/metrics.h"
#include "../report/report.h"

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

/* The state-file fuzzer's finding: json-c was handed len + 1 bytes to find a
 * NUL; a state file read into a buffer of its exact size was read past. */
static void test_json_unterminated(void)
{
	static const char cut[] = "{\"realtime_usec\": 17963";
	struct tierd_report rep = { 0 };
	char err[256] = "";
	char *text = malloc(sizeof(cut) - 1);

	if (!text)
		abort();
	memcpy(text, cut, sizeof(cut) - 1);
	CHECK_EQ_INT(tierd_report_from_json(text, sizeof(cut) - 1, &rep, err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "invalid JSON at byte 23: unexpected end of data");
	free(text);
	tierd_report_free(&rep);
}

static void test_json_round_trip(void)
{
	struct tierd_report rep = { 0 }, back = { 0 };
	char *text = NULL, err[256] = "";

	tiers_of_one_node(&rep.topo, 4);
	fill_stats(&rep.migrations);
	rep.backend = (struct tierd_backend_state){ .damon = TIERD_DAMON_DEGRADED, .nr_kdamonds = 2,
						    .kdamond_restarts = 7, .sense_wait_usec = 12000,
						    .sense_wait_max_usec = 80500, .act_wait_usec = 3000,
						    .act_wait_max_usec = 41000, .late_readings = 6,
						    .skipped_commits = 2 };
	snprintf(rep.backend.damon_why, sizeof(rep.backend.damon_why),
		 "kdamond \"0\" runs someone else's contexts");
	rep.reclaim = (struct tierd_reclaim_stats){ .jobs = 9, .busy_ticks = 4, .deadline_hits = 1,
						    .last_usec = 570000, .max_usec = 834000 };
	CHECK_EQ_INT(tierd_report_to_json(&rep, false, &text), 0);
	CHECK(text && strstr(text, "\"migrations\":{\"paths\":{"
				   "\"damos_migrate_cold\":{\"tried_bytes\":536870912,\"succeeded_bytes\":524288000,\"failed_bytes\":12582912,\"calls\":3},"
				   "\"damos_migrate_hot\":{\"tried_bytes\":4096,\"succeeded_bytes\":4096,\"failed_bytes\":0,\"calls\":1},"
				   "\"memory_reclaim\":{\"tried_bytes\":3221225472,\"succeeded_bytes\":1073741824,\"failed_bytes\":2147483648,\"calls\":7},"
				   "\"move_pages\":{\"tried_bytes\":9223372036854775813,\"succeeded_bytes\":8192,\"failed_bytes\":11,\"calls\":2}},"
				   "\"matrix\":[[0,1073741824,0,524288000],[0,0,0,0],[0,9223372036854775809,0,0],[4096,0,0,0]]},"
				   "\"backend\":{\"damon\":\"degraded\",\"damon_why\":\"kdamond \\\"0\\\" runs someone else's contexts\",\"kdamonds\":2,\"kdamond_restarts\":7,"
				   "\"tick_kernel_wait\":{\"sense_usec\":12000,\"sense_max_usec\":80500,\"act_usec\":3000,\"act_max_usec\":41000},"
				   "\"damon_worker\":{\"late_readings\":6,\"skipped_commits\":2}},"
				   "\"memory_reclaim\":{\"jobs\":9,\"busy_ticks\":4,\"deadline_hits\":1,\"last_usec\":570000,\"max_usec\":834000},\"bpf\":{"));
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
	CHECK_EQ_U64(back.backend.sense_wait_usec, 12000);
	CHECK_EQ_U64(back.backend.sense_wait_max_usec, 80500);
	CHECK_EQ_U64(back.backend.act_wait_usec, 3000);
	CHECK_EQ_U64(back.backend.act_wait_max_usec, 41000);
	CHECK_EQ_U64(back.backend.late_readings, 6);
	CHECK_EQ_U64(back.backend.skipped_commits, 2);
	CHECK(memcmp(&back.reclaim, &rep.reclaim, sizeof(rep.reclaim)) == 0);
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

/* Two cgroups on four tiers, the second sampled; every BPF figure distinct,
 * one above INT64_MAX. */
static void fill_bpf(struct tierd_report *rep, struct tierd_report_cgroup cgroups[2])
{
	memset(cgroups, 0, 2 * sizeof(*cgroups));
	snprintf(cgroups[0].path, sizeof(cgroups[0].path), "/system.slice/nginx.service");
	snprintf(cgroups[0].policy, sizeof(cgroups[0].policy), "web");
	snprintf(cgroups[1].path, sizeof(cgroups[1].path), "/workload.slice/db.service");
	snprintf(cgroups[1].policy, sizeof(cgroups[1].policy), "db");
	cgroups[1].bpf_sampled = true;
	cgroups[1].bpf = (struct tierd_bpf_cgroup_counts){
		.faults = { 0, 1200, 7, (1ull << 63) + 3 },
		.samples = { 0, 1000, 7, 40 },
		.drops = { 0, 200, 0, 5 },
	};
	rep->nr_cgroups = 2;
	rep->cgroups = cgroups;
	rep->bpf = (struct tierd_bpf_state){
		.mode = TIERD_BPF_RUNNING,
		.samples_read = 1047,
		.samples_lost = 2,
		.unmanaged_faults = 31,
		.no_addr = 4,
		.promotions = {
			.tried = { 900, 30, 0, 0 },
			.succeeded = { 890, 30, 0, 0 },
			.failed = { 10, 0, 0, 0 },
		},
		.promote_batches = 41,
		.promote_busy_ticks = 3,
		.promote_deadline_hits = 2,
		.promote_last_usec = 1500,
		.promote_max_usec = 612345,
	};
	snprintf(rep->bpf.hooks, sizeof(rep->bpf.hooks),
		 "numa_fault=btf fault_addr=tracepoint numa_scan=btf migrate=btf");
}

/* Field by field: the struct has padding after mode. */
static bool same_bpf(const struct tierd_bpf_state *a, const struct tierd_bpf_state *b)
{
	return a->mode == b->mode && strcmp(a->why, b->why) == 0 &&
	       strcmp(a->hooks, b->hooks) == 0 && a->samples_read == b->samples_read &&
	       a->samples_lost == b->samples_lost && a->unmanaged_faults == b->unmanaged_faults &&
	       a->no_addr == b->no_addr &&
	       memcmp(&a->promotions, &b->promotions, sizeof(a->promotions)) == 0 &&
	       a->promote_batches == b->promote_batches &&
	       a->promote_busy_ticks == b->promote_busy_ticks &&
	       a->promote_deadline_hits == b->promote_deadline_hits &&
	       a->promote_last_usec == b->promote_last_usec &&
	       a->promote_max_usec == b->promote_max_usec;
}

static void test_bpf_json_round_trip(void)
{
	struct tierd_report rep = { 0 }, back = { 0 };
	struct tierd_report_cgroup cgroups[2];
	char *text = NULL, err[256] = "";
	const char *nginx, *db;

	tiers_of_one_node(&rep.topo, 4);
	fill_bpf(&rep, cgroups);
	CHECK_EQ_INT(tierd_report_to_json(&rep, false, &text), 0);
	CHECK(text && strstr(text,
		",\"bpf\":{\"mode\":\"running\",\"why\":\"\","
		"\"hooks\":\"numa_fault=btf fault_addr=tracepoint numa_scan=btf migrate=btf\","
		"\"samples_read\":1047,\"samples_lost\":2,\"unmanaged_faults\":31,\"no_addr\":4,"
		"\"promotions\":{\"tried\":[900,30,0,0],\"succeeded\":[890,30,0,0],\"failed\":[10,0,0,0]},"
		"\"move_pages\":{\"batches\":41,\"busy_ticks\":3,\"deadline_hits\":2,"
		"\"last_usec\":1500,\"max_usec\":612345}}}"));
	/* The sampled cgroup's counters follow its tiers; the other has none. */
	CHECK(text && strstr(text,
		"\"under_min_bytes\":0}],\"bpf\":{\"faults\":[0,1200,7,9223372036854775811],"
		"\"samples\":[0,1000,7,40],\"drops\":[0,200,0,5]}}],\"plan\":"));
	nginx = text ? strstr(text, "\"path\":\"/system.slice/nginx.service\"") : NULL;
	db = nginx ? strstr(nginx, "\"path\":\"/workload.slice/db.service\"") : NULL;
	CHECK(nginx && db && !memmem(nginx, (size_t)(db - nginx), "\"bpf\"", strlen("\"bpf\"")));
	CHECK_EQ_INT(parse(text ? text : "", &back, err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");
	CHECK_EQ_INT(back.nr_cgroups, 2);
	CHECK(same_bpf(&back.bpf, &rep.bpf));
	CHECK_EQ_INT(back.bpf.mode, TIERD_BPF_RUNNING);
	CHECK_EQ_STR(back.bpf.hooks, "numa_fault=btf fault_addr=tracepoint numa_scan=btf migrate=btf");
	CHECK_EQ_U64(back.bpf.promotions.failed[0], 10);
	if (back.nr_cgroups == 2) {
		CHECK(!back.cgroups[0].bpf_sampled);
		CHECK(back.cgroups[1].bpf_sampled);
		CHECK(memcmp(&back.cgroups[1].bpf, &cgroups[1].bpf, sizeof(cgroups[1].bpf)) == 0);
		CHECK_EQ_U64(back.cgroups[1].bpf.faults[3], (1ull << 63) + 3);
		CHECK_EQ_U64(back.cgroups[1].bpf.drops[1], 200);
		CHECK_EQ_U64(back.cgroups[0].bpf.faults[1], 0);
	}
	tierd_report_free(&back);
	free(text);

	/* Every mode, by name, both ways, with its reason. */
	snprintf(rep.bpf.why, sizeof(rep.bpf.why), "no BTF: \"/sys/kernel/btf/vmlinux\" missing");
	for (enum tierd_bpf_mode m = TIERD_BPF_OFF; m <= TIERD_BPF_RUNNING; m++) {
		char want[64];

		rep.bpf.mode = m;
		text = NULL;
		CHECK_EQ_INT(tierd_report_to_json(&rep, true, &text), 0);
		snprintf(want, sizeof(want), "\"mode\": \"%s\"", tierd_bpf_mode_name(m));
		CHECK(text && strstr(text, want));
		CHECK_EQ_INT(parse(text ? text : "", &back, err, sizeof(err)), 0);
		CHECK_EQ_INT(back.bpf.mode, m);
		CHECK_EQ_STR(back.bpf.why, "no BTF: \"/sys/kernel/btf/vmlinux\" missing");
		tierd_report_free(&back);
		free(text);
	}

	/* A mode without a name would give a file the reader refuses. */
	rep.bpf.mode = (enum tierd_bpf_mode)(TIERD_BPF_RUNNING + 1);
	text = NULL;
	CHECK_EQ_INT(tierd_report_to_json(&rep, false, &text), -EINVAL);
	CHECK(text == NULL);
}

static void test_bpf_mode_names(void)
{
	enum tierd_bpf_mode m = TIERD_BPF_RUNNING;

	CHECK_EQ_STR(tierd_bpf_mode_name(TIERD_BPF_OFF), "off");
	CHECK_EQ_STR(tierd_bpf_mode_name(TIERD_BPF_UNAVAILABLE), "unavailable");
	CHECK_EQ_STR(tierd_bpf_mode_name(TIERD_BPF_RUNNING), "running");
	CHECK(tierd_bpf_mode_name((enum tierd_bpf_mode)(TIERD_BPF_RUNNING + 1)) == NULL);
	CHECK_EQ_INT(tierd_bpf_mode_parse("unavailable", &m), 0);
	CHECK_EQ_INT(m, TIERD_BPF_UNAVAILABLE);
	CHECK_EQ_INT(tierd_bpf_mode_parse("Running", &m), -EINVAL);
	CHECK_EQ_INT(tierd_bpf_mode_parse("", &m), -EINVAL);
	CHECK_EQ_INT(m, TIERD_BPF_UNAVAILABLE);
}

static void test_json_old_release(void)
{
	struct tierd_report back;
	struct tierd_migration_stats zero = { 0 };
	struct tierd_bpf_state zero_bpf = { 0 };
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
	CHECK_EQ_INT(back.bpf.mode, TIERD_BPF_OFF);
	CHECK(same_bpf(&back.bpf, &zero_bpf));
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

#define BPF_COUNTS "\"samples_read\": 0, \"samples_lost\": 0, \"unmanaged_faults\": 0, \"no_addr\": 0"
#define BPF_PROMOTIONS "\"promotions\": {\"tried\": [0], \"succeeded\": [0], \"failed\": [0]}"
#define BPF_REST "\"why\": \"\", \"hooks\": \"\", " BPF_COUNTS ", " BPF_PROMOTIONS

static void test_bpf_json_malformed(void)
{
	char err[256];

	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"unavailable\", " BPF_REST "}", err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");

	CHECK_EQ_INT(parse_with("\"bpf\": true", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"loaded\", " BPF_REST "}", err, sizeof(err)),
		     -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.mode\": unknown mode \"loaded\"; expected one of: "
			  "off, unavailable, running");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": 2, " BPF_REST "}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.mode\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"running\", \"why\": \"\", \"hooks\": \"\", "
				"\"samples_read\": 0, \"unmanaged_faults\": 0, \"no_addr\": 0, "
				BPF_PROMOTIONS "}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.samples_lost\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"running\", \"why\": \"\", \"hooks\": \"\", "
				BPF_COUNTS "}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.promotions\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"running\", \"why\": \"\", \"hooks\": \"\", "
				BPF_COUNTS ", \"promotions\": {\"tried\": [0, 0], \"succeeded\": [0], "
				"\"failed\": [0]}}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.promotions.tried\": expected 1 counts (one per tier)");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"running\", \"why\": \"\", \"hooks\": \"\", "
				BPF_COUNTS ", \"promotions\": {\"tried\": [0], \"succeeded\": {}, "
				"\"failed\": [0]}}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.promotions.succeeded\": missing or of the wrong type");
	CHECK_EQ_INT(parse_with("\"bpf\": {\"mode\": \"running\", \"why\": \"\", \"hooks\": \"\", "
				BPF_COUNTS ", \"promotions\": {\"tried\": [0], \"succeeded\": [0], "
				"\"failed\": [\"0\"]}}", err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"bpf.promotions.failed\": expected 1 counts (one per tier)");
}

/* text with its first from replaced by to, parsed: 0, -EINVAL, or -ENOENT
 * when text has no from. */
static int parse_replaced(const char *text, const char *from, const char *to, char *err,
			  size_t size)
{
	const char *at = text ? strstr(text, from) : NULL;
	struct tierd_report back;
	char *edited = NULL;
	int r;

	if (!at || asprintf(&edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) < 0)
		return -ENOENT;
	err[0] = '\0';
	r = parse(edited, &back, err, size);
	if (r == 0)
		tierd_report_free(&back);
	free(edited);
	return r;
}

static void test_bpf_json_cgroup_malformed(void)
{
	struct tierd_report rep = { 0 };
	struct tierd_report_cgroup cgroups[2];
	char *text = NULL, err[256];

	tiers_of_one_node(&rep.topo, 4);
	fill_bpf(&rep, cgroups);
	CHECK_EQ_INT(tierd_report_to_json(&rep, false, &text), 0);
	/* The edit alone, well formed, parses. */
	CHECK_EQ_INT(parse_replaced(text, "\"samples\":[0,1000,7,40]", "\"samples\":[0,1000,7,41]",
				    err, sizeof(err)), 0);
	CHECK_EQ_STR(err, "");

	CHECK_EQ_INT(parse_replaced(text, "\"samples\":[0,1000,7,40]", "\"samples\":[0,1000,7]", err,
				    sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"cgroups[1].bpf.samples\": expected 4 counts (one per tier)");
	CHECK_EQ_INT(parse_replaced(text, "\"drops\":[0,200,0,5]", "\"drops\":[0,200,null,5]", err,
				    sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"cgroups[1].bpf.drops\": expected 4 counts (one per tier)");
	CHECK_EQ_INT(parse_replaced(text, "\"faults\":[0,1200,7,9223372036854775811],", "", err,
				    sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"cgroups[1].bpf.faults\": missing or of the wrong type");
	CHECK_EQ_INT(parse_replaced(text, ",\"bpf\":{\"faults\":", ",\"bpf\":[],\"x\":{\"faults\":",
				    err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "key \"cgroups[1].bpf\": missing or of the wrong type");
	free(text);
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
						    .kdamond_restarts = 1,
						    .sense_wait_usec = 250, .sense_wait_max_usec = 1234567,
						    .act_wait_usec = 40, .act_wait_max_usec = 98765,
						    .late_readings = 3, .skipped_commits = 1 };
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
		"tierd_damon_kdamond_restarts_total 1\n"
		"# HELP tierd_tick_kernel_wait_seconds How long the last tick waited on the kernel: sense (for DAMON's reading, at most half the tick interval), act (handing its moves to the workers; memory.reclaim too where it has none: --once).\n"
		"# TYPE tierd_tick_kernel_wait_seconds gauge\n"
		"tierd_tick_kernel_wait_seconds{step=\"sense\"} 0.000250\n"
		"tierd_tick_kernel_wait_seconds{step=\"act\"} 0.000040\n"
		"# HELP tierd_tick_kernel_wait_max_seconds The longest such wait since start, by step.\n"
		"# TYPE tierd_tick_kernel_wait_max_seconds gauge\n"
		"tierd_tick_kernel_wait_max_seconds{step=\"sense\"} 1.234567\n"
		"tierd_tick_kernel_wait_max_seconds{step=\"act\"} 0.098765\n"
		"# HELP tierd_damon_late_readings_total Ticks whose DAMON reading had not ended by the deadline (half the tick interval): the tick planned from the last reading again.\n"
		"# TYPE tierd_damon_late_readings_total counter\n"
		"tierd_damon_late_readings_total 3\n"
		"# HELP tierd_damon_skipped_commits_total Plans whose DAMON schemes were not committed: DAMON's worker was still busy; their moves cost no budget.\n"
		"# TYPE tierd_damon_skipped_commits_total counter\n"
		"tierd_damon_skipped_commits_total 1\n"));
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

/* The sampler's series, exactly, for two tiers: the sampled cgroup's
 * counters with its path escaped, none for the cgroup not sampled. */
static void test_bpf_metrics(void)
{
	static const struct tierd_cgroup_obs obs[2];
	struct tierd_report rep = { 0 };
	struct tierd_report_cgroup cgroups[2] = { 0 };
	struct tierd_metrics_input in = { .report = &rep, .obs = obs, .page_size_bytes = 4096 };
	char *text = NULL;

	tiers_of_one_node(&rep.topo, 2);
	snprintf(cgroups[0].path, sizeof(cgroups[0].path), "/not-sampled");
	snprintf(cgroups[1].path, sizeof(cgroups[1].path), "/w\"x\\y");
	cgroups[1].bpf_sampled = true;
	cgroups[1].bpf = (struct tierd_bpf_cgroup_counts){
		.faults = { 3, 1200 }, .samples = { 2, 1000 }, .drops = { 1, 200 } };
	rep.nr_cgroups = 2;
	rep.cgroups = cgroups;
	rep.bpf.mode = TIERD_BPF_RUNNING;
	rep.bpf.samples_read = 1002;
	rep.backend.paced_bytes = 12345;
	rep.bpf.samples_lost = 6;
	rep.bpf.unmanaged_faults = 77;
	rep.bpf.no_addr = 9;
	rep.bpf.promotions.tried[0] = 500;
	rep.bpf.promotions.succeeded[0] = 480;
	rep.bpf.promotions.failed[0] = 20;
	rep.bpf.kernel_migrations[8] = (struct tierd_kernel_migrations){ .succeeded = 4096,
									 .failed = 3 };
	rep.bpf.kernel_migrations[5].succeeded = 250;
	rep.bpf.promotions.tried[1] = 8;
	rep.bpf.promotions.succeeded[1] = 8;
	rep.bpf.promote_batches = 41;
	rep.bpf.promote_busy_ticks = 3;
	rep.bpf.promote_deadline_hits = 2;
	rep.bpf.promote_last_usec = 1500;
	in.tick_overruns_total = 3;
	rep.bpf.promote_max_usec = 612345;
	rep.reclaim = (struct tierd_reclaim_stats){ .jobs = 9, .busy_ticks = 4, .deadline_hits = 1,
						    .last_usec = 570000, .max_usec = 834000 };
	CHECK_EQ_INT(tierd_metrics_format(&in, &text), 0);
	CHECK(text && strstr(text,
		"\ntierd_damon_kdamond_restarts_total 0\n"
		"# HELP tierd_tick_kernel_wait_seconds How long the last tick waited on the kernel: sense (for DAMON's reading, at most half the tick interval), act (handing its moves to the workers; memory.reclaim too where it has none: --once).\n"
		"# TYPE tierd_tick_kernel_wait_seconds gauge\n"
		"tierd_tick_kernel_wait_seconds{step=\"sense\"} 0.000000\n"
		"tierd_tick_kernel_wait_seconds{step=\"act\"} 0.000000\n"
		"# HELP tierd_tick_kernel_wait_max_seconds The longest such wait since start, by step.\n"
		"# TYPE tierd_tick_kernel_wait_max_seconds gauge\n"
		"tierd_tick_kernel_wait_max_seconds{step=\"sense\"} 0.000000\n"
		"tierd_tick_kernel_wait_max_seconds{step=\"act\"} 0.000000\n"
		"# HELP tierd_damon_late_readings_total Ticks whose DAMON reading had not ended by the deadline (half the tick interval): the tick planned from the last reading again.\n"
		"# TYPE tierd_damon_late_readings_total counter\n"
		"tierd_damon_late_readings_total 0\n"
		"# HELP tierd_damon_skipped_commits_total Plans whose DAMON schemes were not committed: DAMON's worker was still busy; their moves cost no budget.\n"
		"# TYPE tierd_damon_skipped_commits_total counter\n"
		"tierd_damon_skipped_commits_total 0\n"
		"# HELP tierd_damos_paced_bytes_total Bytes of planned DAMOS migrations left for a later tick: a kdamond is handed at most what the global migration budget refills in a tick; they cost no budget.\n"
		"# TYPE tierd_damos_paced_bytes_total counter\n"
		"tierd_damos_paced_bytes_total 12345\n"
		"# HELP tierd_reclaim_jobs_total memory.reclaim jobs run off the tick's thread and ended.\n"
		"# TYPE tierd_reclaim_jobs_total counter\n"
		"tierd_reclaim_jobs_total 9\n"
		"# HELP tierd_reclaim_busy_ticks_total Ticks whose memory.reclaim waited: the last job still ran.\n"
		"# TYPE tierd_reclaim_busy_ticks_total counter\n"
		"tierd_reclaim_busy_ticks_total 4\n"
		"# HELP tierd_reclaim_deadline_hits_total Jobs that left cgroups at their deadline (half the tick interval) for a later tick.\n"
		"# TYPE tierd_reclaim_deadline_hits_total counter\n"
		"tierd_reclaim_deadline_hits_total 1\n"
		"# HELP tierd_reclaim_job_seconds How long the last job ran.\n"
		"# TYPE tierd_reclaim_job_seconds gauge\n"
		"tierd_reclaim_job_seconds 0.570000\n"
		"# HELP tierd_reclaim_job_max_seconds The longest job since start.\n"
		"# TYPE tierd_reclaim_job_max_seconds gauge\n"
		"tierd_reclaim_job_max_seconds 0.834000\n"
		"# HELP tierd_bpf_mode 1 for the mode the BPF hint-fault sampler is in (off, unavailable, running).\n"
		"# TYPE tierd_bpf_mode gauge\n"
		"tierd_bpf_mode{mode=\"off\"} 0\n"
		"tierd_bpf_mode{mode=\"unavailable\"} 0\n"
		"tierd_bpf_mode{mode=\"running\"} 1\n"
		"# HELP tierd_bpf_hint_faults_total NUMA hint faults the BPF sampler saw in the cgroup, by the tier of the faulting page.\n"
		"# TYPE tierd_bpf_hint_faults_total counter\n"
		"tierd_bpf_hint_faults_total{cgroup=\"/w\\\"x\\\\y\",tier=\"0\"} 3\n"
		"tierd_bpf_hint_faults_total{cgroup=\"/w\\\"x\\\\y\",tier=\"1\"} 1200\n"
		"# HELP tierd_bpf_samples_total Hint faults the BPF sampler passed to tierd through its ring buffer, by tier.\n"
		"# TYPE tierd_bpf_samples_total counter\n"
		"tierd_bpf_samples_total{cgroup=\"/w\\\"x\\\\y\",tier=\"0\"} 2\n"
		"tierd_bpf_samples_total{cgroup=\"/w\\\"x\\\\y\",tier=\"1\"} 1000\n"
		"# HELP tierd_bpf_dropped_total Hint faults the cgroup's in-kernel token bucket kept from tierd, by tier.\n"
		"# TYPE tierd_bpf_dropped_total counter\n"
		"tierd_bpf_dropped_total{cgroup=\"/w\\\"x\\\\y\",tier=\"0\"} 1\n"
		"tierd_bpf_dropped_total{cgroup=\"/w\\\"x\\\\y\",tier=\"1\"} 200\n"
		"# HELP tierd_bpf_samples_read_total Ring-buffer records tierd consumed.\n"
		"# TYPE tierd_bpf_samples_read_total counter\n"
		"tierd_bpf_samples_read_total 1002\n"
		"# HELP tierd_bpf_samples_lost_total Ring-buffer records consumed but not kept: the tick's sample buffer was full.\n"
		"# TYPE tierd_bpf_samples_lost_total counter\n"
		"tierd_bpf_samples_lost_total 6\n"
		"# HELP tierd_bpf_unmanaged_faults_total Hint faults of cgroups tierd does not manage.\n"
		"# TYPE tierd_bpf_unmanaged_faults_total counter\n"
		"tierd_bpf_unmanaged_faults_total 77\n"
		"# HELP tierd_sample_promotions_pages_total Sampled pages tierd asked move_pages(2) to promote, by target tier: tried, moved (succeeded) and not moved (failed).\n"
		"# TYPE tierd_sample_promotions_pages_total counter\n"
		"tierd_sample_promotions_pages_total{target_tier=\"0\",result=\"tried\"} 500\n"
		"tierd_sample_promotions_pages_total{target_tier=\"0\",result=\"succeeded\"} 480\n"
		"tierd_sample_promotions_pages_total{target_tier=\"0\",result=\"failed\"} 20\n"
		"tierd_sample_promotions_pages_total{target_tier=\"1\",result=\"tried\"} 8\n"
		"tierd_sample_promotions_pages_total{target_tier=\"1\",result=\"succeeded\"} 8\n"
		"tierd_sample_promotions_pages_total{target_tier=\"1\",result=\"failed\"} 0\n"
		"# HELP tierd_sample_promote_batches_total move_pages(2) batches of sampled promotions run off the tick's thread.\n"
		"# TYPE tierd_sample_promote_batches_total counter\n"
		"tierd_sample_promote_batches_total 41\n"
		"# HELP tierd_sample_promote_busy_ticks_total Ticks whose sampled promotions waited: the last batch still ran.\n"
		"# TYPE tierd_sample_promote_busy_ticks_total counter\n"
		"tierd_sample_promote_busy_ticks_total 3\n"
		"# HELP tierd_sample_promote_deadline_hits_total Batches stopped at their deadline (half the tick interval); the rest waits for the next.\n"
		"# TYPE tierd_sample_promote_deadline_hits_total counter\n"
		"tierd_sample_promote_deadline_hits_total 2\n"
		"# HELP tierd_sample_promote_batch_seconds How long the last batch ran.\n"
		"# TYPE tierd_sample_promote_batch_seconds gauge\n"
		"tierd_sample_promote_batch_seconds 0.001500\n"
		"# HELP tierd_sample_promote_batch_max_seconds The longest batch since start.\n"
		"# TYPE tierd_sample_promote_batch_max_seconds gauge\n"
		"tierd_sample_promote_batch_max_seconds 0.612345\n"
		"# HELP tierd_policies_loaded "));
	CHECK(text && !strstr(text, "not-sampled\",tier="));
	/* The kernel's own migrations, by reason, last. */
	CHECK(text && strstr(text,
		"tierd_ticks_total 0\n"
		"# HELP tierd_tick_overruns_total Tick slots skipped because the tick before ran past them (ticks keep a fixed rate).\n"
		"# TYPE tierd_tick_overruns_total counter\n"
		"tierd_tick_overruns_total 3\n"
		"# HELP tierd_kernel_migrated_pages_total Pages the kernel migrated (migrate:mm_migrate_pages), every cgroup, by reason: succeeded and failed.\n"
		"# TYPE tierd_kernel_migrated_pages_total counter\n"
		"tierd_kernel_migrated_pages_total{reason=\"compaction\",result=\"succeeded\"} 0\n"));
	CHECK(text && strstr(text,
		"\ntierd_kernel_migrated_pages_total{reason=\"numa_misplaced\",result=\"succeeded\"} 250\n"
		"tierd_kernel_migrated_pages_total{reason=\"numa_misplaced\",result=\"failed\"} 0\n"));
	CHECK(text && strstr(text,
		"\ntierd_kernel_migrated_pages_total{reason=\"demotion\",result=\"succeeded\"} 4096\n"
		"tierd_kernel_migrated_pages_total{reason=\"demotion\",result=\"failed\"} 3\n"
		"tierd_kernel_migrated_pages_total{reason=\"damon\",result=\"succeeded\"} 0\n"
		"tierd_kernel_migrated_pages_total{reason=\"damon\",result=\"failed\"} 0\n"));
	free(text);

	/* Off, nothing sampled: the mode and the sampler-wide series at zero,
	 * the per-cgroup families empty. */
	memset(&rep.bpf, 0, sizeof(rep.bpf));
	cgroups[1].bpf_sampled = false;
	text = NULL;
	CHECK_EQ_INT(tierd_metrics_format(&in, &text), 0);
	CHECK(text && strstr(text, "\ntierd_bpf_mode{mode=\"off\"} 1\n"));
	CHECK(text && strstr(text, "\ntierd_bpf_mode{mode=\"running\"} 0\n"));
	CHECK(text && strstr(text, "# TYPE tierd_bpf_samples_total counter\n"
				   "# HELP tierd_bpf_dropped_total "));
	CHECK(text && !strstr(text, "tierd_bpf_samples_total{"));
	CHECK(text && strstr(text, "\ntierd_bpf_samples_read_total 0\n"));
	CHECK(text && !strstr(text, "tierd_kernel_migrated_pages_total"));
	CHECK(text && strstr(text, "\ntierd_sample_promotions_pages_total{target_tier=\"1\",result=\"failed\"} 0\n"));
	free(text);
}

int main(void)
{
	test_json_round_trip();
	test_json_old_release();
	test_json_malformed();
	test_json_unterminated();
	test_bpf_mode_names();
	test_bpf_json_round_trip();
	test_bpf_json_malformed();
	test_bpf_json_cgroup_malformed();
	test_metrics();
	test_bpf_metrics();
	return tierd_test_finish();
}
