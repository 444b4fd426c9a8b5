/* /proc/kpagecgroup reads; see kpagecgroup.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "fsread.h"
#include "kpagecgroup.h"

#define ENTRY_BYTES sizeof(uint64_t) /* one u64 per PFN (proc(5)) */
#define OFF_MAX INT64_MAX            /* pread's off_t: 64-bit, asserted below */

_Static_assert(sizeof(off_t) == sizeof(int64_t), "64-bit off_t");

/* Reads the n entries from PFN pfn into out, going on after short reads.
 * The file ends at the kernel's highest PFN, which need not end a memory
 * block (RAM ending inside a 128 MiB section): entries past the end are
 * pages that do not exist, owner 0, as for holes inside. */
static int read_entries(int fd, uint64_t *out, size_t n, uint64_t pfn)
{
	size_t bytes = n * ENTRY_BYTES, done = 0;

	while (done < bytes) {
		ssize_t got = pread(fd, (char *)out + done, bytes - done,
				    (off_t)(pfn * ENTRY_BYTES + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	done -= done % ENTRY_BYTES;
	memset((char *)out + done, 0, bytes - done);
	return 0;
}

/* Tells a failed read of PFNs pfn..last and returns r; -ERANGE: beyond
 * off_t. */
static int read_error(const struct tierd_kpagecgroup *kc, int r, uint64_t pfn, uint64_t last,
		      const struct tierd_logger *log)
{
	if (r == -ERANGE)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s: PFNs from %" PRIu64 " lie beyond any file offset",
				       kc->path, pfn);
	return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s: reading PFNs %" PRIu64 "-%" PRIu64,
			       kc->path, pfn, last);
}

int tierd_kpagecgroup_open(const char *root, struct tierd_kpagecgroup *kc,
			   const struct tierd_logger *log)
{
	int r;

	kc->fd = -1;
	r = tierd_root_path(root, TIERD_KPAGECGROUP_PATH, kc->path, sizeof(kc->path));
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s under the root",
				       TIERD_KPAGECGROUP_PATH);
	kc->fd = open(kc->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (kc->fd >= 0)
		return 0;
	r = -errno;
	if (r == -ENOENT)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s: absent (a kernel without CONFIG_MEMCG or CONFIG_PROC_PAGE_MONITOR): no per-page cgroup owners",
				       kc->path);
	if (r == -EACCES || r == -EPERM)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s (reading it needs CAP_SYS_ADMIN)", kc->path);
	return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", kc->path);
}

int tierd_kpagecgroup_read(const struct tierd_kpagecgroup *kc, uint64_t pfn, size_t n,
			   uint64_t *out, const struct tierd_logger *log)
{
	int r;

	if (n == 0)
		return 0;
	if (pfn > OFF_MAX / ENTRY_BYTES || n > OFF_MAX / ENTRY_BYTES - pfn)
		return read_error(kc, -ERANGE, pfn, pfn, log);
	r = read_entries(kc->fd, out, n, pfn);
	return r < 0 ? read_error(kc, r, pfn, pfn + n - 1, log) : 0;
}

int tierd_kpagecgroup_read_sampled(const struct tierd_kpagecgroup *kc, uint64_t pfn,
				   uint64_t stride, size_t n, uint64_t *out,
				   const struct tierd_logger *log)
{
	uint64_t last;
	int r = 0;

	if (stride == 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%s: sampling stride 0 (expected 1 or more pages)",
				       kc->path);
	if (stride == 1)
		return tierd_kpagecgroup_read(kc, pfn, n, out, log);
	if (n == 0)
		return 0;
	if (n - 1 > (OFF_MAX / ENTRY_BYTES) / stride ||
	    pfn > OFF_MAX / ENTRY_BYTES - (n - 1) * stride)
		return read_error(kc, -ERANGE, pfn, pfn, log);
	last = pfn + (n - 1) * stride;
	for (size_t i = 0; i < n && r == 0; i++)
		r = read_entries(kc->fd, &out[i], 1, pfn + i * stride);
	return r < 0 ? read_error(kc, r, pfn, last, log) : 0;
}

void tierd_kpagecgroup_close(struct tierd_kpagecgroup *kc)
{
	if (kc->fd >= 0)
		close(kc->fd);
	kc->fd = -1;
}
