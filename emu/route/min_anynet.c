/* min_anynet: BookSim2's routing table on its anynet network,
 * "min_anynet:classes=auto" (routefunc min with topology = anynet;
 * networks/anynet.cpp, route() and min_anynet()).
 *
 * Every router holds one output port per destination router: the first
 * hop of the shortest path by channel latency (the anynet file's
 * per-direction latencies, topo link_latency), found by a Dijkstra per
 * source router with BookSim's tie-breaks, so the paths are its paths:
 * routers are settled in increasing (distance, router id), and a router's
 * predecessor changes only on a strictly shorter distance (the first
 * settled router reaching the final distance keeps it). Tables are
 * independent per router, as BookSim's: a packet follows each router's
 * own choice, and the latency to its destination strictly falls at every
 * hop (a first hop of a shortest path from r leads to a router whose own
 * shortest distance is smaller by that channel's latency >= 1), so no
 * route loops. One path per destination: no path diversity. O(R^2)
 * two-byte entries (at most 8,192 routers: 128 MiB), O(R (E + R) log R)
 * to build.
 *
 * Deadlock freedom. BookSim gives every hop every VC (classes=none), which
 * is deadlock-free exactly when the channel dependency graph of the table
 * is acyclic (Dally & Towles §14.1): true on trees, stars and small
 * networks whose routes never chain around a cycle (BookSim's own
 * 3-router example), false in general (shortest paths around a ring of
 * five or more routers depend on each other cyclically), and BookSim
 * itself may then deadlock at high load. init builds that graph (a
 * dependency c1 -> c2 for every router pair whose route turns from c1 into
 * c2; conservative: routers not on any route add theirs too) and
 * `classes=auto` (the default) keeps BookSim's every-VC rule when it is
 * acyclic, else uses one VC class per router-to-router hop (class h on
 * hop h, so every dependency goes from class h to h+1: acyclic), which
 * needs num_vcs >= the longest route in hops. `classes=none` is BookSim's
 * rule whatever the graph (what `netloom config --from-booksim` writes,
 * so a run deadlocks where BookSim's would; the watchdog reports it);
 * `classes=hop` forces the classes. The ejection hop uses every VC.
 */
#include "route/route.h"
#include "route/route_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "topo/topo.h"

enum { MA_CLASSES_AUTO, MA_CLASSES_NONE, MA_CLASSES_HOP };
static const char *const ma_classes_names[] = {"auto", "none", "hop", NULL};

struct ma_params {
	int classes;
};

static const struct param_def ma_params_def[] = {
	{"classes", PARAM_CHOICE, offsetof(struct ma_params, classes), "auto", 0, 0,
	 "none (BookSim: every VC on every hop, which can deadlock where the table's channel dependencies "
	 "are cyclic), hop (one VC class per hop), auto (none when the table's "
	 "channel dependencies are acyclic, else hop)",
	 ma_classes_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

#define MA_MAX_ROUTERS 8192u

static const char *const ma_families[] = {"anynet", NULL};

struct ma_state {
	uint16_t *next;      /* [r * n + d] local output port of r toward router d (r != d) */
	uint32_t n;          /* routers */
	uint32_t max_hops;   /* longest route in router-to-router hops */
	uint32_t class_w;    /* VCs per hop class, 0 = every VC on every hop */
	bool acyclic;        /* the table's channel dependency graph is acyclic */
};

/* Binary min-heap of (distance, router), lazy deletion. */
struct ma_heap {
	uint64_t *key; /* distance << 32 | router: orders by (distance, id) */
	size_t n, cap;
};

static int ma_heap_push(struct ma_heap *h, uint64_t k)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 256;
		uint64_t *q = realloc(h->key, nc * sizeof *q);
		if (!q)
			return -1;
		h->key = q;
		h->cap = nc;
	}
	size_t i = h->n++;
	while (i && h->key[(i - 1) / 2] > k) {
		h->key[i] = h->key[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->key[i] = k;
	return 0;
}

static uint64_t ma_heap_pop(struct ma_heap *h)
{
	uint64_t top = h->key[0], k = h->key[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->key[c + 1] < h->key[c])
			c++;
		if (h->key[c] >= k)
			break;
		h->key[i] = h->key[c];
		i = c;
	}
	if (h->n)
		h->key[i] = k;
	return top;
}

/* One source's row: BookSim's Dijkstra (see the file header). dist and
 * first are n-entry scratch; first[v] = src's local port toward v. */
static int ma_row(const struct topo *t, const uint16_t *lat, uint32_t src, uint64_t *dist, uint32_t *first,
		  uint8_t *done, struct ma_heap *h, uint16_t *row)
{
	uint32_t n = t->n_routers;
	for (uint32_t v = 0; v < n; v++) {
		dist[v] = UINT64_MAX;
		done[v] = 0;
	}
	dist[src] = 0;
	h->n = 0;
	if (ma_heap_push(h, (uint64_t)src) < 0)
		return -1;
	while (h->n) {
		uint64_t k = ma_heap_pop(h);
		uint32_t u = (uint32_t)k;
		if (done[u] || (k >> 32) != dist[u])
			continue;
		done[u] = 1;
		for (uint32_t g = t->port_base[u]; g < t->port_base[u + 1]; g++) {
			if (!topo_port_is_network(t, g))
				continue;
			uint32_t v = t->port_router[t->peer[g]];
			uint64_t nd = dist[u] + lat[g];
			if (nd < dist[v]) {
				dist[v] = nd;
				first[v] = u == src ? g - t->port_base[u] : first[u];
				if (ma_heap_push(h, nd << 32 | v) < 0)
					return -1;
			}
		}
	}
	for (uint32_t v = 0; v < n; v++)
		row[v] = v == src ? UINT16_MAX : (uint16_t)first[v];
	return 0;
}

/* Router at the far end of local port p of router r. */
static uint32_t ma_far(const struct topo *t, uint32_t r, uint32_t p)
{
	return t->port_router[t->peer[t->port_base[r] + p]];
}

/* Is the channel dependency graph of the table acyclic? Channels are the
 * global network ports; c1 = (a -> b) depends on (b -> next(b, d)) for
 * every destination d != b holding endpoints with next(a, d) = c1.
 * Iterative depth-first search, O(channels x routers) time. */
static int ma_acyclic(const struct topo *t, const struct ma_state *s, bool *acyclic)
{
	uint32_t n = s->n, P = t->n_ports;
	uint8_t *color = calloc(P, 1), *has_ep = calloc(n, 1);
	uint32_t *stk_g = malloc((size_t)P * sizeof *stk_g), *stk_d = malloc((size_t)P * sizeof *stk_d);
	int rc = 0;
	if (!color || !has_ep || !stk_g || !stk_d) {
		rc = -1;
		goto out;
	}
	for (uint32_t d = 0; d < n; d++)
		has_ep[d] = topo_router_ep(t, d) != TOPO_NONE;
	*acyclic = true;
	for (uint32_t g0 = 0; g0 < P && *acyclic; g0++) {
		if (color[g0] || !topo_port_is_network(t, g0))
			continue;
		size_t sp = 0;
		stk_g[sp] = g0;
		stk_d[sp++] = 0;
		color[g0] = 1;
		while (sp && *acyclic) {
			uint32_t g = stk_g[sp - 1], a = t->port_router[g], pa = g - t->port_base[a];
			uint32_t b = t->port_router[t->peer[g]];
			uint32_t d = stk_d[sp - 1];
			for (; d < n; d++)
				if (d != b && has_ep[d] && d != a && s->next[(size_t)a * n + d] == pa)
					break;
			if (d == n) {
				color[g] = 2;
				sp--;
				continue;
			}
			stk_d[sp - 1] = d + 1;
			uint32_t g2 = t->port_base[b] + s->next[(size_t)b * n + d];
			if (color[g2] == 1)
				*acyclic = false;
			else if (!color[g2]) {
				color[g2] = 1;
				stk_g[sp] = g2;
				stk_d[sp++] = 0;
			}
		}
	}
out:
	free(color);
	free(has_ep);
	free(stk_g);
	free(stk_d);
	return rc;
}

static int ma_init(struct route *r, struct nl_err *err)
{
	const struct topo *t = r->topo;
	struct ma_state *s = r->state;
	const struct ma_params *pr = r->params;
	uint32_t n = t->n_routers;
	uint16_t *lat = NULL;
	uint64_t *dist = NULL;
	uint32_t *first = NULL, *hops = NULL;
	uint8_t *done = NULL;
	struct ma_heap h = {0};
	int rc = 0;

	if (!t->ops->link_latency)
		return nl_errf(err, NL_EUNSUPPORTED, "routing function 'min_anynet': topology '%s' has no channel latencies; "
						     "expected anynet", t->ops->name);
	if (n > MA_MAX_ROUTERS)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'min_anynet': %u routers is more than its %u-router table allows (2 n^2 bytes)",
			       n, MA_MAX_ROUTERS);
	s->n = n;
	s->next = malloc((size_t)n * n * sizeof *s->next);
	lat = calloc(t->n_ports ? t->n_ports : 1, sizeof *lat);
	dist = malloc((size_t)n * sizeof *dist);
	first = malloc((size_t)n * sizeof *first);
	hops = malloc((size_t)n * sizeof *hops);
	done = malloc(n);
	if (!s->next || !lat || !dist || !first || !hops || !done)
		goto nomem;
	if ((rc = t->ops->link_latency(t, lat, err)) < 0)
		goto out;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (!lat[g])
			lat[g] = 1;
	for (uint32_t src = 0; src < n; src++)
		if (ma_row(t, lat, src, dist, first, done, &h, s->next + (size_t)src * n) < 0)
			goto nomem;
	for (uint32_t src = 0; src < n; src++)
		for (uint32_t d = 0; d < n; d++)
			if (d != src && s->next[(size_t)src * n + d] == UINT16_MAX) {
				rc = nl_errf(err, NL_EINVAL, "routing function 'min_anynet': router %u cannot reach router %u", src, d);
				goto out;
			}
	/* Longest route: hops to d follow each router's own table. */
	s->max_hops = 0;
	for (uint32_t d = 0; d < n; d++) {
		for (uint32_t v = 0; v < n; v++)
			hops[v] = v == d ? 0 : UINT32_MAX;
		for (uint32_t v = 0; v < n; v++) {
			uint32_t c = v, len = 0;
			while (hops[c] == UINT32_MAX) {
				c = ma_far(t, c, s->next[(size_t)c * n + d]);
				len++;
			}
			uint32_t total = hops[c] + len;
			for (c = v; hops[c] == UINT32_MAX; c = ma_far(t, c, s->next[(size_t)c * n + d]))
				hops[c] = total--;
			if (hops[v] > s->max_hops)
				s->max_hops = hops[v];
		}
	}
	if (ma_acyclic(t, s, &s->acyclic) < 0)
		goto nomem;
	bool per_hop = pr->classes == MA_CLASSES_HOP || (pr->classes == MA_CLASSES_AUTO && !s->acyclic);
	r->max_cands = 1;
	s->class_w = 0;
	if (per_hop) {
		uint32_t classes = s->max_hops ? s->max_hops : 1;
		if (r->n_vcs < classes) {
			rc = route_vcs_errf(r, err,
					    "routing function 'min_anynet'%s needs num_vcs >= %u (one VC class per hop of its longest route), "
					    "got %u%s",
					    pr->classes == MA_CLASSES_HOP ? " with classes=hop" : "", classes, r->n_vcs,
					    pr->classes == MA_CLASSES_HOP ? ""
									  : ": its routes' channel dependencies are cyclic; "
									    "classes=none runs BookSim's rule, which can deadlock");
			goto out;
		}
		s->class_w = r->n_vcs / classes;
	}
	goto out;
nomem:
	rc = nl_errf(err, NL_ENOMEM, "routing function 'min_anynet': out of memory for a %u x %u table", n, n);
out:
	free(lat);
	free(dist);
	free(first);
	free(hops);
	free(done);
	free(h.key);
	if (rc < 0) {
		free(s->next);
		s->next = NULL;
	}
	return rc;
}

static void ma_release(struct route *r)
{
	struct ma_state *s = r->state;
	free(s->next);
	s->next = NULL;
}

static void ma_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo, uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

static int ma_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc, struct route_pkt *p,
		      struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct ma_state *s = r->state;
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;
	if (router == p->dst_router)
		return route_eject(r, p, out);
	out->port = s->next[(size_t)router * s->n + p->dst_router];
	uint32_t lo = (uint32_t)p->hops * s->class_w;
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(s->class_w ? lo + s->class_w - 1 : r->n_vcs - 1);
	out->prio = 0;
	return 1;
}

const struct route_ops route_min_anynet_ops = {
	.name = "min_anynet",
	.help = "BookSim2's anynet routing table: one shortest-latency path per router pair, its tie-breaks",
	.params = ma_params_def,
	.params_size = sizeof(struct ma_params),
	.state_size = sizeof(struct ma_state),
	.families = ma_families,
	.is_deterministic = true,
	.init = ma_init,
	.release = ma_release,
	.inject = ma_inject,
	.compute = ma_compute,
};
