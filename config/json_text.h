/* json-c on a byte range. json_tokener_parse_ex ends a trailing number or
 * literal only at a NUL, and the texts tierd parses are (pointer, length)
 * pairs that need not be NUL-terminated: reading the byte past them to find
 * that NUL is a read out of bounds (the policy, config and state-file fuzzers
 * found it). */
#ifndef TIERD_JSON_TEXT_H
#define TIERD_JSON_TEXT_H

#include <json-c/json.h>
#include <stddef.h>

/* Parses exactly len bytes of text with tok. Returns the document, or NULL
 * with json-c's error in *ret_error and the byte offset where parsing
 * stopped in *ret_offset (len when the text ended inside a value). */
json_object *tierd_json_parse_text(struct json_tokener *tok, const char *text, size_t len,
				   enum json_tokener_error *ret_error, size_t *ret_offset);

#endif
