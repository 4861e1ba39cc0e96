/* Unit tests: routing algorithms (emu/route). Registry conformance: every
 * algorithm reaches every destination with VC ranges in range, minimal
 * ones by shortest paths, and the channel-dependency graph (CDG) of all the
 * paths it can produce is acyclic: the deadlock-freedom argument of each
 * file header, checked (Dally & Towles §14.1, Duato's theorem for the
 * deterministic case). Negative controls make sure the checker finds
 * cycles where deadlock is possible. The registry test walks every
 * registered algorithm on one instance of every family it declares, with a
 * synthetic congestion view; min's hash selection is checked to spread. */
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
	/* Synthetic congestion (NULL: no view, as deterministic callers may
	 * pass): occupancy per (global port, VC), as a router's output VCs
	 * hold it, handed to compute through the per-router view. */
	const uint16_t *occ;
	uint32_t vc_buf_size;
	int reacts; /* some head's candidates changed with the view */
};

/* The view router `router` gives routing over w->occ. */
static struct route_view walk_view(const struct walk *w, uint32_t router)
{
	return (struct route_view){
		.occ_base = w->occ + (size_t)w->t->port_base[router] * w->r->n_vcs,
		.occ_stride = sizeof *w->occ,
		.n_vcs = w->r->n_vcs,
		.vc_buf_size = w->vc_buf_size,
		.gocc_base = w->occ,
	};
}

static int cands_equal(const struct route_cand *a, int na, const struct route_cand *b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++)
		if (a[i].port != b[i].port || a[i].vc_lo != b[i].vc_lo || a[i].vc_hi != b[i].vc_hi ||
		    a[i].prio != b[i].prio)
			return 0;
	return 1;
}

/* The preferred port of a candidate list: the highest prio, lowest index. */
static uint32_t cands_best(const struct route_cand *c, int n)
{
	int b = 0;
	for (int i = 1; i < n; i++)
		if (c[i].prio > c[b].prio)
			b = i;
	return c[b].port;
}

/* Adaptivity against the view: compute with every VC of every port empty,
 * then once per offered port with that port saturated and the rest empty.
 * An algorithm whose answer never depends on the view passes; one whose
 * answer does must not prefer the saturated port whenever it offers
 * another (UGAL / Merlin's credit-based choice, Dally & Towles §9.4). */
static void walk_react(struct walk *w, uint32_t router, uint32_t in_port, uint32_t in_vc,
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
		if (other && cands_best(cs, ns) == hot && wrong < 0)
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
};

/* Check route r on t: reachability, VC ranges, path length (minimal
 * algorithms), and CDG acyclicity. Returns 1 when the CDG is acyclic. */
static int check_route(const struct topo *t, const struct route *r, const char *what, const struct walk_opts *o)
{
	uint32_t vcs = r->n_vcs;
	struct cdg g;
	cdg_init(&g, t->n_ports * vcs);
	struct walk w = {.r = r, .t = t, .g = &g, .spec = what, .vc_buf_size = o->buf ? o->buf : 8};
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
						.src_router = s, .dst_router = topo_ep_router(t, d), .dst_ep = d};
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
static int check_routing(const char *topo_spec, const char *route_spec, uint32_t vcs, int minimal)
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

/* One small instance of every topology family (the registry test checks
 * none is missing), so each algorithm is walked on every family it
 * declares. */
static const char *const family_specs[] = {
	"torus:k=4x3",
	"mesh:k=3x3",
	"full:n=5,p=1",
	"hyperx:s=3x3,t=1",
	"hypercube:n=3",
	"foldedhypercube:n=4",
	"flatfly:m=3,n=3",
	"flex:nx=3,ny=2,nz=2",
	"dragonfly:a=2,p=1,h=1",
	"fattree:k=2,n=3",
	"clos:l=3,r=8",
	"slimfly:q=5,p=1",
	"equality:n=14,sa=-1/1/3/9,sb=4,p=1",
	"ndt:k=3x4x3",
	"graph:file=" TEST_SRC("tests/data/topo/petersen.edges") ",p=1",
	"dln:n=16,d=4,seed=3",
	"myriclos:n=64",
	"p1(torus:k=4x4):trials=2",
	"p2(torus:k=4x4):trials=2",
	"p3(torus:k=4x4):trials=2",
};
#define N_FAMILY_SPECS (sizeof family_specs / sizeof *family_specs)

static int route_supports(const struct route_ops *ops, const char *family)
{
	if (!ops->families)
		return 1;
	for (size_t i = 0; ops->families[i]; i++)
		if (!strcmp(ops->families[i], family))
			return 1;
	return 0;
}

/* Walk one algorithm (by its registry spec) on every family it declares,
 * with the fewest VCs it accepts and a synthetic congestion view. With
 * `strict` every declared family must accept some VC count; otherwise
 * (parameter variants such as ugal:mode=booksim) a family the variant
 * refuses as unsupported is skipped. With `acyclic` the CDG of every path
 * walked must be acyclic (deterministic algorithms, and adaptive ones
 * whose every channel is deadlock-free by classes or levels). Returns the
 * number of families walked; *reacts says whether any head's candidates
 * changed with the view. */
static int conform_one(const char *spec, const struct route_ops *ops, int *reacts, int strict, int acyclic_req)
{
	int walked = 0;
	*reacts = 0;
	for (size_t f = 0; f < N_FAMILY_SPECS; f++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		if (topo_new(family_specs[f], &t, &e) < 0) {
			TEST_FAIL_("%s: %s", family_specs[f], e.msg);
			continue;
		}
		int rc = NL_ECONFIG;
		uint32_t vcs = 1;
		for (; vcs <= 16 && rc == NL_ECONFIG; vcs++)
			rc = route_new(spec, t, vcs, &r, &e) < 0 ? e.code : 0;
		vcs--;
		if (!route_supports(ops, t->ops->name)) {
			if (rc != NL_EUNSUPPORTED)
				TEST_FAIL_("%s on %s: undeclared family accepted (%d)", spec, family_specs[f], rc);
			route_free(r);
			topo_free(t);
			continue;
		}
		if (rc == NL_EUNSUPPORTED && !strict) {
			topo_free(t);
			continue;
		}
		if (rc) {
			TEST_FAIL_("%s on %s: no VC count up to 16 accepted: %s", spec, family_specs[f], e.msg);
			topo_free(t);
			continue;
		}
		char what[512];
		snprintf(what, sizeof what, "%s on %s with %u VCs", spec, family_specs[f], vcs);
		int rx = 0;
		struct walk_opts o = {.with_view = 1, .seeds = 8, .reacts = &rx};
		int acyclic = check_route(t, r, what, &o);
		if (acyclic_req && !acyclic)
			TEST_FAIL_("%s: cyclic channel dependencies (%s)", what,
				   ops->is_deterministic ? "deterministic algorithm" : "deadlock-free by its header");
		*reacts |= rx;
		walked++;
		route_free(r);
		topo_free(t);
	}
	return walked;
}

static void test_registry_conformance(void)
{
	size_t n, n_topo;
	const struct route_ops *const *all = route_list(&n);
	const struct topo_ops *const *topos = topo_list(&n_topo);
	/* family_specs covers the topology registry. */
	for (size_t i = 0; i < n_topo; i++) {
		int ok = 0;
		for (size_t f = 0; f < N_FAMILY_SPECS; f++) {
			size_t len = strlen(topos[i]->name);
			ok |= !strncmp(family_specs[f], topos[i]->name, len) &&
			      (family_specs[f][len] == ':' || family_specs[f][len] == '(');
		}
		if (!ok)
			TEST_FAIL_("topology family '%s' has no instance in family_specs", topos[i]->name);
	}
	for (size_t i = 0; i < n; i++) {
		CHECK(all[i]->compute && all[i]->inject && all[i]->init && all[i]->help);
		int reacts;
		int walked = conform_one(all[i]->name, all[i], &reacts, 1, all[i]->is_deterministic);
		fprintf(stderr, "  %s: walked on %d families%s\n", all[i]->name, walked,
			reacts ? ", candidates follow the view" : ", candidates independent of the view");
		if (!walked)
			TEST_FAIL_("routing function '%s' runs on no registered topology family", all[i]->name);
	}
	/* min's adaptive selection: its candidate list must be valid under a
	 * view too (the VC allocator makes the choice, so it need not move). */
	int reacts;
	struct nl_err e = {0};
	CHECK(conform_one("min:select=adaptive", route_find("min", &e), &reacts, 1, 0) > 0);
	/* The adaptive functions of issue 11 and their variants, on every
	 * family the registry lets each run on. Those deadlock-free by VC
	 * classes or up*-down* levels must walk an acyclic CDG; BookSim's
	 * own dragonfly rule is walked for reachability only (its cycle is
	 * test_ugal_booksim_cycle). */
	static const struct {
		const char *spec;
		int acyclic;
		int min_walked;
		int adaptive; /* candidates must follow the view */
	} variants[] = {
		{"ugal", 1, 12, 1},
		{"ugal:mode=global", 1, 12, 1},
		{"ugal:inter=group,threshold=4", 1, 2, 1},
		{"ugal:mode=global,inter=group", 1, 2, 1},
		{"ugal:mode=booksim", 0, 3, 1},
		{"nca", 1, 2, 0},
		{"anca", 1, 2, 1},
	};
	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		char name[16];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(variants[i].spec, ":"), variants[i].spec);
		int walked = conform_one(variants[i].spec, route_find(name, &e), &reacts, 0, variants[i].acyclic);
		fprintf(stderr, "  %s: walked on %d families%s\n", variants[i].spec, walked,
			reacts ? ", candidates follow the view" : ", candidates independent of the view");
		CHECK_INT(walked, >=, variants[i].min_walked);
		CHECK_INT(reacts, ==, variants[i].adaptive);
	}
}

/* BookSim's ugal_dragonflynew puts every phase-0 hop on VC 0: its CDG has
 * a cycle (what the help and docs/engine.md say), and the default mode's
 * hop classes remove it on the same network, walked the same way. */
static void test_ugal_booksim_cycle(void)
{
	struct nl_err e = {0};
	struct topo *t = NULL;
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	static const struct {
		const char *spec;
		uint32_t vcs;
		int acyclic;
	} cases[] = {{"ugal:mode=booksim", 3, 0}, {"ugal", 6, 1}, {"ugal:mode=global", 6, 1}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct route *r = NULL;
		CHECK_OK(route_new(cases[i].spec, t, cases[i].vcs, &r, &e), &e);
		/* Deep synthetic queues so BookSim's +30 threshold is crossed. */
		struct walk_opts o = {.with_view = 1, .seeds = 24, .buf = 1000};
		CHECK_INT(check_route(t, r, cases[i].spec, &o), ==, cases[i].acyclic);
		route_free(r);
	}
	struct route *r = NULL;
	CHECK_ERR(route_new("ugal:mode=booksim", t, 4, &r, &e), NL_ECONFIG, &e, "needs num_vcs = 3");
	CHECK_ERR(route_new("ugal", t, 5, &r, &e), NL_ECONFIG, &e, "needs num_vcs >= 2 x the diameter = 6");
	topo_free(t);
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("ugal:inter=group", t, 8, &r, &e), NL_EUNSUPPORTED, &e, "inter=group needs");
	CHECK_ERR(route_new("ugal:mode=booksim", t, 8, &r, &e), NL_EUNSUPPORTED, &e, "use mode=local");
	CHECK_ERR(route_new("nca", t, 2, &r, &e), NL_EUNSUPPORTED, &e, "does not run on topology 'torus'");
	topo_free(t);
}


/* Negative controls for the view check: an algorithm that, offered a
 * saturated port and an empty one, keeps preferring the saturated one. */
static int anti_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	struct nl_err e = {0};
	int n = route_find("min", &e)->compute(r, router, in_port, in_vc, p, rng, v, out);
	if (!v || n < 2)
		return n;
	/* Prefer the fullest port: the opposite of adaptive routing. */
	int b = 0;
	for (int i = 1; i < n; i++)
		if (route_view_occ(v, out[i].port, out[i].vc_lo) > route_view_occ(v, out[b].port, out[b].vc_lo))
			b = i;
	for (int i = 0; i < n; i++)
		out[i].prio = (int16_t)(i == b);
	return n;
}

static void test_view_negative(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	const struct route_ops *min = route_find("min", &e);
	struct route_ops anti = *min;
	anti.compute = anti_compute;
	CHECK_OK(topo_new("hypercube:n=3", &t, &e), &e);
	CHECK_OK(route_new("min:select=adaptive", t, 3, &r, &e), &e);
	r->ops = &anti;
	int before = test_failed_checks, reacts = 0;
	fprintf(stderr, "  (negative control: one FAIL line about a saturated port is expected)\n");
	struct walk_opts o = {.with_view = 1, .seeds = 1, .reacts = &reacts};
	check_route(t, r, "anti-adaptive on hypercube:n=3", &o);
	/* It must have been caught: take back the failure it recorded (the
	 * FAIL line above is expected). */
	int caught = test_failed_checks > before;
	test_failed_checks = before;
	CHECK(reacts);
	if (!caught)
		TEST_FAIL_("an algorithm preferring a saturated port passed the view check");
	r->ops = min;
	route_free(r);
	topo_free(t);
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

/* `min`'s selection among the minimal ports (the ordered list that
 * select=adaptive returns whole): `first` takes element 0 everywhere;
 * `hash` must take a fixed element per (source, destination, router) and
 * spread over the list, each element of an m-port list taken about 1/m of
 * the time over many flows (ECMP-like). Forcing hash to "first" fails. */
static void check_min_select(const char *topo_spec, uint32_t vcs)
{
	struct topo *t = NULL;
	struct route *ra = NULL, *rf = NULL, *rh = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new(topo_spec, &t, &e), &e);
	CHECK_OK(route_new("min:select=adaptive", t, vcs, &ra, &e), &e);
	CHECK_OK(route_new("min:select=first", t, vcs, &rf, &e), &e);
	CHECK_OK(route_new("min:select=hash", t, vcs, &rh, &e), &e);
	/* hist[m][i]: element i picked from an m-port list. */
	uint64_t hist[ROUTE_MAX_CANDS + 1][ROUTE_MAX_CANDS] = {{0}};
	uint64_t multi = 0, bad = 0;
	struct rng rng;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, 0);
	/* Flows between endpoints' routers, seen at every router. */
	for (uint32_t se = 0; se < t->n_endpoints; se++)
		for (uint32_t r = 0; r < t->n_routers; r++)
			for (uint32_t de = 0; de < t->n_endpoints; de++) {
				uint32_t s = topo_ep_router(t, se), d = topo_ep_router(t, de);
				if (r == d)
					continue;
				struct route_pkt p = {.src_router = s, .dst_router = d, .dst_ep = de};
				struct route_cand ca[ROUTE_MAX_CANDS], cf[ROUTE_MAX_CANDS], ch[ROUTE_MAX_CANDS];
				struct route_pkt p2 = p, p3 = p;
				int na = ra->ops->compute(ra, r, 0, 0, &p, &rng, NULL, ca);
				int nf = rf->ops->compute(rf, r, 0, 0, &p2, &rng, NULL, cf);
				int nh = rh->ops->compute(rh, r, 0, 0, &p3, &rng, NULL, ch);
				if (nf != 1 || nh != 1 || cf[0].port != ca[0].port) {
					bad++;
					continue;
				}
				int pick = -1;
				for (int i = 0; i < na; i++)
					if (ca[i].port == ch[0].port)
						pick = i;
				if (pick < 0) {
					bad++;
					continue;
				}
				if (na > 1)
					multi++;
				hist[na][pick]++;
			}
	CHECK_UINT(bad, ==, 0);
	CHECK_UINT(multi, >=, 1000); /* enough flows with a choice */
	for (int m = 2; m <= ROUTE_MAX_CANDS; m++) {
		uint64_t tot = 0;
		for (int i = 0; i < m; i++)
			tot += hist[m][i];
		if (tot < 200)
			continue;
		for (int i = 0; i < m; i++)
			if (hist[m][i] * m * 2 < tot || hist[m][i] * m > tot * 2)
				TEST_FAIL_("%s: select=hash picked element %d of %d-port lists %llu times of %llu "
					   "(expected about 1/%d)", topo_spec, i, m, (unsigned long long)hist[m][i],
					   (unsigned long long)tot, m);
	}
	route_free(ra);
	route_free(rf);
	route_free(rh);
	topo_free(t);
}

static void test_min_select(void)
{
	check_min_select("hypercube:n=5", 5);
	check_min_select("torus:k=6x6", 6);
	check_min_select("fattree:k=4,n=3", 1);
	check_min_select("hyperx:s=4x4x3,t=1", 3);
}

static void test_route_errors(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hypercube:n=3", &t, &e), &e);
	CHECK_ERR(route_new("dor", t, 2, &r, &e), NL_EUNSUPPORTED, &e,
		  "does not run on topology 'hypercube' (it supports: torus, mesh); set routing_function to one that does: min");
	CHECK_ERR(route_new("min:select=hash", t, 2, &r, &e), NL_ECONFIG, &e, "needs num_vcs >= the diameter 3");
	CHECK_ERR(route_new("min:select=best", t, 4, &r, &e), NL_EINVAL, &e, "expected one of first, hash, adaptive");
	CHECK(r == NULL);
	topo_free(t);
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("valiant", t, 2, &r, &e), NL_ECONFIG, &e, "multiple of 4");
	topo_free(t);
}

/* Issue 11 part 7: `min`'s defaults per family. On the untrunked HyperX
 * family it is dimension order (select=first) on every VC, BookSim's
 * ran_min: one VC suffices and the channel dependencies are acyclic;
 * elsewhere (and on a trunked HyperX) hash with one VC class per hop. */
static void test_min_defaults(void)
{
	static const char *const dim_order[] = {"flatfly:m=4,n=4", "hyperx:s=3x4x2,t=2", "hypercube:n=4",
						"full:n=5,p=1"};
	for (size_t i = 0; i < sizeof dim_order / sizeof *dim_order; i++) {
		CHECK(check_routing(dim_order[i], "min", 1, 1));
		/* Same candidates as the explicit spec, every VC. */
		struct topo *t = NULL;
		struct route *a = NULL, *b = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(dim_order[i], &t, &e), &e);
		CHECK_OK(route_new("min", t, 4, &a, &e), &e);
		CHECK_OK(route_new("min:select=first,classes=none", t, 4, &b, &e), &e);
		for (uint32_t s = 0; s < t->n_routers; s++)
			for (uint32_t d = 0; d < t->n_routers; d++) {
				if (s == d)
					continue;
				struct route_pkt pa = {.src_router = s, .dst_router = d, .dst_ep = d * (t->n_endpoints / t->n_routers)};
				struct route_pkt pb = pa;
				struct route_cand ca[ROUTE_MAX_CANDS], cb[ROUTE_MAX_CANDS];
				int na = a->ops->compute(a, s, 0, 0, &pa, NULL, NULL, ca);
				int nb = b->ops->compute(b, s, 0, 0, &pb, NULL, NULL, cb);
				if (na != 1 || nb != 1 || ca[0].port != cb[0].port || ca[0].vc_lo != 0 || ca[0].vc_hi != 3) {
					TEST_FAIL_("%s: min default at router %u to %u: %d cands port %u VCs %u..%u, expected port %u VCs 0..3",
						   dim_order[i], s, d, na, ca[0].port, ca[0].vc_lo, ca[0].vc_hi, cb[0].port);
					s = t->n_routers;
					break;
				}
			}
		route_free(a);
		route_free(b);
		topo_free(t);
	}
	/* Hop classes stay where dimension order is not the default. */
	static const char *const per_hop[] = {"hyperx:s=3x3,k=2,t=1", "dragonfly:a=4,p=2,h=2", "torus:k=4x4"};
	for (size_t i = 0; i < sizeof per_hop / sizeof *per_hop; i++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(per_hop[i], &t, &e), &e);
		CHECK_ERR(route_new("min", t, 1, &r, &e), NL_ECONFIG, &e, "one VC class per hop");
		topo_free(t);
	}
}

/* nca draws its up-port per packet per hop (BookSim's RandomInt), not a
 * fixed hash: one flow, routed 64 times from a leaf, uses every up-port
 * of a fattree:k=4,n=2 leaf; anca takes the emptier of its two draws. */
static void test_nca_random(void)
{
	struct nl_err e = {0};
	struct topo *t = NULL;
	struct route *r = NULL, *ra = NULL;
	CHECK_OK(topo_new("fattree:k=4,n=2", &t, &e), &e);
	CHECK_OK(route_new("nca", t, 1, &r, &e), &e);
	CHECK_OK(route_new("anca", t, 1, &ra, &e), &e);
	uint32_t src = topo_ep_router(t, 0), d = t->n_endpoints - 1;
	CHECK(topo_ep_router(t, d) != src && topo_level(t, src) == 0);
	uint32_t ups[ROUTE_MAX_CANDS];
	uint32_t n_up = topo_min_ports(t, src, topo_ep_router(t, d), 0, ups, ROUTE_MAX_CANDS);
	CHECK_UINT(n_up, ==, 4);
	uint32_t seen = 0;
	uint16_t *occ = calloc(topo_router_ports(t, src), sizeof *occ);
	occ[ups[0]] = 5; /* anca must never pick this one when it drew another */
	struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 1, .vc_buf_size = 8};
	struct rng rng;
	rng_init(&rng, 7, RNG_CLASS_ROUTER, src);
	uint32_t anca_hot = 0;
	for (int i = 0; i < 64; i++) {
		struct route_pkt pk = {.src_router = src, .dst_router = topo_ep_router(t, d), .dst_ep = d};
		struct route_cand c;
		CHECK_INT(r->ops->compute(r, src, 0, 0, &pk, &rng, &v, &c), ==, 1);
		seen |= 1u << c.port;
		CHECK_INT(ra->ops->compute(ra, src, 0, 0, &pk, &rng, &v, &c), ==, 1);
		anca_hot += c.port == ups[0];
	}
	uint32_t want = 0;
	for (uint32_t i = 0; i < n_up; i++)
		want |= 1u << ups[i];
	CHECK_UINT(seen, ==, want);
	/* Only when both draws hit the hot port: about 1/16 of 64. */
	CHECK_UINT(anca_hot, <, 12);
	free(occ);
	route_free(r);
	route_free(ra);
	topo_free(t);
}

/* The groups a deterministic route visits from router s to router d (a
 * router-to-router walk; *n_hops hops, *n_global of them global). */
static uint32_t walk_groups(const struct topo *t, const struct route *r, uint32_t s, uint32_t d, uint32_t a,
			    uint32_t *groups, uint32_t *n_hops, uint32_t *n_global)
{
	struct route_pkt pk = {.src_router = s, .dst_router = d, .dst_ep = d * (t->n_endpoints / t->n_routers)};
	struct rng rng;
	struct route_cand c[ROUTE_MAX_CANDS];
	uint32_t cur = s, n_g = 0;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, s);
	groups[n_g++] = s / a;
	*n_hops = *n_global = 0;
	while (cur != d && *n_hops < 8) {
		CHECK_INT(r->ops->compute(r, cur, 0, 0, &pk, &rng, NULL, c), ==, 1);
		uint32_t g = t->port_base[cur] + c[0].port;
		uint32_t next = t->port_router[t->peer[g]];
		*n_global += topo_link_class(t, g) == TOPO_LINK_GLOBAL;
		pk.hops++;
		(*n_hops)++;
		cur = next;
		if (cur / a != groups[n_g - 1])
			groups[n_g++] = cur / a;
	}
	return n_g;
}

/* group_min (BookSim's min_dragonflynew) on dragonfly:a=4,p=2,h=2: every
 * pair takes at most local, global, local, never enters a third group,
 * uses VC 0 before the global hop and VC 1 from it on, and its CDG is
 * acyclic with 2 VCs; 1 VC is refused. Control: router-minimal `min`
 * does cross a third group for some pair, so the check can fail. */
static void test_group_min(void)
{
	struct topo *t = NULL;
	struct route *r = NULL, *m = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	CHECK_ERR(route_new("group_min", t, 1, &r, &e), NL_ECONFIG, &e, "num_vcs = 1, expected >= 2");
	CHECK_OK(route_new("group_min", t, 2, &r, &e), &e);
	CHECK_OK(route_new("min:select=first,classes=none", t, 2, &m, &e), &e);
	uint32_t a = 4, groups[16], hops, glob, min_third = 0, pairs = 0;
	for (uint32_t s = 0; s < t->n_routers; s++)
		for (uint32_t d = 0; d < t->n_routers; d++) {
			if (s == d)
				continue;
			uint32_t ng = walk_groups(t, r, s, d, a, groups, &hops, &glob);
			int same = s / a == d / a;
			CHECK_UINT(ng, ==, same ? 1u : 2u);
			CHECK_UINT(groups[ng - 1], ==, d / a);
			CHECK_UINT(glob, ==, same ? 0u : 1u);
			CHECK_UINT(hops, <=, same ? 1u : 3u);
			/* VC 0 up to the global hop, VC 1 from it on. */
			uint32_t seen_global = 0;
			uint32_t cur = s;
			struct route_pkt pk = {.src_router = s, .dst_router = d};
			struct rng rng;
			struct route_cand c[ROUTE_MAX_CANDS];
			rng_init(&rng, 1, RNG_CLASS_ROUTER, s);
			for (uint32_t i = 0; i < hops; i++) {
				r->ops->compute(r, cur, 0, 0, &pk, &rng, NULL, c);
				uint32_t g = t->port_base[cur] + c[0].port;
				seen_global |= topo_link_class(t, g) == TOPO_LINK_GLOBAL;
				CHECK_UINT(c[0].vc_lo, ==, seen_global);
				CHECK_UINT(c[0].vc_hi, ==, seen_global);
				pk.hops++;
				cur = t->port_router[t->peer[g]];
			}
			pairs++;
			min_third += walk_groups(t, m, s, d, a, groups, &hops, &glob) > 2;
		}
	CHECK_UINT(pairs, ==, 36u * 35u);
	CHECK(min_third > 0);
	route_free(m);
	route_free(r);
	topo_free(t);
	CHECK(check_routing("dragonfly:a=4,p=2,h=2", "group_min", 2, 0));
	CHECK(check_routing("dragonfly:a=4,p=1,h=1,g=3", "group_min", 4, 0));
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("group_min", t, 2, &r, &e), NL_EUNSUPPORTED, &e, "does not run on topology 'torus'");
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_registry_conformance);
	TEST_RUN(test_ugal_booksim_cycle);
	TEST_RUN(test_nca_random);
	TEST_RUN(test_view_negative);
	TEST_RUN(test_dor);
	TEST_RUN(test_valiant);
	TEST_RUN(test_min);
	TEST_RUN(test_min_select);
	TEST_RUN(test_min_defaults);
	TEST_RUN(test_route_errors);
	TEST_RUN(test_group_min);
	return test_done();
}
