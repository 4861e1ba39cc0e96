/* MPI traces: the operation model, the native archive (.nlt) and importers.
 *
 * A trace is, per rank, a stream of operations (struct trace_op): compute
 * intervals and MPI calls with the fields replay needs (peers, tags,
 * communicators, byte counts, request ids) and the recorded start time and
 * duration of each call. The archive is one zstd-compressed file with a
 * manifest and per-rank streams in independently decompressible frames, so
 * a reader streams one rank at a time in bounded memory. Layout and
 * encoding: docs/trace-format.md.
 *
 * Conventions shared by the recorder, the importers and replay:
 * - ranks and peers are ranks *within the op's communicator*; communicator 0
 *   is MPI_COMM_WORLD and 1 is MPI_COMM_SELF; others are listed in the
 *   manifest with their members as world ranks;
 * - TRACE_ANY_SOURCE / TRACE_ANY_TAG are the wildcards, TRACE_PROC_NULL the
 *   null process;
 * - sizes are bytes (count x datatype size, derived types sized as the
 *   program defined them when the call was made);
 * - request ids are per rank, assigned by the writer of the trace; a
 *   request id may be reused after the request completes.
 * This module depends on emu/core only.
 */
#ifndef NETLOOM_TRACES_TRACE_H
#define NETLOOM_TRACES_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nl_err;

#define TRACE_ANY_SOURCE (-1)
#define TRACE_ANY_TAG (-1)
#define TRACE_PROC_NULL (-2)
#define TRACE_COMM_WORLD 0u
#define TRACE_COMM_SELF 1u
#define TRACE_COMM_NULL UINT32_MAX /* new_comm of a rank that gets MPI_COMM_NULL */
/* world_ranks[0] of TRACE_COMM_SELF: "the calling rank" (self differs per rank). */
#define TRACE_SELF_RANK UINT32_MAX
/* The most communicators replay numbers, world and self included (it packs
 * a communicator's index in 16 bits of its map keys). The format allows
 * more; `trace verify` and `trace encode` refuse them as replay does
 * (docs/trace-format.md section 7), so a trace is not found unusable only
 * when a long run starts. */
#define TRACE_REPLAY_MAX_COMMS ((1u << 16) - 1)
/* The most ranks replay runs (it packs a rank in 24 bits of its map keys).
 * `trace encode` refuses a manifest declaring more at its line: it sizes
 * per-rank tables from the count before any rank section is read, so
 * 4294967295 ended in "out of memory" with no line named. */
#define TRACE_REPLAY_MAX_RANKS ((1u << 24) - 1)

/* Version of the archive format this code writes (docs/trace-format.md).
 * It reads every version from TRACE_FORMAT_VERSION_MIN on. */
#define TRACE_FORMAT_VERSION 2u
#define TRACE_FORMAT_VERSION_MIN 1u

/* X(name, text): every operation kind, in a stable order (the numeric value
 * is part of the archive format: append only). */
#define TRACE_OP_MAP(X)                              \
	X(TOP_COMPUTE, "compute")                    \
	X(TOP_COMPUTE_FLOPS, "compute_flops")        \
	X(TOP_INIT, "init")                          \
	X(TOP_FINALIZE, "finalize")                  \
	X(TOP_SEND, "send")                          \
	X(TOP_SSEND, "ssend")                        \
	X(TOP_BSEND, "bsend")                        \
	X(TOP_RSEND, "rsend")                        \
	X(TOP_ISEND, "isend")                        \
	X(TOP_ISSEND, "issend")                      \
	X(TOP_RECV, "recv")                          \
	X(TOP_IRECV, "irecv")                        \
	X(TOP_SENDRECV, "sendrecv")                  \
	X(TOP_SEND_INIT, "send_init")                \
	X(TOP_RECV_INIT, "recv_init")                \
	X(TOP_START, "start")                        \
	X(TOP_REQUEST_FREE, "request_free")          \
	X(TOP_PROBE, "probe")                        \
	X(TOP_IPROBE, "iprobe")                      \
	X(TOP_WAIT, "wait")                          \
	X(TOP_WAITALL, "waitall")                    \
	X(TOP_WAITANY, "waitany")                    \
	X(TOP_WAITSOME, "waitsome")                  \
	X(TOP_TEST, "test")                          \
	X(TOP_TESTALL, "testall")                    \
	X(TOP_TESTANY, "testany")                    \
	X(TOP_TESTSOME, "testsome")                  \
	X(TOP_BARRIER, "barrier")                    \
	X(TOP_BCAST, "bcast")                        \
	X(TOP_REDUCE, "reduce")                      \
	X(TOP_ALLREDUCE, "allreduce")                \
	X(TOP_GATHER, "gather")                      \
	X(TOP_GATHERV, "gatherv")                    \
	X(TOP_SCATTER, "scatter")                    \
	X(TOP_SCATTERV, "scatterv")                  \
	X(TOP_ALLGATHER, "allgather")                \
	X(TOP_ALLGATHERV, "allgatherv")              \
	X(TOP_ALLTOALL, "alltoall")                  \
	X(TOP_ALLTOALLV, "alltoallv")                \
	X(TOP_ALLTOALLW, "alltoallw")                \
	X(TOP_REDUCE_SCATTER, "reduce_scatter")      \
	X(TOP_REDUCE_SCATTER_BLOCK, "reduce_scatter_block") \
	X(TOP_SCAN, "scan")                          \
	X(TOP_EXSCAN, "exscan")                      \
	X(TOP_COMM_SPLIT, "comm_split")              \
	X(TOP_COMM_DUP, "comm_dup")                  \
	X(TOP_COMM_CREATE, "comm_create")            \
	X(TOP_COMM_FREE, "comm_free")                \
	X(TOP_CANCEL, "cancel") /* version 2 */

enum trace_op_kind {
#define TRACE_OP_ENUM_(name, text) name,
	TRACE_OP_MAP(TRACE_OP_ENUM_)
#undef TRACE_OP_ENUM_
	TOP__COUNT
};

/* Name of an operation kind ("allreduce"), or NULL when out of range. */
const char *trace_op_name(unsigned kind);
/* Number of op kinds format version `version` defines (kinds 0 .. n-1),
 * or 0 for a version this code does not know. */
unsigned trace_op_kinds_in_version(uint32_t version);

/* Op flags. */
enum {
	TRACE_F_NONBLOCKING = 1u << 0, /* a collective's I-variant (MPI_Ibcast...): has req */
	TRACE_F_IN_PLACE = 1u << 1,    /* MPI_IN_PLACE was passed */
	/* test/iprobe and the test* family: the trace does not say whether the
	 * call succeeded (SimGrid time-independent traces); cancel: the
	 * recorded outcome is unknown (the request was freed, not completed).
	 * Replay decides. */
	TRACE_F_NO_OUTCOME = 1u << 2,
	/* Every bit above: an op with another one is refused by the writers
	 * and the reader (a later format would define it). */
	TRACE_F_KNOWN = TRACE_F_NONBLOCKING | TRACE_F_IN_PLACE | TRACE_F_NO_OUTCOME,
};

/* One operation, as the reader hands it out. Fields a kind does not use are
 * zero. Pointers (counts, reqs) point into reader-owned storage valid until
 * the next trace_rank_next() call on the same reader. */
struct trace_op {
	uint16_t kind;   /* enum trace_op_kind */
	uint16_t flags;  /* TRACE_F_* */
	uint64_t t_ps;   /* recorded start time, ps since the rank's MPI_Init */
	uint64_t dur_ps; /* recorded duration (compute: the interval itself) */

	uint32_t comm;   /* communicator id */
	int32_t peer;    /* dest (send), source (recv, probe), root (rooted collectives) */
	int32_t tag;
	uint64_t bytes;  /* send bytes; recv bytes for recv/irecv/probe */
	double flops;    /* TOP_COMPUTE_FLOPS, and the reduction work SimGrid traces give */

	/* TOP_SENDRECV: the receive half. */
	int32_t recv_peer;
	int32_t recv_tag;
	uint64_t recv_bytes;

	/* Collectives: per-rank byte counts for the v/w variants, indexed by
	 * rank in comm (n_counts = comm size); send_counts for what this rank
	 * sends to each rank, recv_counts for what it receives. For the non-v
	 * kinds, bytes is the per-rank send size and recv_bytes the per-rank
	 * receive size. */
	uint32_t n_counts;
	const uint64_t *send_counts;
	const uint64_t *recv_counts;

	/* Requests: req is the request an op creates (isend, irecv,
	 * send_init, nonblocking collectives) or completes (wait, test,
	 * start, request_free, cancel). The wait/test all, any and some kinds list theirs in
	 * reqs[0..n_reqs); for waitany/waitsome/testany/testsome, the ones that
	 * completed come first and n_done says how many. For test and
	 * testall, n_done is the number of requests the call completed (test:
	 * 0 or 1; testall: 0 or n_reqs); for iprobe, 1 when a message was
	 * found; for cancel, 1 when the recorded run's cancel succeeded
	 * (MPI_Test_cancelled on the request's completion status). With
	 * TRACE_F_NO_OUTCOME n_done is 0 and means "unknown". */
	uint32_t req;
	uint32_t n_reqs;
	uint32_t n_done;
	const uint32_t *reqs;

	/* Communicator management: the new communicator's id (split, dup,
	 * create; MPI_COMM_NULL is UINT32_MAX), color and key for split. */
	uint32_t new_comm;
	int32_t color;
	int32_t key;

	/* TOP_COMPUTE (format version 2): the thread CPU time the rank used
	 * during the interval (CLOCK_THREAD_CPUTIME_ID), ps; 0 when not
	 * recorded. dur_ps minus this is time the rank was descheduled (or
	 * asleep). Meaningful only when the manifest's has_compute_cpu is set. */
	uint64_t cpu_ps;
};

/* A communicator: members as world ranks, in rank order. In a manifest the
 * reader returns, comms[0] is world (identity) and comms[1] is self
 * (size 1, world_ranks[0] = TRACE_SELF_RANK); the rest follow by id. */
struct trace_comm {
	uint32_t id;
	uint32_t size;
	uint32_t *world_ranks; /* [size] */
};

/* What the archive says about itself. Strings are NUL-terminated, owned by
 * whoever filled the struct (the reader for one it returns). */
struct trace_manifest {
	uint32_t format_version;
	uint32_t n_ranks;
	char *application;     /* program name */
	char *command_line;
	char *machine;         /* hostname / system description of the recording */
	char *recorder;        /* "netloom-record 0.1.0", "dumpi-import 0.1.0", ... */
	char *mpi_library;     /* "Open MPI 4.1.4", or "" when unknown */
	uint64_t start_unix;   /* wall-clock start of the recording, s */
	double recorded_runtime_s; /* MPI_Init to MPI_Finalize, slowest rank */
	/* Where the ranks ran (format version 2; 0 = unknown, as in every
	 * version-1 archive): hosts used, the most ranks on one host, and the
	 * fewest CPUs the ranks of one host could run on (the union of their
	 * affinity masks). ranks_per_host > cores_per_host means ranks shared
	 * cores, so the recorded times include CPU time-sharing. */
	bool has_host_info;    /* the archive has these fields (version 2, optional) */
	uint32_t hosts;
	uint32_t ranks_per_host;
	uint32_t cores_per_host;
	bool has_compute_cpu;  /* compute ops carry cpu_ps (version 2, with the host fields) */
	uint32_t n_comms;
	struct trace_comm *comms; /* world and self included */
	/* Per rank: operations, encoded bytes, and a 64-bit hash of the
	 * encoded stream (XXH64 via zstd's, or as docs/trace-format.md says). */
	uint64_t *rank_ops;    /* [n_ranks] */
	uint64_t *rank_bytes;  /* [n_ranks] */
	uint64_t *rank_hash;   /* [n_ranks] */
};

/* The communicator with this id among comms[0..n), which are sorted by
 * id, or NULL (binary search). */
const struct trace_comm *trace_comms_find(const struct trace_comm *comms, size_t n, uint32_t id);

/* The communicator with this id, or NULL (trace_comms_find: a manifest the
 * reader returns is sorted by id). */
const struct trace_comm *trace_manifest_find_comm(const struct trace_manifest *m, uint32_t id);

/* The most ranks that shared one core when the trace was recorded
 * (ranks_per_host / cores_per_host), or 0 when the archive does not say. */
double trace_manifest_ranks_per_core(const struct trace_manifest *m);

/* Replay's refusal of a manifest of n_comms communicators (world and self
 * included, n_comms > TRACE_REPLAY_MAX_COMMS), in one line after where
 * ("x.nlt: ", "t.txt:9: " or ""): fills err and returns NL_EUNSUPPORTED. */
int trace_comms_over_limit(struct nl_err *err, const char *where, uint64_t n_comms);

/* Free what a manifest owns (strings, comms, per-rank arrays) and zero it;
 * for manifests built with malloc'd members (importers, text parser). */
void trace_manifest_release(struct trace_manifest *m);

/* --- writing ------------------------------------------------------------- */

/* Writes one rank's stream to its own file, frame by frame, so a recorder
 * rank needs no coordination and bounded memory. */
struct trace_stream_writer;

/* Writer parameters. They decide the archive's bytes, so the archive header
 * records them and `trace encode` reuses them; every rank of one archive
 * must use the same values. Zero fields mean the defaults (64 KiB, 3). */
struct trace_write_opts {
	uint32_t frame_target; /* raw encoded bytes per frame, 256 B .. 16 MiB */
	int zstd_level;        /* 1 .. ZSTD_maxCLevel() */
	/* Format version to write, TRACE_FORMAT_VERSION_MIN ..
	 * TRACE_FORMAT_VERSION (0: the newest). An older version refuses
	 * what it cannot hold (the cancel op, cpu_ps, the manifest's host
	 * fields); `trace encode` of a dump keeps the dump's version. */
	uint32_t format_version;
};

int trace_stream_open(struct trace_stream_writer **w, uint32_t rank, const char *path,
		      struct nl_err *err);
/* The same with explicit parameters (opts NULL = defaults). */
int trace_stream_open_opts(struct trace_stream_writer **w, uint32_t rank, const char *path,
			   const struct trace_write_opts *opts, struct nl_err *err);
/* trace_stream_open on a new file of its own beside `near` (an archive's
 * path): DIR/.NAME.r<rank>.tmpXXXXXX, hidden, a name no other process has
 * (mkstemp), registered as staged (core/staged.h) as it is made, so a
 * SIGINT/SIGTERM handler removes it. *path gets the name, malloc'd: the
 * caller owns it and keeps it, unmoved, until out_staged_remove(*path)
 * (after trace_stream_close or _abort), then frees it. Errors: NL_EIO
 * "NEAR: cannot create rank R's temporary stream file: ...", NL_ENOMEM,
 * with nothing made or registered and *w, *path NULL. */
int trace_stream_open_temp(struct trace_stream_writer **w, uint32_t rank, const char *near, char **path,
			   struct nl_err *err);
int trace_stream_append(struct trace_stream_writer *w, const struct trace_op *op, struct nl_err *err);
/* Flush and close; reports ops, encoded bytes and hash for the manifest. */
int trace_stream_close(struct trace_stream_writer *w, uint64_t *n_ops, uint64_t *n_bytes,
		       uint64_t *hash, struct nl_err *err);
/* Close and delete the partial file. */
void trace_stream_abort(struct trace_stream_writer *w);

/* Assemble an archive from the manifest and one stream file per rank
 * (stream_paths[rank]); written atomically (temporary file + rename).
 * m->rank_ops/rank_bytes/rank_hash may be NULL: they are then taken from
 * the stream files; when given they must agree with them. Communicators
 * with id 0 and 1 in m->comms are skipped (world and self are implicit);
 * the others must have distinct ids >= 2 and world ranks < n_ranks. The
 * archive's bytes depend only on the manifest and the ops. */
int trace_archive_write(const char *path, const struct trace_manifest *m,
			const char *const *stream_paths, struct nl_err *err);
/* trace_archive_write with its temporary file hidden, DIR/.NAME.tmpXXXXXX
 * beside DIR/NAME instead of DIR/NAME.tmpXXXXXX: the recorder's, whose
 * stream files are dot files too, so a rank 0 killed while it writes
 * (SIGKILL, mpirun ending the job) leaves nothing shown beside the
 * archives (docs/recorder.md, "Failures"). */
int trace_archive_write_hidden(const char *path, const struct trace_manifest *m, const char *const *stream_paths,
			       struct nl_err *err);

/* --- reading ------------------------------------------------------------- */

struct trace_archive;
struct trace_rank_reader;

/* Open an archive and read its manifest and frame index. Bad magic,
 * unsupported version and truncation are reported with the offset.
 * NL_EUNSUPPORTED: an archive this netloom cannot read (a format version
 * newer than TRACE_FORMAT_VERSION, which a damaged version field also
 * shows, as the message says; unknown header flags or reserved bits
 * under a matching header hash); NL_ECORRUPT: damage. */
int trace_archive_open(struct trace_archive **a, const char *path, struct nl_err *err);
/* A second handle on the archive a has open: the same file, read again
 * through a copy of its descriptor (so a converted trace's temporary
 * archive, removed once open, can be), with its own decompression
 * context. The two handles share nothing a reader changes: one thread
 * may read each at once (a run of `netloom interfere -j` on each).
 * Close it with trace_archive_close, before or after a. Errors as
 * trace_archive_open's, or NL_EIO/NL_ENOMEM when no descriptor is left. */
int trace_archive_open_again(const struct trace_archive *a, struct trace_archive **b, struct nl_err *err);
void trace_archive_close(struct trace_archive *a);
const struct trace_manifest *trace_archive_manifest(const struct trace_archive *a);
/* Progress of long work over an archive (verify, stats, dump): fn gets
 * the fraction of the rank sections read so far, after each frame. For
 * readers that go through the ranks in order; NULL turns it off. */
typedef void (*trace_progress_fn)(void *ctx, double fraction);
void trace_archive_set_progress(struct trace_archive *a, trace_progress_fn fn, void *ctx);

/* The writer parameters recorded in the archive header. */
void trace_archive_write_opts(const struct trace_archive *a, struct trace_write_opts *o);
/* Size of the archive file, bytes. */
uint64_t trace_archive_file_bytes(const struct trace_archive *a);

/* Stream one rank's operations in order, decompressing a frame at a time.
 * Memory per reader is a window of its decoded frame (the whole frame, of
 * about frame_target bytes, in archives of up to a thousand ranks; 64 MiB
 * / n_ranks, at least 4 KiB, in larger ones) plus the largest op and its
 * arrays, whatever the stream's length; the archive keeps one decoded
 * frame besides. Readers of one archive share its decompression context
 * and that frame: use them from one thread. */
int trace_rank_open(struct trace_archive *a, uint32_t rank, struct trace_rank_reader **r,
		    struct nl_err *err);
/* 1 with *op filled, 0 at the end of the stream, or a negative error naming
 * the rank and byte offset (truncated frame, bad encoding, hash mismatch at
 * the end). */
int trace_rank_next(struct trace_rank_reader *r, struct trace_op *op, struct nl_err *err);
void trace_rank_close(struct trace_rank_reader *r);

/* Check every rank's stream against the manifest (hashes, op counts) and
 * every op against it (communicator ids known, peers and roots within the
 * communicator or wildcards, v-variant counts sized to the communicator). */
int trace_archive_verify(struct trace_archive *a, struct nl_err *err);

/* --- summaries ------------------------------------------------------------- */

/* What `netloom trace info` reports, computed by streaming every rank. */
struct trace_stats {
	uint64_t ops;                    /* all operations */
	uint64_t calls[TOP__COUNT];      /* per kind */
	uint64_t p2p_messages;           /* sends, sendrecv once, persistent per start; not to PROC_NULL */
	uint64_t p2p_bytes;              /* their payload bytes (sums stop at UINT64_MAX) */
	uint64_t compute_ps;             /* sum of TOP_COMPUTE durations */
	uint64_t compute_cpu_ps;         /* sum of their CPU times (format 2) */
	double compute_flops;            /* sum of TOP_COMPUTE_FLOPS flops */
	uint64_t encoded_bytes;          /* sum of rank_bytes */
};
int trace_archive_stats(struct trace_archive *a, struct trace_stats *s, struct nl_err *err);

/* --- text form (dump / encode) ---------------------------------------------- */

/* Write the archive as text (docs/trace-format.md §8): manifest, then every
 * rank's ops (only `rank` when rank >= 0). */
int trace_dump(struct trace_archive *a, int64_t rank, FILE *out, struct nl_err *err);

/* is_unwritten, of the calls below that write an output (encode,
 * import, export, pack, unpack): out, or NULL; set true when the call
 * failed because its output could not be written once the work began (a
 * write, a temporary file or the rename failing: a full disk), left
 * alone for an error of the input or an output refused before any of it
 * was written (unpack's DIR that cannot be made). The exit status of a
 * command tells the two apart by it (docs/results.md "Exit status"),
 * not by the message's text. */

/* Read that text back and write the archive it describes; a dump of a
 * whole archive encodes to the same bytes. Errors name the line. */
int trace_encode_text(const char *text_path, const char *out_path, bool *is_unwritten, struct nl_err *err);

/* --- reproducibility bundles ------------------------------------------------ */

/* Pack traces (and an optional system config) into one file, each entry
 * with its name (basename), size and XXH64 (docs/trace-format.md §9). */
int trace_bundle_pack(const char *out_path, const char *const *traces, size_t n_traces,
		      const char *config_path, bool *is_unwritten, struct nl_err *err);

/* Restore a bundle's files into dir (created if missing), byte for byte;
 * each file is checked against its hash and written atomically. On
 * success *names (if not NULL) lists what was written (caller frees each
 * and the array). */
int trace_bundle_unpack(const char *bundle_path, const char *dir, char ***names, size_t *n_names,
			bool *is_unwritten, struct nl_err *err);

/* --- importers ------------------------------------------------------------ */

/* Convert a foreign trace to an archive: a DUMPI .meta file (its rank .bin
 * files beside it), a SimGrid time-independent trace (index file or an
 * actions file whose ranks are 0 .. n-1) or an OTF2 archive. Calls the
 * importer cannot represent are counted and listed through `warn` (one
 * line each), never silently dropped. Input of no known format fails with
 * NL_EFORMAT "unknown trace format: expected ...", a netloom archive with
 * its reader's error or, when intact, NL_EINVAL. */
typedef void (*trace_warn_fn)(void *ctx, const char *line);
/* Which importer handles in_path ("dumpi", "simgrid", "otf2"), or NULL. */
const char *trace_import_detect(const char *in_path);
/* What a command that reads any trace (replay) makes of in_path: 0 with
 * *importer = NULL for a netloom archive, or the first bytes of one
 * (trace_archive_open then says what is wrong with it: a file holding
 * only 1 .. 63 bytes of it is truncated), 0 with *importer = the
 * importer's name for a foreign trace; otherwise the error: the file
 * cannot be read (NL_ENOTFOUND, NL_EIO) or NL_EFORMAT "unknown trace
 * format: expected ..." listing every format read. */
int trace_input_format(const char *in_path, const char **importer, struct nl_err *err);
/* A file a foreign trace reads besides the one given (trace_input_files). */
struct trace_input_file {
	const char *path; /* as the importer opens it */
	int64_t rank;     /* the rank whose file it is; -1 for one of the whole trace */
	const char *what; /* "file" (a rank's), "events", "definitions", "global definitions", "anchor file" */
};
/* Called for each file: 0 to go on, a negative code to stop the walk with it. */
typedef int (*trace_input_file_fn)(void *ctx, const struct trace_input_file *f);
/* The files trace_import reads from in_path besides in_path itself,
 * without converting it: a DUMPI .meta's rank files (<fileprefix>-NNNN.bin,
 * found as the import finds them), a SimGrid index's actions files, an
 * OTF2 archive's global definitions, then each rank's location's events
 * and local definitions (its anchor too, for a directory holding
 * traces.otf2). `each` is called for every file before it is read; a
 * netloom archive, a SimGrid actions file and a file of no known format
 * read none. A trace the import would refuse returns its error, after
 * the files found before it. Pointers in *f are valid during the call
 * only. A command compares them with its outputs: an output naming one
 * would replace the trace it converts. */
int trace_input_files(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err);
int trace_import(const char *in_path, const char *out_path, trace_warn_fn warn, void *warn_ctx,
		 struct nl_err *err);
/* The same, reporting progress (fraction of ranks converted) to
 * `progress`, and is_unwritten as trace_encode_text. */
int trace_import_ex(const char *in_path, const char *out_path, trace_warn_fn warn, void *warn_ctx,
		    trace_progress_fn progress, void *progress_ctx, bool *is_unwritten, struct nl_err *err);

/* --- OTF2 export (docs/trace-format.md, OTF2) ------------------------------------
 *
 * Without the OTF2 library every call fails with NL_EUNSUPPORTED. */

/* An OTF2 archive being written to `dir` (which must not exist): ranks and
 * communicators from m; written under a temporary name (registered for
 * SIGINT/SIGTERM), renamed by finish, removed by free when unfinished. A
 * failed write leaves no `dir`: OTF2 raises write errors (a full disk)
 * without returning them, so the writer keeps the first it raises, and
 * every step checks it and its own return; the error names `dir`, the
 * step and OTF2's cause ("DIR: cannot write the OTF2 archive (events):
 * File is too large"), NL_EIO. */
struct trace_otf2_writer;
int trace_otf2_writer_new(struct trace_otf2_writer **w, const char *dir, const struct trace_manifest *m,
			  struct nl_err *err);
/* One op of `rank` (its region and records) from start_ps to end_ps;
 * per rank in order. */
int trace_otf2_writer_op(struct trace_otf2_writer *w, uint32_t rank, const struct trace_op *op, uint64_t start_ps,
			 uint64_t end_ps, struct nl_err *err);
/* Write the definitions and move the archive into place; ops that have no
 * OTF2 record are counted through `warn` (one line per kind). Each file
 * is checked as it is closed (OTF2 writes its buffers then): on any
 * failure nothing is moved into place, and free removes the temporary
 * directory. */
int trace_otf2_writer_finish(struct trace_otf2_writer *w, trace_warn_fn warn, void *warn_ctx, struct nl_err *err);
void trace_otf2_writer_free(struct trace_otf2_writer *w);
/* An archive with its recorded times (`netloom trace export --otf2`);
 * is_unwritten as trace_encode_text (the writer's errors above, not the
 * archive's). */
int trace_export_otf2(struct trace_archive *a, const char *dir, trace_warn_fn warn, void *warn_ctx,
		      bool *is_unwritten, struct nl_err *err);

#endif
