/* Unit tests: per-family routing defaults and functions (emu/route):
 * min's per-family VC semantics (issue 11 part 7), nca/anca drawing per
 * packet, group_min (BookSim's min_dragonflynew) and its parallel global
 * links. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"
#include "test.h"
#include "route_check.h"

/* Issue 11 part 7: `min`'s defaults per family. On the untrunked HyperX
 * family it is dimension order (select=first) on every VC, BookSim's
 * ran_min: one VC suffices and the channel dependencies are acyclic;
 * elsewhere (and on a trunked HyperX) hash with one VC class per hop. */
static void test_min_defaults(void)
{
	static const char *const dim_order[] = {"flatfly:m=4,n=4", "hyperx:s=3x4x2,t=2", "hypercube:n=4",
						"full:n=5,p=1"};
	for (size_t i = 0; i < sizeof dim_order / sizeof *dim_order; i++) {
		CHECK(check_routing(dim_order[i], "min", 1, 1));
		/* Same candidates as the explicit spec, every VC. */
		struct topo *t = NULL;
		struct route *a = NULL, *b = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(dim_order[i], &t, &e), &e);
		CHECK_OK(route_new("min", t, 4, &a, &e), &e);
		CHECK_OK(route_new("min:select=first,classes=none", t, 4, &b, &e), &e);
		for (uint32_t s = 0; s < t->n_routers; s++)
			for (uint32_t d = 0; d < t->n_routers; d++) {
				if (s == d)
					continue;
				struct route_pkt pa = {.src_ep = test_src_ep(t, s), .dst_router = d, .dst_ep = d * (t->n_endpoints / t->n_routers)};
				struct route_pkt pb = pa;
				struct route_cand ca[ROUTE_MAX_CANDS], cb[ROUTE_MAX_CANDS];
				int na = a->ops->compute(a, s, 0, 0, &pa, NULL, NULL, ca);
				int nb = b->ops->compute(b, s, 0, 0, &pb, NULL, NULL, cb);
				if (na != 1 || nb != 1 || ca[0].port != cb[0].port || ca[0].vc_lo != 0 || ca[0].vc_hi != 3) {
					TEST_FAIL_("%s: min default at router %u to %u: %d cands port %u VCs %u..%u, expected port %u VCs 0..3",
						   dim_order[i], s, d, na, ca[0].port, ca[0].vc_lo, ca[0].vc_hi, cb[0].port);
					s = t->n_routers;
					break;
				}
			}
		route_free(a);
		route_free(b);
		topo_free(t);
	}
	/* Hop classes stay where dimension order is not the default. */
	static const char *const per_hop[] = {"hyperx:s=3x3,k=2,t=1", "dragonfly:a=4,p=2,h=2", "torus:k=4x4"};
	for (size_t i = 0; i < sizeof per_hop / sizeof *per_hop; i++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(per_hop[i], &t, &e), &e);
		CHECK_ERR(route_new("min", t, 1, &r, &e), NL_ECONFIG, &e, "one VC class per hop");
		topo_free(t);
	}
}

/* nca draws its up-port per packet per hop (BookSim's RandomInt), not a
 * fixed hash: one flow, routed 64 times from a leaf, uses every up-port
 * of a fattree:k=4,n=2 leaf; anca takes the emptier of its two draws. */
static void test_nca_random(void)
{
	struct nl_err e = {0};
	struct topo *t = NULL;
	struct route *r = NULL, *ra = NULL;
	CHECK_OK(topo_new("fattree:k=4,n=2", &t, &e), &e);
	CHECK_OK(route_new("nca", t, 1, &r, &e), &e);
	CHECK_OK(route_new("anca", t, 1, &ra, &e), &e);
	uint32_t src = topo_ep_router(t, 0), d = t->n_endpoints - 1;
	CHECK(topo_ep_router(t, d) != src && topo_level(t, src) == 0);
	uint32_t ups[ROUTE_MAX_CANDS];
	uint32_t n_up = topo_min_ports(t, src, topo_ep_router(t, d), 0, ups, ROUTE_MAX_CANDS);
	CHECK_UINT(n_up, ==, 4);
	uint32_t seen = 0;
	uint16_t *occ = calloc(topo_router_ports(t, src), sizeof *occ);
	occ[ups[0]] = 5; /* anca must never pick this one when it drew another */
	struct route_view v = {.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = 1, .vc_buf_size = 8};
	struct rng rng;
	rng_init(&rng, 7, RNG_CLASS_ROUTER, src);
	uint32_t anca_hot = 0;
	for (int i = 0; i < 64; i++) {
		struct route_pkt pk = {.src_ep = test_src_ep(t, src), .dst_router = topo_ep_router(t, d), .dst_ep = d};
		struct route_cand c;
		CHECK_INT(r->ops->compute(r, src, 0, 0, &pk, &rng, &v, &c), ==, 1);
		seen |= 1u << c.port;
		CHECK_INT(ra->ops->compute(ra, src, 0, 0, &pk, &rng, &v, &c), ==, 1);
		anca_hot += c.port == ups[0];
	}
	uint32_t want = 0;
	for (uint32_t i = 0; i < n_up; i++)
		want |= 1u << ups[i];
	CHECK_UINT(seen, ==, want);
	/* Only when both draws hit the hot port: about 1/16 of 64. */
	CHECK_UINT(anca_hot, <, 12);
	free(occ);
	route_free(r);
	route_free(ra);
	topo_free(t);
}

/* The groups a deterministic route visits from router s to router d (a
 * router-to-router walk; *n_hops hops, *n_global of them global). */
static uint32_t walk_groups(const struct topo *t, const struct route *r, uint32_t s, uint32_t d, uint32_t a,
			    uint32_t *groups, uint32_t *n_hops, uint32_t *n_global)
{
	struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = d, .dst_ep = d * (t->n_endpoints / t->n_routers)};
	struct rng rng;
	struct route_cand c[ROUTE_MAX_CANDS];
	uint32_t cur = s, n_g = 0;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, s);
	groups[n_g++] = s / a;
	*n_hops = *n_global = 0;
	while (cur != d && *n_hops < 8) {
		CHECK_INT(r->ops->compute(r, cur, 0, 0, &pk, &rng, NULL, c), ==, 1);
		uint32_t g = t->port_base[cur] + c[0].port;
		uint32_t next = t->port_router[t->peer[g]];
		*n_global += topo_link_class(t, g) == TOPO_LINK_GLOBAL;
		pk.hops++;
		(*n_hops)++;
		cur = next;
		if (cur / a != groups[n_g - 1])
			groups[n_g++] = cur / a;
	}
	return n_g;
}

/* group_min (BookSim's min_dragonflynew) on dragonfly:a=4,p=2,h=2: every
 * pair takes at most local, global, local, never enters a third group,
 * uses VC 0 before the global hop and VC 1 from it on, and its CDG is
 * acyclic with 2 VCs; 1 VC is refused. Control: router-minimal `min`
 * does cross a third group for some pair, so the check can fail. */
static void test_group_min(void)
{
	struct topo *t = NULL;
	struct route *r = NULL, *m = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	CHECK_ERR(route_new("group_min", t, 1, &r, &e), NL_ECONFIG, &e,
		  "routing function 'group_min' needs num_vcs >= 2 (VC class 0 before the global hop, class 1 after "
		  "it, as BookSim's min_dragonflynew), got 1");
	CHECK_OK(route_new("group_min", t, 2, &r, &e), &e);
	CHECK_OK(route_new("min:select=first,classes=none", t, 2, &m, &e), &e);
	uint32_t a = 4, groups[16], hops, glob, min_third = 0, pairs = 0;
	for (uint32_t s = 0; s < t->n_routers; s++)
		for (uint32_t d = 0; d < t->n_routers; d++) {
			if (s == d)
				continue;
			uint32_t ng = walk_groups(t, r, s, d, a, groups, &hops, &glob);
			int same = s / a == d / a;
			CHECK_UINT(ng, ==, same ? 1u : 2u);
			CHECK_UINT(groups[ng - 1], ==, d / a);
			CHECK_UINT(glob, ==, same ? 0u : 1u);
			CHECK_UINT(hops, <=, same ? 1u : 3u);
			/* VC 0 up to the global hop, VC 1 from it on. */
			uint32_t seen_global = 0;
			uint32_t cur = s;
			struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = d};
			struct rng rng;
			struct route_cand c[ROUTE_MAX_CANDS];
			rng_init(&rng, 1, RNG_CLASS_ROUTER, s);
			for (uint32_t i = 0; i < hops; i++) {
				r->ops->compute(r, cur, 0, 0, &pk, &rng, NULL, c);
				uint32_t g = t->port_base[cur] + c[0].port;
				seen_global |= topo_link_class(t, g) == TOPO_LINK_GLOBAL;
				CHECK_UINT(c[0].vc_lo, ==, seen_global);
				CHECK_UINT(c[0].vc_hi, ==, seen_global);
				pk.hops++;
				cur = t->port_router[t->peer[g]];
			}
			/* Ejection on the packet's class, as BookSim's out_vc =
			 * f->ph: VC 1 after a global hop, VC 0 within a group. */
			CHECK_UINT(cur, ==, d);
			r->ops->compute(r, cur, 0, 0, &pk, &rng, NULL, c);
			CHECK_UINT(topo_link_class(t, t->port_base[cur] + c[0].port), ==, TOPO_LINK_TERMINAL);
			CHECK_UINT(c[0].vc_lo, ==, seen_global);
			CHECK_UINT(c[0].vc_hi, ==, seen_global);
			pairs++;
			min_third += walk_groups(t, m, s, d, a, groups, &hops, &glob) > 2;
		}
	CHECK_UINT(pairs, ==, 36u * 35u);
	CHECK(min_third > 0);
	route_free(m);
	route_free(r);
	topo_free(t);
	CHECK(check_routing("dragonfly:a=4,p=2,h=2", "group_min", 2, 0));
	CHECK(check_routing("dragonfly:a=4,p=1,h=1,g=3", "group_min", 4, 0));
	CHECK_OK(topo_new("torus:k=4x4", &t, &e), &e);
	CHECK_ERR(route_new("group_min", t, 2, &r, &e), NL_EUNSUPPORTED, &e, "does not run on topology 'torus'");
	topo_free(t);
}

/* group_min on dragonflies with parallel global links (g < a*h + 1: every
 * group pair joined by `rounds` consecutive links and up to three
 * circulant extras, topo_dragonfly.h): packets from the routers of group
 * G to those of T, walked with draws spread over [0, 2^32) (inject's
 * route_pkt.inter), cross every global link between the two groups and
 * no other, with one global hop, at most three hops, no third group, and
 * VC class 0 then 1; the CDG stays acyclic. Before, only the k = 0 link
 * (the gateway) carried a pair's traffic: 1 of 4 links with g = 3. With
 * g = a*h + 1 (one link per pair) nothing is drawn: inter stays 0. */
static void test_group_min_parallel(void)
{
	static const char *const specs[] = {
		"dragonfly:a=4,p=2,h=2,g=2", /* 8 links per pair, 2 per router */
		"dragonfly:a=4,p=2,h=2,g=3", /* 4 per pair, one per router */
		"dragonfly:a=4,p=2,h=2,g=5", /* 2 per pair: half the routers go local first */
		"dragonfly:a=4,p=2,h=2,g=6", /* rounds 1, extra 3 (odd, even g) */
		"dragonfly:a=4,p=1,h=3,g=6", /* rounds 2, extra 2 */
		"dragonfly:a=3,p=1,h=2,g=6", /* rounds 1, extra 1 (odd) */
		"dragonfly:a=6,p=1,h=2,g=8", /* rounds 1, extra 5 */
	};
	for (size_t c = 0; c < sizeof specs / sizeof *specs; c++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(specs[c], &t, &e), &e);
		CHECK_OK(route_new("group_min", t, 2, &r, &e), &e);
		uint32_t n_groups, a;
		CHECK(topo_groups(t, &n_groups, &a));
		uint32_t per_ep = t->n_endpoints / t->n_routers;
		/* used[g]: global port g carried a walk between its two groups. */
		uint8_t *used = calloc(t->n_ports, 1);
		uint32_t bad = 0;
		for (uint32_t s = 0; s < t->n_routers && !bad; s++)
			for (uint32_t d = 0; d < t->n_routers && !bad; d++) {
				if (s / a == d / a)
					continue;
				for (uint32_t k = 0; k < 64 && !bad; k++) {
					struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = d,
							       .dst_ep = d * per_ep,
							       .inter = (uint32_t)(((uint64_t)k << 32 | 1u << 31) / 64)};
					struct route_cand cd[ROUTE_MAX_CANDS];
					uint32_t cur = s, hops = 0, n_global = 0, cls = 0;
					while (cur != d && hops < 4) {
						CHECK_INT(r->ops->compute(r, cur, 0, 0, &pk, NULL, NULL, cd), ==, 1);
						uint32_t g = t->port_base[cur] + cd[0].port;
						uint32_t next = t->port_router[t->peer[g]];
						if (topo_link_class(t, g) == TOPO_LINK_GLOBAL) {
							n_global++;
							cls = 1;
							used[g] = 1;
						}
						bad += cd[0].vc_lo != cls || cd[0].vc_hi != cls;
						bad += next / a != s / a && next / a != d / a;
						pk.hops++;
						hops++;
						cur = next;
					}
					bad += cur != d || n_global != 1 || hops > 3;
					if (bad)
						TEST_FAIL_("%s: router %u to %u, draw %u: at %u after %u hops (%u global), VCs %u..%u",
							   specs[c], s, d, k, cur, hops, n_global, cd[0].vc_lo, cd[0].vc_hi);
				}
			}
		/* Every global link is used, in both directions: the walks
		 * cover every pair of groups. */
		uint32_t n_links = 0, n_used = 0;
		for (uint32_t g = 0; g < t->n_ports; g++)
			if (topo_port_is_network(t, g) && topo_link_class(t, g) == TOPO_LINK_GLOBAL) {
				n_links++;
				n_used += used[g];
			}
		CHECK(n_links > 0);
		if (n_used != n_links)
			TEST_FAIL_("%s: %u of %u global channels carry a group pair's packets, expected all", specs[c],
				   n_used, n_links);
		/* inject draws the link only where a pair has several. */
		struct rng rng;
		rng_init(&rng, 3, RNG_CLASS_ROUTER, 0);
		struct route_pkt pk = {.src_ep = 0, .dst_router = t->n_routers - 1, .dst_ep = t->n_endpoints - 1};
		uint8_t lo, hi;
		uint32_t draws = 0;
		for (int i = 0; i < 8; i++) {
			r->ops->inject(r, &pk, &rng, &lo, &hi);
			draws |= pk.inter;
		}
		CHECK(draws != 0);
		free(used);
		route_free(r);
		topo_free(t);
		CHECK(check_routing(specs[c], "group_min", 2, 0));
	}
	/* One link per pair: no draw, inter 0 (the k = 0 gateway, BookSim's). */
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	CHECK_OK(route_new("group_min", t, 2, &r, &e), &e);
	struct rng rng;
	rng_init(&rng, 3, RNG_CLASS_ROUTER, 0);
	struct route_pkt pk = {.src_ep = 0, .dst_router = 35, .dst_ep = 71, .inter = 5};
	uint8_t lo, hi;
	r->ops->inject(r, &pk, &rng, &lo, &hi);
	CHECK_UINT(pk.inter, ==, 0);
	CHECK_UINT(rng.ctr, ==, 0);
	route_free(r);
	topo_free(t);
}

/* Walk ugal:mode=booksim on the dragonfly from s to d with an empty
 * congestion view; with inter != UINT32_MAX the packet is set on its
 * Valiant phase towards router inter first (decision made, as at
 * injection). Returns the number of global hops; *off_path counts routers
 * outside the groups of s, inter and d; *eject_vc is the one ejection VC. */
static uint32_t walk_ugal_bs(const struct topo *t, const struct route *r, uint32_t s, uint32_t d, uint32_t inter,
			     uint32_t a, uint32_t *off_path, uint32_t *eject_vc)
{
	static const uint16_t zeros[64 * 3];
	const struct route_view v = {.occ_base = zeros, .occ_stride = sizeof zeros[0], .n_vcs = 3, .vc_buf_size = 8};
	struct route_pkt pk = {.src_ep = test_src_ep(t, s), .dst_router = d, .dst_ep = d * (t->n_endpoints / t->n_routers)};
	if (inter != UINT32_MAX) {
		pk.phase = 0;
		pk.inter = inter;
		pk.vc_class = 1; /* ugal.c's UGAL_DECIDED */
	}
	struct rng rng;
	struct route_cand c[ROUTE_MAX_CANDS];
	uint32_t cur = s, n_global = 0, hops = 0;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, s);
	*off_path = 0;
	/* Until the function ejects (a Valiant packet may pass through d). */
	while (hops < 12) {
		CHECK_INT(r->ops->compute(r, cur, 0, 0, &pk, &rng, &v, c), ==, 1);
		uint32_t g = t->port_base[cur] + c[0].port;
		if (topo_link_class(t, g) == TOPO_LINK_TERMINAL) {
			CHECK_UINT(c[0].vc_lo, ==, c[0].vc_hi);
			*eject_vc = c[0].vc_lo;
			break;
		}
		n_global += topo_link_class(t, g) == TOPO_LINK_GLOBAL;
		pk.hops++;
		hops++;
		cur = t->port_router[t->peer[g]];
		uint32_t G = cur / a;
		*off_path += G != s / a && G != d / a && (inter == UINT32_MAX || G != inter / a);
	}
	CHECK_UINT(cur, ==, d);
	return n_global;
}

/* ugal:mode=booksim routes every hop as BookSim's dragonfly_port:
 * group-minimal (local, global, local through the gateway), in the
 * minimal phase (one global hop, no third group) and towards and from
 * the intermediate (one global hop each). Control: netloom's
 * router-minimal `min` crosses a third group for some pair
 * (test_group_min), which is what the booksim mode did before. */
static void test_ugal_booksim_group_minimal(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("dragonfly:a=4,p=2,h=2", &t, &e), &e);
	CHECK_OK(route_new("ugal:mode=booksim", t, 3, &r, &e), &e);
	uint32_t a = 4, off, walks = 0, evc = 99;
	for (uint32_t s = 0; s < t->n_routers; s++)
		for (uint32_t d = 0; d < t->n_routers; d++) {
			if (s == d)
				continue;
			/* Empty queues: 0 <= 2 x 0 + 30, the minimal phase. */
			CHECK_UINT(walk_ugal_bs(t, r, s, d, UINT32_MAX, a, &off, &evc), ==, s / a == d / a ? 0u : 1u);
			CHECK_UINT(off, ==, 0);
			/* BookSim ejects on VC f->ph: 2 in the minimal phase. */
			CHECK_UINT(evc, ==, 2u);
			for (uint32_t x = 0; x < t->n_routers; x++) {
				if (x / a == s / a || x == d)
					continue;
				uint32_t glob = walk_ugal_bs(t, r, s, d, x, a, &off, &evc);
				CHECK_UINT(glob, ==, 1u + (x / a != d / a));
				CHECK_UINT(off, ==, 0);
				/* VC 2 after the minimal phase's global hop; VC 1
				 * when the intermediate is in d's group (no global
				 * hop left after it). */
				CHECK_UINT(evc, ==, x / a != d / a ? 2u : 1u);
				walks++;
			}
		}
	CHECK(walks > 1000);
	route_free(r);
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_min_defaults);
	TEST_RUN(test_nca_random);
	TEST_RUN(test_group_min);
	TEST_RUN(test_group_min_parallel);
	TEST_RUN(test_ugal_booksim_group_minimal);
	return test_done();
}
