/* group_min: group-minimal routing on the dragonfly, "group_min".
 *
 * BookSim2's min_dragonflynew (src/networks/dragonfly.cpp, its
 * dragonfly_port): a packet for another group takes a local hop to a
 * router of its group holding a global link toward the destination group
 * (a gateway), that global link, then a local hop to the destination
 * router: at most local, global, local, and never through a third group.
 * Within a group it takes the one local hop. netloom's `min` is
 * router-minimal instead: where a two-global-hop path through a third
 * group is as short as local-global-local it may take it (Kim et al. ISCA
 * 2008 §4.1 count only the l-g-l path as minimal).
 *
 * Parallel global links: with fewer groups than a*h + 1 a pair of groups
 * has several links (rounds consecutive ones, and up to three circulant
 * extras; topo_dragonfly.h), every one of them a minimal path. BookSim's
 * dragonflynew has one link per pair, so it has no rule for them; taking
 * only the first (k = 0, its dragonfly_port) would funnel a group pair's
 * traffic through one channel (dragonfly:a=4,p=2,h=2,g=3 under uniform
 * traffic: last stable rate 0.10 instead of 0.40, docs/engine.md). Each
 * packet draws one of its source group's links toward the
 * destination group at injection (route_pkt.inter, from the endpoint's
 * stream; nothing is drawn when every pair has one link, so those runs
 * are BookSim's). A router holding that link takes it; a router holding
 * other links toward that group takes one of its own (one global hop
 * instead of a local hop and a global hop); any other router takes the
 * local hop to the drawn link's router. compute itself draws nothing and
 * reads only the packet, so the route stays a function of the seed.
 *
 * A separate route_ops rather than a `min` parameter: `min`'s per-hop path
 * (the closed-form next hops of issue 10) stays exactly as it is for every
 * existing configuration, the family restriction is declared (the
 * registry refuses other topologies with a one-line error), and the
 * registry conformance test walks it like every other algorithm.
 *
 * VCs and deadlock freedom: class 0 for hops before the global hop, class
 * 1 for the global hop and the local hop after it (BookSim's "optical
 * dateline": VC 0, then VC 1 from the global port on); a hop within the
 * source group to a destination there stays in class 0, as in BookSim.
 * With n VCs class 0 is VCs 0 .. n/2-1 and class 1 the rest, so num_vcs =
 * 2 is BookSim's VC 0 and VC 1 exactly. Channel dependencies: local(0) ->
 * global(1) -> local(1) -> ejection, or local(0) -> ejection, whichever
 * parallel link is taken (a gateway always takes a link of its own, so at
 * most one local hop precedes the global one). A class-0 local channel is
 * taken at most once per path and always first, and a class-1 local
 * channel is always last, so no dependency returns to a channel class
 * already left: the channel dependency graph is acyclic (Dally & Towles
 * §14.1) and the routing is deadlock-free with 2 VCs. One VC would put
 * the global hop and both local hops in one class, where the local hops
 * of different groups form cycles: refused.
 */
#include "route/route.h"

#include "core/error.h"
#include "core/rng.h"
#include "route/route_internal.h"
#include "topo/topo.h"
#include "topo/topo_dragonfly.h"

static const char *const group_min_families[] = {"dragonfly", NULL};

static const struct param_def group_min_params[] = {
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct group_min_state {
	const struct topo_dragonfly *df; /* the closed form, read at every hop */
	bool has_parallel;               /* some group pair has more than one link */
};

/* The global links of group G toward group T != G, as group ports: the
 * `rounds` consecutive ones (k = 0 .. rounds-1, topo_dragonfly_group_port)
 * and then ex[0 .. *n_ex-1], the circulant extras reaching T
 * (topo_dragonfly_extras_toward). Returns their number, rounds + *n_ex.
 * O(1). */
static uint32_t group_min_links(const struct topo_dragonfly *df, uint32_t G, uint32_t T, uint32_t ex[3],
				uint32_t *n_ex)
{
	*n_ex = topo_dragonfly_extras_toward(df, G, T, ex);
	return df->rounds + *n_ex;
}

/* Group port of link j of that list. */
static inline uint32_t group_min_link(const struct topo_dragonfly *df, uint32_t G, uint32_t T, const uint32_t *ex,
				      uint32_t j)
{
	return j < df->rounds ? topo_dragonfly_group_port(df, G, T, j) : ex[j - df->rounds];
}

/* The link of group G toward T that router index i of G takes for a
 * packet that drew link j of n (group_min_links): j itself when i holds
 * it, else link j mod (the links i holds) of i's own when it holds any,
 * else j (held by another router of G). Returns the group port. The
 * consecutive links i holds are those with k in [k_lo, k_hi): its group
 * ports are i*h .. i*h+h-1, and link k is port c + k(g-1). */
static uint32_t group_min_pick(const struct topo_dragonfly *df, uint32_t G, uint32_t T, uint32_t i, uint32_t j,
			       const uint32_t *ex, uint32_t n_ex)
{
	uint32_t gp = group_min_link(df, G, T, ex, j);
	if (gp / df->h == i)
		return gp;
	uint32_t m = df->g - 1, c = T < G ? T : T - 1, lo = i * df->h, hi = lo + df->h; /* [lo, hi) */
	uint32_t k_lo = lo > c ? (lo - c + m - 1) / m : 0, k_hi = hi > c ? (hi - 1 - c) / m + 1 : 0;
	if (k_hi > df->rounds)
		k_hi = df->rounds;
	uint32_t n_cons = k_hi > k_lo ? k_hi - k_lo : 0, own[3], n_own = 0;
	for (uint32_t x = 0; x < n_ex; x++)
		if (ex[x] / df->h == i)
			own[n_own++] = ex[x];
	if (n_cons + n_own == 0)
		return gp;
	uint32_t q = j % (n_cons + n_own);
	return q < n_cons ? c + (k_lo + q) * m : own[q - n_cons];
}

static int group_min_init(struct route *r, struct nl_err *err)
{
	uint32_t n_groups, group_routers, gw, port;

	if (!topo_groups(r->topo, &n_groups, &group_routers) || n_groups < 2 ||
	    !topo_group_gateway(r->topo, 0, 1, &gw, &port))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'group_min': topology '%s' has no groups joined by global links",
			       r->topo->ops->name);
	if (r->n_vcs < 2)
		return route_vcs_errf(r, err,
				      "routing function 'group_min' needs num_vcs >= 2 (VC class 0 before the global hop, class 1 after it, as BookSim's min_dragonflynew), got %u",
				      r->n_vcs);
	/* The dragonfly view (a gateway exists only on a dragonfly), kept for
	 * the closed form at every hop. */
	struct group_min_state *s = r->state;
	s->df = topo_dragonfly_of(r->topo);
	s->has_parallel = s->df->rounds > 1 || s->df->extra > 0;
	r->max_cands = 1;
	return 0;
}

static void group_min_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			     uint8_t *vc_hi)
{
	const struct group_min_state *s = r->state;
	/* inter: a uniform 32-bit fraction, scaled at each hop to the number
	 * of links of the pair (group_min_compute). */
	p->inter = s->has_parallel ? (uint32_t)(rng_u64(rng) >> 32) : 0;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int group_min_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			     struct route_pkt *p, struct rng *rng, const struct route_view *v,
			     struct route_cand *out)
{
	const struct group_min_state *s = r->state;
	const struct topo_dragonfly *df = s->df;
	const uint32_t a = df->a;
	uint32_t cls;
	bool global;
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;

	if (router == p->dst_router) {
		/* BookSim ejects on the packet's current VC (out_vc = f->ph):
		 * class 1 after a global hop, class 0 within the source group.
		 * With 1-flit packets every packet needs the ejection port's one
		 * VC of its class, which bounds what a router can eject. */
		route_eject(r, p, out);
		cls = router / a != route_src_router(r, p) / a;
		uint32_t w = r->n_vcs / 2;
		out->vc_lo = (uint8_t)(cls ? w : 0);
		out->vc_hi = (uint8_t)(cls ? r->n_vcs - 1 : w - 1);
		return 1;
	}
	uint32_t port, G = router / a, T = p->dst_router / a;
	if (G != T && s->has_parallel) {
		uint32_t ex[3], n_ex, n = group_min_links(df, G, T, ex, &n_ex);
		uint32_t j = (uint32_t)(((uint64_t)p->inter * n) >> 32); /* in [0, n) */
		uint32_t gp = group_min_pick(df, G, T, router % a, j, ex, n_ex), i = router % a, x = gp / df->h;
		global = x == i;
		port = global ? df->global_base + gp % df->h : x < i ? x : x - 1;
	} else {
		port = topo_dragonfly_group_min_port(df, router, p->dst_router, &global);
	}
	/* In the destination group: class 1 once the global hop is behind (we
	 * left the source group), else class 0; elsewhere class 1 from the
	 * global hop on. */
	cls = G == T ? G != route_src_router(r, p) / a : global;
	uint32_t w = r->n_vcs / 2;
	out->port = (uint16_t)port;
	out->vc_lo = (uint8_t)(cls ? w : 0);
	out->vc_hi = (uint8_t)(cls ? r->n_vcs - 1 : w - 1);
	out->prio = 0;
	return 1;
}

const struct route_ops route_group_min_ops = {
	.name = "group_min",
	.help = "group-minimal dragonfly routing: local, global, local through a gateway (parallel global links: one drawn per packet), VC class 0 then 1 (BookSim2 min_dragonflynew; Kim et al. ISCA 2008)",
	.params = group_min_params,
	.params_size = 0,
	.state_size = sizeof(struct group_min_state),
	.families = group_min_families,
	.is_deterministic = true, /* compute draws nothing (a parallel link is drawn at inject) */
	.init = group_min_init,
	.inject = group_min_inject,
	.compute = group_min_compute,
};
