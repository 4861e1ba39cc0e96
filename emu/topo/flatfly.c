/* flatfly: "flatfly:m=M,n=N[,k=1]", the flattened m-ary n-fly (Kim, Dally
 * and Abts, ISCA 2007; seed 001 §2.1.2 and §3).
 *
 * Seed 001 §2.1.2: flattening an m-ary n-fly gives an (n-1)-dimensional
 * array of switches with extent m in each dimension, m terminals per
 * switch, each switch linked to the m-1 others aligned with it in every
 * dimension; §3: it is the regular HyperX with S = m, T = S and K = 1, or K
 * = 2 for full bisection bandwidth. So this builds hyperx:s=m^(n-1),k=K,t=m
 * and publishes the topo_hyperx view (same ports and numbering).
 */
#include "topo/topo_internal.h"

#include "core/error.h"

struct flatfly_params {
	int64_t m; /* arity: switches per dimension and terminals per switch */
	int64_t n; /* butterfly stages: n-1 dimensions */
	int64_t k; /* trunking, 1 or 2 (full bisection) */
};

static const struct param_def flatfly_params_def[] = {
	{"m", PARAM_INT, offsetof(struct flatfly_params, m), NULL, 2, 65535,
	 "arity m: switches per dimension and terminals per switch", NULL},
	{"n", PARAM_INT, offsetof(struct flatfly_params, n), NULL, 2, TOPO_MAX_DIMS + 1,
	 "stages n of the m-ary n-fly: n-1 dimensions", NULL},
	{"k", PARAM_INT, offsetof(struct flatfly_params, k), "1", 1, 1024,
	 "links per aligned switch pair: 1, or 2 for full bisection (seed 001 §3)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int flatfly_build(struct topo *t, struct nl_err *err)
{
	const struct flatfly_params *pr = t->params;
	uint32_t S[TOPO_MAX_DIMS], K[TOPO_MAX_DIMS];
	int L = (int)pr->n - 1;
	for (int d = 0; d < L; d++) {
		S[d] = (uint32_t)pr->m;
		K[d] = (uint32_t)pr->k;
	}
	return topo_hyperx_setup(t, t->state, L, S, K, (uint32_t)pr->m, "n", "m", err);
}

static void flatfly_release(struct topo *t)
{
	topo_hyperx_free_view(t->state);
}

const struct topo_ops topo_flatfly_ops = {
	.name = "flatfly",
	.help = "flattened butterfly: the m-ary n-fly as the HyperX s=m^(n-1), t=m (seed 001 §2.1.2, §3)",
	.params = flatfly_params_def,
	.params_size = sizeof(struct flatfly_params),
	.state_size = sizeof(struct topo_hyperx),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = flatfly_build,
	.release = flatfly_release,
	.distance = topo_hyperx_distance,	.coords = topo_hyperx_coords,
	.min_ports = topo_hyperx_min_ports,
	.link_latency = topo_hyperx_link_latency,
};
