/* File descriptors, the shell's alone (the core opens none): a cleanup
 * guard that closes one when it leaves scope. */
#ifndef TIERD_FD_UTIL_H
#define TIERD_FD_UTIL_H

#include <unistd.h>

static inline void tierd_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_close_ __attribute__((cleanup(tierd_closep)))

#endif
