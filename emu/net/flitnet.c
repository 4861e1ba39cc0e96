/* The flit-level network: build, active lists and the cycle loop. Pools
 * and the timing wheel in wheel.c, router pipeline in router.c, endpoints
 * in nic.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/config.h"
#include "core/error.h"
#include "core/thread.h"
#include "net/hold.h"
#include "net/net_internal.h"
#include "net/voq.h"
#include "net/mpi.h"
#include "net/workers.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

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

/* gen_next[e] of a source that waits nowhere, and of one in the heap: a
 * source is queued once at most (a second link would corrupt its slot's
 * list; fl_gen_push ignores a source already waiting, which is due then
 * anyway: its creation time cannot move while it waits). */
enum { FL_GEN_OUT = UINT32_MAX - 1, FL_GEN_HEAP = UINT32_MAX - 2 };

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

/* The earliest cycle a waiting source is due, UINT64_MAX if none. */
static inline uint64_t fl_gen_top(const struct flitnet *n)
{
	uint64_t next = n->gen_n ? n->gen_heap[0] >> 32 : UINT64_MAX;
	return n->cal_n && n->cal_next < next ? n->cal_next : next;
}

/* --- build ------------------------------------------------------------------ */

void flitnet_free(struct flitnet *n)
{
	if (!n)
		return;
	fl_workers_stop(n->workers); /* before anything they could be reading */
	route_free(n->route);
	/* The shared arrays, then what the root owns as partition 0. */
	fl_free_lines(n->routers);
	fl_free_lines(n->xitems);
	fl_free_lines(n->iv_cand);
	fl_free_lines(n->ivc);
	fl_free_lines(n->ovc);
	fl_free_lines(n->ports);
	fl_free_lines(n->cred_step);
	fl_free_lines(n->cred_cycle);
	fl_free_lines(n->va_gptr);
	fl_free_lines(n->va_aptr);
	fl_free_lines(n->va_wait);
	fl_free_lines(n->va_wmask);
	fl_free_lines(n->snap_occ);
	fl_free_lines(n->pend);
	fl_free_lines(n->pocc);
	fl_free_lines(n->asum);
	fl_free_lines(n->sw_gptr);
	fl_free_lines(n->sw_aptr);
	fl_free_lines(n->sw_rr);
	fl_free_lines(n->nics);
	fl_free_lines(n->ep_router);
	fl_free_lines(n->nic_occ);
	fl_free_lines(n->nic_busy);
	fl_free_lines(n->nic_parked);
	fl_free_lines(n->gen_next);
	free(n->cred_lat);
	free(n->msg.msgs);
	free(n->report);
	fl_dl_release(n);
	fl_hold_release(n);
	fl_voq_release(n);
	fl_part_release(n);
	fl_part_release_own(n);
	free(n);
}

/* Zeroed arrays that start on a cache line: routers, endpoints and the
 * 32-byte port and VC records then never straddle two lines (calloc
 * aligns to 16 bytes, which split every other VC record: two misses for
 * one touch). An array of FL_LAZY_BYTES or more is a fresh anonymous
 * mapping, never written here: its pages become resident when first
 * written, so under MPI, where a rank writes only the entries of the
 * routers and endpoints it runs, an array indexed by global port, VC or
 * endpoint costs each rank the pages of its share (docs/scaling.md,
 * "Memory per rank"). Reading an untouched page maps the kernel's zero
 * page, which costs no memory either. The 64 bytes before the array hold
 * how to free it. */
#if FL_HEAP_ONLY
#define FL_LAZY_BYTES SIZE_MAX /* heap blocks, which the sanitizer bounds-checks */
#else
#define FL_LAZY_BYTES ((size_t)64 << 10)
#endif
#define FL_LINE_HDR 64u

struct fl_lines_hdr {
	void *raw;     /* what was allocated */
	size_t mapped; /* bytes mapped, or 0 for aligned_alloc */
};

void *fl_calloc_lines(size_t count, size_t size)
{
	if (!count)
		count = 1;
	if (size && count > (SIZE_MAX - 2 * FL_LINE_HDR) / size)
		return NULL;
	size_t bytes = (count * size + 63) & ~(size_t)63;
	struct fl_lines_hdr h = {0};
	if (bytes >= FL_LAZY_BYTES) {
		h.mapped = bytes + FL_LINE_HDR;
		h.raw = mmap(NULL, h.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h.raw == MAP_FAILED)
			return NULL;
	} else {
		h.raw = aligned_alloc(64, bytes + FL_LINE_HDR);
		if (!h.raw)
			return NULL;
		memset((char *)h.raw + FL_LINE_HDR, 0, bytes);
	}
	memcpy(h.raw, &h, sizeof h);
	return (char *)h.raw + FL_LINE_HDR;
}

void fl_free_lines(void *p)
{
	if (!p)
		return;
	struct fl_lines_hdr h;
	memcpy(&h, (char *)p - FL_LINE_HDR, sizeof h);
	if (h.mapped)
		munmap(h.raw, h.mapped);
	else
		free(h.raw);
}

#define FL_CALLOC(ptr, count)                                         \
	do {                                                          \
		(ptr) = fl_calloc_lines((size_t)(count), sizeof *(ptr)); \
		if (!(ptr))                                           \
			goto nomem;                                   \
	} while (0)

/* The latency of each link class from [network]: terminal_latency (0 =
 * 1, what injection and ejection channels have always had),
 * channel_latency for a family without classes, local_latency /
 * global_latency (0 = channel_latency) for one with them. A class key
 * set for a family without the class is refused, not ignored, at the
 * file line or -s that set it (cfg), as a key refused when read is. */
static int fl_class_latencies(const struct net_cfg *nc, const struct topo *t, const struct config *cfg,
			      uint16_t lat[TOPO_N_LINK_CLASSES], struct nl_err *err)
{
	if (!topo_has_link_classes(t) && (nc->local_latency || nc->global_latency)) {
		const char *key = nc->local_latency ? "local_latency" : "global_latency";
		nl_errf(err, NL_ECONFIG,
			"key '%s': value '%lld': topology '%s' has one class of links; expected 0 (unset), "
			"or channel_latency",
			key, (long long)(nc->local_latency ? nc->local_latency : nc->global_latency), t->ops->name);
		return config_err_file_line(cfg, key, err);
	}
	lat[TOPO_LINK_TERMINAL] = (uint16_t)(nc->terminal_latency ? nc->terminal_latency : 1);
	lat[TOPO_LINK_NETWORK] = (uint16_t)nc->channel_latency;
	lat[TOPO_LINK_LOCAL] = (uint16_t)(nc->local_latency ? nc->local_latency : nc->channel_latency);
	lat[TOPO_LINK_GLOBAL] = (uint16_t)(nc->global_latency ? nc->global_latency : nc->channel_latency);
	return 0;
}

/* The timing wheel covers the longest link: an event is at most a
 * channel and a credit delay ahead, or further when an output or credit
 * queue backs up (speedups: never by more than the credits of a port);
 * those wait in far[]. A 100-cycle channel costs 128 slots of the wheel
 * (each empty until used), not per-channel storage: its flits in flight
 * are events like any other. */
static int fl_wheel_size(struct flitnet *n)
{
	uint32_t max_delay = n->max_lat + 2u + (uint32_t)n->rc.credit_delay;
	uint32_t w = 1;
	while (w <= max_delay + 1)
		w <<= 1;
	struct fl_slot *wh = calloc(w, sizeof *wh);
	if (!wh)
		return -1;
	n->wheel = wh;
	n->wheel_mask = w - 1;
	return 0;
}

/* Credit latencies when some link's two directions differ (n->cred_lat):
 * a port's credits take the latency of the channel that delivers its
 * flits, the peer port's link (BookSim2's credit channel is as long as
 * its flit channel). Recomputed in place after per-link latencies change.
 * Returns 0, or -1 out of memory. */
static int fl_cred_lat(struct flitnet *n)
{
	const struct topo *t = n->topo;
	bool asym = n->cred_lat != NULL;
	for (uint32_t g = 0; g < t->n_ports && !asym; g++)
		asym = n->ports[g].link.network && n->ports[t->peer[g]].link.lat != n->ports[g].link.lat;
	if (!asym)
		return 0;
	if (!n->cred_lat && !(n->cred_lat = malloc((size_t)t->n_ports * sizeof *n->cred_lat)))
		return -1;
	for (uint32_t g = 0; g < t->n_ports; g++)
		n->cred_lat[g] = n->ports[g].link.network ? n->ports[t->peer[g]].link.lat : n->ports[g].link.lat;
	return 0;
}

/* The largest packet messages are cut into (backend_flit.c): ceil(packet_bytes
 * / flit_bytes) flits, at most 65535 (netcfg refuses more). */
uint32_t fl_msg_packet_flits(const struct flitnet *n)
{
	const uint64_t flits = ((uint64_t)n->nc.packet_bytes + (uint64_t)n->nc.flit_bytes - 1) / (uint64_t)n->nc.flit_bytes;
	return (uint32_t)(flits > 65535 ? 65535 : flits);
}

/* The compact flit's fields (struct fl_cflit) for packets of up to
 * max_flits flits: the index in the bits it needs, the VC in ceil(log2 V),
 * the target in the rest, and compact flits only where every target fits
 * them. Sizing the index by the largest packet, not its 16-bit type,
 * keeps the 4,608-endpoint HyperX (15,360 ports x 6 VCs) and dragonflies
 * of more than 2^16 / V ports in 8-byte flits. The per-router arrival
 * lists read compact flits, so they follow fl_compact. Only while no flit
 * is in flight: the layout says how the wheel's flits read. */
void fl_cf_layout(struct flitnet *n, uint32_t max_flits)
{
	const struct topo *t = n->topo;
	uint32_t vbits = 0, sbits = 0;
	while (1u << vbits < n->V)
		vbits++;
	while (1u << sbits < max_flits) /* indices 0 .. max_flits - 1 */
		sbits++;
	n->cf_max_flits = max_flits;
	n->cf_vbits = vbits;
	n->cf_seq_mask = (1u << sbits) - 1;
	n->cf_seq_field = n->cf_seq_mask << vbits;
	n->cf_shift = sbits + vbits;
	n->cf_vmask = (1u << vbits) - 1;
	const uint64_t targets = (uint64_t)t->n_ports > t->n_endpoints ? (uint64_t)t->n_ports : t->n_endpoints;
	n->fl_compact = n->cr_compact && targets << n->cf_shift <= 1ULL << 32;
	n->local_arrivals = n->fl_compact && n->local_arrivals_ok;
}

/* Packets of up to `flits` flits may now be made (synthetic traffic's
 * largest size, a message's packets): every partition's pkt_max_flits
 * grows to it, before any such packet exists. While it is 1 a head is its
 * packet, and cut-through's room test (router.c, fl_out_full) needs no
 * look at the head's size, a read of the VC's run per test. */
void fl_pkt_max_grow(struct flitnet *n, uint32_t flits)
{
	if (flits <= n->pkt_max_flits)
		return;
	for (uint32_t k = 0; k < n->n_parts; k++)
		n->part[k]->pkt_max_flits = flits;
}

/* NETLOOM_TEST_FAIL_ALLOC=N, for tests only (the unit tests' fail_nth):
 * the Nth run-time allocation of each partition this process runs, and
 * every later one, fail, so that one MPI rank runs out of memory alone,
 * at a cycle a test can reproduce (tests/e2e/mpi_engine.sh). Unset or
 * anything but a number from 1 to 4294967295: nothing fails. Read once,
 * when the network is built. The annealing counts its own allocations
 * against the same N (layout/floor.c); both hooks, this and
 * NETLOOM_TEST_FAIL_THREAD (core/thread.h), in docs/scaling.md, "When a
 * thread cannot start". */
static void fl_env_fail_nth(struct flitnet *n)
{
	const uint32_t v = nl_test_env_count("NETLOOM_TEST_FAIL_ALLOC");
	if (!v)
		return;
	for (uint32_t i = 0; i < n->n_own; i++)
		n->part[n->own[i]]->fail_nth = v;
}

/* flitnet_new's phases, in the order it runs them; each returns 0 or a
 * negative error with its message, and the caller frees the half-built
 * network (flitnet_free takes one at any phase). */

static int fl_nomem(const struct flitnet *n, struct nl_err *err)
{
	return nl_errf(err, NL_ENOMEM, "out of memory building the network model (%u routers, %u ports)",
		       n->topo->n_routers, n->topo->n_ports);
}

/* What is refused before anything is allocated. */
static int fl_check_router_cfg(const struct router_cfg *rc, const struct sim_cfg *sc, const struct topo *t,
			       struct nl_err *err)
{
	if (rc->num_vcs > 255)
		return nl_errf(err, NL_ECONFIG, "num_vcs %lld: at most 255", (long long)rc->num_vcs);
	if (topo_max_radix(t) > 65535)
		return nl_errf(err, NL_EUNSUPPORTED, "routers with more than 65535 ports are not supported");
	/* Refusals of keys together, found at the first key's file:line. */
	if (rc->st_prepare_delay + rc->st_final_delay < 1) {
		/* Both are >= 0 (their ranges): name the values and the fix, as
		 * the bare rule left a BookSim user's st_final_delay = 0 to guess. */
		nl_errf(err, NL_ECONFIG,
			"st_prepare_delay (%lld) + st_final_delay (%lld) must be at least 1 cycle; set st_final_delay = 1 "
			"(its default) or st_prepare_delay = 1",
			(long long)rc->st_prepare_delay, (long long)rc->st_final_delay);
		return config_err_file_line_any(sc->cfg, CONFIG_KEYS("st_final_delay", "st_prepare_delay"), err);
	}
	if (rc->input_speedup > rc->num_vcs) {
		nl_errf(err, NL_ECONFIG, "input_speedup %lld exceeds num_vcs %lld (VCs are interleaved over crossbar inputs)",
			(long long)rc->input_speedup, (long long)rc->num_vcs);
		return config_err_file_line_any(sc->cfg, CONFIG_KEYS("input_speedup", "num_vcs"), err);
	}
	uint32_t n_alloc = 0;
	while (alloc_registry[n_alloc])
		n_alloc++;
	if (rc->vc_allocator < 0 || (uint32_t)rc->vc_allocator >= n_alloc || rc->sw_allocator < 0 ||
	    (uint32_t)rc->sw_allocator >= n_alloc)
		return nl_errf(err, NL_ECONFIG, "vc_allocator %d / sw_allocator %d: expected 0..%u", rc->vc_allocator,
			       rc->sw_allocator, n_alloc - 1);
	return 0;
}

/* How the network is split over threads and MPI ranks, and how a refusal
 * that depends on the split says what the user set. */
struct fl_split {
	uint32_t n_threads, n_ranks;
	bool parts_auto;
	char what[64];		/* what the user set, for the refusals */
	const char *key;	/* the key that says it, if one does */
	char auto_threads[96];	/* threads = 0: what it resolved to here */
};

static int fl_plan_split(struct flitnet *n, const struct sim_cfg *sc, struct fl_split *s, struct nl_err *err)
{
	const struct topo *t = n->topo;
	/* Threads run partitions: threads above partitions raise partitions
	 * (a thread without one would idle). */
	s->n_threads = fl_workers_resolve(sc->threads, t->n_routers);
	if (s->n_threads > t->n_routers) {
		const char *at = config_origin(sc->cfg, "threads");
		return nl_errf(err, NL_ECONFIG,
			       "%s%skey 'threads': value '%lld': out of range: expected 0 (automatic) or 1..%u (a router "
			       "at least per thread)",
			       at ? at : "", at ? ": " : "", (long long)sc->threads, t->n_routers);
	}
	/* MPI ranks run partitions too, each its share of threads: at least
	 * that many per rank (results do not depend on the count). */
	s->n_ranks = net_mpi_size(sc->mpi);
	const uint32_t plan_threads = fl_workers_plan(sc->threads, s->n_threads, s->n_ranks, t->n_routers);
	s->parts_auto = n->sc.partitions == 0;
	if (s->parts_auto)
		n->sc.partitions = fl_partitions_auto(plan_threads, s->n_ranks, t->n_routers);
	const bool raise = (int64_t)plan_threads * s->n_ranks > n->sc.partitions;
	if (raise)
		n->sc.partitions = (int64_t)plan_threads * s->n_ranks;
	n->parts_chosen = s->parts_auto || raise;
	s->key = NULL;
	s->auto_threads[0] = '\0';
	if (sc->mpi)
		snprintf(s->what, sizeof s->what, "%u MPI ranks", s->n_ranks);
	else if (s->n_threads > 1)
		s->key = "threads";
	else
		s->key = "partitions";
	if (s->key)
		snprintf(s->what, sizeof s->what, "%s = %lld", s->key,
			 s->n_threads > 1 ? (long long)sc->threads : (long long)n->sc.partitions);
	/* 'threads = 0' was said as 'threads = 2', a value nobody set and
	 * another machine would not pick. */
	if (!sc->mpi && s->n_threads > 1 && sc->threads == 0)
		snprintf(s->auto_threads, sizeof s->auto_threads,
			 "%u threads here: one per %u routers, at most one per processor", s->n_threads,
			 FL_ROUTERS_PER_THREAD);
	return 0;
}

/* The router's shape: VCs, buffers, delays, and which stage paths apply. */
static void fl_set_shape(struct flitnet *n, const struct router_cfg *rc)
{
	const struct topo *t = n->topo;
	n->V = (uint32_t)rc->num_vcs;
	n->cr_compact = ((uint64_t)t->n_ports > t->n_endpoints ? (uint64_t)t->n_ports : t->n_endpoints) * n->V <
			FL_CR_NIC;
	n->v_shift = -1;
	for (int b = 0; b < 8; b++)
		if (n->V == 1u << b)
			n->v_shift = b;
	n->buf = (uint32_t)rc->vc_buf_size;
	n->Xd = (uint32_t)(rc->st_prepare_delay + rc->st_final_delay);
	n->lookahead = rc->routing_delay == 0;
	/* The one-pass path runs each stage's evaluation and update together,
	 * which BookSim's holding stage (evaluated before switch allocation,
	 * updated after it reads the holds) does not allow. */
	n->unit_delays = rc->routing_delay <= 1 && rc->vc_alloc_delay == 1 && rc->sw_alloc_delay == 1 && n->Xd == 1 &&
			 !rc->hold_switch_for_packet;
	n->steps_max = (uint32_t)ceil(rc->internal_speedup);
	/* A whole speedup k: every cycle takes k steps and leaves the credit
	 * at 0, where it starts (fl_jump and fl_idle_cycle keep it there). */
	n->speedup_whole = rc->internal_speedup == floor(rc->internal_speedup);
	n->pool.free_pkt = n->pool.free_run = n->msg.free_msg = FL_NONE;
}

/* The routing function over each traffic class's VCs, and what it needs
 * of the rest of the configuration. */
static int fl_route_setup(struct flitnet *n, const struct net_cfg *nc, const struct router_cfg *rc,
			  const struct sim_cfg *sc, const struct fl_split *s, struct nl_err *err)
{
	int rc_;
	/* Traffic classes: each class owns V / C contiguous VCs of every port
	 * and the routing function is instantiated over that many, so its VC
	 * rules (datelines, escape VCs) hold within each class; the engine
	 * shifts its ranges into the packet's class (router.c, nic.c). */
	n->n_cls = (uint32_t)rc->traffic_classes;
	if (n->n_cls < 1 || n->V % n->n_cls) {
		nl_errf(err, NL_ECONFIG,
			"[router] traffic_classes = %u: num_vcs (%lld) must be a multiple of it (equal VC ranges per class)",
			n->n_cls, (long long)rc->num_vcs);
		return config_err_file_line_any(sc->cfg, CONFIG_KEYS("traffic_classes", "num_vcs"), err);
	}
	n->cls_w = n->V / n->n_cls;
	/* A refused VC count starts with where num_vcs was set; with traffic
	 * classes, where traffic_classes was, before what it left per class. */
	const struct route_origin route_at = {.vcs = n->n_cls > 1 ? NULL : config_origin(sc->cfg, "num_vcs"),
					      .spec_cfg = sc->cfg};
	rc_ = route_new_origin(nc->routing_function, n->topo, n->cls_w, &route_at, &n->route, err);
	if (rc_ < 0 && n->n_cls > 1) { /* its "got N" counts one class's VCs */
		const char *at = config_origin(sc->cfg, "traffic_classes");
		nl_err_prefix(err, "%s%s[router] traffic_classes = %u leaves num_vcs / %u = %u VC%s per class",
			      at ? at : "", at ? ": " : "", n->n_cls, n->n_cls, n->cls_w, n->cls_w == 1 ? "" : "s");
	}
	if (rc_ < 0)
		return rc_;
	/* The live global view needs the network in one partition: the
	 * automatic count gives it that on one thread and one rank. */
	if ((n->route->views & ROUTE_VIEW_GLOBAL) && s->parts_auto && s->n_threads == 1 && s->n_ranks == 1)
		n->sc.partitions = 1;
	/* Found where routing_function was set, and the key that split the
	 * network named where it was set beside its value: the first of the
	 * keys set named a line that may be right ("partitions = 1" in the
	 * file when -s threads = 2 split the network). */
	if ((n->route->views & ROUTE_VIEW_GLOBAL) && (n->sc.partitions > 1 || sc->mpi)) {
		const char *rf_at = config_place(sc->cfg, "routing_function");
		const char *parts_at = s->key ? config_place(sc->cfg, s->key) : NULL;
		if (parts_at && rf_at && !strcmp(parts_at, rf_at))
			parts_at = NULL; /* both -s: said once, in front */
		const char *note = s->auto_threads;
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' reads the live global congestion view, which %s%s%s%s%s%s%s "
			"cannot give (other partitions' channels change meanwhile); expected partitions = 1 and threads = 1%s",
			n->route->spec, s->what, parts_at || *note ? " (" : "", parts_at ? "from " : "",
			parts_at ? parts_at : "", parts_at && *note ? "; " : "", note, parts_at || *note ? ")" : "",
			sc->mpi ? ", without mpirun" : "");
		config_err_file_line(sc->cfg, "routing_function", err);
		return rc_;
	}
	/* The refusals below of keys together are found at the file:line of
	 * the first key listed that was set, the one they expect changed first. */
	if (n->route->needs_pend && !rc->sequential_allocation) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' counts the flits routed to each port and not yet sent, which needs [router] sequential_allocation = 1, got 0",
			n->route->spec);
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("sequential_allocation", "routing_function"), err);
		return rc_;
	}
	if (n->route->needs_vct && nc->flow_control != FL_VCT) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' lets a packet leave its escape VC for adaptive VCs and come back, deadlock-free only when a blocked packet holds one buffer (Duato 1996); expected flow_control = vct, got wormhole",
			n->route->spec);
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("flow_control", "routing_function"), err);
		return rc_;
	}
	if (n->route->needs_atomic_vcs && !rc->wait_for_tail_credit) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' needs wait_for_tail_credit = 1 (an output VC reused only once its downstream buffer is empty, else a head behind another packet in an adaptive VC cannot reach its escape VC: Duato 1995), got 0",
			n->route->spec);
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("wait_for_tail_credit", "routing_function"), err);
		return rc_;
	}
	/* Its candidate priorities are the algorithm (route.h,
	 * needs_priority_alloc): an allocator that ignores them takes a
	 * deroute or an escape VC as readily as a free minimal port. */
	if (n->route->ops->needs_priority_alloc && !n->va_ops->by_priority) {
		char ok[128] = "";
		for (uint32_t k = 0; alloc_registry[k]; k++)
			if (alloc_registry[k]->by_priority)
				snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? " or " : "",
					 alloc_registry[k]->name);
		/* Found at vc_allocator's place, else routing_function's, as the
		 * refusals above; a place in front is not said again. */
		const char *at = config_origin(sc->cfg, "vc_allocator");
		const bool at_front = config_place(sc->cfg, "vc_allocator") != NULL;
		rc_ = nl_errf(err, NL_ECONFIG,
			"routing_function '%s' takes a deroute, a blocked port or its escape VCs only when no higher-priority candidate has a free VC, which only a by-priority VC allocator does; expected vc_allocator = %s, got %s%s%s%s",
			n->route->spec, ok, n->va_ops->name, at_front ? "" : at ? " (from " : " (the default",
			at_front || !at ? "" : at, at_front ? "" : ")");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("vc_allocator", "routing_function"), err);
		return rc_;
	}
	/* lookahead_decide = upstream reads the downstream router's state from
	 * the upstream one (router.c, fl_la_decide; with partitions, at the
	 * exchange): no VOQ, whose rotations route a packet again at the same
	 * router. */
	n->la_upstream = n->lookahead && rc->lookahead_decide == 1;
	if (n->la_upstream && rc->voq) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"[router] lookahead_decide = upstream with voq = 1: a VOQ rotation routes a packet again where it is; expected voq = 0 or lookahead_decide = arrival");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("voq", "lookahead_decide"), err);
		return rc_;
	}
	/* Sequential allocation counts a packet at the router that routes it,
	 * as it is routed: a decision made upstream, or a VOQ rotation that
	 * routes a packet again where it is, would count it elsewhere or
	 * twice. */
	if (rc->sequential_allocation && n->la_upstream) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"[router] sequential_allocation = 1 with lookahead_decide = upstream: a decision made at the router before cannot see this router's order of decisions; expected lookahead_decide = arrival");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("lookahead_decide", "sequential_allocation"), err);
		return rc_;
	}
	if (rc->sequential_allocation && rc->voq) {
		rc_ = nl_errf(err, NL_ECONFIG,
			"[router] sequential_allocation = 1 with voq = 1: a VOQ rotation routes a packet again where it is; expected voq = 0");
		config_err_file_line_any(sc->cfg, CONFIG_KEYS("voq", "sequential_allocation"), err);
		return rc_;
	}
	/* A switch winner leaves the crossbar at the router's next step:
	 * its output queue can take it at once, as at that step, unless a
	 * routing function reads the output queue (ROUTE_VIEW_OQ), which
	 * would see it a step early. Steps of a cycle are consecutive
	 * (fl_cycle), and with internal_speedup >= 1 every cycle has one, so
	 * the next step is in this cycle or at the next (n->xb_at). */
	n->direct_xbar = n->unit_delays && (rc->internal_speedup == 1.0 || !(n->route->views & ROUTE_VIEW_OQ));
	/* A function whose per-hop step reads neither router state nor random
	 * numbers (route.h, hop_pure) gives the same candidates decided
	 * upstream or on arrival, so the upstream bookkeeping is skipped (8%
	 * of the instructions on BookSim's dragonfly with group_min). */
	if (n->la_upstream && n->route->hop_pure)
		n->la_upstream = false;
	n->snap_next = n->route->snapshot_period && n->route->ops->snapshot ? 0 : UINT64_MAX;
	/* Under MPI, lookahead_decide = upstream is decided by the rank of the
	 * next router, at one-cycle windows (mpi_upstream.c, mx_la_*). */
	if (n->la_upstream)
		n->pool.la_w = n->route->max_cands;
	return 0;
}

/* The per-router, per-port, per-VC and per-endpoint arrays. */
static int fl_alloc_state(struct flitnet *n, const struct router_cfg *rc, const struct sim_cfg *sc, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t V = n->V, R = t->n_routers, P = t->n_ports, E = t->n_endpoints;
	const uint64_t IV = (uint64_t)P * V;
	if (IV > UINT32_MAX / 2)
		return nl_errf(err, NL_ERANGE, "%u ports x %u VCs is more than supported", P, V);
	n->cand_cap = ROUTE_MAX_CANDS;

	/* Under MPI a snapshot reads every rank's output VCs: their counts
	 * summed over the ranks into this copy (fl_route_snapshot). */
	if (sc->mpi && n->snap_next == 0)
		FL_CALLOC(n->snap_occ, IV);
	FL_CALLOC(n->routers, R);
	FL_CALLOC(n->ports, P);
	FL_CALLOC(n->ivc, IV);
	FL_CALLOC(n->ovc, IV);
	/* Only speedups let two flits leave one input in a step: group credits. */
	if (rc->internal_speedup > 1.0 || rc->input_speedup > 1) {
		FL_CALLOC(n->cred_step, P);
		FL_CALLOC(n->cred_cycle, P);
	}
	FL_CALLOC(n->va_gptr, IV);
	FL_CALLOC(n->va_aptr, IV);
	FL_CALLOC(n->sw_gptr, (uint64_t)P * (uint64_t)rc->output_speedup);
	FL_CALLOC(n->sw_aptr, (uint64_t)P * (uint64_t)rc->input_speedup);
	FL_CALLOC(n->sw_rr, (uint64_t)P * (uint64_t)rc->input_speedup);
	FL_CALLOC(n->nics, E);
	FL_CALLOC(n->ep_router, E);
	for (uint32_t e = 0; e < E; e++)
		n->ep_router[e] = topo_ep_router(t, e);
	FL_CALLOC(n->nic_occ, (uint64_t)E * V);
	FL_CALLOC(n->nic_busy, (uint64_t)E * V);
	FL_CALLOC(n->nic_parked, E);
	FL_CALLOC(n->gen_heap, E);
	FL_CALLOC(n->gen_next, E);
	FL_CALLOC(n->cal_head, FL_CAL_SLOTS);
	n->cal_reach = FL_CAL_SLOTS;
	fl_gen_calendar_clear(n);
	n->act_words = (R + 63) / 64;
	FL_CALLOC(n->act_r, n->act_words);
	FL_CALLOC(n->act_r_next, n->act_words);
	FL_CALLOC(n->act_e, E);
	FL_CALLOC(n->act_e_next, E);
	if (rc->sequential_allocation)
		FL_CALLOC(n->pend, P);
	if (n->route->port_sums) /* route.h */
		FL_CALLOC(n->pocc, P);
	/* A VC index's port or endpoint without a division (fl_div_v) while
	 * every VC index fits 32 bits. */
	if (n->v_shift < 0 && ((uint64_t)P > E ? (uint64_t)P : E) * V <= UINT32_MAX)
		n->v_div = UINT64_MAX / V + 1;
	/* The adaptive sums (route.asum_vcs) while they fit their 16 bits,
	 * with one class (classes shift the function's VCs). */
	if (n->route->asum_vcs && n->route->asum_vcs <= V && n->route->asum_vcs < 256 && n->n_cls == 1 &&
	    (uint64_t)n->route->asum_vcs * n->buf < 65536) {
		n->asum_vcs = n->route->asum_vcs;
		n->asum_full = n->route->asum_full;
		/* 8 words more: dal's deroute scan reads a dimension's 8
		 * words at once (dal_scan_key8), past the last port of the
		 * last router's last dimension. */
		FL_CALLOC(n->asum, (uint64_t)P + 8);
		for (uint32_t g = 0; g < P; g++)
			n->asum[g] = route_asum_base(n->asum_vcs);
	}
	FL_CALLOC(n->va_wait, P);

	/* Route candidates are kept per input VC while it waits for a VC, as
	 * many as the algorithm says it returns: scales with ports x VCs. */
	n->cand_cap = n->route->max_cands;
	if (n->cand_cap > 1)
		FL_CALLOC(n->iv_cand, IV * n->cand_cap);
	/* Heads that win a switch in a cycle: one per crossbar output and step. */
	if (n->la_upstream) {
		n->cap_la_pend = P * (uint32_t)rc->output_speedup * (uint32_t)ceil(rc->internal_speedup);
		FL_CALLOC(n->la_pend, n->cap_la_pend);
	}
	return 0;
nomem:
	return fl_nomem(n, err);
}

/* Each router's port and VC ranges, its crossbar ring and its random
 * stream; *max_ports gets the largest router's port count. */
static int fl_routers_init(struct flitnet *n, const struct router_cfg *rc, const struct sim_cfg *sc,
			   uint32_t *max_ports, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t V = n->V;
	/* The crossbar ring holds what the switch can grant per step (one
	 * flit per crossbar output) for as many steps as a flit stays in it. */
	uint64_t xq_total = 0;
	uint32_t steps = (uint32_t)ceil(rc->internal_speedup);
	*max_ports = 0;
	for (uint32_t r = 0; r < t->n_routers; r++) {
		struct fl_router *ro = &n->routers[r];
		ro->port_base = t->port_base[r];
		ro->vc_base = t->port_base[r] * V;
		ro->n_ports = (uint16_t)topo_router_ports(t, r);
		if ((uint32_t)ro->n_ports * V > 32768)
			return nl_errf(err, NL_ERANGE, "router %u: %u ports x %u VCs exceeds 32768", r, ro->n_ports, V);
		ro->route_q.head = ro->va_q.head = ro->sa_q.head = FL_NONE16;
		ro->arr_route = FL_ARR_UNSET;
		uint32_t lanes = (uint32_t)(rc->input_speedup < rc->output_speedup ? rc->input_speedup : rc->output_speedup);
		uint32_t xneed = ro->n_ports * lanes * steps * (n->Xd + 1), xcap = 1;
		/* BookSim's multi-cycle crossbar serves one flit at a time, so
		 * granted flits can pile up to the credits of the outputs. */
		if (n->Xd > 1 && !rc->pipelined_stages)
			xneed = ro->n_ports * V * n->buf + ro->n_ports;
		while (xcap < xneed)
			xcap <<= 1;
		if (xcap > 32768)
			return nl_errf(err, NL_ERANGE, "router %u: crossbar pipeline of %u flits exceeds 32768", r, xneed);
		ro->xq_cap = (uint16_t)xcap;
		ro->xq_off = (uint32_t)xq_total;
		xq_total += xcap;
		if (ro->n_ports > *max_ports)
			*max_ports = ro->n_ports;
		rng_init(&ro->rng, (uint64_t)sc->seed, RNG_CLASS_ROUTER, r);
	}
	FL_CALLOC(n->xitems, xq_total);
	return 0;
nomem:
	return fl_nomem(n, err);
}

/* Every port's link: where it leads and its latency in cycles. */
static int fl_links_init(struct flitnet *n, const struct net_cfg *nc, const struct sim_cfg *sc, struct nl_err *err)
{
	const struct topo *t = n->topo;
	const uint32_t P = t->n_ports;
	/* Per-link latency by the topology's link classes (issue 11 part 1):
	 * BookSim2 gives every channel its own latency (1 for injection and
	 * ejection, 10/100 for the dragonfly's local/global channels). */
	uint16_t class_lat[TOPO_N_LINK_CLASSES];
	int rc_ = fl_class_latencies(nc, t, sc->cfg, class_lat, err);
	/* noc_latency = 1 (issue 11 part 7): router channels as long as BookSim2's
	 * flatfly lays them out on chip (flatfly_onchip.cpp); read only then. */
	uint16_t *noc_lat = NULL;
	/* A family whose channels each have their own latency (anynet's file,
	 * TOPO_F_LINK_LATENCY) always gives them; the class keys cannot. */
	bool own_lat = (t->ops->flags & TOPO_F_LINK_LATENCY) != 0;
	if (rc_ == 0 && own_lat && (nc->channel_latency != 1 || nc->terminal_latency > 1)) {
		const char *key = nc->channel_latency != 1 ? "channel_latency" : "terminal_latency";
		nl_errf(err, NL_ECONFIG, "key '%s': value '%lld': topology '%s' takes every channel's latency from its file; "
					 "expected %s",
			key, (long long)(nc->channel_latency != 1 ? nc->channel_latency : nc->terminal_latency),
			t->ops->name, nc->channel_latency != 1 ? "1 (unset)" : "0 or 1 (unset)");
		rc_ = config_err_file_line(sc->cfg, key, err);
	}
	if (rc_ == 0 && nc->noc_latency && !t->ops->link_latency) {
		nl_errf(err, NL_ECONFIG, "key 'noc_latency': value '1': topology '%s' has no on-chip layout; "
					 "expected 0, or a flatfly or hyperx topology (BookSim's flatfly)", t->ops->name);
		rc_ = config_err_file_line(sc->cfg, "noc_latency", err);
	} else if (rc_ == 0 && (nc->noc_latency || own_lat) && !(noc_lat = calloc(P ? P : 1, sizeof *noc_lat)))
		return fl_nomem(n, err);
	else if (noc_lat)
		rc_ = t->ops->link_latency(t, noc_lat, err);
	/* The topology refuses noc_latency's grid (not square, too many
	 * terminals): say where the key was set, as the refusal above does. */
	if (rc_ < 0 && noc_lat && nc->noc_latency && rc_ != NL_ENOMEM)
		rc_ = config_err_file_line(sc->cfg, "noc_latency", err);
	if (rc_ < 0) {
		free(noc_lat);
		return rc_;
	}
	for (uint32_t g = 0; g < P; g++) {
		struct fl_link *l = &n->ports[g].link;
		uint32_t peer = t->peer[g];
		l->network = topo_port_is_network(t, g);
		l->lat = class_lat[topo_link_class(t, g)];
		if (noc_lat && noc_lat[g])
			l->lat = noc_lat[g];
		if (l->lat > n->max_lat)
			n->max_lat = l->lat;
		if (peer == TOPO_NONE) {
			l->target = FL_NONE;
		} else if (peer & TOPO_EP_BIT) {
			l->target = peer & ~TOPO_EP_BIT;
			l->to = l->target;
			l->flit_kind = EV_FLIT_NIC;
			l->credit_kind = EV_CREDIT_NIC;
		} else {
			l->target = t->port_router[peer];
			l->to = peer;
			l->flit_kind = EV_FLIT_ROUTER;
			l->credit_kind = EV_CREDIT_ROUTER;
		}
	}
	free(noc_lat);
	if (fl_cred_lat(n) < 0 || fl_wheel_size(n) < 0)
		return fl_nomem(n, err);
	return 0;
}

/* The entries of the routers and endpoints this process runs: under MPI
 * a rank sets its own alone, and the rest of those arrays stays
 * untouched, never resident pages (fl_calloc_lines; the port links and
 * the routers' records are every rank's: the partitioning, the windows
 * and the deadlock checks read them). */
static void fl_local_init(struct flitnet *n, const struct sim_cfg *sc)
{
	const uint32_t V = n->V;
	for (uint32_t r = 0; r < n->topo->n_routers; r++) {
		if (!fl_router_local(n, r))
			continue;
		const struct fl_router *ro = &n->routers[r];
		for (uint64_t i = ro->vc_base; i < ro->vc_base + (uint64_t)ro->n_ports * V; i++) {
			n->ivc[i].head = n->ivc[i].tail = FL_NONE;
			n->ovc[i].owner = FL_NONE;
		}
		for (uint32_t g = ro->port_base; g < ro->port_base + ro->n_ports; g++)
			n->va_wait[g] = FL_NONE16;
	}
	for (uint32_t e = 0; e < n->topo->n_endpoints; e++) {
		if (!fl_ep_local(n, e))
			continue;
		struct fl_nic *c = &n->nics[e];
		c->next_gen = UINT64_MAX;
		c->cur_pkt = FL_NONE;
		c->q_head = c->q_tail = FL_NONE;
		c->cur_vc = 0xff;
		c->last_vc = 0;
		rng_init(&c->rng, (uint64_t)sc->seed, RNG_CLASS_ENDPOINT, e);
		n->gen_next[e] = FL_GEN_OUT;
	}
}

/* Allocator scratch, sized for the largest allocator: the VC allocator
 * of the largest router (ports x VCs on each side). */
static int fl_scratch_init(struct flitnet *n, const struct router_cfg *rc, uint32_t max_ports, struct nl_err *err)
{
	const uint32_t V = n->V;
	uint32_t side = max_ports * V;
	uint32_t sw_side = max_ports * (uint32_t)(rc->input_speedup > rc->output_speedup ? rc->input_speedup
											  : rc->output_speedup);
	if (sw_side > side)
		side = sw_side;
	n->scratch_ports = side;
	n->areq_cap = side * ROUTE_MAX_CANDS * V + side;
	FL_CALLOC(n->areq, n->areq_cap);
	FL_CALLOC(n->best_out, side);
	FL_CALLOC(n->best_in, side);
	FL_CALLOC(n->in_match, side);
	FL_CALLOC(n->out_match, side);
	FL_CALLOC(n->grant, side);
	FL_CALLOC(n->ev_li, side);
	FL_CALLOC(n->arb_used, side);
	FL_CALLOC(n->port_req, side);
	FL_CALLOC(n->port_gen, side);
	FL_CALLOC(n->va_defer, side);
	for (uint32_t i = 0; i < side; i++)
		n->best_out[i] = n->best_in[i] = n->in_match[i] = n->out_match[i] = n->grant[i] = -1;
	if (stats_hist_init(&n->obs.plat) < 0 || stats_hist_init(&n->obs.nlat) < 0 || stats_hist_init(&n->obs.hops) < 0)
		goto nomem;
	return 0;
nomem:
	return fl_nomem(n, err);
}

/* The optional stages (deadlock checks, holding, VOQ) and which of the
 * router's faster paths this configuration allows. */
static int fl_stages_init(struct flitnet *n, const struct router_cfg *rc, uint32_t max_ports, struct nl_err *err)
{
	n->reverse_visits = n->sc.visit_order == 1;
	fl_obs_phase(&n->obs, PH_WARMUP);
	int rc_ = fl_dl_init(n, err);
	if (rc_ == 0 && rc->hold_switch_for_packet)
		rc_ = fl_hold_init(n, err);
	if (rc_ == 0 && rc->voq)
		rc_ = fl_voq_init(n, err);
	/* A head whose candidates have no free output VC waits for one to be
	 * freed instead of being evaluated every step (router.c, fl_va_park):
	 * with unit delays, no VOQ rotation, no holding stage and no escape
	 * room test, being free is all a VC needs, and only a tail leaving
	 * (or its credit returning) frees one. A woken head rejoins the VC
	 * queue at its end, not where retrying would have kept it; the queue's
	 * order reaches the switch stage's order, and through it the order in
	 * which heads behind departing tails compute their routes. That order
	 * draws the router's random numbers for a function that draws when it
	 * routes (nca, valiant, dor's k/2 tie, ...), so parking needs routes
	 * that draw nothing when computed (hop_pure) or that were decided
	 * upstream, in an order of their own (lookahead_decide = upstream),
	 * or whose draws are keyed to the computation, not to the order
	 * (route.h, keyed_draws) and that read nothing a computation before
	 * them changes (sequential_allocation's counts would be). */
	n->va_park = n->unit_delays && !rc->voq && !rc->hold_switch_for_packet && !n->route->va_room &&
		     (n->route->hop_pure || n->la_upstream || (n->route->keyed_draws && !n->pend));
	/* Where a freed VC wakes only the first of the heads parked asking
	 * for it alone (router.c, fl_router_va_wake), those heads wait as
	 * bits, so the first is found without walking a list. */
	n->va_wake_one = !n->va_ops->by_priority || n->va_ops->input_single_request;
	if (n->va_park && n->va_wake_one && max_ports * n->V <= 64)
		FL_CALLOC(n->va_wmask, (uint64_t)n->topo->n_ports * n->V);
	n->va_split = !n->va_ops->by_priority && !n->route->va_room; /* router.c, fl_va_port_mark */
	/* fl_cycle's per-router arrivals (fl_slot_arrival_lists). */
	n->local_arrivals_ok =
		!(n->route->views & ROUTE_VIEW_GLOBAL) && !rc->wait_for_tail_credit && !n->reverse_visits;
	fl_cf_layout(n, fl_msg_packet_flits(n)); /* fl_compact, and local_arrivals with it */
	n->pkt_max_flits = 1; /* grown as packet sizes are known (fl_pkt_max_grow) */
	/* router.c's stage loops drop the tests of what is off here. */
	n->plain = !n->la_upstream && !n->voq && !n->hold && !n->pend && !n->pocc && !n->cred_lat && n->n_cls == 1 &&
		   !rc->wait_for_tail_credit && rc->input_speedup == 1 && rc->output_speedup == 1;
	return rc_;
nomem:
	return fl_nomem(n, err);
}

int flitnet_new(const struct net_cfg *nc, const struct router_cfg *rc, const struct sim_cfg *sc,
		const struct topo *t, struct flitnet **out, struct nl_err *err)
{
	*out = NULL;
	int rc_ = fl_check_router_cfg(rc, sc, t, err);
	if (rc_ < 0)
		return rc_;
	struct flitnet *n = calloc(1, sizeof *n);
	if (!n)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	n->va_ops = alloc_registry[rc->vc_allocator];
	n->sa_ops = alloc_registry[rc->sw_allocator];
	n->topo = t;
	n->nc = *nc;
	n->rc = *rc;
	n->sc = *sc;
	struct fl_split split;
	uint32_t max_ports = 0;
	rc_ = fl_plan_split(n, sc, &split, err);
	if (rc_ == 0) {
		fl_set_shape(n, rc);
		rc_ = fl_route_setup(n, nc, rc, sc, &split, err);
	}
	if (rc_ == 0)
		rc_ = fl_alloc_state(n, rc, sc, err);
	if (rc_ == 0)
		rc_ = fl_routers_init(n, rc, sc, &max_ports, err);
	if (rc_ == 0)
		rc_ = fl_links_init(n, nc, sc, err);
	/* Which routers and endpoints this process runs, before anything is
	 * written per VC or endpoint (fl_local_init). */
	if (rc_ == 0)
		rc_ = fl_part_plan(n, (uint32_t)n->sc.partitions, err);
	if (rc_ == 0) {
		fl_local_init(n, sc);
		rc_ = fl_scratch_init(n, rc, max_ports, err);
	}
	if (rc_ == 0)
		rc_ = fl_stages_init(n, rc, max_ports, err);
	if (rc_ == 0)
		rc_ = fl_part_build(n, (uint32_t)n->sc.partitions, err);
	if (rc_ == 0 && n->mx)
		fl_mpi_plan(n);
	if (rc_ == 0)
		fl_env_fail_nth(n);
	/* A rank may run fewer partitions than threads (partitions set below
	 * threads x ranks): one thread per partition at most. */
	uint32_t n_threads = split.n_threads;
	if (rc_ == 0 && n_threads > n->n_own)
		n_threads = n->n_own;
	if (rc_ == 0 && n_threads > 1)
		rc_ = fl_workers_start(n, n_threads, err);
	if (rc_ < 0) {
		flitnet_free(n);
		return rc_;
	}
	*out = n;
	return 0;
}

int fl_add_link_latency(struct flitnet *n, const uint64_t *cycles, struct nl_err *err)
{
	const struct topo *t = n->topo;
	if (n->now || fl_events_total(n) || n->flits_in_net)
		return nl_errf(err, NL_ESTATE, "per-link latency: set at cycle %" PRIu64 " with traffic in flight; "
					       "expected before the first message", n->now);
	for (uint32_t g = 0; g < t->n_ports; g++) {
		const struct fl_link *l = &n->ports[g].link;
		if (l->network && l->lat + cycles[g] > 65535)
			return nl_errf(err, NL_ERANGE,
				       "router %u port %u: channel of %" PRIu64 " cycles; expected at most 65535 "
				       "(a longer cycle_ps, or shorter cables)",
				       t->port_router[g], g - t->port_base[t->port_router[g]], l->lat + cycles[g]);
	}
	uint32_t max_lat = 0;
	for (uint32_t g = 0; g < t->n_ports; g++) {
		struct fl_link *l = &n->ports[g].link;
		if (l->network)
			l->lat = (uint16_t)(l->lat + cycles[g]);
		if (l->lat > max_lat)
			max_lat = l->lat;
	}
	if (fl_cred_lat(n) < 0)
		return nl_errf(err, NL_ENOMEM, "out of memory for credit latencies");
	for (uint32_t k = 0; k < n->n_parts; k++) {
		n->part[k]->cred_lat = n->cred_lat;
		n->part[k]->plain &= n->cred_lat == NULL; /* router.c reads cred_lat off the plain path only */
	}
	n->plain &= n->cred_lat == NULL;
	/* Every partition's wheel follows the longest link; they are empty. */
	for (uint32_t k = 0; k < n->n_parts; k++) {
		struct flitnet *p = n->part[k];
		fl_wheel_free(p);
		p->max_lat = max_lat;
		if (fl_wheel_size(p) < 0)
			return nl_errf(err, NL_ENOMEM, "out of memory for the timing wheel of %u-cycle channels", max_lat);
	}
	if (n->mx)
		fl_mpi_plan(n); /* the windows follow the links between ranks */
	fl_dl_setup(n, fl_msg_packet_flits(n));
	return 0;
}

void flitnet_set_class_rule(struct flitnet *n, int rule)
{
	n->synth.class_rule = rule;
}

int flitnet_set_traffic(struct flitnet *n, struct traffic *tr, double rate, uint32_t size_lo,
			uint32_t size_hi, struct nl_err *err)
{
	if (size_lo < 1 || size_hi < size_lo || size_hi > 65535)
		return nl_errf(err, NL_ECONFIG, "packet_size %u..%u: expected 1 <= lo <= hi <= 65535", size_lo,
			       size_hi);
	fl_parts_wake_all(n); /* their sources change */
	if (size_hi > n->cf_max_flits) {
		/* The compact flit's index field grows (fl_cf_layout) before
		 * anything is in flight, in every partition alike. */
		for (uint32_t k = 0; k < n->n_parts; k++)
			if (n->part[k]->n_events)
				return nl_errf(err, NL_ESTATE, "packet_size %u: set while flits are in flight", size_hi);
		for (uint32_t k = 0; k < n->n_parts; k++)
			fl_cf_layout(n->part[k], size_hi);
	}
	fl_pkt_max_grow(n, size_hi);
	n->synth.traffic = tr;
	n->synth.size_lo = size_lo;
	n->synth.size_hi = size_hi;
	double mean_size = (size_lo + size_hi) / 2.0;
	n->synth.pkt_rate = rate / mean_size;
	n->synth.pkt_rate_l = n->synth.pkt_rate > 0 && n->synth.pkt_rate < 1.0 ? log1p(-n->synth.pkt_rate) : 0.0;
	fl_dl_setup(n, size_hi);
	if (n->synth.pkt_rate > 1.0)
		return nl_errf(err, NL_ECONFIG,
			       "injection_rate %g flits/cycle with mean packet size %g is more than one packet per cycle",
			       rate, mean_size);
	/* Under MPI a rank runs its own sources only (their draws are
	 * theirs: another rank's next_gen is never read here). */
	for (uint32_t e = 0; e < n->topo->n_endpoints; e++) {
		if (!fl_ep_local(n, e))
			continue;
		struct fl_nic *c = &n->nics[e];
		if (!traffic_is_active(tr, e) || n->synth.pkt_rate <= 0) {
			c->next_gen = UINT64_MAX;
			continue;
		}
		c->next_gen = n->now + rng_geometric_l(&c->rng, n->synth.pkt_rate, n->synth.pkt_rate_l);
		fl_gen_push(fl_part_of_router(n, topo_ep_router(n->topo, e)), e);
	}
	return 0;
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

/* Partition n has nothing to do in the coming cycle: no router or
 * endpoint to step, now or swapped in at its end, no event due, no source
 * due, no lookahead decision pending. Then its fl_cycle would only move
 * its clock and its speedup credit (fl_idle_cycle). */
static bool fl_part_idle(const struct flitnet *n)
{
	const uint64_t t = n->now;
	return !(n->n_act_r | n->n_act_r_next | n->n_act_e | n->n_act_e_next | n->n_la_pend) &&
	       !n->wheel[t & n->wheel_mask].n && fl_gen_top(n) > t && !n->oom;
}

/* fl_cycle of an idle partition (fl_part_idle): the same clock and the
 * same speedup credit, by the same arithmetic. Sources not yet due stay
 * in the heap until a cycle that runs takes them, as after a jump. */
static void fl_idle_cycle(struct flitnet *n)
{
	n->speedup_acc += n->rc.internal_speedup;
	while (n->speedup_acc >= 1.0)
		n->speedup_acc -= 1.0;
	fl_set_now(n, n->now + 1);
}

void fl_part_wake(struct flitnet *n, uint32_t k)
{
	fl_set_now(n->part[k], n->now);
	n->awake[k >> 6] |= 1ULL << (k & 63);
	if (n->wake[k] == n->wake_min)
		n->wake_stale = true;
}

void fl_parts_wake_all(struct flitnet *n)
{
	if (n->n_parts < 2)
		return;
	for (uint32_t i = 0; i < n->n_own; i++)
		if (fl_part_asleep(n, n->own[i]))
			fl_part_wake(n, n->own[i]);
	n->wake_min = UINT64_MAX;
	n->wake_stale = false;
}

/* The earliest cycle a sleeping partition is due at, UINT64_MAX for none. */
static uint64_t fl_wake_min_scan(const struct flitnet *n)
{
	if (!n->wake_stale)
		return n->wake_min;
	uint64_t m = UINT64_MAX;
	for (uint32_t i = 0; i < n->n_own; i++) {
		const uint32_t k = n->own[i];
		if (fl_part_asleep(n, k) && n->wake[k] < m)
			m = n->wake[k];
	}
	return m;
}

static uint64_t fl_wake_min(struct flitnet *n)
{
	n->wake_min = fl_wake_min_scan(n);
	n->wake_stale = false;
	return n->wake_min;
}

/* Wake the sleeping partitions due by now. */
static void fl_parts_wake_due(struct flitnet *n)
{
	for (uint32_t i = 0; i < n->n_own; i++) {
		const uint32_t k = n->own[i];
		if (fl_part_asleep(n, k) && n->wake[k] <= n->now)
			fl_part_wake(n, k);
	}
	n->wake_stale = true;
}

/* Before a cycle on one thread: partition k's pools get their room, or it
 * sits the cycle out (fl_part_idle). With `sleep`, a partition other than
 * the root goes further: it sleeps until its next work (fl_part_next_work)
 * and no cycle touches it, its clock left behind, until that cycle comes
 * or a merge or a send brings it work (part.c, fl_part_list_inbound;
 * backend_flit.c), which wakes it at the clock its idle cycles would have
 * reached. That needs a whole internal speedup: the credit then stays 0
 * through idle cycles, so a sleeping partition's cycles would change
 * nothing but its clock. The cycle's loops then visit the awake
 * partitions only: a replay of 16 ranks on torus:k=64x64 (16 automatic
 * partitions, one of them busy) took 1.57x the CPU time of one partition
 * when they stepped every partition at every cycle. */
static int fl_part_prepare(struct flitnet *n, uint32_t k, bool skip_idle, bool sleep, struct nl_err *err)
{
	struct flitnet *p = n->part[k];
	const bool idle = skip_idle && !n->oom && fl_part_idle(p);
	p->idle_now = idle;
	if (idle && sleep && k) {
		const uint64_t w = fl_part_next_work(p);
		n->wake[k] = w;
		n->awake[k >> 6] &= ~(1ULL << (k & 63));
		if (!n->wake_stale && w < n->wake_min)
			n->wake_min = w;
		return 0;
	}
	return idle ? 0 : fl_reserve(p, err);
}

uint64_t fl_part_next_work(const struct flitnet *n)
{
	if (n->n_act_r || n->n_act_e)
		return n->now;
	uint64_t next = fl_gen_top(n);
	if (n->n_events) {
		for (uint64_t c = n->now; c <= n->now + n->wheel_mask; c++)
			if (n->wheel[c & n->wheel_mask].n) {
				if (c < next)
					next = c;
				break;
			}
		if (n->n_far && n->far[0].cycle < next)
			next = n->far[0].cycle;
	}
	return next;
}

uint64_t fl_part_last_event(const struct flitnet *n)
{
	if (!n->n_events)
		return 0;
	/* A far event is due at now + wheel_mask or later (fl_set_now moves
	 * nearer ones into the wheel), after every wheel event. */
	uint64_t last = 0;
	for (uint64_t i = 0; i < n->n_far; i++)
		if (n->far[i].cycle > last)
			last = n->far[i].cycle;
	if (last)
		return last;
	for (uint64_t k = 1; k <= n->wheel_mask; k++) {
		const uint64_t c = n->now + n->wheel_mask - k;
		if (n->wheel[c & n->wheel_mask].n)
			return c;
	}
	return 0;
}

uint64_t fl_next_work(const struct flitnet *n)
{
	if (n->n_parts == 1)
		return fl_part_next_work(n);
	uint64_t next = fl_wake_min_scan(n);
	FL_FOR_AWAKE(n, k) {
		const uint64_t c = fl_part_next_work(n->part[k]);
		if (c < next)
			next = c;
		if (next <= n->now)
			break;
	}
	return next;
}

uint64_t fl_next_work_all(const struct flitnet *n)
{
	return n->mx ? fl_mpi_next_work(n) : fl_next_work(n);
}

/* Move every partition's clock to cycle t (idle time: no work before t). */
static inline void fl_jump(struct flitnet *n, uint64_t t)
{
	double jumped = (double)(t - n->now);
	for (uint32_t k = 0; k < n->n_parts; k++) {
		struct flitnet *p = n->part[k];
		p->speedup_acc += jumped * p->rc.internal_speedup;
		p->speedup_acc -= floor(p->speedup_acc);
		fl_set_now(p, t);
	}
}

void fl_clock_jump(struct flitnet *n, uint64_t t)
{
	fl_jump(n, t);
}

/* check_interval -1: conservation checks in debug builds (DESIGN §9),
 * every 1024 cycles, or on a large network every (output VCs / 4)
 * cycles. A check reads every output VC and walks the events, so at a
 * fixed 1024 its cost grew with the network while a cycle's work grows
 * with the traffic: hpcc-8 on dragonfly:p=8,a=16,h=8 (241,000 output
 * VCs) spent 89% of the debug build's time checking, there where
 * scripts/run.sh runs. */
static uint64_t fl_check_interval(const struct flitnet *n)
{
	if (n->sc.check_interval >= 0)
		return (uint64_t)n->sc.check_interval;
#ifdef NDEBUG
	return 0;
#else
	const uint64_t n_ov = ((uint64_t)n->topo->n_ports + n->topo->n_endpoints) * n->V;
	return n_ov / 4 > 1024 ? n_ov / 4 : 1024;
#endif
}

/* The periodic-snapshot hook (route_ops.snapshot, issue 11 part 3): all
 * partitions are between cycles, so the global view is consistent. */
static void fl_route_snapshot(struct flitnet *n)
{
	struct route_view g = {
		.occ_base = &n->ovc[0].occ,
		.occ_stride = sizeof(struct fl_ovc),
		.n_vcs = n->V,
		.vc_buf_size = n->buf,
		.gocc_base = &n->ovc[0].occ,
	};
	const uint64_t T = n->route->snapshot_period;
	if (n->mx) {
		/* Each rank's counts are zero where another rank runs the port. */
		const uint64_t IV = (uint64_t)n->topo->n_ports * n->V;
		for (uint64_t iv = 0; iv < IV; iv++)
			n->snap_occ[iv] = n->ovc[iv].occ;
		fl_mpi_sum_u16(n, n->snap_occ, IV);
		g.occ_base = g.gocc_base = n->snap_occ;
		g.occ_stride = sizeof *n->snap_occ;
	}
	n->route->ops->snapshot(n->route, &g, n->now);
	n->snap_next = (n->now / T + 1) * T;
}

/* Under MPI: the last cycle (inclusive, >= b) of the window that starts
 * at cycle b, where b has work on some rank (mpi.h; docs/scaling.md,
 * "Windows"). Inside a window no rank can see another's events (each
 * arrives at least x_window cycles after it is sent), so the window is
 * as long as that allows, cut short so that every decision the single
 * process takes between two cycles falls on a window's end:
 *  - the run's end `cycle` (the driver's sample ends, drain steps);
 *  - the next routing snapshot (LBR, UGAL snapshots), taken before the
 *    first cycle with work at or after snap_next;
 *  - the next multiple of check_interval (the conservation check runs
 *    after a cycle with work that ends on one);
 *  - the next deadlock scan (after the first cycle with work at or past
 *    dl_next_scan: an overdue scan makes a one-cycle window);
 *  - the global deadlock check, which needs no event pending anywhere
 *    and nothing moved for dl_quiet cycles: an event due at cycle c
 *    is pending until c and moves something at c, so the check cannot
 *    fire before max(last_move, x_clast) + dl_quiet. */
static uint64_t fl_window_end(const struct flitnet *n, uint64_t b, uint64_t cycle, uint64_t interval)
{
	uint64_t e = b + n->x_window - 1;
	if (e > cycle - 1)
		e = cycle - 1;
	if (n->snap_next > b && n->snap_next - 1 < e)
		e = n->snap_next - 1;
	if (interval) {
		const uint64_t m = (b / interval + 1) * interval;
		if (m - 1 < e)
			e = m - 1;
	}
	if (n->dl_next_scan <= b)
		return b;
	if (n->dl_next_scan - 1 < e)
		e = n->dl_next_scan - 1;
	const uint64_t quiet = (n->last_move > n->x_clast ? n->last_move : n->x_clast) + n->dl_quiet - 1;
	if (quiet < e)
		e = quiet < b ? b : quiet;
	return e;
}

/* Run this rank's partitions one cycle (threads or one after the other),
 * or none of them when a partition's pools cannot take the cycle:
 * NL_ENOMEM then, its line in *err, and n->oom set for the exchange to
 * fold. The cycle would take records the pools lack (fl_pkt_alloc gives
 * FL_NONE, which fl_nic_generate indexes), as the single process never
 * does (flitnet_run_until). */
static int fl_run_own_cycle(struct flitnet *n, struct nl_err *err)
{
	for (uint32_t i = 0; i < n->n_own; i++) {
		int rc = fl_reserve(n->part[n->own[i]], err);
		if (rc < 0) {
			n->oom = true;
			return rc;
		}
	}
	if (n->workers)
		fl_workers_cycle(n->workers);
	else
		for (uint32_t i = 0; i < n->n_own; i++)
			fl_cycle(n->part[n->own[i]]);
	/* A rank that does not run partition 0 still keeps its clock. */
	if (n->own[0] != 0)
		fl_set_now(n, n->now + 1);
	return 0;
}

/* This rank's failure in the window before the exchange: a partition's
 * run-time allocation that failed (a far event, a wheel slot: its oom),
 * NL_ENOMEM with its line from fl_reserve, or 0. */
static int fl_own_oom(struct flitnet *n, struct nl_err *err)
{
	for (uint32_t i = 0; i < n->n_own; i++)
		if (n->part[n->own[i]]->oom)
			return fl_reserve(n->part[n->own[i]], err);
	return n->oom ? fl_reserve(n, err) : 0;
}

/* The run's end under MPI when some rank ran out of memory (n->oom, as
 * the exchange folded it): every rank returns the line of the lowest rank
 * that failed in the window (`rc`, this rank's: NL_ENOMEM or 0), as
 * net_mpi_agree carries it; a rank that failed inside the exchange
 * itself (its receive buffers) has no line the others see, and every
 * rank takes its own from fl_reserve, rank 0's printed. */
static int fl_run_windows_oom(struct flitnet *n, int rc, struct nl_err *err)
{
	rc = net_mpi_agree(n->sc.mpi, rc, err);
	return rc < 0 ? rc : fl_reserve(n, err);
}

/* flitnet_run_until over MPI ranks: windows of cycles between exchanges.
 * Every rank takes every decision from the same numbers: the next cycle
 * with work on any rank and the latest pending event (fl_mpi_begin, or
 * the caller's with n->x_agreed; then each exchange), the folded
 * counters, whether the window's last cycle had work on some rank, and
 * no early return on a failure of this rank alone (its oom is folded at
 * the exchange).
 *
 * Inside a window a rank skips its own idle cycles: an idle partition's
 * cycle changes nothing but its clock and speedup credit (with a whole
 * internal_speedup, as a jump does; fl_mpi_plan makes one-cycle windows
 * otherwise), so running or skipping it gives the same state, and the
 * one process's decisions, which only depend on which cycles had work
 * anywhere, are all taken at windows' ends (fl_window_end). */
static int fl_run_windows(struct flitnet *n, uint64_t cycle, struct nl_err *err)
{
	const uint64_t interval = fl_check_interval(n);
	if (n->x_agreed)
		n->x_agreed = false; /* the caller's fl_mpi_begin or last exchange stands (flit_advance) */
	else
		fl_mpi_begin(n);
	NL_CHECK(fl_mpi_peer_check(n, err));
	while (n->now < cycle) {
		if (n->x_next > n->now) {
			fl_jump(n, n->x_next < cycle ? n->x_next : cycle);
			if (n->now >= cycle)
				break;
		}
		if (n->now >= n->snap_next)
			fl_route_snapshot(n);
		const uint64_t e = fl_window_end(n, n->now, cycle, interval);
		n->x_wstart = n->now;
		/* The window's first cycle has work on some rank: all run it.
		 * A rank whose pools cannot take a cycle runs no more of the
		 * window; the exchange tells the others (n->oom). */
		int rc = fl_run_own_cycle(n, err);
		n->x_busy = true;
		while (rc == 0 && n->now <= e) {
			if (n->n_own > 1)
				fl_part_merge_own(n);
			const uint64_t next = fl_next_work(n);
			if (next > n->now) {
				fl_jump(n, next <= e ? next : e + 1);
				if (n->now > e) {
					n->x_busy = false;
					break;
				}
			}
			rc = fl_run_own_cycle(n, err);
		}
		if (rc == 0)
			rc = fl_own_oom(n, err);
		fl_part_exchange(n);
		if (n->oom)
			return fl_run_windows_oom(n, rc, err);
		/* The single process checks after each cycle with work only. */
		if (n->x_gbusy) {
			NL_CHECK(fl_dl_after_cycle(n, err));
			if (interval && n->now % interval == 0)
				NL_CHECK(flitnet_check(n, err));
		}
	}
	return n->oom ? fl_reserve(n, err) : 0;
}

/* The cycle at n->now, which has work, on one process (fl_run_one_process
 * and flitnet_run_to_delivery): the partitions' room or sleep, the
 * routing snapshot, the cycle, the exchange and the checks after it. */
static inline __attribute__((always_inline)) int fl_one_cycle(struct flitnet *n, uint64_t interval, bool skip_idle,
							      bool sleep, struct nl_err *err)
{
	if (n->n_parts == 1) {
		NL_CHECK(fl_reserve(n, err));
	} else {
		if (fl_wake_min(n) <= n->now)
			fl_parts_wake_due(n);
		FL_FOR_AWAKE(n, k)
			NL_CHECK(fl_part_prepare(n, k, skip_idle, sleep, err));
	}
	if (n->now >= n->snap_next)
		fl_route_snapshot(n);
	/* Partitions run the cycle side by side on the workers, or one
	 * after the other; fl_part_exchange follows either way. */
	if (n->workers)
		fl_workers_cycle(n->workers);
	else if (n->n_parts == 1)
		fl_cycle(n);
	else
		FL_FOR_AWAKE(n, k) {
			struct flitnet *p = n->part[k];
			if (p->idle_now)
				fl_idle_cycle(p);
			else
				fl_cycle(p);
		}
	if (n->n_parts > 1 || n->msg.n_done)
		fl_part_exchange(n);
	NL_CHECK(fl_dl_after_cycle(n, err));
	if (interval && n->now % interval == 0)
		NL_CHECK(flitnet_check(n, err));
	return 0;
}

/* Idle partitions are skipped on one thread, and with a whole internal
 * speedup put to sleep (fl_part_prepare). */
static inline bool fl_skip_idle(const struct flitnet *n)
{
	return !n->workers && n->n_own > 1;
}

static inline bool fl_may_sleep(const struct flitnet *n)
{
	return fl_skip_idle(n) && n->rc.internal_speedup == floor(n->rc.internal_speedup);
}

static int fl_run_one_process(struct flitnet *n, uint64_t cycle, struct nl_err *err)
{
	const uint64_t interval = fl_check_interval(n);
	const bool skip_idle = fl_skip_idle(n), sleep = fl_may_sleep(n);
	while (n->now < cycle) {
		/* The sleepers' earliest wake-up, refreshed once a cycle: both
		 * fl_next_work and the wake-up below then read the cache (a
		 * wake-up last cycle left it stale, and each rescanned it). */
		if (n->n_parts > 1)
			(void)fl_wake_min(n);
		uint64_t next = fl_next_work(n);
		if (next > n->now) {
			fl_jump(n, next < cycle ? next : cycle);
			if (n->now >= cycle)
				break;
		}
		NL_CHECK(fl_one_cycle(n, interval, skip_idle, sleep, err));
	}
	return n->oom ? fl_reserve(n, err) : 0;
}

/* flit_advance's loop (backend_flit.c) in one call: before, the advance
 * asked for the next cycle with work and ran the network up to just
 * after it (flitnet_run_until, which asked again), once per cycle with
 * work, and that call's set-up was 3.5% of a sparse replay's instructions
 * (lammps-lj-2: one packet's flits moving through two routers a cycle).
 * Each step is the one the two calls took: the same jumps (fl_jump to the
 * next cycle with work), the same cycle, the same checks after it, and
 * the same stops. The idle cycles up to `last` are jumped too, speedup
 * credit included, so a fractional internal_speedup's steps do not
 * depend on where the advances stop (test_net's
 * test_advance_split_speedup). */
int flitnet_run_to_delivery(struct flitnet *n, uint64_t last, struct nl_err *err)
{
	NL_ASSERT(!n->mx);
	if (n->n_parts > 1)
		fl_part_sync(n);
	const uint64_t interval = fl_check_interval(n);
	const bool skip_idle = fl_skip_idle(n), sleep = fl_may_sleep(n);
	while (n->now <= last) {
		if (n->n_parts > 1)
			(void)fl_wake_min(n); /* as fl_run_one_process: one scan a cycle */
		/* fl_part_next_work's first answer inline: a replay's flow keeps
		 * a router or an endpoint stepping nearly every cycle. */
		const uint64_t next = n->n_parts == 1 && (n->n_act_r | n->n_act_e) ? n->now : fl_next_work(n);
		if (next > last) {
			fl_jump(n, last + 1);
			break;
		}
		if (next > n->now)
			fl_jump(n, next);
		NL_CHECK(fl_one_cycle(n, interval, skip_idle, sleep, err));
		if (n->oom)
			return fl_reserve(n, err);
		if (n->msg.delivered)
			break;
	}
	return 0;
}

int flitnet_run_until(struct flitnet *n, uint64_t cycle, struct nl_err *err)
{
	if (n->n_parts > 1)
		fl_part_sync(n);
	if (n->mx)
		return fl_run_windows(n, cycle, err);
	return fl_run_one_process(n, cycle, err);
}
