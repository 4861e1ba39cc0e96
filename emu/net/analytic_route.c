/* The analytic backend's minimal routes (backend_analytic.c's header
 * comment says which): dimension order on grids, elsewhere one of the
 * equal-cost next hops by path_select (ECMP's flow hash, or the first);
 * router distances from the topology or, on irregular graphs, a table;
 * and a message's route with when it enters each channel. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "net/analytic_internal.h"
#include "topo/topo.h"

#define ANALYTIC_DIST_MAX_ROUTERS 4096u
#define ANALYTIC_ECMP_MAX 64u /* equal-cost next hops kept per router without a second scan */

int analytic_build_dist(struct analytic *a, struct nl_err *err)
{
	const struct topo *t = a->t;
	/* Grids route by dimension order; families with minimal next hops
	 * (their own list, or a closed-form distance) walk those. */
	if (a->dist || t->grid || topo_has_min_ports(t))
		return 0;
	uint32_t n = t->n_routers;
	if (n > ANALYTIC_DIST_MAX_ROUTERS)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "analytic backend: topology '%s' has %" PRIu32
			       " routers and no closed-form distance; at most %u are supported",
			       t->spec, n, ANALYTIC_DIST_MAX_ROUTERS);
	a->dist = malloc((size_t)n * n * sizeof *a->dist);
	uint32_t *d = malloc((size_t)n * sizeof *d), *q = malloc((size_t)n * sizeof *q);
	if (!a->dist || !d || !q) {
		free(d);
		free(q);
		return nl_errf(err, NL_ENOMEM, "analytic backend: out of memory for %" PRIu32 " routers", n);
	}
	for (uint32_t s = 0; s < n; s++) {
		topo_bfs(t, s, d, q);
		for (uint32_t r = 0; r < n; r++)
			a->dist[(size_t)s * n + r] = d[r] > UINT16_MAX ? UINT16_MAX : (uint16_t)d[r];
	}
	free(d);
	free(q);
	return 0;
}

uint32_t analytic_router_distance(const struct analytic *a, uint32_t x, uint32_t y)
{
	const struct topo *t = a->t;
	if (a->dist)
		return a->dist[(size_t)x * t->n_routers + y];
	if (t->ops->distance || !topo_has_min_ports(t))
		return topo_distance(t, x, y);
	/* A family with minimal next hops but no closed-form distance (fat
	 * trees, Clos): each listed port is one hop closer, so the walk
	 * along the first is a shortest path, without the all-pairs table
	 * that capped these networks at ANALYTIC_DIST_MAX_ROUTERS. */
	uint32_t h = 0;
	while (x != y) {
		uint32_t port;
		if (topo_min_ports(t, x, y, 0, &port, 1) == 0)
			NL_BUG("analytic: no minimal next hop from router %" PRIu32 " to %" PRIu32, x, y);
		x = t->port_router[t->peer[t->port_base[x] + port]];
		h++;
	}
	return h;
}

static int analytic_route_push(struct analytic *a, size_t *n, uint32_t chan)
{
	if (*n == a->cap_route) {
		size_t cap = a->cap_route ? 2 * a->cap_route : 64;
		uint32_t *r = realloc(a->route, cap * sizeof *r);
		if (!r)
			return NL_ENOMEM;
		a->route = r;
		uint64_t *o = realloc(a->off, cap * sizeof *o);
		if (!o)
			return NL_ENOMEM;
		a->off = o;
		a->cap_route = cap;
	}
	a->route[(*n)++] = chan;
	return 0;
}

/* ECMP's flow hash: (source endpoint, destination endpoint) and the
 * router, mixed by the splitmix64 finaliser (Steele et al., OOPSLA 2014)
 * so nearby endpoint numbers land far apart. */
static uint32_t analytic_flow_hash(uint64_t flow, uint32_t router)
{
	uint64_t x = flow ^ ((uint64_t)router * 0x9e3779b97f4a7c15u);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	x ^= x >> 31;
	return (uint32_t)(x >> 32);
}

/* Which of m equal-cost next hops at router r the flow takes, by
 * path_select: spread, hash-threshold (RFC 2992): region k of m equal
 * regions; first, the lowest port (index 0). */
static uint32_t analytic_ecmp_pick(const struct analytic *a, uint64_t flow, uint32_t r, uint32_t m)
{
	if (a->p.path_select != ANALYTIC_PATH_SPREAD || m < 2)
		return 0;
	return (uint32_t)(((uint64_t)analytic_flow_hash(flow, r) * m) >> 32);
}

/* The next hop (global port) from router r toward dst, `left` hops away,
 * on a topology with neither its own minimal next hops nor a closed-form
 * distance (graph files, random and permuted networks): the network ports
 * of r whose far end is one hop closer by analytic_build_dist's table. */
static uint32_t analytic_next_hop_scan(const struct analytic *a, uint32_t r, uint32_t dst, uint32_t left,
				       uint64_t flow)
{
	const struct topo *t = a->t;
	bool spread = a->p.path_select == ANALYTIC_PATH_SPREAD;
	/* One scan: the closer ports, the first ANALYTIC_ECMP_MAX of them
	 * kept on the stack (no allocation per message); only a router with
	 * more closer ports than that is scanned again to reach the one the
	 * hash picks. */
	uint32_t cand[ANALYTIC_ECMP_MAX], m = 0;
	uint32_t lo = t->port_base[r], hi = t->port_base[r + 1];
	for (uint32_t gp = lo; gp < hi; gp++) {
		if (!topo_port_is_network(t, gp) ||
		    analytic_router_distance(a, t->port_router[t->peer[gp]], dst) + 1 != left)
			continue;
		if (m < ANALYTIC_ECMP_MAX)
			cand[m] = gp;
		m++;
		if (!spread)
			break;
	}
	if (m == 0)
		NL_BUG("analytic: no minimal next hop from router %" PRIu32 " to %" PRIu32, r, dst);
	uint32_t k = analytic_ecmp_pick(a, flow, r, m);
	if (k < ANALYTIC_ECMP_MAX)
		return cand[k];
	for (uint32_t gp = cand[ANALYTIC_ECMP_MAX - 1] + 1; gp < hi; gp++)
		if (topo_port_is_network(t, gp) &&
		    analytic_router_distance(a, t->port_router[t->peer[gp]], dst) + 1 == left &&
		    k-- == ANALYTIC_ECMP_MAX)
			return gp;
	NL_BUG("analytic: router %" PRIu32 " lost a minimal next hop to %" PRIu32, r, dst);
}

/* The same next hop from topo_min_ports: the closer ports in increasing
 * order, the list the scan finds, element by element. Families that list
 * their next hops in closed form (dragonfly, HyperX, Slim Fly, trees,
 * FleX) skip a distance per port of r, which on a dragonfly is most of a
 * replay's time; the others with a closed-form distance are scanned by
 * topo_min_ports itself. */
static uint32_t analytic_next_hop_listed(const struct analytic *a, uint32_t r, uint32_t dst, uint64_t flow)
{
	const struct topo *t = a->t;
	uint32_t cand[ANALYTIC_ECMP_MAX];
	uint32_t cap = a->p.path_select == ANALYTIC_PATH_SPREAD ? ANALYTIC_ECMP_MAX : 1;
	uint32_t m = topo_min_ports(t, r, dst, 0, cand, cap);
	if (m == 0)
		NL_BUG("analytic: no minimal next hop from router %" PRIu32 " to %" PRIu32, r, dst);
	uint32_t k = analytic_ecmp_pick(a, flow, r, m);
	if (k >= cap) {
		topo_min_ports(t, r, dst, k, cand, 1);
		k = 0;
	}
	return t->port_base[r] + cand[k];
}

/* Router-to-router channels (global port ids) of the minimal route from
 * router `r` to router `dst` for the flow `flow` (source endpoint << 32 |
 * destination endpoint): dimension order on grids (shorter way round a
 * ring, + on a tie), otherwise at each router one of the ports that bring
 * the message one hop closer, chosen by path_select (backend_analytic.c's
 * header comment). Appends channel ids offset by `base`. */
static int analytic_route_routers(struct analytic *a, uint32_t r, uint32_t dst, uint64_t flow, size_t *n,
				  size_t base)
{
	const struct topo *t = a->t;
	const struct topo_grid *g = t->grid;
	if (g) {
		for (int d = 0; d < g->n_dims; d++) {
			uint32_t k = g->k[d];
			for (;;) {
				uint32_t c = topo_grid_coord(g, r, d), want = topo_grid_coord(g, dst, d);
				if (c == want)
					break;
				uint32_t fwd = (want + k - c) % k; /* steps in + direction on a ring */
				bool plus = g->wrap[d] ? fwd <= k - fwd : want > c;
				uint32_t gp = t->port_base[r] + (uint32_t)(2 * d + (plus ? 0 : 1));
				NL_CHECK(analytic_route_push(a, n, (uint32_t)(base + gp)));
				r = t->port_router[t->peer[gp]];
			}
		}
		return 0;
	}
	if (topo_has_min_ports(t)) {
		while (r != dst) {
			uint32_t via = analytic_next_hop_listed(a, r, dst, flow);
			NL_CHECK(analytic_route_push(a, n, (uint32_t)(base + via)));
			r = t->port_router[t->peer[via]];
		}
		return 0;
	}
	for (uint32_t left = analytic_router_distance(a, r, dst); left > 0; left--) {
		uint32_t via = analytic_next_hop_scan(a, r, dst, left, flow);
		NL_CHECK(analytic_route_push(a, n, (uint32_t)(base + via)));
		r = t->port_router[t->peer[via]];
	}
	return 0;
}

/* The minimal route's router-to-router channels from src_ep to dst_ep:
 * their global ports in a->route[0, *h), the time from leaving the
 * source's router to entering each in a->off[] (one hop latency per
 * router plus the cables crossed before it), and *path_ps, the time to
 * the destination's router (h hop latencies plus every cable). */
int analytic_path(struct analytic *a, uint32_t src_ep, uint32_t dst_ep, size_t *h, uint64_t *path_ps)
{
	const struct topo *t = a->t;
	*h = 0;
	NL_CHECK(analytic_route_routers(a, topo_ep_router(t, src_ep), topo_ep_router(t, dst_ep),
					(uint64_t)src_ep << 32 | dst_ep, h, 0));
	uint64_t at = 0;
	for (size_t j = 0; j < *h; j++) {
		at += a->hop_ps;
		a->off[j] = at;
		if (a->link_ps)
			at += a->link_ps[a->route[j]];
	}
	*path_ps = at;
	return 0;
}
