/* Bisection width by METIS, the papers' formulas, bisection ratios and the
 * Moore bound.
 *
 * METIS (Karypis & Kumar; used for this purpose by FleX §III-B.3 and by
 * Slim Fly) is a heuristic: its cut is an upper bound on the true
 * bisection. We run it several times with different seeds, both recursive
 * bisection and k-way, and keep the smallest cut, as FleX Table 3 did.
 */
#include "analyze/analyze.h"

#include <math.h>
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "topo/topo.h"
#include "topo/topo_equality.h"
#include "topo/topo_flex.h"
#include "topo/topo_hyperx.h"

#define BISECT_RNG_SEEDS 0x4d455449ull /* stream id of the METIS seeds */
#define BISECT_RUNS_DEFAULT 8

/* Each run partitions twice (recursive and k-way), and METIS's time
 * grows with the routers and the router pairs it is given. A release
 * build measured, per run: dln:n=1000000,d=8 (10^6 routers, ~4 x 10^6
 * pairs) about 14 s, 3.6 x 10^5 of them a second; torus:k=1024x1024
 * about 0.7 s, 4 x 10^6 a second: a random graph's neighbours lie far
 * apart. Taken at the random graph's rate: --metis-runs 1000 on the dln
 * was 4 hours, the 8 default runs of dln:n=16777216,d=8 (extrapolated) half an hour. */
int analyze_bisect_metis_check(const struct analyze_graph *g, const struct analyze_bisect_opts *o,
			       struct nl_err *err)
{
	static const struct analyze_repeats metis = {"--bisection", "METIS run", "run", "--metis-runs", "router pairs",
						      ANALYZE_METIS_STEPS_PER_S};
	if (g->n < 2)
		return 0;
	return analyze_repeats_check(&metis, o && o->runs ? o->runs : BISECT_RUNS_DEFAULT, g->n, g->links, err);
}

int analyze_bisect_metis(const struct analyze_graph *g, const struct analyze_bisect_opts *o,
			 struct analyze_bisect *out, struct nl_err *err)
{
	uint32_t n = g->n;
	uint32_t m = g->off[n];
	idx_t *xadj = NULL, *adjncy = NULL, *adjwgt = NULL, *vwgt = NULL, *part = NULL;
	uint64_t ep_total = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	for (uint32_t v = 0; v < n; v++)
		ep_total += g->n_endpoints[v];
	/* One router: no router graph to cut, but the system still has a
	 * bisection (seed 002 §4.3): its endpoints in two halves, the switch
	 * with one of them, the other half's cables cut; a 12-port switch
	 * cuts 6 of its 12 cables, b_r = 1/2. */
	if (n == 1 && ep_total >= 2) {
		out->cut = ep_total / 2;
		out->part_weight[0] = ep_total - ep_total / 2;
		out->part_weight[1] = ep_total / 2;
		out->part_routers[0] = 1;
		out->is_endpoint_cut = true;
		out->method = "endpoints";
		return 0;
	}
	if (n < 2)
		return nl_errf(err, NL_EINVAL,
			       "bisection needs at least 2 routers, or one with 2 endpoints; the topology has %u "
			       "router%s and %llu endpoint%s",
			       n, n == 1 ? "" : "s", (unsigned long long)ep_total, ep_total == 1 ? "" : "s");
	NL_CHECK(analyze_bisect_metis_check(g, o, err));
	if (n > (uint32_t)INT32_MAX || m > (uint32_t)INT32_MAX)
		return nl_errf(err, NL_ERANGE, "graph too large for METIS (%u routers, %u adjacency entries)", n, m);
	xadj = malloc(((size_t)n + 1) * sizeof *xadj);
	adjncy = malloc((size_t)(m ? m : 1) * sizeof *adjncy);
	adjwgt = malloc((size_t)(m ? m : 1) * sizeof *adjwgt);
	vwgt = malloc((size_t)n * sizeof *vwgt);
	part = malloc((size_t)n * sizeof *part);
	if (!xadj || !adjncy || !adjwgt || !vwgt || !part) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory for METIS");
		goto done;
	}
	for (uint32_t v = 0; v <= n; v++)
		xadj[v] = (idx_t)g->off[v];
	for (uint32_t i = 0; i < m; i++) {
		adjncy[i] = (idx_t)g->adj[i];
		adjwgt[i] = (idx_t)g->mult[i];
	}
	/* Terminal balance: a bisection splits the endpoints in half (routers
	 * without endpoints are free); with no endpoints, split the routers. */
	for (uint32_t v = 0; v < n; v++)
		vwgt[v] = ep_total ? (idx_t)g->n_endpoints[v] : 1;

	/* Balanced: the halves differ by at most one router's weight (an
	 * exact split may not exist). METIS's ufactor (1/1000ths over half
	 * the total) is set just loose enough for that, and every result is
	 * checked. */
	idx_t max_w = 0;
	uint64_t total_w = 0;
	for (uint32_t v = 0; v < n; v++) {
		if (vwgt[v] > max_w)
			max_w = vwgt[v];
		total_w += (uint64_t)vwgt[v];
	}
	idx_t ufactor = (idx_t)((1000 * (uint64_t)max_w + total_w - 1) / (total_w ? total_w : 1));
	if (ufactor < 1)
		ufactor = 1;
	uint32_t runs = o && o->runs ? o->runs : BISECT_RUNS_DEFAULT;
	struct rng r;
	rng_init(&r, o ? o->seed : 0, RNG_CLASS_ANALYSIS, BISECT_RNG_SEEDS);
	uint64_t best = UINT64_MAX;
	struct progress pg;
	progress_init(&pg, "METIS");
	for (uint32_t run = 0; run < runs; run++) {
		char detail[48];
		snprintf(detail, sizeof detail, "run %u of %u", run + 1, runs);
		progress_update(&pg, (double)run / runs, detail);
		idx_t seed = (idx_t)(rng_u64(&r) & 0x3fffffff);
		for (int kind = 0; kind < 2; kind++) {
			idx_t nvtxs = (idx_t)n, ncon = 1, nparts = 2, objval = 0;
			idx_t options[METIS_NOPTIONS];
			METIS_SetDefaultOptions(options);
			options[METIS_OPTION_SEED] = seed;
			options[METIS_OPTION_NUMBERING] = 0;
			options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
			options[METIS_OPTION_UFACTOR] = ufactor;
			int mr = kind == 0 ? METIS_PartGraphRecursive(&nvtxs, &ncon, xadj, adjncy, vwgt, NULL, adjwgt,
								      &nparts, NULL, NULL, options, &objval, part)
					   : METIS_PartGraphKway(&nvtxs, &ncon, xadj, adjncy, vwgt, NULL, adjwgt,
								 &nparts, NULL, NULL, options, &objval, part);
			if (mr != METIS_OK) {
				rc = nl_errf(err, mr == METIS_ERROR_MEMORY ? NL_ENOMEM : NL_EINVAL,
					     "METIS failed (%s, code %d) on a graph of %u routers",
					     kind ? "k-way" : "recursive", mr, n);
				progress_done(&pg);
				goto done;
			}
			/* Recount rather than trust objval: cut = physical links
			 * whose ends lie in different parts. */
			uint64_t cut = 0, pw[2] = {0, 0};
			uint32_t pr[2] = {0, 0};
			for (uint32_t v = 0; v < n; v++) {
				int side = part[v] != 0;
				pw[side] += ep_total ? g->n_endpoints[v] : 1;
				pr[side]++;
				for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++)
					if (g->adj[i] > v && part[g->adj[i]] != part[v])
						cut += g->mult[i];
			}
			if (pr[0] == 0 || pr[1] == 0)
				continue; /* not a bisection */
			if ((pw[0] > pw[1] ? pw[0] - pw[1] : pw[1] - pw[0]) > (uint64_t)max_w) {
				out->unbalanced++;
				continue;
			}
			if (cut < best) {
				best = cut;
				out->cut = cut;
				out->part_weight[0] = pw[0];
				out->part_weight[1] = pw[1];
				out->part_routers[0] = pr[0];
				out->part_routers[1] = pr[1];
				out->method = kind ? "kway" : "recursive";
			}
		}
	}
	progress_done(&pg);
	out->runs = runs;
	if (best == UINT64_MAX)
		rc = nl_errf(err, NL_EINVAL, "METIS found no balanced bisection of %u routers in %u runs", n, runs);
done:
	free(xadj);
	free(adjncy);
	free(adjwgt);
	free(vwgt);
	free(part);
	return rc;
}

double analyze_ratio_b(const struct analyze_graph *g, double bisection)
{
	uint64_t ep = 0;
	for (uint32_t v = 0; v < g->n; v++)
		ep += g->n_endpoints[v];
	double phi = (double)g->phys_links + (double)ep;
	return phi > 0 ? bisection / phi : 0;
}

double analyze_ratio_B(const struct analyze_graph *g, double bisection)
{
	return g->phys_links ? bisection / (double)g->phys_links : 0;
}

double analyze_moore_bound(uint32_t degree, uint32_t diameter)
{
	/* 1 + d + d(d-1) + ... + d(d-1)^(D-1). */
	double total = 1, layer = degree;
	for (uint32_t i = 0; i < diameter; i++) {
		total += layer;
		layer *= (double)degree - 1;
	}
	return total;
}

double analyze_moore_bound_log10(uint32_t degree, uint32_t diameter)
{
	double m = analyze_moore_bound(degree, diameter);
	if (isfinite(m))
		return log10(m);
	/* Past a double the degree is at least 3 (degree 2 gives 1 + 2D),
	 * and the sum is d ((d-1)^D - 1) / (d-2) + 1, whose -1 and +1 lie
	 * some 300 digits below a double's precision. */
	return log10((double)degree) + (double)diameter * log10((double)degree - 1) - log10((double)degree - 2);
}

/* --- formulas ------------------------------------------------------------------ */

/* Each formula reads a family view through its checked downcast
 * (topo/topo_<family>.h), so every family that publishes the view gets
 * it: the HyperX view is also published by full, flatfly and hypercube,
 * the HyperX special cases of seed 001 §3. */

/* FleX eq. 8 (seed 000 §III-B.3): 3 Nx Ny min(Nx, Ny) / 2, derived for
 * three layers by cutting the shorter axis in half, so only a link count
 * (and the bisection) when that axis is even: for 3x3 it gives 40.5 where
 * brute force over the balanced splits finds 44, for 15x20 6,750 where
 * METIS finds 7,280 (Table 3's partitioner 9,000). Nx = Ny = 2 is the one
 * even case found to be beaten: eq. 8 gives 12, brute force 8. Brute force
 * agrees with eq. 8 for 2x3, 2x4, 2x5; METIS for 4x4, 4x5, 4x6, 6x6, 4x8,
 * 2x6, 2x8, 6x8 and Table 3's even rows. Otherwise no formula, and the
 * ratios come from METIS as for other families. */
static bool formula_flex(const struct topo *t, const struct analyze_graph *g, struct analyze_formula *out)
{
	(void)g;
	const struct topo_flex *f = topo_flex_of(t);
	if (!f || f->nz != 3)
		return false;
	uint32_t shorter = f->nx < f->ny ? f->nx : f->ny;
	if (shorter % 2 || (f->nx == 2 && f->ny == 2))
		return false;
	out->value = 3.0 * (double)f->nx * (double)f->ny * (double)shorter / 2.0;
	out->source = "FleX eq. 8 (seed 000 §III-B.3), three layers, even shorter axis";
	return true;
}

/* Links (weighted by trunking) inside the first M routers, in
 * lexicographic order, of the HyperX whose dimensions are S[ord[i..L-1]]
 * (ord[i] most significant); w = routers of that sub-HyperX. M = a w' + r
 * with w' = w / S[ord[i]]: a full sub-HyperX blocks of the next dimensions,
 * a(a-1)/2 w' K links of dimension ord[i] among them, and r routers of a
 * partial block, each joined to its a aligned routers. */
static uint64_t hx_lex_inner(const struct topo_hyperx *h, const int *ord, int i, uint64_t w, uint64_t M)
{
	if (i == h->L || M == 0)
		return 0;
	int d = ord[i];
	uint64_t wn = w / h->S[d], a = M / wn, r = M % wn, full = 0;
	for (int j = i + 1; j < h->L; j++)
		full += (uint64_t)h->K[ord[j]] * (h->S[ord[j]] - 1);
	full = full * wn / 2; /* links of one sub-HyperX */
	return a * full + a * (a - 1) / 2 * wn * h->K[d] + a * r * h->K[d] + hx_lex_inner(h, ord, i + 1, wn, r);
}

/* Links cut by the lexicographic split of the routers, floor(P/2) | ceil(P/2),
 * with dimensions ordered by ord (ord[0] most significant). */
static uint64_t hx_lex_cut(const struct topo_hyperx *h, const int *ord, uint64_t P)
{
	uint64_t deg = 0, M = P / 2;
	for (int d = 0; d < h->L; d++)
		deg += (uint64_t)h->K[d] * (h->S[d] - 1);
	return M * deg - 2 * hx_lex_inner(h, ord, 0, P, M);
}

/* HyperX eq. 1 (seed 001 §3): C_m = (P/4) K_m S_m minimised over the
 * dimensions m. It is a lower bound for every S: route each router pair
 * once in dimension order; a link of dimension m then carries P / (S_m K_m)
 * pairs per physical link, and a split of P/2 | P/2 separates P^2/4 pairs.
 * It is a balanced cut (so the bisection) only when the minimising S_m is
 * even: for S = 3x4 it gives 9, where every balanced split cuts at least
 * 12, and for full:n=7 12.25. Otherwise, with equal trunking K, Lindsey's
 * theorem (J. H. Lindsey, "Assignment of numbers to vertices", Amer. Math.
 * Monthly 71, 1964) gives the exact value: the first M routers in
 * lexicographic order, smaller dimensions most significant, induce the
 * most links any M routers can, so on this regular graph their split
 * cuts the fewest. With unequal K and an odd minimising S_m: no formula.
 * Balanced by routers = balanced by terminals (T per switch). */
static bool formula_hyperx(const struct topo *t, const struct analyze_graph *g, struct analyze_formula *out)
{
	(void)g;
	const struct topo_hyperx *h = topo_hyperx_of(t);
	if (!h || h->L < 1)
		return false;
	bool even_min = false, same_k = true;
	uint64_t minks = UINT64_MAX;
	for (int m = 0; m < h->L; m++) {
		uint64_t ks = (uint64_t)h->K[m] * h->S[m];
		if (ks < minks) {
			minks = ks;
			even_min = false;
		}
		if (ks == minks && h->S[m] % 2 == 0)
			even_min = true;
		same_k = same_k && h->K[m] == h->K[0];
	}
	if (even_min) {
		out->value = (double)t->n_routers / 4.0 * (double)minks;
		out->source = "HyperX eq. 1 (seed 001 §3)";
		return true;
	}
	if (!same_k)
		return false;
	/* Both sort orders of the dimensions; every value is a balanced cut
	 * and the ascending one is the minimum (Lindsey). */
	int ord[TOPO_MAX_DIMS];
	for (int m = 0; m < h->L; m++)
		ord[m] = m;
	for (int i = 1; i < h->L; i++)
		for (int j = i; j > 0 && h->S[ord[j - 1]] > h->S[ord[j]]; j--) {
			int x = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	uint64_t best = hx_lex_cut(h, ord, t->n_routers);
	for (int i = 0; i < h->L / 2; i++) {
		int x = ord[i];
		ord[i] = ord[h->L - 1 - i];
		ord[h->L - 1 - i] = x;
	}
	uint64_t desc = hx_lex_cut(h, ord, t->n_routers);
	out->value = (double)(desc < best ? desc : best);
	out->source = "HyperX lexicographic cut (Lindsey's theorem; seed 001 eq. 1 needs an even S)";
	return true;
}

/* Torus and mesh (grid view): cutting the dimension of largest radix k,
 * when k is even, crosses 2 P / k ring links (torus) or P / k (mesh)
 * (Dally & Towles, "Principles and Practices of Interconnection Networks",
 * §3.3); a 2-ary torus dimension has its link doubled by the grid
 * builder, so it also crosses 2 P / k. When the largest radix is odd there
 * is no formula: a smaller even radix does not give the bisection (torus
 * 4x7: 2P/4 = 14, but the split x2 <= 2 plus two adjacent routers of
 * column x2 = 3 is balanced and cuts 10). */
static bool formula_grid(const struct topo *t, const struct analyze_graph *g, struct analyze_formula *out)
{
	(void)g;
	const struct topo_grid *gr = t->grid;
	uint32_t kmax = 0;
	bool wrap = false;
	if (!gr)
		return false;
	for (int d = 0; d < gr->n_dims; d++)
		if (gr->k[d] > kmax) {
			kmax = gr->k[d];
			wrap = gr->wrap[d];
		}
	if (kmax % 2)
		return false;
	out->value = (wrap ? 2.0 : 1.0) * (double)t->n_routers / (double)kmax;
	out->source = "2P/k torus, P/k mesh, k the largest radix, when even (Dally & Towles §3.3)";
	return true;
}

/* Equality (seed 002 §4.3): the fewest links cut when splitting the ring
 * of router ids into two semicircles. Rotation by 2 is an automorphism, so
 * the split points 0 and 1 cover every semicircle. This is a balanced cut,
 * so an upper bound on the bisection, not the bisection itself:
 * N14K6[-1,1,3,9](4) has semicircle cut 18, and brute force over its 3,432
 * balanced splits finds 14. */
static bool formula_equality(const struct topo *t, const struct analyze_graph *g, struct analyze_formula *out)
{
	uint32_t n = t->n_routers;
	double best = -1;
	if (!topo_equality_of(t) || !g || n < 4 || n % 2)
		return false;
	for (uint32_t s = 0; s < 2; s++) {
		uint64_t cut = 0;
		for (uint32_t a = 0; a < n; a++) {
			bool ia = (a + n - s) % n < n / 2;
			for (uint32_t i = g->off[a]; i < g->off[a + 1]; i++) {
				uint32_t b = g->adj[i];
				if (b > a && ia != ((b + n - s) % n < n / 2))
					cut += g->mult[i];
			}
		}
		if (best < 0 || (double)cut < best)
			best = (double)cut;
	}
	out->value = best;
	out->is_upper_bound = true;
	out->source = "the semicircle cut (an upper bound, seed 002 §4.3)";
	return true;
}

/* The closed forms, first match wins; each sets value, source and
 * is_upper_bound. */
static bool (*const formula_table[])(const struct topo *t, const struct analyze_graph *g,
				      struct analyze_formula *out) = {
	formula_flex,
	formula_hyperx,
	formula_grid,
	formula_equality,
};

int analyze_bisection_formula(const struct topo *t, const struct analyze_graph *g,
			      struct analyze_formula *out, struct nl_err *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof formula_table / sizeof *formula_table && !out->has; i++)
		out->has = formula_table[i](t, g, out);
	return 0;
}
