/* Independent runs side by side on threads (core/pool.h). The runs share
 * nothing a run changes, so a thread needs no lock but for the progress
 * line; the statuses and lines are kept per run, read by the caller once
 * all threads are joined.
 */
#include "core/pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/staged.h"
#include "core/thread.h"

struct pool {
	const struct pool_opts *o;
	int *rcs;                /* o->n: each run's status (0 a result, < 0 failed, 1 not run) */
	struct nl_err *errs;     /* o->n: each run's line */
	atomic_size_t next;      /* the next place in the order a thread takes */
	atomic_size_t first_bad; /* the lowest failed run so far, o->n when none */
	pthread_mutex_t mu;      /* guards o->pg, done and running */
	size_t done, running;
};

static void pool_show(struct pool *p)
{
	char line[96];
	snprintf(line, sizeof line, "%s %zu/%zu (%zu running)", p->o->what, p->done, p->o->n, p->running);
	progress_show(p->o->pg, line);
}

/* A run starts (is_start) or ends: the line redrawn. */
static void pool_count(struct pool *p, bool is_start)
{
	if (!p->o->pg)
		return;
	pthread_mutex_lock(&p->mu);
	if (is_start) {
		p->running++;
	} else {
		p->running--;
		p->done++;
	}
	pool_show(p);
	pthread_mutex_unlock(&p->mu);
}

/* Run i on this thread: its status and line into rcs[i] and errs[i]; a
 * failure lowers first_bad, so no thread starts a run after it. */
static void pool_one(struct pool *p, size_t i)
{
	pool_count(p, true);
	int rc = p->o->run(p->o->ctx, i, &p->errs[i]);
	p->rcs[i] = rc < 0 ? rc : 0;
	if (rc < 0) {
		size_t bad = atomic_load(&p->first_bad);
		while (i < bad && !atomic_compare_exchange_weak(&p->first_bad, &bad, i))
			;
	}
	pool_count(p, false);
}

static size_t pool_at(const struct pool *p, size_t k)
{
	return p->o->order ? p->o->order[k] : k;
}

/* Runs in the order, as long as there are any; one after a failed run is
 * skipped, left unrun, as a sequential caller never reached it. */
static void *pool_take(void *arg)
{
	struct pool *p = arg;
	for (size_t k; (k = atomic_fetch_add(&p->next, 1)) < p->o->n;) {
		size_t i = pool_at(p, k);
		if (i < atomic_load(&p->first_bad))
			pool_one(p, i);
	}
	return NULL;
}

int pool_run(const struct pool_opts *o, int *rcs, struct nl_err *errs, struct nl_err *err)
{
	const size_t n = o->n;
	if (!n)
		return 0;
	size_t T = o->threads < n ? o->threads : n;
	pthread_t *tids = malloc(T * sizeof *tids);
	if (!tids)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	struct pool p = {.o = o, .rcs = rcs, .errs = errs};
	for (size_t i = 0; i < n; i++) {
		rcs[i] = 1;
		errs[i] = (struct nl_err){0};
	}
	atomic_init(&p.next, 1);
	atomic_init(&p.first_bad, n);
	pthread_mutex_init(&p.mu, NULL);
	/* The threads started here never take SIGINT, SIGTERM or SIGHUP
	 * (out_signals_add): the handler runs on this thread, the one that
	 * changes the staged list (core/staged.h is for one thread) and runs
	 * the first run, which may poll for the signal (replay's --otf2
	 * archive). */
	sigset_t block, old;
	sigemptyset(&block);
	out_signals_add(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	size_t started = 0;
	int e = 0; /* the first failed start's error */
	for (size_t t = 1; t < T; t++) {
		int et = nl_thread_create(&tids[started], pool_take, &p);
		if (et == 0) {
			started++;
			continue;
		}
		e = e ? e : et;
		if (!o->is_every_start_tried)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		char what[48];
		snprintf(what, sizeof what, "the %s", o->what);
		nl_thread_short_note(o->place, what, (uint32_t)T, (uint32_t)started + 1, "pthread_create", e);
	}
	/* The first run here, first: what the caller finishes after it
	 * (replay's timeline) is finished as soon as it is done, not after
	 * the slowest run. */
	pool_one(&p, pool_at(&p, 0));
	if (o->first_done) {
		if (o->pg) { /* what first_done says on a line of its own */
			pthread_mutex_lock(&p.mu);
			progress_done(o->pg);
			pthread_mutex_unlock(&p.mu);
		}
		o->first_done(o->ctx, rcs[pool_at(&p, 0)]);
	}
	pool_take(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	if (o->pg)
		progress_done(o->pg);
	pthread_mutex_destroy(&p.mu);
	free(tids);
	return 0;
}
