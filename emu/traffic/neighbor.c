/* neighbor: each router's endpoints send to the same terminal of the router
 * one step further in every dimension (BookSim2's neighbor; seed 000
 * §IV-B). On topologies without grid coordinates, endpoint e sends to
 * e + 1 (mod N). */
#include "traffic/traffic.h"

#include "topo/topo.h"

static const struct param_def neighbor_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t neighbor_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const struct topo_grid *g = tr->topo->grid;
	(void)rng;
	if (!g)
		return (s + 1) % tr->n_active;
	const struct topo *t = tr->topo;
	uint32_t r = topo_ep_router(t, s), d = 0;
	for (int k = 0; k < g->n_dims; k++)
		d += ((topo_grid_coord(g, r, k) + 1) % g->k[k]) * g->stride[k];
	return topo_grid_ep_at(t, d, s);
}

const struct traffic_ops traffic_neighbor_ops = {
	.name = "neighbor",
	.help = "to the router one step further in every dimension (BookSim2; seed 000)",
	.params = neighbor_params,
	.dest = neighbor_dest,
};
