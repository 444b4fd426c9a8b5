/* The typed params container; see strategy_params.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strategy_params.h"

static void set_defaults(struct tierd_strategy_params *p)
{
	switch (p->strategy) {
	case TIERD_STRATEGY_EXCHANGE:
		tierd_exchange_params_default(&p->exchange);
		break;
	case TIERD_STRATEGY_MOLE:
		tierd_mole_params_default(&p->mole);
		break;
	case TIERD_STRATEGY_MIGFLOW:
		tierd_migflow_params_default(&p->migflow);
		break;
	case TIERD_STRATEGY_HMMV:
		tierd_hmmv_params_default(&p->hmmv);
		break;
	case TIERD_STRATEGY_LINUX:
		tierd_linux_params_default(&p->linux_params);
		break;
	case TIERD_STRATEGY_AUTOTIERING:
		tierd_autotiering_params_default(&p->autotiering);
		break;
	default:
		break;
	}
}

struct tierd_strategy_params *tierd_strategy_params_new(enum tierd_strategy s)
{
	struct tierd_strategy_params *p;

	if (s == TIERD_STRATEGY_NONE || (unsigned)s >= TIERD_STRATEGY_NR)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->strategy = s;
	set_defaults(p);
	return p;
}

int tierd_strategy_params_get(const struct tierd_strategy_params *params, enum tierd_strategy s,
			      void *ret, size_t size)
{
	struct tierd_strategy_params defaults = { .strategy = s };

	if (!params) {
		set_defaults(&defaults);
		params = &defaults;
	}
	if (params->strategy != s || size > sizeof(*params) - offsetof(struct tierd_strategy_params, exchange))
		return -EINVAL;
	memcpy(ret, &params->exchange, size);
	return 0;
}
