/* Scratch trees for tests that stand a fake /sys, /proc or cgroup tree up
 * under a mkdtemp directory: make the directory, write files (and their
 * parents) below it, read them back, remove parts of it. Paths are a
 * directory and a name under it, joined by tmptree_join. Setup that fails
 * aborts with the path named: a test cannot go on without its tree.
 * Shared by tests/test_actuator.c, test_attribution.c, test_damon.c and
 * test_ksettings.c. */
#ifndef TIERD_TEST_TMPTREE_H
#define TIERD_TEST_TMPTREE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../controller/fsread.h"
#include "../policy/policy.h"

#define TMPTREE_DIR_MAX 64 /* "/tmp/tierd-" + a test's short name + "-XXXXXX" */
/* One page: more than any sysfs, procfs or cgroup value a test reads back. */
#define TMPTREE_TEXT_MAX 4096
#define TMPTREE_FDS 16 /* directories nftw may hold open; the trees are shallow */

/* dir and rel into out: rel "" is dir itself; a rel that does not start
 * with '/' ("kdamonds/0") gets one. */
static inline void tmptree_join(char *out, size_t size, const char *dir, const char *rel)
{
	const char *sep = *rel && *rel != '/' ? "/" : "";
	int n = snprintf(out, size, "%s%s%s", dir, sep, rel);

	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "%s%s%s: longer than %zu bytes\n", dir, sep, rel, size);
		abort();
	}
}

/* Makes /tmp/tierd-NAME-XXXXXX into dir (TMPTREE_DIR_MAX bytes). Returns 0
 * or -errno, with the template named on stderr. */
static inline int tmptree_make(char *dir, size_t size, const char *name)
{
	int n = snprintf(dir, size, "/tmp/tierd-%s-XXXXXX", name);

	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "/tmp/tierd-%s-XXXXXX: longer than %zu bytes\n", name, size);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(dir)) {
		n = -errno;
		perror(dir);
		return n;
	}
	return 0;
}

/* dir/rel and its missing parents, as mkdir -p (mode 0700); a directory
 * that is already there is fine. */
static inline void tmptree_mkdirs(const char *dir, const char *rel)
{
	char path[TIERD_FILE_PATH_MAX];

	tmptree_join(path, sizeof(path), dir, rel);
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	mkdir(path, 0700);
}

/* Creates dir/rel (and its parents) holding text. */
static inline void tmptree_put(const char *dir, const char *rel, const char *text)
{
	char path[TIERD_FILE_PATH_MAX], parent[TIERD_FILE_PATH_MAX];
	FILE *f;

	tmptree_join(path, sizeof(path), dir, rel);
	snprintf(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	tmptree_mkdirs(parent, "");
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	fputs(text, f);
	fclose(f);
}

/* The contents of dir/rel, or "(missing)"; valid until the next call. */
static inline const char *tmptree_get(const char *dir, const char *rel)
{
	static char text[TMPTREE_TEXT_MAX];
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_buf b = { 0 };

	tmptree_join(path, sizeof(path), dir, rel);
	if (tierd_read_at(AT_FDCWD, path, &b) < 0)
		snprintf(text, sizeof(text), "(missing)");
	else
		snprintf(text, sizeof(text), "%s", b.data);
	tierd_buf_free(&b);
	return text;
}

/* tmptree_rm's nftw callback: 0 or a positive errno, which stops the walk
 * and is what nftw returns (its own failures are -1 with errno set). */
static inline int tmptree_rm_one(const char *path, const struct stat *st, int type,
				 struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path) == 0 ? 0 : errno;
}

/* Removes dir/rel and everything below it, as rm -rf: a file, a symlink
 * (not what it points to) or a directory; one that is not there is fine. */
static inline void tmptree_rm(const char *dir, const char *rel)
{
	char path[TIERD_FILE_PATH_MAX];
	int r;

	tmptree_join(path, sizeof(path), dir, rel);
	r = nftw(path, tmptree_rm_one, TMPTREE_FDS, FTW_DEPTH | FTW_PHYS);
	if (r != 0 && !(r == -1 && errno == ENOENT)) {
		fprintf(stderr, "%s: cannot remove: %s\n", path, strerror(r > 0 ? r : errno));
		abort();
	}
}

#endif
