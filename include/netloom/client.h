/* libnetloom-client: connect a process to `netloom serve` as one rank
 * (docs/live.md, protocol in docs/zmq-protocol.md).
 *
 * Semantics are MPI's as replayed by netloom: point-to-point messages on
 * one communicator (all ranks), matched on (source, tag) with wildcards and
 * the non-overtaking rule; sends up to the server's eager threshold
 * complete at once, larger ones when the receiver has matched them
 * (rendezvous). Every call is one operation in the rank's stream, and the
 * server advances virtual time in lock-step, so the virtual times a program
 * sees depend only on what it does, never on the wall clock.
 *
 * Errors: calls return 0 or -1; nl_client_error() gives one line. An
 * argument refused by the client itself (a tag, a destination rank, a
 * payload size, a request never started or not pending) sends nothing and
 * the connection goes on, as after a truncated receive; after any other
 * error the connection is unusable (close it).
 * Not thread-safe: one rank, one thread.
 */
#ifndef NETLOOM_CLIENT_H
#define NETLOOM_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NL_CLIENT_API __attribute__((visibility("default")))
#else
#define NL_CLIENT_API
#endif

typedef struct nl_client nl_client;

#define NL_CLIENT_ANY (-1) /* source or tag wildcard for receives */
#define NL_CLIENT_TAG_MAX 0x3fffffff /* user tags 0..this; above is the library's */

/* What a completed receive got. Times are virtual, in picoseconds. */
struct nl_client_status {
	uint32_t source;
	int32_t tag;
	size_t bytes;          /* payload length */
	uint64_t t_sent_ps;    /* the send was posted */
	uint64_t t_arrived_ps; /* the payload arrived at this rank */
	uint64_t t_done_ps;    /* the receive completed */
};

/* Connect to `endpoint` (tcp://127.0.0.1:PORT, ipc://PATH) as `rank` of
 * job `job` (0..UINT32_MAX, the wire's field) with the rank's `token` (0
 * when the server sets none). Waits up to timeout_ms (<= 0: 10000) for
 * WELCOME, but fails at once when the server refuses the connection's
 * handshake or closes it after the handshake ("the server at 'EP' closed
 * the connection before answering HELLO: ..."); the same bound later
 * applies to any wait with no frame from the
 * server ("no answer from the server for N ms": raise it, and the
 * server's --timeout-ms, for ranks that compute for real between calls)
 * and to any send the server does not take ("server not reading for N ms",
 * e.g. once it is gone). A wait ends sooner, within a heartbeat interval,
 * when the server's end of the connection closes (a server killed):
 * "the server closed the connection (op seq S): ...". On failure *c is
 * NULL and -1 is returned; the reason is printed to no one: pass errbuf
 * (may be NULL) to get it; 1024 bytes hold any reason, a server's whole
 * ERROR text (at most 511 bytes, docs/zmq-protocol.md) included, as
 * nl_client_error() gives it. */
NL_CLIENT_API int nl_client_connect(nl_client **c, const char *endpoint, uint32_t rank, uint64_t job,
				    uint64_t token, int timeout_ms, char *errbuf, size_t errcap);

/* The same over CURVE (a server started with --curve-key): server_pub is
 * the server's .pub file, key_file this client's key pair (both written by
 * `netloom serve --curve-keygen`, docs/live.md "Encryption"). A server
 * that does not allow the client's key, or whose key is not server_pub's,
 * fails the handshake, and the call at once, saying which ("the server at
 * 'EP' refused this client's CURVE key (ZAP status 400): ..."). A
 * server_pub holding a secret key (the server's key pair given for its
 * .pub) is refused before any connection: a client never needs it. */
NL_CLIENT_API int nl_client_connect_curve(nl_client **c, const char *endpoint, uint32_t rank, uint64_t job,
					  uint64_t token, int timeout_ms, const char *server_pub,
					  const char *key_file, char *errbuf, size_t errcap);

NL_CLIENT_API uint32_t nl_client_rank(const nl_client *c);
NL_CLIENT_API uint32_t nl_client_size(const nl_client *c);
/* The world ranks of the caller's job (`netloom serve --jobs`, docs/live.md
 * "Jobs"): job_first .. job_first + job_size - 1, as the WELCOME gave
 * them, so a program builds its ring or grid over rank - job_first within
 * job_size while talking in world ranks. Without --jobs (one job of all
 * ranks): 0 and nl_client_size(). Python's Client.job_first and job_size.
 * A NULL client gives 0 for both. */
NL_CLIENT_API uint32_t nl_client_job_first(const nl_client *c);
NL_CLIENT_API uint32_t nl_client_job_size(const nl_client *c);
/* Virtual time, ps, from the server's last DONE: set when a blocking recv,
 * wait, waitall, barrier or close returns, at allreduce_sum's receives, and
 * when a blocking send returns in paced mode only. isend, irecv, compute
 * and a blocking send in lock-step mode (the default: it gets no DONE,
 * docs/zmq-protocol.md "Lean replies") leave it as it was. */
NL_CLIENT_API uint64_t nl_client_now_ps(const nl_client *c);
NL_CLIENT_API const char *nl_client_error(const nl_client *c);

/* Blocking send (MPI_Send): returns when the send completed in virtual time.
 * The buffer is copied before the call returns. tag in 0..NL_CLIENT_TAG_MAX,
 * dst in 0..nl_client_size()-1 (both refused locally otherwise). */
NL_CLIENT_API int nl_client_send(nl_client *c, uint32_t dst, int32_t tag, const void *buf, size_t len);
/* Non-blocking send (MPI_Isend): *req names it for nl_client_wait. The
 * buffer is copied at once and may be reused. */
NL_CLIENT_API int nl_client_isend(nl_client *c, uint32_t dst, int32_t tag, const void *buf, size_t len,
				  uint32_t *req);
/* Blocking receive into buf[cap] (src and tag may be NL_CLIENT_ANY); st may be NULL.
 * src in 0..nl_client_size()-1, tag in 0..NL_CLIENT_TAG_MAX (both refused
 * locally otherwise). A message longer than cap is an error (MPI's truncation). */
NL_CLIENT_API int nl_client_recv(nl_client *c, int32_t src, int32_t tag, void *buf, size_t cap,
				 struct nl_client_status *st);
/* Non-blocking receive: buf must stay valid until nl_client_wait(*req). */
NL_CLIENT_API int nl_client_irecv(nl_client *c, int32_t src, int32_t tag, void *buf, size_t cap, uint32_t *req);
/* Wait for a request of isend/irecv; st (receives only) may be NULL. A
 * request is pending until a wait names it: waiting on it again, or on
 * the seq of any other call, is refused locally ("wait: request 3 is not
 * pending (...), expected an isend or irecv not waited for yet"). */
NL_CLIENT_API int nl_client_wait(nl_client *c, uint32_t req, struct nl_client_status *st);
/* Wait for n requests at once (MPI_Waitall; n <= 4096), one round trip to
 * the server; st[n] (may be NULL) gets each request's status in order: a
 * receive's, all zeros for a send. n = 0 returns 0 at once, sending nothing
 * (reqs may then be NULL). Each request must be pending (as for
 * nl_client_wait) and named once, else refused locally, nothing sent. */
NL_CLIENT_API int nl_client_waitall(nl_client *c, const uint32_t *reqs, size_t n, struct nl_client_status *st);
/* Spend duration_ps of virtual time computing. Does not wait for the server.
 * -1 for a duration over 2^62 ps (the protocol's time bound), sent to no one. */
NL_CLIENT_API int nl_client_compute(nl_client *c, uint64_t duration_ps);
NL_CLIENT_API int nl_client_barrier(nl_client *c);
/* In-place sum of vals[n] over the ranks of the caller's job (all ranks
 * without `netloom serve --jobs`; the WELCOME gives the job's ranks): its
 * first rank reduces in rank order, then sends the sum back, on
 * point-to-point messages with the library's tag NL_CLIENT_TAG_MAX + 1;
 * bit-identical everywhere. Refused locally (-1, nothing sent): when
 * n * 8 bytes exceed the server's payload limit (every rank refuses alike),
 * and while a receive posted with tag NL_CLIENT_ANY has not been waited
 * for, since the wire's wildcard would match the allreduce's message (the
 * job's other ranks are not told: wait for such receives first). */
NL_CLIENT_API int nl_client_allreduce_sum(nl_client *c, double *vals, size_t n);
/* Say BYE, wait for the server's answer, free. NULL is a no-op; returns -1
 * when the BYE could not complete (the client is freed anyway). After an
 * error that made the connection unusable, frees and returns -1 at once. */
NL_CLIENT_API int nl_client_close(nl_client *c);

#ifdef __cplusplus
}
#endif

#endif
