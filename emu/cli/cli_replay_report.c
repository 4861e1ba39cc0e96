/* netloom replay's results as it writes them: the report of one network
 * (the trace, the prediction against the recorded runtime, the rank
 * table, messages, latencies by size class, collectives, busiest links,
 * what the network simulated and its cables), the per-rank CSV, and for
 * several --topology networks the table comparing them (text or CSV) and
 * the one JSON document of their results. The command line, the replays
 * and the choice of what goes where are cli_replay.c's (cli_replay.h).
 */
#include "cli/cli_replay.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "cli/cli.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/text.h"
#include "layout/layout.h"
#include "session/session.h"
#include "topo/topo.h"
#include "traces/trace.h"

static void cli_fmt_bytes(char *buf, size_t cap, uint64_t b)
{
	if (b == UINT64_MAX)
		snprintf(buf, cap, "inf");
	else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		snprintf(buf, cap, "%" PRIu64 " MiB", b >> 20);
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, cap, "%" PRIu64 " KiB", b >> 10);
	else
		snprintf(buf, cap, "%" PRIu64 " B", b);
}

static void cli_fmt_time(char *buf, size_t cap, double s)
{
	if (s == 0)
		snprintf(buf, cap, "0");
	else if (s < 1e-6)
		snprintf(buf, cap, "%.1f ns", s * 1e9);
	else if (s < 1e-3)
		snprintf(buf, cap, "%.2f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, cap, "%.3f ms", s * 1e3);
	else
		snprintf(buf, cap, "%.4f s", s);
}

/* The recorded runtime and whether a prediction can be held against it. */
static void cli_replay_recorded_line(FILE *f, const struct trace_manifest *m, const struct cli_replay_info *info)
{
	if (m->recorded_runtime_s <= 0)
		fprintf(f, "  recorded runtime   unknown\n");
	else if (info->comparable == 0)
		fprintf(f, "  recorded runtime   %.9f s: NOT COMPARABLE with a prediction, no ratio given\n"
			   "                     (%s)\n",
			m->recorded_runtime_s, info->comparable_why);
	else
		fprintf(f, "  recorded runtime   %.9f s (%s: %s)\n", m->recorded_runtime_s,
			info->comparable > 0 ? "comparable" : "comparability unknown", info->comparable_why);
}

/* The recorded runtime and, only when it means something, the ratio. */
static void cli_replay_recorded(FILE *f, const struct trace_manifest *m, const struct cli_replay_info *info,
				double pred)
{
	cli_replay_recorded_line(f, m, info);
	if (m->recorded_runtime_s > 0 && info->comparable != 0)
		fprintf(f, "  ratio              %.4f (predicted / recorded%s)\n", pred / m->recorded_runtime_s,
			info->comparable < 0 ? "; comparability unknown" : "");
	fprintf(f, "  compute time       %s\n", info->compute_why);
}

/* Waits/tests on ids with no live request: on one the replay completed
 * sooner than the recorded run (a program polling with MPI_Test, then
 * testing or waiting again) a plain line, since nothing is wrong; on one
 * the trace never created a warning naming the first, as that trace
 * lacks calls (docs/replay.md "Requests"). The counts are of request ids
 * named, not of calls (a waitall over 3 ids counts 3; start, cancel and
 * request_free name ids too), so the lines say that. */
static const char *const cli_replay_named_by[2] = {
	"named by waits/tests (counted once per id named; start, cancel, request_free too)",
	"named by a wait/test (counted once per id named; start, cancel, request_free too)",
};

static void cli_replay_unknown_requests(FILE *f, const struct app_results *res)
{
	uint64_t n = res->reqs_completed_before;
	if (n)
		fprintf(f,
			"  %" PRIu64 " request%s %s had already been completed by the replay (sooner than in the "
			"recorded run, as when a program polls with MPI_Test)\n",
			n, n == 1 ? "" : "s", cli_replay_named_by[n == 1]);
	n = res->reqs_never_created;
	if (n) {
		const char *k = trace_op_name(res->never_created_kind);
		fprintf(f,
			"  warning: %" PRIu64 " request%s %s %s never created by the trace (ignored: the trace "
			"lacks the call%s that made %s); first: rank %" PRIu32 ", op %" PRIu64 " (%s of request %" PRIu32
			")\n",
			n, n == 1 ? "" : "s", cli_replay_named_by[n == 1], n == 1 ? "was" : "were", n == 1 ? "" : "s",
			n == 1 ? "it" : "them", res->never_created_rank, res->never_created_op, k ? k : "?",
			res->never_created_id);
	}
}

/* The banner's "(APP, N ranks)": the manifest's application when it names
 * one (nothing, not "?", when it does not), the rank count with its
 * number. */
static void cli_replay_trace_what(FILE *f, const struct trace_manifest *m)
{
	const bool named = m->application && m->application[0];
	fprintf(f, "(%s%s%" PRIu32 " rank%s)", named ? m->application : "", named ? ", " : "", m->n_ranks,
		m->n_ranks == 1 ? "" : "s");
}

/* The rank table: each rank's compute, communication, wait and finish
 * times (the first 32 past 64 ranks) and their means. */
static void cli_replay_rank_table(FILE *f, const struct app_results *res)
{
	fprintf(f, "\n  %6s %14s %14s %14s %14s %10s\n", "rank", "compute_s", "comm_s", "wait_s", "finish_s",
		"messages");
	uint32_t shown = res->n_ranks <= 64 ? res->n_ranks : 32;
	double sum[4] = {0};
	for (uint32_t r = 0; r < res->n_ranks; r++) {
		const struct app_rank_stats *st = &res->ranks[r];
		double v[4] = {st->compute_ps * 1e-12, st->comm_ps * 1e-12, st->wait_ps * 1e-12,
			       st->finish_ps * 1e-12};
		for (int k = 0; k < 4; k++)
			sum[k] += v[k];
		if (r < shown)
			fprintf(f, "  %6" PRIu32 " %14.9f %14.9f %14.9f %14.9f %10" PRIu64 "\n", r, v[0], v[1], v[2],
				v[3], st->msgs_sent);
	}
	if (shown < res->n_ranks)
		fprintf(f, "  ... %" PRIu32 " more rank%s (all in --json / --csv)\n", res->n_ranks - shown,
			res->n_ranks - shown == 1 ? "" : "s");
	fprintf(f, "  %6s %14.9f %14.9f %14.9f %14.9f\n", "mean", sum[0] / res->n_ranks, sum[1] / res->n_ranks,
		sum[2] / res->n_ranks, sum[3] / res->n_ranks);
}

/* Messages: counts by kind and protocol, and what did not match as
 * recorded (unreceived sends, unknown requests, diverged cancels). */
static void cli_replay_messages(FILE *f, const struct app_results *res)
{
	char human[32];
	cli_bytes_human(human, sizeof human, res->bytes);
	fprintf(f, "\n  messages: %" PRIu64 " (%" PRIu64 " byte%s%s): %" PRIu64 " point-to-point, %" PRIu64
		   " inside collectives; %" PRIu64 " eager, %" PRIu64 " rendezvous\n",
		res->msgs, res->bytes, res->bytes == 1 ? "" : "s", human, res->p2p_msgs, res->coll_msgs, res->eager_msgs,
		res->rndv_msgs);
	if (res->unmatched_msgs)
		fprintf(f, "  warning: %" PRIu64 " message%s sent but never received\n", res->unmatched_msgs,
			res->unmatched_msgs == 1 ? " was" : "s were");
	cli_replay_unknown_requests(f, res);
	if (res->cancels)
		fprintf(f, "  cancels: %" PRIu64 " (%" PRIu64 " cancelled their request in replay)\n", res->cancels,
			res->cancelled);
	if (res->cancel_diverged) {
		const char *k = trace_op_name(res->cancel_div_req_kind);
		fprintf(f,
			"  warning: %" PRIu64 " cancel%s ended otherwise than in the recorded run; first: rank %" PRIu32
			", op %" PRIu64 " (cancel of a request from %s), recorded %s, replayed %s\n",
			res->cancel_diverged, res->cancel_diverged == 1 ? "" : "s", res->cancel_div_rank, res->cancel_div_op,
			k ? k : "call the trace does not hold", res->cancel_div_recorded ? "cancelled" : "not cancelled",
			res->cancel_div_recorded ? "not cancelled" : "cancelled");
	}
}

/* Message latency, all and by size class. */
static void cli_replay_latencies(FILE *f, const struct app *app, const struct app_results *res)
{
	fprintf(f, "\n  %-22s %10s %12s %12s %12s %12s\n", "latency by size", "messages", "mean", "p50", "p99",
		"max");
	for (int c = -1; c < APP_SIZE_CLASSES; c++) {
		struct app_latency l;
		app_latency(app, c, &l);
		if (c >= 0 && l.n == 0)
			continue;
		char lo[24], hi[24], cls[48], t[4][24];
		if (c < 0) {
			snprintf(cls, sizeof cls, "all");
		} else {
			cli_fmt_bytes(lo, sizeof lo, l.lower_bytes);
			cli_fmt_bytes(hi, sizeof hi, l.upper_bytes);
			snprintf(cls, sizeof cls, "%s .. <%s", lo, hi);
		}
		cli_fmt_time(t[0], sizeof t[0], l.mean_ps * 1e-12);
		cli_fmt_time(t[1], sizeof t[1], (double)l.p50_ps * 1e-12);
		cli_fmt_time(t[2], sizeof t[2], (double)l.p99_ps * 1e-12);
		cli_fmt_time(t[3], sizeof t[3], (double)l.max_ps * 1e-12);
		fprintf(f, "  %-22s %10" PRIu64 " %12s %12s %12s %12s\n", cls, l.n, t[0], t[1], t[2], t[3]);
	}
	if (res->self_msgs)
		fprintf(f, "  (and %" PRIu64 " message%s ranks sent to themselves: delivered at once, no latency)\n",
			res->self_msgs, res->self_msgs == 1 ? "" : "s");
}

/* Each collective's calls and the algorithms that ran them. */
static void cli_replay_collectives(FILE *f, const struct app_results *res)
{
	bool any = false;
	for (unsigned c = 0; c < APP_COLL__COUNT; c++) {
		if (!res->coll_calls[c])
			continue;
		if (!any)
			fprintf(f, "\n  collectives:\n");
		any = true;
		fprintf(f, "    %-22s %10" PRIu64 " call%s:", app_coll_name(c), res->coll_calls[c],
			res->coll_calls[c] == 1 ? "" : "s");
		for (unsigned g = 0; g < APP_ALG__COUNT; g++)
			if (res->coll_alg_used[c][g])
				fprintf(f, " %s %" PRIu32, app_alg_name(g), res->coll_alg_used[c][g]);
		fputc('\n', f);
	}
}

/* The busiest links of the network's report, or why there are none. */
static void cli_replay_links(FILE *f, json_t *net_report, const char *backend)
{
	json_t *links = json_object_get(net_report, "busiest_links");
	if (json_array_size(links)) {
		fprintf(f, "\n  busiest links:\n");
		size_t i;
		json_t *l;
		json_array_foreach(links, i, l)
		{
			fprintf(f, "    %-12s %-12s -> %-12s busy %.9f s (%5.1f%%), ",
				json_string_value(json_object_get(l, "kind")),
				json_string_value(json_object_get(l, "from")), json_string_value(json_object_get(l, "to")),
				json_real_value(json_object_get(l, "busy_s")),
				100.0 * json_real_value(json_object_get(l, "utilisation")));
			/* The flit model counts flits per channel, the analytic one
			 * messages and bytes. */
			const int64_t flits = (int64_t)json_integer_value(json_object_get(l, "flits"));
			const int64_t msgs = (int64_t)json_integer_value(json_object_get(l, "messages"));
			const int64_t bytes = (int64_t)json_integer_value(json_object_get(l, "bytes"));
			if (json_object_get(l, "flits"))
				fprintf(f, "%" PRId64 " flit%s\n", flits, flits == 1 ? "" : "s");
			else
				fprintf(f, "%" PRId64 " message%s, %" PRId64 " byte%s\n", msgs, msgs == 1 ? "" : "s", bytes,
					bytes == 1 ? "" : "s");
		}
	} else if (!json_object_get(net_report, "busiest_links")) {
		fprintf(f, "\n  busiest links: not modelled (backend %s, %s)\n", backend,
			json_is_string(json_object_get(net_report, "link_model"))
				? "link_model = none"
				: "no link report");
	}
}

/* The network's own lines: what the flit model simulated, and the
 * cables behind cable_latency. */
static void cli_replay_network(FILE *f, json_t *net_report)
{
	/* What the flit model simulated: its flit-hops are what a replay costs
	 * (docs/replay.md, "Cost of a flit replay"), so a user can tell a
	 * long replay's cause before trying a bigger one. No wall-clock time
	 * here: the report stays the same bytes run after run (--json has
	 * wall_seconds). */
	json_t *cyc = json_object_get(net_report, "cycles"), *fh = json_object_get(net_report, "flit_hops");
	if (json_is_integer(cyc) && json_is_integer(fh))
		fprintf(f, "\n  simulated: %" PRId64 " network cycles, %" PRId64 " flit-hops (router-to-router channel traversals)\n",
			(int64_t)json_integer_value(cyc), (int64_t)json_integer_value(fh));

	/* cable_latency (docs/layout.md): the layout behind the latencies. */
	json_t *cab = json_object_get(net_report, "cables"), *ll = json_object_get(net_report, "link_latency");
	if (cab && ll) {
		const int64_t n_cab = (int64_t)json_integer_value(json_object_get(cab, "cabinets"));
		const bool anneal = !strcmp(json_string_value(json_object_get(cab, "placement")), "anneal");
		const char *order = layout_order_phrase(anneal, json_is_true(json_object_get(cab, "annealed")),
							(uint64_t)(n_cab > 0 ? n_cab : 0));
		const int64_t n_links = (int64_t)json_integer_value(json_object_get(cab, "links"));
		fprintf(f, "\n  cables: %" PRId64 " link%s laid out by %s (%s preset, %" PRId64 " cabinet%s, %s): mean %.2f m, "
			   "longest %.2f m\n",
			n_links, n_links == 1 ? "" : "s",
			json_string_value(json_object_get(cab, "rule")), json_string_value(json_object_get(cab, "preset")),
			n_cab, n_cab == 1 ? "" : "s",
			order,
			json_real_value(json_object_get(cab, "mean_length_m")),
			json_real_value(json_object_get(cab, "max_length_m")));
		fprintf(f, "          at %g ns/m: channel latency mean %.2f ns, max %.2f ns; %.2f ns per message\n",
			json_real_value(json_object_get(cab, "propagation_ns_per_m")),
			json_real_value(json_object_get(ll, "mean_ns")), json_real_value(json_object_get(ll, "max_ns")),
			json_real_value(json_object_get(ll, "per_message_ns")));
	}
}

void cli_replay_report(FILE *f, const struct app *app, const struct trace_manifest *m,
			      const char *trace_path, const char *backend, json_t *net_report,
			      const struct cli_replay_info *info)
{
	const struct app_results *res = app_results(app);
	double pred = (double)res->runtime_ps * 1e-12;
	const char *topo = json_string_value(json_object_get(net_report, "topology"));
	const char *routing = json_string_value(json_object_get(net_report, "routing"));
	fprintf(f, "netloom replay: %s ", trace_path);
	cli_replay_trace_what(f, m);
	fprintf(f, " on backend %s%s%s%s%s\n", backend, topo ? ", topology " : "", topo ? topo : "",
		routing ? ", routing " : "", routing ? routing : "");
	fprintf(f, "  predicted runtime  %.9f s\n", pred);
	if (info->placement && strcmp(info->placement, "linear")) {
		fprintf(f, "  placement          ");
		cli_put_placement(f, info->placement, info->placement_seed, info->ranks_per_node, info->placement_map);
		fputc('\n', f);
	}
	cli_replay_recorded(f, m, info, pred);
	cli_replay_rank_table(f, res);
	cli_replay_messages(f, res);
	cli_replay_latencies(f, app, res);
	cli_replay_collectives(f, res);
	cli_replay_links(f, net_report, backend);
	cli_replay_network(f, net_report);
}

/* Seconds in the CSVs: ps as seconds with 12 decimals, exact (the
 * model's unit) in every column and at any size, where %.12g gave 9
 * decimals to one value and 11 to the next, and rounded runs of 1 s and
 * longer to 10 ps or coarser. */
#define CLI_PS_PER_S UINT64_C(1000000000000)
static void cli_csv_seconds(FILE *f, uint64_t ps)
{
	fprintf(f, "%" PRIu64 ".%012" PRIu64, ps / CLI_PS_PER_S, ps % CLI_PS_PER_S);
}

void cli_replay_csv(FILE *f, const struct app_results *res)
{
	fprintf(f, "rank,compute_s,comm_s,wait_s,finish_s,ops,mpi_calls,messages_sent,bytes_sent\n");
	for (uint32_t r = 0; r < res->n_ranks; r++) {
		const struct app_rank_stats *st = &res->ranks[r];
		const uint64_t ps[] = {st->compute_ps, st->comm_ps, st->wait_ps, st->finish_ps};
		fprintf(f, "%" PRIu32, r);
		for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
			fputc(',', f);
			cli_csv_seconds(f, ps[k]);
		}
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", st->ops, st->mpi_calls, st->msgs_sent,
			st->bytes_sent);
	}
}

/* The busiest link of a run's network report, or NULL. */
static json_t *cli_replay_busiest(const struct cli_replay_run *run)
{
	return json_array_get(json_object_get(run->v->net_report, "busiest_links"), 0);
}

/* One row per network: what a procurement comparison reads first. */
void cli_replay_table(FILE *f, const struct cli_replay_run *runs, size_t n, const struct trace_manifest *m,
			     const char *trace_path, const char *backend, const struct cli_replay_info *info)
{
	fprintf(f, "netloom replay: %s ", trace_path);
	cli_replay_trace_what(f, m);
	fprintf(f, " on %zu networks, backend %s\n", n, backend);
	if (!info->placement || !strcmp(info->placement, "linear"))
		fprintf(f, "  placement          rank r on endpoint r (linear) on every network\n");
	else {
		fprintf(f, "  placement          ");
		cli_put_placement(f, info->placement, info->placement_seed, info->ranks_per_node, info->placement_map);
		fprintf(f, " on every network\n");
	}
	cli_replay_recorded_line(f, m, info);
	fprintf(f, "  compute time       %s\n\n", info->compute_why);
	/* Columns as wide as the longest spec. Routing as configured or
	 * picked: the canonical spec, every parameter given, is in the
	 * CSV and the JSON.
	 * Widths in terminal columns (text_width): a graph file named
	 * 'réseau.txt' shifted the next columns when padded by bytes. */
	size_t wn = 28, wr = 8;
	for (size_t i = 0; i < n; i++) {
		size_t net = text_width(runs[i].v->topo ? runs[i].v->topo->spec : runs[i].topology);
		size_t rt = text_width(runs[i].v->routing_given);
		wn = net > wn ? net : wn;
		wr = rt > wr ? rt : wr;
	}
	fprintf(f, "  ");
	text_put_padded(f, "network", wn);
	fprintf(f, " ");
	text_put_padded(f, "routing", wr);
	fprintf(f, " %8s %9s %14s %10s  %-26s %6s\n", "routers", "endpoints", "predicted_s", "comm_share",
		"busiest link", "load");
	for (size_t i = 0; i < n; i++) {
		const struct cli_replay_run *r = &runs[i];
		const struct app_results *res = app_results(r->v->app);
		json_t *b = cli_replay_busiest(r);
		char link[64] = "-", load[16] = "-", pred[32];
		if (b) {
			snprintf(link, sizeof link, "%s -> %s", json_string_value(json_object_get(b, "from")),
				 json_string_value(json_object_get(b, "to")));
			snprintf(load, sizeof load, "%.1f%%", 100.0 * json_real_value(json_object_get(b, "utilisation")));
		}
		if (r->v->deadlock)
			snprintf(pred, sizeof pred, "deadlock");
		else
			snprintf(pred, sizeof pred, "%.9f", (double)res->runtime_ps * 1e-12);
		fprintf(f, "  ");
		text_put_padded(f, r->v->topo ? r->v->topo->spec : r->topology, wn);
		fprintf(f, " ");
		text_put_padded(f, r->v->routing_given[0] ? r->v->routing_given : "-", wr);
		fprintf(f, " %8" PRIu32 " %9" PRIu32 " %14s %9.1f%%  %-26s %6s\n", r->v->topo ? r->v->topo->n_routers : 0,
			r->v->topo ? r->v->topo->n_endpoints : 0, pred, 100.0 * session_comm_share(res), link, load);
	}
	fprintf(f, "\n  comm_share: the ranks' time in MPI calls (communication and waiting) over their run time;\n"
		   "  load: the share of the run the busiest link was busy (%s)\n",
		   strcmp(backend, "flit") ? "any channel: injection, router to router, ejection"
					   : "router to router: its flits per cycle");
}

/* s as one quoted CSV field: a '"' in it doubled (RFC 4180 §2.7), so a
 * spec naming a file 'q"x.txt' stays one field, not the end of one. */
static void cli_csv_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void cli_replay_table_csv(FILE *f, const struct cli_replay_run *runs, size_t n,
				 const struct trace_manifest *m, const struct cli_replay_info *info)
{
	fprintf(f, "network,routing,routers,endpoints,placement,predicted_s,comm_share,busiest_link,busiest_load,"
		   "compute_time,recorded_s,recorded_comparable\n");
	for (size_t i = 0; i < n; i++) {
		const struct cli_replay_run *r = &runs[i];
		const struct app_results *res = app_results(r->v->app);
		json_t *b = cli_replay_busiest(r);
		cli_csv_quoted(f, r->v->topo ? r->v->topo->spec : r->topology);
		fputc(',', f);
		cli_csv_quoted(f, r->v->routing);
		fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%s,", r->v->topo ? r->v->topo->n_routers : 0,
			r->v->topo ? r->v->topo->n_endpoints : 0, r->v->placement);
		if (r->v->deadlock)
			fprintf(f, "deadlock");
		else
			cli_csv_seconds(f, res->runtime_ps);
		fprintf(f, ",%.6f,", session_comm_share(res));
		if (b)
			fprintf(f, "%s -> %s,%.6f,", json_string_value(json_object_get(b, "from")),
				json_string_value(json_object_get(b, "to")),
				json_real_value(json_object_get(b, "utilisation")));
		else
			fprintf(f, ",,");
		/* The recorded runtime is the archive's double, not ps: the
		 * same 12 decimals. */
		fprintf(f, "%s,%.12f,%s\n", strncmp(info->compute_why, "cpu", 3) ? "wall" : "cpu",
			m->recorded_runtime_s, info->comparable == 1 ? "yes" : info->comparable == 0 ? "no" : "unknown");
	}
}

/* The document for several networks: the last run's head and
 * configuration (each run names its own network, and the routing chosen
 * for it), then one "results" object per network. */
json_t *cli_replay_doc_multi(const struct cli_replay_run *runs, size_t n, bool pick_routing, double t0)
{
	json_t *doc = json_deep_copy(runs[n - 1].v->doc);
	if (!doc)
		return NULL;
	json_object_del(doc, "results");
	json_t *cj = json_object_get(doc, "config");
	json_object_del(cj, "topology");
	if (pick_routing)
		json_object_del(cj, "routing_function");
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *results = json_deep_copy(json_object_get(runs[i].v->doc, "results"));
		json_object_del(results, "wall_seconds");
		json_object_set_new(results, "topology", out_json_utf8(runs[i].v->topo->spec));
		/* null on a backend that runs no routing function (analytic). */
		json_object_set_new(results, "routing",
				    runs[i].v->routing[0] ? out_json_utf8(runs[i].v->routing) : json_null());
		json_array_append_new(arr, results);
	}
	json_object_set_new(doc, "runs", arr);
	json_object_set_new(doc, "wall_seconds", json_real(nl_wall_seconds() - t0));
	return doc;
}
