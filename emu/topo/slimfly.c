/* slimfly: "slimfly:q=Q[,p=P]", the Slim Fly built on the McKay-Miller-Siran
 * (MMS) graph (Besta and Hoefler, SC14 §III; seed 000 ref. [4]).
 *
 * q is a prime power q = 4w + delta with delta in {-1, 0, 1} (every prime
 * power but 2). Routers (s, x, y), s in {0, 1}, x, y in GF(q); with xi a
 * primitive element of GF(q) the generator sets are
 *   delta =  1: X = {1, xi^2, .., xi^(q-3)},  X' = {xi, xi^3, .., xi^(q-2)}
 *   delta =  0: X = {1, xi^2, .., xi^(q-2)},  X' = {xi, xi^3, .., xi^(q-1)}
 *   delta = -1: X = {1, xi^2, .., xi^(2w-2), xi^(2w-1), xi^(2w+1), .., xi^(4w-3)},
 *               X' = {xi, xi^3, .., xi^(2w-1), xi^(2w), xi^(2w+2), .., xi^(4w-2)}
 * and (0,x,y) ~ (0,x,y') iff y - y' in X, (1,m,c) ~ (1,m,c') iff c - c' in
 * X', (0,x,y) ~ (1,m,c) iff y = m x + c. 2q^2 routers of network radix k' =
 * (3q - delta)/2, diameter 2. Default p = ceil(k'/2), the paper's full
 * global bandwidth concentration. When q is not prime the arithmetic is
 * GF(p^m) modulo a primitive polynomial (gf.c).
 *
 * Numbering and ports: struct topo_slimfly in topo.h; endpoints
 * router-major. Distance in closed form: 0, 1 when the adjacency rule
 * holds, else 2. Orbits: translations of y (with c), of x (with c - m s)
 * and of m (with y + t x) are automorphisms, so each subgraph is one orbit.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"

struct slimfly_params {
	int64_t q; /* prime power */
	int64_t p; /* endpoints per router, 0 = ceil(k'/2) */
};

static const struct param_def slimfly_params_def[] = {
	{"q", PARAM_INT, offsetof(struct slimfly_params, q), NULL, 2, 4096,
	 "prime power q = 4w + delta, delta in {-1, 0, 1}: 2q^2 routers of network radix (3q - delta)/2", NULL},
	{"p", PARAM_INT, offsetof(struct slimfly_params, p), "0", 0, 65536,
	 "endpoints per router; 0 = ceil(k'/2) (full global bandwidth)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct slimfly_state {
	struct topo_slimfly sf;
	struct topo_gf gf;
	uint8_t *in_set[2]; /* [q]: element in X (s = 0) / X' (s = 1) */
	uint32_t *gen[2];   /* [n_intra]: X / X' in port order (intra port i adds gen[s][i] to y) */
	uint32_t *pos[2];   /* [q]: the intra port of each element of X / X', UINT32_MAX elsewhere */
};

static int slimfly_build(struct topo *t, struct nl_err *err)
{
	struct slimfly_params *pr = t->params;
	struct slimfly_state *st = t->state;
	struct topo_slimfly *sf = &st->sf;
	uint32_t q = (uint32_t)pr->q, pp, mm, **gen = st->gen;
	int rc = topo_gf_init(&st->gf, q, &pp, &mm);

	if (rc == NL_EINVAL)
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'q': %u is not a prime power (the MMS construction needs q = p^m = 4w + delta, delta in {-1, 0, 1})",
				 q);
	if (rc < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	if (q % 4 == 2)
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'q': %u is not 4w + delta with delta in {-1, 0, 1} (every prime power but 2 is)", q);
	const struct topo_gf *f = &st->gf;
	int delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
	uint32_t w = (uint32_t)(((int64_t)q - delta) / 4);
	sf->q = q;
	sf->delta = delta;
	sf->kprime = (uint32_t)((3 * (int64_t)q - delta) / 2);
	sf->n_intra = (uint32_t)(((int64_t)q - delta) / 2);
	if (pr->p == 0)
		pr->p = (sf->kprime + 1) / 2;
	sf->p = (uint32_t)pr->p;
	uint64_t n = 2ull * q * q;
	if (n * sf->p >= TOPO_EP_BIT || n * (sf->kprime + sf->p) >= TOPO_EP_BIT)
		return topo_errf(t, err, NL_ERANGE, "parameter 'q': %llu routers of radix %u is more than supported",
				 (unsigned long long)n, sf->kprime + sf->p);

	/* Generator sets as exponents of xi (Besta and Hoefler §III-A). */
	gen[0] = malloc(sf->n_intra * sizeof *gen[0]);
	gen[1] = malloc(sf->n_intra * sizeof *gen[1]);
	st->pos[0] = malloc((size_t)q * sizeof *st->pos[0]);
	st->pos[1] = malloc((size_t)q * sizeof *st->pos[1]);
	st->in_set[0] = calloc(q, 1);
	st->in_set[1] = calloc(q, 1);
	if (!gen[0] || !gen[1] || !st->pos[0] || !st->pos[1] || !st->in_set[0] || !st->in_set[1]) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < sf->n_intra; i++) {
		uint32_t e0, e1;
		if (delta >= 0) {
			e0 = 2 * i;
			e1 = 2 * i + 1;
		} else {
			e0 = i < w ? 2 * i : 2 * w - 1 + 2 * (i - w);
			e1 = i < w ? 2 * i + 1 : 2 * w + 2 * (i - w);
		}
		gen[0][i] = f->exp[e0 % (q - 1)];
		gen[1][i] = f->exp[e1 % (q - 1)];
	}
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < sf->n_intra; i++) {
			if (st->in_set[s][gen[s][i]] || !gen[s][i]) {
				rc = topo_errf(t, err, NL_EINVAL, "parameter 'q': generator set %s of q = %u repeats an element",
					       s ? "X'" : "X", q);
				goto out;
			}
			st->in_set[s][gen[s][i]] = 1;
		}
	/* The sets must be closed under negation for the graph to be undirected. */
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < sf->n_intra; i++)
			NL_ASSERT(st->in_set[s][topo_gf_neg(f, gen[s][i])]);

	if ((rc = topo_alloc(t, (uint32_t)n, NULL, sf->kprime + sf->p, (uint32_t)n * sf->p, err)) < 0)
		goto out;
	for (int s = 0; s < 2; s++) {
		uint32_t *idx = st->pos[s];
		for (uint32_t v = 0; v < q; v++)
			idx[v] = UINT32_MAX;
		for (uint32_t i = 0; i < sf->n_intra; i++)
			idx[gen[s][i]] = i;
		for (uint32_t x = 0; x < q; x++)
			for (uint32_t y = 0; y < q; y++) {
				uint32_t r = (uint32_t)s * q * q + x * q + y;
				for (uint32_t i = 0; i < sf->n_intra; i++) {
					uint32_t y2 = topo_gf_add(f, y, gen[s][i]);
					if (y2 > y)
						topo_connect(t, r, i, (uint32_t)s * q * q + x * q + y2,
							     idx[topo_gf_neg(f, gen[s][i])]);
				}
			}
	}
	for (uint32_t x = 0; x < q; x++)
		for (uint32_t y = 0; y < q; y++)
			for (uint32_t m = 0; m < q; m++) {
				uint32_t c = topo_gf_add(f, y, topo_gf_neg(f, topo_gf_mul(f, m, x)));
				topo_connect(t, x * q + y, sf->n_intra + m, q * q + m * q + c, sf->n_intra + x);
			}
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t i = 0; i < sf->p; i++)
			topo_attach(t, r * sf->p + i, r, sf->kprime + i);
	rc = 0;
out:
	return rc; /* on failure slimfly_release frees what was allocated */
}

static void slimfly_release(struct topo *t)
{
	struct slimfly_state *st = t->state;
	topo_gf_release(&st->gf);
	for (int s = 0; s < 2; s++) {
		free(st->in_set[s]);
		free(st->gen[s]);
		free(st->pos[s]);
	}
}

static uint32_t slimfly_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct slimfly_state *st = t->state;
	const struct topo_gf *f = &st->gf;
	uint32_t q = st->sf.q, qq = q * q;

	if (a == b)
		return 0;
	uint32_t sa = a / qq, xa = a / q % q, ya = a % q, sb = b / qq, xb = b / q % q, yb = b % q;
	if (sa == sb)
		return xa == xb && st->in_set[sa][topo_gf_add(f, ya, topo_gf_neg(f, yb))] ? 1 : 2;
	if (sa == 1) { /* make a the subgraph-0 router (0, x, y), b = (1, m, c) */
		uint32_t tx = xa, ty = ya;
		xa = xb;
		ya = yb;
		xb = tx;
		yb = ty;
	}
	return ya == topo_gf_add(f, topo_gf_mul(f, xb, xa), yb) ? 1 : 2;
}

static uint32_t slimfly_sub(const struct topo_gf *f, uint32_t a, uint32_t b)
{
	return topo_gf_add(f, a, topo_gf_neg(f, b));
}

/* a / b in GF(q), b != 0, by logarithms. */
static uint32_t slimfly_div(const struct topo_gf *f, uint32_t a, uint32_t b)
{
	uint32_t q1 = f->q - 1;
	return a ? f->exp[(f->log[a] + q1 - f->log[b]) % q1] : 0;
}

/* Minimal next hops in closed form (diameter 2, no parallel links), in
 * increasing port order (intra ports 0 .. n_intra-1, then cross ports).
 * At distance 1 the one port to dst. At distance 2 the neighbours adjacent
 * to dst: in one subgraph, the same column gives the intra neighbours y +
 * g with dst's y - (y + g) in the set, another column the one cross
 * neighbour whose line meets both (m = (y' - y) / (x' - x) from (0, x, y);
 * j = (c' - c) / (m - m') from (1, m, c)); across subgraphs, at most the
 * intra neighbour on dst's line and the cross neighbour in dst's column. */
static uint32_t slimfly_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip,
				  uint32_t *ports, uint32_t cap)
{
	const struct slimfly_state *st = t->state;
	const struct topo_gf *f = &st->gf;
	uint32_t q = st->sf.q, qq = q * q, ni = st->sf.n_intra, n = 0;
	uint32_t s = r / qq, x = r / q % q, y = r % q, s2 = dst / qq, x2 = dst / q % q, y2 = dst % q;
#define SF_EMIT(port)                            \
	do {                                     \
		if (n >= skip && n - skip < cap) \
			ports[n - skip] = (port); \
		n++;                             \
	} while (0)

	if (slimfly_distance(t, r, dst) == 1) {
		SF_EMIT(s == s2 ? st->pos[s][slimfly_sub(f, y2, y)] : ni + x2);
		return n;
	}
	if (s == s2) {
		if (x == x2) {
			for (uint32_t i = 0; i < ni; i++)
				if (st->in_set[s][slimfly_sub(f, y2, topo_gf_add(f, y, st->gen[s][i]))])
					SF_EMIT(i);
		} else {
			SF_EMIT(ni + (s == 0 ? slimfly_div(f, slimfly_sub(f, y2, y), slimfly_sub(f, x2, x))
					     : slimfly_div(f, slimfly_sub(f, y2, y), slimfly_sub(f, x, x2))));
		}
		return n;
	}
	/* (0, x, y) toward (1, m, c) = (1, x2, y2), or (1, m, c) = (1, x, y)
	 * toward (0, x2, y2): the same offset decides the intra neighbour (in
	 * r's set) and the cross neighbour (in dst's set). */
	uint32_t g = s == 0 ? slimfly_sub(f, topo_gf_add(f, topo_gf_mul(f, x2, x), y2), y)
			    : slimfly_sub(f, y2, topo_gf_add(f, topo_gf_mul(f, x, x2), y));
	if (st->in_set[s][g])
		SF_EMIT(st->pos[s][g]);
	if (st->in_set[s2][g])
		SF_EMIT(ni + x2);
	return n;
#undef SF_EMIT
}

static uint32_t slimfly_orbits(const struct topo *t, uint32_t *reps, uint64_t *weight, uint32_t cap)
{
	uint32_t qq = ((const struct topo_slimfly *)t->state)->q * ((const struct topo_slimfly *)t->state)->q;
	if (cap < 2)
		return 0;
	reps[0] = 0;
	reps[1] = qq;
	weight[0] = weight[1] = qq;
	return 2;
}

/* (s, x, y) from id = s*q*q + x*q + y. */
static int slimfly_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	uint32_t q = ((const struct topo_slimfly *)t->state)->q;
	c[0] = r / (q * q);
	c[1] = r / q % q;
	c[2] = r % q;
	return 3;
}

const struct topo_ops topo_slimfly_ops = {
	.name = "slimfly",
	.help = "Slim Fly: MMS graph of a prime power q, 2q^2 routers of network radix (3q-delta)/2, diameter 2 (seed 000 [4])",
	.params = slimfly_params_def,
	.params_size = sizeof(struct slimfly_params),
	.state_size = sizeof(struct slimfly_state),
	.build = slimfly_build,
	.release = slimfly_release,
	.distance = slimfly_distance,
	.min_ports = slimfly_min_ports,
	.orbits = slimfly_orbits,
	.coords = slimfly_coords,
};
