/* Unit tests: BookSim2's anynet (emu/topo/anynet.c) and its routing table
 * (emu/route/min_anynet.c): the network_file parser (numbering, ports,
 * per-direction latencies, BookSim's last-mention rules, the errors), the
 * routes (Dijkstra by latency with BookSim's tie-breaks), and the VC
 * class rule that follows the channel dependency graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"

static struct topo *an_new(const char *text, char *path, size_t cap, struct nl_err *e)
{
	char spec[512];
	struct topo *t = NULL;
	snprintf(path, cap, "%s", test_write_tmp(text));
	snprintf(spec, sizeof spec, "anynet:file=%s", path);
	if (topo_new(spec, &t, e) < 0)
		t = NULL;
	return t;
}

/* Router at the far end of local port p of r; TOPO_NONE for a terminal port. */
static uint32_t an_far(const struct topo *t, uint32_t r, uint32_t p)
{
	uint32_t g = t->port_base[r] + p;
	return topo_port_is_network(t, g) ? t->port_router[t->peer[g]] : TOPO_NONE;
}

static uint16_t an_lat(const struct topo *t, uint32_t r, uint32_t p)
{
	uint16_t *lat = calloc(t->n_ports, sizeof *lat);
	struct nl_err e = {0};
	CHECK_OK(t->ops->link_latency(t, lat, &e), &e);
	uint16_t v = lat[t->port_base[r] + p];
	free(lat);
	return v;
}

static void test_parse_ports_latencies(void)
{
	char path[64];
	struct nl_err e = {0};
	/* Router 1 mentioned first by router 2's line; node 3 on router 0 via
	 * a node line (its id 3 also names router 3, which line 4 links);
	 * 0 -> 1 given twice (the last wins); 1 -> 0 given, 2 -> 0 implied.
	 * A latency after a node sets the channel to the router of that id
	 * (BookSim's code): "node 1 7" then "router 1 4" leaves 2 -> 1 at 4;
	 * "router 2 node 2 6" leaves 0 -> 2 at 6. */
	struct topo *t = an_new("router 2 node 1 7 router 1 4\n"
				"router 0 router 2 node 2 6 node 0 router 1 9 # comment\n"
				"node 3 router 0\n"
				"router 3 node 4 router 1 6\n"
				"router 1 router 0 3 node 5\n"
				"router 0 router 1 5\n",
				path, sizeof path, &e);
	CHECK(t != NULL);
	if (!t) {
		fprintf(stderr, "  %s\n", e.msg);
		unlink(path);
		return;
	}
	CHECK_UINT(t->n_routers, ==, 4);
	CHECK_UINT(t->n_endpoints, ==, 6);
	/* Router 0: nodes 0, 2, 3 (increasing id), then routers 1, 2. */
	CHECK_UINT(topo_router_ports(t, 0), ==, 5);
	CHECK_UINT(topo_ep_router(t, 0), ==, 0);
	CHECK_UINT(topo_ep_local_port(t, 0), ==, 0);
	CHECK_UINT(topo_ep_local_port(t, 2), ==, 1);
	CHECK_UINT(topo_ep_local_port(t, 3), ==, 2);
	CHECK_UINT(an_far(t, 0, 3), ==, 1);
	CHECK_UINT(an_far(t, 0, 4), ==, 2);
	/* Router 1: node 5, then routers 0, 2, 3. */
	CHECK_UINT(topo_ep_router(t, 5), ==, 1);
	CHECK_UINT(an_far(t, 1, 1), ==, 0);
	CHECK_UINT(an_far(t, 1, 2), ==, 2);
	CHECK_UINT(an_far(t, 1, 3), ==, 3);
	/* Latencies: 0 -> 1 the last mention (5), 1 -> 0 given (3), 0 -> 2
	 * by "node 2 6" (6), 2 -> 0 implied (1), 2 -> 1 4, 1 -> 2 implied 1,
	 * 3 -> 1 6, 1 -> 3 implied 1; node channels 1. */
	CHECK_UINT(an_lat(t, 0, 3), ==, 5);
	CHECK_UINT(an_lat(t, 1, 1), ==, 3);
	CHECK_UINT(an_lat(t, 0, 4), ==, 6);
	CHECK_UINT(an_lat(t, 2, 1), ==, 1);
	CHECK_UINT(an_lat(t, 2, 2), ==, 4);
	CHECK_UINT(an_lat(t, 1, 2), ==, 1);
	CHECK_UINT(an_lat(t, 3, 1), ==, 6);
	CHECK_UINT(an_lat(t, 1, 3), ==, 1);
	CHECK_UINT(topo_ep_router(t, 1), ==, 2);
	CHECK_UINT(an_lat(t, 2, 0), ==, 1);
	CHECK_UINT(an_lat(t, 0, 0), ==, 1);
	struct nl_err e2 = {0};
	CHECK_OK(topo_check(t, &e2), &e2);
	topo_free(t);
	unlink(path);
}

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *needle;
	} bad[] = {
		{"router 0 node 0 router 1\nrouter 1 node 1 switch 2\n", ":2: unknown word 'switch'"},
		{"router 0 node 0 router 1\nrouter 1 node 0\n", ":2: node 0 attached to router 1, but line 1 attached it to router 0"},
		{"router 0 node 0 router 1\nrouter 1 node 1\nrouter 2 node 2\n", ":3: router 2 cannot be reached from router 0"},
		{"router 0 node 0 router 1 0\nrouter 1 node 1\n", ":1: latency '0'; expected 1..65535"},
		{"router 0 node 0 router 1 70000\n", ":1: latency '70000'; expected 1..65535"},
		{"router 0 node 0 router 1 2 3\n", ":1: second latency '3'"},
		{"router 0 5 node 0\n", ":1: latency '5' before any link"},
		{"router x node 0\n", ":1: router id 'x'; expected an integer"},
		{"router 0 node\n", ":1: 'node' without an id"},
		{"node 0 node 1\n", ":1: node 0 linked to node 1"},
		{"router 0 node 0 router 0\n", ":1: router 0 linked to itself"},
		{"node 0 router 1 5\nrouter 1 router 0\n", ":1: latency '5' after 'node 0 router 1'"},
		{"router 0 node 0 node 2 router 1\nrouter 1\n", "node 1 is missing; expected node ids 0..2"},
		{"router 0 node 0 router 2\n", "router 1 is missing; expected router ids 0..2"},
		{"router 0 router 1\n", "no nodes"},
		/* Refused before arrays of 2^24 ids are filled. */
		{"router 16777215 node 0\n", ":1: router id 16777215, but the file's 23 bytes can name at most 12 ids"},
		{"router 0 node 9999\n", ":1: node id 9999, but the file's 19 bytes can name at most 10 ids"},
		{"router 0 node 0 node 1 4 router 2\nrouter 1 router 2 node 2\n",
		 ":1: latency 4 after 'node 1' on router 0's line: BookSim gives it to the channel router 0 -> router 1"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char path[64];
		struct nl_err e = {0};
		struct topo *t = an_new(bad[i].text, path, sizeof path, &e);
		CHECK(t == NULL);
		topo_free(t);
		if (!strstr(e.msg, bad[i].needle) || !strstr(e.msg, path))
			TEST_FAIL_("case %zu: message \"%s\" lacks \"%s\" or the path", i, e.msg, bad[i].needle);
		unlink(path);
	}
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_ERR(topo_new("anynet:file=/nonexistent/net", &t, &e), NL_EIO, &e, "cannot open '/nonexistent/net'");
	CHECK_ERR(topo_new("anynet:file=-", &t, &e), NL_EIO, &e,
		  "parameter 'file': '-': standard input is not read here; expected a BookSim anynet network_file's path");
}

/* Next router of the table route from r toward router d. */
static uint32_t an_next(const struct topo *t, const struct route *r, uint32_t at, uint32_t d)
{
	struct route_pkt p = {0};
	struct route_cand c[ROUTE_MAX_CANDS];
	p.src_ep = topo_router_ep(t, at);
	p.dst_ep = topo_router_ep(t, d);
	p.dst_router = d;
	int n = r->ops->compute(r, at, 0, 0, &p, NULL, NULL, c);
	CHECK_INT(n, ==, 1);
	return an_far(t, at, c[0].port);
}

static void test_routes_tie_breaks(void)
{
	char path[64];
	struct nl_err e = {0};
	/* 0 -> 3 costs 3 both ways: via 1 (2 + 1) and via 2 (1 + 2). BookSim
	 * settles 2 first (distance 1), which reaches 3 first; 1 (distance 2)
	 * only ties and keeps it: the route goes via 2, not the lower id 1.
	 * 3 -> 0: via 1 costs 1 + 1 (the implied reverses), via 2 1 + 1: both
	 * settle at distance 1 and 1 wins on id. 1 -> 2: via 0 (1 + 1) or 3
	 * (1 + 1, implied 1 -> 3 and 3 -> 2): 0 settles first (lower id). */
	struct topo *t = an_new("router 0 node 0 router 1 2 router 2 1\n"
				"router 1 node 1 router 3 1\n"
				"router 2 node 2 router 3 2\n"
				"router 3 node 3\n",
				path, sizeof path, &e);
	CHECK(t != NULL);
	if (!t) {
		unlink(path);
		return;
	}
	struct route *r = NULL;
	CHECK_OK(route_new("min_anynet", t, 1, &r, &e), &e);
	if (r) {
		CHECK_UINT(an_next(t, r, 0, 3), ==, 2);
		CHECK_UINT(an_next(t, r, 3, 0), ==, 1);
		CHECK_UINT(an_next(t, r, 1, 2), ==, 0);
		CHECK_UINT(an_next(t, r, 2, 1), ==, 0);
		CHECK_UINT(an_next(t, r, 0, 1), ==, 1);
		/* At the destination router: its endpoint's terminal port. */
		struct route_pkt p = {.src_ep = 0, .dst_ep = 3, .dst_router = 3};
		struct route_cand c[ROUTE_MAX_CANDS];
		CHECK_INT(r->ops->compute(r, 3, 0, 0, &p, NULL, NULL, c), ==, 1);
		CHECK_UINT(c[0].port, ==, topo_ep_local_port(t, 3));
	}
	route_free(r);
	topo_free(t);
	unlink(path);
}

/* A six-router ring of unit links: shortest paths of up to 3 hops chain
 * around it, so the table's dependencies are cyclic: classes=auto needs 3
 * VCs (one class per hop), classes=none runs BookSim's rule on one. A
 * three-router ring (BookSim's example) is acyclic: one VC, every hop. */
static void test_vc_classes(void)
{
	char path[64];
	struct nl_err e = {0};
	struct topo *t = an_new("router 0 node 0 router 1\nrouter 1 node 1 router 2\nrouter 2 node 2 router 3\n"
				"router 3 node 3 router 4\nrouter 4 node 4 router 5\nrouter 5 node 5 router 0\n",
				path, sizeof path, &e);
	CHECK(t != NULL);
	if (t) {
		struct route *r = NULL;
		CHECK_ERR(route_new("min_anynet", t, 2, &r, &e), NL_ECONFIG, &e,
			  "needs num_vcs >= 3 (one VC class per hop of its longest route), got 2: its routes' channel dependencies are cyclic");
		CHECK_OK(route_new("min_anynet", t, 3, &r, &e), &e);
		route_free(r);
		r = NULL;
		CHECK_OK(route_new("min_anynet:classes=none", t, 1, &r, &e), &e);
		route_free(r);
		topo_free(t);
	}
	unlink(path);
	t = an_new("router 0 node 0 node 1 node 2 router 1\nrouter 1 node 3 node 4 node 5\n"
		   "router 2 node 6 node 7 node 8 router 1 router 0\n",
		   path, sizeof path, &e);
	CHECK(t != NULL);
	if (t) {
		struct route *r = NULL;
		CHECK_OK(route_new("min_anynet", t, 1, &r, &e), &e);
		route_free(r);
		r = NULL;
		/* Only anynet has the per-link latencies it routes by. */
		struct topo *torus = NULL;
		CHECK_OK(topo_new("torus:k=4x4", &torus, &e), &e);
		CHECK_ERR(route_new("min_anynet", torus, 4, &r, &e), NL_EUNSUPPORTED, &e, "min_anynet");
		topo_free(torus);
		topo_free(t);
	}
	unlink(path);
}

int main(void)
{
	TEST_RUN(test_parse_ports_latencies);
	TEST_RUN(test_parse_errors);
	TEST_RUN(test_routes_tie_breaks);
	TEST_RUN(test_vc_classes);
	return test_done();
}
