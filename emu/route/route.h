/* Routing algorithms.
 *
 * An algorithm is a `const struct route_ops` registered by name in
 * registry.c. It is instantiated once per run over a topology and a VC
 * count (init precomputes whatever it needs: closed-form views, tables for
 * irregular graphs) and then called once per packet per router, at the head
 * flit, to write candidate (output port, VC range) sets into a buffer the
 * caller owns. Adaptive algorithms read congestion through a read-only view
 * the router provides. Deadlock freedom is each algorithm's own argument
 * (VC classes, datelines, escape channels), stated in its file header.
 */
#ifndef NETLOOM_ROUTE_ROUTE_H
#define NETLOOM_ROUTE_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/param.h"

struct config;

struct nl_err;
struct rng;
struct topo;

#define ROUTE_MAX_CANDS 16

/* One candidate: an output port of the current router and an inclusive VC
 * range on it; higher prio is preferred by the VC allocator. */
struct route_cand {
	uint16_t port;
	uint8_t vc_lo, vc_hi;
	int16_t prio;
};

/* The port a candidate list prefers: the first of the highest priority
 * (what a by-priority VC allocator tries first; sequential allocation
 * counts a routed head there). */
static inline uint32_t route_cands_preferred(const struct route_cand *c, uint32_t n)
{
	uint32_t best = 0;
	for (uint32_t k = 1; k < n; k++)
		if (c[k].prio > c[best].prio)
			best = k;
	return c[best].port;
}

/* Per-packet routing state, carried in the packet from injection to
 * ejection. The meaning of inter/phase/vc_class is the algorithm's. */
struct route_pkt {
	uint32_t src_ep;   /* source endpoint (route_src_router: its router) */
	uint32_t dst_ep;   /* destination endpoint (for the ejection port) */
	uint32_t inter;    /* e.g. Valiant's intermediate router */
	uint8_t phase;     /* e.g. Valiant phase */
	uint8_t vc_class;  /* e.g. dateline partition of the current ring */
	uint8_t hops;      /* router-to-router hops taken so far */
	uint8_t tclass;    /* traffic class, set at injection ([router] traffic_classes);
	                    * VCs here are the class's own, numbered from 0 */
	/* Last: the flit model keeps the fields above in its packet record
	 * and rebuilds this one (emu/net/net_internal.h, struct fl_rt). */
	uint32_t dst_router;
};

/* Read-only congestion views of the router computing a route (issue 11
 * part 3). Filling them costs the router two stores, whatever the
 * algorithm reads, so algorithms that read nothing pay nothing more.
 *  - local: the occupancy of each output VC's downstream buffer (flits
 *    sent, not yet credited: BookSim's credit-based view), per VC
 *    (route_view_occ) or summed over the port's VCs, which is BookSim's
 *    GetUsedCredit and the output queue length UGAL compares
 *    (route_view_port_occ);
 *  - global (oracle, UGAL-G and source-routed schemes): the same
 *    occupancy of any channel in the network, by global port
 *    (route_view_gocc). Only instances whose init sets ROUTE_VIEW_GLOBAL in
 *    r->views may read it; the engine refuses them when partitions > 1 (another
 *    partition's channels change while this one runs), unless they read
 *    the periodic snapshot instead (route_ops.snapshot);
 *  - output queue (route_view_port_oq): per local output port, the flits
 *    that won the crossbar (or, with the one-cycle crossbar, switch
 *    allocation) and wait in the router's output stage for the channel,
 *    read by the engine's accessor from the port's "channel free at" cycle
 *    without a scan (two constant stores per route, whatever is read).
 *    With speedups it grows; at speedup 1 it is 0 or 1. Functions choose
 *    the view with their `queue` parameter (route_view_port_q). */
struct route_view {
	const void *occ_base;    /* occupancy of (port 0, VC 0) of this router */
	uint32_t occ_stride;     /* bytes between consecutive (port, VC) entries */
	uint32_t n_vcs;
	uint32_t vc_buf_size;    /* flits per VC buffer */
	uint32_t port_base;      /* global port of this router's local port 0 (for gpend) */
	const void *gocc_base;   /* occupancy of (global port 0, VC 0); NULL when not provided */
	/* Output-queue view: flits waiting in router's output stage for local
	 * port `port`; NULL when the caller has none. */
	uint32_t (*oq)(const void *ctx, uint32_t router, uint32_t port);
	const void *oq_ctx;
	/* Sequential allocation ([router] sequential_allocation): by global
	 * port, the flits its router has already routed to it and not yet
	 * sent. NULL when off (one pointer and the port base in the padding:
	 * filling the view stays two stores more than without it). */
	const uint32_t *gpend;
	/* By global port: its occupancy summed over its VCs, kept by the
	 * engine as flits leave and credits return, so the port views below
	 * read one word instead of n_vcs strided ones (an adaptive choice reads
	 * every candidate port's: 15 ports x 3 VCs on Equality's 80-port
	 * routers). NULL: sum occ_base's entries (snapshot views). */
	const uint32_t *gpocc;
	/* By global port, for functions that ask (route.asum_vcs): bits 0-15
	 * the flits downstream in its VCs 0..asum_vcs-1; bits 16-24 256 -
	 * asum_vcs + how many of those VCs hold at least route.asum_full
	 * flits (none when asum_full is 0), so bit 24 alone says that every
	 * one does and bits 16-23 are then 0: w & ROUTE_ASUM_KEY orders the
	 * ports by load, those with every VC at asum_full after all others.
	 * Kept by the engine as flits leave and credits return, so a port's
	 * load and "blocked" test are one read instead of asum_vcs strided
	 * ones (dal's deroute scan). NULL: read occ_base. Readable for 8
	 * words past the last port (dal_scan_key8 reads a dimension's 8 at
	 * once). */
	const uint32_t *gasum;
};

/* route_view.gasum: the load with the all-full bit (ROUTE_ASUM_FULL). */
#define ROUTE_ASUM_KEY 0xff00ffffu
#define ROUTE_ASUM_FULL (1u << 24)
/* Its bits 16-24 with no VC at asum_full, for m = asum_vcs (< 256). */
static inline uint32_t route_asum_base(uint32_t m)
{
	return (256u - m) << 16;
}

/* Flits routed to local port `port` here and not yet sent: 0 unless
 * sequential allocation is on. */
static inline uint32_t route_view_pend(const struct route_view *v, uint32_t port)
{
	return v->gpend ? v->gpend[v->port_base + port] : 0;
}

/* The same for this router's ports from local port `first` on, or NULL
 * when off: a row to index by local port - first. */
static inline const uint32_t *route_view_pend_row(const struct route_view *v, uint32_t first)
{
	return v->gpend ? v->gpend + v->port_base + first : NULL;
}

/* Flits in the downstream buffer of (port, vc): sent, not yet credited. */
static inline uint32_t route_view_occ(const struct route_view *v, uint32_t port, uint32_t vc)
{
	return *(const uint16_t *)((const char *)v->occ_base + (size_t)(port * v->n_vcs + vc) * v->occ_stride);
}

/* Flits queued for the downstream buffers of local output port `port`,
 * summed over its VCs (BookSim's Router::GetUsedCredit). */
static inline uint32_t route_view_port_occ(const struct route_view *v, uint32_t port)
{
	uint32_t q = route_view_pend(v, port);
	if (v->gpocc)
		return q + v->gpocc[v->port_base + port];
	/* route_view_occ's entries by a stepped pointer, four per step: its
	 * 32-bit index arithmetic cost a multiply per VC (UGAL reads two
	 * ports of 8 VCs per packet on BookSim's flattened butterfly). */
	const size_t st = v->occ_stride;
	const char *b = (const char *)v->occ_base + (size_t)(port * v->n_vcs) * st;
	uint32_t n = v->n_vcs, q2 = 0;
	for (; n >= 4; n -= 4, b += 4 * st) {
		q += (uint32_t)*(const uint16_t *)b + *(const uint16_t *)(b + st);
		q2 += (uint32_t)*(const uint16_t *)(b + 2 * st) + *(const uint16_t *)(b + 3 * st);
	}
	for (; n; n--, b += st)
		q += *(const uint16_t *)b;
	return q + q2;
}

/* Global oracle: the same sum for global port g, any router. */
static inline uint32_t route_view_gocc(const struct route_view *v, uint64_t g)
{
	const char *b = (const char *)v->gocc_base + (size_t)(g * v->n_vcs) * v->occ_stride;
	uint32_t q = v->gpend ? v->gpend[g] : 0;
	if (v->gpocc)
		return q + v->gpocc[g];
	for (uint32_t vc = 0; vc < v->n_vcs; vc++)
		q += *(const uint16_t *)(b + (size_t)vc * v->occ_stride);
	return q;
}

/* Output-queue view: flits waiting in router's output stage for its local
 * output port `port` (0 when the view has none). */
static inline uint32_t route_view_port_oq(const struct route_view *v, uint32_t router, uint32_t port)
{
	return v->oq ? v->oq(v->oq_ctx, router, port) : 0;
}

/* The `queue` parameter of adaptive functions (ugal, anca): which local
 * view measures a port's queue. credit (the default) is BookSim's
 * GetUsedCredit; routed is the flits this router has routed to the port
 * and not yet sent, sequential allocation's count alone (an input-queued
 * router's backlog for an output waits at its inputs, where credits in
 * flight do not show it), so it needs sequential_allocation = 1
 * (route.needs_pend). */
enum { ROUTE_Q_CREDIT, ROUTE_Q_OUTPUT, ROUTE_Q_BOTH, ROUTE_Q_ROUTED };
extern const char *const route_queue_names[]; /* "credit", "output", "both", "routed", NULL */
/* The choices' meaning, for the help text of every function's `queue`. */
#define ROUTE_QUEUE_HELP                                                                                          \
	"credit (flits sent downstream, not yet credited: BookSim's GetUsedCredit), output (flits waiting in this " \
	"router's output stage), both (their sum) or routed (flits routed to the port here and not yet sent; "      \
	"needs sequential_allocation = 1)"

static inline uint32_t route_view_port_q(const struct route_view *v, uint32_t router, uint32_t port, int which)
{
	if (which == ROUTE_Q_CREDIT)
		return route_view_port_occ(v, port);
	if (which == ROUTE_Q_OUTPUT)
		return route_view_port_oq(v, router, port);
	if (which == ROUTE_Q_ROUTED)
		return route_view_pend(v, port);
	return route_view_port_occ(v, port) + route_view_port_oq(v, router, port);
}

/* route.views: which views compute reads beyond the local one. */
enum {
	ROUTE_VIEW_GLOBAL = 1u << 0, /* route_view_gocc in compute (refused with partitions > 1) */
	/* route_view_port_oq in compute: the view's oq is NULL (reads 0)
	 * without it, and the flit model may then send a switch winner to
	 * its output queue in the step it wins (emu/net/flitnet_plan.c, direct_xbar),
	 * which only the output-queue view could tell from a step later. */
	ROUTE_VIEW_OQ = 1u << 1,
};

/* The views a `queue=` choice reads beyond the credits (ROUTE_Q_*). */
static inline unsigned route_queue_views(int queue)
{
	return queue == ROUTE_Q_OUTPUT || queue == ROUTE_Q_BOTH ? ROUTE_VIEW_OQ : 0u;
}

/* An instantiated algorithm. */
struct route {
	const struct route_ops *ops;
	const struct topo *topo; /* not owned */
	void *params;            /* parsed parameters (owned) */
	void *state;             /* ops->state_size bytes (owned) */
	char *spec;              /* canonical spec (owned) */
	uint32_t n_vcs;          /* VCs per port */
	/* Where num_vcs was set ("file.ini:12", "-s"), so init's VC-count
	 * refusals (route_vcs_errf) start as read-time errors do; NULL: its
	 * default, or not known. Not owned; set during route_new only. */
	const char *vcs_origin;
	bool vcs_refused; /* init refused the VC count (route_vcs_errf) */
	/* Built only to be checked (route_origin's is_check): compute must
	 * not be called. */
	bool is_check;
	uint32_t max_cands;      /* most candidates compute returns; init may lower it (default ROUTE_MAX_CANDS) */
	uint32_t snapshot_period; /* cycles between ops->snapshot calls; init sets it, 0 = never */
	unsigned views;          /* ROUTE_VIEW_* this instance reads beyond the local view; init sets them */
	/* Set by init for functions with an escape VC (Duato's theorem): the
	 * VC allocator grants an output VC only when its downstream buffer
	 * has room for the head's whole packet (cut-through; one flit with
	 * wormhole), so a head never waits on an adaptive VC it was given. */
	bool va_room;
	/* Init sets it when deadlock freedom needs atomic VC reallocation: an
	 * output VC goes to a new packet only once its downstream buffer is
	 * empty (wait_for_tail_credit = 1; the engine refuses it otherwise).
	 * Escape-channel schemes (Duato 1995) need it: a head queued behind
	 * another packet in an adaptive VC could not reach its escape VC. */
	bool needs_atomic_vcs;
	/* Init sets it when deadlock freedom needs virtual cut-through: a
	 * blocked packet whole in one buffer, so only direct channel
	 * dependencies count (Duato 1996; updown_adaptive:escape=return). The
	 * engine refuses it unless flow_control = vct. */
	bool needs_vct;
	/* compute reads no router state and draws nothing (the candidates
	 * depend on the router, the in-port and the packet alone), so it may
	 * run at any time before the head needs them: the engine then skips
	 * lookahead_decide = upstream's bookkeeping. Defaults to
	 * ops->is_deterministic; init sets it for functions whose per-hop
	 * step only follows a decision made at injection (ugal:mode=booksim). */
	bool hop_pure;
	/* Init sets it when compute's only input besides the packet, the
	 * router, its in-port and the views is rng, and it changes nothing a
	 * later compute of the same step reads. The engine then draws its
	 * random numbers from a stream keyed to (router, cycle, input VC), not
	 * from the router's running stream (router.c, fl_route_decide): the
	 * order in which a step computes its routes, which the VC queue's
	 * order sets, can then change no route, so heads with no free VC may
	 * wait parked until one is freed instead of bidding every cycle
	 * (flitnet_build.c, va_park). Set by the Equality functions, whose
	 * saturated runs spent most of their time in those bids. */
	bool keyed_draws;
	/* Init sets it when compute reads the summed port views
	 * (route_view_port_occ, route_view_gocc) for many ports at every hop:
	 * the engine then keeps the sums as flits leave and credits return
	 * (route_view.gpocc), two updates per flit-hop for one read per port
	 * instead of n_vcs. Set by the Equality functions (15 of 80 ports x 3
	 * VCs per hop on the 128,000-endpoint network: 3.6% fewer instructions
	 * in all); a function reading two ports once per packet (UGAL at the
	 * source) gains nothing from it (0.5% more on the FleX dragonfly). */
	bool port_sums;
	/* Init sets it when compute reads route_view_pend, the flits routed
	 * to a port and not yet sent, as more than a tie-breaker (dal/minad
	 * `queue`): the engine refuses it without [router]
	 * sequential_allocation = 1, which keeps that count. */
	bool needs_pend;
	/* Init sets them when compute reads, for many ports at every hop,
	 * the sum over each port's VCs 0..asum_vcs-1 and whether each of
	 * those holds at least asum_full flits (dal: m adaptive VCs and its
	 * `block`): the engine then keeps both per port (route_view.gasum),
	 * two updates per flit-hop. 0: off. The engine may leave the view
	 * NULL (traffic classes, sums that do not fit 16 bits, 2^32 output VCs
	 * or more), so compute keeps its own path without it. */
	uint32_t asum_vcs;
	uint32_t asum_full;
};

struct route_ops {
	const char *name; /* "dor" */
	const char *help; /* one line with the paper */
	const struct param_def *params;
	size_t params_size;
	size_t state_size;
	/* Topology families it runs on (NULL-terminated) besides those of
	 * topo_views; NULL with no topo_views: any graph. Refusals and --help
	 * list both kinds in the topology registry's order. */
	const char *const *families;
	/* Family views (TOPO_VIEW_*, topo/topo.h) compute reads: it runs on
	 * every family that publishes one (topo_family_views), so that a
	 * family publishing the view needs no name added here. 0: none. */
	unsigned topo_views;
	/* Deterministic algorithms get the acyclic channel-dependency check
	 * in the registry conformance test. */
	bool is_deterministic;
	/* compute's priorities are part of the algorithm, not a tie-break:
	 * a lower candidate (a deroute, an escape VC, a blocked port) is to
	 * be taken only when no higher one has a free VC (minad, dal: seed
	 * 001 §3.3's "if unblocked"; updown_adaptive, whose up-down escape
	 * may be non-minimal). Only a by-priority VC allocator
	 * (alloc_ops.by_priority, separable_*) honours that, so the engine
	 * refuses any other (emu/net/flitnet_plan.c); iSLIP picks by round robin
	 * and took DAL's deroutes at zero load (hyperx:s=4x4,t=2, 0.001:
	 * 2.11 hops, min 1.46). */
	bool needs_priority_alloc;

	/* Optional: why a parameter of params, set to other than its
	 * default, changes nothing on topology family `family` ("dateline=0
	 * ...: a mesh has no ring"), or NULL. A default never warrants a
	 * word (the canonical spec names every parameter). */
	const char *(*noop)(const void *params, const char *family);

	/* Optional: whether parameter `param` means nothing on topology
	 * family `family`, whatever its value (dor's dateline on a mesh,
	 * which has no ring). The spec a run on that family reports (r->spec,
	 * route_spec_canonical given the family) leaves it out, so that it
	 * names only what the run does; that spec parses to the same run.
	 * NULL: every parameter means something on every family. */
	bool (*ignores)(const char *param, const char *family);

	/* Check the topology and the VC count, precompute. Errors name the
	 * rule ("dor on torus needs an even number of VCs >= 2 (dateline
	 * classes)"); a refused VC count goes through route_vcs_errf
	 * (route_internal.h), which says where num_vcs was set. */
	int (*init)(struct route *r, struct nl_err *err);
	void (*release)(struct route *r);

	/* At the source NIC: set per-packet state (p's src/dst fields are set)
	 * and the VC range to inject into. rng is the endpoint's stream. */
	void (*inject)(const struct route *r, struct route_pkt *p, struct rng *rng, uint8_t *vc_lo,
		       uint8_t *vc_hi);

	/* At `router`, for a head flit that arrived on local port in_port, VC
	 * in_vc: write candidates (at least one) and return their count. At
	 * the destination router the candidate is the destination endpoint's
	 * terminal port. rng is the router's stream; v may be NULL for
	 * deterministic algorithms. Never fails. */
	int (*compute)(const struct route *r, uint32_t router, uint32_t in_port, uint32_t in_vc,
		       struct route_pkt *p, struct rng *rng, const struct route_view *v,
		       struct route_cand *out);

	/* Optional: called by the engine every r->snapshot_period cycles
	 * (when > 0), between cycles, with the global view, for schemes that
	 * decide on stale state (LBR): copy what compute will read into
	 * r->state. Unlike the live global view it is allowed with
	 * partitions > 1 (all partitions are between cycles). */
	void (*snapshot)(const struct route *r, const struct route_view *global, uint64_t now);

	/* Optional: with lookahead routing (routing_delay = 0) the engine
	 * calls it as a head flit leaves its source endpoint, with the source
	 * router's view at that moment, as BookSim2's TrafficManager::_Step
	 * computes the first router's route at injection (before the flit
	 * crosses the terminal channel and queues in the input buffer). A
	 * function whose source decision reads congestion makes it here and
	 * records it in p; compute then follows it. rng is the endpoint's
	 * stream. NULL: compute decides at the router. */
	void (*decide_at_injection)(const struct route *r, uint32_t router, struct route_pkt *p, struct rng *rng,
				    const struct route_view *v);
};

/* All registered algorithms, in registry order. */
const struct route_ops *const *route_list(size_t *n);

/* Algorithm by name, or NULL with *err listing the valid names. */
const struct route_ops *route_find(const char *name, struct nl_err *err);

/* BookSim2's routing function names (route_booksim.c: the one table of
 * them). BookSim looks routing_function up as NAME_NETWORK, NETWORK its
 * topology key ("torus", "flatfly", "dragonflynew", ...). */
/* netloom's spec for BookSim's routing function name on network, or NULL
 * when netloom maps none there. */
const char *route_booksim_spec(const char *network, const char *name);
/* The i-th BookSim name mapped on network (table order), NULL past the
 * last. */
const char *route_booksim_name(const char *network, size_t i);
/* netloom's spec for a BookSim name on any network: bare ("dim_order"),
 * as BookSim looks it up ("dim_order_torus") or as its C function is
 * named ("ugal_flatfly_onchip"); NULL for a name BookSim does not have
 * (the first network's spec where a bare name has several). */
const char *route_booksim_any(const char *name);
/* BookSim's bare name ("romm") when name is a BookSim routing function
 * netloom does not model, bare or as BookSim looks it up ("romm_mesh");
 * NULL otherwise. */
const char *route_booksim_unmodelled(const char *name);
/* What both readers say of such a name (its bare name the one %s). */
#define ROUTE_BOOKSIM_UNMODELLED_FMT "BookSim2's '%s', which netloom does not model (see 'netloom run --help')"

/* Whether spec sets a parameter that changes nothing on topology family
 * `family` (ops->noop): then one line saying which and why in line[cap]
 * ("routing function 'dor:dateline=0' on topology 'mesh': dateline=0
 * does nothing here: ..."). False, line untouched, for a spec that does not parse. */
bool route_spec_noop(const char *spec, const char *family, char *line, size_t cap);

/* "name:k=v,..." with every parameter given, defaults filled in, in the
 * table's order (what route_new's r->spec holds on a topology of family
 * `family`), without building the function: init never changes its
 * parameters. Parameters that mean nothing on `family` (ops->ignores) are
 * left out; family NULL: none is. Caller frees *out. */
int route_spec_canonical(const char *spec, const char *family, char **out, struct nl_err *err);

/* Whether spec names a function that runs on topology family `family`
 * ("torus") with parameters that parse: route_new's refusals of the spec
 * itself, same messages, without a network (what init checks on the
 * network and its VCs is left to route_new). */
int route_spec_check(const char *spec, const char *family, struct nl_err *err);

/* Parse "name:k=v,...", check it supports t's family, and init it for
 * n_vcs VCs. */
int route_new(const char *spec, const struct topo *t, uint32_t n_vcs, struct route **out,
	      struct nl_err *err);
/* Where the keys route_new reads were set, so its refusals start as the
 * errors found while reading the configuration do. */
struct route_origin {
	/* num_vcs's (config_origin: "file.ini:12", "-s"; NULL when unknown or
	 * left at its default): "file.ini:12: routing function 'dor' on a
	 * torus needs ..." */
	const char *vcs;
	/* The configuration routing_function came from (NULL: none): a
	 * refused spec starts with its file and line when a file set it
	 * (config_err_file_line). */
	const struct config *spec_cfg;
	/* The route is built to be checked and freed, never run (a backend
	 * that does not route, session_route_check): init makes every
	 * refusal it makes for a run but may skip what only computing routes
	 * reads (min's n x n distance table: 64 MiB on 8,192 routers). */
	bool is_check;
};
/* The same, with where its keys were set (at may be NULL). */
int route_new_origin(const char *spec, const struct topo *t, uint32_t n_vcs, const struct route_origin *at,
		     struct route **out, struct nl_err *err);
void route_free(struct route *r);

/* Print every algorithm with its parameters and families (for --help). */
void route_print_help(FILE *f);

/* Helpers for algorithms: the terminal port of endpoint e at its router,
 * and the full VC range as one candidate. */
int route_eject(const struct route *r, const struct route_pkt *p, struct route_cand *out);

#endif
