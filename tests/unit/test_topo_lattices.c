/* Unit tests: the lattice and group topology families (full, graph files,
 * HyperX, tori, hypercubes, flattened butterfly, FleX, dragonfly) against
 * their papers' numbers and closed forms. The other families are in
 * test_topo_families.c. */
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
	/* '-' is no standard input here (it read as a missing file). */
	CHECK_ERR(topo_new("graph:file=-", &t, &e), NL_EIO, &e,
		  "topology 'graph': parameter 'file': '-': standard input is not read here; expected a graph edge list's path");

	path = tc_tmpfile("0 1\n# comment\n1 1\n", "loop.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "loop.edges:3: self-loop on router '1'");
	unlink(path);

	path = tc_tmpfile("0 1\n1 2 3\n", "three.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "three.edges:2: expected two router ids 'a b', got 3 fields");
	unlink(path);

	/* With the column line a third field is read, so a fourth is named as
	 * such: the message used to ask for the column line the file has. */
	path = tc_tmpfile("# router_a router_b parallel_links\n0 1 2 3\n", "four.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e,
		  "four.edges:2: expected 'a b' or 'a b links', got 4 fields");
	CHECK(strstr(e.msg, "is read after the line") == NULL);
	unlink(path);

	/* A ',' ends the path (it separates parameters): the rest was named as
	 * a bad parameter with no word on why. */
	CHECK_ERR(topo_new("graph:file=my,graph.edges,p=2", &t, &e), NL_EFORMAT, &e,
		  "expected key=value, got 'graph.edges' (parameters are split at ','; the path of 'file' cannot "
		  "hold one)");

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

	/* A gap larger than the links could fill is refused before the
	 * per-router arrays (found by the topo_file fuzz target: 5.6 GB
	 * asked for by a 20-byte file). */
	path = tc_tmpfile(" 7 0\n 700000001 1\n", "far.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e,
		  "far.edges: largest router id is 700000001, but 2 links join at most 4 routers");
	unlink(path);
	/* A stream of NUL bytes without a '\n' (/dev/zero) is refused at its
	 * first NUL: getline read the whole line first, so /dev/zero grew
	 * until memory ran out. A pipe holding 60 KB of NULs: the reader
	 * takes one buffer of it at most, the rest stays in the pipe. */
	int fd[2];
	CHECK_EQ(pipe(fd), 0);
	static char zeros[60 * 1024];
	CHECK_EQ(write(fd[1], zeros, sizeof zeros), (ssize_t)sizeof zeros);
	close(fd[1]);
	snprintf(spec, sizeof spec, "graph:file=/dev/fd/%d", fd[0]);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, ":1: unexpected NUL byte; expected a text file");
	ssize_t left = 0, got;
	while ((got = read(fd[0], zeros, sizeof zeros)) > 0)
		left += got;
	close(fd[0]);
	CHECK(left >= (ssize_t)sizeof zeros - 8192);
	/* 2^30 itself is past the last id: it said "router id 1073741824 is
	 * over 2^30", with no word on what was expected. */
	path = tc_tmpfile("0 1\n1 1073741824\n", "big.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_ERANGE, &e,
		  "big.edges:2: router id '1073741824' is past the largest, 1073741823; expected ids 0..n-1 of at "
		  "most 2^30 routers");
	unlink(path);

	path = tc_tmpfile("# nothing\n\n", "empty.edges");
	snprintf(spec, sizeof spec, "graph:file=%s", path);
	CHECK_ERR(topo_new(spec, &t, &e), NL_EFORMAT, &e, "empty.edges: no links");
	unlink(path);
	CHECK(t == NULL);
}

/* --- hyperx ---------------------------------------------------------------- */

/* Shortest paths from a to b (counted over the router graph, distances
 * from topo_distance) and two-hop paths a - v - b. */
static uint64_t min_paths(const struct topo *t, uint32_t a, uint32_t b, uint32_t *two)
{
	uint32_t d = topo_distance(t, a, b);
	if (d == 0)
		return 1;
	uint64_t n = 0;
	*two = 0;
	for (uint32_t g = t->port_base[a]; g < t->port_base[a + 1]; g++) {
		if (!topo_port_is_network(t, g))
			continue;
		uint32_t v = t->port_router[t->peer[g]];
		if (topo_distance(t, v, b) == d - 1) {
			uint32_t ignore;
			n += min_paths(t, v, b, &ignore);
		}
		if (v != b && topo_distance(t, v, b) == 1)
			(*two)++;
	}
	return n;
}

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

	/* Seed 001's other HyperXs: Fig. 3 (a) 2 x 4 switches, T = 4: 32
	 * terminals; (b) 3 x 3, T = 4: 36. Fig. 6: T = 8, S = 8, K = 1 with
	 * 32-port switches: 512 switches, 4,096 terminals, beta = KS/2T =
	 * 0.5. Fig. 7's beta = 0.25 HyperX: T = 14, S = 7, K = 1, P = 343 (its
	 * 4,802 terminal ports hold the 4,096 terminals), radix 32. */
	static const struct {
		const char *spec;
		uint32_t routers, endpoints, radix; /* T + sum (S - 1), within the 32 ports of Figs. 6-7 */
		double beta;
	} fig[] = {
		{"hyperx:s=2x4,t=4", 8, 32, 8, 0.25},
		{"hyperx:s=3x3,t=4", 9, 36, 8, 0.375},
		{"hyperx:s=8x8x8,t=8", 512, 4096, 29, 0.5},
		{"hyperx:s=7x7x7,t=14", 343, 4802, 32, 0.25},
	};
	for (size_t i = 0; i < sizeof fig / sizeof *fig; i++) {
		t = tc_new(fig[i].spec);
		if (!t)
			continue;
		const struct topo_hyperx *h = topo_hyperx_of(t);
		CHECK_EQ(t->n_routers, fig[i].routers);
		CHECK_EQ(t->n_endpoints, fig[i].endpoints);
		CHECK_EQ(topo_max_radix(t), fig[i].radix);
		uint32_t minks = UINT32_MAX;
		for (int d = 0; h && d < h->L; d++)
			if (h->K[d] * h->S[d] < minks)
				minks = h->K[d] * h->S[d];
		CHECK(h && minks / (2.0 * h->T) == fig[i].beta);
		topo_free(t);
	}

	/* §3.3: between switches offset in D dimensions there are D! shortest
	 * paths, each one step per offset dimension. */
	t = tc_new("hyperx:s=3x4x2x3,t=1");
	if (t) {
		static const uint64_t fact[] = {1, 1, 2, 6, 24};
		const struct topo_hyperx *h = topo_hyperx_of(t);
		for (uint32_t a = 0; a < t->n_routers; a += 5)
			for (uint32_t b = 0; b < t->n_routers; b++) {
				uint32_t D = 0, two;
				for (int d = 0; d < h->L; d++)
					D += topo_hyperx_coord(h, a, d) != topo_hyperx_coord(h, b, d);
				if (min_paths(t, a, b, &two) != fact[D]) {
					TEST_FAIL_("hyperx 3x4x2x3: %u -> %u offset in %u dimensions: %llu shortest paths", a, b,
						   D, (unsigned long long)min_paths(t, a, b, &two));
					b = t->n_routers, a = t->n_routers;
				}
			}
		topo_free(t);
	}

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

/* Seed 000 §III-C.1's minimal-path counts on the 3-layer FleX (Nx = 4,
 * Ny = 5). Same layer, x and y both differing: 4 paths; same layer, one
 * of them equal: 2(Nx - 2) or 2(Ny - 2); different layers, one
 * differing: the direct link and Nx - 2 or Ny - 2 two-hop detours. The
 * paper's "(Nx - 2) or (Ny - 2)" for different layers with x and y both
 * equal is not what the graph has: every router of the third layer that
 * shares y (Nx - 1) or x (Ny - 1) is a two-hop path, Nx + Ny - 2 = 7
 * (Algorithm 1 itself draws from the Nx - 1 of them on the x axis). */
static void test_flex_paths(void)
{
	struct topo *t = tc_new("flex:nx=4,ny=5,nz=3,p=1");
	if (!t)
		return;
	const struct topo_flex *f = topo_flex_of(t);
	const uint32_t nx = 4, ny = 5;
	for (uint32_t a = 0; a < t->n_routers; a++)
		for (uint32_t b = 0; b < t->n_routers; b++) {
			if (a == b)
				continue;
			uint32_t xa, ya, za, xb, yb, zb, two = 0;
			topo_flex_xyz(f, a, &xa, &ya, &za);
			topo_flex_xyz(f, b, &xb, &yb, &zb);
			uint64_t n = min_paths(t, a, b, &two), want, want_two;
			if (za == zb)
				want = xa != xb && ya != yb ? 4 : xa == xb ? 2 * (ny - 2) : 2 * (nx - 2), want_two = want;
			else if (xa == xb && ya == yb)
				want = want_two = nx + ny - 2;
			else if (xa == xb || ya == yb)
				want = 1, want_two = xa == xb ? ny - 2 : nx - 2;
			else
				want = want_two = 2; /* both differ: (xa, yb) or (xb, ya) on the third layer */
			if (n != want || two != want_two) {
				TEST_FAIL_("(%u,%u,%u) -> (%u,%u,%u): %llu minimal paths, %u two-hop; expected %llu, %llu", xa,
					   ya, za, xb, yb, zb, (unsigned long long)n, two, (unsigned long long)want,
					   (unsigned long long)want_two);
				goto out;
			}
		}
out:
	topo_free(t);
}

static void test_flex_layers(void)
{
	/* §III-B: the diameter grows past 2 with more than three layers; FleX
	 * 6x6 with 4 to 7 layers has diameter 3 (§IV-C). Fig. 16 (p = 1, mean
	 * hops under uniform traffic, which the router-pair ASPL orders the
	 * same way): 4 layers above 5, every one of 4-7 between the 3-layer
	 * FleX and the 6x6x6 HyperX, and the 6x6 HyperX below the 3-layer
	 * FleX. */
	double aspl[8] = {0};
	for (int nz = 3; nz <= 7; nz++) {
		char spec[64];
		snprintf(spec, sizeof spec, "flex:nx=6,ny=6,nz=%d,p=10", nz);
		struct topo *t = tc_new(spec);
		if (!t)
			continue;
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		aspl[nz] = tc_aspl(t, sum);
		CHECK_EQ(diam, nz == 3 ? 2 : 3);
		CHECK_EQ(topo_max_radix(t), 30);
		CHECK_EQ(topo_count_links(t), 36ull * nz * 10);
		topo_free(t);
	}
	double hx[2] = {0};
	static const char *const hxs[2] = {"hyperx:s=6x6,t=1", "hyperx:s=6x6x6,t=1"};
	for (int i = 0; i < 2; i++) {
		struct topo *t = tc_new(hxs[i]);
		if (!t)
			continue;
		uint32_t diam;
		uint64_t sum;
		tc_all_pairs(t, &diam, &sum);
		hx[i] = tc_aspl(t, sum);
		topo_free(t);
	}
	CHECK(aspl[4] > aspl[5]);
	for (int nz = 4; nz <= 7; nz++)
		CHECK(aspl[3] < aspl[nz] && aspl[nz] < hx[1]);
	CHECK(hx[0] < aspl[3]);
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
		  "topology 'flex': parameters 'nx', 'ny', 'nz': Nx = Ny = 2 with an even Nz = 4 gives two disconnected "
		  "halves; expected an odd nz, or nx or ny of 3 or more");
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
	/* One group: its global ports have no other group to reach (it said
	 * "1 groups, expected 2 .. a*h+1 = 9 so that every pair of groups has
	 * a global link", the upper bound's reason). */
	CHECK_ERR(topo_new("dragonfly:a=4,h=2,g=1", &t, &e), NL_ERANGE, &e,
		  "topology 'dragonfly': parameter 'g': 1 group: its a*h = 8 global ports have no other group to reach; "
		  "expected 2 .. a*h+1 = 9 (one group of a routers alone is full:n=4,p=2)");
	CHECK_ERR(topo_new("dragonfly:a=1,p=1,h=1,g=1", &t, &e), NL_ERANGE, &e,
		  "parameter 'g': 1 group: its a*h = 1 global ports have no other group to reach; expected 2 .. a*h+1 = 2");
	CHECK_ERR(topo_new("dragonfly:a=3,h=3,p=1,g=5", &t, &e), NL_EINVAL, &e,
		  "parameter 'g': the a*h = 9 global ports of a group leave 1 over after the g-1 = 4 other groups; an odd remainder needs an even g");
	CHECK_ERR(topo_new("dragonfly:a=5,h=2", &t, &e), NL_EINVAL, &e,
		  "parameter 'p': the balanced default a/2 needs an even a (a = 5)");
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
	TEST_RUN(test_flex_paths);
	TEST_RUN(test_flex_layers);
	TEST_RUN(test_dragonfly);
	return test_done();
}
