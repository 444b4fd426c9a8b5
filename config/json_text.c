/* json-c on a byte range (json_text.h). */
#include <limits.h>

#include "json_text.h"

json_object *tierd_json_parse_text(struct json_tokener *tok, const char *text, size_t len,
				   enum json_tokener_error *ret_error, size_t *ret_offset)
{
	json_object *root;

	if (len > INT_MAX) {
		*ret_error = json_tokener_error_size;
		*ret_offset = 0;
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (root)
		return root;
	*ret_error = json_tokener_get_error(tok);
	*ret_offset = json_tokener_get_parse_end(tok);
	if (*ret_error != json_tokener_continue)
		return NULL;
	/* The text ended inside a value: a NUL, fed alone, ends a trailing
	 * number or literal as it would in a C string. */
	root = json_tokener_parse_ex(tok, "", 1);
	if (!root) {
		*ret_error = json_tokener_get_error(tok);
		*ret_offset = len;
	}
	return root;
}
