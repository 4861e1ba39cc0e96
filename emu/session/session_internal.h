/* Inside the session layer: struct nl_sim, shared by session.c (config,
 * synthetic runs, JSON) and session_replay.c (replay, message level). */
#ifndef NETLOOM_SESSION_SESSION_INTERNAL_H
#define NETLOOM_SESSION_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "core/config.h"
#include "net/net.h"
#include "session/session.h"
#include "traffic/traffic.h"

struct app;
struct app_archive_source;
struct json_t;
struct topo;
struct trace_archive;

enum session_result { SESSION_NONE, SESSION_RUN, SESSION_SWEEP, SESSION_REPLAY };

struct nl_sim {
	struct session_tables tables; /* storage cfg.tables points into */
	struct config cfg;
	bool is_bound;                /* nc, rc, tc, sc hold cfg's values */
	struct net_cfg nc;
	struct router_cfg rc;
	struct traffic_cfg tc;
	struct sim_cfg sc;
	struct topo *topo;            /* built from nc.topology on first need */
	char *routing_spec;           /* nc.routing_function's canonical spec on topo (owned), NULL: not built */
	char *info_routing;           /* nl_sim_info's routing when the pick differs from nc's (owned), or NULL */
	struct net_mpi *mpi;          /* ranks sharing synthetic points (session_set_mpi), or NULL */
	enum session_spread spread;   /* how a sweep uses them */
	bool is_progress;             /* progress lines on a terminal (session_set_progress) */

	/* The last results (kind says which). */
	enum session_result kind;
	struct net_point *points;     /* run: 1; sweep: n_points */
	uint32_t n_points, cap_points;
	struct nl_sweep sweep;
	double run_rate;              /* run: the rate it ran at (nl_sim_run_rate's, not the key's) */
	struct json_t *replay_doc;    /* replay: the whole document */

	/* Replay state, kept for the CLI's report (session_replay_view). */
	struct trace_archive *arch;
	char *arch_path;              /* the caller's path to it (owned): errors about its ops name it */
	struct app_archive_source *asrc;
	struct app *app;
	struct net_backend *replay_net;
	struct json_t *net_report;
	struct json_t *cables;        /* cable_latency's layout (session_cable.c), NULL: off */
	struct app_config ac;
	const struct topo *replay_topo; /* the replay's network, NULL: none */
	char routing[256];            /* the routing that ran, canonical spec; "" none */
	char routing_given[128];      /* the same as configured or picked; "" none */
	char placement[64];           /* "linear" or the emu/place policy that mapped ranks */
	uint32_t *rank_ep;            /* [trace ranks] endpoints under a policy; NULL for linear */
	int comparable;               /* app_recorded_comparable */
	char compute_why[320];
	char comparable_why[320];
	struct session_replay_view view;
	bool is_replay_prepared;      /* session_replay_prepare built the above; the replay has not run */
	double replay_prep_s;         /* the seconds it took (part of the document's wall_seconds) */

	/* Message-level network (nl_sim_net_open). */
	struct net_backend *net;
	const struct topo *net_topo;  /* its topology, NULL: none */
	int net_failed;               /* 0, or the code a send or advance on it failed with that left it
				       * part-way (NL_EDEADLOCK, NL_ENOMEM): it takes no more calls */
	uint64_t net_reached_ps;      /* the time it reached: the last advance's, 0 when new */
	uint64_t net_next_ps;         /* the last advance's next time (UINT64_MAX: idle; new: idle) */
	bool is_net_next_known;       /* no message was sent since net_next_ps was learnt */

	/* The public call whose caller's callback is running ("nl_sim_sweep",
	 * "nl_sim_advance"), or NULL. That call holds pointers into the
	 * session (its points, network, topology) on its stack, so a call
	 * that would free them is refused until it returns. */
	const char *in_callback;
};

/* The caller's err, or *local when it passed NULL (netloom.h allows it):
 * the layers below write each failure's message into err and read its
 * code back from it (nl_err_prefix, config_err_file_line), which with
 * NULL crashed or answered NL_EINVAL. Every public entry point passes
 * its err through this once. */
static inline struct nl_err *session_err(struct nl_err *err, struct nl_err *local)
{
	if (err)
		return err;
	local->code = 0;
	local->msg[0] = '\0';
	return local;
}

/* The check every public entry point `fn` starts with: NL_EINVAL for a
 * NULL session; NL_ESTATE when called from a caller's callback, unless
 * that callback is the one of `allowed_in` (nl_sim_send from
 * nl_sim_advance's deliver callback). One line naming fn either way. */
int session_enter(const nl_sim *s, const char *fn, const char *allowed_in, struct nl_err *err);

/* Room for one more point in s->points: *out, zeroed, at s->points[n_points]
 * (the caller counts it in); NL_ENOMEM. */
int session_point_slot(nl_sim *s, struct net_point **out, struct nl_err *err);

/* What the sweep does with a point that has joined s->points at `rate`:
 * the saturation summary sw, the caller's callback, and whether to stop
 * (the first unstable point unless NL_SWEEP_CONTINUE, any deadlock).
 * Returns 1 to stop, 2 when the callback stopped it (*rc gets its
 * non-zero value), else 0. */
int session_sweep_take(nl_sim *s, double rate, unsigned flags, nl_point_fn on_point, void *ctx, struct nl_sweep *sw,
		       int *rc);

/* The sweep of rates[0..n_rates) with whole points side by side
 * (session_sweep.c): over s->mpi's ranks, or on the `threads` key's
 * threads of this process. The points join s->points and go through
 * session_sweep_take in rate order, as the sequential sweep's; returns
 * the last point's status (0, NL_EDEADLOCK) or a failure, *by_callback
 * set when on_point stopped it. */
int session_sweep_points(nl_sim *s, const double *rates, uint32_t n_rates, unsigned flags, nl_point_fn on_point,
			 void *ctx, struct nl_sweep *sw, bool *by_callback, struct nl_err *err);
int session_sweep_threads(nl_sim *s, const double *rates, uint32_t n_rates, unsigned flags, nl_point_fn on_point,
			  void *ctx, struct nl_sweep *sw, bool *by_callback, struct nl_err *err);

/* Bind the typed configs (once per configuration). */
int session_bind(nl_sim *s, struct nl_err *err);

/* The network backend of key `backend` (value `name`, the bound
 * app_config's); NULL with "FILE:LINE: key 'backend': unknown network
 * backend ..." (or "-s: ...") when there is none of that name. */
const struct net_backend_ops *session_backend_find(const nl_sim *s, const char *name, struct nl_err *err);

/* Build the topology from [network] topology if not built yet. A spec
 * refused starts with `label` when given ("key 'topology'"), and before
 * it the file and line that set it, if a file did. */
int session_topo(nl_sim *s, struct nl_err *err);
int session_topo_as(nl_sim *s, const char *label, struct nl_err *err);
/* The same once s->nc is bound (session_topo_as binds every table first). */
int session_topo_new(nl_sim *s, const char *label, struct nl_err *err);

/* Drop the last results and everything built for them. */
void session_results_clear(nl_sim *s);

/* Drop the message-level network. */
void session_net_close(nl_sim *s);

/* The first routing function in the registry that runs on t's family (dor
 * on tori and meshes, min elsewhere), or NULL: what replays and live
 * sessions use when the configuration names none. */
const char *session_pick_routing(const struct topo *t);

/* Key routing_function := session_pick_routing(s->topo), set from
 * `origin`; nothing when the family has none. s->topo must be built.
 * What a replay with pick_routing does, for a caller that must know the
 * routing before the replay (compare's key). */
int session_set_picked_routing(nl_sim *s, const char *origin, struct nl_err *err);

/* With routing_function unset, the family's default (session_pick_routing)
 * instead of the key's default dor, which runs on tori, meshes and the
 * cmesh only: run, sweep, replay and interfere then run any topology
 * without naming a routing function, as compare and serve do. Nothing
 * when the key is set, no topology is built, or the default is dor. */
int session_default_routing(nl_sim *s, struct nl_err *err);

/* Whether the user set routing_function (a value session_default_routing
 * picked does not count: it is picked again for a new topology). */
bool session_routing_is_set(const nl_sim *s);

/* The routing function a run would use on s->topo, without setting the
 * key: routing_function as set, else the family's default, else the
 * key's (s must be bound). */
const char *session_routing_effective(nl_sim *s);

/* Build routing function `spec` on t with the VCs a flit network gives it
 * (num_vcs / traffic_classes of s's configuration): the registry's checks,
 * before any run; nothing kept. */
int session_route_check(nl_sim *s, const struct topo *t, const char *spec, struct nl_err *err);

/* A routing_function the user set for a backend that does not run it (the
 * analytic one): checked as the flit backend would check it on t
 * (session_route_check), or by name when t is NULL (no topology), so a
 * typo is refused rather than ignored by every caller of such a backend
 * (replay, nl_sim_net_open, serve, interfere). The error starts with key
 * 'routing_function' and the file:line or -s that set it. */
int session_check_unrun_routing(nl_sim *s, const struct topo *t, struct nl_err *err);

/* The emu/place policy of s's key `placement` (`name`, not linear) for
 * topology t, or a one-line NL_ECONFIG (unknown name with the choices; no
 * topology) starting with the file:line or -s that set the key. */
struct place_ops;
int session_place_policy(const nl_sim *s, const char *name, const struct topo *t, const struct place_ops **out,
			 struct nl_err *err);
/* A place_job failure under policy ops: *err prefixed with the key at
 * fault (placement_map for a map, else placement and its value) and where
 * s set it; returns err's code. */
int session_place_failed(const nl_sim *s, const struct place_ops *ops, struct nl_err *err);

/* cable_latency (session_cable.c). With key cable_latency = 1, lay t out
 * by the [layout] keys and give backend b every router-router link's
 * cable propagation delay (one-line errors name the key: a backend without
 * per-link latency, no topology, bad layout keys) and start with the
 * file:line or -s that set it; *info gets a new JSON
 * object describing the layout, NULL when the key is 0. */
int session_cable_apply(nl_sim *s, struct net_backend *b, const struct topo *t, struct json_t **info,
			struct nl_err *err);

/* session_cable_apply in two steps, for a caller that builds several
 * networks of one topology (interfere: each job alone, then all): plan
 * lays t out once for backends of ops (the layout may anneal for
 * seconds) and gives *lat_ps, a new array of t->n_ports channel
 * latencies the caller frees, and *info as above (both NULL when the key
 * is 0); set hands lat_ps to backend b (nothing when NULL). */
struct net_backend_ops;
int session_cable_plan(nl_sim *s, const struct net_backend_ops *ops, const struct topo *t, uint64_t **lat_ps,
		       struct json_t **info, struct nl_err *err);
int session_cable_set(const nl_sim *s, struct net_backend *b, const uint64_t *lat_ps, struct nl_err *err);

/* Synthetic runs use the flit model directly: NL_EUNSUPPORTED when
 * cable_latency = 1. */
int session_cable_refuse_synthetic(nl_sim *s, struct nl_err *err);

#endif
