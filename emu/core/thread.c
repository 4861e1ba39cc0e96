#include "core/thread.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* The starts so far, for NETLOOM_TEST_FAIL_THREAD's count: one process
 * counter (threads start threads: compare -j runs flit networks that
 * start their own workers), touched only when a test sets the variable. */
static _Atomic uint32_t nl_thread_starts;

/* The shortfalls noted since the CLI last took them (thread.h: the
 * process's, as its thread limits are), one per place, under the lock:
 * places note from any thread, a few times per run. */
static pthread_mutex_t nl_thread_short_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nl_thread_short nl_thread_shorts[NL_THREAD_N_PLACES]; /* asked 0: none */

/* A number from 1 to 4294967295 at s, its end in *end; 0 if none. */
static uint32_t nl_count_at(const char *s, char **end)
{
	if (s[0] < '1' || s[0] > '9')
		return 0;
	errno = 0;
	unsigned long long v = strtoull(s, end, 10);
	return errno || v > UINT32_MAX ? 0 : (uint32_t)v;
}

uint32_t nl_test_env_count(const char *name)
{
	const char *s = getenv(name);
	char *e;
	if (!s)
		return 0;
	uint32_t v = nl_count_at(s, &e);
	return v && !*e ? v : 0;
}

/* Whether NETLOOM_TEST_FAIL_THREAD fails this start. Read at each start
 * (a few per run), so that nothing is kept between calls but the count. */
static bool nl_thread_fails(void)
{
	const char *s = getenv("NETLOOM_TEST_FAIL_THREAD");
	if (!s || !*s)
		return false;
	uint32_t k = atomic_fetch_add(&nl_thread_starts, 1) + 1; /* this start's number */
	if (!strcmp(s, "all"))
		return true;
	char *e;
	uint32_t n = nl_count_at(s, &e);
	if (!n)
		return false;
	if (e[0] == '+' && !e[1])
		return k >= n;
	return !*e && k == n;
}

int nl_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	if (nl_thread_fails())
		return EAGAIN;
	return pthread_create(t, NULL, fn, arg);
}

void nl_thread_short_note(enum nl_thread_place place, const char *what, uint32_t asked, uint32_t running,
			  const char *call, int errnum)
{
	NL_ASSERT((unsigned)place < NL_THREAD_N_PLACES && running < asked);
	pthread_mutex_lock(&nl_thread_short_lock);
	struct nl_thread_short *k = &nl_thread_shorts[place];
	/* The worst, whichever run noted first: threads note in the order
	 * they happen to run, and the line must not depend on it. */
	if (!k->asked || running < k->running || (running == k->running && asked > k->asked)) {
		*k = (struct nl_thread_short){.asked = asked, .running = running, .call = call, .errnum = errnum};
		snprintf(k->what, sizeof k->what, "%s", what);
	}
	pthread_mutex_unlock(&nl_thread_short_lock);
}

size_t nl_thread_short_take(struct nl_thread_short out[NL_THREAD_N_PLACES])
{
	size_t n = 0;
	pthread_mutex_lock(&nl_thread_short_lock);
	for (size_t i = 0; i < NL_THREAD_N_PLACES; i++) {
		if (nl_thread_shorts[i].asked)
			out[n++] = nl_thread_shorts[i];
		nl_thread_shorts[i] = (struct nl_thread_short){0};
	}
	pthread_mutex_unlock(&nl_thread_short_lock);
	return n;
}
