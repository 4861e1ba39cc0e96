/* Unit tests: the flit model's internals (emu/net, net_internal.h) — flow
 * control, output-VC release, the router's two step paths, the allocators
 * and run-time allocation failures. Each test is aimed at one class of bug
 * a review planted and no figure-level test caught (issue 10, part 6). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/hold.h"
#include "net/net_internal.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "net_config.h"
#include "test.h"

/* A fingerprint of everything a run measured: latencies, hops, the flits
 * of every channel. */
static uint64_t fx_digest(const struct flitnet *n)
{
	uint64_t h = 1469598103934665603ULL;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ULL)
	MIX(n->now);
	MIX(n->flit_hops);
	MIX(n->obs.sent_flits);
	MIX(n->obs.accepted_flits);
	MIX(n->obs.plat.n);
	MIX((uint64_t)n->obs.plat.sum);
	MIX(n->obs.plat.max);
	MIX((uint64_t)n->obs.nlat.sum);
	MIX((uint64_t)n->obs.hops.sum);
	/* Each channel's flits sent before now: chan_flits counts a flit as
	 * it is queued for its cycle on the channel (router.c, fl_output),
	 * which the fast path does at the switch grant and the general path
	 * a step later, at the crossbar; out_free - now of them go from now. */
	for (uint32_t g = 0; g < n->topo->n_ports; g++) {
		const struct fl_port *pt = &n->ports[g];
		MIX(pt->chan_flits - (pt->link.network && pt->out_free > n->now ? pt->out_free - n->now : 0));
	}
#undef MIX
	return h;
}

/* Open a network from two key=value lists, `base` then `extra`. */
static int fx_open2(struct fx *f, const char *const *base, const char *const *extra, struct nl_err *e)
{
	const char *kv[16];
	int k = 0;
	for (int j = 0; base[j]; j++)
		kv[k++] = base[j];
	for (int j = 0; extra[j]; j++)
		kv[k++] = extra[j];
	kv[k] = NULL;
	return fx_open(f, kv, e);
}

/* A fingerprint of every arbiter pointer (VC and switch allocation). */
static uint64_t fx_ptr_digest(const struct flitnet *n)
{
	uint64_t h = 0;
	const uint64_t IV = (uint64_t)n->topo->n_ports * n->V;
	for (uint64_t i = 0; i < IV; i++)
		h = h * 31 + n->va_aptr[i] * 7u + n->va_gptr[i];
	for (uint32_t g = 0; g < n->topo->n_ports; g++)
		h = h * 31 + n->sw_aptr[g] * 7u + n->sw_gptr[g] + n->sw_rr[g] * 3u;
	return h;
}

/* Run to `cycles`; the fingerprints of what it measured and of the
 * arbiter pointers. */
static void fx_run_digests(struct fx *f, uint64_t cycles, uint64_t *digest, uint64_t *ptrs)
{
	struct nl_err e = {0};
	CHECK_OK(flitnet_run_until(f->n, cycles, &e), &e);
	*digest = fx_digest(f->n);
	*ptrs = fx_ptr_digest(f->n);
}

/* Run two ways of the same case (a, b): what each measured and every
 * arbiter pointer must be equal. */
static void fx_same(size_t c, const char *a, const char *b, const uint64_t digest[2], const uint64_t ptrs[2])
{
	if (digest[0] != digest[1] || ptrs[0] != ptrs[1])
		TEST_FAIL_("case %zu: %s %016llx/%016llx, %s %016llx/%016llx", c, a, (unsigned long long)digest[0],
			   (unsigned long long)ptrs[0], b, (unsigned long long)digest[1], (unsigned long long)ptrs[1]);
}

/* Distinct packets whose flits sit in input VC iv's buffer. */
static uint32_t ivc_packets(const struct flitnet *n, uint64_t iv)
{
	uint32_t k = 0, last = FL_NONE;
	for (uint32_t ru = n->ivc[iv].head; ru != FL_NONE; ru = n->pool.runs[ru].next)
		if (n->pool.runs[ru].pkt != last) {
			last = n->pool.runs[ru].pkt;
			k++;
		}
	return k;
}

/* Virtual cut-through: a head advances only when its whole packet fits
 * downstream, so a VC buffer of exactly one packet never holds flits of two
 * packets. Wormhole lets the next head in behind a tail (the same run must
 * show it, or the check proves nothing). */
static void test_vct_is_not_wormhole(void)
{
	static const char *const fcs[] = {"flow_control=vct", "flow_control=wormhole"};
	for (int w = 0; w < 2; w++) {
		const char *kv[] = {"topology=torus:k=4x4", "num_vcs=2", "vc_buf_size=4", "packet_size=4",
				    "injection_rate=0.5", "seed=3", fcs[w], NULL};
		struct fx f;
		struct nl_err e = {0};
		CHECK_OK(fx_open(&f, kv, &e), &e);
		uint32_t shared = 0;
		const uint64_t IV = (uint64_t)f.t->n_ports * f.n->V;
		for (uint64_t c = 1; c <= 3000; c++) {
			CHECK_OK(flitnet_run_until(f.n, c, &e), &e);
			for (uint64_t iv = 0; iv < IV; iv++)
				shared += ivc_packets(f.n, iv) > 1;
		}
		CHECK(f.n->flit_hops > 10000);
		if (w == 0)
			CHECK_UINT(shared, ==, 0);
		else
			CHECK_UINT(shared, >, 0);
		fx_close(&f);
	}
}

/* wait_for_tail_credit: an output VC is released when its tail's credit
 * returns. Under load every packet still arrives, and once the network
 * is empty every output VC is free again. */
static void test_tail_credit_releases(void)
{
	const char *kv[] = {"topology=mesh:k=4x4", "num_vcs=2", "vc_buf_size=4", "packet_size=3",
			    "injection_rate=0.3", "wait_for_tail_credit=1", "seed=5", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	CHECK_OK(flitnet_run_until(f.n, 3000, &e), &e);
	CHECK(f.n->obs.plat.n > 1000);
	/* Stop the sources and drain. */
	fl_gen_stop(f.n);
	CHECK_OK(flitnet_run_until(f.n, 6000, &e), &e);
	CHECK_UINT(f.n->obs.flits_alive, ==, 0);
	const uint64_t IV = (uint64_t)f.t->n_ports * f.n->V;
	uint64_t held = 0;
	for (uint64_t ov = 0; ov < IV; ov++)
		held += f.n->ovc[ov].owner != FL_NONE;
	CHECK_UINT(held, ==, 0);
	for (uint64_t s = 0; s < (uint64_t)f.t->n_endpoints * f.n->V; s++)
		CHECK_UINT(f.n->nic_busy[s], ==, 0);
	fx_close(&f);
}

/* The unit-delay fast path must do what the general stage path does with
 * the same delays (round-robin pointers included): run both, compare every
 * measured figure and every arbiter pointer. */
static void test_fast_path_equals_general(void)
{
	static const char *const cases[][5] = {
		{"vc_allocator=islip", "sw_allocator=islip", "routing_function=dor", NULL},
		{"vc_allocator=separable_input_first", "sw_allocator=separable_output_first",
		 "routing_function=valiant", NULL},
		{"vc_allocator=separable_output_first", "sw_allocator=separable_input_first",
		 "routing_function=min:select=adaptive", NULL},
		/* Two steps a cycle, and one or two: the fast path sends a
		 * switch winner to its output queue at once, for the router's
		 * next step (direct_xbar, n->xb_at), the general path keeps it
		 * in the crossbar's ring for a step; the plain stage loops run
		 * (n->plain). */
		{"internal_speedup=2.0", "routing_function=dor", "vc_buf_size=2", NULL},
		{"internal_speedup=1.5", "routing_function=dor", "vc_buf_size=2", NULL},
		/* A function reading the output queue would see the flit a step
		 * early there: both paths use the ring. */
		{"topology=hyperx:s=4x4", "internal_speedup=2.0", "routing_function=ugal:queue=output", NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint64_t digest[2];
		uint64_t ptrs[2];
		for (int general = 0; general < 2; general++) {
			static const char *const base[] = {"topology=torus:k=4x4", "num_vcs=4", "packet_size=1..5",
							   "injection_rate=0.4", "seed=11", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, base, cases[c], &e), &e);
			CHECK(f.n->unit_delays);
			CHECK(f.n->direct_xbar == (strstr(cases[c][2], "queue=output") == NULL));
			if (general) {
				f.n->unit_delays = false;
				f.n->direct_xbar = false;
			}
			fx_run_digests(&f, 4000, &digest[general], &ptrs[general]);
			CHECK(f.n->flit_hops > 20000);
			fx_close(&f);
		}
		fx_same(c, "fast path", "general path", digest, ptrs);
	}
}

/* The stage loops' plain form (n->plain: no lookahead upstream, VOQ,
 * holding, pend, traffic classes, tail-credit release or output speedup)
 * skips those features' tests and gives what the full form gives, with
 * one router step a cycle (the crossbar written straight to the output)
 * and with internal speedups (an input still sends one flit a step, so
 * the plain form skips the grouping of credits, cred_step). */
static void test_plain_loops_same(void)
{
	static const char *const cases[][8] = {
		{"topology=torus:k=4x4", "routing_function=dor", "num_vcs=2", "packet_size=1..4", "injection_rate=0.5",
		 NULL},
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=group_min", "num_vcs=2", "local_latency=3",
		 "global_latency=20", "internal_speedup=2.0", "routing_delay=0", NULL},
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal:mode=booksim", "num_vcs=3",
		 "internal_speedup=2.0", "routing_delay=0", "packet_size=1..3", NULL},
		{"topology=mesh:k=4x4", "routing_function=dor", "num_vcs=2", "internal_speedup=1.5", "packet_size=2",
		 NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint64_t digest[2], ptrs[2];
		for (int full = 0; full < 2; full++) {
			static const char *const extra[] = {"seed=7", "vc_buf_size=4", "injection_rate=0.7", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, cases[c], extra, &e), &e);
			CHECK(f.n->plain && f.n->unit_delays);
			if (full)
				f.n->plain = false;
			fx_run_digests(&f, 3000, &digest[full], &ptrs[full]);
			CHECK(f.n->flit_hops > 5000);
			fx_close(&f);
		}
		fx_same(c, "plain loops", "full loops", digest, ptrs);
	}
}

/* The VC stage's two shortcuts change nothing: parking a head with no free
 * VC until one of its port's VCs is freed (va_park), and deciding alone a
 * head that is the only one asking for its port's VCs under iSLIP, and
 * several such heads of one port together (va_split). Saturated networks, so heads do park (some are parked when
 * the run stops), with ranges of VCs per head, the tail's credit freeing
 * a VC, ranges of different hop classes on one port with three iSLIP
 * iterations, random routes decided upstream, and a by-priority allocator.
 * Random routes computed on arrival get no parking (flitnet_build.c says why). */
static void test_va_shortcuts_invisible(void)
{
	static const struct {
		const char *kv[7];
		bool split, la;
		/* Single-VC heads park on the port's list, not as bits
		 * (va_wmask): under a by-priority allocator without single
		 * requests (a freed VC wakes all of them), or with more than
		 * 64 input VCs (eq_ugal: 10 ports x 8). */
		bool list;
	} cases[] = {
		{{"topology=hyperx:s=4x4,t=2", "routing_function=min:select=first,classes=none", "vc_allocator=islip",
		  "num_vcs=8", NULL},
		 true, false, false},
		{{"topology=hyperx:s=4x4,t=2", "routing_function=min:select=first,classes=none", "vc_allocator=islip",
		  "num_vcs=4", "wait_for_tail_credit=1", NULL},
		 true, false, false},
		{{"topology=hyperx:s=4x4,t=2", "routing_function=min:select=first,classes=hop", "vc_allocator=islip",
		  "num_vcs=4", "alloc_iters=3", NULL},
		 true, false, false},
		{{"topology=fattree:k=2,n=3", "routing_function=nca", "vc_allocator=islip", "num_vcs=4", "routing_delay=0",
		  "lookahead_decide=upstream", NULL},
		 true, true, false},
		{{"topology=dragonfly:a=4,p=2,h=2", "routing_function=group_min", "num_vcs=2",
		  "vc_allocator=separable_input_first", NULL},
		 false, false, false},
		/* Random adaptive routes with their draws keyed to the computation
		 * (route.h, keyed_draws), one VC per hop class: the freed VC's
		 * arbiter's first head alone is woken (router.c, fl_router_va_wake),
		 * with one and with two iSLIP iterations, the tail's credit freeing
		 * the VC, and two VCs per class (every head asking for the VC). */
		{{"topology=N16K6P4[-1,1,3,9](2)", "routing_function=amin", "num_vcs=2", NULL}, true, false, false},
		{{"topology=N16K6P4[-1,1,3,9](2)", "routing_function=amin", "num_vcs=2", "alloc_iters=2",
		  "wait_for_tail_credit=1", NULL},
		 true, false, false},
		{{"topology=N16K6P4[-1,1,3,9](2)", "routing_function=eq_ugal", "num_vcs=8", NULL}, true, false, true},
		{{"topology=N16K6P4[-1,1,3,9](2)", "routing_function=bgal", "num_vcs=4",
		  "vc_allocator=separable_output_first", NULL},
		 false, false, true},
		/* Heads with one VC beside heads with two candidates (UGAL's
		 * minimal and Valiant ports), by-priority allocators: under
		 * separable_input_first a head that lost its one VC is parked
		 * at once and a freed VC wakes its arbiter's first head alone;
		 * under separable_output_first an output may grant a
		 * two-candidate head that accepts elsewhere, leaving the VC
		 * free: a loser parks only when its VC was granted, and a
		 * freed VC wakes every head asking for it alone (router.c,
		 * fl_va_allocate and fl_router_va_wake). */
		{{"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal", "num_vcs=6", "routing_delay=0",
		  "lookahead_decide=upstream", "vc_allocator=separable_input_first", NULL},
		 false, true, false},
		{{"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal", "num_vcs=6", "routing_delay=0",
		  "lookahead_decide=upstream", "vc_allocator=separable_output_first", NULL},
		 false, true, true},
		{{"topology=N16K6P4[-1,1,3,9](2)", "routing_function=amin", "num_vcs=2",
		  "vc_allocator=separable_input_first", NULL},
		 false, false, false},
		{{"topology=N16K6P4[-1,1,3,9](2)", "routing_function=amin", "num_vcs=2",
		  "vc_allocator=separable_output_first", NULL},
		 false, false, true},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint64_t digest[2], ptrs[2];
		bool parked = false;
		for (int plain = 0; plain < 2; plain++) {
			static const char *const base[] = {"packet_size=1..4", "injection_rate=0.8", "seed=5", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, base, cases[c].kv, &e), &e);
			CHECK(f.n->va_park);
			CHECK(f.n->va_split == cases[c].split);
			CHECK(f.n->la_upstream == cases[c].la);
			CHECK((f.n->va_wmask == NULL) == cases[c].list);
			if (plain)
				f.n->va_park = f.n->va_split = false;
			fx_run_digests(&f, 3000, &digest[plain], &ptrs[plain]);
			for (uint32_t g = 0; !plain && g < f.t->n_ports; g++)
				for (uint32_t v = 0; v < f.n->V; v++)
					parked |= fl_va_waiting(f.n, g, (uint64_t)g * f.n->V + v);
			CHECK(f.n->flit_hops > 5000);
			fx_close(&f);
		}
		CHECK(parked);
		fx_same(c, "with shortcuts", "without", digest, ptrs);
	}
	static const char *const drawing[][4] = {
		{"topology=fattree:k=2,n=3", "routing_function=nca", NULL},
		{"topology=torus:k=4x4", "routing_function=dor", NULL},
	};
	for (size_t c = 0; c < sizeof drawing / sizeof *drawing; c++) {
		struct fx f;
		struct nl_err e = {0};
		CHECK_OK(fx_open(&f, drawing[c], &e), &e);
		CHECK(!f.n->va_park);
		fx_close(&f);
	}
}

/* Sources wait in a calendar of the next FL_CAL_SLOTS cycles and a heap
 * beyond it (flitnet.c, fl_gen_push): runs with it must equal runs where
 * every source waits in the heap until its cycle (cal_reach = 1, the
 * engine before the calendar), at a rate whose waits fit the calendar, one
 * where about 40% of them do not (mean wait 1,000 cycles: sources move
 * from the heap into the calendar), and one where nearly none do, on one
 * partition and on three, with packets of several sizes. */
static void test_source_calendar_is_heap(void)
{
	static const char *const rates[][3] = {
		{"injection_rate=0.3", "partitions=1", NULL},
		{"injection_rate=0.004", "partitions=3", NULL},
		{"injection_rate=0.004", "partitions=1", NULL},
		{"injection_rate=0.0002", "partitions=1", NULL},
	};
	for (size_t c = 0; c < sizeof rates / sizeof *rates; c++) {
		uint64_t digest[2], ptrs[2];
		uint64_t heap_max = 0, flits = 0;
		for (int heap = 0; heap < 2; heap++) {
			static const char *const base[] = {"topology=torus:k=4x4", "packet_size=1..4", "seed=9", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, base, rates[c], &e), &e);
			for (uint32_t k = 0; k < f.n->n_parts; k++)
				f.n->part[k]->cal_reach = heap ? 1 : FL_CAL_SLOTS;
			for (uint64_t t = 2000; t <= 40000; t += 2000) {
				CHECK_OK(flitnet_run_until(f.n, t, &e), &e);
				for (uint32_t k = 0; !heap && k < f.n->n_parts; k++)
					heap_max = f.n->part[k]->gen_n > heap_max ? f.n->part[k]->gen_n : heap_max;
			}
			fx_run_digests(&f, 40000, &digest[heap], &ptrs[heap]);
			flits = f.n->obs.sent_flits;
			fx_close(&f);
		}
		CHECK(flits > 100);
		if (c > 0) /* waits beyond the calendar did go through the heap */
			CHECK(heap_max > 0);
		fx_same(c, "calendar", "heap alone", digest, ptrs);
	}
}

/* A network whose allocator scratch the allocator tests use. */
static struct flitnet *small_net(struct fx *f)
{
	const char *kv[] = {"topology=mesh:k=2x2", "num_vcs=4", NULL};
	struct nl_err e = {0};
	CHECK_OK(fx_open(f, kv, &e), &e);
	return f->n;
}

static void clear_match(struct flitnet *n, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++)
		n->in_match[i] = n->out_match[i] = -1;
}

/* The registry lists the configuration's choices, in order. */
static void test_alloc_registry(void)
{
	const struct param_def *d = net_router_table.keys;
	while (d->name && strcmp(d->name, "vc_allocator"))
		d++;
	CHECK(d->name != NULL);
	uint32_t k = 0;
	for (; alloc_registry[k]; k++) {
		CHECK(d->choices[k] != NULL);
		CHECK_STR(alloc_registry[k]->name, d->choices[k]);
		CHECK(alloc_registry[k]->run != NULL);
		CHECK(alloc_registry[k]->help && *alloc_registry[k]->help);
	}
	CHECK(d->choices[k] == NULL);
}

/* Separable allocators grant by priority before round robin, in the
 * single-input shortcut and in the general case; iSLIP ignores priority. */
static void test_alloc_priority(void)
{
	struct fx f;
	struct flitnet *n = small_net(&f);
	uint16_t aptr[4] = {0}, gptr[4] = {0};

	/* One input asking for outputs 0 and 1; the pointer favours 0, the
	 * priority 1. */
	const struct fl_areq one_in[] = {
		{.in = 0, .out = 0, .label = 0, .in_pri = 0, .out_pri = 0},
		{.in = 0, .out = 1, .label = 1, .in_pri = 5, .out_pri = 5},
	};
	for (uint32_t a = 0; alloc_registry[a]; a++) {
		clear_match(n, 4);
		memset(aptr, 0, sizeof aptr);
		memset(gptr, 0, sizeof gptr);
		fl_allocate(n, alloc_registry[a], 1, one_in, 2, 4, 4, aptr, gptr);
		CHECK_EQ(n->in_match[0], alloc_registry[a]->by_priority ? 1 : 0);
	}

	/* General case: inputs 0 and 1 both want output 0, input 1 also
	 * output 1. Round robin (input 1's pointer at output 1) matches 0-0
	 * and 1-1; priority gives output 0 to input 1. */
	const struct fl_areq gen[] = {
		{.in = 0, .out = 0, .label = 0, .in_pri = 0, .out_pri = 0},
		{.in = 1, .out = 0, .label = 1, .in_pri = 9, .out_pri = 9},
		{.in = 1, .out = 1, .label = 2, .in_pri = 0, .out_pri = 0},
	};
	for (uint32_t a = 0; alloc_registry[a]; a++) {
		clear_match(n, 4);
		memset(aptr, 0, sizeof aptr);
		memset(gptr, 0, sizeof gptr);
		aptr[1] = 1;
		fl_allocate(n, alloc_registry[a], 1, gen, 3, 4, 4, aptr, gptr);
		if (alloc_registry[a]->by_priority) {
			CHECK_EQ(n->out_match[0], 1);
			CHECK_EQ(n->in_match[1], 0);
			CHECK_EQ(n->in_match[0], -1);
		} else {
			CHECK_EQ(n->out_match[0], 0);
			CHECK_EQ(n->in_match[1], 1);
			CHECK_EQ(n->in_match[0], 0);
		}
		/* Pointers move one past each match. */
		for (uint32_t i = 0; i < 2; i++)
			if (n->in_match[i] >= 0) {
				CHECK_UINT(aptr[i], ==, (uint32_t)n->in_match[i] + 1);
				CHECK_UINT(gptr[n->in_match[i]], ==, i + 1);
			}
	}
	fx_close(&f);
}

/* iSLIP: a second iteration matches what the first left unmatched, and
 * pointers move only for first-iteration matches (McKeown 1999 §III). */
static void test_islip_iterations(void)
{
	struct fx f;
	struct flitnet *n = small_net(&f);
	const struct fl_areq rq[] = {
		{.in = 0, .out = 0}, {.in = 0, .out = 1}, {.in = 1, .out = 0}, {.in = 1, .out = 1},
	};
	for (uint32_t iters = 1; iters <= 3; iters++) {
		uint16_t aptr[4] = {0}, gptr[4] = {0};
		clear_match(n, 4);
		fl_allocate(n, &alloc_islip_ops, iters, rq, 4, 4, 4, aptr, gptr);
		/* Iteration 1: both outputs grant input 0, which accepts output 0. */
		CHECK_EQ(n->in_match[0], 0);
		CHECK_UINT(aptr[0], ==, 1);
		CHECK_UINT(gptr[0], ==, 1);
		if (iters == 1) {
			CHECK_EQ(n->in_match[1], -1);
			CHECK_EQ(n->out_match[1], -1);
		} else {
			CHECK_EQ(n->in_match[1], 1);
			CHECK_EQ(n->out_match[1], 1);
		}
		/* The second-iteration match leaves its pointers alone. */
		CHECK_UINT(aptr[1], ==, 0);
		CHECK_UINT(gptr[1], ==, 0);
	}
	/* Through the model: alloc_iters changes the run. */
	uint64_t d[2];
	for (int it = 0; it < 2; it++) {
		const char *kv[] = {"topology=torus:k=4x4", "num_vcs=4", "injection_rate=0.6", "seed=2",
				    it ? "alloc_iters=3" : "alloc_iters=1", NULL};
		struct fx g;
		struct nl_err e = {0};
		CHECK_OK(fx_open(&g, kv, &e), &e);
		CHECK_OK(flitnet_run_until(g.n, 3000, &e), &e);
		d[it] = fx_digest(g.n);
		fx_close(&g);
	}
	CHECK(d[0] != d[1]);
	fx_close(&f);
}

/* The separable allocators as BookSim defines them, written plainly: every
 * pass over every request (alloc.c walks only the first-stage winners
 * after its first pass). */
static uint32_t ref_rr(int32_t idx, uint32_t ptr, uint32_t size)
{
	return (uint32_t)idx >= ptr ? (uint32_t)idx - ptr : (uint32_t)idx + size - ptr;
}

/* One stage of arbiters: each arbiter (the request's input when by_in,
 * else its output) keeps in win[] its best request among those `filter`
 * passes (first[] of the other side holds k, or no filter): priority,
 * then round robin from ptr[arbiter] over `size`, the first of equals. */
static void ref_stage(const struct fl_areq *rq, uint32_t n_req, bool by_in, const int32_t *filter,
		      bool filter_by_in, int32_t *win, const uint16_t *ptr, uint32_t size)
{
	for (uint32_t k = 0; k < n_req; k++) {
		if (filter && filter[filter_by_in ? rq[k].in : rq[k].out] != (int32_t)k)
			continue;
		int32_t a = by_in ? rq[k].in : rq[k].out, c = win[a];
		int32_t pri = by_in ? rq[k].in_pri : rq[k].out_pri;
		uint32_t key = ref_rr(by_in ? rq[k].out : rq[k].in, ptr[a], size);
		if (c < 0) {
			win[a] = (int32_t)k;
			continue;
		}
		int32_t cpri = by_in ? rq[c].in_pri : rq[c].out_pri;
		uint32_t ckey = ref_rr(by_in ? rq[c].out : rq[c].in, ptr[a], size);
		if (pri > cpri || (pri == cpri && key < ckey))
			win[a] = (int32_t)k;
	}
}

static void ref_separable(bool input_first, const struct fl_areq *rq, uint32_t n_req, uint32_t n_in,
			  uint32_t n_out, uint16_t *aptr, uint16_t *gptr, int32_t *in_m, int32_t *out_m)
{
	int32_t first[64], second[64];
	for (uint32_t i = 0; i < 64; i++)
		first[i] = second[i] = -1;
	for (uint32_t i = 0; i < n_in; i++)
		in_m[i] = -1;
	for (uint32_t o = 0; o < n_out; o++)
		out_m[o] = -1;
	if (input_first) {
		ref_stage(rq, n_req, true, NULL, true, first, aptr, n_out);
		ref_stage(rq, n_req, false, first, true, second, gptr, n_in);
	} else {
		ref_stage(rq, n_req, false, NULL, false, first, gptr, n_in);
		ref_stage(rq, n_req, true, first, false, second, aptr, n_out);
	}
	for (uint32_t k = 0; k < n_req; k++) {
		if (second[input_first ? rq[k].out : rq[k].in] != (int32_t)k)
			continue;
		in_m[rq[k].in] = rq[k].out;
		out_m[rq[k].out] = rq[k].in;
		aptr[rq[k].in] = (uint16_t)((uint32_t)rq[k].out + 1 == n_out ? 0 : rq[k].out + 1);
		gptr[rq[k].out] = (uint16_t)((uint32_t)rq[k].in + 1 == n_in ? 0 : rq[k].in + 1);
	}
}

/* Run `ops` (NULL: fl_allocate_outputs, the output stage alone) on
 * `given` and the plain version on `full` from the same pointers (ap0,
 * gp0); both must give the same matches and pointers and leave the
 * allocator's scratch clear. */
static void sep_same(struct flitnet *n, const struct alloc_ops *ops, bool input_first, const struct fl_areq *given,
		     uint32_t n_given, const struct fl_areq *full, uint32_t n_full, uint32_t S, const uint16_t *ap0,
		     const uint16_t *gp0)
{
	uint16_t ap[64], gp[64], rap[64], rgp[64];
	int32_t rin[64], rout[64];
	memcpy(ap, ap0, S * sizeof *ap);
	memcpy(gp, gp0, S * sizeof *gp);
	memcpy(rap, ap0, S * sizeof *rap);
	memcpy(rgp, gp0, S * sizeof *rgp);
	ref_separable(input_first, full, n_full, S, S, rap, rgp, rin, rout);
	clear_match(n, S);
	if (ops)
		fl_allocate(n, ops, 1, given, n_given, S, S, ap, gp);
	else
		fl_allocate_outputs(n, given, n_given, S, S, ap, gp);
	for (uint32_t i = 0; i < S; i++) {
		CHECK_EQ(n->in_match[i], rin[i]);
		CHECK_EQ(n->out_match[i], rout[i]);
		CHECK_UINT(ap[i], ==, rap[i]);
		CHECK_UINT(gp[i], ==, rgp[i]);
		CHECK_EQ(n->best_in[i], -1);
		CHECK_EQ(n->best_out[i], -1);
	}
}

/* Random request sets (shared inputs and outputs, priority tiers, random
 * pointers): both separable allocators give the plain
 * version's matches and pointers, and leave their scratch clear. With
 * input-first, passing each input only its first-stage winner (what the
 * VC stage does under alloc_ops.input_single_request) changes nothing, and
 * the output stage alone then does what the whole allocator does. */
static void test_separable_equals_plain(void)
{
	struct fx f;
	struct flitnet *n = small_net(&f);
	const uint32_t S = n->scratch_ports < 12 ? n->scratch_ports : 12;
	uint64_t x = 88172645463325252ULL;
#define RND(m) ((x ^= x << 13, x ^= x >> 7, x ^= x << 17), (uint32_t)(x % (m)))
	CHECK(alloc_sep_in_ops.input_single_request && !alloc_sep_out_ops.input_single_request &&
	      !alloc_islip_ops.input_single_request);
	for (int trial = 0; trial < 3000; trial++) {
		/* As the router builds them: no (input, output) pair twice, output
		 * priority 0 (VC allocation: the route's priority on the input
		 * side; switch allocation: none). */
		struct fl_areq rq[32], one[32];
		uint32_t n_req = 0, n_one = 0, want = 1 + RND(24);
		const bool one_input = RND(4) == 0; /* a head asking for a range of one port's VCs */
		const int32_t in0 = (int32_t)RND(S);
		for (uint32_t t = 0; t < 4 * want && n_req < want; t++) {
			/* Drawn in this order (an initializer list's order is unspecified). */
			const int32_t in = one_input ? in0 : (int32_t)RND(S), out = (int32_t)RND(S);
			struct fl_areq r = {.in = in, .out = out, .label = (int32_t)n_req, .in_pri = (int32_t)RND(3)};
			bool dup = false;
			for (uint32_t k = 0; k < n_req && !dup; k++)
				dup = rq[k].in == r.in && rq[k].out == r.out;
			if (!dup)
				rq[n_req++] = r;
		}
		uint16_t ap0[64], gp0[64];
		for (uint32_t i = 0; i < S; i++) {
			ap0[i] = (uint16_t)RND(S);
			gp0[i] = (uint16_t)RND(S);
		}
		sep_same(n, &alloc_sep_in_ops, true, rq, n_req, rq, n_req, S, ap0, gp0);
		sep_same(n, &alloc_sep_out_ops, false, rq, n_req, rq, n_req, S, ap0, gp0);
		/* Each input's first-stage winner alone, in order of first request. */
		for (uint32_t k = 0; k < n_req; k++) {
			uint32_t j = 0;
			while (j < n_one && one[j].in != rq[k].in)
				j++;
			if (j == n_one) {
				one[n_one++] = rq[k];
				continue;
			}
			uint32_t p = ap0[rq[k].in];
			if (rq[k].in_pri > one[j].in_pri ||
			    (rq[k].in_pri == one[j].in_pri && ref_rr(rq[k].out, p, S) < ref_rr(one[j].out, p, S)))
				one[j] = rq[k];
		}
		sep_same(n, &alloc_sep_in_ops, true, one, n_one, rq, n_req, S, ap0, gp0);
		sep_same(n, NULL, true, one, n_one, rq, n_req, S, ap0, gp0);
	}
#undef RND
	fx_close(&f);
}

/* Packet records keep their creation cycle mod 2^32: ages and the full
 * cycle come back exactly on both sides of a 2^32 boundary. */
static void test_pkt_ctime_wrap(void)
{
	const uint64_t nows[] = {5, 1ULL << 32, (1ULL << 32) + 3, (5ULL << 32) + 17, 123456789012345ULL};
	const uint64_t ages[] = {0, 1, 4, 1000, 0xFFFFFFFFULL};
	for (size_t i = 0; i < sizeof nows / sizeof *nows; i++)
		for (size_t j = 0; j < sizeof ages / sizeof *ages; j++) {
			if (ages[j] > nows[i])
				continue;
			struct fl_pkt pk = {.ctime = (uint32_t)(nows[i] - ages[j])};
			CHECK(fl_pkt_ctime(&pk, nows[i]) == nows[i] - ages[j]);
			CHECK((uint32_t)((uint32_t)nows[i] - pk.ctime) == ages[j]);
		}
}

/* Run-time allocations that fail end the run with NL_ENOMEM and a one-line
 * message, never an abort, whichever allocation it is. */
static void test_run_oom(void)
{
	const char *kv[] = {"topology=torus:k=4x4", "num_vcs=2", "vc_buf_size=16", "packet_size=1..8",
			    "internal_speedup=2.0", "input_speedup=2", "output_speedup=2", "injection_rate=0.9",
			    "seed=1", NULL};
	uint32_t failed = 0, nth;
	for (nth = 1; nth < 200; nth++) {
		struct fx f;
		struct nl_err e = {0};
		CHECK_OK(fx_open(&f, kv, &e), &e);
		f.n->fail_nth = nth;
		int rc = flitnet_run_until(f.n, 3000, &e);
		if (rc == 0) {
			fx_close(&f);
			break;
		}
		CHECK_ERR(rc, NL_ENOMEM, &e, "out of memory at cycle");
		failed++;
		fx_close(&f);
	}
	/* Every run-time allocation of this run was made to fail once: the
	 * pools, the wheel's slots and the far-event heap. */
	CHECK_UINT(failed, >=, 5);
	CHECK_UINT(nth, <, 200);

	/* A message the backend cannot allocate is an error for the caller. */
	struct config cfg;
	struct nl_err e = {0};
	struct topo *t = NULL;
	struct net_backend b = {0};
	config_init(&cfg, all_tables, sizeof all_tables / sizeof *all_tables);
	CHECK_OK(config_set(&cfg, "topology=mesh:k=2x2", NULL, "test", &e), &e);
	CHECK_OK(topo_new("mesh:k=2x2", &t, &e), &e);
	b.ops = net_backend_find("flit", &e);
	CHECK_OK(b.ops->create(&b, &cfg, t, &e), &e);
	fl_backend_net(&b)->fail_nth = 1;
	CHECK_ERR(b.ops->send(&b, 0, 0, 3, 64, 1, &e), NL_ENOMEM, &e, "out of memory");
	b.ops->destroy(&b);
	topo_free(t);
	config_release(&cfg);
}

/* The far-event heap keeps memory to events in flight: with speedup 2
 * and 256-flit VCs the wheel has a handful of slots, not VCs x depth. */
static void test_wheel_is_small(void)
{
	const char *kv[] = {"topology=torus:k=4x4", "num_vcs=4", "vc_buf_size=256", "internal_speedup=2.0",
			    "injection_rate=0.7", "packet_size=4", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	CHECK_UINT(f.n->wheel_mask + 1u, <=, 8);
	f.n->sc.check_interval = 101;
	CHECK_OK(flitnet_run_until(f.n, 3000, &e), &e);
	CHECK_OK(flitnet_check(f.n, &e), &e);
	CHECK(f.n->far_seq > 0); /* the far path was taken */
	fx_close(&f);
}

/* The wheel's memory follows the events in flight, not the busiest cycle
 * times the wheel's span: with 100-cycle global links at 0.6, the event
 * blocks ever allocated are at most the peak of events pending (sampled
 * every cycle) in full blocks plus one part-filled block per chain (flits,
 * credits) of each slot. Slot arrays kept at their peak needed about the
 * busiest cycle's events in every one of the 128 slots. */
static void test_wheel_follows_events(void)
{
	const char *kv[] = {"topology=dragonfly:a=4,p=2,h=2", "routing_function=min", "num_vcs=3",
			    "local_latency=10", "global_latency=100", "injection_rate=0.6", "seed=3", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	CHECK_UINT(f.n->wheel_mask + 1u, ==, 128);
	uint64_t peak = 0;
	for (uint64_t c = 1; c <= 1500; c++) {
		CHECK_OK(flitnet_run_until(f.n, c, &e), &e);
		if (fl_events_total(f.n) > peak)
			peak = fl_events_total(f.n);
	}
	CHECK_UINT(peak, >, 1000); /* long links hold many events */
	CHECK(f.n->cr_compact);
	uint64_t bound = (peak + FL_BLK_EVENTS - 1) / FL_BLK_EVENTS + 2u * (f.n->wheel_mask + 1u);
	CHECK_UINT(f.n->n_blk, <=, bound);
	CHECK_UINT(f.n->n_blk, >=, peak / FL_BLK_CREDITS);
	fx_close(&f);
}

/* Credits as 4-byte codes in a chain of their own, dispatched after the
 * slot's flits, give what full events in one mixed chain give (net_internal.h
 * says why they commute), and flits as 8-byte compact flits what 12-byte
 * events give: the same measurements, channel counts and arbiter pointers,
 * in both visit orders, with the tail's credit freeing VCs and waking
 * parked heads, with endpoint credits and multi-flit packets; and the
 * conservation check counts the codes and compact flits (check_interval). */
static void test_compact_credits_same(void)
{
	static const char *const cases[][6] = {
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal", "num_vcs=6", "global_latency=20",
		 "injection_rate=0.5", NULL},
		{"topology=torus:k=4x4", "routing_function=dor", "num_vcs=4", "wait_for_tail_credit=1",
		 "injection_rate=0.9", NULL},
		{"topology=torus:k=4x4", "routing_function=valiant", "num_vcs=4", "visit_order=reverse",
		 "packet_size=1..5", NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint64_t digest[3], ptrs[3];
		for (int mode = 0; mode < 3; mode++) { /* both compact, full flits, both full */
			static const char *const extra[] = {"seed=5", "vc_buf_size=2", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, cases[c], extra, &e), &e);
			CHECK(f.n->cr_compact && f.n->fl_compact);
			f.n->fl_compact = mode == 0;
			f.n->local_arrivals &= f.n->fl_compact; /* the lists read compact flits */
			f.n->cr_compact = mode < 2;
			f.n->sc.check_interval = 97;
			fx_run_digests(&f, 3000, &digest[mode], &ptrs[mode]);
			CHECK(f.n->flit_hops > 5000);
			fx_close(&f);
		}
		fx_same(c, "compact flits and credits", "compact credits", digest, ptrs);
		fx_same(c, "compact credits", "full events", digest + 1, ptrs + 1);
	}
}

/* The compact flit's index field is sized by the largest packet
 * (fl_cf_layout), so networks whose targets times VCs pass 2^16 keep
 * 8-byte flits: a 16x16 torus with 64 VCs (1,280 ports << 6 VC bits) has
 * them for packets of 1-5 flits (4 index bits, for the 16 flits of a
 * message's packet, packet_bytes / flit_bytes) and 1-40 flits (6 bits,
 * the field grown by the traffic's packet_size, in both partitions), and
 * gives what 12-byte events give; with packets of up to 65,535 flits the targets do not fit and
 * flits travel as events. */
static void test_compact_layout_sized(void)
{
	static const char *const cases[][6] = {
		{"topology=torus:k=16x16", "routing_function=dor", "num_vcs=64", "packet_size=1..5", NULL},
		{"topology=torus:k=16x16", "routing_function=valiant", "num_vcs=64", "packet_size=1..40",
		 "partitions=2", NULL},
	};
	static const uint32_t seq_mask[] = {15, 63};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint64_t digest[2], ptrs[2];
		for (int mode = 0; mode < 2; mode++) { /* compact flits, full events */
			static const char *const extra[] = {"seed=4", "vc_buf_size=8", "injection_rate=0.4", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, cases[c], extra, &e), &e);
			for (uint32_t k = 0; k < f.n->n_parts; k++) {
				struct flitnet *p = f.n->part[k];
				CHECK(p->fl_compact && p->cf_seq_mask == seq_mask[c] && p->cf_vbits == 6);
				CHECK(p->local_arrivals);
				p->fl_compact = p->local_arrivals = mode == 0;
			}
			fx_run_digests(&f, 1500, &digest[mode], &ptrs[mode]);
			CHECK(f.n->flit_hops > 20000);
			fx_close(&f);
		}
		fx_same(c, "compact flits", "full events", digest, ptrs);
	}
	const char *kv[] = {"topology=torus:k=16x16", "num_vcs=64", "packet_size=65535", "injection_rate=0.01", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	CHECK(!f.n->fl_compact && f.n->cf_seq_mask == 65535);
	fx_close(&f);
}

/* Arrivals dispatched router by router just before each router steps
 * (flitnet.c, fl_slot_arrival_lists) give what dispatching the whole slot
 * first gives: every figure and every arbiter pointer, on networks with
 * a decision at injection (UGAL's booksim mode, with internal speedup and
 * two partitions), lookahead decided upstream (nca), multi-flit packets
 * whose body flits join non-empty VCs, and one or two router steps a
 * cycle (internal_speedup 1.5). */
static void test_arrival_lists_same(void)
{
	static const char *const cases[][8] = {
		{"topology=dragonfly:a=4,p=2,h=2", "routing_function=ugal:mode=booksim", "num_vcs=3",
		 "global_latency=20", "internal_speedup=2.0", "partitions=2", "injection_rate=0.6", NULL},
		{"topology=fattree:k=4,n=3", "routing_function=nca", "num_vcs=4", "routing_delay=0",
		 "lookahead_decide=upstream", "injection_rate=0.7", NULL},
		{"topology=torus:k=4x4", "routing_function=valiant", "num_vcs=4", "packet_size=1..5",
		 "injection_rate=0.9", NULL},
		{"topology=mesh:k=4x4", "routing_function=dor", "num_vcs=2", "internal_speedup=1.5",
		 "packet_size=2", "injection_rate=0.3", NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint64_t digest[2], ptrs[2];
		for (int mode = 0; mode < 2; mode++) { /* per router, the whole slot first */
			static const char *const extra[] = {"seed=3", "vc_buf_size=4", NULL};
			struct fx f;
			struct nl_err e = {0};
			CHECK_OK(fx_open2(&f, cases[c], extra, &e), &e);
			CHECK(f.n->local_arrivals);
			for (uint32_t k = 0; k < f.n->n_parts; k++)
				f.n->part[k]->local_arrivals = mode == 0;
			f.n->sc.check_interval = 101;
			fx_run_digests(&f, 3000, &digest[mode], &ptrs[mode]);
			CHECK(f.n->flit_hops > 5000);
			for (uint32_t k = 0; k < f.n->n_parts; k++)
				CHECK((f.n->part[k]->arr_cap > 0) == (mode == 0));
			fx_close(&f);
		}
		fx_same(c, "arrivals per router", "whole slot", digest, ptrs);
	}
}

/* Arrivals are queued in input order behind what the router's last step
 * left queued, whatever the cycle numbers. With routing_delay = 2 a head
 * waits two steps in the route queue: X arrives at cycle 6, A at 7 (queued
 * behind X), both have left by cycle 9; the router's next arrivals come
 * exactly 2^32 cycles after A's. A 32-bit arrival stamp took them for
 * cycle 7's: it linked them behind X, no longer queued, and left the
 * queue's head stale. */
static uint32_t fx_head_pkt(struct flitnet *n, uint32_t dst_ep)
{
	uint32_t p = fl_pkt_alloc(n);
	memset(&n->pool.pkts[p], 0, sizeof n->pool.pkts[p]);
	n->pool.pkts[p].size = 1;
	n->pool.pkts[p].rt.dst_ep = dst_ep;
	return p;
}

static void test_arrival_order_after_2p32(void)
{
	const char *kv[] = {"topology=torus:k=4x4", "routing_function=dor", "num_vcs=2", "routing_delay=2", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	struct flitnet *n = f.n;
	CHECK(!n->unit_delays);
	CHECK_OK(fl_reserve(n, &e), &e);
	const uint32_t r = 5, V = n->V, far = n->topo->n_endpoints - 1;
	struct fl_router *ro = &n->routers[r];
	const uint32_t g = ro->port_base;
	n->now = 6;
	fl_router_arrive(n, r, g + 1, 0, fx_head_pkt(n, far), 0); /* X, li 2 */
	fl_router_step(n, r);
	n->now = 7;
	fl_router_arrive(n, r, g + 3, 1, fx_head_pkt(n, far), 0); /* A, li 7 */
	CHECK_UINT(ro->route_q.len, ==, 2);
	fl_router_step(n, r);
	for (n->now = 8; n->now <= 9; n->now++) /* one route evaluation at a time */
		fl_router_step(n, r);
	CHECK_UINT(ro->route_q.len, ==, 0);
	n->now = 7 + (1ULL << 32);
	fl_router_arrive(n, r, g + 2, 1, fx_head_pkt(n, far), 0); /* li 5 */
	fl_router_arrive(n, r, g + 0, 1, fx_head_pkt(n, far), 0); /* li 1: ahead of li 5 */
	CHECK_UINT(ro->route_q.len, ==, 2);
	CHECK_UINT(ro->route_q.head, ==, 0 * V + 1);
	CHECK_UINT(n->ivc[ro->vc_base + 0 * V + 1].node.next, ==, 2 * V + 1);
	CHECK_UINT(ro->route_q.tail, ==, 2 * V + 1);
	n->now = 0;
	fx_close(&f);
}

/* With pipelined_stages = 0 (the default, and what a converted BookSim file
 * gets) route computation serves one head at a time, as BookSim's
 * IQRouter::_RouteEvaluate does (iq_router.cpp:470-473: it times the
 * leading untimed heads and stops at the first one already timed, and
 * _RouteUpdate pops only due heads from the front). With routing_delay = 3,
 * X arrives at cycle 6 (timed 6, done 8); A arrives at 7 behind it, is timed
 * only at 9, after X left at 8, and leaves at 11. A route stage taking a new
 * head every cycle would time A at 7 and let it go at 9: on a 4x4 mesh at 0.3
 * with routing_delay = 3 that gives 29.6 cycles where BookSim2 and netloom
 * give 37.1 (10 seeds each, BookSim 36.56..37.34, netloom 36.61..37.42). */
static void test_route_stage_one_at_a_time(void)
{
	const char *kv[] = {"topology=torus:k=4x4", "routing_function=dor", "num_vcs=2", "routing_delay=3", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	struct flitnet *n = f.n;
	CHECK(!n->rc.pipelined_stages);
	CHECK_OK(fl_reserve(n, &e), &e);
	const uint32_t r = 5, far = n->topo->n_endpoints - 1;
	struct fl_router *ro = &n->routers[r];
	const uint32_t g = ro->port_base;
	n->now = 6;
	fl_router_arrive(n, r, g + 1, 0, fx_head_pkt(n, far), 0); /* X */
	fl_router_step(n, r);
	n->now = 7;
	fl_router_arrive(n, r, g + 3, 1, fx_head_pkt(n, far), 0); /* A */
	fl_router_step(n, r);
	CHECK_UINT(ro->route_q.len, ==, 2);
	/* route_q.len after the steps of cycles 8 to 11: X leaves at 8, A at 11 */
	static const uint32_t left[] = {1, 1, 1, 0};
	for (n->now = 8; n->now <= 11; n->now++) {
		fl_router_step(n, r);
		CHECK_UINT(ro->route_q.len, ==, left[n->now - 8]);
	}
	n->now = 0;
	fx_close(&f);
}

/* The conservation check finds a broken balance wherever it is: on a
 * loaded network with events in flight, one credit too many on an output
 * VC in the first window of 4,096 output VCs, in the second, and an
 * injection VC's count one too high, each named in the message; restored,
 * the check passes again. */
/* The router's invariants a run must keep after every cycle: an input VC
 * holding an output VC is that VC's owner (no VC granted to two heads),
 * and every held crossbar connection (hold_switch_for_packet) is held at
 * both ends. Returns how many are broken. */
static uint32_t fx_router_invariants(const struct flitnet *n)
{
	uint32_t bad = 0;
	for (uint32_t r = 0; r < n->topo->n_routers; r++) {
		const struct fl_router *ro = &n->routers[r];
		for (uint32_t li = 0; li < (uint32_t)ro->n_ports * n->V; li++) {
			const struct fl_ivc *c = &n->ivc[ro->vc_base + li];
			if (c->state != VC_ACTIVE)
				continue;
			const uint64_t ov = (uint64_t)(ro->port_base + c->out_port) * n->V + c->out_vc;
			bad += n->ovc[ov].owner != li;
		}
	}
	if (!n->hold)
		return bad;
	const uint64_t isp = (uint64_t)n->rc.input_speedup, osp = (uint64_t)n->rc.output_speedup;
	for (uint32_t r = 0; r < n->topo->n_routers; r++) {
		const struct fl_router *ro = &n->routers[r];
		for (uint64_t k = 0; k < ro->n_ports * isp; k++) {
			const int32_t o = n->hold->in_out[ro->port_base * isp + k];
			if (o >= 0)
				bad += n->hold->out_in[ro->port_base * osp + (uint64_t)o] != (int32_t)k;
		}
		for (uint64_t k = 0; k < ro->n_ports * osp; k++) {
			const int32_t i = n->hold->out_in[ro->port_base * osp + k];
			if (i >= 0)
				bad += n->hold->in_out[ro->port_base * isp + (uint64_t)i] != (int32_t)k;
		}
	}
	return bad;
}

/* pipelined_stages = 1 with an internal speedup and a multi-cycle VC or
 * switch allocation: allocations evaluated in different steps of one
 * cycle complete in the same step (delays count cycles), and none saw
 * the others' grants. The later of two grants of one output VC must be
 * discarded (it was applied over the first: the VC had two owners, an
 * assertion in debug builds), and of two switch grants sharing a crossbar
 * input or output (two VCs of one input held the input at once under
 * hold_switch_for_packet, a stale hold froze the network at 3% of the
 * offered load). Checked every cycle; the network must carry its load. */
static void test_pipelined_speedup_same_cycle(void)
{
	static const char *const cases[][7] = {
		{"num_vcs=2", "internal_speedup=2.0", "vc_alloc_delay=2", NULL},
		{"num_vcs=4", "internal_speedup=1.5", "vc_alloc_delay=2", "vc_allocator=separable_input_first", NULL},
		{"num_vcs=2", "internal_speedup=3.0", "vc_alloc_delay=3", "topology=torus:k=4x4", NULL},
		{"num_vcs=4", "packet_size=4", "internal_speedup=2.0", "sw_alloc_delay=2", "hold_switch_for_packet=1",
		 NULL},
		{"num_vcs=4", "packet_size=4", "internal_speedup=1.5", "sw_alloc_delay=3", "hold_switch_for_packet=1",
		 "input_speedup=2", NULL},
		{"num_vcs=2", "packet_size=1..4", "internal_speedup=2.0", "vc_alloc_delay=2", "sw_alloc_delay=2",
		 "sw_allocator=separable_output_first", NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		static const char *const base[] = {"topology=mesh:k=4x4", "pipelined_stages=1", "injection_rate=0.2",
						   "seed=3", NULL};
		struct fx f;
		struct nl_err e = {0};
		CHECK_OK(fx_open2(&f, base, cases[c], &e), &e);
		uint32_t bad = 0;
		const uint64_t cycles = 3000;
		for (uint64_t t = 1; t <= cycles && !bad; t++) {
			CHECK_OK(flitnet_run_until(f.n, t, &e), &e);
			bad = fx_router_invariants(f.n);
		}
		if (bad) {
			TEST_FAIL_("case %zu (%s %s): %u broken at cycle %llu", c, cases[c][1], cases[c][2], bad,
				   (unsigned long long)f.n->now);
			fx_close(&f);
			continue;
		}
		CHECK_OK(flitnet_check(f.n, &e), &e);
		/* Offered 0.2 flits per endpoint and cycle: the network accepts it. */
		const double acc = (double)f.n->obs.accepted_flits / (double)cycles / f.n->topo->n_endpoints;
		if (acc < 0.18)
			TEST_FAIL_("case %zu: accepted %.4f flits/cycle/endpoint, offered 0.2", c, acc);
		fx_close(&f);
	}
}

static void test_check_finds_imbalance(void)
{
	const char *kv[] = {"topology=torus:k=16x16", "num_vcs=4", "injection_rate=0.5", "seed=2", NULL};
	struct fx f;
	struct nl_err e = {0};
	CHECK_OK(fx_open(&f, kv, &e), &e);
	CHECK_OK(flitnet_run_until(f.n, 400, &e), &e);
	CHECK_OK(flitnet_check(f.n, &e), &e);
	CHECK_UINT(fl_events_total(f.n), >, 100);
	const struct topo *t = f.n->topo;
	const uint64_t P = t->n_ports, V = f.n->V;
	CHECK_UINT((P + t->n_endpoints) * V, >, 4096);
	const uint64_t ovs[] = {1, 4096 + 7, P * V - 1};
	for (size_t k = 0; k < sizeof ovs / sizeof *ovs; k++) {
		const uint64_t ov = ovs[k], g = ov / V;
		char want[128];
		snprintf(want, sizeof want, "router %u port %u VC %u off by 1", t->port_router[g],
			 (uint32_t)(g - t->port_base[t->port_router[g]]), (uint32_t)(ov % V));
		f.n->ovc[ov].occ++;
		CHECK_ERR(flitnet_check(f.n, &e), NL_ECORRUPT, &e, want);
		f.n->ovc[ov].occ--;
	}
	const uint64_t s = (t->n_endpoints - 1) * V + 2;
	char want[128];
	snprintf(want, sizeof want, "endpoint %u VC 2 off by 1", (uint32_t)(t->n_endpoints - 1));
	f.n->nic_occ[s]++;
	CHECK_ERR(flitnet_check(f.n, &e), NL_ECORRUPT, &e, want);
	f.n->nic_occ[s]--;
	CHECK_OK(flitnet_check(f.n, &e), &e);
	fx_close(&f);
}

int main(void)
{
	TEST_RUN(test_vct_is_not_wormhole);
	TEST_RUN(test_tail_credit_releases);
	TEST_RUN(test_fast_path_equals_general);
	TEST_RUN(test_pipelined_speedup_same_cycle);
	TEST_RUN(test_plain_loops_same);
	TEST_RUN(test_va_shortcuts_invisible);
	TEST_RUN(test_alloc_registry);
	TEST_RUN(test_alloc_priority);
	TEST_RUN(test_islip_iterations);
	TEST_RUN(test_separable_equals_plain);
	TEST_RUN(test_pkt_ctime_wrap);
	TEST_RUN(test_run_oom);
	TEST_RUN(test_wheel_is_small);
	TEST_RUN(test_check_finds_imbalance);
	TEST_RUN(test_wheel_follows_events);
	TEST_RUN(test_compact_credits_same);
	TEST_RUN(test_arrival_lists_same);
	TEST_RUN(test_arrival_order_after_2p32);
	TEST_RUN(test_route_stage_one_at_a_time);
	TEST_RUN(test_compact_layout_sized);
	TEST_RUN(test_source_calendar_is_heap);
	return test_done();
}
