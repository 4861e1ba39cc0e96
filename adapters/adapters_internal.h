/* adapters/ internals shared by the server's files (serve.c: sockets,
 * ranks, the op source; serve_out.c: recording and report). */
#ifndef NETLOOM_ADAPTERS_ADAPTERS_INTERNAL_H
#define NETLOOM_ADAPTERS_ADAPTERS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "adapters/zmq_port.h"

#include "adapters/adapters.h"
#include "adapters/proto.h"
#include "core/stats.h"
#include "session/session.h"

struct nl_err;
struct trace_op;
struct app_match_info;
struct session_src;
struct trace_stream_writer;

/* Ops one rank may declare ahead of the engine: a client flooding ops it
 * never waits for is evicted, instead of growing the server's memory. */
#define LIVE_QUEUE_MAX 65536u

/* The latest virtual time at which the engine starts a live rank's op, or
 * ends its COMPUTE (after cpu_factor): 2^62 ps (the network's bound on a
 * send, NET_TIME_MAX_PS) less 2^56 ps (about 20 hours) left to the network,
 * so messages, rendezvous handshakes and barrier rounds begun before it
 * are sent within the network's bound. An op past it is refused with an
 * ERROR and its rank evicted: no rank can stop the session that way. */
#define LIVE_NET_SLACK_PS (UINT64_C(1) << 56)
#define LIVE_TIME_MAX_PS (ZP_TIME_MAX_PS - LIVE_NET_SLACK_PS)

/* Paced mode: a release later than this behind the wall clock is "late",
 * and counts toward the time spent behind (1 ms: above the jitter of a
 * nanosleep and a socket round trip on a loaded machine). */
#define LIVE_LATE_NS 1000000u

/* Refused frames logged per rank, and from connections holding no rank
 * (all of them together): past it they are counted, not logged, so a
 * garbage flood cannot fill the log (the report gives the counts). */
#define LIVE_LOGGED_REFUSALS 3u

/* Evictions logged per kind (LE_*): past it they are counted, and one line
 * at the end gives the count, so 10^6 ranks that never connected do not
 * write 10^6 lines (the report still names every rank). */
#define LIVE_LOGGED_EVICTIONS 20u

/* Frames queued for one connection (ZMQ_SNDHWM, in messages): a byte
 * budget over the largest frame --max-payload allows (a DELIVER: payload
 * + header), never below a floor, so a burst of small frames to a busy
 * client is not taken for one that stopped reading. A send to a full queue
 * fails (ZMQ_ROUTER_MANDATORY) and its rank is evicted: a client that
 * stops reading costs the server at most this, not unbounded memory. */
#define LIVE_SEND_BUDGET_BYTES (64u << 20)
#define LIVE_SEND_HWM_MIN 1000u
/* How long the end of a session may wait for its last frames to leave
 * (adapters/serve.c live_linger). */
#define LIVE_CLOSE_LINGER_MS 1000

/* No rank: the end of a rank list (live_rank's lru_* and job_* links). */
#define LIVE_NONE UINT32_MAX

enum { LR_ABSENT, LR_READY, LR_DONE, LR_EVICTED };

/* Kinds of eviction, each with its own log cap (LIVE_LOGGED_EVICTIONS). */
enum { LE_NEVER_CONNECTED, LE_TIMEOUT, LE_OTHER, LE_N };

/* What stopped a session that still reports its results so far (partial):
 * a signal or the paced lag bound. Other fatal errors stop it without. */
enum { LS_NONE, LS_SIGINT, LS_SIGTERM, LS_SIGHUP, LS_MAX_LAG };

struct live_qop {
	struct zp_hdr h;
	zmq_msg_t pay;      /* SEND: the payload; WAITALL: the requests (initialised only then) */
	uint64_t t_in_ns;   /* wall clock when received (residence time) */
};

struct live_pay {
	uint64_t op;        /* the engine's index of the send op in its rank's stream */
	uint64_t t_in_ns;
	zmq_msg_t msg;
};

struct live_rank {
	uint8_t state;            /* LR_* */
	uint8_t id_len;
	unsigned char id[255];    /* the ROUTER identity bound at HELLO */
	uint64_t last_ms;         /* wall clock of the last valid frame */
	uint32_t lru_prev, lru_next; /* LR_READY ranks by last_ms, oldest first (live_server.lru_head) */
	uint32_t job_prev, job_next; /* LR_READY ranks of its job (live_server.job_ready) */
	bool stalled;             /* its send queue was full: evicted at the next safe point */
	uint32_t stall_next;      /* the list of such ranks (live_server.stall_head) */
	uint32_t next_seq;        /* seq the next op must carry */
	struct live_qop *q;       /* ring of declared ops not yet pulled */
	uint32_t q_head, q_n, q_cap;
	struct live_pay *pay;     /* payloads of sends not yet received (unordered) */
	uint32_t n_pay, cap_pay;
	uint64_t n_pulled;        /* ops handed to the engine (its op index of the next one) */
	struct live_recvmap {     /* receives in the engine: op index -> the client's seq */
		uint64_t op;
		uint32_t seq;
	} *recvs;
	uint32_t n_recvs, cap_recvs;
	bool lean;                /* HELLO's ZP_F_LEAN: no DONE for ops the client does not wait for */
	bool send_nowait;         /* WELCOME's ZP_F_SEND_NOWAIT (lean, lock-step): no DONE for a blocking SEND */
	bool reply_due;           /* the engine has the op with seq reply_seq; DONE at the next pull */
	uint32_t reply_seq;
	bool bye;                 /* FINALIZE handed over: the next pull ends the stream */
	bool bye_in;              /* a BYE was accepted (queued): every op after it is refused */
	uint32_t bye_seq;         /* its seq */
	uint64_t offences;        /* refused frames counted against this rank (its own and others' for it) */
	uint64_t foreign;         /* of which from other connections (HELLOs, ops claiming it) */
	uint64_t bad_streak;      /* of which since its last valid frame */
	char last_bad[160];       /* the last refusal, for the eviction note */
	uint64_t lost_to, lost_from; /* payloads dropped because of an eviction */
	char why[200];            /* what happened, for the report */
	bool is_evicted_absent;   /* evicted before it ever connected */
	uint64_t declared_ps;     /* sum of the COMPUTE durations accepted (<= LIVE_TIME_MAX_PS) */
	uint32_t *open;           /* seqs of its isends/irecvs not yet named by a WAIT or WAITALL, ascending */
	uint32_t n_open, cap_open;
	uint32_t *reqs;           /* the current WAITALL's requests (the engine reads them until the next pull) */
	uint32_t reqs_cap;
	struct trace_stream_writer *w;
	char *w_path;
};

struct live_server {
	const struct live_opts *o;
	void *zctx, *sock;
	char endpoint[256];       /* the endpoint bound (ZMQ_LAST_ENDPOINT: port 0 or '*' resolved) */
	const char *ipc_path;     /* ipc://: the socket file bound (in endpoint), removed at the end; else NULL */
	uint64_t ipc_dev, ipc_ino; /* its identity, so a file that replaced it is left alone */
	uint32_t n;
	struct live_rank *ranks;
	struct session_src *eng;   /* the replay engine over the ranks (emu/session) */
	uint64_t start_ms;
	FILE *msgs;               /* --messages */
	uint64_t frames_in, frames_bad, delivered, evictions;
	uint64_t rankless_bad;    /* of frames_bad, those from connections holding no rank */
	uint64_t w0_ns;           /* paced: wall clock of virtual time 0 (every rank connected); 0 before */
	uint32_t n_connected;     /* ranks that have said HELLO */
	uint32_t lru_head, lru_tail; /* LR_READY ranks, oldest last_ms first: the heartbeat sweep's order */
	uint32_t absent_next;     /* the never-connected sweep's cursor: ranks below it are swept */
	uint64_t evicted_kind[LE_N]; /* evictions of each kind (LE_*), for the log cap */
	int send_hwm;             /* frames queued per connection at most (ZMQ_SNDHWM) */
	uint32_t stall_head;      /* ranks whose send queue was full, not yet evicted */
	struct stats_hist lag_ns; /* paced: how late each release was (0 when on time) */
	uint64_t late;            /* paced: releases later than LIVE_LATE_NS */
	uint64_t behind_ns;       /* paced: wall time with a release overdue by more than LIVE_LATE_NS */
	uint64_t behind_until_ns; /* paced: end of the last such interval */
	uint64_t end_ns;          /* paced: wall clock when the engine finished (0: still running) */
	uint64_t paced_last_ns;   /* paced: wall clock of the last release, where pacing ends (0: none) */
	struct stats_hist residence_ns;
	double cpu_factor;        /* [replay] cpu_factor: the engine scales each COMPUTE by it */
	uint32_t n_jobs;          /* jobs 1..n_jobs (one when --jobs is not given) */
	uint32_t *job_of;         /* [n]: the job of each rank, 0-based (job number - 1) */
	uint64_t *job_delivered;  /* [n_jobs]: messages delivered within each job */
	uint32_t *job_ready;      /* [n_jobs]: head of each job's list of LR_READY ranks */
	struct trace_comm *comms; /* [n_jobs] when n_jobs > 1: each job's communicator (barriers) */
	void *zap;                /* CURVE: the ZAP handler's socket, or NULL (serve_curve.c) */
	uint8_t (*curve_allowed)[32]; /* CURVE: client public keys allowed in */
	uint32_t n_allowed;
	uint64_t curve_ok, curve_refused; /* CURVE handshakes accepted / refused */
	uint32_t req_tmp[ZP_WAITALL_MAX]; /* a WAITALL's requests, sorted, while it is checked */
	struct nl_err *err;
	int fatal;                /* an error that must stop the session (output, memory, lag, a signal) */
	uint8_t stopped_by;       /* LS_*: the stop that reports (a signal, --max-lag-ms), else LS_NONE */
	struct nl_err fatal_err;  /* its message, as the server said it (the engine prefixes *err) */
	char cut_why[240];        /* live_cut_why's answer, read by the engine at once */
	bool is_unwritten;        /* an output failed once the session ran (live_opts.is_unwritten) */
	int msgs_errno;           /* the --messages log's first failed write's errno, or 0 */
};

/* "never connected", "connected", "finished", "evicted". */
const char *live_state_name(unsigned state);
/* LS_*: "SIGINT", "SIGTERM", "SIGHUP", "max-lag" (NULL for LS_NONE). */
const char *live_stop_name(unsigned stop);
uint64_t live_clock_ns(void); /* monotonic wall clock */
uint64_t live_clock_ms(void);

/* serve.c: a pending SIGINT/SIGTERM/SIGHUP becomes s->fatal (NL_ESTATE); returns s->fatal. */
int live_check_stop(struct live_server *s);
/* serve.c: frames to a client (never blocking), and ERROR frames. `to` is
 * the rank the connection holds, or LIVE_NONE: when its queue is full
 * (send_hwm frames) the frame is dropped and a connected rank is marked
 * for eviction (live_evict_stalled), not evicted here, so a send inside an
 * eviction never recurses. A connection gone: the frame is dropped. */
void live_send(struct live_server *s, uint32_t to, const unsigned char *id, size_t id_len, const struct zp_hdr *h,
	       zmq_msg_t *pay, const void *text, size_t text_len);
void live_send_error(struct live_server *s, uint32_t to, const unsigned char *id, size_t id_len, uint32_t rank,
		     int code, const char *line);
/* serve_recv.c: evict the ranks marked by live_send ("stopped reading"). */
void live_evict_stalled(struct live_server *s);
void live_queue_clear(struct live_rank *rk); /* drop a rank's declared ops */

/* serve_recv.c: serve the socket for up to wait_ms (0: what is there now);
 * evict ranks silent past the timeout. */
void live_pump(struct live_server *s, long wait_ms);
/* Evict ranks silent past --timeout-ms (oldest first, O(1) when none is
 * due, O(1) per eviction besides telling its job's connected ranks) and,
 * once --connect-timeout-ms has passed, the ranks that never connected (one
 * pass over the ranks in the whole session). Stops early on a pending
 * signal or a fatal error (s->fatal). */
void live_check_timeouts(struct live_server *s);
/* End rank r's stream: drop what it declared, tell it and its job why;
 * kind (LE_*) picks the log cap. */
void live_evict(struct live_server *s, uint32_t r, int kind, const char *why);
/* Rank r said BYE and the engine ended its stream: LR_READY -> LR_DONE. */
void live_rank_done(struct live_server *s, uint32_t r);
/* The end-of-session log lines of evictions not logged (over the cap). */
void live_evictions_summary(struct live_server *s);

/* serve_source.c: the ranks as the engine's op source, and its match hook. */
int live_next(void *ctx, uint32_t r, struct trace_op *op, struct nl_err *err);
void live_on_match(void *ctx, const struct app_match_info *mi);

/* serve_jobs.c: ranks belong to jobs; a job's ranks only talk within it. */
int live_jobs_init(struct live_server *s, struct nl_err *err);
void live_jobs_free(struct live_server *s);
/* The communicator a rank's barrier runs on: its job's, or world. */
uint32_t live_job_comm(const struct live_server *s, uint32_t r);
/* The world ranks of rank r's job: first .. first + size - 1. */
void live_job_range(const struct live_server *s, uint32_t r, uint32_t *first, uint32_t *size);
/* Refusal text when rank r may not name peer p (another job) in op `what`
 * (SEND, RECV), else NULL. */
const char *live_job_peer_check(const struct live_server *s, const char *what, uint32_t r, uint32_t p, char *buf,
				size_t cap);
/* The report's per-job part: JSON array, and text lines on f. */
struct json_t *live_jobs_json(const struct live_server *s);
void live_jobs_text(const struct live_server *s, FILE *f);
/* With two jobs or more, each must have had a rank finish, as the
 * session must (serve.c live_none_finished): 0 when each did, else
 * NL_ESTATE and one line naming the jobs none of whose ranks finished
 * and why ("no rank finished in job 2 (ranks 4-7): none of its 4 ranks
 * ever connected"), then `rec` (" (no --record archive written)" or ""). */
int live_jobs_unfinished(const struct live_server *s, const char *rec, struct nl_err *err);

/* serve_curve.c: CURVE server + ZAP handler, when --curve-key is given. */
int live_curve_setup(struct live_server *s, struct nl_err *err); /* after the ROUTER exists, before bind */
void live_curve_serve(struct live_server *s);                     /* answer pending ZAP requests */
void live_curve_free(struct live_server *s);
/* live_log is serve.c's; the ZAP handler logs refusals through it. */
void live_log(struct live_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* serve_out.c */
int live_record_open(struct live_server *s, struct nl_err *err);
/* Append op to rank r's stream (nothing without --record). A failed write
 * (a full disk) stops the session: s->fatal, its line naming --record and
 * the archive, not the rank's temporary stream file. */
int live_record_op(struct live_server *s, uint32_t r, const struct trace_op *op, struct nl_err *err);
/* Close the streams and write the archive (atomically); partial files go. */
int live_record_close(struct live_server *s, struct nl_err *err);
/* Text report on o->report (none when --json or --messages is '-',
 * standard output), JSON to o->json_path. */
int live_report(struct live_server *s, int run_rc, struct nl_err *err);
/* The last finish time (ps, *ps) of ranks lo..lo+n-1 that finished, after
 * the engine has ended; false (and 0) when none did. A live rank finished
 * when it said BYE (LR_DONE): an evicted one's stream ends where it was
 * evicted, which the engine counts as a finish and the report does not.
 * A --trace rank finished unless the session stopped first. */
bool live_finish_ps(const struct live_server *s, uint32_t lo, uint32_t n, uint64_t *ps);

#endif
