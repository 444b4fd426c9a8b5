/* Migration budgets as token buckets; see budget_bucket.h. */
#include "budget_bucket.h"
#include "util.h"

/* bytes * elapsed / period, elapsed < period: the product in 128 bits (a
 * period has no upper bound in the configuration). */
static uint64_t refill_bytes(const struct tierd_migration_budget *b, uint64_t elapsed)
{
	return (uint64_t)((unsigned __int128)b->bytes * elapsed / b->period_usec);
}

uint64_t tierd_budget_bucket_left(struct tierd_budget_bucket *k,
				  const struct tierd_migration_budget *b, uint64_t now_usec)
{
	if (!k->started) {
		k->started = true;
		k->tokens = b->bytes;
	} else if (now_usec > k->last_usec) {
		uint64_t elapsed = now_usec - k->last_usec;

		k->tokens = !b->period_usec || elapsed >= b->period_usec
				    ? b->bytes
				    : tierd_add_sat(k->tokens, refill_bytes(b, elapsed));
	}
	k->last_usec = now_usec;
	k->tokens = tierd_min_u64(k->tokens, b->bytes);
	return k->tokens;
}

void tierd_budget_bucket_spend(struct tierd_budget_bucket *k, uint64_t bytes)
{
	k->tokens -= tierd_min_u64(bytes, k->tokens);
}

void tierd_budget_bucket_refund(struct tierd_budget_bucket *k,
				const struct tierd_migration_budget *b, uint64_t bytes)
{
	k->tokens = tierd_min_u64(tierd_add_sat(k->tokens, bytes), b->bytes);
}
