/* Unit tests: Equality routing (seed 002 §3.4-3.5): the relative routing
 * table R' against BFS at every router pair (so the even/odd mapping is
 * checked, not only router 0's row) and against entries worked out by
 * hand; amin on shortest paths only; VC k on hop k; eq_ugal/bgal detours
 * from the source only and only through L_0j; bgal's threshold; refusal
 * with too few VCs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/eq_rprime.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"

static const char *const eq_specs[] = {
	"N14K6P1[-1,1,3,9](4)",           /* the paper's example, diameter 2 */
	"equality:n=20,sa=-1/1/5,p=1",    /* odd offsets only (bipartite) */
	"equality:n=32,sa=-1/1/7,sb=6,p=1", /* a longer diameter */
	"equality:n=16,sa=-1/1,sb=8,p=1", /* s = N/2: one port */
};

static uint32_t nb_of(const struct topo *t, uint32_t r, uint32_t port)
{
	return t->port_router[t->peer[t->port_base[r] + port]];
}

static int bit(const uint64_t *m, uint32_t i)
{
	return (int)(m[i / 64] >> (i % 64) & 1);
}

/* R' rows, mapped to every router, equal BFS's shortest first hops, the
 * sub-shortest first hops (neighbours off a shortest path that are the
 * least far from the target) and the shortest-path counts. */
static void test_rprime_bfs(void)
{
	for (size_t si = 0; si < sizeof eq_specs / sizeof *eq_specs; si++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(eq_specs[si], &t, &e), &e);
		CHECK_OK(route_new("eq_ugal", t, 16, &r, &e), &e);
		const struct eq_route *s = r->state;
		const struct eq_rprime *rp = &s->rp;
		uint32_t N = t->n_routers, K = rp->eq->K;
		uint32_t *dist = malloc((size_t)N * N * sizeof *dist), *q = malloc(N * sizeof *q);
		uint64_t *npaths = calloc((size_t)N * N, sizeof *npaths);
		for (uint32_t a = 0; a < N; a++)
			topo_bfs(t, a, dist + (size_t)a * N, q);
		/* Shortest-path counts by brute force: paths a -> b through each
		 * neighbour one hop closer. */
		for (uint32_t b = 0; b < N; b++) {
			npaths[(size_t)b * N + b] = 1;
			for (uint32_t d = 1; d < N; d++)
				for (uint32_t a = 0; a < N; a++)
					if (dist[(size_t)a * N + b] == d)
						for (uint32_t i = 0; i < K; i++) {
							uint32_t nb = nb_of(t, a, i);
							if (dist[(size_t)nb * N + b] + 1 == d)
								npaths[(size_t)a * N + b] += npaths[(size_t)nb * N + b];
						}
		}
		int bad = 0;
		for (uint32_t a = 0; a < N && !bad; a++)
			for (uint32_t b = 0; b < N && !bad; b++) {
				if (a == b)
					continue;
				uint32_t j = eq_rprime_rel(rp, a, b), dab = dist[(size_t)a * N + b], least = UINT32_MAX;
				const uint64_t *mm = rp->min_mask + (size_t)j * rp->words;
				const uint64_t *sm = rp->sub_mask + (size_t)j * rp->words;
				for (uint32_t i = 0; i < K; i++) {
					uint32_t dn = dist[(size_t)nb_of(t, a, i) * N + b];
					if (bit(mm, i) != (dn + 1 == dab)) {
						TEST_FAIL_("%s: %u -> %u port %u: R' minimal %d, BFS %u vs %u", eq_specs[si], a,
							   b, i, bit(mm, i), dn, dab);
						bad = 1;
					}
					if (dn + 1 != dab && dn < least)
						least = dn;
				}
				for (uint32_t i = 0; i < K && !bad; i++) {
					uint32_t dn = dist[(size_t)nb_of(t, a, i) * N + b];
					int want = dn + 1 != dab && dn == least;
					if (bit(sm, i) != want) {
						TEST_FAIL_("%s: %u -> %u port %u: in L_0j %d, expected %d", eq_specs[si], a, b,
							   i, bit(sm, i), want);
						bad = 1;
					}
				}
				uint64_t np = npaths[(size_t)a * N + b];
				if (!bad && (rp->sub_hops[j] != (least == UINT32_MAX ? 0 : least + 1) ||
					     rp->n_paths[j] != (np > 255 ? 255 : np))) {
					TEST_FAIL_("%s: %u -> %u: sub_hops %u n_paths %u, expected %u and %llu", eq_specs[si],
						   a, b, rp->sub_hops[j], rp->n_paths[j], least + 1, (unsigned long long)np);
					bad = 1;
				}
			}
		free(dist);
		free(q);
		free(npaths);
		route_free(r);
		topo_free(t);
	}
}

/* Entries of N14K6[-1,1,3,9](4) worked out by hand. Ports: 0..3 the
 * offsets -1, 1, 3, 9 (13, 1, 3, 9 mod 14), 4 and 5 the +4 and -4. From
 * router 0, router 2 is two hops: 0-1-2 (1 is odd: its -(-1) link) and
 * 0-3-2 (3 - 1); no neighbour of 0 links to 2 otherwise. So R^ row 2 is
 * ports {1, 2} with 2 paths. */
static void test_rprime_hand(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("N14K6P1[-1,1,3,9](4)", &t, &e), &e);
	CHECK_OK(route_new("amin", t, 2, &r, &e), &e);
	const struct eq_rprime *rp = &((const struct eq_route *)r->state)->rp;
	CHECK_UINT(rp->diameter, ==, 2);
	CHECK_UINT(rp->min_mask[2], ==, (1u << 1) | (1u << 2));
	CHECK_UINT(rp->n_paths[2], ==, 2);
	/* Direct neighbours: one path, through the one port. */
	CHECK_UINT(rp->min_mask[1], ==, 1u << 1);
	CHECK_UINT(rp->min_mask[10], ==, 1u << 5);
	CHECK_UINT(rp->n_paths[9], ==, 1);
	/* Router 5 (odd) towards 4: relative target 1, the same port 1
	 * (5 - 1 = 4). */
	CHECK_UINT(eq_rprime_rel(rp, 5, 4), ==, 1);
	route_free(r);
	topo_free(t);
}

/* Follow a packet from s to router d under random views: every hop's
 * candidate is one port with VC class = hops taken (VC k on hop k); amin
 * moves one hop closer every time; eq_ugal/bgal leave the shortest paths
 * only on the first hop and only through L_0j; returns the hop count. */
static uint32_t follow(const struct topo *t, const struct route *r, uint32_t s, uint32_t d, struct rng *rng,
		       uint16_t *occ, int *bad)
{
	const struct eq_route *st = r->state;
	const struct eq_rprime *rp = &st->rp;
	struct route_pkt pk = {.src_ep = topo_router_ep(t, s), .dst_router = d, .dst_ep = d * (t->n_endpoints / t->n_routers)};
	uint32_t cur = s, hops = 0;
	while (cur != d) {
		for (size_t i = 0; i < (size_t)t->n_ports * r->n_vcs; i++)
			occ[i] = (uint16_t)rng_below(rng, 9);
		struct route_view v = {.occ_base = occ + (size_t)t->port_base[cur] * r->n_vcs,
				       .occ_stride = sizeof *occ, .n_vcs = r->n_vcs, .vc_buf_size = 8};
		struct route_cand c[ROUTE_MAX_CANDS];
		pk.hops = (uint8_t)hops;
		int n = r->ops->compute(r, cur, 0, 0, &pk, rng, &v, c);
		uint32_t j = eq_rprime_rel(rp, cur, d);
		int is_min = (int)(rp->min_mask[j * rp->words + c[0].port / 64] >> (c[0].port % 64) & 1);
		int is_sub = (int)(rp->sub_mask[j * rp->words + c[0].port / 64] >> (c[0].port % 64) & 1);
		if (n != 1 || c[0].vc_lo != hops * st->class_w || c[0].vc_hi != c[0].vc_lo + st->class_w - 1 ||
		    !(is_min || (st->adaptive_src && hops == 0 && is_sub))) {
			TEST_FAIL_("%s: %u -> %u hop %u at %u: %d cands, port %u VCs %u..%u (min %d, L %d)", r->ops->name,
				   s, d, hops, cur, n, c[0].port, c[0].vc_lo, c[0].vc_hi, is_min, is_sub);
			*bad = 1;
			return hops;
		}
		cur = t->port_router[t->peer[t->port_base[cur] + c[0].port]];
		hops++;
	}
	return hops;
}

static void test_paths_and_vcs(void)
{
	static const char *const fns[] = {"amin", "eq_ugal", "bgal", "bgal:threshold=0"};
	for (size_t si = 0; si < sizeof eq_specs / sizeof *eq_specs; si++)
		for (size_t fi = 0; fi < sizeof fns / sizeof *fns; fi++) {
			struct topo *t = NULL;
			struct route *r = NULL;
			struct nl_err e = {0};
			CHECK_OK(topo_new(eq_specs[si], &t, &e), &e);
			/* Twice the VCs needed, so classes are 2 wide. */
			uint32_t vcs = 1;
			while (route_new(fns[fi], t, vcs, &r, &e) < 0)
				vcs++;
			route_free(r);
			CHECK_OK(route_new(fns[fi], t, 2 * vcs, &r, &e), &e);
			uint16_t *occ = malloc((size_t)t->n_ports * r->n_vcs * sizeof *occ);
			struct rng rng;
			rng_init(&rng, 7, RNG_CLASS_ROUTER, si * 10 + fi);
			int bad = 0, detours = 0;
			uint32_t longest = 0;
			for (uint32_t s = 0; s < t->n_routers && !bad; s++)
				for (uint32_t d = 0; d < t->n_routers && !bad; d++)
					for (int k = 0; k < 4 && !bad; k++) {
						uint32_t h = follow(t, r, s, d, &rng, occ, &bad);
						uint32_t dist = topo_distance(t, s, d);
						if (!bad && fi == 0 && h != dist) {
							TEST_FAIL_("amin on %s: %u -> %u in %u hops, distance %u", eq_specs[si], s,
								   d, h, dist);
							bad = 1;
						}
						detours += h > dist;
						if (h > longest)
							longest = h;
					}
			/* Every route fits the VC classes the function asked for. */
			CHECK_UINT(longest, <=, vcs);
			/* ugal and bgal:threshold=0 vs amin: detours only where allowed. */
			if (fi == 0)
				CHECK_INT(detours, ==, 0);
			if (fi == 1)
				CHECK_INT(detours, >, 0);
			free(occ);
			route_free(r);
			topo_free(t);
		}
}

/* bgal: a pair with more than `threshold` shortest paths never detours,
 * even with its shortest first hops full and the others empty; one with
 * at most `threshold` does, as eq_ugal does. An idle view routes
 * minimally (equal products prefer the shorter path). */
static void test_bgal_threshold(void)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("N14K6P1[-1,1,3,9](4)", &t, &e), &e);
	static const struct {
		const char *spec;
		uint32_t threshold;
	} fns[] = {{"bgal", 2}, {"bgal:threshold=1", 1}, {"eq_ugal", 255}};
	for (size_t fi = 0; fi < sizeof fns / sizeof *fns; fi++) {
		struct route *r = NULL;
		CHECK_OK(route_new(fns[fi].spec, t, 4, &r, &e), &e);
		const struct eq_rprime *rp = &((const struct eq_route *)r->state)->rp;
		uint32_t K = rp->eq->K, seen_detour = 0, seen_kept = 0;
		uint16_t *occ = calloc((size_t)(K + 1) * 4, sizeof *occ);
		struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 4, .vc_buf_size = 8};
		struct rng rng;
		rng_init(&rng, 1, RNG_CLASS_ROUTER, fi);
		for (uint32_t d = 1; d < t->n_routers; d++) {
			struct route_pkt pk = {.src_ep = topo_router_ep(t, 0), .dst_router = d, .dst_ep = d};
			struct route_cand c[ROUTE_MAX_CANDS];
			memset(occ, 0, (size_t)(K + 1) * 4 * sizeof *occ);
			r->ops->compute(r, 0, K, 0, &pk, &rng, &v, c);
			if (!(rp->min_mask[d] >> c[0].port & 1))
				TEST_FAIL_("%s: idle view, 0 -> %u takes non-minimal port %u", fns[fi].spec, d, c[0].port);
			for (uint32_t i = 0; i < K; i++)
				if (rp->min_mask[d] >> i & 1)
					for (uint32_t vc = 0; vc < 4; vc++)
						occ[i * 4 + vc] = 8;
			r->ops->compute(r, 0, K, 0, &pk, &rng, &v, c);
			int detour = !(rp->min_mask[d] >> c[0].port & 1);
			int may = rp->sub_hops[d] && rp->n_paths[d] <= fns[fi].threshold;
			if (detour != may)
				TEST_FAIL_("%s: 0 -> %u (%u shortest paths) with full minimal ports: detour %d, expected %d",
					   fns[fi].spec, d, rp->n_paths[d], detour, may);
			seen_detour += detour;
			seen_kept += !detour;
		}
		/* Both branches are exercised on this network. */
		CHECK_UINT(seen_detour, >, 0);
		if (fns[fi].threshold < 255)
			CHECK_UINT(seen_kept, >, 0);
		free(occ);
		route_free(r);
	}
	topo_free(t);
}

/* Too few VCs for the longest route are refused with the rule named. */
static void test_refuse_vcs(void)
{
	struct nl_err e = {0};
	struct topo *t = NULL;
	struct route *r = NULL;
	CHECK_OK(topo_new("N14K6P1[-1,1,3,9](4)", &t, &e), &e); /* diameter 2 */
	CHECK_ERR(route_new("amin", t, 1, &r, &e), NL_ECONFIG, &e, "the diameter");
	CHECK_OK(route_new("amin", t, 2, &r, &e), &e);
	route_free(r);
	CHECK_ERR(route_new("eq_ugal", t, 3, &r, &e), NL_ECONFIG, &e, "4 for diameter 2");
	CHECK_ERR(route_new("bgal", t, 3, &r, &e), NL_ECONFIG, &e, "4 for diameter 2");
	CHECK_OK(route_new("bgal", t, 4, &r, &e), &e);
	route_free(r);
	topo_free(t);
	t = NULL;
	CHECK_OK(topo_new("equality:n=32,sa=-1/1/7,sb=6,p=1", &t, &e), &e);
	uint32_t d = 0;
	CHECK_OK(topo_diameter(t, &d, &e), &e);
	CHECK_UINT(d, >=, 3);
	CHECK_ERR(route_new("eq_ugal", t, d, &r, &e), NL_ECONFIG, &e, "diameter + 1");
	CHECK_OK(route_new("eq_ugal", t, d + 1, &r, &e), &e);
	route_free(r);
	CHECK_ERR(route_new("amin", t, d - 1, &r, &e), NL_ECONFIG, &e, "the diameter");
	topo_free(t);
	t = NULL;
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("amin", t, 4, &r, &e), NL_EUNSUPPORTED, &e, "equality");
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_rprime_bfs);
	TEST_RUN(test_rprime_hand);
	TEST_RUN(test_paths_and_vcs);
	TEST_RUN(test_bgal_threshold);
	TEST_RUN(test_refuse_vcs);
	return test_done();
}
