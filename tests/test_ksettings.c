/* Unit tests for controller/ksettings.c and controller/reclaim.c against
 * plain files under a mkdtemp directory. A fixture file holds what the
 * kernel prints ("false\n"); tierd writes without the newline, so a file
 * that still ends in "\n" afterwards was not written. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../controller/ksettings.h"
#include "../controller/reclaim.h"
#include "check.h"
#include "log_capture.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define HUNDRED_MIB 104857600ull

static char root[TMPTREE_DIR_MAX];

#define DEMOTION "/sys/kernel/mm/numa/demotion_enabled"
#define BALANCING "/proc/sys/kernel/numa_balancing"
#define RATE "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps"

/* The 6.12 boot values (docs/vm.md), as the kernel prints them. */
static void fresh_tree(void)
{
	tmptree_rm(root, "/sys");
	tmptree_rm(root, "/proc");
	tmptree_put(root, DEMOTION, "false\n");
	tmptree_put(root, BALANCING, "1\n");
	tmptree_put(root, RATE, "65536\n");
}

static void test_names(void)
{
	CHECK_EQ_INT(TIERD_KSETTING_COUNT, 3);
	CHECK_EQ_STR(tierd_ksetting_name(TIERD_KSETTING_DEMOTION_ENABLED), "demotion_enabled");
	CHECK_EQ_STR(tierd_ksetting_name(TIERD_KSETTING_NUMA_BALANCING), "numa_balancing");
	CHECK_EQ_STR(tierd_ksetting_name(TIERD_KSETTING_PROMOTE_RATE_LIMIT),
		     "numa_balancing_promote_rate_limit_MBps");
	CHECK(tierd_ksetting_name(TIERD_KSETTING_COUNT) == NULL);
	CHECK(tierd_ksetting_name((enum tierd_ksetting)-1) == NULL);
}

static void test_get(void)
{
	struct tierd_ksettings ks;
	char v[TIERD_KSETTING_VALUE_MAX], path[TIERD_FILE_PATH_MAX];
	struct tierd_log_keep cap;

	fresh_tree();
	CHECK_EQ_INT(tierd_ksettings_init(&ks, root, capture(&cap)), 0);
	snprintf(path, sizeof(path), "%s%s", root, BALANCING);
	CHECK_EQ_STR(ks.s[TIERD_KSETTING_NUMA_BALANCING].path, path);
	for (size_t i = 0; i < TIERD_KSETTING_COUNT; i++) {
		CHECK(ks.s[i].exists);
		CHECK(!ks.s[i].saved);
		CHECK(!ks.s[i].changed);
	}
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_DEMOTION_ENABLED, v, sizeof(v),
					capture(&cap)),
		     0);
	CHECK_EQ_STR(v, "false");
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_NUMA_BALANCING, v, sizeof(v),
					capture(&cap)),
		     0);
	CHECK_EQ_STR(v, "1");
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, v, sizeof(v),
					capture(&cap)),
		     0);
	CHECK_EQ_STR(v, "65536");
	/* Reading saves nothing. */
	CHECK(!ks.s[TIERD_KSETTING_PROMOTE_RATE_LIMIT].saved);

	/* A value that does not fit the caller's buffer, two lines, a value
	 * longer than any setting has. */
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, v, 5,
					capture(&cap)),
		     -EINVAL);
	tmptree_put(root, BALANCING, "1\n2\n");
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_NUMA_BALANCING, v, sizeof(v),
					capture(&cap)),
		     -EINVAL);
	CHECK(strstr(cap.last, BALANCING ": expected one short line") != NULL);
	tmptree_put(root, BALANCING, "0123456789012345678901234567890123456789\n");
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_NUMA_BALANCING, v, sizeof(v),
					capture(&cap)),
		     -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_COUNT, v, sizeof(v), capture(&cap)),
		     -EINVAL);
}

static void test_set_restore(void)
{
	struct tierd_ksettings ks;
	const struct tierd_ksetting_state *dem = &ks.s[TIERD_KSETTING_DEMOTION_ENABLED];
	const struct tierd_ksetting_state *bal = &ks.s[TIERD_KSETTING_NUMA_BALANCING];
	const struct tierd_ksetting_state *rate = &ks.s[TIERD_KSETTING_PROMOTE_RATE_LIMIT];
	struct tierd_log_keep cap;
	int r;

	fresh_tree();
	CHECK_EQ_INT(tierd_ksettings_init(&ks, root, capture(&cap)), 0);

	r = tierd_ksetting_set(&ks, TIERD_KSETTING_DEMOTION_ENABLED, "true", capture(&cap));
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "true");
	CHECK(dem->saved && dem->changed);
	CHECK_EQ_STR(dem->original, "false");

	/* The kernel reads back "true\n": setting "true" again writes nothing
	 * (the newline stays) and the original stays "false". */
	tmptree_put(root, DEMOTION, "true\n");
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_DEMOTION_ENABLED, "true",
					capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "true\n");
	CHECK(dem->changed);
	CHECK_EQ_STR(dem->original, "false");

	/* The value already there is not a change. */
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, "65536",
					capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, RATE), "65536\n");
	CHECK(rate->saved && !rate->changed);
	CHECK_EQ_STR(rate->original, "65536");

	/* 1 -> 2 -> 1: back at the original is no longer a change. */
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "2");
	CHECK(bal->changed);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "1", capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "1");
	CHECK(!bal->changed);
	CHECK_EQ_STR(bal->original, "1");
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "3", capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "3");
	CHECK(bal->changed);

	/* Values tierd does not write are refused before any I/O. */
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_DEMOTION_ENABLED, "1", capture(&cap)),
		     -EINVAL);
	CHECK(strstr(cap.last,
		     DEMOTION ": \"1\" is not a value tierd writes: expected true or false") != NULL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "4", capture(&cap)),
		     -EINVAL);
	CHECK(strstr(cap.last,
		     BALANCING ": \"4\" is not a value tierd writes: expected a decimal number 0..3") !=
	      NULL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "02", capture(&cap)),
		     -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2\n", capture(&cap)),
		     -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "", capture(&cap)),
		     -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "-1", capture(&cap)),
		     -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, "2147483648",
					capture(&cap)),
		     -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_COUNT, "1", capture(&cap)), -EINVAL);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "3");
	CHECK_EQ_STR(tmptree_get(root, RATE), "65536\n");
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, "2147483647",
					capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, RATE), "2147483647");
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, "0", capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, RATE), "0");

	r = tierd_ksettings_restore(&ks, capture(&cap));
	CHECK_EQ_INT(r, 0);
	if (r < 0)
		fprintf(stderr, "  err: %s\n", cap.last);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "false");
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "1");
	CHECK_EQ_STR(tmptree_get(root, RATE), "65536");
	CHECK(!dem->changed && !bal->changed && !rate->changed);

	/* A second restore writes nothing, even when someone else changed the
	 * settings since. */
	tmptree_put(root, DEMOTION, "true\n");
	tmptree_put(root, BALANCING, "2\n");
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "true\n");
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "2\n");
	CHECK_EQ_STR(tmptree_get(root, RATE), "65536");

	/* The original is the value before tierd's first set, not before its
	 * latest one: it stays "false" although the file now says "true". */
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_DEMOTION_ENABLED, "false",
					capture(&cap)),
		     0);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "false");
	CHECK(!dem->changed);
	CHECK_EQ_STR(dem->original, "false");
}

static void test_missing(void)
{
	struct tierd_ksettings ks;
	char v[TIERD_KSETTING_VALUE_MAX], want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;

	/* A kernel without CONFIG_NUMA_BALANCING: no /proc/sys/kernel/numa_*. */
	fresh_tree();
	tmptree_rm(root, "/proc");
	CHECK_EQ_INT(tierd_ksettings_init(&ks, root, capture(&cap)), 0);
	CHECK(ks.s[TIERD_KSETTING_DEMOTION_ENABLED].exists);
	CHECK(!ks.s[TIERD_KSETTING_NUMA_BALANCING].exists);
	CHECK(!ks.s[TIERD_KSETTING_PROMOTE_RATE_LIMIT].exists);
	CHECK_EQ_INT(tierd_ksetting_get(&ks, TIERD_KSETTING_NUMA_BALANCING, v, sizeof(v),
					capture(&cap)),
		     -ENOENT);
	snprintf(want, sizeof(want), "%s%s (this kernel lacks CONFIG_NUMA_BALANCING): %s", root,
		 BALANCING, strerror(ENOENT));
	CHECK_EQ_STR(cap.last, want);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)),
		     -ENOENT);
	CHECK_EQ_STR(cap.last, want);
	CHECK(!ks.s[TIERD_KSETTING_NUMA_BALANCING].saved);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "(missing)");
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), 0);

	/* A file that appears later is found by the next set. */
	tmptree_put(root, BALANCING, "1\n");
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)),
		     0);
	CHECK(ks.s[TIERD_KSETTING_NUMA_BALANCING].exists);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "2");

	/* The file vanishing between tierd's set and its restore. */
	tmptree_rm(root, "/proc");
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), -ENOENT);
	CHECK(strstr(cap.last,
		     BALANCING ": writing \"1\" (this kernel lacks CONFIG_NUMA_BALANCING): ") != NULL);
	CHECK(!ks.s[TIERD_KSETTING_NUMA_BALANCING].exists);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "(missing)");
}

/* A write that fails: RLIMIT_FSIZE 0 makes write(2) to a regular file fail
 * with EFBIG even for root, while reads still work. */
static int set_fsize_limit(rlim_t limit, struct rlimit *old)
{
	struct rlimit rl = { limit, old->rlim_max };

	return setrlimit(RLIMIT_FSIZE, &rl);
}

static void test_failed_write(void)
{
	struct tierd_ksettings ks;
	const struct tierd_ksetting_state *bal = &ks.s[TIERD_KSETTING_NUMA_BALANCING];
	struct tierd_log_keep cap;
	struct rlimit old;
	int r;

	fresh_tree();
	CHECK_EQ_INT(tierd_ksettings_init(&ks, root, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_DEMOTION_ENABLED, "true",
					capture(&cap)),
		     0);
	CHECK_EQ_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	CHECK_EQ_INT(set_fsize_limit(0, &old), 0);
	r = tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap));
	CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	CHECK_EQ_INT(r, -EFBIG);
	CHECK(strstr(cap.last, BALANCING ": writing \"2\": ") != NULL);
	CHECK(bal->saved && !bal->changed);
	CHECK_EQ_STR(bal->original, "1");
	/* O_TRUNC emptied the plain file; the kernel keeps its value on a
	 * refused write, so put it back as the kernel would show it. */
	tmptree_put(root, BALANCING, "1\n");
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "false");
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "1\n");

	/* Restore continues past a failing setting, reports the first one and
	 * retries only that one next time. A directory in place of the file
	 * fails the write with EISDIR. */
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_DEMOTION_ENABLED, "true",
					capture(&cap)),
		     0);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)),
		     0);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_PROMOTE_RATE_LIMIT, "1000",
					capture(&cap)),
		     0);
	tmptree_rm(root, DEMOTION);
	tmptree_mkdirs(root, DEMOTION);
	tmptree_rm(root, RATE);
	tmptree_mkdirs(root, RATE);
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), -EISDIR);
	CHECK(strstr(cap.last, DEMOTION ": writing \"false\": ") != NULL);
	CHECK(strstr(cap.last, "numa_balancing_promote_rate_limit_MBps") == NULL);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "1");
	CHECK(ks.s[TIERD_KSETTING_DEMOTION_ENABLED].changed);
	CHECK(!bal->changed);
	CHECK(ks.s[TIERD_KSETTING_PROMOTE_RATE_LIMIT].changed);

	tmptree_put(root, BALANCING, "3\n");
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), -EISDIR);
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "3\n");

	tmptree_rm(root, DEMOTION);
	tmptree_rm(root, RATE);
	tmptree_put(root, DEMOTION, "true\n");
	tmptree_put(root, RATE, "1000\n");
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, DEMOTION), "false");
	CHECK_EQ_STR(tmptree_get(root, RATE), "65536");
	CHECK_EQ_STR(tmptree_get(root, BALANCING), "3\n");
	for (size_t i = 0; i < TIERD_KSETTING_COUNT; i++)
		CHECK(!ks.s[i].changed);
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), 0);
}

static int open_dir(const char *rel)
{
	char path[TIERD_FILE_PATH_MAX];

	tmptree_join(path, sizeof(path), root, rel);
	tmptree_mkdirs(root, rel);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void test_reclaim(void)
{
	char want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	int fd;

	fd = open_dir("/cg/test");
	CHECK(fd >= 0);
	tmptree_put(root, "/cg/test/memory.reclaim", "");
	CHECK_EQ_INT(tierd_memory_reclaim(fd, "/test", HUNDRED_MIB, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, "/cg/test/memory.reclaim"), "104857600");
	CHECK_EQ_INT(tierd_memory_reclaim(fd, "/test", UINT64_MAX, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, "/cg/test/memory.reclaim"), "18446744073709551615");
	CHECK_EQ_INT(tierd_memory_reclaim(fd, "/test", 0, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, "/cg/test/memory.reclaim"), "0");

	/* No memory.reclaim: the cgroup is gone or has no memory controller. */
	tmptree_rm(root, "/cg/test/memory.reclaim");
	CHECK_EQ_INT(tierd_memory_reclaim(fd, "/test", HUNDRED_MIB, capture(&cap)), -ENOENT);
	snprintf(want, sizeof(want),
		 "/test/memory.reclaim (the cgroup is gone or has no memory controller): %s",
		 strerror(ENOENT));
	CHECK_EQ_STR(cap.last, want);
	CHECK_EQ_STR(tmptree_get(root, "/cg/test/memory.reclaim"), "(missing)");
	/* The directory removed under its open descriptor, as rmdir of a
	 * cgroup does. */
	tmptree_rm(root, "/cg/test");
	CHECK_EQ_INT(tierd_memory_reclaim(fd, "/test", HUNDRED_MIB, capture(&cap)), -ENOENT);
	close(fd);

	/* Other errors pass through with the value and the file named. */
	fd = open_dir("/cg/odd/memory.reclaim");
	close(fd);
	fd = open_dir("/cg/odd");
	CHECK_EQ_INT(tierd_memory_reclaim(fd, "/odd", 4096, capture(&cap)), -EISDIR);
	snprintf(want, sizeof(want), "/odd/memory.reclaim: writing \"4096\": %s", strerror(EISDIR));
	CHECK_EQ_STR(cap.last, want);
	close(fd);
	CHECK_EQ_INT(tierd_memory_reclaim(-1, "/bad", 4096, capture(&cap)), -EBADF);
}

int main(void)
{
	if (tmptree_make(root, sizeof(root), "ksettings") < 0)
		return 1;
	test_names();
	test_get();
	test_set_restore();
	test_missing();
	test_failed_write();
	test_reclaim();
	tmptree_rm(root, "");
	return tierd_test_finish();
}
