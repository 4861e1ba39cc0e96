/* netloom run / netloom sweep: the command line (run_opts): usage, the
 * options of each (run's refusing sweep's), sweep's --rates A:B:STEP, and
 * the outputs checked against the inputs and each other before any work. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_run.h"
#include "core/config.h"
#include "core/error.h"
#include "core/param.h"
#include "route/route.h"
#include "session/session.h"
#include "traffic/traffic.h"

void cli_run_usage(FILE *f, const char *cmd)
{
	bool sweep = !strcmp(cmd, "sweep");
	fprintf(f,
		"usage: netloom %s [-c FILE] [-s key=value]... %s[--json FILE]%s [--csv] [--reproducible]\n\n"
		"%s\n\n"
		"options:\n"
		"  -c, --config FILE   INI configuration (BookSim2 key names; see 'netloom config --keys')\n"
		"  -s, --set KEY=VAL   override one key (repeatable, applied after the file)\n"
		"%s"
		"      --json FILE     write results as JSON, atomically ('-' = stdout, instead of the table)\n"
		"%s"
		"      --csv           print CSV instead of the table\n"
		"      --reproducible  write wall_seconds as 0 and print no wall time or rate, so\n"
		"                      repeated runs compare byte for byte\n"
		"  -h, --help          this text\n\n"
		"Defaults: torus:k=8x8, dor (min on topologies other than tori, meshes and the\n"
		"cmesh), uniform traffic at 0.1 flits/cycle/endpoint.\n"
		"%s"
		"Exit status: 0 done%s;\n"
		"1 the %s failed: a deadlock (reported, its JSON written), or --json could not be\n"
		"  written after it;\n"
		"2 a bad command line or configuration (a network too large for the memory available\n"
		"  included: out of memory), or a --json%s that cannot be written (checked first)%s\n\n"
		"Topologies: 'netloom topo list'. Routing functions and traffic patterns:\n",
		cmd, sweep ? "--rates A:B:STEP [--continue] " : "",
		sweep ? "\n                     [--spread network|points] [--plot FILE.svg]" : "",
		sweep ? "Load-latency curve: one operating point per injection rate, stopping after the\n"
			"first unstable (saturated) point unless --continue. With sim_type = throughput\n"
			"no point is judged saturated (BookSim's throughput mode: no latency threshold):\n"
			"the sweep runs every rate (a deadlock still stops it) and its last line says\n"
			"so, with the largest accepted rate."
		      : "Simulate one operating point: warm-up, measurement until convergence, drain\n"
			"(BookSim2's method), and report latency, throughput, hops and channel use.",
		sweep ? "      --rates A:B:STEP  injection rates from A to B inclusive (flits/cycle/endpoint)\n"
			"      --continue      keep going after an unstable point\n"
			"      --spread network|points  under mpirun: spread each point's network over the\n"
			"                      ranks (network, the default), or run whole points side by\n"
			"                      side, point i on rank i mod N (points: no exchange per\n"
			"                      cycle; every rank holds a whole network). Without\n"
			"                      mpirun/srun, points runs `threads` points side by side\n"
			"                      on threads (0: one per processor), each network on one\n"
			"                      thread; network has no effect, and a warning says so\n"
		      : "",
		sweep ? "      --plot FILE.svg the load-latency curve (and accepted against offered load), an SVG\n"
			"                      drawn by gnuplot ('-' = stdout, instead of the table; a .png,\n"
			"                      .pdf, .jpg, .eps, ... name is refused: the chart is SVG)\n"
		      : "",
		sweep ? "Under 'mpirun -np N' (or srun) each point is spread over the N ranks, or with\n"
			"--spread points each rank runs whole points; the same results, table and JSON\n"
			"either way, and the same points: in rounds of N, those past the first unstable\n"
			"one are dropped. Rank 0 prints and writes the JSON (docs/scaling.md). Without\n"
			"mpirun, --spread points -s threads=T does the same on T threads.\n"
		      : "Under 'mpirun -np N' (or srun) the point is spread over the N ranks, with the\n"
			"same results; rank 0 prints and writes the JSON (docs/scaling.md).\n",
		sweep ? " (saturated points included)" : "", sweep ? "sweep" : "run", sweep ? " or --plot" : "",
		sweep ? ";\n3 the table and --json (those asked for) were written but the --plot chart was not\n"
			"  (no gnuplot, gnuplot failed, the SVG could not be written: the old file kept)."
		      : ".");
	route_print_help(f);
	traffic_print_help(f);
}

#define SWEEP_MAX_POINTS 100000

/* One part of A:B:STEP, ended by `stop` (':' or the string's end); 0, -1
 * when it is no number, or -3 when it is one too small to represent
 * (*bad then points at it, *bad_len its length). */
static int sweep_parse_rate(const char **s, char stop, double *out, const char **bad, int *bad_len)
{
	char *e;
	errno = 0;
	/* Each number where its part starts (param_strtod: ' 0.1' is refused as
	 * '0.1 ' is), none empty (':0.5:0.1' was read as 0:0.5:0.1). */
	*out = param_strtod(*s, &e);
	if (e == *s || *e != stop)
		return -1;
	if (errno == ERANGE && *out == 0) {
		*bad = *s;
		*bad_len = (int)(e - *s);
		return -3;
	}
	if (errno)
		return -1;
	*s = e + 1;
	return 0;
}

static int sweep_parse_rates(const char *s, double *a, double *b, double *step, const char **bad, int *bad_len)
{
	int rc;
	if ((rc = sweep_parse_rate(&s, ':', a, bad, bad_len)) < 0 ||
	    (rc = sweep_parse_rate(&s, ':', b, bad, bad_len)) < 0 ||
	    (rc = sweep_parse_rate(&s, '\0', step, bad, bad_len)) < 0)
		return rc;
	if (!isfinite(*a) || !isfinite(*b) || !isfinite(*step) || !(*step > 0) || *a < 0 || *b < *a || *b > 1)
		return -1;
	/* A step far below the table's 4 decimals is a typo, not a sweep. */
	if ((*b - *a) / *step > SWEEP_MAX_POINTS)
		return -2;
	return 0;
}

/* An option with a value given a second time is refused, as a second -c
 * is: the last one won silently. */
static bool run_twice(const char *cmd, const char *a, const struct run_opts *o)
{
	bool seen = (!strcmp(a, "--json") && o->json_path) || (!strcmp(a, "--plot") && o->plot_path) ||
		    (!strcmp(a, "--rates") && o->rates) ||
		    (!strcmp(a, "--spread") && o->spread_set);
	if (seen)
		cli_usage_error(cmd, "option '%s' given twice", a);
	return seen;
}

/* Their names, for abbreviations (cli_long_expand) and unknown options. */
static const struct option run_longopts[] = {
	{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
	{"json", required_argument, NULL, 'J'},   {"csv", no_argument, NULL, 'C'},
	{"reproducible", no_argument, NULL, 'R'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
static const struct option sweep_longopts[] = {
	{"config", required_argument, NULL, 'c'}, {"set", required_argument, NULL, 's'},
	{"json", required_argument, NULL, 'J'},   {"csv", no_argument, NULL, 'C'},
	{"reproducible", no_argument, NULL, 'R'}, {"help", no_argument, NULL, 'h'},
	{"rates", required_argument, NULL, 'r'},  {"continue", no_argument, NULL, 'k'},
	{"spread", required_argument, NULL, 'S'}, {"plot", required_argument, NULL, 'P'},
	{NULL, 0, NULL, 0},
};

/* sweep's options given to run ('run --plot c.svg', from docs/results.md's
 * chart) were unknown options like any word: refused naming sweep. 0, or
 * the exit status of the refusal said. */
static int run_refuse_sweep_only(const char *cmd, const char *a)
{
	static const char *const sweep_only[] = {"--rates", "--continue", "--spread", "--plot", NULL};
	if (!strcmp(cmd, "sweep"))
		return 0;
	size_t n = strcspn(a, "=");
	for (int k = 0; sweep_only[k]; k++)
		if (strlen(sweep_only[k]) == n && !strncmp(a, sweep_only[k], n))
			return cli_usage_error(cmd, "option '%s' is sweep's, not run's (run simulates one "
						    "rate); expected 'netloom sweep --rates A:B:STEP' "
						    "with it (see 'netloom sweep --help')",
					       sweep_only[k]);
	return 0;
}

/* One option of run's or sweep's own at argv[*i] (not -c or -s), its value
 * taken from after '=' or from the next word (*i then moves on to it).
 * Returns 0, an exit status after a usage error, or -1 for --help. */
static int run_parse_option(int argc, char **argv, int *i, struct run_opts *o)
{
	const char *cmd = o->cmd, *a = argv[*i];
	/* --json=FILE, --rates=A:B:S, --spread=X: the form getopt's long
	 * options (and --config=/--set= here) take. */
	static const char *const run_flags[] = {"--csv", "--reproducible", "--help", NULL};
	static const char *const sweep_flags[] = {"--csv", "--reproducible", "--help", "--continue", NULL};
	static const char *const run_valued[] = {"--json", NULL};
	static const char *const sweep_valued[] = {"--json", "--rates", "--spread", "--plot", NULL};
	char name[16];
	const char *inl = NULL;
	int split = cli_split_long_value(cmd, a, strcmp(cmd, "sweep") ? run_flags : sweep_flags,
					 strcmp(cmd, "sweep") ? run_valued : sweep_valued, name, sizeof name, &inl);
	if (split == CLI_USAGE)
		return CLI_USAGE;
	if (split)
		a = name;
#define RUN_VALUE() (inl ? inl : argv[++*i])
#define RUN_HAS_VALUE() (inl || *i + 1 < argc)
	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		return -1;
	} else if (run_twice(cmd, a, o)) {
		return CLI_USAGE;
	} else if (!strcmp(a, "--json") && RUN_HAS_VALUE()) {
		/* Refused as read when an option: 'run --json -c x.ini'
		 * blamed 'x.ini' ("unknown option 'x.ini'"). */
		if (cli_output_file_once(cmd, "--json", &o->json_path, RUN_VALUE()))
			return CLI_USAGE;
	} else if (!strcmp(a, "--csv")) {
		o->csv = true;
	} else if (!strcmp(a, "--reproducible")) {
		o->reproducible = true;
	} else if (!strcmp(cmd, "sweep") && !strcmp(a, "--rates") && RUN_HAS_VALUE()) {
		o->rates = RUN_VALUE();
	} else if (!strcmp(cmd, "sweep") && !strcmp(a, "--plot") && RUN_HAS_VALUE()) {
		if (cli_plot_file_once(cmd, "--plot", &o->plot_path, RUN_VALUE()))
			return CLI_USAGE;
	} else if (!strcmp(cmd, "sweep") && !strcmp(a, "--continue")) {
		o->keep_going = true;
	} else if (!strcmp(cmd, "sweep") && !strcmp(a, "--spread") && RUN_HAS_VALUE()) {
		const char *v = RUN_VALUE();
		o->spread_set = true;
		if (!strcmp(v, "points"))
			o->spread = SESSION_SPREAD_POINTS;
		else if (!strcmp(v, "network"))
			o->spread = SESSION_SPREAD_NETWORK;
		else
			return cli_usage_error(cmd, "--spread '%s': expected network or points", v);
	} else if (!strcmp(a, "--json") ||
		   (!strcmp(cmd, "sweep") && (!strcmp(a, "--rates") || !strcmp(a, "--spread") || !strcmp(a, "--plot")))) {
		return cli_usage_error(cmd, "option '%s' needs a value", a);
	} else {
		return cli_unknown_arg(cmd, argv[*i], strcmp(cmd, "sweep") ? run_longopts : sweep_longopts, false);
	}
#undef RUN_VALUE
#undef RUN_HAS_VALUE
	return 0;
}

/* The command line into *o: -c and -s (cli_cfg_opt), then run's or
 * sweep's own options; an empty output name refused. Returns 0, an exit
 * status after a usage error, or -1 for --help. */
static int run_parse_args(int argc, char **argv, struct run_opts *o)
{
	const char *cmd = o->cmd = argv[0];
	const struct option *longopts = strcmp(cmd, "sweep") ? run_longopts : sweep_longopts;
	/* --help anywhere wins over a refusal of another word, as in the
	 * commands read by getopt_long. */
	if (cli_help_asked(argc, argv, "c:s:h", longopts))
		return -1;
	if (cli_long_expand(&o->cfg, cmd, longopts, "c:s:h", argc, argv))
		return CLI_USAGE;
	for (int i = 1; i < argc; i++) {
		int c = cli_cfg_opt(&o->cfg, cmd, argc, argv, &i);
		if (c < 0)
			return -c;
		if (c > 0)
			continue;
		int rc = run_refuse_sweep_only(cmd, argv[i]);
		if (rc == 0)
			rc = run_parse_option(argc, argv, &i, o);
		if (rc != 0)
			return rc;
	}
	struct nl_err err = {0};
	if (o->json_path && !o->json_path[0])
		cli_empty_name("--json", "file", CLI_EXPECT_OUTPUT, &err);
	else if (o->plot_path && !o->plot_path[0])
		cli_empty_name("--plot", "file", CLI_EXPECT_OUTPUT, &err);
	return err.code ? cli_usage_error(cmd, "%s", err.msg) : 0;
}

/* sweep's --rates A:B:STEP, required, into o->a, o->b, o->step. 0, or the
 * exit status of the refusal said. */
static int run_check_rates(struct run_opts *o)
{
	const char *cmd = o->cmd;
	if (strcmp(cmd, "sweep"))
		return 0;
	if (!o->rates)
		return cli_usage_error(cmd, "--rates A:B:STEP is required (e.g. --rates 0.05:0.5:0.05)");
	const char *bad = NULL;
	int bad_len = 0;
	int rates_bad = sweep_parse_rates(o->rates, &o->a, &o->b, &o->step, &bad, &bad_len);
	if (rates_bad == -3)
		return cli_usage_error(cmd, "--rates '%s': '%.*s' is too small to represent (rounds to 0); expected 0 or "
				       "at least 4.9e-324",
				       o->rates, bad_len, bad);
	if (rates_bad == -2)
		return cli_usage_error(cmd, "--rates '%s': more than %d points: expected a larger STEP", o->rates,
				       SWEEP_MAX_POINTS);
	if (rates_bad < 0)
		return cli_usage_error(cmd, "--rates '%s': expected A:B:STEP with 0 <= A <= B <= 1 and STEP > 0",
				       o->rates);
	return 0;
}

/* The outputs against the inputs and each other, and what goes to stdout
 * (o->table). 0, or the exit status of the refusal said. */
static int run_check_outputs(struct run_opts *o)
{
	const char *cmd = o->cmd;
	/* A --json or --plot naming the -c file would replace the
	 * configuration; one naming the other would replace it. */
	struct cli_file in = {"-c", o->cfg.config_path};
	struct cli_file out[2] = {{"--json", o->json_path}, {"--plot", o->plot_path}};
	struct nl_err same = {0};
	if (cli_check_files(&in, 1, out, 2, &same) < 0)
		return cli_usage_error(cmd, "%s", same.msg);
	/* Nor a file its keys name (-s topology=graph:file=g.txt,
	 * placement_map, calibration). A configuration that does not load is
	 * the run's to report; a -c that is not a regular file (a FIFO,
	 * /dev/stdin) is read once, by the run, so only the -s keys are looked
	 * at here and the rest once it is read (run_setup). */
	if ((o->json_path && strcmp(o->json_path, "-")) || (o->plot_path && strcmp(o->plot_path, "-"))) {
		struct cli_cfg_opts keys = o->cfg;
		struct stat st;
		if (keys.config_path && (stat(keys.config_path, &st) != 0 || !S_ISREG(st.st_mode))) {
			keys.config_path = NULL;
			o->check_config_keys = true;
		}
		struct config cfg;
		int rc = cli_cfg_load(&cfg, &keys, &same) < 0 ? 0 : cli_check_config_files(&cfg, out, 2, &same);
		config_release(&cfg);
		if (rc < 0)
			return cli_usage_error(cmd, "%s", same.msg);
	}
	/* With --json - (or --plot -), stdout carries that document alone. */
	bool json_stdout = o->json_path && !strcmp(o->json_path, "-");
	bool plot_stdout = o->plot_path && !strcmp(o->plot_path, "-");
	o->table = !json_stdout && !plot_stdout;
	if (json_stdout && plot_stdout)
		return cli_usage_error(cmd, "--plot - and --json -: both on standard output; expected a file for one of "
				       "them");
	if (o->csv && !o->table)
		return cli_usage_error(cmd, "--csv and --%s -: both on standard output; expected a file for --%s",
				       json_stdout ? "json" : "plot", json_stdout ? "json" : "plot");
	return 0;
}

/* Returns 0, an exit status after a usage error, or -1 for --help (the
 * caller prints it: run_help). */
int cli_run_parse(int argc, char **argv, struct run_opts *o)
{
	int rc = run_parse_args(argc, argv, o);
	if (rc == 0)
		rc = run_check_rates(o);
	if (rc == 0)
		rc = run_check_outputs(o);
	return rc;
}
