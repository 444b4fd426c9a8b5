/* The change journal: what the daemon says about each managed cgroup is
 * what changed since the last tick (managed by a policy, over or back
 * within a tier's budget, in conflict, unreadable, readable again, no
 * longer managed), not the same lines every tick. Pure: it compares the
 * tick's report and observation with what it remembers and returns the
 * events; the daemon logs them. */
#ifndef TIERD_JOURNAL_H
#define TIERD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "observe.h"
#include "../report/report.h"

/* Per cgroup, what the last tick said of it. */
struct tierd_seen {
	char path[TIERD_CGROUP_PATH_MAX];
	char policy[TIERD_NAME_MAX];
	uint32_t over_tiers;       /* bit t: over its max on tier t */
	bool conflict;
	bool unreadable;           /* its files could not be used last tick */
};

struct tierd_journal {
	size_t nr;
	struct tierd_seen *seen;   /* sorted by path */
};

/* One line for the log, with its journald fields. */
#define TIERD_JOURNAL_MSG_MAX 1024

struct tierd_journal_event {
	enum tierd_log_level level;
	const char *event;                 /* "cgroup-managed", "over-budget", ... */
	char cgroup[TIERD_CGROUP_PATH_MAX];
	char policy[TIERD_NAME_MAX];       /* "" when none */
	int tier;                          /* -1 when none */
	uint64_t bytes;                    /* with a tier */
	char message[TIERD_JOURNAL_MSG_MAX];
};

struct tierd_journal_events {
	size_t nr, cap;
	struct tierd_journal_event *items;
};

/* Compares this tick with the last, appends what changed to out (in the
 * order: managed cgroups, conflicts, unreadable cgroups, dropped ones) and
 * remembers this tick. Returns 0 or -ENOMEM (then nothing is remembered). */
int tierd_journal_update(struct tierd_journal *j, const struct tierd_report *rep,
			 const struct tierd_observation *obs, struct tierd_journal_events *out);
/* Forgets which budgets were exceeded, so the next tick says it again (a
 * reload may have changed them). */
void tierd_journal_forget_budgets(struct tierd_journal *j);
void tierd_journal_events_free(struct tierd_journal_events *ev);
void tierd_journal_free(struct tierd_journal *j);

#endif
