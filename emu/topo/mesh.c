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

const struct topo_ops topo_mesh_ops = {
	.name = "mesh",
	.help = "k-ary n-dimensional mesh with per-dimension radix (Dally & Towles ch. 5)",
	.params = topo_grid_params_def,
	.params_size = sizeof(struct topo_grid_params),
	.state_size = sizeof(struct topo_grid),
	.build = mesh_build,
	.format_spec = topo_grid_format_spec,
	.release = topo_grid_release,
	.distance = topo_grid_mesh_distance,
	.coords = topo_grid_coords,
	.diameter = topo_grid_mesh_diameter,
};
