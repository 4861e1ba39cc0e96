/* Starting a thread, the one way netloom does: pthread_create behind a
 * test hook, so that the fallback of each place that starts threads (a
 * thread that cannot start, as under `ulimit -u`, a cgroup's pids.max or
 * a container's limit) can be run by a test (docs/scaling.md, "When a
 * thread cannot start"). */
#ifndef NETLOOM_CORE_THREAD_H
#define NETLOOM_CORE_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* pthread_create(t, NULL, fn, arg): 0, or the error number it gave
 * (EAGAIN when the system is out of threads), *t then unset. For tests,
 * NETLOOM_TEST_FAIL_THREAD makes starts fail with EAGAIN, counted over
 * the process: `N` (1 to 4294967295) the Nth start alone, `N+` the Nth
 * and every later one, `all` every one; unset or anything else, none. */
int nl_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/* The places that start threads for a job, outermost first: the order
 * in which the CLI says their shortfalls (nl_thread_short_take). */
enum nl_thread_place {
	NL_THREAD_REPLAYS,    /* compare -j: a study's replays (session/session_compare.c, on pool_run) */
	NL_THREAD_POINTS,     /* sweep --spread points: a round's points (session/session_sweep.c, on pool_run) */
	NL_THREAD_POOL,       /* replay -j's networks, interfere -j's runs (core/pool.c, pool_run) */
	NL_THREAD_TRIALS,     /* the cabinet floor annealing's trials (layout/floor.c) */
	NL_THREAD_PARTITIONS, /* a flit network's partitions, [simulation] threads (net/workers.c) */
	NL_THREAD_N_PLACES
};

/* What a place did with fewer threads than it asked for. */
struct nl_thread_short {
	char what[48];    /* the work, as the warning names it: "the study's replays" */
	uint32_t asked;   /* threads asked for, the calling one included, >= 2 */
	uint32_t running; /* threads that ran the work, the calling one included, < asked */
	const char *call; /* what failed: "pthread_create", or "a thread's arrays" (memory) */
	int errnum;       /* its error number (EAGAIN, ENOMEM) */
};

/* Place `place` runs `what` (copied, up to 47 bytes) on `running` of the
 * `asked` threads it asked for (both with the calling thread), as `call`
 * (a string literal) failed with errnum: kept for the command's warning
 * (docs/scaling.md, "When a thread cannot start"). Libraries do not
 * print; the CLI says the shortfalls once per command, so a place that
 * runs many times (a network per sweep point, per replay) keeps one per
 * place: the fewest threads running (then the most asked for). The
 * record is the process's, as the threads a process can start are its
 * own (ulimit -u, a cgroup's pids.max) and places nest (compare's
 * threads build networks that start their own workers): the only
 * context every place shares. Thread-safe; not for the hot path. */
void nl_thread_short_note(enum nl_thread_place place, const char *what, uint32_t asked, uint32_t running,
			  const char *call, int errnum);

/* The shortfalls noted since the last call, outermost place first, into
 * out[0..NL_THREAD_N_PLACES); returns their count and forgets them. */
size_t nl_thread_short_take(struct nl_thread_short out[NL_THREAD_N_PLACES]);

/* A test hook's count from environment variable `name`: a number from 1
 * to 4294967295, else 0 (off). NETLOOM_TEST_FAIL_ALLOC is read with it
 * (emu/net/flitnet_build.c, emu/layout/floor.c). */
uint32_t nl_test_env_count(const char *name);

#endif
