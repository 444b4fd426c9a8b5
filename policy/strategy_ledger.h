/* A strategy's own copy of the engine's accounting for one cgroup in one
 * tick: the room each tier has left, what the cgroup's share of it still
 * lets it add, and the migration budget left. A strategy books each action
 * it proposes here as the engine will book it, so it never proposes what
 * the engine would clip, and a demotion's freed room is there for the
 * promotions after it. Pure: no I/O, no clock, no globals. */
#ifndef TIERD_STRATEGY_LEDGER_H
#define TIERD_STRATEGY_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strategy.h"
#include "util.h"

struct tierd_ledger {
	size_t nr_tiers;
	size_t cgroup;                   /* index to put in actions */
	uint64_t room[TIERD_MAX_TIERS];  /* free bytes per tier not yet planned into */
	uint64_t take[TIERD_MAX_TIERS];  /* bytes its share still lets it add;
					  * TIERD_SHARE_NONE where none caps it */
	uint64_t budget;                 /* bytes it may still move */
	struct tierd_action_list *out;   /* where its actions go */
};

/* From the tick's input: room, share less what the cgroup holds, budget. */
void tierd_ledger_init(struct tierd_ledger *l, const struct tierd_strategy_input *in,
		       struct tierd_action_list *out);

/* Page-aligned bytes the cgroup may still put on a tier (room and share). */
uint64_t tierd_ledger_fits(const struct tierd_ledger *l, size_t tier);

/* Whether at least one page may still move this tick. */
bool tierd_ledger_has_budget(const struct tierd_ledger *l);

/* Bytes of a candidate that the migration budget leaves, page aligned. */
uint64_t tierd_ledger_budget_clip(const struct tierd_ledger *l, uint64_t bytes);

/* The same for `bytes` wanted from region reg, whose moves the budget pays
 * by span (tierd_action_cost): no more than its share of a span the budget
 * pays. reg NULL: a sampled page, paid by its bytes. */
uint64_t tierd_ledger_region_clip(const struct tierd_ledger *l, const struct tierd_region *reg,
				  uint64_t bytes);

/* Proposes moving [start, start + bytes) from one tier to another and books
 * it: room and share taken on `to`, given back on `from`, budget spent.
 * Callers keep bytes within fits(to) and the budget. Returns 0 or -ENOMEM
 * (nothing proposed). */
int tierd_ledger_move(struct tierd_ledger *l, enum tierd_reason reason, size_t from, size_t to,
		      uint64_t start, uint64_t bytes);

/* The same for a span [start, end) that holds `bytes` of the cgroup's
 * memory, fewer than its length when the span is not full
 * (tierd_region_bytes): room is booked for the bytes, the budget pays the
 * span (tierd_action_cost), which callers keep within it. */
int tierd_ledger_move_span(struct tierd_ledger *l, enum tierd_reason reason, size_t from,
			   size_t to, uint64_t start, uint64_t end, uint64_t bytes);

/* Proposes moving `bytes` of the cgroup's coldest memory from one tier to
 * another and books it as tierd_ledger_move() does. Same contract. What
 * moves is the cgroup's coldest regions (policy/cold_spans.h), or, for the
 * linux model's kswapd (watermark-demotion), the LRU tail in tiersim. */
int tierd_ledger_demote(struct tierd_ledger *l, enum tierd_reason reason, size_t from, size_t to,
			uint64_t bytes);

#endif
