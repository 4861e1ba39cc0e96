/* dest_tag: destination-tag routing on the k-ary n-fly, "dest_tag"
 * (Dally & Towles §4.2; BookSim2's dest_tag_fly).
 *
 * Stage s of a butterfly takes the output port given by digit n-1-s of
 * the destination in base k. netloom's fly has n = 1 (emu/topo/fly.c), so
 * the one digit is the destination itself: the packet leaves the crossbar
 * on its destination's terminal port, on any VC, as BookSim's function
 * gives every VC. Deadlock freedom: every route is one router and its
 * ejection channel, so no channel waits on another router's channel and
 * the channel-dependency graph has no edges.
 */
#include <stddef.h>

#include "route/route.h"
#include "route/route_internal.h"

#include "core/error.h"
#include "topo/topo.h"

static const char *const dest_tag_families[] = {"fly", NULL};

static const struct param_def dest_tag_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int dest_tag_init(struct route *r, struct nl_err *err)
{
	(void)err;
	r->max_cands = 1;
	return 0;
}

static void dest_tag_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			    uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int dest_tag_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			    struct route_pkt *p, struct rng *rng, const struct route_view *v,
			    struct route_cand *out)
{
	(void)router;
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;
	return route_eject(r, p, out);
}

const struct route_ops route_dest_tag_ops = {
	.name = "dest_tag",
	.help = "destination-tag routing on the k-ary n-fly (Dally & Towles 4.2; BookSim2 dest_tag_fly)",
	.params = dest_tag_params,
	.families = dest_tag_families,
	.is_deterministic = true,
	.init = dest_tag_init,
	.inject = dest_tag_inject,
	.compute = dest_tag_compute,
};
