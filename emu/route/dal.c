/* dal: Dimensionally-Adaptive, Load-balanced routing on the HyperX,
 * "dal:block=1,queue=0,dqueue=0" (seed 001's Fig. 6 script:
 * dal:block=0,queue=2,dqueue=3; Fig. 7's: dal:block=0,queue=2).
 * Runs on every family publishing the HyperX view (hyperx, flatfly, full,
 * hypercube). A hypercube has S = 2 in every dimension: no coordinate is
 * neither the router's nor the destination's, so step 3 never applies and
 * DAL routes there as Min-AD does.
 *
 * Ahn et al., SC09 (seed 001) §3.3, the four steps:
 *  1. all offset dimensions are deroutable at the source;
 *  2. at a switch, an offset dimension with an unblocked path to an
 *     aligned switch in that dimension (a minimal hop) is taken;
 *  3. if none, an unmarked (still deroutable) offset dimension with an
 *     unblocked switch that is still offset from the destination: route
 *     there and mark the dimension;
 *  4. else the packet goes into the minimal, dimension-order VC.
 *
 * Where: at every router. What it reads: the local view, per VC.
 * Step 2 is Min-AD's tier (hyperx_route.h, hxr_pick: per offset dimension
 * the least occupied trunk that is not blocked, by the credit rule
 * `block` or the local-backlog rule `queue`, struct hxr_block; a
 * dimension with none is blocked),
 * less occupied first. Step 3: per unmarked offset dimension the least occupied
 * unblocked port to a coordinate that is neither the router's nor the
 * destination's (scanning from a random coordinate), at a lower priority
 * than every step-2 candidate, so the VC allocator takes a deroute only
 * when no minimal port has a free adaptive VC at the moment it allocates
 * (the view at route computation may be stale by then). The step-4 escape (the dimension-order port on the escape VCs) is
 * always the last, lowest-priority candidate. The VC allocator takes the
 * highest priority with a free VC, so it must be a by-priority allocator
 * (separable_input_first / separable_output_first; route_ops.
 * needs_priority_alloc, the engine refuses islip, whose round robin took
 * deroutes at zero load: 2.11 hops on hyperx:s=4x4,t=2, minimal 1.46).
 *
 * Step 3's "unblocked switch" may have a queue threshold of its own,
 * `dqueue` (0, the default: `queue`'s), as §3.3 states neither rule; the
 * credit rule `block` is the same for both steps. The Fig. 6 script runs
 * dal:block=0,queue=2,dqueue=3: a minimal port is blocked at 2 flits
 * routed to it here and not yet sent, a deroute port at 3. Why, measured
 * (docs/validation.md, "DAL on bitcomp with the fast router", 2026-11-29):
 * on bitcomp every switch sends everything to one switch offset in every
 * dimension, and the links balance only when 3/4 of the packets (S = 8;
 * 1/2 at S = 4) deroute in each dimension. With one threshold DAL
 * deroutes more than that in the dimensions it meets first and less in
 * the last (paper size, router `fast`: 80, 77, 72 % in dimensions 0, 1,
 * 2), whose direct links saturate (1.01 flits/cycle, dimension 0's 0.76;
 * all links 0.92): DAL 0.456 against Valiant's 0.494. dqueue=3 lets
 * packets waiting for a saturated minimal port deroute over ports that
 * already hold a routed flit: 0.487 (0.99x Valiant) at paper size, 0.479
 * (0.97x) on the 256-endpoint network; dqueue 4 or more deroutes too much
 * there (0.461; 8: 0.405), a higher minimal threshold alone (queue=3)
 * does not help (0.467), nor does ranking every minimal port above every
 * deroute (0.495 there, 0.417 at paper size), a random deroute coordinate
 * (0.461) or up to 4 deroute candidates per dimension (0.471). With
 * dqueue=3 every Fig. 6 check holds with the fast router at both sizes,
 * and with the §4.1 router bitcomp rises to 1.00x Valiant at paper size
 * (0.954x) while bitrot and transpose stay above 1.05x.
 *
 * Per-packet state: the marked dimensions, one bit per dimension in
 * route_pkt.vc_class (so at most 8 dimensions). The mark is set where it
 * is known for sure, at the next router: a packet that arrived over a
 * port of dimension d and is still offset in d was derouted in d (a
 * minimal or escape hop in d aligns it, and no hop ever unaligns an
 * aligned dimension). The paper's "once a packet comes into alignment with
 * the destination in a certain dimension it remains there" and "it may
 * deroute just once per dimension" hold: paths are at most 2 x (offset
 * dimensions) hops.
 *
 * VCs (§4.1: 3 sets of 2 VCs, one of each set reserved for deadlock
 * avoidance in Min-AD and DAL): num_vcs = 2m, even; VCs 0..m-1 adaptive
 * (steps 2 and 3), m..2m-1 escape (step 4); seed 001 uses 6.
 *
 * Deadlock freedom (§3.3: "Dimension-order routing, and therefore DAL, is
 * deadlock free; the virtual channel used as a last resort is used to
 * prevent deadlock"; Duato's theorem): the escape sub-function is
 * dimension-order routing on the escape VCs, connected, and always a
 * candidate. A deroute only moves within an offset dimension and every
 * other hop aligns one, so an aligned dimension stays aligned. A packet
 * on an escape channel of dimension d has every dimension below d
 * aligned and, after the hop, d too; every escape channel it can use
 * later, directly or after adaptive hops (minimal or deroutes, which only
 * touch offset dimensions, all above d), is of a higher dimension. So
 * every direct and indirect dependency between escape channels goes from
 * a lower dimension to a higher one: the extended channel-dependency
 * graph is acyclic (the route unit test builds it over every path of small
 * HyperX instances and checks it).
 */
#include "route/route.h"
#include "route/route_internal.h"

#include <stdbool.h>
#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.h"
#include "core/rng.h"
#include "route/hyperx_route.h"
#include "topo/topo.h"

struct dal_params {
	int64_t block; /* flits downstream that make an adaptive VC blocked, 0: off */
	int64_t queue; /* flits routed to a port here, not yet sent, that make it blocked, 0: off */
	int64_t dqueue; /* the same for a deroute's port (step 3), 0: queue */
};

static const struct param_def dal_params_def[] = {
	{"block", PARAM_INT, offsetof(struct dal_params, block), "1", 0, 65535,
	 "a port is blocked when each adaptive VC holds at least this many flits downstream (sent, not yet credited); 0: never by credits", NULL},
	{"queue", PARAM_INT, offsetof(struct dal_params, queue), "0", 0, 65535,
	 "a port is also blocked when at least this many flits are routed to it here and not yet sent (needs sequential_allocation = 1); 0: off", NULL},
	{"dqueue", PARAM_INT, offsetof(struct dal_params, dqueue), "0", 0, 65535,
	 "step 3: a deroute's port is unblocked while fewer than this many flits are routed to it here and not yet sent (needs sequential_allocation = 1); 0: queue's threshold", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

static int dal_init(struct route *r, struct nl_err *err)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	if (!h)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'dal': topology '%s' has no HyperX coordinates",
			       r->topo->ops->name);
	if (r->n_vcs < 2 || r->n_vcs % 2)
		return route_vcs_errf(r, err,
				      "routing function 'dal' needs an even num_vcs >= 2 (adaptive lower half, escape upper half; seed 001 uses 6), got %u",
				      r->n_vcs);
	/* The marks are bits of route_pkt.vc_class; candidates are at most
	 * one per dimension and tier plus the escape. */
	if (h->L > 7)
		return nl_errf(err, NL_ECONFIG,
			       "routing function 'dal': %d dimensions; expected at most 7 (one mark bit per dimension in the packet, 2L + 1 <= %d candidates)",
			       h->L, ROUTE_MAX_CANDS);
	r->max_cands = 2u * (uint32_t)h->L + 1;
	r->va_room = true;
	const struct dal_params *pr = r->params;
	r->needs_pend = pr->queue > 0 || pr->dqueue > 0;
	struct dal_state *s = r->state;
	s->h = h;
	s->is_k1 = hxr_all_k1(h);
	if (s->is_k1) { /* dal_cands_k1 reads the engine's per-port sums when it keeps them */
		r->asum_vcs = r->n_vcs / 2;
		r->asum_full = (uint32_t)pr->block;
	}
	return 0;
}

static void dal_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
		       uint8_t *vc_hi)
{
	(void)rng;
	p->vc_class = 0; /* step 1: every offset dimension deroutable */
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* Step 3 for dimension d: the least occupied unblocked port to a
 * coordinate other than the router's and the destination's, scanning
 * from a random coordinate so ties spread. Per coordinate its best trunk
 * as hxr_pick takes it, and of those the first in scan order with the
 * fewest flits (clipped at HXR_OCC_CLIP, i.e. the highest priority). */
static int dal_deroute(const struct topo_hyperx *h, const struct route_view *v, uint32_t a, uint32_t dst, int d,
		       uint32_t m, struct hxr_block block, struct rng *rng, struct route_cand *out)
{
	uint32_t S = h->S[d], K = h->K[d], own = topo_hyperx_coord(h, a, d), to = topo_hyperx_coord(h, dst, d);
	uint32_t u = (uint32_t)rng_below(rng, S);
	uint32_t best = UINT32_MAX, best_port = 0;
	if (!v) { /* no view: every trunk 0 has 0 flits; the first coordinate scanned wins */
		for (uint32_t i = 0; i < S; i++, u = u + 1 == S ? 0 : u + 1)
			if (u != own && u != to) {
				*out = hxr_cand(topo_hyperx_port(h, d, own, u, 0), 0, m - 1, HXR_PRIO_DEROUTE);
				return 1;
			}
		return 0;
	}
	const size_t vstep = v->occ_stride, pstep = (size_t)v->n_vcs * vstep;
	const char *base = (const char *)v->occ_base;
	for (uint32_t i = 0; i < S; i++, u = u + 1 == S ? 0 : u + 1) {
		if (u == own || u == to)
			continue;
		uint32_t first = topo_hyperx_port(h, d, own, u, 0), bq = UINT32_MAX, bp = first;
		const char *pb = base + first * pstep;
		for (uint32_t k = 0; k < K; k++, pb += pstep) {
			uint32_t room, q = hxr_port_q(pb, vstep, m, block, route_view_pend(v, first + k), &room);
			if (room && q < bq) {
				bq = q;
				bp = first + k;
			}
		}
		if (bq == UINT32_MAX)
			continue;
		uint32_t clip = bq < HXR_OCC_CLIP ? bq : HXR_OCC_CLIP;
		if (clip < best) {
			best = clip;
			best_port = bp;
		}
	}
	if (best == UINT32_MAX)
		return 0;
	*out = hxr_cand(best_port, 0, m - 1, HXR_PRIO_DEROUTE - (int)best);
	return 1;
}

/* hxr_port_q from the engine's word for the port (route_view.gasum, w:
 * the adaptive VCs' flits, and ROUTE_ASUM_FULL when each holds at least
 * `block` flits): the same sum and room. */
static inline uint32_t dal_sum_q(uint32_t w, struct hxr_block b, uint32_t pend, uint32_t *room)
{
	*room = !(w & ROUTE_ASUM_FULL) && (b.queue == 0 || pend < b.queue);
	return pend + (w & 0xffffu);
}

/* One port's sum and room: from its word of the engine's sums (ws, by
 * local port - the dimension's first) when by_sum, else from its VCs'
 * entries (pb). */
static inline __attribute__((always_inline)) uint32_t dal_port_q(bool by_sum, const uint32_t *ws, const char *pb,
								  uint32_t j, size_t vstep, uint32_t m,
								  struct hxr_block block, uint32_t pend, uint32_t *room)
{
	return by_sum ? dal_sum_q(ws[j], block, pend, room) : hxr_port_q(pb, vstep, m, block, pend, room);
}

/* Ports j of [from, to) of one offset dimension (occupancy rows from pd):
 * keep in (*best, *bj) the first least occupied unblocked one other than
 * the destination's jto (dal_deroute's rule, one trunk), clipped at
 * HXR_OCC_CLIP when clip_on (off when no port can reach it, dal_compute:
 * the same order). */
static inline __attribute__((always_inline)) void dal_scan_k1(bool by_sum, const uint32_t *ws, const char *pd,
							      const uint32_t *pendd, size_t pstep, size_t vstep,
							      uint32_t m, struct hxr_block block, bool clip_on,
							      uint32_t jto, uint32_t from, uint32_t to, uint32_t *best,
							      uint32_t *bj)
{
	const char *pb = pd + from * pstep;
	for (uint32_t j = from; j < to; j++, pb += pstep) {
		uint32_t room, q = dal_port_q(by_sum, ws, pb, j, vstep, m, block, pendd ? pendd[j] : 0, &room);
		uint32_t clip = !clip_on || q < HXR_OCC_CLIP ? q : HXR_OCC_CLIP;
		clip = room && j != jto ? clip : UINT32_MAX;
		*bj = clip < *best ? j : *bj;
		*best = clip < *best ? clip : *best;
	}
}

/* dal_scan_k1 from the engine's sums (ws) with no count to add and
 * nothing to clip: a port's key (ROUTE_ASUM_KEY) is its load when it has
 * room and 2^24 + load when blocked, so the first least key is
 * dal_scan_k1's port whenever one has room; *best comes back >=
 * ROUTE_ASUM_FULL when none has. */
static inline __attribute__((always_inline)) void dal_scan_key(const uint32_t *ws, uint32_t from, uint32_t to,
							       uint32_t *best, uint32_t *bj)
{
	for (uint32_t j = from; j < to; j++) {
		uint32_t key = ws[j] & ROUTE_ASUM_KEY;
		*bj = key < *best ? j : *bj;
		*best = key < *best ? key : *best;
	}
}

/* dal_scan_k1 over [from, to) without reading the destination's port
 * jto: the ports before it, then those after it. Fewer instructions with
 * the credit rule unclipped (`dal` on seed 001's network); more with
 * sequential allocation's counts, which keep the one loop. */
static inline __attribute__((always_inline)) void dal_scan_skip(bool by_sum, const uint32_t *ws, const char *pd,
								const uint32_t *pendd, size_t pstep, size_t vstep,
								uint32_t m, struct hxr_block block, bool clip_on,
								uint32_t jto, uint32_t from, uint32_t to, uint32_t *best,
								uint32_t *bj)
{
	if (by_sum && !clip_on) {
		dal_scan_key(ws, from, jto < to ? jto : to, best, bj);
		dal_scan_key(ws, jto + 1 > from ? jto + 1 : from, to, best, bj);
		return;
	}
	dal_scan_k1(by_sum, ws, pd, pendd, pstep, vstep, m, block, clip_on, UINT32_MAX, from, jto < to ? jto : to,
		    best, bj);
	dal_scan_k1(by_sum, ws, pd, pendd, pstep, vstep, m, block, clip_on, UINT32_MAX,
		    jto + 1 > from ? jto + 1 : from, to, best, bj);
}

/* A whole dimension's deroute scan from the engine's sums, unclipped, in
 * one pass when it has at most 8 ports (n = S - 1; seed 001's S = 8 has
 * 7): the same port as dal_scan_skip over [j0, n) then [0, j0), i.e. the
 * first least key (ROUTE_ASUM_KEY) other than the destination's jto in
 * scan order from j0, found as the least key and then the first of its
 * lanes at or after j0, else the first. Keys are below 2^25, so SSE2's
 * signed compares order them. Reads ws[0..7]: the engine pads its sums
 * (flitnet_build.c) so the last router's last dimension may. *best stays as it
 * is when the dimension has no port but the destination's. Without SSE2,
 * dal_scan_skip. The scalar scans cost 6% of `hyperx_dal.sh`'s
 * instructions. */
#define DAL_SCAN8_MAX 8u
static inline __attribute__((always_inline)) void dal_scan_key8(const uint32_t *ws, uint32_t n, uint32_t jto,
								uint32_t j0, uint32_t *best, uint32_t *bj)
{
#if defined(__SSE2__)
	const __m128i key = _mm_set1_epi32((int32_t)ROUTE_ASUM_KEY), none = _mm_set1_epi32(INT32_MAX);
	const __m128i vn = _mm_set1_epi32((int32_t)n), vto = _mm_set1_epi32((int32_t)jto);
	const __m128i ia = _mm_setr_epi32(0, 1, 2, 3), ib = _mm_setr_epi32(4, 5, 6, 7);
	__m128i a = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)ws), key);
	__m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(ws + 4)), key);
	const __m128i oka = _mm_andnot_si128(_mm_cmpeq_epi32(ia, vto), _mm_cmplt_epi32(ia, vn));
	const __m128i okb = _mm_andnot_si128(_mm_cmpeq_epi32(ib, vto), _mm_cmplt_epi32(ib, vn));
	a = _mm_or_si128(_mm_and_si128(oka, a), _mm_andnot_si128(oka, none));
	b = _mm_or_si128(_mm_and_si128(okb, b), _mm_andnot_si128(okb, none));
	__m128i lt = _mm_cmplt_epi32(a, b);
	__m128i m = _mm_or_si128(_mm_and_si128(lt, a), _mm_andnot_si128(lt, b));
	__m128i sh = _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2));
	lt = _mm_cmplt_epi32(m, sh);
	m = _mm_or_si128(_mm_and_si128(lt, m), _mm_andnot_si128(lt, sh));
	sh = _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1));
	lt = _mm_cmplt_epi32(m, sh);
	m = _mm_or_si128(_mm_and_si128(lt, m), _mm_andnot_si128(lt, sh)); /* the least, in every lane */
	const uint32_t least = (uint32_t)_mm_cvtsi128_si32(m);
	if (least == (uint32_t)INT32_MAX)
		return;
	const uint32_t at = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, m))) |
			    (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(b, m))) << 4;
	const uint32_t on = at & (~0u << j0);
	*bj = (uint32_t)__builtin_ctz(on ? on : at);
	*best = least;
#else
	dal_scan_skip(true, ws, NULL, NULL, 0, 0, 0, (struct hxr_block){0, 0}, false, jto, j0, n, best, bj);
	dal_scan_skip(true, ws, NULL, NULL, 0, 0, 0, (struct hxr_block){0, 0}, false, jto, 0, j0, best, bj);
#endif
}

/* Steps 2 and 3 when every dimension has one link per switch pair
 * (K = 1, seed 001's networks) and there is a view: the same candidates,
 * in the same order and with the same draws, as hxr_min_cands followed by
 * dal_deroute per unmarked offset dimension, in one pass over each offset
 * dimension's ports (contiguous: port_base[d] + j for coordinate index j,
 * topo_hyperx_port), then the escape (hxr_escape: with one trunk, the
 * lowest offset dimension's port). Always inlined with m a constant at
 * the call, so the per-port sum over the adaptive VCs is straight-line
 * code. by_sum: a port is one read of the engine's per-port word instead
 * (route_view.gasum, which dal_init asks for: route.asum_vcs = m,
 * asum_full = block), and with the credit rule unclipped the scan
 * compares that word's key alone (dal_scan_key). */
static inline __attribute__((always_inline)) int dal_cands_k1(const struct topo_hyperx *h,
								const struct route_view *v, uint32_t a, uint32_t dst,
								uint32_t marks, uint32_t m, struct hxr_block block,
								struct hxr_block dblock, bool clip_on, bool by_sum,
								struct rng *rng, struct route_cand *out)
{
	const size_t vstep = v->occ_stride, pstep = (size_t)v->n_vcs * vstep;
	/* The deroutes (port, priority) wait in der_* until the n minimal
	 * candidates are written: no first pass to count offset dimensions. */
	int n = 0, nd = 0;
	uint32_t der_port[TOPO_MAX_DIMS], der_prio[TOPO_MAX_DIMS];
	uint32_t esc = UINT32_MAX; /* the escape port (hxr_escape): the lowest offset dimension's */
	for (int d = 0; d < h->L; d++) {
		uint32_t own = topo_hyperx_coord(h, a, d), to = topo_hyperx_coord(h, dst, d);
		if (own == to)
			continue;
		uint32_t S = h->S[d], pbase = h->port_base[d], jto = to < own ? to : to - 1, room;
		const char *pd = (const char *)v->occ_base + pbase * pstep;
		const uint32_t *pendd = route_view_pend_row(v, pbase); /* sequential allocation */
		const uint32_t *ws = by_sum ? v->gasum + v->port_base + pbase : NULL; /* the engine's sums */
		/* Step 2 (hxr_pick, one trunk): below the deroutes when blocked. */
		uint32_t q = dal_port_q(by_sum, ws, pd + jto * pstep, jto, vstep, m, block, pendd ? pendd[jto] : 0, &room);
		uint32_t clip = q < HXR_OCC_CLIP ? q : HXR_OCC_CLIP;
		out[n++] = hxr_cand(pbase + jto, 0, m - 1, (room ? HXR_PRIO_MIN : HXR_PRIO_MIN_BLOCKED) - (int)clip);
		if (esc == UINT32_MAX)
			esc = pbase + jto;
		if (marks & (1u << d))
			continue;
		/* Step 3 (dal_deroute): coordinates from u on, i.e. port
		 * indices from j0 on, cyclically; the first least occupied
		 * unblocked one other than the destination's. */
		uint32_t u = (uint32_t)rng_below(rng, S), j0 = u <= own ? u : u - 1;
		if (j0 == S - 1)
			j0 = 0;
		uint32_t best = UINT32_MAX, bj = 0;
		if (by_sum && !clip_on && S - 1 <= DAL_SCAN8_MAX) {
			dal_scan_key8(ws, S - 1, jto, j0, &best, &bj);
		} else if (!clip_on) {
			dal_scan_skip(by_sum, ws, pd, pendd, pstep, vstep, m, dblock, false, jto, j0, S - 1, &best, &bj);
			dal_scan_skip(by_sum, ws, pd, pendd, pstep, vstep, m, dblock, false, jto, 0, j0, &best, &bj);
		} else {
			dal_scan_k1(by_sum, ws, pd, pendd, pstep, vstep, m, dblock, true, jto, j0, S - 1, &best, &bj);
			dal_scan_k1(by_sum, ws, pd, pendd, pstep, vstep, m, dblock, true, jto, 0, j0, &best, &bj);
		}
		if (best < (by_sum && !clip_on ? ROUTE_ASUM_FULL : UINT32_MAX)) { /* dal_scan_key: blocked keys */
			der_port[nd] = pbase + bj;
			der_prio[nd++] = HXR_PRIO_DEROUTE - best;
		}
	}
	for (int i = 0; i < nd; i++)
		out[n++] = hxr_cand(der_port[i], 0, m - 1, (int)der_prio[i]);
	out[n++] = hxr_cand(esc, m, 2 * m - 1, HXR_PRIO_ESCAPE);
	return n;
}

static int dal_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		       struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct dal_state *s = r->state;
	const struct topo_hyperx *h = s->h;
	const struct dal_params *pr = r->params;
	(void)in_vc;
	if (router == p->dst_router)
		return route_eject(r, p, out);
	/* The hop that brought the packet here was a deroute when it came
	 * over dimension d and left the packet offset in d: mark d. */
	int din = hxr_port_dim(h, in_port);
	if (din >= 0 && topo_hyperx_coord(h, router, din) != topo_hyperx_coord(h, p->dst_router, din))
		p->vc_class |= (uint8_t)(1u << din);
	uint32_t m = r->n_vcs / 2;
	const struct hxr_block block = {(uint32_t)pr->block, (uint32_t)pr->queue};
	const struct hxr_block dblock = {block.credit, pr->dqueue ? (uint32_t)pr->dqueue : block.queue}; /* step 3 */
	int n;
	if (v && s->is_k1) {
		/* Seed 001's m = 3 with one blocking rule, the other's term a
		 * constant: `dal` (credits) and the Fig. 6 scripts'
		 * `dal:block=0,queue=2` (no least-VC scan). */
		const struct hxr_block by_credit = {block.credit, 0}, by_queue = {0, block.queue};
		const struct hxr_block dby_queue = {0, dblock.queue}; /* by credit: dblock's credit rule is block's */
		/* Without sequential allocation's counts a port's sum is at most
		 * m full buffers: below HXR_OCC_CLIP, no clipping to do. */
		const bool clip_on = v->gpend || (uint64_t)m * v->vc_buf_size >= HXR_OCC_CLIP;
		const uint32_t dr = p->dst_router, mk = p->vc_class;
		if (v->gasum) { /* the engine's per-port sums: one word per port, m a variable */
			if (!block.queue && !clip_on)
				return dal_cands_k1(h, v, router, dr, mk, m, by_credit, by_credit, false, true, rng, out);
			if (!block.credit)
				return dal_cands_k1(h, v, router, dr, mk, m, by_queue, dby_queue, true, true, rng, out);
			return dal_cands_k1(h, v, router, dr, mk, m, block, dblock, true, true, rng, out);
		}
		if (m == 3 && !block.queue && !clip_on)
			return dal_cands_k1(h, v, router, dr, mk, 3, by_credit, by_credit, false, false, rng, out);
		if (m == 3 && !block.credit)
			return dal_cands_k1(h, v, router, dr, mk, 3, by_queue, dby_queue, true, false, rng, out);
		switch (m) {
		case 1: n = dal_cands_k1(h, v, router, dr, mk, 1, block, dblock, true, false, rng, out); break;
		case 2: n = dal_cands_k1(h, v, router, dr, mk, 2, block, dblock, true, false, rng, out); break;
		case 3: n = dal_cands_k1(h, v, router, dr, mk, 3, block, dblock, true, false, rng, out); break;
		case 4: n = dal_cands_k1(h, v, router, dr, mk, 4, block, dblock, true, false, rng, out); break;
		default: n = dal_cands_k1(h, v, router, dr, mk, m, block, dblock, true, false, rng, out); break;
		}
	} else {
		n = hxr_min_cands(h, v, router, p->dst_router, m, block, out);
		for (int d = 0; d < h->L; d++)
			if (!(p->vc_class & (1u << d)) &&
			    topo_hyperx_coord(h, router, d) != topo_hyperx_coord(h, p->dst_router, d))
				n += dal_deroute(h, v, router, p->dst_router, d, m, dblock, rng, out + n);
		out[n++] = hxr_escape(h, v, router, p->dst_router, m);
	}
	return n;
}

const struct route_ops route_dal_ops = {
	.name = "dal",
	.help = "HyperX DAL: minimal if unblocked, else one deroute per offset dimension, dimension-order escape VCs (Ahn et al. SC09 3.3); needs vc_allocator = separable_input_first or separable_output_first",
	.params = dal_params_def,
	.params_size = sizeof(struct dal_params),
	.state_size = sizeof(struct dal_state),
	.topo_views = TOPO_VIEW_HYPERX,
	.is_deterministic = false,
	.needs_priority_alloc = true,
	.init = dal_init,
	.inject = dal_inject,
	.compute = dal_compute,
};
