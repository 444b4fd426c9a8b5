/* libFuzzer harness: the runtime directory's records, read by the next
 * tierd and by `tierctl cleanup` (undo, controller/undo.h) and by `tierctl
 * reload` (reload, controller/reload_verdict.h). The first byte picks the
 * reader (even: undo, odd: reload verdict), the rest is the file. A
 * refused input must say why; an undo record that parses must be written
 * again, and what is written must parse to the same text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../controller/reload_verdict.h"
#include "../controller/undo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void undo(const char *text, size_t len)
{
	struct tierd_undo u, again;
	struct tierd_log_keep told;
	char *out = NULL, *out2 = NULL;

	if (tierd_undo_parse(text, len, &u, tierd_log_keep(&told, NULL)) < 0) {
		if (!told.nr)
			abort();
		return;
	}
	if (tierd_undo_format(&u, &out, NULL) < 0 ||
	    tierd_undo_parse(out, strlen(out), &again, NULL) < 0 ||
	    tierd_undo_format(&again, &out2, NULL) < 0 || strcmp(out, out2) != 0)
		abort();
	free(out);
	free(out2);
}

static void verdict(const char *text, size_t len)
{
	struct tierd_reload_verdict v;
	struct tierd_log_keep told;

	if (tierd_reload_verdict_parse(text, len, &v, tierd_log_keep(&told, NULL)) < 0 && !told.nr)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] % 2 == 0)
		undo((const char *)data + 1, size - 1);
	else
		verdict((const char *)data + 1, size - 1);
	return 0;
}
