/* Diagnostics collected while validating a file: every error with its file,
 * line, column, key path and what was expected, so `tierctl validate` can
 * print all of them and the daemon can log why it refused a reload. Pure. */
#ifndef TIERD_DIAG_H
#define TIERD_DIAG_H

#include <stddef.h>

#define TIERD_DIAG_MSG_MAX 512

struct tierd_diag {
	int line, column;
	char message[TIERD_DIAG_MSG_MAX]; /* "FILE:LINE:COL: KEY: expected ..." or "FILE: ..." */
};

struct tierd_diags {
	size_t nr;
	size_t cap;
	struct tierd_diag *items;
	int oom;                          /* an error could not be recorded */
};

/* Records "file:line:col: key: message", or "file: message" for line 0
 * (the file as a whole). key may be NULL or "" for errors about the
 * document itself. Never fails: on allocation failure it sets
 * diags->oom and drops the message. */
void tierd_diags_add(struct tierd_diags *diags, const char *file, int line, int column,
		     const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Orders the diagnostics from index `from` on by line and column, keeping
 * the order of those at one place: a file's errors read top to bottom. */
void tierd_diags_sort_from(struct tierd_diags *diags, size_t from);
void tierd_diags_free(struct tierd_diags *diags);

#endif
