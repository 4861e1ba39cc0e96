/* adapters/: live emulation over ZeroMQ (DESIGN.md §7, docs/live.md).
 *
 * `netloom serve` binds a ROUTER socket; each client process is one rank
 * (a DEALER socket) speaking protocol v1 (proto.h, docs/zmq-protocol.md).
 * The server is a client of the session layer (session_src_*, emu/session):
 * every rank is an op source for the MPI replay engine: when the engine
 * needs rank r's next operation at virtual time t, the server waits until r
 * has declared it (conservative lock-step), so virtual time never passes a
 * rank that has not spoken, and the order of events depends only on the
 * ranks' op streams, never on the order frames reach the socket.
 */
#ifndef NETLOOM_ADAPTERS_ADAPTERS_H
#define NETLOOM_ADAPTERS_ADAPTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "app/app.h"

struct config;
struct nl_sim;
struct json_t;
struct nl_err;

/* --- the server (serve.c) --------------------------------------------------- */

struct live_opts {
	const char *listen;        /* ZeroMQ endpoint: tcp://127.0.0.1:PORT or ipc://PATH */
	bool allow_remote;         /* accept a tcp:// address other than loopback */
	uint32_t n_ranks;
	uint64_t max_payload;      /* bytes; larger SENDs get ERROR ZP_ETOOBIG */
	uint32_t heartbeat_ms;     /* clients send a HEARTBEAT at least this often */
	uint32_t timeout_ms;       /* a connected rank silent this long is evicted */
	uint32_t connect_ms;       /* a rank not connected this long after start is evicted */
	double pace;               /* 0: lock-step; > 0: paced, virtual ps per wall ps (1 = real time) */
	uint32_t max_lag_ms;       /* paced: stop once a release lags the wall clock by more; 0 = best effort */
	const uint64_t *tokens;    /* [n_ranks]: HELLO must carry rank r's token; NULL = any */
	uint32_t n_jobs;           /* jobs 1..n_jobs of job_sizes[] consecutive ranks; 0 = one job of all */
	const uint32_t *job_sizes; /* [n_jobs], summing to n_ranks */
	const char *curve_key;     /* CURVE: the server's key file (public + secret), or NULL */
	const char *curve_allow;   /* CURVE: client public keys allowed in, one a line */
	const char *trace_path;    /* an .nlt trace replayed beside the ranks on its own endpoints, or NULL */
	const char *record_path;   /* write the session as an .nlt archive (a file: '-' refused), or NULL */
	const char *messages_path; /* write every matched message's virtual times ('-': stdout), or NULL */
	const char *json_path;     /* write the report as JSON ('-': stdout), or NULL */
	FILE *log;                 /* one line per event worth a human's attention */
	FILE *report;              /* the text report at the end (none when an output is '-'), or NULL */
	bool *is_unwritten;        /* out, or NULL: set true when live_serve failed because an output (--record,
				    * --messages, --json) could not be written once the session ran */
};

void live_opts_init(struct live_opts *o);

/* 0, or NL_ECONFIG when o names one of curve_key and curve_allow without
 * the other (live_serve checks it too; the command line says it first, as
 * its other option pairs). serve_curve.c. */
int live_curve_check(const struct live_opts *o, struct nl_err *err);

/* Write a new CURVE key pair: path (public + secret, mode 0600, must not
 * exist) and path.pub (public only). serve_curve.c. */
int live_curve_keygen(const char *path, struct nl_err *err);

/* Serve one session: bind, run the engine with the ranks as op sources
 * until every rank has said BYE or been evicted, then report. 0 when every
 * rank not evicted finished, and at least one did; NL_EDEADLOCK when some waited forever (after evictions,
 * typically); NL_ESTATE when SIGINT or SIGTERM stopped it (handlers are
 * installed from before the bind and restored at the end; the connected
 * ranks get ERROR ZP_EABORT, the report is written marked stopped, no
 * archive; a second signal over 1 s after the first ends the process,
 * its staged files removed: docs/live.md "Stopping"), or
 * when no rank finished because every one was evicted (the report is
 * written, no archive); another error for a bad endpoint, configuration
 * or output: an output that could not be written once the session ran (a
 * full disk: the work failing, not bad input) sets *o->is_unwritten, its
 * error naming the option (`--json: PATH: write failed: CAUSE`). */
int live_serve(const struct live_opts *o, struct nl_sim *sim, struct nl_err *err);

/* The message log line (both --messages and the replay check use it):
 * "src dst tag bytes send_op recv_op t_sent t_arrived t_done\n". */
void live_match_line(FILE *f, const struct app_match_info *mi);

#endif
