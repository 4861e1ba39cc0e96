/* The `netloom` command: one file per subcommand, dispatched from main.c.
 *
 * A subcommand is `int cli_<name>_main(int argc, char **argv)` where
 * argv[0] is the subcommand name; it returns the process exit status:
 * 0 success, 1 a failure of the work itself, 2 bad usage or bad input.
 * Only this folder prints errors and chooses exit codes.
 */
#ifndef NETLOOM_CLI_CLI_H
#define NETLOOM_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

struct nl_err;

/* Exit statuses. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Print "netloom: <msg>" on stderr (one line) and return the exit status
 * that goes with the error code (CLI_USAGE for input errors). */
int cli_report(const struct nl_err *err);

/* Print "netloom <cmd>: <printf message>" on stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The configuration tables of every module (cli_tables.c). */
struct config_table;
const struct config_table *const *cli_config_tables(size_t *n);

/* Subcommands. */
int cli_version_main(int argc, char **argv);
int cli_replay_main(int argc, char **argv);
int cli_trace_main(int argc, char **argv);

#endif
