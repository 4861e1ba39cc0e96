/* libnetloom-client's internals (adapters/client/): one client's state,
 * shared by the calls (client.c) and the connection with its handshake
 * (client_connect.c). Hidden: only include/netloom/client.h is exported. */
#ifndef NETLOOM_ADAPTERS_CLIENT_INTERNAL_H
#define NETLOOM_ADAPTERS_CLIENT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netloom/client.h"
#include "adapters/proto.h"

struct nl_client_pending {
	uint32_t seq;          /* the irecv/recv op */
	bool any_tag;          /* posted with tag NL_CLIENT_ANY: could match allreduce's messages */
	void *buf;
	size_t cap;
	bool done;
	bool truncated;
	struct nl_client_status st;
};

/* Room for the longest error line: "server refused HELLO: ", an error
 * name and the server's whole text (ZP_ERROR_TEXT_MAX bytes), as the
 * Python client gives it (the text was cut at 200 bytes). */
#define CL_ERR_MAX (ZP_ERROR_TEXT_MAX + 256)

struct nl_client {
	void *zctx, *sock;
	void *mon;                 /* PAIR with sock's connection events (cl_watch; NULL: none) */
	uint32_t rank, size;
	uint32_t job_first, job_size; /* the world ranks of this rank's job (WELCOME with ZP_F_JOBINFO) */
	uint32_t seq;              /* seq of the next op */
	uint64_t max_payload;
	int hb_ms, timeout_ms;
	uint64_t now_ps;
	uint64_t last_tx_ms;
	uint32_t done_seq;         /* highest DONE seen + 1 (0 none) */
	struct nl_client_pending *pend;
	size_t n_pend, cap_pend;
	/* Requests a WAIT or WAITALL may name, as the server keeps them: the
	 * seqs of isends and irecvs no wait has named yet, ascending (seqs
	 * only grow). Any other is refused here, before the server would
	 * answer ERROR 10 and end the connection. */
	uint32_t *open;
	size_t n_open, cap_open;
	bool broken;
	bool send_nowait;     /* WELCOME's ZP_F_SEND_NOWAIT: a blocking send gets no DONE */
	char err[CL_ERR_MAX];
};

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t cl_ms(void);
/* Say why c failed (one line, into c->err), mark it broken; -1. */
int cl_fail(nl_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Send header h (its version and rank filled here) and, with has_pay,
 * its payload; -1 by cl_fail when the server does not take it. */
int cl_send(nl_client *c, struct zp_hdr *h, const void *pay, size_t len, bool has_pay);
/* The next event of sock's connection monitor, if one is there already. */
bool cl_mon_event(nl_client *c, uint16_t *ev, uint32_t *value);
/* After a message's frame `last` (header or payload) said more follow:
 * receive and drop the rest, so the next receive starts a message; the
 * number dropped (0 when last said none). A version-1 server sends a
 * header and at most one payload frame: more is a bad frame. */
size_t cl_drain_frames(nl_client *c, const zmq_msg_t *last);
/* Free c, its sockets and context; with drop, frames not yet sent are
 * dropped at once instead of holding zmq_ctx_term for up to a second. */
void cl_free(nl_client *c, bool drop);

#endif
