/* A position index over a JSON text that json-c has already accepted. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_locate.h"

/* Deep enough for any policy; json-c's own default limit is 32. */
#define LOCATE_MAX_DEPTH 64

struct scanner {
	const char *text;
	size_t len;
	size_t pos;
	struct tierd_json_locs *locs;
	int quiet;  /* > 0 while skipping the value of a duplicate key */
};

/* Text the scanner cannot follow: json-c's strict mode still takes
 * single-quoted keys, which are not JSON and which the scanner would
 * misread; anything else that stops it moving on is refused too, rather
 * than scanned forever (a fuzzer found that loop). */
static int refuse(struct scanner *s)
{
	s->locs->error_offset = s->pos;
	return -EINVAL;
}

static void skip_ws(struct scanner *s)
{
	while (s->pos < s->len && strchr(" \t\r\n", s->text[s->pos]) && s->text[s->pos])
		s->pos++;
}

static int record(struct scanner *s, const char *path, size_t key_offset)
{
	struct tierd_json_locs *l = s->locs;

	if (s->quiet)
		return 0;
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct tierd_json_loc *items = realloc(l->items, cap * sizeof(*items));

		if (!items)
			return -ENOMEM;
		l->items = items;
		l->cap = cap;
	}
	l->items[l->nr].path = strdup(path);
	if (!l->items[l->nr].path)
		return -ENOMEM;
	l->items[l->nr].offset = s->pos;
	l->items[l->nr].key_offset = key_offset;
	l->nr++;
	return 0;
}

/* A key written twice in one object: json-c keeps the last value, so the
 * first record takes the later position and the path is noted. Only the
 * object's own keys are compared, so a long document stays linear. */
static int note_duplicate(struct scanner *s, size_t first, size_t key_offset)
{
	struct tierd_json_locs *l = s->locs;
	char **d = realloc(l->duplicates, (l->nr_duplicates + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	l->duplicates = d;
	d[l->nr_duplicates] = strdup(l->items[first].path);
	if (!d[l->nr_duplicates])
		return -ENOMEM;
	l->nr_duplicates++;
	l->items[first].offset = s->pos;
	l->items[first].key_offset = key_offset;
	return 0;
}

/* Copies the raw key between quotes (escapes kept as written: keys that
 * need them are unknown keys anyway) and steps past the closing quote. */
static char *read_key(struct scanner *s)
{
	size_t start = ++s->pos;
	char *key;

	while (s->pos < s->len && s->text[s->pos] != '"') {
		if (s->text[s->pos] == '\\')
			s->pos++;
		s->pos++;
	}
	key = strndup(s->text + start, s->pos - start);
	s->pos++;
	return key;
}

static void skip_string(struct scanner *s)
{
	free(read_key(s));
}

static int scan_value(struct scanner *s, const char *path, size_t key_offset, int depth);

/* Members of an object (close '}') or items of an array (close ']'). For
 * objects, first[] remembers where each key's record is, to find keys
 * written twice. */
static int scan_children(struct scanner *s, const char *path, int depth, char close)
{
	size_t index = 0, nr_keys = 0, *first = NULL;
	int r = 0;

	s->pos++;
	for (;;) {
		char *child = NULL;
		size_t key_offset, dup = SIZE_MAX;

		skip_ws(s);
		if (s->pos >= s->len || s->text[s->pos] == close)
			break;
		key_offset = s->pos;
		if (close == '}') {
			char *key;
			size_t *f;

			if (s->text[s->pos] != '"') {
				r = refuse(s);
				break;
			}
			key = read_key(s);

			if (!key) {
				r = -ENOMEM;
				break;
			}
			r = asprintf(&child, "%s%s%s", path, *path ? "." : "", key);
			free(key);
			if (r < 0) {
				r = -ENOMEM;
				break;
			}
			for (size_t k = 0; !s->quiet && k < nr_keys && dup == SIZE_MAX; k++)
				if (strcmp(s->locs->items[first[k]].path, child) == 0)
					dup = first[k];
			f = realloc(first, (nr_keys + 1) * sizeof(*first));
			if (!f) {
				free(child);
				r = -ENOMEM;
				break;
			}
			first = f;
			skip_ws(s);
			s->pos++; /* ':' */
			skip_ws(s);
		} else if (asprintf(&child, "%s[%zu]", path, index++) < 0) {
			r = -ENOMEM;
			break;
		}
		if (dup != SIZE_MAX) {
			/* The first record now points here; the value's own
			 * children are not recorded twice. */
			r = note_duplicate(s, dup, key_offset);
			s->quiet++;
			if (r == 0)
				r = scan_value(s, child, key_offset, depth + 1);
			s->quiet--;
		} else {
			if (close == '}' && !s->quiet)
				first[nr_keys++] = s->locs->nr;
			r = scan_value(s, child, close == '}' ? key_offset : SIZE_MAX, depth + 1);
		}
		free(child);
		if (r == 0 && s->pos == key_offset)
			r = refuse(s);
		if (r < 0)
			break;
		skip_ws(s);
		if (s->pos < s->len && s->text[s->pos] == ',')
			s->pos++;
	}
	free(first);
	if (r < 0)
		return r;
	s->pos++;
	return 0;
}

/* key_offset SIZE_MAX: no key (array items, the document): the value's own. */
static int scan_value(struct scanner *s, const char *path, size_t key_offset, int depth)
{
	int r;

	if (depth > LOCATE_MAX_DEPTH)
		return refuse(s);
	skip_ws(s);
	if (s->pos >= s->len)
		return 0;
	r = record(s, path, key_offset == SIZE_MAX ? s->pos : key_offset);
	if (r < 0)
		return r;
	switch (s->text[s->pos]) {
	case '{':
		return scan_children(s, path, depth, '}');
	case '[':
		return scan_children(s, path, depth, ']');
	case '"':
		skip_string(s);
		return 0;
	default:
		while (s->pos < s->len && !strchr(",]} \t\r\n", s->text[s->pos]))
			s->pos++;
		return 0;
	}
}

int tierd_json_locate(const char *text, size_t len, struct tierd_json_locs *locs)
{
	struct scanner s = { .text = text, .len = len, .pos = 0, .locs = locs };
	int r;

	memset(locs, 0, sizeof(*locs));
	r = scan_value(&s, "", SIZE_MAX, 0);
	if (r < 0) {
		size_t at = locs->error_offset;

		tierd_json_locs_free(locs);
		locs->error_offset = at;
	}
	return r;
}

void tierd_json_locs_free(struct tierd_json_locs *locs)
{
	for (size_t i = 0; i < locs->nr; i++)
		free(locs->items[i].path);
	for (size_t i = 0; i < locs->nr_duplicates; i++)
		free(locs->duplicates[i]);
	free(locs->items);
	free(locs->duplicates);
	memset(locs, 0, sizeof(*locs));
}

size_t tierd_json_locs_find_key(const struct tierd_json_locs *locs, const char *path)
{
	for (size_t i = 0; i < locs->nr; i++)
		if (strcmp(locs->items[i].path, path) == 0)
			return locs->items[i].key_offset;
	return tierd_json_locs_find(locs, path);
}

size_t tierd_json_locs_find(const struct tierd_json_locs *locs, const char *path)
{
	char buf[1024];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
	for (;;) {
		for (size_t i = 0; i < locs->nr; i++)
			if (strcmp(locs->items[i].path, buf) == 0)
				return locs->items[i].offset;
		if (!*buf)
			return 0;
		/* Drop the last component: ".key" or "[n]". */
		char *cut = buf + strlen(buf);

		while (cut > buf && cut[-1] != '.' && cut[-1] != '[')
			cut--;
		if (cut > buf)
			cut--;
		*cut = '\0';
	}
}

void tierd_json_line_col(const char *text, size_t len, size_t offset, int *ret_line,
			 int *ret_col)
{
	int line = 1, col = 1;

	for (size_t i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	*ret_line = line;
	*ret_col = col;
}
