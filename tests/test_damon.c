/* Unit tests for controller/damon.c against a fake DAMON sysfs tree under a
 * mkdtemp directory. The fake tree is plain files: writing nr_* creates no
 * directories and `state` does not act, so each test lays out the tree the
 * kernel would have after tierd's nr_* writes, and a state file simply holds
 * the last command written (after "on" it reads "on", as the kernel's does). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../controller/damon.h"
#include "../controller/damon_backend.h"
#include "check.h"
#include "log_capture.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define MIB (1024ull * 1024)
#define NODE_SIZE 0x40000000ull   /* the VM's 1 GiB nodes */
#define NODE3_START 0x100000000ull /* node 3 sits above the 3 GiB hole */
#define NR_TRIED_MAX 8
#define ADMIN_MAX 512 /* fixture paths are short */
#define REL_MAX 512
#define NUM_MAX 32 /* a decimal uint64_t, newline and NUL */

static char admin[ADMIN_MAX];

/* A kernel error that no plain file gives, injected by this test alone: the
 * Makefile links it with --wrap=tierd_read_at and --wrap=write, so damon.c's
 * reads and writes of a path ending in `suffix` (writes: only of `value`)
 * fail with err, `left` more times. */
static struct {
	const char *suffix;
	const char *value;
	int err;
	unsigned left;
} fault;

static void inject(const char *suffix, const char *value, int err, unsigned times)
{
	fault.suffix = suffix;
	fault.value = value;
	fault.err = err;
	fault.left = times;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return m <= n && strcmp(s + n - m, suffix) == 0;
}

/* Takes one injected failure if name (value: written, or NULL) matches. */
static bool take_fault(const char *name, const void *value, size_t len)
{
	if (!fault.left || !ends_with(name, fault.suffix))
		return false;
	if (fault.value && (!value || len != strlen(fault.value) ||
			    memcmp(value, fault.value, len) != 0))
		return false;
	fault.left--;
	return true;
}

int __real_tierd_read_at(int dirfd, const char *name, struct tierd_buf *b);
int __wrap_tierd_read_at(int dirfd, const char *name, struct tierd_buf *b);
int __wrap_tierd_read_at(int dirfd, const char *name, struct tierd_buf *b)
{
	if (!fault.value && take_fault(name, NULL, 0))
		return -fault.err;
	return __real_tierd_read_at(dirfd, name, b);
}

ssize_t __real_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	char link[NUM_MAX + sizeof("/proc/self/fd/")], name[REL_MAX];
	ssize_t n;

	if (fault.left && fault.value) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, name, sizeof(name) - 1);
		name[n < 0 ? 0 : n] = '\0';
		if (take_fault(name, buf, len)) {
			errno = fault.err;
			return -1;
		}
	}
	return __real_write(fd, buf, len);
}

static void putf(const char *fmt, size_t a, size_t b, const char *text)
{
	char rel[REL_MAX];

	snprintf(rel, sizeof(rel), fmt, a, b);
	tmptree_put(admin, rel, text);
}

/* A 6.12 kdamond k as the kernel lays it out with defaults. */
static void fake_kdamond(size_t k, size_t nr_regions, size_t nr_schemes)
{
#define C "kdamonds/%zu/contexts/0/"
	putf("kdamonds/%zu/state", k, 0, "off\n");
	putf("kdamonds/%zu/pid", k, 0, "-1\n");
	putf("kdamonds/%zu/contexts/nr_contexts", k, 0, "1\n");
	putf(C "avail_operations", k, 0, "vaddr\nfvaddr\npaddr\n");
	putf(C "operations", k, 0, "vaddr\n");
	putf(C "monitoring_attrs/intervals/sample_us", k, 0, "5000\n");
	putf(C "monitoring_attrs/intervals/aggr_us", k, 0, "100000\n");
	putf(C "monitoring_attrs/intervals/update_us", k, 0, "60000000\n");
	putf(C "monitoring_attrs/nr_regions/min", k, 0, "10\n");
	putf(C "monitoring_attrs/nr_regions/max", k, 0, "1000\n");
	putf(C "targets/nr_targets", k, 0, "0\n");
	putf(C "targets/0/pid_target", k, 0, "0\n");
	putf(C "targets/0/regions/nr_regions", k, 0, "0\n");
	for (size_t r = 0; r < nr_regions; r++) {
		putf(C "targets/0/regions/%zu/start", k, r, "0\n");
		putf(C "targets/0/regions/%zu/end", k, r, "0\n");
	}
	putf(C "schemes/nr_schemes", k, 0, "0\n");
	for (size_t s = 0; s < nr_schemes; s++) {
		static const char *const files[] = {
			"action", "target_nid", "apply_interval_us",
			"access_pattern/sz/min", "access_pattern/sz/max",
			"access_pattern/nr_accesses/min", "access_pattern/nr_accesses/max",
			"access_pattern/age/min", "access_pattern/age/max",
			"quotas/ms", "quotas/bytes", "quotas/reset_interval_ms",
			"quotas/goals/nr_goals", "filters/nr_filters",
			"filters/0/type", "filters/0/matching", "filters/0/memcg_path",
			"tried_regions/total_bytes",
		};
		char rel[REL_MAX];

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(rel, sizeof(rel), "kdamonds/%zu/contexts/0/schemes/%zu/%s", k, s,
				 files[i]);
			tmptree_put(admin, rel, strcmp(files[i], "target_nid") == 0 ? "-1\n" : "0\n");
		}
	}
#undef C
}

/* The files of filters 0..nr-1 in directory dir ("filters", or 7.2's
 * "core_filters" and "ops_filters") of kdamond k's scheme s, as the kernel
 * lays them out after nr_filters is written (values "0": untouched). */
static void fake_filters_in(size_t k, size_t s, const char *dir, size_t nr)
{
	static const char *const files[] = { "type", "matching", "memcg_path", "addr_start",
					      "addr_end" };
	char rel[REL_MAX];

	snprintf(rel, sizeof(rel), "kdamonds/%zu/contexts/0/schemes/%zu/%s/nr_filters", k, s, dir);
	tmptree_put(admin, rel, "0\n");
	for (size_t f = 0; f < nr; f++)
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(rel, sizeof(rel), "kdamonds/%zu/contexts/0/schemes/%zu/%s/%zu/%s",
				 k, s, dir, f, files[i]);
			tmptree_put(admin, rel, "0\n");
		}
}

static void fake_filters(size_t k, size_t s, size_t nr)
{
	fake_filters_in(k, s, "filters", nr);
}

/* The five counters of kdamond k's scheme s: base + 1 .. base + 5. */
static void fake_stats(size_t k, size_t s, uint64_t base)
{
	static const char *const files[] = { "nr_tried", "sz_tried", "nr_applied", "sz_applied",
					      "qt_exceeds" };
	char rel[REL_MAX], v[NUM_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "kdamonds/%zu/contexts/0/schemes/%zu/stats/%s", k, s,
			 files[i]);
		snprintf(v, sizeof(v), "%llu\n", (unsigned long long)(base + i + 1));
		tmptree_put(admin, rel, v);
	}
}

static void fake_tree(const char *root, const char *nr_kdamonds)
{
	tmptree_rm(root, "/sys");
	fault.left = 0;
	snprintf(admin, sizeof(admin), "%s%s", root, TIERD_DAMON_ADMIN);
	tmptree_put(admin, "kdamonds/nr_kdamonds", nr_kdamonds);
}

/* paddr over node 0 and node 3; demote /test's cold pages to node 3 under a
 * quota, and a plain stat scheme. */
static void example_spec(struct tierd_damon_spec *spec)
{
	struct tierd_damon_ctx_spec *c = &spec->contexts[0];
	struct tierd_damon_scheme_spec *s;

	*spec = (struct tierd_damon_spec){ .nr_contexts = 1 };
	snprintf(c->ops, sizeof(c->ops), "paddr");
	c->sample_us = 5000;
	c->aggr_us = 100000;
	c->update_us = 1000000;
	c->min_nr_regions = 10;
	c->max_nr_regions = 1000;
	c->nr_regions = 2;
	c->regions[0] = (struct tierd_damon_region){ 0, NODE_SIZE };
	c->regions[1] = (struct tierd_damon_region){ NODE3_START, NODE3_START + NODE_SIZE };
	c->nr_schemes = 2;
	s = &c->schemes[0];
	s->action = TIERD_DAMON_ACTION_MIGRATE_COLD;
	s->target_nid = 3;
	s->sz_min = 0;
	s->sz_max = TIERD_DAMON_SZ_UNLIMITED;
	s->nr_accesses_min = 0;
	s->nr_accesses_max = 0;
	s->age_min = 5;
	s->age_max = TIERD_DAMON_NR_UNLIMITED;
	s->quota_bytes = 64 * MIB;
	s->quota_reset_ms = 1000;
	snprintf(s->memcg_path, sizeof(s->memcg_path), "/test");
	s = &c->schemes[1];
	s->action = TIERD_DAMON_ACTION_STAT;
	s->target_nid = -1;
	s->sz_max = TIERD_DAMON_SZ_UNLIMITED;
	s->nr_accesses_max = TIERD_DAMON_NR_UNLIMITED;
	s->age_max = TIERD_DAMON_NR_UNLIMITED;
}

/* Starts spec's kdamonds, which must succeed (the error shown if not). */
static void start_ok(const char *root, const struct tierd_damon_spec *spec, struct tierd_damon *d)
{
	struct tierd_log_keep cap;
	int r = tierd_damon_start(root, spec, TIERD_DAMON_BUSY_RETRIES, d, capture(&cap));

	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
}

/* example_spec's stat scheme first, then scheme 1: demote /a's pages in
 * [2 MiB, 3 MiB) to node 3; nr schemes in all (the rest for the caller). */
static void filtered_spec(struct tierd_damon_spec *spec, size_t nr)
{
	example_spec(spec);
	spec->contexts[0].nr_schemes = nr;
	spec->contexts[0].schemes[0] = spec->contexts[0].schemes[1]; /* stat first */
	spec->contexts[0].schemes[1] = (struct tierd_damon_scheme_spec){
		.action = TIERD_DAMON_ACTION_MIGRATE_COLD, .target_nid = 3,
		.sz_max = TIERD_DAMON_SZ_UNLIMITED, .nr_accesses_max = 7,
		.age_max = TIERD_DAMON_NR_UNLIMITED, .apply_interval_us = 25000,
		.memcg_path = "/a", .has_addr = true, .addr_start = 2 * MIB, .addr_end = 3 * MIB,
	};
}

static void test_start_writes(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;
	int r;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 2);
	example_spec(&spec);
	start_ok(root, &spec, &d);
	CHECK(d.running);
	CHECK_EQ_INT(d.nr_kdamonds, 1);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "1");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/nr_contexts"), "1");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on");
#define C "kdamonds/0/contexts/0/"
	CHECK_EQ_STR(tmptree_get(admin, C "operations"), "paddr");
	CHECK_EQ_STR(tmptree_get(admin, C "monitoring_attrs/intervals/sample_us"), "5000");
	CHECK_EQ_STR(tmptree_get(admin, C "monitoring_attrs/intervals/aggr_us"), "100000");
	CHECK_EQ_STR(tmptree_get(admin, C "monitoring_attrs/intervals/update_us"), "1000000");
	CHECK_EQ_STR(tmptree_get(admin, C "monitoring_attrs/nr_regions/min"), "10");
	CHECK_EQ_STR(tmptree_get(admin, C "monitoring_attrs/nr_regions/max"), "1000");
	CHECK_EQ_STR(tmptree_get(admin, C "targets/nr_targets"), "1");
	CHECK_EQ_STR(tmptree_get(admin, C "targets/0/regions/nr_regions"), "2");
	CHECK_EQ_STR(tmptree_get(admin, C "targets/0/regions/0/start"), "0");
	CHECK_EQ_STR(tmptree_get(admin, C "targets/0/regions/0/end"), "1073741824");
	CHECK_EQ_STR(tmptree_get(admin, C "targets/0/regions/1/start"), "4294967296");
	CHECK_EQ_STR(tmptree_get(admin, C "targets/0/regions/1/end"), "5368709120");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/nr_schemes"), "2");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/action"), "migrate_cold");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/target_nid"), "3");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/access_pattern/sz/min"), "0");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/access_pattern/sz/max"), "18446744073709551615");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/access_pattern/nr_accesses/min"), "0");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/access_pattern/nr_accesses/max"), "0");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/access_pattern/age/min"), "5");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/access_pattern/age/max"), "4294967295");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/quotas/bytes"), "67108864");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/quotas/reset_interval_ms"), "1000");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/filters/nr_filters"), "1");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/filters/0/type"), "memcg");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/filters/0/memcg_path"), "/test");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/filters/0/matching"), "N");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/1/action"), "stat");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/1/target_nid"), "-1\n"); /* not written for stat */
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/1/access_pattern/nr_accesses/max"), "4294967295");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/1/filters/nr_filters"), "0");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/1/filters/0/type"), "0\n"); /* untouched */

	/* A commit that the fake "kernel" does not turn back into "on" is the
	 * 6.12 trap: the kdamond stopped although the write succeeded. */
	spec.contexts[0].schemes[0].quota_bytes = 32 * MIB;
	r = tierd_damon_commit_ctx(&d, &spec, 0, capture(&cap));
	CHECK_EQ_INT(r, -EIO);
	CHECK(strstr(cap.last, "kdamonds/0/state is \"commit\" after \"commit\"") != NULL);
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/quotas/bytes"), "33554432");
	CHECK_EQ_STR(tmptree_get(admin, C "schemes/0/filters/0/matching"), "N");

	/* A context tierd has no kdamond for is refused up front. */
	spec.nr_contexts = 2;
	spec.contexts[1] = spec.contexts[0];
	CHECK_EQ_INT(tierd_damon_commit_ctx(&d, &spec, 1, capture(&cap)), -EINVAL);
	CHECK(strstr(cap.last, "kdamond 1 is not one of tierd's 1 running ones") != NULL);

	r = tierd_damon_stop(&d, capture(&cap));
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "off");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");
	CHECK_EQ_INT(d.nr_kdamonds, 0);
#undef C
}

static void test_someone_elses_kdamond(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	fake_tree(root, "1\n");
	fake_kdamond(0, 2, 2);
	tmptree_put(admin, "kdamonds/0/state", "on\n");
	example_spec(&spec);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), -EBUSY);
	CHECK(strstr(cap.last, "kdamonds/nr_kdamonds is 1") != NULL);
	CHECK(strstr(cap.last, "someone else") != NULL);
	CHECK_EQ_U64(d.nr_foreign, 1);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "1\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/0/operations"), "vaddr\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/0/schemes/nr_schemes"), "0\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/0/schemes/0/action"), "0\n");
	/* Stopping a handle that never started touches nothing either. */
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "1\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on\n");
}

/* A kernel without target_nid (< 6.11): the write fails with the path, and
 * the kdamond tierd created is removed again. */
static void test_missing_file(const char *root)
{
	char rel[REL_MAX], path[TIERD_FILE_PATH_MAX];
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 2);
	snprintf(rel, sizeof(rel), "kdamonds/0/contexts/0/schemes/0/target_nid");
	snprintf(path, sizeof(path), "%s/%s", admin, rel);
	unlink(path);
	example_spec(&spec);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), -ENOENT);
	CHECK(strstr(cap.last, "schemes/0/target_nid") != NULL);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");
	CHECK(!d.running);

	spec.nr_contexts = 0;
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), -EINVAL);
	example_spec(&spec);
	spec.contexts[0].regions[1].end = spec.contexts[0].regions[1].start;
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), -EINVAL);
}

static void test_tried_regions(const char *root)
{
	struct tierd_damon_tried_region out[NR_TRIED_MAX];
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;
	int n;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 2);
	example_spec(&spec);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), 0);
	/* Names are not 0..n-1 and not in address order. */
#define T "kdamonds/0/contexts/0/schemes/1/tried_regions/"
	tmptree_put(admin, T "12/start", "8192\n");
	tmptree_put(admin, T "12/end", "12288\n");
	tmptree_put(admin, T "12/nr_accesses", "20\n");
	tmptree_put(admin, T "12/age", "1\n");
	tmptree_put(admin, T "3/start", "0\n");
	tmptree_put(admin, T "3/end", "4096\n");
	tmptree_put(admin, T "3/nr_accesses", "0\n");
	tmptree_put(admin, T "3/age", "77\n");
	tmptree_put(admin, T "7/start", "4096\n");
	tmptree_put(admin, T "7/end", "8192\n");
	tmptree_put(admin, T "7/nr_accesses", "9\n");
	tmptree_put(admin, T "7/age", "4294967295\n");
#undef T
	n = tierd_damon_read_tried_regions(&d, 0, 1, out, NR_TRIED_MAX, capture(&cap));
	CHECK_EQ_INT(n, 3);
	if (n < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "update_schemes_tried_regions");
	if (n == 3) {
		CHECK_EQ_U64(out[0].start, 0);
		CHECK_EQ_U64(out[0].end, 4096);
		CHECK_EQ_INT(out[0].nr_accesses, 0);
		CHECK_EQ_INT(out[0].age, 77);
		CHECK_EQ_U64(out[1].start, 4096);
		CHECK_EQ_INT(out[1].nr_accesses, 9);
		CHECK_EQ_U64(out[1].age, UINT32_MAX);
		CHECK_EQ_U64(out[2].start, 8192);
		CHECK_EQ_U64(out[2].end, 12288);
		CHECK_EQ_INT(out[2].nr_accesses, 20);
		CHECK_EQ_INT(out[2].age, 1);
	}
	CHECK_EQ_INT(tierd_damon_read_tried_regions(&d, 0, 1, out, 2, capture(&cap)), 2);
	/* Scheme 0 has none; kdamond 1 is not ours. */
	CHECK_EQ_INT(tierd_damon_read_tried_regions(&d, 0, 0, out, NR_TRIED_MAX, capture(&cap)),
		     0);
	CHECK_EQ_INT(tierd_damon_read_tried_regions(&d, 1, 0, out, NR_TRIED_MAX, capture(&cap)),
		     -EINVAL);
	tmptree_put(admin, "kdamonds/0/contexts/0/schemes/1/tried_regions/5/start", "oops\n");
	CHECK_EQ_INT(tierd_damon_read_tried_regions(&d, 0, 1, out, NR_TRIED_MAX, capture(&cap)),
		     -EINVAL);
	CHECK(strstr(cap.last, "tried_regions/5/start: not a number") != NULL);
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
}

static void test_probe(const char *root)
{
	struct tierd_damon_features f;
	struct tierd_log_keep cap;

	/* No DAMON at all. */
	fake_tree(root, "0\n");
	tmptree_rm(root, "/sys");
	CHECK_EQ_INT(tierd_damon_probe(root, &f, capture(&cap)), 0);
	CHECK(!f.present);

	/* 6.12: target_nid, no allow, dests or goal nid. */
	fake_tree(root, "0\n");
	fake_kdamond(0, 0, 1);
	CHECK_EQ_INT(tierd_damon_probe(root, &f, capture(&cap)), 0);
	CHECK(f.present);
	CHECK(f.probed);
	CHECK(f.op_vaddr && f.op_fvaddr && f.op_paddr);
	CHECK(f.target_nid);
	CHECK(!f.filter_allow);
	CHECK(!f.dests);
	CHECK(!f.goal_nid);
	CHECK(!f.split_filters);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/nr_contexts"), "1");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/0/schemes/0/quotas/goals/nr_goals"), "1");

	/* 6.18-like files. */
	tmptree_put(admin, "kdamonds/0/contexts/0/schemes/0/filters/0/allow", "N\n");
	tmptree_put(admin, "kdamonds/0/contexts/0/schemes/0/dests/nr_dests", "0\n");
	tmptree_put(admin, "kdamonds/0/contexts/0/schemes/0/quotas/goals/0/nid", "0\n");
	CHECK_EQ_INT(tierd_damon_probe(root, &f, capture(&cap)), 0);
	CHECK(f.filter_allow && f.dests && f.goal_nid);
	CHECK(!f.split_filters);

	/* 7.2 and later: filters split into core_filters/ and ops_filters/. */
	fake_filters_in(0, 0, "core_filters", 0);
	fake_filters_in(0, 0, "ops_filters", 0);
	CHECK_EQ_INT(tierd_damon_probe(root, &f, capture(&cap)), 0);
	CHECK(f.split_filters);

	/* Someone else's kdamond without schemes: read only, not probed. */
	fake_tree(root, "1\n");
	fake_kdamond(0, 0, 0);
	tmptree_put(admin, "kdamonds/0/contexts/0/avail_operations", "paddr\n");
	CHECK_EQ_INT(tierd_damon_probe(root, &f, capture(&cap)), 0);
	CHECK(f.present && f.op_paddr && !f.op_vaddr);
	CHECK(!f.probed);
	CHECK(!f.target_nid);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "1\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/nr_contexts"), "1\n");
}

/* An addr span is written as addr filters with matching Y rejecting what
 * lies below and above it, then the memcg filter (matching N); a span from
 * 0 needs no lower filter, one up to UINT64_MAX no upper one. */
static void test_addr_filters(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon_scheme_spec *s;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 4);
	for (size_t sc = 1; sc < 4; sc++)
		fake_filters(0, sc, 3);
	filtered_spec(&spec, 4);
	s = &spec.contexts[0].schemes[2];
	*s = spec.contexts[0].schemes[1];
	s->action = TIERD_DAMON_ACTION_MIGRATE_HOT;
	s->target_nid = 0;
	snprintf(s->memcg_path, sizeof(s->memcg_path), "/b");
	s->addr_start = 0;
	s->addr_end = MIB;
	s = &spec.contexts[0].schemes[3];
	*s = spec.contexts[0].schemes[1];
	s->memcg_path[0] = '\0';
	s->addr_start = MIB;
	s->addr_end = UINT64_MAX;
	start_ok(root, &spec, &d);
#define S "kdamonds/0/contexts/0/schemes/"
	CHECK_EQ_STR(tmptree_get(admin, S "nr_schemes"), "4");
	CHECK_EQ_STR(tmptree_get(admin, S "0/action"), "stat");
	CHECK_EQ_STR(tmptree_get(admin, S "0/apply_interval_us"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "0/filters/nr_filters"), "0");

	CHECK_EQ_STR(tmptree_get(admin, S "1/action"), "migrate_cold");
	CHECK_EQ_STR(tmptree_get(admin, S "1/target_nid"), "3");
	CHECK_EQ_STR(tmptree_get(admin, S "1/apply_interval_us"), "25000");
	CHECK_EQ_STR(tmptree_get(admin, S "1/access_pattern/nr_accesses/max"), "7");
	CHECK_EQ_STR(tmptree_get(admin, S "1/quotas/bytes"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/nr_filters"), "3");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/0/type"), "addr");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/0/addr_start"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/0/addr_end"), "2097152");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/0/matching"), "Y");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/0/memcg_path"), "0\n");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/1/type"), "addr");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/1/addr_start"), "3145728");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/1/addr_end"), "18446744073709551615");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/1/matching"), "Y");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/2/type"), "memcg");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/2/memcg_path"), "/a");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/2/matching"), "N");
	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/2/addr_start"), "0\n");

	CHECK_EQ_STR(tmptree_get(admin, S "2/action"), "migrate_hot");
	CHECK_EQ_STR(tmptree_get(admin, S "2/target_nid"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/nr_filters"), "2");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/0/type"), "addr");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/0/addr_start"), "1048576");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/0/addr_end"), "18446744073709551615");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/0/matching"), "Y");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/1/type"), "memcg");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/1/memcg_path"), "/b");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/1/matching"), "N");
	CHECK_EQ_STR(tmptree_get(admin, S "2/filters/2/type"), "0\n");

	CHECK_EQ_STR(tmptree_get(admin, S "3/filters/nr_filters"), "1");
	CHECK_EQ_STR(tmptree_get(admin, S "3/filters/0/type"), "addr");
	CHECK_EQ_STR(tmptree_get(admin, S "3/filters/0/addr_start"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "3/filters/0/addr_end"), "1048576");
	CHECK_EQ_STR(tmptree_get(admin, S "3/filters/0/matching"), "Y");
	CHECK_EQ_STR(tmptree_get(admin, S "3/filters/1/type"), "0\n");
#undef S
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);

	/* An empty span is refused before anything is written. */
	fake_tree(root, "0\n");
	spec.contexts[0].schemes[2].addr_end = 0;
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), -EINVAL);
	CHECK_EQ_STR(cap.last,
		     "damon context 0 scheme 2: addr filter end <= start: Invalid argument");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0\n");
}

/* Where a scheme has core_filters/ and ops_filters/ (7.2 and later), the
 * addr filters go to core_filters/ and the memcg filter to ops_filters/,
 * each numbered from 0; the deprecated filters/ is left empty. */
static void test_split_filters(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon_scheme_spec *s;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 3);
	for (size_t sc = 0; sc < 3; sc++) {
		fake_filters_in(0, sc, "core_filters", 2);
		fake_filters_in(0, sc, "ops_filters", 1);
	}
	filtered_spec(&spec, 3);
	s = &spec.contexts[0].schemes[2];
	*s = spec.contexts[0].schemes[1];
	s->has_addr = false;
	start_ok(root, &spec, &d);
#define S "kdamonds/0/contexts/0/schemes/"
	CHECK_EQ_STR(tmptree_get(admin, S "0/core_filters/nr_filters"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "0/ops_filters/nr_filters"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "0/filters/nr_filters"), "0\n");

	CHECK_EQ_STR(tmptree_get(admin, S "1/filters/nr_filters"), "0\n");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/nr_filters"), "2");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/0/type"), "addr");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/0/addr_start"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/0/addr_end"), "2097152");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/0/matching"), "Y");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/1/type"), "addr");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/1/addr_start"), "3145728");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/1/addr_end"), "18446744073709551615");
	CHECK_EQ_STR(tmptree_get(admin, S "1/core_filters/1/matching"), "Y");
	CHECK_EQ_STR(tmptree_get(admin, S "1/ops_filters/nr_filters"), "1");
	CHECK_EQ_STR(tmptree_get(admin, S "1/ops_filters/0/type"), "memcg");
	CHECK_EQ_STR(tmptree_get(admin, S "1/ops_filters/0/memcg_path"), "/a");
	CHECK_EQ_STR(tmptree_get(admin, S "1/ops_filters/0/matching"), "N");

	CHECK_EQ_STR(tmptree_get(admin, S "2/core_filters/nr_filters"), "0");
	CHECK_EQ_STR(tmptree_get(admin, S "2/core_filters/0/type"), "0\n");
	CHECK_EQ_STR(tmptree_get(admin, S "2/ops_filters/nr_filters"), "1");
	CHECK_EQ_STR(tmptree_get(admin, S "2/ops_filters/0/type"), "memcg");
	CHECK_EQ_STR(tmptree_get(admin, S "2/ops_filters/0/memcg_path"), "/a");
	CHECK_EQ_STR(tmptree_get(admin, S "2/ops_filters/0/matching"), "N");
#undef S
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
}

static void test_stats_and_state(const char *root)
{
	struct tierd_damon_scheme_stats st[3];
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	char want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	bool on = false;
	int r;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 2);
	example_spec(&spec);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), 0);
	CHECK_EQ_INT(tierd_damon_is_on(&d, 0, &on, capture(&cap)), 0);
	CHECK(on);
	fake_stats(0, 0, 10);
	fake_stats(0, 1, 20);
	memset(st, 0xff, sizeof(st));
	r = tierd_damon_read_stats(&d, 0, st, 2, capture(&cap));
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "update_schemes_stats");
	CHECK_EQ_U64(st[0].nr_tried, 11);
	CHECK_EQ_U64(st[0].sz_tried, 12);
	CHECK_EQ_U64(st[0].nr_applied, 13);
	CHECK_EQ_U64(st[0].sz_applied, 14);
	CHECK_EQ_U64(st[0].qt_exceeds, 15);
	CHECK_EQ_U64(st[1].nr_tried, 21);
	CHECK_EQ_U64(st[1].sz_tried, 22);
	CHECK_EQ_U64(st[1].nr_applied, 23);
	CHECK_EQ_U64(st[1].sz_applied, 24);
	CHECK_EQ_U64(st[1].qt_exceeds, 25);
	CHECK_EQ_U64(st[2].nr_tried, UINT64_MAX); /* not asked for */
	/* The fake state file now holds the command, not "on". */
	on = true;
	CHECK_EQ_INT(tierd_damon_is_on(&d, 0, &on, capture(&cap)), 0);
	CHECK(!on);
	tmptree_put(admin, "kdamonds/0/state", "on\n");
	CHECK_EQ_INT(tierd_damon_is_on(&d, 0, &on, capture(&cap)), 0);
	CHECK(on);
	tmptree_put(admin, "kdamonds/0/state", "off\n");
	CHECK_EQ_INT(tierd_damon_is_on(&d, 0, &on, capture(&cap)), 0);
	CHECK(!on);
	on = true;
	CHECK_EQ_INT(tierd_damon_is_on(&d, 3, &on, capture(&cap)), -ENOENT);
	snprintf(want, sizeof(want), "%s/kdamonds/3/state: %s", admin, strerror(ENOENT));
	CHECK_EQ_STR(cap.last, want);
	CHECK(on);

	/* Only the schemes asked for are read. */
	memset(st, 0xff, sizeof(st));
	CHECK_EQ_INT(tierd_damon_read_stats(&d, 0, st, 1, capture(&cap)), 0);
	CHECK_EQ_U64(st[0].qt_exceeds, 15);
	CHECK_EQ_U64(st[1].nr_tried, UINT64_MAX);
	CHECK_EQ_INT(tierd_damon_read_stats(&d, 1, st, 1, capture(&cap)), -EINVAL);
	snprintf(want, sizeof(want), "%s: kdamond 1 is not one of tierd's 1: %s", admin,
		 strerror(EINVAL));
	CHECK_EQ_STR(cap.last, want);
	tmptree_put(admin, "kdamonds/0/contexts/0/schemes/1/stats/sz_applied", "lots\n");
	CHECK_EQ_INT(tierd_damon_read_stats(&d, 0, st, 2, capture(&cap)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/kdamonds/0/contexts/0/schemes/1/stats/sz_applied: not a number: \"lots\": %s",
		 admin, strerror(EINVAL));
	CHECK_EQ_STR(cap.last, want);
	/* Scheme 2 has no stats files. */
	tmptree_put(admin, "kdamonds/0/contexts/0/schemes/1/stats/sz_applied", "24\n");
	CHECK_EQ_INT(tierd_damon_read_stats(&d, 0, st, 3, capture(&cap)), -ENOENT);
	snprintf(want, sizeof(want), "%s/kdamonds/0/contexts/0/schemes/2/stats/nr_tried: %s",
		 admin, strerror(ENOENT));
	CHECK_EQ_STR(cap.last, want);
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_damon_read_stats(&d, 0, st, 1, capture(&cap)), -EINVAL);
}

/* commit_ctx and restart touch one kdamond. The fake state file keeps the
 * command written: after "commit" it does not read "on" (the 6.12 trap),
 * after "on" it does. */
static void test_commit_ctx(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	char want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	int r;

	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 2);
	fake_kdamond(1, 2, 2);
	example_spec(&spec);
	spec.nr_contexts = 2;
	spec.contexts[1] = spec.contexts[0];
	start_ok(root, &spec, &d);
	CHECK_EQ_INT(d.nr_kdamonds, 2);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/1/state"), "on");

	spec.contexts[0].schemes[0].quota_bytes = MIB;
	spec.contexts[1].schemes[0].quota_bytes = 32 * MIB;
	CHECK_EQ_INT(tierd_damon_commit_ctx(&d, &spec, 1, capture(&cap)), -EIO);
	snprintf(want, sizeof(want),
		 "%s/kdamonds/1/state is \"commit\" after \"commit\": the kdamond stopped (its input was rejected, e.g. a memcg_path that does not exist): %s",
		 admin, strerror(EIO));
	CHECK_EQ_STR(cap.last, want);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/1/contexts/0/schemes/0/quotas/bytes"), "33554432");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/0/schemes/0/quotas/bytes"), "67108864");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on");

	CHECK_EQ_INT(tierd_damon_commit_ctx(&d, &spec, 2, capture(&cap)), -EINVAL);
	snprintf(want, sizeof(want), "%s: kdamond 2 is not one of tierd's 2 running ones: %s",
		 admin, strerror(EINVAL));
	CHECK_EQ_STR(cap.last, want);
	spec.nr_contexts = 1;
	CHECK_EQ_INT(tierd_damon_commit_ctx(&d, &spec, 1, capture(&cap)), -EINVAL);
	spec.nr_contexts = 2;

	/* Restart rewrites kdamond 0 alone and turns it on. */
	r = tierd_damon_restart(&d, &spec, 0, capture(&cap));
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/contexts/0/schemes/0/quotas/bytes"), "1048576");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/1/state"), "commit");
	CHECK_EQ_INT(tierd_damon_restart(&d, &spec, 2, capture(&cap)), -EINVAL);
	snprintf(want, sizeof(want), "%s: kdamond 2 is not one of tierd's 2: %s", admin,
		 strerror(EINVAL));
	CHECK_EQ_STR(cap.last, want);

	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");
	/* Stopped: nothing is running to commit to. */
	CHECK_EQ_INT(tierd_damon_commit_ctx(&d, &spec, 0, capture(&cap)), -EINVAL);
	snprintf(want, sizeof(want), "%s: kdamond 0 is not one of tierd's 0 running ones: %s",
		 admin, strerror(EINVAL));
	CHECK_EQ_STR(cap.last, want);
}

/* One 6.12 kdamond's tree, nothing running, and example_spec for it. */
static void one_kdamond(const char *root, struct tierd_damon_spec *spec)
{
	fake_tree(root, "0\n");
	fake_kdamond(0, 2, 2);
	example_spec(spec);
}

/* d's one kdamond removed, and d knows it. */
static void check_removed(const struct tierd_damon *d)
{
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");
	CHECK(!d->running);
	CHECK_EQ_U64(d->nr_kdamonds, 0);
}

/* A start whose clean-up failed too (DAMON sysfs busy: seen on 6.12 in the
 * pool scenario) leaves tierd's kdamond behind, off; the retry removes it
 * first, where it used to call it someone else's and give DAMON up. */
/* A stop whose "off" did not reach a kdamond leaves it counted as running
 * and removes nothing; the next stop turns it off (6.12: forgetting it
 * made every later nr_kdamonds write -EBUSY, and DAMON never started). */
static void test_stop_after_failed_off(const char *root)
{
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	one_kdamond(root, &spec);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), 0);
	snprintf(path, sizeof(path), "%s/kdamonds/0/state", admin);
	CHECK_EQ_INT(unlink(path), 0);
	CHECK_EQ_INT(mkdir(path, 0700), 0);
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), -EISDIR);
	CHECK(strstr(cap.last, "writing \"off\" to ") != NULL);
	CHECK(d.running);
	CHECK_EQ_U64(d.nr_kdamonds, 1);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "1");
	CHECK_EQ_INT(rmdir(path), 0);
	tmptree_put(admin, "kdamonds/0/state", "on\n");
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "off");
	check_removed(&d);
}

/* 6.12.y: reading `state` (and `pid`) right after "on" can fail -EBUSY
 * while the new kdamond holds DAMON's sysfs lock. The read is retried like a
 * busy write, and the start succeeds. */
static void test_busy_state_read(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	one_kdamond(root, &spec);
	putf("kdamonds/%zu/pid", 0, 0, "4242\n");
	inject("kdamonds/0/state", NULL, EBUSY, 3);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), 0);
	CHECK_EQ_U64(fault.left, 0);
	CHECK(d.running);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on");
	inject("kdamonds/0/pid", NULL, EBUSY, 2);
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, TIERD_DAMON_BUSY_RETRIES, &d,
				       capture(&cap)), 0);
	CHECK_EQ_U64(fault.left, 0);
	CHECK_EQ_INT(d.pid[0], 4242);
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
}

/* A `state` read busy past the retries fails the start, but the "on" had
 * gone through: the start's clean-up turns that kdamond off and removes it.
 * (It used to count it as never started, so nothing turned it off and every
 * nr_kdamonds write stayed -EBUSY: 6.12's faults scenario waited 63 s for
 * DAMON.) */
static void test_busy_state_read_past_retries(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;
	char want[TIERD_ERR_MAX];

	one_kdamond(root, &spec);
	inject("kdamonds/0/state", NULL, EBUSY, 3);
	CHECK_EQ_INT(tierd_damon_start(root, &spec, 2, &d, capture(&cap)), -EAGAIN);
	CHECK_EQ_U64(fault.left, 0);
	snprintf(want, sizeof(want), "%s/kdamonds/0/state: %s", admin, strerror(EBUSY));
	CHECK_EQ_STR(cap.last, want);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "off");
	check_removed(&d);
}

/* "off" to a kdamond whose thread already ended is -EPERM (6.12's
 * __damon_stop): not running, so the stop goes on and removes the kdamonds. */
static void test_off_after_thread_ended(const char *root)
{
	struct tierd_damon_spec spec;
	struct tierd_damon d;
	struct tierd_log_keep cap;

	one_kdamond(root, &spec);
	start_ok(root, &spec, &d);
	inject("kdamonds/0/state", "off", EPERM, 1);
	CHECK_EQ_INT(tierd_damon_stop(&d, capture(&cap)), 0);
	CHECK_EQ_U64(fault.left, 0);
	check_removed(&d);
}

/* still_on: the failed clean-up left the kdamond on and counted running. */
static void test_retry_after_failed_cleanup(const char *root, bool still_on)
{
	struct tierd_damon_backend b = { 0 };
	struct tierd_migration_stats stats = { 0 };
	struct tierd_damon_moved moved[TIERD_DAMON_MAX_ACTIONS];
	struct tierd_logger log = { .target = TIERD_LOG_TARGET_STDERR, .level = TIERD_LOG_ERR };

	fake_tree(root, "1\n");
	fake_kdamond(0, 2, 2);
	b.spec = calloc(1, sizeof(*b.spec));
	b.batch = calloc(1, sizeof(*b.batch));
	b.slot_cgroup_id = calloc(TIERD_DAMON_MAX_ACTIONS, sizeof(*b.slot_cgroup_id));
	if (!b.spec || !b.batch || !b.slot_cgroup_id)
		abort();
	example_spec(b.spec);
	b.spec->contexts[0].nr_schemes = 1;
	b.spec->contexts[0].schemes[0] = b.spec->contexts[0].schemes[1];
	snprintf(b.root, sizeof(b.root), "%s", root);
	snprintf(b.kd.admin, sizeof(b.kd.admin), "%s", admin);
	b.kd.nr_kdamonds = 1;
	b.kd.running = still_on;
	if (still_on)
		tmptree_put(admin, "kdamonds/0/state", "on\n");
	b.state.damon = TIERD_DAMON_FAILED;
	b.start_pending = true;
	tierd_damon_backend_collect(&b, 1, &stats, moved, &log);
	CHECK_EQ_INT(b.state.damon, TIERD_DAMON_RUNNING);
	CHECK_EQ_INT(b.start_pending, 0);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "1");
	CHECK(b.kd.running);
	tierd_damon_backend_stop(&b, &log);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");
}

int main(void)
{
	char root[TMPTREE_DIR_MAX];

	if (tmptree_make(root, sizeof(root), "damon") < 0)
		return 1;
	test_start_writes(root);
	test_someone_elses_kdamond(root);
	test_missing_file(root);
	test_tried_regions(root);
	test_probe(root);
	test_addr_filters(root);
	test_split_filters(root);
	test_stats_and_state(root);
	test_commit_ctx(root);
	test_stop_after_failed_off(root);
	test_busy_state_read(root);
	test_busy_state_read_past_retries(root);
	test_off_after_thread_ended(root);
	test_retry_after_failed_cleanup(root, false);
	test_retry_after_failed_cleanup(root, true);
	tmptree_rm(root, "");
	return tierd_test_finish();
}
