/* random-node: a uniformly random set of free endpoints, in random order
 * (seeded Fisher-Yates over the free endpoints). */
#include "place/place_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

static int place_random_node(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	const struct topo *t = req->t;
	uint32_t *free_ep = malloc((size_t)t->n_endpoints * sizeof *free_ep + 1), n = 0;
	struct rng rng;
	if (!free_ep)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		if (place_is_free(req, e))
			free_ep[n++] = e;
	place_rng(req, &rng);
	rng_shuffle_u32(&rng, free_ep, n);
	memcpy(nodes, free_ep, (size_t)n_nodes * sizeof *nodes);
	free(free_ep);
	return 0;
}

const struct place_ops place_random_node_ops = {
	.name = "random-node",
	.help = "uniformly random free endpoints (seeded)",
	.uses_seed = true,
	.place = place_random_node,
};
