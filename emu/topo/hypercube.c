/* hypercube: "hypercube:n=N[,p=1]", the binary N-cube (seed 003 §4.1).
 *
 * 2^N routers; port d (0 <= d < N) of router r goes to r ^ (1 << d), then
 * p terminal ports; endpoints router-major. It is the regular HyperX with S
 * = 2, K = 1 (seed 001 §3), so it publishes both the topo_hypercube and the
 * topo_hyperx view (whose dimension-d port is d). Distance: popcount(a ^ b).
 * Vertex-transitive.
 */
#include "topo/topo_internal.h"

#include "core/error.h"

struct hypercube_params {
	int64_t n; /* dimensions */
	int64_t p; /* endpoints per router */
};

static const struct param_def hypercube_params_def[] = {
	{"n", PARAM_INT, offsetof(struct hypercube_params, n), NULL, 1, TOPO_MAX_DIMS, "dimensions: 2^n routers",
	 NULL},
	{"p", PARAM_INT, offsetof(struct hypercube_params, p), "1", 0, 4096, "endpoints per router", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int hypercube_build(struct topo *t, struct nl_err *err)
{
	const struct hypercube_params *pr = t->params;
	struct topo_hypercube_state *st = t->state;
	uint32_t S[TOPO_MAX_DIMS], K[TOPO_MAX_DIMS];
	int n = (int)pr->n;

	for (int d = 0; d < n; d++) {
		S[d] = 2;
		K[d] = 1;
	}
	NL_CHECK(topo_hyperx_setup(t, &st->hx, n, S, K, (uint32_t)pr->p, "n", "p", err));
	st->hc.n = n;
	st->hc.folded = false;
	st->hc.p = (uint32_t)pr->p;
	st->hc.term_base = (uint32_t)n;
	return 0;
}

static void hypercube_release(struct topo *t)
{
	struct topo_hypercube_state *st = t->state;
	topo_hyperx_free_view(&st->hx);
}

static uint32_t hypercube_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	(void)t;
	return (uint32_t)__builtin_popcount(a ^ b);
}

const struct topo_ops topo_hypercube_ops = {
	.name = "hypercube",
	.help = "binary n-cube, 2^n routers of degree n (seed 003 §4.1; the HyperX with S=2, seed 001 §3)",
	.params = hypercube_params_def,
	.params_size = sizeof(struct hypercube_params),
	.state_size = sizeof(struct topo_hypercube_state),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = hypercube_build,
	.release = hypercube_release,
	.distance = hypercube_distance,	.coords = topo_hyperx_coords,
	.min_ports = topo_hyperx_min_ports,
};
