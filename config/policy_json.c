/* Policies and the global configuration from JSON (json-c), validated key by
 * key. Every error names file:line:col, the key path and what was expected,
 * and parsing goes on so one pass reports every error. Unknown keys are
 * errors: a typo must not pass silently. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../controller/fd_util.h"
#include "../policy/engine.h"
#include "json_locate.h"
#include "json_text.h"
#include "policy_json.h"
#include "strategy_keys.h"
#include "../policy/strategy.h"
#include "trusted_file.h"
#include "../policy/units.h"
#include "../policy/util.h"

/* json-c's default nesting limit. */
#define JSON_MAX_DEPTH 32
/* Largest "sampling" rate and burst: 1,000,000 samples/s of one CPU fill the
 * sampler's 1 MiB ring (16,384 records, bpf/tierd_sampler.h) in 16 ms, so more
 * would limit nothing; burst * 10^9 nanotokens stays far inside 64 bits. */
#define SAMPLING_MAX 1000000

struct ctx {
	const char *file;
	const char *text;
	size_t len;
	struct tierd_json_locs locs;
	struct tierd_diags *diags;
	unsigned errors;
};

static void verr(struct ctx *c, const char *path, bool at_key, const char *fmt, va_list ap)
{
	char msg[TIERD_DIAG_MSG_MAX];
	size_t off = at_key ? tierd_json_locs_find_key(&c->locs, path)
			    : tierd_json_locs_find(&c->locs, path);
	int line, col;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	tierd_json_line_col(c->text, c->len, off, &line, &col);
	tierd_diags_add(c->diags, c->file, line, col, path, "%s", msg);
	c->errors++;
}

static void __attribute__((format(printf, 3, 4))) err(struct ctx *c, const char *path,
						       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(c, path, false, fmt, ap);
	va_end(ap);
}

/* For errors about the key itself (unknown, written twice): its position. */
static void __attribute__((format(printf, 3, 4))) err_key(struct ctx *c, const char *path,
							   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(c, path, true, fmt, ap);
	va_end(ap);
}

static const char *type_name(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a fractional number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "?";
}

static void child_path(char *buf, size_t size, const char *path, const char *key)
{
	snprintf(buf, size, "%s%s%s", path, *path ? "." : "", key);
}

/* Reports every key of obj that is not in allowed (NULL-terminated). */
static void check_keys(struct ctx *c, json_object *obj, const char *path,
		       const char *const *allowed)
{
	json_object_object_foreach(obj, key, val) {
		char p[TIERD_PATTERN_MAX], list[512] = "";
		bool ok = false;

		(void)val;
		for (size_t i = 0; allowed[i]; i++) {
			ok |= strcmp(key, allowed[i]) == 0;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", allowed[i]);
		}
		if (ok)
			continue;
		child_path(p, sizeof(p), path, key);
		err_key(c, p, "unknown key; expected one of: %s", list);
	}
}

static bool expect_type(struct ctx *c, json_object *o, const char *path, json_type type,
			const char *what)
{
	if (json_object_get_type(o) == type)
		return true;
	err(c, path, "expected %s, got %s", what, type_name(o));
	return false;
}

static int get_string(struct ctx *c, json_object *o, const char *path, char *buf, size_t size)
{
	const char *s;

	if (!expect_type(c, o, path, json_type_string, "a string"))
		return -EINVAL;
	s = json_object_get_string(o);
	if (strlen(s) >= size) {
		err(c, path, "expected at most %zu characters, got %zu", size - 1, strlen(s));
		return -EINVAL;
	}
	strcpy(buf, s);
	return 0;
}

static int get_int(struct ctx *c, json_object *o, const char *path, int64_t min, int64_t max,
		   int64_t *ret)
{
	int64_t v;

	if (!expect_type(c, o, path, json_type_int, "an integer"))
		return -EINVAL;
	v = json_object_get_int64(o);
	if (v < min || v > max) {
		err(c, path, "expected an integer from %lld to %lld, got %lld", (long long)min,
		    (long long)max, (long long)v);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int get_duration(struct ctx *c, json_object *o, const char *path, uint64_t *ret)
{
	const char *s;

	if (!expect_type(c, o, path, json_type_string, "a duration string such as \"10s\""))
		return -EINVAL;
	s = json_object_get_string(o);
	if (tierd_parse_duration(s, ret) < 0 || *ret == 0) {
		err(c, path, "expected a positive duration with a unit (us, ms, s, m, h), got \"%s\"",
		    s);
		return -EINVAL;
	}
	return 0;
}

static int get_bytes(struct ctx *c, json_object *o, const char *path, uint64_t *ret)
{
	const char *s;
	int64_t v;

	if (json_object_get_type(o) == json_type_int) {
		v = json_object_get_int64(o);
		if (v < 0) {
			err(c, path, "expected a size in bytes of 0 or more, got %lld", (long long)v);
			return -EINVAL;
		}
		*ret = (uint64_t)v;
		return 0;
	}
	if (!expect_type(c, o, path, json_type_string, "a size such as \"512M\""))
		return -EINVAL;
	s = json_object_get_string(o);
	if (tierd_parse_bytes(s, ret) < 0) {
		err(c, path, "expected a size such as \"512M\" or \"4G\" (K, M, G, T, P, E), got \"%s\"", s);
		return -EINVAL;
	}
	return 0;
}

/* A budget amount: bytes ("512M", 536870912), percent of the cgroup's usage
 * ("25%", "25%usage") or of the tier's capacity ("10%capacity"). */
static int get_amount(struct ctx *c, json_object *o, const char *path, struct tierd_amount *ret)
{
	const char *s, *rest;

	if (json_object_get_type(o) == json_type_string && strchr(json_object_get_string(o), '%')) {
		s = json_object_get_string(o);
		if (tierd_parse_percent(s, &ret->pmy, &rest) < 0) {
			err(c, path, "expected a percentage from 0%% to 100%% with at most two decimals, got \"%s\"",
			    s);
			return -EINVAL;
		}
		if (!*rest || strcmp(rest, "usage") == 0) {
			ret->kind = TIERD_AMOUNT_PCT_USAGE;
		} else if (strcmp(rest, "capacity") == 0) {
			ret->kind = TIERD_AMOUNT_PCT_CAPACITY;
		} else {
			err(c, path, "expected \"N%%\", \"N%%usage\" or \"N%%capacity\", got \"%s\"", s);
			return -EINVAL;
		}
		return 0;
	}
	ret->kind = TIERD_AMOUNT_BYTES;
	return get_bytes(c, o, path, &ret->bytes);
}

static int get_migration_budget(struct ctx *c, json_object *o, const char *path,
				struct tierd_migration_budget *ret)
{
	static const char *const keys[] = { "bytes", "period", NULL };
	char p[TIERD_PATTERN_MAX];
	json_object *v;
	int r = 0;

	if (!expect_type(c, o, path, json_type_object, "an object {\"bytes\": ..., \"period\": ...}"))
		return -EINVAL;
	check_keys(c, o, path, keys);
	child_path(p, sizeof(p), path, "bytes");
	if (!json_object_object_get_ex(o, "bytes", &v)) {
		err(c, path, "missing key \"bytes\"");
		r = -EINVAL;
	} else if (get_bytes(c, v, p, &ret->bytes) < 0) {
		r = -EINVAL;
	}
	child_path(p, sizeof(p), path, "period");
	if (!json_object_object_get_ex(o, "period", &v)) {
		err(c, path, "missing key \"period\"");
		r = -EINVAL;
	} else if (get_duration(c, v, p, &ret->period_usec) < 0) {
		r = -EINVAL;
	}
	return r;
}

/* "sampling": {"rate": N, "burst": N}, each optional: the BPF sampler's token
 * bucket for the policy's cgroups, per CPU. */
static void parse_sampling(struct ctx *c, json_object *o, struct tierd_policy *p)
{
	static const char *const keys[] = { "rate", "burst", NULL };
	json_object *v;
	int64_t n;

	if (!expect_type(c, o, "sampling", json_type_object,
			 "an object {\"rate\": ..., \"burst\": ...}"))
		return;
	check_keys(c, o, "sampling", keys);
	if (json_object_object_get_ex(o, "rate", &v) &&
	    get_int(c, v, "sampling.rate", 1, SAMPLING_MAX, &n) == 0)
		p->sampling_rate = (uint32_t)n;
	if (json_object_object_get_ex(o, "burst", &v) &&
	    get_int(c, v, "sampling.burst", 1, SAMPLING_MAX, &n) == 0)
		p->sampling_burst = (uint32_t)n;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-@", *s))
			return false;
	return true;
}

static void parse_match_entry(struct ctx *c, json_object *o, const char *path,
			      struct tierd_policy *p)
{
	static const char *const keys[] = { "path", "glob", "unit", NULL };
	struct tierd_match *m;
	char kp[TIERD_PATTERN_MAX];
	int n = 0;

	if (!expect_type(c, o, path, json_type_object,
			 "an object with one of \"path\", \"glob\", \"unit\""))
		return;
	check_keys(c, o, path, keys);
	json_object_object_foreach(o, key, val) {
		enum tierd_match_kind kind;

		if (strcmp(key, "path") == 0)
			kind = TIERD_MATCH_PATH;
		else if (strcmp(key, "glob") == 0)
			kind = TIERD_MATCH_GLOB;
		else if (strcmp(key, "unit") == 0)
			kind = TIERD_MATCH_UNIT;
		else
			continue;
		if (++n > 1) {
			err(c, path, "expected exactly one of \"path\", \"glob\", \"unit\"");
			return;
		}
		if (p->nr_matches == TIERD_MAX_MATCHES) {
			err(c, path, "expected at most %d match entries", TIERD_MAX_MATCHES);
			return;
		}
		child_path(kp, sizeof(kp), path, key);
		m = &p->matches[p->nr_matches];
		m->kind = kind;
		if (get_string(c, val, kp, m->pattern, sizeof(m->pattern)) < 0)
			return;
		if (kind != TIERD_MATCH_UNIT && m->pattern[0] != '/') {
			err(c, kp, "expected a cgroup path starting with \"/\", got \"%s\"", m->pattern);
			return;
		}
		if (kind == TIERD_MATCH_UNIT && (strchr(m->pattern, '/') || !strchr(m->pattern, '.'))) {
			err(c, kp, "expected a unit name such as \"nginx.service\" or \"batch.slice\", got \"%s\"",
			    m->pattern);
			return;
		}
		p->nr_matches++;
	}
	if (n == 0)
		err(c, path, "expected one of \"path\", \"glob\", \"unit\"");
}

static void parse_match(struct ctx *c, json_object *o, struct tierd_policy *p)
{
	char path[32];

	if (json_object_get_type(o) == json_type_array) {
		size_t n = json_object_array_length(o);

		if (n == 0)
			err(c, "match", "expected at least one match entry");
		for (size_t i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "match[%zu]", i);
			parse_match_entry(c, json_object_array_get_idx(o, i), path, p);
		}
		return;
	}
	parse_match_entry(c, o, "match", p);
}

/* min > max is impossible only when both are of one kind. */
static void check_min_max(struct ctx *c, const struct tierd_tier_budget *b, const char *path)
{
	char p[TIERD_PATTERN_MAX];
	bool over;

	if (!b->has_min || b->min.kind != b->max.kind)
		return;
	over = b->min.kind == TIERD_AMOUNT_BYTES ? b->min.bytes > b->max.bytes
						  : b->min.pmy > b->max.pmy;
	if (over) {
		child_path(p, sizeof(p), path, "min");
		err(c, p, "min is above max: a tier budget needs min <= max");
	}
}

static void parse_tier(struct ctx *c, json_object *o, const char *path, struct tierd_policy *p)
{
	static const char *const keys[] = { "tier", "nodes", "max", "min", NULL };
	struct tierd_tier_budget b = { 0 };
	char kp[TIERD_PATTERN_MAX];
	json_object *v, *vn;
	bool has_tier, has_nodes, ok = true;
	int64_t idx;
	size_t off;

	if (!expect_type(c, o, path, json_type_object, "an object {\"tier\" or \"nodes\", \"max\", \"min\"}"))
		return;
	check_keys(c, o, path, keys);
	off = tierd_json_locs_find(&c->locs, path);
	tierd_json_line_col(c->text, c->len, off, &b.line, &b.column);

	has_tier = json_object_object_get_ex(o, "tier", &v);
	has_nodes = json_object_object_get_ex(o, "nodes", &vn);
	if (has_tier == has_nodes) {
		err(c, path, "expected exactly one of \"tier\" (index from the fastest, 0) or \"nodes\" (node list)");
		ok = false;
	} else if (has_tier) {
		child_path(kp, sizeof(kp), path, "tier");
		if (get_int(c, v, kp, 0, TIERD_MAX_TIERS - 1, &idx) < 0)
			ok = false;
		b.selector = TIERD_SELECT_INDEX;
		b.index = (int)idx;
	} else {
		child_path(kp, sizeof(kp), path, "nodes");
		b.selector = TIERD_SELECT_NODES;
		if (!expect_type(c, vn, kp, json_type_string, "a node list string such as \"2-3\"")) {
			ok = false;
		} else if (tierd_nodeset_parse(json_object_get_string(vn), &b.nodes) < 0 ||
			   tierd_nodeset_empty(&b.nodes)) {
			err(c, kp, "expected a node list such as \"1\" or \"2-3\", got \"%s\"",
			    json_object_get_string(vn));
			ok = false;
		}
	}

	child_path(kp, sizeof(kp), path, "max");
	if (!json_object_object_get_ex(o, "max", &v)) {
		err(c, path, "missing key \"max\"");
		ok = false;
	} else if (get_amount(c, v, kp, &b.max) < 0) {
		ok = false;
	}
	child_path(kp, sizeof(kp), path, "min");
	if (json_object_object_get_ex(o, "min", &v)) {
		b.has_min = true;
		if (get_amount(c, v, kp, &b.min) < 0)
			ok = false;
	}
	if (!ok)
		return;
	check_min_max(c, &b, path);
	for (size_t i = 0; i < p->nr_tiers; i++) {
		const struct tierd_tier_budget *o2 = &p->tiers[i];
		bool same = b.selector == o2->selector &&
			    (b.selector == TIERD_SELECT_INDEX ? b.index == o2->index
							      : tierd_nodeset_equal(&b.nodes, &o2->nodes));

		if (same) {
			err(c, path, "this tier already has a budget at line %d, column %d",
			    o2->line, o2->column);
			return;
		}
	}
	p->tiers[p->nr_tiers++] = b;
}

static void parse_tiers(struct ctx *c, json_object *o, struct tierd_policy *p)
{
	char path[32];
	size_t n;

	if (!expect_type(c, o, "tiers", json_type_array, "an array of tier budgets"))
		return;
	n = json_object_array_length(o);
	if (n > TIERD_MAX_TIERS) {
		err(c, "tiers", "expected at most %d tier budgets, got %zu", TIERD_MAX_TIERS, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "tiers[%zu]", i);
		parse_tier(c, json_object_array_get_idx(o, i), path, p);
	}
}

static int strategy_from_name(const char *s, enum tierd_strategy *ret)
{
	for (int i = 0; i < TIERD_STRATEGY_NR; i++) {
		if (strcmp(s, tierd_strategy_name((enum tierd_strategy)i)) == 0) {
			*ret = (enum tierd_strategy)i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_strategy_name(struct ctx *c, json_object *o, const char *path,
			       struct tierd_policy *p)
{
	if (!expect_type(c, o, path, json_type_string, "a strategy name"))
		return -EINVAL;
	if (strategy_from_name(json_object_get_string(o), &p->strategy) < 0) {
		char list[256] = "";

		for (int i = 0; i < TIERD_STRATEGY_NR; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
				 tierd_strategy_name((enum tierd_strategy)i));
		err(c, path, "expected one of: %s; got \"%s\"", list, json_object_get_string(o));
		return -EINVAL;
	}
	return 0;
}

/* The params are read once, here, into the strategy's typed params, which
 * the policy carries to the strategy's init. The message names the key
 * inside params. */
static int check_params(struct ctx *c, struct tierd_policy *p)
{
	char msg[TIERD_DIAG_MSG_MAX] = "", path[TIERD_PATTERN_MAX];
	const char *text;
	int r;

	if (p->strategy == TIERD_STRATEGY_NONE) {
		if (p->strategy_params_json)
			err(c, "strategy.params", "strategy \"none\" takes no params");
		return 0;
	}
	r = tierd_strategy_params_parse(p->strategy, p->strategy_params_json, &p->strategy_params,
					msg, sizeof(msg));
	if (r == 0 || r == -ENOMEM)
		return r;
	/* A message that starts with "key": points at that key. */
	snprintf(path, sizeof(path), "strategy.params");
	text = msg;
	if (msg[0] == '"' && strchr(msg + 1, '"') && strncmp(strchr(msg + 1, '"'), "\": ", 3) == 0) {
		size_t n = (size_t)(strchr(msg + 1, '"') - msg - 1);

		snprintf(path, sizeof(path), "strategy.params.%.*s", (int)n, msg + 1);
		text = msg + n + strlen("\"\": ");
	}
	err(c, path, "%s", text);
	return 0;
}

/* "strategy": "mole", or {"name": "mole", "params": {...}}; the params object
 * is kept as text and read into the strategy's typed params. Errors go to c; returns 0
 * or -ENOMEM. */
static int parse_strategy(struct ctx *c, json_object *o, struct tierd_policy *p)
{
	static const char *const keys[] = { "name", "params", NULL };
	json_object *v;

	if (json_object_get_type(o) == json_type_string) {
		(void)parse_strategy_name(c, o, "strategy", p);
		return 0;
	}
	if (!expect_type(c, o, "strategy", json_type_object,
			 "a strategy name or {\"name\": ..., \"params\": {...}}"))
		return 0;
	check_keys(c, o, "strategy", keys);
	if (!json_object_object_get_ex(o, "name", &v)) {
		err(c, "strategy", "missing key \"name\"");
		return 0;
	}
	if (parse_strategy_name(c, v, "strategy.name", p) < 0)
		return 0; /* whose params they are is unknown */
	if (json_object_object_get_ex(o, "params", &v) &&
	    expect_type(c, v, "strategy.params", json_type_object, "an object")) {
		p->strategy_params_json =
			strdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
								       JSON_C_TO_STRING_NOSLASHESCAPE));
		if (!p->strategy_params_json)
			return -ENOMEM;
	}
	return check_params(c, p);
}

static void parse_sharing(struct ctx *c, json_object *o, struct tierd_policy *p)
{
	const char *s;

	if (!expect_type(c, o, "sharing", json_type_string, "\"island\" or \"pool\""))
		return;
	s = json_object_get_string(o);
	if (strcmp(s, "island") == 0)
		p->sharing = TIERD_SHARING_ISLAND;
	else if (strcmp(s, "pool") == 0)
		p->sharing = TIERD_SHARING_POOL;
	else
		err(c, "sharing", "expected \"island\" or \"pool\", got \"%s\"", s);
}

static void report_duplicates(struct ctx *c)
{
	for (size_t i = 0; i < c->locs.nr_duplicates; i++)
		err_key(c, c->locs.duplicates[i], "key written twice in one object; keep one");
}

/* Parses text with json-c into *ret; on a syntax error reports its position. */
static int parse_document(struct ctx *c, json_object **ret)
{
	struct json_tokener *tok;
	enum json_tokener_error e;
	json_object *root;
	size_t off;
	int r;

	if (memchr(c->text, '\0', c->len)) {
		int line, col;

		off = (size_t)((const char *)memchr(c->text, '\0', c->len) - c->text);
		tierd_json_line_col(c->text, c->len, off, &line, &col);
		tierd_diags_add(c->diags, c->file, line, col, NULL, "NUL byte in a JSON file");
		return -EINVAL;
	}
	tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = tierd_json_parse_text(tok, c->text, c->len, &e, &off);
	if (!root) {
		int line, col;

		tierd_json_line_col(c->text, c->len, off, &line, &col);
		tierd_diags_add(c->diags, c->file, line, col, NULL, "invalid JSON: %s",
				e == json_tokener_continue ? "unexpected end of data"
							   : json_tokener_error_desc(e));
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	r = tierd_json_locate(c->text, c->len, &c->locs);
	if (r == -EINVAL) {
		int line, col;

		tierd_json_line_col(c->text, c->len, c->locs.error_offset, &line, &col);
		tierd_diags_add(c->diags, c->file, line, col, NULL,
				"invalid JSON: expected a string in double quotes");
	}
	if (r < 0) {
		json_object_put(root);
		return r;
	}
	*ret = root;
	return 0;
}

int tierd_policy_parse(const char *file, const char *text, size_t len, struct tierd_policy *out,
		       struct tierd_diags *diags)
{
	static const char *const keys[] = { "name",     "match",    "priority",
					    "tiers",    "strategy", "migration_budget",
					    "sharing",  "sampling", NULL };
	struct ctx c = { .file = file, .text = text, .len = len, .diags = diags };
	size_t first_diag = diags->nr;
	struct tierd_policy p = { 0 };
	json_object *root = NULL, *v;
	int64_t prio;
	int r;

	r = parse_document(&c, &root);
	if (r < 0)
		return r;
	snprintf(p.file, sizeof(p.file), "%s", file);
	p.strategy = TIERD_STRATEGY_DEFAULT;
	p.sharing = TIERD_SHARING_ISLAND;
	p.sampling_rate = TIERD_SAMPLING_DEFAULT_RATE;
	p.sampling_burst = TIERD_SAMPLING_DEFAULT_BURST;

	if (!expect_type(&c, root, "", json_type_object, "a policy object"))
		goto done;
	report_duplicates(&c);
	check_keys(&c, root, "", keys);

	if (!json_object_object_get_ex(root, "name", &v))
		err(&c, "", "missing key \"name\"");
	else if (get_string(&c, v, "name", p.name, sizeof(p.name)) == 0 && !valid_name(p.name))
		err(&c, "name", "expected letters, digits, '_', '-', '.', '@' only, got \"%s\"", p.name);

	if (!json_object_object_get_ex(root, "match", &v))
		err(&c, "", "missing key \"match\"");
	else
		parse_match(&c, v, &p);

	if (json_object_object_get_ex(root, "priority", &v) &&
	    get_int(&c, v, "priority", INT_MIN, INT_MAX, &prio) == 0)
		p.priority = (int)prio;

	if (json_object_object_get_ex(root, "tiers", &v))
		parse_tiers(&c, v, &p);

	if (json_object_object_get_ex(root, "strategy", &v)) {
		r = parse_strategy(&c, v, &p);
		if (r < 0)
			goto done;
	}
	if (json_object_object_get_ex(root, "migration_budget", &v))
		p.has_migration_budget =
			get_migration_budget(&c, v, "migration_budget", &p.migration_budget) == 0;

	if (json_object_object_get_ex(root, "sharing", &v))
		parse_sharing(&c, v, &p);

	if (json_object_object_get_ex(root, "sampling", &v))
		parse_sampling(&c, v, &p);
done:
	json_object_put(root);
	tierd_json_locs_free(&c.locs);
	tierd_diags_sort_from(diags, first_diag);
	if (r == 0 && c.errors)
		r = -EINVAL;
	if (r == 0 && diags->oom)
		r = -ENOMEM;
	if (r < 0) {
		tierd_policy_free(&p);
		return r;
	}
	*out = p;
	return 0;
}

static bool matches_overlap(const struct tierd_match *a, const struct tierd_match *b)
{
	const char *unit;

	if (a->kind == TIERD_MATCH_GLOB && b->kind == TIERD_MATCH_GLOB)
		return strcmp(a->pattern, b->pattern) == 0;
	if (a->kind == TIERD_MATCH_UNIT && b->kind == TIERD_MATCH_UNIT)
		return strcmp(a->pattern, b->pattern) == 0;
	if (b->kind == TIERD_MATCH_PATH) {
		const struct tierd_match *t = a;

		a = b;
		b = t;
	}
	if (a->kind != TIERD_MATCH_PATH)
		return false; /* glob vs unit: only a live cgroup can tell */
	if (b->kind == TIERD_MATCH_PATH)
		return strcmp(a->pattern, b->pattern) == 0;
	if (b->kind == TIERD_MATCH_GLOB)
		return fnmatch(b->pattern, a->pattern, FNM_PATHNAME) == 0;
	unit = strrchr(a->pattern, '/');
	return unit && strcmp(unit + 1, b->pattern) == 0;
}

static void set_error(struct tierd_diags *diags, const struct tierd_policy *p, const char *key,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Set-level errors point at the start of the later file: the policy as a
 * whole is what conflicts. */
static void set_error(struct tierd_diags *diags, const struct tierd_policy *p, const char *key,
		      const char *fmt, ...)
{
	char msg[TIERD_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tierd_diags_add(diags, p->file, 1, 1, key, "%s", msg);
}

static unsigned check_set(const struct tierd_policy_set *set, const struct tierd_topology *topo,
			  struct tierd_diags *diags)
{
	unsigned errors = 0;

	for (size_t i = 0; i < set->nr; i++) {
		const struct tierd_policy *a = &set->policies[i];

		for (size_t j = 0; j < i; j++) {
			const struct tierd_policy *b = &set->policies[j];

			if (strcmp(a->name, b->name) == 0) {
				set_error(diags, a, "name", "policy name \"%s\" is also used by %s",
					  a->name, b->file);
				errors++;
			}
			if (a->priority != b->priority)
				continue;
			for (size_t x = 0; x < a->nr_matches; x++) {
				for (size_t y = 0; y < b->nr_matches; y++) {
					if (!matches_overlap(&a->matches[x], &b->matches[y]))
						continue;
					set_error(diags, a, "priority",
						  "policies \"%s\" (%s) and \"%s\" (%s) match the same cgroups \"%s\" with equal priority %d; give one a higher priority",
						  a->name, a->file, b->name, b->file,
						  a->matches[x].pattern, a->priority);
					errors++;
					x = a->nr_matches;
					break;
				}
			}
		}
	}
	if (!topo)
		return errors;

	for (size_t t = 0; t < topo->nr_tiers; t++) {
		/* The budget whose min tipped the sum over capacity. */
		const struct tierd_policy *last = NULL;
		const struct tierd_tier_budget *last_b = NULL;
		size_t last_k = 0;
		uint64_t sum = 0;

		for (size_t i = 0; i < set->nr; i++) {
			const struct tierd_policy *p = &set->policies[i];

			for (size_t k = 0; k < p->nr_tiers; k++) {
				const struct tierd_tier_budget *b = &p->tiers[k];

				if (tierd_budget_tier(b, topo) != (int)t || !b->has_min ||
				    b->min.kind == TIERD_AMOUNT_PCT_USAGE)
					continue;
				sum += tierd_amount_resolve(&b->min, 0, topo->tiers[t].total_bytes);
				if (!last && sum > topo->tiers[t].total_bytes) {
					last = p;
					last_b = b;
					last_k = k;
				}
			}
		}
		if (last) {
			char want[32], have[32], key[32];

			tierd_format_bytes(sum, want, sizeof(want));
			tierd_format_bytes(topo->tiers[t].total_bytes, have, sizeof(have));
			snprintf(key, sizeof(key), "tiers[%zu].min", last_k);
			tierd_diags_add(diags, last->file, last_b->line, last_b->column, key,
					"the policies' min budgets on tier %zu add up to %s, above its capacity %s (each policy counted once)",
					t, want, have);
			errors++;
		}
	}
	for (size_t i = 0; i < set->nr; i++) {
		const struct tierd_policy *p = &set->policies[i];
		int tier_of[TIERD_MAX_TIERS];

		for (size_t k = 0; k < p->nr_tiers; k++) {
			char key[32];

			snprintf(key, sizeof(key), "tiers[%zu]", k);
			tier_of[k] = tierd_budget_tier(&p->tiers[k], topo);
			if (tier_of[k] < 0) {
				tierd_diags_add(diags, p->file, p->tiers[k].line, p->tiers[k].column, key,
						"names no tier of this machine (%zu tiers; a node list must lie within one tier)",
						topo->nr_tiers);
				errors++;
				continue;
			}
			for (size_t j = 0; j < k; j++) {
				if (tier_of[j] != tier_of[k])
					continue;
				tierd_diags_add(diags, p->file, p->tiers[k].line, p->tiers[k].column, key,
						"names tier %d, which tiers[%zu] already budgets on this machine",
						tier_of[k], j);
				errors++;
				break;
			}
		}
	}
	return errors;
}

int tierd_policy_load_files(const char *const *files, size_t nr_files,
			    const struct tierd_topology *topo, struct tierd_policy_set *out,
			    struct tierd_diags *diags)
{
	struct tierd_policy_set set = { 0 };
	bool invalid = false;
	int r = 0;

	if (nr_files) {
		set.policies = calloc(nr_files, sizeof(*set.policies));
		if (!set.policies)
			return -ENOMEM;
	}
	for (size_t i = 0; i < nr_files; i++) {
		_cleanup_free_ char *text = NULL;
		char why[TIERD_DIAG_MSG_MAX];
		size_t len;

		r = tierd_trusted_read(files[i], &text, &len, why, sizeof(why));
		if (r < 0) {
			tierd_diags_add(diags, files[i], 0, 0, NULL, "%s", why);
			invalid = true;
			continue;
		}
		r = tierd_policy_parse(files[i], text, len, &set.policies[set.nr], diags);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			invalid = true;
		else
			set.nr++;
	}
	if (check_set(&set, topo, diags))
		invalid = true;
	if (diags->oom) {
		r = -ENOMEM;
		goto fail;
	}
	if (invalid) {
		r = -EINVAL;
		goto fail;
	}
	tierd_policy_set_move(out, &set);
	return 0;
fail:
	tierd_policy_set_free(&set);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tierd_policy_load_dir(const char *dir, const struct tierd_topology *topo,
			  struct tierd_policy_set *out, struct tierd_diags *diags)
{
	char **files = NULL;
	size_t nr = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	d = opendir(dir);
	if (!d) {
		struct tierd_policy_set empty = { 0 };

		if (errno != ENOENT)
			return -errno;
		tierd_policy_set_move(out, &empty);
		return 0;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char **f;

		if (de->d_name[0] == '.' || n < strlen(".json") ||
		    strcmp(de->d_name + n - strlen(".json"), ".json") != 0)
			continue;
		f = realloc(files, (nr + 1) * sizeof(*files));
		if (!f) {
			r = -ENOMEM;
			goto out;
		}
		files = f;
		if (asprintf(&files[nr], "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			goto out;
		}
		nr++;
	}
	qsort(files, nr, sizeof(*files), cmp_str);
	r = tierd_policy_load_files((const char *const *)files, nr, topo, out, diags);
out:
	for (size_t i = 0; i < nr; i++)
		free(files[i]);
	free(files);
	closedir(d);
	return r;
}

static void parse_tier_override(struct ctx *c, json_object *o, struct tierd_config *cfg)
{
	char path[32];
	size_t n;

	if (!expect_type(c, o, "tiers", json_type_array,
			 "an array of node lists, fastest first, such as [\"0\", \"1\", \"2-3\"]"))
		return;
	n = json_object_array_length(o);
	if (n == 0 || n > TIERD_MAX_TIERS) {
		err(c, "tiers", "expected 1 to %d node lists, got %zu", TIERD_MAX_TIERS, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(o, i);

		snprintf(path, sizeof(path), "tiers[%zu]", i);
		if (!expect_type(c, v, path, json_type_string, "a node list string such as \"2-3\""))
			continue;
		if (tierd_nodeset_parse(json_object_get_string(v), &cfg->tier_override[i]) < 0 ||
		    tierd_nodeset_empty(&cfg->tier_override[i])) {
			err(c, path, "expected a node list such as \"1\" or \"2-3\", got \"%s\"",
			    json_object_get_string(v));
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (tierd_nodeset_intersects(&cfg->tier_override[i], &cfg->tier_override[j]))
				err(c, path, "shares nodes with tiers[%zu]; a node sits in one tier", j);
	}
	cfg->nr_tier_override = n;
}

static void get_path(struct ctx *c, json_object *root, const char *key, char *buf, size_t size)
{
	json_object *v;

	if (!json_object_object_get_ex(root, key, &v))
		return;
	if (get_string(c, v, key, buf, size) == 0 && buf[0] != '/')
		err(c, key, "expected an absolute path, got \"%s\"", buf);
}

int tierd_config_parse(const char *file, const char *text, size_t len, struct tierd_config *cfg,
		       struct tierd_diags *diags)
{
	static const char *const keys[] = { "tick_interval", "metrics_file", "state_file",
					    "policy_dir",    "log_level",    "migration_budget",
					    "tiers",         "damon",        "manage_demotion",
					    "numa_balancing", "bpf",    "damon_stat", NULL };
	struct ctx c = { .file = file, .text = text, .len = len, .diags = diags };
	size_t first_diag = diags->nr;
	json_object *root = NULL, *v;
	int r;

	r = parse_document(&c, &root);
	if (r < 0)
		return r;
	if (!expect_type(&c, root, "", json_type_object, "a configuration object"))
		goto done;
	report_duplicates(&c);
	check_keys(&c, root, "", keys);
	if (json_object_object_get_ex(root, "tick_interval", &v) &&
	    get_duration(&c, v, "tick_interval", &cfg->tick_usec) == 0 &&
	    cfg->tick_usec < TIERD_MIN_TICK_USEC)
		err(&c, "tick_interval", "expected at least 10ms");
	get_path(&c, root, "metrics_file", cfg->metrics_file, sizeof(cfg->metrics_file));
	get_path(&c, root, "state_file", cfg->state_file, sizeof(cfg->state_file));
	get_path(&c, root, "policy_dir", cfg->policy_dir, sizeof(cfg->policy_dir));
	if (json_object_object_get_ex(root, "log_level", &v) &&
	    expect_type(&c, v, "log_level", json_type_string, "a log level") &&
	    tierd_log_level_parse(json_object_get_string(v), &cfg->log_level) < 0)
		err(&c, "log_level", "expected one of: err, warning, notice, info, debug; got \"%s\"",
		    json_object_get_string(v));
	if (json_object_object_get_ex(root, "migration_budget", &v))
		(void)get_migration_budget(&c, v, "migration_budget", &cfg->migration_budget);
	if (json_object_object_get_ex(root, "tiers", &v))
		parse_tier_override(&c, v, cfg);
	if (json_object_object_get_ex(root, "damon", &v) &&
	    expect_type(&c, v, "damon", json_type_boolean, "true or false"))
		cfg->damon = json_object_get_boolean(v);
	if (json_object_object_get_ex(root, "bpf", &v) &&
	    expect_type(&c, v, "bpf", json_type_boolean, "true or false"))
		cfg->bpf = json_object_get_boolean(v);
	if (json_object_object_get_ex(root, "manage_demotion", &v) &&
	    expect_type(&c, v, "manage_demotion", json_type_boolean, "true or false"))
		cfg->manage_demotion = json_object_get_boolean(v);
	if (json_object_object_get_ex(root, "numa_balancing", &v) &&
	    expect_type(&c, v, "numa_balancing", json_type_string, "\"leave\", \"off\" or \"tiering\"") &&
	    tierd_numa_balancing_parse(json_object_get_string(v), &cfg->numa_balancing) < 0)
		err(&c, "numa_balancing", "expected one of: leave, off, tiering; got \"%s\"",
		    json_object_get_string(v));
	if (json_object_object_get_ex(root, "damon_stat", &v) &&
	    expect_type(&c, v, "damon_stat", json_type_string, "\"stop\" or \"leave\"")) {
		const char *s = json_object_get_string(v);

		if (strcmp(s, "stop") == 0 || strcmp(s, "leave") == 0)
			cfg->stop_damon_stat = strcmp(s, "stop") == 0;
		else
			err(&c, "damon_stat", "expected one of: stop, leave; got \"%s\"", s);
	}
done:
	json_object_put(root);
	tierd_json_locs_free(&c.locs);
	tierd_diags_sort_from(diags, first_diag);
	if (diags->oom)
		return -ENOMEM;
	return c.errors ? -EINVAL : 0;
}

int tierd_config_load(const char *file, int missing_ok, struct tierd_config *cfg,
		      struct tierd_diags *diags)
{
	_cleanup_free_ char *text = NULL;
	struct tierd_config next;
	char why[TIERD_DIAG_MSG_MAX];
	size_t len;
	int r;

	tierd_config_defaults(&next);
	r = tierd_trusted_read(file, &text, &len, why, sizeof(why));
	if (r == -ENOENT && missing_ok) {
		*cfg = next;
		return 0;
	}
	if (r < 0) {
		tierd_diags_add(diags, file, 0, 0, NULL, "%s", why);
		return r;
	}
	r = tierd_config_parse(file, text, len, &next, diags);
	if (r < 0)
		return r;
	*cfg = next;
	return 0;
}

int tierd_diags_to_json(const struct tierd_diags *diags, char **ret_text)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	int r = -ENOMEM;

	if (!o || !arr)
		goto out;
	for (size_t i = 0; i < diags->nr; i++) {
		json_object *s = json_object_new_string(diags->items[i].message);

		if (!s || json_object_array_add(arr, s) < 0) {
			json_object_put(s);
			goto out;
		}
	}
	if (json_object_object_add(o, "valid", json_object_new_boolean(diags->nr == 0)) < 0 ||
	    json_object_object_add(o, "errors", arr) < 0)
		goto out;
	arr = NULL;
	*ret_text = strdup(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	r = *ret_text ? 0 : -ENOMEM;
out:
	json_object_put(arr);
	json_object_put(o);
	return r;
}
