/* What a call logged, for checks on the message a failure told (log.h):
 * capture(&c) empties c and returns a debug-level logger that keeps the
 * last message in c.last and counts them in c.nr, passing nothing on.
 * A call whose messages do not matter gets NULL. */
#ifndef TIERD_TEST_LOG_CAPTURE_H
#define TIERD_TEST_LOG_CAPTURE_H

#include "../controller/log.h"

static inline const struct tierd_logger *capture(struct tierd_log_keep *c)
{
	return tierd_log_keep(c, NULL);
}

#endif
