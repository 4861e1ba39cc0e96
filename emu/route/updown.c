/* updown: deterministic up*-down* routing on any graph, "updown:root=0".
 *
 * Schroeder et al., "Autonet: a high-speed, self-configuring local area
 * network using point-to-point links", IEEE JSAC 9(8), 1991; seed 003
 * §6.1 routes its Myrinet Clos with it. A BFS spanning tree from `root`
 * orders the routers by (level, id); a link towards a lower one goes up.
 * A route is any number of up hops followed by any number of down hops;
 * the packet takes a shortest such route; among equal ports at a router
 * one fixed by a hash of (source, destination, router), as min's
 * select=hash (one path per flow, flows spread: taking the lowest port
 * sent every flow of a Myrinet Clos through one spine link). Whether the packet
 * may still go up is read from the link it arrived on (it may not once it
 * came down), so nothing is carried in the packet. Tables: updown_table.c
 * (2 n^2 bytes, up to 8,192 routers).
 *
 * Deadlock freedom: no route takes an up link after a down link, and up
 * links alone (or down links alone) follow a strict order, so every
 * channel dependency goes up -> up (to a lower router), up -> down, or
 * down -> down (to a higher one): the channel-dependency graph is acyclic
 * on every VC, and every VC may be used on every hop.
 */
#include <stddef.h>

#include "route/route.h"
#include "route/updown_table.h"

#include "core/error.h"
#include "core/rng.h"
#include "route/route_internal.h"
#include "topo/topo.h"

struct updown_params {
	int64_t root;
};

static const struct param_def updown_params_def[] = {
	{"root", PARAM_INT, offsetof(struct updown_params, root), "0", 0, 1 << 30,
	 "root router of the BFS spanning tree", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int updown_init(struct route *r, struct nl_err *err)
{
	const struct updown_params *p = r->params;
	NL_CHECK(updown_build(r->state, r->topo, (uint32_t)p->root, "updown", err));
	r->max_cands = 1;
	return 0;
}

static void updown_release_route(struct route *r)
{
	updown_release(r->state);
}

static void updown_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			  uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int updown_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			  struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct updown_table *u = r->state;
	(void)in_vc;
	(void)rng;
	(void)v;
	/* One fixed port per (source, destination, router) among the equal
	 * ones, spreading flows as min's select=hash does. */
	uint64_t h = rng_mix64((((uint64_t)route_src_router(r, p) << 32) | p->dst_router) ^
			       rng_mix64((uint64_t)router + 0x9e3779b97f4a7c15ULL));
	int port = updown_next(u, r->topo, router, p->dst_router, updown_may_up(u, r->topo, router, in_port), h);
	if (port == -1)
		return route_eject(r, p, out);
	if (port < 0)
		NL_BUG("updown: no legal hop from %u to %u", router, p->dst_router);
	out->port = (uint16_t)port;
	out->vc_lo = 0;
	out->vc_hi = (uint8_t)(r->n_vcs - 1);
	out->prio = 0;
	return 1;
}

const struct route_ops route_updown_ops = {
	.name = "updown",
	.help = "deterministic up*/down* routing on any graph: shortest legal route, BFS tree from root (Schroeder et al. 1991; seed 003 6.1)",
	.params = updown_params_def,
	.params_size = sizeof(struct updown_params),
	.state_size = sizeof(struct updown_table),
	.families = NULL,
	.is_deterministic = true,
	.init = updown_init,
	.release = updown_release_route,
	.inject = updown_inject,
	.compute = updown_compute,
};
