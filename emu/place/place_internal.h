/* Helpers shared by the placement policies (emu/place only). */
#ifndef NETLOOM_PLACE_PLACE_INTERNAL_H
#define NETLOOM_PLACE_PLACE_INTERNAL_H

#include "place/place.h"

#include <stdint.h>

struct rng;

static inline bool place_is_free(const struct place_req *req, uint32_t e)
{
	return !req->busy || !req->busy[e];
}

static inline uint32_t place_group_of(const struct place_req *req, uint32_t r)
{
	return req->group ? req->group[r] : place_router_group(req->t, r);
}

/* This job's random stream. */
void place_rng(const struct place_req *req, struct rng *rng);

/* Free endpoints of each router: CSR by router (off[n_routers + 1], ep[]),
 * endpoints in id order. Returns the number of free endpoints or a
 * negative error. The caller frees *off and *ep. */
int64_t place_free_by_router(const struct place_req *req, uint32_t **off, uint32_t **ep, struct nl_err *err);

/* Routers of each group: CSR (goff[n_groups + 1], grt[]), routers in id
 * order; *n_groups gets the count (largest group id + 1). */
int place_routers_by_group(const struct place_req *req, uint32_t *n_groups, uint32_t **goff, uint32_t **grt,
			   struct nl_err *err);

/* The two CSRs the group-aware policies (packed, spread) walk: free
 * endpoints by router and routers by group. */
struct place_groups {
	uint32_t *off, *ep;   /* place_free_by_router() */
	uint32_t *goff, *grt; /* place_routers_by_group() */
	uint32_t n_groups;
};
/* Build both; on failure nothing is left allocated. */
int place_groups_build(const struct place_req *req, struct place_groups *pg, struct nl_err *err);
void place_groups_release(struct place_groups *pg);
/* Free endpoints on the routers of group g. */
uint32_t place_groups_free(const struct place_groups *pg, uint32_t g);

extern const struct place_ops place_contiguous_ops;
extern const struct place_ops place_random_node_ops;
extern const struct place_ops place_random_router_ops;
extern const struct place_ops place_round_robin_ops;
extern const struct place_ops place_packed_ops;
extern const struct place_ops place_spread_ops;
extern const struct place_ops place_map_ops;

#endif
