/* dor: dimension-order routing on meshes and tori, "dor".
 *
 * Dally & Towles §14.2; the torus variant follows BookSim2's
 * dim_order_torus so results compare side by side: dimensions are
 * corrected lowest first; on entering a ring the direction is the shorter
 * way (a random one when both are k/2 hops), and the packet's whole
 * traversal of that ring uses VC class 1 if it will cross the dateline
 * between coordinates k-1 and 0, class 0 otherwise. Each class is half of
 * the VCs. Deadlock freedom: on a ring, class-1 paths all contain the wrap
 * channel and are at most k/2 hops long, so no class-1 path uses the
 * channel half a ring away from the dateline and neither class's channel
 * dependencies close a cycle; dimension order removes cycles across
 * dimensions. On a mesh every VC may be used (dimension order alone is
 * acyclic); on BookSim2's concentrated mesh (cmesh) too, which is its
 * dor_no_express_cmesh: x first, then y, every VC, never the express
 * channels. The ejection hop may use every VC. dateline=0 drops the
 * classes on rings too, for studying deadlock: a torus can then deadlock,
 * and the watchdog reports it.
 */
#include <stddef.h>
#include <string.h>

#include "route/route.h"
#include "route/route_internal.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

static const char *const dor_families[] = {"torus", "mesh", "cmesh", NULL};

struct dor_params {
	bool dateline; /* split VCs into dateline classes on rings */
};

static const struct param_def dor_params[] = {
	{"dateline", PARAM_BOOL, offsetof(struct dor_params, dateline), "1", 0, 0,
	 "dateline VC classes on rings; 0 lets every hop use every VC, which can deadlock a torus", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int dor_init(struct route *r, struct nl_err *err)
{
	const struct topo_grid *g = r->topo->grid;
	bool wraps = false;

	if (!g)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'dor': topology '%s' has no grid structure",
			       r->topo->ops->name);
	const struct dor_params *p = r->params;
	for (int d = 0; d < g->n_dims; d++)
		wraps |= g->wrap[d];
	if (wraps && p->dateline && (r->n_vcs < 2 || r->n_vcs % 2))
		return route_vcs_errf(r, err,
				      "routing function 'dor' on a torus needs an even num_vcs >= 2 (two dateline classes), got %u",
				      r->n_vcs);
	r->max_cands = 1;
	return 0;
}

/* A mesh or cmesh has no ring: its dor is the same whatever dateline
 * says, and reports itself as plain "dor". */
static bool dor_ignores(const char *param, const char *family)
{
	return !strcmp(param, "dateline") && strcmp(family, "torus");
}

/* dateline=0 drops the ring classes; a mesh or cmesh has no ring, so
 * every hop already uses every VC ('dor:dateline=0' on a mesh ran as
 * dor, silently). */
static const char *dor_noop(const void *params, const char *family)
{
	const struct dor_params *p = params;
	if (p->dateline || !dor_ignores("dateline", family))
		return NULL;
	return "dateline=0 does nothing here: datelines split a torus ring's VCs, and this network has no ring";
}

static void dor_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
		       uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

int route_dor_next(const struct topo_grid *g, uint32_t cur, uint32_t dst, uint32_t in_port,
		   struct rng *rng, uint8_t *vc_class)
{
	int d;
	/* Most hops continue along the ring they are on: lower dimensions are
	 * already corrected, so one compare decides. */
	if (in_port < 2u * (uint32_t)g->n_dims) {
		int d0 = (int)(in_port / 2);
		if (topo_grid_coord(g, cur, d0) != topo_grid_coord(g, dst, d0))
			return (int)(in_port ^ 1u);
	}
	for (d = 0; d < g->n_dims; d++)
		if (topo_grid_coord(g, cur, d) != topo_grid_coord(g, dst, d))
			break;
	if (d == g->n_dims)
		return -1;
	/* Continuing along the same ring keeps direction and class. */
	if (in_port < 2u * (uint32_t)g->n_dims && (int)(in_port / 2) == d)
		return (int)(in_port ^ 1u);
	uint32_t k = g->k[d], c = topo_grid_coord(g, cur, d), t = topo_grid_coord(g, dst, d);
	if (!g->wrap[d]) {
		*vc_class = 0;
		return t > c ? 2 * d : 2 * d + 1;
	}
	int64_t dist2 = (int64_t)k - 2 * (int64_t)((t - c + k) % k);
	bool right = dist2 > 0 || (dist2 == 0 && (rng_u64(rng) & 1));
	if (right) {
		*vc_class = c > t;
		return 2 * d;
	}
	*vc_class = t > c;
	return 2 * d + 1;
}

static int dor_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		       struct route_pkt *p, struct rng *rng, const struct route_view *v,
		       struct route_cand *out)
{
	const struct topo_grid *g = r->topo->grid;
	(void)in_vc;
	(void)v;
	int port = route_dor_next(g, router, p->dst_router, in_port, rng, &p->vc_class);
	if (port < 0)
		return route_eject(r, p, out);
	const struct dor_params *pr = r->params;
	out->port = (uint16_t)port;
	out->prio = 0;
	bool wraps = g->wrap[port / 2] && pr->dateline;
	if (!wraps) {
		out->vc_lo = 0;
		out->vc_hi = (uint8_t)(r->n_vcs - 1);
	} else {
		uint32_t half = r->n_vcs / 2;
		out->vc_lo = (uint8_t)(p->vc_class ? half : 0);
		out->vc_hi = (uint8_t)(out->vc_lo + half - 1);
	}
	return 1;
}

const struct route_ops route_dor_ops = {
	.name = "dor",
	.help = "dimension-order routing; torus rings with BookSim-style dateline VC classes (Dally & Towles 14.2)",
	.params = dor_params,
	.params_size = sizeof(struct dor_params),
	.families = dor_families,
	.is_deterministic = false, /* the k/2 tie is broken at random */
	.init = dor_init,
	.noop = dor_noop,
	.ignores = dor_ignores,
	.inject = dor_inject,
	.compute = dor_compute,
};
