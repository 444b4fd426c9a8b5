/* A growable list of actions, as strategies propose them. */
#include <errno.h>
#include <stdlib.h>

#include "strategy.h"

int tierd_action_list_push(struct tierd_action_list *l, const struct tierd_action *a)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct tierd_action *items = realloc(l->items, cap * sizeof(*items));

		if (!items)
			return -ENOMEM;
		l->items = items;
		l->cap = cap;
	}
	l->items[l->nr++] = *a;
	return 0;
}

void tierd_action_list_free(struct tierd_action_list *l)
{
	free(l->items);
	l->items = NULL;
	l->nr = l->cap = 0;
}
