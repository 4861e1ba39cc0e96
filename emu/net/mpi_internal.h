/* The MPI engine's process-wide state (struct net_mpi), shared by its
 * launch side (mpi_launch.c: opening, agreement, closing) and the
 * exchange of the flit model (mpi.c, mpi_exchange.c), which counts its
 * statistics; and the exchange's own state and wire blocks (struct
 * fl_mx), shared by mpi.c, mpi_exchange.c, mpi_upstream.c
 * (lookahead_decide = upstream) and mpi_reduce.c (the reductions over the
 * ranks). */
#ifndef NETLOOM_NET_MPI_INTERNAL_H
#define NETLOOM_NET_MPI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef NETLOOM_HAVE_MPI
#include "net/mpi_port.h"
#include "net/net_internal.h"
#endif

/* Exchange statistics over a process's runs (NETLOOM_MPI_STATS). */
struct mpi_stats {
	uint64_t cycles;   /* exchanges (windows) */
	uint64_t wcycles;  /* cycles the windows covered (idle jumps between them aside) */
	uint64_t bytes;    /* payload bytes sent to other ranks */
	uint64_t hdr_bytes; /* bytes this rank gave the window's allreduce */
	uint64_t msgs;     /* non-empty payloads sent */
	uint64_t events;   /* events sent */
	uint64_t heads;    /* of which heads with their record */
	uint64_t vcalls;   /* cycles with an all-to-all-v */
	uint64_t colls;    /* collective calls of the network's steps, exchanges and reductions
			      (mpi.c, mpi_reduce.c): the ranks' synchronisations */
};

struct net_mpi {
#ifdef NETLOOM_HAVE_MPI
	MPI_Comm comm;
#endif
	uint32_t rank, size;
	struct mpi_stats st;
	uint64_t lookahead, window; /* of the last network planned (fl_mpi_plan), for the statistics */
	char who[64];               /* the command, in the line said before an abort (net_mpi_open) */
};

#ifdef NETLOOM_HAVE_MPI

/* --- the exchange (mpi.c, mpi_exchange.c, mpi_upstream.c, mpi_reduce.c) --- */

/* A block of events from one partition to another. */
struct fl_mblk {
	uint32_t src, dst, count;
};

/* A head's packet record, as it travels after its event. */
#define MX_PKT_BYTES ((uint32_t)sizeof(struct fl_pkt))

/* The window's one collective: an allreduce of these words, the same
 * for any number of ranks. The counters are increments since the last
 * exchange (unsigned: a count that fell wraps, and the sum is exact mod
 * 2^64); the words below MH_N_SUMS are summed, the others maximised
 * (one MPI_Op over a derived type of MH_WORDS words, so that MPI never
 * splits a vector between the two). */
enum {
	MH_FLITS_IN_NET,
	MH_FLIT_HOPS,
	MH_FLITS_ALIVE,
	MH_CTIME_ALIVE,
	MH_MEAS_ALIVE,
	MH_ACCEPTED,
	MH_SENT,
	MH_UNDRAINED,
	MH_N_COUNTERS,
	MH_EVENTS = MH_N_COUNTERS, /* events pending after the merge */
	MH_TOTAL,       /* payload bytes to other ranks (zero: no messages) */
	MH_DONE,        /* messages completed in the window (zero: nothing to gather, mx_gather_done) */
	MH_N_SUMS,
	MH_LAST_MOVE = MH_N_SUMS,
	MH_OOM,         /* 0 or 1 */
	MH_NOT_NEXT,    /* UINT64_MAX - the earliest cycle with work after the merge */
	MH_CLAST,       /* latest cycle of a pending event after the merge */
	MH_BUSY,        /* the window's last cycle had work on this rank: 0 or 1 */
	MH_WORDS,
};

/* lookahead_decide = upstream, sender side: per input VC of another
 * rank's router, the head sent to it in this exchange's outboxes. */
struct mx_xs {
	uint32_t sent;  /* the exchange's stamp when a head was sent on the VC */
	uint32_t idx;   /* its index in its outbox */
	uint32_t dec;   /* the stamp when it carries a decision key */
	uint32_t gout, order; /* the key */
};

/* A decision this rank takes at the exchange. */
struct mx_dec {
	uint32_t gout, order; /* the one process's order */
	uint32_t part;        /* own partition: of the entry (local) or of the record */
	uint32_t pkt;         /* its record there */
	uint8_t vc;
	bool local;           /* an entry of this rank's fl_la_pend lists (fl_la_decide_pend) */
};

/* mx_req and mx_park are mpi_upstream.c's, mx_box is mpi.c's. */
struct mx_req;
struct mx_park;
struct mx_box;

/* The exchange's state: the root's n->mx under MPI (fl_mpi_setup). */
struct fl_mx {
	struct net_mpi *m;
	uint64_t base[MH_N_COUNTERS]; /* the root's counters after the last exchange */
	int *scount, *sdispl, *rcount, *rdispl; /* [size], bytes */
	uint8_t *sbuf, *rbuf;
	size_t scap, rcap;
	uint32_t *cursor;            /* [size]: read position in rbuf during the merge */
	uint32_t *nbr, n_nbr;        /* the ranks sharing a link with this one, ascending */
	MPI_Request *req;            /* [size]: sends in flight */
	MPI_Datatype words;          /* MH_WORDS uint64 */
	MPI_Op fold;                 /* sums, then maxima (mx_fold) */
	bool has_type;
	struct stats_hist loc[3];    /* ranks other than 0: own partitions' records since the last fold */
	uint64_t lookahead;          /* L: fewest cycles from an event's sending to its cycle, over links
					between ranks (UINT64_MAX: none) */
	uint64_t planned;            /* the window fl_mpi_plan chose, before NETLOOM_MPI_WINDOW's cap */
	uint64_t env_cap;            /* this rank's NETLOOM_MPI_WINDOW (UINT64_MAX: unset) */
	/* lookahead_decide = upstream with more than one rank (mx_la_*). */
	struct mx_xs *xs;            /* [iv] sender side */
	uint32_t stamp;              /* this exchange's, never 0 */
	struct mx_req *lreq;         /* heads in a crossbar, for other ranks */
	uint32_t n_lreq, cap_lreq;
	struct mx_dec *dec;          /* this exchange's decisions */
	uint32_t n_dec, cap_dec;
	uint32_t *park_head, *park_tail; /* [iv] receiver side: FIFO of records decided ahead of their head */
	struct mx_park *park;        /* its nodes, free list through next */
	uint32_t n_park, cap_park, free_park;
	struct mx_box *box;          /* the exchange's outboxes with events, in packing order (mx_boxes) */
	uint32_t n_box, cap_box;
	bool peer_failed;            /* a step's first collective said a rank failed (mx_step) */
	bool head_on_msgs;           /* two ranks: the window's head rides one MPI_Sendrecv
					each way with the payload (mx_pair_swap), no allreduce */
};

/* Whether partition k is this rank's (rank k mod N runs it, mpi.h). */
static inline bool mx_owned(const struct flitnet *n, uint32_t k)
{
	return k % n->x_size == n->x_rank;
}

/* Room for `need` items in a growable array; false when out of memory
 * (n->oom ends the run). */
#define MX_GROW(n, arr, cap, need)                                                    \
	((need) <= (cap) || mx_grow_to((n), (void *)&(arr), &(cap), (need), sizeof *(arr)))

/* mpi.c, for the exchange (mpi_exchange.c) too: the window head's fold
 * (sums, then maxima: an MPI_User_function), the root's summed counters
 * in head order (c[MH_N_COUNTERS]), their values at the last exchange
 * taken as its base, and the latest cycle of an event pending in this
 * rank's partitions or outboxes. */
void mx_fold(void *in, void *inout, int *len, MPI_Datatype *type);
void mx_counters(struct flitnet *n, uint64_t **c);
void mx_base(struct flitnet *n);
uint64_t mx_last_event(const struct flitnet *n);

/* mpi_exchange.c: room for `more` bytes at the end of a growable buffer. */
uint8_t *mx_room(struct flitnet *n, uint8_t **buf, size_t *cap, size_t used, size_t more);
/* MX_GROW's growth of arr (a pointer to the array) to hold need items of size bytes. */
bool mx_grow_to(struct flitnet *n, void *arrp, uint32_t *cap, uint32_t need, size_t size);

/* mpi_upstream.c: lookahead_decide = upstream over the ranks. */
/* d among this exchange's decisions (out of memory: left out, n->oom
 * ends the run). */
void mx_la_add(struct flitnet *n, const struct mx_dec *d);
/* Before packing: this rank's switch winners of the cycle split into its
 * own decisions, the keys its heads carry and the requests for heads
 * still in a crossbar. */
void mx_la_collect(struct flitnet *n);
/* The requests for rank q, as one block after the events, appended to the
 * send buffer at *used. */
void mx_la_pack_req(struct flitnet *n, uint32_t q, size_t *used);
/* The record decided for the head arriving on input VC iv, or FL_NONE. */
uint32_t mx_la_unpark(struct flitnet *n, uint64_t iv);
/* A received block of requests at b: each head's record made, parked on
 * its input VC and decided with the others; the bytes it took. */
size_t mx_la_unpack_req(struct flitnet *n, const uint8_t *b);
/* This rank's decisions of the exchange, in the one process's order. */
void mx_la_decide(struct flitnet *n);

#endif /* NETLOOM_HAVE_MPI */

#endif
