/* The change journal (controller/journal.c): each change of a cgroup is
 * said once, with its exact message and fields, and nothing is said again
 * while nothing changes. And the logger it is told through
 * (controller/log.c): a sink, NULL saying nothing, tierd_log_keep. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../controller/journal.h"

#define MIB (1024ull * 1024)

TIERD_TEST_MAIN_COUNTS;

static struct tierd_report_cgroup cgs[2];
static struct tierd_report rep;
static struct tierd_observation obs;

static void setup(void)
{
	memset(cgs, 0, sizeof(cgs));
	memset(&rep, 0, sizeof(rep));
	memset(&obs, 0, sizeof(obs));
	rep.topo.nr_tiers = 2;
	rep.cgroups = cgs;
	snprintf(cgs[0].path, sizeof(cgs[0].path), "/a.slice");
	snprintf(cgs[0].policy, sizeof(cgs[0].policy), "web");
	cgs[0].strategy = TIERD_STRATEGY_MOLE;
	cgs[0].sharing = TIERD_SHARING_ISLAND;
	cgs[0].standing.tiers[0].anon_bytes = 300 * MIB;
	cgs[0].standing.tiers[0].has_max = true;
	cgs[0].standing.tiers[0].max_bytes = 256 * MIB;
	rep.nr_cgroups = 1;
}

static void check_event(const struct tierd_journal_events *ev, size_t i, enum tierd_log_level level,
			const char *event, const char *cgroup, const char *policy, int tier,
			uint64_t bytes, const char *message)
{
	CHECK(i < ev->nr);
	if (i >= ev->nr)
		return;
	CHECK_EQ_INT(ev->items[i].level, level);
	CHECK_EQ_STR(ev->items[i].event, event);
	CHECK_EQ_STR(ev->items[i].cgroup, cgroup);
	CHECK_EQ_STR(ev->items[i].policy, policy);
	CHECK_EQ_INT(ev->items[i].tier, tier);
	CHECK_EQ_U64(ev->items[i].bytes, bytes);
	CHECK_EQ_STR(ev->items[i].message, message);
}

/* Run one tick through the journal; its events in *ev (freed first). */
static void tick(struct tierd_journal *j, struct tierd_journal_events *ev)
{
	tierd_journal_events_free(ev);
	CHECK_EQ_INT(tierd_journal_update(j, &rep, &obs, ev), 0);
}

static void test_managed_and_budget(void)
{
	struct tierd_journal j = { 0 };
	struct tierd_journal_events ev = { 0 };
	struct tierd_action act = { .cgroup = 0, .from_tier = 0, .to_tier = 1,
				    .reason = TIERD_REASON_OVER_TIER_MAX, .bytes = 44 * MIB };

	setup();
	cgs[0].standing.tiers[0].over_bytes = 44 * MIB;
	rep.nr_actions = 1;
	rep.actions = &act;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 2);
	check_event(&ev, 0, TIERD_LOG_INFO, "cgroup-managed", "/a.slice", "web", -1, 0,
		    "cgroup /a.slice is managed by policy web (strategy mole, island)");
	check_event(&ev, 1, TIERD_LOG_WARNING, "over-budget", "/a.slice", "web", 0, 44 * MIB,
		    "cgroup /a.slice is over its tier 0 budget by 44.0M: holds 300.0M, max 256.0M "
		    "(policy web); plan: demote 44.0M to tier 1");

	/* Nothing changed: nothing said. */
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 0);

	/* A reload forgets the budgets: the excess is said again. */
	tierd_journal_forget_budgets(&j);
	rep.nr_actions = 0;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_WARNING, "over-budget", "/a.slice", "web", 0, 44 * MIB,
		    "cgroup /a.slice is over its tier 0 budget by 44.0M: holds 300.0M, max 256.0M "
		    "(policy web); nothing planned: no migration budget or room below");

	/* Back within: said once. */
	cgs[0].standing.tiers[0].over_bytes = 0;
	cgs[0].standing.tiers[0].anon_bytes = 200 * MIB;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_INFO, "within-budget", "/a.slice", "web", 0, 0,
		    "cgroup /a.slice is back within its tier 0 budget: holds 200.0M, max 256.0M "
		    "(policy web)");

	/* Another policy takes it over. */
	snprintf(cgs[0].policy, sizeof(cgs[0].policy), "batch");
	cgs[0].strategy = TIERD_STRATEGY_HMMV;
	cgs[0].sharing = TIERD_SHARING_POOL;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_INFO, "cgroup-managed", "/a.slice", "batch", -1, 0,
		    "cgroup /a.slice is managed by policy batch (strategy hmmv, pool)");

	/* Gone: dropped, once. */
	rep.nr_cgroups = 0;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_INFO, "cgroup-dropped", "/a.slice", "batch", -1, 0,
		    "cgroup /a.slice is no longer managed: it went away or no policy matches it");
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 0);
	CHECK_EQ_INT(j.nr, 0);
	tierd_journal_events_free(&ev);
	tierd_journal_free(&j);
}

static void test_conflict(void)
{
	struct tierd_journal j = { 0 };
	struct tierd_journal_events ev = { 0 };
	struct tierd_policy a = { .name = "one", .file = "/p/one.json", .priority = 5 };
	struct tierd_policy b = { .name = "two", .file = "/p/two.json", .priority = 5 };
	struct tierd_conflict cf = { .path = "/a.slice", .a = &a, .b = &b };

	setup();
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);

	/* Two equal policies: said once, as an error; no drop for it. */
	rep.nr_cgroups = 0;
	obs.nr_conflicts = 1;
	obs.conflicts = &cf;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_ERR, "policy-conflict", "/a.slice", "", -1, 0,
		    "cgroup /a.slice left unmanaged: policies \"one\" (/p/one.json) and \"two\" "
		    "(/p/two.json) both match it with priority 5; give one a higher priority");
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 0);

	/* Resolved: managed again, said again. */
	obs.nr_conflicts = 0;
	rep.nr_cgroups = 1;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_INFO, "cgroup-managed", "/a.slice", "web", -1, 0,
		    "cgroup /a.slice is managed by policy web (strategy mole, island)");
	tierd_journal_events_free(&ev);
	tierd_journal_free(&j);
}

static void test_unreadable(void)
{
	struct tierd_journal j = { 0 };
	struct tierd_journal_events ev = { 0 };
	struct tierd_unreadable u = { .path = (char *)"/a.slice",
				      .why = (char *)"memory.numa_stat:3: expected N<node>=<value>" };

	setup();
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);

	/* One bad read: a warning, once; no drop and no new "managed" after. */
	rep.nr_cgroups = 0;
	obs.nr_errors = 1;
	obs.errors = &u;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_WARNING, "cgroup-unreadable", "/a.slice", "", -1, 0,
		    "cgroup /a.slice skipped until its files can be read: memory.numa_stat:3: "
		    "expected N<node>=<value>");
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 0);

	obs.nr_errors = 0;
	rep.nr_cgroups = 1;
	tick(&j, &ev);
	CHECK_EQ_INT(ev.nr, 1);
	check_event(&ev, 0, TIERD_LOG_INFO, "cgroup-readable", "/a.slice", "web", -1, 0,
		    "cgroup /a.slice can be read again");
	tierd_journal_events_free(&ev);
	tierd_journal_free(&j);
}

struct sunk {
	size_t nr;
	enum tierd_log_level level;
	char msg[TIERD_ERR_MAX];
};

static void sink(void *ctx, enum tierd_log_level level, const char *msg)
{
	struct sunk *s = ctx;

	s->nr++;
	s->level = level;
	snprintf(s->msg, sizeof(s->msg), "%s", msg);
}

static void test_logger(void)
{
	struct sunk got = { 0 };
	struct tierd_logger log = { .level = TIERD_LOG_INFO, .sink = sink, .sink_ctx = &got };
	struct tierd_log_keep k;
	const struct tierd_logger *kl;

	/* The sink gets what the level lets through, fields left out. */
	tierd_log_ev(&log, TIERD_LOG_WARNING, "x", "/a", NULL, -1, 0, "cgroup %s", "/a");
	CHECK_EQ_INT(got.nr, 1);
	CHECK_EQ_INT(got.level, TIERD_LOG_WARNING);
	CHECK_EQ_STR(got.msg, "cgroup /a");
	tierd_log(&log, TIERD_LOG_DEBUG, "not let through");
	CHECK_EQ_INT(got.nr, 1);
	CHECK_EQ_INT(tierd_log_errno(&log, TIERD_LOG_ERR, -ENOENT, "%s", "/x"), -ENOENT);
	CHECK_EQ_STR(got.msg, "/x: No such file or directory");
	CHECK_EQ_INT(tierd_log_errno(&log, TIERD_LOG_DEBUG, -EIO, "below the level"), -EIO);
	CHECK_EQ_INT(got.nr, 2);

	/* NULL says nothing, and the errno still goes back. */
	tierd_log(NULL, TIERD_LOG_ERR, "nowhere");
	tierd_log_ev(NULL, TIERD_LOG_ERR, "x", NULL, NULL, -1, 0, "nowhere");
	CHECK_EQ_INT(tierd_log_errno(NULL, TIERD_LOG_ERR, -EINVAL, "nowhere"), -EINVAL);

	/* A keep takes every level, keeps the last and passes it on at the
	 * level of the logger it was given. */
	kl = tierd_log_keep(&k, &log);
	CHECK_EQ_STR(tierd_log_kept(&k, -EAGAIN), "Resource temporarily unavailable");
	CHECK_EQ_INT(tierd_log_errno(kl, TIERD_LOG_DEBUG, -EINVAL, "%s: expected Y or N", "/p"),
		     -EINVAL);
	CHECK_EQ_INT(k.nr, 1);
	CHECK_EQ_STR(tierd_log_kept(&k, -EINVAL), "/p: expected Y or N: Invalid argument");
	CHECK_EQ_INT(got.nr, 2);
	tierd_log(kl, TIERD_LOG_NOTICE, "second");
	CHECK_EQ_INT(k.nr, 2);
	CHECK_EQ_STR(k.last, "second");
	CHECK_EQ_INT(got.nr, 3);
	CHECK_EQ_STR(got.msg, "second");
	kl = tierd_log_keep(&k, NULL);
	CHECK_EQ_INT(k.nr, 0);
	tierd_log(kl, TIERD_LOG_ERR, "kept only");
	CHECK_EQ_STR(k.last, "kept only");
	CHECK_EQ_INT(got.nr, 3);
}

int main(void)
{
	test_logger();
	test_managed_and_budget();
	test_conflict();
	test_unreadable();
	return tierd_test_finish();
}
