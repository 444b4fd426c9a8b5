/* The change journal; see journal.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"
#include "../policy/units.h"

static const struct tierd_seen *find_seen(const struct tierd_seen *seen, size_t nr,
					  const char *path)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(seen[mid].path, path);

		if (c == 0)
			return &seen[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_seen(const void *a, const void *b)
{
	return strcmp(((const struct tierd_seen *)a)->path, ((const struct tierd_seen *)b)->path);
}

static int emit(struct tierd_journal_events *out, enum tierd_log_level level, const char *event,
		const char *cgroup, const char *policy, int tier, uint64_t bytes, const char *fmt,
		...) __attribute__((format(printf, 8, 9)));

static int emit(struct tierd_journal_events *out, enum tierd_log_level level, const char *event,
		const char *cgroup, const char *policy, int tier, uint64_t bytes, const char *fmt,
		...)
{
	struct tierd_journal_event *e;
	va_list ap;

	if (out->nr == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		struct tierd_journal_event *items = realloc(out->items, cap * sizeof(*items));

		if (!items)
			return -ENOMEM;
		out->items = items;
		out->cap = cap;
	}
	e = &out->items[out->nr++];
	e->level = level;
	e->event = event;
	snprintf(e->cgroup, sizeof(e->cgroup), "%s", cgroup);
	snprintf(e->policy, sizeof(e->policy), "%s", policy ? policy : "");
	e->tier = tier;
	e->bytes = bytes;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	return 0;
}

/* "; plan: demote 320.0M to tiers 3, 2" for the budget demotions of cgroup
 * c from tier t; false when there are none. */
static bool describe_budget_plan(const struct tierd_report *rep, size_t c, size_t t, char *buf,
				 size_t size)
{
	char bytes[24], tiers[64] = "";
	uint64_t total = 0;
	size_t n = 0;

	for (size_t i = 0; i < rep->nr_actions; i++) {
		const struct tierd_action *a = &rep->actions[i];

		if (a->cgroup != c || a->from_tier != t || a->reason != TIERD_REASON_OVER_TIER_MAX)
			continue;
		total += a->bytes;
		snprintf(tiers + strlen(tiers), sizeof(tiers) - strlen(tiers), "%s%zu", n++ ? ", " : "",
			 a->to_tier);
	}
	if (!n)
		return false;
	tierd_format_bytes(total, bytes, sizeof(bytes));
	snprintf(buf, size, "; plan: demote %s to tier%s %s%s", bytes, n > 1 ? "s" : "", tiers,
		 rep->dry_run ? " (dry run)" : "");
	return true;
}

static int budget_changes(const struct tierd_report *rep, size_t c, uint32_t was_over,
			  struct tierd_journal_events *out)
{
	const struct tierd_report_cgroup *cg = &rep->cgroups[c];
	int r = 0;

	for (size_t t = 0; t < rep->topo.nr_tiers && r == 0; t++) {
		const struct tierd_tier_standing *ts = &cg->standing.tiers[t];
		bool over = ts->over_bytes > 0, was = was_over & (1u << t);
		char used[24], max[24], over_s[24], plan[128] = "";

		if (over == was)
			continue;
		tierd_format_bytes(ts->anon_bytes + ts->file_bytes, used, sizeof(used));
		tierd_format_bytes(ts->max_bytes, max, sizeof(max));
		if (!over) {
			r = emit(out, TIERD_LOG_INFO, "within-budget", cg->path, cg->policy, (int)t, 0,
				 "cgroup %s is back within its tier %zu budget: holds %s, max %s (policy %s)",
				 cg->path, t, used, max, cg->policy);
			continue;
		}
		tierd_format_bytes(ts->over_bytes, over_s, sizeof(over_s));
		if (!describe_budget_plan(rep, c, t, plan, sizeof(plan)) && t + 1 < rep->topo.nr_tiers)
			snprintf(plan, sizeof(plan), "; nothing planned: no migration budget or room below");
		r = emit(out, TIERD_LOG_WARNING, "over-budget", cg->path, cg->policy, (int)t,
			 ts->over_bytes,
			 "cgroup %s is over its tier %zu budget by %s: holds %s, max %s (policy %s)%s",
			 cg->path, t, over_s, used, max, cg->policy, plan);
	}
	return r;
}

static int managed_changes(const struct tierd_journal *j, const struct tierd_report *rep,
			   struct tierd_seen *next, size_t *n, struct tierd_journal_events *out)
{
	int r = 0;

	for (size_t c = 0; c < rep->nr_cgroups && r == 0; c++) {
		const struct tierd_report_cgroup *cg = &rep->cgroups[c];
		const struct tierd_seen *old = find_seen(j->seen, j->nr, cg->path);
		struct tierd_seen *s = &next[(*n)++];

		snprintf(s->path, sizeof(s->path), "%s", cg->path);
		snprintf(s->policy, sizeof(s->policy), "%s", cg->policy);
		for (size_t t = 0; t < rep->topo.nr_tiers; t++)
			if (cg->standing.tiers[t].over_bytes)
				s->over_tiers |= 1u << t;
		if (old && old->unreadable)
			r = emit(out, TIERD_LOG_INFO, "cgroup-readable", cg->path, cg->policy, -1, 0,
				 "cgroup %s can be read again", cg->path);
		if (r == 0 && (!old || old->conflict || strcmp(old->policy, cg->policy) != 0))
			r = emit(out, TIERD_LOG_INFO, "cgroup-managed", cg->path, cg->policy, -1, 0,
				 "cgroup %s is managed by policy %s (strategy %s, %s)", cg->path,
				 cg->policy, tierd_strategy_name(cg->strategy),
				 cg->sharing == TIERD_SHARING_POOL ? "pool" : "island");
		if (r == 0)
			r = budget_changes(rep, c, old && !old->conflict ? old->over_tiers : 0, out);
	}
	return r;
}

static int conflict_changes(const struct tierd_journal *j, const struct tierd_observation *obs,
			    struct tierd_seen *next, size_t *n, struct tierd_journal_events *out)
{
	int r = 0;

	for (size_t i = 0; i < obs->nr_conflicts && r == 0; i++) {
		const struct tierd_conflict *cf = &obs->conflicts[i];
		const struct tierd_seen *old = find_seen(j->seen, j->nr, cf->path);
		struct tierd_seen *s = &next[(*n)++];

		snprintf(s->path, sizeof(s->path), "%s", cf->path);
		s->conflict = true;
		if (!old || !old->conflict)
			r = emit(out, TIERD_LOG_ERR, "policy-conflict", cf->path, NULL, -1, 0,
				 "cgroup %s left unmanaged: policies \"%s\" (%s) and \"%s\" (%s) both match it with priority %d; give one a higher priority",
				 cf->path, cf->a->name, cf->a->file, cf->b->name, cf->b->file,
				 cf->a->priority);
	}
	return r;
}

/* A cgroup unreadable this tick keeps what was said of it: no
 * dropped/managed pair for one bad read. */
static int unreadable_changes(const struct tierd_journal *j, const struct tierd_observation *obs,
			      struct tierd_seen *next, size_t *n, struct tierd_journal_events *out)
{
	int r = 0;

	for (size_t i = 0; i < obs->nr_errors && r == 0; i++) {
		const struct tierd_unreadable *u = &obs->errors[i];
		const struct tierd_seen *old = find_seen(j->seen, j->nr, u->path);
		struct tierd_seen *s = &next[(*n)++];

		if (old) {
			*s = *old;
		} else {
			memset(s, 0, sizeof(*s));
			snprintf(s->path, sizeof(s->path), "%s", u->path);
		}
		if (!s->unreadable)
			r = emit(out, TIERD_LOG_WARNING, "cgroup-unreadable", u->path, NULL, -1, 0,
				 "cgroup %s skipped until its files can be read: %s", u->path, u->why);
		s->unreadable = true;
	}
	return r;
}

int tierd_journal_update(struct tierd_journal *j, const struct tierd_report *rep,
			 const struct tierd_observation *obs, struct tierd_journal_events *out)
{
	size_t nr = rep->nr_cgroups + obs->nr_conflicts + obs->nr_errors;
	struct tierd_seen *next = calloc(nr + 1, sizeof(*next));
	size_t n = 0;
	int r;

	if (!next)
		return -ENOMEM;
	r = managed_changes(j, rep, next, &n, out);
	if (r == 0)
		r = conflict_changes(j, obs, next, &n, out);
	if (r == 0)
		r = unreadable_changes(j, obs, next, &n, out);
	qsort(next, n, sizeof(*next), cmp_seen);
	for (size_t i = 0; i < j->nr && r == 0; i++) {
		if (j->seen[i].conflict || find_seen(next, n, j->seen[i].path))
			continue;
		r = emit(out, TIERD_LOG_INFO, "cgroup-dropped", j->seen[i].path, j->seen[i].policy,
			 -1, 0, "cgroup %s is no longer managed: it went away or no policy matches it",
			 j->seen[i].path);
	}
	if (r < 0) {
		free(next);
		return r;
	}
	free(j->seen);
	j->seen = next;
	j->nr = n;
	return 0;
}

void tierd_journal_forget_budgets(struct tierd_journal *j)
{
	for (size_t i = 0; i < j->nr; i++)
		j->seen[i].over_tiers = 0;
}

void tierd_journal_events_free(struct tierd_journal_events *ev)
{
	free(ev->items);
	*ev = (struct tierd_journal_events){ 0 };
}

void tierd_journal_free(struct tierd_journal *j)
{
	free(j->seen);
	*j = (struct tierd_journal){ 0 };
}
