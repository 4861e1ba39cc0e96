/* The server's outputs: the session recording (one trace stream per rank,
 * assembled into an .nlt archive only when the session ended cleanly), the
 * message log line, and the report (text and JSON) saying what happened to
 * every rank. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "adapters/zmq_port.h"

#include "adapters/adapters.h"
#include "adapters/adapters_internal.h"
#include "core/error.h"
#include "core/output.h"
#include "core/stats.h"
#include "session/session.h"
#include "traces/trace.h"

const char *live_state_name(unsigned state)
{
	static const char *const names[] = {"never connected", "connected", "finished", "evicted"};
	return state < sizeof names / sizeof names[0] ? names[state] : "?";
}

const char *live_stop_name(unsigned stop)
{
	static const char *const names[] = {NULL, "SIGINT", "SIGTERM", "SIGHUP", "max-lag"};
	return stop < sizeof names / sizeof names[0] ? names[stop] : "?";
}

void live_match_line(FILE *f, const struct app_match_info *mi)
{
	fprintf(f, "%" PRIu32 " %" PRIu32 " %" PRId32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		   " %" PRIu64 "\n",
		mi->src, mi->dst, mi->tag, mi->bytes, mi->send_op, mi->recv_op, mi->t_sent_ps, mi->t_arrived_ps,
		mi->t_done_ps);
}

int live_record_open(struct live_server *s, struct nl_err *err)
{
	if (!s->o->record_path)
		return 0;
	/* Each stream a hidden file of a name no other server has
	 * (.ARCHIVE.r<rank>.tmpXXXXXX): two servers recording into one
	 * folder, even to one archive, do not share them, and what a
	 * killed server leaves is not shown beside the archives. Registered
	 * as made: a second signal removes them (serve.c). */
	for (uint32_t r = 0; r < s->n; r++)
		NL_CHECK(trace_stream_open_temp(&s->ranks[r].w, r, s->o->record_path, &s->ranks[r].w_path, err));
	return 0;
}

/* A --record failure once the session ran: its line names the option and
 * the archive, not rank r's temporary stream file (gone by the time it is
 * read; as the trace builder's stream_err), or r = LIVE_NONE for the
 * archive's own error, which names it already. */
static int live_record_err(struct live_server *s, uint32_t r, int rc, struct nl_err *err)
{
	const char *tmp = r < s->n ? s->ranks[r].w_path : NULL;
	size_t n = tmp ? strlen(tmp) : 0;
	if (n && !strncmp(err->msg, tmp, n) && err->msg[n] == ':') {
		char rest[NL_ERR_MSG_MAX];
		snprintf(rest, sizeof rest, "%s", err->msg + n);
		snprintf(err->msg, sizeof err->msg, "%s%s", s->o->record_path, rest);
	}
	nl_err_prefix(err, "--record");
	s->is_unwritten = true;
	return rc;
}

int live_record_op(struct live_server *s, uint32_t r, const struct trace_op *op, struct nl_err *err)
{
	if (!s->ranks[r].w)
		return 0;
	struct nl_err e = {0};
	int rc = trace_stream_append(s->ranks[r].w, op, &e);
	if (rc < 0 && !s->fatal) {
		s->fatal = live_record_err(s, r, rc, &e);
		s->fatal_err = e;
	}
	if (rc < 0 && err)
		*err = s->fatal_err;
	return rc < 0 ? s->fatal : 0;
}

int live_record_close(struct live_server *s, struct nl_err *err)
{
	if (!s->o->record_path)
		return 0;
	struct trace_manifest m = {0};
	m.n_ranks = s->n;
	m.n_comms = s->comms ? s->n_jobs : 0; /* each job's communicator, for its barriers */
	m.comms = s->comms;
	m.application = "netloom-serve";
	m.command_line = "netloom serve";
	m.machine = "live";
	m.recorder = "netloom-serve " NETLOOM_VERSION;
	m.mpi_library = "";
	m.rank_ops = calloc(s->n, sizeof *m.rank_ops);
	m.rank_bytes = calloc(s->n, sizeof *m.rank_bytes);
	m.rank_hash = calloc(s->n, sizeof *m.rank_hash);
	const char **paths = calloc(s->n, sizeof *paths);
	int rc = 0;
	if (!m.rank_ops || !m.rank_bytes || !m.rank_hash || !paths) {
		rc = nl_errf(err, NL_ENOMEM, "live: out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < s->n && rc == 0; r++) {
		rc = trace_stream_close(s->ranks[r].w, &m.rank_ops[r], &m.rank_bytes[r], &m.rank_hash[r], err);
		s->ranks[r].w = NULL;
		paths[r] = s->ranks[r].w_path;
		if (rc < 0)
			live_record_err(s, r, rc, err);
	}
	/* Its temporary file hidden too, as the streams: .ARCHIVE.tmpXXXXXX. */
	if (rc == 0 && (rc = trace_archive_write_hidden(s->o->record_path, &m, paths, err)) < 0)
		live_record_err(s, LIVE_NONE, rc, err);
out:
	for (uint32_t r = 0; r < s->n; r++)
		if (s->ranks[r].w_path)
			unlink(s->ranks[r].w_path);
	free(paths);
	free(m.rank_ops);
	free(m.rank_bytes);
	free(m.rank_hash);
	return rc;
}

bool live_finish_ps(const struct live_server *s, uint32_t lo, uint32_t n, uint64_t *ps)
{
	const struct app_results *res = app_results(session_src_app(s->eng));
	bool any = false;
	*ps = 0;
	for (uint32_t r = lo; res && r < lo + n && r < res->n_ranks; r++) {
		bool fin = r < s->n ? s->ranks[r].state == LR_DONE : !res->partial || res->stop[r].finished;
		if (fin && res->ranks[r].finish_ps >= *ps)
			*ps = res->ranks[r].finish_ps;
		any |= fin;
	}
	return any;
}

/* --json: '-' on standard output; a file is staged and registered (a
 * second signal removes it: serve.c), then moved into place
 * (out_write_json_registered). */
static int live_json_write(const char *path, const json_t *doc, struct nl_err *err)
{
	int rc = out_write_json_registered(path, doc, err);
	return rc < 0 ? nl_err_prefix(err, "--json") : 0;
}

/* Paced: wall time from virtual time 0 (every rank connected) to the last
 * release. Only releases to live ranks are paced: a --trace's ops after
 * the live ranks' end replay as fast as the engine goes, and counting
 * that time gave a paced wall time unrelated to the virtual runtime (55 ms
 * for 0.398 s at --pace 1). */
static uint64_t live_paced_wall(const struct live_server *s)
{
	return s->w0_ns && s->paced_last_ns > s->w0_ns ? s->paced_last_ns - s->w0_ns : 0;
}

static void live_line(void *ctx, const char *l)
{
	fprintf(ctx, "  %s\n", l);
}

/* With --trace: the live ranks' figures apart from the trace's. */
static void live_beside_text(struct live_server *s, json_t *doc, FILE *f)
{
	json_t *b = json_object_get(doc, "beside_trace");
	const char *map = json_string_value(json_object_get(b, "placement_map"));
	fprintf(f, "  beside trace %s (%s), placement %s%s%s%s:\n", json_string_value(json_object_get(b, "path")),
		json_string_value(json_object_get(b, "application")), json_string_value(json_object_get(b, "placement")),
		map ? " (file " : "", map ? map : "", map ? ")" : "");
	for (int side = 0; side < 2; side++) {
		struct session_src_figures fg;
		session_src_side(s->eng, side, &fg);
		char fin[40] = "none finished";
		if (fg.finished)
			snprintf(fin, sizeof fin, "%.9f s", (double)fg.finish_ps * 1e-12);
		/* Send posted to arrival, the side's own: the all-ranks line
		 * below is the replay's (hand-off to the network to arrival). */
		fprintf(f, "    %-5s ranks %" PRIu32 "..%" PRIu32 ": finish %s, %" PRIu64
			   " message%s, latency (send posted to arrival) mean %.3f us, p50 %.3f us, p99 %.3f us, max %.3f us\n",
			side ? "trace" : "live", fg.first_rank, fg.first_rank + fg.ranks - 1, fin, fg.messages,
			fg.messages == 1 ? "" : "s",
			fg.lat_mean_ps * 1e-6, (double)fg.lat_p50_ps * 1e-6, (double)fg.lat_p99_ps * 1e-6,
			(double)fg.lat_max_ps * 1e-6);
	}
}

/* The header line and the replay report's per-rank breakdown, in virtual
 * seconds. For a stopped session (partial: app_stop_results) each rank's
 * figures run up to its last completed op: the table gives the time they
 * count up to (until_s) instead of the finish, and where the rank was. */
static void live_ranks_text(struct live_server *s, json_t *doc, FILE *f, bool partial)
{
	const struct app_results *res = app_results(session_src_app(s->eng));
	const char *backend = json_string_value(json_object_get(doc, "backend"));
	if (partial) {
		fprintf(f, "netloom serve: %" PRIu32 " rank%s, %s backend, stopped at virtual time %.9f s (partial), %" PRIu64
			   " message%s delivered\n",
			s->n, s->n == 1 ? "" : "s", backend, (double)res->stopped_ps * 1e-12, s->delivered,
			s->delivered == 1 ? "" : "s");
		fprintf(f, "  partial: each rank up to its last completed operation (until_s); the one under way is left out\n");
	} else {
		uint64_t fin_ps;
		char rt[64] = "no rank finished";
		if (live_finish_ps(s, 0, res->n_ranks, &fin_ps))
			snprintf(rt, sizeof rt, "virtual runtime %.9f s", (double)fin_ps * 1e-12);
		fprintf(f, "netloom serve: %" PRIu32 " rank%s, %s backend, %s, %" PRIu64 " message%s delivered\n", s->n,
			s->n == 1 ? "" : "s", backend, rt, s->delivered, s->delivered == 1 ? "" : "s");
	}
	fprintf(f, "    rank      compute_s         comm_s         wait_s %s   messages%s\n",
		partial ? "       until_s" : "      finish_s", partial ? "  at the stop" : "");
	for (uint32_t r = 0; r < res->n_ranks; r++) {
		const struct app_rank_stats *st = &res->ranks[r];
		const struct app_rank_stop *sp = partial ? &res->stop[r] : NULL;
		const bool is_evicted = r < s->n && s->ranks[r].state == LR_EVICTED;
		/* An evicted rank has no finish: `-`, as its JSON finish_s is
		 * null (live_evicted_json), where the column gave the end of
		 * its stream. until_s, partial, is where that stream ended, as
		 * the JSON's until_s. */
		char end[32];
		if (sp || !is_evicted)
			snprintf(end, sizeof end, "%14.9f", (double)(sp ? sp->until_ps : st->finish_ps) * 1e-12);
		else
			snprintf(end, sizeof end, "%14s", "-");
		fprintf(f, "  %6" PRIu32 " %14.9f %14.9f %14.9f %s %10" PRIu64, r, (double)st->compute_ps * 1e-12,
			(double)st->comm_ps * 1e-12, (double)st->wait_ps * 1e-12, end, st->msgs_sent);
		if (is_evicted) {
			fputs("  evicted", f); /* its stream was ended for it: not "finished", no finish */
		} else if (sp) {
			const char *op = sp->in_op ? trace_op_name(sp->op_kind) : NULL;
			fprintf(f, "  %s%s", sp->finished ? "finished" : sp->in_op ? "in " : "between ops",
				sp->in_op ? (op ? op : "?") : "");
		}
		fputc('\n', f);
	}
}

/* An evicted rank's stream was ended for it where it went, which is no
 * finish (the runtime, its job's finish and the text's `evicted` say so):
 * its results.ranks[] entry has finish_s null, and in partial results
 * finished false, where the engine's figures gave it the stream's end
 * (0.0 for a rank that never connected) as a finish. */
static void live_evicted_json(const struct live_server *s, json_t *doc, bool partial)
{
	json_t *ranks = json_object_get(json_object_get(doc, "results"), "ranks");
	for (uint32_t r = 0; r < s->n; r++) {
		json_t *x = json_array_get(ranks, r);
		if (!x || s->ranks[r].state != LR_EVICTED)
			continue;
		json_object_set_new(x, "finish_s", json_null());
		if (partial)
			json_object_set_new(x, "finished", json_false());
	}
}

/* The report's "live" object (docs/results.md): each rank's state, the
 * jobs, CURVE, how the session ended, and the wall-clock figures. */
static json_t *live_report_live(const struct live_server *s, int run_rc)
{
	const struct live_opts *o = s->o;
	json_t *live = json_object(), *ranks = json_array();
	for (uint32_t r = 0; r < s->n; r++) {
		const struct live_rank *rk = &s->ranks[r];
		/* why quotes what a client sent and is cut at 200 bytes: any bytes,
		 * as U+FFFD (a string json_pack refuses dropped the rank). */
		json_array_append_new(ranks, json_pack("{s:i, s:s, s:I, s:I, s:I, s:o}", "rank", (json_int_t)r, "state",
						       live_state_name(rk->state), "refused_frames",
						       (json_int_t)rk->offences, "payloads_lost_to",
						       (json_int_t)rk->lost_to, "payloads_lost_from",
						       (json_int_t)rk->lost_from, "what_happened", out_json_utf8(rk->why)));
	}
	json_object_set_new(live, "ranks", ranks);
	json_object_set_new(live, "jobs", live_jobs_json(s));
	if (s->zap)
		json_object_set_new(live, "curve", json_pack("{s:I, s:I, s:I}", "allowed_keys", (json_int_t)s->n_allowed,
							     "handshakes_accepted", (json_int_t)s->curve_ok,
							     "handshakes_refused", (json_int_t)s->curve_refused));
	json_object_set_new(live, "listen", out_json_utf8(s->endpoint));
	json_object_set_new(live, "deadlock", json_boolean(run_rc == NL_EDEADLOCK));
	json_object_set_new(live, "stopped", json_boolean(s->stopped_by != LS_NONE));
	if (s->stopped_by) {
		json_object_set_new(live, "stopped_by", json_string(live_stop_name(s->stopped_by)));
		json_object_set_new(live, "stop_reason", out_json_utf8(s->fatal_err.msg));
	}
	json_object_set_new(live, "evictions", json_integer((json_int_t)s->evictions));
	json_object_set_new(live, "refused_frames", json_integer((json_int_t)s->frames_bad));
	json_object_set_new(live, "refused_frames_without_rank", json_integer((json_int_t)s->rankless_bad));
	json_object_set_new(live, "delivered", json_integer((json_int_t)s->delivered));
	/* Wall-clock residence (SEND received to DELIVER queued): not reproducible. */
	json_object_set_new(live, "residence_ns_p50",
			    json_integer((json_int_t)stats_hist_percentile(&s->residence_ns, 50)));
	json_object_set_new(live, "residence_ns_p99",
			    json_integer((json_int_t)stats_hist_percentile(&s->residence_ns, 99)));
	if (o->pace > 0) {
		/* Paced: how far releases fell behind the wall clock (not reproducible). */
		json_object_set_new(live, "pace", json_real(o->pace));
		json_object_set_new(live, "lag_ns_max", json_integer((json_int_t)stats_hist_percentile(&s->lag_ns, 100)));
		json_object_set_new(live, "lag_ns_p99", json_integer((json_int_t)stats_hist_percentile(&s->lag_ns, 99)));
		json_object_set_new(live, "releases_late_over_1ms", json_integer((json_int_t)s->late));
		/* Time behind: wall time with a release overdue by more than
		 * the threshold, out of the paced wall time (virtual 0 to the
		 * last release). */
		json_object_set_new(live, "behind_threshold_ns", json_integer(LIVE_LATE_NS));
		json_object_set_new(live, "behind_ns", json_integer((json_int_t)s->behind_ns));
		json_object_set_new(live, "paced_wall_ns", json_integer((json_int_t)live_paced_wall(s)));
	}
	return live;
}

/* The text report: the ranks' table, beside a trace its ranks', message
 * latency, pacing, jobs, CURVE, what happened to ranks that did not
 * simply finish, and how the session ended. */
static void live_report_text(struct live_server *s, json_t *doc, const struct app_results *res, int run_rc, FILE *f)
{
	const struct live_opts *o = s->o;
	live_ranks_text(s, doc, f, res->partial);
	struct app_latency lat;
	app_latency(session_src_app(s->eng), -1, &lat);
	if (session_src_trace_ranks(s->eng))
		live_beside_text(s, doc, f);
	/* The latency counts every message the network carried, the
	 * barriers' too: the head line's delivered count is the
	 * clients' only ('18 messages delivered' above 'message
	 * latency: 24 messages'), so the split is said. */
	char split[96] = "";
	json_t *msgs = json_object_get(json_object_get(doc, "results"), "messages");
	json_int_t n_coll = json_integer_value(json_object_get(json_object_get(msgs, "collective"), "count"));
	if (!session_src_trace_ranks(s->eng) && n_coll > 0)
		snprintf(split, sizeof split, " (%" JSON_INTEGER_FORMAT " point-to-point, %" JSON_INTEGER_FORMAT
			 " inside barriers)",
			 json_integer_value(json_object_get(json_object_get(msgs, "p2p"), "count")), n_coll);
	if (lat.n)
		fprintf(f, "  message latency%s: %" PRIu64 " message%s%s, mean %.3f us, p50 %.3f us, p99 %.3f us, max %.3f us\n",
			session_src_trace_ranks(s->eng) ? " (all ranks, hand-off to the network to arrival)" : "", lat.n,
			lat.n == 1 ? "" : "s", split, lat.mean_ps * 1e-6, (double)lat.p50_ps * 1e-6, (double)lat.p99_ps * 1e-6,
			(double)lat.max_ps * 1e-6);
	/* As replay's report (JSON messages.unmatched): a message to a
	 * rank that finished or was evicted before receiving it. */
	if (res->unmatched_msgs)
		fprintf(f, "  warning: %" PRIu64 " message%s sent but never received\n", res->unmatched_msgs,
			res->unmatched_msgs == 1 ? " was" : "s were");
	if (o->pace > 0)
		fprintf(f, "  paced x%g: lag behind the wall clock max %.3f ms, p99 %.3f ms, %" PRIu64
			   " release%s over 1 ms late; time behind (a release over 1 ms late) %.3f ms of %.3f ms%s\n",
			o->pace, (double)stats_hist_percentile(&s->lag_ns, 100) * 1e-6,
			(double)stats_hist_percentile(&s->lag_ns, 99) * 1e-6, s->late, s->late == 1 ? "" : "s",
			(double)s->behind_ns * 1e-6,
			(double)live_paced_wall(s) * 1e-6,
			o->trace_path ? " (wall, to the live ranks' last release; the trace's ops after it "
					"replayed unpaced)" : "");
	live_jobs_text(s, f);
	if (s->zap)
		fprintf(f, "  CURVE: %" PRIu64 " handshake%s accepted, %" PRIu64 " refused (key not allowed)\n",
			s->curve_ok, s->curve_ok == 1 ? "" : "s", s->curve_refused);
	for (uint32_t r = 0; r < s->n; r++) {
		const struct live_rank *rk = &s->ranks[r];
		if (rk->state == LR_DONE && !rk->offences && !rk->lost_to && !rk->lost_from)
			continue;
		fprintf(f, "  rank %" PRIu32 ": %s; %" PRIu64 " refused frame%s; payloads lost to it %" PRIu64
			   ", from it %" PRIu64 "%s%s\n",
			r, live_state_name(rk->state), rk->offences, rk->offences == 1 ? "" : "s", rk->lost_to, rk->lost_from,
			rk->why[0] ? "; " : "", rk->why);
	}
	if (s->rankless_bad)
		fprintf(f, "  connections without a rank: %" PRIu64 " refused frame%s (%" PRIu64 " logged)\n",
			s->rankless_bad, s->rankless_bad == 1 ? "" : "s",
			s->rankless_bad < LIVE_LOGGED_REFUSALS ? s->rankless_bad : (uint64_t)LIVE_LOGGED_REFUSALS);
	if (s->stopped_by) /* a signal's line says "stopped by SIG..." itself */
		fprintf(f, "  session %s%s (per-rank results partial, up to the stop)\n",
			s->stopped_by == LS_MAX_LAG ? "stopped: " : "", s->fatal_err.msg);
	if (run_rc == NL_EDEADLOCK) {
		fprintf(f, "  ranks that waited forever:\n");
		app_deadlock_report(session_src_app(s->eng), live_line, f);
	}
}

int live_report(struct live_server *s, int run_rc, struct nl_err *err)
{
	const struct live_opts *o = s->o;
	json_t *doc = session_src_json(s->eng, err);
	if (!doc)
		return NL_ENOMEM;
	const struct app_results *res = app_results(session_src_app(s->eng));
	uint64_t fin_ps;
	if (!res->partial) {
		/* The session's runtime is its finished ranks' (live_finish_ps),
		 * not the engine's, which ends evicted ranks' streams too. */
		json_t *rt = json_object_get(json_object_get(doc, "results"), "runtime");
		bool any = live_finish_ps(s, 0, res->n_ranks, &fin_ps);
		json_object_set_new(rt, "predicted_s", any ? json_real((double)fin_ps * 1e-12) : json_null());
	}
	live_evicted_json(s, doc, res->partial);
	json_object_set_new(doc, "live", live_report_live(s, run_rc));
	int rc = 0;
	if (o->json_path && (rc = live_json_write(o->json_path, doc, err)) < 0)
		s->is_unwritten = true;
	/* An output on standard output ('-') takes it instead of the text
	 * report, as replay's --json - does (two are refused). */
	bool is_stdout_taken = (o->json_path && !strcmp(o->json_path, "-")) ||
			       (o->messages_path && !strcmp(o->messages_path, "-"));
	if (o->report && !is_stdout_taken)
		live_report_text(s, doc, res, run_rc, o->report);
	json_decref(doc);
	return rc;
}
