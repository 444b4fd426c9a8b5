/* The reload verdict file; see reload_verdict.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsread.h"
#include "kparse.h"
#include "metrics.h"
#include "reload_verdict.h"
#include "../policy/policy.h"

#define NR_LINES 4

/* Line i of the verdict: its keyword and the rest after one space. */
static const char *const keys[NR_LINES] = { "pid", "generation", "result", "message" };

static bool dec(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	if (n == 0 || (s[0] == '0' && n > 1) || s[0] == '+' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return tierd_kparse_u64(s, n, v) == 0 && *v <= max;
}

int tierd_reload_verdict_parse(const char *text, size_t len, struct tierd_reload_verdict *out,
			       char *err, size_t err_size)
{
	size_t pos = 0;
	uint64_t v;

	*out = (struct tierd_reload_verdict){ 0 };
	if (len == 0 || memchr(text, '\0', len) || text[len - 1] != '\n') {
		snprintf(err, err_size, "expected text lines ending in a newline, without NUL bytes");
		return -EINVAL;
	}
	for (int i = 0; i < NR_LINES; i++) {
		const char *l = text + pos, *val;
		size_t n, k = strlen(keys[i]), vn;

		if (pos >= len) {
			snprintf(err, err_size, "line %d: missing, expected \"%s ...\"", i + 1, keys[i]);
			return -EINVAL;
		}
		n = (size_t)((const char *)memchr(l, '\n', len - pos) - l);
		pos += n + 1;
		if (n <= k || memcmp(l, keys[i], k) != 0 || l[k] != ' ') {
			snprintf(err, err_size, "line %d: expected \"%s ...\"", i + 1, keys[i]);
			return -EINVAL;
		}
		val = l + k + 1;
		vn = n - k - 1;
		if (i == 0 && dec(val, vn, INT_MAX, &v) && v > 0) {
			out->pid = (int)v;
		} else if (i == 1 && dec(val, vn, UINT64_MAX, &v)) {
			out->generation = v;
		} else if (i == 2 && ((vn == 2 && memcmp(val, "ok", 2) == 0) ||
				      (vn == 7 && memcmp(val, "refused", 7) == 0))) {
			out->ok = vn == 2;
		} else if (i == 3 && vn < sizeof(out->message)) {
			memcpy(out->message, val, vn);
			out->message[vn] = '\0';
		} else {
			snprintf(err, err_size, "line %d: bad %s value", i + 1, keys[i]);
			return -EINVAL;
		}
	}
	if (pos != len) {
		snprintf(err, err_size, "line %d: expected the end of the file", NR_LINES + 1);
		return -EINVAL;
	}
	return 0;
}

int tierd_reload_verdict_write(const char *dir, const struct tierd_reload_verdict *v)
{
	char path[TIERD_FILE_PATH_MAX], msg[TIERD_RELOAD_MESSAGE_MAX];
	char *text = NULL;
	int n, r;

	snprintf(msg, sizeof(msg), "%s", v->message[0] ? v->message : "-");
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	n = snprintf(path, sizeof(path), "%s/%s", dir, TIERD_RELOAD_FILE);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (asprintf(&text, "pid %d\ngeneration %" PRIu64 "\nresult %s\nmessage %s\n", v->pid,
		     v->generation, v->ok ? "ok" : "refused", msg) < 0)
		return -ENOMEM;
	r = tierd_write_atomic(path, text, strlen(text));
	free(text);
	return r;
}

int tierd_reload_verdict_read(const char *dir, struct tierd_reload_verdict *out, char *err,
			      size_t err_size)
{
	char path[TIERD_FILE_PATH_MAX], why[256];
	struct tierd_buf b = { 0 };
	int n, r;

	n = snprintf(path, sizeof(path), "%s/%s", dir, TIERD_RELOAD_FILE);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = tierd_read_at(AT_FDCWD, path, &b);
	if (r < 0) {
		snprintf(err, err_size, "%s: %s", path, strerror(-r));
		return r;
	}
	r = tierd_reload_verdict_parse(b.data, b.len, out, why, sizeof(why));
	if (r < 0)
		snprintf(err, err_size, "%s: %s", path, why);
	tierd_buf_free(&b);
	return r;
}
