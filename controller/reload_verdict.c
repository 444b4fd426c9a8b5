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

/* where is "" or "path: " for messages. */
static int parse(const char *text, size_t len, struct tierd_reload_verdict *out, const char *where,
		 const struct tierd_logger *log)
{
	size_t pos = 0;
	uint64_t v;

	*out = (struct tierd_reload_verdict){ 0 };
	if (len == 0 || memchr(text, '\0', len) || text[len - 1] != '\n')
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%sexpected text lines ending in a newline, without NUL bytes",
				       where);
	for (int i = 0; i < NR_LINES; i++) {
		const char *l = text + pos, *val;
		size_t n, k = strlen(keys[i]), vn;

		if (pos >= len)
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: missing, expected \"%s ...\"",
					       where, i + 1, keys[i]);
		n = (size_t)((const char *)memchr(l, '\n', len - pos) - l);
		pos += n + 1;
		if (n <= k || memcmp(l, keys[i], k) != 0 || l[k] != ' ')
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: expected \"%s ...\"",
					       where, i + 1, keys[i]);
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
			return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
					       "%sline %d: bad %s value", where, i + 1, keys[i]);
		}
	}
	if (pos != len)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, -EINVAL,
				       "%sline %d: expected the end of the file",
				       where, NR_LINES + 1);
	return 0;
}

int tierd_reload_verdict_parse(const char *text, size_t len, struct tierd_reload_verdict *out,
			       const struct tierd_logger *log)
{
	return parse(text, len, out, "", log);
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

int tierd_reload_verdict_read(const char *dir, struct tierd_reload_verdict *out,
			      const struct tierd_logger *log)
{
	char path[TIERD_FILE_PATH_MAX], where[TIERD_FILE_PATH_MAX + sizeof(": ")];
	struct tierd_buf b = { 0 };
	int n, r;

	n = snprintf(path, sizeof(path), "%s/%s", dir, TIERD_RELOAD_FILE);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = tierd_read_at(AT_FDCWD, path, &b);
	if (r < 0)
		return tierd_log_errno(log, TIERD_LOG_DEBUG, r, "%s", path);
	snprintf(where, sizeof(where), "%s: ", path);
	r = parse(b.data, b.len, out, where, log);
	tierd_buf_free(&b);
	return r;
}
