/* ugal: Universal Globally-Adaptive Load-balanced routing,
 * "ugal:mode=local,inter=router,threshold=0".
 *
 * Kim, Dally, Scott & Abts, "Technology-driven, highly-scalable dragonfly
 * topology", ISCA 2008, §4.2 (after Singh's UGAL, 2005). At the source
 * router each packet chooses once between its minimal path and a Valiant
 * path through a random intermediate, by queue x hops:
 *   minimal when  q_min x H_min <= q_nonmin x H_nonmin + threshold.
 * `mode=local` (UGAL-L): q is the occupancy of the first output port of
 * each path, summed over its VCs (route_view_port_occ, BookSim's
 * GetUsedCredit), H the hop counts (topo_distance); `queue=output` reads
 * instead the flits waiting in this router's output stage for that port,
 * `queue=both` their sum (route_view_port_q, issue 11 part 3). `mode=global`
 * (UGAL-G): q is the sum of that occupancy over every channel of each
 * path, read from the global oracle view (route_view_gocc; refused with
 * partitions > 1), compared as q_min <= q_nonmin + threshold; with
 * `snapshot=T` every queue, the first hop's too, comes instead from a
 * copy the engine's periodic hook takes every T cycles (route_ops.
 * snapshot: stale state, as LBR decides; allowed with partitions). The
 * intermediate is a router (`inter=router`: the topology's Valiant
 * capability, topo_valiant_router: on a dragonfly a random router of
 * another group, Kim §4.2) or a group (`inter=group`, families with
 * groups: phase 0 ends on entering a random other group). Both phases
 * follow the first minimal port (topo_min_ports: the lowest, which is
 * dimension order on HyperX and the flattened butterfly). Where the
 * HyperX family's links are trunked (K > 1; hyperx, flatfly, full) a hop
 * takes the least occupied trunk of that port's dimension and
 * coordinate, and the queues every mode compares are those trunks'
 * (the least; UGAL-G's per hop), as the other HyperX functions use
 * trunks (docs/engine.md). Runs on any family with closed-form minimal
 * next hops.
 *
 * Deadlock freedom (local, global): VC class per hop. A Valiant path is
 * at most D hops to the intermediate and D hops on, so a packet that has
 * taken h router-to-router hops uses class h < 2D and every channel
 * dependency goes from class h to class h+1: acyclic. Needs num_vcs >=
 * 2 x diameter; each class gets num_vcs / (2D) VCs; ejection uses every
 * VC (a sink).
 *
 * `mode=booksim` reproduces BookSim2's own functions (threshold refused):
 * on the dragonfly ugal_dragonflynew (src/networks/dragonfly.cpp):
 * intermediate = the router of a random endpoint of the whole network,
 * minimal when 1 x min_q <= 2 x nonmin_q + 30, every hop by BookSim's
 * dragonfly_port (group-minimal: local, global, local through the
 * gateway, as group_min; not the router-minimal first port below), VC =
 * phase (0 towards the intermediate, 1 minimal, 2 after the minimal
 * phase's global hop or when source and destination share a group),
 * injection on one random VC; it asserts exactly 3 VCs. That
 * scheme is NOT deadlock-free: every phase-0 hop (local, global, local)
 * uses VC 0, so local and global channels of VC 0 form a dependency
 * cycle; use it to compare with BookSim, not for results that must not
 * deadlock. On the flattened butterfly and HyperX ugal_flatfly_onchip
 * (src/networks/flatfly_onchip.cpp): real hop counts, threshold 2, an
 * intermediate router drawn as its find_ran_intm does (a random
 * coordinate in each dimension where source and destination differ, the
 * shared one elsewhere), the lower half of the VCs towards the
 * intermediate and the upper half after it (each phase is dimension
 * order on a HyperX, so each half is acyclic and phase 0 only waits on
 * phase 1); needs an even num_vcs >= 2 (BookSim's halves overlap for odd
 * counts, which we refuse). In booksim mode with lookahead routing
 * (routing_delay = 0) the source decision is made as the head leaves its
 * endpoint, on the source router's credits then, as BookSim computes the
 * first route at injection (route_ops.decide_at_injection).
 */
#include "route/route.h"
#include "route/route_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "route/hyperx_route.h"
#include "topo/topo.h"
#include "topo/topo_dragonfly.h"
#include "topo/topo_hyperx.h"

enum { UGAL_LOCAL, UGAL_GLOBAL, UGAL_BOOKSIM };
static const char *const ugal_mode_names[] = {"local", "global", "booksim", NULL};

enum { UGAL_INTER_ROUTER, UGAL_INTER_GROUP };
static const char *const ugal_inter_names[] = {"router", "group", NULL};

struct ugal_params {
	int mode;
	int inter;
	int64_t threshold;
	int64_t snapshot;
	int queue;
};

static const struct param_def ugal_params_def[] = {
	{"mode", PARAM_CHOICE, offsetof(struct ugal_params, mode), "local", 0, 0,
	 "local (UGAL-L: first-hop queues x hops), global (UGAL-G: queues along both paths; live view: partitions = threads = 1), "
	 "booksim (BookSim2's ugal_dragonflynew / ugal_flatfly_onchip exactly; its dragonfly rule admits a "
	 "channel dependency cycle on VC 0, so it can deadlock)",
	 ugal_mode_names},
	{"inter", PARAM_CHOICE, offsetof(struct ugal_params, inter), "router", 0, 0,
	 "Valiant intermediate: a router, or a group (families with groups)", ugal_inter_names},
	{"threshold", PARAM_INT, offsetof(struct ugal_params, threshold), "0", -1e6, 1e6,
	 "bias towards the minimal path (added to the non-minimal side; local and global modes)", NULL},
	{"snapshot", PARAM_INT, offsetof(struct ugal_params, snapshot), "0", 0, 1e9,
	 "mode=global: 0 reads the live global view (partitions = threads = 1); T > 0 reads every queue, the first hop's "
	 "too, from a snapshot the engine takes every T cycles (stale, as LBR; runs partitioned)",
	 NULL},
	{"queue", PARAM_CHOICE, offsetof(struct ugal_params, queue), "credit", 0, 0,
	 "mode=local: a port's queue is " ROUTE_QUEUE_HELP,
	 route_queue_names},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

/* By name the families with closed-form minimal next hops outside the
 * HyperX family; that family (hyperx, flatfly, full, hypercube) by its
 * view (topo_views), which gives the trunks. */
static const char *const ugal_families[] = {"torus", "mesh", "foldedhypercube", "flex", "dragonfly", "slimfly",
					    "equality", "ndt", NULL};

/* Phases (route_pkt.phase). BookSim's dragonfly numbering: 0 towards the
 * intermediate, 1 minimal, 2 minimal after a global hop (booksim mode). */
enum { PH_NONMIN = 0, PH_MIN = 1, PH_MIN_GLOBAL = 2 };

/* route_pkt.vc_class (unused otherwise by ugal): the source decision was
 * made at injection (ugal_decide_at_injection). */
enum { UGAL_DECIDED = 1 };

/* The per-hop step of a mode and family (ugal_compute_default,
 * _bs_dragonfly, _bs_flatfly), chosen once at init: ugal_compute only
 * jumps to it, and each step is compiled alone, so the flattened
 * butterfly's hop does not pay the prologue of one function holding all
 * three. */
typedef int (*ugal_compute_fn)(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
			       const struct route_view *v, struct route_cand *out);

struct ugal_state {
	ugal_compute_fn compute;
	uint32_t diameter;
	uint32_t class_w;       /* local/global: VCs per hop class */
	uint32_t n_groups;      /* topo_groups, 0 = none */
	uint32_t group_routers;
	bool bs_dragonfly;      /* booksim mode on a dragonfly */
	const struct topo_dragonfly *df; /* booksim mode on a dragonfly: its view, else NULL */
	const struct topo_hyperx *hx; /* the HyperX view (hyperx, full, flatfly, hypercube), else NULL */
	uint32_t *snap;         /* mode=global,snapshot=T: [global port] occupancy at the last snapshot */
};

static int ugal_compute_default(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
				const struct route_view *v, struct route_cand *out);
static int ugal_compute_bs_dragonfly(const struct route *r, uint32_t router, struct route_pkt *p,
				     struct rng *rng, const struct route_view *v, struct route_cand *out);
static int ugal_compute_bs_flatfly(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
				   const struct route_view *v, struct route_cand *out);

static int ugal_init(struct route *r, struct nl_err *err)
{
	const struct topo *t = r->topo;
	const struct ugal_params *pr = r->params;
	struct ugal_state *s = r->state;

	if (!topo_has_min_ports(t))
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'ugal': topology '%s' has no closed-form minimal next hops", t->ops->name);
	NL_CHECK(topo_diameter(t, &s->diameter, err));
	if (s->diameter > 127)
		return nl_errf(err, NL_EINVAL, "routing function 'ugal': diameter %u is more than 127 hops", s->diameter);
	if (!topo_groups(t, &s->n_groups, &s->group_routers))
		s->n_groups = s->group_routers = 0;
	if (pr->inter == UGAL_INTER_GROUP && s->n_groups < 2) {
		/* Name the families that have groups, not only that this one
		 * has none. */
		char grouped[128] = "";
		size_t n_topo, used = 0;
		const struct topo_ops *const *all = topo_list(&n_topo);
		for (size_t i = 0; i < n_topo && used < sizeof grouped; i++)
			if (all[i]->groups)
				used += (size_t)snprintf(grouped + used, sizeof grouped - used, "%s%s", used ? ", " : "",
							 all[i]->name);
		return nl_errf(err, NL_EUNSUPPORTED,
			       "routing function 'ugal': inter=group needs a topology with at least 2 groups (%s); '%s' has %u; use inter=router",
			       grouped, t->ops->name, s->n_groups);
	}
	r->max_cands = 1;
	s->hx = topo_hyperx_of(t);
	if (pr->snapshot && pr->mode != UGAL_GLOBAL)
		return nl_errf(err, NL_ECONFIG,
			       "routing function 'ugal': snapshot=%lld applies to mode=global only; expected snapshot=0",
			       (long long)pr->snapshot);
	if (pr->queue != ROUTE_Q_CREDIT && pr->mode != UGAL_LOCAL)
		return nl_errf(err, NL_ECONFIG,
			       "routing function 'ugal': queue=%s applies to mode=local only (global reads channel "
			       "occupancy along the paths, booksim BookSim's credits); expected queue=credit",
			       route_queue_names[pr->queue]);
	/* booksim mode keeps BookSim's own biases (+30 on the dragonfly, +2
	 * on the flattened butterfly), so a threshold there would be read and
	 * dropped; refused like snapshot= and queue= outside their modes. */
	if (pr->threshold && pr->mode == UGAL_BOOKSIM)
		return nl_errf(err, NL_ECONFIG,
			       "routing function 'ugal': threshold=%lld applies to mode=local and mode=global only "
			       "(mode=booksim keeps BookSim's own bias); expected threshold=0",
			       (long long)pr->threshold);
	r->needs_pend = pr->queue == ROUTE_Q_ROUTED;
	r->views |= route_queue_views(pr->queue);
	if (pr->mode == UGAL_GLOBAL && pr->snapshot) {
		s->snap = calloc(t->n_ports, sizeof *s->snap);
		if (!s->snap)
			return nl_errf(err, NL_ENOMEM, "routing function 'ugal': out of memory for a %u-port snapshot",
				       t->n_ports);
		r->snapshot_period = (uint32_t)pr->snapshot;
	} else if (pr->mode == UGAL_GLOBAL) {
		r->views |= ROUTE_VIEW_GLOBAL;
	}
	if (pr->mode == UGAL_BOOKSIM) {
		/* With routing_delay = 0, the only case the engine asks, the
		 * source decision is made at injection (decide_at_injection) and
		 * each hop only follows it. */
		r->hop_pure = true;
		if (pr->inter != UGAL_INTER_ROUTER)
			return nl_errf(err, NL_ECONFIG,
				       "routing function 'ugal': mode=booksim draws a router intermediate as BookSim does; expected inter=router");
		const struct topo_dragonfly *df = topo_dragonfly_of(t);
		s->bs_dragonfly = df != NULL;
		if (s->bs_dragonfly) {
			/* BookSim's dragonflynew has g = a*h + 1 groups, one global
			 * link per pair, and its rule (dragonfly_port) names that
			 * link: with fewer groups it would send all of a pair's
			 * traffic through the first of its links (as group_min did
			 * before 96a7ddc), a result BookSim never gives. */
			if (df->rounds != 1 || df->extra)
				return nl_errf(err, NL_EUNSUPPORTED,
					       "routing function 'ugal:mode=booksim' reproduces BookSim's dragonflynew, whose g = a*h + 1 groups have one global link per pair; this dragonfly has g = %u (a*h + 1 = %u), so its rule would take the first of a pair's links only; use mode=local or mode=global",
					       df->g, df->a * df->h + 1);
			if (r->n_vcs != 3)
				return route_vcs_errf(r, err,
						      "routing function 'ugal:mode=booksim' on a dragonfly needs num_vcs = 3 (one per phase, as BookSim's ugal_dragonflynew asserts), got %u",
						      r->n_vcs);
			s->df = df;
			s->compute = ugal_compute_bs_dragonfly;
			return 0;
		}
		if (strcmp(t->ops->name, "hyperx") && strcmp(t->ops->name, "flatfly"))
			return nl_errf(err, NL_EUNSUPPORTED,
				       "routing function 'ugal:mode=booksim' runs on dragonfly (BookSim2's ugal_dragonflynew), flatfly and hyperx (its ugal_flatfly_onchip), not on topology '%s'; use mode=local or mode=global",
				       t->ops->name);
		if (r->n_vcs < 2 || r->n_vcs % 2)
			return route_vcs_errf(r, err,
					      "routing function 'ugal:mode=booksim' on '%s' needs an even num_vcs >= 2 (lower half towards the intermediate, upper half after, as ugal_flatfly_onchip), got %u",
					      t->ops->name, r->n_vcs);
		s->compute = ugal_compute_bs_flatfly;
		return 0;
	}
	uint32_t classes = 2 * (s->diameter ? s->diameter : 1);
	if (r->n_vcs < classes)
		return route_vcs_errf(r, err,
				      "routing function 'ugal' needs num_vcs >= 2 x the diameter = %u (one VC class per hop of the longest Valiant path), got %u",
				      classes, r->n_vcs);
	s->class_w = r->n_vcs / classes;
	s->compute = ugal_compute_default;
	return 0;
}

static void ugal_release(struct route *r)
{
	struct ugal_state *s = r->state;
	free(s->snap);
	s->snap = NULL;
}

/* The engine's periodic hook: every port's queue, summed over its VCs. */
static void ugal_snapshot(const struct route *r, const struct route_view *g, uint64_t now)
{
	const struct ugal_state *s = r->state;
	(void)now;
	for (uint32_t p = 0; p < r->topo->n_ports; p++)
		s->snap[p] = route_view_gocc(g, p);
}

static void ugal_inject(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
			uint8_t *vc_hi)
{
	const struct ugal_params *pr = r->params;
	const struct ugal_state *s = r->state;
	p->phase = PH_MIN;
	p->inter = p->dst_router;
	p->vc_class = 0;
	if (pr->mode == UGAL_BOOKSIM && s->bs_dragonfly) {
		/* ugal_dragonflynew injects on one random VC (RandomInt(gNumVCs - 1)). */
		*vc_lo = *vc_hi = (uint8_t)rng_below(rng, r->n_vcs);
		return;
	}
	*vc_lo = 0;
	*vc_hi = (uint8_t)(r->n_vcs - 1);
}

/* The least occupied of the n trunks from local port `first` on (ports
 * first..first + n - 1, which lead to the same router), by
 * route_view_port_q(which); the first on a tie. *q gets its queue. With
 * n = 1 (no trunking) it reads `first` only, as before trunks were
 * taken, so untrunked results are unchanged. */
static inline uint32_t ugal_least_trunk(const struct route_view *v, uint32_t router, uint32_t first, uint32_t n,
					int which, uint64_t *q)
{
	uint32_t best = first;
	uint64_t bq = route_view_port_q(v, router, first, which);
	for (uint32_t k = 1; k < n; k++) {
		uint64_t qk = route_view_port_q(v, router, first + k, which);
		if (qk < bq) {
			bq = qk;
			best = first + k;
		}
	}
	*q = bq;
	return best;
}

/* The first port of the dimension-order minimal path from a to b (the
 * first offset dimension, trunk 0: topo_min_ports' first), read from the
 * HyperX view's coordinates; b != a; *n_trunks gets K of that dimension
 * (its trunks are the ports from it on). The generic topology calls
 * (distance, min_ports) were most of a flattened-butterfly decision's
 * cost. */
static inline uint32_t ugal_hx_first_port(const struct topo_hyperx *h, uint32_t a, uint32_t b, uint32_t *n_trunks)
{
	int d = hxr_first_offset(h, a, b);
	*n_trunks = h->K[d];
	return topo_hyperx_port(h, d, topo_hyperx_coord(h, a, d), topo_hyperx_coord(h, b, d), 0);
}

/* The port a hop takes from a toward b on the HyperX view: the first
 * offset dimension's least occupied trunk, by the flits queued for its
 * downstream buffers summed over its VCs (route_view_port_occ, the queue
 * UGAL compares; valiant and minad pick their trunk the same way, on
 * their VCs), as every HyperX function uses trunked links
 * (docs/engine.md). Untrunked: trunk 0, no view read. */
static inline uint32_t ugal_hx_hop_port(const struct topo_hyperx *h, const struct route_view *v, uint32_t a,
					uint32_t b)
{
	uint32_t n, port = ugal_hx_first_port(h, a, b, &n);
	uint64_t q;
	if (n == 1 || !v)
		return port;
	return ugal_least_trunk(v, a, port, n, ROUTE_Q_CREDIT, &q);
}

/* Router hops from a to b on the HyperX view: the dimensions where they
 * differ (topo_distance of every family with the view: hyperx, full and
 * flatfly count them, hypercube takes the popcount of a ^ b, the same). */
static inline uint32_t ugal_hx_distance(const struct topo_hyperx *h, uint32_t a, uint32_t b)
{
	uint32_t n = 0;
	for (int d = 0; d < h->L; d++)
		n += topo_hyperx_coord(h, a, d) != topo_hyperx_coord(h, b, d);
	return n;
}

/* The first minimal port from router to target != router: topo_min_ports'
 * first, from the HyperX view when the family has one (the generic call
 * was a third of a local-mode hop's cost on the flattened butterfly);
 * *n_trunks gets the trunks from it on (1 off the HyperX view). */
static inline uint32_t ugal_first_port(const struct topo *t, const struct ugal_state *s, uint32_t router,
				       uint32_t target, uint32_t *n_trunks)
{
	if (s->hx)
		return ugal_hx_first_port(s->hx, router, target, n_trunks);
	uint32_t port;
	topo_min_ports(t, router, target, 0, &port, 1);
	*n_trunks = 1;
	return port;
}

/* UGAL-L's queue of the first hop from router to target != router: the
 * least of its trunks' (route_view_port_q(which)), the trunk the packet
 * then takes when which is credit. */
static inline uint64_t ugal_first_q(const struct topo *t, const struct ugal_state *s, const struct route_view *v,
				    uint32_t router, uint32_t target, int which)
{
	uint32_t n, port = ugal_first_port(t, s, router, target, &n);
	uint64_t q;
	ugal_least_trunk(v, router, port, n, which, &q);
	return q;
}

/* topo_distance, from the HyperX view when the family has one. */
static inline uint32_t ugal_distance(const struct topo *t, const struct ugal_state *s, uint32_t a, uint32_t b)
{
	return s->hx ? ugal_hx_distance(s->hx, a, b) : topo_distance(t, a, b);
}

/* UGAL-G: occupancy summed over every channel of the first-port minimal
 * path from router to target; the first hop from the local view. Where
 * links are trunked a hop counts its least occupied trunk, the one a
 * packet there takes (ugal_hx_hop_port). */
static uint64_t ugal_path_q(const struct topo *t, const struct ugal_state *s, const struct route_view *v,
			    uint32_t router, uint32_t target)
{
	uint64_t q = 0;
	bool first = true;
	while (router != target) {
		uint32_t n, port = ugal_first_port(t, s, router, target, &n);
		uint64_t g = (uint64_t)t->port_base[router] + port, best = UINT64_MAX;
		for (uint32_t k = 0; k < n; k++) {
			uint64_t qk = s->snap ? s->snap[g + k]
				      : first ? route_view_port_occ(v, port + k)
					      : route_view_gocc(v, g + k);
			best = qk < best ? qk : best;
		}
		q += best;
		first = false;
		router = t->port_router[t->peer[g]];
	}
	return q;
}

static inline bool ugal_same_group(const struct ugal_state *s, uint32_t a, uint32_t b)
{
	return s->group_routers && a / s->group_routers == b / s->group_routers;
}

/* The source router's choice (local and global modes). */
static void ugal_decide(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
			const struct route_view *v)
{
	const struct topo *t = r->topo;
	const struct ugal_params *pr = r->params;
	const struct ugal_state *s = r->state;
	uint32_t inter;

	p->phase = PH_MIN;
	p->inter = p->dst_router;
	if (router == p->dst_router)
		return;
	if (pr->inter == UGAL_INTER_GROUP) {
		/* Kim §4.2: minimal within the group; else a random other group. */
		uint32_t G = router / s->group_routers;
		if (G == p->dst_router / s->group_routers)
			return;
		uint32_t X = (uint32_t)rng_below(rng, s->n_groups - 1);
		X += X >= G;
		inter = X * s->group_routers + (uint32_t)rng_below(rng, s->group_routers);
	} else {
		inter = topo_valiant_router(t, router, p->dst_router, rng);
	}
	if (inter == router || inter == p->dst_router)
		return;
	bool take_min;
	if (pr->mode == UGAL_GLOBAL) {
		uint64_t qm = ugal_path_q(t, s, v, router, p->dst_router);
		uint64_t qn = ugal_path_q(t, s, v, router, inter) + ugal_path_q(t, s, v, inter, p->dst_router);
		take_min = (int64_t)qm <= (int64_t)qn + pr->threshold;
	} else {
		uint64_t hm = ugal_distance(t, s, router, p->dst_router);
		uint64_t hn = ugal_distance(t, s, router, inter) + ugal_distance(t, s, inter, p->dst_router);
		uint64_t qm = ugal_first_q(t, s, v, router, p->dst_router, pr->queue);
		uint64_t qn = ugal_first_q(t, s, v, router, inter, pr->queue);
		take_min = (int64_t)(hm * qm) <= (int64_t)(hn * qn) + pr->threshold;
	}
	if (!take_min) {
		p->phase = PH_NONMIN;
		p->inter = inter;
	}
}

static __attribute__((noinline)) int ugal_compute_default(const struct route *r, uint32_t router,
							  struct route_pkt *p, struct rng *rng,
							  const struct route_view *v, struct route_cand *out)
{
	const struct topo *t = r->topo;
	const struct ugal_params *pr = r->params;
	const struct ugal_state *s = r->state;

	if (p->hops == 0)
		ugal_decide(r, router, p, rng, v);
	if (router == p->dst_router)
		return route_eject(r, p, out);
	if (p->phase == PH_NONMIN &&
	    (router == p->inter || (pr->inter == UGAL_INTER_GROUP && ugal_same_group(s, router, p->inter))))
		p->phase = PH_MIN;
	uint32_t target = p->phase == PH_NONMIN ? p->inter : p->dst_router;
	uint32_t lo = (uint32_t)p->hops * s->class_w;
	if (s->hx) {
		out->port = (uint16_t)ugal_hx_hop_port(s->hx, v, router, target);
	} else {
		uint32_t n;
		out->port = (uint16_t)ugal_first_port(t, s, router, target, &n);
	}
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)(lo + s->class_w - 1);
	out->prio = 0;
	return 1;
}

/* The booksim dragonfly mode's ports are BookSim's dragonfly_port
 * (topo_dragonfly_group_min_port, on the view kept at init: the call to
 * topo_group_min_port, which finds the view again each time, was most
 * of a hop's cost): the group-minimal next hop (local, global, local
 * through the gateway that holds the group's link toward the target's
 * group, as group_min), not netloom's router-minimal first port,
 * which may take two global hops through a third group where that is as
 * short and so loads the global channels more (measured: with the
 * router-minimal port the FleX dragonfly saturated near 0.6 instead of
 * BookSim's 0.77, its busiest global channels at 0.98).
 *
 * ugal_dragonflynew's decision at the source router (in_channel < gP). */
static void ugal_bs_dragonfly_decide(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
				     const struct route_view *v)
{
	const struct topo *t = r->topo;
	const struct ugal_state *s = r->state;

	if (ugal_same_group(s, router, p->dst_router)) {
		p->phase = PH_MIN_GLOBAL;
		return;
	}
	/* RandomInt(_network_size - 1): a random endpoint, any group. */
	p->inter = topo_ep_router(t, (uint32_t)rng_below(rng, t->n_endpoints));
	if (ugal_same_group(s, router, p->inter)) {
		p->phase = PH_MIN;
	} else {
		bool global;
		uint32_t qm = route_view_port_occ(v, topo_dragonfly_group_min_port(s->df, router, p->dst_router, &global));
		uint32_t qn = route_view_port_occ(v, topo_dragonfly_group_min_port(s->df, router, p->inter, &global));
		p->phase = 1 * qm <= 2 * qn + 30 ? PH_MIN : PH_NONMIN;
	}
}

/* ugal_dragonflynew's ejection: on VC f->ph too (out_vc = f->ph), one
 * VC, the phase's, not any free one. Out of line and tail-called, as the
 * source's decision (ugal_compute_bs_dragonfly_source): the hop itself
 * then calls nothing and saves one register, where it saved five. */
static __attribute__((noinline)) int ugal_bs_dragonfly_eject(const struct route *r, const struct route_pkt *p,
							     struct route_cand *out)
{
	route_eject(r, p, out);
	out->vc_lo = out->vc_hi = p->phase;
	return 1;
}

/* ugal_dragonflynew at a hop, the source decision made. */
static inline int ugal_bs_dragonfly_hop(const struct route *r, uint32_t router, struct route_pkt *p,
					struct route_cand *out)
{
	if (p->phase == PH_NONMIN && router == p->inter)
		p->phase = PH_MIN;
	uint32_t target = p->phase == PH_NONMIN ? p->inter : p->dst_router;
	if (router == target)
		return ugal_bs_dragonfly_eject(r, p, out);
	bool global;
	uint32_t port = topo_dragonfly_group_min_port(((const struct ugal_state *)r->state)->df, router, target,
						      &global);
	/* The "optical dateline": the minimal phase's global hop moves to VC 2. */
	if (p->phase == PH_MIN && global)
		p->phase = PH_MIN_GLOBAL;
	*out = (struct route_cand){.port = (uint16_t)port, .vc_lo = p->phase, .vc_hi = p->phase, .prio = 0};
	return 1;
}

/* The source router without a decision at injection (routing_delay > 0). */
static __attribute__((noinline)) int ugal_compute_bs_dragonfly_source(const struct route *r, uint32_t router,
								      struct route_pkt *p, struct rng *rng,
								      const struct route_view *v,
								      struct route_cand *out)
{
	ugal_bs_dragonfly_decide(r, router, p, rng, v);
	return ugal_bs_dragonfly_hop(r, router, p, out);
}

/* BookSim's ugal_dragonflynew, rule for rule. Decided first, as on the
 * flattened butterfly. */
static __attribute__((noinline)) int ugal_compute_bs_dragonfly(const struct route *r, uint32_t router,
							       struct route_pkt *p, struct rng *rng,
							       const struct route_view *v, struct route_cand *out)
{
	if (p->vc_class != UGAL_DECIDED && p->hops == 0)
		return ugal_compute_bs_dragonfly_source(r, router, p, rng, v, out);
	return ugal_bs_dragonfly_hop(r, router, p, out);
}

/* ugal_flatfly_onchip's decision at the source router (in_channel < gC).
 * One pass over the dimensions finds the intermediate, both hop counts
 * and both first ports (trunk 0 of each path's first offset dimension;
 * trunked, the queue read is the least occupied trunk's). The draws are find_ran_intm's, one per dimension
 * where source and destination differ, in dimension order, whatever the
 * outcome: the stream's sequence must not depend on the queues. Only the
 * queue reads are skipped where they cannot change the outcome. */
static void ugal_bs_flatfly_decide(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
				   const struct route_view *v)
{
	const struct ugal_state *s = r->state;
	const struct topo_hyperx *h = s->hx;

	if (router == p->dst_router)
		return;
	/* find_ran_intm: a random coordinate in each dimension where
	 * source and destination differ, theirs where they agree. Hop
	 * counts are real (HyperX) distances: the dimensions that differ. */
	const int L = h->L;
	const uint16_t *cs_at = h->coord + (size_t)router * (size_t)L;
	const uint16_t *cd_at = h->coord + (size_t)p->dst_router * (size_t)L;
	uint32_t inter = 0, hm = 0, hn = 0;
	uint32_t port_m = UINT32_MAX, port_n = UINT32_MAX; /* first ports (trunk 0) towards dst and inter; none yet */
	uint32_t k_m = 1, k_n = 1;                         /* their trunks */
	for (int d = 0; d < L; d++) {
		uint32_t cs = cs_at[d], cd = cd_at[d];
		if (cs == cd) {
			inter += cs * h->stride[d];
			continue;
		}
		uint32_t ci = (uint32_t)rng_below(rng, h->S[d]);
		inter += ci * h->stride[d];
		hm++;
		hn += (cs != ci) + (ci != cd);
		if (port_m == UINT32_MAX) {
			port_m = topo_hyperx_port(h, d, cs, cd, 0);
			k_m = h->K[d];
		}
		if (port_n == UINT32_MAX && ci != cs) {
			port_n = topo_hyperx_port(h, d, cs, ci, 0);
			k_n = h->K[d];
		}
	}
	/* Minimal when hm x qm <= hn x qn + 2. hn >= hm >= 1 (the detour
	 * crosses every dimension the minimal path does), so hm x qm <= 2
	 * decides it without qn, and a shared first port has qn = qm. No
	 * port towards inter: inter is the source, and qn = UINT32_MAX
	 * makes the minimal path win (hn = hm then). Trunked (BookSim has
	 * no trunks), a path's queue is its least occupied trunk's, the one
	 * the hop takes (ugal_hx_hop_port); untrunked, the one port's. */
	uint64_t qm, qn;
	ugal_least_trunk(v, router, port_m, k_m, ROUTE_Q_CREDIT, &qm);
	bool take_min = (uint64_t)hm * qm <= 2;
	if (!take_min) {
		if (port_n == UINT32_MAX)
			qn = UINT32_MAX;
		else if (port_n == port_m)
			qn = qm;
		else
			ugal_least_trunk(v, router, port_n, k_n, ROUTE_Q_CREDIT, &qn);
		take_min = (uint64_t)hm * qm <= (uint64_t)hn * qn + 2;
	}
	if (take_min) {
		p->phase = PH_MIN;
	} else {
		p->phase = PH_NONMIN;
		p->inter = inter;
	}
}

/* A trunked hop's port (ugal_hx_hop_port's choice of trunk), out of line
 * and tail-called: nothing of the hop is live across a call, so the
 * untrunked hop, BookSim's case, saves no registers (it pushed six). */
static __attribute__((noinline)) int ugal_bs_flatfly_trunk(const struct route_view *v, uint32_t router,
							   uint32_t first, uint32_t n, struct route_cand *out)
{
	uint64_t q;
	out->port = (uint16_t)ugal_least_trunk(v, router, first, n, ROUTE_Q_CREDIT, &q);
	return 1;
}

/* BookSim's ugal_flatfly_onchip at a hop, the source decision made:
 * phase 1 (BookSim's ph 1, towards the intermediate) is PH_NONMIN here,
 * its ph 2 PH_MIN. */
static inline int ugal_bs_flatfly_hop(const struct route *r, uint32_t router, struct route_pkt *p,
				      const struct route_view *v, struct route_cand *out)
{
	uint32_t target = p->dst_router, half = r->n_vcs / 2;
	uint32_t lo = half, hi = r->n_vcs - 1;
	if (p->phase == PH_NONMIN) {
		if (router == p->inter) {
			p->phase = PH_MIN;
		} else {
			target = p->inter;
			lo = 0;
			hi = half - 1;
		}
	}
	if (router == target)
		return route_eject(r, p, out);
	/* The VC range stored first, then the port: fewer values live at
	 * once. */
	out->vc_lo = (uint8_t)lo;
	out->vc_hi = (uint8_t)hi;
	out->prio = 0;
	const struct topo_hyperx *h = ((const struct ugal_state *)r->state)->hx;
	/* ugal_hx_first_port with no bound on the scan: router != target,
	 * so they differ in some dimension. */
	const uint16_t *ca = h->coord + (size_t)router * (size_t)h->L;
	const uint16_t *cb = h->coord + (size_t)target * (size_t)h->L;
	int d = 0;
	while (ca[d] == cb[d])
		d++;
	uint32_t port = topo_hyperx_port(h, d, ca[d], cb[d], 0);
	out->port = (uint16_t)port;
	if (__builtin_expect(h->K[d] > 1 && v != NULL, 0))
		return ugal_bs_flatfly_trunk(v, router, port, h->K[d], out);
	return 1;
}

/* The source router without a decision at injection (routing_delay > 0). */
static __attribute__((noinline)) int ugal_compute_bs_flatfly_source(const struct route *r, uint32_t router,
								    struct route_pkt *p, struct rng *rng,
								    const struct route_view *v,
								    struct route_cand *out)
{
	ugal_bs_flatfly_decide(r, router, p, rng, v);
	return ugal_bs_flatfly_hop(r, router, p, v, out);
}

/* BookSim's ugal_flatfly_onchip. The source decision is a separate
 * function so that the per-hop path saves no registers. */
static __attribute__((noinline)) int ugal_compute_bs_flatfly(const struct route *r, uint32_t router,
							     struct route_pkt *p, struct rng *rng,
							     const struct route_view *v, struct route_cand *out)
{
	/* Decided first: with lookahead routing every packet is, so the one
	 * test is always false (hops == 0 first was true one hop in three). */
	if (p->vc_class != UGAL_DECIDED && p->hops == 0)
		return ugal_compute_bs_flatfly_source(r, router, p, rng, v, out);
	return ugal_bs_flatfly_hop(r, router, p, v, out);
}

/* mode=booksim with lookahead routing: BookSim decides as the head leaves
 * the source endpoint, on the source router's credits then (route.h). */
static void ugal_decide_at_injection(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
				     const struct route_view *v)
{
	const struct ugal_params *pr = r->params;
	const struct ugal_state *s = r->state;

	if (pr->mode != UGAL_BOOKSIM)
		return;
	if (s->bs_dragonfly)
		ugal_bs_dragonfly_decide(r, router, p, rng, v);
	else
		ugal_bs_flatfly_decide(r, router, p, rng, v);
	p->vc_class = UGAL_DECIDED;
}

static int ugal_compute(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
			struct route_pkt *p, struct rng *rng, const struct route_view *v, struct route_cand *out)
{
	const struct ugal_state *s = r->state;
	(void)in_port;
	(void)in_vc;
	return s->compute(r, router, p, rng, v, out);
}

const struct route_ops route_ugal_ops = {
	.name = "ugal",
	.help = "UGAL-L / UGAL-G: minimal or Valiant chosen at the source by queue x hops (Kim et al. ISCA 2008 4.2); "
		"VC class per hop, needs num_vcs >= 2 x diameter. mode=booksim is BookSim2's ugal_dragonflynew "
		"(3 VCs; it admits a channel dependency cycle on VC 0 and can deadlock) or ugal_flatfly_onchip",
	.params = ugal_params_def,
	.params_size = sizeof(struct ugal_params),
	.state_size = sizeof(struct ugal_state),
	.families = ugal_families,
	.topo_views = TOPO_VIEW_HYPERX,
	.is_deterministic = false,
	.init = ugal_init,
	.release = ugal_release,
	.inject = ugal_inject,
	.compute = ugal_compute,
	.snapshot = ugal_snapshot,
	.decide_at_injection = ugal_decide_at_injection,
};
