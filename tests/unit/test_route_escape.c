/* Unit tests: Duato's adaptive routing with escape channels (emu/route/
 * duato.c). The plain channel-dependency graph of a fully adaptive
 * function is cyclic by design; what must be acyclic is the *extended*
 * graph of its escape subfunction (Duato, IEEE TPDS 6(10), 1995, Theorem
 * 1): nodes are the escape channels, edges the direct dependencies (escape
 * c1, then escape c2 at the next hop) and the indirect ones (escape c1,
 * then one or more adaptive hops, then escape c2), collected here from
 * every path the function can produce (every candidate, every VC of its
 * range, several tie seeds). The walk also checks reachability and that
 * the escape hop is offered at every router (the escape subfunction is
 * connected). Negative control: dateline=0 puts every torus escape hop on
 * one VC, whose ring dependencies close a cycle, and the check finds it;
 * and the indirect dependencies are really collected (some edge is not
 * between consecutive hops), so a function that left the escape set and
 * came back through a cycle would be caught. The 1.5x-saturation watchdog
 * for the same pairs is in test_adaptive.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"

#include "route_check.h"

struct ewalk {
	const struct route *r;
	const struct topo *t;
	struct cdg *g;      /* over (global port, VC); only escape nodes get edges */
	uint32_t esc;       /* VCs 0 .. esc-1 are the escape set */
	uint32_t indirect;  /* edges added across adaptive hops */
	int bad;
	const char *what;
};

static void ewalk_from(struct ewalk *w, uint32_t router, uint32_t in_port, uint32_t in_vc, uint32_t last_esc,
		       int adaptive_since, struct route_pkt pk, uint32_t hops, struct rng *rng)
{
	const struct topo *t = w->t;
	struct route_cand c[ROUTE_MAX_CANDS];
	if (w->bad)
		return;
	if (hops > 4 * t->n_routers) {
		w->bad = 1;
		TEST_FAIL_("%s: packet to endpoint %u loops", w->what, pk.dst_ep);
		return;
	}
	pk.hops = (uint8_t)hops;
	int n = w->r->ops->compute(w->r, router, in_port, in_vc, &pk, rng, NULL, c);
	int has_escape = 0;
	for (int k = 0; k < n; k++) {
		uint32_t g = t->port_base[router] + c[k].port;
		if (topo_port_is_terminal(t, g)) {
			if ((t->peer[g] & ~TOPO_EP_BIT) != pk.dst_ep) {
				w->bad = 1;
				TEST_FAIL_("%s: ejects at endpoint %u, not %u", w->what, t->peer[g] & ~TOPO_EP_BIT, pk.dst_ep);
			}
			return;
		}
		if (!topo_port_is_network(t, g) || c[k].vc_hi >= w->r->n_vcs || c[k].vc_lo > c[k].vc_hi) {
			w->bad = 1;
			TEST_FAIL_("%s: bad candidate port %u VCs %u..%u", w->what, c[k].port, c[k].vc_lo, c[k].vc_hi);
			return;
		}
		/* A candidate range is wholly escape or wholly adaptive. */
		if ((c[k].vc_lo < w->esc) != (c[k].vc_hi < w->esc)) {
			w->bad = 1;
			TEST_FAIL_("%s: candidate VCs %u..%u straddle the escape set", w->what, c[k].vc_lo, c[k].vc_hi);
			return;
		}
		has_escape |= c[k].vc_lo < w->esc;
	}
	if (!has_escape) {
		w->bad = 1;
		TEST_FAIL_("%s: no escape hop offered at router %u", w->what, router);
		return;
	}
	for (int k = 0; k < n; k++) {
		uint32_t g = t->port_base[router] + c[k].port;
		uint32_t nr = t->port_router[t->peer[g]], np = t->peer[g] - t->port_base[nr];
		for (uint32_t vc = c[k].vc_lo; vc <= c[k].vc_hi; vc++) {
			uint32_t chan = g * w->r->n_vcs + vc;
			if (vc < w->esc) {
				if (last_esc != UINT32_MAX) {
					cdg_edge(w->g, last_esc, chan);
					w->indirect += adaptive_since;
				}
				ewalk_from(w, nr, np, vc, chan, 0, pk, hops + 1, rng);
			} else {
				ewalk_from(w, nr, np, vc, last_esc, 1, pk, hops + 1, rng);
			}
		}
	}
}

/* Returns 1 when the extended escape graph is acyclic; *indirect counts
 * edges that crossed adaptive hops. */
static int check_escape(const char *topo_spec, const char *route_spec, uint32_t vcs, uint32_t esc,
			uint32_t *indirect)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	char what[256];
	snprintf(what, sizeof what, "%s on %s with %u VCs", route_spec, topo_spec, vcs);
	if (topo_new(topo_spec, &t, &e) < 0 || route_new(route_spec, t, vcs, &r, &e) < 0) {
		TEST_FAIL_("%s: %s", what, e.msg);
		topo_free(t);
		return 0;
	}
	struct cdg g;
	cdg_init(&g, t->n_ports * vcs);
	struct ewalk w = {.r = r, .t = t, .g = &g, .esc = esc, .what = what};
	for (uint32_t s = 0; s < t->n_routers && !w.bad; s++)
		for (uint32_t d = 0; d < t->n_endpoints && !w.bad; d++)
			for (uint64_t seed = 0; seed < 3; seed++) {
				struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = topo_ep_router(t, d), .dst_ep = d};
				struct rng rng;
				uint8_t lo, hi;
				rng_init(&rng, seed, RNG_CLASS_ROUTER, s * 7919u + d);
				r->ops->inject(r, &pk, &rng, &lo, &hi);
				/* Arrive on the first terminal port (a spine without
				 * endpoints: one past its ports, which no function
				 * reads as a network port). */
				uint32_t in_port = 0;
				while (in_port < topo_router_ports(t, s) &&
				       !topo_port_is_terminal(t, t->port_base[s] + in_port))
					in_port++;
				ewalk_from(&w, s, in_port, lo, UINT32_MAX, 0, pk, 0, &rng);
			}
	int acyclic = cdg_acyclic(&g);
	*indirect = w.indirect;
	cdg_free(&g);
	route_free(r);
	topo_free(t);
	return acyclic && !w.bad;
}

static void test_duato_extended_cdg(void)
{
	static const struct {
		const char *topo;
		uint32_t vcs, esc;
	} cases[] = {
		{"torus:k=4x3", 4, 2},     {"torus:k=4x4", 3, 2},    {"torus:k=3x3x3", 4, 2},
		{"torus:k=5x4", 4, 2},     {"torus:k=8x3", 4, 2},     {"mesh:k=3x4", 2, 1},     {"hypercube:n=4", 4, 1},
		{"foldedhypercube:n=6", 4, 1}, {"foldedhypercube:n=5", 2, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t indirect = 0;
		int ok = check_escape(cases[i].topo, "duato", cases[i].vcs, cases[i].esc, &indirect);
		if (!ok)
			TEST_FAIL_("duato on %s: extended escape dependency graph has a cycle", cases[i].topo);
		fprintf(stderr, "  duato on %s: %u indirect escape dependencies\n", cases[i].topo, indirect);
		/* Packets do leave the escape set and come back. */
		CHECK_UINT(indirect, >, 0);
	}
}

/* updown_adaptive on irregular graphs: the escape VC (0) is absorbing, so
 * its extended graph has no indirect edges and must be acyclic. */
static void test_updown_adaptive_extended_cdg(void)
{
	static const char *const topos[] = {
		"dln:n=16,d=4,seed=3", "p2(torus:k=4x4):trials=2", "p3(torus:k=4x4):trials=2",
		"graph:file=" TEST_SRC("tests/data/topo/petersen.edges") ",p=1", "torus:k=4x4", "myriclos:n=32",
	};
	for (size_t i = 0; i < sizeof topos / sizeof *topos; i++) {
		uint32_t indirect = 0;
		if (!check_escape(topos[i], "updown_adaptive", 4, 1, &indirect))
			TEST_FAIL_("updown_adaptive on %s: extended escape dependency graph has a cycle", topos[i]);
		CHECK_UINT(indirect, ==, 0);
	}
}

/* updown: every route is up hops then down hops and as short as the
 * shortest legal route, found by BFS over (router, came down) states. */
static void test_updown_legal(void)
{
	static const char *const topos[] = {"dln:n=16,d=4,seed=3", "p2(torus:k=4x4):trials=2", "myriclos:n=32",
					    "torus:k=5x4", "hypercube:n=4"};
	for (size_t i = 0; i < sizeof topos / sizeof *topos; i++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(topos[i], &t, &e), &e);
		CHECK_OK(route_new("updown", t, 1, &r, &e), &e);
		uint32_t n = t->n_routers;
		uint32_t *lvl = malloc(n * sizeof *lvl), *q = malloc(2 * n * sizeof *q), *d = malloc(2 * n * sizeof *d);
		topo_bfs(t, 0, lvl, q);
		int bad = 0;
		for (uint32_t s = 0; s < n && !bad; s++) {
			/* BFS over (router, down) from (s, 0): the legal distances. */
			for (uint32_t k = 0; k < 2 * n; k++)
				d[k] = UINT32_MAX;
			uint32_t qh = 0, qt = 0;
			d[2 * s] = 0;
			q[qt++] = 2 * s;
			while (qh < qt) {
				uint32_t st = q[qh++], a = st / 2, down = st % 2;
				for (uint32_t g = t->port_base[a]; g < t->port_base[a + 1]; g++) {
					if (!topo_port_is_network(t, g))
						continue;
					uint32_t b = t->port_router[t->peer[g]];
					int up = lvl[b] < lvl[a] || (lvl[b] == lvl[a] && b < a);
					if (up && down)
						continue;
					uint32_t ns = 2 * b + !up;
					if (d[ns] == UINT32_MAX) {
						d[ns] = d[st] + 1;
						q[qt++] = ns;
					}
				}
			}
			for (uint32_t ep = 0; ep < t->n_endpoints && !bad; ep++) {
				uint32_t dst = topo_ep_router(t, ep);
				uint32_t want = d[2 * dst] < d[2 * dst + 1] ? d[2 * dst] : d[2 * dst + 1];
				struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = dst, .dst_ep = ep};
				uint32_t cur = s, in_port = UINT32_MAX, hops = 0;
				int came_down = 0;
				while (!bad) {
					struct route_cand c[ROUTE_MAX_CANDS];
					int nc = r->ops->compute(r, cur, in_port, 0, &pk, NULL, NULL, c);
					uint32_t g = t->port_base[cur] + c[0].port;
					if (nc != 1) {
						bad = 1;
						break;
					}
					if (topo_port_is_terminal(t, g))
						break;
					uint32_t b = t->port_router[t->peer[g]];
					int up = lvl[b] < lvl[cur] || (lvl[b] == lvl[cur] && b < cur);
					if (up && came_down) {
						TEST_FAIL_("updown on %s: %u -> %u goes up at %u after a down hop", topos[i], s,
							   dst, cur);
						bad = 1;
					}
					came_down |= !up;
					in_port = t->peer[g] - t->port_base[b];
					cur = b;
					hops++;
				}
				if (!bad && (cur != dst || hops != want)) {
					TEST_FAIL_("updown on %s: %u -> %u ends at %u in %u hops, shortest legal %u", topos[i], s,
						   dst, cur, hops, want);
					bad = 1;
				}
			}
		}
		free(lvl);
		free(q);
		free(d);
		route_free(r);
		topo_free(t);
	}
}

/* The check finds a cycle: one escape VC on a torus (no datelines). */
static void test_duato_negative(void)
{
	uint32_t indirect = 0;
	CHECK_INT(check_escape("torus:k=4x3", "duato:dateline=0", 3, 1, &indirect), ==, 0);
	CHECK_INT(check_escape("torus:k=5x5", "duato:dateline=0", 2, 1, &indirect), ==, 0);
}

static void test_duato_refuse(void)
{
	struct route *ra = NULL;
	struct nl_err ea = {0};
	struct topo *ta = NULL;
	CHECK_OK(topo_new("dln:n=16,d=4,seed=3", &ta, &ea), &ea);
	CHECK_ERR(route_new("updown_adaptive", ta, 1, &ra, &ea), NL_ECONFIG, &ea, "num_vcs >= 2");
	CHECK_ERR(route_new("updown:root=99", ta, 1, &ra, &ea), NL_ERANGE, &ea, "root");
	topo_free(ta);
	struct nl_err e = {0};
	struct topo *t = NULL;
	struct route *r = NULL;
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("duato", t, 2, &r, &e), NL_ECONFIG, &e, "num_vcs >= 3");
	topo_free(t);
	t = NULL;
	CHECK_OK(topo_new("hypercube:n=3", &t, &e), &e);
	CHECK_ERR(route_new("duato", t, 1, &r, &e), NL_ECONFIG, &e, "num_vcs >= 2");
	topo_free(t);
	t = NULL;
	CHECK_OK(topo_new("dragonfly:a=2,p=1,h=1", &t, &e), &e);
	CHECK_ERR(route_new("duato", t, 4, &r, &e), NL_EUNSUPPORTED, &e, "duato");
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_duato_extended_cdg);
	TEST_RUN(test_duato_negative);
	TEST_RUN(test_duato_refuse);
	TEST_RUN(test_updown_adaptive_extended_cdg);
	TEST_RUN(test_updown_legal);
	return test_done();
}
