/* `netloom replay`, private to emu/cli: cli_replay_args.c (the command
 * line and its checks), cli_replay.c (the replays, which results go where;
 * -j's threads are core/pool.h's) and cli_replay_report.c (the results as
 * text, CSV and JSON). */
#ifndef NETLOOM_CLI_REPLAY_H
#define NETLOOM_CLI_REPLAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "netloom/netloom.h"
#include "session/session.h"

struct app;
struct app_results;
struct trace_manifest;

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

/* One replay of the trace on one network: a session each. */
struct cli_replay_run {
	const char *topology;   /* --topology SPEC, or NULL: the configured network */
	nl_sim *sim;
	const struct session_replay_view *v; /* after the replay */
};

/* --- cli_replay_args.c: the command line. ----------------------------- */

#define CLI_REPLAY_MAX_TOPOS 16

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
	uint64_t jobs;                          /* -j: networks replayed at once (1..64) */
	bool has_jobs;                          /* -j given (a second one is refused) */
};

/* --help's text on stdout (cli_getopt_long's callback; ctx unused). */
void cli_replay_say_usage(void *ctx);

/* Parse the line into *o, the configuration loaded into a first session
 * *sim as the options come (a bad -c file reported first), then check it
 * before any work. --help stops after parsing, *help set. o's arrays are
 * the caller's to free, as *sim. */
int cli_replay_args(int argc, char **argv, nl_sim **sim, struct cli_replay_opts *o, struct nl_err *err, bool *help);

/* A new session with the command line's configuration: files, then -s. */
int cli_replay_session(const struct cli_replay_opts *o, nl_sim **out, struct nl_err *err);

/* --- cli_replay_report.c: the results. ---------------------------------- */

/* The report of one network's replay on f: the trace, the network, the
 * prediction against the recorded runtime, then each rank, the messages,
 * latencies, collectives, busiest links and what the network simulated. */
void cli_replay_report(FILE *f, const struct app *app, const struct trace_manifest *m,
		       const char *trace_path, const char *backend, json_t *net_report,
		       const struct cli_replay_info *info);

/* --csv of one network: a line per rank. */
void cli_replay_csv(FILE *f, const struct app_results *res);

/* Several networks: one row each (text), or one line each (--csv). */
void cli_replay_table(FILE *f, const struct cli_replay_run *runs, size_t n, const struct trace_manifest *m,
		      const char *trace_path, const char *backend, const struct cli_replay_info *info);
void cli_replay_table_csv(FILE *f, const struct cli_replay_run *runs, size_t n,
			  const struct trace_manifest *m, const struct cli_replay_info *info);

/* --json of several networks: one document, NULL when out of memory;
 * t0 the command's start (nl_wall_seconds), for wall_seconds. */
json_t *cli_replay_doc_multi(const struct cli_replay_run *runs, size_t n, bool pick_routing, double t0);

#endif
