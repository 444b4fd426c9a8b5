/* libFuzzer harness: one policy file's text through tierd_policy_parse, the
 * parser `tierctl validate` and the daemon's reload share. Whatever the
 * bytes, it must return 0 or an error with diagnostics, never crash or leak. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../config/policy_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tierd_policy p = { 0 };
	struct tierd_diags diags = { 0 };
	int r = tierd_policy_parse("fuzz.json", (const char *)data, size, &p, &diags);

	/* A refusal must say why. */
	if (r == -EINVAL && diags.nr == 0 && !diags.oom)
		abort();
	tierd_policy_free(&p);
	tierd_diags_free(&diags);
	return 0;
}
