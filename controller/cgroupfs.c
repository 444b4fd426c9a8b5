/* cgroup v2 discovery, listing and per-cgroup reads. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libcgroup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_util.h"
#include "cgroupfs.h"
#include "kparse.h"
#include "../policy/policy.h"
#include "../policy/util.h"

static bool is_live(const char *root)
{
	return !root || !*root || strcmp(root, "/") == 0;
}

/* On the live system libcgroup says where the memory controller is mounted;
 * it must agree with the cgroup2 mount, or memory is on a v1 hierarchy.
 * libcgroup cannot be pointed at a fixture tree, so --root skips this. */
static int check_with_libcgroup(const char *cgroup2_path, const struct tierd_logger *log)
{
	char *mnt = NULL;
	int r;

	if (cgroup_init() != 0)
		return 0; /* libcgroup found no mounts it knows: mountinfo decides */
	if (cgroup_get_subsys_mount_point("memory", &mnt) != 0 || !mnt)
		return 0;
	r = strcmp(mnt, cgroup2_path) == 0 ? 0 : -EMEDIUMTYPE;
	if (r < 0)
		tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				"the memory controller is mounted at %s, not on the cgroup v2 hierarchy at %s: tierd needs cgroup v2 (boot with systemd.unified_cgroup_hierarchy=1)",
				mnt, cgroup2_path);
	free(mnt);
	return r;
}

static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

int tierd_cgroupfs_open(const char *root, struct tierd_cgroupfs *fs,
			const struct tierd_logger *log)
{
	char path[TIERD_FILE_PATH_MAX];
	struct tierd_buf b = { 0 };
	struct tierd_mounts mounts;
	int line = 0, r;

	fs->root_fd = -1;
	r = tierd_root_path(root, "/proc/self/mountinfo", path, sizeof(path));
	if (r == 0)
		r = tierd_read_at(AT_FDCWD, path, &b);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
		goto out;
	}
	r = tierd_kparse_mountinfo(b.data, b.len, &mounts, &line);
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s:%d: malformed mountinfo line", path,
				line);
		goto out;
	}
	if (mounts.memory_v1) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -EMEDIUMTYPE,
				    "the memory controller is on a cgroup v1 hierarchy (legacy or hybrid mode): tierd needs the unified cgroup v2 hierarchy; boot with systemd.unified_cgroup_hierarchy=1");
		goto out;
	}
	if (!mounts.has_cgroup2) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOENT,
				    "no cgroup2 file system is mounted (%s): tierd needs cgroup v2",
				    path);
		goto out;
	}
	if (is_live(root)) {
		r = check_with_libcgroup(mounts.cgroup2_path, log);
		if (r < 0)
			goto out;
	}
	snprintf(fs->mount, sizeof(fs->mount), "%s", mounts.cgroup2_path);
	r = tierd_root_path(root, mounts.cgroup2_path, path, sizeof(path));
	if (r < 0) {
		tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s under --root", mounts.cgroup2_path);
		goto out;
	}
	fs->root_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->root_fd < 0) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -errno, "%s", path);
		goto out;
	}
	r = tierd_read_at(fs->root_fd, "cgroup.controllers", &b);
	if (r < 0 || !has_word(b.data, "memory")) {
		r = tierd_log_errno(log, TIERD_LOG_DEBUG, -ENOMEDIUM,
				    "%s/cgroup.controllers does not list \"memory\": the cgroup v2 hierarchy has no memory controller",
				    path);
		tierd_cgroupfs_close(fs);
		goto out;
	}
out:
	tierd_buf_free(&b);
	return r;
}

void tierd_cgroupfs_close(struct tierd_cgroupfs *fs)
{
	if (fs->root_fd >= 0)
		close(fs->root_fd);
	fs->root_fd = -1;
}

static int list_push(struct tierd_cgroup_list *list, size_t *cap, const char *path)
{
	if (list->nr == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		char **p = realloc(list->paths, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		list->paths = p;
		*cap = n;
	}
	list->paths[list->nr] = strdup(path);
	if (!list->paths[list->nr])
		return -ENOMEM;
	list->nr++;
	return 0;
}

static bool is_dir(int fd_dir, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(fd_dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

struct walk {
	struct tierd_cgroup_list *list;
	size_t cap;
	int inotify_fd;          /* -1: no watches */
	uint32_t mask;
	bool watched;            /* every directory got its watch */
};

/* Watches the directory open as fd, through /proc/self/fd: the walk holds
 * no absolute path below --root. */
static void watch_dir(struct walk *w, int fd)
{
	char proc[64];

	if (w->inotify_fd < 0)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (inotify_add_watch(w->inotify_fd, proc, w->mask) < 0)
		w->watched = false;
}

/* Walks fd_dir (which it closes), cgroup path prefix. */
static int walk(int fd_dir, const char *prefix, int depth, struct walk *w)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	watch_dir(w, fd_dir);
	d = fdopendir(fd_dir);
	if (!d) {
		r = -errno;
		close(fd_dir);
		return r;
	}
	while ((de = readdir(d))) {
		char path[TIERD_CGROUP_PATH_MAX];
		int fd, n;

		if (de->d_name[0] == '.' || !is_dir(fd_dir, de))
			continue;
		n = snprintf(path, sizeof(path), "%s/%s", prefix, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue; /* deeper than any path tierd keeps */
		r = list_push(w->list, &w->cap, path);
		if (r < 0)
			break;
		if (depth + 1 >= TIERD_CGROUP_MAX_DEPTH)
			continue;
		fd = openat(fd_dir, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENODEV)
				continue; /* removed since readdir */
			r = -errno;
			break;
		}
		r = walk(fd, path, depth + 1, w);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tierd_cgroupfs_list_watched(const struct tierd_cgroupfs *fs, int inotify_fd, uint32_t mask,
				struct tierd_cgroup_list *list, bool *ret_watched)
{
	struct walk w = { .list = list, .inotify_fd = inotify_fd, .mask = mask,
			  .watched = inotify_fd >= 0 };
	int fd, r;

	memset(list, 0, sizeof(*list));
	fd = openat(fs->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = walk(fd, "", 0, &w);
	if (r < 0) {
		tierd_cgroup_list_free(list);
		return r;
	}
	qsort(list->paths, list->nr, sizeof(*list->paths), cmp_path);
	if (ret_watched)
		*ret_watched = w.watched;
	return 0;
}

int tierd_cgroupfs_list(const struct tierd_cgroupfs *fs, struct tierd_cgroup_list *list)
{
	return tierd_cgroupfs_list_watched(fs, -1, 0, list, NULL);
}

void tierd_cgroup_list_free(struct tierd_cgroup_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		free(list->paths[i]);
	free(list->paths);
	memset(list, 0, sizeof(*list));
}

static int gone(int r)
{
	return r == -ENOENT || r == -ENODEV ? -ENOENT : r;
}

/* Why reading file `name` of cgroup `path` (directory inode id) failed:
 * -ENOENT when the cgroup itself went away (skip it quietly); -ENOMEDIUM
 * when the directory is there but the file is not, which means the memory
 * controller is not enabled for it (the file's own error is told); else
 * r. */
static int read_failed(const struct tierd_cgroupfs *fs, const char *path, uint64_t id,
		       const char *name, int r, const struct tierd_logger *log)
{
	struct stat st;

	if (gone(r) != -ENOENT)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s/%s", path, name);
	if (fstatat(fs->root_fd, path[0] == '/' ? path + 1 : path, &st, 0) < 0 ||
	    (uint64_t)st.st_ino != id)
		return gone(tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path));
	tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s/%s", path, name);
	return -ENOMEDIUM;
}

enum cgroup_file {
	FILE_NUMA_STAT, FILE_CURRENT, FILE_STAT, FILE_PRESSURE,
};

static const char *const file_names[TIERD_CGROUP_NR_FILES] = {
	[FILE_NUMA_STAT] = "memory.numa_stat", [FILE_CURRENT] = "memory.current",
	[FILE_STAT] = "memory.stat", [FILE_PRESSURE] = "memory.pressure",
};

void tierd_cgroup_files_init(struct tierd_cgroup_files *f, struct tierd_fd_pool *pool)
{
	f->dir_fd = -1;
	f->id = 0;
	for (size_t k = 0; k < TIERD_CGROUP_NR_FILES; k++)
		f->fd[k] = -1;
	f->pool = pool;
}

static void release(struct tierd_cgroup_files *f, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	f->pool->held--;
}

void tierd_cgroup_files_close(struct tierd_cgroup_files *f)
{
	release(f, &f->dir_fd);
	for (size_t k = 0; k < TIERD_CGROUP_NR_FILES; k++)
		release(f, &f->fd[k]);
}

static bool pool_has_room(const struct tierd_cgroup_files *f)
{
	return f && f->pool->held < f->pool->max;
}

/* File k of the cgroup open as dir_fd into b, through files when given. */
static int read_file(int dir_fd, struct tierd_cgroup_files *files, enum cgroup_file k,
		     struct tierd_buf *b)
{
	int fd;

	if (files && files->fd[k] >= 0)
		return tierd_pread_cgroup_file(files->fd[k], b);
	if (!pool_has_room(files))
		return tierd_read_cgroup_file(dir_fd, file_names[k], b);
	fd = openat(dir_fd, file_names[k], O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	files->fd[k] = fd;
	files->pool->held++;
	return tierd_pread_cgroup_file(fd, b);
}

static int read_current(const struct tierd_cgroupfs *fs, int fd, struct tierd_cgroup_files *files,
			struct tierd_buf *b, uint64_t *ret, const char *path, uint64_t id,
			const struct tierd_logger *log)
{
	int r = read_file(fd, files, FILE_CURRENT, b);

	if (r < 0)
		return read_failed(fs, path, id, file_names[FILE_CURRENT], r, log);
	r = tierd_kparse_limit(b->data, b->len, ret);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s/%s:1: expected a number of bytes", path,
				       file_names[FILE_CURRENT]);
	return 0;
}

/* The cgroup's directory: held in files, or opened into *own. */
static int open_dir(const struct tierd_cgroupfs *fs, const char *path,
		    struct tierd_cgroup_files *files, int *own, uint64_t *id)
{
	struct stat st;
	int fd;

	if (files && files->dir_fd >= 0) {
		*id = files->id;
		return files->dir_fd;
	}
	fd = openat(fs->root_fd, path[0] == '/' ? path + 1 : path,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*id = (uint64_t)st.st_ino;
	if (pool_has_room(files)) {
		files->dir_fd = fd;
		files->id = *id;
		files->pool->held++;
	} else {
		*own = fd;
	}
	return fd;
}

static int read_cgroup(const struct tierd_cgroupfs *fs, const char *path,
		       const struct tierd_topology *topo, struct tierd_cgroup_obs *obs,
		       struct tierd_buf *buf, struct tierd_cgroup_files *files,
		       const struct tierd_logger *log)
{
	_cleanup_close_ int own = -1;
	int fd, line = 0, r;

	memset(obs, 0, sizeof(*obs));
	if (snprintf(obs->path, sizeof(obs->path), "%s", path) >= (int)sizeof(obs->path))
		return -ENAMETOOLONG;
	fd = open_dir(fs, path, files, &own, &obs->id);
	if (fd < 0)
		return gone(tierd_log_errno(log, TIERD_LOG_DEBUG, fd, "%s", path));

	r = read_file(fd, files, FILE_NUMA_STAT, buf);
	if (r < 0)
		return read_failed(fs, path, obs->id, "memory.numa_stat", r, log);
	r = tierd_kparse_numa_stat(buf->data, buf->len, topo, obs, &line);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r == -ENODATA ? -EINVAL : r,
				       "%s/memory.numa_stat:%d: expected \"key N<node>=<bytes> ...\"",
				       path, line);
	r = read_current(fs, fd, files, buf, &obs->current_bytes, path, obs->id, log);
	if (r < 0)
		return r;
	r = read_file(fd, files, FILE_STAT, buf);
	if (r < 0)
		return read_failed(fs, path, obs->id, "memory.stat", r, log);
	r = tierd_kparse_memstat(buf->data, buf->len, &obs->stat, &line);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
				       "%s/memory.stat:%d: expected \"key value\"", path, line);
	/* PSI may be compiled out or disabled (psi=0): optional, and its
	 * absence not told every tick. */
	r = read_file(fd, files, FILE_PRESSURE, buf);
	if (r == 0) {
		r = tierd_kparse_psi(buf->data, buf->len, &obs->pressure, &line);
		if (r < 0 && r != -ENODATA)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, r,
					       "%s/memory.pressure:%d: expected \"some|full avg10=.. avg60=.. avg300=.. total=..\"",
					       path, line);
		obs->has_pressure = r == 0;
	} else if (read_failed(fs, path, obs->id, "memory.pressure", r, NULL) == -ENOENT) {
		return -ENOENT;
	}
	return 0;
}

int tierd_cgroupfs_read(const struct tierd_cgroupfs *fs, const char *path,
			const struct tierd_topology *topo, struct tierd_cgroup_obs *obs,
			struct tierd_buf *buf, struct tierd_cgroup_files *files,
			const struct tierd_logger *log)
{
	bool held = files && files->dir_fd >= 0;
	/* A failure with files held is read again afresh below: only that
	 * second attempt is told. */
	int r = read_cgroup(fs, path, topo, obs, buf, files, held ? NULL : log);

	/* Files held from an earlier tick may be a removed cgroup's (ENODEV):
	 * read once more with the path's files of now. */
	if (r < 0 && held) {
		tierd_cgroup_files_close(files);
		r = read_cgroup(fs, path, topo, obs, buf, files, log);
	}
	return r;
}
