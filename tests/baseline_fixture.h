/* A hand-built tick for driving a baseline strategy's ops directly: four
 * tiers of one node each, one cgroup, its samples and regions, and the
 * actions it proposed. Shared by test_strategy_linux.c and
 * test_strategy_autotiering.c. */
#ifndef TIERD_TEST_BASELINE_FIXTURE_H
#define TIERD_TEST_BASELINE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "../policy/strategy.h"
#include "../policy/units.h"
#include "check.h"

#define MIB (1024ull * 1024)
#define GIB (1024 * MIB)
#define PAGE TIERD_PAGE_BYTES
#define MSEC TIERD_USEC_PER_MSEC
#define SEC TIERD_USEC_PER_SEC
#define FIXTURE_TIERS 4
#define FIXTURE_MAX_SAMPLES 512
#define FIXTURE_MAX_REGIONS 16
#define FIXTURE_MAX_ACCESSES 20

struct fixture {
	const struct tierd_strategy_ops *ops;
	struct tierd_topology topo;
	struct tierd_cgroup_obs obs;
	struct tierd_cgroup_standing standing;
	struct tierd_feedback feedback;
	struct tierd_sample samples[FIXTURE_MAX_SAMPLES];
	struct tierd_region regions[FIXTURE_MAX_REGIONS];
	struct tierd_hotness hot;
	struct tierd_strategy_input in;
	struct tierd_action_list out;
	void *state;
};

/* Tier 0 of tier0_total bytes, the others 1G; free_bytes is both what the
 * topology reports and the room the strategy is offered. Aborts when the
 * strategy refuses params: those are tested on their own. */
static inline void fixture_init(struct fixture *f, const struct tierd_strategy_ops *ops,
				uint64_t tier0_total, const uint64_t *free_bytes,
				const char *params)
{
	struct tierd_nodeset sets[FIXTURE_TIERS];
	char err[256] = "";

	memset(f, 0, sizeof(*f));
	f->ops = ops;
	f->topo.nr_nodes = FIXTURE_TIERS;
	for (int i = 0; i < FIXTURE_TIERS; i++) {
		f->topo.nodes[i] = (struct tierd_node){ .nid = i,
							.total_bytes = i ? GIB : tier0_total,
							.free_bytes = free_bytes[i] };
		tierd_nodeset_clear(&sets[i]);
		(void)tierd_nodeset_add(&sets[i], i);
	}
	if (tierd_topology_assign_tiers(&f->topo, sets, NULL, FIXTURE_TIERS, TIERD_TIERS_CONFIG,
					err, sizeof(err)))
		abort();
	f->obs.id = 42;
	f->hot.samples = f->samples;
	f->hot.regions = f->regions;
	f->in.topo = &f->topo;
	f->in.obs = &f->obs;
	f->in.hot = &f->hot;
	f->in.feedback = &f->feedback;
	f->in.standing = &f->standing;
	f->in.budget_bytes = UINT64_MAX;
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++)
		f->in.share_bytes[t] = TIERD_SHARE_NONE;
	for (size_t t = 0; t < FIXTURE_TIERS; t++)
		f->in.room_bytes[t] = free_bytes[t];
	if (ops->init(params, &f->state, err, sizeof(err)) != 0)
		abort();
}

static inline void fixture_done(struct fixture *f)
{
	f->ops->free(f->state);
	tierd_action_list_free(&f->out);
}

/* One tick at `now`: observe, then plan into f->out (emptied first). */
static inline int fixture_tick(struct fixture *f, uint64_t now)
{
	f->in.now_usec = now;
	f->out.nr = 0;
	f->ops->observe(f->state, &f->in);
	return f->ops->plan(f->state, &f->in, &f->out);
}

static inline void fixture_sample(struct fixture *f, uint64_t addr, int tier, uint64_t interval)
{
	if (f->hot.nr_samples == FIXTURE_MAX_SAMPLES)
		abort();
	f->samples[f->hot.nr_samples++] = (struct tierd_sample){
		.addr = addr, .tier = tier, .time_usec = 1, .interval_usec = interval };
}

static inline void fixture_region(struct fixture *f, uint64_t start, uint64_t bytes, int tier,
				  uint32_t nr_accesses, uint32_t age, uint64_t aggr_usec)
{
	if (f->hot.nr_regions == FIXTURE_MAX_REGIONS)
		abort();
	f->regions[f->hot.nr_regions++] = (struct tierd_region){
		.start = start, .end = start + bytes, .tier = tier, .nr_accesses = nr_accesses,
		.max_accesses = FIXTURE_MAX_ACCESSES, .age = age, .aggr_usec = aggr_usec };
}

/* Action i of f->out is a MIGRATE of [start, start + bytes) from -> to. */
#define CHECK_MOVE(f, i, reason_, from, to, start_, bytes_)                     \
	do {                                                                   \
		CHECK((i) < (f)->out.nr);                                      \
		if ((i) < (f)->out.nr) {                                       \
			const struct tierd_action *a_ = &(f)->out.items[i];    \
			CHECK_EQ_INT(a_->kind, TIERD_ACTION_MIGRATE);          \
			CHECK_EQ_INT(a_->reason, reason_);                     \
			CHECK_EQ_INT(a_->cgroup, 0);                           \
			CHECK_EQ_INT(a_->from_tier, from);                     \
			CHECK_EQ_INT(a_->to_tier, to);                         \
			CHECK_EQ_U64(a_->start, start_);                       \
			CHECK_EQ_U64(a_->end, (start_) + (bytes_));            \
			CHECK_EQ_U64(a_->bytes, bytes_);                       \
		}                                                              \
	} while (0)

#endif
