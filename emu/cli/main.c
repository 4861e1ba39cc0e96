/* netloom: entry point and subcommand dispatch. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "cli/cli.h"
#include "cli/install_paths.h"
#include "core/config.h"
#include "core/staged.h"
#include "core/version.h"
#include "net/net.h"
#include "netloom/netloom.h"

struct cli_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
	bool spreads; /* spreads its work over MPI ranks (under a launcher, the others refuse) */
	bool has_subcommands; /* takes one first ('netloom topo describe'): 'help topo describe' is its --help */
};

/* A new subcommand is one file in emu/cli/ plus one line here. */
static const struct cli_cmd cli_cmds[] = {
	{"run", cli_run_main, "simulate one operating point of synthetic traffic", true, false},
	{"sweep", cli_sweep_main, "load-latency curve over a range of injection rates", true, false},
	{"config", cli_config_main, "show the resolved configuration, list keys, convert BookSim configs", false, false},
	{"version", cli_version_main, "print the netloom version", false, false},
	{"trace", cli_trace_main, "inspect, verify, convert and bundle MPI trace archives", false, true},
	{"topo", cli_topo_main, "describe, analyse and export topologies", false, true},
	{"design", cli_design_main, "search a topology design space (HyperX, Equality, FleX, ...)", false, true},
	{"replay", cli_replay_main, "replay an MPI trace on a network model and predict its runtime", true, false},
	{"serve", cli_serve_main, "live emulation: client processes exchange real messages over ZeroMQ", false, false},
	{"cost", cli_cost_main, "cabinets, cables, cost and power of a topology (layout presets)", false, false},
	{"layout", cli_layout_main, "draw a topology's floor plan and longest cables as SVG", false, false},
	{"interfere", cli_interfere_main, "several jobs on one machine: slowdown against running alone, colliding links", false, false},
	{"compare", cli_compare_main, "candidate systems side by side: runtime, cost, power under a study's workloads", true, false},
};

static void cli_print_usage(FILE *f)
{
	fprintf(f, "usage: netloom <command> [options]\n\n"
		   "netloom is a trace-driven network emulator for HPC interconnects.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof cli_cmds / sizeof *cli_cmds; i++)
		fprintf(f, "  %-10s %s\n", cli_cmds[i].name, cli_cmds[i].help);
	fprintf(f, "\n'netloom <command> --help' (or 'netloom help <command> [<subcommand>]') describes\n"
		   "a command's options.\n"
		   "\nExit status: 0 done; 1 the work failed (a deadlock, out of memory, an output that\n"
		   "could not be written after the work; for serve also every rank evicted after its\n"
		   "timeout); 2 a bad command line, configuration, input or output (checked before the\n"
		   "work); 3 where a command's --help says (a chart not drawn, a BookSim key not\n"
		   "mapped). Errors and warnings are one line on stderr that starts with the command\n"
		   "('netloom run: ...', 'netloom trace convert: ...').\n");
	/* Where meson install put them (README.md, "Installing"): a user
	 * without a clone finds the samples the docs replay, and the docs
	 * the help texts name. */
	fprintf(f, "\ninstalled by 'meson install' (README.md, section Installing):\n"
		   "  sample traces     %s\n"
		   "  example configs   %s\n"
		   "  docs (docs/X.md)  %s\n"
		   "e.g. 'netloom replay %s/lammps-lj-16.nlt'\n",
		NETLOOM_SAMPLES_DIR, NETLOOM_EXAMPLES_DIR, NETLOOM_DOC_DIR, NETLOOM_SAMPLES_DIR);
}

static const char cli_version_usage[] =
	"usage: netloom version\n"
	"\n"
	"Print the netloom version and the build (the commit it was built from),\n"
	"as results documents record it (netloom_build, docs/results.md).\n"
	"\n"
	"Exit status: 0 printed; 1 stdout could not be written; 2 an option or argument\n"
	"(it takes none but -h, --help).\n";

/* quiet: an MPI rank other than 0, which prints nothing and returns
 * what rank 0 does. */
static int cli_version(int argc, char **argv, bool quiet)
{
	/* --help anywhere, as getopt_long reads it (the only option). */
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	if (cli_help_asked(argc, argv, ":h", longopts)) {
		if (!quiet)
			fputs(cli_version_usage, stdout);
		return CLI_OK;
	}
	/* A last '--' ends the options, as getopt_long reads it in the other
	 * commands (it was refused as an unknown option '--'). */
	if (argc == 2 && !strcmp(argv[1], "--"))
		argc = 1;
	/* Like every other command: an option or argument it does not take
	 * is refused, not ignored. */
	if (argc > 1 && quiet)
		return CLI_USAGE;
	if (argc > 1 && argv[1][0] == '-' && argv[1][1])
		return cli_usage_error("version", "unknown option '%s' (see 'netloom version --help')", argv[1]);
	if (argc > 1)
		return cli_usage_error("version", "unexpected argument '%s'", argv[1]);
	if (quiet)
		return CLI_OK;
	/* The build: the commit (and a hash of uncommitted edits) the
	 * binary was built from, what compare's cache and every results
	 * document record (scripts/build_id.sh); the version alone when not
	 * built from a git checkout. */
	if (strcmp(version_build(), nl_version()))
		printf("netloom %s (build %s)\n", nl_version(), version_build());
	else
		printf("netloom %s\n", nl_version());
	return CLI_OK;
}

int cli_version_main(int argc, char **argv)
{
	return cli_version(argc, argv, false);
}

static const struct cli_cmd *cli_find(const char *name)
{
	for (size_t i = 0; i < sizeof cli_cmds / sizeof *cli_cmds; i++)
		if (!strcmp(name, cli_cmds[i].name))
			return &cli_cmds[i];
	return NULL;
}

/* "netloom: unknown command 'runn' (did you mean 'run'? see 'netloom
 * --help')" on stderr. */
static void cli_unknown_command(const char *name)
{
	const char *names[sizeof cli_cmds / sizeof *cli_cmds + 1];
	size_t n = 0;
	for (size_t i = 0; i < sizeof cli_cmds / sizeof *cli_cmds; i++)
		names[n++] = cli_cmds[i].name;
	names[n++] = "help";
	const char *near = config_name_near(name, strlen(name), names, n);
	fprintf(stderr, "netloom: unknown command '%s' (%s%s%ssee 'netloom --help')\n", name, near ? "did you mean '" : "",
		near ? near : "", near ? "'? " : "");
}

/* Whether command `name` takes a subcommand first ('netloom topo
 * describe'), as its --help says ('netloom topo <subcommand> --help'). */
static bool cli_has_subcommands(const char *name)
{
	const struct cli_cmd *c = cli_find(name);
	return c && c->has_subcommands;
}

/* What prints only (usage, the version) and the refusal of an unknown
 * command: quiet, an MPI rank other than 0, prints nothing and returns
 * what rank 0 does, so a launch says it once. A command found is
 * returned in *cmd (its work is the caller's). */
static int cli_main_local(int argc, char **argv, bool quiet, const struct cli_cmd **cmd)
{
	*cmd = NULL;
	if (argc < 2) {
		if (!quiet)
			cli_print_usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		/* 'help CMD' with a known CMD is CMD --help (main rewrote it);
		 * anything else after it was ignored, the usage printed. */
		if (argc > 2 && !cli_find(argv[2])) {
			if (!quiet)
				cli_unknown_command(argv[2]);
			return CLI_USAGE;
		}
		/* Refused as help's own argument, under its name, as every
		 * command names itself (cli_usage_error). */
		if (argc > 2) {
			bool sub = argc > 4 && cli_has_subcommands(argv[2]); /* 'help topo describe' is rewritten */
			if (!quiet && sub)
				cli_usage_error("help",
						"unexpected argument '%s' after '%s %s %s'; expected 'netloom %s %s --help'",
						argv[4], argv[1], argv[2], argv[3], argv[2], argv[3]);
			else if (!quiet)
				cli_usage_error("help", "unexpected argument '%s' after '%s %s'; expected 'netloom %s --help'",
						argv[3], argv[1], argv[2], argv[2]);
			return CLI_USAGE;
		}
		if (!quiet)
			cli_print_usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return cli_version(argc - 1, argv + 1, quiet);
	*cmd = cli_find(argv[1]);
	if (*cmd)
		return CLI_OK;
	if (!quiet)
		cli_unknown_command(argv[1]);
	return CLI_USAGE;
}

/* What rank 0 says for a launch that runs no command (cli_mpi_stop_say):
 * the usage, the version or an unknown command's refusal, or the refusal
 * of a command that does not spread over the ranks. */
struct main_say {
	int argc;
	char **argv;
	uint32_t size;
};

static void main_say(void *ctx)
{
	const struct main_say *x = ctx;
	const struct cli_cmd *c;
	cli_main_local(x->argc, x->argv, false, &c);
	if (c)
		fprintf(stderr,
			"netloom %s: started by an MPI launcher with %u ranks; only 'run', 'sweep', 'compare' and "
			"'replay' spread their simulations over MPI ranks: run '%s' without mpirun\n",
			x->argv[1], x->size, x->argv[1]);
}

/* Raise the soft limit on open files to the hard one: serve --record
 * holds a stream file per rank (and a connection per client), trace
 * convert and import a temporary stream per rank of a trace whose ranks
 * interleave, so the usual soft limit of 1024 stopped them near 1,000
 * ranks although the hard limit allowed more. Many HPC tools do the same;
 * systemd keeps the soft limit at 1024 only for programs using select(2),
 * which netloom does not. A failure leaves the limit as it was: the
 * commands that need more say so. */
static void main_raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	uint32_t rank, size;
	/* What the programs netloom runs (gnuplot) start with, as it did. */
	cli_child_note_start();
	main_raise_nofile();
	/* A file size limit is a full disk: status 1, one line, no cut file
	 * (docs/results.md), not death by SIGXFSZ (153) with it left. */
	out_signals_ignore_xfsz();
	/* 'netloom help run' printed netloom's usage, not run's: it is
	 * 'netloom run --help', whatever the command (under mpirun too). */
	char *help_argv[5];
	bool is_help = argc > 1 && (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
	if (argc == 3 && is_help && cli_find(argv[2])) {
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		help_argv[2] = "--help";
		help_argv[3] = NULL;
		argv = help_argv;
	}
	/* 'netloom help topo describe' is 'netloom topo describe --help' (it
	 * was refused, naming 'netloom topo --help'); an unknown subcommand
	 * is refused by its command. */
	if (argc == 4 && is_help && cli_has_subcommands(argv[2])) {
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		help_argv[2] = argv[3];
		help_argv[3] = "--help";
		help_argv[4] = NULL;
		argv = help_argv;
	}
	const bool ranks = net_mpi_launched(&rank, &size) && size > 1;
	const struct cli_cmd *c = argc > 1 ? cli_find(argv[1]) : NULL;
	/* Every line a command says names it (cli_set_command), under a
	 * launcher too, where the ranks compare their command lines first;
	 * an unknown command's refusal says "netloom: ". */
	if (c)
		cli_set_command(c->name);
	/* Every command ends through cli_stdout_finish, so none can forget
	 * it: a result lost on stdout (a full disk, /dev/full, a closed pipe)
	 * is one line and exit status 1, never 0 (run, sweep, replay and
	 * compare call it themselves as well, before their ranks agree on
	 * the status; it says a failure once). */
	if (!ranks || (c && c->spreads)) {
		int rc = cli_main_local(argc, argv, false, &c);
		if (c) {
			/* SIGINT, SIGTERM, SIGHUP: what the command has staged (an
			 * output's temporary file, --otf2's streams, trace
			 * export's DIR.tmp-XXXXXX) is removed, then the process
			 * ends by the signal; with nothing staged (the work) it
			 * ends at once, as without a handler (core/staged.h).
			 * Here, once, so no command can miss it: a command with
			 * its own handler (serve's session) puts this one back
			 * when it ends. */
			out_signals_catch();
			rc = c->main(argc - 1, argv + 1);
			/* After the work, once for the whole command (a sweep's
			 * networks, compare's replays), by each rank concerned. */
			cli_say_threads_short(rank, ranks ? size : 1);
		}
		return cli_stdout_finish(rc, 0);
	}
	/* Under an MPI launcher of several ranks run and sweep spread their
	 * simulations over the ranks (emu/net/mpi.c), compare its replays,
	 * replay its network; any other command would run once per rank,
	 * side by side, writing the same files, and is refused. Usage, the
	 * version and an unknown command's refusal write no file and are
	 * said once, by rank 0 (docs/scaling.md). All first join the ranks'
	 * comparison of their command lines (cli_mpi_stop_say), so that in an
	 * MPMD launch whose other ranks run one of those four, they do not
	 * wait for them. */
	struct main_say x = {.argc = argc, .argv = argv, .size = size};
	int rc = cli_main_local(argc, argv, true, &c); /* every rank's status, quietly */
	int agreed = cli_mpi_stop_say(argc - 1, argv + 1, CLI_OK, main_say, &x);
	if (agreed != CLI_OK)
		return agreed;
	/* The refused command: a usage error (status 2, docs/results.md),
	 * as an unknown command is; nothing ran. */
	return cli_stdout_finish(c ? CLI_USAGE : rc, 0);
}
