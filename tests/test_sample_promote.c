/* Promotions of sampled pages (controller/sample_promote.c) against a fake
 * kernel of two processes: actions on token addresses become one
 * move_pages(2) call group per (cgroup, process, node), to the freest node
 * of the target tier; busy pages are retried on later runs up to
 * TIERD_PROMOTE_ATTEMPTS tries; a gone process's pages are forgotten; and
 * bytes, the tier matrix, per-tier counts and feedback are exact. */
#include <errno.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../controller/sample_promote.h"

TIERD_TEST_MAIN_COUNTS;

#define PAGE TIERD_PAGE_BYTES
#define BASE 0x7f0000000000ull
#define NPAGES 16
#define PID_A 100
#define PID_B 200
#define CG_A 11
#define CG_B 22

struct fake {
	int node[2][NPAGES];     /* [process][page]: where it is */
	int move_err[2][NPAGES]; /* 0 or the -errno its move reports */
	bool gone[2];            /* the process exited: ESRCH */
	unsigned moves;          /* move calls (not queries) */
	int last_pid, last_node;
	unsigned long last_count;
};

static int proc_of(int pid)
{
	return pid == PID_A ? 0 : pid == PID_B ? 1 : -1;
}

static long fake_move_pages(void *data, int pid, unsigned long count, void **pages,
			    const int *nodes, int *status, int flags)
{
	struct fake *f = data;
	int p = proc_of(pid);

	(void)flags;
	if (p < 0 || f->gone[p])
		return -ESRCH;
	if (nodes) {
		f->moves++;
		f->last_pid = pid;
		f->last_node = nodes[0];
		f->last_count = count;
	}
	for (unsigned long i = 0; i < count; i++) {
		uint64_t k = ((uintptr_t)pages[i] - BASE) / PAGE;

		if (k >= NPAGES) {
			status[i] = -EFAULT;
			continue;
		}
		if (nodes && f->move_err[p][k]) {
			status[i] = f->move_err[p][k];
			continue;
		}
		if (nodes)
			f->node[p][k] = nodes[i];
		status[i] = f->node[p][k];
	}
	return 0;
}

static const struct tierd_move_pages_ops fake_ops = { .move_pages = fake_move_pages };

/* Nodes 0..3 in tiers 0, 1, 1, 2: tier 1's freest node is 2. */
static void topology(struct tierd_topology *topo)
{
	static const int tier[] = { 0, 1, 1, 2 };
	static const uint64_t free_mib[] = { 500, 100, 300, 900 };

	memset(topo, 0, sizeof(*topo));
	topo->nr_nodes = 4;
	topo->nr_tiers = 3;
	for (int i = 0; i < 4; i++)
		topo->nodes[i] = (struct tierd_node){ .nid = i, .tier = tier[i],
						      .free_bytes = free_mib[i] << 20 };
}

struct world {
	struct fake f;
	struct tierd_topology topo;
	struct tierd_sample_pages pages;
	struct tierd_sample_promoter p;
	struct tierd_cgroup_obs obs[2];
	struct tierd_engine_cgroup cg[2];
	struct tierd_engine_input in;
	struct tierd_migration_stats stats;
	struct tierd_promotion_counts counts;
	unsigned logged;
	int logged_err;
};

static void count_log(void *data, uint64_t cgroup_id, uint32_t tgid, int node, int err)
{
	struct world *w = data;

	(void)cgroup_id;
	(void)tgid;
	(void)node;
	w->logged++;
	w->logged_err = err;
}

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	for (int p = 0; p < 2; p++)
		for (int k = 0; k < NPAGES; k++)
			w->f.node[p][k] = 3;
	topology(&w->topo);
	CHECK_EQ_INT(tierd_sample_pages_init(&w->pages, 64), 0);
	CHECK_EQ_INT(tierd_sample_promoter_init(&w->p, &fake_ops, &w->f, &w->pages), 0);
	w->obs[0].id = CG_A;
	w->obs[1].id = CG_B;
	w->cg[0].obs = &w->obs[0];
	w->cg[1].obs = &w->obs[1];
	w->in = (struct tierd_engine_input){ .topo = &w->topo, .nr_cgroups = 2, .cgroups = w->cg };
}

static void world_free(struct world *w)
{
	tierd_sample_promoter_free(&w->p);
	tierd_sample_pages_free(&w->pages);
}

static struct tierd_action migrate(size_t cgroup, uint64_t start, size_t pages, size_t to)
{
	return (struct tierd_action){ .kind = TIERD_ACTION_MIGRATE, .cgroup = cgroup,
				      .from_tier = 2, .to_tier = to, .start = start,
				      .end = start + pages * PAGE, .bytes = pages * PAGE };
}

static int run(struct world *w, struct tierd_action *acts, size_t n)
{
	struct tierd_plan plan = { .nr_actions = n, .actions = acts };

	return tierd_sample_promote(&w->p, &w->in, &plan, &w->stats, &w->counts, count_log, w);
}

static void test_groups(void)
{
	struct world w;
	struct tierd_action acts[4];
	uint64_t a0, b0;

	world_init(&w);
	/* Tokens are given in sampling order: A's pages 0-3, then B's 0-1. */
	a0 = tierd_sample_pages_token(&w.pages, PID_A, BASE);
	for (int k = 1; k < 4; k++)
		(void)tierd_sample_pages_token(&w.pages, PID_A, BASE + k * PAGE);
	b0 = tierd_sample_pages_token(&w.pages, PID_B, BASE);
	(void)tierd_sample_pages_token(&w.pages, PID_B, BASE + PAGE);
	acts[0] = migrate(0, a0, 2, 0);            /* A 0-1 to tier 0: node 0 */
	acts[1] = migrate(0, a0 + 2 * PAGE, 2, 1); /* A 2-3 to tier 1: node 2, the freer */
	acts[2] = migrate(1, b0, 2, 0);            /* B 0-1 to tier 0 */
	/* A physical range (a DAMON region) is not this module's. */
	acts[3] = migrate(0, 0x100000000ull, 4, 0);
	CHECK_EQ_INT(run(&w, acts, 4), 0);
	CHECK_EQ_INT(w.f.node[0][0], 0);
	CHECK_EQ_INT(w.f.node[0][1], 0);
	CHECK_EQ_INT(w.f.node[0][2], 2);
	CHECK_EQ_INT(w.f.node[0][3], 2);
	CHECK_EQ_INT(w.f.node[0][4], 3);
	CHECK_EQ_INT(w.f.node[1][0], 0);
	CHECK_EQ_INT(w.f.node[1][1], 0);
	CHECK_EQ_INT(w.f.moves, 3);
	CHECK_EQ_U64(w.stats.path[TIERD_PATH_MOVE_PAGES].tried_bytes, 6 * PAGE);
	CHECK_EQ_U64(w.stats.path[TIERD_PATH_MOVE_PAGES].succeeded_bytes, 6 * PAGE);
	CHECK_EQ_U64(w.stats.path[TIERD_PATH_MOVE_PAGES].calls, 3);
	CHECK_EQ_U64(w.stats.matrix[2][0], 4 * PAGE);
	CHECK_EQ_U64(w.stats.matrix[2][1], 2 * PAGE);
	CHECK_EQ_U64(w.counts.tried[0], 4);
	CHECK_EQ_U64(w.counts.succeeded[0], 4);
	CHECK_EQ_U64(w.counts.tried[1], 2);
	CHECK_EQ_U64(w.counts.failed[1], 0);
	CHECK_EQ_U64(w.p.nr_feedback, 2);
	CHECK_EQ_U64(w.p.feedback[0].cgroup_id, CG_A);
	CHECK_EQ_U64(w.p.feedback[0].promoted_bytes, 4 * PAGE);
	CHECK_EQ_U64(w.p.feedback[1].cgroup_id, CG_B);
	CHECK_EQ_U64(w.p.feedback[1].promoted_bytes, 2 * PAGE);
	CHECK_EQ_U64(w.p.nr_retry, 0);
	CHECK_EQ_INT(w.logged, 0);
	/* Planned again: already there, nothing tried, no call moves. */
	CHECK_EQ_INT(run(&w, acts, 1), 0);
	CHECK_EQ_INT(w.f.moves, 3);
	CHECK_EQ_U64(w.counts.tried[0], 4);
	CHECK_EQ_U64(w.p.feedback[0].promoted_bytes, 0);
	world_free(&w);
}

static void test_retry(void)
{
	struct world w;
	struct tierd_action act;
	uint64_t a0;

	world_init(&w);
	a0 = tierd_sample_pages_token(&w.pages, PID_A, BASE);
	(void)tierd_sample_pages_token(&w.pages, PID_A, BASE + PAGE);
	(void)tierd_sample_pages_token(&w.pages, PID_A, BASE + 2 * PAGE);
	w.f.move_err[0][1] = -EBUSY;   /* transient: retried */
	w.f.move_err[0][2] = -EACCES;  /* final: dropped */
	act = migrate(0, a0, 3, 0);
	CHECK_EQ_INT(run(&w, &act, 1), 0);
	CHECK_EQ_INT(w.f.node[0][0], 0);
	CHECK_EQ_U64(w.counts.tried[0], 3);
	CHECK_EQ_U64(w.counts.succeeded[0], 1);
	CHECK_EQ_U64(w.counts.failed[0], 2);
	CHECK_EQ_U64(w.p.feedback[0].failed_bytes, 2 * PAGE);
	CHECK_EQ_U64(w.p.nr_retry, 1);
	CHECK_EQ_U64(w.p.retry[0].token, a0 + PAGE);
	CHECK_EQ_U64(w.p.retry[0].attempts, 1);
	/* Next run, nothing new planned: the busy page goes again, alone. */
	CHECK_EQ_INT(run(&w, NULL, 0), 0);
	CHECK_EQ_U64(w.f.last_count, 1);
	CHECK_EQ_U64(w.p.nr_retry, 1);
	CHECK_EQ_U64(w.p.retry[0].attempts, 2);
	/* The third try is the last one, busy or not. */
	CHECK_EQ_INT(run(&w, NULL, 0), 0);
	CHECK_EQ_U64(w.p.nr_retry, 0);
	CHECK_EQ_U64(w.counts.tried[0], 5);
	CHECK_EQ_U64(w.counts.failed[0], 4);
	CHECK_EQ_INT(w.f.moves, 3);
	/* Free now, planned anew: it moves. */
	w.f.move_err[0][1] = 0;
	act = migrate(0, a0 + PAGE, 1, 0);
	CHECK_EQ_INT(run(&w, &act, 1), 0);
	CHECK_EQ_INT(w.f.node[0][1], 0);
	CHECK_EQ_U64(w.counts.succeeded[0], 2);
	world_free(&w);
}

/* A retry into a tier where the cgroup has since reached its max (the
 * plan's standing: what it holds, plus what the plan moves in, at its
 * ceiling) is dropped, not moved: the engine admitted it a tick ago. One
 * page of room takes one retry. */
static void test_retry_at_max(void)
{
	struct world w;
	struct tierd_action act;
	struct tierd_cgroup_standing st[2] = { 0 };
	struct tierd_plan plan = { .nr_cgroups = 2, .standings = st };
	uint64_t a0;

	world_init(&w);
	a0 = tierd_sample_pages_token(&w.pages, PID_A, BASE);
	(void)tierd_sample_pages_token(&w.pages, PID_A, BASE + PAGE);
	w.f.move_err[0][0] = -EBUSY;
	w.f.move_err[0][1] = -EBUSY;
	act = migrate(0, a0, 2, 0);
	CHECK_EQ_INT(run(&w, &act, 1), 0);
	CHECK_EQ_U64(w.p.nr_retry, 2);
	w.f.move_err[0][0] = 0;
	w.f.move_err[0][1] = 0;
	st[0].tiers[0] = (struct tierd_tier_standing){ .has_max = true, .anon_bytes = 60 * PAGE,
						       .max_bytes = 64 * PAGE, .fill_bytes = 62 * PAGE,
						       .ceiling_bytes = 62 * PAGE };
	/* The plan moves 1 page of it out of tier 0 and 2 in: 61 held at a
	 * ceiling of 62, room for one retry. */
	{
		struct tierd_action acts[2] = {
			{ .kind = TIERD_ACTION_DEMOTE, .cgroup = 0, .from_tier = 0, .to_tier = 2,
			  .bytes = PAGE },
			{ .kind = TIERD_ACTION_MIGRATE, .cgroup = 0, .from_tier = 2, .to_tier = 0,
			  .start = BASE + 8 * PAGE, .end = BASE + 10 * PAGE, .bytes = 2 * PAGE },
		};

		plan.nr_actions = 2;
		plan.actions = acts;
		CHECK_EQ_INT(tierd_sample_promote(&w.p, &w.in, &plan, &w.stats, &w.counts, count_log, &w), 0);
	}
	CHECK_EQ_U64(w.p.at_max, 1);
	CHECK_EQ_INT(w.f.node[0][0], 0);
	CHECK_EQ_INT(w.f.node[0][1], 3);
	CHECK_EQ_U64(w.p.nr_retry, 0);
	world_free(&w);
}

static void test_gone(void)
{
	struct world w;
	struct tierd_action acts[2];
	uint64_t a0, b0, vaddr;
	uint32_t tgid;

	world_init(&w);
	a0 = tierd_sample_pages_token(&w.pages, PID_A, BASE);
	b0 = tierd_sample_pages_token(&w.pages, PID_B, BASE);
	w.f.gone[0] = true;
	acts[0] = migrate(0, a0, 1, 0);
	acts[1] = migrate(1, b0, 1, 0);
	CHECK_EQ_INT(run(&w, acts, 2), 0);
	CHECK_EQ_INT(w.logged, 1);
	CHECK_EQ_INT(w.logged_err, -ESRCH);
	CHECK_EQ_INT(tierd_sample_pages_lookup(&w.pages, a0, &tgid, &vaddr), -ENOENT);
	CHECK_EQ_INT(w.f.node[1][0], 0);
	CHECK_EQ_U64(w.counts.tried[0], 2);
	CHECK_EQ_U64(w.counts.succeeded[0], 1);
	CHECK_EQ_U64(w.stats.path[TIERD_PATH_MOVE_PAGES].failed_bytes, PAGE);
	/* Planned on the forgotten token: refused, counted stale. */
	CHECK_EQ_INT(run(&w, acts, 1), 0);
	CHECK_EQ_U64(w.p.stale, 1);
	CHECK_EQ_U64(w.counts.tried[0], 2);
	world_free(&w);
}

/* A deadline already past: the first call is made, the other group waits
 * in the retry queue, its attempts unchanged, and goes with the next run. */
static void test_deadline(void)
{
	struct world w;
	struct tierd_action acts[2];
	struct tierd_plan plan = { .nr_actions = 2, .actions = acts };
	struct tierd_promote_batch b;
	uint64_t a0, b0;

	world_init(&w);
	a0 = tierd_sample_pages_token(&w.pages, PID_A, BASE);
	(void)tierd_sample_pages_token(&w.pages, PID_A, BASE + PAGE);
	b0 = tierd_sample_pages_token(&w.pages, PID_B, BASE);
	(void)tierd_sample_pages_token(&w.pages, PID_B, BASE + PAGE);
	acts[0] = migrate(0, a0, 2, 0);
	acts[1] = migrate(1, b0, 2, 0);
	CHECK_EQ_INT(tierd_sample_promote_prepare(&w.p, &w.in, &plan, &b), 0);
	CHECK_EQ_U64(b.nr_groups, 2);
	tierd_promote_batch_run(&fake_ops, &w.f, &b, 1);
	CHECK(b.deadline_hit);
	CHECK_EQ_U64(b.nr_ran, 1);
	CHECK_EQ_INT(w.f.moves, 1);
	CHECK_EQ_INT(tierd_sample_promote_finish(&w.p, &w.topo, &b, &w.stats, &w.counts, count_log,
						 &w), 0);
	CHECK(b.items == NULL && b.groups == NULL);
	CHECK_EQ_INT(w.f.node[0][0], 0);
	CHECK_EQ_INT(w.f.node[0][1], 0);
	CHECK_EQ_INT(w.f.node[1][0], 3);
	CHECK_EQ_U64(w.p.deadline_hits, 1);
	CHECK_EQ_U64(w.p.deferred, 2);
	CHECK_EQ_U64(w.p.nr_retry, 2);
	CHECK_EQ_U64(w.p.retry[0].cgroup_id, CG_B);
	CHECK_EQ_U64(w.p.retry[0].attempts, 0);
	CHECK_EQ_U64(w.p.nr_feedback, 1);
	CHECK_EQ_U64(w.p.feedback[0].promoted_bytes, 2 * PAGE);
	CHECK_EQ_U64(w.stats.path[TIERD_PATH_MOVE_PAGES].tried_bytes, 2 * PAGE);
	CHECK_EQ_U64(w.counts.tried[0], 2);
	/* The feedback read, a tick without a batch reads none. */
	tierd_sample_promoter_consumed(&w.p);
	CHECK_EQ_U64(w.p.nr_feedback, 0);
	/* The next run, without a deadline, takes B's pages. */
	CHECK_EQ_INT(run(&w, acts, 0), 0);
	CHECK_EQ_INT(w.f.moves, 2);
	CHECK_EQ_INT(w.f.node[1][0], 0);
	CHECK_EQ_INT(w.f.node[1][1], 0);
	CHECK_EQ_U64(w.p.nr_retry, 0);
	CHECK_EQ_U64(w.counts.tried[0], 4);
	CHECK_EQ_U64(w.p.deadline_hits, 1);
	world_free(&w);
}

/* One process's pages to one node go in calls of at most
 * TIERD_MOVE_PAGES_BATCH pages, so that a deadline falls between calls. */
static void test_batch_groups(void)
{
	enum { NR = TIERD_MOVE_PAGES_BATCH + 904, CAP = 2 * TIERD_MOVE_PAGES_BATCH };
	struct world w;
	struct tierd_action act;
	struct tierd_plan plan = { .nr_actions = 1, .actions = &act };
	struct tierd_promote_batch b;
	uint64_t first;

	world_init(&w);
	tierd_sample_pages_free(&w.pages);
	CHECK_EQ_INT(tierd_sample_pages_init(&w.pages, CAP), 0);
	first = tierd_sample_pages_token(&w.pages, PID_A, BASE);
	for (uint64_t k = 1; k < NR; k++)
		(void)tierd_sample_pages_token(&w.pages, PID_A, BASE + k * PAGE);
	act = migrate(0, first, NR, 0);
	CHECK_EQ_INT(tierd_sample_promote_prepare(&w.p, &w.in, &plan, &b), 0);
	CHECK_EQ_U64(b.nr_items, NR);
	CHECK_EQ_U64(b.nr_groups, 2);
	CHECK_EQ_U64(b.groups[0].n, TIERD_MOVE_PAGES_BATCH);
	CHECK_EQ_U64(b.groups[1].first, TIERD_MOVE_PAGES_BATCH);
	CHECK_EQ_U64(b.groups[1].n, 904);
	CHECK_EQ_U64(b.items[TIERD_MOVE_PAGES_BATCH].vaddr, BASE + TIERD_MOVE_PAGES_BATCH * PAGE);
	tierd_promote_batch_free(&b);
	world_free(&w);
}

int main(void)
{
	test_groups();
	test_retry();
	test_retry_at_max();
	test_gone();
	test_deadline();
	test_batch_groups();
	return tierd_test_finish();
}
