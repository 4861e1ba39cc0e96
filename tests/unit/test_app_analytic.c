/* Unit tests: the analytic network backend (emu/net/backend_analytic.c):
 * net.h's time contract, the closed-form message time, FIFO sharing of
 * endpoint and link channels, the ideal mode, the measured calibration
 * (with its exchange table and the control-message rule), the choice
 * among equal-cost paths (path_select) and the report. */
#include <jansson.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "test.h"
#include "topo/topo.h"

#define US 1000000ull
#define NS 1000ull

struct got {
	uint64_t id[16], t[16];
	int n;
};

static void on_deliver(void *ctx, uint64_t id, uint64_t t)
{
	struct got *g = ctx;
	if (g->n < 16) {
		g->id[g->n] = id;
		g->t[g->n] = t;
	}
	g->n++;
}

struct bk {
	struct config cfg;
	struct net_backend b;
	struct nl_err err;
};

static int bk_open(struct bk *k, const struct topo *t, const char *const *set)
{
	static const struct config_table *tables[1];
	memset(k, 0, sizeof *k);
	k->b.ops = net_backend_find("analytic", &k->err);
	if (!k->b.ops)
		return k->err.code;
	tables[0] = k->b.ops->config;
	config_init(&k->cfg, tables, 1);
	for (size_t i = 0; set && set[i]; i++) {
		int rc = config_set(&k->cfg, set[i], NULL, "-s", &k->err);
		if (rc < 0)
			return rc;
	}
	return k->b.ops->create(&k->b, &k->cfg, t, &k->err);
}

static void bk_close(struct bk *k)
{
	if (k->b.state)
		k->b.ops->destroy(&k->b);
	config_release(&k->cfg);
}

static int adv(struct bk *k, uint64_t until, struct got *g, uint64_t *reached, uint64_t *next)
{
	g->n = 0;
	return k->b.ops->advance(&k->b, until, on_deliver, g, reached, next, &k->err);
}

static const char *const net_1us[] = {"latency_ns=1000", "bandwidth_gbps=8", NULL};

static void test_time_contract(void)
{
	struct bk k;
	struct got g;
	uint64_t reached, next;
	CHECK_OK(bk_open(&k, NULL, net_1us), &k.err);
	/* 100 bytes: 1 us + 100 ns; 0 bytes: 1 us. */
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 100, 11, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 2, 1, 100, 12, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 1, 0, 0, 13, &k.err), &k.err);

	/* Nothing completes by 0.5 us: reached = until, next = 1 us. */
	CHECK_OK(adv(&k, US / 2, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 0);
	CHECK_UINT(reached, ==, US / 2);
	CHECK_UINT(next, ==, 1 * US);

	/* Asked to go to 10 us, it stops at the first completion instant. */
	CHECK_OK(adv(&k, 10 * US, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 1);
	CHECK_UINT(g.id[0], ==, 13);
	CHECK_UINT(g.t[0], ==, 1 * US);
	CHECK_UINT(reached, ==, 1 * US);
	CHECK_UINT(next, ==, 1 * US + 100 * NS);

	/* A message sent at the reached instant is fine; all completions of
	 * one instant come together, in send order. */
	CHECK_OK(k.b.ops->send(&k.b, 1 * US, 3, 0, 0, 14, &k.err), &k.err);
	CHECK_OK(adv(&k, 10 * US, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 2);
	CHECK_UINT(g.id[0], ==, 11);
	CHECK_UINT(g.id[1], ==, 12);
	CHECK_UINT(reached, ==, 1 * US + 100 * NS);
	CHECK_UINT(next, ==, 2 * US);
	CHECK_OK(adv(&k, 10 * US, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 1);
	CHECK_UINT(g.id[0], ==, 14);
	CHECK_UINT(next, ==, UINT64_MAX);

	/* Idle: runs to until. Then sending in the past is refused. */
	CHECK_OK(adv(&k, 10 * US, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 0);
	CHECK_UINT(reached, ==, 10 * US);
	CHECK_ERR(k.b.ops->send(&k.b, 9 * US, 0, 1, 1, 15, &k.err), NL_ESTATE, &k.err,
		  "send at 9000000 ps, before the reached time 10000000 ps");
	CHECK_ERR(adv(&k, 5 * US, &g, &reached, &next), NL_ESTATE, &k.err, "advance to 5000000 ps");
	bk_close(&k);
}

static void test_ideal(void)
{
	struct bk k;
	struct got g;
	uint64_t reached, next;
	const char *const set[] = {"ideal=yes", NULL};
	CHECK_OK(bk_open(&k, NULL, set), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 5, 0, 1, 1 << 30, 1, &k.err), &k.err);
	CHECK_OK(adv(&k, 5, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 1);
	CHECK_UINT(g.t[0], ==, 5);
	CHECK_UINT(next, ==, UINT64_MAX);
	bk_close(&k);
}

static void test_bandwidth_rounding(void)
{
	/* 100 Gbit/s: 80 ps per byte; 1 MiB takes 83886080 ps + 1 us. */
	struct bk k;
	struct got g;
	uint64_t reached, next;
	CHECK_OK(bk_open(&k, NULL, (const char *const[]){"bandwidth_gbps=100", NULL}), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 1 << 20, 1, &k.err), &k.err);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	CHECK_UINT(g.t[0], ==, 83886080ull + 1 * US);
	bk_close(&k);
}

static void test_endpoint_sharing(void)
{
	/* Two 1000-byte messages from endpoint 0 at t = 0 share its injection
	 * channel: the second starts when the first has left (1 us), so they
	 * complete at 2 us and 3 us. A message 2 -> 3 is unaffected (2 us).
	 * Then two messages into endpoint 5 from different sources share its
	 * ejection channel. */
	struct bk k;
	struct got g;
	uint64_t reached, next;
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "link_model=endpoint", NULL};
	CHECK_OK(bk_open(&k, NULL, set), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 1000, 1, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 4, 1000, 2, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 2, 3, 1000, 3, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 6, 5, 500, 4, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 7, 5, 500, 5, &k.err), &k.err);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	/* At 1.5 us: message 4 (first into endpoint 5). */
	CHECK_EQ(g.n, 1);
	CHECK_UINT(g.id[0], ==, 4);
	CHECK_UINT(reached, ==, 1 * US + 500 * NS);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	/* At 2 us: 1, 3, and 5 (waited 0.5 us for endpoint 5's ejection). */
	CHECK_EQ(g.n, 3);
	CHECK_UINT(g.id[0], ==, 1);
	CHECK_UINT(g.id[1], ==, 3);
	CHECK_UINT(g.id[2], ==, 5);
	CHECK_UINT(reached, ==, 2 * US);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 1);
	CHECK_UINT(g.id[0], ==, 2);
	CHECK_UINT(reached, ==, 3 * US);

	json_t *rep = json_object();
	CHECK_OK(k.b.ops->report(&k.b, rep, &k.err), &k.err);
	json_t *busiest = json_object_get(rep, "busiest_links");
	CHECK(json_array_size(busiest) >= 1);
	/* Endpoint 0's injection channel carried 2000 bytes for 2 us. */
	json_t *top = json_array_get(busiest, 0);
	CHECK_STR(json_string_value(json_object_get(top, "kind")), "injection");
	CHECK_STR(json_string_value(json_object_get(top, "from")), "endpoint 0");
	CHECK_INT(json_integer_value(json_object_get(top, "bytes")), ==, 2000);
	CHECK_NEAR(json_real_value(json_object_get(top, "busy_s")), 2e-6, 1e-15);
	CHECK_INT(json_integer_value(json_object_get(rep, "messages")), ==, 5);
	json_decref(rep);
	bk_close(&k);
}

static void test_links_sharing(void)
{
	/* mesh:k=4 (a line of 4 routers, one endpoint each), hop latency
	 * 100 ns, 1 us + 1 ns/byte. Message 0 -> 3 (1000 bytes) crosses 3
	 * router links: 1 + 3 x 0.1 + 1 = 2.3 us, holding link 1->2 from
	 * 0.2 us to 1.2 us. Message 1 -> 2, sent at the same time, enters that
	 * link one hop after its start, so it starts at 1.1 us and completes
	 * at 1.1 + 0.1 + 1 + 1 = 3.2 us. Message 3 -> 0 uses the opposite
	 * channels: 2.3 us. */
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("mesh:k=4", &t, &e), &e);
	struct bk k;
	struct got g;
	uint64_t reached, next;
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "link_model=links", "hop_latency_ns=100",
				   NULL};
	CHECK_OK(bk_open(&k, t, set), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 3, 1000, 1, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 1, 2, 1000, 2, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 3, 0, 1000, 3, &k.err), &k.err);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 2);
	CHECK_UINT(g.id[0], ==, 1);
	CHECK_UINT(g.id[1], ==, 3);
	CHECK_UINT(reached, ==, 1 * US + 3 * 100 * NS + 1 * US);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	CHECK_EQ(g.n, 1);
	CHECK_UINT(g.id[0], ==, 2);
	CHECK_UINT(reached, ==, 1100 * NS + 100 * NS + 1 * US + 1 * US);

	json_t *rep = json_object();
	CHECK_OK(k.b.ops->report(&k.b, rep, &k.err), &k.err);
	json_t *top = json_array_get(json_object_get(rep, "busiest_links"), 0);
	/* The busiest channel carried two messages: the link 1 -> 2. */
	CHECK_STR(json_string_value(json_object_get(top, "kind")), "link");
	CHECK_STR(json_string_value(json_object_get(top, "from")), "router 1");
	CHECK_STR(json_string_value(json_object_get(top, "to")), "router 2");
	CHECK_INT(json_integer_value(json_object_get(top, "messages")), ==, 2);
	json_decref(rep);
	bk_close(&k);

	/* The same without contention equals link_model=none with hops. */
	const char *const none[] = {"latency_ns=1000", "bandwidth_gbps=8", "hop_latency_ns=100", NULL};
	CHECK_OK(bk_open(&k, t, none), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 3, 1000, 1, &k.err), &k.err);
	CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
	CHECK_UINT(reached, ==, 1 * US + 3 * 100 * NS + 1 * US);
	bk_close(&k);
	topo_free(t);
}

/* Completion time of every message id < 16 up to `until`. */
static void drain(struct bk *k, uint64_t until, uint64_t t_of[16])
{
	struct got g;
	uint64_t reached, next;
	for (int round = 0; round < 32; round++) {
		CHECK_OK(adv(k, until, &g, &reached, &next), &k->err);
		if (g.n == 0)
			break;
		for (int i = 0; i < g.n && i < 16; i++)
			if (g.id[i] < 16)
				t_of[g.id[i]] = g.t[i];
	}
}

static void test_bus_sharing(void)
{
	/* link_model=bus: messages between disjoint pairs still share one
	 * channel: 1000 bytes each at 1 ns/byte complete at 2, 3 and 4 us. */
	struct bk k;
	struct got g;
	uint64_t reached, next;
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "link_model=bus", NULL};
	CHECK_OK(bk_open(&k, NULL, set), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 1000, 1, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 2, 3, 1000, 2, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 4, 5, 1000, 3, &k.err), &k.err);
	for (uint64_t i = 1; i <= 3; i++) {
		CHECK_OK(adv(&k, UINT64_MAX, &g, &reached, &next), &k.err);
		CHECK_EQ(g.n, 1);
		CHECK_UINT(g.id[0], ==, i);
		CHECK_UINT(reached, ==, (i + 1) * US);
	}
	json_t *rep = json_object();
	CHECK_OK(k.b.ops->report(&k.b, rep, &k.err), &k.err);
	json_t *bus = json_array_get(json_object_get(rep, "busiest_links"), 0);
	CHECK_STR(json_string_value(json_object_get(bus, "kind")), "bus");
	CHECK_INT(json_integer_value(json_object_get(bus, "bytes")), ==, 3000);
	CHECK_NEAR(json_real_value(json_object_get(bus, "utilisation")), 0.75, 1e-12);
	json_decref(rep);
	bk_close(&k);

	/* An empty (control) message takes the latency alone on the bus too:
	 * sent while a 1000-byte message holds the bus (until 1 us), it
	 * arrives at 1 us, not after the bus frees, and the bus does not
	 * count it. */
	uint64_t t_of[16] = {0};
	CHECK_OK(bk_open(&k, NULL, set), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 1000, 1, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 2, 3, 0, 2, &k.err), &k.err);
	drain(&k, UINT64_MAX, t_of);
	CHECK_UINT(t_of[1], ==, 2 * US);
	CHECK_UINT(t_of[2], ==, 1 * US);
	rep = json_object();
	CHECK_OK(k.b.ops->report(&k.b, rep, &k.err), &k.err);
	bus = json_array_get(json_object_get(rep, "busiest_links"), 0);
	CHECK_INT(json_integer_value(json_object_get(bus, "messages")), ==, 1);
	json_decref(rep);
	bk_close(&k);
}

/* One-way times 1 us at 0 B, 2 us at 1000 B, 3.5 us at 2000 B; exchanges
 * 2.5 us at 1000 B, 4.5 us at 2000 B. The run of 4 ranks is a decoy. */
static const char cal_json[] =
	"{\"runs\": [{\"ranks\": 4, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 9e-6},"
	" {\"bytes\": 10, \"median_seconds\": 9e-6}]},"
	" {\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
	" {\"bytes\": 1000, \"median_seconds\": 2e-6}, {\"bytes\": 2000, \"median_seconds\": 3.5e-6}],"
	" \"exchange\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
	" {\"bytes\": 1000, \"median_seconds\": 2.5e-6}, {\"bytes\": 2000, \"median_seconds\": 4.5e-6}]}]}";

static void test_calibration(void)
{
	const char *path = test_write_tmp(cal_json);
	CHECK(path[0] != '\0');
	char key[128];
	snprintf(key, sizeof key, "calibration=%s", path);
	const char *const set[] = {key, "link_model=endpoint", "latency_ns=77", NULL};
	struct bk k;
	uint64_t t[16] = {0};
	CHECK_OK(bk_open(&k, NULL, set), &k.err);
	/* 0 -> 1, 500 B: between the measured sizes, 1.5 us; it holds
	 * endpoint 0's injection channel for 0.5 us (the time less the 0-byte
	 * latency, which replaces latency_ns). */
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 500, 1, &k.err), &k.err);
	/* An empty message behind it on the same channel takes the latency
	 * alone: control messages wait for no channel. */
	CHECK_OK(k.b.ops->send(&k.b, 0, 0, 1, 0, 2, &k.err), &k.err);
	/* 2 -> 3, 3000 B: beyond the table, the last slope: 3.5 + 1.5 us. */
	CHECK_OK(k.b.ops->send(&k.b, 0, 2, 3, 3000, 3, &k.err), &k.err);
	/* 4 -> 5 then 5 -> 4 at once, 1000 B: the first takes the ping-pong
	 * time (2 us); the second starts while endpoint 5 receives, so it
	 * takes the exchange time (2.5 us). */
	CHECK_OK(k.b.ops->send(&k.b, 0, 4, 5, 1000, 4, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 5, 4, 1000, 5, &k.err), &k.err);
	/* 6 -> 7 at 0 and 7 -> 6 after the first has left (1 us): no
	 * opposite traffic, ping-pong time. */
	CHECK_OK(k.b.ops->send(&k.b, 0, 6, 7, 1000, 6, &k.err), &k.err);
	drain(&k, 3 * US, t);
	CHECK_OK(k.b.ops->send(&k.b, 3 * US, 7, 6, 1000, 7, &k.err), &k.err);
	drain(&k, UINT64_MAX, t);
	CHECK_UINT(t[1], ==, 1500 * NS);
	CHECK_UINT(t[2], ==, 1 * US);
	CHECK_UINT(t[3], ==, 5 * US);
	CHECK_UINT(t[4], ==, 2 * US);
	CHECK_UINT(t[5], ==, 2500 * NS);
	CHECK_UINT(t[6], ==, 2 * US);
	CHECK_UINT(t[7], ==, 5 * US);
	bk_close(&k);

	/* Without link sharing there is no opposite traffic to see. */
	const char *const none[] = {key, "link_model=none", NULL};
	memset(t, 0, sizeof t);
	CHECK_OK(bk_open(&k, NULL, none), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 4, 5, 1000, 4, &k.err), &k.err);
	CHECK_OK(k.b.ops->send(&k.b, 0, 5, 4, 1000, 5, &k.err), &k.err);
	drain(&k, UINT64_MAX, t);
	CHECK_UINT(t[4], ==, 2 * US);
	CHECK_UINT(t[5], ==, 2 * US);
	bk_close(&k);

	const char *const other[] = {key, "calibration_ranks=3", NULL};
	CHECK_ERR(bk_open(&k, NULL, other), NL_ECONFIG, &k.err,
		  "no run with 3 ranks (calibration_ranks); expected calibration_ranks = the ranks of one of its "
		  "runs: 4, 2");
	bk_close(&k);
	unlink(path);

	/* A JSON document with no run at all says what a calibration is. */
	path = test_write_tmp("{\"what\": \"not a calibration\"}");
	snprintf(key, sizeof key, "calibration=%s", path);
	const char *const empty[] = {key, NULL};
	CHECK_ERR(bk_open(&k, NULL, empty), NL_ECONFIG, &k.err,
		  "no run with 2 ranks (calibration_ranks): it has no runs; expected netloom-pingpong's JSON");
	bk_close(&k);
	unlink(path);

	struct {
		const char *json, *needle;
	} bad[] = {
		/* Two runs of the ranks asked for: the last was used, silently. */
		{"{\"runs\": [{\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
		 " {\"bytes\": 8, \"median_seconds\": 2e-6}]}, {\"ranks\": 8},"
		 " {\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 3e-6},"
		 " {\"bytes\": 8, \"median_seconds\": 4e-6}]}]}",
		 "runs[0] and runs[2] both have 2 ranks; expected one run per rank count"},
		{"{\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6}]}",
		 "expected a 'one_way' array of at least 2 sizes"},
		{"{\"ranks\": 2, \"one_way\": [{\"bytes\": 8, \"median_seconds\": 1e-6},"
		 " {\"bytes\": 8, \"median_seconds\": 2e-6}]}",
		 "run of 2 ranks: one_way[1]: bytes 8, median_seconds 2e-06: expected increasing 'bytes'"},
		{"{\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
		 " {\"bytes\": 8, \"median_seconds\": -2e-6}]}",
		 "run of 2 ranks: one_way[1]: bytes 8, median_seconds -2e-06: expected increasing 'bytes' and a "
		 "'median_seconds' >= 0"},
		/* 3e10 s is 3e22 ps, past simulated time's 64 bits. */
		{"{\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
		 " {\"bytes\": 8, \"median_seconds\": 3e10}]}",
		 "run of 2 ranks: one_way[1]: bytes 8, median_seconds 3e+10: expected increasing 'bytes' and a "
		 "'median_seconds' >= 0 (at most 1e+06)"},
		/* Which run, and what the entry holds (it said "one_way[1]:
		 * expected ..." alone, whichever run of a file of several). */
		{"{\"runs\": [{\"ranks\": 8, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
		 " {\"bytes\": 8, \"median_seconds\": 2e-6}]}, {\"ranks\": 2, \"one_way\": [{\"bytes\": 0,"
		 " \"median_seconds\": 1e-6}, {\"median_seconds\": \"x\"}]}]}",
		 "run of 2 ranks: one_way[1]: bytes missing, median_seconds not a number: expected increasing 'bytes'"},
		{"{\"ranks\": 2, \"one_way\": [{\"bytes\": 0, \"median_seconds\": 1e-6},"
		 " {\"bytes\": 8, \"median_seconds\": 2e-6}], \"exchange\": 3}",
		 "expected a 'exchange' array"},
		{"{\"ranks\": 2, \"one_way\": [", "key 'calibration': "},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		path = test_write_tmp(bad[i].json);
		snprintf(key, sizeof key, "calibration=%s", path);
		const char *const b[] = {key, NULL};
		CHECK_ERR(bk_open(&k, NULL, b), NL_EFORMAT, &k.err, bad[i].needle);
		CHECK(strstr(k.err.msg, path) != NULL);
		bk_close(&k);
		unlink(path);
	}
	const char *const missing[] = {"calibration=/nonexistent/cal.json", NULL};
	/* Not read at all: the key, the file and the OS's reason, no line
	 * number, as placement_map's map file (it was jansson's "unable to
	 * open PATH: reason"). */
	CHECK_ERR(bk_open(&k, NULL, missing), NL_EIO, &k.err,
		  "key 'calibration': /nonexistent/cal.json: cannot open calibration file: No such file or directory");
	bk_close(&k);
	/* A directory: jansson read it as an empty file ("/tmp:1: '[' or '{'
	 * expected near end of file"); said to be one, as -c's is. */
	const char *const dir[] = {"calibration=/tmp", NULL};
	CHECK_ERR(bk_open(&k, NULL, dir), NL_EIO, &k.err,
		  "key 'calibration': /tmp: is a directory, not a calibration file (netloom-pingpong's JSON)");
	bk_close(&k);
}

/* fattree:k=4,n=2 (4 leaves of 4 endpoints, 4 spines), link_model =
 * links, 1 us + 1 ns/byte, no hop latency: each endpoint sends 1000 bytes
 * to its counterpart on the next leaf, all at 0. With path_select = first
 * the 4 flows leaving a leaf all take its first up-link (and the same
 * spine's down-link), so they go one after another: 2, 3, 4 and 5 us, the
 * figure of the rule before path_select existed. With spread the flow
 * hash puts them on different up-links, so the last one completes
 * earlier and no channel carries all 4. Returns the last completion and
 * the busiest channel's message count. */
static void fattree_shift(const struct topo *t, const char *path_select, uint64_t *last, int64_t *busiest,
			  uint64_t t_of[16])
{
	char ps[64];
	snprintf(ps, sizeof ps, "path_select=%s", path_select);
	const char *const set[] = {"latency_ns=1000", "bandwidth_gbps=8", "link_model=links", ps, NULL};
	struct bk k;
	CHECK_OK(bk_open(&k, t, set), &k.err);
	for (uint32_t e = 0; e < 16; e++)
		CHECK_OK(k.b.ops->send(&k.b, 0, e, (e + 4) % 16, 1000, e, &k.err), &k.err);
	memset(t_of, 0, 16 * sizeof *t_of);
	drain(&k, UINT64_MAX, t_of);
	*last = 0;
	for (int i = 0; i < 16; i++) {
		CHECK(t_of[i] > 0);
		*last = t_of[i] > *last ? t_of[i] : *last;
	}
	json_t *rep = json_object();
	CHECK_OK(k.b.ops->report(&k.b, rep, &k.err), &k.err);
	CHECK_STR(json_string_value(json_object_get(rep, "path_select")), path_select);
	json_t *top = json_array_get(json_object_get(rep, "busiest_links"), 0);
	CHECK_STR(json_string_value(json_object_get(top, "kind")), "link");
	*busiest = json_integer_value(json_object_get(top, "messages"));
	json_decref(rep);
	bk_close(&k);
}

static void test_path_select(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("fattree:k=4,n=2", &t, &e), &e);
	/* The shift crosses leaves: endpoints 4 apart sit on different
	 * leaves, the first four on one. */
	for (uint32_t i = 0; i < 16; i++) {
		CHECK_UINT(topo_ep_router(t, i), ==, topo_ep_router(t, i - i % 4));
		CHECK_UINT(topo_ep_router(t, i), !=, topo_ep_router(t, (i + 4) % 16));
	}
	uint64_t first_last, spread_last, again_last, t_first[16], t_spread[16], t_again[16];
	int64_t first_busy, spread_busy, again_busy;
	fattree_shift(t, "first", &first_last, &first_busy, t_first);
	CHECK_UINT(first_last, ==, 5 * US);
	CHECK_INT(first_busy, ==, 4);
	for (uint32_t i = 0; i < 16; i++) /* i-th flow of its leaf: i + 2 us */
		CHECK_UINT(t_first[i], ==, (i % 4 + 2) * US);
	fattree_shift(t, "spread", &spread_last, &spread_busy, t_spread);
	CHECK_UINT(spread_last, <, first_last);
	CHECK_INT(spread_busy, <, 4);
	/* No draws: a second run takes the same paths. */
	fattree_shift(t, "spread", &again_last, &again_busy, t_again);
	for (int i = 0; i < 16; i++)
		CHECK_UINT(t_again[i], ==, t_spread[i]);
	CHECK_INT(again_busy, ==, spread_busy);
	topo_free(t);
}

static void test_bad_config(void)
{
	struct bk k;
	CHECK_ERR(bk_open(&k, NULL, (const char *const[]){"link_model=links", NULL}), NL_ECONFIG, &k.err,
		  "link_model = links needs a topology");
	bk_close(&k);
	CHECK_ERR(bk_open(&k, NULL, (const char *const[]){"link_model=ring", NULL}), NL_ECONFIG, &k.err,
		  "key 'link_model': value 'ring': expected one of none, endpoint, links, bus");
	bk_close(&k);
	CHECK_ERR(bk_open(&k, NULL, (const char *const[]){"bandwidth_gbps=0", NULL}), NL_ECONFIG, &k.err,
		  "key 'bandwidth_gbps': value '0': out of range");
	bk_close(&k);
	CHECK_ERR(bk_open(&k, NULL, (const char *const[]){"path_select=random", NULL}), NL_ECONFIG, &k.err,
		  "key 'path_select': value 'random': expected one of spread, first");
	bk_close(&k);
	/* A bus has no routers: a hop latency with it would change nothing,
	 * with or without a topology, so it is refused as cable_latency is. */
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("mesh:k=4", &t, &e), &e);
	CHECK_ERR(bk_open(&k, t, (const char *const[]){"link_model=bus", "hop_latency_ns=100", NULL}), NL_ECONFIG,
		  &k.err, "hop_latency_ns = 100: key 'link_model' is 'bus': expected none, endpoint or links (a bus has no router hops)");
	bk_close(&k);
	CHECK_ERR(bk_open(&k, NULL, (const char *const[]){"link_model=bus", "hop_latency_ns=100", NULL}), NL_ECONFIG,
		  &k.err, "hop_latency_ns = 100: key 'link_model' is 'bus'");
	bk_close(&k);
	CHECK_OK(bk_open(&k, t, (const char *const[]){"link_model=bus", "hop_latency_ns=0", NULL}), &k.err);
	bk_close(&k);
	/* ideal = yes has no latency and infinite bandwidth: a key it would
	 * drop is refused with or without a topology (hop_latency_ns was
	 * refused only without one, as needing it); a zero latency agrees. */
	for (int with_topo = 0; with_topo < 2; with_topo++) {
		const struct topo *tt = with_topo ? t : NULL;
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "hop_latency_ns=50", NULL}), NL_ECONFIG,
			  &k.err,
			  "hop_latency_ns = 50: key 'ideal' is 'yes': expected hop_latency_ns = 0 or ideal = no (the ideal "
			  "network has no latency)");
		bk_close(&k);
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "latency_ns=5", NULL}), NL_ECONFIG, &k.err,
			  "latency_ns = 5: key 'ideal' is 'yes': expected latency_ns = 0 or unset, or ideal = no");
		bk_close(&k);
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "bandwidth_gbps=100", NULL}), NL_ECONFIG,
			  &k.err, "bandwidth_gbps = 100: key 'ideal' is 'yes': expected bandwidth_gbps unset or ideal = no");
		bk_close(&k);
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "calibration=c.json", NULL}), NL_ECONFIG,
			  &k.err, "calibration = c.json: key 'ideal' is 'yes': expected calibration unset or ideal = no");
		bk_close(&k);
		/* ... and so is a channel key: they were accepted and changed
		 * nothing (no channel is held, none is listed). */
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "link_model=endpoint", NULL}), NL_ECONFIG,
			  &k.err,
			  "link_model = endpoint: key 'ideal' is 'yes': expected link_model = none or unset, or ideal = "
			  "no (the ideal network holds no channel, so none is shared)");
		bk_close(&k);
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "path_select=first", NULL}), NL_ECONFIG,
			  &k.err, "path_select = first: key 'ideal' is 'yes': expected path_select unset or ideal = no");
		bk_close(&k);
		CHECK_ERR(bk_open(&k, tt, (const char *const[]){"ideal=yes", "report_links=3", NULL}), NL_ECONFIG,
			  &k.err, "report_links = 3: key 'ideal' is 'yes': expected report_links unset or ideal = no");
		bk_close(&k);
		CHECK_OK(bk_open(&k, tt, (const char *const[]){"ideal=yes", "hop_latency_ns=0", "latency_ns=0",
								"link_model=none", NULL}),
			 &k.err);
		bk_close(&k);
	}
	/* calibration_ranks picks a run of the calibration file: without
	 * one it was read and dropped. */
	CHECK_ERR(bk_open(&k, t, (const char *const[]){"calibration_ranks=4", NULL}), NL_ECONFIG, &k.err,
		  "calibration_ranks = 4: key 'calibration' is unset: expected calibration (the file whose run it "
		  "picks) or calibration_ranks unset");
	bk_close(&k);
	topo_free(t);
	CHECK(net_backend_find("nope", &e) == NULL);
	CHECK(strstr(e.msg, "unknown network backend 'nope' (valid: analytic") != NULL);
}

int main(void)
{
	TEST_RUN(test_time_contract);
	TEST_RUN(test_ideal);
	TEST_RUN(test_bandwidth_rounding);
	TEST_RUN(test_endpoint_sharing);
	TEST_RUN(test_links_sharing);
	TEST_RUN(test_bus_sharing);
	TEST_RUN(test_calibration);
	TEST_RUN(test_path_select);
	TEST_RUN(test_bad_config);
	return test_done();
}
