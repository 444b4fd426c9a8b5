/* libFuzzer harness: every parser of controller/kparse.c. The first byte
 * picks the parser (its value modulo FUZZ_KPARSE_NR, in the order of the
 * switch below); the rest is the file's text, passed without a terminating
 * NUL exactly as tierd passes what it read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../controller/kparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_KPARSE_NR = 7 };

/* The four-tier VM's node ids and a sparse one past them, so that both
 * known and unknown N<id>= keys occur. */
static void fuzz_topology(struct tierd_topology *topo)
{
	static const int nids[] = { 0, 1, 2, 3, 7 };

	*topo = (struct tierd_topology){ .nr_nodes = sizeof(nids) / sizeof(nids[0]) };
	for (size_t i = 0; i < topo->nr_nodes; i++)
		topo->nodes[i].nid = nids[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	int line = 0;

	if (size == 0)
		return 0;
	switch (data[0] % FUZZ_KPARSE_NR) {
	case 0: {
		struct tierd_topology topo;
		struct tierd_cgroup_obs obs;

		fuzz_topology(&topo);
		tierd_kparse_numa_stat(text, len, &topo, &obs, &line);
		break;
	}
	case 1: {
		struct tierd_memstat stat;

		tierd_kparse_memstat(text, len, &stat, &line);
		break;
	}
	case 2: {
		struct tierd_psi psi;

		tierd_kparse_psi(text, len, &psi, &line);
		break;
	}
	case 3: {
		uint64_t v;

		tierd_kparse_limit(text, len, &v);
		break;
	}
	case 4: {
		uint64_t v;

		tierd_kparse_u64(text, len, &v);
		break;
	}
	case 5: {
		uint64_t total, free_bytes;

		tierd_kparse_node_meminfo(text, len, &total, &free_bytes, &line);
		break;
	}
	default: {
		struct tierd_mounts mounts;

		if (tierd_kparse_mountinfo(text, len, &mounts, &line) == 0 && mounts.has_cgroup2 &&
		    mounts.cgroup2_path[sizeof(mounts.cgroup2_path) - 1] != '\0')
			abort();
		break;
	}
	}
	if (line < 0)
		abort();
	return 0;
}
