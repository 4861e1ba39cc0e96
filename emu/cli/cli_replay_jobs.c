/* `netloom replay -j N`: the prepared networks replayed side by side on
 * up to N threads of this process (docs/replay.md, "Comparing networks").
 * Invariant: what the caller reads afterwards (each network's status and
 * line) does not depend on N or on which thread ran which network; only
 * the order in which networks finish does, and nothing is said until all
 * are done. Sessions share nothing (session.h), so a thread needs no lock
 * but for the progress line.
 */
#include "cli/cli_replay.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/progress.h"

struct cli_replay_pool {
	const struct cli_replay_jobs *o;
	int *rcs;                /* o->n: each network's status (0 a result, < 0 failed, 1 not run) */
	struct nl_err *errs;     /* o->n: each network's line */
	atomic_size_t next;      /* the next network a thread takes */
	atomic_size_t first_bad; /* the lowest failed network so far, o->n when none */
	pthread_mutex_t mu;      /* guards pg, done and running */
	struct progress pg;      /* "networks 1/3 (2 running)" on a terminal */
	size_t done, running;
};

static void cli_replay_pool_show(struct cli_replay_pool *p)
{
	char line[96];
	snprintf(line, sizeof line, "networks %zu/%zu (%zu running)", p->done, p->o->n, p->running);
	progress_show(&p->pg, line);
}

/* Network i on this thread: its status and line into rcs[i] and errs[i];
 * a failure lowers first_bad, so no thread starts a network after it. */
static void cli_replay_pool_one(struct cli_replay_pool *p, size_t i)
{
	if (p->pg.enabled) {
		pthread_mutex_lock(&p->mu);
		p->running++;
		cli_replay_pool_show(p);
		pthread_mutex_unlock(&p->mu);
	}
	int rc = p->o->run(p->o->ctx, i, &p->errs[i]);
	p->rcs[i] = rc < 0 ? rc : 0;
	if (rc < 0) {
		size_t bad = atomic_load(&p->first_bad);
		while (i < bad && !atomic_compare_exchange_weak(&p->first_bad, &bad, i))
			;
	}
	if (p->pg.enabled) {
		pthread_mutex_lock(&p->mu);
		p->running--;
		p->done++;
		cli_replay_pool_show(p);
		pthread_mutex_unlock(&p->mu);
	}
}

/* Networks in order, as long as there are any and none before them has
 * failed: one after a failure is dropped unrun, as the sequential replay
 * never reached it. */
static void *cli_replay_pool_take(void *arg)
{
	struct cli_replay_pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->o->n || i > atomic_load(&p->first_bad))
			return NULL;
		cli_replay_pool_one(p, i);
	}
}

int cli_replay_jobs_run(const struct cli_replay_jobs *o, int *rcs, struct nl_err *errs, struct nl_err *err)
{
	const size_t n = o->n;
	size_t T = o->jobs < n ? o->jobs : n;
	pthread_t *tids = malloc(T * sizeof *tids);
	if (!tids)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	struct cli_replay_pool p = {.o = o, .rcs = rcs, .errs = errs};
	for (size_t i = 0; i < n; i++) {
		rcs[i] = 1;
		errs[i] = (struct nl_err){0};
	}
	atomic_init(&p.next, 1);
	atomic_init(&p.first_bad, n);
	pthread_mutex_init(&p.mu, NULL);
	progress_init(&p.pg, "replay");
	/* The threads started here never take SIGINT or SIGTERM: the handler
	 * runs on this thread, the one that changes the staged list
	 * (core/staged.h is for one thread) and runs network 0, whose --otf2
	 * archive polls for the signal. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	size_t started = 0;
	while (started + 1 < T && pthread_create(&tids[started], NULL, cli_replay_pool_take, &p) == 0)
		started++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* Network 0 here, first: its timeline is finished (written, its
	 * staged archive gone) as soon as it is done, as in the sequential
	 * replay, not after the slowest network. A thread that could not
	 * start leaves its networks to the others. */
	cli_replay_pool_one(&p, 0);
	if (o->first_done) {
		if (p.pg.enabled) { /* the timeline's warnings on a line of their own */
			pthread_mutex_lock(&p.mu);
			progress_done(&p.pg);
			pthread_mutex_unlock(&p.mu);
		}
		o->first_done(o->ctx, rcs[0]);
	}
	cli_replay_pool_take(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	progress_done(&p.pg);
	pthread_mutex_destroy(&p.mu);
	free(tids);
	return 0;
}
