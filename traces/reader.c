/* Reading: archive header and metadata at open, then each rank's stream a
 * frame at a time (pread + one shared decompression context), so memory
 * is one frame per open rank reader whatever the trace's length.
 *
 * Every inconsistency is reported as "FILE: rank R, offset O: what", where
 * O is the absolute file offset of the chunk (or field) at fault.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"

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
	trace_progress_fn progress;
	void *progress_ctx;
};

struct trace_rank_reader {
	struct trace_archive *a;
	uint32_t rank;
	uint64_t pos, end;        /* next chunk's offset; section end */
	uint64_t frame_off;       /* offset of the frame being decoded */
	uint8_t *raw;
	size_t raw_cap, raw_len, raw_pos;
	uint32_t frame_ops;       /* this frame's n_ops, as its header says */
	uint32_t frame_left;      /* ops still to decode in this frame */
	uint64_t prev_end_ps;
	uint64_t ops, bytes, frames;
	struct trace_xxh64 hash;
	struct trace_op_arrays arr;
	int state;                /* 0 reading, 1 done, < 0 failed (sticky) */
};

/* --- open ----------------------------------------------------------------- */

/* The most a zstd frame of n bytes can decompress to: every block needs a
 * 3-byte header and yields at most 128 KiB (RFC 8878 §3.1.1.2), so a
 * damaged size field cannot make the reader allocate more than the data
 * could fill. */
static uint64_t zstd_max_output(uint64_t n)
{
	return (n / 3 + 1) * (128u << 10);
}

/* A cursor over the decompressed metadata block. The first failure is
 * kept in why, naming the field (ctx: whose it is, "rank 3's ") and what
 * was expected; later reads return 0. */
struct mcur {
	const uint8_t *p;
	size_t len, pos;
	size_t field_pos; /* where the field read last starts */
	bool bad;
	char ctx[48];
	char why[200];
};

static void mc_fail(struct mcur *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void mc_fail(struct mcur *c, const char *field, const char *fmt, ...)
{
	if (c->bad)
		return;
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(c->why, sizeof c->why, "%s%s: %s", c->ctx, field, what);
	c->bad = true;
}

static uint64_t mc_varint(struct mcur *c, const char *field)
{
	uint64_t v = 0;
	size_t n;
	if (c->bad)
		return 0;
	c->field_pos = c->pos;
	n = trace_varint_get(c->p + c->pos, c->len - c->pos, &v);
	if (!n) {
		/* Every byte to the block's end continued: cut, else malformed. */
		bool cont = c->len - c->pos < TRACE_VARINT_MAX;
		for (size_t i = c->pos; cont && i < c->len; i++)
			cont = c->p[i] & 0x80;
		mc_fail(c, field, cont ? "the block ends inside its varint" : "bad varint");
		return 0;
	}
	c->pos += n;
	return v;
}

static uint32_t mc_u32(struct mcur *c, const char *field)
{
	uint64_t v = mc_varint(c, field);
	if (v > UINT32_MAX)
		mc_fail(c, field, "%llu: out of the u32 range", (unsigned long long)v);
	return (uint32_t)v;
}

static uint64_t mc_fixed64(struct mcur *c, const char *field)
{
	if (c->bad)
		return 0;
	c->field_pos = c->pos;
	if (c->len - c->pos < 8) {
		mc_fail(c, field, "needs 8 bytes, the block has %zu left", c->len - c->pos);
		return 0;
	}
	uint64_t v = trace_get_u64(c->p + c->pos);
	c->pos += 8;
	return v;
}

static char *mc_str(struct mcur *c, const char *field)
{
	uint64_t n = mc_varint(c, field);
	if (c->bad)
		return NULL;
	if (n > TRACE_STR_MAX) {
		mc_fail(c, field, "length %llu: expected at most %u", (unsigned long long)n, TRACE_STR_MAX);
		return NULL;
	}
	if (n > c->len - c->pos) {
		mc_fail(c, field, "length %llu: the block has %zu bytes left", (unsigned long long)n, c->len - c->pos);
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s) {
		mc_fail(c, field, "out of memory");
		return NULL;
	}
	memcpy(s, c->p + c->pos, n);
	s[n] = '\0';
	if (strlen(s) != n) { /* an embedded NUL cannot round-trip as a C string */
		free(s);
		mc_fail(c, field, "holds a NUL byte");
		return NULL;
	}
	c->pos += n;
	return s;
}

static int arch_err(struct trace_archive *a, struct nl_err *err, int code, uint64_t off, const char *fmt,
		    ...) __attribute__((format(printf, 5, 6)));
static int arch_err(struct trace_archive *a, struct nl_err *err, int code, uint64_t off, const char *fmt,
		    ...)
{
	char what[NL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return nl_errf(err, code, "%s: offset %llu: %s", a->path, (unsigned long long)off, what);
}

static int no_input_file(void *ctx, const struct trace_input_file *f)
{
	(void)ctx;
	(void)f;
	return 0;
}

/* The first bytes are not the magic. A trace of a format netloom imports
 * (`replay` takes it as it is) is named with the way to an archive,
 * as `convert` names an archive it is given, and so is netloom's own file
 * that is no archive (a bundle, the text form, a recorder's stream file);
 * anything else is bad magic. */
static int not_an_archive(struct trace_archive *a, const uint8_t *head, size_t n_head, struct nl_err *err)
{
	static const struct {
		const char *importer, *what;
	} formats[] = {{"dumpi", "a DUMPI"}, {"simgrid", "a SimGrid time-independent"}, {"otf2", "an OTF2"}};
	if (trace_bundle_given(a->path, err) || trace_text_given(a->path, err) ||
	    trace_stream_given(a->path, err))
		return err->code;
	const char *importer = trace_import_detect(a->path);
	/* Any text file whose first line is one word probes as a SimGrid
	 * index (sys.ini's '[network]'): one whose listed rank files cannot
	 * be found is named as the import names it, not offered to
	 * `convert`, which would fail on it the same way. */
	int rc = importer && !strcmp(importer, "simgrid") ? trace_input_files(a->path, no_input_file, NULL, err) : 0;
	if (rc < 0)
		return rc;
	for (size_t i = 0; importer && i < sizeof formats / sizeof *formats; i++)
		if (!strcmp(importer, formats[i].importer))
			return nl_errf(err, NL_EINVAL,
				       "%s: %s trace, not a netloom trace archive: expected a .nlt; convert it "
				       "first (netloom trace convert %s OUT.nlt)",
				       a->path, formats[i].what, a->path);
	/* The bytes found and the magic expected (it said "bad magic" alone;
	 * a zstd file's 28 b5 2f fd, say, tells what it is). */
	char found[64] = "", want[32] = "";
	for (size_t i = 0, o = 0; i < n_head && i < 8; i++)
		o += (size_t)snprintf(found + o, sizeof found - o, "%s%02x", i ? " " : ": its first bytes are ",
				      head[i]);
	for (size_t i = 0, o = 0; i < 8; i++)
		o += (size_t)snprintf(want + o, sizeof want - o, "%s%02x", i ? " " : "",
				      (unsigned char)TRACE_MAGIC[i]);
	return arch_err(a, err, NL_EFORMAT, 0, "not a netloom trace archive (bad magic)%s; expected %s", found,
			want);
}

/* Parse the decompressed metadata block into a->m and the section index. */
static int parse_meta(struct trace_archive *a, const uint8_t *p, size_t len, uint64_t meta_off,
		      uint64_t meta_len, struct nl_err *err)
{
	struct mcur c = {.p = p, .len = len};
	struct trace_manifest *m = &a->m;
	uint32_t n_user;

	m->application = mc_str(&c, "application");
	m->command_line = mc_str(&c, "command_line");
	m->machine = mc_str(&c, "machine");
	m->recorder = mc_str(&c, "recorder");
	m->mpi_library = mc_str(&c, "mpi_library");
	m->start_unix = mc_varint(&c, "start_unix");
	uint64_t rt = mc_fixed64(&c, "recorded_runtime_s");
	memcpy(&m->recorded_runtime_s, &rt, 8);
	/* As the text form reads it: a NaN, infinity or negative time was
	 * verified, printed as "nan s" and left out of --json (no JSON number),
	 * and its dump did not encode back. */
	if (!c.bad && !(isfinite(m->recorded_runtime_s) && m->recorded_runtime_s >= 0))
		mc_fail(&c, "recorded_runtime_s", "%g: expected a finite number of seconds >= 0",
			m->recorded_runtime_s);
	n_user = mc_u32(&c, "n_comms");
	if (!c.bad && n_user > (len - c.pos) / 3)
		mc_fail(&c, "n_comms", "%u: expected at most %zu (3 bytes or more each, in the %zu bytes left)",
			n_user, (len - c.pos) / 3, len - c.pos);
	if (c.bad)
		goto bad;
	m->n_comms = n_user + 2;
	m->comms = calloc(m->n_comms, sizeof *m->comms);
	m->rank_ops = calloc(m->n_ranks, sizeof *m->rank_ops);
	m->rank_bytes = calloc(m->n_ranks, sizeof *m->rank_bytes);
	m->rank_hash = calloc(m->n_ranks, sizeof *m->rank_hash);
	a->sec_off = calloc(m->n_ranks, sizeof *a->sec_off);
	a->sec_len = calloc(m->n_ranks, sizeof *a->sec_len);
	a->n_frames = calloc(m->n_ranks, sizeof *a->n_frames);
	if (!m->comms || !m->rank_ops || !m->rank_bytes || !m->rank_hash || !a->sec_off || !a->sec_len ||
	    !a->n_frames)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);

	/* World (identity) and self are implicit in the file. */
	m->comms[0].id = TRACE_COMM_WORLD;
	m->comms[0].size = m->n_ranks;
	m->comms[0].world_ranks = malloc(m->n_ranks * sizeof(uint32_t));
	m->comms[1].id = TRACE_COMM_SELF;
	m->comms[1].size = 1;
	m->comms[1].world_ranks = malloc(sizeof(uint32_t));
	if (!m->comms[0].world_ranks || !m->comms[1].world_ranks)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
	for (uint32_t r = 0; r < m->n_ranks; r++)
		m->comms[0].world_ranks[r] = r;
	m->comms[1].world_ranks[0] = TRACE_SELF_RANK;

	uint32_t prev_id = TRACE_COMM_SELF;
	for (uint32_t i = 2; i < m->n_comms; i++) {
		struct trace_comm *cm = &m->comms[i];
		snprintf(c.ctx, sizeof c.ctx, "communicator entry %u's ", i - 2);
		cm->id = mc_u32(&c, "id");
		if (!c.bad && (cm->id <= prev_id || cm->id == TRACE_COMM_NULL))
			mc_fail(&c, "id", "%u: expected more than %u (ids strictly increasing from 2, not 0xffffffff)",
				cm->id, prev_id);
		cm->size = mc_u32(&c, "size");
		if (!c.bad && (!cm->size || cm->size > m->n_ranks))
			mc_fail(&c, "size", "%u: expected 1 .. %u (n_ranks)", cm->size, m->n_ranks);
		if (!c.bad && cm->size > len - c.pos)
			mc_fail(&c, "size", "%u: expected at most %zu (a byte or more each, in the bytes left)",
				cm->size, len - c.pos);
		if (c.bad)
			goto bad;
		prev_id = cm->id;
		cm->world_ranks = malloc(cm->size * sizeof(uint32_t));
		if (!cm->world_ranks)
			return nl_errf(err, NL_ENOMEM, "%s: out of memory", a->path);
		for (uint32_t j = 0; j < cm->size; j++) {
			cm->world_ranks[j] = mc_u32(&c, "member");
			if (!c.bad && cm->world_ranks[j] >= m->n_ranks)
				mc_fail(&c, "member", "world rank %u: expected below %u (n_ranks)",
					cm->world_ranks[j], m->n_ranks);
		}
		if (c.bad)
			goto bad;
	}
	uint64_t off = meta_off + meta_len;
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		snprintf(c.ctx, sizeof c.ctx, "rank %u's ", r);
		m->rank_ops[r] = mc_varint(&c, "n_ops");
		m->rank_bytes[r] = mc_varint(&c, "raw_bytes");
		m->rank_hash[r] = mc_fixed64(&c, "hash");
		a->sec_len[r] = mc_varint(&c, "section_len");
		a->n_frames[r] = mc_varint(&c, "n_frames");
		/* Each section fits in what is left of the file, compared without
		 * adding to off: a sum of lengths could wrap past 2^64 to equal
		 * the file length. (off <= file_len: the sections before fit.) */
		if (!c.bad && (a->sec_len[r] < TRACE_END_SIZE || a->sec_len[r] > a->file_len - off))
			mc_fail(&c, "section_len", "%llu: expected %u .. %llu (its end chunk, and the file's bytes left)",
				(unsigned long long)a->sec_len[r], TRACE_END_SIZE,
				(unsigned long long)(a->file_len - off));
		if (c.bad)
			goto bad;
		a->sec_off[r] = off;
		off += a->sec_len[r];
	}
	if (m->format_version >= 2 && !c.bad && c.pos < len) {
		/* Version 2's optional host fields close the block
		 * (docs/trace-format.md §3.3). */
		c.ctx[0] = '\0';
		m->has_host_info = true;
		m->hosts = mc_u32(&c, "hosts");
		m->ranks_per_host = mc_u32(&c, "ranks_per_host");
		m->cores_per_host = mc_u32(&c, "cores_per_host");
		uint32_t mflags = mc_u32(&c, "mflags");
		if (mflags & ~(uint32_t)TRACE_MF_COMPUTE_CPU)
			mc_fail(&c, "mflags", "0x%x: unknown bits 0x%x (known: compute_cpu 0x1)", mflags,
				mflags & ~(uint32_t)TRACE_MF_COMPUTE_CPU);
		m->has_compute_cpu = mflags & TRACE_MF_COMPUTE_CPU;
		if (m->ranks_per_host > m->n_ranks)
			mc_fail(&c, "ranks_per_host", "%u: expected at most %u (n_ranks)", m->ranks_per_host,
				m->n_ranks);
	}
	if (!c.bad && c.pos != len) {
		c.field_pos = c.pos;
		snprintf(c.why, sizeof c.why, "%zu byte%s after its last field (%s): expected none", len - c.pos,
			 len - c.pos == 1 ? "" : "s",
			 m->has_host_info	  ? "the host fields"
			 : m->format_version >= 2 ? "the rank index, where the four host fields take 4 or more"
						  : "the rank index; version 1 has no host fields");
	}
	if (c.bad || c.pos != len)
		goto bad;
	if (off != a->file_len)
		return arch_err(a, err, NL_ECORRUPT, meta_off,
				"metadata block lists sections ending at %llu, file length is %llu",
				(unsigned long long)off, (unsigned long long)a->file_len);
	return 0;
bad:
	return arch_err(a, err, NL_ECORRUPT, meta_off, "metadata block malformed at decoded byte %zu: %s",
			c.field_pos, c.why);
}

/* The file opened: a regular file, or an error that says what it is (a
 * FIFO is refused, not waited on for a writer; a directory as replay says
 * it, an OTF2 archive's as not a netloom archive). Its size in *size. */
static int arch_open_file(struct trace_archive *a, uint64_t *size, struct nl_err *err)
{
	const char *path = a->path;
	struct stat st;
	a->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (a->fd < 0)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", path,
			       strerror(errno));
	bool stated = fstat(a->fd, &st) == 0;
	if (!stated)
		return nl_errf(err, NL_EIO, "%s: cannot read: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		/* A directory is said as replay says it ('serve --trace DIR'
		 * said "not a regular file"). */
		return !S_ISDIR(st.st_mode)	   ? trace_not_regular(path, st.st_mode, "trace file", err)
		       : trace_import_detect(path) ? not_an_archive(a, NULL, 0, err) /* an OTF2 archive's */
						   : trace_dir_error(path, NULL, err);
	*size = (uint64_t)st.st_size;
	return 0;
}

/* n_ranks and meta_len against the file's size (already file_len), each
 * named at its own offset with the range it could have: after the 64-byte
 * header come a metadata block of at least a byte and, per rank, a
 * section of at least its 25-byte end chunk. (One message for both, at
 * n_ranks' offset, named neither field nor a range.) */
static int arch_check_sizes(struct trace_archive *a, uint64_t size, uint64_t meta_len, struct nl_err *err)
{
	uint64_t body = size - TRACE_HEADER_SIZE;
	uint64_t max_ranks = body ? (body - 1) / TRACE_END_SIZE : 0;
	if (!a->m.n_ranks)
		return arch_err(a, err, NL_ECORRUPT, 16, "n_ranks 0: expected at least 1");
	if (a->m.n_ranks > max_ranks)
		return arch_err(a, err, NL_ECORRUPT, 16,
				"n_ranks %u: expected at most %llu (a %u-byte end chunk per rank after the "
				"header and the metadata block, in %llu bytes)",
				a->m.n_ranks, (unsigned long long)max_ranks, TRACE_END_SIZE, (unsigned long long)size);
	uint64_t max_meta = body - (uint64_t)a->m.n_ranks * TRACE_END_SIZE;
	if (meta_len == 0 || meta_len > max_meta)
		return arch_err(a, err, NL_ECORRUPT, 32,
				"meta_len %llu: expected 1 .. %llu (the %llu bytes after the header less a %u-byte "
				"end chunk per rank)",
				(unsigned long long)meta_len, (unsigned long long)max_meta, (unsigned long long)body,
				TRACE_END_SIZE);
	return 0;
}

/* The fixed header (format section 3.1) read and checked against the
 * file's size: the archive's version, ranks and writer parameters into a;
 * the metadata block's length and hash into *meta_len, *meta_hash. */
static int arch_read_header(struct trace_archive *a, uint64_t size, uint64_t *meta_len, uint64_t *meta_hash,
			    struct nl_err *err)
{
	uint8_t hdr[TRACE_HEADER_SIZE];
	size_t got = size < sizeof hdr ? (size_t)size : sizeof hdr;
	if (trace_pread_full(a->fd, hdr, got, 0))
		return nl_errf(err, NL_EIO, "%s: read failed: %s", a->path, strerror(errno));
	/* A file shorter than the magic that holds its first bytes is an
	 * archive cut short, as one cut inside the header is. An empty one
	 * holds nothing to judge by: said as such. */
	if (!got)
		return arch_err(a, err, NL_EFORMAT, 0, "empty file (expected a netloom trace archive)");
	if (memcmp(hdr, TRACE_MAGIC, got < 8 ? got : 8))
		return not_an_archive(a, hdr, got, err);
	if (got < sizeof hdr)
		return arch_err(a, err, NL_ECORRUPT, size,
				"truncated netloom trace archive: the %u-byte header is incomplete", TRACE_HEADER_SIZE);
	/* A newer version is refused before the header hash: its layout may
	 * put the hash elsewhere. So a flipped version byte cannot be told
	 * from a newer netloom's archive, and the message says both. An
	 * older version shares this header: its hash is checked first. */
	uint32_t version = trace_get_u32(hdr + 8);
	if (version > TRACE_FORMAT_VERSION)
		return arch_err(a, err, NL_EUNSUPPORTED, 8,
				"format version %u is newer than this netloom reads (up to %u), or the header is "
				"damaged (the version comes before the header hash, so the two cannot be told "
				"apart); expected version <= %u",
				version, TRACE_FORMAT_VERSION, TRACE_FORMAT_VERSION);
	if (trace_get_u64(hdr + 56) != trace_xxh64(hdr, 56, 0))
		return arch_err(a, err, NL_ECORRUPT, 56, "header hash mismatch (header damaged)");
	if (version < TRACE_FORMAT_VERSION_MIN)
		return arch_err(a, err, NL_EUNSUPPORTED, 8,
				"unsupported format version %u (this netloom reads versions %u .. %u)", version,
				TRACE_FORMAT_VERSION_MIN, TRACE_FORMAT_VERSION);
	if (trace_get_u32(hdr + 12) != 0)
		return arch_err(a, err, NL_EUNSUPPORTED, 12, "unknown header flags 0x%x", trace_get_u32(hdr + 12));
	if (trace_get_u32(hdr + 28) != 0)
		return arch_err(a, err, NL_EUNSUPPORTED, 28, "reserved header field is 0x%x, expected 0",
				trace_get_u32(hdr + 28));
	/* The writer parameters: no writer writes others, and `trace
	 * encode` of the dump could not write the same bytes. */
	if (trace_get_u32(hdr + 20) < TRACE_FRAME_TARGET_MIN || trace_get_u32(hdr + 20) > TRACE_FRAME_TARGET_MAX)
		return arch_err(a, err, NL_ECORRUPT, 20, "frame_target %u: expected %u .. %u bytes",
				trace_get_u32(hdr + 20), TRACE_FRAME_TARGET_MIN, TRACE_FRAME_TARGET_MAX);
	if ((int32_t)trace_get_u32(hdr + 24) < 1 || (int32_t)trace_get_u32(hdr + 24) > ZSTD_maxCLevel())
		return arch_err(a, err, NL_ECORRUPT, 24, "zstd_level %d: expected 1 .. %d",
				(int)(int32_t)trace_get_u32(hdr + 24), ZSTD_maxCLevel());
	a->m.format_version = version;
	a->m.n_ranks = trace_get_u32(hdr + 16);
	a->opts.frame_target = trace_get_u32(hdr + 20);
	a->opts.zstd_level = (int)trace_get_u32(hdr + 24);
	a->opts.format_version = version;
	*meta_len = trace_get_u64(hdr + 32);
	*meta_hash = trace_get_u64(hdr + 40);
	a->file_len = trace_get_u64(hdr + 48);
	if (a->file_len != size)
		return arch_err(a, err, NL_ECORRUPT, size < a->file_len ? size : a->file_len,
				"%s: header says %llu bytes, file has %llu",
				size < a->file_len ? "truncated" : "trailing data", (unsigned long long)a->file_len,
				(unsigned long long)size);
	return arch_check_sizes(a, size, *meta_len, err);
}

/* The metadata block (hash already checked) is one zstd frame with its
 * content size (format section 2) of a size the reader may allocate:
 * into *raw_len. Each way it is not is said (all were "metadata block is
 * not one zstd frame", also a frame a writer streamed without its size). */
static int meta_check_frame(struct trace_archive *a, const uint8_t *meta, uint64_t meta_len,
			    unsigned long long *raw_len, struct nl_err *err)
{
	unsigned long long n = ZSTD_getFrameContentSize(meta, meta_len);
	if (n == ZSTD_CONTENTSIZE_ERROR)
		return arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				"metadata block is not a zstd frame: expected one zstd frame of %llu bytes",
				(unsigned long long)meta_len);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN)
		return arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				"metadata block's zstd frame header gives no content size: expected a frame with "
				"its content size (written with the size pledged)");
	if (n > TRACE_META_RAW_MAX || n > zstd_max_output(meta_len))
		return arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				"metadata block's zstd frame claims %llu bytes from %llu compressed: expected at "
				"most %llu",
				n, (unsigned long long)meta_len,
				(unsigned long long)(zstd_max_output(meta_len) < TRACE_META_RAW_MAX
							     ? zstd_max_output(meta_len)
							     : TRACE_META_RAW_MAX));
	size_t frame_len = ZSTD_findFrameCompressedSize(meta, meta_len);
	if (ZSTD_isError(frame_len))
		return arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				"metadata block's zstd frame is damaged or cut short: %s (meta_len %llu)",
				ZSTD_getErrorName(frame_len), (unsigned long long)meta_len);
	if (frame_len != meta_len)
		return arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				"metadata block has %llu bytes after its zstd frame of %zu: expected one frame of "
				"meta_len %llu bytes",
				(unsigned long long)(meta_len - frame_len), frame_len, (unsigned long long)meta_len);
	*raw_len = n;
	return 0;
}

/* The metadata block after the header: its hash checked, its one zstd
 * frame decompressed and parsed (parse_meta). */
static int arch_read_meta(struct trace_archive *a, uint64_t meta_len, uint64_t meta_hash, struct nl_err *err)
{
	const char *path = a->path;
	uint8_t *meta = malloc(meta_len), *raw = NULL;
	int rc;
	if (!meta) {
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (trace_pread_full(a->fd, meta, meta_len, TRACE_HEADER_SIZE)) {
		rc = nl_errf(err, NL_EIO, "%s: read failed: %s", path, strerror(errno));
		goto out;
	}
	if (trace_xxh64(meta, meta_len, 0) != meta_hash) {
		rc = arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE, "metadata block hash mismatch");
		goto out;
	}
	unsigned long long raw_len = 0;
	rc = meta_check_frame(a, meta, meta_len, &raw_len, err);
	if (rc)
		goto out;
	raw = malloc(raw_len ? raw_len : 1);
	if (!raw) {
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	size_t d = ZSTD_decompress(raw, raw_len, meta, meta_len);
	if (ZSTD_isError(d) || d != raw_len) {
		rc = arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE, "metadata block does not decompress: %s",
			      ZSTD_isError(d) ? ZSTD_getErrorName(d) : "wrong size");
		goto out;
	}
	rc = parse_meta(a, raw, raw_len, TRACE_HEADER_SIZE, meta_len, err);
out:
	free(meta);
	free(raw);
	return rc;
}

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
	if ((rc = arch_open_file(a, &size, err)) < 0 || (rc = arch_read_header(a, size, &meta_len, &meta_hash, err)) < 0 ||
	    (rc = arch_read_meta(a, meta_len, meta_hash, err)) != 0)
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
	free(r->raw);
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
	if (raw_len > zstd_max_output(comp_len))
		return rr_err(r, err, NL_ECORRUPT, off, "frame claims %u raw bytes from %u compressed", raw_len,
			      comp_len);
	if (comp_len > a->comp_cap) {
		uint8_t *t = realloc(a->comp, comp_len);
		if (!t)
			return rr_err(r, err, NL_ENOMEM, off, "out of memory");
		a->comp = t;
		a->comp_cap = comp_len;
	}
	if (trace_pread_full(a->fd, a->comp, comp_len, off + TRACE_FRAME_HDR_SIZE))
		return rr_err(r, err, NL_EIO, off, "read failed: %s", strerror(errno));
	rc = rr_check_content_size(r, off, a->comp, comp_len, raw_len, err);
	if (rc)
		return rc;
	if (raw_len > r->raw_cap) {
		uint8_t *t = realloc(r->raw, raw_len);
		if (!t)
			return rr_err(r, err, NL_ENOMEM, off, "out of memory");
		r->raw = t;
		r->raw_cap = raw_len;
	}
	size_t d = ZSTD_decompressDCtx(a->dctx, r->raw, raw_len, a->comp, comp_len);
	if (ZSTD_isError(d) || d != raw_len)
		return rr_err(r, err, NL_ECORRUPT, off, "frame does not decompress: %s",
			      ZSTD_isError(d) ? ZSTD_getErrorName(d) : "wrong size");
	trace_xxh64_update(&r->hash, r->raw, raw_len);
	r->bytes += raw_len;
	r->frames++;
	r->frame_off = off;
	r->raw_len = raw_len;
	r->raw_pos = 0;
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
	const char *what = NULL;
	int n = trace_op_decode(r->raw + r->raw_pos, r->raw_len - r->raw_pos, op, &r->prev_end_ps, &r->arr,
				&what);
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
		return arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
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
