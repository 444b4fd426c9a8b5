/* Loader of the hint-fault sampler: BTF probing, libbpf skeleton, maps,
 * ring buffer (bpf_sampler.h). The pure conversions come first, the
 * kernel-facing code after them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf_sampler.h"
#include "tierd_sampler.skel.h"

#define NSEC_PER_USEC 1000ull
#define BTF_DEFAULT_PATH "/sys/kernel/btf/vmlinux" /* what btf__load_vmlinux_btf reads first */
#define TRACEFS_DEFAULT "/sys/kernel/tracing"
#define PATH_BYTES 512 /* tracefs event paths are short */
/* Parameter counts of the probed functions and tracepoints (6.12; a
 * tracepoint's btf_trace_* prototype has the context pointer first). */
#define TASK_NUMA_FAULT_ARGS 4
#define PAGE_FAULT_USER_TP_ARGS 4
#define MM_MIGRATE_PAGES_TP_ARGS 9
#define CHANGE_PROT_NUMA_ARGS 3

struct tierd_bpf_sampler {
	struct tierd_sampler_bpf *skel;
	struct ring_buffer *ring;
	struct tierd_bpf_hooks hooks;
	int nr_cpus;
	uint64_t slot_cgroup[TIERD_BPF_MAX_CGROUPS]; /* 0: free slot */
	/* The drain in progress (ring_buffer__new fixes its context pointer). */
	tierd_bpf_sample_fn fn;
	void *userdata;
	int fn_err;
};

int tierd_bpf_sample_convert(const void *rec, size_t size, struct tierd_sample *ret,
			     uint32_t *tgid)
{
	const struct tierd_bpf_sample *r = rec;
	uint64_t interval_usec;

	if (size < sizeof(*r))
		return -EINVAL;
	if (!(r->flags & TIERD_BPF_SAMPLE_ADDR))
		return -ENODATA;
	interval_usec = r->interval_ns / NSEC_PER_USEC;
	/* 0 means unknown to the engine: a known sub-microsecond interval is 1. */
	if (r->interval_ns && !interval_usec)
		interval_usec = 1;
	*ret = (struct tierd_sample){
		.addr = r->addr & ~(TIERD_PAGE_BYTES - 1),
		.tier = (int)r->tier,
		.time_usec = r->time_ns / NSEC_PER_USEC,
		.interval_usec = interval_usec,
		.write = (r->flags & TIERD_BPF_SAMPLE_WRITE) != 0,
	};
	*tgid = r->tgid;
	return 0;
}

void tierd_bpf_counters_sum(const struct tierd_bpf_counters *cpu, int nr_cpus,
			    struct tierd_bpf_counters *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < nr_cpus; c++) {
		for (int t = 0; t < TIERD_BPF_MAX_TIERS; t++) {
			sum->faults[t] += cpu[c].faults[t];
			sum->samples[t] += cpu[c].samples[t];
			sum->drops[t] += cpu[c].drops[t];
		}
		sum->ring_full += cpu[c].ring_full;
		sum->migrated += cpu[c].migrated;
		sum->migrate_failed += cpu[c].migrate_failed;
	}
}

const char *tierd_bpf_attach_name(enum tierd_bpf_attach a)
{
	switch (a) {
	case TIERD_BPF_ATTACH_BTF:
		return "btf";
	case TIERD_BPF_ATTACH_TRACEPOINT:
		return "tracepoint";
	case TIERD_BPF_ATTACH_NONE:
		break;
	}
	return "none";
}

/* Parameter count of the function prototype behind type id (a FUNC, or a
 * typedef of a pointer to one as btf_trace_* are); -1 if it is not one. */
static int proto_params(const struct btf *btf, __s32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_func(t) || btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t);
}

static bool has_proto(const struct btf *btf, const char *name, __u32 kind, int nr_params)
{
	__s32 id = btf__find_by_name_kind(btf, name, kind);

	return id > 0 && proto_params(btf, id) == nr_params;
}

static bool has_tracepoint(const char *tracefs, const char *event)
{
	char path[PATH_BYTES];

	snprintf(path, sizeof(path), "%s/events/%s/id", tracefs, event);
	return access(path, R_OK) == 0;
}

int tierd_bpf_probe_hooks(const char *btf_path, const char *tracefs,
			  struct tierd_bpf_hooks *ret, const struct tierd_logger *log)
{
	const char *path = btf_path ? btf_path : BTF_DEFAULT_PATH;
	struct btf *btf;
	int r = 0;

	if (!tracefs)
		tracefs = TRACEFS_DEFAULT;
	btf = btf_path ? btf__parse(btf_path, NULL) : btf__load_vmlinux_btf();
	if (!btf) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -errno,
				    "%s: cannot read the kernel's BTF; the BPF sampler needs a "
				    "kernel built with CONFIG_DEBUG_INFO_BTF", path);
		goto out;
	}
	*ret = (struct tierd_bpf_hooks){ .numa_fault = TIERD_BPF_ATTACH_NONE };
	if (has_proto(btf, "task_numa_fault", BTF_KIND_FUNC, TASK_NUMA_FAULT_ARGS))
		ret->numa_fault = TIERD_BPF_ATTACH_BTF;
	if (has_proto(btf, "btf_trace_page_fault_user", BTF_KIND_TYPEDEF, PAGE_FAULT_USER_TP_ARGS))
		ret->fault_addr = TIERD_BPF_ATTACH_BTF;
	else if (has_tracepoint(tracefs, "exceptions/page_fault_user"))
		ret->fault_addr = TIERD_BPF_ATTACH_TRACEPOINT;
	if (has_proto(btf, "btf_trace_mm_migrate_pages", BTF_KIND_TYPEDEF, MM_MIGRATE_PAGES_TP_ARGS))
		ret->migrate = TIERD_BPF_ATTACH_BTF;
	else if (has_tracepoint(tracefs, "migrate/mm_migrate_pages"))
		ret->migrate = TIERD_BPF_ATTACH_TRACEPOINT;
	if (has_proto(btf, "change_prot_numa", BTF_KIND_FUNC, CHANGE_PROT_NUMA_ARGS))
		ret->numa_scan = TIERD_BPF_ATTACH_BTF;
	if (ret->numa_fault == TIERD_BPF_ATTACH_NONE)
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EOPNOTSUPP,
				    "%s: no task_numa_fault(int, int, int, int) function (inlined, "
				    "or another kernel version): hint faults cannot be sampled", path);
out:
	btf__free(btf);
	return r;
}

static int handle_record(void *ctx, void *data, size_t size)
{
	struct tierd_bpf_sampler *s = ctx;
	const struct tierd_bpf_sample *rec = data;
	struct tierd_sample sample;
	uint32_t tgid;
	int r;

	r = tierd_bpf_sample_convert(data, size, &sample, &tgid);
	if (r == -ENODATA)
		return 0;
	if (r < 0 || !s->fn)
		return r;
	r = s->fn(rec->cgroup_id, tgid, &sample, rec->pages, s->userdata);
	if (r < 0)
		s->fn_err = r;
	return r;
}

static void choose_programs(struct tierd_sampler_bpf *skel, const struct tierd_bpf_hooks *h)
{
	bpf_program__set_autoload(skel->progs.tierd_fault_user,
				  h->fault_addr == TIERD_BPF_ATTACH_BTF);
	bpf_program__set_autoload(skel->progs.tierd_fault_user_tp,
				  h->fault_addr == TIERD_BPF_ATTACH_TRACEPOINT);
	bpf_program__set_autoload(skel->progs.tierd_migrate, h->migrate == TIERD_BPF_ATTACH_BTF);
	bpf_program__set_autoload(skel->progs.tierd_migrate_tp,
				  h->migrate == TIERD_BPF_ATTACH_TRACEPOINT);
	bpf_program__set_autoload(skel->progs.tierd_numa_scan,
				  h->numa_scan == TIERD_BPF_ATTACH_BTF);
}

static int skip_all_nodes(struct tierd_bpf_sampler *s)
{
	for (uint32_t node = 0; node < TIERD_BPF_MAX_NODES; node++) {
		int r = tierd_bpf_sampler_set_node_tier(s, node, TIERD_BPF_TIER_SKIP);

		if (r < 0)
			return r;
	}
	return 0;
}

int tierd_bpf_sampler_new(const struct tierd_bpf_hooks *hooks, struct tierd_bpf_sampler **ret,
			  const struct tierd_logger *log)
{
	struct tierd_bpf_sampler *s;
	int r;

	if (hooks->numa_fault != TIERD_BPF_ATTACH_BTF)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EOPNOTSUPP,
				       "no hint-fault hook on this kernel (task_numa_fault)");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->hooks = *hooks;
	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, s->nr_cpus < 0 ? s->nr_cpus : -EINVAL,
				    "/sys/devices/system/cpu/possible");
		goto fail;
	}
	s->skel = tierd_sampler_bpf__open();
	if (!s->skel) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "opening the BPF object");
		goto fail;
	}
	choose_programs(s->skel, hooks);
	r = tierd_sampler_bpf__load(s->skel);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "loading the BPF programs%s",
				r == -EPERM ? " (needs CAP_BPF and CAP_PERFMON, or root)" : "");
		goto fail;
	}
	r = skip_all_nodes(s);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "filling the node_tiers map");
		goto fail;
	}
	r = tierd_sampler_bpf__attach(s->skel);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "attaching the BPF programs");
		goto fail;
	}
	s->ring = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), handle_record, s, NULL);
	if (!s->ring) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "ring buffer");
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	tierd_bpf_sampler_free(s);
	return r;
}

void tierd_bpf_sampler_free(struct tierd_bpf_sampler *s)
{
	if (!s)
		return;
	ring_buffer__free(s->ring);
	tierd_sampler_bpf__destroy(s->skel);
	free(s);
}

const struct tierd_bpf_hooks *tierd_bpf_sampler_hooks(const struct tierd_bpf_sampler *s)
{
	return &s->hooks;
}

int tierd_bpf_sampler_set_node_tier(struct tierd_bpf_sampler *s, uint32_t node, uint32_t tier)
{
	if (node >= TIERD_BPF_MAX_NODES)
		return -EINVAL;
	return bpf_map__update_elem(s->skel->maps.node_tiers, &node, sizeof(node), &tier,
				    sizeof(tier), BPF_ANY);
}

/* Zeroes slot's per-CPU counters and bucket: a new cgroup starts clean. */
static int reset_slot(struct tierd_bpf_sampler *s, uint32_t slot)
{
	size_t cnt_bytes = sizeof(struct tierd_bpf_counters) * (size_t)s->nr_cpus;
	size_t bucket_bytes = sizeof(struct tierd_bpf_bucket) * (size_t)s->nr_cpus;
	void *zero = calloc(1, cnt_bytes > bucket_bytes ? cnt_bytes : bucket_bytes);
	int r;

	if (!zero)
		return -ENOMEM;
	r = bpf_map__update_elem(s->skel->maps.counters, &slot, sizeof(slot), zero, cnt_bytes,
				 BPF_ANY);
	if (r == 0)
		r = bpf_map__update_elem(s->skel->maps.buckets, &slot, sizeof(slot), zero,
					 bucket_bytes, BPF_ANY);
	free(zero);
	return r;
}

static int find_slot(const struct tierd_bpf_sampler *s, uint64_t cgroup_id)
{
	for (int i = 0; i < TIERD_BPF_MAX_CGROUPS; i++)
		if (s->slot_cgroup[i] == cgroup_id)
			return i;
	return -ENOENT;
}

int tierd_bpf_sampler_manage(struct tierd_bpf_sampler *s, uint64_t cgroup_id,
			     uint32_t rate_per_sec, uint32_t burst)
{
	struct tierd_bpf_cgroup cg = { .rate_per_sec = rate_per_sec, .burst = burst };
	int slot, r;

	if (cgroup_id == 0)
		return -EINVAL;
	slot = find_slot(s, cgroup_id);
	if (slot < 0) {
		slot = find_slot(s, 0);
		if (slot < 0)
			return -ENOSPC;
		r = reset_slot(s, (uint32_t)slot);
		if (r < 0)
			return r;
	}
	cg.slot = (uint32_t)slot;
	r = bpf_map__update_elem(s->skel->maps.cgroups, &cgroup_id, sizeof(cgroup_id), &cg,
				 sizeof(cg), BPF_ANY);
	if (r < 0)
		return r;
	s->slot_cgroup[slot] = cgroup_id;
	return 0;
}

int tierd_bpf_sampler_unmanage(struct tierd_bpf_sampler *s, uint64_t cgroup_id)
{
	int slot = cgroup_id ? find_slot(s, cgroup_id) : -ENOENT;
	int r;

	if (slot < 0)
		return slot;
	r = bpf_map__delete_elem(s->skel->maps.cgroups, &cgroup_id, sizeof(cgroup_id), 0);
	if (r < 0 && r != -ENOENT)
		return r;
	s->slot_cgroup[slot] = 0;
	return 0;
}

int tierd_bpf_sampler_fd(const struct tierd_bpf_sampler *s)
{
	return ring_buffer__epoll_fd(s->ring);
}

int tierd_bpf_sampler_drain(struct tierd_bpf_sampler *s, tierd_bpf_sample_fn fn, void *userdata)
{
	int r;

	s->fn = fn;
	s->userdata = userdata;
	s->fn_err = 0;
	r = ring_buffer__consume(s->ring);
	if (s->fn_err < 0)
		r = s->fn_err;
	s->fn = NULL;
	s->userdata = NULL;
	return r;
}

/* The per-CPU values of entry key of a per-CPU array map. */
static int lookup_percpu(const struct tierd_bpf_sampler *s, const struct bpf_map *map,
			 uint32_t key, void *values, size_t value_size)
{
	return bpf_map__lookup_elem(map, &key, sizeof(key), values,
				    value_size * (size_t)s->nr_cpus, 0);
}

int tierd_bpf_sampler_counters(const struct tierd_bpf_sampler *s, uint64_t cgroup_id,
			       struct tierd_bpf_counters *ret)
{
	struct tierd_bpf_counters *cpu;
	int slot = cgroup_id ? find_slot(s, cgroup_id) : -ENOENT;
	int r;

	if (slot < 0)
		return slot;
	cpu = calloc((size_t)s->nr_cpus, sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	r = lookup_percpu(s, s->skel->maps.counters, (uint32_t)slot, cpu, sizeof(*cpu));
	if (r == 0)
		tierd_bpf_counters_sum(cpu, s->nr_cpus, ret);
	free(cpu);
	return r;
}

int tierd_bpf_sampler_global(const struct tierd_bpf_sampler *s, struct tierd_bpf_global *ret)
{
	struct tierd_bpf_global *cpu = calloc((size_t)s->nr_cpus, sizeof(*cpu));
	int r;

	if (!cpu)
		return -ENOMEM;
	r = lookup_percpu(s, s->skel->maps.global, 0, cpu, sizeof(*cpu));
	memset(ret, 0, sizeof(*ret));
	for (int c = 0; r == 0 && c < s->nr_cpus; c++) {
		ret->unmanaged_faults += cpu[c].unmanaged_faults;
		ret->skipped_tier += cpu[c].skipped_tier;
		ret->no_addr += cpu[c].no_addr;
		ret->no_interval += cpu[c].no_interval;
	}
	free(cpu);
	return r;
}

int tierd_bpf_sampler_migrations(const struct tierd_bpf_sampler *s,
				 struct tierd_bpf_migrations *ret)
{
	struct tierd_bpf_migrations *cpu = calloc((size_t)s->nr_cpus, sizeof(*cpu));
	int r = 0;

	if (!cpu)
		return -ENOMEM;
	memset(ret, 0, sizeof(*ret) * TIERD_BPF_NR_REASONS);
	for (uint32_t reason = 0; r == 0 && reason < TIERD_BPF_NR_REASONS; reason++) {
		r = lookup_percpu(s, s->skel->maps.migrations, reason, cpu, sizeof(*cpu));
		for (int c = 0; r == 0 && c < s->nr_cpus; c++) {
			ret[reason].calls += cpu[c].calls;
			ret[reason].succeeded += cpu[c].succeeded;
			ret[reason].failed += cpu[c].failed;
		}
	}
	free(cpu);
	return r;
}
