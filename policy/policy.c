/* The policy model: matching cgroups, picking the winner, defaults. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "util.h"

const char *tierd_strategy_name(enum tierd_strategy s)
{
	static const char *const names[] = {
#define TIERD_X(id, name) [id] = name,
		TIERD_STRATEGIES(TIERD_X)
#undef TIERD_X
	};

	return (unsigned)s < TIERD_STRATEGY_NR ? names[s] : "?";
}

void tierd_policy_free(struct tierd_policy *p)
{
	free(p->strategy_params_json);
	p->strategy_params_json = NULL;
	free(p->strategy_params);
	p->strategy_params = NULL;
}

void tierd_policy_set_free(struct tierd_policy_set *set)
{
	for (size_t i = 0; i < set->nr; i++)
		tierd_policy_free(&set->policies[i]);
	free(set->policies);
	set->policies = NULL;
	set->nr = 0;
}

void tierd_policy_set_move(struct tierd_policy_set *dst, struct tierd_policy_set *src)
{
	tierd_policy_set_free(dst);
	*dst = *src;
	src->policies = NULL;
	src->nr = 0;
}

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool match_one(const struct tierd_match *m, const char *cgroup_path)
{
	switch (m->kind) {
	case TIERD_MATCH_PATH:
		return strcmp(m->pattern, cgroup_path) == 0;
	case TIERD_MATCH_GLOB:
		return fnmatch(m->pattern, cgroup_path, FNM_PATHNAME) == 0;
	case TIERD_MATCH_UNIT:
		return strcmp(m->pattern, last_component(cgroup_path)) == 0;
	}
	return false;
}

bool tierd_policy_matches(const struct tierd_policy *p, const char *cgroup_path)
{
	for (size_t i = 0; i < p->nr_matches; i++)
		if (match_one(&p->matches[i], cgroup_path))
			return true;
	return false;
}

enum tierd_pick tierd_policy_pick(const struct tierd_policy_set *set, const char *cgroup_path,
				  const struct tierd_policy **ret_policy,
				  const struct tierd_policy **ret_other)
{
	const struct tierd_policy *best = NULL, *tie = NULL;

	for (size_t i = 0; i < set->nr; i++) {
		const struct tierd_policy *p = &set->policies[i];

		if (!tierd_policy_matches(p, cgroup_path))
			continue;
		if (!best || p->priority > best->priority) {
			best = p;
			tie = NULL;
		} else if (p->priority == best->priority && !tie) {
			tie = p;
		}
	}
	*ret_policy = best;
	*ret_other = tie;
	if (!best)
		return TIERD_PICK_NONE;
	return tie ? TIERD_PICK_CONFLICT : TIERD_PICK_ONE;
}

void tierd_config_defaults(struct tierd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->tick_usec = TIERD_DEFAULT_TICK_USEC;
	strcpy(cfg->metrics_file, TIERD_DEFAULT_METRICS_FILE);
	strcpy(cfg->state_file, TIERD_DEFAULT_STATE_FILE);
	strcpy(cfg->policy_dir, TIERD_DEFAULT_POLICY_DIR);
	cfg->log_level = TIERD_LOG_INFO;
	cfg->migration_budget.bytes = TIERD_DEFAULT_MIGRATION_BYTES;
	cfg->migration_budget.period_usec = TIERD_DEFAULT_MIGRATION_PERIOD_USEC;
	cfg->damon = true;
	cfg->bpf = true;
	cfg->manage_demotion = true;
	cfg->numa_balancing = TIERD_NUMAB_LEAVE;
	cfg->stop_damon_stat = true;
}

int tierd_log_level_parse(const char *s, enum tierd_log_level *ret)
{
	static const char *const names[] = {
		[TIERD_LOG_ERR] = "err",       [TIERD_LOG_WARNING] = "warning",
		[TIERD_LOG_NOTICE] = "notice", [TIERD_LOG_INFO] = "info",
		[TIERD_LOG_DEBUG] = "debug",
	};

	for (int l = TIERD_LOG_ERR; l <= TIERD_LOG_DEBUG; l++) {
		if (strcmp(s, names[l]) == 0) {
			*ret = (enum tierd_log_level)l;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const numab_names[] = {
	[TIERD_NUMAB_LEAVE] = "leave",
	[TIERD_NUMAB_OFF] = "off",
	[TIERD_NUMAB_TIERING] = "tiering",
};

int tierd_numa_balancing_parse(const char *s, enum tierd_numa_balancing *ret)
{
	for (size_t i = 0; i < TIERD_ARRAY_SIZE(numab_names); i++)
		if (strcmp(s, numab_names[i]) == 0) {
			*ret = (enum tierd_numa_balancing)i;
			return 0;
		}
	return -EINVAL;
}

const char *tierd_numa_balancing_name(enum tierd_numa_balancing n)
{
	return (size_t)n < TIERD_ARRAY_SIZE(numab_names) ? numab_names[n] : NULL;
}
