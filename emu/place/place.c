/* Job placement: nodes from the policy, then ranks onto nodes.
 *
 * Invariant: a successful place_job() gives every rank an endpoint that
 * was free in the request, and (except for map files, which may put
 * several ranks on one endpoint) ranks_per_node ranks per node at most.
 */
#include "place/place_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/registry.h"
#include "core/rng.h"
#include "topo/topo.h"

/* Groups are where routers are packaged: a family's own cabinet rule
 * first (FleX racks, seed 000 Fig. 7: a layer is a group of the traffic
 * patterns, topo_groups, but spans NX racks with no link inside it), then
 * the dragonfly's groups (packaged together), then canonical cabinets. */
uint32_t place_router_group(const struct topo *t, uint32_t r)
{
	uint32_t n_groups, group_routers;
	if (!t->cabinet && topo_groups(t, &n_groups, &group_routers))
		return r / group_routers;
	return topo_router_cabinet(t, r);
}

void place_rng(const struct place_req *req, struct rng *rng)
{
	rng_init(rng, req->seed, RNG_CLASS_PLACEMENT, PLACE_STREAM + req->job);
}

int64_t place_free_by_router(const struct place_req *req, uint32_t **off, uint32_t **ep, struct nl_err *err)
{
	const struct topo *t = req->t;
	*off = calloc((size_t)t->n_routers + 1, sizeof **off);
	*ep = malloc((size_t)(t->n_endpoints ? t->n_endpoints : 1) * sizeof **ep);
	if (!*off || !*ep) {
		free(*off);
		free(*ep);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		if (place_is_free(req, e))
			(*off)[topo_ep_router(t, e) + 1]++;
	for (uint32_t r = 0; r < t->n_routers; r++)
		(*off)[r + 1] += (*off)[r];
	uint32_t *fill = malloc((size_t)t->n_routers * sizeof *fill + 1);
	if (!fill) {
		free(*off);
		free(*ep);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t r = 0; r < t->n_routers; r++)
		fill[r] = (*off)[r];
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		if (place_is_free(req, e))
			(*ep)[fill[topo_ep_router(t, e)]++] = e;
	free(fill);
	return (*off)[t->n_routers];
}

int place_routers_by_group(const struct place_req *req, uint32_t *n_groups, uint32_t **goff, uint32_t **grt,
			   struct nl_err *err)
{
	const struct topo *t = req->t;
	uint32_t G = 0;
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t g = place_group_of(req, r);
		if (g >= G)
			G = g + 1;
	}
	*goff = calloc((size_t)G + 1, sizeof **goff);
	*grt = malloc((size_t)t->n_routers * sizeof **grt + 1);
	uint32_t *fill = malloc((size_t)G * sizeof *fill + 1);
	if (!*goff || !*grt || !fill) {
		free(*goff);
		free(*grt);
		free(fill);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t r = 0; r < t->n_routers; r++)
		(*goff)[place_group_of(req, r) + 1]++;
	for (uint32_t g = 0; g < G; g++) {
		(*goff)[g + 1] += (*goff)[g];
		fill[g] = (*goff)[g];
	}
	for (uint32_t r = 0; r < t->n_routers; r++)
		(*grt)[fill[place_group_of(req, r)]++] = r;
	free(fill);
	*n_groups = G;
	return 0;
}

int place_groups_build(const struct place_req *req, struct place_groups *pg, struct nl_err *err)
{
	*pg = (struct place_groups){0};
	int64_t rc = place_free_by_router(req, &pg->off, &pg->ep, err);
	if (rc < 0)
		return (int)rc;
	if ((rc = place_routers_by_group(req, &pg->n_groups, &pg->goff, &pg->grt, err)) < 0) {
		free(pg->off);
		free(pg->ep);
		*pg = (struct place_groups){0};
		return (int)rc;
	}
	return 0;
}

void place_groups_release(struct place_groups *pg)
{
	free(pg->off);
	free(pg->ep);
	free(pg->goff);
	free(pg->grt);
	*pg = (struct place_groups){0};
}

uint32_t place_groups_free(const struct place_groups *pg, uint32_t g)
{
	uint32_t n = 0;
	for (uint32_t i = pg->goff[g]; i < pg->goff[g + 1]; i++)
		n += pg->off[pg->grt[i] + 1] - pg->off[pg->grt[i]];
	return n;
}

static const struct place_ops *const place_policies[] = {
	&place_contiguous_ops, &place_random_node_ops, &place_random_router_ops, &place_round_robin_ops,
	&place_packed_ops,     &place_spread_ops,      &place_map_ops,
};

const struct place_ops *const *place_list(size_t *n)
{
	*n = sizeof place_policies / sizeof *place_policies;
	return place_policies;
}

const struct place_ops *place_find(const char *name, struct nl_err *err)
{
	return registry_find((const void *const *)place_policies, sizeof place_policies / sizeof *place_policies, name,
			     "placement policy", err);
}

int place_check_map(const char *policy, bool is_set, const char *map, struct nl_err *err)
{
	bool is_map = !strcmp(policy, "map"), has_map = map && map[0];
	if (is_map && !has_map)
		return nl_errf(err, NL_ECONFIG, "missing; expected a map file for placement = map");
	if (!is_map && has_map)
		return nl_errf(err, NL_ECONFIG,
			       "value '%s': only placement = map reads it, and the placement in force is %s%s; "
			       "expected placement = map with it, or placement_map unset",
			       map, policy, is_set ? "" : " (unset)");
	return 0;
}

int place_job(const struct place_ops *ops, const struct place_req *req, uint32_t *endpoint, struct nl_err *err)
{
	const struct topo *t = req->t;
	uint32_t per = req->ranks_per_node ? req->ranks_per_node : 1;
	if (req->n_ranks == 0)
		return nl_errf(err, NL_ECONFIG, "the job has no ranks");
	if (ops == &place_map_ops)
		return ops->place(req, req->n_ranks, endpoint, err);

	uint32_t n_nodes = (req->n_ranks + per - 1) / per, n_free = 0;
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		n_free += place_is_free(req, e);
	if (n_nodes > n_free)
		return nl_errf(err, NL_ECONFIG, "the job needs %u endpoints (%u ranks, %u per node), only %u of %u free",
			       n_nodes, req->n_ranks, per, n_free, t->n_endpoints);
	uint32_t *nodes = malloc((size_t)n_nodes * sizeof *nodes);
	if (!nodes)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	int rc = ops->place(req, n_nodes, nodes, err);
	if (rc == 0) {
		for (uint32_t i = 0; i < req->n_ranks; i++)
			endpoint[i] = req->inner == PLACE_INNER_ROUND_ROBIN ? nodes[i % n_nodes] : nodes[i / per];
	}
	free(nodes);
	return rc;
}
