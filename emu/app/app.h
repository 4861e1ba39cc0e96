/* The application layer: MPI-semantics replay of per-rank operation streams.
 *
 * Each rank is a state machine over its stream of trace operations
 * (traces/trace.h): compute intervals advance its clock; point-to-point
 * calls become messages handed to a net_backend (eager below a threshold,
 * rendezvous RTS/CTS/DATA above it); receives match on (source, tag,
 * communicator) with wildcards and the non-overtaking rule; collectives
 * are decomposed into point-to-point by named algorithms, chosen per
 * collective by configuration or, by default, by Open MPI's fixed decision
 * rules. A discrete-event core in picoseconds orders everything by (time,
 * sequence), so a replay is deterministic. A replay whose ranks wait
 * forever stops with a deadlock report instead of hanging.
 *
 * Operations come from an app_source: one next() callback per rank, so
 * tests feed synthetic lists and the archive reader streams a .nlt file.
 * Replay keeps one operation per rank (plus what in-flight requests need),
 * so its memory does not grow with the trace's length.
 */
#ifndef NETLOOM_APP_APP_H
#define NETLOOM_APP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/param.h"
#include "traces/trace.h"

struct config;
struct app_latency;
struct config_table;
struct json_t;
struct net_backend;
struct nl_err;
struct progress;
struct trace_archive;

/* --- configuration ([replay] section) -------------------------------------- */

/* Collectives with their own algorithm key (coll_<name>_algorithm). The
 * non-blocking variant of a collective uses its blocking key. */
#define APP_COLL_MAP(X)                          \
	X(APP_COLL_BARRIER, "barrier")           \
	X(APP_COLL_BCAST, "bcast")               \
	X(APP_COLL_REDUCE, "reduce")             \
	X(APP_COLL_ALLREDUCE, "allreduce")       \
	X(APP_COLL_GATHER, "gather")             \
	X(APP_COLL_GATHERV, "gatherv")           \
	X(APP_COLL_SCATTER, "scatter")           \
	X(APP_COLL_SCATTERV, "scatterv")         \
	X(APP_COLL_ALLGATHER, "allgather")       \
	X(APP_COLL_ALLGATHERV, "allgatherv")     \
	X(APP_COLL_ALLTOALL, "alltoall")         \
	X(APP_COLL_ALLTOALLV, "alltoallv")       \
	X(APP_COLL_ALLTOALLW, "alltoallw")       \
	X(APP_COLL_REDUCE_SCATTER, "reduce_scatter") \
	X(APP_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatter_block") \
	X(APP_COLL_SCAN, "scan")                 \
	X(APP_COLL_EXSCAN, "exscan")

enum app_coll {
#define APP_COLL_ENUM_(name, text) name,
	APP_COLL_MAP(APP_COLL_ENUM_)
#undef APP_COLL_ENUM_
	APP_COLL__COUNT
};

/* Algorithm names (the values of coll_<name>_algorithm). Which ones a
 * collective accepts is in its key's choice list; docs/replay.md. The
 * last three are outcomes, never choices, counted in coll_alg_used:
 * Rabenseifner falling back as Open MPI's does when the element count
 * (8-byte elements assumed) is below the largest power of two <= p, and a
 * blocking bcast/reduce/allreduce of count 0, which Open MPI returns from
 * at once. */
#define APP_ALG_MAP(X)                                        \
	X(APP_ALG_AUTO, "auto")                               \
	X(APP_ALG_LINEAR, "linear")                           \
	X(APP_ALG_BINOMIAL, "binomial")                       \
	X(APP_ALG_KNOMIAL, "knomial")                         \
	X(APP_ALG_BINARY, "binary")                           \
	X(APP_ALG_CHAIN, "chain")                             \
	X(APP_ALG_RECURSIVE_DOUBLING, "recursive_doubling")   \
	X(APP_ALG_RECURSIVE_HALVING, "recursive_halving")     \
	X(APP_ALG_RING, "ring")                               \
	X(APP_ALG_BRUCK, "bruck")                             \
	X(APP_ALG_PAIRWISE, "pairwise")                       \
	X(APP_ALG_NEIGHBOR, "neighbor")                       \
	X(APP_ALG_SCATTER_ALLGATHER, "scatter_allgather")     \
	X(APP_ALG_SCATTER_ALLGATHER_RING, "scatter_allgather_ring") \
	X(APP_ALG_RABENSEIFNER, "rabenseifner")               \
	X(APP_ALG_REDUCE_BCAST, "reduce_bcast")               \
	X(APP_ALG_GATHER_BCAST, "gather_bcast")               \
	X(APP_ALG_RABENSEIFNER_LINEAR, "rabenseifner->linear") \
	X(APP_ALG_RING_RD, "ring->recursive_doubling") \
	X(APP_ALG_ZERO_COUNT, "zero-count")

enum app_alg {
#define APP_ALG_ENUM_(name, text) name,
	APP_ALG_MAP(APP_ALG_ENUM_)
#undef APP_ALG_ENUM_
	APP_ALG__COUNT
};

/* "binomial" for APP_ALG_BINOMIAL; NULL when out of range. */
const char *app_alg_name(unsigned alg);
/* "allreduce" for APP_COLL_ALLREDUCE; NULL when out of range. */
const char *app_coll_name(unsigned coll);

/* Rendezvous protocols: RTS, CTS, then the data (the sender pushes), or RTS
 * then the receiver pulls the data (RDMA read, or the single copy of Open
 * MPI's shared-memory transport) and answers FIN. */
enum { APP_RNDV_RTS_CTS, APP_RNDV_GET };

/* What a recorded compute interval stands for (key compute_time): the
 * wall-clock gap between MPI calls, or the thread CPU time the rank used
 * in it (format version 2 recordings). auto is resolved against the trace
 * by app_compute_time_resolve. */
enum { APP_COMPUTE_AUTO, APP_COMPUTE_WALL, APP_COMPUTE_CPU };

/* The replay's resolved settings (bound from the [replay] table). */
struct app_config {
	char backend[PARAM_STR_MAX]; /* net_backend name; config strings are up to PARAM_STR_MAX */
	int64_t eager_threshold;  /* bytes: messages up to this size go eagerly */
	int rndv_protocol;        /* APP_RNDV_* */
	double cpu_factor;        /* compute intervals are multiplied by this */
	int compute_time;         /* APP_COMPUTE_*: which recorded time compute ops replay */
	double cpu_flops;         /* flop/s for TOP_COMPUTE_FLOPS */
	int64_t knomial_radix;    /* k of the k-nomial bcast tree */
	int coll_alg[APP_COLL__COUNT]; /* enum app_alg per collective */
	/* Rank -> endpoint (issue 13): "linear" (rank r on endpoint r) or an
	 * emu/place policy; resolved by the session layer, which owns the
	 * topology. */
	char placement[PARAM_STR_MAX];
	char placement_map[PARAM_STR_MAX]; /* the map policy's file */
	int64_t placement_seed;
	int64_t ranks_per_node;   /* 1..APP_MAX_RANKS_PER_NODE */
	int placement_inner;      /* enum place_inner: 0 linear, 1 round-robin */
};

/* The most ranks that share one endpoint: key ranks_per_node of a
 * replay and of a workload's [job] alike. */
#define APP_MAX_RANKS_PER_NODE 1048576

/* The [replay] configuration table (keys: backend, eager_threshold,
 * rndv_protocol, cpu_factor, cpu_flops, coll_knomial_radix,
 * coll_<name>_algorithm). The network's own keys (topology, packet_bytes,
 * ...) are in net.h's tables. */
extern const struct config_table app_config_table;

/* Bind the [replay] keys of `cfg` (defaults when cfg is NULL). Translates
 * each coll_<name>_algorithm choice to enum app_alg. */
int app_config_bind(const struct config *cfg, struct app_config *out, struct nl_err *err);

/* "auto", "wall", "cpu". */
const char *app_compute_time_name(int v);

/* Resolve ac->compute_time against the trace's manifest: auto becomes cpu
 * when the recording ran more ranks than cores on a host and its compute
 * ops carry CPU time, else wall. cpu on a trace without CPU time fails
 * (key, value, what was expected). `why` gets one line saying which time
 * was chosen and why. */
int app_compute_time_resolve(struct app_config *ac, const struct trace_manifest *m, char *why, size_t cap,
			     struct nl_err *err);

/* Whether the trace's recorded runtime can be compared with a prediction:
 * 1 yes (at most one rank per core when recorded), 0 no (ranks shared
 * cores, so the recorded time includes CPU time-sharing, which replay does
 * not model), -1 unknown (the archive does not say: format version 1,
 * importers). `why` gets one line for the report. */
int app_recorded_comparable(const struct trace_manifest *m, char *why, size_t cap);

/* --- operation sources ---------------------------------------------------- */

/* Next operation of `rank`: 1 with *op filled, 0 at the end of the rank's
 * stream, or a negative error (filling *err). Pointers inside *op must stay
 * valid until the next call for the same rank. Ranks are pulled in any
 * order; each rank's operations are pulled in stream order, at most one
 * ahead of the one being replayed. */
typedef int (*app_next_op_fn)(void *ctx, uint32_t rank, struct trace_op *op, struct nl_err *err);

/* What replay reads: ranks, communicators and one stream per rank. */
struct app_source {
	uint32_t n_ranks;
	uint32_t n_comms;
	const struct trace_comm *comms; /* world (id 0) and self (id 1) may be omitted */
	app_next_op_fn next;
	void *ctx;
	uint64_t total_ops;             /* for progress; 0 = unknown */
	/* A collective's 0 bytes may stand for a size the source did not
	 * know (DUMPI's datatypes of unknown size, OTF2's byte totals), so
	 * it does not prove count 0: such collectives are replayed in full,
	 * not as zero-count. */
	bool zero_bytes_unknown;
	/* The file the ops come from (the caller's path), or NULL. Set, an
	 * op the replay refuses reads "NAME: rank R op N (kind): ...", and
	 * next's own errors pass as they are: they name the file and rank
	 * themselves (an archive's reader: "NAME: rank R, offset O: ...").
	 * NULL: "trace rank R op N ...", R the app's rank. */
	const char *name;
};

/* A source streaming from an open archive: one trace_rank_reader per rank,
 * opened on first use. The archive must outlive the source. */
struct app_archive_source;
int app_archive_source_new(struct app_archive_source **s, struct trace_archive *a,
			   struct app_source *out, struct nl_err *err);
void app_archive_source_free(struct app_archive_source *s);
/* Whether one of s's streams failed to open or read (a frame that does not
 * decompress): an error the replay returned was then the trace's, not the
 * network's. False for NULL. */
bool app_archive_source_failed(const struct app_archive_source *s);
/* Read every stream of s to its end from where the replay left it, as the
 * reader checks it (frame headers, zstd checksums, op encodings, op
 * counts and hashes against the end chunk and the manifest), one frame
 * at a time: for a replay that stopped before the end (a deadlock, the
 * network failing), whose unread part may be damaged. Streams read to
 * their end already are skipped. 0 when all are intact, else the
 * reader's error naming the file, rank and offset (s then counts as
 * failed: app_archive_source_failed). s hands out no more ops after it. */
int app_archive_source_check_rest(struct app_archive_source *s, struct nl_err *err);
/* Run each rank's stream `repeat` times back to back, as a program whose
 * main loop runs that many times: Init only in the first pass, Finalize
 * only in the last; no barrier between passes (issue 13, a workload's
 * repeat count). Before the first op is pulled; src's total_ops scales. */
int app_archive_source_set_repeat(struct app_archive_source *s, struct app_source *src, uint32_t repeat,
				  struct nl_err *err);

/* A synthetic job (issue 13, background traffic in `netloom interfere`):
 * n_ranks ranks, each `steps` times computing interval_ps (as both wall
 * and CPU time) then exchanging by the pattern: alltoall (MPI_Alltoall of
 * `bytes` per peer), shift (MPI_Sendrecv of `bytes` to rank + n/2, from
 * rank - n/2) or ring (to rank + 1, from rank - 1). A step starts when the
 * rank's previous exchange completed (closed loop). */
enum { APP_SYNTH_ALLTOALL, APP_SYNTH_SHIFT, APP_SYNTH_RING };
/* APP_SYNTH_* by name, or -1. */
int app_synth_pattern_find(const char *name);
/* "alltoall", ...; NULL when out of range. */
const char *app_synth_pattern_name(int pattern);
struct app_synth_source;
int app_synth_source_new(struct app_synth_source **out, int pattern, uint32_t n_ranks, uint64_t bytes,
			 uint64_t interval_ps, uint64_t steps, struct app_source *src, struct nl_err *err);
void app_synth_source_free(struct app_synth_source *s);

/* Several jobs as one source (issue 13): job j's rank r is world rank
 * app_jobs_rank_base(j) + r; each job keeps its own communicators (its
 * world becomes a communicator of its ranks), so jobs meet only in the
 * network. The jobs' sources must outlive the combined one. */
#define APP_JOBS_MAX_RANKS ((1u << 24) - 1)
struct app_jobs_source;
int app_jobs_source_new(struct app_jobs_source **out, const struct app_source *jobs, uint32_t n_jobs,
			struct app_source *combined, struct nl_err *err);
uint32_t app_jobs_rank_base(const struct app_jobs_source *js, uint32_t job);
void app_jobs_source_free(struct app_jobs_source *js);

/* --- replay ------------------------------------------------------------- */

struct app;

/* Set up a replay of `src` over the backend `net` (created by the caller,
 * kept by pointer; the caller destroys it after app_free). rank_ep[r] is
 * the network endpoint of world rank r; NULL places rank r on endpoint r.
 * Fails on a source that names unknown communicators or peers. */
int app_new(struct app **out, const struct app_config *cfg, const struct app_source *src,
	    struct net_backend *net, const uint32_t *rank_ep, struct nl_err *err);

/* Run to the end. 0 when every rank finished; NL_EDEADLOCK when some ranks
 * wait forever (app_deadlock_* describe them; *err has a one-line summary);
 * another negative error for bad trace content (naming rank and op index)
 * or a backend failure. `prog` may be NULL. */
int app_run(struct app *a, struct progress *prog, struct nl_err *err);

void app_free(struct app *a);

/* A user point-to-point receive completed with the message of a send: the
 * live server (adapters/) hands that send's payload over. Ops are named by
 * their index in their rank's stream; times in ps. Not called for the
 * messages inside collectives. */
struct app_match_info {
	uint32_t src, dst;      /* world ranks */
	int32_t tag;
	uint64_t bytes;
	uint64_t send_op;       /* index of the send (isend, ...) op in src's stream */
	uint64_t recv_op;       /* index of the recv (irecv, ...) op in dst's stream */
	uint64_t t_sent_ps;     /* when the send was posted */
	uint64_t t_arrived_ps;  /* when the payload arrived at dst */
	uint64_t t_done_ps;     /* when the receive completed (>= arrival) */
};
typedef void (*app_match_fn)(void *ctx, const struct app_match_info *mi);

/* The engine's virtual time, ps: during an op source's next() call, the
 * time at which the rank asking for its next op resumed. */
uint64_t app_now(const struct app *a);

/* Several jobs in one replay (issue 13, `netloom interfere`): world ranks
 * [rank_base[j], rank_base[j + 1]) are job j's (rank_base[0] = 0,
 * rank_base[n_jobs] = the replay's ranks; app_jobs_rank_base gives them).
 * Job j's ranks begin at start_ps[j] (NULL: all at 0), and the latency of
 * the messages a job's ranks send is also kept per job. A late rank's
 * finish_ps counts from 0, so its compute + comm + wait is finish_ps minus
 * its start. Before app_run; arrays copied. */
int app_set_jobs(struct app *a, uint32_t n_jobs, const uint32_t *rank_base, const uint64_t *start_ps,
		 struct nl_err *err);
/* Job j's message latencies (as app_latency, all sizes); zeros without jobs. */
void app_job_latency(const struct app *a, uint32_t job, struct app_latency *out);
/* Job j's runtime: its last rank's finish minus its start, ps. */
uint64_t app_job_runtime_ps(const struct app *a, uint32_t job);

/* Install (or, with fn NULL, remove) the match observer; before app_run. */
void app_set_match_hook(struct app *a, app_match_fn fn, void *ctx);
/* Why rank `rank`'s stream ended without a finalize, for the deadlock line
 * ("1 rank ended without finalize (rank 0 after 3 ops): WHY"), or NULL for
 * the replay's guess, "a cut trace?". A live session knows: the rank was
 * evicted (its client exited without BYE, say). The text is read at once. */
typedef const char *(*app_cut_why_fn)(void *ctx, uint32_t rank);
/* Install (or, with fn NULL, remove) it; before app_run. */
void app_set_cut_why(struct app *a, app_cut_why_fn fn, void *ctx);
/* Called for every replayed compute interval and MPI call, in simulated
 * time order per rank: the op (valid during the call only), its
 * predicted start and end, and how much of it was waiting for a peer
 * (app_rank_stats.wait_ps's share; 0 for compute), ps. The last call of a
 * rank ends at its finish_ps. For the predicted timeline (`replay --otf2`,
 * `--svg`). */
typedef void (*app_call_fn)(void *ctx, uint32_t rank, const struct trace_op *op, uint64_t start_ps,
			    uint64_t end_ps, uint64_t wait_ps);
/* Set (or with fn NULL clear) the call observer; before app_run. */
void app_set_call_observer(struct app *a, app_call_fn fn, void *ctx);

/* --- results -------------------------------------------------------------- */

/* Per rank. compute + comm + wait = finish time: compute is the (scaled)
 * compute intervals; wait is the time blocked in MPI calls until the last
 * peer it depended on had posted its matching operation (late sender, late
 * receiver, late collective member); comm is the rest of the time spent in
 * MPI calls (transfers, protocol round trips). */
struct app_rank_stats {
	uint64_t compute_ps;
	uint64_t comm_ps;
	uint64_t wait_ps;
	uint64_t finish_ps;   /* when the rank reached MPI_Finalize / its stream's end */
	uint64_t ops;         /* operations replayed */
	uint64_t mpi_calls;   /* of which MPI calls */
	uint64_t msgs_sent;   /* MPI messages (user and collective-internal) */
	uint64_t bytes_sent;
};

/* Where a rank was when its run stopped (app_stop_results). */
struct app_rank_stop {
	uint64_t until_ps;    /* its figures count up to here: the end of its last completed op
			       * (its finish_ps when finished) */
	uint16_t op_kind;     /* in_op: the op under way (enum trace_op_kind) */
	bool in_op;           /* stopped inside an op: a compute interval or a blocking MPI call */
	bool finished;
};

/* Message size classes for latency statistics: [lower, next lower). */
#define APP_SIZE_CLASSES 6

struct app_results {
	uint64_t runtime_ps;          /* the last rank's finish time */
	uint32_t n_ranks;
	const struct app_rank_stats *ranks; /* [n_ranks] */
	uint64_t msgs, bytes;         /* MPI messages and payload bytes (p2p + collective) */
	uint64_t p2p_msgs, p2p_bytes; /* of which user point-to-point */
	uint64_t coll_msgs, coll_bytes; /* of which inside collectives */
	uint64_t eager_msgs, rndv_msgs; /* by protocol */
	uint64_t net_msgs;            /* network messages incl. RTS/CTS control */
	uint64_t unmatched_msgs;      /* sent but never received */
	uint64_t self_msgs;           /* a rank's to itself: delivered at once, not in the latencies */
	/* Waits and tests (and start, cancel, request_free) naming a request
	 * id with no live request, ignored (docs/replay.md "Requests"): the
	 * sum of those whose id the replay had already completed or freed
	 * (it ran them sooner than the recorded run: a polling program) and
	 * those whose id the trace never created on the rank (a damaged
	 * trace), with the first of these: rank, op index, op kind and id. */
	uint64_t unknown_requests;
	uint64_t reqs_completed_before;
	uint64_t reqs_never_created;
	uint32_t never_created_rank;  /* world rank */
	uint64_t never_created_op;    /* index of the op in its rank's stream */
	uint16_t never_created_kind;  /* its trace op kind */
	uint32_t never_created_id;    /* the request id it named */
	uint64_t events;              /* engine events processed */
	/* MPI_Cancel (docs/replay.md "Cancelled requests"): cancel ops, how
	 * many cancelled their request in replay, and the divergences between
	 * the outcome the trace recorded and the simulated one, with the
	 * first divergence's rank, op index and kinds. */
	uint64_t cancels, cancelled;
	uint64_t cancel_diverged;
	uint32_t cancel_div_rank;     /* world rank */
	uint64_t cancel_div_op;       /* index of the cancel op in its rank's stream */
	uint16_t cancel_div_req_kind; /* trace op kind that created the request */
	uint8_t cancel_div_recorded;  /* recorded outcome: 1 cancelled, 0 not */
	uint64_t coll_calls[APP_COLL__COUNT];
	uint32_t coll_alg_used[APP_COLL__COUNT][APP_ALG__COUNT]; /* instances by algorithm */
	/* app_stop_results: the run stopped before its end, ranks[] count up
	 * to stop[r].until_ps; false (and stop NULL) after a run that ended. */
	bool partial;
	uint64_t stopped_ps;          /* virtual time of the stop */
	const struct app_rank_stop *stop; /* [n_ranks] when partial */
};

const struct app_results *app_results(const struct app *a);

/* Whether rank r ran its last op (after a deadlock, the ranks that did
 * not wait forever). */
bool app_rank_done(const struct app *a, uint32_t r);

/* After app_run failed because the op source's next() returned an error
 * (a live session stopped by a signal): fill app_results with the figures
 * so far, marked partial. Each rank's count up to the end of its last
 * completed op: a compute interval or a blocking MPI call under way at
 * the stop is left out (compute, comm, wait, ops and mpi_calls), so
 * compute + comm + wait is still until_ps minus the rank's start; the
 * messages and bytes it sent are counted, those of the op under way
 * included. finish_ps is 0 for a rank that did not finish, runtime_ps the
 * last finished rank's finish, unmatched_msgs 0 (a message in flight at
 * the stop is not unmatched). Not for other failures: an op that failed
 * halfway leaves no consistent state. */
void app_stop_results(struct app *a);

/* Latency (network hand-over of the payload to its arrival) statistics of
 * the data-carrying messages, overall (cls = -1) or by size class. */
struct app_latency {
	uint64_t lower_bytes, upper_bytes; /* class bounds; upper = UINT64_MAX for the last */
	uint64_t n;
	double mean_ps;
	uint64_t p50_ps, p90_ps, p99_ps, max_ps;
};
void app_latency(const struct app *a, int cls, struct app_latency *out);

/* The results as JSON: {"runtime": {"predicted_s"}, "ranks": [...],
 * "messages": {...}, "collectives": {...}} (new reference, NULL on
 * allocation failure). Partial results (app_stop_results) add "partial":
 * true, runtime.stopped_at_s (predicted_s null) and per rank "finished",
 * "until_s" and "in_op" (the op's name or null); an unfinished rank's
 * finish_s is null. */
struct json_t *app_results_json(const struct app *a);

/* --- deadlock report ---------------------------------------------------------- */

/* After app_run returned NL_EDEADLOCK: one line per stuck rank (and one per
 * request it waits on), e.g.
 *   "rank 1: op 3 send to 0 tag 7 comm 0 (1048576 bytes, rendezvous): no
 *    matching receive posted at rank 0"
 * Returns the number of stuck ranks. */
typedef void (*app_line_fn)(void *ctx, const char *line);
uint32_t app_deadlock_report(const struct app *a, app_line_fn line, void *ctx);

/* The same as JSON: {"time_s", "stuck": [{"rank", "op_index", "op", "peer",
 * "tag", "comm", "waits_for": [...]}]}. */
struct json_t *app_deadlock_json(const struct app *a);

#endif
