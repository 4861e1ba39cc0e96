/* `netloom trace`, private to emu/cli: cli_trace.c (the dispatch, the
 * subcommands' usage lines and option scanning, and the subcommands that
 * write: encode, convert, import, export, pack, unpack) and
 * cli_trace_inspect.c (info, dump and verify, which read an archive and
 * report on it). A subcommand is `int f(int argc, char **argv)`, argv[0]
 * its name, returning the exit status (cli.h). */
#ifndef NETLOOM_CLI_TRACE_H
#define NETLOOM_CLI_TRACE_H

#include <getopt.h>

struct nl_err;

/* Codes of the long-only options (past a char, as getopt_long's others). */
enum { SUB_OPT_JSON = 256, SUB_OPT_RANK, SUB_OPT_OTF2, SUB_OPT_CONFIG };

/* --- cli_trace.c: usage lines and option scanning. ---------------------- */

/* `netloom trace NAME --help`: its usage and help on stdout; CLI_OK, or
 * CLI_USAGE for a name that is no subcommand. */
int cli_trace_sub_help(const char *name);

/* A usage error of subcommand name, one line: fmt with the word arg (of
 * the command line, escaped to one line) and the subcommand's usage.
 * Returns CLI_USAGE. */
int cli_trace_sub_usage(const char *name, const char *fmt, const char *arg);

/* Start a getopt_long scan of argv (argv[0] the subcommand). */
void cli_trace_getopt_start(void);

/* getopt_long's complaint c as subcommand name says it, with its usage
 * (a typo of a long option gets its nearest). Returns CLI_USAGE. */
int cli_trace_getopt_error(const char *name, char **argv, const struct option *longopts, int c);

/* Progress on stderr when it is a terminal; ctx a struct progress. */
void cli_trace_progress(void *ctx, double fraction);

/* Exit status for a failed library call on user input (cli_report). */
int cli_trace_report(const struct nl_err *e);

/* --- cli_trace_inspect.c: the subcommands that read. -------------------- */

int cli_trace_info(int argc, char **argv);
int cli_trace_dump(int argc, char **argv);
int cli_trace_verify(int argc, char **argv);

#endif
