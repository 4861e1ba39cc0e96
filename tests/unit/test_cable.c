/* cable_latency (issue 13): cable lengths from emu/layout become per-link
 * latencies of the analytic backend, through the session layer. Expected
 * arrival times are computed here from layout_port_lengths() of a layout
 * built by the test itself (the documented rule: a channel's latency is
 * its cable's length x propagation_ns_per_m, to the nearest picosecond),
 * never copied from a run. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "layout/layout.h"
#include "netloom/netloom.h"
#include "test.h"
#include "topo/topo.h"

/* Defaults of the analytic backend the expected times use. */
#define LATENCY_PS 1000000ull /* latency_ns = 1000 */
#define PS_PER_BYTE 80ull     /* bandwidth_gbps = 100: 8000 / 100 */

struct lay {
	struct topo *t;
	struct layout lo;
	double *len; /* [n_ports] metres */
};

/* Build spec's layout under the flex preset: the rule's order, or
 * annealing with (iters, trials, seed) when iters > 0. */
static void lay_build(struct lay *L, const char *spec, uint64_t iters, uint32_t trials, uint64_t seed,
		      const char *want_rule)
{
	struct nl_err err = {0};
	const struct layout_model *m = layout_model_find("flex", &err);
	CHECK(m != NULL);
	CHECK_OK(topo_new(spec, &L->t, &err), &err);
	CHECK_OK(layout_pack(&L->lo, L->t, NULL, 0, &err), &err);
	CHECK_STR(L->lo.rule->name, want_rule);
	if (iters)
		CHECK_OK(layout_place_anneal(&L->lo, m, iters, trials, seed, 0, &err), &err);
	else
		CHECK_OK(layout_place_rule(&L->lo, &err), &err);
	L->len = malloc(L->t->n_ports * sizeof *L->len);
	layout_port_lengths(&L->lo, m, L->len);
}

static void lay_free(struct lay *L)
{
	layout_release(&L->lo);
	topo_free(L->t);
	free(L->len);
}

static uint64_t cable_ps(double len_m, double ns_per_m)
{
	return (uint64_t)llround(len_m * ns_per_m * 1000.0);
}

/* Sum of the cable latencies on the minimal route from router a to b,
 * which must be unique (one neighbour one hop closer at every step), so
 * whatever route the backend takes is this one. -1: not unique. */
static int64_t path_ps(const struct lay *L, uint32_t a, uint32_t b, double ns_per_m, uint32_t *hops,
		       uint32_t *inter, uint32_t *nodes)
{
	const struct topo *t = L->t;
	int64_t sum = 0;
	*hops = *inter = 0;
	while (a != b) {
		uint32_t left = topo_distance(t, a, b), n = 0, via = 0;
		for (uint32_t g = t->port_base[a]; g < t->port_base[a + 1]; g++)
			if (topo_port_is_network(t, g) && topo_distance(t, t->port_router[t->peer[g]], b) + 1 == left) {
				n++;
				via = g;
			}
		if (n != 1)
			return -1;
		sum += (int64_t)cable_ps(L->len[via], ns_per_m);
		if (nodes && *hops < 8)
			nodes[*hops] = a;
		*inter += L->lo.cabinet[a] != L->lo.cabinet[t->port_router[t->peer[via]]];
		(*hops)++;
		a = t->port_router[t->peer[via]];
	}
	return sum;
}

static uint32_t ep_of(const struct topo *t, uint32_t r)
{
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		if (topo_ep_router(t, e) == r)
			return e;
	return UINT32_MAX;
}

static void on_deliver(void *ctx, uint64_t id, uint64_t t)
{
	uint64_t *at = ctx;
	at[id] = t;
}

/* Send n messages (src[i] -> dst[i], bytes[i], id i) at 0 with the keys
 * set; at[i] gets each arrival. */
static void messages(const char *const *keys, size_t n, const uint32_t *src, const uint32_t *dst,
		     const uint64_t *bytes, uint64_t *at)
{
	struct nl_err err = {0};
	nl_sim *s;
	uint64_t reached = 0, next = 0;
	CHECK_OK(nl_sim_new(&s, &err), &err);
	for (size_t i = 0; keys[i]; i++)
		CHECK_OK(nl_sim_set(s, keys[i], NULL, &err), &err);
	for (size_t i = 0; i < n; i++) {
		at[i] = 0;
		CHECK_OK(nl_sim_send(s, 0, src[i], dst[i], bytes[i], i, &err), &err);
	}
	for (size_t guard = 0; next != UINT64_MAX && guard < 16; guard++)
		CHECK_OK(nl_sim_advance(s, UINT64_MAX / 2, on_deliver, at, &reached, &next, &err), &err);
	nl_sim_free(s);
}

/* One message of `bytes` at 0: its arrival. */
static uint64_t one_message(const char *const *keys, uint32_t src, uint32_t dst, uint64_t bytes)
{
	uint64_t at;
	messages(keys, 1, &src, &dst, &bytes, &at);
	return at;
}

/* A folded 8x8 torus (grid-folded: a row of 8 routers per cabinet,
 * cabinets folded along y): every message from router 0 along a unique
 * minimal route arrives at latency + size / bandwidth + h hop latencies +
 * its cables, in all three sharing models (without contention they agree),
 * and later than without cable_latency. */
static void test_torus_folded(void)
{
	struct lay L = {0};
	lay_build(&L, "torus:k=8x8", 0, 0, 0, "grid-folded");
	const char *models[] = {"link_model=none", "link_model=endpoint", "link_model=links"};
	uint32_t checked = 0, inter_max = 0;
	for (uint32_t dst = 1; dst < L.t->n_routers; dst++) {
		uint32_t hops, inter;
		int64_t cab = path_ps(&L, 0, dst, 5.0, &hops, &inter, NULL);
		if (cab < 0)
			continue;
		uint32_t se = ep_of(L.t, 0), de = ep_of(L.t, dst);
		for (size_t m = 0; m < 3; m++) {
			const char *on[] = {"topology=torus:k=8x8", "cable_latency=1", models[m], "hop_latency_ns=100", NULL};
			const char *off[] = {"topology=torus:k=8x8", "cable_latency=0", models[m], "hop_latency_ns=100", NULL};
			uint64_t t1 = one_message(on, se, de, 1000), t0 = one_message(off, se, de, 1000);
			uint64_t base = LATENCY_PS + 1000 * PS_PER_BYTE + hops * 100000ull;
			CHECK_UINT(t1, ==, base + (uint64_t)cab);
			CHECK_UINT(t0, ==, base);
			CHECK_UINT(t1, >, t0);
		}
		checked++;
		inter_max = inter > inter_max ? inter : inter_max;
	}
	/* Rows and columns within 3 hops: 2 x 6 unique routes; some cross
	 * cabinets (the long cables). */
	CHECK_UINT(checked, ==, 12);
	CHECK_UINT(inter_max, ==, 3);

	/* Two messages along one row (inside a cabinet: 1 m cables, 5 ns):
	 * A from p0 to p2, B from p1 to p3 sharing p1 -> p2. B holds it for
	 * 40 x 80 ps from 0; A reaches it after p0 -> p1's cable, later, so
	 * with links it is not held up. */
	uint32_t p[8] = {0}, hops = 0, inter = 1, d3 = 1;
	for (; d3 < L.t->n_routers; d3++)
		if (topo_distance(L.t, 0, d3) == 3 && path_ps(&L, 0, d3, 5.0, &hops, &inter, p) > 0 && inter == 0)
			break;
	CHECK(d3 < L.t->n_routers);
	if (d3 < L.t->n_routers) {
		p[3] = d3;
		uint32_t hA, iA, hB, iB;
		int64_t cabA = path_ps(&L, p[0], p[2], 5.0, &hA, &iA, NULL), cabB = path_ps(&L, p[1], p[3], 5.0, &hB, &iB, NULL);
		CHECK_EQ(cabA, 10000);
		CHECK_EQ(cabB, 10000);
		const char *keys[] = {"topology=torus:k=8x8", "cable_latency=1", "link_model=links", NULL};
		uint32_t src[2] = {ep_of(L.t, p[1]), ep_of(L.t, p[0])}, dst[2] = {ep_of(L.t, p[3]), ep_of(L.t, p[2])};
		uint64_t bytes[2] = {40, 40}, at[2];
		messages(keys, 2, src, dst, bytes, at);
		CHECK_UINT(at[0], ==, LATENCY_PS + 40 * PS_PER_BYTE + (uint64_t)cabB);
		CHECK_UINT(at[1], ==, LATENCY_PS + 40 * PS_PER_BYTE + (uint64_t)cabA);
	}
	lay_free(&L);
}

/* A dragonfly with a group per cabinet, annealed: a global and a local
 * link from router 0 each add their own cable, at the configured
 * propagation (4.3213 ns/m: picosecond rounding shows); empty messages
 * pay it too; a message enters the destination's ejection channel only
 * after its cables, so one that used the channel meanwhile does not
 * delay it. */
static void test_dragonfly_annealed(void)
{
	const char *spec = "dragonfly:a=4,p=2,h=2";
	struct lay L = {0};
	lay_build(&L, spec, 20000, 2, 7, "dragonfly-group");
	const struct topo *t = L.t;
	bool seen_local = false, seen_global = false;
	for (uint32_t g = t->port_base[0]; g < t->port_base[1]; g++) {
		if (!topo_port_is_network(t, g))
			continue;
		uint32_t b = t->port_router[t->peer[g]], hops, inter;
		int64_t cab = path_ps(&L, 0, b, 4.3213, &hops, &inter, NULL);
		CHECK_EQ(hops, 1);
		CHECK_UINT((uint64_t)cab, ==, cable_ps(L.len[g], 4.3213));
		bool global = L.lo.cabinet[0] != L.lo.cabinet[b];
		seen_global |= global;
		seen_local |= !global;
		const char *keys[] = {"topology=dragonfly:a=4,p=2,h=2", "cable_latency=1", "propagation_ns_per_m=4.3213",
				      "layout_iterations=20000", "layout_trials=2", "layout_seed=7", "link_model=links",
				      NULL};
		uint32_t se = ep_of(t, 0), de = ep_of(t, b);
		CHECK_UINT(one_message(keys, se, de, 500), ==, LATENCY_PS + 500 * PS_PER_BYTE + (uint64_t)cab);
		CHECK_UINT(one_message(keys, se, de, 0), ==, LATENCY_PS + (uint64_t)cab);
		/* First a message from b's other endpoint to de (no cable): it
		 * holds de's ejection channel for 40 x 80 ps, less than the
		 * cable's delay, so the second is not held up. */
		CHECK_UINT((uint64_t)cab, >, 40 * PS_PER_BYTE);
		uint32_t src2[2] = {de + 1, se}, dst2[2] = {de, de};
		uint64_t bytes2[2] = {40, 40}, at2[2];
		CHECK_EQ(topo_ep_router(t, de + 1), b);
		messages(keys, 2, src2, dst2, bytes2, at2);
		CHECK_UINT(at2[0], ==, LATENCY_PS + 40 * PS_PER_BYTE);
		CHECK_UINT(at2[1], ==, LATENCY_PS + 40 * PS_PER_BYTE + (uint64_t)cab);
		/* A global cable is longer than the 1 m inside a cabinet. */
		CHECK(global ? L.len[g] > 2.0 : fabs(L.len[g] - 1.0) < 1e-12);
	}
	CHECK(seen_local && seen_global);
	lay_free(&L);
}

/* cable_latency on the flit backend (issue 11 part 1): each channel's
 * cable delay rounded UP to whole cycles (cycle_ps = 1000) is added to
 * the channel, so a one-flit message's zero-load latency grows by the sum
 * of the rounded delays of its unique minimal path: the analytic
 * backend's zero-load growth (exact picoseconds) rounded up per channel. */
static void test_flit_cables(void)
{
	struct lay L = {0};
	lay_build(&L, "dragonfly:a=4,p=2,h=2", 20000, 2, 7, "dragonfly-group");
	const struct topo *t = L.t;
	uint32_t checked = 0;
	for (uint32_t b = 1; b < t->n_routers; b++) {
		uint32_t hops, inter;
		if (path_ps(&L, 0, b, 4.3213, &hops, &inter, NULL) < 0)
			continue;
		/* The rounded sum along the unique path. */
		uint64_t want = 0, exact = 0;
		for (uint32_t a = 0; a != b;) {
			uint32_t left = topo_distance(t, a, b), via = 0;
			for (uint32_t g = t->port_base[a]; g < t->port_base[a + 1]; g++)
				if (topo_port_is_network(t, g) &&
				    topo_distance(t, t->port_router[t->peer[g]], b) + 1 == left)
					via = g;
			uint64_t ps = cable_ps(L.len[via], 4.3213);
			exact += ps;
			want += (ps + 999) / 1000 * 1000;
			a = t->port_router[t->peer[via]];
		}
		const char *on[] = {"topology=dragonfly:a=4,p=2,h=2", "backend=flit", "routing_function=min",
				    "cable_latency=1", "propagation_ns_per_m=4.3213", "layout_iterations=20000",
				    "layout_trials=2", "layout_seed=7", NULL};
		const char *off[] = {"topology=dragonfly:a=4,p=2,h=2", "backend=flit", "routing_function=min", NULL};
		const char *an_on[] = {"topology=dragonfly:a=4,p=2,h=2", "link_model=links", "cable_latency=1",
				       "propagation_ns_per_m=4.3213", "layout_iterations=20000", "layout_trials=2",
				       "layout_seed=7", NULL};
		const char *an_off[] = {"topology=dragonfly:a=4,p=2,h=2", "link_model=links", NULL};
		uint32_t se = ep_of(t, 0), de = ep_of(t, b);
		uint64_t f_on = one_message(on, se, de, 0), f_off = one_message(off, se, de, 0);
		uint64_t a_on = one_message(an_on, se, de, 0), a_off = one_message(an_off, se, de, 0);
		CHECK_UINT(a_on - a_off, ==, exact);
		CHECK_UINT(f_on - f_off, ==, want);
		CHECK_UINT(f_on - f_off, >=, a_on - a_off);
		CHECK_UINT(f_on - f_off, <, a_on - a_off + 1000 * hops);
		checked++;
	}
	CHECK(checked >= 3);
	lay_free(&L);
}

/* The replay's reproducible JSON and predicted runtime with keys set. */
static char *replay_json(const char *trace, const char *const *keys, double *pred, struct nl_err *err)
{
	nl_sim *s = NULL;
	char *out = NULL;
	struct nl_replay r = {.size = sizeof r};
	int rc = nl_sim_new(&s, err);
	for (size_t i = 0; rc == 0 && keys[i]; i++)
		rc = nl_sim_set(s, keys[i], NULL, err);
	if (rc == 0)
		rc = nl_sim_replay(s, trace, &r, err);
	if (rc == 0)
		rc = nl_sim_json(s, NL_JSON_REPRODUCIBLE, &out, NULL, err);
	*pred = r.predicted_s;
	nl_sim_free(s);
	return out;
}

/* A recorded LAMMPS run on the annealed dragonfly: slower with its cables,
 * the same bytes twice, and a report whose mean channel latency is the
 * layout's mean length x propagation. */
static void test_replay(void)
{
	struct nl_err err = {0};
	const char *trace = TEST_SRC("traces/samples/lammps-lj-8.nlt");
	const char *on[] = {"topology=dragonfly:a=4,p=2,h=2", "link_model=links", "cable_latency=1",
			    "layout_iterations=20000", NULL};
	const char *off[] = {"topology=dragonfly:a=4,p=2,h=2", "link_model=links", NULL};
	double p_on = 0, p_on2 = 0, p_off = 0;
	char *a = replay_json(trace, on, &p_on, &err);
	CHECK_STR(err.msg, "");
	char *b = replay_json(trace, on, &p_on2, &err);
	char *c = replay_json(trace, off, &p_off, &err);
	CHECK(a && b && c);
	if (!a || !b || !c)
		goto out;
	CHECK(!strcmp(a, b));
	CHECK(p_on > p_off);
	CHECK(strstr(c, "\"cables\"") == NULL && strstr(c, "\"link_latency\"") == NULL);

	struct lay L = {0};
	lay_build(&L, "dragonfly:a=4,p=2,h=2", 20000, 5, 1, "dragonfly-group");
	double sum_ns = 0, len_sum = 0;
	uint32_t n = 0, links = 0;
	for (uint32_t g = 0; g < L.t->n_ports; g++) {
		if (!topo_port_is_network(L.t, g))
			continue;
		sum_ns += (double)cable_ps(L.len[g], 5.0) * 1e-3;
		n++;
		if (L.t->peer[g] > g) {
			len_sum += L.len[g];
			links++;
		}
	}
	json_t *doc = json_loads(a, 0, NULL);
	json_t *net = json_object_get(json_object_get(doc, "results"), "network");
	json_t *ll = json_object_get(net, "link_latency"), *cab = json_object_get(net, "cables");
	CHECK(ll && cab);
	CHECK_EQ(json_integer_value(json_object_get(ll, "channels")), n);
	CHECK_NEAR(json_real_value(json_object_get(ll, "mean_ns")), sum_ns / n, 1e-9);
	CHECK(json_real_value(json_object_get(ll, "per_message_ns")) > 0);
	CHECK_STR(json_string_value(json_object_get(cab, "rule")), "dragonfly-group");
	CHECK_STR(json_string_value(json_object_get(cab, "placement")), "anneal");
	CHECK_EQ(json_integer_value(json_object_get(cab, "links")), links);
	CHECK_NEAR(json_real_value(json_object_get(cab, "length_m")), len_sum, 1e-9);
	json_decref(doc);
	lay_free(&L);
out:
	free(a);
	free(b);
	free(c);
}

/* The names layout_preset and layout_pack accept (layout_cfg.c) are the
 * registries' own, in order: a preset or rule added to one only is a
 * failure here, not a name refused or a stale one accepted. */
static void test_names_conform(void)
{
	size_t n, i;
	const struct param_def *d = param_find(layout_config_table.keys, "layout_preset");
	const struct layout_model *const *models = layout_model_list(&n);
	CHECK(d && d->choices);
	for (i = 0; d && d->choices && d->choices[i] && i < n; i++)
		CHECK_STR(d->choices[i], models[i]->name);
	CHECK_EQ(i, n);
	CHECK(d && d->choices && !d->choices[i]);
	d = param_find(layout_config_table.keys, "layout_pack");
	const struct layout_rule *const *rules = layout_rule_list(&n);
	CHECK(d && d->choices);
	for (i = 0; d && d->choices && d->choices[i] && i < n; i++)
		CHECK_STR(d->choices[i], rules[i]->name);
	CHECK_EQ(i, n);
	CHECK(d && d->choices && !d->choices[i]);
}

/* Each bad value gets one line naming the key (and the value); nothing
 * runs. */
static void test_errors(void)
{
	static const struct {
		const char *keys[4];
		int code;
		const char *needle;
	} cases[] = {
		{{"cable_latency=2"}, NL_ECONFIG, "'cable_latency'"},
		{{"propagation_ns_per_m=0"}, NL_ECONFIG, "'propagation_ns_per_m'"},
		{{"propagation_ns_per_m=fast"}, NL_ECONFIG, "'propagation_ns_per_m'"},
		{{"layout_placement=sa"}, NL_ECONFIG, "auto, rule, anneal"},
		{{"layout_trials=0"}, NL_ECONFIG, "'layout_trials'"},
		{{"layout_threads=1025"}, NL_ECONFIG, "key 'layout_threads': value '1025': out of range: expected a value in 0..1024"},
		{{"layout_threads=-1"}, NL_ECONFIG, "key 'layout_threads': value '-1': out of range"},
		{{"layout_iterations=-1"}, NL_ECONFIG, "'layout_iterations'"},
		{{"layout_per_cabinet=-3"}, NL_ECONFIG, "'layout_per_cabinet'"},
		/* Names too, when read (they were checked only when a session
		 * laid a topology out, so 'netloom config' took them). */
		{{"layout_preset=nope"}, NL_ECONFIG,
		 "key 'layout_preset': value 'nope': expected one of flex, besta, equality, fujiwara"},
		{{"layout_pack=zz"}, NL_ECONFIG,
		 "key 'layout_pack': value 'zz': expected one of base-cabinets, flex-fig7,"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct nl_err err = {0};
		nl_sim *s;
		CHECK_OK(nl_sim_new(&s, &err), &err);
		CHECK_ERR(nl_sim_set(s, cases[i].keys[0], NULL, &err), cases[i].code, &err, cases[i].needle);
		CHECK(strchr(err.msg, '\n') == NULL);
		nl_sim_free(s);
	}

	/* Values that are well-formed but do not fit the rest: at the send. */
	static const struct {
		const char *keys[5];
		int code;
		const char *needle;
	} late[] = {
		{{"cable_latency=1", NULL}, NL_ECONFIG, "key 'cable_latency': value '1': needs a topology"},
		{{"cable_latency=1", "topology=torus:k=4x4", "layout_pack=flex-fig7", NULL}, NL_ECONFIG,
		 "key 'layout_pack': value 'flex-fig7': the rule does not apply"},
		{{"cable_latency=1", "topology=torus:k=4x4", "link_model=bus", NULL}, NL_ECONFIG,
		 "key 'link_model': value 'bus'"},
		{{"cable_latency=1", "topology=torus:k=4x4", "ideal=yes", NULL}, NL_ECONFIG, "key 'ideal': value 'yes'"},
	};
	for (size_t i = 0; i < sizeof late / sizeof *late; i++) {
		struct nl_err err = {0};
		nl_sim *s;
		CHECK_OK(nl_sim_new(&s, &err), &err);
		for (size_t k = 0; late[i].keys[k]; k++)
			CHECK_OK(nl_sim_set(s, late[i].keys[k], NULL, &err), &err);
		CHECK_ERR(nl_sim_send(s, 0, 0, 1, 64, 0, &err), late[i].code, &err, late[i].needle);
		CHECK(strchr(err.msg, '\n') == NULL);
		/* The same through replay. */
		struct nl_replay r = {.size = sizeof r};
		CHECK_ERR(nl_sim_replay(s, TEST_SRC("traces/samples/pingpong-2.nlt"), &r, &err), late[i].code, &err,
			  late[i].needle);
		char *out = NULL;
		CHECK_ERR(nl_sim_json(s, 0, &out, NULL, &err), NL_ESTATE, &err, "no results");
		nl_sim_free(s);
	}

	/* Synthetic runs are the flit model's: refused. */
	struct nl_err err = {0};
	nl_sim *s;
	CHECK_OK(nl_sim_new(&s, &err), &err);
	CHECK_OK(nl_sim_set(s, "cable_latency", "1", &err), &err);
	CHECK_ERR(nl_sim_run(s, NULL, &err), NL_EUNSUPPORTED, &err, "key 'cable_latency': value '1': synthetic runs");
	CHECK_ERR(nl_sim_sweep(s, 0.1, 0.2, 0.1, 0, NULL, NULL, NULL, &err), NL_EUNSUPPORTED, &err,
		  "key 'cable_latency'");
	nl_sim_free(s);
}

int main(void)
{
	TEST_RUN(test_torus_folded);
	TEST_RUN(test_dragonfly_annealed);
	TEST_RUN(test_flit_cables);
	TEST_RUN(test_replay);
	TEST_RUN(test_errors);
	TEST_RUN(test_names_conform);
	return test_done();
}
