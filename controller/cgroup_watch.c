/* The cgroup list, walked again on inotify's word; see cgroup_watch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cgroup_watch.h"

/* A cgroup directory coming, going or moving, in a watched directory or of
 * it. Files written (memory.*, cgroup.events) do not change the list. */
#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | \
		    IN_MOVE_SELF | IN_ONLYDIR)
/* Room for many events per read(); the queue is drained to empty. */
#define EVENT_BUF_BYTES 16384

void tierd_cgroup_watch_init(struct tierd_cgroup_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

static bool changes_list(const struct inotify_event *ev)
{
	if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF))
		return true;
	return (ev->mask & IN_ISDIR) &&
	       (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO));
}

/* Reads every queued event; false when one of them changes the list (or
 * the queue cannot be read). */
static bool drain(struct tierd_cgroup_watch *w)
{
	char buf[EVENT_BUF_BYTES] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool unchanged = true;

	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN && unchanged;
		if (n == 0)
			return false;
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);

			if (changes_list(ev))
				unchanged = false;
			off += (ssize_t)(sizeof(*ev) + ev->len);
		}
	}
}

static void close_files(struct tierd_cgroup_watch *w)
{
	for (size_t i = 0; w->files && i < w->list.nr; i++)
		tierd_cgroup_files_close(&w->files[i]);
	free(w->files);
	w->files = NULL;
}

int tierd_cgroup_watch_list(struct tierd_cgroup_watch *w, const struct tierd_cgroupfs *fs,
			    const struct tierd_cgroup_list **ret)
{
	struct tierd_cgroup_files *files;
	struct tierd_cgroup_list list;
	int r;

	if (w->current && w->fd >= 0 && drain(w)) {
		*ret = &w->list;
		return 0;
	}
	/* A fresh instance: the old watches go with the old one, and a watch is
	 * in place before its directory is read, so nothing made during the
	 * walk is missed. */
	if (w->fd >= 0)
		close(w->fd);
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->current = false;
	r = tierd_cgroupfs_list_watched(fs, w->fd, WATCH_MASK, &list, &w->watching);
	w->walks++;
	if (r < 0)
		return r;
	files = calloc(list.nr + 1, sizeof(*files));
	if (!files) {
		tierd_cgroup_list_free(&list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list.nr; i++)
		tierd_cgroup_files_init(&files[i], &w->pool);
	close_files(w);
	tierd_cgroup_list_free(&w->list);
	w->list = list;
	w->files = files;
	w->current = w->fd >= 0 && w->watching;
	*ret = &w->list;
	return 0;
}

void tierd_cgroup_watch_free(struct tierd_cgroup_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	close_files(w);
	tierd_cgroup_list_free(&w->list);
	tierd_cgroup_watch_init(w);
}
