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
#include <string.h>

#include "core/error.h"
#include "net/net_internal.h"
#include "topo/topo.h"

enum { Q_ROUTE, Q_VA, Q_SA };

static inline struct fl_ring *fl_q(struct fl_router *ro, int which)
{
	return which == Q_ROUTE ? &ro->route_q : which == Q_VA ? &ro->va_q : &ro->sa_q;
}

static inline struct fl_item *fl_q_at(struct flitnet *n, struct fl_router *ro, int which, uint32_t i)
{
	struct fl_ring *q = fl_q(ro, which);
	uint32_t idx = q->head + i;
	if (idx >= ro->qcap)
		idx -= ro->qcap;
	return &n->items[ro->q_off + (uint32_t)which * ro->qcap + idx];
}

static inline void fl_q_push(struct flitnet *n, struct fl_router *ro, int which, uint16_t in, uint8_t vc)
{
	struct fl_ring *q = fl_q(ro, which);
	NL_ASSERT(q->len < ro->qcap);
	q->len++;
	struct fl_item *it = fl_q_at(n, ro, which, q->len - 1u);
	it->time = FL_UNSET;
	it->result = -1;
	it->in = in;
	it->vc = vc;
}

static inline void fl_q_pop(struct fl_router *ro, int which)
{
	struct fl_ring *q = fl_q(ro, which);
	q->head = (uint16_t)(q->head + 1u == ro->qcap ? 0 : q->head + 1u);
	q->len--;
}

static inline struct fl_xitem *fl_xq_at(struct flitnet *n, struct fl_router *ro, uint32_t i)
{
	uint32_t idx = ro->xb_q.head + i;
	if (idx >= ro->xq_cap)
		idx -= ro->xq_cap;
	return &n->xitems[ro->xq_off + idx];
}

bool fl_router_busy(const struct flitnet *n, uint32_t r)
{
	const struct fl_router *ro = &n->routers[r];
	return ro->route_q.len | ro->va_q.len | ro->sa_q.len | ro->xb_q.len;
}

/* --- VC buffers: runs of flits of one packet ---------------------------------- */

static inline void fl_buf_push(struct flitnet *n, uint64_t iv, uint32_t pkt, uint16_t seq)
{
	uint32_t tl = n->iv_tail[iv];
	if (tl != FL_NONE && n->runs[tl].pkt == pkt) {
		NL_ASSERT(n->runs[tl].seq + n->runs[tl].n == seq);
		n->runs[tl].n++;
	} else {
		uint32_t ru = fl_run_alloc(n);
		n->runs[ru].pkt = pkt;
		n->runs[ru].seq = seq;
		n->runs[ru].n = 1;
		n->runs[ru].next = FL_NONE;
		if (tl == FL_NONE)
			n->iv_head[iv] = ru;
		else
			n->runs[tl].next = ru;
		n->iv_tail[iv] = ru;
	}
	n->iv_count[iv]++;
}

static inline void fl_buf_front(const struct flitnet *n, uint64_t iv, uint32_t *pkt, uint16_t *seq)
{
	const struct fl_run *ru = &n->runs[n->iv_head[iv]];
	*pkt = ru->pkt;
	*seq = ru->seq;
}

static inline void fl_buf_pop(struct flitnet *n, uint64_t iv)
{
	uint32_t h = n->iv_head[iv];
	struct fl_run *ru = &n->runs[h];
	ru->seq++;
	if (--ru->n == 0) {
		n->iv_head[iv] = ru->next;
		if (ru->next == FL_NONE)
			n->iv_tail[iv] = FL_NONE;
		fl_run_free(n, h);
	}
	n->iv_count[iv]--;
}

/* BookSim's _InputQueuing for one arriving flit. */
void fl_router_arrive(struct flitnet *n, uint32_t r, uint16_t port, uint8_t vc, uint32_t pkt, uint16_t seq)
{
	struct fl_router *ro = &n->routers[r];
	uint64_t iv = (uint64_t)(ro->port_base + port) * n->V + vc;
	bool was_empty = n->iv_count[iv] == 0;

	fl_buf_push(n, iv, pkt, seq);
	if (n->iv_state[iv] == VC_IDLE) {
		NL_ASSERT(was_empty && seq == 0);
		n->iv_state[iv] = VC_ROUTING;
		fl_q_push(n, ro, Q_ROUTE, port, vc);
	} else if (n->iv_state[iv] == VC_ACTIVE && was_empty) {
		fl_q_push(n, ro, Q_SA, port, vc);
	}
}

/* --- stages ----------------------------------------------------------------- */

static inline uint64_t fl_done_at(uint64_t now, int64_t delay)
{
	return now + (uint64_t)delay - 1;
}

static void fl_route_update(struct flitnet *n, struct fl_router *ro, uint32_t r)
{
	const uint64_t t = n->now;
	struct route_view view = {
		.out_occ = n->ov_occ + (uint64_t)ro->port_base * n->V,
		.n_vcs = n->V,
		.vc_buf_size = n->buf,
	};
	while (ro->route_q.len) {
		struct fl_item *it = fl_q_at(n, ro, Q_ROUTE, 0);
		if (it->time == FL_UNSET || it->time > t)
			break;
		uint64_t iv = (uint64_t)(ro->port_base + it->in) * n->V + it->vc;
		uint32_t pkt;
		uint16_t seq;
		fl_buf_front(n, iv, &pkt, &seq);
		struct route_cand cand[ROUTE_MAX_CANDS];
		int nc = n->route->ops->compute(n->route, r, it->in, it->vc, &n->pkts[pkt].rt, &ro->rng, &view,
						cand);
		NL_ASSERT(nc >= 1);
		if ((uint32_t)nc > n->cand_cap)
			nc = (int)n->cand_cap;
		memcpy(n->iv_cand + iv * n->cand_cap, cand, (size_t)nc * sizeof *cand);
		n->iv_ncand[iv] = (uint8_t)nc;
		n->iv_state[iv] = VC_VCALLOC;
		uint16_t in = it->in;
		uint8_t vc = it->vc;
		fl_q_pop(ro, Q_ROUTE);
		fl_q_push(n, ro, Q_VA, in, vc);
	}
}

static void fl_va_evaluate(struct flitnet *n, struct fl_router *ro)
{
	const uint64_t t = n->now;
	const uint32_t V = n->V;
	uint32_t n_req = 0;
	uint32_t i;

	for (i = 0; i < ro->va_q.len; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_VA, i);
		if (it->time != FL_UNSET)
			break;
		uint64_t iv = (uint64_t)(ro->port_base + it->in) * V + it->vc;
		const struct route_cand *c = n->iv_cand + iv * n->cand_cap;
		bool elig = false;
		for (uint32_t k = 0; k < n->iv_ncand[iv]; k++)
			for (uint32_t ovc = c[k].vc_lo; ovc <= c[k].vc_hi; ovc++) {
				uint64_t ov = (uint64_t)(ro->port_base + c[k].port) * V + ovc;
				if (n->ov_owner[ov] != FL_NONE)
					continue;
				elig = true;
				struct fl_areq *rq = &n->areq[n_req++];
				rq->in = (int32_t)(it->in * V + it->vc);
				rq->out = (int32_t)(c[k].port * V + ovc);
				rq->label = 0;
				rq->in_pri = c[k].prio;
				rq->out_pri = 0;
			}
		if (!elig)
			it->result = FL_STALL_BUFFER_BUSY;
	}
	uint32_t n_lead = i;
	if (n_req)
		fl_allocate(n, n->rc.vc_allocator, (uint32_t)n->rc.alloc_iters, n->areq, n_req,
			    (uint32_t)ro->n_ports * V, (uint32_t)ro->n_ports * V,
			    n->va_aptr + (uint64_t)ro->port_base * V, n->va_gptr + (uint64_t)ro->port_base * V);
	for (i = 0; i < n_lead; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_VA, i);
		it->time = fl_done_at(t, n->rc.vc_alloc_delay);
		if (it->result < -1)
			continue;
		int32_t m = n_req ? n->in_match[it->in * V + it->vc] : -1;
		it->result = m >= 0 ? m : FL_STALL_BUFFER_CONFLICT;
	}
	if (n_req)
		for (uint32_t k = 0; k < n_req; k++)
			n->in_match[n->areq[k].in] = n->out_match[n->areq[k].out] = -1;
	if (n->rc.vc_alloc_delay <= 1)
		return;
	for (i = 0; i < ro->va_q.len; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_VA, i);
		if (it->time == FL_UNSET || it->time > t)
			break;
		if (it->result >= 0 &&
		    n->ov_owner[(uint64_t)(ro->port_base + (uint32_t)it->result / V) * V + (uint32_t)it->result % V] != FL_NONE)
			it->result = FL_STALL_BUFFER_BUSY;
	}
}

static void fl_va_update(struct flitnet *n, struct fl_router *ro)
{
	const uint64_t t = n->now;
	const uint32_t V = n->V;
	while (ro->va_q.len) {
		struct fl_item *it = fl_q_at(n, ro, Q_VA, 0);
		if (it->time == FL_UNSET || it->time > t)
			break;
		uint16_t in = it->in;
		uint8_t vc = it->vc;
		int32_t res = it->result;
		fl_q_pop(ro, Q_VA);
		if (res >= 0) {
			uint64_t iv = (uint64_t)(ro->port_base + in) * V + vc;
			uint32_t op = (uint32_t)res / V, ovc = (uint32_t)res % V;
			uint64_t ov = (uint64_t)(ro->port_base + op) * V + ovc;
			NL_ASSERT(n->ov_owner[ov] == FL_NONE);
			n->ov_owner[ov] = (uint32_t)in * V + vc;
			n->ov_tail_sent[ov] = 0;
			n->iv_out_port[iv] = (uint16_t)op;
			n->iv_out_vc[iv] = (uint8_t)ovc;
			n->iv_state[iv] = VC_ACTIVE;
			fl_q_push(n, ro, Q_SA, in, vc);
		} else {
			fl_q_push(n, ro, Q_VA, in, vc);
		}
	}
}

/* Is the buffer across output VC ov too full for the front flit? Wormhole:
 * one free slot; cut-through: a head needs room for its whole packet. */
static inline bool fl_out_full(const struct flitnet *n, uint64_t ov, uint32_t pkt, uint16_t seq)
{
	uint32_t need = 1;
	if (n->nc.flow_control == FL_VCT && seq == 0)
		need = n->pkts[pkt].size;
	return n->ov_occ[ov] + need > n->buf;
}

static void fl_sa_evaluate(struct flitnet *n, struct fl_router *ro)
{
	const uint64_t t = n->now;
	const uint32_t V = n->V;
	const uint32_t isp = (uint32_t)n->rc.input_speedup, osp = (uint32_t)n->rc.output_speedup;
	uint32_t n_req = 0, i;

	for (i = 0; i < ro->sa_q.len; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_SA, i);
		if (it->time != FL_UNSET)
			break;
		uint64_t iv = (uint64_t)(ro->port_base + it->in) * V + it->vc;
		NL_ASSERT(n->iv_state[iv] == VC_ACTIVE && n->iv_count[iv]);
		uint32_t op = n->iv_out_port[iv];
		uint64_t ov = (uint64_t)(ro->port_base + op) * V + n->iv_out_vc[iv];
		uint32_t pkt;
		uint16_t seq;
		fl_buf_front(n, iv, &pkt, &seq);
		if (fl_out_full(n, ov, pkt, seq)) {
			it->result = FL_STALL_BUFFER_FULL;
			continue;
		}
		int32_t ein = (int32_t)(it->in * isp + it->vc % isp);
		int32_t eout = (int32_t)(op * osp + it->in % osp);
		/* One request per (input, output) pair: among VCs of the same
		 * input, the one next in round-robin order from sw_rr wins
		 * (BookSim's RoundRobinArbiter::Supersedes). */
		uint32_t rr = n->sw_rr[(uint64_t)ro->port_base * isp + (uint32_t)ein];
		uint32_t k;
		for (k = 0; k < n_req; k++)
			if (n->areq[k].in == ein && n->areq[k].out == eout)
				break;
		if (k < n_req) {
			uint32_t a = (it->vc - rr + V) % V, b = ((uint32_t)n->areq[k].label - rr + V) % V;
			if (a < b)
				n->areq[k].label = it->vc;
			continue;
		}
		struct fl_areq *rq = &n->areq[n_req++];
		rq->in = ein;
		rq->out = eout;
		rq->label = it->vc;
		rq->in_pri = rq->out_pri = 0;
	}
	uint32_t n_lead = i;
	if (n_req)
		fl_allocate(n, n->rc.sw_allocator, (uint32_t)n->rc.alloc_iters, n->areq, n_req,
			    (uint32_t)ro->n_ports * isp, (uint32_t)ro->n_ports * osp,
			    n->sw_aptr + (uint64_t)ro->port_base * isp, n->sw_gptr + (uint64_t)ro->port_base * osp);
	for (i = 0; i < n_lead; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_SA, i);
		it->time = fl_done_at(t, n->rc.sw_alloc_delay);
		if (it->result < -1)
			continue;
		int32_t ein = (int32_t)(it->in * isp + it->vc % isp);
		int32_t eout = n_req ? n->in_match[ein] : -1;
		it->result = FL_STALL_CROSSBAR_CONFLICT;
		if (eout < 0)
			continue;
		for (uint32_t k = 0; k < n_req; k++)
			if (n->areq[k].in == ein && n->areq[k].out == eout) {
				if (n->areq[k].label == it->vc) {
					n->sw_rr[(uint64_t)ro->port_base * isp + (uint32_t)ein] =
						(uint16_t)((it->vc + isp) % V);
					it->result = eout;
				}
				break;
			}
	}
	if (n_req)
		for (uint32_t k = 0; k < n_req; k++)
			n->in_match[n->areq[k].in] = n->out_match[n->areq[k].out] = -1;
	if (n->rc.sw_alloc_delay <= 1)
		return;
	for (i = 0; i < ro->sa_q.len; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_SA, i);
		if (it->time == FL_UNSET || it->time > t)
			break;
		if (it->result < 0)
			continue;
		uint64_t iv = (uint64_t)(ro->port_base + it->in) * V + it->vc;
		uint64_t ov = (uint64_t)(ro->port_base + n->iv_out_port[iv]) * V + n->iv_out_vc[iv];
		uint32_t pkt;
		uint16_t seq;
		fl_buf_front(n, iv, &pkt, &seq);
		if (fl_out_full(n, ov, pkt, seq))
			it->result = FL_STALL_BUFFER_FULL;
	}
}

/* A credit for input VC (in, vc) leaves this router towards the upstream
 * router or endpoint. Credits freed at one input in the same step travel
 * together; one credit message per cycle per channel. */
static void fl_send_credit(struct flitnet *n, struct fl_router *ro, uint16_t in, uint8_t vc)
{
	const struct topo *t = n->topo;
	uint32_t g = ro->port_base + in;
	uint64_t c = n->now;
	if (n->cred_free[g] > c)
		c = n->cred_free[g];
	if (n->cred_step[g] == n->step_id)
		c = n->cred_cycle[g];
	else
		n->cred_free[g] = c + 1;
	n->cred_step[g] = n->step_id;
	n->cred_cycle[g] = c;
	uint32_t peer = t->peer[g];
	struct fl_event ev = {.vc = vc};
	if (peer & TOPO_EP_BIT) {
		ev.kind = EV_CREDIT_NIC;
		ev.target = peer & ~TOPO_EP_BIT;
	} else {
		ev.kind = EV_CREDIT_ROUTER;
		ev.target = t->port_router[peer];
		ev.port = (uint16_t)(peer - t->port_base[ev.target]);
	}
	fl_schedule(n, c + n->port_lat[g] + 1 + (uint64_t)n->rc.credit_delay, &ev);
}

static void fl_sa_update(struct flitnet *n, struct fl_router *ro)
{
	const struct topo *t = n->topo;
	const uint64_t now = n->now;
	const uint32_t V = n->V;
	const uint32_t osp = (uint32_t)n->rc.output_speedup;
	while (ro->sa_q.len) {
		struct fl_item *it = fl_q_at(n, ro, Q_SA, 0);
		if (it->time == FL_UNSET || it->time > now)
			break;
		uint16_t in = it->in;
		uint8_t vc = it->vc;
		int32_t res = it->result;
		fl_q_pop(ro, Q_SA);
		if (res < 0) {
			fl_q_push(n, ro, Q_SA, in, vc);
			continue;
		}
		uint64_t iv = (uint64_t)(ro->port_base + in) * V + vc;
		uint32_t op = (uint32_t)res / osp;
		NL_ASSERT(op == n->iv_out_port[iv]);
		uint8_t ovc = n->iv_out_vc[iv];
		uint64_t ov = (uint64_t)(ro->port_base + op) * V + ovc;
		uint32_t pkt;
		uint16_t seq;
		fl_buf_front(n, iv, &pkt, &seq);
		fl_buf_pop(n, iv);
		struct fl_pkt *pk = &n->pkts[pkt];
		bool tail = seq + 1u == pk->size;
		uint32_t gout = ro->port_base + op;
		bool network = !(t->peer[gout] & TOPO_EP_BIT);
		if (seq == 0) {
			pk->routers++;
			if (network)
				pk->rt.hops++;
		}
		if (network) {
			n->flit_hops++;
			if (n->count_channels)
				n->chan_flits[gout]++;
		}
		n->ov_occ[ov]++;
		NL_ASSERT(n->ov_occ[ov] <= n->buf);
		if (tail) {
			n->ov_tail_sent[ov] = 1;
			if (!n->rc.wait_for_tail_credit)
				n->ov_owner[ov] = FL_NONE;
		}
		NL_ASSERT(ro->xb_q.len < ro->xq_cap);
		ro->xb_q.len++;
		struct fl_xitem *x = fl_xq_at(n, ro, ro->xb_q.len - 1u);
		x->time = FL_UNSET;
		x->pkt = pkt;
		x->seq = seq;
		x->out = (uint16_t)op;
		x->vc = ovc;
		fl_send_credit(n, ro, in, vc);
		n->last_move = now;
		if (n->iv_count[iv] == 0) {
			if (tail)
				n->iv_state[iv] = VC_IDLE;
		} else if (tail) {
			n->iv_state[iv] = VC_ROUTING;
			fl_q_push(n, ro, Q_ROUTE, in, vc);
		} else {
			fl_q_push(n, ro, Q_SA, in, vc);
		}
	}
}

static void fl_switch_update(struct flitnet *n, struct fl_router *ro)
{
	const struct topo *t = n->topo;
	const uint64_t now = n->now;
	while (ro->xb_q.len) {
		struct fl_xitem *x = fl_xq_at(n, ro, 0);
		if (x->time == FL_UNSET || x->time > now)
			break;
		uint32_t g = ro->port_base + x->out;
		uint64_t c = n->out_free[g] > now ? n->out_free[g] : now;
		n->out_free[g] = c + 1;
		uint32_t peer = t->peer[g];
		struct fl_event ev = {.pkt = x->pkt, .seq = x->seq, .vc = x->vc};
		if (peer & TOPO_EP_BIT) {
			ev.kind = EV_FLIT_NIC;
			ev.target = peer & ~TOPO_EP_BIT;
		} else {
			ev.kind = EV_FLIT_ROUTER;
			ev.target = t->port_router[peer];
			ev.port = (uint16_t)(peer - t->port_base[ev.target]);
		}
		fl_schedule(n, c + n->port_lat[g] + 1, &ev);
		ro->xb_q.head = (uint16_t)(ro->xb_q.head + 1u == ro->xq_cap ? 0 : ro->xb_q.head + 1u);
		ro->xb_q.len--;
	}
}

/* One internal step of router r at cycle n->now (BookSim's _InternalStep;
 * arrivals were queued by fl_router_arrive). */
void fl_router_step(struct flitnet *n, uint32_t r)
{
	struct fl_router *ro = &n->routers[r];
	const uint64_t t = n->now;

	n->step_id++;
	/* Evaluate. */
	for (uint32_t i = 0; i < ro->route_q.len; i++) {
		struct fl_item *it = fl_q_at(n, ro, Q_ROUTE, i);
		if (it->time != FL_UNSET)
			break;
		it->time = fl_done_at(t, n->rc.routing_delay);
	}
	if (ro->va_q.len)
		fl_va_evaluate(n, ro);
	if (ro->sa_q.len)
		fl_sa_evaluate(n, ro);
	for (uint32_t i = 0; i < ro->xb_q.len; i++) {
		struct fl_xitem *x = fl_xq_at(n, ro, i);
		if (x->time != FL_UNSET)
			break;
		x->time = fl_done_at(t, (int64_t)n->Xd);
	}
	/* Update. */
	if (ro->route_q.len)
		fl_route_update(n, ro, r);
	if (ro->va_q.len)
		fl_va_update(n, ro);
	if (ro->sa_q.len)
		fl_sa_update(n, ro);
	if (ro->xb_q.len)
		fl_switch_update(n, ro);
}
