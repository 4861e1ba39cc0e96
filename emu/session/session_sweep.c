/* A sweep's points run whole, side by side: over the MPI ranks
 * (sweep --spread points under mpirun) or on threads of this process
 * (without it). Each point is packed as one record and a round's records
 * are taken in rate order by one function, so either way the results are
 * the sequential sweep's (session.c), byte for byte. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpus.h"
#include "core/error.h"
#include "core/pool.h"
#include "core/progress.h"
#include "net/net.h"
#include "session/session_internal.h"

/* One point run whole in this process (no partition exchange), packed for
 * the other ranks: status, error line, point. */
struct sweep_rec {
	int32_t rc;
	uint32_t msg_len;   /* bytes of the error line that follow, NUL included */
	uint64_t point_len; /* bytes of the packed point after it, 0: none */
};

/* The point at `rate` run whole with s's configuration but sc_in's
 * [simulation] (never under MPI), packed into a new *buf of *len bytes.
 * Reads s only, so threads may share it. Returns 0 (a failed point is in
 * the record) or NL_ENOMEM. */
static int sweep_run_packed(const nl_sim *s, const struct sim_cfg *sc_in, double rate, uint8_t **buf, size_t *len,
			    struct nl_err *err)
{
	struct net_point pt;
	struct nl_err perr = {0};
	struct sim_cfg sc = *sc_in;
	sc.mpi = NULL;
	int rc = net_run_point(&s->nc, &s->rc, &sc, &s->tc, s->topo, rate, &pt, &perr);
	const bool kept = rc == 0 || (rc == NL_EDEADLOCK && pt.deadlock);
	struct sweep_rec h = {.rc = rc, .msg_len = rc ? (uint32_t)strlen(perr.msg) + 1 : 0,
			      .point_len = kept ? net_point_packed_size(&pt) : 0};
	*len = sizeof h + h.msg_len + h.point_len;
	*buf = malloc(*len);
	if (!*buf) {
		net_point_release(&pt);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	memcpy(*buf, &h, sizeof h);
	memcpy(*buf + sizeof h, perr.msg, h.msg_len);
	if (kept)
		net_point_pack(&pt, *buf + sizeof h + h.msg_len);
	net_point_release(&pt);
	return 0;
}

/* A round of points run whole, each packed by sweep_run_packed (recs[r]
 * the record of rates[r]), taken in rate order as the sequential sweep
 * takes them: the points up to the first that stops the sweep join
 * s->points, those past it are dropped (*stop set). `n_ranks` > 0: the
 * records came from that many MPI ranks, rank r's failure is named with
 * it; 0: from threads of this process. *rc gets the last record's status;
 * returns 0, or a failure here alone (memory, a corrupt record). Shared
 * by the MPI ranks and the threads, so both merge as one process does. */
static int sweep_take_round(nl_sim *s, const double *rates, const uint8_t *const *recs, uint32_t n,
			    uint32_t n_ranks, unsigned flags, nl_point_fn on_point, void *ctx, struct nl_sweep *sw,
			    bool *by_callback, bool *stop, int *rc, struct nl_err *err)
{
	for (uint32_t r = 0; r < n; r++) {
		struct sweep_rec h;
		const uint8_t *p = recs[r];
		memcpy(&h, p, sizeof h);
		const char *line = (const char *)p + sizeof h;
		const bool kept = h.rc == 0 || (h.rc == NL_EDEADLOCK && h.point_len);
		/* The point's deadlock line as one process leaves it; a point
		 * that failed (out of memory on that rank's node) with the rank
		 * that ran it, as net_mpi_agree names a rank's failure
		 * (docs/scaling.md, "Failures on one rank"). */
		if (h.msg_len && (kept || r == 0 || !n_ranks))
			nl_errf(err, h.rc, "%s", line);
		else if (h.msg_len)
			nl_errf(err, h.rc, "MPI rank %" PRIu32 " of %" PRIu32 ": %s", r, n_ranks, line);
		*rc = h.rc;
		if (!kept) {
			*stop = true;
			return 0;
		}
		struct net_point *pt = NULL;
		int urc = session_point_slot(s, &pt, err);
		if (urc == 0)
			urc = net_point_unpack(p + sizeof h + h.msg_len, (size_t)h.point_len, pt, err);
		if (urc < 0)
			return urc;
		s->n_points++;
		int how = session_sweep_take(s, rates[r], flags, on_point, ctx, sw, rc);
		*by_callback = how == 2;
		*stop = how != 0;
		if (*stop)
			return 0;
	}
	return 0;
}

/* The sweep with its points spread over the MPI ranks (docs/scaling.md,
 * "Sweeps and compare over ranks"): in rounds of N points, point i runs
 * whole on rank i mod N; every rank gets every point of the round and
 * takes them in order as one process would, so all stop at the same point
 * and the points past it (at most N - 1) are dropped. */
int session_sweep_points(nl_sim *s, const double *rates, uint32_t n_rates, unsigned flags, nl_point_fn on_point,
			 void *ctx, struct nl_sweep *sw, bool *by_callback, struct nl_err *err)
{
	const uint32_t N = net_mpi_size(s->mpi), me = net_mpi_rank(s->mpi);
	size_t *at = malloc(((size_t)N + 1) * sizeof *at);
	const uint8_t **recs = malloc((size_t)N * sizeof *recs);
	int rc = at && recs ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	rc = net_mpi_agree(s->mpi, rc, err);
	bool stop = false;
	for (uint32_t base = 0; rc >= 0 && !stop && base < n_rates; base += N) {
		uint8_t *mine = NULL, *all = NULL;
		size_t len = 0;
		if (base + me < n_rates)
			rc = sweep_run_packed(s, &s->sc, rates[base + me], &mine, &len, err);
		rc = net_mpi_agree(s->mpi, rc, err);
		if (rc == 0)
			rc = net_mpi_allgather(s->mpi, mine, len, &all, at, err);
		free(mine);
		int urc = 0; /* a failure of this rank alone, agreed after the round */
		if (rc >= 0) {
			const uint32_t n = n_rates - base < N ? n_rates - base : N;
			for (uint32_t r = 0; r < n; r++)
				recs[r] = all + at[r];
			urc = sweep_take_round(s, rates + base, recs, n, N, flags, on_point, ctx, sw, by_callback,
					       &stop, &rc, err);
		}
		free(all);
		/* Every rank took the same records the same way; only a local
		 * failure (memory) can differ, and must end the sweep on all. */
		urc = net_mpi_agree(s->mpi, urc, err);
		if (urc < 0) {
			rc = urc;
			*by_callback = false;
		}
	}
	free(recs);
	free(at);
	return rc;
}

/* One point of session_sweep_threads: in, the rate and the configuration it runs
 * with; out, its record (sweep_run_packed's). */
struct sweep_job {
	const nl_sim *s;
	struct sim_cfg sc; /* s->sc with threads = 1, no progress line */
	double rate;
	uint8_t *rec;
	size_t len;
};

/* Point i of a round on one of pool_run's threads: < 0 only when its
 * record could not be made (memory). */
static int sweep_job_run(void *ctx, size_t i, struct nl_err *err)
{
	struct sweep_job *j = &((struct sweep_job *)ctx)[i];
	return sweep_run_packed(j->s, &j->sc, j->rate, &j->rec, &j->len, err);
}

/* The sweep with its points on T threads of this process (sweep --spread
 * points without mpirun; docs/scaling.md, "Sweeps on threads"): in rounds
 * of T points, each whole on its own thread and network (net_run_point
 * builds the network, traffic, random streams and pools of its point; the
 * threads share only s's bound configuration and topology, read-only),
 * then taken in rate order by sweep_take_round as the MPI ranks' points
 * are, so the results are the sequential sweep's for any T. Each network
 * runs on one thread (threads = 1 inside): the points are the parallelism.
 * A round is one pool_run (core/pool.h): point 0 on this thread, the
 * others as threads free up; a thread that cannot start leaves its points
 * to the others, every start of the round still tried, so the warning
 * counts the threads of the round that ran. One progress line, "points
 * k/n", for the whole sweep, drawn here as each round starts. */
int session_sweep_threads(nl_sim *s, const double *rates, uint32_t n_rates, unsigned flags, nl_point_fn on_point,
			  void *ctx, struct nl_sweep *sw, bool *by_callback, struct nl_err *err)
{
	const uint32_t T = nl_threads_for_items(s->sc.threads, n_rates) /* `threads` as --spread points reads it without MPI */;
	struct sweep_job *jobs = calloc(T, sizeof *jobs);
	int *rcs = calloc(T, sizeof *rcs);
	struct nl_err *errs = calloc(T, sizeof *errs);
	const uint8_t **recs = malloc(T * sizeof *recs);
	if (!jobs || !rcs || !errs || !recs) {
		free(jobs);
		free(rcs);
		free(errs);
		free(recs);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	struct progress pg;
	progress_init(&pg, "sweep");
	pg.enabled = pg.enabled && s->is_progress;
	char line[96];
	int rc = 0;
	bool stop = false;
	for (uint32_t base = 0; rc >= 0 && !stop && base < n_rates; base += T) {
		const uint32_t n = n_rates - base < T ? n_rates - base : T;
		snprintf(line, sizeof line, "points %" PRIu32 "/%" PRIu32 " (%" PRIu32 " running)", base, n_rates, n);
		progress_show(&pg, line);
		for (uint32_t i = 0; i < n; i++) {
			jobs[i] = (struct sweep_job){.s = s, .sc = s->sc, .rate = rates[base + i]};
			jobs[i].sc.mpi = NULL;
			jobs[i].sc.threads = 1;
			jobs[i].sc.is_quiet = true;
		}
		const struct pool_opts po = {.n = n,
					     .threads = T,
					     .run = sweep_job_run,
					     .ctx = jobs,
					     .what = "sweep's points",
					     .place = NL_THREAD_POINTS,
					     .is_every_start_tried = true};
		int prc = pool_run(&po, rcs, errs, err);
		if (prc < 0)
			rc = prc;
		/* A record that could not be made (out of memory) ends the
		 * sweep, the first in rate order naming it (pool_run ran
		 * every point before it); sim_sweep then drops the results,
		 * as on any failure of the sequential one. */
		for (uint32_t i = 0; i < n && rc >= 0; i++)
			if (rcs[i] < 0)
				rc = nl_errf(err, rcs[i], "%s", errs[i].msg);
		progress_done(&pg);
		if (rc >= 0) {
			for (uint32_t i = 0; i < n; i++)
				recs[i] = jobs[i].rec;
			int urc = sweep_take_round(s, rates + base, recs, n, 0, flags, on_point, ctx, sw, by_callback,
						   &stop, &rc, err);
			if (urc < 0) {
				rc = urc;
				*by_callback = false;
			}
		}
		for (uint32_t i = 0; i < n; i++)
			free(jobs[i].rec);
	}
	progress_done(&pg);
	free(jobs);
	free(rcs);
	free(errs);
	free(recs);
	return rc;
}
