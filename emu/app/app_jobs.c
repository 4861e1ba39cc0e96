/* Several jobs in one replay (issue 13, `netloom interfere`): one
 * app_source whose ranks are the jobs' ranks one after another.
 *
 * Job j's rank r is world rank base[j] + r. Each job keeps its own
 * communicators: its world becomes a communicator of its ranks only, its
 * other communicators get ids of their own, and self stays self (it is
 * per rank anyway). Peers in ops are ranks within the op's communicator,
 * so only communicator ids need translating; the jobs' MPI semantics are
 * untouched, and two jobs interact only through the network they share.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/error.h"

/* A job's communicator ids, local (its trace's: any 32-bit values,
 * recorders hash them) to global (2, 3, ... in job order), sorted by the
 * local id for a binary search per op. */
struct app_jobs_ids {
	uint64_t *pair;            /* local << 32 | global, ascending */
	uint32_t n, cap;
};

struct app_jobs_source {
	uint32_t n_jobs;
	struct app_source *jobs;   /* [n_jobs] copies of the callers' sources */
	uint32_t *rank_base;       /* [n_jobs + 1] */
	struct app_jobs_ids *ids;  /* [n_jobs] */
	uint32_t *job_of;          /* [total ranks] */
	struct trace_comm *comms;
	uint32_t n_comms;
	uint64_t next_id;          /* the next global id to give */
};

/* The global id of job j's communicator c; self and null stay. An id the
 * manifest does not list (one a split creates as the replay runs) gets
 * the next free global id the first time a rank of the job names it, so
 * every member of the new communicator sees the same one. -1: out of ids
 * or memory. */
static int app_jobs_comm(struct app_jobs_source *js, uint32_t j, uint32_t *c)
{
	if (*c == TRACE_COMM_SELF || *c == TRACE_COMM_NULL)
		return 0;
	struct app_jobs_ids *t = &js->ids[j];
	uint32_t lo = 0, hi = t->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t k = (uint32_t)(t->pair[mid] >> 32);
		if (k == *c) {
			*c = (uint32_t)t->pair[mid];
			return 0;
		}
		if (k < *c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (js->next_id >= TRACE_COMM_NULL - 1)
		return -1;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 8;
		uint64_t *p = realloc(t->pair, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		t->pair = p;
		t->cap = cap;
	}
	memmove(&t->pair[lo + 1], &t->pair[lo], (size_t)(t->n - lo) * sizeof *t->pair);
	t->pair[lo] = (uint64_t)*c << 32 | js->next_id;
	t->n++;
	*c = (uint32_t)js->next_id++;
	return 0;
}

static int app_jobs_next(void *ctx, uint32_t rank, struct trace_op *op, struct nl_err *err)
{
	struct app_jobs_source *js = ctx;
	uint32_t j = js->job_of[rank];
	const struct app_source *s = &js->jobs[j];
	int rc = s->next(s->ctx, rank - js->rank_base[j], op, err);
	if (rc <= 0)
		return rc;
	if (app_jobs_comm(js, j, &op->comm) < 0 || app_jobs_comm(js, j, &op->new_comm) < 0)
		return nl_errf(err, NL_ENOMEM, "jobs: out of memory or communicator ids");
	return rc;
}

static int app_jobs_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void app_jobs_source_free(struct app_jobs_source *js)
{
	if (!js)
		return;
	for (uint32_t i = 0; i < js->n_comms; i++)
		free(js->comms[i].world_ranks);
	free(js->comms);
	free(js->jobs);
	free(js->rank_base);
	for (uint32_t j = 0; js->ids && j < js->n_jobs; j++)
		free(js->ids[j].pair);
	free(js->ids);
	free(js->job_of);
	free(js);
}

/* Append a communicator of `size` members, world rank base + w[i] (or
 * base + i when w is NULL). */
static int app_jobs_add_comm(struct app_jobs_source *js, uint32_t id, uint32_t size, const uint32_t *w,
			     uint32_t base)
{
	struct trace_comm *c = &js->comms[js->n_comms];
	c->world_ranks = malloc((size_t)(size ? size : 1) * sizeof *c->world_ranks);
	if (!c->world_ranks)
		return -1;
	c->id = id;
	c->size = size;
	for (uint32_t i = 0; i < size; i++)
		c->world_ranks[i] = base + (w ? w[i] : i);
	js->n_comms++;
	return 0;
}

int app_jobs_source_new(struct app_jobs_source **out, const struct app_source *jobs, uint32_t n_jobs,
			struct app_source *combined, struct nl_err *err)
{
	*out = NULL;
	if (n_jobs == 0)
		return nl_errf(err, NL_EINVAL, "jobs: no jobs");
	struct app_jobs_source *js = calloc(1, sizeof *js);
	size_t n_comms = 0;
	uint64_t total = 0, ops = 0;
	for (uint32_t j = 0; j < n_jobs; j++) {
		total += jobs[j].n_ranks;
		n_comms += (size_t)jobs[j].n_comms + 1;
		ops = ops == UINT64_MAX || !jobs[j].total_ops ? UINT64_MAX : ops + jobs[j].total_ops;
	}
	if (total > APP_JOBS_MAX_RANKS) {
		free(js);
		return nl_errf(err, NL_EUNSUPPORTED, "jobs: %" PRIu64 " ranks in all; expected at most %u", total,
			       APP_JOBS_MAX_RANKS);
	}
	if (js) {
		js->jobs = malloc(n_jobs * sizeof *js->jobs);
		js->rank_base = malloc(((size_t)n_jobs + 1) * sizeof *js->rank_base);
		js->ids = calloc(n_jobs, sizeof *js->ids);
		js->job_of = malloc((size_t)(total ? total : 1) * sizeof *js->job_of);
		js->comms = calloc(n_comms, sizeof *js->comms);
	}
	if (!js || !js->jobs || !js->rank_base || !js->ids || !js->job_of || !js->comms)
		goto oom;
	js->n_jobs = n_jobs;
	uint64_t next_id = TRACE_COMM_SELF + 1;
	js->rank_base[0] = 0;
	for (uint32_t j = 0; j < n_jobs; j++) {
		const struct app_source *s = &jobs[j];
		struct app_jobs_ids *t = &js->ids[j];
		js->jobs[j] = *s;
		js->rank_base[j + 1] = js->rank_base[j] + s->n_ranks;
		for (uint32_t r = 0; r < s->n_ranks; r++)
			js->job_of[js->rank_base[j] + r] = j;
		/* Ids 0 and 1 are the combined world and self; job j's world and
		 * other communicators get the next ids, self stays self. */
		t->cap = s->n_comms + 1;
		t->pair = malloc((size_t)t->cap * sizeof *t->pair);
		if (!t->pair)
			goto oom;
		bool has_world = false;
		for (uint32_t i = 0; i < s->n_comms; i++)
			has_world |= s->comms[i].id == TRACE_COMM_WORLD;
		if (!has_world) {
			if (next_id >= TRACE_COMM_NULL - 1)
				goto too_many;
			t->pair[t->n++] = (uint64_t)TRACE_COMM_WORLD << 32 | next_id;
			if (app_jobs_add_comm(js, (uint32_t)next_id++, s->n_ranks, NULL, js->rank_base[j]) < 0)
				goto oom;
		}
		for (uint32_t i = 0; i < s->n_comms; i++) {
			const struct trace_comm *c = &s->comms[i];
			if (c->id == TRACE_COMM_SELF || c->id == TRACE_COMM_NULL)
				continue;
			if (next_id >= TRACE_COMM_NULL - 1)
				goto too_many;
			t->pair[t->n++] = (uint64_t)c->id << 32 | next_id;
			if (app_jobs_add_comm(js, (uint32_t)next_id++, c->size, c->world_ranks, js->rank_base[j]) < 0)
				goto oom;
		}
		qsort(t->pair, t->n, sizeof *t->pair, app_jobs_cmp);
		js->next_id = next_id;
		for (uint32_t i = 1; i < t->n; i++)
			if (t->pair[i] >> 32 == t->pair[i - 1] >> 32) {
				uint32_t dup = (uint32_t)(t->pair[i] >> 32);
				app_jobs_source_free(js);
				return nl_errf(err, NL_EFORMAT, "jobs: job %" PRIu32 " lists communicator %" PRIu32 " twice",
					       j, dup);
			}
	}
	*combined = (struct app_source){
		.n_ranks = js->rank_base[n_jobs],
		.n_comms = js->n_comms,
		.comms = js->comms,
		.next = app_jobs_next,
		.ctx = js,
		.total_ops = ops == UINT64_MAX ? 0 : ops,
	};
	/* One flag for all: a job whose zero sizes may be unknown makes every
	 * job's zero-byte collectives replay in full. */
	for (uint32_t j = 0; j < n_jobs; j++)
		combined->zero_bytes_unknown |= jobs[j].zero_bytes_unknown;
	*out = js;
	return 0;
too_many:
	app_jobs_source_free(js);
	return nl_errf(err, NL_EUNSUPPORTED, "jobs: too many communicators in all");
oom:
	app_jobs_source_free(js);
	return nl_errf(err, NL_ENOMEM, "jobs: out of memory");
}

uint32_t app_jobs_rank_base(const struct app_jobs_source *js, uint32_t job)
{
	return js->rank_base[job];
}
