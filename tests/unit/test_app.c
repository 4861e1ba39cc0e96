/* Unit tests: replay semantics (emu/app) on synthetic traces.
 *
 * The network is the analytic backend with latency 1 us and 8 Gbit/s, so a
 * message of S bytes takes exactly 1000 ns + S ns: every expected time
 * below is that closed form applied to the protocol steps.
 */
#include <jansson.h>

#include "app/app.h"
#include "app_synth.h"
#include "core/error.h"
#include "core/output.h"
#include "test.h"

#define US 1000000ull /* ps */
#define NS 1000ull

static const char *const net_1us[] = {"latency_ns=1000", "bandwidth_gbps=8", NULL};

static uint64_t finish(const struct syn_run *run, uint32_t r)
{
	return app_results(run->app)->ranks[r].finish_ps;
}

/* --- protocols ------------------------------------------------------------ */

static void test_eager_pingpong(void)
{
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_send(&s, 0, 1, 0, 100);
	syn_recv(&s, 0, 1, 0, 100);
	syn_recv(&s, 1, 0, 0, 100);
	syn_send(&s, 1, 0, 0, 100);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	CHECK_UINT(res->runtime_ps, ==, 2 * (1 * US + 100 * NS));
	CHECK_UINT(res->msgs, ==, 2);
	CHECK_UINT(res->bytes, ==, 200);
	CHECK_UINT(res->eager_msgs, ==, 2);
	CHECK_UINT(res->net_msgs, ==, 2);
	/* rank 1 waited for rank 0's send? No: the send was posted at 0, when
	 * it posted its receive, so its 1.1 us are communication. */
	CHECK_UINT(res->ranks[1].wait_ps, ==, 0);
	CHECK_UINT(res->ranks[1].comm_ps, ==, 1 * US + 100 * NS);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_rendezvous_timing(void)
{
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_send(&s, 0, 1, 0, 10000);
	syn_compute(&s, 1, 50 * US);
	syn_recv(&s, 1, 0, 0, 10000);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	/* RTS arrives at 1 us, unexpected; the receive is posted at 50 us,
	 * CTS arrives at 51 us, DATA at 51 + 1 + 10 = 62 us. */
	CHECK_UINT(finish(&run, 1), ==, 62 * US);
	CHECK_UINT(finish(&run, 0), ==, 62 * US);
	CHECK_UINT(res->rndv_msgs, ==, 1);
	CHECK_UINT(res->net_msgs, ==, 3);
	/* The sender waited for a late receiver (posted at 50 us): 50 us of
	 * waiting, 12 us of protocol. */
	CHECK_UINT(res->ranks[0].wait_ps, ==, 50 * US);
	CHECK_UINT(res->ranks[0].comm_ps, ==, 12 * US);
	CHECK_UINT(res->ranks[1].compute_ps, ==, 50 * US);
	CHECK_UINT(res->ranks[1].comm_ps, ==, 12 * US);
	/* The data message's latency: 1 us + 10 us. */
	struct app_latency l;
	app_latency(run.app, -1, &l);
	CHECK_UINT(l.n, ==, 1);
	CHECK_UINT(l.max_ps, ==, 11 * US);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_rendezvous_get(void)
{
	/* rndv_protocol=get: RTS, then the receiver pulls the data, then FIN.
	 * Late receiver (posts at 50 us): data arrives at 50 + 1 + 10 = 61 us,
	 * the sender learns at 62 us. Early receiver: 1 + 11 = 12 us, 13 us. */
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "rndv_protocol=get", NULL};
	for (int late = 0; late < 2; late++) {
		struct syn s;
		struct syn_run run;
		syn_init(&s, 2);
		syn_send(&s, 0, 1, 0, 10000);
		if (late)
			syn_compute(&s, 1, 50 * US);
		syn_recv(&s, 1, 0, 0, 10000);
		CHECK_OK(syn_replay(&s, set, &run), &run.err);
		uint64_t t0 = late ? 50 * US : 1 * US;
		CHECK_UINT(finish(&run, 1), ==, t0 + 11 * US);
		CHECK_UINT(finish(&run, 0), ==, t0 + 12 * US);
		CHECK_UINT(app_results(run.app)->net_msgs, ==, 3);
		CHECK_UINT(app_results(run.app)->ranks[0].wait_ps, ==, late ? 50 * US : 0);
		syn_run_free(&run);
		syn_free(&s);
	}
}

static void test_eager_threshold_boundary(void)
{
	/* Exactly eager_threshold bytes goes eagerly, one more uses RTS/CTS. */
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "eager_threshold=1000", NULL};
	for (uint64_t bytes = 1000; bytes <= 1001; bytes++) {
		struct syn s;
		struct syn_run run;
		syn_init(&s, 2);
		syn_send(&s, 0, 1, 0, bytes);
		syn_recv(&s, 1, 0, 0, bytes);
		CHECK_OK(syn_replay(&s, set, &run), &run.err);
		uint64_t want = bytes == 1000 ? 1 * US + 1000 * NS : 3 * US + 1001 * NS;
		CHECK_UINT(finish(&run, 1), ==, want);
		CHECK_UINT(finish(&run, 0), ==, bytes == 1000 ? 0 : want);
		syn_run_free(&run);
		syn_free(&s);
	}
}

static void test_ssend_bsend(void)
{
	/* Ssend of 8 bytes waits for the matching receive (rendezvous);
	 * Bsend of 1 MB returns at once. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_p2p(&s, 0, TOP_SSEND, 1, 0, 8);
	syn_p2p(&s, 0, TOP_BSEND, 1, 1, 1 << 20);
	syn_compute(&s, 1, 10 * US);
	syn_recv(&s, 1, 0, 0, 8);
	syn_recv(&s, 1, 0, 1, 1 << 20);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	/* Ssend: RTS at 1 us; recv at 10 us -> CTS at 11, DATA at 11 + 1 +
	 * 0.008 = 12.008 us. Bsend posted then, returns at once. */
	CHECK_UINT(finish(&run, 0), ==, 12 * US + 8 * NS);
	/* Bsend's RTS (sent at 12.008) arrives at 13.008; the receive posted
	 * at 12.008 answers; DATA arrives at 14.008 + 1 + 1048.576 us. */
	CHECK_UINT(finish(&run, 1), ==, 12 * US + 8 * NS + 3 * US + 1048576 * NS);
	syn_run_free(&run);
	syn_free(&s);
}

/* --- matching ------------------------------------------------------------- */

static void test_non_overtaking(void)
{
	/* Three same-tag messages from rank 1: a 4000-byte eager one, then two
	 * of 10 bytes that overtake it in the network (they arrive at 1.01 us,
	 * it at 5 us). Receives must still match them in send order: the
	 * first receive completes at 5 us, not 1.01 us. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_isend(&s, 1, 0, 3, 4000, 1);
	syn_isend(&s, 1, 0, 3, 10, 2);
	syn_isend(&s, 1, 0, 3, 10, 3);
	static const uint32_t reqs[] = {1, 2, 3};
	syn_waitlist(&s, 1, TOP_WAITALL, reqs, 3, 0);
	syn_recv(&s, 0, 1, 3, 4000);
	syn_compute(&s, 0, 10 * US);
	syn_recv(&s, 0, 1, 3, 10);
	syn_recv(&s, 0, TRACE_ANY_SOURCE, TRACE_ANY_TAG, 10);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	CHECK_UINT(finish(&run, 0), ==, 15 * US);
	CHECK_UINT(app_results(run.app)->unmatched_msgs, ==, 0);
	syn_run_free(&run);
	syn_free(&s);
}

/* The receives' matches in call order: message sizes and receive ops. */
struct match_log {
	uint64_t bytes[16], recv_op[16];
	uint32_t n;
};

static void match_log_add(void *ctx, const struct app_match_info *mi)
{
	struct match_log *log = ctx;
	if (log->n < 16) {
		log->bytes[log->n] = mi->bytes;
		log->recv_op[log->n] = mi->recv_op;
	}
	log->n++;
}

static void test_held_order(void)
{
	/* Twelve same-tag eager messages from rank 1, sized so that the
	 * network reorders them in every way the held list sees: the first
	 * batch (posted at 0, message k arrives at 1 us + size_k ns) arrives
	 * in seq order 2 4 6 5 1 0 7 3: into an empty list, after the tail,
	 * into the middle, at the head; seq 0 then drains 1 and 2 and stops at
	 * the gap of 3, 7 goes after a tail left by the drain, and 3 drains
	 * the rest. The second batch (at 20 us) arrives in reverse, each at
	 * the head. Rank 0's blocking receives must take them in send order
	 * (MPI 3.1 §3.5 non-overtaking), whatever the arrival order. */
	static const uint64_t size[12] = {1200, 1000, 10, 2000, 20, 500, 30, 1500, 70, 60, 50, 40};
	static const uint32_t reqs1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, reqs2[4] = {9, 10, 11, 12};
	struct syn s;
	struct syn_run run;
	struct match_log log = {0};
	syn_init(&s, 2);
	for (uint32_t k = 0; k < 8; k++)
		syn_isend(&s, 1, 0, 7, size[k], k + 1);
	syn_waitlist(&s, 1, TOP_WAITALL, reqs1, 8, 0);
	syn_compute(&s, 1, 20 * US);
	for (uint32_t k = 8; k < 12; k++)
		syn_isend(&s, 1, 0, 7, size[k], k + 1);
	syn_waitlist(&s, 1, TOP_WAITALL, reqs2, 4, 0);
	for (uint32_t k = 0; k < 12; k++)
		syn_recv(&s, 0, 1, 7, size[k]);
	CHECK_OK(syn_replay_hook(&s, net_1us, match_log_add, &log, &run), &run.err);
	CHECK_UINT(log.n, ==, 12);
	for (uint32_t k = 0; k < 12 && k < log.n; k++) {
		CHECK_UINT(log.bytes[k], ==, size[k]);
		CHECK_UINT(log.recv_op[k], ==, k);
	}
	/* Seq 3 completes the first batch at 3 us, seq 8 (70 bytes) the
	 * second at 20 + 1.07 us. */
	CHECK_UINT(finish(&run, 0), ==, 21 * US + 70 * NS);
	CHECK_UINT(app_results(run.app)->unmatched_msgs, ==, 0);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_wildcards(void)
{
	/* Rank 0 posts recv(ANY_SOURCE, tag 5) then recv(2, ANY_TAG). Rank 1
	 * sends tag 5 at 10 us, rank 2 sends tag 9 at 2 us and tag 5 at 20 us.
	 * The wildcard receive must take rank 1's message (rank 2's first one
	 * has tag 9): done at 11 us; recv(2, ANY_TAG) takes the tag-9 message
	 * that waited as unexpected, at once; rank 2's tag-5 message stays
	 * unmatched. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 3);
	syn_recv(&s, 0, TRACE_ANY_SOURCE, 5, 8);
	syn_recv(&s, 0, 2, TRACE_ANY_TAG, 8);
	syn_compute(&s, 1, 10 * US);
	syn_send(&s, 1, 0, 5, 8);
	syn_compute(&s, 2, 2 * US);
	syn_send(&s, 2, 0, 9, 8);
	syn_compute(&s, 2, 18 * US);
	syn_send(&s, 2, 0, 5, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	CHECK_UINT(finish(&run, 0), ==, 11 * US + 8 * NS);
	CHECK_UINT(app_results(run.app)->unmatched_msgs, ==, 1);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_wildcard_post_order(void)
{
	/* A specific receive posted before a wildcard one takes the first
	 * message even though both match; the wildcard gets the second. Rank 0
	 * posts irecv(1, 0) [req 1] then irecv(ANY, ANY) [req 2], waits for req
	 * 2 only. Rank 1 sends 8 bytes at 0 and 4000 bytes at 10 us: req 2 gets
	 * the 4000-byte message at 10 + 1 + 4 = 15 us. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_irecv(&s, 0, 1, 0, 8, 1);
	syn_irecv(&s, 0, TRACE_ANY_SOURCE, TRACE_ANY_TAG, 4000, 2);
	syn_wait(&s, 0, 2);
	syn_wait(&s, 0, 1);
	syn_send(&s, 1, 0, 0, 8);
	syn_compute(&s, 1, 10 * US);
	syn_send(&s, 1, 0, 0, 4000);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	CHECK_UINT(finish(&run, 0), ==, 15 * US);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_unexpected_and_probe(void)
{
	/* Rank 1 sends at 0 (arrives 1.008 us); rank 0 computes 5 us, then
	 * probes (the message waits as unexpected: returns at once) and
	 * receives at once. Then it probes for a message rank 1 sends at
	 * 20 us: blocks until 21.008. Iprobe never blocks. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_send(&s, 1, 0, 1, 8);
	syn_compute(&s, 1, 20 * US);
	syn_send(&s, 1, 0, 2, 8);
	syn_compute(&s, 0, 5 * US);
	syn_p2p(&s, 0, TOP_PROBE, 1, 1, 0);
	syn_recv(&s, 0, 1, 1, 8);
	syn_p2p(&s, 0, TOP_IPROBE, 1, 2, 0);
	syn_p2p(&s, 0, TOP_PROBE, TRACE_ANY_SOURCE, 2, 0);
	syn_recv(&s, 0, 1, 2, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	CHECK_UINT(finish(&run, 0), ==, 21 * US + 8 * NS);
	/* rank 0 waited in the probe for a sender that posted at 20 us. */
	CHECK_UINT(res->ranks[0].wait_ps, ==, 15 * US);
	CHECK_UINT(res->ranks[0].comm_ps, ==, 1 * US + 8 * NS);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_probe_does_not_see_posted(void)
{
	/* A message that matches a posted receive is not seen by a probe:
	 * rank 0 posts irecv(1, 0), then probes (1, 0): the only message goes
	 * to the receive, so the probe waits forever. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_irecv(&s, 0, 1, 0, 8, 7);
	syn_p2p(&s, 0, TOP_PROBE, 1, 0, 0);
	syn_send(&s, 1, 0, 0, 8);
	CHECK_INT(syn_replay(&s, net_1us, &run), ==, NL_EDEADLOCK);
	syn_run_free(&run);
	syn_free(&s);
}

/* --- deadlocks ------------------------------------------------------------ */

struct lines {
	char buf[4096];
};

static void lines_add(void *ctx, const char *line)
{
	struct lines *l = ctx;
	strncat(l->buf, line, sizeof l->buf - strlen(l->buf) - 2);
	strcat(l->buf, "\n");
}

static void test_send_send_deadlock(void)
{
	/* Both ranks Send 1 MB to each other first: rendezvous, nobody
	 * receives, real MPI hangs too. Below the eager threshold it completes. */
	for (int big = 0; big < 2; big++) {
		struct syn s;
		struct syn_run run;
		uint64_t bytes = big ? 1 << 20 : 1024;
		syn_init(&s, 2);
		for (uint32_t r = 0; r < 2; r++) {
			syn_send(&s, r, (int32_t)(1 - r), 7, bytes);
			syn_recv(&s, r, (int32_t)(1 - r), 7, bytes);
		}
		int rc = syn_replay(&s, net_1us, &run);
		if (!big) {
			CHECK_OK(rc, &run.err);
			CHECK_UINT(app_results(run.app)->runtime_ps, ==, 1 * US + 1024 * NS);
		} else {
			CHECK_INT(rc, ==, NL_EDEADLOCK);
			CHECK(strstr(run.err.msg, "2 of 2 ranks wait forever") != NULL);
			struct lines l = {""};
			CHECK_UINT(app_deadlock_report(run.app, lines_add, &l), ==, 2);
			CHECK(strstr(l.buf, "rank 0: blocked in op 0 send to 1 tag 7 comm 0 (1048576 bytes)") != NULL);
			CHECK(strstr(l.buf, "rank 1: blocked in op 0 send to 0 tag 7 comm 0 (1048576 bytes)") != NULL);
			CHECK(strstr(l.buf, "waits for: send to 1 tag 7 comm 0, 1048576 bytes, rendezvous: no "
					    "matching receive posted at world rank 1") != NULL);
			json_t *j = app_deadlock_json(run.app);
			json_t *st = json_object_get(j, "stuck");
			CHECK_UINT(json_array_size(st), ==, 2);
			CHECK_STR(json_string_value(json_object_get(json_array_get(st, 1), "op")), "send");
			CHECK_INT(json_integer_value(json_object_get(json_array_get(st, 1), "peer")), ==, 0);
			json_decref(j);
		}
		syn_run_free(&run);
		syn_free(&s);
	}
}

static void test_recv_deadlock_report(void)
{
	/* Rank 1 waits on a receive from rank 0, which finishes without
	 * sending; rank 2 is in a barrier rank 0 never joins. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 3);
	syn_compute(&s, 0, 1 * US);
	syn_irecv(&s, 1, 0, 4, 8, 11);
	syn_wait(&s, 1, 11);
	syn_coll(&s, 2, TOP_BARRIER, 0, 0, 0, 0);
	CHECK_INT(syn_replay(&s, net_1us, &run), ==, NL_EDEADLOCK);
	/* Rank 0's stream stops without a finalize (a cut trace): the
	 * error and the waiting rank's line said only what the others wait
	 * for, not that its peer had gone. */
	CHECK_STR(run.err.msg, "replay deadlock at t=0.000001000 s: 2 of 3 ranks wait forever (rank 1 in op 1 wait); "
			       "1 rank ended without finalize (rank 0 after 1 op): a cut trace?");
	struct lines l = {""};
	CHECK_UINT(app_deadlock_report(run.app, lines_add, &l), ==, 2);
	CHECK(strstr(l.buf, "rank 1: blocked in op 1 wait on request 11") != NULL);
	CHECK(strstr(l.buf, "waits for: recv from 0 tag 4 comm 0: no matching message from world rank 0, "
			    "whose trace ended after 1 op without finalize\n") != NULL);
	CHECK(strstr(l.buf, "rank 2: blocked in op 0 barrier on comm 0") != NULL);
	CHECK(strstr(l.buf, "barrier (") != NULL);
	syn_run_free(&run);
	/* Finalized, it is said so, and the error has no hint. */
	syn_add(&s, 0, TOP_FINALIZE);
	CHECK_INT(syn_replay(&s, net_1us, &run), ==, NL_EDEADLOCK);
	CHECK_STR(run.err.msg, "replay deadlock at t=0.000001000 s: 2 of 3 ranks wait forever (rank 1 in op 1 wait)");
	struct lines f = {""};
	CHECK_UINT(app_deadlock_report(run.app, lines_add, &f), ==, 2);
	CHECK(strstr(f.buf, "no matching message from world rank 0, which has finalized\n") != NULL);
	syn_run_free(&run);
	syn_free(&s);
}

/* --- requests --------------------------------------------------------------- */

static void test_persistent_requests(void)
{
	/* Two rounds of start/wait on a persistent send and receive pair, then
	 * request_free. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_p2p(&s, 0, TOP_SEND_INIT, 1, 0, 100)->req = 5;
	syn_p2p(&s, 1, TOP_RECV_INIT, 0, 0, 100)->req = 6;
	for (int round = 0; round < 2; round++) {
		syn_add(&s, 0, TOP_START)->req = 5;
		syn_wait(&s, 0, 5);
		syn_add(&s, 1, TOP_START)->req = 6;
		syn_wait(&s, 1, 6);
		syn_compute(&s, 0, 10 * US);
	}
	syn_add(&s, 0, TOP_REQUEST_FREE)->req = 5;
	syn_add(&s, 1, TOP_REQUEST_FREE)->req = 6;
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	CHECK_UINT(res->msgs, ==, 2);
	/* Second message sent at 10 us, arrives at 11.1 us. */
	CHECK_UINT(finish(&run, 1), ==, 11 * US + 100 * NS);
	CHECK_UINT(res->unknown_requests, ==, 0);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_test_family(void)
{
	/* MPI_Test completes only what is complete at that instant: the test
	 * at 0.5 us leaves the receive pending, the wait takes it at 1.008 us;
	 * testall at 5 us finds both new requests complete. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_irecv(&s, 0, 1, 0, 8, 1);
	syn_compute(&s, 0, US / 2);
	syn_add(&s, 0, TOP_TEST)->req = 1;
	syn_wait(&s, 0, 1);
	syn_irecv(&s, 0, 1, 0, 8, 1); /* the id is reusable */
	syn_irecv(&s, 0, 1, 0, 8, 2);
	syn_compute(&s, 0, 5 * US);
	static const uint32_t both[] = {1, 2};
	syn_waitlist(&s, 0, TOP_TESTALL, both, 2, 0);
	syn_wait(&s, 0, 1); /* already retired by testall: unknown, returns */
	syn_wait(&s, 0, 9); /* never created: unknown too, returns */
	syn_send(&s, 1, 0, 0, 8);
	syn_send(&s, 1, 0, 0, 8);
	syn_send(&s, 1, 0, 0, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	/* 1.008 us for the first, then compute 5 us, everything there. */
	CHECK_UINT(finish(&run, 0), ==, 6 * US + 8 * NS);
	/* Told apart: the first was created (and completed), the second not. */
	CHECK_UINT(res->unknown_requests, ==, 2);
	CHECK_UINT(res->reqs_completed_before, ==, 1);
	CHECK_UINT(res->reqs_never_created, ==, 1);
	CHECK_UINT(res->never_created_rank, ==, 0);
	CHECK_UINT(res->never_created_op, ==, 9);
	CHECK_UINT(res->never_created_kind, ==, TOP_WAIT);
	CHECK_UINT(res->never_created_id, ==, 9);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_waitany_recorded(void)
{
	/* waitany follows the recording: it waits for the request the trace
	 * says completed (listed first), here req 2 whose message comes at
	 * 20 us, although req 1's arrives at 1 us. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_irecv(&s, 0, 1, 1, 8, 1);
	syn_irecv(&s, 0, 1, 2, 8, 2);
	static const uint32_t order[] = {2, 1};
	syn_waitlist(&s, 0, TOP_WAITANY, order, 2, 1);
	syn_send(&s, 1, 0, 1, 8);
	syn_compute(&s, 1, 19 * US);
	syn_send(&s, 1, 0, 2, 8);
	syn_wait(&s, 0, 1);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	CHECK_UINT(finish(&run, 0), ==, 20 * US + 8 * NS);
	syn_run_free(&run);
	syn_free(&s);

	/* Without the recorded completion, any one completes it. */
	syn_init(&s, 2);
	syn_irecv(&s, 0, 1, 1, 8, 1);
	syn_irecv(&s, 0, 1, 2, 8, 2);
	syn_waitlist(&s, 0, TOP_WAITANY, order, 2, 0);
	syn_send(&s, 1, 0, 1, 8);
	syn_compute(&s, 1, 19 * US);
	syn_send(&s, 1, 0, 2, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	CHECK_UINT(finish(&run, 0), ==, 1 * US + 8 * NS);
	syn_run_free(&run);
	syn_free(&s);
}

/* --- communicators and input errors ---------------------------------------------- */

static void test_sub_communicator(void)
{
	/* Comm 5 = world ranks {3, 1}: a send from its rank 0 (world 3) to its
	 * rank 1 (world 1), matched on comm 5 only, and a barrier over it. */
	struct syn s;
	struct syn_run run;
	static const uint32_t members[] = {3, 1};
	syn_init(&s, 4);
	syn_comm(&s, 5, 2, members);
	syn_p2p(&s, 3, TOP_SEND, 1, 0, 8)->comm = 5;
	syn_p2p(&s, 1, TOP_RECV, 0, 0, 8)->comm = 5;
	syn_coll(&s, 3, TOP_BARRIER, 5, 0, 0, 0);
	syn_coll(&s, 1, TOP_BARRIER, 5, 0, 0, 0);
	struct trace_op *split = syn_add(&s, 0, TOP_COMM_SPLIT);
	split->new_comm = 6;
	split = syn_add(&s, 2, TOP_COMM_SPLIT);
	split->new_comm = 6;
	split = syn_add(&s, 1, TOP_COMM_SPLIT);
	split = syn_add(&s, 3, TOP_COMM_SPLIT);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	/* 1 p2p, 2 for the 2-rank barrier, and the split's allgather on 4
	 * ranks by recursive doubling: 8. */
	CHECK_UINT(res->p2p_msgs, ==, 1);
	CHECK_UINT(res->coll_msgs, ==, 2 + 8);
	syn_run_free(&run);
	syn_free(&s);
}

/* Two jobs in one replay (app_jobs_source): job A is the sub-communicator
 * case above (4 ranks, comm 5, a split over its world), job B 2 ranks with
 * a barrier over its world, one over a communicator with a hashed id, and
 * a ping-pong. Each job's world is its own
 * ranks: were A's split or B's barrier over all 6 ranks, the collective
 * would wait forever or count other messages. On the contention-free
 * network (analytic, link_model none) every rank finishes as alone. */
static void jobs_a(struct syn *s)
{
	static const uint32_t members[] = {3, 1};
	syn_init(s, 4);
	syn_comm(s, 5, 2, members);
	syn_p2p(s, 3, TOP_SEND, 1, 0, 8)->comm = 5;
	syn_p2p(s, 1, TOP_RECV, 0, 0, 8)->comm = 5;
	syn_coll(s, 3, TOP_BARRIER, 5, 0, 0, 0);
	syn_coll(s, 1, TOP_BARRIER, 5, 0, 0, 0);
	for (uint32_t r = 0; r < 4; r++)
		syn_add(s, r, TOP_COMM_SPLIT)->new_comm = r % 2 ? UINT32_MAX : 6;
}

static void jobs_b(struct syn *s)
{
	/* A hashed id, as recorders write them (hpcc-8's reach 4280605321). */
	static const uint32_t members[] = {1, 0};
	syn_init(s, 2);
	syn_comm(s, 4294967290u, 2, members);
	syn_coll(s, 0, TOP_BARRIER, 0, 0, 0, 0);
	syn_coll(s, 1, TOP_BARRIER, 0, 0, 0, 0);
	syn_coll(s, 0, TOP_BARRIER, 4294967290u, 0, 0, 0);
	syn_coll(s, 1, TOP_BARRIER, 4294967290u, 0, 0, 0);
	syn_compute(s, 0, 3 * US);
	syn_send(s, 0, 1, 4, 100);
	syn_recv(s, 1, 0, 4, 100);
	syn_send(s, 1, 0, 4, 100);
	syn_recv(s, 0, 1, 4, 100);
}

static void test_two_jobs(void)
{
	struct syn a, b;
	struct syn_run ra, rb, rab;
	jobs_a(&a);
	jobs_b(&b);
	CHECK_OK(syn_replay(&a, net_1us, &ra), &ra.err);
	CHECK_OK(syn_replay(&b, net_1us, &rb), &rb.err);
	a.pos[0] = a.pos[1] = a.pos[2] = a.pos[3] = b.pos[0] = b.pos[1] = 0;
	struct app_source src[2] = {
		{.n_ranks = 4, .n_comms = a.n_comms, .comms = a.comms, .next = syn_next, .ctx = &a},
		{.n_ranks = 2, .n_comms = b.n_comms, .comms = b.comms, .next = syn_next, .ctx = &b},
	};
	struct app_jobs_source *js;
	struct app_source all;
	struct nl_err err = {0};
	CHECK_OK(app_jobs_source_new(&js, src, 2, &all, &err), &err);
	CHECK_UINT(all.n_ranks, ==, 6);
	CHECK_UINT(app_jobs_rank_base(js, 1), ==, 4);
	memset(&rab, 0, sizeof rab);
	CHECK_OK(syn_replay_src(&all, net_1us, &rab), &rab.err);
	const struct app_results *x = app_results(rab.app);
	CHECK_UINT(x->p2p_msgs, ==, 1 + 2);
	CHECK_UINT(x->coll_msgs, ==, 2 + 8 + 2 + 2);
	for (uint32_t r = 0; r < 4; r++)
		CHECK_UINT(finish(&rab, r), ==, finish(&ra, r));
	for (uint32_t r = 0; r < 2; r++)
		CHECK_UINT(finish(&rab, 4 + r), ==, finish(&rb, r));
	CHECK_UINT(finish(&rb, 0), >, 3 * US);
	syn_run_free(&ra);
	syn_run_free(&rb);
	syn_run_free(&rab);
	app_jobs_source_free(js);
	syn_free(&a);
	syn_free(&b);
}

static void test_bad_input(void)
{
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_p2p(&s, 0, TOP_SEND, 1, 0, 8)->comm = 9;
	CHECK_ERR(syn_replay(&s, net_1us, &run), NL_EFORMAT, &run.err,
		  "trace rank 0 op 0 (send): unknown communicator 9 (not in the manifest)");
	syn_run_free(&run);
	syn_free(&s);

	syn_init(&s, 2);
	syn_compute(&s, 1, 1);
	syn_send(&s, 1, 2, 0, 8);
	CHECK_ERR(syn_replay(&s, net_1us, &run), NL_EFORMAT, &run.err,
		  "trace rank 1 op 1 (send): peer 2 outside communicator 0 of 2 ranks");
	syn_run_free(&run);
	syn_free(&s);

	syn_init(&s, 2);
	syn_coll(&s, 0, TOP_BCAST, 0, 5, 8, 8);
	CHECK_ERR(syn_replay(&s, net_1us, &run), NL_EFORMAT, &run.err,
		  "trace rank 0 op 0 (bcast): root 5 outside communicator of 2 ranks");
	syn_run_free(&run);
	syn_free(&s);

	/* Members {3, 1}: world ranks below, inside and above their span. */
	static const uint32_t members[] = {3, 1};
	for (uint32_t r = 0; r < 5; r += 2) {
		char want[96];
		syn_init(&s, 5);
		syn_comm(&s, 4, 2, members);
		syn_coll(&s, r, TOP_BARRIER, 4, 0, 0, 0);
		snprintf(want, sizeof want,
			 "trace rank %u op 0 (barrier): rank %u is not a member of communicator 4", r, r);
		CHECK_ERR(syn_replay(&s, net_1us, &run), NL_EFORMAT, &run.err, want);
		syn_run_free(&run);
		syn_free(&s);
	}

	static const uint32_t dup[] = {0, 0};
	syn_init(&s, 2);
	syn_comm(&s, 4, 2, dup);
	CHECK_ERR(syn_replay(&s, net_1us, &run), NL_EFORMAT, &run.err,
		  "trace manifest: communicator 4 member 1 is world rank 0 (listed twice)");
	syn_run_free(&run);
	syn_free(&s);

	syn_init(&s, 2);
	CHECK_ERR(syn_replay(&s, (const char *const[]){"coll_bcast_algorithm=ring", NULL}, &run), NL_ECONFIG,
		  &run.err,
		  "-s: key 'coll_bcast_algorithm': value 'ring': expected one of auto, linear, binomial, "
		  "knomial, binary, chain, scatter_allgather, scatter_allgather_ring");
	syn_run_free(&run);
	CHECK_ERR(syn_replay(&s, (const char *const[]){"eager_threshold=-1", NULL}, &run), NL_ECONFIG, &run.err,
		  "-s: key 'eager_threshold': value '-1': out of range");
	syn_run_free(&run);
	syn_free(&s);
}

/* --- compute and the ideal network ------------------------------------------------ */

static void test_cpu_factor_and_flops(void)
{
	const char *const set[] = {"cpu_factor=0.5", "cpu_flops=2e9", NULL};
	struct syn s;
	struct syn_run run;
	syn_init(&s, 1);
	syn_compute(&s, 0, 10 * US);
	syn_add(&s, 0, TOP_COMPUTE_FLOPS)->flops = 4e3; /* 2 us at 2 Gflop/s */
	CHECK_OK(syn_replay(&s, set, &run), &run.err);
	CHECK_UINT(finish(&run, 0), ==, 5 * US + 2 * US);
	CHECK_UINT(app_results(run.app)->ranks[0].compute_ps, ==, 7 * US);
	syn_run_free(&run);
	syn_free(&s);
}

/* Deterministic pseudo-random compute times for the ideal-network test. */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

static void test_ideal_equals_compute_critical_path(void)
{
	/* Iterations of (compute c[r][i], collective): with zero latency and
	 * infinite bandwidth every collective is a pure synchronisation, so
	 * the runtime is sum_i max_r c[r][i] exactly, and each rank's wait is
	 * that minus its own compute. Plus a halo exchange (isend/irecv/
	 * waitall to both ring neighbours of 1 MB, rendezvous): also free. */
	const uint32_t p = 7, iters = 20;
	static const uint16_t kinds[] = {TOP_ALLREDUCE, TOP_BARRIER, TOP_ALLTOALL, TOP_BCAST, TOP_ALLGATHER};
	static const uint32_t halo[] = {1, 2, 3, 4};
	struct syn s;
	struct syn_run run;
	uint64_t x = 42, want = 0, per_rank[7] = {0};
	syn_init(&s, p);
	for (uint32_t i = 0; i < iters; i++) {
		uint64_t mx = 0;
		for (uint32_t r = 0; r < p; r++) {
			uint64_t c = 1 + lcg(&x) % (100 * US);
			per_rank[r] += c;
			mx = c > mx ? c : mx;
			syn_compute(&s, r, c);
			syn_coll(&s, r, kinds[i % 5], 0, 0, 1 << (i % 20), 1 << (i % 20));
			uint32_t left = (r + p - 1) % p, right = (r + 1) % p;
			syn_irecv(&s, r, (int32_t)left, 0, 1 << 20, 1);
			syn_irecv(&s, r, (int32_t)right, 0, 1 << 20, 2);
			syn_isend(&s, r, (int32_t)right, 0, 1 << 20, 3);
			syn_isend(&s, r, (int32_t)left, 0, 1 << 20, 4);
			syn_waitlist(&s, r, TOP_WAITALL, halo, 4, 0);
		}
		want += mx;
	}
	const char *const ideal[] = {"ideal=yes", NULL};
	CHECK_OK(syn_replay(&s, ideal, &run), &run.err);
	const struct app_results *res = app_results(run.app);
	CHECK_UINT(res->runtime_ps, ==, want);
	for (uint32_t r = 0; r < p; r++) {
		CHECK_UINT(res->ranks[r].compute_ps, ==, per_rank[r]);
		CHECK_UINT(res->ranks[r].compute_ps + res->ranks[r].comm_ps + res->ranks[r].wait_ps, ==,
			   res->ranks[r].finish_ps);
		CHECK_UINT(res->ranks[r].comm_ps, ==, 0);
	}
	syn_run_free(&run);

	/* On a real network the same trace takes longer, and the
	 * breakdown still adds up. */
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	res = app_results(run.app);
	CHECK_UINT(res->runtime_ps, >, want);
	for (uint32_t r = 0; r < p; r++)
		CHECK_UINT(res->ranks[r].compute_ps + res->ranks[r].comm_ps + res->ranks[r].wait_ps, ==,
			   res->ranks[r].finish_ps);
	syn_run_free(&run);
	syn_free(&s);
}

static void test_determinism(void)
{
	/* Same trace, same settings: byte-identical results. */
	struct syn s;
	uint64_t x = 7;
	syn_init(&s, 9);
	for (uint32_t i = 0; i < 30; i++)
		for (uint32_t r = 0; r < 9; r++) {
			syn_compute(&s, r, lcg(&x) % (10 * US));
			syn_isend(&s, r, (int32_t)((r + 1 + i) % 9), (int32_t)(i % 3), lcg(&x) % 20000, 1);
			syn_irecv(&s, r, TRACE_ANY_SOURCE, (int32_t)(i % 3), 20000, 2);
			static const uint32_t two[] = {1, 2};
			syn_waitlist(&s, r, TOP_WAITALL, two, 2, 0);
			syn_coll(&s, r, TOP_ALLREDUCE, 0, 0, 8u << (i % 18), 0);
		}
	char *out[2];
	for (int k = 0; k < 2; k++) {
		struct syn_run run;
		CHECK_OK(syn_replay(&s, (const char *const[]){"link_model=endpoint", NULL}, &run), &run.err);
		json_t *j = app_results_json(run.app);
		out[k] = out_json_string(j);
		json_decref(j);
		syn_run_free(&run);
	}
	CHECK_STR(out[0], out[1]);
	free(out[0]);
	free(out[1]);
	syn_free(&s);
}

int main(void)
{
	TEST_RUN(test_eager_pingpong);
	TEST_RUN(test_rendezvous_timing);
	TEST_RUN(test_rendezvous_get);
	TEST_RUN(test_eager_threshold_boundary);
	TEST_RUN(test_ssend_bsend);
	TEST_RUN(test_non_overtaking);
	TEST_RUN(test_held_order);
	TEST_RUN(test_wildcards);
	TEST_RUN(test_wildcard_post_order);
	TEST_RUN(test_unexpected_and_probe);
	TEST_RUN(test_probe_does_not_see_posted);
	TEST_RUN(test_send_send_deadlock);
	TEST_RUN(test_recv_deadlock_report);
	TEST_RUN(test_persistent_requests);
	TEST_RUN(test_test_family);
	TEST_RUN(test_waitany_recorded);
	TEST_RUN(test_sub_communicator);
	TEST_RUN(test_two_jobs);
	TEST_RUN(test_bad_input);
	TEST_RUN(test_cpu_factor_and_flops);
	TEST_RUN(test_ideal_equals_compute_critical_path);
	TEST_RUN(test_determinism);
	return test_done();
}
