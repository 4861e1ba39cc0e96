/* Writing: per-rank stream files (frame by frame, bounded memory) and the
 * archive that gathers them under one header and metadata block.
 *
 * Invariant: the bytes written depend only on the ops, the manifest and the
 * write options (frame cut rule and zstd parameters are fixed), never on
 * time, hostnames of the writer or the order ranks were written.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"
#include "core/staged.h"

struct trace_stream_writer {
	FILE *f;
	char *path;
	uint32_t rank;
	struct trace_write_opts opts;
	ZSTD_CCtx *cctx;
	uint8_t *raw;          /* ops of the open frame */
	size_t raw_len, raw_cap;
	uint8_t *comp;         /* compressed frame scratch */
	size_t comp_cap;
	uint32_t frame_ops;    /* ops in the open frame */
	uint64_t prev_end_ps;  /* delta base within the open frame */
	uint64_t n_ops, n_bytes;
	uint64_t n_frames, file_bytes; /* frames and bytes written to f so far */
	uint64_t offset;       /* where the stream starts in f */
	bool is_shared;        /* f is the caller's (trace_stream_open_shared) */
	struct trace_xxh64 hash; /* over every frame's raw bytes, in order */
	int failed;            /* sticky error code */
};

static int sw_fail(struct trace_stream_writer *w, struct nl_err *err, int code, const char *what)
{
	w->failed = code;
	return nl_errf(err, code, "%s: rank %u: %s", w->path, w->rank, what);
}

static int sw_io(struct trace_stream_writer *w, struct nl_err *err)
{
	char msg[256];
	snprintf(msg, sizeof msg, "write failed: %s", strerror(errno ? errno : EIO));
	/* A shared file's buffer holds earlier streams' bytes too: its
	 * failing is the file's, not this rank's. */
	if (w->is_shared) {
		w->failed = NL_EIO;
		return nl_errf(err, NL_EIO, "%s: %s", w->path, msg);
	}
	return sw_fail(w, err, NL_EIO, msg);
}

/* A stream file's header (docs/trace-format.md §3): also what the
 * archive writer expects to find again in a file it was told of. */
static void sw_header(uint8_t hdr[TRACE_STREAM_HEADER_SIZE], uint32_t rank, uint32_t frame_target,
		      int32_t level, uint32_t version)
{
	memcpy(hdr, TRACE_STREAM_MAGIC, 8);
	trace_put_u32(hdr + 8, rank);
	trace_put_u32(hdr + 12, frame_target);
	trace_put_u32(hdr + 16, (uint32_t)level);
	trace_put_u32(hdr + 20, version);
}

/* The writer of rank's stream into path: at the end of shared when not
 * NULL; else into fd, when >= 0, the file already created (and closed on
 * failure); else path is created. */
static int sw_open(struct trace_stream_writer **wp, uint32_t rank, FILE *shared, int fd, const char *path,
		   const struct trace_write_opts *opts, struct nl_err *err)
{
	struct trace_write_opts o;
	uint8_t hdr[TRACE_STREAM_HEADER_SIZE];
	struct trace_stream_writer *w;
	int rc;

	*wp = NULL;
	if ((rc = trace_write_opts_resolve(opts, &o, err))) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	w = calloc(1, sizeof *w);
	if (!w) {
		if (fd >= 0)
			close(fd);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	w->rank = rank;
	w->opts = o;
	w->path = trace_strdup(path);
	w->cctx = ZSTD_createCCtx();
	if (!w->path || !w->cctx || trace_bytes_reserve(&w->raw, &w->raw_cap, o.frame_target)) {
		if (fd >= 0)
			close(fd);
		trace_stream_abort(w);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	/* Fixed parameters: single-threaded, content size and checksum in
	 * every frame (the checksum catches a flipped compressed byte). */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, o.zstd_level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		if (fd >= 0)
			close(fd);
		trace_stream_abort(w);
		return nl_errf(err, NL_EINVAL, "%s: zstd rejected level %d", path, o.zstd_level);
	}
	trace_xxh64_init(&w->hash, 0);
	if (shared) {
		off_t at = ftello(shared);
		if (at < 0) {
			rc = nl_errf(err, NL_EIO, "%s: cannot tell where rank %u's stream starts: %s", path, rank,
				   strerror(errno));
			trace_stream_abort(w);
			return rc;
		}
		w->f = shared;
		w->is_shared = true;
		w->offset = (uint64_t)at;
	} else {
		w->f = fd >= 0 ? fdopen(fd, "wb") : fopen(path, "wb");
	}
	if (!w->f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		free(w->path);
		w->path = NULL;
		trace_stream_abort(w);
		return nl_errf(err, NL_EIO, "%s: cannot create: %s", path, strerror(e));
	}
	sw_header(hdr, rank, o.frame_target, o.zstd_level, o.format_version);
	if (fwrite(hdr, 1, sizeof hdr, w->f) != sizeof hdr) {
		rc = sw_io(w, err);
		trace_stream_abort(w);
		return rc;
	}
	w->file_bytes = sizeof hdr;
	*wp = w;
	return 0;
}

int trace_stream_open_opts(struct trace_stream_writer **wp, uint32_t rank, const char *path,
			   const struct trace_write_opts *opts, struct nl_err *err)
{
	return sw_open(wp, rank, NULL, -1, path, opts, err);
}

int trace_stream_open_fd(struct trace_stream_writer **wp, uint32_t rank, int fd, const char *path,
			 const struct trace_write_opts *opts, struct nl_err *err)
{
	return sw_open(wp, rank, NULL, fd, path, opts, err);
}

int trace_stream_open_shared(struct trace_stream_writer **wp, uint32_t rank, FILE *f, const char *path,
			     const struct trace_write_opts *opts, struct nl_err *err)
{
	return sw_open(wp, rank, f, -1, path, opts, err);
}

int trace_stream_open(struct trace_stream_writer **w, uint32_t rank, const char *path,
		      struct nl_err *err)
{
	return trace_stream_open_opts(w, rank, path, NULL, err);
}

int trace_stream_open_temp(struct trace_stream_writer **w, uint32_t rank, const char *near, char **path,
			   struct nl_err *err)
{
	const char *slash = strrchr(near, '/');
	size_t dlen = slash ? (size_t)(slash + 1 - near) : 0, n = strlen(near) + 40;
	char *p = malloc(n);
	*w = NULL;
	*path = NULL;
	if (!p)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", near);
	snprintf(p, n, "%.*s.%s.r%" PRIu32 ".tmpXXXXXX", (int)dlen, near, near + dlen, rank);
	/* Made and registered in one step: no signal finds the file made
	 * but not registered, or the name half filled in. */
	int mk_errno;
	int fd = out_staged_mkstemp(p, false, &mk_errno, err);
	if (fd < 0) {
		free(p);
		if (fd == NL_ENOMEM)
			return fd;
		return nl_errf(err, NL_EIO, "%s: cannot create rank %" PRIu32 "'s temporary stream file: %s", near,
			       rank, strerror(mk_errno));
	}
	int rc = trace_stream_open_fd(w, rank, fd, p, NULL, err);
	if (rc < 0) {
		out_staged_remove(p);
		free(p);
		return rc;
	}
	*path = p;
	return 0;
}

/* Compress and write the open frame as one 'F' chunk. */
static int sw_flush(struct trace_stream_writer *w, struct nl_err *err)
{
	uint8_t hdr[TRACE_FRAME_HDR_SIZE];
	size_t bound = ZSTD_compressBound(w->raw_len);

	if (!w->frame_ops)
		return 0;
	if (trace_bytes_reserve(&w->comp, &w->comp_cap, bound))
		return sw_fail(w, err, NL_ENOMEM, "out of memory");
	size_t c = ZSTD_compress2(w->cctx, w->comp, w->comp_cap, w->raw, w->raw_len);
	if (ZSTD_isError(c))
		return sw_fail(w, err, NL_EIO, ZSTD_getErrorName(c));
	hdr[0] = TRACE_CHUNK_FRAME;
	trace_put_u32(hdr + 1, w->frame_ops);
	trace_put_u32(hdr + 5, (uint32_t)w->raw_len);
	trace_put_u32(hdr + 9, (uint32_t)c);
	if (fwrite(hdr, 1, sizeof hdr, w->f) != sizeof hdr || fwrite(w->comp, 1, c, w->f) != c)
		return sw_io(w, err);
	trace_xxh64_update(&w->hash, w->raw, w->raw_len);
	w->n_bytes += w->raw_len;
	w->n_frames++;
	w->file_bytes += sizeof hdr + c;
	w->raw_len = 0;
	w->frame_ops = 0;
	w->prev_end_ps = 0;
	return 0;
}

int trace_stream_append(struct trace_stream_writer *w, const struct trace_op *op, struct nl_err *err)
{
	if (w->failed)
		return nl_errf(err, w->failed, "%s: rank %u: writer failed earlier", w->path, w->rank);
	NL_CHECK(trace_op_check(op, err));
	if (trace_op_check_version(op, w->opts.format_version, err))
		return nl_err_prefix(err, "%s: rank %u", w->path, w->rank);
	size_t need = trace_op_encoded_max(op);
	if (need > TRACE_FRAME_RAW_MAX)
		return nl_errf(err, NL_ERANGE, "%s: rank %u: %s op too large (%zu bytes encoded, max %u)",
			       w->path, w->rank, trace_op_name(op->kind), need, TRACE_FRAME_RAW_MAX);
	if (trace_bytes_reserve(&w->raw, &w->raw_cap, w->raw_len + need))
		return sw_fail(w, err, NL_ENOMEM, "out of memory");

	uint64_t base = w->prev_end_ps;
	size_t n = trace_op_encode(w->raw + w->raw_len, op, &w->prev_end_ps);
	/* Cut rule (docs/trace-format.md §5): a frame that already holds ops
	 * is closed before an op that would take it past frame_target; the op
	 * is then re-encoded as the first of the next frame (delta base 0). */
	if (w->frame_ops && w->raw_len + n > w->opts.frame_target) {
		w->prev_end_ps = base;
		NL_CHECK(sw_flush(w, err));
		n = trace_op_encode(w->raw, op, &w->prev_end_ps);
	}
	w->raw_len += n;
	w->frame_ops++;
	w->n_ops++;
	return 0;
}

int trace_stream_close(struct trace_stream_writer *w, uint64_t *n_ops, uint64_t *n_bytes,
		       uint64_t *hash, struct nl_err *err)
{
	struct trace_stream_summary s;
	NL_CHECK(trace_stream_close_summary(w, &s, err));
	if (n_ops)
		*n_ops = s.n_ops;
	if (n_bytes)
		*n_bytes = s.raw_bytes;
	if (hash)
		*hash = s.hash;
	return 0;
}

int trace_stream_close_summary(struct trace_stream_writer *w, struct trace_stream_summary *s,
			       struct nl_err *err)
{
	uint8_t end[TRACE_END_SIZE];
	int rc = 0;

	if (w->failed) {
		rc = nl_errf(err, w->failed, "%s: rank %u: writer failed earlier", w->path, w->rank);
		trace_stream_abort(w);
		return rc;
	}
	rc = sw_flush(w, err);
	if (!rc) {
		uint64_t h = trace_xxh64_digest(&w->hash);
		end[0] = TRACE_CHUNK_END;
		trace_put_u64(end + 1, w->n_ops);
		trace_put_u64(end + 9, w->n_bytes);
		trace_put_u64(end + 17, h);
		/* A shared file is flushed by its owner, once, not per stream. */
		if (fwrite(end, 1, sizeof end, w->f) != sizeof end || (!w->is_shared && fflush(w->f) != 0))
			rc = sw_io(w, err);
		if (!rc)
			*s = (struct trace_stream_summary){
				.offset = w->offset,
				.file_bytes = w->file_bytes + sizeof end,
				.n_ops = w->n_ops,
				.raw_bytes = w->n_bytes,
				.hash = h,
				.n_frames = w->n_frames,
				.frame_target = w->opts.frame_target,
				.level = w->opts.zstd_level,
				.version = w->opts.format_version,
			};
	}
	if (rc) {
		trace_stream_abort(w);
		return rc;
	}
	if (!w->is_shared && fclose(w->f) != 0) {
		w->f = NULL;
		rc = sw_io(w, err);
		trace_stream_abort(w);
		return rc;
	}
	w->f = NULL;
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->comp);
	free(w->path);
	free(w);
	return 0;
}

void trace_stream_abort(struct trace_stream_writer *w)
{
	if (!w)
		return;
	if (w->f && !w->is_shared) {
		fclose(w->f);
		if (w->path)
			unlink(w->path);
	}
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->comp);
	free(w->path);
	free(w);
}

/* --- a stream file given as a trace ------------------------------------------ */

bool trace_stream_given(const char *path, struct nl_err *err)
{
	uint8_t magic[8];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO is not waited on */
	if (fd < 0)
		return false;
	bool is_stream = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			 trace_pread_full(fd, magic, sizeof magic, 0) == 0 && !memcmp(magic, TRACE_STREAM_MAGIC, 8);
	close(fd);
	if (is_stream)
		nl_errf(err, NL_EINVAL,
			"%s: a rank's stream file, which netloom-record writes while the program runs, not an "
			"archive: expected the .nlt rank 0 assembles from them at MPI_Finalize; one left behind is "
			"from a run that did not end through MPI_Finalize and makes no archive: delete it "
			"(docs/recorder.md, section Failures)",
			path);
	return is_stream;
}

/* --- archive ---------------------------------------------------------------- */

/* Walk a stream file's chunk headers (payloads are skipped with pread
 * offsets) and check its structure and totals. */
static int scan_stream(const char *path, uint32_t rank, struct trace_stream_summary *si, struct nl_err *err)
{
	uint8_t hdr[TRACE_STREAM_HEADER_SIZE], ch[TRACE_END_SIZE];
	struct stat st;
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nl_errf(err, NL_EIO, "%s: cannot open rank %u stream: %s", path, rank, strerror(errno));
	memset(si, 0, sizeof *si);
	if (fstat(fd, &st) != 0) {
		rc = nl_errf(err, NL_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	si->file_bytes = (uint64_t)st.st_size;
	if (trace_pread_full(fd, hdr, sizeof hdr, 0) || memcmp(hdr, TRACE_STREAM_MAGIC, 8)) {
		rc = nl_errf(err, NL_EFORMAT, "%s: offset 0: not a netloom rank stream (bad magic)", path);
		goto out;
	}
	si->version = trace_get_u32(hdr + 20);
	if (si->version < TRACE_FORMAT_VERSION_MIN || si->version > TRACE_FORMAT_VERSION) {
		rc = nl_errf(err, NL_EUNSUPPORTED, "%s: offset 20: stream format version %u (expected %u .. %u)",
			     path, si->version, TRACE_FORMAT_VERSION_MIN, TRACE_FORMAT_VERSION);
		goto out;
	}
	if (trace_get_u32(hdr + 8) != rank) {
		rc = nl_errf(err, NL_EFORMAT, "%s: offset 8: stream is for rank %u, expected rank %u", path,
			     trace_get_u32(hdr + 8), rank);
		goto out;
	}
	si->frame_target = trace_get_u32(hdr + 12);
	si->level = (int32_t)trace_get_u32(hdr + 16);

	uint64_t pos = TRACE_STREAM_HEADER_SIZE, ops = 0, raw = 0;
	for (;;) {
		if (trace_pread_full(fd, ch, 1, pos)) {
			rc = nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: stream ends without an end chunk",
				     path, rank, (unsigned long long)pos);
			goto out;
		}
		if (ch[0] == TRACE_CHUNK_FRAME) {
			if (trace_pread_full(fd, ch, TRACE_FRAME_HDR_SIZE, pos)) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: truncated frame header",
					     path, rank, (unsigned long long)pos);
				goto out;
			}
			uint32_t n = trace_get_u32(ch + 1), rl = trace_get_u32(ch + 5), cl = trace_get_u32(ch + 9);
			if (!n || !rl || rl > TRACE_FRAME_RAW_MAX || !cl ||
			    pos + TRACE_FRAME_HDR_SIZE + cl > si->file_bytes) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: bad or truncated frame",
					     path, rank, (unsigned long long)pos);
				goto out;
			}
			ops += n;
			raw += rl;
			si->n_frames++;
			pos += TRACE_FRAME_HDR_SIZE + cl;
		} else if (ch[0] == TRACE_CHUNK_END) {
			if (trace_pread_full(fd, ch, TRACE_END_SIZE, pos) || pos + TRACE_END_SIZE != si->file_bytes) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: bad end chunk", path, rank,
					     (unsigned long long)pos);
				goto out;
			}
			si->n_ops = trace_get_u64(ch + 1);
			si->raw_bytes = trace_get_u64(ch + 9);
			si->hash = trace_get_u64(ch + 17);
			if (si->n_ops != ops || si->raw_bytes != raw) {
				rc = nl_errf(err, NL_ECORRUPT,
					     "%s: rank %u, offset %llu: end chunk says %llu ops / %llu bytes, frames hold %llu / %llu",
					     path, rank, (unsigned long long)pos, (unsigned long long)si->n_ops,
					     (unsigned long long)si->raw_bytes, (unsigned long long)ops,
					     (unsigned long long)raw);
				goto out;
			}
			break;
		} else {
			rc = nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: unknown chunk type 0x%02x", path,
				     rank, (unsigned long long)pos, ch[0]);
			goto out;
		}
	}
out:
	close(fd);
	return rc;
}

/* Growable byte buffer for the metadata block. */
struct mbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void mb_need(struct mbuf *b, size_t n)
{
	if (b->oom || b->len + n <= b->cap)
		return;
	size_t c = b->cap ? b->cap : 1024;
	while (c < b->len + n)
		c *= 2;
	uint8_t *t = realloc(b->p, c);
	if (!t) {
		b->oom = true;
		return;
	}
	b->p = t;
	b->cap = c;
}

static void mb_varint(struct mbuf *b, uint64_t v)
{
	mb_need(b, TRACE_VARINT_MAX);
	if (!b->oom)
		b->len += trace_varint_put(b->p + b->len, v);
}

static void mb_u64(struct mbuf *b, uint64_t v)
{
	mb_need(b, 8);
	if (!b->oom) {
		trace_put_u64(b->p + b->len, v);
		b->len += 8;
	}
}

static void mb_str(struct mbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	mb_varint(b, n);
	mb_need(b, n);
	if (!b->oom && n) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}

static int cmp_comm_ptr(const void *a, const void *b)
{
	const struct trace_comm *x = *(const struct trace_comm *const *)a;
	const struct trace_comm *y = *(const struct trace_comm *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Check the user communicators and return them sorted by id. */
static int sorted_comms(const struct trace_manifest *m, const struct trace_comm ***out, size_t *n_out,
			const char *path, struct nl_err *err)
{
	const struct trace_comm **v = NULL;
	size_t n = 0;
	*out = NULL;
	*n_out = 0;
	if (m->n_comms && !m->comms)
		return nl_errf(err, NL_EINVAL, "%s: manifest has %u communicators but comms is NULL", path,
			       m->n_comms);
	if (m->n_comms) {
		v = malloc(m->n_comms * sizeof *v);
		if (!v)
			return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	for (uint32_t i = 0; i < m->n_comms; i++) {
		const struct trace_comm *c = &m->comms[i];
		if (c->id == TRACE_COMM_WORLD || c->id == TRACE_COMM_SELF)
			continue;
		if (c->id == TRACE_COMM_NULL || !c->size || !c->world_ranks || c->size > m->n_ranks) {
			free(v);
			return nl_errf(err, NL_EINVAL,
				       "%s: communicator %u: expected an id < %u and 1 .. %u members", path, c->id,
				       TRACE_COMM_NULL, m->n_ranks);
		}
		for (uint32_t j = 0; j < c->size; j++)
			if (c->world_ranks[j] >= m->n_ranks) {
				free(v);
				return nl_errf(err, NL_EINVAL,
					       "%s: communicator %u: member %u is world rank %u, expected < %u", path,
					       c->id, j, c->world_ranks[j], m->n_ranks);
			}
		v[n++] = c;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_comm_ptr);
	for (size_t i = 1; i < n; i++)
		if (v[i]->id == v[i - 1]->id) {
			uint32_t id = v[i]->id;
			free(v);
			return nl_errf(err, NL_EINVAL, "%s: communicator id %u listed twice", path, id);
		}
	*out = v;
	*n_out = n;
	return 0;
}

/* Where the copy reads: the file open now, kept while ranks in a row are
 * in it (the builder's shared file), closed by the caller. */
struct copy_src {
	int fd;
	const char *path;
	uint64_t size;
};

/* The archive's rank sections, gathered into writes of up to cap bytes:
 * a small stream is not a write of its own. */
struct copy_out {
	struct trace_afile *af;
	uint8_t *p;
	size_t fill, cap;
};

static int copy_flush(struct copy_out *o, struct nl_err *err)
{
	int rc = o->fill ? trace_afile_write(o->af, o->p, o->fill, err) : 0;
	o->fill = 0;
	return rc;
}

static int copy_put(struct copy_out *o, const uint8_t *p, size_t n, struct nl_err *err)
{
	if (o->fill + n > o->cap)
		NL_CHECK(copy_flush(o, err));
	if (n >= o->cap)
		return trace_afile_write(o->af, p, n, err);
	memcpy(o->p + o->fill, p, n);
	o->fill += n;
	return 0;
}

static int copy_src_open(struct copy_src *s, const char *path, struct nl_err *err)
{
	struct stat st;
	if (s->fd >= 0 && !strcmp(s->path, path))
		return 0;
	if (s->fd >= 0)
		close(s->fd);
	s->path = path;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return nl_errf(err, NL_EIO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(s->fd, &st) != 0)
		return nl_errf(err, NL_EIO, "%s: %s", path, strerror(errno));
	s->size = (uint64_t)st.st_size;
	return 0;
}

/* Does rank's stream in src, written by this process and closed with
 * summary si, still hold that: head, its first bytes, the header written;
 * end, its last, the end chunk written; and then the file's end (n_next
 * 0) or another stream's header (next, n_next bytes)? What the scan
 * checks besides, the frames' chunk headers against the totals, the
 * writer made so. */
static int check_written(const char *src, uint32_t rank, const struct trace_stream_summary *si,
			 const uint8_t *head, const uint8_t *end, const uint8_t *next, uint64_t n_next,
			 struct nl_err *err)
{
	uint8_t want[TRACE_END_SIZE];
	uint64_t end_at = si->offset + si->file_bytes - TRACE_END_SIZE;
	sw_header(want, rank, si->frame_target, si->level, si->version);
	if (memcmp(head, want, TRACE_STREAM_HEADER_SIZE))
		return nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: stream header is not the one written",
			       src, rank, (unsigned long long)si->offset);
	want[0] = TRACE_CHUNK_END;
	trace_put_u64(want + 1, si->n_ops);
	trace_put_u64(want + 9, si->raw_bytes);
	trace_put_u64(want + 17, si->hash);
	if (memcmp(end, want, TRACE_END_SIZE))
		return nl_errf(err, NL_ECORRUPT, "%s: rank %u, offset %llu: end chunk is not the one written", src,
			       rank, (unsigned long long)end_at);
	if (n_next && (n_next < 8 || memcmp(next, TRACE_STREAM_MAGIC, 8)))
		return nl_errf(err, NL_ECORRUPT,
			       "%s: rank %u, offset %llu: bytes after the stream's end chunk, not another stream", src,
			       rank, (unsigned long long)(end_at + TRACE_END_SIZE));
	return 0;
}

static int copy_read_failed(const char *src, uint64_t at, struct nl_err *err)
{
	return nl_errf(err, NL_EIO, "%s: read failed at offset %llu", src, (unsigned long long)at);
}

/* Append rank's stream (summary si) in the file src, from its first chunk
 * to its end, to the archive. is_written: si is what its writer reported,
 * not what a scan found, and is checked first. rd: cap bytes to read into. */
static int copy_stream(struct copy_out *o, struct copy_src *s, const char *src, uint32_t rank,
		       const struct trace_stream_summary *si, bool is_written, uint8_t *rd, size_t cap,
		       struct nl_err *err)
{
	uint64_t off = si->offset, fb = si->file_bytes;
	NL_CHECK(copy_src_open(s, src, err));
	if (is_written) {
		if (s->size < off + fb)
			return nl_errf(err, NL_ECORRUPT, "%s: rank %u: stream ends at offset %llu, past the file's %llu bytes",
				       src, rank, (unsigned long long)(off + fb), (unsigned long long)s->size);
		uint64_t n_next = s->size - off - fb < 8 ? s->size - off - fb : 8;
		if (fb + n_next <= cap) { /* the whole stream in one read */
			if (trace_pread_full(s->fd, rd, fb + n_next, off))
				return copy_read_failed(src, off, err);
			NL_CHECK(check_written(src, rank, si, rd, rd + fb - TRACE_END_SIZE, rd + fb, n_next, err));
			return copy_put(o, rd + TRACE_STREAM_HEADER_SIZE, fb - TRACE_STREAM_HEADER_SIZE, err);
		}
		uint8_t head[TRACE_STREAM_HEADER_SIZE], end[TRACE_END_SIZE], next[8];
		if (trace_pread_full(s->fd, head, sizeof head, off) ||
		    trace_pread_full(s->fd, end, sizeof end, off + fb - TRACE_END_SIZE) ||
		    (n_next && trace_pread_full(s->fd, next, n_next, off + fb)))
			return copy_read_failed(src, off, err);
		NL_CHECK(check_written(src, rank, si, head, end, next, n_next, err));
	}
	for (uint64_t from = off + TRACE_STREAM_HEADER_SIZE, len = fb - TRACE_STREAM_HEADER_SIZE; len;) {
		size_t n = len < cap ? (size_t)len : cap;
		if (trace_pread_full(s->fd, rd, n, from))
			return copy_read_failed(src, from, err);
		NL_CHECK(copy_put(o, rd, n, err));
		from += n;
		len -= n;
	}
	return 0;
}

int trace_archive_write(const char *path, const struct trace_manifest *m,
			const char *const *stream_paths, struct nl_err *err)
{
	return trace_archive_write_streams(path, m, stream_paths, NULL, err);
}

/* Rank r's stream against rank 0's (format version, writer parameters)
 * and against the manifest's counts and hash. */
static int ws_check_stream(const struct trace_manifest *m, const char *const *stream_paths,
			   const struct trace_stream_summary *si, uint32_t r, struct nl_err *err)
{
	if (si[r].version != si[0].version)
		return nl_errf(err, NL_EINVAL, "%s: rank %u stream is format version %u, rank 0's is %u",
			       stream_paths[r], r, si[r].version, si[0].version);
	if (si[r].frame_target != si[0].frame_target || si[r].level != si[0].level)
		return nl_errf(err, NL_EINVAL,
			       "%s: rank %u stream was written with frame_target %u / level %d, rank 0 with %u / %d",
			       stream_paths[r], r, si[r].frame_target, si[r].level, si[0].frame_target,
			       si[0].level);
	if ((m->rank_ops && m->rank_ops[r] != si[r].n_ops) ||
	    (m->rank_bytes && m->rank_bytes[r] != si[r].raw_bytes) ||
	    (m->rank_hash && m->rank_hash[r] != si[r].hash))
		return nl_errf(err, NL_EINVAL,
			       "%s: rank %u: manifest says %llu ops / %llu bytes / hash %016llx, the stream has %llu / %llu / %016llx",
			       stream_paths[r], r,
			       (unsigned long long)(m->rank_ops ? m->rank_ops[r] : si[r].n_ops),
			       (unsigned long long)(m->rank_bytes ? m->rank_bytes[r] : si[r].raw_bytes),
			       (unsigned long long)(m->rank_hash ? m->rank_hash[r] : si[r].hash),
			       (unsigned long long)si[r].n_ops, (unsigned long long)si[r].raw_bytes,
			       (unsigned long long)si[r].hash);
	return 0;
}

/* The manifest's host fields: format version 2's, within n_ranks, and
 * only with has_host_info. */
static int ws_check_hosts(const char *path, const struct trace_manifest *m, uint32_t version, struct nl_err *err)
{
	bool any_host = m->hosts || m->ranks_per_host || m->cores_per_host || m->has_compute_cpu;
	if (version < 2 && (m->has_host_info || any_host))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "%s: the manifest's hosts/ranks_per_host/cores_per_host/compute cpu fields need format "
			       "version 2 (the streams are version %u)", path, version);
	if (m->ranks_per_host > m->n_ranks)
		return nl_errf(err, NL_EINVAL, "%s: manifest ranks_per_host %u: expected at most n_ranks (%u)", path,
			       m->ranks_per_host, m->n_ranks);
	if (!m->has_host_info && any_host)
		return nl_errf(err, NL_EINVAL, "%s: manifest host fields set without has_host_info", path);
	return 0;
}

/* The metadata block (docs/trace-format.md §4), compressed at the
 * streams' level into *meta (malloc'd), *meta_len bytes. */
static int ws_meta_block(const char *path, const struct trace_manifest *m, const struct trace_comm *const *comms,
			 size_t n_comms, const struct trace_stream_summary *si, uint8_t **meta, size_t *meta_len,
			 struct nl_err *err)
{
	struct mbuf mb = {0};
	uint64_t rt_bits;
	memcpy(&rt_bits, &m->recorded_runtime_s, 8);
	mb_str(&mb, m->application);
	mb_str(&mb, m->command_line);
	mb_str(&mb, m->machine);
	mb_str(&mb, m->recorder);
	mb_str(&mb, m->mpi_library);
	mb_varint(&mb, m->start_unix);
	mb_u64(&mb, rt_bits);
	mb_varint(&mb, n_comms);
	for (size_t i = 0; i < n_comms; i++) {
		mb_varint(&mb, comms[i]->id);
		mb_varint(&mb, comms[i]->size);
		for (uint32_t j = 0; j < comms[i]->size; j++)
			mb_varint(&mb, comms[i]->world_ranks[j]);
	}
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		mb_varint(&mb, si[r].n_ops);
		mb_varint(&mb, si[r].raw_bytes);
		mb_u64(&mb, si[r].hash);
		mb_varint(&mb, si[r].file_bytes - TRACE_STREAM_HEADER_SIZE);
		mb_varint(&mb, si[r].n_frames);
	}
	if (m->has_host_info) {
		mb_varint(&mb, m->hosts);
		mb_varint(&mb, m->ranks_per_host);
		mb_varint(&mb, m->cores_per_host);
		mb_varint(&mb, m->has_compute_cpu ? TRACE_MF_COMPUTE_CPU : 0);
	}
	if (mb.oom) {
		free(mb.p);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	size_t bound = ZSTD_compressBound(mb.len);
	uint8_t *out = malloc(bound);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t len = 0;
	if (out && cc && !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, si[0].level)) &&
	    !ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1)))
		len = ZSTD_compress2(cc, out, bound, mb.p, mb.len);
	ZSTD_freeCCtx(cc);
	free(mb.p);
	if (!out || !len || ZSTD_isError(len)) {
		free(out);
		return nl_errf(err, NL_ENOMEM, "%s: cannot compress the metadata block", path);
	}
	*meta = out;
	*meta_len = len;
	return 0;
}

/* The fixed header (docs/trace-format.md §2) for these streams and
 * metadata block. */
static void ws_header(uint8_t hdr[TRACE_HEADER_SIZE], const struct trace_manifest *m,
		      const struct trace_stream_summary *si, const uint8_t *meta, size_t meta_len)
{
	uint64_t file_len = TRACE_HEADER_SIZE + meta_len;
	for (uint32_t r = 0; r < m->n_ranks; r++)
		file_len += si[r].file_bytes - TRACE_STREAM_HEADER_SIZE;
	memset(hdr, 0, TRACE_HEADER_SIZE);
	memcpy(hdr, TRACE_MAGIC, 8);
	trace_put_u32(hdr + 8, si[0].version);
	trace_put_u32(hdr + 12, 0);
	trace_put_u32(hdr + 16, m->n_ranks);
	trace_put_u32(hdr + 20, si[0].frame_target);
	trace_put_u32(hdr + 24, (uint32_t)si[0].level);
	trace_put_u32(hdr + 28, 0);
	trace_put_u64(hdr + 32, meta_len);
	trace_put_u64(hdr + 40, trace_xxh64(meta, meta_len, 0));
	trace_put_u64(hdr + 48, file_len);
	trace_put_u64(hdr + 56, trace_xxh64(hdr, 56, 0));
}

/* The archive written atomically (trace_afile): header, metadata block,
 * then each rank's stream frames. */
static int ws_write(const char *path, const struct trace_manifest *m, const char *const *stream_paths,
		    const struct trace_stream_summary *si, bool written, bool is_hidden, const uint8_t *hdr,
		    const uint8_t *meta, size_t meta_len, struct nl_err *err)
{
	enum { COPY_BUF = 1 << 20 };
	struct trace_afile af = {.fd = -1, .is_hidden = is_hidden};
	struct copy_src src = {.fd = -1};
	uint8_t *buf = malloc(COPY_BUF), *obuf = malloc(COPY_BUF);
	int rc;
	if (!buf || !obuf) {
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	rc = trace_afile_open(&af, path, err);
	if (rc)
		goto out;
	rc = trace_afile_write(&af, hdr, TRACE_HEADER_SIZE, err);
	if (!rc)
		rc = trace_afile_write(&af, meta, meta_len, err);
	struct copy_out co = {.af = &af, .p = obuf, .cap = COPY_BUF};
	for (uint32_t r = 0; r < m->n_ranks && !rc; r++)
		rc = copy_stream(&co, &src, stream_paths[r], r, &si[r], written, buf, COPY_BUF, err);
	if (!rc)
		rc = copy_flush(&co, err);
	if (src.fd >= 0)
		close(src.fd);
	if (rc)
		trace_afile_abort(&af);
	else
		rc = trace_afile_commit(&af, err);
out:
	free(buf);
	free(obuf);
	return rc;
}

static int ws_archive(const char *path, const struct trace_manifest *m, const char *const *stream_paths,
		      const struct trace_stream_summary *written, bool is_hidden, struct nl_err *err)
{
	struct trace_stream_summary *scanned = NULL;
	const struct trace_stream_summary *si = written;
	const struct trace_comm **comms = NULL;
	size_t n_comms = 0, meta_len = 0;
	uint8_t *meta = NULL;
	uint8_t hdr[TRACE_HEADER_SIZE];
	int rc;

	if (!m->n_ranks)
		return nl_errf(err, NL_EINVAL, "%s: manifest has 0 ranks", path);
	if (!(isfinite(m->recorded_runtime_s) && m->recorded_runtime_s >= 0)) /* readers refuse it */
		return nl_errf(err, NL_EINVAL,
			       "%s: manifest recorded_runtime_s %g: expected a finite number of seconds >= 0", path,
			       m->recorded_runtime_s);
	rc = sorted_comms(m, &comms, &n_comms, path, err);
	if (rc)
		return rc;
	if (!written) {
		si = scanned = calloc(m->n_ranks, sizeof *scanned);
		if (!scanned) {
			rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
			goto out;
		}
	}
	for (uint32_t r = 0; r < m->n_ranks; r++)
		if ((!written && (rc = scan_stream(stream_paths[r], r, &scanned[r], err))) ||
		    (rc = ws_check_stream(m, stream_paths, si, r, err)))
			goto out;
	if ((rc = ws_check_hosts(path, m, si[0].version, err)) ||
	    (rc = ws_meta_block(path, m, comms, n_comms, si, &meta, &meta_len, err)))
		goto out;
	ws_header(hdr, m, si, meta, meta_len);
	rc = ws_write(path, m, stream_paths, si, written != NULL, is_hidden, hdr, meta, meta_len, err);
out:
	free(meta);
	free(scanned);
	free(comms);
	return rc;
}

int trace_archive_write_streams(const char *path, const struct trace_manifest *m,
				const char *const *stream_paths,
				const struct trace_stream_summary *written, struct nl_err *err)
{
	return ws_archive(path, m, stream_paths, written, false, err);
}

int trace_archive_write_hidden(const char *path, const struct trace_manifest *m, const char *const *stream_paths,
			       struct nl_err *err)
{
	return ws_archive(path, m, stream_paths, NULL, true, err);
}
