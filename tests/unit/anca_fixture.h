/* Shared by the unit tests of anca's port choice (test_oqview.c,
 * test_seqalloc.c): the fat tree fattree:k=4,n=2 and a packet from
 * endpoint 0 to the last endpoint, which leaves its source router by one
 * of 4 up-ports. */
#ifndef NETLOOM_TESTS_ANCA_FIXTURE_H
#define NETLOOM_TESTS_ANCA_FIXTURE_H

#include <string.h>

#include "core/error.h"
#include "route/route.h"
#include "topo/topo.h"

struct anca_fx {
	struct topo *t;
	uint32_t src;                   /* the source router */
	uint32_t dst_ep;                /* the destination endpoint */
	uint32_t ups[ROUTE_MAX_CANDS];  /* the source router's up-ports toward it */
	uint32_t n_up;
	uint32_t n_ports;               /* the source router's ports */
};

static inline int anca_fx_open(struct anca_fx *f, struct nl_err *e)
{
	memset(f, 0, sizeof *f);
	NL_CHECK(topo_new("fattree:k=4,n=2", &f->t, e));
	f->src = topo_ep_router(f->t, 0);
	f->dst_ep = f->t->n_endpoints - 1;
	f->n_up = topo_min_ports(f->t, f->src, topo_ep_router(f->t, f->dst_ep), 0, f->ups, ROUTE_MAX_CANDS);
	f->n_ports = topo_router_ports(f->t, f->src);
	return 0;
}

/* A fresh packet of the fixture's flow. */
static inline struct route_pkt anca_fx_pkt(const struct anca_fx *f)
{
	return (struct route_pkt){.src_ep = 0, .dst_router = topo_ep_router(f->t, f->dst_ep),
				  .dst_ep = f->dst_ep};
}

#endif
