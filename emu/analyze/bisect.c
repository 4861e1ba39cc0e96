/* Bisection width by METIS, the papers' formulas, bisection ratios and the
 * Moore bound.
 *
 * METIS (Karypis & Kumar; used for this purpose by FleX §III-B.3 and by
 * Slim Fly) is a heuristic: its cut is an upper bound on the true
 * bisection. We run it several times with different seeds, both recursive
 * bisection and k-way, and keep the smallest cut, as FleX Table 3 did.
 */
#include "analyze/analyze.h"

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

int analyze_bisect_metis(const struct analyze_graph *g, const struct analyze_bisect_opts *o,
			 struct analyze_bisect *out, struct nl_err *err)
{
	uint32_t n = g->n;
	uint32_t m = g->off[n];
	idx_t *xadj = NULL, *adjncy = NULL, *adjwgt = NULL, *vwgt = NULL, *part = NULL;
	uint64_t ep_total = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (n < 2)
		return nl_errf(err, NL_EINVAL, "bisection needs at least 2 routers, the topology has %u", n);
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
	for (uint32_t v = 0; v < n; v++)
		ep_total += g->n_endpoints[v];
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

/* --- formulas ------------------------------------------------------------------ */

/* Each formula reads a family view through its checked downcast
 * (topo/topo_<family>.h), so every family that publishes the view gets
 * it: the HyperX view is also published by full, flatfly and hypercube,
 * the HyperX special cases of seed 001 §3. */

/* FleX eq. 8 (seed 000 §III-B.3): 3 Nx Ny min(Nx, Ny) / 2, derived for
 * three layers (the cut along the shorter axis; exact when it is even,
 * Table 3). */
static bool formula_flex(const struct topo *t, const struct analyze_graph *g, double *v)
{
	(void)g;
	const struct topo_flex *f = topo_flex_of(t);
	if (!f || f->nz != 3)
		return false;
	*v = 3.0 * (double)f->nx * (double)f->ny * (double)(f->nx < f->ny ? f->nx : f->ny) / 2.0;
	return true;
}

/* HyperX eq. 1 (seed 001 §3): C_m = (P/4) K_m S_m, minimised over the
 * dimensions m; exact when that S_m is even. */
static bool formula_hyperx(const struct topo *t, const struct analyze_graph *g, double *v)
{
	(void)g;
	const struct topo_hyperx *h = topo_hyperx_of(t);
	double best = -1;
	if (!h)
		return false;
	for (int m = 0; m < h->L; m++) {
		double c = (double)t->n_routers / 4.0 * (double)h->K[m] * (double)h->S[m];
		if (best < 0 || c < best)
			best = c;
	}
	if (best < 0)
		return false;
	*v = best;
	return true;
}

/* Torus and mesh (grid view): cutting the dimension of largest even radix
 * k crosses 2 P / k ring links (torus) or P / k (mesh) (Dally & Towles,
 * "Principles and Practices of Interconnection Networks", §3.3); a 2-ary
 * torus dimension has its link doubled by the grid builder, so it also
 * crosses 2 P / k. */
static bool formula_grid(const struct topo *t, const struct analyze_graph *g, double *v)
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
	*v = (wrap ? 2.0 : 1.0) * (double)t->n_routers / (double)kmax;
	return true;
}

/* Equality (seed 002 §4.3): the bisection of a symmetric chordal ring is
 * the fewest links cut when splitting the ring of router ids into two
 * semicircles. Rotation by 2 is an automorphism, so the split points 0
 * and 1 cover every semicircle. */
static bool formula_equality(const struct topo *t, const struct analyze_graph *g, double *v)
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
	*v = best;
	return true;
}

struct formula_entry {
	bool (*eval)(const struct topo *t, const struct analyze_graph *g, double *v);
	const char *source;
};

/* The closed forms, first match wins. */
static const struct formula_entry formula_table[] = {
	{formula_flex, "FleX eq. 8 (seed 000 §III-B.3), three layers"},
	{formula_hyperx, "HyperX eq. 1 (seed 001 §3)"},
	{formula_grid, "2P/k torus, P/k mesh, k the largest even radix (Dally & Towles §3.3)"},
	{formula_equality, "Equality semicircle cut (seed 002 §4.3)"},
};

int analyze_bisection_formula(const struct topo *t, const struct analyze_graph *g,
			      struct analyze_formula *out, struct nl_err *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof formula_table / sizeof *formula_table && !out->has; i++) {
		out->has = formula_table[i].eval(t, g, &out->value);
		if (out->has)
			out->source = formula_table[i].source;
	}
	return 0;
}
