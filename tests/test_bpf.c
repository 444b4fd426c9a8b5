/* Unit tests for the hint-fault sampler on the build machine: the BPF object
 * in the skeleton opens (nothing is loaded: the build machine refuses BPF
 * loads, and tests/vm/scenarios/bpf.sh loads it in the VM), its maps have
 * the layouts of bpf/tierd_sampler.h, the hook probe reads the right
 * answer from hand-made BTF, and the pure parts (record conversion,
 * per-CPU sums, the token bucket the BPF program runs) give exact values. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../controller/bpf_sampler.h"
#include "check.h"
#include "log_capture.h"
#include "tierd_sampler.skel.h"
#include "tmptree.h"

TIERD_TEST_MAIN_COUNTS;

#define PATH_MAX_TEST 256
#define SEC_NS 1000000000ull
#define INT_BYTES 4
#define INT_SIGNED 1 /* BTF_INT_SIGNED */

static void check_map(const struct bpf_map *map, enum bpf_map_type type, uint32_t key_size,
		      uint32_t value_size, uint32_t max_entries)
{
	CHECK_EQ_INT(bpf_map__type(map), type);
	CHECK_EQ_INT(bpf_map__key_size(map), key_size);
	CHECK_EQ_INT(bpf_map__value_size(map), value_size);
	CHECK_EQ_INT(bpf_map__max_entries(map), max_entries);
}

static void test_skeleton_opens(void)
{
	struct tierd_sampler_bpf *skel = tierd_sampler_bpf__open();

	CHECK(skel != NULL);
	if (!skel)
		return;
	check_map(skel->maps.cgroups, BPF_MAP_TYPE_HASH, 8, sizeof(struct tierd_bpf_cgroup),
		  TIERD_BPF_MAX_CGROUPS);
	check_map(skel->maps.node_tiers, BPF_MAP_TYPE_ARRAY, 4, 4, TIERD_BPF_MAX_NODES);
	check_map(skel->maps.counters, BPF_MAP_TYPE_PERCPU_ARRAY, 4,
		  sizeof(struct tierd_bpf_counters), TIERD_BPF_MAX_CGROUPS);
	check_map(skel->maps.buckets, BPF_MAP_TYPE_PERCPU_ARRAY, 4,
		  sizeof(struct tierd_bpf_bucket), TIERD_BPF_MAX_CGROUPS);
	check_map(skel->maps.global, BPF_MAP_TYPE_PERCPU_ARRAY, 4,
		  sizeof(struct tierd_bpf_global), 1);
	check_map(skel->maps.migrations, BPF_MAP_TYPE_PERCPU_ARRAY, 4,
		  sizeof(struct tierd_bpf_migrations), TIERD_BPF_NR_REASONS);
	check_map(skel->maps.last_fault, BPF_MAP_TYPE_PERCPU_ARRAY, 4,
		  sizeof(struct tierd_bpf_last_fault), 1);
	check_map(skel->maps.scans, BPF_MAP_TYPE_LRU_HASH, 4, sizeof(struct tierd_bpf_scans),
		  TIERD_BPF_MAX_SCANNED_PROCS);
	CHECK_EQ_INT(bpf_map__type(skel->maps.samples), BPF_MAP_TYPE_RINGBUF);
	CHECK_EQ_INT(bpf_map__max_entries(skel->maps.samples), TIERD_BPF_RING_BYTES);
	/* The sizes the header's comments count with (ring capacity, memory). */
	CHECK_EQ_INT(sizeof(struct tierd_bpf_sample), 56);
	CHECK_EQ_INT(offsetof(struct tierd_bpf_sample, interval_ns), 24);
	CHECK_EQ_INT(offsetof(struct tierd_bpf_sample, tgid), 44);
	CHECK_EQ_INT(sizeof(struct tierd_bpf_scans), 776);
	CHECK_EQ_INT(sizeof(struct tierd_bpf_global), 32);
	CHECK_EQ_STR(bpf_program__section_name(skel->progs.tierd_numa_fault),
		     "fentry/task_numa_fault");
	CHECK_EQ_STR(bpf_program__section_name(skel->progs.tierd_fault_user),
		     "tp_btf/page_fault_user");
	CHECK_EQ_STR(bpf_program__section_name(skel->progs.tierd_fault_user_tp),
		     "tracepoint/exceptions/page_fault_user");
	CHECK_EQ_STR(bpf_program__section_name(skel->progs.tierd_migrate),
		     "tp_btf/mm_migrate_pages");
	CHECK_EQ_STR(bpf_program__section_name(skel->progs.tierd_migrate_tp),
		     "tracepoint/migrate/mm_migrate_pages");
	CHECK_EQ_STR(bpf_program__section_name(skel->progs.tierd_numa_scan),
		     "fentry/change_prot_numa");
	CHECK_EQ_INT(bpf_program__autoload(skel->progs.tierd_numa_fault), 1);
	tierd_sampler_bpf__destroy(skel);
}

static void test_convert(void)
{
	struct tierd_bpf_sample rec = {
		.cgroup_id = 4242,
		.addr = 0x7f0012345678ull,
		.time_ns = 12345678999ull,
		.interval_ns = 1234567999ull,
		.node = 3,
		.tier = 3,
		.pages = 1,
		.tgid = 4321,
		.flags = TIERD_BPF_SAMPLE_ADDR | TIERD_BPF_SAMPLE_WRITE,
		.tnf_flags = 0,
		.pad = 0,
	};
	struct tierd_sample s;
	uint32_t tgid = 0;

	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), 0);
	CHECK_EQ_U64(s.addr, 0x7f0012345000ull);
	CHECK_EQ_INT(s.tier, 3);
	CHECK_EQ_U64(s.time_usec, 12345678ull);
	CHECK_EQ_U64(s.interval_usec, 1234567ull);
	CHECK_EQ_INT(s.write, 1);
	CHECK_EQ_U64(tgid, 4321);

	/* Unknown stays 0; a known interval under 1 us rounds up to 1 us, one
	 * of exactly 1 us is 1 us, one just under 2 us truncates to 1 us. */
	rec.flags = TIERD_BPF_SAMPLE_ADDR;
	rec.tier = 1;
	rec.interval_ns = 0;
	rec.tgid = 1;
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), 0);
	CHECK_EQ_INT(s.write, 0);
	CHECK_EQ_INT(s.tier, 1);
	CHECK_EQ_U64(s.interval_usec, 0);
	CHECK_EQ_U64(tgid, 1);
	rec.interval_ns = 1;
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), 0);
	CHECK_EQ_U64(s.interval_usec, 1);
	rec.interval_ns = 999;
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), 0);
	CHECK_EQ_U64(s.interval_usec, 1);
	rec.interval_ns = 1000;
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), 0);
	CHECK_EQ_U64(s.interval_usec, 1);
	rec.interval_ns = 1999;
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), 0);
	CHECK_EQ_U64(s.interval_usec, 1);

	rec.flags = TIERD_BPF_SAMPLE_WRITE;
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec), &s, &tgid), -ENODATA);
	CHECK_EQ_INT(tierd_bpf_sample_convert(&rec, sizeof(rec) - 1, &s, &tgid), -EINVAL);
}

static void test_scan_interval(void)
{
	static struct tierd_bpf_scans sc;
	const uint64_t t0 = 7 * SEC_NS;

	memset(&sc, 0, sizeof(sc));
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x1000, t0), 0);
	/* Address 0 is in no empty slot ([0, 0) holds nothing). */
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0, t0), 0);
	tierd_bpf_scan_add(&sc, 0x10000, 0x20000, t0);
	tierd_bpf_scan_add(&sc, 0x40000, 0x50000, t0 + 100);
	CHECK_EQ_U64(sc.next, 2);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x10000, t0 + 5000), 5000);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x1ffff, t0 + 5000), 5000);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x20000, t0 + 5000), 0);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x4abcd, t0 + 5000), 4900);
	/* A fault at the scan's own nanosecond is known: 1 ns, not unknown. */
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x40000, t0 + 100), 1);
	/* The next pass over the first range: the newest scan counts. */
	tierd_bpf_scan_add(&sc, 0x10000, 0x20000, t0 + 3000);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x18000, t0 + 5000), 2000);
	/* The ring forgets the oldest: after TIERD_BPF_SCAN_RANGES - 1 more
	 * ranges elsewhere, 0x40000 (the second added) is gone and the first
	 * range's newer scan is the oldest left. */
	for (uint64_t i = 0; i < TIERD_BPF_SCAN_RANGES - 1; i++)
		tierd_bpf_scan_add(&sc, 0x100000 + i * 0x1000, 0x101000 + i * 0x1000, t0 + 4000);
	CHECK_EQ_U64(sc.next, 2);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x40000, t0 + 5000), 0);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x18000, t0 + 5000), 2000);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x100000, t0 + 5000), 1000);
	/* One more overwrites the first range's scan too. */
	tierd_bpf_scan_add(&sc, 0x200000, 0x201000, t0 + 4500);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x18000, t0 + 5000), 0);
	CHECK_EQ_U64(tierd_bpf_scan_interval(&sc, 0x200fff, t0 + 5000), 500);
}

static void test_counters_sum(void)
{
	struct tierd_bpf_counters cpu[2] = {
		{ .faults = { [1] = 10, [3] = 7 }, .samples = { [3] = 5 }, .drops = { [3] = 2 },
		  .ring_full = 1, .migrated = 0, .migrate_failed = 4 },
		{ .faults = { [3] = 100 }, .samples = { [3] = 60 }, .drops = { [3] = 40 },
		  .ring_full = 0, .migrated = 2, .migrate_failed = 0 },
	};
	struct tierd_bpf_counters sum;

	tierd_bpf_counters_sum(cpu, 2, &sum);
	CHECK_EQ_U64(sum.faults[1], 10);
	CHECK_EQ_U64(sum.faults[3], 107);
	CHECK_EQ_U64(sum.faults[0], 0);
	CHECK_EQ_U64(sum.samples[3], 65);
	CHECK_EQ_U64(sum.drops[3], 42);
	CHECK_EQ_U64(sum.ring_full, 1);
	CHECK_EQ_U64(sum.migrated, 2);
	CHECK_EQ_U64(sum.migrate_failed, 4);
}

static void test_bucket(void)
{
	struct tierd_bpf_bucket b = { .nanotokens = 0, .last_ns = 0 };
	const uint64_t t0 = 5 * SEC_NS;

	/* Burst 3, 2 tokens/s: a fresh bucket is full. */
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0, 2, 3), 1);
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0, 2, 3), 1);
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0, 2, 3), 1);
	CHECK_EQ_U64(b.nanotokens, 0);
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0, 2, 3), 0);
	/* 0.4 s refills 0.8 of a token: still dropped; 0.1 s more makes 1. */
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0 + 400000000ull, 2, 3), 0);
	CHECK_EQ_U64(b.nanotokens, 800000000ull);
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0 + 500000000ull, 2, 3), 1);
	CHECK_EQ_U64(b.nanotokens, 0);
	/* An hour later the bucket holds its burst, not 7,200 tokens. */
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0 + 3600 * SEC_NS, 2, 3), 1);
	CHECK_EQ_U64(b.nanotokens, 2 * SEC_NS);
	/* A huge rate over a huge gap must not overflow into an empty bucket. */
	b.nanotokens = 0;
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, b.last_ns + (1ull << 62), UINT32_MAX, 3), 1);
	CHECK_EQ_U64(b.nanotokens, 2 * SEC_NS);
	/* Rate 0: what is left is all there is. */
	b = (struct tierd_bpf_bucket){ .nanotokens = 0, .last_ns = 0 };
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0, 0, 1), 1);
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0 + 100 * SEC_NS, 0, 1), 0);
	/* Burst 0 never lets a sample through. */
	b = (struct tierd_bpf_bucket){ .nanotokens = 0, .last_ns = 0 };
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0, 1000, 0), 0);
	/* A clock behind the last use (another CPU's bucket state) restarts full. */
	b = (struct tierd_bpf_bucket){ .nanotokens = 0, .last_ns = t0 };
	CHECK_EQ_INT(tierd_bpf_bucket_take(&b, t0 - 1, 1, 2), 1);
	CHECK_EQ_U64(b.nanotokens, SEC_NS);
}

/* A function prototype returning void with nr int parameters. */
static int add_proto(struct btf *btf, int int_id, int nr)
{
	int id = btf__add_func_proto(btf, 0);

	for (int i = 0; i < nr; i++)
		btf__add_func_param(btf, "", int_id);
	return id;
}

/* Writes a BTF blob to path with task_numa_fault taking nr_fault_args ints,
 * change_prot_numa taking nr_scan_args (none when 0), and, when
 * with_tp_btf, the btf_trace_* typedefs of both tracepoints. */
static void write_btf(const char *path, int nr_fault_args, int nr_scan_args, bool with_tp_btf)
{
	struct btf *btf = btf__new_empty();
	int int_id = btf__add_int(btf, "int", INT_BYTES, INT_SIGNED);
	const void *raw;
	__u32 size = 0;
	FILE *f;

	btf__add_func(btf, "task_numa_fault", BTF_FUNC_GLOBAL,
		      add_proto(btf, int_id, nr_fault_args));
	if (nr_scan_args)
		btf__add_func(btf, "change_prot_numa", BTF_FUNC_STATIC,
			      add_proto(btf, int_id, nr_scan_args));
	if (with_tp_btf) {
		btf__add_typedef(btf, "btf_trace_page_fault_user",
				 btf__add_ptr(btf, add_proto(btf, int_id, 4)));
		btf__add_typedef(btf, "btf_trace_mm_migrate_pages",
				 btf__add_ptr(btf, add_proto(btf, int_id, 9)));
	}
	raw = btf__raw_data(btf, &size);
	f = fopen(path, "w");
	if (!f || fwrite(raw, 1, size, f) != size) {
		perror(path);
		abort();
	}
	fclose(f);
	btf__free(btf);
}

static void test_probe(const char *root)
{
	char btf_path[PATH_MAX_TEST], tracefs[PATH_MAX_TEST], want[TIERD_ERR_MAX];
	struct tierd_log_keep cap;
	struct tierd_bpf_hooks h;

	tmptree_join(btf_path, sizeof(btf_path), root, "vmlinux");
	tmptree_join(tracefs, sizeof(tracefs), root, "tracing");

	/* 6.12 as the VM has it: everything through BTF. */
	write_btf(btf_path, 4, 3, true);
	CHECK_EQ_INT(tierd_bpf_probe_hooks(btf_path, tracefs, &h, capture(&cap)), 0);
	CHECK_EQ_INT(h.numa_fault, TIERD_BPF_ATTACH_BTF);
	CHECK_EQ_INT(h.fault_addr, TIERD_BPF_ATTACH_BTF);
	CHECK_EQ_INT(h.migrate, TIERD_BPF_ATTACH_BTF);
	CHECK_EQ_INT(h.numa_scan, TIERD_BPF_ATTACH_BTF);

	/* No tracepoint BTF: the tracefs events that exist, and nothing else;
	 * change_prot_numa inlined away: no intervals, still a sampler. */
	write_btf(btf_path, 4, 0, false);
	tmptree_put(tracefs, "events/migrate/mm_migrate_pages/id", "1234\n");
	CHECK_EQ_INT(tierd_bpf_probe_hooks(btf_path, tracefs, &h, capture(&cap)), 0);
	CHECK_EQ_INT(h.numa_fault, TIERD_BPF_ATTACH_BTF);
	CHECK_EQ_INT(h.fault_addr, TIERD_BPF_ATTACH_NONE);
	CHECK_EQ_INT(h.migrate, TIERD_BPF_ATTACH_TRACEPOINT);
	CHECK_EQ_INT(h.numa_scan, TIERD_BPF_ATTACH_NONE);
	CHECK_EQ_STR(tierd_bpf_attach_name(h.migrate), "tracepoint");
	CHECK_EQ_STR(tierd_bpf_attach_name(h.fault_addr), "none");

	/* change_prot_numa with another signature is not attached. */
	write_btf(btf_path, 4, 4, true);
	CHECK_EQ_INT(tierd_bpf_probe_hooks(btf_path, tracefs, &h, capture(&cap)), 0);
	CHECK_EQ_INT(h.numa_scan, TIERD_BPF_ATTACH_NONE);

	/* task_numa_fault with another signature is not attached. */
	write_btf(btf_path, 3, 3, true);
	CHECK_EQ_INT(tierd_bpf_probe_hooks(btf_path, tracefs, &h, capture(&cap)), -EOPNOTSUPP);
	CHECK_EQ_INT(h.numa_fault, TIERD_BPF_ATTACH_NONE);
	snprintf(want, sizeof(want),
		 "%s: no task_numa_fault(int, int, int, int) function (inlined, or another "
		 "kernel version): hint faults cannot be sampled: %s", btf_path,
		 strerror(EOPNOTSUPP));
	CHECK_EQ_STR(cap.last, want);

	/* No BTF at all. */
	tmptree_rm(root, "vmlinux");
	CHECK_EQ_INT(tierd_bpf_probe_hooks(btf_path, tracefs, &h, capture(&cap)), -ENOENT);
	snprintf(want, sizeof(want),
		 "%s: cannot read the kernel's BTF; the BPF sampler needs a kernel built with "
		 "CONFIG_DEBUG_INFO_BTF: No such file or directory", btf_path);
	CHECK_EQ_STR(cap.last, want);

	/* The loader refuses hooks without a hint-fault source before any load. */
	{
		struct tierd_bpf_sampler *s = NULL;

		CHECK_EQ_INT(tierd_bpf_sampler_new(&h, &s, capture(&cap)), -EOPNOTSUPP);
		CHECK(s == NULL);
		CHECK_EQ_STR(cap.last,
			     "no hint-fault hook on this kernel (task_numa_fault): Operation not supported");
	}
}

/* The build machine's own kernel, probed read-only (nothing is loaded):
 * which hooks tierd would use here, for the record. */
static void test_probe_running_kernel(void)
{
	struct tierd_bpf_hooks h;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		SKIP("this kernel has no /sys/kernel/btf/vmlinux");
		return;
	}
	CHECK_EQ_INT(tierd_bpf_probe_hooks(NULL, NULL, &h, NULL), 0);
	CHECK_EQ_INT(h.numa_fault, TIERD_BPF_ATTACH_BTF);
	printf("NOTE: this machine's kernel: numa_fault=%s fault_addr=%s numa_scan=%s migrate=%s\n",
	       tierd_bpf_attach_name(h.numa_fault), tierd_bpf_attach_name(h.fault_addr),
	       tierd_bpf_attach_name(h.numa_scan), tierd_bpf_attach_name(h.migrate));
}

int main(void)
{
	char root[TMPTREE_DIR_MAX];

	libbpf_set_print(NULL);
	if (tmptree_make(root, sizeof(root), "bpf") < 0)
		return 1;
	test_skeleton_opens();
	test_convert();
	test_scan_interval();
	test_counters_sum();
	test_bucket();
	test_probe(root);
	test_probe_running_kernel();
	tmptree_rm(root, "");
	return tierd_test_finish();
}
