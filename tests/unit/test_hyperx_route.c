/* Unit tests: the HyperX routing functions of seed 001 §3.3 (minad, dal,
 * closad, valiant on the HyperX family) and swap2 on HyperX coordinates,
 * each against the rule that defines it:
 *  - Min-AD offers only minimal ports on the adaptive VCs, plus the
 *    dimension-order escape on the escape VCs, and steers off a full port;
 *  - DAL never deroutes a dimension twice, never unaligns an aligned
 *    dimension, and offers deroutes below every minimal candidate and the
 *    escape below every deroute;
 *  - Clos-AD goes minimally on empty queues and, when the dimension-order
 *    port is full, through a lowest common ancestor (the source's
 *    coordinates below the lowest offset dimension);
 *  - Valiant goes by dimension order to its intermediate, then to the
 *    destination, each phase on its half of the VCs; with shortcut = 1
 *    (BookSim2's valiant_flatfly) a packet that meets its destination
 *    router on the way to the intermediate ejects there; on a full graph
 *    (L = 1) in at most 2 hops, on a hypercube fixing the lowest
 *    differing bit first;
 *  - swap2 on a HyperX is a permutation moving each endpoint by S/2 in
 *    dimension 0 (even) or 1 (odd);
 *  - minad, dal, closad and xyyx run on every family publishing the HyperX
 *    view (full, a HyperX with L = 1; hypercube, S = 2 in every
 *    dimension), minimally where they are minimal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/hyperx_route.h"
#include "route/route.h"
#include "topo/topo.h"
#include "topo/topo_hypercube.h"
#include "topo/topo_hyperx.h"
#include "traffic/traffic.h"
#include "test.h"

#include "route_check.h"

static int port_dim(const struct topo_hyperx *h, uint32_t port)
{
	if (port >= h->term_base)
		return -1;
	int d = 0;
	while (d + 1 < h->L && port >= h->port_base[d + 1])
		d++;
	return d;
}

/* The router across local port `port` of router a. */
static uint32_t across(const struct topo *t, uint32_t a, uint32_t port)
{
	return t->port_router[t->peer[t->port_base[a] + port]];
}

/* A view over per-(port, VC) occupancies of one router. */
static struct route_view view_of(const uint16_t *occ, uint32_t V, uint32_t buf)
{
	return (struct route_view){.occ_base = occ, .occ_stride = sizeof *occ, .n_vcs = V, .vc_buf_size = buf};
}

static void test_minad_minimal(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hyperx:s=4x3x3,k=1x2x1,t=2", &t, &e), &e);
	CHECK_OK(route_new("minad", t, 6, &r, &e), &e);
	const struct topo_hyperx *h = topo_hyperx_of(t);
	struct rng rng;
	rng_init(&rng, 7, RNG_CLASS_ROUTER, 0);
	uint32_t np = topo_router_ports(t, 0), V = 6, checked = 0;
	uint16_t *occ = calloc((size_t)np * V, sizeof *occ);
	for (uint32_t a = 0; a < t->n_routers; a++)
		for (uint32_t d = 0; d < t->n_routers; d++) {
			if (a == d)
				continue;
			for (size_t i = 0; i < (size_t)np * V; i++)
				occ[i] = (uint16_t)rng_below(&rng, 9);
			struct route_view v = view_of(occ, V, 8);
			struct route_pkt p = {.src_ep = topo_router_ep(t, a), .dst_router = d, .dst_ep = d * 2};
			struct route_cand c[ROUTE_MAX_CANDS];
			int n = r->ops->compute(r, a, h->term_base, 0, &p, &rng, &v, c);
			CHECK_INT(n, >=, 1);
			for (int k = 0; k < n; k++) {
				uint32_t b = across(t, a, c[k].port);
				if (topo_distance(t, b, d) + 1 != topo_distance(t, a, d))
					TEST_FAIL_("minad at %u to %u: port %u is not minimal", a, d, c[k].port);
				int esc = k == n - 1;
				CHECK_UINT(c[k].vc_lo, ==, esc ? 3u : 0u);
				CHECK_UINT(c[k].vc_hi, ==, esc ? 5u : 2u);
				if (esc) {
					/* The escape is dimension order: the lowest offset dimension. */
					int dd = 0;
					while (topo_hyperx_coord(h, a, dd) == topo_hyperx_coord(h, d, dd))
						dd++;
					CHECK_INT(port_dim(h, c[k].port), ==, dd);
					CHECK_INT(c[k].prio, <, c[0].prio + (n == 1));
				}
			}
			checked++;
		}
	CHECK(checked > 500);
	/* A full port is blocked: it drops below every unblocked minimal port
	 * and stays above the escape. */
	memset(occ, 0, (size_t)np * V * sizeof *occ);
	uint32_t a = 0, d = t->n_routers - 1; /* offset in every dimension */
	struct route_pkt p = {.src_ep = topo_router_ep(t, a), .dst_router = d, .dst_ep = d * 2};
	struct route_cand c[ROUTE_MAX_CANDS];
	struct route_view v = view_of(occ, V, 8);
	CHECK_INT(r->ops->compute(r, a, h->term_base, 0, &p, &rng, &v, c), ==, 4);
	uint32_t full = c[0].port;
	for (uint32_t vc = 0; vc < 3; vc++)
		occ[full * V + vc] = 8;
	int n = r->ops->compute(r, a, h->term_base, 0, &p, &rng, &v, c);
	CHECK_INT(n, ==, 4);
	for (int k = 0; k + 1 < n; k++)
		for (int j = 0; j + 1 < n; j++)
			if (c[k].port == full && c[j].port != full)
				CHECK_INT(c[k].prio, <, c[j].prio);
	for (int k = 0; k + 1 < n; k++)
		CHECK_INT(c[k].prio, >, c[n - 1].prio);
	free(occ);
	route_free(r);
	topo_free(t);
}

/* Follow every DAL path from a to d under random views, checking each
 * hop: a deroute stays offset in an unmarked dimension, nothing unaligns. */
static void dal_walk(const struct topo *t, const struct route *r, uint32_t a, uint32_t d, uint32_t in_port,
		     struct route_pkt p, uint32_t derouted, int hops, struct rng *rng, uint16_t *occ, uint32_t *paths)
{
	const struct topo_hyperx *h = topo_hyperx_of(t);
	uint32_t np = topo_router_ports(t, a), V = r->n_vcs;
	for (size_t i = 0; i < (size_t)np * V; i++)
		occ[i] = (uint16_t)(rng_below(rng, 4) ? 0 : 4); /* a quarter of the VCs blocked */
	struct route_view v = view_of(occ, V, 4);
	struct route_cand c[ROUTE_MAX_CANDS];
	int n = r->ops->compute(r, a, in_port, 0, &p, rng, &v, c);
	if (a == d) {
		(*paths)++;
		return;
	}
	if (hops > 2 * h->L) {
		TEST_FAIL_("dal: %d hops without arriving", hops);
		return;
	}
	CHECK_UINT(c[n - 1].vc_lo, ==, V / 2);
	for (int k = 0; k < n; k++) {
		uint32_t b = across(t, a, c[k].port);
		int dim = port_dim(h, c[k].port);
		uint32_t dr = derouted;
		for (int x = 0; x < h->L; x++)
			if (topo_hyperx_coord(h, a, x) == topo_hyperx_coord(h, d, x) &&
			    topo_hyperx_coord(h, b, x) != topo_hyperx_coord(h, d, x))
				TEST_FAIL_("dal: hop %u -> %u unaligns dimension %d", a, b, x);
		if (topo_hyperx_coord(h, b, dim) != topo_hyperx_coord(h, d, dim)) {
			/* A deroute: adaptive VCs, below every minimal candidate. */
			if (derouted & (1u << dim)) {
				TEST_FAIL_("dal: %u -> %u deroutes dimension %d a second time", a, b, dim);
				return;
			}
			dr |= 1u << dim;
			CHECK_UINT(c[k].vc_hi, <, V / 2);
			for (int j = 0; j < n; j++) {
				uint32_t bj = across(t, a, c[j].port);
				int dj = port_dim(h, c[j].port);
				/* Unblocked minimal ports rank above every deroute, blocked
				 * ones below (tier 1000) but above the escape. */
				if (topo_hyperx_coord(h, bj, dj) == topo_hyperx_coord(h, d, dj) && c[j].vc_lo == 0) {
					if (c[j].prio > 2000)
						CHECK_INT(c[j].prio, >, c[k].prio);
					else
						CHECK_INT(c[j].prio, >, c[n - 1].prio);
				}
			}
			CHECK_INT(c[k].prio, >, c[n - 1].prio);
		}
		dal_walk(t, r, b, d, t->peer[t->port_base[a] + c[k].port] - t->port_base[b], p, dr, hops + 1, rng, occ,
			 paths);
	}
}

static void test_dal_rules(void)
{
	static const char *const topos[] = {"hyperx:s=4x4,t=1", "hyperx:s=5x3x4,t=1", "hyperx:s=4x4,k=2,t=1"};
	for (size_t i = 0; i < sizeof topos / sizeof *topos; i++) {
		struct topo *t = NULL;
		struct route *r = NULL;
		struct nl_err e = {0};
		CHECK_OK(topo_new(topos[i], &t, &e), &e);
		CHECK_OK(route_new("dal", t, 6, &r, &e), &e);
		struct rng rng;
		rng_init(&rng, 3, RNG_CLASS_ROUTER, 0);
		uint16_t *occ = calloc((size_t)topo_router_ports(t, 0) * 6, sizeof *occ);
		uint32_t paths = 0;
		const struct topo_hyperx *h = topo_hyperx_of(t);
		for (uint32_t a = 0; a < t->n_routers; a += 3)
			for (uint32_t d = 0; d < t->n_routers; d += 2) {
				struct route_pkt p = {.src_ep = topo_router_ep(t, a), .dst_router = d, .dst_ep = d};
				uint8_t lo, hi;
				r->ops->inject(r, &p, &rng, &lo, &hi);
				dal_walk(t, r, a, d, h->term_base, p, 0, 0, &rng, occ, &paths);
			}
		CHECK(paths > 1000);
		free(occ);
		route_free(r);
		topo_free(t);
	}
	/* DAL on 9 dimensions would need more mark bits than the packet has. */
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hyperx:s=2x2x2x2x2x2x2x2,t=1", &t, &e), &e);
	CHECK_ERR(route_new("dal", t, 6, &r, &e), NL_ECONFIG, &e, "expected at most 7");
	CHECK_ERR(route_new("dal", t, 5, &r, &e), NL_ECONFIG, &e, "even num_vcs");
	topo_free(t);
}

/* On a K = 1 network DAL takes its closed-form candidate path
 * (dal_cands_k1); the general path (hxr_min_cands, dal_deroute,
 * hxr_escape) must give the same candidates, marks and random draws:
 * every router pair, every arrival port, random views with blocked
 * ports and ties, random marks, block thresholds 1 and 3, the queue
 * rule with random routed counts (route_view.gpend) and a deroute
 * threshold of its own (dqueue), 1 and 3 VCs per half; and so must the closed form reading the engine's per-port
 * sums (route_view.gasum, route.asum_vcs) instead of the VCs. On the
 * HyperX `topo`, draws from seed + the case's number. */
static void check_dal_k1_equals_general(const char *topo, uint64_t seed)
{
	static const char *const specs[] = {"dal", "dal:block=3", "dal:block=0,queue=2", "dal:block=0,queue=2,dqueue=3",
					    "dal:block=1,queue=3,dqueue=2"};
	static const uint32_t vcs[] = {2, 6};
	for (size_t si = 0; si < sizeof specs / sizeof *specs; si++)
		for (size_t vi = 0; vi < 2; vi++) {
			struct topo *t = NULL;
			struct route *r = NULL;
			struct nl_err e = {0};
			CHECK_OK(topo_new(topo, &t, &e), &e);
			CHECK_OK(route_new(specs[si], t, vcs[vi], &r, &e), &e);
			struct dal_state *st = r->state;
			CHECK(st->is_k1);
			const struct topo_hyperx *h = topo_hyperx_of(t);
			const uint32_t V = vcs[vi], np = topo_router_ports(t, 0);
			uint16_t *occ = calloc((size_t)np * V, sizeof *occ);
			uint32_t *asum = calloc(np + 8, sizeof *asum); /* route_view.gasum's padding */
			uint32_t *pend = calloc(np, sizeof *pend); /* sequential allocation's counts */
			CHECK_UINT(r->asum_vcs, ==, V / 2);
			struct rng rng;
			rng_init(&rng, seed + si * 2 + vi, RNG_CLASS_ROUTER, 0);
			uint32_t compared = 0, derouted = 0;
			for (uint32_t a = 0; a < t->n_routers; a++)
				for (uint32_t d = 0; d < t->n_routers; d++) {
					if (a == d)
						continue;
					for (size_t i = 0; i < (size_t)np * V; i++)
						occ[i] = (uint16_t)rng_below(&rng, 5);
					for (uint32_t j = 0; j < np; j++) {
						uint32_t sum = 0, full = 0;
						for (uint32_t vc = 0; vc < r->asum_vcs; vc++) {
							sum += occ[(size_t)j * V + vc];
							full += r->asum_full && occ[(size_t)j * V + vc] >= r->asum_full;
						}
						asum[j] = sum + route_asum_base(r->asum_vcs) + (full << 16);
					}
					if (r->needs_pend)
						for (uint32_t j = 0; j < np; j++)
							pend[j] = (uint32_t)rng_below(&rng, 5);
					struct route_view v = view_of(occ, V, 4), vs = v;
					if (r->needs_pend)
						v.gpend = vs.gpend = pend;
					vs.gasum = asum;
					uint32_t in = (uint32_t)rng_below(&rng, np);
					struct route_pkt p0 = {.src_ep = topo_router_ep(t, a), .dst_router = d, .dst_ep = d * 2,
							       .vc_class = (uint8_t)rng_below(&rng, 8)};
					struct route_pkt p[3] = {p0, p0, p0};
					struct route_cand c[3][ROUTE_MAX_CANDS];
					struct rng rr[3] = {rng, rng, rng};
					int n[3];
					for (int g = 0; g < 3; g++) { /* closed form, with the sums, general */
						st->is_k1 = g < 2;
						n[g] = r->ops->compute(r, a, in, 0, &p[g], &rr[g], g == 1 ? &vs : &v, c[g]);
					}
					st->is_k1 = true;
					const uint64_t next = rng_u64(&rr[0]);
					for (int g = 1; g < 3; g++) {
						CHECK_INT(n[0], ==, n[g]);
						CHECK_UINT(p[0].vc_class, ==, p[g].vc_class);
						CHECK(next == rng_u64(&rr[g]));
						for (int k = 0; k < n[0] && k < n[g]; k++) {
							CHECK_UINT(c[0][k].port, ==, c[g][k].port);
							CHECK_UINT(c[0][k].vc_lo, ==, c[g][k].vc_lo);
							CHECK_UINT(c[0][k].vc_hi, ==, c[g][k].vc_hi);
							CHECK_INT(c[0][k].prio, ==, c[g][k].prio);
						}
					}
					for (int k = 1; k + 1 < n[0]; k++)
						if (c[0][k].prio < c[0][0].prio)
							derouted++;
					compared++;
				}
			CHECK(compared == t->n_routers * (t->n_routers - 1));
			CHECK(derouted > 100);
			(void)h;
			free(pend);
			free(asum);
			free(occ);
			route_free(r);
			topo_free(t);
		}
}

/* The same, where a dimension's deroute scan takes the 8-port vector pass
 * (dal_scan_key8: 4x3x5) and where a dimension of 10 takes the scalar
 * one. */
static void test_dal_k1_equals_general(void)
{
	check_dal_k1_equals_general("hyperx:s=4x3x5,t=2", 17);
	check_dal_k1_equals_general("hyperx:s=10x3,t=2", 117);
}

/* min:select=first on an untrunked HyperX computes the lowest offset
 * dimension's port directly (min.c): the same port, and the same VC
 * range, as the lowest of topo_min_ports' list, for every router pair,
 * hop count and VC classing, on a HyperX with unequal sides, a flattened
 * butterfly and a hypercube. */
static void test_min_first_direct(void)
{
	const char *topos[] = {"hyperx:s=3x5x4,t=2", "flatfly:m=4,n=3", "hypercube:n=4"};
	const char *specs[] = {"min:select=first", "min:select=first,classes=hop"};
	for (int ti = 0; ti < 3; ti++) {
		struct nl_err e = {0};
		struct topo *t = NULL;
		CHECK_OK(topo_new(topos[ti], &t, &e), &e);
		uint32_t diam = 0;
		CHECK_OK(topo_diameter(t, &diam, &e), &e);
		for (int si = 0; si < 2; si++) {
			struct route *r = NULL;
			uint32_t nv = 2 * diam;
			CHECK_OK(route_new(specs[si], t, nv, &r, &e), &e);
			uint32_t checked = 0, bad = 0;
			for (uint32_t a = 0; a < t->n_routers; a++)
				for (uint32_t b = 0; b < t->n_routers; b++) {
					if (a == b)
						continue;
					uint32_t want;
					CHECK_UINT(topo_min_ports(t, a, b, 0, &want, 1), >=, 1);
					for (uint8_t hops = 0; hops < diam; hops++) {
						struct route_pkt p = {.src_ep = topo_router_ep(t, a), .dst_router = b, .hops = hops};
						struct route_cand c;
						CHECK_INT(r->ops->compute(r, a, 0, 0, &p, NULL, NULL, &c), ==, 1);
						uint32_t w = si ? nv / diam : 0;
						bad += c.port != want || c.prio != 0 ||
						       c.vc_lo != (si ? hops * w : 0) ||
						       c.vc_hi != (si ? hops * w + w - 1 : nv - 1);
						checked++;
					}
				}
			printf("  %s %s: %u computations, %u differ\n", topos[ti], specs[si], checked, bad);
			CHECK_UINT(bad, ==, 0);
			route_free(r);
		}
		topo_free(t);
	}
}

/* A fresh packet from router a (its first terminal) to router d through
 * closad's source decision and first hop: its candidate in *c, the
 * packet (phase 0: derouted) in *p. */
static void closad_first_hop(const struct route *r, uint32_t a, uint32_t d, struct rng *g, const struct route_view *v,
			     struct route_pkt *p, struct route_cand *c)
{
	const struct topo_hyperx *h = topo_hyperx_of(r->topo);
	uint8_t lo, hi;
	*p = (struct route_pkt){.src_ep = topo_router_ep(r->topo, a), .dst_router = d, .dst_ep = d};
	r->ops->inject(r, p, g, &lo, &hi);
	CHECK_INT(r->ops->compute(r, a, h->term_base, 0, p, g, v, c), ==, 1);
}

static void test_closad_choice(void)
{
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hyperx:s=4x4x4,t=1", &t, &e), &e);
	CHECK_OK(route_new("closad", t, 6, &r, &e), &e);
	const struct topo_hyperx *h = topo_hyperx_of(t);
	uint32_t np = topo_router_ports(t, 0), V = 6, nonmin = 0, trials = 0;
	uint16_t *occ = calloc((size_t)np * V, sizeof *occ);
	struct rng rng;
	rng_init(&rng, 11, RNG_CLASS_ROUTER, 0);
	for (uint32_t a = 0; a < t->n_routers; a += 5)
		for (uint32_t d = 0; d < t->n_routers; d += 3) {
			if (a == d)
				continue;
			struct route_pkt p;
			struct route_cand c[ROUTE_MAX_CANDS];
			/* Empty queues: minimal, dimension order, phase-1 VCs. */
			memset(occ, 0, (size_t)np * V * sizeof *occ);
			struct route_view v = view_of(occ, V, 32);
			closad_first_hop(r, a, d, &rng, &v, &p, c);
			CHECK_UINT(p.phase, ==, 1);
			CHECK_UINT(c[0].vc_lo, ==, 3);
			/* The dimension-order port full: through a lowest common
			 * ancestor, on the phase-0 VCs. */
			uint32_t dor = c[0].port;
			for (uint32_t vc = 0; vc < V; vc++)
				occ[dor * V + vc] = 32;
			closad_first_hop(r, a, d, &rng, &v, &p, c);
			trials++;
			int l = 0;
			while (topo_hyperx_coord(h, a, l) == topo_hyperx_coord(h, d, l))
				l++;
			if (p.phase == 0) {
				nonmin++;
				CHECK(c[0].port != dor);
				CHECK_UINT(c[0].vc_hi, ==, 2);
				for (int x = 0; x < l; x++)
					CHECK_UINT(topo_hyperx_coord(h, p.inter, x), ==, topo_hyperx_coord(h, a, x));
			}
		}
	/* Non-minimal unless the drawn ancestor's first hop is the same full
	 * port or the ancestor is the source or destination. */
	CHECK(nonmin * 2 > trials);
	free(occ);
	route_free(r);
	topo_free(t);
}

/* closad:queue=routed reads q as the flits routed to a port here and
 * not yet sent: a dimension-order port with a backlog routed to it here
 * and idle credits is derouted from, where the credit view (which adds
 * the routed count to the credits) stays minimal because every other
 * port's credits are used up. Refused without sequential allocation. */
static void test_closad_queue_routed(void)
{
	struct topo *t = NULL;
	struct route *routed = NULL, *credit = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hyperx:s=4x4x4,t=1", &t, &e), &e);
	CHECK_OK(route_new("closad:queue=routed", t, 6, &routed, &e), &e);
	CHECK_OK(route_new("closad", t, 6, &credit, &e), &e);
	CHECK(routed->needs_pend);
	CHECK(!credit->needs_pend);
	uint32_t np = topo_router_ports(t, 0), V = 6, nonmin = 0, trials = 0;
	uint16_t *occ = calloc((size_t)np * V, sizeof *occ);
	uint32_t *pend = calloc(np, sizeof *pend);
	struct rng g1, g2;
	rng_init(&g1, 13, RNG_CLASS_ROUTER, 0);
	rng_init(&g2, 13, RNG_CLASS_ROUTER, 0);
	for (uint32_t a = 0; a < t->n_routers; a += 7)
		for (uint32_t d = 1; d < t->n_routers; d += 5) {
			if (a == d)
				continue;
			struct route_pkt p, q;
			struct route_cand c[ROUTE_MAX_CANDS];
			memset(occ, 0, (size_t)np * V * sizeof *occ);
			memset(pend, 0, np * sizeof *pend);
			struct route_view v = view_of(occ, V, 32);
			v.gpend = pend; /* port_base 0: router a's ports */
			closad_first_hop(credit, a, d, &g1, &v, &p, c);
			const uint32_t dor = c[0].port;
			for (uint32_t port = 0; port < np; port++)
				for (uint32_t vc = 0; vc < V; vc++)
					occ[port * V + vc] = port == dor ? 0 : 32;
			pend[dor] = 8;
			closad_first_hop(credit, a, d, &g1, &v, &p, c);
			CHECK_UINT(p.phase, ==, 1); /* 8 x H_min <= 192 x H_nonmin */
			CHECK_UINT(c[0].port, ==, dor);
			closad_first_hop(routed, a, d, &g2, &v, &q, c);
			trials++;
			if (q.phase == 0) {
				nonmin++;
				CHECK(c[0].port != dor);
			}
		}
	/* Non-minimal unless the drawn ancestor's first hop is the same port
	 * or the ancestor is the source or destination. */
	CHECK(nonmin * 2 > trials);
	free(occ);
	free(pend);
	route_free(routed);
	route_free(credit);
	topo_free(t);
}

/* The lowest dimension in which routers a and b differ (the view's
 * coordinates), -1 when a == b. */
static int lowest_offset(const struct topo_hyperx *h, uint32_t a, uint32_t b)
{
	for (int d = 0; d < h->L; d++)
		if (h->coord[a * (uint32_t)h->L + d] != h->coord[b * (uint32_t)h->L + d])
			return d;
	return -1;
}

/* Walk a Valiant packet from router a to b through intermediate i; the
 * hop count, or -1 when a hop breaks the rules (not the lowest offset
 * dimension toward the phase's target, on a hypercube not the flip of
 * the lowest differing bit, a VC outside the phase's half). */
static int valiant_walk(const struct topo *t, const struct route *r, uint32_t a, uint32_t b, uint32_t i,
			const struct route_view *v)
{
	const struct topo_hyperx *h = topo_hyperx_of(t);
	uint32_t m = r->n_vcs / 2, at = a, in_port = UINT32_MAX;
	struct route_pkt p = {.src_ep = topo_router_ep(t, a), .dst_router = b, .inter = i, .phase = 0};
	for (int hops = 0; hops <= 2 * h->L; hops++) {
		struct route_cand c;
		if (r->ops->compute(r, at, in_port, 0, &p, NULL, v, &c) != 1)
			return -1;
		if (c.port >= h->term_base)
			return at == b ? hops : -1;
		uint32_t target = p.phase ? b : i;
		if (port_dim(h, c.port) != lowest_offset(h, at, target))
			return -1;
		if (c.vc_lo != (p.phase ? m : 0) || c.vc_hi != (p.phase ? 2 * m - 1 : m - 1))
			return -1;
		uint32_t next = across(t, at, c.port), diff = at ^ target;
		if (topo_hypercube_of(t) && next != (at ^ (diff & (0u - diff))))
			return -1;
		in_port = t->peer[t->port_base[at] + c.port] - t->port_base[next];
		at = next;
	}
	return -1;
}

/* Every (source, destination, intermediate) triple of routers on `topo`:
 * plain valiant walks dimension order to the intermediate, then to the
 * destination (hops: the two offset-dimension counts); shortcut = 1 walks
 * the same path cut at its first visit to the destination. Returns the
 * walks the shortcut shortened. */
static uint32_t valiant_walk_all(const char *topo)
{
	struct topo *t = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new(topo, &t, &e), &e);
	if (!t)
		return 0;
	const struct topo_hyperx *h = topo_hyperx_of(t);
	uint32_t np = topo_router_ports(t, 0), V = 4;
	uint16_t *occ = calloc((size_t)np * V, sizeof *occ);
	struct route_view v = view_of(occ, V, 4);
	struct route *plain = NULL, *cut = NULL;
	CHECK_OK(route_new("valiant", t, V, &plain, &e), &e);
	CHECK_OK(route_new("valiant:shortcut=1", t, V, &cut, &e), &e);
	uint32_t walks = 0, bad = 0, shorter = 0, longest = 0;
	for (uint32_t a = 0; a < t->n_routers && plain && cut; a++)
		for (uint32_t b = 0; b < t->n_routers; b++)
			for (uint32_t i = 0; i < t->n_routers; i++) {
				int hp = valiant_walk(t, plain, a, b, i, &v), hc = valiant_walk(t, cut, a, b, i, &v);
				walks++;
				uint32_t dai = 0, dib = 0, dab = 0;
				for (int d = 0; d < h->L; d++) {
					uint32_t ca = h->coord[a * (uint32_t)h->L + d], cb = h->coord[b * (uint32_t)h->L + d],
						 ci = h->coord[i * (uint32_t)h->L + d];
					dai += ca != ci;
					dib += ci != cb;
					dab += ca != cb;
				}
				bad += hp != (int)(dai + dib) || hc < 0 || hc > hp || (hc < hp && hc != (int)dab);
				shorter += hc >= 0 && hc < hp;
				longest = hp > (int)longest ? (uint32_t)hp : longest;
			}
	printf("  valiant on %s: %u walks, %u wrong, %u shortened by the shortcut, longest %u hops\n", topo, walks, bad,
	       shorter, longest);
	CHECK_UINT(walks, ==, t->n_routers * t->n_routers * t->n_routers);
	CHECK_UINT(bad, ==, 0);
	CHECK_UINT(longest, ==, 2 * (uint32_t)h->L);
	route_free(plain);
	route_free(cut);
	free(occ);
	topo_free(t);
	return shorter;
}

static void test_valiant_shortcut(void)
{
	CHECK_UINT(valiant_walk_all("hyperx:s=4x3x3,t=1"), >, 0);
}

/* valiant on the families that publish the HyperX view without being
 * named hyperx or flatfly (it was refused there: "routing function
 * 'valiant' does not run on topology 'hypercube' (it supports: torus,
 * mesh, hyperx, flatfly)"). On a full graph (L = 1) a packet takes at
 * most 2 hops, and the shortcut shortens exactly the n (n - 1) walks
 * whose destination router is their source and whose intermediate is
 * another router (the one hop to an intermediate never passes another
 * router); on a hypercube each phase fixes the lowest differing bit
 * first, and the path to the intermediate may cross the destination. */
static void test_valiant_view_families(void)
{
	CHECK_UINT(valiant_walk_all("full:n=8"), ==, 8 * 7);
	CHECK_UINT(valiant_walk_all("full:n=6,k=2"), ==, 6 * 5);
	CHECK_UINT(valiant_walk_all("hypercube:n=4"), >, 0);
}

static void test_swap2_hyperx(void)
{
	struct topo *t = NULL;
	struct traffic *tr = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hyperx:s=8x8x8,t=8", &t, &e), &e);
	CHECK_OK(traffic_new("swap2", t, 1, &tr, &e), &e);
	const struct topo_hyperx *h = topo_hyperx_of(t);
	uint8_t *hit = calloc(t->n_endpoints, 1);
	struct rng rng;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, 0);
	for (uint32_t s = 0; s < t->n_endpoints; s++) {
		uint32_t d = tr->ops->dest(tr, s, &rng);
		CHECK_UINT(d, <, t->n_endpoints);
		hit[d]++;
		uint32_t a = s / 8, b = d / 8;
		CHECK_UINT(s % 8, ==, d % 8);
		for (int x = 0; x < 3; x++) {
			uint32_t ca = topo_hyperx_coord(h, a, x), cb = topo_hyperx_coord(h, b, x);
			CHECK_UINT(cb, ==, x == (int)(s & 1) ? (ca + 4) % 8 : ca);
		}
	}
	for (uint32_t d = 0; d < t->n_endpoints; d++)
		CHECK_UINT(hit[d], ==, 1);
	free(hit);
	traffic_free(tr);
	topo_free(t);
}

/* swap2 with a HyperX numbering (s, t) on a topology without coordinates
 * (§4.1's Fig. 7 folded Clos): the same pairs as swap2 on that HyperX. */
static void test_swap2_numbering(void)
{
	struct topo *hx = NULL, *clos = NULL;
	struct traffic *a = NULL, *b = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hyperx:s=8x8x8,t=8", &hx, &e), &e);
	CHECK_OK(topo_new("clos:l=3,r=32,n=4096,taper=2x1,pack=1", &clos, &e), &e);
	CHECK_UINT(clos->n_endpoints, ==, hx->n_endpoints);
	CHECK_OK(traffic_new("swap2", hx, 1, &a, &e), &e);
	CHECK_OK(traffic_new("swap2:s=8x8x8,t=8", clos, 1, &b, &e), &e);
	struct rng rng;
	rng_init(&rng, 1, RNG_CLASS_ROUTER, 0);
	for (uint32_t s = 0; s < hx->n_endpoints; s++)
		CHECK_UINT(b->ops->dest(b, s, &rng), ==, a->ops->dest(a, s, &rng));
	traffic_free(a);
	traffic_free(b);
	/* A numbering that does not cover the endpoints, or one dimension. */
	CHECK_ERR(traffic_new("swap2:s=8x8x8,t=4", clos, 1, &b, &e), NL_ECONFIG, &e,
		  "s x t numbers 2048 endpoints; the topology has 4096");
	CHECK_ERR(traffic_new("swap2:s=512,t=8", clos, 1, &b, &e), NL_ECONFIG, &e, "s has 1 dimension");
	CHECK_ERR(traffic_new("swap2", clos, 1, &b, &e), NL_EUNSUPPORTED, &e, "or a numbering, e.g. swap2:s=8x8x8,t=8");
	/* s without t: refused, not dropped for the HyperX's own coordinates
	 * (on an 8x8 torus s=4x4x4 paired the torus's endpoints). */
	CHECK_ERR(traffic_new("swap2:s=8x8x8", hx, 1, &b, &e), NL_ECONFIG, &e,
		  "traffic 'swap2': s=8x8x8 needs t, the endpoints per switch of that numbering");
	CHECK_ERR(traffic_new("swap2:s=4x4x4", clos, 1, &b, &e), NL_ECONFIG, &e, "expected e.g. swap2:s=4x4x4,t=1");
	/* t without s: named as missing, not as a one-dimension s. */
	CHECK_ERR(traffic_new("swap2:t=8", clos, 1, &b, &e), NL_ECONFIG, &e,
		  "traffic 'swap2': t=8 needs s, the HyperX switches per dimension of that numbering (t=0, the default, "
		  "takes the topology's own coordinates and no s); expected e.g. swap2:s=8x8x8,t=8");
	CHECK_ERR(traffic_new("swap2:t=8", hx, 1, &b, &e), NL_ECONFIG, &e, "t=8 needs s");
	topo_free(hx);
	topo_free(clos);
}

/* The hop count of the path a packet from router a to router d takes
 * when every router prefers its highest-priority candidate (what a
 * by-priority VC allocator takes first) under an empty view; each hop
 * must bring it one closer to d. */
static uint32_t preferred_hops(const struct topo *t, const struct route *r, uint32_t a, uint32_t d, struct rng *rng,
			       const uint16_t *occ)
{
	struct route_pkt p = {.src_ep = topo_router_ep(t, a), .dst_router = d, .dst_ep = topo_router_ep(t, d)};
	uint8_t lo, hi;
	r->ops->inject(r, &p, rng, &lo, &hi);
	uint32_t at = a, in = topo_hyperx_of(t)->term_base, hops = 0;
	struct route_view v = view_of(occ, r->n_vcs, 8);
	while (at != d && hops <= 2 * t->n_routers) {
		struct route_cand c[ROUTE_MAX_CANDS];
		p.hops = (uint8_t)hops;
		int n = r->ops->compute(r, at, in, 0, &p, rng, &v, c);
		uint32_t port = route_cands_preferred(c, (uint32_t)n), next = across(t, at, port);
		if (topo_distance(t, next, d) + 1 != topo_distance(t, at, d))
			TEST_FAIL_("%s on %s: %u -> %u: port %u at router %u is not minimal", r->spec, t->spec, a, d, port, at);
		in = t->peer[t->port_base[at] + port] - t->port_base[next];
		at = next;
		hops++;
	}
	return hops;
}

/* minad, dal, closad and xyyx on the families that publish the HyperX
 * view without being named hyperx or flatfly (they were refused there:
 * "routing function 'dal' does not run on topology 'hypercube' (it
 * supports: hyperx, flatfly)"): a full graph is a HyperX with L = 1 (k:
 * its trunks), a hypercube one with S = 2 in every dimension. Under an
 * empty view the preferred path of every router pair is a shortest one;
 * minad and xyyx, and dal on the hypercube (S = 2 leaves it no
 * coordinate to deroute to), offer only minimal ports under any view, so
 * every path walked under a congested one is shortest. The dimension
 * count is the view's: dal refuses a hypercube of 8 dimensions as a
 * HyperX of 8. */
static void test_hyperx_view_families(void)
{
	static const char *const topos[] = {"hypercube:n=4", "full:n=8", "full:n=6,k=2"};
	static const char *const specs[] = {"minad", "dal", "closad", "xyyx"};
	for (size_t ti = 0; ti < sizeof topos / sizeof *topos; ti++)
		for (size_t si = 0; si < sizeof specs / sizeof *specs; si++) {
			struct topo *t = NULL;
			struct route *r = NULL;
			struct nl_err e = {0};
			CHECK_OK(topo_new(topos[ti], &t, &e), &e);
			if (route_new(specs[si], t, 4, &r, &e) < 0) {
				TEST_FAIL_("%s on %s: %s", specs[si], topos[ti], e.msg);
				topo_free(t);
				continue;
			}
			uint16_t *occ = calloc((size_t)topo_router_ports(t, 0) * 4, sizeof *occ);
			struct rng rng;
			rng_init(&rng, 5, RNG_CLASS_ROUTER, 0);
			uint32_t pairs = 0;
			for (uint32_t a = 0; a < t->n_routers; a++)
				for (uint32_t d = 0; d < t->n_routers; d++, pairs++)
					CHECK_UINT(preferred_hops(t, r, a, d, &rng, occ), ==, topo_distance(t, a, d));
			CHECK_UINT(pairs, ==, t->n_routers * t->n_routers);
			int always_minimal = !strcmp(specs[si], "minad") || !strcmp(specs[si], "xyyx") ||
					     (!strcmp(specs[si], "dal") && topo_hypercube_of(t));
			if (always_minimal) {
				char what[128];
				snprintf(what, sizeof what, "%s on %s", specs[si], topos[ti]);
				struct walk_opts o = {.minimal = 1, .with_view = 1, .seeds = 2};
				check_route(t, r, what, &o);
			}
			free(occ);
			route_free(r);
			topo_free(t);
		}
	struct topo *t = NULL;
	struct route *r = NULL;
	struct nl_err e = {0};
	CHECK_OK(topo_new("hypercube:n=8", &t, &e), &e);
	CHECK_ERR(route_new("dal", t, 4, &r, &e), NL_ECONFIG, &e,
		  "routing function 'dal': 8 dimensions; expected at most 7");
	CHECK_OK(route_new("minad", t, 4, &r, &e), &e);
	CHECK_UINT(r ? r->max_cands : 0, ==, 9);
	route_free(r);
	topo_free(t);
}

int main(void)
{
	TEST_RUN(test_minad_minimal);
	TEST_RUN(test_swap2_numbering);
	TEST_RUN(test_dal_rules);
	TEST_RUN(test_dal_k1_equals_general);
	TEST_RUN(test_min_first_direct);
	TEST_RUN(test_closad_choice);
	TEST_RUN(test_closad_queue_routed);
	TEST_RUN(test_valiant_shortcut);
	TEST_RUN(test_valiant_view_families);
	TEST_RUN(test_swap2_hyperx);
	TEST_RUN(test_hyperx_view_families);
	return test_done();
}
