/* Cabinets on the floor: the packaging rule's own order, or simulated
 * annealing of the total inter-cabinet cable length (seed 003 §7.1).
 *
 * The floor is a grid of q = ceil(sqrt(c)) rows of r = ceil(c / q) cells
 * (seed 003 §7); a placement is a one-to-one map cabinet -> cell. The
 * annealing objective is sum over cabinet pairs of links(a, b) x
 * Manhattan(cell a, cell b) (terminal cables from node-only cabinets
 * included): overheads and intra-cabinet cables do not
 * depend on the placement. It is read from a sparse cabinet graph built
 * in sorted order, so it depends only on the cabinet-pair link counts.
 */
#include "layout/layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "topo/topo.h"

static void floor_grid(uint32_t c, uint32_t *rows, uint32_t *cols)
{
	uint32_t q = (uint32_t)ceil(sqrt((double)c));
	while ((uint64_t)q * q < c)
		q++;
	while (q > 1 && (uint64_t)(q - 1) * (q - 1) >= c)
		q--;
	*rows = q ? q : 1;
	*cols = (c + *rows - 1) / *rows;
	if (*cols == 0)
		*cols = 1;
}

int layout_place_rule(struct layout *lo, struct nl_err *err)
{
	free(lo->cell);
	lo->cell = malloc((size_t)(lo->n_cabinets ? lo->n_cabinets : 1) * sizeof *lo->cell);
	if (!lo->cell)
		return nl_errf(err, NL_ENOMEM, "layout: out of memory");
	lo->is_annealed = false;
	if (lo->rule_cell) {
		lo->rows = lo->rule_rows;
		lo->cols = lo->rule_cols;
		memcpy(lo->cell, lo->rule_cell, (size_t)lo->n_cabinets * sizeof *lo->cell);
		return 0;
	}
	floor_grid(lo->n_cabinets, &lo->rows, &lo->cols);
	for (uint32_t c = 0; c < lo->n_cabinets; c++)
		lo->cell[c] = c;
	return 0;
}

/* Sparse symmetric cabinet graph: nb[off[c] .. off[c+1]-1] with weights w. */
struct floor_graph {
	uint32_t *off, *nb;
	uint64_t *w;
};

static int floor_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The cabinets a cable from port g joins: its router's and the far end's
 * (a router's, or a node-only cabinet's for a terminal port; layout.h
 * ep_cabinet). False for an unused port or a terminal in its router's
 * cabinet. */
static bool floor_port_cabinets(const struct layout *lo, uint32_t g, uint32_t *a, uint32_t *b)
{
	const struct topo *t = lo->t;
	uint32_t p = t->peer[g];
	if (p == TOPO_NONE || ((p & TOPO_EP_BIT) && !lo->ep_cabinet))
		return false;
	*a = lo->cabinet[t->port_router[g]];
	*b = (p & TOPO_EP_BIT) ? lo->ep_cabinet[p & ~TOPO_EP_BIT] : lo->cabinet[t->port_router[p]];
	return true;
}

static int floor_graph_build(const struct layout *lo, struct floor_graph *fg, struct nl_err *err)
{
	const struct topo *t = lo->t;
	uint64_t n = 0, *keys;
	uint32_t C = lo->n_cabinets, a, b;

	/* A network link appears at both its ports; a terminal cable at one,
	 * so it adds both directions. */
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (floor_port_cabinets(lo, g, &a, &b) && a != b)
			n += topo_port_is_network(t, g) ? 1 : 2;
	keys = malloc((size_t)(n ? n : 1) * sizeof *keys);
	fg->off = calloc((size_t)C + 1, sizeof *fg->off);
	fg->nb = malloc((size_t)(n ? n : 1) * sizeof *fg->nb);
	fg->w = malloc((size_t)(n ? n : 1) * sizeof *fg->w);
	if (!keys || !fg->off || !fg->nb || !fg->w) {
		free(keys);
		free(fg->off);
		free(fg->nb);
		free(fg->w);
		return nl_errf(err, NL_ENOMEM, "layout: out of memory");
	}
	/* Each link appears once from each end: directed keys (a, b). */
	n = 0;
	for (uint32_t g = 0; g < t->n_ports; g++) {
		if (!floor_port_cabinets(lo, g, &a, &b) || a == b)
			continue;
		keys[n++] = ((uint64_t)a << 32) | b;
		if (!topo_port_is_network(t, g))
			keys[n++] = ((uint64_t)b << 32) | a;
	}
	qsort(keys, n, sizeof *keys, floor_u64_cmp);
	uint32_t m = 0;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		while (j < n && keys[j] == keys[i])
			j++;
		uint32_t a = (uint32_t)(keys[i] >> 32);
		fg->nb[m] = (uint32_t)keys[i];
		fg->w[m] = j - i;
		fg->off[a + 1]++;
		m++;
		i = j;
	}
	for (uint32_t c = 0; c < C; c++)
		fg->off[c + 1] += fg->off[c];
	free(keys);
	return 0;
}

static void floor_graph_release(struct floor_graph *fg)
{
	free(fg->off);
	free(fg->nb);
	free(fg->w);
}

/* A cabinet's cell as column and row. */
struct floor_xy {
	uint32_t col, row;
};

struct floor_sa {
	const struct floor_graph *fg;
	uint32_t cols;
	double wx, wy;   /* metres per column / row */
	uint32_t *pos;   /* [C] cell of each cabinet */
	/* [C] pos as column and row, kept with pos: the delta loop runs over
	 * every neighbour cabinet of every move (512 on dragonfly:a=32,p=4)
	 * and a division per neighbour was most of its time. */
	struct floor_xy *xy;
	uint32_t *occ;   /* [cells] cabinet or LAYOUT_NONE */
};

/* The objective in exact integers: link-weighted column steps and row
 * steps; metres = wx * cols + wy * rows. */
struct floor_cost {
	int64_t cols, rows;
};

static double floor_metres(const struct floor_sa *sa, struct floor_cost c)
{
	return sa->wx * (double)c.cols + sa->wy * (double)c.rows;
}

static uint32_t floor_absdiff(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

/* Change of the objective when cabinet a moves to cell `to`, ignoring its
 * links to cabinet `skip` (which swaps with it and keeps that distance). */
static void floor_move_delta(const struct floor_sa *sa, uint32_t a, uint32_t to, uint32_t skip, struct floor_cost *d)
{
	struct floor_xy from = sa->xy[a], dst = {to % sa->cols, to / sa->cols};
	for (uint32_t i = sa->fg->off[a]; i < sa->fg->off[a + 1]; i++) {
		uint32_t b = sa->fg->nb[i];
		if (b == skip)
			continue;
		struct floor_xy pb = sa->xy[b];
		int64_t w = (int64_t)sa->fg->w[i];
		d->cols += w * ((int64_t)floor_absdiff(dst.col, pb.col) - (int64_t)floor_absdiff(from.col, pb.col));
		d->rows += w * ((int64_t)floor_absdiff(dst.row, pb.row) - (int64_t)floor_absdiff(from.row, pb.row));
	}
}

static void floor_set_pos(struct floor_sa *sa, uint32_t a, uint32_t cell)
{
	sa->pos[a] = cell;
	sa->xy[a] = (struct floor_xy){cell % sa->cols, cell / sa->cols};
}

static struct floor_cost floor_swap_delta(const struct floor_sa *sa, uint32_t u, uint32_t v)
{
	uint32_t a = sa->occ[u], b = sa->occ[v];
	struct floor_cost d = {0, 0};
	if (a != LAYOUT_NONE)
		floor_move_delta(sa, a, v, b, &d);
	if (b != LAYOUT_NONE)
		floor_move_delta(sa, b, u, a, &d);
	return d;
}

static void floor_swap(struct floor_sa *sa, uint32_t u, uint32_t v)
{
	uint32_t a = sa->occ[u], b = sa->occ[v];
	sa->occ[u] = b;
	sa->occ[v] = a;
	if (a != LAYOUT_NONE)
		floor_set_pos(sa, a, v);
	if (b != LAYOUT_NONE)
		floor_set_pos(sa, b, u);
}

static struct floor_cost floor_objective(const struct floor_sa *sa, uint32_t C)
{
	struct floor_cost s = {0, 0};
	uint32_t n = sa->cols;
	for (uint32_t a = 0; a < C; a++)
		for (uint32_t i = sa->fg->off[a]; i < sa->fg->off[a + 1]; i++) {
			uint32_t pa = sa->pos[a], pb = sa->pos[sa->fg->nb[i]];
			s.cols += (int64_t)sa->fg->w[i] * floor_absdiff(pa % n, pb % n);
			s.rows += (int64_t)sa->fg->w[i] * floor_absdiff(pa / n, pb / n);
		}
	s.cols /= 2;
	s.rows /= 2;
	return s;
}

/* One annealing run from the row-major start; leaves the best placement
 * seen in best[] and returns its length in metres (exact: integer step
 * counts). Temperature falls geometrically from t0 (the mean uphill move
 * of a random sample) to t0 / 10^4 (the classic schedule of Connolly's QAP
 * annealing, seed 003 ref. [33], in a simple form). The best placement is
 * copied only when the run leaves a new best for an uphill move (or ends),
 * so a descent costs one copy, not one per step. */
/* Where a long annealing is (10^8 moves x 5 trials take minutes): trial
 * tr of n, move it of iters; checked every 2^16 moves. */
static void floor_progress(struct progress *pg, uint32_t tr, uint32_t n, uint64_t it, uint64_t iters)
{
	char detail[96];
	snprintf(detail, sizeof detail, "trial %u/%u, move %llu/%llu", tr + 1, n, (unsigned long long)it,
		 (unsigned long long)iters);
	progress_update(pg, ((double)tr + (double)it / (double)iters) / (double)n, detail);
}

static double floor_anneal_one(struct floor_sa *sa, uint32_t C, uint32_t cells, uint64_t iters, struct rng *rng,
			       uint32_t *best, struct progress *pg, uint32_t tr, uint32_t trials)
{
	for (uint32_t u = 0; u < cells; u++)
		sa->occ[u] = u < C ? u : LAYOUT_NONE;
	for (uint32_t a = 0; a < C; a++)
		floor_set_pos(sa, a, a);
	struct floor_cost cur = floor_objective(sa, C);
	double cur_m = floor_metres(sa, cur), best_m = cur_m;
	bool at_best = true; /* the current state is the best seen, not yet copied */
	memcpy(best, sa->pos, (size_t)C * sizeof *best);
	if (cells < 2 || iters == 0)
		return best_m;

	double up = 0;
	uint32_t n_up = 0;
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t u = (uint32_t)rng_below(rng, cells), v = (uint32_t)rng_below(rng, cells);
		double d = u == v ? 0 : floor_metres(sa, floor_swap_delta(sa, u, v));
		if (d > 0) {
			up += d;
			n_up++;
		}
	}
	double t0 = n_up ? up / n_up : 1.0, temp = t0;
	double cool = pow(1e-4, 1.0 / (double)iters);
	for (uint64_t it = 0; it < iters; it++, temp *= cool) {
		if (pg && (it & 0xffff) == 0)
			floor_progress(pg, tr, trials, it, iters);
		uint32_t u = (uint32_t)rng_below(rng, cells), v = (uint32_t)rng_below(rng, cells);
		if (u == v || (sa->occ[u] == LAYOUT_NONE && sa->occ[v] == LAYOUT_NONE))
			continue;
		struct floor_cost dc = floor_swap_delta(sa, u, v);
		double d = floor_metres(sa, dc);
		if (d <= 0 || rng_uniform(rng) < exp(-d / temp)) {
			if (d > 0 && at_best) {
				memcpy(best, sa->pos, (size_t)C * sizeof *best);
				at_best = false;
			}
			floor_swap(sa, u, v);
			cur.cols += dc.cols;
			cur.rows += dc.rows;
			cur_m = floor_metres(sa, cur);
			if (cur_m < best_m) {
				best_m = cur_m;
				at_best = true;
			}
		}
	}
	if (at_best)
		memcpy(best, sa->pos, (size_t)C * sizeof *best);
	return best_m;
}

int layout_place_anneal(struct layout *lo, const struct layout_model *m, uint64_t iterations, uint32_t trials,
			uint64_t seed, struct nl_err *err)
{
	struct floor_graph fg = {0};
	struct floor_sa sa = {0};
	uint32_t C = lo->n_cabinets, rows, cols, *best = NULL, *pos_best = NULL;
	int rc;

	if (trials == 0)
		return nl_errf(err, NL_ECONFIG, "--trials: value 0: expected at least 1 annealing trial");
	NL_CHECK(floor_graph_build(lo, &fg, err));
	floor_grid(C, &rows, &cols);
	uint32_t cells = rows * cols;
	sa.fg = &fg;
	sa.cols = cols;
	sa.wx = m->cab_width_m;
	sa.wy = m->cab_depth_m;
	sa.pos = malloc((size_t)(C ? C : 1) * sizeof *sa.pos);
	sa.xy = malloc((size_t)(C ? C : 1) * sizeof *sa.xy);
	sa.occ = malloc((size_t)cells * sizeof *sa.occ);
	best = malloc((size_t)(C ? C : 1) * sizeof *best);
	pos_best = malloc((size_t)(C ? C : 1) * sizeof *pos_best);
	if (!sa.pos || !sa.xy || !sa.occ || !best || !pos_best) {
		rc = nl_errf(err, NL_ENOMEM, "layout: out of memory");
		goto out;
	}
	double best_obj = INFINITY;
	uint32_t best_trial = 0;
	for (uint32_t tr = 0; tr < trials; tr++) {
		struct rng rng;
		rng_init(&rng, seed, RNG_CLASS_PLACEMENT, tr);
		double obj = floor_anneal_one(&sa, C, cells, iterations, &rng, best, lo->progress, tr, trials);
		if (obj < best_obj) {
			best_obj = obj;
			best_trial = tr;
			memcpy(pos_best, best, (size_t)C * sizeof *pos_best);
		}
	}
	free(lo->cell);
	lo->cell = pos_best;
	pos_best = NULL;
	lo->rows = rows;
	lo->cols = cols;
	lo->is_annealed = true;
	lo->iterations = iterations;
	lo->trials = trials;
	lo->seed = seed;
	lo->best_trial = best_trial;
	rc = 0;
out:
	free(sa.pos);
	free(sa.xy);
	free(sa.occ);
	free(best);
	free(pos_best);
	floor_graph_release(&fg);
	return rc;
}
