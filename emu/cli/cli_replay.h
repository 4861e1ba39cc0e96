/* `netloom replay`, private to emu/cli: cli_replay.c (the command line
 * and its checks, the replays, which results go where; -j's threads are
 * core/pool.h's) and cli_replay_report.c (the results as text, CSV and
 * JSON). */
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
