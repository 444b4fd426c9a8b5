/* A strategy's params, typed: what the configuration loader read from a
 * policy's "params" object (config/strategy_keys.c), carried by the policy
 * and handed to the strategy's init. The engine and the policy treat it as
 * opaque; only the strategy named in it reads its member. Pure. */
#ifndef TIERD_STRATEGY_PARAMS_H
#define TIERD_STRATEGY_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "policy.h"
#include "strategy_autotiering.h"
#include "strategy_exchange.h"
#include "strategy_hmmv.h"
#include "strategy_linux.h"
#include "strategy_migflow.h"
#include "strategy_mole.h"

struct tierd_strategy_params {
	enum tierd_strategy strategy;
	union {
		struct tierd_exchange_params exchange;
		struct tierd_mole_params mole;
		struct tierd_migflow_params migflow;
		struct tierd_hmmv_params hmmv;
		struct tierd_linux_params linux_params;
		struct tierd_autotiering_params autotiering;
	};
};

/* A params object for strategy s holding its defaults; NULL on -ENOMEM or
 * for TIERD_STRATEGY_NONE, which takes none. Free with free(). */
struct tierd_strategy_params *tierd_strategy_params_new(enum tierd_strategy s);

/* Copies the params of strategy s into ret, size bytes of its params struct:
 * the defaults when params is NULL. -EINVAL when params are another
 * strategy's. */
int tierd_strategy_params_get(const struct tierd_strategy_params *params, enum tierd_strategy s,
			      void *ret, size_t size);

#endif
