/* Shared by the routing unit tests: the channel-dependency graph and the
 * walk of every path a routing function can produce (test_route.c,
 * test_route_families.c). */
#ifndef NETLOOM_TESTS_ROUTE_CHECK_H
#define NETLOOM_TESTS_ROUTE_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"

/* A source endpoint for a packet walked from router s: its first
 * endpoint, or endpoint 0 for a router without any (a spine: no packet
 * starts there, but the walks start one there to cover its channels; only
 * hashing functions read the source, which then stands for a flow). */
static inline uint32_t test_src_ep(const struct topo *t, uint32_t s)
{
	uint32_t e = topo_router_ep(t, s);
	return e == TOPO_NONE ? 0 : e;
}

/* CDG over (global port, VC) of network channels. */
struct cdg {
	uint32_t n_nodes;
	uint32_t *head;   /* [node]: first edge */
	uint32_t *next, *to;
	uint32_t n_edges, cap;
	uint8_t *edge_set; /* dense adjacency bitmap for dedup (small networks only) */
};

static inline void cdg_init(struct cdg *g, uint32_t n_nodes)
{
	g->n_nodes = n_nodes;
	g->head = malloc(n_nodes * sizeof *g->head);
	memset(g->head, 0xff, n_nodes * sizeof *g->head);
	g->cap = 1024;
	g->next = malloc(g->cap * sizeof *g->next);
	g->to = malloc(g->cap * sizeof *g->to);
	g->n_edges = 0;
	g->edge_set = calloc(((size_t)n_nodes * n_nodes + 7) / 8, 1);
}

static inline void cdg_free(struct cdg *g)
{
	free(g->head);
	free(g->next);
	free(g->to);
	free(g->edge_set);
}

static inline void cdg_edge(struct cdg *g, uint32_t a, uint32_t b)
{
	size_t bit = (size_t)a * g->n_nodes + b;
	if (g->edge_set[bit / 8] & (1u << (bit % 8)))
		return;
	g->edge_set[bit / 8] |= (uint8_t)(1u << (bit % 8));
	if (g->n_edges == g->cap) {
		g->cap *= 2;
		g->next = realloc(g->next, g->cap * sizeof *g->next);
		g->to = realloc(g->to, g->cap * sizeof *g->to);
	}
	g->to[g->n_edges] = b;
	g->next[g->n_edges] = g->head[a];
	g->head[a] = g->n_edges++;
}

/* Kahn's algorithm: 1 when acyclic. */
static inline int cdg_acyclic(const struct cdg *g)
{
	uint32_t *indeg = calloc(g->n_nodes, sizeof *indeg), *q = malloc(g->n_nodes * sizeof *q);
	uint32_t qh = 0, qt = 0, seen = 0;
	for (uint32_t e = 0; e < g->n_edges; e++)
		indeg[g->to[e]]++;
	for (uint32_t v = 0; v < g->n_nodes; v++)
		if (!indeg[v])
			q[qt++] = v;
	while (qh < qt) {
		uint32_t v = q[qh++];
		seen++;
		for (uint32_t e = g->head[v]; e != UINT32_MAX; e = g->next[e])
			if (--indeg[g->to[e]] == 0)
				q[qt++] = g->to[e];
	}
	free(indeg);
	free(q);
	return seen == g->n_nodes;
}

/* Walk every path the algorithm can take from router src to endpoint dst:
 * at each router every candidate and every VC of its range is followed
 * (a DFS over (router, in-port, in-VC, packet state)); records CDG edges
 * between consecutive network channels. Returns the largest hop count. */
struct walk {
	const struct route *r;
	const struct topo *t;
	struct cdg *g;
	uint32_t max_hops;
	int bad;
	const char *spec;
	/* Synthetic congestion (NULL: no view, as deterministic callers may
	 * pass): occupancy per (global port, VC), as a router's output VCs
	 * hold it, handed to compute through the per-router view. */
	const uint16_t *occ;
	uint32_t vc_buf_size;
	int reacts; /* some head's candidates changed with the view */
	/* Escape mode (Duato's theorem): only channels of VCs >= esc_lo are
	 * nodes, and each is joined from the last escape channel the path
	 * held, directly or across adaptive hops: the extended CDG. */
	int escape;
	uint32_t esc_lo;
};

/* The view router `router` gives routing over w->occ. */
static inline struct route_view walk_view(const struct walk *w, uint32_t router)
{
	return (struct route_view){
		.occ_base = w->occ + (size_t)w->t->port_base[router] * w->r->n_vcs,
		.occ_stride = sizeof *w->occ,
		.n_vcs = w->r->n_vcs,
		.vc_buf_size = w->vc_buf_size,
		.gocc_base = w->occ,
	};
}

static inline int cands_equal(const struct route_cand *a, int na, const struct route_cand *b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++)
		if (a[i].port != b[i].port || a[i].vc_lo != b[i].vc_lo || a[i].vc_hi != b[i].vc_hi ||
		    a[i].prio != b[i].prio)
			return 0;
	return 1;
}

/* Adaptivity against the view: compute with every VC of every port empty,
 * then once per offered port with that port saturated and the rest empty.
 * An algorithm whose answer never depends on the view passes; one whose
 * answer does must not prefer the saturated port whenever it offers
 * another (UGAL / Merlin's credit-based choice, Dally & Towles §9.4). */
static inline void walk_react(struct walk *w, uint32_t router, uint32_t in_port, uint32_t in_vc,
		       const struct route_pkt *pk, const struct rng *rng)
{
	const struct topo *t = w->t;
	uint32_t n_ports = topo_router_ports(t, router), V = w->r->n_vcs;
	uint16_t *occ = calloc((size_t)n_ports * V, sizeof *occ);
	struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = V, .vc_buf_size = w->vc_buf_size,
			       .gocc_base = w->occ};
	struct route_cand ce[ROUTE_MAX_CANDS], cs[ROUTE_MAX_CANDS];
	struct route_pkt pe = *pk;
	struct rng re = *rng; /* the same draws for every view */
	int ne = w->r->ops->compute(w->r, router, in_port, in_vc, &pe, &re, &v, ce);
	int changed = 0, wrong = -1;
	for (int k = 0; k < ne; k++) {
		uint32_t hot = ce[k].port;
		for (uint32_t vc = 0; vc < V; vc++)
			occ[(size_t)hot * V + vc] = (uint16_t)w->vc_buf_size;
		struct route_pkt ps = *pk;
		struct rng rs = *rng;
		int ns = w->r->ops->compute(w->r, router, in_port, in_vc, &ps, &rs, &v, cs);
		for (uint32_t vc = 0; vc < V; vc++)
			occ[(size_t)hot * V + vc] = 0;
		changed |= !cands_equal(ce, ne, cs, ns);
		int other = 0;
		for (int i = 0; i < ns; i++)
			other |= cs[i].port != hot;
		if (other && route_cands_preferred(cs, (uint32_t)ns) == hot && wrong < 0)
			wrong = (int)hot;
	}
	free(occ);
	if (!changed)
		return;
	w->reacts = 1;
	if (wrong >= 0 && !w->bad++)
		TEST_FAIL_("%s: at router %u the candidates follow the view but saturated port %d stays preferred",
			   w->spec, router, wrong);
}

static inline void walk_from(struct walk *w, uint32_t router, uint32_t in_port, uint32_t in_vc, uint32_t prev_chan,
		      struct route_pkt pk, uint32_t hops, struct rng *rng)
{
	const struct topo *t = w->t;
	struct route_cand c[ROUTE_MAX_CANDS];
	if (hops > 4 * t->n_routers) {
		if (!w->bad++)
			TEST_FAIL_("%s: packet to endpoint %u loops", w->spec, pk.dst_ep);
		return;
	}
	pk.hops = (uint8_t)hops;
	struct route_view view;
	if (w->occ) {
		view = walk_view(w, router);
		walk_react(w, router, in_port, in_vc, &pk, rng);
	}
	int n = w->r->ops->compute(w->r, router, in_port, in_vc, &pk, rng, w->occ ? &view : NULL, c);
	if (n < 1 || n > (int)w->r->max_cands) {
		if (!w->bad++)
			TEST_FAIL_("%s: %d candidates (max %u)", w->spec, n, w->r->max_cands);
		return;
	}
	for (int k = 0; k < n; k++) {
		uint32_t g = t->port_base[router] + c[k].port;
		if (c[k].port >= topo_router_ports(t, router) || c[k].vc_lo > c[k].vc_hi || c[k].vc_hi >= w->r->n_vcs) {
			if (!w->bad++)
				TEST_FAIL_("%s: bad candidate port %u VCs %u..%u at router %u", w->spec, c[k].port,
					   c[k].vc_lo, c[k].vc_hi, router);
			return;
		}
		if (topo_port_is_terminal(t, g)) {
			if ((t->peer[g] & ~TOPO_EP_BIT) != pk.dst_ep && !w->bad++)
				TEST_FAIL_("%s: ejects at endpoint %u, not %u", w->spec, t->peer[g] & ~TOPO_EP_BIT, pk.dst_ep);
			if (hops > w->max_hops)
				w->max_hops = hops;
			continue;
		}
		if (!topo_port_is_network(t, g)) {
			if (!w->bad++)
				TEST_FAIL_("%s: routes to an unconnected port", w->spec);
			return;
		}
		uint32_t nr = t->port_router[t->peer[g]];
		uint32_t np = t->peer[g] - t->port_base[nr];
		for (uint32_t vc = c[k].vc_lo; vc <= c[k].vc_hi; vc++) {
			uint32_t chan = g * w->r->n_vcs + vc;
			if (w->escape && vc < w->esc_lo) {
				/* An adaptive hop: the escape channel held before stays
				 * the source of the next (indirect) dependency. */
				walk_from(w, nr, np, vc, prev_chan, pk, hops + 1, rng);
				continue;
			}
			if (prev_chan != UINT32_MAX)
				cdg_edge(w->g, prev_chan, chan);
			walk_from(w, nr, np, vc, chan, pk, hops + 1, rng);
		}
	}
}

/* How check_route walks: the random choices are enumerated by `seeds`
 * tie seeds (DOR's k/2 tie, Valiant's intermediate drawn at inject) and,
 * with every_inter, by forcing every intermediate router; with_view feeds
 * compute a synthetic congestion view and checks its reaction. */
struct walk_opts {
	int minimal;
	int every_inter;
	int with_view;
	uint32_t seeds;
	uint32_t buf;  /* synthetic occupancies in [0, buf]; 0 = 8 */
	int *reacts; /* out, may be NULL */
	int escape;      /* check the extended CDG of the escape VCs esc_lo.. only */
	uint32_t esc_lo;
};

/* Check route r on t: reachability, VC ranges, path length (minimal
 * algorithms), and CDG acyclicity. Returns 1 when the CDG is acyclic. */
static inline int check_route(const struct topo *t, const struct route *r, const char *what, const struct walk_opts *o)
{
	uint32_t vcs = r->n_vcs;
	struct cdg g;
	cdg_init(&g, t->n_ports * vcs);
	struct walk w = {.r = r, .t = t, .g = &g, .spec = what, .vc_buf_size = o->buf ? o->buf : 8,
			 .escape = o->escape, .esc_lo = o->esc_lo};
	uint16_t *occ = NULL;
	if (o->with_view) {
		/* Occupancies in [0, vc_buf_size], fixed by the seed. */
		struct rng vr;
		rng_init(&vr, 42, RNG_CLASS_ROUTER, 0);
		occ = malloc((size_t)t->n_ports * vcs * sizeof *occ);
		for (size_t i = 0; i < (size_t)t->n_ports * vcs; i++)
			occ[i] = (uint16_t)rng_below(&vr, w.vc_buf_size + 1);
		w.occ = occ;
	}
	for (uint32_t s = 0; s < t->n_routers && !w.bad; s++)
		for (uint32_t d = 0; d < t->n_endpoints && !w.bad; d++) {
			uint32_t n_inter = o->every_inter ? t->n_routers : 1;
			for (uint32_t inter = 0; inter < n_inter; inter++)
				for (uint64_t seed = 0; seed < o->seeds; seed++) {
					struct route_pkt pk = {
						.src_ep = test_src_ep(t, s), .dst_router = topo_ep_router(t, d), .dst_ep = d};
					struct rng rng;
					uint8_t lo, hi;
					rng_init(&rng, seed, RNG_CLASS_ROUTER, s * 7919u + d);
					r->ops->inject(r, &pk, &rng, &lo, &hi);
					if (lo > hi || hi >= vcs) {
						if (!w.bad++)
							TEST_FAIL_("%s: injects into VCs %u..%u of %u", what, lo, hi, vcs);
						break;
					}
					if (o->every_inter)
						pk.inter = inter;
					w.max_hops = 0;
					/* The packet arrives on a terminal port: any local port that
					 * is not a network port will do; use the first terminal. */
					uint32_t in_port = 0;
					while (in_port < topo_router_ports(t, s) &&
					       !topo_port_is_terminal(t, t->port_base[s] + in_port))
						in_port++;
					walk_from(&w, s, in_port, lo, UINT32_MAX, pk, 0, &rng);
					if (o->minimal && w.max_hops != topo_distance(t, s, pk.dst_router) && !w.bad++)
						TEST_FAIL_("%s: %u -> endpoint %u in %u hops, distance %u", what, s, d,
							   w.max_hops, topo_distance(t, s, pk.dst_router));
				}
		}
	if (o->reacts)
		*o->reacts = w.reacts;
	int acyclic = cdg_acyclic(&g);
	cdg_free(&g);
	free(occ);
	return acyclic;
}

/* check_route for `route_spec` on `topo_spec` with `vcs` VCs. */
static inline int check_routing(const char *topo_spec, const char *route_spec, uint32_t vcs, int minimal)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	char what[256];

	snprintf(what, sizeof what, "%s on %s", route_spec, topo_spec);
	if (topo_new(topo_spec, &t, &e) < 0 || route_new(route_spec, t, vcs, &r, &e) < 0) {
		TEST_FAIL_("%s: %s", what, e.msg);
		topo_free(t);
		return 0;
	}
	struct walk_opts o = {.minimal = minimal, .every_inter = !strncmp(route_spec, "valiant", 7), .seeds = 4};
	int acyclic = check_route(t, r, what, &o);
	route_free(r);
	topo_free(t);
	return acyclic;
}

#endif
