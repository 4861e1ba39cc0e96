/* torus: k-ary n-cube with per-dimension radix, "torus:k=8x8x4,p=1".
 *
 * Each router has two ports per dimension (port 2d to +1, 2d+1 to -1, with
 * wrap-around) and p terminal ports after them; endpoints are numbered
 * router-major. BookSim's "k=8, n=2" is accepted as "k=8,n=2". Closed-form
 * distance: sum over dimensions of min(|dx|, k - |dx|) (Dally & Towles
 * §5.2). Vertex-transitive, so graph analysis needs one BFS.
 */
#include "topo/topo.h"
#include "topo/topo_internal.h"

#include <stdint.h>

#include "core/error.h"

static int torus_build(struct topo *t, struct nl_err *err)
{
	return topo_grid_build_params(t, true, err);
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
	.params = topo_grid_params_def,
	.params_size = sizeof(struct topo_grid_params),
	.state_size = sizeof(struct topo_grid),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = torus_build,
	.format_spec = topo_grid_format_spec,
	.release = topo_grid_release,
	.distance = torus_distance,
	.coords = topo_grid_coords,
};
