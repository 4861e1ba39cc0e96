/* Reproducibility bundles (docs/trace-format.md §9): several files (traces
 * and a system config) in one zstd-compressed file, each with its name,
 * size and XXH64, so `unpack` restores them byte for byte or says which
 * one is damaged. Entries are streamed through bounded buffers both ways.
 *
 * Layout: header (32 bytes) | entry data (zstd frames, one run per entry)
 * | index (one zstd frame) | trailer (32 bytes).
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"
#include "core/staged.h"

#define BUNDLE_MAGIC TRACE_BUNDLE_MAGIC
#define BUNDLE_END_MAGIC "NLBUNEND"
#define BUNDLE_VERSION 1u
#define BUNDLE_HDR 32u
#define BUNDLE_TRAILER 32u
#define BUNDLE_LEVEL 3
#define BUNDLE_CHUNK (1u << 20)
#define BUNDLE_MAX_ENTRIES 100000u

enum { BUNDLE_TRACE = 0, BUNDLE_CONFIG = 1 };

struct bentry {
	uint32_t kind;
	char *name;
	uint64_t size, hash, offset, comp_len;
};

bool trace_bundle_given(const char *path, enum trace_takes takes, struct nl_err *err)
{
	uint8_t magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool is_bundle = trace_pread_full(fd, magic, sizeof magic, 0) == 0 && !memcmp(magic, BUNDLE_MAGIC, 8);
	close(fd);
	if (is_bundle)
		nl_errf(err, NL_EINVAL,
			"%s: a netloom bundle, not a trace: expected %s; unpack it first (netloom trace unpack %s DIR)",
			path, trace_takes_text(takes), path);
	return is_bundle;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool name_ok(const char *n)
{
	return n[0] && strcmp(n, ".") && strcmp(n, "..") && !strchr(n, '/');
}

/* Compress one file into the bundle; fills size, hash, comp_len.
 * is_unwritten: trace_out_rc, for the bundle's writes. */
static int pack_file(struct trace_afile *af, ZSTD_CCtx *cc, const char *src, struct bentry *e,
		     uint8_t *in, uint8_t *out, size_t out_cap, bool *is_unwritten, struct nl_err *err)
{
	struct stat st;
	struct trace_xxh64 h;
	int rc = 0;
	int fd = trace_open_regular(src, "file to pack", &st, err);
	if (fd < 0)
		return fd;
	e->size = (uint64_t)st.st_size;
	trace_xxh64_init(&h, 0);
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
	ZSTD_CCtx_setPledgedSrcSize(cc, e->size);
	uint64_t left = e->size, off = 0;
	e->comp_len = 0;
	do {
		size_t n = left < BUNDLE_CHUNK ? (size_t)left : BUNDLE_CHUNK;
		if (n && trace_pread_full(fd, in, n, off)) {
			rc = nl_errf(err, NL_EIO, "%s: read failed at offset %llu", src, (unsigned long long)off);
			break;
		}
		trace_xxh64_update(&h, in, n);
		off += n;
		left -= n;
		ZSTD_inBuffer ib = {in, n, 0};
		ZSTD_EndDirective mode = left ? ZSTD_e_continue : ZSTD_e_end;
		size_t pending;
		do {
			ZSTD_outBuffer ob = {out, out_cap, 0};
			pending = ZSTD_compressStream2(cc, &ob, &ib, mode);
			if (ZSTD_isError(pending)) {
				rc = nl_errf(err, NL_EIO, "%s: zstd: %s", src, ZSTD_getErrorName(pending));
				break;
			}
			rc = trace_out_rc(is_unwritten, trace_afile_write(af, out, ob.pos, err));
			e->comp_len += ob.pos;
		} while (!rc && (mode == ZSTD_e_end ? pending != 0 : ib.pos < ib.size));
	} while (!rc && left);
	close(fd);
	e->hash = trace_xxh64_digest(&h);
	return rc;
}

/* The bundle's entries from its inputs: each named by its base name,
 * names distinct, each trace a valid archive. */
static int pack_entries(struct bentry *ents, const char *const *traces, size_t n_traces, const char *config_path,
			struct nl_err *err)
{
	size_t n = n_traces + (config_path != NULL);
	for (size_t i = 0; i < n; i++) {
		const char *src = i < n_traces ? traces[i] : config_path;
		ents[i].kind = i < n_traces ? BUNDLE_TRACE : BUNDLE_CONFIG;
		ents[i].name = (char *)base_name(src);
		if (!name_ok(ents[i].name))
			return nl_errf(err, NL_EINVAL, "%s: cannot bundle a file without a name", src);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(ents[j].name, ents[i].name))
				return nl_errf(err, NL_EINVAL,
					       "%s: a second file named '%s' (the first: %s; a bundle keeps names, not "
					       "folders); expected files of distinct names",
					       src, ents[i].name, j < n_traces ? traces[j] : config_path);
		/* A trace must be a valid archive before it is bundled. */
		if (ents[i].kind == BUNDLE_TRACE) {
			struct trace_archive *a;
			NL_CHECK(trace_archive_open(&a, src, err));
			int rc = trace_archive_verify(a, err);
			trace_archive_close(a);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* `trace pack A.nlt B.nlt`, the bundle's name forgotten, would replace
 * trace A with a bundle of B: a trace archive is never overwritten. */
static int pack_check_output(const char *out_path, struct nl_err *err)
{
	int ofd = open(out_path, O_RDONLY | O_CLOEXEC);
	if (ofd < 0)
		return 0;
	uint8_t magic[8];
	bool is_trace = trace_pread_full(ofd, magic, sizeof magic, 0) == 0 && !memcmp(magic, TRACE_MAGIC, 8);
	close(ofd);
	if (is_trace)
		return nl_errf(err, NL_EINVAL,
			       "%s: a netloom trace archive, not overwritten: the first argument is the bundle to write (trace pack OUT.bundle TRACE...)",
			       out_path);
	return 0;
}

/* The index (kind, name, size, hash, offset, compressed length of each
 * entry), compressed into *cidx (malloc'd), *clen bytes. */
static int pack_index(ZSTD_CCtx *cc, const struct bentry *ents, size_t n, uint8_t **cidx, size_t *clen,
		      struct nl_err *err)
{
	size_t cap = 64, len = 0;
	for (size_t i = 0; i < n; i++)
		cap += strlen(ents[i].name) + 6 * TRACE_VARINT_MAX + 8;
	uint8_t *idx = malloc(cap);
	if (!idx)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t nl = strlen(ents[i].name);
		len += trace_varint_put(idx + len, ents[i].kind);
		len += trace_varint_put(idx + len, nl);
		memcpy(idx + len, ents[i].name, nl);
		len += nl;
		len += trace_varint_put(idx + len, ents[i].size);
		trace_put_u64(idx + len, ents[i].hash);
		len += 8;
		len += trace_varint_put(idx + len, ents[i].offset);
		len += trace_varint_put(idx + len, ents[i].comp_len);
	}
	size_t cb = ZSTD_compressBound(len);
	*cidx = malloc(cb);
	if (!*cidx) {
		free(idx);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
	*clen = ZSTD_compress2(cc, *cidx, cb, idx, len);
	free(idx);
	if (ZSTD_isError(*clen))
		return nl_errf(err, NL_EIO, "zstd: %s", ZSTD_getErrorName(*clen));
	return 0;
}

int trace_bundle_pack(const char *out_path, const char *const *traces, size_t n_traces,
		      const char *config_path, bool *is_unwritten, struct nl_err *err)
{
	size_t n = n_traces + (config_path != NULL);
	struct bentry *ents = calloc(n ? n : 1, sizeof *ents);
	uint8_t *in = malloc(BUNDLE_CHUNK);
	size_t out_cap = ZSTD_CStreamOutSize(), clen = 0;
	uint8_t *out = malloc(out_cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint8_t *cidx = NULL;
	struct trace_afile af = {.fd = -1};
	int rc = 0;

	if (!ents || !in || !out || !cc) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	if (!n_traces) {
		rc = nl_errf(err, NL_EINVAL, "%s: a bundle needs at least one trace", out_path);
		goto out;
	}
	if ((rc = pack_entries(ents, traces, n_traces, config_path, err)) || (rc = pack_check_output(out_path, err)))
		goto out;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, BUNDLE_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1))) {
		rc = nl_errf(err, NL_EIO, "zstd rejected the bundle parameters");
		goto out;
	}

	uint8_t hdr[BUNDLE_HDR] = {0};
	memcpy(hdr, BUNDLE_MAGIC, 8);
	trace_put_u32(hdr + 8, BUNDLE_VERSION);
	trace_put_u32(hdr + 12, (uint32_t)n);
	trace_put_u64(hdr + 24, trace_xxh64(hdr, 24, 0));
	/* The traces verified: the work began, and the bundle's own
	 * input/output errors from here on are its output failing. */
	rc = trace_out_rc(is_unwritten, trace_afile_open(&af, out_path, err));
	if (rc)
		goto out;
	rc = trace_out_rc(is_unwritten, trace_afile_write(&af, hdr, sizeof hdr, err));
	uint64_t off = BUNDLE_HDR;
	for (size_t i = 0; i < n && !rc; i++) {
		ents[i].offset = off;
		rc = pack_file(&af, cc, i < n_traces ? traces[i] : config_path, &ents[i], in, out, out_cap,
			       is_unwritten, err);
		off += ents[i].comp_len;
	}
	if (rc || (rc = pack_index(cc, ents, n, &cidx, &clen, err)))
		goto out;
	uint8_t tr[BUNDLE_TRAILER];
	memcpy(tr, BUNDLE_END_MAGIC, 8);
	trace_put_u64(tr + 8, off);
	trace_put_u64(tr + 16, clen);
	trace_put_u64(tr + 24, trace_xxh64(cidx, clen, 0));
	rc = trace_out_rc(is_unwritten, trace_afile_write(&af, cidx, clen, err));
	if (!rc)
		rc = trace_out_rc(is_unwritten, trace_afile_write(&af, tr, sizeof tr, err));
	if (!rc) {
		rc = trace_out_rc(is_unwritten, trace_afile_commit(&af, err));
		af.tmp = NULL;
	}
out:
	if (af.tmp)
		trace_afile_abort(&af);
	ZSTD_freeCCtx(cc);
	free(ents);
	free(in);
	free(out);
	free(cidx);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* dir/name, malloc'd (NULL when out of memory); a dir given with its
 * trailing '/' ("out/") gets no second one, so errors read "out/a.nlt". */
static char *join_path(const char *dir, const char *name)
{
	size_t dl = strlen(dir), plen = dl + strlen(name) + 2;
	char *path = malloc(plen);
	if (path)
		snprintf(path, plen, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", name);
	return path;
}

/* Decompress one entry into dir/name, checking size and hash.
 * is_unwritten: trace_out_rc, for dir/name's writes. */
static int unpack_entry(int fd, const char *bundle, const char *dir, const struct bentry *e,
			ZSTD_DCtx *dc, uint8_t *in, uint8_t *out, size_t out_cap, bool *is_unwritten,
			struct nl_err *err)
{
	struct trace_afile af = {.fd = -1};
	struct trace_xxh64 h;
	char *path = join_path(dir, e->name);
	int rc;
	if (!path)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	rc = trace_out_rc(is_unwritten, trace_afile_open(&af, path, err));
	free(path);
	if (rc)
		return rc;
	trace_xxh64_init(&h, 0);
	ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
	uint64_t left = e->comp_len, off = e->offset, got = 0;
	size_t last = 1;
	while (!rc && left) {
		size_t n = left < BUNDLE_CHUNK ? (size_t)left : BUNDLE_CHUNK;
		if (trace_pread_full(fd, in, n, off)) {
			rc = nl_errf(err, NL_ECORRUPT, "%s: entry '%s', offset %llu: truncated", bundle, e->name,
				     (unsigned long long)off);
			break;
		}
		ZSTD_inBuffer ib = {in, n, 0};
		while (!rc && ib.pos < ib.size) {
			ZSTD_outBuffer ob = {out, out_cap, 0};
			last = ZSTD_decompressStream(dc, &ob, &ib);
			if (ZSTD_isError(last)) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: entry '%s', offset %llu: %s", bundle, e->name,
					     (unsigned long long)e->offset, ZSTD_getErrorName(last));
				break;
			}
			got += ob.pos;
			if (got > e->size) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: entry '%s': more than the %llu bytes the index says",
					     bundle, e->name, (unsigned long long)e->size);
				break;
			}
			trace_xxh64_update(&h, out, ob.pos);
			rc = trace_out_rc(is_unwritten, trace_afile_write(&af, out, ob.pos, err));
		}
		off += n;
		left -= n;
	}
	if (!rc && (last != 0 || got != e->size))
		rc = nl_errf(err, NL_ECORRUPT, "%s: entry '%s', offset %llu: %llu bytes, the index says %llu",
			     bundle, e->name, (unsigned long long)e->offset, (unsigned long long)got,
			     (unsigned long long)e->size);
	if (!rc && trace_xxh64_digest(&h) != e->hash)
		rc = nl_errf(err, NL_ECORRUPT, "%s: entry '%s', offset %llu: hash mismatch", bundle, e->name,
			     (unsigned long long)e->offset);
	if (rc)
		trace_afile_abort(&af);
	else
		rc = trace_out_rc(is_unwritten, trace_afile_commit(&af, err));
	return rc;
}

/* trace_bundle_unpack's phases, in the order it runs them; each returns 0
 * or a negative error with its message, and unpack_release undoes and
 * frees what the call did, once, whichever phase failed. */

/* One trace_bundle_unpack call: the bundle, its index, what was restored. */
struct unpack {
	const char *bundle;	/* its path, for messages */
	int fd;
	struct stat st;		/* the bundle's, to find it among DIR's entries */
	uint32_t n;		/* entries, from the header */
	uint64_t ioff, ilen;	/* the compressed index's offset and length, from the trailer */
	uint64_t ihash;		/* its XXH64, from the trailer */
	uint8_t *cidx, *idx;	/* the index, compressed and not */
	size_t idx_len;		/* idx's bytes */
	struct bentry *ents;	/* n entries; names owned until unpack_detach_names */
	char **made;		/* dir/name of the entries, registered while DIR is a made one */
	uint32_t n_done;	/* entries restored in DIR */
	uint32_t n_made;	/* names in made */
	bool is_dir_made;	/* DIR was made here (out_staged_mkdir) */
	uint8_t *in, *out;	/* one chunk of an entry, compressed and not */
	size_t out_cap;		/* out's bytes */
	ZSTD_DCtx *dc;
};

/* A file too short for a bundle's header and trailer, or whose magic is
 * not a bundle's: said which, as the trace reader says it of archives
 * (an empty file, one cut short, another format). */
static int unpack_not_a_bundle(struct unpack *u, struct nl_err *err)
{
	uint8_t magic[8];
	uint64_t size = (uint64_t)u->st.st_size;
	size_t got = size < sizeof magic ? (size_t)size : sizeof magic;
	if (!size)
		return nl_errf(err, NL_EFORMAT, "%s: offset 0: empty file (expected a netloom bundle)", u->bundle);
	if (trace_pread_full(u->fd, magic, got, 0))
		return nl_errf(err, NL_EIO, "%s: read failed: %s", u->bundle, strerror(errno));
	/* A trace archive, the likely slip (pack and unpack take both): named
	 * as one, as the trace commands name a bundle. */
	if (got == 8 && !memcmp(magic, TRACE_MAGIC, 8))
		return nl_errf(err, NL_EINVAL,
			       "%s: a netloom trace archive, not a bundle: expected a bundle that 'netloom "
			       "trace pack' wrote; an archive is read as it is, with nothing to unpack",
			       u->bundle);
	/* Its first bytes a bundle's: one cut short, even inside the magic. */
	if (!memcmp(magic, BUNDLE_MAGIC, got))
		return nl_errf(err, NL_ECORRUPT,
			       "%s: offset %" PRIu64 ": truncated netloom bundle: %" PRIu64
			       " bytes, expected at least %u (a %u-byte header and a %u-byte trailer)",
			       u->bundle, size, size, BUNDLE_HDR + BUNDLE_TRAILER, BUNDLE_HDR, BUNDLE_TRAILER);
	return nl_errf(err, NL_EFORMAT, "%s: offset 0: not a netloom bundle (bad magic)", u->bundle);
}

/* The header: magic, version, hash; u->n gets its entry count. */
static int unpack_check_header(struct unpack *u, struct nl_err *err)
{
	uint8_t hdr[BUNDLE_HDR];
	if ((uint64_t)u->st.st_size < BUNDLE_HDR + BUNDLE_TRAILER)
		return unpack_not_a_bundle(u, err);
	if (trace_pread_full(u->fd, hdr, sizeof hdr, 0))
		return nl_errf(err, NL_EIO, "%s: read failed: %s", u->bundle, strerror(errno));
	if (memcmp(hdr, BUNDLE_MAGIC, 8))
		return unpack_not_a_bundle(u, err);
	if (trace_get_u32(hdr + 8) != BUNDLE_VERSION)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "%s: offset 8: unsupported bundle version %u (this netloom reads %u)", u->bundle,
			       trace_get_u32(hdr + 8), BUNDLE_VERSION);
	if (trace_get_u64(hdr + 24) != trace_xxh64(hdr, 24, 0))
		return nl_errf(err, NL_ECORRUPT, "%s: offset 24: header hash mismatch", u->bundle);
	u->n = trace_get_u32(hdr + 12);
	return 0;
}

/* The trailer: where the index lies, and its hash. */
static int unpack_check_trailer(struct unpack *u, struct nl_err *err)
{
	uint8_t tr[BUNDLE_TRAILER];
	const uint64_t size = (uint64_t)u->st.st_size;
	const uint64_t at = size - BUNDLE_TRAILER;
	if (trace_pread_full(u->fd, tr, sizeof tr, at) || memcmp(tr, BUNDLE_END_MAGIC, 8))
		return nl_errf(err, NL_ECORRUPT,
			       "%s: offset %llu: no trailer: expected '%s' in the last %u bytes (the bundle is cut "
			       "short, or has bytes after its end)",
			       u->bundle, (unsigned long long)at, BUNDLE_END_MAGIC, BUNDLE_TRAILER);
	u->ioff = trace_get_u64(tr + 8);
	u->ilen = trace_get_u64(tr + 16);
	u->ihash = trace_get_u64(tr + 24);
	/* Each field named at its offset with its range (one "trailer fields
	 * out of range" named none). ioff and ilen come from the file:
	 * compared without adding them, so a value near 2^64 cannot wrap to
	 * the expected sum. */
	if (!u->n || u->n > BUNDLE_MAX_ENTRIES)
		return nl_errf(err, NL_ECORRUPT, "%s: offset 12: n_entries %u: expected 1 .. %u", u->bundle, u->n,
			       BUNDLE_MAX_ENTRIES);
	if (u->ioff < BUNDLE_HDR || u->ioff > at)
		return nl_errf(err, NL_ECORRUPT,
			       "%s: offset %llu: index offset %llu: expected %u .. %llu (after the header, before "
			       "the trailer)",
			       u->bundle, (unsigned long long)(at + 8), (unsigned long long)u->ioff, BUNDLE_HDR,
			       (unsigned long long)at);
	if (u->ilen != at - u->ioff)
		return nl_errf(err, NL_ECORRUPT,
			       "%s: offset %llu: index length %llu: expected %llu (from the index offset %llu to the "
			       "trailer)",
			       u->bundle, (unsigned long long)(at + 16), (unsigned long long)u->ilen,
			       (unsigned long long)(at - u->ioff), (unsigned long long)u->ioff);
	return 0;
}

/* The index read, checked against its hash and decompressed into u->idx;
 * room for its u->n entries. */
static int unpack_read_index(struct unpack *u, struct nl_err *err)
{
	u->cidx = malloc(u->ilen ? u->ilen : 1);
	if (!u->cidx || trace_pread_full(u->fd, u->cidx, u->ilen, u->ioff))
		return nl_errf(err, NL_EIO, "%s: cannot read the index", u->bundle);
	if (trace_xxh64(u->cidx, u->ilen, 0) != u->ihash)
		return nl_errf(err, NL_ECORRUPT, "%s: offset %llu: index hash mismatch", u->bundle,
			       (unsigned long long)u->ioff);
	unsigned long long ilen_raw = ZSTD_getFrameContentSize(u->cidx, u->ilen);
	if (ilen_raw == ZSTD_CONTENTSIZE_ERROR || ilen_raw == ZSTD_CONTENTSIZE_UNKNOWN || ilen_raw > (64u << 20))
		return nl_errf(err, NL_ECORRUPT, "%s: offset %llu: index is not a zstd frame", u->bundle,
			       (unsigned long long)u->ioff);
	u->idx = malloc(ilen_raw ? ilen_raw : 1);
	u->ents = calloc(u->n, sizeof *u->ents);
	if (!u->idx || !u->ents)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	size_t d = ZSTD_decompress(u->idx, ilen_raw, u->cidx, u->ilen);
	if (ZSTD_isError(d) || d != ilen_raw)
		return nl_errf(err, NL_ECORRUPT, "%s: offset %llu: index does not decompress", u->bundle,
			       (unsigned long long)u->ioff);
	u->idx_len = d;
	return 0;
}

/* The index's entries (kind, name, size, hash, offset, compressed
 * length), each within the entry data, and nothing after them. */
static int unpack_parse_index(struct unpack *u, struct nl_err *err)
{
	const uint8_t *idx = u->idx;
	const size_t d = u->idx_len;
	size_t pos = 0;
	for (uint32_t i = 0; i < u->n; i++) {
		struct bentry *e = &u->ents[i];
		uint64_t v[6];
		size_t k;
		bool bad = false;
		k = trace_varint_get(idx + pos, d - pos, &v[0]);
		bad |= !k;
		pos += k;
		k = bad ? 0 : trace_varint_get(idx + pos, d - pos, &v[1]);
		bad |= !k || v[1] > d - pos - k;
		pos += k;
		if (!bad) {
			e->name = malloc(v[1] + 1);
			if (!e->name)
				return nl_errf(err, NL_ENOMEM, "out of memory");
			memcpy(e->name, idx + pos, v[1]);
			e->name[v[1]] = '\0';
			pos += v[1];
			bad |= strlen(e->name) != v[1] || !name_ok(e->name);
		}
		k = bad ? 0 : trace_varint_get(idx + pos, d - pos, &v[2]);
		bad |= !k || d - pos - k < 8;
		pos += k;
		if (!bad) {
			v[3] = trace_get_u64(idx + pos);
			pos += 8;
		}
		k = bad ? 0 : trace_varint_get(idx + pos, d - pos, &v[4]);
		bad |= !k;
		pos += k;
		k = bad ? 0 : trace_varint_get(idx + pos, d - pos, &v[5]);
		bad |= !k;
		pos += k;
		if (bad || v[0] > BUNDLE_CONFIG || v[4] < BUNDLE_HDR || v[5] > u->ioff || v[4] > u->ioff - v[5])
			return nl_errf(err, NL_ECORRUPT, "%s: offset %llu: index entry %u malformed", u->bundle,
				       (unsigned long long)u->ioff, i);
		e->kind = (uint32_t)v[0];
		e->size = v[2];
		e->hash = v[3];
		e->offset = v[4];
		e->comp_len = v[5];
	}
	if (pos != d)
		return nl_errf(err, NL_ECORRUPT, "%s: offset %llu: index has trailing bytes", u->bundle,
			       (unsigned long long)u->ioff);
	return 0;
}

/* Names are unique: sorted, so n up to BUNDLE_MAX_ENTRIES costs
 * O(n log n), not the O(n^2) of comparing every pair. */
static int unpack_check_names(const struct unpack *u, struct nl_err *err)
{
	const char **sorted = malloc(u->n * sizeof *sorted);
	if (!sorted)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < u->n; i++)
		sorted[i] = u->ents[i].name;
	qsort(sorted, u->n, sizeof *sorted, cmp_name);
	int rc = 0;
	for (uint32_t i = 1; i < u->n && !rc; i++)
		if (!strcmp(sorted[i - 1], sorted[i]))
			rc = nl_errf(err, NL_ECORRUPT, "%s: index names '%s' twice", u->bundle, sorted[i]);
	free(sorted);
	return rc;
}

/* An entry restored onto the bundle itself (an entry of its name in DIR,
 * or a link there to it) would replace it as it is read: found before
 * anything is made, as a command's output naming its input. */
static int unpack_check_not_self(const struct unpack *u, const char *dir, struct nl_err *err)
{
	for (uint32_t i = 0; i < u->n; i++) {
		struct stat est;
		char *path = join_path(dir, u->ents[i].name);
		if (!path)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		bool same = stat(path, &est) == 0 && est.st_dev == u->st.st_dev && est.st_ino == u->st.st_ino;
		int rc = 0;
		if (same)
			rc = nl_errf(err, NL_EINVAL,
				     "%s: entry '%s': '%s' is the bundle itself, which it would replace; expected another DIR",
				     u->bundle, u->ents[i].name, path);
		free(path);
		if (rc)
			return rc;
	}
	return 0;
}

/* DIR made if missing, then every entry restored into it, in index order.
 * Not trace_out_rc for DIR: nothing is written yet, and a DIR that cannot
 * be made is a bad argument (the CLI checks it before the work). A DIR
 * made here is registered, and so is each entry before it is made, so a
 * SIGINT or SIGTERM leaves no DIR, as a failure does (core/staged.h,
 * out_staged_mkdir; unpack_release). */
static int unpack_restore(struct unpack *u, const char *dir, bool *is_unwritten, struct nl_err *err)
{
	int rc;
	u->made = calloc(u->n, sizeof *u->made);
	if (!u->made)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	if ((rc = out_staged_mkdir(dir, err)) < 0)
		return rc;
	u->is_dir_made = rc == 1;
	u->in = malloc(BUNDLE_CHUNK);
	u->out_cap = ZSTD_DStreamOutSize();
	u->out = malloc(u->out_cap);
	u->dc = ZSTD_createDCtx();
	if (!u->in || !u->out || !u->dc)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (; u->n_done < u->n; u->n_done++) {
		if (u->is_dir_made) {
			char *path = join_path(dir, u->ents[u->n_done].name);
			if (!path)
				return nl_errf(err, NL_ENOMEM, "out of memory");
			if ((rc = out_staged_add(path, err)) < 0) {
				free(path);
				return rc;
			}
			u->made[u->n_made++] = path;
		}
		rc = unpack_entry(u->fd, u->bundle, dir, &u->ents[u->n_done], u->dc, u->in, u->out, u->out_cap,
				  is_unwritten, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The entries' names, in index order, moved to the caller. */
static int unpack_detach_names(struct unpack *u, char ***names_out, size_t *n_names, struct nl_err *err)
{
	char **names = calloc(u->n, sizeof *names);
	if (!names)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < u->n; i++) {
		names[i] = u->ents[i].name;
		u->ents[i].name = NULL;
	}
	*names_out = names;
	if (n_names)
		*n_names = u->n;
	return 0;
}

/* Undoes what a failed call (rc) made and frees what any call holds. */
static void unpack_release(struct unpack *u, const char *dir, int rc)
{
	/* A failed call leaves no DIR it made (docs/trace-format.md §9):
	 * the entries restored before the failure are its own, so they go,
	 * then DIR, which rmdir keeps if anything else was put in it. A DIR
	 * that was there is left as it is, with what was restored. */
	if (rc && u->is_dir_made) {
		for (uint32_t i = 0; i < u->n_done; i++)
			unlink(u->made[i]);
		rmdir(dir);
	}
	/* Last registered first (each found at the end of the list); a
	 * signal recorded meanwhile ends the process at the first, DIR still
	 * registered, which its poll removes whole. */
	for (uint32_t i = u->n_made; i-- > 0;) {
		out_staged_del(u->made[i]);
		free(u->made[i]);
	}
	if (u->is_dir_made)
		out_staged_del(dir);
	free(u->made);
	close(u->fd);
	for (uint32_t i = 0; u->ents && i < u->n; i++)
		free(u->ents[i].name);
	free(u->ents);
	free(u->cidx);
	free(u->idx);
	free(u->in);
	free(u->out);
	ZSTD_freeDCtx(u->dc);
}

int trace_bundle_unpack(const char *bundle_path, const char *dir, char ***names_out, size_t *n_names,
			bool *is_unwritten, struct nl_err *err)
{
	struct unpack u = {.bundle = bundle_path};
	if (names_out)
		*names_out = NULL;
	if (n_names)
		*n_names = 0;
	NL_CHECK(nl_input_named(bundle_path, "netloom bundle", NL_ENOTFOUND, err));
	u.fd = trace_open_regular(bundle_path, "netloom bundle", &u.st, err);
	if (u.fd < 0)
		return u.fd;
	int rc = unpack_check_header(&u, err);
	if (rc == 0)
		rc = unpack_check_trailer(&u, err);
	if (rc == 0)
		rc = unpack_read_index(&u, err);
	if (rc == 0)
		rc = unpack_parse_index(&u, err);
	if (rc == 0)
		rc = unpack_check_names(&u, err);
	if (rc == 0)
		rc = unpack_check_not_self(&u, dir, err);
	if (rc == 0)
		rc = unpack_restore(&u, dir, is_unwritten, err);
	if (rc == 0 && names_out)
		rc = unpack_detach_names(&u, names_out, n_names, err);
	unpack_release(&u, dir, rc);
	return rc;
}
