/* The pure core: node sets, units, the JSON locator, the budget engine,
 * metrics formatting; and cgroupfs reads of a cgroup removed between listing
 * and reading. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "../policy/strategy.h"
#include "log_capture.h"
#include "../controller/cgroup_watch.h"
#include "../controller/cgroupfs.h"
#include "../controller/metrics.h"
#include "../policy/budget_bucket.h"
#include "../policy/cold_spans.h"
#include "../policy/engine.h"
#include "../policy/strategy_params.h"
#include "../config/json_locate.h"
#include "../policy/pool_need.h"
#include "../policy/units.h"

TIERD_TEST_MAIN_COUNTS;

#define MIB (1024ull * 1024)
#define GIB (1024 * MIB)

static void test_nodeset(void)
{
	struct tierd_nodeset s;
	char buf[64];

	CHECK_EQ_INT(tierd_nodeset_parse("0-2,5,7-8\n", &s), 0);
	CHECK_EQ_INT(tierd_nodeset_count(&s), 6);
	CHECK(tierd_nodeset_has(&s, 1) && !tierd_nodeset_has(&s, 3) && tierd_nodeset_has(&s, 8));
	CHECK_EQ_INT(tierd_nodeset_format(&s, buf, sizeof(buf)), 9);
	CHECK_EQ_STR(buf, "0-2,5,7-8");
	CHECK_EQ_INT(tierd_nodeset_parse("", &s), 0);
	CHECK(tierd_nodeset_empty(&s));
	CHECK_EQ_INT(tierd_nodeset_parse("\n", &s), 0);
	CHECK_EQ_INT(tierd_nodeset_format(&s, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "");
	CHECK_EQ_INT(tierd_nodeset_parse("3-1", &s), -EINVAL);
	CHECK_EQ_INT(tierd_nodeset_parse("1,", &s), -EINVAL);
	CHECK_EQ_INT(tierd_nodeset_parse("a", &s), -EINVAL);
	CHECK_EQ_INT(tierd_nodeset_parse("1 2", &s), -EINVAL);
	CHECK_EQ_INT(tierd_nodeset_parse("1024", &s), -ERANGE);
	CHECK_EQ_INT(tierd_nodeset_parse("1023", &s), 0);
	CHECK_EQ_INT(tierd_nodeset_next(&s, -1), 1023);
	CHECK_EQ_INT(tierd_nodeset_format(&s, buf, 3), -ENOSPC);
}

static void test_units(void)
{
	uint64_t v = 0;
	uint32_t pmy = 0;
	const char *rest;
	char buf[32];

	CHECK_EQ_INT(tierd_parse_bytes("512M", &v), 0);
	CHECK_EQ_U64(v, 512 * MIB);
	CHECK_EQ_INT(tierd_parse_bytes("4G", &v), 0);
	CHECK_EQ_U64(v, 4 * GIB);
	CHECK_EQ_INT(tierd_parse_bytes("4GiB", &v), 0);
	CHECK_EQ_U64(v, 4 * GIB);
	CHECK_EQ_INT(tierd_parse_bytes("1KB", &v), 0);
	CHECK_EQ_U64(v, 1024);
	CHECK_EQ_INT(tierd_parse_bytes("123", &v), 0);
	CHECK_EQ_U64(v, 123);
	CHECK_EQ_INT(tierd_parse_bytes("16E", &v), -ERANGE);
	CHECK_EQ_INT(tierd_parse_bytes("18446744073709551616", &v), -ERANGE);
	CHECK_EQ_INT(tierd_parse_bytes("", &v), -EINVAL);
	CHECK_EQ_INT(tierd_parse_bytes("1.5G", &v), -EINVAL);
	CHECK_EQ_INT(tierd_parse_bytes("1g", &v), -EINVAL);
	CHECK_EQ_INT(tierd_parse_bytes("-1", &v), -EINVAL);
	CHECK_EQ_INT(tierd_parse_bytes("1GX", &v), -EINVAL);

	CHECK_EQ_INT(tierd_parse_percent("25%", &pmy, &rest), 0);
	CHECK_EQ_INT(pmy, 2500);
	CHECK_EQ_STR(rest, "");
	CHECK_EQ_INT(tierd_parse_percent("12.5%capacity", &pmy, &rest), 0);
	CHECK_EQ_INT(pmy, 1250);
	CHECK_EQ_STR(rest, "capacity");
	CHECK_EQ_INT(tierd_parse_percent("0.01%", &pmy, &rest), 0);
	CHECK_EQ_INT(pmy, 1);
	CHECK_EQ_INT(tierd_parse_percent("100%", &pmy, &rest), 0);
	CHECK_EQ_INT(pmy, 10000);
	CHECK_EQ_INT(tierd_parse_percent("100.01%", &pmy, &rest), -ERANGE);
	CHECK_EQ_INT(tierd_parse_percent("1.234%", &pmy, &rest), -EINVAL);
	CHECK_EQ_INT(tierd_parse_percent("1.%", &pmy, &rest), -EINVAL);
	CHECK_EQ_INT(tierd_parse_percent("25", &pmy, &rest), -EINVAL);

	CHECK_EQ_INT(tierd_parse_duration("10s", &v), 0);
	CHECK_EQ_U64(v, 10000000);
	CHECK_EQ_INT(tierd_parse_duration("250ms", &v), 0);
	CHECK_EQ_U64(v, 250000);
	CHECK_EQ_INT(tierd_parse_duration("7us", &v), 0);
	CHECK_EQ_U64(v, 7);
	CHECK_EQ_INT(tierd_parse_duration("2m", &v), 0);
	CHECK_EQ_U64(v, 120000000);
	CHECK_EQ_INT(tierd_parse_duration("1h", &v), 0);
	CHECK_EQ_U64(v, 3600000000ull);
	CHECK_EQ_INT(tierd_parse_duration("10", &v), -EINVAL);
	CHECK_EQ_INT(tierd_parse_duration("10 s", &v), -EINVAL);

	tierd_format_bytes(512 * MIB, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "512.0M");
	tierd_format_bytes(1023, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "1023B");
	tierd_format_bytes(1536, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "1.5K");
}

static void test_locate(void)
{
	const char *text = "{\n  \"a\": 1,\n  \"b\": [ {\"c\": \"x\"}, 2 ],\n  \"a\": 3\n}";
	struct tierd_json_locs locs;
	int line, col;

	CHECK_EQ_INT(tierd_json_locate(text, strlen(text), &locs), 0);
	tierd_json_line_col(text, strlen(text), tierd_json_locs_find(&locs, "b[0].c"), &line, &col);
	CHECK_EQ_INT(line, 3);
	CHECK_EQ_INT(col, 16);
	tierd_json_line_col(text, strlen(text), tierd_json_locs_find(&locs, "b[1]"), &line, &col);
	CHECK_EQ_INT(line, 3);
	CHECK_EQ_INT(col, 22);
	tierd_json_line_col(text, strlen(text), tierd_json_locs_find_key(&locs, "b"), &line, &col);
	CHECK_EQ_INT(line, 3);
	CHECK_EQ_INT(col, 3);
	tierd_json_line_col(text, strlen(text), tierd_json_locs_find_key(&locs, "b[1]"), &line, &col);
	CHECK_EQ_INT(col, 22);
	/* Not present: the nearest parent. */
	tierd_json_line_col(text, strlen(text), tierd_json_locs_find(&locs, "b[0].zz"), &line, &col);
	CHECK_EQ_INT(line, 3);
	CHECK_EQ_INT(col, 10);
	/* The duplicate key, located at its last (winning) occurrence. */
	CHECK_EQ_INT(locs.nr_duplicates, 1);
	CHECK_EQ_STR(locs.duplicates[0], "a");
	tierd_json_line_col(text, strlen(text), tierd_json_locs_find(&locs, "a"), &line, &col);
	CHECK_EQ_INT(line, 4);
	CHECK_EQ_INT(col, 8);
	tierd_json_locs_free(&locs);

	/* Duplicates are found among one object's keys, at any depth; the
	 * second value's children are not recorded a second time. */
	text = "{\"o\": {\"k\": 1, \"k\": 2}, \"a\": {\"x\": 1}, \"a\": {\"x\": 2}}";
	CHECK_EQ_INT(tierd_json_locate(text, strlen(text), &locs), 0);
	CHECK_EQ_INT(locs.nr_duplicates, 2);
	if (locs.nr_duplicates == 2) {
		CHECK_EQ_STR(locs.duplicates[0], "o.k");
		CHECK_EQ_STR(locs.duplicates[1], "a");
	}
	CHECK_EQ_U64(tierd_json_locs_find(&locs, "o.k"), 20);
	CHECK_EQ_U64(tierd_json_locs_find_key(&locs, "a"), 39);
	CHECK_EQ_U64(tierd_json_locs_find(&locs, "a.x"), 35);
	tierd_json_locs_free(&locs);
}

/* Four 1 GiB tiers, one node each; tier t has free[t] bytes free. */
static void four_tiers(struct tierd_topology *topo, const uint64_t *free_bytes)
{
	struct tierd_nodeset sets[4];
	char err[128];

	memset(topo, 0, sizeof(*topo));
	topo->nr_nodes = 4;
	for (int i = 0; i < 4; i++) {
		topo->nodes[i] = (struct tierd_node){ .nid = i, .total_bytes = GIB,
						      .free_bytes = free_bytes[i] };
		tierd_nodeset_clear(&sets[i]);
		(void)tierd_nodeset_add(&sets[i], i);
	}
	if (tierd_topology_assign_tiers(topo, sets, NULL, 4, TIERD_TIERS_CONFIG, err, sizeof(err)))
		abort();
}

static struct tierd_policy budget_policy(const char *name, uint64_t max0)
{
	struct tierd_policy p = { 0 };

	snprintf(p.name, sizeof(p.name), "%s", name);
	p.nr_tiers = 1;
	p.tiers[0] = (struct tierd_tier_budget){ .selector = TIERD_SELECT_INDEX, .index = 0,
						 .max = { .kind = TIERD_AMOUNT_BYTES, .bytes = max0 } };
	return p;
}

static struct tierd_engine_input engine_input(const struct tierd_topology *topo,
					      const struct tierd_engine_cgroup *cg, size_t n,
					      uint64_t now, uint64_t budget)
{
	return (struct tierd_engine_input){
		.now_usec = now,
		.topo = topo,
		.global_budget = { .bytes = budget, .period_usec = 10 * TIERD_USEC_PER_SEC },
		.nr_cgroups = n,
		.cgroups = cg,
	};
}

/* The bucket alone: full at first, refilled in proportion to the time
 * passed, never over its bytes (a reload that lowered them cuts it), no
 * refill when the clock goes back, a refund capped too. */
static void test_budget_bucket(void)
{
	struct tierd_migration_budget b = { .bytes = 100 * MIB, .period_usec = 10 * TIERD_USEC_PER_SEC };
	struct tierd_budget_bucket k = { 0 };

	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000), 100 * MIB);
	tierd_budget_bucket_spend(&k, 80 * MIB);
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000), 20 * MIB);
	/* 2.5 s: a quarter of 100M. */
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000 + 2500000), 45 * MIB);
	/* The clock went back a second: nothing refilled, nothing lost. */
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000 + 1500000), 45 * MIB);
	/* From there, 1 s is 10M. */
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000 + 2500000), 55 * MIB);
	tierd_budget_bucket_spend(&k, 200 * MIB);
	CHECK_EQ_U64(k.tokens, 0);
	tierd_budget_bucket_refund(&k, &b, 30 * MIB);
	CHECK_EQ_U64(k.tokens, 30 * MIB);
	tierd_budget_bucket_refund(&k, &b, 90 * MIB);
	CHECK_EQ_U64(k.tokens, 100 * MIB);
	/* Reloaded at 40M: cut down at once, refilled at 4M a second. */
	b.bytes = 40 * MIB;
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000 + 2500000), 40 * MIB);
	tierd_budget_bucket_spend(&k, 40 * MIB);
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, 5000 + 3500000), 4 * MIB);
	/* A whole period or more: full, however long. */
	CHECK_EQ_U64(tierd_budget_bucket_left(&k, &b, UINT64_MAX), 40 * MIB);
}

/* Bytes the plan moves for cgroup c. */
static uint64_t cgroup_bytes(const struct tierd_plan *plan, size_t c)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < plan->nr_actions; i++)
		if (plan->actions[i].cgroup == c)
			sum += plan->actions[i].bytes;
	return sum;
}

static void test_engine(void)
{
	const uint64_t free_bytes[4] = { 0, 512 * MIB, 512 * MIB, 100 * MIB };
	struct tierd_topology topo;
	struct tierd_cgroup_obs obs[3] = { 0 };
	struct tierd_policy pol[3];
	struct tierd_engine_cgroup cg[3];
	struct tierd_engine_input in;
	struct tierd_engine *e;
	struct tierd_plan plan;

	four_tiers(&topo, free_bytes);
	/* a: 600M on tier 0 (max 512M), b: 300M on tier 0 (max 128M),
	 * c: within budget, with a percentage min and max. */
	obs[0].anon_bytes[0] = 600 * MIB;
	obs[0].file_bytes[3] = 200 * MIB;
	obs[1].anon_bytes[0] = 300 * MIB;
	obs[2].anon_bytes[0] = 100 * MIB;
	obs[2].anon_bytes[1] = 300 * MIB;
	for (int i = 0; i < 3; i++)
		obs[i].id = 100 + (uint64_t)i;
	pol[0] = budget_policy("a", 512 * MIB);
	pol[1] = budget_policy("b", 128 * MIB);
	pol[1].has_migration_budget = true;
	pol[1].migration_budget = (struct tierd_migration_budget){ .bytes = 64 * MIB,
								   .period_usec = TIERD_USEC_PER_SEC };
	pol[2] = budget_policy("c", 0);
	pol[2].tiers[0].max = (struct tierd_amount){ .kind = TIERD_AMOUNT_PCT_USAGE, .pmy = 5000 };
	pol[2].tiers[0].has_min = true;
	pol[2].tiers[0].min = (struct tierd_amount){ .kind = TIERD_AMOUNT_PCT_CAPACITY, .pmy = 1250 };
	for (int i = 0; i < 3; i++)
		cg[i] = (struct tierd_engine_cgroup){ .obs = &obs[i], .policy = &pol[i] };

	CHECK_EQ_INT(tierd_engine_new(&e), 0);
	in = engine_input(&topo, cg, 3, 1000, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_over_budget, 2);
	CHECK_EQ_U64(plan.standings[0].usage_bytes, 800 * MIB);
	CHECK_EQ_U64(plan.standings[0].tiers[0].over_bytes, 88 * MIB);
	CHECK_EQ_U64(plan.standings[0].tiers[3].file_bytes, 200 * MIB);
	CHECK(!plan.standings[0].tiers[1].has_max);
	CHECK_EQ_U64(plan.standings[0].share_bytes[0], 512 * MIB);
	CHECK_EQ_U64(plan.standings[0].share_bytes[1], UINT64_MAX);
	CHECK_EQ_U64(plan.standings[1].tiers[0].over_bytes, 172 * MIB);
	/* c: max 50% of 400M usage = 200M, min 12.5% of 1G = 128M. */
	CHECK_EQ_U64(plan.standings[2].tiers[0].max_bytes, 200 * MIB);
	CHECK_EQ_U64(plan.standings[2].tiers[0].min_bytes, 128 * MIB);
	CHECK_EQ_U64(plan.standings[2].tiers[0].under_min_bytes, 28 * MIB);
	CHECK_EQ_U64(plan.standings[2].tiers[0].over_bytes, 0);
	CHECK(!plan.standings[2].over_budget);
	/* Staging demotion, lowest tier first, down to the max's fill line
	 * (the max less 1/64, at least 2M). a: 96M (88M over, 8M of band) go
	 * to tier 3. b: its own budget is 64M; tier 3 has 4M left, so 4M go
	 * there and the other 60M one tier up, to tier 2. */
	CHECK_EQ_INT(plan.nr_actions, 3);
	CHECK_EQ_INT(plan.actions[0].cgroup, 0);
	CHECK_EQ_INT(plan.actions[0].kind, TIERD_ACTION_DEMOTE);
	CHECK_EQ_INT(plan.actions[0].from_tier, 0);
	CHECK_EQ_INT(plan.actions[0].to_tier, 3);
	CHECK_EQ_U64(plan.actions[0].bytes, 96 * MIB);
	CHECK_EQ_INT(plan.actions[0].reason, TIERD_REASON_OVER_TIER_MAX);
	CHECK_EQ_INT(plan.actions[1].cgroup, 1);
	CHECK_EQ_INT(plan.actions[1].to_tier, 3);
	CHECK_EQ_U64(plan.actions[1].bytes, 4 * MIB);
	CHECK_EQ_INT(plan.actions[2].cgroup, 1);
	CHECK_EQ_INT(plan.actions[2].to_tier, 2);
	CHECK_EQ_U64(plan.actions[2].bytes, 60 * MIB);
	CHECK_EQ_U64(plan.planned_bytes, 160 * MIB);
	tierd_plan_free(&plan);

	/* Budgets are token buckets: half a second later b's has refilled
	 * by half of its 64M a second, 32M, which go to tier 2 after 4M to
	 * tier 3. */
	in = engine_input(&topo, cg, 3, 1000 + TIERD_USEC_PER_SEC / 2, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_actions, 3);
	CHECK_EQ_U64(cgroup_bytes(&plan, 1), 32 * MIB);
	CHECK_EQ_U64(plan.planned_bytes, 128 * MIB);
	tierd_plan_free(&plan);
	/* Another half second, another 32M; the global bucket (1G per 10 s)
	 * is nowhere near empty. */
	in = engine_input(&topo, cg, 3, 1000 + TIERD_USEC_PER_SEC, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_actions, 3);
	CHECK_EQ_U64(cgroup_bytes(&plan, 1), 32 * MIB);
	tierd_plan_free(&plan);

	/* A cgroup missing from a tick keeps its bucket: b emptied it at
	 * t = 1 s, is absent at 1.2 s, and at 1.4 s has what 0.4 s refilled
	 * (64M * 0.4, in whole pages), not a full bucket. */
	in = engine_input(&topo, cg, 1, 1000 + TIERD_USEC_PER_SEC + TIERD_USEC_PER_SEC / 5, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	tierd_plan_free(&plan);
	in = engine_input(&topo, cg, 3, 1000 + TIERD_USEC_PER_SEC + 2 * TIERD_USEC_PER_SEC / 5,
			  1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_U64(cgroup_bytes(&plan, 1), 4 * MIB + 22646784);
	tierd_plan_free(&plan);
	tierd_engine_free(e);

	/* The global budget caps the whole plan: 50M per 10 s, spent in the
	 * first tick; a millisecond later it has refilled 5,242 bytes, one
	 * page's worth. */
	CHECK_EQ_INT(tierd_engine_new(&e), 0);
	in = engine_input(&topo, cg, 3, 1000, 50 * MIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_actions, 1);
	CHECK_EQ_U64(plan.actions[0].bytes, 50 * MIB);
	CHECK_EQ_U64(plan.planned_bytes, 50 * MIB);
	tierd_plan_free(&plan);
	in = engine_input(&topo, cg, 3, 2000, 50 * MIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_actions, 1);
	CHECK_EQ_U64(plan.planned_bytes, TIERD_PAGE_BYTES);
	CHECK_EQ_INT(plan.nr_over_budget, 2);
	tierd_plan_free(&plan);
	/* A whole period later it is full again, and no fuller. */
	in = engine_input(&topo, cg, 3, 2000 + 20 * TIERD_USEC_PER_SEC, 50 * MIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_U64(plan.planned_bytes, 50 * MIB);
	tierd_plan_free(&plan);
	tierd_engine_free(e);

	/* A plan not carried out is refunded: the next tick has the whole
	 * budget again; without the refund it has none. */
	CHECK_EQ_INT(tierd_engine_new(&e), 0);
	in = engine_input(&topo, cg, 3, 1000, 50 * MIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_actions, 1);
	tierd_engine_refund(e, &in, &plan.actions[0], tierd_action_cost(&plan.actions[0]));
	tierd_plan_free(&plan);
	in = engine_input(&topo, cg, 3, 2000, 50 * MIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.nr_actions, 1);
	CHECK_EQ_U64(plan.planned_bytes, 50 * MIB);
	tierd_plan_free(&plan);
	/* b's own budget too: 64M a second, refunded, 64M again. */
	in = engine_input(&topo, cg, 3, 5000000, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	for (size_t i = 0; i < plan.nr_actions; i++)
		if (plan.actions[i].cgroup == 1)
			tierd_engine_refund(e, &in, &plan.actions[i], tierd_action_cost(&plan.actions[i]));
	tierd_plan_free(&plan);
	in = engine_input(&topo, cg, 3, 5000000 + TIERD_USEC_PER_SEC / 2, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_U64(cgroup_bytes(&plan, 1), 64 * MIB);
	tierd_plan_free(&plan);
	tierd_engine_free(e);

	/* Node-list selectors name the tier that holds the nodes. */
	{
		struct tierd_tier_budget b = { .selector = TIERD_SELECT_NODES };

		(void)tierd_nodeset_add(&b.nodes, 2);
		CHECK_EQ_INT(tierd_budget_tier(&b, &topo), 2);
		(void)tierd_nodeset_add(&b.nodes, 3);
		CHECK_EQ_INT(tierd_budget_tier(&b, &topo), -1);
		b.selector = TIERD_SELECT_INDEX;
		b.index = 4;
		CHECK_EQ_INT(tierd_budget_tier(&b, &topo), -1);
	}
}

/* Mins: "cold" fills tier 0 (900M, no budget), "hot" has 128M on tier 3,
 * 64M of it seen accessed, and a tier-0 min of 64M; tier 0 has 16M free.
 * cold_min and cold_priority vary what "cold" may give up. */
struct min_rig {
	struct tierd_topology topo;
	struct tierd_cgroup_obs obs[2];
	struct tierd_policy pol[2];
	struct tierd_region regions[3];
	struct tierd_hotness hot;
	struct tierd_engine_cgroup cg[2];
	struct tierd_engine *e;
	struct tierd_plan plan;
};

static int min_rig_plan(struct min_rig *r, uint64_t cold_min, int cold_priority,
			enum tierd_strategy hot_strategy, uint64_t cold_max, uint64_t budget,
			uint64_t hot_min1)
{
	const uint64_t free_bytes[4] = { 16 * MIB, 512 * MIB, 512 * MIB, 512 * MIB };
	const uint64_t base = 4 * GIB;
	struct tierd_engine_input in;

	memset(r, 0, sizeof(*r));
	four_tiers(&r->topo, free_bytes);
	r->obs[0].id = 1;
	r->obs[0].anon_bytes[0] = 900 * MIB;
	r->obs[1].id = 2;
	r->obs[1].anon_bytes[3] = 128 * MIB;
	snprintf(r->pol[0].name, sizeof(r->pol[0].name), "cold");
	r->pol[0].priority = cold_priority;
	if (cold_min || cold_max) {
		r->pol[0] = budget_policy("cold", cold_max ? cold_max : 1 * GIB);
		r->pol[0].priority = cold_priority;
		r->pol[0].tiers[0].has_min = cold_min > 0;
		r->pol[0].tiers[0].min = (struct tierd_amount){ .kind = TIERD_AMOUNT_BYTES,
							       .bytes = cold_min };
	}
	r->pol[1] = budget_policy("hot", 1 * GIB);
	r->pol[1].tiers[0].has_min = true;
	r->pol[1].tiers[0].min = (struct tierd_amount){ .kind = TIERD_AMOUNT_BYTES, .bytes = 64 * MIB };
	r->pol[0].strategy = TIERD_STRATEGY_NONE;
	r->pol[1].strategy = hot_strategy;
	if (hot_min1) {
		r->pol[1].nr_tiers = 2;
		r->pol[1].tiers[1] = r->pol[1].tiers[0];
		r->pol[1].tiers[1].index = 1;
		r->pol[1].tiers[1].min.bytes = hot_min1;
	}
	/* Warm, hottest, never seen accessed. */
	r->regions[0] = (struct tierd_region){ .start = base, .end = base + 32 * MIB, .tier = 3,
					       .nr_accesses = 10, .max_accesses = 20 };
	r->regions[1] = (struct tierd_region){ .start = base + 32 * MIB, .end = base + 64 * MIB,
					       .tier = 3, .nr_accesses = 20, .max_accesses = 20 };
	r->regions[2] = (struct tierd_region){ .start = base + 64 * MIB, .end = base + 128 * MIB,
					       .tier = 3, .max_accesses = 20 };
	r->hot = (struct tierd_hotness){ .nr_regions = 3, .regions = r->regions };
	r->cg[0] = (struct tierd_engine_cgroup){ .obs = &r->obs[0], .policy = &r->pol[0] };
	r->cg[1] = (struct tierd_engine_cgroup){ .obs = &r->obs[1], .policy = &r->pol[1],
						 .hot = &r->hot };
	if (tierd_engine_new(&r->e) < 0)
		abort();
	in = engine_input(&r->topo, r->cg, 2, 1000, budget);
	return tierd_engine_plan(r->e, &in, &r->plan);
}

static void min_rig_free(struct min_rig *r)
{
	tierd_plan_free(&r->plan);
	tierd_engine_free(r->e);
}

static void test_min_protection(void)
{
	const uint64_t base = 4 * GIB;
	struct min_rig r;

	/* 48M of cold's coldest memory to the lowest tier makes room; then
	 * hot's accessed regions, hottest first; the unaccessed one stays. */
	CHECK_EQ_INT(min_rig_plan(&r, 0, 0, TIERD_STRATEGY_NONE, 0, 1 * GIB, 0), 0);
	CHECK_EQ_U64(r.plan.standings[1].tiers[0].under_min_bytes, 64 * MIB);
	CHECK_EQ_INT(r.plan.nr_actions, 3);
	CHECK_EQ_INT(r.plan.actions[0].kind, TIERD_ACTION_DEMOTE);
	CHECK_EQ_INT(r.plan.actions[0].reason, TIERD_REASON_MIN_ROOM_DEMOTION);
	CHECK_EQ_INT(r.plan.actions[0].cgroup, 0);
	CHECK_EQ_INT(r.plan.actions[0].from_tier, 0);
	CHECK_EQ_INT(r.plan.actions[0].to_tier, 3);
	CHECK_EQ_U64(r.plan.actions[0].bytes, 48 * MIB);
	CHECK_EQ_INT(r.plan.actions[1].kind, TIERD_ACTION_MIGRATE);
	CHECK_EQ_INT(r.plan.actions[1].reason, TIERD_REASON_MIN_PROTECTION);
	CHECK_EQ_INT(r.plan.actions[1].cgroup, 1);
	CHECK_EQ_INT(r.plan.actions[1].from_tier, 3);
	CHECK_EQ_INT(r.plan.actions[1].to_tier, 0);
	CHECK_EQ_U64(r.plan.actions[1].start, base + 32 * MIB);
	CHECK_EQ_U64(r.plan.actions[1].end, base + 64 * MIB);
	CHECK_EQ_U64(r.plan.actions[2].start, base);
	CHECK_EQ_U64(r.plan.actions[2].end, base + 32 * MIB);
	CHECK_EQ_U64(r.plan.planned_bytes, 112 * MIB);
	CHECK_EQ_STR(tierd_reason_name(TIERD_REASON_MIN_ROOM_DEMOTION), "min-room-demotion");
	min_rig_free(&r);

	/* cold keeps its own 900M min: only the free 16M, of the hottest. */
	CHECK_EQ_INT(min_rig_plan(&r, 900 * MIB, 0, TIERD_STRATEGY_NONE, 0, 1 * GIB, 0), 0);
	CHECK_EQ_INT(r.plan.nr_actions, 1);
	CHECK_EQ_INT(r.plan.actions[0].reason, TIERD_REASON_MIN_PROTECTION);
	CHECK_EQ_U64(r.plan.actions[0].start, base + 32 * MIB);
	CHECK_EQ_U64(r.plan.actions[0].end, base + 48 * MIB);
	min_rig_free(&r);

	/* Half of it may go: 450M above a 450M min is plenty for the 48M. */
	CHECK_EQ_INT(min_rig_plan(&r, 450 * MIB, 0, TIERD_STRATEGY_NONE, 0, 1 * GIB, 0), 0);
	CHECK_EQ_INT(r.plan.nr_actions, 3);
	CHECK_EQ_U64(r.plan.actions[0].bytes, 48 * MIB);
	min_rig_free(&r);

	/* A cgroup of a higher priority gives nothing up for a min. */
	CHECK_EQ_INT(min_rig_plan(&r, 0, 10, TIERD_STRATEGY_NONE, 0, 1 * GIB, 0), 0);
	CHECK_EQ_INT(r.plan.nr_actions, 1);
	CHECK_EQ_U64(r.plan.actions[0].bytes, 16 * MIB);
	min_rig_free(&r);

	/* cold 772M over a 128M max, a 100M budget: enforcement leaves hot's
	 * 64M shortfall, but never more than half, so 50M of cold go; that is
	 * room enough, and 50M of hot's hottest come up: all 32M of the
	 * hottest region, 18M of the next. */
	CHECK_EQ_INT(min_rig_plan(&r, 0, 0, TIERD_STRATEGY_NONE, 128 * MIB, 100 * MIB, 0), 0);
	CHECK_EQ_INT(r.plan.nr_actions, 3);
	CHECK_EQ_INT(r.plan.actions[0].reason, TIERD_REASON_OVER_TIER_MAX);
	CHECK_EQ_U64(r.plan.actions[0].bytes, 50 * MIB);
	CHECK_EQ_INT(r.plan.actions[1].reason, TIERD_REASON_MIN_PROTECTION);
	CHECK_EQ_U64(r.plan.actions[1].start, base + 32 * MIB);
	CHECK_EQ_U64(r.plan.actions[1].bytes, 32 * MIB);
	CHECK_EQ_U64(r.plan.actions[2].start, base);
	CHECK_EQ_U64(r.plan.actions[2].bytes, 18 * MIB);
	CHECK_EQ_U64(r.plan.planned_bytes, 100 * MIB);
	min_rig_free(&r);

	/* A 64M budget pays for the room too: with 16M free, 24M of cold go
	 * and 40M of hot come up, not 64M of room and nothing moved up. */
	CHECK_EQ_INT(min_rig_plan(&r, 0, 0, TIERD_STRATEGY_NONE, 0, 64 * MIB, 0), 0);
	CHECK_EQ_INT(r.plan.nr_actions, 3);
	CHECK_EQ_INT(r.plan.actions[0].reason, TIERD_REASON_MIN_ROOM_DEMOTION);
	CHECK_EQ_U64(r.plan.actions[0].bytes, 24 * MIB);
	CHECK_EQ_U64(r.plan.actions[1].bytes, 32 * MIB);
	CHECK_EQ_U64(r.plan.actions[2].start, base);
	CHECK_EQ_U64(r.plan.actions[2].bytes, 8 * MIB);
	CHECK_EQ_U64(r.plan.planned_bytes, 64 * MIB);
	min_rig_free(&r);

	/* Mins on tiers 0 and 1: what tier 0's min promoted is not promoted
	 * again to tier 1, and the unaccessed region stays. */
	CHECK_EQ_INT(min_rig_plan(&r, 0, 0, TIERD_STRATEGY_NONE, 0, 1 * GIB, 64 * MIB), 0);
	CHECK_EQ_INT(r.plan.nr_actions, 3);
	for (size_t i = 0; i < r.plan.nr_actions; i++)
		CHECK(r.plan.actions[i].to_tier != 1);
	CHECK_EQ_U64(r.plan.planned_bytes, 112 * MIB);
	min_rig_free(&r);

	/* Under mole, which plans after the min: 64M reach tier 0, and mole
	 * plans no range the min moved. */
	CHECK_EQ_INT(min_rig_plan(&r, 0, 0, TIERD_STRATEGY_MOLE, 0, 1 * GIB, 0), 0);
	{
		uint64_t promoted = 0;
		size_t overlaps = 0;

		for (size_t i = 0; i < r.plan.nr_actions; i++) {
			const struct tierd_action *a = &r.plan.actions[i];

			if (a->cgroup != 1 || a->to_tier != 0)
				continue;
			promoted += a->bytes;
			for (size_t j = 0; j < i; j++)
				overlaps += r.plan.actions[j].cgroup == 1 &&
					    r.plan.actions[j].kind == TIERD_ACTION_MIGRATE &&
					    r.plan.actions[j].start < a->end && a->start < r.plan.actions[j].end;
		}
		CHECK_EQ_U64(promoted, 64 * MIB);
		CHECK_EQ_U64(overlaps, 0);
	}
	min_rig_free(&r);
}

/* Cgroups a and b (obs ids 1 and 2), both in the pool, no tier budgets,
 * over four 1 GiB tiers with free[t] bytes free, and an engine. */
struct pool_rig {
	struct tierd_topology topo;
	struct tierd_cgroup_obs obs[2];
	struct tierd_policy pol[2];
	struct tierd_engine_cgroup cg[2];
	struct tierd_engine_input in;
	struct tierd_engine *e;
	struct tierd_plan plan;
};

static void pool_rig_init(struct pool_rig *r, const uint64_t *free_bytes)
{
	memset(r, 0, sizeof(*r));
	four_tiers(&r->topo, free_bytes);
	for (int i = 0; i < 2; i++) {
		r->obs[i].id = (uint64_t)i + 1;
		r->pol[i] = budget_policy(i ? "b" : "a", 0);
		r->pol[i].nr_tiers = 0;
		r->pol[i].sharing = TIERD_SHARING_POOL;
		r->cg[i] = (struct tierd_engine_cgroup){ .obs = &r->obs[i], .policy = &r->pol[i] };
	}
	r->in = engine_input(&r->topo, r->cg, 2, 1000, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_new(&r->e), 0);
}

/* In pool mode a tier-0 max stays a hard cap on the pool share. */
static void test_pool_capped_by_max(void)
{
	const uint64_t free_bytes[4] = { 0, 1 * GIB, 1 * GIB, 1 * GIB };
	struct pool_rig r;

	pool_rig_init(&r, free_bytes);
	r.obs[0].anon_bytes[0] = 300 * MIB;
	r.pol[0] = budget_policy("a", 100 * MIB);
	r.pol[0].sharing = TIERD_SHARING_POOL;
	CHECK_EQ_INT(tierd_engine_plan(r.e, &r.in, &r.plan), 0);
	/* Pool 100M + 512M; floors 75M and 384M; a wants 225M above its floor
	 * and gets the 153M left (228M), capped at its 100M max. */
	CHECK_EQ_U64(r.plan.standings[0].share_bytes[0], 100 * MIB);
	CHECK_EQ_U64(r.plan.standings[1].share_bytes[0], 384 * MIB);
	tierd_plan_free(&r.plan);
	tierd_engine_free(r.e);
}

/* A pool member's need covers what its readings of the last
 * TIERD_POOL_NEED_USEC of monitoring saw accessed: one reading that missed
 * hot regions does not take its share away (the VM's pool scenario flapped
 * 628/474 MiB so); a need that stays lower is followed once that time has
 * passed. Regions that name no window count DAMON's default, 100 ms: 48
 * readings. */
static void test_pool_need_rounds(void)
{
	const uint64_t free_bytes[4] = { 1 * GIB, 1 * GIB, 1 * GIB, 1 * GIB };
	struct tierd_region regions[2] = {
		{ .start = 0, .end = 450 * MIB, .nr_accesses = 5 },
		{ .start = 450 * MIB, .end = 600 * MIB, .nr_accesses = 5 },
	};
	struct tierd_hotness hot = { .nr_regions = 2, .regions = regions };
	struct pool_rig r;

	pool_rig_init(&r, free_bytes);
	r.cg[0].hot = &hot;
	/* Pool 1G, floors 384M each; a needs 600M and gets it. */
	CHECK_EQ_INT(tierd_engine_plan(r.e, &r.in, &r.plan), 0);
	CHECK_EQ_U64(r.plan.standings[0].share_bytes[0], 600 * MIB);
	CHECK_EQ_U64(r.plan.standings[1].share_bytes[0], 384 * MIB);
	tierd_plan_free(&r.plan);
	/* Readings that saw only 450M hot: the share holds for 47 more
	 * ticks, then follows. */
	regions[1].nr_accesses = 0;
	for (int tick = 1; tick < 48; tick++) {
		r.in.now_usec += TIERD_USEC_PER_SEC;
		CHECK_EQ_INT(tierd_engine_plan(r.e, &r.in, &r.plan), 0);
		CHECK_EQ_U64(r.plan.standings[0].share_bytes[0], 600 * MIB);
		tierd_plan_free(&r.plan);
	}
	r.in.now_usec += TIERD_USEC_PER_SEC;
	CHECK_EQ_INT(tierd_engine_plan(r.e, &r.in, &r.plan), 0);
	CHECK_EQ_U64(r.plan.standings[0].share_bytes[0], 450 * MIB);
	tierd_plan_free(&r.plan);
	tierd_engine_free(r.e);
}

/* A region of need tests: [start, end) MiB, accessed or not, in a reading
 * of HMM-V's window (600 ms), so that 8 readings cover the need's time. */
static struct tierd_region need_region(uint64_t start_mib, uint64_t end_mib, uint32_t accesses)
{
	return (struct tierd_region){ .start = start_mib * MIB, .end = end_mib * MIB,
				      .nr_accesses = accesses,
				      .aggr_usec = TIERD_POOL_NEED_WINDOW_USEC };
}

/* The need is the union of the readings, not the largest: a hot set whose
 * halves are seen accessed in turn needs all of it; overlaps count once;
 * regions come in any order (one tier's after another's). */
static void test_pool_need_union(void)
{
	struct tierd_region r[3];
	struct tierd_hotness hot = { .regions = r };
	struct tierd_pool_need n = { 0 };
	uint64_t bytes = 0;

	r[0] = need_region(300, 400, 2);
	r[1] = need_region(0, 100, 1);
	r[2] = need_region(100, 300, 0);
	hot.nr_regions = 3;
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 200 * MIB);
	r[0].nr_accesses = r[1].nr_accesses = 0;
	r[2].nr_accesses = 3;
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 400 * MIB);
	/* [50M, 350M) overlaps all three: still 400M. */
	r[0] = need_region(0, 50, 0);
	r[1] = need_region(50, 350, 1);
	r[2] = need_region(350, 400, 0);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 400 * MIB);
	/* Nothing accessed for the rest of the 8 windows: the first two
	 * readings drop out in turn, [50M, 350M) last. */
	r[1].nr_accesses = 0;
	for (unsigned i = 3; i < TIERD_POOL_NEED_WINDOWS; i++)
		CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 400 * MIB);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 300 * MIB);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 300 * MIB);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 0);
	tierd_pool_need_free(&n);
}

/* Readings are kept by the time they watched, the shortest window of each:
 * after a 600 ms reading that saw [0, 100M), readings of 100 ms (a 600 ms
 * region beside a 100 ms one) keep it for 47 more. A reading of 2.4 s
 * covers half the time at once (with 24 of 100 ms: 25 kept), two cover
 * all of it. At 20 ms windows the 64 readings kept at most cover 1.28 s. */
static void test_pool_need_windows(void)
{
	struct tierd_region r[3] = { need_region(0, 100, 1), need_region(500, 600, 0),
				     need_region(700, 800, 0) };
	struct tierd_hotness hot = { .regions = r, .nr_regions = 2 };
	struct tierd_pool_need n = { 0 };
	uint64_t bytes = 0;

	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 100 * MIB);
	r[0].nr_accesses = 0;
	r[1].nr_accesses = 1;
	r[2].aggr_usec = 100000;
	hot.nr_regions = 3;
	for (int i = 0; i < 47; i++)
		CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 200 * MIB);
	CHECK_EQ_U64(n.nr, 48);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 100 * MIB);
	CHECK_EQ_U64(n.nr, 48);
	/* 2.4 s, then 2.4 s more: two readings are all the time there is. */
	r[0] = (struct tierd_region){ .start = 0, .end = 10 * MIB, .nr_accesses = 1 };
	r[1].nr_accesses = 0;
	for (int i = 0; i < 3; i++)
		r[i].aggr_usec = TIERD_POOL_NEED_USEC / 2;
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(n.nr, 25);
	CHECK_EQ_U64(bytes, 110 * MIB);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(n.nr, 2);
	CHECK_EQ_U64(bytes, 10 * MIB);
	for (int i = 0; i < 3; i++)
		r[i].aggr_usec = 20000;
	for (int i = 0; i < 100; i++)
		CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(n.nr, TIERD_POOL_NEED_MAX_ROUNDS);
	CHECK_EQ_U64(bytes, 10 * MIB);
	tierd_pool_need_free(&n);
}

/* Only what lies where the cgroup's memory is now counts: 100M seen
 * accessed on a slow node, then moved to [500M, 600M) and seen there, is
 * 100M of need, not 200M; back where it was, the old reading counts again. */
static void test_pool_need_footprint(void)
{
	struct tierd_region r = need_region(0, 100, 1);
	struct tierd_hotness hot = { .nr_regions = 1, .regions = &r };
	struct tierd_pool_need n = { 0 };
	uint64_t bytes = 0;

	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 100 * MIB);
	r = need_region(500, 600, 1);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 100 * MIB);
	r = need_region(0, 600, 0);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 200 * MIB);
	/* Half of it gone: [50M, 550M) holds 50M of each old span. */
	r = need_region(50, 550, 0);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 100 * MIB);
	tierd_pool_need_free(&n);
}

/* A reading given again (the daemon's DAMON collect ran late) is no new
 * one: however many ticks repeat it, the distinct readings before it stay
 * in the union (the VM's pool scenario fell from 628 to 377 MiB while
 * readings were late). */
static void test_pool_need_repeated(void)
{
	struct tierd_region r[2] = { need_region(0, 300, 1), need_region(500, 600, 0) };
	struct tierd_hotness hot = { .nr_regions = 2, .regions = r };
	struct tierd_pool_need n = { 0 };
	uint64_t bytes = 0;

	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 300 * MIB);
	r[0].nr_accesses = 0;
	r[1].nr_accesses = 1;
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 400 * MIB);
	hot.regions_repeated = true;
	for (unsigned i = 0; i < 3 * TIERD_POOL_NEED_MAX_ROUNDS; i++)
		CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 400 * MIB);
	CHECK_EQ_U64(n.nr, 2);
	/* Fresh again: the first reading leaves after 6 more fresh ones. */
	hot.regions_repeated = false;
	for (unsigned i = 2; i < TIERD_POOL_NEED_WINDOWS; i++)
		CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 400 * MIB);
	CHECK_EQ_INT(tierd_pool_need_update(&n, &hot, &bytes), 0);
	CHECK_EQ_U64(bytes, 100 * MIB);
	tierd_pool_need_free(&n);
}

/* A strategy's proposals go through the engine: the linux baseline promotes
 * sampled slow-tier pages to tier 0, within the global budget, and the plan
 * names the rule. */
static void test_engine_strategy(void)
{
	const uint64_t free_bytes[4] = { 1 * MIB, 1 * MIB, 1 * MIB, 1 * MIB };
	struct tierd_topology topo;
	struct tierd_cgroup_obs obs = { .id = 7 };
	struct tierd_policy pol = { .strategy = TIERD_STRATEGY_LINUX };
	struct tierd_sample samples[3];
	struct tierd_hotness hot = { .nr_samples = 3, .samples = samples };
	struct tierd_engine_cgroup cg = { .obs = &obs, .policy = &pol, .hot = &hot };
	struct tierd_engine_input in;
	struct tierd_engine *e;
	struct tierd_plan plan;
	enum tierd_strategy which = TIERD_STRATEGY_NONE;

	four_tiers(&topo, free_bytes);
	obs.anon_bytes[3] = 1 * MIB;
	for (int i = 0; i < 3; i++)
		samples[i] = (struct tierd_sample){ .addr = 0x100000 + (uint64_t)i * TIERD_PAGE_BYTES,
						    .tier = 3, .time_usec = 5 * TIERD_USEC_PER_SEC,
						    .interval_usec = 100 * TIERD_USEC_PER_MSEC };
	CHECK_EQ_INT(tierd_engine_new(&e), 0);
	in = engine_input(&topo, &cg, 1, 5 * TIERD_USEC_PER_SEC, 2 * TIERD_PAGE_BYTES);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.standings[0].strategy_error, 0);
	CHECK_EQ_INT(plan.nr_actions, 2);
	for (size_t i = 0; i < plan.nr_actions && i < 2; i++) {
		CHECK_EQ_INT(plan.actions[i].kind, TIERD_ACTION_MIGRATE);
		CHECK_EQ_STR(tierd_reason_name(plan.actions[i].reason), "fault-promotion");
		CHECK_EQ_INT(plan.actions[i].from_tier, 3);
		CHECK_EQ_INT(plan.actions[i].to_tier, 0);
		CHECK_EQ_U64(plan.actions[i].start, 0x100000 + i * TIERD_PAGE_BYTES);
		CHECK_EQ_U64(plan.actions[i].bytes, TIERD_PAGE_BYTES);
	}
	CHECK_EQ_U64(plan.planned_bytes, 2 * TIERD_PAGE_BYTES);
	CHECK(tierd_engine_strategy_state(e, 7, &which) != NULL);
	CHECK_EQ_INT(which, TIERD_STRATEGY_LINUX);
	CHECK(tierd_engine_strategy_state(e, 8, &which) == NULL);
	tierd_plan_free(&plan);

	/* A cgroup over its tier-0 max is demoted before its strategy runs,
	 * and the strategy cannot promote into a tier it is over beyond what
	 * it demotes of it in the same plan (linux's kswapd demotes: tier 0
	 * is below its watermark): an exchange, never a crossing. The
	 * demotion goes to the fill line: a 256K max keeps a page as its
	 * band. */
	pol.nr_tiers = 1;
	pol.tiers[0] = (struct tierd_tier_budget){ .selector = TIERD_SELECT_INDEX, .index = 0,
						   .max = { .kind = TIERD_AMOUNT_BYTES,
							    .bytes = 256 * 1024 } };
	obs.anon_bytes[0] = 512 * 1024;
	in = engine_input(&topo, &cg, 1, 15 * TIERD_USEC_PER_SEC, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK(plan.nr_actions >= 1);
	CHECK_EQ_INT(plan.actions[0].reason, TIERD_REASON_OVER_TIER_MAX);
	CHECK_EQ_INT(plan.actions[0].kind, TIERD_ACTION_DEMOTE);
	CHECK_EQ_U64(plan.actions[0].bytes, 260 * 1024);
	CHECK_EQ_U64(plan.standings[0].tiers[0].fill_bytes, 252 * 1024);
	CHECK_EQ_U64(plan.standings[0].tiers[0].ceiling_bytes, 252 * 1024);
	{
		uint64_t into0 = 0, outof0 = 0;

		for (size_t i = 1; i < plan.nr_actions; i++) {
			if (plan.actions[i].to_tier == 0)
				into0 += plan.actions[i].bytes;
			if (plan.actions[i].from_tier == 0)
				outof0 += plan.actions[i].bytes;
		}
		CHECK(into0 <= outof0);
	}
	tierd_plan_free(&plan);
	pol.nr_tiers = 0;
	obs.anon_bytes[0] = 0;

	/* Bad params (another strategy's): the strategy does not start,
	 * budgets still apply. */
	pol.strategy_params_json = (char *)"{\"bogus\": 1}";
	pol.strategy_params = tierd_strategy_params_new(TIERD_STRATEGY_MOLE);
	CHECK(pol.strategy_params != NULL);
	in = engine_input(&topo, &cg, 1, 20 * TIERD_USEC_PER_SEC, 1 * GIB);
	CHECK_EQ_INT(tierd_engine_plan(e, &in, &plan), 0);
	CHECK_EQ_INT(plan.standings[0].strategy_error, -EINVAL);
	CHECK_EQ_INT(plan.nr_actions, 0);
	tierd_plan_free(&plan);
	pol.strategy_params_json = NULL;
	free(pol.strategy_params);
	pol.strategy_params = NULL;
	tierd_engine_free(e);
}

/* What band_run saw over its ticks. */
struct band_counts {
	unsigned over_ticks;   /* ticks with an over-tier-max demotion */
	unsigned first_over;
	unsigned raised;       /* plans that raised tier 0 above the fill line
				* (63M) or where it was */
	unsigned exchanges;    /* ticks that demoted and promoted its tier 0 */
};

/* One cgroup with a tier-0 max of 64M (fill line 63M) and `start` bytes on
 * tier 0, for 60 one-second ticks; with `hot`, 256 sampled pages (1M) on
 * tier 3 every tick under linux, else no strategy. The plan is carried out
 * on the counts, then the cgroup allocates 256K on tier 0. */
#define BAND_TICKS 60
#define BAND_SAMPLES 256
static struct band_counts band_run(uint64_t start, bool hot)
{
	struct tierd_topology topo;
	struct tierd_cgroup_obs obs = { .id = 9 };
	struct tierd_policy pol = budget_policy("x", 64 * MIB);
	struct tierd_sample samples[BAND_SAMPLES];
	struct tierd_hotness hotness = { .nr_samples = hot ? BAND_SAMPLES : 0, .samples = samples };
	struct tierd_engine_cgroup cg = { .obs = &obs, .policy = &pol, .hot = &hotness };
	struct band_counts n = { 0 };
	struct tierd_engine *e;

	pol.strategy = hot ? TIERD_STRATEGY_LINUX : TIERD_STRATEGY_NONE;
	obs.anon_bytes[0] = start;
	obs.anon_bytes[3] = 512 * MIB;
	CHECK_EQ_INT(tierd_engine_new(&e), 0);
	for (unsigned tick = 1; tick <= BAND_TICKS; tick++) {
		uint64_t free_bytes[4], now = tick * TIERD_USEC_PER_SEC, before = obs.anon_bytes[0];
		uint64_t in0 = 0, out0 = 0;
		bool over = false;
		struct tierd_engine_input in;
		struct tierd_plan plan;

		for (int t = 0; t < 4; t++)
			free_bytes[t] = GIB - obs.anon_bytes[t];
		four_tiers(&topo, free_bytes);
		for (int i = 0; i < BAND_SAMPLES; i++)
			samples[i] = (struct tierd_sample){
				.addr = 0x40000000 + ((uint64_t)tick * BAND_SAMPLES + (uint64_t)i) * TIERD_PAGE_BYTES,
				.tier = 3, .time_usec = now, .interval_usec = 100 * TIERD_USEC_PER_MSEC };
		in = engine_input(&topo, &cg, 1, now, 1 * GIB);
		if (tierd_engine_plan(e, &in, &plan) < 0) {
			CHECK(false);
			break;
		}
		for (size_t i = 0; i < plan.nr_actions; i++) {
			const struct tierd_action *a = &plan.actions[i];

			obs.anon_bytes[a->from_tier] -= a->bytes;
			obs.anon_bytes[a->to_tier] += a->bytes;
			in0 += a->to_tier == 0 ? a->bytes : 0;
			out0 += a->from_tier == 0 ? a->bytes : 0;
			over |= a->reason == TIERD_REASON_OVER_TIER_MAX;
		}
		tierd_plan_free(&plan);
		if (over) {
			n.over_ticks++;
			n.first_over = n.first_over ? n.first_over : tick;
		}
		n.raised += obs.anon_bytes[0] > tierd_max_u64(before, 63 * MIB);
		n.exchanges += in0 && out0;
		obs.anon_bytes[0] += 256 * 1024;
	}
	tierd_engine_free(e);
	return n;
}

/* A cgroup at its max is not demoted and promoted again every tick, as
 * one was whose promotions filled it to the max and whose next
 * allocation crossed it. */
static void test_max_band(void)
{
	struct band_counts n;

	/* Allocations alone, from 60M: over the max at tick 18, demoted to
	 * the fill line, over again once the band's 1M has filled: every 5th
	 * tick, 9 times in 60. Without the band (the same run with a zero
	 * band, measured): over at every tick from 18 on, 43 times, each a
	 * 256K demotion. */
	n = band_run(60 * MIB, false);
	CHECK_EQ_INT(n.first_over, 18);
	CHECK_EQ_INT(n.over_ticks, 9);
	CHECK_EQ_INT(n.raised, 0);
	/* Hot pages promoted every tick, from 32M: the promotions stop at the
	 * fill line; there linux's kswapd, at the cap, demotes the cgroup's own
	 * cold memory for them, an exchange each tick, and its room absorbs
	 * the allocations: never over. */
	n = band_run(32 * MIB, true);
	CHECK_EQ_INT(n.raised, 0);
	CHECK_EQ_INT(n.over_ticks, 0);
	CHECK(n.exchanges > 0);
}

/* HMM-V pool: floors at 75% of the initial share, the rest by need. */
static void test_pool_shares(void)
{
	const uint64_t initial[3] = { 800, 800, 800 };
	uint64_t share[3];

	/* Needs fit the pool: each gets max(floor, need). */
	tierd_pool_shares(3, initial, (const uint64_t[]){ 1000, 100, 700 }, TIERD_POOL_FLOOR_PMY,
			  share);
	CHECK_EQ_U64(share[0], 1000);
	CHECK_EQ_U64(share[1], 600);
	CHECK_EQ_U64(share[2], 700);
	/* Needs exceed it: above the floors (1800 of 2400), 600 is split in
	 * proportion to what each wants above its floor (1400, 0, 200). */
	tierd_pool_shares(3, initial, (const uint64_t[]){ 2000, 100, 800 }, TIERD_POOL_FLOOR_PMY,
			  share);
	CHECK_EQ_U64(share[0], 600 + 525);
	CHECK_EQ_U64(share[1], 600);
	CHECK_EQ_U64(share[2], 600 + 75);
	CHECK(share[0] + share[1] + share[2] <= 2400);
}

static void test_assign_tiers(void)
{
	struct tierd_topology topo = { 0 };
	struct tierd_nodeset sets[2];
	char err[128];

	topo.nr_nodes = 2;
	topo.nodes[0] = (struct tierd_node){ .nid = 0, .total_bytes = GIB, .free_bytes = MIB,
					     .has_hmat = true, .read_latency_ns = 80 };
	topo.nodes[1] = (struct tierd_node){ .nid = 1, .total_bytes = GIB, .free_bytes = MIB,
					     .has_hmat = true, .read_latency_ns = 140 };
	(void)tierd_nodeset_parse("0-1", &sets[0]);
	CHECK_EQ_INT(tierd_topology_assign_tiers(&topo, sets, NULL, 1, TIERD_TIERS_CONFIG, err,
						 sizeof(err)), 0);
	CHECK_EQ_U64(topo.tiers[0].total_bytes, 2 * GIB);
	CHECK_EQ_INT(topo.tiers[0].read_latency_ns, 140);
	(void)tierd_nodeset_parse("0", &sets[0]);
	(void)tierd_nodeset_parse("0-1", &sets[1]);
	CHECK_EQ_INT(tierd_topology_assign_tiers(&topo, sets, NULL, 2, TIERD_TIERS_CONFIG, err,
						 sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "node 0 is in tier 0 and tier 1");
	(void)tierd_nodeset_parse("0", &sets[0]);
	(void)tierd_nodeset_parse("2", &sets[1]);
	CHECK_EQ_INT(tierd_topology_assign_tiers(&topo, sets, NULL, 2, TIERD_TIERS_CONFIG, err,
						 sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, "node 1 (it has memory) is in no tier");
}

/* Label values are escaped; page counts become bytes with the page size given. */
static void test_metrics_format(void)
{
	struct tierd_report rep = { 0 };
	struct tierd_report_cgroup cg = { 0 };
	struct tierd_cgroup_obs obs = { 0 };
	struct tierd_metrics_input in = { .report = &rep, .obs = &obs, .page_size_bytes = 16384 };
	const uint64_t free_bytes[4] = { 1, 2, 3, 4 };
	char *text = NULL;

	four_tiers(&rep.topo, free_bytes);
	rep.nr_cgroups = 1;
	rep.cgroups = &cg;
	snprintf(cg.path, sizeof(cg.path), "/a\"b\\c\nd");
	snprintf(cg.policy, sizeof(cg.policy), "p");
	cg.standing.tiers[2].anon_bytes = 12345;
	obs.stat.present = 1u << TIERD_MEMSTAT_pgpromote_success;
	obs.stat.value[TIERD_MEMSTAT_pgpromote_success] = 3;
	CHECK_EQ_INT(tierd_metrics_format(&in, &text), 0);
	CHECK(text && strstr(text, "tierd_cgroup_tier_bytes{cgroup=\"/a\\\"b\\\\c\\nd\",policy=\"p\",tier=\"2\",type=\"anon\"} 12345\n"));
	CHECK(text && strstr(text, "tierd_cgroup_kernel_promoted_bytes_total{cgroup=\"/a\\\"b\\\\c\\nd\"} 49152\n"));
	CHECK(text && strstr(text, "tierd_tier_free_bytes{tier=\"3\",nodes=\"3\"} 4\n"));
	CHECK(text && !strstr(text, "tierd_cgroup_kernel_demoted_bytes_total{"));
	free(text);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static int unlink_in(const char *dir, const char *name)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), r;

	if (fd < 0)
		return -1;
	r = unlinkat(fd, name, 0);
	close(fd);
	return r;
}

/* A cgroup listed, then removed before its files are read, is -ENOENT
 * (skipped), not an error; one with a malformed file names file and line. */
static void test_cgroup_vanishes(void)
{
	char root[] = "/tmp/tierd-cg-XXXXXX", dir[600];
	struct tierd_log_keep cap;
	struct tierd_cgroupfs fs;
	struct tierd_cgroup_list list;
	struct tierd_topology topo = { .nr_nodes = 1 };
	struct tierd_cgroup_obs obs;
	struct tierd_buf buf = { 0 };
	static const char *const files[] = { "memory.current" };

	if (!mkdtemp(root))
		abort();
	snprintf(dir, sizeof(dir), "%s/a.service", root);
	mkdir(dir, 0755);
	write_file(dir, "memory.numa_stat", "anon N0=4096\nfile N0=8192\n");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		write_file(dir, files[i], "12288\n");
	write_file(dir, "memory.stat", "anon 4096\nfile 8192\npgpromote_success 3\n");
	fs.root_fd = open(root, O_RDONLY | O_DIRECTORY);
	CHECK_EQ_INT(tierd_cgroupfs_list(&fs, &list), 0);
	CHECK_EQ_INT(list.nr, 1);
	CHECK_EQ_STR(list.paths[0], "/a.service");
	CHECK_EQ_INT(tierd_cgroupfs_read(&fs, "/a.service", &topo, &obs, &buf, NULL,
					 capture(&cap)), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 4096);
	CHECK_EQ_U64(obs.file_bytes[0], 8192);
	/* No memory.min/low/high/max: tierd does not read them. */
	CHECK_EQ_U64(obs.current_bytes, 12288);
	CHECK_EQ_U64(obs.stat.value[TIERD_MEMSTAT_pgpromote_success], 3);
	CHECK(!obs.has_pressure);

	write_file(dir, "memory.stat", "anon 4096\nfile x\n");
	CHECK_EQ_INT(tierd_cgroupfs_read(&fs, "/a.service", &topo, &obs, &buf, NULL, capture(&cap)),
		     -EINVAL);
	CHECK_EQ_STR(cap.last,
		     "/a.service/memory.stat:2: expected \"key value\": Invalid argument");

	/* Gone between listing and reading. */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink_in(dir, files[i]);
	unlink_in(dir, "memory.numa_stat");
	unlink_in(dir, "memory.stat");
	rmdir(dir);
	CHECK_EQ_INT(tierd_cgroupfs_read(&fs, list.paths[0], &topo, &obs, &buf, NULL,
					 capture(&cap)),
		     -ENOENT);
	tierd_cgroup_list_free(&list);
	tierd_buf_free(&buf);
	tierd_cgroupfs_close(&fs);
	rmdir(root);
}

/* The kept cgroup list is walked again only when a cgroup directory comes
 * or goes: not for a file written, and not for a tick with no change. */
static void test_cgroup_watch(void)
{
	char root[] = "/tmp/tierd-cgw-XXXXXX", dir[64], sub[128], leaf[192];
	const struct tierd_cgroup_list *list;
	struct tierd_cgroup_watch w;
	struct tierd_cgroupfs fs;
	struct tierd_buf buf = { 0 };

	if (!mkdtemp(root))
		abort();
	snprintf(dir, sizeof(dir), "%s/a.slice", root);
	mkdir(dir, 0755);
	snprintf(sub, sizeof(sub), "%s/b.service", dir);
	mkdir(sub, 0755);
	fs.root_fd = open(root, O_RDONLY | O_DIRECTORY);
	tierd_cgroup_watch_init(&w);
	CHECK_EQ_INT(tierd_cgroup_watch_list(&w, &fs, &list), 0);
	CHECK(w.watching);
	CHECK_EQ_U64(w.walks, 1);
	CHECK_EQ_INT(list->nr, 2);
	CHECK_EQ_STR(list->paths[0], "/a.slice");
	CHECK_EQ_STR(list->paths[1], "/a.slice/b.service");
	CHECK_EQ_INT(tierd_cgroup_watch_list(&w, &fs, &list), 0);
	CHECK_EQ_U64(w.walks, 1);
	/* A file written or created is no new cgroup. */
	write_file(sub, "memory.current", "4096\n");
	CHECK_EQ_INT(tierd_cgroup_watch_list(&w, &fs, &list), 0);
	CHECK_EQ_U64(w.walks, 1);
	/* A cgroup made two levels down is seen at the next call. */
	snprintf(leaf, sizeof(leaf), "%s/c.scope", sub);
	mkdir(leaf, 0755);
	CHECK_EQ_INT(tierd_cgroup_watch_list(&w, &fs, &list), 0);
	CHECK_EQ_U64(w.walks, 2);
	CHECK_EQ_INT(list->nr, 3);
	CHECK_EQ_STR(list->paths[2], "/a.slice/b.service/c.scope");
	/* ...and one removed, in a directory watched since the second walk. */
	rmdir(leaf);
	CHECK_EQ_INT(tierd_cgroup_watch_list(&w, &fs, &list), 0);
	CHECK_EQ_U64(w.walks, 3);
	CHECK_EQ_INT(list->nr, 2);
	CHECK_EQ_INT(tierd_cgroup_watch_list(&w, &fs, &list), 0);
	CHECK_EQ_U64(w.walks, 3);

	/* A cgroup file whole in one read, and one bigger than the first buffer. */
	CHECK_EQ_INT(tierd_read_cgroup_file(fs.root_fd, "a.slice/b.service/memory.current", &buf), 0);
	CHECK_EQ_STR(buf.data, "4096\n");
	{
		char big[10000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		write_file(sub, "memory.stat", big);
		CHECK_EQ_INT(tierd_read_cgroup_file(fs.root_fd, "a.slice/b.service/memory.stat", &buf),
			     0);
		CHECK_EQ_INT(buf.len, sizeof(big) - 1);
	}
	tierd_buf_free(&buf);
	tierd_cgroup_watch_free(&w);
	unlink_in(sub, "memory.current");
	unlink_in(sub, "memory.stat");
	rmdir(sub);
	rmdir(dir);
	tierd_cgroupfs_close(&fs);
	rmdir(root);
}

/* Held files are read again from their start at each read; the pool
 * bounds how many are held, and the others are opened and closed per read. */
static void test_cgroup_files(void)
{
	char root[] = "/tmp/tierd-cgf-XXXXXX", dir[64];
	struct tierd_log_keep cap;
	struct tierd_fd_pool pool = { .max = 3 };
	struct tierd_topology topo = { .nr_nodes = 1 };
	struct tierd_cgroup_files files;
	struct tierd_cgroup_obs obs;
	struct tierd_buf buf = { 0 };
	struct tierd_cgroupfs fs;

	if (!mkdtemp(root))
		abort();
	snprintf(dir, sizeof(dir), "%s/a.service", root);
	mkdir(dir, 0755);
	write_file(dir, "memory.numa_stat", "anon N0=4096\nfile N0=8192\n");
	write_file(dir, "memory.current", "12288\n");
	write_file(dir, "memory.stat", "anon 4096\nfile 8192\n");
	fs.root_fd = open(root, O_RDONLY | O_DIRECTORY);
	tierd_cgroup_files_init(&files, &pool);
	CHECK_EQ_INT(tierd_cgroupfs_read(&fs, "/a.service", &topo, &obs, &buf, &files,
					 capture(&cap)), 0);
	CHECK_EQ_U64(obs.current_bytes, 12288);
	CHECK_EQ_U64(obs.anon_bytes[0], 4096);
	/* The directory, memory.numa_stat and memory.current fill the pool. */
	CHECK_EQ_U64(pool.held, 3);
	CHECK(files.dir_fd >= 0);
	CHECK_EQ_INT(files.fd[3], -1);

	write_file(dir, "memory.current", "8192\n");
	write_file(dir, "memory.numa_stat", "anon N0=8192\nfile N0=8192\n");
	CHECK_EQ_INT(tierd_cgroupfs_read(&fs, "/a.service", &topo, &obs, &buf, &files,
					 capture(&cap)), 0);
	CHECK_EQ_U64(obs.current_bytes, 8192);
	CHECK_EQ_U64(obs.anon_bytes[0], 8192);
	CHECK_EQ_U64(pool.held, 3);
	/* Room for all: every file there is held; memory.pressure is absent. */
	pool.max = 16;
	CHECK_EQ_INT(tierd_cgroupfs_read(&fs, "/a.service", &topo, &obs, &buf, &files,
					 capture(&cap)), 0);
	CHECK_EQ_U64(pool.held, 4);
	CHECK(!obs.has_pressure);
	tierd_cgroup_files_close(&files);
	CHECK_EQ_U64(pool.held, 0);
	CHECK_EQ_INT(files.dir_fd, -1);

	tierd_buf_free(&buf);
	unlink_in(dir, "memory.numa_stat");
	unlink_in(dir, "memory.current");
	unlink_in(dir, "memory.stat");
	rmdir(dir);
	tierd_cgroupfs_close(&fs);
	rmdir(root);
}

static void check_span(const struct tierd_cold_span *sp, uint64_t start, uint64_t end)
{
	CHECK_EQ_U64(sp->start, start);
	CHECK_EQ_U64(sp->end, end);
}

/* A DEMOTE's memory, as the daemon's DAMOS actuator and tiersim pick it:
 * the tier's coldest regions first (fewest accesses, then oldest, then
 * lowest address), the last cut short, past what earlier demotions took. */
static void test_cold_spans(void)
{
	const struct tierd_region regions[] = {
		{ .start = 0x0000, .end = 0x4000, .tier = 0, .nr_accesses = 3, .age = 1 },
		{ .start = 0x4000, .end = 0x6000, .tier = 0, .nr_accesses = 0, .age = 2 },
		{ .start = 0x6000, .end = 0x9000, .tier = 0, .nr_accesses = 0, .age = 7 },
		{ .start = 0x9000, .end = 0xa000, .tier = 1, .nr_accesses = 0, .age = 9 },
		{ .start = 0xa000, .end = 0xc000, .tier = -1, .nr_accesses = 0, .age = 9 },
	};
	const struct tierd_hotness hot = { .nr_regions = 5, .regions = regions };
	struct tierd_cold_span out[4], taken[1];

	/* Oldest of the unaccessed first, then the younger, then cut short. */
	CHECK_EQ_INT(tierd_cold_spans(&hot, 0, 0x6000, NULL, 0, out, 4), 3);
	check_span(&out[0], 0x6000, 0x9000);
	check_span(&out[1], 0x4000, 0x6000);
	check_span(&out[2], 0x0000, 0x1000);
	CHECK_EQ_U64(out[2].nr_accesses, 3);
	/* A second demotion of the same tier starts past the first's. */
	taken[0] = (struct tierd_cold_span){ .start = 0x6000, .end = 0x8000 };
	CHECK_EQ_INT(tierd_cold_spans(&hot, 0, 0x2000, taken, 1, out, 4), 2);
	check_span(&out[0], 0x8000, 0x9000);
	check_span(&out[1], 0x4000, 0x5000);
	/* Only the named tier; a mixed region (-1) never. */
	CHECK_EQ_INT(tierd_cold_spans(&hot, 1, 0x10000, NULL, 0, out, 4), 1);
	check_span(&out[0], 0x9000, 0xa000);
	CHECK_EQ_INT(tierd_cold_spans(&hot, 2, 0x1000, NULL, 0, out, 4), 0);
	CHECK_EQ_INT(tierd_cold_spans(NULL, 0, 0x1000, NULL, 0, out, 4), 0);
	/* A region half full: the spans' lengths add up to what the DEMOTE
	 * asks for (a migrate_cold scheme takes every page of the cgroup in
	 * its span), each expected to hold its even share of the region's
	 * bytes. */
	{
		const struct tierd_region sparse[] = {
			{ .start = 0x0000, .end = 0x8000, .tier = 0, .bytes = 0x4000 },
			{ .start = 0x8000, .end = 0x9000, .tier = 0, .nr_accesses = 1 },
		};
		const struct tierd_hotness h = { .nr_regions = 2, .regions = sparse };

		CHECK_EQ_INT(tierd_cold_spans(&h, 0, 0x2000, NULL, 0, out, 4), 1);
		check_span(&out[0], 0x0000, 0x2000);
		CHECK_EQ_U64(out[0].bytes, 0x1000);
		CHECK_EQ_INT(tierd_cold_spans(&h, 0, 0x5000, NULL, 0, out, 4), 1);
		check_span(&out[0], 0x0000, 0x5000);
		CHECK_EQ_U64(out[0].bytes, 0x2800);
		CHECK_EQ_INT(tierd_cold_spans(&h, 0, 0x9000, NULL, 0, out, 4), 2);
		check_span(&out[0], 0x0000, 0x8000);
		CHECK_EQ_U64(out[0].bytes, 0x4000);
		check_span(&out[1], 0x8000, 0x9000);
		CHECK_EQ_U64(out[1].bytes, 0x1000);
	}
	/* Out of room: what fit stays. */
	CHECK_EQ_INT(tierd_cold_spans(&hot, 0, 0x6000, NULL, 0, out, 1), -E2BIG);
	CHECK_EQ_U64(out[0].start, 0x6000);
}

/* A profiling period becomes a DAMON window as the daemon's kdamond and
 * tiersim both take it: a tenth, within 20 to 100 ms; none gives 100 ms. */
static void test_profile_aggr(void)
{
	CHECK_EQ_U64(tierd_profile_aggr_usec(0), 100000);
	CHECK_EQ_U64(tierd_profile_aggr_usec(100000), 20000);
	CHECK_EQ_U64(tierd_profile_aggr_usec(400000), 40000);
	CHECK_EQ_U64(tierd_profile_aggr_usec(1000000), 100000);
	CHECK_EQ_U64(tierd_profile_aggr_usec(4000000), 100000);
}

int main(void)
{
	test_profile_aggr();
	test_nodeset();
	test_units();
	test_locate();
	test_budget_bucket();
	test_engine();
	test_cold_spans();
	test_min_protection();
	test_pool_shares();
	test_engine_strategy();
	test_max_band();
	test_pool_capped_by_max();
	test_pool_need_rounds();
	test_pool_need_union();
	test_pool_need_windows();
	test_pool_need_footprint();
	test_pool_need_repeated();
	test_assign_tiers();
	test_metrics_format();
	test_cgroup_vanishes();
	test_cgroup_watch();
	test_cgroup_files();
	return tierd_test_finish();
}
