/* `netloom serve`: the ZeroMQ side of live emulation. One ROUTER socket;
 * each rank is bound to the ROUTER identity that said HELLO for it, and
 * frames from any other identity claiming that rank are refused. Ops are
 * queued per rank as they arrive and handed to the engine only when it
 * asks for that rank's next op (live_next), which is where lock-step
 * happens: the engine asks in virtual-time order, and waits for a rank
 * that has not declared its next op yet, while serving every other
 * socket event (queueing, heartbeats, evictions).
 *
 * Invariants: a rank's ops reach the engine in its seq order (gaps are
 * refused), the engine decides every time, and the socket arrival order
 * never does; one malformed or hostile client never stops the others.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "adapters/adapters.h"
#include "adapters/adapters_internal.h"
#include "adapters/proto.h"
#include "core/error.h"
#include "core/output.h"
#include "core/stats.h"
#include "session/session.h"
#include "traces/trace.h"

uint64_t live_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t live_clock_ms(void)
{
	return live_clock_ns() / 1000000u;
}

void live_opts_init(struct live_opts *o)
{
	memset(o, 0, sizeof *o);
	o->listen = "tcp://127.0.0.1:5555";
	o->max_payload = 1u << 20;
	o->heartbeat_ms = 500;
	o->timeout_ms = 5000;
	o->connect_ms = 30000;
	o->log = stderr;
}

/* --- sending ------------------------------------------------------------------ */

/* Frames to a client: identity, header, optional payload. Never blocks
 * (a client that stopped reading loses frames, not the server's time). */
static void live_send(struct live_server *s, const unsigned char *id, size_t id_len, const struct zp_hdr *h,
		      zmq_msg_t *pay, const void *text, size_t text_len)
{
	uint8_t buf[ZP_HDR_BYTES];
	struct zp_hdr hh = *h;
	hh.version = ZP_VERSION;
	zp_encode(&hh, buf);
	bool more = pay || text;
	if (zmq_send(s->sock, id, id_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
		goto drop;
	if (zmq_send(s->sock, buf, sizeof buf, (more ? ZMQ_SNDMORE : 0) | ZMQ_DONTWAIT) < 0)
		goto drop;
	if (pay) {
		if (zmq_msg_send(pay, s->sock, ZMQ_DONTWAIT) < 0)
			zmq_msg_close(pay);
	} else if (text) {
		zmq_send(s->sock, text, text_len, ZMQ_DONTWAIT);
	}
	return;
drop:
	if (pay)
		zmq_msg_close(pay);
}

static void live_send_error(struct live_server *s, const unsigned char *id, size_t id_len, uint32_t rank,
			    int code, const char *line)
{
	struct zp_hdr h = {.type = ZP_ERROR, .rank = rank, .tag = code};
	live_send(s, id, id_len, &h, NULL, line, strlen(line));
}

/* --- paced mode ------------------------------------------------------------ */

/* Virtual time the wall clock has reached (paced mode), ps. */
static uint64_t live_pace_now(const struct live_server *s)
{
	if (!s->w0_ns)
		return 0;
	return (uint64_t)((double)(live_clock_ns() - s->w0_ns) * 1000.0 * s->o->pace);
}

/* Hold a release (DONE, DELIVER) until the wall clock reaches virtual time
 * t_ps; when it is already past, that is lag: counted, and with a hard
 * limit, fatal. Lock-step: nothing to do. */
static void live_pace_release(struct live_server *s, uint64_t t_ps)
{
	if (s->o->pace <= 0 || !s->w0_ns)
		return;
	uint64_t target = s->w0_ns + (uint64_t)((double)t_ps / (1000.0 * s->o->pace));
	uint64_t now = live_clock_ns();
	if (now < target) {
		struct timespec ts = {(time_t)((target - now) / 1000000000u), (long)((target - now) % 1000000000u)};
		nanosleep(&ts, NULL);
		stats_hist_add(&s->lag_ns, 0);
		return;
	}
	uint64_t lag = now - target;
	stats_hist_add(&s->lag_ns, lag);
	if (lag > 1000000u)
		s->late++;
	if (s->o->max_lag_ms && lag > (uint64_t)s->o->max_lag_ms * 1000000u && !s->fatal)
		s->fatal = nl_errf(s->err, NL_ETIMEOUT,
				   "paced: a release at virtual %.6f s came %.3f ms behind the wall clock, "
				   "over --max-lag-ms %" PRIu32,
				   (double)t_ps * 1e-12, (double)lag * 1e-6, s->o->max_lag_ms);
}

static void live_reply_done(struct live_server *s, uint32_t r, uint32_t seq)
{
	live_pace_release(s, session_src_now(s->eng));
	{
	struct live_rank *rk = &s->ranks[r];
	struct zp_hdr h = {.type = ZP_DONE, .rank = r, .seq = seq, .a = session_src_now(s->eng)};
	live_send(s, rk->id, rk->id_len, &h, NULL, NULL, 0);
	}
}

/* --- ranks --------------------------------------------------------------------- */

void live_log(struct live_server *s, const char *fmt, ...)
{
	if (!s->o->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("netloom serve: ", s->o->log);
	vfprintf(s->o->log, fmt, ap);
	fputc('\n', s->o->log);
	va_end(ap);
}

static void live_queue_clear(struct live_rank *rk)
{
	for (uint32_t i = 0; i < rk->q_n; i++) {
		struct live_qop *q = &rk->q[(rk->q_head + i) % rk->q_cap];
		if (q->h.type == ZP_SEND || q->h.type == ZP_WAITALL)
			zmq_msg_close(&q->pay);
	}
	rk->q_n = 0;
}

/* Evict rank r: drop what it declared, tell the rest of its job, note why. */
static void live_evict(struct live_server *s, uint32_t r, const char *why)
{
	struct live_rank *rk = &s->ranks[r];
	if (rk->state == LR_EVICTED || rk->state == LR_DONE)
		return;
	bool was_connected = rk->state == LR_READY;
	rk->state = LR_EVICTED;
	s->evictions++;
	snprintf(rk->why, sizeof rk->why, "%s", why);
	live_log(s, "rank %" PRIu32 " evicted: %s", r, why);
	live_queue_clear(rk);
	char line[256];
	snprintf(line, sizeof line, "rank %" PRIu32 " evicted: %s", r, why);
	if (was_connected)
		live_send_error(s, rk->id, rk->id_len, r, ZP_EEVICTED, line);
	for (uint32_t p = 0; p < s->n; p++) /* its job's ranks: no other job can reach it */
		if (p != r && s->ranks[p].state == LR_READY && s->job_of[p] == s->job_of[r])
			live_send_error(s, s->ranks[p].id, s->ranks[p].id_len, r, ZP_EEVICTED, line);
}

static void live_check_timeouts(struct live_server *s)
{
	uint64_t now = live_clock_ms();
	for (uint32_t r = 0; r < s->n; r++) {
		struct live_rank *rk = &s->ranks[r];
		if (rk->state == LR_READY && now - rk->last_ms > s->o->timeout_ms) {
			char why[256];
			if (rk->bad_streak)
				snprintf(why, sizeof why,
					 "no valid frame for more than %" PRIu32 " ms, %" PRIu64
					 " refused (heartbeat timeout; last: %.120s)",
					 s->o->timeout_ms, rk->bad_streak, rk->last_bad);
			else
				snprintf(why, sizeof why, "silent for more than %" PRIu32 " ms (heartbeat timeout)",
					 s->o->timeout_ms);
			live_evict(s, r, why);
		} else if (rk->state == LR_ABSENT && now - s->start_ms > s->o->connect_ms) {
			char why[128];
			snprintf(why, sizeof why, "never connected within %" PRIu32 " ms", s->o->connect_ms);
			live_evict(s, r, why);
		}
	}
}

static int live_queue_push(struct live_rank *rk, const struct live_qop *op)
{
	if (rk->q_n == rk->q_cap) {
		uint32_t cap = rk->q_cap ? 2 * rk->q_cap : 16;
		struct live_qop *q = malloc(cap * sizeof *q);
		if (!q)
			return NL_ENOMEM;
		for (uint32_t i = 0; i < rk->q_n; i++)
			q[i] = rk->q[(rk->q_head + i) % rk->q_cap];
		free(rk->q);
		rk->q = q;
		rk->q_cap = cap;
		rk->q_head = 0;
	}
	rk->q[(rk->q_head + rk->q_n) % rk->q_cap] = *op;
	rk->q_n++;
	return 0;
}

/* --- receiving ---------------------------------------------------------------- */

static void live_offence(struct live_server *s, const unsigned char *id, size_t id_len, int32_t rank_hint,
			 int code, const char *msg)
{
	s->frames_bad++;
	char line[300];
	int bound = -1;
	bool quiet = false;
	/* Count it against the rank only when the sender really is that rank. */
	if (rank_hint >= 0 && (uint32_t)rank_hint < s->n) {
		struct live_rank *rk = &s->ranks[rank_hint];
		if (rk->state != LR_ABSENT && rk->id_len == id_len && !memcmp(rk->id, id, id_len)) {
			bound = rank_hint;
			rk->offences++;
			rk->bad_streak++;
			snprintf(rk->last_bad, sizeof rk->last_bad, "%s", msg);
			/* A flood is logged once, then summed up in the report. */
			quiet = rk->offences > 3;
			if (rk->offences == 4)
				live_log(s, "rank %d: further refused frames are counted, not logged", bound);
			if (!rk->why[0] || rk->state == LR_READY)
				snprintf(rk->why, sizeof rk->why, "sent a refused frame (%s)", msg);
		}
	}
	if (bound >= 0)
		snprintf(line, sizeof line, "rank %d: %s", bound, msg);
	else if (rank_hint >= 0)
		snprintf(line, sizeof line, "connection claiming rank %d: %s", rank_hint, msg);
	else
		snprintf(line, sizeof line, "connection without a rank: %s", msg);
	if (!quiet)
		live_log(s, "%s", line);
	live_send_error(s, id, id_len, rank_hint >= 0 ? (uint32_t)rank_hint : UINT32_MAX, code, line);
}

static void live_on_hello(struct live_server *s, const unsigned char *id, size_t id_len, const struct zp_hdr *h)
{
	char msg[160];
	if (h->rank >= s->n) {
		snprintf(msg, sizeof msg, "HELLO: rank %" PRIu32 ", expected 0..%" PRIu32, h->rank, s->n - 1);
		live_offence(s, id, id_len, -1, ZP_ERANK, msg);
		return;
	}
	if (s->o->tokens && h->a != s->o->tokens[h->rank]) {
		snprintf(msg, sizeof msg, "HELLO: wrong token for rank %" PRIu32 " (impersonation refused)", h->rank);
		live_offence(s, id, id_len, -1, ZP_ETOKEN, msg);
		struct live_rank *tr = &s->ranks[h->rank];
		tr->offences++;
		snprintf(tr->why, sizeof tr->why, "another connection claimed this rank with a wrong token (refused, %" PRIu64
			 " time%s)", tr->offences, tr->offences == 1 ? "" : "s");
		return;
	}
	if (h->aux != s->job_of[h->rank] + 1) {
		snprintf(msg, sizeof msg, "HELLO: job %" PRIu32 " for rank %" PRIu32 ", expected %" PRIu32, h->aux,
			 h->rank, s->job_of[h->rank] + 1);
		live_offence(s, id, id_len, -1, ZP_EJOB, msg);
		return;
	}
	struct live_rank *rk = &s->ranks[h->rank];
	bool same = rk->id_len == id_len && !memcmp(rk->id, id, id_len);
	if (rk->state != LR_ABSENT && !same) {
		snprintf(msg, sizeof msg, "HELLO: rank %" PRIu32 " is taken by another connection (%s)", h->rank,
			 live_state_name(rk->state));
		live_offence(s, id, id_len, -1, ZP_ETAKEN, msg);
		rk->offences++;
		char note[200];
		snprintf(note, sizeof note, "another connection tried to take this rank (refused, %" PRIu64 " time%s)",
			 rk->offences, rk->offences == 1 ? "" : "s");
		if (rk->state == LR_READY)
			snprintf(rk->why, sizeof rk->why, "%s", note);
		return;
	}
	if (rk->state != LR_ABSENT && rk->state != LR_READY) {
		snprintf(msg, sizeof msg, "HELLO: rank %" PRIu32 " is %s", h->rank, live_state_name(rk->state));
		live_offence(s, id, id_len, -1, ZP_ESTATE, msg);
		return;
	}
	if (id_len > sizeof rk->id) {
		live_offence(s, id, id_len, -1, ZP_EMALFORMED, "HELLO: identity longer than 255 bytes");
		return;
	}
	if (rk->state == LR_ABSENT) {
		memcpy(rk->id, id, id_len);
		rk->id_len = (uint8_t)id_len;
		rk->state = LR_READY;
		/* Paced: virtual time 0 is when the last rank has connected, so
		 * start-up skew is not counted as lag or compute. */
		if (++s->n_connected == s->n && s->o->pace > 0)
			s->w0_ns = live_clock_ns();
	}
	rk->last_ms = live_clock_ms();
	struct zp_hdr w = {.type = ZP_WELCOME, .rank = h->rank, .aux = s->n, .a = s->o->max_payload,
			   .b = s->o->heartbeat_ms, .c = s->o->timeout_ms};
	live_send(s, id, id_len, &w, NULL, NULL, 0);
}

/* One multipart message from the socket: identity, header, [payload]. */
static void live_on_message(struct live_server *s)
{
	zmq_msg_t parts[3];
	int n = 0;
	bool more = true;
	bool extra = false;
	while (more) {
		zmq_msg_t m;
		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, s->sock, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			break;
		}
		more = zmq_msg_more(&m);
		if (n < 3)
			parts[n++] = m;
		else {
			extra = true;
			zmq_msg_close(&m);
		}
	}
	if (n == 0)
		return;
	s->frames_in++;
	const unsigned char *id = zmq_msg_data(&parts[0]);
	size_t id_len = zmq_msg_size(&parts[0]);
	int32_t hint = -1;
	if (n >= 2 && zmq_msg_size(&parts[1]) >= 12) {
		const uint8_t *p = zmq_msg_data(&parts[1]);
		uint32_t r = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
		if (r < s->n)
			hint = (int32_t)r;
	}
	struct zp_hdr h;
	struct nl_err e = {0};
	if (n < 2 || extra) {
		live_offence(s, id, id_len, hint, ZP_EMALFORMED,
			     n < 2 ? "message without a header frame" : "more than header + payload frames");
		goto out;
	}
	if (zp_decode(zmq_msg_data(&parts[1]), zmq_msg_size(&parts[1]), n == 3, n == 3 ? zmq_msg_size(&parts[2]) : 0,
		      s->o->max_payload, &h, &e) < 0) {
		bool big = n == 3 && zmq_msg_size(&parts[2]) > s->o->max_payload;
		live_offence(s, id, id_len, hint, big ? ZP_ETOOBIG : ZP_EMALFORMED, e.msg);
		goto out;
	}
	if (h.type == ZP_HELLO) {
		live_on_hello(s, id, id_len, &h);
		goto out;
	}
	struct live_rank *rk = h.rank < s->n ? &s->ranks[h.rank] : NULL;
	if (!rk || rk->state == LR_ABSENT || rk->id_len != id_len || memcmp(rk->id, id, id_len)) {
		char msg[160];
		snprintf(msg, sizeof msg, "%s for rank %" PRIu32 " from a connection that did not HELLO as it",
			 zp_type_name(h.type), h.rank);
		live_offence(s, id, id_len, -1, rk ? ZP_ENOHELLO : ZP_ERANK, msg);
		goto out;
	}
	if (rk->state != LR_READY) {
		live_send_error(s, id, id_len, h.rank, ZP_EEVICTED, rk->state == LR_EVICTED ? rk->why : "rank finished");
		goto out;
	}
	if (h.type == ZP_HEARTBEAT) {
		rk->last_ms = live_clock_ms();
		rk->bad_streak = 0;
		goto out;
	}
	if (h.type >= ZP_WELCOME) {
		live_offence(s, id, id_len, (int32_t)h.rank, ZP_EMALFORMED, "server-to-client message type from a client");
		goto out;
	}
	char msg[160];
	if (h.seq != rk->next_seq) {
		snprintf(msg, sizeof msg, "%s: seq %" PRIu32 ", expected %" PRIu32, zp_type_name(h.type), h.seq,
			 rk->next_seq);
		live_offence(s, id, id_len, (int32_t)h.rank, ZP_ESTATE, msg);
		goto out;
	}
	if ((h.type == ZP_SEND && (uint32_t)h.peer >= s->n) ||
	    (h.type == ZP_RECV && h.peer != ZP_ANY && (uint32_t)h.peer >= s->n)) {
		snprintf(msg, sizeof msg, "%s: peer %" PRId32 ", expected 0..%" PRIu32 "%s", zp_type_name(h.type), h.peer,
			 s->n - 1, h.type == ZP_RECV ? " or -1 (any)" : "");
		live_offence(s, id, id_len, (int32_t)h.rank, ZP_EPEER, msg);
		goto out;
	}
	if ((h.type == ZP_SEND || (h.type == ZP_RECV && h.peer != ZP_ANY)) &&
	    live_job_peer_check(s, h.rank, (uint32_t)h.peer, msg, sizeof msg)) {
		live_offence(s, id, id_len, (int32_t)h.rank, ZP_EPEER, msg);
		goto out;
	}
	if (h.type == ZP_WAIT && h.aux >= h.seq) {
		snprintf(msg, sizeof msg, "WAIT: request %" PRIu32 ", expected the seq of an earlier op", h.aux);
		live_offence(s, id, id_len, (int32_t)h.rank, ZP_ESTATE, msg);
		goto out;
	}
	if (rk->q_n >= LIVE_QUEUE_MAX) {
		snprintf(msg, sizeof msg, "declared %" PRIu32 " ops ahead of virtual time, the most the server queues",
			 rk->q_n);
		live_evict(s, h.rank, msg);
		goto out;
	}
	rk->last_ms = live_clock_ms();
	rk->bad_streak = 0;
	if (h.type == ZP_WAITALL) {
		const uint8_t *p = zmq_msg_data(&parts[2]);
		for (size_t i = 0; i + 4 <= zmq_msg_size(&parts[2]); i += 4) {
			uint32_t q = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
				     (uint32_t)p[i + 3] << 24;
			if (q >= h.seq) {
				snprintf(msg, sizeof msg, "WAITALL: request %" PRIu32 ", expected the seq of an earlier op",
					 q);
				live_offence(s, id, id_len, (int32_t)h.rank, ZP_ESTATE, msg);
				goto out;
			}
		}
	}
	struct live_qop op = {.h = h, .t_in_ns = live_clock_ns()};
	if (h.type == ZP_SEND || h.type == ZP_WAITALL) {
		zmq_msg_init(&op.pay);
		zmq_msg_move(&op.pay, &parts[2]);
	}
	if (live_queue_push(rk, &op) < 0) {
		if (h.type == ZP_SEND || h.type == ZP_WAITALL)
			zmq_msg_close(&op.pay);
		s->fatal = nl_errf(s->err, NL_ENOMEM, "live: out of memory queueing rank %" PRIu32 "'s ops", h.rank);
		goto out;
	}
	rk->next_seq++;
out:
	for (int i = 0; i < n; i++)
		zmq_msg_close(&parts[i]);
}

/* Serve the socket for up to wait_ms (0: only what is there now). */
static void live_pump(struct live_server *s, long wait_ms)
{
	/* With CURVE, handshakes wait for the ZAP handler: poll it too. */
	zmq_pollitem_t it[2] = {{.socket = s->sock, .events = ZMQ_POLLIN}, {.socket = s->zap, .events = ZMQ_POLLIN}};
	if (zmq_poll(it, s->zap ? 2 : 1, wait_ms) > 0) {
		if (s->zap && (it[1].revents & ZMQ_POLLIN))
			live_curve_serve(s);
		for (int i = 0; i < 4096 && (it[0].revents & ZMQ_POLLIN); i++) {
			live_on_message(s);
			if (zmq_poll(it, 1, 0) <= 0)
				break;
		}
	}
}

/* --- the op source --------------------------------------------------------- */

static int live_record(struct live_server *s, uint32_t r, const struct trace_op *op, struct nl_err *err)
{
	if (!s->ranks[r].w)
		return 0;
	return trace_stream_append(s->ranks[r].w, op, err);
}

/* Paced mode's measured compute: a COMPUTE op no client sent, recorded
 * like any other so the session replays to the same times. */
static int live_pace_compute(struct live_server *s, uint32_t r, struct trace_op *op, uint64_t dur_ps,
			     struct nl_err *err)
{
	memset(op, 0, sizeof *op);
	op->kind = TOP_COMPUTE;
	op->comm = TRACE_COMM_WORLD;
	op->t_ps = session_src_now(s->eng);
	op->dur_ps = dur_ps;
	NL_CHECK(live_record(s, r, op, err));
	s->ranks[r].n_pulled++;
	return 1;
}

static int live_next(void *ctx, uint32_t r, struct trace_op *op, struct nl_err *err)
{
	struct live_server *s = ctx;
	struct live_rank *rk = &s->ranks[r];
	if (rk->reply_due && rk->state == LR_READY) {
		live_reply_done(s, r, rk->reply_seq);
		rk->reply_due = false;
	}
	if (rk->bye) {
		rk->state = LR_DONE;
		return 0;
	}
	live_pump(s, 0);
	bool paced = s->o->pace > 0;
	uint64_t t_engine = session_src_now(s->eng), t_op = 0;
	while (rk->state == LR_READY || rk->state == LR_ABSENT) {
		if (s->fatal)
			return s->fatal;
		if (rk->q_n) {
			t_op = rk->q[rk->q_head].t_in_ns;
			break;
		}
		/* Paced: a connected rank that has not spoken is computing; let
		 * its time run with the wall clock, 1 ms at a time, so the
		 * others' events go on. */
		if (paced && rk->state == LR_READY && live_pace_now(s) > t_engine + (uint64_t)(1e9 * s->o->pace))
			return live_pace_compute(s, r, op, live_pace_now(s) - t_engine, err);
		live_pump(s, paced ? 1 : s->o->heartbeat_ms);
		live_check_timeouts(s);
	}
	if (rk->state != LR_READY)
		return 0; /* evicted: its stream ends here */
	if (paced) {
		/* The op was declared at wall time t_op: the gap since the
		 * engine's time is measured compute, handed over first. */
		uint64_t t_v = (uint64_t)((double)(t_op - s->w0_ns) * 1000.0 * s->o->pace);
		if (s->w0_ns && t_op > s->w0_ns && t_v > t_engine)
			return live_pace_compute(s, r, op, t_v - t_engine, err);
	}
	struct live_qop q = rk->q[rk->q_head];
	rk->q_head = (rk->q_head + 1) % rk->q_cap;
	rk->q_n--;
	memset(op, 0, sizeof *op);
	op->comm = TRACE_COMM_WORLD;
	op->t_ps = session_src_now(s->eng);
	switch (q.h.type) {
	case ZP_SEND: {
		bool nb = q.h.flags & ZP_F_NONBLOCKING;
		op->kind = nb ? TOP_ISEND : TOP_SEND;
		op->peer = q.h.peer;
		op->tag = q.h.tag;
		op->bytes = zmq_msg_size(&q.pay);
		op->req = q.h.seq;
		if (rk->n_pay == rk->cap_pay) {
			uint32_t cap = rk->cap_pay ? 2 * rk->cap_pay : 16;
			struct live_pay *p = realloc(rk->pay, cap * sizeof *p);
			if (!p) {
				zmq_msg_close(&q.pay);
				return nl_errf(err, NL_ENOMEM, "live: out of memory");
			}
			rk->pay = p;
			rk->cap_pay = cap;
		}
		struct live_pay *p = &rk->pay[rk->n_pay++];
		p->op = rk->n_pulled;
		p->t_in_ns = q.t_in_ns;
		zmq_msg_init(&p->msg);
		zmq_msg_move(&p->msg, &q.pay);
		zmq_msg_close(&q.pay);
		break;
	}
	case ZP_RECV:
		if (rk->n_recvs == rk->cap_recvs) {
			uint32_t cap = rk->cap_recvs ? 2 * rk->cap_recvs : 16;
			struct live_recvmap *m = realloc(rk->recvs, cap * sizeof *m);
			if (!m)
				return nl_errf(err, NL_ENOMEM, "live: out of memory");
			rk->recvs = m;
			rk->cap_recvs = cap;
		}
		rk->recvs[rk->n_recvs++] = (struct live_recvmap){.op = rk->n_pulled, .seq = q.h.seq};
		op->kind = (q.h.flags & ZP_F_NONBLOCKING) ? TOP_IRECV : TOP_RECV;
		op->peer = q.h.peer == ZP_ANY ? TRACE_ANY_SOURCE : q.h.peer;
		op->tag = q.h.tag == ZP_ANY ? TRACE_ANY_TAG : q.h.tag;
		op->bytes = q.h.a;
		op->req = q.h.seq;
		break;
	case ZP_WAIT:
		op->kind = TOP_WAIT;
		op->req = q.h.aux;
		break;
	case ZP_WAITALL: {
		size_t n = zmq_msg_size(&q.pay) / 4;
		if (n > rk->reqs_cap) {
			uint32_t *b = realloc(rk->reqs, n * sizeof *b);
			if (!b) {
				zmq_msg_close(&q.pay);
				return nl_errf(err, NL_ENOMEM, "live: out of memory");
			}
			rk->reqs = b;
			rk->reqs_cap = (uint32_t)n;
		}
		const uint8_t *p = zmq_msg_data(&q.pay);
		for (size_t i = 0; i < n; i++)
			rk->reqs[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
				      (uint32_t)p[4 * i + 3] << 24;
		zmq_msg_close(&q.pay);
		op->kind = TOP_WAITALL;
		op->reqs = rk->reqs;
		op->n_reqs = (uint32_t)n;
		break;
	}
	case ZP_COMPUTE:
		op->kind = TOP_COMPUTE;
		op->dur_ps = q.h.a;
		break;
	case ZP_BARRIER:
		op->kind = TOP_BARRIER;
		op->comm = live_job_comm(s, r);
		break;
	case ZP_BYE:
		op->kind = TOP_FINALIZE;
		rk->bye = true;
		break;
	default:
		NL_BUG("live: queued op of type %u", q.h.type);
	}
	rk->reply_due = true;
	rk->reply_seq = q.h.seq;
	rk->n_pulled++;
	NL_CHECK(live_record(s, r, op, err));
	return 1;
}

/* A user receive completed: hand the send's payload to the receiver. */
static void live_on_match(void *ctx, const struct app_match_info *mi)
{
	struct live_server *s = ctx;
	struct live_rank *src = &s->ranks[mi->src], *dst = &s->ranks[mi->dst];
	if (s->msgs)
		live_match_line(s->msgs, mi);
	uint32_t i = 0;
	while (i < src->n_pay && src->pay[i].op != mi->send_op)
		i++;
	if (i == src->n_pay)
		return; /* the sender was evicted: its payloads went with it */
	struct live_pay p = src->pay[i];
	src->pay[i] = src->pay[--src->n_pay];
	uint32_t j = 0;
	while (j < dst->n_recvs && dst->recvs[j].op != mi->recv_op)
		j++;
	NL_ASSERT(j < dst->n_recvs);
	uint32_t recv_seq = j < dst->n_recvs ? dst->recvs[j].seq : (uint32_t)mi->recv_op;
	if (j < dst->n_recvs)
		dst->recvs[j] = dst->recvs[--dst->n_recvs];
	if (dst->state != LR_READY) {
		zmq_msg_close(&p.msg);
		src->lost_from++;
		dst->lost_to++;
		return;
	}
	struct zp_hdr h = {.type = ZP_DELIVER, .rank = mi->dst, .seq = recv_seq, .peer = (int32_t)mi->src,
			   .tag = mi->tag, .a = mi->t_sent_ps, .b = mi->t_arrived_ps, .c = mi->t_done_ps};
	live_pace_release(s, mi->t_done_ps);
	stats_hist_add(&s->residence_ns, live_clock_ns() - p.t_in_ns);
	live_send(s, dst->id, dst->id_len, &h, &p.msg, NULL, 0);
	s->delivered++;
	s->job_delivered[s->job_of[mi->dst]]++;
}

/* --- session ------------------------------------------------------------------- */

static int live_bind(struct live_server *s, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	bool loop = !strncmp(o->listen, "tcp://127.0.0.1:", 16) || !strncmp(o->listen, "tcp://localhost:", 16) ||
		    !strncmp(o->listen, "tcp://[::1]:", 12);
	bool ipc = !strncmp(o->listen, "ipc://", 6);
	if (!loop && !ipc && !(o->allow_remote && !strncmp(o->listen, "tcp://", 6)))
		return nl_errf(err, NL_ECONFIG,
			       "--listen: '%s', expected tcp://127.0.0.1:PORT or ipc://PATH (other tcp:// addresses "
			       "need --allow-remote)",
			       o->listen);
	s->zctx = zmq_ctx_new();
	if (!s->zctx)
		return nl_errf(err, NL_EIO, "live: zmq_ctx_new: %s", zmq_strerror(errno));
	s->sock = zmq_socket(s->zctx, ZMQ_ROUTER);
	if (!s->sock)
		return nl_errf(err, NL_EIO, "live: zmq_socket: %s", zmq_strerror(errno));
	/* A hard cap above the protocol's limit: libzmq drops a peer over it
	 * without a word, so the server's own check (ERROR frame) comes first. */
	int64_t cap = (int64_t)(o->max_payload + (o->max_payload >> 2) + 4096);
	int linger = 0, hwm = 0;
	zmq_setsockopt(s->sock, ZMQ_MAXMSGSIZE, &cap, sizeof cap);
	zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
	zmq_setsockopt(s->sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
	zmq_setsockopt(s->sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
	NL_CHECK(live_curve_setup(s, err));
	if (zmq_bind(s->sock, o->listen) < 0)
		return nl_errf(err, NL_EIO, "--listen: '%s': %s", o->listen, zmq_strerror(errno));
	return 0;
}

int live_serve(const struct live_opts *o, struct nl_sim *sim, struct nl_err *err)
{
	struct live_server s = {.o = o, .n = o->n_ranks, .err = err};
	int rc;
	if (o->n_ranks == 0)
		return nl_errf(err, NL_ECONFIG, "--ranks: 0, expected at least 1");
	if (stats_hist_init(&s.residence_ns) < 0)
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	if (stats_hist_init(&s.lag_ns) < 0) {
		stats_hist_release(&s.residence_ns);
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	}
	s.ranks = calloc(o->n_ranks, sizeof *s.ranks);
	if (!s.ranks) {
		rc = nl_errf(err, NL_ENOMEM, "live: out of memory");
		goto out;
	}
	if ((rc = live_jobs_init(&s, err)) < 0)
		goto out;
	struct app_source src = {.n_ranks = o->n_ranks, .n_comms = s.comms ? s.n_jobs : 0, .comms = s.comms,
				 .next = live_next, .ctx = &s};
	struct session_src_opts so = {.src = &src, .trace_path = o->trace_path, .wall_compute = true,
				      .on_match = live_on_match, .match_ctx = &s};
	if ((rc = session_src_new(&s.eng, sim, &so, err)) < 0)
		goto out;
	if ((rc = live_bind(&s, err)) < 0)
		goto out;
	if ((rc = live_record_open(&s, err)) < 0)
		goto out;
	if (o->messages_path && !(s.msgs = fopen(o->messages_path, "w"))) {
		rc = nl_errf(err, NL_EIO, "--messages: '%s': %s", o->messages_path, strerror(errno));
		goto out;
	}
	s.start_ms = live_clock_ms();
	live_log(&s, "listening on %s for %" PRIu32 " ranks", o->listen, o->n_ranks);
	int run_rc = session_src_run(s.eng, err);
	if (run_rc < 0 && run_rc != NL_EDEADLOCK) {
		rc = run_rc;
		goto out;
	}
	for (uint32_t r = 0; r < s.n; r++) {
		struct live_rank *rk = &s.ranks[r];
		if (rk->state == LR_READY) {
			if (run_rc == NL_EDEADLOCK)
				live_send_error(&s, rk->id, rk->id_len, r, ZP_EDEADLOCK, err->msg);
			rk->state = rk->bye ? LR_DONE : rk->state;
		}
	}
	if (run_rc == NL_EDEADLOCK)
		live_log(&s, "%s", err->msg);
	if (s.msgs) {
		int bad = ferror(s.msgs);
		bad |= fclose(s.msgs);
		s.msgs = NULL;
		if (bad) {
			rc = nl_errf(err, NL_EIO, "--messages: '%s': write failed", o->messages_path);
			goto out;
		}
	}
	if (run_rc == 0 && (rc = live_record_close(&s, err)) < 0)
		goto out;
	struct nl_err rerr = {0};
	if ((rc = live_report(&s, run_rc, &rerr)) < 0) {
		*err = rerr;
		goto out;
	}
	/* Let the last frames (DONE of BYE, ERRORs) leave before the socket closes. */
	zmq_pollitem_t it = {.socket = s.sock, .events = ZMQ_POLLIN};
	zmq_poll(&it, 1, 50);
	rc = run_rc;
out:
	if (s.msgs)
		fclose(s.msgs);
	for (uint32_t r = 0; s.ranks && r < s.n; r++) {
		struct live_rank *rk = &s.ranks[r];
		live_queue_clear(rk);
		for (uint32_t i = 0; i < rk->n_pay; i++)
			zmq_msg_close(&rk->pay[i].msg);
		if (rk->w)
			trace_stream_abort(rk->w);
		if (rk->w_path)
			unlink(rk->w_path);
		free(rk->w_path);
		free(rk->q);
		free(rk->pay);
		free(rk->reqs);
		free(rk->recvs);
	}
	free(s.ranks);
	session_src_free(s.eng);
	live_jobs_free(&s);
	live_curve_free(&s);
	if (s.sock)
		zmq_close(s.sock);
	if (s.zctx)
		zmq_ctx_term(s.zctx);
	stats_hist_release(&s.residence_ns);
	stats_hist_release(&s.lag_ns);
	return rc;
}
