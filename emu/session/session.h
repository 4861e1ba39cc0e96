/* The session layer: the one place that wires configuration → topology →
 * network backend → application, behind the public nl_sim API
 * (include/netloom/netloom.h). It sits above app, net, layout and traces
 * and below cli, so outputs of one module become settings of another here
 * (never by one of them including the other). A session owns everything it
 * builds; nothing is process-global, so sessions run in parallel threads.
 *
 * This header is for the CLI: what it needs beyond the public API to print
 * its human-readable reports (the app's results, the trace manifest).
 */
#ifndef NETLOOM_SESSION_SESSION_H
#define NETLOOM_SESSION_SESSION_H

#include <stddef.h>

#include "netloom/netloom.h"

struct app;
struct config;
struct config_table;
struct json_t;
struct progress;
struct trace_manifest;

/* Every module's configuration tables, in the order `netloom config
 * --dump` prints them: [network], [router], [traffic], [simulation],
 * [replay], then each network backend's own table (registry order) not
 * already listed. Caller-provided storage, so no list is process-global. */
#define SESSION_MAX_TABLES 16
struct session_tables {
	const struct config_table *t[SESSION_MAX_TABLES];
	size_t n;
};

/* Fill st and return its array (*n entries). */
const struct config_table *const *session_config_tables(struct session_tables *st, size_t *n);

/* The session's configuration (owned by s). */
const struct config *session_config(const nl_sim *s);

/* Replay with progress reporting (pg may be NULL); nl_sim_replay is this
 * with NULL. */
int session_replay(nl_sim *s, const char *path, struct progress *pg, struct nl_replay *out, struct nl_err *err);

/* After a replay (also one that deadlocked): the app, the trace's
 * manifest, the backend's name and its report object. Owned by s; NULL
 * when the last run was no replay. */
const struct app *session_app(const nl_sim *s);
const struct trace_manifest *session_manifest(const nl_sim *s);
const char *session_backend_name(const nl_sim *s);
struct json_t *session_net_report(const nl_sim *s);

#endif
