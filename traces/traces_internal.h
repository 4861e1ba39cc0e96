/* Helpers shared inside traces/: the archive's byte-level constants, LEB128
 * varints, XXH64, the op codec, the stream builder used by importers and
 * `trace encode`, and the importer plug-in interface.
 *
 * Everything here is the format of docs/trace-format.md; a change to a
 * constant or to the codec is a format change (bump TRACE_FORMAT_VERSION).
 */
#ifndef NETLOOM_TRACES_TRACES_INTERNAL_H
#define NETLOOM_TRACES_TRACES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h> /* mode_t */

#define XXH_STATIC_LINKING_ONLY /* XXH64_state_t by value: see struct trace_xxh64 */
#include <xxhash.h>
#include <zstd.h> /* ZSTD_DCtx (struct trace_archive) */

#include "netloom/netloom.h" /* NL_EIO (trace_out_rc) */
#include "traces/trace.h"

struct nl_err;
struct stat;

/* --- format constants (docs/trace-format.md §2-§5) ------------------------ */

#define TRACE_MAGIC "\x89NLT\r\n\x1a\n"        /* archive, 8 bytes (PNG-style: catches text-mode copies) */
#define TRACE_STREAM_MAGIC "\x89NLS\r\n\x1a\n" /* per-rank stream file, 8 bytes */
#define TRACE_BUNDLE_MAGIC "\x89NLB\r\n\x1a\n" /* reproducibility bundle (bundle.c), 8 bytes */
#define TRACE_HEADER_SIZE 64u
#define TRACE_STREAM_HEADER_SIZE 24u
#define TRACE_CHUNK_FRAME 'F'
#define TRACE_CHUNK_END 'E'
#define TRACE_FRAME_HDR_SIZE 13u /* 'F', u32 n_ops, u32 raw_len, u32 comp_len */
#define TRACE_END_SIZE 25u       /* 'E', u64 n_ops, u64 raw_bytes, u64 hash */
#define TRACE_FRAME_TARGET_DEFAULT 65536u
#define TRACE_FRAME_TARGET_MIN 256u
#define TRACE_FRAME_TARGET_MAX (16u << 20)
#define TRACE_ZSTD_LEVEL_DEFAULT 3
/* Reader limits: a frame (raw) and the metadata block may not exceed these,
 * so a corrupt length cannot make the reader allocate without bound. */
#define TRACE_FRAME_RAW_MAX (64u << 20)
/* Decoded frame bytes all rank readers of an archive keep together, and
 * the least one keeps (reader.c: a reader keeps a window of its frame,
 * TRACE_READ_BUDGET / n_ranks bytes, at least TRACE_READ_WINDOW_MIN; a
 * window holds ops of 10-20 bytes, and grows to hold a larger one). Not
 * part of the format. */
#define TRACE_READ_BUDGET (64u << 20)
#define TRACE_READ_WINDOW_MIN 4096u
#define TRACE_META_RAW_MAX (256u << 20)
#define TRACE_STR_MAX (1u << 20)

/* Op field mask bits, in the order fields follow in an encoded op. */
enum {
	TRACE_M_PEER = 1u << 0,
	TRACE_M_TAG = 1u << 1,
	TRACE_M_BYTES = 1u << 2,
	TRACE_M_REQ = 1u << 3,
	TRACE_M_COMM = 1u << 4,
	TRACE_M_FLAGS = 1u << 5,
	TRACE_M_REQS = 1u << 6,
	TRACE_M_NDONE = 1u << 7,
	TRACE_M_RPEER = 1u << 8,
	TRACE_M_RTAG = 1u << 9,
	TRACE_M_RBYTES = 1u << 10,
	TRACE_M_FLOPS = 1u << 11,
	TRACE_M_NCOUNTS = 1u << 12,
	TRACE_M_SCOUNTS = 1u << 13,
	TRACE_M_RCOUNTS = 1u << 14,
	TRACE_M_NEWCOMM = 1u << 15,
	TRACE_M_COLOR = 1u << 16,
	TRACE_M_KEY = 1u << 17,
	TRACE_M_CPU = 1u << 18, /* format version 2: compute's cpu_ps */
	TRACE_M_ALL = (1u << 19) - 1,
};

/* Version 2 metadata flags (after the host fields). */
enum {
	TRACE_MF_COMPUTE_CPU = 1u << 0, /* compute ops carry cpu_ps */
};

/* --- little-endian fixed-width ------------------------------------------- */

static inline void trace_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void trace_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t trace_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t trace_get_u64(const uint8_t *p)
{
	return (uint64_t)trace_get_u32(p) | (uint64_t)trace_get_u32(p + 4) << 32;
}

/* --- varints: unsigned LEB128, at most 10 bytes, minimal form --------------- */

#define TRACE_VARINT_MAX 10

static inline size_t trace_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Decode one varint from p[0..len). Returns the bytes used, or 0 when the
 * input ends inside the varint, is longer than 10 bytes, overflows 64 bits
 * or is not minimal (a multi-byte varint ending in a zero byte). */
static inline size_t trace_varint_get(const uint8_t *p, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	for (size_t i = 0; i < len && i < TRACE_VARINT_MAX; i++) {
		uint8_t b = p[i];
		if (i == 9 && b > 1)
			return 0;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i > 0 && b == 0)
				return 0;
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

static inline uint64_t trace_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t trace_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* --- XXH64 (libxxhash, seed 0) -------------------------------------------- */

/* A streaming state the caller owns (in a struct or on the stack). Its
 * layout is libxxhash's, which the library allows only when linked
 * statically: meson.build links libxxhash.a, never libxxhash.so. */
struct trace_xxh64 {
	XXH64_state_t state;
};

void trace_xxh64_init(struct trace_xxh64 *s, uint64_t seed);
void trace_xxh64_update(struct trace_xxh64 *s, const void *data, size_t len);
uint64_t trace_xxh64_digest(const struct trace_xxh64 *s);
uint64_t trace_xxh64(const void *data, size_t len, uint64_t seed);

/* --- op codec (docs/trace-format.md §6) ----------------------------------- */

/* Bytes an op needs at most (its exact encoding is never longer). */
size_t trace_op_encoded_max(const struct trace_op *op);

/* Check an op the writer is given: kind in range, arrays present when
 * counted, finite non-negative flops, cpu time only on compute and at
 * most its dur. */
int trace_op_check(const struct trace_op *op, struct nl_err *err);
/* Can format `version` hold op (its kind, its cpu time)? The message
 * names no file: callers prefix what they write. */
int trace_op_check_version(const struct trace_op *op, uint32_t version, struct nl_err *err);

/* Append op's encoding to p (room: trace_op_encoded_max); *prev_end_ps is
 * the delta base, updated to op->t_ps + op->dur_ps. Returns bytes written. */
size_t trace_op_encode(uint8_t *p, const struct trace_op *op, uint64_t *prev_end_ps);

/* Scratch arrays an op decoder hands out (grown as needed, owned by the
 * decoder's user), and the text of its last refusal, which names the
 * field and value (valid until the next decode). */
struct trace_op_arrays {
	uint64_t *send_counts, *recv_counts;
	uint32_t *reqs;
	uint32_t cap_send, cap_recv, cap_reqs;
	char what[128];
};
void trace_op_arrays_release(struct trace_op_arrays *a);

/* Decode one op from p[0..len) into *op (arrays point into *arr). Returns
 * bytes used (> 0), or a negative NL_ECORRUPT with *what set to a short
 * description naming the field ("bad varint", "unknown op kind 77
 * (expected 0 .. 48)", "req present in mask (bit 3) but zero", ...). */
int trace_op_decode(const uint8_t *p, size_t len, struct trace_op *op, uint64_t *prev_end_ps,
		    struct trace_op_arrays *arr, const char **what);

/* Field-by-field equality (arrays by content). */
bool trace_op_equal(const struct trace_op *a, const struct trace_op *b);

/* --- an op's meaning in its trace (`trace verify`, `trace encode`) ----------
 *
 * One set of rules (reader.c), so that encode writes no archive verify
 * refuses. m->comms as an opened archive's: world and self first, the
 * others sorted by id. */

/* Which communicators each world rank is in: rank r's are
 * (*idx)[(*first)[r] .. (*first)[r + 1]), indices into m->comms (>= 2);
 * the caller frees both. Returns 0, NL_ENOMEM, or NL_ECORRUPT for a
 * communicator listing a world rank twice (replay refuses it): m->comms
 * [*dup_i]'s member *dup_j. */
int trace_comm_members(const struct trace_manifest *m, uint32_t **first, uint32_t **idx, uint32_t *dup_i,
		       uint32_t *dup_j);
/* Check one op of world rank `rank` as replay does (app.c, app_ops.c,
 * docs/trace-format.md §6, §7): its communicators defined, the rank a
 * member (is_member[i]: whether it is in m->comms[i]), peers and roots
 * ranks of the communicator, per-rank counts its size, n_done in its
 * kind's range, cpu time. Returns NULL, or the reason in buf, naming the
 * field as the text form writes it ('peer=5: not a rank of ...'). is_text:
 * the op is a text's (`trace encode`), whose 'comm' lines the hints on
 * communicators name; else an archive's, whose manifest they name. */
const char *trace_op_semantics(const struct trace_manifest *m, uint32_t rank, const uint8_t *is_member,
			       const struct trace_op *op, bool is_text, char *buf, size_t cap);

/* --- building an archive from ops (importers, `trace encode`) ---------------
 *
 * A builder owns one stream writer per rank, writing to temporary files next
 * to the output; finish() assembles the archive atomically and removes them.
 * With out_path NULL it writes nothing and instead round-trips every op
 * through the codec (the fuzz targets' oracle). */
struct trace_builder;

int trace_builder_new(struct trace_builder **b, const char *out_path, uint32_t n_ranks,
		      const struct trace_write_opts *opts, struct nl_err *err);
int trace_builder_op(struct trace_builder *b, uint32_t rank, const struct trace_op *op,
		     struct nl_err *err);
/* Close rank's stream now (it takes no more ops): keeps few files open. */
int trace_builder_end_rank(struct trace_builder *b, uint32_t rank, struct nl_err *err);
/* Write the archive; m->n_ranks must match, per-rank stream fields are
 * filled from the streams. */
int trace_builder_finish(struct trace_builder *b, struct trace_manifest *m, struct nl_err *err);
/* Ops written to a rank so far. */
uint64_t trace_builder_rank_ops(const struct trace_builder *b, uint32_t rank);
/* Whether a call above failed writing the output (a temporary stream or
 * the archive: a full disk), not on its op or manifest: the output
 * failing after the work began (trace_out_rc). false for a NULL b. */
bool trace_builder_is_unwritten(const struct trace_builder *b);
void trace_builder_free(struct trace_builder *b);

/* --- importers (plug-ins, registry in import.c) ----------------------------- */

/* Collects "skipped" calls by name for the one-line-per-name report. */
struct trace_skips {
	struct trace_skip {
		char *name;
		char *why;
		uint64_t count;
	} *v;
	size_t n, cap;
};
int trace_skips_add(struct trace_skips *s, const char *name, const char *why, uint64_t count);
void trace_skips_report(const struct trace_skips *s, trace_warn_fn warn, void *ctx);
void trace_skips_release(struct trace_skips *s);

struct trace_importer_ops {
	const char *name; /* "dumpi", "simgrid" */
	const char *help; /* one line */
	/* 1 when the file at path (first bytes in head[0..n)) is this format. */
	int (*probe)(const char *path, const uint8_t *head, size_t n);
	/* Convert; ops go to b (created here once the rank count is known).
	 * is_unwritten as trace_import_ex's: trace_builder_is_unwritten. */
	int (*import)(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
		      struct trace_skips *skips, trace_progress_fn progress, void *progress_ctx,
		      bool *is_unwritten, struct nl_err *err);
	/* The files import reads besides in_path (trace_input_files), or
	 * NULL: none. */
	int (*files)(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err);
};

extern const struct trace_importer_ops trace_import_dumpi_ops;
extern const struct trace_importer_ops trace_import_simgrid_ops;
extern const struct trace_importer_ops trace_import_otf2_ops;
/* Trace file properties of the OTF2 archives netloom writes
 * (export_otf2.c) and reads back (import_otf2.c): the manifest fields OTF2
 * has no definition for. HOSTS is "hosts ranks_per_host cores_per_host";
 * the recorded runtime is the recording's, where the events' end can be
 * later by a rounding. */
#define TRACE_OTF2_PROP_APPLICATION "NETLOOM::APPLICATION"
#define TRACE_OTF2_PROP_COMMAND_LINE "NETLOOM::COMMAND_LINE"
#define TRACE_OTF2_PROP_MACHINE "NETLOOM::MACHINE"
#define TRACE_OTF2_PROP_MPI_LIBRARY "NETLOOM::MPI_LIBRARY"
#define TRACE_OTF2_PROP_HOSTS "NETLOOM::HOSTS"
#define TRACE_OTF2_PROP_START_UNIX "NETLOOM::START_UNIX"
#define TRACE_OTF2_PROP_RUNTIME "NETLOOM::RECORDED_RUNTIME_S" /* %.17g: exact */
/* Written on every export: "1", the version of what follows. Its presence
 * tells the import the archive is netloom's own, whose collective sizes
 * invert exactly, whose size-1 communicators are not MPI_COMM_SELF and
 * whose Enter events carry the NETLOOM:: attributes below. */
#define TRACE_OTF2_PROP_EXPORT "NETLOOM::EXPORT"
#define TRACE_OTF2_PROP_RECORDER "NETLOOM::RECORDER"     /* the archive's recorder, when not empty */
#define TRACE_OTF2_PROP_COMPUTE_CPU "NETLOOM::COMPUTE_CPU" /* "1": compute regions carry NETLOOM::CPU_PS */
/* Event attributes of the Enter of an op's region: what OTF2 has no
 * record for. Probes (which have no record at all): PEER, TAG, COMM,
 * BYTES and DONE (n_done: found); cancel of a request the archive's
 * records name: REQUEST (the OTF2 request id) and DONE (n_done: the
 * cancel succeeded); any op: FLAGS (TRACE_F_IN_PLACE,
 * TRACE_F_NO_OUTCOME); compute: CPU_PS. */
#define TRACE_OTF2_ATTR_PEER "NETLOOM::PEER"   /* int32 */
#define TRACE_OTF2_ATTR_TAG "NETLOOM::TAG"     /* int32 */
#define TRACE_OTF2_ATTR_COMM "NETLOOM::COMM"   /* comm ref */
#define TRACE_OTF2_ATTR_BYTES "NETLOOM::BYTES" /* uint64 */
#define TRACE_OTF2_ATTR_DONE "NETLOOM::DONE"   /* uint32 */
#define TRACE_OTF2_ATTR_FLAGS "NETLOOM::FLAGS" /* uint32 */
#define TRACE_OTF2_ATTR_CPU "NETLOOM::CPU_PS"  /* uint64 */
#define TRACE_OTF2_ATTR_REQUEST "NETLOOM::REQUEST" /* uint64 */
/* A record's peer MPI_ANY_SOURCE (a receive that never matched: a
 * cancelled one) in netloom's export; MPI_PROC_NULL is
 * OTF2_UNDEFINED_UINT32, as the import reads any archive's. */
#define TRACE_OTF2_ANY_SOURCE 0xfffffffeu
/* An OTF2 anchor file (otf2_probe.c; built with or without the library). */
int trace_otf2_probe(const char *path, const uint8_t *head, size_t n);

/* In-memory entry points for the fuzz targets: parse one input and
 * round-trip every op through the codec, writing nothing. */
int trace_dumpi_import_mem(const uint8_t *data, size_t len, struct nl_err *err);
/* The same as rank 0 of an n_ranks job (1 .. 16; the other ranks have no
 * records): with 1, MPI_COMM_WORLD's communicator creation completes. */
int trace_dumpi_import_mem_ranks(const uint8_t *data, size_t len, uint32_t n_ranks, struct nl_err *err);
int trace_simgrid_import_mem(const uint8_t *data, size_t len, struct nl_err *err);

/* --- DUMPI binary records (dumpi_format.c) ----------------------------------
 *
 * A rank file is parsed from memory (the importer maps it): index record at
 * the end, header, datatype-size table, then the call stream, one record at
 * a time. Arguments are decoded from a per-call descriptor; arrays stay in
 * the file and are read with dumpi_arr(). */

#define DUMPI_N_LABELS 294        /* sst-dumpi funclabels.h, DUMPI 1.x .. 13.x */
#define DUMPI_END_OF_STREAM 293
#define DUMPI_MAX_ARGS 16

struct dumpi_arg {
	char type;    /* descriptor letter: i h b l (scalars), I H B (arrays), s S T J A x */
	bool present; /* false for a root-only field on a non-root rank */
	int64_t v;    /* scalar value (i sign-extended, h and b unsigned) */
	uint32_t n;   /* array elements / status entries */
	size_t off;   /* file offset of element 0 */
};

struct dumpi_rec {
	uint16_t label;
	uint64_t off;          /* file offset of the record */
	bool has_time;
	int64_t start_ns, stop_ns; /* wall clock (else CPU clock), ns since the epoch */
	uint32_t n_args;
	struct dumpi_arg a[DUMPI_MAX_ARGS];
};

struct dumpi_stream {
	const uint8_t *p;      /* the whole rank file */
	size_t len;
	const char *name;      /* for messages */
	uint32_t rank;
	uint8_t ver[3];
	uint64_t starttime;
	char *hostname;
	int32_t *type_sizes;   /* the file's datatype size table (may be empty) */
	uint32_t n_type_sizes;
	uint64_t body, end;    /* call stream [body, end) */
	size_t pos;
	uint32_t cpu_bias, wall_bias;
	int64_t sec_last[2];   /* unwrapping the 16-bit seconds: cpu, wall */
	uint64_t footer_calls[DUMPI_N_LABELS]; /* footer call counts minus ignored (0 if absent) */
	bool has_footer;
};

int dumpi_stream_open(struct dumpi_stream *s, const uint8_t *p, size_t len, const char *name, uint32_t rank,
		      struct nl_err *err);
/* 1 with *r filled, 0 at the end of the stream, or an error naming the
 * file, rank and offset. */
int dumpi_stream_next(struct dumpi_stream *s, struct dumpi_rec *r, struct nl_err *err);
void dumpi_stream_release(struct dumpi_stream *s);
/* Element i of an I/H/B array argument; status entry i of an x argument
 * (bytes, source). */
int64_t dumpi_arr(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i);
void dumpi_status(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i, int32_t *bytes,
		  int32_t *source);
/* The cancelled field (0 or 1) of status entry i < a->n of an x argument. */
int dumpi_status_cancelled(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i);
/* String i of an A/S argument (not NUL-terminated: *len bytes at the result). */
const char *dumpi_str(const struct dumpi_stream *s, const struct dumpi_arg *a, uint32_t i, uint32_t *len);
/* "MPI_Isend", or NULL for an unused label. */
const char *dumpi_label_name(unsigned label);

/* --- DUMPI import, shared by its two passes (dumpi_comms.c, import_dumpi.c) */

/* Labels used here (sst-dumpi funclabels.h order). */
enum {
	DL_Send = 0, DL_Recv = 1, DL_Bsend = 3, DL_Ssend = 4, DL_Rsend = 5, DL_Isend = 8, DL_Ibsend = 9,
	DL_Issend = 10, DL_Irsend = 11, DL_Irecv = 12, DL_Wait = 13, DL_Test = 14, DL_Request_free = 15,
	DL_Waitany = 16, DL_Testany = 17, DL_Waitall = 18, DL_Testall = 19, DL_Waitsome = 20,
	DL_Testsome = 21, DL_Iprobe = 22, DL_Probe = 23, DL_Cancel = 24, DL_Test_cancelled = 25, DL_Send_init = 26, DL_Bsend_init = 27,
	DL_Ssend_init = 28, DL_Rsend_init = 29, DL_Recv_init = 30, DL_Start = 31, DL_Startall = 32,
	DL_Sendrecv = 33, DL_Sendrecv_replace = 34, DL_Type_contiguous = 35, DL_Type_vector = 36,
	DL_Type_hvector = 37, DL_Type_indexed = 38, DL_Type_hindexed = 39, DL_Type_struct = 40,
	DL_Type_free = 47, DL_Barrier = 52, DL_Bcast = 53, DL_Gather = 54, DL_Gatherv = 55,
	DL_Scatter = 56, DL_Scatterv = 57, DL_Allgather = 58, DL_Allgatherv = 59, DL_Alltoall = 60,
	DL_Alltoallv = 61, DL_Reduce = 62, DL_Allreduce = 65, DL_Reduce_scatter = 66, DL_Scan = 67,
	DL_Comm_group = 72, DL_Group_union = 73, DL_Group_intersection = 74, DL_Group_difference = 75,
	DL_Group_incl = 76, DL_Group_excl = 77, DL_Group_range_incl = 78, DL_Group_range_excl = 79,
	DL_Group_free = 80, DL_Comm_rank = 82, DL_Comm_dup = 84, DL_Comm_create = 85, DL_Comm_split = 86,
	DL_Comm_free = 87, DL_Cart_create = 99, DL_Graph_create = 101, DL_Cart_sub = 111,
	DL_Init = 124, DL_Finalize = 125, DL_Alltoallw = 155, DL_Exscan = 156, DL_Init_thread = 171,
	DL_Type_dup = 178, DL_Type_create_darray = 217, DL_Type_create_hindexed = 218,
	DL_Type_create_hvector = 219, DL_Type_create_indexed_block = 220, DL_Type_create_resized = 221,
	DL_Type_create_struct = 222, DL_Type_create_subarray = 223,
};

/* DUMPI constants (constants.h). */
enum { DH_COMM_NULL = 1, DH_COMM_WORLD = 2, DH_COMM_SELF = 3 };
enum { DH_GROUP_NULL = 1, DH_GROUP_EMPTY = 2 };
enum { DH_REQUEST_NULL = 1 };
#define DUMPI_DT_FIRST_USER 28


#define DUMPI_GID_UNKNOWN (UINT32_MAX - 1)
#define DUMPI_H_NONE (-1)

/* A communicator of the whole job. */
struct dumpi_gcomm {
	uint32_t size;
	uint32_t *members;  /* world ranks in rank order; NULL for self */
	uint32_t ndims;     /* cartesian dims (cart_create / cart_sub), 0 otherwise */
	int32_t *dims;
};

struct dumpi_group {
	bool known;
	uint32_t n;
	uint32_t *wr;
};

/* What pass 1 decided for one creating call of a rank. */
struct dumpi_cresult {
	uint32_t gid;       /* new communicator, TRACE_COMM_NULL or DUMPI_GID_UNKNOWN */
	int32_t color, key; /* for the op (cart_sub: computed) */
};

struct dumpi_p1_rank {
	struct dumpi_stream st;
	int64_t *comm;      /* handle -> gid, DUMPI_H_NONE */
	uint32_t n_comm;
	struct dumpi_group *grp;
	uint32_t n_grp;
	uint64_t *seq;      /* per parent gid: creating calls so far */
	uint32_t n_seq;
	struct dumpi_cresult *res;
	size_t n_res, cap_res;
	int64_t bucket;     /* waiting on this bucket, or -1 */
	uint16_t new_handle;
	bool done;
};

struct dumpi_part {
	bool in;
	uint32_t rank;
	uint16_t label;
	int32_t color, key;
	struct dumpi_group g;     /* create: the group given */
	uint32_t ndims;     /* cart_create dims / cart_sub remain_dims */
	int32_t *dims;
	int64_t nodes;      /* graph_create */
};

struct dumpi_bucket {
	uint32_t parent;
	uint64_t seq;
	uint32_t n_in;
	bool open;
	struct dumpi_part *parts; /* [parent size], by rank in parent */
};

struct dumpi_import {
	const char *in;      /* the .meta path (messages) */
	uint32_t n_ranks;
	uint32_t n_files;    /* ranks with a file; the others have no records */
	char **paths;        /* rank files */
	uint8_t **map;
	size_t *len;
	struct dumpi_gcomm *gc;
	uint32_t n_gc, cap_gc;
	struct dumpi_p1_rank *p1;
	struct dumpi_bucket *bk;
	size_t n_bk, cap_bk;
	struct trace_skips *skips;
	struct nl_err *err;
	struct trace_builder *b;
	trace_progress_fn progress;
	void *progress_ctx;
	double runtime_s;
	bool is_peer_outside; /* the error is a peer past its communicator's size */
	char app[256], cmd[1024];
	uint8_t ver[3];
	/* pass-2 scratch */
	uint64_t *c1, *c2;
	uint32_t *reqs;
	size_t cap_c, cap_reqs;
};

int dumpi_nomem(struct dumpi_import *d);
int dumpi_rec_err(struct dumpi_import *d, uint32_t rank, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool dumpi_grow(void **p, uint32_t *n, uint32_t want, size_t elem, int fill);
int64_t dumpi_comm_get(int64_t *m, uint32_t n, uint16_t h);
bool dumpi_comm_set(int64_t **m, uint32_t *n, uint16_t h, int64_t gid);
void dumpi_init_comm_map(int64_t **m, uint32_t *n);
int dumpi_new_gcomm(struct dumpi_import *d, uint32_t size, const uint32_t *members, uint32_t *gid);
uint32_t dumpi_gc_size(const struct dumpi_import *d, uint32_t gid);
void dumpi_group_free(struct dumpi_group *g);
void dumpi_part_free(struct dumpi_part *pt);
/* Is r a communicator-creating call pass 1 resolves? Gives the parent and
 * new handles. */
bool dumpi_creation(const struct dumpi_rec *r, uint16_t *parent, uint16_t *newh);
/* Pass 1 over every rank: fills each rank's creation results. */
int dumpi_pass1(struct dumpi_import *d);
/* Pass 2 for one rank: its ops to d->b, using pass 1's results. */
int dumpi_pass2_rank(struct dumpi_import *d, uint32_t rank);

/* --- SimGrid import, shared by import_simgrid.c and simgrid_actions.c -- */

#define SIMGRID_MAX_RANKS (1u << 20)
#define SIMGRID_MAX_TOKENS 4096

struct simgrid_pending {
	uint32_t req;
	int32_t src, dst, tag;
};

struct simgrid_rank {
	uint32_t dt_default;        /* bytes of the default datatype */
	struct simgrid_pending *pend;    /* outstanding isend/irecv, oldest first */
	size_t n_pend, cap_pend;
	uint32_t *free_ids;         /* request ids to reuse */
	size_t n_free, cap_free;
	uint32_t next_req;
};

struct simgrid_import {
	const char *file;           /* current input, for messages */
	uint64_t line_no;
	struct nl_err *err;
	uint32_t n_ranks;
	int tagged;                 /* 1 tagged (>= 3.20), 0 untagged, -1 undecided */
	struct trace_builder *b;
	struct trace_skips *skips;
	struct simgrid_rank *ranks;
	uint64_t *sc, *rc;          /* count scratch [n_ranks] */
	uint32_t *reqs;
	size_t cap_reqs;
	const char *hint;           /* appended to out-of-range rank errors */
	bool is_rank_count_short;   /* the error names a rank or count list beyond n_ranks */
	trace_progress_fn progress;
	void *progress_ctx;
};

int simgrid_err(struct simgrid_import *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Split a line in place on spaces and tabs; -1 past max fields. */
int simgrid_tokenize(char *line, char **tok, int max);
bool simgrid_parse_int(const char *t, long long lo, long long hi, long long *v);
/* Blank or '#' comment line (xbt_replay skips them). */
bool simgrid_blank(const char *line);
/* Lower-cased action name (older traces spell "Isend", "waitAll", ...). */
const char *simgrid_canonical(const char *raw, char *buf, size_t cap);
/* Evidence of the format generation from one line: +1 tagged, -1 untagged. */
int simgrid_generation_hint(const char *act, int n_args);
int simgrid_skip(struct simgrid_import *s, const char *name, const char *why);
/* One action of `rank`; a[0..n) are its arguments (after rank and name). */
int simgrid_action(struct simgrid_import *s, uint32_t rank, const char *act, char **a, int n);

/* --- small shared utilities ------------------------------------------------ */

/* "PATH: is a directory, not a trace file", as every command that reads a
 * trace says it (an archive, or replay's and trace import's foreign
 * traces); hint, when not NULL, adds in parentheses the directory the
 * command would take (an OTF2 archive's). NL_EIO. */
int trace_dir_error(const char *path, const char *hint, struct nl_err *err);

/* "PATH: is not a regular file (a FIFO), not a WHAT" (mode: the file's),
 * NL_EIO: said of an input that is read more than once or mapped, which
 * a pipe cannot be. */
int trace_not_regular(const char *path, mode_t mode, const char *what, struct nl_err *err);

/* Open path read-only as a regular file, never waiting on a FIFO (which
 * open(2) does until a writer comes): the descriptor (>= 0) with *st
 * filled, or a negative error, "PATH: cannot open: REASON" (NL_ENOTFOUND
 * when missing), "PATH: is a directory, not a WHAT" or trace_not_regular's. */
int trace_open_regular(const char *path, const char *what, struct stat *st, struct nl_err *err);

/* 3 when p[0..n) starts with UTF-8's byte order mark (EF BB BF), else 0.
 * Editors on Windows start a text file with it; the text inputs (SimGrid
 * traces and indexes, DUMPI .meta files, `trace encode`'s text) are read
 * as if it were not there. */
size_t trace_utf8_bom_len(const uint8_t *p, size_t n);
/* line past a byte order mark when it is a file's first line (line_no 1),
 * else line: what a line-by-line text reader parses. */
char *trace_skip_bom(char *line, uint64_t line_no);

/* The op flags' names in the text form (section 8), as `trace dump`
 * writes them and `trace encode` reads them (text.c, text_encode.c). */
#define TRACE_N_FLAG_NAMES 3
struct trace_flag_name {
	uint16_t bit;
	const char *name;
};
extern const struct trace_flag_name trace_flag_names[TRACE_N_FLAG_NAMES];

/* What a command that reads a trace takes, for the lines below that name
 * a file it does not: an archive only (info, dump, verify, export, pack),
 * a foreign trace only (convert, import), or either (replay). */
enum trace_takes { TRACE_TAKES_NLT, TRACE_TAKES_FOREIGN, TRACE_TAKES_ANY };

/* When path is a reproducibility bundle, given where a trace is read:
 * "PATH: a netloom bundle, not a trace: expected a .nlt or a foreign
 * trace; unpack it first (netloom trace unpack PATH DIR)" (what is
 * expected by `takes`), NL_EINVAL, and true; false, err untouched, for any
 * other file. */
bool trace_bundle_given(const char *path, enum trace_takes takes, struct nl_err *err);
/* When path is a rank's stream file (TRACE_STREAM_MAGIC: what the recorder
 * writes per rank, and leaves behind when a run does not reach
 * MPI_Finalize), given where a trace is read: "PATH: a rank's stream file,
 * which netloom-record writes while the program runs, not an archive: ...;
 * delete it (docs/recorder.md, section Failures)", NL_EINVAL, and true;
 * false, err untouched, for any other file. */
bool trace_stream_given(const char *path, struct nl_err *err);
/* When path is the text form (its first line other than a comment or a
 * blank one starts 'netloom-trace '), given where an archive or a foreign
 * trace is read: "PATH: a netloom trace in text form, not an archive:
 * expected a .nlt or a foreign trace; encode it first (netloom trace
 * encode PATH OUT.nlt)" (what is expected by `takes`), NL_EINVAL, and
 * true; false, err untouched, for any other file. Reads at most the first
 * 4 KiB. */
bool trace_text_given(const char *path, enum trace_takes takes, struct nl_err *err);

/* "a .nlt", "a foreign trace" or "a .nlt or a foreign trace". */
const char *trace_takes_text(enum trace_takes takes);

/* malloc'd copy of s (NULL for NULL). */
char *trace_strdup(const char *s);

/* Is p[0..n) text: valid UTF-8 without control bytes other than tab, CR
 * and LF (a multi-byte sequence cut off at n counts as text)? */
bool trace_is_text(const uint8_t *p, size_t n);
/* s copied into buf (cap >= 4 bytes) for an error message, with every byte
 * trace_is_text refuses written as \xHH (LF, CR and tab too); cut to fit.
 * Returns buf. */
const char *trace_escape(char *buf, size_t cap, const char *s);

/* A file written in place of `path` atomically: data goes to a temporary
 * file in the same directory, which commit() syncs and renames over path;
 * abort() (also after a failed write) removes it. The temporary file is
 * staged (core/staged.h) from open, before mkstemp creates it, until
 * commit or abort forgets it: with out_signals_catch's handler, a SIGINT
 * or SIGTERM meanwhile is recorded, and the next write (which polls),
 * commit or abort removes the file and ends the process by that signal
 * (a second signal unlinks it at once). One thread, as the staged list. */
struct trace_afile {
	int fd;
	char *tmp;  /* PATH.tmpXXXXXX (of the real file a link names), staged */
	char *path;
	bool is_hidden; /* set by the caller before open: tmp is DIR/.NAME.tmpXXXXXX (the recorder's) */
};
int trace_afile_open(struct trace_afile *f, const char *path, struct nl_err *err);
int trace_afile_write(struct trace_afile *f, const void *data, size_t len, struct nl_err *err);
int trace_afile_commit(struct trace_afile *f, struct nl_err *err);
void trace_afile_abort(struct trace_afile *f);

/* rc, returned as is, of a call that writes a command's output (its
 * archive, bundle or directory) after the work began: an input/output
 * error there is the output failing (a full disk), and sets
 * *is_unwritten (NULL: not wanted), so that the command's exit status
 * tells it from an error of the input by a flag, not by the message's
 * text (trace.h, docs/results.md "Exit status"). */
static inline int trace_out_rc(bool *is_unwritten, int rc)
{
	if (rc == NL_EIO && is_unwritten)
		*is_unwritten = true;
	return rc;
}

/* What one rank's stream file holds, in the terms of its header and end
 * chunk: what trace_stream_close_summary knows of the file it has just
 * written, and what trace_archive_write finds scanning a file it is given
 * only by name. */
struct trace_stream_summary {
	uint64_t offset;       /* where the stream starts in its file (0 unless shared) */
	uint64_t file_bytes;   /* the whole stream: header, frames, end chunk */
	uint64_t n_ops, raw_bytes, hash;
	uint64_t n_frames;
	uint32_t frame_target;
	int32_t level;
	uint32_t version;      /* format version (header offset 20) */
};

/* trace_stream_open_opts on a file already created and open for writing
 * (mkstemp's fd), so it is not opened again; path names it in messages
 * and is removed by trace_stream_abort. Takes fd: it is closed by the
 * writer, or here on failure. */
int trace_stream_open_fd(struct trace_stream_writer **w, uint32_t rank, int fd, const char *path,
			 const struct trace_write_opts *opts, struct nl_err *err);
/* The same, writing at the end of f, a file that streams written one
 * after another share (the builder's), which the caller owns: the writer
 * neither flushes nor closes f, and abort leaves it (the caller removes
 * it). The stream's place is the summary's offset. */
int trace_stream_open_shared(struct trace_stream_writer **w, uint32_t rank, FILE *f, const char *path,
			     const struct trace_write_opts *opts, struct nl_err *err);
/* trace_stream_close reporting all it knows of the stream it wrote. */
int trace_stream_close_summary(struct trace_stream_writer *w, struct trace_stream_summary *s,
			       struct nl_err *err);
/* trace_archive_write of streams this process has just written and
 * closed, written[rank] from trace_stream_close_summary (a shared file is
 * flushed by then): they are not scanned again, and each file is opened
 * once, for the copy (ranks in a row in one file keep it open), which
 * checks that each stream's header and end chunk are still what was
 * written and that the file ends there or another stream's header
 * follows. written NULL: scanned, as trace_archive_write. */
int trace_archive_write_streams(const char *path, const struct trace_manifest *m,
				const char *const *stream_paths,
				const struct trace_stream_summary *written, struct nl_err *err);

/* pread exactly len bytes at off; 0, or -1 with errno (0 = short file). */
/* *buf holds at least need bytes: grown (doubling, from 4 KiB) when
 * *cap is less. 0, or NL_ENOMEM with *buf and *cap as they were. */
int trace_bytes_reserve(uint8_t **buf, size_t *cap, size_t need);
int trace_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* Resolve the write options (zero fields = defaults) and check ranges. */
int trace_write_opts_resolve(const struct trace_write_opts *in, struct trace_write_opts *out,
			     struct nl_err *err);

/* --- an open archive (reader.c; opened by meta.c) --------------------------- */

struct trace_archive {
	int fd;
	char *path;
	uint64_t file_len;
	struct trace_write_opts opts;
	struct trace_manifest m;  /* owned; comms sorted by id, world and self first */
	uint64_t *sec_off;        /* [n_ranks] file offset of each rank's section */
	uint64_t *sec_len;        /* [n_ranks] */
	uint64_t *n_frames;       /* [n_ranks] */
	ZSTD_DCtx *dctx;          /* shared by the rank readers */
	uint8_t *comp;            /* shared compressed-frame buffer */
	size_t comp_cap;
	uint8_t *frame;           /* shared decoded frame: the one at frame_at */
	size_t frame_cap;
	uint64_t frame_at;        /* file offset of the frame in `frame`; 0: none */
	trace_progress_fn progress;
	void *progress_ctx;
};

/* meta.c: the steps of trace_archive_open. The file opened (a regular
 * file, or an error that says what it is), its size in *size; the fixed
 * header read and checked against it (format section 3.1), the metadata
 * block's length and hash out; the metadata block read, checked and
 * parsed into a (section 3.2). */
int trace_archive_open_file(struct trace_archive *a, uint64_t *size, struct nl_err *err);
int trace_archive_read_header(struct trace_archive *a, uint64_t size, uint64_t *meta_len, uint64_t *meta_hash,
			      struct nl_err *err);
int trace_archive_read_meta(struct trace_archive *a, uint64_t meta_len, uint64_t meta_hash, struct nl_err *err);
/* "PATH: offset OFF: what" into err; returns code. */
int trace_arch_err(struct trace_archive *a, struct nl_err *err, int code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The most a zstd frame of n bytes can decompress to (meta.c). */
uint64_t trace_zstd_max_output(uint64_t n);

#endif
