/* packed: fill whole groups (dragonfly groups, cabinets) first, the groups
 * with the most free endpoints first (ties: lower id), so the job touches
 * as few groups as possible; inside a group, routers and endpoints in id
 * order. */
#include "place/place_internal.h"

#include <stdlib.h>

#include "core/error.h"
#include "topo/topo.h"

struct packed_key {
	uint32_t free, group;
};

static int packed_cmp(const void *a, const void *b)
{
	const struct packed_key *x = a, *y = b;
	if (x->free != y->free)
		return x->free > y->free ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;
}

static int place_packed(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	struct place_groups pg;
	uint32_t k = 0;
	int rc = place_groups_build(req, &pg, err);
	if (rc < 0)
		return rc;
	const uint32_t *off = pg.off, *ep = pg.ep, *goff = pg.goff, *grt = pg.grt, G = pg.n_groups;
	struct packed_key *key = malloc((size_t)G * sizeof *key + 1);
	if (!key) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t g = 0; g < G; g++)
		key[g] = (struct packed_key){place_groups_free(&pg, g), g};
	qsort(key, G, sizeof *key, packed_cmp);
	for (uint32_t i = 0; i < G && k < n_nodes; i++) {
		uint32_t g = key[i].group;
		for (uint32_t j = goff[g]; j < goff[g + 1] && k < n_nodes; j++)
			for (uint32_t x = off[grt[j]]; x < off[grt[j] + 1] && k < n_nodes; x++)
				nodes[k++] = ep[x];
	}
	rc = 0;
out:
	free(key);
	place_groups_release(&pg);
	return rc;
}

const struct place_ops place_packed_ops = {
	.name = "packed",
	.help = "whole groups/cabinets first, the emptiest first: as few groups as possible",
	.place = place_packed,
};
