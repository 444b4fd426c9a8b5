/* The strategy registry. */

#include "strategy.h"

const struct tierd_strategy_ops *tierd_strategy_get(enum tierd_strategy s)
{
	switch (s) {
	case TIERD_STRATEGY_EXCHANGE:
		return &tierd_strategy_exchange;
	case TIERD_STRATEGY_MOLE:
		return &tierd_strategy_mole;
	case TIERD_STRATEGY_MIGFLOW:
		return &tierd_strategy_migflow;
	case TIERD_STRATEGY_HMMV:
		return &tierd_strategy_hmmv;
	case TIERD_STRATEGY_LINUX:
		return &tierd_strategy_linux;
	case TIERD_STRATEGY_AUTOTIERING:
		return &tierd_strategy_autotiering;
	case TIERD_STRATEGY_NONE:
	case TIERD_STRATEGY_NR:
		break;
	}
	return NULL;
}
