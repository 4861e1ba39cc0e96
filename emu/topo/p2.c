/* p2: "p2(BASE)[:trials=20,cab=0,frac=1,seed=1]", the two-cab permutation (§3.1) of
 * any base topology (Fujiwara et al., seed 003); e.g. p2(torus:k=64x64).
 * The engine, parameters and invariants are in permute.c; the result has
 * the base's routers, ports, endpoints and cabinets, permuted links, no
 * closed-form view but the topo_permuted outcome (topo_permuted_of). Distance by BFS.
 */
#include "topo/topo_internal.h"

static int p2_build(struct topo *t, struct nl_err *err)
{
	return topo_perm_build(t, 2, err);
}

const struct topo_ops topo_p2_ops = {
	.name = "p2",
	.help = "two-cab link-endpoint permutation of a base topology, cable lengths kept (seed 003 §3)",
	.params = topo_perm_params_def,
	.params_size = sizeof(struct topo_perm_params),
	.state_size = sizeof(struct topo_permuted),
	.build = p2_build,
};
