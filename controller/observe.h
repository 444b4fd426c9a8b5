/* One tick's observation: the topology's free memory, every cgroup a policy
 * matches with its memory read, and the cgroups left out (policy conflicts,
 * cgroups gone mid-read, unreadable files). The daemon and `tierctl status
 * --live` share it. */
#ifndef TIERD_OBSERVE_H
#define TIERD_OBSERVE_H

#include <stddef.h>

#include "cgroupfs.h"
#include "log.h"
#include "../policy/engine.h"
#include "../policy/policy.h"

struct tierd_conflict {
	char path[TIERD_CGROUP_PATH_MAX];
	const struct tierd_policy *a, *b;
};

/* A managed cgroup whose files could not be used this tick. */
struct tierd_unreadable {
	char *path;
	char *why;   /* "file:line: expected ..." or "file: strerror" */
};

struct tierd_observation {
	size_t nr;
	struct tierd_cgroup_obs *obs;          /* nr entries, sorted by path */
	struct tierd_engine_cgroup *cgroups;   /* nr entries: obs[i] and its policy */
	size_t nr_conflicts;
	struct tierd_conflict *conflicts;
	size_t nr_vanished;                    /* matched, gone before it was read */
	size_t nr_errors;                      /* matched, a file could not be used */
	struct tierd_unreadable *errors;       /* nr_errors: kept, not dropped */
};

/* Picks the policy of each listed cgroup and reads those that have one,
 * through files[i] for cgroup i when files is not NULL (an unmanaged one's
 * are closed).
 * Vanished cgroups are logged at debug and skipped; unreadable ones are
 * skipped and listed in errors, for the caller to log when that changes.
 * Returns 0 or -ENOMEM. */
int tierd_observe(const struct tierd_cgroupfs *fs, const struct tierd_cgroup_list *cgroups,
		  struct tierd_cgroup_files *files, const struct tierd_topology *topo, const struct tierd_policy_set *set,
		  const struct tierd_logger *log, struct tierd_observation *out);
void tierd_observation_free(struct tierd_observation *o);

#endif
