/* Worker threads of the flit model: see workers.h. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/error.h"
#include "core/thread.h"
#include "net/net_internal.h"
#include "net/workers.h"

/* How a waiter waits: FL_SPINS checks of the flag with a pause (a few
 * microseconds: most waits of a busy run end there), then FL_YIELDS
 * checks each after giving up the processor (when the machine has more
 * runnable threads than cores, the thread it waits for may be waiting
 * for this core), then it sleeps until woken (between runs, or a long
 * wait). In the sanitizer builds (the test suite's ASan and TSan), whose
 * tests run small networks on oversubscribed processors, the waiters'
 * spins and yields were most of test_part's time (TSan: each check an
 * instrumented atomic load): there the same three stages, the first two
 * shorter. What the sanitizers check is the same code: the memory each
 * access touches, and the orderings of the flag and of the sleepers (the
 * sleeping path's mutex and condition variable add no ordering the
 * flag's sequentially consistent bump and load do not give). CPU (user +
 * sys): TSan's test_part 154 s -> 84 s, ASan's 41 s -> 20 s. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define FL_SPINS 64
#define FL_YIELDS 16
#else
#define FL_SPINS 2048
#define FL_YIELDS 256
#endif
/* Automatic partitions on several threads: this many per thread, each of
 * this many routers at least (fl_partitions_auto). */
#define FL_PARTS_PER_THREAD 8u
#define FL_ROUTERS_PER_PART 64u
#define FL_PARTS_MAX 4096u /* [simulation] partitions' bound */
/* Automatic partitions for locality: networks of this many routers and
 * more get one partition per FL_ROUTERS_PER_LOCAL_PART routers. */
#define FL_LOCAL_MIN_ROUTERS 2048u
#define FL_ROUTERS_PER_LOCAL_PART 256u

/* A wake-up flag: a counter one side bumps and the other waits to see
 * change. Sleepers register before their last check and the bumper looks
 * for sleepers after its bump, both sequentially consistent, so one of
 * them sees the other and no wake-up is lost (a sleeper holds the mutex
 * from its registration to its wait). */
struct fl_flag {
	_Atomic uint32_t value;
	_Atomic uint32_t sleepers;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

struct fl_worker {
	struct fl_workers *pool;
	uint32_t id; /* 1 .. n_threads - 1 */
	pthread_t thread;
};

/* What the workers run when released: a cycle of their partitions, or
 * the merge of the outboxes addressed to them (fl_workers_merge). */
enum fl_phase { FL_PHASE_CYCLE, FL_PHASE_MERGE };

struct fl_workers {
	struct flitnet *net;   /* the root */
	uint32_t n_threads;
	enum fl_phase phase;   /* written before `go` is bumped, read after */
	struct fl_flag go;     /* bumped to start a cycle (or to stop) */
	struct fl_flag done;   /* bumped by each worker that finished the cycle */
	atomic_bool quit;
	struct fl_worker *w;   /* [n_threads - 1] */
	uint32_t n_started;
};

static inline void fl_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void fl_flag_bump(struct fl_flag *f, uint32_t by)
{
	atomic_fetch_add(&f->value, by);
	if (atomic_load(&f->sleepers)) {
		pthread_mutex_lock(&f->mu);
		pthread_cond_broadcast(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
}

/* Wait until the flag's value is no longer `old` and return it. */
static uint32_t fl_flag_wait_change(struct fl_flag *f, uint32_t old)
{
	uint32_t v;
	for (int i = 0; i < FL_SPINS; i++) {
		if ((v = atomic_load(&f->value)) != old)
			return v;
		fl_cpu_relax();
	}
	for (int i = 0; i < FL_YIELDS; i++) {
		if ((v = atomic_load(&f->value)) != old)
			return v;
		sched_yield();
	}
	pthread_mutex_lock(&f->mu);
	atomic_fetch_add(&f->sleepers, 1);
	while ((v = atomic_load(&f->value)) == old)
		pthread_cond_wait(&f->cv, &f->mu);
	atomic_fetch_sub(&f->sleepers, 1);
	pthread_mutex_unlock(&f->mu);
	return v;
}

/* Run thread id's share of the phase: the process's partitions id,
 * id + T, ... (all partitions, or under MPI this rank's). */
static void fl_workers_share(struct fl_workers *w, uint32_t id)
{
	struct flitnet *n = w->net;
	for (uint32_t i = id; i < n->n_own; i += w->n_threads) {
		if (w->phase == FL_PHASE_CYCLE)
			fl_cycle(n->part[n->own[i]]);
		else
			fl_part_merge_into(n, n->part[n->own[i]]);
	}
}

static void *fl_worker_main(void *arg)
{
	struct fl_worker *me = arg;
	struct fl_workers *w = me->pool;
	uint32_t seen = 0; /* go's first value: a worker slow to start still sees the first bump */
	for (;;) {
		seen = fl_flag_wait_change(&w->go, seen);
		if (atomic_load(&w->quit))
			return NULL;
		fl_workers_share(w, me->id);
		fl_flag_bump(&w->done, 1);
	}
}

/* Release the workers on `phase`, run the caller's share, wait for all. */
static void fl_workers_run(struct fl_workers *w, enum fl_phase phase)
{
	const uint32_t others = w->n_threads - 1;
	uint32_t base = atomic_load(&w->done.value);
	w->phase = phase; /* the bump below publishes it (sequentially consistent) */
	fl_flag_bump(&w->go, 1);
	fl_workers_share(w, 0);
	/* Each worker bumps `done` once per phase: wait for all of them. */
	uint32_t v = atomic_load(&w->done.value);
	while (v - base < others)
		v = fl_flag_wait_change(&w->done, v);
}

void fl_workers_cycle(struct fl_workers *w)
{
	fl_workers_run(w, FL_PHASE_CYCLE);
}

void fl_workers_merge(struct fl_workers *w)
{
	fl_workers_run(w, FL_PHASE_MERGE);
}

static void fl_flag_init(struct fl_flag *f)
{
	atomic_init(&f->value, 0);
	atomic_init(&f->sleepers, 0);
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
}

static void fl_flag_destroy(struct fl_flag *f)
{
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
}

void fl_workers_stop(struct fl_workers *w)
{
	if (!w)
		return;
	atomic_store(&w->quit, true);
	fl_flag_bump(&w->go, 1);
	for (uint32_t i = 0; i < w->n_started; i++)
		pthread_join(w->w[i].thread, NULL);
	fl_flag_destroy(&w->go);
	fl_flag_destroy(&w->done);
	free(w->w);
	free(w);
}

int fl_workers_start(struct flitnet *n, uint32_t n_threads, struct nl_err *err)
{
	NL_ASSERT(n_threads >= 2 && n_threads <= n->n_own);
	struct fl_workers *w = calloc(1, sizeof *w);
	if (!w || !(w->w = calloc(n_threads - 1, sizeof *w->w))) {
		free(w);
		return nl_errf(err, NL_ENOMEM, "out of memory starting %u threads", n_threads);
	}
	w->net = n;
	w->n_threads = n_threads;
	fl_flag_init(&w->go);
	fl_flag_init(&w->done);
	atomic_init(&w->quit, false);
	int e = 0;
	for (uint32_t i = 0; i < n_threads - 1; i++) {
		w->w[i] = (struct fl_worker){.pool = w, .id = i + 1};
		if ((e = nl_thread_create(&w->w[i].thread, fl_worker_main, &w->w[i])))
			break;
		w->n_started++;
	}
	if (e)
		nl_thread_short_note(NL_THREAD_PARTITIONS, "a network's partitions", n_threads, w->n_started + 1,
				     "pthread_create", e);
	/* A thread that cannot start (a limit on processes or threads:
	 * ulimit -u, a cgroup's pids.max) leaves its partitions to those that
	 * did: the results are the same bytes on any thread count, and the
	 * partitions were cut before, so only the wall time changes. Failing
	 * instead lost the run over what threads only speed up, and under MPI
	 * on one rank alone. Workers read n_threads only once released (the
	 * first bump of `go` publishes it); none started, the caller's thread
	 * runs every partition, as with threads = 1. */
	if (w->n_started == 0) {
		fl_workers_stop(w);
		return 0;
	}
	w->n_threads = w->n_started + 1;
	n->workers = w;
	return 0;
}

uint32_t fl_workers_resolve(int64_t threads, uint32_t n_routers)
{
	if (threads > 0)
		return (uint32_t)threads;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t t = n_routers / FL_ROUTERS_PER_THREAD;
	if (cpus > 0 && t > (uint32_t)cpus)
		t = (uint32_t)cpus;
	return t ? t : 1u;
}

uint32_t fl_workers_plan(int64_t threads, uint32_t n_threads, uint32_t n_ranks, uint32_t n_routers)
{
	if (n_ranks <= 1 || threads > 0)
		return n_threads;
	/* threads = 0 under MPI: what the routers call for, not this node's
	 * processors, which other nodes need not share; at most the routers'
	 * share of each rank, so that the partitions fit the routers. */
	uint32_t t = n_routers / FL_ROUTERS_PER_THREAD;
	if (t > n_routers / n_ranks)
		t = n_routers / n_ranks;
	return t ? t : 1u;
}

/* Two reasons to cut more partitions than threads, both free of any
 * effect on results (part.c):
 *
 * - Balance. One partition per thread balances routers and endpoints,
 *   not traffic: where the traffic crowds one router range (a bit
 *   permutation over the largest power-of-two subset of the endpoints,
 *   which leaves the rest idle; a job placed on a block of routers) one
 *   thread does most of the work and the others wait at every cycle's
 *   barrier (Equality n1000k64p16, bitcomp 0.9, 2 threads: 5.15 G
 *   instructions on thread 0 against 0.55 G on thread 1). Several
 *   contiguous ranges per thread, dealt round robin (partition k runs on
 *   thread k mod T), spread any such range over every thread (3.14 G
 *   against 2.67 G with 15), each long enough that boundary events stay
 *   a small share of a cycle.
 * - Locality, on large networks even on one thread. A partition's cycle
 *   takes its own arrivals and then steps its own routers, so the state
 *   it touches is one range's, still in the caches from the arrivals when
 *   the routers step; one partition over the whole network walks every
 *   router's state twice a cycle (single thread, CPU time: dragonfly
 *   a=16,p=8,h=8, 2,064 routers, 8 partitions 0.78x one partition;
 *   Equality n64000k64p16 at 0.9 bitcomp, 256 partitions 0.60x; torus
 *   64x64, 4,096 routers of 5 ports, 16 partitions 0.99x). Below 2,048
 *   routers a partition's own bookkeeping is pure cost (4-ary 5-tree,
 *   1,280 routers, 2 partitions 1.04x), so small networks keep one.
 *   Each partition costs its pools and wheel (about 1.6 MB at 256
 *   partitions of the 1M-endpoint Equality: 2.38 -> 2.79 GB).
 *
 * MPI ranks keep one partition per thread and rank: more would cut more
 * links between ranks, whose events travel in messages. */
uint32_t fl_partitions_auto(uint32_t n_threads, uint32_t n_ranks, uint32_t n_routers)
{
	uint64_t base = (uint64_t)n_threads * n_ranks;
	if (n_ranks > 1)
		return (uint32_t)base;
	uint64_t p = 1;
	if (n_threads > 1) {
		p = (uint64_t)n_threads * FL_PARTS_PER_THREAD;
		if (p > n_routers / FL_ROUTERS_PER_PART)
			p = n_routers / FL_ROUTERS_PER_PART;
	}
	if (n_routers >= FL_LOCAL_MIN_ROUTERS && n_routers / FL_ROUTERS_PER_LOCAL_PART > p)
		p = n_routers / FL_ROUTERS_PER_LOCAL_PART;
	if (p > FL_PARTS_MAX)
		p = FL_PARTS_MAX;
	return (uint32_t)(p > base ? p : base);
}
