/* libnetloom-client's connection (nl_client_connect, _curve): the DEALER
 * socket with its monitor started before it connects, the HELLO, and the
 * wait for the WELCOME, failing at once with the reason when a handshake
 * is refused or the server closes, else at the timeout with how far the
 * connection got. */
#include "netloom/client.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "adapters/client/client_internal.h"
#include "adapters/curve_keys.h"
#include "adapters/proto.h"
#include "core/error.h"

/* The connection events a client acts on: before the WELCOME, a
 * handshake refused or a connection the server closed says why at once
 * (cl_hello_event), where the connect timeout would only say that no
 * server answered; from the WELCOME on, the server closing its end
 * (cl_server_gone). */
#define CL_MON_EVENTS                                                                               \
	(ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |                    \
	 ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

/* Watch sock's connection events, from before it connects so none is
 * missed. Without a monitor only the timeouts tell. */
static void cl_watch(nl_client *c)
{
	static const char addr[] = "inproc://netloom-client-monitor"; /* one per context: one per client */
	if (zmq_socket_monitor(c->sock, addr, CL_MON_EVENTS) < 0)
		return;
	c->mon = zmq_socket(c->zctx, ZMQ_PAIR);
	if (c->mon && zmq_connect(c->mon, addr) < 0) {
		zmq_close(c->mon);
		c->mon = NULL;
	}
	if (!c->mon)
		zmq_socket_monitor(c->sock, NULL, 0);
}

/* How far the HELLO's connection got, as its events tell (the connect
 * timeout's line says which). */
enum cl_reach {
	CL_REACH_NONE,      /* nothing took the connection */
	CL_REACH_CONNECTED, /* a process took it, no ZeroMQ handshake completed */
	CL_REACH_SHOOK      /* the handshake completed */
};

/* A connection event while the HELLO waits for its WELCOME: -1 (c failed,
 * saying why) for a handshake the server refused or a connection it
 * closed after the handshake, which no retry mends (the HELLO went with
 * the connection); 0 for the rest (a connection not made is retried by
 * libzmq until the connect timeout). The lines are the Python client's
 * (netloom_client.py, _hello_event). */
static int cl_hello_event(nl_client *c, const char *endpoint, bool curve, uint16_t ev, uint32_t value,
			  enum cl_reach *reach)
{
	switch (ev) {
	case ZMQ_EVENT_CONNECTED:
		if (*reach == CL_REACH_NONE)
			*reach = CL_REACH_CONNECTED;
		return 0;
	case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
		*reach = CL_REACH_SHOOK;
		return 0;
	case ZMQ_EVENT_DISCONNECTED:
		if (*reach != CL_REACH_SHOOK)
			return 0;
		return cl_fail(c,
			       "the server at '%s' closed the connection before answering HELLO: netloom serve stopped or "
			       "was killed; its output says why, start a new session",
			       endpoint);
	case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: /* value: the ZAP status code */
		return cl_fail(c,
			       "the server at '%s' refused this client's CURVE key (ZAP status %u): add the key file's "
			       "public key (its .pub) to the server's --curve-allow file",
			       endpoint, value);
	case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL: /* value: libzmq's ZMQ_PROTOCOL_ERROR_* */
		if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH && !curve)
			return cl_fail(c,
				       "the server at '%s' requires CURVE (netloom serve --curve-key): give this client "
				       "the server's public key file and a key pair of its own (docs/live.md, Encryption)",
				       endpoint);
		if (!curve)
			return cl_fail(c,
				       "the handshake with '%s' failed (libzmq protocol error 0x%x): expected netloom "
				       "serve there",
				       endpoint, value);
		/* A CURVE handshake that failed: */
		/* fall through */
	case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
		/* What a client holding another server's public key gets (the
		 * server cannot read its handshake), and one that tries CURVE
		 * on a server without it. A client without CURVE on a CURVE
		 * server gets it too, as often as the mechanism mismatch, when
		 * the server closes first (EPIPE). */
		if (curve)
			return cl_fail(c,
				       "the CURVE handshake with '%s' failed: the server there does not use CURVE, or its "
				       "key is not the one in the server public key file given (expected the .pub of its "
				       "--curve-key)",
				       endpoint);
		return cl_fail(c,
			       "the handshake with '%s' failed (libzmq gives no detail): expected netloom serve there; "
			       "one started with --curve-key refuses a client without the server's public key file and "
			       "a key pair of its own (docs/live.md, Encryption)",
			       endpoint);
	default:
		return 0;
	}
}

/* Why no WELCOME came, by how far the connection got, as the Python
 * client says it. */
static const char *cl_no_welcome_why(enum cl_reach reach)
{
	switch (reach) {
	case CL_REACH_SHOOK:
		return "the server there completed the handshake but did not answer HELLO (stopped or stuck?); its "
		       "output says why, or raise timeout_ms";
	case CL_REACH_CONNECTED:
		/* The kernel takes a connection for a stopped process too
		 * (SIGSTOP): its libzmq completes no handshake either. */
		return "a process there took the connection but completed no ZeroMQ handshake; expected netloom "
		       "serve there, running (one stopped, SIGSTOP, completes none either)";
	default:
		return "no server answered there; start netloom serve --listen on it first, or raise timeout_ms";
	}
}

/* Give sock the CURVE keys: the server's public key from server_pub,
 * this client's pair from key_file. */
static int cl_set_curve(nl_client *c, const char *server_pub, const char *key_file)
{
	char spub[ZP_Z85_KEY + 1], pub[ZP_Z85_KEY + 1], sec[ZP_Z85_KEY + 1];
	struct nl_err e = {0};
	if (!server_pub || !key_file)
		return cl_fail(c, "CURVE: expected both the server's public key file and this client's key file");
	if (zp_curve_read(server_pub, spub, NULL, &e) < 0 || zp_curve_read(key_file, pub, sec, &e) < 0)
		return cl_fail(c, "%s", e.msg);
	int ok = zmq_setsockopt(c->sock, ZMQ_CURVE_SERVERKEY, spub, ZP_Z85_KEY + 1) == 0 &&
		 zmq_setsockopt(c->sock, ZMQ_CURVE_PUBLICKEY, pub, ZP_Z85_KEY + 1) == 0 &&
		 zmq_setsockopt(c->sock, ZMQ_CURVE_SECRETKEY, sec, ZP_Z85_KEY + 1) == 0;
	memset(sec, 0, sizeof sec);
	return ok ? 0 : cl_fail(c, "CURVE: %s", zmq_strerror(zmq_errno()));
}

/* Take the server's answer to HELLO: a WELCOME sets the session's sizes;
 * an ERROR or anything else fails c. */
static int cl_take_welcome(nl_client *c)
{
	zmq_msg_t m;
	zmq_msg_init(&m);
	zmq_msg_recv(&m, c->sock, 0);
	bool more = zmq_msg_more(&m);
	zmq_msg_t p;
	zmq_msg_init(&p);
	if (more)
		zmq_msg_recv(&p, c->sock, 0);
	size_t extra = more ? cl_drain_frames(c, &p) : 0;
	struct zp_hdr w;
	struct nl_err e = {0};
	int rc = zp_decode(zmq_msg_data(&m), zmq_msg_size(&m), more, zmq_msg_size(&p), UINT64_MAX, &w, &e);
	if (extra) {
		cl_fail(c, "bad answer to HELLO: message of %zu frames, expected a header frame and at most one "
			   "payload frame", extra + 2);
	} else if (rc == 0 && w.type == ZP_WELCOME && w.rank != c->rank) {
		/* Taken, the client ran as a rank it did not ask to be. */
		cl_fail(c, "bad answer to HELLO: WELCOME for rank %" PRIu32 ", expected %" PRIu32, w.rank, c->rank);
	} else if (rc == 0 && w.type == ZP_WELCOME) {
		c->size = w.aux;
		c->max_payload = w.a;
		c->send_nowait = w.flags & ZP_F_SEND_NOWAIT;
		c->job_first = w.flags & ZP_F_JOBINFO ? (uint32_t)w.peer : 0;
		c->job_size = w.flags & ZP_F_JOBINFO ? (uint32_t)w.tag : w.aux;
		if (w.b > 0 && w.b < 60000)
			c->hb_ms = (int)w.b;
	} else if (rc == 0 && w.type == ZP_ERROR) {
		cl_fail(c, "server refused HELLO: %s: %.*s", zp_err_text((unsigned)w.tag), (int)zmq_msg_size(&p),
			(const char *)zmq_msg_data(&p));
	} else {
		cl_fail(c, "bad answer to HELLO: %s", rc < 0 ? e.msg : zp_type_name(w.type));
	}
	zmq_msg_close(&m);
	zmq_msg_close(&p);
	return c->broken ? -1 : 0;
}

/* Wait up to timeout_ms for the answer to the HELLO just sent, failing
 * sooner on what the connection's events say no wait mends
 * (cl_hello_event). */
static int cl_await_welcome(nl_client *c, const char *endpoint, bool curve)
{
	zmq_pollitem_t it[2] = {{.socket = c->sock, .events = ZMQ_POLLIN}, {.socket = c->mon, .events = ZMQ_POLLIN}};
	enum cl_reach reach = CL_REACH_NONE;
	uint64_t t0 = cl_ms();
	while (!c->size) {
		long left = (long)c->timeout_ms - (long)(cl_ms() - t0);
		if (left <= 0)
			return cl_fail(c, "no WELCOME from '%s' within %d ms: %s", endpoint, c->timeout_ms,
				       cl_no_welcome_why(reach));
		if (zmq_poll(it, c->mon ? 2 : 1, left) <= 0)
			continue;
		/* Frames first: a WELCOME or ERROR that came before the server
		 * closed the connection says more than the closing. */
		if (it[0].revents & ZMQ_POLLIN) {
			if (cl_take_welcome(c) < 0)
				return -1;
			continue;
		}
		uint16_t ev;
		uint32_t value;
		while (cl_mon_event(c, &ev, &value))
			if (cl_hello_event(c, endpoint, curve, ev, value, &reach) < 0)
				return -1;
	}
	return 0;
}

static int cl_connect(nl_client **out, const char *endpoint, uint32_t rank, uint64_t job, uint64_t token,
		      int timeout_ms, const char *server_pub, const char *key_file, char *errbuf, size_t errcap)
{
	/* libzmq asserts on a NULL endpoint (aborting the program). */
	if (!out || !endpoint) {
		if (out)
			*out = NULL;
		if (errbuf && errcap)
			snprintf(errbuf, errcap, "connect: NULL %s, expected %s", out ? "endpoint" : "client pointer",
				 out ? "tcp://HOST:PORT or ipc://PATH" : "where to store the client");
		return -1;
	}
	*out = NULL;
	nl_client *c = calloc(1, sizeof *c);
	if (!c) {
		if (errbuf && errcap)
			snprintf(errbuf, errcap, "out of memory");
		return -1;
	}
	c->rank = rank;
	c->hb_ms = 200;
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
	int linger = 1000;
	if (job > UINT32_MAX) { /* HELLO's job field is 32 bits */
		cl_fail(c, "job %llu, expected 0..%u", (unsigned long long)job, UINT32_MAX);
		goto fail;
	}
	c->zctx = zmq_ctx_new();
	c->sock = c->zctx ? zmq_socket(c->zctx, ZMQ_DEALER) : NULL;
	if (!c->sock) {
		cl_fail(c, "zmq socket: %s", zmq_strerror(zmq_errno()));
		goto fail;
	}
	int ipv6 = 1; /* tcp://[::1]:PORT and other IPv6 addresses too */
	zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof linger);
	zmq_setsockopt(c->sock, ZMQ_IPV6, &ipv6, sizeof ipv6);
	zmq_setsockopt(c->sock, ZMQ_SNDTIMEO, &c->timeout_ms, sizeof c->timeout_ms);
	if ((server_pub || key_file) && cl_set_curve(c, server_pub, key_file) < 0)
		goto fail;
	cl_watch(c);
	if (zmq_connect(c->sock, endpoint) < 0) {
		/* libzmq's word alone ("Invalid argument") does not say what an
		 * endpoint looks like: a scheme or address it cannot take does. */
		int e = zmq_errno();
		bool form = e == EINVAL || e == EPROTONOSUPPORT || e == ENOCOMPATPROTO || e == ENAMETOOLONG;
		cl_fail(c, "connect '%s': %s%s", endpoint, zmq_strerror(e),
			form ? ", expected tcp://HOST:PORT or ipc://PATH (as netloom serve --listen gives it)" : "");
		goto fail;
	}
	/* Lean: no DONE for non-blocking posts and COMPUTE, which it never
	 * awaits; job info: the job's ranks, where allreduce runs. */
	struct zp_hdr h = {.type = ZP_HELLO, .flags = ZP_F_LEAN | ZP_F_JOBINFO, .aux = (uint32_t)job, .a = token};
	if (cl_send(c, &h, NULL, 0, false) < 0 || cl_await_welcome(c, endpoint, server_pub != NULL) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	if (errbuf && errcap)
		snprintf(errbuf, errcap, "%s", c->err);
	cl_free(c, true);
	return -1;
}

int nl_client_connect(nl_client **out, const char *endpoint, uint32_t rank, uint64_t job, uint64_t token,
		      int timeout_ms, char *errbuf, size_t errcap)
{
	return cl_connect(out, endpoint, rank, job, token, timeout_ms, NULL, NULL, errbuf, errcap);
}

int nl_client_connect_curve(nl_client **out, const char *endpoint, uint32_t rank, uint64_t job, uint64_t token,
			    int timeout_ms, const char *server_pub, const char *key_file, char *errbuf, size_t errcap)
{
	return cl_connect(out, endpoint, rank, job, token, timeout_ms, server_pub, key_file, errbuf, errcap);
}
