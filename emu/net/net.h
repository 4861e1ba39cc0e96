/* The network below the message layer: the net_backend interface.
 *
 * Everything above the NIC speaks messages; everything below speaks packets
 * and flits. A backend takes messages (source endpoint, destination
 * endpoint, bytes, an id of the caller's) and reports when each one has
 * fully arrived. Two implementations: the flit-level model (the product)
 * and an analytical latency/bandwidth model. The app layer does not know
 * which one runs.
 *
 * Time contract (conservative co-simulation): the caller alternates
 * send() at its current time and advance() to its next event time. advance
 * stops early at the first instant at which some message completes, reports
 * every message completing at that instant, and says how far it got, so the
 * caller can react (send a reply) at that instant without the network
 * having run past it. Times are picoseconds.
 */
#ifndef NETLOOM_NET_NET_H
#define NETLOOM_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/param.h"

struct config;
struct config_table;
struct config_unread;
struct json_t;
struct nl_err;
struct topo;
struct net_backend;

/* Called for each delivered message: its id and the time its last byte
 * arrived at the destination endpoint. */
typedef void (*net_deliver_fn)(void *ctx, uint64_t msg_id, uint64_t t_ps);

/* One channel's use by one job (count_jobs, job_links). */
struct net_job_use {
	uint32_t port;  /* the topology's global port the channel leaves from */
	uint32_t job;   /* < count_jobs' n_jobs */
	uint64_t count; /* in job_links' unit, > 0 */
};

struct net_backend_ops {
	const char *name; /* "flit", "analytic" */
	const char *help; /* one line */

	/* The backend can run without a topology (create() accepts NULL):
	 * the session then builds one only when the user set it. */
	bool topology_optional;

	/* The backend can spread one replay over the ranks of an MPI launch
	 * (create() reads b->mpi; emu/net/mpi.h). */
	bool spreads_over_ranks;

	/* The backend routes without the routing function (the analytic one
	 * takes minimal paths, path_select): the session still checks a
	 * routing_function that is set, so a bad value is not silently
	 * accepted. */
	bool ignores_routing;

	/* Why, under cfg, the routes through a topology change none of this
	 * backend's predictions ("link_model = none and hop_latency_ns = 0"),
	 * per-link latencies (set_link_latency) aside; NULL when they do, as
	 * the hook NULL says: replays on several networks then predict the
	 * same for each, which the caller warns of. */
	const char *(*routes_unused)(const struct config *cfg);

	/* Configuration keys this backend reads (shown by config --keys and
	 * recorded in results); NULL for none. */
	const struct config_table *config;

	/* The keys of the shared tables ([network], [router], [simulation])
	 * it does not read either, besides every other backend's `config`
	 * table: a replay or live session warns of them when set with -s
	 * (they change nothing), NULL for none. */
	const struct config_unread *unread;

	/* Set up over topology t (kept by pointer, caller owns it; the
	 * analytic backend accepts NULL) with the backend's keys from cfg.
	 * b->ops is set; the backend owns b->state. */
	int (*create)(struct net_backend *b, const struct config *cfg, const struct topo *t,
		      struct nl_err *err);
	void (*destroy)(struct net_backend *b);

	/* Hand a message to the network at now_ps, which is never earlier than
	 * the time the network has reached nor later than NET_TIME_MAX_PS
	 * (net_time_check refuses both). bytes may be 0 (a control
	 * message still crosses the network as one minimal packet). */
	int (*send)(struct net_backend *b, uint64_t now_ps, uint32_t src_ep, uint32_t dst_ep,
		    uint64_t bytes, uint64_t msg_id, struct nl_err *err);

	/* Run the network towards until_ps; stop at the first instant t <=
	 * until_ps at which messages complete, calling deliver() for each of
	 * them (in a deterministic order). *reached_ps gets the time the
	 * network reached (t, or until_ps when nothing completed);
	 * *next_ps the earliest time anything can happen next (UINT64_MAX when
	 * the network is empty), so an idle caller can jump. Fails with
	 * NL_EDEADLOCK when the network stalls. */
	int (*advance)(struct net_backend *b, uint64_t until_ps, net_deliver_fn deliver, void *ctx,
		       uint64_t *reached_ps, uint64_t *next_ps, struct nl_err *err);

	/* Add the backend's own results (link utilisation, busiest links, ...)
	 * to the JSON object `out`. May be NULL. */
	int (*report)(struct net_backend *b, struct json_t *out, struct nl_err *err);

	/* Give every router-to-router channel its own latency: lat_ps[g] for
	 * the channel leaving global port g of the backend's topology
	 * (t->n_ports entries; terminal and unconnected ports are ignored),
	 * added to what the channel costs today. The session calls it once,
	 * after create and before the first send (cable_latency, issue 13);
	 * the array is copied. Fails with NL_ECONFIG when the backend's own
	 * settings leave no place for it. NULL: the backend has no per-link
	 * latency (the session refuses cable_latency). */
	int (*set_link_latency)(struct net_backend *b, const uint64_t *lat_ps, struct nl_err *err);
	/* Count the use of every router-to-router channel per job from now on
	 * (issue 13, interference): ep_job[e] < n_jobs is the job of endpoint
	 * e (kept by pointer, caller owns it), and a message counts for the
	 * job of its source endpoint. NULL: the backend cannot. */
	int (*count_jobs)(struct net_backend *b, const uint32_t *ep_job, uint32_t n_jobs, struct nl_err *err);
	/* Those counts, the nonzero ones only, sorted by port then job: *n
	 * entries at *use (the backend owns them, valid until the next
	 * job_links, send or destroy), in *unit ("flits", "bytes");
	 * *n = 0 before count_jobs. Memory follows the (channel, job) pairs
	 * used, not channels x jobs. NULL: the backend cannot count. */
	int (*job_links)(struct net_backend *b, const struct net_job_use **use, size_t *n, const char **unit,
			 struct nl_err *err);

	/* Under MPI (b->mpi), after the caller's sends and advances: this
	 * rank's status rc agreed over the ranks, as net_mpi_agree does
	 * (the first failing rank's code and line on every rank), where a
	 * rank may have failed alone between two of them (a replay's trace
	 * it could not decode) while the others went on into the network:
	 * their next send or advance learned it in its first collective and
	 * failed with a placeholder line, which this replaces. Collective.
	 * NULL: the backend does not spread over ranks. */
	int (*agree)(struct net_backend *b, int rc, struct nl_err *err);
};

struct net_backend {
	const struct net_backend_ops *ops;
	void *state;         /* the backend's own */
	struct net_mpi *mpi; /* the ranks it spreads over (net_backend_new_mpi), or NULL */
};

/* --- configuration ------------------------------------------------------- */

/* [network]: what the network is. */
struct net_cfg {
	char topology[PARAM_STR_MAX];         /* topology spec, "torus:k=8x8" */
	char routing_function[PARAM_STR_MAX]; /* routing spec, "dor" */
	int64_t channel_latency;              /* cycles of a router-to-router channel */
	int64_t terminal_latency;             /* cycles of a router-endpoint channel, 0 = 1 */
	int64_t local_latency;                /* dragonfly intra-group channel, 0 = channel_latency */
	int64_t global_latency;               /* dragonfly inter-group channel, 0 = channel_latency */
	int64_t noc_latency;                  /* 1 = flatfly channels as long as BookSim's on-chip grid */
	int64_t cycle_ps;                     /* network cycle period, ps */
	int flow_control;                     /* 0 wormhole, 1 virtual cut-through */
	int64_t flit_bytes;                   /* bytes per flit (messages to flits) */
	int64_t packet_bytes;                 /* largest packet payload (MTU), bytes */
};

/* [router]: the input-queued VC router (BookSim2's key names). */
struct router_cfg {
	int64_t num_vcs;
	int64_t vc_buf_size;      /* flits per VC */
	int64_t routing_delay;    /* cycles */
	int64_t vc_alloc_delay;
	int64_t sw_alloc_delay;
	int64_t st_prepare_delay;
	int64_t st_final_delay;
	int64_t credit_delay;
	double internal_speedup;  /* router steps per channel cycle */
	int64_t input_speedup;    /* crossbar inputs per port */
	int64_t output_speedup;   /* crossbar outputs per port */
	int vc_allocator;         /* NET_ALLOC_*: islip, separable_input_first, separable_output_first */
	int sw_allocator;
	int64_t alloc_iters;      /* iSLIP iterations */
	bool wait_for_tail_credit;
	bool pipelined_stages;    /* multi-cycle stages take a new item every cycle */
	int64_t traffic_classes;  /* VCs split into this many contiguous per-class ranges (1 = off) */
	bool hold_switch_for_packet; /* BookSim's: a packet's flits keep their crossbar connection (hold.h) */
	bool voq;                 /* virtual output queues at the inputs (voq.h) */
	int lookahead_decide;     /* routing_delay = 0: 0 decide on arrival, 1 upstream (BookSim's timing) */
	bool sequential_allocation; /* route decisions see the flits routed before them (router.c) */
};

/* router_cfg.vc_allocator / sw_allocator, in the choices' order (netcfg.c). */
enum { NET_ALLOC_ISLIP, NET_ALLOC_SEP_IN, NET_ALLOC_SEP_OUT };

enum { NET_PART_RANGES, NET_PART_METIS };

/* [simulation]: how an experiment runs (BookSim2's key names). */
struct sim_cfg {
	int sim_type;             /* 0 latency, 1 throughput */
	int64_t seed;
	int64_t warmup_periods;
	int64_t sample_period;    /* cycles */
	int64_t max_samples;
	double latency_thres;     /* cycles: above it a point is unstable */
	double warmup_thres;
	double acc_warmup_thres;
	double stopping_thres;
	double acc_stopping_thres;
	int64_t watchdog_cycles;  /* local deadlock check's bound, cycles; 0 = derived */
	int64_t check_interval;   /* cycles between invariant checks, 0 off, -1 debug builds only */
	int64_t max_drain_cycles; /* drain limit before a point is called unstable */
	int visit_order;          /* 0 forward, 1 reverse: a check that results do not depend on it */
	int64_t partitions;       /* router-range partitions of the flit model, run cycle by cycle */
	int64_t threads;          /* threads running the partitions side by side (0 = one per processor) */
	int partitioner;          /* NET_PART_RANGES (contiguous router ranges) or NET_PART_METIS */
	struct net_mpi *mpi;      /* not a key: the MPI ranks sharing each run (NULL: this process alone) */
	bool is_quiet;            /* not a key: no progress line of its own (a sweep's points on threads,
				   * whose one line the sweep draws) */
	/* Not a key: the configuration these were bound from, so a check made
	 * once the topology is known (partitions, threads, num_vcs) starts
	 * with where its key was set (config_origin), as read-time errors do.
	 * NULL: not known. Not owned; read while the network is built. */
	const struct config *cfg;
};

/* --- MPI ranks (issue 16 part 2, mpi.c) ------------------------------------ */

/* The ranks of an mpirun (or srun) launch: one run is spread over them,
 * each running the partitions k with k mod ranks = rank. */
struct net_mpi;

/* Was this process started by an MPI launcher? Reads the environment only
 * (Open MPI, PMI, PMIx), so a plain process never initialises MPI. *rank
 * and *size get what the launcher says (*size 0: it did not say). */
bool net_mpi_launched(uint32_t *rank, uint32_t *size);
/* Was netloom built with MPI? */
bool net_mpi_built(void);
/* Initialise MPI (once per process) and take the world's ranks. who:
 * the command ("replay"), which names the process in the one line said
 * on stderr before an abort no rank can recover from ("netloom replay:
 * rank 3: out of memory for ..."); copied. */
int net_mpi_open(const char *who, struct net_mpi **out, struct nl_err *err);
/* Finalise MPI (NULL: nothing). With NETLOOM_MPI_STATS=1 rank 0 first
 * prints the exchange's figures to stderr. */
void net_mpi_close(struct net_mpi *m);
/* This rank, and the ranks (0 and 1 for NULL). */
uint32_t net_mpi_rank(const struct net_mpi *m);
uint32_t net_mpi_size(const struct net_mpi *m);

/* How ranks stay in step when one of them fails (docs/scaling.md,
 * "Failures on one rank"): no rank leaves a phase alone. Before a
 * collective that follows work which may fail on some ranks only (a
 * configuration read, a network built, a round of points run), every rank
 * calls net_mpi_agree with its own status; all then take the same branch.
 * Without MPI or with m NULL these return their input. */

/* Collective: rc is this rank's status (0 or a negative NL_E*), *err its
 * line when rc < 0. Returns, on every rank, the status of the lowest
 * failing rank (0: none failed). A rank that did not fail, or failed after
 * a lower one, gets that rank's line in *err, prefixed "MPI rank R of N: "
 * unless R is 0 (rank 0 prints, so its own line stays as it was). */
int net_mpi_agree(const struct net_mpi *m, int rc, struct nl_err *err);

/* Collective: the exit status (>= 0) all ranks return, so a failure
 * anywhere fails every rank: rank 0's when not 0 (it printed why, e.g. a
 * file it could not write), else the largest of the others'. */
int net_mpi_agree_exit(const struct net_mpi *m, int code);

/* Every rank's h (a hash of what it read: its resolved configuration, its
 * trace) must be rank 0's: each rank builds its share of one network and
 * replays one trace, so a node with another copy of a file gave a mix of
 * two runs, or crashed. On a difference every rank fails with "MPI rank R
 * of N: WHAT differs from rank 0's ..." (R the lowest that differs). */
int net_mpi_agree_same(const struct net_mpi *m, uint64_t h, const char *what, struct nl_err *err);

/* Collective: every rank's len bytes at buf, concatenated in rank order,
 * on every rank. *all is the caller's to free (malloc'd; non-NULL even
 * when empty), at[0..size] the offsets of each rank's bytes in it (at[r]
 * to at[r + 1]; caller's storage of size + 1 entries). Returns 0, or, on
 * every rank alike, NL_ENOMEM (a rank could not hold the result) or
 * NL_ERANGE (more than 2 GiB in all) with one line in *err. */
int net_mpi_allgather(const struct net_mpi *m, const void *buf, size_t len, uint8_t **all, size_t *at,
		      struct nl_err *err);

extern const struct config_table net_network_table;
extern const struct config_table net_router_table;
extern const struct config_table net_sim_table;
/* The [simulation] keys only a synthetic-traffic experiment reads (its
 * phases, convergence and drain: experiment.c); a replay or live session
 * drives the network by its messages and reads none of them. */
extern const char *const net_sim_experiment_keys[];

/* --- the flit-level network ---------------------------------------------- */

#define NET_DL_WAITS 8

/* One deadlocked input VC and what it waits for. */
struct net_dl_wait {
	uint32_t router, in_port, vc; /* the input VC */
	uint32_t out_port;            /* the output port it waits on */
	uint32_t out_vc_lo, out_vc_hi; /* an output VC (active: credits) or a range (waiting for a VC) */
	uint32_t flits;               /* flits buffered in it */
	bool has_vc;                  /* holds out_vc_lo and waits for credits; else waits for a free VC */
};

/* A deadlock found by the flit model (docs/engine.md, deadlock checks). */
struct net_deadlock {
	uint64_t cycle;      /* cycle it was found at */
	uint64_t flits;      /* flits in the deadlocked input VCs */
	uint32_t vcs;        /* deadlocked input VCs */
	bool global;         /* the global check: nothing in the network could change */
	uint64_t waited;     /* local check: cycles a front flit had waited (at least) */
	uint64_t bound;      /* local check: the bound it exceeded */
	uint32_t n_waits;    /* entries in waits[] */
	struct net_dl_wait waits[NET_DL_WAITS]; /* the first deadlocked VCs by router, port, VC */
};

struct flitnet;
struct traffic;

/* Build the flit model over topology t (kept by pointer): routing from
 * nc->routing_function, router parameters from rc, seed and safety limits
 * from sc. */
int flitnet_new(const struct net_cfg *nc, const struct router_cfg *rc, const struct sim_cfg *sc,
		const struct topo *t, struct flitnet **out, struct nl_err *err);
void flitnet_free(struct flitnet *n);

/* Attach synthetic traffic: Bernoulli injection at `rate` flits/cycle per
 * active endpoint, packet sizes uniform in [size_lo, size_hi] flits. */
int flitnet_set_traffic(struct flitnet *n, struct traffic *tr, double rate, uint32_t size_lo,
			uint32_t size_hi, struct nl_err *err);

/* The rule that gives a synthetic packet its traffic class ([traffic]
 * traffic_class, TRAFFIC_CLASS_*); packets of messages are class 0. */
void flitnet_set_class_rule(struct flitnet *n, int rule);

/* Run cycles until `cycle` (exclusive) or until a stop condition; jumps
 * over idle time. Fails with NL_EDEADLOCK (a one-line report in *err) when
 * a set of input VCs is proven to wait on each other forever: at once when
 * nothing in the network can change any more (global check), or within
 * the local check's bound when only part of the network is stuck. */
int flitnet_run_until(struct flitnet *n, uint64_t cycle, struct nl_err *err);

/* The deadlock report of the last NL_EDEADLOCK: one line per deadlocked
 * input VC ("router R in-port P VC V: state, flits, packet src->dst, waits
 * on ..."), or "". */
const char *flitnet_report(const struct flitnet *n);

/* The last deadlock found, or NULL. Owned by n. */
const struct net_deadlock *flitnet_deadlock(const struct flitnet *n);

/* The local check's bound in cycles (derived from the configuration, or
 * watchdog_cycles when set; docs/engine.md). */
uint64_t flitnet_deadlock_bound(const struct flitnet *n);

/* Check credit and flit conservation; NL_ECORRUPT with the first
 * violation. O(ports x VCs + w x events in flight) for w windows of
 * output VCs (at most 16); 32 KiB of stack, or 1/16 of 8 bytes per
 * output VC when there are more than 65,536. */
int flitnet_check(const struct flitnet *n, struct nl_err *err);

/* --- synthetic-traffic experiments (experiment.c) -------------------------- */
struct traffic_cfg;

/* Entries of a point's hop histogram: hop counts below it are listed, each
 * exactly (STATS_HIST_EXACT, which experiment.c asserts it does not pass).
 * It was 64, and a network with longer routes (a 100-router line) left
 * its packets of 64 hops or more out of the JSON histogram, whose sum then
 * fell short of `packets`. */
#define NET_MAX_HOPS 4096
#define NET_BUSIEST 10

/* Use of one router-to-router channel over the measurement window. */
struct net_channel_use {
	uint32_t port;        /* global port it leaves from */
	uint32_t router, local_port, peer_router;
	uint64_t flits;
	double util;          /* flits/cycle */
};

/* The result of one operating point. Latencies and hops are over packets
 * created during the measurement window (BookSim's "record" packets). */
struct net_point {
	double offered;       /* configured injection rate, flits/cycle/endpoint */
	double injected;      /* measured, flits/cycle/endpoint */
	double accepted;      /* measured, flits/cycle/endpoint */
	uint32_t active_endpoints; /* endpoints the traffic uses, the rates' divisor (fewer than the
				      topology's for a bit pattern: the largest power of two or four) */
	bool stable;          /* false: latency threshold exceeded or drain failed */
	bool converged;       /* three converged samples before max_samples */
	bool warmup_only;     /* max_samples ran out in warm-up (warmup_periods not reached, or the
				 warm-up thresholds never met): nothing measured, neither stable nor saturated */
	uint32_t samples;     /* sample periods run */
	uint64_t cycles;      /* cycles simulated in all (warm-up and drain included) */
	uint64_t window_cycles; /* measurement window */
	uint64_t flit_hops;   /* router-to-router channel traversals, whole run */
	uint64_t packets;     /* measured packets */
	double plat_mean;     /* packet latency: creation to tail ejection, cycles */
	uint64_t plat_p50, plat_p99, plat_max;
	double nlat_mean;     /* network latency: head injection to tail ejection */
	double hops_mean;     /* router-to-router hops */
	uint64_t hops_hist[NET_MAX_HOPS]; /* [h]: measured packets of h hops, h < n_hops */
	uint32_t n_hops;
	double chan_util_mean, chan_util_max;
	struct net_channel_use busiest[NET_BUSIEST];
	uint32_t n_busiest;
	double wall_seconds;
	bool deadlock;        /* the point ended in a deadlock: dl holds it, no latency figures */
	struct net_deadlock dl;
	char *report;         /* deadlock report (owned), or NULL */
};

/* Run one point at `rate` flits/cycle/endpoint. On NL_EDEADLOCK,
 * pt->deadlock is set, pt->dl describes it, pt->report lists the
 * deadlocked VCs and pt->offered / pt->cycles are filled in (so the point
 * can be written as a deadlocked result). Release pt with net_point_release. */
int net_run_point(const struct net_cfg *nc, const struct router_cfg *rc, const struct sim_cfg *sc,
		  const struct traffic_cfg *tc, const struct topo *t, double rate, struct net_point *pt,
		  struct nl_err *err);
void net_point_release(struct net_point *pt);

/* A point as bytes, to carry it to another MPI rank (the same netloom
 * binary on every rank: the struct's bytes, then the report's).
 * net_point_packed_size: the bytes net_point_pack writes at out.
 * net_point_unpack: *pt from len bytes at p (a copy of the report; release
 * with net_point_release); NL_ECORRUPT when len does not match, NL_ENOMEM. */
size_t net_point_packed_size(const struct net_point *pt);
void net_point_pack(const struct net_point *pt, uint8_t *out);
int net_point_unpack(const uint8_t *p, size_t len, struct net_point *pt, struct nl_err *err);

/* The same from a configuration holding the [network], [router],
 * [traffic] and [simulation] tables: builds the topology, runs at the
 * configured injection_rate. */
int net_run_point_cfg(const struct config *cfg, struct net_point *pt, struct nl_err *err);

/* The point's "results" object (field names as docs/results.md lists).
 * reproducible: write wall_seconds as 0 so runs compare byte for byte. */
struct json_t *net_point_json(const struct net_point *pt, const struct topo *t, bool reproducible);

/* The "stuck" object of a deadlock (docs/results.md): cycle, flits,
 * input_vcs, check, waited/bound (local check) and the waiting VCs. */
struct json_t *net_deadlock_json(const struct net_deadlock *d);

/* All backends, in registry order. */
/* The latest send time a backend takes (2^62 ps, about 53 days): a
 * delivery time sums a send time, a serialisation and a latency, and must
 * not wrap past UINT64_MAX (a message delivered before it was sent). */
#define NET_TIME_MAX_PS (UINT64_C(1) << 62)

/* The backends' common contract on time, with `what` ("flit backend")
 * naming the backend: NL_ESTATE for a send (or, with send false, an
 * advance) at `at_ps` before `reached_ps`, the time the network reached;
 * NL_ERANGE for a send past NET_TIME_MAX_PS. */
int net_time_check(const char *what, bool send, uint64_t at_ps, uint64_t reached_ps, struct nl_err *err);

const struct net_backend_ops *const *net_backend_list(size_t *n);

/* Backend by name, or NULL with *err listing the valid names. */
const struct net_backend_ops *net_backend_find(const char *name, struct nl_err *err);

/* A backend of `ops` over topology t (kept by pointer, caller owns it; NULL
 * only when ops->topology_optional) with its keys from cfg. Free with
 * net_backend_free (NULL is a no-op). On failure *out is untouched. */
int net_backend_new(const struct net_backend_ops *ops, const struct config *cfg, const struct topo *t,
		    struct net_backend **out, struct nl_err *err);
/* The same, spread over the ranks of mpi (NULL: net_backend_new); fails
 * with NL_EUNSUPPORTED naming the backend when it cannot spread. Every
 * rank must then send the same messages and advance alike: only the
 * source's rank injects a message, and deliveries reach every rank. */
int net_backend_new_mpi(const struct net_backend_ops *ops, const struct config *cfg, const struct topo *t,
			struct net_mpi *mpi, struct net_backend **out, struct nl_err *err);
void net_backend_free(struct net_backend *b);

/* ops->count_jobs, or NL_EUNSUPPORTED naming the backend when it has none. */
int net_backend_count_jobs(struct net_backend *b, const uint32_t *ep_job, uint32_t n_jobs, struct nl_err *err);
/* ops->job_links, or NL_EUNSUPPORTED naming the backend when it has none. */
int net_backend_job_links(struct net_backend *b, const struct net_job_use **use, size_t *n, const char **unit,
			  struct nl_err *err);

#endif
