/* Opening an archive: the file, its fixed header (format section 3.1) and
 * its metadata block (section 3.2) read and checked, each field at fault
 * named at its offset with what was expected. The rank streams and
 * verification are reader.c's.
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
/* The most a zstd frame of n bytes can decompress to: every block needs a
 * 3-byte header and yields at most 128 KiB (RFC 8878 §3.1.1.2), so a
 * damaged size field cannot make the reader allocate more than the data
 * could fill. */
uint64_t trace_zstd_max_output(uint64_t n)
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

int trace_arch_err(struct trace_archive *a, struct nl_err *err, int code, uint64_t off, const char *fmt,
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
	if (trace_bundle_given(a->path, TRACE_TAKES_NLT, err) ||
	    trace_text_given(a->path, TRACE_TAKES_NLT, err) || trace_stream_given(a->path, err))
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
	return trace_arch_err(a, err, NL_EFORMAT, 0, "not a netloom trace archive (bad magic)%s; expected %s", found,
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
		return trace_arch_err(a, err, NL_ECORRUPT, meta_off,
				      "metadata block lists sections ending at %llu, file length is %llu",
				      (unsigned long long)off, (unsigned long long)a->file_len);
	return 0;
bad:
	return trace_arch_err(a, err, NL_ECORRUPT, meta_off, "metadata block malformed at decoded byte %zu: %s",
			      c.field_pos, c.why);
}

/* The file opened: a regular file, or an error that says what it is (a
 * FIFO is refused, not waited on for a writer; a directory as replay says
 * it, an OTF2 archive's as not a netloom archive). Its size in *size. */
int trace_archive_open_file(struct trace_archive *a, uint64_t *size, struct nl_err *err)
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
		return trace_arch_err(a, err, NL_ECORRUPT, 16, "n_ranks 0: expected at least 1");
	if (a->m.n_ranks > max_ranks)
		return trace_arch_err(a, err, NL_ECORRUPT, 16,
				      "n_ranks %u: expected at most %llu (a %u-byte end chunk per rank after the "
				      "header and the metadata block, in %llu bytes)",
				      a->m.n_ranks, (unsigned long long)max_ranks, TRACE_END_SIZE, (unsigned long long)size);
	uint64_t max_meta = body - (uint64_t)a->m.n_ranks * TRACE_END_SIZE;
	if (meta_len == 0 || meta_len > max_meta)
		return trace_arch_err(a, err, NL_ECORRUPT, 32,
				      "meta_len %llu: expected 1 .. %llu (the %llu bytes after the header less a %u-byte "
				      "end chunk per rank)",
				      (unsigned long long)meta_len, (unsigned long long)max_meta, (unsigned long long)body,
				      TRACE_END_SIZE);
	return 0;
}

/* The fixed header (format section 3.1) read and checked against the
 * file's size: the archive's version, ranks and writer parameters into a;
 * the metadata block's length and hash into *meta_len, *meta_hash. */
int trace_archive_read_header(struct trace_archive *a, uint64_t size, uint64_t *meta_len, uint64_t *meta_hash,
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
		return trace_arch_err(a, err, NL_EFORMAT, 0, "empty file (expected a netloom trace archive)");
	if (memcmp(hdr, TRACE_MAGIC, got < 8 ? got : 8))
		return not_an_archive(a, hdr, got, err);
	if (got < sizeof hdr)
		return trace_arch_err(a, err, NL_ECORRUPT, size,
				      "truncated netloom trace archive: the %u-byte header is incomplete", TRACE_HEADER_SIZE);
	/* A newer version is refused before the header hash: its layout may
	 * put the hash elsewhere. So a flipped version byte cannot be told
	 * from a newer netloom's archive, and the message says both. An
	 * older version shares this header: its hash is checked first. */
	uint32_t version = trace_get_u32(hdr + 8);
	if (version > TRACE_FORMAT_VERSION)
		return trace_arch_err(a, err, NL_EUNSUPPORTED, 8,
				      "format version %u is newer than this netloom reads (up to %u), or the header is "
				      "damaged (the version comes before the header hash, so the two cannot be told "
				      "apart); expected version <= %u",
				      version, TRACE_FORMAT_VERSION, TRACE_FORMAT_VERSION);
	if (trace_get_u64(hdr + 56) != trace_xxh64(hdr, 56, 0))
		return trace_arch_err(a, err, NL_ECORRUPT, 56, "header hash mismatch (header damaged)");
	if (version < TRACE_FORMAT_VERSION_MIN)
		return trace_arch_err(a, err, NL_EUNSUPPORTED, 8,
				      "unsupported format version %u (this netloom reads versions %u .. %u)", version,
				      TRACE_FORMAT_VERSION_MIN, TRACE_FORMAT_VERSION);
	if (trace_get_u32(hdr + 12) != 0)
		return trace_arch_err(a, err, NL_EUNSUPPORTED, 12, "unknown header flags 0x%x", trace_get_u32(hdr + 12));
	if (trace_get_u32(hdr + 28) != 0)
		return trace_arch_err(a, err, NL_EUNSUPPORTED, 28, "reserved header field is 0x%x, expected 0",
				      trace_get_u32(hdr + 28));
	/* The writer parameters: no writer writes others, and `trace
	 * encode` of the dump could not write the same bytes. */
	if (trace_get_u32(hdr + 20) < TRACE_FRAME_TARGET_MIN || trace_get_u32(hdr + 20) > TRACE_FRAME_TARGET_MAX)
		return trace_arch_err(a, err, NL_ECORRUPT, 20, "frame_target %u: expected %u .. %u bytes",
				      trace_get_u32(hdr + 20), TRACE_FRAME_TARGET_MIN, TRACE_FRAME_TARGET_MAX);
	if ((int32_t)trace_get_u32(hdr + 24) < 1 || (int32_t)trace_get_u32(hdr + 24) > ZSTD_maxCLevel())
		return trace_arch_err(a, err, NL_ECORRUPT, 24, "zstd_level %d: expected 1 .. %d",
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
		return trace_arch_err(a, err, NL_ECORRUPT, size < a->file_len ? size : a->file_len,
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
		return trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				      "metadata block is not a zstd frame: expected one zstd frame of %llu bytes",
				      (unsigned long long)meta_len);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN)
		return trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				      "metadata block's zstd frame header gives no content size: expected a frame with "
				      "its content size (written with the size pledged)");
	if (n > TRACE_META_RAW_MAX || n > trace_zstd_max_output(meta_len))
		return trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				      "metadata block's zstd frame claims %llu bytes from %llu compressed: expected at "
				      "most %llu",
				      n, (unsigned long long)meta_len,
				      (unsigned long long)(trace_zstd_max_output(meta_len) < TRACE_META_RAW_MAX
							     ? trace_zstd_max_output(meta_len)
							     : TRACE_META_RAW_MAX));
	size_t frame_len = ZSTD_findFrameCompressedSize(meta, meta_len);
	if (ZSTD_isError(frame_len))
		return trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				      "metadata block's zstd frame is damaged or cut short: %s (meta_len %llu)",
				      ZSTD_getErrorName(frame_len), (unsigned long long)meta_len);
	if (frame_len != meta_len)
		return trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE,
				      "metadata block has %llu bytes after its zstd frame of %zu: expected one frame of "
				      "meta_len %llu bytes",
				      (unsigned long long)(meta_len - frame_len), frame_len, (unsigned long long)meta_len);
	*raw_len = n;
	return 0;
}

/* The metadata block after the header: its hash checked, its one zstd
 * frame decompressed and parsed (parse_meta). */
int trace_archive_read_meta(struct trace_archive *a, uint64_t meta_len, uint64_t meta_hash, struct nl_err *err)
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
		rc = trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE, "metadata block hash mismatch");
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
		rc = trace_arch_err(a, err, NL_ECORRUPT, TRACE_HEADER_SIZE, "metadata block does not decompress: %s",
			            ZSTD_isError(d) ? ZSTD_getErrorName(d) : "wrong size");
		goto out;
	}
	rc = parse_meta(a, raw, raw_len, TRACE_HEADER_SIZE, meta_len, err);
out:
	free(meta);
	free(raw);
	return rc;
}
