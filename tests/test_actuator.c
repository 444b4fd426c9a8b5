/* Unit tests for controller/actuator_kernel.c (the plan carried out:
 * memory.reclaim where DAMOS cannot enforce a tier-0 budget, DAMOS spans
 * handed to the DAMON backend) against a copy of the four-tier fixture
 * under a mkdtemp directory, and for controller/hotness_read.c (DAMON
 * regions split by the owners in a hand-written /proc/kpagecgroup).
 * memory.reclaim and demotion_enabled are plain files here: tierd's
 * writes land in them and nothing changes memory.numa_stat, so what
 * "moved" is what the observation handed to apply says beyond the file.
 * The DAMON backend is built by hand without kdamonds: apply plans its
 * spec but has no kdamond to commit to. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../controller/actuator_kernel.h"
#include "../controller/fsread.h"
#include "../controller/hotness_read.h"
#include "../controller/topology_read.h"
#include "../policy/units.h"
#include "../policy/util.h"
#include "check.h"
#include "log_capture.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define FIXTURE "tests/fixtures/four-tier" /* tests run from the repository root */
#define MACHINE "/m" /* the fixture's copy under root, the machine tierd acts on */
#define MIB (1024ull * 1024)
#define GIB (1024 * MIB)
#define P(n) ((uint64_t)(n) * TIERD_PAGE_BYTES)
#define CGROUP_FS "/sys/fs/cgroup"
#define DEMOTION "/sys/kernel/mm/numa/demotion_enabled"
#define DB "/workload.slice/db.service"
#define NGINX "/system.slice/nginx.service"
#define SSH "/system.slice/ssh.service"
#define NR_CG 3
#define ACTIONS_MAX 8
/* db.service holds 832M on tier 0 (tests/fixtures/README.md); the plan
 * below has it 256M over its tier-0 max. */
#define DB_OVER (256 * MIB)
/* The fixture's nodes 0-3, 1 GiB of memory blocks each; node 3's start
 * after the hole at 3 GiB (memory32). */
#define NODE3_START (4 * GIB)
/* The daemon's default tick: a job's deadline is half of it, far more
 * than the fixture's plain-file writes take. */
#define RIG_TICK_USEC 1000000

static char root[TMPTREE_DIR_MAX];

static const char *reclaim_file(const char *cgroup)
{
	static char path[TIERD_FILE_PATH_MAX];

	snprintf(path, sizeof(path), MACHINE CGROUP_FS "%s/memory.reclaim", cgroup);
	return tmptree_get(root, path);
}

static void reset_reclaim_files(void)
{
	static const char *const cgroups[] = { DB, NGINX, SSH };
	char path[TIERD_FILE_PATH_MAX];

	for (size_t c = 0; c < NR_CG; c++) {
		snprintf(path, sizeof(path), MACHINE CGROUP_FS "%s/memory.reclaim", cgroups[c]);
		tmptree_put(root, path, "");
	}
}

/* One tick's actuation on the machine copy at root/m: cgroups 0 db, 1
 * nginx, 2 ssh; db over its tier-0 max by DB_OVER. */
struct rig {
	char machine[TIERD_FILE_PATH_MAX];
	struct tierd_topology topo;
	struct tierd_cgroupfs fs;
	struct tierd_ksettings ks;
	struct tierd_damon_backend damon;
	struct tierd_damon_async async; /* unthreaded: commits at once */
	struct tierd_migration_stats stats;
	struct tierd_logger log;
	struct tierd_kernel_actuator k;
	struct tierd_cgroup_obs obs[NR_CG];
	struct tierd_engine_cgroup cg[NR_CG];
	struct tierd_cgroup_standing standings[NR_CG];
	struct tierd_action actions[ACTIONS_MAX];
	struct tierd_engine_input in;
	struct tierd_plan plan;
	uint64_t period[TIERD_MAX_TIERS];
	struct tierd_actuation act;
};

static struct tierd_action demote(enum tierd_reason reason, size_t cgroup, size_t from, size_t to,
				  uint64_t bytes)
{
	return (struct tierd_action){ .kind = TIERD_ACTION_DEMOTE, .reason = reason,
				      .cgroup = cgroup, .from_tier = from, .to_tier = to,
				      .bytes = bytes };
}

/* The engine's budget demotion of db (lowest tier first, the rest one
 * tier up), plus actions the fallback must not count: db's over-max
 * demotion out of tier 1, its staging demotion, and nginx's own 8M. */
static void default_plan(struct rig *r)
{
	size_t n = 0;

	r->actions[n++] = demote(TIERD_REASON_OVER_TIER_MAX, 0, 0, 3, 192 * MIB);
	r->actions[n++] = demote(TIERD_REASON_OVER_TIER_MAX, 0, 0, 2, 64 * MIB);
	r->actions[n++] = demote(TIERD_REASON_OVER_TIER_MAX, 0, 1, 3, 32 * MIB);
	r->actions[n++] = demote(TIERD_REASON_STAGING_DEMOTION, 0, 0, 1, 16 * MIB);
	r->actions[n++] = demote(TIERD_REASON_OVER_TIER_MAX, 1, 0, 1, 8 * MIB);
	r->plan.nr_actions = n;
}

static struct rig *rig_new(enum tierd_damon_mode mode)
{
	static const char *const cgroups[NR_CG] = { DB, NGINX, SSH };
	struct tierd_config cfg;
	struct tierd_buf buf = { 0 };
	char cmd[TIERD_FILE_PATH_MAX];
	struct rig *r = calloc(1, sizeof(*r));
	struct tierd_log_keep cap;
	const struct tierd_logger *log = capture(&cap);

	if (!r)
		abort();
	tmptree_rm(root, MACHINE);
	tmptree_join(r->machine, sizeof(r->machine), root, MACHINE);
	snprintf(cmd, sizeof(cmd), "cp -r " FIXTURE " '%s" MACHINE "'", root);
	if (system(cmd) != 0)
		abort();
	reset_reclaim_files();
	tierd_config_defaults(&cfg);
	if (tierd_topology_read(r->machine, &cfg, &r->topo, log) < 0 ||
	    tierd_cgroupfs_open(r->machine, &r->fs, log) < 0 ||
	    tierd_ksettings_init(&r->ks, r->machine, log) < 0) {
		fprintf(stderr, "rig: %s\n", cap.last);
		abort();
	}
	for (size_t c = 0; c < NR_CG; c++) {
		if (tierd_cgroupfs_read(&r->fs, cgroups[c], &r->topo, &r->obs[c], &buf, NULL,
					log) < 0) {
			fprintf(stderr, "rig: %s\n", cap.last);
			abort();
		}
		r->cg[c] = (struct tierd_engine_cgroup){ .obs = &r->obs[c] };
		r->standings[c] = (struct tierd_cgroup_standing){ .cgroup = c };
	}
	tierd_buf_free(&buf);
	r->standings[0].tiers[0].over_bytes = DB_OVER;
	/* Only errors: the paths taken are asserted, not their log lines. */
	tierd_log_setup(&r->log, TIERD_LOG_TARGET_STDERR, TIERD_LOG_ERR);
	r->damon.state.damon = mode;
	if (tierd_damon_async_start(&r->async, &r->damon, false) < 0)
		abort();
	r->k = (struct tierd_kernel_actuator){ .damon = &r->async, .fs = &r->fs, .ks = &r->ks,
					       .manage_demotion = true, .stats = &r->stats,
					       .log = &r->log };
	r->in = (struct tierd_engine_input){ .topo = &r->topo, .nr_cgroups = NR_CG,
					     .cgroups = r->cg };
	r->plan = (struct tierd_plan){ .nr_cgroups = NR_CG, .standings = r->standings,
				       .actions = r->actions };
	default_plan(r);
	r->act = (struct tierd_actuation){ .in = &r->in, .plan = &r->plan,
					   .period_usec = r->period, .tick_usec = RIG_TICK_USEC };
	return r;
}

/* A running backend without kdamonds over the fixture's physical memory. */
static void rig_backend(struct rig *r)
{
	struct tierd_damon_layout *l = &r->damon.layout;

	r->damon.spec = calloc(1, sizeof(*r->damon.spec));
	r->damon.batch = calloc(1, sizeof(*r->damon.batch));
	r->damon.slot_cgroup_id = calloc(TIERD_DAMON_MAX_ACTIONS, sizeof(uint64_t));
	if (!r->damon.spec || !r->damon.batch || !r->damon.slot_cgroup_id)
		abort();
	l->nr_tiers = 4;
	for (size_t t = 0; t < 3; t++) {
		l->tiers[t].nr_ranges = 1;
		l->tiers[t].ranges[0] = (struct tierd_damon_region){ t * GIB, (t + 1) * GIB };
	}
	l->tiers[3].nr_ranges = 1;
	l->tiers[3].ranges[0] = (struct tierd_damon_region){ NODE3_START, NODE3_START + GIB };
	tierd_damon_async_refresh(&r->async);
}

static void rig_free(struct rig *r)
{
	tierd_damon_async_stop(&r->async, &r->stats);
	tierd_damon_backend_stop(&r->damon, &r->log);
	tierd_kernel_actuator_free(&r->k);
	tierd_cgroupfs_close(&r->fs);
	free(r);
}

static void apply(struct rig *r)
{
	tierd_kernel_actuator_ops.apply(&r->k, &r->act);
}

/* Index of node nid in the topology; the rig's nodes exist. */
static size_t node(const struct rig *r, int nid)
{
	int i = tierd_topology_node_index(&r->topo, nid);

	if (i < 0)
		abort();
	return (size_t)i;
}

/* Without DAMON, memory.reclaim gets each cgroup's over-max bytes out of
 * tier 0; demotion is turned on for it and restored. */
static void test_reclaim_without_damon(void)
{
	struct rig *r = rig_new(TIERD_DAMON_ABSENT);
	const struct tierd_path_stats *ps = &r->stats.path[TIERD_PATH_MEMORY_RECLAIM];

	/* The observation had 4M more of nginx on node 0 than the re-read
	 * finds: that is what its reclaim moved. */
	r->obs[1].anon_bytes[node(r, 0)] += 4 * MIB;
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");
	CHECK_EQ_STR(reclaim_file(NGINX), "8388608");
	CHECK_EQ_STR(reclaim_file(SSH), "");
	CHECK_EQ_STR(tmptree_get(root, MACHINE DEMOTION), "true");
	CHECK(r->ks.s[TIERD_KSETTING_DEMOTION_ENABLED].changed);
	CHECK(!r->k.demotion_warned);
	CHECK_EQ_U64(ps->calls, 2);
	CHECK_EQ_U64(ps->tried_bytes, 276824064);
	CHECK_EQ_U64(ps->succeeded_bytes, 4 * MIB);
	CHECK_EQ_U64(ps->failed_bytes, 276824064 - 4 * MIB);
	CHECK_EQ_U64(r->stats.matrix[0][1], 4 * MIB);
	CHECK_EQ_U64(r->stats.path[TIERD_PATH_DAMOS_MIGRATE_COLD].calls, 0);
	/* The backend is not running: no DAMOS spec was planned. */
	CHECK(r->damon.spec == NULL);
	/* db is counted over its tier-0 max for its first tick. */
	CHECK_EQ_INT(r->k.nr_over, 1);
	if (r->k.nr_over == 1) {
		CHECK_EQ_U64(r->k.over[0].cgroup_id, r->obs[0].id);
		CHECK_EQ_U64(r->k.over[0].over_bytes, DB_OVER);
		CHECK_EQ_INT(r->k.over[0].ticks, 1);
	}

	/* demotion_enabled already true: set once, not written again. */
	reset_reclaim_files();
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");
	CHECK_EQ_STR(tmptree_get(root, MACHINE DEMOTION), "true");
	CHECK_EQ_U64(ps->calls, 4);
	CHECK_EQ_INT(tierd_ksettings_restore(&r->ks, NULL), 0);
	CHECK_EQ_STR(tmptree_get(root, MACHINE DEMOTION), "false");
	CHECK(!r->ks.s[TIERD_KSETTING_DEMOTION_ENABLED].changed);
	rig_free(r);
}

/* manage_demotion false: demotion_enabled is left alone, and while it is
 * false nothing is reclaimed (it would evict); without kernel settings
 * neither. Once someone else turns it on, reclaim runs. */
static void test_reclaim_demotion_not_managed(void)
{
	struct rig *r = rig_new(TIERD_DAMON_ABSENT);
	const struct tierd_path_stats *ps = &r->stats.path[TIERD_PATH_MEMORY_RECLAIM];

	r->k.manage_demotion = false;
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "");
	CHECK_EQ_STR(reclaim_file(NGINX), "");
	CHECK_EQ_STR(tmptree_get(root, MACHINE DEMOTION), "false\n");
	CHECK(r->k.demotion_warned);
	CHECK_EQ_U64(ps->calls, 0);
	CHECK_EQ_U64(ps->tried_bytes, 0);

	tmptree_put(root, MACHINE DEMOTION, "true\n");
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");
	CHECK_EQ_STR(reclaim_file(NGINX), "8388608");
	CHECK_EQ_STR(tmptree_get(root, MACHINE DEMOTION), "true\n");
	CHECK(!r->ks.s[TIERD_KSETTING_DEMOTION_ENABLED].saved);
	CHECK_EQ_U64(ps->calls, 2);
	CHECK_EQ_U64(ps->tried_bytes, 276824064);
	CHECK_EQ_U64(ps->succeeded_bytes, 0);
	rig_free(r);

	r = rig_new(TIERD_DAMON_ABSENT);
	r->k.ks = NULL;
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "");
	CHECK_EQ_STR(tmptree_get(root, MACHINE DEMOTION), "false\n");
	CHECK(r->k.demotion_warned);
	CHECK_EQ_U64(r->stats.path[TIERD_PATH_MEMORY_RECLAIM].calls, 0);
	rig_free(r);
}

/* With DAMON running, memory.reclaim steps in only for a cgroup that
 * stayed over its tier-0 max TIERD_RECLAIM_FALLBACK_TICKS ticks without
 * getting closer; a degraded DAMON is no DAMON. */
static void test_reclaim_fallback_ticks(void)
{
	struct rig *r = rig_new(TIERD_DAMON_RUNNING);

	rig_backend(r);
	for (uint32_t tick = 1; tick < TIERD_RECLAIM_FALLBACK_TICKS; tick++) {
		apply(r);
		CHECK_EQ_STR(reclaim_file(DB), "");
		CHECK_EQ_INT(r->k.nr_over, 1);
		CHECK_EQ_INT(r->k.over[0].ticks, tick);
	}
	/* Ticks whose DAMON reading did not come (its worker still busy: a
	 * kdamond migrating) do not count, however many. */
	r->async.fresh = false;
	for (int i = 0; i < 5; i++) {
		apply(r);
		CHECK_EQ_INT(r->k.over[0].ticks, TIERD_RECLAIM_FALLBACK_TICKS - 1);
		CHECK_EQ_STR(reclaim_file(DB), "");
	}
	r->async.fresh = true;
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");
	CHECK(r->k.wait_usec > 0);
	/* nginx has an over-max action but is not over: DAMOS's job. */
	CHECK_EQ_STR(reclaim_file(NGINX), "");
	CHECK_EQ_U64(r->stats.path[TIERD_PATH_MEMORY_RECLAIM].calls, 1);
	CHECK_EQ_U64(r->stats.path[TIERD_PATH_MEMORY_RECLAIM].tried_bytes, DB_OVER);

	/* Getting closer starts the count again; staying as far goes on. */
	reset_reclaim_files();
	r->standings[0].tiers[0].over_bytes = DB_OVER / 2;
	apply(r);
	CHECK_EQ_INT(r->k.over[0].ticks, 0);
	CHECK_EQ_STR(reclaim_file(DB), "");
	for (uint32_t tick = 1; tick < TIERD_RECLAIM_FALLBACK_TICKS; tick++) {
		apply(r);
		CHECK_EQ_INT(r->k.over[0].ticks, tick);
		CHECK_EQ_STR(reclaim_file(DB), "");
	}
	apply(r);
	CHECK_EQ_INT(r->k.over[0].ticks, TIERD_RECLAIM_FALLBACK_TICKS);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");

	/* Back under its max: forgotten. */
	r->standings[0].tiers[0].over_bytes = 0;
	apply(r);
	CHECK_EQ_INT(r->k.nr_over, 0);
	rig_free(r);

	r = rig_new(TIERD_DAMON_DEGRADED);
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");
	CHECK_EQ_STR(reclaim_file(NGINX), "8388608");
	rig_free(r);
}

/* A job's deadline passed: the cgroups after the first wait for a later
 * tick's plan (here a tick of 0 s: the deadline is when it starts). */
static void test_reclaim_deadline(void)
{
	struct rig *r = rig_new(TIERD_DAMON_ABSENT);

	r->act.tick_usec = 0;
	apply(r);
	CHECK_EQ_STR(reclaim_file(DB), "268435456");
	CHECK_EQ_STR(reclaim_file(NGINX), "");
	CHECK_EQ_U64(r->stats.path[TIERD_PATH_MEMORY_RECLAIM].calls, 1);
	CHECK_EQ_U64(r->stats.path[TIERD_PATH_MEMORY_RECLAIM].tried_bytes, DB_OVER);
	CHECK_EQ_U64(r->k.reclaim_stats.jobs, 1);
	CHECK_EQ_U64(r->k.reclaim_stats.deadline_hits, 1);
	rig_free(r);
}

/* What a FIFO in place of db's memory.reclaim got: the write of a job
 * blocked in it until now. */
static void read_fifo(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t got;

	if (fd < 0)
		abort();
	while (n + 1 < size && (got = read(fd, out + n, size - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = '\0';
	close(fd);
}

/* On its worker, memory.reclaim leaves the tick: a job blocked in the
 * kernel (a FIFO here) holds no tick; ticks meanwhile reclaim nothing
 * more (counted); the job's outcome is accounted by the first tick after
 * it ended, which starts no reclaim of its own (its cgroups were read
 * before the job may have ended); at the end it is accounted too. */
static void test_reclaim_on_worker(void)
{
	struct rig *r = rig_new(TIERD_DAMON_ABSENT);
	const struct tierd_path_stats *ps = &r->stats.path[TIERD_PATH_MEMORY_RECLAIM];
	char fifo[TIERD_FILE_PATH_MAX], got[64];

	snprintf(fifo, sizeof(fifo), "%s" MACHINE CGROUP_FS DB "/memory.reclaim", root);
	if (unlink(fifo) < 0 || mkfifo(fifo, 0600) < 0)
		abort();
	CHECK_EQ_INT(tierd_kernel_actuator_start(&r->k), 0);
	apply(r);
	CHECK(tierd_kernel_worker_busy(&r->k.reclaim_worker));
	CHECK_EQ_U64(r->k.wait_usec, 0);
	apply(r);
	CHECK_EQ_U64(r->k.reclaim_stats.busy_ticks, 1);
	CHECK_EQ_U64(ps->calls, 0);
	read_fifo(fifo, got, sizeof(got));
	CHECK_EQ_STR(got, "268435456");
	tierd_kernel_worker_wait(&r->k.reclaim_worker);
	CHECK_EQ_STR(reclaim_file(NGINX), "8388608");
	CHECK_EQ_U64(ps->calls, 0);

	tmptree_put(root, MACHINE CGROUP_FS NGINX "/memory.reclaim", "");
	apply(r);
	CHECK_EQ_U64(r->k.reclaim_stats.jobs, 1);
	CHECK_EQ_U64(ps->calls, 2);
	CHECK_EQ_U64(ps->tried_bytes, 276824064);
	CHECK(!tierd_kernel_worker_busy(&r->k.reclaim_worker));
	CHECK_EQ_STR(reclaim_file(NGINX), "");

	apply(r);
	CHECK(tierd_kernel_worker_busy(&r->k.reclaim_worker));
	read_fifo(fifo, got, sizeof(got));
	CHECK_EQ_STR(got, "268435456");
	tierd_kernel_actuator_free(&r->k);
	CHECK_EQ_U64(r->k.reclaim_stats.jobs, 2);
	CHECK_EQ_U64(ps->calls, 4);
	CHECK_EQ_STR(reclaim_file(NGINX), "8388608");
	CHECK_EQ_U64(r->k.reclaim_stats.busy_ticks, 1);
	rig_free(r);
}

static void block_on_pipe(void *arg)
{
	char c;

	if (read(*(int *)arg, &c, 1) < 0)
		abort();
}

/* Sampled promotions a busy move_pages worker could not take are said
 * not started, so that the daemon gives them back to the budgets; an
 * idle worker with nothing to move starts nothing and skips nothing. */
static void test_sampled_skipped(void)
{
	struct rig *r = rig_new(TIERD_DAMON_ABSENT);
	struct tierd_bpf_backend *bpf = calloc(1, sizeof(*bpf));
	int pipefd[2];

	if (!bpf || pipe(pipefd) < 0)
		abort();
	bpf->state.mode = TIERD_BPF_RUNNING;
	bpf->log = &r->log;
	r->k.bpf = bpf;
	CHECK_EQ_INT(tierd_kernel_worker_start(&bpf->worker), 0);
	CHECK_EQ_INT(tierd_kernel_worker_submit(&bpf->worker, block_on_pipe, &pipefd[0]), 0);
	apply(r);
	CHECK(r->k.sampled_skipped);
	CHECK_EQ_U64(bpf->state.promote_busy_ticks, 1);
	CHECK_EQ_INT(write(pipefd[1], "x", 1), 1);
	tierd_kernel_worker_wait(&bpf->worker);
	CHECK(tierd_kernel_worker_reap(&bpf->worker, NULL));
	apply(r);
	CHECK(!r->k.sampled_skipped);
	CHECK(!tierd_kernel_worker_busy(&bpf->worker));
	tierd_kernel_worker_stop(&bpf->worker);
	close(pipefd[0]);
	close(pipefd[1]);
	free(bpf);
	rig_free(r);
}

static bool overlaps(const struct tierd_damon_scheme_spec *a,
		     const struct tierd_damon_scheme_spec *b)
{
	return a->addr_start < b->addr_end && b->addr_start < a->addr_end;
}

/* db's regions in tier 0: an unaccessed 64M, an accessed 256M. */
static const struct tierd_region db_regions[] = {
	{ .start = 256 * MIB, .end = 320 * MIB, .tier = 0, .nr_accesses = 0, .age = 5 },
	{ .start = 512 * MIB, .end = 768 * MIB, .tier = 0, .nr_accesses = 2, .age = 1 },
};
static const struct tierd_hotness db_hot = { .nr_regions = TIERD_ARRAY_SIZE(db_regions),
					     .regions = db_regions };

/* The plan of the DAMOS tests: db demotes 192M to tier 3 and 64M to tier
 * 2 (over its tier-0 max), nginx promotes 16M from tier 2. */
static void damos_plan(struct rig *r)
{
	r->cg[0].hot = &db_hot;
	r->actions[0] = demote(TIERD_REASON_OVER_TIER_MAX, 0, 0, 3, 192 * MIB);
	r->actions[1] = demote(TIERD_REASON_OVER_TIER_MAX, 0, 0, 2, 64 * MIB);
	r->actions[2] = (struct tierd_action){
		.kind = TIERD_ACTION_MIGRATE, .reason = TIERD_REASON_TARGETED_PROMOTION,
		.cgroup = 1, .from_tier = 2, .to_tier = 0,
		.start = 2 * GIB + 16 * MIB, .end = 2 * GIB + 32 * MIB, .bytes = 16 * MIB };
	r->plan.nr_actions = 3;
}

/* The plan becomes DAMOS schemes in the backend's spec: db's budget
 * demotion out of tier 0 aims at its coldest regions, nginx's promotion
 * at its range. db's 256M go 192M to tier 3 and 64M to tier 2: the two
 * actions must aim at different pages, or the second moves nothing (the
 * first scheme has moved its pages by the time the second applies). */
static void test_damos_from_plan(void)
{
	const struct tierd_damon_ctx_spec *c0, *c2;
	struct rig *r = rig_new(TIERD_DAMON_RUNNING);
	uint64_t to3 = 0, to2 = 0;

	rig_backend(r);
	damos_plan(r);
	apply(r);
	c0 = &r->damon.spec->contexts[0];
	c2 = &r->damon.spec->contexts[2];
	CHECK_EQ_INT(r->damon.spec->nr_contexts, 4);
	CHECK_EQ_INT(c0->nr_schemes, 4);
	CHECK_EQ_INT(r->damon.spec->contexts[1].nr_schemes, 1);
	CHECK_EQ_INT(c2->nr_schemes, 2);
	CHECK_EQ_INT(r->damon.spec->contexts[3].nr_schemes, 1);
	CHECK_EQ_U64(c0->aggr_us, TIERD_DAMON_AGGR_US);
	/* 192M to node 3: the unaccessed region, then the rest. */
	CHECK_EQ_INT(c0->schemes[1].action, TIERD_DAMON_ACTION_MIGRATE_COLD);
	CHECK_EQ_INT(c0->schemes[1].target_nid, 3);
	CHECK_EQ_STR(c0->schemes[1].memcg_path, DB);
	CHECK_EQ_U64(c0->schemes[1].addr_start, 256 * MIB);
	CHECK_EQ_U64(c0->schemes[1].addr_end, 320 * MIB);
	CHECK_EQ_U64(c0->schemes[1].nr_accesses_max, 0);
	CHECK_EQ_INT(c0->schemes[2].target_nid, 3);
	CHECK_EQ_U64(c0->schemes[2].addr_start, 512 * MIB);
	CHECK_EQ_U64(c0->schemes[2].addr_end, 640 * MIB);
	CHECK_EQ_U64(c0->schemes[2].nr_accesses_max, 2);
	/* 64M to node 2, from what the first action left. */
	CHECK_EQ_INT(c0->schemes[3].target_nid, 2);
	CHECK_EQ_STR(c0->schemes[3].memcg_path, DB);
	CHECK(!overlaps(&c0->schemes[3], &c0->schemes[1]));
	CHECK(!overlaps(&c0->schemes[3], &c0->schemes[2]));
	CHECK_EQ_U64(c0->schemes[3].addr_start, 640 * MIB);
	CHECK_EQ_U64(c0->schemes[3].addr_end, 704 * MIB);
	for (size_t s = 1; s < c0->nr_schemes; s++) {
		uint64_t bytes = c0->schemes[s].addr_end - c0->schemes[s].addr_start;

		if (c0->schemes[s].target_nid == 3)
			to3 += bytes;
		else
			to2 += bytes;
	}
	CHECK_EQ_U64(to3, 192 * MIB);
	CHECK_EQ_U64(to2, 64 * MIB);
	/* nginx's promotion, nothing known of its accesses. */
	CHECK_EQ_INT(c2->schemes[1].action, TIERD_DAMON_ACTION_MIGRATE_HOT);
	CHECK_EQ_INT(c2->schemes[1].target_nid, 0);
	CHECK_EQ_STR(c2->schemes[1].memcg_path, NGINX);
	CHECK_EQ_U64(c2->schemes[1].addr_start, 2 * GIB + 16 * MIB);
	CHECK_EQ_U64(c2->schemes[1].addr_end, 2 * GIB + 32 * MIB);
	CHECK_EQ_U64(c2->schemes[1].nr_accesses_min, 0);

	CHECK_EQ_INT(r->damon.batch->nr_slots, 4);
	CHECK_EQ_U64(r->damon.slot_cgroup_id[0], r->obs[0].id);
	CHECK_EQ_U64(r->damon.slot_cgroup_id[2], r->obs[0].id);
	CHECK_EQ_U64(r->damon.slot_cgroup_id[3], r->obs[1].id);
	CHECK_EQ_U64(r->damon.batch->slots[3].planned_bytes, 16 * MIB);
	/* Not over for three ticks yet: no memory.reclaim. */
	CHECK_EQ_STR(reclaim_file(DB), "");
	rig_free(r);
}

/* DAMOS pacing: a kdamond is handed at most what the global budget refills
 * in a tick (64M here), in the plan's order. db's 192M demotion is cut to
 * 64M (the unaccessed region, whole), its 64M demotion left entire, and
 * nginx's promotion, on tier 2's kdamond, goes whole; the costs left are
 * recorded for the daemon's refund. A promotion over the cap is cut from
 * its start. */
static void test_damos_paced(void)
{
	const struct tierd_damon_ctx_spec *c0, *c2;
	struct rig *r = rig_new(TIERD_DAMON_RUNNING);

	CHECK_EQ_U64(tierd_damos_tick_bytes(&(struct tierd_migration_budget){
						    .bytes = 800 * MIB, .period_usec = 10 * TIERD_USEC_PER_SEC },
					    TIERD_USEC_PER_SEC),
		     80 * MIB);
	CHECK_EQ_U64(tierd_damos_tick_bytes(&(struct tierd_migration_budget){
						    .bytes = 100, .period_usec = TIERD_USEC_PER_SEC },
					    TIERD_USEC_PER_SEC),
		     TIERD_PAGE_BYTES);
	rig_backend(r);
	r->k.paced = true;
	r->in.global_budget = (struct tierd_migration_budget){ .bytes = 64 * MIB,
							       .period_usec = RIG_TICK_USEC };
	damos_plan(r);
	apply(r);
	c0 = &r->damon.spec->contexts[0];
	c2 = &r->damon.spec->contexts[2];
	CHECK_EQ_INT(c0->nr_schemes, 2);
	CHECK_EQ_INT(c0->schemes[1].target_nid, 3);
	CHECK_EQ_U64(c0->schemes[1].addr_start, 256 * MIB);
	CHECK_EQ_U64(c0->schemes[1].addr_end, 320 * MIB);
	CHECK_EQ_INT(c2->nr_schemes, 2);
	CHECK_EQ_U64(c2->schemes[1].addr_end, 2 * GIB + 32 * MIB);
	CHECK(r->k.left_cost != NULL);
	if (r->k.left_cost) {
		CHECK_EQ_U64(r->k.left_cost[0], 128 * MIB);
		CHECK_EQ_U64(r->k.left_cost[1], 64 * MIB);
		CHECK_EQ_U64(r->k.left_cost[2], 0);
	}
	CHECK_EQ_U64(r->k.paced_bytes, 192 * MIB);
	/* 8M a tick: the promotion keeps its first 8M. */
	r->in.global_budget.bytes = 8 * MIB;
	r->actions[0] = r->actions[2];
	r->plan.nr_actions = 1;
	apply(r);
	c2 = &r->damon.spec->contexts[2];
	CHECK_EQ_INT(c2->nr_schemes, 2);
	CHECK_EQ_U64(c2->schemes[1].addr_start, 2 * GIB + 16 * MIB);
	CHECK_EQ_U64(c2->schemes[1].addr_end, 2 * GIB + 24 * MIB);
	CHECK(r->k.left_cost && r->k.left_cost[0] == 8 * MIB);
	CHECK_EQ_U64(r->k.paced_bytes, 200 * MIB);
	rig_free(r);
}

/* Owners of PFNs 0-47 (see test_hotness_build). */
#define INO_A 1001
#define INO_B 2002
#define INO_OTHER 3003
#define NR_PFNS 48
#define MAX_ACC 20
#define AGGR_US 100000
#define ALL_PAGES NR_PFNS /* owners read again per tick: all of them */

static void write_owner_file(const char *dir, const uint64_t owner[NR_PFNS])
{
	char path[TIERD_FILE_PATH_MAX];
	FILE *f;

	tmptree_mkdirs(dir, "/proc");
	snprintf(path, sizeof(path), "%s/proc/kpagecgroup", dir);
	f = fopen(path, "w");
	if (!f || fwrite(owner, sizeof(owner[0]), NR_PFNS, f) != NR_PFNS)
		abort();
	fclose(f);
}

static void write_owners(const char *dir)
{
	uint64_t owner[NR_PFNS] = { 0 };

	for (size_t p = 0; p < NR_PFNS; p++)
		owner[p] = p < 4 ? INO_B : p < 8 ? INO_A : p < 16 ? INO_B : p < 32 ? INO_A :
			   p < 36 ? INO_A : p < 38 ? INO_B : p == 38 ? 0 : p < 44 ? INO_A :
			   INO_OTHER;
	write_owner_file(dir, owner);
}

/* Every PFN owned by A. */
static void write_all_a(const char *dir)
{
	uint64_t owner[NR_PFNS];

	for (size_t p = 0; p < NR_PFNS; p++)
		owner[p] = INO_A;
	write_owner_file(dir, owner);
}

static void check_region(const struct tierd_region *g, uint64_t start, uint64_t end, int tier,
			 uint32_t nr_accesses, uint32_t age)
{
	CHECK_EQ_U64(g->start, start);
	CHECK_EQ_U64(g->end, end);
	CHECK_EQ_INT(g->tier, tier);
	CHECK_EQ_U64(g->nr_accesses, nr_accesses);
	CHECK_EQ_U64(g->max_accesses, MAX_ACC);
	CHECK_EQ_U64(g->age, age);
	CHECK_EQ_U64(g->aggr_usec, AGGR_US);
}

/* Tier 0 is PFNs 32-47 (regions 32-39 and 40-47), tier 1 PFNs 0-15 (one
 * region); PFNs 16-31 are a hole, owned or not. t0 and t1 have room for
 * the regions (2 and 1). */
static void hotness_view(struct tierd_damon_view *b, struct tierd_region *t0,
			 struct tierd_region *t1)
{
	t0[0] = (struct tierd_region){ .start = P(32), .end = P(40), .tier = 0, .nr_accesses = 3,
				       .max_accesses = MAX_ACC, .age = 2, .aggr_usec = AGGR_US };
	t0[1] = (struct tierd_region){ .start = P(40), .end = P(48), .tier = 0, .nr_accesses = 0,
				       .max_accesses = MAX_ACC, .age = 9, .aggr_usec = AGGR_US };
	t1[0] = (struct tierd_region){ .start = P(0), .end = P(16), .tier = 1, .nr_accesses = 1,
				       .max_accesses = MAX_ACC, .age = 4, .aggr_usec = AGGR_US };
	*b = (struct tierd_damon_view){ .state.damon = TIERD_DAMON_RUNNING };
	b->layout.nr_tiers = 2;
	b->layout.tiers[0].nr_ranges = 1;
	b->layout.tiers[0].ranges[0] = (struct tierd_damon_region){ P(32), P(48) };
	b->layout.tiers[1].nr_ranges = 1;
	b->layout.tiers[1].ranges[0] = (struct tierd_damon_region){ P(0), P(16) };
	b->regions[0] = t0;
	b->nr_regions[0] = 2;
	b->regions[1] = t1;
	b->nr_regions[1] = 1;
}

/* Cgroup 0 is B, 1 is A. Owners: 0-3 B, 4-7 A, 8-15 B, 16-31 A, 32-35 A,
 * 36-37 B, 38 none, 39-43 A, 44-47 someone unmanaged. */
static void test_hotness_build(void)
{
	struct tierd_region t0[2], t1[1];
	struct tierd_damon_view b = { 0 };
	struct tierd_cgroup_obs obs[3] = { { .id = INO_B }, { .id = INO_A }, { .id = INO_OTHER } };
	struct tierd_hotness_set set = { 0 };
	struct tierd_kpagecgroup kc;
	char dir[TMPTREE_DIR_MAX + sizeof("/h")], want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	int r;

	snprintf(dir, sizeof(dir), "%s/h", root);
	write_owners(dir);
	CHECK_EQ_INT(tierd_kpagecgroup_open(dir, &kc, capture(&cap)), 0);
	hotness_view(&b, t0, t1);

	r = tierd_hotness_build(&b, &kc, obs, 2, ALL_PAGES, &set, capture(&cap));
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_INT(set.nr, 2);
	/* B: its runs of each region, sorted over both tiers. */
	CHECK_EQ_INT(set.hot[0].nr_regions, 3);
	CHECK_EQ_U64(set.out[0].pages, 14);
	if (set.hot[0].nr_regions == 3) {
		CHECK(set.hot[0].regions == set.out[0].regions);
		check_region(&set.hot[0].regions[0], P(0), P(4), 1, 1, 4);
		check_region(&set.hot[0].regions[1], P(8), P(16), 1, 1, 4);
		check_region(&set.hot[0].regions[2], P(36), P(38), 0, 3, 2);
	}
	/* A: runs end at DAMON region boundaries (39-43 is two runs). */
	CHECK_EQ_INT(set.hot[1].nr_regions, 4);
	CHECK_EQ_U64(set.out[1].pages, 13);
	if (set.hot[1].nr_regions == 4) {
		check_region(&set.hot[1].regions[0], P(4), P(8), 1, 1, 4);
		check_region(&set.hot[1].regions[1], P(32), P(36), 0, 3, 2);
		check_region(&set.hot[1].regions[2], P(39), P(40), 0, 3, 2);
		check_region(&set.hot[1].regions[3], P(40), P(44), 0, 0, 9);
	}

	/* A third cgroup: the set grows, the others are rebuilt alike. */
	r = tierd_hotness_build(&b, &kc, obs, 3, ALL_PAGES, &set, capture(&cap));
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(set.nr, 3);
	CHECK_EQ_INT(set.hot[0].nr_regions, 3);
	CHECK_EQ_INT(set.hot[1].nr_regions, 4);
	CHECK_EQ_INT(set.hot[2].nr_regions, 1);
	CHECK_EQ_U64(set.out[2].pages, 4);
	if (set.hot[2].nr_regions == 1)
		check_region(&set.hot[2].regions[0], P(44), P(48), 0, 0, 9);

	/* No page owners, or DAMON not running: no regions. */
	CHECK_EQ_INT(tierd_hotness_build(&b, NULL, obs, 3, ALL_PAGES, &set, capture(&cap)), 0);
	for (size_t c = 0; c < 3; c++) {
		CHECK_EQ_INT(set.hot[c].nr_regions, 0);
		CHECK_EQ_U64(set.out[c].pages, 0);
	}
	b.state.damon = TIERD_DAMON_DEGRADED;
	CHECK_EQ_INT(tierd_hotness_build(&b, &kc, obs, 3, ALL_PAGES, &set, capture(&cap)), 0);
	CHECK_EQ_INT(set.hot[1].nr_regions, 0);

	/* A failed read names the file and the PFNs. */
	b.state.damon = TIERD_DAMON_RUNNING;
	tierd_kpagecgroup_close(&kc);
	kc.fd = -1;
	CHECK_EQ_INT(tierd_hotness_build(&b, &kc, obs, 3, ALL_PAGES, &set, capture(&cap)), -EBADF);
	snprintf(want, sizeof(want), "%s/proc/kpagecgroup: reading PFNs 32-47: %s", dir,
		 strerror(EBADF));
	CHECK_EQ_STR(cap.last, want);
	tierd_hotness_set_free(&set);
	CHECK(set.out == NULL && set.nr == 0);
}

/* Pages attributed to cgroup c (0: B, 1: A) after a build. */
static uint64_t pages_after(struct tierd_damon_view *b, struct tierd_kpagecgroup *kc,
			    uint64_t pages_per_tick, struct tierd_hotness_set *set, size_t c)
{
	struct tierd_cgroup_obs obs[2] = { { .id = INO_B }, { .id = INO_A } };
	struct tierd_log_keep cap;
	int r = tierd_hotness_build(b, kc, obs, 2, pages_per_tick, set, capture(&cap));

	CHECK_EQ_INT(r, 0);
	return r == 0 ? set->out[c].pages : UINT64_MAX;
}

/* The owner cache: read whole at first, then 8 entries a tick round robin
 * (tier 0's PFNs 32-47 are entries 0-15, tier 1's 0-15 entries 16-31);
 * read whole again when the layout changes or DAMON stopped meanwhile. */
static void test_hotness_refresh(void)
{
	enum { PER_TICK = 8, NONE = 0 };
	struct tierd_region t0[2], t1[1];
	struct tierd_damon_view b;
	struct tierd_hotness_set set = { 0 };
	struct tierd_kpagecgroup kc;
	char dir[TMPTREE_DIR_MAX + sizeof("/r")];
	struct tierd_log_keep cap;

	snprintf(dir, sizeof(dir), "%s/r", root);
	write_owners(dir);
	CHECK_EQ_INT(tierd_kpagecgroup_open(dir, &kc, capture(&cap)), 0);
	hotness_view(&b, t0, t1);
	CHECK_EQ_U64(pages_after(&b, &kc, PER_TICK, &set, 1), 13);
	CHECK(set.owners.complete);
	CHECK_EQ_INT(set.owners.nr, 32);
	/* Every page changes hands; each tick sees 8 more of them. */
	write_all_a(dir);
	CHECK_EQ_U64(pages_after(&b, &kc, PER_TICK, &set, 1), 16); /* 32-39 */
	CHECK_EQ_U64(set.out[0].pages, 12);
	CHECK_EQ_U64(pages_after(&b, &kc, PER_TICK, &set, 1), 20); /* 40-47 */
	CHECK_EQ_U64(pages_after(&b, &kc, PER_TICK, &set, 1), 24); /* 0-7 */
	CHECK_EQ_U64(pages_after(&b, &kc, PER_TICK, &set, 1), 32); /* 8-15 */
	CHECK_EQ_U64(set.out[0].pages, 0);
	CHECK_EQ_INT(set.owners.next, 0);
	/* Nothing read again: the old owners stay. */
	write_owners(dir);
	CHECK_EQ_U64(pages_after(&b, &kc, NONE, &set, 1), 32);
	/* Tier 1 shrinks to PFNs 0-7: a new layout, all read. */
	b.layout.tiers[1].ranges[0].end = P(8);
	t1[0].end = P(8);
	CHECK_EQ_U64(pages_after(&b, &kc, NONE, &set, 1), 13);
	CHECK_EQ_U64(set.out[0].pages, 6);
	CHECK_EQ_INT(set.owners.nr, 24);
	/* DAMON degraded for a tick: all read when it runs again. */
	write_all_a(dir);
	b.state.damon = TIERD_DAMON_DEGRADED;
	CHECK_EQ_U64(pages_after(&b, &kc, NONE, &set, 1), 0);
	b.state.damon = TIERD_DAMON_RUNNING;
	CHECK_EQ_U64(pages_after(&b, &kc, NONE, &set, 1), 24);
	tierd_kpagecgroup_close(&kc);
	tierd_hotness_set_free(&set);
}

int main(void)
{
	if (tmptree_make(root, sizeof(root), "actuator") < 0)
		return 1;
	test_reclaim_without_damon();
	test_reclaim_demotion_not_managed();
	test_reclaim_fallback_ticks();
	test_reclaim_deadline();
	test_reclaim_on_worker();
	test_sampled_skipped();
	test_damos_from_plan();
	test_damos_paced();
	test_hotness_build();
	test_hotness_refresh();
	tmptree_rm(root, "");
	return tierd_test_finish();
}
