/* Streaming JSON text; see json_writer.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

/* The first buffer: a small report fits, a large one doubles a few times. */
#define JW_MIN_CAP 4096u
/* Longer than any formatted integer ("-2147483648", 20 digits of a u64). */
#define JW_NUM_MAX 24u
/* Bytes below this are control characters and are escaped (RFC 8259 §7). */
#define JW_FIRST_PRINTABLE 0x20u

static bool reserve(struct tierd_jw *w, size_t more)
{
	size_t want = w->cap ? w->cap : JW_MIN_CAP;
	char *p;

	if (w->error)
		return false;
	while (want - w->len <= more) {
		if (want > SIZE_MAX / 2) {
			w->error = -ENOMEM;
			return false;
		}
		want *= 2;
	}
	if (want == w->cap)
		return true;
	p = realloc(w->text, want);
	if (!p) {
		w->error = -ENOMEM;
		return false;
	}
	w->text = p;
	w->cap = want;
	return true;
}

static void put(struct tierd_jw *w, const char *s, size_t n)
{
	if (!reserve(w, n))
		return;
	memcpy(w->text + w->len, s, n);
	w->len += n;
	w->text[w->len] = '\0';
}

static void put_escaped(struct tierd_jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	put(w, "\"", 1);
	while (*p) {
		const unsigned char *run = p;

		while (*p >= JW_FIRST_PRINTABLE && *p != '"' && *p != '\\')
			p++;
		put(w, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		switch (*p) {
		case '"':  put(w, "\\\"", 2); break;
		case '\\': put(w, "\\\\", 2); break;
		case '\b': put(w, "\\b", 2); break;
		case '\f': put(w, "\\f", 2); break;
		case '\n': put(w, "\\n", 2); break;
		case '\r': put(w, "\\r", 2); break;
		case '\t': put(w, "\\t", 2); break;
		default: {
			const char esc[] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf] };

			put(w, esc, sizeof(esc));
			break;
		}
		}
		p++;
	}
	put(w, "\"", 1);
}

/* The comma before a value and its key. */
static void start_value(struct tierd_jw *w, const char *key)
{
	if (w->need_comma)
		put(w, ",", 1);
	if (key) {
		put_escaped(w, key);
		put(w, ":", 1);
	}
	w->need_comma = true;
}

void tierd_jw_begin_object(struct tierd_jw *w, const char *key)
{
	start_value(w, key);
	put(w, "{", 1);
	w->need_comma = false;
}

void tierd_jw_end_object(struct tierd_jw *w)
{
	put(w, "}", 1);
	w->need_comma = true;
}

void tierd_jw_begin_array(struct tierd_jw *w, const char *key)
{
	start_value(w, key);
	put(w, "[", 1);
	w->need_comma = false;
}

void tierd_jw_end_array(struct tierd_jw *w)
{
	put(w, "]", 1);
	w->need_comma = true;
}

void tierd_jw_u64(struct tierd_jw *w, const char *key, uint64_t v)
{
	char num[JW_NUM_MAX];
	int n = snprintf(num, sizeof(num), "%" PRIu64, v);

	start_value(w, key);
	put(w, num, (size_t)n);
}

void tierd_jw_int(struct tierd_jw *w, const char *key, int v)
{
	char num[JW_NUM_MAX];
	int n = snprintf(num, sizeof(num), "%d", v);

	start_value(w, key);
	put(w, num, (size_t)n);
}

void tierd_jw_bool(struct tierd_jw *w, const char *key, bool v)
{
	start_value(w, key);
	if (v)
		put(w, "true", strlen("true"));
	else
		put(w, "false", strlen("false"));
}

void tierd_jw_str(struct tierd_jw *w, const char *key, const char *v)
{
	start_value(w, key);
	put_escaped(w, v);
}

void tierd_jw_fail(struct tierd_jw *w, int error)
{
	if (!w->error)
		w->error = error;
}

int tierd_jw_finish(struct tierd_jw *w, char **ret_text)
{
	int r = w->error;

	if (!r && !w->text)
		put(w, "", 0);
	r = w->error;
	if (r) {
		free(w->text);
		*w = (struct tierd_jw){ 0 };
		return r;
	}
	*ret_text = w->text;
	*w = (struct tierd_jw){ 0 };
	return 0;
}
