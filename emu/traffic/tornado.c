/* tornado: each router's endpoints send ceil(k/2) - 1 steps along every
 * dimension (Dally & Towles §3.2; BookSim2's tornado; seed 000 §IV-B): the
 * worst case for minimal routing on a ring. On topologies without grid
 * coordinates, endpoint e sends to e + ceil(N/2) - 1 (mod N). */
#include "traffic/traffic.h"

#include "topo/topo.h"

static const struct param_def tornado_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static uint32_t tornado_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const struct topo_grid *g = tr->topo->grid;
	(void)rng;
	if (!g)
		return (s + (tr->n_active + 1) / 2 - 1) % tr->n_active;
	const struct topo *t = tr->topo;
	uint32_t r = topo_ep_router(t, s), d = 0;
	for (int k = 0; k < g->n_dims; k++)
		d += ((topo_grid_coord(g, r, k) + (g->k[k] + 1) / 2 - 1) % g->k[k]) * g->stride[k];
	return topo_grid_ep_at(t, d, s);
}

const struct traffic_ops traffic_tornado_ops = {
	.name = "tornado",
	.help = "ceil(k/2)-1 steps along every dimension (Dally & Towles 3.2)",
	.params = tornado_params,
	.dest = tornado_dest,
};
