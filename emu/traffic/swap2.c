/* swap2: the HyperX paper's Swap2 permutation (seed 001 §4, Fig. 6d):
 * even-numbered endpoints exchange with the peer across the bisection of
 * one dimension (coordinate + k/2 in dimension 0), odd-numbered ones across
 * the bisection of another (dimension 1), keeping the terminal index. Needs
 * a topology with grid coordinates (torus, mesh) or HyperX coordinates
 * (hyperx, flatfly: the paper's network) in at least two dimensions, or a
 * HyperX numbering given as parameters, "swap2:s=8x8x8,t=8": endpoint e is
 * then terminal e mod t of the switch e / t of that HyperX (dimension 0
 * fastest, as topology hyperx numbers them), whatever the topology. §4.1's
 * Fig. 7 runs the four patterns on its folded Clos too; the paper does not
 * say how it numbered the Clos's terminals for Swap2, and the HyperX's
 * numbering is the one that keeps the pairs of the HyperX it is compared
 * with. */
#include "traffic/traffic.h"

#include "core/error.h"
#include "topo/topo.h"
#include "topo/topo_hyperx.h"

struct swap2_params {
	struct param_vec s;
	int64_t t;
};

static const struct param_def swap2_params_def[] = {
	{"s", PARAM_DIMS, offsetof(struct swap2_params, s), "1", 1, 65536,
	 "HyperX switches per dimension whose numbering the endpoints take, e.g. 8x8x8 (with t)", NULL},
	{"t", PARAM_INT, offsetof(struct swap2_params, t), "0", 0, 65536,
	 "endpoints per switch of that numbering; 0 = the topology's own coordinates", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int swap2_init(struct traffic *tr, struct nl_err *err)
{
	const struct swap2_params *p = tr->params;
	if (p->t > 0) {
		uint64_t n = (uint64_t)p->t;
		for (int d = 0; d < p->s.n; d++)
			n *= (uint64_t)p->s.v[d];
		if (p->s.n < 2)
			return nl_errf(err, NL_ECONFIG, "traffic 'swap2': s has %d dimension; expected at least 2, e.g. s=8x8x8",
				       p->s.n);
		if (n != tr->topo->n_endpoints)
			return nl_errf(err, NL_ECONFIG,
				       "traffic 'swap2': s x t numbers %llu endpoints; the topology has %u",
				       (unsigned long long)n, tr->topo->n_endpoints);
		return 0;
	}
	const struct topo_grid *g = tr->topo->grid;
	const struct topo_hyperx *h = topo_hyperx_of(tr->topo);
	if (h && h->L >= 2)
		return 0;
	if (!g || g->n_dims < 2)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "traffic 'swap2' needs a topology with coordinates in at least 2 dimensions ('%s' has %s), "
			       "or a numbering, e.g. swap2:s=8x8x8,t=8",
			       tr->topo->ops->name, g ? "1" : "none");
	return 0;
}

static uint32_t swap2_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const struct swap2_params *p = tr->params;
	const struct topo_grid *g = tr->topo->grid;
	(void)rng;
	if (p->t > 0) {
		/* The numbering of the parameters: switch r = s / t. */
		const uint32_t t = (uint32_t)p->t, r = s / t, i = s % t;
		const int dim = (int)(s & 1);
		uint32_t stride = 1;
		for (int d = 0; d < dim; d++)
			stride *= (uint32_t)p->s.v[d];
		const uint32_t k = (uint32_t)p->s.v[dim], c = r / stride % k, nc = (c + k / 2) % k;
		return (r - c * stride + nc * stride) * t + i;
	}
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
	.help = "even endpoints swap across dimension 0's bisection, odd across dimension 1's (seed 001); any topology with a HyperX numbering s, t",
	.params = swap2_params_def,
	.params_size = sizeof(struct swap2_params),
	.init = swap2_init,
	.dest = swap2_dest,
};
