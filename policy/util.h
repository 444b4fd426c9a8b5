/* Small helpers shared by every module: cleanup attributes and array sizes.
 * Modelled on systemd's public idioms (style.md §3); written afresh. */
#ifndef TIERD_UTIL_H
#define TIERD_UTIL_H

#include <stdint.h>
#include <stdlib.h>

#define TIERD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline uint64_t tierd_min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t tierd_max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* a + b, stuck at UINT64_MAX rather than wrapping. */
static inline uint64_t tierd_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline void tierd_freep(void *p)
{
	free(*(void **)p);
}

#define _cleanup_free_ __attribute__((cleanup(tierd_freep)))

/* Hand ownership out of a cleanup-guarded local. */
#define TIERD_TAKE_PTR(p)                                                      \
	({                                                                     \
		__typeof__(p) _taken = (p);                                    \
		(p) = NULL;                                                    \
		_taken;                                                        \
	})

#endif
