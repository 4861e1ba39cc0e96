/* Unit tests: the public nl_sim API (include/netloom/netloom.h) and the
 * session layer (emu/session/): configuration from keys, INI text and
 * files with one-line errors; runs, replay and the message-level network;
 * reentrancy: two sessions in two threads each give their single-session
 * JSON byte for byte (issue 10, part 6); compare's cache keys. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/path.h"
#include "core/version.h"
#include "netloom/netloom.h"
#include "session/session.h"
#include "session/session_compare_internal.h"
#include "test.h"

/* Two configurations that exercise different topologies, routing and
 * traffic, each a fraction of a second. */
static const char *const cfg_a[] = {"topology=torus:k=4x4", "injection_rate=0.3", "seed=11", NULL};
static const char *const cfg_b[] = {"topology=dragonfly:a=4,p=2,h=2", "routing_function=min",
				    "traffic=randperm", "injection_rate=0.2", "seed=5", NULL};

/* The run's reproducible JSON for cfg, or NULL (message in *err). */
static char *run_json(const char *const *cfg, struct nl_err *err)
{
	nl_sim *s = NULL;
	char *out = NULL;
	int rc = nl_sim_new(&s, err);
	for (size_t i = 0; rc == 0 && cfg[i]; i++)
		rc = nl_sim_set(s, cfg[i], NULL, err);
	if (rc == 0)
		rc = nl_sim_run(s, NULL, err);
	if (rc == 0)
		rc = nl_sim_json(s, NL_JSON_REPRODUCIBLE, &out, NULL, err);
	nl_sim_free(s);
	return rc == 0 ? out : NULL;
}

struct job {
	const char *const *cfg;
	int rounds;
	char *json[3];
	struct nl_err err;
};

static void *job_main(void *arg)
{
	struct job *j = arg;
	for (int r = 0; r < j->rounds; r++)
		j->json[r] = run_json(j->cfg, &j->err);
	return NULL;
}

static void test_two_threads(void)
{
	struct nl_err err = {0};
	char *single_a = run_json(cfg_a, &err);
	CHECK_STR(err.msg, "");
	char *single_b = run_json(cfg_b, &err);
	CHECK_STR(err.msg, "");
	CHECK(single_a && single_b);
	if (!single_a || !single_b)
		return;
	CHECK(strcmp(single_a, single_b) != 0);
	/* Each thread runs its configuration several times while the other
	 * runs its own: any shared mutable state (an RNG, a scratch buffer, a
	 * pool) would show as a difference. */
	struct job ja = {.cfg = cfg_a, .rounds = 3}, jb = {.cfg = cfg_b, .rounds = 3};
	pthread_t ta, tb;
	CHECK_EQ(pthread_create(&ta, NULL, job_main, &ja), 0);
	CHECK_EQ(pthread_create(&tb, NULL, job_main, &jb), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	CHECK_STR(ja.err.msg, "");
	CHECK_STR(jb.err.msg, "");
	for (int r = 0; r < 3; r++) {
		CHECK(ja.json[r] && !strcmp(ja.json[r], single_a));
		CHECK(jb.json[r] && !strcmp(jb.json[r], single_b));
		free(ja.json[r]);
		free(jb.json[r]);
	}
	free(single_a);
	free(single_b);
}

static void test_config(void)
{
	struct nl_err err = {0};
	nl_sim *s;
	CHECK_OK(nl_sim_new(&s, &err), &err);
	/* Unknown key and bad value: one line naming them; nothing changes. */
	CHECK_ERR(nl_sim_set(s, "no_such_key", "1", &err), NL_ECONFIG, &err, "no_such_key");
	CHECK_ERR(nl_sim_set(s, "num_vcs", "zero", &err), NL_ECONFIG, &err, "zero");
	CHECK_ERR(nl_sim_set(s, "num_vcs=", NULL, &err), NL_ECONFIG, &err, "num_vcs");
	char *json = NULL;
	CHECK_ERR(nl_sim_json(s, 0, &json, NULL, &err), NL_ESTATE, &err, "nl_sim_json: no results yet: run, sweep or replay first");
	CHECK(json == NULL);
	CHECK_ERR(nl_sim_load_string(s, "[router]\nnum_vcs = -3\n", "inline.ini", &err), NL_ECONFIG, &err,
		  "inline.ini");
	CHECK_ERR(nl_sim_load_file(s, "/nonexistent/x.ini", &err), NL_EIO, &err, "/nonexistent/x.ini");
	/* Names of emu/net's backends and emu/place's policies are checked
	 * when set, as choices are, not when a replay first reads them. */
	CHECK_ERR(nl_sim_set(s, "backend", "nope", &err), NL_ECONFIG, &err,
		  "nl_sim_set: key 'backend': value 'nope': expected one of analytic, flit");
	CHECK_ERR(nl_sim_load_string(s, "[replay]\nbackend = flit\nplacement = nope\n", "p.ini", &err), NL_ECONFIG,
		  &err, "p.ini:3: key 'placement': value 'nope': expected one of linear, contiguous");
	CHECK(!strstr(err.msg, "did you mean"));
	/* A typo names the one meant, as core/param.c's choices do. */
	CHECK_ERR(nl_sim_set(s, "placement", "sprad", &err), NL_ECONFIG, &err,
		  "nl_sim_set: key 'placement': value 'sprad': expected one of linear, contiguous, random-node, "
		  "random-router, round-robin, packed, spread, map (did you mean 'spread'?)");
	CHECK_ERR(nl_sim_set(s, "backend", "flt", &err), NL_ECONFIG, &err,
		  "nl_sim_set: key 'backend': value 'flt': expected one of analytic, flit (did you mean 'flit'?)");
	CHECK_OK(nl_sim_set(s, "placement", "spread", &err), &err);
	CHECK_OK(nl_sim_set(s, "placement", "linear", &err), &err);
	/* Keys, INI text and an INI file give the same configuration. */
	CHECK_OK(nl_sim_load_string(s, "topology = torus:k=4x4\ninjection_rate = 0.3\nseed = 11\n", NULL, &err),
		 &err);
	struct nl_sim_info info = {.size = sizeof info};
	CHECK_OK(nl_sim_info(s, &info, &err), &err);
	CHECK_STR(info.topology, "torus:k=4x4,p=1"); /* canonical: every parameter */
	CHECK_STR(info.routing, "dor:dateline=1");       /* routing_function's default, the same way */
	CHECK_UINT(info.n_routers, ==, 16);
	CHECK_UINT(info.n_endpoints, ==, 16);
	CHECK_EQ(info.seed, 11);
	struct nl_point pt;
	CHECK_OK(nl_sim_run(s, &pt, &err), &err);
	CHECK(pt.stable && pt.packets > 0 && pt.accepted > 0.25 && pt.accepted < 0.35);
	CHECK_NEAR(pt.offered, 0.3, 1e-12);
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &json, NULL, &err), &err);
	char *by_keys = run_json(cfg_a, &err);
	CHECK(json && by_keys && !strcmp(json, by_keys));
	free(json);
	free(by_keys);
	/* A sweep: points as they come, then the saturation summary. */
	struct nl_sweep sw;
	CHECK_ERR(nl_sim_sweep(s, 0.5, 0.1, 0.1, 0, NULL, NULL, &sw, &err), NL_EINVAL, &err, "0.5");
	CHECK_OK(nl_sim_sweep(s, 0.1, 0.3, 0.1, 0, NULL, NULL, &sw, &err), &err);
	CHECK_UINT(sw.n_points, ==, 3);
	CHECK_NEAR(sw.last_stable_rate, 0.3, 1e-12);
	CHECK(sw.first_unstable_rate < 0 && sw.deadlock_rate < 0);
	nl_sim_free(s);
	nl_sim_free(NULL);
}

struct got {
	uint64_t id[8], t[8];
	int n;
};

static void on_deliver(void *ctx, uint64_t id, uint64_t t)
{
	struct got *g = ctx;
	if (g->n < 8) {
		g->id[g->n] = id;
		g->t[g->n] = t;
	}
	g->n++;
}

/* Drive the network message by message until every message arrived. */
static void drive(nl_sim *s, struct got *g, int want, struct nl_err *err)
{
	uint64_t reached = 0, next = 0;
	for (int guard = 0; g->n < want && guard < 1000; guard++) {
		CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, on_deliver, g, &reached, &next, err), err);
		if (g->n < want)
			CHECK(next != UINT64_MAX);
	}
}

static void test_message_level(void)
{
	struct nl_err err = {0};
	nl_sim *s;
	CHECK_OK(nl_sim_new(&s, &err), &err);
	CHECK_ERR(nl_sim_advance(s, 1000, on_deliver, NULL, NULL, NULL, &err), NL_ESTATE, &err,
		  "nl_sim_advance: no network yet (nl_sim_net_open or nl_sim_send first)");
	/* Flit model over a small torus. */
	CHECK_OK(nl_sim_set(s, "backend", "flit", &err), &err);
	CHECK_OK(nl_sim_set(s, "topology", "torus:k=4x4", &err), &err);
	CHECK_ERR(nl_sim_send(s, 0, 0, 99, 64, 1, &err), NL_ERANGE, &err, "99");
	CHECK_OK(nl_sim_send(s, 0, 0, 5, 256, 1, &err), &err);
	CHECK_OK(nl_sim_send(s, 0, 3, 12, 64, 2, &err), &err);
	struct got g = {0};
	drive(s, &g, 2, &err);
	CHECK_EQ(g.n, 2);
	CHECK(g.t[0] > 0 && g.t[1] >= g.t[0]);
	CHECK((g.id[0] == 1 && g.id[1] == 2) || (g.id[0] == 2 && g.id[1] == 1));
	/* The analytic backend: more bytes take longer. */
	CHECK_OK(nl_sim_set(s, "backend", "analytic", &err), &err);
	CHECK_OK(nl_sim_net_open(s, &err), &err);
	CHECK_OK(nl_sim_send(s, 0, 0, 1, 8, 7, &err), &err);
	CHECK_OK(nl_sim_send(s, 0, 2, 3, 1 << 20, 8, &err), &err);
	struct got h = {0};
	drive(s, &h, 2, &err);
	CHECK_EQ(h.n, 2);
	CHECK_UINT(h.id[0], ==, 7);
	CHECK_UINT(h.id[1], ==, 8);
	CHECK(h.t[1] > h.t[0]);
	nl_sim_free(s);
}

static void test_replay(void)
{
	struct nl_err err = {0};
	nl_sim *s;
	CHECK_OK(nl_sim_new(&s, &err), &err);
	struct nl_replay r = {.size = sizeof r};
	CHECK_ERR(nl_sim_replay(s, "/nonexistent.nlt", &r, &err), NL_ENOTFOUND, &err, "/nonexistent.nlt");
	/* The system's INI given as the trace (its '[network]' line probes as
	 * a SimGrid index): named as the import names it, not as "a SimGrid
	 * time-independent trace ... convert it first", which fails too. */
	CHECK_ERR(nl_sim_replay(s, TEST_SRC("docs/examples/interfere-system.ini"), &r, &err), NL_ENOTFOUND, &err,
		  "interfere-system.ini:3: rank 0 trace '[network]' not found (the file was read as a SimGrid index");
	CHECK_OK(nl_sim_replay(s, TEST_SRC("traces/samples/pingpong-2.nlt"), &r, &err), &err);
	CHECK_UINT(r.n_ranks, ==, 2);
	CHECK(!r.deadlock && r.predicted_s > 0 && r.messages > 0);
	char *a = NULL, *b = NULL;
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &a, NULL, &err), &err);
	CHECK(a && strstr(a, "\"command\": \"replay\"") && strstr(a, "\"wall_seconds\": 0.0"));
	/* Same session, same trace: the same bytes. */
	CHECK_OK(nl_sim_replay(s, TEST_SRC("traces/samples/pingpong-2.nlt"), &r, &err), &err);
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &b, NULL, &err), &err);
	CHECK(a && b && !strcmp(a, b));
	free(a);
	free(b);
	nl_sim_free(s);
}

/* nl_sim_run_rate: a rate outside 0..1 (or NaN) is refused as the CLI
 * refuses it, and the JSON's configuration records the rate run, so it
 * equals `netloom run -s injection_rate=R`'s (cfg_a's rate set instead). */
static void test_run_rate(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_INT(nl_sim_set(s, NULL, NULL, &e), ==, NL_EINVAL);
	CHECK_INT(nl_sim_load_file(s, NULL, &e), ==, NL_EINVAL);
	CHECK_INT(nl_sim_replay(s, NULL, NULL, &e), ==, NL_EINVAL);
	CHECK_OK(nl_sim_set(s, "topology=torus:k=4x4", NULL, &e), &e);
	CHECK_OK(nl_sim_set(s, "seed=11", NULL, &e), &e);
	CHECK_INT(nl_sim_run_rate(s, -0.1, NULL, &e), ==, NL_ERANGE);
	CHECK_INT(nl_sim_run_rate(s, 0.0 / 0.0, NULL, &e), ==, NL_ERANGE);
	CHECK_INT(nl_sim_run_rate(s, 1.5, NULL, &e), ==, NL_ERANGE);
	CHECK_OK(nl_sim_run_rate(s, 0.3, NULL, &e), &e);
	char *got = NULL;
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &got, NULL, &e), &e);
	char *want = run_json(cfg_a, &e);
	CHECK(got && want && !strcmp(got, want));
	free(got);
	free(want);
	nl_sim_free(s);
}

/* nl_sim_run_rate is a one-off: the configured injection_rate is the
 * same after it, whether it ran or failed (a later nl_sim_run and
 * nl_sim_info say the key's rate), while its own results record the rate
 * it ran at. */
static void test_run_rate_one_off(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	struct nl_point pt;
	struct nl_sim_info info = {.size = sizeof info};
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "mesh:k=4x4", &e), &e);
	CHECK_OK(nl_sim_run_rate(s, 0.3, &pt, &e), &e);
	CHECK_NEAR(pt.offered, 0.3, 1e-12);
	char *json = NULL;
	CHECK_OK(nl_sim_json(s, 0, &json, NULL, &e), &e);
	CHECK(json && strstr(json, "\"injection_rate\": 0.29999999999999999"));
	free(json);
	CHECK_OK(nl_sim_info(s, &info, &e), &e);
	CHECK_NEAR(info.injection_rate, 0.1, 1e-12);
	CHECK_OK(nl_sim_run(s, &pt, &e), &e);
	CHECK_NEAR(pt.offered, 0.1, 1e-12);
	/* A failed run_rate changes the rate no more than a successful one. */
	CHECK_OK(nl_sim_set(s, "cable_latency", "1", &e), &e);
	CHECK_ERR(nl_sim_run_rate(s, 0.7, &pt, &e), NL_EUNSUPPORTED, &e, "cable_latency");
	CHECK_OK(nl_sim_set(s, "cable_latency", "0", &e), &e);
	CHECK_OK(nl_sim_run(s, &pt, &e), &e);
	CHECK_NEAR(pt.offered, 0.1, 1e-12);
	nl_sim_free(s);
}

/* Calls back into the session from a callback: refused with NL_ESTATE
 * naming both calls (they would free what the running call holds);
 * nl_sim_send from a deliver callback and nl_sim_deadlock_report work. */
struct reenter {
	nl_sim *s;
	int n, n_sent, rc_set, rc_run, rc_json, rc_send, rc_advance;
	char msg[NL_ERR_MSG_MAX];
};

static int reenter_point(void *ctx, const struct nl_point *pt)
{
	(void)pt;
	struct reenter *r = ctx;
	struct nl_err e = {0};
	char *json = NULL;
	r->n++;
	r->rc_set = nl_sim_set(r->s, "seed", "3", &e);
	snprintf(r->msg, sizeof r->msg, "%s", e.msg);
	r->rc_run = nl_sim_run_rate(r->s, 0.2, NULL, &e);
	r->rc_json = nl_sim_json(r->s, 0, &json, NULL, &e);
	free(json);
	(void)nl_sim_deadlock_report(r->s);
	return 0;
}

static void reenter_deliver(void *ctx, uint64_t id, uint64_t t)
{
	struct reenter *r = ctx;
	struct nl_err e = {0};
	r->n++;
	r->rc_set = nl_sim_set(r->s, "seed", "3", &e);
	snprintf(r->msg, sizeof r->msg, "%s", e.msg);
	r->rc_advance = nl_sim_advance(r->s, t, NULL, NULL, NULL, NULL, &e);
	if (id < 3) { /* answer with the next message, as a server does */
		r->rc_send = nl_sim_send(r->s, t, 2, 7, 64, id + 10, &e);
		r->n_sent += r->rc_send == 0;
	}
}

static void test_callback_reentry(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "mesh:k=3x3", &e), &e);
	struct reenter r = {.s = s};
	struct nl_sweep sw;
	CHECK_OK(nl_sim_sweep(s, 0.1, 0.3, 0.1, 0, reenter_point, &r, &sw, &e), &e);
	CHECK_UINT(sw.n_points, ==, 3);
	CHECK_EQ(r.n, 3);
	CHECK_EQ(r.rc_set, NL_ESTATE);
	CHECK_STR(r.msg, "nl_sim_set: called from a callback of nl_sim_sweep; expected after it returns");
	CHECK_EQ(r.rc_run, NL_ESTATE);
	CHECK_EQ(r.rc_json, NL_ESTATE);
	char *json = NULL; /* the sweep is whole, and the session usable again */
	CHECK_OK(nl_sim_json(s, 0, &json, NULL, &e), &e);
	free(json);
	CHECK_OK(nl_sim_set(s, "seed", "3", &e), &e);
	static const char *const backends[] = {"flit", "analytic"};
	for (int b = 0; b < 2; b++) {
		CHECK_OK(nl_sim_set(s, "backend", backends[b], &e), &e);
		CHECK_OK(nl_sim_send(s, 0, 0, 5, 64, 1, &e), &e);
		CHECK_OK(nl_sim_send(s, 0, 1, 5, 64, 2, &e), &e);
		r = (struct reenter){.s = s};
		uint64_t reached = 0, next = 0;
		for (int guard = 0; next != UINT64_MAX && guard < 100; guard++)
			CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, reenter_deliver, &r, &reached, &next, &e), &e);
		CHECK_EQ(r.n, 4); /* the two sent, then the two sent from the callback */
		CHECK_EQ(r.n_sent, 2);
		CHECK_EQ(r.rc_set, NL_ESTATE);
		CHECK_STR(r.msg, "nl_sim_set: called from a callback of nl_sim_advance; expected after it returns");
		CHECK_EQ(r.rc_advance, NL_ESTATE);
	}
	nl_sim_free(s);
}

/* A step so small the point count leaves every integer type (1e-20, a
 * denormal) is refused as 1e-11 is, and so are non-finite bounds. The
 * message names the call and its arguments as the header does (it said
 * "sweep: rates 0.5:0.1:0.1: expected 0 <= A <= B <= 1 and a finite STEP
 * > 0", the CLI's --rates, which an API caller never wrote). */
static void test_sweep_tiny_step(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	struct nl_sweep sw;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "mesh:k=3x3", &e), &e);
	static const double steps[] = {1e-11, 1e-20, 4.9e-324};
	for (int k = 0; k < 3; k++)
		CHECK_ERR(nl_sim_sweep(s, 0, 1, steps[k], 0, NULL, NULL, &sw, &e), NL_ERANGE, &e,
			  "more than 4294967295 points; expected a larger step");
	CHECK_STR(e.msg, "nl_sim_sweep: lo 0, hi 1, step 4.94066e-324: more than 4294967295 points; expected a "
			 "larger step");
	CHECK_ERR(nl_sim_sweep(s, 0.5, 0.1, 0.1, 0, NULL, NULL, &sw, &e), NL_EINVAL, &e, "nl_sim_sweep: ");
	CHECK_STR(e.msg, "nl_sim_sweep: lo 0.5, hi 0.1, step 0.1: expected 0 <= lo <= hi <= 1 and a finite step > 0");
	CHECK_ERR(nl_sim_sweep(s, 0, 1, 1.0 / 0.0, 0, NULL, NULL, &sw, &e), NL_EINVAL, &e, "step inf: expected");
	CHECK_ERR(nl_sim_sweep(s, 0, 1, 0.0 / 0.0, 0, NULL, NULL, &sw, &e), NL_EINVAL, &e, "finite step > 0");
	CHECK_ERR(nl_sim_sweep(s, 0.0 / 0.0, 1, 0.1, 0, NULL, NULL, &sw, &e), NL_EINVAL, &e, "expected 0 <= lo");
	CHECK_ERR(nl_sim_sweep(s, 0, 1.0 / 0.0, 0.1, 0, NULL, NULL, &sw, &e), NL_EINVAL, &e, "hi inf, step 0.1");
	char *json = NULL;
	CHECK_ERR(nl_sim_json(s, 0, &json, NULL, &e), NL_ESTATE, &e, "no results");
	nl_sim_free(s);
}

/* Sends and advances at the edges of time and size, on both backends:
 * refused, never wrapped (a message lost, or delivered before it was
 * sent); time never goes back. */
static void test_message_extremes(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "torus:k=4x4", &e), &e);
	static const char *const backends[] = {"flit", "analytic"};
	for (int b = 0; b < 2; b++) {
		CHECK_OK(nl_sim_set(s, "backend", backends[b], &e), &e);
		CHECK_OK(nl_sim_net_open(s, &e), &e);
		CHECK_ERR(nl_sim_send(s, UINT64_MAX, 0, 5, 64, 1, &e), NL_ERANGE, &e, "2^62 ps");
		CHECK_ERR(nl_sim_send(s, 0, 0, 5, UINT64_MAX, 2, &e), NL_ERANGE, &e, "18446744073709551615 bytes");
		CHECK_ERR(nl_sim_send(s, 0, 0, 5, UINT64_MAX - 254, 3, &e), NL_ERANGE, &e, "bytes");
		if (b == 0)
			CHECK_ERR(nl_sim_send(s, 0, 0, 5, UINT64_C(1) << 40, 4, &e), NL_ERANGE, &e, "too large");
		CHECK_OK(nl_sim_send(s, 0, 0, 5, 64, 5, &e), &e);
		struct got g = {0};
		uint64_t reached = 0, next = 0;
		CHECK_OK(nl_sim_advance(s, 10000000, on_deliver, &g, &reached, &next, &e), &e);
		CHECK_OK(nl_sim_advance(s, 10000000, on_deliver, &g, &reached, &next, &e), &e);
		CHECK_EQ(g.n, 1);
		CHECK_UINT(reached, ==, 10000000);
		char want[96];
		snprintf(want, sizeof want, "%s backend: send at 0 ps, before the reached time 10000000 ps", backends[b]);
		CHECK_ERR(nl_sim_send(s, 0, 0, 5, 64, 6, &e), NL_ESTATE, &e, want);
		snprintf(want, sizeof want, "%s backend: advance to 9999999 ps, before the reached time 10000000 ps",
			 backends[b]);
		CHECK_ERR(nl_sim_advance(s, 9999999, on_deliver, &g, &reached, &next, &e), NL_ESTATE, &e, want);
		CHECK_OK(nl_sim_send(s, 10000000, 0, 5, 64, 7, &e), &e);
		drive(s, &g, 2, &e);
		CHECK_EQ(g.n, 2);
		CHECK(g.t[1] > 10000000);
	}
	nl_sim_free(s);
}

/* A send from a deliver callback dated before the delivery is refused on
 * both backends with the same words (the flit backend took it and moved
 * it to its current cycle); one at the delivery's time is taken. */
struct past {
	nl_sim *s;
	int n, rc_past, rc_now;
	uint64_t t;
	char msg[NL_ERR_MSG_MAX];
};

static void past_deliver(void *ctx, uint64_t id, uint64_t t)
{
	struct past *p = ctx;
	struct nl_err e = {0};
	p->n++;
	if (id != 1)
		return;
	p->t = t;
	p->rc_past = nl_sim_send(p->s, 0, 0, 3, 64, 2, &e);
	snprintf(p->msg, sizeof p->msg, "%s", e.msg);
	p->rc_now = nl_sim_send(p->s, t, 0, 3, 64, 3, &e);
}

static void test_send_before_delivery(void)
{
	static const char *const backends[] = {"flit", "analytic"};
	for (int b = 0; b < 2; b++) {
		struct nl_err e = {0};
		nl_sim *s = NULL;
		CHECK_OK(nl_sim_new(&s, &e), &e);
		CHECK_OK(nl_sim_set(s, "topology", "mesh:k=2x2", &e), &e);
		CHECK_OK(nl_sim_set(s, "backend", backends[b], &e), &e);
		CHECK_OK(nl_sim_send(s, 0, 0, 1, 64, 1, &e), &e);
		struct past p = {.s = s};
		uint64_t reached = 0, next = 0;
		for (int guard = 0; next != UINT64_MAX && guard < 100; guard++)
			CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, past_deliver, &p, &reached, &next, &e), &e);
		CHECK_EQ(p.n, 2); /* 1, then 3 sent from the callback; 2 refused */
		CHECK(p.t > 0);
		CHECK_EQ(p.rc_past, NL_ESTATE);
		char want[128];
		snprintf(want, sizeof want, "%s backend: send at 0 ps, before the reached time %llu ps", backends[b],
			 (unsigned long long)p.t);
		CHECK_STR(p.msg, want);
		CHECK_EQ(p.rc_now, 0);
		nl_sim_free(s);
	}
}

/* A send dated later than the time reached, on the flit backend: from a
 * deliver callback while another message of the same cycle is still to
 * be delivered, from a callback while another message is in flight that
 * completes before the send's time, and between two advances past such a
 * completion. The network ran to the send's cycle at once with no
 * callback: the first two crashed (the cycle's delivery loop called the
 * cleared callback), the third never delivered the message completing on
 * the way. Each message is delivered once, in time order, and the send
 * on a path of its own leaves the other message's time as it was. */
struct later {
	nl_sim *s;
	int n, rc_send;
	uint64_t id[8], t[8];
	uint64_t send_after_ps; /* callback of message 1: send message 10 this much later (0: none) */
};

static void later_deliver(void *ctx, uint64_t id, uint64_t t)
{
	struct later *l = ctx;
	struct nl_err e = {0};
	if (l->n < 8) {
		l->id[l->n] = id;
		l->t[l->n] = t;
	}
	l->n++;
	if (id == 1 && l->send_after_ps)
		l->rc_send = nl_sim_send(l->s, t + l->send_after_ps, 0, 1, 64, 10, &e);
}

/* mode 0: messages 1 (0 -> 1) and 2 (2 -> 3, 64 bytes: the same cycle, or
 * 4096 bytes: later) sent at 0, 1's callback sending 10 (0 -> 1) at
 * +send_after_ps; mode 1: 10 sent between the advances, after the first
 * delivery. Deliveries in l. */
static void later_run(struct later *l, uint64_t bytes2, int mode, uint64_t send_after_ps)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "mesh:k=2x2", &e), &e);
	CHECK_OK(nl_sim_set(s, "backend", "flit", &e), &e);
	CHECK_OK(nl_sim_send(s, 0, 0, 1, 64, 1, &e), &e);
	CHECK_OK(nl_sim_send(s, 0, 2, 3, bytes2, 2, &e), &e);
	*l = (struct later){.s = s, .send_after_ps = mode == 0 ? send_after_ps : 0};
	uint64_t reached = 0, next = 0;
	CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, later_deliver, l, &reached, &next, &e), &e);
	if (mode == 1 && send_after_ps)
		CHECK_OK(nl_sim_send(s, reached + send_after_ps, 0, 1, 64, 10, &e), &e);
	for (int guard = 0; next != UINT64_MAX && guard < 100; guard++)
		CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, later_deliver, l, &reached, &next, &e), &e);
	CHECK_EQ(l->rc_send, 0);
	for (int i = 1; i < l->n && i < 8; i++)
		CHECK(l->t[i] >= l->t[i - 1]);
	nl_sim_free(s);
}

static void test_send_later(void)
{
	struct later base, l;
	for (int mode = 0; mode < 2; mode++) {
		for (int b = 0; b < 2; b++) {
			const uint64_t bytes2 = b ? 4096 : 64;
			later_run(&base, bytes2, mode, 0);
			CHECK_EQ(base.n, 2);
			/* 200 ns: after 1's delivery, before 2's when it is large. */
			later_run(&l, bytes2, mode, 200000);
			CHECK_EQ(l.n, 3);
			uint64_t t2 = 0, t10 = 0;
			int seen2 = 0, seen10 = 0;
			for (int i = 0; i < l.n; i++) {
				if (l.id[i] == 2) {
					seen2++;
					t2 = l.t[i];
				} else if (l.id[i] == 10) {
					seen10++;
					t10 = l.t[i];
				}
			}
			CHECK_EQ(seen2, 1);
			CHECK_EQ(seen10, 1);
			CHECK_UINT(t2, ==, base.id[1] == 2 ? base.t[1] : base.t[0]);
			CHECK_UINT(t10, >, l.t[0] + 200000);
			if (b)
				CHECK_UINT(t10, <, t2); /* sent before 2 completed */
		}
	}
}

/* After an advance that failed part-way (a deadlock), the network takes
 * no more sends or advances, at any time, until nl_sim_net_open builds a
 * new one (the flit backend took a send at 0 ps, its reached time stale). */
static void test_send_after_deadlock(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_load_string(s,
				    "backend = flit\ntopology = torus:k=8\nrouting_function = dor:dateline=0\n"
				    "num_vcs = 1\nvc_buf_size = 2\n",
				    NULL, &e),
		 &e);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_OK(nl_sim_send(s, 0, i, (i + 4) % 8, 1 << 16, i, &e), &e);
	uint64_t reached = 0, next = 0;
	int rc = 0;
	for (int guard = 0; rc == 0 && next != UINT64_MAX && guard < 100; guard++)
		rc = nl_sim_advance(s, UINT64_MAX / 2, NULL, NULL, &reached, &next, &e);
	CHECK_ERR(rc, NL_EDEADLOCK, &e, "deadlock");
	const char *want = "the network stopped at an earlier failure (NL_EDEADLOCK); expected nl_sim_net_open first";
	CHECK_ERR(nl_sim_send(s, 0, 0, 1, 64, 100, &e), NL_ESTATE, &e, want);
	CHECK_ERR(nl_sim_send(s, UINT64_C(1) << 40, 0, 1, 64, 101, &e), NL_ESTATE, &e, want);
	CHECK_ERR(nl_sim_advance(s, UINT64_MAX / 2, NULL, NULL, &reached, &next, &e), NL_ESTATE, &e, want);
	CHECK_OK(nl_sim_net_open(s, &e), &e);
	CHECK_OK(nl_sim_send(s, 0, 0, 1, 64, 102, &e), &e);
	CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, NULL, NULL, &reached, &next, &e), &e);
	CHECK(reached > 0 && reached < UINT64_MAX / 2);
	nl_sim_free(s);
}

/* Calls refused for their arguments keep the last results: a deadlocked
 * run's report (a pointer the caller holds) and its JSON outlive a sweep
 * from 0.5 to 0.1 or of too many points, and a run_rate of 2.0 (the
 * sweep discarded them first: a dangling report). */
static void test_refused_keeps_results(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_load_string(s,
				    "topology = torus:k=8\nrouting_function = dor:dateline=0\nnum_vcs = 1\n"
				    "injection_rate = 0.9\n",
				    NULL, &e),
		 &e);
	CHECK_ERR(nl_sim_run(s, NULL, &e), NL_EDEADLOCK, &e, "deadlock");
	const char *rep = nl_sim_deadlock_report(s);
	CHECK(rep[0] != '\0');
	char *before = NULL, *after = NULL;
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &before, NULL, &e), &e);
	CHECK_ERR(nl_sim_sweep(s, 0.5, 0.1, 0.1, 0, NULL, NULL, NULL, &e), NL_EINVAL, &e, "lo 0.5, hi 0.1");
	CHECK(nl_sim_deadlock_report(s) == rep);
	CHECK_ERR(nl_sim_sweep(s, 0, 1, 1e-20, 0, NULL, NULL, NULL, &e), NL_ERANGE, &e, "points");
	CHECK(nl_sim_deadlock_report(s) == rep);
	CHECK_ERR(nl_sim_run_rate(s, 2.0, NULL, &e), NL_ERANGE, &e, "2");
	CHECK(nl_sim_deadlock_report(s) == rep);
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &after, NULL, &e), &e);
	CHECK(before && after && !strcmp(before, after));
	free(before);
	free(after);
	nl_sim_free(s);
}

/* A flag bit netloom.h does not define is refused, not ignored
 * (nl_sim_sweep(..., flags = 8) swept, nl_sim_json(s, 7, ...) wrote): a
 * flag added later must not be dropped silently by an older library. The
 * refusal keeps the results, as any refused argument does. */
static void test_unknown_flags(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	char *before = NULL, *after = NULL, *json = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "torus:k=4x4", &e), &e);
	CHECK_OK(nl_sim_run(s, NULL, &e), &e);
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &before, NULL, &e), &e);
	CHECK_ERR(nl_sim_json(s, 7, &json, NULL, &e), NL_EINVAL, &e,
		  "nl_sim_json: flags 0x7: unknown bits 0x6; expected NL_JSON_REPRODUCIBLE (0x1) or 0");
	CHECK(json == NULL);
	CHECK_ERR(nl_sim_write_json(s, 0x80000000u, "-", &e), NL_EINVAL, &e,
		  "nl_sim_write_json: flags 0x80000000: unknown bits 0x80000000; expected NL_JSON_REPRODUCIBLE "
		  "(0x1) or 0");
	CHECK_ERR(nl_sim_sweep(s, 0.1, 0.2, 0.1, 8, NULL, NULL, NULL, &e), NL_EINVAL, &e,
		  "nl_sim_sweep: flags 0x8: unknown bits 0x8; expected NL_SWEEP_CONTINUE (0x1) or 0");
	CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &after, NULL, &e), &e);
	CHECK(before && after && !strcmp(before, after));
	free(before);
	free(after);
	nl_sim_free(s);
}

/* routing_function unset: nl_sim_net_open picks the family's default as
 * run and replay do (a dragonfly failed: 'dor' does not run there, unless
 * nl_sim_info had been called: it set the key); nl_sim_info reports the
 * pick without setting it, and a pick follows the topology, so a later
 * call's results do not depend on what was called before. */
static void test_default_routing_history(void)
{
	struct nl_err e = {0};
	struct nl_sim_info info = {.size = sizeof info};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "dragonfly:a=4,p=2,h=2", &e), &e);
	CHECK_OK(nl_sim_set(s, "backend", "flit", &e), &e);
	CHECK_OK(nl_sim_net_open(s, &e), &e);
	CHECK_OK(nl_sim_send(s, 0, 0, 71, 64, 1, &e), &e);
	uint64_t reached = 0, next = 0;
	CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, NULL, NULL, &reached, &next, &e), &e);
	CHECK(reached > 0 && reached < UINT64_MAX / 2);
	nl_sim_free(s);
	/* info, run or net_open on a dragonfly, then a torus: the torus runs
	 * dor, byte for byte as a fresh session's. */
	char *fresh = run_json(cfg_a, &e);
	CHECK(fresh != NULL);
	for (int k = 0; k < 3; k++) {
		CHECK_OK(nl_sim_new(&s, &e), &e);
		CHECK_OK(nl_sim_set(s, "topology", "dragonfly:a=4,p=2,h=2", &e), &e);
		if (k == 0) {
			CHECK_OK(nl_sim_info(s, &info, &e), &e);
			CHECK(!strncmp(info.routing, "min", 3));
		} else if (k == 1) {
			CHECK_OK(nl_sim_run(s, NULL, &e), &e);
		} else {
			CHECK_OK(nl_sim_set(s, "backend", "flit", &e), &e);
			CHECK_OK(nl_sim_net_open(s, &e), &e);
			CHECK_OK(nl_sim_set(s, "backend", "analytic", &e), &e);
		}
		for (size_t i = 0; cfg_a[i]; i++)
			CHECK_OK(nl_sim_set(s, cfg_a[i], NULL, &e), &e);
		CHECK_OK(nl_sim_info(s, &info, &e), &e);
		CHECK_STR(info.routing, "dor:dateline=1");
		char *json = NULL;
		CHECK_OK(nl_sim_run(s, NULL, &e), &e);
		CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &json, NULL, &e), &e);
		CHECK(json && fresh && !strcmp(json, fresh));
		free(json);
		nl_sim_free(s);
	}
	free(fresh);
	/* A routing_function the user set stays, whatever the topology. */
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "routing_function", "min", &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "torus:k=4x4", &e), &e);
	CHECK_OK(nl_sim_info(s, &info, &e), &e);
	CHECK(!strncmp(info.routing, "min", 3));
	nl_sim_free(s);
}

/* on_point stops a sweep with any non-zero value: nl_sim_sweep returns
 * it and keeps the points run so far (their JSON is the stopped sweep's);
 * a negative value also gets a message (it lost the points, with an empty
 * message and json 'no results'). */
static int stop_at_02(void *ctx, const struct nl_point *pt)
{
	return pt->offered >= 0.2 ? *(const int *)ctx : 0;
}

static void test_sweep_stopped(void)
{
	static const int values[] = {-1, 1, -42};
	for (int k = 0; k < 3; k++) {
		struct nl_err e = {0};
		struct nl_sweep sw = {0};
		nl_sim *s = NULL;
		CHECK_OK(nl_sim_new(&s, &e), &e);
		CHECK_OK(nl_sim_set(s, "topology", "mesh:k=3x3", &e), &e);
		int v = values[k];
		CHECK_INT(nl_sim_sweep(s, 0.1, 0.5, 0.1, 0, stop_at_02, &v, &sw, &e), ==, v);
		CHECK_UINT(sw.n_points, ==, 2);
		if (v < 0) {
			char want[96];
			snprintf(want, sizeof want, "sweep stopped by on_point (returned %d) after 2 points", v);
			CHECK_STR(e.msg, want);
			CHECK_INT(e.code, ==, v);
		}
		char *json = NULL;
		CHECK_OK(nl_sim_json(s, NL_JSON_REPRODUCIBLE, &json, NULL, &e), &e);
		CHECK(json && strstr(json, "\"command\": \"sweep\"") && strstr(json, "\"offered\": 0.2") &&
		      !strstr(json, "\"offered\": 0.3"));
		free(json);
		nl_sim_free(s);
	}
}

/* The analytic message backend (backend's default) without a topology
 * set is topology-free, as replay and serve are: any endpoint is taken,
 * although nl_sim_info reports the default torus:k=8x8 (runs and the flit
 * backend use it). With the topology set, or on the flit backend, an
 * endpoint outside it is NL_ERANGE. */
static void test_analytic_topology_free(void)
{
	struct nl_err e = {0};
	struct nl_sim_info info = {.size = sizeof info};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_info(s, &info, &e), &e);
	CHECK_UINT(info.n_endpoints, ==, 64);
	CHECK_OK(nl_sim_send(s, 0, 70000, 4000000000u, 64, 1, &e), &e);
	struct got g = {0};
	drive(s, &g, 1, &e);
	CHECK_EQ(g.n, 1);
	const char *want = "nl_sim_send: endpoint 70000 -> 4000000000: expected < 64";
	CHECK_OK(nl_sim_set(s, "backend", "flit", &e), &e);
	CHECK_ERR(nl_sim_send(s, 0, 70000, 4000000000u, 64, 2, &e), NL_ERANGE, &e, want);
	CHECK_STR(e.msg, want);
	CHECK_OK(nl_sim_set(s, "backend", "analytic", &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "torus:k=8x8", &e), &e);
	CHECK_ERR(nl_sim_send(s, 0, 70000, 4000000000u, 64, 3, &e), NL_ERANGE, &e, want);
	nl_sim_free(s);
}

/* A routing_function set for the analytic backend, which does not run
 * it, is checked as nl_sim_replay checks it (as the flit model would run
 * it), by nl_sim_net_open and the nl_sim_send that opens the network: a
 * typo was taken silently there, and refused by a replay of the same
 * session. A routing the session picks itself is not the caller's. */
static void test_net_open_checks_routing(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "routing_function", "minn", &e), &e);
	CHECK_ERR(nl_sim_net_open(s, &e), NL_ENOTFOUND, &e,
		  "key 'routing_function': unknown routing function 'minn' (did you mean 'min'?");
	CHECK_ERR(nl_sim_send(s, 0, 0, 1, 64, 1, &e), NL_ENOTFOUND, &e, "unknown routing function 'minn'");
	CHECK_OK(nl_sim_load_string(s, "topology = dragonfly:a=4,p=2,h=2\nrouting_function = dor\n", "sys.ini", &e), &e);
	CHECK_ERR(nl_sim_net_open(s, &e), NL_EUNSUPPORTED, &e,
		  "sys.ini:2: key 'routing_function': routing function 'dor' does not run on topology 'dragonfly'");
	CHECK_OK(nl_sim_set(s, "routing_function", "min", &e), &e);
	CHECK_OK(nl_sim_net_open(s, &e), &e);
	nl_sim_free(s);
	s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "dragonfly:a=4,p=2,h=2", &e), &e);
	CHECK_OK(nl_sim_net_open(s, &e), &e);
	CHECK_OK(nl_sim_send(s, 0, 0, 1, 64, 1, &e), &e);
	nl_sim_free(s);
}

/* Errors are one line: control characters echoed from the caller's key,
 * value, INI name or path are escaped; nl_sim_set's own errors are
 * labelled nl_sim_set (they said '-s', a CLI option), its key=value form
 * keeps '-s' as the CLI's. */
static void test_error_one_line(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	struct nl_replay r = {.size = sizeof r};
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_ERR(nl_sim_set(s, "seed\nnum_vcs", "1", &e), NL_ECONFIG, &e, "nl_sim_set: unknown key 'seed\\nnum_vcs'");
	CHECK(!strchr(e.msg, '\n'));
	CHECK_ERR(nl_sim_set(s, "num_vcs", "2\r\x01", &e), NL_ECONFIG, &e, "nl_sim_set: key 'num_vcs': value '2\\r\\x01'");
	CHECK_ERR(nl_sim_set(s, "num_vcs=x", NULL, &e), NL_ECONFIG, &e, "nl_sim_set: key 'num_vcs': value 'x'");
	CHECK_ERR(nl_sim_load_string(s, "num_vcs = 0\n", "a\nb.ini", &e), NL_ECONFIG, &e, "a\\nb.ini");
	CHECK(!strchr(e.msg, '\n'));
	/* An empty name is called "<string>", as NULL is (it began ":1:"). */
	CHECK_ERR(nl_sim_load_string(s, "num_vcs = 0\n", "", &e), NL_ECONFIG, &e, "<string>:1: key 'num_vcs'");
	CHECK_ERR(nl_sim_load_string(s, "num_vcs = 0\n", NULL, &e), NL_ECONFIG, &e, "<string>:1: key 'num_vcs'");
	CHECK_ERR(nl_sim_load_file(s, "/nonexistent/a\nb.ini", &e), NL_EIO, &e, "/nonexistent/a\\nb.ini");
	CHECK(!strchr(e.msg, '\n'));
	CHECK_ERR(nl_sim_replay(s, "/nonexistent/a\tb.nlt", &r, &e), NL_ENOTFOUND, &e, "/nonexistent/a\\tb.nlt");
	CHECK(!strchr(e.msg, '\t'));
	CHECK_OK(nl_sim_set(s, "topology", "torus:k=4\nx", &e), &e);
	struct nl_sim_info info = {.size = sizeof info};
	CHECK(nl_sim_info(s, &info, &e) < 0);
	CHECK(e.msg[0] && !strchr(e.msg, '\n'));
	nl_sim_free(s);
}

/* A NULL session or required pointer is NL_EINVAL naming the call, in
 * every entry point; a NULL deliver callback means no notification, on
 * both backends alike. */
static void test_null_arguments(void)
{
	struct nl_err e = {0};
	struct nl_sim_info info = {.size = sizeof info};
	struct nl_sweep sw;
	char *json = NULL;
	uint64_t reached = 0, next = 0;
	CHECK_ERR(nl_sim_new(NULL, &e), NL_EINVAL, &e, "nl_sim_new: NULL out");
	CHECK_ERR(nl_sim_set(NULL, "seed", "1", &e), NL_EINVAL, &e, "nl_sim_set: NULL session");
	CHECK_ERR(nl_sim_load_string(NULL, "", NULL, &e), NL_EINVAL, &e, "nl_sim_load_string: NULL session");
	CHECK_ERR(nl_sim_load_file(NULL, "x.ini", &e), NL_EINVAL, &e, "nl_sim_load_file: NULL session");
	CHECK_ERR(nl_sim_info(NULL, &info, &e), NL_EINVAL, &e, "nl_sim_info: NULL session");
	CHECK_ERR(nl_sim_run(NULL, NULL, &e), NL_EINVAL, &e, "nl_sim_run: NULL session");
	CHECK_ERR(nl_sim_run_rate(NULL, 0.1, NULL, &e), NL_EINVAL, &e, "nl_sim_run_rate: NULL session");
	CHECK_ERR(nl_sim_sweep(NULL, 0.1, 0.2, 0.1, 0, NULL, NULL, &sw, &e), NL_EINVAL, &e,
		  "nl_sim_sweep: NULL session");
	CHECK_ERR(nl_sim_replay(NULL, "x.nlt", NULL, &e), NL_EINVAL, &e, "nl_sim_replay: NULL session");
	CHECK_ERR(nl_sim_net_open(NULL, &e), NL_EINVAL, &e, "nl_sim_net_open: NULL session");
	CHECK_ERR(nl_sim_send(NULL, 0, 0, 1, 64, 1, &e), NL_EINVAL, &e, "nl_sim_send: NULL session");
	CHECK_ERR(nl_sim_advance(NULL, 0, NULL, NULL, NULL, NULL, &e), NL_EINVAL, &e, "nl_sim_advance: NULL session");
	CHECK_ERR(nl_sim_json(NULL, 0, &json, NULL, &e), NL_EINVAL, &e, "nl_sim_json: NULL session");
	CHECK_ERR(nl_sim_write_json(NULL, 0, "-", &e), NL_EINVAL, &e, "nl_sim_write_json: NULL session");
	CHECK_STR(nl_sim_deadlock_report(NULL), "");
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology", "mesh:k=2x2", &e), &e);
	CHECK_ERR(nl_sim_info(s, NULL, &e), NL_EINVAL, &e, "nl_sim_info: NULL info");
	struct nl_sim_info small = {.size = 8};
	char want[128];
	snprintf(want, sizeof want, "nl_sim_info: info->size 8: expected sizeof(struct nl_sim_info), %zu", sizeof small);
	CHECK_ERR(nl_sim_info(s, &small, &e), NL_EINVAL, &e, want);
	/* Larger (a size left unset: stack bytes) was taken. */
	struct nl_sim_info large = {.size = sizeof large + 1};
	snprintf(want, sizeof want, "nl_sim_info: info->size %zu: expected sizeof(struct nl_sim_info), %zu",
		 sizeof large + 1, sizeof large);
	CHECK_ERR(nl_sim_info(s, &large, &e), NL_EINVAL, &e, want);
	CHECK(large.topology == NULL);
	struct nl_replay r = {.size = 0};
	snprintf(want, sizeof want, "nl_sim_replay: out->size 0: expected sizeof(struct nl_replay), %zu", sizeof r);
	CHECK_ERR(nl_sim_replay(s, TEST_SRC("traces/samples/pingpong-2.nlt"), &r, &e), NL_EINVAL, &e, want);
	r.size = sizeof r + 8;
	CHECK_ERR(nl_sim_replay(s, TEST_SRC("traces/samples/pingpong-2.nlt"), &r, &e), NL_EINVAL, &e,
		  "nl_sim_replay: out->size ");
	CHECK_UINT(r.n_ranks, ==, 0);
	CHECK_OK(nl_sim_run(s, NULL, &e), &e);
	CHECK_ERR(nl_sim_json(s, 0, NULL, NULL, &e), NL_EINVAL, &e, "nl_sim_json: NULL out");
	CHECK_ERR(nl_sim_write_json(s, 0, NULL, &e), NL_EINVAL, &e, "nl_sim_write_json: NULL path");
	static const char *const backends[] = {"flit", "analytic"};
	for (int b = 0; b < 2; b++) {
		CHECK_OK(nl_sim_set(s, "backend", backends[b], &e), &e);
		CHECK_OK(nl_sim_send(s, 0, 0, 1, 64, 1, &e), &e);
		/* Without a callback it still stops at the delivery's instant. */
		CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, NULL, NULL, &reached, &next, &e), &e);
		CHECK(reached > 0 && reached < UINT64_MAX / 2);
		CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, NULL, NULL, NULL, NULL, &e), &e);
	}
	nl_sim_free(s);
}

/* err may be NULL (netloom.h: "when err is not NULL, fills it"): every
 * call returns the code it returns with an err. The layers below read
 * the code back through err: a bad value crashed (nl_sim_set's, a bad
 * topology at nl_sim_net_open) or was NL_EINVAL (nl_err_prefix's
 * answer for a NULL err) instead of the failure's own code. */
static int null_err_case(int which, struct nl_err *err)
{
	nl_sim *s = NULL;
	int rc = nl_sim_new(&s, NULL);
	if (rc < 0)
		return rc;
	switch (which) {
	case 0: rc = nl_sim_set(s, "num_vcs", "abc", err); break;
	case 1: rc = nl_sim_set(s, "injection_rate", "2", err); break;
	case 2: rc = nl_sim_load_string(s, "num_vcs = -3\n", "inline.ini", err); break;
	case 3:
	case 4:
	case 5:
	case 6:
	case 7:
		(void)nl_sim_set(s, "topology", which == 3 ? "torus:k=0x4" : "torsu:k=4x4", NULL);
		if (which == 3) {
			struct nl_sim_info info = {.size = sizeof info};
			rc = nl_sim_info(s, &info, err);
		} else if (which == 4) {
			rc = nl_sim_run(s, NULL, err);
		} else if (which == 5) {
			rc = nl_sim_net_open(s, err);
		} else if (which == 6) {
			(void)nl_sim_set(s, "backend", "flit", NULL);
			rc = nl_sim_send(s, 0, 0, 1, 64, 1, err);
		} else {
			rc = nl_sim_replay(s, TEST_SRC("traces/samples/pingpong-2.nlt"), NULL, err);
		}
		break;
	case 8:
		(void)nl_sim_set(s, "routing_function", "minn", NULL);
		rc = nl_sim_net_open(s, err);
		break;
	case 9:
		(void)nl_sim_set(s, "traffic", "unifrom", NULL);
		rc = nl_sim_sweep(s, 0.1, 0.2, 0.1, 0, NULL, NULL, NULL, err);
		break;
	default: rc = nl_sim_run_rate(s, 2, NULL, err); break;
	}
	nl_sim_free(s);
	return rc;
}

static void test_null_err(void)
{
	for (int which = 0; which <= 10; which++) {
		struct nl_err e = {0};
		int with = null_err_case(which, &e);
		CHECK_INT(with, <, 0);
		CHECK(e.msg[0] != '\0');
		CHECK_INT(null_err_case(which, NULL), ==, with);
	}
}

/* Bytes the library wrote to stderr, a terminal (a pty), while it built
 * `topology` (nl_sim_info) and, with is_run, ran a point at 0.3, each
 * about a second (progress lines are drawn after 0.2 s), with
 * session_set_progress(on) first unless on < 0. */
static size_t stderr_on_tty(int on, const char *topology, bool is_run)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK(master >= 0);
	CHECK(grantpt(master) == 0 && unlockpt(master) == 0);
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	CHECK(slave >= 0);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	CHECK(saved >= 0 && dup2(slave, STDERR_FILENO) == STDERR_FILENO);
	struct nl_err e = {0};
	nl_sim *s = NULL;
	int rc = nl_sim_new(&s, &e);
	if (rc == 0 && on >= 0)
		session_set_progress(s, on);
	if (rc == 0)
		rc = nl_sim_set(s, "topology", topology, &e);
	if (rc == 0)
		rc = nl_sim_set(s, "injection_rate", "0.3", &e);
	struct nl_sim_info info = {.size = sizeof info};
	if (rc == 0)
		rc = nl_sim_info(s, &info, &e);
	if (rc == 0 && is_run)
		rc = nl_sim_run(s, NULL, &e);
	nl_sim_free(s);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(slave);
	CHECK_OK(rc, &e);
	size_t n = 0;
	char buf[4096];
	int fl = fcntl(master, F_GETFL);
	fcntl(master, F_SETFL, fl | O_NONBLOCK);
	for (ssize_t got; (got = read(master, buf, sizeof buf)) > 0;)
		n += (size_t)got;
	close(master);
	return n;
}

/* An embedding program's terminal is its own: nl_sim_run drew the
 * flit model's progress line ("rate 0.3:  16.0%  warm-up, ...") on
 * stderr when it was a terminal, which netloom.h does not say. The
 * commands ask for it (session_set_progress); an API caller gets none. */
static void test_no_progress_on_tty(void)
{
	const char *was = getenv("NETLOOM_PROGRESS");
	char *keep = was ? strdup(was) : NULL;
	unsetenv("NETLOOM_PROGRESS");
	static const char torus[] = "torus:k=12x12";
	CHECK_UINT(stderr_on_tty(-1, torus, true), ==, 0);
	CHECK_UINT(stderr_on_tty(0, torus, true), ==, 0);
	/* The capture sees a line when there is one. */
	CHECK_UINT(stderr_on_tty(1, torus, true), >, 0);
	/* A permuted network's trials drew theirs from any build
	 * ("p1:  15.0%  trial 4/20 ..."), topo_new's too, which topo.h says
	 * builds silently. */
	static const char permuted[] = "p1(myriclos:n=2048):trials=60";
	CHECK_UINT(stderr_on_tty(-1, permuted, false), ==, 0);
	CHECK_UINT(stderr_on_tty(1, permuted, false), >, 0);
	if (keep)
		setenv("NETLOOM_PROGRESS", keep, 1);
	free(keep);
}

/* compare's cache keys (session_compare_cache.c) hold the identity of
 * the build that runs them: a result cached by another build (another
 * commit: the model may differ, the version does not) is a miss; the same
 * build finds its own. */
/* Deliveries counted by the advance-forever test. */
struct forever {
	int n;
	uint64_t last_ps;
};

static void forever_deliver(void *ctx, uint64_t msg_id, uint64_t t_ps)
{
	struct forever *f = ctx;
	(void)msg_id;
	f->n++;
	f->last_ps = t_ps;
}

/* nl_sim_advance to UINT64_MAX ("until nothing is left"): it delivers as
 * any advance and, once the network has no work, leaves the clock where
 * the work ran out, so that later sends are taken. It moved the clock to
 * UINT64_MAX, after which every send was refused ("send at 1000 ps,
 * before the reached time 18446744073709551615 ps"). An advance to a
 * time up to 2^62 ps still moves the clock there. */
static void test_advance_forever(void)
{
	static const char *const backends[] = {"analytic", "flit"};
	for (int b = 0; b < 2; b++) {
		struct nl_err e = {0};
		struct forever f = {0};
		uint64_t reached = 1, next = 0;
		nl_sim *s = NULL;
		CHECK_OK(nl_sim_new(&s, &e), &e);
		CHECK_OK(nl_sim_set(s, "topology", "mesh:k=2x2", &e), &e);
		CHECK_OK(nl_sim_set(s, "backend", backends[b], &e), &e);
		CHECK_OK(nl_sim_net_open(s, &e), &e);
		/* A new network, idle: the clock stays at 0. */
		CHECK_OK(nl_sim_advance(s, UINT64_MAX, forever_deliver, &f, &reached, &next, &e), &e);
		CHECK_UINT(reached, ==, 0);
		CHECK(next == UINT64_MAX);
		CHECK_OK(nl_sim_send(s, 1000, 0, 3, 64, 1, &e), &e);
		CHECK_OK(nl_sim_advance(s, UINT64_MAX, forever_deliver, &f, &reached, &next, &e), &e);
		CHECK_EQ(f.n, 1);
		CHECK(f.last_ps > 1000 && reached == f.last_ps);
		/* Then until the work runs out (the flit backend's credits
		 * return), a few cycles at most, nothing delivered. */
		for (int i = 0; i < 3; i++)
			CHECK_OK(nl_sim_advance(s, UINT64_MAX, forever_deliver, &f, &reached, &next, &e), &e);
		CHECK_EQ(f.n, 1);
		CHECK(next == UINT64_MAX);
		CHECK(reached >= f.last_ps && reached < f.last_ps + 100000);
		/* The network takes the next message at the time reached. */
		uint64_t at = reached;
		CHECK_OK(nl_sim_send(s, at, 3, 0, 64, 2, &e), &e);
		CHECK_OK(nl_sim_advance(s, UINT64_MAX - 1, forever_deliver, &f, &reached, &next, &e), &e);
		CHECK_EQ(f.n, 2);
		CHECK(f.last_ps > at && reached == f.last_ps);
		/* A time up to 2^62 ps: the clock goes there, work or not. */
		CHECK_OK(nl_sim_advance(s, UINT64_C(1) << 62, forever_deliver, &f, &reached, &next, &e), &e);
		CHECK(reached == UINT64_C(1) << 62 && next == UINT64_MAX);
		CHECK_EQ(f.n, 2);
		nl_sim_free(s);
	}
}

static void test_compare_keys(void)
{
	struct nl_err e = {0};
	nl_sim *s = NULL;
	CHECK_OK(nl_sim_new(&s, &e), &e);
	CHECK_OK(nl_sim_set(s, "topology=torus:k=4x4", NULL, &e), &e);
	struct cmp_wl w = {.trace_hash = 1};
	char a[20], b[20], c[20];
	CHECK_OK(cmp_key(s, &w, 7, "0a0509e", a, &e), &e);
	CHECK_OK(cmp_key(s, &w, 7, "0a0509e", b, &e), &e);
	CHECK_OK(cmp_key(s, &w, 7, "5195950", c, &e), &e);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);
	struct layout_cfg lc = {.preset = "flex", .placement = LAYOUT_PLACE_RULE, .iterations = 1000000, .trials = 5,
				.seed = 1};
	cmp_cost_key("torus:k=4x4", &lc, "0a0509e", a);
	cmp_cost_key("torus:k=4x4", &lc, "0a0509e", b);
	cmp_cost_key("torus:k=4x4", &lc, "5195950", c);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);
	/* Every layout choice that moves cabinets or cables is in the cost
	 * key (a system's own layout keys price it); the annealing's budget
	 * and seed only when it may anneal. */
	struct layout_cfg v[6];
	for (int i = 0; i < 6; i++)
		v[i] = lc;
	snprintf(v[0].preset, sizeof v[0].preset, "besta");
	snprintf(v[1].pack, sizeof v[1].pack, "canonical");
	v[2].per_cabinet = 4;
	v[3].placement = LAYOUT_PLACE_ANNEAL;
	v[4] = v[3];
	v[4].seed = 2;
	v[5].seed = 2;
	char k[6][20];
	for (int i = 0; i < 6; i++)
		cmp_cost_key("torus:k=4x4", &v[i], "0a0509e", k[i]);
	for (int i = 0; i < 5; i++) {
		CHECK(strcmp(k[i], a) != 0);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(k[i], k[j]) != 0);
	}
	CHECK_STR(k[5], a);
	/* vcs_tag filled the build's identity in (git describe or the version). */
	CHECK(version_build()[0] && !strchr(version_build(), '@'));
	nl_sim_free(s);
}

/* A value that is not UTF-8 is in compare's key by its bytes: through
 * U+FFFD (out_json_utf8), 'uniform\xff' and 'uniform\xfe' had one key,
 * that of 'uniform\xef\xbf\xbd' (U+FFFD typed), and the second cell of a
 * study took the first's result from the cache. */
static void test_compare_key_bytes(void)
{
	static const char *const traffic[] = {"uniform\xff", "uniform\xfe", "uniform\xef\xbf\xbd", "uniform"};
	char key[4][20];
	for (int i = 0; i < 4; i++) {
		struct nl_err e = {0};
		nl_sim *s = NULL;
		struct cmp_wl w = {.trace_hash = 1};
		CHECK_OK(nl_sim_new(&s, &e), &e);
		CHECK_OK(nl_sim_set(s, "topology", "torus:k=4x4", &e), &e);
		CHECK_OK(nl_sim_set(s, "traffic", traffic[i], &e), &e);
		CHECK_OK(cmp_key(s, &w, 1, "0a0509e", key[i], &e), &e);
		nl_sim_free(s);
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < i; j++)
			CHECK(strcmp(key[i], key[j]) != 0);
}

/* A path under prefix ctx, as compare resolves a study's relative paths. */
static char *test_under(void *ctx, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s/%s", (const char *)ctx, path);
	return strdup(buf);
}

/* The files a topology spec names, found where the spec grammar puts
 * them (a leading '@', file= of any family, nested specs), and compare's
 * keys by those files' contents: the same bytes under two paths share a
 * key, edited bytes do not (an edited anynet file was served from the
 * cache). */
static void test_compare_topology_files(void)
{
	static const char *const cases[][2] = {
		{"anynet:file=ring.anynet", "anynet:file=D/ring.anynet"},
		{"p2(anynet:file=a.net):trials=3,seed=2", "p2(anynet:file=D/a.net):trials=3,seed=2"},
		{"graph:p=2,file=x.edges,labels=1", "graph:p=2,file=D/x.edges,labels=1"},
		{"@spec.txt", "@D/spec.txt"},
		{"torus:k=4x4", "torus:k=4x4"},
		{"profile=file=x", "profile=file=x"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *r = path_spec_files(cases[i][0], test_under, "D");
		CHECK(r != NULL);
		CHECK_STR(r, cases[i][1]);
		free(r);
	}
	/* 200,000 nested wrappers (a study's or spec file's line of any
	 * length): the walk recursed once per level until the stack ran out
	 * (SIGSEGV). Past 32 levels, deeper than any spec builds (topo_new
	 * refuses 17), the text is copied as typed; within them a file is
	 * still found. */
	for (int levels = 31; levels <= 200000; levels += 200000 - 31) {
		size_t n = 3 * (size_t)levels + 32 + (size_t)levels;
		char *deep = malloc(n), *w = deep;
		CHECK(deep != NULL);
		if (!deep)
			return;
		for (int i = 0; i < levels; i++)
			w += sprintf(w, "p1(");
		w += sprintf(w, "graph:file=in.edges");
		memset(w, ')', (size_t)levels);
		w[levels] = '\0';
		char *r = path_spec_files(deep, test_under, "D");
		CHECK(r != NULL);
		CHECK_EQ(r && strstr(r, "file=D/in.edges") != NULL, levels == 31);
		CHECK_EQ(r ? strlen(r) : 0, strlen(deep) + 2 * (levels == 31));
		free(r);
		free(deep);
	}
	static const char ring[] = "router 0 node 0 router 1\nrouter 1 node 1 router 2\nrouter 2 node 2 router 0\n";
	char pa[128], pb[128], spec[300], key[3][20], cost[3][20];
	snprintf(pa, sizeof pa, "/tmp/netloom_test_%d_a.anynet", (int)getpid());
	snprintf(pb, sizeof pb, "/tmp/netloom_test_%d_b.anynet", (int)getpid());
	for (int k = 0; k < 3; k++) {
		const char *path = k == 1 ? pb : pa;
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (!f)
			return;
		fputs(ring, f);
		if (k == 2) /* an edited file: a fourth endpoint */
			fputs("router 0 node 3\n", f);
		fclose(f);
		struct nl_err e = {0};
		nl_sim *s = NULL;
		struct cmp_wl w = {.trace_hash = 1};
		snprintf(spec, sizeof spec, "anynet:file=%s", path);
		CHECK_OK(nl_sim_new(&s, &e), &e);
		CHECK_OK(nl_sim_set(s, "topology", spec, &e), &e);
		CHECK_OK(cmp_key(s, &w, 1, "0a0509e", key[k], &e), &e);
		struct layout_cfg lc = {.preset = "flex", .placement = LAYOUT_PLACE_RULE};
		cmp_cost_key(spec, &lc, "0a0509e", cost[k]);
		nl_sim_free(s);
	}
	CHECK_STR(key[0], key[1]);
	CHECK_STR(cost[0], cost[1]);
	CHECK(strcmp(key[0], key[2]) != 0);
	CHECK(strcmp(cost[0], cost[2]) != 0);
	remove(pa);
	remove(pb);
}

int main(void)
{
	TEST_RUN(test_config);
	TEST_RUN(test_compare_topology_files);
	TEST_RUN(test_compare_key_bytes);
	TEST_RUN(test_run_rate);
	TEST_RUN(test_run_rate_one_off);
	TEST_RUN(test_callback_reentry);
	TEST_RUN(test_sweep_tiny_step);
	TEST_RUN(test_message_extremes);
	TEST_RUN(test_send_before_delivery);
	TEST_RUN(test_send_later);
	TEST_RUN(test_send_after_deadlock);
	TEST_RUN(test_refused_keeps_results);
	TEST_RUN(test_unknown_flags);
	TEST_RUN(test_default_routing_history);
	TEST_RUN(test_sweep_stopped);
	TEST_RUN(test_analytic_topology_free);
	TEST_RUN(test_net_open_checks_routing);
	TEST_RUN(test_error_one_line);
	TEST_RUN(test_null_arguments);
	TEST_RUN(test_null_err);
	TEST_RUN(test_no_progress_on_tty);
	TEST_RUN(test_message_level);
	TEST_RUN(test_advance_forever);
	TEST_RUN(test_replay);
	TEST_RUN(test_two_threads);
	TEST_RUN(test_compare_keys);
	return test_done();
}
