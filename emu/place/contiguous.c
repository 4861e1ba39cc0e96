/* contiguous: the job's nodes are the first free endpoints in id order
 * (linear allocation, as a scheduler filling the machine in order). */
#include "place/place_internal.h"

#include "topo/topo.h"

static int place_contiguous(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	(void)err;
	uint32_t k = 0;
	for (uint32_t e = 0; e < req->t->n_endpoints && k < n_nodes; e++)
		if (place_is_free(req, e))
			nodes[k++] = e;
	return 0;
}

const struct place_ops place_contiguous_ops = {
	.name = "contiguous",
	.help = "the first free endpoints in id order (linear)",
	.place = place_contiguous,
};
