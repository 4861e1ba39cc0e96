/* swap2: the HyperX paper's Swap2 permutation (seed 001 §4, Fig. 6d):
 * even-numbered endpoints exchange with the peer across the bisection of
 * one dimension (coordinate + k/2 in dimension 0), odd-numbered ones across
 * the bisection of another (dimension 1), keeping the terminal index. Needs
 * a topology with grid coordinates (torus, mesh) or HyperX coordinates
 * (hyperx, flatfly: the paper's network) in at least two dimensions. */
#include "traffic/traffic.h"

#include "core/error.h"
#include "topo/topo.h"
#include "topo/topo_hyperx.h"

static const struct param_def swap2_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int swap2_init(struct traffic *tr, struct nl_err *err)
{
	const struct topo_grid *g = tr->topo->grid;
	const struct topo_hyperx *h = topo_hyperx_of(tr->topo);
	if (h && h->L >= 2)
		return 0;
	if (!g || g->n_dims < 2)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "traffic 'swap2' needs a topology with coordinates in at least 2 dimensions ('%s' has %s)",
			       tr->topo->ops->name, g ? "1" : "none");
	return 0;
}

static uint32_t swap2_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const struct topo_grid *g = tr->topo->grid;
	(void)rng;
	if (!g) {
		/* HyperX: endpoints router-major, T per router. */
		const struct topo_hyperx *h = topo_hyperx_of(tr->topo);
		uint32_t r = s / h->T, i = s % h->T;
		int dim = (int)(s & 1);
		uint32_t c = topo_hyperx_coord(h, r, dim);
		uint32_t nc = (c + h->S[dim] / 2) % h->S[dim];
		return (r - c * h->stride[dim] + nc * h->stride[dim]) * h->T + i;
	}
	uint32_t r = topo_ep_router(tr->topo, s);
	int dim = (int)(s & 1);
	uint32_t c = topo_grid_coord(g, r, dim);
	uint32_t nc = (c + g->k[dim] / 2) % g->k[dim];
	uint32_t d = r + (nc - c) * g->stride[dim];
	return topo_grid_ep_at(tr->topo, d, s);
}

const struct traffic_ops traffic_swap2_ops = {
	.name = "swap2",
	.help = "even endpoints swap across dimension 0's bisection, odd across dimension 1's (seed 001)",
	.params = swap2_params,
	.init = swap2_init,
	.dest = swap2_dest,
};
