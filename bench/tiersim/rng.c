/* Seeding for the simulator's xoshiro256** streams. */
#include "rng.h"

uint64_t tiersim_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void tiersim_rng_seed(struct tiersim_rng *rng, uint64_t seed, uint64_t stream)
{
	/* splitmix64 over (seed, stream): never all zero, which xoshiro forbids. */
	uint64_t x = seed ^ tiersim_mix64(stream + 0x9e3779b97f4a7c15ull);

	for (int i = 0; i < 4; i++) {
		x += 0x9e3779b97f4a7c15ull;
		rng->s[i] = tiersim_mix64(x);
	}
}
