/* Migration accounting and backend state names. */
#include <errno.h>
#include <string.h>

#include "migstats.h"

static const char *const path_names[TIERD_PATH_NR] = {
#define TIERD_X(id, name) [id] = name,
	TIERD_MIGRATION_PATHS(TIERD_X)
#undef TIERD_X
};

static const char *const mode_names[] = {
	[TIERD_DAMON_OFF] = "off",
	[TIERD_DAMON_ABSENT] = "absent",
	[TIERD_DAMON_DEGRADED] = "degraded",
	[TIERD_DAMON_FAILED] = "failed",
	[TIERD_DAMON_RUNNING] = "running",
};

#define NR_MODES (sizeof(mode_names) / sizeof(mode_names[0]))

const char *tierd_migration_path_name(enum tierd_migration_path p)
{
	return (unsigned)p < TIERD_PATH_NR ? path_names[p] : NULL;
}

const char *tierd_damon_mode_name(enum tierd_damon_mode m)
{
	return (unsigned)m < NR_MODES ? mode_names[m] : NULL;
}

int tierd_migration_path_parse(const char *name, enum tierd_migration_path *ret)
{
	for (unsigned i = 0; i < TIERD_PATH_NR; i++)
		if (strcmp(name, path_names[i]) == 0) {
			*ret = (enum tierd_migration_path)i;
			return 0;
		}
	return -EINVAL;
}

int tierd_damon_mode_parse(const char *name, enum tierd_damon_mode *ret)
{
	for (unsigned i = 0; i < NR_MODES; i++)
		if (strcmp(name, mode_names[i]) == 0) {
			*ret = (enum tierd_damon_mode)i;
			return 0;
		}
	return -EINVAL;
}

void tierd_migration_account(struct tierd_migration_stats *s, enum tierd_migration_path p,
			     uint64_t tried, uint64_t succeeded, size_t from_tier, size_t to_tier)
{
	struct tierd_path_stats *ps = &s->path[p];

	if (succeeded > tried)
		tried = succeeded; /* the kernel moved more than asked: count what it did */
	ps->calls++;
	ps->tried_bytes += tried;
	ps->succeeded_bytes += succeeded;
	ps->failed_bytes += tried - succeeded;
	if (from_tier < TIERD_MAX_TIERS && to_tier < TIERD_MAX_TIERS)
		s->matrix[from_tier][to_tier] += succeeded;
}

void tierd_migration_stats_add(struct tierd_migration_stats *dst,
			       const struct tierd_migration_stats *src)
{
	for (size_t p = 0; p < TIERD_PATH_NR; p++) {
		dst->path[p].calls += src->path[p].calls;
		dst->path[p].tried_bytes += src->path[p].tried_bytes;
		dst->path[p].succeeded_bytes += src->path[p].succeeded_bytes;
		dst->path[p].failed_bytes += src->path[p].failed_bytes;
	}
	for (size_t f = 0; f < TIERD_MAX_TIERS; f++)
		for (size_t t = 0; t < TIERD_MAX_TIERS; t++)
			dst->matrix[f][t] += src->matrix[f][t];
}
