/* Shared by dort.c and tsdor.c (internal to emu/route): one dimension-order
 * step on the nD twin torus (seed 004 §II-B), stateless. */
#ifndef NETLOOM_ROUTE_NDT_COMMON_H
#define NETLOOM_ROUTE_NDT_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "route/route_internal.h"
#include "topo/topo_ndt.h"

/* What the next hop is. */
enum ndt_hop {
	NDT_EJECT,       /* at the destination card */
	NDT_EXTERNAL,    /* the torus port of dim on this card */
	NDT_TO_PE,       /* internal link, case i: to the other card's PE */
	NDT_TO_DIM,      /* internal link, case ii: to a dimension on the other card */
	NDT_IN_SPLIT,    /* internal link, case iii: travelling the split dimension */
};

struct ndt_step {
	enum ndt_hop kind;
	uint32_t port;   /* local port (external or internal) */
	int dim, dir;    /* the dimension being corrected and its direction (0 = +) */
	int cls;         /* dateline class of the ring hop: 1 while the rest of the ring crosses the wrap link */
};

/* init's checks, shared: the nD twin torus, and num_vcs a multiple of 4
 * (`why` says what the four classes are); one candidate. */
static inline int ndt_route_init(struct route *r, const char *why, struct nl_err *err)
{
	if (!topo_ndt_of(r->topo))
		return nl_errf(err, NL_EUNSUPPORTED, "routing function '%s' runs on the nD twin torus (ndt) only",
			       r->ops->name);
	if (r->n_vcs < 4 || r->n_vcs % 4)
		return route_vcs_errf(r, err, "routing function '%s' needs num_vcs a multiple of 4 (%s), got %u",
				      r->ops->name, why, r->n_vcs);
	r->max_cands = 1;
	return 0;
}

/* The flow hash ndt_next breaks k/2 ties with: one per (source, destination). */
static inline uint64_t ndt_flow_hash(const struct route *r, const struct route_pkt *p)
{
	return rng_mix64(((uint64_t)route_src_router(r, p) << 32) | p->dst_router);
}

/* The one candidate: `port` on VCs lo .. lo + w - 1. */
static inline int ndt_cand(struct route_cand *out, uint32_t port, uint32_t lo, uint32_t w)
{
	out->port = (uint16_t)port;
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(lo + w - 1);
	out->prio = 0;
	return 1;
}

static inline uint32_t ndt_coord(const struct topo_ndt *v, uint32_t node, int d)
{
	return v->coord[(size_t)node * (size_t)v->n + (size_t)d];
}

/* The next hop from card `router` to card `dst`, correcting dimensions
 * lowest first (descending when `descending`). On a k/2 tie the split
 * dimension goes `split_tie` (0 = +, 1 = -, -1 = the port on this card),
 * the others by bit d of `h` (a hash of the flow: on a k = 2 ring both
 * ports reach the same neighbour, and always taking + would leave half
 * of those links idle). */
static inline struct ndt_step ndt_next(const struct topo_ndt *v, uint32_t router, uint32_t dst, bool descending,
				       int split_tie, uint64_t h)
{
	struct ndt_step s = {NDT_EJECT, 0, -1, 0, 0};
	uint32_t node = router / 2, dnode = dst / 2, card = router & 1;
	if (node == dnode) {
		if (router != dst) {
			s.kind = NDT_TO_PE;
			s.port = v->internal_port;
		}
		return s;
	}
	int d = -1;
	for (int i = 0; i < v->n; i++) {
		int dd = descending ? v->n - 1 - i : i;
		if (ndt_coord(v, node, dd) != ndt_coord(v, dnode, dd)) {
			d = dd;
			break;
		}
	}
	uint32_t k = v->k[d], c = ndt_coord(v, node, d), t = ndt_coord(v, dnode, d);
	uint32_t fwd = (t + k - c) % k; /* hops in the + direction */
	int dir;
	if (2 * fwd < k)
		dir = 0;
	else if (2 * fwd > k)
		dir = 1;
	else if (d == v->split && split_tie >= 0)
		dir = split_tie;
	else if (d == v->split)
		dir = v->card_of[d][0] == card ? 0 : 1;
	else
		dir = (int)(h >> d & 1);
	s.dim = d;
	s.dir = dir;
	s.cls = dir == 0 ? c > t : c < t;
	if (v->card_of[d][dir] == card) {
		s.kind = NDT_EXTERNAL;
		s.port = v->card_port[d][dir];
	} else {
		s.kind = d == v->split ? NDT_IN_SPLIT : NDT_TO_DIM;
		s.port = v->internal_port;
	}
	return s;
}

#endif
