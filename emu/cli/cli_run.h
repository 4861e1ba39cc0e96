/* `netloom run` and `netloom sweep`, private to emu/cli: cli_run.c (the
 * session, its table, CSV and JSON, sweep's points and chart) and
 * cli_run_options.c (the command line and its checks). */
#ifndef NETLOOM_CLI_RUN_H
#define NETLOOM_CLI_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "session/session.h"

/* run's or sweep's command line, as cli_run_parse read it. */
struct run_opts {
	struct cli_cfg_opts cfg;
	const char *json_path;
	const char *plot_path; /* sweep: --plot FILE.svg ('-' = stdout, instead of the table) */
	const char *rates;     /* sweep: A:B:STEP */
	bool csv;
	bool reproducible;
	bool keep_going;       /* sweep: continue past the first unstable point */
	enum session_spread spread; /* sweep under mpirun: points or the network over the ranks */
	bool spread_set;       /* --spread given */
	double a, b, step;     /* sweep: --rates parsed */
	bool table;            /* print the table or CSV (not when JSON goes to stdout) */
	const char *cmd;       /* "run" or "sweep" */
	bool check_config_keys; /* -c is not a regular file: its keys checked once read (run_setup) */
	bool quiet;            /* an MPI rank other than 0: prints nothing */
};

/* --- cli_run_options.c: the command line. ------------------------------ */

/* --help's text of `cmd` ("run" or "sweep") on f, the routing functions'
 * and traffic patterns' help after it. */
void cli_run_usage(FILE *f, const char *cmd);
/* The command line into *o: the options, sweep's --rates, the outputs.
 * Returns 0, an exit status after a usage error, or -1 for --help (the
 * caller prints it: run_help). */
int cli_run_parse(int argc, char **argv, struct run_opts *o);

#endif
