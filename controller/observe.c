/* Listing, matching and reading the managed cgroups. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe.h"

static int add_conflict(struct tierd_observation *o, const char *path,
			const struct tierd_policy *a, const struct tierd_policy *b)
{
	struct tierd_conflict *c = realloc(o->conflicts, (o->nr_conflicts + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	o->conflicts = c;
	c = &o->conflicts[o->nr_conflicts++];
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->a = a;
	c->b = b;
	return 0;
}

int tierd_observe(const struct tierd_cgroupfs *fs, const struct tierd_cgroup_list *cgroups,
		  struct tierd_cgroup_files *files, const struct tierd_topology *topo, const struct tierd_policy_set *set,
		  const struct tierd_logger *log, struct tierd_observation *out)
{
	const struct tierd_cgroup_list list = *cgroups;
	struct tierd_observation o = { 0 };
	struct tierd_buf buf = { 0 };
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (list.nr) {
		o.obs = calloc(list.nr, sizeof(*o.obs));
		o.cgroups = calloc(list.nr, sizeof(*o.cgroups));
		if (!o.obs || !o.cgroups) {
			r = -ENOMEM;
			goto fail;
		}
	}
	for (size_t i = 0; i < list.nr; i++) {
		const struct tierd_policy *p, *other;
		struct tierd_log_keep keep;

		switch (tierd_policy_pick(set, list.paths[i], &p, &other)) {
		case TIERD_PICK_NONE:
			if (files)
				tierd_cgroup_files_close(&files[i]);
			continue;
		case TIERD_PICK_CONFLICT:
			r = add_conflict(&o, list.paths[i], p, other);
			if (r < 0)
				goto fail;
			continue;
		case TIERD_PICK_ONE:
			break;
		}
		/* Why a cgroup cannot be read is told once, when it starts
		 * (journal.h), with the file and line the reader named. */
		r = tierd_cgroupfs_read(fs, list.paths[i], topo, &o.obs[o.nr], &buf,
					files ? &files[i] : NULL, tierd_log_keep(&keep, log));
		if (r == -ENOMEM)
			goto fail;
		if (r == -ENOENT) {
			tierd_log(log, TIERD_LOG_DEBUG, "cgroup %s went away while being read (%s), skipping",
				  list.paths[i], tierd_log_kept(&keep, r));
			o.nr_vanished++;
			continue;
		}
		if (r < 0) {
			struct tierd_unreadable *u = realloc(o.errors, (o.nr_errors + 1) * sizeof(*u));

			if (!u) {
				r = -ENOMEM;
				goto fail;
			}
			o.errors = u;
			u = &o.errors[o.nr_errors];
			if (asprintf(&u->why, "%s%s", tierd_log_kept(&keep, r),
				     r == -ENOMEDIUM ? " (the memory controller is not enabled for it: add +memory to its parent's cgroup.subtree_control)"
						     : "") < 0)
				u->why = NULL;
			u->path = strdup(list.paths[i]);
			o.nr_errors++;
			if (!u->why || !u->path) {
				r = -ENOMEM;
				goto fail;
			}
			continue;
		}
		o.cgroups[o.nr].policy = p;
		o.nr++;
	}
	for (size_t i = 0; i < o.nr; i++)
		o.cgroups[i].obs = &o.obs[i];
	tierd_buf_free(&buf);
	*out = o;
	return 0;
fail:
	tierd_buf_free(&buf);
	tierd_observation_free(&o);
	return r;
}

void tierd_observation_free(struct tierd_observation *o)
{
	free(o->obs);
	free(o->cgroups);
	free(o->conflicts);
	for (size_t i = 0; i < o->nr_errors; i++) {
		free(o->errors[i].path);
		free(o->errors[i].why);
	}
	free(o->errors);
	memset(o, 0, sizeof(*o));
}
