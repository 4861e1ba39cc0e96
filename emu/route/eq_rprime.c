/* Equality routing (seed 002 §3.4-3.5): the relative routing table R' and
 * the routing step shared by amin (amin.c), eq_ugal (eq_ugal.c) and bgal
 * (bgal.c).
 *
 * R' (§3.4). Router 0's shortest paths to every router j give R^; Remark 2
 * (r -> r + 2t and r -> 1 - r are automorphisms, eq. 2) carries them to
 * any pair (a, b) through the relative target j = (b - a) mod N for even
 * a, (a - b) mod N for odd a, with port i of a in the role of port i of
 * router 0. So a row per j serves every router: O(N x K) bits in all,
 * never a per-pair table (issue 16 runs amin on the 64,000-router
 * n64000k64p16). Each row holds
 *  - min_mask: ports i whose neighbour off[i] is one hop closer to j (the
 *    first hops of every shortest path, R^);
 *  - sub_mask, L_0j: the sub-shortest first hops. §3.4 reads "check all
 *    neighbours r_k not on the shortest paths, find the distances d_0k,
 *    pick those with d_0k >= d_0j and collect those where d_0k is
 *    minimal". Taken literally d_0k is 1 for every neighbour; we read it
 *    as the neighbour's distance to the target, d(r_k, r_j): a neighbour
 *    off a shortest path has d(r_k, r_j) >= d(r_0, r_j), and L_0j is the
 *    ones where it is least, so a sub-shortest path is 1 + that many hops
 *    (d + 1 when some neighbour is as far as r_0, else d + 2);
 *  - sub_hops: that length; n_paths: the number of shortest paths 0 -> j
 *    (what bgal compares with its threshold), counted in BFS order,
 *    saturated at 255.
 *
 * The step (§3.5). Every hop of amin, and every hop after the first of
 * ugal/bgal, takes a minimal port (R^ row): the one whose output queue
 * (occupancy of its downstream buffers over its VCs, BookSim's
 * GetUsedCredit) is least, ties at random. At the source router ugal
 * weighs every shortest first hop and every L_0j first hop by queue x
 * path length (the paper's "products of the paths' queue length and hop
 * distance", Singh's UGAL-L) and takes the least, the shorter path on
 * equal products (so an idle network routes minimally); bgal does the same but
 * drops L_0j when the pair has more than `threshold` shortest paths (§3.5.3:
 * only the bottleneck pairs, those with few shortest paths, may detour).
 * A detour's path is one hop to r_k then minimal, so nothing is carried in
 * the packet beyond the hop count the engine keeps.
 *
 * VCs (§3.5 "Deadlocks"): VC k on hop k, so every channel dependency goes
 * from class k to class k + 1 and the channel-dependency graph is acyclic
 * (Dally & Seitz; the paper's [20, 21]). A configuration needs as many VC
 * classes as its longest route: amin the diameter d, ugal and bgal the
 * paper's count, 4 for d = 2 and d + 1 for d >= 3 (our R' never routes
 * longer: a sub-shortest path is at most d + 1 hops since every neighbour
 * is within d of the target); fewer are refused. With more VCs each class
 * gets num_vcs / classes of them (the paper uses exactly that many, one
 * each). The ejection hop may use every VC (a sink).
 */
#include "route/eq_rprime.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route_internal.h"
#include "topo/topo.h"

int eq_rprime_build(struct eq_rprime *rp, const struct topo *t, const char *name, struct nl_err *err)
{
	const struct topo_equality *eq = topo_equality_of(t);
	memset(rp, 0, sizeof *rp);
	if (!eq)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function '%s' runs on Equality networks only, not '%s'",
			       name, t->ops->name);
	uint32_t N = eq->N, K = eq->K;
	rp->eq = eq;
	rp->words = (K + 63) / 64;
	rp->min_mask = calloc((size_t)N * rp->words, sizeof *rp->min_mask);
	rp->sub_mask = calloc((size_t)N * rp->words, sizeof *rp->sub_mask);
	rp->sub_hops = calloc(N, 1);
	rp->n_paths = calloc(N, 1);
	if (!rp->min_mask || !rp->sub_mask || !rp->sub_hops || !rp->n_paths) {
		eq_rprime_release(rp);
		return nl_errf(err, NL_ENOMEM, "routing function '%s': out of memory for R' (%u x %u bits)", name, N, K);
	}
	for (uint32_t j = 0; j < N; j++)
		if (eq->dist0[j] > rp->diameter)
			rp->diameter = eq->dist0[j];
	if (rp->diameter > 250) {
		eq_rprime_release(rp);
		return nl_errf(err, NL_EINVAL, "routing function '%s': diameter %u is more than 250 hops", name,
			       rp->diameter);
	}
	for (uint32_t j = 1; j < N; j++) {
		uint32_t d = eq->dist0[j], best = UINT32_MAX;
		uint64_t *mm = rp->min_mask + (size_t)j * rp->words, *sm = rp->sub_mask + (size_t)j * rp->words;
		for (uint32_t i = 0; i < K; i++) {
			uint32_t dk = topo_equality_distance(eq, eq->offset[i], j);
			if (dk + 1 == d)
				mm[i / 64] |= 1ull << (i % 64);
			else if (dk < best)
				best = dk;
		}
		if (best == UINT32_MAX)
			continue; /* every neighbour is on a shortest path: no detour */
		for (uint32_t i = 0; i < K; i++)
			if (topo_equality_distance(eq, eq->offset[i], j) == best)
				sm[i / 64] |= 1ull << (i % 64);
		rp->sub_hops[j] = (uint8_t)(best + 1);
		if (best + 1 > rp->max_sub_hops)
			rp->max_sub_hops = best + 1;
	}
	/* Shortest-path counts, by increasing distance: the paths 0 -> j are
	 * those through each minimal first hop off[i], as many as off[i] has
	 * to j, which is the count of its relative target. */
	rp->n_paths[0] = 1;
	for (uint32_t d = 1; d <= rp->diameter; d++)
		for (uint32_t j = 1; j < N; j++) {
			if (eq->dist0[j] != d)
				continue;
			uint32_t c = 0;
			const uint64_t *mm = rp->min_mask + (size_t)j * rp->words;
			for (uint32_t i = 0; i < K; i++)
				if (mm[i / 64] >> (i % 64) & 1)
					c += rp->n_paths[eq_rprime_rel(rp, eq->offset[i], j)];
			rp->n_paths[j] = (uint8_t)(c > 255 ? 255 : c);
		}
	return 0;
}

void eq_rprime_release(struct eq_rprime *rp)
{
	free(rp->min_mask);
	free(rp->sub_mask);
	free(rp->sub_hops);
	free(rp->n_paths);
	rp->min_mask = rp->sub_mask = NULL;
	rp->sub_hops = rp->n_paths = NULL;
}

int eq_route_init(struct route *r, struct eq_route *s, bool adaptive_src, uint32_t threshold, struct nl_err *err)
{
	NL_CHECK(eq_rprime_build(&s->rp, r->topo, r->ops->name, err));
	uint32_t d = s->rp.diameter ? s->rp.diameter : 1;
	uint32_t need = adaptive_src ? (d == 2 ? 4 : d + 1) : d;
	if (adaptive_src && s->rp.max_sub_hops > need)
		NL_BUG("Equality R' has a %u-hop sub-shortest path, diameter %u", s->rp.max_sub_hops, d);
	if (r->n_vcs < need)
		return route_vcs_errf(r, err,
				      "routing function '%s' needs num_vcs >= %u on this Equality network (VC k on hop k, seed 002 §3.5: %s), got %u",
				      r->ops->name, need,
				      adaptive_src ? (d == 2 ? "4 for diameter 2" : "diameter + 1 for diameter >= 3")
						   : "the diameter",
				      r->n_vcs);
	s->class_w = r->n_vcs / need;
	s->threshold = threshold;
	s->adaptive_src = adaptive_src;
	r->max_cands = 1;
	r->port_sums = true; /* every hop reads each minimal port's queue */
	r->keyed_draws = true; /* ties are its only draws; it writes only the packet */
	return 0;
}

void eq_route_release(struct route *r)
{
	struct eq_route *s = r->state;
	eq_rprime_release(&s->rp);
}

void eq_route_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo, uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

int eq_route_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		     struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct eq_route *s = r->state;
	const struct eq_rprime *rp = &s->rp;
	(void)in_port;
	(void)in_vc;

	if (router == p->dst_router)
		return route_eject(r, p, out);
	uint32_t j = eq_rprime_rel(rp, router, p->dst_router);
	const uint64_t *mm = rp->min_mask + (size_t)j * rp->words, *sm = rp->sub_mask + (size_t)j * rp->words;
	bool detour = s->adaptive_src && p->hops == 0 && rp->sub_hops[j] &&
		      (s->threshold == UINT32_MAX || rp->n_paths[j] <= s->threshold);
	uint64_t best = UINT64_MAX, best_h = UINT64_MAX;
	uint32_t pick = 0, ties = 0;
	/* Loop invariants in locals: the stores of rng_below may alias the
	 * tables for the compiler, which would read them again per port. */
	const uint64_t h_min = rp->eq->dist0[j], h_sub = rp->sub_hops[j];
	const uint32_t *const psum = v && v->gpocc && !v->gpend ? v->gpocc + v->port_base : NULL;
	/* The candidates' bits in port order (a row holds a few of the K
	 * ports: walking the set bits, not K, is what a 64-port router's hop
	 * costs at saturation, when every flit-hop routes). */
	for (uint32_t w = 0; w < rp->words; w++) {
		const uint64_t mw = mm[w], sw = detour ? sm[w] : 0;
		for (uint64_t bits = mw | sw; bits; bits &= bits - 1) {
			const uint32_t b = (uint32_t)__builtin_ctzll(bits), i = w * 64 + b;
			const uint64_t h = (mw >> b & 1) ? h_min : h_sub;
			/* amin weighs queues alone (every candidate is h hops). */
			const uint64_t q = psum ? psum[i] : v ? route_view_port_occ(v, i) : 0;
			uint64_t c = q * (s->adaptive_src ? h : 1);
			/* Equal products prefer the shorter path (an idle network
			 * routes minimally, as UGAL's q_min h_min <= q_nm h_nm
			 * does), then a random one. */
			if (c < best || (c == best && h < best_h)) {
				best = c;
				best_h = h;
				pick = i;
				ties = 1;
			} else if (c == best && h == best_h && rng_below(rng, ++ties) == 0) {
				pick = i;
			}
		}
	}
	uint32_t lo = (uint32_t)p->hops * s->class_w;
	out->port = (uint16_t)pick;
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(lo + s->class_w - 1);
	out->prio = 0;
	return 1;
}
