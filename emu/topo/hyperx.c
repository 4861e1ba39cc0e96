/* hyperx: "hyperx:s=S1xS2x..,k=K1xK2x..,t=T[,r=R]" (Ahn et al., SC09, seed 001 §3).
 *
 * Switches are the points of an L-dimensional lattice, S[d] per dimension,
 * fully connected within each dimension, with K[d] parallel (trunked) links
 * between two switches aligned in dimension d and T terminals per switch.
 * Ports (struct topo_hyperx): dimension 0 first, within a dimension grouped
 * by the target coordinate v != own in increasing order, K[d] trunk ports
 * per target, then the T terminal ports; endpoints router-major. Router id =
 * I1 + S1 * (I2 + S2 * (...)). Distance: the number of differing
 * coordinates; minimal next hops: the K[d] trunk ports toward the
 * destination's coordinate in every differing dimension d (no table at
 * any size). Vertex-transitive (a product of complete graphs).
 *
 * r= optionally checks the switch-port bound of eq. 2, T + sum K_d (S_d - 1)
 * <= R. Packaging (§5): the S1 switches of the first dimension share an
 * enclosure, so router r is in cabinet r / S1. The shared builder here also
 * serves full, flatfly and hypercube, which are HyperX special cases (§3).
 */
#include "topo/topo_internal.h"

#include <stdlib.h>

#include "core/error.h"

/* Refuse a HyperX past the port table's limits with its sizes and the
 * parameters that give them: the generic refusal of topo_alloc named
 * neither ('full:n=65535': "4294836225 ports / 65535 endpoints is more
 * than supported"). family names the topology in the message: the check
 * also serves topo_hyperx_fits, which has no struct topo. */
static int hyperx_check_size(const char *family, int L, const uint32_t *S, const uint32_t *K, uint32_t T,
			     const char *sname, const char *tname, struct nl_err *err)
{
	char sv[TOPO_MAX_DIMS * 11], kv[TOPO_MAX_DIMS * 11], msg[NL_ERR_MSG_MAX];
	double n = 1;
	uint64_t deg = 0;

	if (L < 1 || L > TOPO_MAX_DIMS)
		return nl_errf(err, NL_ERANGE, "topology '%s': parameter '%s': 1 to %d dimensions, got %d", family,
			       sname, TOPO_MAX_DIMS, L);
	for (int d = 0; d < L; d++) {
		n *= S[d];
		deg += (uint64_t)K[d] * (S[d] - 1);
	}
	topo_dims_text(sv, sizeof sv, S, L);
	topo_dims_text(kv, sizeof kv, K, L);
	if (n > (1u << 30))
		snprintf(msg, sizeof msg, "parameter '%s' gives S = %s: %.15g switches; expected at most 2^30 (1073741824)",
			 sname, sv, n);
	else if (deg > (1u << 20))
		snprintf(msg, sizeof msg,
			 "parameter '%s' gives S = %s, K = %s: %llu ports per switch to other switches, sum "
			 "K_d (S_d - 1); expected at most 2^20 (1048576)",
			 sname, sv, kv, (unsigned long long)deg);
	else if (n * T >= TOPO_EP_BIT)
		snprintf(msg, sizeof msg,
			 "parameter '%s' = %u on %.15g switches (S = %s): %.15g endpoints; expected fewer than "
			 "2^31 (2147483648)",
			 tname, T, n, sv, n * T);
	else if (n * (double)(deg + T) >= TOPO_EP_BIT)
		snprintf(msg, sizeof msg,
			 "parameters '%s', '%s' give %.15g switches (S = %s) of %llu ports each (%s = %u of "
			 "them for terminals): %.15g ports; expected fewer than 2^31 (2147483648)",
			 sname, tname, n, sv, (unsigned long long)(deg + T), tname, T, n * (double)(deg + T));
	else
		return 0;
	return nl_errf(err, NL_ERANGE, "topology '%s': %s", family, msg);
}

int topo_hyperx_setup(struct topo *t, struct topo_hyperx *hx, int L, const uint32_t *S, const uint32_t *K,
		      uint32_t T, const char *sname, const char *tname, struct nl_err *err)
{
	uint64_t n = 1, deg = 0;

	NL_CHECK(hyperx_check_size(t->ops->name, L, S, K, T, sname, tname, err));
	hx->L = L;
	hx->T = T;
	for (int d = 0; d < L; d++) {
		hx->S[d] = S[d];
		hx->K[d] = K[d];
		hx->stride[d] = (uint32_t)n;
		hx->port_base[d] = (uint32_t)deg;
		n *= S[d];
		deg += (uint64_t)K[d] * (S[d] - 1);
	}
	hx->term_base = (uint32_t)deg;
	NL_CHECK(topo_alloc(t, (uint32_t)n, NULL, (uint32_t)deg + T, (uint32_t)n * T, err));
	hx->coord = topo_coords_new((uint32_t)n, L, hx->stride, S);
	if (!hx->coord)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < n; r++) {
		for (int d = 0; d < L; d++) {
			uint32_t c = topo_hyperx_coord(hx, r, d);
			for (uint32_t v = c + 1; v < S[d]; v++) {
				uint32_t s = r + (v - c) * hx->stride[d];
				for (uint32_t k = 0; k < K[d]; k++)
					topo_connect(t, r, topo_hyperx_port(hx, d, c, v, k), s,
						     topo_hyperx_port(hx, d, v, c, k));
			}
		}
		for (uint32_t i = 0; i < T; i++)
			topo_attach(t, r * T + i, r, hx->term_base + i);
	}
	return 0;
}

void topo_hyperx_free_view(struct topo_hyperx *hx)
{
	free(hx->coord);
	hx->coord = NULL;
}

uint32_t topo_hyperx_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_hyperx *hx = t->state;
	uint32_t h = 0;
	for (int d = 0; d < hx->L; d++)
		h += topo_hyperx_coord(hx, a, d) != topo_hyperx_coord(hx, b, d);
	return h;
}

int topo_hyperx_coords(const struct topo *t, uint32_t r, uint32_t *c)
{
	const struct topo_hyperx *hx = t->state;
	for (int d = 0; d < hx->L; d++)
		c[d] = topo_hyperx_coord(hx, r, d);
	return hx->L;
}

uint32_t topo_hyperx_min_ports(const struct topo *t, uint32_t r, uint32_t dst, uint32_t skip, uint32_t *ports,
			       uint32_t cap)
{
	const struct topo_hyperx *hx = t->state;
	uint32_t n = 0;
	for (int d = 0; d < hx->L; d++) {
		uint32_t c = topo_hyperx_coord(hx, r, d), v = topo_hyperx_coord(hx, dst, d);
		if (c == v)
			continue;
		uint32_t first = topo_hyperx_port(hx, d, c, v, 0);
		for (uint32_t k = 0; k < hx->K[d]; k++, n++)
			if (n >= skip && n - skip < cap)
				ports[n - skip] = first + k;
	}
	return n;
}

/* Whole square root of v, or 0 when v is not a square. */
static uint32_t hx_exact_sqrt(uint32_t v)
{
	uint32_t r = 0;
	while ((uint64_t)(r + 1) * (r + 1) <= v)
		r++;
	return r * r == v ? r : 0;
}

int topo_hyperx_link_latency(const struct topo *t, uint16_t *lat, struct nl_err *err)
{
	const struct topo_hyperx *hx = topo_hyperx_of(t);
	uint32_t x = hx_exact_sqrt(t->n_routers), xr = hx ? hx_exact_sqrt(hx->T) : 0;
	/* BookSim asserts x == y, x * y routers and c == xr * yr, xr == yr. */
	if (!hx || !x)
		return topo_errf(t, err, NL_ECONFIG,
				 "noc_latency = 1: %u routers do not fill a square on-chip grid; expected a square "
				 "router count (BookSim's flatfly: x = y, x * y routers)",
				 t->n_routers);
	if (!xr || xr > 3)
		return topo_errf(t, err, NL_ECONFIG,
				 "noc_latency = 1: t=%u terminals per router; expected 1, 4 or 9 (BookSim's c = xr * yr "
				 "with xr = yr <= 3, where its terminal channels are 1 cycle)",
				 hx ? hx->T : 0);
	for (uint32_t g = 0; g < t->n_ports; g++) {
		uint32_t peer = t->peer[g];
		lat[g] = 0;
		if (peer == TOPO_NONE || (peer & TOPO_EP_BIT))
			continue;
		uint32_t a = t->port_router[g], b = t->port_router[peer];
		uint32_t dc = a % x > b % x ? a % x - b % x : b % x - a % x;
		uint32_t dr = a / x > b / x ? a / x - b / x : b / x - a / x;
		uint64_t len = (uint64_t)xr * (dc + dr);
		if (len > 65535)
			return topo_errf(t, err, NL_ERANGE,
					 "noc_latency = 1: channel %u-%u of %llu cycles; expected at most 65535", a, b,
					 (unsigned long long)len);
		lat[g] = (uint16_t)len;
	}
	return 0;
}

/* --- the hyperx family ---------------------------------------------------- */

struct hyperx_params {
	struct param_vec s; /* switches per dimension, S */
	struct param_vec k; /* trunking per dimension, K (one value = all) */
	int64_t t;          /* terminals per switch, T */
	int64_t r;          /* switch radix bound of eq. 2, 0 = unchecked */
};

static const struct param_def hyperx_params_def[] = {
	{"s", PARAM_DIMS, offsetof(struct hyperx_params, s), NULL, 2, 65535,
	 "switches per dimension S1xS2x.. (seed 001 §3)", NULL},
	{"k", PARAM_DIMS, offsetof(struct hyperx_params, k), "1", 1, 1024,
	 "trunking K1xK2x..: parallel links per aligned switch pair (one value for all dimensions)", NULL},
	{"t", PARAM_INT, offsetof(struct hyperx_params, t), "1", 0, 65536, "terminals per switch, T", NULL},
	{"r", PARAM_INT, offsetof(struct hyperx_params, r), "0", 0, 1 << 20,
	 "switch radix R to check T + sum K_d (S_d - 1) <= R against (eq. 2); 0 = no check", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* S and K of the parameters (K one value for all dimensions, or one per
 * dimension) and the switch-port bound r= (eq. 2): the rules build checks
 * before the network's size. L, the dimensions, is pr->s.n. */
static int hyperx_dims(const struct hyperx_params *pr, uint32_t *S, uint32_t *K, struct nl_err *err)
{
	uint64_t radix = (uint64_t)pr->t;
	int L = pr->s.n;

	if (pr->k.n != 1 && pr->k.n != L)
		return nl_errf(err, NL_EINVAL,
			       "topology 'hyperx': parameter 'k' has %d values but 's' has %d dimensions; give one K for "
			       "all or one per dimension",
			       pr->k.n, L);
	for (int d = 0; d < L; d++) {
		S[d] = (uint32_t)pr->s.v[d];
		K[d] = (uint32_t)pr->k.v[pr->k.n == 1 ? 0 : d];
		radix += (uint64_t)K[d] * (S[d] - 1);
	}
	if (pr->r && radix > (uint64_t)pr->r)
		return nl_errf(err, NL_ERANGE,
			       "topology 'hyperx': parameter 'r': the switch needs T + sum K_d (S_d - 1) = %llu ports, "
			       "more than r=%lld (seed 001 eq. 2)",
			       (unsigned long long)radix, (long long)pr->r);
	return 0;
}

int topo_hyperx_fits(uint32_t L, const uint32_t *S, const uint32_t *K, uint32_t T, struct nl_err *err)
{
	char tail[TOPO_MAX_DIMS * 24 + 32], sv[TOPO_MAX_DIMS * 11], kv[TOPO_MAX_DIMS * 11];
	struct hyperx_params pr;
	uint32_t S2[TOPO_MAX_DIMS], K2[TOPO_MAX_DIMS];

	if (L < 1 || L > TOPO_MAX_DIMS) /* more than s= takes: refused before the spec could be written */
		return hyperx_check_size(topo_hyperx_ops.name, L > 65535 ? 65535 : (int)L, S, K, T,
					 "s", "t", err);
	topo_dims_text(sv, sizeof sv, S, (int)L);
	topo_dims_text(kv, sizeof kv, K, (int)L);
	/* The spec's own parse, so the ranges of the parameter table (s, k,
	 * t) refuse as 'topo describe' does. */
	snprintf(tail, sizeof tail, ":s=%s,k=%s,t=%u", sv, kv, T);
	NL_CHECK(param_parse(hyperx_params_def, &pr, tail, "topology 'hyperx'", err));
	NL_CHECK(hyperx_dims(&pr, S2, K2, err));
	return hyperx_check_size(topo_hyperx_ops.name, pr.s.n, S2, K2, (uint32_t)pr.t, "s", "t", err);
}

static int hyperx_build(struct topo *t, struct nl_err *err)
{
	const struct hyperx_params *pr = t->params;
	struct topo_hyperx *hx = t->state;
	uint32_t S[TOPO_MAX_DIMS], K[TOPO_MAX_DIMS];
	int L = pr->s.n;

	NL_CHECK(hyperx_dims(pr, S, K, err));
	NL_CHECK(topo_hyperx_setup(t, hx, L, S, K, (uint32_t)pr->t, "s", "t", err));
	/* §5: the first dimension is routed within an enclosure. */
	t->cabinet = malloc((size_t)t->n_routers * sizeof *t->cabinet);
	if (!t->cabinet)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < t->n_routers; r++)
		t->cabinet[r] = r / S[0];
	t->n_cabinets = t->n_routers / S[0];
	return 0;
}

static void hyperx_release(struct topo *t)
{
	topo_hyperx_free_view(t->state);
}

const struct topo_ops topo_hyperx_ops = {
	.name = "hyperx",
	.help = "HyperX: L-dimensional lattice fully connected per dimension, trunking K, T terminals (seed 001 §3)",
	.params = hyperx_params_def,
	.params_size = sizeof(struct hyperx_params),
	.state_size = sizeof(struct topo_hyperx),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = hyperx_build,
	.release = hyperx_release,
	.distance = topo_hyperx_distance,
	.coords = topo_hyperx_coords,
	.min_ports = topo_hyperx_min_ports,
	.link_latency = topo_hyperx_link_latency,
};
