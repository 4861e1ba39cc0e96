/* netloom: entry point and subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/version.h"
#include "net/net.h"
#include "netloom/netloom.h"

struct cli_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
};

/* A new subcommand is one file in emu/cli/ plus one line here. */
static const struct cli_cmd cli_cmds[] = {
	{"run", cli_run_main, "simulate one operating point of synthetic traffic"},
	{"sweep", cli_sweep_main, "load-latency curve over a range of injection rates"},
	{"config", cli_config_main, "show the resolved configuration, list keys, convert BookSim configs"},
	{"version", cli_version_main, "print the netloom version"},
	{"trace", cli_trace_main, "inspect, verify, convert and bundle MPI trace archives"},
	{"topo", cli_topo_main, "describe, analyse and export topologies"},
	{"design", cli_design_main, "search a topology design space (HyperX, Equality, FleX, ...)"},
	{"replay", cli_replay_main, "replay an MPI trace on a network model and predict its runtime"},
	{"serve", cli_serve_main, "live emulation: client processes exchange real messages over ZeroMQ"},
	{"cost", cli_cost_main, "cabinets, cables, cost and power of a topology (layout presets)"},
	{"layout", cli_layout_main, "draw a topology's floor plan and longest cables as SVG"},
	{"interfere", cli_interfere_main, "several jobs on one machine: slowdown against running alone, colliding links"},
	{"compare", cli_compare_main, "candidate systems side by side: runtime, cost, power under a study's workloads"},
};

static void cli_print_usage(FILE *f)
{
	fprintf(f, "usage: netloom <command> [options]\n\n"
		   "netloom is a trace-driven network emulator for HPC interconnects.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof cli_cmds / sizeof *cli_cmds; i++)
		fprintf(f, "  %-10s %s\n", cli_cmds[i].name, cli_cmds[i].help);
	fprintf(f, "\n'netloom <command> --help' describes a command's options.\n");
}

static const char cli_version_usage[] =
	"usage: netloom version\n"
	"\n"
	"Print the netloom version and the build (the commit it was built from),\n"
	"as results documents record it.\n";

int cli_version_main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cli_version_usage, stdout);
		return CLI_OK;
	}
	/* Like every other command: an option or argument it does not take
	 * is refused, not ignored. */
	if (argc > 1 && argv[1][0] == '-' && argv[1][1])
		return cli_usage_error("version", "unknown option '%s' (see 'netloom version --help')", argv[1]);
	if (argc > 1)
		return cli_usage_error("version", "unexpected argument '%s'", argv[1]);
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_print_usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		cli_print_usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return cli_version_main(argc - 1, argv + 1);
	/* Under an MPI launcher run and sweep spread their simulations over
	 * the ranks (emu/net/mpi.c), compare its replays, replay its network;
	 * any other command would run once per rank, side by side, writing
	 * the same files. It still joins the ranks' comparison of their
	 * command lines (cli_mpi_open), so that in an MPMD launch whose other
	 * ranks run one of those four, they do not wait for it. */
	uint32_t rank, size;
	if (net_mpi_launched(&rank, &size) && size > 1 && strcmp(argv[1], "run") && strcmp(argv[1], "sweep") &&
	    strcmp(argv[1], "compare") && strcmp(argv[1], "replay")) {
		struct net_mpi *m = NULL;
		int rc = net_mpi_built() ? cli_mpi_open(argc - 1, argv + 1, &m) : 0;
		if (rc == 0 && rank == 0)
			fprintf(stderr,
				"netloom %s: started by an MPI launcher with %u ranks; only 'run', 'sweep', 'compare' and "
				"'replay' spread their simulations over MPI ranks: run '%s' without mpirun\n",
				argv[1], size, argv[1]);
		net_mpi_close(m);
		return rc ? rc : CLI_FAIL;
	}
	for (size_t i = 0; i < sizeof cli_cmds / sizeof *cli_cmds; i++)
		if (!strcmp(argv[1], cli_cmds[i].name))
			return cli_cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "netloom: unknown command '%s' (see 'netloom --help')\n", argv[1]);
	return CLI_USAGE;
}
