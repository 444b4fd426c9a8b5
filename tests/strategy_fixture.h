/* A hand-built tick for driving a strategy's ops directly, as the engine
 * would: tiers of one node each, one cgroup, its hotness (samples and
 * regions, its own arrays or the test's), and the actions it proposed.
 * Shared by the tests/test_strategy_*.c. */
#ifndef TIERD_TEST_STRATEGY_FIXTURE_H
#define TIERD_TEST_STRATEGY_FIXTURE_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../config/strategy_keys.h"
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
/* Room for the longest params error (Mole's period_multipliers). */
#define FIXTURE_ERR_SIZE 512

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
	char err[FIXTURE_ERR_SIZE];
};

/* nr_tiers tiers of one node each, total_bytes[] and free_bytes[] per tier,
 * with read latencies lat_ns[] (NULL, or 0 for a tier: no HMAT). */
static inline void fixture_topology(struct tierd_topology *topo, size_t nr_tiers,
				    const uint64_t *total_bytes, const uint64_t *free_bytes,
				    const uint32_t *lat_ns)
{
	struct tierd_nodeset sets[TIERD_MAX_TIERS];
	char err[FIXTURE_ERR_SIZE];

	memset(topo, 0, sizeof(*topo));
	topo->nr_nodes = nr_tiers;
	for (size_t i = 0; i < nr_tiers; i++) {
		uint32_t lat = lat_ns ? lat_ns[i] : 0;

		topo->nodes[i] = (struct tierd_node){ .nid = (int)i, .total_bytes = total_bytes[i],
						      .free_bytes = free_bytes[i],
						      .has_hmat = lat != 0, .read_latency_ns = lat };
		tierd_nodeset_clear(&sets[i]);
		(void)tierd_nodeset_add(&sets[i], (int)i);
	}
	if (tierd_topology_assign_tiers(topo, sets, NULL, nr_tiers, TIERD_TIERS_CONFIG, err,
					sizeof(err)))
		abort();
}

/* The input as the engine hands it over, anew: f's topology, cgroup,
 * hotness and feedback; no share caps it, no budget limits it, and each
 * tier offers its free bytes as room. */
static inline void fixture_wire(struct fixture *f)
{
	f->in = (struct tierd_strategy_input){
		.topo = &f->topo,
		.obs = &f->obs,
		.hot = &f->hot,
		.feedback = &f->feedback,
		.standing = &f->standing,
		.budget_bytes = UINT64_MAX,
	};
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++) {
		f->in.share_bytes[t] = TIERD_SHARE_NONE;
		f->in.room_bytes[t] = t < f->topo.nr_tiers ? f->topo.tiers[t].free_bytes : 0;
	}
}

/* The strategy whose ops these are. */
static inline enum tierd_strategy fixture_strategy_of(const struct tierd_strategy_ops *ops)
{
	int s = 0;

	while (s < TIERD_STRATEGY_NR && tierd_strategy_get((enum tierd_strategy)s) != ops)
		s++;
	return (enum tierd_strategy)s;
}

/* Starts ops as the daemon does: params (JSON text, NULL for none) read by
 * the configuration loader into typed params, then ops->init. Returns what
 * the reading or init returned; a reading error's message is in err. */
static inline int strategy_init(const struct tierd_strategy_ops *ops, const char *params,
				void **ret_state, char *err, size_t err_size)
{
	struct tierd_strategy_params *p = NULL;
	int r;

	r = tierd_strategy_params_parse(fixture_strategy_of(ops), params, &p, err, err_size);
	if (r == 0)
		r = ops->init(p, ret_state);
	free(p);
	return r;
}

/* Starts ops with params on f, zeroed but for the topology built in it:
 * the hotness is f's own (empty) arrays, the input wired. Returns what
 * init returned; its message is in f->err. */
static inline int fixture_start(struct fixture *f, const struct tierd_strategy_ops *ops,
				const char *params)
{
	f->ops = ops;
	f->hot.samples = f->samples;
	f->hot.regions = f->regions;
	for (size_t t = 0; t < TIERD_MAX_TIERS; t++)
		f->standing.share_bytes[t] = TIERD_SHARE_NONE;
	fixture_wire(f);
	return strategy_init(ops, params, &f->state, f->err, sizeof(f->err));
}

/* The baselines' machine: tier 0 of tier0_total bytes, the others 1G;
 * free_bytes is both what the topology reports and the room the strategy
 * is offered. Aborts when the strategy refuses params: those are tested on
 * their own. */
static inline void fixture_baseline(struct fixture *f, const struct tierd_strategy_ops *ops,
				    uint64_t tier0_total, const uint64_t *free_bytes,
				    const char *params)
{
	const uint64_t total[FIXTURE_TIERS] = { tier0_total, GIB, GIB, GIB };

	memset(f, 0, sizeof(*f));
	fixture_topology(&f->topo, FIXTURE_TIERS, total, free_bytes, NULL);
	f->obs.id = 42;
	if (fixture_start(f, ops, params) != 0)
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

/* Action *a is a MIGRATE of [start, start + bytes) from -> to, for the
 * input's cgroup (0). */
#define CHECK_ACTION(a, reason_, from, to, start_, bytes_)                      \
	do {                                                                   \
		const struct tierd_action *a_ = (a);                           \
		CHECK_EQ_INT(a_->kind, TIERD_ACTION_MIGRATE);                  \
		CHECK_EQ_INT(a_->reason, reason_);                             \
		CHECK_EQ_INT(a_->cgroup, 0);                                   \
		CHECK_EQ_INT(a_->from_tier, from);                             \
		CHECK_EQ_INT(a_->to_tier, to);                                 \
		CHECK_EQ_U64(a_->start, start_);                               \
		CHECK_EQ_U64(a_->end, (start_) + (bytes_));                    \
		CHECK_EQ_U64(a_->bytes, bytes_);                               \
	} while (0)

/* Action i of the list *out is there and is such a MIGRATE. */
#define CHECK_MOVE(out, i, reason_, from, to, start_, bytes_)                   \
	do {                                                                   \
		CHECK((i) < (out)->nr);                                        \
		if ((i) < (out)->nr)                                           \
			CHECK_ACTION(&(out)->items[i], reason_, from, to, start_, bytes_); \
	} while (0)

/* ops' params are refused with -EINVAL, says exactly `expected` and makes no
 * state. */
static inline void check_param_error(const struct tierd_strategy_ops *ops, const char *params,
				     const char *expected)
{
	char err[FIXTURE_ERR_SIZE] = "";
	void *state = NULL;

	CHECK_EQ_INT(strategy_init(ops, params, &state, err, sizeof(err)), -EINVAL);
	CHECK_EQ_STR(err, expected);
	CHECK(state == NULL);
}

#endif
