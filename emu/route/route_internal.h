/* Helpers shared by routing algorithms inside emu/route. */
#ifndef NETLOOM_ROUTE_ROUTE_INTERNAL_H
#define NETLOOM_ROUTE_ROUTE_INTERNAL_H

#include <stdint.h>

#include "route/route.h"
#include "topo/topo.h"

struct nl_err;
struct rng;
struct topo_grid;

/* Refuse r's VC count in init: the message, prefixed with where num_vcs
 * was set (r->vcs_origin) when known; returns NL_ECONFIG. Every
 * function's VC check says it through here, so each names its origin. */
int route_vcs_errf(struct route *r, struct nl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The registered functions that run on topology family `family`, but
 * `except`, ", "-separated in buf[cap]: what an init that refuses a
 * network names instead (lbr past its router limit). */
void route_names_on(const char *family, const char *except, char *buf, size_t cap);

/* Packet p's source router. The packet carries its source endpoint only:
 * the router is two table reads away, and the packet record (28 bytes)
 * is most of a loaded network's memory (emu/net/net_internal.h). */
static inline uint32_t route_src_router(const struct route *r, const struct route_pkt *p)
{
	return topo_ep_router(r->topo, p->src_ep);
}

/* Dimension-order next hop on a grid (dor.c): the local output port from
 * `cur` towards `dst`, or -1 when cur == dst. When the packet enters a new
 * ring (in_port is not a port of the dimension being corrected) *vc_class
 * is set to the ring's dateline partition; otherwise it is left alone. */
int route_dor_next(const struct topo_grid *g, uint32_t cur, uint32_t dst, uint32_t in_port,
		   struct rng *rng, uint8_t *vc_class);

#endif
