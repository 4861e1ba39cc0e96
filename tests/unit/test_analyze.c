/* Unit tests: graph metrics, bisection, Moore bound, link-failure tolerance
 * and export (emu/analyze). Distances are checked against closed forms
 * computed here independently of the BFS (ring / line distance
 * distributions convolved over dimensions, binomials for the hypercube),
 * bisections against the papers' formulas. */
#include <jansson.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "core/error.h"
#include "core/rng.h"
#include "test.h"
#include "two_triangles.h"
#include "topo/topo.h"
#include "topo/topo_hyperx.h"
#include "topo/topo_permuted.h"

static struct topo *new_topo(const char *spec)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	if (topo_new(spec, &t, &e) != 0)
		TEST_FAIL_("topo_new(\"%s\"): %s", spec, e.msg);
	return t;
}

/* Exact distances of spec, or a failed case. */
static int run_dist(const struct topo *t, struct analyze_graph *g, struct analyze_dist *d,
		    enum analyze_dist_mode mode, uint32_t samples, uint64_t seed)
{
	struct nl_err e = {0};
	struct analyze_dist_opts o = {.mode = mode, .samples = samples, .seed = seed};
	int rc = analyze_graph_init(g, t, &e);
	if (rc == 0)
		rc = analyze_distances(t, g, &o, d, &e);
	if (rc != 0)
		TEST_FAIL_("%s: analysis failed: %s", t->spec, e.msg);
	return rc;
}

/* Per-source distance counts of a product graph: convolve the per-dimension
 * distributions. c[h] for h <= cap. */
static void convolve(uint64_t *c, uint32_t *len, const uint64_t *dim, uint32_t dlen)
{
	uint64_t out[256] = {0};
	for (uint32_t i = 0; i < *len; i++)
		for (uint32_t j = 0; j < dlen; j++)
			out[i + j] += c[i] * dim[j];
	*len += dlen - 1;
	memcpy(c, out, *len * sizeof *c);
}

/* Torus k1 x k2 x ...: a ring of k has 1 router at distance 0, 2 at each
 * 1 <= h < k/2 and 1 at k/2 when k is even (Dally & Towles §5.2). */
static void check_torus(const uint32_t *k, int nd)
{
	char spec[128];
	int n = snprintf(spec, sizeof spec, "torus:k=");
	uint64_t c[256] = {1};
	uint32_t len = 1, P = 1, diam = 0;
	for (int d = 0; d < nd; d++) {
		uint64_t ring[128] = {0};
		n += snprintf(spec + n, sizeof spec - (size_t)n, "%s%u", d ? "x" : "", k[d]);
		for (uint32_t x = 0; x < k[d]; x++)
			ring[x < k[d] - x ? x : k[d] - x]++;
		convolve(c, &len, ring, k[d] / 2 + 1);
		P *= k[d];
		diam += k[d] / 2;
	}
	struct topo *t = new_topo(spec);
	struct analyze_graph g;
	struct analyze_dist dd;
	if (!t || run_dist(t, &g, &dd, ANALYZE_DIST_AUTO, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	CHECK(dd.is_exact && dd.is_connected);
	CHECK_STR(dd.method, "vertex-transitive");
	CHECK_EQ(dd.n_sources, 1);
	CHECK_EQ(dd.diameter, diam);
	CHECK_EQ(dd.hist_len, diam + 1);
	double sum = 0;
	for (uint32_t h = 1; h < len && h < dd.hist_len; h++) {
		CHECK_UINT(dd.hist[h], ==, (uint64_t)P * c[h] / 2);
		sum += (double)h * (double)c[h];
	}
	CHECK_NEAR(dd.aspl, sum / (P - 1), 1e-12);
	analyze_dist_release(&dd);
	analyze_graph_release(&g);
	topo_free(t);
}

static void test_torus_closed_form(void)
{
	check_torus((const uint32_t[]){8, 8}, 2);
	check_torus((const uint32_t[]){5, 7, 3}, 3);
	check_torus((const uint32_t[]){4, 4, 4, 4, 4}, 5); /* 5D torus, seed 003 */
	check_torus((const uint32_t[]){16}, 1);
	/* ASPL of the 8x8 torus: P/(P-1) * 2 * k/4 = 64/63 * 4. */
	struct topo *t = new_topo("torus:k=8x8");
	struct analyze_graph g;
	struct analyze_dist d;
	if (t && run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) == 0) {
		CHECK_NEAR(d.aspl, 64.0 / 63.0 * 4.0, 1e-12);
		CHECK_EQ(g.links, 128);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
	}
	topo_free(t);
}

/* Mesh: a line of k has 2(k-h) ordered pairs at distance h >= 1; it has
 * no symmetry callback, so this exercises the all-sources path. */
static void test_mesh_closed_form(void)
{
	const uint32_t k[2] = {6, 5};
	uint64_t c[256] = {1};
	uint32_t len = 1;
	for (int d = 0; d < 2; d++) {
		uint64_t line[64] = {0};
		line[0] = k[d];
		for (uint32_t h = 1; h < k[d]; h++)
			line[h] = 2 * (k[d] - h);
		convolve(c, &len, line, k[d]);
	}
	struct topo *t = new_topo("mesh:k=6x5");
	struct analyze_graph g;
	struct analyze_dist d;
	if (!t || run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	CHECK_STR(d.method, "all-sources");
	CHECK_EQ(d.n_sources, 30);
	CHECK_EQ(d.diameter, 5 + 4);
	double sum = 0;
	for (uint32_t h = 1; h < len; h++) {
		CHECK_UINT(d.hist[h], ==, c[h] / 2);
		sum += (double)h * (double)c[h];
	}
	CHECK_NEAR(d.aspl, sum / (30.0 * 29.0), 1e-12);
	/* Mean |x - y| over a line: (k^2 - 1) / 3k per dimension, all pairs. */
	CHECK_NEAR(d.aspl * 29.0 / 30.0, 35.0 / 18.0 + 24.0 / 15.0, 1e-12);
	analyze_dist_release(&d);
	analyze_graph_release(&g);
	topo_free(t);
}

/* Hypercube n: C(n, h) routers at distance h; ASPL n 2^(n-1) / (2^n - 1).
 * The 2-ary torus is the same graph with every link doubled: the distance
 * metrics must not see the parallel links. Folded hypercube: distance
 * min(w, n + 1 - w) for a popcount-w offset, diameter ceil(n/2). */
static void test_hypercube_closed_form(void)
{
	const char *specs[] = {"hypercube:n=7", "torus:k=2x2x2x2x2x2x2"};
	for (int s = 0; s < 2; s++) {
		struct topo *t = new_topo(specs[s]);
		struct analyze_graph g;
		struct analyze_dist d;
		if (!t || run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) != 0) {
			topo_free(t);
			continue;
		}
		CHECK_EQ(d.diameter, 7);
		for (uint32_t h = 1; h <= 7; h++)
			CHECK_UINT(d.hist[h], ==, 128 * test_binom(7, h) / 2);
		CHECK_NEAR(d.aspl, 7.0 * 64.0 / 127.0, 1e-12);
		CHECK_EQ(g.links, 7 * 64);
		CHECK_EQ(g.phys_links, s == 0 ? 7 * 64 : 2 * 7 * 64);
		CHECK_EQ(g.max_degree, 7);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
		topo_free(t);
	}
	struct topo *t = new_topo("foldedhypercube:n=7");
	struct analyze_graph g;
	struct analyze_dist d;
	if (t && run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) == 0) {
		uint64_t cnt[8] = {0};
		double sum = 0;
		for (uint32_t w = 0; w <= 7; w++)
			cnt[w < 8 - w ? w : 8 - w] += test_binom(7, w);
		CHECK_EQ(d.diameter, 4);
		for (uint32_t h = 1; h <= 4; h++) {
			CHECK_UINT(d.hist[h], ==, 128 * cnt[h] / 2);
			sum += (double)h * (double)cnt[h];
		}
		CHECK_NEAR(d.aspl, sum / 127.0, 1e-12);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
	}
	topo_free(t);
}

/* HyperX: distance = differing coordinates, so the per-source counts are
 * the coefficients of prod (1 + (S_d - 1) z) (seed 001 §3.3); trunks
 * (K = 2 in dimension 1) count once in `links`. */
static void test_hyperx_closed_form(void)
{
	struct topo *t = new_topo("hyperx:s=3x4x2,k=1x2x1,t=2");
	struct analyze_graph g;
	struct analyze_dist d;
	if (!t || run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	uint64_t c[256] = {1};
	uint32_t len = 1;
	const uint64_t S[3] = {3, 4, 2};
	for (int i = 0; i < 3; i++) {
		uint64_t f[2] = {1, S[i] - 1};
		convolve(c, &len, f, 2);
	}
	CHECK_EQ(d.diameter, 3);
	for (uint32_t h = 1; h <= 3; h++)
		CHECK_UINT(d.hist[h], ==, 24 * c[h] / 2);
	CHECK_EQ(g.links, 24 * (2 + 3 + 1) / 2);
	CHECK_EQ(g.phys_links, 24 * (2 + 2 * 3 + 1) / 2);
	analyze_dist_release(&d);
	analyze_graph_release(&g);
	topo_free(t);
}

/* A symmetry callback must give the same numbers as every source: wrap
 * the mesh family with an orbits callback from its reflections (each
 * coordinate c folds to min(c, k-1-c)). */
static uint32_t mesh_reflect_orbits(const struct topo *t, uint32_t *reps, uint64_t *weight, uint32_t cap)
{
	const struct topo_grid *gr = t->grid;
	uint32_t n = 0;
	for (uint32_t r = 0; r < t->n_routers && n < cap; r++) {
		uint64_t w = 1;
		bool canonical = true;
		for (int d = 0; d < gr->n_dims; d++) {
			uint32_t c = topo_grid_coord(gr, r, d), m = gr->k[d] - 1 - c;
			if (c > m)
				canonical = false;
			if (c != m)
				w *= 2;
		}
		if (canonical) {
			reps[n] = r;
			weight[n++] = w;
		}
	}
	return n;
}

static void test_orbits_match_all_sources(void)
{
	struct topo *t = new_topo("mesh:k=7x4x3");
	struct analyze_graph g;
	struct analyze_dist all, orb;
	if (!t || run_dist(t, &g, &all, ANALYZE_DIST_AUTO, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	analyze_graph_release(&g);
	struct topo_ops ops = *t->ops;
	const struct topo_ops *orig = t->ops;
	ops.orbits = mesh_reflect_orbits;
	t->ops = &ops;
	if (run_dist(t, &g, &orb, ANALYZE_DIST_AUTO, 0, 1) == 0) {
		CHECK_STR(orb.method, "orbits");
		CHECK_EQ(orb.n_sources, 4 * 2 * 2);
		CHECK_EQ(orb.diameter, all.diameter);
		CHECK_EQ(orb.hist_len, all.hist_len);
		for (uint32_t h = 0; h < all.hist_len && h < orb.hist_len; h++)
			CHECK_UINT(orb.hist[h], ==, all.hist[h]);
		CHECK_NEAR(orb.aspl, all.aspl, 1e-12);
		analyze_dist_release(&orb);
		analyze_graph_release(&g);
	}
	t->ops = orig;
	analyze_dist_release(&all);
	topo_free(t);
}

/* A permuted topology (seed 003 §3) has no symmetry: the all-sources
 * analysis must agree with the diameter and distance sum the permutation
 * kept (computed by the family's own all-pairs BFS), and beat the base
 * torus on both (seed 003 Fig. 3). */
static void test_permuted_all_sources(void)
{
	struct topo *t = new_topo("p2(torus:k=8x8)");
	struct analyze_graph g;
	struct analyze_dist d;
	if (!t || run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	CHECK(topo_permuted_of(t) != NULL);
	if (topo_permuted_of(t)) {
		CHECK_STR(d.method, "all-sources");
		CHECK_EQ(d.diameter, topo_permuted_of(t)->diameter);
		CHECK_NEAR(d.aspl, (double)topo_permuted_of(t)->distance_sum / (64.0 * 63.0), 1e-12);
		CHECK_UINT(d.diameter, <, 8);                     /* the 8x8 torus: 8 */
		CHECK(d.aspl < 64.0 / 63.0 * 4.0);               /* and 4.063 */
	}
	analyze_dist_release(&d);
	analyze_graph_release(&g);
	topo_free(t);
}

/* Sampled distances: the diameter bounds bracket the exact value, the
 * ASPL estimate lies within its stated interval (deterministic for the
 * seed), the same seed gives the same numbers, and as many samples as
 * routers is the exact answer. */
static void test_sampled(void)
{
	struct topo *t = new_topo("mesh:k=16x12");
	struct analyze_graph g;
	struct analyze_dist ex, s1, s2;
	if (!t || run_dist(t, &g, &ex, ANALYZE_DIST_EXACT, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	analyze_graph_release(&g);
	if (run_dist(t, &g, &s1, ANALYZE_DIST_SAMPLED, 48, 7) == 0) {
		CHECK(!s1.is_exact);
		CHECK_STR(s1.method, "sampled");
		CHECK_EQ(s1.n_sources, 48);
		CHECK_UINT(s1.diameter, <=, ex.diameter);
		CHECK_UINT(s1.diameter_hi, >=, ex.diameter);
		CHECK(s1.aspl_ci95 > 0);
		CHECK(fabs(s1.aspl - ex.aspl) <= s1.aspl_ci95);
		analyze_graph_release(&g);
		if (run_dist(t, &g, &s2, ANALYZE_DIST_SAMPLED, 48, 7) == 0) {
			CHECK(s2.aspl == s1.aspl && s2.diameter == s1.diameter && s2.aspl_ci95 == s1.aspl_ci95);
			analyze_dist_release(&s2);
			analyze_graph_release(&g);
		}
		analyze_dist_release(&s1);
	}
	if (run_dist(t, &g, &s1, ANALYZE_DIST_SAMPLED, 10000, 7) == 0) {
		CHECK(s1.is_exact);
		CHECK_NEAR(s1.aspl, ex.aspl, 1e-12);
		analyze_dist_release(&s1);
		analyze_graph_release(&g);
	}
	/* AUTO with a tiny budget falls back to sampling. */
	struct nl_err e = {0};
	struct analyze_dist_opts o = {.mode = ANALYZE_DIST_AUTO, .budget = 100, .samples = 20, .seed = 3};
	if (analyze_graph_init(&g, t, &e) == 0) {
		CHECK_OK(analyze_distances(t, &g, &o, &s1, &e), &e);
		CHECK(!s1.is_exact);
		CHECK_EQ(s1.n_sources, 20);
		analyze_dist_release(&s1);
		analyze_graph_release(&g);
	}
	analyze_dist_release(&ex);
	topo_free(t);
}

/* The default number of samples stops at the sampling budget, in whole
 * batches of 64, and its 95% interval widens with fewer sources: with no
 * budget 16 batches of 64 cost up to 16 x levels x (routers + adjacency)
 * (mesh:k=880x880 ran over 49 s). A count the caller gives runs whole. */
static void test_sample_budget(void)
{
	struct topo *t = new_topo("mesh:k=40x40");
	struct analyze_graph g;
	struct analyze_dist ex, full, cut, asked;
	struct nl_err e = {0};
	if (!t || run_dist(t, &g, &ex, ANALYZE_DIST_EXACT, 0, 1) != 0) {
		topo_free(t);
		return;
	}
	struct analyze_dist_opts o = {.mode = ANALYZE_DIST_SAMPLED, .seed = 5};
	CHECK_OK(analyze_distances(t, &g, &o, &full, &e), &e);
	CHECK_EQ(full.n_sources, 1024);
	CHECK_EQ(full.samples_wanted, 1024);
	o.sample_budget = 1; /* past it after the first batch */
	CHECK_OK(analyze_distances(t, &g, &o, &cut, &e), &e);
	CHECK(!cut.is_exact);
	CHECK_EQ(cut.n_sources, 64);
	CHECK_EQ(cut.samples_wanted, 1024);
	CHECK(cut.aspl_ci95 > full.aspl_ci95);
	CHECK(fabs(cut.aspl - ex.aspl) <= cut.aspl_ci95);
	o.samples = 1024; /* asked for: runs whole */
	CHECK_OK(analyze_distances(t, &g, &o, &asked, &e), &e);
	CHECK_EQ(asked.n_sources, 1024);
	CHECK(asked.aspl == full.aspl);
	/* AUTO falling back to sampling keeps the sampling budget. */
	struct analyze_dist_opts au = {.mode = ANALYZE_DIST_AUTO, .budget = 100, .sample_budget = 1, .seed = 5};
	analyze_dist_release(&asked);
	CHECK_OK(analyze_distances(t, &g, &au, &asked, &e), &e);
	CHECK(!asked.is_exact);
	CHECK_EQ(asked.n_sources, 64);
	CHECK(asked.aspl == cut.aspl);
	analyze_dist_release(&asked);
	analyze_dist_release(&cut);
	analyze_dist_release(&full);
	analyze_dist_release(&ex);
	analyze_graph_release(&g);
	topo_free(t);
}

/* Sampled distances of a family with a closed-form diameter report it,
 * exact: mesh:k=440x440 printed 'diameter 865..910 (sampled)' for 878.
 * A graph without one (the same mesh read from an edge list has no
 * closed form) keeps the bounds. */
static void test_sampled_closed_diameter(void)
{
	struct topo *t = new_topo("mesh:k=30x20");
	struct analyze_graph g;
	struct analyze_dist d;
	if (!t || run_dist(t, &g, &d, ANALYZE_DIST_SAMPLED, 4, 2) != 0) {
		topo_free(t);
		return;
	}
	CHECK(!d.is_exact);
	CHECK(d.is_diameter_exact);
	CHECK_EQ(d.diameter, 48);
	CHECK_EQ(d.diameter_hi, 48);
	analyze_dist_release(&d);
	analyze_graph_release(&g);
	topo_free(t);
	t = new_topo("graph:file=" TEST_SRC("tests/data/topo/petersen.edges"));
	if (t && run_dist(t, &g, &d, ANALYZE_DIST_SAMPLED, 4, 2) == 0) {
		CHECK(!d.is_diameter_exact);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
	}
	topo_free(t);
	/* One router is exact whatever the mode. */
	t = new_topo("fly:k=4");
	if (t && run_dist(t, &g, &d, ANALYZE_DIST_SAMPLED, 4, 2) == 0) {
		CHECK(d.is_exact && d.is_diameter_exact);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
	}
	topo_free(t);
}

static void test_disconnected(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	struct analyze_graph g;
	struct analyze_dist d;
	struct analyze_faults f;
	CHECK_OK(two_triangles_new(&t, &e), &e);
	CHECK_OK(analyze_graph_init(&g, t, &e), &e);
	CHECK_OK(analyze_distances(t, &g, NULL, &d, &e), &e);
	CHECK(!d.is_connected);
	CHECK_EQ(d.diameter, UINT32_MAX);
	CHECK_EQ(d.hist[1], 6);
	CHECK_OK(analyze_link_faults(t, NULL, &f, &e), &e);
	CHECK_EQ(f.connected[0], 0);
	CHECK_EQ(f.tolerance_pct, -1);
	analyze_dist_release(&d);
	analyze_graph_release(&g);
	topo_free(t);
}

/* METIS against the closed forms: 8x8 torus 2*64/8 = 16 links, 4x4x4
 * torus 32, 8x8 mesh 8, hypercube n=6 P/2 = 32, the doubled 2-ary torus
 * 2x2x2x2 P = 16 physical links, HyperX eq. 1 (P/4) K_m S_m (seed 001 §3),
 * trunked links counted each. */
static void test_metis_closed_form(void)
{
	static const struct {
		const char *spec;
		uint64_t cut;
	} cases[] = {
		{"torus:k=8x8", 16},
		{"torus:k=4x4x4", 32},
		{"mesh:k=8x8", 8},
		{"hypercube:n=6", 32},
		{"torus:k=2x2x2x2", 16},
		{"hyperx:s=4x4,k=1x1,t=1", 16},
		{"hyperx:s=4x6,k=3x1,t=2", 36}, /* eq. 1: min(24/4 * 3*4, 24/4 * 1*6) */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct topo *t = new_topo(cases[i].spec);
		struct analyze_graph g;
		struct analyze_bisect b, b2;
		struct analyze_formula f;
		struct nl_err e = {0};
		struct analyze_bisect_opts o = {.seed = 1};
		if (!t)
			continue;
		CHECK_OK(analyze_graph_init(&g, t, &e), &e);
		CHECK_OK(analyze_bisect_metis(&g, &o, &b, &e), &e);
		CHECK_OK(analyze_bisection_formula(t, &g, &f, &e), &e);
		CHECK(f.has);
		if (b.cut != cases[i].cut || f.value != (double)cases[i].cut)
			TEST_FAIL_("%s: METIS %llu, formula %g, expected %llu", cases[i].spec,
				   (unsigned long long)b.cut, f.value, (unsigned long long)cases[i].cut);
		CHECK_UINT(b.part_weight[0], ==, b.part_weight[1]);
		/* Same seed, same partition. */
		CHECK_OK(analyze_bisect_metis(&g, &o, &b2, &e), &e);
		CHECK_UINT(b2.cut, ==, b.cut);
		analyze_graph_release(&g);
		topo_free(t);
	}
}

/* The exact bisection by brute force: the fewest physical links cut over
 * every split of the routers into floor(n/2) | ceil(n/2) (router 0 kept
 * on the first side; both sizes when n is odd). Small graphs only. */
/* spec's topology, its graph and its bisection formula into *g and *f;
 * NULL (a failed case) when any fails. */
static struct topo *formula_case(const char *spec, struct analyze_graph *g, struct analyze_formula *f)
{
	struct topo *t = new_topo(spec);
	struct nl_err e = {0};
	if (!t)
		return NULL;
	CHECK_OK(analyze_graph_init(g, t, &e), &e);
	CHECK_OK(analyze_bisection_formula(t, g, f, &e), &e);
	return t;
}

/* Links of g between routers on different sides (side[r] 0 or 1). */
static uint64_t cut_of(const struct analyze_graph *g, const char *side)
{
	uint64_t cut = 0;
	for (uint32_t v = 0; v < g->n; v++)
		for (uint32_t j = g->off[v]; j < g->off[v + 1]; j++)
			if (g->adj[j] > v && side[v] != side[g->adj[j]])
				cut += g->mult[j];
	return cut;
}

static uint64_t brute_bisection(const struct analyze_graph *g)
{
	uint32_t n = g->n, best_k[2] = {n / 2, (n + 1) / 2};
	uint64_t best = UINT64_MAX;
	if (n < 2 || n > 30)
		return UINT64_MAX;
	for (int s = 0; s < (n % 2 ? 2 : 1); s++) {
		uint32_t k = best_k[s] - 1; /* others beside router 0 */
		uint64_t lim = 1ull << (n - 1);
		/* Gosper's hack over the n-1 routers 1..n-1, k chosen. */
		for (uint64_t c = k ? (1ull << k) - 1 : 0; c < lim;) {
			uint64_t side = (c << 1) | 1, cut = 0;
			for (uint32_t v = 0; v < n; v++)
				if (side >> v & 1)
					for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
						if (!(side >> g->adj[i] & 1))
							cut += g->mult[i];
			if (cut < best)
				best = cut;
			if (!k)
				break;
			uint64_t lo = c & -c, r = c + lo;
			c = (((r ^ c) >> 2) / lo) | r;
		}
	}
	return best;
}

/* Closed forms against brute force. HyperX eq. 1 (seed 001 §3),
 * (P/4) K_m S_m, holds for even S_m only: S = 3x4 gives 9 and full:n=7
 * (S = 7) 12.25, where every balanced split cuts 12. With an odd S the
 * formula is Lindsey's lexicographic cut, which brute force confirms.
 * Torus / mesh 2P/k, P/k (Dally & Towles §3.3) with k the largest radix
 * when even; with an odd largest radix there is none (torus 4x5: brute
 * force 10). Equality's semicircle cut (seed 002 §4.3) is an upper bound:
 * N14K6[-1,1,3,9](4) cuts 18 that way, brute force finds 14. */
static void test_bisection_brute_force(void)
{
	static const struct {
		const char *spec;
		uint64_t exact;  /* brute force, also computed below */
		int formula;     /* 1 exact formula, 0 none, 2 upper bound */
		double value;
	} cases[] = {
		{"hyperx:s=3x4", 12, 1, 12},
		{"hyperx:s=3x3", 8, 1, 8},
		{"hyperx:s=3x5", 16, 1, 16},
		{"hyperx:s=2x3x3", 9, 1, 9},
		{"hyperx:s=3x7", 26, 1, 26},
		{"hyperx:s=3x4,k=2x2", 24, 1, 24},
		{"full:n=7", 12, 1, 12},
		{"full:n=5,k=3", 18, 1, 18},
		{"full:n=9", 20, 1, 20},
		{"hyperx:s=4x4", 16, 1, 16},
		{"hyperx:s=3x4,k=1x2", 16, 0, 0},
		{"hyperx:s=4x3,k=1x2", 12, 1, 12}, /* eq. 1's minimum at the even S = 4 */
		{"hyperx:s=4x6,k=3x1", 36, 1, 36},
		{"torus:k=4x3", 6, 1, 6},
		{"torus:k=6x3", 6, 1, 6},
		{"mesh:k=3x4", 3, 1, 3},
		{"mesh:k=4x5", 5, 0, 0},
		{"torus:k=4x5", 10, 0, 0},
		{"N14K6[-1,1,3,9](4)", 14, 2, 18},
		{"flex:nx=2,ny=2,nz=3", 8, 0, 0}, /* FleX eq. 8 would give 12 */
		{"flex:nx=2,ny=3,nz=3", 18, 1, 18},
		{"flex:nx=3,ny=2,nz=3", 18, 1, 18},
		{"flex:nx=2,ny=4,nz=3", 24, 1, 24},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct analyze_graph g;
		struct analyze_formula f;
		struct topo *t = formula_case(cases[i].spec, &g, &f);
		if (!t)
			continue;
		uint64_t bf = brute_bisection(&g);
		if (bf != cases[i].exact)
			TEST_FAIL_("%s: brute force %llu, expected %llu", cases[i].spec, (unsigned long long)bf,
				   (unsigned long long)cases[i].exact);
		if (cases[i].formula == 0 && f.has)
			TEST_FAIL_("%s: formula %g (%s), expected none", cases[i].spec, f.value, f.source);
		if (cases[i].formula == 1 && (!f.has || f.is_upper_bound || f.value != (double)bf))
			TEST_FAIL_("%s: formula %g (has %d, bound %d), brute force %llu", cases[i].spec, f.value, f.has,
				   f.is_upper_bound, (unsigned long long)bf);
		if (cases[i].formula == 2 &&
		    (!f.has || !f.is_upper_bound || f.value != cases[i].value || f.value < (double)bf))
			TEST_FAIL_("%s: upper bound %g (has %d, bound %d), expected %g >= %llu", cases[i].spec, f.value,
				   f.has, f.is_upper_bound, cases[i].value, (unsigned long long)bf);
		if (f.has)
			CHECK(f.value == floor(f.value)); /* links are whole */
		analyze_graph_release(&g);
		topo_free(t);
	}
	/* Larger odd HyperX (seed 001 eq. 1 gave 31.25 for 5x5 and 3x100 is
	 * beyond brute force): the lexicographic split is balanced and its
	 * cut counted here from the graph matches the formula. 3x100: x1 = 0
	 * and half of x1 = 1 on one side cut 2 links per x2 and 50 x 50 in
	 * the x1 = 1 clique: 2700, well below eq. 1's even-dimension 7500. */
	static const struct {
		const char *spec;
		double value;
	} odd[] = {{"hyperx:s=5x5", 36}, {"hyperx:s=3x100", 2700}, {"hyperx:s=5x5x5", 0}};
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
		struct analyze_graph g;
		struct analyze_formula f;
		struct topo *t = formula_case(odd[i].spec, &g, &f);
		if (!t)
			continue;
		/* Routers are numbered with dimension 1 fastest, so lexicographic
		 * order with the last dimension most significant is id order
		 * reversed by dimension; rebuild it from coordinates. */
		const struct topo_hyperx *h = topo_hyperx_of(t);
		uint32_t n = t->n_routers;
		uint64_t *key = malloc(n * sizeof *key);
		char *side = calloc(n, 1);
		for (uint32_t r = 0; r < n; r++) {
			key[r] = 0;
			for (int d = 0; d < h->L; d++) /* S ascending in these specs: dim 0 most significant */
				key[r] = key[r] * h->S[d] + topo_hyperx_coord(h, r, d);
		}
		for (uint32_t r = 0; r < n; r++)
			side[r] = key[r] < n / 2;
		uint64_t cut = cut_of(&g, side);
		CHECK(f.has && !f.is_upper_bound);
		CHECK_NEAR(f.value, (double)cut, 0);
		if (odd[i].value)
			CHECK_NEAR(f.value, odd[i].value, 0);
		free(key);
		free(side);
		analyze_graph_release(&g);
		topo_free(t);
	}
	/* Torus 4x7 (largest radix odd): the doc's old "largest even radix"
	 * rule would give 2P/4 = 14, but this balanced split cuts 10: x2 <= 2
	 * (12 routers) plus (x1, x2) = (0, 3) and (1, 3). */
	struct analyze_graph g;
	struct analyze_formula f;
	struct topo *t = formula_case("torus:k=4x7", &g, &f);
	if (t) {
		char side[28];
		uint64_t in = 0;
		CHECK(!f.has);
		for (uint32_t r = 0; r < 28; r++) {
			uint32_t x1 = topo_grid_coord(t->grid, r, 0), x2 = topo_grid_coord(t->grid, r, 1);
			side[r] = x2 <= 2 || (x2 == 3 && x1 <= 1);
			in += (uint64_t)side[r];
		}
		CHECK_UINT(in, ==, 14);
		CHECK_UINT(cut_of(&g, side), ==, 10);
		analyze_graph_release(&g);
		topo_free(t);
	}
}

/* FleX Table 3 (seed 000 §III-B.3): three-layer FleX bisection by eq. 8,
 * 3 Nx Ny min(Nx, Ny) / 2, and by METIS: 4x4 -> 96, 5x4 -> 120, 20x20 ->
 * 12,000, 4x100 -> 2,400 (the table's rows with an even shorter axis; its
 * p is irrelevant to the router cut and left at the default). The 15x20
 * row's eq. 8 value is 6,750, which no balanced cut reaches (the shorter
 * axis is odd): no formula is given, and METIS stays above 6,750. */
static void test_flex_table3(void)
{
	static const struct {
		uint32_t nx, ny;
		uint32_t routers;
		double bisection;
	} row[] = {
		{4, 4, 48, 96}, {5, 4, 60, 120}, {20, 20, 1200, 12000}, {4, 100, 1200, 2400}, {15, 20, 900, 6750},
	};
	for (size_t i = 0; i < sizeof row / sizeof *row; i++) {
		char spec[96];
		snprintf(spec, sizeof spec, "flex:nx=%u,ny=%u,nz=3", row[i].nx, row[i].ny);
		struct topo *t = new_topo(spec);
		struct analyze_graph g;
		struct analyze_formula f;
		struct analyze_bisect b;
		struct analyze_bisect_opts o = {.seed = 1};
		struct nl_err e = {0};
		if (!t)
			continue;
		CHECK_EQ(t->n_routers, row[i].routers);
		CHECK_OK(analyze_graph_init(&g, t, &e), &e);
		CHECK_OK(analyze_bisection_formula(t, &g, &f, &e), &e);
		bool even = (row[i].nx < row[i].ny ? row[i].nx : row[i].ny) % 2 == 0;
		CHECK(f.has == even);
		if (even) {
			CHECK(strstr(f.source, "eq. 8") != NULL);
			CHECK_NEAR(f.value, row[i].bisection, 0);
		}
		CHECK_OK(analyze_bisect_metis(&g, &o, &b, &e), &e);
		if (even) {
			if (b.cut != (uint64_t)row[i].bisection)
				TEST_FAIL_("%s: METIS %llu, Table 3 %g", spec, (unsigned long long)b.cut, row[i].bisection);
		}
		if (row[i].nx == 15)
			CHECK((double)b.cut > row[i].bisection);
		CHECK_UINT(b.part_weight[0], ==, b.part_weight[1]);
		analyze_graph_release(&g);
		topo_free(t);
	}
	/* Eq. 8 is no link count with an odd shorter axis (3x3: 40.5, 5x5:
	 * 187.5; brute force over the balanced splits of 3x3 finds 44) and is
	 * beaten at 2x2 (12, where brute force finds 8; test_bisection_brute_force):
	 * no formula there, so b_r / B_r never come from it. */
	static const struct {
		const char *spec;
		bool has;
		double value;
	} exc[] = {
		{"flex:nx=3,ny=3,nz=3", false, 0}, {"flex:nx=5,ny=5,nz=3", false, 0},
		{"flex:nx=2,ny=2,nz=3", false, 0}, {"flex:nx=3,ny=4,nz=3", false, 0},
		{"flex:nx=4,ny=3,nz=3", false, 0}, {"flex:nx=6,ny=6,nz=3", true, 324},
	};
	for (size_t i = 0; i < sizeof exc / sizeof *exc; i++) {
		struct topo *tx = new_topo(exc[i].spec);
		struct analyze_formula f;
		struct nl_err e = {0};
		if (!tx)
			continue;
		CHECK_OK(analyze_bisection_formula(tx, NULL, &f, &e), &e);
		if (f.has != exc[i].has || (f.has && f.value != exc[i].value))
			TEST_FAIL_("%s: formula %s %g, expected %s %g", exc[i].spec, f.has ? "yes" : "no", f.value,
				   exc[i].has ? "yes" : "no", exc[i].value);
		topo_free(tx);
	}
	/* Eq. 8 is stated for three layers only. */
	struct topo *t = new_topo("flex:nx=4,ny=4,nz=5");
	if (t) {
		struct analyze_formula f;
		struct nl_err e = {0};
		CHECK_OK(analyze_bisection_formula(t, NULL, &f, &e), &e);
		CHECK(!f.has);
		topo_free(t);
	}
}

/* FleX Table 4's dragonfly column (N ~ 1,000 .. 10,000): the full
 * dragonflies a = 2p = 2h, g = ah + 1 groups, h = 4 .. 7, have B_r 0.187,
 * 0.182, 0.179, 0.177 with B = m^2 + (a/2)^2, m = (g - 1)/2: half of one
 * group X on each side, each half with the m groups its global links reach
 * (one global link joins every pair of groups), so m^2 global links and
 * the (a/2)^2 local links inside X are cut. Built here on netloom's
 * wiring: balanced, and exactly that cut. METIS (8 runs) finds 272, 654,
 * 1,340 and 2,460 (test cli_analyze table4_rows bounds it). */
static void test_dragonfly_table4(void)
{
	static const struct {
		uint32_t h;
		double table;
	} row[] = {{4, 0.187}, {5, 0.182}, {6, 0.179}, {7, 0.177}};
	for (size_t i = 0; i < sizeof row / sizeof *row; i++) {
		uint32_t h = row[i].h, a = 2 * h, g = a * h + 1, m = (g - 1) / 2;
		char spec[64];
		snprintf(spec, sizeof spec, "dragonfly:a=%u,p=%u,h=%u", a, h, h);
		struct topo *t = new_topo(spec);
		struct analyze_graph gr;
		struct nl_err e = {0};
		if (!t)
			continue;
		CHECK_EQ(t->n_routers, a * g);
		CHECK_OK(analyze_graph_init(&gr, t, &e), &e);
		char *side = malloc(t->n_routers);
		memset(side, 1, t->n_routers);
		for (uint32_t r = 0; r < a / 2; r++) { /* group X = 0, its first half */
			side[r] = 0;
			for (uint32_t p = t->port_base[r]; p < t->port_base[r + 1]; p++) {
				if (!topo_port_is_network(t, p))
					continue;
				uint32_t grp = t->port_router[t->peer[p]] / a;
				if (grp != 0)
					memset(side + (size_t)grp * a, 0, a);
			}
		}
		uint32_t n0 = 0;
		for (uint32_t r = 0; r < t->n_routers; r++)
			n0 += side[r] == 0;
		CHECK_EQ(n0, t->n_routers / 2);
		uint64_t cut = cut_of(&gr, side);
		CHECK_UINT(cut, ==, (uint64_t)m * m + (a / 2) * (a / 2));
		double br = analyze_ratio_B(&gr, cut);
		CHECK_NEAR(br, row[i].table, 5e-4);
		free(side);
		analyze_graph_release(&gr);
		topo_free(t);
	}
}

/* FleX §III-A (Fig. 3): with network radix 100 (Nx = Ny = 26, three
 * layers) FleX reaches 20.28% of the diameter-2 Moore bound; Table 6's
 * 6x6x3 p=10: diameter 2, and the distance split of §III-B.2. */
static void test_flex_metrics(void)
{
	struct topo *t = new_topo("flex:nx=26,ny=26,nz=3,p=1");
	struct analyze_graph g;
	struct analyze_dist d;
	if (t && run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) == 0) {
		CHECK_EQ(g.max_degree, 100);
		CHECK_EQ(d.diameter, 2);
		CHECK_NEAR(t->n_routers / analyze_moore_bound(g.max_degree, d.diameter), 0.2028, 5e-5);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
	}
	topo_free(t);
	t = new_topo("flex:nx=6,ny=6,nz=3,p=10");
	if (t && run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) == 0) {
		CHECK_EQ(t->n_routers, 108);
		CHECK_EQ(g.links, 1080);
		CHECK_EQ(d.diameter, 2);
		/* 3NxNy(2Nx+2Ny-4)/2 pairs at distance 1, the rest at 2. */
		CHECK_EQ(d.hist[1], 108 * 20 / 2);
		CHECK_EQ(d.hist[2], 108 * 107 / 2 - 108 * 20 / 2);
		analyze_dist_release(&d);
		analyze_graph_release(&g);
	}
	topo_free(t);
}

/* Bisection ratios (seed 002 §4.3) of the 8x8 torus: B = 16, 128 router
 * links, 64 endpoint links: B_r = 1/8, b_r = 16/192. */
static void test_ratios_and_moore(void)
{
	struct topo *t = new_topo("torus:k=8x8");
	struct analyze_graph g;
	struct nl_err e = {0};
	if (t) {
		CHECK_OK(analyze_graph_init(&g, t, &e), &e);
		CHECK_NEAR(analyze_ratio_B(&g, 16), 0.125, 1e-15);
		CHECK_NEAR(analyze_ratio_b(&g, 16), 16.0 / 192.0, 1e-15);
		analyze_graph_release(&g);
		topo_free(t);
	}
	/* Moore bound 1 + d sum (d-1)^i: FleX §III-A quotes 20.28% of the
	 * diameter-2 bound at network radix 100 for 3-layer FleX, i.e.
	 * 3 * 26^2 = 2,028 routers of 10,001. */
	CHECK_NEAR(analyze_moore_bound(100, 2), 10001, 0);
	CHECK_NEAR(2028.0 / analyze_moore_bound(100, 2), 0.2028, 5e-5);
	CHECK_NEAR(analyze_moore_bound(3, 2), 10, 0);
	CHECK_NEAR(analyze_moore_bound(4, 8), 1 + 4 * (1 + 3 + 9 + 27 + 81 + 243 + 729 + 2187), 0);
	CHECK_NEAR(analyze_moore_bound(7, 0), 1, 0);
	/* Past a double (degree 4, diameter 878: mesh:k=440x440 printed
	 * 'Moore bound inf', ratio 0) the logarithm stays finite:
	 * 1 + 4 (3^878 - 1) / 2 = 2 * 3^878 - 1. */
	CHECK(!isfinite(analyze_moore_bound(4, 878)));
	CHECK_NEAR(analyze_moore_bound_log10(4, 878), log10(2.0) + 878 * log10(3.0), 1e-9);
	CHECK_NEAR(analyze_moore_bound_log10(4, 8), log10(1 + 4 * (1 + 3 + 9 + 27 + 81 + 243 + 729 + 2187)), 1e-12);
	CHECK_NEAR(analyze_moore_bound_log10(3, 1100), log10(3.0) + 1100 * log10(2.0), 1e-9);
	/* The Petersen graph meets the Moore bound for degree 3, diameter 2. */
	t = new_topo("graph:file=" TEST_SRC("tests/data/topo/petersen.edges"));
	if (t) {
		struct analyze_dist d;
		if (run_dist(t, &g, &d, ANALYZE_DIST_AUTO, 0, 1) == 0) {
			CHECK_EQ(d.diameter, 2);
			CHECK_EQ(g.max_degree, 3);
			CHECK_NEAR(t->n_routers / analyze_moore_bound(g.max_degree, d.diameter), 1.0, 0);
			analyze_dist_release(&d);
			analyze_graph_release(&g);
		}
		topo_free(t);
	}
}

/* Ring of 20 links: removing 1 link (5%) never disconnects it, removing 2
 * (10%) always does, so the tolerance is 5% (FleX Table 5 method). */
static void test_faults_ring(void)
{
	struct topo *t = new_topo("torus:k=20");
	struct analyze_faults f;
	struct nl_err e = {0};
	struct analyze_fault_opts o = {.seed = 5};
	if (!t)
		return;
	CHECK_OK(analyze_link_faults(t, &o, &f, &e), &e);
	CHECK_EQ(f.links, 20);
	CHECK_EQ(f.n_steps, 20);
	CHECK_EQ(f.trials, 100);
	CHECK_EQ(f.removed[1], 1);
	CHECK_EQ(f.removed[2], 2);
	CHECK_EQ(f.removed[19], 19);
	CHECK_EQ(f.connected[0], 100);
	CHECK_EQ(f.connected[1], 100);
	for (uint32_t s = 2; s < f.n_steps; s++)
		CHECK_EQ(f.connected[s], 0);
	CHECK_EQ(f.tolerance_pct, 5);
	topo_free(t);
}

/* One router has no router-router links: it stays connected at every
 * step, 100% included (the 100% step was dropped as if every network had
 * 2+ routers, and 'tolerates 95% of 0 links' printed). */
static void test_faults_one_router(void)
{
	struct topo *t = new_topo("fly:k=4");
	struct analyze_faults f;
	struct nl_err e = {0};
	if (!t)
		return;
	CHECK_OK(analyze_link_faults(t, NULL, &f, &e), &e);
	CHECK_EQ(f.links, 0);
	CHECK_EQ(f.n_steps, 21);
	CHECK_EQ(f.connected[20], 100);
	CHECK_EQ(f.tolerance_pct, 100);
	topo_free(t);
}

/* The reverse union-find agrees with removing the links and running BFS,
 * trial by trial (same rng streams), and the same seed gives the same
 * result. */
static void test_faults_against_bfs(void)
{
	struct topo *t = new_topo("torus:k=5x4");
	struct analyze_faults f, f2;
	struct nl_err e = {0};
	struct analyze_fault_opts o = {.seed = 11, .trials = 30};
	if (!t)
		return;
	CHECK_OK(analyze_link_faults(t, &o, &f, &e), &e);
	CHECK_OK(analyze_link_faults(t, &o, &f2, &e), &e);
	CHECK(!memcmp(&f, &f2, sizeof f));

	/* Independent recount: the links in port order, the trial's shuffle. */
	uint32_t m = 0, la[64], lb[64], perm[64];
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g) {
			la[m] = t->port_router[g];
			lb[m] = t->port_router[t->peer[g]];
			m++;
		}
	CHECK_EQ(m, 40);
	uint32_t connected[ANALYZE_FAULT_MAX_STEPS] = {0};
	for (uint32_t trial = 0; trial < 30; trial++) {
		struct rng r;
		rng_init(&r, 11, RNG_CLASS_ANALYSIS, 0x4641554c00000000ull | trial);
		for (uint32_t i = 0; i < m; i++)
			perm[i] = i;
		rng_shuffle_u32(&r, perm, m);
		for (uint32_t s = 0; s < f.n_steps; s++) {
			/* BFS over the links perm[removed..m-1]. */
			uint8_t seen[20] = {1};
			uint32_t reached = 1;
			for (bool grew = true; grew;) {
				grew = false;
				for (uint32_t i = (uint32_t)f.removed[s]; i < m; i++) {
					uint32_t a = la[perm[i]], b = lb[perm[i]];
					if (seen[a] != seen[b]) {
						seen[a] = seen[b] = 1;
						reached++;
						grew = true;
					}
				}
			}
			connected[s] += reached == 20;
		}
	}
	for (uint32_t s = 0; s < f.n_steps; s++)
		CHECK_EQ(f.connected[s], connected[s]);
	topo_free(t);
}

/* Export round trips: the edge list rebuilds the graph, the JSON parses
 * and pairs every port, DOT has one edge line per router pair. */
static void test_export(void)
{
	struct topo *t = new_topo("hyperx:s=3x4,k=1x2,t=2");
	struct analyze_graph g;
	struct nl_err e = {0};
	if (!t)
		return;
	CHECK_OK(analyze_graph_init(&g, t, &e), &e);
	CHECK_EQ(analyze_format_parse("dot"), ANALYZE_FMT_DOT);
	CHECK_EQ(analyze_format_parse("png"), -1);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK_OK(analyze_export(t, NULL, ANALYZE_FMT_EDGELIST, f, &e), &e);
	fclose(f);
	uint32_t a, b, w, lines = 0;
	uint64_t phys = 0;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		CHECK_EQ(sscanf(line, "%u %u %u", &a, &b, &w), 3);
		CHECK(a < b);
		bool found = false;
		for (uint32_t i = g.off[a]; i < g.off[a + 1]; i++)
			if (g.adj[i] == b && g.mult[i] == w)
				found = true;
		CHECK(found);
		phys += w;
		lines++;
	}
	CHECK_EQ(lines, g.links);
	CHECK_EQ(phys, g.phys_links);
	free(buf);

	f = open_memstream(&buf, &len);
	CHECK_OK(analyze_export(t, NULL, ANALYZE_FMT_JSON, f, &e), &e);
	fclose(f);
	json_error_t je;
	json_t *doc = json_loads(buf, 0, &je);
	CHECK(doc != NULL);
	if (doc) {
		json_t *routers = json_object_get(doc, "routers");
		CHECK_EQ(json_integer_value(json_object_get(doc, "n_routers")), 12);
		CHECK_EQ(json_array_size(routers), 12);
		CHECK_EQ(json_array_size(json_object_get(doc, "endpoints")), 24);
		for (size_t r = 0; r < json_array_size(routers); r++) {
			json_t *ro = json_array_get(routers, r), *ports = json_object_get(ro, "ports");
			json_t *coord = json_object_get(ro, "coord");
			CHECK_EQ(json_array_size(coord), 2);
			CHECK_EQ(json_integer_value(json_array_get(coord, 0)), r % 3);
			for (size_t p = 0; p < json_array_size(ports); p++) {
				json_t *po = json_array_get(ports, p), *peer = json_object_get(po, "router");
				if (!peer)
					continue;
				/* The far port points back here. */
				json_t *back = json_array_get(
					json_object_get(json_array_get(routers, (size_t)json_integer_value(peer)), "ports"),
					(size_t)json_integer_value(json_object_get(po, "port")));
				CHECK_EQ(json_integer_value(json_object_get(back, "router")), r);
				CHECK_EQ(json_integer_value(json_object_get(back, "port")), p);
			}
		}
		json_decref(doc);
	}
	free(buf);

	f = open_memstream(&buf, &len);
	CHECK_OK(analyze_export(t, NULL, ANALYZE_FMT_DOT, f, &e), &e);
	fclose(f);
	uint32_t edges = 0;
	for (char *p = buf; (p = strstr(p, " -- ")); p++)
		edges++;
	CHECK_EQ(edges, g.links);
	CHECK(strstr(buf, "links=2, penwidth=2") != NULL);
	CHECK(!strncmp(buf, "graph \"hyperx:", 14));
	free(buf);
	analyze_graph_release(&g);
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_torus_closed_form);
	TEST_RUN(test_mesh_closed_form);
	TEST_RUN(test_hypercube_closed_form);
	TEST_RUN(test_hyperx_closed_form);
	TEST_RUN(test_orbits_match_all_sources);
	TEST_RUN(test_permuted_all_sources);
	TEST_RUN(test_sampled);
	TEST_RUN(test_sample_budget);
	TEST_RUN(test_sampled_closed_diameter);
	TEST_RUN(test_disconnected);
	TEST_RUN(test_metis_closed_form);
	TEST_RUN(test_bisection_brute_force);
	TEST_RUN(test_flex_table3);
	TEST_RUN(test_dragonfly_table4);
	TEST_RUN(test_flex_metrics);
	TEST_RUN(test_ratios_and_moore);
	TEST_RUN(test_faults_ring);
	TEST_RUN(test_faults_one_router);
	TEST_RUN(test_faults_against_bfs);
	TEST_RUN(test_export);
	return test_done();
}
