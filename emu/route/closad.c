/* closad: Clos-AD on the HyperX family (every family publishing the HyperX
 * view: hyperx, flatfly, full, hypercube),
 * "closad:threshold=0".
 *
 * Kim, Dally & Abts, "Flattened butterfly: a cost-efficient topology for
 * high-radix networks", ISCA 2007 §4, as seed 001 §3.3 describes it: "at a
 * packet's source node, [it chooses] between dimension ordered minimal
 * routing and non-minimal routing, based on estimates of queuing delay.
 * If it chooses to route non-minimally, Clos-AD routes to a randomly
 * chosen lowest common ancestor switch, considering the network as a
 * transformed folded Clos network ... dimension ordered minimal paths from
 * source to intermediate and from intermediate to destination ... no
 * packet can be derouted twice."
 *
 * The folded Clos: seed 001 §4 says Swap2's two offset dimensions (0 and 1
 * in netloom's swap2) "correspond to the top two levels of the folded
 * Clos", so dimension 0 is the top level and dimension L-1 the one next to
 * the terminals. The lowest common ancestors of source and destination
 * are then the switches that agree with the source below the lowest
 * offset dimension l and take any coordinate in dimensions l..L-1: the
 * intermediate is drawn uniformly there (aligned dimensions above l
 * included, which is the dimensional asymmetry §3.3 criticises).
 *
 * Where: once, at the source router (with `routing_delay = 0`, as the head
 * leaves its endpoint: route_ops.decide_at_injection). What it reads: the
 * local view: q = the occupancy of a path's first output port summed over
 * its VCs (BookSim's GetUsedCredit), H = its hop count; minimal when
 * q_min x H_min <= q_nonmin x H_nonmin + threshold (the UGAL-L estimate of
 * queuing delay; the paper does not give Clos-AD's estimator).
 * `queue=routed` reads q as the flits routed to the port here and not yet
 * sent instead (sequential allocation's count, as Min-AD's and DAL's
 * `queue` rule and `anca:queue=routed` do): in an input-queued router an
 * overloaded port's backlog waits at this router's inputs, where the
 * credits of the channel, draining at full rate, do not show it;
 * `output` and `both` as ugal's.
 * Per-packet state: route_pkt.inter (the intermediate), .phase (0 towards
 * it, 1 after), .vc_class (1 once decided).
 *
 * VCs: num_vcs = 2m, even; phase 0 on VCs 0..m-1, phase 1 (and minimal
 * packets) on m..2m-1 (seed 001 §4.1 gives 6 VCs in 3 sets of 2 but not
 * how Clos-AD uses them; these are BookSim's ugal_flatfly_onchip halves).
 * Deadlock freedom: each phase is dimension-order routing on its own
 * half, acyclic (a packet crosses each dimension once, lowest first), and
 * phase 0 only waits on phase 0 or phase 1 channels, never the reverse:
 * the channel-dependency graph is acyclic (checked by the route unit test).
 */
#include "route/route.h"
#include "route/route_internal.h"

#include <stddef.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/hyperx_route.h"
#include "topo/topo.h"

struct closad_params {
	int64_t threshold;
	int queue;
};

static const struct param_def closad_params_def[] = {
	{"threshold", PARAM_INT, offsetof(struct closad_params, threshold), "0", -1e6, 1e6,
	 "minimal when q_min x H_min <= q_nonmin x H_nonmin + threshold", NULL},
	{"queue", PARAM_CHOICE, offsetof(struct closad_params, queue), "credit", 0, 0,
	 "a first hop's queue q: " ROUTE_QUEUE_HELP "; routed is the count Min-AD's and DAL's queue rule reads",
	 route_queue_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

enum { CLOSAD_DECIDED = 1 };

static int closad_init(struct route *r, struct nl_err *err)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	if (!h)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'closad': topology '%s' has no HyperX coordinates",
			       r->topo->ops->name);
	if (r->n_vcs < 2 || r->n_vcs % 2)
		return route_vcs_errf(r, err,
				      "routing function 'closad' needs an even num_vcs >= 2 (one half per phase), got %u", r->n_vcs);
	r->max_cands = 1;
	r->needs_pend = ((const struct closad_params *)r->params)->queue == ROUTE_Q_ROUTED;
	r->views |= route_queue_views(((const struct closad_params *)r->params)->queue);
	return 0;
}

static void closad_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			  uint8_t *vc_hi)
{
	(void)rng;
	p->phase = 1;
	p->vc_class = 0;
	p->inter = p->dst_router;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* The source decision (also route_ops.decide_at_injection). */
static void closad_decide(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
			  const struct route_view *v)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	const struct closad_params *pr = r->params;
	p->vc_class = CLOSAD_DECIDED;
	p->phase = 1;
	p->inter = p->dst_router;
	int l = hxr_first_offset(h, router, p->dst_router);
	if (l < 0)
		return;
	/* A random lowest common ancestor: the source's coordinates below l,
	 * any at and above. */
	uint32_t inter = router;
	for (int d = l; d < h->L; d++)
		inter = hxr_move(h, inter, d, (uint32_t)rng_below(rng, h->S[d]));
	if (inter == router || inter == p->dst_router)
		return;
	uint32_t m = r->n_vcs / 2, qmin, qnm;
	uint32_t pmin = hxr_dor_port(h, v, router, p->dst_router, 0, 2 * m - 1, &qmin);
	uint32_t pnm = hxr_dor_port(h, v, router, inter, 0, 2 * m - 1, &qnm);
	if (pr->queue != ROUTE_Q_CREDIT) {
		qmin = route_view_port_q(v, router, pmin, pr->queue);
		qnm = route_view_port_q(v, router, pnm, pr->queue);
	}
	int64_t hmin = (int64_t)topo_distance(r->topo, router, p->dst_router);
	int64_t hnm = (int64_t)topo_distance(r->topo, router, inter) + (int64_t)topo_distance(r->topo, inter, p->dst_router);
	if ((int64_t)qmin * hmin <= (int64_t)qnm * hnm + pr->threshold)
		return;
	p->inter = inter;
	p->phase = 0;
}

static int closad_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			  struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	(void)in_port;
	(void)in_vc;
	if (!(p->vc_class & CLOSAD_DECIDED))
		closad_decide(r, router, p, rng, v);
	if (p->phase == 0 && router == p->inter)
		p->phase = 1;
	uint32_t target = p->phase ? p->dst_router : p->inter;
	if (router == target)
		return route_eject(r, p, out);
	uint32_t m = r->n_vcs / 2, lo = p->phase ? m : 0, occ;
	uint32_t port = hxr_dor_port(h, v, router, target, lo, lo + m - 1, &occ);
	*out = (struct route_cand){.port = (uint16_t)port, .vc_lo = (uint8_t)lo, .vc_hi = (uint8_t)(lo + m - 1),
				   .prio = 0};
	return 1;
}

const struct route_ops route_closad_ops = {
	.name = "closad",
	.help = "Clos-AD: at the source, dimension order or via a random lowest common ancestor by queue x hops (Kim, Dally & Abts ISCA 2007; Ahn et al. SC09 3.3)",
	.params = closad_params_def,
	.params_size = sizeof(struct closad_params),
	.topo_views = TOPO_VIEW_HYPERX,
	.is_deterministic = false,
	.init = closad_init,
	.inject = closad_inject,
	.compute = closad_compute,
	.decide_at_injection = closad_decide,
};
