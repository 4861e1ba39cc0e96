/* Executing a rank's operations: MPI call accounting, blocking calls, the
 * wait/test families, request ids and one op of each kind. A rank runs ops
 * back to back at `now` until one takes time (compute) or blocks; what it
 * waits for wakes it (app_make_ready) and app_rank_run resumes it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app_internal.h"
#include "core/error.h"
#include "net/net.h"

/* --- communicators and request ids -------------------------------------------------- */

static int app_comm_resolve(struct app *a, uint32_t r, uint32_t id, uint32_t *idx, struct nl_err *err)
{
	uint32_t c = app_map_get(&a->comm_index, id);
	if (c == APP_NONE)
		return app_bad_op(a, r, err, "unknown communicator %" PRIu32 " (not in the manifest)", id);
	const struct app_comm *cm = &a->comms[c];
	if (!app_comm_has(cm, r))
		return app_bad_op(a, r, err, "rank %" PRIu32 " is not a member of communicator %" PRIu32, r,
				  id);
	*idx = c;
	return 0;
}

static uint32_t app_comm_size(const struct app *a, uint32_t c)
{
	return a->comms[c].size;
}

static int app_peer_check(struct app *a, uint32_t r, uint32_t c, int32_t peer, bool any_ok,
			  struct nl_err *err)
{
	if (peer == TRACE_PROC_NULL || (any_ok && peer == TRACE_ANY_SOURCE))
		return 0;
	if (peer < 0 || (uint32_t)peer >= app_comm_size(a, c))
		return app_bad_op(a, r, err, "peer %" PRId32 " outside communicator %" PRIu32 " of %" PRIu32
				  " ranks",
				  peer, a->comms[c].id, app_comm_size(a, c));
	return 0;
}

/* Whether rank r's trace created request id `id` before now (exact below
 * APP_IDS_EXACT, past it: at most the largest id created). */
static bool app_req_id_made(const struct app *a, uint32_t r, uint32_t id)
{
	const struct app_rank *rk = &a->ranks[r];
	if (id >= APP_IDS_EXACT)
		return id <= rk->id_max_made;
	uint32_t w = id / 64;
	return w < rk->ids_made_words && (rk->ids_made[w] >> (id % 64) & 1);
}

static int app_req_id_note(struct app *a, uint32_t r, uint32_t id)
{
	struct app_rank *rk = &a->ranks[r];
	if (id >= APP_IDS_EXACT) {
		if (id > rk->id_max_made)
			rk->id_max_made = id;
		return 0;
	}
	uint32_t w = id / 64;
	if (w >= rk->ids_made_words) {
		uint32_t n = 2 * rk->ids_made_words;
		if (n <= w)
			n = w + 1;
		if (n > APP_IDS_EXACT / 64)
			n = APP_IDS_EXACT / 64;
		uint64_t *b = realloc(rk->ids_made, n * sizeof *b);
		if (!b)
			return -1;
		memset(b + rk->ids_made_words, 0, (n - rk->ids_made_words) * sizeof *b);
		rk->ids_made = b;
		rk->ids_made_words = n;
	}
	rk->ids_made[w] |= 1ull << (id % 64);
	return 0;
}

/* The live request rank r's trace names `id`, or APP_NONE (counted: the
 * op goes on without it). */
static uint32_t app_req_lookup(struct app *a, uint32_t r, uint32_t id)
{
	uint32_t q = app_map_get(&a->req_map, (uint64_t)r << 32 | id);
	if (q != APP_NONE)
		return q;
	a->res.unknown_requests++;
	if (app_req_id_made(a, r, id)) {
		a->res.reqs_completed_before++;
	} else if (!a->res.reqs_never_created++) {
		a->res.never_created_rank = r;
		a->res.never_created_op = a->ranks[r].op_index;
		a->res.never_created_kind = a->ranks[r].op.kind;
		a->res.never_created_id = id;
	}
	return APP_NONE;
}

/* Give request q the trace id `id`. A live request still holding that id
 * (the trace reuses ids of requests it saw complete) is detached: it runs
 * to completion and frees itself. */
static int app_req_bind(struct app *a, uint32_t r, uint32_t q, uint32_t id)
{
	uint64_t key = (uint64_t)r << 32 | id;
	NL_CHECK(app_req_id_note(a, r, id));
	uint32_t old = app_map_get(&a->req_map, key);
	if (old != APP_NONE) {
		struct app_req *o = app_req_at(a, old);
		o->flags &= (uint16_t)~RF_USER;
		if (o->state == RS_ACTIVE)
			o->flags |= RF_DETACHED;
		else
			app_req_free(a, old);
	}
	struct app_req *rq = app_req_at(a, q);
	rq->flags |= RF_USER;
	rq->user_id = id;
	return app_map_put(&a->req_map, key, q);
}

static bool app_req_done(const struct app_req *rq)
{
	return rq->state != RS_ACTIVE;
}

/* A wait or test returned request q to the program. */
static void app_req_retire(struct app *a, uint32_t q)
{
	struct app_req *rq = app_req_at(a, q);
	rq->flags &= (uint16_t)~RF_WAITED;
	if (rq->flags & RF_PERSISTENT)
		rq->state = RS_INACTIVE;
	else
		app_req_free(a, q);
}

/* --- MPI call accounting ---------------------------------------------------------- */

static void app_call_begin(struct app *a, struct app_rank *rk)
{
	rk->t_call = rk->t_block = a->now;
	rk->t_peer_max = 0;
	rk->n_pending = 0;
	rk->wait_any = 0;
	rk->st.mpi_calls++;
}

/* The call returns now: the part of its time until the last awaited peer
 * had posted is waiting, the rest communication. */
static void app_call_end(struct app *a, struct app_rank *rk)
{
	uint64_t total = a->now - rk->t_call, wait = 0;
	if (rk->t_peer_max > rk->t_block)
		wait = (rk->t_peer_max < a->now ? rk->t_peer_max : a->now) - rk->t_block;
	rk->st.wait_ps += wait;
	rk->st.comm_ps += total - wait;
	if (a->on_call)
		a->on_call(a->on_call_ctx, (uint32_t)(rk - a->ranks), &rk->op, rk->t_call, a->now, wait);
}

/* Block rank r on internal requests qs[0..n) (a blocking call); 1 when they
 * are all complete already (the call returns), 0 when the rank waits. */
static int app_block_on(struct app *a, uint32_t r, const uint32_t *qs, uint32_t n)
{
	struct app_rank *rk = &a->ranks[r];
	rk->n_pending = 0;
	for (uint32_t i = 0; i < 2; i++)
		rk->block_req[i] = i < n ? qs[i] : APP_NONE;
	for (uint32_t i = 0; i < n; i++) {
		struct app_req *rq = app_req_at(a, qs[i]);
		if (rq->t_peer > rk->t_peer_max)
			rk->t_peer_max = rq->t_peer;
		if (!app_req_done(rq)) {
			rq->flags |= RF_WAITED;
			rk->n_pending++;
		}
	}
	if (rk->n_pending) {
		rk->state = RK_WAIT;
		return 0;
	}
	for (uint32_t i = 0; i < n; i++)
		app_req_free(a, qs[i]);
	rk->block_req[0] = rk->block_req[1] = APP_NONE;
	app_call_end(a, rk);
	return 1;
}

static void app_block_finish(struct app *a, uint32_t r)
{
	struct app_rank *rk = &a->ranks[r];
	for (uint32_t i = 0; i < 2; i++)
		if (rk->block_req[i] != APP_NONE) {
			app_req_free(a, rk->block_req[i]);
			rk->block_req[i] = APP_NONE;
		}
	app_call_end(a, rk);
}

/* --- wait and test families ---------------------------------------------------------- */

/* The request ids an op lists, and whether any one of them completes it. */
static const uint32_t *app_wait_ids(const struct trace_op *op, uint32_t *n, bool *any)
{
	*any = false;
	switch (op->kind) {
	case TOP_WAIT:
	case TOP_TEST:
		*n = 1;
		return &op->req;
	case TOP_WAITANY:
	case TOP_WAITSOME:
		/* The recording says which completed (listed first): wait for
		 * exactly those, so the program's later calls find the
		 * requests it expects. Without that, wait for any. */
		if (op->n_done) {
			*n = op->n_done < op->n_reqs ? op->n_done : op->n_reqs;
			return op->reqs;
		}
		*any = true;
		*n = op->n_reqs;
		return op->reqs;
	default:
		*n = op->n_reqs;
		return op->reqs;
	}
}

static void app_wait_retire(struct app *a, uint32_t r)
{
	struct app_rank *rk = &a->ranks[r];
	uint32_t n;
	bool any;
	app_wait_ids(&rk->op, &n, &any);
	const uint32_t *qs = n <= 1 ? &rk->wait_q1 : rk->wait_q;
	bool retired = false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q = qs[i];
		/* kind 0: freed above (the list named it twice). */
		if (q == APP_NONE || app_req_at(a, q)->kind == 0)
			continue;
		struct app_req *rq = app_req_at(a, q);
		rq->flags &= (uint16_t)~RF_WAITED;
		if (!app_req_done(rq))
			continue;
		/* waitany retires one request; waitsome every complete one. */
		if (any && retired && rk->op.kind == TOP_WAITANY)
			continue;
		app_req_retire(a, q);
		retired = true;
	}
}

static int app_wait_begin(struct app *a, uint32_t r)
{
	struct app_rank *rk = &a->ranks[r];
	uint32_t n, known = 0, active = 0;
	bool any;
	const uint32_t *ids = app_wait_ids(&rk->op, &n, &any);
	/* The requests stay put while the rank waits (only the rank itself
	 * frees its requests), so resolve the ids once. */
	uint32_t *qs = n <= 1 ? &rk->wait_q1 : rk->wait_q;
	app_call_begin(a, rk);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q = qs[i] = app_req_lookup(a, r, ids[i]);
		if (q == APP_NONE)
			continue;
		struct app_req *rq = app_req_at(a, q);
		if (rq->flags & RF_WAITED) /* listed twice */
			continue;
		known++;
		if (rq->t_peer > rk->t_peer_max)
			rk->t_peer_max = rq->t_peer;
		if (!app_req_done(rq)) {
			rq->flags |= RF_WAITED;
			active++;
		}
	}
	bool done = any ? (active < known || known == 0) : active == 0;
	if (!done) {
		rk->wait_any = any;
		rk->n_pending = any ? 1 : active;
		rk->block_req[0] = rk->block_req[1] = APP_NONE;
		rk->state = RK_WAIT;
		return 0;
	}
	app_wait_retire(a, r);
	app_call_end(a, rk);
	return 1;
}

static void app_test(struct app *a, uint32_t r)
{
	struct app_rank *rk = &a->ranks[r];
	const struct trace_op *op = &rk->op;
	const uint32_t *ids = op->kind == TOP_TEST ? &op->req : op->reqs;
	uint32_t n = op->kind == TOP_TEST ? 1 : op->n_reqs;
	app_call_begin(a, rk);
	if (op->kind == TOP_TESTALL) { /* all or nothing */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t q = app_map_get(&a->req_map, (uint64_t)r << 32 | ids[i]);
			if (q != APP_NONE && !app_req_done(app_req_at(a, q))) {
				app_call_end(a, rk);
				return;
			}
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q = app_req_lookup(a, r, ids[i]);
		if (q == APP_NONE || !app_req_done(app_req_at(a, q)))
			continue;
		app_req_retire(a, q);
		if (op->kind == TOP_TESTANY)
			break;
	}
	app_call_end(a, rk);
}

/* --- executing one op --------------------------------------------------------------- */

/* dur_ps times cpu_factor, rounded to the nearest ps; UINT64_MAX when that
 * is past 2^63 (llround's range), which app_compute_check refuses. */
static uint64_t app_scale_compute(const struct app *a, uint64_t dur_ps)
{
	if (a->cpu_factor_is_one)
		return dur_ps;
	double x = (double)dur_ps * a->cfg.cpu_factor;
	return x < 0x1p63 ? (uint64_t)llround(x) : UINT64_MAX;
}

/* A compute interval must end by NET_TIME_MAX_PS, the latest time the
 * backends take a send (net.h): past it the clock would wrap (an event
 * pushed before now) or the next send be refused. */
static int app_compute_check(const struct app *a, uint32_t r, uint64_t d_ps, struct nl_err *err)
{
	if (d_ps == 0 || (a->now <= NET_TIME_MAX_PS && d_ps <= NET_TIME_MAX_PS - a->now))
		return 0;
	const struct trace_op *op = &a->ranks[r].op;
	char dur[96];
	if (op->kind == TOP_COMPUTE && !a->cpu_factor_is_one) {
		double x = (double)(a->cfg.compute_time == APP_COMPUTE_CPU ? op->cpu_ps : op->dur_ps);
		snprintf(dur, sizeof dur, "%.0f ps times cpu_factor %g = %.0f", x, a->cfg.cpu_factor,
			 x * a->cfg.cpu_factor);
	} else {
		snprintf(dur, sizeof dur, "%" PRIu64, d_ps);
	}
	return app_bad_op(a, r, err,
			  "compute of %s ps at %" PRIu64 " ps: expected to end by %" PRIu64
			  " ps (2^62 ps, about 53 days; later times would overflow)",
			  dur, a->now, NET_TIME_MAX_PS);
}

/* Rank r computes d_ps from now: checked once here, then, for a compute
 * op (`is_op`; not a collective's reduction work), shown to on_call
 * before the interval starts. */
static int app_compute(struct app *a, uint32_t r, uint64_t d_ps, bool is_op, struct nl_err *err)
{
	struct app_rank *rk = &a->ranks[r];
	NL_CHECK(app_compute_check(a, r, d_ps, err));
	if (is_op && a->on_call)
		a->on_call(a->on_call_ctx, r, &rk->op, a->now, a->now + d_ps, 0);
	rk->st.compute_ps += d_ps;
	if (d_ps == 0)
		return 1;
	rk->compute_from = a->now;
	rk->compute_to = a->now + d_ps;
	rk->state = RK_COMPUTE;
	if (app_push_event(a, a->now + d_ps, EV_RESUME, r) < 0)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	return 0;
}

/* The reduction work a collective op carries (SimGrid traces give it in
 * flops; SimGrid's replay computes it on every rank once the collective is
 * done): 1 when there is none, else the rank computes it now. */
static int app_reduction_work(struct app *a, uint32_t r, struct nl_err *err)
{
	const struct trace_op *op = &a->ranks[r].op;
	if (op->kind < TOP_BARRIER || op->kind > TOP_EXSCAN || !(op->flops > 0))
		return 1;
	double s = op->flops / a->cfg.cpu_flops;
	if (s > 1e6)
		return app_bad_op(a, r, err, "%g flops is not a valid amount of work", op->flops);
	return app_compute(a, r, (uint64_t)llround(s * 1e12), false, err);
}

static int app_exec_p2p(struct app *a, uint32_t r, uint32_t c, struct nl_err *err)
{
	struct app_rank *rk = &a->ranks[r];
	const struct trace_op *op = &rk->op;
	uint32_t q[2];
	uint16_t mode = 0;
	switch (op->kind) {
	case TOP_SSEND:
	case TOP_ISSEND:
		mode = RF_SYNC;
		break;
	case TOP_BSEND:
		mode = RF_BUFFERED;
		break;
	default:
		break;
	}
	switch (op->kind) {
	case TOP_SEND:
	case TOP_SSEND:
	case TOP_BSEND:
	case TOP_RSEND:
		NL_CHECK(app_peer_check(a, r, c, op->peer, false, err));
		app_call_begin(a, rk);
		NL_CHECK(app_p2p_send(a, r, c, op->peer, op->tag, op->bytes, mode, APP_NONE, &q[0], err));
		return app_block_on(a, r, q, 1);
	case TOP_ISEND:
	case TOP_ISSEND:
		NL_CHECK(app_peer_check(a, r, c, op->peer, false, err));
		app_call_begin(a, rk);
		NL_CHECK(app_p2p_send(a, r, c, op->peer, op->tag, op->bytes, mode, APP_NONE, &q[0], err));
		if (app_req_bind(a, r, q[0], op->req) < 0)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		app_call_end(a, rk);
		return 1;
	case TOP_RECV:
		NL_CHECK(app_peer_check(a, r, c, op->peer, true, err));
		app_call_begin(a, rk);
		NL_CHECK(app_p2p_recv(a, r, c, op->peer, op->tag, op->bytes, 0, APP_NONE, &q[0], err));
		return app_block_on(a, r, q, 1);
	case TOP_IRECV:
		NL_CHECK(app_peer_check(a, r, c, op->peer, true, err));
		app_call_begin(a, rk);
		NL_CHECK(app_p2p_recv(a, r, c, op->peer, op->tag, op->bytes, 0, APP_NONE, &q[0], err));
		if (app_req_bind(a, r, q[0], op->req) < 0)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		app_call_end(a, rk);
		return 1;
	case TOP_SENDRECV:
		NL_CHECK(app_peer_check(a, r, c, op->peer, false, err));
		NL_CHECK(app_peer_check(a, r, c, op->recv_peer, true, err));
		app_call_begin(a, rk);
		NL_CHECK(app_p2p_recv(a, r, c, op->recv_peer, op->recv_tag, op->recv_bytes, 0, APP_NONE, &q[1],
				      err));
		NL_CHECK(app_p2p_send(a, r, c, op->peer, op->tag, op->bytes, 0, APP_NONE, &q[0], err));
		return app_block_on(a, r, q, 2);
	case TOP_SEND_INIT:
	case TOP_RECV_INIT: {
		bool send = op->kind == TOP_SEND_INIT;
		NL_CHECK(app_peer_check(a, r, c, op->peer, !send, err));
		app_call_begin(a, rk);
		NL_CHECK((send ? app_p2p_send : app_p2p_recv)(a, r, c, op->peer, op->tag, op->bytes,
							     RF_PERSISTENT, APP_NONE, &q[0], err));
		if (app_req_bind(a, r, q[0], op->req) < 0)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		app_call_end(a, rk);
		return 1;
	}
	}
	NL_BUG("replay: op kind %u is not point-to-point", op->kind);
}

static int app_exec(struct app *a, uint32_t r, struct nl_err *err)
{
	struct app_rank *rk = &a->ranks[r];
	const struct trace_op *op = &rk->op;
	uint32_t c = 0, q;

	switch (op->kind) {
	case TOP_COMPUTE: {
		uint64_t d = app_scale_compute(a, a->cfg.compute_time == APP_COMPUTE_CPU ? op->cpu_ps : op->dur_ps);
		return app_compute(a, r, d, true, err);
	}
	case TOP_COMPUTE_FLOPS: {
		double s = op->flops / a->cfg.cpu_flops;
		if (!(s >= 0) || s > 1e6)
			return app_bad_op(a, r, err, "%g flops is not a valid amount of work", op->flops);
		return app_compute(a, r, (uint64_t)llround(s * 1e12), true, err);
	}
	case TOP_INIT:
		app_call_begin(a, rk);
		app_call_end(a, rk);
		return 1;
	case TOP_FINALIZE:
		app_call_begin(a, rk);
		app_call_end(a, rk);
		rk->finalized = 1;
		rk->st.finish_ps = a->now;
		return 1;
	case TOP_SEND:
	case TOP_SSEND:
	case TOP_BSEND:
	case TOP_RSEND:
	case TOP_ISEND:
	case TOP_ISSEND:
	case TOP_RECV:
	case TOP_IRECV:
	case TOP_SENDRECV:
	case TOP_SEND_INIT:
	case TOP_RECV_INIT:
		NL_CHECK(app_comm_resolve(a, r, op->comm, &c, err));
		return app_exec_p2p(a, r, c, err);
	case TOP_START: {
		app_call_begin(a, rk);
		const uint32_t *ids = op->n_reqs ? op->reqs : &op->req;
		uint32_t n = op->n_reqs ? op->n_reqs : 1;
		for (uint32_t i = 0; i < n; i++) {
			q = app_req_lookup(a, r, ids[i]);
			if (q == APP_NONE)
				continue;
			struct app_req *rq = app_req_at(a, q);
			if (!(rq->flags & RF_PERSISTENT))
				return app_bad_op(a, r, err, "request %" PRIu32 " is not persistent", ids[i]);
			if (rq->state == RS_ACTIVE)
				return app_bad_op(a, r, err, "request %" PRIu32 " started while active", ids[i]);
			rq->op_index = rk->op_index;
			NL_CHECK(app_p2p_start(a, q, err));
		}
		app_call_end(a, rk);
		return 1;
	}
	case TOP_REQUEST_FREE:
		app_call_begin(a, rk);
		q = app_req_lookup(a, r, op->req);
		if (q != APP_NONE) {
			struct app_req *rq = app_req_at(a, q);
			app_map_del(&a->req_map, (uint64_t)r << 32 | op->req);
			rq->flags &= (uint16_t)~RF_USER;
			if (rq->state == RS_ACTIVE)
				rq->flags |= RF_DETACHED;
			else
				app_req_free(a, q);
		}
		app_call_end(a, rk);
		return 1;
	case TOP_CANCEL: {
		int want = op->flags & TRACE_F_NO_OUTCOME ? -1 : op->n_done != 0;
		bool done = false;
		app_call_begin(a, rk);
		a->res.cancels++;
		q = app_req_lookup(a, r, op->req);
		uint16_t req_kind = TOP__COUNT;
		if (q != APP_NONE) {
			req_kind = app_req_at(a, q)->op_kind;
			NL_CHECK(app_p2p_cancel(a, q, want, &done, err));
		}
		a->res.cancelled += done;
		if (want >= 0 && want != (int)done) {
			/* Recorded and simulated outcomes differ: count it and
			 * keep the first for the report (replay goes on). */
			if (!a->res.cancel_diverged++) {
				a->res.cancel_div_rank = r;
				a->res.cancel_div_op = rk->op_index;
				a->res.cancel_div_req_kind = req_kind;
				a->res.cancel_div_recorded = (uint8_t)want;
			}
		}
		app_call_end(a, rk);
		return 1;
	}
	case TOP_PROBE:
	case TOP_IPROBE:
		NL_CHECK(app_comm_resolve(a, r, op->comm, &c, err));
		NL_CHECK(app_peer_check(a, r, c, op->peer, true, err));
		app_call_begin(a, rk);
		if (op->peer == TRACE_PROC_NULL || op->kind == TOP_IPROBE ||
		    app_p2p_probe(a, r, c, op->peer, op->tag)) {
			app_call_end(a, rk);
			return 1;
		}
		rk->probe_comm = c;
		rk->probe_src = op->peer;
		rk->probe_tag = op->tag;
		rk->state = RK_PROBE;
		return 0;
	case TOP_WAIT:
	case TOP_WAITALL:
	case TOP_WAITANY:
	case TOP_WAITSOME:
		return app_wait_begin(a, r);
	case TOP_TEST:
	case TOP_TESTALL:
	case TOP_TESTANY:
	case TOP_TESTSOME:
		app_test(a, r);
		return 1;
	case TOP_COMM_SPLIT:
	case TOP_COMM_DUP:
	case TOP_COMM_CREATE: {
		/* Open MPI agrees on the new context id with allreduces and,
		 * for split, exchanges (color, key) with an allgather: one
		 * 8-byte collective on the parent stands for the call. */
		NL_CHECK(app_comm_resolve(a, r, op->comm, &c, err));
		struct trace_op syn = {.kind = op->kind == TOP_COMM_SPLIT ? TOP_ALLGATHER : TOP_ALLREDUCE,
				       .comm = op->comm,
				       .bytes = 8,
				       .recv_bytes = 8};
		/* MPI_Comm_idup (flag nonblocking): the same collective,
		 * completing with the op's request. */
		bool nb = op->flags & TRACE_F_NONBLOCKING;
		app_call_begin(a, rk);
		NL_CHECK(app_coll_start(a, r, &syn, c,
					op->kind == TOP_COMM_SPLIT ? APP_COLL_ALLGATHER : APP_COLL_ALLREDUCE,
					nb, &q, err));
		if (!nb)
			return app_block_on(a, r, &q, 1);
		if (app_req_bind(a, r, q, op->req) < 0)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		app_call_end(a, rk);
		return 1;
	}
	case TOP_COMM_FREE:
		app_call_begin(a, rk);
		app_call_end(a, rk);
		return 1;
	default:
		break;
	}
	if (op->kind >= TOP_BARRIER && op->kind <= TOP_EXSCAN) {
		bool nb = op->flags & TRACE_F_NONBLOCKING;
		NL_CHECK(app_comm_resolve(a, r, op->comm, &c, err));
		app_call_begin(a, rk);
		NL_CHECK(app_coll_start(a, r, op, c, APP_COLL__COUNT, nb, &q, err));
		if (!nb) {
			int rc = app_block_on(a, r, &q, 1);
			return rc == 1 ? app_reduction_work(a, r, err) : rc;
		}
		if (app_req_bind(a, r, q, op->req) < 0)
			return nl_errf(err, NL_ENOMEM, "replay: out of memory");
		app_call_end(a, rk);
		return app_reduction_work(a, r, err);
	}
	return app_bad_op(a, r, err, "unknown operation kind %u", op->kind);
}

/* Copy the op's arrays into the rank's buffers: the source may reuse its
 * storage on the next call, and non-blocking collectives copy again. */
static int app_own_op(struct app_rank *rk, struct nl_err *err)
{
	struct trace_op *op = &rk->op;
	uint32_t nc = op->n_counts;
	if ((op->send_counts || op->recv_counts) && nc) {
		if (2 * nc > rk->counts_cap) {
			uint64_t *b = realloc(rk->counts_buf, 2 * (size_t)nc * sizeof *b);
			if (!b)
				return nl_errf(err, NL_ENOMEM, "replay: out of memory");
			rk->counts_buf = b;
			rk->counts_cap = 2 * nc;
		}
		if (op->send_counts) {
			memcpy(rk->counts_buf, op->send_counts, nc * sizeof *rk->counts_buf);
			op->send_counts = rk->counts_buf;
		}
		if (op->recv_counts) {
			memcpy(rk->counts_buf + nc, op->recv_counts, nc * sizeof *rk->counts_buf);
			op->recv_counts = rk->counts_buf + nc;
		}
	} else {
		op->send_counts = op->recv_counts = NULL;
	}
	if (op->reqs && op->n_reqs) {
		if (op->n_reqs > rk->reqs_cap) {
			uint32_t *b = realloc(rk->reqs_buf, op->n_reqs * sizeof *b);
			if (!b)
				return nl_errf(err, NL_ENOMEM, "replay: out of memory");
			rk->reqs_buf = b;
			b = realloc(rk->wait_q, op->n_reqs * sizeof *b);
			if (!b)
				return nl_errf(err, NL_ENOMEM, "replay: out of memory");
			rk->wait_q = b;
			rk->reqs_cap = op->n_reqs;
		}
		memcpy(rk->reqs_buf, op->reqs, op->n_reqs * sizeof *rk->reqs_buf);
		op->reqs = rk->reqs_buf;
	} else {
		op->reqs = NULL;
		op->n_reqs = 0;
	}
	return 0;
}

/* Resume rank r after what it waited for, then run its ops until one takes
 * time or blocks. */
int app_rank_run(struct app *a, uint32_t r, struct nl_err *err)
{
	struct app_rank *rk = &a->ranks[r];
	rk->in_ready = 0;
	switch (rk->state) {
	case RK_COMPUTE:
		rk->state = RK_RUN;
		break;
	case RK_WAIT:
		if (rk->n_pending)
			return 0;
		rk->state = RK_RUN;
		if (rk->block_req[0] != APP_NONE) {
			app_block_finish(a, r);
			int rc = app_reduction_work(a, r, err);
			if (rc <= 0)
				return rc;
		} else {
			app_wait_retire(a, r);
			app_call_end(a, rk);
		}
		break;
	case RK_PROBE:
		rk->state = RK_RUN;
		app_call_end(a, rk);
		break;
	case RK_DONE:
		return 0;
	default:
		break;
	}
	for (;;) {
		rk->t_between = a->now;
		int rc = a->src.next(a->src.ctx, r, &rk->op, err);
		if (rc < 0 && a->src.name)
			return rc; /* it names the file and the rank (app_source.name) */
		if (rc < 0)
			return nl_err_prefix(err, "trace rank %" PRIu32 " op %" PRIu64, r, rk->st.ops);
		if (rc == 0) {
			rk->state = RK_DONE;
			a->ranks_done++;
			if (!rk->finalized)
				rk->st.finish_ps = a->now;
			return 0;
		}
		rk->op_index = rk->st.ops++;
		a->ops_done++;
		NL_CHECK(app_own_op(rk, err));
		rc = app_exec(a, r, err);
		if (rc <= 0)
			return rc;
	}
}

