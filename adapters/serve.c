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
 * SIGINT, SIGTERM, SIGHUP and paced mode's --max-lag-ms stop a session
 * the way a fatal error does (ERROR 13 to the ranks), but with a report
 * marked stopped, its per-rank figures partial (up to each rank's last
 * completed op).
 *
 * Files: serve.c the session (bind, run, clean up) and sending;
 * serve_recv.c frames in, HELLO, refusals, evictions; serve_source.c the
 * op source, matches and paced mode; serve_out.c recording and report;
 * serve_jobs.c jobs; serve_curve.c CURVE and ZAP.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "adapters/zmq_port.h"

#include "adapters/adapters.h"
#include "adapters/adapters_internal.h"
#include "adapters/proto.h"
#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/staged.h"
#include "core/stats.h"
#include "session/session.h"
#include "traces/trace.h"

/* SIGINT, SIGTERM and SIGHUP (docs/live.md "Stopping"; SIGHUP, a closed
 * terminal or ssh session, as SIGTERM; each left ignored when it was at
 * start, as out_signals_catch leaves it: nohup's SIGHUP, a script's
 * background job's SIGINT). The first asks the
 * session to stop: live_next checks live_stop_sig at every op and every
 * poll (zmq_poll returns early with EINTR, SA_RESTART or not), so the
 * session stops within a heartbeat interval and reports. A second one
 * within LIVE_SIGNAL_BURST_MS of the first is the same request: coreutils
 * `timeout` sends two at once (to the server, then to its process group).
 * A later one ends the process at once, should the stop be stuck, after
 * unlinking every file the server has staged (out_staged_add: the
 * recording's streams, the --messages log, the JSON report, the ipc://
 * socket file); while the --record archive is assembled (its temporary
 * file is the trace writer's, not on that list) it waits until the
 * archive is in place. The adapter's only mutable globals: a signal
 * handler reaches no context. */
enum { LIVE_SIGNAL_BURST_MS = 1000 };
static volatile sig_atomic_t live_stop_sig;  /* the signal that asked the session to stop, or 0 */
static volatile sig_atomic_t live_kill_held; /* 1 while the archive is assembled: a second signal waits */
static volatile sig_atomic_t live_kill_sig;  /* the second signal that waited, or 0 */
static uint64_t live_stop_at_ns;             /* when live_stop_sig came (the handler's own) */

/* End the process by sig, as without a handler, leaving no staged file.
 * In the handler, sig is blocked until it returns, then ends the process. */
static void live_kill(int sig)
{
	out_staged_unlink();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void live_on_signal(int sig)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe (POSIX) */
	uint64_t now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!live_stop_sig) {
		live_stop_at_ns = now_ns;
		live_stop_sig = sig;
	} else if (now_ns - live_stop_at_ns >= (uint64_t)LIVE_SIGNAL_BURST_MS * 1000000u) {
		if (live_kill_held)
			live_kill_sig = sig;
		else
			live_kill(sig);
	}
}

int live_check_stop(struct live_server *s)
{
	int sig = live_stop_sig;
	if (sig && !s->fatal) {
		s->stopped_by = sig == SIGINT ? LS_SIGINT : sig == SIGHUP ? LS_SIGHUP : LS_SIGTERM;
		s->fatal = nl_errf(&s->fatal_err, NL_ESTATE, "stopped by %s before every rank finished",
				   live_stop_name(s->stopped_by));
	}
	return s->fatal;
}

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

/* Frames to a client: identity, header, optional payload. Never blocks.
 * With ZMQ_ROUTER_MANDATORY the identity frame fails when the connection's
 * queue is full (EAGAIN: a client that stopped reading; its rank is
 * marked for eviction) or the connection is gone (EHOSTUNREACH: the frame
 * is dropped, the heartbeat timeout evicts the rank). */
void live_send(struct live_server *s, uint32_t to, const unsigned char *id, size_t id_len, const struct zp_hdr *h,
	       zmq_msg_t *pay, const void *text, size_t text_len)
{
	uint8_t buf[ZP_HDR_BYTES];
	struct zp_hdr hh = *h;
	hh.version = ZP_VERSION;
	zp_encode(&hh, buf);
	bool more = pay || text;
	if (zmq_send(s->sock, id, id_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
		struct live_rank *rk = to < s->n ? &s->ranks[to] : NULL;
		if (errno == EAGAIN && rk && rk->state == LR_READY && !rk->stalled && rk->id_len == id_len &&
		    !memcmp(rk->id, id, id_len)) {
			rk->stalled = true;
			rk->stall_next = s->stall_head;
			s->stall_head = to;
		}
		goto drop;
	}
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

void live_send_error(struct live_server *s, uint32_t to, const unsigned char *id, size_t id_len, uint32_t rank,
		     int code, const char *line)
{
	_Static_assert(ZP_ERROR_TEXT_MAX == NL_ERR_MSG_MAX - 1, "an ERROR's text is an nl_err message");
	struct zp_hdr h = {.type = ZP_ERROR, .rank = rank, .tag = code};
	size_t len = strlen(line);
	live_send(s, to, id, id_len, &h, NULL, line, len < ZP_ERROR_TEXT_MAX ? len : ZP_ERROR_TEXT_MAX);
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

void live_queue_clear(struct live_rank *rk)
{
	for (uint32_t i = 0; i < rk->q_n; i++) {
		struct live_qop *q = &rk->q[(rk->q_head + i) % rk->q_cap];
		if (q->h.type == ZP_SEND || q->h.type == ZP_WAITALL)
			zmq_msg_close(&q->pay);
	}
	rk->q_n = 0;
}

/* --- session ------------------------------------------------------------------- */

/* tcp://HOST:PORT: the port must be 1..65535, or 0 or '*' for any free
 * one (libzmq otherwise takes "99999" modulo 2^16, or any text as 0). */
static int live_check_port(const char *listen, struct nl_err *err)
{
	/* An IPv6 host is bracketed: its own colons are no port's ('[::1]'
	 * alone was port '1]'). */
	const char *host_end = listen[6] == '[' ? strchr(listen + 6, ']') : listen + 6;
	if (!host_end) /* its last colon is the address's: no port to name */
		return nl_errf(err, NL_ECONFIG, "--listen: '%s': no ']' after the IPv6 address, expected "
			       "tcp://[ADDRESS]:PORT", listen);
	const char *colon = strrchr(host_end, ':');
	const char *port = colon ? colon + 1 : "";
	if (!strcmp(port, "*"))
		return 0;
	char *end;
	errno = 0;
	unsigned long v = strtoul(port, &end, 10);
	if (!*port || *port < '0' || *port > '9' || *end || errno || v > 65535)
		return nl_errf(err, NL_ECONFIG,
			       "--listen: '%s': port '%s', expected 1..65535 (or 0 or * for any free port)", listen, port);
	return 0;
}

/* ipc://PATH: libzmq's bind removes whatever is at PATH and binds anew,
 * so a second server would silently take a running one's clients (where
 * tcp:// fails with EADDRINUSE). A socket file something accepts
 * connections on is refused; a stale one (connection refused: its server
 * is gone) is replaced as before. A server that binds between this check
 * and ours is not caught. */
static int live_check_ipc_free(const char *listen, const char *path, struct nl_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	if (path[0] == '@' || strlen(path) >= sizeof sa.sun_path || lstat(path, &st) < 0)
		return 0; /* abstract, too long for libzmq too, or absent: the bind decides */
	/* libzmq would delete a file of any kind there (a typo'd path onto
	 * a user's file): only a socket file is ever replaced. */
	if (!S_ISSOCK(st.st_mode))
		return nl_errf(err, NL_EIO, "--listen: '%s': %s exists and is not a socket (it would be deleted); expected "
					    "a new path or a server's socket file",
			       listen, path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	/* Non-blocking: a listener with a full backlog answers EAGAIN, not a wait. */
	bool listening = connect(fd, (const struct sockaddr *)&sa, sizeof sa) == 0 || errno == EAGAIN ||
			 errno == EINPROGRESS;
	close(fd);
	if (listening)
		return nl_errf(err, NL_EIO, "--listen: '%s': in use by another server (it accepts connections there)",
			       listen);
	return 0;
}

/* Remove the ipc socket file this server bound, unless another file has
 * replaced it since (that one is someone else's). */
static void live_remove_ipc(struct live_server *s)
{
	struct stat st;
	if (s->ipc_path && lstat(s->ipc_path, &st) == 0 && (uint64_t)st.st_dev == s->ipc_dev &&
	    (uint64_t)st.st_ino == s->ipc_ino)
		unlink(s->ipc_path);
}

/* Is listen tcp://HOST with or without a port? Without one it is still
 * a loopback address, refused below for the port, not sent to
 * --allow-remote, which would not mend it. */
static bool live_listen_host_is(const char *listen, const char *host)
{
	size_t n = strlen(host);
	return !strncmp(listen, "tcp://", 6) && !strncmp(listen + 6, host, n) &&
	       (listen[6 + n] == ':' || listen[6 + n] == '\0');
}

/* What a bind libzmq refused with errno e needed, for its one line: its
 * word alone ("No such device" for a host name, which libzmq takes for an
 * interface and never looks up) does not say. */
static const char *live_bind_expected(int e, bool ipc)
{
	switch (e) {
	case ENODEV:
		return "a numeric address or an interface name of this host (a host name is not looked up)";
	case EADDRNOTAVAIL:
		return "an address of one of this host's interfaces";
	case EADDRINUSE:
		return "a port no other process listens on (or 0 for any free port)";
	case ENOENT:
	case ENOTDIR:
		return ipc ? "an existing folder for the socket file" : "an endpoint this host can bind";
	case ENAMETOOLONG: /* sizeof sockaddr_un.sun_path, less its NUL */
		return ipc ? "a socket file path of at most 107 bytes (the system's limit)" : "a shorter endpoint";
	case EACCES:
	case EPERM:
		return ipc ? "a folder this user may create the socket file in" : "a port this user may bind (1024 or above)";
	default:
		return ipc ? "ipc://PATH of a socket file this host can create" : "an endpoint this host can bind";
	}
}

static int live_bind(struct live_server *s, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	bool tcp = !strncmp(o->listen, "tcp://", 6);
	bool local4 = live_listen_host_is(o->listen, "127.0.0.1");
	bool localname = live_listen_host_is(o->listen, "localhost");
	bool local6 = live_listen_host_is(o->listen, "[::1]");
	bool ipc = !strncmp(o->listen, "ipc://", 6);
	if (!local4 && !localname && !local6 && !ipc && !(o->allow_remote && tcp))
		return nl_errf(err, NL_ECONFIG,
			       "--listen: '%s', expected tcp://127.0.0.1:PORT, tcp://localhost:PORT, tcp://[::1]:PORT "
			       "or ipc://PATH (other tcp:// addresses need --allow-remote)",
			       o->listen);
	if (tcp)
		NL_CHECK(live_check_port(o->listen, err));
	if (ipc && !o->listen[6]) /* libzmq's bind says only EINVAL */
		return nl_errf(err, NL_ECONFIG, "--listen: 'ipc://': empty ipc path, expected ipc://PATH (a socket file "
			       "to create)");
	if (ipc)
		NL_CHECK(live_check_ipc_free(o->listen, o->listen + 6, err));
	/* libzmq binds interfaces and numeric addresses, not host names. */
	char ep[sizeof s->endpoint];
	if (snprintf(ep, sizeof ep, "%s%s", localname ? "tcp://127.0.0.1" : o->listen,
		     localname ? o->listen + 15 : "") >= (int)sizeof ep)
		return nl_errf(err, NL_ECONFIG, "--listen: '%.40s...': %zu bytes, expected fewer than %zu", o->listen,
			       strlen(o->listen), sizeof ep);
	s->zctx = zmq_ctx_new();
	if (!s->zctx)
		return nl_errf(err, NL_EIO, "live: zmq_ctx_new: %s", zmq_strerror(errno));
	s->sock = zmq_socket(s->zctx, ZMQ_ROUTER);
	if (!s->sock)
		return nl_errf(err, NL_EIO, "live: zmq_socket: %s", zmq_strerror(errno));
	/* A hard cap above the protocol's limits: libzmq drops a peer over it
	 * without a word, so the server's own check (ERROR frame) comes first.
	 * It covers the largest legal frame of every type: a SEND's payload
	 * (--max-payload) and a WAITALL's requests (ZP_WAITALL_MAX u32s),
	 * whatever --max-payload is. */
	int64_t cap = (int64_t)(o->max_payload + (o->max_payload >> 2) + 4096);
	if (cap < (int64_t)ZP_WAITALL_MAX * 4 + 4096)
		cap = (int64_t)ZP_WAITALL_MAX * 4 + 4096;
	/* Sends: at most send_hwm frames queued per connection, a send to a
	 * full queue fails (EAGAIN) instead of growing memory or being
	 * dropped unsaid; receives: unbounded here, bounded per rank by
	 * LIVE_QUEUE_MAX. */
	uint64_t frame = (uint64_t)o->max_payload + ZP_HDR_BYTES + 256; /* a DELIVER, or an ERROR's line */
	uint64_t hwm = LIVE_SEND_BUDGET_BYTES / frame;
	s->send_hwm = hwm < LIVE_SEND_HWM_MIN ? (int)LIVE_SEND_HWM_MIN : hwm > INT32_MAX ? INT32_MAX : (int)hwm;
	int linger = 0, rcvhwm = 0, mandatory = 1, ipv6 = 1;
	zmq_setsockopt(s->sock, ZMQ_MAXMSGSIZE, &cap, sizeof cap);
	zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
	zmq_setsockopt(s->sock, ZMQ_SNDHWM, &s->send_hwm, sizeof s->send_hwm);
	zmq_setsockopt(s->sock, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
	zmq_setsockopt(s->sock, ZMQ_ROUTER_MANDATORY, &mandatory, sizeof mandatory);
	if (tcp && strchr(ep, '['))
		zmq_setsockopt(s->sock, ZMQ_IPV6, &ipv6, sizeof ipv6);
	NL_CHECK(live_curve_setup(s, err));
	if (zmq_bind(s->sock, ep) < 0) {
		int e = errno;
		return nl_errf(err, NL_EIO, "--listen: '%s': %s; expected %s", o->listen, zmq_strerror(e),
			       live_bind_expected(e, ipc));
	}
	/* The endpoint really bound (port 0 or '*': the one the system chose). */
	size_t len = sizeof s->endpoint;
	if (zmq_getsockopt(s->sock, ZMQ_LAST_ENDPOINT, s->endpoint, &len) < 0 || !s->endpoint[0])
		snprintf(s->endpoint, sizeof s->endpoint, "%s", ep);
	struct stat st;
	if (ipc && s->endpoint[6] != '@' && lstat(s->endpoint + 6, &st) == 0) {
		s->ipc_path = s->endpoint + 6;
		s->ipc_dev = (uint64_t)st.st_dev;
		s->ipc_ino = (uint64_t)st.st_ino;
		NL_CHECK(out_staged_add(s->ipc_path, err)); /* removed by a second signal too */
	}
	return 0;
}

/* Open the --messages log: a temporary file beside its path, moved into
 * place at the end (as every output: core/output.h), and registered for a
 * second signal to remove (out_stage_registered); '-' (standard output)
 * an anonymous temporary file, copied out at the end. */
static int live_msgs_open(struct live_server *s, char **tmp, struct nl_err *err)
{
	const char *path = s->o->messages_path;
	if (!strcmp(path, "-")) {
		if (!(s->msgs = tmpfile()))
			return nl_errf(err, NL_EIO, "--messages: '-': cannot create a temporary file: %s", strerror(errno));
		return 0;
	}
	if (out_stage_registered(path, "", 0, tmp, err) < 0)
		return nl_err_prefix(err, "--messages");
	if (!(s->msgs = fopen(*tmp, "w")))
		return nl_errf(err, NL_EIO, "--messages: '%s': %s", *tmp, strerror(errno));
	return 0;
}

/* Copy the --messages log (anonymous) to standard output. */
static int live_msgs_to_stdout(FILE *f, struct nl_err *err)
{
	char buf[65536];
	size_t got;
	rewind(f);
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		if (fwrite(buf, 1, got, stdout) != got)
			break;
	if (ferror(f) || ferror(stdout) || fflush(stdout) != 0)
		return nl_errf(err, NL_EIO, "--messages: standard output: write failed: %s", strerror(errno));
	return 0;
}

/* Close the --messages log and move it into place (it was staged). A
 * failure is an output lost once the session ran (s->is_unwritten). */
static int live_msgs_commit(struct live_server *s, char **tmp, struct nl_err *err)
{
	if (!s->msgs)
		return 0;
	bool to_stdout = !strcmp(s->o->messages_path, "-");
	errno = 0;
	bool bad = ferror(s->msgs) || fflush(s->msgs) != 0;
	int e = s->msgs_errno ? s->msgs_errno : errno;
	if (!bad && to_stdout && live_msgs_to_stdout(s->msgs, err) < 0) {
		fclose(s->msgs);
		s->msgs = NULL;
		s->is_unwritten = true;
		return err->code;
	}
	errno = 0;
	if (fclose(s->msgs) != 0 && !bad) {
		bad = true;
		e = errno;
	}
	s->msgs = NULL;
	if (bad) {
		s->is_unwritten = true;
		return nl_errf(err, NL_EIO, "--messages: %s: write failed: %s", s->o->messages_path,
			       strerror(e ? e : EIO));
	}
	if (!to_stdout && out_commit(tmp, s->o->messages_path, err) < 0) {
		s->is_unwritten = true;
		return nl_err_prefix(err, "--messages");
	}
	return 0;
}

/* --record '', '-' or a device or FIFO: the archive is assembled from the
 * ranks' streams, written beside its path, into a file renamed into
 * place (traces/ trace_archive_write refuses a device or FIFO), so it
 * cannot go to standard output or a pipe. Refused before the session,
 * not after it ran. */
static int live_record_check(const char *path, struct nl_err *err)
{
	if (!*path)
		return nl_errf(err, NL_ECONFIG, "--record '': empty file name; expected a file name (FILE.nlt)");
	if (!strcmp(path, "-"))
		return nl_errf(err, NL_ECONFIG, "--record '-': an archive is written to a file, not to standard output; "
						"expected a file name (FILE.nlt)");
	char *real;
	int kind = nl_output_target(path, &real, err);
	if (kind < 0)
		return nl_err_prefix(err, "--record");
	free(real);
	if (kind == NL_OUT_STREAM)
		return nl_errf(err, NL_ECONFIG, "--record '%s': a device or FIFO; expected a file name for the archive",
			       path);
	return 0;
}

/* Open files the server holds besides its ranks': standard streams, the
 * ZeroMQ context's eventfds and epoll, the listening socket, the
 * --messages log, the archive and CURVE's ZAP sockets (16 measured). */
#define LIVE_FD_SLACK 64u

/* --record holds each rank's stream file open for the whole session, and
 * each rank's client its connection: 2 files a rank. A limit on open
 * files (main raises the soft one to the hard one) below that would fail
 * a stream's open, or leave a client's connection unaccepted: refused
 * before the session, not after the clients started. Without --record
 * nothing is refused: ranks that cannot connect are evicted. */
static int live_record_fds_check(uint32_t n_ranks, struct nl_err *err)
{
	struct rlimit rl;
	uint64_t need = 2 * (uint64_t)n_ranks + LIVE_FD_SLACK;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || need <= (uint64_t)rl.rlim_cur)
		return 0;
	return nl_errf(err, NL_ECONFIG,
		       "--record: %" PRIu32 " ranks need %" PRIu64 " open files (a stream file and a connection each, "
		       "and %u for the server), above the limit of %" PRIu64 " (ulimit -n, which netloom raises to "
		       "the hard limit, ulimit -Hn); raise ulimit -n to at least %" PRIu64,
		       n_ranks, need, LIVE_FD_SLACK, (uint64_t)rl.rlim_cur, need);
}

/* Catch SIGINT, SIGTERM and SIGHUP (live_on_signal; core/staged.h's
 * out_signals), or put old back: old[i] is out_signals[i]'s action before. */
static void live_signals(bool install, struct sigaction old[OUT_N_SIGNALS])
{
	if (!install) {
		for (size_t i = 0; i < OUT_N_SIGNALS; i++)
			sigaction(out_signals[i], &old[i], NULL);
		return;
	}
	/* All blocked in the handler: a second signal waits for the first's
	 * handler. SA_RESTART spares stdio an EINTR; poll(2), under
	 * zmq_poll, and nanosleep return early whatever it says. */
	struct sigaction sa = {.sa_handler = live_on_signal, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	out_signals_add(&sa.sa_mask);
	live_stop_sig = 0;
	live_kill_held = 0;
	live_kill_sig = 0;
	/* A signal ignored at start stays ignored, as for every command
	 * (out_signals_catch): SIGHUP under nohup, SIGINT and SIGQUIT in a
	 * script's background job, which a Ctrl-C meant for the script must
	 * not stop (the script stops it, with SIGTERM). */
	for (size_t i = 0; i < OUT_N_SIGNALS; i++)
		if (sigaction(out_signals[i], NULL, &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
			sigaction(out_signals[i], &sa, NULL);
}

/* For the beside-trace live side (session_src_side), as live_finish_ps: a
 * live rank finished when it said BYE; an evicted one's stream end is no
 * finish. */
static bool live_rank_finished(void *ctx, uint32_t r)
{
	const struct live_server *s = ctx;
	return s->ranks[r].state == LR_DONE;
}

/* Why a live rank's stream ended without a finalize, for the deadlock
 * line the waiting ranks get (app_set_cut_why): it was evicted, and how.
 * The replay's guess, "a cut trace?", sent the user looking for a trace. */
static const char *live_cut_why(void *ctx, uint32_t r)
{
	struct live_server *s = ctx;
	if (r >= s->n || s->ranks[r].state != LR_EVICTED) /* a --trace's rank */
		return NULL;
	snprintf(s->cut_why, sizeof s->cut_why, "it was evicted: %s", s->ranks[r].why);
	return s->cut_why;
}

/* Before each op of a --trace beside (session_src_opts.poll): a stop (a
 * signal, a fatal error) is checked there too, as live_next checks it, so
 * it stops the session while the trace replays on after the live ranks
 * finished, or while they all wait. */
static int live_poll(void *ctx, struct nl_err *err)
{
	struct live_server *s = ctx;
	if (live_check_stop(s) < 0) {
		*err = s->fatal_err;
		return s->fatal;
	}
	return 0;
}

/* The session's parts before any file or socket: the ranks, the jobs'
 * communicators, the engine that runs them (beside --trace's ranks) and
 * the configured CPU factor. */
static int live_serve_build(struct live_server *s, struct nl_sim *sim, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	s->ranks = calloc(o->n_ranks, sizeof *s->ranks);
	if (!s->ranks)
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	NL_CHECK(live_jobs_init(s, err));
	struct app_source src = {.n_ranks = o->n_ranks, .n_comms = s->comms ? s->n_jobs : 0, .comms = s->comms,
				 .next = live_next, .ctx = s};
	struct session_src_opts so = {.src = &src, .trace_path = o->trace_path, .trace_opt = "--trace",
				      .wall_compute = true,
				      .on_match = live_on_match, .match_ctx = s, .rank_finished = live_rank_finished,
				      .finished_ctx = s, .poll = live_poll, .poll_ctx = s,
				      .cut_why = live_cut_why, .cut_why_ctx = s};
	NL_CHECK(session_src_new(&s->eng, sim, &so, err));
	struct app_config ac;
	NL_CHECK(app_config_bind(session_config(sim), &ac, err));
	s->cpu_factor = ac.cpu_factor;
	return 0;
}

/* The endpoint bound, the --record streams and --messages file opened,
 * the clock started; said on the log with what the set-up should warn
 * of. */
static int live_serve_listen(struct live_server *s, struct nl_sim *sim, char **msgs_tmp, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	NL_CHECK(live_bind(s, err));
	NL_CHECK(live_record_open(s, err));
	if (o->messages_path)
		NL_CHECK(live_msgs_open(s, msgs_tmp, err));
	s->start_ms = live_clock_ms();
	live_log(s, "listening on %s for %" PRIu32 " rank%s", s->endpoint, o->n_ranks, o->n_ranks == 1 ? "" : "s");
	/* Not an error: a closed network may want it. But without CURVE any
	 * host that reaches the port can take a rank (with its token, if
	 * --tokens is set) and everything goes in plain text. */
	if (o->allow_remote && !o->curve_key)
		live_log(s, "warning: --allow-remote without --curve-key: any host that reaches %s can connect, "
			 "in plain text; expected --curve-key and --curve-allow with it (docs/live.md, \"Encryption\")",
			 s->endpoint);
	/* A topology the backend does not see gave every message the delay
	 * it has without one: the configuration read as a network studied. */
	char unused[512];
	if (config_get(session_config(sim), "topology") &&
	    session_topology_warning(session_config(sim), "every message has the delay it has without one",
				     "docs/live.md", unused, sizeof unused))
		live_log(s, "warning: %s", unused);
	return 0;
}

/* Let the last frames (DONE of BYE, ERRORs) leave before the socket
 * closes: zmq_ctx_term then waits until libzmq has handed them to the
 * connections, LIVE_CLOSE_LINGER_MS at most (a peer that stopped
 * reading). A fixed pause is not enough: a poll for 50 ms returned at a
 * client's next HEARTBEAT, and with a linger of 0 a stopped session's
 * ERROR was sometimes dropped, its client left waiting (live_signal). */
static void live_linger(struct live_server *s)
{
	int linger = LIVE_CLOSE_LINGER_MS;
	zmq_setsockopt(s->sock, ZMQ_LINGER, &linger, sizeof linger);
}

/* The session failed (not a deadlock): the connected ranks told why
 * rather than left to time out. Stopped by a signal or the lag bound
 * (live_next refused the next op), the report is written too, marked
 * stopped, with each rank's figures up to its last completed op (no
 * archive); out of memory and output failures write none
 * (docs/live.md). */
static int live_serve_failed(struct live_server *s, int run_rc, char **msgs_tmp, struct nl_err *err)
{
	for (uint32_t r = 0; r < s->n; r++)
		if (s->ranks[r].state == LR_READY)
			live_send_error(s, r, s->ranks[r].id, s->ranks[r].id_len, r, ZP_EABORT, err->msg);
	struct nl_err rerr = {0};
	if (s->stopped_by) {
		session_src_stop_results(s->eng);
		if (live_msgs_commit(s, msgs_tmp, &rerr) < 0 || live_report(s, run_rc, &rerr) < 0)
			live_log(s, "%s", rerr.msg);
	}
	live_linger(s);
	return run_rc;
}

/* Every rank evicted (none connected, typically): "every remaining rank
 * finished" holds vacuously, but a script must tell that from a session
 * that ran, and an archive of empty ranks replays to 0 s. A failure,
 * then: the report says why each went; no archive. So is a job, under
 * --jobs, of which no rank finished (its program never came): the
 * session gave 0 for it (live_jobs_unfinished). 0 when a rank of each
 * job finished. */
static int live_none_finished(struct live_server *s, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	const char *rec = o->record_path ? " (no --record archive written)" : "";
	for (uint32_t r = 0; r < s->n; r++)
		if (s->ranks[r].state == LR_DONE)
			return live_jobs_unfinished(s, rec, err);
	/* Beside a trace, its ranks ran to their end and the report shows
	 * their runtime: the line says the live ranks are the ones that did
	 * not finish. */
	if (o->trace_path && s->n == 1)
		return nl_errf(err, NL_ESTATE, "no live rank finished: rank 0 was evicted; the trace beside ran alone%s",
			       rec);
	if (o->trace_path)
		return nl_errf(err, NL_ESTATE,
			       "no live rank finished: all %" PRIu32 " live ranks were evicted; the trace beside ran alone%s",
			       s->n, rec);
	if (s->n == 1)
		return nl_errf(err, NL_ESTATE, "no rank finished: rank 0 was evicted%s", rec);
	return nl_errf(err, NL_ESTATE, "no rank finished: all %" PRIu32 " ranks were evicted%s", s->n, rec);
}

/* The --record archive put in place, a second signal meanwhile held
 * until it is (or is gone). */
static int live_serve_archive(struct live_server *s, struct nl_err *err)
{
	live_kill_held = 1;
	int rc = live_record_close(s, err);
	live_kill_held = 0;
	if (live_kill_sig) {
		live_kill(live_kill_sig);
		_exit(128 + live_kill_sig);
	}
	return rc;
}

/* After the engine ran (run_rc its status): the ranks told how it ended,
 * the outputs committed and the report written. The session's status. */
static int live_serve_finish(struct live_server *s, int run_rc, char **msgs_tmp, struct nl_err *err)
{
	s->end_ns = live_clock_ns();
	live_evictions_summary(s);
	if (s->rankless_bad > LIVE_LOGGED_REFUSALS)
		live_log(s, "connections without a rank: %" PRIu64 " refused frames in all, %" PRIu64 " not logged",
			 s->rankless_bad, s->rankless_bad - LIVE_LOGGED_REFUSALS);
	if (s->fatal) { /* the server's own line, without the engine's "rank, op" prefix */
		*err = s->fatal_err;
		run_rc = s->fatal;
	}
	if (run_rc < 0 && run_rc != NL_EDEADLOCK)
		return live_serve_failed(s, run_rc, msgs_tmp, err);
	for (uint32_t r = 0; r < s->n; r++) {
		struct live_rank *rk = &s->ranks[r];
		if (rk->state == LR_READY) {
			if (run_rc == NL_EDEADLOCK)
				live_send_error(s, r, rk->id, rk->id_len, r, ZP_EDEADLOCK, err->msg);
			if (rk->bye)
				live_rank_done(s, r);
		}
	}
	if (run_rc == NL_EDEADLOCK) {
		live_log(s, "%s", err->msg);
		/* The report as after a stop: each rank's figures up to its last
		 * completed op and where it waited (a finish of 0 and a runtime
		 * of 0 read as results), and no archive, said so. */
		session_src_stop_results(s->eng);
		if (s->o->record_path)
			live_log(s, "no --record archive written: the session deadlocked");
	}
	if (run_rc == 0)
		run_rc = live_none_finished(s, err);
	NL_CHECK(live_msgs_commit(s, msgs_tmp, err));
	if (run_rc == 0)
		NL_CHECK(live_serve_archive(s, err));
	struct nl_err rerr = {0};
	int rc = live_report(s, run_rc, &rerr);
	if (rc < 0) {
		*err = rerr;
		return rc;
	}
	live_linger(s);
	return run_rc;
}

/* Everything the session holds, files it staged removed. */
static void live_server_release(struct live_server *s, char **msgs_tmp)
{
	if (s->msgs)
		fclose(s->msgs);
	out_unstage(msgs_tmp);
	/* Last rank first: the staged-file list is searched from its end
	 * (out_staged_del), so 2^20 streams are forgotten in O(1) each. */
	for (uint32_t r = s->n; s->ranks && r-- > 0;) {
		struct live_rank *rk = &s->ranks[r];
		live_queue_clear(rk);
		for (uint32_t i = 0; i < rk->n_pay; i++)
			zmq_msg_close(&rk->pay[i].msg);
		if (rk->w)
			trace_stream_abort(rk->w);
		if (rk->w_path)
			out_staged_remove(rk->w_path);
		free(rk->w_path);
		free(rk->q);
		free(rk->pay);
		free(rk->reqs);
		free(rk->open);
		free(rk->recvs);
	}
	free(s->ranks);
	session_src_free(s->eng);
	live_jobs_free(s);
	live_curve_free(s);
	if (s->sock)
		zmq_close(s->sock);
	if (s->zctx)
		zmq_ctx_term(s->zctx);
	live_remove_ipc(s); /* normal end, error or stop: libzmq leaves the file */
	if (s->ipc_path)
		out_staged_del(s->ipc_path);
}

int live_serve(const struct live_opts *o, struct nl_sim *sim, struct nl_err *err)
{
	struct live_server s = {.o = o, .n = o->n_ranks, .err = err, .lru_head = LIVE_NONE, .lru_tail = LIVE_NONE,
				.stall_head = LIVE_NONE};
	char *msgs_tmp = NULL; /* --messages, staged (core/output.h) */
	struct sigaction old_sigs[OUT_N_SIGNALS];
	bool has_signals = false;
	if (o->n_ranks == 0)
		return nl_errf(err, NL_ECONFIG, "--ranks: 0, expected at least 1");
	NL_CHECK(nl_zmq_open(err));
	if (o->record_path) {
		NL_CHECK(live_record_check(o->record_path, err));
		NL_CHECK(live_record_fds_check(o->n_ranks, err));
	}
	if (stats_hist_init(&s.residence_ns) < 0)
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	if (stats_hist_init(&s.lag_ns) < 0) {
		stats_hist_release(&s.residence_ns);
		return nl_errf(err, NL_ENOMEM, "live: out of memory");
	}
	int rc = live_serve_build(&s, sim, err);
	if (rc == 0) {
		/* SIGINT, SIGTERM, SIGHUP: stop, tell the ranks, report
		 * (live_on_signal), from before the first file is made to the
		 * end. */
		live_signals(true, old_sigs);
		has_signals = true;
		rc = live_serve_listen(&s, sim, &msgs_tmp, err);
	}
	if (rc == 0)
		rc = live_serve_finish(&s, session_src_run(s.eng, err), &msgs_tmp, err);
	live_server_release(&s, &msgs_tmp);
	if (has_signals)
		live_signals(false, old_sigs);
	stats_hist_release(&s.residence_ns);
	stats_hist_release(&s.lag_ns);
	if (o->is_unwritten)
		*o->is_unwritten = rc < 0 && s.is_unwritten;
	return rc;
}

