/* tierd's hint-fault sampler: per-cgroup, per-page evidence of slow-tier
 * pages being used, for the engine's promotion decisions.
 *
 * In NUMA-balancing tiering mode (kernel.numa_balancing=2) the kernel's
 * scanner makes only slow-tier pages PROT_NONE, so each access to such a
 * page takes a hint fault that ends in task_numa_fault() in the faulting
 * task's context: bpf_get_current_cgroup_id() is the cgroup of the task that
 * uses the page (for private anonymous memory, the page's cgroup).
 * task_numa_fault() gives the node and page count but not the address, so
 * the x86 fault-entry tracepoint page_fault_user records the address and
 * write bit per CPU, and the hint-fault hook consumes it when it belongs to
 * the same task.
 *
 * Reaccess interval (Mole's hotness signal): the time from the scanner
 * making a page PROT_NONE to its hint fault. task_numa_work() protects a
 * process's memory range by range with change_prot_numa(vma, addr, end),
 * in the context of one of the process's threads; the fentry hook keeps the
 * last TIERD_BPF_SCAN_RANGES ranges and their times per process (`scans`),
 * and the hint-fault hook looks the newest range holding the fault address
 * up. In tiering mode change_pte_range() skips top-tier pages and pages
 * already PROT_NONE, so a page left untouched over several passes keeps its
 * oldest protection while the newest range holding it is a later pass's:
 * its interval is then a lower bound (it is cold either way).
 *
 * Filters: only cgroups in `cgroups` (tierd fills it from its policies),
 * only nodes whose `node_tiers` entry is not TIERD_BPF_TIER_SKIP. Each
 * managed cgroup has a slot with per-CPU counters and a per-CPU token
 * bucket, so a fault storm costs a few map operations per fault and never
 * floods the ring buffer; what the bucket refuses is counted as dropped.
 * migrate:mm_migrate_pages counts migrations by reason for all cgroups.
 *
 * Every program can be switched off before load (autoload): the loader
 * probes the running kernel's BTF and keeps only what it can attach. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tierd_sampler.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TIERD_BPF_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct tierd_bpf_cgroup);
} cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TIERD_BPF_MAX_NODES);
	__type(key, __u32);
	__type(value, __u32);
} node_tiers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TIERD_BPF_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, struct tierd_bpf_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TIERD_BPF_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, struct tierd_bpf_bucket);
} buckets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tierd_bpf_global);
} global SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TIERD_BPF_NR_REASONS);
	__type(key, __u32);
	__type(value, struct tierd_bpf_migrations);
} migrations SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tierd_bpf_last_fault);
} last_fault SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TIERD_BPF_MAX_SCANNED_PROCS);
	__type(key, __u32);
	__type(value, struct tierd_bpf_scans);
} scans SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TIERD_BPF_RING_BYTES);
} samples SEC(".maps");

static __always_inline void record_fault(__u64 addr, __u64 error_code)
{
	__u32 zero = 0;
	struct tierd_bpf_last_fault *lf = bpf_map_lookup_elem(&last_fault, &zero);

	if (!lf)
		return;
	lf->pid_tgid = bpf_get_current_pid_tgid();
	lf->addr = addr;
	lf->error_code = error_code;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(tierd_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	record_fault(address, error_code);
	return 0;
}

/* The tracepoint's record (arch/x86/include/asm/trace/exceptions.h), as a
 * CO-RE flavour: some kernels' BTF (a 6.18 build was seen) lacks the type,
 * and the object must build against any vmlinux.h. */
struct trace_event_raw_x86_exceptions___tierd {
	struct trace_entry ent;
	unsigned long address;
	unsigned long ip;
	unsigned long error_code;
} __attribute__((preserve_access_index));

/* The same for kernels whose tracepoint has no BTF (needs tracefs). */
SEC("tracepoint/exceptions/page_fault_user")
int tierd_fault_user_tp(struct trace_event_raw_x86_exceptions___tierd *ctx)
{
	record_fault(ctx->address, ctx->error_code);
	return 0;
}

/* The address and write bit of this task's fault, consumed so a later hint
 * fault never reuses it; flags gets TIERD_BPF_SAMPLE_*. */
static __always_inline __u64 take_fault_addr(__u16 *flags)
{
	__u32 zero = 0;
	struct tierd_bpf_last_fault *lf = bpf_map_lookup_elem(&last_fault, &zero);
	__u64 addr;

	if (!lf || lf->pid_tgid != bpf_get_current_pid_tgid())
		return 0;
	addr = lf->addr;
	*flags |= TIERD_BPF_SAMPLE_ADDR;
	if (lf->error_code & TIERD_X86_PF_WRITE)
		*flags |= TIERD_BPF_SAMPLE_WRITE;
	lf->pid_tgid = 0;
	return addr;
}

static __always_inline struct tierd_bpf_global *global_counters(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&global, &zero);
}

/* The helper returns tgid << 32 | pid (include/uapi/linux/bpf.h). */
static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

/* task_numa_work() runs as task work of a thread of the scanned process
 * (vma->vm_mm is current's mm): the current tgid and cgroup are the
 * process's. */
SEC("fentry/change_prot_numa")
int BPF_PROG(tierd_numa_scan, struct vm_area_struct *vma, unsigned long addr,
	     unsigned long end)
{
	static const struct tierd_bpf_scans empty;
	__u64 cgid = bpf_get_current_cgroup_id();
	__u32 tgid = current_tgid();
	struct tierd_bpf_scans *sc;

	if (!bpf_map_lookup_elem(&cgroups, &cgid))
		return 0;
	sc = bpf_map_lookup_elem(&scans, &tgid);
	if (!sc) {
		/* BPF_NOEXIST: a racing first insert of another thread wins. */
		bpf_map_update_elem(&scans, &tgid, &empty, BPF_NOEXIST);
		sc = bpf_map_lookup_elem(&scans, &tgid);
		if (!sc)
			return 0;
	}
	tierd_bpf_scan_add(sc, addr, end, bpf_ktime_get_ns());
	return 0;
}

/* The reaccess interval of this task's fault at addr (0: unknown). */
static __always_inline __u64 fault_interval(__u64 addr, __u64 now)
{
	__u32 tgid = current_tgid();
	struct tierd_bpf_scans *sc = bpf_map_lookup_elem(&scans, &tgid);

	return sc ? tierd_bpf_scan_interval(sc, addr, now) : 0;
}

SEC("fentry/task_numa_fault")
int BPF_PROG(tierd_numa_fault, int last_cpupid, int mem_node, int pages, int flags)
{
	__u64 cgid = bpf_get_current_cgroup_id();
	struct tierd_bpf_cgroup *cg = bpf_map_lookup_elem(&cgroups, &cgid);
	struct tierd_bpf_global *g = global_counters();
	struct tierd_bpf_counters *cnt;
	struct tierd_bpf_bucket *bucket;
	struct tierd_bpf_sample *rec;
	__u32 node = mem_node, slot, tier, *tierp;
	__u16 sflags = 0;
	__u64 addr, now, interval = 0;

	if (!g)
		return 0;
	if (!cg) {
		g->unmanaged_faults++;
		return 0;
	}
	tierp = bpf_map_lookup_elem(&node_tiers, &node);
	if (!tierp || *tierp == TIERD_BPF_TIER_SKIP) {
		g->skipped_tier++;
		return 0;
	}
	tier = *tierp < TIERD_BPF_MAX_TIERS ? *tierp : TIERD_BPF_MAX_TIERS - 1;
	slot = cg->slot;
	cnt = bpf_map_lookup_elem(&counters, &slot);
	bucket = bpf_map_lookup_elem(&buckets, &slot);
	if (!cnt || !bucket)
		return 0;
	cnt->faults[tier]++;
	if (flags & TIERD_TNF_MIGRATED)
		cnt->migrated++;
	if (flags & TIERD_TNF_MIGRATE_FAIL)
		cnt->migrate_failed++;
	now = bpf_ktime_get_ns();
	/* Consumed whatever the bucket says: a later fault must not reuse it. */
	addr = take_fault_addr(&sflags);
	if (!(sflags & TIERD_BPF_SAMPLE_ADDR))
		g->no_addr++;
	/* The bucket before the scan-range search: a storm's dropped faults
	 * (96% in bench/bpf_overhead.sh) skip the search's cost. */
	if (!tierd_bpf_bucket_take(bucket, now, cg->rate_per_sec, cg->burst)) {
		cnt->drops[tier]++;
		return 0;
	}
	if (sflags & TIERD_BPF_SAMPLE_ADDR) {
		interval = fault_interval(addr, now);
		if (!interval)
			g->no_interval++;
	}
	rec = bpf_ringbuf_reserve(&samples, sizeof(*rec), 0);
	if (!rec) {
		cnt->ring_full++;
		return 0;
	}
	rec->cgroup_id = cgid;
	rec->addr = addr;
	rec->time_ns = now;
	rec->interval_ns = interval;
	rec->node = node;
	rec->tier = tier;
	rec->pages = pages;
	rec->tgid = current_tgid();
	rec->flags = sflags;
	rec->tnf_flags = flags;
	rec->pad = 0;
	/* Wake tierd only once a batch waits: it drains at every tick too, so
	 * samples wait at most a tick, and a wakeup per sample (seen: 590/s
	 * for 1,250 samples/s) is what its CPU time went to. */
	bpf_ringbuf_submit(rec, bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >=
					TIERD_BPF_WAKEUP_BYTES
				? BPF_RB_FORCE_WAKEUP
				: BPF_RB_NO_WAKEUP);
	cnt->samples[tier]++;
	return 0;
}

static __always_inline void count_migration(__u32 reason, __u64 succeeded, __u64 failed)
{
	struct tierd_bpf_migrations *m = bpf_map_lookup_elem(&migrations, &reason);

	if (!m)
		return;
	m->calls++;
	m->succeeded += succeeded;
	m->failed += failed;
}

SEC("tp_btf/mm_migrate_pages")
int BPF_PROG(tierd_migrate, unsigned long succeeded, unsigned long failed,
	     unsigned long thp_succeeded, unsigned long thp_failed, unsigned long thp_split,
	     unsigned long large_folio_split, enum migrate_mode mode, int reason)
{
	count_migration(reason, succeeded, failed);
	return 0;
}

/* The same for kernels whose tracepoint has no BTF (needs tracefs). */
SEC("tracepoint/migrate/mm_migrate_pages")
int tierd_migrate_tp(struct trace_event_raw_mm_migrate_pages *ctx)
{
	count_migration(ctx->reason, ctx->succeeded, ctx->failed);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
