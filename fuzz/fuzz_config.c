/* libFuzzer harness: tierd.json's text through tierd_config_parse over the
 * defaults, as tierd and `tierctl validate` load it. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../config/policy_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tierd_config cfg;
	struct tierd_diags diags = { 0 };
	int r;

	tierd_config_defaults(&cfg);
	r = tierd_config_parse("tierd.json", (const char *)data, size, &cfg, &diags);
	if (r == -EINVAL && diags.nr == 0 && !diags.oom)
		abort();
	tierd_diags_free(&diags);
	return 0;
}
