/* nca, anca: nearest-common-ancestor routing on fat trees, "nca", "anca".
 *
 * BookSim2's fattree_nca and fattree_anca (src/routefunc.cpp; Leiserson's
 * fat trees, Dally & Towles §9.4): a packet climbs until it reaches a
 * common ancestor of its source and destination, then descends by the
 * unique down path. On the way up every up-port is minimal
 * (topo_min_ports lists them all); `nca` draws one uniformly per packet
 * per hop from the router's stream (BookSim's RandomInt; a fixed hash
 * would overload the same channels for every seed), `anca` draws two and
 * takes the less loaded by the credit-based view summed over the port's
 * VCs (BookSim's GetUsedCredit; ties and equal loads take the first
 * draw, as BookSim does; `anca:queue=output` compares the flits waiting in
 * this router's output stage instead, `queue=both` their sum: issue 11
 * part 3). Going down there is one minimal port.
 *
 * Deadlock freedom: every path climbs, then descends (topo_has_levels:
 * the family guarantees it), so a channel dependency goes up -> up,
 * up -> down or down -> down, never down -> up: ordering up channels by
 * level, then down channels by decreasing level, is a total order every
 * dependency follows (Dally & Towles §14.7, up*-down*). Every VC is used
 * on every hop; one VC suffices.
 */
#include "route/route.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

static const char *const nca_families[] = {"fattree", "clos", NULL};

static const struct param_def nca_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct anca_params {
	int queue;
	int64_t choices;
};

static const struct param_def anca_params_def[] = {
	{"queue", PARAM_CHOICE, offsetof(struct anca_params, queue), "credit", 0, 0,
	 "a port's load: " ROUTE_QUEUE_HELP,
	 route_queue_names},
	{"choices", PARAM_INT, offsetof(struct anca_params, choices), "2", 0, 64,
	 "up-ports compared per hop: 2 random draws (BookSim's), k random draws (with replacement, as BookSim's "
	 "two, so k may exceed the up-ports; 1 is nca), or 0 = every up-port once, the least "
	 "loaded from a random start (Kim, Dally and Abts SC'06, the adaptive Clos routing seed 001 compares "
	 "against; with [router] sequential_allocation = 1)",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* Most minimal (up) ports listed; a draw beyond them asks again. */
#define NCA_PORTS_BUF 64u

static int nca_init(struct route *r, struct nl_err *err)
{
	if (!topo_has_levels(r->topo) || !topo_has_min_ports(r->topo))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function '%s': topology '%s' has no up*-down* levels with closed-form minimal ports",
			       r->ops->name, r->topo->ops->name);
	r->max_cands = 1;
	if (r->ops->params_size) { /* anca: queue=routed reads sequential allocation's count */
		const struct anca_params *pr = r->params;
		/* One draw is nca: nothing is compared, so a queue would be
		 * read and dropped (as ugal refuses queue= outside mode=local). */
		if (pr->choices == 1 && pr->queue != ROUTE_Q_CREDIT)
			return nl_errf(err, NL_ECONFIG,
				       "routing function 'anca': queue=%s compares up-ports and choices=1 draws one "
				       "(nca); expected queue=credit or choices other than 1",
				       route_queue_names[pr->queue]);
		r->needs_pend = pr->queue == ROUTE_Q_ROUTED;
		r->views |= route_queue_views(pr->queue);
	}
	return 0;
}

static void nca_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
		       uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* Minimal port number `pick` of the list from router toward dst. */
static uint32_t nca_port(const struct topo *t, uint32_t router, uint32_t dst, const uint32_t *ports, uint32_t pick)
{
	uint32_t port;
	if (pick < NCA_PORTS_BUF)
		return ports[pick];
	topo_min_ports(t, router, dst, pick, &port, 1);
	return port;
}

static int nca_route(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
		     const struct route_view *v, bool adaptive, struct route_cand *out)
{
	const struct topo *t = r->topo;
	uint32_t ports[NCA_PORTS_BUF];

	if (router == p->dst_router)
		return route_eject(r, p, out);
	uint32_t n = topo_min_ports(t, router, p->dst_router, 0, ports, NCA_PORTS_BUF);
	uint32_t port = ports[0];
	if (n > 1) {
		uint32_t u = (uint32_t)rng_below(rng, n);
		port = nca_port(t, router, p->dst_router, ports, u);
		if (adaptive) {
			/* The least loaded of the drawn port and k - 1 more draws
			 * (BookSim's rule at k = 2: the second only if less
			 * loaded), or with choices = 0 of every port once, from
			 * the drawn one on; ties keep the earlier. */
			const struct anca_params *pr = r->params;
			const int queue = pr->queue;
			const uint32_t draws = (uint32_t)pr->choices, k = draws ? draws : n;
			uint32_t best = route_view_port_q(v, router, port, queue);
			for (uint32_t i = 1; i < k; i++) {
				uint32_t pick = draws ? (uint32_t)rng_below(rng, n) : (u + i) % n;
				uint32_t other = nca_port(t, router, p->dst_router, ports, pick);
				uint32_t q = route_view_port_q(v, router, other, queue);
				if (q < best) {
					best = q;
					port = other;
				}
			}
		}
	}
	out->port = (uint16_t)port;
	out->vc_lo = 0;
	out->vc_hi = (uint8_t)(r->n_vcs - 1);
	out->prio = 0;
	return 1;
}

static int nca_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		       struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	(void)in_port;
	(void)in_vc;
	return nca_route(r, router, p, rng, v, false, out);
}

static int anca_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	(void)in_port;
	(void)in_vc;
	return nca_route(r, router, p, rng, v, true, out);
}

const struct route_ops route_nca_ops = {
	.name = "nca",
	.help = "nearest common ancestor on fat trees: a random up-port per packet per hop, then the unique down path (BookSim2 nca_fattree)",
	.params = nca_params,
	.params_size = 0,
	.state_size = 0,
	.families = nca_families,
	.is_deterministic = false,
	.init = nca_init,
	.inject = nca_inject,
	.compute = nca_compute,
};

const struct route_ops route_anca_ops = {
	.name = "anca",
	.help = "adaptive nearest common ancestor on fat trees: the least loaded of two random up-ports (BookSim2 anca_fattree), of k, or of all (choices=0)",
	.params = anca_params_def,
	.params_size = sizeof(struct anca_params),
	.state_size = 0,
	.families = nca_families,
	.is_deterministic = false,
	.init = nca_init,
	.inject = nca_inject,
	.compute = anca_compute,
};
