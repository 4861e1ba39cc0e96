/* emu/place: placement policies map a job's ranks to free endpoints,
 * deterministically per seed; map files fail with file:line messages. */
#include "place/place.h"

#include <string.h>

#include "core/error.h"
#include "test.h"
#include "topo/topo.h"

static const struct place_ops *pol(const char *name)
{
	struct nl_err err = {0};
	const struct place_ops *p = place_find(name, &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	return p;
}

static struct place_req req_of(const struct topo *t, uint32_t n)
{
	return (struct place_req){.t = t, .n_ranks = n, .seed = 1};
}

/* Every policy on every request: endpoints valid, free, and distinct per
 * node (ranks_per_node 1). */
static void check_valid(const struct place_req *rq, const uint32_t *ep)
{
	uint8_t *used = calloc(rq->t->n_endpoints, 1);
	for (uint32_t i = 0; i < rq->n_ranks; i++) {
		CHECK(ep[i] < rq->t->n_endpoints);
		if (ep[i] >= rq->t->n_endpoints)
			continue;
		CHECK(!rq->busy || !rq->busy[ep[i]]);
		CHECK_EQ(used[ep[i]], 0);
		used[ep[i]] = 1;
	}
	free(used);
}

static void test_registry_and_validity(void)
{
	struct nl_err err = {0};
	struct topo *t = NULL;
	size_t n;
	const struct place_ops *const *all = place_list(&n);
	CHECK_EQ(n, 7);
	CHECK(place_find("nosuch", &err) == NULL);
	CHECK(strstr(err.msg, "unknown placement policy 'nosuch'") && strstr(err.msg, "round-robin"));
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &err), &err); /* 9 groups x 4 routers x 2 */
	uint8_t busy[72] = {0};
	for (uint32_t e = 0; e < 72; e += 3)
		busy[e] = 1; /* 24 busy, 48 free */
	for (size_t i = 0; i < n; i++) {
		if (all[i] == pol("map"))
			continue;
		struct place_req rq = req_of(t, 48);
		rq.busy = busy;
		uint32_t ep[48];
		CHECK_OK(place_job(all[i], &rq, ep, &err), &err);
		check_valid(&rq, ep);
		/* uses_seed tells the truth (compare places a job once when
		 * it is false): no other seed moves a rank, or some does. */
		bool moved = false;
		for (uint64_t seed = 2; seed <= 4; seed++) {
			uint32_t other[48];
			rq.seed = seed;
			CHECK_OK(place_job(all[i], &rq, other, &err), &err);
			moved |= memcmp(ep, other, sizeof ep) != 0;
		}
		CHECK_EQ(moved, all[i]->uses_seed);
		rq.seed = 1;
		rq.n_ranks = 49;
		uint32_t ep2[49];
		CHECK_ERR(place_job(all[i], &rq, ep2, &err), NL_ECONFIG, &err, "needs 49 endpoints");
	}
	topo_free(t);
}

static void test_contiguous_and_round_robin(void)
{
	struct nl_err err = {0};
	struct topo *t = NULL;
	CHECK_OK(topo_new("torus:k=4x4,p=2", &t, &err), &err); /* 16 routers x 2 */
	uint8_t busy[32] = {0};
	busy[1] = busy[2] = 1;
	struct place_req rq = req_of(t, 4);
	rq.busy = busy;
	uint32_t ep[20];
	CHECK_OK(place_job(pol("contiguous"), &rq, ep, &err), &err);
	CHECK_EQ(ep[0], 0);
	CHECK_EQ(ep[1], 3);
	CHECK_EQ(ep[2], 4);
	CHECK_EQ(ep[3], 5);
	/* Round-robin: first 16 nodes on 16 distinct routers, then second ports. */
	rq.busy = NULL;
	rq.n_ranks = 20;
	CHECK_OK(place_job(pol("round-robin"), &rq, ep, &err), &err);
	for (uint32_t i = 0; i < 16; i++)
		CHECK_EQ(topo_ep_router(t, ep[i]), i);
	CHECK_EQ(ep[16], 1);
	CHECK_EQ(ep[17], 3);
	/* Ranks per node: linear puts ranks 0,1 on node 0; round-robin rank i
	 * on node i mod 5. */
	rq.n_ranks = 10;
	rq.ranks_per_node = 2;
	CHECK_OK(place_job(pol("contiguous"), &rq, ep, &err), &err);
	CHECK_EQ(ep[0], 0);
	CHECK_EQ(ep[1], 0);
	CHECK_EQ(ep[2], 1);
	CHECK_EQ(ep[9], 4);
	rq.inner = PLACE_INNER_ROUND_ROBIN;
	CHECK_OK(place_job(pol("contiguous"), &rq, ep, &err), &err);
	CHECK_EQ(ep[0], 0);
	CHECK_EQ(ep[1], 1);
	CHECK_EQ(ep[5], 0);
	CHECK_EQ(ep[9], 4);
	topo_free(t);
}

static void test_random_policies(void)
{
	struct nl_err err = {0};
	struct topo *t = NULL;
	CHECK_OK(topo_new("torus:k=8x8,p=4", &t, &err), &err); /* 64 routers x 4 */
	struct place_req rq = req_of(t, 32);
	uint32_t a[32], b[32], c[32];
	CHECK_OK(place_job(pol("random-node"), &rq, a, &err), &err);
	CHECK_OK(place_job(pol("random-node"), &rq, b, &err), &err);
	CHECK(memcmp(a, b, sizeof a) == 0); /* same seed, same job: same nodes */
	rq.seed = 2;
	CHECK_OK(place_job(pol("random-node"), &rq, c, &err), &err);
	CHECK(memcmp(a, c, sizeof a) != 0);
	rq.seed = 1;
	rq.job = 1; /* another job, another stream */
	CHECK_OK(place_job(pol("random-node"), &rq, c, &err), &err);
	CHECK(memcmp(a, c, sizeof a) != 0);
	check_valid(&rq, a);
	/* Random-router: whole routers, 8 of them, in random order. */
	rq.job = 0;
	CHECK_OK(place_job(pol("random-router"), &rq, a, &err), &err);
	check_valid(&rq, a);
	for (uint32_t i = 0; i < 32; i++)
		CHECK_EQ(topo_ep_router(t, a[i]), topo_ep_router(t, a[i - i % 4]));
	bool in_order = true;
	for (uint32_t i = 4; i < 32; i += 4)
		in_order = in_order && topo_ep_router(t, a[i]) == topo_ep_router(t, a[i - 4]) + 1;
	CHECK(!in_order);
	topo_free(t);
}

static void test_groups(void)
{
	struct nl_err err = {0};
	struct topo *t = NULL;
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &err), &err); /* groups of 8 endpoints */
	uint8_t busy[72] = {0};
	for (uint32_t e = 0; e < 24; e++)
		busy[e] = e % 8 != 0; /* groups 0-2 keep one free endpoint each */
	busy[40] = 1;             /* group 5 has 7 free */
	struct place_req rq = req_of(t, 20);
	rq.busy = busy;
	uint32_t ep[20];
	/* Packed: full groups 3, 4, 6 (8 free each, lowest ids first), 4 of 7. */
	CHECK_OK(place_job(pol("packed"), &rq, ep, &err), &err);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ(ep[i] / 8, 3);
	for (uint32_t i = 8; i < 16; i++)
		CHECK_EQ(ep[i] / 8, 4);
	for (uint32_t i = 16; i < 20; i++)
		CHECK_EQ(ep[i] / 8, 6);
	/* Spread: consecutive nodes in consecutive groups (9 groups). */
	rq.busy = NULL;
	rq.n_ranks = 18;
	CHECK_OK(place_job(pol("spread"), &rq, ep, &err), &err);
	for (uint32_t i = 0; i < 18; i++)
		CHECK_EQ(place_router_group(t, topo_ep_router(t, ep[i])), i % 9);
	/* Within a group, its routers take turns: group 0's two picks are on
	 * routers 0 and 1. */
	CHECK_EQ(topo_ep_router(t, ep[0]), 0);
	CHECK_EQ(topo_ep_router(t, ep[9]), 1);
	/* A caller's own groups (e.g. the layout's cabinets). */
	uint32_t grp[36];
	for (uint32_t r = 0; r < 36; r++)
		grp[r] = r % 2;
	rq.group = grp;
	rq.n_ranks = 4;
	CHECK_OK(place_job(pol("spread"), &rq, ep, &err), &err);
	CHECK_EQ(topo_ep_router(t, ep[0]) % 2, 0);
	CHECK_EQ(topo_ep_router(t, ep[1]) % 2, 1);
	topo_free(t);

	/* FleX: the groups are its racks (seed 000 Fig. 7: a y-axis line of a
	 * layer, rack NX*z + x), not its layers (its traffic groups). */
	CHECK_OK(topo_new("flex:nx=3,ny=3,nz=3,p=2", &t, &err), &err);
	for (uint32_t r = 0; r < t->n_routers; r++)
		CHECK_EQ(place_router_group(t, r), 3 * (r / 9) + r % 3);
	struct place_req fr = req_of(t, 8);
	const uint32_t spread[8] = {0, 2, 4, 18, 20, 22, 36, 38}, packed[8] = {0, 1, 6, 7, 12, 13, 2, 3};
	CHECK_OK(place_job(pol("spread"), &fr, ep, &err), &err);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ(ep[i], spread[i]);
	CHECK_OK(place_job(pol("packed"), &fr, ep, &err), &err);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ(ep[i], packed[i]);
	topo_free(t);
}

/* Write a map file, replacing (and unlinking) the previous one. */
static const char *map_file(const char *text)
{
	static char path[64];
	if (path[0])
		unlink(path);
	snprintf(path, sizeof path, "%s", text ? test_write_tmp(text) : "");
	return path;
}

static void test_map_file(void)
{
	struct nl_err err = {0};
	struct topo *t = NULL;
	CHECK_OK(topo_new("torus:k=4x4", &t, &err), &err);
	struct place_req rq = req_of(t, 3);
	uint32_t ep[3];
	rq.map_path = map_file("# rank endpoint\n2 7\n0 5 # comment\n\n1 5\n");
	CHECK_OK(place_job(pol("map"), &rq, ep, &err), &err);
	CHECK_EQ(ep[0], 5);
	CHECK_EQ(ep[1], 5);
	CHECK_EQ(ep[2], 7);
	rq.map_path = map_file("0 1\n1 2\n0 3\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ECONFIG, &err, ":3: rank 0: mapped twice");
	rq.map_path = map_file("0 1\n1 2\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ECONFIG, &err, "rank 2: not mapped");
	rq.map_path = map_file("0 1\n1 16\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ERANGE, &err, ":2: endpoint 16: expected an endpoint below 16");
	rq.map_path = map_file("0 1\n3 2\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ERANGE, &err, ":2: rank 3");
	rq.map_path = map_file("0 x\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err, ":1: '0 x': expected 'rank endpoint'");
	rq.map_path = map_file("0 1 2\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err, "unexpected text");
	/* The rest of the line is quoted without its line end: one line. */
	rq.map_path = map_file("0 3 junk\r\n1 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err, ":1: unexpected text after 'rank endpoint': 'junk'");
	CHECK(!strchr(err.msg, '\n') && !strchr(err.msg, '\r'));
	/* A number with more after its digits is no number: it said
	 * "unexpected text after 'rank endpoint': 'x3'" for "0 0x3", as if
	 * the line mapped rank 0 to endpoint 0 and went on. */
	rq.map_path = map_file("0 1\n1 0x3\n2 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err,
		  ":2: '1 0x3': expected 'rank endpoint' (two unsigned integers)");
	rq.map_path = map_file("0 1\n1 2.5\n2 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err,
		  ":2: '1 2.5': expected 'rank endpoint' (two unsigned integers)");
	rq.map_path = map_file("1e1 3\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err,
		  ":1: '1e1 3': expected 'rank endpoint' (two unsigned integers)");
	/* A line past 510 characters is refused with its length and what a
	 * line holds; 510, a comment making up the rest, is read. */
	char text[600];
	snprintf(text, sizeof text, "0 1\n1 2 #%505s\n2 5\n", "");
	rq.map_path = map_file(text);
	CHECK_OK(place_job(pol("map"), &rq, ep, &err), &err);
	snprintf(text, sizeof text, "0 1\n1 2 #%506s\n2 5\n", "");
	rq.map_path = map_file(text);
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err,
		  ":2: line of 511 characters; expected at most 510 ('rank endpoint' and an optional '# comment')");
	/* A number past 2^64 is a number out of range, said as such with its
	 * digits: it was "'1 99999999999999999999': expected 'rank endpoint'
	 * (two unsigned integers)", which it is. */
	rq.map_path = map_file("0 1\n1 99999999999999999999\n2 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ERANGE, &err,
		  ":2: endpoint 99999999999999999999: expected an endpoint below 16");
	rq.map_path = map_file("0 1\n18446744073709551616 2\n2 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ERANGE, &err,
		  ":2: rank 18446744073709551616: expected a rank below 3 (the job's ranks)");
	rq.map_path = map_file("0 1\n1 18446744073709551615\n2 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ERANGE, &err,
		  ":2: endpoint 18446744073709551615: expected an endpoint below 16");
	/* A UTF-8 byte order mark (a Windows editor's) is no text: it hid
	 * in the first rank, "':1: '0 1': expected 'rank endpoint'", the
	 * line looking right. Skipped on the first line only. */
	rq.map_path = map_file("\xef\xbb\xbf" "0 4\n1 2\n2 5\n");
	CHECK_OK(place_job(pol("map"), &rq, ep, &err), &err);
	CHECK_EQ(ep[0], 4);
	rq.map_path = map_file("\xef\xbb\xbf" "0 x\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err, ":1: '0 x': expected 'rank endpoint'");
	CHECK(!strstr(err.msg, "\xef\xbb\xbf") && !strstr(err.msg, "\\xef"));
	rq.map_path = map_file("0 4\n\xef\xbb\xbf" "1 2\n2 5\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EFORMAT, &err, ":2: ");
	/* A comment right after the endpoint still ends the line. */
	rq.map_path = map_file("0 1#a\n1 2\t# b\n2 5\r\n");
	CHECK_OK(place_job(pol("map"), &rq, ep, &err), &err);
	CHECK_EQ(ep[0], 1);
	CHECK_EQ(ep[2], 5);
	uint8_t busy[16] = {0};
	busy[7] = 1;
	rq.busy = busy;
	rq.map_path = map_file("0 1\n1 2\n2 7\n");
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_ECONFIG, &err, "endpoint 7 is taken");
	map_file(NULL);
	rq.map_path = "/nonexistent/map";
	CHECK_ERR(place_job(pol("map"), &rq, ep, &err), NL_EIO, &err, "/nonexistent/map: cannot open");
	topo_free(t);
}

/* Workload files: defaults, the [workload] seed, paths relative to the
 * file, and one-line errors naming line, section, key and value. */
static void test_workload(void)
{
	struct nl_err err = {0};
	struct place_workload w;
	const char *path = map_file("# two jobs\n[workload]\nseed = 9\n[job big one]\ntrace = a.nlt\n"
				    "placement = random-node\nstart_s = 0.000002\nrepeat = 3\n"
				    "[job b]\ntrace = /abs/b.nlt\nplacement_seed = 4\nranks_per_node = 2\n"
				    "placement_inner = round_robin\n");
	CHECK_OK(place_workload_read(path, &w, &err), &err);
	CHECK_EQ(w.n_jobs, 2);
	CHECK_STR(w.jobs[0].name, "big one");
	char want[128];
	snprintf(want, sizeof want, "%.*sa.nlt", (int)(strrchr(path, '/') - path + 1), path);
	CHECK_STR(w.jobs[0].trace, want);
	CHECK_STR(w.jobs[0].policy, "random-node");
	CHECK_EQ(w.jobs[0].seed, 9);
	CHECK_EQ(w.jobs[0].ranks_per_node, 1);
	CHECK_EQ(w.jobs[0].start_ps, 2000000);
	CHECK_EQ(w.jobs[0].repeat, 3);
	CHECK_STR(w.jobs[1].trace, "/abs/b.nlt");
	CHECK_STR(w.jobs[1].policy, "contiguous");
	CHECK_EQ(w.jobs[1].seed, 4);
	CHECK_EQ(w.jobs[1].ranks_per_node, 2);
	CHECK_EQ(w.jobs[1].inner, PLACE_INNER_ROUND_ROBIN);
	CHECK_EQ(w.jobs[1].start_ps, 0);
	CHECK_EQ(w.jobs[1].repeat, 1);
	place_workload_release(&w);
	/* Indented lines continue a value, as in configuration files (a
	 * blank or comment line between them too); the key keeps its line. */
	path = map_file("[job a]\ntrace = /x/\n  a.nlt\nplacement = random-\n\n; the policy\n\tnode\n"
			"[job b]\n  trace = b.nlt\n");
	CHECK_OK(place_workload_read(path, &w, &err), &err);
	CHECK_EQ(w.n_jobs, 2);
	CHECK_STR(w.jobs[0].trace, "/x/a.nlt");
	CHECK_STR(w.jobs[0].policy, "random-node");
	CHECK_STR(w.jobs[1].name, "b");
	place_workload_release(&w);
	/* A line past libinih's 198 characters is read whole, as in
	 * configuration files (its pieces were read as lines of their own),
	 * and the lines after it keep their numbers. */
	char longw[700], trace[400];
	size_t tn = 0;
	for (int i = 0; i < 12; i++)
		tn += (size_t)snprintf(trace + tn, sizeof trace - tn, "/directory_%02d_of_a_trace", i);
	snprintf(trace + tn, sizeof trace - tn, "/a.nlt");
	snprintf(longw, sizeof longw, "[job a]\ntrace = %s   ; a long path\nrepeat = 2\n[job b]\ntrace = b.nlt\n", trace);
	path = map_file(longw);
	CHECK_OK(place_workload_read(path, &w, &err), &err);
	CHECK_EQ(w.n_jobs, 2);
	CHECK_STR(w.jobs[0].trace, trace);
	CHECK_EQ(w.jobs[0].repeat, 2);
	place_workload_release(&w);
	snprintf(longw, sizeof longw, "[job a]\ntrace = %s\n[job b]\ntrace = b.nlt\nrepeat = 0\n", trace);
	path = map_file(longw);
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":5: [job b] key 'repeat': value '0': expected an integer 1..1000000");
	path = map_file("[job a]\ntrace = a.nlt\nrepeat = 0\n  0\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'repeat': value '00': expected an integer 1..1000000");
	path = map_file("[job a]\ntrace = a.nlt\nrepeat = 2\n  placement = spread\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":4: [job a] indented line 'placement = spread' reads as 'name = value' after key 'repeat'");
	path = map_file("[job a]\ntrace = a.nlt\nrepeat = 0\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'repeat': value '0': expected an integer 1..1000000");
	CHECK_EQ(w.n_jobs, 0);
	/* An unknown key names the one it is a typo of, as a config file's
	 * does; the list alone when it is none's. */
	path = map_file("[job a]\ntrace = a.nlt\nplacment = spread\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'placment': value 'spread': expected a job key: trace, placement, placement_seed, "
		  "ranks_per_node, placement_inner, placement_map, start_s, repeat; or for a synthetic job synthetic, "
		  "ranks, bytes, interval_s, steps (did you mean 'placement'?)");
	path = map_file("[job a]\nsynthetic = ring\nranks = 4\nintervals = 1\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":4: [job a] key 'intervals': value '1': expected a job key: trace, placement, placement_seed, "
		  "ranks_per_node, placement_inner, placement_map, start_s, repeat; or for a synthetic job synthetic, "
		  "ranks, bytes, interval_s, steps (did you mean 'interval_s'?)");
	/* So does a synthetic pattern that is a typo of one: 'Ring' said
	 * only the list. */
	path = map_file("[job a]\nsynthetic = Ring\nranks = 4\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":2: [job a] key 'synthetic': value 'Ring': expected a synthetic pattern: alltoall, shift or ring "
		  "(did you mean 'ring'?)");
	path = map_file("[job a]\nsynthetic = shfit\nranks = 4\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  "value 'shfit': expected a synthetic pattern: alltoall, shift or ring (did you mean 'shift'?)");
	path = map_file("[job a]\nsynthetic = uniform\nranks = 4\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  "value 'uniform': expected a synthetic pattern: alltoall, shift or ring");
	CHECK(!strstr(err.msg, "did you mean"));
	path = map_file("[job a]\ntrace = a.nlt\nnodes = 2\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  "key 'nodes': value '2': expected a job key: trace, placement, placement_seed, ranks_per_node, "
		  "placement_inner, placement_map, start_s, repeat; or for a synthetic job synthetic, ranks, bytes, "
		  "interval_s, steps");
	CHECK(!strstr(err.msg, "did you mean"));
	/* A mistyped policy names the one meant, as a mistyped key does. */
	path = map_file("[job a]\ntrace = a.nlt\nplacement = sprad\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'placement': value 'sprad': expected one of contiguous, random-node, random-router, "
		  "round-robin, packed, spread, map (did you mean 'spread'?)");
	path = map_file("[job a]\ntrace = a.nlt\nplacement = nearest\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err, "round-robin, packed, spread, map");
	CHECK(!strstr(err.msg, "did you mean"));
	path = map_file("[workload]\nsed = 3\n[job a]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":2: [workload] key 'sed': value '3': expected a [workload] key: seed (did you mean 'seed'?)");
	path = map_file("[workload]\nseed = -1\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":2: [workload] key 'seed': value '-1': expected an unsigned integer");
	/* Seeds are 0..2^53, as a replay's placement_seed: the JSON holds
	 * them exactly (2^64 - 1 was written as placement_seed -1). */
	path = map_file("[workload]\nseed = 9007199254740992\n[job a]\ntrace = a.nlt\n[job b]\ntrace = b.nlt\n"
			"placement_seed = 0\n");
	CHECK_OK(place_workload_read(path, &w, &err), &err);
	CHECK_EQ(w.jobs[0].seed, UINT64_C(9007199254740992));
	CHECK_EQ(w.jobs[1].seed, 0);
	place_workload_release(&w);
	path = map_file("[job a]\ntrace = a.nlt\nplacement_seed = 9007199254740993\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'placement_seed': value '9007199254740993' out of range: expected a value in "
		  "0..9007199254740992");
	path = map_file("[workload]\nseed = 18446744073709551615\n[job a]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":2: [workload] key 'seed': value '18446744073709551615' out of range: expected a value in "
		  "0..9007199254740992");
	path = map_file("[job a]\ntrace = a.nlt\nplacement_seed = 99999999999999999999\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'placement_seed': value '99999999999999999999' out of range");
	/* A job's name is read without the blanks around it, as compare's
	 * are: "[job  a ]" was a job ' a ' beside a job 'a'. */
	path = map_file("[job \t b \t]\ntrace = b.nlt\n");
	CHECK_OK(place_workload_read(path, &w, &err), &err);
	CHECK_STR(w.jobs[0].name, "b");
	place_workload_release(&w);
	path = map_file("[job  a ]\ntrace = a.nlt\n[job a]\ntrace = b.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: section [job a]: job 'a' given twice; expected one section per job");
	path = map_file("[job  a ]\ntrace = a.nlt\nrepeat = 0\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err, ":3: [job a] key 'repeat': value '0'");
	path = map_file("[job  ]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":1: section [job  ]: expected [workload] or [job NAME]");
	/* A typo of a kind names the header meant; another word does not. */
	path = map_file("[jb a]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":1: section [jb a]: expected [workload] or [job NAME] (did you mean [job a]?)");
	/* A kind that takes a name is suggested with one: "[jb]" and "[jobs]"
	 * suggested "[job]", itself refused; a longer name glued to the kind
	 * is set apart. */
	path = map_file("[jb]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":1: section [jb]: expected [workload] or [job NAME] (did you mean [job NAME]?)");
	path = map_file("[jobs]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":1: section [jobs]: expected [workload] or [job NAME] (did you mean [job NAME]?)");
	path = map_file("[jobfoo]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":1: section [jobfoo]: expected [workload] or [job NAME] (did you mean [job foo]?)");
	path = map_file("[job a]\ntrace = a.nlt\n[Workload]\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: section [Workload]: expected [workload] or [job NAME] (did you mean [workload]?)");
	path = map_file("[job a]\ntrace = a.nlt\n[bogus]\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: section [bogus]: expected [workload] or [job NAME]");
	CHECK(!strstr(err.msg, "did you mean"));
	/* A synthetic job's key in a traced job, at its line with its value,
	 * the default value too (steps = 100 passed). */
	path = map_file("[job a]\ntrace = a.nlt\nrepeat = 2\nsteps = 100\nbytes = 8\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":4: [job a] key 'steps': value '100': ranks, bytes, interval_s and steps describe a synthetic job");
	path = map_file("[job a]\nsynthetic = ring\nranks = 2\n[job b]\ninterval_s = 0.5\ntrace = b.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":5: [job b] key 'interval_s': value '0.5': ranks, bytes");
	path = map_file("[job a]\ntrace = a.nlt\nplacement_inner = zigzag\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: [job a] key 'placement_inner': value 'zigzag': expected linear or round_robin");
	/* The longest job name, 45 characters ("job " and 45 make libinih's
	 * 49), is read whole; one more is refused at its header. */
	path = map_file("[job 123456789012345678901234567890123456789012345]\ntrace = a.nlt\n");
	CHECK_EQ(place_workload_read(path, &w, &err), 0);
	CHECK_STR(w.jobs[0].name, "123456789012345678901234567890123456789012345");
	place_workload_release(&w);
	path = map_file("[job 1234567890123456789012345678901234567890123456]\ntrace = a.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":1: section name of 50 characters ('[job 1234567890123456...]'); libinih keeps its first 49 only: "
		  "expected a job name of at most 45 characters");
	/* A job name libinih would cut to its first 45 characters (MAX_SECTION):
	 * the job ran under the cut name. */
	path = map_file("[job a]\ntrace = a.nlt\n[job job_with_a_very_long_name_that_goes_on_and_on_and_on_x]\n"
			"trace = b.nlt\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: section name of 58 characters ('[job job_with_a_very_...]'); libinih keeps its first 49 only: "
		  "expected a job name of at most 45 characters");
	path = map_file("[job a]\ntrace = a.nlt\nno equals sign\n");
	CHECK_ERR(place_workload_read(path, &w, &err), NL_ECONFIG, &err,
		  ":3: expected 'key = value', '[job NAME]' or a comment");
	map_file(NULL);
	CHECK_ERR(place_workload_read("/nonexistent/w.ini", &w, &err), NL_EIO, &err,
		  "/nonexistent/w.ini: cannot open workload file");
}

int main(void)
{
	TEST_RUN(test_registry_and_validity);
	TEST_RUN(test_contiguous_and_round_robin);
	TEST_RUN(test_random_policies);
	TEST_RUN(test_groups);
	TEST_RUN(test_map_file);
	TEST_RUN(test_workload);
	return test_done();
}
