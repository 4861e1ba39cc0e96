/* `netloom serve`, receiving: frames from the ROUTER socket become queued
 * ops of the rank bound to the sending identity (HELLO binds it), or a
 * refusal counted against the sender; silent ranks are evicted. Nothing
 * here decides a time: the op source (serve_source.c) hands queued ops to
 * the engine in each rank's seq order when the engine asks. */
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

/* --- connected ranks: two intrusive lists over s->ranks, both of the
 * LR_READY ranks only: by last valid frame (oldest first, so the heartbeat
 * sweep looks at the head alone) and per job (whom an eviction tells). The
 * wall clock never goes back, so moving a rank to the tail keeps the first
 * list sorted. */

static void live_lru_unlink(struct live_server *s, uint32_t r)
{
	struct live_rank *rk = &s->ranks[r];
	if (rk->lru_prev != LIVE_NONE)
		s->ranks[rk->lru_prev].lru_next = rk->lru_next;
	else
		s->lru_head = rk->lru_next;
	if (rk->lru_next != LIVE_NONE)
		s->ranks[rk->lru_next].lru_prev = rk->lru_prev;
	else
		s->lru_tail = rk->lru_prev;
}

static void live_lru_append(struct live_server *s, uint32_t r)
{
	struct live_rank *rk = &s->ranks[r];
	rk->lru_prev = s->lru_tail;
	rk->lru_next = LIVE_NONE;
	if (s->lru_tail != LIVE_NONE)
		s->ranks[s->lru_tail].lru_next = r;
	else
		s->lru_head = r;
	s->lru_tail = r;
}

/* Rank r (LR_READY) sent a valid frame now. */
static void live_touch(struct live_server *s, uint32_t r)
{
	s->ranks[r].last_ms = live_clock_ms();
	if (s->lru_tail != r) {
		live_lru_unlink(s, r);
		live_lru_append(s, r);
	}
}

static void live_ready_add(struct live_server *s, uint32_t r)
{
	struct live_rank *rk = &s->ranks[r];
	uint32_t *head = &s->job_ready[s->job_of[r]];
	rk->state = LR_READY;
	rk->last_ms = live_clock_ms();
	live_lru_append(s, r);
	rk->job_prev = LIVE_NONE;
	rk->job_next = *head;
	if (*head != LIVE_NONE)
		s->ranks[*head].job_prev = r;
	*head = r;
}

static void live_ready_del(struct live_server *s, uint32_t r)
{
	struct live_rank *rk = &s->ranks[r];
	live_lru_unlink(s, r);
	if (rk->job_prev != LIVE_NONE)
		s->ranks[rk->job_prev].job_next = rk->job_next;
	else
		s->job_ready[s->job_of[r]] = rk->job_next;
	if (rk->job_next != LIVE_NONE)
		s->ranks[rk->job_next].job_prev = rk->job_prev;
}

void live_rank_done(struct live_server *s, uint32_t r)
{
	if (s->ranks[r].state != LR_READY)
		return;
	live_ready_del(s, r);
	s->ranks[r].state = LR_DONE;
}

static const char *const live_evict_kind_name[LE_N] = {"never connected", "heartbeat timeout", "other reasons"};

/* Evicts rank r and tells its own client, not its job: false if r had
 * already left (evicted or finished). */
static bool live_evict_quiet(struct live_server *s, uint32_t r, int kind, const char *why)
{
	struct live_rank *rk = &s->ranks[r];
	if (rk->state == LR_EVICTED || rk->state == LR_DONE)
		return false;
	bool was_connected = rk->state == LR_READY;
	if (was_connected)
		live_ready_del(s, r);
	rk->state = LR_EVICTED;
	rk->is_evicted_absent = !was_connected;
	s->evictions++;
	snprintf(rk->why, sizeof rk->why, "%s", why);
	uint64_t k = ++s->evicted_kind[kind];
	if (k <= LIVE_LOGGED_EVICTIONS)
		live_log(s, "rank %" PRIu32 " evicted: %s", r, why);
	if (k == LIVE_LOGGED_EVICTIONS)
		live_log(s, "evictions (%s): further ones are counted, not logged (the report names every rank)",
			 live_evict_kind_name[kind]);
	live_queue_clear(rk);
	if (was_connected) {
		char line[256];
		snprintf(line, sizeof line, "rank %" PRIu32 " evicted: %s", r, why);
		live_send_error(s, r, rk->id, rk->id_len, r, ZP_EEVICTED, line);
	}
	return true;
}

/* The notice (ERROR 9, header rank = the evicted rank) to each connected
 * rank of a job: the list, not every rank, so a sweep of k evictions is
 * not k * n (no other job can reach the rank). */
static void live_notify_job(struct live_server *s, uint32_t job, uint32_t about, const char *line)
{
	for (uint32_t p = s->job_ready[job]; p != LIVE_NONE; p = s->ranks[p].job_next)
		live_send_error(s, p, s->ranks[p].id, s->ranks[p].id_len, about, ZP_EEVICTED, line);
}

void live_evict(struct live_server *s, uint32_t r, int kind, const char *why)
{
	if (!live_evict_quiet(s, r, kind, why))
		return;
	char line[256];
	snprintf(line, sizeof line, "rank %" PRIu32 " evicted: %s", r, why);
	live_notify_job(s, s->job_of[r], r, line);
}

/* --- a sweep's notices, coalesced: a sweep (heartbeat timeouts, the
 * never-connected pass) evicts up to every rank of a job at once, and a
 * notice per eviction to each connected rank of the job was more frames
 * than the server queues for a connection (send_hwm, 1,000 at least):
 * 1,099 ranks that never connected got their job's one client evicted
 * for 'stopped reading'. One notice per job and sweep names the count and
 * the first ranks (docs/zmq-protocol.md, ERROR 9). The never-connected
 * pass goes in rank order and jobs are ranges of ranks: one notice per
 * job. The timeout sweep goes by last frame, so a notice goes out each
 * time the job changes: one per job when one job times out at once. */

#define LIVE_NOTICE_RANKS 8 /* ranks a coalesced notice names */

struct live_notice {
	uint32_t job;                       /* LIVE_NONE: none pending */
	uint32_t n;                         /* evictions pending in it */
	uint32_t first[LIVE_NOTICE_RANKS]; /* the first ones, in order */
	int kind;                           /* the first one's kind (LE_*) */
	char why[200];                      /* the first one's reason */
};

static void live_notice_flush(struct live_server *s, struct live_notice *nt)
{
	if (nt->job == LIVE_NONE || nt->n == 0)
		goto out;
	char line[512];
	if (nt->n == 1) {
		snprintf(line, sizeof line, "rank %" PRIu32 " evicted: %s", nt->first[0], nt->why);
	} else {
		int len = snprintf(line, sizeof line, "%" PRIu32 " ranks evicted (%s): ranks", nt->n,
				   live_evict_kind_name[nt->kind]);
		uint32_t shown = nt->n < LIVE_NOTICE_RANKS ? nt->n : LIVE_NOTICE_RANKS;
		for (uint32_t i = 0; i < shown && len > 0 && (size_t)len < sizeof line; i++)
			len += snprintf(line + len, sizeof line - (size_t)len, "%s %" PRIu32, i ? "," : "",
					nt->first[i]);
		if (len > 0 && (size_t)len < sizeof line)
			snprintf(line + len, sizeof line - (size_t)len, "%s; rank %" PRIu32 ": %s",
				 nt->n > shown ? ", ..." : "", nt->first[0], nt->why);
	}
	live_notify_job(s, nt->job, nt->first[0], line);
out:
	nt->job = LIVE_NONE;
	nt->n = 0;
}

static void live_evict_batched(struct live_server *s, struct live_notice *nt, uint32_t r, int kind, const char *why)
{
	if (nt->job != s->job_of[r])
		live_notice_flush(s, nt);
	if (!live_evict_quiet(s, r, kind, why))
		return;
	if (nt->n == 0) {
		nt->job = s->job_of[r];
		nt->kind = kind;
		snprintf(nt->why, sizeof nt->why, "%s", why);
	}
	if (nt->n < LIVE_NOTICE_RANKS)
		nt->first[nt->n] = r;
	nt->n++;
}

void live_evict_stalled(struct live_server *s)
{
	/* An eviction's notices can mark more ranks: they join the list. */
	while (s->stall_head != LIVE_NONE) {
		uint32_t r = s->stall_head;
		struct live_rank *rk = &s->ranks[r];
		s->stall_head = rk->stall_next;
		rk->stalled = false;
		char why[160];
		snprintf(why, sizeof why,
			 "stopped reading: %d frames queued for it (the most the server queues for a connection)",
			 s->send_hwm);
		live_evict(s, r, LE_OTHER, why);
	}
}

void live_evictions_summary(struct live_server *s)
{
	for (int k = 0; k < LE_N; k++)
		if (s->evicted_kind[k] > LIVE_LOGGED_EVICTIONS)
			live_log(s, "evictions (%s): %" PRIu64 " ranks in all, %" PRIu64 " not logged",
				 live_evict_kind_name[k], s->evicted_kind[k],
				 s->evicted_kind[k] - LIVE_LOGGED_EVICTIONS);
}

void live_check_timeouts(struct live_server *s)
{
	live_evict_stalled(s);
	struct live_notice nt = {.job = LIVE_NONE};
	uint64_t now = live_clock_ms();
	while (s->lru_head != LIVE_NONE && live_check_stop(s) == 0) {
		uint32_t r = s->lru_head;
		struct live_rank *rk = &s->ranks[r];
		if (now - rk->last_ms <= s->o->timeout_ms)
			break; /* the oldest is in time: so is every other */
		char why[256];
		if (rk->bad_streak)
			snprintf(why, sizeof why,
				 "no valid frame for more than %" PRIu32 " ms, %" PRIu64
				 " refused (heartbeat timeout; last: %.120s)",
				 s->o->timeout_ms, rk->bad_streak, rk->last_bad);
		else
			snprintf(why, sizeof why, "silent for more than %" PRIu32 " ms (heartbeat timeout)",
				 s->o->timeout_ms);
		live_evict_batched(s, &nt, r, LE_TIMEOUT, why);
	}
	live_notice_flush(s, &nt);
	if (s->absent_next < s->n && now - s->start_ms > s->o->connect_ms) {
		char why[128];
		snprintf(why, sizeof why, "never connected within %" PRIu32 " ms", s->o->connect_ms);
		/* One pass in the session; a signal stops it between ranks. */
		while (s->absent_next < s->n && live_check_stop(s) == 0) {
			uint32_t r = s->absent_next++;
			if (s->ranks[r].state == LR_ABSENT)
				live_evict_batched(s, &nt, r, LE_NEVER_CONNECTED, why);
		}
		live_notice_flush(s, &nt);
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

/* A refused frame: an ERROR to its sender, a log line (capped), and one
 * count, exactly one (docs/live.md "Robustness"): against the rank the
 * frame is about when there is one, else as a frame without a rank, so
 * live.refused_frames is the sum of the ranks' counts and the rankless one.
 * The rank it is about: `rank` when the sender holds it, or whoever sent it
 * when `named` (the rank field of a header that decoded: a HELLO refused
 * for it, an op for it from another connection). An undecoded header's
 * rank field (`named` false) is only a hint: it counts against that rank
 * only when the sender holds it, since garbage can name any rank. */
static void live_offence(struct live_server *s, const unsigned char *id, size_t id_len, int32_t rank, bool named,
			 int code, const char *msg)
{
	s->frames_bad++;
	char line[300];
	int about = -1;
	bool holds = false, quiet = false;
	if (rank >= 0 && (uint32_t)rank < s->n) {
		struct live_rank *rk = &s->ranks[rank];
		holds = rk->state != LR_ABSENT && rk->id_len == id_len && !memcmp(rk->id, id, id_len);
		if (holds || named) {
			about = rank;
			rk->offences++;
			/* A flood is logged a few times, then summed up in the report. */
			quiet = rk->offences > LIVE_LOGGED_REFUSALS;
			if (rk->offences == LIVE_LOGGED_REFUSALS + 1)
				live_log(s, "rank %d: further refused frames are counted, not logged", about);
		}
		if (holds) {
			rk->bad_streak++;
			snprintf(rk->last_bad, sizeof rk->last_bad, "%s", msg);
			if (!rk->why[0] || rk->state == LR_READY)
				snprintf(rk->why, sizeof rk->why, "sent a refused frame (%s)", msg);
		} else if (named) {
			rk->foreign++;
		}
	}
	if (about < 0) {
		/* Any connection can send these, as fast as it likes: one cap
		 * for all of them (a per-connection one would grow a table). */
		s->rankless_bad++;
		quiet = s->rankless_bad > LIVE_LOGGED_REFUSALS;
		if (s->rankless_bad == LIVE_LOGGED_REFUSALS + 1)
			live_log(s, "connections without a rank: further refused frames are counted, not logged");
	}
	if (holds)
		snprintf(line, sizeof line, "rank %d: %s", rank, msg);
	else if (rank >= 0)
		snprintf(line, sizeof line, "connection claiming rank %d: %s", rank, msg);
	else
		snprintf(line, sizeof line, "connection without a rank: %s", msg);
	if (!quiet)
		live_log(s, "%s", line);
	live_send_error(s, holds ? (uint32_t)rank : LIVE_NONE, id, id_len, rank >= 0 ? (uint32_t)rank : UINT32_MAX, code,
			line);
}

static void live_on_hello(struct live_server *s, const unsigned char *id, size_t id_len, const struct zp_hdr *h)
{
	char msg[320]; /* the longest: an evicted rank's, with its why (100) and what to do */
	if (h->rank >= s->n) {
		snprintf(msg, sizeof msg, "HELLO: rank %" PRIu32 ", expected 0..%" PRIu32, h->rank, s->n - 1);
		live_offence(s, id, id_len, -1, false, ZP_ERANK, msg);
		return;
	}
	if (s->o->tokens && h->a != s->o->tokens[h->rank]) {
		snprintf(msg, sizeof msg,
			 "HELLO: wrong token for rank %" PRIu32 ", expected the rank's token (--tokens; impersonation refused)",
			 h->rank);
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_ETOKEN, msg);
		struct live_rank *tr = &s->ranks[h->rank];
		/* An evicted or finished rank keeps its own story. */
		if (tr->state == LR_READY || tr->state == LR_ABSENT)
			snprintf(tr->why, sizeof tr->why,
				 "another connection claimed this rank with a wrong token (refused, %" PRIu64 " time%s)",
				 tr->foreign, tr->foreign == 1 ? "" : "s");
		return;
	}
	if (h->aux != s->job_of[h->rank] + 1) {
		snprintf(msg, sizeof msg, "HELLO: job %" PRIu32 " for rank %" PRIu32 ", expected %" PRIu32, h->aux,
			 h->rank, s->job_of[h->rank] + 1);
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_EJOB, msg);
		return;
	}
	struct live_rank *rk = &s->ranks[h->rank];
	bool same = rk->id_len == id_len && !memcmp(rk->id, id, id_len);
	/* An evicted or finished rank is said so, with why, whoever asks (a
	 * rank evicted before it connected is held by no connection). */
	if (rk->state == LR_EVICTED || rk->state == LR_DONE) {
		/* What to do, too: a client run again (or a second copy of it)
		 * cannot join the session its rank already left. */
		if (rk->state == LR_EVICTED)
			snprintf(msg, sizeof msg,
				 "HELLO: rank %" PRIu32 " was evicted (%.100s); a rank joins a session once, expected "
				 "a new session (netloom serve) to run it again",
				 h->rank, rk->why);
		else
			snprintf(msg, sizeof msg,
				 "HELLO: rank %" PRIu32 " has finished; a rank joins a session once, expected a new "
				 "session (netloom serve) to run it again",
				 h->rank);
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_ESTATE, msg);
		return;
	}
	if (rk->state != LR_ABSENT && !same) {
		snprintf(msg, sizeof msg, "HELLO: rank %" PRIu32 " is taken by another connection (%s), expected a rank no "
			 "connection holds", h->rank, live_state_name(rk->state));
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_ETAKEN, msg);
		char note[200];
		snprintf(note, sizeof note, "another connection tried to take this rank (refused, %" PRIu64 " time%s)",
			 rk->foreign, rk->foreign == 1 ? "" : "s");
		if (rk->state == LR_READY)
			snprintf(rk->why, sizeof rk->why, "%s", note);
		return;
	}
	if (rk->state == LR_READY) { /* this connection, again: the first HELLO's terms stay */
		snprintf(msg, sizeof msg, "HELLO: rank %" PRIu32 " already said HELLO on this connection, expected one HELLO",
			 h->rank);
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_ETAKEN, msg);
		return;
	}
	if (id_len > sizeof rk->id) {
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_EMALFORMED, "HELLO: identity longer than 255 bytes");
		return;
	}
	memcpy(rk->id, id, id_len);
	rk->id_len = (uint8_t)id_len;
	live_ready_add(s, h->rank);
	/* Paced: virtual time 0 is when the last rank has connected, so
	 * start-up skew is not counted as lag or compute. */
	if (++s->n_connected == s->n && s->o->pace > 0)
		s->w0_ns = live_clock_ns();
	rk->lean = h->flags & ZP_F_LEAN;
	rk->send_nowait = rk->lean && s->o->pace <= 0;
	struct zp_hdr w = {.type = ZP_WELCOME, .flags = rk->send_nowait ? ZP_F_SEND_NOWAIT : 0, .rank = h->rank,
			   .aux = s->n, .a = s->o->max_payload, .b = s->o->heartbeat_ms, .c = s->o->timeout_ms};
	if (h->flags & ZP_F_JOBINFO) {
		uint32_t first, size;
		live_job_range(s, h->rank, &first, &size);
		w.flags |= ZP_F_JOBINFO;
		w.peer = (int32_t)first;
		w.tag = (int32_t)size;
	}
	live_send(s, h->rank, id, id_len, &w, NULL, NULL, 0);
}

/* --- requests: a WAIT or WAITALL may name only an isend or irecv of the
 * rank that no accepted WAIT or WAITALL has named yet (rk->open, ascending,
 * as seqs only grow). */

static int live_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t live_open_find(const struct live_rank *rk, uint32_t seq)
{
	const uint32_t *p = rk->n_open ? bsearch(&seq, rk->open, rk->n_open, sizeof *rk->open, live_u32_cmp) : NULL;
	return p ? (uint32_t)(p - rk->open) : UINT32_MAX;
}

static int live_open_add(struct live_rank *rk, uint32_t seq)
{
	if (rk->n_open == rk->cap_open) {
		uint32_t cap = rk->cap_open ? 2 * rk->cap_open : 16;
		uint32_t *o = realloc(rk->open, cap * sizeof *o);
		if (!o)
			return NL_ENOMEM;
		rk->open = o;
		rk->cap_open = cap;
	}
	rk->open[rk->n_open++] = seq;
	return 0;
}

static int live_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* req[n], sorted: all distinct and open? Else the first offender (its
 * value in *bad, *dup whether it was named twice). O(n + n_open). */
static bool live_open_check(const struct live_rank *rk, const uint32_t *req, size_t n, uint32_t *bad, bool *dup)
{
	uint32_t j = 0;
	for (size_t i = 0; i < n; i++) {
		*bad = req[i];
		*dup = i > 0 && req[i] == req[i - 1];
		if (*dup)
			return false;
		while (j < rk->n_open && rk->open[j] < req[i])
			j++;
		if (j == rk->n_open || rk->open[j] != req[i])
			return false;
	}
	return true;
}

/* Drop req[n] (sorted, all open) from the open set, in one pass. */
static void live_open_take(struct live_rank *rk, const uint32_t *req, size_t n)
{
	uint32_t k = 0;
	size_t i = 0;
	for (uint32_t j = 0; j < rk->n_open; j++) {
		if (i < n && rk->open[j] == req[i])
			i++;
		else
			rk->open[k++] = rk->open[j];
	}
	rk->n_open = k;
}

/* msg for a server-to-client type (WELCOME, DONE, DELIVER, ERROR) sent by
 * a client: its name, and the types a client may send (docs/zmq-protocol.md
 * "Client to server": those below WELCOME), from proto.h's list. */
static void live_not_client_type(char *msg, size_t size, unsigned type)
{
	const char *names[ZP_WELCOME];
	unsigned n = 0;
	for (unsigned t = 0; t < ZP_WELCOME; t++)
		if (zp_type_name(t))
			names[n++] = zp_type_name(t);
	size_t len = (size_t)snprintf(msg, size, "%s (type %u) is a server-to-client type, expected a client to send only ",
				      zp_type_name(type), type);
	for (unsigned i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(msg + len, size - len, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " or ", names[i]);
}

/* One multipart message from the socket into parts: the identity, the
 * header and a payload kept, further frames closed; *n_frames counts
 * every frame after the identity. The number of parts kept, 0 when none
 * was waiting. */
static int live_recv_parts(struct live_server *s, zmq_msg_t parts[3], size_t *n_frames)
{
	int n = 0;
	bool more = true;
	*n_frames = 0;
	while (more) {
		zmq_msg_t m;
		zmq_msg_init(&m);
		if (zmq_msg_recv(&m, s->sock, ZMQ_DONTWAIT) < 0) {
			zmq_msg_close(&m);
			break;
		}
		more = zmq_msg_more(&m);
		if (n > 0)
			(*n_frames)++;
		if (n < 3)
			parts[n++] = m;
		else
			zmq_msg_close(&m);
	}
	return n;
}

/* The rank a header frame names (bytes 8..11), read before it is decoded,
 * so that a refused frame still counts against its rank; -1 when it
 * names none. */
static int32_t live_rank_hint(const struct live_server *s, zmq_msg_t *parts, int n)
{
	if (n < 2 || zmq_msg_size(&parts[1]) < 12)
		return -1;
	const uint8_t *p = zmq_msg_data(&parts[1]);
	uint32_t r = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
	return r < s->n ? (int32_t)r : -1;
}

/* The header frame decoded into *h; false after the ERROR refusing the
 * message (its frame count, version, size or fields). */
static bool live_decode(struct live_server *s, zmq_msg_t *parts, int n, size_t n_frames, const unsigned char *id,
			size_t id_len, struct zp_hdr *h)
{
	int32_t hint = live_rank_hint(s, parts, n);
	struct nl_err e = {0};
	if (n_frames < 1 || n_frames > 2) {
		char msg[120];
		snprintf(msg, sizeof msg, "message of %zu frames, expected a header frame and at most one payload frame",
			 n_frames);
		live_offence(s, id, id_len, hint, false, ZP_EMALFORMED, msg);
		return false;
	}
	/* A server's type (WELCOME..ERROR) is refused for being one, later,
	 * whatever its other fields: their checks are a client's. */
	const void *hdr = zmq_msg_data(&parts[1]);
	size_t hdr_len = zmq_msg_size(&parts[1]), pay_len = n == 3 ? zmq_msg_size(&parts[2]) : 0;
	int drc = zp_peek_server_type(hdr, hdr_len, h) ? 0
						       : zp_decode(hdr, hdr_len, n == 3, pay_len, s->o->max_payload, h, &e);
	if (drc == 0)
		return true;
	/* ERROR 6 only when the size is all that is wrong (zp_decode checks
	 * it last): a frame malformed otherwise is ERROR 1, whatever it
	 * carries, as its line says. */
	struct zp_hdr unused;
	bool big = n == 3 && pay_len > s->o->max_payload &&
		   zp_decode(hdr, hdr_len, 1, pay_len, UINT64_MAX, &unused, NULL) == 0;
	int code = big ? ZP_ETOOBIG : drc == NL_ERANGE ? ZP_EPEER : ZP_EMALFORMED;
	if (zp_is_other_version(hdr, hdr_len))
		code = ZP_EVERSION;
	live_offence(s, id, id_len, hint, false, code, e.msg);
	return false;
}

/* The rank h names, when the message came from the connection that
 * HELLOed as it; NULL after the ERROR refusing it. */
static struct live_rank *live_sender(struct live_server *s, const unsigned char *id, size_t id_len,
				     const struct zp_hdr *h)
{
	struct live_rank *rk = h->rank < s->n ? &s->ranks[h->rank] : NULL;
	if (rk && rk->state != LR_ABSENT && rk->id_len == id_len && !memcmp(rk->id, id, id_len))
		return rk;
	char msg[200];
	int code = rk ? ZP_ENOHELLO : ZP_ERANK;
	/* A server's type is wrong from any connection: said first, rather
	 * than the HELLO it did not send. */
	if (h->type >= ZP_WELCOME) {
		live_not_client_type(msg, sizeof msg, h->type);
		code = ZP_EMALFORMED;
	} else if (!rk) {
		/* No such rank (ERROR 3): said as HELLO says it, not as a
		 * missing HELLO, which no HELLO could mend. */
		snprintf(msg, sizeof msg, "%s: rank %" PRIu32 ", expected 0..%" PRIu32, zp_type_name(h->type), h->rank,
			 s->n - 1);
	} else {
		snprintf(msg, sizeof msg, "%s for rank %" PRIu32 " from a connection that did not HELLO as it",
			 zp_type_name(h->type), h->rank);
	}
	live_offence(s, id, id_len, rk ? (int32_t)h->rank : -1, true, code, msg);
	if (rk && rk->state == LR_READY)
		snprintf(rk->why, sizeof rk->why,
			 "another connection sent frames for this rank (refused, %" PRIu64 " time%s)", rk->foreign,
			 rk->foreign == 1 ? "" : "s");
	return NULL;
}

/* Does the rank still take messages: not past its BYE, not evicted or
 * finished? False after the ERROR that says why not. */
static bool live_rank_takes(struct live_server *s, struct live_rank *rk, const struct zp_hdr *h,
			    const unsigned char *id, size_t id_len)
{
	/* An op after the rank's BYE (queued or handed over): refused and
	 * counted; it was taken, then dropped with the rest of the queue. */
	if (rk->bye_in && h->type != ZP_HEARTBEAT && h->type < ZP_WELCOME && rk->state != LR_EVICTED) {
		char msg[200];
		snprintf(msg, sizeof msg, "%s: seq %" PRIu32 " after BYE (seq %" PRIu32 "), expected no further op",
			 zp_type_name(h->type), h->seq, rk->bye_seq);
		live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_ESTATE, msg);
		return false;
	}
	if (rk->state == LR_READY)
		return true;
	/* The rank's state, not a reason to refuse this frame: the reason is
	 * the eviction's, said so. */
	char line[sizeof rk->why + 40];
	if (rk->state == LR_EVICTED)
		snprintf(line, sizeof line, "rank %" PRIu32 " was evicted: %s", h->rank, rk->why);
	else
		snprintf(line, sizeof line, "rank %" PRIu32 " has finished", h->rank);
	live_send_error(s, h->rank, id, id_len, h->rank, ZP_EEVICTED, line);
	return false;
}

/* An op's fields against the rank's state: a client's type, the next
 * seq, a peer in range and in the rank's job, a WAIT's request open, a
 * COMPUTE's duration within bounds, room in the queue. False after the
 * ERROR (or eviction) that refuses it. */
static bool live_op_valid(struct live_server *s, struct live_rank *rk, const struct zp_hdr *h, const unsigned char *id,
			  size_t id_len)
{
	char msg[200];
	int code;
	if (h->type >= ZP_WELCOME) {
		live_not_client_type(msg, sizeof msg, h->type);
		code = ZP_EMALFORMED;
	} else if (h->seq != rk->next_seq) {
		snprintf(msg, sizeof msg, "%s: seq %" PRIu32 ", expected %" PRIu32, zp_type_name(h->type), h->seq,
			 rk->next_seq);
		code = ZP_ESTATE;
	} else if ((h->type == ZP_SEND && (uint32_t)h->peer >= s->n) ||
		   (h->type == ZP_RECV && h->peer != ZP_ANY && (uint32_t)h->peer >= s->n)) {
		snprintf(msg, sizeof msg, "%s: peer %" PRId32 ", expected 0..%" PRIu32 "%s", zp_type_name(h->type), h->peer,
			 s->n - 1, h->type == ZP_RECV ? " or -1 (any)" : "");
		code = ZP_EPEER;
	} else if ((h->type == ZP_SEND || (h->type == ZP_RECV && h->peer != ZP_ANY)) &&
		   live_job_peer_check(s, zp_type_name(h->type), h->rank, (uint32_t)h->peer, msg, sizeof msg)) {
		code = ZP_EPEER;
	} else if (h->type == ZP_WAIT && live_open_find(rk, h->aux) == UINT32_MAX) {
		snprintf(msg, sizeof msg, "WAIT: request %" PRIu32 ", expected the seq of an isend or irecv not waited for yet",
			 h->aux);
		code = ZP_ESTATE;
	} else if (h->type == ZP_COMPUTE && h->a > LIVE_TIME_MAX_PS - rk->declared_ps) {
		snprintf(msg, sizeof msg,
			 "COMPUTE: field 'a' (duration) is %" PRIu64 " ps, expected at most %" PRIu64
			 " (the rank's declared compute stays within 2^62 - 2^56 ps)",
			 h->a, LIVE_TIME_MAX_PS - rk->declared_ps);
		code = ZP_EMALFORMED;
	} else if (rk->q_n >= LIVE_QUEUE_MAX) {
		snprintf(msg, sizeof msg, "declared %" PRIu32 " ops ahead of virtual time, the most the server queues",
			 rk->q_n);
		live_evict(s, h->rank, LE_OTHER, msg);
		return false;
	} else {
		return true;
	}
	live_offence(s, id, id_len, (int32_t)h->rank, true, code, msg);
	return false;
}

/* A WAITALL's requests (its payload, u32 little-endian) into s->req_tmp,
 * sorted; false after the ERROR naming one that is not open, or named
 * twice. */
static bool live_waitall_reqs(struct live_server *s, struct live_rank *rk, zmq_msg_t *pay, const struct zp_hdr *h,
			      const unsigned char *id, size_t id_len, size_t *n_req)
{
	const uint8_t *p = zmq_msg_data(pay);
	size_t n = zmq_msg_size(pay) / 4; /* <= ZP_WAITALL_MAX: zp_decode checked */
	for (size_t i = 0; i < n; i++)
		s->req_tmp[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
				(uint32_t)p[4 * i + 3] << 24;
	qsort(s->req_tmp, n, sizeof *s->req_tmp, live_cmp_u32);
	uint32_t bad;
	bool dup;
	*n_req = n;
	if (live_open_check(rk, s->req_tmp, n, &bad, &dup))
		return true;
	char msg[200];
	snprintf(msg, sizeof msg, "WAITALL: request %" PRIu32 "%s, expected the seqs of isends or irecvs not waited for yet",
		 bad, dup ? " named twice" : "");
	live_offence(s, id, id_len, (int32_t)h->rank, true, ZP_ESTATE, msg);
	return false;
}

/* A valid op onto the rank's queue (taking a SEND's or WAITALL's payload)
 * and its effect on the rank: the requests it opens or waits for, its
 * declared compute, its BYE, the next seq expected. */
static void live_accept_op(struct live_server *s, struct live_rank *rk, const struct zp_hdr *h, zmq_msg_t *pay,
			   size_t n_req)
{
	bool nb_post = (h->type == ZP_SEND || h->type == ZP_RECV) && (h->flags & ZP_F_NONBLOCKING);
	if (nb_post && live_open_add(rk, h->seq) < 0) {
		s->fatal = nl_errf(&s->fatal_err, NL_ENOMEM, "live: out of memory queueing rank %" PRIu32 "'s ops", h->rank);
		return;
	}
	live_touch(s, h->rank);
	rk->bad_streak = 0;
	struct live_qop op = {.h = *h, .t_in_ns = live_clock_ns()};
	bool has_pay = h->type == ZP_SEND || h->type == ZP_WAITALL;
	if (has_pay) {
		zmq_msg_init(&op.pay);
		zmq_msg_move(&op.pay, pay);
	}
	if (live_queue_push(rk, &op) < 0) {
		if (has_pay)
			zmq_msg_close(&op.pay);
		if (nb_post)
			rk->n_open--;
		s->fatal = nl_errf(&s->fatal_err, NL_ENOMEM, "live: out of memory queueing rank %" PRIu32 "'s ops", h->rank);
		return;
	}
	if (h->type == ZP_WAIT) {
		uint32_t i = live_open_find(rk, h->aux);
		memmove(&rk->open[i], &rk->open[i + 1], (rk->n_open - i - 1) * sizeof *rk->open);
		rk->n_open--;
	} else if (h->type == ZP_WAITALL)
		live_open_take(rk, s->req_tmp, n_req);
	else if (h->type == ZP_COMPUTE)
		rk->declared_ps += h->a;
	else if (h->type == ZP_BYE) {
		rk->bye_in = true;
		rk->bye_seq = h->seq;
	}
	rk->next_seq++;
}

/* One multipart message from the socket: identity, header, [payload].
 * False when none was waiting. */
static bool live_on_message(struct live_server *s)
{
	zmq_msg_t parts[3];
	size_t n_frames, n_req = 0;
	int n = live_recv_parts(s, parts, &n_frames);
	if (n == 0)
		return false;
	s->frames_in++;
	const unsigned char *id = zmq_msg_data(&parts[0]);
	size_t id_len = zmq_msg_size(&parts[0]);
	struct zp_hdr h;
	struct live_rank *rk;
	if (!live_decode(s, parts, n, n_frames, id, id_len, &h))
		goto out;
	if (h.type == ZP_HELLO) {
		live_on_hello(s, id, id_len, &h);
		goto out;
	}
	if (!(rk = live_sender(s, id, id_len, &h)) || !live_rank_takes(s, rk, &h, id, id_len))
		goto out;
	if (h.type == ZP_HEARTBEAT) {
		live_touch(s, h.rank);
		rk->bad_streak = 0;
		goto out;
	}
	if (live_op_valid(s, rk, &h, id, id_len) &&
	    (h.type != ZP_WAITALL || live_waitall_reqs(s, rk, &parts[2], &h, id, id_len, &n_req)))
		live_accept_op(s, rk, &h, &parts[2], n_req);
out:
	for (int i = 0; i < n; i++)
		zmq_msg_close(&parts[i]);
	return true;
}

/* Read what is waiting, up to a bound so timeouts are still checked. */
static int live_drain(struct live_server *s)
{
	int got = 0;
	while (got < 4096 && live_on_message(s))
		got++;
	return got;
}

/* Serve the socket for up to wait_ms (0: only what is there now). The
 * socket is drained with non-blocking receives first: the engine calls this
 * once per op it pulls, and a zmq_poll is a poll(2) each time, while a
 * receive that finds nothing costs no system call (libzmq checks its
 * command mailbox at most every few hundred microseconds then). Only an
 * empty socket is polled, to sleep until a frame comes. */
void live_pump(struct live_server *s, long wait_ms)
{
	/* With CURVE, handshakes wait for the ZAP handler: poll it too. */
	zmq_pollitem_t it[2] = {{.socket = s->sock, .events = ZMQ_POLLIN}, {.socket = s->zap, .events = ZMQ_POLLIN}};
	if (s->zap && zmq_poll(&it[1], 1, 0) > 0)
		live_curve_serve(s);
	if (live_drain(s) > 0 || wait_ms == 0)
		return;
	if (zmq_poll(it, s->zap ? 2 : 1, wait_ms) > 0) {
		if (s->zap && (it[1].revents & ZMQ_POLLIN))
			live_curve_serve(s);
		if (it[0].revents & ZMQ_POLLIN)
			live_drain(s);
	}
}

