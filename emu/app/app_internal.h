/* emu/app internals shared by its files: pools, maps, the rank, request,
 * message and collective records, and the engine context.
 *
 * Records live in chunked pools addressed by 32-bit indices, so a pointer
 * to a record stays valid while others are allocated, and steady-state
 * replay does not allocate (freed records are reused). Lookups that would
 * be O(ranks^2) as arrays (per-pair sequence numbers, per-(comm, source)
 * match lists) are hash maps holding only what is live.
 */
#ifndef NETLOOM_APP_APP_INTERNAL_H
#define NETLOOM_APP_APP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "core/evheap.h"
#include "core/stats.h"

struct net_backend;
struct nl_err;

#define APP_NONE UINT32_MAX

/* Limits that come from the packing of map keys. */
#define APP_MAX_RANKS TRACE_REPLAY_MAX_RANKS
#define APP_MAX_COMMS TRACE_REPLAY_MAX_COMMS

/* --- u64 -> u32 hash map (open addressing, linear probing) --------------- */

#define APP_MAP_EMPTY UINT64_MAX

struct app_map {
	uint64_t *keys; /* APP_MAP_EMPTY marks a free slot */
	uint32_t *vals;
	uint32_t mask;  /* capacity - 1 (capacity a power of two) */
	uint32_t n;
};

int app_map_init(struct app_map *m, uint32_t cap);
void app_map_release(struct app_map *m);
uint32_t app_map_get(const struct app_map *m, uint64_t key); /* APP_NONE when absent */
int app_map_put(struct app_map *m, uint64_t key, uint32_t val); /* insert or replace */
void app_map_del(struct app_map *m, uint64_t key);
/* Delete key only while it maps to val (one probe). */
void app_map_del_val(struct app_map *m, uint64_t key, uint32_t val);

struct app_pool;
/* Remove every entry whose record (pool p, indexed by the value) idle()
 * accepts, freeing the record; O(capacity). Returns how many went. */
uint32_t app_map_sweep(struct app_map *m, struct app_pool *p, bool (*idle)(const void *rec));

/* --- chunked pool of fixed-size records ------------------------------------ */

#define APP_CHUNK_BITS 10u
#define APP_CHUNK (1u << APP_CHUNK_BITS)

/* The first 4 bytes of a free record hold the next free index. */
struct app_pool {
	char **chunks;
	uint32_t n_chunks, cap_chunks;
	uint32_t elem;      /* record size, bytes */
	uint32_t top;       /* records ever handed out (high-water mark) */
	uint32_t free_head; /* APP_NONE when empty */
	uint32_t live;
};

void app_pool_init(struct app_pool *p, uint32_t elem);
void app_pool_release(struct app_pool *p);
/* A zeroed record's index, or APP_NONE when out of memory. */
uint32_t app_pool_alloc(struct app_pool *p);
void app_pool_free(struct app_pool *p, uint32_t i);
static inline void *app_pool_at(const struct app_pool *p, uint32_t i)
{
	return p->chunks[i >> APP_CHUNK_BITS] + (size_t)(i & (APP_CHUNK - 1)) * p->elem;
}

/* --- records ------------------------------------------------------------------ */

enum { REQ_SEND = 1, REQ_RECV, REQ_COLL };
enum { RS_INACTIVE, RS_ACTIVE, RS_DONE };
enum {
	RF_PERSISTENT = 1u << 0, /* send_init/recv_init: survives completion */
	RF_DETACHED = 1u << 1,   /* nobody will wait: free on completion */
	RF_WAITED = 1u << 2,     /* the owner is blocked and counts it */
	RF_SYNC = 1u << 3,       /* ssend: rendezvous whatever the size */
	RF_BUFFERED = 1u << 4,   /* bsend: completes when posted */
	RF_POSTED = 1u << 5,     /* recv sitting in a posted queue */
	RF_USER = 1u << 6,       /* mapped from a trace request id */
	RF_CANCELLED = 1u << 7,  /* MPI_Cancel succeeded: completed without a match */
};

struct app_req {
	uint32_t next, prev;   /* posted queue links; next is the pool's free link */
	uint8_t kind, state;   /* REQ_*, RS_* */
	uint16_t flags;        /* RF_* */
	uint16_t op_kind;      /* trace op that created it */
	uint32_t rank;         /* owner, world rank */
	uint32_t user_id;      /* trace request id when RF_USER */
	uint32_t parent;       /* collective this is a step of, or APP_NONE */
	uint32_t comm;         /* communicator index */
	int32_t peer, tag;     /* comm-local peer / TRACE_ANY_SOURCE; tag / TRACE_ANY_TAG */
	uint32_t coll;         /* REQ_COLL: its collective record */
	uint64_t bytes;
	uint64_t post_seq;     /* recv: posting order, resolves wildcard vs specific */
	uint64_t t_post;       /* when posted (started), ps */
	uint64_t t_peer;       /* when the matching peer operation was posted, ps */
	uint64_t op_index;     /* index of the creating op in its rank's stream */
};

/* MSG_DATA travels sender to receiver in both protocols; MSG_FIN (get
 * protocol) receiver to sender. */
enum { MSG_EAGER = 1, MSG_RTS, MSG_CTS, MSG_DATA, MSG_FIN };

/* One MPI message through its protocol: an eager message, or the RTS that
 * turns into the CTS and then the DATA of a rendezvous. */
struct app_msg {
	uint32_t next, prev;         /* unexpected list of its (comm, source); next = pool free link */
	uint32_t all_next, all_prev; /* the receiver's unexpected list in match order; held list */
	uint8_t kind;                /* MSG_* */
	uint8_t is_coll;             /* part of a collective */
	uint16_t op_kind;            /* the sender's op, for reports */
	uint32_t src, dst;           /* world ranks */
	uint32_t comm;
	int32_t src_local, tag;
	uint32_t seq;                /* matching order of (src, dst) */
	uint32_t send_req, recv_req;
	uint64_t bytes;
	/* When the sender / receiver posted its side (for a collective's
	 * messages: the latest member entry time it knew), for wait accounting. */
	uint64_t t_send_post, t_recv_post;
	uint64_t t_net;              /* when handed to the network */
	uint64_t send_op;            /* index of the sending op in its rank's stream */
	uint64_t t_sent, t_arrived;  /* ps: send posted; payload (eager or DATA) arrived */
};

/* Match lists of one (receiver, communicator, source). */
struct app_slot {
	uint32_t next_free;
	uint32_t posted_head, posted_tail;
	uint32_t unx_head, unx_tail;
	uint32_t idle;      /* both lists empty: kept for reuse until a sweep */
	uint64_t key;
};

/* Matching order of one (source, destination) pair while messages are in
 * flight between them. */
struct app_pair {
	uint32_t next_free;
	uint32_t send_seq;  /* next sequence number to stamp */
	uint32_t recv_seq;  /* next sequence number the receiver may match */
	uint32_t in_flight; /* stamped but not yet accepted */
	uint32_t held;      /* out-of-order arrivals, sorted by seq (via all_next) */
	uint32_t held_tail; /* last of held; meaningful only while held != APP_NONE */
	uint32_t idle;      /* nothing in flight: kept for reuse until a sweep */
	uint64_t key;
};

/* --- collectives ------------------------------------------------------------------ */

/* Primitive schedules a collective algorithm is made of. */
enum app_prim {
	PRIM_TREE_DOWN = 1, /* root to leaves (bcast, scatter) */
	PRIM_TREE_UP,       /* leaves to root (reduce, gather) */
	PRIM_RDX,           /* recursive-doubling exchange of the whole vector */
	PRIM_DISSEM,        /* dissemination barrier (Bruck) */
	PRIM_RING_BARRIER,  /* double ring */
	PRIM_AG_DIRECT,     /* allgather: everyone to everyone */
	PRIM_AG_RING,
	PRIM_AG_RD,
	PRIM_AG_BRUCK,
	PRIM_AG_NEIGHBOR,
	PRIM_A2A_DIRECT,
	PRIM_A2A_PAIRWISE,
	PRIM_A2A_BRUCK,
	PRIM_AR_RING,       /* allreduce: ring reduce-scatter + ring allgather */
	PRIM_AR_RABENSEIFNER,
	PRIM_RS_HALVING,    /* reduce-scatter by recursive halving */
	PRIM_RS_RING,
	PRIM_SCAN_CHAIN,
	PRIM_SCAN_RD,
};

enum app_tree { TREE_FLAT = 1, TREE_KNOMIAL, TREE_BINARY, TREE_CHAIN };
enum app_size_mode {
	SZ_FULL = 1, /* every message carries `bytes` */
	SZ_SUBTREE,  /* block x ranks in the subtree below the message's child */
	SZ_COUNTS,   /* counts[child] (scatterv) */
};

struct app_coll_part {
	uint8_t prim;         /* enum app_prim */
	uint8_t tree;         /* enum app_tree */
	uint8_t size_mode;    /* enum app_size_mode */
	uint8_t pad;
	uint32_t root;        /* comm-local root */
	uint32_t radix;       /* k-nomial radix */
	uint64_t bytes;       /* whole vector / per message */
	uint64_t block;       /* per-rank block */
	const uint64_t *counts;  /* [p]: per-rank blocks (v variants) or what I send to each */
	const uint64_t *rcounts; /* [p]: alltoallv what I receive from each */
};

#define APP_COLL_MAX_PARTS 3

struct app_coll_inst {
	uint32_t next_free;
	uint32_t req;          /* its REQ_COLL request */
	uint32_t rank, comm;   /* owner (world) and communicator index */
	uint32_t p, me;        /* communicator size and the owner's rank in it */
	int32_t tag_base;      /* its messages use tag_base - part */
	uint8_t n_parts, part;
	uint8_t posting;       /* guard: posting a step, do not recurse */
	uint8_t ckind;         /* enum app_coll */
	uint32_t step;         /* next step within the part */
	uint32_t outstanding;  /* sub-requests of the current step not complete */
	uint8_t alg;           /* enum app_alg that runs (a fallback or zero-count included) */
	uint64_t t_entry;      /* when the owner entered the collective */
	uint64_t t_peer;       /* latest member entry time learnt from its messages */
	struct app_coll_part parts[APP_COLL_MAX_PARTS];
	uint64_t *counts;      /* owned copies for v variants: [2p] */
};

/* One transfer of a step. */
struct app_xfer {
	uint32_t peer;   /* comm-local */
	uint8_t is_send;
	uint64_t bytes;
};

#define APP_STEP_DONE UINT32_MAX

/* The transfers of step `step` of primitive `pt` for rank `me` of `p`,
 * written to out[] (room for 2p); returns their count (0 = an empty step)
 * or APP_STEP_DONE after the last step. */
uint32_t app_prim_step(const struct app_coll_part *pt, uint32_t p, uint32_t me, uint32_t step,
		       struct app_xfer *out);

/* Fill c->parts for collective `coll` with algorithm `alg` (never AUTO),
 * sizes from the op, and c->alg with what runs: alg, or the algorithm
 * Open MPI falls back to inside it (APP_ALG_RABENSEIFNER_LINEAR,
 * APP_ALG_RING_RD). Returns 0 or NL_EINVAL when
 * alg does not apply. */
struct app_coll_sizes {
	uint64_t bytes;        /* vector / own block / own send size */
	uint64_t block;        /* per-rank block */
	uint64_t total;        /* sum of blocks (reduce_scatter, allgatherv) */
	const uint64_t *counts, *rcounts;
	uint32_t root;
	uint32_t radix;
	bool nonblocking; /* libnbc's algorithms have no fallbacks of coll/base's */
};
int app_coll_plan(struct app_coll_inst *c, enum app_coll coll, enum app_alg alg,
		  const struct app_coll_sizes *sz);

/* Open MPI 4.1.4's fixed decision (coll/tuned; libnbc for non-blocking;
 * coll/basic where tuned has none) for collective `coll` on p ranks with
 * decision size `bytes`; in_place: MPI_IN_PLACE was passed (libnbc's
 * iallreduce looks at it). Never returns APP_ALG_AUTO. */
enum app_alg app_tuned_choose(enum app_coll coll, uint32_t p, uint64_t bytes, bool nonblocking, bool in_place);

/* --- ranks, communicators, engine ------------------------------------------ */

enum { RK_RUN, RK_COMPUTE, RK_WAIT, RK_PROBE, RK_DONE };

struct app_rank {
	uint8_t state;         /* RK_* */
	uint8_t wait_any;      /* the wait completes on the first awaited request */
	uint8_t in_ready;      /* queued in the ready ring */
	uint8_t finalized;
	uint32_t n_pending;    /* awaited requests not yet complete */
	uint32_t block_req[2]; /* internal requests of a blocking call */
	struct trace_op op;    /* the current op; arrays copied into the buffers below */
	uint64_t op_index;     /* its index in the rank's stream */
	uint64_t *counts_buf;
	uint32_t counts_cap;
	uint32_t reqs_cap;
	uint32_t *reqs_buf;
	uint32_t *wait_q;      /* [reqs_cap]: a wait's requests, resolved once */
	uint32_t wait_q1;      /* the same for a single request */
	uint64_t t_call;       /* start of the current MPI call */
	uint64_t t_block;      /* when the current call blocked */
	uint64_t t_peer_max;   /* latest peer post time among awaited requests */
	uint64_t t_between;    /* when it last asked for its next op (earlier ops all ended), ps */
	uint64_t compute_from, compute_to; /* the compute interval begun last, ps */
	uint32_t wild_head, wild_tail; /* ANY_SOURCE receives, in post order */
	uint32_t unx_head, unx_tail;   /* unexpected messages, in match order */
	uint64_t post_seq;
	uint32_t probe_comm;
	int32_t probe_src, probe_tag;
	/* The request ids the trace created on this rank, so that a wait on
	 * an id with no live request tells one the replay already completed
	 * (a polling program, replayed faster) from one never created (a
	 * damaged trace): a bit per id below APP_IDS_EXACT, grown as ids
	 * come; past it only the largest id (0: none). */
	uint64_t *ids_made;
	uint32_t ids_made_words;
	uint32_t id_max_made;
	struct app_rank_stats st;
};

/* Request ids told apart exactly (app_rank.ids_made): the recorder's and
 * the OTF2 importer's ids stay below the number of requests in flight.
 * Larger ids (DUMPI's counters, EZTrace's addresses) only move the
 * rank's largest id, so a rank's bitmap never passes 512 bytes, however
 * many requests its trace makes. */
#define APP_IDS_EXACT 4096u

struct app_comm {
	uint32_t id;
	uint32_t size;
	bool is_self;       /* MPI_COMM_SELF: every rank is rank 0 of its own */
	uint32_t *world;    /* [size] world rank of each member */
	/* Rank in comm or -1 of world ranks lo .. hi (the least and the
	 * greatest member), local_of[r - lo]; NULL = world (identity). Over
	 * the members' span, not every world rank: a tiled trace of 16,384
	 * ranks has 2,050 communicators of 16 ranks. */
	int32_t *local_of;
	uint32_t lo, hi;
	uint32_t *coll_seq; /* [size] collectives started by each member */
};

/* Whether world rank r is a member of cm (self: every rank). */
static inline bool app_comm_has(const struct app_comm *cm, uint32_t r)
{
	return !cm->local_of || (r >= cm->lo && r <= cm->hi && cm->local_of[r - cm->lo] >= 0);
}

/* World rank r's rank in cm (r must be a member). */
static inline uint32_t app_comm_local(const struct app_comm *cm, uint32_t r)
{
	return cm->is_self ? 0 : cm->local_of ? (uint32_t)cm->local_of[r - cm->lo] : r;
}

/* World rank of member `peer` of cm, as seen by world rank r. */
static inline uint32_t app_comm_world(const struct app_comm *cm, uint32_t r, uint32_t peer)
{
	return cm->is_self ? r : cm->world[peer];
}

enum { EV_RESUME = 1, EV_LOCAL };

struct app {
	struct app_config cfg;
	struct app_source src;
	struct net_backend *net;
	uint32_t n_ranks;
	uint32_t *rank_ep;     /* [n_ranks] */
	struct app_rank *ranks;
	struct app_comm *comms;
	uint32_t n_comms;
	struct app_map comm_index; /* trace comm id -> index */

	struct app_pool reqs, msgs, slots, pairs, colls;
	struct app_map req_map;   /* rank << 32 | user id -> req */
	struct app_map slot_map;  /* dst << 40 | comm << 24 | src_local -> slot */
	struct app_map pair_map;  /* src << 32 | dst -> pair */
	/* Idle slots and pairs stay mapped (most are reused at once); when
	 * they outnumber the busy ones a sweep frees them, so memory follows
	 * what is live, not the trace's length. */
	uint32_t idle_slots, idle_pairs;

	struct evheap events; /* EV_* at their times */
	uint32_t *ready;          /* ring of ranks to run at `now` */
	uint32_t ready_head, ready_n, ready_cap;
	uint64_t *deliv;          /* message ids the backend delivered */
	size_t n_deliv, cap_deliv;
	int deliv_err;
	bool net_dirty;           /* a message was sent since the last advance */
	uint64_t net_next;        /* the backend's next event time after the last advance */
	uint64_t now;             /* ps */

	struct app_xfer *xfer;    /* step scratch, 2 * largest comm */
	bool xfer_busy;           /* a step is being posted from xfer */
	uint64_t cpu_factor_is_one;
	uint64_t ops_done;
	uint32_t ranks_done;      /* ranks at the end of their stream */
	uint64_t t_deadlock;
	bool deadlocked;

	app_match_fn on_match;    /* observer of user receives completing, or NULL */
	void *match_ctx;
	app_cut_why_fn cut_why;   /* why a rank ended without finalize (deadlock line), or NULL */
	void *cut_why_ctx;

	struct app_results res;
	struct app_rank_stats *rank_stats; /* [n_ranks], filled at the end */
	struct app_rank_stop *rank_stop;   /* [n_ranks], filled by app_stop_results */
	app_call_fn on_call;      /* app_set_call_observer, or NULL */
	void *on_call_ctx;
	struct stats_hist lat_all, lat_cls[APP_SIZE_CLASSES];

	/* app_set_jobs (issue 13): job of each rank, each job's start time
	 * (ps) and latency of the messages its ranks send; n_jobs = 0: none. */
	uint32_t n_jobs;
	uint32_t *job_of;         /* [n_ranks] */
	uint64_t *job_start;      /* [n_jobs] */
	struct stats_hist *job_lat; /* [n_jobs] */
};

/* app_p2p.c */
int app_p2p_send(struct app *a, uint32_t r, uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes,
		 uint16_t flags, uint32_t parent, uint32_t *req_out, struct nl_err *err);
int app_p2p_recv(struct app *a, uint32_t r, uint32_t comm, int32_t peer, int32_t tag, uint64_t bytes,
		 uint16_t flags, uint32_t parent, uint32_t *req_out, struct nl_err *err);
int app_p2p_start(struct app *a, uint32_t q, struct nl_err *err);
int app_p2p_deliver(struct app *a, uint32_t m, struct nl_err *err);
bool app_p2p_probe(struct app *a, uint32_t r, uint32_t comm, int32_t src, int32_t tag);
/* MPI_Cancel of request q: want is the recorded outcome (1 cancelled, 0
 * not, -1 unknown). Sets *cancelled to the simulated outcome. */
int app_p2p_cancel(struct app *a, uint32_t q, int want, bool *cancelled, struct nl_err *err);
uint32_t app_req_new(struct app *a, uint32_t r, uint8_t kind, uint16_t flags);
void app_req_free(struct app *a, uint32_t q);
int app_req_complete(struct app *a, uint32_t q, struct nl_err *err);
static inline struct app_req *app_req_at(const struct app *a, uint32_t q)
{
	return app_pool_at(&a->reqs, q);
}
static inline struct app_msg *app_msg_at(const struct app *a, uint32_t m)
{
	return app_pool_at(&a->msgs, m);
}

/* app_coll.c */
int app_coll_start(struct app *a, uint32_t r, const struct trace_op *op, uint32_t comm,
		   enum app_coll coll, bool nonblocking, uint32_t *req_out, struct nl_err *err);
int app_coll_sub_done(struct app *a, uint32_t c, const struct app_req *sub, struct nl_err *err);
/* What a collective's messages tell their receivers about when its members
 * entered it: the latest entry time this rank knows (its own included). */
uint64_t app_coll_tell(const struct app *a, uint32_t c);
void app_coll_free(struct app *a, uint32_t c);

/* app_ops.c: resume rank r and run its ops until one takes time or blocks. */
int app_rank_run(struct app *a, uint32_t r, struct nl_err *err);

/* app.c */
void app_make_ready(struct app *a, uint32_t r);
int app_push_event(struct app *a, uint64_t t_ps, uint32_t kind, uint32_t arg);
int app_bad_op(const struct app *a, uint32_t r, struct nl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prefix err's message with the op that made it, as app_bad_op names the
 * current one: "FILE: rank R op I (KIND): ..." (FILE "trace" for a source
 * without a name). Returns err's code. */
int app_err_at_op(const struct app *a, uint32_t r, uint64_t op_index, uint16_t kind, struct nl_err *err);

#endif
