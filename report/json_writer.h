/* A JSON text written as it goes, for the state file the daemon rewrites
 * every tick: building a json-c tree for a thousand cgroups and freeing it
 * again took a fifth of a tick's CPU (bench/scale/README.md). The text is
 * what json-c's plain form writes (no spaces, '/' not escaped), so that the
 * reader, which uses json-c, and the fuzzers see the same documents.
 *
 * Errors stick: after one, every call does nothing, and tierd_jw_finish()
 * returns it. Keys are NULL for array elements and the outermost value. */
#ifndef TIERD_JSON_WRITER_H
#define TIERD_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tierd_jw {
	char *text;
	size_t len, cap;
	int error;         /* 0 or -ENOMEM */
	bool need_comma;   /* a value was written in the open object or array */
};

void tierd_jw_begin_object(struct tierd_jw *w, const char *key);
void tierd_jw_end_object(struct tierd_jw *w);
void tierd_jw_begin_array(struct tierd_jw *w, const char *key);
void tierd_jw_end_array(struct tierd_jw *w);
void tierd_jw_u64(struct tierd_jw *w, const char *key, uint64_t v);
void tierd_jw_int(struct tierd_jw *w, const char *key, int v);
void tierd_jw_bool(struct tierd_jw *w, const char *key, bool v);
/* Escaped as json-c does: '"', '\\' and control characters. */
void tierd_jw_str(struct tierd_jw *w, const char *key, const char *v);

/* Records an error the caller met while gathering what to write. */
void tierd_jw_fail(struct tierd_jw *w, int error);

/* Hands the NUL-terminated text to *ret_text (the caller frees it) and
 * returns 0, or frees it and returns the first error. */
int tierd_jw_finish(struct tierd_jw *w, char **ret_text);

#endif
