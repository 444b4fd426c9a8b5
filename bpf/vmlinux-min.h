/* The pinned fallback for vmlinux.h: only the kernel types
 * tierd_sampler.bpf.c uses, for building where no kernel BTF is at hand
 * (no build/vm/vmlinuz, no /sys/kernel/btf/vmlinux). Hand-written, not
 * generated, so it stays small and reviewable; the structs the program
 * reads carry preserve_access_index, so libbpf relocates their fields
 * against the running kernel's BTF at load time (CO-RE) and this copy
 * need not match any kernel's layout byte for byte.
 *
 * Origins (Linux 6.12): the fixed-width types and the BPF UAPI enums from
 * include/uapi/linux/bpf.h and include/uapi/asm-generic/int-ll64.h;
 * struct trace_entry from include/linux/trace_events.h; enum migrate_mode
 * from include/linux/migrate_mode.h; the mm_migrate_pages record from
 * include/trace/events/migrate.h. Checked by building the object against
 * it and against the VM kernel's generated vmlinux.h: both give the same
 * maps and programs (tests/test_bpf_build.sh). */
#ifndef TIERD_VMLINUX_MIN_H
#define TIERD_VMLINUX_MIN_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef _Bool bool;
enum { false = 0, true = 1 };

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

/* bpf_ringbuf_submit() flags and bpf_ringbuf_query() flags. */
enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};
enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
	BPF_RB_CONS_POS = 2,
	BPF_RB_PROD_POS = 3,
};

/* Only pointed to. */
struct pt_regs;
struct vm_area_struct;

enum migrate_mode {
	MIGRATE_ASYNC,
	MIGRATE_SYNC_LIGHT,
	MIGRATE_SYNC,
};

struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_migrate_pages {
	struct trace_entry ent;
	unsigned long succeeded;
	unsigned long failed;
	unsigned long thp_succeeded;
	unsigned long thp_failed;
	unsigned long thp_split;
	unsigned long large_folio_split;
	enum migrate_mode mode;
	int reason;
	char __data[0];
} __attribute__((preserve_access_index));

#endif
