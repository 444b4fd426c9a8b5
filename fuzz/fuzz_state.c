/* libFuzzer harness: the state file (/run/tierd/state.json) through
 * tierd_report_from_json, the reader behind `tierctl status`. The file is
 * read by an unprivileged user and could be anything: an error, never a
 * crash. What parses must serialise again. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tierd_report rep = { 0 };
	char err[256];
	char *text = NULL;

	if (tierd_report_from_json((const char *)data, size, &rep, err, sizeof(err)) == 0) {
		if (tierd_report_to_json(&rep, false, &text) < 0)
			abort();
		free(text);
	}
	tierd_report_free(&rep);
	return 0;
}
