/* Deadlock detection for the flit model: a deadlock ends the run as a
 * report, never as a measurement (issue 9, part 4).
 *
 * The verdict is a proof, not a timeout: dl_find computes the largest set
 * of non-empty input VCs in which every VC's front flit waits on a
 * resource held by another VC of the set (an output VC owned by a member,
 * or a full downstream buffer that is a member, with no flit or credit in
 * flight between them). No member can move before another one does, so
 * none ever will: that is a deadlock (Dally & Towles §14.1), and heavy
 * congestion, however long its waits, never forms such a set. Two checks
 * decide when to look:
 *  - global: nothing changed during the last cycle(s) (no flit moved, no
 *    head routed or granted a VC, no event delivered) and no flit or
 *    credit is pending on any channel: the state cannot change any more.
 *    Costs two comparisons per cycle; fires in the cycle the network
 *    freezes (unit stage delays) or a few stage delays later.
 *  - local: every dl_period cycles a scan of the input VCs finds front
 *    flits that have not changed for dl_bound cycles; if there is one, the
 *    exact check runs. Finds a deadlocked corner while the rest of the
 *    network keeps moving. The scan reads one 32-byte record per input VC
 *    of the routers that may hold flits (dl_held; the front flit's packet
 *    for non-empty VCs), and the hot path only marks a router when a flit
 *    enters an empty VC. Past saturation fronts wait longer than the
 *    bound in plain queues, and the exact check, a pass over the whole
 *    network, ran at every scan: after a check that finds no deadlock
 *    the next waits 2, 4, then 8 scans, until a scan finds no front that
 *    waited the bound.
 * The bound dl_bound is derived in fl_dl_setup (docs/engine.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "net/voq.h"
#include "topo/topo.h"

/* Past saturation, exact checks in a row that found only queues space
 * the next one 2^k scans (of L/2 cycles) apart, k at most DL_BACKOFF_MAX
 * (fl_dl_scan): a deadlock forming there is found within 1.5 L + 4 L,
 * where the scans alone give 1.5 L. On the 64x64 torus at 0.1 (dor, 2
 * VCs) the checks ran at 49 of 55 scans: 4% of the run's instructions,
 * and the serial part of its threaded cycles. */
#define DL_BACKOFF_MAX 3

static uint64_t dl_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void fl_dl_setup(struct flitnet *n, uint32_t max_packet_flits)
{
	const struct router_cfg *rc = &n->rc;
	const uint64_t P = topo_max_radix(n->topo), V = n->V, buf = n->buf;
	/* Head latency through one router (docs/engine.md, per-hop timing). */
	const uint64_t R = (uint64_t)(rc->routing_delay + rc->vc_alloc_delay + rc->sw_alloc_delay +
				      rc->st_prepare_delay + rc->st_final_delay);
	const uint64_t Dmax = dl_max(dl_max((uint64_t)rc->routing_delay, (uint64_t)rc->vc_alloc_delay),
				     dl_max((uint64_t)rc->sw_alloc_delay, n->Xd));
	/* Credit round trip of the longest channel: the flit's channel, the
	 * next router's pipeline, the credit's channel and credit_delay. */
	const uint64_t rt = 2 * ((uint64_t)n->max_lat + 1) + (uint64_t)rc->credit_delay + R;
	/* Cycles per flit of one VC on a busy channel: its buffer refills once
	 * per round trip; BookSim's one-at-a-time multi-cycle stages serve one
	 * flit per stage delay. */
	uint64_t per_flit = (rt + buf - 1) / buf;
	if (!rc->pipelined_stages)
		per_flit = dl_max(per_flit, Dmax);
	/* One packet's hold of an output VC: its flits, plus a credit round
	 * trip when the VC is freed only by the tail's credit. */
	uint64_t hold = (uint64_t)max_packet_flits * per_flit + (rc->wait_for_tail_credit ? rt : 0);
	/* A front flit competes, round robin, with every other input VC of its
	 * router (ports x VCs) for an output VC or the switch; each competitor
	 * served first can hold the resource for a packet. So a head whose
	 * competitors all move waits at most one such round plus a round
	 * trip; longer, and the exact check decides. */
	n->dl_bound = P * V * (R + hold) + rt;
	if (n->sc.watchdog_cycles > 0)
		n->dl_bound = (uint64_t)n->sc.watchdog_cycles;
	/* Scans every L/2 cycles: a stuck front is seen within 1.5 L, and a
	 * scan (one read per input VC) costs at most 2/L reads per VC-cycle. */
	n->dl_period = dl_max(1, (n->dl_bound + 1) / 2);
	/* Quiet cycles before the global check: with unit delays every queued
	 * item is evaluated every step, so one quiet cycle shows the state is
	 * fixed; a multi-cycle stage re-evaluates a stalled item within two
	 * of its delays. */
	n->dl_quiet = n->unit_delays ? 1 : 1 + 2 * Dmax;
	n->dl_next_scan = n->now + n->dl_period;
}

int fl_dl_init(struct flitnet *n, struct nl_err *err)
{
	const uint64_t IV = (uint64_t)n->topo->n_ports * n->V;
	const uint32_t R = n->topo->n_routers;
	n->dl_dead = calloc(IV ? IV : 1, 1);
	n->dl_rq = calloc(R ? R : 1, sizeof *n->dl_rq);
	n->dl_rqueued = calloc(R ? R : 1, 1);
	n->dl_held = calloc(R ? R : 1, 1);
	if (n->sc.mpi)
		n->dl_count = calloc(IV ? IV : 1, sizeof *n->dl_count);
	if (!n->dl_dead || !n->dl_rq || !n->dl_rqueued || !n->dl_held || (n->sc.mpi && !n->dl_count))
		return nl_errf(err, NL_ENOMEM, "out of memory for the deadlock check (%" PRIu64 " input VCs)", IV);
	n->dl_gchecked = UINT64_MAX;
	fl_dl_setup(n, fl_msg_packet_flits(n));
	return 0;
}

void fl_dl_release(struct flitnet *n)
{
	free(n->dl_dead);
	free(n->dl_rq);
	free(n->dl_rqueued);
	free(n->dl_held);
	free(n->dl_count);
}

/* --- the exact check ----------------------------------------------------- */

/* Does output VC (global port g, vc) never get a credit back? True when
 * its downstream buffer is a router input VC of the set holding every flit
 * not yet credited (nothing in flight either way). */
static bool dl_never_credited(const struct flitnet *n, uint32_t g, uint32_t vc)
{
	const struct fl_link *l = &n->ports[g].link;
	if (l->target == FL_NONE || l->flit_kind != EV_FLIT_ROUTER)
		return false; /* an endpoint sinks every flit */
	uint64_t d = (uint64_t)l->to * n->V + vc;
	uint16_t occ = n->ovc[(uint64_t)g * n->V + vc].occ;
	/* Under MPI the downstream buffer may be another rank's. */
	uint16_t count = n->mx ? n->dl_count[d] : n->ivc[d].count;
	return occ && count == occ && n->dl_dead[d];
}

/* Is output VC (g, vc) of router ro held forever? */
static bool dl_ovc_held(const struct flitnet *n, const struct fl_router *ro, uint32_t g, uint32_t vc)
{
	const struct fl_ovc *o = &n->ovc[(uint64_t)g * n->V + vc];
	if (o->owner == FL_NONE)
		return false;
	if (n->rc.wait_for_tail_credit && o->tail_sent)
		return dl_never_credited(n, g, vc); /* freed when the last credit returns */
	/* Its owner holds it until the packet's tail leaves the owner's
	 * buffer: forever if the owner is in the set. */
	return n->dl_dead[ro->vc_base + o->owner];
}

/* Can every candidate of route cd[0..nc) only get output VCs held forever? */
static bool dl_cands_held(const struct flitnet *n, const struct fl_router *ro, const struct route_cand *cd,
			  uint32_t nc)
{
	for (uint32_t k = 0; k < nc; k++)
		for (uint32_t vc = cd[k].vc_lo; vc <= cd[k].vc_hi; vc++)
			if (!dl_ovc_held(n, ro, ro->port_base + cd[k].port, vc))
				return false;
	return nc > 0;
}

/* voq = 1 (voq.h): a VC whose front waits for an output VC moves the
 * front behind the other complete packets and tries the next, so it is
 * stuck only if each of them is: the front by its candidates, the others
 * by the route this router would give them now (computed on copies of the
 * packet's state and of the router's random stream, so the check changes
 * nothing; for random oblivious functions that is one draw of theirs). */
static bool dl_voq_stuck(const struct flitnet *n, const struct fl_router *ro, uint64_t iv)
{
	const struct fl_ivc *c = &n->ivc[iv];
	const uint32_t r = (uint32_t)(ro - n->routers), li = (uint32_t)(iv - ro->vc_base);
	const struct fl_pools *pl = &fl_part_of_router(n, r)->pool;
	uint32_t ru = c->head;
	if (c->state == VC_VCALLOC) {
		if (!dl_cands_held(n, ro, fl_cands(n, iv), c->ncand))
			return false;
		ru = pl->runs[ru].next;
	}
	const struct route_view view = fl_route_view(fl_part_of_router(n, r), ro);
	for (; ru != FL_NONE; ru = pl->runs[ru].next) {
		const struct fl_run *x = &pl->runs[ru];
		if (x->seq != 0 || x->n != pl->pkts[x->pkt].size)
			break; /* still arriving: it waits behind the complete ones */
		const struct fl_pkt *pk = &pl->pkts[x->pkt];
		struct route_pkt p = fl_rt_load(n, &pk->rt);
		struct rng g = ro->rng;
		struct route_cand cd[ROUTE_MAX_CANDS];
		uint32_t in_vc = fl_li_vc(n, li);
		p.hops = (uint8_t)pk->routers;
		if (n->n_cls > 1)
			in_vc -= p.tclass * n->cls_w;
		int nc = n->route->ops->compute(n->route, r, fl_li_port(n, li), in_vc, &p, &g, &view, cd);
		for (int k = 0; k < nc && n->n_cls > 1; k++) {
			cd[k].vc_lo = (uint8_t)(cd[k].vc_lo + p.tclass * n->cls_w);
			cd[k].vc_hi = (uint8_t)(cd[k].vc_hi + p.tclass * n->cls_w);
		}
		if (!dl_cands_held(n, ro, cd, (uint32_t)nc))
			return false;
	}
	return true;
}

/* Can input VC iv (at router ro) stay blocked forever, given the set? A VC
 * routing its head, holding an output VC with room, or waiting for a VC
 * that is free or held by a VC outside the set, will move. */
static bool dl_stuck(const struct flitnet *n, const struct fl_router *ro, uint64_t iv)
{
	const struct fl_ivc *c = &n->ivc[iv];
	if (n->voq && (c->state == VC_VCALLOC || (c->state == VC_ROUTING && fl_voq_rerouted(n, iv))))
		return dl_voq_stuck(n, ro, iv);
	if (c->state == VC_VCALLOC) {
		const struct route_cand *cd = fl_cands(n, iv);
		for (uint32_t k = 0; k < c->ncand; k++)
			for (uint32_t vc = cd[k].vc_lo; vc <= cd[k].vc_hi; vc++)
				if (!dl_ovc_held(n, ro, ro->port_base + cd[k].port, vc))
					return false;
		return c->ncand > 0;
	}
	if (c->state == VC_ACTIVE) {
		uint32_t g = ro->port_base + c->out_port;
		const struct fl_run *ru = &fl_part_of_router(n, (uint32_t)(ro - n->routers))->pool.runs[c->head];
		uint32_t need = n->nc.flow_control == FL_VCT && ru->seq == 0 ? ru->size : 1;
		if (n->ovc[(uint64_t)g * n->V + c->out_vc].occ + need <= n->buf)
			return false;
		return dl_never_credited(n, g, c->out_vc);
	}
	return false;
}

static void dl_push(struct flitnet *n, uint32_t r, uint32_t *tail, uint32_t *len)
{
	if (n->dl_rqueued[r])
		return;
	n->dl_rqueued[r] = 1;
	n->dl_rq[*tail] = r;
	*tail = *tail + 1 == n->topo->n_routers ? 0 : *tail + 1;
	++*len;
}

/* The largest set of input VCs that wait only on each other (a greatest
 * fixpoint: start from every non-empty VC, drop the ones that can move
 * given the rest, until none is dropped). Marks dl_dead; returns its size
 * and the flits in it. O(input VCs x candidate VCs) per router visit; a
 * router is revisited only when a VC it waits on was dropped. */
/* Drop from the dead set every VC of the queued routers (dl_rq[0..len),
 * pushed with tail) that can move, and queue the routers whose VCs wait
 * on it, until none is left: the greatest fixpoint. local_only (under
 * MPI): only routers this rank runs are queued. Returns the VCs dropped. */
static uint64_t dl_drain(struct flitnet *n, uint32_t tail, uint32_t len, bool local_only)
{
	const uint32_t R = n->topo->n_routers, V = n->V;
	uint32_t head = 0;
	uint64_t dropped = 0;
	while (len) {
		uint32_t r = n->dl_rq[head];
		head = head + 1 == R ? 0 : head + 1;
		len--;
		n->dl_rqueued[r] = 0;
		const struct fl_router *ro = &n->routers[r];
		bool changed;
		do {
			changed = false;
			for (uint32_t li = 0; li < (uint32_t)ro->n_ports * V; li++) {
				uint64_t iv = (uint64_t)ro->vc_base + li;
				if (!n->dl_dead[iv] || dl_stuck(n, ro, iv))
					continue;
				/* It can move: the VCs waiting on it may too. Those
				 * waiting for an output VC it owns are at this router
				 * (the next pass); those waiting for its credits are
				 * upstream. */
				n->dl_dead[iv] = 0;
				changed = true;
				dropped++;
				const struct fl_link *up = &n->ports[ro->port_base + fl_li_port(n, li)].link;
				if (up->credit_kind == EV_CREDIT_ROUTER && up->target != FL_NONE && up->target != r &&
				    (!local_only || fl_router_local(n, up->target)))
					dl_push(n, up->target, &tail, &len);
			}
		} while (changed);
	}
	return dropped;
}

static uint32_t dl_find(struct flitnet *n, uint64_t *flits)
{
	const struct topo *t = n->topo;
	const uint32_t R = t->n_routers, V = n->V;
	uint32_t tail = 0, len = 0, vcs = 0;

	n->dl_full_checks++;
	for (uint32_t r = 0; r < R; r++) {
		const struct fl_router *ro = &n->routers[r];
		bool any = false;
		for (uint32_t li = 0; li < (uint32_t)ro->n_ports * V; li++) {
			uint64_t iv = (uint64_t)ro->vc_base + li;
			n->dl_dead[iv] = n->ivc[iv].count != 0;
			any |= n->dl_dead[iv];
		}
		n->dl_rqueued[r] = 0;
		if (any)
			dl_push(n, r, &tail, &len);
	}
	dl_drain(n, tail, len, false);
	*flits = 0;
	for (uint64_t iv = 0; iv < (uint64_t)t->n_ports * V; iv++)
		if (n->dl_dead[iv]) {
			vcs++;
			*flits += n->ivc[iv].count;
		}
	return vcs;
}

/* dl_find over MPI ranks: each rank drops the VCs of its own routers that
 * can move, reading the downstream buffers of other ranks from copies
 * (every rank's counts summed, the set's flags minimised over the ranks
 * after each round), until a round drops nothing anywhere. A VC is only
 * ever dropped, by its owner, so the rounds reach the one greatest
 * fixpoint dl_find computes; dl_dead and the result are the same on every
 * rank. Collective. */
static uint32_t dl_find_mpi(struct flitnet *n, uint64_t *flits)
{
	const struct topo *t = n->topo;
	const uint32_t R = t->n_routers, V = n->V;
	const uint64_t IV = (uint64_t)t->n_ports * V;
	uint32_t vcs = 0;

	for (uint64_t iv = 0; iv < IV; iv++)
		n->dl_count[iv] = n->ivc[iv].count; /* zero where another rank runs the router */
	fl_mpi_sum_u16(n, n->dl_count, IV);
	for (uint64_t iv = 0; iv < IV; iv++)
		n->dl_dead[iv] = n->dl_count[iv] != 0;
	for (;;) {
		uint32_t tail = 0, len = 0;
		uint64_t dropped = 0;
		for (uint32_t r = 0; r < R; r++) {
			n->dl_rqueued[r] = 0;
			if (!fl_router_local(n, r))
				continue;
			const struct fl_router *ro = &n->routers[r];
			for (uint32_t li = 0; li < (uint32_t)ro->n_ports * V; li++)
				if (n->dl_dead[(uint64_t)ro->vc_base + li]) {
					dl_push(n, r, &tail, &len);
					break;
				}
		}
		dropped = dl_drain(n, tail, len, true);
		fl_mpi_min_u8(n, n->dl_dead, IV);
		if (!fl_mpi_sum(n, dropped))
			break;
	}
	*flits = 0;
	for (uint64_t iv = 0; iv < IV; iv++)
		if (n->dl_dead[iv]) {
			vcs++;
			*flits += n->dl_count[iv];
		}
	return vcs;
}

/* --- the report ---------------------------------------------------------- */

static const char *const dl_state_names[] = {"idle", "routing", "vc_alloc", "active"};

static struct net_dl_wait dl_wait_of(const struct flitnet *n, uint32_t g, uint32_t v)
{
	const struct topo *t = n->topo;
	const struct fl_ivc *c = &n->ivc[(uint64_t)g * n->V + v];
	struct net_dl_wait w = {0};
	w.router = t->port_router[g];
	w.in_port = g - t->port_base[w.router];
	w.vc = v;
	w.flits = c->count;
	if (c->state == VC_ACTIVE) {
		w.has_vc = true;
		w.out_port = c->out_port;
		w.out_vc_lo = w.out_vc_hi = c->out_vc;
	} else {
		const struct route_cand *cd = fl_cands(n, (uint64_t)g * n->V + v);
		w.out_port = cd->port;
		w.out_vc_lo = cd->vc_lo;
		w.out_vc_hi = cd->vc_hi;
	}
	return w;
}

static int dl_fmt_wait(char *buf, size_t cap, const struct net_dl_wait *w)
{
	if (w->has_vc)
		return snprintf(buf, cap, "router %u in-port %u VC %u waits for out-port %u VC %u", w->router,
				w->in_port, w->vc, w->out_port, w->out_vc_lo);
	if (w->out_vc_lo == w->out_vc_hi)
		return snprintf(buf, cap, "router %u in-port %u VC %u waits for a VC %u on out-port %u", w->router,
				w->in_port, w->vc, w->out_vc_lo, w->out_port);
	return snprintf(buf, cap, "router %u in-port %u VC %u waits for a VC %u..%u on out-port %u", w->router,
			w->in_port, w->vc, w->out_vc_lo, w->out_vc_hi, w->out_port);
}

/* One line per deadlocked input VC, cut at 64 KiB. */
static char *dl_detail(const struct flitnet *n)
{
	const struct topo *t = n->topo;
	const uint32_t V = n->V;
	size_t cap = 1 << 16, used = 0;
	char *rep = malloc(cap);
	if (!rep)
		return NULL;
	rep[0] = 0;
	for (uint32_t g = 0; g < t->n_ports && used + 256 <= cap; g++)
		for (uint32_t v = 0; v < V && used + 256 <= cap; v++) {
			uint64_t iv = (uint64_t)g * V + v;
			if (!n->dl_dead[iv])
				continue;
			const struct fl_ivc *c = &n->ivc[iv];
			uint32_t r = t->port_router[g], p = g - t->port_base[r];
			const struct fl_pools *pl = &fl_part_of_router(n, r)->pool;
			const struct fl_pkt *pk = &pl->pkts[pl->runs[c->head].pkt];
			used += (size_t)snprintf(rep + used, cap - used,
						 "  router %u in-port %u VC %u: %s, %u flit%s, packet %u->%u", r, p, v,
						 dl_state_names[c->state], c->count, c->count == 1 ? "" : "s", pk->rt.src_ep,
						 pk->rt.dst_ep);
			if (c->state == VC_VCALLOC && c->ncand) {
				const struct route_cand *cd = fl_cands(n, iv);
				uint32_t owner = n->ovc[(uint64_t)(t->port_base[r] + cd->port) * V + cd->vc_lo].owner;
				/* Worded as the first line's dl_fmt_wait: "a VC 0", not "a VC 0..0". */
				if (cd->vc_lo == cd->vc_hi)
					used += (size_t)snprintf(rep + used, cap - used, " waits for a VC %u on out-port %u",
								 cd->vc_lo, cd->port);
				else
					used += (size_t)snprintf(rep + used, cap - used,
								 " waits for a VC %u..%u on out-port %u", cd->vc_lo,
								 cd->vc_hi, cd->port);
				if (owner != FL_NONE)
					used += (size_t)snprintf(rep + used, cap - used, " (VC %u held by in-port %u VC %u)",
								 cd->vc_lo, owner / V, owner % V);
			} else if (c->state == VC_ACTIVE) {
				uint64_t ov = (uint64_t)(t->port_base[r] + c->out_port) * V + c->out_vc;
				used += (size_t)snprintf(rep + used, cap - used,
							 " waits on out-port %u VC %u (%u/%u credits used)", c->out_port,
							 c->out_vc, n->ovc[ov].occ, n->buf);
			}
			used += (size_t)snprintf(rep + used, cap - used, "\n");
		}
	return rep;
}

/* Run the exact check; on a deadlock fill n->dl, n->report and *err. */
static int dl_confirm(struct flitnet *n, bool global, uint64_t waited, struct nl_err *err)
{
	const struct topo *t = n->topo;
	uint64_t flits;
	uint32_t vcs = n->mx ? dl_find_mpi(n, &flits) : dl_find(n, &flits);
	if (!vcs)
		return 0;
	struct net_deadlock *d = &n->dl;
	memset(d, 0, sizeof *d);
	d->cycle = n->now;
	d->flits = flits;
	d->vcs = vcs;
	d->global = global;
	d->waited = waited;
	d->bound = n->dl_bound;
	/* Under MPI the verdict is every rank's, but which VC waits on which
	 * is spread over the ranks: the deadlock is the run's result as in
	 * one process, without the list of waiting VCs. */
	if (n->mx) {
		n->has_dl = true;
		free(n->report);
		n->report = NULL;
		return nl_errf(err, NL_EDEADLOCK,
			       "network deadlock at cycle %" PRIu64 ": %" PRIu64 " flits stuck in %u input VCs that wait on "
			       "each other (%s check); under MPI the list of which VCs wait on which is not made: "
			       "run without mpirun for it",
			       n->now, flits, vcs, global ? "global" : "local");
	}
	for (uint32_t g = 0; g < t->n_ports && d->n_waits < NET_DL_WAITS; g++)
		for (uint32_t v = 0; v < n->V && d->n_waits < NET_DL_WAITS; v++)
			if (n->dl_dead[(uint64_t)g * n->V + v])
				d->waits[d->n_waits++] = dl_wait_of(n, g, v);
	n->has_dl = true;
	free(n->report);
	n->report = dl_detail(n);

	char line[512];
	int used = 0;
	for (uint32_t i = 0; i < d->n_waits && i < 3; i++) {
		used += snprintf(line + used, sizeof line - (size_t)used, "%s", i ? ", " : "");
		used += dl_fmt_wait(line + used, sizeof line - (size_t)used, &d->waits[i]);
	}
	if (vcs > 3)
		snprintf(line + used, sizeof line - (size_t)used, ", ... (%u more)", vcs - 3);
	char how[128];
	if (global)
		snprintf(how, sizeof how, "global check: nothing in the network can move");
	else
		snprintf(how, sizeof how, "local check: a front flit waited %" PRIu64 " cycles, bound %" PRIu64,
			 waited, n->dl_bound);
	return nl_errf(err, NL_EDEADLOCK,
		       "network deadlock at cycle %" PRIu64 ": %" PRIu64 " flits stuck in %u input VCs that wait on each other: %s (%s)",
		       n->now, flits, vcs, line, how);
}

/* The network has not moved for longer than the bound, nothing is in
 * flight, and the exact check finds no VCs waiting on each other: a state
 * the argument in fl_dl_setup says cannot occur, so the engine's own state
 * is inconsistent (73dd860 fixed one such: a stale switch hold blocked an
 * output no VC held). Nothing will move again, so the run ends here as a
 * report, never as a measurement of a frozen network (issue 11, part 8). */
static int dl_frozen(struct flitnet *n, struct nl_err *err)
{
	struct net_deadlock *d = &n->dl;
	memset(d, 0, sizeof *d);
	d->cycle = n->now;
	d->flits = n->flits_in_net;
	d->global = true;
	d->waited = n->now - n->last_move;
	d->bound = n->dl_bound;
	n->has_dl = true;
	free(n->report);
	n->report = NULL;
	return nl_errf(err, NL_EDEADLOCK,
		       "network stopped at cycle %" PRIu64 ": nothing moved for %" PRIu64 " cycles (bound %" PRIu64
		       ") with %" PRIu64 " flits in it and none in flight, yet no input VCs wait on each other: the "
		       "engine's state is inconsistent (a netloom bug: please report it with this configuration)",
		       n->now, n->now - n->last_move, n->dl_bound, (uint64_t)n->flits_in_net);
}

int fl_dl_global(struct flitnet *n, struct nl_err *err)
{
	/* Nothing has changed since a check that found no deadlock (a state
	 * the argument in fl_dl_setup says cannot occur): do not repeat it
	 * every cycle; the local scans still run, and past the bound the run
	 * stops (dl_frozen), unless a deadlock was found (a caller that runs
	 * on after one is shown it again by the scans). */
	if (n->dl_gchecked == n->last_move) {
		if (n->now - n->last_move > n->dl_bound && !n->has_dl)
			return dl_frozen(n, err);
		return n->now >= n->dl_next_scan ? fl_dl_scan(n, err) : 0;
	}
	n->dl_gchecked = n->last_move;
	return dl_confirm(n, true, n->now - n->last_move, err);
}

/* A 16-bit fingerprint of a flit: the packet's source endpoint and
 * injection cycle (a source injects one head per cycle at most) and the
 * flit index; not the pool index, which depends on the partitioning. A
 * collision only makes a scan run the exact check. */
static uint16_t dl_fingerprint(uint32_t src_ep, uint16_t seq, uint64_t itime)
{
	uint64_t h = ((uint64_t)src_ep << 16 | seq) ^ (itime * 0x9e3779b97f4a7c15ULL);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	uint16_t fp = (uint16_t)h;
	return fp ? fp : 1;
}

/* One router's input VCs in a local scan: each front flit's fingerprint
 * against the last scan's; the longest wait seen (0: none waited the
 * bound). Returns whether any VC holds flits. */
static bool dl_scan_router(struct flitnet *n, uint32_t r, uint64_t need, uint64_t *waited)
{
	const struct fl_router *ro = &n->routers[r];
	const struct fl_pools *pl = n->n_parts > 1 ? &fl_part_of_router(n, r)->pool : &n->pool;
	const uint64_t first = ro->vc_base, end = first + (uint64_t)ro->n_ports * n->V;
	bool held = false;
	for (uint64_t iv = first; iv < end; iv++) {
		struct fl_ivc *c = &n->ivc[iv];
		if (!c->count) {
			if (c->dl_front) {
				c->dl_front = 0;
				c->dl_scans = 0;
			}
			continue;
		}
		held = true;
		const struct fl_run *ru = &pl->runs[c->head];
		const struct fl_pkt *pk = &pl->pkts[ru->pkt];
		uint16_t fp = dl_fingerprint(pk->rt.src_ep, ru->seq, pk->itime);
		if (fp != c->dl_front) {
			c->dl_front = fp;
			c->dl_scans = 0;
			continue;
		}
		if (c->dl_scans < 255)
			c->dl_scans++;
		/* Seen at the front k scans apart: it has waited k periods. */
		if (c->dl_scans >= need)
			*waited = dl_max(*waited, c->dl_scans * n->dl_period);
	}
	return held;
}

int fl_dl_scan(struct flitnet *n, struct nl_err *err)
{
	const uint32_t R = n->topo->n_routers;
	const uint64_t need = (n->dl_bound + n->dl_period - 1) / n->dl_period; /* scans, at most 2 */
	uint64_t waited = 0;

	n->dl_next_scan = n->now + n->dl_period;
	/* Only routers that may hold flits: the scan read every input VC of
	 * the network, and a replay of 8 ranks on a 2,064-router dragonfly
	 * spent half its time here (hpcc-8, dragonfly:p=8,a=16,h=8). A router
	 * all of whose VCs are empty has had their fronts forgotten by the
	 * scan that found it so, and keeps nothing to scan until a flit
	 * arrives. */
	for (uint32_t r = 0; r < R; r++)
		if (n->dl_held[r] && !dl_scan_router(n, r, need, &waited))
			n->dl_held[r] = 0;
	if (n->mx)
		waited = fl_mpi_max(n, waited); /* every rank scans at the same cycles */
	/* No front waited the bound: not past saturation (any more). A bound
	 * the user set (watchdog_cycles) is checked at every scan. */
	if (!waited) {
		n->dl_backoff = 0;
		return 0;
	}
	if (n->now < n->dl_check_after)
		return 0;
	int rc = dl_confirm(n, false, waited, err);
	if (rc == 0 && n->sc.watchdog_cycles == 0) {
		if (n->dl_backoff < DL_BACKOFF_MAX)
			n->dl_backoff++;
		n->dl_check_after = n->now + (n->dl_period << n->dl_backoff);
	}
	return rc;
}

const char *flitnet_report(const struct flitnet *n)
{
	return n->report ? n->report : "";
}

const struct net_deadlock *flitnet_deadlock(const struct flitnet *n)
{
	return n->has_dl ? &n->dl : NULL;
}

uint64_t flitnet_deadlock_bound(const struct flitnet *n)
{
	return n->dl_bound;
}
