/* Collected validation errors. */
#include <stdarg.h>
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
	if (key && *key)
		n = snprintf(d->message, sizeof(d->message), "%s:%d:%d: %s: ", file, line, column, key);
	else
		n = snprintf(d->message, sizeof(d->message), "%s:%d:%d: ", file, line, column);
	if (n < 0 || (size_t)n >= sizeof(d->message))
		return;
	va_start(ap, fmt);
	vsnprintf(d->message + n, sizeof(d->message) - (size_t)n, fmt, ap);
	va_end(ap);
}

void tierd_diags_free(struct tierd_diags *diags)
{
	free(diags->items);
	diags->items = NULL;
	diags->nr = diags->cap = 0;
	diags->oom = 0;
}
