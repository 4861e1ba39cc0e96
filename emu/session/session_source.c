/* nl_sim over caller-supplied op sources: the replay wiring (backend,
 * topology, routing, app) of session_replay.c for ranks whose ops come from
 * the caller, not from an archive. The live server (adapters/) is its
 * client: its ranks are an app_source pulled in virtual-time order, so a
 * live session and the replay of its recording run the same code.
 *
 * Optionally a trace replays beside the caller's ranks, on endpoints of its
 * own, loading the same network (issue 12: "live ranks beside one replayed
 * trace"). Both are then jobs of one app_jobs_source: the caller's ranks
 * are job 0 (world ranks 0..n-1, endpoints 0..n-1), the trace's ranks job 1
 * (world ranks n..), so they meet only in the network, as the jobs of
 * `netloom interfere` do. The figures are kept per side: whose messages
 * were slowed by whom is the point of such a run. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/stats.h"
#include "core/version.h"
#include "net/net.h"
#include "place/place.h"
#include "route/route.h"
#include "session/session.h"
#include "session/session_internal.h"
#include "topo/topo.h"
#include "traces/trace.h"

struct session_src {
	nl_sim *s;
	struct app_config ac;
	const struct topo *topo;       /* NULL: the backend runs without one */
	struct net_backend *net;
	struct app *app;
	char routing[128];             /* picked routing function, "" none */
	uint32_t n_src;                /* the caller's ranks: world 0..n_src-1 */
	app_match_fn on_match;
	void *match_ctx;
	bool (*rank_finished)(void *ctx, uint32_t rank); /* NULL: the caller's ranks finish as the trace's */
	void *finished_ctx;
	/* The trace beside them (NULL / 0 without one). */
	char *trace_path;
	struct trace_archive *arch;
	struct app_archive_source *asrc;
	struct app_source trace_src;   /* asrc's, pulled through src_trace_next */
	int (*poll)(void *ctx, struct nl_err *err); /* before each trace op, or NULL */
	void *poll_ctx;
	struct app_jobs_source *js;
	struct app_source combined;
	uint32_t n_trace;
	uint32_t *rank_ep;             /* [n_src + n_trace]; NULL: rank r on endpoint r */
	char placement[64];            /* how the trace was placed */
	struct stats_hist lat[2];      /* per side: arrival - send of matched messages, ps */
	bool have_hist;
};

/* Matches: split the latency per side, and hand the caller only those
 * between its own ranks (the trace's ranks are no business of its). */
static void src_match(void *ctx, const struct app_match_info *mi)
{
	struct session_src *r = ctx;
	bool mine = mi->src < r->n_src && mi->dst < r->n_src;
	if (r->have_hist)
		stats_hist_add(&r->lat[mine ? 0 : 1], mi->t_arrived_ps - mi->t_sent_ps);
	if (mine && r->on_match)
		r->on_match(r->match_ctx, mi);
}

/* Endpoints of the trace's ranks: after the caller's by default (key
 * `placement` = linear), else by the emu/place policy on the endpoints the
 * caller's ranks leave free. */
static int src_place_trace(struct session_src *r, uint32_t total, struct nl_err *err)
{
	snprintf(r->placement, sizeof r->placement, "linear");
	if (!strcmp(r->ac.placement, "linear"))
		return 0;
	const struct place_ops *ops = NULL;
	int prc = session_place_policy(r->s, r->ac.placement, r->topo, &ops, err);
	if (prc < 0)
		return prc;
	uint8_t *busy = calloc(r->topo->n_endpoints, 1);
	uint32_t *ep = malloc((size_t)(r->n_trace ? r->n_trace : 1) * sizeof *ep);
	r->rank_ep = malloc((size_t)total * sizeof *r->rank_ep);
	if (!busy || !ep || !r->rank_ep) {
		free(busy);
		free(ep);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < r->n_src; i++)
		busy[i] = 1;
	struct place_req req = {
		.t = r->topo,
		.n_ranks = r->n_trace,
		.ranks_per_node = (uint32_t)r->ac.ranks_per_node,
		.inner = r->ac.placement_inner ? PLACE_INNER_ROUND_ROBIN : PLACE_INNER_LINEAR,
		.seed = (uint64_t)r->ac.placement_seed,
		.job = 1,
		.busy = busy,
		.map_path = r->ac.placement_map,
	};
	int rc = place_job(ops, &req, ep, err);
	free(busy);
	if (rc < 0) {
		free(ep);
		return session_place_failed(r->s, ops, err);
	}
	for (uint32_t i = 0; i < r->n_src; i++)
		r->rank_ep[i] = i;
	memcpy(r->rank_ep + r->n_src, ep, (size_t)r->n_trace * sizeof *ep);
	free(ep);
	snprintf(r->placement, sizeof r->placement, "%s", ops->name);
	return 0;
}

/* The trace's next op, after the caller's poll: the trace replays on
 * while the caller's ranks ask nothing (done, or waiting), and the poll is
 * where the caller can stop it then. */
static int src_trace_next(void *ctx, uint32_t rank, struct trace_op *op, struct nl_err *err)
{
	struct session_src *r = ctx;
	if (r->poll)
		NL_CHECK(r->poll(r->poll_ctx, err));
	return r->trace_src.next(r->trace_src.ctx, rank, op, err);
}

/* The trace beside the caller's ranks: open it, combine the two as jobs. */
static int src_open_trace(struct session_src *r, const struct app_source *src, const char *path,
			  struct nl_err *err)
{
	struct app_source jobs[2] = {*src};
	r->trace_path = strdup(path);
	if (!r->trace_path)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	NL_CHECK(trace_archive_open(&r->arch, path, err));
	NL_CHECK(app_archive_source_new(&r->asrc, r->arch, &r->trace_src, err));
	jobs[1] = r->trace_src;
	jobs[1].next = src_trace_next;
	jobs[1].ctx = r;
	r->n_trace = jobs[1].n_ranks;
	NL_CHECK(app_jobs_source_new(&r->js, jobs, 2, &r->combined, err));
	r->have_hist = true; /* released zeroed when an init fails */
	if (stats_hist_init(&r->lat[0]) < 0 || stats_hist_init(&r->lat[1]) < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	return 0;
}

int session_src_new(struct session_src **out, nl_sim *s, const struct session_src_opts *o, struct nl_err *err)
{
	struct session_src *r = calloc(1, sizeof *r);
	const struct app_source *src = o->src;
	int rc;
	*out = NULL;
	if (!r)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	r->s = s;
	r->n_src = o->src->n_ranks;
	r->on_match = o->on_match;
	r->match_ctx = o->match_ctx;
	r->rank_finished = o->rank_finished;
	r->finished_ctx = o->finished_ctx;
	r->poll = o->poll;
	r->poll_ctx = o->poll_ctx;
	/* Configuration errors first ([replay] keys, backend), as replay. */
	if ((rc = app_config_bind(&s->cfg, &r->ac, err)) < 0)
		goto fail;
	/* A caller's COMPUTE is a declared duration, as a recording's
	 * wall-clock gap (the trace beside replays its own the same way). */
	if (o->wall_compute && r->ac.compute_time == APP_COMPUTE_AUTO)
		r->ac.compute_time = APP_COMPUTE_WALL;
	/* A declared duration has no CPU time to replay: cpu would replay
	 * every COMPUTE as 0 s, so it is refused, as replay refuses it for a
	 * trace without CPU time. */
	if (o->wall_compute && r->ac.compute_time == APP_COMPUTE_CPU) {
		nl_errf(err, NL_ECONFIG,
			"key 'compute_time': value 'cpu': live ranks declare COMPUTE durations, not CPU time; expected "
			"wall or auto");
		rc = config_err_file_line(&s->cfg, "compute_time", err);
		goto fail;
	}
	const struct net_backend_ops *ops = session_backend_find(s, r->ac.backend, err);
	if (!ops) {
		rc = err->code;
		goto fail;
	}
	if (o->trace_path) {
		if ((rc = src_open_trace(r, o->src, o->trace_path, err)) < 0) {
			if (o->trace_opt && rc != NL_ENOMEM)
				nl_err_prefix(err, "%s", o->trace_opt);
			goto fail;
		}
		src = &r->combined;
	}
	if ((rc = session_bind(s, err)) < 0)
		goto fail;
	/* As replay: a backend that accepts no topology (the analytic one)
	 * gets one only when the user set it. */
	if (!ops->topology_optional || config_get(&s->cfg, "topology")) {
		if ((rc = session_topo_as(s, "key 'topology'", err)) < 0) {
			goto fail;
		}
		r->topo = s->topo;
		if (!strcmp(r->ac.placement, "linear") && r->topo->n_endpoints < src->n_ranks) {
			nl_errf(err, NL_ECONFIG,
				"key 'topology': '%s' has %" PRIu32 " endpoints, the session needs %" PRIu32
				" (one per rank%s); expected a topology of %" PRIu32 " endpoints or more",
				s->nc.topology, r->topo->n_endpoints, src->n_ranks,
				o->trace_path ? ", the trace's included" : "", src->n_ranks);
			rc = config_err_file_line(&s->cfg, "topology", err);
			goto fail;
		}
		/* Before the pick below, which is not the user's to check. */
		if (ops->ignores_routing && (rc = session_check_unrun_routing(s, r->topo, err)) < 0)
			goto fail;
		if (!config_get(&s->cfg, "routing_function")) {
			const char *name = session_pick_routing(r->topo);
			if (name) {
				if ((rc = config_set(&s->cfg, "routing_function", name, "serve", err)) < 0)
					goto fail;
				snprintf(r->routing, sizeof r->routing, "%s", name);
				s->is_bound = false;
			}
		}
	} else if (ops->ignores_routing && (rc = session_check_unrun_routing(s, NULL, err)) < 0) {
		goto fail;
	}
	if (o->trace_path && (rc = src_place_trace(r, src->n_ranks, err)) < 0)
		goto fail;
	if ((rc = net_backend_new(ops, &s->cfg, r->topo, &r->net, err)) < 0)
		goto fail;
	/* cable_latency applies to live sessions as to replays (or is
	 * refused by the backend that cannot take per-link latencies). */
	json_t *cables = NULL;
	rc = session_cable_apply(s, r->net, r->topo, &cables, err);
	json_decref(cables);
	if (rc < 0)
		goto fail;
	if ((rc = app_new(&r->app, &r->ac, src, r->net, r->rank_ep, err)) < 0)
		goto fail;
	if (o->on_match || o->trace_path)
		app_set_match_hook(r->app, src_match, r);
	app_set_cut_why(r->app, o->cut_why, o->cut_why_ctx);
	*out = r;
	return 0;
fail:
	session_src_free(r);
	return rc;
}

int session_src_run(struct session_src *r, struct nl_err *err)
{
	int rc = app_run(r->app, NULL, err);
	/* A deadlock may have stopped the trace beside before damage in it
	 * was read: it is said as damage, as when the run reaches it (as
	 * session_replay_run does). Only then: a session stopped (a signal,
	 * the lag bound) reads nothing more. */
	if (rc == NL_EDEADLOCK && r->asrc && !app_archive_source_failed(r->asrc)) {
		struct nl_err cerr = {0};
		int crc = app_archive_source_check_rest(r->asrc, &cerr);
		if (crc < 0 && crc != NL_ENOMEM) {
			if (err)
				*err = cerr;
			rc = crc;
		}
	}
	return rc;
}

void session_src_stop_results(struct session_src *r)
{
	app_stop_results(r->app);
}

uint64_t session_src_now(const struct session_src *r)
{
	return app_now(r->app);
}

const struct app *session_src_app(const struct session_src *r)
{
	return r->app;
}

uint32_t session_src_trace_ranks(const struct session_src *r)
{
	return r->n_trace;
}

void session_src_side(const struct session_src *r, int trace, struct session_src_figures *f)
{
	const struct app_results *res = app_results(r->app);
	uint32_t lo = trace ? r->n_src : 0, hi = trace ? r->n_src + r->n_trace : r->n_src;
	memset(f, 0, sizeof *f);
	f->first_rank = lo;
	f->ranks = hi - lo;
	for (uint32_t i = lo; i < hi && i < res->n_ranks; i++) {
		const struct app_rank_stats *st = &res->ranks[i];
		/* A stopped session's unfinished ranks have no finish (0), nor
		 * has a caller's rank whose stream was ended for it: the engine
		 * ends an evicted live rank's stream where it went, which is
		 * no finish (the live report's runtime and jobs say the same). */
		bool fin = i < r->n_src && r->rank_finished ? r->rank_finished(r->finished_ctx, i)
							    : !res->partial || res->stop[i].finished;
		if (fin) {
			f->finished++;
			if (st->finish_ps > f->finish_ps)
				f->finish_ps = st->finish_ps;
		}
		f->compute_ps += st->compute_ps;
		f->comm_ps += st->comm_ps;
		f->wait_ps += st->wait_ps;
	}
	if (!r->have_hist)
		return;
	const struct stats_hist *h = &r->lat[trace ? 1 : 0];
	f->messages = h->n;
	f->lat_mean_ps = stats_hist_mean(h);
	f->lat_p50_ps = stats_hist_percentile(h, 50);
	f->lat_p99_ps = stats_hist_percentile(h, 99);
	f->lat_max_ps = h->n ? h->max : 0;
}

static json_t *src_side_json(const struct session_src *r, int trace)
{
	struct session_src_figures f;
	session_src_side(r, trace, &f);
	return json_pack("{s:i, s:i, s:o, s:f, s:f, s:f, s:I, s:{s:f, s:I, s:I, s:I}}", "first_rank",
			 (json_int_t)f.first_rank, "ranks", (json_int_t)f.ranks, "finish_s",
			 f.finished ? json_real((double)f.finish_ps * 1e-12) : json_null(),
			 "compute_s", (double)f.compute_ps * 1e-12, "comm_s", (double)f.comm_ps * 1e-12, "wait_s",
			 (double)f.wait_ps * 1e-12, "messages", (json_int_t)f.messages, "latency_ps", "mean",
			 f.lat_mean_ps, "p50", (json_int_t)f.lat_p50_ps, "p99", (json_int_t)f.lat_p99_ps, "max",
			 (json_int_t)f.lat_max_ps);
}

json_t *session_src_json(struct session_src *r, struct nl_err *err)
{
	json_t *doc = json_object();
	json_t *net = json_object();
	if (!doc || !net)
		goto oom;
	session_json_head(doc, "serve");
	/* The resolved configuration, as replay and interfere write it: what
	 * re-runs the session's network with its recording. */
	json_object_set_new(doc, "config", session_config_json(&r->s->cfg));
	json_object_set_new(doc, "results", app_results_json(r->app));
	if (r->net->ops->report && r->net->ops->report(r->net, net, err) < 0) {
		json_decref(net);
		json_decref(doc);
		return NULL;
	}
	/* As replay's report (and the server's warning line). */
	const char *unused = r->topo ? session_topology_unused(&r->s->cfg) : NULL;
	if (unused)
		json_object_set_new(net, "topology_unused", json_string(unused));
	json_object_set_new(doc, "network", net);
	json_object_set_new(doc, "backend", json_string(r->net->ops->name));
	if (r->arch) {
		const struct trace_manifest *m = trace_archive_manifest(r->arch);
		/* The path and the manifest's name are any bytes: as U+FFFD (a
		 * string json_pack refuses made the whole report "out of memory"). */
		json_t *b = json_pack("{s:o, s:o, s:s, s:o, s:o}", "path", out_json_utf8(r->trace_path), "application",
				      out_json_utf8(m->application), "placement", r->placement, "live",
				      src_side_json(r, 0), "trace", src_side_json(r, 1));
		if (!b)
			goto oom;
		/* Where the trace's ranks ran: the placement to re-run or compare. */
		json_t *eps = json_array();
		for (uint32_t i = 0; eps && i < r->n_trace; i++)
			json_array_append_new(eps, json_integer(r->rank_ep ? r->rank_ep[r->n_src + i] : r->n_src + i));
		json_object_set_new(b, "endpoints", eps);
		if (!strcmp(r->placement, "map"))
			json_object_set_new(b, "placement_map", out_json_utf8(r->ac.placement_map));
		json_object_set_new(doc, "beside_trace", b);
	}
	return doc;
oom:
	json_decref(doc);
	json_decref(net);
	nl_errf(err, NL_ENOMEM, "out of memory");
	return NULL;
}

void session_src_free(struct session_src *r)
{
	if (!r)
		return;
	app_free(r->app);
	net_backend_free(r->net);
	app_jobs_source_free(r->js);
	app_archive_source_free(r->asrc);
	trace_archive_close(r->arch);
	if (r->have_hist) {
		stats_hist_release(&r->lat[0]);
		stats_hist_release(&r->lat[1]);
	}
	free(r->rank_ep);
	free(r->trace_path);
	free(r);
}
