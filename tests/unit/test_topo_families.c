/* Unit tests: the topology families against their papers' numbers and
 * closed forms. */
#include <stdint.h>
#include <unistd.h>

#include "core/error.h"
#include "test.h"
#include "topo/topo.h"
#include "topo/topo_dragonfly.h"
#include "topo/topo_equality.h"
#include "topo/topo_flex.h"
#include "topo/topo_hypercube.h"
#include "topo/topo_hyperx.h"
#include "topo/topo_ndt.h"
#include "topo/topo_slimfly.h"
#include "topo/topo_tree.h"
#include "topo/topo_internal.h"
#include "topo_check.h"

/* --- full ------------------------------------------------------------------ */

static void test_full(void)
{
	struct topo *t = tc_new("full:n=16,p=4");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 16);
	CHECK_EQ(t->n_endpoints, 64);
	CHECK_EQ(topo_max_radix(t), 15 + 4);
	CHECK_EQ(topo_count_links(t), 16 * 15 / 2);
	CHECK(topo_hyperx_of(t) && topo_hyperx_of(t)->L == 1 && topo_hyperx_of(t)->S[0] == 16);
	/* Router 5's port to router 9 is 8 (9 > 5 skips itself); it lands on
	 * router 9's port 5. */
	CHECK_EQ(t->peer[t->port_base[5] + 8], t->port_base[9] + 5);
	/* Endpoints router-major: endpoint 4*7+2 is on router 7, port 15+2. */
	CHECK_EQ(topo_ep_router(t, 30), 7);
	CHECK_EQ(topo_ep_local_port(t, 30), 17);
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_EQ(diam, 1);
	CHECK_NEAR(tc_aspl(t, sum), 1.0, 1e-12);
	topo_free(t);

	/* Trunking: k=2 gives two parallel links per pair. */
	t = tc_new("full:n=4,p=1,k=2");
	if (t) {
		CHECK_EQ(topo_count_links(t), 12);
		CHECK_EQ(topo_max_radix(t), 7);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("full:n=1", &t, &e), NL_ERANGE, &e, "parameter 'n' value '1' out of range");
	CHECK_ERR(topo_new("full:p=2", &t, &e), NL_EINVAL, &e, "required parameter 'n' missing");
}

/* --- graph ----------------------------------------------------------------- */

static void test_graph_file(void)
{
	/* The Petersen graph: 10 routers, 15 links, 3-regular, diameter 2, and
	 * every router has 3 routers at distance 1 and 6 at distance 2. */
	struct topo *t = tc_new("graph:file=" TEST_SRC("tests/data/topo/petersen.edges") ",p=2");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 10);
	CHECK_EQ(t->n_endpoints, 20);
	CHECK_EQ(topo_count_links(t), 15);
	CHECK_EQ(topo_max_radix(t), 5);
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_EQ(diam, 2);
	CHECK_UINT(sum, ==, 10 * (3 * 1 + 6 * 2));
	/* Ports in file order: router 0's links are 0-1 (line 2), 4-0 (line 6),
	 * 0-5 (line 12), so its port 1 reaches router 4. */
	CHECK_EQ(t->port_router[t->peer[t->port_base[0] + 1]], 4);
	topo_free(t);

	/* Labels in order of first appearance; a repeated pair is trunked. */
	t = tc_new("graph:file=" TEST_SRC("tests/data/topo/labels.edges") ",p=1,labels=1");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 4);
	CHECK_EQ(topo_count_links(t), 5);
	CHECK_EQ(topo_router_degree(t, 0), 3); /* spine */
	CHECK_EQ(topo_router_degree(t, 1), 3); /* leafA: spine + 2 trunked to leafB */
	CHECK_EQ(topo_router_degree(t, 3), 1); /* leafC */
	CHECK_EQ(t->port_router[t->peer[t->port_base[1] + 1]], 2);
	CHECK_EQ(t->port_router[t->peer[t->port_base[1] + 2]], 2);
	topo_free(t);
}

static void test_graph_errors(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	char spec[512];
	const char *path;

	CHECK_ERR(topo_new("graph:file=/nonexistent/x.edges", &t, &e), NL_EIO, &e,
		  "topology 'graph': parameter 'file': cannot open '/nonexistent/x.edges'");

	path = tc_tmpfile("0 1\n# comment\n1 1\n", "loop.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "loop.edges:3: self-loop on router '1'");
	unlink(path);

	path = tc_tmpfile("0 1\n1 2 3\n", "three.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "three.edges:2: expected two router ids 'a b', got 3 fields");
	unlink(path);

	path = tc_tmpfile("0 1\n1 x2\n", "word.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "word.edges:2: router id 'x2' is not an integer 0..n-1");
	unlink(path);

	path = tc_tmpfile("0 1\n2 3\n", "split.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e,
		  "split.edges: graph is not connected: router 2 cannot be reached from router 0");
	snprintf(spec, sizeof spec, "graph:file=%s,labels=1", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "router '2' cannot be reached from router '0'");
	unlink(path);

	path = tc_tmpfile("0 1\n1 3\n", "gap.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "gap.edges: router 2 has no links");
	unlink(path);

	path = tc_tmpfile("# nothing\n\n", "empty.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "empty.edges: no links");
	unlink(path);
	CHECK(t == NULL);
}

/* --- hyperx ---------------------------------------------------------------- */

static void test_hyperx(void)
{
	/* FleX Table 6's HyperX: 10x10, T = 10: 100 routers, 1,000 terminals,
	 * radix 28, 900 links. */
	struct topo *t = tc_new("hyperx:s=10x10,t=10");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 100);
	CHECK_EQ(t->n_endpoints, 1000);
	CHECK_EQ(topo_max_radix(t), 28);
	CHECK_EQ(topo_count_links(t), 900);
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_EQ(diam, 2);
	/* Distance 1 to 18 routers, 2 to the other 81. */
	CHECK_UINT(sum, ==, 100ull * (18 + 2 * 81));
	/* Packaging (seed 001 §5): the first dimension shares an enclosure. */
	CHECK_EQ(topo_cabinet_count(t), 10);
	CHECK_EQ(topo_router_cabinet(t, 37), 3);
	topo_free(t);

	/* Irregular shape and trunking (Fig. 3a-like): S = 2x4, K = 2x1. */
	t = tc_new("hyperx:s=2x4,k=2x1,t=4");
	if (!t)
		return;
	const struct topo_hyperx *hx = topo_hyperx_of(t);
	CHECK(hx != NULL);
	CHECK_EQ(hx->term_base, 2 * 1 + 1 * 3);
	CHECK_EQ(topo_count_links(t), 8 * (2 + 3) / 2);
	/* Router 5 = (1, 2): dimension 1 port toward coordinate 0 is 2 + 0. */
	uint32_t g = t->port_base[5] + topo_hyperx_port(hx, 1, 2, 0, 0);
	CHECK_EQ(t->port_router[t->peer[g]], 1);
	CHECK_EQ(t->peer[g] - t->port_base[1], topo_hyperx_port(hx, 1, 0, 2, 0));
	topo_free(t);

	/* Table 1-style 3-D regular HyperX checks with BFS. */
	t = tc_new("hyperx:s=3x4x5,k=1x2x1,t=1");
	if (t) {
		tc_distance_vs_bfs(t, 0);
		tc_orbits(t);
		topo_free(t);
	}

	struct nl_err e = {0};
	CHECK_ERR(topo_new("hyperx:s=4x4,k=1x1x1", &t, &e), NL_EINVAL, &e,
		  "topology 'hyperx': parameter 'k' has 3 values but 's' has 2 dimensions");
	CHECK_ERR(topo_new("hyperx:s=16x16,k=2,t=16,r=64", &t, &e), NL_ERANGE, &e,
		  "parameter 'r': the switch needs T + sum K_d (S_d - 1) = 76 ports, more than r=64 (seed 001 eq. 2)");
	CHECK_ERR(topo_new("hyperx:s=1x4", &t, &e), NL_ERANGE, &e, "parameter 's' value '1x4' out of range");
	CHECK_ERR(topo_new("hyperx:s=4x4,k=0", &t, &e), NL_ERANGE, &e, "parameter 'k' value '0' out of range");
}

/* --- tori, hypercubes, flattened butterfly -------------------------------- */

/* Per-source sum of ring distances min(j, k - j) over j = 0..k-1. */
static uint64_t ring_sum(uint32_t k)
{
	uint64_t s = 0;
	for (uint32_t j = 0; j < k; j++)
		s += j < k - j ? j : k - j;
	return s;
}

/* Torus closed forms (Dally & Towles §5.2.1): diameter sum floor(k_d / 2);
 * a torus is a product of rings, so the per-source distance sum is
 * sum_d ring_sum(k_d) * N / k_d. Seed 003's 2^9-switch 5DTORUS is 4x4x4x4x2
 * and seed 004 Table I's 3-D tori are 8x8x4 / 8x8x8 / 16x8x8. */
static void test_torus_shapes(void)
{
	static const char *const specs[] = {"torus:k=4x4x4x4x2", "torus:k=8x8x4", "torus:k=5x3x6"};
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
		struct topo *t = tc_new(specs[i]);
		if (!t)
			continue;
		const struct topo_grid *g = t->grid;
		uint32_t want_diam = 0;
		uint64_t per_src = 0;
		for (int d = 0; d < g->n_dims; d++) {
			want_diam += g->k[d] / 2;
			per_src += ring_sum(g->k[d]) * (t->n_routers / g->k[d]);
		}
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, want_diam);
		CHECK_UINT(sum, ==, per_src * t->n_routers);
		tc_orbits(t);
		topo_free(t);
	}
}

static void test_hypercubes(void)
{
	/* Hypercube: diameter n, per-source distance sum n 2^(n-1). */
	struct topo *t = tc_new("hypercube:n=6,p=2");
	if (t) {
		CHECK_EQ(t->n_routers, 64);
		CHECK_EQ(topo_max_radix(t), 8);
		CHECK_EQ(topo_count_links(t), 6 * 32);
		CHECK(topo_hypercube_of(t) && !topo_hypercube_of(t)->folded && topo_hyperx_of(t) && topo_hyperx_of(t)->L == 6);
		CHECK_EQ(t->port_router[t->peer[t->port_base[5] + 3]], 5 ^ 8);
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, 6);
		CHECK_UINT(sum, ==, 64ull * 6 * 32);
		tc_distance_vs_bfs(t, 0);
		topo_free(t);
	}
	/* Folded hypercube (seed 003 §4.1): degree n+1, diameter ceil(n/2),
	 * per-source sum sum_h C(n,h) min(h, n+1-h). */
	for (uint32_t n = 2; n <= 9; n++) {
		char spec[64];
		snprintf(spec, sizeof spec, "foldedhypercube:n=%u", n);
		t = tc_new(spec);
		if (!t)
			continue;
		uint64_t per_src = 0;
		for (uint32_t h = 0; h <= n; h++)
			per_src += test_binom(n, h) * (h < n + 1 - h ? h : n + 1 - h);
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, (n + 1) / 2);
		CHECK_UINT(sum, ==, per_src << n);
		CHECK_EQ(topo_max_radix(t), n + 2);
		CHECK_EQ(topo_count_links(t), (uint64_t)(n + 1) << (n - 1));
		tc_distance_vs_bfs(t, 0);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("hypercube:n=0", &t, &e), NL_ERANGE, &e, "parameter 'n' value '0' out of range");
	CHECK_ERR(topo_new("foldedhypercube:n=1", &t, &e), NL_ERANGE, &e, "parameter 'n' value '1' out of range");
}

static void test_flatfly(void)
{
	/* Seed 001 Fig. 2(c): the 4-ary 2-flat has 4 switches fully connected,
	 * 4 terminals each; a 4-ary 3-fly flattens to a 4x4 array with 4 + 3 + 3
	 * ports per switch. */
	struct topo *t = tc_new("flatfly:m=4,n=2");
	if (t) {
		CHECK_EQ(t->n_routers, 4);
		CHECK_EQ(t->n_endpoints, 16);
		CHECK_EQ(topo_count_links(t), 6);
		topo_free(t);
	}
	t = tc_new("flatfly:m=4,n=3,k=2");
	if (t) {
		CHECK_EQ(t->n_routers, 16);
		CHECK_EQ(t->n_endpoints, 64);
		CHECK_EQ(topo_max_radix(t), 4 + 2 * 3 + 2 * 3);
		CHECK(topo_hyperx_of(t) && topo_hyperx_of(t)->L == 2 && topo_hyperx_of(t)->T == 4 && topo_hyperx_of(t)->K[1] == 2);
		tc_distance_vs_bfs(t, 0);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("flatfly:m=4,n=1", &t, &e), NL_ERANGE, &e, "parameter 'n' value '1' out of range");
	CHECK_ERR(topo_new("flatfly:n=3", &t, &e), NL_EINVAL, &e, "required parameter 'm' missing");
}

/* --- FleX ------------------------------------------------------------------ */

static void test_flex_table6(void)
{
	/* Seed 000 Table 6: FleX 6x6x3, p = 10: 1,080 terminals, 108 routers,
	 * radix 30, 1,080 links; §III-B-1: diameter 2; §III-B-2: each router
	 * has k - p = 2Nx + 2Ny - 4 = 20 routers at distance 1 and the other
	 * 3NxNy - 21 = 87 at distance 2. */
	struct topo *t = tc_new("flex:nx=6,ny=6,nz=3,p=10");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 108);
	CHECK_EQ(t->n_endpoints, 1080);
	CHECK_EQ(topo_max_radix(t), 30);
	CHECK_EQ(topo_count_links(t), 1080);
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_EQ(diam, 2);
	CHECK_UINT(sum, ==, 108ull * (20 + 2 * 87));
	/* Eq. 6 numbering and the port map: router (2, 4, 1) is 36 + 24 + 2;
	 * its next-layer x port toward x' = 5 is 0 + 4 and lands on (5, 4, 2)'s
	 * previous-layer x port toward x = 2. */
	const struct topo_flex *f = topo_flex_of(t);
	uint32_t r = 36 + 24 + 2, g = t->port_base[r] + f->next_x + 4;
	CHECK_EQ(t->port_router[t->peer[g]], 72 + 24 + 5);
	CHECK_EQ(t->peer[g] - t->port_base[72 + 24 + 5], f->prev_x + 2);
	/* Fig. 7 packaging: each y line of a layer is a rack, cabinet Nx z + x. */
	CHECK_EQ(topo_router_cabinet(t, r), 6 * 1 + 2);
	CHECK_EQ(topo_cabinet_count(t), 18);
	tc_distance_vs_bfs(t, 0);
	topo_free(t);

	/* §IV-C's larger FleX: 8x8x3, p = 5: 960 terminals, 192 routers, radix
	 * 33, 2,688 links. The default p is the full-global-bandwidth Nx + Ny - 2. */
	t = tc_new("flex:nx=8,ny=8,nz=3,p=5");
	if (t) {
		CHECK_EQ(t->n_routers, 192);
		CHECK_EQ(t->n_endpoints, 960);
		CHECK_EQ(topo_max_radix(t), 33);
		CHECK_EQ(topo_count_links(t), 2688);
		topo_free(t);
	}
	t = tc_new("flex:nx=6,ny=6");
	if (t) {
		CHECK_STR(t->spec, "flex:nx=6,ny=6,nz=3,p=10");
		topo_free(t);
	}
}

static void test_flex_layers(void)
{
	/* §III-B: the diameter grows past 2 with more than three layers; FleX
	 * 6x6 with 4 to 7 layers has diameter 3. */
	for (int nz = 4; nz <= 7; nz++) {
		char spec[64];
		snprintf(spec, sizeof spec, "flex:nx=6,ny=6,nz=%d,p=10", nz);
		struct topo *t = tc_new(spec);
		if (!t)
			continue;
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, 3);
		CHECK_EQ(topo_max_radix(t), 30);
		CHECK_EQ(topo_count_links(t), 36ull * nz * 10);
		topo_free(t);
	}
	/* Two layers: radix Nx + Ny + p - 2 (§III-A), links Nx Ny Nz (k - p) / 2. */
	struct topo *t = tc_new("flex:nx=4,ny=5,nz=2,p=3");
	if (t) {
		CHECK_EQ(topo_max_radix(t), 4 + 5 + 3 - 2);
		CHECK_EQ(topo_count_links(t), 4 * 5 * 2 * 7 / 2);
		topo_free(t);
	}
	/* Closed-form distance against BFS, including the K_2 parity cases. */
	static const char *const specs[] = {"flex:nx=2,ny=3,nz=2,p=1", "flex:nx=2,ny=2,nz=3,p=1",
					    "flex:nx=3,ny=5,nz=5,p=1", "flex:nx=2,ny=4,nz=8,p=1",
					    "flex:nx=4,ny=3,nz=2,p=1"};
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
		t = tc_new(specs[i]);
		if (t) {
			tc_distance_vs_bfs(t, 0);
			tc_orbits(t);
			topo_free(t);
		}
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("flex:nx=6,ny=6,nz=1", &t, &e), NL_ERANGE, &e, "parameter 'nz' value '1' out of range");
	CHECK_ERR(topo_new("flex:nx=2,ny=2,nz=4", &t, &e), NL_EINVAL, &e,
		  "topology 'flex': parameters 'nx', 'ny', 'nz': Nx = Ny = 2 with an even Nz = 4 gives two disconnected halves");
	CHECK_ERR(topo_new("flex:nx=6,nz=3", &t, &e), NL_EINVAL, &e, "required parameter 'ny' missing");
}

/* --- dragonfly ------------------------------------------------------------- */

/* The view's closed-form global arrangement is the graph's, and symmetric. */
static void check_dragonfly_view(const struct topo *t)
{
	const struct topo_dragonfly *df = topo_dragonfly_of(t);
	for (uint32_t G = 0; G < df->g; G++)
		for (uint32_t gp = 0; gp < df->a * df->h; gp++) {
			uint32_t tg, tgp, bg, bgp;
			topo_dragonfly_global_peer(df, G, gp, &tg, &tgp);
			topo_dragonfly_global_peer(df, tg, tgp, &bg, &bgp);
			if (bg != G || bgp != gp || tg == G)
				TEST_FAIL_("%s: global port %u of group %u -> %u:%u -> %u:%u", t->spec, gp, G, tg, tgp, bg,
					   bgp);
			uint32_t g = t->port_base[G * df->a + gp / df->h] + df->global_base + gp % df->h;
			uint32_t want = t->port_base[tg * df->a + tgp / df->h] + df->global_base + tgp % df->h;
			if (t->peer[g] != want)
				TEST_FAIL_("%s: graph and view disagree on group %u port %u", t->spec, G, gp);
		}
	for (uint32_t G = 1; G < df->g; G++)
		for (uint32_t k = 0; k < df->rounds; k++) {
			uint32_t tg, tgp;
			topo_dragonfly_global_peer(df, 0, topo_dragonfly_group_port(df, 0, G, k), &tg, &tgp);
			CHECK_EQ(tg, G);
			CHECK_EQ(tgp, topo_dragonfly_group_port(df, G, 0, k));
		}
}

static void test_dragonfly(void)
{
	/* Seed 000 Table 6: a = 2p = 2h, p = 4: 264 routers, 1,056 terminals,
	 * radix 15 (k = p + a + h - 1, §II-A), 1,452 links (33 x 28 local + 33 x
	 * 32 / 2 global); the dragonfly's diameter is 3 (Table 2). */
	struct topo *t = tc_new("dragonfly:a=8,p=4,h=4");
	if (!t)
		return;
	CHECK_STR(t->spec, "dragonfly:a=8,p=4,h=4,g=33");
	CHECK_EQ(t->n_routers, 264);
	CHECK_EQ(t->n_endpoints, 1056);
	CHECK_EQ(topo_max_radix(t), 15);
	CHECK_EQ(topo_count_links(t), 1452);
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_EQ(diam, 3);
	tc_distance_vs_bfs(t, 0);
	check_dragonfly_view(t);
	topo_free(t);

	/* Seed 003 §5.3 and §6.2: DRAGONFLY-32-4 (degree 35) on 4,096
	 * switches, i.e. 128 groups of 32; DRAGONFLY-8-4 (degree 11) and
	 * DRAGONFLY-16-8 (degree 23) on 256 switches. */
	static const struct {
		const char *spec;
		uint32_t routers, degree;
	} seed003[] = {
		{"dragonfly:a=32,h=4,p=8,g=128", 4096, 35},
		{"dragonfly:a=8,h=4,p=8,g=32", 256, 11},
		{"dragonfly:a=16,h=8,p=8,g=16", 256, 23},
	};
	for (size_t i = 0; i < sizeof seed003 / sizeof *seed003; i++) {
		t = tc_new(seed003[i].spec);
		if (!t)
			continue;
		CHECK_EQ(t->n_routers, seed003[i].routers);
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_degree(t, r) != seed003[i].degree) {
				TEST_FAIL_("%s: router %u degree %u", seed003[i].spec, r, topo_router_degree(t, r));
				break;
			}
		tc_distance_vs_bfs(t, 12);
		check_dragonfly_view(t);
		topo_free(t);
	}

	/* Fewer groups than a*h+1: several links per pair, remainders paired
	 * circulantly; closed-form distance against BFS. */
	static const char *const small[] = {"dragonfly:a=4,h=2,p=1", "dragonfly:a=4,h=3,p=1,g=6",
					    "dragonfly:a=3,h=3,p=1,g=4", "dragonfly:a=4,h=2,p=1,g=4",
					    "dragonfly:a=2,h=3,p=2,g=6", "dragonfly:a=1,h=4,p=1,g=5"};
	for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
		t = tc_new(small[i]);
		if (!t)
			continue;
		tc_distance_vs_bfs(t, 0);
		check_dragonfly_view(t);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("dragonfly:a=4,h=2,g=10", &t, &e), NL_ERANGE, &e,
		  "topology 'dragonfly': parameter 'g': 10 groups, expected 2 .. a*h+1 = 9");
	CHECK_ERR(topo_new("dragonfly:a=3,h=3,p=1,g=5", &t, &e), NL_EINVAL, &e,
		  "parameter 'g': the a*h = 9 global ports of a group leave 1 over after the g-1 = 4 other groups; an odd remainder needs an even g");
	CHECK_ERR(topo_new("dragonfly:a=5,h=2", &t, &e), NL_EINVAL, &e,
		  "parameter 'p': the balanced default a/2 needs an even a (a = 5)");
}

/* --- fat tree, folded Clos, Myrinet Clos ----------------------------------- */

/* Router-to-router links between levels l and l+1 of a tree. */
static uint64_t tree_links_between(const struct topo *t, int l)
{
	const struct topo_tree *tr = topo_tree_of(t);
	uint64_t n = 0;
	for (uint32_t r = tr->level_first[l]; r < tr->level_first[l + 1]; r++)
		for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
			if (topo_port_is_network(t, g)) {
				uint32_t s = t->port_router[t->peer[g]];
				if (s >= tr->level_first[l + 1] && s < tr->level_first[l + 2])
					n++;
			}
	return n;
}

static void test_fattree(void)
{
	/* Seed 000 Table 6: the 3-level fat tree with k = 20, p = 10 is the
	 * 10-ary 3-tree: 1,000 terminals, 300 routers, radix 20, 2,000 links. */
	struct topo *t = tc_new("fattree:k=10,n=3");
	if (!t)
		return;
	CHECK_EQ(t->n_endpoints, 1000);
	CHECK_EQ(t->n_routers, 300);
	CHECK_EQ(topo_max_radix(t), 20);
	CHECK_EQ(topo_count_links(t), 2000);
	const struct topo_tree *tr = topo_tree_of(t);
	CHECK(tr && tr->xgft && tr->n_levels == 3);
	CHECK_EQ(tr->level_first[1], 100);
	CHECK_EQ(tr->level_first[2], 200);
	/* XGFT wiring: leaf 37 (block 37) up port 10 + 4 reaches level-1 switch
	 * (block 3, index 4) = 100 + 3*10 + 4 on its down port 7. */
	uint32_t g = t->port_base[37] + 10 + 4;
	CHECK_EQ(t->peer[g], t->port_base[100 + 34] + 7);
	tc_orbits(t);
	topo_free(t);
	t = tc_new("fattree:k=3,n=4");
	if (t) {
		CHECK_EQ(t->n_routers, 4 * 27);
		CHECK_EQ(t->n_endpoints, 81);
		tc_orbits(t);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("fattree:k=1,n=3", &t, &e), NL_ERANGE, &e, "parameter 'k' value '1' out of range");
	CHECK_ERR(topo_new("fattree:k=64,n=6", &t, &e), NL_ERANGE, &e,
		  "topology 'fattree': parameters 'k', 'n': K^N = 64^6 terminals is more than supported");
}

static void test_clos_formulas(void)
{
	/* Seed 001 §2.1.1: an L-level folded Clos of radix-R switches has N = 2
	 * (R/2)^L terminals, (R/2)^(L-1) core switches, P = (2L - 1) (R/2)^(L-1)
	 * switches (P/N = (2L - 1)/R), 2 (R/2)^L links between adjacent levels,
	 * paths of at most 2L - 1 switches (2(L-1) switch hops), and full
	 * bisection: beta = core links / N = 1 (§4.1's definition). */
	static const uint32_t cases[][2] = {{2, 8}, {3, 8}, {2, 16}, {4, 4}, {3, 6}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t L = cases[i][0], R = cases[i][1], h = R / 2, hl = 1;
		for (uint32_t j = 0; j + 1 < L; j++)
			hl *= h; /* (R/2)^(L-1) */
		char spec[64];
		snprintf(spec, sizeof spec, "clos:l=%u,r=%u", L, R);
		struct topo *t = tc_new(spec);
		if (!t)
			continue;
		const struct topo_tree *tr = topo_tree_of(t);
		CHECK_EQ(t->n_endpoints, 2 * hl * h);
		CHECK_EQ(t->n_routers, (2 * L - 1) * hl);
		CHECK_EQ(tr->level_first[L] - tr->level_first[L - 1], hl);
		CHECK_EQ(topo_max_radix(t), R);
		for (uint32_t l = 0; l + 1 < L; l++)
			CHECK_EQ(tree_links_between(t, (int)l), 2 * hl * h);
		CHECK_EQ(tree_links_between(t, (int)L - 2), t->n_endpoints); /* beta = 1 */
		CHECK_EQ(topo_tree_physical_switches(tr), t->n_routers);
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, 2 * (L - 1));
		tc_orbits(t);
		topo_free(t);
	}

	/* §4.1's tapered example (N = 4096, R = 32, beta = 0.5): 205 level-1
	 * switches with 10 up and 20 down links, 130 level-2 switches with 16
	 * up and 16 down, 80 level-3 switches with 13 down links packaged two
	 * per physical switch (160 logical), P = 415. */
	struct topo *t = tc_new("clos:l=3,r=32,n=4096,taper=2x1");
	if (!t)
		return;
	const struct topo_tree *tr = topo_tree_of(t);
	CHECK_EQ(tr->level_first[1] - tr->level_first[0], 205);
	CHECK_EQ(tr->level_first[2] - tr->level_first[1], 130);
	CHECK_EQ(tr->level_first[3] - tr->level_first[2], 160);
	CHECK_EQ(tr->down[0], 20);
	CHECK_EQ(tr->up[0], 10);
	CHECK_EQ(tr->down[1], 16);
	CHECK_EQ(tr->up[1], 16);
	CHECK_EQ(tr->down[2], 13);
	CHECK_EQ(tr->per_package[2], 2);
	CHECK_EQ(topo_tree_physical_switches(tr), 415);
	CHECK_EQ(tree_links_between(t, 0), 205 * 10);
	CHECK_EQ(tree_links_between(t, 1), 130 * 16); /* core links: beta = 2080/4096 */
	topo_free(t);
	/* The same with explicit port counts. */
	t = tc_new("clos:l=3,r=32,n=4096,down=20x16,up=10x16");
	if (t) {
		CHECK_EQ(topo_tree_physical_switches(topo_tree_of(t)), 415);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("clos:l=2,r=8,n=40", &t, &e), NL_ERANGE, &e,
		  "topology 'clos': parameter 'n': 40 terminals need more than the 32 that 2 levels of radix-8 switches serve");
	CHECK_ERR(topo_new("clos:l=3,r=8,taper=1x1x1", &t, &e), NL_EINVAL, &e,
		  "parameter 'taper' has 3 values; give one or l-1 = 2");
	CHECK_ERR(topo_new("clos:l=3,r=8,taper=8", &t, &e), NL_ERANGE, &e,
		  "parameter 'taper': a 8:1 ratio leaves no up port on a radix-8 switch");
	CHECK_ERR(topo_new("clos:l=3,r=16,down=10,up=8", &t, &e), NL_ERANGE, &e,
		  "level 1 needs 10 down + 8 up ports, more than r=16");
}

static void test_myriclos_table1(void)
{
	/* Seed 003 Table 1: switches per tier (1st..4th), #switches,
	 * #enclosures, #cabinets (switch-only + node-only), and the diameter in
	 * switch hops of the Myrinet Clos. */
	static const struct {
		uint32_t n, tier[4], switches, enclosures, cabinets, switch_only, diam;
	} table1[] = {
		{32, {4, 2, 0, 0}, 6, 1, 2, 1, 2},
		{64, {8, 4, 0, 0}, 12, 1, 2, 1, 2},
		{128, {16, 8, 0, 0}, 24, 1, 2, 1, 2},
		{256, {32, 32, 16, 0}, 80, 6, 4, 2, 4},
		{512, {64, 64, 32, 0}, 160, 12, 7, 3, 4},
		{1024, {128, 128, 64, 0}, 320, 24, 14, 6, 4},
		{2048, {256, 256, 256, 128}, 896, 48, 28, 12, 6},
		{4096, {512, 512, 512, 256}, 1792, 96, 56, 24, 6},
	};
	for (size_t i = 0; i < sizeof table1 / sizeof *table1; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "myriclos:n=%u", table1[i].n);
		struct topo *t = tc_new(spec);
		if (!t)
			continue;
		const struct topo_tree *tr = topo_tree_of(t);
		CHECK_EQ(t->n_routers, table1[i].switches);
		CHECK_EQ(t->n_endpoints, table1[i].n);
		for (int l = 0; l < 4; l++) {
			uint32_t c = l < tr->n_levels ? tr->level_first[l + 1] - tr->level_first[l] : 0;
			if (c != table1[i].tier[l])
				TEST_FAIL_("%s: tier %d has %u switches, Table 1 says %u", spec, l + 1, c, table1[i].tier[l]);
		}
		/* 16-port switches, every port in use. */
		CHECK_EQ(t->n_ports, 16 * table1[i].switches);
		for (uint32_t g = 0; g < t->n_ports; g++)
			if (t->peer[g] == TOPO_NONE) {
				TEST_FAIL_("%s: port %u unconnected", spec, g);
				break;
			}
		CHECK_EQ(topo_cabinet_count(t), table1[i].cabinets);
		uint32_t max_cab = 0, node_cabs = table1[i].cabinets - table1[i].switch_only;
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_cabinet(t, r) > max_cab)
				max_cab = topo_router_cabinet(t, r);
		CHECK_EQ(max_cab + 1, table1[i].cabinets);
		CHECK_EQ(topo_router_cabinet(t, 0), node_cabs);
		/* 4 enclosures per switch-only cabinet: the enclosure count fixes the
		 * number of switch-only cabinets in use. */
		CHECK_EQ((table1[i].enclosures + 3) / 4, table1[i].switch_only);
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		CHECK_EQ(diam, table1[i].diam);
		topo_free(t);
	}
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_ERR(topo_new("myriclos:n=96", &t, &e), NL_EINVAL, &e,
		  "topology 'myriclos': parameter 'n': 96 nodes; seed 003 Table 1 covers 32, 64, 128");
	CHECK_ERR(topo_new("myriclos:n=8192", &t, &e), NL_ERANGE, &e, "parameter 'n' value '8192' out of range");
}

/* --- Slim Fly ---------------------------------------------------------------- */

/* GF(q) is a field: distributive, every non-zero element invertible, and
 * the primitive element's powers cover the multiplicative group. */
static void test_gf(void)
{
	static const uint32_t qs[] = {2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49, 81, 121, 125, 128};
	for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
		struct topo_gf f;
		uint32_t p, m, q = qs[i];
		CHECK_EQ(topo_gf_init(&f, q, &p, &m), 0);
		uint32_t pm = 1;
		for (uint32_t j = 0; j < m; j++)
			pm *= p;
		CHECK_EQ(pm, q);
		int bad = 0;
		for (uint32_t a = 0; a < q && !bad; a++) {
			uint32_t inv = 0;
			CHECK_EQ(topo_gf_add(&f, a, topo_gf_neg(&f, a)), 0);
			for (uint32_t b = 0; b < q; b++) {
				if (topo_gf_mul(&f, a, b) == 1)
					inv++;
				for (uint32_t c = 0; c < q && q <= 27; c++)
					if (topo_gf_mul(&f, a, topo_gf_add(&f, b, c)) !=
					    topo_gf_add(&f, topo_gf_mul(&f, a, b), topo_gf_mul(&f, a, c)))
						bad++;
			}
			if (inv != (a != 0))
				bad++;
		}
		if (bad)
			TEST_FAIL_("GF(%u): %d field-axiom failures", q, bad);
		topo_gf_release(&f);
	}
	struct topo_gf f;
	uint32_t p, m;
	CHECK_EQ(topo_gf_init(&f, 12, &p, &m), NL_EINVAL);
	CHECK_EQ(p, 0);
}

static void test_slimfly(void)
{
	/* Seed 000 Table 6: Slim Fly with q = 9 and p = 6 (one less than
	 * floor(k/3) = 7, §IV-B): 162 routers, 972 terminals, 1,053 links,
	 * network radix k' = (3q - delta)/2 = 13 (Table 6's radix 20 counts the
	 * one port left idle by p = 6). GF(9) = GF(3^2) exercises the
	 * polynomial arithmetic. */
	struct topo *t = tc_new("slimfly:q=9,p=6");
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 162);
	CHECK_EQ(t->n_endpoints, 972);
	CHECK_EQ(topo_count_links(t), 1053);
	CHECK_EQ(topo_max_radix(t), 13 + 6);
	CHECK(topo_slimfly_of(t) && topo_slimfly_of(t)->delta == 1 && topo_slimfly_of(t)->kprime == 13);
	topo_free(t);
	t = tc_new("slimfly:q=9");
	if (t) {
		CHECK_STR(t->spec, "slimfly:q=9,p=7");
		topo_free(t);
	}
	/* The MMS graph has diameter 2 and 2q^2 routers of degree (3q-delta)/2
	 * for every admissible prime power; closed-form distance against BFS
	 * and the two-orbit claim. */
	static const uint32_t qs[] = {3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27};
	for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "slimfly:q=%u,p=1", qs[i]);
		t = tc_new(spec);
		if (!t)
			continue;
		uint32_t q = qs[i];
		int delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
		uint32_t k = (uint32_t)((3 * (int)q - delta) / 2);
		CHECK_EQ(t->n_routers, 2 * q * q);
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_degree(t, r) != k) {
				TEST_FAIL_("%s: router %u degree %u, expected %u", spec, r, topo_router_degree(t, r), k);
				break;
			}
		uint32_t diam;
		uint64_t sum;
		if (q <= 13) {
			tc_all_pairs(t, &diam, &sum);
			tc_orbits(t);
		} else {
			struct nl_err e = {0};
			CHECK_EQ(topo_all_pairs(t, 2, &diam, &sum, &e), 0);
		}
		CHECK_EQ(diam, 2);
		tc_distance_vs_bfs(t, q <= 11 ? 0 : 20);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("slimfly:q=6", &t, &e), NL_EINVAL, &e,
		  "topology 'slimfly': parameter 'q': 6 is not a prime power (the MMS construction needs q = p^m = 4w + delta, delta in {-1, 0, 1})");
	CHECK_ERR(topo_new("slimfly:q=2", &t, &e), NL_EINVAL, &e,
		  "parameter 'q': 2 is not 4w + delta with delta in {-1, 0, 1}");
	CHECK_ERR(topo_new("slimfly:q=1", &t, &e), NL_ERANGE, &e, "parameter 'q' value '1' out of range");
}

/* --- Equality ----------------------------------------------------------------- */

/* Network neighbours of router r, sorted. */
static uint32_t sorted_nbrs(const struct topo *t, uint32_t r, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
		if (topo_port_is_network(t, g)) {
			uint32_t v = t->port_router[t->peer[g]], i = n++;
			while (i > 0 && out[i - 1] > v) {
				out[i] = out[i - 1];
				i--;
			}
			out[i] = v;
		}
	return n;
}

static void test_equality_notation(void)
{
	/* Seed 002 §3.2 and Fig. 1: N14K6[-1,1,3,9](4) has 14 routers and
	 * network radix 6 (K counts router-to-router ports only; Remark 1's
	 * n14k6p3 adds 3 endpoints per router). */
	struct topo *t = tc_new("N14K6[-1,1,3,9](4)");
	if (!t)
		return;
	CHECK_STR(t->ops->name, "equality");
	CHECK_EQ(t->n_routers, 14);
	CHECK_EQ(t->n_endpoints, 0);
	CHECK_EQ(topo_max_radix(t), 6);
	CHECK_EQ(topo_count_links(t), 14 * 6 / 2);
	CHECK_STR(t->spec, "N14K6[-1,1,3,9](4)");
	CHECK(topo_equality_of(t) && topo_equality_of(t)->K == 6);
	/* §3.1: even i links i + s, odd i links i - s. */
	uint32_t nb[16];
	static const uint32_t n0[] = {1, 3, 4, 9, 10, 13}, n1[] = {0, 2, 5, 6, 11, 12};
	CHECK_EQ(sorted_nbrs(t, 0, nb), 6);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(nb[i], n0[i]);
	CHECK_EQ(sorted_nbrs(t, 1, nb), 6);
	for (int i = 0; i < 6; i++)
		CHECK_EQ(nb[i], n1[i]);
	tc_distance_vs_bfs(t, 0);
	tc_orbits(t);
	topo_free(t);

	/* The key=value form and the P part of the notation. */
	t = tc_new("equality:n=14,sa=-1/1/3/9,sb=4,p=3");
	if (t) {
		CHECK_EQ(topo_max_radix(t), 9);
		CHECK_EQ(t->n_endpoints, 42);
		CHECK_STR(t->spec, "N14K6P3[-1,1,3,9](4)");
		topo_free(t);
	}
	t = tc_new("n14k6p3[-1, 1, 3, 9](4)");
	if (t) {
		CHECK_EQ(t->n_endpoints, 42);
		topo_free(t);
	}

	struct nl_err e = {0};
	CHECK_ERR(topo_new("n14k6p3", &t, &e), NL_EINVAL, &e,
		  "'n14k6p3' names a class of Equality networks (Remark 1); give the offsets");
	CHECK_ERR(topo_new("N14K7[-1,1,3,9](4)", &t, &e), NL_EINVAL, &e,
		  "topology 'equality': parameter 'k': the offsets give network radix K = 6 (eq. 1: |S_A| + 2|S_B| - [N/2 in S_B]), not 7");
	CHECK_ERR(topo_new("N14K6[-1,1,3,9](4", &t, &e), NL_EFORMAT, &e, "cannot read 'N14K6[-1,1,3,9](4'");
	CHECK_ERR(topo_new("N13K6[-1,1,3,9](4)", &t, &e), NL_EINVAL, &e, "parameter 'n': N = 13 must be even");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1/4", &t, &e), NL_EINVAL, &e,
		  "parameter 'sa': 4 is even; S_A holds odd offsets (seed 002 §3.1)");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1,sb=3", &t, &e), NL_EINVAL, &e,
		  "parameter 'sb': 3 is odd; S_B holds even offsets");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1,sb=10", &t, &e), NL_ERANGE, &e,
		  "parameter 'sb': 10 is not in 2..N/2 = 7 (an even offset s > N/2 makes the links of N - s, §3.1 footnote 1)");
	CHECK_ERR(topo_new("equality:n=14,sa=-1/1/13", &t, &e), NL_EINVAL, &e,
		  "parameter 'sa': offsets -1 and 13 are equal mod N = 14 and would make the same links");
	CHECK_ERR(topo_new("equality:n=12,sa=3/9", &t, &e), NL_EINVAL, &e,
		  "the offsets leave router 1 unreachable from router 0 (the network is not connected)");
}

static void test_equality_structure(void)
{
	/* N/2 as an even offset (one link) and as an odd offset; eq. 1 radix,
	 * closed-form distance against BFS, vertex-transitivity. */
	static const struct {
		const char *spec;
		uint32_t K;
	} cases[] = {
		{"equality:n=20,sa=-1/1/7,sb=4/10", 3 + 2 + 1},
		{"equality:n=14,sa=-1/1/7,sb=2/6", 3 + 4},
		{"equality:n=40,sa=-1/1/5/-11/17,sb=6/16/20,p=2", 5 + 4 + 1},
		{"N38K5[-1,1,11](8)", 5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct topo *t = tc_new(cases[i].spec);
		if (!t)
			continue;
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (topo_router_degree(t, r) != cases[i].K) {
				TEST_FAIL_("%s: router %u degree %u", cases[i].spec, r, topo_router_degree(t, r));
				break;
			}
		tc_distance_vs_bfs(t, 0);
		tc_orbits(t);
		/* The canonical spec builds the same graph. */
		struct topo *u = tc_new(t->spec);
		if (u) {
			CHECK(u->n_ports == t->n_ports && !memcmp(u->peer, t->peer, t->n_ports * sizeof *t->peer));
			topo_free(u);
		}
		topo_free(t);
	}
}

/* Seed 002 §5.5: the n64000k64p16 system (E806), 64,000 routers with 80
 * ports and 1,024,000 endpoints. The paper's offsets (its Table 3) are not
 * in our copy, so this uses 48 odd and 8 even offsets spread
 * geometrically; the test checks the construction scales (compact ports,
 * one BFS for all distances) and that the closed form agrees with BFS. */
static const char *const equality_64000 =
	"N64000K64P16[-1,1,3,5,7,9,11,13,15,17,19,21,25,29,37,45,55,67,81,101,123,151,185,227,279,343,423,"
	"519,637,783,963,1183,1455,1787,2195,2699,3315,4075,5007,6153,7561,9291,11419,14031,17243,21189,"
	"26039,31999](4,14,52,188,680,2454,8862,31998)";

static void test_equality_64000(void)
{
	struct topo *t = tc_new(equality_64000);
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 64000);
	CHECK_EQ(t->n_endpoints, 1024000);
	CHECK_EQ(topo_max_radix(t), 80);
	CHECK_EQ(topo_count_links(t), 64000ull * 64 / 2);
	CHECK_STR(t->spec, equality_64000);
	uint32_t diam = 0;
	for (uint32_t j = 0; j < t->n_routers; j++)
		if (topo_equality_of(t)->dist0[j] > diam)
			diam = topo_equality_of(t)->dist0[j];
	CHECK(diam >= 3 && diam <= 5); /* Moore bound: diameter >= 3 for K = 64, N = 64,000 */
	tc_distance_vs_bfs(t, 2);
	topo_free(t);
}

/* --- nD twin torus ------------------------------------------------------------ */

static void test_ndt(void)
{
	/* Seed 004 Table I: 3D tori and 5DT tori with the same PEs (256, 512,
	 * 1,024); §IV: the 5DT reduces distances. PE-to-PE distances in
	 * router hops: a 3D torus PE is its router, a 5DT PE is its card. */
	static const struct {
		const char *torus, *ndt;
		uint32_t pes;
	} table1[] = {
		{"torus:k=8x8x4", "ndt:k=4x4x2x2x2", 256},
		{"torus:k=8x8x8", "ndt:k=4x4x2x4x2", 512},
		{"torus:k=16x8x8", "ndt:k=4x4x2x4x4", 1024},
	};
	for (size_t i = 0; i < sizeof table1 / sizeof *table1; i++) {
		struct topo *a = tc_new(table1[i].torus), *b = tc_new(table1[i].ndt);
		if (!a || !b) {
			topo_free(a);
			topo_free(b);
			continue;
		}
		CHECK_EQ(a->n_endpoints, table1[i].pes);
		CHECK_EQ(b->n_endpoints, table1[i].pes);
		CHECK_EQ(b->n_routers, table1[i].pes);
		/* Every card: n + 1 = 6 network ports (an EXTOLL card) and its PE. */
		for (uint32_t r = 0; r < b->n_routers; r++)
			if (topo_router_degree(b, r) != 6 || topo_router_ports(b, r) != 7) {
				TEST_FAIL_("%s: card %u has %u network ports", table1[i].ndt, r, topo_router_degree(b, r));
				break;
			}
		uint32_t da, db;
		uint64_t sa, sb;
		struct nl_err e = {0};
		CHECK_EQ(topo_all_pairs(a, UINT32_MAX - 1, &da, &sa, &e), 0);
		CHECK_EQ(topo_all_pairs(b, UINT32_MAX - 1, &db, &sb, &e), 0);
		CHECK_UINT(db, <, da);
		CHECK(tc_aspl(b, sb) < tc_aspl(a, sa));
		tc_distance_vs_bfs(b, b->n_routers > 512 ? 64 : 0);
		if (b->n_routers <= 512)
			tc_orbits(b);
		topo_free(a);
		topo_free(b);
	}

	/* Definition 2.2 for 5DT (Fig. 2b): d0, d1 and d2- on card 0; d2+, d3
	 * and d4 on card 1. */
	struct topo *t = tc_new("ndt:k=4x4x3x4x2");
	if (!t)
		return;
	const struct topo_ndt *v = topo_ndt_of(t);
	CHECK_EQ(v->split, 2);
	static const uint8_t card[5][2] = {{0, 0}, {0, 0}, {1, 0}, {1, 1}, {1, 1}};
	static const uint8_t port[5][2] = {{0, 1}, {2, 3}, {0, 4}, {1, 2}, {3, 4}};
	for (int d = 0; d < 5; d++)
		for (int dir = 0; dir < 2; dir++) {
			CHECK_EQ(v->card_of[d][dir], card[d][dir]);
			CHECK_EQ(v->card_port[d][dir], port[d][dir]);
		}
	/* Node 0's d2- port (card 0, port 4) reaches node (0,0,2,0,0)'s d2+
	 * port on its card 1; the internal link joins the two cards. */
	uint32_t w = 2 * v->stride[2];
	CHECK_EQ(t->peer[t->port_base[0] + 4], t->port_base[2 * w + 1] + 0);
	CHECK_EQ(t->peer[t->port_base[0] + 5], t->port_base[1] + 5);
	CHECK_EQ(topo_ep_router(t, 7), 7);
	tc_distance_vs_bfs(t, 0);
	topo_free(t);

	/* 3DT (Fig. 2a) and odd radices; even n splits evenly. */
	static const char *const more[] = {"ndt:k=3x5x4", "ndt:k=5,n=3", "ndt:k=4x3x2x3", "ndt:k=3x3x3x3x3x3x3"};
	for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
		t = tc_new(more[i]);
		if (t) {
			tc_distance_vs_bfs(t, t->n_routers > 1000 ? 30 : 0);
			if (t->n_routers <= 1000)
				tc_orbits(t);
			topo_free(t);
		}
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("ndt:k=4x4", &t, &e), NL_EINVAL, &e,
		  "topology 'ndt': parameter 'k': 2 dimensions; an nD twin torus has n >= 3 (seed 004 Definition 2.1)");
	CHECK_ERR(topo_new("ndt:k=4x1x4", &t, &e), NL_ERANGE, &e, "parameter 'k' value '4x1x4' out of range");
}

/* --- RING-n / DLN -------------------------------------------------------------- */

static void test_dln(void)
{
	/* Seed 003 §4.1: RING-n is a ring plus n-2 random shortcuts at each
	 * switch; every switch has degree n, the ring is kept, no self-loops or
	 * repeated links, and the same seed gives the same graph. */
	struct topo *t = tc_new("dln:n=1024,d=4,p=1,seed=7");
	struct topo *u = tc_new("dln:n=1024,d=4,p=1,seed=7");
	struct topo *w = tc_new("dln:n=1024,d=4,p=1,seed=8");
	if (!t || !u || !w)
		goto out;
	CHECK(!memcmp(t->peer, u->peer, t->n_ports * sizeof *t->peer));
	CHECK(memcmp(t->peer, w->peer, t->n_ports * sizeof *t->peer) != 0);
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t nb[8];
		CHECK_EQ(sorted_nbrs(t, r, nb), 4);
		for (int i = 0; i < 4; i++)
			if (nb[i] == r || (i && nb[i] == nb[i - 1]))
				TEST_FAIL_("router %u: self-loop or repeated link", r);
		CHECK_EQ(t->port_router[t->peer[t->port_base[r]]], (r + 1) % 1024);
	}
	/* Seed 003 Fig. 3: RING-4 has far lower diameter and average shortest
	 * path length than the same-degree 2DTORUS (32x32 for 2^10 switches:
	 * diameter 32, average 16.02). */
	uint32_t diam;
	uint64_t sum;
	tc_all_pairs(t, &diam, &sum);
	CHECK_UINT(diam, <, 32);
	CHECK(tc_aspl(t, sum) < 16.0 / 1.5);
out:
	topo_free(t);
	topo_free(u);
	topo_free(w);
	t = tc_new("dln:n=64,d=10");
	if (t) {
		for (uint32_t r = 0; r < t->n_routers; r++)
			CHECK_EQ(topo_router_degree(t, r), 10);
		topo_free(t);
	}
	struct nl_err e = {0};
	CHECK_ERR(topo_new("dln:n=15,d=5", &t, &e), NL_EINVAL, &e,
		  "topology 'dln': parameters 'n', 'd': n (d-2) = 45 shortcut ends cannot be paired (must be even)");
	CHECK_ERR(topo_new("dln:n=8,d=8", &t, &e), NL_ERANGE, &e,
		  "parameter 'd': degree 8 needs more than the 8 switches (d <= n-1)");
}

int main(void)
{
	TEST_RUN(test_full);
	TEST_RUN(test_graph_file);
	TEST_RUN(test_graph_errors);
	TEST_RUN(test_hyperx);
	TEST_RUN(test_torus_shapes);
	TEST_RUN(test_hypercubes);
	TEST_RUN(test_flatfly);
	TEST_RUN(test_flex_table6);
	TEST_RUN(test_flex_layers);
	TEST_RUN(test_dragonfly);
	TEST_RUN(test_fattree);
	TEST_RUN(test_clos_formulas);
	TEST_RUN(test_myriclos_table1);
	TEST_RUN(test_gf);
	TEST_RUN(test_slimfly);
	TEST_RUN(test_equality_notation);
	TEST_RUN(test_equality_structure);
	TEST_RUN(test_equality_64000);
	TEST_RUN(test_ndt);
	TEST_RUN(test_dln);
	return test_done();
}
