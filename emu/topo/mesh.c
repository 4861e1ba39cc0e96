/* mesh: k-ary n-dimensional mesh with per-dimension radix, "mesh:k=4x4,p=1".
 *
 * Same port convention as the torus (port 2d to +1, 2d+1 to -1, terminal
 * ports after), with the boundary ports left unconnected. Closed-form
 * distance: sum over dimensions of |dx|.
 */
#include "topo/topo.h"

#include <stdint.h>

#include "core/error.h"

struct mesh_params {
	struct param_vec k; /* radix per dimension */
	int64_t n;          /* dimensions when k is a single radix (0 = len(k)) */
	int64_t p;          /* endpoints per router */
};

static const struct param_def mesh_params_def[] = {
	{"k", PARAM_DIMS, offsetof(struct mesh_params, k), NULL, 2, 65535,
	 "radix per dimension, e.g. 4x4 (or one radix with n=)", NULL},
	{"n", PARAM_INT, offsetof(struct mesh_params, n), "0", 0, TOPO_MAX_DIMS,
	 "number of dimensions when k is a single radix (BookSim style)", NULL},
	{"p", PARAM_INT, offsetof(struct mesh_params, p), "1", 1, 4096, "endpoints per router", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int mesh_build(struct topo *t, struct nl_err *err)
{
	const struct mesh_params *pr = t->params;
	uint32_t k[TOPO_MAX_DIMS];
	bool wrap[TOPO_MAX_DIMS] = {false};
	int nd = topo_grid_dims(t, &pr->k, pr->n, k, err);

	if (nd < 0)
		return nd;
	return topo_grid_build(t, nd, k, wrap, (uint32_t)pr->p, err);
}

static uint32_t mesh_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	const struct topo_grid *g = t->grid;
	uint32_t h = 0;
	for (int d = 0; d < g->n_dims; d++) {
		uint32_t ca = topo_grid_coord(g, a, d), cb = topo_grid_coord(g, b, d);
		h += ca > cb ? ca - cb : cb - ca;
	}
	return h;
}

const struct topo_ops topo_mesh_ops = {
	.name = "mesh",
	.help = "k-ary n-dimensional mesh with per-dimension radix (Dally & Towles ch. 5)",
	.params = mesh_params_def,
	.params_size = sizeof(struct mesh_params),
	.state_size = sizeof(struct topo_grid),
	.build = mesh_build,
	.release = topo_grid_release,
	.distance = mesh_distance,
};
