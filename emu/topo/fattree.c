/* fattree: "fattree:k=K,n=N", the k-ary n-tree (Petrini and Vanneschi,
 * 1997; seed 000 Table 6's 3-level fat tree is k=10,n=3).
 *
 * N levels of K^(N-1) switches with K down and K up ports (the top level
 * has only the K down ports) and K^N terminals; switch radix 2K. Built by
 * the XGFT builder, so it publishes struct topo_tree with the closed-form
 * wiring: level 0 are the leaves; a level-l switch (block b, index w) has
 * id l*K^(N-1) + b*K^l + w, its up port K + j reaches level l+1 switch (b /
 * K, w*K + j) on down port b % K; leaf b's port c is endpoint b*K + c. No
 * closed-form switch-to-switch distance (BFS); the switches of a level form
 * one orbit.
 */
#include "topo/topo_internal.h"

#include <math.h>

#include "core/error.h"

struct fattree_params {
	int64_t k; /* arity: down (and up) ports per switch */
	int64_t n; /* levels */
};

static const struct param_def fattree_params_def[] = {
	{"k", PARAM_INT, offsetof(struct fattree_params, k), NULL, 2, 65535,
	 "arity K: down and up ports per switch (radix 2K)", NULL},
	{"n", PARAM_INT, offsetof(struct fattree_params, n), NULL, 1, TOPO_MAX_LEVELS, "levels N: K^N terminals",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int fattree_build(struct topo *t, struct nl_err *err)
{
	const struct fattree_params *pr = t->params;
	uint32_t down[TOPO_MAX_LEVELS], up[TOPO_MAX_LEVELS];
	uint64_t terminals = 1;
	int L = (int)pr->n;

	for (int l = 0; l < L; l++) {
		down[l] = up[l] = (uint32_t)pr->k;
		terminals *= (uint64_t)pr->k;
		if (terminals >= TOPO_EP_BIT) /* K^N itself, for the message: 65535^8 passes 2^64 */
			return topo_errf(t, err, NL_ERANGE,
					 "parameters 'k', 'n': K^N = %lld^%d = %.15g terminals; expected fewer than 2^31 "
					 "(2147483648)",
					 (long long)pr->k, L, pow((double)pr->k, L));
	}
	return topo_xgft_setup(t, t->state, L, down, up, terminals, err);
}

const struct topo_ops topo_fattree_ops = {
	.name = "fattree",
	.help = "k-ary n-tree fat tree: n levels of k^(n-1) switches of radix 2k, k^n terminals",
	.params = fattree_params_def,
	.params_size = sizeof(struct fattree_params),
	.state_size = sizeof(struct topo_tree),
	.build = fattree_build,
	.orbits = topo_xgft_orbits,
	.coords = topo_tree_coords,
	.level = topo_tree_level,
	.min_ports = topo_xgft_min_ports,
};
