/* A test workload for the VM scenarios: allocates MiB of anonymous memory,
 * optionally bound to one NUMA node, touches every page, says "ready" on
 * stdout (after a line "addr 0x..." giving its start), then sleeps until
 * killed. The binding is dropped after the touch so the kernel (and tierd)
 * may move the pages later. Built static: the initramfs has no libnuma. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIB (1024ul * 1024)
#define MPOL_DEFAULT_MODE 0 /* <linux/mempolicy.h> MPOL_DEFAULT */
#define MPOL_BIND_MODE 2    /* MPOL_BIND */
#define NODEMASK_BITS 64

static int bind_range(void *addr, size_t len, int mode, unsigned long mask)
{
	return (int)syscall(SYS_mbind, addr, len, mode, mode ? &mask : NULL,
			    mode ? NODEMASK_BITS : 0, 0);
}

int main(int argc, char **argv)
{
	size_t mib, len;
	int node = -1;
	char *p;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: hog MIB [NODE]\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 10);
	if (argc == 3)
		node = atoi(argv[2]);
	len = mib * MIB;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("hog: mmap");
		return 1;
	}
	if (node >= 0 && bind_range(p, len, MPOL_BIND_MODE, 1ul << node) < 0) {
		perror("hog: mbind");
		return 1;
	}
	memset(p, 0x5a, len);
	if (node >= 0 && bind_range(p, len, MPOL_DEFAULT_MODE, 0) < 0) {
		perror("hog: mbind default");
		return 1;
	}
	/* Where the memory is, for scenarios that move its pages. */
	printf("addr %p\n", (void *)p);
	printf("ready %zu MiB node %d\n", mib, node);
	fflush(stdout);
	for (;;)
		pause();
}
