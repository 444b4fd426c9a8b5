/* A set of NUMA node ids, and the kernel's list format ("0-1,3").
 * Pure: no I/O. */
#ifndef TIERD_NODESET_H
#define TIERD_NODESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MAX_NUMNODES on Debian amd64 kernels: CONFIG_NODES_SHIFT=10. */
#define TIERD_NODESET_MAX_NODES 1024
#define TIERD_NODESET_WORDS (TIERD_NODESET_MAX_NODES / 64)

struct tierd_nodeset {
	uint64_t bits[TIERD_NODESET_WORDS];
};

void tierd_nodeset_clear(struct tierd_nodeset *set);
/* Returns 0, or -ERANGE when nid is outside [0, TIERD_NODESET_MAX_NODES). */
int tierd_nodeset_add(struct tierd_nodeset *set, int nid);
bool tierd_nodeset_has(const struct tierd_nodeset *set, int nid);
size_t tierd_nodeset_count(const struct tierd_nodeset *set);
bool tierd_nodeset_empty(const struct tierd_nodeset *set);
bool tierd_nodeset_intersects(const struct tierd_nodeset *a, const struct tierd_nodeset *b);
bool tierd_nodeset_equal(const struct tierd_nodeset *a, const struct tierd_nodeset *b);
/* Lowest member after `after` (pass -1 to start), or -1 when none. */
int tierd_nodeset_next(const struct tierd_nodeset *set, int after);

/* Parses the kernel list format ("0-3,5", surrounding white space and one
 * trailing newline allowed, empty string = empty set) into *out.
 * Returns 0, -EINVAL on malformed text (out untouched), -ERANGE on ids out of
 * range. */
int tierd_nodeset_parse(const char *text, struct tierd_nodeset *out);

/* Formats as the kernel would ("0-1,3"); empty set gives "". Returns the
 * length written, or -ENOSPC when it does not fit in size bytes. */
int tierd_nodeset_format(const struct tierd_nodeset *set, char *buf, size_t size);

#endif
