/* Independent runs side by side on threads of this process (`netloom
 * replay -j`'s networks, `netloom interfere -j`'s runs, `netloom compare
 * -j`'s replays, a round of `netloom sweep --spread points`). Invariant: what
 * the caller reads afterwards, each run's status and line, does not
 * depend on the thread count or on which thread ran which run; only the
 * order in which runs finish does, and the caller says nothing until all
 * are done. The runs must share nothing a run changes. */
#ifndef NETLOOM_CORE_POOL_H
#define NETLOOM_CORE_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/thread.h"

struct nl_err;
struct progress;

struct pool_opts {
	size_t n;         /* runs, 0..n-1 */
	unsigned threads; /* threads at most, the calling one included, >= 1 */
	/* The order the runs are started in, n indices (NULL: 0..n-1): the
	 * longest first, so that a thread is not left with it at the end.
	 * Caller-owned, read during pool_run only. */
	const size_t *order;
	/* Run i: 0 a result, or < 0 a failure with *err its line (*err may
	 * hold a line with 0 too). Called on any of the threads, at most once
	 * per run. */
	int (*run)(void *ctx, size_t i, struct nl_err *err);
	/* Called on the calling thread as soon as the first run started (the
	 * first of order) is done, rc its status, before that thread takes
	 * another; may be NULL. */
	void (*first_done)(void *ctx, int rc);
	void *ctx;
	/* A progress line counting the runs ("LABEL: WHAT 1/3 (2 running)"),
	 * drawn and cleared here; NULL for none (the caller may then draw a
	 * line of its own, from run under its own lock, as compare does, or
	 * around pool_run, as a sweep's round does). Only this file draws on
	 * it while pool_run runs. */
	struct progress *pg;
	const char *what; /* the runs' name on that line and in the warning: "networks", "runs" */
	/* The place a thread that cannot start is noted under
	 * (nl_thread_short_note), which orders the command's warnings:
	 * NL_THREAD_POOL for replay's and interfere's runs. */
	enum nl_thread_place place;
	/* A thread that cannot start: false, no more are started (the
	 * threads started so far take the runs); true, each of the others
	 * is still tried, and the warning counts those that started
	 * (a sweep's round, whose warning has always counted so). */
	bool is_every_start_tried;
};

/* Run o->n runs on up to o->threads threads: the first of o->order on the
 * calling thread, first; the others as threads free up, in o->order. A
 * failed run i stops the threads from starting any run after i (in index
 * order, the order a sequential caller runs them): that caller would
 * never have reached it. rcs[i] (o->n of them) gets run i's status: 0,
 * < 0, or 1 when it was not run (only after a failed run; a run started
 * before the failure was known runs to its end); errs[i] its line. The
 * threads started here block SIGINT, SIGTERM and SIGHUP, so their
 * handler runs on the calling thread (core/staged.h: the staged list is
 * for one thread). A thread that cannot be started leaves its runs to the
 * others, noted under o->place for the command's warning
 * (nl_thread_short_note, "the WHAT").
 * Returns 0, or NL_ENOMEM (*err) with nothing run. */
int pool_run(const struct pool_opts *o, int *rcs, struct nl_err *errs, struct nl_err *err);

#endif
