/* Partitions of the flit model (issue 10 part 2): contiguous router ranges
 * (or METIS's cut, part_metis.c), each with the endpoints attached to its
 * routers, run cycle by cycle, in one process or over MPI ranks (mpi.c).
 *
 * A partition has its own packet and run pools, timing wheel, far heap,
 * active lists, allocator scratch and counters; the arrays indexed by
 * router, port, VC or endpoint are shared, and each entry is touched only
 * by the partition owning it. Endpoints talk only to their own router, so
 * the one thing that crosses a boundary is a router-to-router flit or
 * credit, which lands at least two cycles after it is sent (channel
 * latency >= 1, processed at t + lat + 1): exchanging outboxes at every
 * cycle boundary is exact (between MPI ranks, at the end of windows of up
 * to 1 + the shortest link between ranks cycles: mpi.c, flitnet_run.c). The model does not depend on the order of the
 * events of one slot (arrivals are queued in input-port order, credits
 * commute; the visit_order check), so merging in partition order gives
 * the results of one partition, bit for bit. Counters are integers folded
 * into the root in partition order.
 *
 * Packet state travels with the head flit: the outbox entry of a head
 * carries a copy of its record, the receiving partition allocates a local
 * record and remembers it per input VC (a packet's flits arrive
 * contiguously on one input VC), so body and tail flits find it without a
 * hash; the sender frees its record when the tail has left. No partition
 * ever reads another's pools.
 */
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "net/workers.h"
#include "topo/topo.h"

/* --- build ------------------------------------------------------------------ */

static void fl_xboxes_free(struct fl_xbox *x, uint32_t n)
{
	if (!x)
		return;
	for (uint32_t i = 0; i < n; i++) {
		free(x[i].ev);
		free(x[i].la);
	}
	fl_free_lines(x);
}

void fl_part_release_own(struct flitnet *s)
{
	fl_wheel_free(s);
	free(s->far);
	fl_pools_free(s);
	fl_free_lines(s->la_pend);
	fl_free_lines(s->act_r);
	fl_free_lines(s->act_r_next);
	fl_free_lines(s->act_e);
	fl_free_lines(s->act_e_next);
	fl_free_lines(s->arr_head);
	free(s->arr_next);
	free(s->arr_ev);
	fl_free_lines(s->gen_heap);
	fl_free_lines(s->cal_head);
	fl_free_lines(s->areq);
	fl_free_lines(s->best_out);
	fl_free_lines(s->best_in);
	fl_free_lines(s->in_match);
	fl_free_lines(s->out_match);
	fl_free_lines(s->grant);
	fl_free_lines(s->ev_li);
	fl_free_lines(s->arb_used);
	fl_free_lines(s->port_req);
	fl_free_lines(s->port_gen);
	fl_free_lines(s->va_defer);
	free(s->msg.done);
	stats_hist_release(&s->obs.plat);
	stats_hist_release(&s->obs.nlat);
	stats_hist_release(&s->obs.hops);
}

static void fl_part_free(struct flitnet *s)
{
	if (!s)
		return;
	fl_xboxes_free(s->xbox, s->n_parts);
	free(s->xdst);
	free(s->xin);
	fl_part_release_own(s);
	free(s);
}

void fl_part_release(struct flitnet *n)
{
	if (n->part)
		for (uint32_t k = 1; k < n->n_parts; k++)
			fl_part_free(n->part[k]);
	free(n->part);
	free(n->own);
	fl_mpi_release(n);
	free(n->r_part);
	fl_free_lines(n->xpkt);
	free(n->xsrc);
	free(n->xstamp);
	fl_xboxes_free(n->xbox, n->n_parts);
	free(n->xdst);
	free(n->xin);
	free(n->wake);
	free(n->xtgt);
	free(n->awake);
}

#define FL_PCALLOC(ptr, count)                                        \
	do {                                                          \
		size_t cnt_ = (size_t)(count);                        \
		(ptr) = fl_calloc_lines(cnt_, sizeof *(ptr));         \
		if (!(ptr))                                           \
			return -1;                                    \
	} while (0)

/* Partition k other than the root: a copy of the root's settings and of
 * its pointers to the shared arrays, with its own run-time state. */
static int fl_part_new(struct flitnet *n, uint32_t k, uint32_t n_eps, struct flitnet **out)
{
	struct flitnet *s = malloc(sizeof *s);
	if (!s)
		return -1;
	*s = *n;
	*out = s;
	/* Nothing the root owns may be freed or grown through s. */
	s->wheel = NULL;
	s->blk_free = NULL;
	s->n_blk = 0;
	s->far = NULL;
	s->n_far = s->cap_far = 0;
	s->far_seq = 0;
	s->n_events = 0;
	s->pool = (struct fl_pools){.free_pkt = FL_NONE, .free_run = FL_NONE, .la_w = n->pool.la_w};
	s->la_pend = NULL;
	s->n_la_pend = 0;
	s->act_r = s->act_r_next = NULL;
	s->act_e = s->act_e_next = NULL;
	s->arr_head = s->arr_next = NULL;
	s->arr_ev = NULL;
	s->arr_cap = 0;
	s->gen_heap = NULL;
	s->cal_head = NULL;
	s->areq = NULL;
	s->best_out = s->best_in = s->in_match = s->out_match = s->grant = NULL;
	s->ev_li = NULL;
	s->arb_used = NULL;
	s->port_req = NULL;
	s->port_gen = NULL;
	s->va_defer = NULL;
	s->xbox = NULL;
	s->xdst = s->xin = NULL;
	s->n_xdst = s->cap_xdst = s->n_xin = s->cap_xin = 0;
	memset(&s->obs.plat, 0, sizeof s->obs.plat);
	memset(&s->obs.nlat, 0, sizeof s->obs.nlat);
	memset(&s->obs.hops, 0, sizeof s->obs.hops);
	memset(&s->msg, 0, sizeof s->msg);
	s->dl_dead = NULL;
	s->dl_rq = NULL;
	s->dl_rqueued = NULL;
	s->report = NULL;
	s->has_dl = false;
	s->oom = false;
	s->fail_nth = 0;
	s->part_id = k;
	s->n_act_r = s->n_act_r_next = s->n_act_e = s->n_act_e_next = 0;
	s->gen_n = 0;
	s->n_ev = 0;
	s->step_id = 0;
	s->flits_in_net = s->flit_hops = 0;
	s->last_move = 0;
	s->obs.flits_alive = s->obs.ctime_sum_alive = s->obs.measured_alive = 0;
	s->obs.accepted_flits = s->obs.sent_flits = 0;
	s->obs.n_undrained = 0;

	s->wheel = calloc((size_t)n->wheel_mask + 1, sizeof *s->wheel); /* freed by fl_wheel_free */
	if (!s->wheel)
		return -1;
	FL_PCALLOC(s->act_r, (n->topo->n_routers + 63) / 64);
	FL_PCALLOC(s->act_r_next, (n->topo->n_routers + 63) / 64);
	FL_PCALLOC(s->act_e, n_eps);
	FL_PCALLOC(s->act_e_next, n_eps);
	FL_PCALLOC(s->gen_heap, n_eps);
	FL_PCALLOC(s->cal_head, FL_CAL_SLOTS);
	fl_gen_calendar_clear(s);
	FL_PCALLOC(s->areq, n->areq_cap);
	FL_PCALLOC(s->best_out, n->scratch_ports);
	FL_PCALLOC(s->best_in, n->scratch_ports);
	FL_PCALLOC(s->in_match, n->scratch_ports);
	FL_PCALLOC(s->out_match, n->scratch_ports);
	FL_PCALLOC(s->grant, n->scratch_ports);
	FL_PCALLOC(s->ev_li, n->scratch_ports);
	FL_PCALLOC(s->arb_used, n->scratch_ports);
	FL_PCALLOC(s->port_req, n->scratch_ports);
	FL_PCALLOC(s->port_gen, n->scratch_ports);
	FL_PCALLOC(s->va_defer, n->scratch_ports);
	if (n->cap_la_pend)
		FL_PCALLOC(s->la_pend, n->cap_la_pend);
	for (uint32_t i = 0; i < n->scratch_ports; i++)
		s->best_out[i] = s->best_in[i] = s->in_match[i] = s->out_match[i] = s->grant[i] = -1;
	if (stats_hist_init(&s->obs.plat) < 0 || stats_hist_init(&s->obs.nlat) < 0 ||
	    stats_hist_init(&s->obs.hops) < 0)
		return -1;
	return 0;
}

/* Contiguous ranges, each as close as it can get to an equal share of the
 * weight (1 + endpoints per router, so router-only stages such as a fat
 * tree's upper levels count too), each with at least one router. */
static void fl_part_ranges(const struct topo *t, uint32_t n_parts, const uint32_t *r_eps, uint32_t *lo)
{
	const uint32_t R = t->n_routers;
	uint64_t total = (uint64_t)R + t->n_endpoints, acc = 0;
	uint32_t k = 1, r = 0;
	lo[0] = 0;
	for (; r < R && k < n_parts; r++) {
		acc += 1 + (uint64_t)r_eps[r];
		/* Close partition k - 1 after router r once it holds its share,
		 * leaving a router for each partition still to come. */
		if ((acc * n_parts >= total * k && R - (r + 1) >= n_parts - k) || R - (r + 1) == n_parts - k)
			lo[k++] = r + 1;
	}
	lo[n_parts] = R;
}

int fl_part_plan(struct flitnet *n, uint32_t n_parts, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t R = t->n_routers;

	n->root = n;
	n->part_id = 0;
	n->act_w0 = 0;
	n->r_lo = 0;
	n->r_hi = R;
	n->own_eps = t->n_endpoints;
	n->own_runs = (uint64_t)t->n_ports * n->steps_max;
	/* Under MPI partition k is rank k mod ranks's (fl_plan_split makes
	 * partitions >= ranks, so each rank has one at least). */
	n->x_rank = net_mpi_rank(n->sc.mpi);
	n->x_size = net_mpi_size(n->sc.mpi);
	if (n_parts < 1 || n_parts > R) {
		/* A count given above the routers is the key's fault, under MPI
		 * too; one fl_plan_split chose is the ranks' and threads'. */
		if (n->parts_chosen && n->x_size > 1)
			return nl_errf(err, NL_ECONFIG,
				       "partitions %u (at least threads x ranks, with %u MPI ranks): the network has %u "
				       "routers, one at least per partition; expected fewer ranks or threads",
				       n_parts, n->x_size, R);
		const char *at = config_origin(n->sc.cfg, "partitions");
		return nl_errf(err, NL_ECONFIG,
			       "%s%skey 'partitions': value '%u': out of range: expected 0 (automatic) or 1..%u (one "
			       "router at least in each)",
			       at ? at : "", at ? ": " : "", n_parts, R);
	}
	n->own = calloc(n_parts, sizeof *n->own);
	if (!n->own)
		goto nomem;
	n->n_own = 0;
	for (uint32_t k = 0; k < n_parts; k++)
		if (k % n->x_size == n->x_rank)
			n->own[n->n_own++] = k;
	if (n_parts == 1)
		return 0;

	n->r_part = calloc(R, sizeof *n->r_part);
	uint32_t *r_eps = calloc(R, sizeof *r_eps);
	uint32_t *lo = calloc((size_t)n_parts + 1, sizeof *lo);
	if (!n->r_part || !r_eps || !lo) {
		free(r_eps);
		free(lo);
		goto nomem;
	}
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		r_eps[topo_ep_router(t, e)]++;
	/* METIS's cut, or router ranges (also when METIS leaves a partition
	 * without a router). */
	int cut = n->sc.partitioner == NET_PART_METIS ? fl_part_metis(t, n_parts, r_eps, n->ports, n->r_part, err) : 1;
	n->r_scattered = cut == 0;
	if (cut > 0) {
		fl_part_ranges(t, n_parts, r_eps, lo);
		for (uint32_t k = 0; k < n_parts; k++)
			for (uint32_t r = lo[k]; r < lo[k + 1]; r++)
				n->r_part[r] = (uint16_t)k;
	}
	free(r_eps);
	free(lo);
	return cut < 0 ? cut : 0;
nomem:
	/* flitnet_free releases what was built. */
	return nl_errf(err, NL_ENOMEM, "out of memory for %u partitions", n_parts);
}

int fl_part_build(struct flitnet *n, uint32_t n_parts, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t R = t->n_routers, E = t->n_endpoints;

	n->part = calloc(n_parts, sizeof *n->part);
	if (!n->part)
		goto nomem;
	n->n_parts = 1;
	n->part[0] = n;
	if (n->sc.mpi) {
		int rc = fl_mpi_setup(n, err);
		if (rc < 0)
			return rc;
	}
	if (n_parts == 1)
		return 0;

	uint32_t *lo = calloc((size_t)n_parts + 1, sizeof *lo);
	uint32_t *eps = calloc(n_parts, sizeof *eps);
	/* Written on arrival from another partition, so only where this
	 * rank's routers are (lazy pages, fl_calloc_lines). */
	n->xpkt = fl_calloc_lines((size_t)t->n_ports * n->V, sizeof *n->xpkt);
	/* A partition's outboxes: [n_parts] of them, of which it writes those
	 * towards its neighbours, so the pages of the others never become
	 * resident (fl_calloc_lines): 32 bytes x partitions squared was 537 MB
	 * at 4,096 partitions. */
	n->xbox = fl_calloc_lines(n_parts, sizeof *n->xbox);
	n->wake = calloc(n_parts, sizeof *n->wake);
	n->xtgt = calloc(n_parts, sizeof *n->xtgt);
	n->awake = calloc(((size_t)n_parts + 63) / 64, sizeof *n->awake);
	n->wake_min = UINT64_MAX;
	if (n->awake)
		for (uint32_t k = 0; k < n_parts; k++)
			if (k % n->x_size == n->x_rank)
				n->awake[k >> 6] |= 1ULL << (k & 63);
	if (n->la_upstream) {
		n->xsrc = calloc((size_t)t->n_ports * n->V, sizeof *n->xsrc);
		n->xstamp = calloc((size_t)t->n_ports * n->V, sizeof *n->xstamp);
	}
	if (!lo || !eps || !n->xpkt || !n->xbox || !n->wake || !n->xtgt || !n->awake ||
	    (n->la_upstream && (!n->xsrc || !n->xstamp))) {
		free(lo);
		free(eps);
		goto nomem;
	}
	/* Each partition's router span [lo[k], lo2[k]) (its active bitmap's
	 * words): its range, or from its first to its last router. */
	for (uint32_t k = 0; k < n_parts; k++) {
		lo[k] = R;
		eps[k] = 0;
	}
	uint32_t *hi = calloc(n_parts, sizeof *hi);
	if (!hi) {
		free(lo);
		free(eps);
		goto nomem;
	}
	for (uint32_t r = 0; r < R; r++) {
		uint32_t k = n->r_part[r];
		if (r < lo[k])
			lo[k] = r;
		hi[k] = r + 1;
	}
	for (uint32_t e = 0; e < E; e++)
		eps[n->r_part[topo_ep_router(t, e)]]++;
	n->n_parts = n_parts;
	int bad = 0;
	for (uint32_t k = 1; k < n_parts && !bad; k++) {
		bad = fl_part_new(n, k, eps[k], &n->part[k]) < 0;
		if (!bad) {
			n->part[k]->xbox = fl_calloc_lines(n_parts, sizeof *n->xbox);
			bad = !n->part[k]->xbox;
		}
	}
	for (uint32_t k = 0; k < n_parts && !bad; k++) {
		struct flitnet *s = n->part[k];
		s->r_lo = lo[k];
		s->r_hi = hi[k];
		s->act_w0 = s->r_lo / 64;
		s->act_words = (s->r_hi + 63) / 64 - s->act_w0;
		s->own_eps = eps[k];
		s->own_runs = 0;
	}
	for (uint32_t r = 0; r < R && !bad; r++)
		n->part[n->r_part[r]]->own_runs += (uint64_t)topo_router_ports(t, r) * n->steps_max;
	free(lo);
	free(hi);
	free(eps);
	if (bad)
		goto nomem;
	/* Each link knows the partition of its target: an endpoint's is its
	 * router's. */
	for (uint32_t g = 0; g < t->n_ports; g++) {
		struct fl_link *l = &n->ports[g].link;
		uint32_t r = l->flit_kind == EV_FLIT_ROUTER && l->target != FL_NONE ? l->target : t->port_router[g];
		l->part = n->r_part[r];
	}
	return 0;
nomem:
	/* flitnet_free releases what was built. */
	return nl_errf(err, NL_ENOMEM, "out of memory for %u partitions", n_parts);
}

/* --- the boundary ---------------------------------------------------------- */

/* Append v to a partition list (xdst, xin) grown by doubling from 8;
 * false when out of memory (n->oom ends the run). */
static bool fl_part_list_add(struct flitnet *n, uint32_t **list, uint32_t *len, uint32_t *cap, uint32_t v)
{
	if (*len == *cap) {
		uint32_t c = *cap ? 2 * *cap : 8;
		uint32_t *l = fl_grow(n, *list, (size_t)c * sizeof *l);
		if (!l)
			return false;
		*list = l;
		*cap = c;
	}
	(*list)[(*len)++] = v;
	return true;
}

void fl_xsend(struct flitnet *n, uint32_t part, uint64_t cycle, const struct fl_event *ev)
{
	struct fl_xbox *x = &n->xbox[part];
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 256;
		struct fl_xevent *e = fl_grow(n, x->ev, (size_t)cap * sizeof *e);
		if (!e)
			return; /* n->oom ends the run */
		x->ev = e;
		if (n->pool.la_w) {
			struct route_cand *c = fl_grow(n, x->la, (size_t)cap * n->pool.la_w * sizeof *c);
			if (!c)
				return;
			x->la = c;
		}
		x->cap = cap;
	}
	if (!x->listed) {
		/* At most one entry per target: an outbox stays listed until a
		 * merge takes it (under MPI one bound for another rank stays). */
		if (!fl_part_list_add(n, &n->xdst, &n->n_xdst, &n->cap_xdst, part))
			return;
		x->listed = true;
	}
	struct fl_xevent *xe = &x->ev[x->n];
	xe->cycle = cycle;
	xe->ev = *ev;
	if (ev->kind != EV_FLIT_ROUTER) {
		x->n++;
		return;
	}
	const struct fl_pkt *pk = &n->pool.pkts[ev->pkt];
	if (ev->seq == 0) {
		xe->pk = *pk;
		xe->msg = fl_pkt_msg(n, ev->pkt);
		xe->src_pkt = ev->pkt;
		/* A head still in the crossbar when its cycle's decisions were
		 * made carries its decision with it (fl_la_flush_parts). */
		xe->la_n = n->pool.la_w ? n->pool.la_n[ev->pkt] : 0;
		if (xe->la_n) {
			memcpy(x->la + (size_t)x->n * n->pool.la_w, n->pool.la_cand + (size_t)ev->pkt * n->pool.la_w,
			       (size_t)xe->la_n * sizeof *x->la);
			n->pool.la_n[ev->pkt] = 0;
		}
	}
	x->n++;
	if (ev->seq + 1u == pk->size)
		fl_pkt_free(n, ev->pkt);
}

void fl_xmerge_event(struct flitnet *n, struct flitnet *p, struct fl_xevent *xe, const struct route_cand *la)
{
	if (xe->ev.kind == EV_FLIT_ROUTER) {
		uint64_t iv = (uint64_t)xe->ev.to * n->V + xe->ev.vc;
		if (xe->ev.seq == 0) {
			uint32_t li = fl_pkt_alloc(p);
			if (li == FL_NONE)
				return; /* p->oom ends the run */
			p->pool.pkts[li] = xe->pk;
			fl_pkt_set_msg(p, li, xe->msg);
			n->xpkt[iv] = li;
			if (p->pool.la_w) {
				p->pool.la_n[li] = xe->la_n;
				if (xe->la_n)
					memcpy(p->pool.la_cand + (size_t)li * p->pool.la_w, la,
					       (size_t)xe->la_n * sizeof *la);
				n->xsrc[iv] = xe->src_pkt;
				n->xstamp[iv] = (uint32_t)n->now;
			}
		}
		xe->ev.pkt = n->xpkt[iv];
	}
	/* Under MPI a window's events may be due in the cycle about to run. */
	if (n->mx)
		fl_schedule_merged(p, xe->cycle, &xe->ev);
	else
		fl_schedule(p, xe->cycle, &xe->ev);
}

void fl_xmerge(struct flitnet *n, struct flitnet *s, struct flitnet *p)
{
	struct fl_xbox *x = &s->xbox[p->part_id];
	for (uint32_t i = 0; i < x->n; i++)
		fl_xmerge_event(n, p, &x->ev[i], p->pool.la_w ? x->la + (size_t)i * p->pool.la_w : NULL);
	x->n = 0;
}

/* Partition p takes the cycle's events addressed to it, from the other
 * partitions of this process (all of them; under MPI this rank's own) in
 * partition order: what it writes is its own (pools, wheel, the receiving
 * VCs' xpkt/xsrc/xstamp entries, each box's count, its xin), so the
 * partitions' merges may run side by side (fl_workers_merge). */
void fl_part_merge_into(struct flitnet *n, struct flitnet *p)
{
	for (uint32_t i = 0; i < p->n_xin; i++)
		fl_xmerge(n, n->part[p->xin[i]], p);
	p->n_xin = 0;
}

/* Each target's xin: the sources whose outboxes towards it are listed,
 * sources taken in partition order, so a target merges them in the order
 * a visit of every source would (the same bytes for any partition count).
 * A merge that visited every (source, target) pair cost partitions squared
 * a cycle: 64x64 torus, 1,200 cycles, 2,048 partitions, 82.7 s of CPU
 * against 1.2 s for one partition (8.2 s now). Under MPI another rank's outbox stays listed: mpi.c
 * packs it. */
static void fl_part_list_inbound(struct flitnet *n)
{
	n->n_xtgt = 0;
	FL_FOR_AWAKE(n, k) {
		struct flitnet *s = n->part[k];
		if (s->idle_now)
			continue; /* it sent nothing */
		uint32_t kept = 0;
		for (uint32_t j = 0; j < s->n_xdst; j++) {
			const uint32_t t = s->xdst[j];
			if (t % n->x_size != n->x_rank) {
				s->xdst[kept++] = t;
				continue;
			}
			struct flitnet *p = n->part[t];
			if (!fl_part_list_add(n, &p->xin, &p->n_xin, &p->cap_xin, s->part_id)) {
				s->xdst[kept++] = t; /* n->oom ends the run */
				continue;
			}
			/* Its first source: each target once, also when a list
			 * that could not grow left it none (one entry per such
			 * source ran past xtgt's n_parts). */
			if (p->n_xin == 1) {
				/* Asleep, it wakes at the clock its idle cycles would
				 * have reached, before the events are scheduled. */
				if (fl_part_asleep(n, t))
					fl_part_wake(n, t);
				n->xtgt[n->n_xtgt++] = t;
			}
			s->xbox[t].listed = false;
		}
		s->n_xdst = kept;
	}
}

void fl_part_merge_own(struct flitnet *n)
{
	fl_part_list_inbound(n);
	if (n->workers)
		fl_workers_merge(n->workers);
	else
		for (uint32_t i = 0; i < n->n_xtgt; i++)
			fl_part_merge_into(n, n->part[n->xtgt[i]]);
}

void fl_part_gather_done(struct flitnet *n, struct flitnet *s)
{
	struct fl_msgdrv *md = &n->msg, *sm = &s->msg;
	if (!sm->n_done)
		return;
	if (md->n_done + sm->n_done > md->cap_done) {
		uint32_t cap = md->n_done + sm->n_done;
		uint64_t *d = fl_grow(n, md->done, (size_t)cap * sizeof *d);
		if (!d)
			return; /* n->oom ends the run */
		md->done = d;
		md->cap_done = cap;
	}
	memcpy(md->done + md->n_done, sm->done, (size_t)sm->n_done * sizeof *sm->done);
	md->n_done += sm->n_done;
	sm->n_done = 0;
}

/* Messages completed in the cycle, delivered in ejecting-router order
 * (stable), which is the order one partition's wheel gives them and the
 * same for any number of partitions.
 *
 * A deliver callback may send (net.h): flit_send then only adds to the
 * message pool and the source queues, or, dated past this cycle, waits
 * for an advance (backend_flit.c). It runs no cycle and leaves
 * md->deliver and md->done alone, so the loop reads them safely; the
 * pool may move (flit_msg_alloc grows it), so the record is found again
 * by its index after the call. */
static void fl_msg_flush(struct flitnet *n)
{
	struct fl_msgdrv *md = &n->msg;
	uint64_t *d = md->done;
	for (uint32_t i = 1; i < md->n_done; i++) {
		uint64_t v = d[i];
		uint32_t j = i;
		for (; j > 0 && (d[j - 1] >> 32) > (v >> 32); j--)
			d[j] = d[j - 1];
		d[j] = v;
	}
	for (uint32_t i = 0; i < md->n_done; i++) {
		uint32_t mi = (uint32_t)d[i];
		md->deliver(md->deliver_ctx, md->msgs[mi].id, (n->now - 1) * (uint64_t)n->nc.cycle_ps);
		md->delivered++;
		md->msgs[mi].next = md->free_msg;
		md->free_msg = mi;
	}
	md->n_done = 0;
}

/* lookahead_decide = upstream with partitions: the cycle's switch winners
 * decided at their downstream routers once every head has reached its
 * partition. Each partition's list is sorted by upstream output port, and
 * router ranges' ports follow in order, so taking the partitions in order
 * (METIS's: merging the lists) is the one global order of a single
 * partition's fl_la_flush, with the same state read (every router has stepped) and
 * the same random draws. A head that crossed in the cycle is decided on the
 * record its new partition made for it (the sender's is freed with its
 * tail); one still in its router's crossbar (a crossbar of more than one
 * cycle, or internal speedup) on the sender's record, and carries the
 * decision across when it leaves (fl_xsend). Under MPI, mpi.c decides the
 * heads bound for other ranks' routers there (fl_mpi_exchange). */

void fl_la_decide_end(struct flitnet *p, uint32_t r, uint32_t in_vc, uint32_t gin, uint32_t pkt)
{
	/* The exchange runs after the cycle's end moved the clock; the single
	 * partition decides before (fl_cycle), and the output-queue view
	 * (fl_router_oq) reads the clock: decide at the cycle that ended. */
	struct fl_router *ro = &p->routers[r];
	const uint64_t now = p->now;
	p->now = now - 1;
	fl_la_decide(p, r, gin - ro->port_base, in_vc, pkt, &ro->rng);
	p->now = now;
}

void fl_la_decide_pend(struct flitnet *n, struct flitnet *s, const struct fl_la_pend *e)
{
	const uint32_t gin = n->ports[e->gout].link.to;
	const uint32_t r = n->topo->port_router[gin];
	struct flitnet *p = fl_part_of_router(n, r);
	if (p->oom)
		return; /* its record may be missing; the run ends */
	const uint64_t iv = (uint64_t)gin * n->V + e->vc;
	if (p != s && n->xstamp[iv] == (uint32_t)n->now && n->xsrc[iv] == e->pkt)
		fl_la_decide_end(p, r, e->vc, gin, n->xpkt[iv]);
	else
		fl_la_decide_end(s, r, e->vc, gin, e->pkt);
}

static void fl_la_flush_parts(struct flitnet *n)
{
	if (!n->r_scattered) {
		for (uint32_t k = 0; k < n->n_parts; k++) {
			struct flitnet *s = n->part[k];
			for (uint32_t i = 0; i < s->n_la_pend; i++)
				fl_la_decide_pend(n, s, &s->la_pend[i]);
			s->n_la_pend = 0;
		}
		return;
	}
	/* METIS's partitions interleave their ports: merge the sorted lists
	 * by upstream port (a port is one partition's, so no ties). Each
	 * list's n_la_pend counts down as it is consumed. */
	for (;;) {
		struct flitnet *best = NULL;
		for (uint32_t k = 0; k < n->n_parts; k++) {
			struct flitnet *s = n->part[k];
			if (s->la_next < s->n_la_pend &&
			    (!best || s->la_pend[s->la_next].gout < best->la_pend[best->la_next].gout))
				best = s;
		}
		if (!best)
			break;
		fl_la_decide_pend(n, best, &best->la_pend[best->la_next++]);
	}
	for (uint32_t k = 0; k < n->n_parts; k++)
		n->part[k]->n_la_pend = n->part[k]->la_next = 0;
}

/* Partition s's counters folded into the root n (integers, so the order
 * of the folds cannot change a sum) and cleared; shared by the one-process
 * exchange and the MPI one (mpi.c). */
void fl_part_fold_counters(struct flitnet *n, struct flitnet *s)
{
	n->flits_in_net += s->flits_in_net;
	n->flit_hops += s->flit_hops;
	n->obs.flits_alive += s->obs.flits_alive;
	n->obs.ctime_sum_alive += s->obs.ctime_sum_alive;
	n->obs.measured_alive += s->obs.measured_alive;
	n->obs.accepted_flits += s->obs.accepted_flits;
	n->obs.sent_flits += s->obs.sent_flits;
	n->obs.n_undrained += s->obs.n_undrained;
	s->flits_in_net = s->flit_hops = 0;
	s->obs.flits_alive = s->obs.ctime_sum_alive = s->obs.measured_alive = 0;
	s->obs.accepted_flits = s->obs.sent_flits = 0;
	s->obs.n_undrained = 0;
	if (s->last_move > n->last_move)
		n->last_move = s->last_move;
	n->oom |= s->oom;
}

void fl_part_exchange(struct flitnet *n)
{
	if (n->mx) {
		/* Upstream decisions are taken there too (mx_la_*);
		 * completed messages are gathered on every rank. */
		fl_mpi_exchange(n);
	} else if (n->n_parts > 1) {
		fl_part_merge_own(n);
		if (n->la_upstream)
			fl_la_flush_parts(n);
		/* An idle or sleeping partition's counters are zero and it
		 * finished no message; a merge into one woke it. */
		for (uint32_t i = 0; i < n->n_xtgt; i++)
			n->oom |= n->part[n->xtgt[i]]->oom;
		FL_FOR_AWAKE(n, k) {
			struct flitnet *s = n->part[k];
			if (!k || s->idle_now)
				continue;
			fl_part_fold_counters(n, s);
			fl_part_gather_done(n, s);
		}
	}
	if (n->msg.n_done)
		fl_msg_flush(n);
}

/* Partition s holds the root's settings (fl_part_sync). Only the sync
 * writes them, to every partition alike, so partition 1 stands for all:
 * a replay runs the network to each of its next events, and syncing
 * every partition at each cost 5% of a sparse replay's time. */
static bool fl_part_in_sync(const struct flitnet *n, const struct flitnet *s)
{
	const struct fl_synth *a = &s->synth, *b = &n->synth;
	return a->traffic == b->traffic && !memcmp(&a->pkt_rate, &b->pkt_rate, sizeof a->pkt_rate) &&
	       !memcmp(&a->pkt_rate_l, &b->pkt_rate_l, sizeof a->pkt_rate_l) && a->size_lo == b->size_lo &&
	       a->size_hi == b->size_hi && a->class_rule == b->class_rule &&
	       s->obs.count_traffic == n->obs.count_traffic &&
	       s->obs.record_all == n->obs.record_all && s->obs.watch_drain == n->obs.watch_drain &&
	       s->obs.count_channels == n->obs.count_channels && s->obs.measure_before == n->obs.measure_before &&
	       s->obs.reset_time == n->obs.reset_time && s->obs.drain_time == n->obs.drain_time &&
	       s->obs.job_flits == n->obs.job_flits && s->obs.ep_job == n->obs.ep_job &&
	       s->obs.n_jobs == n->obs.n_jobs;
}

void fl_part_sync(struct flitnet *n)
{
	if (n->n_parts < 2 || fl_part_in_sync(n, n->part[1]))
		return;
	for (uint32_t k = 1; k < n->n_parts; k++) {
		struct flitnet *s = n->part[k];
		s->synth = n->synth;
		s->obs.count_traffic = n->obs.count_traffic;
		s->obs.record_all = n->obs.record_all;
		s->obs.watch_drain = n->obs.watch_drain;
		s->obs.count_channels = n->obs.count_channels;
		s->obs.measure_before = n->obs.measure_before;
		s->obs.reset_time = n->obs.reset_time;
		s->obs.drain_time = n->obs.drain_time;
		/* Per-(channel, job) counts: one array by global port, each
		 * entry touched only by the port's owner. */
		s->obs.job_flits = n->obs.job_flits;
		s->obs.ep_job = n->obs.ep_job;
		s->obs.n_jobs = n->obs.n_jobs;
	}
}

void fl_part_fold_hists(struct flitnet *n)
{
	/* Under MPI, ranks other than 0 fold into a histogram of their own
	 * and rank 0 into the root, whose partition 0 it runs; the ranks'
	 * sum is then the total on every rank (mpi.c). */
	struct stats_hist *loc = fl_mpi_local_hists(n);
	struct stats_hist *into[3] = {&n->obs.plat, &n->obs.nlat, &n->obs.hops};
	if (loc)
		for (int i = 0; i < 3; i++)
			into[i] = &loc[i];
	for (uint32_t i = 0; i < n->n_own; i++) {
		struct flitnet *s = n->part[n->own[i]];
		/* A packet's three records are made together: one count says
		 * whether there is anything to fold (a histogram is 136 KiB). */
		if (s == n || !s->obs.plat.n)
			continue;
		stats_hist_merge(into[0], &s->obs.plat);
		stats_hist_merge(into[1], &s->obs.nlat);
		stats_hist_merge(into[2], &s->obs.hops);
		stats_hist_reset(&s->obs.plat);
		stats_hist_reset(&s->obs.nlat);
		stats_hist_reset(&s->obs.hops);
	}
	if (!n->mx)
		return;
	fl_mpi_fold_hist(n, &n->obs.plat, loc ? &loc[0] : NULL);
	fl_mpi_fold_hist(n, &n->obs.nlat, loc ? &loc[1] : NULL);
	fl_mpi_fold_hist(n, &n->obs.hops, loc ? &loc[2] : NULL);
	if (loc)
		for (int i = 0; i < 3; i++)
			stats_hist_reset(&loc[i]);
}

uint64_t fl_events_total(const struct flitnet *n)
{
	if (n->mx)
		return n->x_events; /* all ranks', as of the last exchange */
	uint64_t sum = 0;
	for (uint32_t k = 0; k < n->n_parts; k++)
		sum += n->part[k]->n_events;
	return sum;
}
