/* random-router: routers in a seeded random order, each contributing all
 * its free endpoints in id order, until the job is full. */
#include "place/place_internal.h"

#include <stdlib.h>

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

static int place_random_router(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	const struct topo *t = req->t;
	uint32_t *off, *ep, *order = malloc((size_t)t->n_routers * sizeof *order + 1), k = 0;
	struct rng rng;
	if (!order)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	int64_t rc = place_free_by_router(req, &off, &ep, err);
	if (rc < 0) {
		free(order);
		return (int)rc;
	}
	for (uint32_t r = 0; r < t->n_routers; r++)
		order[r] = r;
	place_rng(req, &rng);
	rng_shuffle_u32(&rng, order, t->n_routers);
	for (uint32_t i = 0; i < t->n_routers && k < n_nodes; i++)
		for (uint32_t j = off[order[i]]; j < off[order[i] + 1] && k < n_nodes; j++)
			nodes[k++] = ep[j];
	free(order);
	free(off);
	free(ep);
	return 0;
}

const struct place_ops place_random_router_ops = {
	.name = "random-router",
	.help = "routers in random order (seeded), all free endpoints of each",
	.uses_seed = true,
	.place = place_random_router,
};
