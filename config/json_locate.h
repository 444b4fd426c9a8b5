/* Where each value of a JSON document starts, by key path ("tiers[1].max"),
 * because json-c reports no positions once a document has parsed. The
 * scanner runs on text json-c already accepted. It also finds duplicate keys,
 * which json-c silently collapses to the last one. Pure. */
#ifndef TIERD_JSON_LOCATE_H
#define TIERD_JSON_LOCATE_H

#include <stddef.h>

struct tierd_json_loc {
	char *path;
	size_t offset;      /* the value */
	size_t key_offset;  /* its key's opening quote; the value's for array items */
};

struct tierd_json_locs {
	size_t nr, cap;
	struct tierd_json_loc *items;
	size_t nr_duplicates;
	char **duplicates;             /* key paths written twice in one object */
	size_t error_offset;           /* where -EINVAL stopped the scan */
};

/* Returns 0, -ENOMEM, or -EINVAL (error_offset set) for what json-c takes
 * but JSON does not: a single-quoted key. */
int tierd_json_locate(const char *text, size_t len, struct tierd_json_locs *locs);
void tierd_json_locs_free(struct tierd_json_locs *locs);

/* Offset of the value at path; for a path not found, that of its nearest
 * recorded parent (the document itself is at the first non-blank byte). */
size_t tierd_json_locs_find(const struct tierd_json_locs *locs, const char *path);

/* Offset of the key of the member at path (for unknown and duplicate keys),
 * else as tierd_json_locs_find. */
size_t tierd_json_locs_find_key(const struct tierd_json_locs *locs, const char *path);

/* 1-based line and column of a byte offset. */
void tierd_json_line_col(const char *text, size_t len, size_t offset, int *ret_line,
			 int *ret_col);

#endif
