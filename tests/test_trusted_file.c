/* The rules a configuration file must meet before tierd reads it
 * (policy/trusted_file.h), each with its exact reason; and the loaders
 * refusing a FIFO, a symlink to /dev/zero, a group-writable and an
 * oversized policy, naming the file, without blocking. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tmptree.h"
#include "../config/policy_json.h"
#include "../config/trusted_file.h"

TIERD_TEST_MAIN_COUNTS;

#define GOOD "{\"name\": \"a\", \"match\": {\"path\": \"/a\"}}"

static int check(mode_t mode, uid_t uid, off_t size, uid_t euid, char *why, size_t n)
{
	struct stat st = { .st_mode = mode, .st_uid = uid, .st_size = size };

	why[0] = '\0';
	return tierd_trusted_check(&st, euid, why, n);
}

static void test_rules(void)
{
	char why[TIERD_TRUSTED_WHY_MAX];

	CHECK_EQ_INT(check(S_IFREG | 0644, 0, 100, 0, why, sizeof(why)), 0);
	CHECK_EQ_STR(why, "");
	CHECK_EQ_INT(check(S_IFREG | 0600, 1000, 100, 0, why, sizeof(why)), -EPERM);
	CHECK_EQ_STR(why, "owned by uid 1000, not by root");
	/* A user checking a draft of their own. */
	CHECK_EQ_INT(check(S_IFREG | 0600, 1000, 100, 1000, why, sizeof(why)), 0);
	CHECK_EQ_INT(check(S_IFREG | 0600, 1001, 100, 1000, why, sizeof(why)), -EPERM);
	CHECK_EQ_STR(why, "owned by uid 1001, not by root nor by the user reading it");
	CHECK_EQ_INT(check(S_IFREG | 0664, 0, 100, 0, why, sizeof(why)), -EPERM);
	CHECK_EQ_STR(why, "writable by group (mode 0664); run chmod go-w on it");
	CHECK_EQ_INT(check(S_IFREG | 0646, 0, 100, 0, why, sizeof(why)), -EPERM);
	CHECK_EQ_STR(why, "writable by others (mode 0646); run chmod go-w on it");
	CHECK_EQ_INT(check(S_IFREG | 0666, 0, 100, 0, why, sizeof(why)), -EPERM);
	CHECK_EQ_STR(why, "writable by group and others (mode 0666); run chmod go-w on it");
	CHECK_EQ_INT(check(S_IFIFO | 0600, 0, 0, 0, why, sizeof(why)), -EINVAL);
	CHECK_EQ_STR(why, "not a regular file (a FIFO)");
	CHECK_EQ_INT(check(S_IFCHR | 0666, 0, 0, 0, why, sizeof(why)), -EINVAL);
	CHECK_EQ_STR(why, "not a regular file (a character device)");
	CHECK_EQ_INT(check(S_IFDIR | 0755, 0, 0, 0, why, sizeof(why)), -EINVAL);
	CHECK_EQ_STR(why, "not a regular file (a directory)");
	CHECK_EQ_INT(check(S_IFREG | 0644, 0, TIERD_TRUSTED_FILE_MAX_BYTES, 0, why, sizeof(why)), 0);
	CHECK_EQ_INT(check(S_IFREG | 0644, 0, TIERD_TRUSTED_FILE_MAX_BYTES + 1, 0, why, sizeof(why)),
		     -EFBIG);
	CHECK_EQ_STR(why, "1048577 bytes, above the limit of 1048576");
}

/* Loads dir's policies; returns the one message (or "") and the result. */
static int load(const char *dir, char *msg, size_t n)
{
	struct tierd_policy_set set = { 0 };
	struct tierd_diags diags = { 0 };
	int r = tierd_policy_load_dir(dir, NULL, &set, &diags);

	snprintf(msg, n, "%s", diags.nr ? diags.items[0].message : "");
	CHECK(diags.nr <= 1);
	tierd_diags_free(&diags);
	tierd_policy_set_free(&set);
	return r;
}

static void test_loader(void)
{
	char dir[TMPTREE_DIR_MAX], path[TIERD_FILE_PATH_MAX], msg[TIERD_DIAG_MSG_MAX],
		want[TIERD_DIAG_MSG_MAX + TIERD_FILE_PATH_MAX];
	struct tierd_diags diags = { 0 };
	struct tierd_config cfg;

	if (tmptree_make(dir, sizeof(dir), "trusted") < 0) {
		CHECK(0);
		return;
	}
	tmptree_put(dir, "a.json", GOOD);
	tmptree_join(path, sizeof(path), dir, "a.json");
	CHECK_EQ_INT(chmod(path, 0644), 0);
	CHECK_EQ_INT(load(dir, msg, sizeof(msg)), 0);

	/* Group-writable. */
	CHECK_EQ_INT(chmod(path, 0664), 0);
	CHECK_EQ_INT(load(dir, msg, sizeof(msg)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: refused: writable by group (mode 0664); run chmod go-w on it", path);
	CHECK_EQ_STR(msg, want);
	CHECK_EQ_INT(chmod(path, 0644), 0);

	/* A FIFO nobody writes to: refused at once, not waited on. */
	tmptree_join(path, sizeof(path), dir, "fifo.json");
	CHECK_EQ_INT(mkfifo(path, 0600), 0);
	CHECK_EQ_INT(load(dir, msg, sizeof(msg)), -EINVAL);
	snprintf(want, sizeof(want), "%s: refused: not a regular file (a FIFO)", path);
	CHECK_EQ_STR(msg, want);
	/* tierd.json as a FIFO, the same. */
	CHECK_EQ_INT(tierd_config_load(path, 1, &cfg, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	if (diags.nr)
		CHECK_EQ_STR(diags.items[0].message, want);
	tierd_diags_free(&diags);
	unlink(path);

	/* A symlink to /dev/zero: its target is what is checked. */
	tmptree_join(path, sizeof(path), dir, "zero.json");
	CHECK_EQ_INT(symlink("/dev/zero", path), 0);
	CHECK_EQ_INT(load(dir, msg, sizeof(msg)), -EINVAL);
	snprintf(want, sizeof(want), "%s: refused: not a regular file (a character device)",
		 path);
	CHECK_EQ_STR(msg, want);
	unlink(path);

	/* A symlink to a good file is followed. */
	tmptree_put(dir, "c.txt", "{\"name\": \"c\", \"match\": {\"path\": \"/c\"}}");
	tmptree_join(path, sizeof(path), dir, "c.txt");
	CHECK_EQ_INT(chmod(path, 0644), 0);
	tmptree_join(path, sizeof(path), dir, "c.json");
	CHECK_EQ_INT(symlink("c.txt", path), 0);
	CHECK_EQ_INT(load(dir, msg, sizeof(msg)), 0);
	CHECK_EQ_STR(msg, "");

	/* One byte over the limit. */
	tmptree_put(dir, "b.json", "{}");
	tmptree_join(path, sizeof(path), dir, "b.json");
	CHECK_EQ_INT(chmod(path, 0644), 0);
	CHECK_EQ_INT(truncate(path, TIERD_TRUSTED_FILE_MAX_BYTES + 1), 0);
	CHECK_EQ_INT(load(dir, msg, sizeof(msg)), -EINVAL);
	snprintf(want, sizeof(want), "%s: refused: 1048577 bytes, above the limit of 1048576",
		 path);
	CHECK_EQ_STR(msg, want);
	tmptree_rm(dir, "");
}

int main(void)
{
	test_rules();
	test_loader();
	return tierd_test_finish();
}
