/* A migration budget as a token bucket: it holds at most `bytes`, starts
 * full and refills at `bytes` per `period`, continuously; a plan spends
 * from it and a plan not carried out is given back. Over time at most
 * `bytes` a period move, as with periods that start afresh, but one tick
 * that spends the bucket leaves the ticks after it the refill, not nothing
 * until the period ends: with 800 MiB per 10 s and one cgroup's 736 MiB
 * over its max planned in the first tick, a cgroup below its min waited
 * 10 s in the VM's contended scenario (docs/design.md, "Migration
 * budgets"). */
#ifndef TIERD_BUDGET_BUCKET_H
#define TIERD_BUDGET_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

struct tierd_budget_bucket {
	bool started;
	uint64_t last_usec;        /* the last refill */
	uint64_t tokens;           /* bytes that may still move */
};

/* Refills k for the time since its last refill (full at its first use, or
 * after a whole period) and returns the bytes it holds, at most b->bytes
 * (a reload that lowered them cuts it down). A clock that went back
 * refills nothing. */
uint64_t tierd_budget_bucket_left(struct tierd_budget_bucket *k,
				  const struct tierd_migration_budget *b, uint64_t now_usec);

/* Takes bytes out (all there is when they are more). */
void tierd_budget_bucket_spend(struct tierd_budget_bucket *k, uint64_t bytes);

/* Gives bytes back, up to b->bytes in all. */
void tierd_budget_bucket_refund(struct tierd_budget_bucket *k,
				const struct tierd_migration_budget *b, uint64_t bytes);

#endif
