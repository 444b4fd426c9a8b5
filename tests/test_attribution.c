/* Unit tests for controller/physmem.c (node memory blocks to physical
 * ranges; the four-tier fixture and trees built under a mkdtemp directory),
 * controller/kpagecgroup.c (a file of known u64s standing in for
 * /proc/kpagecgroup) and policy/attribution.c (DAMON regions split by page
 * owner). Addresses are written in pages: P(n) is page n's address. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../controller/kpagecgroup.h"
#include "../controller/physmem.h"
#include "../policy/attribution.h"
#include "check.h"
#include "log_capture.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define FIXTURE "tests/fixtures/four-tier" /* tests run from the repository root */
#define GIB (1024ull * 1024 * 1024)
#define BLOCK_BYTES 0x8000000ull        /* 128 MiB, as in the fixtures and the VM */
#define RANGES_MAX 8
#define P(n) ((uint64_t)(n) * TIERD_PAGE_BYTES)
/* Inodes of the attribution tests: 100 -> cgroup 0; 200 and its descendant
 * 201 -> cgroup 1; 300 is a cgroup tierd does not manage. */
#define INO_A 100
#define INO_B 200
#define INO_B_CHILD 201
#define INO_OTHER 300
#define NR_OUT 2
#define KPC_ENTRIES 300000 /* a 2.3 MiB file: the read goes beyond one page */

static char root[TMPTREE_DIR_MAX];

static const struct tierd_attr_cgroup cgmap[] = {
	{ .ino = INO_A, .index = 0 },
	{ .ino = INO_B, .index = 1 },
	{ .ino = INO_B_CHILD, .index = 1 },
};

/* Memory block id of node nid: memory/memoryID (with an online file holding
 * online unless that is NULL) and nodeN/memoryID, a symlink to it as on a
 * real system or, with as_dir, a plain directory as in the fixtures. */
static void block(int nid, unsigned id, const char *online, bool as_dir)
{
	char rel[TIERD_FILE_PATH_MAX], path[TIERD_FILE_PATH_MAX], target[TIERD_FILE_PATH_MAX];

	snprintf(rel, sizeof(rel), TIERD_PHYSMEM_BLOCK_DIR "/memory%u", id);
	tmptree_mkdirs(root, rel);
	if (online) {
		snprintf(rel, sizeof(rel), TIERD_PHYSMEM_BLOCK_DIR "/memory%u/online", id);
		tmptree_put(root, rel, online);
	}
	snprintf(rel, sizeof(rel), TIERD_PHYSMEM_NODE_DIR "/node%d", nid);
	tmptree_mkdirs(root, rel);
	snprintf(rel, sizeof(rel), TIERD_PHYSMEM_NODE_DIR "/node%d/memory%u", nid, id);
	if (as_dir) {
		tmptree_mkdirs(root, rel);
		return;
	}
	tmptree_join(path, sizeof(path), root, rel);
	snprintf(target, sizeof(target), "../../memory/memory%u", id);
	if (symlink(target, path) != 0) {
		perror(path);
		abort();
	}
}

/* A directory named name (none: the node's own) in node nid's directory. */
static void node_dir(int nid, const char *name)
{
	char rel[TIERD_FILE_PATH_MAX];

	snprintf(rel, sizeof(rel), TIERD_PHYSMEM_NODE_DIR "/node%d/%s", nid, name);
	tmptree_mkdirs(root, rel);
}

/* An empty tree with block_size_bytes = bs. */
static void fresh_tree(const char *bs)
{
	tmptree_rm(root, "/sys");
	tmptree_put(root, TIERD_PHYSMEM_BLOCK_DIR "/block_size_bytes", bs);
}

static void check_ranges(const struct tierd_phys_range *got, size_t nr,
			 const uint64_t (*want)[2], size_t nr_want, const char *what)
{
	CHECK_EQ_INT(nr, nr_want);
	if (nr != nr_want) {
		fprintf(stderr, "  in: %s\n", what);
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		CHECK_EQ_U64(got[i].start, want[i][0]);
		CHECK_EQ_U64(got[i].end, want[i][1]);
		if (got[i].start != want[i][0] || got[i].end != want[i][1])
			fprintf(stderr, "  in: %s, range %zu\n", what, i);
	}
}

/* The four-tier fixture: the VM's layout, 1 GiB per node, RAM above 3 GiB
 * mapped at 4 GiB (blocks as plain directories). */
static void test_physmem_fixture(void)
{
	static const uint64_t want[4][2] = {
		{ 0, GIB }, { GIB, 2 * GIB }, { 2 * GIB, 3 * GIB }, { 4 * GIB, 5 * GIB },
	};
	struct tierd_phys_range out[RANGES_MAX];
	struct tierd_log_keep cap;
	size_t nr = 0;

	for (int nid = 0; nid < 4; nid++) {
		CHECK_EQ_INT(tierd_physmem_node_ranges(FIXTURE, nid, out, RANGES_MAX, &nr,
						       capture(&cap)),
			     0);
		check_ranges(out, nr, &want[nid], 1, "four-tier fixture");
	}
	CHECK_EQ_INT(tierd_physmem_node_ranges(FIXTURE, 4, out, RANGES_MAX, &nr, capture(&cap)),
		     -ENOENT);
	CHECK(strstr(cap.last,
		     FIXTURE "/sys/devices/system/node/node4 (expected the node's directory of memory blocks): No such file or directory") !=
	      NULL);
}

static void test_physmem_trees(void)
{
	struct tierd_phys_range out[RANGES_MAX];
	char want_err[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	size_t nr = 0;

	/* Holes, numeric (not name) order, symlinks and directories mixed,
	 * and entries that only look like blocks. */
	fresh_tree("8000000\n");
	block(0, 9, "1\n", false);
	block(0, 10, "1\n", true);
	block(0, 11, NULL, false);
	block(0, 2, "1\n", false);
	block(0, 0, "1\n", false);
	block(0, 1, "1\n", true);
	block(0, 20, "1\n", false);
	block(1, 3, "1\n", false);
	node_dir(0, "memory_failure");
	node_dir(0, "memory_side_cache");
	node_dir(0, "memory");
	node_dir(0, "memory12x");
	/* A regular file with a block's name is not a block. */
	tmptree_put(root, TIERD_PHYSMEM_NODE_DIR "/node0/memory30", "");
	{
		static const uint64_t want[][2] = {
			{ 0, 3 * BLOCK_BYTES },
			{ 9 * BLOCK_BYTES, 12 * BLOCK_BYTES },
			{ 20 * BLOCK_BYTES, 21 * BLOCK_BYTES },
		};

		CHECK_EQ_INT(tierd_physmem_node_ranges(root, 0, out, RANGES_MAX, &nr,
						       capture(&cap)),
			     0);
		check_ranges(out, nr, want, 3, "holes");
	}
	/* Exactly as many ranges as room, then one too many. */
	CHECK_EQ_INT(tierd_physmem_node_ranges(root, 0, out, 3, &nr, capture(&cap)), 0);
	CHECK_EQ_INT(nr, 3);
	CHECK_EQ_INT(tierd_physmem_node_ranges(root, 0, out, 2, &nr, capture(&cap)), -E2BIG);
	snprintf(want_err, sizeof(want_err),
		 "%s/sys/devices/system/node/node0: more than 2 separate physical ranges of memory blocks: %s",
		 root, strerror(E2BIG));
	CHECK_EQ_STR(cap.last, want_err);

	/* Block 10 goes offline: 9 and 11 stay apart. */
	tmptree_put(root, TIERD_PHYSMEM_BLOCK_DIR "/memory10/online", "0\n");
	{
		static const uint64_t want[][2] = {
			{ 0, 3 * BLOCK_BYTES },
			{ 9 * BLOCK_BYTES, 10 * BLOCK_BYTES },
			{ 11 * BLOCK_BYTES, 12 * BLOCK_BYTES },
			{ 20 * BLOCK_BYTES, 21 * BLOCK_BYTES },
		};

		CHECK_EQ_INT(tierd_physmem_node_ranges(root, 0, out, RANGES_MAX, &nr,
						       capture(&cap)),
			     0);
		check_ranges(out, nr, want, 4, "offline block");
	}
	tmptree_put(root, TIERD_PHYSMEM_BLOCK_DIR "/memory10/online", "online\n");
	CHECK_EQ_INT(tierd_physmem_node_ranges(root, 0, out, RANGES_MAX, &nr, capture(&cap)),
		     -EINVAL);
	CHECK(strstr(cap.last, "/sys/devices/system/memory/memory10/online: expected \"0\" or \"1\", got \"online\"") !=
	      NULL);

	/* Node 1: one block; a node with no blocks; another block size. */
	{
		static const uint64_t want[][2] = { { 3 * BLOCK_BYTES, 4 * BLOCK_BYTES } };

		CHECK_EQ_INT(tierd_physmem_node_ranges(root, 1, out, RANGES_MAX, &nr,
						       capture(&cap)),
			     0);
		check_ranges(out, nr, want, 1, "node 1");
	}
	node_dir(2, "");
	nr = RANGES_MAX;
	CHECK_EQ_INT(tierd_physmem_node_ranges(root, 2, out, RANGES_MAX, &nr, capture(&cap)), 0);
	CHECK_EQ_INT(nr, 0);
	tmptree_put(root, TIERD_PHYSMEM_BLOCK_DIR "/block_size_bytes", "80000000\n");
	{
		static const uint64_t want[][2] = { { 3 * 2 * GIB, 4 * 2 * GIB } };

		CHECK_EQ_INT(tierd_physmem_node_ranges(root, 1, out, RANGES_MAX, &nr,
						       capture(&cap)),
			     0);
		check_ranges(out, nr, want, 1, "2 GiB blocks");
	}

	/* Malformed block sizes name the file and say what was expected. */
	{
		static const char *const bad[] = { "0x8000000\n", "8000000z\n", "\n", "0\n",
						   "800\n", "10000000000000000\n" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			tmptree_put(root, TIERD_PHYSMEM_BLOCK_DIR "/block_size_bytes", bad[i]);
			snprintf(want_err, sizeof(want_err),
				 "%s/sys/devices/system/memory/block_size_bytes: expected the memory block size in hex without 0x, a multiple of the 4096-byte page (e.g. \"8000000\"), got \"%.*s\": %s",
				 root, (int)strcspn(bad[i], "\n"), bad[i], strerror(EINVAL));
			CHECK_EQ_INT(tierd_physmem_node_ranges(root, 1, out, RANGES_MAX, &nr,
							       capture(&cap)),
				     -EINVAL);
			CHECK_EQ_STR(cap.last, want_err);
		}
	}
	tmptree_rm(root, "/sys/devices/system/memory/block_size_bytes");
	CHECK_EQ_INT(tierd_physmem_node_ranges(root, 1, out, RANGES_MAX, &nr, capture(&cap)),
		     -ENOENT);
	CHECK(strstr(cap.last, "block_size_bytes: No such file or directory") != NULL);
}

static void test_kpagecgroup(void)
{
	struct tierd_kpagecgroup kc;
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_log_keep cap;
	uint64_t *file, got[8];
	FILE *f;

	CHECK_EQ_INT(tierd_kpagecgroup_open(root, &kc, capture(&cap)), -ENOENT);
	snprintf(path, sizeof(path), "%s/proc/kpagecgroup: absent", root);
	CHECK(strncmp(cap.last, path, strlen(path)) == 0);
	CHECK_EQ_INT(kc.fd, -1);

	/* Entry i holds 1000 + i * 7: every read lands on known values. */
	file = calloc(KPC_ENTRIES, sizeof(*file));
	if (!file)
		abort();
	for (size_t i = 0; i < KPC_ENTRIES; i++)
		file[i] = 1000 + i * 7;
	tmptree_mkdirs(root, "/proc");
	snprintf(path, sizeof(path), "%s/proc/kpagecgroup", root);
	f = fopen(path, "w");
	if (!f || fwrite(file, sizeof(*file), KPC_ENTRIES, f) != KPC_ENTRIES)
		abort();
	fclose(f);

	CHECK_EQ_INT(tierd_kpagecgroup_open(root, &kc, capture(&cap)), 0);
	CHECK_EQ_INT(tierd_kpagecgroup_read(&kc, 3, 5, got, capture(&cap)), 0);
	CHECK_EQ_U64(got[0], 1021);
	CHECK_EQ_U64(got[1], 1028);
	CHECK_EQ_U64(got[4], 1049);
	{
		uint64_t *all = calloc(KPC_ENTRIES, sizeof(*all));

		if (!all)
			abort();
		CHECK_EQ_INT(tierd_kpagecgroup_read(&kc, 0, KPC_ENTRIES, all, capture(&cap)), 0);
		CHECK(memcmp(all, file, KPC_ENTRIES * sizeof(*all)) == 0);
		/* The file ends inside the range (the kernel's highest PFN need
		 * not end a memory block): no page there, owner 0. */
		all[2] = 1;
		CHECK_EQ_INT(tierd_kpagecgroup_read(&kc, KPC_ENTRIES - 2, 3, all, capture(&cap)),
			     0);
		CHECK_EQ_U64(all[0], 1000 + (KPC_ENTRIES - 2) * 7);
		CHECK_EQ_U64(all[1], 1000 + (KPC_ENTRIES - 1) * 7);
		CHECK_EQ_U64(all[2], 0);
		free(all);
	}
	CHECK_EQ_INT(tierd_kpagecgroup_read(&kc, UINT64_MAX / 4, 1, got, capture(&cap)),
		     -ERANGE);
	CHECK(strstr(cap.last, "lie beyond any file offset") != NULL);
	CHECK_EQ_INT(tierd_kpagecgroup_read(&kc, 0, 0, got, capture(&cap)), 0);

	/* Samples every 4 pages from PFN 1: PFNs 1, 5, 9, 13, 17. */
	memset(got, 0, sizeof(got));
	CHECK_EQ_INT(tierd_kpagecgroup_read_sampled(&kc, 1, 4, 5, got, capture(&cap)), 0);
	CHECK_EQ_U64(got[0], 1007);
	CHECK_EQ_U64(got[1], 1035);
	CHECK_EQ_U64(got[2], 1063);
	CHECK_EQ_U64(got[3], 1091);
	CHECK_EQ_U64(got[4], 1119);
	CHECK_EQ_U64(got[5], 0);
	CHECK_EQ_INT(tierd_kpagecgroup_read_sampled(&kc, 7, 1, 2, got, capture(&cap)), 0);
	CHECK_EQ_U64(got[0], 1049);
	CHECK_EQ_U64(got[1], 1056);
	got[2] = 1;
	CHECK_EQ_INT(tierd_kpagecgroup_read_sampled(&kc, KPC_ENTRIES - 5, 4, 3, got, capture(&cap)),
		     0);
	CHECK_EQ_U64(got[0], 1000 + (KPC_ENTRIES - 5) * 7);
	CHECK_EQ_U64(got[1], 1000 + (KPC_ENTRIES - 1) * 7);
	CHECK_EQ_U64(got[2], 0);
	CHECK_EQ_INT(tierd_kpagecgroup_read_sampled(&kc, UINT64_MAX / 16, 4, 3, got, capture(&cap)),
		     -ERANGE);
	/* A torn last entry (not something the kernel writes) reads as 0. */
	f = fopen(path, "a");
	if (!f || fwrite("abc", 1, 3, f) != 3)
		abort();
	fclose(f);
	got[1] = 1;
	CHECK_EQ_INT(tierd_kpagecgroup_read(&kc, KPC_ENTRIES - 1, 2, got, capture(&cap)), 0);
	CHECK_EQ_U64(got[0], 1000 + (KPC_ENTRIES - 1) * 7);
	CHECK_EQ_U64(got[1], 0);
	CHECK_EQ_INT(tierd_kpagecgroup_read_sampled(&kc, 0, 0, 1, got, capture(&cap)), -EINVAL);
	CHECK(strstr(cap.last, "sampling stride 0") != NULL);
	tierd_kpagecgroup_close(&kc);
	CHECK_EQ_INT(kc.fd, -1);
	free(file);
}

/* out's runs are exactly want ([start page, end page) each). */
static void check_runs(const struct tierd_attr_out *o, const uint64_t (*want)[2], size_t nr_want,
		       const char *what)
{
	CHECK_EQ_INT(o->nr_regions, nr_want);
	if (o->nr_regions != nr_want) {
		fprintf(stderr, "  in: %s\n", what);
		return;
	}
	for (size_t i = 0; i < nr_want; i++) {
		CHECK_EQ_U64(o->regions[i].start, P(want[i][0]));
		CHECK_EQ_U64(o->regions[i].end, P(want[i][1]));
		if (o->regions[i].start != P(want[i][0]) || o->regions[i].end != P(want[i][1]))
			fprintf(stderr, "  in: %s, run %zu\n", what, i);
	}
}

static struct tierd_region damon_region(uint64_t start_page, uint64_t end_page,
					uint32_t nr_accesses, uint32_t age)
{
	return (struct tierd_region){
		.start = P(start_page), .end = P(end_page), .tier = 2,
		.nr_accesses = nr_accesses, .max_accesses = 20, .age = age,
		.aggr_usec = 100000, .reads = 0, .writes = 0,
	};
}

/* Interleaved owners, a descendant counted for its ancestor, unmanaged and
 * unowned pages, runs split at a DAMON boundary, regions partly or wholly
 * outside the pages read. */
static void test_attribute_exact(struct tierd_attr_out *out)
{
	static const uint64_t owner[] = {
		/* PFN 16.. */ INO_A, INO_A, INO_B, INO_B_CHILD, 0, INO_OTHER, INO_A, INO_A,
		/* PFN 24.. */ INO_A, INO_B, INO_B, 0, INO_B_CHILD, INO_A, INO_A, 0,
	};
	const struct tierd_region regions[] = {
		damon_region(12, 24, 5, 3),
		damon_region(24, 32, 0, 9),
		damon_region(40, 48, 7, 1),
	};
	const struct tierd_attr_owners ow = {
		.base_pfn = 16, .stride = 1, .nr = sizeof(owner) / sizeof(owner[0]), .owner = owner,
	};
	static const uint64_t want_a[][2] = { { 16, 18 }, { 22, 24 }, { 24, 25 }, { 29, 31 } };
	static const uint64_t want_b[][2] = { { 18, 20 }, { 25, 27 }, { 28, 29 } };

	CHECK_EQ_INT(tierd_attribute(regions, 3, &ow, cgmap, 3, out, NR_OUT), 0);
	check_runs(&out[0], want_a, 4, "exact, cgroup A");
	check_runs(&out[1], want_b, 3, "exact, cgroup B and its child");
	CHECK_EQ_U64(out[0].pages, 7);
	CHECK_EQ_U64(out[1].pages, 5);
	if (out[0].nr_regions == 4) {
		const struct tierd_region *r = &out[0].regions[1], *s = &out[0].regions[2];

		CHECK_EQ_INT(r->tier, 2);
		CHECK_EQ_INT(r->nr_accesses, 5);
		CHECK_EQ_INT(r->max_accesses, 20);
		CHECK_EQ_INT(r->age, 3);
		CHECK_EQ_U64(r->aggr_usec, 100000);
		CHECK_EQ_INT(s->nr_accesses, 0);
		CHECK_EQ_INT(s->age, 9);
	}
}

/* Ten one-page runs in one DAMON region: the two smallest gaps close
 * (four gaps tie at one page: the lowest two go); three runs in the next
 * region are under the cap and kept apart. */
static void test_attribute_cap(struct tierd_attr_out *out)
{
	static const unsigned a_pages[] = { 0, 2, 5, 7, 11, 13, 20, 22, 30, 33, 64, 66, 68 };
	uint64_t owner[72] = { 0 };
	const struct tierd_region regions[] = {
		damon_region(0, 64, 1, 2),
		damon_region(64, 72, 3, 4),
	};
	const struct tierd_attr_owners ow = {
		.base_pfn = 0, .stride = 1, .nr = 72, .owner = owner,
	};
	static const uint64_t want[][2] = {
		{ 0, 3 }, { 5, 8 }, { 11, 12 }, { 13, 14 }, { 20, 21 }, { 22, 23 }, { 30, 31 },
		{ 33, 34 }, { 64, 65 }, { 66, 67 }, { 68, 69 },
	};
	static const uint64_t want_b[][2] = { { 40, 64 } };

	_Static_assert(TIERD_ATTR_MAX_RUNS_PER_REGION == 8, "the expected runs assume 8");
	for (size_t i = 0; i < sizeof(a_pages) / sizeof(a_pages[0]); i++)
		owner[a_pages[i]] = INO_A;
	for (size_t i = 40; i < 64; i++)
		owner[i] = INO_B;
	CHECK_EQ_INT(tierd_attribute(regions, 2, &ow, cgmap, 3, out, NR_OUT), 0);
	check_runs(&out[0], want, 11, "run cap");
	check_runs(&out[1], want_b, 1, "run cap, other cgroup");
	CHECK_EQ_U64(out[0].pages, 13);
	CHECK_EQ_U64(out[1].pages, 24);
	if (out[0].nr_regions == 11) {
		CHECK_EQ_INT(out[0].regions[7].nr_accesses, 1);
		CHECK_EQ_INT(out[0].regions[8].nr_accesses, 3);
		/* A merged run holds its runs' pages, not its span. */
		CHECK_EQ_U64(out[0].regions[0].bytes, 2 * TIERD_PAGE_BYTES);
		CHECK_EQ_U64(out[0].regions[1].bytes, 2 * TIERD_PAGE_BYTES);
		CHECK_EQ_U64(out[0].regions[2].bytes, TIERD_PAGE_BYTES);
		CHECK_EQ_U64(tierd_region_bytes(&out[0].regions[0]), 2 * TIERD_PAGE_BYTES);
	}
	if (out[1].nr_regions == 1)
		CHECK_EQ_U64(out[1].regions[0].bytes, 24 * TIERD_PAGE_BYTES);
}

/* Stride 4: each sample stands for 4 pages; a sample across a DAMON
 * boundary gives its pages to both sides. */
static void test_attribute_stride(struct tierd_attr_out *out)
{
	static const uint64_t owner[] = { INO_A, INO_A, INO_B, 0, INO_OTHER, INO_A };
	const struct tierd_region regions[] = {
		damon_region(0, 10, 1, 1),
		damon_region(10, 24, 2, 2),
	};
	const struct tierd_attr_owners ow = { .base_pfn = 0, .stride = 4, .nr = 6, .owner = owner };
	static const uint64_t want_a[][2] = { { 0, 8 }, { 20, 24 } };
	static const uint64_t want_b[][2] = { { 8, 10 }, { 10, 12 } };

	CHECK_EQ_INT(tierd_attribute(regions, 2, &ow, cgmap, 3, out, NR_OUT), 0);
	check_runs(&out[0], want_a, 2, "stride 4, cgroup A");
	check_runs(&out[1], want_b, 2, "stride 4, cgroup B");
	CHECK_EQ_U64(out[0].pages, 3 * 4);
	CHECK_EQ_U64(out[1].pages, 1 * 4);
}

static void test_attribute_empty_and_invalid(struct tierd_attr_out *out)
{
	static const uint64_t owner[] = { INO_A, INO_A };
	const struct tierd_region one[] = { damon_region(0, 2, 1, 1) };
	struct tierd_attr_owners ow = { .base_pfn = 0, .stride = 1, .nr = 2, .owner = owner };
	struct tierd_region bad[2];
	struct tierd_attr_cgroup badmap[2];

	/* Results of the previous call are reset, not appended to. */
	CHECK(out[1].nr_regions > 0);
	CHECK_EQ_INT(tierd_attribute(NULL, 0, &ow, cgmap, 3, out, NR_OUT), 0);
	CHECK_EQ_INT(out[0].nr_regions + out[1].nr_regions, 0);
	CHECK_EQ_U64(out[0].pages + out[1].pages, 0);
	ow.nr = 0;
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, cgmap, 3, out, NR_OUT), 0);
	CHECK_EQ_INT(out[0].nr_regions, 0);
	ow.nr = 2;
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, cgmap, 0, out, NR_OUT), 0);
	CHECK_EQ_INT(out[0].nr_regions, 0);
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, cgmap, 3, out, NR_OUT), 0);
	CHECK_EQ_INT(out[0].nr_regions, 1);

	bad[0] = damon_region(4, 8, 0, 0);
	bad[1] = damon_region(0, 4, 0, 0);
	CHECK_EQ_INT(tierd_attribute(bad, 2, &ow, cgmap, 3, out, NR_OUT), -EINVAL);
	bad[1] = damon_region(7, 9, 0, 0);
	CHECK_EQ_INT(tierd_attribute(bad, 2, &ow, cgmap, 3, out, NR_OUT), -EINVAL);
	bad[1] = damon_region(8, 8, 0, 0);
	CHECK_EQ_INT(tierd_attribute(bad, 2, &ow, cgmap, 3, out, NR_OUT), -EINVAL);
	bad[1] = damon_region(8, 9, 0, 0);
	bad[1].end -= 1;
	CHECK_EQ_INT(tierd_attribute(bad, 2, &ow, cgmap, 3, out, NR_OUT), -EINVAL);
	bad[1] = damon_region(8, 9, 0, 0);
	CHECK_EQ_INT(tierd_attribute(bad, 2, &ow, cgmap, 3, out, NR_OUT), 0);

	badmap[0] = cgmap[1];
	badmap[1] = cgmap[0];
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, badmap, 2, out, NR_OUT), -EINVAL);
	badmap[1] = cgmap[1];
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, badmap, 2, out, NR_OUT), -EINVAL);
	badmap[0] = cgmap[0];
	badmap[1] = (struct tierd_attr_cgroup){ .ino = INO_B, .index = NR_OUT };
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, badmap, 2, out, NR_OUT), -EINVAL);
	ow.stride = 0;
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, cgmap, 3, out, NR_OUT), -EINVAL);
	ow.stride = 1;
	ow.base_pfn = UINT64_MAX / TIERD_PAGE_BYTES;
	CHECK_EQ_INT(tierd_attribute(one, 1, &ow, cgmap, 3, out, NR_OUT), -EINVAL);
}

static void test_stride(void)
{
	CHECK_EQ_U64(tierd_attr_stride(0, 100), 1);
	CHECK_EQ_U64(tierd_attr_stride(100, 100), 1);
	CHECK_EQ_U64(tierd_attr_stride(101, 100), 2);
	CHECK_EQ_U64(tierd_attr_stride(262144, 65536), 4);
	CHECK_EQ_U64(tierd_attr_stride(262145, 65536), 5);
	CHECK_EQ_U64(tierd_attr_stride(1000, 0), 1);
	CHECK_EQ_U64(tierd_attr_stride(UINT64_MAX, 1), UINT64_MAX);
	CHECK_EQ_U64(tierd_attr_stride(UINT64_MAX, 2), UINT64_MAX / 2 + 1);
}

int main(void)
{
	struct tierd_attr_out out[NR_OUT] = { 0 };

	if (tmptree_make(root, sizeof(root), "attribution") < 0)
		return 1;
	test_physmem_fixture();
	test_physmem_trees();
	test_kpagecgroup();
	test_attribute_exact(out);
	test_attribute_cap(out);
	test_attribute_stride(out);
	test_attribute_empty_and_invalid(out);
	tierd_attr_out_free(out, NR_OUT);
	CHECK(out[0].regions == NULL && out[0].cap == 0);
	test_stride();
	tmptree_rm(root, "");
	return tierd_test_finish();
}
