/* netloom interfere WORKLOAD -c SYSTEM [-j N] [--json FILE] [--plot FILE.svg]:
 * the jobs of a workload file on one machine, alone and together (issue
 * 13, docs/placement.md). The session layer runs everything and returns
 * one JSON document; this file prints it as a table, writes it, and draws
 * the chart with gnuplot when asked. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/text.h"
#include "place/place.h"
#include "session/session.h"

/* Exit status: the results asked for were written (the table, --json),
 * the --plot chart not. */
enum { CLI_INTERFERE_NO_PLOT = 3 };

static void cli_interfere_usage(FILE *f)
{
	fprintf(f, "usage: netloom interfere WORKLOAD [-c SYSTEM.ini]... [-s key=value]... [-j N] [--json FILE]\n"
		   "                         [--plot FILE.svg] [--top N]\n\n"
		   "Places the jobs of WORKLOAD (an INI file, docs/placement.md) on the configured network,\n"
		   "runs each alone and all together on the same placement, and reports per job the runtime\n"
		   "alone and shared, the slowdown, message latency p50/p99 alone and shared, and the links\n"
		   "where the jobs' traffic collides (flits per job and shares).\n\n"
		   "  -c, --config FILE   system configuration (topology, routing, backend, ...); repeatable\n"
		   "  -s, --set KEY=VAL   override a key; repeatable\n"
		   "  -j, --jobs N        runs at once (threads, 1..64, default 1): the jobs alone and the\n"
		   "                      shared run side by side, each on its own network (memory: up to\n"
		   "                      N networks at once); the output and exit status do not depend\n"
		   "                      on N; each run keeps its own key threads (docs/placement.md)\n"
		   "      --json FILE     write the results document (atomically; '-' = stdout, then no table)\n"
		   "      --plot FILE.svg runtime alone and shared per job, an SVG drawn by gnuplot\n"
		   "                      ('-' = stdout, then no table; not with --json -; a .png,\n"
		   "                      .pdf, .jpg, .eps, ... name is refused: the chart is SVG)\n"
		   "      --top N         colliding links listed, 1..100000 (default 10)\n"
		   "  -h, --help          this text\n\n"
		   "Exit status: 0 done; 3 the table and --json (those asked for) were written but the\n"
		   "--plot chart was not (no gnuplot, gnuplot failed, the SVG could not be written: the old\n"
		   "file kept); 1 the run failed (a deadlock, out of memory) or --json could not be written\n"
		   "after it (a full disk; the table on stdout); 2 a bad command line, workload, trace\n"
		   "(also one found corrupt as it replays) or configuration, or an output that cannot be\n"
		   "written (checked before the replays).\n");
}

static double cli_num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static double cli_lat_us(json_t *job, const char *run, const char *p)
{
	return 1e6 * cli_num(json_object_get(json_object_get(job, run), "latency"), p);
}

/* A string of the results, "" when missing. */
static const char *cli_str(json_t *s)
{
	return json_is_string(s) ? json_string_value(s) : "";
}

static void cli_interfere_table(FILE *f, json_t *doc, const char *workload)
{
	json_t *res = json_object_get(doc, "results");
	json_t *jobs = json_object_get(res, "jobs"), *links = json_object_get(res, "links");
	size_t i;
	json_t *j;
	const size_t n_jobs = json_array_size(jobs);
	fprintf(f, "netloom interfere: %s, %zu job%s on %s (backend %s)\n\n", workload, n_jobs, n_jobs == 1 ? "" : "s",
		json_string_value(json_object_get(res, "topology")), json_string_value(json_object_get(res, "backend")));
	/* The name column as wide as the longest name, in the columns a
	 * terminal shows (text_width): padded by bytes, 'lammps_é' or 'ジョブ'
	 * shifted the columns after it. */
	size_t wn = 16;
	json_array_foreach(jobs, i, j)
	{
		size_t w = text_width(cli_str(json_object_get(j, "name")));
		wn = w > wn ? w : wn;
	}
	fprintf(f, "  ");
	text_put_padded(f, "job", wn);
	fprintf(f, " %6s %-14s %14s %14s %9s %19s %19s %12s %12s\n", "ranks", "placement", "alone_s", "shared_s",
		"slowdown", "p50_us alone/shared", "p99_us alone/shared", "link_use", "on_shared");
	json_array_foreach(jobs, i, j)
	{
		json_t *sd = json_object_get(j, "slowdown");
		char slow[32] = "-", p50[48], p99[48];
		if (json_is_number(sd))
			snprintf(slow, sizeof slow, "%+.2f%%", 100.0 * json_number_value(sd));
		snprintf(p50, sizeof p50, "%.3f/%.3f", cli_lat_us(j, "alone", "p50_s"), cli_lat_us(j, "shared", "p50_s"));
		snprintf(p99, sizeof p99, "%.3f/%.3f", cli_lat_us(j, "alone", "p99_s"), cli_lat_us(j, "shared", "p99_s"));
		fprintf(f, "  ");
		text_put_padded(f, cli_str(json_object_get(j, "name")), wn);
		fprintf(f, " %6" JSON_INTEGER_FORMAT " %-14s %14.9f %14.9f %9s %19s %19s %12" JSON_INTEGER_FORMAT
			   " %12" JSON_INTEGER_FORMAT "\n",
			json_integer_value(json_object_get(j, "ranks")),
			json_string_value(json_object_get(j, "placement")), cli_num(json_object_get(j, "alone"), "runtime_s"),
			cli_num(json_object_get(j, "shared"), "runtime_s"), slow, p50, p99,
			json_integer_value(json_object_get(j, "link_use")),
			json_integer_value(json_object_get(j, "link_use_shared")));
	}
	const char *unit = json_string_value(json_object_get(links, "unit"));
	fprintf(f, "\n  links: %" JSON_INTEGER_FORMAT " used, %" JSON_INTEGER_FORMAT
		   " by two jobs or more; %" JSON_INTEGER_FORMAT " %s in all (shared run)\n",
		json_integer_value(json_object_get(links, "links_used")),
		json_integer_value(json_object_get(links, "links_shared")),
		json_integer_value(json_object_get(links, "total")), unit);
	json_t *top = json_object_get(links, "top_shared"), *l;
	if (json_array_size(top))
		fprintf(f, "  where the jobs collide (top links by %s; share of each job):\n", unit);
	json_array_foreach(top, i, l)
	{
		fprintf(f, "    router %4" JSON_INTEGER_FORMAT " port %2" JSON_INTEGER_FORMAT " -> router %4" JSON_INTEGER_FORMAT
			   " %12" JSON_INTEGER_FORMAT " ",
			json_integer_value(json_object_get(l, "router")), json_integer_value(json_object_get(l, "port")),
			json_integer_value(json_object_get(l, "peer_router")), json_integer_value(json_object_get(l, "total")));
		size_t k;
		json_t *s;
		json_array_foreach(json_object_get(l, "shares"), k, s)
		{
			json_t *jj = json_array_get(jobs, k);
			fprintf(f, " %s %.1f%%", json_string_value(json_object_get(jj, "name")), 100.0 * json_real_value(s));
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n  slowdown: runtime shared / alone - 1, on the same placement; link_use: the job's %s on\n"
		   "  router-to-router links in the shared run; on_shared: of which on links another job also used\n",
		unit);
}

/* Draw the chart (cli_plot_write): a gnuplot script with the data inline.
 * written: what the command wrote before ("the table was written"), said
 * with a missing gnuplot. */
static int cli_interfere_plot(json_t *doc, const char *out, const char *written, struct nl_err *err)
{
	char *script = NULL;
	size_t script_len = 0;
	FILE *p = open_memstream(&script, &script_len);
	if (!p)
		return nl_errf(err, NL_ENOMEM, "--plot %s: out of memory", out);
	json_t *jobs = json_object_get(json_object_get(doc, "results"), "jobs"), *j;
	size_t i;
	/* noenhanced: a job named lammps_lj or bully^2 is drawn so, not with
	 * a subscript or a superscript. The names go in an array of string
	 * constants (cli_gp_str), the data holds numbers only. */
	fprintf(p, "set terminal svg size 800,480 dynamic noenhanced font 'sans,11' background rgb 'white'\n");
	fprintf(p, "array name[%zu]\n", json_array_size(jobs) ? json_array_size(jobs) : 1);
	json_array_foreach(jobs, i, j)
	{
		fprintf(p, "name[%zu] = ", i + 1);
		cli_gp_str(p, json_string_value(json_object_get(j, "name")));
		fputc('\n', p);
	}
	fprintf(p, "$d << EOD\n");
	json_array_foreach(jobs, i, j)
	{
		json_t *sd = json_object_get(j, "slowdown");
		fprintf(p, "%.12g %.12g \"%+.1f%%\"\n", cli_num(json_object_get(j, "alone"), "runtime_s"),
			cli_num(json_object_get(j, "shared"), "runtime_s"),
			json_is_number(sd) ? 100.0 * json_number_value(sd) : 0.0);
	}
	fprintf(p, "EOD\n"
		   "set title 'netloom interfere: runtime alone and shared (label: slowdown)'\n"
		   "set ylabel 'runtime (s)'\nset yrange [0:*]\nset style data histograms\n"
		   "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\nset key top left\n"
		   "set xtics nomirror\nset grid ytics\n"
		   "plot $d using 1:xtic(name[int($0) + 1]) title 'alone', '' using 2 title 'shared', "
		   "'' using 0:2:3 with labels offset 2,0.7 notitle\n");
	if (fclose(p) != 0) {
		free(script);
		return nl_errf(err, NL_ENOMEM, "--plot %s: out of memory", out);
	}
	int rc = cli_plot_write("--plot", out, script, written, err);
	free(script);
	return rc;
}

static int cli_interfere_open(void *ctx, const char *job, const char *path, struct trace_archive **a,
			      struct nl_err *err)
{
	(void)ctx;
	return cli_open_trace("interfere", job, path, a, err);
}


/* The workload read here as the session reads it (paths against its
 * folder), for the checks before the replays; false for one that cannot
 * be read, or is no regular file (a FIFO read twice would be empty),
 * which is the session's to report. */
static bool cli_interfere_read_jobs(const char *workload, struct place_workload *w)
{
	struct nl_err ignored = {0};
	struct stat st;
	return stat(workload, &st) == 0 && S_ISREG(st.st_mode) && place_workload_read(workload, w, &ignored) == 0;
}

/* Refuse an output naming a file the workload's jobs read (a trace, a
 * placement_map), named by the line that gives it ("wl.ini:2 [job A]
 * trace"), which it would replace. */
static int cli_interfere_check_jobs(const char *workload, const struct cli_file *outs, size_t n_outs,
				    struct nl_err *err)
{
	struct place_workload w;
	if (!cli_interfere_read_jobs(workload, &w))
		return 0;
	struct cli_file *in = calloc(2 * (size_t)w.n_jobs + 1, sizeof *in);
	char(*names)[192] = calloc(2 * (size_t)w.n_jobs + 1, sizeof *names);
	int rc = in && names ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	size_t n = 0;
	for (uint32_t i = 0; rc == 0 && i < w.n_jobs; i++) {
		const struct place_job_spec *j = &w.jobs[i];
		if (j->trace) {
			snprintf(names[n], sizeof names[n], "%.80s:%d [job %s] trace", workload, j->trace_line, j->name);
			in[n] = (struct cli_file){names[n], j->trace};
			/* And the files a foreign trace reads besides it. */
			rc = cli_check_trace_files(names[n], j->trace, outs, n_outs, err);
			n++;
		}
		if (j->map_path) {
			snprintf(names[n], sizeof names[n], "%.80s:%d [job %s] placement_map", workload, j->map_line,
				 j->name);
			in[n] = (struct cli_file){names[n], j->map_path};
			n++;
		}
	}
	if (rc == 0)
		rc = cli_check_files(in, n, outs, n_outs, err);
	free(names);
	free(in);
	place_workload_release(&w);
	return rc;
}

/* One 'netloom interfere': its options and the files it reads. */
struct cli_interfere_opts {
	const char **sets;       /* -s K=V, in order (argc of room) */
	size_t n_sets;
	struct cli_file *files;  /* what it reads: WORKLOAD first, then each -c file (argc + 1 of room) */
	size_t n_files;          /* -c files, after files[0] */
	const char *workload;    /* WORKLOAD */
	const char *json_out;    /* --json; NULL: none */
	const char *plot;        /* --plot; NULL: none */
	uint64_t top;            /* --top: colliding links listed */
	uint64_t jobs;           /* -j: runs at once (threads, 1..64) */
	bool is_help;            /* --help: the usage was printed, nothing else to do */
};

/* Read the command line into *o, each -c file into sim as it comes (a bad
 * one stops the options there), then the -s keys; --help anywhere first,
 * before any file is read (cli_getopt_long). The status: CLI_OK, or a
 * refusal said. */
static int cli_interfere_args(int argc, char **argv, nl_sim *sim, struct cli_interfere_opts *o)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
		{"json", required_argument, NULL, 'J'},   {"plot", required_argument, NULL, 'P'},
		{"top", required_argument, NULL, 'T'},    {"help", no_argument, NULL, 'h'},
		{"jobs", required_argument, NULL, 'j'},   {NULL, 0, NULL, 0},
	};
	struct nl_err err = {0};
	struct cli_seen seen = {.repeatable = "cs"}; /* -c and -s are taken several times */
	int ch, rc = 0;
	optind = 1;
	opterr = 0;
	bool help_scanned = false;
	while (rc == 0 && (ch = cli_getopt_long(argc, argv, ":c:s:j:h", longopts, &help_scanned)) != -1) {
		if (cli_value_once("interfere", longopts, &seen, ch))
			return CLI_USAGE;
		switch (ch) {
		case 'c':
			o->files[++o->n_files] = (struct cli_file){"-c", optarg};
			rc = nl_sim_load_file(sim, optarg, &err);
			cli_config_hint(optarg, rc, &err);
			if (rc == 0)
				cli_warn_config_empty("interfere", session_config(sim), optarg);
			break;
		case 's':
			o->sets[o->n_sets++] = optarg;
			break;
		case 'J':
			if (cli_output_file_once("interfere", "--json", &o->json_out, optarg))
				return CLI_USAGE;
			break;
		case 'P':
			if (cli_plot_file_once("interfere", "--plot", &o->plot, optarg))
				return CLI_USAGE;
			break;
		case 'T':
			if (cli_parse_u64("interfere", "--top", optarg, 1, 100000, &o->top) != 0)
				return CLI_USAGE;
			break;
		case 'j': /* compare's and replay's words and range */
			if (cli_parse_u64("interfere", "--jobs", optarg, 1, 64, &o->jobs) != 0)
				return CLI_USAGE;
			break;
		case 'h':
			cli_interfere_usage(stdout);
			o->is_help = true;
			return CLI_OK;
		default: return cli_getopt_error("interfere", argv, longopts, ch);
		}
	}
	for (size_t i = 0; rc == 0 && i < o->n_sets; i++)
		rc = cli_session_set(sim, o->sets[i], &err);
	if (rc < 0)
		return cli_report(&err);
	if (optind >= argc)
		return cli_usage_error("interfere", "missing WORKLOAD (see 'netloom interfere --help')");
	if (optind + 1 < argc)
		return cli_usage_error("interfere",
				       "unexpected argument '%s' after WORKLOAD; expected one workload file (a system "
				       "configuration goes after -c)",
				       argv[optind + 1]);
	o->workload = argv[optind];
	o->files[0] = (struct cli_file){"WORKLOAD", o->workload};
	return CLI_OK;
}

/* Warn of keys nothing reads: every job is a replay on one backend, so
 * the keys a replay does not read change nothing here either; and a job's
 * placement keys its placement does not read (a seed under contiguous
 * moved no rank, silently). */
static void cli_interfere_warn_inputs(nl_sim *sim, const struct cli_interfere_opts *o)
{
	cli_warn_unread_replay("interfere", session_config(sim), o->sets, o->n_sets);
	struct place_workload jobs;
	if (cli_interfere_read_jobs(o->workload, &jobs)) {
		cli_warn_unread_jobs("interfere", o->workload, &jobs);
		place_workload_release(&jobs);
	}
}

/* Outputs that cannot be written fail before the replays, which take
 * minutes on a flit study, not after them; so do two outputs naming one
 * file (the plot would silently replace the JSON) and an output naming an
 * input (WORKLOAD, a -c file, a job's trace), which it would replace. The
 * status: CLI_OK, or a refusal said. */
static int cli_interfere_check_outputs(nl_sim *sim, const struct cli_interfere_opts *o)
{
	struct nl_err err = {0};
	struct cli_file outs[] = {{"--json", o->json_out}, {"--plot", o->plot}};
	if (cli_check_files(o->files, o->n_files + 1, outs, 2, &err) < 0 ||
	    cli_interfere_check_jobs(o->workload, outs, 2, &err) < 0 ||
	    cli_check_config_files(session_config(sim), outs, 2, &err) < 0)
		return cli_usage_error("interfere", "%s", err.msg);
	if ((o->json_out && cli_check_output("--json", o->json_out, &err) < 0) ||
	    (o->plot && cli_check_output("--plot", o->plot, &err) < 0))
		return cli_report(&err);
	/* A TMPDIR that cannot take --plot - failed after the replays
	 * (exit 3), not before them. */
	if (o->plot && cli_probe_staging(o->plot, &err) < 0) {
		nl_err_prefix(&err, "--plot");
		return cli_report(&err);
	}
	return CLI_OK;
}

/* The jobs alone and together (session_interfere), their results in *doc,
 * with a progress line. 0 or a negative NL_E* code. */
static int cli_interfere_run(nl_sim *sim, const struct cli_interfere_opts *o, json_t **doc, struct nl_err *err)
{
	struct progress prog;
	progress_init(&prog, "interfere");
	struct session_interfere_opts io = {.pg = prog.enabled ? &prog : NULL,
					    .open_trace = cli_interfere_open,
					    .top_links = (uint32_t)o->top,
					    .jobs = (unsigned)o->jobs};
	int rc = session_interfere(sim, o->workload, &io, doc, err);
	progress_done(&prog);
	return rc;
}

/* The results out: the table on stdout, --json, --plot, in that order. The
 * status: CLI_OK, CLI_INTERFERE_NO_PLOT, or 1 for a JSON lost. */
static int cli_interfere_report(const struct cli_interfere_opts *o, json_t *doc)
{
	struct nl_err err = {0};
	int status = CLI_OK;
	/* A document on stdout ('-', as layout --svg - and replay --json -)
	 * takes the table's place. */
	bool is_stdout = (o->json_out && !strcmp(o->json_out, "-")) || (o->plot && !strcmp(o->plot, "-"));
	if (!is_stdout)
		cli_interfere_table(stdout, doc, o->workload);
	/* Its path was checked before the replays: a JSON that fails now (a
	 * full disk) is the work failing, 1, not bad input, with the table
	 * already on stdout (as run's, docs/results.md). */
	/* A JSON that failed does not take the chart with it (it was left
	 * undrawn without a word): drawn, then the JSON's line, status 1. */
	struct nl_err json_err = {0};
	bool is_unwritten = o->json_out && out_write_json(o->json_out, doc, &json_err) < 0;
	/* The results are out (table, JSON): a plot that cannot be drawn is
	 * a status of its own, not 2, which says nothing was written. Its
	 * line says which were: the table unless a document took stdout, the
	 * JSON with --json (it said 'the table and JSON' with neither). */
	const bool has_json = o->json_out && !is_unwritten;
	const char *written = "nothing was written";
	if (!is_stdout)
		written = has_json ? "the table and JSON were written" : "the table was written";
	else if (has_json)
		written = "the JSON was written";
	if (o->plot && cli_interfere_plot(doc, o->plot, written, &err) < 0) {
		cli_report(&err);
		status = CLI_INTERFERE_NO_PLOT;
	}
	if (is_unwritten)
		status = cli_report_unwritten("--json", o->json_out, &json_err);
	return status;
}

int cli_interfere_main(int argc, char **argv)
{
	struct nl_err err = {0};
	struct cli_interfere_opts o = {.top = 10, .jobs = 1};
	nl_sim *sim = NULL;
	json_t *doc = NULL;
	int status;
	o.sets = calloc((size_t)argc, sizeof *o.sets);
	o.files = calloc((size_t)argc + 1, sizeof *o.files);
	if (!o.sets || !o.files || nl_sim_new(&sim, &err) < 0) {
		free(o.sets);
		free(o.files);
		return cli_report(&err);
	}
	if ((status = cli_interfere_args(argc, argv, sim, &o)) != CLI_OK || o.is_help)
		goto out;
	cli_interfere_warn_inputs(sim, &o);
	if ((status = cli_interfere_check_outputs(sim, &o)) != CLI_OK)
		goto out;
	if (cli_interfere_run(sim, &o, &doc, &err) < 0) {
		status = cli_report(&err);
		goto out;
	}
	status = cli_interfere_report(&o, doc);
out:
	json_decref(doc);
	nl_sim_free(sim);
	free(o.sets);
	free(o.files);
	return status;
}
