/* duato: Duato's fully adaptive minimal routing with a dimension-order
 * escape channel, "duato:dateline=1", on tori, meshes, hypercubes and
 * folded hypercubes.
 *
 * Duato, "A necessary and sufficient condition for deadlock-free adaptive
 * routing in wormhole networks", IEEE TPDS 6(10), 1995; as seed 003 §6.1
 * runs it on its tori and hypercubes ("the protocol proposed by Duato
 * [31], dimension-order routing for the escape paths", four VCs) and seed
 * 004 on its tori. The VCs of every port split in two sets:
 *  - escape VCs, the lowest: dimension-order routing (DOR). On a torus two
 *    of them, the dateline classes of dor.c (VC 0 for a ring traversal
 *    that does not cross the wrap link, VC 1 for one that does); on a mesh,
 *    a hypercube and a folded hypercube one (e-cube: the lowest differing
 *    dimension; on the folded hypercube the complement link first when it
 *    is shorter, i.e. when more than (n + 1) / 2 bits differ: the escape
 *    path stays minimal, so a packet switching between the sets never
 *    moves away from its destination, and after any e-cube hop the
 *    complement is never shorter again, so complement -> e-cube is the
 *    only order);
 *  - adaptive VCs, the rest (num_vcs - escape >= 1): any minimal port
 *    (topo_min_ports: on a torus the shorter direction of every ring not
 *    yet corrected, both on a k/2 tie; on a folded hypercube the complement
 *    link too when it is shorter).
 * At every router the head gets every minimal port on the adaptive VCs and
 * the DOR port on its escape VC, preferred by emptiness (the port's
 * downstream occupancy summed over its VCs), adaptive first on equal
 * occupancy (route priorities: only a by-priority VC allocator,
 * separable_input_first or separable_output_first, as seed 003's runs use,
 * applies them; under islip, the default, its round robin takes any
 * candidate with a free VC, which is still Duato's protocol, only without
 * the selection function: torus:k=8x8, 4-flit packets, seed 1, latency
 * 35.50 vs 35.25 cycles at 0.35 and accepted 0.291 vs 0.284 past
 * saturation at 0.55, islip vs separable_input_first; so it is not
 * refused, unlike dal, minad and updown_adaptive, whose priorities keep
 * them minimal). A packet may leave the escape VCs again at the next router:
 * the escape hop is recomputed at every router from where the packet is
 * (a packet that arrived on an escape VC of the same ring keeps its
 * direction and dateline class, as dor.c does; one that arrived on an
 * adaptive VC enters the ring afresh: shorter direction, class by whether
 * the rest of the ring crosses the wrap link).
 *
 * Deadlock freedom (Duato 1995, Theorem 1): the theorem assumes a VC
 * buffer never holds flits of two packets, so a head blocked in an
 * adaptive VC is at its front and can request the escape VC; init sets
 * needs_atomic_vcs and the engine refuses it without wait_for_tail_credit
 * = 1 (with BookSim's default reuse a 4-flit packet on 2-flit buffers
 * deadlocked a hypercube:n=4 in the watchdog test). The escape subfunction (DOR)
 * is connected, and its extended channel-dependency graph is acyclic.
 * Escape channels are used only as DOR supplies them (no cross
 * dependencies); the indirect dependencies (escape c1, then adaptive
 * hops, then escape c2) go to a DOR channel of a dimension not lower than
 * c1's, in the packet's minimal direction, and in the same dateline class
 * or from class 1 to class 0, never back. tests/unit/test_route_escape.c
 * builds the extended graph (direct and indirect dependencies) from every
 * path the function can produce on small instances and checks it is
 * acyclic; `dateline=0` (one escape VC on a torus, for study only) makes
 * the escape graph cyclic, and the same check finds it.
 */
#include <stddef.h>
#include <string.h>

#include "route/route.h"
#include "route/route_internal.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"
#include "topo/topo_hypercube.h"

static const char *const duato_families[] = {"torus", "mesh", "hypercube", "foldedhypercube", NULL};

struct duato_params {
	bool dateline;
};

static const struct param_def duato_params_def[] = {
	{"dateline", PARAM_BOOL, offsetof(struct duato_params, dateline), "1", 0, 0,
	 "two dateline escape VCs on tori; 0 = one escape VC, whose dependencies can close a cycle (for study)", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct duato_state {
	const struct topo_grid *grid;         /* torus, mesh */
	const struct topo_hypercube *hc;      /* hypercube, foldedhypercube */
	uint32_t esc;                         /* escape VCs: 0 .. esc-1 */
	bool rings;                           /* escape on rings uses dateline classes */
};

/* Only a torus has rings to split: elsewhere duato is the same whatever
 * dateline says, and reports itself as plain "duato". */
static bool duato_ignores(const char *param, const char *family)
{
	return !strcmp(param, "dateline") && strcmp(family, "torus");
}

/* dateline=0 keeps one escape VC instead of a torus ring's two; on a
 * mesh or hypercube the escape already has one ('duato:dateline=0' on a
 * hypercube ran as duato, silently). */
static const char *duato_noop(const void *params, const char *family)
{
	const struct duato_params *p = params;
	if (p->dateline || !duato_ignores("dateline", family))
		return NULL;
	return "dateline=0 does nothing here: datelines split a torus ring's escape VCs, and this network has no ring";
}

static int duato_init(struct route *r, struct nl_err *err)
{
	struct duato_state *s = r->state;
	const struct duato_params *p = r->params;
	s->grid = r->topo->grid;
	s->hc = topo_hypercube_of(r->topo);
	if (!s->grid && !s->hc)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'duato': topology '%s' has no grid or hypercube structure",
			       r->topo->ops->name);
	bool wraps = false;
	for (int d = 0; s->grid && d < s->grid->n_dims; d++)
		wraps |= s->grid->wrap[d];
	s->rings = wraps && p->dateline;
	s->esc = s->rings ? 2 : 1;
	if (r->n_vcs < s->esc + 1)
		return route_vcs_errf(r, err,
				      "routing function 'duato' needs num_vcs >= %u here (%u escape VC%s for dimension order%s, at least 1 adaptive; seed 003 uses 4), got %u",
				      s->esc + 1, s->esc, s->esc > 1 ? "s" : "", s->rings ? ", two dateline classes" : "",
				      r->n_vcs);
	r->needs_atomic_vcs = true;
	return 0;
}

static void duato_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			 uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* The escape hop: DOR port and escape VC. */
static uint32_t duato_escape(const struct duato_state *s, uint32_t router, uint32_t in_port, uint32_t in_vc,
			     struct route_pkt *p, struct rng *rng, uint8_t *vc)
{
	if (s->hc) {
		uint32_t diff = (router ^ p->dst_router) & ((1u << s->hc->n) - 1);
		uint32_t pc = (uint32_t)__builtin_popcount(diff);
		*vc = 0;
		/* Folded: the complement link first when it is shorter (port n). */
		if (s->hc->folded && 1 + (uint32_t)s->hc->n - pc < pc)
			return (uint32_t)s->hc->n;
		return (uint32_t)__builtin_ctz(diff);
	}
	/* An arrival on an escape VC continues its ring with its class (the
	 * VC it holds); anything else enters a ring afresh. */
	uint32_t from = in_port;
	if (in_vc < s->esc && in_port < 2u * (uint32_t)s->grid->n_dims)
		p->vc_class = (uint8_t)in_vc;
	else
		from = UINT32_MAX;
	int port = route_dor_next(s->grid, router, p->dst_router, from, rng, &p->vc_class);
	bool ring = s->rings && s->grid->wrap[port / 2];
	*vc = (uint8_t)(ring ? p->vc_class : 0);
	return (uint32_t)port;
}

static int16_t duato_prio(const struct route_view *v, uint32_t port, bool adaptive)
{
	uint32_t q = v ? route_view_port_occ(v, port) : 0;
	if (q > 8000)
		q = 8000;
	return (int16_t)(2 * (8000 - (int32_t)q) + adaptive);
}

static int duato_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			 struct route_pkt *p, struct rng *rng, const struct route_view *v,
			 struct route_cand *out)
{
	const struct duato_state *s = r->state;
	uint32_t ports[ROUTE_MAX_CANDS - 1];

	if (router == p->dst_router)
		return route_eject(r, p, out);
	uint32_t n = topo_min_ports(r->topo, router, p->dst_router, 0, ports, ROUTE_MAX_CANDS - 1);
	if (n > ROUTE_MAX_CANDS - 1)
		n = ROUTE_MAX_CANDS - 1;
	for (uint32_t i = 0; i < n; i++) {
		out[i].port = (uint16_t)ports[i];
		out[i].vc_lo = (uint8_t)s->esc;
		out[i].vc_hi = (uint8_t)(r->n_vcs - 1);
		out[i].prio = duato_prio(v, ports[i], true);
	}
	uint8_t vc;
	uint32_t ep = duato_escape(s, router, in_port, in_vc, p, rng, &vc);
	out[n].port = (uint16_t)ep;
	out[n].vc_lo = out[n].vc_hi = vc;
	out[n].prio = duato_prio(v, ep, false);
	return (int)n + 1;
}

const struct route_ops route_duato_ops = {
	.name = "duato",
	.help = "Duato's fully adaptive minimal routing with a dimension-order escape VC set (2 dateline VCs on tori, 1 elsewhere) on tori, meshes, hypercubes (Duato 1995; seed 003 6.1), needs wait_for_tail_credit = 1",
	.params = duato_params_def,
	.params_size = sizeof(struct duato_params),
	.state_size = sizeof(struct duato_state),
	.families = duato_families,
	.is_deterministic = false,
	.init = duato_init,
	.noop = duato_noop,
	.ignores = duato_ignores,
	.inject = duato_inject,
	.compute = duato_compute,
};
