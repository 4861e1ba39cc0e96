/* `netloom serve`, the op source: the engine asks for rank r's next op
 * (live_next) in virtual-time order; the rank's queued op is translated
 * into a trace op (and recorded), a DONE for the previous op goes out, and
 * a match hands the send's payload to the receiver (live_on_match). Paced
 * mode holds releases until the wall clock reaches their virtual time and
 * measures how far behind it falls. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "adapters/zmq_port.h"

#include "adapters/adapters.h"
#include "adapters/adapters_internal.h"
#include "adapters/proto.h"
#include "core/error.h"
#include "core/stats.h"
#include "traces/trace.h"

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
		s->paced_last_ns = target;
		return;
	}
	s->paced_last_ns = now;
	uint64_t lag = now - target;
	stats_hist_add(&s->lag_ns, lag);
	if (lag > LIVE_LATE_NS) {
		/* Time behind: the wall time during which some release was
		 * overdue by more than the threshold, i.e. the union of the
		 * intervals [target + threshold, now]; `now` never decreases,
		 * so each interval adds only what lies past the last one. */
		uint64_t from = target + LIVE_LATE_NS;
		if (from < s->behind_until_ns)
			from = s->behind_until_ns;
		if (now > from)
			s->behind_ns += now - from;
		if (now > s->behind_until_ns)
			s->behind_until_ns = now;
		s->late++;
	}
	if (s->o->max_lag_ms && lag > (uint64_t)s->o->max_lag_ms * 1000000u && !s->fatal) {
		s->stopped_by = LS_MAX_LAG; /* a stop with the report so far, as a signal's */
		s->fatal = nl_errf(&s->fatal_err, NL_ETIMEOUT,
				   "paced: a release at virtual %.6f s came %.3f ms behind the wall clock, "
				   "over --max-lag-ms %" PRIu32,
				   (double)t_ps * 1e-12, (double)lag * 1e-6, s->o->max_lag_ms);
	}
}

static void live_reply_done(struct live_server *s, uint32_t r, uint32_t seq)
{
	live_pace_release(s, session_src_now(s->eng));
	{
	struct live_rank *rk = &s->ranks[r];
	struct zp_hdr h = {.type = ZP_DONE, .rank = r, .seq = seq, .a = session_src_now(s->eng)};
	live_send(s, r, rk->id, rk->id_len, &h, NULL, NULL, 0);
	}
}

/* --- the op source --------------------------------------------------------- */

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
	if (op->t_ps > LIVE_TIME_MAX_PS || dur_ps > LIVE_TIME_MAX_PS - op->t_ps) {
		/* A stop mid-session, as --max-lag-ms's: the work failing (exit
		 * 1, docs/results.md), not bad input (NL_ESTATE: cli_serve). */
		s->fatal = nl_errf(&s->fatal_err, NL_ESTATE,
				   "paced: virtual time would pass 2^62 - 2^56 ps (%.0f s), the most a session holds "
				   "(--pace %g: %.0f s of wall time)",
				   (double)LIVE_TIME_MAX_PS * 1e-12, s->o->pace, (double)LIVE_TIME_MAX_PS * 1e-12 / s->o->pace);
		if (err)
			*err = s->fatal_err;
		return s->fatal;
	}
	NL_CHECK(live_record_op(s, r, op, err));
	s->ranks[r].n_pulled++;
	return 1;
}

/* The time bound (LIVE_TIME_MAX_PS), checked on the op the engine is about
 * to start at t_ps: the receive check bounds only the rank's declared
 * compute; waits, messages and cpu_factor can carry it further. Past it:
 * ERROR 1, the op dropped, the rank evicted, and true. */
static bool live_time_check(struct live_server *s, uint32_t r, struct live_qop *q, uint64_t t_ps)
{
	struct live_rank *rk = &s->ranks[r];
	char line[240];
	if (q->h.type == ZP_COMPUTE) {
		/* As the engine scales it (app_scale_compute). */
		double d = s->cpu_factor == 1.0 ? (double)q->h.a : (double)q->h.a * s->cpu_factor;
		uint64_t room = t_ps < LIVE_TIME_MAX_PS ? LIVE_TIME_MAX_PS - t_ps : 0;
		if (s->cpu_factor == 1.0 ? q->h.a <= room : d <= (double)room)
			return false;
		if (s->cpu_factor != 1.0)
			snprintf(line, sizeof line,
				 "COMPUTE: field 'a' (duration) is %" PRIu64 " ps (%.0f with cpu_factor %g) at virtual "
				 "time %" PRIu64 " ps, expected at most %" PRIu64 " (bound 2^62 - 2^56 ps)",
				 q->h.a, d, s->cpu_factor, t_ps, room);
		else
			snprintf(line, sizeof line,
				 "COMPUTE: field 'a' (duration) is %" PRIu64 " ps at virtual time %" PRIu64
				 " ps, expected at most %" PRIu64 " (bound 2^62 - 2^56 ps)",
				 q->h.a, t_ps, room);
	} else {
		if (t_ps <= LIVE_TIME_MAX_PS)
			return false;
		snprintf(line, sizeof line,
			 "%s seq %" PRIu32 ": virtual time %" PRIu64 " ps, expected at most %" PRIu64
			 " (bound 2^62 - 2^56 ps)",
			 zp_type_name(q->h.type), q->h.seq, t_ps, LIVE_TIME_MAX_PS);
	}
	if (q->h.type == ZP_SEND || q->h.type == ZP_WAITALL)
		zmq_msg_close(&q->pay);
	/* "rank R: ", as every other refusal (live_offence); the eviction's
	 * notice says "rank R evicted: " before the same line. */
	char refusal[256];
	snprintf(refusal, sizeof refusal, "rank %" PRIu32 ": %s", r, line);
	live_send_error(s, r, rk->id, rk->id_len, r, ZP_EMALFORMED, refusal);
	live_evict(s, r, LE_OTHER, line);
	return true;
}

/* A SEND: a send op, its payload kept (rk->pay) until the receive it
 * matches takes it. */
static int live_send_op(struct live_rank *rk, struct live_qop *q, struct trace_op *op, struct nl_err *err)
{
	bool nb = q->h.flags & ZP_F_NONBLOCKING;
	op->kind = nb ? TOP_ISEND : TOP_SEND;
	op->peer = q->h.peer;
	op->tag = q->h.tag;
	op->bytes = zmq_msg_size(&q->pay);
	op->req = q->h.seq;
	if (rk->n_pay == rk->cap_pay) {
		uint32_t cap = rk->cap_pay ? 2 * rk->cap_pay : 16;
		struct live_pay *p = realloc(rk->pay, cap * sizeof *p);
		if (!p) {
			zmq_msg_close(&q->pay);
			return nl_errf(err, NL_ENOMEM, "live: out of memory");
		}
		rk->pay = p;
		rk->cap_pay = cap;
	}
	struct live_pay *p = &rk->pay[rk->n_pay++];
	p->op = rk->n_pulled;
	p->t_in_ns = q->t_in_ns;
	zmq_msg_init(&p->msg);
	zmq_msg_move(&p->msg, &q->pay);
	zmq_msg_close(&q->pay);
	return 0;
}

/* A RECV: a receive op, noted (rk->recvs) so its DONE can name the
 * client's seq. */
static int live_recv_op(struct live_rank *rk, const struct live_qop *q, struct trace_op *op, struct nl_err *err)
{
	if (rk->n_recvs == rk->cap_recvs) {
		uint32_t cap = rk->cap_recvs ? 2 * rk->cap_recvs : 16;
		struct live_recvmap *m = realloc(rk->recvs, cap * sizeof *m);
		if (!m)
			return nl_errf(err, NL_ENOMEM, "live: out of memory");
		rk->recvs = m;
		rk->cap_recvs = cap;
	}
	rk->recvs[rk->n_recvs++] = (struct live_recvmap){.op = rk->n_pulled, .seq = q->h.seq};
	op->kind = (q->h.flags & ZP_F_NONBLOCKING) ? TOP_IRECV : TOP_RECV;
	op->peer = q->h.peer == ZP_ANY ? TRACE_ANY_SOURCE : q->h.peer;
	op->tag = q->h.tag == ZP_ANY ? TRACE_ANY_TAG : q->h.tag;
	op->bytes = q->h.a;
	op->req = q->h.seq;
	return 0;
}

/* A WAITALL: its payload's request seqs (u32 little-endian) as the
 * op's requests. */
static int live_waitall_op(struct live_rank *rk, struct live_qop *q, struct trace_op *op, struct nl_err *err)
{
	size_t n = zmq_msg_size(&q->pay) / 4;
	if (n > rk->reqs_cap) {
		uint32_t *b = realloc(rk->reqs, n * sizeof *b);
		if (!b) {
			zmq_msg_close(&q->pay);
			return nl_errf(err, NL_ENOMEM, "live: out of memory");
		}
		rk->reqs = b;
		rk->reqs_cap = (uint32_t)n;
	}
	const uint8_t *p = zmq_msg_data(&q->pay);
	for (size_t i = 0; i < n; i++)
		rk->reqs[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
			      (uint32_t)p[4 * i + 3] << 24;
	zmq_msg_close(&q->pay);
	op->kind = TOP_WAITALL;
	op->reqs = rk->reqs;
	op->n_reqs = (uint32_t)n;
	return 0;
}

int live_next(void *ctx, uint32_t r, struct trace_op *op, struct nl_err *err)
{
	struct live_server *s = ctx;
	struct live_rank *rk = &s->ranks[r];
	if (rk->reply_due && rk->state == LR_READY) {
		live_reply_done(s, r, rk->reply_seq);
		rk->reply_due = false;
	}
	if (rk->bye) {
		live_rank_done(s, r);
		return 0;
	}
	if (live_check_stop(s) < 0) {
		if (err)
			*err = s->fatal_err;
		return s->fatal;
	}
	live_pump(s, 0);
	live_evict_stalled(s);
	bool paced = s->o->pace > 0;
	uint64_t t_engine = session_src_now(s->eng), t_op = 0;
	while (rk->state == LR_READY || rk->state == LR_ABSENT) {
		if (live_check_stop(s) < 0) {
			if (err)
				*err = s->fatal_err;
			return s->fatal;
		}
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
	if (live_time_check(s, r, &q, op->t_ps))
		return 0; /* evicted: its stream ends here */
	switch (q.h.type) {
	case ZP_SEND:
		NL_CHECK(live_send_op(rk, &q, op, err));
		break;
	case ZP_RECV:
		NL_CHECK(live_recv_op(rk, &q, op, err));
		break;
	case ZP_WAIT:
		op->kind = TOP_WAIT;
		op->req = q.h.aux;
		break;
	case ZP_WAITALL:
		NL_CHECK(live_waitall_op(rk, &q, op, err));
		break;
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
	/* A lean client waits for no DONE of a non-blocking post or a COMPUTE
	 * (the next blocking op's DONE covers them). */
	rk->reply_due = !(rk->lean && ((q.h.flags & ZP_F_NONBLOCKING) || q.h.type == ZP_COMPUTE)) &&
			!(rk->send_nowait && q.h.type == ZP_SEND);
	rk->reply_seq = q.h.seq;
	rk->n_pulled++;
	NL_CHECK(live_record_op(s, r, op, err));
	return 1;
}

/* A user receive completed: hand the send's payload to the receiver. */
void live_on_match(void *ctx, const struct app_match_info *mi)
{
	struct live_server *s = ctx;
	struct live_rank *src = &s->ranks[mi->src], *dst = &s->ranks[mi->dst];
	if (s->msgs) {
		live_match_line(s->msgs, mi);
		/* Its cause, kept: at the end ferror says only that a write
		 * failed. The session stops at once, as for a --record stream
		 * (live_record_op): the clients get ERROR 13 with the line,
		 * rather than run to the end for a log that is lost. */
		if (!s->msgs_errno && ferror(s->msgs)) {
			s->msgs_errno = errno ? errno : EIO;
			s->is_unwritten = true;
			if (!s->fatal)
				s->fatal = nl_errf(&s->fatal_err, NL_EIO, "--messages: %s: write failed: %s",
						   s->o->messages_path, strerror(s->msgs_errno));
		}
	}
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
	live_send(s, mi->dst, dst->id, dst->id_len, &h, &p.msg, NULL, 0);
	s->delivered++;
	s->job_delivered[s->job_of[mi->dst]]++;
}

