/* Internals of the flit-level network model (emu/net only).
 *
 * The model is BookSim2's input-queued VC router, cycle by cycle, with the
 * same stage semantics (route, VC allocation, switch allocation, crossbar,
 * output; each stage a FIFO whose items are evaluated and then updated when
 * their delay has passed) so that configurations give the same results,
 * but organised for speed:
 *  - all state is in flat arrays indexed by integers (routers, global
 *    ports, input/output VCs = port * n_vcs + vc), allocated at build time;
 *  - packets and VC-buffer runs come from pools with free lists: no
 *    allocation per flit or packet in steady state;
 *  - a VC buffer holds runs of consecutive flits of one packet;
 *  - channels are a timing wheel of events: a flit or credit sent at cycle
 *    t over a channel of latency d is processed at t + d + 1 (BookSim's
 *    ReadInputs/WriteOutputs timing);
 *  - only routers and endpoints with work are visited (active lists), and
 *    an idle network jumps to its next event.
 * Determinism: routers and endpoints interact only through events at least
 * two cycles away, so the order in which a cycle visits them cannot change
 * any result; statistics are integer sums. The same property lets the
 * model run as partitions of routers (part.c) that exchange boundary
 * events at each cycle's end, with the same results, in one process or
 * over MPI ranks (mpi.c; there at the end of windows as long as the
 * shortest link between ranks allows).
 */
#ifndef NETLOOM_NET_NET_INTERNAL_H
#define NETLOOM_NET_NET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/stats.h"
#include "net/net.h"
#include "route/route.h"

struct nl_err;
struct topo;
struct traffic;

/* Address-sanitizer builds: arrays that would be anonymous mappings
 * (fl_calloc_lines, the pools) are heap blocks, which it bounds-checks.
 * Thread-sanitizer builds too: it does not intercept mremap, so a pool
 * moved away by one network left its accesses in the shadow of addresses
 * another network's pool then took (two points of a sweep on threads,
 * sweep --spread points), reported as races between the two. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FL_HEAP_ONLY 1
#endif
#endif
#if (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)) && !defined(FL_HEAP_ONLY)
#define FL_HEAP_ONLY 1
#endif
#ifndef FL_HEAP_ONLY
#define FL_HEAP_ONLY 0
#endif

#define FL_NONE UINT32_MAX
#define FL_NONE16 UINT16_MAX
/* fl_router.arr_route before a step's first arrival: never a local VC
 * index (at most 32768 per router) nor FL_NONE16. */
#define FL_ARR_UNSET (UINT16_MAX - 1)
#define FL_UNEVAL INT16_MIN /* stage item not yet evaluated */

/* Stall codes of stage items (BookSim's STALL_*), all < -1. */
enum {
	FL_STALL_BUFFER_BUSY = -2,
	FL_STALL_BUFFER_CONFLICT = -3,
	FL_STALL_BUFFER_FULL = -4,
	FL_STALL_CROSSBAR_CONFLICT = -5,
};

/* Input VC states. */
enum { VC_IDLE, VC_ROUTING, VC_VCALLOC, VC_ACTIVE };

struct fl_areq;
struct fl_workers;
struct fl_mx;
struct fl_hold;
struct fl_voq;

/* An allocator (VC or switch): a plug-in of alloc.c's registry, picked
 * once at build time from the vc_allocator / sw_allocator choice. */
struct alloc_ops {
	const char *name; /* the configuration choice */
	const char *help;
	/* Match requests rq[0..n_req) (no two sharing both input and output
	 * go unmatched if they could be): fills n->in_match[in] /
	 * n->out_match[out], moves the arbiters' pointers aptr[] (inputs,
	 * n_in) and gptr[] (outputs, n_out). iters: iSLIP iterations. */
	void (*run)(struct flitnet *n, uint32_t iters, const struct fl_areq *rq, uint32_t n_req, uint32_t n_in,
		    uint32_t n_out, uint16_t *aptr, uint16_t *gptr);
	bool by_priority; /* arbiters prefer higher priority before round robin (separable) */
	/* An input's lower-priority requests can never be granted nor move a
	 * pointer (its first-stage arbiter takes its top priority): the VC
	 * stage need not gather them (router.c, fl_va_top_prio). */
	bool input_top_priority;
	/* An input's first-stage arbiter sees only that input's requests and
	 * pointer, and passes one on: the VC stage may gather that winner
	 * alone (router.c, fl_va_gather). */
	bool input_single_request;
};

/* NULL-terminated, in the order of the configuration choices. */
extern const struct alloc_ops *const alloc_registry[];
extern const struct alloc_ops alloc_islip_ops, alloc_sep_in_ops, alloc_sep_out_ops;
enum { FL_WORMHOLE, FL_VCT };

/* Event kinds on the wheel. */
enum { EV_FLIT_ROUTER, EV_CREDIT_ROUTER, EV_FLIT_NIC, EV_CREDIT_NIC };

/* One event: a flit or a credit arriving at a router port or an endpoint.
 * 12 bytes: what the far heap, the partitions' outboxes and the callers
 * pass; in the wheel a flit is usually an 8-byte struct fl_cflit and a
 * credit a 4-byte code. A router event names only the global port; its
 * router is the topology's port_router. */
struct fl_event {
	uint32_t to;     /* router events: global port at the target; endpoint events: the endpoint */
	uint32_t pkt;    /* flits: packet index */
	uint16_t seq;    /* flits: index within the packet */
	uint8_t kind;    /* EV_* */
	uint8_t vc;
};
_Static_assert(sizeof(struct fl_event) == 12, "fl_event grew: one per flit and credit on a channel");

/* A wheel slot's events live in fixed-size blocks chained in scheduling
 * order, taken from and returned to the partition's free list: the wheel
 * holds the events in flight plus at most one part-filled block per slot.
 * (Slot arrays grown by doubling kept every slot at the busiest cycle's
 * size: 128 slots x 8,192 events x 16 B = 16 MB on the dragonfly with
 * 100-cycle links at 0.7, for ~2 MB of events in flight.) A block is
 * 248 bytes (a 256-byte heap chunk): each slot's two chains keep a
 * part-filled tail block, so the wheel's slots times two blocks are
 * memory beyond the events; 1,016-byte blocks made that most of the
 * ~19 KiB of blocks the 256-endpoint flattened butterfly held at 0.3. */
#define FL_BLK_EVENTS 20
#define FL_BLK_FLITS 30
#define FL_BLK_CREDITS 60

/* A flit on a channel as the wheel keeps it when its target (global port
 * or endpoint), VC and index in its packet fit 32 bits together
 * (n->fl_compact): 8 bytes, two thirds of a 12-byte event; a loaded
 * network's channels hold one per flit. The VC takes the low ceil(log2 V)
 * bits, the index above it the bits the largest packet needs
 * (fl_cf_layout: none for single-flit packets), the target the rest.
 * Reading the VC, the hot field, is a mask. Packet indices are below 2^31
 * (the pool's bound), which leaves the top bit of pkt for the kind. */
#define FL_CF_NIC 0x80000000u /* in pkt: the flit goes to an endpoint */
struct fl_cflit {
	uint32_t pkt; /* packet index, FL_CF_NIC for EV_FLIT_NIC */
	uint32_t at;  /* to << n->cf_shift | seq << n->cf_vbits | vc */
};
_Static_assert(sizeof(struct fl_cflit) == 8, "fl_cflit: one per flit on a channel");

struct fl_evblk {
	struct fl_evblk *next;
	union {
		struct fl_event ev[FL_BLK_EVENTS];
		struct fl_cflit fl[FL_BLK_FLITS]; /* compact flits (n->fl_compact) */
		uint32_t cr[FL_BLK_CREDITS];      /* compact credits (fl_credit_code) */
	};
};
_Static_assert(sizeof(struct fl_evblk) == 248, "an event block is a 256-byte heap chunk");

/* Credits travel in a chain of their own, 4 bytes each: a credit names
 * only the output VC it returns to (global port x V + VC, or with
 * FL_CR_NIC an endpoint's injection VC), a third of a 12-byte event. A
 * credit and a flit arriving in the same cycle commute (a credit changes
 * only its output VC's count, and, with wait_for_tail_credit, moves heads
 * waiting for that port to the VC queue, which no arrival touches), so
 * dispatching a slot's flits and then its credits, each chain in
 * scheduling order, is the order of one mixed chain. With more than 2^31
 * output VCs (never in practice) credits stay full events. */
#define FL_CR_NIC 0x80000000u
struct fl_slot {
	struct fl_evblk *head, *tail;   /* flits (compact with n->fl_compact), and credits that are full events */
	struct fl_evblk *chead, *ctail; /* compact credits */
	uint32_t n;       /* events in the slot, both chains */
	uint32_t tail_n;  /* events (compact flits) in the tail block */
	uint32_t ctail_n; /* credits in the credit chain's tail block */
};

/* An event too far ahead for the wheel, with its scheduling sequence so
 * that it joins its slot in the order it was scheduled. */
struct fl_far_event {
	uint64_t cycle;
	uint64_t seq;
	struct fl_event ev;
};

/* The far end of a router port, precomputed so the hot path never looks
 * at the topology: flits leaving the port and credits for flits that
 * arrived on it go to the same place. */
struct fl_link {
	uint32_t target;     /* router or endpoint */
	uint32_t to;         /* its events' `to`: global port at the target router, or the endpoint */
	uint8_t flit_kind;   /* EV_FLIT_ROUTER or EV_FLIT_NIC */
	uint8_t credit_kind; /* EV_CREDIT_ROUTER or EV_CREDIT_NIC */
	uint16_t lat;        /* channel latency, cycles */
	uint8_t network;     /* router-to-router */
	uint8_t pad;
	uint16_t part;       /* partition owning the target (0 with one partition) */
};

/* Per global port: its link and the timing of its output and credit
 * channels. */
struct fl_port {
	struct fl_link link;    /* where its flits and credits go */
	/* First cycles the output and credit channels are free. 64 bits: a
	 * port idle for 2^31 cycles or more (a replay's long compute phase:
	 * 2.1 s at 1 GHz) read as busy for 2^32 cycles with 32-bit stamps. */
	uint64_t out_free;
	uint64_t cred_free;
	uint64_t chan_flits;    /* flits sent while count_channels is set */
};

/* The route state as a packet record keeps it: struct route_pkt less
 * dst_router, which is the destination endpoint's router. fl_rt_load
 * rebuilds the routing functions' struct around each call and fl_rt_store
 * keeps what they change: 4 bytes of every record for one table read per
 * route computation. The fields are route_pkt's first 16 bytes, so both
 * are one copy. */
struct fl_rt {
	uint32_t src_ep, dst_ep, inter;
	uint8_t phase, vc_class, hops, tclass;
};
_Static_assert(offsetof(struct route_pkt, dst_router) == sizeof(struct fl_rt) &&
		       offsetof(struct route_pkt, src_ep) == offsetof(struct fl_rt, src_ep) &&
		       offsetof(struct route_pkt, dst_ep) == offsetof(struct fl_rt, dst_ep) &&
		       offsetof(struct route_pkt, inter) == offsetof(struct fl_rt, inter) &&
		       offsetof(struct route_pkt, phase) == offsetof(struct fl_rt, phase) &&
		       offsetof(struct route_pkt, vc_class) == offsetof(struct fl_rt, vc_class) &&
		       offsetof(struct route_pkt, hops) == offsetof(struct fl_rt, hops) &&
		       offsetof(struct route_pkt, tclass) == offsetof(struct fl_rt, tclass),
	       "struct fl_rt must be the head of struct route_pkt");

/* A packet in flight (pool entry): 28 bytes, taken from creation (or
 * the message driver's queue) to the tail's ejection, so it is most of
 * the memory a loaded network adds. The endpoints are rt.src_ep and
 * rt.dst_ep only; the message a packet belongs to is in the pool's side
 * array (fl_pkt_msg), which synthetic traffic never allocates; the free
 * list and the source queue link share itime's place (a packet is linked
 * only before its head is injected or once freed).
 * Its two cycle stamps are 32-bit, like the ports' (BookSim's are 32-bit
 * ints too): a packet's age, creation to ejection, must stay below 2^32
 * cycles; fl_pkt_ctime recovers the full creation cycle. */
struct fl_pkt {
	uint32_t ctime;     /* creation cycle mod 2^32 (source queue entry) */
	union {
		uint32_t itime; /* cycle mod 2^32 its head was injected (set at injection) */
		uint32_t next;  /* free list / NIC queue link (before injection) */
	};
	struct fl_rt rt;    /* rt.src_ep, rt.dst_ep: the endpoints */
	uint16_t size;      /* flits */
	uint16_t routers : 15; /* routers traversed by the head (wraps at 2^15) */
	uint16_t measured : 1; /* counts in the measurement */
};
_Static_assert(sizeof(struct fl_pkt) == 28, "fl_pkt grew: it is most of a loaded network's memory");

/* Packet pk's full creation cycle, at cycle now (its age is < 2^32). */
static inline uint64_t fl_pkt_ctime(const struct fl_pkt *pk, uint64_t now)
{
	return now - (uint32_t)((uint32_t)now - pk->ctime);
}

/* A run of consecutive flits of one packet in a VC buffer (pool entry). */
struct fl_run {
	uint32_t pkt;
	uint16_t seq;  /* first flit of the run */
	uint16_t n;    /* flits in the run */
	uint32_t next;
	uint16_t size; /* flits in the packet, so body flits never touch it */
	uint16_t pad;
};

/* Stage-queue node of an input VC waiting in route, VC or switch
 * allocation (a VC waits in at most one queue at a time). */
struct fl_node {
	uint32_t time;  /* cycle (mod 2^32) the stage completes, once evaluated */
	int16_t result; /* FL_UNEVAL, -1 pending, a grant (local out VC / crossbar output) or a stall */
	uint16_t next;  /* local index of the next VC in the same queue */
};

/* An input VC, with what a flit's passage through it touches together. */
struct fl_ivc {
	uint32_t head, tail;    /* VC buffer: runs of flits */
	struct fl_node node;    /* stage-queue node */
	uint16_t count;         /* flits buffered */
	uint16_t out_port;      /* allocated output port (VC_ACTIVE) */
	uint8_t state;          /* VC_IDLE .. VC_ACTIVE */
	uint8_t out_vc;         /* allocated output VC */
	uint8_t ncand;          /* route candidates (VC_VCALLOC) */
	uint8_t dl_scans;       /* deadlock scans that saw the same front flit (deadlock.c) */
	struct route_cand cand; /* the candidate when the algorithm gives one */
	uint16_t dl_front;      /* fingerprint of the front flit at the last scan */
};

/* An output VC: the state of the buffer across the channel (BookSim's
 * BufferState). */
struct fl_ovc {
	uint32_t owner;         /* local input VC holding it, FL_NONE */
	uint16_t occ;           /* flits sent, not yet credited */
	uint8_t tail_sent;      /* for wait_for_tail_credit */
	uint8_t pad;
};

/* A FIFO of input VCs threaded through their nodes. */
struct fl_fifo {
	uint16_t head, tail, len;
};

/* A flit crossing the crossbar. */
struct fl_xitem {
	uint32_t time;  /* cycle (mod 2^32) it leaves the crossbar */
	uint32_t pkt;
	uint16_t seq;
	uint16_t out;   /* local output port */
	uint8_t vc;     /* output VC */
	uint8_t evaluated;
	uint8_t pad[2];
};

/* A ring of crossbar items. */
struct fl_ring {
	uint16_t head, len;
};

struct fl_router {
	uint32_t port_base;      /* global port of local port 0 */
	uint32_t vc_base;        /* port_base * V: global index of local VC 0 */
	uint16_t n_ports;
	uint16_t xq_cap;         /* crossbar ring capacity, a power of two */
	uint32_t xq_off;         /* offset of its crossbar ring in xitems[] */
	struct fl_fifo route_q, va_q, sa_q;
	struct fl_ring xb_q;
	uint32_t pad_arr;        /* free: keeps the router at 64 bytes */
	/* route_q's tail before the arrivals queued since the router last
	 * stepped (FL_NONE16 if it was empty), or FL_ARR_UNSET before the
	 * first of them: reset by each step, not keyed to a cycle number,
	 * which could alias a cycle 2^32 later. */
	uint16_t arr_route;
	uint16_t arr_sa;         /* sa_q tail likewise */
	struct rng rng;          /* routing decisions */
};

/* An endpoint's network interface. */
struct fl_nic {
	uint64_t next_gen;   /* synthetic: cycle of the next packet arrival */
	uint64_t inj_free;   /* first cycle the injection channel is free */
	uint64_t stamp;      /* cycle + 1 of its last active-list entry */
	uint32_t cur_pkt;    /* packet being injected, FL_NONE */
	uint32_t q_head, q_tail; /* queued packets (backend messages) */
	uint16_t cur_seq;
	uint8_t cur_vc;      /* VC of the packet being injected, or 0xff */
	uint8_t inj_lo, inj_hi; /* injection VC range of the current packet */
	uint8_t last_vc;     /* round-robin VC choice, BookSim's _last_vc */
	uint8_t drained;     /* draining: no arrival left before drain_time */
	uint8_t pad[1];
	struct rng rng;
};

/* Per-message delivery bookkeeping for the backend (pool entry). At most
 * FL_MSG_MAX in flight: a packet records its message index + 1 in 31 bits. */
#define FL_MSG_MAX 0x7fffffffu
struct fl_msg {
	uint64_t id;
	uint32_t pkts_left;
	uint32_t next;
};

/* Simulation phases, as BookSim's _sim_state (the experiment driver's). */
enum { PH_WARMUP, PH_RUNNING, PH_DRAINING, PH_DONE };

/* The measurement observer: what the driver's experiment phase asks
 * endpoints to record, as flags and a cut-off the driver sets at each
 * phase change (fl_obs_phase), so the NIC's hot path never tests a
 * phase. Statistics are integer sums (the latency sums are exact in a
 * double below 2^53). */
struct fl_obs {
	bool count_traffic;      /* warm-up, running: count sent and accepted flits */
	bool record_all;         /* warm-up: record every packet's latency, measured or not */
	bool watch_drain;        /* draining: note each source's first arrival at or after drain_time */
	bool count_channels;     /* count flits per channel (chan_flits) */
	uint64_t measure_before; /* packets created before this cycle are measured (0: none) */
	uint64_t reset_time;     /* cycle the statistics were last cleared */
	uint64_t drain_time;     /* cycle draining started */
	uint32_t n_undrained;    /* draining: sources with no arrival at or after drain_time yet */
	uint64_t flits_alive;    /* generated, not yet ejected */
	uint64_t ctime_sum_alive; /* sum of ctime over alive flits */
	uint64_t measured_alive; /* measured flits not yet ejected */
	uint64_t accepted_flits; /* ejected at active endpoints, warm-up/running */
	uint64_t sent_flits;     /* injected, warm-up/running */
	struct stats_hist plat, nlat, hops;
	/* Per (channel, job) flits while count_channels is set (issue 13,
	 * interference): [global port * n_jobs + ep_job[packet source]], or
	 * NULL when nobody asked, so a normal run pays one test per hop. */
	uint64_t *job_flits;
	const uint32_t *ep_job;  /* [endpoint] job of each source endpoint, < n_jobs */
	uint32_t n_jobs;
};

/* Set the observer's flags for phase PH_* (drain_time already set for
 * PH_DRAINING). */
static inline void fl_obs_phase(struct fl_obs *o, int phase)
{
	o->count_traffic = phase == PH_WARMUP || phase == PH_RUNNING;
	o->record_all = phase == PH_WARMUP;
	o->watch_drain = phase == PH_DRAINING;
	o->measure_before = phase == PH_RUNNING ? UINT64_MAX : phase == PH_DRAINING ? o->drain_time : 0;
}

/* A head that won a switch towards another router this cycle, whose route
 * there is decided at the cycle's end (lookahead_decide = upstream). */
struct fl_la_pend {
	uint32_t gout; /* the upstream output's global port */
	uint32_t pkt;
	uint32_t order; /* push order: ties of one port keep the router's own order */
	uint8_t vc;    /* the VC it travels on: its input VC downstream */
};

/* Packet and VC-buffer-run pools: 32-bit indices recycled through free
 * lists threaded through `next`; they grow between cycles (fl_reserve). */
struct fl_pools {
	struct fl_pkt *pkts;     /* 64-byte aligned within pkts_mem */
	void *pkts_mem;          /* the allocation (free this) */
	uint32_t n_pkts, cap_pkts, free_pkt;
	/* lookahead_decide = upstream only (NULL otherwise): per packet record,
	 * the route its head takes at its next router, decided upstream
	 * (la_w candidates from la_cand[pkt * la_w], la_n[pkt] of them; 0 =
	 * not decided yet). Grown with pkts. */
	struct route_cand *la_cand;
	uint8_t *la_n;
	uint32_t la_w;
	/* The message driver only (NULL until its first packet): per packet
	 * record, its message index + 1, or 0. Grown with pkts. */
	uint32_t *msg;
	struct fl_run *runs;
	uint32_t n_runs, cap_runs, free_run;
	/* Bytes each array holds (fl_pool_grow), what fl_pools_free returns:
	 * after a failed growth an array may be larger than cap_pkts says. */
	size_t pkts_bytes, la_cand_bytes, la_n_bytes, msg_bytes, runs_bytes;
};

/* Driver: synthetic sources (the BookSim experiment, experiment.c). */
struct fl_synth {
	struct traffic *traffic;     /* synthetic traffic, or NULL */
	double pkt_rate;             /* packets per cycle per active endpoint */
	double pkt_rate_l;           /* log1p(-pkt_rate), for rng_geometric_l */
	uint32_t size_lo, size_hi;   /* packet size range, flits */
	int class_rule;              /* TRAFFIC_CLASS_*: a packet's traffic class */
};

/* Driver: the message backend (backend_flit.c): messages cut into
 * packets, delivered when their last packet is ejected. */
struct fl_msgdrv {
	net_deliver_fn deliver;        /* NULL outside an advance call */
	void *deliver_ctx;
	uint64_t delivered;            /* messages delivered this advance call */
	struct fl_msg *msgs;           /* pool, free list through next */
	uint32_t n_msgs, cap_msgs, free_msg;
	uint64_t *done;                /* messages completed this cycle: router << 32 | message index */
	uint32_t n_done, cap_done;
};

/* An event for another partition, with a copy of its packet's record when
 * it is a head flit (packet state travels with the head). */
struct fl_xevent {
	uint64_t cycle;
	struct fl_event ev;
	struct fl_pkt pk;      /* heads only */
	uint32_t msg;          /* heads only: fl_pkt_msg of the record */
	uint32_t src_pkt;      /* heads only: the sender's record (ev.pkt becomes the receiver's) */
	uint8_t la_n;          /* heads, lookahead_decide = upstream: candidates decided for the next
				  router before the head left (in the outbox's la[]), or 0 */
};

/* Outbox towards one partition: events of this cycle, merged into the
 * target's wheel at the cycle boundary (fl_part_exchange). */
struct fl_xbox {
	struct fl_xevent *ev;
	struct route_cand *la; /* lookahead_decide = upstream: [event * la_w] carried decisions */
	uint32_t n, cap;
	bool listed;           /* its target is in the sender's xdst (n > 0 implies listed) */
};

/* The flit network: model state (routers, ports, VCs, NICs, wheel, pools),
 * then the drivers' and the observer's parts. Each partition is one of
 * these (the root, partition 0, is the whole network to the drivers): it
 * shares the root's arrays indexed by router, port, VC and endpoint and
 * owns its wheel, far heap, pools, active lists, scratch and counters. */
/* Cycles the source calendar spans (a power of two): at rate r a source
 * waits 1/r cycles on average, so only rates below 1/FL_CAL_SLOTS flits a
 * cycle per endpoint send many sources to the heap. */
#define FL_CAL_SLOTS 1024u

struct flitnet {
	const struct topo *topo;
	struct route *route;
	uint64_t snap_next;          /* cycle of the next route snapshot (route_ops.snapshot), UINT64_MAX = none */
	uint16_t *snap_occ;          /* under MPI with snapshots: [ov] every rank's output VC counts */
	struct fl_synth synth;       /* driver: synthetic traffic */
	struct net_cfg nc;           /* resolved [network] */
	struct router_cfg rc;        /* resolved [router] */
	struct sim_cfg sc;           /* resolved [simulation] */
	uint32_t V;                  /* VCs per port */
	uint32_t *ep_router;         /* [endpoint]: its router (fl_rt_load) */
	bool cr_compact;             /* credits travel as 4-byte codes (every output VC index < 2^31) */
	bool fl_compact;             /* flits travel as 8-byte fl_cflit (cr_compact, and every target,
					VC and flit index fit 32 bits: fl_cf_layout) */
	uint32_t cf_shift, cf_vmask; /* fl_cflit.at: target << cf_shift | flit << cf_vbits | VC; VC mask */
	uint32_t cf_vbits, cf_seq_mask; /* the VC's bits in fl_cflit.at; the flit index's mask (after the shift) */
	uint32_t cf_seq_field;       /* the flit index's bits in place (cf_seq_mask << cf_vbits) */
	uint32_t cf_max_flits;       /* the largest packet the layout holds (flits) */
	uint32_t pkt_max_flits;      /* the largest packet made so far or announced (fl_pkt_max_grow), the
					same in every partition: cut-through reads a head's size only above 1 */
	uint32_t n_cls;              /* traffic classes (1 = off) */
	uint32_t cls_w;              /* VCs per class: V / n_cls, what the routing function sees */
	int v_shift;                 /* log2(V) when V is a power of two, else -1 */
	uint32_t buf;                /* flits per VC buffer */
	uint32_t Xd;                 /* crossbar delay */
	uint32_t max_lat;            /* longest link latency, cycles (wheel span, deadlock bound) */
	/* [global port] cycles of the credits leaving a port: those of the
	 * channel its input receives (the peer's link), as BookSim's credit
	 * channel follows its flit channel; NULL when every link's two
	 * directions have one latency, where ports[g].link.lat is the same
	 * (anynet's per-direction latencies; shared by the partitions). */
	uint16_t *cred_lat;
	uint32_t steps_max;          /* router steps in a cycle at most: ceil(internal_speedup) */
	const struct alloc_ops *va_ops; /* VC allocator */
	const struct alloc_ops *sa_ops; /* switch allocator */
	bool unit_delays;            /* every stage takes one cycle (routing: one or none): fused fast path */
	bool lookahead;              /* routing_delay = 0: routes ready on arrival (BookSim's lookahead) */
	bool la_upstream;            /* lookahead_decide = upstream: router.c, fl_la_* */
	bool direct_xbar;            /* unit delays: the crossbar is a fixed one-step delay, so
					switch allocation schedules the channel (at xb_at) */
	struct fl_hold *hold;        /* hold_switch_for_packet state (hold.h), NULL when off */
	struct fl_voq *voq;          /* voq state (voq.h), NULL when off */

	uint64_t now;                /* current cycle */
	struct fl_la_pend *la_pend;  /* lookahead_decide = upstream: this cycle's heads (router.c) */
	uint32_t n_la_pend, cap_la_pend;
	uint32_t la_next;            /* partitions of METIS: la_pend entries decided so far (part.c) */
	double speedup_acc;          /* BookSim's _partial_internal_cycles */
	bool speedup_whole;          /* internal_speedup is whole: steps_max steps a cycle, speedup_acc 0 */
	uint64_t xb_at;              /* direct_xbar: the cycle of a router's next step, when a
					flit granted in this one leaves the crossbar (fl_cycle) */

	/* Routers. */
	struct fl_router *routers;
	struct fl_xitem *xitems;
	struct fl_port *ports;       /* [global port] */

	/* Input VCs [global port * V + vc]. */
	struct fl_ivc *ivc;
	struct route_cand *iv_cand;  /* [iv * cand_cap] when cand_cap > 1 */
	uint32_t cand_cap;

	/* Output VCs [global port * V + vc]: the state of the buffer across
	 * the channel (BookSim's BufferState). */
	struct fl_ovc *ovc;
	/* [global port]: ovc[].occ summed over the port's VCs (route.h,
	 * route_view.gpocc) for functions that ask (route.port_sums); NULL
	 * otherwise. Only the port's owner writes it. */
	uint32_t *pocc;
	/* [global port]: route_view.gasum (route.asum_vcs): bits 0-15 the
	 * occ of its VCs 0..asum_vcs-1 summed, bits 16-24 route_asum_base +
	 * how many of them hold at least asum_full flits; NULL when off. Only
	 * the port's owner writes it. */
	uint32_t *asum;
	uint32_t asum_vcs, asum_full;
	uint64_t v_div;              /* ceil(2^64 / V) for fl_div_v when V is no power of two; 0: divide */
	uint64_t *cred_step;         /* [global port] step that made the last credit message (speedups only) */
	uint32_t *cred_cycle;        /* [global port] cycle (mod 2^32) that message is sent (speedups only) */
	uint64_t step_id;            /* router steps so far (credit grouping) */

	/* Allocator state. */
	uint16_t *va_gptr;           /* [ov] iSLIP grant pointers / output arbiters */
	uint16_t *va_aptr;           /* [iv] iSLIP accept pointers / input arbiters */
	uint16_t *sw_gptr;           /* [global port * out_speedup + k] */
	uint16_t *sw_aptr;           /* [global port * in_speedup + k] */
	uint16_t *sw_rr;             /* [global port * in_speedup + k]: VC round robin */

	/* Endpoints. */
	struct fl_nic *nics;
	uint16_t *nic_occ;           /* [ep * V + vc] injection buffer occupancy */
	uint8_t *nic_busy;           /* [ep * V + vc] injection VC held by a packet */
	uint8_t *nic_parked;         /* [ep]: waits for an injection credit, not stepped (nic.c) */
	/* Sources waiting for their next packet (flitnet.c, fl_gen_push):
	 * a calendar of FL_CAL_SLOTS cycles from now, a list per cycle
	 * threaded through gen_next, and a min-heap for creation times
	 * beyond it. */
	uint32_t *cal_head;          /* [cycle % FL_CAL_SLOTS]: first source, FL_NONE */
	uint32_t *gen_next;          /* [ep]: next source of its slot (shared, the root's) */
	uint32_t cal_n;              /* sources in the calendar */
	uint64_t cal_next;           /* the earliest cycle with a source in it (cal_n > 0) */
	uint32_t cal_reach;          /* cycles ahead it takes: FL_CAL_SLOTS (1 = the heap alone, a test's reference) */
	uint64_t *gen_heap;          /* (next_gen << 32 | ep) min-heap of sources beyond it */
	uint32_t gen_n;

	struct fl_pools pool;

	/* Timing wheel: one slot per cycle of the usual channel and credit
	 * delays. Events further ahead (output queues backed up by speedups)
	 * wait in a min-heap and join their slot when it comes within reach,
	 * so memory follows the events in flight, not the longest backlog. */
	struct fl_slot *wheel;
	struct fl_evblk *blk_free;   /* the wheel's free event blocks */
	uint32_t n_blk;              /* event blocks allocated (the free ones included) */
	uint32_t wheel_mask;
	uint64_t n_events;           /* events pending on the wheel and in far[] */
	struct fl_far_event *far;    /* min-heap by (cycle, seq) of events >= now + wheel_mask ahead */
	uint32_t n_far, cap_far;
	uint64_t far_seq;            /* events sent to far[] so far */
	bool oom;                    /* a run-time allocation failed: the run ends with NL_ENOMEM */
	bool idle_now;               /* nothing to do in the coming cycle (flitnet_run_until, fl_part_idle) */
	uint32_t fail_nth;           /* tests: the fail_nth-th run-time allocation from now, and all later, fail (0 = off) */

	/* Active lists. */
	uint64_t *act_r, *act_r_next;  /* bitmaps of routers to step this / next cycle */
	bool reverse_visits;           /* tests: visit routers and endpoints backwards */
	uint32_t n_act_r, n_act_r_next; /* bits set */
	uint32_t act_words;
	uint32_t *act_e, *act_e_next;
	uint32_t n_act_e, n_act_e_next;
	/* Arrivals dispatched router by router, just before the router steps
	 * (fl_cycle, n->local_arrivals): the slot's router flits in a list per
	 * router, 1-based indices into arr_ev (0 = none), last listed first
	 * (a router queues a cycle's arrivals by input VC, whatever their
	 * order). */
	bool local_arrivals;
	bool local_arrivals_ok;        /* local_arrivals but for fl_compact */
	uint32_t *arr_head;            /* [router] */
	uint32_t *arr_next;            /* [arrival] */
	struct fl_cflit *arr_ev;       /* [arrival] */
	uint32_t arr_cap;              /* arrivals arr_next and arr_ev hold */

	/* Allocation scratch, sized for the largest router. */
	struct fl_areq *areq;
	uint32_t areq_cap;
	int32_t *best_out, *best_in;   /* per output / input of the allocator */
	int32_t *in_match, *out_match;
	int32_t *grant;                /* per crossbar input: the label switch allocation granted (router.c) */
	bool sa_disjoint;              /* fl_sa_gather: no two requests share an input or an output */
	bool sa_one_per_in;            /* fl_sa_gather: no two requests share an input (masks only) */
	bool sa_one_per_ein;           /* fl_sa_gather, speedups, up to 64 crossbar inputs, no held connections: no two requests share a crossbar input */
	struct route_view rview;       /* fl_route_decide's and fl_nic_decide's view (router.c, nic.c): fl_route_view's,
					  oq_ctx == this partition */
	bool plain;                    /* no lookahead upstream, voq, hold, pend, pocc, cred_lat, traffic classes,
	                                  wait_for_tail_credit, input or output speedup (router.c's stage loops) */
	uint32_t scratch_ports;
	uint32_t *ev_li;               /* local VCs evaluated by the current allocation */
	int32_t *arb_used;             /* first-stage arbiters with a request (alloc.c, separable) */
	int32_t *port_req;             /* per output port: its only ranged VC requester or -2 (router.c) */
	uint64_t *port_gen;            /* per output port: the step_id port_req was set in */
	uint32_t *va_defer;            /* heads whose VC allocation is decided last (router.c) */
	uint16_t *va_wait;             /* per global port: heads parked until one of its output VCs
					  is free, threaded through their nodes (router.c, fl_va_park) */
	uint64_t *va_wmask;            /* per global output VC: the heads parked asking for it alone, one
					  bit per local input VC, where a freed VC wakes one of them and
					  every router has <= 64 input VCs; NULL: all on va_wait */
	uint32_t *pend;                /* sequential_allocation: per global port, flits its router has
					  routed to it and not yet sent (router.c); NULL when off */
	bool va_park;                  /* heads with no free VC park instead of retrying each step */
	bool va_wake_one;              /* a freed VC wakes only its arbiter's first head asking for it alone:
					  no output priorities (router.c, fl_router_va_wake) */
	bool va_split;                 /* iSLIP VC allocation decides a port's only ranged head alone */
	uint32_t n_ev;

	uint64_t flits_in_net;         /* injected into the network, not yet ejected */
	uint64_t last_move;            /* last cycle anything progressed: a flit moved, a head was
					  routed or got a VC, an event was delivered */
	uint64_t flit_hops;            /* router-to-router traversals, whole run */
	struct fl_obs obs;             /* measurement: what the driver's phase asks to record */

	struct fl_msgdrv msg;          /* driver: the message backend */
	bool msg_driven;               /* root: the message backend runs it (backend_flit.c): under MPI
					  every rank keeps every message record, a head carries its
					  record's index to other ranks and completions are gathered
					  on every rank (mpi_exchange.c, mx_gather_done) */

	/* Deadlock checks (deadlock.c). */
	uint64_t dl_quiet;             /* global check: cycles without progress or events */
	uint64_t dl_bound;             /* local check: cycles a front flit may wait before the exact check */
	uint64_t dl_period;            /* cycles between local scans */
	uint64_t dl_next_scan;         /* cycle of the next local scan */
	uint64_t dl_gchecked;          /* last_move at the last global check that found nothing */
	uint64_t dl_full_checks;       /* exact checks run (tests read it) */
	uint64_t dl_check_after;       /* local check: no exact check before this cycle (fl_dl_scan) */
	uint8_t dl_backoff;            /* checks in a row that found only queues, at most DL_BACKOFF_MAX */
	uint8_t *dl_dead;              /* [iv] exact check: 1 = in the deadlocked set */
	uint32_t *dl_rq;               /* [router] exact check's work queue */
	uint8_t *dl_rqueued;           /* [router] queued in dl_rq */
	uint8_t *dl_held;              /* [router] 1: may hold flits (an arrival into an empty input VC
					* sets it, a local scan that finds every input VC empty clears
					* it); one byte a router, so partitions set their own unraced */
	uint16_t *dl_count;            /* under MPI: [iv] every rank's buffered flits, for the exact check */
	bool has_dl;                   /* dl holds the last deadlock found */
	struct net_deadlock dl;

	char *report;                  /* deadlock report, or NULL */

	/* Partitions (part.c): a partition is a contiguous router range with
	 * the endpoints attached to it and its own pools, wheel, far heap,
	 * active lists, scratch and counters; the arrays indexed by router,
	 * port, VC or endpoint are shared, each entry touched only by its
	 * owner. The whole network is partition 0 (`root`), which also owns
	 * the shared arrays, the drivers, the deadlock checks and the totals
	 * of the counters (folded in after every cycle). */
	struct flitnet *root;          /* partition 0 */
	struct flitnet **part;         /* [n_parts], part[0] == root */
	uint32_t n_parts, part_id;
	uint32_t r_lo, r_hi;           /* routers [r_lo, r_hi) */
	uint32_t act_w0;               /* first word of act_r covering r_lo (act_words: the count) */
	uint32_t own_eps;              /* endpoints of the partition (packets one cycle can take: fl_reserve) */
	uint64_t own_runs;             /* runs one cycle can take: the partition's router ports x steps_max
					  (fl_reserve, before every cycle with work: stored, not multiplied) */
	uint16_t *r_part;              /* root, n_parts > 1: [router] owning partition */
	bool r_scattered;              /* partitions are METIS's, not router ranges */
	struct fl_xbox *xbox;          /* n_parts > 1: [n_parts] outboxes */
	uint32_t *xdst;                /* n_parts > 1: [n_xdst] the targets of this partition's listed
					  outboxes, in order of their first event (fl_xsend) */
	uint32_t n_xdst, cap_xdst;
	uint32_t *xin;                 /* n_parts > 1: [n_xin] the partitions whose outboxes towards this
					  one the cycle's merge takes, in partition order (fl_part_merge_own) */
	uint32_t n_xin, cap_xin;
	uint32_t *xpkt;                /* n_parts > 1: [iv] local record of the packet arriving on iv
					  from another partition (its flits arrive contiguously) */
	uint32_t *xsrc, *xstamp;       /* n_parts > 1, lookahead_decide = upstream: [iv] the sender's record
					  of the last head merged on iv, and the cycle (mod 2^32) it was */
	struct fl_workers *workers;    /* root, threads > 1: the threads running the partitions (workers.h) */
	uint32_t *own;                 /* root: [n_own] the partitions this process runs, in order (all of
					  them, or under MPI those k with k mod ranks = rank) */
	uint32_t n_own;
	uint64_t *awake;               /* root, n_parts > 1: bitmap of the partitions this process runs that
					  are awake; a clear bit of one of them: it sleeps (flitnet_run_until) */
	uint64_t *wake;                /* root, n_parts > 1: [k] a sleeping partition's next work, the
					  cycle it wakes at unless a merge or a send brings it work first */
	uint64_t wake_min;             /* root: the earliest wake[k] of a sleeping partition, UINT64_MAX for
					  none, when not wake_stale */
	bool wake_stale;               /* root: a partition woke early, so wake_min may be too early */
	uint32_t *xtgt;                /* root, n_parts > 1: [n_xtgt] the partitions the cycle's merge feeds */
	uint32_t n_xtgt;
	uint32_t x_rank, x_size;       /* this process's MPI rank and the ranks (0 and 1 without MPI) */
	bool parts_chosen;             /* root: partitions automatic or raised to threads x ranks
					  (fl_plan_split), not the key's value: a refusal of the count
					  blames the ranks and threads, not the key */
	struct fl_mx *mx;              /* root, under MPI: the exchange's state (mpi_internal.h) */
	uint64_t x_events;             /* under MPI: events pending on all ranks after the last exchange */
	uint64_t x_next;               /* under MPI: earliest cycle with work on any rank (fl_mpi_begin,
					  then every exchange) */
	uint64_t x_clast;              /* under MPI: latest cycle of an event pending on any rank (likewise) */
	uint64_t x_window;             /* under MPI: the longest window, cycles run between exchanges
					  (fl_mpi_plan; 1 = an exchange after every cycle) */
	uint64_t x_wstart;             /* under MPI: first cycle of the running window */
	bool x_busy;                   /* under MPI: this rank had work in the window's last cycle */
	bool x_gbusy;                  /* under MPI: some rank had (after the exchange) */
	bool x_agreed;                 /* under MPI: x_next, x_clast, x_window and the exchange's counter
					  base are the ranks' values for the state as it is: the next
					  flitnet_run_until takes them for its first collective
					  (fl_mpi_begin) and clears this; set by the replay's advance
					  (backend_flit.c), which knows that nothing changed since */
};

/* One allocation request. */
struct fl_areq {
	int32_t in, out;  /* allocator input / output index */
	int32_t label;    /* input VC or local VC */
	int32_t in_pri, out_pri;
};

/* x / V for a VC index x (an output VC's global port, an injection VC's
 * endpoint). Without a power-of-two V, a multiply-high (Lemire, Kaser and
 * Kurz 2019, "Faster remainder by direct computation", Theorem 1: exact
 * for 32-bit x with ceil(2^64 / V), so v_div is set only when every VC
 * index fits 32 bits): a 64-bit division per credit costs tens of cycles
 * (seed 001's V = 6, Equality's V = the diameter). */
static inline uint64_t fl_div_v(const struct flitnet *n, uint64_t x)
{
	if (n->v_shift >= 0)
		return x >> n->v_shift;
	if (n->v_div)
		return (uint64_t)(((unsigned __int128)n->v_div * (uint32_t)x) >> 64);
	return x / n->V;
}

/* Local VC index li = port * V + vc split into (port, vc): a shift when V
 * is a power of two (the usual case), a division otherwise. */
static inline uint32_t fl_li_port(const struct flitnet *n, uint32_t li)
{
	return n->v_shift >= 0 ? li >> n->v_shift : li / n->V;
}
static inline uint32_t fl_li_vc(const struct flitnet *n, uint32_t li)
{
	return n->v_shift >= 0 ? li & (n->V - 1) : li % n->V;
}

/* A compact flit's second word: target, flit index and VC in the fields
 * fl_cf_layout sized (n->fl_compact), shifts only. */
static inline uint32_t fl_cflit_at(const struct flitnet *n, uint32_t to, uint16_t seq, uint8_t vc)
{
	NL_ASSERT(seq <= n->cf_seq_mask);
	return to << n->cf_shift | (uint32_t)seq << n->cf_vbits | vc;
}
/* Flit event ev (EV_FLIT_ROUTER or EV_FLIT_NIC) as a compact flit. */
static inline struct fl_cflit fl_cflit_code(const struct flitnet *n, const struct fl_event *ev)
{
	return (struct fl_cflit){
		.pkt = ev->kind == EV_FLIT_NIC ? FL_CF_NIC | ev->pkt : ev->pkt,
		.at = fl_cflit_at(n, ev->to, ev->seq, ev->vc),
	};
}
/* Its target (global port or endpoint), VC and flit index. */
static inline uint32_t fl_cflit_to(const struct flitnet *n, struct fl_cflit f)
{
	return f.at >> n->cf_shift;
}
static inline uint8_t fl_cflit_vc(const struct flitnet *n, struct fl_cflit f)
{
	return (uint8_t)(f.at & n->cf_vmask);
}
static inline uint16_t fl_cflit_seq(const struct flitnet *n, struct fl_cflit f)
{
	return (uint16_t)((f.at >> n->cf_vbits) & n->cf_seq_mask);
}
/* Whether f is a head (flit index 0), without the shift. */
static inline bool fl_cflit_is_head(const struct flitnet *n, struct fl_cflit f)
{
	return !(f.at & n->cf_seq_field);
}
static inline struct fl_event fl_cflit_event(const struct flitnet *n, struct fl_cflit f)
{
	return (struct fl_event){
		.to = fl_cflit_to(n, f),
		.pkt = f.pkt & ~FL_CF_NIC,
		.seq = fl_cflit_seq(n, f),
		.kind = f.pkt & FL_CF_NIC ? EV_FLIT_NIC : EV_FLIT_ROUTER,
		.vc = fl_cflit_vc(n, f),
	};
}

/* (a + b) mod m for a, b < m, without a division. */
static inline uint32_t fl_add_mod(uint32_t a, uint32_t b, uint32_t m)
{
	uint32_t s = a + b;
	return s >= m ? s - m : s;
}

/* Route candidates of input VC iv. */
static inline struct route_cand *fl_cands(const struct flitnet *n, uint64_t iv)
{
	return n->cand_cap > 1 ? n->iv_cand + iv * n->cand_cap : &n->ivc[iv].cand;
}

/* --- router.c --- */
void fl_router_step(struct flitnet *n, uint32_t r);
/* The output-queue view (route.h) of partition ctx: flits waiting in
 * router r's output stage for local port `port`. */
uint32_t fl_router_oq(const void *ctx, uint32_t r, uint32_t port);
/* What a routing function at router ro of partition part reads (route.h):
 * credit occupancy of ro's output VCs, the global oracle (partitions > 1
 * refuse its readers), and the output-queue view. The same view wherever a
 * route is computed: the route stage, the NIC's lookahead source decision,
 * the exact deadlock scan. */
static inline struct route_view fl_route_view(const struct flitnet *part, const struct fl_router *ro)
{
	return (struct route_view){
		.occ_base = &part->ovc[ro->vc_base].occ,
		.occ_stride = sizeof(struct fl_ovc),
		.n_vcs = part->V,
		.vc_buf_size = part->buf,
		.gocc_base = &part->ovc[0].occ,
		.oq = part->route->views & ROUTE_VIEW_OQ ? fl_router_oq : NULL,
		.oq_ctx = part,
		.port_base = ro->port_base,
		.gpend = part->pend,
		.gpocc = part->pocc,
		.gasum = part->asum,
	};
}
/* The partition's view kept between routes (part->rview), pointed at
 * router ro: only the router's two fields change per call; the rest is
 * set up again when part is a partition's copy. */
static inline const struct route_view *fl_kept_view(struct flitnet *part, const struct fl_router *ro)
{
	struct route_view *const view = &part->rview;
	if (__builtin_expect(view->oq_ctx != part, 0))
		*view = fl_route_view(part, ro);
	view->occ_base = &part->ovc[ro->vc_base].occ;
	view->port_base = ro->port_base;
	return view;
}
void fl_router_arrive(struct flitnet *n, uint32_t r, uint32_t gport, uint8_t vc, uint32_t pkt,
		      uint16_t seq);
void fl_router_arrivals(struct flitnet *n, uint32_t r, uint32_t first);
/* lookahead_decide = upstream (BookSim's lookahead timing): decide packet
 * pkt's route at router r, entering by local port `in` on VC in_vc, now,
 * from r's view, and keep it for the route stage there. */
void fl_la_decide(struct flitnet *n, uint32_t r, uint32_t in, uint32_t in_vc, uint32_t pkt, struct rng *rng);
/* The cycle's end: decide the heads that won a switch this cycle. */
void fl_la_flush(struct flitnet *n);
/* With partitions: the cycle's end sorts a partition's heads (in its own
 * thread), and the exchange decides every partition's (part.c). */
void fl_la_sort_pending(struct flitnet *n);
/* part.c, at an exchange (the clock one cycle past the switch winners'):
 * decide, in partition p, record pkt's route at router r, entering by
 * global port gin on VC in_vc, as fl_la_flush does at the cycle's end. */
void fl_la_decide_end(struct flitnet *p, uint32_t r, uint32_t in_vc, uint32_t gin, uint32_t pkt);
/* The same for partition s's entry e: on the record the head's new
 * partition made for it when it crossed in the cycle, else on s's. */
void fl_la_decide_pend(struct flitnet *n, struct flitnet *s, const struct fl_la_pend *e);

/* --- flitnet_plan.c: flitnet_new's first phases (flitnet_build.c); 0 or a negative error, its line in err --- */
/* How the network is split over threads and MPI ranks, and how a refusal
 * that depends on the split says what the user set. */
struct fl_split {
	uint32_t n_threads, n_ranks;
	bool parts_auto;
	char what[64];		/* what the user set, for the refusals */
	const char *key;	/* the key that says it, if one does */
	char auto_threads[96];	/* threads = 0: what it resolved to here */
};
/* The router keys refused before anything is allocated. */
int fl_check_router_cfg(const struct router_cfg *rc, const struct sim_cfg *sc, const struct topo *t,
			struct nl_err *err);
/* Threads, MPI ranks and partitions (n->sc.partitions, n->parts_chosen) into *s. */
int fl_plan_split(struct flitnet *n, const struct sim_cfg *sc, struct fl_split *s, struct nl_err *err);
/* The router's shape: VCs, buffers, delays, and which stage paths apply. */
void fl_set_shape(struct flitnet *n, const struct router_cfg *rc);
/* The routing function over each traffic class's VCs, and the refusals of what it needs of the other keys. */
int fl_route_setup(struct flitnet *n, const struct net_cfg *nc, const struct router_cfg *rc,
		   const struct sim_cfg *sc, const struct fl_split *s, struct nl_err *err);

/* --- flitnet.c (the cycle), flitnet_run.c (the run loop), flitnet_build.c --- */
/* One cycle of partition n: arrivals, endpoints, then routers (BookSim's
 * _Step); it touches only what the partition owns (part.c). */
void fl_cycle(struct flitnet *n);
/* Sleeping partition k (flitnet_run_until) back at the network's clock,
 * and every sleeping one. */
void fl_part_wake(struct flitnet *n, uint32_t k);
void fl_parts_wake_all(struct flitnet *n);
/* Partition k, one this process runs, sleeps (n->awake). */
static inline bool fl_part_asleep(const struct flitnet *n, uint32_t k)
{
	return !(n->awake[k >> 6] >> (k & 63) & 1);
}
/* The first awake partition from k on, n_parts when none: with
 * FL_FOR_AWAKE, the partitions this process runs, sleeping ones left
 * out, in order (those of n->own while none sleeps). n_parts > 1. */
static inline uint32_t fl_awake_from(const struct flitnet *n, uint32_t k)
{
	const uint32_t words = (n->n_parts + 63) / 64;
	uint32_t w = k >> 6;
	if (w >= words)
		return n->n_parts;
	uint64_t bits = n->awake[w] & (~0ULL << (k & 63));
	while (!bits) {
		if (++w >= words)
			return n->n_parts;
		bits = n->awake[w];
	}
	return w * 64 + (uint32_t)__builtin_ctzll(bits);
}
#define FL_FOR_AWAKE(n, k) for (uint32_t k = fl_awake_from(n, 0); k < (n)->n_parts; k = fl_awake_from(n, k + 1))
/* Lengthen every router-to-router channel g by cycles[g] (per-link
 * latency from cable lengths; [global port], terminal entries ignored):
 * before any traffic (flitnet_build.c). The wheels and the deadlock
 * bound follow the longest link. */
int fl_add_link_latency(struct flitnet *n, const uint64_t *cycles, struct nl_err *err);
void fl_schedule(struct flitnet *n, uint64_t cycle, const struct fl_event *ev);
/* The same for an event merged from another rank at a window's end, which
 * may be due in the cycle about to run (cycle >= now; mpi.c). */
void fl_schedule_merged(struct flitnet *n, uint64_t cycle, const struct fl_event *ev);
/* The same for an event known to be a flit, or a credit (no test of its kind). */
void fl_schedule_flit(struct flitnet *n, uint64_t cycle, const struct fl_event *ev);
void fl_schedule_credit(struct flitnet *n, uint64_t cycle, const struct fl_event *ev);
void fl_far_refill(struct flitnet *n);
/* Free the wheel of partition n: its slots' blocks, the free blocks and
 * the slot array (wheel.c). */
void fl_wheel_free(struct flitnet *n);
/* Return slot s's blocks to the free list, leaving it empty. */
static inline void fl_slot_clear(struct flitnet *n, struct fl_slot *s)
{
	if (s->head) {
		s->tail->next = n->blk_free;
		n->blk_free = s->head;
	}
	if (s->chead) {
		s->ctail->next = n->blk_free;
		n->blk_free = s->chead;
	}
	s->head = s->tail = s->chead = s->ctail = NULL;
	s->n = s->tail_n = s->ctail_n = 0;
}
/* Move the clock to cycle t (>= now): far events whose slot is now within
 * reach join the wheel before anything else is scheduled. */
static inline void fl_set_now(struct flitnet *n, uint64_t t)
{
	n->now = t;
	if (n->n_far && n->far[0].cycle < t + n->wheel_mask)
		fl_far_refill(n);
}
/* A new block for fl_chain_extend when the free list is empty; NULL
 * (n->oom set) on failure (wheel.c). */
__attribute__((cold)) struct fl_evblk *fl_chain_block_new(struct flitnet *n);
/* Append a block to the chain (head, tail): from the free list, or a new
 * one; NULL (n->oom set) on failure. Inline: in a sparse network nearly
 * every event opens its slot's chain (a block per slot and kind, back to
 * the free list when the slot is dispatched), and the call cost 42
 * instructions a block (replay of lammps-lj-2, benchmarks/README.md). */
static inline struct fl_evblk *fl_chain_extend(struct flitnet *n, struct fl_evblk **head, struct fl_evblk **tail)
{
	struct fl_evblk *b = n->blk_free;
	if (__builtin_expect(b != NULL, 1))
		n->blk_free = b->next;
	else if (!(b = fl_chain_block_new(n)))
		return NULL;
	b->next = NULL;
	if (*tail)
		(*tail)->next = b;
	else
		*head = b;
	*tail = b;
	return b;
}
/* Append compact credit `code` to slot s's credit chain; false when no
 * block could be had. Inline: a router sends one per flit it forwards. */
static inline bool fl_slot_push_cr(struct flitnet *n, struct fl_slot *s, uint32_t code)
{
	if (!s->ctail || s->ctail_n == FL_BLK_CREDITS) {
		if (!fl_chain_extend(n, &s->chead, &s->ctail))
			return false;
		s->ctail_n = 0;
	}
	s->ctail->cr[s->ctail_n++] = code;
	s->n++;
	return true;
}
/* Append compact flit f to slot s's main chain (n->fl_compact); false
 * when no block could be had. */
static inline bool fl_slot_push_cf(struct flitnet *n, struct fl_slot *s, struct fl_cflit f)
{
	if (!s->tail || s->tail_n == FL_BLK_FLITS) {
		if (!fl_chain_extend(n, &s->head, &s->tail))
			return false;
		s->tail_n = 0;
	}
	s->tail->fl[s->tail_n++] = f;
	s->n++;
	return true;
}
/* Compact credit `code` due at `cycle` straight into this partition's
 * wheel, as fl_schedule_credit puts it there: true if it went (compact
 * credits, within the wheel's reach), false to schedule it as an event. */
static inline bool fl_wheel_credit(struct flitnet *n, uint64_t cycle, uint32_t code)
{
	NL_ASSERT(cycle > n->now);
	if (!n->cr_compact || cycle - n->now >= n->wheel_mask)
		return false;
	n->n_events += fl_slot_push_cr(n, &n->wheel[cycle & n->wheel_mask], code);
	return true;
}
/* Flit seq of packet `pkt` (its code: FL_CF_NIC set for an endpoint) for
 * input VC vc of `to`, due at `cycle`, straight into this partition's
 * wheel as a compact flit, as fl_schedule_flit puts it there: true if it
 * went (compact flits, within the wheel's reach), false to schedule it
 * as an event. A router's output (fl_send_flit) and a source's injection
 * (nic.c) both send this way. */
static inline bool fl_wheel_flit(struct flitnet *n, uint64_t cycle, uint32_t pkt, uint32_t to, uint16_t seq,
				 uint8_t vc)
{
	NL_ASSERT(cycle > n->now);
	if (!n->fl_compact || cycle - n->now >= n->wheel_mask)
		return false;
	const struct fl_cflit f = {.pkt = pkt, .at = fl_cflit_at(n, to, seq, vc)};
	n->n_events += fl_slot_push_cf(n, &n->wheel[cycle & n->wheel_mask], f);
	return true;
}
/* --- part.c --- */
/* Decide which of n_parts partitions (router ranges or METIS's cut,
 * [simulation] partitioner; balanced by routers and endpoints) runs each
 * router, and under MPI which of them this rank runs (own): r_part, own,
 * x_rank, x_size, so that fl_router_local and fl_ep_local answer before
 * the partitions exist. Build time, once the ports' links are set (METIS
 * weighs them by latency); 1 = n alone. */
int fl_part_plan(struct flitnet *n, uint32_t n_parts, struct nl_err *err);
/* Split the built network n into the partitions fl_part_plan decided:
 * their structs, outboxes and router spans, the links' target partitions,
 * and under MPI the exchange's state. */
int fl_part_build(struct flitnet *n, uint32_t n_parts, struct nl_err *err);
/* Free the other partitions and the partition bookkeeping (root). */
void fl_part_release(struct flitnet *n);
/* Free what partition s owns itself: wheel, far heap, pools, active
 * lists, source heap, scratch, histograms. */
void fl_part_release_own(struct flitnet *s);
void fl_arrivals_reserve(struct flitnet *n);
/* An event for partition `part` (another one): queued in the outbox, with
 * a copy of the packet's record for a head flit; the tail frees the local
 * record (it has left this partition). */
void fl_xsend(struct flitnet *n, uint32_t part, uint64_t cycle, const struct fl_event *ev);
/* partitioner = metis (part_metis.c): r_part[router] of n_parts partitions
 * cut by METIS, each link weighted by the longest link's latency over its
 * own (ports[].link.lat); 0, or 1 when a partition got no router (use
 * ranges), or a negative code with one line in *err. */
int fl_part_metis(const struct topo *t, uint32_t n_parts, const uint32_t *r_eps, const struct fl_port *ports,
		  uint16_t *r_part, struct nl_err *err);
/* Merge partition s's outbox towards partition p into p's wheel, and one
 * event of such an outbox (la: its carried decisions, or NULL). */
void fl_xmerge(struct flitnet *n, struct flitnet *s, struct flitnet *p);
/* Merge the outboxes p->xin lists into p (fl_part_merge_own lists them). */
void fl_part_merge_into(struct flitnet *n, struct flitnet *p);
/* Every partition of this process takes what the others addressed to it
 * (fl_part_merge_into), on the workers when there are some: the cycle
 * boundary's merge, and under MPI the merge between a rank's own
 * partitions after each cycle of a window but its last (their links may
 * be shorter than the window). Visits only the (source, target) pairs
 * with events: O(partitions + such pairs), not partitions squared. */
void fl_part_merge_own(struct flitnet *n);
void fl_xmerge_event(struct flitnet *n, struct flitnet *p, struct fl_xevent *xe, const struct route_cand *la);
/* Before running: the drivers' and observer's settings of the root to the
 * other partitions. */
void fl_part_sync(struct flitnet *n);
/* The cycle boundary (every partition has run the cycle): outboxes merged
 * into their targets' wheels in partition order, counters folded into the
 * root, completed messages delivered. This is where a thread barrier or an
 * MPI exchange goes (issue 16). */
void fl_part_exchange(struct flitnet *n);
void fl_part_fold_counters(struct flitnet *n, struct flitnet *s);
/* The partitions' histograms folded into the root's, before the driver
 * reads them (not after every cycle: they are large). */
void fl_part_fold_hists(struct flitnet *n);
/* Events pending in all partitions. */
uint64_t fl_events_total(const struct flitnet *n);

/* The partition owning router r / endpoint e. */
/* Is router r / endpoint e run by this process (always without MPI)? */
static inline bool fl_router_local(const struct flitnet *n, uint32_t r)
{
	return !n->r_part || n->r_part[r] % n->x_size == n->x_rank;
}
static inline bool fl_ep_local(const struct flitnet *n, uint32_t e)
{
	return fl_router_local(n, n->ep_router[e]);
}

static inline struct flitnet *fl_part_of_router(const struct flitnet *n, uint32_t r)
{
	return n->n_parts > 1 ? n->part[n->r_part[r]] : n->part[0];
}

/* Send a flit (fl_send) or a credit (fl_send_credit) over link l: into
 * this partition's wheel, or to the outbox of the partition owning its
 * target. */
static inline void fl_send(struct flitnet *n, const struct fl_link *l, uint64_t cycle, const struct fl_event *ev)
{
	if (__builtin_expect(l->part != n->part_id, 0))
		fl_xsend(n, l->part, cycle, ev);
	else
		fl_schedule_flit(n, cycle, ev);
}
static inline void fl_send_credit(struct flitnet *n, const struct fl_link *l, uint64_t cycle, const struct fl_event *ev)
{
	if (__builtin_expect(l->part != n->part_id, 0))
		fl_xsend(n, l->part, cycle, ev);
	else
		fl_schedule_credit(n, cycle, ev);
}
/* fl_send_flit's other cases, as a full event (wheel.c). */
void fl_send_flit_event(struct flitnet *n, const struct fl_link *l, uint64_t cycle, uint32_t pkt, uint16_t seq,
			uint8_t vc);
/* Flit seq of packet pkt on VC vc over link l, due at `cycle`: what
 * fl_send does with that event, as a compact flit straight into this
 * partition's wheel when it stays there (the usual case: one per flit a
 * router forwards). */
static inline void fl_send_flit(struct flitnet *n, const struct fl_link *l, uint64_t cycle, uint32_t pkt,
				uint16_t seq, uint8_t vc)
{
	if (__builtin_expect(l->part == n->part_id, 1) &&
	    fl_wheel_flit(n, cycle, l->flit_kind == EV_FLIT_NIC ? FL_CF_NIC | pkt : pkt, l->to, seq, vc))
		return;
	fl_send_flit_event(n, l, cycle, pkt, seq, vc);
}
/* A credit for output VC ov = to x V + vc of the router port or endpoint
 * across link l (code: ov, with FL_CR_NIC for an endpoint), due at
 * `cycle`: what fl_send_credit does with that event, without building it
 * when the credit stays in this partition's wheel as a compact code (the
 * usual case: one per flit a router forwards). */
static inline void fl_send_credit_code(struct flitnet *n, const struct fl_link *l, uint64_t cycle, uint32_t vc)
{
	const uint32_t ov = l->to * n->V + vc;
	if (__builtin_expect(l->part == n->part_id, 1) &&
	    fl_wheel_credit(n, cycle, l->credit_kind == EV_CREDIT_NIC ? FL_CR_NIC | ov : ov))
		return;
	const struct fl_event ev = {.vc = (uint8_t)vc, .kind = l->credit_kind, .to = l->to};
	fl_send_credit(n, l, cycle, &ev);
}

/* --- wheel.c --- */
/* realloc for run-time growth: NULL (and n->oom set) on failure, or when a
 * test's fail_nth count runs out. */
void *fl_grow(struct flitnet *n, void *p, size_t size);
/* A pool array (struct fl_pools) of *bytes bytes (p NULL: none) grown to
 * `size` bytes (*bytes set), the new ones zero; fails as fl_grow does,
 * leaving p and *bytes as they were. Freed with fl_pool_free(p, *bytes). */
void *fl_pool_grow(struct flitnet *n, void *p, size_t *bytes, size_t size);
void fl_pool_free(void *p, size_t size);
/* Free partition n's pools (fl_part_release_own). */
void fl_pools_free(struct flitnet *n);
/* A zeroed array of count x size bytes starting on a cache line, or NULL;
 * a large one's pages become resident only when written (flitnet_build.c).
 * Freed with fl_free_lines (NULL: nothing). */
void *fl_calloc_lines(size_t count, size_t size);
void fl_free_lines(void *p);
/* fl_reserve when something is short or failed (wheel.c). */
__attribute__((cold)) int fl_reserve_grow(struct flitnet *n, struct nl_err *err);
/* Before a cycle: room in the pools for what one cycle can take; NL_ENOMEM
 * (one line in *err) if that or any earlier run-time allocation failed.
 * The usual case, nothing to grow, is tested inline: a call before each
 * cycle with work cost 55 instructions, 2% of a sparse replay's. */
static inline int fl_reserve(struct flitnet *n, struct nl_err *err)
{
	if (__builtin_expect(n->pool.cap_pkts >= (uint64_t)n->pool.n_pkts + n->own_eps &&
				     n->pool.cap_runs >= (uint64_t)n->pool.n_runs + n->own_runs &&
				     !n->oom &&
				     (!n->local_arrivals || n->wheel[n->now & n->wheel_mask].n <= n->arr_cap),
			     1))
		return 0;
	return fl_reserve_grow(n, err);
}
void fl_activate_router(struct flitnet *n, uint32_t r, uint64_t cycle);
void fl_router_va_wake(struct flitnet *n, uint32_t r, uint32_t g, uint32_t v);
/* Whether a head may be parked on output VC ov (= g x V + its VC) of
 * global port g (router.c, fl_va_park): the heads on g's list ask for
 * any of its VCs. */
static inline bool fl_va_waiting(const struct flitnet *n, uint32_t g, uint64_t ov)
{
	return n->va_wait[g] != FL_NONE16 || (n->va_wmask && n->va_wmask[ov]);
}
void fl_activate_nic(struct flitnet *n, uint32_t e, uint64_t cycle);
/* fl_activate_nic(n, e, n->now + 1), inline: a source sending a packet
 * asks for the next cycle after each flit (nic.c). */
static inline void fl_activate_nic_next(struct flitnet *n, uint32_t e)
{
	struct fl_nic *c = &n->nics[e];
	if (c->stamp == n->now + 2)
		return;
	c->stamp = n->now + 2;
	n->act_e_next[n->n_act_e_next++] = e;
}
/* Earliest cycle >= now at which anything happens in any partition this
 * process runs, or in partition n alone. */
uint64_t fl_next_work(const struct flitnet *n);
/* fl_next_work over every rank under MPI (a collective then), else the same. */
uint64_t fl_next_work_all(const struct flitnet *n);
/* One process (no MPI): run the cycles with work up to `last`
 * (inclusive), jumping over idle ones, until one delivers a message
 * (n->msg.delivered, counted from its caller's reset) or none is left
 * by `last`, then the clock jumped to last + 1 (fl_clock_jump), as
 * flitnet_run_until(n, last + 1) moves it (backend_flit.c, flit_advance).
 * Errors as flitnet_run_until. */
int flitnet_run_to_delivery(struct flitnet *n, uint64_t last, struct nl_err *err);
/* Every partition's clock to cycle t (>= now; no work before t), and its
 * speedup credit (BookSim's _partial_internal_cycles) moved by the cycles
 * jumped, as the run loops jump idle time: a clock moved without the
 * credit puts a fractional internal_speedup's steps out of phase. */
void fl_clock_jump(struct flitnet *n, uint64_t t);
/* Partition s's completed messages appended to the root's list (the
 * root's own come first: partition order). */
void fl_part_gather_done(struct flitnet *n, struct flitnet *s);
uint64_t fl_part_next_work(const struct flitnet *n);
/* Latest cycle of an event pending in partition n's wheel or far heap (0:
 * none): no deadlock check can fire before it (mpi.c's windows). */
uint64_t fl_part_last_event(const struct flitnet *n);
/* The (up to) NET_BUSIEST network channels with the most chan_flits,
 * busiest first, ties by global port; *sum and *n_chan get the flits of
 * all network channels and their number. Returns how many are in out. */
uint32_t fl_busiest_channels(const struct flitnet *n, struct net_channel_use out[NET_BUSIEST], uint64_t *sum,
			     uint64_t *n_chan);
/* The pools' free lists, inline: the router step takes a run for every
 * arriving flit that starts one (every flit-hop of a single-flit packet)
 * and gives it back as the flit leaves, and a source takes a record per
 * packet. Out of line (wheel.c), as calls from the one function every
 * stage is inlined into, they cost 3.3-3.6% more instructions per
 * flit-hop on the converted BookSim2 files at 0.3 (ff_ranmin,
 * df_flex_min, df_flex_ugal, ft_nca). Only a list found empty goes to
 * wheel.c, which takes a slot never used yet (growing the packet pool). */
uint32_t fl_run_alloc_fresh(struct flitnet *n);
uint32_t fl_pkt_alloc_grow(struct flitnet *n);
static inline uint32_t fl_run_alloc(struct flitnet *n)
{
	const uint32_t i = n->pool.free_run;
	if (__builtin_expect(i == FL_NONE, 0))
		return fl_run_alloc_fresh(n);
	n->pool.free_run = n->pool.runs[i].next;
	return i;
}
static inline void fl_run_free(struct flitnet *n, uint32_t i)
{
	n->pool.runs[i].next = n->pool.free_run;
	n->pool.free_run = i;
}
/* A packet record, or FL_NONE when the pool cannot grow. */
static inline uint32_t fl_pkt_alloc(struct flitnet *n)
{
	const uint32_t i = n->pool.free_pkt;
	if (__builtin_expect(i == FL_NONE, 0))
		return fl_pkt_alloc_grow(n);
	n->pool.free_pkt = n->pool.pkts[i].next;
	return i;
}
/* The routing functions' view of a record's route state, and back. */
static inline struct route_pkt fl_rt_load(const struct flitnet *n, const struct fl_rt *s)
{
	struct route_pkt p;
	memcpy(&p, s, sizeof *s);
	p.dst_router = n->ep_router[s->dst_ep];
	return p;
}
static inline void fl_rt_store(struct fl_rt *d, const struct route_pkt *p)
{
	memcpy(d, p, sizeof *d);
}

/* Packet record i's message index + 1 (0: none, and always without the
 * message driver). */
static inline uint32_t fl_pkt_msg(const struct flitnet *n, uint32_t i)
{
	return n->pool.msg ? n->pool.msg[i] : 0;
}
/* Set it, allocating the side array on the first message (n->oom on
 * failure); without one, 0 costs a test and no call (synthetic sources). */
void fl_pkt_msg_alloc(struct flitnet *n);
static inline void fl_pkt_set_msg(struct flitnet *n, uint32_t i, uint32_t msg)
{
	if (!n->pool.msg) {
		if (!msg)
			return;
		fl_pkt_msg_alloc(n);
		if (!n->pool.msg)
			return;
	}
	n->pool.msg[i] = msg;
}
static inline void fl_pkt_free(struct flitnet *n, uint32_t i)
{
	n->pool.pkts[i].next = n->pool.free_pkt;
	n->pool.free_pkt = i;
}

/* --- deadlock.c --- */
/* Derive the checks' parameters and allocate their arrays (build time). */
int fl_dl_init(struct flitnet *n, struct nl_err *err);
/* Derive the local bound for packets of up to max_packet_flits. */
void fl_dl_setup(struct flitnet *n, uint32_t max_packet_flits);
/* The compact flits' layout for packets of up to max_flits flits
 * (flitnet_build.c); the largest packet a message is cut into. */
void fl_cf_layout(struct flitnet *n, uint32_t max_flits);
void fl_pkt_max_grow(struct flitnet *n, uint32_t flits);
uint32_t fl_msg_packet_flits(const struct flitnet *n);
void fl_dl_release(struct flitnet *n);
/* After each cycle: the global check (nothing can move) and, every
 * dl_period cycles, the local one. NL_EDEADLOCK with the one-line report in
 * *err and the details in n->report and n->dl. */
int fl_dl_global(struct flitnet *n, struct nl_err *err);
int fl_dl_scan(struct flitnet *n, struct nl_err *err);

static inline int fl_dl_after_cycle(struct flitnet *n, struct nl_err *err)
{
	if (!n->flits_in_net)
		return 0;
	/* With voq = 1 the checks compute routes (dl_voq_stuck), and a route
	 * that reads output queues reads its partition's clock, which a
	 * sleeping partition has left behind: every one wakes first. */
	if (n->now - n->last_move > n->dl_quiet && !fl_events_total(n)) {
		if (n->voq)
			fl_parts_wake_all(n);
		return fl_dl_global(n, err);
	}
	if (n->now >= n->dl_next_scan) {
		if (n->voq)
			fl_parts_wake_all(n);
		return fl_dl_scan(n, err);
	}
	return 0;
}

/* --- backend_flit.c --- */
/* The model behind a backend created by net_backend_flit_ops (tests). */
struct flitnet *fl_backend_net(const struct net_backend *b);

/* --- nic.c --- */
void fl_nic_step(struct flitnet *n, uint32_t e);
void fl_nic_eject(struct flitnet *n, uint32_t e, uint32_t pkt, uint16_t seq, uint8_t vc);
/* A credit for injection VC s = endpoint x V + VC. */
void fl_nic_credit(struct flitnet *n, uint64_t s);
void fl_gen_push(struct flitnet *n, uint32_t e);
/* Stop every source for good (tests: drain a network). */
void fl_gen_stop(struct flitnet *n);
/* Partition p's source calendar, empty (its slots allocated). */
void fl_gen_calendar_clear(struct flitnet *p);
/* gen_next[e] of a source that waits nowhere, and of one in the heap: a
 * source is queued once at most (a second link would corrupt its slot's
 * list; fl_gen_push ignores a source already waiting, which is due then
 * anyway: its creation time cannot move while it waits). */
#define FL_GEN_OUT (UINT32_MAX - 1) /* macros: C11 enumerators must fit an int */
#define FL_GEN_HEAP (UINT32_MAX - 2)
/* The earliest cycle a waiting source is due, UINT64_MAX if none. */
static inline uint64_t fl_gen_top(const struct flitnet *n)
{
	uint64_t next = n->gen_n ? n->gen_heap[0] >> 32 : UINT64_MAX;
	return n->cal_n && n->cal_next < next ? n->cal_next : next;
}

/* --- alloc.c --- */
/* Run allocator ops over reqs[0..n): fills in_match[in] / out_match[out]
 * (-1 unmatched) and updates the pointer arrays (inputs n_in with
 * accept/input pointers aptr[], outputs n_out with grant/output pointers
 * gptr[]). Requests from one input, or to one output, or pairwise
 * disjoint, take a shortcut that every allocator agrees on. */
void fl_allocate(struct flitnet *n, const struct alloc_ops *ops, uint32_t iters, const struct fl_areq *reqs,
		 uint32_t n_req, uint32_t n_in, uint32_t n_out, uint16_t *aptr, uint16_t *gptr);
/* The output arbiters' stage alone, for requests of which no two share an
 * input (an input_single_request allocator whose input stage was done in
 * the gather): what that allocator's full run gives on them. */
void fl_allocate_outputs(struct flitnet *n, const struct fl_areq *reqs, uint32_t n_req, uint32_t n_in,
			 uint32_t n_out, uint16_t *aptr, uint16_t *gptr);

#endif
