/* Unit tests: the adaptive routing functions of issue 11 never deadlock in
 * the flit model (issue 11 part 8: a deadlock is never a result).
 *
 * Watchdog: every adaptive (topology, routing) pair runs at injection
 * 1.0 (seed 1), whose accepted throughput is its saturation throughput,
 * then at min(1.0, 1.5 x that) with 3 seeds, each run 20,000 cycles, with
 * 1- and 2-flit VC buffers (deep buffers hide deadlocks), with both
 * deadlock checks armed (the local watchdog, derived bound, and the global
 * no-progress check): no run may report one. Small networks keep it fast.
 * Negative control: the same harness on min without VC classes on a
 * HyperX (cyclic, test_deadlock's case) must report a deadlock, so the
 * checks are live here. The congestion-view rule: the live global view is
 * refused with partitions > 1. ugal takes trunked links (test_ugal_trunks). */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "net/net.h"
#include "net_config.h"
#include "test.h"

struct pair {
	const char *topo, *route, *vcs;
	const char *extra; /* one more setting, or NULL */
};

/* One 20,000-cycle point; returns -1 on a configuration error. */
static int watch_point(const struct pair *p, const char *buf, const char *seed, double rate, struct net_point *pt,
		       struct nl_err *e)
{
	char topo[128], route[128], vcs[32], inj[64];
	snprintf(topo, sizeof topo, "topology=%s", p->topo);
	snprintf(route, sizeof route, "routing_function=%s", p->route);
	snprintf(vcs, sizeof vcs, "num_vcs=%s", p->vcs);
	snprintf(inj, sizeof inj, "injection_rate=%.4f", rate);
	/* Escape-channel functions need atomic VC reuse (route.needs_atomic_vcs). */
	const char *atomic = strncmp(p->route, "duato", 5) && strncmp(p->route, "updown_adaptive", 15)
				     ? "wait_for_tail_credit=0"
				     : "wait_for_tail_credit=1";
	/* Seed 001's tiers and updown_adaptive's adaptive-first order need a
	 * by-priority VC allocator (route_ops.needs_priority_alloc). */
	const char *va = strncmp(p->route, "dal", 3) && strncmp(p->route, "minad", 5) &&
				 strncmp(p->route, "updown_adaptive", 15)
				 ? "vc_allocator=islip"
				 : "vc_allocator=separable_input_first";
	const char *kv[] = {topo, route, vcs, buf, seed, inj, "packet_size=4", "sim_type=throughput",
			    "sample_period=2000", "max_samples=10", "acc_stopping_thres=0", "watchdog_cycles=0",
			    /* The credit invariants (and the Equality functions'
			     * port sums, route.port_sums) checked under saturation. */
			    "check_interval=997", atomic, va, p->extra, NULL};
	return run_point_kv(kv, pt, e);
}

static const struct pair adaptive_pairs[] = {
	{"dragonfly:a=2,p=2,h=1", "ugal", "6", NULL},
	{"dragonfly:a=2,p=2,h=1", "ugal:mode=global", "6", NULL},
	{"dragonfly:a=2,p=2,h=1", "ugal:inter=group", "6", NULL},
	{"dragonfly:a=2,p=2,h=1", "ugal:mode=global,snapshot=10", "6", NULL},
	{"dragonfly:a=2,p=2,h=1", "ugal:mode=global,inter=group,threshold=8", "6", NULL},
	{"hyperx:s=3x3,t=2", "ugal", "4", NULL},
	{"hyperx:s=3x3,t=2", "ugal:mode=booksim", "2", NULL},
	{"flatfly:m=3,n=3", "ugal:mode=global", "4", NULL},
	/* Trunked: the least occupied trunk of each hop (ugal.c). */
	{"hyperx:s=3x3,k=2,t=2", "ugal", "4", NULL},
	{"hyperx:s=3x3,k=2,t=2", "ugal:mode=booksim", "2", NULL},
	{"flatfly:m=3,n=3,k=2", "ugal:mode=global", "4", NULL},
	{"slimfly:q=5,p=2", "ugal", "4", NULL},
	{"torus:k=4x4", "ugal", "8", NULL},
	{"fattree:k=2,n=3", "nca", "1", NULL},
	{"fattree:k=2,n=3", "anca", "1", NULL},
	{"fattree:k=4,n=2", "anca", "2", NULL},
	{"clos:l=3,r=8", "anca", "2", NULL},
	{"hyperx:s=3x3,t=2", "min:select=adaptive", "2", NULL},
	{"flatfly:m=3,n=3", "xyyx", "2", NULL},
	{"flatfly:m=3,n=3", "xyyx:order=adaptive", "2", NULL},
	{"hyperx:s=3x3x2,k=2x1x2,t=2", "xyyx:order=adaptive", "2", NULL},
	{"flex:nx=3,ny=3,nz=3,p=2", "flexmin", "2", NULL},
	{"flex:nx=3,ny=3,nz=3,p=2", "lbr:t=20", "4", NULL},
	{"hyperx:s=3x3,t=2", "minad", "2", NULL},
	{"hyperx:s=3x3x2,t=2", "dal", "2", NULL},
	{"hyperx:s=3x3,k=2,t=2", "dal", "6", NULL},
	/* The queue rule of "blocked" (hyperx_route.h) reads sequential
	 * allocation's count. */
	{"hyperx:s=3x3x2,t=2", "dal:block=0,queue=2", "2", "sequential_allocation=1"},
	{"hyperx:s=3x3,k=2,t=2", "minad:block=0,queue=2", "2", "sequential_allocation=1"},
	{"hyperx:s=3x3,t=2", "closad", "2", NULL},
	{"hyperx:s=3x3,t=2", "closad:queue=routed", "2", "sequential_allocation=1"},
	{"hyperx:s=3x3,t=2", "valiant", "2", NULL},
	{"N14K6P3[-1,1,3,9](4)", "amin", "2", NULL},
	{"N14K6P3[-1,1,3,9](4)", "eq_ugal", "4", NULL},
	{"N14K6P3[-1,1,3,9](4)", "bgal", "4", NULL},
	{"torus:k=4x4", "duato", "4", NULL},
	{"hypercube:n=4,p=2", "duato", "2", NULL},
	{"foldedhypercube:n=5", "duato", "4", NULL},
	{"dln:n=16,d=4,seed=3", "updown_adaptive", "2", NULL},
	{"p2(torus:k=4x4):trials=2", "updown_adaptive", "4", NULL},
	{"myriclos:n=64", "updown", "1", NULL},
	{"ndt:k=3x4x3", "dort", "4", NULL},
	{"ndt:k=3x4x3", "tsdor", "4", NULL},
};

/* Seeds per pair past saturation, and VC buffer depths. The sanitizer
 * build (.ci/run's build-asan) runs one of each: its point is memory
 * errors on the paths a saturated network takes, which one seed and one
 * depth walk as three seeds and two depths do, and the deadlock search
 * runs in full in the plain build; with three seeds this test took 88 s
 * there, a third of the sanitizer phase, with two depths 50 s of the
 * phase's 200 s of processor time. */
#if defined(__SANITIZE_ADDRESS__)
enum { WATCH_SEEDS = 1, WATCH_BUFS = 1 };
#else
enum { WATCH_SEEDS = 3, WATCH_BUFS = 2 };
#endif

static void test_watchdog(void)
{
	static const char *const bufs[] = {"vc_buf_size=1", "vc_buf_size=2"};
	static const char *const seeds[] = {"seed=1", "seed=2", "seed=3"};
	for (size_t i = 0; i < sizeof adaptive_pairs / sizeof *adaptive_pairs; i++) {
		const struct pair *p = &adaptive_pairs[i];
		double rates[2] = {0, 0};
		for (int bi = 0; bi < WATCH_BUFS; bi++) {
			/* Saturation throughput: what it accepts when offered 1.0. */
			struct net_point pt;
			struct nl_err e = {0};
			CHECK_OK(watch_point(p, bufs[bi], seeds[0], 1.0, &pt, &e), &e);
			if (pt.deadlock)
				TEST_FAIL_("%s on %s, %s, %s at 1.0: %s", p->route, p->topo, bufs[bi], seeds[0], e.msg);
			CHECK_UINT(pt.cycles, >=, 20000); /* then the throughput drain (docs/engine.md) */
			double sat = pt.accepted;
			net_point_release(&pt);
			CHECK(sat > 0.02);
			rates[bi] = 1.5 * sat < 1.0 ? 1.5 * sat : 1.0;
			for (int si = 0; si < WATCH_SEEDS; si++) {
				memset(&e, 0, sizeof e);
				CHECK_OK(watch_point(p, bufs[bi], seeds[si], rates[bi], &pt, &e), &e);
				if (pt.deadlock)
					TEST_FAIL_("%s on %s, %s, %s at %.3f: %s", p->route, p->topo, bufs[bi], seeds[si],
						   rates[bi], e.msg);
				CHECK_UINT(pt.cycles, >=, 20000); /* then the throughput drain (docs/engine.md) */
				net_point_release(&pt);
			}
		}
		if (WATCH_BUFS > 1)
			fprintf(stderr, "  %-40s %-22s at %.3f (1-flit VCs), %.3f (2-flit): no deadlock\n", p->route,
				p->topo, rates[0], rates[1]);
		else
			fprintf(stderr, "  %-40s %-22s at %.3f (1-flit VCs): no deadlock\n", p->route, p->topo, rates[0]);
	}
}

/* The harness can fail: min without VC classes on a HyperX deadlocks. */
static void test_watchdog_negative(void)
{
	const struct pair p = {"hyperx:s=4x4x4,t=4", "min:select=hash,classes=none", "4", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_ERR(watch_point(&p, "vc_buf_size=8", "seed=1", 1.0, &pt, &e), NL_EDEADLOCK, &e, "network deadlock");
	CHECK(pt.deadlock);
	net_point_release(&pt);
}

/* The queue rule of dal and minad needs sequential allocation's count. */
static void test_queue_rule_needs_pend(void)
{
	const char *kv[] = {"topology=hyperx:s=3x3,t=2", "routing_function=dal:block=0,queue=2", "num_vcs=2",
			    "injection_rate=0.1", "sample_period=500", "max_samples=2", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "needs [router] sequential_allocation = 1");
	net_point_release(&pt);
	const char *ok[] = {"topology=hyperx:s=3x3,t=2", "routing_function=dal:block=0,queue=2", "num_vcs=2",
			    "injection_rate=0.1", "sample_period=500", "max_samples=2", "sequential_allocation=1",
			    "vc_allocator=separable_input_first", NULL};
	memset(&e, 0, sizeof e);
	CHECK_OK(run_point_kv(ok, &pt, &e), &e);
	CHECK(pt.accepted > 0.05);
	net_point_release(&pt);
}

/* dal and minad rank their candidates (minimal, deroutes, escape: seed
 * 001 §3.3, "minimal if unblocked"), which iSLIP ignores: refused under
 * the default vc_allocator = islip, naming the key and the allocators that
 * work. With one (separable_input_first, separable_output_first), a
 * nearly idle network routes minimally: the hops of min, on a HyperX and
 * a flattened butterfly. Under iSLIP dal took deroutes at zero load
 * (hyperx:s=4x4,t=2: 2.11 hops, min 1.46). updown_adaptive likewise
 * (adaptive minimal ports first, its up*-down* escape, which need not be
 * minimal, last: Silla & Duato 2000), on a DLN: under iSLIP it took the
 * escape at zero load (dln:n=64,d=10,p=2: 1.98 hops, min 1.92). */
static void test_priority_alloc(void)
{
	static const char *const topos[] = {"topology=hyperx:s=4x4,t=2", "topology=flatfly:m=4,n=3"};
	static const char *const fns[] = {"routing_function=dal", "routing_function=minad"};
	static const char *const vas[] = {"vc_allocator=separable_input_first", "vc_allocator=separable_output_first"};
	for (size_t ti = 0; ti < 2; ti++) {
		const char *kv[] = {topos[ti], "routing_function=min", "injection_rate=0.001", "sample_period=3000",
				    NULL, NULL};
		struct net_point pmin, pt;
		struct nl_err e = {0};
		CHECK_OK(run_point_kv(kv, &pmin, &e), &e);
		CHECK(pmin.hops_mean > 1.0);
		for (size_t fi = 0; fi < 2; fi++) {
			kv[1] = fns[fi];
			kv[4] = NULL;
			memset(&e, 0, sizeof e);
			CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e,
				  "expected vc_allocator = separable_input_first or separable_output_first, got islip (the default)");
			net_point_release(&pt);
			kv[4] = "vc_allocator=islip";
			memset(&e, 0, sizeof e);
			CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "got islip (from test)");
			net_point_release(&pt);
			for (size_t vi = 0; vi < 2; vi++) {
				kv[4] = vas[vi];
				memset(&e, 0, sizeof e);
				CHECK_OK(run_point_kv(kv, &pt, &e), &e);
				fprintf(stderr, "  %s %s %s at 0.001: %.4f hops (min %.4f)\n", topos[ti] + 9, fns[fi] + 17,
					vas[vi] + 13, pt.hops_mean, pmin.hops_mean);
				CHECK_NEAR(pt.hops_mean, pmin.hops_mean, 1e-9);
				CHECK_UINT(pt.flit_hops, ==, pmin.flit_hops);
				net_point_release(&pt);
			}
		}
		net_point_release(&pmin);
	}
	const char *kv[] = {"topology=dln:n=64,d=10,p=2", "routing_function=min", "injection_rate=0.001",
			    "sample_period=3000", "wait_for_tail_credit=1", NULL, NULL};
	struct net_point pmin, pt;
	struct nl_err e = {0};
	CHECK_OK(run_point_kv(kv, &pmin, &e), &e);
	CHECK(pmin.hops_mean > 1.0);
	kv[1] = "routing_function=updown_adaptive";
	memset(&e, 0, sizeof e);
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e,
		  "expected vc_allocator = separable_input_first or separable_output_first, got islip (the default)");
	net_point_release(&pt);
	for (size_t vi = 0; vi < 2; vi++) {
		kv[5] = vas[vi];
		memset(&e, 0, sizeof e);
		CHECK_OK(run_point_kv(kv, &pt, &e), &e);
		fprintf(stderr, "  dln:n=64,d=10,p=2 updown_adaptive %s at 0.001: %.4f hops (min %.4f)\n", vas[vi] + 13,
			pt.hops_mean, pmin.hops_mean);
		/* The measured packets' hops; not flit_hops, the whole run's,
		 * where one packet meeting another at a port took the emptier
		 * escape port, as designed (5,263 flit hops, min 5,262). */
		CHECK_NEAR(pt.hops_mean, pmin.hops_mean, 1e-9);
		net_point_release(&pt);
	}
	net_point_release(&pmin);
}

/* duato needs atomic VC reuse: refused without wait_for_tail_credit = 1,
 * runs with it. */
static void test_duato_atomic_vcs(void)
{
	const char *kv[] = {"topology=hypercube:n=4,p=2", "routing_function=duato", "num_vcs=2",
			    "wait_for_tail_credit=0", "injection_rate=0.1", "sample_period=500", "max_samples=2", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "needs wait_for_tail_credit = 1");
	net_point_release(&pt);
	kv[3] = "wait_for_tail_credit=1";
	memset(&e, 0, sizeof e);
	CHECK_OK(run_point_kv(kv, &pt, &e), &e);
	CHECK(!pt.deadlock);
	net_point_release(&pt);
}

/* updown_adaptive:escape=return (Silla & Duato) is deadlock-free only under
 * virtual cut-through: refused with wormhole; under cut-through, with VCs
 * as deep as a packet (the least cut-through allows), it runs 1.5x past
 * its saturation on two irregular graphs without a deadlock report. */
static void test_updown_return_vct(void)
{
	const char *kv[] = {"topology=dln:n=16,d=4,seed=3", "routing_function=updown_adaptive:escape=return",
			    "num_vcs=2", "wait_for_tail_credit=1", "vc_allocator=separable_input_first",
			    "injection_rate=0.1", "sample_period=500", "max_samples=2", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "expected flow_control = vct, got wormhole");
	net_point_release(&pt);
	/* ... and, with an escape VC, only with atomic VC reuse (Duato 1995). */
	const char *kv_reuse[] = {"topology=dln:n=16,d=4,seed=3", "routing_function=updown_adaptive:escape=return",
				  "num_vcs=2", "wait_for_tail_credit=0", "flow_control=vct",
				  "vc_allocator=separable_input_first", NULL};
	e = (struct nl_err){0};
	CHECK_ERR(run_point_kv(kv_reuse, &pt, &e), NL_ECONFIG, &e, "needs wait_for_tail_credit = 1 (an output VC");
	net_point_release(&pt);
	static const char *const topos[] = {"topology=dln:n=16,d=4,seed=3", "topology=p2(torus:k=4x4):trials=2"};
	static const char *const seeds[] = {"seed=1", "seed=2", "seed=3"};
	for (size_t i = 0; i < 2; i++) {
		char inj[64] = "injection_rate=1.0";
		double sat = 0;
		for (int si = -1; si < 3; si++) {
			const char *run[] = {topos[i], "routing_function=updown_adaptive:escape=return", "num_vcs=2",
					     "wait_for_tail_credit=1", "vc_allocator=separable_input_first",
					     "flow_control=vct", "vc_buf_size=4",
					     "packet_size=4", si < 0 ? seeds[0] : seeds[si], inj, "sim_type=throughput",
					     "sample_period=2000", "max_samples=10", "acc_stopping_thres=0",
					     "watchdog_cycles=0", "check_interval=997", NULL};
			memset(&e, 0, sizeof e);
			CHECK_OK(run_point_kv(run, &pt, &e), &e);
			if (pt.deadlock)
				TEST_FAIL_("updown_adaptive:escape=return on %s at %s: %s", topos[i], inj, e.msg);
			CHECK_UINT(pt.cycles, >=, 20000); /* then the throughput drain (docs/engine.md) */
			if (si < 0) {
				sat = pt.accepted;
				CHECK(sat > 0.02);
				snprintf(inj, sizeof inj, "injection_rate=%.4f", 1.5 * sat < 1.0 ? 1.5 * sat : 1.0);
			}
			net_point_release(&pt);
		}
		fprintf(stderr, "  updown_adaptive:escape=return on %s: saturation %.3f, %s: no deadlock\n", topos[i] + 9,
			sat, inj);
	}
}

/* The live global view reads other partitions' channels: refused with
 * partitions > 1; the local modes run partitioned. */
static void test_global_view_partitions(void)
{
	const char *kv[] = {"topology=dragonfly:a=2,p=2,h=1", "routing_function=ugal:mode=global", "num_vcs=6",
			    "partitions=2", "injection_rate=0.1", "sample_period=500", "max_samples=2", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "reads the live global congestion view");
	CHECK(strstr(e.msg, "expected partitions = 1"));
	net_point_release(&pt);
	kv[1] = "routing_function=ugal";
	memset(&e, 0, sizeof e);
	CHECK_OK(run_point_kv(kv, &pt, &e), &e);
	CHECK(!pt.deadlock);
	net_point_release(&pt);
}

/* The periodic-snapshot hook: ugal:mode=global,snapshot=T reads every
 * queue from the copy the engine takes every T cycles. Were the hook never
 * called, every queue would read 0 and every packet go minimally (the hop
 * count of min); called, congestion sends some through intermediates.
 * It runs partitioned, with the same results as unpartitioned. */
static void test_snapshot_hook(void)
{
	const char *kv[] = {"topology=dragonfly:a=4,p=2,h=1", "routing_function=min", "num_vcs=6", "vc_buf_size=4",
			    "traffic=nextgroup", "injection_rate=0.4", "sample_period=1000", "max_samples=4",
			    "acc_stopping_thres=0", "partitions=1", NULL};
	struct net_point pmin, p1, p2;
	struct nl_err e = {0};
	CHECK_OK(run_point_kv(kv, &pmin, &e), &e);
	kv[1] = "routing_function=ugal:mode=global,snapshot=20";
	CHECK_OK(run_point_kv(kv, &p1, &e), &e);
	kv[9] = "partitions=2";
	CHECK_OK(run_point_kv(kv, &p2, &e), &e);
	fprintf(stderr, "  hops: min %.4f, ugal snapshot %.4f (partitions 1), %.4f (partitions 2)\n", pmin.hops_mean,
		p1.hops_mean, p2.hops_mean);
	CHECK(p1.hops_mean > pmin.hops_mean + 0.05);
	CHECK(p1.hops_mean == p2.hops_mean && p1.plat_mean == p2.plat_mean && p1.accepted == p2.accepted);
	net_point_release(&pmin);
	net_point_release(&p1);
	net_point_release(&p2);
	struct net_point pt;
	kv[1] = "routing_function=ugal:mode=local,snapshot=20";
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "snapshot=20 applies to mode=global only");
	net_point_release(&pt);
}

/* ugal takes trunked links (ugal.c; docs/engine.md): on a HyperX,
 * flattened butterfly or full graph with K = 2 every mode accepts more
 * at saturation than with K = 1 (bitcomp at 0.9, seed 3: hyperx:s=4x4,t=2
 * local 0.31 -> 0.57, global 0.26 -> 0.46, booksim 0.51 -> 0.77;
 * flatfly:m=4,n=3 local 0.16 -> 0.31, booksim 0.25 -> 0.42; full:n=8,p=2
 * local 0.80 -> 0.90, global 0.40 -> 0.69). Before, every hop and queue
 * read took trunk 0 and K = 2 gave the K = 1 figures exactly. Untrunked,
 * the results are those from before trunks were taken (flit-hops and
 * packets of 1f16d25, pinned: ugal:mode=booksim must stay BookSim's,
 * docs/validation.md; an engine change that moves every function's
 * figures updates them). */
static void test_ugal_trunks(void)
{
	static const struct {
		const char *untrunked, *trunked, *route;
		uint64_t flit_hops, packets; /* untrunked */
	} cases[] = {
		{"hyperx:s=4x4,t=2", "hyperx:s=4x4,k=2,t=2", "ugal", 24814, 2936},
		{"hyperx:s=4x4,t=2", "hyperx:s=4x4,k=2,t=2", "ugal:mode=global", 18864, 2478},
		{"hyperx:s=4x4,t=2", "hyperx:s=4x4,k=2,t=2", "ugal:mode=booksim", 69512, 8153},
		{"flatfly:m=4,n=3", "flatfly:m=4,n=3,k=2", "ugal", 25281, 3011},
		{"flatfly:m=4,n=3", "flatfly:m=4,n=3,k=2", "ugal:mode=booksim", 39205, 4831},
		{"full:n=8,p=2", "full:n=8,p=2,k=2", "ugal", 47105, 13899},
		{"full:n=8,p=2", "full:n=8,p=2,k=2", "ugal:mode=global", 9578, 1272},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char topo[96], route[96];
		snprintf(route, sizeof route, "routing_function=%s", cases[i].route);
		const char *kv[] = {topo, route, "num_vcs=4", "traffic=bitcomp", "injection_rate=0.9", "sample_period=300",
				    "max_samples=6", "seed=3", NULL};
		struct net_point p1, p2;
		struct nl_err e = {0};
		snprintf(topo, sizeof topo, "topology=%s", cases[i].untrunked);
		CHECK_OK(run_point_kv(kv, &p1, &e), &e);
		snprintf(topo, sizeof topo, "topology=%s", cases[i].trunked);
		CHECK_OK(run_point_kv(kv, &p2, &e), &e);
		fprintf(stderr, "  %-18s %-20s accepted %.4f (K = 1: %.4f; %llu flit-hops, %llu packets)\n",
			cases[i].route, cases[i].trunked, p2.accepted, p1.accepted, (unsigned long long)p1.flit_hops,
			(unsigned long long)p1.packets);
		CHECK(p2.accepted > p1.accepted + 0.05);
		CHECK_UINT(p1.flit_hops, ==, cases[i].flit_hops);
		CHECK_UINT(p1.packets, ==, cases[i].packets);
		net_point_release(&p1);
		net_point_release(&p2);
	}
}

int main(void)
{
	TEST_RUN(test_watchdog);
	TEST_RUN(test_watchdog_negative);
	TEST_RUN(test_global_view_partitions);
	TEST_RUN(test_queue_rule_needs_pend);
	TEST_RUN(test_duato_atomic_vcs);
	TEST_RUN(test_priority_alloc);
	TEST_RUN(test_updown_return_vct);
	TEST_RUN(test_snapshot_hook);
	TEST_RUN(test_ugal_trunks);
	return test_done();
}
