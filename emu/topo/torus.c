/* torus: k-ary n-cube with per-dimension radix, "torus:k=8x8x4,p=1".
 *
 * Each router has two ports per dimension (port 2d to +1, 2d+1 to -1, with
 * wrap-around) and p terminal ports after them; endpoints are numbered
 * router-major. BookSim's "k=8, n=2" is accepted as "k=8,n=2". Closed-form
 * distance: sum over dimensions of min(|dx|, k - |dx|) (Dally & Towles
 * §5.2). Vertex-transitive, so graph analysis needs one BFS.
 */
#include "topo/topo.h"

#include <stdint.h>

#include "core/error.h"

struct torus_params {
	struct param_vec k; /* radix per dimension */
	int64_t n;          /* dimensions when k is a single radix (0 = len(k)) */
	int64_t p;          /* endpoints per router */
};

static const struct param_def torus_params_def[] = {
	{"k", PARAM_DIMS, offsetof(struct torus_params, k), NULL, 2, 65535,
	 "radix per dimension, e.g. 8x8x4 (or one radix with n=)", NULL},
	{"n", PARAM_INT, offsetof(struct torus_params, n), "0", 0, TOPO_MAX_DIMS,
	 "number of dimensions when k is a single radix (BookSim style)", NULL},
	{"p", PARAM_INT, offsetof(struct torus_params, p), "1", 1, 4096, "endpoints per router", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int torus_build(struct topo *t, struct nl_err *err)
{
	const struct torus_params *pr = t->params;
	uint32_t k[TOPO_MAX_DIMS];
	bool wrap[TOPO_MAX_DIMS];
	int nd = topo_grid_dims(t, &pr->k, pr->n, k, err);

	if (nd < 0)
		return nd;
	for (int d = 0; d < nd; d++)
		wrap[d] = true;
	return topo_grid_build(t, nd, k, wrap, (uint32_t)pr->p, err);
}

static uint32_t torus_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_grid *g = t->grid;
	uint32_t h = 0;
	for (int d = 0; d < g->n_dims; d++) {
		uint32_t ca = topo_grid_coord(g, a, d), cb = topo_grid_coord(g, b, d);
		uint32_t dx = ca > cb ? ca - cb : cb - ca;
		h += dx < g->k[d] - dx ? dx : g->k[d] - dx;
	}
	return h;
}

const struct topo_ops topo_torus_ops = {
	.name = "torus",
	.help = "k-ary n-cube torus with per-dimension radix (Dally & Towles ch. 5; seeds 003, 004)",
	.params = torus_params_def,
	.params_size = sizeof(struct torus_params),
	.state_size = sizeof(struct topo_grid),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = torus_build,
	.release = topo_grid_release,
	.distance = torus_distance,
};
