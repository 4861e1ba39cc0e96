/* updown_adaptive: topology-agnostic minimal adaptive routing with up*-down*
 * escape paths, "updown_adaptive:root=0", on any graph.
 *
 * Silla & Duato, "High-performance routing in networks of workstations
 * with irregular topology", IEEE TPDS 11(7), 2000 (seed 003 ref. [32];
 * seed 003 §6.1 routes its RING-n and permuted P2/P3 networks with it,
 * 4 VCs). VC 0 is the escape VC: up*-down* (updown.c, updown_table.c);
 * VCs 1 .. num_vcs-1 are adaptive: any minimal port (from a BFS table of
 * hop distances, n^2 bytes). A head that arrived on an adaptive VC (or
 * from its endpoint) gets every minimal port on the adaptive VCs and its
 * up*-down* port on VC 0, starting a fresh legal route there, preferred
 * by emptiness (the port's downstream occupancy over its VCs), adaptive
 * first on equal occupancy. That order is the algorithm, not a tie-break:
 * the up*-down* hop need not be minimal, and Silla & Duato take the escape
 * VC when the adaptive ones are busy, not as readily as a free one. Only a
 * by-priority VC allocator (separable_input_first /
 * separable_output_first) honours it (route_ops.needs_priority_alloc; the
 * engine refuses islip, whose round robin took the escape VC at zero
 * load: dln:n=64,d=10,p=2 at 0.001, 1.98 hops, minimal 1.92). A packet on
 * the escape VC follows its legal route there (no up hop after a down
 * hop, read from the link it came in on). What it may do next is `escape`:
 *  - stay (default): it stays on the escape VC to its destination. The
 *    escape VC's extended channel-dependency graph is then its plain one
 *    (no indirect dependencies): deadlock-free under any flow control, at
 *    the cost of adaptivity under load. On large networks that cost is
 *    the throughput: packets that took one escape hop ride up*-down*'s
 *    long routes through the root's neighbourhood to the end (RING-10 at
 *    512 switches, seed 003 sec. 6.2's settings: unstable from 0.08
 *    flits/cycle/endpoint, where the 5D torus with duato takes 0.15).
 *  - return: Silla & Duato's algorithm: at every router it is offered
 *    the minimal ports on the adaptive VCs again, besides its escape hop,
 *    so an escape hop is a detour of one hop, not a change of route.
 *    An escape hop may lead away from the destination (an up hop) and an
 *    adaptive hop back, so a route has no length bound of its own; the
 *    paper states none. Here a packet that has taken 2 x diameter hops
 *    (at most 200) is offered the escape VC alone from then on, as with
 *    stay: every route ends (livelock freedom), and under load a packet
 *    rarely comes near the bound (RING-10 at 512 switches: see
 *    docs/validation.md, seed 003 sec. 6.2).
 *    Indirect dependencies then appear (escape, adaptive hops, escape
 *    afresh: a down link can come to wait on an up link), which can close
 *    a cycle of the extended graph under wormhole switching, where a
 *    blocked packet holds every channel it spans. Under virtual
 *    cut-through a blocked packet sits whole in one buffer, so only direct
 *    dependencies count (Duato, IEEE TPDS 7(8), 1996) and up*-down*'s are
 *    acyclic: init sets route.needs_vct and the engine refuses `return`
 *    unless flow_control = vct (whose buffers hold a whole packet). Seed
 *    003 runs virtual cut-through.
 *
 * Deadlock freedom (Duato 1995, Theorem 1): the escape subfunction is
 * connected (every router has a legal route to every router) and its
 * extended dependency graph is up*-down*'s, acyclic (updown.c); no cross
 * dependencies, since VC 0 is only used as up*-down* gives it. Like
 * duato it needs atomic VC reuse (wait_for_tail_credit = 1, refused
 * otherwise). tests/unit/test_route_escape.c checks the extended graph on
 * every path of small irregular graphs (stay), and that return's direct
 * escape dependencies stay acyclic; the watchdog test runs return under
 * virtual cut-through.
 */
#include <stddef.h>
#include <stdlib.h>

#include "route/route.h"
#include "route/updown_table.h"

#include "core/error.h"
#include "core/rng.h"
#include "route/route_internal.h"
#include "topo/topo.h"

struct updown_ad_params {
	int64_t root;
	int escape; /* UPDOWN_AD_STAY, UPDOWN_AD_RETURN */
};

enum { UPDOWN_AD_STAY, UPDOWN_AD_RETURN };
static const char *const updown_ad_escape_names[] = {"stay", "return", NULL};

static const struct param_def updown_ad_params_def[] = {
	{"root", PARAM_INT, offsetof(struct updown_ad_params, root), "0", 0, 1 << 30,
	 "root router of the escape VC's BFS spanning tree", NULL},
	{"escape", PARAM_CHOICE, offsetof(struct updown_ad_params, escape), "stay", 0, 0,
	 "after an escape hop: stay on the escape VC to the destination (any flow control), or return to the adaptive VCs at the next router (Silla & Duato 2000; needs flow_control = vct)",
	 updown_ad_escape_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct updown_ad_state {
	struct updown_table u;
	uint8_t *dist;      /* [a * n + b] hop distance */
	uint32_t hop_budget; /* escape=return: hops after which the escape VC is absorbing */
};

static int updown_ad_init(struct route *r, struct nl_err *err)
{
	struct updown_ad_state *s = r->state;
	const struct updown_ad_params *p = r->params;
	const struct topo *t = r->topo;
	if (r->n_vcs < 2)
		return route_vcs_errf(r, err,
				      "routing function 'updown_adaptive' needs num_vcs >= 2 (VC 0 the up*/down* escape, at least 1 adaptive; seed 003 uses 4), got %u",
				      r->n_vcs);
	NL_CHECK(updown_build(&s->u, t, (uint32_t)p->root, "updown_adaptive", err));
	uint32_t n = t->n_routers, diameter;
	/* 64 BFS sources at a time (topo_hop_table): `config --check` on
	 * dln:n=8192,d=4 0.8 s, 2.2 s one at a time. Hops past 254 or none
	 * read 254. */
	s->dist = malloc((size_t)n * n);
	if (!s->dist || topo_hop_table(t, s->dist, 254, &diameter) < 0)
		return nl_errf(err, NL_ENOMEM, "routing function 'updown_adaptive': out of memory for %u x %u table", n, n);
	/* route_pkt.hops is 8 bits: the budget stays well inside it. */
	s->hop_budget = 2 * diameter < 200 ? 2 * diameter : 200;
	r->needs_atomic_vcs = true;
	r->needs_vct = p->escape == UPDOWN_AD_RETURN;
	return 0;
}

static void updown_ad_release(struct route *r)
{
	struct updown_ad_state *s = r->state;
	updown_release(&s->u);
	free(s->dist);
	s->dist = NULL;
}

static void updown_ad_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			     uint8_t *vc_hi)
{
	(void)rng;
	p->phase = 0; /* escape=return: the hop budget not yet spent */
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int16_t updown_ad_prio(const struct route_view *v, uint32_t port, bool adaptive)
{
	uint32_t q = v ? route_view_port_occ(v, port) : 0;
	if (q > 8000)
		q = 8000;
	return (int16_t)(2 * (8000 - (int32_t)q) + adaptive);
}

static int updown_ad_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			     struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct updown_ad_state *s = r->state;
	const struct updown_ad_params *pr = r->params;
	const struct topo *t = r->topo;
	uint32_t n = t->n_routers, dst = p->dst_router;
	(void)rng;

	if (router == dst)
		return route_eject(r, p, out);
	bool from_net = in_port < topo_router_ports(t, router) && topo_port_is_network(t, t->port_base[router] + in_port);
	bool in_escape = from_net && in_vc == 0;
	uint64_t h = rng_mix64((((uint64_t)route_src_router(r, p) << 32) | dst) ^
			       rng_mix64((uint64_t)router + 0x9e3779b97f4a7c15ULL));
	int ep = updown_next(&s->u, t, router, dst, in_escape ? updown_may_up(&s->u, t, router, in_port) : true, h);
	if (ep < 0)
		NL_BUG("updown_adaptive: no legal hop from %u to %u", router, dst);
	int k = 0;
	/* route_pkt.hops counts modulo 256: the budget, once spent, is kept
	 * in the packet's phase (unused otherwise), not re-read from hops. */
	if (p->hops >= s->hop_budget)
		p->phase = 1;
	if (!in_escape || (pr->escape == UPDOWN_AD_RETURN && !p->phase)) {
		uint8_t want = (uint8_t)(s->dist[(size_t)router * n + dst] - 1);
		for (uint32_t g = t->port_base[router]; g < t->port_base[router + 1] && k < ROUTE_MAX_CANDS - 1; g++) {
			if (!topo_port_is_network(t, g) || s->dist[(size_t)t->port_router[t->peer[g]] * n + dst] != want)
				continue;
			uint32_t port = g - t->port_base[router];
			out[k].port = (uint16_t)port;
			out[k].vc_lo = 1;
			out[k].vc_hi = (uint8_t)(r->n_vcs - 1);
			out[k].prio = updown_ad_prio(v, port, true);
			k++;
		}
	}
	out[k].port = (uint16_t)ep;
	out[k].vc_lo = out[k].vc_hi = 0;
	out[k].prio = updown_ad_prio(v, (uint32_t)ep, false);
	return k + 1;
}

const struct route_ops route_updown_adaptive_ops = {
	.name = "updown_adaptive",
	.help = "topology-agnostic minimal adaptive routing, up*/down* escape on VC 0 (Silla & Duato 2000; seed 003 6.1), needs wait_for_tail_credit = 1 and vc_allocator = separable_input_first or separable_output_first",
	.params = updown_ad_params_def,
	.params_size = sizeof(struct updown_ad_params),
	.state_size = sizeof(struct updown_ad_state),
	.families = NULL,
	.is_deterministic = false,
	.needs_priority_alloc = true,
	.init = updown_ad_init,
	.release = updown_ad_release,
	.inject = updown_ad_inject,
	.compute = updown_ad_compute,
};
