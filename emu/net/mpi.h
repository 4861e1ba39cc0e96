/* The MPI engine of the flit model (issue 16 part 2), emu/net only: one
 * run spread over the ranks mpirun started, bit-identical to one process.
 *
 * Every rank builds the same network and the same partitions; partition k
 * belongs to rank k mod N and only its owner runs it. Conservative
 * synchronisation (Chandy-Misra style lookahead, as in ROSS's and SST's
 * conservative modes): an event crossing between ranks is due at least L
 * cycles after it is sent (L, the lookahead: the shortest link joining
 * two ranks' partitions, + 1), so the ranks run windows of up to L cycles
 * on their own and exchange at the windows' ends: the events for other
 * ranks go point to point, one message per neighbouring rank (one that
 * shares a link), and one allreduce of a fixed 128 bytes (MH_WORDS)
 * folds the counters' increments, the events pending, the next cycle with
 * work, the latest pending event and whether the window's last cycle had
 * work (two ranks: on the one message each way instead). A
 * window is cut short at every cycle where the single process takes a
 * decision (flitnet_run.c, fl_window_end), so all ranks take the same
 * decisions from the same integers at the same cycles.
 * No file includes <mpi.h>: mpi.c, mpi_upstream.c, mpi_reduce.c and
 * mpi_launch.c call Open MPI through mpi_port.h, opened at run time;
 * without MPI the functions below are never reached (sc.mpi stays NULL)
 * and stubs keep the link. */
#ifndef NETLOOM_NET_MPI_H
#define NETLOOM_NET_MPI_H

#include <stdbool.h>
#include <stdint.h>

struct flitnet;
struct net_mpi;
struct nl_err;
struct stats_hist;

/* Build time, after the partitions: the exchange's buffers (root).
 * NL_ENOMEM with one line in *err. */
int fl_mpi_setup(struct flitnet *n, struct nl_err *err);
/* Free them (NULL state: nothing). */
void fl_mpi_release(struct flitnet *n);

/* Build time, and again when link latencies change: the lookahead L (the
 * fewest cycles between sending an event and its cycle, over the links
 * joining partitions of different ranks) and the window n->x_window. */
void fl_mpi_plan(struct flitnet *n);

/* flitnet_run_until's entry (unless the caller set n->x_agreed), and a
 * replay advance's: the counters' base (the driver may have changed them
 * since the last cycle), the next cycle with work and the latest pending
 * event on any rank. Collective: a step's first, as
 * fl_mpi_next_work's and fl_mpi_step_end's (mpi.c, mx_step), which may
 * say that a rank failed (fl_mpi_peer_check). */
void fl_mpi_begin(struct flitnet *n);
/* The next cycle with work on any rank (fl_next_work's minimum), as a
 * step's first collective (fl_mpi_begin). Collective. */
uint64_t fl_mpi_next_work(const struct flitnet *n);
/* After a step's first collective: NL_ESTATE when it said that a rank
 * failed (between two steps: fl_mpi_step_end), a placeholder line in
 * *err for the driver's agreement (the flit backend's agree) to replace
 * with that rank's; the step goes no further. Else 0. */
int fl_mpi_peer_check(const struct flitnet *n, struct nl_err *err);
/* This rank's end of the driver's steps, `failed` or not, as a step's
 * first collective (the others may be in their next step's): whether any
 * rank failed. Collective, unless a step said so already (true then). */
bool fl_mpi_step_end(struct flitnet *n, bool failed);
/* A window's end under MPI (fl_part_exchange): outboxes to other ranks
 * sent, theirs received, every target merged in source-partition order,
 * counters folded into the root on every rank; n->x_next, x_clast,
 * x_events and x_gbusy (from n->x_busy) set. Collective. */
void fl_mpi_exchange(struct flitnet *n);

/* Sum / maximum of v over the ranks (every rank gets it). Collective. */
uint64_t fl_mpi_sum(const struct flitnet *n, uint64_t v);
uint64_t fl_mpi_max(const struct flitnet *n, uint64_t v);
/* In place, over the ranks: int64 sums of a[0..count). Collective. */
void fl_mpi_sum_i64(const struct flitnet *n, int64_t *a, uint64_t count);
/* In place, over the ranks: uint16 sums, uint8 minima. Collective. */
void fl_mpi_sum_u16(const struct flitnet *n, uint16_t *a, uint64_t count);
void fl_mpi_min_u8(const struct flitnet *n, uint8_t *a, uint64_t count);
/* The root's histogram h (rank 0: its records since the last fold
 * included; other ranks: the last total) made the total over the ranks,
 * given local, this rank's partitions' records since the last fold
 * (other ranks than 0; NULL on rank 0, whose partitions fold into h).
 * Collective. */
void fl_mpi_fold_hist(const struct flitnet *n, struct stats_hist *h, const struct stats_hist *local);
/* Ranks other than 0: the three histograms (plat, nlat, hops) this
 * rank's partitions fold into before fl_mpi_fold_hist; NULL on rank 0
 * and without MPI. */
struct stats_hist *fl_mpi_local_hists(struct flitnet *n);
/* Every port's chan_flits summed over the ranks (each is counted by its
 * owner only). Collective. */
void fl_mpi_sum_channels(struct flitnet *n);

#endif
