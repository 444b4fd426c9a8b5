/* The undo record (controller/undo.h) and the reload verdict
 * (reload_verdict.h): strict parsers with exact refusals, and the record
 * written back as parsed; a setting's first change recorded before it is
 * written (ksettings record callback) and a dead tierd's original adopted;
 * a dead tierd's kdamonds taken back only when their pid proves them its
 * own (tierd_damon_take_back, against a plain-file DAMON tree). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../controller/damon.h"
#include "../controller/ksettings.h"
#include "../controller/reload_verdict.h"
#include "../controller/undo.h"
#include "check.h"
#include "log_capture.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define BALANCING "/proc/sys/kernel/numa_balancing"

static const char good[] = "tierd-undo 1\n"
			   "pid 1234\n"
			   "metrics /var/lib/prometheus/node-exporter/tierd.prom\n"
			   "setting numa_balancing 1\n"
			   "setting numa_balancing_promote_rate_limit_MBps 65536\n"
			   "kdamond 0 4567\n"
			   "kdamond 3 4570\n";

static void test_parse_good(void)
{
	struct tierd_undo u;
	char *text = NULL;

	CHECK_EQ_INT(tierd_undo_parse(good, strlen(good), &u, NULL), 0);
	CHECK_EQ_INT(u.pid, 1234);
	CHECK_EQ_STR(u.metrics_file, "/var/lib/prometheus/node-exporter/tierd.prom");
	CHECK_EQ_INT(u.nr_settings, 2);
	CHECK_EQ_STR(u.settings[0].name, "numa_balancing");
	CHECK_EQ_STR(u.settings[0].value, "1");
	CHECK_EQ_STR(u.settings[1].name, "numa_balancing_promote_rate_limit_MBps");
	CHECK_EQ_STR(u.settings[1].value, "65536");
	CHECK_EQ_INT(u.nr_kdamonds, 2);
	CHECK_EQ_INT(u.kdamonds[0].index, 0);
	CHECK_EQ_INT(u.kdamonds[0].pid, 4567);
	CHECK_EQ_INT(u.kdamonds[1].index, 3);
	CHECK_EQ_INT(u.kdamonds[1].pid, 4570);
	/* Written back as read. */
	CHECK_EQ_INT(tierd_undo_format(&u, &text, NULL), 0);
	CHECK_EQ_STR(text, good);
	free(text);
	/* A minimal record. */
	CHECK_EQ_INT(tierd_undo_parse("tierd-undo 1\npid 1\n", 19, &u, NULL), 0);
	CHECK_EQ_INT(u.pid, 1);
	CHECK_EQ_INT(u.nr_settings + u.nr_kdamonds, 0);
	CHECK_EQ_STR(u.metrics_file, "");
}

static const char *refusal(const char *text, size_t len)
{
	static struct tierd_log_keep cap;
	struct tierd_undo u;

	if (tierd_undo_parse(text, len, &u, capture(&cap)) != -EINVAL)
		return "(accepted)";
	return cap.last;
}

/* The refusal is told with the parse's errno after it. */
#define REFUSED(text, want) \
	CHECK_EQ_STR(refusal(text, sizeof(text) - 1), want ": Invalid argument")

static void test_parse_bad(void)
{
	char many[2048] = "tierd-undo 1\npid 5\n";

	REFUSED("", "expected text lines ending in a newline, without NUL bytes");
	REFUSED("tierd-undo 1\npid 5", "expected text lines ending in a newline, without NUL bytes");
	REFUSED("tierd-undo 1\npid 5\0\n", "expected text lines ending in a newline, without NUL bytes");
	REFUSED("tierd-undo 2\npid 5\n", "line 1: expected \"tierd-undo 1\"");
	REFUSED("tierd-undo 1\n", "no \"pid\" line");
	REFUSED("tierd-undo 1\npid 0\n", "line 2: expected one \"pid N\" with N 1..2147483647");
	REFUSED("tierd-undo 1\npid 05\n", "line 2: expected one \"pid N\" with N 1..2147483647");
	REFUSED("tierd-undo 1\npid 2147483648\n", "line 2: expected one \"pid N\" with N 1..2147483647");
	REFUSED("tierd-undo 1\npid 5\npid 6\n", "line 3: expected one \"pid N\" with N 1..2147483647");
	REFUSED("tierd-undo 1\npid  5\n", "line 2: expected one \"pid N\" with N 1..2147483647");
	REFUSED("tierd-undo 1\npid 5 \n", "line 2: expected one \"pid N\" with N 1..2147483647");
	REFUSED("tierd-undo 1\npid 5\n\n",
		"line 3: expected \"pid\", \"metrics\", \"setting\" or \"kdamond\"");
	REFUSED("tierd-undo 1\npid 5\nmetrics relative.prom\n",
		"line 3: expected one \"metrics /absolute/path\" under 4096 bytes");
	REFUSED("tierd-undo 1\npid 5\nsetting numa_balancing\n",
		"line 3: expected \"setting NAME VALUE\" (NAME [A-Za-z0-9_], under 64 bytes; VALUE [A-Za-z0-9_.-], under 32 bytes)");
	REFUSED("tierd-undo 1\npid 5\nsetting numa_balancing 1 2\n",
		"line 3: expected \"setting NAME VALUE\" (NAME [A-Za-z0-9_], under 64 bytes; VALUE [A-Za-z0-9_.-], under 32 bytes)");
	REFUSED("tierd-undo 1\npid 5\nsetting numa/balancing 1\n",
		"line 3: expected \"setting NAME VALUE\" (NAME [A-Za-z0-9_], under 64 bytes; VALUE [A-Za-z0-9_.-], under 32 bytes)");
	REFUSED("tierd-undo 1\npid 5\nsetting a 1\nsetting a 2\n", "line 4: setting a recorded twice");
	REFUSED("tierd-undo 1\npid 5\nkdamond 16 9\n",
		"line 3: expected \"kdamond INDEX PID\" (INDEX 0..15, PID 1..2147483647)");
	REFUSED("tierd-undo 1\npid 5\nkdamond 1 -1\n",
		"line 3: expected \"kdamond INDEX PID\" (INDEX 0..15, PID 1..2147483647)");
	REFUSED("tierd-undo 1\npid 5\nkdamond 1 9\nkdamond 1 10\n", "line 4: kdamond 1 recorded twice");
	for (int i = 0; i <= TIERD_UNDO_MAX_SETTINGS; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "setting s%d 1\n", i);
	CHECK_EQ_STR(refusal(many, strlen(many)),
		     "line 19: more than 16 settings: Invalid argument");
}

/* The record callback sees the setting already marked changed, before the
 * file is written; its failure cancels the write. */
struct seen {
	const struct tierd_ksettings *ks;
	char root[TMPTREE_DIR_MAX];
	int calls;
	bool changed_then;
	char file_then[32];
	int fail;
};

static int record_cb(void *data)
{
	struct seen *s = data;

	s->calls++;
	s->changed_then = s->ks->s[TIERD_KSETTING_NUMA_BALANCING].changed;
	snprintf(s->file_then, sizeof(s->file_then), "%s", tmptree_get(s->root, BALANCING));
	return s->fail;
}

static void test_ksettings_record(void)
{
	struct tierd_ksettings ks;
	struct seen s = { .ks = &ks };
	struct tierd_log_keep cap;
	struct tierd_undo u;

	if (tmptree_make(s.root, sizeof(s.root), "undo") < 0) {
		CHECK(0);
		return;
	}
	tmptree_put(s.root, BALANCING, "1\n");
	CHECK_EQ_INT(tierd_ksettings_init(&ks, s.root, capture(&cap)), 0);
	ks.record = record_cb;
	ks.record_data = &s;
	s.fail = -EROFS;
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)),
		     -EROFS);
	CHECK_EQ_STR(tmptree_get(s.root, BALANCING), "1\n");
	CHECK(!ks.s[TIERD_KSETTING_NUMA_BALANCING].changed);
	s.fail = 0;
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)), 0);
	CHECK_EQ_INT(s.calls, 2);
	CHECK(s.changed_then);
	CHECK_EQ_STR(s.file_then, "1\n");
	CHECK_EQ_STR(tmptree_get(s.root, BALANCING), "2");
	/* Changing it again: already recorded. */
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "0", capture(&cap)), 0);
	CHECK_EQ_INT(s.calls, 2);
	tierd_undo_build(&ks, NULL, 77, "/m.prom", &u);
	CHECK_EQ_INT(u.pid, 77);
	CHECK_EQ_STR(u.metrics_file, "/m.prom");
	CHECK_EQ_INT(u.nr_settings, 1);
	CHECK_EQ_STR(u.settings[0].name, "numa_balancing");
	CHECK_EQ_STR(u.settings[0].value, "1");

	/* A new tierd adopts the dead one's original "3", whatever it reads. */
	CHECK_EQ_INT(tierd_ksettings_init(&ks, s.root, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_ksettings_adopt(&ks, "numa_balancing", "3", capture(&cap)), 0);
	CHECK_EQ_INT(tierd_ksettings_adopt(&ks, "vm_swappiness", "3", capture(&cap)), -ENOENT);
	CHECK_EQ_STR(cap.last,
		     "\"vm_swappiness\" is not a kernel setting tierd changes: No such file or directory");
	CHECK_EQ_INT(tierd_ksettings_adopt(&ks, "numa_balancing", "9", capture(&cap)), -EINVAL);
	CHECK_EQ_INT(tierd_ksetting_set(&ks, TIERD_KSETTING_NUMA_BALANCING, "2", capture(&cap)), 0);
	CHECK_EQ_INT(tierd_ksettings_restore(&ks, capture(&cap)), 0);
	CHECK_EQ_STR(tmptree_get(s.root, BALANCING), "3");
	tmptree_rm(s.root, "");
}

static void put_kdamond(const char *admin, int k, const char *pid, const char *state)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "kdamonds/%d/pid", k);
	tmptree_put(admin, rel, pid);
	snprintf(rel, sizeof(rel), "kdamonds/%d/state", k);
	tmptree_put(admin, rel, state);
}

static void test_take_back(void)
{
	char root[TMPTREE_DIR_MAX], admin[TIERD_FILE_PATH_MAX];
	struct tierd_log_keep cap;
	struct tierd_kdamond_claim c[3];
	bool removed = true;

	if (tmptree_make(root, sizeof(root), "takeback") < 0) {
		CHECK(0);
		return;
	}
	/* No DAMON: nothing to take back. */
	c[0] = (struct tierd_kdamond_claim){ .index = 0, .pid = 10 };
	CHECK_EQ_INT(tierd_damon_take_back(root, c, 1, &removed, capture(&cap)), 0);
	CHECK(!removed);
	CHECK_EQ_INT(c[0].verdict, TIERD_KDAMOND_NOT_RUNNING);

	snprintf(admin, sizeof(admin), "%s%s", root, TIERD_DAMON_ADMIN);
	tmptree_put(admin, "kdamonds/nr_kdamonds", "3\n");
	put_kdamond(admin, 0, "10\n", "on\n");
	put_kdamond(admin, 1, "-1\n", "off\n");
	put_kdamond(admin, 2, "99\n", "on\n");
	c[0] = (struct tierd_kdamond_claim){ .index = 0, .pid = 10 };
	c[1] = (struct tierd_kdamond_claim){ .index = 1, .pid = 11 };
	c[2] = (struct tierd_kdamond_claim){ .index = 2, .pid = 12 };
	CHECK_EQ_INT(tierd_damon_take_back(root, c, 3, &removed, capture(&cap)), 0);
	CHECK_EQ_INT(c[0].verdict, TIERD_KDAMOND_TAKEN_BACK);
	CHECK_EQ_INT(c[1].verdict, TIERD_KDAMOND_NOT_RUNNING);
	CHECK_EQ_INT(c[2].verdict, TIERD_KDAMOND_FOREIGN);
	CHECK_EQ_INT(c[2].now_pid, 99);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "off");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/2/state"), "on\n");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "3\n");
	CHECK(!removed);

	/* All proven tierd's: removed. */
	tmptree_put(admin, "kdamonds/nr_kdamonds", "2\n");
	put_kdamond(admin, 0, "10\n", "on\n");
	put_kdamond(admin, 1, "11\n", "on\n");
	CHECK_EQ_INT(tierd_damon_take_back(root, c, 2, &removed, capture(&cap)), 0);
	CHECK(removed);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/1/state"), "off");
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/nr_kdamonds"), "0");

	/* A pid file that is not a pid. */
	tmptree_put(admin, "kdamonds/nr_kdamonds", "1\n");
	put_kdamond(admin, 0, "x\n", "on\n");
	CHECK_EQ_INT(tierd_damon_take_back(root, c, 1, &removed, capture(&cap)), -EINVAL);
	CHECK(strstr(cap.last, "kdamonds/0/pid: expected a pid or -1, read \"x\"") != NULL);
	CHECK_EQ_STR(tmptree_get(admin, "kdamonds/0/state"), "on\n");
	tmptree_rm(root, "");
}

static void test_verdict(void)
{
	static const char ok[] = "pid 42\ngeneration 3\nresult refused\nmessage x.json: refused: a FIFO\n";
	struct tierd_reload_verdict v, back;
	char dir[TMPTREE_DIR_MAX];
	struct tierd_log_keep cap;

	CHECK_EQ_INT(tierd_reload_verdict_parse(ok, sizeof(ok) - 1, &v, NULL), 0);
	CHECK_EQ_INT(v.pid, 42);
	CHECK_EQ_U64(v.generation, 3);
	CHECK(!v.ok);
	CHECK_EQ_STR(v.message, "x.json: refused: a FIFO");
#define BAD(text, want)                                                                    \
	do {                                                                               \
		CHECK_EQ_INT(tierd_reload_verdict_parse(text, sizeof(text) - 1, &v,        \
							capture(&cap)), -EINVAL);          \
		CHECK_EQ_STR(cap.last, want ": Invalid argument");                         \
	} while (0)
	BAD("pid 42\ngeneration 3\nresult maybe\nmessage m\n", "line 3: bad result value");
	BAD("pid 42\ngeneration 3\nresult ok\n", "line 4: missing, expected \"message ...\"");
	BAD("pid 42\ngeneration -3\nresult ok\nmessage m\n", "line 2: bad generation value");
	BAD("pid 0\ngeneration 3\nresult ok\nmessage m\n", "line 1: bad pid value");
	BAD("generation 3\npid 42\nresult ok\nmessage m\n", "line 1: expected \"pid ...\"");
	BAD("pid 42\ngeneration 3\nresult ok\nmessage m\nmore\n", "line 5: expected the end of the file");
	BAD("pid 42\ngeneration 3\nresult ok\nmessage m", "expected text lines ending in a newline, without NUL bytes");
#undef BAD
	if (tmptree_make(dir, sizeof(dir), "verdict") < 0) {
		CHECK(0);
		return;
	}
	v = (struct tierd_reload_verdict){ .pid = 7, .generation = 12, .ok = true };
	snprintf(v.message, sizeof(v.message), "two\nlines");
	CHECK_EQ_INT(tierd_reload_verdict_write(dir, &v), 0);
	CHECK_EQ_STR(tmptree_get(dir, "reload"), "pid 7\ngeneration 12\nresult ok\nmessage two lines\n");
	CHECK_EQ_INT(tierd_reload_verdict_read(dir, &back, NULL), 0);
	CHECK_EQ_STR(back.message, "two lines");
	CHECK(back.ok);
	tmptree_rm(dir, "");
}

int main(void)
{
	test_parse_good();
	test_parse_bad();
	test_ksettings_record();
	test_take_back();
	test_verdict();
	return tierd_test_finish();
}
