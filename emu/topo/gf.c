/* Finite-field arithmetic GF(p^m) for the Slim Fly MMS construction:
 * elements as base-p digit vectors (polynomials over GF(p)), a primitive
 * polynomial found by search, and exp/log tables of its root. */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"

/* Smallest prime factor p of q and m with p^m == q; 0 if q is not a prime
 * power. */
static uint32_t gf_prime_power(uint32_t q, uint32_t *m)
{
	uint32_t p = 0;
	if (q < 2)
		return 0;
	for (uint32_t d = 2; (uint64_t)d * d <= q; d++)
		if (q % d == 0) {
			p = d;
			break;
		}
	if (!p)
		p = q;
	uint32_t v = q;
	*m = 0;
	while (v % p == 0) {
		v /= p;
		(*m)++;
	}
	return v == 1 ? p : 0;
}

uint32_t topo_gf_add(const struct topo_gf *f, uint32_t a, uint32_t b)
{
	if (f->m == 1)
		return (a + b) % f->p;
	uint32_t r = 0, w = 1;
	for (uint32_t i = 0; i < f->m; i++) {
		r += ((a % f->p + b % f->p) % f->p) * w;
		a /= f->p;
		b /= f->p;
		w *= f->p;
	}
	return r;
}

uint32_t topo_gf_neg(const struct topo_gf *f, uint32_t a)
{
	uint32_t r = 0, w = 1;
	for (uint32_t i = 0; i < f->m; i++) {
		r += ((f->p - a % f->p) % f->p) * w;
		a /= f->p;
		w *= f->p;
	}
	return r;
}

uint32_t topo_gf_mul(const struct topo_gf *f, uint32_t a, uint32_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return f->exp[f->log[a] + f->log[b]];
}

/* a * x modulo the monic polynomial x^m + sum c_i x^i (c as digits). */
static uint32_t gf_times_x(uint32_t a, uint32_t p, uint32_t m, const uint32_t *c)
{
	uint32_t top = 0, r = 0, w = 1, d[32];
	if (m == 0 || m > 32)
		return 0; /* q = p^m < 2^32 keeps m <= 31 */
	for (uint32_t i = 0; i < m; i++) {
		d[i] = a % p;
		a /= p;
	}
	top = d[m - 1];
	for (uint32_t i = m - 1; i > 0; i--)
		d[i] = d[i - 1];
	d[0] = 0;
	for (uint32_t i = 0; i < m; i++) {
		d[i] = (d[i] + (p - (top * c[i]) % p)) % p;
		r += d[i] * w;
		w *= p;
	}
	return r;
}

int topo_gf_init(struct topo_gf *f, uint32_t q, uint32_t *p_out, uint32_t *m_out)
{
	uint32_t m = 0, p = gf_prime_power(q, &m);

	*p_out = p;
	*m_out = m;
	f->exp = f->log = NULL;
	if (!p)
		return NL_EINVAL;
	f->q = q;
	f->p = p;
	f->m = m;
	f->exp = malloc(2 * (size_t)(q - 1) * sizeof *f->exp + sizeof *f->exp);
	f->log = calloc(q, sizeof *f->log);
	if (!f->exp || !f->log) {
		topo_gf_release(f);
		return NL_ENOMEM;
	}
	/* Candidates: for m = 1 the generator g = 2, 3, ... (x - g); for m > 1
	 * the monic polynomials in order of their digit code c. A candidate is
	 * primitive iff its generator has multiplicative order exactly q - 1. */
	for (uint32_t cand = 0; cand < q; cand++) {
		uint32_t c[32], code = cand, a = 1, i;
		for (i = 0; i < m; i++) {
			c[i] = code % p;
			code /= p;
		}
		if (m > 1 && c[0] == 0)
			continue; /* divisible by x */
		uint32_t g = m == 1 ? cand : 0;
		if (m == 1 && (q == 2 ? g != 1 : g < 2))
			continue;
		for (i = 0; i < q - 1; i++) {
			f->exp[i] = a;
			a = m == 1 ? (uint32_t)((uint64_t)a * g % p) : gf_times_x(a, p, m, c);
			if (a == 1)
				break;
		}
		if (i != q - 2)
			continue;
		for (i = 0; i < q - 1; i++) {
			f->exp[q - 1 + i] = f->exp[i];
			f->log[f->exp[i]] = i;
		}
		return 0;
	}
	topo_gf_release(f);
	return NL_EINVAL; /* not reached for prime powers */
}

void topo_gf_release(struct topo_gf *f)
{
	free(f->exp);
	free(f->log);
	f->exp = f->log = NULL;
}
