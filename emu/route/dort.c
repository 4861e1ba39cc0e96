/* dort: DORT, dimension-order routing on the nD twin torus, "dort".
 *
 * Andujar et al. (seed 004) §II-B: dimensions are corrected in ascending
 * order (the shorter way round each ring; on a k/2 tie in the split
 * dimension the direction whose port is on the current card, elsewhere
 * one fixed per flow by a hash of source and destination); when the chosen port is on the other card of the node the packet
 * crosses the internal link first, and at the destination node it crosses
 * it to reach the other PE. The paper notes EXTOLL cards cannot run it
 * (too few VCs on the internal link), so it has no figure to match.
 *
 * VCs (§II-B): external links two dateline classes, each half of the VCs
 * (class 1 while the rest of the packet's traversal of this ring crosses
 * the wrap link, recomputed at every hop, so a packet drops to class 0
 * after the wrap; class 0 never uses a wrap link, class 1 never continues
 * past one). The internal link four, a quarter of the VCs each: case i
 * (to the other card's PE), case ii (to a dimension on the other card),
 * and case iii (travelling the split dimension d_(n-1)/2) in its two
 * dateline classes. Needs num_vcs a multiple of 4. Deadlock freedom:
 * dimension order orders the external channels, the datelines break each
 * ring, and the internal link's uses are split by case so none closes a
 * cycle; the registry's conformance test checks the channel-dependency
 * graph is acyclic on every path (deterministic: ties are fixed).
 */
#include "route/route.h"
#include "route/ndt_common.h"

#include "core/error.h"
#include "core/rng.h"
#include "topo/topo.h"

static const char *const dort_families[] = {"ndt", NULL};

static int dort_init(struct route *r, struct nl_err *err)
{
	return ndt_route_init(r, "internal link: 4 VC classes, seed 004 §II-B", err);
}

static void dort_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo, uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int dort_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct topo_ndt *nv = topo_ndt_of(r->topo);
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;
	struct ndt_step s = ndt_next(nv, router, p->dst_router, false, -1, ndt_flow_hash(r, p));
	if (s.kind == NDT_EJECT)
		return route_eject(r, p, out);
	uint32_t V = r->n_vcs, lo, w;
	switch (s.kind) {
	case NDT_EXTERNAL:
		w = V / 2;
		lo = (uint32_t)s.cls * w;
		break;
	case NDT_TO_PE:
		w = V / 4;
		lo = 0;
		break;
	case NDT_TO_DIM:
		w = V / 4;
		lo = w;
		break;
	default: /* NDT_IN_SPLIT */
		w = V / 4;
		lo = (2 + (uint32_t)s.cls) * w;
		break;
	}
	return ndt_cand(out, s.port, lo, w);
}

const struct route_ops route_dort_ops = {
	.name = "dort",
	.help = "DORT: dimension-order routing on the nD twin torus, internal link with 4 VC classes (seed 004 II-B)",
	.families = dort_families,
	.is_deterministic = true,
	.init = dort_init,
	.inject = dort_inject,
	.compute = dort_compute,
};
