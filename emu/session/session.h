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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netloom/netloom.h"

struct app;
struct trace_archive;
struct app_config;
struct config;
struct config_table;
struct json_t;
struct progress;
struct topo;
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

/* config_init with those tables, and the check of the values named in
 * registries above the tables' modules (backend, placement) that makes
 * a session's or the CLI's configuration refuse an unknown one where it
 * is set. */
void session_config_init(struct config *cfg, struct session_tables *st);

/* "linear, contiguous, ...": the values key placement accepts. */
void session_place_names(char *buf, size_t cap);

/* nl_sim_set with the label its errors start with ("-s" for the CLI's
 * options: "-s: unknown key 'x'"), control characters in them escaped. */
int session_set(nl_sim *s, const char *key, const char *value, const char *label, struct nl_err *err);

/* routing_function as run and sweep resolve it, for a configuration
 * shown without a run (netloom config): when the key is unset, the
 * topology family's default (dor on tori, meshes and the cmesh, min
 * elsewhere) is set in cfg, under the origin a run records. Only the
 * spec's family is read, nothing is built; a spec whose family is not
 * known leaves cfg as it was (a run reports it). */
int session_config_pick_routing(struct config *cfg, struct nl_err *err);

/* Why, under cfg, the topology changes no prediction of the configured
 * backend (its routes_unused, and no cable_latency giving links their own
 * latency), or NULL when it does or cfg does not bind. */
const char *session_topology_unused(const struct config *cfg);

/* The warning a command gives when its topology is one cfg's backend
 * does not see (session_topology_unused), in buf (cap bytes), without the
 * command's prefix: `what` says what that means for the command's
 * results, `doc` where the models are described. False (buf untouched)
 * when there is nothing to say. */
bool session_topology_warning(const struct config *cfg, const char *what, const char *doc, char *buf, size_t cap);

/* The refusals a run makes of cfg's topology, routing_function and
 * traffic specs, for a configuration shown without a run (netloom
 * config): names, parameters and the routing's topology family, with the
 * run's message and its file:line or -s. Nothing is built: a 128k-endpoint
 * network costs no more than a small one; what only the built network
 * shows (a graph file's links, VCs a routing needs, a pattern's endpoint
 * count) is left to the run. */
int session_config_check(const struct config *cfg, struct nl_err *err);

/* Every results document's first keys, the same for each command:
 * netloom_version, netloom_build (version_build()), command (the command
 * as typed: "replay", "topo describe"). Call it on an empty object, so
 * they come first. The analysis commands (emu/cli) write it too; not the
 * documents another command reads back (topo export's JSON) or that
 * results embed (config --json). */
void session_json_head(struct json_t *doc, const char *cmd);

/* The session's configuration (owned by s). */
const struct config *session_config(const nl_sim *s);
/* The configuration as results record it (config_to_json), with a
 * "topology = @FILE" replaced by the spec the file holds. */
struct json_t *session_config_json(const struct config *cfg);
/* XXH64 of the resolved configuration (its JSON, keys sorted: no file
 * names or lines), what mpirun's ranks must agree on (net_mpi_agree_same). */
uint64_t session_config_hash(const nl_sim *s);

/* Whether the last point (the run's; in a sweep's callback, the one just
 * run) ended in warm-up, measuring nothing (net_point.warmup_only; not in
 * the public nl_point, whose layout is part of the ABI). */
bool session_last_point_warmup_only(const nl_sim *s);

struct net_mpi;
/* How a sweep uses MPI ranks (docs/scaling.md). NETWORK: every point is
 * spread over all ranks (router partitions, one exchange per cycle).
 * POINTS: point i runs whole on rank i mod N, in rounds of N points, and
 * every rank gets every point (so all stop at the same one). nl_sim_run's
 * one point is always spread over the network. */
enum session_spread { SESSION_SPREAD_NETWORK, SESSION_SPREAD_POINTS };
/* Run synthetic-traffic points (nl_sim_run, nl_sim_sweep) over the MPI
 * ranks of m (kept by pointer; NULL: this process alone), as spread says.
 * Every rank makes the same calls; the results and the return values are
 * the same on all of them, failures on one rank included (net_mpi_agree).
 * With m NULL and SESSION_SPREAD_POINTS, nl_sim_sweep runs its points
 * side by side on `threads` threads (0: one per online processor), each
 * network on one thread, with the sequential sweep's results. */
void session_set_mpi(nl_sim *s, struct net_mpi *m, enum session_spread spread);

/* Progress lines on stderr, when it is a terminal and NETLOOM_PROGRESS is
 * not 0, for nl_sim_run's and nl_sim_sweep's points: the commands' (run,
 * sweep) choice. Off in a new session: an embedding program's stderr is
 * its own, and netloom.h promises no output. */
void session_set_progress(nl_sim *s, bool on);

/* How the CLI replays: on another network than the configured one
 * (`--topology`, errors then name that option), picking the first routing
 * function of the registry that runs on its family when routing_function
 * is unset. */
struct session_replay_opts {
	const char *topology;  /* NULL: the configured network */
	bool pick_routing;
	struct progress *pg;   /* progress reporting, or NULL */
	/* Opens the trace instead of trace_archive_open (the CLI converts a
	 * foreign trace first), or NULL. */
	int (*open_trace)(void *ctx, const char *path, struct trace_archive **a, struct nl_err *err);
	/* Called once the app exists, before it runs (the CLI's timeline
	 * observers), or NULL. */
	int (*on_app)(void *ctx, struct app *app, const struct trace_manifest *m, struct nl_err *err);
	void *ctx;             /* passed to open_trace and on_app */
	/* Optional: set, when the replay fails as it runs, to whether the
	 * trace failed (its reader, or an op the app refused, NL_EFORMAT),
	 * not the network; a caller names the trace's key (compare). */
	bool *trace_failed;
};

/* nl_sim_replay with options (ro may be NULL). */
int session_replay(nl_sim *s, const char *path, const struct session_replay_opts *ro, struct nl_replay *out,
		   struct nl_err *err);

/* Everything session_replay does before the replay runs: the trace, the
 * backend, the topology, the routing, the placement and the app (ro's
 * open_trace and on_app called), each refusal as session_replay says it.
 * The next session_replay on s, with the same path and ro, runs what was
 * prepared. A caller replaying on several networks prepares them all
 * first, so a network that cannot run is refused before the first one
 * has spent its time (netloom replay -t A -t B). */
int session_replay_prepare(nl_sim *s, const char *path, const struct session_replay_opts *ro, struct nl_err *err);

/* What a replay left, for the CLI's reports; valid until the session
 * changes. NULL when the last run was no replay. */
struct session_replay_view {
	const struct app *app;
	const struct app_config *ac;
	const struct trace_manifest *m;
	const struct topo *topo;     /* NULL: the backend ran without one */
	const char *backend;         /* backend name */
	const char *routing;         /* the routing that ran, canonical spec; "" none */
	const char *routing_given;   /* the same as configured or picked ("min"), for tables */
	const char *placement;       /* "linear" or the placement policy's name */
	struct json_t *net_report;   /* the backend's report object */
	struct json_t *doc;          /* the single-network JSON document */
	bool deadlock;
	const char *compute_why;     /* which recorded time compute replays, and why */
	int comparable;              /* app_recorded_comparable: 1, 0, -1 unknown */
	const char *comparable_why;
};
const struct session_replay_view *session_replay_view(const nl_sim *s);

/* `netloom interfere` (issue 13, docs/placement.md): the jobs of the
 * workload file placed on the configured network, each run alone and all
 * together. */
struct session_interfere_opts {
	struct progress *pg;   /* progress reporting, or NULL */
	/* Opens a job's trace instead of trace_archive_open (the CLI converts
	 * foreign formats), or NULL. job: the line that names it ("w.ini:2:
	 * [job A] key 'trace'"), for what the CLI says about the conversion:
	 * with several jobs a line of dropped calls has to say whose. */
	int (*open_trace)(void *ctx, const char *job, const char *path, struct trace_archive **a, struct nl_err *err);
	void *ctx;
	uint32_t top_links;    /* colliding links listed, 0 = 10 */
	/* Runs at once (threads, the calling one included; 0 = 1): the jobs
	 * alone and the shared run are independent, so up to this many of
	 * them, each with its own network, run side by side (core/pool.h),
	 * pg then counting the runs. The document and the error do not
	 * depend on it. */
	unsigned jobs;
};

/* Run the workload; *doc gets the results document (docs/placement.md,
 * "Interference"; a new reference, the caller decrefs). It holds no
 * wall-clock time: the same configuration, workload and traces give the
 * same bytes. A bad workload fails before anything runs, naming file,
 * line, section, key and value; a job that deadlocks fails naming the run.
 * Uses the session's configuration and topology; changes no results of
 * the session. */
int session_interfere(nl_sim *s, const char *workload, const struct session_interfere_opts *o,
		      struct json_t **doc, struct nl_err *err);

/* `netloom compare` (issue 15, docs/procurement.md): the systems of the
 * study file side by side under its workloads. Every problem of the study
 * (unknown keys, a system that does not build, a missing trace, a trace
 * with more ranks than a system's endpoints) is found before any run:
 * then res->problems holds one line each and err the first; nothing is
 * written. Otherwise every (system, workload, seed) replay runs on
 * o->jobs threads, each result cached in o->dir/cache (keyed by the
 * resolved configuration, the trace's content, placement, seed and
 * version); res->doc and res->markdown get the report (no wall-clock
 * time in either). A replay that fails is a failed cell, not an error. */
struct session_compare_opts {
	const char *dir;       /* output directory (created), holds cache/ */
	unsigned jobs;         /* threads, 0 = 1 (per MPI rank) */
	struct progress *pg;   /* progress reporting, or NULL */
	/* MPI ranks (NULL: this process alone): run i on rank i mod N, every
	 * result on every rank (the same res everywhere); only rank 0 creates
	 * the directory and writes the caches, every rank reads them. */
	struct net_mpi *mpi;
	/* The files the study reads, for the caller to compare with what it
	 * will write (NULL: not asked). While the study is validated, before
	 * anything is run or written: check_file with each file it names,
	 * `what` saying where ("STUDY", "study.ini:9 [workload w] trace",
	 * "study.ini:5 [system a] config"), the path as it is read; then
	 * check_config with each system's resolved configuration, whose keys
	 * name files too (its topology's, placement_map, calibration; origins
	 * "study.ini:6: [system a]" inline, the config file's otherwise). A
	 * negative return is a problem of the study: err's line, with the
	 * others. */
	int (*check_file)(void *ctx, const char *what, const char *path, struct nl_err *err);
	int (*check_config)(void *ctx, const struct config *cfg, struct nl_err *err);
	void *check_ctx;
	/* Once the study has no problem, before the first replay (NULL: not
	 * asked): each system's configuration as its replays and its price
	 * read it (the study's backend set, origins as for check_config), in
	 * study order, and each workload's placement ("linear" when unset),
	 * for the caller's warnings of keys nothing reads. Not on an MPI rank
	 * other than 0. The configurations are freed after the call. */
	void (*on_systems)(void *ctx, const struct config *const *cfgs, size_t n_sys,
			   const char *const *placements, size_t n_wl);
	void *systems_ctx;
};
struct session_compare_result {
	struct json_t *doc;    /* report.json without the execution figures; caller decrefs */
	char *markdown;        /* report.md; caller frees */
	char *problems;        /* validation problems, one per line; caller frees */
	uint32_t runs, executed, cached, failed;
	uint32_t reused;       /* runs given seed 1's result: their placement does not read the seed */
	uint32_t cost_evaluated, cost_cached; /* systems priced, systems whose cost came from the cache */
};
int session_compare(const char *study, const struct session_compare_opts *o, struct session_compare_result *res,
		    struct nl_err *err);

/* Share of the ranks' time spent in MPI calls (communication and waiting)
 * over their run time. */
struct app_results;
double session_comm_share(const struct app_results *res);

/* --- replay from the caller's op sources (session_source.c) ---------------
 * The replay wiring (backend, topology, routing, app) for ranks whose ops
 * the caller supplies: the live server's ranks (adapters/). Optionally one
 * trace replays beside them on endpoints of its own, loading the same
 * network; the figures are then kept per side. */
struct app_source;
struct app_match_info;
struct session_src;
struct session_src_opts {
	const struct app_source *src;   /* world ranks 0..n-1 on endpoints 0..n-1; kept by pointer */
	const char *trace_path;         /* an .nlt archive replayed beside them (world ranks n..), or NULL;
					 * its endpoints: key `placement` on those left free, default
					 * linear (the endpoints after the caller's) */
	const char *trace_opt;          /* what gave trace_path, prefixed to the lines about it
					 * ("--trace: t: is a directory, not a trace file"), or NULL */
	bool wall_compute;              /* live ranks: compute_time auto replays compute ops' durations
					 * (wall); compute_time cpu is refused (NL_ECONFIG: they declare
					 * durations, not CPU time) */
	void (*on_match)(void *ctx, const struct app_match_info *mi); /* matches among src's ranks, or NULL */
	void *match_ctx;
	/* Whether src's rank finished (a live rank that said BYE), for its
	 * side's figures; NULL: every rank did, unless stopped. A stream the
	 * caller ended for it (an evicted live rank) is then no finish. */
	bool (*rank_finished)(void *ctx, uint32_t rank);
	void *finished_ctx;
	/* Called before each op the trace beside pulls, or NULL: a negative
	 * return (filling err) stops the run as the caller's next() does. The
	 * caller's source is asked for nothing once its ranks are done, or
	 * while they wait, so its own checks (a signal) would not run while
	 * the trace replays on. */
	int (*poll)(void *ctx, struct nl_err *err);
	void *poll_ctx;
	/* Why src's rank ended without a finalize, for the deadlock line
	 * (app_set_cut_why; a live rank: evicted, and how), or NULL. */
	const char *(*cut_why)(void *ctx, uint32_t rank);
	void *cut_why_ctx;
};
/* Build over s's configuration (s keeps the topology; the run holds the
 * rest). Errors as replay's: [replay] keys, backend, trace, topology. */
int session_src_new(struct session_src **out, nl_sim *s, const struct session_src_opts *o, struct nl_err *err);
/* Run to the end: 0, NL_EDEADLOCK (ranks wait forever), or an error. */
int session_src_run(struct session_src *r, struct nl_err *err);
/* After session_src_run failed because the caller's op source stopped it
 * (its next() returned an error): the results so far, marked partial
 * (app_stop_results), for session_src_json and session_src_app. */
void session_src_stop_results(struct session_src *r);
uint64_t session_src_now(const struct session_src *r); /* app_now */
const struct app *session_src_app(const struct session_src *r);
uint32_t session_src_trace_ranks(const struct session_src *r); /* 0 without a trace */
/* One side's figures after the run: the caller's ranks (trace 0) or the
 * trace's (1). Latency: arrival - send of the user point-to-point
 * messages within that side (kept only when a trace runs beside). */
struct session_src_figures {
	uint32_t first_rank, ranks;
	uint32_t finished;           /* of them, ranks that finished (all, unless stopped or the
				      * caller's rank_finished says not) */
	uint64_t finish_ps, compute_ps, comm_ps, wait_ps; /* finish: the last finished rank's */
	uint64_t messages;
	double lat_mean_ps;
	uint64_t lat_p50_ps, lat_p99_ps, lat_max_ps;
};
void session_src_side(const struct session_src *r, int trace, struct session_src_figures *f);
/* {"results", "network", "backend"[, "beside_trace": {path, application,
 * placement, endpoints: [the trace ranks'], live: figures, trace:
 * figures}]}; caller owns. */
struct json_t *session_src_json(struct session_src *r, struct nl_err *err);
void session_src_free(struct session_src *r);

#endif
