/* The table-driven params reader of every strategy; see params_reader.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "params_reader.h"
#include "../policy/units.h"

/* Longest JSON text quoted back in an error. */
#define GOT_MAX_CHARS 64
/* Rounds a ratio to the nearest permyriad. */
#define ROUND_HALF 0.5

static const char *json_text(json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A key is named "parent.key" inside an object param, "key" at the top. */
static const char *dot(const char *parent)
{
	return parent ? "." : "";
}

static int bad_value(const char *parent, const struct tierd_param *p, json_object *v, char *err,
		     size_t err_size)
{
	snprintf(err, err_size, "\"%s%s%s\": expected %s, got %.*s", parent ? parent : "",
		 dot(parent), p->key, p->expected, GOT_MAX_CHARS, json_text(v));
	return -EINVAL;
}

static int unknown_key(const char *parent, const struct tierd_param *params, size_t nr_params,
		       const char *key, char *err, size_t err_size)
{
	int n = snprintf(err, err_size, "\"%s%s%s\": unknown key; expected one of: ",
			 parent ? parent : "", dot(parent), key);

	for (size_t i = 0; i < nr_params && n >= 0 && (size_t)n < err_size; i++)
		n += snprintf(err + n, err_size - (size_t)n, "%s%s", i ? ", " : "", params[i].key);
	return -EINVAL;
}

static const struct tierd_param *find_param(const struct tierd_param *params, size_t nr_params,
					    const char *key)
{
	for (size_t i = 0; i < nr_params; i++)
		if (strcmp(params[i].key, key) == 0)
			return &params[i];
	return NULL;
}

static int read_uint(json_object *v, uint64_t *ret)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return -EINVAL;
	*ret = (uint64_t)json_object_get_int64(v);
	return 0;
}

static int read_size(json_object *v, uint64_t *ret)
{
	if (!json_object_is_type(v, json_type_string) ||
	    tierd_parse_bytes(json_object_get_string(v), ret) < 0)
		return -EINVAL;
	return 0;
}

/* A value of a numeric kind, within [min, max]. -EINVAL for a wrong type,
 * text or range. */
static int read_number(const struct tierd_param *p, json_object *v, uint64_t *ret)
{
	const char *rest;
	uint32_t pmy;
	uint64_t x;
	double d;

	switch (p->kind) {
	case TIERD_PARAM_DURATION:
		if (!json_object_is_type(v, json_type_string) ||
		    tierd_parse_duration(json_object_get_string(v), &x) < 0)
			return -EINVAL;
		break;
	case TIERD_PARAM_PERCENT:
		if (!json_object_is_type(v, json_type_string) ||
		    tierd_parse_percent(json_object_get_string(v), &pmy, &rest) < 0 || *rest)
			return -EINVAL;
		x = pmy;
		break;
	case TIERD_PARAM_UINT:
		if (read_uint(v, &x) < 0)
			return -EINVAL;
		break;
	case TIERD_PARAM_SIZE:
		if (read_size(v, &x) < 0)
			return -EINVAL;
		break;
	case TIERD_PARAM_SIZE_OR_UINT:
		if ((json_object_is_type(v, json_type_int) ? read_uint(v, &x) : read_size(v, &x)) < 0)
			return -EINVAL;
		break;
	case TIERD_PARAM_RATIO:
		if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
			return -EINVAL;
		d = json_object_get_double(v) * TIERD_PMY_ONE;
		/* Checked as a double, before the conversion; written this
		 * way round, NaN fails too. */
		if (!(d >= (double)p->min && d <= (double)p->max))
			return -EINVAL;
		x = (uint64_t)(d + ROUND_HALF);
		break;
	default:
		return -EINVAL;
	}
	if (x < p->min || x > p->max)
		return -EINVAL;
	*ret = x;
	return 0;
}

static int read_value(const struct tierd_param *p, const char *parent, json_object *v, char *err,
		      size_t err_size);

/* An object param: the object and every member present first (else the
 * object is what was wrong), then no unknown member, then each member in
 * the order of the table. */
static int read_object(const struct tierd_param *p, json_object *v, char *err, size_t err_size)
{
	json_object *m;
	int r;

	if (!json_object_is_type(v, json_type_object))
		return bad_value(NULL, p, v, err, err_size);
	for (size_t i = 0; i < p->nr_members; i++)
		if (!json_object_object_get_ex(v, p->members[i].key, NULL))
			return bad_value(NULL, p, v, err, err_size);
	json_object_object_foreach(v, key, val) {
		(void)val;
		if (!find_param(p->members, p->nr_members, key))
			return unknown_key(p->key, p->members, p->nr_members, key, err, err_size);
	}
	for (size_t i = 0; i < p->nr_members; i++) {
		json_object_object_get_ex(v, p->members[i].key, &m);
		r = read_value(&p->members[i], p->key, m, err, err_size);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_value(const struct tierd_param *p, const char *parent, json_object *v, char *err,
		      size_t err_size)
{
	int r;

	switch (p->kind) {
	case TIERD_PARAM_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return bad_value(parent, p, v, err, err_size);
		*(bool *)p->value = json_object_get_boolean(v);
		return 0;
	case TIERD_PARAM_OBJECT:
		return read_object(p, v, err, err_size);
	case TIERD_PARAM_CUSTOM:
		r = p->read(v, p->value);
		break;
	default:
		r = read_number(p, v, p->value);
		break;
	}
	return r < 0 ? bad_value(parent, p, v, err, err_size) : 0;
}

int tierd_params_parse(const char *params_json, const struct tierd_param *params,
		       size_t nr_params, char *err, size_t err_size)
{
	json_object *root;
	int r = 0;

	if (!params_json)
		return 0;
	root = json_tokener_parse(params_json);
	if (!root || !json_object_is_type(root, json_type_object)) {
		snprintf(err, err_size, "expected a JSON object of params, got %.*s", GOT_MAX_CHARS,
			 params_json);
		json_object_put(root);
		return -EINVAL;
	}
	json_object_object_foreach(root, key, val) {
		const struct tierd_param *p = find_param(params, nr_params, key);

		if (p)
			r = read_value(p, NULL, val, err, err_size);
		else
			r = unknown_key(NULL, params, nr_params, key, err, err_size);
		if (r < 0)
			break;
	}
	json_object_put(root);
	return r;
}
