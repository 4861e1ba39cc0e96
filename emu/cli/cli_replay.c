/* netloom replay TRACE [-c SYSTEM.ini] [-s key=value ...] [--json OUT] [--csv]
 *
 * Replays an MPI trace archive on the configured network model and prints
 * the predicted runtime against the recorded one, the per-rank breakdown,
 * message latencies by size class, collective algorithms used and the
 * busiest links. Exit status: 0 done, 1 the replay deadlocked (report on
 * stderr) or failed, or a result could not be written; 2 bad usage or bad
 * input; 3 the report and --json written, the --otf2 / --svg timeline not.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/text.h"
#include "layout/layout.h"
#include "net/net.h"
#include "netloom/netloom.h"
#include "session/session.h"
#include "topo/topo.h"
#include "traces/trace.h"

static void cli_replay_usage(FILE *f)
{
	fprintf(f,
		"usage: netloom replay TRACE [-c SYSTEM.ini]... [-s key=value]... [--topology SPEC]...\n"
		"                      [--json OUT] [--csv] [--otf2 DIR] [--svg FILE]\n"
		"\n"
		"Replay an MPI trace (netloom .nlt, or DUMPI, SimGrid or OTF2, converted first) on a\n"
		"network model and predict its runtime. With several\n"
		"--topology options the trace is replayed on each network and one table compares\n"
		"them (predicted runtime, communication share, busiest link), then the first\n"
		"network's full report follows.\n"
		"\n"
		"  -c, --config FILE   read settings from an INI file (repeatable; later wins)\n"
		"  -s, --set KEY=VALUE set one key (repeatable; after the files)\n"
		"  -t, --topology SPEC replay on this network (repeatable, up to 16; 'netloom topo list'\n"
		"                      shows the families); with routing_function unset, each gets\n"
		"                      the first routing function that runs on it (dor on tori and\n"
		"                      meshes, min elsewhere). Ranks sit on endpoints 0..n-1 unless\n"
		"                      key placement names a policy.\n"
		"      --json FILE     write results as JSON ('-' = stdout, instead of the report)\n"
		"      --csv           print the per-rank breakdown (several networks: the comparison)\n"
		"                      as CSV instead of the report\n"
		"      --otf2 DIR      also write the predicted run (the first network's) as an OTF2\n"
		"                      archive in DIR (new)\n"
		"      --svg FILE      also draw the predicted timeline (the first network's; ranks x\n"
		"                      time; at most 64 ranks; '-' = stdout, instead of the report)\n"
		"  -h, --help          this text and the replay keys\n"
		"\n"
		"Under 'mpirun -np N' (or srun) a replay on the flit backend is spread over the N\n"
		"ranks, with the same results; rank 0 prints and writes (docs/scaling.md).\n"
		"\n"
		"Exit status: 0 done;\n"
		"1 the replay failed: a network deadlock (reported, --json written), a timeout, out of\n"
		"  memory, or --json could not be written after it (a full disk; the report on stdout);\n"
		"2 a bad command line, configuration or trace, or an output that cannot be written\n"
		"  (checked first);\n"
		"3 the report and --json (if asked for) were written, but the --svg or --otf2\n"
		"  timeline could not be (a full disk; one line on stderr says which).\n"
		"\n"
		"Network backends:\n");
	size_t n;
	const struct net_backend_ops *const *all = net_backend_list(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", all[i]->name, all[i]->help);
	fprintf(f, "\nKeys (see docs/replay.md; those of synthetic runs, [traffic] and the experiment's\n"
		   "phases, are not read by a replay; each backend reads only its own table):\n");
	size_t nt;
	struct session_tables st;
	const struct config_table *const *tables = session_config_tables(&st, &nt);
	struct config c;
	config_init(&c, tables, nt);
	static const char *const synthetic[] = {"traffic", NULL};
	const struct config_unread u = {.sections = synthetic, .keys = net_sim_experiment_keys};
	config_print_keys_read(&c, f, &u);
	config_release(&c);
}

static void cli_replay_say_usage(void *ctx)
{
	(void)ctx;
	cli_replay_usage(stdout);
}

struct cli_replay_ctx {
	FILE *f;
};

static void cli_replay_line(void *ctx, const char *line)
{
	fprintf(((struct cli_replay_ctx *)ctx)->f, "  %s\n", line);
}

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

/* What the report says about the trace whatever the network: which
 * recorded time compute replays, and whether the recorded runtime can be
 * compared with a prediction (issue 9). */
struct cli_replay_info {
	const char *compute_why;
	int comparable; /* app_recorded_comparable: 1, 0, -1 unknown */
	const char *comparable_why;
	const char *placement; /* "linear" or the emu/place policy */
	int64_t placement_seed, ranks_per_node;
	const char *placement_map; /* the map policy's file */
};

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

static void cli_replay_report(FILE *f, const struct app *app, const struct trace_manifest *m,
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

static void cli_replay_csv(FILE *f, const struct app_results *res)
{
	fprintf(f, "rank,compute_s,comm_s,wait_s,finish_s,ops,mpi_calls,messages_sent,bytes_sent\n");
	for (uint32_t r = 0; r < res->n_ranks; r++) {
		const struct app_rank_stats *st = &res->ranks[r];
		fprintf(f, "%" PRIu32 ",%.12g,%.12g,%.12g,%.12g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r,
			st->compute_ps * 1e-12, st->comm_ps * 1e-12, st->wait_ps * 1e-12, st->finish_ps * 1e-12,
			st->ops, st->mpi_calls, st->msgs_sent, st->bytes_sent);
	}
}

#define CLI_REPLAY_MAX_TOPOS 16

/* Exit status: the report and --json written, the --otf2 archive or the
 * --svg drawing not (interfere's 3 for its --plot: docs/placement.md). */
enum { CLI_REPLAY_NO_TIMELINE = 3 };

struct cli_replay_opts {
	const char *trace;
	const char *json;
	const char *otf2; /* --otf2 DIR */
	const char *svg;  /* --svg FILE */
	bool csv;
	const char *topos[CLI_REPLAY_MAX_TOPOS]; /* --topology, in order */
	size_t n_topos;
	const char **files;                     /* -c, in order */
	size_t n_files;
	bool *files_empty;                      /* files[i] set no key (cli_warn_config_empty) */
	const char **sets;                      /* -s, in order */
	size_t n_sets;
};

/* A session with the command line's configuration: files, then -s. */
static int cli_replay_session(const struct cli_replay_opts *o, nl_sim **out, struct nl_err *err)
{
	nl_sim *s;
	NL_CHECK(nl_sim_new(&s, err));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < o->n_files; i++) {
		rc = nl_sim_load_file(s, o->files[i], err);
		cli_config_hint(o->files[i], rc, err);
	}
	for (size_t i = 0; rc == 0 && i < o->n_sets; i++)
		rc = cli_session_set(s, o->sets[i], err);
	if (rc < 0) {
		nl_sim_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* An output option's value, once: a second one is refused, as run's
 * (cli_output_once), where the last one won silently. */
static int replay_output_once(const char *opt, const char **slot, const char *value, struct nl_err *err)
{
	if (*slot)
		return nl_errf(err, NL_EINVAL, "option '%s' given twice", opt);
	/* A value that is an option is refused as it is read: in
	 * 'replay T --json --topology X' the value was left out, and the X
	 * left over was reported ("unexpected argument 'X' after TRACE"). */
	if (!strcmp(opt, "--otf2"))
		NL_CHECK(cli_check_otf2_dir(value, err));
	else
		NL_CHECK(cli_value_not_option(opt, value, "file", "a file to write", err));
	*slot = value;
	return 0;
}

/* The options into *o, the configuration loaded into a first session
 * *sim as they come, so a bad file is reported first; then the -s keys
 * (files first, then -s, whatever their order on the line) and TRACE.
 * --help stops there, *help set. */
static int cli_replay_parse(int argc, char **argv, nl_sim **sim, struct cli_replay_opts *o, struct nl_err *err,
			    bool *help)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
		{"json", required_argument, NULL, 'J'},   {"csv", no_argument, NULL, 'C'},
		{"topology", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
		{"otf2", required_argument, NULL, 'O'},     {"svg", required_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	o->sets = calloc((size_t)argc, sizeof *o->sets);
	o->files = calloc((size_t)argc, sizeof *o->files);
	o->files_empty = calloc((size_t)argc, sizeof *o->files_empty);
	int ch, rc = 0;
	if (!o->sets || !o->files || !o->files_empty)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	NL_CHECK(nl_sim_new(sim, err));
	optind = 1;
	opterr = 0;
	bool help_scanned = false;
	while (rc == 0 && (ch = cli_getopt_long(argc, argv, ":c:s:t:h", longopts, &help_scanned)) != -1) {
		switch (ch) {
		case 'c':
			o->files[o->n_files++] = optarg;
			rc = nl_sim_load_file(*sim, optarg, err);
			cli_config_hint(optarg, rc, err);
			/* Said by rank 0 once the ranks are known. */
			if (rc == 0)
				o->files_empty[o->n_files - 1] = !config_keys_from(session_config(*sim), optarg);
			break;
		case 's':
			o->sets[o->n_sets++] = optarg;
			break;
		case 't':
			if (o->n_topos == CLI_REPLAY_MAX_TOPOS)
				rc = nl_errf(err, NL_EINVAL, "--topology '%s': at most %d networks per run",
					     optarg, CLI_REPLAY_MAX_TOPOS);
			else
				o->topos[o->n_topos++] = optarg;
			break;
		case 'J':
			rc = replay_output_once("--json", &o->json, optarg, err);
			break;
		case 'C':
			o->csv = true;
			break;
		case 'O':
			rc = replay_output_once("--otf2", &o->otf2, optarg, err);
			break;
		case 'V':
			rc = replay_output_once("--svg", &o->svg, optarg, err);
			break;
		case 'h':
			/* The usage, whatever else the line holds (a missing -c
			 * file, '--bogus'): cli_getopt_long returns it first. */
			*help = true;
			return 0;
		default: {
			char msg[512];
			cli_getopt_message(msg, sizeof msg, "replay", argv, longopts, ch);
			rc = nl_errf(err, NL_EINVAL, "%s", msg);
		}
		}
	}
	for (size_t i = 0; rc == 0 && i < o->n_sets; i++)
		rc = cli_session_set(*sim, o->sets[i], err);
	if (rc < 0 || *help)
		return rc;
	if (optind >= argc)
		return nl_errf(err, NL_EINVAL, "missing TRACE (see 'netloom replay --help')");
	if (optind + 1 < argc)
		return nl_errf(err, NL_EINVAL, "unexpected argument '%s' after TRACE", argv[optind + 1]);
	o->trace = argv[optind];
	return 0;
}

/* Options that cannot go together: --csv with a document on stdout, a
 * placement_map beside another placement, --topology with the key. */
static int cli_replay_check_opts(const struct cli_replay_opts *o, nl_sim *sim, struct nl_err *err)
{
	if (o->csv && o->json && !strcmp(o->json, "-"))
		return nl_errf(err, NL_EINVAL, "--csv and --json -: both on standard output; expected a file for --json");
	if (o->csv && o->svg && !strcmp(o->svg, "-"))
		return nl_errf(err, NL_EINVAL, "--csv and --svg -: both on standard output; expected a file for --svg");
	/* Replay's one job: a map beside another placement is never read. */
	NL_CHECK(cli_check_placement_map(session_config(sim), err));
	if (o->n_topos && config_get(session_config(sim), "topology"))
		return nl_errf(err, NL_EINVAL, "--topology and the key 'topology' both name the network; "
			       "give one of them");
	return 0;
}

/* An output that is an input (the trace, a -c file) would replace it,
 * and two outputs naming one file would replace each other. */
static int cli_replay_check_same_files(const struct cli_replay_opts *o, nl_sim *sim, struct nl_err *err)
{
	struct cli_file out[] = {{"--json", o->json}, {"--svg", o->svg}, {"--otf2", o->otf2}};
	struct cli_file *in = calloc(o->n_files + 1, sizeof *in);
	if (!in)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	in[0] = (struct cli_file){"TRACE", o->trace};
	for (size_t i = 0; i < o->n_files; i++)
		in[i + 1] = (struct cli_file){"-c", o->files[i]};
	int rc = cli_check_files(in, o->n_files + 1, out, sizeof out / sizeof out[0], err);
	free(in);
	/* So would one naming a file a foreign TRACE reads besides itself
	 * (a DUMPI rank file), which the conversion reads first. */
	if (rc == 0)
		rc = cli_check_trace_files("TRACE", o->trace, out, sizeof out / sizeof out[0], err);
	/* So would one naming a file the configuration's keys name (-s
	 * topology=graph:file=g.txt, placement_map, calibration) or a
	 * --topology SPEC reads. */
	if (rc == 0)
		rc = cli_check_config_files(session_config(sim), out, sizeof out / sizeof out[0], err);
	for (size_t i = 0; rc == 0 && i < o->n_topos; i++)
		rc = cli_check_spec_files(o->topos[i], out, sizeof out / sizeof out[0], err);
	if (rc < 0)
		return nl_err_prefix(err, "replay");
	return 0;
}

/* Outputs written at the end: a path that cannot be written fails now,
 * not after a replay of minutes. Under a launcher of several ranks only
 * rank 0 writes them (cli_replay_mpi_open): another node need not have
 * their folder, as for run and sweep. */
static int cli_replay_check_writable(const struct cli_replay_opts *o, struct nl_err *err)
{
	uint32_t rank, size;
	if (net_mpi_launched(&rank, &size) && size > 1 && rank != 0)
		return 0;
	if (o->json)
		NL_CHECK(cli_check_output("--json", o->json, err));
	if (o->svg)
		NL_CHECK(cli_check_output("--svg", o->svg, err));
	if (o->otf2)
		NL_CHECK(cli_check_otf2_dir(o->otf2, err));
	return 0;
}

/* Parse the line into *o (cli_replay_parse, which loads the
 * configuration into a first session *sim), then check it before any
 * work: options that cannot go together, outputs that would replace an
 * input or each other, outputs that cannot be written. */
static int cli_replay_args(int argc, char **argv, nl_sim **sim, struct cli_replay_opts *o, struct nl_err *err,
			   bool *help)
{
	int rc = cli_replay_parse(argc, argv, sim, o, err, help);
	if (rc < 0 || *help)
		return rc;
	NL_CHECK(cli_replay_check_opts(o, *sim, err));
	NL_CHECK(cli_replay_check_same_files(o, *sim, err));
	return cli_replay_check_writable(o, err);
}

/* One replay of the trace on one network: a session each. */
struct cli_replay_run {
	const char *topology;   /* --topology SPEC, or NULL: the configured network */
	nl_sim *sim;
	const struct session_replay_view *v; /* after the replay */
};

/* How each run opens the trace and what watches it: a foreign trace
 * (DUMPI, SimGrid, OTF2) is converted for each run, its dropped calls
 * named on stderr once; the first run carries the --otf2 / --svg
 * timeline. */
struct cli_replay_hooks {
	const struct cli_replay_opts *o;
	struct cli_timeline *tl; /* the first run's timeline, or NULL */
	size_t n_opened;
};

static int cli_replay_open(void *ctx, const char *path, struct trace_archive **a, struct nl_err *err)
{
	struct cli_replay_hooks *h = ctx;
	return cli_open_trace(h->n_opened++ ? NULL : "replay", path, a, err);
}

static int cli_replay_on_app(void *ctx, struct app *app, const struct trace_manifest *m, struct nl_err *err)
{
	struct cli_replay_hooks *h = ctx;
	if (h->n_opened > 1 || !(h->o->otf2 || h->o->svg))
		return 0;
	return cli_timeline_start(&h->tl, app, m, h->o->otf2, h->o->svg, err);
}

/* The session options of a run on one network: the same when it is
 * prepared and when it runs (pg only then). */
static struct session_replay_opts cli_replay_ro(const struct cli_replay_run *run, bool pick_routing,
						struct cli_replay_hooks *hooks, struct progress *pg)
{
	return (struct session_replay_opts){.topology = run->topology,
					    .pick_routing = pick_routing,
					    .pg = pg,
					    .open_trace = cli_replay_open,
					    .on_app = cli_replay_on_app,
					    .ctx = hooks};
}

/* Replay on one network, prepared (session_replay_prepare). A deadlock
 * is a result (report on stderr); other failures fill *err. */
static int cli_replay_run_one(struct cli_replay_run *run, const char *trace, bool pick_routing,
			      struct cli_replay_hooks *hooks, struct nl_err *err)
{
	struct progress prog;
	progress_init(&prog, "replay");
	struct session_replay_opts ro = cli_replay_ro(run, pick_routing, hooks, prog.enabled ? &prog : NULL);
	int rc = session_replay(run->sim, trace, &ro, NULL, err);
	progress_done(&prog);
	if (rc < 0 && rc != NL_EDEADLOCK)
		return rc;
	run->v = session_replay_view(run->sim);
	if (run->v->deadlock) {
		struct cli_replay_ctx lc = {stderr};
		/* The topology spec is the user's (an anynet file's path): one
		 * line of clean text, as every other error (nl_err_one_line). */
		struct nl_err line = *err;
		if (run->topology)
			nl_err_prefix(&line, "%s", run->topology);
		nl_err_one_line(&line, NL_EDEADLOCK);
		cli_say("%s", line.msg);
		app_deadlock_report(run->v->app, cli_replay_line, &lc);
	}
	return 0;
}

/* The busiest link of a run's network report, or NULL. */
static json_t *cli_replay_busiest(const struct cli_replay_run *run)
{
	return json_array_get(json_object_get(run->v->net_report, "busiest_links"), 0);
}

/* One row per network: what a procurement comparison reads first. */
static void cli_replay_table(FILE *f, const struct cli_replay_run *runs, size_t n, const struct trace_manifest *m,
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

static void cli_replay_table_csv(FILE *f, const struct cli_replay_run *runs, size_t n,
				 const struct trace_manifest *m, const struct cli_replay_info *info)
{
	fprintf(f, "network,routing,routers,endpoints,placement,predicted_s,comm_share,busiest_link,busiest_load,"
		   "compute_time,recorded_s,recorded_comparable\n");
	for (size_t i = 0; i < n; i++) {
		const struct cli_replay_run *r = &runs[i];
		const struct app_results *res = app_results(r->v->app);
		json_t *b = cli_replay_busiest(r);
		char pred[32];
		if (r->v->deadlock)
			snprintf(pred, sizeof pred, "deadlock");
		else
			snprintf(pred, sizeof pred, "%.12g", (double)res->runtime_ps * 1e-12);
		fprintf(f, "\"%s\",\"%s\",%" PRIu32 ",%" PRIu32 ",%s,%s,%.6f,", r->v->topo ? r->v->topo->spec : r->topology,
			r->v->routing, r->v->topo ? r->v->topo->n_routers : 0, r->v->topo ? r->v->topo->n_endpoints : 0,
			r->v->placement, pred,
			session_comm_share(res));
		if (b)
			fprintf(f, "%s -> %s,%.6f,", json_string_value(json_object_get(b, "from")),
				json_string_value(json_object_get(b, "to")),
				json_real_value(json_object_get(b, "utilisation")));
		else
			fprintf(f, ",,");
		fprintf(f, "%s,%.12g,%s\n", strncmp(info->compute_why, "cpu", 3) ? "wall" : "cpu",
			m->recorded_runtime_s, info->comparable == 1 ? "yes" : info->comparable == 0 ? "no" : "unknown");
	}
}

/* The document for several networks: the last run's head and
 * configuration (each run names its own network, and the routing chosen
 * for it), then one "results" object per network. */
static json_t *cli_replay_doc_multi(const struct cli_replay_run *runs, size_t n, bool pick_routing, double t0)
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
		json_object_set_new(results, "routing", out_json_utf8(runs[i].v->routing));
		json_array_append_new(arr, results);
	}
	json_object_set_new(doc, "runs", arr);
	json_object_set_new(doc, "wall_seconds", json_real(nl_wall_seconds() - t0));
	return doc;
}

/* The first network's timeline (--otf2, --svg) could not be written, as
 * tl_err says: one line naming the option, said after the report and the
 * JSON, which a drawing that fails (/dev/full) must not take with it.
 * Returns the exit status: status when that is already a failure (a
 * deadlock, the JSON lost), else CLI_REPLAY_NO_TIMELINE. */
static int cli_replay_timeline_lost(const struct cli_replay_opts *o, const struct nl_err *tl_err, int status)
{
	/* The archive is finished first, into DIR that was new: when it is
	 * there, the drawing failed; else the archive did, and the drawing
	 * was not made either. */
	bool is_svg = o->svg && (!o->otf2 || access(o->otf2, F_OK) == 0);
	struct nl_err line = *tl_err;
	if (is_svg)
		nl_err_prefix(&line, "--svg %s: not written", o->svg);
	else
		nl_err_prefix(&line, "--otf2 %s: not written%s%s%s", o->otf2, o->svg ? " (nor --svg " : "",
			      o->svg ? o->svg : "", o->svg ? ")" : "");
	if (status == CLI_OK) {
		const char *out = o->csv ? "the CSV" : "the report";
		char said[64] = "";
		if (o->json && !strcmp(o->json, "-"))
			snprintf(said, sizeof said, "; the JSON was written");
		else if (o->svg && !strcmp(o->svg, "-")) /* no report beside the SVG */
			snprintf(said, sizeof said, "%s", o->json ? "; --json was written" : "");
		else
			snprintf(said, sizeof said, "; %s%s written", out, o->json ? " and --json were" : " was");
		nl_err_suffix(&line, said);
	}
	cli_report(&line);
	return status == CLI_OK ? CLI_REPLAY_NO_TIMELINE : status;
}

/* A timeline asked for is not drawn of a replay that deadlocked (the
 * first network's, whose timeline it is): said after the report and the
 * JSON, so that it is not missing silently. The status stays 1. */
static void cli_replay_timeline_deadlocked(const struct cli_replay_opts *o, bool is_first_of_several)
{
	struct nl_err line = {0};
	const char *why = is_first_of_several ? "the first network's replay deadlocked" : "the replay deadlocked";
	if (o->svg && o->otf2)
		nl_errf(&line, NL_EDEADLOCK, "--svg %s and --otf2 %s: not written: %s (a timeline is of a run every rank "
			"finished)", o->svg, o->otf2, why);
	else
		nl_errf(&line, NL_EDEADLOCK, "--%s %s: not written: %s (a timeline is of a run every rank finished)",
			o->svg ? "svg" : "otf2", o->svg ? o->svg : o->otf2, why);
	cli_report(&line);
}

/* Under mpirun (or srun) each replay is spread over the ranks: every rank
 * runs the application model and its share of the flit network
 * (docs/scaling.md); only rank 0 prints and writes. Returns 0 (*m NULL
 * when not launched by MPI) or an exit code after saying why. */
static int cli_replay_mpi_open(int argc, char **argv, struct net_mpi **m, struct cli_replay_opts *o)
{
	int rc = cli_mpi_open(argc, argv, m);
	if (rc || net_mpi_rank(*m) == 0)
		return rc;
	/* The same report, files and errors as rank 0's: said once. */
	o->json = o->otf2 = o->svg = NULL;
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return CLI_FAIL;
	return 0;
}

/* One 'netloom replay': its options, its networks and how they went. */
struct cli_replay_job {
	struct cli_replay_opts o;
	struct cli_replay_hooks hooks;
	struct cli_replay_run runs[CLI_REPLAY_MAX_TOPOS];
	size_t n_runs;
	struct net_mpi *mpi;
	bool pick_routing; /* --topology without routing_function: each network's default */
	bool any_deadlock;
	bool is_tl_lost;      /* the timeline could not be written */
	struct nl_err tl_err; /* why */
};

/* Rank 0's warnings about the inputs: an empty -c file, keys a replay
 * does not read. */
static void cli_replay_warn_inputs(const struct cli_replay_job *j, nl_sim *sim0)
{
	const struct cli_replay_opts *o = &j->o;
	if (net_mpi_rank(j->mpi) != 0)
		return;
	for (size_t i = 0; i < o->n_files; i++)
		if (o->files_empty[i])
			cli_warn_config_empty("replay", NULL, o->files[i]);
	cli_warn_unread_replay("replay", session_config(sim0), o->sets, o->n_sets);
	cli_warn_unread_placement("replay", session_config(sim0), o->sets, o->n_sets);
}

/* Every network is prepared (topology, routing, placement, the backend)
 * before the first replays: a --topology its routing does not run on was
 * refused only after the networks before it had replayed, minutes of
 * flit simulation thrown away (exit 2 is "checked first"). The networks
 * stay built until the end either way, for the report. The first takes
 * *sim0. */
static int cli_replay_prepare_all(struct cli_replay_job *j, nl_sim **sim0, struct nl_err *err)
{
	const struct cli_replay_opts *o = &j->o;
	size_t want = o->n_topos ? o->n_topos : 1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < want; i++) {
		struct cli_replay_run *run = &j->runs[i];
		run->topology = o->n_topos ? o->topos[i] : NULL;
		if (i == 0) {
			run->sim = *sim0;
			*sim0 = NULL;
		} else {
			rc = net_mpi_agree(j->mpi, cli_replay_session(o, &run->sim, err), err);
			if (rc < 0) {
				nl_sim_free(run->sim); /* made on a rank where it did not fail */
				run->sim = NULL;
				break;
			}
			session_set_mpi(run->sim, j->mpi, SESSION_SPREAD_NETWORK);
		}
		j->n_runs++;
		struct session_replay_opts ro = cli_replay_ro(run, j->pick_routing, &j->hooks, NULL);
		rc = session_replay_prepare(run->sim, o->trace, &ro, err);
	}
	/* Said once the networks are built: a refused one needs no warning. */
	if (rc == 0 && net_mpi_rank(j->mpi) == 0 &&
	    (o->n_topos || config_get(session_config(j->runs[0].sim), "topology"))) {
		char what[64];
		if (o->n_topos > 1)
			snprintf(what, sizeof what, "the %zu networks predict the same runtime", o->n_topos);
		else
			snprintf(what, sizeof what, "the topology changes no prediction");
		cli_warn_topology_unused("replay", session_config(j->runs[0].sim), what, "docs/replay.md");
	}
	return rc;
}

/* The trace replayed on each network in turn. */
static int cli_replay_run_all(struct cli_replay_job *j, struct nl_err *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < j->n_runs; i++) {
		struct cli_replay_run *run = &j->runs[i];
		rc = cli_replay_run_one(run, j->o.trace, j->pick_routing, &j->hooks, err);
		if (rc == 0)
			j->any_deadlock |= run->v->deadlock;
		/* The timeline is the first network's: written unless it
		 * deadlocked, and its staged archive removed (cli_timeline_free)
		 * before the next network, whose replay no longer polls for a
		 * signal (out_staged_poll). One that cannot be written is said
		 * at the end, after the report and the JSON. */
		if (rc == 0 && i == 0 && j->hooks.tl && !run->v->deadlock)
			j->is_tl_lost = cli_timeline_finish(j->hooks.tl, &j->tl_err) < 0;
		if (i == 0) {
			cli_timeline_free(j->hooks.tl);
			j->hooks.tl = NULL;
		}
		/* Rank 0 alone writes the timeline: the next network waits for it. */
		rc = net_mpi_agree(j->mpi, rc, err);
	}
	return rc;
}

/* The report on stdout: the table of networks (text or CSV) and the first
 * network's detail. Not when the JSON or the SVG goes to stdout, as the
 * only thing there (as interfere's --json - and --plot -). */
static void cli_replay_print(const struct cli_replay_job *j)
{
	const struct cli_replay_opts *o = &j->o;
	const struct session_replay_view *v0 = j->runs[0].v;
	const struct trace_manifest *m = v0->m;
	struct cli_replay_info info = {
		.compute_why = v0->compute_why, .comparable = v0->comparable, .comparable_why = v0->comparable_why,
		.placement = v0->placement, .placement_seed = v0->ac->placement_seed, .ranks_per_node = v0->ac->ranks_per_node,
		.placement_map = v0->ac->placement_map};
	if ((o->json && !strcmp(o->json, "-")) || (o->svg && !strcmp(o->svg, "-")))
		return;
	if (o->csv && j->n_runs > 1) {
		cli_replay_table_csv(stdout, j->runs, j->n_runs, m, &info);
	} else if (o->csv) {
		if (!j->any_deadlock)
			cli_replay_csv(stdout, app_results(v0->app));
		if (info.comparable == 0)
			fprintf(stderr, "netloom replay: the recorded runtime is not comparable with a prediction (%s)\n",
				info.comparable_why);
	} else {
		if (j->n_runs > 1) {
			cli_replay_table(stdout, j->runs, j->n_runs, m, o->trace, v0->backend, &info);
			if (!v0->deadlock)
				fprintf(stdout, "\ndetail for the first network:\n\n");
		}
		if (!v0->deadlock)
			cli_replay_report(stdout, v0->app, m, o->trace, v0->backend, v0->net_report, &info);
	}
}

/* --json: one network's results as nl_sim_write_json writes them, several
 * networks' as one document. The status, a lost file said. */
static int cli_replay_write_json(const struct cli_replay_job *j, double t0, int status)
{
	const char *path = j->o.json;
	struct nl_err err = {0};
	json_t *doc = NULL;
	int rc;
	if (j->n_runs == 1)
		rc = nl_sim_write_json(j->runs[0].sim, 0, path, &err);
	else if ((doc = cli_replay_doc_multi(j->runs, j->n_runs, j->pick_routing, t0)))
		rc = out_write_json(path, doc, &err);
	else
		rc = nl_errf(&err, NL_ENOMEM, "%s: out of memory", path);
	json_decref(doc);
	return rc < 0 ? cli_report_unwritten("--json", path, &err) : status;
}

int cli_replay_main(int argc, char **argv)
{
	struct nl_err err = {0};
	struct cli_replay_job j = {.hooks = {.o = &j.o}};
	nl_sim *sim0 = NULL;
	bool help = false;
	int status = CLI_OK, rc;
	double t0 = nl_wall_seconds();

	/* SIGINT, SIGTERM: what --otf2 has staged is removed, then the
	 * process ends by the signal (core/output.h). */
	out_signals_catch();
	/* The command line as given, for the ranks' comparison: getopt_long
	 * permutes argv, and stops early at a file it cannot read (out of
	 * memory: argv, the same on ranks that parsed alike). */
	char **given = malloc((size_t)argc * sizeof *given);
	if (given)
		memcpy(given, argv, (size_t)argc * sizeof *given);
	rc = cli_replay_args(argc, argv, &sim0, &j.o, &err, &help);
	if (rc == 0 && help) {
		/* Said once per launch, by rank 0 after the ranks compared
		 * their command lines (cli_mpi_stop_say). */
		status = cli_mpi_stop_say(argc, given ? given : argv, CLI_OK, cli_replay_say_usage, NULL);
		goto out;
	}
	/* Every rank opens MPI, then all agree on the command line and files. */
	if ((status = cli_replay_mpi_open(argc, given ? given : argv, &j.mpi, &j.o)) != CLI_OK)
		goto out;
	rc = net_mpi_agree(j.mpi, rc, &err);
	if (rc == 0) {
		session_set_mpi(sim0, j.mpi, SESSION_SPREAD_NETWORK);
		cli_replay_warn_inputs(&j, sim0);
		j.pick_routing = j.o.n_topos > 0 && !config_get(session_config(sim0), "routing_function");
		rc = cli_replay_prepare_all(&j, &sim0, &err);
	}
	if (rc == 0)
		rc = cli_replay_run_all(&j, &err);
	/* A spec of a -c file ('topology = torus;') is refused as the
	 * network is built, not as the file is read. */
	for (size_t i = 0; rc < 0 && i < j.o.n_files; i++)
		cli_config_spec_hint(j.o.files[i], &err);
	if (rc < 0) {
		status = cli_report(&err);
		goto out;
	}
	if (j.any_deadlock)
		status = CLI_FAIL;
	cli_replay_print(&j);
	if (j.o.json)
		status = cli_replay_write_json(&j, t0, status);
	if (j.is_tl_lost)
		status = cli_replay_timeline_lost(&j.o, &j.tl_err, status);
	if (j.runs[0].v->deadlock && (j.o.svg || j.o.otf2))
		cli_replay_timeline_deadlocked(&j.o, j.n_runs > 1);
out:
	cli_timeline_free(j.hooks.tl);
	for (size_t i = 0; i < j.n_runs; i++)
		nl_sim_free(j.runs[i].sim);
	nl_sim_free(sim0);
	free(j.o.files);
	free(j.o.files_empty);
	free(j.o.sets);
	free(given);
	/* Here, not only in main.c's: a report lost on rank 0's stdout fails
	 * every rank. */
	status = cli_stdout_finish(status, 0);
	status = net_mpi_agree_exit(j.mpi, status);
	net_mpi_close(j.mpi);
	return status;
}
