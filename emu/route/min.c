/* min: minimal routing on any topology, "min:select=auto,classes=auto".
 *
 * A candidate port at router r towards d is minimal when its far end is
 * one hop closer to d. Structured families answer that in closed form
 * (topo_min_ports: the family's minimal next hops, or its closed-form
 * distance; issue 10 part 3), so `min` keeps no table for them and runs
 * on a 131,136-router dragonfly:a=64,h=32,p=1 or a 100,000-router HyperX.
 * Irregular graphs (graph:file=..., dln, the permuted p1/p2/p3, myriclos)
 * and `table=always` use an n x n table of hop distances (one byte each,
 * one BFS per router, at most 32,768 routers); both give the same ordered
 * list (a unit test checks it element by element on every structured
 * family). `select` chooses among the minimal ports, in increasing port
 * order: `first` (the lowest), `hash` (one fixed port per
 * source-destination pair and router, spreading flows like ECMP), or
 * `adaptive` (every minimal port is a candidate and the VC allocator takes
 * whichever has a free VC).
 *
 * Defaults per family (issue 11 part 7): `select=auto` is `first` on the
 * HyperX family without trunking (hyperx with every K = 1, flatfly, full,
 * hypercube: the lowest minimal port is the lowest dimension that
 * differs, i.e. dimension-order routing, BookSim's ran_min on its flatfly)
 * and `hash` elsewhere; `classes=auto` lets every hop use every VC where
 * that is deadlock-free by itself (below), else one VC class per hop.
 *
 * Deadlock freedom: VC per hop. A packet that has taken h router-to-router
 * hops uses VC class h, so every channel dependency goes from class h to
 * class h+1 and the dependency graph is acyclic. With diameter D this needs
 * num_vcs >= D; each class gets num_vcs / D VCs. The ejection hop may use
 * every VC. On families with an up*-down* orientation (fat tree, folded
 * Clos: topo_has_levels) a minimal path climbs to a common ancestor and
 * descends, whose channel dependencies are acyclic without classes (Dally
 * & Towles §14.7); there `classes=auto` (the default) lets every hop use
 * every VC. So does dimension order on the HyperX family (select=first
 * there): a packet crosses each dimension at most once, in increasing
 * dimension order, so every channel dependency goes from a lower
 * dimension to a higher one and the graph is acyclic (Dally & Towles
 * §14.1, as for dimension-order routing on a mesh). `classes=none` forces
 * every VC on every hop anywhere (it can deadlock on cyclic graphs).
 */
#include "route/route.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/hyperx_route.h"
#include "route/route_internal.h"
#include "topo/topo.h"
#include "topo/topo_hyperx.h"

enum { MIN_FIRST, MIN_HASH, MIN_ADAPTIVE, MIN_SELECT_AUTO };
static const char *const min_select_names[] = {"first", "hash", "adaptive", "auto", NULL};

enum { MIN_CLASSES_AUTO, MIN_CLASSES_HOP, MIN_CLASSES_NONE };
static const char *const min_classes_names[] = {"auto", "hop", "none", NULL};

enum { MIN_TABLE_AUTO, MIN_TABLE_ALWAYS };
static const char *const min_table_names[] = {"auto", "always", NULL};

struct min_params {
	int select;
	int classes;
	int table;
};

static const struct param_def min_params_def[] = {
	{"select", PARAM_CHOICE, offsetof(struct min_params, select), "auto", 0, 0,
	 "choice among minimal ports; auto: first (dimension order) on the untrunked HyperX family (hyperx with "
	 "every k = 1, flatfly, hypercube, full), else hash",
	 min_select_names},
	{"classes", PARAM_CHOICE, offsetof(struct min_params, classes), "auto", 0, 0,
	 "VC classes: hop (one per hop), none (every VC on every hop, which can deadlock where the routes' channel dependencies are cyclic, as on a torus), "
	 "auto (none on trees and for dimension order on a HyperX, else hop)",
	 min_classes_names},
	{"table", PARAM_CHOICE, offsetof(struct min_params, table), "auto", 0, 0,
	 "auto (closed-form next hops when the topology has them, else a BFS table), always (the table; same routes)",
	 min_table_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

#define MIN_MAX_ROUTERS 32768u

/* Minimal ports listed per computation: one pass serves every selection
 * unless `hash` picks beyond them (a router with more minimal ports). */
#define MIN_PORTS_BUF 64u

struct min_state {
	uint8_t *dist;     /* [a * n + b] hops, 255 = unreachable; NULL = closed form */
	uint32_t n;
	uint32_t diameter;
	uint32_t class_w;  /* VCs per hop class, 0 = no classes */
	int select;        /* MIN_FIRST, MIN_HASH or MIN_ADAPTIVE (auto resolved) */
	const struct topo_hyperx *hx_first; /* select = first on an untrunked HyperX: dimension order */
};

/* The HyperX view of t when it has no trunking (one link per aligned
 * pair), where the lowest minimal port is dimension order; else NULL. */
static const struct topo_hyperx *min_untrunked_hyperx(const struct topo *t)
{
	const struct topo_hyperx *hx = topo_hyperx_of(t);
	for (int d = 0; hx && d < hx->L; d++)
		if (hx->K[d] != 1)
			return NULL;
	return hx;
}

/* Whether t's routers fit the n x n table; its refusal when not. */
static int min_table_fits(const struct topo *t, struct nl_err *err)
{
	uint32_t n = t->n_routers;

	/* It said "use an algorithm with closed-form routing": on a family
	 * with closed-form next hops min itself is one (table=auto), and an
	 * irregular graph has none to offer. */
	if (n > MIN_MAX_ROUTERS && topo_has_min_ports(t))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'min': table=always on %u routers is more than its %u-router table allows (n^2 bytes); expected table=auto, which routes this topology in closed form",
			       n, MIN_MAX_ROUTERS);
	if (n > MIN_MAX_ROUTERS)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'min': topology '%s' has no closed-form minimal next hops, and %u routers is more than its %u-router table allows (n^2 bytes); expected at most %u routers",
			       t->ops->name, n, MIN_MAX_ROUTERS, MIN_MAX_ROUTERS);
	return 0;
}

/* The n x n distance table for graphs without closed-form next hops,
 * 64 BFS sources at a time (topo_hop_table: `config --check` on
 * dln:n=8192,d=4 0.5 s, 1.9 s one source at a time). A pair more than
 * 254 hops apart (a packet counts its hops in one byte) or not joined is
 * refused, the first in row order named. */
static int min_build_table(const struct topo *t, struct min_state *s, struct nl_err *err)
{
	uint32_t n = t->n_routers;

	NL_CHECK(min_table_fits(t, err));
	s->n = n;
	s->dist = malloc((size_t)n * n);
	if (!s->dist || topo_hop_table(t, s->dist, 255, &s->diameter) < 0)
		return nl_errf(err, NL_ENOMEM, "routing function 'min': out of memory for %u x %u table", n, n);
	if (s->diameter <= 254)
		return 0;
	for (uint32_t a = 0; a < n; a++) {
		const uint8_t *row = s->dist + (size_t)a * n, *far = memchr(row, 255, n);
		if (far)
			return nl_errf(err, NL_EINVAL,
				       "routing function 'min': router %u cannot reach router %u within 254 hops", a,
				       (uint32_t)(far - row));
	}
	NL_BUG("diameter %u but every table entry within 254 hops", s->diameter);
}

/* min_build_table's refusals and diameter without its table, for a
 * route only checked (route_origin's is_check): the table's n^2 bytes
 * are never written. A diameter past a packet's hop count (or a
 * disconnected graph) goes through the table itself, whose refusal names
 * the two routers. */
static int min_check_table(const struct topo *t, struct min_state *s, struct nl_err *err)
{
	NL_CHECK(min_table_fits(t, err));
	NL_CHECK(topo_diameter(t, &s->diameter, err));
	if (s->diameter <= 254)
		return 0;
	int rc = min_build_table(t, s, err);
	free(s->dist);
	s->dist = NULL;
	return rc;
}

static int min_init(struct route *r, struct nl_err *err)
{
	const struct topo *t = r->topo;
	struct min_state *s = r->state;
	const struct min_params *pr = r->params;

	if (pr->table == MIN_TABLE_AUTO && topo_has_min_ports(t)) {
		NL_CHECK(topo_diameter(t, &s->diameter, err));
		if (s->diameter == UINT32_MAX)
			return nl_errf(err, NL_EINVAL, "routing function 'min': the topology is disconnected");
		/* A packet counts its hops in one byte (route_pkt.hops). */
		if (s->diameter > 254)
			return nl_errf(err, NL_EINVAL,
				       "routing function 'min': diameter %u is more than 254 hops (a packet counts its hops in one byte); expected a topology of diameter <= 254",
				       s->diameter);
	} else if (r->is_check) {
		NL_CHECK(min_check_table(t, s, err));
	} else {
		NL_CHECK(min_build_table(t, s, err));
	}
	const struct topo_hyperx *hx = min_untrunked_hyperx(t);
	s->select = pr->select != MIN_SELECT_AUTO ? pr->select : hx ? MIN_FIRST : MIN_HASH;
	bool dim_order = hx && s->select == MIN_FIRST;
	s->hx_first = dim_order ? hx : NULL;
	bool per_hop = pr->classes == MIN_CLASSES_HOP ||
		       (pr->classes == MIN_CLASSES_AUTO && !topo_has_levels(t) && !dim_order);
	if (!per_hop) {
		s->class_w = 0;
		if (s->select != MIN_ADAPTIVE)
			r->max_cands = 1;
		return 0;
	}
	uint32_t classes = s->diameter ? s->diameter : 1;
	if (r->n_vcs < classes)
		return route_vcs_errf(r, err,
				      "routing function 'min' needs num_vcs >= the diameter %u (one VC class per hop), got %u",
				      s->diameter, r->n_vcs);
	s->class_w = r->n_vcs / classes;
	if (s->select != MIN_ADAPTIVE)
		r->max_cands = 1;
	return 0;
}

static void min_release(struct route *r)
{
	struct min_state *s = r->state;
	free(s->dist);
	s->dist = NULL;
}

static void min_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
		       uint8_t *vc_hi)
{
	(void)p;
	(void)rng;
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* Minimal ports of `router` toward dst from the table, in increasing port
 * order, as topo_min_ports gives them in closed form. */
static uint32_t min_table_ports(const struct topo *t, const struct min_state *s, uint32_t router, uint32_t dst,
				uint32_t skip, uint32_t *ports, uint32_t cap)
{
	const uint8_t *to_dst = s->dist + dst; /* stride n */
	uint32_t want = (uint32_t)to_dst[(size_t)router * s->n] - 1, n = 0, base = t->port_base[router];
	for (uint32_t g = base; g < t->port_base[router + 1]; g++) {
		if (!topo_port_is_network(t, g))
			continue;
		if (to_dst[(size_t)t->port_router[t->peer[g]] * s->n] != want)
			continue;
		if (n >= skip && n - skip < cap)
			ports[n - skip] = g - base;
		n++;
	}
	return n;
}

/* The ports listed (table or closed form), then selected: out of line,
 * so that the HyperX's closed-form hop (min_compute), a leaf, does not
 * pay this path's frame (its 256-byte port list and saved registers:
 * about 7 of the 37 instructions of each flattened-butterfly route
 * computation). */
static __attribute__((noinline)) int min_compute_listed(const struct route *r, uint32_t router,
							struct route_pkt *p, struct route_cand *out)
{
	const struct topo *t = r->topo;
	const struct min_state *s = r->state;
	uint32_t ports[MIN_PORTS_BUF];
	uint32_t cap = s->select == MIN_ADAPTIVE ? ROUTE_MAX_CANDS : 1;
	uint32_t n_min = s->dist ? min_table_ports(t, s, router, p->dst_router, 0, ports, MIN_PORTS_BUF)
				 : topo_min_ports(t, router, p->dst_router, 0, ports, MIN_PORTS_BUF);
	if (s->select == MIN_HASH && n_min > 1) {
		/* Hash the flow and the current router, so the choices at
		 * successive routers are independent (the same index at every
		 * level of a tree would use a fraction of the top switches). */
		uint64_t h = rng_mix64((((uint64_t)route_src_router(r, p) << 32) | p->dst_router) ^
				       rng_mix64((uint64_t)router + 0x9e3779b97f4a7c15ULL));
		uint32_t pick = (uint32_t)(h % n_min);
		if (pick < MIN_PORTS_BUF)
			ports[0] = ports[pick];
		else if (s->dist)
			min_table_ports(t, s, router, p->dst_router, pick, ports, 1);
		else
			topo_min_ports(t, router, p->dst_router, pick, ports, 1);
	}
	uint32_t lo = (uint32_t)p->hops * s->class_w;
	uint32_t hi = s->class_w ? lo + s->class_w - 1 : r->n_vcs - 1;
	int n_out = (int)(n_min < cap ? n_min : cap);
	for (int i = 0; i < n_out; i++) {
		out[i].port = (uint16_t)ports[i];
		out[i].vc_lo = (uint8_t)lo;
		out[i].vc_hi = (uint8_t)hi;
		out[i].prio = 0;
	}
	return n_out;
}

static int min_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		       struct route_pkt *p, struct rng *rng, const struct route_view *v,
		       struct route_cand *out)
{
	const struct min_state *s = r->state;
	(void)in_port;
	(void)in_vc;
	(void)rng;
	(void)v;

	if (router == p->dst_router)
		return route_eject(r, p, out);
	if (s->hx_first) {
		/* The lowest minimal port of an untrunked HyperX is the one link
		 * of the lowest offset dimension toward the destination's
		 * coordinate (ports grow with the dimension): computed directly,
		 * not by listing every minimal port (6% of the flattened
		 * butterfly's instructions; test_hyperx_route checks the two
		 * agree). */
		const struct topo_hyperx *h = s->hx_first;
		int d = hxr_first_offset(h, router, p->dst_router);
		out->port = (uint16_t)topo_hyperx_port(h, d, topo_hyperx_coord(h, router, d),
						       topo_hyperx_coord(h, p->dst_router, d), 0);
		out->vc_lo = (uint8_t)((uint32_t)p->hops * s->class_w);
		out->vc_hi = (uint8_t)(s->class_w ? out->vc_lo + s->class_w - 1 : r->n_vcs - 1);
		out->prio = 0;
		return 1;
	}
	return min_compute_listed(r, router, p, out);
}

const struct route_ops route_min_ops = {
	.name = "min",
	.help = "minimal routing on any topology (closed form on structured families, else a BFS table), VC class per hop (Dally & Towles 14.3)",
	.params = min_params_def,
	.params_size = sizeof(struct min_params),
	.state_size = sizeof(struct min_state),
	.families = NULL,
	.is_deterministic = true,
	.init = min_init,
	.release = min_release,
	.inject = min_inject,
	.compute = min_compute,
};
