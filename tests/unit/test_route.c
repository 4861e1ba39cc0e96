/* Unit tests: routing algorithms (emu/route). Registry conformance: every
 * algorithm reaches every destination with VC ranges in range, minimal
 * ones by shortest paths, and the channel-dependency graph (CDG) of all the
 * paths it can produce is acyclic: the deadlock-freedom argument of each
 * file header, checked (Dally & Towles §14.1, Duato's theorem for the
 * deterministic case). Negative controls make sure the checker finds
 * cycles where deadlock is possible. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"

/* CDG over (global port, VC) of network channels. */
struct cdg {
	uint32_t n_nodes;
	uint32_t *head;   /* [node]: first edge */
	uint32_t *next, *to;
	uint32_t n_edges, cap;
	uint8_t *edge_set; /* dense adjacency bitmap for dedup (small networks only) */
};

static void cdg_init(struct cdg *g, uint32_t n_nodes)
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

static void cdg_free(struct cdg *g)
{
	free(g->head);
	free(g->next);
	free(g->to);
	free(g->edge_set);
}

static void cdg_edge(struct cdg *g, uint32_t a, uint32_t b)
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
static int cdg_acyclic(const struct cdg *g)
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
};

static void walk_from(struct walk *w, uint32_t router, uint32_t in_port, uint32_t in_vc, uint32_t prev_chan,
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
	int n = w->r->ops->compute(w->r, router, in_port, in_vc, &pk, rng, NULL, c);
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
			if (prev_chan != UINT32_MAX)
				cdg_edge(w->g, prev_chan, chan);
			walk_from(w, nr, np, vc, chan, pk, hops + 1, rng);
		}
	}
}

/* Check `route_spec` on `topo_spec`: reachability, VC ranges, path length
 * (minimal algorithms), and CDG acyclicity. Returns 1 when the CDG is
 * acyclic. Random choices (DOR's k/2 tie, Valiant's intermediate) are
 * enumerated: several tie seeds, every intermediate router. */
static int check_routing(const char *topo_spec, const char *route_spec, uint32_t vcs, int minimal)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	char what[256];
	int acyclic = 0;

	snprintf(what, sizeof what, "%s on %s", route_spec, topo_spec);
	if (topo_new(topo_spec, &t, &e) < 0 || route_new(route_spec, t, vcs, &r, &e) < 0) {
		TEST_FAIL_("%s: %s", what, e.msg);
		topo_free(t);
		return 0;
	}
	struct cdg g;
	cdg_init(&g, t->n_ports * vcs);
	struct walk w = {.r = r, .t = t, .g = &g, .spec = what};
	int valiant = !strncmp(route_spec, "valiant", 7);
	for (uint32_t s = 0; s < t->n_routers && !w.bad; s++)
		for (uint32_t d = 0; d < t->n_endpoints && !w.bad; d++) {
			uint32_t n_inter = valiant ? t->n_routers : 1;
			for (uint32_t inter = 0; inter < n_inter; inter++)
				for (uint64_t seed = 0; seed < 4; seed++) {
					struct route_pkt pk = {
						.src_router = s, .dst_router = topo_ep_router(t, d), .dst_ep = d};
					struct rng rng;
					uint8_t lo, hi;
					rng_init(&rng, seed, RNG_CLASS_ROUTER, s * 7919u + d);
					r->ops->inject(r, &pk, &rng, &lo, &hi);
					if (valiant)
						pk.inter = inter;
					w.max_hops = 0;
					/* The packet arrives on a terminal port: any local port that
					 * is not a network port will do; use the first terminal. */
					uint32_t in_port = 0;
					while (in_port < topo_router_ports(t, s) &&
					       !topo_port_is_terminal(t, t->port_base[s] + in_port))
						in_port++;
					walk_from(&w, s, in_port, lo, UINT32_MAX, pk, 0, &rng);
					if (minimal && w.max_hops != topo_distance(t, s, pk.dst_router) && !w.bad++)
						TEST_FAIL_("%s: %u -> endpoint %u in %u hops, distance %u", what, s, d,
							   w.max_hops, topo_distance(t, s, pk.dst_router));
				}
		}
	acyclic = cdg_acyclic(&g);
	cdg_free(&g);
	route_free(r);
	topo_free(t);
	return acyclic;
}

static void test_registry_covered(void)
{
	/* Every registered algorithm has a conformance case below. */
	static const char *const covered[] = {"dor", "valiant", "min"};
	size_t n;
	const struct route_ops *const *all = route_list(&n);
	for (size_t i = 0; i < n; i++) {
		int ok = 0;
		for (size_t k = 0; k < sizeof covered / sizeof *covered; k++)
			ok |= !strcmp(all[i]->name, covered[k]);
		if (!ok)
			TEST_FAIL_("routing function '%s' has no conformance case", all[i]->name);
		CHECK(all[i]->compute && all[i]->inject && all[i]->init && all[i]->help);
	}
}

static void test_dor(void)
{
	CHECK(check_routing("torus:k=5x4", "dor", 2, 1));
	CHECK(check_routing("torus:k=4x4x3", "dor", 4, 1));
	CHECK(check_routing("mesh:k=4x5", "dor", 1, 1));
	/* Negative control: a torus ring without dateline classes has a cyclic
	 * CDG (and deadlocks, test_net's watchdog case). */
	CHECK(!check_routing("torus:k=6", "dor:dateline=0", 1, 1));
}

static void test_valiant(void)
{
	CHECK(check_routing("torus:k=4x3", "valiant", 4, 0));
	CHECK(check_routing("mesh:k=3x4", "valiant", 2, 0));
}

static void test_min(void)
{
	CHECK(check_routing("torus:k=4x4", "min", 4, 1));
	CHECK(check_routing("torus:k=4x4", "min:select=adaptive", 4, 1));
	CHECK(check_routing("hypercube:n=4", "min:select=first", 4, 1));
	CHECK(check_routing("flex:nx=3,ny=3,nz=3,p=1", "min:select=adaptive", 4, 1));
	CHECK(check_routing("dragonfly:a=4,p=1,h=1", "min:select=adaptive", 3, 1));
	/* Trees need no classes: up*-down* (auto picks it on trees). */
	CHECK(check_routing("fattree:k=2,n=3", "min:select=adaptive", 1, 1));
	/* Negative control: no classes on a ring. */
	CHECK(!check_routing("torus:k=6", "min:classes=none,select=first", 1, 1));
}

static void test_route_errors(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hypercube:n=3", &t, &e), &e);
	CHECK_ERR(route_new("dor", t, 2, &r, &e), NL_EUNSUPPORTED, &e,
		  "does not run on topology 'hypercube' (it supports: torus, mesh); set routing_function to one that does: min");
	CHECK_ERR(route_new("min", t, 2, &r, &e), NL_ECONFIG, &e, "needs num_vcs >= the diameter 3");
	CHECK_ERR(route_new("min:select=best", t, 4, &r, &e), NL_EINVAL, &e, "expected one of first, hash, adaptive");
	CHECK(r == NULL);
	topo_free(t);
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("valiant", t, 2, &r, &e), NL_ECONFIG, &e, "multiple of 4");
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_registry_covered);
	TEST_RUN(test_dor);
	TEST_RUN(test_valiant);
	TEST_RUN(test_min);
	TEST_RUN(test_route_errors);
	return test_done();
}
