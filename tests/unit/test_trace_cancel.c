/* Unit tests: format version 2 and MPI_Cancel through traces/: version-1
 * archives still read and encode to their own bytes, version 1 cannot
 * hold a cancel op (writer and reader both say so), the cancel op's
 * outcome through the codec, text form and verify, and the DUMPI importer
 * on a trace with cancelled wildcard receives (written by the tests'
 * minimal DUMPI writer), which then replays to completion. */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_synth.h"
#include "core/error.h"
#include "import_helpers.h"
#include "test.h"
#include "traces/trace.h"
#include "traces/traces_internal.h"

/* A 1-rank archive: init, irecv, cancel (outcome `outcome`: 1, 0, or -1
 * for no_outcome; 2 for an invalid n_done of 2), wait, finalize. */
static int write_cancel_archive(const char *path, int outcome, struct nl_err *e)
{
	const char *sp = test_tmppath("cancel.nls");
	struct trace_stream_writer *w;
	struct trace_op ops[] = {
		{.kind = TOP_INIT},
		{.kind = TOP_IRECV, .t_ps = 10, .dur_ps = 5, .peer = TRACE_ANY_SOURCE, .tag = TRACE_ANY_TAG, .bytes = 8,
		 .req = 1},
		{.kind = TOP_CANCEL, .t_ps = 20, .dur_ps = 5, .req = 1, .n_done = outcome > 0 ? (uint32_t)outcome : 0,
		 .flags = outcome < 0 ? TRACE_F_NO_OUTCOME : 0},
		{.kind = TOP_WAIT, .t_ps = 30, .dur_ps = 5, .req = 1},
		{.kind = TOP_FINALIZE, .t_ps = 40},
	};
	int rc = trace_stream_open(&w, 0, sp, e);
	for (size_t i = 0; !rc && i < sizeof ops / sizeof *ops; i++)
		rc = trace_stream_append(w, &ops[i], e);
	if (rc) {
		trace_stream_abort(w);
		return rc;
	}
	if ((rc = trace_stream_close(w, NULL, NULL, NULL, e)))
		return rc;
	struct trace_manifest m = {.n_ranks = 1, .application = "a", .command_line = "", .machine = "",
				   .recorder = "test", .mpi_library = ""};
	rc = trace_archive_write(path, &m, &sp, e);
	unlink(sp);
	return rc;
}

/* Version 2 added the cancel op. A version-1 archive written by the
 * version-1 code (tests/data/traces/nlt/testbgp-v1.nlt: `netloom trace
 * convert` of dumpi/testbgp.meta at commit 69cd943) still opens, verifies
 * and dumps; its dump encodes back to the same version-1 bytes; a
 * version-1 header over a stream holding a cancel op is refused. */
static void test_format_versions(void)
{
	struct nl_err e = {0};
	const char *v1 = TEST_SRC("tests/data/traces/nlt/testbgp-v1.nlt");
	char txt[512], back[512];
	snprintf(txt, sizeof txt, "%s", test_tmppath("v1.txt"));
	snprintf(back, sizeof back, "%s", test_tmppath("v1back.nlt"));
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, v1, &e), &e);
	if (!a)
		return;
	CHECK_UINT(trace_archive_manifest(a)->format_version, ==, 1);
	CHECK_OK(trace_archive_verify(a, &e), &e);
	struct trace_stats st;
	CHECK_OK(trace_archive_stats(a, &st, &e), &e);
	CHECK_UINT(st.ops, ==, 2723);
	CHECK_UINT(st.calls[TOP_CANCEL], ==, 0);
	FILE *f = fopen(txt, "w");
	CHECK_OK(trace_dump(a, -1, f, &e), &e);
	fclose(f);
	trace_archive_close(a);
	CHECK_OK(trace_encode_text(txt, back, NULL, &e), &e);
	size_t n1, n2;
	uint8_t *x = test_slurp(v1, &n1), *y = test_slurp(back, &n2);
	CHECK(x && y && n1 == n2 && !memcmp(x, y, n1));
	free(y);

	/* A version-2 archive with a cancel op relabelled version 1 (header
	 * hash fixed): the reader names the op it cannot accept. */
	const char *p2 = test_tmppath("v2.nlt"), *bad = test_tmppath("v2as1.nlt");
	CHECK_OK(write_cancel_archive(p2, 0, &e), &e);
	y = test_slurp(p2, &n2);
	CHECK(y != NULL);
	if (y) {
		trace_put_u32(y + 8, 1);
		trace_put_u64(y + 56, trace_xxh64(y, 56, 0));
		test_spit(bad, y, n2);
		CHECK_OK(trace_archive_open(&a, bad, &e), &e);
		if (a) {
			CHECK_ERR(trace_archive_verify(a, &e), NL_ECORRUPT, &e,
				  "op kind cancel is not in format version 1");
			trace_archive_close(a);
		}
	}
	free(x);
	free(y);
}

static void test_cancel_op_text_and_verify(void)
{
	/* The three outcomes through dump (and back: same bytes), and verify
	 * refusing an n_done of 2. A version-1 stream refuses the op. */
	struct nl_err e = {0};
	static const char *const want[] = {"cancel t=20 dur=5 req=1 n_done=1\n", "cancel t=20 dur=5 req=1\n",
					   "cancel t=20 dur=5 flags=no_outcome req=1\n"};
	for (int k = 0; k < 3; k++) {
		int outcome = k == 0 ? 1 : k == 1 ? 0 : -1;
		const char *p = test_tmppath("c.nlt"), *txt = test_tmppath("c.txt"), *back = test_tmppath("c2.nlt");
		struct trace_archive *a;
		CHECK_OK(write_cancel_archive(p, outcome, &e), &e);
		CHECK_OK(trace_archive_open(&a, p, &e), &e);
		if (!a)
			continue;
		CHECK_OK(trace_archive_verify(a, &e), &e);
		FILE *f = fopen(txt, "w");
		CHECK_OK(trace_dump(a, -1, f, &e), &e);
		fclose(f);
		trace_archive_close(a);
		size_t n, n2;
		char *t = (char *)test_slurp(txt, &n);
		uint8_t *x = test_slurp(p, &n2);
		CHECK(t && strstr(t, "\nnetloom-trace 2\n") && strstr(t, want[k]));
		free(t);
		CHECK_OK(trace_encode_text(txt, back, NULL, &e), &e);
		size_t n3;
		uint8_t *y = test_slurp(back, &n3);
		CHECK(x && y && n2 == n3 && !memcmp(x, y, n2));
		free(x);
		free(y);
	}
	struct trace_archive *a;
	const char *p = test_tmppath("bad.nlt");
	CHECK_OK(write_cancel_archive(p, 2, &e), &e);
	CHECK_OK(trace_archive_open(&a, p, &e), &e);
	if (a) {
		CHECK_ERR(trace_archive_verify(a, &e), NL_ECORRUPT, &e, "op 2 (cancel): cancel outcome n_done=2: expected 0 or 1");
		trace_archive_close(a);
	}
	struct trace_stream_writer *w;
	struct trace_write_opts o = {.format_version = 1};
	struct trace_op op = {.kind = TOP_CANCEL, .req = 1};
	CHECK_OK(trace_stream_open_opts(&w, 0, test_tmppath("v1.nls"), &o, &e), &e);
	if (w) {
		CHECK_ERR(trace_stream_append(w, &op, &e), NL_EUNSUPPORTED, &e,
			  "a cancel op needs format version 2 or later (this stream writes version 1)");
		trace_stream_abort(w);
	}
}

/* HPCC's MPIRandomAccess in miniature, per rank r of 2: a wildcard irecv
 * matched by the peer's message, then wildcard irecvs cancelled (status
 * with cancelled = 1; one completed without status and asked with
 * MPI_Test_cancelled), a barrier, and an exchange on tag 9 that a
 * receive left posted would steal: without the cancels the replay
 * deadlocks. */
static void write_dumpi_cancel_rank(const char *path, uint32_t rank)
{
	struct dw w = {.n = 0};
	int32_t peer = 1 - (int32_t)rank;
	uint64_t body = dw_begin(&w);
	rec(&w, DL_Init, 0);
	put32(&w, 0);
	for (int k = 0; k < 3; k++) { /* irecv any/any (req 1), any/any (req 2), any/tag 3 (req 3) */
		rec(&w, DL_Irecv, 10 + 10 * (uint32_t)k);
		put32(&w, 1);
		put16(&w, 9);
		put32(&w, (uint32_t)-1);
		put32(&w, k == 2 ? 3 : (uint32_t)-1);
		put16(&w, DH_COMM_WORLD);
		put32(&w, 1 + (uint32_t)k);
		if (k == 0) {
			rec(&w, DL_Send, 15);
			put32(&w, 1);
			put16(&w, 9);
			put32(&w, (uint32_t)peer);
			put32(&w, 5);
			put16(&w, DH_COMM_WORLD);
			rec(&w, DL_Wait, 18); /* with status: not cancelled */
			w.p[w.n - 13] |= 1;   /* mask: statuses recorded */
			put32(&w, 1);
			put32(&w, 1);
			put32(&w, 4);
			put32(&w, (uint32_t)peer);
			put8(&w, 0);
			put8(&w, 0);
			put32(&w, 5);
			continue;
		}
		rec(&w, DL_Cancel, 12 + 10 * (uint32_t)k);
		put32(&w, 1 + (uint32_t)k);
		rec(&w, DL_Wait, 14 + 10 * (uint32_t)k);
		put32(&w, 1 + (uint32_t)k);
		if (k == 1) { /* status says cancelled */
			w.p[w.n - 4 - 13] |= 1;
			put32(&w, 1);
			put32(&w, 0);
			put32(&w, (uint32_t)-1);
			put8(&w, 1);
			put8(&w, 0);
			put32(&w, (uint32_t)-1);
		} else { /* no status; MPI_Test_cancelled says cancelled */
			rec(&w, DL_Test_cancelled, 16 + 10 * (uint32_t)k);
			w.p[w.n - 13] |= 1;
			put32(&w, 1);
			put32(&w, 0);
			put32(&w, (uint32_t)-1);
			put8(&w, 1);
			put8(&w, 0);
			put32(&w, 3);
			put32(&w, 1);
		}
	}
	rec(&w, DL_Barrier, 50);
	put16(&w, DH_COMM_WORLD);
	rec(&w, DL_Send, 60);
	put32(&w, 1);
	put16(&w, 9);
	put32(&w, (uint32_t)peer);
	put32(&w, 9);
	put16(&w, DH_COMM_WORLD);
	rec(&w, DL_Recv, 70);
	put32(&w, 1);
	put16(&w, 9);
	put32(&w, (uint32_t)peer);
	put32(&w, 9);
	put16(&w, DH_COMM_WORLD);
	rec(&w, DL_Finalize, 80);
	dw_finish(&w, body, path);
}

static void test_dumpi_cancel(void)
{
	struct nl_err e = {0};
	const char *meta = dw_write_trace("cx", 2, write_dumpi_cancel_rank);
	struct warns w = {0};
	const char *nlt = test_tmppath("cx.nlt");
	CHECK_OK(trace_import(meta, nlt, collect, &w, &e), &e);
	CHECK(!has_warn(&w, "not converted: MPI_Cancel x2 (no netloom operation; its time counts as compute)"));
	CHECK(has_warn(&w, "not converted: MPI_Test_cancelled x2 (a local query: its answer is the outcome of the "
			   "cancel op)"));
	/* Each rank: cancel of req 2 (from its status) and of req 3 (from
	 * MPI_Test_cancelled), both cancelled. */
	struct trace_archive *a;
	CHECK_OK(trace_archive_open(&a, nlt, &e), &e);
	CHECK_UINT(trace_archive_manifest(a)->format_version, ==, 2);
	for (uint32_t r = 0; r < 2; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		char got[128] = "";
		size_t len = 0;
		CHECK_OK(trace_rank_open(a, r, &rd, &e), &e);
		while (trace_rank_next(rd, &op, &e) == 1)
			if (op.kind == TOP_CANCEL)
				len += (size_t)snprintf(got + len, sizeof got - len, "[req %u done %u flags %u]", op.req,
							op.n_done, op.flags);
		trace_rank_close(rd);
		CHECK_STR(got, "[req 2 done 1 flags 0][req 3 done 1 flags 0]");
	}
	trace_archive_close(a);

	/* Replay: the cancelled wildcard receives leave the tag-9 messages to
	 * the receives meant for them. */
	struct syn_run run;
	CHECK_OK(syn_replay_archive(nlt, NULL, &run), &run.err);
	if (run.app) {
		const struct app_results *res = app_results(run.app);
		CHECK_UINT(res->cancels, ==, 4);
		CHECK_UINT(res->cancelled, ==, 4);
		CHECK_UINT(res->cancel_diverged, ==, 0);
		CHECK_UINT(res->unmatched_msgs, ==, 0);
	}
	syn_run_free(&run);
}

int main(void)
{
	test_tmpdir_make("trace_cancel");
	TEST_RUN(test_format_versions);
	TEST_RUN(test_cancel_op_text_and_verify);
	TEST_RUN(test_dumpi_cancel);
	test_tmpdir_remove();
	return test_done();
}
