/* valiant: Valiant's randomised routing on meshes, tori and the HyperX
 * family (every family publishing the HyperX view: hyperx, flatfly, full,
 * hypercube), "valiant".
 *
 * Valiant & Brebner (1981); Dally & Towles §14.1. Each packet goes by
 * dimension order to an intermediate router chosen uniformly at random
 * (topo_valiant_router: all routers, as BookSim2's valiant_torus), then
 * by dimension order to its destination. VC classes follow BookSim2: on a torus the VCs are split
 * in half by dateline partition and each half in two by phase (num_vcs a
 * multiple of 4); on a mesh in two by phase. Deadlock freedom: each phase
 * is dimension-order routing on its own VC classes (see dor.c), and phase
 * 0 only ever waits on phase 0 or phase 1 channels, never the reverse.
 *
 * On the HyperX family (seed 001 §3.3: "routes all packets through an
 * intermediate node chosen at random with uniform probability") each
 * phase is dimension-order routing (lowest offset dimension first, the
 * least occupied trunk when links are trunked) and the VCs are split in
 * two by phase (num_vcs even: seed 001 §4.1's 6 VCs give 3 per phase; the
 * paper does not say how Valiant uses its 3 sets of 2); each half is
 * acyclic (one hop per dimension, increasing) and phase 0 only waits on
 * phase 1. A full graph is that HyperX with L = 1 (at most 2 hops); on a
 * hypercube (S = 2) each phase is bit fixing, lowest bit first.
 *
 * `shortcut = 1` is BookSim2's valiant_flatfly (flatfly_onchip.cpp): a
 * packet that reaches its destination router on the way to the
 * intermediate ejects there instead of going on (phase 1 starts at the
 * intermediate *or* the destination router). It only removes hops, so
 * the argument above holds. BookSim2's valiant_torus has no shortcut:
 * `--from-booksim` sets it for the flatfly alone.
 */
#include "route/route.h"

#include <stddef.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/hyperx_route.h"
#include "route/route_internal.h"
#include "topo/topo.h"

/* Tori and meshes by name; the HyperX family by its view (topo_views). */
static const char *const valiant_families[] = {"torus", "mesh", NULL};

struct valiant_params {
	int64_t shortcut; /* 1: phase 1 also starts at the destination router */
};

static const struct param_def valiant_params[] = {
	{"shortcut", PARAM_INT, offsetof(struct valiant_params, shortcut), "0", 0, 1,
	 "1: a packet that meets its destination router on the way to the intermediate ejects there (BookSim2's valiant_flatfly)",
	 NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct valiant_state {
	bool wraps; /* some dimension is a ring */
	const struct topo_hyperx *hx; /* the HyperX family: its view, else NULL */
};

static int valiant_init(struct route *r, struct nl_err *err)
{
	const struct topo_grid *g = r->topo->grid;
	struct valiant_state *s = r->state;

	s->hx = topo_hyperx_of(r->topo);
	if (s->hx) {
		if (r->n_vcs < 2 || r->n_vcs % 2)
			return route_vcs_errf(r, err,
					      "routing function 'valiant' on the HyperX family needs an even num_vcs >= 2 (one half per phase), got %u",
					      r->n_vcs);
		r->max_cands = 1;
		return 0;
	}
	if (!g)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'valiant': topology '%s' has no grid structure",
			       r->topo->ops->name);
	for (int d = 0; d < g->n_dims; d++)
		s->wraps |= g->wrap[d];
	if (s->wraps && (r->n_vcs < 4 || r->n_vcs % 4))
		return route_vcs_errf(r, err,
				      "routing function 'valiant' on a torus needs num_vcs a multiple of 4 (2 phases x 2 dateline classes), got %u",
				      r->n_vcs);
	if (!s->wraps && (r->n_vcs < 2 || r->n_vcs % 2))
		return route_vcs_errf(r, err,
				      "routing function 'valiant' on a mesh needs an even num_vcs >= 2 (one class per phase), got %u",
				      r->n_vcs);
	r->max_cands = 1;
	return 0;
}

static void valiant_inject(const struct route *r, struct route_pkt *p, struct rng *rng,
			   uint8_t *vc_lo, uint8_t *vc_hi)
{
	p->inter = topo_valiant_router(r->topo, route_src_router(r, p), p->dst_router, rng);
	p->phase = 0;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int valiant_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			   struct route_pkt *p, struct rng *rng, const struct route_view *v,
			   struct route_cand *out)
{
	const struct topo_grid *g = r->topo->grid;
	const struct valiant_state *s = r->state;
	const struct valiant_params *pr = r->params;
	(void)in_vc;
	(void)v;

	if (p->phase == 0 && (router == p->inter || (pr->shortcut && router == p->dst_router))) {
		/* Phase 1 starts as if freshly injected: a new ring class. */
		p->phase = 1;
		in_port = UINT32_MAX;
	}
	uint32_t target = p->phase == 0 ? p->inter : p->dst_router;
	if (s->hx) {
		if (router == target)
			return route_eject(r, p, out);
		uint32_t m = r->n_vcs / 2, lo = p->phase ? m : 0, occ;
		uint32_t hp = hxr_dor_port(s->hx, v, router, target, lo, lo + m - 1, &occ);
		*out = (struct route_cand){.port = (uint16_t)hp, .vc_lo = (uint8_t)lo, .vc_hi = (uint8_t)(lo + m - 1),
					   .prio = 0};
		return 1;
	}
	int port = route_dor_next(g, router, target, in_port, rng, &p->vc_class);
	if (port < 0)
		return route_eject(r, p, out);
	out->port = (uint16_t)port;
	out->prio = 0;
	uint32_t lo = 0, width = r->n_vcs;
	if (s->wraps) {
		width /= 2;
		lo += g->wrap[port / 2] && p->vc_class ? width : 0;
	}
	width /= 2;
	lo += p->phase ? width : 0;
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(lo + width - 1);
	return 1;
}

const struct route_ops route_valiant_ops = {
	.name = "valiant",
	.help = "Valiant randomised routing: DOR to a random intermediate router, then DOR (Valiant & Brebner 1981)",
	.params = valiant_params,
	.params_size = sizeof(struct valiant_params),
	.state_size = sizeof(struct valiant_state),
	.families = valiant_families,
	.topo_views = TOPO_VIEW_HYPERX,
	.is_deterministic = false,
	.init = valiant_init,
	.inject = valiant_inject,
	.compute = valiant_compute,
};
