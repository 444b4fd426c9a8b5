/* vm-link: controller/kpagecgroup.c controller/physmem.c controller/fsread.c policy/attribution.c */
/* For the kpagecg VM scenario: counts the pages of node NODE charged to the
 * memory cgroup whose inode is INO, straight from /proc/kpagecgroup, then
 * again through tierd_attribute (the node's ranges as DAMON regions), once
 * exact and once sampled every 4th page, and the CPU time the exact read
 * took. Prints RESULT lines. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../controller/kpagecgroup.h"
#include "../../controller/physmem.h"
#include "../../policy/attribution.h"

#define RANGES_MAX 16
#define SAMPLE_EVERY 4 /* the sampled pass reads a quarter of the pages */
#define DEC_BASE 10
#define NS_PER_US 1000
#define US_PER_SEC 1000000

struct counts {
	uint64_t owned, other, exact, runs, sampled;
	uint64_t read_cpu_us; /* CPU (user + system) of the exact reads */
};

/* The one logging call the linked sources make. The initramfs programs
 * are static and libsystemd has no static library, so log.c is not
 * linked: messages go to stderr. */
int tierd_log_errno(const struct tierd_logger *log, enum tierd_log_level level, int r,
		    const char *fmt, ...)
{
	va_list ap;

	if (!log || level > log->level)
		return r;
	fprintf(stderr, "kpcount: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(-r));
	return r;
}

static uint64_t cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * US_PER_SEC + (uint64_t)ts.tv_nsec / NS_PER_US;
}

/* Attributes pages [pfn, pfn + pages) of owner to a single cgroup, ino. */
static int attribute(const struct tierd_region *reg, uint64_t pfn, uint64_t stride,
		     const uint64_t *owner, size_t nr, uint64_t ino, struct tierd_attr_out *out)
{
	const struct tierd_attr_cgroup map = { .ino = ino, .index = 0 };
	const struct tierd_attr_owners ow = {
		.base_pfn = pfn, .stride = stride, .nr = nr, .owner = owner,
	};

	return tierd_attribute(reg, 1, &ow, &map, 1, out, 1);
}

static int count_range(const struct tierd_kpagecgroup *kc, const struct tierd_phys_range *range,
		       int nid, uint64_t ino, struct counts *c, const struct tierd_logger *log)
{
	uint64_t pfn = range->start / TIERD_PAGE_BYTES;
	size_t pages = (size_t)((range->end - range->start) / TIERD_PAGE_BYTES);
	uint64_t stride = tierd_attr_stride(pages, pages / SAMPLE_EVERY);
	size_t nr_samples = (size_t)((pages + stride - 1) / stride);
	struct tierd_region reg = { .start = range->start, .end = range->end, .tier = nid };
	struct tierd_attr_out out = { 0 };
	uint64_t *owner = calloc(pages, sizeof(*owner));
	int r;

	if (!owner) {
		r = tierd_log_errno(log, TIERD_LOG_ERR, -ENOMEM, "%zu owners", pages);
		goto out;
	}
	c->read_cpu_us -= cpu_us();
	r = tierd_kpagecgroup_read(kc, pfn, pages, owner, log);
	c->read_cpu_us += cpu_us();
	if (r < 0)
		goto out;
	for (size_t i = 0; i < pages; i++) {
		c->owned += owner[i] == ino;
		c->other += owner[i] && owner[i] != ino;
	}
	r = attribute(&reg, pfn, 1, owner, pages, ino, &out);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_ERR, r, "tierd_attribute (exact)");
		goto out;
	}
	c->exact += out.pages;
	c->runs += out.nr_regions;
	r = tierd_kpagecgroup_read_sampled(kc, pfn, stride, nr_samples, owner, log);
	if (r < 0)
		goto out;
	r = attribute(&reg, pfn, stride, owner, nr_samples, ino, &out);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_ERR, r, "tierd_attribute (sampled)");
		goto out;
	}
	c->sampled += out.pages;
	printf("RESULT node%d_stride %" PRIu64 "\n", nid, stride);
out:
	tierd_attr_out_free(&out, 1);
	free(owner);
	return r;
}

int main(int argc, char **argv)
{
	struct tierd_phys_range ranges[RANGES_MAX];
	struct tierd_kpagecgroup kc = { .fd = -1 };
	/* Down to debug: a failure's cause is all this program answers. */
	const struct tierd_logger log = { .level = TIERD_LOG_DEBUG };
	struct counts c = { 0 };
	size_t nr = 0;
	uint64_t ino;
	int nid, r;

	if (argc != 3) {
		fprintf(stderr, "usage: kpcount NODE CGROUP_INODE\n");
		return 2;
	}
	nid = atoi(argv[1]);
	ino = strtoull(argv[2], NULL, DEC_BASE);
	r = tierd_physmem_node_ranges("/", nid, ranges, RANGES_MAX, &nr, &log);
	if (r == 0)
		r = tierd_kpagecgroup_open("/", &kc, &log);
	if (r < 0)
		goto out;
	printf("RESULT node%d_ranges", nid);
	for (size_t i = 0; i < nr; i++)
		printf(" 0x%" PRIx64 "-0x%" PRIx64, ranges[i].start, ranges[i].end);
	printf("\n");
	for (size_t i = 0; i < nr && r == 0; i++)
		r = count_range(&kc, &ranges[i], nid, ino, &c, &log);
	if (r < 0)
		goto out;
	printf("RESULT node%d_owned_pages %" PRIu64 "\n", nid, c.owned);
	printf("RESULT node%d_other_owned_pages %" PRIu64 "\n", nid, c.other);
	printf("RESULT node%d_attributed_pages %" PRIu64 "\n", nid, c.exact);
	printf("RESULT node%d_attributed_runs %" PRIu64 "\n", nid, c.runs);
	printf("RESULT node%d_sampled_pages %" PRIu64 "\n", nid, c.sampled);
	printf("RESULT node%d_read_cpu_us %" PRIu64 "\n", nid, c.read_cpu_us);
out:
	tierd_kpagecgroup_close(&kc);
	return r < 0 ? 1 : 0;
}
