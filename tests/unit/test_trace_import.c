/* Unit tests: DUMPI and SimGrid importers against the public traces in
 * /work/shared/data/public-traces (copied into tests/data/traces), text
 * dump -> encode byte identity on converted archives, importer errors.
 *
 * Expected values were computed independently of this code: for DUMPI by
 * a separate Python decoder of the record layout (sst-dumpi dumpiio.c) and
 * cross-checked with each rank file's footer call counts; for SimGrid by
 * summing the text traces with their datatype ids (smpi_datatype.cpp). */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "import_helpers.h"
#include "test.h"
#include "traces/trace.h"
#include "traces/traces_internal.h"

#define DATA TEST_SRC("tests/data/traces")

/* Per-kind totals of bytes / recv_bytes / counts over a whole archive. */
struct totals {
	uint64_t bytes[TOP__COUNT], recv_bytes[TOP__COUNT], counts_sent[TOP__COUNT], counts_recv[TOP__COUNT];
	double flops[TOP__COUNT];
	uint64_t reqs_listed;
};

static int totals_of(struct trace_archive *a, struct totals *t, struct nl_err *e)
{
	memset(t, 0, sizeof *t);
	const struct trace_manifest *m = trace_archive_manifest(a);
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		int rc;
		NL_CHECK(trace_rank_open(a, r, &rd, e));
		while ((rc = trace_rank_next(rd, &op, e)) == 1) {
			t->bytes[op.kind] += op.bytes;
			t->recv_bytes[op.kind] += op.recv_bytes;
			t->flops[op.kind] += op.flops;
			t->reqs_listed += op.n_reqs;
			for (uint32_t i = 0; i < op.n_counts; i++) {
				t->counts_sent[op.kind] += op.send_counts ? op.send_counts[i] : 0;
				t->counts_recv[op.kind] += op.recv_counts ? op.recv_counts[i] : 0;
			}
		}
		trace_rank_close(rd);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
	bool same = f && g;
	while (same) {
		int x = fgetc(f), y = fgetc(g);
		same = x == y;
		if (x == EOF || y == EOF)
			break;
	}
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

/* dump the archive to text, encode it back, compare bytes. */
static void check_dump_encode(const char *nlt)
{
	struct nl_err e = {0};
	struct trace_archive *a;
	const char *txt = test_tmppath("rt.txt"), *back = test_tmppath("rt.nlt");
	CHECK_OK(trace_archive_open(&a, nlt, &e), &e);
	FILE *f = fopen(txt, "w");
	CHECK_OK(trace_dump(a, -1, f, &e), &e);
	fclose(f);
	trace_archive_close(a);
	CHECK_OK(trace_encode_text(txt, back, NULL, &e), &e);
	CHECK(same_file(nlt, back));
}

/* --- DUMPI -------------------------------------------------------------------- */

static void test_dumpi_testtrace(void)
{
	struct nl_err e = {0};
	struct warns w = {0};
	const char *out = test_tmppath("testtrace.nlt");
	CHECK_OK(trace_import(DATA "/dumpi/testtrace.meta", out, collect, &w, &e), &e);
	CHECK_EQ(w.n, 2);
	CHECK(has_warn(&w, "not converted: MPI_Comm_rank x4 (no netloom operation; its time counts as compute)"));
	CHECK(has_warn(&w, "not converted: MPI_Comm_size x4 (no netloom operation; its time counts as compute)"));

	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	CHECK_EQ(m->n_ranks, 4);
	CHECK_STR(m->application, "mpi");
	CHECK_STR(m->command_line, "./mpi");
	CHECK_STR(m->machine, "hadalst-mbp.ca.sandia.gov");
	CHECK_STR(m->recorder, "netloom-import-dumpi " NETLOOM_VERSION " (DUMPI 1.0.0)");
	CHECK_UINT(m->start_unix, ==, 1296777956);
	/* Longest first-to-last record span (wall clock), 4.88 ms. */
	CHECK_NEAR(m->recorded_runtime_s, 0.00488, 1e-12);
	CHECK_EQ(m->n_comms, 2);

	struct trace_stats s;
	CHECK_OK(trace_archive_stats(a, &s, &e), &e);
	CHECK_UINT(s.calls[TOP_INIT], ==, 4);
	CHECK_UINT(s.calls[TOP_ISEND], ==, 4);
	CHECK_UINT(s.calls[TOP_RECV], ==, 4);
	CHECK_UINT(s.calls[TOP_WAIT], ==, 4);
	CHECK_UINT(s.calls[TOP_BARRIER], ==, 4);
	CHECK_UINT(s.calls[TOP_ALLREDUCE], ==, 4);
	CHECK_UINT(s.calls[TOP_FINALIZE], ==, 4);
	CHECK_UINT(s.p2p_messages, ==, 4);
	CHECK_UINT(s.p2p_bytes, ==, 16); /* 1 MPI_INT each */

	/* Rank 0: Isend(1 int -> 1, tag 1337, world, request 2), Recv(1 int <- 3). */
	struct trace_rank_reader *rd;
	struct trace_op op;
	CHECK_OK(trace_rank_open(a, 0, &rd, &e), &e);
	bool saw_isend = false, saw_recv = false;
	uint64_t prev_end = 0;
	while (trace_rank_next(rd, &op, &e) == 1) {
		/* Gaps between calls are compute ops: the ops tile the timeline. */
		CHECK_UINT(op.t_ps, ==, prev_end);
		prev_end = op.t_ps + op.dur_ps;
		if (op.kind == TOP_ISEND) {
			saw_isend = true;
			CHECK_EQ(op.peer, 1);
			CHECK_EQ(op.tag, 1337);
			CHECK_UINT(op.bytes, ==, 4);
			CHECK_EQ(op.req, 2);
			CHECK_EQ(op.comm, 0);
		}
		if (op.kind == TOP_RECV) {
			saw_recv = true;
			CHECK_EQ(op.peer, 3);
			CHECK_UINT(op.bytes, ==, 4);
		}
		if (op.kind == TOP_WAIT)
			CHECK_EQ(op.req, 2);
	}
	CHECK(saw_isend && saw_recv);
	trace_rank_close(rd);
	CHECK_OK(trace_archive_verify(a, &e), &e);
	trace_archive_close(a);
	check_dump_encode(out);
}

static void test_dumpi_testbgp(void)
{
	struct nl_err e = {0};
	struct warns w = {0};
	const char *out = test_tmppath("testbgp.nlt");
	CHECK_OK(trace_import(DATA "/dumpi/testbgp.meta", out, collect, &w, &e), &e);
	CHECK(has_warn(&w, "not converted: MPI_Comm_rank x203 (no netloom operation; its time counts as compute)"));
	CHECK(has_warn(&w, "not converted: MPI_Group_incl x7 (group bookkeeping: used for communicator members)"));
	CHECK(has_warn(&w, "not converted: MPI_Comm_group x7 (group bookkeeping: used for communicator members)"));

	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	CHECK_EQ(m->n_ranks, 7);
	CHECK_STR(m->application, "randombenchmark");
	CHECK_STR(m->command_line, "/home/jjwilke/caps/randombenchmark -s 100 -r 2 -p db");
	CHECK_STR(m->machine, "R00-M1-N01-J01.challenger");
	CHECK_NEAR(m->recorded_runtime_s, 0.012875546, 1e-12);
	/* Comm_create from Group_incl(world group, 0..6): one 7-rank communicator. */
	CHECK_EQ(m->n_comms, 3);
	const struct trace_comm *c2 = trace_manifest_find_comm(m, 2);
	CHECK(c2 != NULL);
	if (c2) {
		CHECK_EQ(c2->size, 7);
		for (uint32_t i = 0; i < 7; i++)
			CHECK_EQ(c2->world_ranks[i], i);
	}

	struct trace_stats s;
	CHECK_OK(trace_archive_stats(a, &s, &e), &e);
	/* Footer counts per rank: Isend 84, Irecv 84, Waitall 14, Barrier 3,
	 * Alltoall 7, Comm_create 1 (x 7 ranks). */
	CHECK_UINT(s.calls[TOP_ISEND], ==, 588);
	CHECK_UINT(s.calls[TOP_IRECV], ==, 588);
	CHECK_UINT(s.calls[TOP_WAITALL], ==, 98);
	CHECK_UINT(s.calls[TOP_BARRIER], ==, 21);
	CHECK_UINT(s.calls[TOP_ALLTOALL], ==, 49);
	CHECK_UINT(s.calls[TOP_COMM_CREATE], ==, 7);
	CHECK_UINT(s.p2p_messages, ==, 588);
	CHECK_UINT(s.p2p_bytes, ==, 418656); /* 89 x MPI_DOUBLE_INT... sizes from the trace's table */

	struct totals t;
	CHECK_OK(totals_of(a, &t, &e), &e);
	CHECK_UINT(t.bytes[TOP_IRECV], ==, 418656);
	CHECK_UINT(t.bytes[TOP_ALLTOALL], ==, 34888);
	CHECK_UINT(t.reqs_listed, ==, 1176); /* every isend and irecv waited on once */
	CHECK_OK(trace_archive_verify(a, &e), &e);
	trace_archive_close(a);
	check_dump_encode(out);
}

static int copy_file(const char *from, const char *to)
{
	FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
	int c;
	if (!f || !g)
		return -1;
	while ((c = fgetc(f)) != EOF)
		fputc(c, g);
	fclose(f);
	fclose(g);
	return 0;
}

/* testtrace's rank files copied into test_tmpdir/dir, rank r's file being
 * sample rank from[r]'s (a renamed or copied-over file when they differ). */
static void dumpi_copy_ranks(const char *dir, const int from[4])
{
	char src[512], dst[512];
	for (int r = 0; r < 4; r++) {
		snprintf(src, sizeof src, DATA "/dumpi/testtrace-%04d.bin", from[r]);
		snprintf(dst, sizeof dst, "%s/%s/testtrace-%04d.bin", test_tmpdir, dir, r);
		CHECK_EQ(copy_file(src, dst), 0);
	}
}

/* test_tmpdir/dir/s.meta naming numprocs ranks of the files there. */
static void dumpi_write_meta(const char *dir, int numprocs)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s/s.meta", test_tmpdir, dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "numprocs=%d\nfileprefix=%s/%s/testtrace\n", numprocs, test_tmpdir, dir);
	fclose(f);
}

/* A .meta whose numprocs is short of the trace's ranks (a peer past it)
 * while the next rank's file is there: said, before the peer's error. */
static void test_dumpi_numprocs_short(void)
{
	struct nl_err e = {0};
	char want[900];
	mkdir(test_tmppath("short"), 0755);
	dumpi_copy_ranks("short", (const int[4]){0, 1, 2, 3});
	dumpi_write_meta("short", 2);
	const char *peer = "testtrace-0000.bin: rank 0, offset 208: MPI_Recv: peer 3 outside its communicator (size 2)";
	snprintf(want, sizeof want,
		 "%s/short/s.meta: numprocs=2, though rank file '%s/short/testtrace-0002.bin' exists: fewer than the "
		 "trace has ranks: %s/short/%s",
		 test_tmpdir, test_tmpdir, test_tmpdir, peer);
	CHECK_ERR(trace_import(test_tmppath("short/s.meta"), test_tmppath("short.nlt"), NULL, NULL, &e), NL_EFORMAT,
		  &e, want);
	CHECK_STR(e.msg, want);
	/* Without rank 2's file, only the peer's error. */
	unlink(test_tmppath("short/testtrace-0002.bin"));
	snprintf(want, sizeof want, "%s/short/%s", test_tmpdir, peer);
	CHECK_ERR(trace_import(test_tmppath("short/s.meta"), test_tmppath("short.nlt"), NULL, NULL, &e), NL_EFORMAT,
		  &e, want);
	CHECK_STR(e.msg, want);
	CHECK(access(test_tmppath("short.nlt"), F_OK) != 0);
}

/* A rank file that is another rank's (copied over, renamed): its
 * MPI_Comm_rank on MPI_COMM_WORLD says which, and the import stops there
 * rather than converting it (the replay then deadlocked). */
static void test_dumpi_rank_file_swapped(void)
{
	struct nl_err e = {0};
	char want[900];
	mkdir(test_tmppath("swap"), 0755);
	dumpi_copy_ranks("swap", (const int[4]){0, 2, 2, 3});
	dumpi_write_meta("swap", 4);
	snprintf(want, sizeof want,
		 "%s/swap/testtrace-0001.bin: rank 1, offset 58: MPI_Comm_rank on MPI_COMM_WORLD gave 2: the file of "
		 "world rank 2, found as rank 1's; expected rank 1's (a rank file renamed or copied over?)",
		 test_tmpdir);
	CHECK_ERR(trace_import(test_tmppath("swap/s.meta"), test_tmppath("swap.nlt"), NULL, NULL, &e), NL_EFORMAT,
		  &e, want);
	CHECK_STR(e.msg, want);
	/* Rank 3's file as rank 0's, in a trace of 3. */
	CHECK_EQ(copy_file(DATA "/dumpi/testtrace-0003.bin", test_tmppath("swap/testtrace-0000.bin")), 0);
	CHECK_EQ(copy_file(DATA "/dumpi/testtrace-0001.bin", test_tmppath("swap/testtrace-0001.bin")), 0);
	dumpi_write_meta("swap", 3);
	snprintf(want, sizeof want,
		 "%s/swap/testtrace-0000.bin: rank 0, offset 58: MPI_Comm_rank on MPI_COMM_WORLD gave 3: the file of "
		 "world rank 3, past the .meta's numprocs=3; expected rank 0's",
		 test_tmpdir);
	CHECK_ERR(trace_import(test_tmppath("swap/s.meta"), test_tmppath("swap.nlt"), NULL, NULL, &e), NL_EFORMAT,
		  &e, want);
	CHECK_STR(e.msg, want);
	CHECK(access(test_tmppath("swap.nlt"), F_OK) != 0);
}

static void test_dumpi_moved(void)
{
	/* The .meta names the recording machine's absolute prefix; the rank
	 * files sit beside it: found by basename. */
	struct nl_err e = {0};
	char from[512], to[512];
	mkdir(test_tmppath("moved"), 0755);
	for (int r = 0; r < 4; r++) {
		snprintf(from, sizeof from, DATA "/dumpi/testtrace-%04d.bin", r);
		snprintf(to, sizeof to, "%s/moved/testtrace-%04d.bin", test_tmpdir, r);
		CHECK_EQ(copy_file(from, to), 0);
	}
	FILE *f = fopen(test_tmppath("moved/run.meta"), "w");
	fprintf(f, "hostname=h\nnumprocs=4\nusername=u\nstartime=1\nfileprefix=/scratch/gone/testtrace\n"
		   "version=1\nsubversion=0\nsubsubversion=0\n");
	fclose(f);
	CHECK_OK(trace_import(test_tmppath("moved/run.meta"), test_tmppath("moved.nlt"), NULL, NULL, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, test_tmppath("moved.nlt"), &e), &e);
	CHECK_EQ(trace_archive_manifest(a)->n_ranks, 4);
	trace_archive_close(a);

	/* A rank file missing: that file named, not rank 0's (which is there). */
	unlink(test_tmppath("moved/testtrace-0003.bin"));
	char want[700];
	snprintf(want, sizeof want,
		 "%s/moved/run.meta: rank 3's file '%s/moved/testtrace-0003.bin' was not found (the other 3 of the 4 "
		 "rank files are there)",
		 test_tmpdir, test_tmpdir);
	CHECK_ERR(trace_import(test_tmppath("moved/run.meta"), test_tmppath("moved2.nlt"), NULL, NULL, &e), NL_ENOTFOUND, &e,
		  want);
	CHECK_STR(e.msg, want);
	CHECK(access(test_tmppath("moved2.nlt"), F_OK) != 0);
	/* Rank 0's and rank 3's missing: both listed. */
	rename(test_tmppath("moved/testtrace-0000.bin"), test_tmppath("moved/keep-0000.bin"));
	snprintf(want, sizeof want,
		 "%s/moved/run.meta: 2 of the 4 rank files were not found: '%s/moved/testtrace-0000.bin', "
		 "'%s/moved/testtrace-0003.bin'",
		 test_tmpdir, test_tmpdir, test_tmpdir);
	CHECK_ERR(trace_import(test_tmppath("moved/run.meta"), test_tmppath("moved2.nlt"), NULL, NULL, &e), NL_ENOTFOUND, &e,
		  want);
	CHECK_STR(e.msg, want);
	rename(test_tmppath("moved/keep-0000.bin"), test_tmppath("moved/testtrace-0000.bin"));
	/* None there: the paths tried. */
	snprintf(want, sizeof want,
		 "%s/moved/nothing.meta: the 4 rank files of fileprefix '/scratch/gone/none' were not found "
		 "(tried the recorded path and '%s/moved/none-0000.bin' beside the .meta)",
		 test_tmpdir, test_tmpdir);
	f = fopen(test_tmppath("moved/nothing.meta"), "w");
	fprintf(f, "numprocs=4\nfileprefix=/scratch/gone/none\n");
	fclose(f);
	CHECK_ERR(trace_import(test_tmppath("moved/nothing.meta"), test_tmppath("moved2.nlt"), NULL, NULL, &e),
		  NL_ENOTFOUND, &e, want);
	CHECK_STR(e.msg, want);

	/* A truncated rank file: the error names the file, rank and offset. */
	snprintf(from, sizeof from, DATA "/dumpi/testtrace-0003.bin");
	FILE *in = fopen(from, "rb");
	FILE *o = fopen(test_tmppath("moved/testtrace-0003.bin"), "wb");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf, in);
	fwrite(buf, 1, 200, o); /* keep the stream start only */
	fclose(o);
	fclose(in);
	(void)n;
	CHECK_ERR(trace_import(test_tmppath("moved/run.meta"), test_tmppath("moved2.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "testtrace-0003.bin: rank 3, offset 136: index record has no lead-in magic (file truncated?)");
}

static void test_dumpi_mem_errors(void)
{
	struct nl_err e = {0};
	uint8_t junk[100] = {1, 2, 3};
	CHECK_ERR(trace_dumpi_import_mem(junk, sizeof junk, &e), NL_EFORMAT, &e,
		  "(memory): rank 0, offset 0: not a DUMPI trace file (bad magic)");
	/* Rank 0 of testtrace in memory: check mode round-trips every op. */
	FILE *f = fopen(DATA "/dumpi/testtrace-0000.bin", "rb");
	static uint8_t buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	CHECK_OK(trace_dumpi_import_mem(buf, n, &e), &e);
	/* A timestamp's nanoseconds past 10^9 (the first record: label,
	 * mask 0x4f, thread id, CPU start seconds, then its nanoseconds at 23):
	 * what was expected said (was "MPI_Init record: 4285902080 nanoseconds"). */
	buf[23] = 0xff;
	CHECK_ERR(trace_dumpi_import_mem(buf, n, &e), NL_EFORMAT, &e,
		  "(memory): rank 0, offset 16: MPI_Init record: timestamp nanoseconds 4285902080 (expected below "
		  "1000000000)");
	buf[23] = 0;
	/* A damaged record label (the first record is at 8 + 8): its offset. */
	buf[16] = 0xff;
	buf[17] = 0xfe;
	CHECK_ERR(trace_dumpi_import_mem(buf, n, &e), NL_EFORMAT, &e,
		  "(memory): rank 0, offset 16: unknown call label 65534");
	/* The index moved: its offsets no longer fit the file. */
	memcpy(buf + 150, buf + n - 64, 64);
	CHECK_ERR(trace_dumpi_import_mem(buf, 214, &e), NL_EFORMAT, &e,
		  "(memory): rank 0, offset 150: index record offsets out of range");
}

static void write_dumpi_rank(const char *path, uint32_t rank)
{
	struct dw w = {.n = 0};
	int32_t dims[] = {2, 2}, periods[] = {0, 0}, remain[] = {1, 0};
	uint64_t body = dw_begin(&w);
	rec(&w, DL_Init, 0);
	put32(&w, 0); /* argc */
	rec(&w, DL_Comm_split, 10); /* world, color rank%2, key -rank -> handle 4 */
	put16(&w, 2);
	put32(&w, rank % 2);
	put32(&w, (uint32_t)-(int32_t)rank);
	put16(&w, 4);
	rec(&w, DL_Comm_dup, 20); /* 4 -> 5 */
	put16(&w, 4);
	put16(&w, 5);
	rec(&w, DL_Cart_create, 30); /* world, 2 x 2 -> 6 */
	put16(&w, 2);
	put32(&w, 2);
	put_iarr(&w, dims, 2);
	put_iarr(&w, periods, 2);
	put32(&w, 0);
	put16(&w, 6);
	rec(&w, DL_Cart_sub, 40); /* keep dim 0 -> 7 */
	put32(&w, 2);
	put16(&w, 6);
	put_iarr(&w, remain, 2);
	put16(&w, 7);
	rec(&w, DL_Type_contiguous, 50); /* 3 x MPI_INT -> type 28 */
	put32(&w, 3);
	put16(&w, 9);
	put16(&w, 28);
	rec(&w, DL_Send, 60); /* 2 x type 28 to rank 0 of the split communicator */
	put32(&w, 2);
	put16(&w, 28);
	put32(&w, 0);
	put32(&w, 7);
	put16(&w, 4);
	rec(&w, DL_Comm_free, 70);
	put16(&w, 5);
	rec(&w, DL_Finalize, 80);
	dw_finish(&w, body, path);
}

static const struct trace_comm *comm_of_op(const struct trace_manifest *m, uint32_t id)
{
	const struct trace_comm *c = trace_manifest_find_comm(m, id);
	if (!c)
		TEST_FAIL_("communicator %u not in the manifest", id);
	return c;
}

static void test_dumpi_communicators(void)
{
	struct nl_err e = {0};
	const char *meta = dw_write_trace("syn", 4, write_dumpi_rank);
	struct warns w = {0};
	CHECK_OK(trace_import(meta, test_tmppath("syn.nlt"), collect, &w, &e), &e);
	CHECK(has_warn(&w, "not converted: MPI_Type_contiguous x4 (datatype definition: sizes used for later calls)"));

	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, test_tmppath("syn.nlt"), &e), &e);
	CHECK_OK(trace_archive_verify(a, &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	/* split x2, dup x2, cart_create x1, cart_sub x2 */
	CHECK_EQ(m->n_comms, 2 + 7);
	for (uint32_t r = 0; r < 4; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		CHECK_OK(trace_rank_open(a, r, &rd, &e), &e);
		uint32_t split = 0;
		while (trace_rank_next(rd, &op, &e) == 1) {
			const struct trace_comm *c;
			switch (op.kind) {
			case TOP_COMM_SPLIT:
				c = comm_of_op(m, op.new_comm);
				if (!c || c->size != 2)
					break;
				if (op.comm == 0) {
					/* color r%2, ordered by key -rank: [2, 0] and [3, 1] */
					split = op.new_comm;
					CHECK_EQ(c->world_ranks[0], 2 + r % 2);
					CHECK_EQ(c->world_ranks[1], r % 2);
					CHECK_EQ(op.color, (int32_t)(r % 2));
				} else {
					/* cart_sub of the 2 x 2 grid keeping dim 0: column r%2, rows in order */
					CHECK_EQ(c->world_ranks[0], r % 2);
					CHECK_EQ(c->world_ranks[1], 2 + r % 2);
					CHECK_EQ(op.color, (int32_t)(r % 2));
					CHECK_EQ(op.key, (int32_t)(r / 2));
				}
				break;
			case TOP_COMM_DUP:
				c = comm_of_op(m, op.new_comm);
				CHECK_EQ(op.comm, split);
				if (c)
					CHECK_EQ(c->world_ranks[0], 2 + r % 2);
				break;
			case TOP_COMM_CREATE: /* cart_create: all four, in order */
				c = comm_of_op(m, op.new_comm);
				if (c && c->size == 4)
					CHECK(c->world_ranks[0] == 0 && c->world_ranks[3] == 3);
				else
					TEST_FAIL_("cart_create communicator");
				break;
			case TOP_SEND:
				CHECK_EQ(op.comm, split);
				CHECK_EQ(op.peer, 0);
				CHECK_EQ(op.tag, 7);
				CHECK_UINT(op.bytes, ==, 24); /* 2 x contiguous(3 x int) */
				break;
			case TOP_COMM_FREE:
				CHECK(op.comm != split && op.comm >= 2);
				break;
			}
		}
		trace_rank_close(rd);
	}
	trace_archive_close(a);

	/* A rank that never makes the split: named in the error. */
	struct dw w1 = {.n = 0};
	(void)w1;
	char path[600];
	snprintf(path, sizeof path, "%s/syn/syn-0003.bin", test_tmpdir);
	write_dumpi_rank(path, 3);
	/* Replace rank 3 by rank 3 of testtrace: it calls no MPI_Comm_split
	 * (rank 0's would be refused first, as another rank's file). */
	FILE *in = fopen(DATA "/dumpi/testtrace-0003.bin", "rb");
	static uint8_t buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf, in);
	fclose(in);
	FILE *f = fopen(path, "wb");
	fwrite(buf, 1, n, f);
	fclose(f);
	CHECK_ERR(trace_import(test_tmppath("syn/syn.meta"), test_tmppath("syn2.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "syn.meta: rank 0 waits in collective call #0 on communicator 0, which 1 of its 4 members never make");
}

static void put_harr(struct dw *w, const uint16_t *v, uint32_t n)
{
	put32(w, n);
	for (uint32_t i = 0; i < n; i++)
		put16(w, v[i]);
}

/* Two ranks, world handle 2; type 9 is MPI_INT (4 bytes), 11 MPI_DOUBLE
 * (8). Each call's arguments in dumpi_format.c's order; the sizes differ
 * field by field, so that an argument read from the wrong position shows. */
static void write_calls_rank(const char *path, uint32_t rank)
{
	struct dw w = {.n = 0};
	const uint32_t o = 1 - rank, W = 2;
	uint32_t t = 0;
	uint64_t body = dw_begin(&w);
	rec(&w, DL_Init, t += 10);
	put32(&w, 0);
	rec(&w, DL_Bcast, t += 10); /* count type root comm */
	put32(&w, 4), put16(&w, 9), put32(&w, 1), put16(&w, W);
	rec(&w, DL_Reduce, t += 10); /* count type op root comm */
	put32(&w, 2), put16(&w, 11), put8(&w, 1), put32(&w, 0), put16(&w, W);
	rec(&w, DL_Allreduce, t += 10); /* count type op comm */
	put32(&w, 3), put16(&w, 9), put8(&w, 1), put16(&w, W);
	rec(&w, DL_Scan, t += 10);
	put32(&w, 5), put16(&w, 9), put8(&w, 1), put16(&w, W);
	rec(&w, DL_Exscan, t += 10);
	put32(&w, 6), put16(&w, 9), put8(&w, 1), put16(&w, W);
	rec(&w, DL_Gather, t += 10); /* commrank scount stype root comm [rcount rtype] */
	put32(&w, rank), put32(&w, 2), put16(&w, 9), put32(&w, 0), put16(&w, W);
	if (rank == 0)
		put32(&w, 2), put16(&w, 11);
	rec(&w, DL_Scatter, t += 10); /* commrank rcount rtype root comm [scount stype] */
	put32(&w, rank), put32(&w, 5), put16(&w, 9), put32(&w, 1), put16(&w, W);
	if (rank == 1)
		put32(&w, 5), put16(&w, 11);
	rec(&w, DL_Gatherv, t += 10); /* commrank commsize scount stype root comm [rcounts displs] rtype */
	put32(&w, rank), put32(&w, 2), put32(&w, rank ? 1 : 3), put16(&w, 9), put32(&w, 0), put16(&w, W);
	if (rank == 0)
		put_iarr(&w, (int32_t[]){3, 1}, 2), put_iarr(&w, (int32_t[]){0, 3}, 2);
	put16(&w, 11);
	rec(&w, DL_Scatterv, t += 10); /* commrank commsize stype rcount rtype root comm [scounts displs] */
	put32(&w, rank), put32(&w, 2), put16(&w, 11), put32(&w, rank ? 4 : 2), put16(&w, 9), put32(&w, 1),
		put16(&w, W);
	if (rank == 1)
		put_iarr(&w, (int32_t[]){2, 4}, 2), put_iarr(&w, (int32_t[]){0, 2}, 2);
	rec(&w, DL_Allgather, t += 10); /* scount stype rcount rtype comm */
	put32(&w, 2), put16(&w, 9), put32(&w, 3), put16(&w, 11), put16(&w, W);
	rec(&w, DL_Allgatherv, t += 10); /* commsize scount stype rcounts displs rtype comm */
	put32(&w, 2), put32(&w, rank + 1), put16(&w, 9), put_iarr(&w, (int32_t[]){1, 2}, 2),
		put_iarr(&w, (int32_t[]){0, 1}, 2), put16(&w, 11), put16(&w, W);
	rec(&w, DL_Alltoall, t += 10); /* scount stype rcount rtype comm */
	put32(&w, 1), put16(&w, 9), put32(&w, 1), put16(&w, 11), put16(&w, W);
	rec(&w, DL_Alltoallv, t += 10); /* commsize scounts sdispls stype rcounts rdispls rtype comm */
	put32(&w, 2), put_iarr(&w, (int32_t[]){1, 2}, 2), put_iarr(&w, (int32_t[]){0, 1}, 2), put16(&w, 9),
		put_iarr(&w, (int32_t[]){3, 4}, 2), put_iarr(&w, (int32_t[]){0, 3}, 2), put16(&w, 11), put16(&w, W);
	rec(&w, DL_Alltoallw, t += 10); /* commsize scounts sdispls stypes rcounts rdispls rtypes comm */
	put32(&w, 2), put_iarr(&w, (int32_t[]){1, 2}, 2), put_iarr(&w, (int32_t[]){0, 1}, 2),
		put_harr(&w, (uint16_t[]){9, 11}, 2), put_iarr(&w, (int32_t[]){1, 1}, 2),
		put_iarr(&w, (int32_t[]){0, 1}, 2), put_harr(&w, (uint16_t[]){11, 9}, 2), put16(&w, W);
	rec(&w, DL_Reduce_scatter, t += 10); /* commsize rcounts type op comm */
	put32(&w, 2), put_iarr(&w, (int32_t[]){1, 3}, 2), put16(&w, 9), put8(&w, 1), put16(&w, W);
	rec(&w, DL_Sendrecv, t += 10); /* scount stype dest stag rcount rtype source rtag comm [statuses] */
	put32(&w, 2), put16(&w, 9), put32(&w, o), put32(&w, 5), put32(&w, 3), put16(&w, 11), put32(&w, o),
		put32(&w, 6), put16(&w, W);
	rec(&w, DL_Sendrecv_replace, t += 10); /* count type dest stag source rtag comm [statuses] */
	put32(&w, 4), put16(&w, 9), put32(&w, o), put32(&w, 7), put32(&w, o), put32(&w, 8), put16(&w, W);
	rec(&w, DL_Iprobe, t += 10); /* source tag comm flag [statuses] */
	put32(&w, o), put32(&w, 9), put16(&w, W), put32(&w, 1);
	rec(&w, DL_Probe, t += 10); /* source tag comm [statuses] */
	put32(&w, o), put32(&w, 10), put16(&w, W);
	for (uint32_t q = 100; q < 106; q += 2) {
		rec(&w, DL_Isend, t += 10); /* count type dest tag comm request */
		put32(&w, 1), put16(&w, 9), put32(&w, o), put32(&w, 11), put16(&w, W), put32(&w, q);
		rec(&w, DL_Irecv, t += 10);
		put32(&w, 2), put16(&w, 9), put32(&w, o), put32(&w, 11), put16(&w, W), put32(&w, q + 1);
	}
	rec(&w, DL_Waitany, t += 10); /* count requests index [statuses] */
	put32(&w, 2), put_iarr(&w, (int32_t[]){100, 101}, 2), put32(&w, 1);
	rec(&w, DL_Wait, t += 10); /* request [status] */
	put32(&w, 100);
	rec(&w, DL_Testany, t += 10); /* count requests index flag [statuses] */
	put32(&w, 2), put_iarr(&w, (int32_t[]){102, 103}, 2), put32(&w, 0), put32(&w, 0);
	rec(&w, DL_Testall, t += 10); /* count requests flag [statuses] */
	put32(&w, 2), put_iarr(&w, (int32_t[]){102, 103}, 2), put32(&w, 1);
	rec(&w, DL_Testsome, t += 10); /* count requests outcount indices [statuses] */
	put32(&w, 2), put_iarr(&w, (int32_t[]){104, 105}, 2), put32(&w, 1), put_iarr(&w, (int32_t[]){1}, 1);
	rec(&w, DL_Waitsome, t += 10);
	put32(&w, 1), put_iarr(&w, (int32_t[]){104}, 1), put32(&w, 1), put_iarr(&w, (int32_t[]){0}, 1);
	rec(&w, DL_Send_init, t += 10); /* count type dest tag comm request */
	put32(&w, 3), put16(&w, 9), put32(&w, o), put32(&w, 12), put16(&w, W), put32(&w, 106);
	rec(&w, DL_Recv_init, t += 10);
	put32(&w, 3), put16(&w, 9), put32(&w, o), put32(&w, 12), put16(&w, W), put32(&w, 107);
	rec(&w, DL_Startall, t += 10); /* count requests */
	put32(&w, 2), put_iarr(&w, (int32_t[]){106, 107}, 2);
	rec(&w, DL_Waitall, t += 10); /* count requests [statuses] */
	put32(&w, 2), put_iarr(&w, (int32_t[]){106, 107}, 2);
	rec(&w, DL_Start, t += 10); /* request */
	put32(&w, 106);
	rec(&w, DL_Test, t += 10); /* request flag [status] */
	put32(&w, 106), put32(&w, 1);
	rec(&w, DL_Request_free, t += 10); /* request */
	put32(&w, 107);
	rec(&w, DL_Barrier, t += 10); /* comm */
	put16(&w, W);
	rec(&w, DL_Finalize, t += 10);
	dw_finish(&w, body, path);
}

/* One op as "kind field=value ...", the fields each kind carries. */
static void op_text(const struct trace_op *op, int32_t other, char *s, size_t n)
{
	/* A point-to-point peer is the other rank, said "o" to be the same
	 * line on both ranks; a root is a rank number. */
	char peer[16], recv_peer[16];
	bool p2p = op->kind == TOP_SENDRECV || op->kind == TOP_PROBE || op->kind == TOP_IPROBE ||
		   op->kind == TOP_ISEND || op->kind == TOP_IRECV || op->kind == TOP_SEND_INIT ||
		   op->kind == TOP_RECV_INIT;
	snprintf(peer, sizeof peer, p2p && op->peer == other ? "o" : "%d", op->peer);
	snprintf(recv_peer, sizeof recv_peer, p2p && op->recv_peer == other ? "o" : "%d", op->recv_peer);
	int k = snprintf(s, n, "%s p=%s t=%d b=%llu", trace_op_name(op->kind), peer, op->tag,
			 (unsigned long long)op->bytes);
	if (op->kind == TOP_SENDRECV || op->recv_bytes)
		k += snprintf(s + k, n - (size_t)k, " rp=%s rt=%d rb=%llu", recv_peer, op->recv_tag,
			      (unsigned long long)op->recv_bytes);
	for (uint32_t i = 0; op->send_counts && i < op->n_counts; i++)
		k += snprintf(s + k, n - (size_t)k, "%s%llu", i ? "," : " sc=", (unsigned long long)op->send_counts[i]);
	for (uint32_t i = 0; op->recv_counts && i < op->n_counts; i++)
		k += snprintf(s + k, n - (size_t)k, "%s%llu", i ? "," : " rc=", (unsigned long long)op->recv_counts[i]);
	if (op->req)
		k += snprintf(s + k, n - (size_t)k, " q=%u", op->req);
	for (uint32_t i = 0; i < op->n_reqs; i++)
		k += snprintf(s + k, n - (size_t)k, "%s%u", i ? "," : " qs=", op->reqs[i]);
	if (op->n_done)
		snprintf(s + k, n - (size_t)k, " done=%u", op->n_done);
}

/* Every point-to-point, request and collective call the converter maps,
 * read from its own argument positions: was covered only by the public
 * traces' isend, irecv, waitall, barrier and alltoall and the
 * communicator test's send. */
static void test_dumpi_calls(void)
{
	struct nl_err e = {0};
	const char *meta = dw_write_trace("calls", 2, write_calls_rank);
	const char *out = test_tmppath("calls.nlt");
	CHECK_OK(trace_import(meta, out, NULL, NULL, &e), &e);
	/* Rank 1's (rank 0 is the gather's root, rank 1 the scatter's). */
	static const char *const want1[] = {
		"init p=0 t=0 b=0",
		"bcast p=1 t=0 b=16",
		"reduce p=0 t=0 b=16",
		"allreduce p=0 t=0 b=12",
		"scan p=0 t=0 b=20",
		"exscan p=0 t=0 b=24",
		"gather p=0 t=0 b=8",
		"scatter p=1 t=0 b=40 rp=0 rt=0 rb=20",
		"gatherv p=0 t=0 b=4",
		"scatterv p=1 t=0 b=0 rp=0 rt=0 rb=16 sc=16,32",
		"allgather p=0 t=0 b=8 rp=0 rt=0 rb=24",
		"allgatherv p=0 t=0 b=8 rc=8,16",
		"alltoall p=0 t=0 b=4 rp=0 rt=0 rb=8",
		"alltoallv p=0 t=0 b=0 sc=4,8 rc=24,32",
		"alltoallw p=0 t=0 b=0 sc=4,16 rc=8,4",
		"reduce_scatter p=0 t=0 b=0 rc=4,12",
		"sendrecv p=o t=5 b=8 rp=o rt=6 rb=24",
		"sendrecv p=o t=7 b=16 rp=o rt=8 rb=16",
		"iprobe p=o t=9 b=0 done=1",
		"probe p=o t=10 b=0",
		"isend p=o t=11 b=4 q=100",
		"irecv p=o t=11 b=8 q=101",
		"isend p=o t=11 b=4 q=102",
		"irecv p=o t=11 b=8 q=103",
		"isend p=o t=11 b=4 q=104",
		"irecv p=o t=11 b=8 q=105",
		"waitany p=0 t=0 b=0 qs=101,100 done=1",
		"wait p=0 t=0 b=0 q=100",
		"testany p=0 t=0 b=0 qs=102,103",
		"testall p=0 t=0 b=0 qs=102,103 done=2",
		"testsome p=0 t=0 b=0 qs=105,104 done=1",
		"waitsome p=0 t=0 b=0 qs=104 done=1",
		"send_init p=o t=12 b=12 q=106",
		"recv_init p=o t=12 b=12 q=107",
		"start p=0 t=0 b=0 q=106",
		"start p=0 t=0 b=0 q=107",
		"waitall p=0 t=0 b=0 qs=106,107 done=2",
		"start p=0 t=0 b=0 q=106",
		"test p=0 t=0 b=0 q=106 done=1",
		"request_free p=0 t=0 b=0 q=107",
		"barrier p=0 t=0 b=0",
		"finalize p=0 t=0 b=0",
	};
	const size_t n_want = sizeof want1 / sizeof *want1;
	struct trace_archive *a;
	struct trace_rank_reader *rd;
	struct trace_op op;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	for (uint32_t r = 0; r < 2; r++) {
		char got[160];
		size_t i = 0;
		CHECK_OK(trace_rank_open(a, r, &rd, &e), &e);
		while (trace_rank_next(rd, &op, &e) == 1) {
			if (op.kind == TOP_COMPUTE)
				continue;
			op_text(&op, (int32_t)(1 - r), got, sizeof got);
			/* Rank 0 differs where it is the root or its sizes do. */
			const char *want = i < n_want ? want1[i] : "(no more ops)";
			if (r == 0 && i < n_want) {
				static const char *const root0[][2] = {
					{"gather p=0 t=0 b=8", "gather p=0 t=0 b=8 rp=0 rt=0 rb=16"},
					{"scatter p=1 t=0 b=40 rp=0 rt=0 rb=20", "scatter p=1 t=0 b=0 rp=0 rt=0 rb=20"},
					{"gatherv p=0 t=0 b=4", "gatherv p=0 t=0 b=12 rc=24,8"},
					{"scatterv p=1 t=0 b=0 rp=0 rt=0 rb=16 sc=16,32", "scatterv p=1 t=0 b=0 rp=0 rt=0 rb=8"},
					{"allgatherv p=0 t=0 b=8 rc=8,16", "allgatherv p=0 t=0 b=4 rc=8,16"},
				};
				for (size_t k = 0; k < sizeof root0 / sizeof *root0; k++)
					if (!strcmp(want, root0[k][0]))
						want = root0[k][1];
			}
			if (strcmp(got, want))
				TEST_FAIL_("rank %u op %zu: got '%s', expected '%s'", r, i, got, want);
			i++;
		}
		CHECK_EQ(i, n_want);
		trace_rank_close(rd);
	}
	trace_archive_close(a);
}

/* Six ranks build groups of world by every constructor (excl, range_excl
 * with a stride, union, intersection, difference, range_incl with a
 * negative stride) and a communicator of each. */
static void write_group_ops_rank(const char *path, uint32_t rank)
{
	struct dw w = {.n = 0};
	uint64_t body = dw_begin(&w);
	(void)rank;
	rec(&w, DL_Init, 0);
	put32(&w, 0);
	rec(&w, DL_Comm_group, 10); /* world -> 10: 0..5 */
	put16(&w, DH_COMM_WORLD);
	put16(&w, 10);
	rec(&w, DL_Group_excl, 20); /* 10 without {1, 4} -> 11: 0 2 3 5 */
	put16(&w, 10);
	put32(&w, 2);
	put_iarr(&w, (int32_t[]){1, 4}, 2);
	put16(&w, 11);
	rec(&w, DL_Group_range_excl, 30); /* 10 without (0, 4, 2) -> 12: 1 3 5 */
	put16(&w, 10);
	put32(&w, 1);
	put32(&w, 1);
	put_iarr(&w, (int32_t[]){0, 4, 2}, 3);
	put16(&w, 12);
	rec(&w, DL_Group_union, 40); /* 11 | 12 -> 13: 0 2 3 5 1 */
	put16(&w, 11);
	put16(&w, 12);
	put16(&w, 13);
	rec(&w, DL_Group_intersection, 50); /* 11 & 12 -> 14: 3 5 */
	put16(&w, 11);
	put16(&w, 12);
	put16(&w, 14);
	rec(&w, DL_Group_difference, 60); /* 11 - 12 -> 15: 0 2 */
	put16(&w, 11);
	put16(&w, 12);
	put16(&w, 15);
	rec(&w, DL_Group_range_incl, 70); /* 10, (5, 1, -2) -> 16: 5 3 1 */
	put16(&w, 10);
	put32(&w, 1);
	put32(&w, 1);
	put_iarr(&w, (int32_t[]){5, 1, -2}, 3);
	put16(&w, 16);
	for (uint16_t g = 13; g <= 16; g++) {
		rec(&w, DL_Comm_create, 80 + 10 * g); /* world, group g -> 7 + g */
		put16(&w, DH_COMM_WORLD);
		put16(&w, g);
		put16(&w, (uint16_t)(7 + g));
	}
	rec(&w, DL_Finalize, 300);
	dw_finish(&w, body, path);
}

static void test_dumpi_group_ops(void)
{
	struct nl_err e = {0};
	const char *meta = dw_write_trace("grpops", 6, write_group_ops_rank);
	CHECK_OK(trace_import(meta, test_tmppath("grpops.nlt"), NULL, NULL, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, test_tmppath("grpops.nlt"), &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	static const uint32_t want[4][6] = {{0, 2, 3, 5, 1}, {3, 5}, {0, 2}, {5, 3, 1}};
	static const uint32_t want_n[4] = {5, 2, 2, 3};
	CHECK_EQ(m->n_comms, 2 + 4);
	/* Each rank's k-th comm_create: the communicator of group 13 + k when
	 * the rank is in it (its members in group order), else MPI_COMM_NULL. */
	for (uint32_t r = 0; r < 6; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		int k = 0;
		CHECK_OK(trace_rank_open(a, r, &rd, &e), &e);
		while (trace_rank_next(rd, &op, &e) == 1) {
			if (op.kind != TOP_COMM_CREATE || k >= 4)
				continue;
			bool member = false;
			for (uint32_t i = 0; i < want_n[k]; i++)
				member |= want[k][i] == r;
			const struct trace_comm *c = trace_manifest_find_comm(m, op.new_comm);
			if (!member && op.new_comm != TRACE_COMM_NULL)
				TEST_FAIL_("rank %u, group %d: communicator %u, expected MPI_COMM_NULL", r, 13 + k,
					   op.new_comm);
			else if (member && (!c || c->size != want_n[k] ||
					    memcmp(c->world_ranks, want[k], want_n[k] * sizeof *want[k])))
				TEST_FAIL_("rank %u, group %d: communicator of %u ranks (first %u), expected %u (first %u)",
					   r, 13 + k, c ? c->size : 0, c && c->size ? c->world_ranks[0] : 0, want_n[k],
					   want[k][0]);
			k++;
		}
		CHECK_EQ(k, 4);
		trace_rank_close(rd);
	}
	trace_archive_close(a);
}

/* Five splits of a 4-rank world by color = rank: each makes four
 * communicators of one rank, so the importer's communicator table (16 to
 * start) grows in the middle of a split. */
static void write_split_many_rank(const char *path, uint32_t rank)
{
	struct dw w = {.n = 0};
	uint64_t body = dw_begin(&w);
	rec(&w, DL_Init, 0);
	put32(&w, 0);
	for (uint16_t k = 0; k < 5; k++) {
		rec(&w, DL_Comm_split, 10 + 10 * k); /* world, color rank, key 0 -> 10 + k */
		put16(&w, DH_COMM_WORLD);
		put32(&w, rank);
		put32(&w, 0);
		put16(&w, (uint16_t)(10 + k));
	}
	rec(&w, DL_Finalize, 100);
	dw_finish(&w, body, path);
}

static void test_dumpi_split_many(void)
{
	struct nl_err e = {0};
	const char *meta = dw_write_trace("splitmany", 4, write_split_many_rank);
	CHECK_OK(trace_import(meta, test_tmppath("splitmany.nlt"), NULL, NULL, &e), &e);
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, test_tmppath("splitmany.nlt"), &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	CHECK_EQ(m->n_comms, 2 + 5 * 4);
	for (uint32_t r = 0; r < 4; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		int k = 0;
		CHECK_OK(trace_rank_open(a, r, &rd, &e), &e);
		while (trace_rank_next(rd, &op, &e) == 1) {
			if (op.kind != TOP_COMM_SPLIT)
				continue;
			const struct trace_comm *c = trace_manifest_find_comm(m, op.new_comm);
			if (!c || c->size != 1 || c->world_ranks[0] != r)
				TEST_FAIL_("rank %u, split %d: communicator %u of %u ranks, expected rank %u alone", r, k,
					   op.new_comm, c ? c->size : 0, r);
			k++;
		}
		CHECK_EQ(k, 5);
		trace_rank_close(rd);
	}
	trace_archive_close(a);
}

/* A .meta with fewer numprocs than the rank files were recorded with:
 * testbgp's ranks build a group of world ranks 0..6, and 3 of them are
 * outside a 3-rank world. Was exit 0 with the communicator, and all 525
 * calls on it, listed as not converted (no p2p message left). */
static void test_dumpi_group_outside(void)
{
	struct nl_err e = {0};
	char from[512], to[512];
	mkdir(test_tmppath("bgp3"), 0755);
	for (int r = 0; r < 3; r++) {
		snprintf(from, sizeof from, DATA "/dumpi/testbgp-%04d.bin", r);
		snprintf(to, sizeof to, "%s/bgp3/testbgp-%04d.bin", test_tmpdir, r);
		CHECK_EQ(copy_file(from, to), 0);
	}
	FILE *f = fopen(test_tmppath("bgp3/testbgp.meta"), "w");
	fprintf(f, "numprocs=3\nfileprefix=testbgp\n");
	fclose(f);
	char want[700];
	snprintf(want, sizeof want,
		 "%s/bgp3/testbgp-0000.bin: rank 0, offset 226: MPI_Group_incl: member 3 outside its group (size 3)",
		 test_tmpdir);
	CHECK_ERR(trace_import(test_tmppath("bgp3/testbgp.meta"), test_tmppath("bgp3.nlt"), NULL, NULL, &e),
		  NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	CHECK(access(test_tmppath("bgp3.nlt"), F_OK) != 0);
}

/* Groups on 3 ranks: Comm_group of a handle never defined, Group_incl of
 * rank 5 of it (its size is not known: no error), Comm_create of that and
 * a send on the result; then a range (0, 3, 2) of world's group: ranks 0
 * and 2 (3 is past the group, but the stride steps over it). With
 * bad_range, the range (0, 4, 2), whose member 4 is outside. */
static void write_group_rank_with(const char *path, uint32_t rank, bool bad_range)
{
	struct dw w = {.n = 0};
	int32_t five[] = {5};
	uint64_t body = dw_begin(&w);
	rec(&w, DL_Init, 0);
	put32(&w, 0);
	rec(&w, DL_Comm_group, 10); /* handle 9 -> group 10: unknown */
	put16(&w, 9);
	put16(&w, 10);
	rec(&w, DL_Group_incl, 20); /* group 10, {5} -> 11 */
	put16(&w, 10);
	put32(&w, 1);
	put_iarr(&w, five, 1);
	put16(&w, 11);
	rec(&w, DL_Comm_create, 30); /* world, group 11 -> 20 */
	put16(&w, DH_COMM_WORLD);
	put16(&w, 11);
	put16(&w, 20);
	rec(&w, DL_Send, 40); /* 1 x MPI_INT to rank 0 of communicator 20 */
	put32(&w, 1);
	put16(&w, 9);
	put32(&w, 0);
	put32(&w, 1);
	put16(&w, 20);
	rec(&w, DL_Comm_group, 50); /* world -> group 12: ranks 0 1 2 */
	put16(&w, DH_COMM_WORLD);
	put16(&w, 12);
	rec(&w, DL_Group_range_incl, 60); /* group 12, {(0, 3 or 4, 2)} -> 13 */
	put16(&w, 12);
	put32(&w, 1);
	put32(&w, 1);
	put32(&w, 3);
	put32(&w, 0);
	put32(&w, bad_range ? 4 : 3);
	put32(&w, 2);
	put16(&w, 13);
	rec(&w, DL_Comm_create, 70); /* world, group 13 -> 21 */
	put16(&w, DH_COMM_WORLD);
	put16(&w, 13);
	put16(&w, 21);
	rec(&w, DL_Finalize, 80);
	(void)rank;
	dw_finish(&w, body, path);
}

static void write_group_rank(const char *path, uint32_t rank)
{
	write_group_rank_with(path, rank, false);
}

static void write_bad_range_rank(const char *path, uint32_t rank)
{
	write_group_rank_with(path, rank, true);
}

static void test_dumpi_groups(void)
{
	struct nl_err e = {0};
	struct warns w = {0};
	const char *meta = dw_write_trace("grp", 3, write_group_rank);
	CHECK_OK(trace_import(meta, test_tmppath("grp.nlt"), collect, &w, &e), &e);
	/* A group of a communicator netloom does not know stays unknown. */
	CHECK(has_warn(&w, "not converted: MPI_Comm_create x3 (new communicator's members unknown)"));
	CHECK(has_warn(&w, "not converted: MPI_Send x3 (on a communicator netloom could not import)"));
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, test_tmppath("grp.nlt"), &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	CHECK_EQ(m->n_comms, 3);
	const struct trace_comm *c = m->n_comms == 3 ? trace_manifest_find_comm(m, 2) : NULL;
	CHECK(c != NULL);
	if (c) {
		CHECK_EQ(c->size, 2);
		CHECK_EQ(c->world_ranks[0], 0);
		CHECK_EQ(c->world_ranks[1], 2);
	}
	trace_archive_close(a);

	/* Rank 2 reaches it first: pass 1 resumes the last member of the
	 * resolved Comm_create. */
	meta = dw_write_trace("grpbad", 3, write_bad_range_rank);
	CHECK_ERR(trace_import(meta, test_tmppath("grpbad.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "grpbad-0002.bin: rank 2, offset 156: MPI_Group_range_incl: member 4 outside its group (size 3)");
	CHECK(access(test_tmppath("grpbad.nlt"), F_OK) != 0);
}

/* --- SimGrid -------------------------------------------------------------------- */

static void test_simgrid_ti32(void)
{
	struct nl_err e = {0};
	struct warns w = {0};
	const char *out = test_tmppath("ti32.nlt");
	CHECK_OK(trace_import(DATA "/simgrid/replay_multiple/smpi_replay.txt", out, collect, &w, &e), &e);
	CHECK_EQ(w.n, 1);
	CHECK(has_warn(&w, "not converted: comm_size x480 (informational; SimGrid's replay ignores it)"));
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	const struct trace_manifest *m = trace_archive_manifest(a);
	CHECK_EQ(m->n_ranks, 32);
	CHECK_STR(m->application, "smpi_replay");
	CHECK_NEAR(m->recorded_runtime_s, 0, 0);

	struct trace_stats s;
	CHECK_OK(trace_archive_stats(a, &s, &e), &e);
	CHECK_UINT(s.calls[TOP_INIT], ==, 32);
	CHECK_UINT(s.calls[TOP_COMPUTE_FLOPS], ==, 1440);
	CHECK_UINT(s.calls[TOP_BARRIER], ==, 512);
	CHECK_UINT(s.calls[TOP_BCAST], ==, 288);
	CHECK_UINT(s.calls[TOP_ALLREDUCE], ==, 192);
	CHECK_UINT(s.calls[TOP_GATHER], ==, 32);
	CHECK_UINT(s.calls[TOP_ALLTOALL], ==, 160);
	CHECK_UINT(s.calls[TOP_ALLTOALLV], ==, 64);
	CHECK_UINT(s.calls[TOP_FINALIZE], ==, 32);
	CHECK_UINT(s.p2p_messages, ==, 0);
	CHECK_NEAR(s.compute_flops, 2266760717150.0, 0.5);

	/* "init 1": MPI_DOUBLE by default; explicit ids where given. */
	struct totals t;
	CHECK_OK(totals_of(a, &t, &e), &e);
	CHECK_UINT(t.bytes[TOP_BCAST], ==, 2304);
	CHECK_UINT(t.bytes[TOP_ALLREDUCE], ==, 212736);
	CHECK_NEAR(t.flops[TOP_ALLREDUCE], 7704776422.0, 0.5);
	CHECK_UINT(t.bytes[TOP_ALLTOALL], ==, 14602752);
	CHECK_UINT(t.recv_bytes[TOP_ALLTOALL], ==, 14602752);
	CHECK_UINT(t.bytes[TOP_GATHER], ==, 203520);
	CHECK_UINT(t.counts_sent[TOP_ALLTOALLV], ==, 6691542352ull);
	CHECK_UINT(t.counts_recv[TOP_ALLTOALLV], ==, 6691542352ull);
	CHECK_OK(trace_archive_verify(a, &e), &e);
	trace_archive_close(a);
	check_dump_encode(out);
}

/* The ops of one rank, as "kind field..." strings for compact checks. */
static int rank_ops(const char *nlt, uint32_t rank, char out[][96], int max)
{
	struct nl_err e = {0};
	struct trace_archive *a;
	struct trace_rank_reader *rd;
	struct trace_op op;
	int n = 0;
	if (trace_archive_open(&a, nlt, &e) || trace_rank_open(a, rank, &rd, &e))
		return -1;
	while (trace_rank_next(rd, &op, &e) == 1 && n < max)
		snprintf(out[n++], 96, "%s p=%d t=%d b=%llu r=%u n=%u f=%u fl=%g", trace_op_name(op.kind), op.peer,
			 op.tag, (unsigned long long)op.bytes, op.n_reqs ? op.reqs[0] : op.req, op.n_reqs, op.flags,
			 op.flops);
	trace_rank_close(rd);
	trace_archive_close(a);
	return n;
}

static void test_simgrid_isend_test_wait(void)
{
	struct nl_err e = {0};
	const char *out = test_tmppath("isend.nlt");
	CHECK_OK(trace_import(DATA "/simgrid/replay/actions_with_isend.txt", out, NULL, NULL, &e), &e);
	char ops[16][96];
	int n = rank_ops(out, 1, ops, 16);
	CHECK_EQ(n, 8);
	if (n == 8) {
		CHECK_STR(ops[0], "init p=0 t=0 b=0 r=0 n=0 f=0 fl=0");
		CHECK_STR(ops[1], "irecv p=0 t=0 b=1000000 r=1 n=0 f=0 fl=0");
		CHECK_STR(ops[2], "compute_flops p=0 t=0 b=0 r=0 n=0 f=0 fl=5e+08");
		CHECK_STR(ops[3], "test p=0 t=0 b=0 r=1 n=0 f=4 fl=0"); /* no_outcome */
		CHECK_STR(ops[4], "compute_flops p=0 t=0 b=0 r=0 n=0 f=0 fl=5e+08");
		CHECK_STR(ops[5], "wait p=0 t=0 b=0 r=1 n=0 f=0 fl=0");
		CHECK_STR(ops[6], "send p=2 t=1 b=1000000 r=0 n=0 f=0 fl=0");
		CHECK_STR(ops[7], "finalize p=0 t=0 b=0 r=0 n=0 f=0 fl=0");
	}
	struct trace_archive *a;
	struct trace_stats s;
	CHECK_OK(trace_archive_open(&a, out, &e), &e);
	CHECK_OK(trace_archive_stats(a, &s, &e), &e);
	CHECK_UINT(s.p2p_messages, ==, 3);
	CHECK_UINT(s.p2p_bytes, ==, 3000000);
	trace_archive_close(a);
}

static void test_simgrid_datatypes_and_v(void)
{
	struct nl_err e = {0};
	char ops[16][96];
	const char *out = test_tmppath("dt.nlt");
	CHECK_OK(trace_import(DATA "/simgrid/replay/actions_bcast_reduce_datatypes.txt", out, NULL, NULL, &e), &e);
	int n = rank_ops(out, 2, ops, 16);
	/* init 1 (double default), bcast 5e4 root 1 type 0 (double), bcast 5e4
	 * root 0 type 3 (short), reduce 5e4 flops 5e8 root 0 type 4 (long). */
	CHECK_EQ(n, 7);
	if (n == 7) {
		CHECK_STR(ops[1], "bcast p=1 t=0 b=400000 r=0 n=0 f=0 fl=0");
		CHECK_STR(ops[3], "bcast p=0 t=0 b=100000 r=0 n=0 f=0 fl=0");
		CHECK_STR(ops[5], "reduce p=0 t=0 b=400000 r=0 n=0 f=0 fl=5e+08");
	}

	/* alltoallv: "0 alltoallv 100 1 40 30 1000 1 80 100" (bytes). */
	struct trace_archive *a;
	struct trace_rank_reader *rd;
	struct trace_op op;
	CHECK_OK(trace_import(DATA "/simgrid/replay/actions_alltoallv.txt", test_tmppath("a2av.nlt"), NULL, NULL, &e), &e);
	CHECK_OK(trace_archive_open(&a, test_tmppath("a2av.nlt"), &e), &e);
	CHECK_OK(trace_rank_open(a, 0, &rd, &e), &e);
	while (trace_rank_next(rd, &op, &e) == 1 && op.kind != TOP_ALLTOALLV)
		;
	CHECK_EQ(op.kind, TOP_ALLTOALLV);
	CHECK_EQ(op.n_counts, 3);
	if (op.n_counts == 3 && op.send_counts && op.recv_counts) {
		CHECK_UINT(op.send_counts[0], ==, 1);
		CHECK_UINT(op.send_counts[1], ==, 40);
		CHECK_UINT(op.send_counts[2], ==, 30);
		CHECK_UINT(op.recv_counts[0], ==, 1);
		CHECK_UINT(op.recv_counts[1], ==, 80);
		CHECK_UINT(op.recv_counts[2], ==, 100);
	}
	trace_rank_close(rd);
	trace_archive_close(a);

	/* reducescatter: recvcounts x the trailing datatype id 0 (double), flops. */
	CHECK_OK(trace_import(DATA "/simgrid/replay/actions_reducescatter.txt", test_tmppath("rs.nlt"), NULL, NULL, &e), &e);
	struct totals t;
	CHECK_OK(trace_archive_open(&a, test_tmppath("rs.nlt"), &e), &e);
	CHECK_OK(totals_of(a, &t, &e), &e);
	CHECK_UINT(t.counts_recv[TOP_REDUCE_SCATTER], ==, 8 * 4 * (275427ull * 3 + 204020));
	CHECK_NEAR(t.flops[TOP_REDUCE_SCATTER], 11349173.0 + 12396024 + 12501522 + 12403123, 0);
	trace_archive_close(a);
	check_dump_encode(test_tmppath("rs.nlt"));
}

static void write_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	fputs(s, f);
	fclose(f);
}

static void test_simgrid_old_form_and_errors(void)
{
	struct nl_err e = {0};
	char ops[16][96];
	/* Pre-3.20 form: no tags, Isend/Irecv spelling, wait on the last request. */
	write_text(test_tmppath("old.txt"), "# old\n0 init\n1 init\n0 Isend 1 100\n0 Irecv 1 200 1\n0 wait\n0 waitAll\n"
				      "1 recv 0 100\n1 send 0 50 5\n0 finalize\n1 finalize\n");
	CHECK_OK(trace_import(test_tmppath("old.txt"), test_tmppath("old.nlt"), NULL, NULL, &e), &e);
	int n = rank_ops(test_tmppath("old.nlt"), 0, ops, 16);
	CHECK_EQ(n, 6);
	if (n == 6) {
		CHECK_STR(ops[1], "isend p=1 t=0 b=100 r=1 n=0 f=0 fl=0");
		CHECK_STR(ops[2], "irecv p=1 t=0 b=800 r=2 n=0 f=0 fl=0"); /* 200 x int (id 1) */
		CHECK_STR(ops[3], "wait p=0 t=0 b=0 r=2 n=0 f=0 fl=0");   /* the last request */
		CHECK_STR(ops[4], "waitall p=0 t=0 b=0 r=1 n=1 f=0 fl=0"); /* what is left */
	}
	n = rank_ops(test_tmppath("old.nlt"), 1, ops, 16);
	CHECK_EQ(n, 4);
	if (n == 4)
		CHECK_STR(ops[2], "send p=0 t=0 b=200 r=0 n=0 f=0 fl=0"); /* 50 x float (id 5) */

	/* Refused action files: name, content, the line. Decimal numbers:
	 * strtod read C99's hexadecimal floats, so a size of 0x1p3 sent 8
	 * elements and a compute of 0x1p3 8 flops. */
	static const char *const refused[][3] = {
		{"mixed.txt", "0 init\n0 send 1 100\n0 wait 0 1 0\n1 init\n",
		 "mixed.txt: mixes the tagged form (line 3: 4 point-to-point arguments or wait/test with 3) and the "
		 "older untagged form (line 2)"},
		{"bad.txt", "0 init\n0 bcast abc\n", "bad.txt:2: bcast size 'abc': expected a number of elements"},
		{"hex.txt", "0 init\n0 bcast 0x1p3\n", "hex.txt:2: bcast size '0x1p3': expected a number of elements"},
		{"hex2.txt", "0 init\n0 compute -0X10\n", "hex2.txt:2: compute '-0X10': expected a number of flops >= 0"},
		{"hex3.txt", "0 init\n0 send 0 0x10\n", "hex3.txt:2: size '0x10': expected a number of elements"},
		/* A number past the range: the range said (it was "expected a
		 * number of elements", which 1e19 is). */
		{"big.txt", "0 init\n0 bcast 1e19\n", "big.txt:2: bcast size '1e19': expected a number of elements 0 .. 9.2e18"},
		{"big2.txt", "0 init\n0 send 0 0 1e30\n",
		 "big2.txt:2: size '1e30': expected a number of elements 0 .. 9.2e18 (-1 on a receive: unknown)"},
		{"big3.txt", "0 init\n0 send 0 2147483648 10\n", "big3.txt:2: tag '2147483648': expected an integer 0 .. 2147483647"},
		{"bad2.txt", "0 init\n0 frobnicate 1\n",
		 "bad2.txt:2: unknown action 'frobnicate' (SimGrid's replay would stop here too)"},
		{"bad3.txt", "0 init\n0 send 1 0 10 77\n1 init\n",
		 "bad3.txt:2: datatype '77': expected a SimGrid datatype id (-1 .. 59)"},
		{"sleep.txt", "0 init\n0 sleep 2e7\n",
		 "sleep.txt:2: sleep '2e7': expected seconds >= 0 and below 18446744.0737 (2^64 ps)"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		write_text(test_tmppath(refused[i][0]), refused[i][1]);
		CHECK_ERR(trace_import(test_tmppath(refused[i][0]), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT,
			  &e, refused[i][2]);
	}
	/* A sleep past 2^63 ps (about 107 days) keeps its length: llround
	 * gave 2^63 ps for any of them. */
	write_text(test_tmppath("sleep2.txt"), "0 init\n0 sleep 1.7e7\n0 finalize\n");
	CHECK_OK(trace_import(test_tmppath("sleep2.txt"), test_tmppath("sleep2.nlt"), NULL, NULL, &e), &e);
	struct trace_archive *sa;
	struct trace_rank_reader *sr;
	struct trace_op sop;
	if (trace_archive_open(&sa, test_tmppath("sleep2.nlt"), &e) == 0) {
		if (trace_rank_open(sa, 0, &sr, &e) == 0) {
			while (trace_rank_next(sr, &sop, &e) == 1 && sop.kind != TOP_COMPUTE)
				;
			CHECK_EQ(sop.kind, TOP_COMPUTE);
			CHECK_UINT(sop.dur_ps, ==, 17000000000000000000ull);
			trace_rank_close(sr);
		}
		trace_archive_close(sa);
	}
	write_text(test_tmppath("idx.txt"), "nothere_0.txt\n");
	CHECK_ERR(trace_import(test_tmppath("idx.txt"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_ENOTFOUND, &e,
		  "idx.txt:1: rank 0 trace 'nothere_0.txt' not found (the file was read as a SimGrid index, one "
		  "rank's trace file per line;");
	CHECK(access(test_tmppath("x.nlt"), F_OK) != 0);
	write_text(test_tmppath("neither.txt"), "a=b\nc=d\n");
	CHECK_ERR(trace_import(test_tmppath("neither.txt"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "neither.txt: unknown trace format");
	CHECK(trace_import_detect(DATA "/dumpi/testbgp.meta") && !strcmp(trace_import_detect(DATA "/dumpi/testbgp.meta"), "dumpi"));
	CHECK(trace_import_detect(DATA "/simgrid/replay/split_traces") &&
	      !strcmp(trace_import_detect(DATA "/simgrid/replay/split_traces"), "simgrid"));
}

/* A per-rank actions file of a larger trace is refused whichever rank it
 * holds, with the same hint (SimGrid's actions0.txt references rank 1;
 * actions1.txt has only rank 1's lines, which made an empty rank 0 whose
 * replay could only deadlock); its index file converts. */
static void test_simgrid_per_rank_files(void)
{
	struct nl_err e = {0};
	const char *hint = " (ranks are the ones this file has actions for; a per-rank file of a larger trace is "
			   "converted through the index file that lists every rank's file)";
	char want[700];
	snprintf(want, sizeof want, DATA "/simgrid/replay/actions0.txt:2: partner '1': expected a rank 0 .. 0%s", hint);
	CHECK_ERR(trace_import(DATA "/simgrid/replay/actions0.txt", test_tmppath("a0.nlt"), NULL, NULL, &e),
		  NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	snprintf(want, sizeof want,
		 DATA "/simgrid/replay/actions1.txt: rank 0 has no actions, though rank 1 has: expected actions for "
		      "every rank 0 .. 1%s",
		 hint);
	CHECK_ERR(trace_import(DATA "/simgrid/replay/actions1.txt", test_tmppath("a1.nlt"), NULL, NULL, &e),
		  NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	CHECK(access(test_tmppath("a0.nlt"), F_OK) != 0 && access(test_tmppath("a1.nlt"), F_OK) != 0);
	/* A gap in the middle. */
	write_text(test_tmppath("gap.txt"), "0 init\n2 init\n0 finalize\n2 finalize\n");
	CHECK_ERR(trace_import(test_tmppath("gap.txt"), test_tmppath("gap.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "gap.txt: rank 1 has no actions, though rank 2 has: expected actions for every rank 0 .. 2 (ranks");
	CHECK(access(test_tmppath("gap.nlt"), F_OK) != 0);
	static const char r1[] = "1 init\n1 finalize\n";
	CHECK_ERR(trace_simgrid_import_mem((const uint8_t *)r1, strlen(r1), &e), NL_EFORMAT, &e,
		  "(memory): rank 0 has no actions, though rank 1 has");
	static const char ok[] = "1 init\n0 init\n1 finalize\n0 finalize\n";
	CHECK_OK(trace_simgrid_import_mem((const uint8_t *)ok, strlen(ok), &e), &e);
	/* A per-rank file whose comm_size says the trace is larger: said as
	 * such, not at its first count list that does not fit (ti_trace0.txt's
	 * alltoallv on line 69, whose counts were read as datatypes). */
	snprintf(want, sizeof want,
		 DATA "/simgrid/replay_multiple/ti_traces_32_1/ti_trace0.txt: actions of rank 0 only, but line 6 says "
		      "comm_size 32: expected actions for every rank 0 .. 31%s",
		 hint);
	CHECK_ERR(trace_import(DATA "/simgrid/replay_multiple/ti_traces_32_1/ti_trace0.txt", test_tmppath("t0.nlt"),
			       NULL, NULL, &e),
		  NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	static const char cs[] = "0 init\n1 init\n0 comm_size 4\n0 finalize\n1 finalize\n";
	CHECK_ERR(trace_simgrid_import_mem((const uint8_t *)cs, strlen(cs), &e), NL_EFORMAT, &e,
		  "(memory): actions of ranks 0 .. 1, but line 3 says comm_size 4: expected actions for every rank 0 .. 3");
	static const char cs2[] = "0 init\n1 init\n0 comm_size 2\n1 comm_size 1\n0 finalize\n1 finalize\n";
	CHECK_OK(trace_simgrid_import_mem((const uint8_t *)cs2, strlen(cs2), &e), &e);
}

/* Format detection: binary input is never a SimGrid trace (a netloom
 * archive cut to 1 .. 3 bytes read as a one-line index), the first bytes of
 * the netloom magic are a truncated archive, other input is an unknown
 * format for convert and replay alike; quoted input bytes are escaped. */
static void test_detect_and_escape(void)
{
	struct nl_err e = {0};
	const char *importer = "x";
	char want[700];
	write_text(test_tmppath("cut.nlt"), "\x89NL");
	CHECK(trace_import_detect(test_tmppath("cut.nlt")) == NULL);
	snprintf(want, sizeof want, "%s: offset 3: truncated netloom trace archive: the 64-byte header is incomplete",
		 test_tmppath("cut.nlt"));
	CHECK_ERR(trace_import(test_tmppath("cut.nlt"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_ECORRUPT, &e, want);
	CHECK_STR(e.msg, want);
	CHECK_OK(trace_input_format(test_tmppath("cut.nlt"), &importer, &e), &e);
	CHECK(importer == NULL);

	/* Binary lines: neither an actions file nor an index. */
	write_text(test_tmppath("bin1"), "\x01\x02\n");
	write_text(test_tmppath("bin2"), "0 init\xff\n");
	write_text(test_tmppath("bin3"), "# c\x07mment\nlist.txt\n");
	for (int i = 1; i <= 3; i++) {
		char name[16];
		snprintf(name, sizeof name, "bin%d", i);
		CHECK(trace_import_detect(test_tmppath(name)) == NULL);
		CHECK_ERR(trace_import(test_tmppath(name), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
			  "unknown trace format: expected a DUMPI .meta file");
	}
	/* UTF-8 text still is one; so is a first line of more than 3 fields
	 * (was refused: the probe split it into at most 3). */
	write_text(test_tmppath("utf8.txt"), "# d\xc3\xa9j\xc3\xa0\n0 send 1 0 8\n1 recv 0 0 8\n");
	CHECK(trace_import_detect(test_tmppath("utf8.txt")) != NULL);
	CHECK_OK(trace_import(test_tmppath("utf8.txt"), test_tmppath("utf8.nlt"), NULL, NULL, &e), &e);

	/* replay's check lists the netloom archive among the formats. */
	write_text(test_tmppath("words.txt"), "hello world\n");
	snprintf(want, sizeof want,
		 "%s: unknown trace format: expected a netloom trace archive (.nlt) or a DUMPI .meta file "
		 "('numprocs=' and 'fileprefix=' lines) or a SimGrid time-independent trace ('<rank> <action> ...' "
		 "lines, or a list of such files) or an OTF2 anchor file (NAME.otf2)",
		 test_tmppath("words.txt"));
	CHECK_ERR(trace_input_format(test_tmppath("words.txt"), &importer, &e), NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	/* An empty file is said to be empty (replay and convert said
	 * "unknown trace format" where trace info said "empty file"). */
	write_text(test_tmppath("empty.nlt"), "");
	CHECK_ERR(trace_input_format(test_tmppath("empty.nlt"), &importer, &e), NL_EFORMAT, &e,
		  "empty.nlt: empty file: expected a netloom trace archive (.nlt) or a DUMPI .meta file");
	CHECK_ERR(trace_import(test_tmppath("empty.nlt"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "empty.nlt: empty file: expected a DUMPI .meta file");
	CHECK_OK(trace_input_format(DATA "/dumpi/testtrace.meta", &importer, &e), &e);
	CHECK(importer && !strcmp(importer, "dumpi"));

	/* An intact archive is nothing to convert. */
	CHECK_OK(trace_import(DATA "/simgrid/replay/actions_barrier.txt", test_tmppath("ok.nlt"), NULL, NULL, &e), &e);
	CHECK_ERR(trace_import(test_tmppath("ok.nlt"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EINVAL, &e,
		  "ok.nlt: already a netloom trace archive: nothing to convert");
	CHECK_OK(trace_input_format(test_tmppath("ok.nlt"), &importer, &e), &e);
	CHECK(importer == NULL);

	/* Bytes of the input quoted in an error: escaped, valid UTF-8 kept. */
	write_text(test_tmppath("ctl.txt"), "0 init\n0 fr\x01ob\xff\xc3\xa9\n");
	CHECK_ERR(trace_import(test_tmppath("ctl.txt"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "ctl.txt:2: unknown action 'fr\\x01ob\\xff\xc3\xa9' (SimGrid's replay would stop here too)");
	write_text(test_tmppath("ctl.meta"), "numprocs=4\x1b[2J\nfileprefix=x\n");
	CHECK_ERR(trace_import(test_tmppath("ctl.meta"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "ctl.meta:1: numprocs '4\\x1b[2J': expected 1 .. 16777215");
	/* One rank more than an archive can hold is refused at the .meta
	 * line, not after looking for 16,777,216 rank files. */
	write_text(test_tmppath("big.meta"), "numprocs=16777216\nfileprefix=x\n");
	CHECK_ERR(trace_import(test_tmppath("big.meta"), test_tmppath("x.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "big.meta:1: numprocs '16777216': expected 1 .. 16777215");
	char buf[16];
	CHECK_STR(trace_escape(buf, sizeof buf, "a\tb\xc3(\xe2\x82\xac"), "a\\x09b\\xc3(\xe2\x82\xac");
	CHECK_STR(trace_escape(buf, 6, "ab\x01" "cd"), "ab"); /* cut before an escape that does not fit */
}

static void test_simgrid_split_index(void)
{
	/* split_traces lists "replay/actions0.txt": resolved against the
	 * index's parent directory, as SMPI's working directory would. */
	struct nl_err e = {0};
	struct warns w = {0};
	CHECK_OK(trace_import(DATA "/simgrid/replay/split_traces", test_tmppath("split.nlt"), collect, &w, &e), &e);
	CHECK_EQ(w.n, 0);
	char ops[16][96];
	int n = rank_ops(test_tmppath("split.nlt"), 1, ops, 16);
	CHECK_EQ(n, 7);
	if (n == 7) {
		CHECK_STR(ops[1], "recv p=0 t=0 b=1000000 r=0 n=0 f=0 fl=0");
		CHECK_STR(ops[2], "compute_flops p=0 t=0 b=0 r=0 n=0 f=0 fl=1e+09");
		CHECK_STR(ops[3], "isend p=0 t=1 b=1000000 r=1 n=0 f=0 fl=0");
		CHECK_STR(ops[4], "irecv p=0 t=2 b=1000000 r=2 n=0 f=0 fl=0");
		CHECK_STR(ops[5], "wait p=0 t=0 b=0 r=2 n=0 f=0 fl=0"); /* wait 0 1 2 -> the irecv (0 -> 1, tag 2) */
	}
}

/* An index listing fewer files than the trace has ranks, or more, or a
 * file on another rank's line: said in one line naming the index and the
 * inconsistency, not as an error of the first line it made unreadable (a
 * count read as a datatype in ti_trace0.txt), nothing written. */
static void test_simgrid_index_mismatch(void)
{
	struct nl_err e = {0};
	char want[900];
	const char *ti = DATA "/simgrid/replay_multiple/ti_traces_32_1/ti_trace";
	const char *tail = ": expected one file per rank of the trace, line i naming rank i's";
	FILE *f = fopen(test_tmppath("ix8"), "w");
	for (int r = 0; r < 8; r++)
		fprintf(f, "%s%d.txt\n", ti, r);
	fclose(f);
	snprintf(want, sizeof want,
		 "%s: lists 8 rank files, but the trace has at least 32 ranks ('%s0.txt' line 6: comm_size 32)%s",
		 test_tmppath("ix8"), ti, tail);
	CHECK_ERR(trace_import(test_tmppath("ix8"), test_tmppath("ix.nlt"), NULL, NULL, &e), NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	/* No comm_size lines: the first rank or count list past the files. */
	write_text(test_tmppath("ix1"), DATA "/simgrid/replay/actions0.txt\n");
	snprintf(want, sizeof want,
		 "%s: lists 1 rank file, fewer than the trace has ranks: " DATA
		 "/simgrid/replay/actions0.txt:2: partner '1': expected a rank 0 .. 0",
		 test_tmppath("ix1"));
	CHECK_ERR(trace_import(test_tmppath("ix1"), test_tmppath("ix.nlt"), NULL, NULL, &e), NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	write_text(test_tmppath("v0.txt"), "0 init\n0 alltoallv 4 1 1 1 1 4 1 1 1 1\n0 finalize\n");
	write_text(test_tmppath("v1.txt"), "1 init\n1 alltoallv 4 1 1 1 1 4 1 1 1 1\n1 finalize\n");
	write_text(test_tmppath("ixv"), "v0.txt\nv1.txt\n");
	CHECK_ERR(trace_import(test_tmppath("ixv"), test_tmppath("ix.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "ixv: lists 2 rank files, fewer than the trace has ranks: ");
	CHECK(strstr(e.msg, "v0.txt:2: alltoallv: 10 arguments, more than the 8 it has with 2 ranks (send buffer, "
			    "counts, receive buffer, counts, 2 datatypes)") != NULL);
	/* More files than ranks: the extra line names a file of another rank. */
	write_text(test_tmppath("ix3"), DATA "/simgrid/replay/actions0.txt\n" DATA "/simgrid/replay/actions1.txt\n"
					  "\n" DATA "/simgrid/replay/actions1.txt\n");
	snprintf(want, sizeof want,
		 "%s:4: rank 2's file '" DATA "/simgrid/replay/actions1.txt' has no line of rank 2 (its lines are "
		 "rank 1's)%s; the index lists 3",
		 test_tmppath("ix3"), tail);
	CHECK_ERR(trace_import(test_tmppath("ix3"), test_tmppath("ix.nlt"), NULL, NULL, &e), NL_EFORMAT, &e, want);
	CHECK_STR(e.msg, want);
	write_text(test_tmppath("empty.txt"), "# nothing\n");
	write_text(test_tmppath("ixe"), "v0.txt\nempty.txt\n");
	CHECK_ERR(trace_import(test_tmppath("ixe"), test_tmppath("ix.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "ixe:2: rank 1's file '");
	CHECK(strstr(e.msg, "empty.txt' has no line of rank 1 (it has no actions): expected one file") != NULL);
	/* A line of a rank past the last file's. */
	write_text(test_tmppath("w1.txt"), "1 init\n3 init\n1 finalize\n");
	write_text(test_tmppath("ixw"), "v0.txt\nw1.txt\n");
	CHECK_ERR(trace_import(test_tmppath("ixw"), test_tmppath("ix.nlt"), NULL, NULL, &e), NL_EFORMAT, &e,
		  "ixw: lists 2 rank files, but rank 1's file '");
	CHECK(strstr(e.msg, "w1.txt' has lines of rank 3: expected one file per rank") != NULL);
	CHECK(access(test_tmppath("ix.nlt"), F_OK) != 0);
}

/* src's bytes into dst, after a UTF-8 byte order mark when bom. */
static void copy_text(const char *src, const char *dst, bool bom)
{
	FILE *f = fopen(src, "rb"), *g = fopen(dst, "wb");
	CHECK(f && g);
	if (!f || !g)
		return;
	if (bom)
		fputs("\xEF\xBB\xBF", g);
	for (int c; (c = fgetc(f)) != EOF;)
		fputc(c, g);
	fclose(f);
	fclose(g);
}

/* Text inputs starting with a UTF-8 byte order mark (as editors on Windows
 * write them) convert to the same archive as without it: a SimGrid actions
 * file, an index and its listed files, a DUMPI .meta whose first line is
 * numprocs=, and a text trace given to encode. The mark made the SimGrid
 * trace and the .meta an unknown format, the index list a file named
 * "\xEF\xBB\xBFactions0.txt" and encode's first line not 'netloom-trace'.
 * Same basenames in two directories: the archive names the application
 * after the input's file name. */
static void test_byte_order_mark(void)
{
	struct nl_err e = {0};
	mkdir(test_tmppath("plain"), 0755);
	mkdir(test_tmppath("bom"), 0755);
	const char *dirs[2] = {"plain", "bom"};
	char in[2][512], out[2][512];
	for (int b = 0; b < 2; b++) {
		snprintf(in[b], sizeof in[b], "%s/%s/a.txt", test_tmpdir, dirs[b]);
		snprintf(out[b], sizeof out[b], "%s/%s/a.nlt", test_tmpdir, dirs[b]);
		copy_text(DATA "/simgrid/replay/actions_bcast.txt", in[b], b);
		CHECK_OK(trace_import(in[b], out[b], NULL, NULL, &e), &e);
	}
	CHECK(same_file(out[0], out[1]));
	for (int b = 0; b < 2; b++) {
		char path[600];
		snprintf(path, sizeof path, "%s/%s/actions0.txt", test_tmpdir, dirs[b]);
		copy_text(DATA "/simgrid/replay/actions0.txt", path, b);
		snprintf(path, sizeof path, "%s/%s/actions1.txt", test_tmpdir, dirs[b]);
		copy_text(DATA "/simgrid/replay/actions1.txt", path, b);
		snprintf(in[b], sizeof in[b], "%s/%s/idx", test_tmpdir, dirs[b]);
		snprintf(out[b], sizeof out[b], "%s/%s/idx.nlt", test_tmpdir, dirs[b]);
		write_text(in[b], b ? "\xEF\xBB\xBF" "actions0.txt\nactions1.txt\n" : "actions0.txt\nactions1.txt\n");
		CHECK_STR(trace_import_detect(in[b]) ? trace_import_detect(in[b]) : "none", "simgrid");
		CHECK_OK(trace_import(in[b], out[b], NULL, NULL, &e), &e);
	}
	CHECK(same_file(out[0], out[1]));
	for (int b = 0; b < 2; b++) {
		snprintf(in[b], sizeof in[b], "%s/%s/t.meta", test_tmpdir, dirs[b]);
		snprintf(out[b], sizeof out[b], "%s/%s/t.nlt", test_tmpdir, dirs[b]);
		char meta[600];
		snprintf(meta, sizeof meta, "%snumprocs=4\nfileprefix=%s/dumpi/testtrace\nstartime=1296777956\n",
			 b ? "\xEF\xBB\xBF" : "", DATA);
		write_text(in[b], meta);
		CHECK_STR(trace_import_detect(in[b]) ? trace_import_detect(in[b]) : "none", "dumpi");
		CHECK_OK(trace_import(in[b], out[b], NULL, NULL, &e), &e);
	}
	CHECK(same_file(out[0], out[1]));
	/* encode: the DUMPI archive's text, with the mark, encodes to it. */
	struct trace_archive *a;
	const char *txt = test_tmppath("plain/t.txt"), *txt_bom = test_tmppath("bom/t.txt");
	const char *back = test_tmppath("bom/back.nlt");
	CHECK_OK(trace_archive_open(&a, out[0], &e), &e);
	FILE *f = fopen(txt, "w");
	CHECK_OK(trace_dump(a, -1, f, &e), &e);
	fclose(f);
	trace_archive_close(a);
	copy_text(txt, txt_bom, true);
	CHECK_OK(trace_encode_text(txt_bom, back, NULL, &e), &e);
	CHECK(same_file(out[0], back));
}

int main(void)
{
	test_tmpdir_make("import");
	TEST_RUN(test_dumpi_testtrace);
	TEST_RUN(test_dumpi_testbgp);
	TEST_RUN(test_dumpi_moved);
	TEST_RUN(test_dumpi_numprocs_short);
	TEST_RUN(test_dumpi_rank_file_swapped);
	TEST_RUN(test_dumpi_mem_errors);
	TEST_RUN(test_dumpi_communicators);
	TEST_RUN(test_dumpi_calls);
	TEST_RUN(test_dumpi_group_outside);
	TEST_RUN(test_dumpi_groups);
	TEST_RUN(test_dumpi_group_ops);
	TEST_RUN(test_dumpi_split_many);
	TEST_RUN(test_simgrid_ti32);
	TEST_RUN(test_simgrid_isend_test_wait);
	TEST_RUN(test_simgrid_datatypes_and_v);
	TEST_RUN(test_simgrid_old_form_and_errors);
	TEST_RUN(test_simgrid_split_index);
	TEST_RUN(test_simgrid_per_rank_files);
	TEST_RUN(test_simgrid_index_mismatch);
	TEST_RUN(test_detect_and_escape);
	TEST_RUN(test_byte_order_mark);
	test_tmpdir_remove();
	return test_done();
}
