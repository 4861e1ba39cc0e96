/* ndt: "ndt:k=K1xK2x..xKn" (or "k=4,n=5"), the nD twin torus (Andujar et
 * al., seed 004 §II-B, Definitions 2.1-2.2).
 *
 * An n-dimensional torus of nodes (n >= 3, Definition 2.1) in which every
 * node is two (n+1)-port cards joined by an internal link, each card with
 * its own PE: 2 * prod K routers (the cards) and as many endpoints. The
 * 2n torus ports of a node are split by Definition 2.2 (odd n): card 0
 * holds dimensions 0 .. (n-1)/2 - 1 and the - port of dimension (n-1)/2,
 * card 1 holds the + port of dimension (n-1)/2 and dimensions (n+1)/2 ..
 * n-1 (5DT: d0, d1, d2- on card 0; d2+, d3, d4 on card 1, Fig. 2b). Even
 * n, which the seed leaves to its ref. [7], splits the dimensions evenly
 * (0 .. n/2-1 on card 0). Numbering and ports: struct topo_ndt in topo.h
 * (router = 2 * node + card, endpoint = router, card-local ports: torus
 * ports 0..n-1 in dimension order with + before -, internal link n, PE
 * n+1). Every card has n + 1 network ports, as an EXTOLL card's 6 for 5DT.
 *
 * Distance (closed form): the torus hops sum over dimensions other than
 * the split one, plus the internal-link hops the card changes need. A hop
 * in the split dimension changes card (+ leaves card 1 and lands on card
 * 0, - the reverse), so j hops in the + direction cost j + (j - 1)
 * internal hops + [start on card 0] + [end on card 1] (and symmetrically
 * for -); without split hops the internal link is needed 0, 1 or 2 times
 * according to the start and end cards and which cards' dimensions must be
 * travelled. Orbits: node translations are automorphisms, so the cards 0
 * form one orbit and the cards 1 another.
 */
#include "topo/topo_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

struct ndt_params {
	struct param_vec k; /* nodes per dimension */
	int64_t n;          /* dimensions when k is a single radix (0 = len(k)) */
};

static const struct param_def ndt_params_def[] = {
	{"k", PARAM_DIMS, offsetof(struct ndt_params, k), NULL, 2, 65535,
	 "nodes per dimension, e.g. 4x4x2x2x2 (or one radix with n=)", NULL},
	{"n", PARAM_INT, offsetof(struct ndt_params, n), "0", 0, TOPO_MAX_DIMS,
	 "number of dimensions when k is a single radix", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* Refuse k past the port table with its radices and the sizes they give,
 * as grids are refused (it said "parameter 'k': more than 2^28 nodes",
 * naming no value). 2 prod k routers of n + 2 ports: the ports bind first
 * (n >= 3), and below their limit the products fit in 32 bits. */
static int ndt_check_size(const struct topo *t, int n, const uint32_t *k, struct nl_err *err)
{
	char kv[TOPO_MAX_DIMS * 11];
	double nodes = 1;
	for (int d = 0; d < n; d++)
		nodes *= k[d];
	double ports = 2 * nodes * (n + 2);
	if (ports < TOPO_EP_BIT)
		return 0;
	topo_dims_text(kv, sizeof kv, k, n);
	return topo_errf(t, err, NL_ERANGE,
			 "parameter 'k' gives %.15g routers (k = %s: %.15g nodes of two cards) of %d ports each: %.15g "
			 "ports; expected fewer than 2^31 (2147483648)",
			 2 * nodes, kv, nodes, n + 2, ports);
}

static int ndt_build(struct topo *t, struct nl_err *err)
{
	const struct ndt_params *pr = t->params;
	struct topo_ndt *v = t->state;
	uint32_t k[TOPO_MAX_DIMS];
	int n = topo_grid_dims(t, &pr->k, pr->n, k, err);
	uint64_t nodes = 1;

	if (n < 0)
		return n;
	if (n < 3)
		return topo_errf(t, err, NL_EINVAL,
				 "parameter 'k': %d dimension%s; an nD twin torus has n >= 3 (seed 004 Definition 2.1)", n,
				 n == 1 ? "" : "s");
	NL_CHECK(ndt_check_size(t, n, k, err));
	v->n = n;
	v->split = n % 2 ? (n - 1) / 2 : -1;
	for (int d = 0; d < n; d++) {
		v->k[d] = k[d];
		v->stride[d] = (uint32_t)nodes;
		nodes *= k[d];
	}
	/* Definition 2.2 port assignment. */
	int half = n % 2 ? v->split : n / 2; /* dimensions wholly on card 0 */
	for (int d = 0; d < n; d++) {
		if (d < half) {
			v->card_of[d][0] = v->card_of[d][1] = 0;
			v->card_port[d][0] = (uint8_t)(2 * d);
			v->card_port[d][1] = (uint8_t)(2 * d + 1);
		} else if (d == v->split) {
			v->card_of[d][1] = 0; /* d- on card 0, after its whole dimensions */
			v->card_port[d][1] = (uint8_t)(2 * d);
			v->card_of[d][0] = 1; /* d+ first on card 1 */
			v->card_port[d][0] = 0;
		} else {
			int first = n % 2 ? 2 * (d - v->split - 1) + 1 : 2 * (d - half);
			v->card_of[d][0] = v->card_of[d][1] = 1;
			v->card_port[d][0] = (uint8_t)first;
			v->card_port[d][1] = (uint8_t)(first + 1);
		}
	}
	v->internal_port = (uint32_t)n;
	v->pe_port = (uint32_t)n + 1;
	uint32_t routers = 2 * (uint32_t)nodes;
	NL_CHECK(topo_alloc(t, routers, NULL, (uint32_t)n + 2, routers, err));
	v->coord = topo_coords_new((uint32_t)nodes, n, v->stride, k);
	if (!v->coord)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t u = 0; u < nodes; u++) {
		for (int d = 0; d < n; d++) {
			uint32_t c = v->coord[(size_t)u * (size_t)n + (size_t)d];
			uint32_t w = c + 1 < k[d] ? u + v->stride[d] : u - c * v->stride[d];
			topo_connect(t, 2 * u + v->card_of[d][0], v->card_port[d][0], 2 * w + v->card_of[d][1],
				     v->card_port[d][1]);
		}
		topo_connect(t, 2 * u, v->internal_port, 2 * u + 1, v->internal_port);
		topo_attach(t, 2 * u, 2 * u, v->pe_port);
		topo_attach(t, 2 * u + 1, 2 * u + 1, v->pe_port);
	}
	return 0;
}

static void ndt_release(struct topo *t)
{
	struct topo_ndt *v = t->state;
	free(v->coord);
	v->coord = NULL;
}

static uint32_t ndt_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_ndt *v = t->state;
	uint32_t u = a / 2, w = b / 2, ca = a % 2, cb = b % 2, hops = 0, delta = 0;
	bool need[2] = {false, false};

	for (int d = 0; d < v->n; d++) {
		uint32_t x = v->coord[(size_t)u * (size_t)v->n + (size_t)d];
		uint32_t y = v->coord[(size_t)w * (size_t)v->n + (size_t)d];
		uint32_t fwd = (y + v->k[d] - x) % v->k[d];
		if (d == v->split) {
			delta = fwd;
			continue;
		}
		if (fwd == 0)
			continue;
		hops += fwd < v->k[d] - fwd ? fwd : v->k[d] - fwd;
		need[v->card_of[d][0]] = true;
	}
	if (delta == 0) {
		if (ca != cb)
			return hops + 1;
		return hops + (need[1 - ca] ? 2 : 0);
	}
	uint32_t k = v->k[v->split], jp = delta, jm = k - delta;
	uint32_t plus = 2 * jp - 1 + (ca == 0) + (cb == 1);
	uint32_t minus = 2 * jm - 1 + (ca == 1) + (cb == 0);
	return hops + (plus < minus ? plus : minus);
}

static uint32_t ndt_orbits(const struct topo *t, uint32_t *reps, uint64_t *weight, uint32_t cap)
{
	if (cap < 2)
		return 0;
	reps[0] = 0;
	reps[1] = 1;
	weight[0] = weight[1] = t->n_routers / 2;
	return 2;
}

/* The node's torus coordinates, then the card. */
static int ndt_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	const struct topo_ndt *v = t->state;
	for (int d = 0; d < v->n; d++)
		c[d] = v->coord[(size_t)(r / 2) * (size_t)v->n + (size_t)d];
	c[v->n] = r % 2;
	return v->n + 1;
}

/* Canonical spec: every dimension written out, n left out, as a torus's
 * (topo_grid_format_spec). 'ndt:k=4,n=3' and 'ndt:k=4x4x4' build one
 * network and read 'ndt:k=4,n=3' and 'ndt:k=4x4x4,n=0', where n=0 ("k
 * lists the dimensions") looked like zero dimensions. */
static int ndt_format_spec(const struct topo *t, char *buf, size_t cap)
{
	const struct topo_ndt *v = t->state;
	size_t used = (size_t)snprintf(buf, cap, "%s:k=", t->ops->name);
	for (int d = 0; d < v->n; d++)
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%" PRIu32, d ? "x" : "", v->k[d]);
	return 1;
}

const struct topo_ops topo_ndt_ops = {
	.name = "ndt",
	.help = "nD twin torus: n-D torus of nodes made of two (n+1)-port cards, Definition 2.2 ports (seed 004)",
	.params = ndt_params_def,
	.params_size = sizeof(struct ndt_params),
	.state_size = sizeof(struct topo_ndt),
	.build = ndt_build,
	.release = ndt_release,
	.distance = ndt_distance,
	.orbits = ndt_orbits,
	.coords = ndt_coords,
	.format_spec = ndt_format_spec,
};
