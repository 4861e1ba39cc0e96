/* Unit tests: topology registry conformance and the grid families. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "topo/topo.h"
#include "test.h"
#include "two_triangles.h"

/* Registry conformance: each family's example spec builds a connected graph
 * with paired ports, and its closed-form distance agrees with BFS. Every
 * family added to the registry must add its example here. */
static const char *const conformance_specs[] = {
	"torus:k=4x3x2",
	"torus:k=5,n=2,p=2",
	"mesh:k=4x3",
	"mesh:k=3x3x3,p=2",
	"full:n=16,p=4",
	"full:n=5,p=1,k=2",
	"fly:k=10,n=1",
	"cmesh:k=4,n=2,c=4",
	"cmesh:k=3,c=9",
	"graph:file=" TEST_SRC("tests/data/topo/petersen.edges") ",p=2",
	"anynet:file=" TEST_SRC("tests/data/topo/ring6.anynet"),
	"hyperx:s=3x4x2,k=1x2x1,t=2",
	"hypercube:n=5,p=2",
	"foldedhypercube:n=5",
	"flatfly:m=3,n=3",
	"flex:nx=3,ny=4,nz=3,p=2",
	"flex:nx=3,ny=2,nz=2",
	"dragonfly:a=4,p=2,h=2",
	"dragonfly:a=4,p=1,h=3,g=6",
	"fattree:k=3,n=3",
	"clos:l=3,r=8",
	"clos:l=3,r=12,n=100,taper=2x1",
	"myriclos:n=256",
	"slimfly:q=5,p=2",
	"slimfly:q=8,p=1",
	"equality:n=14,sa=-1/1/3/9,sb=4,p=3",
	"equality:n=20,sa=-1/1/7,sb=4/10,p=1",
	"ndt:k=4x3x2x2x3",
	"ndt:k=3x4x3",
	"dln:n=40,d=5,seed=3",
	"p1(myriclos:n=64):trials=2",
	"p2(torus:k=6x6):trials=2",
	"p3(hypercube:n=5):trials=2,cab=4",
};

/* topo_hop_table and topo_diameter against one topo_bfs per router:
 * every pair, saturated at 255 (the min table) and at 3 (to see sat
 * replace longer hops). */
static void check_hop_table(const char *spec, const struct topo *t)
{
	uint32_t n = t->n_routers, diameter = 0, got = 0, got_sat = 0, got_diam = 0;
	uint8_t *table = malloc((size_t)n * n), *table3 = malloc((size_t)n * n);
	uint32_t *dist = malloc(n * sizeof *dist), *q = malloc(n * sizeof *q);
	struct nl_err e = {0};
	CHECK_EQ(topo_hop_table(t, table, 255, &got), 0);
	CHECK_EQ(topo_hop_table(t, table3, 3, &got_sat), 0);
	CHECK_OK(topo_diameter(t, &got_diam, &e), &e);
	for (uint32_t a = 0, bad = 0; a < n; a++) {
		topo_bfs(t, a, dist, q);
		for (uint32_t b = 0; b < n; b++) {
			if (dist[b] > diameter)
				diameter = dist[b];
			uint32_t want = dist[b] < 255 ? dist[b] : 255, want3 = dist[b] < 3 ? dist[b] : 3;
			if ((table[(size_t)a * n + b] != want || table3[(size_t)a * n + b] != want3) && bad++ < 3)
				TEST_FAIL_("%s: hop table %u -> %u: %u (sat 3: %u), BFS %u", spec, a, b,
					   table[(size_t)a * n + b], table3[(size_t)a * n + b], dist[b]);
		}
	}
	if (got != diameter || got_sat != diameter || got_diam != diameter)
		TEST_FAIL_("%s: diameter: hop table %u (sat 3: %u), topo_diameter %u, BFS %u", spec, got, got_sat,
			   got_diam, diameter);
	free(table);
	free(table3);
	free(dist);
	free(q);
}

static void test_registry_conformance(void)
{
	size_t n;
	const struct topo_ops *const *all = topo_list(&n);
	for (size_t i = 0; i < n; i++) {
		int covered = 0;
		for (size_t s = 0; s < sizeof conformance_specs / sizeof *conformance_specs; s++)
			if (!strncmp(conformance_specs[s], all[i]->name, strlen(all[i]->name)) &&
			    strchr(":(", conformance_specs[s][strlen(all[i]->name)]))
				covered = 1;
		if (!covered)
			TEST_FAIL_("family '%s' has no conformance spec", all[i]->name);
		CHECK(all[i]->build != NULL && all[i]->help != NULL);
	}
	for (size_t s = 0; s < sizeof conformance_specs / sizeof *conformance_specs; s++) {
		struct topo *t;
		struct nl_err e = {0};
		CHECK_OK(topo_new(conformance_specs[s], &t, &e), &e);
		if (!t)
			continue;
		CHECK_OK(topo_check(t, &e), &e);
		uint32_t *dist = malloc(t->n_routers * sizeof *dist);
		uint32_t *q = malloc(t->n_routers * sizeof *q);
		for (uint32_t a = 0; a < t->n_routers; a++) {
			topo_bfs(t, a, dist, q);
			for (uint32_t b = 0; b < t->n_routers; b++)
				if (topo_distance(t, a, b) != dist[b])
					TEST_FAIL_("%s: distance(%u,%u) = %u, BFS %u", conformance_specs[s], a, b,
						   topo_distance(t, a, b), dist[b]);
		}
		free(dist);
		free(q);
		check_hop_table(conformance_specs[s], t);
		topo_free(t);
	}
}

/* Disconnected: topo_diameter and topo_hop_table say UINT32_MAX, the
 * unreachable pairs read sat, and a search misses routers. */
static void test_bfs64_disconnected(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	uint8_t table[36];
	uint32_t diameter = 0;
	CHECK_OK(two_triangles_new(&t, &e), &e);
	CHECK_OK(topo_diameter(t, &diameter, &e), &e);
	CHECK_UINT(diameter, ==, UINT32_MAX);
	diameter = 0;
	CHECK_EQ(topo_hop_table(t, table, 200, &diameter), 0);
	CHECK_UINT(diameter, ==, UINT32_MAX);
	for (uint32_t a = 0; a < 6; a++)
		for (uint32_t b = 0; b < 6; b++)
			if (table[a * 6 + b] != (a == b ? 0 : a / 3 == b / 3 ? 1 : 200))
				TEST_FAIL_("hop %u -> %u: %u", a, b, table[a * 6 + b]);
	struct topo_bfs64 w;
	const uint32_t src[2] = {0, 1};
	CHECK_EQ(topo_bfs64_init_topo(&w, t), 0);
	CHECK_EQ(topo_bfs64_run(&w, src, 2, NULL), 0);
	CHECK(!w.all_reached);
	CHECK_UINT(w.max_level, ==, 1);
	topo_bfs64_release(&w);
	topo_free(t);
}

/* Each (source, router) pair comes once, at its BFS level, with repeated
 * sources in one batch; the words counted do not depend on the run. */
struct bfs64_seen {
	uint32_t n;
	uint32_t *dist; /* [64 * n] */
};

static int bfs64_record(void *ctx, uint32_t level, const uint32_t *reached, uint32_t n_reached,
			const uint64_t *fresh)
{
	struct bfs64_seen *s = ctx;
	for (uint32_t i = 0; i < n_reached; i++)
		for (uint64_t bits = fresh[reached[i]]; bits; bits &= bits - 1) {
			uint32_t *d = &s->dist[(size_t)__builtin_ctzll(bits) * s->n + reached[i]];
			if (*d != UINT32_MAX)
				TEST_FAIL_("source %d: router %u reported twice", __builtin_ctzll(bits), reached[i]);
			*d = level;
		}
	return 0;
}

static void test_bfs64_levels(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("dln:n=300,d=4,seed=5", &t, &e), &e);
	if (!t)
		return;
	uint32_t n = t->n_routers, src[64];
	uint32_t *want = malloc(n * sizeof *want), *q = malloc(n * sizeof *q);
	struct bfs64_seen seen = {.n = n, .dist = malloc((size_t)64 * n * sizeof *seen.dist)};
	for (uint32_t b = 0; b < 64; b++)
		src[b] = (b * 37) % 50; /* 50 routers, most of them twice */
	struct topo_bfs64 w;
	CHECK_EQ(topo_bfs64_init_topo(&w, t), 0);
	w.on_level = bfs64_record;
	w.ctx = &seen;
	uint64_t work[2] = {0, 0};
	for (int run = 0; run < 2; run++) {
		for (size_t i = 0; i < (size_t)64 * n; i++)
			seen.dist[i] = UINT32_MAX;
		for (uint32_t b = 0; b < 64; b++)
			seen.dist[(size_t)b * n + src[b]] = 0;
		CHECK_EQ(topo_bfs64_run(&w, src, 64, &work[run]), 0);
		CHECK(w.all_reached);
	}
	CHECK_UINT(work[0], ==, work[1]);
	CHECK_UINT(work[0], >, 4 * (uint64_t)n);
	uint32_t ecc = 0;
	for (uint32_t b = 0; b < 64; b++) {
		topo_bfs(t, src[b], want, q);
		for (uint32_t v = 0; v < n; v++) {
			if (want[v] > ecc)
				ecc = want[v];
			if (seen.dist[(size_t)b * n + v] != want[v])
				TEST_FAIL_("source %u (router %u) -> %u: bfs64 %u, BFS %u", b, src[b], v,
					   seen.dist[(size_t)b * n + v], want[v]);
		}
	}
	CHECK_UINT(w.max_level, ==, ecc);
	topo_bfs64_release(&w);
	free(seen.dist);
	free(want);
	free(q);
	topo_free(t);
}

static void test_torus_structure(void)
{
	struct topo *t;
	struct nl_err e = {0};
	CHECK_OK(topo_new("torus:k=8x8x4", &t, &e), &e);
	CHECK_EQ(t->n_routers, 256);
	CHECK_EQ(t->n_endpoints, 256);
	CHECK_EQ(topo_max_radix(t), 7);
	CHECK_EQ(topo_count_links(t), 256 * 3);
	CHECK_STR(t->spec, "torus:k=8x8x4,p=1");
	/* Port 0 of router 7 (x = 7) wraps to router 0's port 1. */
	CHECK_EQ(t->peer[t->port_base[7] + 0], t->port_base[0] + 1);
	topo_free(t);
	/* BookSim's k=8,n=2. */
	CHECK_OK(topo_new("torus:k=8,n=2", &t, &e), &e);
	CHECK_EQ(t->n_routers, 64);
	CHECK_EQ(t->grid->n_dims, 2);
	/* One canonical text for both forms, n left out (it read
	 * "torus:k=8,n=2,p=1" here and "torus:k=8x8,n=0,p=1" for k=8x8). */
	CHECK_STR(t->spec, "torus:k=8x8,p=1");
	topo_free(t);
	CHECK_OK(topo_new("mesh:k=3,n=3,p=2", &t, &e), &e);
	CHECK_STR(t->spec, "mesh:k=3x3x3,p=2");
	topo_free(t);
	/* The nD twin torus too: it read "ndt:k=4x4x2x2x2,n=0" and
	 * "ndt:k=3,n=3" for k=3x3x3. Each parses back to itself. */
	static const char *const ndt[][2] = {
		{"ndt:k=4x4x2x2x2", "ndt:k=4x4x2x2x2"}, {"ndt:k=3,n=3", "ndt:k=3x3x3"}, {"ndt:k=3x3x3", "ndt:k=3x3x3"}};
	for (size_t i = 0; i < sizeof ndt / sizeof *ndt; i++) {
		CHECK_OK(topo_new(ndt[i][0], &t, &e), &e);
		CHECK_STR(t->spec, ndt[i][1]);
		struct topo *back;
		CHECK_OK(topo_new(t->spec, &back, &e), &e);
		CHECK_STR(back->spec, ndt[i][1]);
		topo_free(back);
		topo_free(t);
	}
}

static void test_mesh_structure(void)
{
	struct topo *t;
	struct nl_err e = {0};
	CHECK_OK(topo_new("mesh:k=4x4", &t, &e), &e);
	CHECK_EQ(topo_count_links(t), 2 * 4 * 3);
	CHECK_EQ(topo_distance(t, 0, 15), 6);
	topo_free(t);
}

/* Torus diameter = sum floor(k_d / 2); average distance over all pairs of
 * a ring of k is (k^2/4)/k for even k and (k^2-1)/(4k) for odd k, and the
 * torus's is the sum over dimensions (Dally & Towles §5.2). */
static void test_torus_closed_forms(void)
{
	struct topo *t;
	struct nl_err e = {0};
	CHECK_OK(topo_new("torus:k=8x5x4", &t, &e), &e);
	uint64_t sum = 0;
	uint32_t diam = 0;
	for (uint32_t a = 0; a < t->n_routers; a++)
		for (uint32_t b = 0; b < t->n_routers; b++) {
			uint32_t d = topo_distance(t, a, b);
			sum += d;
			if (d > diam)
				diam = d;
		}
	CHECK_EQ(diam, 4 + 2 + 2);
	double avg = (double)sum / ((double)t->n_routers * t->n_routers);
	CHECK_NEAR(avg, 64.0 / 4 / 8 + 24.0 / 20 + 16.0 / 4 / 4, 1e-12);
	topo_free(t);
}

/* BookSim2's cmesh numbering (networks/cmesh.cpp): node id over a
 * (k s) x (k s) endpoint grid, router (x, y) holding the s x s block at
 * columns s x .., rows s y ..; its NodeToRouter / NodeToPort for k = 4,
 * c = 4: node 9 = (row 1, column 1) is router 0 port 3, node 10 = (row 1,
 * column 2) router 1 port 2, node 63 router 15 port 3. */
static void test_cmesh_structure(void)
{
	struct topo *t;
	struct nl_err e = {0};
	CHECK_OK(topo_new("cmesh:k=4,n=2,c=4", &t, &e), &e);
	if (!t)
		return;
	CHECK_EQ(t->n_routers, 16);
	CHECK_EQ(t->n_endpoints, 64);
	CHECK_EQ(topo_count_links(t), 2 * 4 * 3);
	CHECK_EQ(topo_max_radix(t), 8);
	static const uint32_t ep[][3] = {{0, 0, 0}, {1, 0, 1}, {8, 0, 2}, {9, 0, 3}, {10, 1, 2},
					 {2, 1, 0}, {16, 4, 0}, {63, 15, 3}, {45, 10, 3}, {54, 15, 0}};
	for (size_t i = 0; i < sizeof ep / sizeof *ep; i++) {
		CHECK_EQ(topo_ep_router(t, ep[i][0]), ep[i][1]);
		CHECK_EQ(topo_ep_local_port(t, ep[i][0]), 4 + ep[i][2]);
	}
	/* Every terminal port holds exactly one endpoint. */
	uint32_t n_term = 0;
	for (uint32_t g = 0; g < t->n_ports; g++)
		n_term += topo_port_is_terminal(t, g);
	CHECK_EQ(n_term, 64);
	CHECK_EQ(topo_distance(t, 0, 15), 6);
	topo_free(t);
	/* s = 3: node 3 * 3 * 4 + 4 = (row 4, column 4) is router (1, 1). */
	CHECK_OK(topo_new("cmesh:k=3,c=9", &t, &e), &e);
	if (t) {
		CHECK_EQ(topo_ep_router(t, 40), 4);
		CHECK_EQ(topo_ep_local_port(t, 40), 4 + 3 + 1);
	}
	topo_free(t);
	t = NULL;
	CHECK_ERR(topo_new("cmesh:k=4,c=6", &t, &e), NL_ECONFIG, &e, "parameter 'c' value '6': expected a square");
	CHECK_ERR(topo_new("cmesh:k=4,n=3,c=4", &t, &e), NL_EUNSUPPORTED, &e,
		  "parameter 'n' value '3': expected 2");
	CHECK(t == NULL);
}

/* The k-ary 1-fly: one k x k crossbar, endpoint e on port e; n > 1 is
 * refused with its reason. */
static void test_fly_structure(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("fly:k=10", &t, &e), &e);
	if (t) {
		CHECK_EQ(t->n_routers, 1);
		CHECK_EQ(t->n_endpoints, 10);
		CHECK_EQ(topo_count_links(t), 0);
		for (uint32_t i = 0; i < 10; i++)
			CHECK_EQ(topo_ep_local_port(t, i), i);
		CHECK_STR(t->spec, "fly:k=10,n=1");
	}
	topo_free(t);
	t = NULL;
	CHECK_ERR(topo_new("fly:k=4,n=2", &t, &e), NL_EUNSUPPORTED, &e,
		  "parameter 'n' value '2': expected 1 (a k-ary n-fly with n > 1 injects at stage 0");
	CHECK(t == NULL);
}

static void test_topo_errors(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	/* A typo of one family names it; another word gets the list alone. */
	CHECK_ERR(topo_new("tarus:k=4", &t, &e), NL_ENOTFOUND, &e,
		  "unknown topology 'tarus' (did you mean 'torus'? valid: torus, mesh,");
	CHECK_ERR(topo_new("tors:k=4", &t, &e), NL_ENOTFOUND, &e, "unknown topology 'tors' (did you mean 'torus'? valid: ");
	CHECK_ERR(topo_new("dragonfy", &t, &e), NL_ENOTFOUND, &e,
		  "unknown topology 'dragonfy' (did you mean 'dragonfly'? valid: torus, mesh,");
	CHECK_ERR(topo_new("Mesh:k=4", &t, &e), NL_ENOTFOUND, &e, "unknown topology 'Mesh' (did you mean 'mesh'? valid: ");
	CHECK_ERR(topo_new("hypertorus:k=4", &t, &e), NL_ENOTFOUND, &e, "unknown topology 'hypertorus' (valid: torus, mesh,");
	/* 'p4' is one edit from p1, p2 and p3 alike: no one best. */
	CHECK_ERR(topo_new("p4", &t, &e), NL_ENOTFOUND, &e, "unknown topology 'p4' (valid: torus, mesh,");
	/* The ':' mistyped as ',' or a blank: the spec meant, not the list. */
	CHECK_ERR(topo_new("torus,k=4", &t, &e), NL_ENOTFOUND, &e,
		  "unknown topology 'torus,k=4': expected 'torus:k=4' (parameters follow the name after a ':')");
	CHECK_ERR(topo_new("torus k=4x4,p=2", &t, &e), NL_ENOTFOUND, &e, "expected 'torus:k=4x4,p=2'");
	CHECK_ERR(topo_new("p2(torus, k=4)", &t, &e), NL_ENOTFOUND, &e, "expected 'torus:k=4'");
	/* A blank before the name gets the blank's message, as one after it
	 * does, not "did you mean 'torus'?". */
	CHECK_ERR(topo_new("  torus:k=4", &t, &e), NL_ENOTFOUND, &e,
		  "unknown topology '  torus': expected 'torus' (nothing before the name)");
	CHECK_ERR(topo_new(" torus :k=4", &t, &e), NL_ENOTFOUND, &e,
		  "unknown topology ' torus ': expected 'torus' (nothing before the name, nothing after it but ':' and its parameters)");
	CHECK_ERR(topo_new(" torus,k=4", &t, &e), NL_ENOTFOUND, &e,
		  "unknown topology ' torus,k=4': expected 'torus:k=4' (nothing before the name; parameters follow it after a ':')");
	CHECK_ERR(topo_new(" tarus", &t, &e), NL_ENOTFOUND, &e, "unknown topology ' tarus' (did you mean 'torus'? valid: ");
	CHECK(t == NULL);
	CHECK_ERR(topo_new("torus:k=1x4", &t, &e), NL_ERANGE, &e, "parameter 'k' value '1x4' out of range");
	CHECK_ERR(topo_new("torus", &t, &e), NL_EINVAL, &e, "required parameter 'k' missing");
	CHECK_ERR(topo_new("torus:k=4x4,n=3", &t, &e), NL_EINVAL, &e,
		  "parameter 'n' is 3 but 'k' has 2 dimensions; expected n=2 or no 'n' (n= repeats one radix: k=4,n=3)");
	/* The hint is one ndt builds (it used to say k=8,n=2, which ndt refuses). */
	CHECK_ERR(topo_new("ndt:k=4x4x2x2x2,n=4", &t, &e), NL_EINVAL, &e,
		  "expected n=5 or no 'n' (n= repeats one radix: k=4,n=4)");
	CHECK_ERR(topo_new("mesh:k=4,q=2", &t, &e), NL_EINVAL, &e, "unknown parameter 'q'");
	/* Another family's name for the endpoints per router: 'p' on a
	 * HyperX said "valid: s, k, t, r" without saying t is them. */
	CHECK_ERR(topo_new("hyperx:s=4x4,p=2", &t, &e), NL_EINVAL, &e,
		  "topology 'hyperx': unknown parameter 'p' (the endpoints per router are 't' here; valid: s, k, t, r)");
	CHECK_ERR(topo_new("dragonfly:a=4,h=2,t=2", &t, &e), NL_EINVAL, &e,
		  "unknown parameter 't' (the endpoints per router are 'p' here; valid: a, p, h, g)");
	CHECK_ERR(topo_new("cmesh:k=4,p=4", &t, &e), NL_EINVAL, &e, "(the endpoints per router are 'c' here;");
	CHECK_ERR(topo_new("fattree:k=4,n=3,p=2", &t, &e), NL_EINVAL, &e, "unknown parameter 'p' (valid: k, n)");
	/* "empty name in spec ''" said neither of what nor what would do. */
	CHECK_ERR(topo_new("", &t, &e), NL_EINVAL, &e, "empty topology spec; expected NAME:key=value,...");
	CHECK_ERR(topo_new(":k=4", &t, &e), NL_EINVAL, &e, "topology spec ':k=4' has no name; expected NAME:k=4");
	CHECK_ERR(topo_new("p2()", &t, &e), NL_EINVAL, &e, "topology 'p2': base topology: empty topology spec;");
}

/* "@file": a spec of any length read from a file, wrapped over lines. */
static void test_topo_spec_file(void)
{
	struct topo *t = NULL, *u = NULL;
	struct nl_err e = {0};
	const char *path = test_write_tmp("# Equality, seed 002 §3.2 notation\n  N14K6P3[-1,1,\n3,9]\n\n(4)  \n");
	char at[80];
	snprintf(at, sizeof at, "@%s", path);
	CHECK_OK(topo_new(at, &t, &e), &e);
	CHECK_OK(topo_new("N14K6P3[-1,1,3,9](4)", &u, &e), &e);
	if (t && u) {
		CHECK_STR(t->spec, u->spec);
		CHECK_EQ(t->n_endpoints, 42);
	}
	topo_free(t);
	topo_free(u);
	unlink(path);
	path = test_write_tmp("# nothing\n\n");
	snprintf(at, sizeof at, "@%s", path);
	CHECK_ERR(topo_new(at, &t, &e), NL_EINVAL, &e, "spec file holds no spec");
	unlink(path);
	CHECK_ERR(topo_new("@/nonexistent/x.topo", &t, &e), NL_EIO, &e,
		  "topology '@/nonexistent/x.topo': cannot open spec file");
	/* A folder opens but cannot be read: the reason is given (it said
	 * 'cannot read spec file' and no more), and '@' alone names no file. */
	CHECK_ERR(topo_new("@/", &t, &e), NL_EIO, &e, "topology '@/': cannot read spec file: Is a directory");
	CHECK_ERR(topo_new("@", &t, &e), NL_EINVAL, &e, "topology '@': expected a spec file name after '@'");
	/* '-' is no key's input (graph's file=- says so): '@-' was a missing
	 * file, "cannot open spec file: No such file or directory". */
	if (access("-", F_OK) != 0)
		CHECK_ERR(topo_new("@-", &t, &e), NL_EIO, &e,
			  "topology '@-': standard input is not read here; expected a spec file's path");
	/* A ',' ends a nested spec given as base=: its next parameter was
	 * named unknown with no word on why. */
	CHECK_ERR(topo_new("p1:base=fattree:k=2,n=2", &t, &e), NL_EINVAL, &e,
		  "topology 'p1': unknown parameter 'n' (valid: base, trials, cab, frac, seed; a ',' ends the value "
		  "of 'base': a nested spec holding ',' goes in parentheses, as in p2(torus:k=8x8,p=2))");
	CHECK(t == NULL);
}

/* topo_spec_files' calls, as "family:key=path in IN;" ('@' for an @FILE),
 * "path<given" when the spec wrote the name otherwise. */
struct spec_files_seen {
	char text[1024];
	int stop_after; /* return NL_ESTATE at this call (1-based); 0 never */
	int n;
};

static int spec_files_note(void *ctx, const struct topo_spec_file *f)
{
	struct spec_files_seen *s = ctx;
	size_t used = strlen(s->text);
	bool moved = strcmp(f->path, f->given) != 0;
	snprintf(s->text + used, sizeof s->text - used, "%s:%s=%s%s%s%s%s%s;", f->family ? f->family : "",
		 f->key ? f->key : "", f->is_spec_file ? "@" : "", f->path, moved ? "<" : "", moved ? f->given : "",
		 f->in ? " in " : "", f->in ? f->in : "");
	return ++s->n == s->stop_after ? NL_ESTATE : 0;
}

static const char *spec_files(const char *spec, int want_rc, struct spec_files_seen *s)
{
	struct nl_err e = {0};
	memset(s, 0, sizeof *s);
	int rc = topo_spec_files(spec, spec_files_note, s, &e);
	CHECK_EQ(rc, want_rc);
	if (rc != want_rc)
		fprintf(stderr, "  spec '%s': %s\n", spec, e.msg);
	return s->text;
}

/* A child that writes `text` into the FIFO at `path` once, then ends. */
static pid_t fifo_writer(const char *path, const char *text)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f = fopen(path, "w");
		_exit(f && fputs(text, f) >= 0 && fclose(f) == 0 ? 0 : 10);
	}
	return pid;
}

/* An @FILE that is a FIFO, its writer gone once it has written: its files
 * are found in its text (named but not read before: a FIFO's graph:file=
 * was not compared with the outputs) and topo_new builds that same text,
 * read once; the FIFO as a nested spec's base too. `stem` names the
 * FIFOs (kept until the end: a new one could take an old one's inode). */
static void test_topo_spec_fifo(const char *stem)
{
	struct spec_files_seen s;
	struct nl_err e = {0};
	char fifo[2][96], at[128], text[512];
	const char *graph = TEST_SRC("tests/data/topo/petersen.edges");
	const char *specs[2] = {"@%s", "p2(@%s):trials=1"};
	const char *wants[2] = {":=@%s;graph:file=%s in %s;", "p2:base=@%s;graph:file=%s in %s;"};

	for (int i = 0; i < 2; i++) {
		snprintf(fifo[i], sizeof fifo[i], "%s.fifo%d", stem, i);
		if (mkfifo(fifo[i], 0600) != 0) {
			fifo[i][0] = '\0';
			continue;
		}
		snprintf(text, sizeof text, "# a graph\ngraph:file=%s,p=2\n", graph);
		pid_t pid = fifo_writer(fifo[i], text);
		snprintf(at, sizeof at, specs[i], fifo[i]);
		snprintf(text, sizeof text, wants[i], fifo[i], graph, fifo[i]);
		CHECK_STR(spec_files(at, 0, &s), text);
		struct topo *t = NULL;
		CHECK_OK(topo_new(at, &t, &e), &e);
		CHECK(t && t->n_routers == 10 && t->n_endpoints == 20);
		topo_free(t);
		int status = -1;
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		CHECK_EQ(status, 0);
	}
	/* An empty FIFO: the same error twice, the second without waiting
	 * for a writer that will not come. */
	snprintf(text, sizeof text, "%s.fifo-empty", stem);
	if (mkfifo(text, 0600) == 0) {
		pid_t pid = fifo_writer(text, "");
		snprintf(at, sizeof at, "@%s", text);
		struct topo *t = NULL;
		CHECK_ERR(topo_spec_files(at, spec_files_note, &s, &e), NL_EINVAL, &e, "spec file holds no spec");
		CHECK_ERR(topo_new(at, &t, &e), NL_EINVAL, &e, "spec file holds no spec");
		CHECK(pid > 0 && waitpid(pid, NULL, 0) == pid);
		unlink(text);
	}
	for (int i = 0; i < 2; i++)
		if (fifo[i][0])
			unlink(fifo[i]);
}

/* A file name a spec file's text writes relative (a file=, a nested
 * @FILE) is read from the spec file's folder, not the working directory
 * (the tests run in the build folder; the files are in /tmp), kept
 * absolute in the spec it stands for; a refusal names it as written and
 * where it was looked for. */
static void test_topo_spec_file_names(void)
{
	char graph[64], spec[64], outer[64], at[80], text[160];
	struct nl_err e = {0};
	struct topo *t = NULL;

	snprintf(graph, sizeof graph, "%s", test_write_tmp("0 1\n1 2\n2 3\n3 4\n4 0\n"));
	snprintf(text, sizeof text, "# a ring\ngraph:file=%s,p=1\n", strrchr(graph, '/') + 1);
	snprintf(spec, sizeof spec, "%s", test_write_tmp(text));
	snprintf(text, sizeof text, "p2(@%s):trials=1\n", strrchr(spec, '/') + 1);
	snprintf(outer, sizeof outer, "%s", test_write_tmp(text));
	snprintf(at, sizeof at, "@%s", outer);
	CHECK_OK(topo_new(at, &t, &e), &e);
	CHECK(t && t->n_routers == 5);
	topo_free(t);
	char *expanded = NULL;
	snprintf(at, sizeof at, "@%s", spec);
	CHECK_OK(topo_spec_expand(at, &expanded, &e), &e);
	snprintf(text, sizeof text, "graph:file=%s,p=1", graph);
	CHECK_STR(expanded, text);
	free(expanded);
	unlink(graph);
	snprintf(text, sizeof text, "cannot open '%s' (resolved to %s, relative to the spec file %s): ",
		 strrchr(graph, '/') + 1, graph, spec);
	CHECK_ERR(topo_new(at, &t, &e), NL_EIO, &e, text);
	unlink(spec);
	snprintf(at, sizeof at, "@%s", outer);
	snprintf(text, sizeof text,
		 "topology '@%s' (resolved to %s, relative to the spec file %s): cannot open spec file",
		 strrchr(spec, '/') + 1, spec, outer);
	CHECK_ERR(topo_new(at, &t, &e), NL_EIO, &e, text);
	unlink(outer);
}

/* The files a spec reads, found through the families' tables: PARAM_PATH
 * parameters, nested specs, @FILEs; nothing opened but the @FILEs. */
static void test_topo_spec_files(void)
{
	struct spec_files_seen s;
	struct nl_err e = {0};
	char inner[64], outer[64], self[64], at[80], text[160];

	CHECK_STR(spec_files("graph:file=g.txt,p=2", 0, &s), "graph:file=g.txt;");
	CHECK_STR(spec_files("anynet:file=/data/ring6.anynet", 0, &s), "anynet:file=/data/ring6.anynet;");
	/* Nested: the base's own parameters, not the text up to the next ','
	 * ("g.txt):trials=2" before). */
	CHECK_STR(spec_files("p2(graph:file=g.txt):trials=2", 0, &s), "graph:file=g.txt;");
	CHECK_STR(spec_files("p3:base=anynet:file=a.net,cab=4", 0, &s), "anynet:file=a.net;");
	/* No file: a family without one, Equality's own notation. */
	CHECK_STR(spec_files("torus:k=4x4", 0, &s), "");
	CHECK_STR(spec_files("N14K6P3[-1,1,3,9](4)", 0, &s), "");
	CHECK_STR(spec_files("p2(torus:k=6x6)", 0, &s), "");

	/* An @FILE, and the files its text names; a nested @FILE. */
	snprintf(inner, sizeof inner, "%s", test_write_tmp("# the graph\ngraph:file=g.txt\n"));
	snprintf(text, sizeof text, "p2(@%s):trials=2\n", inner);
	snprintf(outer, sizeof outer, "%s", test_write_tmp(text));
	/* g.txt, written relative in inner's text, is read from inner's
	 * folder (/tmp, test_write_tmp's). */
	snprintf(at, sizeof at, "@%s", inner);
	snprintf(text, sizeof text, ":=@%s;graph:file=/tmp/g.txt<g.txt in %s;", inner, inner);
	CHECK_STR(spec_files(at, 0, &s), text);
	snprintf(at, sizeof at, "@%s", outer);
	snprintf(text, sizeof text, ":=@%s;p2:base=@%s in %s;graph:file=/tmp/g.txt<g.txt in %s;", outer, inner, outer,
		 inner);
	CHECK_STR(spec_files(at, 0, &s), text);
	snprintf(at, sizeof at, "p1(@%s)", inner);
	snprintf(text, sizeof text, "p1:base=@%s;graph:file=/tmp/g.txt<g.txt in %s;", inner, inner);
	CHECK_STR(spec_files(at, 0, &s), text);
	/* The callback stops the walk with its code. */
	memset(&s, 0, sizeof s);
	s.stop_after = 2;
	snprintf(at, sizeof at, "@%s", outer);
	CHECK_EQ(topo_spec_files(at, spec_files_note, &s, &e), NL_ESTATE);
	CHECK_EQ(s.n, 2);

	test_topo_spec_fifo(inner);

	/* A spec that does not parse: topo_new's error, after the files
	 * found before it. */
	CHECK_ERR(topo_spec_files("graph:file=g.txt,q=1", spec_files_note, &s, &e), NL_EINVAL, &e,
		  "topology 'graph': unknown parameter 'q'");
	CHECK_ERR(topo_spec_files("tarus:k=4", spec_files_note, &s, &e), NL_ENOTFOUND, &e,
		  "unknown topology 'tarus'");
	CHECK_ERR(topo_spec_files("p2(graph:p=2)", spec_files_note, &s, &e), NL_EINVAL, &e,
		  "required parameter 'file' missing");
	CHECK_STR(spec_files("@/nonexistent/x.topo", NL_EIO, &s), ":=@/nonexistent/x.topo;");
	/* A spec file naming itself ends (topo_new would recurse). */
	snprintf(self, sizeof self, "%s", test_write_tmp(""));
	FILE *f = fopen(self, "w");
	if (f) {
		fprintf(f, "p2(@%s)\n", self);
		fclose(f);
	}
	snprintf(at, sizeof at, "@%s", self);
	CHECK_ERR(topo_spec_files(at, spec_files_note, &s, &e), NL_EINVAL, &e, "specs nested more than 16 deep");
	/* topo_new itself ends too: it recursed until the stack ran out. */
	struct topo *t = NULL;
	CHECK_ERR(topo_new(at, &t, &e), NL_EINVAL, &e, "specs nested more than 16 deep");
	CHECK(t == NULL);
	/* 17 wrappers, 230 bytes: the quoted spec is cut at 200 and says so,
	 * and one that fits is quoted whole. */
	char deep[400] = "", *w = deep, want[256];
	for (int i = 0; i < 17; i++)
		w += sprintf(w, "p2(");
	w += sprintf(w, "torus:k=4");
	for (int i = 0; i < 17; i++)
		w += sprintf(w, "):trials=2");
	CHECK_EQ((int)strlen(deep), 230);
	snprintf(want, sizeof want, "topology '%.200s...': specs nested more than 16 deep", deep);
	CHECK_ERR(topo_new(deep, &t, &e), NL_EINVAL, &e, want);
	CHECK_ERR(topo_spec_files(at, spec_files_note, &s, &e), NL_EINVAL, &e, "specs nested");
	CHECK(strstr(e.msg, "...'") == NULL);
	unlink(self);
	unlink(outer);
	unlink(inner);
}

int main(void)
{
	TEST_RUN(test_registry_conformance);
	TEST_RUN(test_bfs64_disconnected);
	TEST_RUN(test_bfs64_levels);
	TEST_RUN(test_cmesh_structure);
	TEST_RUN(test_fly_structure);
	TEST_RUN(test_torus_structure);
	TEST_RUN(test_mesh_structure);
	TEST_RUN(test_torus_closed_forms);
	TEST_RUN(test_topo_errors);
	TEST_RUN(test_topo_spec_file);
	TEST_RUN(test_topo_spec_files);
	TEST_RUN(test_topo_spec_file_names);
	return test_done();
}
