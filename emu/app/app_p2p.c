/* Point-to-point: requests, MPI matching and the eager/rendezvous protocols.
 *
 * Matching follows MPI 3.1 §3.5: a receive matches on (source, tag,
 * communicator), MPI_ANY_SOURCE and MPI_ANY_TAG are wildcards (ANY_TAG
 * never matches the negative tags collectives use internally), and
 * messages between one pair match in the order they were sent
 * (non-overtaking). The network may deliver out of order, so every
 * matchable message (eager, RTS) carries a per-(source, destination)
 * sequence number and an early arrival waits in its pair's held list until
 * the ones before it have arrived, as Open MPI's ob1 does with its
 * "cant_match" list. Receivers keep, per (communicator, source), a list of
 * posted receives and of unexpected messages, plus one list of ANY_SOURCE
 * receives and one of all unexpected messages in arrival order; a message
 * takes the oldest matching receive of the first two kinds (post order),
 * a receive the oldest matching unexpected message.
 *
 * Protocols (Open MPI ob1 in outline): a message of at most
 * eager_threshold bytes goes at once and the send completes locally; a
 * larger one (and every Ssend) sends a zero-byte RTS, the receiver answers
 * a zero-byte CTS once a matching receive exists, and the payload follows
 * as DATA; both sides complete when DATA arrives. Bsend completes locally
 * whatever the size.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "app/app_internal.h"
#include "core/error.h"
#include "net/net.h"

/* --- requests -------------------------------------------------------------- */

uint32_t app_req_new(struct app *a, uint32_t r, uint8_t kind, uint16_t flags)
{
	uint32_t q = app_pool_alloc(&a->reqs);
	if (q == APP_NONE)
		return APP_NONE;
	struct app_req *rq = app_req_at(a, q);
	const struct app_rank *rk = &a->ranks[r];
	rq->next = rq->prev = APP_NONE;
	rq->kind = kind;
	rq->state = RS_INACTIVE;
	rq->flags = flags;
	rq->op_kind = rk->op.kind;
	rq->rank = r;
	rq->user_id = APP_NONE;
	rq->parent = APP_NONE;
	rq->coll = APP_NONE;
	rq->op_index = rk->op_index;
	return q;
}

void app_req_free(struct app *a, uint32_t q)
{
	struct app_req *rq = app_req_at(a, q);
	if (rq->flags & RF_USER) {
		app_map_del_val(&a->req_map, (uint64_t)rq->rank << 32 | rq->user_id, q);
	}
	if (rq->kind == REQ_COLL && rq->coll != APP_NONE)
		app_coll_free(a, rq->coll);
	rq->kind = 0;
	app_pool_free(&a->reqs, q);
}

int app_req_complete(struct app *a, uint32_t q, struct nl_err *err)
{
	struct app_req *rq = app_req_at(a, q);
	rq->state = RS_DONE;
	if (rq->parent != APP_NONE) {
		int rc = app_coll_sub_done(a, rq->parent, rq, err);
		app_req_free(a, q);
		return rc;
	}
	if (rq->flags & RF_DETACHED) {
		app_req_free(a, q);
		return 0;
	}
	if (rq->flags & RF_WAITED) {
		struct app_rank *rk = &a->ranks[rq->rank];
		if (rq->t_peer > rk->t_peer_max)
			rk->t_peer_max = rq->t_peer;
		if (rk->wait_any)
			rk->n_pending = 0;
		else if (rk->n_pending)
			rk->n_pending--;
		if (rk->n_pending == 0)
			app_make_ready(a, rq->rank);
	}
	return 0;
}

/* --- match lists ------------------------------------------------------------ */

static inline uint64_t app_slot_key(uint32_t dst, uint32_t comm, int32_t src_local)
{
	return (uint64_t)dst << 40 | (uint64_t)comm << 24 | (uint32_t)src_local;
}

static inline struct app_slot *app_slot_at(const struct app *a, uint32_t s)
{
	return app_pool_at(&a->slots, s);
}

static uint32_t app_slot_find(const struct app *a, uint32_t dst, uint32_t comm, int32_t src_local)
{
	return app_map_get(&a->slot_map, app_slot_key(dst, comm, src_local));
}

static uint32_t app_slot_get(struct app *a, uint32_t dst, uint32_t comm, int32_t src_local)
{
	uint64_t key = app_slot_key(dst, comm, src_local);
	uint32_t s = app_map_get(&a->slot_map, key);
	if (s != APP_NONE) {
		struct app_slot *sl = app_slot_at(a, s);
		if (sl->idle) {
			sl->idle = 0;
			a->idle_slots--;
		}
		return s;
	}
	s = app_pool_alloc(&a->slots);
	if (s == APP_NONE)
		return APP_NONE;
	if (app_map_put(&a->slot_map, key, s) < 0) {
		app_pool_free(&a->slots, s);
		return APP_NONE;
	}
	struct app_slot *sl = app_slot_at(a, s);
	sl->posted_head = sl->posted_tail = sl->unx_head = sl->unx_tail = APP_NONE;
	sl->key = key;
	return s;
}

static bool app_slot_idle(const void *rec)
{
	return ((const struct app_slot *)rec)->idle;
}

/* The slot's lists may have emptied: mark it idle, and sweep the idle ones
 * when they outnumber the busy ones. */
static void app_slot_maybe_drop(struct app *a, uint32_t s)
{
	struct app_slot *sl = app_slot_at(a, s);
	if (sl->idle || sl->posted_head != APP_NONE || sl->unx_head != APP_NONE)
		return;
	sl->idle = 1;
	if (++a->idle_slots > 4096 && 2 * a->idle_slots > a->slot_map.n)
		a->idle_slots -= app_map_sweep(&a->slot_map, &a->slots, app_slot_idle);
}

static inline bool app_tag_match(int32_t want, int32_t have)
{
	return want == have || (want == TRACE_ANY_TAG && have >= 0);
}

/* Unlink request q from a doubly linked list given by head/tail. */
static void app_req_unlink(struct app *a, uint32_t q, uint32_t *head, uint32_t *tail)
{
	struct app_req *rq = app_req_at(a, q);
	if (rq->prev != APP_NONE)
		app_req_at(a, rq->prev)->next = rq->next;
	else
		*head = rq->next;
	if (rq->next != APP_NONE)
		app_req_at(a, rq->next)->prev = rq->prev;
	else
		*tail = rq->prev;
	rq->next = rq->prev = APP_NONE;
}

static void app_req_append(struct app *a, uint32_t q, uint32_t *head, uint32_t *tail)
{
	struct app_req *rq = app_req_at(a, q);
	rq->next = APP_NONE;
	rq->prev = *tail;
	if (*tail != APP_NONE)
		app_req_at(a, *tail)->next = q;
	else
		*head = q;
	*tail = q;
}

/* Remove a posted receive from whichever list holds it. */
static void app_posted_remove(struct app *a, uint32_t q)
{
	struct app_req *rq = app_req_at(a, q);
	if (!(rq->flags & RF_POSTED))
		return;
	rq->flags &= (uint16_t)~RF_POSTED;
	if (rq->peer == TRACE_ANY_SOURCE) {
		struct app_rank *rk = &a->ranks[rq->rank];
		app_req_unlink(a, q, &rk->wild_head, &rk->wild_tail);
		return;
	}
	uint32_t s = app_slot_find(a, rq->rank, rq->comm, rq->peer);
	NL_ASSERT(s != APP_NONE);
	struct app_slot *sl = app_slot_at(a, s);
	app_req_unlink(a, q, &sl->posted_head, &sl->posted_tail);
	app_slot_maybe_drop(a, s);
}

/* The oldest posted receive at `dst` that message m matches. */
static uint32_t app_posted_find(const struct app *a, const struct app_msg *m)
{
	uint32_t best = APP_NONE;
	uint32_t s = app_slot_find(a, m->dst, m->comm, m->src_local);
	if (s != APP_NONE)
		for (uint32_t q = app_slot_at(a, s)->posted_head; q != APP_NONE; q = app_req_at(a, q)->next)
			if (app_tag_match(app_req_at(a, q)->tag, m->tag)) {
				best = q;
				break;
			}
	for (uint32_t q = a->ranks[m->dst].wild_head; q != APP_NONE; q = app_req_at(a, q)->next) {
		const struct app_req *rq = app_req_at(a, q);
		if (rq->comm == m->comm && app_tag_match(rq->tag, m->tag)) {
			if (best == APP_NONE || rq->post_seq < app_req_at(a, best)->post_seq)
				best = q;
			break;
		}
	}
	return best;
}

/* The oldest unexpected message at rank r matching (comm, src, tag). */
static uint32_t app_unexpected_find(const struct app *a, uint32_t r, uint32_t comm, int32_t src, int32_t tag)
{
	if (src != TRACE_ANY_SOURCE) {
		uint32_t s = app_slot_find(a, r, comm, src);
		if (s == APP_NONE)
			return APP_NONE;
		for (uint32_t m = app_slot_at(a, s)->unx_head; m != APP_NONE; m = app_msg_at(a, m)->next)
			if (app_tag_match(tag, app_msg_at(a, m)->tag))
				return m;
		return APP_NONE;
	}
	for (uint32_t m = a->ranks[r].unx_head; m != APP_NONE; m = app_msg_at(a, m)->all_next) {
		const struct app_msg *ms = app_msg_at(a, m);
		if (ms->comm == comm && app_tag_match(tag, ms->tag))
			return m;
	}
	return APP_NONE;
}

static int app_unexpected_append(struct app *a, uint32_t m)
{
	struct app_msg *ms = app_msg_at(a, m);
	uint32_t s = app_slot_get(a, ms->dst, ms->comm, ms->src_local);
	if (s == APP_NONE)
		return NL_ENOMEM;
	struct app_slot *sl = app_slot_at(a, s);
	ms->next = APP_NONE;
	ms->prev = sl->unx_tail;
	if (sl->unx_tail != APP_NONE)
		app_msg_at(a, sl->unx_tail)->next = m;
	else
		sl->unx_head = m;
	sl->unx_tail = m;

	struct app_rank *rk = &a->ranks[ms->dst];
	ms->all_next = APP_NONE;
	ms->all_prev = rk->unx_tail;
	if (rk->unx_tail != APP_NONE)
		app_msg_at(a, rk->unx_tail)->all_next = m;
	else
		rk->unx_head = m;
	rk->unx_tail = m;
	return 0;
}

static void app_unexpected_remove(struct app *a, uint32_t m)
{
	struct app_msg *ms = app_msg_at(a, m);
	uint32_t s = app_slot_find(a, ms->dst, ms->comm, ms->src_local);
	NL_ASSERT(s != APP_NONE);
	struct app_slot *sl = app_slot_at(a, s);
	if (ms->prev != APP_NONE)
		app_msg_at(a, ms->prev)->next = ms->next;
	else
		sl->unx_head = ms->next;
	if (ms->next != APP_NONE)
		app_msg_at(a, ms->next)->prev = ms->prev;
	else
		sl->unx_tail = ms->prev;
	app_slot_maybe_drop(a, s);

	struct app_rank *rk = &a->ranks[ms->dst];
	if (ms->all_prev != APP_NONE)
		app_msg_at(a, ms->all_prev)->all_next = ms->all_next;
	else
		rk->unx_head = ms->all_next;
	if (ms->all_next != APP_NONE)
		app_msg_at(a, ms->all_next)->all_prev = ms->all_prev;
	else
		rk->unx_tail = ms->all_prev;
	ms->next = ms->prev = ms->all_next = ms->all_prev = APP_NONE;
}

bool app_p2p_probe(struct app *a, uint32_t r, uint32_t comm, int32_t src, int32_t tag)
{
	return app_unexpected_find(a, r, comm, src, tag) != APP_NONE;
}

/* --- network ------------------------------------------------------------------- */

/* Hand message m to the network in its current direction (CTS goes back
 * to the sender); a rank's message to itself is delivered locally at once. */
static int app_net_send(struct app *a, uint32_t m, uint64_t bytes, struct nl_err *err)
{
	struct app_msg *ms = app_msg_at(a, m);
	bool back = ms->kind == MSG_CTS || ms->kind == MSG_FIN;
	uint32_t from = back ? ms->dst : ms->src;
	uint32_t to = back ? ms->src : ms->dst;
	ms->t_net = a->now;
	if (from == to)
		return app_push_event(a, a->now, EV_LOCAL, m) < 0
			       ? nl_errf(err, NL_ENOMEM, "replay: out of memory")
			       : 0;
	a->res.net_msgs++;
	a->net_dirty = true;
	int rc = a->net->ops->send(a->net, a->now, a->rank_ep[from], a->rank_ep[to], bytes, m, err);
	/* A refusal is of the trace's message (too large for the model): named
	 * by the op that sent it, as every error about the trace's contents. */
	if (rc < 0 && rc != NL_ENOMEM)
		return app_err_at_op(a, ms->src, ms->send_op, ms->op_kind, err);
	return rc;
}

/* Stamp m with the next sequence number of its (src, dst) pair. */
static int app_pair_stamp(struct app *a, struct app_msg *ms)
{
	uint64_t key = (uint64_t)ms->src << 32 | ms->dst;
	uint32_t p = app_map_get(&a->pair_map, key);
	if (p == APP_NONE) {
		p = app_pool_alloc(&a->pairs);
		if (p == APP_NONE)
			return NL_ENOMEM;
		if (app_map_put(&a->pair_map, key, p) < 0) {
			app_pool_free(&a->pairs, p);
			return NL_ENOMEM;
		}
		struct app_pair *pr = app_pool_at(&a->pairs, p);
		pr->held = pr->held_tail = APP_NONE;
		pr->key = key;
	}
	struct app_pair *pr = app_pool_at(&a->pairs, p);
	if (pr->idle) {
		pr->idle = 0;
		a->idle_pairs--;
	}
	ms->seq = pr->send_seq++;
	pr->in_flight++;
	return 0;
}

/* --- protocols --------------------------------------------------------------------- */

static void app_latency_add(struct app *a, const struct app_msg *ms)
{
	if (ms->src == ms->dst) { /* no network crossed: counted, not a latency */
		a->res.self_msgs++;
		return;
	}
	uint64_t lat = a->now - ms->t_net;
	stats_hist_add(&a->lat_all, lat);
	if (a->job_lat)
		stats_hist_add(&a->job_lat[a->job_of[ms->src]], lat);
	int c = 0;
	/* Classes: <1 KiB, <16 KiB, <64 KiB, <1 MiB, <16 MiB, larger. */
	static const uint64_t upper[APP_SIZE_CLASSES - 1] = {1024, 16384, 65536, 1048576, 16777216};
	while (c < APP_SIZE_CLASSES - 1 && ms->bytes >= upper[c])
		c++;
	stats_hist_add(&a->lat_cls[c], lat);
}

/* The post time a request's peer learns: its own, or for a step of a
 * collective the latest member entry time the collective knows, so waiting
 * inside a collective counts until its last member arrived. */
static uint64_t app_tell(const struct app *a, const struct app_req *rq)
{
	return rq->parent == APP_NONE ? rq->t_post : app_coll_tell(a, rq->parent);
}

/* Tell the match observer that receive q completes now with message m. */
static void app_match_tell(const struct app *a, uint32_t q, const struct app_msg *ms)
{
	if (!a->on_match || ms->is_coll)
		return;
	const struct app_req *rq = app_req_at(a, q);
	struct app_match_info mi = {
		.src = ms->src, .dst = ms->dst, .tag = ms->tag, .bytes = ms->bytes,
		.send_op = ms->send_op, .recv_op = rq->op_index,
		.t_sent_ps = ms->t_sent, .t_arrived_ps = ms->t_arrived, .t_done_ps = a->now,
	};
	a->on_match(a->match_ctx, &mi);
}

/* Receive q meets message m (eager or RTS) at the receiver, now. */
static int app_match(struct app *a, uint32_t q, uint32_t m, struct nl_err *err)
{
	struct app_req *rq = app_req_at(a, q);
	struct app_msg *ms = app_msg_at(a, m);
	rq->t_peer = ms->t_send_post;
	ms->t_recv_post = app_tell(a, rq);
	if (ms->kind == MSG_EAGER) {
		app_match_tell(a, q, ms);
		app_pool_free(&a->msgs, m);
		return app_req_complete(a, q, err);
	}
	ms->recv_req = q;
	if (a->cfg.rndv_protocol == APP_RNDV_GET) {
		/* The receiver pulls the payload now. */
		if (ms->send_req != APP_NONE)
			app_req_at(a, ms->send_req)->t_peer = ms->t_recv_post;
		ms->kind = MSG_DATA;
		return app_net_send(a, m, ms->bytes, err);
	}
	ms->kind = MSG_CTS;
	return app_net_send(a, m, 0, err);
}

static int app_post_send(struct app *a, uint32_t q, struct nl_err *err)
{
	struct app_req *rq = app_req_at(a, q);
	uint32_t r = rq->rank;
	const struct app_comm *cm = &a->comms[rq->comm];
	rq->state = RS_ACTIVE;
	rq->t_post = a->now;
	rq->t_peer = 0;
	if (rq->peer == TRACE_PROC_NULL)
		return app_req_complete(a, q, err);

	uint32_t m = app_pool_alloc(&a->msgs);
	if (m == APP_NONE)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	struct app_msg *ms = app_msg_at(a, m);
	ms->next = ms->prev = ms->all_next = ms->all_prev = APP_NONE;
	ms->src = r;
	ms->dst = app_comm_world(cm, r, (uint32_t)rq->peer);
	ms->comm = rq->comm;
	ms->src_local = (int32_t)app_comm_local(cm, r);
	ms->tag = rq->tag;
	ms->bytes = rq->bytes;
	ms->is_coll = rq->parent != APP_NONE;
	ms->op_kind = rq->op_kind;
	ms->t_send_post = app_tell(a, rq);
	ms->recv_req = APP_NONE;
	ms->send_op = rq->op_index;
	ms->t_sent = a->now;
	if (app_pair_stamp(a, ms) < 0)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");

	struct app_rank_stats *st = &a->ranks[r].st;
	st->msgs_sent++;
	st->bytes_sent += rq->bytes;
	a->res.msgs++;
	a->res.bytes += rq->bytes;
	if (ms->is_coll) {
		a->res.coll_msgs++;
		a->res.coll_bytes += rq->bytes;
	} else {
		a->res.p2p_msgs++;
		a->res.p2p_bytes += rq->bytes;
	}

	bool eager = !(rq->flags & RF_SYNC) && rq->bytes <= (uint64_t)a->cfg.eager_threshold;
	if (eager) {
		a->res.eager_msgs++;
		ms->kind = MSG_EAGER;
		ms->send_req = APP_NONE;
		NL_CHECK(app_net_send(a, m, ms->bytes, err));
		return app_req_complete(a, q, err);
	}
	a->res.rndv_msgs++;
	ms->kind = MSG_RTS;
	if (rq->flags & RF_BUFFERED) {
		ms->send_req = APP_NONE;
		NL_CHECK(app_net_send(a, m, 0, err));
		return app_req_complete(a, q, err);
	}
	ms->send_req = q;
	return app_net_send(a, m, 0, err);
}

static int app_post_recv(struct app *a, uint32_t q, struct nl_err *err)
{
	struct app_req *rq = app_req_at(a, q);
	rq->state = RS_ACTIVE;
	rq->t_post = a->now;
	rq->t_peer = 0;
	if (rq->peer == TRACE_PROC_NULL)
		return app_req_complete(a, q, err);
	uint32_t m = app_unexpected_find(a, rq->rank, rq->comm, rq->peer, rq->tag);
	if (m != APP_NONE) {
		app_unexpected_remove(a, m);
		return app_match(a, q, m, err);
	}
	struct app_rank *rk = &a->ranks[rq->rank];
	rq->post_seq = rk->post_seq++;
	rq->flags |= RF_POSTED;
	if (rq->peer == TRACE_ANY_SOURCE) {
		app_req_append(a, q, &rk->wild_head, &rk->wild_tail);
		return 0;
	}
	uint32_t s = app_slot_get(a, rq->rank, rq->comm, rq->peer);
	if (s == APP_NONE)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	struct app_slot *sl = app_slot_at(a, s);
	app_req_append(a, q, &sl->posted_head, &sl->posted_tail);
	return 0;
}

int app_p2p_start(struct app *a, uint32_t q, struct nl_err *err)
{
	return app_req_at(a, q)->kind == REQ_SEND ? app_post_send(a, q, err) : app_post_recv(a, q, err);
}

static int app_p2p_new(struct app *a, uint8_t kind, uint32_t r, uint32_t comm, int32_t peer, int32_t tag,
		       uint64_t bytes, uint16_t flags, uint32_t parent, uint32_t *req_out,
		       struct nl_err *err)
{
	uint32_t q = app_req_new(a, r, kind, flags);
	if (q == APP_NONE)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	struct app_req *rq = app_req_at(a, q);
	rq->comm = comm;
	rq->peer = peer;
	rq->tag = tag;
	rq->bytes = bytes;
	rq->parent = parent;
	if (req_out)
		*req_out = q;
	if (flags & RF_PERSISTENT)
		return 0;
	return app_p2p_start(a, q, err);
}

int app_p2p_send(struct app *a, uint32_t r, uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes,
		 uint16_t flags, uint32_t parent, uint32_t *req_out, struct nl_err *err)
{
	return app_p2p_new(a, REQ_SEND, r, comm, peer, tag, bytes, flags, parent, req_out, err);
}

int app_p2p_recv(struct app *a, uint32_t r, uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes,
		 uint16_t flags, uint32_t parent, uint32_t *req_out, struct nl_err *err)
{
	return app_p2p_new(a, REQ_RECV, r, comm, peer, tag, bytes, flags, parent, req_out, err);
}

/* MPI 4.0 §3.8.4: a cancel either succeeds (the request completes and
 * matches nothing) or fails (the request completes normally), never both,
 * and which one is the implementation's choice while the operation has not
 * matched. Replay takes the recorded outcome where that choice exists:
 * - a receive still posted (unmatched) is cancelled unless the trace says
 *   the recorded cancel failed; then it stays posted and matches later, as
 *   it did in the recorded run (-1, unknown, cancels: what Open MPI and
 *   MPICH do with an unmatched receive);
 * - a receive that has matched (or completed, or is an inactive persistent
 *   one) is not cancelled;
 * - a send is never cancelled. Cancelling sends is deprecated since MPI
 *   4.0 (§3.8.4) and Open MPI's ob1, which recorded our samples, never
 *   cancels one (its MPI_Test_cancelled is false); a send the trace
 *   records as cancelled (MPICH can cancel one still unmatched) completes
 *   normally and counts as a divergence;
 * - a collective's request cannot be cancelled (erroneous in MPI). */
int app_p2p_cancel(struct app *a, uint32_t q, int want, bool *cancelled, struct nl_err *err)
{
	struct app_req *rq = app_req_at(a, q);
	*cancelled = false;
	if (rq->kind != REQ_RECV || !(rq->flags & RF_POSTED) || want == 0)
		return 0;
	app_posted_remove(a, q);
	rq->flags |= RF_CANCELLED;
	*cancelled = true;
	return app_req_complete(a, q, err);
}

/* An eager message or RTS is matchable now (all earlier ones of its pair
 * have been). */
static int app_accept(struct app *a, uint32_t m, struct nl_err *err)
{
	struct app_msg *ms = app_msg_at(a, m);
	uint32_t q = app_posted_find(a, ms);
	if (q != APP_NONE) {
		app_posted_remove(a, q);
		return app_match(a, q, m, err);
	}
	if (app_unexpected_append(a, m) < 0)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	struct app_rank *rk = &a->ranks[ms->dst];
	if (rk->state == RK_PROBE && rk->probe_comm == ms->comm &&
	    (rk->probe_src == TRACE_ANY_SOURCE || rk->probe_src == ms->src_local) &&
	    app_tag_match(rk->probe_tag, ms->tag)) {
		if (ms->t_send_post > rk->t_peer_max)
			rk->t_peer_max = ms->t_send_post;
		app_make_ready(a, ms->dst);
	}
	return 0;
}

static bool app_pair_idle(const void *rec)
{
	return ((const struct app_pair *)rec)->idle;
}

static int app_arrive(struct app *a, uint32_t m, struct nl_err *err)
{
	struct app_msg *ms = app_msg_at(a, m);
	uint64_t key = (uint64_t)ms->src << 32 | ms->dst;
	uint32_t p = app_map_get(&a->pair_map, key);
	NL_ASSERT(p != APP_NONE);
	struct app_pair *pr = app_pool_at(&a->pairs, p);
	if (ms->seq != pr->recv_seq) {
		/* Early: keep in seq order until the gap fills. Early arrivals
		 * mostly come in ascending seq (the small messages that
		 * overtook a large one), so they go after the tail in O(1) and
		 * N of them cost O(N), not the O(N^2) of a walk each; only one
		 * that overtook a held message walks from the head. */
		if (pr->held == APP_NONE) {
			ms->all_next = APP_NONE;
			pr->held = pr->held_tail = m;
			return 0;
		}
		struct app_msg *tail = app_msg_at(a, pr->held_tail);
		if (tail->seq < ms->seq) {
			ms->all_next = APP_NONE;
			tail->all_next = m;
			pr->held_tail = m;
			return 0;
		}
		uint32_t *link = &pr->held;
		while (*link != APP_NONE && app_msg_at(a, *link)->seq < ms->seq)
			link = &app_msg_at(a, *link)->all_next;
		ms->all_next = *link;
		*link = m;
		return 0;
	}
	for (;;) {
		pr->recv_seq++;
		pr->in_flight--;
		NL_CHECK(app_accept(a, m, err));
		if (pr->held == APP_NONE || app_msg_at(a, pr->held)->seq != pr->recv_seq)
			break;
		m = pr->held;
		pr->held = app_msg_at(a, m)->all_next;
		app_msg_at(a, m)->all_next = APP_NONE;
	}
	if (pr->in_flight == 0 && pr->held == APP_NONE) {
		pr->idle = 1;
		if (++a->idle_pairs > 4096 && 2 * a->idle_pairs > a->pair_map.n)
			a->idle_pairs -= app_map_sweep(&a->pair_map, &a->pairs, app_pair_idle);
	}
	return 0;
}

int app_p2p_deliver(struct app *a, uint32_t m, struct nl_err *err)
{
	struct app_msg *ms = app_msg_at(a, m);
	switch (ms->kind) {
	case MSG_EAGER:
		app_latency_add(a, ms);
		ms->t_arrived = a->now;
		return app_arrive(a, m, err);
	case MSG_RTS:
		return app_arrive(a, m, err);
	case MSG_CTS:
		if (ms->send_req != APP_NONE)
			app_req_at(a, ms->send_req)->t_peer = ms->t_recv_post;
		ms->kind = MSG_DATA;
		return app_net_send(a, m, ms->bytes, err);
	case MSG_DATA: {
		app_latency_add(a, ms);
		ms->t_arrived = a->now;
		uint32_t rq = ms->recv_req, sq = ms->send_req;
		app_match_tell(a, rq, ms);
		if (a->cfg.rndv_protocol == APP_RNDV_GET && sq != APP_NONE) {
			/* The sender learns with a FIN. */
			ms->kind = MSG_FIN;
			NL_CHECK(app_net_send(a, m, 0, err));
			return app_req_complete(a, rq, err);
		}
		app_pool_free(&a->msgs, m);
		NL_CHECK(app_req_complete(a, rq, err));
		return sq != APP_NONE ? app_req_complete(a, sq, err) : 0;
	}
	case MSG_FIN: {
		uint32_t sq = ms->send_req;
		app_pool_free(&a->msgs, m);
		return app_req_complete(a, sq, err);
	}
	default:
		NL_BUG("replay: delivered message %" PRIu32 " has kind %d", m, ms->kind);
	}
}
