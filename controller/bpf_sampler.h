/* Loader of the hint-fault sampler (bpf/tierd_sampler.bpf.c): probes which
 * hooks the running kernel has, loads and attaches the programs that fit,
 * fills the maps (managed cgroups, node tiers, token buckets), and turns
 * ring-buffer records into the engine's struct tierd_sample.
 *
 * Hooks, probed by name and argument count: fentry/task_numa_fault(int,
 * int, int, int), the hint-fault source (required); tp_btf/page_fault_user
 * (x86) for the address and the write bit, else the tracepoint of the same
 * name through tracefs, else samples go without an address;
 * tp_btf/mm_migrate_pages with 6.12's 8 arguments, else its tracefs
 * tracepoint; fentry/change_prot_numa(vma, addr, end), where the
 * NUMA-balancing scanner protects a range, for reaccess intervals, else
 * samples go with interval 0. Minimum kernel: 5.18 (NUMA-balancing tiering
 * mode; fentry, tp_btf, LRU hash maps and the BPF ring buffer are older)
 * with CONFIG_DEBUG_INFO_BTF; verified on 6.12.
 *
 * When BPF, BTF or the capability is missing, tierd_bpf_sampler_new()
 * fails with -errno and a message saying which, and tierd falls back to
 * DAMON-only promotion. Loading needs CAP_BPF + CAP_PERFMON (or root). */
#ifndef TIERD_BPF_SAMPLER_LOADER_H
#define TIERD_BPF_SAMPLER_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "../bpf/tierd_sampler.h"
#include "../policy/hotness.h"

/* How a hook can be attached on this kernel. */
enum tierd_bpf_attach {
	TIERD_BPF_ATTACH_NONE,       /* absent: the feature is off */
	TIERD_BPF_ATTACH_BTF,        /* fentry / tp_btf through kernel BTF */
	TIERD_BPF_ATTACH_TRACEPOINT, /* classic tracepoint through tracefs */
};

struct tierd_bpf_hooks {
	enum tierd_bpf_attach numa_fault; /* task_numa_fault: NONE or BTF */
	enum tierd_bpf_attach fault_addr; /* exceptions:page_fault_user */
	enum tierd_bpf_attach migrate;    /* migrate:mm_migrate_pages */
	enum tierd_bpf_attach numa_scan;  /* change_prot_numa: NONE or BTF */
};

/* Probes the hooks in the BTF at btf_path (NULL: the running kernel's,
 * /sys/kernel/btf/vmlinux) and the tracepoints under tracefs (NULL:
 * /sys/kernel/tracing). Reads only; loads nothing. Returns 0; -EOPNOTSUPP
 * when the BTF has no usable task_numa_fault (not present, inlined, or
 * another signature); another -errno when the BTF cannot be read (-ENOENT:
 * the kernel has no CONFIG_DEBUG_INFO_BTF). Failures are told to log at
 * debug level (log.h). */
int tierd_bpf_probe_hooks(const char *btf_path, const char *tracefs,
			  struct tierd_bpf_hooks *ret, const struct tierd_logger *log);

/* Names of an attach kind and of the hooks, for status lines. */
const char *tierd_bpf_attach_name(enum tierd_bpf_attach a);

struct tierd_bpf_sampler;

/* Opens, loads and attaches the programs hooks allows, every node marked
 * TIERD_BPF_TIER_SKIP and no cgroup managed. Returns 0 and *ret, or -errno,
 * told with the step that failed: -EPERM without the capability,
 * -EOPNOTSUPP when hooks has no hint-fault hook, or what libbpf
 * returned. */
int tierd_bpf_sampler_new(const struct tierd_bpf_hooks *hooks, struct tierd_bpf_sampler **ret,
			  const struct tierd_logger *log);
void tierd_bpf_sampler_free(struct tierd_bpf_sampler *s);

/* The hooks the sampler was loaded with, for status lines. */
const struct tierd_bpf_hooks *tierd_bpf_sampler_hooks(const struct tierd_bpf_sampler *s);

/* Samples hint faults on node when tier is a tier index, not at all when it
 * is TIERD_BPF_TIER_SKIP (fast tiers). 0, -EINVAL (node out of range), or
 * the map update's -errno. */
int tierd_bpf_sampler_set_node_tier(struct tierd_bpf_sampler *s, uint32_t node, uint32_t tier);

/* Samples the cgroup whose cgroup2 directory has inode cgroup_id, with a
 * token bucket of rate_per_sec and burst per CPU. A cgroup already managed
 * keeps its counters and gets the new bucket settings; a new one gets a
 * free slot with zeroed counters and a full bucket. 0, -ENOSPC (all
 * TIERD_BPF_MAX_CGROUPS slots taken), -EINVAL (cgroup_id 0), or -errno. */
int tierd_bpf_sampler_manage(struct tierd_bpf_sampler *s, uint64_t cgroup_id,
			     uint32_t rate_per_sec, uint32_t burst);
/* Stops sampling the cgroup. 0, or -ENOENT when it was not managed. */
int tierd_bpf_sampler_unmanage(struct tierd_bpf_sampler *s, uint64_t cgroup_id);

/* The epoll fd that becomes readable when records wait (for an sd_event IO
 * source). */
int tierd_bpf_sampler_fd(const struct tierd_bpf_sampler *s);

/* Called per record that has an address; tgid is the faulting process
 * (for move_pages(2)), pages 1 or the huge page's count. A negative return
 * stops the drain and is returned by it. */
typedef int (*tierd_bpf_sample_fn)(uint64_t cgroup_id, uint32_t tgid,
				   const struct tierd_sample *sample, uint32_t pages, void *userdata);

/* Consumes every waiting record without blocking. Returns the number of
 * records consumed (those without an address included), or -errno. */
int tierd_bpf_sampler_drain(struct tierd_bpf_sampler *s, tierd_bpf_sample_fn fn, void *userdata);

/* Counters of a managed cgroup, summed over CPUs. 0, -ENOENT (not
 * managed), or -errno. */
int tierd_bpf_sampler_counters(const struct tierd_bpf_sampler *s, uint64_t cgroup_id,
			       struct tierd_bpf_counters *ret);
/* Global counters and migrations by reason (ret has TIERD_BPF_NR_REASONS
 * entries), summed over CPUs. 0 or -errno. */
int tierd_bpf_sampler_global(const struct tierd_bpf_sampler *s, struct tierd_bpf_global *ret);
int tierd_bpf_sampler_migrations(const struct tierd_bpf_sampler *s,
				 struct tierd_bpf_migrations *ret);

/* Pure parts, no kernel needed. */

/* The engine's sample for a ring-buffer record of size bytes: page-aligned
 * address, tier, CLOCK_MONOTONIC microseconds, write bit, reaccess interval
 * in microseconds (0 unknown; below 1 us it rounds up to 1, so it stays
 * known), and the record's process in *tgid. Returns 0, -EINVAL for a
 * record shorter than struct tierd_bpf_sample, -ENODATA for one without
 * address. */
int tierd_bpf_sample_convert(const void *rec, size_t size, struct tierd_sample *ret,
			     uint32_t *tgid);

/* Adds the per-CPU values cpu[0..nr_cpus) of one counters entry into *sum
 * (zeroed first). Entries are spaced by the kernel's 8-byte rounding, which
 * these structs already have. */
void tierd_bpf_counters_sum(const struct tierd_bpf_counters *cpu, int nr_cpus,
			    struct tierd_bpf_counters *sum);

#endif
