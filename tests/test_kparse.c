/* Unit tests for controller/kparse.c: exact inputs in, exact values out.
 * Every parser call goes through an exact-size heap copy of its input, so
 * AddressSanitizer catches any read past len (the parsers get raw read()
 * buffers, never C strings). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../controller/kparse.h"
#include "check.h"

TIERD_TEST_MAIN_COUNTS;

/* What ret_line holds before a call: it must survive a success. */
#define LINE_UNSET (-7)
/* Filler written over outputs before a call, to see them zeroed. */
#define JUNK_BYTE 0xa5
#define JUNK_U64 0xa5a5a5a5a5a5a5a5ull

static char *exact_copy(const char *text, size_t len)
{
	/* malloc(0) may return NULL; one spare byte is never read. */
	char *copy = malloc(len ? len : 1);

	if (!copy)
		abort();
	memcpy(copy, text, len);
	return copy;
}

/* A copy of base with the first "from" overwritten by "to" (same length). */
static char *mutated(const char *base, const char *from, const char *to)
{
	size_t len = strlen(base);
	char *copy = exact_copy(base, len + 1);
	char *at = strstr(copy, from);

	if (!at || strlen(to) != strlen(from))
		abort();
	memcpy(at, to, strlen(to));
	return copy;
}

static int numa(const char *text, size_t len, const struct tierd_topology *topo,
		struct tierd_cgroup_obs *obs, int *line)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_numa_stat(copy, len, topo, obs, line);

	free(copy);
	return r;
}

static int memstat(const char *text, size_t len, struct tierd_memstat *stat, int *line)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_memstat(copy, len, stat, line);

	free(copy);
	return r;
}

static int psi(const char *text, size_t len, struct tierd_psi *out, int *line)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_psi(copy, len, out, line);

	free(copy);
	return r;
}

static int limit(const char *text, size_t len, uint64_t *bytes)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_limit(copy, len, bytes);

	free(copy);
	return r;
}

static int u64(const char *text, size_t len, uint64_t *value)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_u64(copy, len, value);

	free(copy);
	return r;
}

static int meminfo(const char *text, size_t len, uint64_t *total, uint64_t *free_bytes,
		   int *line)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_node_meminfo(copy, len, total, free_bytes, line);

	free(copy);
	return r;
}

static int mountinfo(const char *text, size_t len, struct tierd_mounts *mounts, int *line)
{
	char *copy = exact_copy(text, len);
	int r = tierd_kparse_mountinfo(copy, len, mounts, line);

	free(copy);
	return r;
}

/* String literals carry their length, embedded NULs included. */
#define NUMA(lit, topo, obs, line) numa(lit, sizeof(lit) - 1, topo, obs, line)
#define MEMSTAT(lit, stat, line) memstat(lit, sizeof(lit) - 1, stat, line)
#define PSI(lit, out, line) psi(lit, sizeof(lit) - 1, out, line)
#define LIMIT(lit, bytes) limit(lit, sizeof(lit) - 1, bytes)
#define U64(lit, value) u64(lit, sizeof(lit) - 1, value)
#define MEMINFO(lit, total, free_bytes, line) meminfo(lit, sizeof(lit) - 1, total, free_bytes, line)
#define MOUNTINFO(lit, mounts, line) mountinfo(lit, sizeof(lit) - 1, mounts, line)

/* A malformed input: -EINVAL naming want_line. */
#define CHECK_NUMA_BAD(lit, topo, want_line)                                   \
	do {                                                                   \
		struct tierd_cgroup_obs _obs;                                  \
		int _line = LINE_UNSET;                                        \
		CHECK_EQ_INT(NUMA(lit, topo, &_obs, &_line), -EINVAL);         \
		CHECK_EQ_INT(_line, want_line);                                \
	} while (0)

#define CHECK_MEMSTAT_BAD(lit, want_line)                                      \
	do {                                                                   \
		struct tierd_memstat _stat;                                    \
		int _line = LINE_UNSET;                                        \
		CHECK_EQ_INT(MEMSTAT(lit, &_stat, &_line), -EINVAL);           \
		CHECK_EQ_INT(_line, want_line);                                \
	} while (0)

#define CHECK_PSI_BAD(lit, want_line)                                          \
	do {                                                                   \
		struct tierd_psi _psi;                                         \
		int _line = LINE_UNSET;                                        \
		CHECK_EQ_INT(PSI(lit, &_psi, &_line), -EINVAL);                \
		CHECK_EQ_INT(_line, want_line);                                \
	} while (0)

#define CHECK_MEMINFO_BAD(lit, want_line)                                      \
	do {                                                                   \
		uint64_t _total, _free;                                        \
		int _line = LINE_UNSET;                                        \
		CHECK_EQ_INT(MEMINFO(lit, &_total, &_free, &_line), -EINVAL);  \
		CHECK_EQ_INT(_line, want_line);                                \
	} while (0)

#define CHECK_MOUNTINFO_BAD(lit, want_line)                                    \
	do {                                                                   \
		struct tierd_mounts _mounts;                                   \
		int _line = LINE_UNSET;                                        \
		CHECK_EQ_INT(MOUNTINFO(lit, &_mounts, &_line), -EINVAL);       \
		CHECK_EQ_INT(_line, want_line);                                \
	} while (0)

/* The value must stay as it was: refused input writes nothing. */
#define CHECK_LIMIT_BAD(lit)                                                   \
	do {                                                                   \
		uint64_t _v = JUNK_U64;                                        \
		CHECK_EQ_INT(LIMIT(lit, &_v), -EINVAL);                        \
		CHECK_EQ_U64(_v, JUNK_U64);                                    \
	} while (0)

#define CHECK_U64_BAD(lit)                                                     \
	do {                                                                   \
		uint64_t _v = JUNK_U64;                                        \
		CHECK_EQ_INT(U64(lit, &_v), -EINVAL);                          \
		CHECK_EQ_U64(_v, JUNK_U64);                                    \
	} while (0)

static void make_topo(struct tierd_topology *topo, const int *nids, size_t nr)
{
	memset(topo, 0, sizeof(*topo));
	topo->nr_nodes = nr;
	for (size_t i = 0; i < nr; i++)
		topo->nodes[i].nid = nids[i];
}

/* A 6.12 memory.numa_stat of a cgroup on a four-node machine (all keys). */
static const char numa_stat_612[] =
	"anon N0=805306368 N1=268435456 N2=134217728 N3=0\n"
	"file N0=67108864 N1=0 N2=0 N3=33554432\n"
	"kernel_stack N0=393216 N1=0 N2=0 N3=0\n"
	"pagetables N0=2621440 N1=0 N2=0 N3=0\n"
	"sec_pagetables N0=0 N1=0 N2=0 N3=0\n"
	"shmem N0=0 N1=0 N2=0 N3=0\n"
	"file_mapped N0=33554432 N1=0 N2=0 N3=16777216\n"
	"file_dirty N0=262144 N1=0 N2=0 N3=131072\n"
	"file_writeback N0=0 N1=0 N2=0 N3=0\n"
	"swapcached N0=0 N1=0 N2=0 N3=0\n"
	"anon_thp N0=402653184 N1=134217728 N2=67108864 N3=0\n"
	"file_thp N0=0 N1=0 N2=0 N3=0\n"
	"shmem_thp N0=0 N1=0 N2=0 N3=0\n"
	"inactive_anon N0=603979776 N1=201326592 N2=100663296 N3=0\n"
	"active_anon N0=201326592 N1=67108864 N2=33554432 N3=0\n"
	"inactive_file N0=33554432 N1=0 N2=0 N3=16777216\n"
	"active_file N0=33554432 N1=0 N2=0 N3=16777216\n"
	"unevictable N0=0 N1=0 N2=0 N3=0\n"
	"slab_reclaimable N0=22621824 N1=0 N2=0 N3=0\n"
	"slab_unreclaimable N0=7540608 N1=0 N2=0 N3=0\n"
	"workingset_refault_anon N0=0 N1=0 N2=0 N3=0\n"
	"workingset_refault_file N0=512 N1=0 N2=0 N3=128\n"
	"workingset_activate_anon N0=0 N1=0 N2=0 N3=0\n"
	"workingset_activate_file N0=256 N1=0 N2=0 N3=0\n"
	"workingset_restore_anon N0=0 N1=0 N2=0 N3=0\n"
	"workingset_restore_file N0=64 N1=0 N2=0 N3=0\n"
	"workingset_nodereclaim N0=0 N1=0 N2=0 N3=0\n"
	"pgdemote_kswapd N0=1024 N1=0 N2=0 N3=0\n"
	"pgdemote_direct N0=40704 N1=8192 N2=2307 N3=0\n"
	"pgdemote_khugepaged N0=0 N1=0 N2=0 N3=0\n"
	"pgpromote_success N0=16384 N1=0 N2=0 N3=0\n";

static void test_numa_stat(void)
{
	static const int nids4[] = { 0, 1, 2, 3 };
	static const int nids3[] = { 0, 1, 2 };
	static const int nids_sparse[] = { 0, 2, 5 };
	struct tierd_topology topo4, topo3, sparse, big;
	struct tierd_cgroup_obs obs;
	int line;

	make_topo(&topo4, nids4, sizeof(nids4) / sizeof(nids4[0]));
	make_topo(&topo3, nids3, sizeof(nids3) / sizeof(nids3[0]));
	make_topo(&sparse, nids_sparse, sizeof(nids_sparse) / sizeof(nids_sparse[0]));

	/* The full file: only anon and file count, look-alike keys do not. */
	memset(&obs, JUNK_BYTE, sizeof(obs));
	line = LINE_UNSET;
	CHECK_EQ_INT(NUMA(numa_stat_612, &topo4, &obs, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_U64(obs.anon_bytes[0], 805306368);
	CHECK_EQ_U64(obs.anon_bytes[1], 268435456);
	CHECK_EQ_U64(obs.anon_bytes[2], 134217728);
	CHECK_EQ_U64(obs.anon_bytes[3], 0);
	CHECK_EQ_U64(obs.file_bytes[0], 67108864);
	CHECK_EQ_U64(obs.file_bytes[1], 0);
	CHECK_EQ_U64(obs.file_bytes[2], 0);
	CHECK_EQ_U64(obs.file_bytes[3], 33554432);
	/* Entries past the topology are zeroed too. */
	CHECK_EQ_U64(obs.anon_bytes[4], 0);
	CHECK_EQ_U64(obs.file_bytes[TIERD_MAX_NODES - 1], 0);
	/* Other fields of obs are not the parser's business. */
	CHECK_EQ_U64(obs.current_bytes, JUNK_U64);

	/* Same text without its final newline (short read ending on a line). */
	line = LINE_UNSET;
	CHECK_EQ_INT(numa(numa_stat_612, sizeof(numa_stat_612) - 2, &topo4, &obs, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_U64(obs.anon_bytes[1], 268435456);

	/* ret_line may be NULL on success and on failure. */
	CHECK_EQ_INT(NUMA("anon N0=1\n", &topo4, &obs, NULL), 0);
	CHECK_EQ_INT(NUMA("anon N0=1x\n", &topo4, &obs, NULL), -EINVAL);

	/* Empty: nothing to go on, and the arrays are still zeroed. */
	memset(&obs, JUNK_BYTE, sizeof(obs));
	line = LINE_UNSET;
	CHECK_EQ_INT(numa("", 0, &topo4, &obs, &line), -ENODATA);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_U64(obs.anon_bytes[0], 0);
	CHECK_EQ_U64(obs.file_bytes[3], 0);

	/* Neither anon nor file. */
	CHECK_EQ_INT(NUMA("kernel_stack N0=1 N1=2\nshmem N0=0\n", &topo4, &obs, &line), -ENODATA);
	CHECK_EQ_INT(NUMA("anon_thp N0=1\nfile_dirty N0=2\n", &topo4, &obs, &line), -ENODATA);

	/* One of the two is enough; the other stays zero. */
	memset(&obs, JUNK_BYTE, sizeof(obs));
	CHECK_EQ_INT(NUMA("file N0=5 N1=6 N2=7 N3=8\n", &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.file_bytes[2], 7);
	CHECK_EQ_U64(obs.anon_bytes[0], 0);
	CHECK_EQ_U64(obs.anon_bytes[3], 0);

	/* Order of lines does not matter. */
	CHECK_EQ_INT(NUMA("shmem N0=9\nfile N0=2\nanon N0=1\n", &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 1);
	CHECK_EQ_U64(obs.file_bytes[0], 2);

	/* Sparse node ids: the kernel skips memory-less nodes. */
	memset(&obs, JUNK_BYTE, sizeof(obs));
	CHECK_EQ_INT(NUMA("anon N0=100 N2=300\nfile N0=10 N2=30\n", &topo3, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 100);
	CHECK_EQ_U64(obs.anon_bytes[1], 0);
	CHECK_EQ_U64(obs.anon_bytes[2], 300);
	CHECK_EQ_U64(obs.file_bytes[0], 10);
	CHECK_EQ_U64(obs.file_bytes[1], 0);
	CHECK_EQ_U64(obs.file_bytes[2], 30);

	/* Node ids that are not indexes. */
	CHECK_EQ_INT(NUMA("anon N0=1 N2=2 N5=3\nfile N5=7\n", &sparse, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 1);
	CHECK_EQ_U64(obs.anon_bytes[1], 2);
	CHECK_EQ_U64(obs.anon_bytes[2], 3);
	CHECK_EQ_U64(obs.file_bytes[0], 0);
	CHECK_EQ_U64(obs.file_bytes[2], 7);

	/* Nodes tierd does not know (CPU-less ones it was told to skip, ids
	 * past any sane range) are ignored, not refused. */
	CHECK_EQ_INT(NUMA("anon N0=1 N1=2 N7=99 N1023=5 N4294967296=6\n", &topo3, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 1);
	CHECK_EQ_U64(obs.anon_bytes[1], 2);
	CHECK_EQ_U64(obs.anon_bytes[2], 0);
	CHECK_EQ_INT(NUMA("anon N9=1\n", &topo3, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 0);
	/* An empty topology takes nothing but the file is still valid. */
	{
		struct tierd_topology empty;

		make_topo(&empty, NULL, 0);
		CHECK_EQ_INT(NUMA("anon N0=1\n", &empty, &obs, &line), 0);
		CHECK_EQ_U64(obs.anon_bytes[0], 0);
	}

	/* Unknown keys are ignored whatever follows them, including keys a
	 * later kernel adds in the middle (hugetlb in 6.18). */
	CHECK_EQ_INT(NUMA("anon N0=1\nhugetlb N0=2\nfuture_key some text 12x\nfile N0=3\n",
			  &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 1);
	CHECK_EQ_U64(obs.file_bytes[0], 3);
	CHECK_EQ_INT(NUMA("anon N0=1\nlonely\n", &topo4, &obs, &line), 0);

	/* Largest value; one more overflows. */
	CHECK_EQ_INT(NUMA("anon N0=18446744073709551615\n", &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], UINT64_MAX);
	CHECK_EQ_INT(NUMA("anon N0=007\n", &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 7);
	CHECK_NUMA_BAD("anon N0=18446744073709551616\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=99999999999999999999999\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N18446744073709551616=1\n", &topo4, 1);

	/* Truncated reads: a last line cut after a digit still parses (the
	 * cut is invisible), one cut anywhere else is refused. */
	CHECK_EQ_INT(NUMA("anon N0=1 N1=2\nfile N0=12", &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.file_bytes[0], 12);
	CHECK_EQ_U64(obs.anon_bytes[1], 2);
	CHECK_EQ_INT(NUMA("anon N0=12", &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 12);
	CHECK_NUMA_BAD("anon N0=1\nfile N0", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1\nfile N0=", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1\nfile N", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1\nfile ", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1\nfile", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1 N1=", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1 N", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1 ", &topo4, 1);
	/* A key cut short is some other key: ignored. */
	CHECK_EQ_INT(NUMA("anon N0=1\nfi", &topo4, &obs, &line), 0);

	/* Garbled anon/file tokens. */
	CHECK_NUMA_BAD("anon N0=12x\n", &topo4, 1);
	CHECK_NUMA_BAD("anon 0=5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N=5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon Nx=5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon n0=5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0:5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=-5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=+5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N-1=5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1.5\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1  N1=2\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1 N1=2 \n", &topo4, 1);
	CHECK_NUMA_BAD("anon  N0=1\n", &topo4, 1);
	CHECK_NUMA_BAD("anon\tN0=1\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1\r\n", &topo4, 1);
	CHECK_NUMA_BAD("anon\n", &topo4, 1);
	/* A node twice, or a second anon line: two reads spliced together. */
	CHECK_NUMA_BAD("anon N0=1 N0=2\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1\nfile N0=2\nanon N0=3\n", &topo4, 3);
	CHECK_NUMA_BAD("file N0=1\nfile N0=1\n", &topo4, 2);

	/* A malformed line in the middle is reported by its number. */
	CHECK_NUMA_BAD("anon N0=1 N1=2\nshmem N0=0\nfile N0=5 N1=6x\nslab N0=0\n", &topo4, 3);
	{
		char *text = mutated(numa_stat_612, "file N0=67108864 N1=0", "file N0=67108864 N1=x");

		line = LINE_UNSET;
		CHECK_EQ_INT(numa(text, sizeof(numa_stat_612) - 1, &topo4, &obs, &line), -EINVAL);
		CHECK_EQ_INT(line, 2);
		free(text);
		/* Garbage in an ignored line (29: pgdemote_direct) is no error. */
		text = mutated(numa_stat_612, "N0=40704", "N0=4x704");
		CHECK_EQ_INT(numa(text, sizeof(numa_stat_612) - 1, &topo4, &obs, &line), 0);
		CHECK_EQ_U64(obs.file_bytes[3], 33554432);
		free(text);
	}
	/* Lines without a key are malformed even among unknown keys. */
	CHECK_NUMA_BAD("anon N0=1\n\nfile N0=2\n", &topo4, 2);
	CHECK_NUMA_BAD("\n", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1\nshmem N0=0\n N0=2\n", &topo4, 3);

	/* Junk: binary and NUL bytes, in used and in ignored lines. */
	CHECK_NUMA_BAD("\x01\x02\x03\x04", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1\nfile N0=2\n\x7f" "ELF\x02\x01\x01\n", &topo4, 3);
	CHECK_NUMA_BAD("anon N0=1\nshm\xc3\xa9m N0=0\n", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1\nfile N0=2\0\n", &topo4, 2);
	CHECK_NUMA_BAD("anon N0=1\nshmem N0=\0" "0\nfile N0=2\n", &topo4, 2);
	CHECK_NUMA_BAD("\0", &topo4, 1);
	CHECK_NUMA_BAD("anon N0=1\n\0", &topo4, 2);
	/* A NUL past len is not the parser's to see. */
	CHECK_EQ_INT(numa("anon N0=4\n\0junk", sizeof("anon N0=4\n") - 1, &topo4, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 4);

	/* Every slot of a full-size topology. */
	make_topo(&big, NULL, 0);
	big.nr_nodes = TIERD_MAX_NODES;
	for (int i = 0; i < TIERD_MAX_NODES; i++)
		big.nodes[i].nid = TIERD_MAX_NODES - 1 - i;
	{
		char text[TIERD_MAX_NODES * sizeof(" N63=1000063") + sizeof("anon\n")];
		size_t n = 0;

		n += (size_t)snprintf(text + n, sizeof(text) - n, "anon");
		for (int nid = 0; nid < TIERD_MAX_NODES; nid++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, " N%d=%d", nid,
					      1000000 + nid);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\n");
		CHECK(n < sizeof(text));
		CHECK_EQ_INT(numa(text, n, &big, &obs, &line), 0);
		CHECK_EQ_U64(obs.anon_bytes[0], 1000000 + TIERD_MAX_NODES - 1);
		CHECK_EQ_U64(obs.anon_bytes[TIERD_MAX_NODES - 1], 1000000);
	}
	/* A nonsense node count is clamped, not walked past nodes[]. */
	big.nr_nodes = TIERD_MAX_NODES + 10;
	CHECK_EQ_INT(NUMA("anon N63=5\n", &big, &obs, &line), 0);
	CHECK_EQ_U64(obs.anon_bytes[0], 5);
}

/* A 6.12 memory.stat (CONFIG_NUMA_BALANCING, zswap): no pgdemote_proactive. */
static const char memstat_612[] =
	"anon 1207959552\n"
	"file 100663296\n"
	"kernel 33292288\n"
	"kernel_stack 393216\n"
	"pagetables 2621440\n"
	"sec_pagetables 0\n"
	"percpu 115200\n"
	"sock 262144\n"
	"vmalloc 0\n"
	"shmem 0\n"
	"zswap 0\n"
	"zswapped 0\n"
	"file_mapped 50331648\n"
	"file_dirty 393216\n"
	"file_writeback 0\n"
	"swapcached 0\n"
	"anon_thp 603979776\n"
	"file_thp 0\n"
	"shmem_thp 0\n"
	"inactive_anon 905969664\n"
	"active_anon 301989888\n"
	"inactive_file 50331648\n"
	"active_file 50331648\n"
	"unevictable 0\n"
	"slab_reclaimable 22621824\n"
	"slab_unreclaimable 7540608\n"
	"slab 30162432\n"
	"workingset_refault_anon 0\n"
	"workingset_refault_file 640\n"
	"workingset_activate_anon 0\n"
	"workingset_activate_file 256\n"
	"workingset_restore_anon 0\n"
	"workingset_restore_file 64\n"
	"workingset_nodereclaim 0\n"
	"pgdemote_kswapd 1024\n"
	"pgdemote_direct 51203\n"
	"pgdemote_khugepaged 0\n"
	"pgpromote_success 16384\n"
	"pgscan 62048\n"
	"pgsteal 52227\n"
	"pgscan_kswapd 2048\n"
	"pgscan_direct 60000\n"
	"pgscan_khugepaged 0\n"
	"pgsteal_kswapd 1024\n"
	"pgsteal_direct 51203\n"
	"pgsteal_khugepaged 0\n"
	"pgfault 1200000\n"
	"pgmajfault 800\n"
	"pgrefill 4096\n"
	"pgactivate 90000\n"
	"pgdeactivate 3000\n"
	"pglazyfree 0\n"
	"pglazyfreed 0\n"
	"zswpin 0\n"
	"zswpout 0\n"
	"zswpwb 0\n"
	"thp_fault_alloc 288\n"
	"thp_collapse_alloc 12\n"
	"thp_swpout 0\n"
	"thp_swpout_fallback 0\n"
	"numa_pages_migrated 16384\n"
	"numa_pte_updates 120000\n"
	"numa_hint_faults 40000\n";

#define BIT(key) (1u << TIERD_MEMSTAT_##key)
#define MEMSTAT_ALL ((1u << TIERD_MEMSTAT_NR) - 1)

static void test_memstat(void)
{
	struct tierd_memstat stat;
	int line;

	memset(&stat, JUNK_BYTE, sizeof(stat));
	line = LINE_UNSET;
	CHECK_EQ_INT(MEMSTAT(memstat_612, &stat, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_U64(stat.present, MEMSTAT_ALL & ~BIT(pgdemote_proactive));
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_anon], 1207959552);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_file], 100663296);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_kswapd], 1024);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_direct], 51203);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_khugepaged], 0);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_proactive], 0);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgpromote_success], 16384);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_numa_pages_migrated], 16384);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_numa_hint_faults], 40000);

	/* A 6.18-style excerpt with pgdemote_proactive in the middle, and
	 * look-alike keys that must not be taken for ours. */
	CHECK_EQ_INT(MEMSTAT("anon_thp 5\nanon 1\nfile_thp 6\nfile 2\n"
			     "pgdemote_kswapd 3\npgdemote_direct 4\npgdemote_khugepaged 5\n"
			     "pgdemote_proactive 6\npgpromote_success 7\npgpromote_candidate 99\n"
			     "pswpin 0\nnuma_pages_migrated 8\nnuma_pte_updates 99\n"
			     "numa_hint_faults 9\nnuma_hint_faults_local 99\n", &stat, &line), 0);
	CHECK_EQ_U64(stat.present, MEMSTAT_ALL);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_anon], 1);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_file], 2);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_kswapd], 3);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_direct], 4);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_khugepaged], 5);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgdemote_proactive], 6);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgpromote_success], 7);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_numa_pages_migrated], 8);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_numa_hint_faults], 9);

	/* A kernel without NUMA balancing: those bits stay clear. */
	CHECK_EQ_INT(MEMSTAT("anon 10\nfile 20\npgdemote_kswapd 0\n", &stat, &line), 0);
	CHECK_EQ_U64(stat.present, BIT(anon) | BIT(file) | BIT(pgdemote_kswapd));
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_numa_hint_faults], 0);

	/* Empty: valid, nothing present, everything zeroed. */
	memset(&stat, JUNK_BYTE, sizeof(stat));
	line = LINE_UNSET;
	CHECK_EQ_INT(memstat("", 0, &stat, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_U64(stat.present, 0);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_anon], 0);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_NR - 1], 0);

	/* Unknown keys, whatever their value. */
	CHECK_EQ_INT(MEMSTAT("future 1\nodd value here\nanon 3\n", &stat, &line), 0);
	CHECK_EQ_U64(stat.present, BIT(anon));
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_anon], 3);

	/* Limits of a value. */
	CHECK_EQ_INT(MEMSTAT("anon 18446744073709551615\n", &stat, &line), 0);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_anon], UINT64_MAX);
	CHECK_EQ_INT(MEMSTAT("anon 0\n", &stat, &line), 0);
	CHECK_EQ_U64(stat.present, BIT(anon));
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_anon], 0);
	CHECK_MEMSTAT_BAD("anon 18446744073709551616\n", 1);

	/* Truncated: cut inside a value parses what is there, cut inside a
	 * key or before the value is refused. */
	CHECK_EQ_INT(MEMSTAT("anon 1\npgpromote_success 12", &stat, &line), 0);
	CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_pgpromote_success], 12);
	CHECK_MEMSTAT_BAD("anon 1\npgdemote_dir", 2);
	CHECK_MEMSTAT_BAD("anon 1\npgdemote_direct", 2);
	CHECK_MEMSTAT_BAD("anon 1\npgdemote_direct ", 2);
	CHECK_MEMSTAT_BAD("anon 1\nkernel ", 2);

	/* Garbled known keys. */
	CHECK_MEMSTAT_BAD("anon\n", 1);
	CHECK_MEMSTAT_BAD("anon abc\n", 1);
	CHECK_MEMSTAT_BAD("anon 12x\n", 1);
	CHECK_MEMSTAT_BAD("anon 12 34\n", 1);
	CHECK_MEMSTAT_BAD("anon  12\n", 1);
	CHECK_MEMSTAT_BAD("anon 12 \n", 1);
	CHECK_MEMSTAT_BAD("anon -1\n", 1);
	CHECK_MEMSTAT_BAD("anon +1\n", 1);
	CHECK_MEMSTAT_BAD("anon\t12\n", 1);
	CHECK_MEMSTAT_BAD("anon 12\r\n", 1);
	CHECK_MEMSTAT_BAD(" anon 12\n", 1);
	/* Unknown keys still need the "key value" shape. */
	CHECK_MEMSTAT_BAD("anon 1\nfile 2\nnospace\npgfault 3\n", 3);
	CHECK_MEMSTAT_BAD("anon 1\n\nfile 2\n", 2);
	CHECK_MEMSTAT_BAD("\n", 1);
	/* A key twice: spliced reads. */
	CHECK_MEMSTAT_BAD("anon 1\nfile 2\nanon 3\n", 3);
	/* In the middle of the full file: line 36 is pgdemote_direct, 63 the
	 * last one; a garbled unknown key (pgsteal, line 40) is no error. */
	{
		char *text = mutated(memstat_612, "pgdemote_direct 51203", "pgdemote_direct 51x03");

		line = LINE_UNSET;
		CHECK_EQ_INT(memstat(text, sizeof(memstat_612) - 1, &stat, &line), -EINVAL);
		CHECK_EQ_INT(line, 36);
		free(text);
		text = mutated(memstat_612, "numa_hint_faults 40000", "numa_hint_faults 4000-");
		line = LINE_UNSET;
		CHECK_EQ_INT(memstat(text, sizeof(memstat_612) - 1, &stat, &line), -EINVAL);
		CHECK_EQ_INT(line, 63);
		free(text);
		text = mutated(memstat_612, "pgsteal 52227", "pgsteal 5222?");
		CHECK_EQ_INT(memstat(text, sizeof(memstat_612) - 1, &stat, &line), 0);
		CHECK_EQ_U64(stat.value[TIERD_MEMSTAT_numa_hint_faults], 40000);
		free(text);
	}

	/* Junk. */
	CHECK_MEMSTAT_BAD("\xde\xad\xbe\xef", 1);
	CHECK_MEMSTAT_BAD("anon 1\nfile 2\0\n", 2);
	CHECK_MEMSTAT_BAD("anon 1\nfoo \0bar\n", 2);
	CHECK_MEMSTAT_BAD("anon 1\nfile 2\n\0", 3);
	CHECK_EQ_INT(MEMSTAT("anon 1\nfile 2\n", &stat, NULL), 0);
	CHECK_EQ_INT(MEMSTAT("anon\n", &stat, NULL), -EINVAL);
}

static void test_psi(void)
{
	struct tierd_psi p;
	int line;

	memset(&p, JUNK_BYTE, sizeof(p));
	line = LINE_UNSET;
	CHECK_EQ_INT(PSI("some avg10=0.12 avg60=1.50 avg300=0.00 total=123456\n"
			 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &p, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK(p.has_some);
	CHECK(p.has_full);
	CHECK_EQ_U64(p.some.avg10_pmy, 12);
	CHECK_EQ_U64(p.some.avg60_pmy, 150);
	CHECK_EQ_U64(p.some.avg300_pmy, 0);
	CHECK_EQ_U64(p.some.total_usec, 123456);
	CHECK_EQ_U64(p.full.avg10_pmy, 0);
	CHECK_EQ_U64(p.full.avg60_pmy, 0);
	CHECK_EQ_U64(p.full.avg300_pmy, 0);
	CHECK_EQ_U64(p.full.total_usec, 0);

	CHECK_EQ_INT(PSI("some avg10=12.34 avg60=5.67 avg300=1.00 total=987654\n"
			 "full avg10=3.21 avg60=1.00 avg300=0.25 total=123456\n", &p, &line), 0);
	CHECK_EQ_U64(p.some.avg10_pmy, 1234);
	CHECK_EQ_U64(p.some.avg60_pmy, 567);
	CHECK_EQ_U64(p.some.avg300_pmy, 100);
	CHECK_EQ_U64(p.some.total_usec, 987654);
	CHECK_EQ_U64(p.full.avg10_pmy, 321);
	CHECK_EQ_U64(p.full.avg60_pmy, 100);
	CHECK_EQ_U64(p.full.avg300_pmy, 25);
	CHECK_EQ_U64(p.full.total_usec, 123456);

	/* Bounds of an average and of the total. */
	CHECK_EQ_INT(PSI("some avg10=100.00 avg60=99.99 avg300=0.01 total=18446744073709551615\n",
			 &p, &line), 0);
	CHECK_EQ_U64(p.some.avg10_pmy, 10000);
	CHECK_EQ_U64(p.some.avg60_pmy, 9999);
	CHECK_EQ_U64(p.some.avg300_pmy, 1);
	CHECK_EQ_U64(p.some.total_usec, UINT64_MAX);
	CHECK(p.has_some);
	CHECK(!p.has_full);

	/* full alone, full first, no trailing newline. */
	CHECK_EQ_INT(PSI("full avg10=0.50 avg60=0.00 avg300=0.00 total=7", &p, &line), 0);
	CHECK(!p.has_some);
	CHECK(p.has_full);
	CHECK_EQ_U64(p.full.avg10_pmy, 50);
	CHECK_EQ_U64(p.full.total_usec, 7);
	CHECK_EQ_INT(PSI("full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
			 "some avg10=0.00 avg60=0.00 avg300=0.00 total=2\n", &p, &line), 0);
	CHECK_EQ_U64(p.some.total_usec, 2);
	CHECK_EQ_U64(p.full.total_usec, 1);

	/* Unknown line types are skipped. */
	CHECK_EQ_INT(PSI("some avg10=0.00 avg60=0.00 avg300=0.00 total=3\n"
			 "partial avg10=garbage\n"
			 "full avg10=0.00 avg60=0.00 avg300=0.00 total=4\n", &p, &line), 0);
	CHECK_EQ_U64(p.some.total_usec, 3);
	CHECK_EQ_U64(p.full.total_usec, 4);

	/* Nothing usable. */
	memset(&p, JUNK_BYTE, sizeof(p));
	line = LINE_UNSET;
	CHECK_EQ_INT(psi("", 0, &p, &line), -ENODATA);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK(!p.has_some);
	CHECK(!p.has_full);
	CHECK_EQ_INT(PSI("partial avg10=0.00\n", &p, &line), -ENODATA);

	/* Garbled some/full lines. */
	CHECK_PSI_BAD("some\n", 1);
	CHECK_PSI_BAD("some avg10=0.1 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=0.123 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=1 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=.12 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=1. avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=1,00 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=101.00 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=18446744073709551615.00 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=abc avg60=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg60=0.00 avg10=0.00 avg300=0.00 total=0\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5 extra=1\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5 \n", 1);
	CHECK_PSI_BAD("some  avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", 1);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\r\n", 1);
	/* Truncated second line, empty line, duplicate, junk. */
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\nfull avg10=0.0", 2);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\nfull", 2);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n\n"
		      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 2);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"
		      "some avg10=0.00 avg60=0.00 avg300=0.00 total=6\n", 2);
	CHECK_PSI_BAD("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"
		      "full avg10=0.00 avg60=0.00\0avg300=0.00 total=0\n", 2);
	CHECK_PSI_BAD("\x80\x81\x82", 1);
	CHECK_PSI_BAD("partial \x01\n", 1);
	CHECK_EQ_INT(PSI("some\n", &p, NULL), -EINVAL);
}

static void test_limit(void)
{
	uint64_t v;

	v = 0;
	CHECK_EQ_INT(LIMIT("max\n", &v), 0);
	CHECK_EQ_U64(v, TIERD_LIMIT_NONE);
	v = 0;
	CHECK_EQ_INT(LIMIT("max", &v), 0);
	CHECK_EQ_U64(v, TIERD_LIMIT_NONE);
	CHECK_EQ_INT(LIMIT("0\n", &v), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_INT(LIMIT("1073741824\n", &v), 0);
	CHECK_EQ_U64(v, 1073741824);
	CHECK_EQ_INT(LIMIT("4096", &v), 0);
	CHECK_EQ_U64(v, 4096);
	CHECK_EQ_INT(LIMIT("18446744073709551615\n", &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);

	CHECK_LIMIT_BAD("");
	CHECK_LIMIT_BAD("\n");
	CHECK_LIMIT_BAD("18446744073709551616\n");
	CHECK_LIMIT_BAD("max\n\n");
	CHECK_LIMIT_BAD("1\n\n");
	CHECK_LIMIT_BAD("1\n2\n");
	CHECK_LIMIT_BAD("\n1");
	CHECK_LIMIT_BAD(" 1\n");
	CHECK_LIMIT_BAD("1 \n");
	CHECK_LIMIT_BAD("1\r\n");
	CHECK_LIMIT_BAD("-1\n");
	CHECK_LIMIT_BAD("+1\n");
	CHECK_LIMIT_BAD("1k\n");
	CHECK_LIMIT_BAD("1G");
	CHECK_LIMIT_BAD("0x10\n");
	CHECK_LIMIT_BAD("MAX\n");
	CHECK_LIMIT_BAD("ma");
	CHECK_LIMIT_BAD("max2\n");
	CHECK_LIMIT_BAD("maxi\n");
	CHECK_LIMIT_BAD("1\0\n");
	CHECK_LIMIT_BAD("\0");
	CHECK_LIMIT_BAD("\xff\xfe");
	CHECK_EQ_INT(tierd_kparse_limit(NULL, 0, &v), -EINVAL);
}

static void test_u64(void)
{
	uint64_t v;

	CHECK_EQ_INT(U64("0\n", &v), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_INT(U64("42\n", &v), 0);
	CHECK_EQ_U64(v, 42);
	CHECK_EQ_INT(U64("120", &v), 0);
	CHECK_EQ_U64(v, 120);
	CHECK_EQ_INT(U64("000123\n", &v), 0);
	CHECK_EQ_U64(v, 123);
	CHECK_EQ_INT(U64("18446744073709551615\n", &v), 0);
	CHECK_EQ_U64(v, UINT64_MAX);

	CHECK_U64_BAD("");
	CHECK_U64_BAD("\n");
	CHECK_U64_BAD("18446744073709551616\n");
	CHECK_U64_BAD("99999999999999999999999999\n");
	CHECK_U64_BAD("max\n");
	CHECK_U64_BAD(" 1\n");
	CHECK_U64_BAD("1 \n");
	CHECK_U64_BAD("1x\n");
	CHECK_U64_BAD("1\n\n");
	CHECK_U64_BAD("1\n2");
	CHECK_U64_BAD("-1\n");
	CHECK_U64_BAD("0x10\n");
	CHECK_U64_BAD("1.5\n");
	CHECK_U64_BAD("1\0");
	CHECK_U64_BAD("\x01");
	CHECK_EQ_INT(tierd_kparse_u64(NULL, 0, &v), -EINVAL);
}

/* A 6.12 nodeN/meminfo. */
static const char meminfo_node2[] =
	"Node 2 MemTotal:        2097152 kB\n"
	"Node 2 MemFree:          786432 kB\n"
	"Node 2 MemUsed:         1310720 kB\n"
	"Node 2 SwapCached:            0 kB\n"
	"Node 2 Active:            77824 kB\n"
	"Node 2 Inactive:         983040 kB\n"
	"Node 2 Active(anon):      65536 kB\n"
	"Node 2 Inactive(anon):   917504 kB\n"
	"Node 2 Active(file):      12288 kB\n"
	"Node 2 Inactive(file):    65536 kB\n"
	"Node 2 Unevictable:           0 kB\n"
	"Node 2 Mlocked:               0 kB\n"
	"Node 2 Dirty:                 0 kB\n"
	"Node 2 Writeback:             0 kB\n"
	"Node 2 FilePages:         77824 kB\n"
	"Node 2 Mapped:            12288 kB\n"
	"Node 2 AnonPages:        983040 kB\n"
	"Node 2 Shmem:                 0 kB\n"
	"Node 2 KernelStack:           0 kB\n"
	"Node 2 PageTables:            0 kB\n"
	"Node 2 SecPageTables:         0 kB\n"
	"Node 2 NFS_Unstable:          0 kB\n"
	"Node 2 Bounce:                0 kB\n"
	"Node 2 WritebackTmp:          0 kB\n"
	"Node 2 KReclaimable:          0 kB\n"
	"Node 2 Slab:                  0 kB\n"
	"Node 2 SReclaimable:          0 kB\n"
	"Node 2 SUnreclaim:            0 kB\n"
	"Node 2 AnonHugePages:    524288 kB\n"
	"Node 2 ShmemHugePages:        0 kB\n"
	"Node 2 ShmemPmdMapped:        0 kB\n"
	"Node 2 FileHugePages:         0 kB\n"
	"Node 2 FilePmdMapped:         0 kB\n"
	"Node 2 Unaccepted:            0 kB\n"
	"Node 2 HugePages_Total:     0\n"
	"Node 2 HugePages_Free:      0\n"
	"Node 2 HugePages_Surp:      0\n";

static void test_node_meminfo(void)
{
	uint64_t total, free_bytes;
	int line;

	line = LINE_UNSET;
	CHECK_EQ_INT(MEMINFO(meminfo_node2, &total, &free_bytes, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_U64(total, 2097152ull * 1024);
	CHECK_EQ_U64(free_bytes, 786432ull * 1024);

	/* Values wider than the kernel's %8lu padding, free before total. */
	CHECK_EQ_INT(MEMINFO("Node 13 MemFree:        123456789 kB\n"
			     "Node 13 MemTotal:       1234567890 kB\n", &total, &free_bytes, &line), 0);
	CHECK_EQ_U64(total, 1234567890ull * 1024);
	CHECK_EQ_U64(free_bytes, 123456789ull * 1024);
	CHECK_EQ_INT(MEMINFO("Node 0 MemTotal: 0 kB\nNode 0 MemFree: 0 kB", &total, &free_bytes,
			     &line), 0);
	CHECK_EQ_U64(total, 0);
	CHECK_EQ_U64(free_bytes, 0);
	/* Largest kB count that fits in bytes, and one past it. */
	CHECK_EQ_INT(MEMINFO("Node 0 MemTotal: 18014398509481983 kB\nNode 0 MemFree: 1 kB\n",
			     &total, &free_bytes, &line), 0);
	CHECK_EQ_U64(total, UINT64_MAX - 1023);
	CHECK_MEMINFO_BAD("Node 0 MemTotal: 18014398509481984 kB\nNode 0 MemFree: 1 kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal: 18446744073709551616 kB\n", 1);
	CHECK_EQ_INT(MEMINFO("Node 0 MemTotal: 1 kB\nNode 0 MemFree: 1 kB\n", &total, &free_bytes,
			     NULL), 0);

	/* Missing figures. */
	line = LINE_UNSET;
	CHECK_EQ_INT(meminfo("", 0, &total, &free_bytes, &line), -ENODATA);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK_EQ_INT(MEMINFO("Node 0 MemTotal:        4194304 kB\nNode 0 MemUsed:   1 kB\n",
			     &total, &free_bytes, &line), -ENODATA);
	CHECK_EQ_INT(MEMINFO("Node 0 MemFree:        4194304 kB\n", &total, &free_bytes, &line),
		     -ENODATA);
	CHECK_EQ_INT(MEMINFO("Node 0 HugePages_Total:     0\n", &total, &free_bytes, &line),
		     -ENODATA);

	/* Truncated: a count cut short is invisible, a missing unit or colon
	 * is not. */
	CHECK_EQ_INT(MEMINFO("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:   2097152 kB\n"
			     "Node 0 MemUsed:  20", &total, &free_bytes, &line), 0);
	CHECK_EQ_U64(free_bytes, 2097152ull * 1024);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:   2097152 kB\n"
			  "Node 0 MemUs", 3);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:   2097152 kB\n"
			  "Node 0 Mem Used: 1 kB\n", 3);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 :   2097152 kB\n", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:          2097", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:   2097152 k", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode", 2);

	/* Lines that are not "Node <n> ...". */
	CHECK_MEMINFO_BAD("MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("node 0 MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node x MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node -1 MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node  0 MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0  MemTotal:        4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\n\nNode 0 MemFree: 1 kB\n", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree: 1 kB\nSlab: 0 kB\n", 3);
	/* Another node's line: two files run together. */
	CHECK_MEMINFO_BAD("Node 0 MemTotal: 1 kB\nNode 1 MemFree: 1 kB\n", 2);
	/* Garbled MemTotal/MemFree. */
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        abc kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 MB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB \n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304  kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        -4194304 kB\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\r\n", 1);
	CHECK_MEMINFO_BAD("Node 0 MemTotal:        4194304 kB\nNode 0 MemFree:        12x kB\n", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal: 1 kB\nNode 0 MemFree: 1 kB\nNode 0 MemTotal: 2 kB\n", 3);
	/* Junk. */
	CHECK_MEMINFO_BAD("Node 0 MemTotal: 1 kB\nNode 0 MemFree: 1 kB\0\n", 2);
	CHECK_MEMINFO_BAD("Node 0 MemTotal: 1 kB\nNode 0 Mem\xef\xbb\xbf: 1 kB\n", 2);
	CHECK_EQ_INT(MEMINFO("MemTotal: 1 kB\n", &total, &free_bytes, NULL), -EINVAL);
}

/* A hybrid host (systemd's legacy default on Debian 10): v1 controllers plus
 * a controller-less cgroup2 at unified/. */
static const char mountinfo_hybrid[] =
	"25 30 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"26 30 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw\n"
	"27 30 0:5 / /dev rw,nosuid,relatime shared:2 - devtmpfs udev rw,size=1994156k,nr_inodes=498539,mode=755,inode64\n"
	"30 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
	"35 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,size=4096k,nr_inodes=1024,mode=755,inode64\n"
	"45 35 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:20 - cgroup2 cgroup2 rw,nsdelegate\n"
	"46 35 0:28 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:21 - cgroup cgroup rw,xattr,name=systemd\n"
	"47 35 0:37 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:22 - cgroup cgroup rw,cpu,cpuacct\n"
	"48 35 0:38 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:23 - cgroup cgroup rw,memory\n"
	"49 35 0:39 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:24 - cgroup cgroup rw,pids\n"
	"53 35 0:43 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid,nodev,noexec,relatime shared:28 - cgroup cgroup rw,net_cls,net_prio\n"
	"40 27 0:34 / /dev/hugepages rw,relatime shared:15 - hugetlbfs hugetlbfs rw,pagesize=2M\n";

/* A pure cgroup2 host (systemd ≥ 247 default). */
static const char mountinfo_v2[] =
	"25 30 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"26 30 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw\n"
	"30 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
	"35 25 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	"37 25 0:32 / /sys/fs/bpf rw,nosuid,nodev,noexec,relatime shared:11 - bpf bpf rw,mode=700\n"
	"38 26 0:33 / /proc/sys/fs/binfmt_misc rw,relatime shared:12 - autofs systemd-1 rw,fd=30,pgrp=1,timeout=0,minproto=5,maxproto=5,direct,pipe_ino=10852\n"
	"91 29 0:44 / /run/user/1000 rw,nosuid,nodev,relatime shared:392 - tmpfs tmpfs rw,size=401796k,nr_inodes=100449,mode=700,uid=1000,gid=1000,inode64\n";

/* Only a mount point of the given length, for the path size limit. */
static int mountinfo_long(size_t path_len, struct tierd_mounts *mounts, int *line)
{
	static const char head[] = "1 0 0:1 / /";
	static const char tail[] = " rw - cgroup2 cgroup2 rw\n";
	char text[sizeof(head) + TIERD_CGROUP_PATH_MAX * 2 + sizeof(tail)];
	size_t n = 0;
	int r;

	if (path_len < 1 || path_len > TIERD_CGROUP_PATH_MAX * 2)
		abort();
	memcpy(text, head, sizeof(head) - 1);
	n += sizeof(head) - 1;
	memset(text + n, 'a', path_len - 1);
	n += path_len - 1;
	memcpy(text + n, tail, sizeof(tail) - 1);
	n += sizeof(tail) - 1;
	r = mountinfo(text, n, mounts, line);
	return r;
}

static void test_mountinfo(void)
{
	struct tierd_mounts m;
	int line;

	/* Pure v2: the memory_recursiveprot option is no v1 memory. */
	memset(&m, JUNK_BYTE, sizeof(m));
	line = LINE_UNSET;
	CHECK_EQ_INT(MOUNTINFO(mountinfo_v2, &m, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK(m.has_cgroup2);
	CHECK_EQ_STR(m.cgroup2_path, "/sys/fs/cgroup");
	CHECK(!m.memory_v1);

	/* Hybrid: cgroup2 exists but memory is bound to v1. */
	memset(&m, JUNK_BYTE, sizeof(m));
	CHECK_EQ_INT(MOUNTINFO(mountinfo_hybrid, &m, &line), 0);
	CHECK(m.has_cgroup2);
	CHECK_EQ_STR(m.cgroup2_path, "/sys/fs/cgroup/unified");
	CHECK(m.memory_v1);

	/* Pure v1 (no unified mount). */
	memset(&m, JUNK_BYTE, sizeof(m));
	CHECK_EQ_INT(MOUNTINFO("46 35 0:28 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
			       "48 35 0:38 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
			       &m, &line), 0);
	CHECK(!m.has_cgroup2);
	CHECK_EQ_STR(m.cgroup2_path, "");
	CHECK(m.memory_v1);

	/* Empty: nothing found, all zeroed. */
	memset(&m, JUNK_BYTE, sizeof(m));
	line = LINE_UNSET;
	CHECK_EQ_INT(mountinfo("", 0, &m, &line), 0);
	CHECK_EQ_INT(line, LINE_UNSET);
	CHECK(!m.has_cgroup2);
	CHECK(!m.memory_v1);
	CHECK_EQ_STR(m.cgroup2_path, "");
	CHECK_EQ_INT(MOUNTINFO("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n", &m, &line), 0);
	CHECK(!m.has_cgroup2);
	CHECK(!m.memory_v1);

	/* The memory word must be a whole super option. */
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup cgroup memory,cpu\n", &m, &line), 0);
	CHECK(m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup cgroup rw,cpu,memory\n", &m, &line), 0);
	CHECK(m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup cgroup memory\n", &m, &line), 0);
	CHECK(m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup cgroup rw,memory_recursiveprot\n", &m,
			       &line), 0);
	CHECK(!m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup cgroup rw,name=memory\n", &m, &line), 0);
	CHECK(!m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup cgroup rw,nomemory,xmemory\n", &m, &line), 0);
	CHECK(!m.memory_v1);
	/* Only the super options count, only for fstype cgroup. */
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /memory memory - cgroup memory rw\n", &m, &line), 0);
	CHECK(!m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - tmpfs tmpfs rw,memory\n", &m, &line), 0);
	CHECK(!m.memory_v1);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup2 cgroup2 rw,memory\n", &m, &line), 0);
	CHECK(!m.memory_v1);
	CHECK(m.has_cgroup2);
	/* cgroup2 as source or mount point is not a cgroup2 fstype. */
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /cgroup2 rw - tmpfs cgroup2 rw\n", &m, &line), 0);
	CHECK(!m.has_cgroup2);
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a rw - cgroup2x cgroup2 rw\n", &m, &line), 0);
	CHECK(!m.has_cgroup2);

	/* The first cgroup2 wins. */
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /first rw - cgroup2 cgroup2 rw\n"
			       "2 0 0:2 / /second rw - cgroup2 cgroup2 rw\n", &m, &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/first");

	/* Escaped mount points. */
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /mnt/my\\040cgroup rw - cgroup2 cgroup2 rw\n", &m, &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/mnt/my cgroup");
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /a\\011b\\012c\\134d\\040 rw - cgroup2 cgroup2 rw\n", &m,
			       &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/a\tb\nc\\d ");
	/* Raw UTF-8 is passed through. */
	CHECK_EQ_INT(MOUNTINFO("1 0 0:1 / /caf\xc3\xa9 rw - cgroup2 cgroup2 rw\n", &m, &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/caf\xc3\xa9");
	/* Bad escapes in the recorded path. */
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n"
			    "1 0 0:1 / /a\\04 rw - cgroup2 cgroup2 rw\n", 2);
	CHECK_MOUNTINFO_BAD("1 0 0:1 / /a\\ rw - cgroup2 cgroup2 rw\n", 1);
	CHECK_MOUNTINFO_BAD("1 0 0:1 / /a\\08x rw - cgroup2 cgroup2 rw\n", 1);
	CHECK_MOUNTINFO_BAD("1 0 0:1 / /a\\400 rw - cgroup2 cgroup2 rw\n", 1);
	CHECK_MOUNTINFO_BAD("1 0 0:1 / /a\\000 rw - cgroup2 cgroup2 rw\n", 1);
	CHECK_MOUNTINFO_BAD("1 0 0:1 / /a\\x20 rw - cgroup2 cgroup2 rw\n", 1);

	/* Path length: 511 bytes fit with their NUL, 512 do not; escapes count
	 * once decoded. */
	CHECK_EQ_INT(mountinfo_long(TIERD_CGROUP_PATH_MAX - 1, &m, &line), 0);
	CHECK(m.has_cgroup2);
	CHECK_EQ_INT(strlen(m.cgroup2_path), TIERD_CGROUP_PATH_MAX - 1);
	line = LINE_UNSET;
	CHECK_EQ_INT(mountinfo_long(TIERD_CGROUP_PATH_MAX, &m, &line), -ENAMETOOLONG);
	CHECK_EQ_INT(line, 1);
	CHECK_EQ_INT(mountinfo_long(TIERD_CGROUP_PATH_MAX * 2, &m, NULL), -ENAMETOOLONG);
	{
		/* "/" + 127 escaped spaces: 509 bytes raw, 128 decoded. */
		char text[sizeof("1 0 0:1 / / rw - cgroup2 cgroup2 rw\n") + 127 * 4];
		size_t n = 0;

		n += (size_t)snprintf(text + n, sizeof(text) - n, "1 0 0:1 / /");
		for (int i = 0; i < 127; i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "\\040");
		n += (size_t)snprintf(text + n, sizeof(text) - n, " rw - cgroup2 cgroup2 rw\n");
		CHECK(n < sizeof(text));
		CHECK_EQ_INT(mountinfo(text, n, &m, &line), 0);
		CHECK_EQ_INT(strlen(m.cgroup2_path), 128);
		CHECK_EQ_INT(m.cgroup2_path[127], ' ');
	}

	/* Optional fields: none, one, several. */
	CHECK_EQ_INT(MOUNTINFO("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
			       "37 35 0:30 / /cg rw - cgroup2 cgroup2 rw\n", &m, &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/cg");
	CHECK_EQ_INT(MOUNTINFO("37 35 0:30 / /cg rw shared:1 master:2 propagate_from:3 unbindable - cgroup2 cgroup2 rw\n",
			       &m, &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/cg");
	/* An empty source (mount(2) with ""), a fuse subtype, extra trailing
	 * fields, a last line without newline. */
	CHECK_EQ_INT(MOUNTINFO("50 30 0:50 / /mnt/t rw - tmpfs  rw\n"
			       "51 30 0:51 / /mnt/s rw - fuse.sshfs u@h:/ rw,user_id=0\n"
			       "52 30 0:52 / /mnt/c rw - cgroup cgroup rw,memory future\n"
			       "53 30 0:53 / /cg rw - cgroup2 cgroup2 rw", &m, &line), 0);
	CHECK(m.memory_v1);
	CHECK(m.has_cgroup2);
	CHECK_EQ_STR(m.cgroup2_path, "/cg");
	/* A root that is a subtree and a namespace-style root. */
	CHECK_EQ_INT(MOUNTINFO("60 30 0:3 net:[4026531840] /run/netns/a rw - nsfs nsfs rw\n"
			       "61 30 0:30 /sub /cg rw - cgroup2 cgroup2 rw\n", &m, &line), 0);
	CHECK_EQ_STR(m.cgroup2_path, "/cg");

	/* Fewer fields, no separator, garbled numbers. */
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n"
			    "31 1 254:2 / /x rw shared:1 ext4 /dev/vda2 rw\n", 2);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / /\n", 1);
	CHECK_MOUNTINFO_BAD("30\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw -\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 \n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw -  /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("x 1 254:1 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 -1 254:1 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254-1 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254: / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 :1 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1:0 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30  1 254:1 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw  - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD(" 30 1 254:1 / / rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\r\n", 1);
	/* Truncated last line, empty line in the middle. */
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n31 1 0:30 / /cg rw - cgro", 2);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n31 1 0:30 / /cg rw shared:", 2);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n\n"
			    "31 1 0:30 / /cg rw - cgroup2 cgroup2 rw\n", 2);
	/* Junk. */
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n"
			    "31 1 0:30 / /cg rw - cgroup2\0cgroup2 rw\n", 2);
	CHECK_MOUNTINFO_BAD("30 1 254:1 / / rw - ext4 /dev/vda1 rw\n\x01\x02\x03\n", 2);
	CHECK_MOUNTINFO_BAD("30 1 254:1 /\t/ rw - ext4 /dev/vda1 rw\n", 1);
	CHECK_EQ_INT(MOUNTINFO("30\n", &m, NULL), -EINVAL);
}

int main(void)
{
	test_numa_stat();
	test_memstat();
	test_psi();
	test_limit();
	test_u64();
	test_node_meminfo();
	test_mountinfo();
	return tierd_test_finish();
}
