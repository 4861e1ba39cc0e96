/* Endpoints: packet generation, injection and ejection (BookSim2's
 * TrafficManager::_Step for one node).
 *
 * Synthetic sources are Bernoulli processes: instead of a coin toss per
 * cycle, the gap to the next arrival is drawn from the geometric
 * distribution once per packet, which is the same process at a cost per
 * packet. As in BookSim, a packet is created (its creation time being its
 * arrival cycle) only when the previous one has been fully injected, so an
 * unbounded source queue costs no memory; latency counts from arrival.
 * Injection sends at most one flit per cycle; a head picks its VC round
 * robin from the routing function's injection range. Ejection is an
 * infinite sink returning a credit at once.
 */
#include "core/error.h"
#include "net/net_internal.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

/* The routing function's injection VC range, in the packet's traffic
 * class's VCs (the function sees n->cls_w VCs numbered from 0). */
static inline void fl_nic_inject_route(struct flitnet *n, struct fl_nic *c, struct route_pkt *rt)
{
	n->route->ops->inject(n->route, rt, &c->rng, &c->inj_lo, &c->inj_hi);
	if (n->n_cls > 1) {
		uint8_t off = (uint8_t)(rt->tclass * n->cls_w);
		c->inj_lo = (uint8_t)(c->inj_lo + off);
		c->inj_hi = (uint8_t)(c->inj_hi + off);
	}
}

/* Create the next synthetic packet of endpoint e, or return FL_NONE when
 * the pattern gives e nothing to send. */
static uint32_t fl_nic_generate(struct flitnet *n, uint32_t e)
{
	struct fl_nic *c = &n->nics[e];
	uint64_t ctime = c->next_gen;

	c->next_gen = ctime + 1 + rng_geometric_l(&c->rng, n->synth.pkt_rate, n->synth.pkt_rate_l);
	if (n->obs.watch_drain && !c->drained && c->next_gen >= n->obs.drain_time) {
		c->drained = 1;
		n->obs.n_undrained--;
	}
	uint32_t dst = n->synth.traffic->ops->dest(n->synth.traffic, e, &c->rng);
	if (dst == TRAFFIC_NONE)
		return FL_NONE;
	uint32_t size = n->synth.size_lo;
	if (n->synth.size_hi > n->synth.size_lo)
		size += (uint32_t)rng_below(&c->rng, n->synth.size_hi - n->synth.size_lo + 1);

	uint32_t i = fl_pkt_alloc(n);
	struct fl_pkt *pk = &n->pool.pkts[i];
	pk->ctime = (uint32_t)ctime;
	pk->itime = 0;
	fl_pkt_set_msg(n, i, 0);
	NL_ASSERT(size <= n->pkt_max_flits); /* fl_pkt_max_grow: cut-through reads sizes above 1 */
	pk->size = (uint16_t)size;
	pk->routers = 0;
	pk->measured = ctime < n->obs.measure_before;
	struct route_pkt rt = {
		.src_ep = e,
		.dst_router = n->ep_router[dst],
		.dst_ep = dst,
		.tclass = n->n_cls > 1 ? (uint8_t)((n->synth.class_rule == TRAFFIC_CLASS_DEST ? dst : e) % n->n_cls) : 0,
	};
	fl_nic_inject_route(n, c, &rt);
	fl_rt_store(&pk->rt, &rt);
	n->obs.flits_alive += size;
	n->obs.ctime_sum_alive += (uint64_t)size * ctime;
	if (pk->measured)
		n->obs.measured_alive += size;
	return i;
}

/* Lookahead routing: the source decision as the head leaves (route_ops.
 * decide_at_injection), on the source router's view, as fl_route_apply
 * builds it: the partition's kept view (fl_kept_view), as the route stage's. */
static void fl_nic_decide(struct flitnet *n, struct fl_nic *c, struct fl_pkt *pk)
{
	const uint32_t r = n->ep_router[pk->rt.src_ep];
	const struct route_view *const view = fl_kept_view(n, &n->routers[r]);
	struct route_pkt rt = fl_rt_load(n, &pk->rt);
	n->route->ops->decide_at_injection(n->route, r, &rt, &c->rng, view);
	fl_rt_store(&pk->rt, &rt);
}

/* Pick the head's injection VC as BookSim does: round robin after the last
 * VC used, the first one free and not full. */
static int fl_nic_pick_vc(struct flitnet *n, uint32_t e, const struct fl_pkt *pk)
{
	struct fl_nic *c = &n->nics[e];
	const uint32_t V = n->V;
	uint32_t lo = c->inj_lo, hi = c->inj_hi, count = hi - lo + 1, lvc = c->last_vc;
	uint32_t need = n->nc.flow_control == FL_VCT ? pk->size : 1;
	for (uint32_t i = 1; i <= count; i++) {
		uint32_t vc = (lvc < lo || lvc > hi) ? lo : lo + (lvc - lo + i) % count;
		uint64_t s = (uint64_t)e * V + vc;
		if (n->nic_busy[s])
			continue;
		if (n->nic_occ[s] + need > n->buf)
			continue;
		return (int)vc;
	}
	return -1;
}

void fl_nic_step(struct flitnet *n, uint32_t e)
{
	struct fl_nic *c = &n->nics[e];
	const struct topo *t = n->topo;
	const uint64_t now = n->now;
	const uint32_t V = n->V;
	bool blocked = false;

	if (c->cur_pkt == FL_NONE) {
		if (c->q_head != FL_NONE) {
			c->cur_pkt = c->q_head;
			c->q_head = n->pool.pkts[c->q_head].next;
			if (c->q_head == FL_NONE)
				c->q_tail = FL_NONE;
			struct fl_pkt *pk = &n->pool.pkts[c->cur_pkt];
			struct route_pkt rt = fl_rt_load(n, &pk->rt);
			fl_nic_inject_route(n, c, &rt);
			fl_rt_store(&pk->rt, &rt);
		} else if (n->synth.traffic && c->next_gen <= now) {
			c->cur_pkt = fl_nic_generate(n, e);
		}
		c->cur_seq = 0;
		c->cur_vc = 0xff;
	}

	if (c->cur_pkt != FL_NONE) {
		struct fl_pkt *pk = &n->pool.pkts[c->cur_pkt];
		int vc = c->cur_vc;
		if (c->cur_seq == 0) {
			vc = fl_nic_pick_vc(n, e, pk);
		} else if (n->nic_occ[(uint64_t)e * V + (uint32_t)vc] >= n->buf) {
			vc = -1;
		}
		if (vc >= 0) {
			uint64_t s = (uint64_t)e * V + (uint32_t)vc;
			if (c->cur_seq == 0) {
				if (n->lookahead && n->route->ops->decide_at_injection)
					fl_nic_decide(n, c, pk);
				if (__builtin_expect(n->la_upstream, 0)) { /* BookSim: decided as injected */
					uint32_t g0 = t->ep_port[e], r0 = t->port_router[g0];
					fl_la_decide(n, r0, g0 - n->routers[r0].port_base, (uint32_t)vc, c->cur_pkt,
						     &c->rng);
				}
				n->nic_busy[s] = 1;
				c->last_vc = (uint8_t)vc;
				c->cur_vc = (uint8_t)vc;
				pk->itime = (uint32_t)now;
			}
			n->nic_occ[s]++;
			bool tail = c->cur_seq + 1u == pk->size;
			if (tail)
				n->nic_busy[s] = n->rc.wait_for_tail_credit ? 2 : 0;
			uint32_t g = t->ep_port[e];
			/* Over the terminal channel (terminal_latency, 1 by default),
			 * into the wheel inline as a compact flit in the usual case
			 * (a source and its router share a partition), as a router's
			 * output goes (fl_wheel_flit). A sparse replay injects a flit
			 * nearly every cycle, and the call with its event cost 49
			 * instructions a flit. */
			const uint64_t at = now + n->ports[g].link.lat + 1;
			if (__builtin_expect(!fl_wheel_flit(n, at, c->cur_pkt, g, c->cur_seq, (uint8_t)vc), 0)) {
				const struct fl_event ev = {
					.kind = EV_FLIT_ROUTER,
					.to = g,
					.vc = (uint8_t)vc,
					.pkt = c->cur_pkt,
					.seq = c->cur_seq,
				};
				fl_schedule_flit(n, at, &ev);
			}
			n->flits_in_net++;
			n->obs.sent_flits += n->obs.count_traffic;
			n->last_move = now;
			c->cur_seq++;
			if (tail) {
				c->cur_pkt = FL_NONE;
				c->cur_vc = 0xff;
			}
		} else {
			blocked = true;
		}
	}

	/* A source whose packet has no injection VC (or no credit for its next
	 * flit) waits for a credit: until one returns, every step would find
	 * the same VCs busy or full, draw nothing and generate nothing (a
	 * source generates only between packets), so it is not stepped but
	 * parked, and fl_nic_credit steps it in the credit's cycle, as
	 * stepping it every cycle would have sent then. Steps of one cycle's
	 * sources commute (fl_gen_release), so the order it rejoins them in
	 * does not matter. Under saturation most sources wait so: on the
	 * 128,000-endpoint Equality at 0.9, 65,536 of them every cycle. */
	if (blocked)
		n->nic_parked[e] = 1;
	else if (c->cur_pkt != FL_NONE || c->q_head != FL_NONE || (n->synth.traffic && c->next_gen <= now + 1))
		fl_activate_nic_next(n, e);
	else if (n->synth.traffic && c->next_gen != UINT64_MAX)
		fl_gen_push(n, e);
}

void fl_nic_credit(struct flitnet *n, uint64_t s)
{
	NL_ASSERT(n->nic_occ[s] > 0);
	n->nic_occ[s]--;
	if (n->nic_busy[s] == 2 && n->nic_occ[s] == 0)
		n->nic_busy[s] = 0;
	/* Credits are dispatched before the cycle's sources step (fl_cycle):
	 * a parked source steps in this cycle. */
	const uint32_t e = (uint32_t)fl_div_v(n, s);
	if (n->nic_parked[e]) {
		n->nic_parked[e] = 0;
		fl_activate_nic(n, e, n->now);
	}
}

void fl_nic_eject(struct flitnet *n, uint32_t e, uint32_t pkt, uint16_t seq, uint8_t vc)
{
	const struct topo *t = n->topo;
	const uint64_t now = n->now;
	struct fl_pkt *pk = &n->pool.pkts[pkt];

	NL_ASSERT(pk->rt.dst_ep == e);
	uint32_t g = t->ep_port[e];
	uint32_t r = t->port_router[g];
	const uint64_t cr_cycle = now + n->ports[g].link.lat + 1 + (uint64_t)n->rc.credit_delay;
	if (!fl_wheel_credit(n, cr_cycle, g * n->V + vc)) {
		struct fl_event ev = {
			.kind = EV_CREDIT_ROUTER,
			.to = g,
			.vc = vc,
		};
		fl_schedule_credit(n, cr_cycle, &ev);
	}
	n->flits_in_net--;
	n->obs.flits_alive--;
	n->obs.ctime_sum_alive -= fl_pkt_ctime(pk, now);
	if (pk->measured)
		n->obs.measured_alive--;
	if (n->obs.count_traffic && (!n->synth.traffic || traffic_is_active(n->synth.traffic, e)))
		n->obs.accepted_flits++;
	n->last_move = now;
	if (seq + 1u != pk->size)
		return;
	if (n->obs.record_all || pk->measured) {
		stats_hist_add(&n->obs.plat, (uint32_t)((uint32_t)now - pk->ctime));
		stats_hist_add(&n->obs.nlat, (uint32_t)((uint32_t)now - pk->itime));
		stats_hist_add(&n->obs.hops, pk->routers ? pk->routers - 1u : 0);
	}
	/* The message driver is the root's, and a message's packets all end
	 * here (one destination): its count is this partition's to change.
	 * Completions go to the partition's own list, delivered at the cycle
	 * boundary in router order (fl_part_exchange), so partitions running
	 * side by side never write one list. */
	struct fl_msgdrv *root_md = &n->root->msg, *md = &n->msg;
	const uint32_t msg = fl_pkt_msg(n, pkt);
	if (msg && root_md->deliver && --root_md->msgs[msg - 1u].pkts_left == 0) {
		if (md->n_done == md->cap_done) {
			uint32_t cap = md->cap_done ? 2 * md->cap_done : 64;
			uint64_t *d = fl_grow(n, md->done, (size_t)cap * sizeof *d);
			if (d) {
				md->done = d;
				md->cap_done = cap;
			}
		}
		if (md->n_done < md->cap_done)
			md->done[md->n_done++] = (uint64_t)r << 32 | (msg - 1u);
	}
	fl_pkt_free(n, pkt);
}
