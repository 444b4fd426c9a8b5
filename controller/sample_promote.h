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

#include <stdbool.h>
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
	uint64_t deferred;          /* pages a batch's deadline left for the next */
	uint64_t deadline_hits;     /* batches that stopped at their deadline */
};

/* A MIGRATE of sampled pages (token addresses): move_pages(2)'s, never
 * DAMOS's. */
static inline bool tierd_action_is_sampled(const struct tierd_action *a)
{
	return a->kind == TIERD_ACTION_MIGRATE && tierd_sample_token(a->start);
}

/* One page to move. */
struct tierd_promote_item {
	uint64_t cgroup_id;
	uint32_t tgid;
	int node;
	uint64_t vaddr;
	uint64_t token;
	uint32_t from_tier, to_tier;
	uint32_t attempts;          /* tries before this one */
};

/* One move_pages request: items[first, first + n), one cgroup's process,
 * one node, at most TIERD_MOVE_PAGES_BATCH pages; and what it did. */
struct tierd_promote_group {
	size_t first, n;
	bool ran;
	int r;                      /* tierd_move_pages()'s return */
	struct tierd_move_result res;
	size_t nr_again;            /* pages worth a retry, at again[first] */
};

/* A tick's promotions, self-contained: what the kernel worker needs to
 * run them touches nothing of the promoter's. */
struct tierd_promote_batch {
	struct tierd_promote_item *items;
	size_t nr_items;
	uint64_t *addrs, *again;    /* nr_items each */
	struct tierd_promote_group *groups;
	size_t nr_groups, nr_ran;
	bool deadline_hit;          /* groups were left at the deadline */
};

/* 0 or -ENOMEM. */
int tierd_sample_promoter_init(struct tierd_sample_promoter *p, const struct tierd_move_pages_ops *ops,
			       void *ops_data, struct tierd_sample_pages *pages);
void tierd_sample_promoter_free(struct tierd_sample_promoter *p);

/* The batch of plan's MIGRATE actions on token addresses and of the retry
 * queue (which it empties). Returns 0 or -ENOMEM (the queue kept). */
int tierd_sample_promote_prepare(struct tierd_sample_promoter *p,
				 const struct tierd_engine_input *in, const struct tierd_plan *plan,
				 struct tierd_promote_batch *b);

/* Makes the batch's move_pages calls, group by group, and stops before a
 * group when CLOCK_MONOTONIC has passed deadline_usec (0: none); the first
 * group is always tried. Touches only b: the kernel worker runs it. */
void tierd_promote_batch_run(const struct tierd_move_pages_ops *ops, void *ops_data,
			     struct tierd_promote_batch *b, uint64_t deadline_usec);

/* Accounts a run batch as tierd_sample_promote() does, puts the groups the
 * deadline left in the retry queue with their attempts unchanged, replaces
 * p->feedback, and frees the batch. Returns 0 or -ENOMEM. */
typedef void (*tierd_promote_log_fn)(void *userdata, uint64_t cgroup_id, uint32_t tgid, int node,
				     int err);
int tierd_sample_promote_finish(struct tierd_sample_promoter *p,
				const struct tierd_topology *topo, struct tierd_promote_batch *b,
				struct tierd_migration_stats *stats,
				struct tierd_promotion_counts *counts, tierd_promote_log_fn log_fn,
				void *log_data);

void tierd_promote_batch_free(struct tierd_promote_batch *b);

/* The feedback has been read: a tick without a finished batch reads none. */
void tierd_sample_promoter_consumed(struct tierd_sample_promoter *p);

/* Prepare, run without a deadline, finish: moves the pages of plan's
 * MIGRATE actions on token addresses, and the retry queue's. Adds to stats
 * (path move_pages, bytes) and counts (pages by target tier); replaces
 * p->feedback. Returns 0 or -ENOMEM (nothing moved then, when prepare
 * failed). Failures of calls are logged through log_fn when given. */
int tierd_sample_promote(struct tierd_sample_promoter *p, const struct tierd_engine_input *in,
			 const struct tierd_plan *plan, struct tierd_migration_stats *stats,
			 struct tierd_promotion_counts *counts, tierd_promote_log_fn log_fn,
			 void *log_data);

#endif
