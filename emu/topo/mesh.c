/* mesh: k-ary n-dimensional mesh with per-dimension radix, "mesh:k=4x4,p=1".
 *
 * Same port convention as the torus (port 2d to +1, 2d+1 to -1, terminal
 * ports after), with the boundary ports left unconnected. Closed-form
 * distance: sum over dimensions of |dx|; diameter sum of k - 1.
 */
#include "topo/topo.h"
#include "topo/topo_internal.h"

#include <stdint.h>

#include "core/error.h"

static int mesh_build(struct topo *t, struct nl_err *err)
{
	return topo_grid_build_params(t, false, err);
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

/* Corner to corner: sum over dimensions of k - 1. */
static uint32_t mesh_diameter(const struct topo *t)
{
	const struct topo_grid *g = t->grid;
	uint32_t h = 0;
	for (int d = 0; d < g->n_dims; d++)
		h += g->k[d] - 1;
	return h;
}

const struct topo_ops topo_mesh_ops = {
	.name = "mesh",
	.help = "k-ary n-dimensional mesh with per-dimension radix (Dally & Towles ch. 5)",
	.params = topo_grid_params_def,
	.params_size = sizeof(struct topo_grid_params),
	.state_size = sizeof(struct topo_grid),
	.build = mesh_build,
	.release = topo_grid_release,
	.distance = mesh_distance,
	.coords = topo_grid_coords,
	.diameter = mesh_diameter,
};
