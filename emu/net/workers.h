/* Worker threads of the flit model (issue 16, part 1): the partitions of
 * one network (part.c) run their cycle side by side.
 *
 * A cycle is what it is with one thread: the calling thread prepares it
 * (pool reserves, route snapshots, idle jumps), releases the workers, runs
 * its own share of partitions, waits for the others, and then exchanges
 * the boundary events and folds the counters (fl_part_exchange), checks
 * for deadlock and moves on. The exchange's merge runs on the workers
 * too, each partition's inbound events on its own thread: a receiving
 * partition's merge writes only its own pools and wheel, and serial it
 * was a share of each cycle the other threads sat out (7% of a 2-thread
 * profile's samples on the 128,000-endpoint Equality at 0.9, where nearly
 * every link leaves its partition). Partitions touch only what they own
 * during a cycle (part.c says what that is), so the work of a cycle needs no lock;
 * each phase's release and wait order every partition's writes before
 * the next phase reads them.
 * Results are those of one thread, byte for byte, for any thread count:
 * the exchange is the same code in the same partition order.
 *
 * Partition k runs on thread k mod T (thread 0 is the caller); partitions
 * are balanced by weight when built, so T partitions give each thread
 * one. Waiting spins briefly (a cycle of a loaded network takes
 * microseconds to milliseconds) and then sleeps, so idle workers between
 * runs, or an oversubscribed machine, do not burn a core. */
#ifndef NETLOOM_NET_WORKERS_H
#define NETLOOM_NET_WORKERS_H

#include <stdint.h>

struct flitnet;
struct nl_err;
struct fl_workers;

/* threads = 0: a thread per this many routers, at most one per processor.
 * Below it a cycle is too short for the two synchronisations to pay
 * (benchmarks/engine/threads.sh: a 256-router torus gains nothing from a
 * second thread, a 4,096-router one runs twice as fast). */
#define FL_ROUTERS_PER_THREAD 512u

/* Start n_threads - 1 workers for root network n (n_threads >= 2, at most
 * n->n_own, the partitions this process runs). Workers that cannot start
 * are done without: the partitions run on those that did (none: on the
 * caller's thread alone, n->workers left NULL), with the same results,
 * noted for the command's warning (nl_thread_short_note). NL_ENOMEM with
 * one line in *err. */
int fl_workers_start(struct flitnet *n, uint32_t n_threads, struct nl_err *err);
/* Run one cycle of every partition (fl_cycle), the caller's share on the
 * caller's thread; returns when all are done. */
void fl_workers_cycle(struct fl_workers *w);
/* Merge the cycle's boundary events into every partition this process
 * runs (fl_part_merge_into), each on the thread that runs it. */
void fl_workers_merge(struct fl_workers *w);
/* Stop and join the workers and free w (NULL: nothing). */
void fl_workers_stop(struct fl_workers *w);
/* Threads a run of n_routers uses for [simulation] threads: the value, or
 * for 0 one per 512 routers, at most one per online processor, at least
 * one. */
uint32_t fl_workers_resolve(int64_t threads, uint32_t n_routers);
/* The threads per rank that the partition count is planned for: every
 * MPI rank must cut the same partitions, and threads = 0 resolves on each
 * node's own processors (nodes of a cluster differ), so under several
 * ranks it plans for one per 512 routers whatever the processors, at
 * most n_routers / n_ranks, at least one; otherwise n_threads, the
 * threads fl_workers_resolve gave. A rank runs its share on n_threads. */
uint32_t fl_workers_plan(int64_t threads, uint32_t n_threads, uint32_t n_ranks, uint32_t n_routers);
/* Partitions for [simulation] partitions = 0 (automatic) on n_threads
 * threads in each of n_ranks processes over n_routers routers. */
uint32_t fl_partitions_auto(uint32_t n_threads, uint32_t n_ranks, uint32_t n_routers);

#endif
