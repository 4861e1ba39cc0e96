/* Unit tests: trace archive corruption detection with exact messages and
 * bounded reader memory (split from test_trace.c). */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"
#include "test.h"
#include "trace_sample.h"
#include "traces/trace.h"
#include "traces/traces_internal.h"


/* --- corruption ------------------------------------------------------------- */

static int open_and_verify(const char *path, struct nl_err *e)
{
	struct trace_archive *a;
	int rc = trace_archive_open(&a, path, e);
	if (rc)
		return rc;
	rc = trace_archive_verify(a, e);
	trace_archive_close(a);
	return rc;
}

static void test_corruption(void)
{
	struct nl_err e = {0};
	const char *good = test_tmppath("good.nlt"), *bad = test_tmppath("bad.nlt");
	CHECK_OK(write_archive(good, 400, 512, false, &e), &e);
	size_t n;
	uint8_t *g = test_slurp(good, &n);
	CHECK(g != NULL);
	if (!g)
		return;
	uint8_t *b = malloc(n);
	char want[600];

	/* Bad magic: the bytes found and the magic expected (it said "bad
	 * magic" alone). */
	memcpy(b, g, n);
	b[1] = 'X';
	test_spit(bad, b, n);
	snprintf(want, sizeof want,
		 "%s: offset 0: not a netloom trace archive (bad magic): its first bytes are 89 58 4c 54 0d 0a 1a 0a; "
		 "expected 89 4e 4c 54 0d 0a 1a 0a",
		 bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	/* ... also when the file is shorter than the magic. */
	test_spit(bad, b, 3);
	snprintf(want, sizeof want,
		 "%s: offset 0: not a netloom trace archive (bad magic): its first bytes are 89 58 4c; expected 89 4e "
		 "4c 54 0d 0a 1a 0a",
		 bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);

	/* A newer version (checked before the header hash, which a newer
	 * layout may move): newer or damaged, the message says both. */
	memcpy(b, g, n);
	trace_put_u32(b + 8, 3);
	test_spit(bad, b, n);
	snprintf(want, sizeof want,
		 "%s: offset 8: format version 3 is newer than this netloom reads (up to 2), or the header is "
		 "damaged (the version comes before the header hash, so the two cannot be told apart); expected "
		 "version <= 2",
		 bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_EUNSUPPORTED, &e, want);
	/* An older version shares this header: a version byte damaged to 0
	 * is a hash mismatch, and version 0 under its hash is unsupported. */
	memcpy(b, g, n);
	trace_put_u32(b + 8, 0);
	test_spit(bad, b, n);
	snprintf(want, sizeof want, "%s: offset 56: header hash mismatch (header damaged)", bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	trace_put_u64(b + 56, trace_xxh64(b, 56, 0));
	test_spit(bad, b, n);
	snprintf(want, sizeof want, "%s: offset 8: unsupported format version 0 (this netloom reads versions 1 .. 2)",
		 bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_EUNSUPPORTED, &e, want);

	/* A flipped header byte. */
	memcpy(b, g, n);
	b[20] ^= 1;
	test_spit(bad, b, n);
	snprintf(want, sizeof want, "%s: offset 56: header hash mismatch (header damaged)", bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);

	/* Header fields no writer writes, the header hash made to match: the
	 * reserved field is named at its own offset (was "offset 12: unknown
	 * header flags 0x0"), and writer parameters out of range are refused
	 * (frame_target 0 verified, and encoded back as 65536). */
	struct {
		size_t off;
		uint32_t v;
		int code;
		const char *msg;
	} fields[] = {
		{12, 2, NL_EUNSUPPORTED, "offset 12: unknown header flags 0x2"},
		{28, 1, NL_EUNSUPPORTED, "offset 28: reserved header field is 0x1, expected 0"},
		{20, 0, NL_ECORRUPT, "offset 20: frame_target 0: expected 256 .. 16777216 bytes"},
		{20, 255, NL_ECORRUPT, "offset 20: frame_target 255: expected 256 .. 16777216 bytes"},
		{24, 0, NL_ECORRUPT, "offset 24: zstd_level 0: expected 1 .. "},
		{24, 0xffffffffu, NL_ECORRUPT, "offset 24: zstd_level -1: expected 1 .. "},
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		memcpy(b, g, n);
		trace_put_u32(b + fields[i].off, fields[i].v);
		trace_put_u64(b + 56, trace_xxh64(b, 56, 0));
		test_spit(bad, b, n);
		snprintf(want, sizeof want, "%s: %s", bad, fields[i].msg);
		CHECK_ERR(open_and_verify(bad, &e), fields[i].code, &e, want);
	}

	/* n_ranks and meta_len past what the file's size can hold, the
	 * header hash made to match: each named at its own offset with its
	 * range (was one "offset 16: header fields out of range (3 ranks,
	 * metadata N bytes)", also for meta_len at offset 32). */
	char range[200];
	uint64_t max_meta = n - 64 - 25 * (uint64_t)trace_get_u32(g + 16);
	snprintf(range, sizeof range, "offset 32: meta_len %llu: expected 1 .. %llu (the %zu bytes after the header",
		 (unsigned long long)(max_meta + 1), (unsigned long long)max_meta, n - 64);
	struct {
		size_t off;
		uint64_t v;
		bool is_u64;
		const char *msg;
	} sizes[] = {
		{16, 0, false, "offset 16: n_ranks 0: expected at least 1"},
		{16, 0xffffffffu, false, "offset 16: n_ranks 4294967295: expected at most "},
		{32, 0, true, "offset 32: meta_len 0: expected 1 .. "},
		{32, max_meta + 1, true, range},
		{32, UINT64_MAX, true, "offset 32: meta_len 18446744073709551615: expected 1 .. "},
	};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		memcpy(b, g, n);
		if (sizes[i].is_u64)
			trace_put_u64(b + sizes[i].off, sizes[i].v);
		else
			trace_put_u32(b + sizes[i].off, (uint32_t)sizes[i].v);
		trace_put_u64(b + 56, trace_xxh64(b, 56, 0));
		test_spit(bad, b, n);
		snprintf(want, sizeof want, "%s: %s", bad, sizes[i].msg);
		CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	}

	/* Truncation at several offsets: inside the 8-byte magic too (a file
	 * holding its first bytes is an archive cut short, not another file). */
	size_t cuts[] = {0, 1, 2, 3, 4, 7, 40, 64, 100, n / 2, n - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		test_spit(bad, g, cuts[i]);
		if (!cuts[i]) /* was "bad magic", though an empty file has none */
			snprintf(want, sizeof want, "%s: offset 0: empty file (expected a netloom trace archive)", bad);
		else if (cuts[i] < 64)
			snprintf(want, sizeof want,
				 "%s: offset %zu: truncated netloom trace archive: the 64-byte header is "
				 "incomplete",
				 bad, cuts[i]);
		else
			snprintf(want, sizeof want, "%s: offset %zu: truncated: header says %zu bytes, file has %zu",
				 bad, cuts[i], n, cuts[i]);
		CHECK(open_and_verify(bad, &e) < 0);
		CHECK_STR(e.msg, want);
	}

	/* Trailing garbage. */
	uint8_t *longer = malloc(n + 3);
	memcpy(longer, g, n);
	memset(longer + n, 0, 3);
	test_spit(bad, longer, n + 3);
	snprintf(want, sizeof want, "%s: offset %zu: trailing data: header says %zu bytes, file has %zu", bad, n,
		 n, n + 3);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	free(longer);

	/* Metadata block byte flipped. */
	memcpy(b, g, n);
	b[70] ^= 0x40;
	test_spit(bad, b, n);
	snprintf(want, sizeof want, "%s: offset 64: metadata block hash mismatch", bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);

	/* A byte flipped inside rank 1's first compressed frame: zstd's frame
	 * checksum (or the decoder) catches it, named with rank and offset. */
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, good, &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	uint64_t meta_len = trace_get_u64(g + 32);
	uint64_t sec1 = TRACE_HEADER_SIZE + meta_len;
	/* Rank 0's section length: walk its chunks. */
	uint64_t pos = sec1;
	while (g[pos] == 'F')
		pos += TRACE_FRAME_HDR_SIZE + trace_get_u32(g + pos + 9);
	CHECK_EQ(g[pos], 'E');
	pos += TRACE_END_SIZE; /* start of rank 1 */
	uint64_t frame1 = pos;
	uint32_t comp_len = trace_get_u32(g + frame1 + 9);
	memcpy(b, g, n);
	b[frame1 + TRACE_FRAME_HDR_SIZE + comp_len / 2] ^= 0x10;
	test_spit(bad, b, n);
	snprintf(want, sizeof want,
		 "%s: rank 1, offset %llu: frame does not decompress: Restored data doesn't match checksum", bad,
		 (unsigned long long)frame1);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);

	/* A flipped op count in a frame header: more ops than the frame holds
	 * (was "op N (decoded byte R of the frame): op truncated inside a
	 * varint", the next op's read at the frame's end) or one less (bytes
	 * left over), each naming the header's count. */
	uint32_t ops1 = trace_get_u32(g + frame1 + 1), raw1 = trace_get_u32(g + frame1 + 5);
	uint32_t more[] = {ops1 + 1, UINT32_MAX};
	for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
		memcpy(b, g, n);
		trace_put_u32(b + frame1 + 1, more[i]);
		test_spit(bad, b, n);
		snprintf(want, sizeof want, "%s: rank 1, offset %llu: frame header says %u ops, its %u decoded bytes hold %u",
			 bad, (unsigned long long)frame1, more[i], raw1, ops1);
		CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	}
	trace_put_u32(b + frame1 + 1, ops1 - 1);
	test_spit(bad, b, n);
	snprintf(want, sizeof want, " bytes after its last op (its header says %u ops)", ops1 - 1);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	CHECK(strstr(e.msg, "rank 1, offset "));

	/* Frame header fields out of range, and a payload that is no zstd
	 * frame or holds another size: each field named with its range (was
	 * "bad frame header (0 ops, R raw bytes, C compressed)" for any of
	 * the three, and "frame content size -1, header says R" for a
	 * payload that is no zstd frame). */
	char notzstd[200], othersize[200];
	snprintf(notzstd, sizeof notzstd, "payload at offset %llu is not a zstd frame: expected one of %u raw bytes",
		 (unsigned long long)(frame1 + TRACE_FRAME_HDR_SIZE), raw1);
	snprintf(othersize, sizeof othersize, "payload's zstd frame holds %u bytes, frame header's raw_len says %u",
		 raw1, raw1 - 1);
	struct {
		size_t off;
		uint32_t v;
		const char *msg;
	} frame_fields[] = {
		{1, 0, "frame header: n_ops 0: expected at least 1"},
		{5, 0, "frame header: raw_len 0: expected 1 .. 67108864"},
		{5, 0x7fffffffu, "frame header: raw_len 2147483647: expected 1 .. 67108864"},
		{9, 0, "frame header: comp_len 0: expected at least 1"},
		{5, raw1 - 1, othersize},
		{13, 0, notzstd}, /* the zstd magic's first byte */
	};
	for (size_t i = 0; i < sizeof frame_fields / sizeof *frame_fields; i++) {
		memcpy(b, g, n);
		if (frame_fields[i].off == 13)
			b[frame1 + 13] ^= 0xff;
		else
			trace_put_u32(b + frame1 + frame_fields[i].off, frame_fields[i].v);
		test_spit(bad, b, n);
		snprintf(want, sizeof want, "%s: rank 1, offset %llu: %s", bad, (unsigned long long)frame1,
			 frame_fields[i].msg);
		CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	}

	/* The end chunk's hash flipped: hash mismatch at the end of the rank. */
	uint64_t end2 = n - TRACE_END_SIZE;
	CHECK_EQ(g[end2], 'E');
	memcpy(b, g, n);
	b[end2 + 20] ^= 0x01;
	test_spit(bad, b, n);
	snprintf(want, sizeof want, "%s: rank 2, offset %llu: hash mismatch: stream hashes to %016llx", bad,
		 (unsigned long long)end2, (unsigned long long)m->rank_hash[2]);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);

	/* The end chunk's op count flipped. */
	memcpy(b, g, n);
	b[end2 + 1] ^= 0x01;
	test_spit(bad, b, n);
	snprintf(want, sizeof want, "%s: rank 2, offset %llu: end chunk says %llu ops", bad,
		 (unsigned long long)end2, (unsigned long long)(m->rank_ops[2] ^ 1));
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	trace_archive_close(a);

	CHECK_ERR(open_and_verify(test_tmppath("missing.nlt"), &e), NL_ENOTFOUND, &e, "missing.nlt: cannot open");
	free(b);
	free(g);
}

/* The archive g (n bytes) with its metadata block's n_raw raw bytes
 * compressed as a writer may have (content size in the frame header or
 * not, an empty frame after it or not), the header made to match: meta_len,
 * meta_hash, file_len and header hash. Written to path; returns the bytes
 * of the first frame, *extra those of the empty frame after it. */
static size_t spit_with_meta(const char *path, const uint8_t *g, size_t n, const uint8_t *raw, size_t n_raw,
			     bool has_size, bool extra_frame, size_t *extra)
{
	size_t old_len = trace_get_u64(g + 32), cap = ZSTD_compressBound(n_raw) + 64;
	uint8_t *out = malloc(n - old_len + cap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, has_size);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	size_t m = ZSTD_compress2(cc, out + 64, cap, raw, n_raw);
	CHECK(!ZSTD_isError(m));
	*extra = extra_frame ? ZSTD_compress(out + 64 + m, cap - m, "", 0, 3) : 0;
	CHECK(!ZSTD_isError(*extra));
	ZSTD_freeCCtx(cc);
	size_t meta_len = m + *extra, total = n - old_len + meta_len;
	memcpy(out, g, 64);
	memcpy(out + 64 + meta_len, g + 64 + old_len, n - 64 - old_len);
	trace_put_u64(out + 32, meta_len);
	trace_put_u64(out + 40, trace_xxh64(out + 64, meta_len, 0));
	trace_put_u64(out + 48, total);
	trace_put_u64(out + 56, trace_xxh64(out, 56, 0));
	test_spit(path, out, total);
	free(out);
	return m;
}

/* The metadata block's zstd frame without its content size (a writer
 * that streamed it without pledging its size), followed by a second
 * frame, and not a zstd frame: each said as what it is, where all three
 * were "metadata block is not one zstd frame". Hashes made to match. */
static void test_meta_frame(void)
{
	struct nl_err e = {0};
	const char *good = test_tmppath("good.nlt"), *bad = test_tmppath("bad.nlt");
	CHECK_OK(write_archive(good, 40, 512, false, &e), &e);
	size_t n, extra;
	uint8_t *g = test_slurp(good, &n);
	CHECK(g != NULL);
	if (!g)
		return;
	size_t meta_len = trace_get_u64(g + 32), n_raw = ZSTD_getFrameContentSize(g + 64, meta_len);
	uint8_t *raw = malloc(n_raw);
	CHECK_EQ(ZSTD_decompress(raw, n_raw, g + 64, meta_len), n_raw);
	char want[600];

	spit_with_meta(bad, g, n, raw, n_raw, true, false, &extra); /* the control: it reads */
	CHECK_OK(open_and_verify(bad, &e), &e);

	spit_with_meta(bad, g, n, raw, n_raw, false, false, &extra);
	snprintf(want, sizeof want,
		 "%s: offset 64: metadata block's zstd frame header gives no content size: expected a frame with "
		 "its content size",
		 bad);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);

	size_t m = spit_with_meta(bad, g, n, raw, n_raw, true, true, &extra);
	snprintf(want, sizeof want,
		 "%s: offset 64: metadata block has %zu bytes after its zstd frame of %zu: expected one frame of "
		 "meta_len %zu bytes",
		 bad, extra, m, m + extra);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);

	/* The decompressed block malformed, recompressed and hashed as a
	 * writer would: the message names the field, whose it is and what was
	 * expected (was "metadata block malformed at decoded byte N" alone).
	 * write_archive's block: strings at 0 .. 44, start_unix at 45,
	 * recorded_runtime_s at 50, n_comms 2 at 58, communicators 2 and 5 at
	 * 59 and 64 (id, size 3, members), the rank index at 69, the four host
	 * fields last (mflags 1). */
	uint8_t *r2 = malloc(n_raw + 1);
	struct {
		size_t at; /* byte set to v, or the length cut to when v < 0 */
		int v;
		const char *msg;
	} bad_raw[] = {
		{3, 0, "decoded byte 0: application: holds a NUL byte"},
		{52, -1, "decoded byte 50: recorded_runtime_s: needs 8 bytes, the block has 2 left"},
		{64, 1, "decoded byte 64: communicator entry 1's id: 1: expected more than 2 (ids strictly increasing "
			"from 2, not 0xffffffff)"},
		{61, 3, "decoded byte 61: communicator entry 0's member: world rank 3: expected below 3 (n_ranks)"},
		{n_raw - 1, 2, "mflags: 0x2: unknown bits 0x2 (known: compute_cpu 0x1)"},
		{n_raw, 0, "1 byte after its last field (the host fields): expected none"},
	};
	CHECK_EQ(raw[58], 2);
	CHECK_EQ(raw[59], 2);
	CHECK_EQ(raw[64], 5);
	CHECK_EQ(raw[n_raw - 1], 1);
	for (size_t i = 0; i < sizeof bad_raw / sizeof *bad_raw; i++) {
		memcpy(r2, raw, n_raw);
		size_t len = bad_raw[i].v < 0 ? bad_raw[i].at : bad_raw[i].at == n_raw ? n_raw + 1 : n_raw;
		if (bad_raw[i].v >= 0)
			r2[bad_raw[i].at] = (uint8_t)bad_raw[i].v;
		spit_with_meta(bad, g, n, r2, len, true, false, &extra);
		snprintf(want, sizeof want, "%s: offset 64: metadata block malformed at ", bad);
		CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
		CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, bad_raw[i].msg);
	}
	/* A recorded runtime NaN, infinite or negative (it read as "nan s",
	 * with no recorded_runtime_s in info --json, and its dump did not
	 * encode back). */
	double bad_rt[] = {NAN, INFINITY, -1};
	const char *bad_rt_msg[] = {"nan", "inf", "-1"};
	for (size_t i = 0; i < 3; i++) {
		memcpy(r2, raw, n_raw);
		uint64_t bits;
		memcpy(&bits, &bad_rt[i], 8);
		trace_put_u64(r2 + 50, bits);
		spit_with_meta(bad, g, n, r2, n_raw, true, false, &extra);
		snprintf(want, sizeof want,
			 "%s: offset 64: metadata block malformed at decoded byte 50: recorded_runtime_s: %s: expected a "
			 "finite number of seconds >= 0",
			 bad, bad_rt_msg[i]);
		CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	}
	free(r2);

	uint8_t *b = malloc(n);
	memcpy(b, g, n);
	b[64] ^= 0xff; /* the zstd magic */
	trace_put_u64(b + 40, trace_xxh64(b + 64, meta_len, 0));
	trace_put_u64(b + 56, trace_xxh64(b, 56, 0));
	test_spit(bad, b, n);
	snprintf(want, sizeof want,
		 "%s: offset 64: metadata block is not a zstd frame: expected one zstd frame of %zu bytes", bad,
		 meta_len);
	CHECK_ERR(open_and_verify(bad, &e), NL_ECORRUPT, &e, want);
	free(b);
	free(raw);
	free(g);
}

/* --- memory bound ------------------------------------------------------------ */

/* Peak heap in use while streaming every rank of `path`, minus the heap in
 * use before opening it (glibc mallinfo2). */
__attribute__((unused)) static size_t stream_peak_heap(const char *path)
{
	struct nl_err e = {0};
	size_t base = mallinfo2().uordblks, peak = 0;
	struct trace_archive *a;
	if (trace_archive_open(&a, path, &e))
		return SIZE_MAX;
	for (uint32_t r = 0; r < N_RANKS; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		trace_rank_open(a, r, &rd, &e);
		uint64_t i = 0;
		while (trace_rank_next(rd, &op, &e) == 1)
			if ((i++ & 1023) == 0) {
				size_t now = mallinfo2().uordblks;
				if (now > peak)
					peak = now;
			}
		trace_rank_close(rd);
	}
	trace_archive_close(a);
	return peak > base ? peak - base : 0;
}

static void test_reader_memory_bounded(void)
{
#if defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "  (skipped under ASan: mallinfo2 does not see its heap)\n");
#else
	struct nl_err e = {0};
	CHECK_OK(write_archive(test_tmppath("short.nlt"), 20000, 0, false, &e), &e);
	CHECK_OK(write_archive(test_tmppath("long.nlt"), 400000, 0, false, &e), &e);
	size_t s = stream_peak_heap(test_tmppath("short.nlt")), l = stream_peak_heap(test_tmppath("long.nlt"));
	struct stat st1, st2;
	stat(test_tmppath("short.nlt"), &st1);
	stat(test_tmppath("long.nlt"), &st2);
	fprintf(stderr, "  peak reader heap: %zu bytes (%lld-byte archive), %zu bytes (%lld-byte archive)\n", s,
		(long long)st1.st_size, l, (long long)st2.st_size);
	CHECK(st2.st_size > 10 * st1.st_size);
	/* 20x the ops, same memory (within a frame's worth of slack). */
	CHECK_UINT(l, <=, s + 70000);
	CHECK_UINT(l, <, 2u << 20);
	unlink(test_tmppath("short.nlt"));
	unlink(test_tmppath("long.nlt"));
#endif
}

int main(void)
{
	test_tmpdir_make("trace_corrupt");
	TEST_RUN(test_corruption);
	TEST_RUN(test_meta_frame);
	TEST_RUN(test_reader_memory_bounded);
	test_tmpdir_remove();
	return test_done();
}
