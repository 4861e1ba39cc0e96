/* Unit tests: sequential allocation ([router] sequential_allocation, seed
 * 001 §4.1 after Kim, Dally and Abts SC'06). A router's route decisions
 * see the flits routed there before them and not yet sent (route_view's
 * pend), counted in the load that ranks ports; the engine's count follows
 * each head from its route to the port the VC allocator grants and leaves
 * it flit by flit at the switch. Checked here: the views (the count adds
 * once per port and stays out of DAL's blocked test; anca's choices), the
 * engine's count against the heads it describes in a loaded run, that off
 * changes nothing, on is deterministic and the same with partitions, and
 * the refused combinations. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "net/net_internal.h"
#include "route/hyperx_route.h"
#include "route/route.h"
#include "topo/topo.h"
#include "net_config.h"
#include "point_json.h"
#include "anca_fixture.h"
#include "test.h"

/* The view: pend adds once to a port's summed load, not per VC. */
static void test_view_adds_pend_once(void)
{
	uint16_t occ[3 * 4] = {0};
	uint32_t pend[3] = {0, 5, 0};
	occ[1 * 4 + 2] = 3; /* port 1, VC 2 */
	struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 4, .vc_buf_size = 8, .gocc_base = occ};
	CHECK_UINT(route_view_port_occ(&v, 1), ==, 3);
	v.gpend = pend; /* the router's port_base is 0 */
	CHECK_UINT(route_view_port_occ(&v, 1), ==, 8);
	CHECK_UINT(route_view_occ(&v, 1, 2), ==, 3); /* a VC's own buffer: no pend */
	CHECK_UINT(route_view_gocc(&v, 1), ==, 8);
	CHECK_UINT(route_view_port_occ(&v, 0), ==, 0);
	/* HyperX helpers: the sum counts pend once; the credit rule of the
	 * blocked test ignores it, the queue rule reads it alone. */
	uint32_t room;
	const struct hxr_block credit = {1, 0}, queue5 = {0, 5}, queue6 = {0, 6}, both = {1, 6}, none = {0, 0};
	CHECK_UINT(hxr_port_q((const char *)&occ[4], sizeof *occ, 2, credit, pend[1], &room), ==, 5);
	CHECK(room); /* VCs 0 and 1 of port 1 are empty downstream */
	CHECK_UINT(hxr_port_q((const char *)&occ[4], sizeof *occ, 2, queue5, pend[1], &room), ==, 5);
	CHECK(!room); /* 5 flits routed to it here: blocked at queue = 5 */
	hxr_port_q((const char *)&occ[4], sizeof *occ, 2, queue6, pend[1], &room);
	CHECK(room);
	/* Port 1's VCs 2..3: VC 2 holds 3 flits, VC 3 none; both must hold
	 * `block` for the credit rule. */
	hxr_port_q((const char *)&occ[4 + 2], sizeof *occ, 1, both, pend[1], &room);
	CHECK(!room); /* VC 2 alone, 3 >= 1 */
	hxr_port_q((const char *)&occ[4 + 2], sizeof *occ, 2, both, pend[1], &room);
	CHECK(room); /* VC 3 is empty */
	hxr_port_q((const char *)&occ[4 + 2], sizeof *occ, 1, none, 1000, &room);
	CHECK(room); /* both rules off: never blocked */
	CHECK_UINT(hxr_occ(&v, 1, 0, 3), ==, 8);
}

/* anca:choices=0 compares every up-port and takes the least loaded, the
 * flits already routed there included; with no count the drawn one wins
 * ties. choices=2 is BookSim's default rule, the same draws. */
/* anca:queue=routed compares the routed counts alone: the port with
 * the fewest flits routed to it here wins even when its credits say it
 * is the busiest; credit (the default) takes the other view's side. It
 * needs sequential allocation (refused without). */
static void test_anca_routed(void)
{
	struct nl_err e = {0};
	struct anca_fx f;
	struct route *routed = NULL, *credit = NULL;
	CHECK_OK(anca_fx_open(&f, &e), &e);
	CHECK_OK(route_new("anca:choices=0,queue=routed", f.t, 1, &routed, &e), &e);
	CHECK_OK(route_new("anca:choices=0", f.t, 1, &credit, &e), &e);
	CHECK(routed->needs_pend);
	CHECK(!credit->needs_pend);
	const uint32_t src = f.src, *ups = f.ups, np = f.n_ports;
	uint16_t *occ = calloc(np, sizeof *occ);
	uint32_t *pend = calloc(np, sizeof *pend);
	for (uint32_t i = 0; i < f.n_up; i++) {
		pend[ups[i]] = 3;
		occ[ups[i]] = 1;
	}
	pend[ups[2]] = 0; /* fewest routed here ... */
	occ[ups[2]] = 6;  /* ... most in flight downstream */
	struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 1, .vc_buf_size = 8,
			       .gpend = pend};
	struct rng g;
	rng_init(&g, 5, RNG_CLASS_ROUTER, src);
	for (int i = 0; i < 16; i++) {
		struct route_pkt a = anca_fx_pkt(&f), b = a;
		struct route_cand ca, cb;
		CHECK_INT(routed->ops->compute(routed, src, 0, 0, &a, &g, &v, &ca), ==, 1);
		CHECK_UINT(ca.port, ==, ups[2]);
		CHECK_INT(credit->ops->compute(credit, src, 0, 0, &b, &g, &v, &cb), ==, 1);
		CHECK_UINT(cb.port, !=, ups[2]); /* 6 + 0 > 1 + 3 */
	}
	free(occ);
	free(pend);
	route_free(routed);
	route_free(credit);
	topo_free(f.t);
	const char *kv[] = {"topology=fattree:k=4,n=2", "routing_function=anca:queue=routed", "num_vcs=1",
			    "injection_rate=0.1", "sample_period=300", "max_samples=2", NULL};
	struct net_point pt;
	memset(&e, 0, sizeof e);
	CHECK_ERR(run_point_kv(kv, &pt, &e), NL_ECONFIG, &e, "needs [router] sequential_allocation = 1");
	net_point_release(&pt);
}

static void test_anca_choices(void)
{
	struct nl_err e = {0};
	struct anca_fx f;
	struct route *all = NULL, *two = NULL, *dflt = NULL;
	CHECK_OK(anca_fx_open(&f, &e), &e);
	CHECK_OK(route_new("anca:choices=0", f.t, 1, &all, &e), &e);
	CHECK_OK(route_new("anca:choices=2", f.t, 1, &two, &e), &e);
	CHECK_OK(route_new("anca", f.t, 1, &dflt, &e), &e);
	const uint32_t src = f.src, *ups = f.ups, n_up = f.n_up, np = f.n_ports;
	CHECK_UINT(n_up, ==, 4);
	uint16_t *occ = calloc(np, sizeof *occ);
	uint32_t *pend = calloc(np, sizeof *pend);
	for (uint32_t i = 0; i < n_up; i++)
		pend[ups[i]] = 2;
	pend[ups[3]] = 1; /* the least loaded only by the routed count */
	occ[ups[3]] = 0;
	struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 1, .vc_buf_size = 8,
			       .gpend = pend}; /* port_base 0: one router's ports */
	struct rng g1, g2, g3;
	rng_init(&g1, 9, RNG_CLASS_ROUTER, src);
	rng_init(&g2, 9, RNG_CLASS_ROUTER, src);
	rng_init(&g3, 9, RNG_CLASS_ROUTER, src);
	for (int i = 0; i < 32; i++) {
		struct route_pkt a = anca_fx_pkt(&f), b = a, c = a;
		struct route_cand ca, cb, cc;
		CHECK_INT(all->ops->compute(all, src, 0, 0, &a, &g1, &v, &ca), ==, 1);
		CHECK_UINT(ca.port, ==, ups[3]);
		CHECK_INT(two->ops->compute(two, src, 0, 0, &b, &g2, &v, &cb), ==, 1);
		CHECK_INT(dflt->ops->compute(dflt, src, 0, 0, &c, &g3, &v, &cc), ==, 1);
		CHECK_UINT(cb.port, ==, cc.port);
	}
	/* Without a count, equal loads: choices=0 keeps its one draw. */
	struct route_view none = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 1, .vc_buf_size = 8};
	uint32_t seen = 0;
	for (int i = 0; i < 64; i++) {
		struct route_pkt a = anca_fx_pkt(&f);
		struct route_cand ca;
		CHECK_INT(all->ops->compute(all, src, 0, 0, &a, &g1, &none, &ca), ==, 1);
		for (uint32_t k = 0; k < n_up; k++)
			seen |= (ca.port == ups[k]) << k;
	}
	CHECK_UINT(seen, ==, 15); /* every up-port drawn: not always the first */
	free(occ);
	free(pend);
	route_free(all);
	route_free(two);
	route_free(dflt);
	topo_free(f.t);
}

/* In a loaded run with single-flit packets, every router's count for each
 * output port equals its heads routed there and not yet sent: the heads
 * waiting for a VC whose preferred (first highest-priority) candidate is
 * the port, and the heads granted a VC on it. Checked at several cycles on
 * a fat tree with anca (one candidate) and a HyperX with DAL (tiers, so
 * grants move the count). */
static void check_pend_matches(const struct fx *f, const char *what)
{
	const struct flitnet *n = f->n;
	const struct topo *t = f->t;
	const uint32_t V = n->V;
	uint64_t bad = 0, total = 0;
	uint32_t *want = calloc(t->n_ports, sizeof *want);
	for (uint32_t r = 0; r < t->n_routers; r++) {
		const struct fl_router *ro = &n->routers[r];
		for (uint32_t li = 0; li < (uint32_t)ro->n_ports * V; li++) {
			uint64_t iv = (uint64_t)ro->vc_base + li;
			const struct fl_ivc *x = &n->ivc[iv];
			if (x->count == 0)
				continue;
			if (x->state == VC_ACTIVE) {
				want[ro->port_base + x->out_port]++;
			} else if (x->state == VC_VCALLOC) {
				want[ro->port_base + route_cands_preferred(fl_cands(n, iv), x->ncand)]++;
			}
		}
	}
	for (uint32_t g = 0; g < t->n_ports; g++) {
		bad += want[g] != n->pend[g];
		total += n->pend[g];
	}
	printf("  %s at cycle %llu: %llu flits counted, %llu ports differ\n", what, (unsigned long long)n->now,
	       (unsigned long long)total, (unsigned long long)bad);
	CHECK_UINT(bad, ==, 0);
	CHECK_UINT(total, >, 0); /* loaded: the check is not vacuous */
	free(want);
}

static void test_engine_count(void)
{
	static const char *const fat[] = {"topology=fattree:k=4,n=3", "routing_function=anca", "num_vcs=2",
					  "injection_rate=0.9", "sequential_allocation=1", "seed=3", NULL};
	static const char *const hx[] = {"topology=hyperx:s=4x4,t=4", "routing_function=dal", "num_vcs=6",
					 "vc_buf_size=8", "flow_control=vct", "vc_allocator=separable_input_first",
					 "input_speedup=2", "injection_rate=0.9", "traffic=bitcomp",
					 "sequential_allocation=1", "seed=3", NULL};
	const char *const *cases[] = {fat, hx};
	const char *names[] = {"fattree anca", "hyperx dal bitcomp"};
	for (int k = 0; k < 2; k++) {
		struct fx f;
		struct nl_err e = {0};
		CHECK_OK(fx_open(&f, cases[k], &e), &e);
		CHECK(f.n->pend != NULL);
		for (uint64_t c = 500; c <= 2000; c += 500) {
			CHECK_OK(flitnet_run_until(f.n, c, &e), &e);
			check_pend_matches(&f, names[k]);
		}
		fx_close(&f);
	}
}

/* Off (the default) leaves every view without a count; on changes adaptive
 * routes under load, and is deterministic. */
static void test_runs(void)
{
#define BASE "topology=clos:l=3,r=8,taper=2x1,pack=1", "num_vcs=6", "vc_buf_size=32", "flow_control=vct", \
	     "input_speedup=2", "injection_rate=0.8", "traffic=bitcomp", "seed=2", "sample_period=300",      \
	     "max_samples=3", "warmup_periods=1", "sim_type=throughput"
	const char *dflt[] = {BASE, "routing_function=anca", NULL};
	const char *off[] = {BASE, "routing_function=anca", "sequential_allocation=0", NULL};
	const char *on[] = {BASE, "routing_function=anca", "sequential_allocation=1", NULL};
	const char *on_p3[] = {BASE, "routing_function=anca", "sequential_allocation=1", "partitions=3", NULL};
	const char *nca_off[] = {BASE, "routing_function=nca", NULL};
	const char *nca_on[] = {BASE, "routing_function=nca", "sequential_allocation=1", NULL};
#undef BASE
	struct nl_err e = {0};
	char *a = point_json_kv(dflt, true, &e), *b = point_json_kv(off, true, &e);
	char *c = point_json_kv(on, true, &e), *c2 = point_json_kv(on, true, &e);
	char *d = point_json_kv(nca_off, true, &e), *d2 = point_json_kv(nca_on, true, &e);
	char *c3 = point_json_kv(on_p3, true, &e);
	CHECK(a && b && c && c2 && d && d2 && c3);
	if (a && b && c && c2 && d && d2 && c3) {
		CHECK_STR(a, b);
		CHECK(strcmp(a, c) != 0); /* anca reads the count */
		CHECK_STR(c, c2);
		CHECK_STR(c, c3); /* each router's count is its own: partitions change nothing */
		CHECK_STR(d, d2); /* nca reads no view: the count changes nothing */
	}
	free(a);
	free(b);
	free(c);
	free(c2);
	free(c3);
	free(d);
	free(d2);
}

/* A decision made upstream, or a VOQ rotation, would count a packet at
 * another router or twice: refused with a one-line error. */
static void test_refused(void)
{
	const char *up[] = {"topology=fattree:k=4,n=2", "routing_function=anca", "routing_delay=0",
			    "lookahead_decide=upstream", "sequential_allocation=1", NULL};
	const char *voq[] = {"topology=fattree:k=4,n=2", "routing_function=anca", "voq=1",
			     "sequential_allocation=1", NULL};
	struct nl_err e = {0};
	struct net_point pt;
	CHECK_INT(run_point_kv(up, &pt, &e), <, 0);
	CHECK(strstr(e.msg, "sequential_allocation = 1 with lookahead_decide = upstream") != NULL);
	e = (struct nl_err){0};
	CHECK_INT(run_point_kv(voq, &pt, &e), <, 0);
	CHECK(strstr(e.msg, "sequential_allocation = 1 with voq = 1") != NULL);
}

int main(void)
{
	TEST_RUN(test_view_adds_pend_once);
	TEST_RUN(test_anca_routed);
	TEST_RUN(test_anca_choices);
	TEST_RUN(test_engine_count);
	TEST_RUN(test_runs);
	TEST_RUN(test_refused);
	return test_done();
}
