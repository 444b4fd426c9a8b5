/* `tierctl cleanup`: puts back what a tierd that is no longer running left
 * in its undo record (undo.h): each kernel setting's original, its
 * kdamonds turned off (those whose pid proves them its own), its metrics
 * file removed; then removes the record. DAMON_STAT, recorded apart when
 * tierd turned it off (damon_modules.h), is turned on again. Run by the unit's ExecStopPost=,
 * after any exit: a clean stop left no record, so there is nothing to do. */
#ifndef TIERD_CLEANUP_H
#define TIERD_CLEANUP_H

#include "log.h"

/* root: prefix of /sys and /proc ("/" live); runtime_dir: where the record
 * is. Each step is logged as an event. Returns 0 (done, or no record),
 * -EBUSY when the tierd that wrote the record still runs (nothing done),
 * or the first -errno of what could not be put back (the record then
 * stays, holding it all, for the next try). */
int tierd_cleanup(const char *root, const char *runtime_dir, const struct tierd_logger *log);

#endif
