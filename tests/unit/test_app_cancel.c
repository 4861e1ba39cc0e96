/* Unit tests: MPI_Cancel in replay (emu/app/app_p2p.c app_p2p_cancel) on
 * synthetic traces: a receive cancelled before it matched completes as
 * cancelled and never matches later; one that matched is not cancelled;
 * a send is never cancelled; the recorded outcome is followed where MPI
 * leaves the choice, and every disagreement is counted with the first one
 * named (rank, op index, request kind), in the results and the JSON.
 * Also the other calls that change what completes when: a nonblocking
 * comm_dup (MPI_Comm_idup) does not block its rank.
 *
 * The network is the analytic backend with latency 1 us and 8 Gbit/s: an
 * 8-byte message takes 1008 ns.
 */
#include <jansson.h>

#include "app/app.h"
#include "app_synth.h"
#include "core/error.h"
#include "test.h"

#define US 1000000ull /* ps */
#define NS 1000ull

static const char *const net_1us[] = {"latency_ns=1000", "bandwidth_gbps=8", NULL};

/* A cancel op on request req with recorded outcome 1 / 0, or -1 unknown. */
static void syn_cancel(struct syn *s, uint32_t r, uint32_t req, int outcome)
{
	struct trace_op *op = syn_add(s, r, TOP_CANCEL);
	op->req = req;
	op->n_done = outcome > 0;
	op->flags = outcome < 0 ? TRACE_F_NO_OUTCOME : 0;
}

static void test_cancel_before_match(void)
{
	/* HPCC's pattern: a wildcard receive nothing matches is cancelled,
	 * then a message arrives for a later receive. Were the cancelled
	 * receive still posted, it would take that message and the recv
	 * would wait forever. Recorded outcome: cancelled, or unknown (the
	 * standard behaviour for an unmatched receive: cancel it). */
	for (int outcome = 1; outcome >= -1; outcome -= 2) {
		struct syn s;
		struct syn_run run;
		syn_init(&s, 2);
		syn_irecv(&s, 0, TRACE_ANY_SOURCE, TRACE_ANY_TAG, 8, 1);
		syn_cancel(&s, 0, 1, outcome);
		syn_wait(&s, 0, 1);
		syn_recv(&s, 0, 1, 9, 8);
		syn_compute(&s, 1, 5 * US);
		syn_send(&s, 1, 0, 9, 8);
		CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
		if (run.app) {
			const struct app_results *res = app_results(run.app);
			CHECK_UINT(res->cancels, ==, 1);
			CHECK_UINT(res->cancelled, ==, 1);
			CHECK_UINT(res->cancel_diverged, ==, 0);
			CHECK_UINT(res->unmatched_msgs, ==, 0);
			CHECK_UINT(res->ranks[0].finish_ps, ==, 6 * US + 8 * NS);
		}
		syn_run_free(&run);
		syn_free(&s);
	}
}

static void test_cancel_after_match(void)
{
	/* The message arrives at 1.008 us and matches; the cancel at 10 us
	 * cannot undo that: the receive completes normally. The recording
	 * said cancelled: one divergence, named. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_irecv(&s, 0, 1, 0, 8, 3);
	syn_compute(&s, 0, 10 * US);
	syn_cancel(&s, 0, 3, 1);
	syn_wait(&s, 0, 3);
	syn_send(&s, 1, 0, 0, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	if (run.app) {
		const struct app_results *res = app_results(run.app);
		CHECK_UINT(res->cancelled, ==, 0);
		CHECK_UINT(res->cancel_diverged, ==, 1);
		CHECK_UINT(res->cancel_div_rank, ==, 0);
		CHECK_UINT(res->cancel_div_op, ==, 2);
		CHECK_UINT(res->cancel_div_req_kind, ==, TOP_IRECV);
		CHECK_UINT(res->cancel_div_recorded, ==, 1);
		CHECK_UINT(res->unmatched_msgs, ==, 0);
		json_t *j = app_results_json(run.app);
		char *txt = json_dumps(json_object_get(j, "cancel"), JSON_SORT_KEYS | JSON_COMPACT);
		CHECK_STR(txt, "{\"calls\":1,\"cancelled\":0,\"divergences\":1,\"first_divergence\":{\"op_index\":2,"
			       "\"rank\":0,\"recorded\":\"cancelled\",\"replayed\":\"not cancelled\",\"request_op\":"
			       "\"irecv\"}}");
		free(txt);
		json_decref(j);
	}
	syn_run_free(&run);
	syn_free(&s);
}

static void test_cancel_follows_recorded_failure(void)
{
	/* Unmatched at the cancel, but the recording says the cancel failed
	 * (the receive matched later): MPI allows that, so the receive stays
	 * posted and takes the message sent at 10 us. No divergence. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_irecv(&s, 0, TRACE_ANY_SOURCE, 4, 8, 1);
	syn_cancel(&s, 0, 1, 0);
	syn_wait(&s, 0, 1);
	syn_compute(&s, 1, 10 * US);
	syn_send(&s, 1, 0, 4, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	if (run.app) {
		const struct app_results *res = app_results(run.app);
		CHECK_UINT(res->cancelled, ==, 0);
		CHECK_UINT(res->cancel_diverged, ==, 0);
		CHECK_UINT(res->unmatched_msgs, ==, 0);
		CHECK_UINT(res->ranks[0].finish_ps, ==, 11 * US + 8 * NS);
	}
	syn_run_free(&run);
	syn_free(&s);
}

static void test_cancel_send(void)
{
	/* A send is never cancelled (deprecated since MPI 4.0; Open MPI never
	 * cancels one): the message is delivered. Recorded as cancelled: a
	 * divergence on an isend. Recorded as not cancelled: none. */
	for (int outcome = 1; outcome >= 0; outcome--) {
		struct syn s;
		struct syn_run run;
		syn_init(&s, 2);
		syn_isend(&s, 0, 1, 0, 8, 7);
		syn_cancel(&s, 0, 7, outcome);
		syn_wait(&s, 0, 7);
		syn_compute(&s, 1, 3 * US);
		syn_recv(&s, 1, 0, 0, 8);
		CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
		if (run.app) {
			const struct app_results *res = app_results(run.app);
			CHECK_UINT(res->cancelled, ==, 0);
			CHECK_UINT(res->cancel_diverged, ==, (uint64_t)outcome);
			if (outcome)
				CHECK_UINT(res->cancel_div_req_kind, ==, TOP_ISEND);
			CHECK_UINT(res->unmatched_msgs, ==, 0);
			CHECK_UINT(res->ranks[1].finish_ps, ==, 3 * US);
		}
		syn_run_free(&run);
		syn_free(&s);
	}
}

static void test_cancel_persistent_and_counts(void)
{
	/* A started persistent receive is cancelled, restarted and matched;
	 * the divergence count covers every disagreeing cancel and the first
	 * one stays the one reported. */
	struct syn s;
	struct syn_run run;
	syn_init(&s, 2);
	syn_p2p(&s, 0, TOP_RECV_INIT, 1, 5, 8)->req = 2;
	syn_add(&s, 0, TOP_START)->req = 2;
	syn_cancel(&s, 0, 2, 1);
	syn_wait(&s, 0, 2);
	syn_add(&s, 0, TOP_START)->req = 2;
	syn_wait(&s, 0, 2);
	syn_add(&s, 0, TOP_REQUEST_FREE)->req = 2;
	syn_isend(&s, 0, 1, 6, 8, 4); /* ops 7..9: two diverging send cancels */
	syn_cancel(&s, 0, 4, 1);
	syn_wait(&s, 0, 4);
	syn_isend(&s, 0, 1, 6, 8, 4);
	syn_cancel(&s, 0, 4, 1);
	syn_wait(&s, 0, 4);
	syn_compute(&s, 1, 2 * US);
	syn_send(&s, 1, 0, 5, 8);
	syn_recv(&s, 1, 0, 6, 8);
	syn_recv(&s, 1, 0, 6, 8);
	CHECK_OK(syn_replay(&s, net_1us, &run), &run.err);
	if (run.app) {
		const struct app_results *res = app_results(run.app);
		CHECK_UINT(res->cancels, ==, 3);
		CHECK_UINT(res->cancelled, ==, 1);
		CHECK_UINT(res->cancel_diverged, ==, 2);
		CHECK_UINT(res->cancel_div_op, ==, 8);
		CHECK_UINT(res->unmatched_msgs, ==, 0);
		CHECK_UINT(res->ranks[0].finish_ps, ==, 3 * US + 8 * NS);
	}
	syn_run_free(&run);
	syn_free(&s);
}

static void test_comm_idup_nonblocking(void)
{
	/* Rank 0: idup, send, wait; rank 1: recv, idup, wait. A blocking dup
	 * on rank 0 would wait for rank 1, which waits in its recv for rank
	 * 0's send: a deadlock. The nonblocking one completes. */
	for (int nb = 1; nb >= 0; nb--) {
		struct syn s;
		struct syn_run run;
		syn_init(&s, 2);
		for (uint32_t r = 0; r < 2; r++) {
			if (r == 1)
				syn_recv(&s, 1, 0, 0, 8);
			struct trace_op *op = syn_add(&s, r, TOP_COMM_DUP);
			op->new_comm = 2;
			op->flags = nb ? TRACE_F_NONBLOCKING : 0;
			op->req = nb ? 5 : 0;
			if (r == 0)
				syn_send(&s, 0, 1, 0, 8);
			if (nb)
				syn_wait(&s, r, 5);
		}
		static const uint32_t world2[] = {0, 1};
		syn_comm(&s, 2, 2, world2);
		int rc = syn_replay(&s, net_1us, &run);
		if (nb) {
			CHECK_OK(rc, &run.err);
			if (run.app)
				CHECK_UINT(app_results(run.app)->unknown_requests, ==, 0);
		} else {
			CHECK_INT(rc, ==, NL_EDEADLOCK);
		}
		syn_run_free(&run);
		syn_free(&s);
	}
}

int main(void)
{
	TEST_RUN(test_cancel_before_match);
	TEST_RUN(test_cancel_after_match);
	TEST_RUN(test_cancel_follows_recorded_failure);
	TEST_RUN(test_cancel_send);
	TEST_RUN(test_cancel_persistent_and_counts);
	TEST_RUN(test_comm_idup_nonblocking);
	return test_done();
}
