/* Run-time memory of the flit model: the packet and run pools, the timing
 * wheel and the heap of events too far ahead for it. Everything here grows
 * only between cycles (fl_reserve) or reports a failure through n->oom, so
 * a run that cannot get memory ends with NL_ENOMEM instead of aborting. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/error.h"
#include "net/net_internal.h"

/* --- pools ------------------------------------------------------------------ */

/* Tests (fail_nth): the countdown stops at 1, so that allocation and
 * every later one fail, as when memory has run out: a run that went on
 * after a failure would meet the next one. */
static bool fl_fail_test(struct flitnet *n)
{
	if (n->fail_nth <= 1)
		return n->fail_nth == 1;
	n->fail_nth--;
	return false;
}

void *fl_grow(struct flitnet *n, void *p, size_t size)
{
	if (fl_fail_test(n)) {
		n->oom = true;
		return NULL;
	}
	void *q = realloc(p, size);
	if (!q)
		n->oom = true;
	return q;
}

/* The pools' arrays are anonymous mappings grown with mremap: growth moves
 * page tables, not records, so a pool costs the pages its records have
 * touched and leaves nothing behind. realloc copied a pool still below
 * malloc's mmap threshold (128 KiB) to a new heap block and the old block
 * stayed resident: on the 256-endpoint flattened butterfly at 0.3 that
 * was 44 KiB of the 100 KiB a loaded run added. Sanitizer builds keep
 * heap blocks, which the sanitizer bounds-checks (FL_HEAP_ONLY). */
#if FL_HEAP_ONLY || !defined(MREMAP_MAYMOVE)
#define FL_POOL_MAPPED 0
#else
#define FL_POOL_MAPPED 1
#endif

void *fl_pool_grow(struct flitnet *n, void *p, size_t *bytes, size_t size)
{
	const size_t old = p ? *bytes : 0;
	if (p && size <= old) /* grown already by a call that failed later (fl_grow_pkts) */
		return p;
	if (fl_fail_test(n)) {
		n->oom = true;
		return NULL;
	}
#if FL_POOL_MAPPED
	void *q = p ? mremap(p, old, size, MREMAP_MAYMOVE)
		    : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		q = NULL;
#else
	char *q = realloc(p, size);
	if (q)
		memset(q + old, 0, size - old);
#endif
	if (!q)
		n->oom = true;
	else
		*bytes = size;
	return q;
}

void fl_pool_free(void *p, size_t size)
{
	if (!p)
		return;
#if FL_POOL_MAPPED
	munmap(p, size);
#else
	(void)size;
	free(p);
#endif
}

/* Grow a pool array geometrically to at least `need` entries; the free
 * list threads through `next`. Growth happens between cycles
 * (fl_reserve) while the network fills up, never in steady state, so the
 * hot path's allocations cannot fail. */
#define FL_POOL_GROW(n, arr, bytes, cap, need)                                                            \
	do {                                                                                              \
		uint64_t nc_ = (cap) ? 2 * (uint64_t)(cap) : 1024;                                        \
		if (nc_ < (need))                                                                         \
			nc_ = (need);                                                                     \
		void *na_ = nc_ > UINT32_MAX / 2 ? NULL                                                   \
						 : fl_pool_grow((n), (arr), &(bytes), (size_t)nc_ * sizeof *(arr)); \
		if (!na_)                                                                                 \
			return -1;                                                                        \
		(arr) = na_;                                                                              \
		(cap) = (uint32_t)nc_;                                                                    \
	} while (0)

/* The packet pool's records start on cache-line boundaries: a heap block
 * (sanitizer builds) is aligned to 16 bytes only, which split every
 * 64-byte record over two lines and made route computation miss twice per
 * hop (the size and the routing state). The allocation keeps one line of
 * slack and the records move within it when the block comes back
 * differently aligned; a mapping is page-aligned and never moves them. */
#define FL_LINE 64u

static int fl_grow_pkts(struct flitnet *n, uint64_t need)
{
	struct fl_pools *pl = &n->pool;
	uint64_t nc = pl->cap_pkts ? 2 * (uint64_t)pl->cap_pkts : 1024;
	if (nc < need)
		nc = need;
	size_t old_off = pl->pkts_mem ? (size_t)((char *)pl->pkts - (char *)pl->pkts_mem) : 0;
	char *mem = nc > UINT32_MAX / 2
			    ? NULL
			    : fl_pool_grow(n, pl->pkts_mem, &pl->pkts_bytes, (size_t)nc * sizeof *pl->pkts + FL_LINE);
	if (!mem)
		return -1;
	size_t off = (size_t)(-(uintptr_t)mem & (FL_LINE - 1));
	if (off != old_off && pl->cap_pkts)
		memmove(mem + off, mem + old_off, (size_t)pl->cap_pkts * sizeof *pl->pkts);
	pl->pkts_mem = mem;
	pl->pkts = (struct fl_pkt *)(void *)(mem + off);
	if (pl->la_w) { /* lookahead_decide = upstream: one decision per record */
		struct route_cand *c =
			fl_pool_grow(n, pl->la_cand, &pl->la_cand_bytes, (size_t)nc * pl->la_w * sizeof *c);
		if (!c)
			return -1;
		pl->la_cand = c;
		uint8_t *k = fl_pool_grow(n, pl->la_n, &pl->la_n_bytes, (size_t)nc);
		if (!k)
			return -1;
		pl->la_n = k;
	}
	if (pl->msg) {
		uint32_t *m = fl_pool_grow(n, pl->msg, &pl->msg_bytes, (size_t)nc * sizeof *m);
		if (!m)
			return -1;
		pl->msg = m;
	}
	pl->cap_pkts = (uint32_t)nc;
	return 0;
}

void fl_pkt_msg_alloc(struct flitnet *n)
{
	struct fl_pools *pl = &n->pool;
	pl->msg = fl_pool_grow(n, NULL, &pl->msg_bytes, (size_t)pl->cap_pkts * sizeof *pl->msg);
}

static int fl_grow_runs(struct flitnet *n, uint64_t need)
{
	FL_POOL_GROW(n, n->pool.runs, n->pool.runs_bytes, n->pool.cap_runs, need);
	return 0;
}

void fl_pools_free(struct flitnet *n)
{
	struct fl_pools *pl = &n->pool;
	fl_pool_free(pl->pkts_mem, pl->pkts_bytes);
	fl_pool_free(pl->la_cand, pl->la_cand_bytes);
	fl_pool_free(pl->la_n, pl->la_n_bytes);
	fl_pool_free(pl->msg, pl->msg_bytes);
	fl_pool_free(pl->runs, pl->runs_bytes);
	pl->pkts_mem = NULL;
	pl->pkts = NULL;
	pl->la_cand = NULL;
	pl->la_n = NULL;
	pl->msg = NULL;
	pl->runs = NULL;
	pl->cap_pkts = pl->cap_runs = 0;
	pl->pkts_bytes = pl->la_cand_bytes = pl->la_n_bytes = pl->msg_bytes = pl->runs_bytes = 0;
}

/* The pools' slow halves, for fl_pkt_alloc and fl_run_alloc
 * (net_internal.h) when the free list is empty. */
uint32_t fl_pkt_alloc_grow(struct flitnet *n)
{
	if (n->pool.n_pkts == n->pool.cap_pkts && fl_grow_pkts(n, (uint64_t)n->pool.n_pkts + 1) < 0)
		return FL_NONE;
	return n->pool.n_pkts++;
}

uint32_t fl_run_alloc_fresh(struct flitnet *n)
{
	if (n->pool.n_runs == n->pool.cap_runs)
		NL_BUG("run pool exhausted within a cycle (%u runs)", n->pool.cap_runs);
	return n->pool.n_runs++;
}

/* fl_reserve (net_internal.h) past its inline test: room for what one
 * cycle can take from the pools (a new packet per endpoint, a new run per
 * arriving flit: one per input port and pipeline step), and the error of
 * any allocation that failed. */
int fl_reserve_grow(struct flitnet *n, struct nl_err *err)
{
	uint64_t pkt_need = (uint64_t)n->pool.n_pkts + n->own_eps;
	uint64_t run_need = (uint64_t)n->pool.n_runs + n->own_runs;
	if (n->pool.cap_pkts < pkt_need && fl_grow_pkts(n, pkt_need) < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory at cycle %" PRIu64 ": packet pool of %" PRIu64 " entries",
			       n->now, pkt_need);
	if (n->pool.cap_runs < run_need && fl_grow_runs(n, run_need) < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory at cycle %" PRIu64 ": VC buffer pool of %" PRIu64 " runs",
			       n->now, run_need);
	if (n->oom)
		return nl_errf(err, NL_ENOMEM, "out of memory at cycle %" PRIu64 ": %" PRIu64 " events in flight",
			       n->now, n->n_events);
	if (n->local_arrivals)
		fl_arrivals_reserve(n);
	return 0;
}

/* --- the timing wheel and its far events ------------------------------------ */

static void fl_far_push(struct flitnet *n, uint64_t cycle, const struct fl_event *ev)
{
	if (n->n_far == n->cap_far) {
		uint32_t cap = n->cap_far ? 2 * n->cap_far : 256;
		struct fl_far_event *f = fl_grow(n, n->far, (size_t)cap * sizeof *f);
		if (!f)
			return;
		n->far = f;
		n->cap_far = cap;
	}
	struct fl_far_event x = {.cycle = cycle, .seq = n->far_seq++, .ev = *ev};
	uint32_t i = n->n_far++;
	while (i) {
		uint32_t parent = (i - 1) / 2;
		const struct fl_far_event *p = &n->far[parent];
		if (p->cycle < x.cycle || (p->cycle == x.cycle && p->seq < x.seq))
			break;
		n->far[i] = *p;
		i = parent;
	}
	n->far[i] = x;
	n->n_events++;
}

static void fl_far_pop(struct flitnet *n)
{
	struct fl_far_event last = n->far[--n->n_far];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n->n_far)
			break;
		const struct fl_far_event *a = &n->far[c], *b = &n->far[c + 1];
		if (c + 1 < n->n_far && (b->cycle < a->cycle || (b->cycle == a->cycle && b->seq < a->seq)))
			c++;
		const struct fl_far_event *m = &n->far[c];
		if (last.cycle < m->cycle || (last.cycle == m->cycle && last.seq < m->seq))
			break;
		n->far[i] = *m;
		i = c;
	}
	if (n->n_far)
		n->far[i] = last;
}

struct fl_evblk *fl_chain_block_new(struct flitnet *n)
{
	struct fl_evblk *b = fl_grow(n, NULL, sizeof *b);
	if (b)
		n->n_blk++;
	return b;
}

/* A credit's 4-byte code (net_internal.h, FL_CR_NIC): the index of the
 * output VC it returns to, router ports' first, then endpoints'. */
static inline uint32_t fl_credit_code(const struct flitnet *n, const struct fl_event *ev)
{
	uint32_t ov = ev->to * n->V + ev->vc;
	return ev->kind == EV_CREDIT_NIC ? FL_CR_NIC | ov : ov;
}

/* A full event into slot s's main chain (without fl_compact). */
static inline bool fl_slot_push_ev(struct flitnet *n, struct fl_slot *s, const struct fl_event *ev)
{
	NL_ASSERT(!n->fl_compact);
	if (!s->tail || s->tail_n == FL_BLK_EVENTS) {
		if (!fl_chain_extend(n, &s->head, &s->tail))
			return false;
		s->tail_n = 0;
	}
	s->tail->ev[s->tail_n++] = *ev;
	s->n++;
	return true;
}

/* Flit ev into slot s's main chain: a compact flit with n->fl_compact. */
static inline bool fl_slot_push_flit(struct flitnet *n, struct fl_slot *s, const struct fl_event *ev)
{
	if (!n->fl_compact)
		return fl_slot_push_ev(n, s, ev);
	return fl_slot_push_cf(n, s, fl_cflit_code(n, ev));
}


static inline bool fl_is_credit(const struct fl_event *ev)
{
	return ev->kind == EV_CREDIT_ROUTER || ev->kind == EV_CREDIT_NIC;
}

static inline bool fl_slot_push(struct flitnet *n, struct fl_slot *s, const struct fl_event *ev)
{
	if (n->cr_compact && fl_is_credit(ev))
		return fl_slot_push_cr(n, s, fl_credit_code(n, ev));
	if (!fl_is_credit(ev))
		return fl_slot_push_flit(n, s, ev);
	return fl_slot_push_ev(n, s, ev);
}

void fl_wheel_free(struct flitnet *n)
{
	if (n->wheel)
		for (uint32_t i = 0; i <= n->wheel_mask; i++)
			fl_slot_clear(n, &n->wheel[i]);
	for (struct fl_evblk *b = n->blk_free, *nx; b; b = nx) {
		nx = b->next;
		free(b);
	}
	n->blk_free = NULL;
	n->n_blk = 0;
	free(n->wheel);
	n->wheel = NULL;
}

/* Far events scheduled before any direct event of their cycle (they were
 * out of reach then) go first, in scheduling order: the slot ends up in
 * the order a wheel as deep as the longest backlog would have. */
void fl_far_refill(struct flitnet *n)
{
	while (n->n_far && n->far[0].cycle < n->now + n->wheel_mask) {
		const struct fl_far_event *f = &n->far[0];
		NL_ASSERT(f->cycle >= n->now);
		fl_slot_push(n, &n->wheel[f->cycle & n->wheel_mask], &f->ev);
		fl_far_pop(n);
	}
}

void fl_schedule_merged(struct flitnet *n, uint64_t cycle, const struct fl_event *ev)
{
	NL_ASSERT(cycle >= n->now);
	if (cycle - n->now >= n->wheel_mask) {
		fl_far_push(n, cycle, ev);
		return;
	}
	n->n_events += fl_slot_push(n, &n->wheel[cycle & n->wheel_mask], ev);
}

void fl_schedule(struct flitnet *n, uint64_t cycle, const struct fl_event *ev)
{
	NL_ASSERT(cycle > n->now);
	if (cycle - n->now >= n->wheel_mask) {
		fl_far_push(n, cycle, ev);
		return;
	}
	n->n_events += fl_slot_push(n, &n->wheel[cycle & n->wheel_mask], ev);
}

void fl_schedule_flit(struct flitnet *n, uint64_t cycle, const struct fl_event *ev)
{
	NL_ASSERT(cycle > n->now && !fl_is_credit(ev));
	if (cycle - n->now >= n->wheel_mask) {
		fl_far_push(n, cycle, ev);
		return;
	}
	n->n_events += fl_slot_push_flit(n, &n->wheel[cycle & n->wheel_mask], ev);
}

void fl_schedule_credit(struct flitnet *n, uint64_t cycle, const struct fl_event *ev)
{
	NL_ASSERT(cycle > n->now && fl_is_credit(ev));
	if (cycle - n->now >= n->wheel_mask || !n->cr_compact) {
		fl_schedule(n, cycle, ev);
		return;
	}
	n->n_events += fl_slot_push_cr(n, &n->wheel[cycle & n->wheel_mask], fl_credit_code(n, ev));
}

void fl_send_flit_event(struct flitnet *n, const struct fl_link *l, uint64_t cycle, uint32_t pkt, uint16_t seq,
			uint8_t vc)
{
	const struct fl_event ev = {.pkt = pkt, .seq = seq, .vc = vc, .kind = l->flit_kind, .to = l->to};
	fl_send(n, l, cycle, &ev);
}
