/* round-robin: one free endpoint from each router in id order per round,
 * rounds repeated until the job is full (spreads a job over routers). */
#include "place/place_internal.h"

#include <stdlib.h>

#include "topo/topo.h"

static int place_round_robin(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	const struct topo *t = req->t;
	uint32_t *off, *ep, k = 0;
	int64_t rc = place_free_by_router(req, &off, &ep, err);
	if (rc < 0)
		return (int)rc;
	for (uint32_t round = 0; k < n_nodes; round++)
		for (uint32_t r = 0; r < t->n_routers && k < n_nodes; r++)
			if (off[r] + round < off[r + 1])
				nodes[k++] = ep[off[r] + round];
	free(off);
	free(ep);
	return 0;
}

const struct place_ops place_round_robin_ops = {
	.name = "round-robin",
	.help = "one free endpoint per router in turn, round after round",
	.place = place_round_robin,
};
