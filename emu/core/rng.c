/* Counter-based random numbers: helpers that need more than a mix. */
#include "core/rng.h"

#include <math.h>

uint64_t rng_below_reject(struct rng *r, uint64_t n, unsigned __int128 m)
{
	uint64_t lo = (uint64_t)m;
	uint64_t t = -n % n;
	while (lo < t) {
		m = (unsigned __int128)rng_u64(r) * n;
		lo = (uint64_t)m;
	}
	return (uint64_t)(m >> 64);
}

uint64_t rng_geometric(struct rng *r, double p)
{
	return rng_geometric_l(r, p, p < 1.0 && p > 0.0 ? log1p(-p) : 0.0);
}

uint64_t rng_geometric_l(struct rng *r, double p, double log1p_neg_p)
{
	if (p >= 1.0)
		return 0;
	if (p <= 0.0)
		return UINT64_MAX / 2;
	/* Inversion: floor(log(U) / log(1-p)), U in (0, 1]. */
	double u = 1.0 - rng_uniform(r);
	double g = floor(log(u) / log1p_neg_p);
	if (!(g < (double)(UINT64_MAX / 2)))
		return UINT64_MAX / 2;
	return (uint64_t)g;
}

void rng_shuffle_u32(struct rng *r, uint32_t *a, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)rng_below(r, i);
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}
