/* `netloom replay`, private to emu/cli: cli_replay.c (the command line
 * and its checks, the replays, which results go where) and
 * cli_replay_report.c (the results as text, CSV and JSON). */
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

/* --- cli_replay_jobs.c: the networks side by side on threads (-j). ------- */

struct cli_replay_jobs {
	size_t n;      /* networks, 0..n-1, all prepared */
	unsigned jobs; /* threads at most (this one included), 1..64 */
	/* Replay network i: 0 a result (a deadlock is one), or < 0 a failure;
	 * *err its line either way. Called on any of the threads, at most
	 * once per network. */
	int (*run)(void *ctx, size_t i, struct nl_err *err);
	/* Called on the calling thread as soon as network 0 is done (rc its
	 * status), before it takes another network; may be NULL. */
	void (*first_done)(void *ctx, int rc);
	void *ctx;
};

/* Replay o->n networks on up to o->jobs threads: network 0 on the
 * calling thread, first; the others as threads free up, in order. A
 * failed network i stops the threads from starting any network after
 * it. rcs[i] (o->n of them) gets network i's status: 0, < 0, or 1 when it
 * was not run (only after a failed network); errs[i] its line. The
 * threads started here block SIGINT and SIGTERM (core/staged.h: one
 * thread takes them). On a terminal one progress line counts the
 * networks. Returns 0, or NL_ENOMEM (*err) with nothing run. */
int cli_replay_jobs_run(const struct cli_replay_jobs *o, int *rcs, struct nl_err *errs, struct nl_err *err);

#endif
