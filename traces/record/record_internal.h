/* netloom-record internals: the PMPI interposition library's shared state.
 *
 * The recorder is a preloaded library whose entry points are the MPI_*
 * functions themselves, so its state is necessarily one process-wide
 * object (struct rec_state rec, defined in record.c and filled at MPI_Init
 * by record_init.c, the two files that touch it); every other file
 * reaches it through the functions below. Invariant: while rec.is_active, every
 * recorded call appends (compute gap, call) to this rank's stream, and the
 * first failure turns recording off for good (one line on stderr), never
 * the application.
 * Thread model: MPI_THREAD_MULTIPLE disables recording (docs/recorder.md).
 */
#ifndef NETLOOM_TRACES_RECORD_INTERNAL_H
#define NETLOOM_TRACES_RECORD_INTERNAL_H

#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

#define REC_NAME "netloom-record"

/* Things the trace model cannot represent; counted and reported once at
 * MPI_Finalize instead of being dropped silently. X(name, text). */
#define REC_UNSUP_MAP(X)                                                    \
	X(REC_UNSUP_COMM, "calls on unrecorded communicators (intercommunicators, MPI_Comm_create_group, ...)") \
	X(REC_UNSUP_MPROBE, "matched receives of messages probed before the recorded window") \
	X(REC_UNSUP_NEIGHBOR, "neighborhood collectives")                   \
	X(REC_UNSUP_RMA, "one-sided communication (MPI_Put/Get/Accumulate/..., their MPI_R* forms and MPI_Win_fence)") \
	X(REC_UNSUP_REQ, "completions of requests the recorder did not create") \
	X(REC_UNSUP_REQ_CALL, "starts, frees and cancels of requests the recorder did not create") \
	X(REC_UNSUP_REQ_EARLY, "completions and cancels of persistent operations started before the recorded window")

enum rec_unsup {
#define REC_UNSUP_ENUM_(name, text) name,
	REC_UNSUP_MAP(REC_UNSUP_ENUM_)
#undef REC_UNSUP_ENUM_
	REC_UNSUP__COUNT
};

/* --- communicators (record_comm.c) --------------------------------------- */

#define REC_COMM_NONE TRACE_COMM_NULL /* MPI_COMM_NULL / not recorded */

/* One communicator this rank belongs (or belonged) to. */
struct rec_comm {
	MPI_Comm handle;        /* MPI_COMM_NULL once freed */
	uint32_t id;            /* trace id, equal on every member */
	uint32_t size;          /* members */
	int my_rank;            /* this process's rank in it */
	uint32_t n_created;     /* communicators created from it so far (id derivation) */
	uint32_t *world_ranks;  /* [size], in comm rank order */
};

int rec_comm_setup(void);
void rec_comm_teardown(void);
/* Trace id of a handle, or REC_COMM_NONE for one the recorder does not
 * know (intercommunicators, constructors it does not wrap). O(1). */
uint32_t rec_comm_lookup(MPI_Comm c, const struct rec_comm **info);
/* All communicators ever registered on this rank (for the manifest). */
size_t rec_comm_count(void);
/* Lowest world rank among its members. */
uint32_t rec_comm_lowest(const struct rec_comm *e);
const struct rec_comm *rec_comm_at(size_t i);

/* --- requests (record_req.c) --------------------------------------------- */

#define REC_REQ_NONE UINT32_MAX

int rec_req_setup(void);
void rec_req_teardown(void);
/* A new live request: returns its small per-rank id (the most recently
 * freed id is reused first, ids start at 0), or REC_REQ_NONE after a
 * recorder failure. init: NULL for a non-persistent request (tracked only
 * inside the recorded window); for a persistent one, its send_init or
 * recv_init op, whose kind, comm, peer, tag and bytes are kept (the
 * request is tracked before the window too; see rec_req_window_open). */
uint32_t rec_req_new(MPI_Request r, const struct trace_op *init);
/* The recorded window opens: the send_init/recv_init ops (t and dur 0) of
 * the persistent requests still alive, in creation order, *n of them, in
 * rec_scratch_ops storage (NULL with *n = 0 when there are none, or after
 * a failure). Those started and not completed are marked early: their
 * current operation began before the window. */
struct trace_op *rec_req_window_open(size_t *n);
/* A persistent request r was started (MPI_Start, MPI_Startall). */
void rec_req_started(MPI_Request r);
/* r's current operation started before the recorded window: its
 * completion and cancel are left out (counted). */
bool rec_req_is_early(MPI_Request r);
/* A persistent request's operation completed: inactive, not early. */
void rec_req_persistent_done(MPI_Request r);
/* Id of a live request, or REC_REQ_NONE when unknown. */
uint32_t rec_req_find(MPI_Request r, bool *is_persistent, bool *is_cancelled);
/* The request completed (non-persistent) or was freed: forget it. */
void rec_req_release(MPI_Request r);
void rec_req_mark_cancelled(MPI_Request r);
/* A persistent request's cancelled operation completed: a restart is not
 * cancelled. */
void rec_req_unmark_cancelled(MPI_Request r);
/* Live requests marked cancelled: while 0, completions need no status. */
size_t rec_req_n_cancelled(void);

/* --- probes (record_p2p.c, record_mprobe.c) -------------------------------- */

struct rec_call;
/* Record a probe (kind TOP_PROBE or TOP_IPROBE) that returned rc; flag says
 * it found a message, whose size st gives (record_p2p.c). */
void rec_probe_end(struct rec_call *c, int rc, uint16_t kind, MPI_Comm comm, int source, int tag, int flag,
		   const MPI_Status *st);

void rec_mprobe_teardown(void);

/* --- core (record.c) ------------------------------------------------------ */

#define REC_STR_MAX 4096
/* The run tag in the names of the run's files (streams, rank 0's .xfer
 * copies): rank 0's pid and clock, agreed at MPI_Init, at a fixed width so
 * that the longest name the run creates is known before the tag is
 * (record_init.c rec_check_name_length), not dependent on the pid. */
#define REC_RUN_TAG_FMT "%016llx-%016llx"
#define REC_RUN_TAG_LEN 33
#define REC_POLL_REQS_MAX 64 /* longer request lists are never folded */

/* The recorder's process-wide state: rec, below. */
struct rec_state {
	bool is_enabled;        /* MPI_Init set us up; MPI_Finalize must assemble */
	bool is_active;         /* recording; false for good after a failure */
	bool is_sink_open;      /* the stream file exists and is ours */
	int depth;              /* >0 inside a recorded call: nested MPI calls pass through */
	int rank, size;         /* in MPI_COMM_WORLD */
	MPI_Comm priv;          /* private dup of world: finalize traffic only */
	MPI_Group world_group;
	uint64_t t0_ns;         /* CLOCK_MONOTONIC when PMPI_Init returned */
	uint64_t last_end_ps;   /* end of the previous recorded call */
	uint64_t last_end_cpu_ns; /* thread CPU time at that end */
	uint32_t hosts, ranks_per_host, cores_per_host; /* where the ranks run (MPI_Init) */
	bool is_cpu_time;       /* compute ops carry CPU time (NETLOOM_TRACE_CPU) */
	uint64_t start_unix;    /* rank 0's wall clock at MPI_Init, s */
	uint64_t unsup[REC_UNSUP__COUNT];
	bool is_writing;        /* inside the recorded window (NETLOOM_TRACE_START_BARRIER) */
	uint64_t start_barrier; /* world barriers to skip; 0 = record from MPI_Init */
	uint64_t n_world_barriers; /* MPI_Barrier(MPI_COMM_WORLD) calls returned so far */
	bool is_fold_polls;     /* NETLOOM_TRACE_POLLS=fold */
	bool is_quiet;          /* NETLOOM_TRACE_QUIET=1: no "wrote" line */
	bool is_poll_armed;     /* the last op written was an unsuccessful poll */
	struct trace_op poll;   /* that poll (reqs copied to poll_reqs) */
	uint32_t poll_reqs[REC_POLL_REQS_MAX];
	uint64_t n_folded;      /* polls not written */
	char out_path[PATH_MAX];
	char out_shown[PATH_MAX]; /* out_path as given (NETLOOM_TRACE or the default name) */
	char stream_path[PATH_MAX];
	char run_tag[REC_RUN_TAG_LEN + 1]; /* the run's, in its files' names */
	char application[256];
	char command_line[REC_STR_MAX];
	char machine[512];
	char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING];
	/* scratch, grown on demand */
	uint64_t *counts[2];
	size_t n_counts[2];
	uint32_t *reqs;
	size_t n_reqs;
	MPI_Request *handles;
	size_t n_handles;
	int *ints;
	size_t n_ints;
	struct trace_op *ops;
	size_t n_ops;
};

/* The one recorder state, defined in record.c. Extern, against STYLE.md's
 * rule, because MPI_Init fills it in record_init.c (the run's facts, its
 * paths and settings) and record.c records with it: the MPI_* entry points
 * are the library's only way in, so there is no context to pass. No other
 * file touches it. */
extern struct rec_state rec;

/* CLOCK_MONOTONIC now, in ns. */
uint64_t rec_clock_ns(void);
/* Open the recorded window (time zero now, the init op and the persistent
 * requests still alive): at MPI_Init, or at the NETLOOM_TRACE_START_BARRIER-th
 * world barrier. */
void rec_window_open(void);


/* Timestamp of a call's start, in ps since this rank's MPI_Init, and
 * whether the call is to be recorded at all (recording on, not nested in
 * another recorded call). rec_end() must follow a true rec_begin(). */
struct rec_call {
	uint64_t t_ps;
	uint64_t cpu_ns;  /* this thread's CPU time at the call's start */
	bool is_on;
};
void rec_begin(struct rec_call *c);
/* Append the compute gap before the call and the call itself, ending now.
 * op->t_ps and op->dur_ps are filled here. */
void rec_end(struct rec_call *c, struct trace_op *op);
/* The same for a call that makes several ops (MPI_Startall): the first
 * takes the call's duration, the others are instants at its end. */
void rec_end_n(struct rec_call *c, struct trace_op *ops, size_t n);
/* Leave the call without recording it (e.g. it touched nothing known). */
void rec_skip(struct rec_call *c);
/* The outcome of the cancel op recorded for request id `req` is known
 * now: 1 cancelled, 0 completed normally, -1 never known (freed). */
void rec_cancel_outcome(uint32_t req, int outcome);

/* Stop recording on this rank with one line on stderr. */
void rec_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "netloom-record: " and the message on stderr as one line: control bytes
 * escaped (the message may quote a path or a setting), one write. */
void rec_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool rec_is_active(void);
/* Inside the recorded window (NETLOOM_TRACE_START_BARRIER): ops are
 * written and requests get ids. Outside it only communicators and
 * persistent requests are tracked. */
bool rec_is_writing(void);
/* MPI_Barrier(MPI_COMM_WORLD) returned in the program. */
void rec_world_barrier_done(void);
void rec_unsupported(enum rec_unsup what);
uint64_t rec_unsupported_count(enum rec_unsup what);
/* Unsuccessful polls NETLOOM_TRACE_POLLS=fold did not write. */
uint64_t rec_folded_count(void);
const char *rec_unsupported_text(enum rec_unsup what);

/* count x datatype size in bytes (0 for count <= 0 or MPI_DATATYPE_NULL). */
uint64_t rec_bytes(int count, MPI_Datatype dt);

/* Per-call scratch arrays, grown on demand and reused (no allocation in
 * steady state). Return NULL after a failure (recording then stops). */
uint64_t *rec_scratch_counts(int which, size_t n); /* which: 0 send, 1 recv */
uint32_t *rec_scratch_reqs(size_t n);
MPI_Request *rec_scratch_handles(size_t n);
int *rec_scratch_ints(size_t n);
struct trace_op *rec_scratch_ops(size_t n);

static inline int32_t rec_peer(int p)
{
	return p == MPI_ANY_SOURCE ? TRACE_ANY_SOURCE : p == MPI_PROC_NULL ? TRACE_PROC_NULL : p;
}

static inline int32_t rec_tag(int t)
{
	return t == MPI_ANY_TAG ? TRACE_ANY_TAG : t;
}

/* "netloom-record 0.1.0" */
const char *rec_version(void);

int rec_world_rank(void);
int rec_world_size(void);
MPI_Group rec_world_group(void);
uint64_t rec_now_ps(void);

/* --- finalize (record_finalize.c) ----------------------------------------- */

/* What rank 0 needs from the core to assemble the archive. */
struct rec_run {
	MPI_Comm priv;              /* private dup of MPI_COMM_WORLD */
	int rank, size;
	const char *out_path;       /* archive path (rank 0's view matters), absolute */
	const char *out_shown;      /* the same as given, for the "wrote" line */
	const char *stream_path;    /* this rank's stream file */
	const char *run_tag;        /* the run's tag (REC_RUN_TAG_FMT), in rank 0's .xfer names */
	bool is_ok;                 /* this rank recorded everything */
	uint64_t n_ops, n_bytes, hash; /* from trace_stream_close */
	double runtime_s;           /* MPI_Init return to MPI_Finalize entry */
	/* Where the ranks ran (agreed at MPI_Init; the same on every rank). */
	uint32_t hosts, ranks_per_host, cores_per_host;
	bool has_compute_cpu;       /* compute ops carry CPU time (NETLOOM_TRACE_CPU) */
	uint64_t start_unix;
	const char *application, *command_line, *machine, *mpi_library;
};
/* Collective over run->priv. Rank 0 writes the archive and removes the
 * stream files; any failure is one line on stderr from rank 0. */
void rec_finalize_assemble(struct rec_run *run);

/* --- the writer (record_sink.c): the only file calling traces/trace.h ---- */

int rec_sink_open(uint32_t rank, const char *path);
/* A cancel op with TRACE_F_NO_OUTCOME is held, with every op after it,
 * until rec_sink_cancel_outcome() gives its outcome (record_sink.c). */
int rec_sink_append(const struct trace_op *op);
int rec_sink_cancel_outcome(uint32_t req, int outcome);
int rec_sink_close(uint64_t *n_ops, uint64_t *n_bytes, uint64_t *hash);
void rec_sink_abort(void);
int rec_sink_archive(const char *path, const struct trace_manifest *m,
		     const char *const *stream_paths);
/* The last failure's one-line message. */
const char *rec_sink_error(void);

#endif
