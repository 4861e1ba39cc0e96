/* Replay engine: the event loop, events, setup and teardown.
 *
 * Time is a u64 count of picoseconds. Each iteration runs every ready rank
 * at `now`, then advances the network to the next application event (a
 * compute interval ending, a rank's message to itself) under net.h's
 * contract: the backend stops at the first instant a message completes, so
 * the app reacts at that instant. Events at one instant run in (time,
 * sequence) order and ready ranks in FIFO order, so a replay is
 * deterministic. A rank runs ops back to back until one takes time
 * (compute) or blocks (a wait, a blocking call, a probe); the requests it
 * waits on wake it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_internal.h"
#include "core/error.h"
#include "core/progress.h"
#include "net/net.h"

int app_bad_op(const struct app *a, uint32_t r, struct nl_err *err, const char *fmt, ...)
{
	char msg[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const struct app_rank *rk = &a->ranks[r];
	const char *name = trace_op_name(rk->op.kind);
	if (a->src.name)
		return nl_errf(err, NL_EFORMAT, "%s: rank %" PRIu32 " op %" PRIu64 " (%s): %s", a->src.name, r,
			       rk->op_index, name ? name : "?", msg);
	return nl_errf(err, NL_EFORMAT, "trace rank %" PRIu32 " op %" PRIu64 " (%s): %s", r, rk->op_index,
		       name ? name : "?", msg);
}

int app_err_at_op(const struct app *a, uint32_t r, uint64_t op_index, uint16_t kind, struct nl_err *err)
{
	const char *name = trace_op_name(kind);
	return nl_err_prefix(err, "%s: rank %" PRIu32 " op %" PRIu64 " (%s)", a->src.name ? a->src.name : "trace", r,
			     op_index, name ? name : "?");
}

/* --- events and the ready ring -------------------------------------------- */

/* Replay's own events: kind in the high half of the heap's data word. */
int app_push_event(struct app *a, uint64_t t_ps, uint32_t kind, uint32_t arg)
{
	return evheap_push(&a->events, t_ps, (uint64_t)kind << 32 | arg);
}

void app_make_ready(struct app *a, uint32_t r)
{
	struct app_rank *rk = &a->ranks[r];
	if (rk->in_ready)
		return;
	rk->in_ready = 1;
	/* The ring holds each rank at most once, so n_ranks slots suffice. */
	a->ready[(a->ready_head + a->ready_n++) % a->ready_cap] = r;
}

/* --- setup ------------------------------------------------------------------------ */

/* The source lists more communicators than replay numbers: said with
 * their count and the limit, as trace verify says it. */
static int app_too_many_comms(const struct app *a, struct nl_err *err)
{
	uint64_t n = 2; /* world and self, which the source may omit */
	for (uint32_t i = 0; i < a->src.n_comms; i++)
		n += a->src.comms[i].id != TRACE_COMM_WORLD && a->src.comms[i].id != TRACE_COMM_SELF;
	return trace_comms_over_limit(err, "", n);
}

static int app_add_comm(struct app *a, uint32_t id, uint32_t size, const uint32_t *world,
			struct nl_err *err)
{
	if (app_map_get(&a->comm_index, id) != APP_NONE)
		return nl_errf(err, NL_EFORMAT, "trace manifest: communicator %" PRIu32 " listed twice", id);
	if (a->n_comms >= APP_MAX_COMMS)
		return app_too_many_comms(a, err);
	/* Counted at once, so app_free releases it whatever fails below. */
	struct app_comm *cm = &a->comms[a->n_comms++];
	cm->id = id;
	cm->size = size;
	cm->world = malloc((size ? size : 1) * sizeof *cm->world);
	cm->coll_seq = calloc(size ? size : 1, sizeof *cm->coll_seq);
	if (!cm->world || !cm->coll_seq)
		goto oom;
	if (world) {
		memcpy(cm->world, world, size * sizeof *cm->world);
		cm->lo = UINT32_MAX;
		cm->hi = 0;
		for (uint32_t i = 0; i < size; i++)
			if (world[i] < a->n_ranks) {
				cm->lo = world[i] < cm->lo ? world[i] : cm->lo;
				cm->hi = world[i] > cm->hi ? world[i] : cm->hi;
			}
		if (cm->lo > cm->hi)
			cm->lo = cm->hi = 0;
		size_t span = (size_t)cm->hi - cm->lo + 1;
		cm->local_of = malloc(span * sizeof *cm->local_of);
		if (!cm->local_of)
			goto oom;
		for (size_t i = 0; i < span; i++)
			cm->local_of[i] = -1;
		for (uint32_t i = 0; i < size; i++) {
			if (world[i] >= a->n_ranks || cm->local_of[world[i] - cm->lo] >= 0)
				return nl_errf(err, NL_EFORMAT,
					       "trace manifest: communicator %" PRIu32 " member %" PRIu32
					       " is world rank %" PRIu32 " (%s)",
					       id, i, world[i],
					       world[i] >= a->n_ranks ? "out of range" : "listed twice");
			cm->local_of[world[i] - cm->lo] = (int32_t)i;
		}
	} else {
		for (uint32_t i = 0; i < size; i++)
			cm->world[i] = i;
	}
	if (app_map_put(&a->comm_index, id, a->n_comms - 1) < 0)
		goto oom;
	return 0;
oom:
	return nl_errf(err, NL_ENOMEM, "replay: out of memory for communicator %" PRIu32, id);
}

int app_new(struct app **out, const struct app_config *cfg, const struct app_source *src,
	    struct net_backend *net, const uint32_t *rank_ep, struct nl_err *err)
{
	if (src->n_ranks == 0 || src->n_ranks > APP_MAX_RANKS)
		return nl_errf(err, NL_ERANGE, "trace: %" PRIu32 " ranks (expected 1..%u)", src->n_ranks,
			       APP_MAX_RANKS);
	struct app *a = calloc(1, sizeof *a);
	if (!a)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	int rc = NL_ENOMEM;
	a->cfg = *cfg;
	a->src = *src;
	a->net = net;
	a->n_ranks = src->n_ranks;
	a->cpu_factor_is_one = cfg->cpu_factor == 1.0;
	app_pool_init(&a->reqs, sizeof(struct app_req));
	app_pool_init(&a->msgs, sizeof(struct app_msg));
	app_pool_init(&a->slots, sizeof(struct app_slot));
	app_pool_init(&a->pairs, sizeof(struct app_pair));
	app_pool_init(&a->colls, sizeof(struct app_coll_inst));
	if (app_map_init(&a->req_map, 1024) < 0 || app_map_init(&a->slot_map, 1024) < 0 ||
	    app_map_init(&a->pair_map, 1024) < 0 || app_map_init(&a->comm_index, 16) < 0)
		goto oom;

	a->ranks = calloc(a->n_ranks, sizeof *a->ranks);
	a->rank_ep = malloc(a->n_ranks * sizeof *a->rank_ep);
	a->ready_cap = a->n_ranks;
	a->ready = malloc(a->ready_cap * sizeof *a->ready);
	a->comms = calloc((size_t)src->n_comms + 2, sizeof *a->comms);
	a->rank_stats = calloc(a->n_ranks, sizeof *a->rank_stats);
	a->rank_stop = calloc(a->n_ranks, sizeof *a->rank_stop);
	if (!a->ranks || !a->rank_ep || !a->ready || !a->comms || !a->rank_stats || !a->rank_stop)
		goto oom;
	for (uint32_t r = 0; r < a->n_ranks; r++) {
		struct app_rank *rk = &a->ranks[r];
		rk->block_req[0] = rk->block_req[1] = APP_NONE;
		rk->wild_head = rk->wild_tail = rk->unx_head = rk->unx_tail = APP_NONE;
		a->rank_ep[r] = rank_ep ? rank_ep[r] : r;
	}

	/* World and self first (self is rank-relative: every rank is rank 0
	 * of its own), then the manifest's others. */
	uint32_t max_size = 1;
	rc = app_add_comm(a, TRACE_COMM_WORLD, a->n_ranks, NULL, err);
	if (rc == 0)
		rc = app_add_comm(a, TRACE_COMM_SELF, 1, NULL, err);
	if (rc == 0)
		a->comms[1].is_self = true;
	for (uint32_t i = 0; rc == 0 && i < src->n_comms; i++) {
		const struct trace_comm *tc = &src->comms[i];
		if (tc->id == TRACE_COMM_WORLD || tc->id == TRACE_COMM_SELF)
			continue;
		rc = app_add_comm(a, tc->id, tc->size, tc->world_ranks, err);
		if (tc->size > max_size)
			max_size = tc->size;
	}
	if (rc < 0)
		goto fail;
	if (a->n_ranks > max_size)
		max_size = a->n_ranks;
	a->xfer = malloc(2 * (size_t)max_size * sizeof *a->xfer);
	if (!a->xfer)
		goto oom;
	if (stats_hist_init(&a->lat_all) < 0)
		goto oom;
	for (int i = 0; i < APP_SIZE_CLASSES; i++)
		if (stats_hist_init(&a->lat_cls[i]) < 0)
			goto oom;
	*out = a;
	return 0;
oom:
	rc = nl_errf(err, NL_ENOMEM, "replay: out of memory for %" PRIu32 " ranks", src->n_ranks);
fail:
	app_free(a);
	return rc;
}

void app_set_call_observer(struct app *a, app_call_fn fn, void *ctx)
{
	a->on_call = fn;
	a->on_call_ctx = fn ? ctx : NULL;
}

static void app_jobs_release(struct app *a)
{
	for (uint32_t j = 0; a->job_lat && j < a->n_jobs; j++)
		stats_hist_release(&a->job_lat[j]);
	free(a->job_lat);
	free(a->job_of);
	free(a->job_start);
	a->job_lat = NULL;
	a->job_of = NULL;
	a->job_start = NULL;
	a->n_jobs = 0;
}

int app_set_jobs(struct app *a, uint32_t n_jobs, const uint32_t *rank_base, const uint64_t *start_ps,
		 struct nl_err *err)
{
	if (n_jobs == 0 || rank_base[0] != 0 || rank_base[n_jobs] != a->n_ranks)
		return nl_errf(err, NL_EINVAL, "jobs: %" PRIu32 " jobs do not cover the replay's %" PRIu32 " ranks",
			       n_jobs, a->n_ranks);
	app_jobs_release(a);
	a->job_of = malloc(a->n_ranks * sizeof *a->job_of);
	a->job_start = calloc(n_jobs, sizeof *a->job_start);
	a->job_lat = calloc(n_jobs, sizeof *a->job_lat);
	if (!a->job_of || !a->job_start || !a->job_lat)
		goto oom;
	a->n_jobs = n_jobs;
	for (uint32_t j = 0; j < n_jobs; j++) {
		if (rank_base[j + 1] < rank_base[j]) {
			app_jobs_release(a);
			return nl_errf(err, NL_EINVAL, "jobs: job %" PRIu32 "'s ranks end before they begin", j);
		}
		for (uint32_t r = rank_base[j]; r < rank_base[j + 1]; r++)
			a->job_of[r] = j;
		a->job_start[j] = start_ps ? start_ps[j] : 0;
		if (stats_hist_init(&a->job_lat[j]) < 0)
			goto oom;
	}
	return 0;
oom:
	app_jobs_release(a);
	return nl_errf(err, NL_ENOMEM, "replay: out of memory for %" PRIu32 " jobs", n_jobs);
}

void app_free(struct app *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->n_comms; i++) {
		free(a->comms[i].world);
		free(a->comms[i].local_of);
		free(a->comms[i].coll_seq);
	}
	free(a->comms);
	if (a->ranks)
		for (uint32_t r = 0; r < a->n_ranks; r++) {
			free(a->ranks[r].counts_buf);
			free(a->ranks[r].reqs_buf);
			free(a->ranks[r].wait_q);
			free(a->ranks[r].ids_made);
		}
	/* Collective records own count copies. */
	if (a->colls.chunks)
		for (uint32_t i = 0; i < a->colls.top; i++) {
			struct app_coll_inst *co = app_pool_at(&a->colls, i);
			free(co->counts);
			co->counts = NULL;
		}
	free(a->ranks);
	free(a->rank_ep);
	free(a->ready);
	free(a->rank_stats);
	free(a->rank_stop);
	evheap_free(&a->events);
	free(a->deliv);
	free(a->xfer);
	app_pool_release(&a->reqs);
	app_pool_release(&a->msgs);
	app_pool_release(&a->slots);
	app_pool_release(&a->pairs);
	app_pool_release(&a->colls);
	app_map_release(&a->req_map);
	app_map_release(&a->slot_map);
	app_map_release(&a->pair_map);
	app_map_release(&a->comm_index);
	stats_hist_release(&a->lat_all);
	for (int i = 0; i < APP_SIZE_CLASSES; i++)
		stats_hist_release(&a->lat_cls[i]);
	app_jobs_release(a);
	free(a);
}

/* --- the loop ------------------------------------------------------------------- */

static void app_on_deliver(void *ctx, uint64_t msg_id, uint64_t t_ps)
{
	struct app *a = ctx;
	(void)t_ps;
	if (a->n_deliv == a->cap_deliv) {
		size_t cap = a->cap_deliv ? 2 * a->cap_deliv : 256;
		uint64_t *d = realloc(a->deliv, cap * sizeof *d);
		if (!d) {
			a->deliv_err = NL_ENOMEM;
			return;
		}
		a->deliv = d;
		a->cap_deliv = cap;
	}
	a->deliv[a->n_deliv++] = msg_id;
}

static int app_drain_ready(struct app *a, struct nl_err *err)
{
	while (a->ready_n) {
		uint32_t r = a->ready[a->ready_head];
		a->ready_head = (a->ready_head + 1) % a->ready_cap;
		a->ready_n--;
		NL_CHECK(app_rank_run(a, r, err));
	}
	return 0;
}

static void app_finish_results(struct app *a)
{
	struct app_results *res = &a->res;
	res->n_ranks = a->n_ranks;
	res->runtime_ps = 0;
	for (uint32_t r = 0; r < a->n_ranks; r++) {
		a->rank_stats[r] = a->ranks[r].st;
		if (a->ranks[r].state == RK_DONE && a->ranks[r].st.finish_ps > res->runtime_ps)
			res->runtime_ps = a->ranks[r].st.finish_ps;
	}
	res->ranks = a->rank_stats;
	res->unmatched_msgs = a->msgs.live;
}

void app_stop_results(struct app *a)
{
	struct app_results *res = &a->res;
	app_finish_results(a);
	res->unmatched_msgs = 0;
	res->partial = true;
	res->stopped_ps = a->now;
	res->stop = a->rank_stop;
	for (uint32_t r = 0; r < a->n_ranks; r++) {
		const struct app_rank *rk = &a->ranks[r];
		struct app_rank_stats *st = &a->rank_stats[r];
		struct app_rank_stop *sp = &a->rank_stop[r];
		memset(sp, 0, sizeof *sp);
		switch (rk->state) {
		case RK_DONE:
			sp->finished = true;
			sp->until_ps = st->finish_ps;
			continue;
		case RK_COMPUTE:
			/* Ended (its resume is queued at now): complete. */
			if (rk->compute_to <= a->now) {
				sp->until_ps = rk->compute_to;
				break;
			}
			st->compute_ps -= rk->compute_to - rk->compute_from;
			sp->until_ps = rk->compute_from;
			sp->in_op = true;
			break;
		case RK_WAIT:
		case RK_PROBE: /* inside a blocking call since t_call */
			st->mpi_calls--;
			sp->until_ps = rk->t_call;
			sp->in_op = true;
			break;
		default: /* between ops */
			sp->until_ps = rk->t_between;
			break;
		}
		if (sp->in_op) {
			st->ops--;
			sp->op_kind = rk->op.kind;
		}
		st->finish_ps = 0;
	}
}

int app_run(struct app *a, struct progress *prog, struct nl_err *err)
{
	for (uint32_t r = 0; r < a->n_ranks; r++) {
		/* A job's ranks begin at its start time (app_set_jobs). */
		uint64_t t0 = a->job_start ? a->job_start[a->job_of[r]] : 0;
		if (t0 == 0)
			app_make_ready(a, r);
		else if (app_push_event(a, t0, EV_RESUME, r) < 0)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	}
	a->net_next = UINT64_MAX;
	uint64_t next_progress = 1u << 16;
	for (;;) {
		NL_CHECK(app_drain_ready(a, err));
		if (prog && a->ops_done >= next_progress) {
			char detail[64];
			next_progress = a->ops_done + (1u << 16);
			snprintf(detail, sizeof detail, "%" PRIu64 " ops, t=%.6f s", a->ops_done,
				 (double)a->now * 1e-12);
			progress_update(prog, a->src.total_ops ? (double)a->ops_done / (double)a->src.total_ops : -1,
					detail);
		}
		/* Nothing left anywhere, or every rank done (what is still in
		 * flight can only end unmatched): stop without running the
		 * network on, so its reached time stays the last event's. */
		if (!a->events.n && ((!a->net_dirty && a->net_next == UINT64_MAX) || a->ranks_done == a->n_ranks))
			break;
		uint64_t until = evheap_next(&a->events), reached, next;
		a->n_deliv = 0;
		a->net_dirty = false;
		NL_CHECK(a->net->ops->advance(a->net, until, app_on_deliver, a, &reached, &next, err));
		a->net_next = next;
		if (a->deliv_err)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		if (a->n_deliv) {
			a->now = reached;
			for (size_t i = 0; i < a->n_deliv; i++) {
				a->res.events++;
				NL_CHECK(app_p2p_deliver(a, (uint32_t)a->deliv[i], err));
			}
			continue;
		}
		if (!a->events.n)
			break;
		a->now = until;
		while (a->events.n && evheap_next(&a->events) == until) {
			struct evheap_ev ev = evheap_pop(&a->events);
			uint32_t kind = (uint32_t)(ev.data >> 32), arg = (uint32_t)ev.data;
			a->res.events++;
			if (kind == EV_RESUME)
				app_make_ready(a, arg);
			else
				NL_CHECK(app_p2p_deliver(a, arg, err));
		}
	}
	app_finish_results(a);
	uint32_t stuck = 0, first = APP_NONE, cut = 0, first_cut = APP_NONE;
	for (uint32_t r = 0; r < a->n_ranks; r++)
		if (a->ranks[r].state != RK_DONE) {
			stuck++;
			if (first == APP_NONE)
				first = r;
		} else if (!a->ranks[r].finalized) {
			cut++;
			if (first_cut == APP_NONE)
				first_cut = r;
		}
	if (!stuck)
		return 0;
	a->deadlocked = true;
	a->t_deadlock = a->now;
	const struct app_rank *rk = &a->ranks[first];
	const char *name = trace_op_name(rk->op.kind);
	/* A rank whose trace stopped short of its finalize left the others
	 * waiting for what it never sent: said first, as the likely cause. */
	char why[400] = "";
	const char *cause = cut && a->cut_why ? a->cut_why(a->cut_why_ctx, first_cut) : NULL;
	if (cut)
		snprintf(why, sizeof why, "; %" PRIu32 " rank%s ended without finalize (rank %" PRIu32
			 " after %" PRIu64 " op%s): %s", cut, cut > 1 ? "s" : "", first_cut,
			 a->ranks[first_cut].st.ops, a->ranks[first_cut].st.ops == 1 ? "" : "s",
			 cause ? cause : "a cut trace?");
	return nl_errf(err, NL_EDEADLOCK,
		       "replay deadlock at t=%.9f s: %" PRIu32 " of %" PRIu32
		       " ranks wait forever (rank %" PRIu32 " in op %" PRIu64 " %s)%s",
		       (double)a->now * 1e-12, stuck, a->n_ranks, first, rk->op_index, name ? name : "?", why);
}

uint64_t app_now(const struct app *a)
{
	return a->now;
}

void app_set_match_hook(struct app *a, app_match_fn fn, void *ctx)
{
	a->on_match = fn;
	a->match_ctx = ctx;
}

bool app_rank_done(const struct app *a, uint32_t r)
{
	return r < a->n_ranks && a->ranks[r].state == RK_DONE;
}

void app_set_cut_why(struct app *a, app_cut_why_fn fn, void *ctx)
{
	a->cut_why = fn;
	a->cut_why_ctx = ctx;
}

const struct app_results *app_results(const struct app *a)
{
	return &a->res;
}
