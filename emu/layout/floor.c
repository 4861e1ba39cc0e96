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
 * The trials run on up to T threads, each with its own working arrays and
 * random stream: the result is the same bytes for every T.
 */
#include "layout/layout.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cpus.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/thread.h"
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

/* The annealing's allocations, all made on the caller's thread before
 * any helper starts: malloc and calloc, except that with the test hook
 * NETLOOM_TEST_FAIL_ALLOC=N (*fail_nth = N, 0 = off) the Nth and every
 * later one fail, so that a test runs each out-of-memory path from the
 * command line (tests/e2e/thread_fallbacks.sh). */
static void *floor_malloc(uint32_t *fail_nth, size_t size)
{
	if (*fail_nth == 1)
		return NULL;
	if (*fail_nth)
		(*fail_nth)--;
	return malloc(size);
}

static void *floor_calloc(uint32_t *fail_nth, size_t n, size_t size)
{
	if (*fail_nth == 1)
		return NULL;
	if (*fail_nth)
		(*fail_nth)--;
	return calloc(n, size);
}

static int floor_graph_build(const struct layout *lo, struct floor_graph *fg, uint32_t *fail_nth,
			     struct nl_err *err)
{
	const struct topo *t = lo->t;
	uint64_t n = 0, *keys;
	uint32_t C = lo->n_cabinets, a, b;

	/* A network link appears at both its ports; a terminal cable at one,
	 * so it adds both directions. */
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (floor_port_cabinets(lo, g, &a, &b) && a != b)
			n += topo_port_is_network(t, g) ? 1 : 2;
	keys = floor_malloc(fail_nth, (size_t)(n ? n : 1) * sizeof *keys);
	fg->off = floor_calloc(fail_nth, (size_t)C + 1, sizeof *fg->off);
	fg->nb = floor_malloc(fail_nth, (size_t)(n ? n : 1) * sizeof *fg->nb);
	fg->w = floor_malloc(fail_nth, (size_t)(n ? n : 1) * sizeof *fg->w);
	if (!keys || !fg->off || !fg->nb || !fg->w) {
		free(keys);
		free(fg->off);
		free(fg->nb);
		free(fg->w);
		*fg = (struct floor_graph){0};
		return nl_errf(err, NL_ENOMEM, "layout: out of memory for the annealing's cabinet graph (%u cabinet%s, %llu "
					       "cable ends)", C, C == 1 ? "" : "s", (unsigned long long)n);
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

/* The trials of one annealing, shared by the threads that run them. The
 * floor graph and the budget are read-only; a thread takes the next trial
 * from `next` (the trials run in any order on any thread: each reads only
 * its own stream, and the shortest is chosen by (length, trial) at the
 * end). Moves done count in steps of 2^16 (floor_tick) for the progress
 * line, which only the caller's thread draws. */
struct floor_job {
	const struct floor_graph *fg;
	uint32_t C, cells, cols;
	double wx, wy;             /* metres per column / row */
	uint64_t iters, seed;      /* moves per trial; the streams' seed */
	uint32_t trials, n_threads;
	_Atomic uint32_t next;     /* the next trial to start */
	_Atomic uint64_t moves;    /* moves done over all trials */
	_Atomic uint32_t done;     /* trials finished */
	struct progress *pg;       /* NULL = silent; the caller's thread only */
	pthread_mutex_t mu;        /* guards running; cv signals its changes */
	pthread_cond_t cv;
	uint32_t running;          /* helper threads started and not finished */
	uint32_t fail_nth;         /* the test hook's count (floor_malloc); the caller's thread only */
};

/* One thread's share: its working arrays and the best of its trials. */
struct floor_run {
	struct floor_job *job;
	struct floor_sa sa;
	uint32_t *best;      /* [C] the running trial's best placement */
	uint32_t *keep;      /* [C] the shortest of this thread's trials */
	double keep_m;       /* its length, INFINITY before the first */
	uint32_t keep_trial;
	bool is_caller;      /* runs on the caller's thread: draws progress */
	pthread_t thread;
};

static void floor_progress(const struct floor_job *job, uint32_t tr, uint64_t it)
{
	char detail[96];
	uint64_t moves = atomic_load_explicit(&job->moves, memory_order_relaxed);
	double all = (double)job->iters * (double)job->trials;
	if (job->n_threads == 1)
		snprintf(detail, sizeof detail, "trial %u/%u, move %llu/%llu", tr + 1, job->trials,
			 (unsigned long long)it, (unsigned long long)job->iters);
	else
		snprintf(detail, sizeof detail, "%u/%u trials done, %u threads",
			 atomic_load_explicit(&job->done, memory_order_relaxed), job->trials, job->n_threads);
	progress_update(job->pg, all > 0 ? (double)moves / all : -1.0, detail);
}

/* Where a long annealing is (10^8 moves x 5 trials take minutes): every
 * 2^16 moves of trial tr, at move it. */
static void floor_tick(const struct floor_run *r, uint32_t tr, uint64_t it)
{
	atomic_fetch_add_explicit(&r->job->moves, 0x10000, memory_order_relaxed);
	if (r->is_caller && r->job->pg)
		floor_progress(r->job, tr, it);
}

/* One annealing run from the row-major start; leaves the best placement
 * seen in r->best and returns its length in metres (exact: integer step
 * counts). Temperature falls geometrically from t0 (the mean uphill move
 * of a random sample) to t0 / 10^4 (the classic schedule of Connolly's QAP
 * annealing, seed 003 ref. [33], in a simple form). The best placement is
 * copied only when the run leaves a new best for an uphill move (or ends),
 * so a descent costs one copy, not one per step. */
static double floor_anneal_one(struct floor_run *r, struct rng *rng, uint32_t tr)
{
	const struct floor_job *job = r->job;
	struct floor_sa *sa = &r->sa;
	uint32_t C = job->C, cells = job->cells, *best = r->best;
	uint64_t iters = job->iters;
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
		if ((it & 0xffff) == 0 && it)
			floor_tick(r, tr, it);
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

/* Run trials from the job until none is left, keeping the shortest in
 * r->keep. A thread takes its trials in increasing order (`next` only
 * grows), so a strict < keeps the earliest of equal lengths. */
static void floor_run_trials(struct floor_run *r)
{
	struct floor_job *job = r->job;
	for (;;) {
		uint32_t tr = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
		if (tr >= job->trials)
			return;
		struct rng rng;
		rng_init(&rng, job->seed, RNG_CLASS_PLACEMENT, tr);
		double m = floor_anneal_one(r, &rng, tr);
		/* The moves of the trial not yet counted by floor_tick (ticks
		 * at moves 2^16, 2 x 2^16, ... below iters). */
		uint64_t ticked = job->iters ? ((job->iters - 1) >> 16) << 16 : 0;
		if (job->cells < 2)
			ticked = 0;
		atomic_fetch_add_explicit(&job->moves, job->iters - ticked, memory_order_relaxed);
		atomic_fetch_add_explicit(&job->done, 1, memory_order_relaxed);
		if (m < r->keep_m) {
			uint32_t *k = r->keep;
			r->keep = r->best;
			r->best = k;
			r->keep_m = m;
			r->keep_trial = tr;
		}
	}
}

static void *floor_thread_main(void *arg)
{
	struct floor_run *r = arg;
	floor_run_trials(r);
	pthread_mutex_lock(&r->job->mu);
	r->job->running--;
	pthread_cond_signal(&r->job->cv);
	pthread_mutex_unlock(&r->job->mu);
	return NULL;
}

static void floor_run_release(struct floor_run *r)
{
	free(r->sa.pos);
	free(r->sa.xy);
	free(r->sa.occ);
	free(r->best);
	free(r->keep);
}

/* r's working arrays; false (nothing left allocated) when out of memory. */
static bool floor_run_init(struct floor_run *r, struct floor_job *job)
{
	size_t c = job->C ? job->C : 1;
	*r = (struct floor_run){.job = job, .keep_m = INFINITY};
	r->sa = (struct floor_sa){.fg = job->fg, .cols = job->cols, .wx = job->wx, .wy = job->wy};
	r->sa.pos = floor_malloc(&job->fail_nth, c * sizeof *r->sa.pos);
	r->sa.xy = floor_malloc(&job->fail_nth, c * sizeof *r->sa.xy);
	r->sa.occ = floor_malloc(&job->fail_nth, (size_t)job->cells * sizeof *r->sa.occ);
	r->best = floor_malloc(&job->fail_nth, c * sizeof *r->best);
	r->keep = floor_malloc(&job->fail_nth, c * sizeof *r->keep);
	if (r->sa.pos && r->sa.xy && r->sa.occ && r->best && r->keep)
		return true;
	floor_run_release(r);
	return false;
}

/* Wait for the helper threads, drawing the progress meanwhile (the
 * caller's own trials are done), then join them. A quarter second
 * between draws: progress_update redraws at most every 0.2 s. */
static void floor_wait(struct floor_job *job, struct floor_run *run, uint32_t n_started)
{
	pthread_mutex_lock(&job->mu);
	while (job->running && job->pg) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&job->cv, &job->mu, &ts);
		pthread_mutex_unlock(&job->mu);
		floor_progress(job, 0, 0);
		pthread_mutex_lock(&job->mu);
	}
	pthread_mutex_unlock(&job->mu);
	for (uint32_t i = 1; i <= n_started; i++)
		pthread_join(run[i].thread, NULL);
}

/* The annealing's work bound: a move reads the cabinet-graph links of the
 * two cabinets it swaps, plus its draws, so moves x trials x (2 links a
 * cabinet + 8) steps, at a conservative 10^8 steps a second of one core
 * (user CPU measured on the shared 2-core host under load: 60 ns a move
 * on dln:n=64,d=4's 8 cabinets, 62 ns on torus:k=4x4x4x4x4's 64, 780 ns
 * on dragonfly:a=16,p=4's 129 cabinets of 128 links each: 3 to 5 x 10^8),
 * at most an hour, as topo describe's --bisection and --faults. Without
 * it --iterations 2^40 (its range; seed 003 used 10^8) x 5 trials on 8
 * cabinets ran for about 90 hours of CPU (60 ns a move). The defaults (10^6 x 5) stay far below it on
 * every network the port table holds (a 10,001-group dragonfly: 10^11
 * steps). */
#define FLOOR_STEPS_PER_S 1e8
#define FLOOR_MAX_WORK_S 3600.0

static int floor_check_work(uint32_t C, uint64_t links, uint64_t iterations, uint32_t trials, struct nl_err *err)
{
	double per_move = 2.0 * (double)links / (C ? C : 1) + 8.0;
	double work = (double)iterations * trials * per_move, max_work = FLOOR_MAX_WORK_S * FLOOR_STEPS_PER_S;
	if (work <= max_work)
		return 0;
	double min = work / FLOOR_STEPS_PER_S / 60, most = max_work / ((double)trials * per_move);
	return nl_errf(err, NL_EINVAL,
		       "annealing: %llu moves x %u trial%s on %u cabinets (%.3g steps a move: the cabinet links of "
		       "the two it swaps, and its draws) is %.5g steps, about %.0f %s of work at %.0g steps a second; expected at "
		       "most %.3g (about %.0f minutes): %.0f moves a trial or fewer (--iterations, "
		       "layout_iterations) or fewer trials",
		       (unsigned long long)iterations, trials, trials == 1 ? "" : "s", C, per_move, work,
		       min >= 120 ? min / 60 : min, min >= 120 ? "hours" : "minutes", FLOOR_STEPS_PER_S, max_work,
		       FLOOR_MAX_WORK_S / 60, floor(most));
}

int layout_place_anneal(struct layout *lo, const struct layout_model *m, uint64_t iterations, uint32_t trials,
			uint64_t seed, uint32_t threads, struct nl_err *err)
{
	struct floor_graph fg = {0};
	struct floor_run *run = NULL;
	uint32_t C = lo->n_cabinets, rows, cols, n_runs = 0, n_started = 0;
	uint32_t fail_nth = nl_test_env_count("NETLOOM_TEST_FAIL_ALLOC");
	int rc;

	if (trials == 0)
		return nl_errf(err, NL_ECONFIG, "--trials: value 0: expected at least 1 annealing trial");
	NL_CHECK(floor_graph_build(lo, &fg, &fail_nth, err));
	if ((rc = floor_check_work(C, fg.off[C], iterations, trials, err)) < 0) {
		floor_graph_release(&fg);
		return rc;
	}
	floor_grid(C, &rows, &cols);
	struct floor_job job = {
		.fg = &fg,
		.C = C,
		.cells = rows * cols,
		.cols = cols,
		.wx = m->cab_width_m,
		.wy = m->cab_depth_m,
		.iters = iterations,
		.seed = seed,
		.trials = trials,
		.pg = lo->progress,
		.fail_nth = fail_nth,
	};
	atomic_init(&job.next, 0);
	atomic_init(&job.moves, 0);
	atomic_init(&job.done, 0);
	pthread_mutex_init(&job.mu, NULL);
	pthread_cond_init(&job.cv, NULL);
	uint32_t want = nl_threads_for_items(threads, trials);
	run = floor_calloc(&job.fail_nth, want, sizeof *run);
	if (!run || !floor_run_init(&run[0], &job)) {
		rc = nl_errf(err, NL_ENOMEM, "layout: out of memory for an annealing trial (%u cabinet%s on %u cell%s)", C,
			     C == 1 ? "" : "s", job.cells, job.cells == 1 ? "" : "s");
		goto out;
	}
	run[0].is_caller = true;
	/* Fewer threads when memory or a thread runs short: the trials and
	 * their results do not depend on how many run them. */
	for (n_runs = 1; n_runs < want && floor_run_init(&run[n_runs], &job); n_runs++)
		;
	int e = 0;
	for (uint32_t i = 1; i < n_runs; i++) {
		pthread_mutex_lock(&job.mu);
		job.running++;
		pthread_mutex_unlock(&job.mu);
		if ((e = nl_thread_create(&run[i].thread, floor_thread_main, &run[i]))) {
			pthread_mutex_lock(&job.mu);
			job.running--;
			pthread_mutex_unlock(&job.mu);
			break;
		}
		n_started++;
	}
	if (e || n_runs < want)
		nl_thread_short_note(NL_THREAD_TRIALS, "the annealing's trials", want, n_started + 1,
				     e ? "pthread_create" : "a thread's arrays", e ? e : ENOMEM);
	job.n_threads = n_started + 1; /* read by the caller's thread alone (floor_progress) */
	floor_run_trials(&run[0]);
	floor_wait(&job, run, n_started);

	/* The shortest trial, the earliest on ties, as one thread running
	 * them in order keeps it. A run that got no trial keeps INFINITY. */
	struct floor_run *win = &run[0];
	for (uint32_t i = 1; i <= n_started; i++)
		if (run[i].keep_m < win->keep_m || (run[i].keep_m == win->keep_m && run[i].keep_trial < win->keep_trial))
			win = &run[i];
	free(lo->cell);
	lo->cell = win->keep;
	win->keep = NULL;
	lo->rows = rows;
	lo->cols = cols;
	lo->is_annealed = true;
	lo->iterations = iterations;
	lo->trials = trials;
	lo->seed = seed;
	lo->best_trial = win->keep_trial;
	rc = 0;
out:
	for (uint32_t i = 0; i < n_runs; i++)
		floor_run_release(&run[i]);
	free(run);
	pthread_mutex_destroy(&job.mu);
	pthread_cond_destroy(&job.cv);
	floor_graph_release(&fg);
	return rc;
}
