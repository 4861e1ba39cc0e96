/* Reading: archive header and metadata at open (meta.c), then each rank's
 * stream a frame at a time (pread + one shared decompression context and
 * decoded-frame buffer), so memory does not grow with the trace's length.
 * A rank reader keeps a window of its frame's decoded bytes, not the
 * frame: TRACE_READ_BUDGET shared among the archive's ranks, at least
 * TRACE_READ_WINDOW_MIN each, so replay, which keeps every rank's reader
 * open, holds about TRACE_READ_BUDGET of them whatever the number of ranks
 * (a whole 64 KiB frame each is 1 GiB at 16,384 ranks). A used-up window
 * is refilled from the shared frame, decompressed again if another rank's
 * frame replaced it: readers that interleave pay up to frame / window
 * decompressions per frame, readers used one at a time (verify, stats,
 * dump, export) none more.
 *
 * Every inconsistency is reported as "FILE: rank R, offset O: what", where
 * O is the absolute file offset of the chunk (or field) at fault.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"

struct trace_rank_reader {
	struct trace_archive *a;
	uint32_t rank;
	uint64_t pos, end;        /* next chunk's offset; section end */
	uint64_t frame_off;       /* offset of the frame being decoded */
	uint32_t frame_comp;      /* its compressed length */
	size_t raw_len, raw_pos;  /* its decoded length; the next op's offset in it */
	uint8_t *win;             /* its decoded bytes [win_start, win_start + win_len) */
	size_t win_cap, win_start, win_len;
	uint32_t frame_ops;       /* this frame's n_ops, as its header says */
	uint32_t frame_left;      /* ops still to decode in this frame */
	uint64_t prev_end_ps;
	uint64_t ops, bytes, frames;
	struct trace_xxh64 hash;
	struct trace_op_arrays arr;
	int state;                /* 0 reading, 1 done, < 0 failed (sticky) */
};

/* --- open ----------------------------------------------------------------- */

int trace_archive_open(struct trace_archive **ap, const char *path, struct nl_err *err)
{
	struct trace_archive *a;
	uint64_t size = 0, meta_len = 0, meta_hash = 0;
	int rc;

	*ap = NULL;
	NL_CHECK(nl_input_named(path, "trace file", NL_ENOTFOUND, err));
	a = calloc(1, sizeof *a);
	if (!a)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	a->fd = -1;
	a->path = trace_strdup(path);
	if (!a->path) {
		free(a);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	if ((rc = trace_archive_open_file(a, &size, err)) < 0 ||
	    (rc = trace_archive_read_header(a, size, &meta_len, &meta_hash, err)) < 0 ||
	    (rc = trace_archive_read_meta(a, meta_len, meta_hash, err)) != 0)
		goto fail;
	a->dctx = ZSTD_createDCtx();
	if (!a->dctx) {
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	*ap = a;
	return 0;
fail:
	trace_archive_close(a);
	return rc;
}

int trace_archive_open_again(const struct trace_archive *a, struct trace_archive **bp, struct nl_err *err)
{
	struct trace_archive *b;
	uint64_t meta_len = 0, meta_hash = 0;
	int rc;

	*bp = NULL;
	b = calloc(1, sizeof *b);
	if (!b)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
	b->fd = -1;
	b->path = trace_strdup(a->path);
	if (!b->path) {
		free(b);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
	}
	/* The descriptor, not the path: a converted trace's temporary
	 * archive is removed once open (cli_open_trace). The header and the
	 * metadata are read again, as the first open read them, rather than
	 * copied: they are a small part of the file, and a copy would be a
	 * second reader of the manifest's layout to keep in step. */
	b->fd = fcntl(a->fd, F_DUPFD_CLOEXEC, 0);
	if (b->fd < 0) {
		rc = nl_errf(err, errno == EMFILE || errno == ENFILE ? NL_ENOMEM : NL_EIO,
			     "%s: cannot open a second reader: %s", a->path, strerror(errno));
		goto fail;
	}
	if ((rc = trace_archive_read_header(b, a->file_len, &meta_len, &meta_hash, err)) < 0 ||
	    (rc = trace_archive_read_meta(b, meta_len, meta_hash, err)) != 0)
		goto fail;
	b->dctx = ZSTD_createDCtx();
	if (!b->dctx) {
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
		goto fail;
	}
	*bp = b;
	return 0;
fail:
	trace_archive_close(b);
	return rc;
}

void trace_archive_close(struct trace_archive *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	trace_manifest_release(&a->m);
	free(a->sec_off);
	free(a->sec_len);
	free(a->n_frames);
	ZSTD_freeDCtx(a->dctx);
	free(a->comp);
	free(a->frame);
	free(a->path);
	free(a);
}

const struct trace_manifest *trace_archive_manifest(const struct trace_archive *a)
{
	return &a->m;
}

void trace_archive_set_progress(struct trace_archive *a, trace_progress_fn fn, void *ctx)
{
	a->progress = fn;
	a->progress_ctx = ctx;
}

void trace_archive_write_opts(const struct trace_archive *a, struct trace_write_opts *o)
{
	*o = a->opts;
}

uint64_t trace_archive_file_bytes(const struct trace_archive *a)
{
	return a->file_len;
}

/* --- rank streams ------------------------------------------------------------ */

int trace_rank_open(struct trace_archive *a, uint32_t rank, struct trace_rank_reader **rp,
		    struct nl_err *err)
{
	*rp = NULL;
	if (rank >= a->m.n_ranks)
		return nl_errf(err, NL_ERANGE, "%s: rank %u: the archive has ranks 0 .. %u", a->path, rank,
			       a->m.n_ranks - 1);
	struct trace_rank_reader *r = calloc(1, sizeof *r);
	if (!r)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
	r->a = a;
	r->rank = rank;
	r->pos = a->sec_off[rank];
	r->end = a->sec_off[rank] + a->sec_len[rank];
	trace_xxh64_init(&r->hash, 0);
	*rp = r;
	return 0;
}

void trace_rank_close(struct trace_rank_reader *r)
{
	if (!r)
		return;
	free(r->win);
	trace_op_arrays_release(&r->arr);
	free(r);
}

static int rr_err(struct trace_rank_reader *r, struct nl_err *err, int code, uint64_t off, const char *fmt,
		  ...) __attribute__((format(printf, 5, 6)));
static int rr_err(struct trace_rank_reader *r, struct nl_err *err, int code, uint64_t off, const char *fmt,
		  ...)
{
	char what[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	r->state = code;
	return nl_errf(err, code, "%s: rank %u, offset %llu: %s", r->a->path, r->rank,
		       (unsigned long long)off, what);
}

/* A frame chunk's header fields (format section 4), each named with its
 * range: one "bad frame header (N ops, R raw bytes, C compressed)" named
 * no field and no range. */
static int rr_check_frame_header(struct trace_rank_reader *r, uint64_t off, uint32_t n_ops, uint32_t raw_len,
				 uint32_t comp_len, struct nl_err *err)
{
	if (!n_ops)
		return rr_err(r, err, NL_ECORRUPT, off, "frame header: n_ops 0: expected at least 1");
	if (!raw_len || raw_len > TRACE_FRAME_RAW_MAX)
		return rr_err(r, err, NL_ECORRUPT, off, "frame header: raw_len %u: expected 1 .. %u", raw_len,
			      TRACE_FRAME_RAW_MAX);
	if (!comp_len)
		return rr_err(r, err, NL_ECORRUPT, off, "frame header: comp_len 0: expected at least 1");
	return 0;
}

/* The payload's zstd frame header against the chunk's raw_len, before
 * anything is sized from it. A payload that is no zstd frame was said as
 * "frame content size -1" (ZSTD_CONTENTSIZE_ERROR printed as a size). */
static int rr_check_content_size(struct trace_rank_reader *r, uint64_t off, const uint8_t *comp, uint32_t comp_len,
				 uint32_t raw_len, struct nl_err *err)
{
	unsigned long long csize = ZSTD_getFrameContentSize(comp, comp_len);
	if (csize == ZSTD_CONTENTSIZE_ERROR)
		return rr_err(r, err, NL_ECORRUPT, off,
			      "payload at offset %llu is not a zstd frame: expected one of %u raw bytes",
			      (unsigned long long)(off + TRACE_FRAME_HDR_SIZE), raw_len);
	if (csize == ZSTD_CONTENTSIZE_UNKNOWN)
		return rr_err(r, err, NL_ECORRUPT, off,
			      "payload's zstd frame header gives no content size: expected %u (raw_len)", raw_len);
	if (csize != raw_len)
		return rr_err(r, err, NL_ECORRUPT, off,
			      "payload's zstd frame holds %llu bytes, frame header's raw_len says %u", csize, raw_len);
	return 0;
}

/* The compressed payload of the frame chunk at off into the shared buffer. */
static int rr_read_comp(struct trace_rank_reader *r, uint64_t off, uint32_t comp_len, struct nl_err *err)
{
	struct trace_archive *a = r->a;
	if (trace_bytes_reserve(&a->comp, &a->comp_cap, comp_len))
		return rr_err(r, err, NL_ENOMEM, off, "out of memory");
	if (trace_pread_full(a->fd, a->comp, comp_len, off + TRACE_FRAME_HDR_SIZE))
		return rr_err(r, err, NL_EIO, off, "read failed: %s", strerror(errno));
	return 0;
}

/* Decompress the shared compressed buffer (the frame chunk at off) into
 * the shared decoded frame, which then holds that frame. */
static int rr_inflate(struct trace_rank_reader *r, uint64_t off, uint32_t comp_len, uint32_t raw_len,
		      struct nl_err *err)
{
	struct trace_archive *a = r->a;
	a->frame_at = 0;
	if (trace_bytes_reserve(&a->frame, &a->frame_cap, raw_len))
		return rr_err(r, err, NL_ENOMEM, off, "out of memory");
	size_t d = ZSTD_decompressDCtx(a->dctx, a->frame, raw_len, a->comp, comp_len);
	if (ZSTD_isError(d) || d != raw_len)
		return rr_err(r, err, NL_ECORRUPT, off, "frame does not decompress: %s",
			      ZSTD_isError(d) ? ZSTD_getErrorName(d) : "wrong size");
	a->frame_at = off;
	return 0;
}

/* The window: up to `size` decoded bytes of the frame from the next op on
 * (the rest of the frame if less), copied from the shared frame, which is
 * read and decompressed again if it holds another frame now. The
 * window's buffer is cut back when it holds more than the archive's
 * window (after an op larger than that). */
static int rr_fill(struct trace_rank_reader *r, size_t size, size_t window, struct nl_err *err)
{
	struct trace_archive *a = r->a;
	size_t rest = r->raw_len - r->raw_pos, n = size < rest ? size : rest;
	int rc;
	if (a->frame_at != r->frame_off &&
	    ((rc = rr_read_comp(r, r->frame_off, r->frame_comp, err)) ||
	     (rc = rr_inflate(r, r->frame_off, r->frame_comp, (uint32_t)r->raw_len, err))))
		return rc;
	if (n > r->win_cap || (r->win_cap > n && r->win_cap > window)) {
		uint8_t *t = realloc(r->win, n);
		if (!t)
			return rr_err(r, err, NL_ENOMEM, r->frame_off, "out of memory");
		r->win = t;
		r->win_cap = n;
	}
	memcpy(r->win, a->frame + r->raw_pos, n);
	r->win_start = r->raw_pos;
	r->win_len = n;
	return 0;
}

/* The window of each of a's rank readers, bytes. */
static size_t rr_window(const struct trace_archive *a)
{
	size_t w = TRACE_READ_BUDGET / (a->m.n_ranks ? a->m.n_ranks : 1);
	return w > TRACE_READ_WINDOW_MIN ? w : TRACE_READ_WINDOW_MIN;
}

/* Read and decompress the next frame, or validate the end chunk.
 * Returns 1 (frame loaded), 0 (end reached) or an error. */
static int rr_next_chunk(struct trace_rank_reader *r, struct nl_err *err)
{
	struct trace_archive *a = r->a;
	uint8_t ch[TRACE_END_SIZE];
	uint64_t off = r->pos;

	if (off + 1 > r->end || trace_pread_full(a->fd, ch, 1, off))
		return rr_err(r, err, NL_ECORRUPT, off, "section ends without an end chunk");
	if (ch[0] == TRACE_CHUNK_END) {
		if (off + TRACE_END_SIZE != r->end || trace_pread_full(a->fd, ch, TRACE_END_SIZE, off))
			return rr_err(r, err, NL_ECORRUPT, off, "end chunk truncated or not at the section end");
		uint64_t n = trace_get_u64(ch + 1), b = trace_get_u64(ch + 9), h = trace_get_u64(ch + 17);
		uint64_t got = trace_xxh64_digest(&r->hash);
		if (n != r->ops || b != r->bytes)
			return rr_err(r, err, NL_ECORRUPT, off,
				      "end chunk says %llu ops / %llu bytes, the frames held %llu / %llu",
				      (unsigned long long)n, (unsigned long long)b, (unsigned long long)r->ops,
				      (unsigned long long)r->bytes);
		if (n != a->m.rank_ops[r->rank] || b != a->m.rank_bytes[r->rank])
			return rr_err(r, err, NL_ECORRUPT, off,
				      "op count mismatch: manifest says %llu ops / %llu bytes, stream has %llu / %llu",
				      (unsigned long long)a->m.rank_ops[r->rank],
				      (unsigned long long)a->m.rank_bytes[r->rank], (unsigned long long)n,
				      (unsigned long long)b);
		if (got != h || got != a->m.rank_hash[r->rank])
			return rr_err(r, err, NL_ECORRUPT, off,
				      "hash mismatch: stream hashes to %016llx, end chunk says %016llx, manifest %016llx",
				      (unsigned long long)got, (unsigned long long)h,
				      (unsigned long long)a->m.rank_hash[r->rank]);
		if (r->frames != a->n_frames[r->rank])
			return rr_err(r, err, NL_ECORRUPT, off, "section has %llu frames, the index says %llu",
				      (unsigned long long)r->frames, (unsigned long long)a->n_frames[r->rank]);
		r->state = 1;
		return 0;
	}
	if (ch[0] != TRACE_CHUNK_FRAME)
		return rr_err(r, err, NL_ECORRUPT, off, "unknown chunk type 0x%02x (expected 'F' or 'E')", ch[0]);
	if (off + TRACE_FRAME_HDR_SIZE > r->end || trace_pread_full(a->fd, ch, TRACE_FRAME_HDR_SIZE, off))
		return rr_err(r, err, NL_ECORRUPT, off, "truncated frame header");
	uint32_t n_ops = trace_get_u32(ch + 1), raw_len = trace_get_u32(ch + 5), comp_len = trace_get_u32(ch + 9);
	int rc = rr_check_frame_header(r, off, n_ops, raw_len, comp_len, err);
	if (rc)
		return rc;
	if (off + TRACE_FRAME_HDR_SIZE + comp_len > r->end)
		return rr_err(r, err, NL_ECORRUPT, off, "truncated frame: %u compressed bytes, section has %llu left",
			      comp_len, (unsigned long long)(r->end - off - TRACE_FRAME_HDR_SIZE));
	if (raw_len > trace_zstd_max_output(comp_len))
		return rr_err(r, err, NL_ECORRUPT, off, "frame claims %u raw bytes from %u compressed", raw_len,
			      comp_len);
	if ((rc = rr_read_comp(r, off, comp_len, err)) ||
	    (rc = rr_check_content_size(r, off, a->comp, comp_len, raw_len, err)) ||
	    (rc = rr_inflate(r, off, comp_len, raw_len, err)))
		return rc;
	trace_xxh64_update(&r->hash, a->frame, raw_len);
	r->bytes += raw_len;
	r->frames++;
	r->frame_off = off;
	r->frame_comp = comp_len;
	r->raw_len = raw_len;
	r->raw_pos = 0;
	r->win_start = r->win_len = 0;
	r->frame_ops = n_ops;
	r->frame_left = n_ops;
	r->prev_end_ps = 0;
	r->pos = off + TRACE_FRAME_HDR_SIZE + comp_len;
	if (a->progress && a->file_len > a->sec_off[0])
		a->progress(a->progress_ctx, (double)(r->pos - a->sec_off[0]) / (double)(a->file_len - a->sec_off[0]));
	return 1;
}

int trace_rank_next(struct trace_rank_reader *r, struct trace_op *op, struct nl_err *err)
{
	if (r->state == 1)
		return 0;
	if (r->state < 0)
		return nl_errf(err, r->state, "%s: rank %u: stream failed earlier", r->a->path, r->rank);
	while (!r->frame_left) {
		if (r->raw_pos != r->raw_len)
			return rr_err(r, err, NL_ECORRUPT, r->frame_off,
				      "frame has %zu bytes after its last op (its header says %u ops)",
				      r->raw_len - r->raw_pos, r->frame_ops);
		int rc = rr_next_chunk(r, err);
		if (rc <= 0)
			return rc;
	}
	/* A frame header claiming more ops than its bytes hold: said so, not
	 * as the next op's first varint "truncated" at the frame's end. */
	if (r->raw_pos == r->raw_len)
		return rr_err(r, err, NL_ECORRUPT, r->frame_off,
			      "frame header says %u ops, its %zu decoded bytes hold %u", r->frame_ops, r->raw_len,
			      r->frame_ops - r->frame_left);
	/* The op from the window; one the window cuts short fails to decode
	 * (a prefix of an encoding never decodes: the decoder reads its bytes
	 * in order), and is decoded again from a window starting at it,
	 * twice as long each time it fails, until the window reaches the
	 * frame's end: a corrupt op is then said as from the whole frame. */
	const char *what = NULL;
	size_t window = rr_window(r->a), size = window;
	int n;
	for (;;) {
		size_t avail = r->win_start + r->win_len - r->raw_pos;
		bool is_whole = r->win_start + r->win_len == r->raw_len;
		if (avail || is_whole) {
			n = trace_op_decode(r->win + (r->raw_pos - r->win_start), avail, op, &r->prev_end_ps, &r->arr,
					    &what);
			if (n >= 0 || is_whole || n == NL_ENOMEM)
				break;
			if (size <= avail)
				size = 2 * avail;
		}
		int rc = rr_fill(r, size, window, err);
		if (rc)
			return rc;
	}
	if (n < 0)
		return rr_err(r, err, n, r->frame_off, "op %llu (decoded byte %zu of the frame): %s",
			      (unsigned long long)r->ops, r->raw_pos, what);
	if (op->kind >= trace_op_kinds_in_version(r->a->m.format_version))
		return rr_err(r, err, NL_ECORRUPT, r->frame_off,
			      "op %llu (decoded byte %zu of the frame): op kind %s is not in format version %u",
			      (unsigned long long)r->ops, r->raw_pos, trace_op_name(op->kind),
			      r->a->m.format_version);
	if (op->cpu_ps && r->a->m.format_version < 2)
		return rr_err(r, err, NL_ECORRUPT, r->frame_off,
			      "op %llu (decoded byte %zu of the frame): cpu time is not in format version %u",
			      (unsigned long long)r->ops, r->raw_pos, r->a->m.format_version);
	r->raw_pos += (size_t)n;
	r->frame_left--;
	r->ops++;
	return 1;
}

/* --- verification -------------------------------------------------------- */

static bool peer_ok(int32_t p, uint32_t size, bool any_ok)
{
	if (p == TRACE_PROC_NULL || (any_ok && p == TRACE_ANY_SOURCE))
		return true;
	return p >= 0 && (uint32_t)p < size;
}

/* A peer as the text form writes it (text.c, put_peer). */
static const char *peer_str(char *buf, size_t cap, int32_t p)
{
	if (p == TRACE_ANY_SOURCE)
		return "any";
	if (p == TRACE_PROC_NULL)
		return "null";
	snprintf(buf, cap, "%d", p);
	return buf;
}

/* An id that is no communicator of m: the message lists those defined
 * (the first 8 and the count), and for a text how to define one (an
 * archive's verify said so too, of a 'comm' line it has none of). */
static const char *no_comm(const struct trace_manifest *m, const char *key, uint32_t id, bool is_text, char *buf,
			   size_t cap)
{
	char ids[128];
	uint32_t n_user = m->n_comms > 2 ? m->n_comms - 2 : 0;
	size_t o = (size_t)snprintf(ids, sizeof ids, "0 (world), 1 (self)");
	for (uint32_t i = 0; i < n_user && i < 8 && o < sizeof ids; i++)
		o += (size_t)snprintf(ids + o, sizeof ids - o, ", %u", m->comms[i + 2].id);
	if (n_user > 8 && o < sizeof ids)
		snprintf(ids + o, sizeof ids - o, ", ... (%u in all)", m->n_comms);
	snprintf(buf, cap, "%s=%u: not a communicator of the trace (defined: %s%s)", key, id, ids,
		 is_text ? "; a 'comm ID RANKS...' line before the first rank section defines one"
			 : ": world, self and those the manifest lists");
	return buf;
}

const char *trace_op_semantics(const struct trace_manifest *m, uint32_t rank, const uint8_t *is_member,
			       const struct trace_op *op, bool is_text, char *buf, size_t cap)
{
	char v[16];
	const struct trace_comm *c = trace_manifest_find_comm(m, op->comm);
	if (!c)
		return no_comm(m, "comm", op->comm, is_text, buf, cap);
	if (c->id >= 2 && !is_member[c - m->comms]) {
		snprintf(buf, cap, "comm=%u: rank %u is not a member of communicator %u (expected 0 (world), 1 "
			 "(self) or a communicator %s rank %u)", c->id, rank, c->id,
			 is_text ? "whose 'comm' line lists" : "the manifest lists with", rank);
		return buf;
	}
	bool any = false, rooted = false, p2p = false;
	switch (op->kind) {
	case TOP_RECV:
	case TOP_IRECV:
	case TOP_RECV_INIT:
	case TOP_PROBE:
	case TOP_IPROBE:
		any = true;
		/* fall through */
	case TOP_SEND:
	case TOP_SSEND:
	case TOP_BSEND:
	case TOP_RSEND:
	case TOP_ISEND:
	case TOP_ISSEND:
	case TOP_SEND_INIT:
	case TOP_SENDRECV:
		p2p = true;
		break;
	case TOP_BCAST:
	case TOP_REDUCE:
	case TOP_GATHER:
	case TOP_GATHERV:
	case TOP_SCATTER:
	case TOP_SCATTERV:
		rooted = true;
		break;
	case TOP_COMM_SPLIT:
	case TOP_COMM_DUP:
	case TOP_COMM_CREATE:
		if (op->new_comm != TRACE_COMM_NULL && !trace_manifest_find_comm(m, op->new_comm))
			return no_comm(m, "new_comm", op->new_comm, is_text, buf, cap);
		break;
	case TOP_CANCEL:
		if (op->n_done > 1 || (op->n_done && (op->flags & TRACE_F_NO_OUTCOME))) {
			snprintf(buf, cap, "cancel outcome n_done=%u%s: expected 0 or 1, or no_outcome alone",
				 op->n_done, op->flags & TRACE_F_NO_OUTCOME ? " with no_outcome" : "");
			return buf;
		}
		break;
	case TOP_COMPUTE:
		if (op->cpu_ps > op->dur_ps) {
			snprintf(buf, cap, "cpu %llu ps: expected at most dur (%llu ps)",
				 (unsigned long long)op->cpu_ps, (unsigned long long)op->dur_ps);
			return buf;
		}
		if (op->cpu_ps && !m->has_compute_cpu) {
			snprintf(buf, cap, "cpu %llu ps, but the manifest's compute_cpu flag is not set",
				 (unsigned long long)op->cpu_ps);
			return buf;
		}
		break;
	default:
		break;
	}
	/* n_done: how many of the listed requests completed (§6). */
	const char *want = NULL;
	switch (op->kind) {
	case TOP_WAIT:
	case TOP_TEST:
	case TOP_IPROBE:
		if (op->n_done > 1)
			want = "0 or 1";
		break;
	case TOP_WAITANY:
	case TOP_TESTANY:
		if (op->n_done > 1 || op->n_done > op->n_reqs)
			want = "0 or 1, at most n_reqs";
		break;
	case TOP_WAITSOME:
	case TOP_TESTSOME:
		if (op->n_done > op->n_reqs)
			want = "at most n_reqs";
		break;
	case TOP_WAITALL:
	case TOP_TESTALL:
		if (op->n_done && op->n_done != op->n_reqs)
			want = "0 or n_reqs";
		break;
	default:
		break;
	}
	if (want && (op->kind == TOP_WAIT || op->kind == TOP_TEST || op->kind == TOP_IPROBE)) {
		snprintf(buf, cap, "n_done=%u: expected %s", op->n_done, want);
		return buf;
	}
	if (want) {
		snprintf(buf, cap, "n_done=%u with %u request%s: expected %s", op->n_done, op->n_reqs,
			 op->n_reqs == 1 ? "" : "s", want);
		return buf;
	}
	if (p2p && !peer_ok(op->peer, c->size, any)) {
		snprintf(buf, cap, "peer=%s: not a rank of communicator %u (size %u): expected 0 .. %u%s",
			 peer_str(v, sizeof v, op->peer), c->id, c->size, c->size - 1,
			 any ? ", any or null" : " or null");
		return buf;
	}
	if (op->kind == TOP_SENDRECV && !peer_ok(op->recv_peer, c->size, true)) {
		snprintf(buf, cap, "recv_peer=%s: not a rank of communicator %u (size %u): expected 0 .. %u, any or "
			 "null", peer_str(v, sizeof v, op->recv_peer), c->id, c->size, c->size - 1);
		return buf;
	}
	if (rooted && (op->peer < 0 || (uint32_t)op->peer >= c->size)) {
		snprintf(buf, cap, "peer=%s: the root is not a rank of communicator %u (size %u): expected 0 .. %u",
			 peer_str(v, sizeof v, op->peer), c->id, c->size, c->size - 1);
		return buf;
	}
	if (op->n_counts && op->n_counts != c->size) {
		snprintf(buf, cap, "n_counts=%u: communicator %u has %u ranks: expected one count per rank",
			 op->n_counts, c->id, c->size);
		return buf;
	}
	return NULL;
}

int trace_comm_members(const struct trace_manifest *m, uint32_t **first_out, uint32_t **idx_out, uint32_t *dup_i,
		       uint32_t *dup_j)
{
	uint64_t total = 0;
	for (uint32_t i = 2; i < m->n_comms; i++)
		total += m->comms[i].size;
	uint32_t *first = calloc((size_t)m->n_ranks + 1, sizeof *first);
	uint32_t *idx = malloc((total ? total : 1) * sizeof *idx);
	/* comm index + 1 that last listed the rank */
	uint32_t *seen = calloc(m->n_ranks ? m->n_ranks : 1, sizeof *seen);
	int rc = 0;
	if (!first || !idx || !seen) {
		rc = NL_ENOMEM;
		goto done;
	}
	for (uint32_t i = 2; i < m->n_comms && !rc; i++) {
		const struct trace_comm *c = &m->comms[i];
		for (uint32_t j = 0; j < c->size; j++) {
			uint32_t w = c->world_ranks[j];
			if (seen[w] == i + 1) {
				*dup_i = i;
				*dup_j = j;
				rc = NL_ECORRUPT;
				break;
			}
			seen[w] = i + 1;
			first[w + 1]++;
		}
	}
	if (rc)
		goto done;
	for (uint32_t r = 0; r < m->n_ranks; r++)
		first[r + 1] += first[r];
	memset(seen, 0, m->n_ranks * sizeof *seen); /* now: entries filled per rank */
	for (uint32_t i = 2; i < m->n_comms; i++)
		for (uint32_t j = 0; j < m->comms[i].size; j++) {
			uint32_t w = m->comms[i].world_ranks[j];
			idx[first[w] + seen[w]++] = i;
		}
done:
	free(seen);
	if (rc) {
		free(first);
		free(idx);
		return rc;
	}
	*first_out = first;
	*idx_out = idx;
	return 0;
}

int trace_archive_verify(struct trace_archive *a, struct nl_err *err)
{
	char why[512];
	if (a->m.n_comms > TRACE_REPLAY_MAX_COMMS) {
		/* A format-valid archive replay refuses: said as replay says it. */
		char where[NL_ERR_MSG_MAX];
		snprintf(where, sizeof where, "%s: ", a->path);
		return trace_comms_over_limit(err, where, a->m.n_comms);
	}
	uint32_t *first = NULL, *idx = NULL, dup_i = 0, dup_j = 0;
	int mrc = trace_comm_members(&a->m, &first, &idx, &dup_i, &dup_j);
	if (mrc == NL_ENOMEM)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
	if (mrc)
		return trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				      "metadata: communicator %u member %u is world rank %u, listed twice",
				      a->m.comms[dup_i].id, dup_j, a->m.comms[dup_i].world_ranks[dup_j]);
	uint8_t *is_member = calloc(a->m.n_comms, 1);
	int rc = is_member ? 0 : nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
	for (uint32_t rank = 0; rank < a->m.n_ranks && !rc; rank++) {
		struct trace_rank_reader *r;
		struct trace_op op;
		for (uint32_t k = first[rank]; k < first[rank + 1]; k++)
			is_member[idx[k]] = 1;
		rc = trace_rank_open(a, rank, &r, err);
		if (rc)
			break;
		while ((rc = trace_rank_next(r, &op, err)) == 1) {
			const char *bad = trace_op_semantics(&a->m, rank, is_member, &op, false, why, sizeof why);
			if (bad) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: op %llu (%s): %s", a->path,
					     rank, (unsigned long long)r->frame_off,
					     (unsigned long long)(r->ops - 1), trace_op_name(op.kind), bad);
				break;
			}
		}
		trace_rank_close(r);
		for (uint32_t k = first[rank]; k < first[rank + 1]; k++)
			is_member[idx[k]] = 0;
		if (rc > 0)
			rc = 0;
	}
	free(is_member);
	free(first);
	free(idx);
	return rc;
}
