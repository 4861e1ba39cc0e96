/* Equality design by genetic algorithm (seed 002 §3.3).
 *
 * An Equality network has N (even) routers r_0..r_{N-1}; for every chord
 * s, an even router i links to i + s and an odd router to i - s (§3.1).
 * An odd chord gives each router one link, an even chord two (i +- s),
 * except the diameter chord N/2, which gives one (eq. 1). The ring is the
 * odd chords -1 and 1; the other chords come from C = {2 .. N-3} without
 * the even numbers above N/2.
 *
 * The GA (§3.3.2) evolves the chord set under the radix budget K,
 * minimising a x d (average distance times diameter): a genome is a set of
 * "items", one-port items (odd chords 3..N-3, and N/2 when it is even) and
 * two-port items (even chords below N/2), whose costs add up to K - 2.
 * Tournament selection, union crossover, replace-one mutation, two elites.
 * Every draw comes from an RNG_CLASS_DESIGN stream keyed by the
 * generation, so a seed fixes the result.
 */
#include "analyze/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"

#define EQ_RNG_BASE (0x45514741ull << 32) /* "EQGA" << 32 | generation */

/* Work allowed: each of population x (generations + 1) evaluations is a
 * BFS over N routers of radix K, N x K steps. The rate falls as the BFS's
 * dist and queue arrays (8N bytes) leave the caches, so it is taken by
 * size, on the conservative side of what a release build measured on a
 * shared 2-core AMD EPYC (default population and generations unless said):
 * 3.6-5.5 x 10^8 steps a second up to 64,000 routers (the 8,000-router
 * radix-64 design of issue 16, 1.25 x 10^9 steps, 3.7 s loaded), 2.1-3.5
 * x 10^8 at 250,000 to 1,000,000 (1,000,000 radix 3, 7.3 x 10^9 steps,
 * 34.5 s), 1.0-2.3 x 10^8 at 4 and 16.8 million. A request past six
 * minutes at its size's rate is refused before it starts instead of
 * running for hours or days (--routers 16 --radix 4 --population 100000
 * --generations 1000000 is 6.4 x 10^12 steps). */
#define EQ_MAX_S ANALYZE_MAX_WORK_S

static double eq_steps_per_s(uint32_t N)
{
	if (N <= 65536)
		return 4e8;
	if (N <= 1048576)
		return 2e8;
	return 1e8;
}

/* --- evaluation ------------------------------------------------------------------ */

struct eq_eval {
	uint32_t N;
	uint32_t *dist;  /* [N] */
	uint32_t *queue; /* [N] */
	uint32_t *odd;   /* chord residues, one link each */
	uint32_t *even;  /* chord residues, i +- s */
	uint32_t n_odd, n_even;
};

/* BFS from router 0 over the implicit graph; the network is
 * vertex-transitive (i -> i+2 and i -> 1-i are automorphisms, Remark 2),
 * so router 0's distances are everyone's. */
static bool eq_bfs(struct eq_eval *e, uint32_t *diameter, double *aspl)
{
	uint32_t N = e->N, head = 0, tail = 0;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < N; i++)
		e->dist[i] = UINT32_MAX;
	e->dist[0] = 0;
	e->queue[tail++] = 0;
	while (head < tail) {
		uint32_t v = e->queue[head++], dv = e->dist[v] + 1;
		bool even = v % 2 == 0;
		for (uint32_t i = 0; i < e->n_odd; i++) {
			uint32_t s = e->odd[i];
			uint32_t u = even ? (v + s) % N : (v + N - s) % N;
			if (e->dist[u] == UINT32_MAX) {
				e->dist[u] = dv;
				sum += dv;
				e->queue[tail++] = u;
			}
		}
		for (uint32_t i = 0; i < e->n_even; i++) {
			uint32_t s = e->even[i];
			uint32_t u1 = (v + s) % N, u2 = (v + N - s) % N;
			if (e->dist[u1] == UINT32_MAX) {
				e->dist[u1] = dv;
				sum += dv;
				e->queue[tail++] = u1;
			}
			if (e->dist[u2] == UINT32_MAX) {
				e->dist[u2] = dv;
				sum += dv;
				e->queue[tail++] = u2;
			}
		}
	}
	if (tail != N)
		return false;
	*diameter = e->dist[e->queue[N - 1]];
	*aspl = (double)sum / (double)(N - 1);
	return true;
}

int analyze_equality_eval(uint32_t N, const int64_t *sa, uint32_t n_sa, const int64_t *sb,
			  uint32_t n_sb, uint32_t *diameter, double *aspl, struct nl_err *err)
{
	struct eq_eval e = {.N = N};
	int rc = 0;
	if (N < 4 || N % 2)
		return nl_errf(err, NL_EINVAL, "equality: N = %u: expected an even number of routers >= 4", N);
	e.dist = malloc((size_t)N * sizeof *e.dist);
	e.queue = malloc((size_t)N * sizeof *e.queue);
	e.odd = malloc(((size_t)n_sa + 1) * sizeof *e.odd);
	e.even = malloc(((size_t)n_sb + 1) * sizeof *e.even);
	if (!e.dist || !e.queue || !e.odd || !e.even) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto done;
	}
	for (uint32_t i = 0; i < n_sa; i++) {
		int64_t s = ((sa[i] % (int64_t)N) + (int64_t)N) % (int64_t)N;
		if (s % 2 == 0) {
			rc = nl_errf(err, NL_EINVAL, "equality: S_A member %lld is not odd", (long long)sa[i]);
			goto done;
		}
		e.odd[e.n_odd++] = (uint32_t)s;
	}
	for (uint32_t i = 0; i < n_sb; i++) {
		int64_t s = ((sb[i] % (int64_t)N) + (int64_t)N) % (int64_t)N;
		if (s % 2 || s == 0) {
			rc = nl_errf(err, NL_EINVAL, "equality: S_B member %lld is not a nonzero even chord",
				     (long long)sb[i]);
			goto done;
		}
		e.even[e.n_even++] = (uint32_t)s;
	}
	if (!eq_bfs(&e, diameter, aspl))
		rc = nl_errf(err, NL_EINVAL, "equality: the network of %u routers is disconnected", N);
done:
	free(e.dist);
	free(e.queue);
	free(e.odd);
	free(e.even);
	return rc;
}

/* --- the genetic algorithm -------------------------------------------------------- */

struct eq_ga {
	uint32_t N, budget;  /* K - 2 ports beyond the ring */
	uint32_t n_items;    /* one-port items first, then two-port */
	uint32_t n_one;
	uint32_t *chord;     /* [n_items] chord residue of each item */
	uint32_t glen;       /* max genome length (items) = budget */
	struct eq_eval ev;
	uint8_t *mark;       /* [n_items] scratch */
	uint32_t *pool;      /* [n_pool] scratch: the fill's item order, or both parents' items */
	uint32_t n_pool;     /* max(n_items, 2 * glen) */
};

struct eq_ind {
	uint32_t *items; /* sorted item ids */
	uint32_t n;
	double score;
	uint32_t d;
	double a;
};

static uint32_t eq_cost(const struct eq_ga *g, uint32_t item)
{
	return item < g->n_one ? 1 : 2;
}

/* Fill ind from the items already marked in g->mark (cost `used`), then
 * with random unmarked items, in one random order, while they fit. All the
 * items together cost N - 3 >= budget (eq. 1: radix N - 1), and afterwards
 * every unmarked item costs more than what is left, so at most 1 is left,
 * and then every one-port item is taken and a two-port item is free: one
 * one-port item (the first in the order) is traded for the first free
 * two-port one. Clears the marks. */
static void eq_fill(struct eq_ga *g, struct rng *r, struct eq_ind *ind, uint32_t used)
{
	uint32_t left = g->budget - used;
	if (left) {
		for (uint32_t i = 0; i < g->n_items; i++)
			g->pool[i] = i;
		rng_shuffle_u32(r, g->pool, g->n_items);
		for (uint32_t i = 0; i < g->n_items && left; i++) {
			uint32_t it = g->pool[i];
			if (!g->mark[it] && eq_cost(g, it) <= left) {
				g->mark[it] = 1;
				left -= eq_cost(g, it);
			}
		}
		if (left == 1) {
			uint32_t one = UINT32_MAX, two = UINT32_MAX;
			for (uint32_t i = 0; i < g->n_items; i++) {
				uint32_t it = g->pool[i];
				if (one == UINT32_MAX && g->mark[it] && eq_cost(g, it) == 1)
					one = it;
				if (two == UINT32_MAX && !g->mark[it] && eq_cost(g, it) == 2)
					two = it;
			}
			if (one == UINT32_MAX || two == UINT32_MAX)
				NL_BUG("design equality: N = %u, budget %u: no one-port item to trade for a two-port one", g->N, g->budget);
			g->mark[one] = 0;
			g->mark[two] = 1;
			left = 0;
		}
	}
	NL_ASSERT(left == 0);
	ind->n = 0;
	for (uint32_t i = 0; i < g->n_items; i++)
		if (g->mark[i]) {
			ind->items[ind->n++] = i;
			g->mark[i] = 0;
		}
}

static void eq_score(struct eq_ga *g, struct eq_ind *ind)
{
	/* The ring chords -1 and 1, then the genome's chords. */
	g->ev.n_odd = g->ev.n_even = 0;
	g->ev.odd[g->ev.n_odd++] = g->N - 1;
	g->ev.odd[g->ev.n_odd++] = 1;
	for (uint32_t i = 0; i < ind->n; i++) {
		uint32_t c = g->chord[ind->items[i]];
		if (ind->items[i] < g->n_one)
			g->ev.odd[g->ev.n_odd++] = c; /* one link: odd chords, and N/2 */
		else
			g->ev.even[g->ev.n_even++] = c;
	}
	if (eq_bfs(&g->ev, &ind->d, &ind->a))
		ind->score = ind->a * (double)ind->d;
	else
		ind->score = 1e300; /* cannot happen with the ring, kept for safety */
}

/* Better: lower score; ties break on the item list so order is total. */
static bool eq_better(const struct eq_ind *x, const struct eq_ind *y)
{
	if (x->score != y->score)
		return x->score < y->score;
	uint32_t n = x->n < y->n ? x->n : y->n;
	for (uint32_t i = 0; i < n; i++)
		if (x->items[i] != y->items[i])
			return x->items[i] < y->items[i];
	return x->n < y->n;
}

static uint32_t eq_tournament(struct rng *r, const struct eq_ind *pop, uint32_t n)
{
	uint32_t best = (uint32_t)rng_below(r, n);
	for (int i = 0; i < 2; i++) {
		uint32_t c = (uint32_t)rng_below(r, n);
		if (eq_better(&pop[c], &pop[best]))
			best = c;
	}
	return best;
}

void analyze_eq_release(struct analyze_eq *e)
{
	free(e->sa);
	free(e->sb);
	e->sa = e->sb = NULL;
}

static int eq_i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The request's sizes: routers, radix, population, and the work they
 * make, bounded (EQ_MAX_S of BFS steps at eq_steps_per_s). */
static int eq_check_request(uint32_t N, uint32_t K, uint32_t popn, uint32_t gens, struct nl_err *err)
{
	if (N < 6 || N % 2)
		return nl_errf(err, NL_EINVAL, "design equality: --routers: expected an even integer of at least 6, got '%u'",
				       N);
	if (K < 3 || K >= N)
		return nl_errf(err, NL_EINVAL, "design equality: --radix: expected an integer in 3..%u for %u routers, "
			       "got '%u'", N - 1, N, K);
	if (popn < 2)
		return nl_errf(err, NL_EINVAL, "design equality: population %u: expected at least 2", popn);
	double work = (double)popn * ((double)gens + 1) * N * K;
	double rate = eq_steps_per_s(N), max_work = EQ_MAX_S * rate;
	if (work > max_work) {
		double min = work / rate / 60;
		return nl_errf(err, NL_EINVAL,
			       "design equality: --routers %u --radix %u --population %u --generations %u is %.5g BFS "
			       "steps (population x (generations + 1) x routers x radix), about %.0f %s of work at %.0g "
			       "steps a second; expected at most %.3g (about %.0f minutes): fewer routers, a smaller radix "
			       "or population, or fewer generations",
			       N, K, popn, gens, work, min >= 120 ? min / 60 : min, min >= 120 ? "hours" : "minutes", rate,
			       max_work, EQ_MAX_S / 60);
	}
	return 0;
}

/* The genome's items: one-port chords (odd 3..N-3, and N/2 if even), then
 * two-port ones; refused when no choice of them gives radix K. */
static int eq_items(struct eq_ga *g, uint32_t N, uint32_t K, struct nl_err *err)
{
	g->N = N;
	g->budget = K - 2;
	g->chord = malloc((size_t)N * sizeof *g->chord);
	if (!g->chord)
		return nl_errf(err, NL_ENOMEM, "design equality: out of memory");
	for (uint32_t s = 3; s <= N - 3; s += 2)
		g->chord[g->n_items++] = s;
	if ((N / 2) % 2 == 0)
		g->chord[g->n_items++] = N / 2;
	g->n_one = g->n_items;
	for (uint32_t s = 2; s < N / 2; s += 2)
		g->chord[g->n_items++] = s;
	/* Radix K exists iff u one-port and w two-port items with u + 2w =
	 * K - 2 exist: u of the budget's parity, u <= n_one, w <= n_two. */
	uint32_t n_two = g->n_items - g->n_one;
	bool feasible = false;
	for (uint32_t u = g->budget % 2; u <= g->n_one && u <= g->budget && !feasible; u += 2)
		feasible = (g->budget - u) / 2 <= n_two;
	if (!feasible)
		return nl_errf(err, NL_EINVAL, "design equality: no network of %u routers has radix %u", N, K);
	g->glen = g->budget;
	return 0;
}

/* The GA's scratch and two populations of popn genomes (items from one
 * block, *items). */
static int eq_alloc(struct eq_ga *g, uint32_t K, uint32_t popn, struct eq_ind **pop, struct eq_ind **next,
		    uint32_t **items, struct nl_err *err)
{
	uint32_t N = g->N, len = g->glen ? g->glen : 1;
	g->ev.N = N;
	g->ev.dist = malloc((size_t)N * sizeof *g->ev.dist);
	g->ev.queue = malloc((size_t)N * sizeof *g->ev.queue);
	g->ev.odd = malloc(((size_t)K + 2) * sizeof *g->ev.odd);
	g->ev.even = malloc(((size_t)K + 2) * sizeof *g->ev.even);
	g->mark = calloc(g->n_items, 1);
	/* The crossover lists both parents' items, up to 2 (K - 2) entries:
	 * more than the n_items candidates (about 3N/4) once K passes ~0.4 N. */
	g->n_pool = g->n_items > 2 * g->glen ? g->n_items : 2 * g->glen;
	g->pool = malloc((size_t)g->n_pool * sizeof *g->pool);
	*pop = calloc(popn, sizeof **pop);
	*next = calloc(popn, sizeof **next);
	*items = malloc((size_t)2 * popn * len * sizeof **items);
	if (!g->ev.dist || !g->ev.queue || !g->ev.odd || !g->ev.even || !g->mark || !g->pool || !*pop || !*next ||
	    !*items)
		return nl_errf(err, NL_ENOMEM, "design equality: out of memory");
	for (uint32_t i = 0; i < popn; i++) {
		(*pop)[i].items = *items + (size_t)i * len;
		(*next)[i].items = *items + ((size_t)popn + i) * len;
	}
	return 0;
}

/* The two best genomes of pop, best first. */
static void eq_elites(const struct eq_ind *pop, uint32_t popn, uint32_t elite[2])
{
	uint32_t e0 = 0, e1 = popn > 1 ? 1 : 0;
	if (eq_better(&pop[e1], &pop[e0])) {
		e0 = 1;
		e1 = 0;
	}
	for (uint32_t i = 2; i < popn; i++) {
		if (eq_better(&pop[i], &pop[e0])) {
			e1 = e0;
			e0 = i;
		} else if (eq_better(&pop[i], &pop[e1])) {
			e1 = i;
		}
	}
	elite[0] = e0;
	elite[1] = e1;
}

/* A child of two tournament winners: union crossover (the parents' items
 * in random order while they fit), mutation with probability mut (one
 * item dropped), then filled at random and scored. */
static void eq_child(struct eq_ga *g, struct rng *r, const struct eq_ind *pop, uint32_t popn, double mut,
		     struct eq_ind *child)
{
	const struct eq_ind *pa = &pop[eq_tournament(r, pop, popn)];
	const struct eq_ind *pb = &pop[eq_tournament(r, pop, popn)];
	uint32_t nu = 0, used = 0;
	NL_ASSERT(pa->n + pb->n <= g->n_pool);
	for (uint32_t j = 0; j < pa->n; j++)
		g->pool[nu++] = pa->items[j];
	for (uint32_t j = 0; j < pb->n; j++)
		g->pool[nu++] = pb->items[j];
	rng_shuffle_u32(r, g->pool, nu);
	for (uint32_t j = 0; j < nu; j++) {
		uint32_t it = g->pool[j];
		if (!g->mark[it] && used + eq_cost(g, it) <= g->budget) {
			g->mark[it] = 1;
			used += eq_cost(g, it);
		}
	}
	if (rng_uniform(r) < mut && used) {
		uint32_t marked = 0;
		for (uint32_t it = 0; it < g->n_items; it++)
			marked += g->mark[it];
		uint32_t pick = (uint32_t)rng_below(r, marked);
		for (uint32_t it = 0; it < g->n_items; it++) {
			if (g->mark[it] && pick-- == 0) {
				g->mark[it] = 0;
				used -= eq_cost(g, it);
				break;
			}
		}
	}
	eq_fill(g, r, child, used);
	eq_score(g, child);
}

/* The best genome as offsets: S_A = {-1, 1} and its odd chords, S_B its
 * even ones, each sorted. */
static int eq_result(const struct eq_ga *g, const struct eq_ind *best, struct analyze_eq *out, struct nl_err *err)
{
	out->diameter = best->d;
	out->aspl = best->a;
	out->score = best->score;
	out->sa = malloc(((size_t)best->n + 2) * sizeof *out->sa);
	out->sb = malloc(((size_t)best->n + 1) * sizeof *out->sb);
	if (!out->sa || !out->sb) {
		analyze_eq_release(out);
		return nl_errf(err, NL_ENOMEM, "design equality: out of memory");
	}
	out->sa[out->n_sa++] = -1;
	out->sa[out->n_sa++] = 1;
	for (uint32_t i = 0; i < best->n; i++) {
		uint32_t c = g->chord[best->items[i]];
		if (c % 2)
			out->sa[out->n_sa++] = c;
		else
			out->sb[out->n_sb++] = c;
	}
	qsort(out->sa + 2, out->n_sa - 2, sizeof *out->sa, eq_i64cmp);
	qsort(out->sb, out->n_sb, sizeof *out->sb, eq_i64cmp);
	return 0;
}

int analyze_equality_design(const struct analyze_eq_req *req, struct analyze_eq *out,
			    struct nl_err *err)
{
	uint32_t N = req->N, K = req->K;
	uint32_t popn = req->population ? req->population : 40;
	uint32_t gens = req->generations ? req->generations : 60;
	double mut = req->mutation < 0 ? 0.3 : req->mutation;
	struct eq_ga g = {0};
	struct eq_ind *pop = NULL, *next = NULL;
	uint32_t *items = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	NL_CHECK(eq_check_request(N, K, popn, gens, err));
	if ((rc = eq_items(&g, N, K, err)) < 0 || (rc = eq_alloc(&g, K, popn, &pop, &next, &items, err)) < 0)
		goto done;

	struct rng r;
	rng_init(&r, req->seed, RNG_CLASS_DESIGN, EQ_RNG_BASE);
	for (uint32_t i = 0; i < popn; i++) {
		eq_fill(&g, &r, &pop[i], 0);
		eq_score(&g, &pop[i]);
		out->evaluations++;
	}
	struct progress pg;
	progress_init(&pg, "equality design");
	for (uint32_t gen = 1; gen <= gens; gen++) {
		char detail[48];
		snprintf(detail, sizeof detail, "generation %u of %u", gen, gens);
		progress_update(&pg, (double)(gen - 1) / gens, detail);
		rng_init(&r, req->seed, RNG_CLASS_DESIGN, EQ_RNG_BASE | gen);
		/* Two elites survive unchanged. */
		uint32_t elite[2];
		eq_elites(pop, popn, elite);
		for (uint32_t i = 0; i < popn; i++) {
			if (i < 2) {
				const struct eq_ind *src = &pop[elite[i]];
				memcpy(next[i].items, src->items, (size_t)src->n * sizeof *src->items);
				next[i].n = src->n;
				next[i].score = src->score;
				next[i].d = src->d;
				next[i].a = src->a;
				continue;
			}
			eq_child(&g, &r, pop, popn, mut, &next[i]);
			out->evaluations++;
		}
		struct eq_ind *t = pop;
		pop = next;
		next = t;
		out->generations = gen;
	}
	progress_done(&pg);

	uint32_t b = 0;
	for (uint32_t i = 1; i < popn; i++)
		if (eq_better(&pop[i], &pop[b]))
			b = i;
	out->N = N;
	out->K = K;
	rc = eq_result(&g, &pop[b], out, err);
done:
	free(g.chord);
	free(g.ev.dist);
	free(g.ev.queue);
	free(g.ev.odd);
	free(g.ev.even);
	free(g.mark);
	free(g.pool);
	free(pop);
	free(next);
	free(items);
	return rc;
}
