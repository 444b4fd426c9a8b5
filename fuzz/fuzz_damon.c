/* libFuzzer harness: the DAMON readers of controller/damon.c
 * (tierd_damon_read_tried_regions, tierd_damon_read_stats) on a fake sysfs
 * tree under a mkdtemp directory. The input is split at '|' into the files'
 * contents, in the order of fuzz_files[]; a file with no piece left is
 * absent. Region directories are named "0", "1" and "10": the kernel's
 * names are not 0..n-1. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../controller/damon.h"
#include "../tests/tmptree.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NR_TRIED 4 /* one more than the regions laid out */
#define FUZZ_NR_SCHEMES 1
#define FUZZ_SHM_TEMPLATE "/dev/shm/tierd-fuzz-damon-XXXXXX"

#define TR "kdamonds/0/contexts/0/schemes/0/tried_regions/"
#define ST "kdamonds/0/contexts/0/schemes/0/stats/"
static const char *const fuzz_files[] = {
	TR "0/start",  TR "0/end",  TR "0/nr_accesses",  TR "0/age",
	TR "1/start",  TR "1/end",  TR "1/nr_accesses",  TR "1/age",
	TR "10/start", TR "10/end", TR "10/nr_accesses", TR "10/age",
	ST "nr_tried", ST "sz_tried", ST "nr_applied", ST "sz_applied", ST "qt_exceeds",
};

static char fuzz_root[TMPTREE_DIR_MAX];

static void fuzz_cleanup(void)
{
	tmptree_rm(fuzz_root, "");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* On tmpfs when there is one: ext4 flushes a truncated file's data at
	 * close (auto_da_alloc), which made each run take tens of ms. */
	strcpy(fuzz_root, FUZZ_SHM_TEMPLATE);
	if (!mkdtemp(fuzz_root) && tmptree_make(fuzz_root, sizeof(fuzz_root), "fuzz-damon") < 0)
		abort();
	atexit(fuzz_cleanup);
	tmptree_put(fuzz_root, "kdamonds/0/state", "on\n");
	for (size_t i = 0; i < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++)
		tmptree_put(fuzz_root, fuzz_files[i], "");
	return 0;
}

/* Writes len bytes (NULs included) to fuzz_root/rel, or removes it when
 * data is NULL. */
static void fuzz_put(const char *rel, const uint8_t *data, size_t len)
{
	char path[TIERD_FILE_PATH_MAX];
	int fd;

	tmptree_join(path, sizeof(path), fuzz_root, rel);
	if (!data) {
		unlink(path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len))
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tierd_damon d = { .nr_kdamonds = 1, .running = true };
	struct tierd_damon_tried_region tried[FUZZ_NR_TRIED];
	struct tierd_damon_scheme_stats stats[FUZZ_NR_SCHEMES];
	struct tierd_log_keep told;
	const uint8_t *p = data, *end = data + size;
	int n;

	for (size_t i = 0; i < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++) {
		const uint8_t *bar = p ? memchr(p, '|', (size_t)(end - p)) : NULL;

		fuzz_put(fuzz_files[i], p, p ? (size_t)((bar ? bar : end) - p) : 0);
		p = bar ? bar + 1 : NULL;
	}
	tmptree_join(d.admin, sizeof(d.admin), fuzz_root, "");
	n = tierd_damon_read_tried_regions(&d, 0, 0, tried, FUZZ_NR_TRIED,
					   tierd_log_keep(&told, NULL));
	if (n > FUZZ_NR_TRIED - 1 || (n < 0 && !told.nr))
		abort();
	if (tierd_damon_read_stats(&d, 0, stats, FUZZ_NR_SCHEMES,
				   tierd_log_keep(&told, NULL)) < 0 && !told.nr)
		abort();
	return 0;
}
