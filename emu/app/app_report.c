/* Replay results as JSON, latency statistics and the deadlock report. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/app_internal.h"
#include "core/stats.h"

static const uint64_t app_class_lower[APP_SIZE_CLASSES] = {0, 1024, 16384, 65536, 1048576, 16777216};

static void app_latency_of(const struct stats_hist *h, struct app_latency *out)
{
	out->n = h->n;
	out->mean_ps = stats_hist_mean(h);
	out->p50_ps = stats_hist_percentile(h, 50);
	out->p90_ps = stats_hist_percentile(h, 90);
	out->p99_ps = stats_hist_percentile(h, 99);
	out->max_ps = h->n ? h->max : 0;
}

void app_job_latency(const struct app *a, uint32_t job, struct app_latency *out)
{
	memset(out, 0, sizeof *out);
	out->upper_bytes = UINT64_MAX;
	if (job < a->n_jobs)
		app_latency_of(&a->job_lat[job], out);
}

uint64_t app_job_runtime_ps(const struct app *a, uint32_t job)
{
	uint64_t end = 0;
	if (job >= a->n_jobs)
		return 0;
	for (uint32_t r = 0; r < a->n_ranks; r++)
		if (a->job_of[r] == job && a->ranks[r].st.finish_ps > end)
			end = a->ranks[r].st.finish_ps;
	return end > a->job_start[job] ? end - a->job_start[job] : 0;
}

void app_latency(const struct app *a, int cls, struct app_latency *out)
{
	const struct stats_hist *h = cls < 0 ? &a->lat_all : &a->lat_cls[cls];
	memset(out, 0, sizeof *out);
	out->lower_bytes = cls < 0 ? 0 : app_class_lower[cls];
	out->upper_bytes = cls < 0 || cls == APP_SIZE_CLASSES - 1 ? UINT64_MAX : app_class_lower[cls + 1];
	app_latency_of(h, out);
}

static double app_s(uint64_t ps)
{
	return (double)ps * 1e-12;
}

static json_t *app_latency_json(const struct app *a, int cls)
{
	struct app_latency l;
	app_latency(a, cls, &l);
	json_t *o = json_object();
	if (cls >= 0) {
		json_object_set_new(o, "min_bytes", json_integer((json_int_t)l.lower_bytes));
		json_object_set_new(o, "max_bytes", l.upper_bytes == UINT64_MAX
							    ? json_null()
							    : json_integer((json_int_t)l.upper_bytes - 1));
	}
	json_object_set_new(o, "n", json_integer((json_int_t)l.n));
	json_object_set_new(o, "mean_s", json_real(l.mean_ps * 1e-12));
	json_object_set_new(o, "p50_s", json_real(app_s(l.p50_ps)));
	json_object_set_new(o, "p90_s", json_real(app_s(l.p90_ps)));
	json_object_set_new(o, "p99_s", json_real(app_s(l.p99_ps)));
	json_object_set_new(o, "max_s", json_real(app_s(l.max_ps)));
	return o;
}

static json_t *app_count_json(uint64_t n, uint64_t bytes)
{
	json_t *o = json_object();
	json_object_set_new(o, "count", json_integer((json_int_t)n));
	json_object_set_new(o, "bytes", json_integer((json_int_t)bytes));
	return o;
}

json_t *app_results_json(const struct app *a)
{
	const struct app_results *res = &a->res;
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_t *rt = json_object();
	if (res->partial) { /* stopped: no predicted runtime, figures up to the stop */
		json_object_set_new(o, "partial", json_true());
		json_object_set_new(rt, "predicted_s", json_null());
		json_object_set_new(rt, "stopped_at_s", json_real(app_s(res->stopped_ps)));
	} else {
		json_object_set_new(rt, "predicted_s", json_real(app_s(res->runtime_ps)));
	}
	json_object_set_new(o, "runtime", rt);

	json_t *ranks = json_array();
	for (uint32_t r = 0; r < res->n_ranks; r++) {
		const struct app_rank_stats *st = &res->ranks[r];
		json_t *x = json_object();
		json_object_set_new(x, "rank", json_integer(r));
		json_object_set_new(x, "compute_s", json_real(app_s(st->compute_ps)));
		json_object_set_new(x, "comm_s", json_real(app_s(st->comm_ps)));
		json_object_set_new(x, "wait_s", json_real(app_s(st->wait_ps)));
		const struct app_rank_stop *sp = res->partial ? &res->stop[r] : NULL;
		json_object_set_new(x, "finish_s",
				    sp && !sp->finished ? json_null() : json_real(app_s(st->finish_ps)));
		json_object_set_new(x, "ops", json_integer((json_int_t)st->ops));
		json_object_set_new(x, "mpi_calls", json_integer((json_int_t)st->mpi_calls));
		json_object_set_new(x, "messages_sent", json_integer((json_int_t)st->msgs_sent));
		json_object_set_new(x, "bytes_sent", json_integer((json_int_t)st->bytes_sent));
		if (sp) {
			const char *k = sp->in_op ? trace_op_name(sp->op_kind) : NULL;
			json_object_set_new(x, "finished", json_boolean(sp->finished));
			json_object_set_new(x, "until_s", json_real(app_s(sp->until_ps)));
			json_object_set_new(x, "in_op", sp->in_op ? json_string(k ? k : "?") : json_null());
		}
		json_array_append_new(ranks, x);
	}
	json_object_set_new(o, "ranks", ranks);

	json_t *m = json_object();
	json_object_set_new(m, "count", json_integer((json_int_t)res->msgs));
	json_object_set_new(m, "bytes", json_integer((json_int_t)res->bytes));
	json_object_set_new(m, "p2p", app_count_json(res->p2p_msgs, res->p2p_bytes));
	json_object_set_new(m, "collective", app_count_json(res->coll_msgs, res->coll_bytes));
	json_object_set_new(m, "eager", json_integer((json_int_t)res->eager_msgs));
	json_object_set_new(m, "rendezvous", json_integer((json_int_t)res->rndv_msgs));
	json_object_set_new(m, "network_messages", json_integer((json_int_t)res->net_msgs));
	json_object_set_new(m, "unmatched", json_integer((json_int_t)res->unmatched_msgs));
	json_object_set_new(m, "to_self", json_integer((json_int_t)res->self_msgs));
	json_object_set_new(m, "unknown_requests", json_integer((json_int_t)res->unknown_requests));
	json_object_set_new(m, "requests_already_completed", json_integer((json_int_t)res->reqs_completed_before));
	json_object_set_new(m, "requests_never_created", json_integer((json_int_t)res->reqs_never_created));
	if (res->reqs_never_created) {
		json_t *d = json_object();
		const char *k = trace_op_name(res->never_created_kind);
		json_object_set_new(d, "rank", json_integer(res->never_created_rank));
		json_object_set_new(d, "op_index", json_integer((json_int_t)res->never_created_op));
		json_object_set_new(d, "op", k ? json_string(k) : json_null());
		json_object_set_new(d, "request", json_integer(res->never_created_id));
		json_object_set_new(m, "first_never_created", d);
	}
	json_object_set_new(m, "latency", app_latency_json(a, -1));
	json_t *by = json_array();
	for (int c = 0; c < APP_SIZE_CLASSES; c++)
		json_array_append_new(by, app_latency_json(a, c));
	json_object_set_new(m, "latency_by_size", by);
	json_object_set_new(o, "messages", m);

	json_t *cx = json_object();
	json_object_set_new(cx, "calls", json_integer((json_int_t)res->cancels));
	json_object_set_new(cx, "cancelled", json_integer((json_int_t)res->cancelled));
	json_object_set_new(cx, "divergences", json_integer((json_int_t)res->cancel_diverged));
	if (res->cancel_diverged) {
		json_t *d = json_object();
		const char *k = trace_op_name(res->cancel_div_req_kind);
		json_object_set_new(d, "rank", json_integer(res->cancel_div_rank));
		json_object_set_new(d, "op_index", json_integer((json_int_t)res->cancel_div_op));
		json_object_set_new(d, "request_op", k ? json_string(k) : json_null());
		json_object_set_new(d, "recorded", json_string(res->cancel_div_recorded ? "cancelled" : "not cancelled"));
		json_object_set_new(d, "replayed", json_string(res->cancel_div_recorded ? "not cancelled" : "cancelled"));
		json_object_set_new(cx, "first_divergence", d);
	}
	json_object_set_new(o, "cancel", cx);

	json_t *coll = json_object();
	for (unsigned c = 0; c < APP_COLL__COUNT; c++) {
		if (!res->coll_calls[c])
			continue;
		json_t *x = json_object(), *algs = json_object();
		json_object_set_new(x, "calls", json_integer((json_int_t)res->coll_calls[c]));
		for (unsigned g = 0; g < APP_ALG__COUNT; g++)
			if (res->coll_alg_used[c][g])
				json_object_set_new(algs, app_alg_name(g), json_integer(res->coll_alg_used[c][g]));
		json_object_set_new(x, "algorithms", algs);
		json_object_set_new(coll, app_coll_name(c), x);
	}
	json_object_set_new(o, "collectives", coll);
	json_object_set_new(o, "events", json_integer((json_int_t)res->events));
	return o;
}

/* --- deadlock report ------------------------------------------------------------- */

static void app_fmt_peer(char *buf, size_t cap, int32_t peer, bool src)
{
	if (peer == TRACE_ANY_SOURCE && src)
		snprintf(buf, cap, "any source");
	else if (peer == TRACE_PROC_NULL)
		snprintf(buf, cap, "MPI_PROC_NULL");
	else
		snprintf(buf, cap, "%" PRId32, peer);
}

static void app_fmt_tag(char *buf, size_t cap, int32_t tag)
{
	if (tag == TRACE_ANY_TAG)
		snprintf(buf, cap, "any");
	else
		snprintf(buf, cap, "%" PRId32, tag);
}

/* What a stuck request's peer, world rank w, has become when it has left
 * the replay: a cut trace (no finalize) is the usual cause of a deadlock
 * whose peer is gone, and the stuck rank's line alone did not say so. */
static void app_fmt_peer_ended(const struct app *a, uint32_t w, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (w >= a->n_ranks || a->ranks[w].state != RK_DONE)
		return;
	if (a->ranks[w].finalized)
		snprintf(buf, cap, ", which has finalized");
	else
		snprintf(buf, cap, ", whose trace ended after %" PRIu64 " op%s without finalize", a->ranks[w].st.ops,
			 a->ranks[w].st.ops == 1 ? "" : "s");
}

/* One line about an incomplete point-to-point request. */
static void app_describe_p2p(const struct app *a, const struct app_req *rq, char *buf, size_t cap)
{
	const struct app_comm *cm = &a->comms[rq->comm];
	char peer[32], tag[32];
	app_fmt_peer(peer, sizeof peer, rq->peer, rq->kind == REQ_RECV);
	app_fmt_tag(tag, sizeof tag, rq->tag);
	const char *what = rq->parent != APP_NONE ? " (inside the collective)" : "";
	char ended[96] = "";
	if (rq->kind == REQ_SEND) {
		uint32_t dst = app_comm_world(cm, rq->rank, (uint32_t)rq->peer);
		app_fmt_peer_ended(a, dst, ended, sizeof ended);
		snprintf(buf, cap,
			 "send to %s tag %s comm %" PRIu32 "%s, %" PRIu64
			 " bytes, rendezvous: no matching receive posted at world rank %" PRIu32 "%s",
			 peer, rq->tag < -1 ? "(internal)" : tag, cm->id, what, rq->bytes, dst, ended);
	} else {
		char from[48] = "any rank";
		if (rq->peer >= 0) {
			uint32_t src = app_comm_world(cm, rq->rank, (uint32_t)rq->peer);
			snprintf(from, sizeof from, "world rank %" PRIu32, src);
			app_fmt_peer_ended(a, src, ended, sizeof ended);
		}
		snprintf(buf, cap, "recv from %s tag %s comm %" PRIu32 "%s: no matching message from %s%s", peer,
			 rq->tag < -1 ? "(internal)" : tag, cm->id, what, from, ended);
	}
}

typedef void (*app_req_fn)(void *ctx, const char *line);

/* Describe the incomplete request q (a collective: its pending steps). */
static void app_describe_req(const struct app *a, uint32_t q, app_req_fn fn, void *ctx)
{
	const struct app_req *rq = app_req_at(a, q);
	char buf[512];
	if (rq->kind != REQ_COLL) {
		app_describe_p2p(a, rq, buf, sizeof buf);
		fn(ctx, buf);
		return;
	}
	const struct app_coll_inst *co = app_pool_at(&a->colls, rq->coll);
	snprintf(buf, sizeof buf,
		 "%s (%s) on comm %" PRIu32 " of %" PRIu32 " ranks: stuck in part %u step %" PRIu32,
		 app_coll_name(co->ckind), app_alg_name(co->alg), a->comms[co->comm].id, co->p,
		 (unsigned)co->part, co->step ? co->step - 1 : 0);
	fn(ctx, buf);
	for (uint32_t i = 0; i < a->reqs.top; i++) {
		const struct app_req *s = app_req_at(a, i);
		if (s->kind && s->kind != REQ_COLL && s->parent == rq->coll && s->state == RS_ACTIVE &&
		    s->rank == rq->rank) {
			app_describe_p2p(a, s, buf, sizeof buf);
			fn(ctx, buf);
		}
	}
}

static void app_collect_line(void *ctx, const char *line)
{
	json_array_append_new((json_t *)ctx, json_string(line));
}

/* Calls fn for each request rank r waits on. */
static void app_stuck_requests(const struct app *a, uint32_t r, app_req_fn fn, void *ctx)
{
	const struct app_rank *rk = &a->ranks[r];
	if (rk->state == RK_PROBE) {
		char buf[256], peer[32], tag[32];
		app_fmt_peer(peer, sizeof peer, rk->probe_src, true);
		app_fmt_tag(tag, sizeof tag, rk->probe_tag);
		snprintf(buf, sizeof buf, "probe for source %s tag %s comm %" PRIu32 ": no matching message",
			 peer, tag, a->comms[rk->probe_comm].id);
		fn(ctx, buf);
		return;
	}
	if (rk->block_req[0] != APP_NONE) {
		for (int i = 0; i < 2; i++)
			if (rk->block_req[i] != APP_NONE && app_req_at(a, rk->block_req[i])->state == RS_ACTIVE)
				app_describe_req(a, rk->block_req[i], fn, ctx);
		return;
	}
	const struct trace_op *op = &rk->op;
	const uint32_t *ids = op->kind == TOP_WAIT ? &op->req : op->reqs;
	uint32_t n = op->kind == TOP_WAIT ? 1 : op->n_reqs;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q = app_map_get(&a->req_map, (uint64_t)r << 32 | ids[i]);
		if (q != APP_NONE && app_req_at(a, q)->state == RS_ACTIVE &&
		    (app_req_at(a, q)->flags & RF_WAITED))
			app_describe_req(a, q, fn, ctx);
	}
}

static void app_op_summary(const struct app *a, uint32_t r, char *buf, size_t cap)
{
	const struct app_rank *rk = &a->ranks[r];
	const struct trace_op *op = &rk->op;
	const char *name = trace_op_name(op->kind);
	char peer[32], tag[32];
	app_fmt_peer(peer, sizeof peer, op->peer, true);
	app_fmt_tag(tag, sizeof tag, op->tag);
	switch (op->kind) {
	case TOP_SEND:
	case TOP_SSEND:
	case TOP_BSEND:
	case TOP_RSEND:
		snprintf(buf, cap, "op %" PRIu64 " %s to %s tag %s comm %" PRIu32 " (%" PRIu64 " bytes)",
			 rk->op_index, name, peer, tag, op->comm, op->bytes);
		return;
	case TOP_RECV:
	case TOP_PROBE:
		snprintf(buf, cap, "op %" PRIu64 " %s from %s tag %s comm %" PRIu32, rk->op_index, name, peer,
			 tag, op->comm);
		return;
	case TOP_SENDRECV: {
		char rpeer[32], rtag[32];
		app_fmt_peer(rpeer, sizeof rpeer, op->recv_peer, true);
		app_fmt_tag(rtag, sizeof rtag, op->recv_tag);
		snprintf(buf, cap,
			 "op %" PRIu64 " sendrecv to %s tag %s / from %s tag %s comm %" PRIu32, rk->op_index,
			 peer, tag, rpeer, rtag, op->comm);
		return;
	}
	case TOP_WAIT:
		snprintf(buf, cap, "op %" PRIu64 " wait on request %" PRIu32, rk->op_index, op->req);
		return;
	case TOP_WAITALL:
	case TOP_WAITANY:
	case TOP_WAITSOME:
		snprintf(buf, cap, "op %" PRIu64 " %s on %" PRIu32 " requests", rk->op_index, name, op->n_reqs);
		return;
	default:
		snprintf(buf, cap, "op %" PRIu64 " %s on comm %" PRIu32, rk->op_index, name ? name : "?",
			 op->comm);
		return;
	}
}

struct app_line_ctx {
	app_line_fn line;
	void *ctx;
};

static void app_indent_line(void *ctx, const char *s)
{
	struct app_line_ctx *l = ctx;
	char buf[600];
	snprintf(buf, sizeof buf, "    waits for: %s", s);
	l->line(l->ctx, buf);
}

uint32_t app_deadlock_report(const struct app *a, app_line_fn line, void *ctx)
{
	uint32_t n = 0;
	if (!a->deadlocked)
		return 0;
	for (uint32_t r = 0; r < a->n_ranks; r++) {
		if (a->ranks[r].state == RK_DONE)
			continue;
		char op[300], buf[400];
		app_op_summary(a, r, op, sizeof op);
		snprintf(buf, sizeof buf, "rank %" PRIu32 ": blocked in %s", r, op);
		line(ctx, buf);
		struct app_line_ctx l = {line, ctx};
		app_stuck_requests(a, r, app_indent_line, &l);
		n++;
	}
	return n;
}

json_t *app_deadlock_json(const struct app *a)
{
	json_t *o = json_object();
	json_object_set_new(o, "time_s", json_real(app_s(a->t_deadlock)));
	json_t *arr = json_array();
	for (uint32_t r = 0; a->deadlocked && r < a->n_ranks; r++) {
		const struct app_rank *rk = &a->ranks[r];
		if (rk->state == RK_DONE)
			continue;
		const char *name = trace_op_name(rk->op.kind);
		json_t *x = json_object();
		json_object_set_new(x, "rank", json_integer(r));
		json_object_set_new(x, "op_index", json_integer((json_int_t)rk->op_index));
		json_object_set_new(x, "op", json_string(name ? name : "?"));
		json_object_set_new(x, "peer", json_integer(rk->op.peer));
		json_object_set_new(x, "tag", json_integer(rk->op.tag));
		json_object_set_new(x, "comm", json_integer(rk->op.comm));
		json_t *w = json_array();
		app_stuck_requests(a, r, app_collect_line, w);
		json_object_set_new(x, "waits_for", w);
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "stuck", arr);
	return o;
}
