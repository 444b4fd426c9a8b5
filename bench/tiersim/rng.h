/* The simulator's pseudo-random numbers: xoshiro256** seeded through
 * splitmix64 (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2018; both are public domain algorithms, written afresh).
 * Every stream lives in a struct the caller owns, so a run is reproducible
 * from its seed and two runs never share state. Separate streams for the
 * workload and for the samplers keep the access stream independent of the
 * placement: the oracle pass and every strategy see the same accesses. */
#ifndef TIERSIM_RNG_H
#define TIERSIM_RNG_H

#include <stdint.h>

struct tiersim_rng {
	uint64_t s[4];
};

/* Seeds a stream; `stream` separates streams drawn from one seed. */
void tiersim_rng_seed(struct tiersim_rng *rng, uint64_t seed, uint64_t stream);

static inline uint64_t tiersim_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t tiersim_rng_next(struct tiersim_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = tiersim_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = tiersim_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; the bias is below
 * n / 2^64, far under anything a run can see). */
static inline uint64_t tiersim_rng_below(struct tiersim_rng *rng, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)tiersim_rng_next(rng) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double tiersim_rng_double(struct tiersim_rng *rng)
{
	return (double)(tiersim_rng_next(rng) >> 11) * 0x1.0p-53;
}

/* splitmix64's finaliser: a fixed bijective hash of 64-bit values. */
uint64_t tiersim_mix64(uint64_t x);

#endif
