/* The one reader of a strategy's params (the policy's "params" object, as
 * JSON text): each strategy's keys are described in a table
 * (strategy_keys.c) and get the same checks and the same error messages,
 * "\"key\": expected ..., got ...". No I/O, no globals. */
#ifndef TIERD_PARAMS_READER_H
#define TIERD_PARAMS_READER_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

enum tierd_param_kind {
	TIERD_PARAM_DURATION,     /* "1s" -> usec */
	TIERD_PARAM_PERCENT,      /* "0.3%" -> permyriad */
	TIERD_PARAM_UINT,         /* JSON integer, not negative */
	TIERD_PARAM_SIZE,         /* "256M" -> bytes */
	TIERD_PARAM_SIZE_OR_UINT, /* a size, or a JSON integer of bytes */
	TIERD_PARAM_RATIO,        /* JSON number -> permyriad, rounded */
	TIERD_PARAM_BOOL,         /* true or false, into a bool */
	TIERD_PARAM_OBJECT,       /* an object of `members`, every one required */
	TIERD_PARAM_CUSTOM,       /* read by `read` */
};

/* One key: what the error says was expected, the range allowed (in the
 * kind's unit) and where the value goes, holding the default on entry: a
 * uint64_t, a bool for TIERD_PARAM_BOOL, whatever `read` takes for
 * TIERD_PARAM_CUSTOM; unused for TIERD_PARAM_OBJECT. */
struct tierd_param {
	const char *key;
	enum tierd_param_kind kind;
	const char *expected;
	uint64_t min, max;
	void *value;
	/* TIERD_PARAM_OBJECT: its keys (none an object itself), named
	 * "key.member" in errors. */
	const struct tierd_param *members;
	size_t nr_members;
	/* TIERD_PARAM_CUSTOM: returns 0, or -EINVAL to report `expected`. */
	int (*read)(struct json_object *v, void *value);
};

/* Reads params_json (NULL: all defaults) into params[]. Returns 0, or
 * -EINVAL with err saying the first problem in the order the keys are
 * written: "expected a JSON object of params, got ...", "\"key\": unknown
 * key; expected one of: ..." or "\"key\": expected ..., got ...". */
int tierd_params_parse(const char *params_json, const struct tierd_param *params,
		       size_t nr_params, char *err, size_t err_size);

#endif
