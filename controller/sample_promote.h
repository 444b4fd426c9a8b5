/* Promotions of sampled pages with move_pages(2): the engine's MIGRATE
 * actions on token addresses (sample_pages.h) become batched move_pages
 * calls, one per (cgroup, process, target node), to the node of the target
 * tier with the most free memory (Mole §4.5.2, targeted promotion: the tier
 * the engine picked). Pages that failed for a reason that may pass (busy,
 * target node full) wait in a retry queue and go again with the next
 * tick's promotions, up to TIERD_PROMOTE_ATTEMPTS tries (Mole §4.5.2:
 * "defers the current attempt and retries it"), unless the cgroup has
 * since reached its max on the target tier; pages of a process gone or
 * unmapped are dropped. Every page is accounted on the move_pages path,
 * by target tier, and per cgroup for the engine's feedback. */
#ifndef TIERD_SAMPLE_PROMOTE_H
#define TIERD_SAMPLE_PROMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "move_pages.h"
#include "sample_pages.h"
#include "../report/bpfstats.h"
#include "../policy/engine.h"
#include "../report/migstats.h"

/* Tries a page gets, the first included: a busy page is usually free a
 * tick later, a full node after the next demotions; after three ticks the
 * engine's fresh samples decide again. */
#define TIERD_PROMOTE_ATTEMPTS 3
/* Pages waiting for a retry at most: one move_pages batch. */
#define TIERD_PROMOTE_RETRY_MAX TIERD_MOVE_PAGES_BATCH

struct tierd_promote_retry {
	uint64_t token;
	uint64_t cgroup_id;
	uint32_t to_tier;
	uint32_t from_tier;
	uint32_t attempts;          /* tries made */
};

/* What a cgroup's sampled pages did, for the next tick's feedback. */
struct tierd_promote_feedback {
	uint64_t cgroup_id;
	uint64_t promoted_bytes;
	uint64_t failed_bytes;
};

struct tierd_sample_promoter {
	const struct tierd_move_pages_ops *ops;
	void *ops_data;
	struct tierd_sample_pages *pages;
	size_t nr_retry;
	struct tierd_promote_retry *retry; /* TIERD_PROMOTE_RETRY_MAX */
	size_t nr_feedback;
	struct tierd_promote_feedback *feedback; /* of the last run */
	uint64_t stale;             /* pages of forgotten tokens: not moved */
	uint64_t at_max;            /* retries dropped: the cgroup reached its max */
};

/* 0 or -ENOMEM. */
int tierd_sample_promoter_init(struct tierd_sample_promoter *p, const struct tierd_move_pages_ops *ops,
			       void *ops_data, struct tierd_sample_pages *pages);
void tierd_sample_promoter_free(struct tierd_sample_promoter *p);

/* Moves the pages of plan's MIGRATE actions on token addresses, and the
 * retry queue's. Adds to stats (path move_pages, bytes) and counts (pages
 * by target tier); replaces p->feedback. Returns 0 or -ENOMEM (nothing
 * moved then). Failures of calls are logged through log_fn when given. */
typedef void (*tierd_promote_log_fn)(void *userdata, uint64_t cgroup_id, uint32_t tgid, int node,
				     int err);
int tierd_sample_promote(struct tierd_sample_promoter *p, const struct tierd_engine_input *in,
			 const struct tierd_plan *plan, struct tierd_migration_stats *stats,
			 struct tierd_promotion_counts *counts, tierd_promote_log_fn log_fn,
			 void *log_data);

#endif
