/* The flit-level network's build: flitnet_new's phases after the plan
 * (flitnet_plan.c), which allocate and set the routers, links, endpoints,
 * scratch and optional stages, the cache-line arrays they live in, their
 * release (flitnet_free), and what changes them before traffic (per-link
 * latency, synthetic traffic). Nothing here runs per cycle. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/config.h"
#include "core/error.h"
#include "core/thread.h"
#include "net/hold.h"
#include "net/mpi.h"
#include "net/net_internal.h"
#include "net/voq.h"
#include "net/workers.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

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
