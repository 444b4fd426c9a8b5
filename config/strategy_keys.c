/* Each strategy's params keys: their names, the ranges allowed and what an
 * error says was expected, read through the one table-driven reader
 * (params_reader.c) into the strategy's typed params. See strategy_keys.h. */
#include <errno.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "params_reader.h"
#include "../policy/mole_hist.h"
#include "strategy_keys.h"
#include "../policy/units.h"
#include "../policy/util.h"

#define STR(x) #x
#define XSTR(x) STR(x)

/* ---- Mole ------------------------------------------------------------- */

/* A period shorter than the shortest tick would not be seen any sooner. */
#define MOLE_MIN_SCAN_PERIOD_USEC TIERD_MIN_TICK_USEC
/* An hour per profiling period is already too slow to follow any phase. */
#define MOLE_MAX_SCAN_PERIOD_USEC (3600 * TIERD_USEC_PER_SEC)
/* The log2 segment counts whole milliseconds (TIERD_MOLE_LOG_UNIT_USEC). */
#define MOLE_MIN_TIME_THRESHOLD_USEC TIERD_MOLE_LOG_UNIT_USEC
/* At 1 h the log2 segment takes buckets 0..22, leaving 9 linear ones. */
#define MOLE_MAX_TIME_THRESHOLD_USEC (3600 * TIERD_USEC_PER_SEC)
/* Above half, thresholds would no longer follow capacity. */
#define MOLE_MAX_HEADROOM_PMY 5000u
/* Mole §4.3: the unmap period of a tier is m * T with m >= 1; past 64 the
 * top tier's unaccessed pages would sit for over a minute (at T = 1 s)
 * before a scan could notice them cooling. */
#define MOLE_MIN_MULTIPLIER 1
#define MOLE_MAX_MULTIPLIER 64

static int read_multipliers(json_object *v, void *value)
{
	struct tierd_mole_params *m = value;
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;
	n = json_object_array_length(v);
	if (n < 1 || n > TIERD_MAX_TIERS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(v, i);
		int64_t mult;

		if (!json_object_is_type(x, json_type_int))
			return -EINVAL;
		mult = json_object_get_int64(x);
		/* §4.3: larger m on upper tiers, smaller on lower ones. */
		if (mult < MOLE_MIN_MULTIPLIER || mult > MOLE_MAX_MULTIPLIER ||
		    (i && (uint32_t)mult > m->multipliers[i - 1]))
			return -EINVAL;
		m->multipliers[i] = (uint32_t)mult;
	}
	m->nr_multipliers = n;
	return 0;
}

/* The expected texts say the ranges of the MOLE_MIN_ / MOLE_MAX_ constants
 * above. */
static int parse_mole(struct tierd_mole_params *m, const char *params_json, char *err,
		      size_t err_size)
{
	const struct tierd_param params[] = {
		{ .key = "scan_period", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 10ms to 1h such as \"1s\"",
		  .min = MOLE_MIN_SCAN_PERIOD_USEC, .max = MOLE_MAX_SCAN_PERIOD_USEC,
		  .value = &m->scan_period_usec },
		{ .key = "period_multipliers", .kind = TIERD_PARAM_CUSTOM,
		  .expected = "an array of 1 to 16 integers from 1 to 64, non-increasing from the "
			      "top tier down, such as [4, 3, 2, 1]",
		  .value = m, .read = read_multipliers },
		{ .key = "time_threshold", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 1ms to 1h such as \"1024ms\"",
		  .min = MOLE_MIN_TIME_THRESHOLD_USEC, .max = MOLE_MAX_TIME_THRESHOLD_USEC,
		  .value = &m->time_threshold_usec },
		{ .key = "headroom", .kind = TIERD_PARAM_PERCENT,
		  .expected = "a percentage from 0% to 50% such as \"5%\"",
		  .max = MOLE_MAX_HEADROOM_PMY, .value = &m->headroom_pmy },
	};

	return tierd_params_parse(params_json, params, TIERD_ARRAY_SIZE(params), err, err_size);
}

/* ---- MigFlow ---------------------------------------------------------- */

/* Past an hour nothing is "right after its allocation" any more, and a
 * phase or horizon that long would not follow the workload. */
#define MIGFLOW_DURATION_MAX_USEC (3600 * TIERD_USEC_PER_SEC)
/* A grace window, horizon or phase must span at least a tick's worth of
 * observation to mean anything. */
#define MIGFLOW_DURATION_MIN_USEC TIERD_USEC_PER_MSEC
/* A migration cost per page above a second is no measurement. */
#define MIGFLOW_COST_MAX_USEC TIERD_USEC_PER_SEC
/* A penalty of 100 times the migration cost stops every promotion that
 * could matter; the bound only catches a misplaced decimal point. */
#define MIGFLOW_ALPHA_MIN_MAX 100.0

static int parse_migflow(struct tierd_migflow_params *s, const char *params_json, char *err,
			 size_t err_size)
{
	const struct tierd_param budget[] = {
		{ .key = "bytes", .kind = TIERD_PARAM_SIZE_OR_UINT,
		  .expected = "a size such as \"800M\" or a number of bytes", .max = UINT64_MAX,
		  .value = &s->budget_bytes },
		{ .key = "period", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 1ms to 1h such as \"10s\"",
		  .min = MIGFLOW_DURATION_MIN_USEC, .max = MIGFLOW_DURATION_MAX_USEC,
		  .value = &s->budget_period_usec },
	};
	const struct tierd_param params[] = {
		{ .key = "burst", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 0s to 1h such as \"15s\"",
		  .max = MIGFLOW_DURATION_MAX_USEC, .value = &s->burst_usec },
		{ .key = "grace", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 1ms to 1h such as \"2s\"",
		  .min = MIGFLOW_DURATION_MIN_USEC, .max = MIGFLOW_DURATION_MAX_USEC,
		  .value = &s->grace_usec },
		{ .key = "migration_cost_per_page", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 0us to 1s such as \"20us\"",
		  .max = MIGFLOW_COST_MAX_USEC, .value = &s->cost_usec },
		{ .key = "horizon", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 1ms to 1h such as \"10s\"",
		  .min = MIGFLOW_DURATION_MIN_USEC, .max = MIGFLOW_DURATION_MAX_USEC,
		  .value = &s->horizon_usec },
		{ .key = "alpha_min", .kind = TIERD_PARAM_RATIO,
		  .expected = "a number from 0 to 100 such as 1.0",
		  .max = (uint64_t)(MIGFLOW_ALPHA_MIN_MAX * TIERD_PMY_ONE),
		  .value = &s->alpha_min_pmy },
		{ .key = "dynamic_alpha", .kind = TIERD_PARAM_BOOL, .expected = "true or false",
		  .value = &s->dynamic_alpha },
		{ .key = "quick_demotion", .kind = TIERD_PARAM_BOOL, .expected = "true or false",
		  .value = &s->quick_demotion },
		{ .key = "budget", .kind = TIERD_PARAM_OBJECT,
		  .expected = "an object such as {\"bytes\": \"800M\", \"period\": \"10s\"}",
		  .members = budget, .nr_members = TIERD_ARRAY_SIZE(budget) },
	};

	return tierd_params_parse(params_json, params, TIERD_ARRAY_SIZE(params), err, err_size);
}

/* ---- HMM-V ------------------------------------------------------------ */

/* Limits of the params, unsuffixed so the error messages can quote them.
 * Past 1000:1 the lighter kind of access no longer counts. */
#define HMMV_WEIGHT_MIN 1
#define HMMV_WEIGHT_MAX 1000
/* A round longer than 64 windows (38 s at 600 ms) outlasts the phases the
 * dynamic hot set benchmark moves through (HMM-V §5.7). */
#define HMMV_ROUND_WINDOWS_MIN 1
#define HMMV_ROUND_WINDOWS_MAX 64
/* Level 16 waits 2^15 windows (5.5 h at 600 ms): higher never looks again.
 * Level 0 everywhere turns the queue off. */
#define HMMV_MAX_LEVEL_MAX 16
/* A window or clock shorter than 1 ms is finer than any sampler ticks. */
#define HMMV_PERIOD_MIN_USEC TIERD_USEC_PER_MSEC
/* The counter counts quiet rounds between clock ticks; 64 is an hour of
 * one-minute clocks with tracking off. 0 never turns tracking off. */
#define HMMV_QUIET_LIMIT_MAX 64
#define HMMV_WEIGHT_EXPECTED "an integer from " XSTR(HMMV_WEIGHT_MIN) " to " XSTR(HMMV_WEIGHT_MAX)

static int parse_hmmv(struct tierd_hmmv_params *out, const char *params_json, char *err,
		      size_t err_size)
{
	const struct tierd_param params[] = {
		{ .key = "read_weight", .kind = TIERD_PARAM_UINT, .expected = HMMV_WEIGHT_EXPECTED,
		  .min = HMMV_WEIGHT_MIN, .max = HMMV_WEIGHT_MAX, .value = &out->read_weight },
		{ .key = "write_weight", .kind = TIERD_PARAM_UINT, .expected = HMMV_WEIGHT_EXPECTED,
		  .min = HMMV_WEIGHT_MIN, .max = HMMV_WEIGHT_MAX, .value = &out->write_weight },
		{ .key = "round_windows", .kind = TIERD_PARAM_UINT,
		  .expected = "an integer from " XSTR(HMMV_ROUND_WINDOWS_MIN) " to "
			      XSTR(HMMV_ROUND_WINDOWS_MAX),
		  .min = HMMV_ROUND_WINDOWS_MIN, .max = HMMV_ROUND_WINDOWS_MAX,
		  .value = &out->round_windows },
		{ .key = "max_level", .kind = TIERD_PARAM_UINT,
		  .expected = "an integer from 0 to " XSTR(HMMV_MAX_LEVEL_MAX),
		  .max = HMMV_MAX_LEVEL_MAX, .value = &out->max_level },
		{ .key = "monitoring_window", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration of 1ms or more such as \"600ms\"",
		  .min = HMMV_PERIOD_MIN_USEC, .max = UINT64_MAX, .value = &out->window_usec },
		{ .key = "clock_period", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration of 1ms or more such as \"1m\"",
		  .min = HMMV_PERIOD_MIN_USEC, .max = UINT64_MAX, .value = &out->clock_usec },
		{ .key = "quiet_migration", .kind = TIERD_PARAM_SIZE,
		  .expected = "a size such as \"256M\"", .max = UINT64_MAX - 1,
		  .value = &out->quiet_bytes },
		{ .key = "quiet_share", .kind = TIERD_PARAM_PERCENT,
		  .expected = "a percentage of the cgroup's memory such as \"1.56%\"",
		  .max = TIERD_PMY_ONE, .value = &out->quiet_pmy },
		{ .key = "quiet_limit", .kind = TIERD_PARAM_UINT,
		  .expected = "an integer from 0 to " XSTR(HMMV_QUIET_LIMIT_MAX),
		  .max = HMMV_QUIET_LIMIT_MAX, .value = &out->quiet_limit },
	};

	return tierd_params_parse(params_json, params, TIERD_ARRAY_SIZE(params), err, err_size);
}

/* ---- Linux (NUMA balancing tiering mode) ------------------------------ */

/* The debugfs knob counts milliseconds; an hour is far beyond the longest
 * scan period (60 s), where "recently faulted" stops meaning anything. */
#define LINUX_HOT_THRESHOLD_MIN_USEC TIERD_USEC_PER_MSEC
#define LINUX_HOT_THRESHOLD_MAX_USEC (3600 * TIERD_USEC_PER_SEC)
/* numa_balancing_promote_rate_limit_MBps is an unsigned int, 0 allowed. */
#define LINUX_PROMOTE_RATE_LIMIT_MAX_MBPS UINT32_MAX

static int parse_linux(struct tierd_linux_params *s, const char *params_json, char *err,
		       size_t err_size)
{
	const struct tierd_param params[] = {
		{ .key = "hot_threshold", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 1ms to 1h such as \"1s\"",
		  .min = LINUX_HOT_THRESHOLD_MIN_USEC, .max = LINUX_HOT_THRESHOLD_MAX_USEC,
		  .value = &s->hot_threshold_usec },
		{ .key = "promote_rate_limit", .kind = TIERD_PARAM_UINT,
		  .expected = "an integer number of MB/s from 0 to 4294967295",
		  .max = LINUX_PROMOTE_RATE_LIMIT_MAX_MBPS, .value = &s->rate_limit_mbps },
		{ .key = "watermark", .kind = TIERD_PARAM_PERCENT,
		  .expected = "a percentage of the tier's capacity such as \"0.3%\"",
		  .max = TIERD_PMY_ONE, .value = &s->watermark_pmy },
	};

	return tierd_params_parse(params_json, params, TIERD_ARRAY_SIZE(params), err, err_size);
}

/* ---- AutoTiering ------------------------------------------------------ */

#define AUTOTIERING_HOT_ACCESSES_MIN 1u    /* 0 would call untouched memory hot */
#define AUTOTIERING_HOT_ACCESSES_MAX UINT32_MAX

static int parse_autotiering(struct tierd_autotiering_params *s, const char *params_json,
			     char *err, size_t err_size)
{
	const struct tierd_param params[] = {
		{ .key = "hot_accesses", .kind = TIERD_PARAM_UINT,
		  .expected = "an integer from 1 to 4294967295",
		  .min = AUTOTIERING_HOT_ACCESSES_MIN, .max = AUTOTIERING_HOT_ACCESSES_MAX,
		  .value = &s->hot_accesses },
		{ .key = "watermark", .kind = TIERD_PARAM_PERCENT,
		  .expected = "a percentage of the tier's capacity such as \"0.2%\"",
		  .max = TIERD_PMY_ONE, .value = &s->watermark_pmy },
	};

	return tierd_params_parse(params_json, params, TIERD_ARRAY_SIZE(params), err, err_size);
}

/* ---- exchange --------------------------------------------------------- */

/* Below 1 a victim could be hotter than what displaces it. */
#define EXCHANGE_GAIN_MIN_PMY TIERD_PMY_ONE
#define EXCHANGE_GAIN_MAX 1000
#define EXCHANGE_RESERVE_MAX_USEC (60 * TIERD_USEC_PER_SEC)

static int parse_exchange(struct tierd_exchange_params *s, const char *params_json, char *err,
			  size_t err_size)
{
	const struct tierd_param params[] = {
		{ .key = "gain", .kind = TIERD_PARAM_RATIO,
		  .expected = "a number from 1 to " XSTR(EXCHANGE_GAIN_MAX) " such as 32",
		  .min = EXCHANGE_GAIN_MIN_PMY, .max = (uint64_t)EXCHANGE_GAIN_MAX * TIERD_PMY_ONE,
		  .value = &s->gain_pmy },
		{ .key = "reserve", .kind = TIERD_PARAM_DURATION,
		  .expected = "a duration from 0s to 60s such as \"2s\"",
		  .max = EXCHANGE_RESERVE_MAX_USEC, .value = &s->reserve_usec },
	};

	return tierd_params_parse(params_json, params, TIERD_ARRAY_SIZE(params), err, err_size);
}

/* ---- entry ------------------------------------------------------------ */

int tierd_strategy_params_parse(enum tierd_strategy s, const char *params_json,
				struct tierd_strategy_params **ret, char *err, size_t err_size)
{
	_cleanup_free_ struct tierd_strategy_params *p = tierd_strategy_params_new(s);
	int r;

	if (!p)
		return s == TIERD_STRATEGY_NONE ? -EINVAL : -ENOMEM;
	switch (s) {
	case TIERD_STRATEGY_EXCHANGE:
		r = parse_exchange(&p->exchange, params_json, err, err_size);
		break;
	case TIERD_STRATEGY_MOLE:
		r = parse_mole(&p->mole, params_json, err, err_size);
		break;
	case TIERD_STRATEGY_MIGFLOW:
		r = parse_migflow(&p->migflow, params_json, err, err_size);
		break;
	case TIERD_STRATEGY_HMMV:
		r = parse_hmmv(&p->hmmv, params_json, err, err_size);
		break;
	case TIERD_STRATEGY_LINUX:
		r = parse_linux(&p->linux_params, params_json, err, err_size);
		break;
	case TIERD_STRATEGY_AUTOTIERING:
		r = parse_autotiering(&p->autotiering, params_json, err, err_size);
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (r < 0)
		return r;
	*ret = TIERD_TAKE_PTR(p);
	return 0;
}
