/* Reading a policy's strategy params (the "params" object, as JSON text)
 * into the strategy's typed params, once, when the policy is loaded. */
#ifndef TIERD_STRATEGY_KEYS_H
#define TIERD_STRATEGY_KEYS_H

#include <stddef.h>

#include "../policy/strategy_params.h"

/* Reads params_json (NULL: every default) for strategy s into a new typed
 * params object (free()). Returns 0; -EINVAL with err saying the first
 * problem, "\"key\": expected ..., got ..." (params_reader.h), or for
 * TIERD_STRATEGY_NONE, which takes none; -ENOMEM. */
int tierd_strategy_params_parse(enum tierd_strategy s, const char *params_json,
				struct tierd_strategy_params **ret, char *err, size_t err_size);

#endif
