/* The flit-level network's cycle: active lists, the sources' calendar
 * and heap, and fl_cycle (a wheel slot's flits and credits, then the
 * active endpoints and routers), in one unit so that its helpers inline.
 * Build in flitnet_build.c, run loop in flitnet_run.c, pools and the
 * timing wheel in wheel.c, router pipeline in router.c, endpoints in nic.c. */
#include <stdint.h>
#include <stdlib.h>

#include "net/net_internal.h"
#include "topo/topo.h"

/* --- active lists ------------------------------------------------------------ */

/* Active routers are bitmaps, visited in index order: neighbouring
 * routers' state is neighbouring memory, so a cycle sweeps the arrays
 * instead of hopping across them. */
void fl_activate_router(struct flitnet *n, uint32_t r, uint64_t cycle)
{
	uint64_t *bits = cycle == n->now ? n->act_r : n->act_r_next;
	uint64_t m = 1ULL << (r & 63);
	if (bits[r >> 6] & m)
		return;
	bits[r >> 6] |= m;
	if (cycle == n->now)
		n->n_act_r++;
	else
		n->n_act_r_next++;
}

void fl_activate_nic(struct flitnet *n, uint32_t e, uint64_t cycle)
{
	struct fl_nic *c = &n->nics[e];
	if (c->stamp == cycle + 1)
		return;
	c->stamp = cycle + 1;
	if (cycle == n->now)
		n->act_e[n->n_act_e++] = e;
	else
		n->act_e_next[n->n_act_e_next++] = e;
}

/* Sources waiting for their next packet, so idle sources cost nothing per
 * cycle: those due within FL_CAL_SLOTS cycles in the calendar slot of
 * their cycle (O(1) to add and to release: a heap cost log2(endpoints)
 * steps a packet, 2.5% of the dragonfly's instructions, and issue 16's
 * million endpoints would make those steps cache misses), the rest in a
 * min-heap of (next_gen, endpoint) until their cycle comes within reach.
 * The order in which one cycle's sources are released does not matter:
 * each draws from its own stream, and what they inject commutes (the
 * visit_order = reverse tests). */
static void fl_gen_heap_push(struct flitnet *n, uint64_t key)
{
	uint32_t i = n->gen_n++;
	while (i) {
		uint32_t parent = (i - 1) / 2;
		if (n->gen_heap[parent] <= key)
			break;
		n->gen_heap[i] = n->gen_heap[parent];
		i = parent;
	}
	n->gen_heap[i] = key;
}

static uint64_t fl_gen_heap_pop(struct flitnet *n)
{
	uint64_t top = n->gen_heap[0], last = n->gen_heap[--n->gen_n];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n->gen_n)
			break;
		if (c + 1 < n->gen_n && n->gen_heap[c + 1] < n->gen_heap[c])
			c++;
		if (n->gen_heap[c] >= last)
			break;
		n->gen_heap[i] = n->gen_heap[c];
		i = c;
	}
	if (n->gen_n)
		n->gen_heap[i] = last;
	return top;
}

static inline void fl_cal_add(struct flitnet *n, uint32_t e, uint64_t cycle)
{
	uint32_t *slot = &n->cal_head[cycle & (FL_CAL_SLOTS - 1)];
	n->gen_next[e] = *slot;
	*slot = e;
	if (!n->cal_n++ || cycle < n->cal_next)
		n->cal_next = cycle;
}

void fl_gen_calendar_clear(struct flitnet *p)
{
	for (uint32_t i = 0; i < FL_CAL_SLOTS; i++)
		p->cal_head[i] = FL_NONE;
	p->cal_n = 0;
}

void fl_gen_push(struct flitnet *n, uint32_t e)
{
	const uint64_t t = n->nics[e].next_gen;
	if (n->gen_next[e] != FL_GEN_OUT)
		return;
	if (t >= n->now && t - n->now < n->cal_reach) {
		fl_cal_add(n, e, t);
	} else {
		n->gen_next[e] = FL_GEN_HEAP;
		fl_gen_heap_push(n, (t << 32) | e);
	}
}

void fl_gen_stop(struct flitnet *n)
{
	/* A partition asleep until its next packet would still wake then,
	 * at a cycle with no work that the loop would run (flitnet_run_until). */
	fl_parts_wake_all(n);
	for (uint32_t k = 0; k < n->n_parts; k++) {
		n->part[k]->gen_n = 0;
		fl_gen_calendar_clear(n->part[k]);
	}
	for (uint32_t e = 0; e < n->topo->n_endpoints; e++) {
		if (!fl_ep_local(n, e))
			continue; /* another rank's: never written here */
		n->nics[e].next_gen = UINT64_MAX;
		n->gen_next[e] = FL_GEN_OUT;
	}
}

/* Activate the sources due at cycle t (= now), after moving into the
 * calendar those of the heap that came within its reach. */
static void fl_gen_release(struct flitnet *n, uint64_t t)
{
	while (n->gen_n && (n->gen_heap[0] >> 32) < t + n->cal_reach) {
		uint64_t key = fl_gen_heap_pop(n);
		uint32_t e = (uint32_t)(key & 0xffffffffu);
		n->gen_next[e] = FL_GEN_OUT;
		if ((key >> 32) <= t)
			fl_activate_nic(n, e, t);
		else
			fl_cal_add(n, e, key >> 32);
	}
	if (!n->cal_n)
		return;
	uint32_t *slot = &n->cal_head[t & (FL_CAL_SLOTS - 1)];
	uint32_t e = *slot;
	*slot = FL_NONE;
	while (e != FL_NONE) {
		uint32_t nx = n->gen_next[e];
		NL_ASSERT(n->nics[e].next_gen == t);
		n->gen_next[e] = FL_GEN_OUT;
		n->cal_n--;
		fl_activate_nic(n, e, t);
		e = nx;
	}
	/* The next occupied slot: every source left is due within the
	 * calendar, and the slots passed here are cycles the run then
	 * passes, so this costs a slot per simulated cycle at most. */
	if (n->cal_n && n->cal_next <= t) {
		uint64_t c = t + 1;
		while (n->cal_head[c & (FL_CAL_SLOTS - 1)] == FL_NONE)
			c++;
		n->cal_next = c;
	}
}

/* --- the cycle loop --------------------------------------------------------- */

#define FL_PREFETCH 16
_Static_assert(FL_PREFETCH <= FL_BLK_EVENTS, "dispatch prefetches into the next block only");

/* A credit returning to output VC ov (= global port g x V + VC). */
static inline void fl_router_credit(struct flitnet *n, uint64_t ov)
{
	NL_ASSERT(n->ovc[ov].occ > 0);
	if (n->asum) { /* before the count drops: a VC at asum_full leaves the full ones */
		const uint64_t g = fl_div_v(n, ov);
		if (ov - g * n->V < n->asum_vcs)
			n->asum[g] -= 1u + (n->ovc[ov].occ == n->asum_full ? 1u << 16 : 0u);
	}
	n->ovc[ov].occ--;
	if (n->pocc)
		n->pocc[fl_div_v(n, ov)]--;
	if (n->rc.wait_for_tail_credit && n->ovc[ov].occ == 0 && n->ovc[ov].tail_sent) {
		n->ovc[ov].owner = FL_NONE;
		const uint32_t g = (uint32_t)fl_div_v(n, ov);
		if (fl_va_waiting(n, g, ov)) {
			uint32_t r = n->topo->port_router[g];
			fl_router_va_wake(n, r, g, (uint32_t)(ov - (uint64_t)g * n->V));
			fl_activate_router(n, r, n->now);
		}
	}
	/* No activation: a router with a VC waiting for this credit has a
	 * switch-allocation item queued and is active already. */
}

/* Flit seq of packet pkt arriving on VC vc at global port `to` or, with
 * is_nic, at endpoint `to`: the one place that calls fl_router_arrive and
 * fl_nic_eject (they stay inlined), for full events and compact flits. */
static void fl_dispatch_flit(struct flitnet *n, uint32_t to, uint8_t vc, uint32_t pkt, uint16_t seq, bool is_nic)
{
	if (is_nic) {
		fl_nic_eject(n, to, pkt, seq, vc);
		return;
	}
	uint32_t r = n->topo->port_router[to];
	fl_router_arrive(n, r, to, vc, pkt, seq);
	fl_activate_router(n, r, n->now);
}

static void fl_dispatch(struct flitnet *n, const struct fl_event *ev)
{
	switch (ev->kind) {
	case EV_FLIT_ROUTER:
		fl_dispatch_flit(n, ev->to, ev->vc, ev->pkt, ev->seq, false);
		break;
	case EV_CREDIT_ROUTER:
		fl_router_credit(n, (uint64_t)ev->to * n->V + ev->vc);
		break;
	case EV_FLIT_NIC:
		fl_dispatch_flit(n, ev->to, ev->vc, ev->pkt, ev->seq, true);
		break;
	case EV_CREDIT_NIC:
		fl_nic_credit(n, (uint64_t)ev->to * n->V + ev->vc);
		break;
	}
}

static inline void fl_credit_dispatch(struct flitnet *n, uint32_t code)
{
	if (code & FL_CR_NIC)
		fl_nic_credit(n, code & ~FL_CR_NIC);
	else
		fl_router_credit(n, code);
}

/* A slot's compact credits, in scheduling order (or last first), after
 * its flits (net_internal.h: they commute). */
static void fl_slot_credits(struct flitnet *n, const struct fl_slot *s)
{
	for (const struct fl_evblk *b = s->chead; b; b = b->next) {
		const uint32_t cnt = b->next ? FL_BLK_CREDITS : s->ctail_n;
		for (uint32_t i = 0; i < cnt; i++) {
			if (i + FL_PREFETCH < cnt && !(b->cr[i + FL_PREFETCH] & FL_CR_NIC))
				__builtin_prefetch(&n->ovc[b->cr[i + FL_PREFETCH]], 1);
			fl_credit_dispatch(n, b->cr[i]);
		}
	}
}

/* Relink a chain of blocks last first (visit_order = reverse: they go back
 * to the free list next). */
static void fl_chain_reverse(struct fl_evblk **head, struct fl_evblk **tail)
{
	struct fl_evblk *prev = NULL, *b = *head;
	while (b) {
		struct fl_evblk *nx = b->next;
		b->next = prev;
		prev = b;
		b = nx;
	}
	*tail = *head;
	*head = prev;
}

static void fl_slot_credits_reverse(struct flitnet *n, struct fl_slot *s)
{
	fl_chain_reverse(&s->chead, &s->ctail);
	for (const struct fl_evblk *b = s->chead; b; b = b->next) {
		const uint32_t cnt = b == s->chead ? s->ctail_n : FL_BLK_CREDITS;
		for (uint32_t i = cnt; i-- > 0;)
			fl_credit_dispatch(n, b->cr[i]);
	}
}

static inline void fl_prefetch_event(const struct flitnet *n, const struct fl_event *ev)
{
	switch (ev->kind) {
	case EV_FLIT_ROUTER:
		__builtin_prefetch(&n->ivc[(uint64_t)ev->to * n->V + ev->vc], 1);
		__builtin_prefetch(&n->routers[n->topo->port_router[ev->to]], 1);
		if (ev->seq == 0)
			__builtin_prefetch(&n->pool.pkts[ev->pkt].rt, 1);
		break;
	case EV_CREDIT_ROUTER:
		__builtin_prefetch(&n->ovc[(uint64_t)ev->to * n->V + ev->vc], 1);
		break;
	default:
		__builtin_prefetch(&n->nics[ev->to], 1);
		break;
	}
}

/* Walks slot `s`'s blocks in scheduling order, PER_BLK items of array
 * member ARR a full block, calling PREFETCH(n, item) FL_PREFETCH items
 * ahead (into the next block too) and DISPATCH(n, item) on each: one walk
 * for the slots of events and of compact flits, expanded in place so each
 * keeps its own inlined loop. */
#define FL_SLOT_WALK(n, s, PER_BLK, ARR, PREFETCH, DISPATCH)                                      \
	for (const struct fl_evblk *b = (s)->head; b; b = b->next) {                               \
		const uint32_t cnt = b->next ? (PER_BLK) : (s)->tail_n;                              \
		const struct fl_evblk *nb = b->next;                                                 \
		const uint32_t ncnt = nb ? (nb->next ? (PER_BLK) : (s)->tail_n) : 0;                 \
		for (uint32_t i = 0; i < cnt; i++) {                                                 \
			uint32_t a = i + FL_PREFETCH;                                                \
			if (a < cnt)                                                                 \
				PREFETCH(n, b->ARR[a]);                                              \
			else if (a - cnt < ncnt)                                                     \
				PREFETCH(n, nb->ARR[a - cnt]);                                       \
			DISPATCH(n, b->ARR[i]);                                                      \
		}                                                                                    \
	}

#define FL_PREFETCH_EV(n, e) fl_prefetch_event(n, &(e))
#define FL_DISPATCH_EV(n, e) fl_dispatch(n, &(e))

/* A slot's events in scheduling order. Dispatching never schedules into
 * the slot being dispatched (every event goes at least a cycle ahead). */
static void fl_slot_dispatch(struct flitnet *n, const struct fl_slot *s)
{
	FL_SLOT_WALK(n, s, FL_BLK_EVENTS, ev, FL_PREFETCH_EV, FL_DISPATCH_EV)
}

/* A compact flit (n->fl_compact). */
static inline void fl_dispatch_cf(struct flitnet *n, struct fl_cflit f)
{
	fl_dispatch_flit(n, fl_cflit_to(n, f), fl_cflit_vc(n, f), f.pkt & ~FL_CF_NIC, fl_cflit_seq(n, f),
			 f.pkt & FL_CF_NIC);
}

/* What router flit f's arrival at global port `to` and its router's
 * route stage read: its input VC and, for a head, the packet's route
 * fields. */
static inline void fl_prefetch_arrival(const struct flitnet *n, struct fl_cflit f, uint32_t to)
{
	if (fl_cflit_is_head(n, f))
		__builtin_prefetch(&n->pool.pkts[f.pkt].rt, 1);
	__builtin_prefetch(&n->ivc[(uint64_t)to * n->V + fl_cflit_vc(n, f)], 1);
}
static inline void fl_prefetch_cf(const struct flitnet *n, struct fl_cflit f)
{
	const uint32_t to = fl_cflit_to(n, f);
	if (f.pkt & FL_CF_NIC) {
		__builtin_prefetch(&n->nics[to], 1);
		return;
	}
	fl_prefetch_arrival(n, f, to);
	__builtin_prefetch(&n->routers[n->topo->port_router[to]], 1);
}

/* The same for a slot of compact flits. */
static void fl_slot_dispatch_cf(struct flitnet *n, const struct fl_slot *s)
{
	FL_SLOT_WALK(n, s, FL_BLK_FLITS, fl, fl_prefetch_cf, fl_dispatch_cf)
}

/* Per-router arrivals (n->local_arrivals): a slot's flits for endpoints
 * are dispatched at once, those for routers go into their router's list
 * and reach the router just before it steps (fl_router_arrivals). Under
 * load a cycle's arrivals touch more lines (input VCs, runs, stage
 * queues) than the cache holds: dispatched all first, they were gone
 * again when the routers stepped (5-10% less CPU time on the converted
 * BookSim2 files, benchmarks/README.md). Same results:
 *  - an arrival changes only its router's input side (buffers, stage
 *    queues), which nothing reads before that router steps, unless a
 *    routing function reads other routers' state (ROUTE_VIEW_GLOBAL: the
 *    slot is then dispatched whole); sources, and the decisions they take
 *    as they inject, read output VCs and credits, which are all
 *    dispatched before sources step, as before; a credit wakes parked
 *    heads into the VC queue only with wait_for_tail_credit (off here);
 *  - a list runs last listed first: a router queues one cycle's arrivals
 *    in input-VC order whatever order they come in (fl_q_push_arrival),
 *    and a channel brings at most one flit a cycle, so no two of them
 *    meet in one buffer.
 * test_flit's test_arrival_lists_same runs both ways. */

/* One pass over the slot's flits, with what it touches in locals (a
 * store through the lists' pointers may alias n's fields). */
static void fl_slot_arrival_lists(struct flitnet *n, const struct fl_slot *s)
{
	uint32_t *const head = n->arr_head, *const next = n->arr_next;
	struct fl_cflit *const ev = n->arr_ev;
	const uint32_t *const port_router = n->topo->port_router;
	const uint32_t shift = n->cf_shift;
	const uint64_t now = n->now;
	/* The slot's flits for endpoints are ejected after the pass, in
	 * slot order, from the top of ev down (router flits fill it from the
	 * bottom; the slot holds at most arr_cap events), their packet
	 * records fetched meanwhile. The pass itself changes nothing an
	 * ejection reads or orders: it only lists and activates routers. */
	struct fl_cflit *const nic_ev = ev + n->arr_cap;
	uint32_t k = 0, m = 0;
	for (const struct fl_evblk *b = s->head; b; b = b->next) {
		const uint32_t cnt = b->next ? FL_BLK_FLITS : s->tail_n;
		for (uint32_t i = 0; i < cnt; i++) {
			const struct fl_cflit f = b->fl[i];
			if (f.pkt & FL_CF_NIC) {
				__builtin_prefetch(&n->pool.pkts[f.pkt & ~FL_CF_NIC]);
				*(nic_ev - ++m) = f;
				continue;
			}
			const uint32_t r = port_router[f.at >> shift];
			const uint32_t h = head[r];
			/* The router steps after this pass: by then these are in
			 * cache (at 0.7 load the dragonfly's live packets, 2.8 MB,
			 * are past the second level). */
			fl_prefetch_arrival(n, f, f.at >> shift);
			ev[k] = f;
			next[k] = h;
			head[r] = ++k;
			if (!h) /* its first arrival this cycle */
				fl_activate_router(n, r, now);
		}
	}
	NL_ASSERT(k + m <= n->arr_cap);
	for (uint32_t j = 1; j <= m; j++)
		fl_dispatch_cf(n, *(nic_ev - j));
}

/* Room for the coming cycle's arrivals in the per-router lists. Nothing
 * fails here: without the room fl_cycle dispatches the slot as a whole,
 * which gives the same results. */
void fl_arrivals_reserve(struct flitnet *n)
{
	const struct fl_slot *s = &n->wheel[n->now & n->wheel_mask];
	if (s->n <= n->arr_cap)
		return;
	if (!n->arr_head && !(n->arr_head = fl_calloc_lines(n->topo->n_routers, sizeof *n->arr_head)))
		return;
	uint32_t cap = n->arr_cap ? n->arr_cap : 256;
	while (cap < s->n && cap <= UINT32_MAX / 2)
		cap *= 2;
	if (cap < s->n)
		return;
	uint32_t *nx = realloc(n->arr_next, (size_t)cap * sizeof *nx);
	if (!nx)
		return;
	n->arr_next = nx;
	struct fl_cflit *ev = realloc(n->arr_ev, (size_t)cap * sizeof *ev);
	if (!ev)
		return;
	n->arr_ev = ev;
	n->arr_cap = cap;
}

/* visit_order = reverse: the slot's events last first. */
static void fl_slot_dispatch_reverse(struct flitnet *n, struct fl_slot *s)
{
	fl_chain_reverse(&s->head, &s->tail);
	if (n->fl_compact) {
		for (const struct fl_evblk *b = s->head; b; b = b->next) {
			const uint32_t cnt = b == s->head ? s->tail_n : FL_BLK_FLITS;
			for (uint32_t i = cnt; i-- > 0;)
				fl_dispatch_cf(n, b->fl[i]);
		}
		return;
	}
	for (const struct fl_evblk *b = s->head; b; b = b->next) {
		const uint32_t cnt = b == s->head ? s->tail_n : FL_BLK_EVENTS;
		for (uint32_t i = cnt; i-- > 0;) {
			if (i >= FL_PREFETCH)
				fl_prefetch_event(n, &b->ev[i - FL_PREFETCH]);
			fl_dispatch(n, &b->ev[i]);
		}
	}
}

void fl_cycle(struct flitnet *n)
{
	const uint64_t t = n->now;

	fl_gen_release(n, t);
	/* Each event touches a cold record; their addresses are known, so
	 * fetch a few events ahead (across a block boundary too). */
	struct fl_slot *s = &n->wheel[t & n->wheel_mask];
	/* local_arrivals holds fl_compact and forward visits. */
	const bool lists = s->n && n->local_arrivals && s->n <= n->arr_cap;
	if (s->n) {
		if (__builtin_expect(n->reverse_visits, 0)) {
			fl_slot_dispatch_reverse(n, s);
			fl_slot_credits_reverse(n, s);
		} else {
			if (lists)
				fl_slot_arrival_lists(n, s);
			else if (n->fl_compact)
				fl_slot_dispatch_cf(n, s);
			else
				fl_slot_dispatch(n, s);
			fl_slot_credits(n, s);
		}
		n->last_move = t;
		n->n_events -= s->n;
		fl_slot_clear(n, s);
	}

	for (uint32_t i = 0; i < n->n_act_e; i++)
		fl_nic_step(n, n->act_e[n->reverse_visits ? n->n_act_e - 1 - i : i]);

	uint32_t steps = n->steps_max;
	if (!n->speedup_whole) {
		n->speedup_acc += n->rc.internal_speedup;
		steps = 0;
		while (n->speedup_acc >= 1.0) {
			steps++;
			n->speedup_acc -= 1.0;
		}
	}
	for (uint32_t wi = 0; n->n_act_r && wi < n->act_words; wi++) {
		uint32_t w = n->act_w0 + (n->reverse_visits ? n->act_words - 1 - wi : wi);
		uint64_t bits = n->act_r[w];
		if (!bits)
			continue;
		n->act_r[w] = 0;
		while (bits) {
			uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			n->n_act_r--;
			if (lists && n->arr_head[r])
				fl_router_arrivals(n, r, n->arr_head[r]);
			for (uint32_t k = 0; k < steps; k++) {
				n->xb_at = k + 1 < steps ? t : t + 1;
				fl_router_step(n, r);
			}
			const struct fl_router *ro = &n->routers[r];
			if (ro->route_q.len | ro->va_q.len | ro->sa_q.len | ro->xb_q.len) {
				uint64_t m = 1ULL << (r & 63);
				if (!(n->act_r_next[w] & m)) {
					n->act_r_next[w] |= m;
					n->n_act_r_next++;
				}
			}
		}
	}

	if (__builtin_expect(n->la_upstream, 0)) {
		if (n->n_parts == 1)
			fl_la_flush(n);
		else
			fl_la_sort_pending(n); /* decided at the exchange (part.c) */
	}

	uint64_t *tmp = n->act_r;
	n->act_r = n->act_r_next;
	n->act_r_next = tmp;
	n->n_act_r = n->n_act_r_next;
	n->n_act_r_next = 0;
	uint32_t *etmp = n->act_e;
	n->act_e = n->act_e_next;
	n->act_e_next = etmp;
	n->n_act_e = n->n_act_e_next;
	n->n_act_e_next = 0;
	fl_set_now(n, t + 1);
}
