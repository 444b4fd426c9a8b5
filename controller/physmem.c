/* Node memory blocks to physical ranges; see physmem.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsread.h"
#include "physmem.h"
#include "../policy/hotness.h"
#include "../policy/policy.h"

#define BLOCK_PREFIX "memory" /* nodeN/memoryX; not memory_failure, memory_side_cache */
#define HEX_BASE 16
#define DEC_BASE 10
#define FIRST_BLOCKS 64 /* an 8 GiB node in 128 MiB blocks; the array grows */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "memory" followed by decimal digits only, into *ret_id. */
static bool block_id(const char *name, uint64_t *ret_id)
{
	const char *digits = name + strlen(BLOCK_PREFIX);
	unsigned long long id;
	char *end;

	if (strncmp(name, BLOCK_PREFIX, strlen(BLOCK_PREFIX)) != 0 || *digits < '0' ||
	    *digits > '9')
		return false;
	errno = 0;
	id = strtoull(digits, &end, DEC_BASE);
	if (*end || errno)
		return false;
	*ret_id = id;
	return true;
}

/* One line of hex digits without 0x, as the kernel prints it ("%lx\n"). */
static int parse_hex(const char *text, size_t len, uint64_t *ret_value)
{
	uint64_t v = 0;
	size_t i;

	if (len && text[len - 1] == '\n')
		len--;
	if (len == 0)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = text[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a') + DEC_BASE;
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A') + DEC_BASE;
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / HEX_BASE)
			return -EINVAL;
		v = v * HEX_BASE + d;
	}
	*ret_value = v;
	return 0;
}

static int read_block_size(const char *root, struct tierd_buf *b, uint64_t *ret_bytes,
			   const struct tierd_logger *log)
{
	const char *rel = TIERD_PHYSMEM_BLOCK_DIR "/block_size_bytes";
	char path[TIERD_FILE_PATH_MAX];
	int r;

	r = tierd_root_path(root, rel, path, sizeof(path));
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s under the root", rel);
	r = tierd_read_at(AT_FDCWD, path, b);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
	if (parse_hex(b->data, b->len, ret_bytes) < 0 || *ret_bytes == 0 ||
	    *ret_bytes % TIERD_PAGE_BYTES)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: expected the memory block size in hex without 0x, a multiple of the %llu-byte page (e.g. \"8000000\"), got \"%.*s\"",
				       path, TIERD_PAGE_BYTES, (int)strcspn(b->data, "\n"),
				       b->data);
	return 0;
}

/* Whether block id is online: its online file reads 1, or it has none
 * (kernels without memory hotplug). */
static int block_online(const char *root, uint64_t id, struct tierd_buf *b, bool *ret_online,
			const struct tierd_logger *log)
{
	char rel[TIERD_FILE_PATH_MAX], path[TIERD_FILE_PATH_MAX];
	int r;

	snprintf(rel, sizeof(rel), TIERD_PHYSMEM_BLOCK_DIR "/" BLOCK_PREFIX "%" PRIu64 "/online",
		 id);
	r = tierd_root_path(root, rel, path, sizeof(path));
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s under the root", rel);
	r = tierd_read_at(AT_FDCWD, path, b);
	if (r == -ENOENT) {
		*ret_online = true;
		return 0;
	}
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
	if (strcmp(b->data, "0\n") != 0 && strcmp(b->data, "1\n") != 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: expected \"0\" or \"1\", got \"%.*s\"", path,
				       (int)strcspn(b->data, "\n"), b->data);
	*ret_online = b->data[0] == '1';
	return 0;
}

/* The sorted ids of the memory blocks in node directory dir, in a
 * malloc'ed *ret_ids. */
static int node_block_ids(const char *dir, uint64_t **ret_ids, size_t *ret_nr,
			  const struct tierd_logger *log)
{
	uint64_t *ids = NULL;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -errno,
				    "%s (expected the node's directory of memory blocks)", dir);
		goto out;
	}
	while ((de = readdir(d))) {
		uint64_t id;

		if (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
			continue;
		if (!block_id(de->d_name, &id))
			continue;
		if (nr == cap) {
			size_t ncap = cap ? cap * 2 : FIRST_BLOCKS;
			uint64_t *nids = realloc(ids, ncap * sizeof(*ids));

			if (!nids) {
				r = tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOMEM,
						    "%s: %zu memory blocks", dir, ncap);
				goto out;
			}
			ids = nids;
			cap = ncap;
		}
		ids[nr++] = id;
	}
	if (nr)
		qsort(ids, nr, sizeof(*ids), cmp_u64);
	*ret_ids = ids;
	*ret_nr = nr;
	ids = NULL;
out:
	if (d)
		closedir(d);
	free(ids);
	return r;
}

int tierd_physmem_node_ranges(const char *root, int nid, struct tierd_phys_range *out,
			      size_t cap, size_t *ret_nr, const struct tierd_logger *log)
{
	char rel[TIERD_FILE_PATH_MAX], dir[TIERD_FILE_PATH_MAX];
	struct tierd_buf b = { 0 };
	uint64_t *ids = NULL;
	size_t nr_ids = 0, nr = 0;
	uint64_t bs = 0;
	int r;

	r = read_block_size(root, &b, &bs, log);
	if (r < 0)
		goto out;
	snprintf(rel, sizeof(rel), TIERD_PHYSMEM_NODE_DIR "/node%d", nid);
	r = tierd_root_path(root, rel, dir, sizeof(dir));
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s under the root", rel);
		goto out;
	}
	r = node_block_ids(dir, &ids, &nr_ids, log);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < nr_ids; i++) {
		bool online = false;
		uint64_t start;

		if (ids[i] >= UINT64_MAX / bs) {
			r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					    "%s/" BLOCK_PREFIX "%" PRIu64
					    ": block beyond the 64-bit physical address space with %" PRIu64
					    "-byte blocks",
					    dir, ids[i], bs);
			goto out;
		}
		r = block_online(root, ids[i], &b, &online, log);
		if (r < 0)
			goto out;
		if (!online)
			continue;
		start = ids[i] * bs;
		if (nr && out[nr - 1].end == start) {
			out[nr - 1].end = start + bs;
			continue;
		}
		if (nr == cap) {
			r = tierd_log_errno(log, TIERD_LOG_DEBUG, -E2BIG,
					    "%s: more than %zu separate physical ranges of memory blocks",
					    dir, cap);
			goto out;
		}
		out[nr++] = (struct tierd_phys_range){ .start = start, .end = start + bs };
	}
	*ret_nr = nr;
out:
	free(ids);
	tierd_buf_free(&b);
	return r;
}
