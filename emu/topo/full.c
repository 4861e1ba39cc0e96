/* full: "full:n=16,p=4[,k=1]", n fully connected routers.
 *
 * The HyperX with one dimension (seed 001 §3: "a fully connected graph is
 * a HyperX with L = 1"), so it publishes the topo_hyperx view: router r's
 * port to router v != r is (v < r ? v : v - 1) * k + trunk, and the p
 * terminal ports follow at (n - 1) * k; endpoints router-major. Distance 1
 * between distinct routers; vertex-transitive.
 */
#include "topo/topo_internal.h"

#include "core/error.h"

struct full_params {
	int64_t n; /* routers */
	int64_t p; /* endpoints per router */
	int64_t k; /* parallel links per router pair */
};

static const struct param_def full_params_def[] = {
	{"n", PARAM_INT, offsetof(struct full_params, n), NULL, 2, 65535, "number of routers", NULL},
	{"p", PARAM_INT, offsetof(struct full_params, p), "1", 0, 65536, "endpoints per router", NULL},
	{"k", PARAM_INT, offsetof(struct full_params, k), "1", 1, 1024, "parallel links per router pair (trunking)",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int full_build(struct topo *t, struct nl_err *err)
{
	const struct full_params *pr = t->params;
	uint32_t S = (uint32_t)pr->n, K = (uint32_t)pr->k;
	return topo_hyperx_setup(t, t->state, 1, &S, &K, (uint32_t)pr->p, "n", "p", err);
}

static void full_release(struct topo *t)
{
	topo_hyperx_free_view(t->state);
}

const struct topo_ops topo_full_ops = {
	.name = "full",
	.help = "fully connected routers (the one-dimensional HyperX, seed 001 §3)",
	.params = full_params_def,
	.params_size = sizeof(struct full_params),
	.state_size = sizeof(struct topo_hyperx),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = full_build,
	.release = full_release,
	.distance = topo_hyperx_distance,	.coords = topo_hyperx_coords,
	.min_ports = topo_hyperx_min_ports,
};
