/* Unit tests: lookahead_decide = upstream (issue 11 part 2, router.c
 * fl_la_*): with routing_delay = 0 a head's route at a router is decided
 * as it wins the switch of the router before (or is injected), BookSim's
 * lookahead timing.
 *  - Functions that read no state and draw nothing (odd tori: no dor
 *    tie to break at random) route every packet the same way whenever
 *    they decide: the whole run is the same in both
 *    modes (the decision reaches the right router, input port, VC and
 *    traffic class, with speedups and multi-flit packets).
 *  - The decisions made at a cycle's end do not depend on the order
 *    routers are visited.
 *  - ANCA's choices made upstream are older when the head gets there:
 *    near saturation they pile onto the ports that looked free and the
 *    fat tree accepts less than with choices made on arrival (BookSim2's
 *    ft_anca, docs/validation.md).
 *  - Decided upstream, the adaptive and escape-VC functions still never
 *    deadlock when saturated with 1-flit VC buffers (issue 11 part 8's
 *    watchdog, both deadlock checks armed).
 *  - Partitions and VOQ are refused with the key named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "point_json.h"
#include "test.h"

/* base + extra keys (NULL-terminated) + mode. */
static char *run_json(const char *const *base, const char *mode, const char *extra, struct nl_err *e)
{
	const char *kv[24];
	int k = 0;
	for (int j = 0; base[j]; j++)
		kv[k++] = base[j];
	kv[k++] = "routing_delay=0";
	kv[k++] = "sample_period=300";
	kv[k++] = "max_samples=4";
	kv[k++] = "warmup_periods=2";
	kv[k++] = "check_interval=61";
	kv[k++] = mode;
	if (extra)
		kv[k++] = extra;
	kv[k] = NULL;
	return point_json_kv(kv, true, e);
}

static void test_state_free_functions_same_run(void)
{
	static const char *const cases[][8] = {
		{"topology=torus:k=5x5", "routing_function=dor", "num_vcs=2", "packet_size=2", "injection_rate=0.3",
		 NULL},
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=group_min", "num_vcs=2", "local_latency=3",
		 "global_latency=9", "injection_rate=0.4", NULL},
		/* Parallel global links: the link drawn at injection (inter). */
		{"topology=dragonfly:a=4,p=2,h=2,g=5", "routing_function=group_min", "num_vcs=2", "local_latency=3",
		 "global_latency=9", "injection_rate=0.3", NULL},
		{"topology=torus:k=5x5", "routing_function=dor", "num_vcs=4", "traffic_classes=2", "injection_rate=0.3",
		 NULL},
		{"topology=mesh:k=4x4", "routing_function=dor", "num_vcs=2", "internal_speedup=2", "output_speedup=2",
		 "packet_size=1..4", "injection_rate=0.45", NULL},
		{"topology=fattree:k=4,n=3", "routing_function=min", "num_vcs=2", "traffic=bitcomp",
		 "injection_rate=0.5", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err e = {0};
		char *arr = run_json(cases[i], "lookahead_decide=arrival", NULL, &e);
		CHECK_OK(arr ? 0 : -1, &e);
		char *up = run_json(cases[i], "lookahead_decide=upstream", NULL, &e);
		CHECK_OK(up ? 0 : -1, &e);
		if (arr && up && strcmp(arr, up))
			fprintf(stderr, "case %zu (%s) differs between the modes\n", i, cases[i][0]);
		CHECK_STR(arr, up);
		free(arr);
		free(up);
	}
}

static void test_upstream_visit_order(void)
{
	static const char *const cases[][8] = {
		{"topology=fattree:k=4,n=3", "routing_function=anca", "num_vcs=2", "injection_rate=0.6", NULL},
		{"topology=fattree:k=4,n=3", "routing_function=nca", "num_vcs=2", "internal_speedup=2",
		 "injection_rate=0.6", NULL},
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=min:select=adaptive", "num_vcs=4",
		 "injection_rate=0.4", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err e = {0};
		char *fwd = run_json(cases[i], "lookahead_decide=upstream", "visit_order=forward", &e);
		CHECK_OK(fwd ? 0 : -1, &e);
		char *rev = run_json(cases[i], "lookahead_decide=upstream", "visit_order=reverse", &e);
		CHECK_OK(rev ? 0 : -1, &e);
		CHECK_STR(fwd, rev);
		free(fwd);
		free(rev);
	}
}

static double accepted_of(const char *mode, const char *seed)
{
	const char *kv[] = {"topology=fattree:k=4,n=4", "routing_function=anca", "num_vcs=4", "vc_buf_size=16",
			    "vc_allocator=separable_input_first", "sw_allocator=separable_input_first",
			    "injection_rate=0.85", "routing_delay=0", "sample_period=500", "max_samples=3",
			    "warmup_periods=2", mode, seed, NULL};
	struct net_point pt;
	struct nl_err e = {0};
	if (run_point_kv(kv, &pt, &e) != 0) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	double a = pt.accepted;
	net_point_release(&pt);
	return a;
}

static void test_upstream_anca_herds(void)
{
	static const char *const seeds[] = {"seed=0", "seed=1"};
	for (size_t s = 0; s < 2; s++) {
		double arr = accepted_of("lookahead_decide=arrival", seeds[s]);
		double up = accepted_of("lookahead_decide=upstream", seeds[s]);
		fprintf(stderr, "anca fattree k=4 n=4 at 0.85, %s: accepted %.4f on arrival, %.4f upstream\n", seeds[s],
			arr, up);
		CHECK(arr > 0 && up > 0);
		CHECK(up < arr * 0.97);
	}
}

static void test_upstream_watchdog(void)
{
	/* dal needs a by-priority VC allocator (route_ops.needs_priority_alloc). */
	static const char *const pairs[][5] = {
		{"topology=fattree:k=4,n=2", "routing_function=anca", "num_vcs=2", "wait_for_tail_credit=0"},
		{"topology=hyperx:s=3x3x2,t=2", "routing_function=dal", "num_vcs=2", "wait_for_tail_credit=0",
		 "vc_allocator=separable_input_first"},
		{"topology=hyperx:s=3x3,t=2", "routing_function=min:select=adaptive", "num_vcs=2",
		 "wait_for_tail_credit=0"},
		{"topology=torus:k=4x4", "routing_function=duato", "num_vcs=4", "wait_for_tail_credit=1"},
		{"topology=dragonfly:a=2,p=2,h=1", "routing_function=ugal", "num_vcs=6", "wait_for_tail_credit=0"},
	};
	static const char *const seeds[] = {"seed=1", "seed=2"};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
		for (size_t si = 0; si < 2; si++) {
			const char *kv[] = {pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3], seeds[si],
					    "vc_buf_size=1", "packet_size=4", "injection_rate=1.0", "routing_delay=0",
					    "lookahead_decide=upstream", "sim_type=throughput", "sample_period=2000",
					    "max_samples=10", "acc_stopping_thres=0", "watchdog_cycles=0", pairs[i][4],
					    NULL};
			struct net_point pt;
			struct nl_err e = {0};
			CHECK_OK(run_point_kv(kv, &pt, &e), &e);
			if (pt.deadlock)
				TEST_FAIL_("%s on %s, %s: %s", pairs[i][1], pairs[i][0], seeds[si], e.msg);
			CHECK_UINT(pt.cycles, >=, 20000); /* then the throughput drain (docs/engine.md) */
			CHECK(pt.accepted > 0.02);
			net_point_release(&pt);
		}
}

static void test_refusals(void)
{
	struct nl_err e = {0};
	struct net_point pt;
	/* Partitions are no refusal: the exchange decides (test_part checks
	 * the results equal one partition's). */
	const char *parts[] = {"topology=fattree:k=4,n=3", "routing_function=anca", "routing_delay=0",
			       "lookahead_decide=upstream", "partitions=2", "sample_period=200", "max_samples=2", NULL};
	CHECK_OK(run_point_kv(parts, &pt, &e), &e);
	net_point_release(&pt);
	const char *voq[] = {"topology=fattree:k=4,n=3", "routing_function=anca", "routing_delay=0",
			     "lookahead_decide=upstream", "voq=1", NULL};
	memset(&e, 0, sizeof e);
	CHECK_ERR(run_point_kv(voq, &pt, &e), NL_ECONFIG, &e, "voq = 1");
	/* Without lookahead routing the key changes nothing and is accepted. */
	const char *late[] = {"topology=torus:k=4x4", "routing_function=dor", "num_vcs=2", "routing_delay=1",
			      "lookahead_decide=upstream", "partitions=2", "sample_period=100", "max_samples=1",
			      "warmup_periods=1", NULL};
	memset(&e, 0, sizeof e);
	CHECK_OK(run_point_kv(late, &pt, &e), &e);
	net_point_release(&pt);
}

int main(void)
{
	TEST_RUN(test_state_free_functions_same_run);
	TEST_RUN(test_upstream_visit_order);
	TEST_RUN(test_upstream_anca_herds);
	TEST_RUN(test_upstream_watchdog);
	TEST_RUN(test_refusals);
	return test_done();
}
