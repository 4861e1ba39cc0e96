/* tsdor: TS-DOR, twin-source dimension-order routing on the nD twin torus,
 * "tsdor".
 *
 * Andujar et al. (seed 004) §III. Packets sourced at PE0 (card 0) correct
 * dimensions d_0 .. d_(n-1), packets sourced at PE1 (card 1) d_(n-1) ..
 * d_0, which spares most PE1 packets the internal link. The two kinds are
 * kept apart in separate VC sets, as the paper does with EXTOLL's traffic
 * classes (two TCs per source card): PE0-sourced packets use the lower
 * half of the VCs, PE1-sourced the upper half (netloom's [router]
 * traffic_classes partition VCs by the class set at injection, which the
 * routing function does not choose; the halves are the same partition
 * inside one class). Within a half, two deterministic VC classes: on
 * external links the dateline class (as dort.c: 1 while the rest of the
 * ring crosses the wrap link); on the internal link, travelling the split
 * dimension d_(n-1)/2, the paper's rule literally: the upper VC when the
 * destination's d_(n-1)/2 coordinate is greater than the current node's,
 * else the lower (using the dateline class of that ring hop instead
 * leaves a cycle on ndt:k=3x4x3, which tests/unit/test_route_ndt.c finds),
 * and for any other
 * reason the upper VC from card 0 to card 1 and the lower from card 1 to
 * card 0. The tie rule: when the split dimension has even k and the
 * destination is k/2 away, PE0-sourced packets take d^- and PE1-sourced
 * d^+ (Fig. 4); other dimensions take a direction fixed per flow by a
 * hash of source and destination (on the k = 2 rings of the paper's 5DT
 * shapes both ports reach the same neighbour: always + idled half of
 * those links, 0.36 accepted against the 3D torus's 0.52 at 256 PEs).
 *
 * Needs num_vcs a multiple of 4 (2 sources x 2 classes; the paper's 5DT
 * uses 4 TCs of which 2 deterministic VCs each). Deadlock freedom: the
 * halves share no VC; within a half, dimension order plus datelines as in
 * DOR, and the internal link's classes per §III; the registry's
 * conformance walk checks the channel-dependency graph is acyclic.
 */
#include "route/route.h"
#include "route/ndt_common.h"

#include "core/error.h"
#include "core/rng.h"
#include "route/route_internal.h"
#include "topo/topo.h"

static const char *const tsdor_families[] = {"ndt", NULL};

static int tsdor_init(struct route *r, struct nl_err *err)
{
	return ndt_route_init(r, "PE0/PE1-sourced halves x 2 classes, seed 004 §III", err);
}

static void tsdor_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			 uint8_t *vc_hi)
{
	(void)rng;
	uint32_t half = r->n_vcs / 2;
	*vc_lo = (uint8_t)((route_src_router(r, p) & 1) * half);
	*vc_hi = (uint8_t)(*vc_lo + half - 1);
}

static int tsdor_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			 struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct topo_ndt *nv = topo_ndt_of(r->topo);
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;
	uint32_t pe1 = route_src_router(r, p) & 1;
	struct ndt_step s = ndt_next(nv, router, p->dst_router, pe1, pe1 ? 0 : 1, ndt_flow_hash(r, p));
	if (s.kind == NDT_EJECT)
		return route_eject(r, p, out);
	uint32_t half = r->n_vcs / 2, w = half / 2, cls;
	if (s.kind == NDT_EXTERNAL)
		cls = (uint32_t)s.cls;
	else if (s.kind == NDT_IN_SPLIT)
		cls = ndt_coord(nv, p->dst_router / 2, s.dim) > ndt_coord(nv, router / 2, s.dim);
	else
		cls = (router & 1) == 0; /* card 0 -> 1: upper; 1 -> 0: lower */
	uint32_t lo = pe1 * half + cls * w;
	return ndt_cand(out, s.port, lo, w);
}

const struct route_ops route_tsdor_ops = {
	.name = "tsdor",
	.help = "TS-DOR: PE0-sourced packets d0..dn-1, PE1-sourced dn-1..d0, in separate VC halves, on the nD twin torus (seed 004 III)",
	.families = tsdor_families,
	.is_deterministic = true,
	.init = tsdor_init,
	.inject = tsdor_inject,
	.compute = tsdor_compute,
};
