/* Unit tests: trace archive (hash, varints, op codec, writer/reader round
 * trip, determinism, writer and encoder errors). Corruption detection and
 * bounded reader memory: test_trace_corrupt.c. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/staged.h"
#include "test.h"
#include "traces/trace.h"
#include "traces/traces_internal.h"
#include "trace_sample.h"

/* --- hash and varints --------------------------------------------------- */

static void test_xxh64_vectors(void)
{
	/* Expected values from the reference implementation (libxxhash 0.8.1). */
	uint8_t b100[100], b1000[1000];
	for (int i = 0; i < 100; i++)
		b100[i] = (uint8_t)i;
	for (int i = 0; i < 1000; i++)
		b1000[i] = (uint8_t)(i * 7 % 256);
	CHECK_UINT(trace_xxh64("", 0, 0), ==, 0xef46db3751d8e999ull);
	CHECK_UINT(trace_xxh64("a", 1, 0), ==, 0xd24ec4f1a98c6e5bull);
	CHECK_UINT(trace_xxh64("abc", 3, 0), ==, 0x44bc2cf5ad770999ull);
	CHECK_UINT(trace_xxh64("netloom", 7, 0), ==, 0xc0c03df0a180a8f7ull);
	CHECK_UINT(trace_xxh64(b100, 100, 0), ==, 0x6ac1e58032166597ull);
	CHECK_UINT(trace_xxh64(b1000, 1000, 0), ==, 0x25275608a9cfc168ull);
	CHECK_UINT(trace_xxh64("abc", 3, 1234), ==, 0x2151859f42f363e2ull);
	/* Either side of the 32-byte stripe and of two stripes, seed 0 and a
	 * seed with the top bit set (the hand-written XXH64 netloom used before
	 * libxxhash gave the same values, so archives written by it verify). */
	const struct {
		size_t len;
		uint64_t h0, h_seed;
	} edge[] = {
		{31, 0xc346d2b59b4d8ee1ull, 0xf3da6d05709c035dull}, {32, 0xcbf59c5116ff32b4ull, 0xa1c89217e9d50750ull},
		{33, 0x0c535d1acafb8eadull, 0xe6a3c00cd6e74075ull}, {63, 0xe26aa9e2a95f8e4full, 0x26a0acd772de057eull},
		{64, 0xf7c67301db6713f0ull, 0x2589245e62a1969bull},
	};
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
		CHECK_UINT(trace_xxh64(b100, edge[i].len, 0), ==, edge[i].h0);
		CHECK_UINT(trace_xxh64(b100, edge[i].len, 0x9E3779B97F4A7C15ull), ==, edge[i].h_seed);
	}

	/* Streaming in uneven pieces gives the one-shot value. */
	struct trace_xxh64 s;
	trace_xxh64_init(&s, 0);
	size_t cuts[] = {0, 1, 31, 33, 64, 65, 500, 999, 1000};
	for (size_t i = 1; i < sizeof cuts / sizeof *cuts; i++)
		trace_xxh64_update(&s, b1000 + cuts[i - 1], cuts[i] - cuts[i - 1]);
	CHECK_UINT(trace_xxh64_digest(&s), ==, 0x25275608a9cfc168ull);
}

static void test_varint(void)
{
	uint8_t b[16];
	uint64_t v = 0;
	const uint64_t vals[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX, (1ull << 63), UINT64_MAX};
	const size_t lens[] = {1, 1, 1, 2, 2, 2, 3, 5, 10, 10};
	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
		size_t n = trace_varint_put(b, vals[i]);
		CHECK_EQ(n, lens[i]);
		CHECK_EQ(trace_varint_get(b, n, &v), n);
		CHECK_UINT(v, ==, vals[i]);
		/* One byte short: truncated. */
		CHECK_EQ(trace_varint_get(b, n - 1, &v), 0);
	}
	/* 300 = 0xAC 0x02 (LEB128). */
	CHECK_EQ(trace_varint_put(b, 300), 2);
	CHECK_EQ(b[0], 0xac);
	CHECK_EQ(b[1], 0x02);
	/* Non-minimal (0x80 0x00 = 0 in two bytes) is rejected. */
	uint8_t nm[] = {0x80, 0x00};
	CHECK_EQ(trace_varint_get(nm, 2, &v), 0);
	/* 11 bytes, and a 10th byte overflowing 64 bits, are rejected. */
	uint8_t lng[11];
	memset(lng, 0xff, sizeof lng);
	lng[10] = 0x01;
	CHECK_EQ(trace_varint_get(lng, 11, &v), 0);
	uint8_t ovf[10];
	memset(ovf, 0xff, 9);
	ovf[9] = 0x02;
	CHECK_EQ(trace_varint_get(ovf, 10, &v), 0);

	CHECK_UINT(trace_zigzag(0), ==, 0);
	CHECK_UINT(trace_zigzag(-1), ==, 1);
	CHECK_UINT(trace_zigzag(1), ==, 2);
	CHECK_UINT(trace_zigzag(-2), ==, 3);
	CHECK_UINT(trace_zigzag(INT64_MIN), ==, UINT64_MAX);
	for (int64_t x = -1000; x <= 1000; x += 7)
		CHECK_EQ(trace_unzigzag(trace_zigzag(x)), x);
	CHECK_EQ(trace_unzigzag(trace_zigzag(INT64_MAX)), INT64_MAX);
}


static void test_codec_every_kind(void)
{
	uint8_t buf[4096];
	struct trace_op_arrays arr = {0};
	for (unsigned k = 0; k < TOP__COUNT; k++) {
		for (uint64_t i = 0; i < 20; i++) {
			struct trace_op in = sample_op(k, i, 1000 * i), out;
			uint64_t base_w = 500, base_r = 500;
			size_t n = trace_op_encode(buf, &in, &base_w);
			CHECK(n <= trace_op_encoded_max(&in));
			const char *what = NULL;
			int got = trace_op_decode(buf, n, &out, &base_r, &arr, &what);
			CHECK_EQ(got, (int)n);
			CHECK(trace_op_equal(&in, &out));
			CHECK_UINT(base_r, ==, base_w);
			/* Every strict prefix fails to decode. */
			for (size_t cut = 0; cut < n; cut++) {
				uint64_t b = 500;
				CHECK(trace_op_decode(buf, cut, &out, &b, &arr, &what) < 0);
			}
		}
		CHECK_STR(trace_op_name(k) ? "ok" : NULL, "ok");
	}
	CHECK(trace_op_name(TOP__COUNT) == NULL);
	CHECK_STR(trace_op_name(TOP_ALLREDUCE), "allreduce");

	/* A compact isend: kind, mask, delta 0, dur, peer, tag, bytes, req. */
	struct trace_op is = {.kind = TOP_ISEND, .t_ps = 10, .dur_ps = 5, .peer = 1, .tag = 7, .bytes = 1024, .req = 3};
	uint64_t base = 10;
	size_t n = trace_op_encode(buf, &is, &base);
	const uint8_t want[] = {TOP_ISEND, 0x0f, 0x00, 0x05, 0x02, 0x0e, 0x80, 0x08, 0x03};
	CHECK_EQ(n, sizeof want);
	CHECK(!memcmp(buf, want, sizeof want));

	/* Decoder rejects: unknown kind, unknown mask bits, zero-valued field. */
	const char *what = NULL;
	struct trace_op out;
	uint8_t bad_kind[] = {TOP__COUNT, 0, 0, 0};
	base = 0;
	CHECK_EQ(trace_op_decode(bad_kind, sizeof bad_kind, &out, &base, &arr, &what), NL_ECORRUPT);
	/* Each names the field and its value (they said "unknown op kind",
	 * "unknown field bits in op mask", "field present in mask but zero",
	 * "32-bit field out of range" and "flags out of range", naming none). */
	CHECK_STR(what, "unknown op kind 49 (expected 0 .. 48)");
	uint8_t bad_mask[] = {0, 0x80, 0x80, 0x20, 0, 0};
	CHECK_EQ(trace_op_decode(bad_mask, sizeof bad_mask, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "unknown field bits 0x80000 in op mask 0x80000 (fields are bits 0 .. 18)");
	uint8_t zero_field[] = {TOP_SEND, 0x01, 0, 0, 0};
	CHECK_EQ(trace_op_decode(zero_field, sizeof zero_field, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "peer present in mask (bit 0) but zero");
	uint8_t zero_req[] = {TOP_ISEND, 0x0f, 0, 0, 0x02, 0x0e, 0x80, 0x08, 0x00};
	CHECK_EQ(trace_op_decode(zero_req, sizeof zero_req, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "req present in mask (bit 3) but zero");
	uint8_t big_comm[] = {TOP_BARRIER, 0x10, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10}; /* 2^32 */
	CHECK_EQ(trace_op_decode(big_comm, sizeof big_comm, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "comm 4294967296: out of the u32 range");
	uint8_t big_tag[] = {TOP_SEND, 0x02, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10}; /* zigzag 2^32 = 2^31 */
	CHECK_EQ(trace_op_decode(big_tag, sizeof big_tag, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "tag 2147483648: out of the i32 range");
	/* Flag bits no netloom defines: the reader refuses them (a barrier,
	 * mask bit 5, flags 0x8, and 0x10000 past the u16 field) and so does
	 * every writer. */
	uint8_t big_flags[] = {TOP_BARRIER, 0x20, 0, 0, 0x81, 0x80, 0x04};
	CHECK_EQ(trace_op_decode(big_flags, sizeof big_flags, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "flags 0x10001: unknown flag bits 0x10000 (known: nonblocking 0x1, in_place 0x2, no_outcome 0x4)");
	uint8_t bad_flags[] = {TOP_BARRIER, 0x20, 0, 0, 0x08};
	CHECK_EQ(trace_op_decode(bad_flags, sizeof bad_flags, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "flags 0x8: unknown flag bits 0x8 (known: nonblocking 0x1, in_place 0x2, no_outcome 0x4)");
	bad_flags[4] = TRACE_F_KNOWN;
	CHECK_EQ(trace_op_decode(bad_flags, sizeof bad_flags, &out, &base, &arr, &what), (int)sizeof bad_flags);
	struct nl_err fe = {0};
	struct trace_op flag_op = {.kind = TOP_BARRIER, .flags = TRACE_F_NONBLOCKING | 0x10, .req = 1};
	CHECK_ERR(trace_op_check(&flag_op, &fe), NL_EINVAL, &fe,
		  "barrier: flags 0x11: unknown bits 0x10; expected TRACE_F_NONBLOCKING (0x1), TRACE_F_IN_PLACE (0x2) "
		  "or TRACE_F_NO_OUTCOME (0x4)");

	/* Format 2: compute's CPU time is mask bit 18, a varint after the
	 * other fields; on any other kind it is rejected both ways. */
	struct trace_op cp = {.kind = TOP_COMPUTE, .t_ps = 0, .dur_ps = 300, .cpu_ps = 200};
	base = 0;
	n = trace_op_encode(buf, &cp, &base);
	const uint8_t want_cp[] = {TOP_COMPUTE, 0x80, 0x80, 0x10, 0x00, 0xac, 0x02, 0xc8, 0x01};
	CHECK_EQ(n, sizeof want_cp);
	CHECK(!memcmp(buf, want_cp, sizeof want_cp));
	base = 0;
	CHECK_EQ(trace_op_decode(buf, n, &out, &base, &arr, &what), (int)n);
	CHECK_UINT(out.cpu_ps, ==, 200);
	uint8_t cpu_on_send[] = {TOP_SEND, 0x80, 0x80, 0x10, 0x00, 0x00, 0x05};
	base = 0;
	CHECK_EQ(trace_op_decode(cpu_on_send, sizeof cpu_on_send, &out, &base, &arr, &what), NL_ECORRUPT);
	CHECK_STR(what, "cpu time on an op other than compute");
	struct nl_err ce = {0};
	struct trace_op bad_cpu = {.kind = TOP_BARRIER, .cpu_ps = 1};
	CHECK_EQ(trace_op_check(&bad_cpu, &ce), NL_EINVAL);
	trace_op_arrays_release(&arr);

	struct nl_err e = {0};
	struct trace_op nan_op = {.kind = TOP_COMPUTE_FLOPS, .flops = -1};
	CHECK_ERR(trace_op_check(&nan_op, &e), NL_EINVAL, &e, "compute_flops: flops -1: expected a finite value >= 0");
}

static void test_archive_round_trip(void)
{
	struct nl_err e = {0};
	const char *p = test_tmppath("rt.nlt");
	CHECK_OK(write_archive(p, 500, 1024, true, &e), &e);

	struct trace_archive *a = NULL;
	CHECK_OK(trace_archive_open(&a, p, &e), &e);
	if (!a)
		return;
	const struct trace_manifest *m = trace_archive_manifest(a);
	CHECK_EQ(m->format_version, TRACE_FORMAT_VERSION);
	CHECK_EQ(m->n_ranks, N_RANKS);
	CHECK_STR(m->application, "unit \"test\"");
	CHECK_STR(m->command_line, "./unit --flag\tx");
	CHECK_STR(m->machine, "host-1");
	CHECK_STR(m->recorder, "test 0.1");
	CHECK_STR(m->mpi_library, "");
	CHECK_UINT(m->start_unix, ==, 1700000000);
	CHECK_NEAR(m->recorded_runtime_s, 12.5, 0);
	CHECK_EQ(m->n_comms, 4);
	CHECK_EQ(m->comms[0].id, 0);
	CHECK_EQ(m->comms[0].size, N_RANKS);
	CHECK_EQ(m->comms[0].world_ranks[2], 2);
	CHECK_EQ(m->comms[1].id, 1);
	CHECK_EQ(m->comms[1].world_ranks[0], TRACE_SELF_RANK);
	CHECK_EQ(m->comms[2].id, 2);
	CHECK_EQ(m->comms[3].id, 5);
	CHECK_EQ(m->comms[3].world_ranks[0], 2);
	const struct trace_comm *c5 = trace_manifest_find_comm(m, 5);
	CHECK(c5 && c5->size == 3);
	CHECK(trace_manifest_find_comm(m, 3) == NULL);
	CHECK_UINT(m->rank_ops[0], ==, 500);
	CHECK_UINT(m->rank_ops[1], ==, 0);
	struct trace_write_opts o;
	trace_archive_write_opts(a, &o);
	CHECK_EQ(o.frame_target, 1024);
	CHECK_EQ(o.zstd_level, 3);

	/* Every op comes back equal, in order. */
	for (uint32_t r = 0; r < N_RANKS; r++) {
		struct trace_rank_reader *rd;
		CHECK_OK(trace_rank_open(a, r, &rd, &e), &e);
		struct trace_op op;
		uint64_t i = 0, t = 0, n = r == 1 ? 0 : 500;
		int rc;
		while ((rc = trace_rank_next(rd, &op, &e)) == 1) {
			struct trace_op want = sample_op((unsigned)((i + r) % TOP__COUNT), i, t);
			t += want.dur_ps + (i % 3) * 10;
			if (!trace_op_equal(&op, &want)) {
				TEST_FAIL_("rank %u op %llu differs (kind %u vs %u)", r, (unsigned long long)i,
					   op.kind, want.kind);
				break;
			}
			i++;
		}
		CHECK_EQ(rc, 0);
		CHECK_UINT(i, ==, n);
		/* After the end, next keeps returning 0. */
		CHECK_EQ(trace_rank_next(rd, &op, &e), 0);
		trace_rank_close(rd);
	}
	CHECK_ERR(trace_rank_open(a, 3, &(struct trace_rank_reader *){NULL}, &e), NL_ERANGE, &e,
		  "rank 3: the archive has ranks 0 .. 2");
	CHECK_OK(trace_archive_verify(a, &e), &e);
	trace_archive_close(a);
}

/* A reader of one handle on a thread: every op of ranks 0 and 2 against
 * what write_archive wrote; the count of those that came back equal. */
struct again_reader {
	struct trace_archive *a;
	uint64_t n_equal;
	int rc;
};

static void *again_read(void *arg)
{
	struct again_reader *x = arg;
	struct nl_err e = {0};
	for (uint32_t r = 0; r < N_RANKS; r += 2) {
		struct trace_rank_reader *rd;
		if ((x->rc = trace_rank_open(x->a, r, &rd, &e)) < 0)
			return NULL;
		struct trace_op op;
		uint64_t i = 0, t = 0;
		while ((x->rc = trace_rank_next(rd, &op, &e)) == 1) {
			struct trace_op want = sample_op((unsigned)((i + r) % TOP__COUNT), i, t);
			t += want.dur_ps + (i % 3) * 10;
			x->n_equal += trace_op_equal(&op, &want);
			i++;
		}
		trace_rank_close(rd);
		if (x->rc < 0)
			return NULL;
	}
	return NULL;
}

/* trace_archive_open_again: a second handle on the open file, even once
 * its path is gone (a converted trace's temporary archive), read at the
 * same time as the first on another thread (interfere -j's shared run
 * beside a job alone), each op as written; closed in either order. */
static void test_archive_open_again(void)
{
	struct nl_err e = {0};
	const char *p = test_tmppath("again.nlt");
	CHECK_OK(write_archive(p, 500, 1024, true, &e), &e);
	struct trace_archive *a = NULL, *b = NULL;
	CHECK_OK(trace_archive_open(&a, p, &e), &e);
	if (!a)
		return;
	CHECK_EQ(unlink(p), 0);
	CHECK_OK(trace_archive_open_again(a, &b, &e), &e);
	if (!b) {
		trace_archive_close(a);
		return;
	}
	CHECK_EQ(trace_archive_manifest(b)->n_ranks, N_RANKS);
	CHECK_UINT(trace_archive_file_bytes(b), ==, trace_archive_file_bytes(a));
	struct again_reader ra = {.a = a}, rb = {.a = b};
	pthread_t t;
	CHECK_EQ(pthread_create(&t, NULL, again_read, &rb), 0);
	again_read(&ra);
	pthread_join(t, NULL);
	CHECK_EQ(ra.rc, 0);
	CHECK_EQ(rb.rc, 0);
	CHECK_UINT(ra.n_equal, ==, 1000);
	CHECK_UINT(rb.n_equal, ==, 1000);
	trace_archive_close(a);
	CHECK_OK(trace_archive_verify(b, &e), &e);
	trace_archive_close(b);
}

/* Windows (reader.c): an archive of TRACE_READ_BUDGET / TRACE_READ_WINDOW_MIN
 * ranks, so each reader keeps TRACE_READ_WINDOW_MIN bytes of its frame;
 * four ranks of several frames read in turn, one to four ops at a time,
 * each refilling its window from a shared frame another rank replaced;
 * rank 1's alltoallv ops (two arrays of 3,000 two-byte counts) are larger
 * than a window, and rank 3's op is alone in its rank. Every op comes back
 * as written, and each stream ends with its hashes and counts checked. */
#define WIN_N_COUNTS 3000u

static struct trace_op window_op(uint32_t r, uint64_t i, uint64_t t, uint64_t *sc_buf, uint64_t *rc_buf)
{
	if (r == 1 && i % 5 == 2) {
		struct trace_op op = {.kind = TOP_ALLTOALLV, .t_ps = t, .dur_ps = 500 + i, .n_counts = WIN_N_COUNTS,
				      .send_counts = sc_buf, .recv_counts = rc_buf};
		for (uint32_t k = 0; k < WIN_N_COUNTS; k++) {
			sc_buf[k] = 128 + (i * 7 + k) % 16000;
			rc_buf[k] = 128 + (i * 13 + k * 3) % 16000;
		}
		return op;
	}
	return sample_op((unsigned)((i + r) % TOP__COUNT), i, t);
}

static void test_archive_windows(void)
{
	enum { N_READ = 4 };
	static const uint64_t n_ops[N_READ] = {30000, 4000, 12000, 1};
	static uint64_t sc_w[WIN_N_COUNTS], rc_w[WIN_N_COUNTS];
	const uint32_t n_ranks = TRACE_READ_BUDGET / TRACE_READ_WINDOW_MIN;
	struct nl_err e = {0};
	const char *p = test_tmppath("windows.nlt");
	struct trace_builder *b;
	CHECK_OK(trace_builder_new(&b, p, n_ranks, NULL, &e), &e);
	if (!b)
		return;
	int rc = 0;
	for (uint32_t r = 0; r < N_READ && !rc; r++) {
		uint64_t t = 0;
		for (uint64_t i = 0; i < n_ops[r] && !rc; i++) {
			struct trace_op op = window_op(r, i, t, sc_w, rc_w);
			t += op.dur_ps + (i % 3) * 10;
			rc = trace_builder_op(b, r, &op, &e);
		}
		if (!rc)
			rc = trace_builder_end_rank(b, r, &e);
	}
	struct trace_manifest m = {.n_ranks = n_ranks, .format_version = 2};
	if (!rc)
		rc = trace_builder_finish(b, &m, &e);
	trace_builder_free(b);
	CHECK_OK(rc, &e);

	struct trace_archive *a = NULL;
	CHECK_OK(trace_archive_open(&a, p, &e), &e);
	if (!a)
		return;
	/* Each rank spans several frames (rank 3's one), so windows are
	 * refilled across frame boundaries too. */
	CHECK_UINT(a->n_frames[0], >=, 4);
	CHECK_UINT(a->n_frames[1], >=, 4);
	CHECK_UINT(a->n_frames[3], ==, 1);
	struct trace_rank_reader *rd[N_READ] = {NULL};
	struct nl_err er[N_READ] = {{0}};
	uint64_t i[N_READ] = {0}, t[N_READ] = {0};
	int got[N_READ];
	for (uint32_t r = 0; r < N_READ; r++) {
		CHECK_OK(trace_rank_open(a, r, &rd[r], &er[r]), &er[r]);
		got[r] = rd[r] ? 1 : -1;
	}
	bool is_reading = true, is_equal = true;
	while (is_reading && is_equal) {
		is_reading = false;
		for (uint32_t r = 0; r < N_READ; r++)
			for (uint32_t k = 0; k <= r && got[r] == 1 && is_equal; k++) {
				struct trace_op op;
				got[r] = trace_rank_next(rd[r], &op, &er[r]);
				if (got[r] != 1)
					break;
				struct trace_op want = window_op(r, i[r], t[r], sc_w, rc_w);
				t[r] += want.dur_ps + (i[r] % 3) * 10;
				if (!trace_op_equal(&op, &want)) {
					TEST_FAIL_("rank %u op %llu differs (kind %u vs %u)", r,
						   (unsigned long long)i[r], op.kind, want.kind);
					is_equal = false;
				}
				i[r]++;
				is_reading = true;
			}
	}
	for (uint32_t r = 0; r < N_READ; r++) {
		if (got[r] < 0)
			fprintf(stderr, "  rank %u: %s\n", r, er[r].msg);
		CHECK_EQ(got[r], 0);
		CHECK_UINT(i[r], ==, n_ops[r]);
		trace_rank_close(rd[r]);
	}
	trace_archive_close(a);
	unlink(p);
}

static void test_archive_deterministic(void)
{
	struct nl_err e = {0};
	size_t n1, n2;
	CHECK_OK(write_archive(test_tmppath("d1.nlt"), 3000, 0, false, &e), &e);
	CHECK_OK(write_archive(test_tmppath("d2.nlt"), 3000, 0, false, &e), &e);
	uint8_t *a = test_slurp(test_tmppath("d1.nlt"), &n1), *b = test_slurp(test_tmppath("d2.nlt"), &n2);
	CHECK(a && b);
	CHECK_EQ(n1, n2);
	CHECK(a && b && n1 == n2 && !memcmp(a, b, n1));
	free(a);
	free(b);
}

static void test_writer_rejects(void)
{
	struct nl_err e = {0};
	struct trace_stream_writer *w = NULL;
	struct trace_write_opts bad = {.frame_target = 10};
	CHECK_ERR(trace_stream_open_opts(&w, 0, test_tmppath("x.nls"), &bad, &e), NL_ERANGE, &e,
		  "frame_target 10: expected 256 .. 16777216 bytes");
	CHECK_ERR(trace_stream_open(&w, 0, "/nonexistent-dir/x.nls", &e), NL_EIO, &e,
		  "/nonexistent-dir/x.nls: cannot create");
	CHECK_OK(trace_stream_open(&w, 0, test_tmppath("x.nls"), &e), &e);
	struct trace_op op = {.kind = 999};
	CHECK_ERR(trace_stream_append(w, &op, &e), NL_EINVAL, &e, "op kind 999 is not a trace_op_kind");
	struct trace_op ok = {.kind = TOP_INIT};
	CHECK_OK(trace_stream_append(w, &ok, &e), &e);
	uint64_t n = 0, b = 0, h = 0;
	CHECK_OK(trace_stream_close(w, &n, &b, &h, &e), &e);
	CHECK_UINT(n, ==, 1);
	CHECK_UINT(b, ==, 4); /* kind, mask, dt, dur: one byte each */

	/* Manifest disagreeing with the stream is refused. */
	uint64_t wrong = 2;
	const char *sp[] = {test_tmppath("x.nls")};
	struct trace_manifest m = {.n_ranks = 1, .rank_ops = &wrong};
	CHECK_ERR(trace_archive_write(test_tmppath("x.nlt"), &m, sp, &e), NL_EINVAL, &e,
		  "rank 0: manifest says 2 ops");
	struct trace_comm dup[] = {{2, 1, comm2_ranks}, {2, 1, comm2_ranks}};
	struct trace_manifest md = {.n_ranks = 1, .n_comms = 2, .comms = dup};
	CHECK_ERR(trace_archive_write(test_tmppath("x.nlt"), &md, sp, &e), NL_EINVAL, &e,
		  "communicator id 2 listed twice");
	uint32_t far[] = {7};
	struct trace_comm farc[] = {{3, 1, far}};
	struct trace_manifest mf = {.n_ranks = 1, .n_comms = 1, .comms = farc};
	CHECK_ERR(trace_archive_write(test_tmppath("x.nlt"), &mf, sp, &e), NL_EINVAL, &e,
		  "communicator 3: member 0 is world rank 7, expected < 1");
	/* A recorded runtime readers refuse (NaN, infinite, negative: it was
	 * written, verified, and its dump did not encode back). */
	double bad_rt[] = {NAN, INFINITY, -1};
	const char *bad_rt_msg[] = {"manifest recorded_runtime_s nan: expected a finite number of seconds >= 0",
				    "manifest recorded_runtime_s inf: expected", "manifest recorded_runtime_s -1: expected"};
	for (size_t i = 0; i < 3; i++) {
		struct trace_manifest mr = {.n_ranks = 1, .recorded_runtime_s = bad_rt[i]};
		CHECK_ERR(trace_archive_write(test_tmppath("x.nlt"), &mr, sp, &e), NL_EINVAL, &e, bad_rt_msg[i]);
	}
	/* A stream for another rank is refused. */
	struct trace_manifest m2 = {.n_ranks = 2};
	const char *sp2[] = {test_tmppath("x.nls"), test_tmppath("x.nls")};
	CHECK_ERR(trace_archive_write(test_tmppath("x.nlt"), &m2, sp2, &e), NL_EFORMAT, &e,
		  "offset 8: stream is for rank 0, expected rank 1");
	CHECK(access(test_tmppath("x.nlt"), F_OK) != 0); /* nothing half-written */
	unlink(test_tmppath("x.nls"));
}

/* Streams written here and told to the archive writer (the builder's
 * way: mkstemp's fd, or a file shared by streams written one after
 * another, to the writer, its summary to the archive) give the bytes of
 * the scanning path; a stream changed after it was written is refused,
 * as the scan refuses it. */
static uint8_t put_byte(const char *path, long off, int whence, uint8_t v)
{
	FILE *f = fopen(path, "r+b");
	int old = EOF;
	CHECK(f != NULL);
	if (!f)
		return 0;
	CHECK(fseek(f, off, whence) == 0);
	old = fgetc(f);
	CHECK(fseek(f, off, whence) == 0);
	CHECK(fputc(v, f) == v);
	fclose(f);
	return (uint8_t)old;
}

static void write_ops(struct trace_stream_writer *w, uint32_t r, struct nl_err *e)
{
	for (uint64_t i = 0; i < 200; i++) {
		struct trace_op op = {.kind = TOP_COMPUTE, .t_ps = i * 1000, .dur_ps = 500 + r};
		CHECK_OK(trace_stream_append(w, &op, e), e);
	}
}

static void test_written_streams(void)
{
	struct nl_err e = {0};
	struct trace_stream_summary sum[2];
	struct trace_write_opts o = {.frame_target = 256};
	char sp0[512], sp1[512], shared[512], scanned[512], told[512], want[700];
	const char *sp[] = {sp0, sp1, shared};
	snprintf(sp0, sizeof sp0, "%s", test_tmppath("w0.nlsXXXXXX"));
	snprintf(sp1, sizeof sp1, "%s", test_tmppath("w1.nlsXXXXXX"));
	snprintf(shared, sizeof shared, "%s", test_tmppath("shared.nls"));
	snprintf(scanned, sizeof scanned, "%s", test_tmppath("scanned.nlt"));
	snprintf(told, sizeof told, "%s", test_tmppath("told.nlt"));
	for (uint32_t r = 0; r < 2; r++) {
		struct trace_stream_writer *w = NULL;
		int fd = mkstemp((char *)sp[r]);
		CHECK(fd >= 0);
		CHECK_OK(trace_stream_open_fd(&w, r, fd, sp[r], &o, &e), &e);
		write_ops(w, r, &e);
		CHECK_OK(trace_stream_close_summary(w, &sum[r], &e), &e);
		struct stat st;
		CHECK(stat(sp[r], &st) == 0);
		CHECK_UINT(sum[r].offset, ==, 0);
		CHECK_UINT(sum[r].file_bytes, ==, (uint64_t)st.st_size);
		CHECK_UINT(sum[r].n_ops, ==, 200);
		CHECK_UINT(sum[r].n_frames, >, 1); /* 256-byte frames */
	}
	/* The scanning path's streams, one file each, for the bytes to match. */
	struct trace_manifest m = {.n_ranks = 2, .application = "w"};
	size_t n1 = 0, n2 = 0;
	CHECK_OK(trace_archive_write(scanned, &m, sp, &e), &e);
	CHECK_OK(trace_archive_write_streams(told, &m, sp, sum, &e), &e);
	uint8_t *a = test_slurp(scanned, &n1), *b = test_slurp(told, &n2);
	CHECK(a && b && n1 == n2 && !memcmp(a, b, n1));
	free(b);
	unlink(told);

	/* Both ranks again in one shared file, one after the other. */
	FILE *f = fopen(shared, "wb");
	CHECK(f != NULL);
	struct trace_stream_summary one[2];
	const char *sh[] = {shared, shared};
	for (uint32_t r = 0; f && r < 2; r++) {
		struct trace_stream_writer *w = NULL;
		CHECK_OK(trace_stream_open_shared(&w, r, f, shared, &o, &e), &e);
		write_ops(w, r, &e);
		CHECK_OK(trace_stream_close_summary(w, &one[r], &e), &e);
	}
	CHECK(f && fclose(f) == 0);
	CHECK_UINT(one[0].offset, ==, 0);
	CHECK_UINT(one[1].offset, ==, sum[0].file_bytes);
	CHECK_UINT(one[1].hash, ==, sum[1].hash);
	CHECK_OK(trace_archive_write_streams(told, &m, sh, one, &e), &e);
	b = test_slurp(told, &n2);
	CHECK(a && b && n1 == n2 && !memcmp(a, b, n1));
	free(a);
	free(b);
	unlink(told);

	/* Rank 1's end chunk (the hash's last byte), rank 0's header (the
	 * rank), bytes after rank 1's end, then rank 1 cut short: each
	 * refused, and restored for the next. */
	uint8_t old = put_byte(sp1, -1, SEEK_END, (uint8_t)~(sum[1].hash >> 56));
	snprintf(want, sizeof want, "%s: rank 1, offset %llu: end chunk is not the one written", sp1,
		 (unsigned long long)sum[1].file_bytes - TRACE_END_SIZE);
	CHECK_ERR(trace_archive_write_streams(told, &m, sp, sum, &e), NL_ECORRUPT, &e, want);
	put_byte(sp1, -1, SEEK_END, old);
	old = put_byte(sp0, 8, SEEK_SET, 1);
	CHECK_ERR(trace_archive_write_streams(told, &m, sp, sum, &e), NL_ECORRUPT, &e,
		  "rank 0, offset 0: stream header is not the one written");
	put_byte(sp0, 8, SEEK_SET, old);
	f = fopen(sp1, "ab");
	CHECK(f && fputc(0, f) == 0);
	if (f)
		fclose(f);
	snprintf(want, sizeof want, "%s: rank 1, offset %llu: bytes after the stream's end chunk, not another stream",
		 sp1, (unsigned long long)sum[1].file_bytes);
	CHECK_ERR(trace_archive_write_streams(told, &m, sp, sum, &e), NL_ECORRUPT, &e, want);
	CHECK(truncate(sp1, (off_t)sum[1].file_bytes - 1) == 0);
	snprintf(want, sizeof want, "%s: rank 1: stream ends at offset %llu, past the file's %llu bytes", sp1,
		 (unsigned long long)sum[1].file_bytes, (unsigned long long)sum[1].file_bytes - 1);
	CHECK_ERR(trace_archive_write_streams(told, &m, sp, sum, &e), NL_ECORRUPT, &e, want);
	/* In the shared file: rank 0's end chunk, then its header. */
	old = put_byte(shared, (long)one[1].offset - 1, SEEK_SET, (uint8_t)~(one[0].hash >> 56));
	snprintf(want, sizeof want, "%s: rank 0, offset %llu: end chunk is not the one written", shared,
		 (unsigned long long)one[1].offset - TRACE_END_SIZE);
	CHECK_ERR(trace_archive_write_streams(told, &m, sh, one, &e), NL_ECORRUPT, &e, want);
	put_byte(shared, (long)one[1].offset - 1, SEEK_SET, old);
	put_byte(shared, (long)one[1].offset + 8, SEEK_SET, 0);
	snprintf(want, sizeof want, "%s: rank 1, offset %llu: stream header is not the one written", shared,
		 (unsigned long long)one[1].offset);
	CHECK_ERR(trace_archive_write_streams(told, &m, sh, one, &e), NL_ECORRUPT, &e, want);
	CHECK(access(told, F_OK) != 0); /* nothing half-written */
	unlink(sp0);
	unlink(sp1);
	unlink(shared);
	unlink(scanned);
}

/* --- text form ----------------------------------------------------------------- */

static void test_dump_encode_identity(void)
{
	/* Every op kind, odd values, flags, counts, strings with escapes and
	 * a small frame target (many frames): dump -> encode gives the same
	 * bytes. */
	struct nl_err e = {0};
	char p[512], txt[512], back[512];
	snprintf(p, sizeof p, "%s", test_tmppath("all.nlt"));
	snprintf(txt, sizeof txt, "%s", test_tmppath("all.txt"));
	snprintf(back, sizeof back, "%s", test_tmppath("all2.nlt"));
	CHECK_OK(write_archive(p, 2000, 700, false, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, p, &e), &e);
	FILE *f = fopen(txt, "w");
	CHECK_OK(trace_dump(a, -1, f, &e), &e);
	fclose(f);
	trace_archive_close(a);
	CHECK_OK(trace_encode_text(txt, back, NULL, &e), &e);
	size_t n1, n2;
	uint8_t *x = test_slurp(p, &n1), *y = test_slurp(back, &n2);
	CHECK(x && y && n1 == n2 && !memcmp(x, y, n1));
	free(x);
	free(y);

	/* The text itself: header lines and one op line. */
	size_t tn;
	char *t = (char *)test_slurp(txt, &tn);
	CHECK(t != NULL);
	if (t) {
		t[tn - 1] = '\0';
		CHECK(strstr(t, "\nnetloom-trace 2\nframe_target 700\nzstd_level 3\nranks 3\n"
				"application \"unit \\\"test\\\"\"\ncommand_line \"./unit --flag\\tx\"\n") != NULL);
		CHECK(strstr(t, "\ncomm 2 0 2 1\ncomm 5 2 1 0\n") != NULL);
		CHECK(strstr(t, "\nsendrecv t=") != NULL);
		CHECK(strstr(t, " peer=1 tag=5 bytes=100 recv_peer=2 recv_tag=any recv_bytes=200\n") != NULL);
		CHECK(strstr(t, " n_counts=3 send_counts=1,200,40000 recv_counts=7,0,2147483648") != NULL);
		CHECK(strstr(t, " flags=no_outcome reqs=") != NULL);
		CHECK(strstr(t, " flags=nonblocking peer=") == NULL); /* barrier has no peer */
		const char *bar = strstr(t, "\nbarrier t=");
		CHECK(bar && strstr(bar, " flags=nonblocking bytes=") && strstr(bar, " req=77\n"));
		free(t);
	}
}

/* A rank of one op is dumped "1 op", not "1 ops", and encodes back to
 * the same bytes; a dump that says "1 ops" (as dumps did) still has its
 * count checked, and so does one that says "1 op" of a longer rank. */
static void test_dump_one_op(void)
{
	struct nl_err e = {0};
	char p[512], txt[512], back[512];
	snprintf(p, sizeof p, "%s", test_tmppath("one.nlt"));
	snprintf(txt, sizeof txt, "%s", test_tmppath("one.txt"));
	snprintf(back, sizeof back, "%s", test_tmppath("one2.nlt"));
	FILE *f = fopen(txt, "w");
	fputs("netloom-trace 2\nranks 2\nrank 0\ninit t=0 dur=0\nrank 1\ninit t=0 dur=0\nfinalize t=0 dur=0\n", f);
	fclose(f);
	CHECK_OK(trace_encode_text(txt, p, NULL, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, p, &e), &e);
	f = fopen(txt, "w");
	CHECK_OK(trace_dump(a, -1, f, &e), &e);
	fclose(f);
	trace_archive_close(a);
	size_t tn;
	char *t = (char *)test_slurp(txt, &tn), *tz = t ? realloc(t, tn + 1) : NULL;
	if (tz)
		tz[tn] = '\0';
	else
		free(t);
	t = tz;
	CHECK(t && strstr(t, "\n# rank 0: 1 op, 4 encoded bytes, xxh64 ") && strstr(t, "\n# rank 1: 2 ops, 8 encoded bytes"));
	CHECK_OK(trace_encode_text(txt, back, NULL, &e), &e);
	size_t n1, n2;
	uint8_t *x = test_slurp(p, &n1), *y = test_slurp(back, &n2);
	CHECK(x && y && n1 == n2 && !memcmp(x, y, n1));
	free(y);
	unlink(back);
	if (!t) {
		free(x);
		return;
	}
	/* The older wording: read as the same count, same bytes. */
	char *one = strstr(t, " 1 op,");
	CHECK(one != NULL);
	if (one) {
		f = fopen(txt, "w");
		fprintf(f, "%.*s 1 ops,%s", (int)(one - t), t, one + 6);
		fclose(f);
		CHECK_OK(trace_encode_text(txt, back, NULL, &e), &e);
		y = test_slurp(back, &n2);
		CHECK(y && n1 == n2 && !memcmp(x, y, n1));
		free(y);
		unlink(back);
	}
	/* Counts checked in either wording, and said in the right one. */
	f = fopen(txt, "w");
	fputs("netloom-trace 2\nranks 1\n# rank 0: 1 op, 4 encoded bytes\nrank 0\ninit t=0 dur=0\nfinalize t=0 dur=0\n", f);
	fclose(f);
	CHECK_ERR(trace_encode_text(txt, back, NULL, &e), NL_EFORMAT, &e,
		  "rank 0 has 2 ops, its line '# rank 0: 1 op' says otherwise: a cut or edited dump");
	f = fopen(txt, "w");
	fputs("netloom-trace 2\nranks 1\n# rank 0: 2 ops, 8 encoded bytes\nrank 0\ninit t=0 dur=0\n", f);
	fclose(f);
	CHECK_ERR(trace_encode_text(txt, back, NULL, &e), NL_EFORMAT, &e,
		  "rank 0 has 1 op, its line '# rank 0: 2 ops' says otherwise: a cut or edited dump");
	CHECK(access(back, F_OK) != 0);
	free(x);
	free(t);
}

static void test_encode_errors(void)
{
	struct nl_err e = {0};
	char txt[512], out[512];
	snprintf(txt, sizeof txt, "%s", test_tmppath("e.txt"));
	snprintf(out, sizeof out, "%s", test_tmppath("e.nlt"));
	struct {
		const char *text, *msg;
	} cases[] = {
		{"ranks 1\n", "e.txt:1: expected 'netloom-trace 2' as the first line"},
		{"netloom-trace 3\n", "e.txt:1: unsupported text format version '3' (this netloom reads 1 .. 2)"},
		{"netloom-trace 1\nranks 1\nrank 0\ncancel t=1 dur=0 req=4 n_done=1\n",
		 "a cancel op needs format version 2 or later (this stream writes version 1)"},
		{"netloom-trace 1\nranks 1\nhosts 1\n", "e.txt:3: hosts: not in format version 1 (it needs 'netloom-trace 2')"},
		{"netloom-trace 2\nranks 1\ncompute_cpu_time 2\n", "e.txt:3: compute_cpu_time '2': expected 0 or 1"},
		{"netloom-trace 1\nranks 1\nrank 0\ncompute t=0 dur=5 cpu=3\n",
		 "compute op with cpu time needs format version 2 (this stream writes version 1)"},

		{"netloom-trace 1\nranks 1\nranks 2\n", "e.txt:3: ranks given twice"},
		/* What is missing said (it was "comm before ranks"). */
		{"netloom-trace 2\ncomm 2 0\nranks 1\n",
		 "e.txt:2: comm before ranks: expected a 'ranks N' line first (members are world ranks < N)"},
		{"netloom-trace 2\napplication \"x\"\nrank 0\n",
		 "e.txt:3: rank section before 'ranks': expected a 'ranks N' line in the manifest, before 'rank 0'"},
		/* Refused at its line, not after allocating per-rank tables. */
		{"netloom-trace 1\nranks 16777216\n", "e.txt:2: ranks '16777216': expected an integer 1 .. 16777215 (replay's limit)"},
		{"netloom-trace 1\nranks 0\n", "e.txt:2: ranks '0': expected an integer 1 .. 16777215 (replay's limit)"},
		{"netloom-trace 1\nranks 1\napplication \"a\\q\"\n", "e.txt:3: application: expected a double-quoted string"},
		{"netloom-trace 1\nranks 2\ncomm 2 0 5\n", "e.txt:3: comm 2: member '5': expected a world rank < 2"},
		{"netloom-trace 1\nranks 1\nrank 0\nsend t=1 dur=0 peer=x\n",
		 "e.txt:4: peer 'x': expected a rank (an integer -2147483648 .. 2147483647), 'any' or 'null'"},
		/* A whole number past its field's range: the range said (it was
		 * told "expected ..., a whole number", which it is). */
		{"netloom-trace 2\nranks 2\nrank 0\nsend t=0 dur=0 peer=1 req=4294967296\n",
		 "e.txt:4: req '4294967296': expected a request id, a whole number 0 .. 4294967295"},
		{"netloom-trace 2\nranks 2\nrank 0\nsend t=0 dur=0 peer=1 bytes=18446744073709551616\n",
		 "e.txt:4: bytes '18446744073709551616': expected a byte count, a whole number 0 .. 18446744073709551615"},
		{"netloom-trace 2\nranks 2\nrank 0\nsend t=18446744073709551616 dur=0 peer=1\n",
		 "e.txt:4: t '18446744073709551616': expected picoseconds, a whole number 0 .. 18446744073709551615"},
		{"netloom-trace 2\nranks 2\nrank 0\nsend t=0 dur=0 peer=1 tag=2147483648\n",
		 "e.txt:4: tag '2147483648': expected a tag (an integer -2147483648 .. 2147483647) or 'any'"},
		{"netloom-trace 2\nranks 2\nrank 0\nsend t=0 dur=0 comm=4294967296 peer=1\n",
		 "e.txt:4: comm '4294967296': expected a communicator id, a whole number 0 .. 4294967295"},
		{"netloom-trace 2\nranks 2\nrank 0\nwaitall t=0 dur=0 reqs=1,4294967296\n",
		 "e.txt:4: reqs '1,4294967296': expected request ids (whole numbers 0 .. 4294967295) joined by ','"},
		{"netloom-trace 2\nranks 2\nstart_unix 18446744073709551616\n",
		 "e.txt:3: start_unix '18446744073709551616': expected a whole number of seconds 0 .. 18446744073709551615"},
		{"netloom-trace 2\nranks 1\nrank 0\nalltoallv t=0 dur=0 send_counts=18446744073709551616 recv_counts=1\n",
		 "e.txt:4: send_counts: '18446744073709551616' is not an unsigned integer 0 .. 18446744073709551615"},
		/* The whole value, though flags and reqs are split in place. */
		{"netloom-trace 1\nranks 1\nrank 0\nwaitall t=0 dur=0 reqs=1,x,2\n",
		 "e.txt:4: reqs '1,x,2': expected request ids (whole numbers 0 .. 4294967295) joined by ','"},
		{"netloom-trace 1\nranks 1\nrank 0\ncompute t=0 dur=5 flags=0x1|zz\n",
		 "e.txt:4: flags '0x1|zz': expected flag names or numbers up to 65535 joined by '|'"},
		/* An empty item was skipped: '1,,2' read as two ids, a trailing
		 * '|' or ',' ignored. */
		{"netloom-trace 1\nranks 1\nrank 0\nwaitall t=0 dur=0 reqs=1,,2\n",
		 "e.txt:4: reqs '1,,2': expected request ids (whole numbers 0 .. 4294967295) joined by ','"},
		{"netloom-trace 1\nranks 1\nrank 0\nwaitall t=0 dur=0 reqs=,1\n", "e.txt:4: reqs ',1': expected request ids (whole numbers 0 .. 4294967295) joined by ','"},
		{"netloom-trace 1\nranks 1\nrank 0\nwaitall t=0 dur=0 reqs=1,\n", "e.txt:4: reqs '1,': expected request ids (whole numbers 0 .. 4294967295) joined by ','"},
		{"netloom-trace 1\nranks 1\nrank 0\nbarrier t=0 dur=0 flags=nonblocking| req=1\n",
		 "e.txt:4: flags 'nonblocking|': expected flag names or numbers up to 65535 joined by '|'"},
		{"netloom-trace 1\nranks 1\nrank 0\nalltoallv t=0 dur=0 send_counts=1,,2 recv_counts=1,2\n",
		 "e.txt:4: send_counts '1,,2': an empty item; expected unsigned integers joined by ','"},
		{"netloom-trace 1\nranks 1\nrank 0\nalltoallv t=0 dur=0 send_counts=1 recv_counts=1,\n",
		 "e.txt:4: recv_counts '1,': an empty item; expected unsigned integers joined by ','"},
		{"netloom-trace 1\nranks 1\nrank 0\nfoo t=1\n", "e.txt:4: unknown op 'foo'"},
		/* What was expected said (it was "unknown op 'ibarrier'" and
		 * "unknown op field 'foo'"). */
		{"netloom-trace 2\nranks 1\nrank 0\nibarrier t=0 dur=0\n",
		 "e.txt:4: unknown op 'ibarrier': expected an op kind as 'netloom trace dump' prints it (init, compute, "
		 "send, isend, recv, irecv, wait, waitall, barrier, bcast, allreduce, ...: docs/trace-format.md §6); a "
		 "non-blocking collective is its kind with flags=nonblocking req=ID"},
		{"netloom-trace 2\nranks 1\nrank 0\nsend t=0 dur=0 foo=1\n",
		 "e.txt:4: unknown op field 'foo': expected one of t, dur, flags, comm, peer, tag, bytes, flops, recv_peer, "
		 "recv_tag, recv_bytes, n_counts, send_counts, recv_counts, req, reqs, n_done, new_comm, color, key, cpu"},
		{"netloom-trace 1\nranks 1\nrank 0\nsend t=1 dur=0 t=2\n", "e.txt:4: op field 't' given twice"},
		/* t= and dur= are on every op line dump writes: one left out
		 * was read as 0 (docs/trace-format.md §8). */
		{"netloom-trace 2\nranks 1\nrank 0\ninit\n",
		 "e.txt:4: init op without t= and dur=: expected t=PS dur=PS after the kind (start and duration in "
		 "picoseconds, as 'netloom trace dump' writes every op; t=0 dur=0 when unknown)"},
		{"netloom-trace 2\nranks 1\nrank 0\ninit t=0 dur=0\ncompute dur=5\n", "e.txt:5: compute op without t=: expected"},
		{"netloom-trace 2\nranks 1\nrank 0\ncompute t=5\n", "e.txt:4: compute op without dur=: expected"},
		/* Flag bits no netloom defines were written, and read back. */
		{"netloom-trace 2\nranks 1\nrank 0\nbarrier t=0 dur=0 flags=nonblocking|0x18 req=1\n",
		 "e.txt:4: flags 'nonblocking|0x18': unknown bits 0x18; expected nonblocking (0x1), in_place (0x2), "
		 "no_outcome (0x4) or their sum, joined by '|'"},
		{"netloom-trace 2\nranks 1\nrank 0\nbarrier t=0 dur=0 flags=65535\n", "e.txt:4: flags '65535': unknown bits 0xfff8;"},
		{"netloom-trace 1\nranks 1\nrank 0\nalltoallv t=0 dur=0 n_counts=2 send_counts=1,2,3\n",
		 "e.txt:4: n_counts, send_counts and recv_counts disagree on the number of ranks"},
		{"netloom-trace 1\nranks 1\nrank 0\ncompute_flops t=0 dur=0 flops=-1\n", "e.txt:4: flops '-1': expected a decimal number of flops >= 0"},
		/* Decimal, as dump prints them: strtod read C99's hexadecimal
		 * floats ('0x1p3' as 8), a blank, 'inf', 'nan' and a negative
		 * runtime. */
		{"netloom-trace 1\nranks 1\nrank 0\ncompute_flops t=0 dur=0 flops=0x1p3\n", "e.txt:4: flops '0x1p3': expected a decimal number of flops >= 0"},
		{"netloom-trace 1\nranks 1\nrecorded_runtime_s 0x1p3\n",
		 "e.txt:3: recorded_runtime_s '0x1p3': expected a decimal number of seconds >= 0"},
		{"netloom-trace 1\nranks 1\nrecorded_runtime_s  1\n",
		 "e.txt:3: recorded_runtime_s ' 1': expected a decimal number of seconds >= 0"},
		{"netloom-trace 1\nranks 1\nrecorded_runtime_s inf\n",
		 "e.txt:3: recorded_runtime_s 'inf': expected a decimal number of seconds >= 0"},
		{"netloom-trace 1\nranks 1\nrecorded_runtime_s nan\n",
		 "e.txt:3: recorded_runtime_s 'nan': expected a decimal number of seconds >= 0"},
		{"netloom-trace 1\nranks 1\nrecorded_runtime_s -1\n",
		 "e.txt:3: recorded_runtime_s '-1': expected a decimal number of seconds >= 0"},
		{"netloom-trace 1\nranks 2\nrank 0\n", "e.txt: 2 ranks declared, rank sections end after rank 0"},
		/* A section past the last rank's, or one given again (two dumps
		 * joined): no next rank to expect (it said "'rank 2': expected
		 * 'rank 2'"). */
		{"netloom-trace 2\nranks 2\nrank 0\nrank 1\nrank 2\n",
		 "e.txt:5: 'rank 2': the last rank's section (rank 1 of 'ranks 2') is given; expected no further 'rank' line"},
		{"netloom-trace 2\nranks 1\nrank 0\nrank 0\n",
		 "e.txt:4: 'rank 0': the last rank's section (rank 0 of 'ranks 1') is given; expected no further 'rank' line"},
		/* No section at all: not "end after rank -1". */
		{"netloom-trace 2\nranks 3\n", "e.txt: 3 ranks declared, no 'rank' section: expected sections rank 0 .. 2"},
		{"netloom-trace 2\nranks 1\n", "e.txt: 1 rank declared, no 'rank' section: expected sections rank 0 .. 0"},
		{"netloom-trace 1\nranks 1\nframe_target 5\nrank 0\n", "e.txt:3: frame_target '5': expected 256 .. 16777216 bytes"},
		/* 0 is refused, not taken for the default (the archive's header
		 * would not say what the text says). */
		{"netloom-trace 1\nranks 1\nframe_target 0\n", "e.txt:3: frame_target '0': expected 256 .. 16777216 bytes"},
		{"netloom-trace 1\nranks 1\nzstd_level 0\n", "e.txt:3: zstd_level '0': expected 1 .. "},
		{"netloom-trace 1\nranks 1\nzstd_level 23\n", "e.txt:3: zstd_level '23': expected 1 .. "},
		/* The version error names the line and rank, not the builder's
		 * temporary stream file (removed by then). */
		{"netloom-trace 1\nranks 2\nrank 0\ninit t=0 dur=0\nrank 1\ncancel t=1 dur=0 req=4 n_done=1\n",
		 "e.txt:6: rank 1: a cancel op needs format version 2 or later (this stream writes version 1)"},
		/* cpu= in the text's terms; at most dur; only with compute_cpu_time 1. */
		{"netloom-trace 2\nranks 1\ncompute_cpu_time 1\nrank 0\nsend t=0 dur=5 cpu=3\n",
		 "e.txt:5: cpu=3 on a send op: only compute ops carry CPU time"},
		{"netloom-trace 2\nranks 1\ncompute_cpu_time 1\nrank 0\ncompute t=0 dur=5 cpu=10\n",
		 "e.txt:5: cpu=10: expected at most dur=5"},
		{"netloom-trace 2\nranks 1\nrank 0\ncompute t=0 dur=5 cpu=3\n",
		 "e.txt:4: cpu=3: the manifest does not say 'compute_cpu_time 1'"},
		/* A communicator the manifest does not define, which `trace
		 * verify` refuses: refused at its line, with the ids defined. */
		{"netloom-trace 1\nranks 2\ncomm 9 0 1\ncomm 3 1\nrank 0\nbcast t=0 dur=0 bytes=4 peer=0 comm=7\nrank 1\n"
		 "bcast t=0 dur=0 bytes=4 peer=0\n",
		 "e.txt:6: comm=7: not a communicator of the trace (defined: 0 (world), 1 (self), 3, 9; "},
		{"netloom-trace 1\nranks 1\nrank 0\ncomm_split t=0 dur=0 new_comm=2\n",
		 "e.txt:4: new_comm=2: not a communicator of the trace (defined: 0 (world), 1 (self); "},
		/* What else `trace verify` refuses (trace_op_semantics, the same
		 * rules): refused at the line, in the text's terms. */
		{"netloom-trace 1\nranks 2\nrank 0\nsend t=0 dur=0 bytes=4 peer=5\nrank 1\n",
		 "e.txt:4: peer=5: not a rank of communicator 0 (size 2): expected 0 .. 1 or null"},
		{"netloom-trace 1\nranks 2\nrank 0\nrecv t=0 dur=0 bytes=4 peer=-7\nrank 1\n",
		 "e.txt:4: peer=-7: not a rank of communicator 0 (size 2): expected 0 .. 1, any or null"},
		{"netloom-trace 1\nranks 2\nrank 0\nsend t=0 dur=0 peer=any\nrank 1\n",
		 "e.txt:4: peer=any: not a rank of communicator 0 (size 2): expected 0 .. 1 or null"},
		{"netloom-trace 1\nranks 2\nrank 0\nsendrecv t=0 dur=0 peer=1 recv_peer=2\nrank 1\n",
		 "e.txt:4: recv_peer=2: not a rank of communicator 0 (size 2): expected 0 .. 1, any or null"},
		{"netloom-trace 1\nranks 3\ncomm 3 0 2\nrank 0\nbcast t=0 dur=0 bytes=4 peer=2 comm=3\nrank 1\nrank 2\n",
		 "e.txt:5: peer=2: the root is not a rank of communicator 3 (size 2): expected 0 .. 1"},
		{"netloom-trace 1\nranks 1\nrank 0\nsend t=0 dur=0 peer=0 comm=1\nreduce t=0 dur=0 peer=null comm=1\n",
		 "e.txt:5: peer=null: the root is not a rank of communicator 1 (size 1): expected 0 .. 0"},
		{"netloom-trace 1\nranks 2\nrank 0\nalltoallv t=0 dur=0 send_counts=1,2,3\nrank 1\n",
		 "e.txt:4: n_counts=3: communicator 0 has 2 ranks: expected one count per rank"},
		/* a barrier on comm 4 from a non-member: rank 2 after members 0 and 1 */
		{"netloom-trace 1\nranks 3\ncomm 4 0 1\nrank 0\nbarrier t=0 dur=0 comm=4\nrank 1\nbarrier t=0 dur=0 comm=4\nrank 2\n"
		 "barrier t=0 dur=0 comm=4\n",
		 "e.txt:9: comm=4: rank 2 is not a member of communicator 4 (expected 0 (world), 1 (self) or a "
		 "communicator whose 'comm' line lists rank 2)"},
		{"netloom-trace 2\nranks 1\nrank 0\nwaitsome t=0 dur=0 reqs=1,2 n_done=5\n",
		 "e.txt:4: n_done=5 with 2 requests: expected at most n_reqs"},
		{"netloom-trace 2\nranks 1\nrank 0\ntest t=0 dur=0 req=1 n_done=7\n", "e.txt:4: n_done=7: expected 0 or 1"},
		{"netloom-trace 2\nranks 2\ncomm 2 0 0\nrank 0\nrank 1\n",
		 "e.txt:3: comm 2: member '0': world rank 0 is listed twice (expected distinct ranks)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		FILE *f = fopen(txt, "w");
		fputs(cases[i].text, f);
		fclose(f);
		int rc = trace_encode_text(txt, out, NULL, &e);
		CHECK(rc < 0);
		if (rc < 0 && !strstr(e.msg, cases[i].msg))
			TEST_FAIL_("case %zu: \"%s\" lacks \"%s\"", i, e.msg, cases[i].msg);
		if (strstr(e.msg, ".tmp"))
			TEST_FAIL_("case %zu: \"%s\" names a temporary file", i, e.msg);
		CHECK(access(out, F_OK) != 0);
	}
	/* A minimal text is a valid archive; absent fields take defaults. */
	FILE *f = fopen(txt, "w");
	fputs("# hand written\nnetloom-trace 1\nranks 2\nrank 0\ninit t=0 dur=0\nsend t=0 dur=0 peer=1 bytes=8 tag=any\nrank 1\n"
	      "recv t=0 dur=0 peer=any bytes=8\n", f);
	fclose(f);
	CHECK_OK(trace_encode_text(txt, out, NULL, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	struct trace_write_opts o;
	trace_archive_write_opts(a, &o);
	CHECK_EQ(o.frame_target, 65536);
	CHECK_EQ(trace_archive_manifest(a)->rank_ops[0], 2);
	CHECK_STR(trace_archive_manifest(a)->application, "");
	trace_archive_close(a);
}

/* One op for `rank` in an archive of n_ranks with at most one
 * communicator besides world and self, made by the builder: encode
 * refuses what verify does (test_encode_errors). */
static int build_one(const char *out, uint32_t n_ranks, struct trace_comm *comm, uint32_t rank,
		     const struct trace_op *op, struct nl_err *e)
{
	struct trace_builder *b;
	struct trace_manifest m = {.n_ranks = n_ranks, .format_version = 2, .n_comms = comm != NULL, .comms = comm};
	int rc = trace_builder_new(&b, out, n_ranks, NULL, e);
	if (rc)
		return rc;
	rc = trace_builder_op(b, rank, op, e);
	if (!rc)
		rc = trace_builder_finish(b, &m, e);
	trace_builder_free(b);
	return rc;
}

/* trace verify refuses what replay refuses (app.c, app_ops.c) and n_done
 * outside its kind's range (docs/trace-format.md §6, §7). */
static void test_verify_semantics(void)
{
	struct nl_err e = {0};
	char txt[512], out[512];
	snprintf(txt, sizeof txt, "%s", test_tmppath("v.txt"));
	snprintf(out, sizeof out, "%s", test_tmppath("v.nlt"));
	/* Texts that encode and verify. */
	static const char *const good[] = {
		"netloom-trace 2\nranks 3\ncomm 2 1 2\nrank 0\nrank 1\nbarrier t=0 dur=0 comm=2\nrank 2\nbarrier t=0 dur=0 comm=2\n",
		"netloom-trace 2\nranks 1\nrank 0\nwaitsome t=0 dur=0 reqs=1,2 n_done=2\n",
		"netloom-trace 2\nranks 1\nrank 0\ntestall t=0 dur=0 reqs=1,2 n_done=2\ntestall t=0 dur=0 reqs=1,2\n",
		"netloom-trace 2\nranks 1\nrank 0\nwaitall t=0 dur=0 reqs=1,2,3 n_done=3\nwaitall t=0 dur=0 reqs=1\n",
		("netloom-trace 2\nranks 2\ncomm 5 1\nrank 0\nrecv t=0 dur=0 peer=any\nsendrecv t=0 dur=0 peer=null recv_peer=any\n"
		 "bcast t=0 dur=0 peer=1\nrank 1\nbcast t=0 dur=0 peer=0 comm=5\nsend t=0 dur=0 peer=0 comm=1\n"),
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		FILE *f = fopen(txt, "w");
		fputs(good[i], f);
		fclose(f);
		struct trace_archive *a = NULL;
		CHECK_OK(trace_encode_text(txt, out, NULL, &e), &e);
		CHECK_OK(trace_archive_open(&a, out, &e), &e);
		if (!a)
			continue;
		if (trace_archive_verify(a, &e))
			TEST_FAIL_("good %zu: verify failed: %s", i, e.msg);
		trace_archive_close(a);
	}
	/* Archives encode refuses to write, from the builder. */
	static uint32_t twice[] = {0, 0}, one_two[] = {1, 2}, reqs[] = {1, 2, 3};
	static uint64_t counts[] = {1, 2, 3};
	struct {
		uint32_t n_ranks;
		struct trace_comm *comm;
		uint32_t rank;
		struct trace_op op;
		const char *msg;
	} cases[] = {
		{2, &(struct trace_comm){2, 2, twice}, 0, {.kind = TOP_BARRIER, .comm = 2},
		 "metadata: communicator 2 member 1 is world rank 0, listed twice"},
		{3, &(struct trace_comm){2, 2, one_two}, 0, {.kind = TOP_BARRIER, .comm = 2},
		 ": rank 0, offset 116: op 0 (barrier): comm=2: rank 0 is not a member of communicator 2 (expected 0 "
		 "(world), 1 (self) or a communicator the manifest lists with rank 0)"},
		{1, NULL, 0, {.kind = TOP_BARRIER, .comm = 7},
		 /* an archive has no 'comm' lines (it said "a 'comm ID RANKS...' line before the first rank
		  * section defines one", the text form's hint) */
		 "op 0 (barrier): comm=7: not a communicator of the trace (defined: 0 (world), 1 (self): world, self "
		 "and those the manifest lists)"},
		{2, NULL, 0, {.kind = TOP_SEND, .peer = 5},
		 "op 0 (send): peer=5: not a rank of communicator 0 (size 2): expected 0 .. 1 or null"},
		{2, NULL, 1, {.kind = TOP_SENDRECV, .peer = 0, .recv_peer = -9},
		 "op 0 (sendrecv): recv_peer=-9: not a rank of communicator 0 (size 2): expected 0 .. 1, any or null"},
		{2, NULL, 0, {.kind = TOP_GATHER, .peer = TRACE_ANY_SOURCE},
		 "op 0 (gather): peer=any: the root is not a rank of communicator 0 (size 2)"},
		{2, NULL, 0, {.kind = TOP_ALLTOALLV, .n_counts = 3, .send_counts = counts},
		 "op 0 (alltoallv): n_counts=3: communicator 0 has 2 ranks"},
		{1, NULL, 0, {.kind = TOP_WAITSOME, .n_reqs = 2, .reqs = reqs, .n_done = 5},
		 "op 0 (waitsome): n_done=5 with 2 requests: expected at most n_reqs"},
		{1, NULL, 0, {.kind = TOP_TESTSOME, .n_reqs = 1, .reqs = reqs, .n_done = 2},
		 "op 0 (testsome): n_done=2 with 1 request: expected at most n_reqs"},
		{1, NULL, 0, {.kind = TOP_TEST, .req = 1, .n_done = 7}, "op 0 (test): n_done=7: expected 0 or 1"},
		{1, NULL, 0, {.kind = TOP_WAIT, .req = 1, .n_done = 2}, "op 0 (wait): n_done=2: expected 0 or 1"},
		{1, NULL, 0, {.kind = TOP_IPROBE, .n_done = 2}, "op 0 (iprobe): n_done=2: expected 0 or 1"},
		{1, NULL, 0, {.kind = TOP_WAITANY, .n_reqs = 2, .reqs = reqs, .n_done = 2},
		 "op 0 (waitany): n_done=2 with 2 requests: expected 0 or 1, at most n_reqs"},
		{1, NULL, 0, {.kind = TOP_TESTALL, .n_reqs = 2, .reqs = reqs, .n_done = 1},
		 "op 0 (testall): n_done=1 with 2 requests: expected 0 or n_reqs"},
		{1, NULL, 0, {.kind = TOP_WAITALL, .n_reqs = 3, .reqs = reqs, .n_done = 4},
		 "op 0 (waitall): n_done=4 with 3 requests: expected 0 or n_reqs"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct trace_archive *a = NULL;
		CHECK_OK(build_one(out, cases[i].n_ranks, cases[i].comm, cases[i].rank, &cases[i].op, &e), &e);
		CHECK_OK(trace_archive_open(&a, out, &e), &e);
		if (!a)
			continue;
		int rc = trace_archive_verify(a, &e);
		if (rc != NL_ECORRUPT || !strstr(e.msg, cases[i].msg))
			TEST_FAIL_("case %zu: verify returned %d \"%s\", expected \"%s\"", i, rc, rc ? e.msg : "",
				   cases[i].msg);
		trace_archive_close(a);
	}

	/* cpu on a compute op while the manifest's compute_cpu flag is
	 * clear (a writer that is not encode, which checks the text). */
	struct trace_builder *b;
	struct trace_op op = {.kind = TOP_COMPUTE, .dur_ps = 10, .cpu_ps = 4};
	struct trace_manifest m = {.n_ranks = 1, .format_version = 2};
	CHECK_OK(trace_builder_new(&b, out, 1, NULL, &e), &e);
	CHECK_OK(trace_builder_op(b, 0, &op, &e), &e);
	CHECK_OK(trace_builder_finish(b, &m, &e), &e);
	trace_builder_free(b);
	struct trace_archive *a = NULL;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	if (a) {
		CHECK_ERR(trace_archive_verify(a, &e), NL_ECORRUPT, &e,
			  "op 0 (compute): cpu 4 ps, but the manifest's compute_cpu flag is not set");
		trace_archive_close(a);
	}
	/* cpu above dur: the writer refuses it too. */
	op.cpu_ps = 11;
	CHECK_OK(trace_builder_new(&b, out, 1, NULL, &e), &e);
	CHECK_ERR(trace_builder_op(b, 0, &op, &e), NL_EINVAL, &e, "compute: cpu_ps 11: expected at most dur_ps 10");
	trace_builder_free(b);
}

/* The statistics of the archive encoded from trace text `text`, written
 * as NAME.txt and NAME.nlt in the test folder. */
static void stats_of_text(const char *name, const char *text, struct trace_stats *st)
{
	struct nl_err e = {0};
	char txt[512], out[512];
	snprintf(txt, sizeof txt, "%s", test_tmppath(name));
	snprintf(out, sizeof out, "%s.nlt", txt);
	snprintf(txt + strlen(txt), sizeof txt - strlen(txt), ".txt");
	FILE *f = fopen(txt, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	CHECK_OK(trace_encode_text(txt, out, NULL, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	CHECK_OK(trace_archive_stats(a, st, &e), &e);
	trace_archive_close(a);
}

static void test_stats_p2p_rules(void)
{
	/* p2p.messages: the send family, one per sendrecv, one per start of a
	 * persistent send; nothing to MPI_PROC_NULL; receives never. */
	struct trace_stats st;
	stats_of_text("p2p", "netloom-trace 1\nranks 2\nrank 0\n"
		      "send t=0 dur=0 peer=1 bytes=10\n"              /* 1: 10 */
		      "ssend t=0 dur=0 peer=1 bytes=20\n"             /* 2: 30 */
		      "bsend t=0 dur=0 peer=null bytes=1000\n"        /* PROC_NULL: no */
		      "rsend t=0 dur=0 peer=1 bytes=30\n"             /* 3: 60 */
		      "isend t=0 dur=0 peer=1 bytes=40 req=1\n"       /* 4: 100 */
		      "issend t=0 dur=0 peer=null bytes=1000 req=2\n" /* no */
		      "waitall t=0 dur=0 reqs=1,2\n"
		      "sendrecv t=0 dur=0 peer=1 bytes=50 recv_peer=1 recv_bytes=999\n" /* 5: 150 */
		      "sendrecv t=0 dur=0 peer=null bytes=1000 recv_peer=1 recv_bytes=7\n" /* no */
		      "send_init t=0 dur=0 peer=1 bytes=100 req=3\n"
		      "send_init t=0 dur=0 peer=null bytes=1000 req=4\n"
		      "recv_init t=0 dur=0 peer=1 bytes=1000 req=5\n"
		      "start t=0 dur=0 req=3\nwait t=0 dur=0 req=3\nstart t=0 dur=0 req=3\nwait t=0 dur=0 req=3\nstart t=0 dur=0 req=3\nwait t=0 dur=0 req=3\n" /* 6..8: 450 */
		      "start t=0 dur=0 req=4\nstart t=0 dur=0 req=5\n"          /* PROC_NULL and a receive: no */
		      "request_free t=0 dur=0 req=3\n"
		      "isend t=0 dur=0 peer=1 bytes=1 req=3\n"        /* 9: 451 (id 3 reused by an isend) */
		      "start t=0 dur=0 req=3\n"                       /* not persistent any more: no */
		      "bcast t=0 dur=0 bytes=5000\nrecv t=0 dur=0 peer=1 bytes=5\n"
		      "rank 1\nrecv t=0 dur=0 peer=0 bytes=10\n", &st);
	CHECK_UINT(st.p2p_messages, ==, 9);
	CHECK_UINT(st.p2p_bytes, ==, 451);
	CHECK_UINT(st.calls[TOP_START], ==, 6);
	CHECK_UINT(st.ops, ==, 26); /* 25 on rank 0, 1 on rank 1 */
}

static void test_stats_saturate(void)
{
	/* Byte counts and durations are full u64 values: their sums wrapped
	 * (2^63 + 2^63 bytes gave 0, UINT64_MAX + 5 ps of compute gave 4) and
	 * info printed them. They stop at UINT64_MAX. */
	struct trace_stats st;
	stats_of_text("sat", "netloom-trace 2\nranks 2\ncompute_cpu_time 1\nrank 0\n"
		      "send t=0 dur=0 peer=1 bytes=9223372036854775808\nsend t=0 dur=0 peer=1 bytes=9223372036854775808\n"
		      "compute t=0 dur=18446744073709551615 cpu=18446744073709551615\ncompute t=0 dur=5 cpu=5\n"
		      "rank 1\nrecv t=0 dur=0 peer=0 bytes=1\n",
		      &st);
	CHECK_UINT(st.p2p_messages, ==, 2);
	CHECK_UINT(st.p2p_bytes, ==, UINT64_MAX);
	CHECK_UINT(st.compute_ps, ==, UINT64_MAX);
	CHECK_UINT(st.compute_cpu_ps, ==, UINT64_MAX);
}

/* --- the archive's temporary file and SIGINT/SIGTERM ------------------- */

/* In a child with out_signals_catch: open `path` as trace pack, unpack
 * and the archive writer do (trace_afile_open), write, then (is_commit)
 * commit, and raise SIGTERM. While the temporary file exists the signal
 * is only recorded, and the next write removes it and ends the process;
 * once committed nothing is staged and the signal ends it at once.
 * Returns the wait status; 10+ exits say what went wrong. */
static int test_afile_signal_child(const char *path, bool is_commit)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		struct nl_err e = {0};
		struct trace_afile af = {.fd = -1};
		struct stat st;
		out_signals_catch();
		if (trace_afile_open(&af, path, &e) || trace_afile_write(&af, "netloom", 7, &e))
			_exit(10);
		if (is_commit && trace_afile_commit(&af, &e))
			_exit(11);
		raise(SIGTERM);
		if (is_commit)
			_exit(12); /* nothing staged: the signal should have ended it */
		if (stat(af.tmp, &st) != 0)
			_exit(13); /* removed before the poll */
		trace_afile_write(&af, "x", 1, &e);
		_exit(14); /* the write's poll returned */
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	return status;
}

/* The names in dir (not . and ..), joined by spaces. */
static void test_dir_names(const char *dir, char *out, size_t n)
{
	out[0] = '\0';
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? " " : "", de->d_name);
	if (d)
		closedir(d);
}

/* trace pack's, unpack's and the archive writer's temporary file
 * (OUT.tmpXXXXXX) is registered from before it exists until it is in
 * place: a SIGTERM while it is written removed nothing and ended the
 * process at once, leaving it beside OUT. */
static void test_afile_signals(void)
{
	const char *dir = test_tmppath("afile-signal");
	char path[600], names[600];
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof path, "%s/out.nlt", dir);
	int status = test_afile_signal_child(path, false);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGTERM);
	test_dir_names(dir, names, sizeof names);
	CHECK_STR(names, "");
	/* Committed: in place, its name forgotten (out_staged_del). */
	status = test_afile_signal_child(path, true);
	CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status), SIGTERM);
	test_dir_names(dir, names, sizeof names);
	CHECK_STR(names, "out.nlt");
}

int main(void)
{
	test_tmpdir_make("trace");
	TEST_RUN(test_xxh64_vectors);
	TEST_RUN(test_varint);
	TEST_RUN(test_codec_every_kind);
	TEST_RUN(test_archive_round_trip);
	TEST_RUN(test_archive_open_again);
	TEST_RUN(test_archive_windows);
	TEST_RUN(test_archive_deterministic);
	TEST_RUN(test_writer_rejects);
	TEST_RUN(test_written_streams);
	TEST_RUN(test_dump_encode_identity);
	TEST_RUN(test_dump_one_op);
	TEST_RUN(test_encode_errors);
	TEST_RUN(test_verify_semantics);
	TEST_RUN(test_stats_p2p_rules);
	TEST_RUN(test_stats_saturate);
	TEST_RUN(test_afile_signals);
	test_tmpdir_remove();
	return test_done();
}
