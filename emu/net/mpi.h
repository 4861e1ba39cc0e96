/* The MPI engine of the flit model (issue 16 part 2), emu/net only: one
 * run spread over the ranks mpirun started, bit-identical to one process.
 *
 * Every rank builds the same network and the same partitions; partition k
 * belongs to rank k mod N and only its owner runs it. At each cycle's end
 * the events for other ranks' partitions leave in one batched message per
 * pair of ranks (a head carries its packet record, as between threads),
 * with a fixed-size header carrying the counters' increments, the events
 * pending and the rank's next cycle with work; every rank folds the
 * headers in rank order, so all take the same decisions (warm-up,
 * convergence, idle jumps, deadlock checks) from the same integers.
 * This file is the only one that includes <mpi.h>; without MPI the
 * functions below are never reached (sc.mpi stays NULL) and stubs keep
 * the link. */
#ifndef NETLOOM_NET_MPI_H
#define NETLOOM_NET_MPI_H

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
/* Inside a window, after each cycle but its last: the outboxes between
 * this rank's own partitions merged into their targets (their links may
 * be shorter than the window). */
void fl_mpi_merge_own(struct flitnet *n);

/* flitnet_run_until's entry: the counters' base (the driver may have
 * changed them since the last cycle) and the next cycle with work on any
 * rank. Collective. */
void fl_mpi_begin(struct flitnet *n);
/* The cycle boundary under MPI (fl_part_exchange): outboxes to other
 * ranks sent, theirs received, every target merged in source-partition
 * order, counters folded into the root on every rank. Collective. */
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
