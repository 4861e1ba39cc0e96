/* netloom: trace-driven, application-level network emulator for HPC
 * interconnects. This is the embeddable public API (docs/api.md); everything
 * else in the library is internal (built with hidden visibility).
 *
 * One handle, nl_sim, is a simulation session: a configuration (INI file,
 * INI string or key/value calls, with the keys `netloom config --keys`
 * lists) and what was built from it. A session runs a synthetic operating
 * point or a sweep on the flit model, replays a trace archive, or is driven
 * message by message (nl_sim_send / nl_sim_advance with a deliver callback).
 *
 * Reentrancy: the library keeps no mutable process-global state (registries
 * are const; RNG, scratch and pools live in the session). Different
 * sessions may be used from different threads at the same time; one
 * session must not be used from two threads at once.
 *
 * Errors: every function that can fail returns 0 or a negative NL_E* code
 * and, when `err` is not NULL, fills it with one line naming the file,
 * key or value at fault and what was expected (control characters of
 * the caller's text it quotes written as \n, \r, \t or \xHH). A failed
 * call leaves the session as it was, except that a run, sweep or replay
 * that fails after its arguments were accepted discards the last results
 * (one refused for its arguments keeps them).
 * A NULL session or required pointer is NL_EINVAL naming the call.
 * A flags argument (nl_sim_sweep, nl_sim_json, nl_sim_write_json) with a
 * bit this header does not define is NL_EINVAL ("nl_sim_json: flags 0x7:
 * unknown bits 0x6; expected NL_JSON_REPRODUCIBLE (0x1) or 0"), so an
 * older library refuses a newer header's flag rather than ignore it.
 *
 * Output: the library prints nothing, on stdout or stderr (the netloom
 * command's progress lines are its own); results come back through the
 * calls, and nl_sim_write_json's "-" writes the JSON to stdout.
 *
 * Callbacks (nl_sim_sweep's on_point, nl_sim_advance's deliver) run while
 * the call holds the session's points and network: from inside them only
 * nl_sim_send (from deliver: the next message at or after the delivery's
 * time) and nl_sim_deadlock_report may be called. Every other call on the
 * session returns NL_ESTATE ("nl_sim_set: called from a callback of
 * nl_sim_sweep; expected after it returns"); nl_sim_free must not be
 * called there.
 *
 * Ownership: the caller owns what it passes in (strings are copied);
 * pointers the library returns (nl_sim_info strings, nl_sim_json text's
 * buffer excepted) belong to the session and stay valid until the next
 * call that changes it, or nl_sim_free.
 *
 * ABI policy: libnetloom.so.MAJOR. Within a major version, functions are
 * only added, never changed or removed; structs with a `size` field (the
 * caller sets it to sizeof) grow only at their end, so an older caller's
 * smaller struct stays valid; the other public structs (nl_err, nl_point,
 * nl_sweep) do not change. Error codes keep their values. Until 1.0 (major 0) the minor version is the ABI version: the
 * SONAME is libnetloom.so.0 and a 0.x release may change the ABI, which
 * the NEWS entry then says. Only symbols marked NL_API are exported.
 */
#ifndef NETLOOM_NETLOOM_H
#define NETLOOM_NETLOOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A build that compiles some of these functions into a library of its
 * own (the preloaded recorder, which must export MPI_* only) defines
 * NL_API empty. */
#ifndef NL_API
#if defined(__GNUC__)
#define NL_API __attribute__((visibility("default")))
#else
#define NL_API
#endif
#endif

/* Library version, "MAJOR.MINOR.PATCH". */
NL_API const char *nl_version(void);

/* --- errors ---------------------------------------------------------------- */

/* X(name, value, message): the one list every error table is made from.
 * Values are stable (ABI). */
#define NL_ERRNO_MAP(X)                                                   \
	X(NL_EINVAL, -1, "invalid argument")                              \
	X(NL_ENOMEM, -2, "out of memory")                                 \
	X(NL_EIO, -3, "input/output error")                               \
	X(NL_ECONFIG, -4, "bad configuration")                            \
	X(NL_ERANGE, -5, "value out of range")                            \
	X(NL_ENOTFOUND, -6, "not found")                                  \
	X(NL_EFORMAT, -7, "malformed input")                              \
	X(NL_ECORRUPT, -8, "corrupt data")                                \
	X(NL_EUNSUPPORTED, -9, "not supported")                           \
	X(NL_EDEADLOCK, -10, "network or application deadlock")          \
	X(NL_ESTATE, -11, "operation not valid in this state")            \
	X(NL_EPROTO, -12, "protocol error")                               \
	X(NL_ETIMEOUT, -13, "timed out")

enum nl_errno {
#define NL_ERR_ENUM_(name, val, msg) name = val,
	NL_ERRNO_MAP(NL_ERR_ENUM_)
#undef NL_ERR_ENUM_
};

#define NL_ERR_MSG_MAX 512

/* One error, as a code and a single line of text (no trailing newline).
 * Caller-owned; zero-initialise it or leave it to the callee. */
struct nl_err {
	int code;                 /* 0 or a negative NL_E* value */
	char msg[NL_ERR_MSG_MAX]; /* "file:field: value 'x': expected ..." */
};

/* "NL_EINVAL" for a code; "0" for 0 (success, which has no NL_ name);
 * "NL_E?" for an unknown one. Static strings. */
NL_API const char *nl_err_name(int code);

/* Generic text for a code ("invalid argument"). Static strings. */
NL_API const char *nl_strerror(int code);

/* --- sessions -------------------------------------------------------------- */

typedef struct nl_sim nl_sim;

/* A new session with the default configuration (torus:k=8x8, dor, uniform
 * traffic at 0.1 flits/cycle/endpoint, seed 0). Free with nl_sim_free.
 * NULL out: NL_EINVAL. */
NL_API int nl_sim_new(nl_sim **out, struct nl_err *err);

/* Free the session and everything it built. NULL is a no-op. Not from
 * inside one of the session's callbacks. */
NL_API void nl_sim_free(nl_sim *s);

/* Configuration. Each call validates what it sets against the key tables
 * (unknown key, bad value: NL_ECONFIG naming it) and on failure changes
 * nothing. Spec values (topology, routing_function, traffic) are text to
 * these calls: they are checked when the session builds them, as
 * docs/configuration.md says: the topology by nl_sim_info and every call
 * that uses it, routing_function by a run, sweep, replay or
 * nl_sim_net_open, traffic by a run or sweep (nl_sim_info builds the
 * topology alone: a routing_function or traffic that does not parse is
 * no error there). Later calls override earlier
 * ones. Changing the configuration discards the last results and any
 * message-level network. A NULL session, key or path is NL_EINVAL. */

/* Read an INI file (BookSim2 key names, sections optional). The relative
 * file names it holds (topology = @FILE, a spec's file=, placement_map,
 * calibration) are read from the file's folder and kept absolute, as
 * `netloom -c` reads them; those of nl_sim_set and nl_sim_load_string
 * from the working directory (docs/configuration.md). Whichever of them
 * names a spec file (topology = @FILE), the names in that file's text are
 * read from its folder. */
NL_API int nl_sim_load_file(nl_sim *s, const char *path, struct nl_err *err);

/* Read INI text; `name` is what errors call it (NULL or "": "<string>"). */
NL_API int nl_sim_load_string(nl_sim *s, const char *ini, const char *name, struct nl_err *err);

/* Set one key: nl_sim_set(s, "topology", "torus:k=4x4", err), or with
 * value NULL a "key=value" string as `netloom -s` takes. Errors start
 * "nl_sim_set: " in both forms ("nl_sim_set: unknown key 'x'"). */
NL_API int nl_sim_set(nl_sim *s, const char *key, const char *value, struct nl_err *err);

/* What the configuration resolved to. Strings belong to the session. */
struct nl_sim_info {
	size_t size;            /* in: sizeof(struct nl_sim_info) (ABI); another value is NL_EINVAL */
	const char *topology;   /* the topology's canonical spec, every parameter given */
	const char *routing;    /* routing_function's canonical spec, every parameter given (as typed if it fails) */
	const char *traffic;    /* traffic pattern spec */
	uint32_t n_routers;
	uint32_t n_endpoints;
	int64_t seed;
	double injection_rate;  /* flits/cycle/endpoint */
	int32_t warmup_periods; /* sample periods of warm-up (0: until converged) */
	int32_t max_samples;    /* sample periods at most, warm-up included (BookSim's rule) */
};

/* Build the topology if needed and describe the session. With
 * routing_function unset, routing is the family's default a run would
 * pick (dor on tori and meshes, min elsewhere); the configuration is not
 * changed. The topology is the one runs, sweeps and the flit backend use;
 * the analytic backend (key backend's default) uses it only when key
 * topology is set (nl_sim_net_open). */
NL_API int nl_sim_info(nl_sim *s, struct nl_sim_info *info, struct nl_err *err);

/* --- synthetic traffic on the flit model ----------------------------------- */

/* One operating point (BookSim2's method: warm-up, measurement until
 * convergence, drain). Latencies are in cycles over the measured packets;
 * rates in flits/cycle/endpoint. */
struct nl_point {
	double offered;        /* configured injection rate */
	double injected;       /* measured */
	double accepted;       /* measured */
	int stable;            /* 0: latency threshold exceeded or drain failed */
	int converged;         /* three converged samples before max_samples */
	int deadlock;          /* ended in a deadlock: no latency figures */
	uint32_t samples;      /* sample periods run */
	uint64_t cycles;       /* simulated in all */
	uint64_t window_cycles; /* measurement window */
	uint64_t flit_hops;    /* router-to-router channel traversals */
	uint64_t packets;      /* measured packets */
	double plat_mean;      /* packet latency: creation to tail ejection */
	uint64_t plat_p50, plat_p99, plat_max;
	double nlat_mean;      /* network latency: head injection to tail ejection */
	double hops_mean;
	double chan_util_mean, chan_util_max; /* flits/cycle per channel */
	double wall_seconds;
	uint64_t deadlock_cycle; /* cycle the deadlock was found at */
};

/* JSON flags (nl_sim_json, nl_sim_write_json); other bits: NL_EINVAL. */
#define NL_JSON_REPRODUCIBLE 1u /* write wall-clock figures as 0: runs compare byte for byte */

/* Run one point at the configured injection_rate. Returns 0, or
 * NL_EDEADLOCK when the network deadlocked: *pt then has deadlock set and
 * the result is kept (nl_sim_json writes it, nl_sim_deadlock_report lists
 * the stuck VCs). Other errors keep no result. pt may be NULL. */
NL_API int nl_sim_run(nl_sim *s, struct nl_point *pt, struct nl_err *err);

/* The same at `rate` flits/cycle/endpoint (0..1, else NL_ERANGE), as a
 * one-off: the configured injection_rate stays as it was, whether the run
 * succeeds or fails (nl_sim_info and a later nl_sim_run use it); the
 * results' JSON configuration records `rate`, as `netloom run -s
 * injection_rate=R` would. */
NL_API int nl_sim_run_rate(nl_sim *s, double rate, struct nl_point *pt, struct nl_err *err);

/* Called after each point of a sweep; a non-zero return stops the sweep:
 * nl_sim_sweep then returns that value and keeps the points run so far
 * (nl_sim_json writes them as the sweep's results, *out summarises them);
 * a negative value also fills err ("sweep stopped by on_point (returned
 * -1) after 2 points", code the value). */
typedef int (*nl_point_fn)(void *ctx, const struct nl_point *pt);

/* nl_sim_sweep's flags; other bits: NL_EINVAL. */
#define NL_SWEEP_CONTINUE 1u /* keep going after an unstable point */

/* The saturation summary of a sweep; rates are -1 when absent. */
struct nl_sweep {
	uint32_t n_points;
	double last_stable_rate;
	double first_unstable_rate;
	double max_accepted;
	double deadlock_rate;
};

/* A load-latency curve: rates lo, lo+step, ... up to hi (each rounded to
 * 12 significant digits), stopping after the first unstable point unless
 * NL_SWEEP_CONTINUE, and always after a deadlock (then NL_EDEADLOCK, with
 * the results kept). 0 <= lo <= hi <= 1 and a finite step > 0, else
 * NL_EINVAL; more than UINT32_MAX points (a tiny step): NL_ERANGE.
 * on_point may be NULL. */
NL_API int nl_sim_sweep(nl_sim *s, double lo, double hi, double step, unsigned flags, nl_point_fn on_point,
			void *ctx, struct nl_sweep *out, struct nl_err *err);

/* The deadlock report of the last run that deadlocked: one line per stuck
 * input VC, or "" (also for a NULL session). Owned by the session. */
NL_API const char *nl_sim_deadlock_report(const nl_sim *s);

/* --- trace replay ---------------------------------------------------------- */

struct nl_replay {
	size_t size;              /* in: sizeof(struct nl_replay) (ABI); another value is NL_EINVAL */
	uint32_t n_ranks;
	int deadlock;             /* the replay deadlocked (NL_EDEADLOCK) */
	double predicted_s;       /* predicted runtime; with deadlock set, no runtime: the
	                           * last finished rank's finish (0 when none finished;
	                           * the JSON writes null) */
	double recorded_s;        /* runtime recorded in the trace, 0 unknown */
	uint64_t messages, bytes; /* messages the replay sent */
};

/* Replay the MPI trace archive at `path` (.nlt) on the configured backend
 * (key `backend`: analytic or flit). Returns 0, or NL_EDEADLOCK with the
 * partial results kept. out may be NULL. A damaged archive is NL_ECORRUPT
 * (nothing kept) even when the replay deadlocked before reaching the
 * damage: the part it left unread is checked first. */
NL_API int nl_sim_replay(nl_sim *s, const char *path, struct nl_replay *out, struct nl_err *err);

/* --- message by message ---------------------------------------------------- */

/* Called for each delivered message: its id and the time (ps) its last
 * byte arrived. */
typedef void (*nl_deliver_fn)(void *ctx, uint64_t msg_id, uint64_t t_ps);

/* Build the configured backend (key `backend`) for message-level use;
 * replaces an earlier one. The flit backend runs over the configured
 * topology (the default torus:k=8x8 when key topology is unset). The
 * analytic backend, as in nl_sim_replay and `netloom serve`, runs over
 * the topology only when key topology is set; without it the network is
 * topology-free: any endpoint numbers (no range check), no router hops,
 * and no contention beyond the endpoints' (link_model none or endpoint;
 * links needs a topology; docs/replay.md "analytic"). The flit
 * backend with routing_function unset runs the family's default, as
 * nl_sim_run and nl_sim_replay do (a default picked for an earlier
 * topology is picked again for the current one). A routing_function set
 * for the analytic backend, which does not run it, is checked as
 * nl_sim_replay checks it, as the flit backend would build it: a typo
 * is NL_ENOTFOUND ("key 'routing_function': unknown routing function
 * 'minn' (did you mean 'min'? ...)"), not ignored. */
NL_API int nl_sim_net_open(nl_sim *s, struct nl_err *err);

/* Hand a message of `bytes` from endpoint src to endpoint dst to the
 * network at now_ps. msg_id is the caller's, returned on delivery. Opens
 * the network first if needed. src or dst outside the network's
 * topology is NL_ERANGE (none for the topology-free analytic network).
 * now_ps before the time the network reached (the last nl_sim_advance's
 * *reached_ps; from its deliver callback, the delivery's time) is
 * NL_ESTATE, on every backend.
 * Beyond what the model's clock holds, NL_ERANGE: now_ps past 2^62 ps
 * (about 53 days), a message too large to packetise (flit: more than
 * 2^32-1 packets) or to serialise in 2^62 ps (analytic). May be called
 * from nl_sim_advance's deliver callback. */
NL_API int nl_sim_send(nl_sim *s, uint64_t now_ps, uint32_t src, uint32_t dst, uint64_t bytes,
		       uint64_t msg_id, struct nl_err *err);

/* Run the network towards until_ps, stopping at the first instant some
 * messages complete and calling deliver for each (deterministic order;
 * NULL: no notification, the stop is the same). *reached_ps: the time
 * reached (until_ps when nothing completed before it); *next_ps: the
 * earliest time anything can happen next (UINT64_MAX when idle). Either
 * may be NULL. until_ps before the time reached: NL_ESTATE. NL_EDEADLOCK
 * when the network stalls.
 *
 * until_ps past 2^62 ps, the latest a send takes (UINT64_MAX: "until
 * nothing is left"), stops at each delivery instant as any advance; when
 * the network runs out of work first, *reached_ps is the time it did
 * (the last delivery's, a few cycles later on the flit backend, whose
 * credits return; the time already reached when nothing was in flight,
 * 0 for a new network), not until_ps, so that later sends are still
 * taken, and *next_ps is UINT64_MAX. An advance to a time up to 2^62 ps
 * moves the clock there, with or without work.
 *
 * A send or advance that fails with anything but NL_EINVAL, NL_ERANGE or
 * NL_ESTATE (those refuse the call and change nothing), such as
 * NL_EDEADLOCK or NL_ENOMEM, leaves the network part-way: every later
 * nl_sim_send and nl_sim_advance is then NL_ESTATE ("the network stopped
 * at an earlier failure (NL_EDEADLOCK); expected nl_sim_net_open first")
 * until nl_sim_net_open or a configuration change builds a new one. */
NL_API int nl_sim_advance(nl_sim *s, uint64_t until_ps, nl_deliver_fn deliver, void *ctx, uint64_t *reached_ps,
			  uint64_t *next_ps, struct nl_err *err);

/* --- results as JSON ------------------------------------------------------- */

/* The last run's, sweep's or replay's results as the JSON document
 * `netloom run/sweep/replay --json` writes (docs/results.md), with a final
 * newline. *out is malloc'd: the caller frees it (NULL out: NL_EINVAL).
 * *len gets its length in bytes, without the terminating NUL; len may be
 * NULL. NL_ESTATE when there are no results. */
NL_API int nl_sim_json(const nl_sim *s, unsigned flags, char **out, size_t *len, struct nl_err *err);

/* The same written atomically to `path` ("-": stdout; NULL: NL_EINVAL). */
NL_API int nl_sim_write_json(const nl_sim *s, unsigned flags, const char *path, struct nl_err *err);

#ifdef __cplusplus
}
#endif

#endif
