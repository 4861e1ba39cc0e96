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

#include <stdio.h>
#include <string.h>

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

/* A HyperX numbering, the topology's own or the parameters': endpoint e
 * is terminal e mod t of switch e / t, whose coordinate in dimension d
 * is (e / t) / stride[d] mod k[d]. Dimensions 0 and 1 are all Swap2 moves. */
struct swap2_state {
	uint32_t t;         /* 0: grid coordinates instead */
	uint32_t k[2], stride[2];
};

/* Whether s was given: its default is the lone 1. */
static bool swap2_has_numbering(const struct param_vec *s)
{
	return s->n > 1 || s->v[0] != 1;
}

static int swap2_init(struct traffic *tr, struct nl_err *err)
{
	const struct swap2_params *p = tr->params;
	struct swap2_state *st = tr->state;
	/* s without t was dropped for the topology's own coordinates, so
	 * swap2:s=4x4x4 on an 8x8 torus paired the torus's endpoints, not the
	 * numbering asked for. */
	if (p->t == 0 && swap2_has_numbering(&p->s)) {
		char dims[PARAM_VEC_MAX * 8] = "";
		for (int d = 0; d < p->s.n; d++)
			snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", d ? "x" : "",
				 (long long)p->s.v[d]);
		return nl_errf(err, NL_ECONFIG,
			       "traffic 'swap2': s=%s needs t, the endpoints per switch of that numbering (t=0 "
			       "takes the topology's own coordinates and no s); expected e.g. swap2:s=%s,t=1",
			       dims, dims);
	}
	if (p->t > 0) {
		/* t alone read as s = 1, and was refused as "s has 1 dimension",
		 * an s nobody gave. */
		if (!swap2_has_numbering(&p->s))
			return nl_errf(err, NL_ECONFIG,
				       "traffic 'swap2': t=%lld needs s, the HyperX switches per dimension of that numbering "
				       "(t=0, the default, takes the topology's own coordinates and no s); expected e.g. "
				       "swap2:s=8x8x8,t=%lld",
				       (long long)p->t, (long long)p->t);
		if (p->s.n < 2)
			return nl_errf(err, NL_ECONFIG, "traffic 'swap2': s has %d dimension; expected at least 2, e.g. s=8x8x8",
				       p->s.n);
		/* Stops growing past the endpoint count: no overflow. */
		uint64_t n = (uint64_t)p->t;
		for (int d = 0; d < p->s.n && n <= tr->topo->n_endpoints; d++)
			n *= (uint64_t)p->s.v[d];
		if (n != tr->topo->n_endpoints)
			return nl_errf(err, NL_ECONFIG, "traffic 'swap2': s x t numbers %s%llu endpoints; the topology has %u",
				       n > tr->topo->n_endpoints ? "more than " : "",
				       (unsigned long long)(n > tr->topo->n_endpoints ? tr->topo->n_endpoints : n),
				       tr->topo->n_endpoints);
		st->t = (uint32_t)p->t;
		st->k[0] = (uint32_t)p->s.v[0];
		st->k[1] = (uint32_t)p->s.v[1];
		st->stride[0] = 1;
		st->stride[1] = st->k[0];
		return 0;
	}
	const struct topo_grid *g = tr->topo->grid;
	const struct topo_hyperx *h = topo_hyperx_of(tr->topo);
	if (!g && h && h->L >= 2) {
		/* HyperX: endpoints router-major, T per router. */
		st->t = h->T;
		for (int d = 0; d < 2; d++) {
			st->k[d] = h->S[d];
			st->stride[d] = h->stride[d];
		}
		return 0;
	}
	if (!g || g->n_dims < 2)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "traffic 'swap2' needs a topology with coordinates in at least 2 dimensions ('%s' has %s), "
			       "or a numbering, e.g. swap2:s=8x8x8,t=8",
			       tr->topo->ops->name, g ? "1" : "none");
	return 0;
}

static uint32_t swap2_dest(const struct traffic *tr, uint32_t s, struct rng *rng)
{
	const struct swap2_state *st = tr->state;
	const int dim = (int)(s & 1);
	(void)rng;
	if (st->t) {
		const uint32_t r = s / st->t, i = s % st->t, k = st->k[dim], stride = st->stride[dim];
		const uint32_t c = r / stride % k, nc = (c + k / 2) % k;
		return (r - c * stride + nc * stride) * st->t + i;
	}
	const struct topo_grid *g = tr->topo->grid;
	uint32_t r = topo_ep_router(tr->topo, s);
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
	.state_size = sizeof(struct swap2_state),
	.init = swap2_init,
	.dest = swap2_dest,
};
