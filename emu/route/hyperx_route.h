/* Helpers shared by the HyperX routing functions of seed 001 §3.3
 * (minad.c, dal.c, closad.c, valiant.c on the HyperX family): port
 * geometry, dimension-order next hops and the "blocked" test of Min-AD and
 * DAL, over the HyperX view (topo_hyperx.h) of hyperx, flatfly, full and
 * hypercube.
 *
 * VC organisation (seed 001 §4.1: "3 sets of 2 VCs ... one VC in each set
 * is reserved for deadlock avoidance in the adaptive minimal and DAL
 * routing algorithms"): with num_vcs = 2m, set i is VCs {i, m + i}; the
 * lower half 0..m-1 (one VC of each set) is adaptive, the upper half
 * m..2m-1 (the other VC of each set) the dimension-order escape. A
 * candidate's VCs are one contiguous range, so the halves keep Min-AD and
 * DAL at one candidate per port and tier. Valiant and Clos-AD have no
 * escape: their two phases take the two halves (as BookSim's
 * ugal_flatfly_onchip), each phase dimension-order routed.
 */
#ifndef NETLOOM_ROUTE_HYPERX_ROUTE_H
#define NETLOOM_ROUTE_HYPERX_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "route/route.h"
#include "topo/topo_hyperx.h"

/* Candidate priorities: the VC allocator (a by-priority one, separable_*)
 * takes the highest tier with a free VC; within a tier the less occupied
 * port first (prio = tier - occupancy, occupancy clipped). */
enum { HXR_PRIO_MIN = 3000, HXR_PRIO_DEROUTE = 2000, HXR_PRIO_MIN_BLOCKED = 1000, HXR_PRIO_ESCAPE = 0,
       HXR_OCC_CLIP = 999 };

/* The dimension of local port `port`, or -1 for a terminal port. */
static inline int hxr_port_dim(const struct topo_hyperx *h, uint32_t port)
{
	if (port >= h->term_base)
		return -1;
	for (int d = h->L - 1; d > 0; d--)
		if (port >= h->port_base[d])
			return d;
	return 0;
}

/* Every dimension has one link per aligned switch pair (K = 1). */
static inline bool hxr_all_k1(const struct topo_hyperx *h)
{
	for (int d = 0; d < h->L; d++)
		if (h->K[d] != 1)
			return false;
	return true;
}

/* dal's state (dal.c), looked up once at init for compute. Here so that
 * a unit test can run the general candidate code on a K = 1 network and
 * compare it with dal_cands_k1 (tests/unit/test_hyperx_route.c). */
struct dal_state {
	const struct topo_hyperx *h;
	bool is_k1; /* every dimension K = 1: dal_cands_k1 */
};

/* The lowest dimension where routers a and b differ, or -1. */
static inline int hxr_first_offset(const struct topo_hyperx *h, uint32_t a, uint32_t b)
{
	for (int d = 0; d < h->L; d++)
		if (topo_hyperx_coord(h, a, d) != topo_hyperx_coord(h, b, d))
			return d;
	return -1;
}

/* Router a with its coordinate in dimension d set to v. */
static inline uint32_t hxr_move(const struct topo_hyperx *h, uint32_t a, int d, uint32_t v)
{
	uint32_t c = topo_hyperx_coord(h, a, d);
	return a - c * h->stride[d] + v * h->stride[d];
}

/* Flits in the downstream buffers of VCs lo..hi of local port `port`. */
static inline uint32_t hxr_occ(const struct route_view *v, uint32_t port, uint32_t lo, uint32_t hi)
{
	if (!v)
		return 0;
	uint32_t q = route_view_pend(v, port); /* once per port: route.h */
	for (uint32_t vc = lo; vc <= hi; vc++)
		q += route_view_occ(v, port, vc);
	return q;
}

/* A candidate: local port `port`, VCs lo..hi, priority prio. */
static inline struct route_cand hxr_cand(uint32_t port, uint32_t lo, uint32_t hi, int prio)
{
	return (struct route_cand){.port = (uint16_t)port, .vc_lo = (uint8_t)lo, .vc_hi = (uint8_t)hi,
				   .prio = (int16_t)prio};
}

/* When a port counts as blocked (below): `credit` flits downstream in
 * each of its adaptive VCs (0: not by credits), or `queue` flits routed
 * to it here and not yet sent (0: not by its queue; needs sequential
 * allocation's count, route.needs_pend). */
struct hxr_block {
	uint32_t credit;
	uint32_t queue;
};

/* The adaptive VCs 0..m-1 of one port, from the view entry of its VC 0
 * (pb; the entries of its VCs are vstep bytes apart): their flits
 * downstream plus pend, and in *room whether the port is unblocked under
 * b. pend: the flits already routed to the port here (sequential
 * allocation, route.h; 0 when off), counted once in the sum that ranks
 * ports. */
static inline uint32_t hxr_port_q(const char *pb, size_t vstep, uint32_t m, struct hxr_block b, uint32_t pend,
				  uint32_t *room)
{
	uint32_t q = pend, least = UINT32_MAX;
	for (uint32_t vc = 0; vc < m; vc++, pb += vstep) {
		uint32_t o = *(const uint16_t *)pb;
		q += o;
		least = o < least ? o : least;
	}
	*room = (b.credit == 0 || least < b.credit) && (b.queue == 0 || pend < b.queue);
	return q;
}

/* Blocked (seed 001 §3.3: Min-AD turns away from a dimension "blocked
 * due to buffer congestion at the downstream switch"; DAL takes "an
 * unblocked path"). The paper gives no rule or threshold; two are
 * offered (struct hxr_block, both may be on: either blocks):
 *  - credit (`block`, default 1): every adaptive VC holds at least
 *    `block` flits downstream (sent, not yet credited). With 32-flit
 *    buffers that drain at the next switch a saturated channel holds only
 *    the 1-2 flits of its credit round trip, so a "full buffer" threshold
 *    would never deroute; 1 sees any busy channel as blocked, so at load
 *    nearly every port is;
 *  - queue (`queue`, default 0 = off): at least `queue` flits are routed
 *    to the port here and not yet sent. In an input-queued router the
 *    backlog of an overloaded channel waits upstream, in this router's
 *    input buffers, not downstream; this count (sequential allocation's,
 *    which §4.1 uses) is where it shows. `block=0,queue=2` is what the
 *    Fig. 6 and 7 scripts run (docs/validation.md: DAL on bitcomp at
 *    paper size 0.22 with the credit rule, 0.36 with it).
 * The VC allocator grants an adaptive VC only when it has room for the
 * whole packet (route.va_room), so a head never waits on one: Duato's
 * condition that a waiting packet can always still take the escape.
 * hxr_pick: over the K[d] trunks from router a to coordinate `to` of
 * dimension d, the one whose adaptive VCs 0..m-1 hold the fewest flits
 * (the first on a tie), as one candidate on all its adaptive VCs with
 * priority tier - occupancy; when every trunk is blocked, 0, or with
 * `fallback` the least occupied trunk at tier `fallback` instead. Without
 * a view: trunk 0. */
static inline int hxr_pick(const struct topo_hyperx *h, const struct route_view *v, uint32_t a, int d, uint32_t to,
			   uint32_t m, struct hxr_block block, int tier, int fallback, struct route_cand *out)
{
	uint32_t first = topo_hyperx_port(h, d, topo_hyperx_coord(h, a, d), to, 0);
	uint32_t best_occ = UINT32_MAX, best_port = first, fb_occ = UINT32_MAX, fb_port = first;
	if (v) {
		const size_t vstep = v->occ_stride, pstep = (size_t)v->n_vcs * vstep;
		const char *pb = (const char *)v->occ_base + first * pstep;
		for (uint32_t k = 0; k < h->K[d]; k++, pb += pstep) {
			uint32_t room;
			uint32_t q = hxr_port_q(pb, vstep, m, block, route_view_pend(v, first + k), &room);
			if (room && q < best_occ) {
				best_occ = q;
				best_port = first + k;
			}
			if (q < fb_occ) {
				fb_occ = q;
				fb_port = first + k;
			}
		}
		if (best_occ == UINT32_MAX) {
			if (!fallback)
				return 0;
			best_occ = fb_occ;
			best_port = fb_port;
			tier = fallback;
		}
	} else {
		best_occ = 0;
	}
	uint32_t clip = best_occ < HXR_OCC_CLIP ? best_occ : HXR_OCC_CLIP;
	*out = (struct route_cand){.port = (uint16_t)best_port, .vc_lo = 0, .vc_hi = (uint8_t)(m - 1),
				   .prio = (int16_t)(tier - (int)clip)};
	return 1;
}

/* The least occupied trunk (VCs lo..hi) from router `a` to coordinate
 * `to` of dimension d; the first on a tie. *occ gets its occupancy. */
static inline uint32_t hxr_trunk(const struct topo_hyperx *h, const struct route_view *v, uint32_t a, int d,
				 uint32_t to, uint32_t lo, uint32_t hi, uint32_t *occ)
{
	uint32_t first = topo_hyperx_port(h, d, topo_hyperx_coord(h, a, d), to, 0), best = first;
	uint32_t bq = hxr_occ(v, first, lo, hi);
	for (uint32_t k = 1; k < h->K[d] && v; k++) {
		uint32_t q = hxr_occ(v, first + k, lo, hi);
		if (q < bq) {
			bq = q;
			best = first + k;
		}
	}
	*occ = bq;
	return best;
}

/* The dimension-order (lowest offset dimension first) port from a toward b
 * (a != b), least occupied trunk on VCs lo..hi. */
static inline uint32_t hxr_dor_port(const struct topo_hyperx *h, const struct route_view *v, uint32_t a,
				    uint32_t b, uint32_t lo, uint32_t hi, uint32_t *occ)
{
	int d = hxr_first_offset(h, a, b);
	return hxr_trunk(h, v, a, d, topo_hyperx_coord(h, b, d), lo, hi, occ);
}

/* Min-AD's and DAL's minimal candidates: one per offset dimension, less
 * occupied first; a blocked dimension (hxr_pick) drops to the tier below
 * DAL's deroutes and above the escape, so the escape, whose capacity on
 * adversarial patterns is dimension order's, is taken only when no
 * minimal port has a free adaptive VC at allocation (at saturation nearly
 * every port is blocked; without this tier DAL fell to 0.20 on bitcomp on
 * the 4,096-endpoint HyperX). Returns the count. */
static inline int hxr_min_cands(const struct topo_hyperx *h, const struct route_view *v, uint32_t a, uint32_t dst,
				uint32_t m, struct hxr_block block, struct route_cand *out)
{
	int n = 0;
	for (int d = 0; d < h->L; d++) {
		uint32_t to = topo_hyperx_coord(h, dst, d);
		if (topo_hyperx_coord(h, a, d) != to)
			n += hxr_pick(h, v, a, d, to, m, block, HXR_PRIO_MIN, HXR_PRIO_MIN_BLOCKED, out + n);
	}
	return n;
}

/* The last resort: the dimension-order port on the escape VCs m..2m-1. */
static inline struct route_cand hxr_escape(const struct topo_hyperx *h, const struct route_view *v, uint32_t a,
					   uint32_t dst, uint32_t m)
{
	uint32_t occ;
	uint32_t port = hxr_dor_port(h, v, a, dst, m, 2 * m - 1, &occ);
	return (struct route_cand){.port = (uint16_t)port, .vc_lo = (uint8_t)m, .vc_hi = (uint8_t)(2 * m - 1),
				   .prio = HXR_PRIO_ESCAPE};
}

#endif
