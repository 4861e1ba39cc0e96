/* spread: one endpoint from each group (dragonfly group, cabinet) in id
 * order per round; inside a group its routers take turns, so consecutive
 * nodes land in different groups and, within a group, on different
 * routers. */
#include "place/place_internal.h"

#include <stdlib.h>

#include "core/error.h"
#include "topo/topo.h"

static int place_spread(const struct place_req *req, uint32_t n_nodes, uint32_t *nodes, struct nl_err *err)
{
	struct place_groups pg;
	uint32_t k = 0;
	int rc = place_groups_build(req, &pg, err);
	if (rc < 0)
		return rc;
	const uint32_t *off = pg.off, *ep = pg.ep, *goff = pg.goff, *grt = pg.grt, G = pg.n_groups;
	/* Per group: a cursor over (round, router) of its round-robin order. */
	uint32_t *round = calloc((size_t)G + 1, sizeof *round), *next = calloc((size_t)G + 1, sizeof *next);
	uint32_t *left = calloc((size_t)G + 1, sizeof *left);
	if (!round || !next || !left) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t g = 0; g < G; g++)
		left[g] = place_groups_free(&pg, g);
	while (k < n_nodes) {
		for (uint32_t g = 0; g < G && k < n_nodes; g++) {
			if (!left[g])
				continue;
			for (;;) { /* the group's next router with an endpoint left in this round */
				uint32_t r = grt[goff[g] + next[g]];
				bool has = off[r] + round[g] < off[r + 1];
				uint32_t e = has ? ep[off[r] + round[g]] : 0;
				if (++next[g] == goff[g + 1] - goff[g]) {
					next[g] = 0;
					round[g]++;
				}
				if (has) {
					nodes[k++] = e;
					left[g]--;
					break;
				}
			}
		}
	}
	rc = 0;
out:
	free(round);
	free(next);
	free(left);
	place_groups_release(&pg);
	return rc;
}

const struct place_ops place_spread_ops = {
	.name = "spread",
	.help = "one endpoint per group/cabinet in turn (routers of a group in turn)",
	.place = place_spread,
};
