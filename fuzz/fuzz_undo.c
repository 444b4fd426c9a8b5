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
	char err[512] = "", *out = NULL, *out2 = NULL;

	if (tierd_undo_parse(text, len, &u, err, sizeof(err)) < 0) {
		if (!err[0])
			abort();
		return;
	}
	if (tierd_undo_format(&u, &out, err, sizeof(err)) < 0 ||
	    tierd_undo_parse(out, strlen(out), &again, err, sizeof(err)) < 0 ||
	    tierd_undo_format(&again, &out2, err, sizeof(err)) < 0 || strcmp(out, out2) != 0)
		abort();
	free(out);
	free(out2);
}

static void verdict(const char *text, size_t len)
{
	struct tierd_reload_verdict v;
	char err[512] = "";

	if (tierd_reload_verdict_parse(text, len, &v, err, sizeof(err)) < 0 && !err[0])
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
