/* Jobs in a live session (issue 12, docs/live.md "Jobs"): `--jobs 4,4`
 * splits the ranks into jobs 1..J of consecutive world ranks. A HELLO must
 * name its rank's job, a SEND or RECV may only name a peer of the same job
 * (so one job's offenders can never reach the other's ranks), and a
 * BARRIER runs on the job's communicator, not on all ranks: jobs share
 * the network, never their synchronisation. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/adapters_internal.h"
#include "core/error.h"
#include "traces/trace.h"

int live_jobs_init(struct live_server *s, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	s->n_jobs = o->n_jobs ? o->n_jobs : 1;
	s->job_of = calloc(s->n, sizeof *s->job_of);
	s->job_delivered = calloc(s->n_jobs, sizeof *s->job_delivered);
	s->job_ready = malloc(s->n_jobs * sizeof *s->job_ready);
	if (!s->job_of || !s->job_delivered || !s->job_ready)
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	for (uint32_t j = 0; j < s->n_jobs; j++)
		s->job_ready[j] = LIVE_NONE;
	if (!o->n_jobs)
		return 0;
	uint64_t sum = 0;
	for (uint32_t j = 0; j < o->n_jobs; j++) {
		if (o->job_sizes[j] == 0)
			return nl_errf(err, NL_ECONFIG, "--jobs: job %" PRIu32 " has 0 ranks, expected at least 1", j + 1);
		sum += o->job_sizes[j];
	}
	if (sum != s->n)
		return nl_errf(err, NL_ECONFIG, "--jobs: sizes sum to %" PRIu64 " ranks, expected --ranks %" PRIu32, sum,
			       s->n);
	if (o->n_jobs == 1)
		return 0;
	s->comms = calloc(o->n_jobs, sizeof *s->comms);
	if (!s->comms)
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	uint32_t r = 0;
	for (uint32_t j = 0; j < o->n_jobs; j++) {
		struct trace_comm *c = &s->comms[j];
		c->id = 2 + j; /* after world (0) and self (1) */
		c->size = o->job_sizes[j];
		if (!(c->world_ranks = malloc(c->size * sizeof *c->world_ranks)))
			return nl_errf(err, NL_ENOMEM, "live: out of memory");
		for (uint32_t i = 0; i < c->size; i++, r++) {
			c->world_ranks[i] = r;
			s->job_of[r] = j;
		}
	}
	return 0;
}

void live_jobs_free(struct live_server *s)
{
	for (uint32_t j = 0; s->comms && j < s->n_jobs; j++)
		free(s->comms[j].world_ranks);
	free(s->comms);
	free(s->job_of);
	free(s->job_delivered);
	free(s->job_ready);
}

uint32_t live_job_comm(const struct live_server *s, uint32_t r)
{
	return s->comms ? s->comms[s->job_of[r]].id : TRACE_COMM_WORLD;
}

void live_job_range(const struct live_server *s, uint32_t r, uint32_t *first, uint32_t *size)
{
	const struct trace_comm *c = s->comms ? &s->comms[s->job_of[r]] : NULL;
	*first = c ? c->world_ranks[0] : 0;
	*size = c ? c->size : s->n;
}

const char *live_job_peer_check(const struct live_server *s, const char *what, uint32_t r, uint32_t p, char *buf,
				size_t cap)
{
	if (s->job_of[p] == s->job_of[r])
		return NULL;
	uint32_t first, size;
	live_job_range(s, r, &first, &size);
	snprintf(buf, cap,
		 "%s: peer %" PRIu32 " is in job %" PRIu32 ", expected a rank of job %" PRIu32 " (%" PRIu32 "..%" PRIu32
		 ")%s: ranks only talk within their job",
		 what, p, s->job_of[p] + 1, s->job_of[r] + 1, first, first + size - 1,
		 strcmp(what, "RECV") ? "" : " or -1 (any)");
	return buf;
}

/* Counts over one job's ranks. */
struct live_job_sum {
	uint32_t lo, n, finished, evicted, absent;
	uint32_t evicted_absent; /* of the evicted, those that never connected */
	uint64_t refused, lost_to, lost_from;
	bool has_finish;    /* some rank finished: finish_ps is the last one's */
	uint64_t finish_ps;
};

static struct live_job_sum live_job_sum(const struct live_server *s, uint32_t j)
{
	/* A job is a range of world ranks: only its own are visited. */
	struct live_job_sum t = {.lo = s->comms ? s->comms[j].world_ranks[0] : 0,
				 .n = s->comms ? s->comms[j].size : s->n};
	for (uint32_t r = t.lo; r < t.lo + t.n; r++) {
		const struct live_rank *rk = &s->ranks[r];
		t.finished += rk->state == LR_DONE;
		t.evicted += rk->state == LR_EVICTED;
		t.evicted_absent += rk->state == LR_EVICTED && rk->is_evicted_absent;
		t.absent += rk->state == LR_ABSENT;
		t.refused += rk->offences;
		t.lost_to += rk->lost_to;
		t.lost_from += rk->lost_from;
	}
	t.has_finish = live_finish_ps(s, t.lo, t.n, &t.finish_ps);
	return t;
}

json_t *live_jobs_json(const struct live_server *s)
{
	json_t *a = json_array();
	for (uint32_t j = 0; a && j < s->n_jobs; j++) {
		struct live_job_sum t = live_job_sum(s, j);
		/* finish_ps: null when no rank of the job finished (an evicted
		 * rank's stream ends where it went: not a finish). */
		/* evicted_never_connected: of the evicted, those evicted at
		 * --connect-timeout-ms, never having connected (the exit line's
		 * "never connected"); never_connected: not yet connected when
		 * the session ended (a stop), evicted or not counted apart. */
		json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:o}", "job",
						   (json_int_t)j + 1, "first_rank", (json_int_t)t.lo, "ranks",
						   (json_int_t)t.n, "finished", (json_int_t)t.finished, "evicted",
						   (json_int_t)t.evicted, "evicted_never_connected",
						   (json_int_t)t.evicted_absent, "never_connected", (json_int_t)t.absent,
						   "delivered", (json_int_t)s->job_delivered[j],
						   "refused_frames", (json_int_t)t.refused, "payloads_lost_to",
						   (json_int_t)t.lost_to, "payloads_lost_from", (json_int_t)t.lost_from,
						   "finish_ps", t.has_finish ? json_integer((json_int_t)t.finish_ps)
									     : json_null()));
	}
	return a;
}

void live_jobs_text(const struct live_server *s, FILE *f)
{
	if (s->n_jobs < 2)
		return;
	for (uint32_t j = 0; j < s->n_jobs; j++) {
		struct live_job_sum t = live_job_sum(s, j);
		char fin[40] = "none finished"; /* as the beside-trace lines say it */
		if (t.has_finish)
			snprintf(fin, sizeof fin, "%.9f s", (double)t.finish_ps * 1e-12);
		/* A one-rank job is "rank 3", and one message or frame is
		 * said in the singular, as the session's line says it. */
		char ranks[48];
		if (t.n == 1)
			snprintf(ranks, sizeof ranks, "rank %" PRIu32, t.lo);
		else
			snprintf(ranks, sizeof ranks, "ranks %" PRIu32 "-%" PRIu32, t.lo, t.lo + t.n - 1);
		uint64_t msgs = s->job_delivered[j];
		/* The evicted that never connected are said among the evicted,
		 * as the exit line says them ("all 2 ranks were evicted (1
		 * never connected)"); the ranks not connected when a stop
		 * ended the session are apart (JSON never_connected). */
		char absent[64] = "";
		if (t.evicted_absent)
			snprintf(absent, sizeof absent, " (%" PRIu32 " never connected)", t.evicted_absent);
		fprintf(f, "  job %" PRIu32 " (%s): %" PRIu32 " finished, %" PRIu32 " evicted%s, %" PRIu32
			   " not yet connected at the end; %" PRIu64 " message%s delivered, %" PRIu64
			   " refused frame%s, finish %s\n",
			j + 1, ranks, t.finished, t.evicted, absent, t.absent, msgs, msgs == 1 ? "" : "s", t.refused,
			t.refused == 1 ? "" : "s", fin);
	}
}

/* "job 2 (ranks 4-7): none of its 4 ranks ever connected": why a job of
 * which no rank finished did not, at the end of buf. */
static void live_job_why(const struct live_job_sum *t, uint32_t j, char *buf, size_t cap)
{
	size_t at = strlen(buf);
	if (at >= cap)
		return;
	char ranks[48];
	if (t->n == 1)
		snprintf(ranks, sizeof ranks, "rank %" PRIu32, t->lo);
	else
		snprintf(ranks, sizeof ranks, "ranks %" PRIu32 "-%" PRIu32, t->lo, t->lo + t->n - 1);
	char why[96];
	if (t->n == 1)
		snprintf(why, sizeof why, "rank %" PRIu32 " %s", t->lo,
			 t->evicted_absent ? "never connected" : "was evicted");
	else if (t->evicted_absent == t->n)
		snprintf(why, sizeof why, "none of its %" PRIu32 " ranks ever connected", t->n);
	else if (t->evicted_absent)
		snprintf(why, sizeof why, "all %" PRIu32 " ranks were evicted (%" PRIu32 " never connected)", t->n,
			 t->evicted_absent);
	else
		snprintf(why, sizeof why, "all %" PRIu32 " ranks were evicted", t->n);
	snprintf(buf + at, cap - at, "job %" PRIu32 " (%s): %s", j + 1, ranks, why);
}

/* Jobs named in full in the line of live_jobs_unfinished; more are counted. */
#define LIVE_JOBS_NAMED 4u

int live_jobs_unfinished(const struct live_server *s, const char *rec, struct nl_err *err)
{
	if (s->n_jobs < 2)
		return 0;
	char line[NL_ERR_MSG_MAX] = "";
	uint32_t bad = 0;
	for (uint32_t j = 0; j < s->n_jobs; j++) {
		struct live_job_sum t = live_job_sum(s, j);
		if (t.finished)
			continue;
		if (bad < LIVE_JOBS_NAMED) {
			if (bad)
				snprintf(line + strlen(line), sizeof line - strlen(line), "; ");
			live_job_why(&t, j, line, sizeof line);
		}
		bad++;
	}
	if (!bad)
		return 0;
	char more[64] = "";
	if (bad > LIVE_JOBS_NAMED)
		snprintf(more, sizeof more, "; %" PRIu32 " more (the report gives every job)", bad - LIVE_JOBS_NAMED);
	if (bad == 1)
		return nl_errf(err, NL_ESTATE, "no rank finished in %s%s", line, rec);
	return nl_errf(err, NL_ESTATE, "no rank finished in %" PRIu32 " of %" PRIu32 " jobs: %s%s%s", bad, s->n_jobs,
		       line, more, rec);
}
