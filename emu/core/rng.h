/* Counter-based random numbers.
 *
 * A draw is a pure function of (seed, component, counter): every component
 * (a router, an endpoint, a placement trial) owns its own stream, so results
 * do not depend on the order components are visited, and a run split across
 * processes gives the same bits. The mixing function is SplitMix64's
 * finaliser applied to a keyed counter (Steele et al., OOPSLA 2014).
 */
#ifndef NETLOOM_CORE_RNG_H
#define NETLOOM_CORE_RNG_H

#include <stdint.h>

/* One stream. Plain value type: copy it to fork a stream's position. */
struct rng {
	uint64_t key; /* derived from (seed, component) */
	uint64_t ctr; /* draws taken so far */
};

/* Well-known component classes, so streams of different kinds never share
 * a key even when their ids coincide. Add new classes at the end. */
enum rng_class {
	RNG_CLASS_ENDPOINT = 1,
	RNG_CLASS_ROUTER = 2,
	RNG_CLASS_TRAFFIC = 3,
	RNG_CLASS_TOPOLOGY = 4,
	RNG_CLASS_PLACEMENT = 5,
	RNG_CLASS_APP = 6,
	RNG_CLASS_ANALYSIS = 7,
	RNG_CLASS_DESIGN = 8,
};

/* 64-bit mix (SplitMix64 finaliser). */
static inline uint64_t rng_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Stream for component `id` of class `cls` under `seed`. */
static inline void rng_init(struct rng *r, uint64_t seed, uint32_t cls, uint64_t id)
{
	r->key = rng_mix64(rng_mix64(seed ^ 0x6a09e667f3bcc908ULL) ^ ((uint64_t)cls << 56) ^ id);
	r->ctr = 0;
}

/* Draw number `ctr` of the stream keyed `key`, without state. */
static inline uint64_t rng_at(uint64_t key, uint64_t ctr)
{
	return rng_mix64(rng_mix64(key + ctr * 0x9e3779b97f4a7c15ULL) ^ key);
}

static inline uint64_t rng_u64(struct rng *r)
{
	return rng_at(r->key, r->ctr++);
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double rng_uniform(struct rng *r)
{
	return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

/* rng_below's rejection path (rare: the low word of the first product,
 * m, fell below n). */
uint64_t rng_below_reject(struct rng *r, uint64_t n, unsigned __int128 m);

/* Uniform integer in [0, n), n > 0, unbiased (Lemire 2019, "Fast random
 * integer generation in an interval": multiply-shift with rejection). The
 * common case inline: routing functions draw per hop. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)rng_u64(r) * n;
	if ((uint64_t)m < n)
		return rng_below_reject(r, n, m);
	return (uint64_t)(m >> 64);
}

/* Number of failures before the first success of a Bernoulli(p) process,
 * 0 < p <= 1: the gap to the next injection, drawn once per event instead of
 * once per cycle. Saturates at UINT64_MAX/2 for tiny p. */
uint64_t rng_geometric(struct rng *r, double p);

/* The same draw with log1p(-p) computed once by the caller (callers that
 * draw often at one rate; the same result bit for bit). */
uint64_t rng_geometric_l(struct rng *r, double p, double log1p_neg_p);

/* Fisher-Yates shuffle of an array of n uint32_t. */
void rng_shuffle_u32(struct rng *r, uint32_t *a, uint32_t n);

#endif
