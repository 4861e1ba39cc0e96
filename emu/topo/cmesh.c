/* cmesh: BookSim2's concentrated mesh, "cmesh:k=4,n=2,c=4" (Balfour &
 * Dally, ICS 2006; BookSim2 networks/cmesh.cpp).
 *
 * A k x k two-dimensional mesh whose routers each serve c = s * s
 * endpoints, an s x s block of a (k s) x (k s) grid of endpoints. Routers
 * and ports are the mesh's (router x + k y; port 2d to +1, 2d+1 to -1 in
 * dimension d, terminal ports after), so dimension-order routing and the
 * grid view work unchanged. Endpoints are numbered as BookSim2 numbers
 * cmesh nodes, row-major over the endpoint grid: node
 * (k s)(s y + j) + s x + i is on router (x, y), terminal port s j + i,
 * i, j < s. Traffic patterns defined on endpoint ids (bitcomp, transpose,
 * ...) thus pick BookSim's destinations.
 *
 * BookSim2 also wires the otherwise unused boundary ports of edge
 * routers to the edge router k/2 away along the same edge (express
 * channels, used only by its dor_cmesh and xy_yx_cmesh). They are not
 * built here: the *_no_express routing functions never use them, and a
 * packet routed by those sees the same network either way.
 * Closed-form distance: |dx| + |dy|.
 */
#include "topo/topo.h"
#include "topo/topo_internal.h"

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

struct cmesh_params {
	int64_t k; /* routers per dimension */
	int64_t n; /* dimensions: 2 */
	int64_t c; /* endpoints per router, a square s * s */
};

static const struct param_def cmesh_params_def[] = {
	{"k", PARAM_INT, offsetof(struct cmesh_params, k), NULL, 2, 32768, "routers per dimension", NULL},
	{"n", PARAM_INT, offsetof(struct cmesh_params, n), "2", 1, 16, "dimensions (2 only)", NULL},
	{"c", PARAM_INT, offsetof(struct cmesh_params, c), "4", 1, 1024,
	 "endpoints per router, a square (an s x s block of the endpoint grid)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int cmesh_build(struct topo *t, struct nl_err *err)
{
	const struct cmesh_params *pr = t->params;
	if (pr->n != 2)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "topology 'cmesh': parameter 'n' value '%lld': expected 2 (the concentrated mesh is two-dimensional)",
			       (long long)pr->n);
	uint32_t s = 1;
	while ((int64_t)(s + 1) * (s + 1) <= pr->c)
		s++;
	if ((int64_t)s * s != pr->c)
		return nl_errf(err, NL_ECONFIG,
			       "topology 'cmesh': parameter 'c' value '%lld': expected a square (c = s * s endpoints in an s x s block per router)",
			       (long long)pr->c);
	uint32_t k = (uint32_t)pr->k, c = (uint32_t)pr->c;
	uint32_t kk[2] = {k, k};
	bool wrap[2] = {false, false};
	NL_CHECK(topo_grid_build(t, 2, kk, wrap, c, "c", err));
	/* Renumber: topo_grid_build attached endpoints router-major. */
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_terminal(t, g))
			t->peer[g] = TOPO_NONE;
	uint32_t row = k * s;
	for (uint32_t e = 0; e < t->n_endpoints; e++) {
		uint32_t ey = e / row, ex = e % row;
		uint32_t r = (ey / s) * k + ex / s;
		topo_attach(t, e, r, 4 + (ey % s) * s + ex % s);
	}
	return 0;
}

const struct topo_ops topo_cmesh_ops = {
	.name = "cmesh",
	.help = "concentrated 2-D mesh, c endpoints per router in BookSim2's numbering (Balfour & Dally 2006)",
	.params = cmesh_params_def,
	.params_size = sizeof(struct cmesh_params),
	.state_size = sizeof(struct topo_grid),
	.build = cmesh_build,
	.release = topo_grid_release,
	.distance = topo_grid_mesh_distance,
	.coords = topo_grid_coords,
	.diameter = topo_grid_mesh_diameter,
};
