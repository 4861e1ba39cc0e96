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
	uint16_t *sub;      /* [a * q + b]: a - b in GF(q), q^2 entries (2 bytes per router) */
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
	char given[96];
	snprintf(given, sizeof given, "parameters q=%u, p=%u", (unsigned)q, sf->p);
	NL_CHECK(topo_size_check(t, given, (double)n, (double)n * (sf->kprime + sf->p), (double)n * sf->p, err));

	/* GF(q) subtraction as a table: routing subtracts field elements at
	 * every hop, and topo_gf_add loops over base-p digits with divisions
	 * (q <= 4096, so an element fits 16 bits; q^2 = n/2 entries). */
	st->sub = malloc((size_t)q * q * sizeof *st->sub);
	if (!st->sub) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t b = 0; b < q; b++) {
		uint32_t nb = topo_gf_neg(f, b);
		for (uint32_t a = 0; a < q; a++)
			st->sub[(size_t)a * q + b] = (uint16_t)topo_gf_add(f, a, nb);
	}

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
	free(st->sub);
	for (int s = 0; s < 2; s++) {
		free(st->in_set[s]);
		free(st->gen[s]);
		free(st->pos[s]);
	}
}

/* a - b and a * b in GF(q): one table read, or two for a product. */
static inline uint32_t slimfly_sub(const struct slimfly_state *st, uint32_t a, uint32_t b)
{
	return st->sub[(size_t)a * st->sf.q + b];
}

static inline uint32_t slimfly_mul(const struct topo_gf *f, uint32_t a, uint32_t b)
{
	return a && b ? f->exp[f->log[a] + f->log[b]] : 0;
}

/* a / b in GF(q), b != 0, by logarithms. */
static uint32_t slimfly_div(const struct topo_gf *f, uint32_t a, uint32_t b)
{
	uint32_t q1 = f->q - 1;
	return a ? f->exp[(f->log[a] + q1 - f->log[b]) % q1] : 0;
}

/* Whether (sa, xa, ya) and (sb, xb, yb) are adjacent (distinct routers). */
static inline bool slimfly_adjacent(const struct slimfly_state *st, uint32_t sa, uint32_t xa, uint32_t ya,
				    uint32_t sb, uint32_t xb, uint32_t yb)
{
	if (sa == sb)
		return xa == xb && st->in_set[sa][slimfly_sub(st, ya, yb)];
	/* (0, x, y) ~ (1, m, c) iff y = m x + c, that is c = y - m x */
	if (sa == 0)
		return yb == slimfly_sub(st, ya, slimfly_mul(&st->gf, xb, xa));
	return ya == slimfly_sub(st, yb, slimfly_mul(&st->gf, xa, xb));
}

static uint32_t slimfly_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct slimfly_state *st = t->state;
	uint32_t q = st->sf.q, qq = q * q;

	if (a == b)
		return 0;
	return slimfly_adjacent(st, a / qq, a / q % q, a % q, b / qq, b / q % q, b % q) ? 1 : 2;
}

/* Minimal next hops in closed form (diameter 2, no parallel links), in
 * increasing port order (intra ports 0 .. n_intra-1, then cross ports).
 * At distance 1 the one port to dst. At distance 2 the neighbours adjacent
 * to dst: in one subgraph, the same column gives the intra neighbours y +
 * g with dst's y - (y + g) in the set, another column the one cross
 * neighbour whose line meets both (m = (y' - y) / (x' - x) from (0, x, y);
 * j = (c' - c) / (m - m') from (1, m, c)); across subgraphs, at most the
 * intra neighbour on dst's line and the cross neighbour in dst's column.
 * Field subtraction is the q x q table, so a call is a few table reads. */
static uint32_t slimfly_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip,
				  uint32_t *ports, uint32_t cap)
{
	const struct slimfly_state *st = t->state;
	const struct topo_gf *f = &st->gf;
	uint32_t q = st->sf.q, qq = q * q, ni = st->sf.n_intra, n = 0;
	uint32_t s = r / qq, x = r / q % q, y = r % q, s2 = dst / qq, x2 = dst / q % q, y2 = dst % q;
	if (slimfly_adjacent(st, s, x, y, s2, x2, y2)) {
		topo_ports_add(ports, &n, skip, cap, s == s2 ? st->pos[s][slimfly_sub(st, y2, y)] : ni + x2);
		return n;
	}
	uint32_t dy = slimfly_sub(st, y2, y);
	if (s == s2) {
		if (x == x2) { /* y2 - (y + g) = (y2 - y) - g */
			const uint8_t *in = st->in_set[s];
			const uint32_t *gen = st->gen[s];
			for (uint32_t i = 0; i < ni; i++)
				if (in[slimfly_sub(st, dy, gen[i])])
					topo_ports_add(ports, &n, skip, cap, i);
		} else {
			topo_ports_add(ports, &n, skip, cap, ni + (s == 0 ? slimfly_div(f, dy, slimfly_sub(st, x2, x))
					     : slimfly_div(f, dy, slimfly_sub(st, x, x2))));
		}
		return n;
	}
	/* (0, x, y) toward (1, m, c) = (1, x2, y2), or (1, m, c) = (1, x, y)
	 * toward (0, x2, y2): the same offset decides the intra neighbour (in
	 * r's set) and the cross neighbour (in dst's set): x2 x + y2 - y from
	 * subgraph 0, y2 - (x x2 + y) from subgraph 1. */
	uint32_t xm = slimfly_mul(f, x, x2);
	uint32_t g = s == 0 ? slimfly_sub(st, xm, slimfly_sub(st, y, y2)) : slimfly_sub(st, dy, xm);
	if (st->in_set[s][g])
		topo_ports_add(ports, &n, skip, cap, st->pos[s][g]);
	if (st->in_set[s2][g])
		topo_ports_add(ports, &n, skip, cap, ni + x2);
	return n;
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
