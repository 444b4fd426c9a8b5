/* Unit tests for controller/damon_plan.c (pure): the node a migration
 * targets, engine actions to DAMOS spans, and spans to the DAMON spec of
 * one kdamond per tier with its batch of action slots. Addresses are
 * written in pages: P(n) is page n's address. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../controller/damon_plan.h"
#include "../policy/util.h"
#include "check.h"
#include "log_capture.h"

TIERD_TEST_MAIN_COUNTS;

#define MIB (1024ull * 1024)
#define GIB (1024 * MIB)
#define P(n) ((uint64_t)(n) * TIERD_PAGE_BYTES)
#define SPANS_MAX 64
/* The test machine: three tiers, tier 1 of two nodes; tier 2's physical
 * memory sits above a hole, as node 3 of the VM does. */
#define NR_TIERS 3
#define TIER1_START GIB
#define TIER2_START (4 * GIB)
/* Aggregation intervals the layout asks for tiers 1 and 2 (tier 0: DAMON's
 * default); test values, each a multiple of TIERD_DAMON_SAMPLES_PER_AGGR. */
#define AGGR_T1 40000u
#define AGGR_T2 20000u
/* Garbage a build must overwrite. */
#define POISON 0xa5

struct node_def {
	int nid;
	size_t tier;
	uint64_t free_bytes;
};

static void make_topology(struct tierd_topology *topo, const struct node_def *nodes, size_t nr,
			  size_t nr_tiers)
{
	struct tierd_nodeset sets[TIERD_MAX_TIERS];
	char err[TIERD_ERR_MAX];

	memset(topo, 0, sizeof(*topo));
	for (size_t t = 0; t < nr_tiers; t++)
		tierd_nodeset_clear(&sets[t]);
	for (size_t i = 0; i < nr; i++) {
		topo->nodes[i] = (struct tierd_node){ .nid = nodes[i].nid, .total_bytes = GIB,
						      .free_bytes = nodes[i].free_bytes };
		if (tierd_nodeset_add(&sets[nodes[i].tier], nodes[i].nid) < 0)
			abort();
	}
	topo->nr_nodes = nr;
	if (tierd_topology_assign_tiers(topo, sets, NULL, nr_tiers, TIERD_TIERS_CONFIG, err,
					sizeof(err)) < 0) {
		fprintf(stderr, "topology: %s\n", err);
		abort();
	}
}

/* Tier 0 = node 0; tier 1 = nodes 1 (256M free) and 2 (512M free: the
 * target); tier 2 = node 3. */
static void machine(struct tierd_topology *topo)
{
	static const struct node_def nodes[] = {
		{ 0, 0, 128 * MIB }, { 1, 1, 256 * MIB }, { 2, 1, 512 * MIB }, { 3, 2, 768 * MIB },
	};

	make_topology(topo, nodes, TIERD_ARRAY_SIZE(nodes), NR_TIERS);
}

static void machine_layout(struct tierd_damon_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->nr_tiers = NR_TIERS;
	l->tiers[0].nr_ranges = 1;
	l->tiers[0].ranges[0] = (struct tierd_damon_region){ 0, GIB };
	l->tiers[1].nr_ranges = 2;
	l->tiers[1].ranges[0] = (struct tierd_damon_region){ TIER1_START, 2 * GIB };
	l->tiers[1].ranges[1] = (struct tierd_damon_region){ 2 * GIB, 3 * GIB };
	l->tiers[1].aggr_us = AGGR_T1;
	l->tiers[2].nr_ranges = 1;
	l->tiers[2].ranges[0] = (struct tierd_damon_region){ TIER2_START, TIER2_START + GIB };
	l->tiers[2].aggr_us = AGGR_T2;
}

static const char *const paths[] = { "/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i",
				      "/j", "/k", "/l", "/m", "/n", "/o", "/p", "/q" };

static struct tierd_damos_span span(size_t cgroup, size_t from, size_t to, uint64_t start,
				    uint64_t end, uint64_t bytes, uint32_t nr_accesses)
{
	return (struct tierd_damos_span){ .cgroup = cgroup, .from_tier = from, .to_tier = to,
					  .start = start, .end = end, .bytes = bytes,
					  .nr_accesses = nr_accesses };
}

static void check_span(const struct tierd_damos_span *s, size_t cgroup, size_t from, size_t to,
		       uint64_t start, uint64_t end, uint64_t bytes, uint32_t nr_accesses)
{
	CHECK_EQ_INT(s->cgroup, cgroup);
	CHECK_EQ_INT(s->from_tier, from);
	CHECK_EQ_INT(s->to_tier, to);
	CHECK_EQ_U64(s->start, start);
	CHECK_EQ_U64(s->end, end);
	CHECK_EQ_U64(s->bytes, bytes);
	CHECK_EQ_U64(s->nr_accesses, nr_accesses);
}

/* tierd's stat scheme: every region, no action, no filter. */
static void check_stat_scheme(const struct tierd_damon_scheme_spec *sc)
{
	CHECK_EQ_INT(sc->action, TIERD_DAMON_ACTION_STAT);
	CHECK_EQ_INT(sc->target_nid, -1);
	CHECK_EQ_U64(sc->sz_min, 0);
	CHECK_EQ_U64(sc->sz_max, TIERD_DAMON_SZ_UNLIMITED);
	CHECK_EQ_U64(sc->nr_accesses_min, 0);
	CHECK_EQ_U64(sc->nr_accesses_max, TIERD_DAMON_NR_UNLIMITED);
	CHECK_EQ_U64(sc->age_min, 0);
	CHECK_EQ_U64(sc->age_max, TIERD_DAMON_NR_UNLIMITED);
	CHECK_EQ_U64(sc->apply_interval_us, 0);
	CHECK_EQ_U64(sc->quota_bytes, 0);
	CHECK_EQ_U64(sc->quota_reset_ms, 0);
	CHECK_EQ_STR(sc->memcg_path, "");
	CHECK(!sc->has_addr);
}

/* An action scheme: its span, target and access bound; never a quota. */
static void check_action(const struct tierd_damon_scheme_spec *sc, enum tierd_damon_action action,
			 int nid, const char *memcg, uint64_t start, uint64_t end, uint32_t nr_min,
			 uint32_t nr_max, uint64_t apply_us)
{
	CHECK_EQ_INT(sc->action, action);
	CHECK_EQ_INT(sc->target_nid, nid);
	CHECK_EQ_U64(sc->sz_min, 0);
	CHECK_EQ_U64(sc->sz_max, TIERD_DAMON_SZ_UNLIMITED);
	CHECK_EQ_U64(sc->nr_accesses_min, nr_min);
	CHECK_EQ_U64(sc->nr_accesses_max, nr_max);
	CHECK_EQ_U64(sc->age_min, 0);
	CHECK_EQ_U64(sc->age_max, TIERD_DAMON_NR_UNLIMITED);
	CHECK_EQ_U64(sc->apply_interval_us, apply_us);
	CHECK_EQ_U64(sc->quota_bytes, 0);
	CHECK_EQ_U64(sc->quota_reset_ms, 0);
	CHECK_EQ_STR(sc->memcg_path, memcg);
	CHECK(sc->has_addr);
	CHECK_EQ_U64(sc->addr_start, start);
	CHECK_EQ_U64(sc->addr_end, end);
}

static void check_slot(const struct tierd_damos_slot *sl, size_t ctx, size_t scheme,
		       size_t cgroup, size_t from, size_t to, uint64_t planned)
{
	CHECK_EQ_INT(sl->ctx, ctx);
	CHECK_EQ_INT(sl->scheme, scheme);
	CHECK_EQ_INT(sl->cgroup, cgroup);
	CHECK_EQ_INT(sl->from_tier, from);
	CHECK_EQ_INT(sl->to_tier, to);
	CHECK_EQ_INT(sl->path, to < from ? TIERD_PATH_DAMOS_MIGRATE_HOT
					 : TIERD_PATH_DAMOS_MIGRATE_COLD);
	CHECK_EQ_U64(sl->planned_bytes, planned);
}

static void test_target_node(void)
{
	/* Tier 1 lists node 3 before node 2, both with the most free bytes;
	 * tier 2's only node has nothing free; tier 3 has no node. */
	struct node_def nodes[] = {
		{ 0, 0, GIB }, { 3, 1, 512 * MIB }, { 1, 1, 256 * MIB }, { 2, 1, 512 * MIB },
		{ 5, 2, 0 },
	};
	struct tierd_topology topo;

	make_topology(&topo, nodes, TIERD_ARRAY_SIZE(nodes), 4);
	CHECK_EQ_INT(tierd_damon_target_node(&topo, 0), 0);
	CHECK_EQ_INT(tierd_damon_target_node(&topo, 1), 2);
	CHECK_EQ_INT(tierd_damon_target_node(&topo, 2), 5);
	CHECK_EQ_INT(tierd_damon_target_node(&topo, 3), -1);
	CHECK_EQ_INT(tierd_damon_target_node(&topo, TIERD_MAX_TIERS), -1);

	/* The most free wins over the lower nid. */
	nodes[2].free_bytes = 513 * MIB;
	make_topology(&topo, nodes, TIERD_ARRAY_SIZE(nodes), 4);
	CHECK_EQ_INT(tierd_damon_target_node(&topo, 1), 1);
}

/* Regions of one cgroup on tier 1 (pages 0-11) and tier 2 (16-19). */
static const struct tierd_region migrate_regions[] = {
	{ .start = P(0), .end = P(4), .tier = 1, .nr_accesses = 5 },
	{ .start = P(4), .end = P(8), .tier = 1, .nr_accesses = 2 },
	{ .start = P(8), .end = P(12), .tier = 1, .nr_accesses = 9 },
	{ .start = P(16), .end = P(20), .tier = 2, .nr_accesses = 0 },
};

static void test_spans_migrate(void)
{
	struct tierd_hotness hot = { .nr_regions = TIERD_ARRAY_SIZE(migrate_regions),
				     .regions = migrate_regions };
	struct tierd_action a = { .kind = TIERD_ACTION_MIGRATE,
				  .reason = TIERD_REASON_TARGETED_PROMOTION,
				  .cgroup = 3, .from_tier = 1, .to_tier = 0,
				  .start = P(2), .end = P(9), .bytes = P(7) };
	struct tierd_damos_span out[SPANS_MAX];

	/* Promotion: the coldest overlapping region (pages 2-8 touch all three). */
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 0, P(2), P(9), P(7), 2);
	/* Demotion: the hottest. */
	a.to_tier = 2;
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 2, P(2), P(9), P(7), 9);

	/* Regions that only touch the range's ends do not overlap it. */
	a.start = P(4);
	a.end = P(8);
	a.bytes = P(4);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 2, P(4), P(8), P(4), 2);
	a.to_tier = 0;
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 0, P(4), P(8), P(4), 2);

	/* No region overlaps: no restriction (promotion from 0 accesses up,
	 * demotion up to any). */
	a.start = P(12);
	a.end = P(16);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 0, P(12), P(16), P(4), 0);
	a.to_tier = 2;
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 2, P(12), P(16), P(4), UINT32_MAX);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, NULL, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 2, P(12), P(16), P(4), UINT32_MAX);
	a.to_tier = 0;
	CHECK_EQ_INT(tierd_damos_spans_after(&a, NULL, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 3, 1, 0, P(12), P(16), P(4), 0);

	/* No room. */
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, 0), -E2BIG);
}

/* One cgroup's regions: tier 0 but for D (tier 1) and F (unknown tier). */
static const struct tierd_region demote_regions[] = {
	{ .start = P(0), .end = P(3), .tier = 0, .nr_accesses = 3, .age = 10 },   /* A */
	{ .start = P(3), .end = P(5), .tier = 0, .nr_accesses = 0, .age = 5 },    /* B */
	{ .start = P(5), .end = P(9), .tier = 0, .nr_accesses = 0, .age = 20 },   /* C */
	{ .start = P(9), .end = P(10), .tier = 1, .nr_accesses = 0, .age = 100 }, /* D */
	{ .start = P(10), .end = P(12), .tier = 0, .nr_accesses = 0, .age = 20 }, /* E */
	{ .start = P(12), .end = P(13), .tier = -1, .nr_accesses = 0, .age = 90 }, /* F */
};

static void test_spans_demote(void)
{
	struct tierd_hotness hot = { .nr_regions = TIERD_ARRAY_SIZE(demote_regions),
				     .regions = demote_regions };
	struct tierd_action a = { .kind = TIERD_ACTION_DEMOTE,
				  .reason = TIERD_REASON_OVER_TIER_MAX,
				  .cgroup = 1, .from_tier = 0, .to_tier = 2, .bytes = P(7) };
	struct tierd_damos_span out[SPANS_MAX];

	/* Coldest first: C and E (0 accesses, age 20; C lower), then B (age
	 * 5), then A (3 accesses); B is cut to the page still wanted. */
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 3);
	check_span(&out[0], 1, 0, 2, P(5), P(9), P(4), 0);
	check_span(&out[1], 1, 0, 2, P(10), P(12), P(2), 0);
	check_span(&out[2], 1, 0, 2, P(3), P(4), P(1), 0);

	/* Exactly all of tier 0's regions. */
	a.bytes = P(11);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 4);
	check_span(&out[2], 1, 0, 2, P(3), P(5), P(2), 0);
	check_span(&out[3], 1, 0, 2, P(0), P(3), P(3), 3);
	/* More than the cgroup has there: all of it, D and F never. */
	a.bytes = P(100);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 4);
	check_span(&out[3], 1, 0, 2, P(0), P(3), P(3), 3);

	/* From tier 1: D alone. */
	a.from_tier = 1;
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 1);
	check_span(&out[0], 1, 1, 2, P(9), P(10), P(1), 0);

	/* Out of room: what fit stays. */
	a.from_tier = 0;
	a.bytes = P(7);
	memset(out, 0, sizeof(out));
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, 2), -E2BIG);
	check_span(&out[0], 1, 0, 2, P(5), P(9), P(4), 0);
	check_span(&out[1], 1, 0, 2, P(10), P(12), P(2), 0);
	CHECK_EQ_U64(out[2].bytes, 0);

	/* Nothing observed: nothing to aim at. */
	CHECK_EQ_INT(tierd_damos_spans_after(&a, NULL, NULL, 0, out, SPANS_MAX), 0);
	hot.nr_regions = 0;
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX), 0);
}

struct build {
	struct tierd_topology topo;
	struct tierd_damon_layout layout;
	struct tierd_damon_spec *spec;
	struct tierd_damos_batch *batch;
	struct tierd_damos_span spans[SPANS_MAX];
	size_t nr;
	struct tierd_log_keep cap;
};

static void build_init(struct build *b)
{
	memset(b, 0, sizeof(*b));
	machine(&b->topo);
	machine_layout(&b->layout);
	b->spec = malloc(sizeof(*b->spec));
	b->batch = malloc(sizeof(*b->batch));
	if (!b->spec || !b->batch)
		abort();
}

static int build_run(struct build *b)
{
	memset(b->spec, POISON, sizeof(*b->spec));
	memset(b->batch, POISON, sizeof(*b->batch));
	return tierd_damon_build(&b->layout, &b->topo, b->spans, b->nr, paths, b->spec, b->batch,
				 capture(&b->cap));
}

static void build_free(struct build *b)
{
	free(b->spec);
	free(b->batch);
}

static void add(struct build *b, struct tierd_damos_span s)
{
	if (b->nr == SPANS_MAX)
		abort();
	b->spans[b->nr++] = s;
}

/* A budget split over two destination tiers: the second demotion takes
 * what the first left, including the rest of a region it cut short. */
static void test_spans_after(void)
{
	struct tierd_hotness hot = { .nr_regions = TIERD_ARRAY_SIZE(demote_regions),
				     .regions = demote_regions };
	struct tierd_action a = { .kind = TIERD_ACTION_DEMOTE,
				  .reason = TIERD_REASON_OVER_TIER_MAX,
				  .cgroup = 1, .from_tier = 0, .to_tier = 3, .bytes = P(5) };
	struct tierd_damos_span out[SPANS_MAX];
	int n;

	/* First: C whole and one page of E. */
	n = tierd_damos_spans_after(&a, &hot, NULL, 0, out, SPANS_MAX);
	CHECK_EQ_INT(n, 2);
	check_span(&out[0], 1, 0, 3, P(5), P(9), P(4), 0);
	check_span(&out[1], 1, 0, 3, P(10), P(11), P(1), 0);
	/* Second, to tier 2: the rest of E, then B. */
	a.to_tier = 2;
	a.bytes = P(3);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, out, 2, out + 2, SPANS_MAX - 2), 2);
	check_span(&out[2], 1, 0, 2, P(11), P(12), P(1), 0);
	check_span(&out[3], 1, 0, 2, P(3), P(5), P(2), 0);
	/* Another cgroup's spans take nothing from this one. */
	out[0].cgroup = 7;
	out[1].cgroup = 7;
	a.bytes = P(1);
	CHECK_EQ_INT(tierd_damos_spans_after(&a, &hot, out, 2, out + 4, SPANS_MAX - 4), 1);
	check_span(&out[4], 1, 0, 2, P(5), P(6), P(1), 0);
}

static void test_build_contexts(void)
{
	struct build b;
	const struct tierd_damon_ctx_spec *c;

	build_init(&b);
	CHECK_EQ_INT(build_run(&b), 0);
	CHECK_EQ_INT(b.spec->nr_contexts, NR_TIERS);
	for (size_t t = 0; t < NR_TIERS; t++) {
		c = &b.spec->contexts[t];
		CHECK_EQ_STR(c->ops, "paddr");
		CHECK_EQ_U64(c->update_us, TIERD_DAMON_UPDATE_US);
		CHECK_EQ_U64(c->min_nr_regions, 10);
		CHECK_EQ_U64(c->max_nr_regions, 1000);
		CHECK_EQ_INT(c->nr_schemes, 1);
		check_stat_scheme(&c->schemes[TIERD_DAMON_STAT_SCHEME]);
	}
	c = &b.spec->contexts[0];
	CHECK_EQ_U64(c->aggr_us, 100000);
	CHECK_EQ_U64(c->sample_us, 5000);
	CHECK_EQ_INT(c->nr_regions, 1);
	CHECK_EQ_U64(c->regions[0].start, 0);
	CHECK_EQ_U64(c->regions[0].end, GIB);
	c = &b.spec->contexts[1];
	CHECK_EQ_U64(c->aggr_us, AGGR_T1);
	CHECK_EQ_U64(c->sample_us, 2000);
	CHECK_EQ_INT(c->nr_regions, 2);
	CHECK_EQ_U64(c->regions[0].start, GIB);
	CHECK_EQ_U64(c->regions[0].end, 2 * GIB);
	CHECK_EQ_U64(c->regions[1].start, 2 * GIB);
	CHECK_EQ_U64(c->regions[1].end, 3 * GIB);
	c = &b.spec->contexts[2];
	CHECK_EQ_U64(c->aggr_us, AGGR_T2);
	CHECK_EQ_U64(c->sample_us, 1000);
	CHECK_EQ_INT(c->nr_regions, 1);
	CHECK_EQ_U64(c->regions[0].start, TIER2_START);
	CHECK_EQ_U64(c->regions[0].end, TIER2_START + GIB);
	CHECK_EQ_INT(b.batch->nr_slots, 0);
	CHECK_EQ_INT(b.batch->nr_deferred, 0);
	CHECK_EQ_U64(b.batch->deferred_bytes, 0);
	build_free(&b);
}

/* Spans of three tiers, given out of order: each becomes one scheme in its
 * source tier's kdamond, groups by size, spans by address. */
static void test_build_actions(void)
{
	const struct tierd_damon_ctx_spec *c0, *c1, *c2;
	const struct tierd_damos_slot *sl;
	struct build b;

	build_init(&b);
	add(&b, span(1, 2, 0, TIER2_START + P(16), TIER2_START + P(20), P(4), 3));
	add(&b, span(0, 0, 1, P(512), P(520), P(8), 7));
	add(&b, span(0, 0, 1, P(256), P(258), P(2), 2));
	add(&b, span(1, 2, 0, TIER2_START, TIER2_START + P(1), P(1), 0));
	add(&b, span(0, 0, 2, P(1024), P(1040), P(16), 0));
	add(&b, span(2, 1, 2, TIER1_START, TIER1_START + P(4), P(3), 9));
	CHECK_EQ_INT(build_run(&b), 0);
	c0 = &b.spec->contexts[0];
	c1 = &b.spec->contexts[1];
	c2 = &b.spec->contexts[2];
	CHECK_EQ_INT(c0->nr_schemes, 4);
	CHECK_EQ_INT(c1->nr_schemes, 2);
	CHECK_EQ_INT(c2->nr_schemes, 3);
	check_stat_scheme(&c0->schemes[0]);
	check_stat_scheme(&c1->schemes[0]);
	check_stat_scheme(&c2->schemes[0]);
	/* Tier 0: /a's 16 pages to tier 2 (node 3) are the larger group. */
	check_action(&c0->schemes[1], TIERD_DAMON_ACTION_MIGRATE_COLD, 3, "/a", P(1024), P(1040),
		     0, 0, 100000 / TIERD_DAMOS_APPLIES_PER_AGGR);
	check_action(&c0->schemes[2], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(256), P(258), 0,
		     2, 25000);
	check_action(&c0->schemes[3], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(512), P(520), 0,
		     7, 25000);
	check_action(&c1->schemes[1], TIERD_DAMON_ACTION_MIGRATE_COLD, 3, "/c", TIER1_START,
		     TIER1_START + P(4), 0, 9, AGGR_T1 / TIERD_DAMOS_APPLIES_PER_AGGR);
	/* Promotions: regions seen accessed at least once, when the span's were. */
	check_action(&c2->schemes[1], TIERD_DAMON_ACTION_MIGRATE_HOT, 0, "/b", TIER2_START,
		     TIER2_START + P(1), 0, TIERD_DAMON_NR_UNLIMITED, 5000);
	check_action(&c2->schemes[2], TIERD_DAMON_ACTION_MIGRATE_HOT, 0, "/b", TIER2_START + P(16),
		     TIER2_START + P(20), 1, TIERD_DAMON_NR_UNLIMITED, 5000);

	CHECK_EQ_INT(b.batch->nr_slots, 6);
	CHECK_EQ_INT(b.batch->nr_deferred, 0);
	CHECK_EQ_U64(b.batch->deferred_bytes, 0);
	sl = b.batch->slots;
	check_slot(&sl[0], 0, 1, 0, 0, 2, P(16));
	check_slot(&sl[1], 0, 2, 0, 0, 1, P(2));
	check_slot(&sl[2], 0, 3, 0, 0, 1, P(8));
	check_slot(&sl[3], 1, 1, 2, 1, 2, P(3));
	check_slot(&sl[4], 2, 1, 1, 2, 0, P(1));
	check_slot(&sl[5], 2, 2, 1, 2, 0, P(4));
	CHECK_EQ_INT(sl[4].path, TIERD_PATH_DAMOS_MIGRATE_HOT);
	CHECK_EQ_INT(sl[0].path, TIERD_PATH_DAMOS_MIGRATE_COLD);
	build_free(&b);
}

/* One group over the 15 action slots of its kdamond is merged across its
 * smallest gaps; demotions keep the hottest bound, promotions the coldest;
 * among equal gaps the lower one goes first. */
static void test_build_merge(void)
{
	const struct tierd_damon_ctx_spec *c;
	struct build b;

	build_init(&b);
	/* Tier 0 -> 1: 17 one-page spans at page 16 i, but span 4 one page
	 * after span 3 and span 11 two pages after span 10; span i was seen
	 * with i accesses. */
	for (uint32_t i = 0; i < 17; i++) {
		uint64_t pg = i == 4 ? 50 : i == 11 ? 163 : 16 * i;

		add(&b, span(0, 0, 1, P(pg), P(pg + 1), P(1), i));
	}
	/* Tier 1 -> 0: 16 spans at page 16 i, spans 4 and 10 one page after
	 * the one before; span 3 unaccessed, the others i + 1 accesses. */
	for (uint32_t i = 0; i < 16; i++) {
		uint64_t pg = i == 4 ? 50 : i == 10 ? 146 : 16 * i;

		add(&b, span(4, 1, 0, TIER1_START + P(pg), TIER1_START + P(pg + 1), P(1),
			     i == 3 ? 0 : i + 1));
	}
	CHECK_EQ_INT(build_run(&b), 0);
	c = &b.spec->contexts[0];
	CHECK_EQ_INT(c->nr_schemes, 1 + TIERD_DAMON_ACTION_SLOTS);
	check_action(&c->schemes[1], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(0), P(1), 0, 0,
		     25000);
	check_action(&c->schemes[3], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(32), P(33), 0, 2,
		     25000);
	check_action(&c->schemes[4], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(48), P(51), 0, 4,
		     25000);
	check_action(&c->schemes[5], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(80), P(81), 0, 5,
		     25000);
	check_action(&c->schemes[9], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(144), P(145), 0,
		     9, 25000);
	check_action(&c->schemes[10], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(160), P(164), 0,
		     11, 25000);
	check_action(&c->schemes[11], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(192), P(193), 0,
		     12, 25000);
	check_action(&c->schemes[15], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(256), P(257), 0,
		     16, 25000);

	c = &b.spec->contexts[1];
	CHECK_EQ_INT(c->nr_schemes, 1 + TIERD_DAMON_ACTION_SLOTS);
	check_action(&c->schemes[4], TIERD_DAMON_ACTION_MIGRATE_HOT, 0, "/e", TIER1_START + P(48),
		     TIER1_START + P(51), 0, TIERD_DAMON_NR_UNLIMITED, 10000);
	check_action(&c->schemes[9], TIERD_DAMON_ACTION_MIGRATE_HOT, 0, "/e", TIER1_START + P(144),
		     TIER1_START + P(145), 1, TIERD_DAMON_NR_UNLIMITED, 10000);
	check_action(&c->schemes[10], TIERD_DAMON_ACTION_MIGRATE_HOT, 0, "/e",
		     TIER1_START + P(146), TIER1_START + P(147), 1, TIERD_DAMON_NR_UNLIMITED,
		     10000);
	check_action(&c->schemes[15], TIERD_DAMON_ACTION_MIGRATE_HOT, 0, "/e",
		     TIER1_START + P(240), TIER1_START + P(241), 1, TIERD_DAMON_NR_UNLIMITED,
		     10000);

	CHECK_EQ_INT(b.batch->nr_slots, 2 * TIERD_DAMON_ACTION_SLOTS);
	CHECK_EQ_INT(b.batch->nr_deferred, 0);
	check_slot(&b.batch->slots[0], 0, 1, 0, 0, 1, P(1));
	check_slot(&b.batch->slots[3], 0, 4, 0, 0, 1, P(2));
	check_slot(&b.batch->slots[9], 0, 10, 0, 0, 1, P(2));
	check_slot(&b.batch->slots[14], 0, 15, 0, 0, 1, P(1));
	check_slot(&b.batch->slots[18], 1, 4, 4, 1, 0, P(2));
	check_slot(&b.batch->slots[29], 1, 15, 4, 1, 0, P(1));
	build_free(&b);
}

/* Four groups of five spans share tier 0's 15 slots: 3 each, and the three
 * largest one more. Group g (cgroup g) has spans of g + 1 pages at pages
 * 1000 g + 0, 10, 30, 60, 100: its gaps grow along it. */
static void test_build_share(void)
{
	static const uint64_t offs[] = { 0, 10, 30, 60, 100 };
	const struct tierd_damon_ctx_spec *c;
	struct build b;

	build_init(&b);
	for (size_t g = 0; g < 4; g++)
		for (size_t j = 0; j < TIERD_ARRAY_SIZE(offs); j++) {
			uint64_t pg = 1000 * g + offs[j];

			add(&b, span(g, 0, 1, P(pg), P(pg + g + 1), P(g + 1), 1));
		}
	CHECK_EQ_INT(build_run(&b), 0);
	c = &b.spec->contexts[0];
	CHECK_EQ_INT(c->nr_schemes, 1 + TIERD_DAMON_ACTION_SLOTS);
	CHECK_EQ_INT(b.batch->nr_slots, TIERD_DAMON_ACTION_SLOTS);
	CHECK_EQ_INT(b.batch->nr_deferred, 0);
	/* /d (20 pages): 4 slots, its first two spans merged. */
	check_action(&c->schemes[1], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/d", P(3000), P(3014), 0,
		     1, 25000);
	check_action(&c->schemes[2], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/d", P(3030), P(3034), 0,
		     1, 25000);
	check_action(&c->schemes[4], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/d", P(3100), P(3104), 0,
		     1, 25000);
	check_slot(&b.batch->slots[0], 0, 1, 3, 0, 1, P(8));
	check_slot(&b.batch->slots[1], 0, 2, 3, 0, 1, P(4));
	check_slot(&b.batch->slots[3], 0, 4, 3, 0, 1, P(4));
	check_slot(&b.batch->slots[4], 0, 5, 2, 0, 1, P(6));
	check_slot(&b.batch->slots[8], 0, 9, 1, 0, 1, P(4));
	check_slot(&b.batch->slots[11], 0, 12, 1, 0, 1, P(2));
	/* /a (5 pages): 3 slots, its first three spans merged. */
	check_action(&c->schemes[13], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(0), P(31), 0, 1,
		     25000);
	check_action(&c->schemes[14], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(60), P(61), 0, 1,
		     25000);
	check_action(&c->schemes[15], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/a", P(100), P(101), 0,
		     1, 25000);
	check_slot(&b.batch->slots[12], 0, 13, 0, 0, 1, P(3));
	check_slot(&b.batch->slots[13], 0, 14, 0, 0, 1, P(1));
	check_slot(&b.batch->slots[14], 0, 15, 0, 0, 1, P(1));
	build_free(&b);
}

/* 17 groups on tier 0: the 15 largest get a slot each, the two smallest
 * wait (all their spans); equal groups are served in cgroup order. */
static void test_build_defer(void)
{
	struct build b;

	build_init(&b);
	add(&b, span(0, 0, 1, P(0), P(1), P(1), 0));
	add(&b, span(0, 0, 1, P(4), P(6), P(2), 0));
	add(&b, span(1, 0, 1, P(10), P(14), P(4), 0));
	for (size_t c = 2; c < 17; c++)
		add(&b, span(c, 0, 1, P(100 * c), P(100 * c + 10 + c), P(10 + c), 0));
	CHECK_EQ_INT(build_run(&b), 0);
	CHECK_EQ_INT(b.spec->contexts[0].nr_schemes, 1 + TIERD_DAMON_ACTION_SLOTS);
	CHECK_EQ_INT(b.batch->nr_slots, TIERD_DAMON_ACTION_SLOTS);
	CHECK_EQ_INT(b.batch->nr_deferred, 3);
	CHECK_EQ_U64(b.batch->deferred_bytes, P(7));
	check_slot(&b.batch->slots[0], 0, 1, 16, 0, 1, P(26));
	check_slot(&b.batch->slots[14], 0, 15, 2, 0, 1, P(12));
	check_action(&b.spec->contexts[0].schemes[15], TIERD_DAMON_ACTION_MIGRATE_COLD, 2, "/c",
		     P(200), P(212), 0, 0, 25000);

	/* 16 equal groups: the last cgroup waits. */
	b.nr = 0;
	for (size_t c = 0; c < 16; c++)
		add(&b, span(c, 0, 1, P(10 * c), P(10 * c + 1), P(1), 0));
	CHECK_EQ_INT(build_run(&b), 0);
	CHECK_EQ_INT(b.batch->nr_slots, TIERD_DAMON_ACTION_SLOTS);
	CHECK_EQ_INT(b.batch->nr_deferred, 1);
	CHECK_EQ_U64(b.batch->deferred_bytes, P(1));
	for (size_t i = 0; i < TIERD_DAMON_ACTION_SLOTS; i++)
		check_slot(&b.batch->slots[i], 0, i + 1, i, 0, 1, P(1));
	build_free(&b);
}

static void test_build_errors(void)
{
	static const struct node_def no_tier2[] = {
		{ 0, 0, GIB }, { 1, 1, GIB }, { 2, 1, GIB },
	};
	struct build b;

	build_init(&b);
	b.layout.tiers[1].nr_ranges = 0;
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: tier 1 has 0 physical ranges, expected 1..16: Invalid argument");
	CHECK_EQ_INT(b.batch->nr_slots, 0);
	b.layout.tiers[1].nr_ranges = TIERD_DAMON_MAX_REGIONS + 1;
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: tier 1 has 17 physical ranges, expected 1..16: Invalid argument");

	machine_layout(&b.layout);
	b.layout.nr_tiers = 2;
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: 2 tiers laid out for 3 tiers (at most 16): Invalid argument");
	b.layout.nr_tiers = TIERD_DAMON_MAX_CONTEXTS + 1;
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: 17 tiers laid out for 3 tiers (at most 16): Invalid argument");
	b.layout.nr_tiers = 0;
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: 0 tiers laid out for 3 tiers (at most 16): Invalid argument");

	machine_layout(&b.layout);
	add(&b, span(0, 0, 1, P(0), P(1), P(1), 0));
	add(&b, span(0, 1, 1, TIER1_START + P(1), TIER1_START + P(2), P(1), 0));
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: span 1: tiers 1 -> 1, [1073745920, 1073750016): Invalid argument");
	b.spans[1] = span(0, 0, NR_TIERS, P(1), P(2), P(1), 0);
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: span 1: tiers 0 -> 3, [4096, 8192): Invalid argument");
	b.spans[1] = span(0, NR_TIERS, 0, P(1), P(2), P(1), 0);
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: span 1: tiers 3 -> 0, [4096, 8192): Invalid argument");
	b.spans[1] = span(0, 0, 1, P(2), P(2), 0, 0);
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: span 1: tiers 0 -> 1, [8192, 8192): Invalid argument");

	/* A migration into a tier without nodes has no target. */
	make_topology(&b.topo, no_tier2, TIERD_ARRAY_SIZE(no_tier2), NR_TIERS);
	b.spans[1] = span(0, 0, 2, P(2), P(3), P(1), 0);
	CHECK_EQ_INT(build_run(&b), -EINVAL);
	CHECK_EQ_STR(b.cap.last,
		     "damon: tier 2 has no node: Invalid argument");
	build_free(&b);
}

int main(void)
{
	test_target_node();
	test_spans_migrate();
	test_spans_demote();
	test_spans_after();
	test_build_contexts();
	test_build_actions();
	test_build_merge();
	test_build_share();
	test_build_defer();
	test_build_errors();
	return tierd_test_finish();
}
