/* netloom replay TRACE [-c SYSTEM.ini] [-s key=value ...] [--json OUT] [--csv]
 *
 * Replays an MPI trace archive on the configured network model and prints
 * the predicted runtime against the recorded one, the per-rank breakdown,
 * message latencies by size class, collective algorithms used and the
 * busiest links. Exit status: 0 done, 1 the replay deadlocked (report on
 * stderr) or failed, 2 bad usage or bad input.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "net/net.h"
#include "netloom/netloom.h"
#include "topo/topo.h"
#include "traces/trace.h"

static void cli_replay_usage(FILE *f)
{
	fprintf(f,
		"usage: netloom replay TRACE [-c SYSTEM.ini]... [-s key=value]... [--json OUT] [--csv] [--otf2 DIR] [--svg FILE]\n"
		"\n"
		"Replay an MPI trace on a network model and predict its runtime.\n"
		"\n"
		"  -c, --config FILE   read settings from an INI file (repeatable; later wins)\n"
		"  -s, --set KEY=VALUE set one key (repeatable; after the files)\n"
		"      --json FILE     write results as JSON ('-' = stdout, instead of the report)\n"
		"      --csv           print the per-rank breakdown as CSV instead of the report\n"
		"      --otf2 DIR      also write the predicted run as an OTF2 archive in DIR (new)\n"
		"      --svg FILE      also draw the predicted timeline (ranks x time; at most 64 ranks)\n"
		"  -h, --help          this text and the replay keys\n"
		"\n"
		"Network backends:\n");
	size_t n;
	const struct net_backend_ops *const *all = net_backend_list(&n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", all[i]->name, all[i]->help);
	fprintf(f, "\nKeys (see docs/replay.md):\n");
	size_t nt;
	const struct config_table *const *tables = cli_config_tables(&nt);
	struct config c;
	config_init(&c, tables, nt);
	config_print_keys(&c, f);
	config_release(&c);
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

static void cli_replay_report(FILE *f, const struct app *app, const struct trace_manifest *m,
			      const char *trace_path, const char *backend, json_t *net_report)
{
	const struct app_results *res = app_results(app);
	double pred = (double)res->runtime_ps * 1e-12;
	const char *topo = json_string_value(json_object_get(net_report, "topology"));
	fprintf(f, "netloom replay: %s (%s, %" PRIu32 " ranks) on backend %s%s%s\n", trace_path,
		m->application && m->application[0] ? m->application : "?", m->n_ranks, backend,
		topo ? ", topology " : "", topo ? topo : "");
	fprintf(f, "  predicted runtime  %.9f s\n", pred);
	if (m->recorded_runtime_s > 0) {
		fprintf(f, "  recorded runtime   %.9f s\n", m->recorded_runtime_s);
		fprintf(f, "  ratio              %.4f (predicted / recorded)\n", pred / m->recorded_runtime_s);
	} else {
		fprintf(f, "  recorded runtime   unknown\n");
	}

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
		fprintf(f, "  ... %" PRIu32 " more ranks (all in --json / --csv)\n", res->n_ranks - shown);
	fprintf(f, "  %6s %14.9f %14.9f %14.9f %14.9f\n", "mean", sum[0] / res->n_ranks, sum[1] / res->n_ranks,
		sum[2] / res->n_ranks, sum[3] / res->n_ranks);

	fprintf(f, "\n  messages: %" PRIu64 " (%" PRIu64 " bytes): %" PRIu64 " point-to-point, %" PRIu64
		   " inside collectives; %" PRIu64 " eager, %" PRIu64 " rendezvous\n",
		res->msgs, res->bytes, res->p2p_msgs, res->coll_msgs, res->eager_msgs, res->rndv_msgs);
	if (res->unmatched_msgs)
		fprintf(f, "  warning: %" PRIu64 " messages were sent but never received\n", res->unmatched_msgs);
	if (res->unknown_requests)
		fprintf(f, "  note: %" PRIu64 " waits/tests named requests the trace never created\n",
			res->unknown_requests);
	if (res->cancels)
		fprintf(f, "  cancels: %" PRIu64 " (%" PRIu64 " cancelled their request in replay)\n", res->cancels,
			res->cancelled);
	if (res->cancel_diverged) {
		const char *k = trace_op_name(res->cancel_div_req_kind);
		fprintf(f,
			"  warning: %" PRIu64 " cancels ended otherwise than in the recorded run; first: rank %" PRIu32
			", op %" PRIu64 " (cancel of a request from %s), recorded %s, replayed %s\n",
			res->cancel_diverged, res->cancel_div_rank, res->cancel_div_op,
			k ? k : "call the trace does not hold", res->cancel_div_recorded ? "cancelled" : "not cancelled",
			res->cancel_div_recorded ? "not cancelled" : "cancelled");
	}

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

	bool any = false;
	for (unsigned c = 0; c < APP_COLL__COUNT; c++) {
		if (!res->coll_calls[c])
			continue;
		if (!any)
			fprintf(f, "\n  collectives:\n");
		any = true;
		fprintf(f, "    %-22s %10" PRIu64 " calls:", app_coll_name(c), res->coll_calls[c]);
		for (unsigned g = 0; g < APP_ALG__COUNT; g++)
			if (res->coll_alg_used[c][g])
				fprintf(f, " %s %" PRIu32, app_alg_name(g), res->coll_alg_used[c][g]);
		fputc('\n', f);
	}

	json_t *links = json_object_get(net_report, "busiest_links");
	if (json_array_size(links)) {
		fprintf(f, "\n  busiest links:\n");
		size_t i;
		json_t *l;
		json_array_foreach(links, i, l)
		{
			fprintf(f, "    %-12s %-12s -> %-12s busy %.6f s (%5.1f%%), ",
				json_string_value(json_object_get(l, "kind")),
				json_string_value(json_object_get(l, "from")), json_string_value(json_object_get(l, "to")),
				json_real_value(json_object_get(l, "busy_s")),
				100.0 * json_real_value(json_object_get(l, "utilisation")));
			/* The flit model counts flits per channel, the analytic one
			 * messages and bytes. */
			if (json_object_get(l, "flits"))
				fprintf(f, "%" PRId64 " flits\n", (int64_t)json_integer_value(json_object_get(l, "flits")));
			else
				fprintf(f, "%" PRId64 " messages, %" PRId64 " bytes\n",
					(int64_t)json_integer_value(json_object_get(l, "messages")),
					(int64_t)json_integer_value(json_object_get(l, "bytes")));
		}
	} else if (!json_object_get(net_report, "busiest_links")) {
		fprintf(f, "\n  busiest links: not modelled (backend %s, %s)\n", backend,
			json_is_string(json_object_get(net_report, "link_model"))
				? "link_model = none"
				: "no link report");
	}
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

/* What identifies the trace, so a result can be re-run to the same bits. */
static json_t *cli_trace_json(const char *path, const struct trace_manifest *m, uint64_t file_bytes)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", json_string(path));
	json_object_set_new(o, "file_bytes", json_integer((json_int_t)file_bytes));
	json_object_set_new(o, "format_version", json_integer(m->format_version));
	json_object_set_new(o, "application", json_string(m->application ? m->application : ""));
	json_object_set_new(o, "command_line", json_string(m->command_line ? m->command_line : ""));
	json_object_set_new(o, "machine", json_string(m->machine ? m->machine : ""));
	json_object_set_new(o, "recorder", json_string(m->recorder ? m->recorder : ""));
	json_object_set_new(o, "mpi_library", json_string(m->mpi_library ? m->mpi_library : ""));
	json_object_set_new(o, "ranks", json_integer(m->n_ranks));
	json_object_set_new(o, "communicators", json_integer(m->n_comms));
	json_object_set_new(o, "recorded_runtime_s", json_real(m->recorded_runtime_s));
	json_t *h = json_array();
	for (uint32_t r = 0; m->rank_hash && r < m->n_ranks; r++) {
		char hex[20];
		snprintf(hex, sizeof hex, "%016" PRIx64, m->rank_hash[r]);
		json_array_append_new(h, json_string(hex));
	}
	json_object_set_new(o, "rank_hashes", h);
	return o;
}

struct cli_replay_opts {
	const char *trace;
	const char *json;
	const char *otf2; /* --otf2 DIR */
	const char *svg;  /* --svg FILE */
	bool csv;
};

static int cli_replay_args(int argc, char **argv, struct config *cfg, struct cli_replay_opts *o,
			   struct nl_err *err, bool *help)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
		{"json", required_argument, NULL, 'J'},   {"csv", no_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},         {"otf2", required_argument, NULL, 'O'},
		{"svg", required_argument, NULL, 'V'},    {NULL, 0, NULL, 0},
	};
	/* Files first, then -s, whatever their order on the line. */
	const char **sets = calloc((size_t)argc, sizeof *sets);
	size_t n_sets = 0;
	int ch, rc = 0;
	if (!sets)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	optind = 1;
	opterr = 0;
	while (rc == 0 && (ch = getopt_long(argc, argv, ":c:s:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			rc = config_load_file(cfg, optarg, err);
			break;
		case 's':
			sets[n_sets++] = optarg;
			break;
		case 'J':
			o->json = optarg;
			break;
		case 'C':
			o->csv = true;
			break;
		case 'O':
			o->otf2 = optarg;
			break;
		case 'V':
			o->svg = optarg;
			break;
		case 'h':
			*help = true;
			break;
		case ':':
			rc = nl_errf(err, NL_EINVAL, "replay: option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			rc = nl_errf(err, NL_EINVAL, "replay: unknown option '%s' (see 'netloom replay --help')",
				     argv[optind - 1]);
		}
	}
	for (size_t i = 0; rc == 0 && i < n_sets; i++)
		rc = config_set(cfg, sets[i], NULL, "-s", err);
	free(sets);
	if (rc < 0 || *help)
		return rc;
	if (optind >= argc)
		return nl_errf(err, NL_EINVAL, "replay: missing TRACE (an .nlt archive; see 'netloom replay --help')");
	if (optind + 1 < argc)
		return nl_errf(err, NL_EINVAL, "replay: unexpected argument '%s' after TRACE", argv[optind + 1]);
	o->trace = argv[optind];
	if (o->csv && o->json && !strcmp(o->json, "-"))
		return nl_errf(err, NL_EINVAL, "replay: --csv and --json - both want stdout; give --json a file");
	return 0;
}

int cli_replay_main(int argc, char **argv)
{
	struct nl_err err = {0};
	struct config cfg;
	size_t n_tables;
	const struct config_table *const *tables = cli_config_tables(&n_tables);
	struct cli_replay_opts o = {0};
	struct app_config ac;
	struct trace_archive *arch = NULL;
	struct topo *topo = NULL;
	struct net_backend net = {0};
	struct app_archive_source *asrc = NULL;
	struct app *app = NULL;
	struct cli_timeline *tl = NULL;
	json_t *doc = NULL, *net_report = NULL;
	bool help = false;
	int status = CLI_OK, rc;
	double t0 = nl_wall_seconds();

	config_init(&cfg, tables, n_tables);
	rc = cli_replay_args(argc, argv, &cfg, &o, &err, &help);
	if (rc == 0 && help) {
		cli_replay_usage(stdout);
		goto out;
	}
	if (rc == 0)
		rc = app_config_bind(&cfg, &ac, &err);
	if (rc == 0) {
		net.ops = net_backend_find(ac.backend, &err);
		if (!net.ops)
			rc = nl_err_prefix(&err, "key 'backend'");
	}
	/* The [network] table's topology: always for backends that model
	 * the network's structure; for the analytic one (net.h: it accepts
	 * none) only when set, so its default stays contention-free. */
	struct net_cfg nc;
	if (rc == 0)
		rc = config_bind(&cfg, &net_network_table, &nc, &err);
	bool want_topo = rc == 0 && (strcmp(net.ops->name, "analytic") || config_get(&cfg, "topology"));
	if (want_topo) {
		rc = topo_new(nc.topology, &topo, &err);
		if (rc < 0)
			nl_err_prefix(&err, "key 'topology'");
	}
	if (rc == 0) {
		rc = cli_open_trace("replay", o.trace, &arch, &err);
	}
	const struct trace_manifest *m = arch ? trace_archive_manifest(arch) : NULL;
	if (rc == 0 && topo && topo->n_endpoints < m->n_ranks)
		rc = nl_errf(&err, NL_ECONFIG,
			     "key 'topology': '%s' has %" PRIu32 " endpoints, the trace needs %" PRIu32
			     " (one per rank)",
			     nc.topology, topo->n_endpoints, m->n_ranks);
	if (rc == 0) {
		rc = net.ops->create(&net, &cfg, topo, &err);
		if (rc < 0)
			net.ops = NULL;
	}
	struct app_source src;
	if (rc == 0)
		rc = app_archive_source_new(&asrc, arch, &src, &err);
	if (rc == 0)
		rc = app_new(&app, &ac, &src, &net, NULL, &err);
	if (rc == 0 && (o.otf2 || o.svg))
		rc = cli_timeline_start(&tl, app, m, o.otf2, o.svg, &err);
	if (rc < 0) {
		status = cli_report(&err);
		goto out;
	}

	struct progress prog;
	progress_init(&prog, "replay");
	rc = app_run(app, prog.enabled ? &prog : NULL, &err);
	progress_done(&prog);
	bool deadlock = rc == NL_EDEADLOCK;
	if (rc < 0 && !deadlock) {
		status = cli_report(&err);
		goto out;
	}
	if (tl && !deadlock && cli_timeline_finish(tl, &err) < 0) {
		status = cli_report(&err);
		goto out;
	}
	if (deadlock) {
		struct cli_replay_ctx lc = {stderr};
		fprintf(stderr, "netloom: %s\n", err.msg);
		app_deadlock_report(app, cli_replay_line, &lc);
		status = CLI_FAIL;
	}

	net_report = json_object();
	if (net.ops->report && net.ops->report(&net, net_report, &err) < 0) {
		status = cli_report(&err);
		goto out;
	}
	/* With the JSON on stdout, it is the only thing there. */
	bool json_stdout = o.json && !strcmp(o.json, "-");
	if (!deadlock && !json_stdout) {
		if (o.csv)
			cli_replay_csv(stdout, app_results(app));
		else
			cli_replay_report(stdout, app, m, o.trace, net.ops->name, net_report);
	}
	if (o.json) {
		const struct app_results *res = app_results(app);
		doc = json_object();
		json_object_set_new(doc, "netloom_version", json_string(nl_version()));
		json_object_set_new(doc, "command", json_string("replay"));
		json_object_set_new(doc, "trace", cli_trace_json(o.trace, m, trace_archive_file_bytes(arch)));
		json_object_set_new(doc, "config", config_to_json(&cfg));
		json_t *results = app_results_json(app);
		json_object_set_new(results, "status", json_string(deadlock ? "deadlock" : "ok"));
		json_t *rt = json_object_get(results, "runtime");
		double pred = (double)res->runtime_ps * 1e-12;
		json_object_set_new(rt, "recorded_s", json_real(m->recorded_runtime_s));
		json_object_set_new(rt, "ratio", m->recorded_runtime_s > 0 ? json_real(pred / m->recorded_runtime_s)
									   : json_null());
		json_object_set(results, "network", net_report);
		if (deadlock)
			json_object_set_new(results, "deadlock", app_deadlock_json(app));
		/* The only field that differs between identical runs. */
		json_object_set_new(results, "wall_seconds", json_real(nl_wall_seconds() - t0));
		json_object_set_new(doc, "results", results);
		if (out_write_json(o.json, doc, &err) < 0)
			status = cli_report(&err);
	}
out:
	json_decref(doc);
	json_decref(net_report);
	cli_timeline_free(tl);
	app_free(app);
	app_archive_source_free(asrc);
	if (net.ops)
		net.ops->destroy(&net);
	topo_free(topo);
	trace_archive_close(arch);
	config_release(&cfg);
	return status;
}
