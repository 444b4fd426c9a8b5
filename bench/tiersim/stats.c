/* Reading the strategies' counters. */
#include <stdio.h>
#include <string.h>

#include "../../policy/strategy_autotiering.h"
#include "../../policy/strategy_exchange.h"
#include "../../policy/strategy_hmmv.h"
#include "../../policy/strategy_linux.h"
#include "../../policy/strategy_migflow.h"
#include "../../policy/strategy_mole.h"
#include "stats.h"

/* Adds value to the pair called name, creating it. */
static void add(struct tiersim_result *res, const char *name, uint64_t value)
{
	for (size_t i = 0; i < res->nr_strategy_stats; i++) {
		if (strcmp(res->strategy_stats[i].name, name) == 0) {
			res->strategy_stats[i].value += value;
			return;
		}
	}
	if (res->nr_strategy_stats == TIERSIM_MAX_STRATEGY_STATS)
		return;
	snprintf(res->strategy_stats[res->nr_strategy_stats].name,
		 sizeof(res->strategy_stats[0].name), "%s", name);
	res->strategy_stats[res->nr_strategy_stats++].value = value;
}

static void failures(struct tiersim_result *res, uint64_t pa, uint64_t pf, uint64_t da,
		     uint64_t df)
{
	res->has_strategy_failures = true;
	res->s_promote_attempts += pa;
	res->s_promote_failed += pf;
	res->s_demote_attempts += da;
	res->s_demote_failed += df;
}

static void baseline(struct tiersim_result *res, const struct tierd_baseline_stats *st)
{
	failures(res, st->promote_attempts, st->promote_failed, st->demote_attempts,
		 st->demote_failed);
	add(res, "promote_fallbacks", st->promote_fallbacks);
	add(res, "promote_rate_limited", st->promote_rate_limited);
}

void tiersim_strategy_stats(const struct tierd_engine *e, const uint64_t *ids, size_t n,
			    struct tiersim_result *res)
{
	for (size_t c = 0; c < n; c++) {
		enum tierd_strategy which;
		const void *state = tierd_engine_strategy_state(e, ids[c], &which);

		if (!state)
			continue;
		switch (which) {
		case TIERD_STRATEGY_EXCHANGE: {
			struct tierd_exchange_stats st;

			tierd_exchange_stats(state, &st);
			add(res, "promoted_bytes", st.promoted_bytes);
			add(res, "demoted_bytes", st.demoted_bytes);
			add(res, "reserve_bytes", st.reserve_bytes);
			add(res, "refused_bytes", st.refused_bytes);
			break;
		}
		case TIERD_STRATEGY_LINUX: {
			struct tierd_baseline_stats st;

			tierd_linux_stats(state, &st);
			baseline(res, &st);
			break;
		}
		case TIERD_STRATEGY_AUTOTIERING: {
			struct tierd_baseline_stats st;

			tierd_autotiering_stats(state, &st);
			baseline(res, &st);
			break;
		}
		case TIERD_STRATEGY_MOLE: {
			struct tierd_mole_stats st;

			tierd_mole_stats(state, &st);
			/* A promotion fails when it cannot go where its hotness
			 * says: deferred for want of room, or failed when carried
			 * out; a fallback one tier lower still moved (§4.5.2). */
			failures(res, st.promote_attempts, st.promote_deferred + st.promote_failed,
				 st.demote_attempts, st.demote_no_room + st.demote_failed);
			add(res, "promote_fallbacks", st.promote_fallbacks);
			add(res, "promote_deferred", st.promote_deferred);
			add(res, "promote_dropped", st.promote_dropped);
			break;
		}
		case TIERD_STRATEGY_MIGFLOW: {
			struct tierd_migflow_stats st;

			tierd_migflow_stats(state, &st);
			add(res, "tracked_pages", st.tracked_pages);
			add(res, "cooled_pages", st.cooled_pages);
			add(res, "warm_pages", st.warm_pages);
			add(res, "reaccessed_pages", st.reaccessed_pages);
			add(res, "quick_demoted_bytes", st.quick_demoted_bytes);
			add(res, "promoted_bytes", st.promoted_bytes);
			add(res, "lfu_demoted_bytes", st.lfu_demoted_bytes);
			add(res, "alloc_rate_bytes", st.alloc_rate_bytes);
			add(res, "alpha_pmy", st.alpha_pmy);
			break;
		}
		case TIERD_STRATEGY_HMMV: {
			struct tierd_hmmv_stats st;

			tierd_hmmv_stats(state, &st);
			add(res, "windows", st.windows);
			add(res, "hot_set_pages", st.hot_set_pages);
			add(res, "promoted_bytes", st.promoted_bytes);
			add(res, "demoted_bytes", st.demoted_bytes);
			add(res, "tracking_on", st.tracking_on);
			add(res, "skipped_dnd", st.skipped_dnd);
			break;
		}
		case TIERD_STRATEGY_NONE:
		case TIERD_STRATEGY_NR:
			break;
		}
	}
}
