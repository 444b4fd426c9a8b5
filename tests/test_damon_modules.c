/* Unit tests for controller/damon_modules.c against fake module parameter
 * files (/sys/module/damon_{stat,reclaim,lru_sort}/parameters/enabled) and runtime directory
 * under a mkdtemp root: which modules exist and are enabled, DAMON_STAT
 * turned off with its record written first, turned on again at exit or by
 * the next tierd after a crash, and which enabled module keeps tierd off
 * DAMON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../controller/damon_modules.h"
#include "check.h"
#include "log_capture.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define STAT "sys/module/damon_stat/parameters/enabled"
#define RECLAIM "sys/module/damon_reclaim/parameters/enabled"
#define LRU_SORT "sys/module/damon_lru_sort/parameters/enabled"
#define RECORD "run/tierd/damon_stat.stopped"

/* A kernel without DAMON's modules (6.12 without CONFIG_DAMON_STAT and the
 * others not built): nothing present, nothing to do. */
static void test_no_modules(void)
{
	char root[TMPTREE_DIR_MAX];
	struct tierd_log_keep cap;
	struct tierd_damon_modules m;

	if (tmptree_make(root, sizeof(root), "dmod") < 0)
		return;
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	for (size_t i = 0; i < TIERD_DAMON_MODULE_COUNT; i++)
		CHECK(!m.present[i] && !m.enabled[i]);
	CHECK(!m.stat_stopped);
	CHECK_EQ_INT(tierd_damon_modules_conflict(&m, true), TIERD_DAMON_MODULE_COUNT);
	CHECK_EQ_INT(tierd_damon_modules_stop_stat(&m, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_damon_modules_restore(&m, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, RECORD), "(missing)");
	tmptree_rm(root, "");
}

/* Debian's 7.3: DAMON_STAT on at boot, the other two built but off. */
static void test_stop_and_restore_stat(void)
{
	char root[TMPTREE_DIR_MAX];
	struct tierd_log_keep cap;
	struct tierd_damon_modules m;

	if (tmptree_make(root, sizeof(root), "dmod") < 0)
		return;
	tmptree_put(root, STAT, "Y\n");
	tmptree_put(root, RECLAIM, "N\n");
	tmptree_put(root, LRU_SORT, "N\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	CHECK(m.present[TIERD_DAMON_MODULE_STAT] && m.enabled[TIERD_DAMON_MODULE_STAT]);
	CHECK(m.present[TIERD_DAMON_MODULE_RECLAIM] && !m.enabled[TIERD_DAMON_MODULE_RECLAIM]);
	CHECK(m.present[TIERD_DAMON_MODULE_LRU_SORT] && !m.enabled[TIERD_DAMON_MODULE_LRU_SORT]);
	CHECK(!m.stat_stopped);
	/* Stopping DAMON_STAT is tierd's to do: no conflict unless told to leave it. */
	CHECK_EQ_INT(tierd_damon_modules_conflict(&m, false), TIERD_DAMON_MODULE_COUNT);
	CHECK_EQ_INT(tierd_damon_modules_conflict(&m, true), TIERD_DAMON_MODULE_STAT);
	CHECK_EQ_STR(tierd_damon_module_name(TIERD_DAMON_MODULE_STAT), "DAMON_STAT");

	CHECK_EQ_INT(tierd_damon_modules_stop_stat(&m, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, STAT), "N");
	CHECK_EQ_STR(tmptree_get(root, RECORD), "Y\n");
	CHECK(m.stat_stopped && !m.enabled[TIERD_DAMON_MODULE_STAT]);

	CHECK_EQ_INT(tierd_damon_modules_restore(&m, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, STAT), "Y");
	CHECK_EQ_STR(tmptree_get(root, RECORD), "(missing)");
	CHECK(!m.stat_stopped && m.enabled[TIERD_DAMON_MODULE_STAT]);
	/* Restoring twice writes nothing more. */
	tmptree_put(root, STAT, "N\n");
	CHECK_EQ_INT(tierd_damon_modules_restore(&m, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, STAT), "N\n");
	tmptree_rm(root, "");
}

/* A tierd that turned DAMON_STAT off and died: the next one finds the
 * record, so it restores DAMON_STAT at its own exit. */
static void test_restore_after_crash(void)
{
	char root[TMPTREE_DIR_MAX];
	struct tierd_log_keep cap;
	struct tierd_damon_modules m;

	if (tmptree_make(root, sizeof(root), "dmod") < 0)
		return;
	tmptree_put(root, STAT, "N\n");
	tmptree_put(root, RECORD, "Y\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	CHECK(m.stat_stopped && !m.enabled[TIERD_DAMON_MODULE_STAT]);
	CHECK_EQ_INT(tierd_damon_modules_stop_stat(&m, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, STAT), "N\n");
	CHECK_EQ_INT(tierd_damon_modules_restore(&m, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(root, STAT), "Y");
	CHECK_EQ_STR(tmptree_get(root, RECORD), "(missing)");
	tmptree_rm(root, "");

	/* A record on a kernel without DAMON_STAT means nothing. */
	if (tmptree_make(root, sizeof(root), "dmod") < 0)
		return;
	tmptree_put(root, RECORD, "Y\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	CHECK(!m.stat_stopped);
	tmptree_rm(root, "");
}

/* DAMON_RECLAIM and DAMON_LRU_SORT are never turned off: they conflict
 * whatever damon_stat says, RECLAIM named first. */
static void test_conflicts(void)
{
	char root[TMPTREE_DIR_MAX];
	struct tierd_log_keep cap;
	struct tierd_damon_modules m;

	if (tmptree_make(root, sizeof(root), "dmod") < 0)
		return;
	tmptree_put(root, STAT, "N\n");
	tmptree_put(root, LRU_SORT, "Y\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_damon_modules_conflict(&m, false), TIERD_DAMON_MODULE_LRU_SORT);
	CHECK_EQ_INT(tierd_damon_modules_conflict(&m, true), TIERD_DAMON_MODULE_LRU_SORT);
	tmptree_put(root, RECLAIM, "Y\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_damon_modules_conflict(&m, false), TIERD_DAMON_MODULE_RECLAIM);
	CHECK_EQ_STR(tierd_damon_module_name(TIERD_DAMON_MODULE_LRU_SORT), "DAMON_LRU_SORT");
	CHECK(tierd_damon_module_name(TIERD_DAMON_MODULE_COUNT) == NULL);
	tmptree_rm(root, "");
}

/* A value that is neither Y nor N is an error naming the file; a
 * parameter that cannot be written leaves no record behind. */
static void test_errors(void)
{
	char root[TMPTREE_DIR_MAX], want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	struct tierd_damon_modules m;

	if (tmptree_make(root, sizeof(root), "dmod") < 0)
		return;
	tmptree_put(root, RECLAIM, "maybe\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), -EINVAL);
	snprintf(want, sizeof(want), "%s/%s: expected Y or N, got \"maybe\n\": %s", root, RECLAIM,
		 strerror(EINVAL));
	CHECK_EQ_STR(cap.last, want);
	tmptree_rm(root, RECLAIM);

	/* DAMON_STAT's parameter as a directory: its write fails (EISDIR). */
	tmptree_put(root, STAT, "Y\n");
	CHECK_EQ_INT(tierd_damon_modules_probe(&m, root, capture(&cap)), 0);
	tmptree_rm(root, STAT);
	tmptree_mkdirs(root, STAT);
	CHECK_EQ_INT(tierd_damon_modules_stop_stat(&m, capture(&cap)), -EISDIR);
	snprintf(want, sizeof(want), "writing \"N\" to %s/%s: %s", root, STAT, strerror(EISDIR));
	CHECK_EQ_STR(cap.last, want);
	CHECK_EQ_STR(tmptree_get(root, RECORD), "(missing)");
	CHECK(!m.stat_stopped);
	tmptree_rm(root, "");
}

int main(void)
{
	test_no_modules();
	test_stop_and_restore_stat();
	test_restore_after_crash();
	test_conflicts();
	test_errors();
	return tierd_test_finish();
}
