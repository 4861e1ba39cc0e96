/* libnetloom-client (include/netloom/client.h): one DEALER socket per rank.
 * Every call is one op frame with the next seq; blocking calls wait for the
 * DONE answering that seq, while DELIVER frames (payloads of completed
 * receives, named by the receive's seq) are copied into the buffers the
 * receives gave. A wait with no frame sends a HEARTBEAT every interval the
 * server asked for, so a rank blocked in a call is never evicted. */
#include "netloom/client.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#include "adapters/client/client_internal.h"
#include "adapters/proto.h"
#include "core/error.h"

uint64_t cl_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int cl_fail(nl_client *c, const char *fmt, ...)
{
	/* One line whatever the endpoint text it quotes holds ("tcp://a\rb"). */
	char raw[CL_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	nl_str_one_line(c->err, sizeof c->err, raw);
	c->broken = true;
	return -1;
}

int cl_send(nl_client *c, struct zp_hdr *h, const void *pay, size_t len, bool has_pay)
{
	uint8_t buf[ZP_HDR_BYTES];
	h->version = ZP_VERSION;
	h->rank = c->rank;
	zp_encode(h, buf);
	/* ZMQ_SNDTIMEO = timeout_ms: a server gone (or not reading) fills
	 * the send queue, and zmq_send would block for ever. */
	if (zmq_send(c->sock, buf, sizeof buf, has_pay ? ZMQ_SNDMORE : 0) < 0 ||
	    (has_pay && zmq_send(c->sock, pay, len, 0) < 0)) {
		if (zmq_errno() == EAGAIN)
			return cl_fail(c, "server not reading for %d ms (op seq %u): it is gone or stuck", c->timeout_ms,
				       h->seq);
		return cl_fail(c, "send: %s", zmq_strerror(zmq_errno()));
	}
	c->last_tx_ms = cl_ms();
	return 0;
}

static struct nl_client_pending *cl_pending(nl_client *c, uint32_t seq, size_t *idx)
{
	for (size_t i = 0; i < c->n_pend; i++)
		if (c->pend[i].seq == seq) {
			if (idx)
				*idx = i;
			return &c->pend[i];
		}
	return NULL;
}

/* Handle one frame set from the server: 1, 0 when none was waiting (with
 * ZMQ_DONTWAIT), -1 on a fatal error. */
static int cl_handle(nl_client *c, int flags)
{
	zmq_msg_t hdr, pay;
	zmq_msg_init(&hdr);
	zmq_msg_init(&pay);
	int rc = 1;
	if (zmq_msg_recv(&hdr, c->sock, flags) < 0) {
		if (zmq_errno() == EAGAIN)
			rc = 0;
		else
			rc = cl_fail(c, "receive: %s", zmq_strerror(zmq_errno()));
		goto out;
	}
	bool has_pay = zmq_msg_more(&hdr);
	if (has_pay && zmq_msg_recv(&pay, c->sock, 0) < 0) {
		rc = cl_fail(c, "receive: %s", zmq_strerror(zmq_errno()));
		goto out;
	}
	/* Never from a v1 server. Drained by the frame, not by the payload
	 * frame's "more", which stays set: a third frame blocked the client
	 * for ever in zmq_msg_recv. */
	size_t extra = has_pay ? cl_drain_frames(c, &pay) : 0;
	if (extra) {
		rc = cl_fail(c, "bad frame from the server: message of %zu frames, expected a header frame and at "
				"most one payload frame", extra + 2);
		goto out;
	}
	struct zp_hdr h;
	struct nl_err e = {0};
	if (zp_decode(zmq_msg_data(&hdr), zmq_msg_size(&hdr), has_pay, zmq_msg_size(&pay), UINT64_MAX, &h, &e) < 0) {
		rc = cl_fail(c, "bad frame from the server: %s", e.msg);
		goto out;
	}
	switch (h.type) {
	case ZP_DONE:
		/* A DONE for an op not sent yet: done_seq would pass ops not
		 * taken (or wrap to 0 at seq 2^32 - 1, leaving every wait to
		 * time out). */
		if (h.seq >= c->seq) {
			rc = cl_fail(c, "bad frame from the server: DONE for seq %" PRIu32 ", expected an op sent "
					"(seq below %" PRIu32 ")", h.seq, c->seq);
			break;
		}
		c->now_ps = h.a;
		c->done_seq = h.seq + 1;
		break;
	case ZP_DELIVER: {
		struct nl_client_pending *p = cl_pending(c, h.seq, NULL);
		if (!p) {
			rc = cl_fail(c, "DELIVER for seq %u, which is no receive of ours", h.seq);
			break;
		}
		size_t len = zmq_msg_size(&pay);
		p->done = true;
		p->st = (struct nl_client_status){.source = (uint32_t)h.peer, .tag = h.tag, .bytes = len,
						  .t_sent_ps = h.a, .t_arrived_ps = h.b, .t_done_ps = h.c};
		if (len > p->cap)
			p->truncated = true;
		else if (len)
			memcpy(p->buf, zmq_msg_data(&pay), len);
		break;
	}
	case ZP_ERROR: {
		size_t n = has_pay ? zmq_msg_size(&pay) : 0;
		if (n > ZP_ERROR_TEXT_MAX) /* none from netloom's server; kept within int */
			n = ZP_ERROR_TEXT_MAX;
		if (h.tag == ZP_EEVICTED && h.rank != c->rank)
			break; /* a peer left; operations that need it will deadlock and say so */
		rc = cl_fail(c, "server: %s: %.*s", zp_err_text((unsigned)h.tag), (int)n,
			     has_pay ? (const char *)zmq_msg_data(&pay) : "");
		break;
	}
	case ZP_WELCOME:
		break;
	default:
		rc = cl_fail(c, "unexpected %s from the server", zp_type_name(h.type));
	}
out:
	zmq_msg_close(&hdr);
	zmq_msg_close(&pay);
	return rc;
}

size_t cl_drain_frames(nl_client *c, const zmq_msg_t *last)
{
	size_t n = 0;
	bool more = zmq_msg_more((zmq_msg_t *)last);
	while (more) {
		zmq_msg_t x;
		zmq_msg_init(&x);
		if (zmq_msg_recv(&x, c->sock, 0) < 0) {
			zmq_msg_close(&x);
			break;
		}
		more = zmq_msg_more(&x);
		zmq_msg_close(&x);
		n++;
	}
	return n;
}

/* The next event of sock's monitor, if one is there already. An event is
 * two frames: u16 event + u32 value, then the endpoint. */
bool cl_mon_event(nl_client *c, uint16_t *ev, uint32_t *value)
{
	zmq_msg_t m;
	zmq_msg_init(&m);
	bool got = c->mon && zmq_msg_recv(&m, c->mon, ZMQ_DONTWAIT) >= 0;
	*ev = 0;
	*value = 0;
	if (got && zmq_msg_size(&m) >= sizeof *ev + sizeof *value) {
		memcpy(ev, zmq_msg_data(&m), sizeof *ev);
		memcpy(value, (const char *)zmq_msg_data(&m) + sizeof *ev, sizeof *value);
	}
	if (got && zmq_msg_more(&m))
		zmq_msg_recv(&m, c->mon, 0);
	zmq_msg_close(&m);
	return got;
}

/* Whether the server's end of the connection closed: a server killed
 * (SIGKILL) or crashed sends no ERROR, and would otherwise be taken for one
 * waiting for other ranks until timeout_ms. Called only after a poll
 * interval with no frame, so every frame the server sent before it went
 * has been taken. libzmq would reconnect, but to no session of ours. */
static bool cl_server_gone(nl_client *c)
{
	bool gone = false;
	uint16_t ev;
	uint32_t value;
	while (cl_mon_event(c, &ev, &value))
		gone = gone || ev == ZMQ_EVENT_DISCONNECTED;
	return gone;
}

/* Wait until DONE for `seq` has come (done_seq > seq). */
static int cl_await(nl_client *c, uint32_t seq)
{
	uint64_t quiet_since = cl_ms();
	while (c->done_seq <= seq) {
		if (c->broken)
			return -1;
		/* What is there already first: a receive that finds nothing
		 * costs no system call, a zmq_poll always a poll(2). */
		int n = cl_handle(c, ZMQ_DONTWAIT);
		if (n < 0)
			return -1;
		if (n == 0) {
			zmq_pollitem_t it = {.socket = c->sock, .events = ZMQ_POLLIN};
			n = zmq_poll(&it, 1, c->hb_ms);
			if (n < 0)
				return cl_fail(c, "poll: %s", zmq_strerror(zmq_errno()));
			if (n > 0 && cl_handle(c, 0) < 0)
				return -1;
		}
		uint64_t now = cl_ms();
		if (n > 0) {
			quiet_since = now;
		} else if (cl_server_gone(c)) {
			return cl_fail(c,
				       "the server closed the connection (op seq %u): netloom serve exited or was killed; "
				       "its output says why, start a new session",
				       seq);
		} else if (now - quiet_since > (uint64_t)c->timeout_ms) {
			return cl_fail(c,
				       "no answer from the server for %d ms (op seq %u): it may be waiting for other "
				       "ranks; raise timeout_ms",
				       c->timeout_ms, seq);
		}
		if (now - c->last_tx_ms >= (uint64_t)c->hb_ms) {
			struct zp_hdr hb = {.type = ZP_HEARTBEAT};
			if (cl_send(c, &hb, NULL, 0, false) < 0)
				return -1;
		}
	}
	return 0;
}

/* Frees c; with drop, frames not yet sent are dropped at once (linger 0)
 * instead of holding zmq_ctx_term for up to a second. */
void cl_free(nl_client *c, bool drop)
{
	if (c->mon) {
		int linger = 0;
		zmq_socket_monitor(c->sock, NULL, 0);
		zmq_setsockopt(c->mon, ZMQ_LINGER, &linger, sizeof linger);
		zmq_close(c->mon);
	}
	if (c->sock) {
		int linger = 0;
		if (drop)
			zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof linger);
		zmq_close(c->sock);
	}
	if (c->zctx)
		zmq_ctx_term(c->zctx);
	free(c->pend);
	free(c->open);
	free(c);
}

/* A NULL client: 0 from the getters, -1 from the calls, and this line. */
static const char cl_null_msg[] = "NULL client, expected one from nl_client_connect";

uint32_t nl_client_rank(const nl_client *c) { return c ? c->rank : 0; }
uint32_t nl_client_size(const nl_client *c) { return c ? c->size : 0; }
uint32_t nl_client_job_first(const nl_client *c) { return c ? c->job_first : 0; }
uint32_t nl_client_job_size(const nl_client *c) { return c ? c->job_size : 0; }
uint64_t nl_client_now_ps(const nl_client *c) { return c ? c->now_ps : 0; }
const char *nl_client_error(const nl_client *c) { return c ? c->err : cl_null_msg; }

/* A NULL pointer the call would write through or read len > 0 bytes
 * from: refused locally (nothing sent, the connection goes on). */
static int cl_check_ptr(nl_client *c, const void *p, size_t len, const char *call, const char *what)
{
	if (p || !len)
		return 0;
	snprintf(c->err, sizeof c->err, "%s: NULL %s with %zu bytes, expected a buffer", call, what, len);
	return -1;
}

static int cl_check_out(nl_client *c, const void *p, const char *call, const char *what)
{
	if (p)
		return 0;
	snprintf(c->err, sizeof c->err, "%s: NULL %s, expected where to store the request", call, what);
	return -1;
}

/* A destination rank: the job's ranks are world ranks 0..size-1 on the wire. */
static int cl_check_dst(nl_client *c, uint32_t dst)
{
	if (dst >= c->size) {
		snprintf(c->err, sizeof c->err, "dst %u, expected 0..%u", dst, c->size - 1);
		return -1;
	}
	return 0;
}

/* A receive's source: a world rank 0..size-1 or NL_CLIENT_ANY, as the
 * Python client checks it. The server refuses any other (ERROR 8), which
 * for an irecv comes after the call returned, its seq taken here but not
 * there: every later op was then out of order. */
static int cl_check_src(nl_client *c, int32_t src)
{
	if (src != NL_CLIENT_ANY && (src < 0 || (uint32_t)src >= c->size)) {
		snprintf(c->err, sizeof c->err, "src %d, expected 0..%u or NL_CLIENT_ANY", src, c->size - 1);
		return -1;
	}
	return 0;
}

static int cl_check(nl_client *c, int32_t tag, bool wild_ok)
{
	if (!c || c->broken)
		return -1;
	if (tag > NL_CLIENT_TAG_MAX || tag < (wild_ok ? NL_CLIENT_ANY : 0)) {
		snprintf(c->err, sizeof c->err, "tag %d, expected 0..%d%s", tag, NL_CLIENT_TAG_MAX,
			 wild_ok ? " or NL_CLIENT_ANY" : "");
		return -1;
	}
	return 0;
}

/* --- the open requests (struct nl_client's open) */

/* Room for one more, made before the post is sent: a post the server
 * took is then always in the set. */
static int cl_open_reserve(nl_client *c)
{
	if (c->n_open < c->cap_open)
		return 0;
	size_t cap = c->cap_open ? 2 * c->cap_open : 16;
	uint32_t *o = realloc(c->open, cap * sizeof *o);
	if (!o)
		return cl_fail(c, "out of memory");
	c->open = o;
	c->cap_open = cap;
	return 0;
}

static int cl_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static bool cl_open_has(const nl_client *c, uint32_t seq)
{
	return c->n_open && bsearch(&seq, c->open, c->n_open, sizeof *c->open, cl_u32_cmp);
}

/* Drop req[n] (ascending, all open) from the set, in one pass. */
static void cl_open_take(nl_client *c, const uint32_t *req, size_t n)
{
	size_t k = 0, i = 0;
	for (size_t j = 0; j < c->n_open; j++) {
		if (i < n && c->open[j] == req[i])
			i++;
		else
			c->open[k++] = c->open[j];
	}
	c->n_open = k;
}

/* A request `call` may name: started, and open (the server's rule,
 * docs/zmq-protocol.md). Refused locally otherwise, nothing sent. */
static int cl_check_req(nl_client *c, const char *call, uint32_t req)
{
	if (req >= c->seq) {
		snprintf(c->err, sizeof c->err, "%s: request %u was never started", call, req);
		return -1;
	}
	if (!cl_open_has(c, req)) {
		snprintf(c->err, sizeof c->err,
			 "%s: request %u is not pending (waited for already, or not an isend or irecv), expected an "
			 "isend or irecv not waited for yet",
			 call, req);
		return -1;
	}
	return 0;
}

static int cl_isend(nl_client *c, uint32_t dst, int32_t tag, const void *buf, size_t len, uint16_t flags,
		    uint32_t *seq)
{
	if (len > c->max_payload) {
		snprintf(c->err, sizeof c->err, "payload of %zu byte%s, the server takes at most %llu", len,
			 len == 1 ? "" : "s", (unsigned long long)c->max_payload);
		return -1;
	}
	bool is_post = flags & ZP_F_NONBLOCKING;
	if (is_post && cl_open_reserve(c) < 0)
		return -1;
	struct zp_hdr h = {.type = ZP_SEND, .flags = flags, .seq = c->seq, .peer = (int32_t)dst, .tag = tag};
	if (cl_send(c, &h, buf, len, true) < 0)
		return -1;
	if (is_post)
		c->open[c->n_open++] = c->seq;
	*seq = c->seq++;
	return 0;
}

/* A blocking send: its DONE, unless the server said it sends none. */
static int cl_send_blocking(nl_client *c, uint32_t dst, int32_t tag, const void *buf, size_t len)
{
	uint32_t seq = 0;
	if (cl_isend(c, dst, tag, buf, len, 0, &seq) < 0)
		return -1;
	if (c->send_nowait) {
		/* Lock-step: the emulator replays it as a blocking send all the
		 * same; only take what is already there (an ERROR shows at once). */
		int n;
		while ((n = cl_handle(c, ZMQ_DONTWAIT)) > 0)
			;
		return n < 0 || c->broken ? -1 : 0;
	}
	return cl_await(c, seq);
}

int nl_client_send(nl_client *c, uint32_t dst, int32_t tag, const void *buf, size_t len)
{
	if (cl_check(c, tag, false) < 0 || cl_check_dst(c, dst) < 0 || cl_check_ptr(c, buf, len, "send", "buf") < 0)
		return -1;
	return cl_send_blocking(c, dst, tag, buf, len);
}

int nl_client_isend(nl_client *c, uint32_t dst, int32_t tag, const void *buf, size_t len, uint32_t *req)
{
	if (cl_check(c, tag, false) < 0 || cl_check_dst(c, dst) < 0 || cl_check_ptr(c, buf, len, "isend", "buf") < 0 ||
	    cl_check_out(c, req, "isend", "req") < 0)
		return -1;
	return cl_isend(c, dst, tag, buf, len, ZP_F_NONBLOCKING, req);
}

static int cl_irecv(nl_client *c, int32_t src, int32_t tag, void *buf, size_t cap, uint16_t flags, uint32_t *seq)
{
	if (c->broken)
		return -1;
	if (c->n_pend == c->cap_pend) {
		size_t n = c->cap_pend ? 2 * c->cap_pend : 8;
		struct nl_client_pending *p = realloc(c->pend, n * sizeof *p);
		if (!p)
			return cl_fail(c, "out of memory");
		c->pend = p;
		c->cap_pend = n;
	}
	bool is_post = flags & ZP_F_NONBLOCKING;
	if (is_post && cl_open_reserve(c) < 0)
		return -1;
	struct zp_hdr h = {.type = ZP_RECV, .flags = flags, .seq = c->seq, .peer = src, .tag = tag, .a = cap};
	if (cl_send(c, &h, NULL, 0, false) < 0)
		return -1;
	if (is_post)
		c->open[c->n_open++] = c->seq;
	c->pend[c->n_pend++] =
		(struct nl_client_pending){.seq = c->seq, .buf = buf, .cap = cap, .any_tag = tag == NL_CLIENT_ANY};
	*seq = c->seq++;
	return 0;
}

/* Collect a completed receive's status and forget it. */
static int cl_take(nl_client *c, uint32_t seq, struct nl_client_status *st)
{
	size_t i;
	struct nl_client_pending *p = cl_pending(c, seq, &i);
	if (!p) { /* a send */
		if (st)
			*st = (struct nl_client_status){0};
		return 0;
	}
	if (!p->done)
		return cl_fail(c, "receive %u completed without its payload", seq);
	bool trunc = p->truncated;
	if (st)
		*st = p->st;
	size_t len = p->st.bytes, cap = p->cap;
	c->pend[i] = c->pend[--c->n_pend];
	if (trunc) {
		snprintf(c->err, sizeof c->err, "message of %zu bytes truncated: the receive had room for %zu", len, cap);
		return -1;
	}
	return 0;
}

static int cl_recv(nl_client *c, int32_t src, int32_t tag, void *buf, size_t cap, struct nl_client_status *st)
{
	uint32_t seq = 0;
	if (cl_irecv(c, src, tag, buf, cap, 0, &seq) < 0 || cl_await(c, seq) < 0)
		return -1;
	return cl_take(c, seq, st);
}

int nl_client_recv(nl_client *c, int32_t src, int32_t tag, void *buf, size_t cap, struct nl_client_status *st)
{
	uint32_t seq = 0;
	if (cl_check(c, tag, true) < 0 || cl_check_src(c, src) < 0 || cl_check_ptr(c, buf, cap, "recv", "buf") < 0)
		return -1;
	if (cl_irecv(c, src, tag, buf, cap, 0, &seq) < 0 || cl_await(c, seq) < 0)
		return -1;
	return cl_take(c, seq, st);
}

int nl_client_irecv(nl_client *c, int32_t src, int32_t tag, void *buf, size_t cap, uint32_t *req)
{
	if (cl_check(c, tag, true) < 0 || cl_check_src(c, src) < 0 || cl_check_ptr(c, buf, cap, "irecv", "buf") < 0 ||
	    cl_check_out(c, req, "irecv", "req") < 0)
		return -1;
	return cl_irecv(c, src, tag, buf, cap, ZP_F_NONBLOCKING, req);
}

int nl_client_wait(nl_client *c, uint32_t req, struct nl_client_status *st)
{
	if (!c || c->broken)
		return -1;
	if (cl_check_req(c, "wait", req) < 0)
		return -1;
	struct zp_hdr h = {.type = ZP_WAIT, .seq = c->seq, .aux = req};
	if (cl_send(c, &h, NULL, 0, false) < 0)
		return -1;
	cl_open_take(c, &req, 1);
	if (cl_await(c, c->seq++) < 0)
		return -1;
	return cl_take(c, req, st);
}

int nl_client_waitall(nl_client *c, const uint32_t *reqs, size_t n, struct nl_client_status *st)
{
	if (!c || c->broken)
		return -1;
	if (n == 0) /* MPI_Waitall of none: nothing to wait for, nothing sent */
		return 0;
	if (!reqs) {
		snprintf(c->err, sizeof c->err, "waitall: NULL reqs with %zu requests, expected an array", n);
		return -1;
	}
	if (n > ZP_WAITALL_MAX) {
		snprintf(c->err, sizeof c->err, "waitall: %zu requests, expected 0..%u", n, ZP_WAITALL_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (cl_check_req(c, "waitall", reqs[i]) < 0)
			return -1;
	/* Sorted, to find a request named twice and to take them all from
	 * the open set in one pass. */
	uint32_t *sorted = malloc(n * sizeof *sorted);
	if (!sorted)
		return cl_fail(c, "out of memory");
	memcpy(sorted, reqs, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cl_u32_cmp);
	for (size_t i = 1; i < n; i++)
		if (sorted[i] == sorted[i - 1]) {
			snprintf(c->err, sizeof c->err, "waitall: request %u named twice, expected distinct requests",
				 sorted[i]);
			free(sorted);
			return -1;
		}
	uint8_t buf[4 * ZP_WAITALL_MAX];
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 4; b++)
			buf[4 * i + (size_t)b] = (uint8_t)(reqs[i] >> (8 * b));
	struct zp_hdr h = {.type = ZP_WAITALL, .seq = c->seq};
	int sent = cl_send(c, &h, buf, 4 * n, true);
	if (sent == 0)
		cl_open_take(c, sorted, n);
	free(sorted);
	if (sent < 0 || cl_await(c, c->seq++) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (cl_take(c, reqs[i], st ? &st[i] : NULL) < 0)
			rc = -1;
	return rc;
}

int nl_client_compute(nl_client *c, uint64_t duration_ps)
{
	if (!c || c->broken)
		return -1;
	if (duration_ps > ZP_TIME_MAX_PS) { /* the server would refuse it (docs/zmq-protocol.md, "Time bound") */
		snprintf(c->err, sizeof c->err, "compute: duration %llu ps, expected at most 2^62 = %llu ps",
			 (unsigned long long)duration_ps, (unsigned long long)ZP_TIME_MAX_PS);
		return -1;
	}
	struct zp_hdr h = {.type = ZP_COMPUTE, .seq = c->seq, .a = duration_ps};
	if (cl_send(c, &h, NULL, 0, false) < 0)
		return -1;
	c->seq++;
	return 0;
}

int nl_client_barrier(nl_client *c)
{
	if (!c || c->broken)
		return -1;
	struct zp_hdr h = {.type = ZP_BARRIER, .seq = c->seq};
	if (cl_send(c, &h, NULL, 0, false) < 0)
		return -1;
	return cl_await(c, c->seq++);
}

#define CL_TAG_ALLREDUCE (NL_CLIENT_TAG_MAX + 1)

/* Over the ranks of the caller's job (WELCOME's job range): its first rank
 * reduces in rank order, then sends the sum back. */
int nl_client_allreduce_sum(nl_client *c, double *vals, size_t n)
{
	if (!c || c->broken)
		return -1;
	if (cl_check_ptr(c, vals, n * sizeof *vals, "allreduce_sum", "vals") < 0)
		return -1;
	/* Refused on every rank alike, before any message: what one rank
	 * refuses, all do, so none waits for the others. */
	if (n > c->max_payload / sizeof *vals) {
		snprintf(c->err, sizeof c->err, "allreduce_sum: %zu value%s (%zu bytes%s), the server takes at most %llu byte%s",
			 n, n == 1 ? "" : "s", sizeof *vals, n == 1 ? "" : " each", (unsigned long long)c->max_payload,
			 c->max_payload == 1 ? "" : "s");
		return -1;
	}
	/* The wire's tag wildcard matches the library's tag too: a user
	 * receive with tag NL_CLIENT_ANY posted earlier would take this
	 * allreduce's message (receives match in posting order). */
	for (size_t i = 0; i < c->n_pend; i++)
		if (c->pend[i].any_tag) {
			snprintf(c->err, sizeof c->err,
				 "allreduce_sum: receive %u (tag NL_CLIENT_ANY) is still pending and would take the "
				 "allreduce's message; wait for it first",
				 c->pend[i].seq);
			return -1;
		}
	size_t bytes = n * sizeof *vals;
	uint32_t root = c->job_first, end = c->job_first + c->job_size;
	if (c->rank == root) {
		double *tmp = malloc(bytes ? bytes : 1);
		if (!tmp)
			return cl_fail(c, "out of memory");
		for (uint32_t r = root + 1; r < end; r++) {
			if (cl_recv(c, (int32_t)r, CL_TAG_ALLREDUCE, tmp, bytes, NULL) < 0) {
				free(tmp);
				return -1;
			}
			for (size_t i = 0; i < n; i++)
				vals[i] += tmp[i];
		}
		free(tmp);
		for (uint32_t r = root + 1; r < end; r++)
			if (cl_send_blocking(c, r, CL_TAG_ALLREDUCE, vals, bytes) < 0)
				return -1;
		return 0;
	}
	if (cl_send_blocking(c, root, CL_TAG_ALLREDUCE, vals, bytes) < 0)
		return -1;
	return cl_recv(c, (int32_t)root, CL_TAG_ALLREDUCE, vals, bytes, NULL);
}

int nl_client_close(nl_client *c)
{
	if (!c)
		return 0;
	int rc = -1;
	if (!c->broken) {
		struct zp_hdr h = {.type = ZP_BYE, .seq = c->seq};
		if (cl_send(c, &h, NULL, 0, false) == 0)
			rc = cl_await(c, c->seq++);
	}
	cl_free(c, rc < 0);
	return rc;
}
