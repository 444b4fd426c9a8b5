/* The state file's JSON writer: its text is json-c's plain text for the same
 * document, byte for byte (every byte value in a string, nesting, empty
 * containers, the integer extremes), and an error sticks. */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../report/json_writer.h"

TIERD_TEST_MAIN_COUNTS;

#define JSONC_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define NR_BYTES 256

/* Every byte value but NUL, in order. */
static void all_bytes(char *s)
{
	for (int c = 1; c < NR_BYTES; c++)
		s[c - 1] = (char)c;
	s[NR_BYTES - 1] = '\0';
}

static void test_same_as_json_c(void)
{
	char bytes[NR_BYTES];
	struct tierd_jw w = { 0 };
	json_object *o = json_object_new_object(), *a = json_object_new_array(),
		    *inner = json_object_new_object();
	char *text = NULL;

	all_bytes(bytes);
	tierd_jw_begin_object(&w, NULL);
	tierd_jw_str(&w, "bytes", bytes);
	json_object_object_add(o, "bytes", json_object_new_string(bytes));
	tierd_jw_str(&w, "path", "/kubepods.slice/a\"b\\c.scope");
	json_object_object_add(o, "path", json_object_new_string("/kubepods.slice/a\"b\\c.scope"));
	tierd_jw_u64(&w, "max", UINT64_MAX);
	json_object_object_add(o, "max", json_object_new_uint64(UINT64_MAX));
	tierd_jw_int(&w, "min", INT_MIN);
	json_object_object_add(o, "min", json_object_new_int(INT_MIN));
	tierd_jw_begin_array(&w, "list");
	tierd_jw_u64(&w, NULL, 0);
	json_object_array_add(a, json_object_new_uint64(0));
	tierd_jw_bool(&w, NULL, true);
	json_object_array_add(a, json_object_new_boolean(true));
	tierd_jw_begin_array(&w, NULL);
	tierd_jw_end_array(&w);
	json_object_array_add(a, json_object_new_array());
	tierd_jw_begin_object(&w, NULL);
	tierd_jw_end_object(&w);
	json_object_array_add(a, json_object_new_object());
	tierd_jw_bool(&w, NULL, false);
	json_object_array_add(a, json_object_new_boolean(false));
	tierd_jw_end_array(&w);
	json_object_object_add(o, "list", a);
	tierd_jw_begin_object(&w, "inner");
	tierd_jw_str(&w, "", "");
	json_object_object_add(inner, "", json_object_new_string(""));
	tierd_jw_end_object(&w);
	json_object_object_add(o, "inner", inner);
	tierd_jw_end_object(&w);

	CHECK_EQ_INT(tierd_jw_finish(&w, &text), 0);
	CHECK_EQ_STR(text ? text : "", json_object_to_json_string_ext(o, JSONC_PLAIN));
	CHECK(text && strstr(text, "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n"
				   "\\u000b\\f\\r\\u000e"));
	CHECK(w.text == NULL && w.len == 0);
	free(text);
	json_object_put(o);
}

static void test_empty_and_scalar(void)
{
	struct tierd_jw w = { 0 };
	char *text = NULL;

	CHECK_EQ_INT(tierd_jw_finish(&w, &text), 0);
	CHECK_EQ_STR(text ? text : "(null)", "");
	free(text);
	text = NULL;
	tierd_jw_u64(&w, NULL, 42);
	CHECK_EQ_INT(tierd_jw_finish(&w, &text), 0);
	CHECK_EQ_STR(text ? text : "(null)", "42");
	free(text);
}

/* A text longer than the first buffer grows it and stays whole. */
static void test_grows(void)
{
	enum { NR = 5000 };
	struct tierd_jw w = { 0 };
	char *text = NULL;
	json_object *a = json_object_new_array();

	tierd_jw_begin_array(&w, NULL);
	for (unsigned i = 0; i < NR; i++) {
		tierd_jw_u64(&w, NULL, (uint64_t)i * 1000003u);
		json_object_array_add(a, json_object_new_uint64((uint64_t)i * 1000003u));
	}
	tierd_jw_end_array(&w);
	CHECK_EQ_INT(tierd_jw_finish(&w, &text), 0);
	CHECK_EQ_STR(text ? text : "", json_object_to_json_string_ext(a, JSONC_PLAIN));
	CHECK(text && strlen(text) > 4096);
	free(text);
	json_object_put(a);
}

/* After an error nothing more is written and finish() returns it. */
static void test_error_sticks(void)
{
	struct tierd_jw w = { 0 };
	char *text = (char *)"untouched";

	tierd_jw_begin_object(&w, NULL);
	tierd_jw_fail(&w, -ENOMEM);
	tierd_jw_fail(&w, -EINVAL);
	tierd_jw_u64(&w, "k", 1);
	CHECK_EQ_INT(w.error, -ENOMEM);
	CHECK_EQ_STR(w.text, "{");
	CHECK_EQ_INT(tierd_jw_finish(&w, &text), -ENOMEM);
	CHECK_EQ_STR(text, "untouched");
	CHECK(w.text == NULL);
}

int main(void)
{
	test_same_as_json_c();
	test_empty_and_scalar();
	test_grows();
	test_error_sticks();
	return tierd_test_finish();
}
