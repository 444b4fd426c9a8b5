/* Collected validation errors. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"

void tierd_diags_add(struct tierd_diags *diags, const char *file, int line, int column,
		     const char *key, const char *fmt, ...)
{
	struct tierd_diag *d;
	va_list ap;
	int n;

	if (diags->nr == diags->cap) {
		size_t cap = diags->cap ? diags->cap * 2 : 8;
		struct tierd_diag *items = realloc(diags->items, cap * sizeof(*items));

		if (!items) {
			diags->oom = 1;
			return;
		}
		diags->items = items;
		diags->cap = cap;
	}
	d = &diags->items[diags->nr++];
	d->line = line;
	d->column = column;
	/* Line 0: about the file as a whole (unreadable, refused), no place
	 * in it to point at. */
	if (line == 0)
		n = snprintf(d->message, sizeof(d->message), "%s: ", file);
	else if (key && *key)
		n = snprintf(d->message, sizeof(d->message), "%s:%d:%d: %s: ", file, line, column, key);
	else
		n = snprintf(d->message, sizeof(d->message), "%s:%d:%d: ", file, line, column);
	if (n < 0 || (size_t)n >= sizeof(d->message))
		return;
	va_start(ap, fmt);
	vsnprintf(d->message + n, sizeof(d->message) - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool before(const struct tierd_diag *a, const struct tierd_diag *b)
{
	return a->line < b->line || (a->line == b->line && a->column < b->column);
}

void tierd_diags_sort_from(struct tierd_diags *diags, size_t from)
{
	/* Insertion sort: stable, and a file has a handful of errors. */
	for (size_t i = from + 1; i < diags->nr; i++) {
		struct tierd_diag d = diags->items[i];
		size_t j = i;

		for (; j > from && before(&d, &diags->items[j - 1]); j--)
			diags->items[j] = diags->items[j - 1];
		diags->items[j] = d;
	}
}

void tierd_diags_free(struct tierd_diags *diags)
{
	free(diags->items);
	diags->items = NULL;
	diags->nr = diags->cap = 0;
	diags->oom = 0;
}
