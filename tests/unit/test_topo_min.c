/* Unit tests: closed-form minimal routing (issue 10 part 3).
 *
 * On every structured family the closed-form minimal next hops
 * (topo_min_ports) must be the list an all-pairs BFS table gives, element
 * by element and in order, because `min`'s select=first and select=hash
 * index into it: then `min` routes exactly as it did with its table
 * (checked too, against `min:table=always`). The closed-form diameter must
 * be BFS's. At sizes no table could hold (a 131,136-router dragonfly, a
 * 100,000-router HyperX) `min` must still build and route minimally. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"
#include "topo/topo_dragonfly.h"
#include "topo/topo_internal.h"
#include "test.h"
#include "route_check.h"

/* A failed check with its own message. */
#define CHECK_MSG(c, ...)                     \
	do {                                  \
		if (!(c))                     \
			TEST_FAIL_(__VA_ARGS__); \
	} while (0)

/* Every family with closed-form minimal next hops or distance, with the
 * shapes that exercise its special cases (trunking, partial trees,
 * circulant dragonfly ports, ...). Families without them (graph, dln,
 * myriclos, p1/p2/p3) keep the table; the test checks that too. */
static const char *const structured_specs[] = {
	"torus:k=4x3x2",
	"torus:k=5,n=2,p=2",
	"mesh:k=4x3",
	"mesh:k=3x3x3,p=2",
	"full:n=6,p=2,k=2",
	"fly:k=6",
	"cmesh:k=4,c=4",
	"cmesh:k=3,c=9",
	"hyperx:s=3x4x2,k=1x2x1,t=2",
	"hyperx:s=4x4,k=2,t=1",
	"hypercube:n=5,p=2",
	"foldedhypercube:n=5",
	"flatfly:m=3,n=3",
	"flatfly:m=4,n=3,k=2",
	"flex:nx=3,ny=4,nz=3,p=2",
	"flex:nx=3,ny=2,nz=2",
	/* FleX's closed-form blocks: longer rings, odd and even, and K_2
	 * axes, whose walks alternate. */
	"flex:nx=2,ny=3,nz=5,p=1",
	"flex:nx=4,ny=3,nz=4,p=1",
	"flex:nx=2,ny=2,nz=3,p=1",
	"flex:nx=3,ny=3,nz=6,p=1",
	/* past TOPO_FLEX_DIST_NZ layers: distances searched, not tabled */
	"flex:nx=2,ny=3,nz=67,p=1",
	"dragonfly:a=4,p=2,h=2",
	"dragonfly:a=4,p=1,h=3,g=6",
	"dragonfly:a=2,p=1,h=1",
	"dragonfly:a=3,p=1,h=2,g=4",
	"dragonfly:a=6,p=1,h=2,g=8",
	"dragonfly:a=1,p=2,h=4,g=5",
	"dragonfly:a=8,p=1,h=4",
	"dragonfly:a=3,p=1,h=3",
	"dragonfly:a=5,p=1,h=1",
	"dragonfly:a=2,p=1,h=6",
	"dragonfly:a=6,p=1,h=5",
	"dragonfly:a=1,p=1,h=3",
	"dragonfly:a=8,p=1,h=4,g=32",
	"dragonfly:a=4,p=1,h=4,g=9",
	"dragonfly:a=2,p=1,h=5,g=4",
	"dragonfly:a=5,p=1,h=3,g=8",
	"dragonfly:a=12,p=1,h=6,g=70",
	/* Few groups, each reached by every router's own global links
	 * (dragonfly_find_diameter's shortcut), and one group too many. */
	"dragonfly:a=6,p=1,h=3,g=2",
	"dragonfly:a=6,p=1,h=3,g=4",
	"dragonfly:a=4,p=1,h=4,g=5",
	"dragonfly:a=4,p=1,h=2,g=5",
	"dragonfly:a=1,p=1,h=3,g=2",
	"fattree:k=3,n=3",
	"fattree:k=2,n=4",
	"clos:l=3,r=8",
	"clos:l=3,r=12,n=100,taper=2x1",
	"slimfly:q=5,p=2",
	"slimfly:q=8,p=1",
	"slimfly:q=7,p=1",
	"slimfly:q=9,p=1",
	"slimfly:q=4,p=1",
	"equality:n=14,sa=-1/1/3/9,sb=4,p=3",
	"equality:n=20,sa=-1/1/7,sb=4/10,p=1",
	"ndt:k=4x3x2x2x3",
	"ndt:k=3x4x3",
};

static const char *const table_only_specs[] = {
	"graph:file=" TEST_SRC("tests/data/topo/petersen.edges") ",p=2",
	"dln:n=40,d=5,seed=3",
	"myriclos:n=256",
	"p2(torus:k=6x6):trials=2",
};

static bool router_has_endpoints(const struct topo *t, uint32_t r)
{
	for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
		if (topo_port_is_terminal(t, g))
			return true;
	return false;
}

/* The table's list, as `min` built it before issue 10: network ports whose
 * far end is one hop closer by BFS, in increasing port order. */
static uint32_t table_ports(const struct topo *t, const uint32_t *dist_to_dst, uint32_t r, uint32_t *ports)
{
	uint32_t n = 0, base = t->port_base[r];
	for (uint32_t g = base; g < t->port_base[r + 1]; g++)
		if (topo_port_is_network(t, g) && dist_to_dst[t->port_router[t->peer[g]]] + 1 == dist_to_dst[r])
			ports[n++] = g - base;
	return n;
}

static void check_min_ports(const char *spec)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new(spec, &t, &e), &e);
	if (!t)
		return;
	CHECK_MSG(topo_has_min_ports(t), "%s has no closed-form minimal next hops", spec);
	uint32_t n = t->n_routers, radix = topo_max_radix(t);
	uint32_t *dist = malloc((size_t)n * sizeof *dist), *queue = malloc((size_t)n * sizeof *queue);
	uint32_t *want = malloc((size_t)radix * sizeof *want), *got = malloc((size_t)radix * sizeof *got);
	uint32_t diameter = 0, closed_diameter = 0, mismatches = 0;
	for (uint32_t dst = 0; dst < n; dst++) {
		topo_bfs(t, dst, dist, queue); /* symmetric graph: distances to dst */
		for (uint32_t r = 0; r < n; r++)
			if (dist[r] > diameter)
				diameter = dist[r];
		if (!router_has_endpoints(t, dst))
			continue;
		for (uint32_t r = 0; r < n; r++) {
			if (r == dst)
				continue;
			/* the closed-form distance is BFS's: the analytic backend
			 * and ugal read it directly */
			if (t->ops->distance && t->ops->distance(t, r, dst) != dist[r] && mismatches++ < 3)
				CHECK_MSG(false, "%s: router %u -> %u: closed-form distance %u, BFS %u", spec, r, dst,
					  t->ops->distance(t, r, dst), dist[r]);
			uint32_t nw = table_ports(t, dist, r, want);
			uint32_t ng = topo_min_ports(t, r, dst, 0, got, radix);
			bool same = nw == ng && !memcmp(want, got, (size_t)nw * sizeof *want);
			/* the dragonfly's table-free arithmetic (used above its rows'
			 * memory cap) gives the same list */
			if (same && topo_dragonfly_of(t)) {
				ng = topo_dragonfly_min_ports_arith(t, r, dst, 0, got, radix);
				same = nw == ng && !memcmp(want, got, (size_t)nw * sizeof *want);
			}
			/* skip/cap pick the same elements one at a time */
			for (uint32_t i = 0; same && i < nw; i++) {
				uint32_t one = UINT32_MAX;
				same = topo_min_ports(t, r, dst, i, &one, 1) == nw && one == want[i];
			}
			if (!same && mismatches++ < 3)
				CHECK_MSG(same, "%s: router %u -> %u: closed form gives %u ports (first %u), table %u (first %u)",
					  spec, r, dst, ng, ng ? got[0] : 0, nw, nw ? want[0] : 0);
		}
	}
	CHECK_EQ(mismatches, 0);
	CHECK_OK(topo_diameter(t, &closed_diameter, &e), &e);
	CHECK_MSG(closed_diameter == diameter, "%s: topo_diameter %u, BFS %u", spec, closed_diameter, diameter);
	free(dist);
	free(queue);
	free(want);
	free(got);
	topo_free(t);
}

static void test_min_ports_equal_table(void)
{
	const struct topo_ops *tested[64];
	size_t n_tested = 0, n_fam;
	for (size_t i = 0; i < sizeof structured_specs / sizeof *structured_specs; i++) {
		struct topo *t = NULL;
		struct nl_err e = {0};
		if (topo_new(structured_specs[i], &t, &e) == 0 && n_tested < 64)
			tested[n_tested++] = t->ops;
		topo_free(t);
		check_min_ports(structured_specs[i]);
	}
	/* A family that gains closed-form next hops or distance must join the
	 * list above: walk the registry. */
	const struct topo_ops *const *all = topo_list(&n_fam);
	for (size_t f = 0; f < n_fam; f++) {
		if (!all[f]->min_ports && !all[f]->distance)
			continue;
		bool found = false;
		for (size_t i = 0; i < n_tested; i++)
			found |= tested[i] == all[f];
		CHECK_MSG(found, "family '%s' has closed-form next hops but no spec in structured_specs", all[f]->name);
	}
	for (size_t i = 0; i < sizeof table_only_specs / sizeof *table_only_specs; i++) {
		struct topo *t = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(table_only_specs[i], &t, &e), &e);
		if (t)
			CHECK_MSG(!topo_has_min_ports(t), "%s claims closed-form next hops", table_only_specs[i]);
		topo_free(t);
	}
}

/* `min` with closed-form next hops and `min:table=always` give the same
 * candidates, for every selection, at every router toward every endpoint. */
static void check_min_route(const char *spec, const char *sel)
{
	struct topo *t = NULL;
	struct route *closed = NULL, *table = NULL;
	struct nl_err e = {0};
	char a[96], b[96];
	snprintf(a, sizeof a, "min:select=%s", sel);
	snprintf(b, sizeof b, "min:select=%s,table=always", sel);
	CHECK_OK(topo_new(spec, &t, &e), &e);
	if (!t)
		return;
	CHECK_OK(route_new(a, t, 8, &closed, &e), &e);
	CHECK_OK(route_new(b, t, 8, &table, &e), &e);
	uint32_t diffs = 0;
	for (uint32_t ep = 0; closed && table && ep < t->n_endpoints; ep++)
		for (uint32_t src = 0; src < t->n_routers; src += 1 + t->n_routers / 16)
			for (uint32_t r = 0; r < t->n_routers; r++) {
				struct route_pkt p = {.src_ep = test_src_ep(t, src), .dst_router = topo_ep_router(t, ep), .dst_ep = ep,
						      .hops = 1};
				struct route_pkt q = p;
				struct route_cand x[ROUTE_MAX_CANDS], y[ROUTE_MAX_CANDS];
				int nx = closed->ops->compute(closed, r, 0, 0, &p, NULL, NULL, x);
				int ny = table->ops->compute(table, r, 0, 0, &q, NULL, NULL, y);
				if ((nx != ny || memcmp(x, y, (size_t)nx * sizeof *x)) && diffs++ < 3)
					CHECK_MSG(false, "%s %s: router %u toward endpoint %u: %d vs %d candidates", spec, a, r,
						  ep, nx, ny);
			}
	CHECK_EQ(diffs, 0);
	route_free(closed);
	route_free(table);
	topo_free(t);
}

static void test_min_route_equal_table(void)
{
	static const char *const specs[] = {
		"hyperx:s=3x4x2,k=1x2x1,t=2", "flatfly:m=4,n=3,k=2", "dragonfly:a=4,p=1,h=3,g=6",
		"dragonfly:a=4,p=2,h=2",      "fattree:k=3,n=3",      "clos:l=3,r=12,n=100,taper=2x1",
		"slimfly:q=5,p=2",            "torus:k=4x3x2",
	};
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
		check_min_route(specs[i], "first");
		check_min_route(specs[i], "hash");
		check_min_route(specs[i], "adaptive");
	}
}

/* Follow `min`'s first candidate from src to dst; the hop count must be
 * the distance. */
static void walk(const struct topo *t, const struct route *rt, uint32_t src_ep, uint32_t dst_ep)
{
	struct route_pkt p = {.src_ep = src_ep, .dst_router = topo_ep_router(t, dst_ep),
			      .dst_ep = dst_ep};
	struct route_cand c[ROUTE_MAX_CANDS];
	uint32_t r = topo_ep_router(t, src_ep), hops = 0;
	while (hops < 64) {
		int n = rt->ops->compute(rt, r, 0, 0, &p, NULL, NULL, c);
		CHECK(n >= 1);
		uint32_t g = t->port_base[r] + c[0].port;
		if (topo_port_is_terminal(t, g)) {
			CHECK_EQ(t->peer[g] & ~TOPO_EP_BIT, dst_ep);
			break;
		}
		r = t->port_router[t->peer[g]];
		p.hops = (uint8_t)++hops;
	}
	CHECK_EQ(hops, topo_distance(t, topo_ep_router(t, src_ep), p.dst_router));
}

/* Sizes no n^2 table holds (17 GB and 10 GB): `min` builds without one
 * (the table path refuses more than 32,768 routers) and routes minimally. */
static void test_min_large(void)
{
	static const char *const specs[] = {"dragonfly:a=64,h=32,p=1", "hyperx:s=10x10x10x10x10,t=1"};
	for (size_t i = 0; i < 2; i++) {
		struct topo *t = NULL;
		struct route *rt = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(specs[i], &t, &e), &e);
		if (!t)
			continue;
		CHECK_UINT(t->n_routers, >, 32768);
		CHECK_OK(route_new("min", t, 8, &rt, &e), &e);
		struct route *tab = NULL;
		/* The refusal said "use an algorithm with closed-form routing
		 * for this topology", where min itself has it: table=auto. */
		CHECK_ERR(route_new("min:table=always", t, 8, &tab, &e), NL_EUNSUPPORTED, &e,
			  "-router table allows (n^2 bytes); expected table=auto, which routes this topology in "
			  "closed form");
		for (uint32_t k = 0; rt && k < 200; k++) {
			uint64_t h = rng_mix64(k + 1);
			walk(t, rt, (uint32_t)(h % t->n_endpoints), (uint32_t)((h >> 32) % t->n_endpoints));
		}
		route_free(rt);
		topo_free(t);
	}
}

/* An irregular graph beyond the table: no closed form to fall back on,
 * so the refusal names the limit instead of "an algorithm with
 * closed-form routing", which no routing function gives on it. */
static void test_min_large_irregular(void)
{
	struct topo *t = NULL;
	struct route *rt = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("dln:n=32770,d=3", &t, &e), &e);
	if (!t)
		return;
	CHECK_ERR(route_new("min", t, 8, &rt, &e), NL_EUNSUPPORTED, &e,
		  "routing function 'min': topology 'dln' has no closed-form minimal next hops, and 32770 routers "
		  "is more than its 32768-router table allows (n^2 bytes); expected at most 32768 routers");
	topo_free(t);
}

/* A closed-form family beyond a packet's one-byte hop count: the
 * refusal said "the diameter exceeds 254 hops" without the diameter. */
static void test_min_diameter_limit(void)
{
	struct topo *t = NULL;
	struct route *rt = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("mesh:k=256", &t, &e), &e);
	if (!t)
		return;
	CHECK_ERR(route_new("min", t, 8, &rt, &e), NL_EINVAL, &e,
		  "routing function 'min': diameter 255 is more than 254 hops");
	topo_free(t);
	CHECK_OK(topo_new("mesh:k=255", &t, &e), &e);
	CHECK_OK(route_new("min:classes=none", t, 8, &rt, &e), &e);
	route_free(rt);
	topo_free(t);
}

/* The other capabilities, as their clients read them. */
/* The dragonfly's group-minimal hop in closed form
 * (topo_dragonfly_group_min_port, group_min and BookSim's UGAL at every
 * hop) against its definition: the gateway of the k = 0 link
 * (topo_group_gateway), then the one minimal local port toward it
 * (topo_min_ports), for every router pair, on balanced, one-link and
 * circulant-extra dragonflies. */
static void test_group_min_closed_form(void)
{
	const char *specs[] = {"dragonfly:a=4,p=2,h=2", "dragonfly:a=8,p=4,h=4", "dragonfly:a=4,p=1,h=2,g=4",
			       "dragonfly:a=3,p=1,h=3,g=6", "dragonfly:a=6,p=2,h=2,g=9"};
	for (size_t si = 0; si < sizeof specs / sizeof *specs; si++) {
		struct topo *t = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(specs[si], &t, &e), &e);
		if (!t)
			continue;
		const struct topo_dragonfly *df = topo_dragonfly_of(t);
		uint32_t bad = 0, n_global = 0;
		for (uint32_t r = 0; r < t->n_routers; r++)
			for (uint32_t d = 0; d < t->n_routers; d++) {
				if (r == d)
					continue;
				uint32_t G = r / df->a, T = d / df->a, to = d, want = 0, gw = 0, gport = 0;
				bool want_global = false, global;
				if (G != T) {
					CHECK(topo_group_gateway(t, G, T, &gw, &gport));
					if (gw == r) {
						want = gport;
						want_global = true;
					}
					to = gw;
				}
				if (!want_global)
					topo_min_ports(t, r, to, 0, &want, 1);
				uint32_t got = topo_dragonfly_group_min_port(df, r, d, &global);
				bad += got != want || global != want_global;
				n_global += global;
			}
		CHECK_MSG(bad == 0, "%s: %u pairs differ", specs[si], bad);
		CHECK(n_global > 0);
		topo_free(t);
	}
}

static void test_capabilities(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	uint32_t c[TOPO_MAX_COORDS], ng = 0, gr = 0;

	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	if (t) {
		CHECK_EQ(topo_coords(t, 13, c), 2);
		CHECK(c[0] == 3 && c[1] == 1); /* group 3, router 1 */
		CHECK(topo_groups(t, &ng, &gr) && ng == 9 && gr == 4);
		CHECK(!topo_has_levels(t));
		/* Valiant: a router of another group, every other group drawn. */
		struct rng rng;
		rng_init(&rng, 7, 1, 0);
		uint32_t seen = 0;
		for (int k = 0; k < 400; k++) {
			uint32_t v = topo_valiant_router(t, 5, 30, &rng);
			CHECK(v < t->n_routers && v / 4 != 5 / 4);
			seen |= 1u << (v / 4);
		}
		CHECK_EQ(seen, 0x1ffu & ~(1u << 1));
	}
	topo_free(t);
	CHECK_OK(topo_new("fattree:k=2,n=3", &t, &e), &e);
	if (t) {
		CHECK(topo_has_levels(t));
		CHECK_EQ(topo_level(t, 0), 0);
		CHECK_EQ(topo_level(t, 11), 2);
		CHECK_EQ(topo_coords(t, 11, c), 2);
		CHECK(c[0] == 2 && c[1] == 3);
		CHECK(!topo_groups(t, &ng, &gr));
	}
	topo_free(t);
	CHECK_OK(topo_new("flex:nx=3,ny=4,nz=3,p=2", &t, &e), &e);
	if (t) {
		CHECK(topo_groups(t, &ng, &gr) && ng == 3 && gr == 12);
		CHECK_EQ(topo_coords(t, 12 + 3 + 1, c), 3);
		CHECK(c[0] == 1 && c[1] == 1 && c[2] == 1); /* id = nx*ny*z + nx*y + x, eq. 6 */
	}
	topo_free(t);
	CHECK_OK(topo_new("equality:n=14,sa=-1/1/3/9,sb=4,p=3", &t, &e), &e);
	if (t) {
		CHECK_EQ(topo_coords(t, 3, c), 0);
		CHECK(!topo_groups(t, &ng, &gr));
		struct rng rng;
		rng_init(&rng, 7, 1, 0);
		struct rng same = rng;
		CHECK_EQ(topo_valiant_router(t, 0, 1, &rng), (uint32_t)rng_below(&same, t->n_routers));
	}
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_min_ports_equal_table);
	TEST_RUN(test_min_route_equal_table);
	TEST_RUN(test_min_large);
	TEST_RUN(test_min_large_irregular);
	TEST_RUN(test_min_diameter_limit);
	TEST_RUN(test_group_min_closed_form);
	TEST_RUN(test_capabilities);
	return test_done();
}
