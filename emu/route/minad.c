/* minad: minimal adaptive routing on the HyperX, "minad:block=1,queue=0";
 * runs on every family publishing the HyperX view (hyperx, flatfly, full,
 * hypercube).
 *
 * Ahn, Binkert, Davis, McLaren & Schreiber, "HyperX: topology, routing,
 * and packaging of efficient large-scale networks", SC09 (seed 001) §3.3:
 * "When one dimension is blocked due to buffer congestion at the
 * downstream switch, we choose another offset dimension. We call this
 * Min-AD. Min-AD adaptively explores the space of D! shortest paths."
 *
 * Where: at every router. What it reads: the local view, per VC. The
 * candidates are, per offset dimension, the least occupied trunk that is
 * not blocked (each adaptive VC holds >= `block` flits downstream, or
 * `queue` flits are routed to it here and not yet sent: hyperx_route.h,
 * struct hxr_block, hxr_pick), less occupied first; then,
 * lowest priority, the dimension-order port on the escape VCs. The VC allocator must be a by-priority one
 * (separable_input_first / separable_output_first) for the order to count: under islip's round robin a
 * blocked dimension or the escape VCs are taken as often as a free dimension, which is not Min-AD
 * (route_ops.needs_priority_alloc; the engine refuses islip).
 * No per-packet state.
 *
 * VCs (§4.1, 3 sets of 2 VCs, one of each set reserved for deadlock
 * avoidance): num_vcs = 2m, even; VCs 0..m-1 adaptive, m..2m-1 escape.
 *
 * Deadlock freedom (Duato's theorem: a connected escape sub-function whose
 * extended channel-dependency graph is acyclic): every candidate list
 * holds the escape, dimension-order routing on the escape VCs, which
 * reaches every destination. Every path is minimal, so a dimension once
 * aligned stays aligned; a packet on an escape channel of dimension d has
 * every dimension below d aligned, and after it dimension d too, so any
 * escape channel it uses later, directly or after adaptive hops, is of a
 * higher dimension: every direct and indirect dependency between escape
 * channels goes from a lower dimension to a higher one, and the extended
 * graph is acyclic (checked by the route unit test over every path of
 * small HyperX instances). The adaptive channels alone are cyclic (the
 * D! orders close cycles between dimensions), hence the escape.
 */
#include "route/route.h"
#include "route/route_internal.h"

#include "core/error.h"
#include "route/hyperx_route.h"
#include "topo/topo.h"

struct minad_params {
	int64_t block; /* flits downstream that make an adaptive VC blocked, 0: off */
	int64_t queue; /* flits routed to a port here, not yet sent, that make it blocked, 0: off */
};

static const struct param_def minad_params_def[] = {
	{"block", PARAM_INT, offsetof(struct minad_params, block), "1", 0, 65535,
	 "a port is blocked when each adaptive VC holds at least this many flits downstream (sent, not yet credited); 0: never by credits", NULL},
	{"queue", PARAM_INT, offsetof(struct minad_params, queue), "0", 0, 65535,
	 "a port is also blocked when at least this many flits are routed to it here and not yet sent (needs sequential_allocation = 1); 0: off", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int minad_init(struct route *r, struct nl_err *err)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	if (!h)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'minad': topology '%s' has no HyperX coordinates",
			       r->topo->ops->name);
	if (r->n_vcs < 2 || r->n_vcs % 2)
		return route_vcs_errf(r, err,
				      "routing function 'minad' needs an even num_vcs >= 2 (adaptive lower half, escape upper half; seed 001 uses 6), got %u",
				      r->n_vcs);
	r->max_cands = (uint32_t)h->L + 1 < ROUTE_MAX_CANDS ? (uint32_t)h->L + 1 : ROUTE_MAX_CANDS;
	if ((uint32_t)h->L + 1 > ROUTE_MAX_CANDS)
		return nl_errf(err, NL_ECONFIG,
			       "routing function 'minad': %d dimensions need %d candidates; expected at most %d dimensions",
			       h->L, h->L + 1, ROUTE_MAX_CANDS - 1);
	r->va_room = true;
	r->needs_pend = ((const struct minad_params *)r->params)->queue > 0;
	return 0;
}

static void minad_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			 uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int minad_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			 struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	const struct minad_params *pr = r->params;
	(void)in_port;
	(void)in_vc;
	(void)rng;
	if (router == p->dst_router)
		return route_eject(r, p, out);
	uint32_t m = r->n_vcs / 2;
	const struct hxr_block block = {(uint32_t)pr->block, (uint32_t)pr->queue};
	int n = hxr_min_cands(h, v, router, p->dst_router, m, block, out);
	out[n++] = hxr_escape(h, v, router, p->dst_router, m);
	return n;
}

const struct route_ops route_minad_ops = {
	.name = "minad",
	.help = "HyperX Min-AD: any unblocked offset dimension, dimension-order escape VCs (Ahn et al. SC09 3.3); needs vc_allocator = separable_input_first or separable_output_first",
	.params = minad_params_def,
	.params_size = sizeof(struct minad_params),
	.topo_views = TOPO_VIEW_HYPERX,
	.is_deterministic = false,
	.needs_priority_alloc = true,
	.init = minad_init,
	.inject = minad_inject,
	.compute = minad_compute,
};
