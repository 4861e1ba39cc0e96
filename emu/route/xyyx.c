/* xyyx: XY-YX dimension-order routing on the HyperX family (every family
 * publishing the HyperX view: hyperx, flatfly, full, hypercube) and
 * meshes, "xyyx:order=random|adaptive".
 *
 * BookSim2's xyyx_flatfly and adaptive_xyyx_flatfly
 * (src/networks/flatfly_onchip.cpp; Kim, Balfour & Dally, "Flattened
 * butterfly topology for on-chip networks", MICRO 2007 §4). At the source
 * router each packet picks one of two dimension orders and keeps it to
 * the destination: XY (increasing dimension: the lowest dimension whose
 * coordinate differs first, BookSim's flatfly_outport, netloom's
 * min:select=first) or YX (decreasing: flatfly_outport_yx).
 * `order=random` draws the order with probability 1/2 (xyyx_flatfly's
 * RandomInt(1)); `order=adaptive` takes the order whose first output port
 * has fewer credits used, summed over its VCs (route_view_port_occ,
 * BookSim's GetUsedCredit), a random one on a tie (adaptive_xyyx_flatfly).
 * With lookahead routing (routing_delay = 0) the adaptive choice is made
 * as the head leaves its endpoint, on the source router's credits then,
 * as BookSim computes the first route at injection
 * (route_ops.decide_at_injection). BookSim's converted names:
 * xyyx -> xyyx, adaptive_xyyx -> xyyx:order=adaptive; on its concentrated
 * mesh, xy_yx_no_express -> xyyx (BookSim2 networks/cmesh.cpp: the same
 * random order and VC halves, one hop per mesh step, no express channel).
 *
 * VCs: XY packets use the lower half of the VCs, YX packets the upper
 * half (BookSim: vcEnd -= n/2 for XY, vcBegin += n/2 for YX); BookSim
 * reads the order back from the input VC at later hops, netloom keeps it
 * in route_pkt.phase. Needs an even num_vcs >= 2: BookSim's halves
 * overlap in the middle VC for an odd count (with 3 VCs, VC 1 carries
 * both orders), which admits a cycle, so we refuse it. Ejection may use
 * every VC (a sink). Trunked HyperX links: every trunk toward the next
 * coordinate is a candidate (the VC allocator takes a free one).
 *
 * Deadlock freedom: within one half every packet follows one fixed
 * dimension order, crossing each dimension at most once (one hop: each
 * dimension is fully connected; on a mesh a monotone run along a line,
 * whose channels in one direction have no cycle), so every channel
 * dependency in the XY half goes from a lower dimension to a higher one
 * (or along one line in one direction), and in the YX half from a higher
 * to a lower one; each half's dependency graph is acyclic
 * (Dally & Towles §14.1, dimension-order routing). A packet never changes
 * half, so there is no dependency between the halves and the union is
 * acyclic: deadlock-free, for both orders (the adaptive choice only picks
 * the half, once, at the source).
 */
#include "route/route.h"
#include "route/route_internal.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"
#include "topo/topo_hyperx.h"

enum { XYYX_RANDOM, XYYX_ADAPTIVE };
static const char *const xyyx_order_names[] = {"random", "adaptive", NULL};

struct xyyx_params {
	int order;
};

static const struct param_def xyyx_params_def[] = {
	{"order", PARAM_CHOICE, offsetof(struct xyyx_params, order), "random", 0, 0,
	 "the dimension order per packet: random (XY or YX with probability 1/2, BookSim's xyyx_flatfly) or "
	 "adaptive (the order whose first port has fewer credits used, BookSim's adaptive_xyyx_flatfly)",
	 xyyx_order_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* Meshes by name; the HyperX family by its view (topo_views). */
static const char *const xyyx_families[] = {"mesh", "cmesh", NULL};

/* The lattice the orders walk: the HyperX view, else a mesh's grid. */
static int xyyx_dims(const struct route *r)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	return h ? h->L : r->topo->grid->n_dims;
}

static uint32_t xyyx_coord(const struct route *r, uint32_t router, int d)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	return h ? topo_hyperx_coord(h, router, d) : topo_grid_coord(r->topo->grid, router, d);
}

/* route_pkt.phase: the order; route_pkt.vc_class: whether it was chosen. */
enum { XYYX_XY = 0, XYYX_YX = 1 };
enum { XYYX_DECIDED = 1 };

static int xyyx_init(struct route *r, struct nl_err *err)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	const struct topo_grid *g = r->topo->grid;
	bool wraps = false;
	for (int d = 0; !h && g && d < g->n_dims; d++)
		wraps |= g->wrap[d];
	if (!h && (!g || wraps))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'xyyx': topology '%s' has neither HyperX coordinates nor a mesh grid",
			       r->topo->ops->name);
	if (r->n_vcs < 2 || r->n_vcs % 2)
		return route_vcs_errf(r, err,
				      "routing function 'xyyx' needs an even num_vcs >= 2 (the lower half for XY, the upper half for YX; odd counts make BookSim's halves overlap), got %u",
				      r->n_vcs);
	uint32_t kmax = 1;
	for (int d = 0; h && d < h->L; d++)
		kmax = h->K[d] > kmax ? h->K[d] : kmax;
	r->max_cands = kmax < ROUTE_MAX_CANDS ? kmax : ROUTE_MAX_CANDS;
	return 0;
}

static void xyyx_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			uint8_t *vc_hi)
{
	(void)rng;
	p->phase = XYYX_XY;
	p->vc_class = 0;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* The dimension the order crosses next from router toward dst (which
 * differ): the lowest differing one for XY, the highest for YX. */
static int xyyx_dim(const struct route *r, uint32_t router, uint32_t dst, int order)
{
	int L = xyyx_dims(r);
	if (order == XYYX_XY) {
		for (int d = 0; d < L; d++)
			if (xyyx_coord(r, router, d) != xyyx_coord(r, dst, d))
				return d;
	} else {
		for (int d = L - 1; d >= 0; d--)
			if (xyyx_coord(r, router, d) != xyyx_coord(r, dst, d))
				return d;
	}
	NL_BUG("xyyx: routers %u and %u have the same coordinates", router, dst);
	return 0;
}

/* The port crossing dimension d toward dst: the HyperX port of the
 * trunk, or a mesh's +1 (2d) / -1 (2d + 1) port. */
static uint32_t xyyx_dim_port(const struct route *r, int d, uint32_t router, uint32_t dst, uint32_t trunk)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	uint32_t c = xyyx_coord(r, router, d), t = xyyx_coord(r, dst, d);
	if (h)
		return topo_hyperx_port(h, d, c, t, trunk);
	return t > c ? 2u * (uint32_t)d : 2u * (uint32_t)d + 1;
}

static uint32_t xyyx_port(const struct route *r, uint32_t router, uint32_t dst, int order, uint32_t trunk)
{
	return xyyx_dim_port(r, xyyx_dim(r, router, dst, order), router, dst, trunk);
}

/* The order at the source router (also route_ops.decide_at_injection). */
static void xyyx_decide(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
			const struct route_view *v)
{
	const struct xyyx_params *pr = r->params;

	p->vc_class = XYYX_DECIDED;
	if (router == p->dst_router) {
		p->phase = XYYX_XY;
		return;
	}
	if (pr->order == XYYX_ADAPTIVE && v) {
		uint32_t qxy = route_view_port_occ(v, xyyx_port(r, router, p->dst_router, XYYX_XY, 0));
		uint32_t qyx = route_view_port_occ(v, xyyx_port(r, router, p->dst_router, XYYX_YX, 0));
		if (qxy != qyx) {
			p->phase = qxy < qyx ? XYYX_XY : XYYX_YX;
			return;
		}
	}
	p->phase = rng_below(rng, 2) ? XYYX_XY : XYYX_YX;
}

static int xyyx_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	(void)in_port;
	(void)in_vc;

	if (p->hops == 0 && p->vc_class != XYYX_DECIDED)
		xyyx_decide(r, router, p, rng, v);
	if (router == p->dst_router)
		return route_eject(r, p, out);
	uint32_t half = r->n_vcs / 2;
	uint8_t lo = (uint8_t)(p->phase == XYYX_XY ? 0 : half);
	uint8_t hi = (uint8_t)(p->phase == XYYX_XY ? half - 1 : r->n_vcs - 1);
	int d = xyyx_dim(r, router, p->dst_router, p->phase);
	uint32_t n = !h ? 1 : h->K[d] < r->max_cands ? h->K[d] : r->max_cands;
	for (uint32_t k = 0; k < n; k++) {
		out[k].port = (uint16_t)xyyx_dim_port(r, d, router, p->dst_router, k);
		out[k].vc_lo = lo;
		out[k].vc_hi = hi;
		out[k].prio = 0;
	}
	return (int)n;
}

const struct route_ops route_xyyx_ops = {
	.name = "xyyx",
	.help = "XY-YX routing on the HyperX family (hyperx, flatfly, full, hypercube) and meshes: dimension order increasing or decreasing, chosen "
		"per packet at the source (random, or adaptive on first-port credits), each order on its half of the "
		"VCs (BookSim2 xyyx_flatfly / adaptive_xyyx_flatfly; even num_vcs)",
	.params = xyyx_params_def,
	.params_size = sizeof(struct xyyx_params),
	.state_size = 0,
	.families = xyyx_families,
	.topo_views = TOPO_VIEW_HYPERX,
	.is_deterministic = false,
	.init = xyyx_init,
	.inject = xyyx_inject,
	.compute = xyyx_compute,
	.decide_at_injection = xyyx_decide,
};
