/* Diameter, average shortest path length and distance histogram.
 *
 * Bit-parallel BFS from 64 sources at once (topo_bfs64_run, shared with
 * topo_diameter and the routing tables): one pass over the CSR per level
 * and three words per router; this file counts what each level reaches.
 * Exact results run one BFS per vertex
 * orbit and weight it by the orbit's size: a vertex-transitive family
 * (Equality, torus, FleX) needs a single source, so the 64,000-router
 * Equality network of seed 002 is one sweep per level.
 */
#include "analyze/analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/stats.h"
#include "topo/topo.h"

/* Stream ids within RNG_CLASS_ANALYSIS, so analyses never share draws. */
#define DIST_RNG_SAMPLES 0x5a4d504cull

struct dist_acc {
	uint64_t *hist;     /* weighted ordered pairs per distance */
	uint32_t hist_cap;
	uint32_t max_level; /* largest distance seen */
	bool disconnected;
};

static int dist_hist_grow(struct dist_acc *a, uint32_t level)
{
	if (level < a->hist_cap)
		return 0;
	uint32_t cap = a->hist_cap ? a->hist_cap * 2 : 16;
	while (cap <= level)
		cap *= 2;
	uint64_t *h = realloc(a->hist, (size_t)cap * sizeof *h);
	if (!h)
		return NL_ENOMEM;
	memset(h + a->hist_cap, 0, (size_t)(cap - a->hist_cap) * sizeof *h);
	a->hist = h;
	a->hist_cap = cap;
	return 0;
}

/* One batch's sources and what their levels add to: the callbacks'
 * context for topo_bfs64_run. */
struct dist_batch {
	const uint64_t *weight; /* [ns] */
	uint32_t ns, n;
	bool per_source;
	uint64_t *sum;          /* [ns] per_source: each source's distance total */
	uint32_t *ecc;          /* [ns] per_source: each source's eccentricity */
	uint64_t *work;
	struct dist_acc *a;
	/* The caller's progress line and the fraction done before this
	 * batch: a batch over millions of routers runs for seconds, so its
	 * levels redraw the line too. */
	struct progress *pg;
	double pg_before;
};

/* Redraw the line during a batch: the level and the routers reached so
 * far, summed over the frontiers (a router once per level some source
 * newly reaches it at: the whole graph for one source). The levels grow
 * and shrink, so no share done is claimed inside the first batch (it gave
 * an ETA of 56,351 s at level 1); later ones show the batches done. */
static void dist_level_progress(void *ctx, uint32_t level, uint64_t reached)
{
	const struct dist_batch *db = ctx;
	char detail[80];
	snprintf(detail, sizeof detail, "BFS level %u, %llu router visits of %u routers", level,
		 (unsigned long long)reached, db->n);
	progress_update(db->pg, db->pg_before > 0 ? db->pg_before : -1, detail);
}

/* Count the routers that `fresh` newly reaches, per source or in total.
 * Per source costs one step a bit, 64 per router in a full batch: more
 * than the adjacency reads of a sparse random graph (dln:n=200000,d=8
 * read 8e6 words a batch and ran 1.3e7 of these steps), so they count as
 * work. */
static inline void dist_count(uint64_t fresh, bool per_source, uint64_t *lvcnt, uint64_t *plain,
			      uint64_t *work)
{
	if (!per_source) {
		*plain += (uint64_t)__builtin_popcountll(fresh);
		return;
	}
	*work += (uint64_t)__builtin_popcountll(fresh);
	while (fresh) {
		lvcnt[__builtin_ctzll(fresh)]++;
		fresh &= fresh - 1;
	}
}

/* One level of the batch: adds weight[b] * (routers at distance `level`
 * from source b) to a->hist[level], and per source its sum and
 * eccentricity (otherwise all weights are equal and only the histogram
 * is kept). */
static int dist_level(void *ctx, uint32_t level, const uint32_t *reached, uint32_t n_reached,
		      const uint64_t *fresh)
{
	struct dist_batch *db = ctx;
	struct dist_acc *a = db->a;
	uint64_t lvcnt[64], plain = 0;
	if (db->per_source)
		memset(lvcnt, 0, sizeof lvcnt);
	for (uint32_t i = 0; i < n_reached; i++)
		dist_count(fresh[reached[i]], db->per_source, lvcnt, &plain, db->work);
	if (dist_hist_grow(a, level) < 0)
		return NL_ENOMEM;
	if (db->per_source) {
		for (uint32_t b = 0; b < db->ns; b++) {
			if (!lvcnt[b])
				continue;
			a->hist[level] += db->weight[b] * lvcnt[b];
			db->sum[b] += (uint64_t)level * lvcnt[b];
			db->ecc[b] = level;
		}
	} else {
		a->hist[level] += db->weight[0] * plain;
	}
	if (level > a->max_level)
		a->max_level = level;
	return 0;
}

/* BFS from src[0..ns-1] (ns <= 64) at once (topo_bfs64_run). Adds
 * weight[b] * (routers at distance h from src[b]) to a->hist[h]; fills
 * sum[b] (sum of distances) and ecc[b] when per_source. */
static int dist_bfs64(struct topo_bfs64 *ws, const uint32_t *src, struct dist_batch *db)
{
	for (uint32_t b = 0; b < db->ns; b++) {
		db->sum[b] = 0;
		db->ecc[b] = 0;
	}
	ws->on_level = dist_level;
	ws->on_progress = db->pg ? dist_level_progress : NULL;
	ws->ctx = db;
	NL_CHECK(topo_bfs64_run(ws, src, db->ns, db->work));
	if (!ws->all_reached)
		db->a->disconnected = true;
	return 0;
}

void analyze_dist_release(struct analyze_dist *d)
{
	free(d->hist);
	d->hist = NULL;
	d->hist_len = 0;
}

/* Orbit representatives and weights: one per orbit, or every router. */
static uint32_t dist_orbits(const struct topo *t, uint32_t *reps, uint64_t *w, const char **method,
			    struct nl_err *err, int *rc)
{
	uint32_t n = t->n_routers;
	*rc = 0;
	if (t->ops->flags & TOPO_F_VERTEX_TRANSITIVE) {
		reps[0] = 0;
		w[0] = n;
		*method = "vertex-transitive";
		return 1;
	}
	if (t->ops->orbits) {
		uint32_t k = t->ops->orbits(t, reps, w, n);
		if (k > 0) {
			uint64_t total = 0;
			for (uint32_t i = 0; i < k; i++) {
				if (reps[i] >= n) {
					*rc = nl_errf(err, NL_ECORRUPT, "%s: orbit representative %u is not a router",
						      t->spec, reps[i]);
					return 0;
				}
				total += w[i];
			}
			if (total != n) {
				*rc = nl_errf(err, NL_ECORRUPT, "%s: orbit sizes sum to %llu, expected %u routers",
					      t->spec, (unsigned long long)total, n);
				return 0;
			}
			*method = "orbits";
			return k;
		}
	}
	for (uint32_t r = 0; r < n; r++) {
		reps[r] = r;
		w[r] = 1;
	}
	*method = "all-sources";
	return n;
}

/* One analysis's sources and working memory. */
struct dist_run {
	const struct analyze_graph *g;
	uint32_t n;         /* routers */
	uint32_t ns;        /* sources, src[0..ns) with weights w */
	uint32_t *src, *ecc; /* ecc: each source's eccentricity (per-source batches) */
	uint64_t *w, *sum;  /* sum: each source's distance total (per-source batches) */
	struct topo_bfs64 ws;
	struct dist_acc acc;
};

/* When the exact run is dropped for samples, and how far samples go. */
struct dist_policy {
	uint64_t budget;        /* words the exact run may touch (AUTO) */
	uint64_t sample_budget; /* words the default number of samples may touch */
	uint64_t n_batches;     /* of the exact run */
	uint32_t want;          /* samples */
	bool sampled;           /* sample (now) */
	bool watch;             /* exact, but switch to samples when over budget */
	bool sample_capped;     /* the default number of samples: within sample_budget */
};

static void dist_run_free(struct dist_run *d)
{
	free(d->acc.hist);
	free(d->src);
	free(d->w);
	free(d->sum);
	free(d->ecc);
	topo_bfs64_release(&d->ws);
}

static int dist_run_alloc(struct dist_run *d, const struct topo *t, struct nl_err *err)
{
	size_t n = d->n;
	d->src = malloc(n * sizeof *d->src);
	d->w = malloc(n * sizeof *d->w);
	d->sum = malloc(n * sizeof *d->sum);
	d->ecc = malloc(n * sizeof *d->ecc);
	if (!d->src || !d->w || !d->sum || !d->ecc ||
	    topo_bfs64_init(&d->ws, d->g->n, d->g->off, d->g->adj) < 0 || dist_hist_grow(&d->acc, 16) < 0)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory for BFS", t->spec);
	return 0;
}

/* AUTO: exact while the BFS work stays within the budget. A batch of 64
 * sources costs one sweep per BFS level, so its work grows with the
 * eccentricities (~440 levels in a 220 x 220 mesh) and the graph's size
 * alone cannot tell it. So the exact run counts the words it touches
 * (topo_bfs64_run) and, after each batch but the last, projects the batches'
 * average over all of them; once that exceeds the budget it drops what it
 * has and samples instead. The count does not depend on the machine: the
 * same graph is always exact or always sampled. */
static struct dist_policy dist_policy_of(const struct analyze_dist_opts *o, uint32_t n, uint32_t ns)
{
	struct dist_policy p = {
		.budget = o && o->budget ? o->budget : ANALYZE_DIST_BUDGET_DEFAULT,
		.n_batches = ((uint64_t)ns + 63) / 64,
		.want = o && o->samples ? o->samples : ANALYZE_DIST_SAMPLES_DEFAULT,
		/* The default number of samples has a budget too: 16 batches
		 * of 64 cost 16 x levels x (routers + adjacency) at worst, and
		 * the levels grow with the graph (mesh:k=440x440 counted 1.3e9
		 * words, 8.4 s; 880x880 ran over 49 s). A count the caller
		 * chose runs whole. */
		.sample_budget = o && o->sample_budget ? o->sample_budget : ANALYZE_DIST_SAMPLE_BUDGET_DEFAULT,
		.sample_capped = !(o && o->samples),
	};
	enum analyze_dist_mode mode = o ? o->mode : ANALYZE_DIST_AUTO;
	bool can_sample = p.want < n; /* as many samples as routers: run them all, exactly */
	p.sampled = can_sample && mode == ANALYZE_DIST_SAMPLED;
	p.watch = can_sample && mode == ANALYZE_DIST_AUTO;
	/* Every batch counts at least its 4n words of clears, so when those
	 * alone pass the budget the exact run cannot fit: sample at once
	 * rather than spend a batch finding out (mesh:k=880x880: 12,100
	 * batches, the first about as costly as the whole sampled run). */
	if (p.watch && (double)p.n_batches * 4.0 * (double)n > (double)p.budget) {
		p.sampled = true;
		p.watch = false;
	}
	return p;
}

/* want uniform sources without replacement, weight 1: a partial
 * Fisher-Yates. */
static void dist_draw(struct dist_run *d, uint64_t seed, uint32_t want)
{
	struct rng r;
	rng_init(&r, seed, RNG_CLASS_ANALYSIS, DIST_RNG_SAMPLES);
	for (uint32_t i = 0; i < d->n; i++)
		d->src[i] = i;
	for (uint32_t i = 0; i < want; i++) {
		uint32_t j = i + (uint32_t)rng_below(&r, d->n - i);
		uint32_t x = d->src[i];
		d->src[i] = d->src[j];
		d->src[j] = x;
	}
	d->ns = want;
	for (uint32_t i = 0; i < d->ns; i++)
		d->w[i] = 1;
}

/* The BFS from every source, 64 at a time, with the progress line. *over:
 * stopped as the exact run's projected work passed the budget (only when
 * p->watch). */
static int dist_batches(struct dist_run *d, const struct topo *t, const struct dist_policy *p, bool *over,
			struct nl_err *err)
{
	struct progress pg;
	uint64_t work = 0;
	int rc = 0;
	*over = false;
	progress_init(&pg, "distances");
	for (uint32_t b0 = 0; b0 < d->ns && !*over; b0 += 64) {
		uint32_t m = d->ns - b0 < 64 ? d->ns - b0 : 64;
		/* Per-source bookkeeping only when weights differ or the sampled
		 * estimate needs each source's mean and eccentricity. */
		bool per_source = p->sampled;
		for (uint32_t b = 1; b < m && !per_source; b++)
			per_source = d->w[b0 + b] != d->w[b0];
		struct dist_batch db = {
			.weight = d->w + b0,
			.ns = m,
			.n = d->n,
			.per_source = per_source,
			.sum = d->sum + b0,
			.ecc = d->ecc + b0,
			.work = &work,
			.a = &d->acc,
			.pg = &pg,
			.pg_before = (double)b0 / d->ns,
		};
		if (dist_bfs64(&d->ws, d->src + b0, &db) < 0) {
			rc = nl_errf(err, NL_ENOMEM, "%s: out of memory for BFS", t->spec);
			break;
		}
		/* Projected total: the batches so far, averaged, times all. */
		*over = p->watch && b0 + m < d->ns &&
			(double)work / (double)(b0 / 64 + 1) * (double)p->n_batches > (double)p->budget;
		/* Sampled: stop before the batch that would take the projected
		 * work past the budget. The sources are a uniform draw in order
		 * (Fisher-Yates, dist_draw), so those run are a uniform sample
		 * of their own size, and the interval (dist_sampled_out), over
		 * ns sources, widens with fewer. */
		if (p->sampled && p->sample_capped && b0 + m < d->ns &&
		    (double)work / (double)(b0 / 64 + 1) * (double)(b0 / 64 + 2) > (double)p->sample_budget)
			d->ns = b0 + m;
		char detail[64];
		snprintf(detail, sizeof detail, "%u of %u BFS sources", b0 + m, d->ns);
		progress_update(&pg, (double)(b0 + m) / d->ns, detail);
	}
	progress_done(&pg);
	return rc;
}

/* Every source ran: the exact histogram, diameter and ASPL. */
static void dist_exact_out(const struct dist_run *d, struct analyze_dist *out)
{
	/* Ordered pairs -> unordered pairs; the graph is symmetric. */
	double tot = 0;
	for (uint32_t h = 1; h < out->hist_len; h++) {
		out->hist[h] = d->acc.hist[h] / 2;
		tot += (double)h * (double)d->acc.hist[h];
	}
	out->diameter = out->diameter_hi = d->acc.max_level;
	out->aspl = tot / ((double)d->n * (double)(d->n - 1));
}

/* Sampled sources: the ASPL with its 95% interval, the diameter's
 * bounds (or the family's closed form, which they must hold) and the
 * histogram scaled to all pairs. */
static int dist_sampled_out(const struct dist_run *d, const struct topo *t, struct analyze_dist *out,
			    struct nl_err *err)
{
	uint32_t n = d->n, ns = d->ns;
	double mean = 0, m2 = 0;
	uint32_t hi = UINT32_MAX, maxecc = 0;
	for (uint32_t b = 0; b < ns; b++) {
		/* Welford's running mean and variance of per-source means. */
		double x = (double)d->sum[b] / (double)(n - 1);
		double dx = x - mean;
		mean += dx / (double)(b + 1);
		m2 += dx * (x - mean);
		if (d->ecc[b] > maxecc)
			maxecc = d->ecc[b];
		if (2 * d->ecc[b] < hi)
			hi = 2 * d->ecc[b];
	}
	double var = ns > 1 ? m2 / (double)(ns - 1) : 0;
	double fpc = sqrt((double)(n - ns) / (double)(n - 1)); /* finite population */
	out->aspl = mean;
	/* Student's t, not the normal 1.96: with the few sources a user may
	 * ask for (--samples 2) the normal interval held the exact ASPL in 28
	 * of 40 seeds on mesh:k=12x12. */
	out->aspl_ci95 = ns > 1 ? stats_t95(ns - 1) * sqrt(var / (double)ns) * fpc : 0;
	out->diameter = maxecc;
	out->diameter_hi = hi;
	for (uint32_t h = 1; h < out->hist_len; h++)
		out->hist[h] = (uint64_t)llround((double)d->acc.hist[h] * (double)n / (2.0 * ns));
	/* A family's closed form (docs/topologies.md) is the diameter itself,
	 * where the samples only bracket it: mesh:k=440x440 printed 865..910
	 * for 878. The bracket must hold it. */
	if (!d->acc.disconnected && t->ops->diameter) {
		uint32_t dia = t->ops->diameter(t);
		if (dia < maxecc || dia > hi)
			return nl_errf(err, NL_ECORRUPT, "%s: closed-form diameter %u outside the sampled bounds %u..%u",
				       t->spec, dia, maxecc, hi);
		out->diameter = out->diameter_hi = dia;
		out->is_diameter_exact = true;
	}
	return 0;
}

int analyze_distances(const struct topo *t, const struct analyze_graph *g,
		      const struct analyze_dist_opts *o, struct analyze_dist *out, struct nl_err *err)
{
	struct dist_run d = {.g = g, .n = g->n};
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (d.n < 2) {
		out->is_exact = out->is_diameter_exact = out->is_connected = true;
		out->method = "all-sources";
		out->n_sources = d.n;
		out->hist = calloc(1, sizeof *out->hist);
		out->hist_len = 1;
		return out->hist ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	}
	if ((rc = dist_run_alloc(&d, t, err)) < 0)
		goto done;
	const char *method;
	d.ns = dist_orbits(t, d.src, d.w, &method, err, &rc);
	if (rc < 0)
		goto done;
	struct dist_policy p = dist_policy_of(o, d.n, d.ns);
	for (;;) {
		if (p.sampled) {
			dist_draw(&d, o ? o->seed : 0, p.want);
			method = "sampled";
			out->samples_wanted = p.want;
		}
		bool over;
		if ((rc = dist_batches(&d, t, &p, &over, err)) < 0)
			goto done;
		if (!over)
			break;
		/* Too costly to finish exactly: forget it and sample. */
		memset(d.acc.hist, 0, (size_t)d.acc.hist_cap * sizeof *d.acc.hist);
		d.acc.max_level = 0;
		d.acc.disconnected = false;
		p.sampled = true;
		p.watch = false;
	}

	out->method = method;
	out->n_sources = d.ns;
	out->is_exact = out->is_diameter_exact = !p.sampled;
	out->is_connected = !d.acc.disconnected;
	out->hist_len = d.acc.max_level + 1;
	out->hist = calloc(out->hist_len, sizeof *out->hist);
	if (!out->hist) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto done;
	}
	if (!p.sampled)
		dist_exact_out(&d, out);
	else if ((rc = dist_sampled_out(&d, t, out, err)) < 0)
		goto done;
	if (d.acc.disconnected) {
		out->diameter = out->diameter_hi = UINT32_MAX;
		out->aspl = INFINITY;
	}
done:
	dist_run_free(&d);
	if (rc < 0)
		analyze_dist_release(out);
	return rc;
}
