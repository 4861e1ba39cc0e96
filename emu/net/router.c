/* The input-queued virtual-channel router, one pipeline step at a time.
 *
 * Stages and their timing follow BookSim2's IQRouter so that the same
 * configuration gives the same results (DESIGN §4): an input VC moves
 * idle -> routing -> vc_alloc -> active; each of the route, VC-allocation
 * and switch-allocation stages is a FIFO whose leading unevaluated items are
 * evaluated in a step (their completion time set to now + delay - 1) and
 * updated once that time has come; the crossbar is a FIFO of flits with the
 * same rule. Update order within a step is route, VC, switch, crossbar, so
 * a head flit queued at cycle c is routed at c, VC-allocated at c+1,
 * switch-allocated at c+2, crosses at c+3 and is on the channel at the end
 * of c+3: four cycles per router at the default delays. An input VC routes
 * its next packet only after the previous tail has left (BookSim's rule,
 * which bounds 1-flit-packet throughput). Output VCs are released when the
 * tail is sent (or when its credit returns, with wait_for_tail_credit).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/hold.h"
#include "net/net_internal.h"
#include "net/voq.h"
#include "net/vcbuf.h"
#include "topo/topo.h"

enum { Q_ROUTE, Q_VA, Q_SA };

/* Stage queues are FIFOs threaded through the input VCs' nodes: an input
 * VC waits in at most one of them at a time, so one node per VC serves all
 * three, and a router's queues cost three (head, tail, length) triples.
 * Nodes are addressed by the VC's local index li = port * V + vc. */
static inline struct fl_fifo *fl_q(struct fl_router *ro, int which)
{
	return which == Q_ROUTE ? &ro->route_q : which == Q_VA ? &ro->va_q : &ro->sa_q;
}

static inline struct fl_node *fl_node(struct flitnet *n, const struct fl_router *ro, uint32_t li)
{
	return &n->ivc[ro->vc_base + li].node;
}

static inline void fl_q_push(struct flitnet *n, struct fl_router *ro, int which, uint32_t li)
{
	struct fl_fifo *q = fl_q(ro, which);
	struct fl_node *nd = fl_node(n, ro, li);
	nd->result = FL_UNEVAL; /* time: set by the evaluation, read only after it (fl_due) */
	nd->next = FL_NONE16;
	if (q->len)
		fl_node(n, ro, q->tail)->next = (uint16_t)li;
	else
		q->head = (uint16_t)li;
	q->tail = (uint16_t)li;
	q->len++;
}

/* Queue an arriving flit's VC. BookSim queues a cycle's arrivals in input
 * port order after what earlier steps queued; events reach a router in an
 * order that depends on how other routers were visited, so each arrival is
 * inserted in local-index (port) order among this cycle's arrivals, which
 * keeps results independent of the visiting order. */
static inline __attribute__((always_inline)) void fl_q_push_arrival(struct flitnet *n, struct fl_router *ro, int which,
								     uint32_t li)
{
	/* Inlined by force with `which` a constant, and the nodes read through
	 * a local base: a store into a node may alias n's fields for the
	 * compiler. */
	struct fl_fifo *q = fl_q(ro, which);
	struct fl_ivc *const ivs = n->ivc + ro->vc_base; /* by local VC */
	if (ro->arr_route == FL_ARR_UNSET) { /* the first arrival since the router stepped */
		ro->arr_route = ro->route_q.len ? ro->route_q.tail : FL_NONE16;
		ro->arr_sa = ro->sa_q.len ? ro->sa_q.tail : FL_NONE16;
	}
	const uint32_t tail = q->len ? q->tail : FL_NONE16;
	uint16_t prev = which == Q_ROUTE ? ro->arr_route : ro->arr_sa;
	uint32_t cur = prev == FL_NONE16 ? (q->len ? q->head : FL_NONE16) : ivs[prev].node.next;
	if (prev != FL_NONE16 && prev == tail)
		cur = FL_NONE16;
	while (cur != FL_NONE16 && cur < li) {
		prev = (uint16_t)cur;
		cur = cur == tail ? FL_NONE16 : ivs[cur].node.next;
	}
	struct fl_node *nd = &ivs[li].node;
	nd->result = FL_UNEVAL;
	nd->next = (uint16_t)cur;
	if (prev == FL_NONE16)
		q->head = (uint16_t)li;
	else
		ivs[prev].node.next = (uint16_t)li;
	if (cur == FL_NONE16)
		q->tail = (uint16_t)li;
	q->len++;
}

/* Remove the front item; returns its local VC index. */
static inline uint32_t fl_q_pop(struct flitnet *n, struct fl_router *ro, int which)
{
	struct fl_fifo *q = fl_q(ro, which);
	uint32_t li = q->head;
	q->head = fl_node(n, ro, li)->next;
	q->len--;
	return li;
}

/* Has the item's time come? Times are cycles modulo 2^32, compared by
 * wrapping difference (delays are far shorter than 2^31 cycles). */
static inline bool fl_due(const struct fl_node *nd, uint64_t now)
{
	return nd->result != FL_UNEVAL && (int32_t)(nd->time - (uint32_t)now) <= 0;
}

static inline struct fl_xitem *fl_xq_at(struct flitnet *n, struct fl_router *ro, uint32_t i)
{
	return &n->xitems[ro->xq_off + ((ro->xb_q.head + i) & (ro->xq_cap - 1u))];
}

/* BookSim's _InputQueuing for one arriving flit. */
static inline __attribute__((always_inline)) void fl_router_arrive_at(struct flitnet *n, uint32_t r, uint32_t gport,
								      uint8_t vc, uint32_t pkt, uint16_t seq)
{
	struct fl_router *ro = &n->routers[r];
	uint32_t li = (gport - ro->port_base) * n->V + vc;
	uint64_t iv = (uint64_t)ro->vc_base + li;
	bool was_empty = n->ivc[iv].count == 0;

	fl_buf_push(n, iv, pkt, seq);
	/* An empty VC is idle or active (routing and VC allocation hold the
	 * head): the two branches that queue it also mark the router for
	 * the deadlock scan (dl_held), no test of its own per flit. */
	if (n->ivc[iv].state == VC_IDLE) {
		NL_ASSERT(was_empty && seq == 0);
		n->ivc[iv].state = VC_ROUTING;
		n->dl_held[r] = 1;
		fl_q_push_arrival(n, ro, Q_ROUTE, li);
	} else if (n->ivc[iv].state == VC_ACTIVE && was_empty) {
		n->dl_held[r] = 1;
		fl_q_push_arrival(n, ro, Q_SA, li);
	} else {
		NL_ASSERT(!was_empty);
	}
}

void fl_router_arrive(struct flitnet *n, uint32_t r, uint32_t gport, uint8_t vc, uint32_t pkt, uint16_t seq)
{
	fl_router_arrive_at(n, r, gport, vc, pkt, seq);
}

/* Router r's arrivals of this cycle from fl_cycle's list (first: 1-based;
 * flitnet.c, fl_slot_arrival_lists), the list's arrays in locals. */
void fl_router_arrivals(struct flitnet *n, uint32_t r, uint32_t first)
{
	n->arr_head[r] = 0;
	const uint32_t *const next = n->arr_next;
	const struct fl_cflit *const ev = n->arr_ev;
	for (uint32_t k = first; k; k = next[k - 1]) {
		const struct fl_cflit f = ev[k - 1];
		fl_router_arrive_at(n, r, fl_cflit_to(n, f), fl_cflit_vc(n, f), f.pkt, fl_cflit_seq(n, f));
	}
}

/* --- stages ---------------------------------------------------------------------
 *
 * Each stage is split into what BookSim does in Evaluate (gather requests,
 * allocate, record results) and in Update (apply a result). The general
 * step runs BookSim's order: every stage's evaluation, then every stage's
 * update, items completing when now >= their time. With every delay equal
 * to one cycle (the default) an item evaluated in a step also completes in
 * it, so the fast step handles each stage's items present at the start of
 * the step in one pass, stages in route, VA, SA, crossbar order: each pass
 * only reads state that the later passes change afterwards in BookSim's
 * order too (see the notes at fl_router_step). */

static inline uint32_t fl_done_at(uint64_t now, int64_t delay)
{
	return (uint32_t)(now + (uint64_t)delay - 1);
}

/* Traffic classes: shift the candidates' VC ranges (in the class's own
 * numbering) into class k's contiguous range of every port. */
static void fl_route_class_shift(const struct flitnet *n, uint32_t k, struct route_cand *c, int nc)
{
	uint8_t off = (uint8_t)(k * n->cls_w);
	for (int i = 0; i < nc; i++) {
		c[i].vc_lo = (uint8_t)(c[i].vc_lo + off);
		c[i].vc_hi = (uint8_t)(c[i].vc_hi + off);
	}
}

/* Compute packet pk's route at router r, entering by local port `in` on
 * VC in_vc (the engine's numbering), from r's view now, into dst. The
 * head is routed once per router: count routers here, so the switch stage
 * never touches the packet. rt.hops = router-to-router hops taken so far.
 * Inlined by force: on the per-hop path its call costs 6.7 M of 480 M
 * instructions (df_flex_min 0.3) when LTO's budget leaves it out of line. */
static inline __attribute__((always_inline)) int fl_route_decide(struct flitnet *n, const struct fl_router *ro, uint32_t r, uint32_t in, uint32_t in_vc,
			   struct fl_pkt *pk, struct rng *rng, struct route_cand *dst, bool plain)
{
	const struct route_view *const view = fl_kept_view(n, ro);
	struct route_pkt rt = fl_rt_load(n, &pk->rt);
	struct rng keyed;
	if (n->route->keyed_draws) {
		/* route.h, keyed_draws: a stream of its own per (router, cycle,
		 * input VC), 256 draws apart; one head per input VC routes in a
		 * cycle, so no two computations share one. */
		keyed.key = rng_mix64(ro->rng.key ^ 0x3c6ef372fe94f82bULL);
		keyed.ctr = (n->now << 24) | (uint64_t)(in * n->V + in_vc) << 8;
		rng = &keyed;
	}
	rt.hops = (uint8_t)pk->routers;
	pk->routers++;
	if (!plain && n->n_cls > 1) /* the function works in the class's VCs (flitnet_plan.c) */
		in_vc -= rt.tclass * n->cls_w;
	int nc = n->route->ops->compute(n->route, r, in, in_vc, &rt, rng, view, dst);
	NL_ASSERT(nc >= 1);
	fl_rt_store(&pk->rt, &rt);
	if (!plain && n->n_cls > 1)
		fl_route_class_shift(n, rt.tclass, dst, nc);
	return nc;
}

/* Sequential allocation (Kim, Dally and Abts, "Adaptive routing in
 * high-radix Clos network", SC'06; seed 001 §4.1: "for simulation,
 * sequential allocation is used for adaptive route computation"): a
 * router's route decisions are made one after another, and each sees the
 * ones before it. The engine already decides a router's heads one at a
 * time (route stage order); what the decisions did not see is each other:
 * a head routed to a port counts in that port's credits only once its
 * flits cross the switch, cycles later, so heads routed in the meantime
 * all read the same "least loaded" port and pile onto it. With
 * sequential_allocation = 1 a routed head's flits count at once in
 * n->pend of the port its decision prefers (route_cands_preferred),
 * move to the port the VC allocator grants if that differs, and leave
 * the count one by one as they cross the switch, where the credit view
 * takes them over: route.h adds the count to the port loads the routing
 * functions compare. */

/* Route computation done: store the candidates, move to VC allocation.
 * The per-flit stage updates (this, fl_va_apply, fl_sa_apply and its
 * fl_return_credit) are inlined by force into the stage loops: out of line
 * their prologues and epilogues cost 3.5% of the flattened butterfly's
 * instructions (ff_ranmin 0.3: 693.6 M -> 669.6 M). */
static inline __attribute__((always_inline)) void fl_route_apply(struct flitnet *n, struct fl_router *ro, uint32_t r, uint32_t li,
								  bool plain)
{
	const uint32_t V = n->V;
	uint64_t iv = (uint64_t)ro->vc_base + li;
	/* The candidates' place (fl_cands): the function returns at most
	 * cand_cap = route.max_cands of them. */
	struct route_cand *dst = fl_cands(n, iv);
	struct fl_run *ru = &n->pool.runs[n->ivc[iv].head];
	struct fl_pkt *pk = &n->pool.pkts[ru->pkt];
	uint32_t in = fl_li_port(n, li);
	NL_ASSERT(ru->seq == 0);
	ru->size = pk->size; /* left unset by the arrival (vcbuf.h) */
	if (!plain && __builtin_expect(n->voq != NULL, 0)) {
		if (fl_voq_before_route(n, iv, pk)) /* a route after a rotation is not progress */
			n->last_move = n->now;
	} else {
		n->last_move = n->now; /* progress, for the global deadlock check */
	}
	int nc;
	if (!plain && __builtin_expect(n->la_upstream, 0) && n->pool.la_n[ru->pkt]) {
		/* Decided upstream (fl_la_decide): BookSim's lookahead timing. */
		nc = n->pool.la_n[ru->pkt];
		memcpy(dst, n->pool.la_cand + (uint64_t)ru->pkt * n->pool.la_w, (size_t)nc * sizeof *dst);
		n->pool.la_n[ru->pkt] = 0;
	} else {
		nc = fl_route_decide(n, ro, r, in, li - in * V, pk, &ro->rng, dst, plain);
	}
	NL_ASSERT((uint32_t)nc <= n->cand_cap);
	n->ivc[iv].ncand = (uint8_t)nc;
	if (!plain && __builtin_expect(n->pend != NULL, 0))
		n->pend[ro->port_base + route_cands_preferred(dst, n->ivc[iv].ncand)] += ru->size;
	n->ivc[iv].state = VC_VCALLOC;
	fl_q_push(n, ro, Q_VA, li);
}

/* --- lookahead_decide = upstream ---------------------------------------------
 *
 * BookSim's lookahead routing (routing_delay = 0) computes a head's route
 * for the next router as the head wins the switch of the current one
 * (IQRouter::_SWAllocUpdate calls the routing function with the
 * downstream router) and for the first router as the endpoint injects it,
 * so an adaptive choice reads that router's credits a channel and a
 * pipeline earlier than the head's arrival. Here the endpoint's decision
 * is made as it injects (every router is between steps then) and the
 * switch winners' at the end of the cycle they won, after every router has
 * stepped, in global output-port order: the state read and the order of
 * the random draws do not depend on the order routers are visited. (BookSim
 * reads the downstream router mid-cycle, before or after its own step
 * depending on router numbering: at most one step apart.) With partitions
 * the decisions wait for the exchange, when every router has stepped and
 * every head has reached its downstream partition (part.c,
 * fl_la_flush_parts): the same state, the same order. */
void fl_la_decide(struct flitnet *n, uint32_t r, uint32_t in, uint32_t in_vc, uint32_t pkt, struct rng *rng)
{
	const struct fl_router *ro = &n->routers[r];
	struct route_cand *dst = n->pool.la_cand + (uint64_t)pkt * n->pool.la_w;
	int nc = fl_route_decide(n, ro, r, in, in_vc, &n->pool.pkts[pkt], rng, dst, false);
	NL_ASSERT((uint32_t)nc <= n->pool.la_w);
	n->pool.la_n[pkt] = (uint8_t)nc;
}

static bool fl_la_before(const struct fl_la_pend *x, const struct fl_la_pend *y)
{
	return x->gout != y->gout ? x->gout < y->gout : x->order < y->order;
}

/* Routers push their winners as they step, in index order, and a router's
 * ports are numbered after the previous router's: the list arrives sorted
 * but for each router's own winners, so an insertion sort costs about one
 * comparison per entry (qsort's merge sort cost 8% of all instructions on
 * the FleX dragonfly at 0.3). (gout, order) is a total order: any correct
 * sort gives the same decisions. */
static void fl_la_sort(struct fl_la_pend *a, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		if (!fl_la_before(&a[i], &a[i - 1]))
			continue;
		struct fl_la_pend e = a[i];
		uint32_t j = i;
		do {
			a[j] = a[j - 1];
			j--;
		} while (j > 0 && fl_la_before(&e, &a[j - 1]));
		a[j] = e;
	}
}

void fl_la_sort_pending(struct flitnet *n)
{
	fl_la_sort(n->la_pend, n->n_la_pend);
}

void fl_la_flush(struct flitnet *n)
{
	if (!n->n_la_pend)
		return;
	fl_la_sort(n->la_pend, n->n_la_pend);
	for (uint32_t i = 0; i < n->n_la_pend; i++) {
		const struct fl_la_pend *e = &n->la_pend[i];
		uint32_t gin = n->ports[e->gout].link.to;
		uint32_t r = n->topo->port_router[gin];
		struct fl_router *ro = &n->routers[r];
		fl_la_decide(n, r, gin - ro->port_base, e->vc, e->pkt, &ro->rng);
	}
	n->n_la_pend = 0;
}

uint32_t fl_router_oq(const void *ctx, uint32_t r, uint32_t port)
{
	const struct flitnet *n = ctx;
	const uint64_t f = n->ports[n->routers[r].port_base + port].out_free;
	return f > n->now ? (uint32_t)(f - n->now) : 0;
}

/* Is the buffer across output VC ov too full for the front flit? Wormhole:
 * one free slot; cut-through: a head needs room for its whole packet. */
static inline bool fl_out_full(const struct flitnet *n, uint64_t ov, uint64_t iv)
{
	uint32_t need = 1;
	if (n->nc.flow_control == FL_VCT && n->pkt_max_flits > 1 && n->pool.runs[n->ivc[iv].head].seq == 0)
		need = n->pool.runs[n->ivc[iv].head].size;
	return n->ovc[ov].occ + need > n->buf;
}

/* The flits input VC iv's front flit needs downstream (fl_out_full's
 * rule), read once per head rather than once per candidate VC: 0 when
 * `room` is off (nothing is tested). */
static inline uint32_t fl_va_need(const struct flitnet *n, uint64_t iv, bool room)
{
	if (!room)
		return 0;
	if (n->nc.flow_control == FL_VCT && n->pkt_max_flits > 1 && n->pool.runs[n->ivc[iv].head].seq == 0)
		return n->pool.runs[n->ivc[iv].head].size;
	return 1;
}

/* Can an input VC take output VC ov (&n->ovc[...]): free and, for
 * escape-VC functions (`room`), with room downstream for the `need`
 * flits of fl_va_need (fl_out_full). */
static inline bool fl_va_free(const struct flitnet *n, const struct fl_ovc *ov, bool room, uint32_t need)
{
	return ov->owner == FL_NONE && !(room && ov->occ + need > n->buf);
}

/* Output VC ovc of local port `port` of router ro. */
static inline const struct fl_ovc *fl_va_ovc(const struct flitnet *n, const struct fl_router *ro, uint32_t port,
					     uint32_t ovc)
{
	return n->ovc + (uint64_t)(ro->port_base + port) * n->V + ovc;
}

/* The highest priority among input VC iv's candidates that have a free
 * output VC, INT32_MIN if none. */
static int32_t fl_va_top_prio(const struct flitnet *n, const struct fl_router *ro, uint64_t iv,
			      const struct route_cand *c, bool room)
{
	int32_t top = INT32_MIN;
	const uint32_t need = fl_va_need(n, iv, room);
	for (uint32_t k = 0; k < n->ivc[iv].ncand; k++) {
		if (c[k].prio <= top)
			continue;
		const struct fl_ovc *ov = fl_va_ovc(n, ro, c[k].port, 0);
		for (uint32_t ovc = c[k].vc_lo; ovc <= c[k].vc_hi; ovc++)
			if (fl_va_free(n, ov + ovc, room, need)) {
				top = c[k].prio;
				break;
			}
	}
	return top;
}

/* Head li is the only one asking for candidate c's VCs (one port, no
 * room test): it takes the first free VC from its accept pointer, as an
 * allocator's single-input case does, and both pointers move past it.
 * The local output VC, or FL_STALL_BUFFER_BUSY when none is free. */
static inline int32_t fl_va_alone(struct flitnet *n, const struct fl_router *ro, uint32_t li,
				  const struct route_cand *c)
{
	const uint32_t V = n->V, side = (uint32_t)ro->n_ports * V, base = c->port * V;
	const struct fl_ovc *ovs = n->ovc + (uint64_t)ro->vc_base; /* by local output VC */
	uint16_t *ap = n->va_aptr + ro->vc_base + li;
	/* The first free VC of the contiguous range lo..hi in round-robin
	 * order from the pointer: from the pointer to hi when the pointer is
	 * inside the range (past lo), then from lo; else from lo. The same VC
	 * as the least (VC - pointer) mod side, without a modulo per VC. */
	const uint32_t lo = base + c->vc_lo, hi = base + c->vc_hi;
	const uint32_t start = *ap > lo && *ap <= hi ? *ap : lo;
	uint32_t best = UINT32_MAX;
	for (uint32_t o = start; o <= hi; o++)
		if (ovs[o].owner == FL_NONE) {
			best = o;
			break;
		}
	if (best == UINT32_MAX)
		for (uint32_t o = lo; o < start; o++)
			if (ovs[o].owner == FL_NONE) {
				best = o;
				break;
			}
	if (best == UINT32_MAX)
		return FL_STALL_BUFFER_BUSY;
	*ap = (uint16_t)fl_add_mod(best, 1, side);
	n->va_gptr[ro->vc_base + best] = (uint16_t)fl_add_mod(li, 1, side);
	return (int32_t)best;
}

/* iSLIP without priorities: a head with one candidate range of several
 * VCs on one output port that no other head of the step asks for is a
 * problem of its own: no other request touches its input or those VCs, so
 * it is decided alone, as the single-input case of fl_allocate (alloc.c)
 * decides it: every free VC grants (the input is unmatched in the first
 * iteration), the input accepts the first from its accept pointer, and
 * both pointers move past the match. n->port_req holds, for the ports
 * stamped with this step in n->port_gen, the only such head asking for
 * the port, FL_PORT_DEFERRED when other such heads ask for it too (they
 * are allocated together, fl_va_port_islip), FL_PORT_SHARED when a head
 * with other candidates asks for it as well (the request list). */
enum { FL_PORT_DEFERRED = -2, FL_PORT_SHARED = -3, FL_PORT_DONE = -4 };
static inline void fl_va_port_mark(struct flitnet *n, uint32_t port, int32_t who)
{
	if (n->port_gen[port] != n->step_id) {
		n->port_gen[port] = n->step_id;
		n->port_req[port] = who;
	} else if (n->port_req[port] != FL_PORT_SHARED) {
		n->port_req[port] = FL_PORT_DEFERRED;
	}
}

/* iSLIP among the m (< FL_VA_GROUP) heads whose one candidate range of
 * several VCs is on local output port `port`, no other head of the step
 * asking for that port: their requests form a component of the request
 * graph of their own, so alloc_islip_run would match them as it matches
 * them here, without a request list (building it and walking it three
 * times per iteration was most of a flattened-butterfly step under load).
 * A head accepts the first VC of its range, in round-robin order from its
 * accept pointer, that grants it, so each head walks its range in that
 * order and asks each free VC on the way whom it grants (the requesting
 * head first in round-robin order from the VC's grant pointer among those
 * unmatched when the iteration began, worked out once per iteration),
 * stopping at the first that grants it. Pointers move in the first
 * iteration only; later iterations match what is left. The heads'
 * results go to their nodes: the matched output VC,
 * FL_STALL_BUFFER_CONFLICT (it asked and lost), or FL_STALL_BUFFER_BUSY
 * (no VC of its range free). */
#define FL_VA_GROUP 64
enum { FL_GRANT_UNKNOWN = -1, FL_GRANT_NONE = -2 };
static void fl_va_port_islip(struct flitnet *n, const struct fl_router *ro, uint32_t port, const uint32_t *heads,
			     uint32_t m)
{
	const uint32_t V = n->V, side = (uint32_t)ro->n_ports * V, base = port * V;
	const struct fl_ovc *ovs = n->ovc + (uint64_t)ro->vc_base; /* by local output VC */
	uint16_t *ap = n->va_aptr + ro->vc_base, *gp = n->va_gptr + ro->vc_base;
	int32_t *grant = n->best_out, *taken = n->out_match; /* by local output VC; -1 on entry and exit */
	uint32_t lo[FL_VA_GROUP], hi[FL_VA_GROUP], olo = UINT32_MAX, ohi = 0;
	int32_t match[FL_VA_GROUP];
	bool free_seen[FL_VA_GROUP], was_matched[FL_VA_GROUP];
	for (uint32_t j = 0; j < m; j++) {
		const struct route_cand *c = fl_cands(n, (uint64_t)ro->vc_base + heads[j]);
		lo[j] = base + c->vc_lo;
		hi[j] = base + c->vc_hi;
		olo = lo[j] < olo ? lo[j] : olo;
		ohi = hi[j] > ohi ? hi[j] : ohi;
		match[j] = -1;
		free_seen[j] = false;
	}
	/* The port's free output VCs as a mask (bit o - base; up to 64 VCs):
	 * a head whose range has none free is done at once, and one with some
	 * walks only those, instead of every head walking its whole range (a
	 * port near saturation has many heads and few free VCs). */
	const bool masked = V <= 64;
	uint64_t avail = 0;
	if (masked)
		for (uint32_t o = olo; o <= ohi; o++)
			if (ovs[o].owner == FL_NONE)
				avail |= 1ULL << (o - base);
	const uint32_t iters = (uint32_t)n->rc.alloc_iters;
	for (uint32_t it = 0; it < iters; it++) {
		bool any = false;
		for (uint32_t j = 0; j < m; j++)
			was_matched[j] = match[j] >= 0;
		for (uint32_t j = 0; j < m; j++) {
			if (was_matched[j])
				continue;
			const uint32_t a = ap[heads[j]];
			const uint32_t start = a > lo[j] && a <= hi[j] ? a : lo[j];
			int32_t got = -1;
			uint64_t walk = 0, wrap = 0; /* masked: free VCs from start to hi, then from lo */
			if (masked) {
				const uint64_t in_range = (~0ULL >> (63 - (hi[j] - base))) & (~0ULL << (lo[j] - base));
				const uint64_t from_start = ~0ULL << (start - base);
				walk = avail & in_range & from_start;
				wrap = avail & in_range & ~from_start;
				if (!(walk | wrap))
					continue;
			}
			for (uint32_t k = 0, o = start; k <= hi[j] - lo[j]; k++, o = o == hi[j] ? lo[j] : o + 1) {
				if (masked) {
					if (!walk) {
						if (!wrap)
							break;
						walk = wrap;
						wrap = 0;
					}
					o = base + (uint32_t)__builtin_ctzll(walk);
					walk &= walk - 1;
				} else if (ovs[o].owner != FL_NONE || taken[o] >= 0) {
					continue;
				}
				free_seen[j] = true;
				if (grant[o] == FL_GRANT_UNKNOWN) {
					int32_t best = FL_GRANT_NONE;
					uint32_t bkey = UINT32_MAX;
					for (uint32_t i = 0; i < m; i++) {
						if (was_matched[i] || o < lo[i] || o > hi[i])
							continue;
						uint32_t key = fl_add_mod(heads[i], side - gp[o], side); /* round robin */
						if (key < bkey) {
							bkey = key;
							best = (int32_t)i;
						}
					}
					grant[o] = best;
				}
				if (grant[o] == (int32_t)j) {
					got = (int32_t)o;
					break;
				}
			}
			if (got < 0)
				continue;
			match[j] = got;
			any = true;
		}
		for (uint32_t o = olo; o <= ohi; o++)
			grant[o] = FL_GRANT_UNKNOWN;
		for (uint32_t j = 0; j < m; j++) {
			if (was_matched[j] || match[j] < 0)
				continue;
			taken[match[j]] = (int32_t)j;
			if (masked)
				avail &= ~(1ULL << ((uint32_t)match[j] - base));
			if (it == 0) {
				ap[heads[j]] = (uint16_t)fl_add_mod((uint32_t)match[j], 1, side);
				gp[match[j]] = (uint16_t)fl_add_mod(heads[j], 1, side);
			}
		}
		if (!any)
			break;
	}
	for (uint32_t j = 0; j < m; j++) {
		fl_node(n, ro, heads[j])->result = (int16_t)(match[j] >= 0 ? match[j]
							     : free_seen[j] ? FL_STALL_BUFFER_CONFLICT
									    : FL_STALL_BUFFER_BUSY);
		if (match[j] >= 0)
			taken[match[j]] = -1;
	}
}

/* fl_va_port_islip for the usual group, two heads h[0], h[1] (local VC
 * indices, cands c[0], c[1]), without its arrays: a free VC both ranges
 * hold grants the head first in round robin from its grant pointer, a VC
 * one range holds grants that head. In the first iteration each head
 * takes the first VC from its accept pointer that grants it, and the
 * pointers of both matches move after both have walked. A later
 * iteration (alloc_iters > 1) matters only when one head matched: the
 * other is then the only unmatched requester, so it takes the first free
 * VC of its range, from its (unmoved) pointer, that the first did not. */
static inline void fl_va_pair_islip(struct flitnet *n, const struct fl_router *ro, uint32_t port, const uint32_t h[2],
				    const struct route_cand *const c[2])
{
	const uint32_t side = (uint32_t)ro->n_ports * n->V, base = port * n->V;
	const struct fl_ovc *ovs = n->ovc + (uint64_t)ro->vc_base; /* by local output VC */
	uint16_t *ap = n->va_aptr + ro->vc_base, *gp = n->va_gptr + ro->vc_base;
	const uint32_t lo[2] = {base + c[0]->vc_lo, base + c[1]->vc_lo};
	const uint32_t hi[2] = {base + c[0]->vc_hi, base + c[1]->vc_hi};
	int32_t match[2] = {-1, -1};
	bool seen[2] = {false, false};
	for (uint32_t j = 0; j < 2; j++) {
		const uint32_t x = 1 - j, a = ap[h[j]];
		const uint32_t start = a > lo[j] && a <= hi[j] ? a : lo[j];
		for (uint32_t k = 0, o = start; k <= hi[j] - lo[j]; k++, o = o == hi[j] ? lo[j] : o + 1) {
			if (ovs[o].owner != FL_NONE)
				continue;
			seen[j] = true;
			if (o >= lo[x] && o <= hi[x]) {
				const uint32_t g = gp[o];
				if (fl_add_mod(h[x], side - g, side) < fl_add_mod(h[j], side - g, side))
					continue; /* o grants the other head */
			}
			match[j] = (int32_t)o;
			break;
		}
	}
	for (uint32_t j = 0; j < 2; j++)
		if (match[j] >= 0) {
			ap[h[j]] = (uint16_t)fl_add_mod((uint32_t)match[j], 1, side);
			gp[match[j]] = (uint16_t)fl_add_mod(h[j], 1, side);
		}
	if (n->rc.alloc_iters > 1 && (match[0] >= 0) != (match[1] >= 0)) {
		const uint32_t j = match[0] < 0 ? 0 : 1, a = ap[h[j]];
		const uint32_t start = a > lo[j] && a <= hi[j] ? a : lo[j];
		const int32_t other = match[1 - j];
		for (uint32_t k = 0, o = start; k <= hi[j] - lo[j]; k++, o = o == hi[j] ? lo[j] : o + 1)
			if (ovs[o].owner == FL_NONE && (int32_t)o != other) {
				seen[j] = true;
				match[j] = (int32_t)o;
				break;
			}
	}
	for (uint32_t j = 0; j < 2; j++)
		n->ivc[(uint64_t)ro->vc_base + h[j]].node.result =
			(int16_t)(match[j] >= 0 ? match[j] : seen[j] ? FL_STALL_BUFFER_CONFLICT : FL_STALL_BUFFER_BUSY);
}

/* Every free VC among input VC li's candidates of priority >= floor_pri,
 * as requests appended at n->areq + *n_req; true when there is one. */
static inline bool fl_va_requests(struct flitnet *n, const struct fl_router *ro, uint32_t li, int32_t floor_pri,
				  bool room, uint32_t *n_req)
{
	const uint64_t iv = (uint64_t)ro->vc_base + li;
	const struct route_cand *c = fl_cands(n, iv);
	bool elig = false;
	const uint32_t need = fl_va_need(n, iv, room);
	for (uint32_t k = 0; k < n->ivc[iv].ncand; k++) {
		if (c[k].prio < floor_pri)
			continue;
		const struct fl_ovc *ov = fl_va_ovc(n, ro, c[k].port, 0);
		for (uint32_t ovc = c[k].vc_lo; ovc <= c[k].vc_hi; ovc++) {
			if (!fl_va_free(n, ov + ovc, room, need))
				continue;
			elig = true;
			n->areq[(*n_req)++] = (struct fl_areq){
				.in = (int32_t)li, .out = (int32_t)(c[k].port * n->V + ovc), .in_pri = c[k].prio};
		}
	}
	return elig;
}

/* VC allocation, evaluation: requests of the unevaluated items among the
 * first n_items (their local indices go to n->ev_li for the allocation
 * step). VC allocator indices are local VC indices on both sides. */
static inline __attribute__((always_inline)) uint32_t fl_va_gather(struct flitnet *n, struct fl_router *ro, uint32_t n_items)
{
	const uint32_t V = n->V;
	uint32_t n_req = 0;
	uint32_t li = ro->va_q.head;
	const bool room = n->route->va_room; /* route.h: escape-VC functions */
	/* Separable input-first allocation: an input VC's arbiter takes its
	 * highest-priority request first, so its lower-priority requests can
	 * never win, match or move a pointer; they are not gathered (escape
	 * and deroute tiers of Min-AD and DAL: up to 2L + 1 candidates). */
	const bool top_only = n->va_ops->input_top_priority;
	const bool single = n->va_ops->input_single_request;
	const uint32_t side = (uint32_t)ro->n_ports * V;
	const bool split = n->va_split && n_items > 1;
	uint32_t n_def = 0; /* split: the single-range heads, decided after the others */
	struct fl_ivc *const ivs = n->ivc + ro->vc_base; /* by local VC */
	uint32_t *const ev_li = n->ev_li;
	uint32_t n_ev = 0;
	if (split) {
		/* va_split is iSLIP with no room test: no priorities (neither
		 * top_only nor single) and no floor. Its own loop keeps the
		 * other modes' state out of the registers (the one loop spilled
		 * a third of its work on the flattened butterfly). */
		NL_ASSERT(!top_only && !single && !room);
		for (uint32_t i = 0; i < n_items; i++, li = ivs[li].node.next) {
			struct fl_node *nd = &ivs[li].node;
			if (nd->result != FL_UNEVAL)
				continue;
			ev_li[n_ev++] = li;
			const struct route_cand *c = fl_cands(n, (uint64_t)ro->vc_base + li);
			if (ivs[li].ncand == 1) {
				if (c->vc_lo < c->vc_hi) {
					fl_va_port_mark(n, c->port, (int32_t)li);
					n->va_defer[n_def++] = li;
					continue;
				}
				/* One VC (a VC per hop class: Equality, dragonfly
				 * phases): its request, if free. Under saturation
				 * most evaluations are this one's, and most find the
				 * VC held. */
				const uint32_t out = c->port * V + c->vc_lo;
				const bool fr = n->ovc[(uint64_t)ro->vc_base + out].owner == FL_NONE;
				if (fr)
					n->areq[n_req++] = (struct fl_areq){.in = (int32_t)li, .out = (int32_t)out, .in_pri = c->prio};
				nd->result = fr ? -1 : FL_STALL_BUFFER_BUSY;
				continue;
			}
			nd->result = fl_va_requests(n, ro, li, INT32_MIN, false, &n_req) ? -1 : FL_STALL_BUFFER_BUSY;
		}
		n_items = 0;
	}
	if (single) {
		/* The input arbiter's choice, made here: priority, then round
		 * robin from the input's pointer, the first of equals (alloc.c,
		 * alloc_separable's first stage). It takes the top priority
		 * itself: no floor_pri scan. */
		for (uint32_t i = 0; i < n_items; i++, li = ivs[li].node.next) {
			struct fl_node *nd = &ivs[li].node;
			if (nd->result != FL_UNEVAL)
				continue;
			ev_li[n_ev++] = li;
			const uint64_t iv = (uint64_t)ro->vc_base + li;
			const struct route_cand *c = fl_cands(n, iv);
			const uint32_t ncand = ivs[li].ncand;
			const uint32_t need = fl_va_need(n, iv, room);
			if (ncand == 1 && c->vc_lo == c->vc_hi) {
				/* One candidate VC (a VC per hop class or phase): it is
				 * the request, if free. */
				bool fr = fl_va_free(n, fl_va_ovc(n, ro, c->port, c->vc_lo), room, need);
				if (fr)
					n->areq[n_req++] = (struct fl_areq){
						.in = (int32_t)li, .out = (int32_t)(c->port * V + c->vc_lo), .in_pri = c->prio};
				nd->result = fr ? -1 : FL_STALL_BUFFER_BUSY;
				continue;
			}
			/* The candidate loop is written twice on purpose: one loop
			 * with a test inside, or one always-inlined helper, cost
			 * 0.5-4.7% more instructions on the dragonfly, flatfly and
			 * fat tree. */
			const uint32_t ap = n->va_aptr[iv];
			const struct fl_ovc *const ovs = fl_va_ovc(n, ro, 0, 0); /* by local output VC */
			int32_t best_out = -1, best_pri = 0;
			uint32_t best_key = UINT32_MAX; /* computed when a second candidate has a free VC */
			for (uint32_t k = 0; k < ncand; k++) {
				if (best_out >= 0 && c[k].prio < best_pri)
					continue;
				/* The candidate's VCs are contiguous output indices, so
				 * the one its input arbiter prefers, the least (VC -
				 * pointer) mod side, is the first free one from the
				 * pointer when the pointer is inside the range (past
				 * lo), then from lo; else the first from lo
				 * (fl_va_alone's walk): one key per candidate, not one
				 * per free VC. */
				const uint32_t lo = c[k].port * V + c[k].vc_lo, hi = c[k].port * V + c[k].vc_hi;
				const uint32_t start = ap > lo && ap <= hi ? ap : lo;
				uint32_t out = UINT32_MAX;
				for (uint32_t o = start; o <= hi; o++)
					if (fl_va_free(n, ovs + o, room, need)) {
						out = o;
						break;
					}
				if (out == UINT32_MAX)
					for (uint32_t o = lo; o < start; o++)
						if (fl_va_free(n, ovs + o, room, need)) {
							out = o;
							break;
						}
				if (out == UINT32_MAX)
					continue;
				if (best_out < 0) {
					best_out = (int32_t)out;
					best_pri = c[k].prio;
					continue;
				}
				if (best_key == UINT32_MAX)
					best_key = fl_add_mod((uint32_t)best_out, side - ap, side);
				const uint32_t key = fl_add_mod(out, side - ap, side);
				if (c[k].prio > best_pri || key < best_key) {
					best_out = (int32_t)out;
					best_pri = c[k].prio;
					best_key = key;
				}
			}
			if (best_out >= 0)
				n->areq[n_req++] = (struct fl_areq){.in = (int32_t)li, .out = best_out, .in_pri = best_pri};
			nd->result = best_out >= 0 ? -1 : FL_STALL_BUFFER_BUSY;
		}
		n_items = 0;
	}
	for (uint32_t i = 0; i < n_items; i++, li = ivs[li].node.next) {
		struct fl_node *nd = &ivs[li].node;
		if (nd->result != FL_UNEVAL)
			continue;
		ev_li[n_ev++] = li;
		const uint64_t iv = (uint64_t)ro->vc_base + li;
		int32_t floor_pri = INT32_MIN;
		if (top_only && ivs[li].ncand > 1)
			floor_pri = fl_va_top_prio(n, ro, iv, fl_cands(n, iv), room);
		nd->result = fl_va_requests(n, ro, li, floor_pri, room, &n_req) ? -1 : FL_STALL_BUFFER_BUSY;
	}
	n->n_ev = n_ev;
	/* The other heads' requests share their ports with a deferred one:
	 * those ports' deferred heads join the request list (FL_PORT_SHARED);
	 * a port only deferred heads ask for is allocated on its own. */
	if (n_def && n_def < n->n_ev)
		for (uint32_t e = 0; e < n->n_ev; e++) {
			const uint64_t iv = (uint64_t)ro->vc_base + n->ev_li[e];
			const struct route_cand *c = fl_cands(n, iv);
			if (n->ivc[iv].ncand == 1 && c->vc_lo < c->vc_hi)
				continue;
			for (uint32_t k = 0; k < n->ivc[iv].ncand; k++)
				if (n->port_gen[c[k].port] == n->step_id)
					n->port_req[c[k].port] = FL_PORT_SHARED;
		}
	for (uint32_t d = 0; d < n_def; d++) {
		li = n->va_defer[d];
		struct fl_node *nd = fl_node(n, ro, li);
		const struct route_cand *c = fl_cands(n, (uint64_t)ro->vc_base + li);
		const int32_t who = n->port_req[c->port];
		if (who == (int32_t)li) {
			nd->result = (int16_t)fl_va_alone(n, ro, li, c);
		} else if (who == FL_PORT_DEFERRED) {
			uint32_t group[FL_VA_GROUP], m = 0;
			for (uint32_t e = d; e < n_def && m < FL_VA_GROUP; e++)
				if (fl_cands(n, (uint64_t)ro->vc_base + n->va_defer[e])->port == c->port)
					group[m++] = n->va_defer[e];
			if (m == 2) {
				const struct route_cand *const gc[2] = {fl_cands(n, (uint64_t)ro->vc_base + group[0]),
									fl_cands(n, (uint64_t)ro->vc_base + group[1])};
				fl_va_pair_islip(n, ro, c->port, group, gc);
			}
			if (m < FL_VA_GROUP) {
				if (m != 2)
					fl_va_port_islip(n, ro, c->port, group, m);
				n->port_req[c->port] = FL_PORT_DONE;
			} else { /* too many to hold: all of them to the list */
				n->port_req[c->port] = FL_PORT_SHARED;
				nd->result = fl_va_requests(n, ro, li, INT32_MIN, false, &n_req) ? -1 : FL_STALL_BUFFER_BUSY;
			}
		} else if (who == FL_PORT_SHARED) {
			nd->result = fl_va_requests(n, ro, li, INT32_MIN, false, &n_req) ? -1 : FL_STALL_BUFFER_BUSY;
		} /* else FL_PORT_DONE: decided with its port's group */
	}
	return n_req;
}

/* Each requested output's round-robin winner among the n_req requests
 * rq: the request whose input has the least (input - grant pointer) mod
 * `side` goes to best[output] (-1 on entry; the caller resets it). No
 * priorities: VC requests carry no output priority, switch requests
 * none (fl_allocate_outputs' rule without them). */
static inline __attribute__((always_inline)) void fl_rr_best_per_output(const struct fl_areq *rq, uint32_t n_req,
									 const uint16_t *gptr, uint32_t side,
									 int32_t *best)
{
	for (uint32_t k = 0; k < n_req; k++) {
		const int32_t o = rq[k].out, cur = best[o];
		const uint32_t g = gptr[o];
		if (cur < 0 || fl_add_mod((uint32_t)rq[k].in, side - g, side) < fl_add_mod((uint32_t)rq[cur].in, side - g, side))
			best[o] = (int32_t)k;
	}
}

/* Whether head li, which asked for a free VC and lost it, is parked at
 * once (fl_va_apply parks a FL_STALL_BUFFER_BUSY result): where parking
 * is on and it asked for one VC alone. The winner's switch bid comes
 * after this stage next step, so its tail cannot free the VC before the
 * loser would have bid again and found it held. ivs: ro's input VCs. */
static inline bool fl_va_loser_parks(const struct flitnet *n, const struct fl_router *ro, const struct fl_ivc *ivs,
				     uint32_t li)
{
	const struct route_cand *c = fl_cands(n, (uint64_t)ro->vc_base + li);
	return n->va_park && ivs[li].ncand == 1 && c->vc_lo == c->vc_hi;
}

/* fl_va_allocate for separable_input_first, whose gather made each input
 * VC's one request (its input arbiter's choice): each output arbiter
 * grants the least (input - grant pointer) mod inputs, and both pointers
 * move past the match (fl_allocate_outputs; VC requests carry no output
 * priority). The winners' results are written here, so the requests
 * need no match arrays, and every requested VC is granted: a head left
 * at -1 lost its VC to another (fl_va_loser_parks). */
static inline __attribute__((always_inline)) void fl_va_allocate_single(struct flitnet *n, struct fl_router *ro,
									 uint32_t n_req, uint32_t time)
{
	const uint32_t side = (uint32_t)ro->n_ports * n->V;
	const struct fl_areq *const rq = n->areq;
	int32_t *const best = n->best_out; /* by output VC: its winning request; -1 on entry and exit */
	uint16_t *const aptr = n->va_aptr + ro->vc_base, *const gptr = n->va_gptr + ro->vc_base;
	struct fl_ivc *const ivs = n->ivc + ro->vc_base; /* by local VC */
	fl_rr_best_per_output(rq, n_req, gptr, side, best);
	for (uint32_t k = 0; k < n_req; k++) {
		const int32_t o = rq[k].out;
		if (best[o] != (int32_t)k)
			continue;
		best[o] = -1;
		const uint32_t i = (uint32_t)rq[k].in;
		ivs[i].node.result = (int16_t)o;
		aptr[i] = (uint16_t)fl_add_mod((uint32_t)o, 1, side);
		gptr[o] = (uint16_t)fl_add_mod(i, 1, side);
	}
	const uint32_t *const ev_li = n->ev_li;
	for (uint32_t k = 0; k < n->n_ev; k++) {
		const uint32_t li = ev_li[k];
		struct fl_node *nd = &ivs[li].node;
		nd->time = time;
		if (nd->result != -1) /* granted above, a stall, or decided in the gather */
			continue;
		nd->result = fl_va_loser_parks(n, ro, ivs, li) ? FL_STALL_BUFFER_BUSY : FL_STALL_BUFFER_CONFLICT;
	}
}

/* VC allocation: allocate and record the evaluated items' results. */
static inline __attribute__((always_inline)) void fl_va_allocate(struct flitnet *n, struct fl_router *ro, uint32_t n_req, uint32_t time)
{
	const uint32_t V = n->V;
	if (n->va_ops->input_single_request) { /* one request per input: fl_va_gather */
		fl_va_allocate_single(n, ro, n_req, time);
		return;
	}
	if (n_req)
		fl_allocate(n, n->va_ops, (uint32_t)n->rc.alloc_iters, n->areq, n_req,
			    (uint32_t)ro->n_ports * V, (uint32_t)ro->n_ports * V,
			    n->va_aptr + ro->vc_base, n->va_gptr + ro->vc_base);
	for (uint32_t k = 0; k < n->n_ev; k++) {
		uint32_t li = n->ev_li[k];
		struct fl_node *nd = fl_node(n, ro, li);
		nd->time = time;
		if (nd->result != -1) /* a stall, or decided in the gather */
			continue;
		int32_t m = n_req ? n->in_match[li] : -1;
		/* A loser parks only if its VC was granted: an output-first
		 * output may grant a head that accepts another VC, and iSLIP's
		 * later iterations may leave it free. */
		if (m < 0 && fl_va_loser_parks(n, ro, n->ivc + ro->vc_base, li)) {
			const struct route_cand *c = fl_cands(n, (uint64_t)ro->vc_base + li);
			if (n->out_match[c->port * V + c->vc_lo] >= 0) {
				nd->result = FL_STALL_BUFFER_BUSY;
				continue;
			}
		}
		nd->result = (int16_t)(m >= 0 ? m : FL_STALL_BUFFER_CONFLICT);
	}
	for (uint32_t k = 0; k < n_req; k++)
		n->in_match[n->areq[k].in] = n->out_match[n->areq[k].out] = -1;
}

/* Park head li, whose one candidate port g has no free VC for it, on g's
 * waiting list: until a VC of g is freed, evaluating it every step would
 * give the same stall and change nothing (no pointer moves, nothing is
 * drawn). Only where n->va_park allows it (flitnet_build.c says when the VC
 * queue's order may change). A head asking for one VC alone waits as
 * its bit in that VC's mask instead, where there are masks
 * (fl_router_va_wake). */
static inline void fl_va_park(struct flitnet *n, struct fl_router *ro, uint32_t li, const struct route_cand *c)
{
	const uint32_t g = ro->port_base + c->port;
	if (n->va_wmask && c->vc_lo == c->vc_hi) {
		n->va_wmask[(uint64_t)g * n->V + c->vc_lo] |= 1ULL << li;
		return;
	}
	fl_node(n, ro, li)->next = n->va_wait[g];
	n->va_wait[g] = (uint16_t)li;
}

/* Output VC v of global port g (of router r) was freed: the heads parked
 * on g that may take it bid again from the next step on, as retrying
 * would have had them, at the end of the VC queue. Two kinds stay parked,
 * since their bids would change nothing either:
 *  - heads whose VC range leaves v out: every VC they ask for is still
 *    busy, so they would stall again;
 *  - of the heads asking for v alone, all but the one v's arbiter would
 *    grant first (the least (li - pointer) mod inputs: alloc.c's round
 *    robin, for every allocator without priorities, with one request per
 *    such head; and for separable_input_first, whose input arbiters pass
 *    each such head's one request on and whose output arbiters see no
 *    priorities in VC allocation: out_pri is 0 in every VC request). v
 *    goes to that head or to a bid from outside the list
 *    whose key is lower still; the others would lose in either case and
 *    find v busy at their next bid, or, if the winner declined v, see
 *    the same head keep bidding while v's pointer stays put. On a
 *    saturated Equality network (n1024k64p16, bitcomp 0.9) a freed VC
 *    had 12 heads parked on its port, and waking them all cost about
 *    eight bids per grant. */
/* Take parked head li, whose predecessor on g's list is prev (FL_NONE16:
 * the first), off the list and back into the VC queue. */
static inline void fl_va_unpark(struct flitnet *n, struct fl_router *ro, uint32_t g, uint32_t prev, uint32_t li)
{
	const uint16_t nx = fl_node(n, ro, li)->next;
	if (prev == FL_NONE16)
		n->va_wait[g] = nx;
	else
		fl_node(n, ro, prev)->next = nx;
	fl_q_push(n, ro, Q_VA, li);
}

/* The heads on g's list (n->va_wait). */
static void fl_va_wake_list(struct flitnet *n, struct fl_router *ro, uint32_t g, uint32_t v)
{
	const uint32_t side = (uint32_t)ro->n_ports * n->V;
	const bool one = n->va_wake_one;
	const uint32_t ptr = n->va_gptr[(uint64_t)g * n->V + v]; /* output VC g x V + v's (vc_base = port_base x V) */
	uint32_t li = n->va_wait[g], prev = FL_NONE16, best = FL_NONE16, best_prev = FL_NONE16, best_key = UINT32_MAX;
	while (li != FL_NONE16) {
		const uint32_t nx = fl_node(n, ro, li)->next;
		const struct route_cand *c = fl_cands(n, (uint64_t)ro->vc_base + li);
		if (v < c->vc_lo || v > c->vc_hi) {
			prev = li;
		} else if (one && c->vc_lo == c->vc_hi) {
			const uint32_t key = fl_add_mod(li, side - ptr, side); /* alloc.c's round-robin order */
			if (key < best_key) {
				best = li;
				best_prev = prev;
				best_key = key;
			}
			prev = li;
		} else {
			fl_va_unpark(n, ro, g, prev, li);
		}
		li = nx;
	}
	/* best_prev stayed on the list: only heads after best left it since. */
	if (best != FL_NONE16)
		fl_va_unpark(n, ro, g, best_prev, best);
}

/* The list's heads, then those parked as bits (n->va_wmask, where
 * va_wake_one holds and side <= 64), whose least key is the first bit at or after
 * the pointer, cyclically: found without a walk. (Inlined into the
 * switch stage instead of called, 0.5% more instructions on the
 * converted df_flex_min.cfg at 0.7.) */
static inline void fl_va_wake_at(struct flitnet *n, struct fl_router *ro, uint32_t g, uint32_t v)
{
	if (n->va_wait[g] != FL_NONE16)
		fl_va_wake_list(n, ro, g, v);
	if (!n->va_wmask)
		return;
	const uint64_t ov = (uint64_t)g * n->V + v;
	const uint64_t m = n->va_wmask[ov];
	if (m) {
		const uint64_t from = m & (~0ULL << n->va_gptr[ov]);
		const uint32_t first = (uint32_t)__builtin_ctzll(from ? from : m);
		n->va_wmask[ov] = m & ~(1ULL << first);
		fl_q_push(n, ro, Q_VA, first);
	}
}

void fl_router_va_wake(struct flitnet *n, uint32_t r, uint32_t g, uint32_t v)
{
	fl_va_wake_at(n, &n->routers[r], g, v);
}

/* VC allocation, update: take the output VC, or retry next step. */
static inline __attribute__((always_inline)) void fl_va_apply(struct flitnet *n, struct fl_router *ro, uint32_t li, int32_t res,
							       bool plain)
{
	if (res < 0) {
		if (res == FL_STALL_BUFFER_BUSY && n->va_park && n->ivc[(uint64_t)ro->vc_base + li].ncand == 1) {
			fl_va_park(n, ro, li, fl_cands(n, (uint64_t)ro->vc_base + li));
			return;
		}
		if (!plain && __builtin_expect(n->voq != NULL, 0) && fl_voq_rotate(n, ro, li, res)) {
			n->ivc[(uint64_t)ro->vc_base + li].state = VC_ROUTING; /* the next packet's turn */
			fl_q_push(n, ro, Q_ROUTE, li);
			return;
		}
		fl_q_push(n, ro, Q_VA, li);
		return;
	}
	uint64_t iv = (uint64_t)ro->vc_base + li;
	uint32_t op = fl_li_port(n, (uint32_t)res), ovc = fl_li_vc(n, (uint32_t)res);
	uint64_t ov = (uint64_t)ro->vc_base + (uint32_t)res;
	NL_ASSERT(n->ovc[ov].owner == FL_NONE);
	n->ovc[ov].owner = li;
	n->ovc[ov].tail_sent = 0;
	if (!plain && __builtin_expect(n->pend != NULL, 0)) { /* the count follows the grant */
		uint32_t was = route_cands_preferred(fl_cands(n, iv), n->ivc[iv].ncand);
		if (was != op) {
			uint32_t size = fl_buf_front_size(n, iv);
			NL_ASSERT(n->pend[ro->port_base + was] >= size);
			n->pend[ro->port_base + was] -= size;
			n->pend[ro->port_base + op] += size;
		}
	}
	n->ivc[iv].out_port = (uint16_t)op;
	n->ivc[iv].out_vc = (uint8_t)ovc;
	n->ivc[iv].state = VC_ACTIVE;
	fl_q_push(n, ro, Q_SA, li);
	n->last_move = n->now;
}

/* Switch allocation, evaluation: one request per (crossbar input, output)
 * pair; among VCs of one input the next in round-robin order from sw_rr
 * wins (BookSim's RoundRobinArbiter::Supersedes). */
static inline __attribute__((always_inline)) uint32_t fl_sa_gather(struct flitnet *n, struct fl_router *ro, uint32_t n_items)
{
	const uint32_t V = n->V;
	const uint32_t isp = (uint32_t)n->rc.input_speedup, osp = (uint32_t)n->rc.output_speedup;
	const bool hold = n->hold != NULL;
	/* Without speedups or held connections, up to 64 ports: which inputs
	 * and outputs have a request, as bit masks, so a bid from an input
	 * with none yet skips the search for its (input, output) pair, and a
	 * step whose requests share no input and no output is granted whole
	 * (n->sa_disjoint, fl_sa_allocate): the common case below saturation. */
	const bool masks = isp == 1 && osp == 1 && !hold && ro->n_ports <= 64;
	uint64_t ins = 0, outs = 0;
	bool disjoint = masks, one_per_in = masks;
	uint32_t n_req = 0;
	uint32_t li = ro->sa_q.head;
	n->n_ev = 0;
	if (masks) {
		/* Its own loop, with what it reads in locals: n's fields are
		 * read again after every store otherwise (they may alias). */
		struct fl_ivc *const ivs = n->ivc + ro->vc_base; /* by local VC */
		const struct fl_run *const runs = n->pool.runs;
		struct fl_areq *const areq = n->areq;
		uint32_t *const ev_li = n->ev_li;
		const int v_shift = n->v_shift;
		uint32_t n_ev = 0;
		/* An input's outputs requested so far this step, and each (input,
		 * output) pair's request: a second VC of an input finds its pair
		 * without a search over the step's requests (near saturation most
		 * inputs hold several heads). Read only behind a bit set this
		 * step, so neither needs clearing. */
		uint64_t in_outs[64];
		uint16_t pair_k[64 * 64];
		for (uint32_t i = 0; i < n_items; i++, li = ivs[li].node.next) {
			struct fl_node *nd = &ivs[li].node;
			if (nd->result != FL_UNEVAL)
				continue;
			ev_li[n_ev++] = li;
			NL_ASSERT(ivs[li].state == VC_ACTIVE && ivs[li].count);
			const uint32_t op = ivs[li].out_port;
			if (fl_out_full(n, (uint64_t)ro->vc_base + op * V + ivs[li].out_vc, (uint64_t)ro->vc_base + li)) {
				nd->result = FL_STALL_BUFFER_FULL;
				continue;
			}
			nd->result = -1;
			/* The winners' update reads this VC's front run
			 * (fl_sa_apply): fetched while the allocator runs. Under
			 * load a head bids for cycles, and its run, last read when
			 * it routed, has left the cache. */
			__builtin_prefetch(&runs[ivs[li].head]);
			const uint32_t in = v_shift >= 0 ? li >> v_shift : li / V;
			const uint32_t vc = li - in * V;
			const uint64_t ib = 1ULL << in, ob = 1ULL << op;
			const bool new_in = !(ins & ib);
			disjoint &= new_in && !(outs & ob);
			one_per_in &= new_in;
			ins |= ib;
			outs |= ob;
			if (new_in)
				in_outs[in] = 0;
			if (in_outs[in] & ob) {
				struct fl_areq *const rq = &areq[pair_k[in * 64 + op]];
				uint32_t rr = n->sw_rr[(uint64_t)ro->port_base + in];
				uint32_t a = fl_add_mod(vc, V - rr, V), b = fl_add_mod((uint32_t)rq->label, V - rr, V);
				if (a < b)
					rq->label = (int32_t)vc;
				continue;
			}
			in_outs[in] |= ob;
			pair_k[in * 64 + op] = (uint16_t)n_req;
			areq[n_req++] = (struct fl_areq){.in = (int32_t)in, .out = (int32_t)op, .label = (int32_t)vc};
		}
		n->n_ev = n_ev;
		n_items = 0;
	}
	const bool emask = (uint32_t)ro->n_ports * isp <= 64;
	uint64_t eins = 0; /* emask: the crossbar inputs with a request */
	bool one_per_ein = emask && !hold && n_items;
	for (uint32_t i = 0; i < n_items; i++, li = fl_node(n, ro, li)->next) {
		struct fl_node *nd = fl_node(n, ro, li);
		if (nd->result != FL_UNEVAL)
			continue;
		n->ev_li[n->n_ev++] = li;
		uint64_t iv = (uint64_t)ro->vc_base + li;
		NL_ASSERT(n->ivc[iv].state == VC_ACTIVE && n->ivc[iv].count);
		uint32_t op = n->ivc[iv].out_port;
		uint64_t ov = (uint64_t)(ro->port_base + op) * V + n->ivc[iv].out_vc;
		if (fl_out_full(n, ov, iv)) {
			nd->result = FL_STALL_BUFFER_FULL;
			continue;
		}
		nd->result = -1;
		uint32_t in = fl_li_port(n, li), vc = fl_li_vc(n, li);
		int32_t ein = (int32_t)(isp == 1 ? in : in * isp + vc % isp);
		int32_t eout = (int32_t)(osp == 1 ? op : op * osp + in % osp);
		if (__builtin_expect(hold, 0) && fl_hold_blocks(n, ro, (uint32_t)ein, (uint32_t)eout))
			continue; /* BookSim ignores requests on a held input or output */
		/* An input with no request yet has no (input, output) pair to
		 * find: with up to 64 crossbar inputs (speedups), a mask says. */
		uint32_t k = n_req;
		if (!emask || (eins & 1ULL << ein))
			for (k = 0; k < n_req; k++)
				if (n->areq[k].in == ein && n->areq[k].out == eout)
					break;
		if (k < n_req) {
			uint32_t rr = n->sw_rr[(uint64_t)ro->port_base * isp + (uint32_t)ein];
			uint32_t a = fl_add_mod(vc, V - rr, V), b = fl_add_mod((uint32_t)n->areq[k].label, V - rr, V);
			if (a < b)
				n->areq[k].label = (int32_t)vc;
			continue;
		}
		one_per_ein &= !emask || !(eins & 1ULL << ein);
		if (emask)
			eins |= 1ULL << ein;
		struct fl_areq *rq = &n->areq[n_req++];
		rq->in = ein;
		rq->out = eout;
		rq->label = (int32_t)vc;
		rq->in_pri = rq->out_pri = 0;
	}
	n->sa_disjoint = disjoint;
	n->sa_one_per_in = one_per_in;
	n->sa_one_per_ein = one_per_ein;
	return n_req;
}


static inline __attribute__((always_inline)) void fl_sa_allocate(struct flitnet *n, struct fl_router *ro, uint32_t n_req, uint32_t time)
{
	const uint32_t V = n->V;
	const uint32_t isp = (uint32_t)n->rc.input_speedup, osp = (uint32_t)n->rc.output_speedup;
	int32_t *win = n->grant; /* per crossbar input: label of its granted request */
	/* n's fields in locals: the nodes' stores may alias them for the compiler. */
	struct fl_ivc *const ivs = n->ivc + ro->vc_base; /* by local VC */
	const uint32_t *const ev_li = n->ev_li;
	const uint32_t n_ev = n->n_ev;
	const int v_shift = n->v_shift;
	/* A match of input in's VC li to output op in the allocator-free
	 * paths below: both round-robin pointers and the input's VC pointer
	 * move past it (fl_allocate_outputs' rule). Expanded in place. */
#define FL_SA_MATCH(in, op, li)                                                  \
	do {                                                                     \
		aptr[in] = (uint16_t)fl_add_mod(op, 1, P);                       \
		gptr[op] = (uint16_t)fl_add_mod(in, 1, P);                       \
		rr1[in] = (uint16_t)fl_add_mod((li) - (in) * V, 1, V);           \
		nd->result = (int16_t)(op);                                      \
	} while (0)
	/* The allocator-free paths' pointers (one crossbar input per port
	 * there; unused, so not computed, on the allocator's path). */
	uint16_t *const aptr = n->sw_aptr + ro->port_base, *const gptr = n->sw_gptr + ro->port_base;
	uint16_t *const rr1 = n->sw_rr + ro->port_base;
	const uint32_t P = ro->n_ports;
	if (n->sa_disjoint) {
		/* Every request granted (fl_allocate's disjoint case); one bidder
		 * per input, so its VC pointer moves past that bidder. */
		for (uint32_t k = 0; k < n_ev; k++) {
			const uint32_t li = ev_li[k];
			struct fl_node *nd = &ivs[li].node;
			nd->time = time;
			if (nd->result < -1)
				continue;
			const uint32_t in = v_shift >= 0 ? li >> v_shift : li / V, op = ivs[li].out_port;
			FL_SA_MATCH(in, op, li);
		}
		return;
	}
	if (n->sa_one_per_in) {
		/* One request per input, outputs shared: every allocator's
		 * input side has no choice (iSLIP: each input accepts its one
		 * grant, and later iterations find only matched outputs), so
		 * each output's arbiter alone decides (round robin from its
		 * pointer; no priorities in the switch stage), and both pointers
		 * of each match move past it, as fl_allocate_outputs does. */
		const struct fl_areq *const rq = n->areq;
		int32_t *const best = n->best_out; /* by output: its winning request; -1 on entry and exit */
		fl_rr_best_per_output(rq, n_req, gptr, P, best);
		for (uint32_t k = 0; k < n_ev; k++) {
			const uint32_t li = ev_li[k];
			struct fl_node *nd = &ivs[li].node;
			nd->time = time;
			if (nd->result < -1)
				continue;
			const uint32_t in = v_shift >= 0 ? li >> v_shift : li / V, op = ivs[li].out_port;
			if (rq[best[op]].in != (int32_t)in) {
				nd->result = FL_STALL_CROSSBAR_CONFLICT;
				continue;
			}
			FL_SA_MATCH(in, op, li);
		}
		for (uint32_t k = 0; k < n_req; k++)
			best[rq[k].out] = -1;
		return;
	}
#undef FL_SA_MATCH
	const int32_t *const in_match = n->in_match;
	if (n_req && n->sa_one_per_ein) /* as sa_one_per_in, by crossbar input */
		fl_allocate_outputs(n, n->areq, n_req, (uint32_t)ro->n_ports * isp, (uint32_t)ro->n_ports * osp,
				    n->sw_aptr + (uint64_t)ro->port_base * isp,
				    n->sw_gptr + (uint64_t)ro->port_base * osp);
	else if (n_req)
		fl_allocate(n, n->sa_ops, (uint32_t)n->rc.alloc_iters, n->areq, n_req,
			    (uint32_t)ro->n_ports * isp, (uint32_t)ro->n_ports * osp,
			    n->sw_aptr + (uint64_t)ro->port_base * isp, n->sw_gptr + (uint64_t)ro->port_base * osp);
	if (n_req) {
		for (uint32_t k = 0; k < n_req; k++)
			if (in_match[n->areq[k].in] == n->areq[k].out)
				win[n->areq[k].in] = n->areq[k].label;
	}
	uint16_t *const rr = n->sw_rr + (uint64_t)ro->port_base * isp;
	for (uint32_t k = 0; k < n_ev; k++) {
		const uint32_t li = ev_li[k];
		struct fl_node *nd = &ivs[li].node;
		nd->time = time;
		if (nd->result < -1)
			continue;
		const uint32_t in = v_shift >= 0 ? li >> v_shift : li / V, vc = li - in * V;
		int32_t ein = (int32_t)(isp == 1 ? in : in * isp + vc % isp);
		if (n_req && win[ein] == (int32_t)vc) {
			rr[ein] = (uint16_t)fl_add_mod(vc, isp, V);
			nd->result = (int16_t)in_match[ein];
		} else {
			nd->result = FL_STALL_CROSSBAR_CONFLICT;
		}
	}
	for (uint32_t k = 0; k < n_req; k++) {
		win[n->areq[k].in] = -1;
		n->in_match[n->areq[k].in] = n->out_match[n->areq[k].out] = -1;
	}
}

/* A flit leaves the crossbar at cycle `at` into the output queue of global
 * port g, which sends one flit per cycle (out_free keeps the FIFO's timing
 * without storing it); it reaches the far end lat + 1 cycles after. */
static inline void fl_output(struct flitnet *n, uint32_t g, uint64_t at, uint32_t pkt, uint16_t seq, uint8_t vc)
{
	struct fl_port *pt = &n->ports[g];
	uint64_t c = at;
	if (pt->out_free > c)
		c = pt->out_free;
	pt->out_free = c + 1;
	const struct fl_link *l = &pt->link;
	/* Channel use is counted here, where the flit is given its cycle c on
	 * the channel, not at switch allocation: with a speedup the queue
	 * can hold it past the window's end (docs/results.md, channels;
	 * BookSim counts as its output buffer sends). A flit counted here
	 * but sent from the window's end on is taken off by the experiment
	 * (experiment.c, exp_chan_queued). */
	if (l->network & n->obs.count_channels) {
		pt->chan_flits++;
		if (n->obs.job_flits)
			n->obs.job_flits[(size_t)g * n->obs.n_jobs + n->obs.ep_job[n->pool.pkts[pkt].rt.src_ep]]++;
	}
	fl_send_flit(n, l, c + l->lat + 1, pkt, seq, vc);
}

/* A credit for input VC (in, vc) leaves this router towards the upstream
 * router or endpoint. Credits freed at one input in the same step travel
 * together; one credit message per cycle per channel. */
static inline __attribute__((always_inline)) void fl_return_credit(struct flitnet *n, struct fl_router *ro, uint32_t in, uint32_t vc,
								    bool plain)
{
	uint32_t g = ro->port_base + in;
	uint64_t c = n->now;
	/* cred_step: with an input speedup two flits may leave one input in
	 * a step; the plain path has none, so a step's credits at an input
	 * are one at most. */
	if (!plain && n->cred_step && n->cred_step[g] == n->step_id) {
		c = n->now + (uint32_t)(n->cred_cycle[g] - (uint32_t)n->now);
	} else {
		if (n->ports[g].cred_free > c)
			c = n->ports[g].cred_free;
		n->ports[g].cred_free = c + 1;
		if (!plain && n->cred_step) {
			n->cred_step[g] = n->step_id;
			n->cred_cycle[g] = (uint32_t)c;
		}
	}
	const struct fl_link *l = &n->ports[g].link;
	/* A link whose two directions differ (anynet): the credit channel is
	 * as long as the one that brought the flit (fl_cred_lat); never on
	 * the plain path. */
	const uint32_t lat = !plain && __builtin_expect(n->cred_lat != NULL, 0) ? n->cred_lat[g] : l->lat;
	fl_send_credit_code(n, l, c + lat + 1 + (uint64_t)n->rc.credit_delay, vc);
}

/* Switch allocation, update: the front flit leaves the input buffer for
 * the crossbar (BookSim's _SWAllocUpdate), or the VC retries. */
static inline __attribute__((always_inline)) void fl_sa_apply(struct flitnet *n, struct fl_router *ro, uint32_t li, int32_t res,
							       bool plain)
{
	const uint32_t V = n->V;
	if (res < 0) {
		fl_q_push(n, ro, Q_SA, li);
		return;
	}
	uint64_t iv = (uint64_t)ro->vc_base + li;
	uint32_t op = plain || n->rc.output_speedup == 1 ? (uint32_t)res : (uint32_t)res / (uint32_t)n->rc.output_speedup;
	NL_ASSERT(op == n->ivc[iv].out_port);
	uint8_t ovc = n->ivc[iv].out_vc;
	uint64_t ov = (uint64_t)(ro->port_base + op) * V + ovc;
	uint32_t pkt;
	uint16_t seq;
	fl_buf_front(n, iv, &pkt, &seq);
	bool tail = seq + 1u == fl_buf_front_size(n, iv);
	fl_buf_pop(n, iv);
	uint32_t gout = ro->port_base + op;
	if (!plain && __builtin_expect(n->la_upstream, 0) && seq == 0 && n->ports[gout].link.flit_kind == EV_FLIT_ROUTER) {
		NL_ASSERT(n->n_la_pend < n->cap_la_pend);
		n->la_pend[n->n_la_pend] = (struct fl_la_pend){
			.gout = gout, .pkt = pkt, .order = n->n_la_pend, .vc = ovc};
		n->n_la_pend++;
	}
	n->flit_hops += n->ports[gout].link.network;
	n->ovc[ov].occ++;
	NL_ASSERT(n->ovc[ov].occ <= n->buf);
	if (!plain && n->pocc)
		n->pocc[gout]++;
	if (n->asum && ovc < n->asum_vcs) /* route.asum_vcs; on the plain path too (dal) */
		n->asum[gout] += 1u + (n->ovc[ov].occ == n->asum_full ? 1u << 16 : 0u);
	if (!plain && __builtin_expect(n->pend != NULL, 0)) { /* from the routed count to the credit view */
		NL_ASSERT(n->pend[gout] > 0);
		n->pend[gout]--;
	}
	if (tail) {
		n->ovc[ov].tail_sent = 1;
		if (plain || !n->rc.wait_for_tail_credit) {
			n->ovc[ov].owner = FL_NONE;
			if (fl_va_waiting(n, gout, ov))
				fl_router_va_wake(n, (uint32_t)(ro - n->routers), gout, ovc);
		}
	}
	if (n->direct_xbar) {
		/* A one-step crossbar: the flit leaves it at the router's next
		 * step whatever else happens (flitnet_plan.c, direct_xbar). */
		fl_output(n, gout, n->xb_at, pkt, seq, ovc);
	} else {
		NL_ASSERT(ro->xb_q.len < ro->xq_cap);
		struct fl_xitem *x = fl_xq_at(n, ro, ro->xb_q.len);
		ro->xb_q.len++;
		x->evaluated = 0;
		x->pkt = pkt;
		x->seq = seq;
		x->out = (uint16_t)op;
		x->vc = ovc;
	}
	fl_return_credit(n, ro, fl_li_port(n, li), fl_li_vc(n, li), plain);
	n->last_move = n->now;
	if (!plain && __builtin_expect(n->hold != NULL, 0) && fl_hold_next(n, ro, li, (uint32_t)res, tail))
		return; /* hold_switch_for_packet: the next flit takes the held connection */
	if (n->ivc[iv].count == 0) {
		if (tail)
			n->ivc[iv].state = VC_IDLE;
	} else if (tail) {
		n->ivc[iv].state = VC_ROUTING;
		/* The next packet's head routes at this router's next step and
		 * reads its packet record then (fl_route_apply). It arrived
		 * while this packet waited, so the record fetched for it then
		 * (the arrival pass, flitnet.c) has left the cache: fetched
		 * again now, both ends (a 28-byte record can span two lines). */
		const struct fl_pkt *np = &n->pool.pkts[n->pool.runs[n->ivc[iv].head].pkt];
		__builtin_prefetch(&np->rt, 1);
		__builtin_prefetch((const char *)np + sizeof *np - 1, 1);
		fl_q_push(n, ro, Q_ROUTE, li);
	} else {
		fl_q_push(n, ro, Q_SA, li);
	}
}

void fl_router_sa_apply(struct flitnet *n, struct fl_router *ro, uint32_t li, int32_t res)
{
	fl_sa_apply(n, ro, li, res, false);
}

/* Crossbar done: the flit joins its output queue. */
static inline __attribute__((always_inline)) void fl_xb_apply(struct flitnet *n, struct fl_router *ro)
{
	struct fl_xitem *x = fl_xq_at(n, ro, 0);
	fl_output(n, ro->port_base + x->out, n->now, x->pkt, x->seq, x->vc);
	ro->xb_q.head = (uint16_t)((ro->xb_q.head + 1u) & (ro->xq_cap - 1u));
	ro->xb_q.len--;
	n->last_move = n->now;
}

/* How many items from the front of a stage a step evaluates: BookSim
 * evaluates the leading unevaluated ones and stops at the first item still
 * in the stage (so a multi-cycle stage serves one item at a time);
 * pipelined_stages evaluates every unevaluated item. */
static uint32_t fl_eval_extent(struct flitnet *n, struct fl_router *ro, int which)
{
	const struct fl_fifo *q = fl_q(ro, which);
	if (n->rc.pipelined_stages)
		return q->len;
	uint32_t lead = 0, li = q->head;
	while (lead < q->len && fl_node(n, ro, li)->result == FL_UNEVAL) {
		lead++;
		li = fl_node(n, ro, li)->next;
	}
	return lead;
}

/* General step, any delays: BookSim's _InternalStep order. */
/* --- the stage list ----------------------------------------------------------
 *
 * Route, VC allocation, switch allocation and crossbar, in BookSim's update
 * order. Both step paths walk this one list: the general path evaluates
 * every stage, then updates every stage whose items are due; the unit-delay
 * path runs each stage once over exactly the items it held when the step
 * began (items pushed during the step are BookSim's unevaluated items of the
 * next step). tests/unit/test_flit.c requires both to give the same run. */

static void fl_route_eval(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	const uint64_t t = n->now;
	uint32_t lead = fl_eval_extent(n, ro, Q_ROUTE), li = ro->route_q.head;
	(void)r;
	for (uint32_t i = 0; i < lead; i++, li = fl_node(n, ro, li)->next) {
		struct fl_node *nd = fl_node(n, ro, li);
		if (nd->result == FL_UNEVAL) {
			nd->time = fl_done_at(t, n->rc.routing_delay);
			nd->result = -1;
		}
	}
}

static void fl_route_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	while (ro->route_q.len && fl_due(fl_node(n, ro, ro->route_q.head), n->now))
		fl_route_apply(n, ro, r, fl_q_pop(n, ro, Q_ROUTE), false);
}

static inline __attribute__((always_inline)) void fl_route_unit(struct flitnet *n, struct fl_router *ro, uint32_t r, uint32_t n_route)
{
	if (n->plain)
		for (uint32_t i = 0; i < n_route; i++)
			fl_route_apply(n, ro, r, fl_q_pop(n, ro, Q_ROUTE), true);
	else
		for (uint32_t i = 0; i < n_route; i++)
			fl_route_apply(n, ro, r, fl_q_pop(n, ro, Q_ROUTE), false);
}

static void fl_va_eval(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	const uint64_t t = n->now;
	uint32_t i, lead, li;
	(void)r;
	if (!ro->va_q.len)
		return;
	lead = fl_eval_extent(n, ro, Q_VA);
	uint32_t n_req = fl_va_gather(n, ro, lead);
	fl_va_allocate(n, ro, n_req, fl_done_at(t, n->rc.vc_alloc_delay));
	if (n->rc.vc_alloc_delay > 1)
		for (i = 0, li = ro->va_q.head; i < ro->va_q.len; i++, li = fl_node(n, ro, li)->next) {
			struct fl_node *nd = fl_node(n, ro, li);
			if (!fl_due(nd, t))
				break;
			if (nd->result >= 0 && n->ovc[(uint64_t)ro->vc_base + (uint32_t)nd->result].owner != FL_NONE)
				nd->result = FL_STALL_BUFFER_BUSY;
		}
}

/* A grant is discarded when its output VC is taken by the time it
 * completes (BookSim's "no longer available", fl_va_eval), here counting
 * the grants applied before it in this update too: with pipelined_stages
 * and an internal speedup, allocations evaluated in different steps of a
 * cycle complete in the same step (delays count cycles), and the later
 * one did not see the earlier one's grant, which is applied only here.
 * Without both, the VC is always free here. */
static void fl_va_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	(void)r;
	while (ro->va_q.len && fl_due(fl_node(n, ro, ro->va_q.head), n->now)) {
		int32_t res = fl_node(n, ro, ro->va_q.head)->result;
		if (res >= 0 && n->ovc[(uint64_t)ro->vc_base + (uint32_t)res].owner != FL_NONE)
			res = FL_STALL_BUFFER_BUSY;
		fl_va_apply(n, ro, fl_q_pop(n, ro, Q_VA), res, false);
	}
}


/* Take the `count` items at the head of stage queue `which` off it at
 * once and apply their results, in order, with APPLY (fl_va_apply,
 * fl_sa_apply). They are the ones the gather just evaluated, listed in
 * queue order in n->ev_li (on the unit path every queued item is
 * unevaluated), so the loop reads each from there, not by following the
 * nodes, which the applies reuse (a pushed item's node is relinked). What
 * the applies push joins the queue behind the items left in it, as with
 * one pop per item. n->plain is tested once and passed as a constant, so
 * each loop is the always-inlined apply specialised for it. */
static inline void fl_q_pop_evaluated(struct flitnet *n, struct fl_router *ro, int which, uint32_t count)
{
	struct fl_fifo *q = fl_q(ro, which);
	NL_ASSERT(n->n_ev == count && count >= 1 && q->len >= count && q->head == n->ev_li[0]);
	if (q->len > count)
		q->head = fl_node(n, ro, n->ev_li[count - 1])->next;
	q->len = (uint16_t)(q->len - count);
}

#define FL_APPLY_HEADS(n, ro, which, count, APPLY)                                                  \
	do {                                                                                      \
		const uint32_t *const ev_ = (n)->ev_li;                                           \
		struct fl_ivc *const ivs_ = (n)->ivc + (ro)->vc_base;                             \
		fl_q_pop_evaluated(n, ro, which, count);                                          \
		if ((n)->plain)                                                                   \
			for (uint32_t i_ = 0; i_ < (count); i_++)                                 \
				APPLY(n, ro, ev_[i_], ivs_[ev_[i_]].node.result, true);           \
		else                                                                              \
			for (uint32_t i_ = 0; i_ < (count); i_++)                                 \
				APPLY(n, ro, ev_[i_], ivs_[ev_[i_]].node.result, false);          \
	} while (0)

static inline __attribute__((always_inline)) void fl_va_unit(struct flitnet *n, struct fl_router *ro, uint32_t r, uint32_t n_va)
{
	const uint32_t V = n->V;
	(void)r;
	if (n_va == 1) {
		/* One waiting head: the allocators' single-input case. With one
		 * candidate VC range the first free VC from the accept pointer
		 * wins; that is the common case, done inline. */
		uint32_t li = ro->va_q.head;
		uint64_t iv = (uint64_t)ro->vc_base + li;
		int32_t result = FL_STALL_BUFFER_BUSY;
		uint32_t n_req = 0;
		if (n->ivc[iv].ncand == 1 && !n->va_ops->by_priority && !n->route->va_room) {
			result = fl_va_alone(n, ro, li, fl_cands(n, iv));
		} else if ((n_req = fl_va_gather(n, ro, 1))) {
			uint16_t *ap = n->va_aptr + ro->vc_base;
			uint16_t *gp = n->va_gptr + ro->vc_base;
			uint32_t side = (uint32_t)ro->n_ports * V, best = 0;
			for (uint32_t k = 1; k < n_req; k++) {
				uint32_t ka = fl_add_mod((uint32_t)n->areq[k].out, side - ap[li], side);
				uint32_t kb = fl_add_mod((uint32_t)n->areq[best].out, side - ap[li], side);
				bool better = !n->va_ops->by_priority
						      ? ka < kb
						      : n->areq[k].in_pri > n->areq[best].in_pri ||
								(n->areq[k].in_pri == n->areq[best].in_pri && ka < kb);
				if (better)
					best = k;
			}
			int32_t o = n->areq[best].out;
			ap[li] = (uint16_t)fl_add_mod((uint32_t)o, 1, side);
			gp[o] = (uint16_t)fl_add_mod(li, 1, side);
			result = o;
		}
		fl_va_apply(n, ro, fl_q_pop(n, ro, Q_VA), result, false);
	} else if (n_va) {
		uint32_t n_req = fl_va_gather(n, ro, n_va);
		fl_va_allocate(n, ro, n_req, (uint32_t)n->now);
		FL_APPLY_HEADS(n, ro, Q_VA, n_va, fl_va_apply);
	}
}

static void fl_sa_eval(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	const uint64_t t = n->now;
	uint32_t i, lead, li;
	(void)r;
	if (!ro->sa_q.len)
		return;
	lead = fl_eval_extent(n, ro, Q_SA);
	uint32_t n_req = fl_sa_gather(n, ro, lead);
	fl_sa_allocate(n, ro, n_req, fl_done_at(t, n->rc.sw_alloc_delay));
	if (n->rc.sw_alloc_delay <= 1)
		return;
	/* The grants completing in this step. With pipelined_stages and an
	 * internal speedup they may come from allocations made in different
	 * steps of one cycle (delays count cycles), none of which saw the
	 * others' grants: a grant whose crossbar input or output an earlier
	 * one of this step takes is dropped, as the allocator would have, so
	 * the crossbar passes one flit per input and output per step. The
	 * marks use the allocator's scratch (in_match by crossbar input,
	 * out_match by crossbar output; -1 on entry and exit). */
	const bool same_step = n->rc.pipelined_stages && n->steps_max > 1;
	for (i = 0, li = ro->sa_q.head; i < ro->sa_q.len; i++, li = fl_node(n, ro, li)->next) {
		struct fl_node *nd = fl_node(n, ro, li);
		if (!fl_due(nd, t))
			break;
		if (nd->result < 0)
			continue;
		uint64_t iv = (uint64_t)ro->vc_base + li;
		uint64_t ov = (uint64_t)(ro->port_base + n->ivc[iv].out_port) * n->V + n->ivc[iv].out_vc;
		if (fl_out_full(n, ov, iv))
			nd->result = FL_STALL_BUFFER_FULL;
		else if (n->hold && fl_hold_blocks(n, ro, fl_hold_ein(n, li), (uint32_t)nd->result))
			nd->result = FL_STALL_CROSSBAR_CONFLICT; /* a hold set since the grant */
		if (!same_step || nd->result < 0)
			continue;
		const uint32_t ein = fl_hold_ein(n, li), eout = (uint32_t)nd->result;
		if (n->in_match[ein] >= 0 || n->out_match[eout] >= 0) {
			nd->result = FL_STALL_CROSSBAR_CONFLICT;
			continue;
		}
		n->in_match[ein] = (int32_t)eout;
		n->out_match[eout] = (int32_t)ein;
	}
	if (same_step)
		for (i = 0, li = ro->sa_q.head; i < ro->sa_q.len; i++, li = fl_node(n, ro, li)->next) {
			const struct fl_node *nd = fl_node(n, ro, li);
			if (!fl_due(nd, t))
				break;
			if (nd->result >= 0)
				n->in_match[fl_hold_ein(n, li)] = n->out_match[nd->result] = -1;
		}
}

static void fl_sa_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	(void)r;
	while (ro->sa_q.len && fl_due(fl_node(n, ro, ro->sa_q.head), n->now)) {
		int32_t res = fl_node(n, ro, ro->sa_q.head)->result;
		fl_sa_apply(n, ro, fl_q_pop(n, ro, Q_SA), res, false);
	}
}

/* One VC bidding for the switch (fl_sa_unit): granted unless its output
 * is full. `plain` is n->plain as a constant (no speedups: crossbar input
 * and output are the port), so the common sparse case, most of all a
 * packet's body flits that follow each other through an otherwise idle
 * router, takes fl_sa_apply's plain form as the many-bidder loop does
 * (FL_APPLY_HEADS). */
static inline __attribute__((always_inline)) void fl_sa_one(struct flitnet *n, struct fl_router *ro, bool plain)
{
	const uint32_t V = n->V;
	uint32_t li = ro->sa_q.head;
	uint64_t iv = (uint64_t)ro->vc_base + li;
	uint32_t op = n->ivc[iv].out_port;
	uint64_t ov = (uint64_t)(ro->port_base + op) * V + n->ivc[iv].out_vc;
	int32_t result = FL_STALL_BUFFER_FULL;
	if (!fl_out_full(n, ov, iv)) {
		const uint32_t isp = plain ? 1 : (uint32_t)n->rc.input_speedup;
		const uint32_t osp = plain ? 1 : (uint32_t)n->rc.output_speedup;
		uint32_t in = fl_li_port(n, li), vc = fl_li_vc(n, li);
		uint32_t ein = isp == 1 ? in : in * isp + vc % isp, eout = osp == 1 ? op : op * osp + in % osp;
		n->sw_aptr[(uint64_t)ro->port_base * isp + ein] = (uint16_t)fl_add_mod(eout, 1, ro->n_ports * osp);
		n->sw_gptr[(uint64_t)ro->port_base * osp + eout] = (uint16_t)fl_add_mod(ein, 1, ro->n_ports * isp);
		n->sw_rr[(uint64_t)ro->port_base * isp + ein] = (uint16_t)fl_add_mod(vc, isp, V);
		result = (int32_t)eout;
	}
	fl_sa_apply(n, ro, fl_q_pop(n, ro, Q_SA), result, plain);
}

static inline __attribute__((always_inline)) void fl_sa_unit(struct flitnet *n, struct fl_router *ro, uint32_t r, uint32_t n_sa)
{
	(void)r;
	if (n_sa == 1) {
		if (n->plain)
			fl_sa_one(n, ro, true);
		else
			fl_sa_one(n, ro, false);
	} else if (n_sa) {
		uint32_t n_req = fl_sa_gather(n, ro, n_sa);
		fl_sa_allocate(n, ro, n_req, (uint32_t)n->now);
		FL_APPLY_HEADS(n, ro, Q_SA, n_sa, fl_sa_apply);
	}
}

static void fl_xb_eval(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	const uint64_t t = n->now;
	uint32_t i;
	(void)r;
	for (i = 0; i < ro->xb_q.len; i++) {
		struct fl_xitem *x = fl_xq_at(n, ro, i);
		if (x->evaluated) {
			if (n->rc.pipelined_stages)
				continue;
			break;
		}
		x->time = fl_done_at(t, (int64_t)n->Xd);
		x->evaluated = 1;
	}
}

static void fl_xb_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	(void)r;
	while (ro->xb_q.len) {
		struct fl_xitem *x = fl_xq_at(n, ro, 0);
		if (!x->evaluated || (int32_t)(x->time - (uint32_t)n->now) > 0)
			break;
		fl_xb_apply(n, ro);
	}
}

static void fl_xb_unit(struct flitnet *n, struct fl_router *ro, uint32_t r, uint32_t n_xb)
{
	(void)r;
	for (uint32_t i = 0; i < n_xb; i++)
		fl_xb_apply(n, ro);
}

/* The unit path's stage functions, with the gathers and allocations
 * they call, are inlined by force into fl_router_step: a step runs each
 * once, and out of line their prologues and epilogues cost 2.4% of the
 * flattened butterfly's instructions (ff_ranmin 0.3: 604.2 M -> 589.9 M).
 *
 * The stage list, in update order: each entry names a stage whose
 * fl_<stage>_eval / _update halves form the general path and whose
 * fl_<stage>_unit is its one-pass form for unit delays. An X-macro rather
 * than a table of pointers so the calls stay direct and inline (a table
 * cost 5% more instructions on bench_engine speed). */
#define FL_STAGE_LIST(X) X(route, route_q) X(va, va_q) X(sa, sa_q) X(xb, xb_q)
/* The general path's list adds BookSim's holding stage (hold.h), which
 * turns the unit-delay path off when it is on. */
#define FL_STAGE_LIST_GEN(X) X(route, route_q) X(va, va_q) X(hold, -) X(sa, sa_q) X(xb, xb_q)

static inline void fl_hold_eval(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	if (__builtin_expect(n->hold != NULL, 0))
		fl_hold_stage_eval(n, ro, r);
}

static inline void fl_hold_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	if (__builtin_expect(n->hold != NULL, 0))
		fl_hold_stage_update(n, ro, r);
}

/* One internal step of router r at cycle n->now (BookSim's _InternalStep;
 * arrivals were queued by fl_router_arrive). With unit delays, pass order
 * route, VA, SA, crossbar keeps BookSim's order of effects: VA evaluation
 * reads output-VC owners before SA update releases them; SA evaluation
 * reads credits, which VA update does not touch; route computation reads
 * occupancy before SA update changes it. */
void fl_router_step(struct flitnet *n, uint32_t r)
{
	struct fl_router *ro = &n->routers[r];
	n->step_id++;
	/* Arrivals queued from now on come after everything this step
	 * leaves queued (fl_q_push_arrival). */
	ro->arr_route = FL_ARR_UNSET;
	/* Lookahead routing (routing_delay = 0, BookSim's iq_router.cpp): a
	 * head's route is ready when it reaches the front of an idle VC, so
	 * it bids for VC allocation in the same step, as BookSim's
	 * _InputQueuing puts it straight into _vc_alloc_vcs. The route is
	 * computed here, in queue (input port) order, so visit and partition
	 * order cannot change a random or adaptive choice. */
	if (__builtin_expect(n->lookahead, 0) && ro->route_q.len)
		fl_route_unit(n, ro, r, ro->route_q.len);
	if (n->unit_delays) {
#define FL_STAGE_LEN(st, q) const uint32_t len_##st = ro->q.len;
#define FL_STAGE_UNIT(st, q)                          \
	if (len_##st)                                 \
		fl_##st##_unit(n, ro, r, len_##st);
		FL_STAGE_LIST(FL_STAGE_LEN)
		FL_STAGE_LIST(FL_STAGE_UNIT)
		return;
	}
#define FL_STAGE_EVAL(st, q) fl_##st##_eval(n, ro, r);
#define FL_STAGE_UPDATE(st, q) fl_##st##_update(n, ro, r);
	FL_STAGE_LIST_GEN(FL_STAGE_EVAL)
	FL_STAGE_LIST_GEN(FL_STAGE_UPDATE)
#undef FL_STAGE_LEN
#undef FL_STAGE_UNIT
#undef FL_STAGE_EVAL
#undef FL_STAGE_UPDATE
}
