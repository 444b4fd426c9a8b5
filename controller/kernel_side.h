/* The daemon's kernel side, set up at start and put back at exit: the BPF
 * sampler, the kernel settings tierd may change (NUMA balancing, the
 * kernel's own promotion), the DAMON backend, page attribution through
 * /proc/kpagecgroup, and the kernel actuator over them. */
#ifndef TIERD_KERNEL_SIDE_H
#define TIERD_KERNEL_SIDE_H

#include "daemon.h"

/* Starts, in this order, the sampler, the settings, DAMON, attribution and
 * the actuator; what cannot start is logged and left off (degraded). */
void tierd_kernel_side_start(struct tierd_daemon *d);
/* Opens /proc/kpagecgroup once DAMON runs (at start, or at the first tick
 * after a late DAMON start). */
void tierd_kernel_side_open_attribution(struct tierd_daemon *d);
/* Undoes tierd_kernel_side_start in exactly the reverse order, restoring
 * the kernel settings tierd changed. */
void tierd_kernel_side_stop(struct tierd_daemon *d);

#endif
