/* Unit tests: deadlocks in the flit model end as reports (emu/net/deadlock.c).
 *
 * Deadlocks that must be found: the flattened butterfly with
 * minimal routing and no VC classes; a ring without classes, built by
 * hand from messages; a deadlocked row of a torus while the other rows and
 * the columns through it keep delivering. Saturation that must not be
 * called one: the 8x8 torus with dateline DOR at injection 1.0 (here
 * 25,000 cycles per seed, also under the sanitizers; 200,000 cycles in
 * benchmarks/validation/deadlock_torus.c, suite validation)
 * and configurations with legitimately long waits. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "net/net_internal.h"
#include "topo/topo.h"
#include "traffic/traffic.h"
#include "net_config.h"
#include "test.h"

/* The case: BookSim's flatfly k=4 n=3 c=4 converted, minimal
 * routing without VC classes, which is not deadlock-free. */
static void test_flatfly_min_no_classes(void)
{
	for (int latency = 0; latency < 2; latency++) {
		const char *kv[] = {"topology=hyperx:s=4x4x4,t=4", "num_vcs=4", "vc_buf_size=8",
				    "routing_function=min:select=hash,classes=none", "injection_rate=1.0",
				    latency ? "sim_type=latency" : "sim_type=throughput", NULL};
		struct net_point pt;
		struct nl_err e = {0};
		CHECK_ERR(run_point_kv(kv, &pt, &e), NL_EDEADLOCK, &e, "network deadlock at cycle");
		CHECK(strstr(e.msg, "flits stuck in") && strstr(e.msg, "input VCs that wait on each other: router "));
		CHECK(pt.deadlock);
		CHECK(!pt.stable);
		/* Found long before the run would end (12 sample periods). */
		CHECK_UINT(pt.dl.cycle, <, 3000);
		CHECK_UINT(pt.dl.flits, >, 0);
		CHECK_UINT(pt.dl.n_waits, ==, NET_DL_WAITS);
		CHECK(pt.report && strstr(pt.report, "router 0 in-port"));
		/* The result says deadlock and has no latency figures. */
		json_t *j = net_point_json(&pt, NULL, true);
		CHECK(json_is_true(json_object_get(j, "deadlock")));
		CHECK(!json_object_get(j, "latency"));
		CHECK_UINT(json_integer_value(json_object_get(json_object_get(j, "stuck"), "flits")), ==, pt.dl.flits);
		json_decref(j);
		net_point_release(&pt);
	}
	/* Hop classes make the same network deadlock-free: no report. */
	const char *ok[] = {"topology=hyperx:s=4x4x4,t=4", "num_vcs=4", "vc_buf_size=8",
			    "routing_function=min:select=hash", "injection_rate=1.0", "sim_type=throughput", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_OK(run_point_kv(ok, &pt, &e), &e);
	CHECK(!pt.deadlock);
	CHECK(pt.accepted > 0.3);
	net_point_release(&pt);
}

struct count {
	uint64_t n;
};

static void count_deliver(void *ctx, uint64_t id, uint64_t t_ps)
{
	(void)id;
	(void)t_ps;
	((struct count *)ctx)->n++;
}

static int make_backend(struct net_backend *b, struct config *cfg, struct topo **t, const char *const *kv,
			struct nl_err *e)
{
	NL_CHECK(make_config(cfg, kv, e));
	struct net_cfg nc;
	NL_CHECK(config_bind(cfg, &net_network_table, &nc, e));
	NL_CHECK(topo_new(nc.topology, t, e));
	b->ops = net_backend_find("flit", e);
	if (!b->ops)
		return NL_ENOTFOUND;
	return b->ops->create(b, cfg, *t, e);
}

/* A flit backend on the configuration kv, counting deliveries. */
struct harness {
	struct config cfg;
	struct topo *t;
	struct net_backend b;
	struct count c;
};

static int harness_open(struct harness *h, const char *const *kv, struct nl_err *e)
{
	*h = (struct harness){0};
	return make_backend(&h->b, &h->cfg, &h->t, kv, e);
}

static void harness_close(struct harness *h)
{
	h->b.ops->destroy(&h->b);
	topo_free(h->t);
	config_release(&h->cfg);
}

/* A flit network built directly from kv (no traffic yet): what the tests
 * of the detector's state and bound drive cycle by cycle. */
struct direct {
	struct config cfg;
	struct net_cfg nc;
	struct router_cfg rc;
	struct sim_cfg sc;
	struct topo *t;
	struct flitnet *n;
	struct traffic *tr;
};

static void direct_open(struct direct *d, const char *const *kv)
{
	struct nl_err e = {0};
	*d = (struct direct){0};
	CHECK_OK(make_config(&d->cfg, kv, &e), &e);
	CHECK_OK(config_bind(&d->cfg, &net_network_table, &d->nc, &e), &e);
	CHECK_OK(config_bind(&d->cfg, &net_router_table, &d->rc, &e), &e);
	CHECK_OK(config_bind(&d->cfg, &net_sim_table, &d->sc, &e), &e);
	CHECK_OK(topo_new(d->nc.topology, &d->t, &e), &e);
	CHECK_OK(flitnet_new(&d->nc, &d->rc, &d->sc, d->t, &d->n, &e), &e);
}

static void direct_close(struct direct *d)
{
	traffic_free(d->tr);
	flitnet_free(d->n);
	topo_free(d->t);
	config_release(&d->cfg);
}

/* A direct run with traffic, as the run command sets it up. */
static void direct_traffic(struct direct *d, const char *const *kv)
{
	struct traffic_cfg tc;
	struct nl_err e = {0};
	direct_open(d, kv);
	CHECK_OK(config_bind(&d->cfg, &traffic_table, &tc, &e), &e);
	CHECK_OK(traffic_new(tc.traffic, d->t, (uint64_t)d->sc.seed, &d->tr, &e), &e);
	CHECK_OK(flitnet_set_traffic(d->n, d->tr, tc.injection_rate, (uint32_t)tc.packet_size.lo,
				     (uint32_t)tc.packet_size.hi, &e), &e);
}

/* Advance to until_ps through every delivery; the first error. */
static int advance_to(struct net_backend *b, uint64_t until_ps, struct count *c, struct nl_err *e)
{
	uint64_t reached = 0, next = 0;
	do
		NL_CHECK(b->ops->advance(b, until_ps, count_deliver, c, &reached, &next, e));
	while (reached < until_ps);
	return 0;
}

/* A ring of 8 routers without VC classes (one VC, 2-flit buffers,
 * 8-flit packets): every endpoint sends to the one 3 hops on at once.
 * Each packet holds the VC behind it while it waits for the one ahead:
 * a cycle of waits round the ring. Nothing else runs, so the global check
 * finds it in the cycle the network freezes, as the message backend's
 * error (a replay gets it instead of hanging). */
static void test_ring_by_hand(void)
{
	const char *kv[] = {"topology=torus:k=8", "routing_function=min:select=first,classes=none", "num_vcs=1",
			    "vc_buf_size=2", "flit_bytes=16", "packet_bytes=128", NULL};
	struct harness h;
	struct nl_err e = {0};
	CHECK_OK(harness_open(&h, kv, &e), &e);
	for (uint32_t s = 0; s < 8; s++)
		CHECK_OK(h.b.ops->send(&h.b, 0, s, (s + 3) % 8, 4096, s, &e), &e);
	int rc = advance_to(&h.b, 1000000000, &h.c, &e); /* 1 ms = 10^6 cycles at most */
	CHECK_ERR(rc, NL_EDEADLOCK, &e, "network deadlock at cycle ");
	CHECK(strstr(e.msg, "(global check: nothing in the network can move)"));
	CHECK(strstr(e.msg, "16 input VCs"));
	CHECK_UINT(h.c.n, ==, 0);
	harness_close(&h);

	/* The same through run: tornado traffic on the ring. */
	const char *run[] = {"topology=torus:k=8", "routing_function=min:select=first,classes=none", "num_vcs=1",
			     "vc_buf_size=2", "packet_size=8", "traffic=tornado", "injection_rate=0.9",
			     "sim_type=throughput", NULL};
	struct net_point pt;
	CHECK_ERR(run_point_kv(run, &pt, &e), NL_EDEADLOCK, &e, "global check");
	CHECK(pt.dl.global);
	CHECK_UINT(pt.dl.cycle, <, 1000);
	/* Every router of the ring is in the cycle. */
	uint32_t seen = 0;
	for (const char *p = pt.report; (p = strstr(p, "  router ")); p++)
		seen |= 1u << atoi(p + 9);
	CHECK_UINT(seen, ==, 0xff);
	net_point_release(&pt);
}

/* Row 0 of an 8x8 torus (routers 0..7) deadlocks as the ring above, while
 * the other rows carry 1-hop messages and the columns carry messages that
 * cross row 0's routers (2 hops, through their dimension-1 ports):
 * deliveries go on, so the global check never fires and a watchdog on
 * "nothing moves" never would; the local check must. */
static void test_partial_deadlock(void)
{
	const char *kv[] = {"topology=torus:k=8x8", "routing_function=dor:dateline=0", "num_vcs=1",
			    "vc_buf_size=2", "flit_bytes=16", "packet_bytes=128", NULL};
	struct harness h;
	struct nl_err e = {0};
	CHECK_OK(harness_open(&h, kv, &e), &e);
	const uint64_t step_ps = 20000; /* 20 cycles: background load 0.05 flits/cycle/endpoint */
	uint64_t id = 100, now = 0, before = 0;
	int rc = 0;
	for (int k = 0; k < 1000 && rc == 0; k++) {
		if (k == 5)
			for (uint32_t x = 0; x < 8; x++)
				CHECK_OK(h.b.ops->send(&h.b, now, x, (x + 3) % 8, 8192, x, &e), &e);
		for (uint32_t y = 1; y < 8; y++)
			for (uint32_t x = 0; x < 8; x++)
				CHECK_OK(h.b.ops->send(&h.b, now, y * 8 + x, y * 8 + (x + 1) % 8, 16, id++, &e), &e);
		/* Columns: (x, 1) -> (x, 7) goes down through router (x, 0). */
		for (uint32_t x = 0; x < 8; x++)
			CHECK_OK(h.b.ops->send(&h.b, now, 8 + x, 56 + x, 16, id++, &e), &e);
		before = h.c.n;
		now += step_ps;
		rc = advance_to(&h.b, now, &h.c, &e);
	}
	CHECK_ERR(rc, NL_EDEADLOCK, &e, "(local check: a front flit waited ");
	fprintf(stderr, "# partial deadlock: %s; %llu background messages delivered before\n", e.msg,
	       (unsigned long long)before);
	/* Background messages were still arriving when it was found. */
	CHECK_UINT(before, >, 500);
	const char *at = strstr(e.msg, "deadlock at cycle ");
	CHECK(at && strtoull(at + 18, NULL, 10) < 5000);
	/* Only row 0's routers are in the deadlocked set. */
	const char *p = strstr(e.msg, "wait on each other: ");
	CHECK(p);
	for (p = strstr(e.msg, "router "); p; p = strstr(p + 1, "router "))
		CHECK_INT(atoi(p + 7), <, 8);
	harness_close(&h);
}

/* No false alarm past saturation: dateline DOR is deadlock-free, so at
 * injection 1.0, with 1- and 2-flit VC buffers and several seeds, no run
 * may report one. watchdog_cycles = 1 runs the exact check at every scan,
 * every cycle, in the most congested state: it must find nothing. */
static void test_no_false_alarm_torus(void)
{
	static const char *const bufs[] = {"vc_buf_size=1", "vc_buf_size=2"};
	static const char *const seeds[] = {"seed=1", "seed=2", "seed=3"};
	for (int bi = 0; bi < 2; bi++)
		for (int si = 0; si < 3; si++) {
			const char *kv[] = {"topology=torus:k=8x8", "routing_function=dor", "num_vcs=2", bufs[bi],
					    "channel_latency=2", "injection_rate=1.0", "sim_type=throughput",
					    "sample_period=2500", "max_samples=10", "acc_stopping_thres=0", seeds[si],
					    NULL};
			struct net_point pt;
			struct nl_err e = {0};
			CHECK_OK(run_point_kv(kv, &pt, &e), &e);
			CHECK(!pt.deadlock);
			CHECK_UINT(pt.cycles, >=, 25000); /* then the throughput drain (docs/engine.md) */
			CHECK(pt.accepted > 0.03);
			net_point_release(&pt);
		}
	const char *kv[] = {"topology=torus:k=8x8", "routing_function=dor", "num_vcs=2", "vc_buf_size=1",
			    "channel_latency=2", "injection_rate=1.0", "sim_type=throughput", "sample_period=2000",
			    "max_samples=5", "acc_stopping_thres=0", "watchdog_cycles=1", NULL};
	struct net_point pt;
	struct nl_err e = {0};
	CHECK_OK(run_point_kv(kv, &pt, &e), &e);
	CHECK(!pt.deadlock);
	net_point_release(&pt);
}

/* Legitimately long waits: deep buffers, long channels, many VCs,
 * speedup, multi-cycle stages, large packets, tail credits. Saturated,
 * deadlock-free, and checked at every cycle (watchdog_cycles = 1) or with
 * the derived bound: no report. */
static void test_no_false_alarm_long_waits(void)
{
	static const char *const variants[][6] = {
		{"vc_buf_size=64", "packet_size=16", "num_vcs=2", NULL},
		{"channel_latency=20", "packet_size=4", "num_vcs=2", NULL},
		{"num_vcs=16", "packet_size=1..8", "vc_buf_size=4", NULL},
		{"internal_speedup=1.5", "input_speedup=2", "output_speedup=2", "num_vcs=4", NULL},
		{"vc_alloc_delay=3", "sw_alloc_delay=2", "routing_delay=2", "num_vcs=2", "packet_size=4", NULL},
		{"wait_for_tail_credit=1", "flow_control=vct", "packet_size=8", "num_vcs=2", NULL},
	};
	for (size_t v = 0; v < sizeof variants / sizeof *variants; v++)
		for (int every = 0; every < 2; every++) {
			const char *kv[16];
			int k = 0;
			kv[k++] = "topology=torus:k=6x6";
			kv[k++] = "routing_function=dor";
			kv[k++] = "injection_rate=1.0";
			kv[k++] = "sim_type=throughput";
			kv[k++] = "sample_period=1000";
			kv[k++] = "max_samples=6";
			kv[k++] = "acc_stopping_thres=0";
			kv[k++] = every ? "watchdog_cycles=1" : "watchdog_cycles=0";
			for (int i = 0; variants[v][i]; i++)
				kv[k++] = variants[v][i];
			kv[k] = NULL;
			struct net_point pt;
			struct nl_err e = {0};
			CHECK_OK(run_point_kv(kv, &pt, &e), &e);
			CHECK(!pt.deadlock);
			CHECK(pt.accepted > 0);
			net_point_release(&pt);
		}
}

/* Every report is real: after a deadlock is reported, the simulation goes
 * on cycle by cycle and the reported set must stay stuck (each later
 * check finds it again, never fewer VCs or flits). Rings without VC
 * classes at loads where they stall and recover many times before they
 * deadlock, with the exact check run at every cycle (watchdog_cycles =
 * 1), so that near-deadlocks (full rings with a credit or a flit in
 * flight) are checked too. */
static void test_reports_are_real(void)
{
	static const char *const rates[] = {"injection_rate=0.3", "injection_rate=0.6"};
	static const char *const seeds[] = {"seed=1", "seed=2", "seed=3"};
	int found = 0;
	for (int ri = 0; ri < 2; ri++)
		for (int si = 0; si < 3; si++) {
			const char *kv[] = {"topology=torus:k=8", "routing_function=min:select=first,classes=none",
					    "num_vcs=2", "vc_buf_size=2", "packet_size=1..8", "traffic=tornado",
					    rates[ri], seeds[si], "watchdog_cycles=1", NULL};
			struct direct d;
			struct nl_err e = {0};
			direct_traffic(&d, kv);
			struct flitnet *n = d.n;
			int r = flitnet_run_until(n, 100000, &e);
			if (r == NL_EDEADLOCK) {
				found++;
				struct net_deadlock d0 = *flitnet_deadlock(n);
				for (uint64_t c = d0.cycle + 1; c <= d0.cycle + 2000; c++) {
					struct nl_err e2 = {0};
					CHECK_ERR(flitnet_run_until(n, c, &e2), NL_EDEADLOCK, &e2, "network deadlock");
					const struct net_deadlock *d = flitnet_deadlock(n);
					CHECK_UINT(d->vcs, >=, d0.vcs);
					CHECK_UINT(d->flits, >=, d0.flits);
					CHECK_INT(memcmp(&d->waits[0], &d0.waits[0], sizeof d0.waits[0]), ==, 0);
					if (d->vcs < d0.vcs)
						break;
				}
			} else {
				CHECK_OK(r, &e);
			}
			CHECK_OK(flitnet_check(n, &e), &e);
			direct_close(&d);
		}
	fprintf(stderr, "# reports checked for 2000 cycles after: %d of 6 runs deadlocked\n", found);
	CHECK_INT(found, >=, 3);
}

/* The local bound L = P*V*(R + hold) + rt of docs/engine.md, on the
 * examples the documentation gives, and watchdog_cycles replacing it. */
static void test_bound(void)
{
	static const struct {
		const char *kv[8];
		uint32_t size;
		uint64_t bound;
	} cases[] = {
		{{"topology=torus:k=8x8", "num_vcs=2", "vc_buf_size=8", "channel_latency=2", NULL}, 1, 70},
		{{"topology=torus:k=8x8", "num_vcs=2", "vc_buf_size=1", "channel_latency=2", NULL}, 1, 150},
		{{"topology=hyperx:s=4x4x4,t=4", "routing_function=min:classes=none", "num_vcs=4", "vc_buf_size=8", NULL},
		 1,
		 268},
		{{"topology=torus:k=8x8", "routing_function=dor:dateline=0", "num_vcs=1", "vc_buf_size=2", NULL}, 8, 188},
		/* Tail credits add a round trip (rt = 8) per packet: 5*(4+32+8)+8. */
		{{"topology=torus:k=8x8", "routing_function=dor:dateline=0", "num_vcs=1", "vc_buf_size=2", "wait_for_tail_credit=1", NULL}, 8, 228},
		/* One-at-a-time 3-cycle VC allocation: R = 6, rt = 10, per flit 3. */
		{{"topology=torus:k=8x8", "routing_function=dor:dateline=0", "num_vcs=1", "vc_buf_size=8", "vc_alloc_delay=3", NULL}, 1, 55},
		{{"topology=torus:k=8x8", "watchdog_cycles=5000", NULL}, 1, 5000},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct direct d;
		struct nl_err e = {0};
		direct_open(&d, cases[i].kv);
		CHECK_OK(traffic_new("uniform", d.t, 0, &d.tr, &e), &e);
		CHECK_OK(flitnet_set_traffic(d.n, d.tr, 0.1, cases[i].size, cases[i].size, &e), &e);
		CHECK_UINT(flitnet_deadlock_bound(d.n), ==, cases[i].bound);
		direct_close(&d);
	}
}

/* Past saturation the exact check runs at most every 2, 4, then 8 scans
 * while it finds only queues (deadlock.c, DL_BACKOFF_MAX): on the
 * saturated deadlock-free 8x8 torus, far fewer checks than scans that saw
 * a front wait the bound. A deadlock forming past saturation is still
 * found within 1.5 L + 4 L of forming (docs/engine.md): the same runs
 * (the checks change nothing) with watchdog_cycles = 1, which checks
 * every cycle, give the cycle it formed within a cycle or two. */
static void test_saturated_checks(void)
{
	const char *kv[] = {"topology=torus:k=8x8", "routing_function=dor", "num_vcs=2", "vc_buf_size=2",
			    "injection_rate=1.0", "seed=1", NULL};
	struct direct d;
	struct nl_err e = {0};
	direct_traffic(&d, kv);
	CHECK_OK(flitnet_run_until(d.n, 20000, &e), &e);
	const uint64_t scans = 20000 / d.n->dl_period;
	fprintf(stderr, "# saturated 8x8 torus, 20000 cycles: %llu scans, %llu exact checks\n",
		(unsigned long long)scans, (unsigned long long)d.n->dl_full_checks);
	CHECK_UINT(d.n->dl_full_checks, >, 0);
	CHECK_UINT(d.n->dl_full_checks * 6, <, scans);
	direct_close(&d);

	static const char *const cases[][7] = {
		{"topology=hyperx:s=4x4x4,t=4", "num_vcs=4", "vc_buf_size=8", "routing_function=min:select=hash,classes=none",
		 "injection_rate=1.0", NULL},
		{"topology=torus:k=8x8", "routing_function=dor:dateline=0", "num_vcs=1", "vc_buf_size=2",
		 "packet_size=4", "injection_rate=0.6", NULL},
		{"topology=torus:k=8", "routing_function=min:select=first,classes=none", "num_vcs=2", "vc_buf_size=2",
		 "packet_size=1..8", "injection_rate=0.3", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint64_t found[2] = {0, 0}, bound = 0;
		for (int every = 0; every < 2; every++) {
			const char *k2[10];
			int k = 0;
			for (; cases[i][k]; k++)
				k2[k] = cases[i][k];
			k2[k++] = every ? "watchdog_cycles=1" : "watchdog_cycles=0";
			k2[k] = NULL;
			direct_traffic(&d, k2);
			if (!every)
				bound = flitnet_deadlock_bound(d.n);
			struct nl_err e2 = {0};
			CHECK_ERR(flitnet_run_until(d.n, 200000, &e2), NL_EDEADLOCK, &e2, "network deadlock at cycle");
			found[every] = flitnet_deadlock(d.n)->cycle;
			direct_close(&d);
		}
		fprintf(stderr, "# %s: deadlock formed by cycle %llu, found at %llu (bound L = %llu)\n", cases[i][0],
			(unsigned long long)found[1], (unsigned long long)found[0], (unsigned long long)bound);
		CHECK_UINT(found[0], >=, found[1]);
		CHECK_UINT(2 * (found[0] - found[1]), <=, 11 * bound);
	}
}

int main(void)
{
	TEST_RUN(test_bound);
	TEST_RUN(test_flatfly_min_no_classes);
	TEST_RUN(test_ring_by_hand);
	TEST_RUN(test_partial_deadlock);
	TEST_RUN(test_no_false_alarm_torus);
	TEST_RUN(test_no_false_alarm_long_waits);
	TEST_RUN(test_reports_are_real);
	TEST_RUN(test_saturated_checks);
	return test_done();
}
