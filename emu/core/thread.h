/* Starting a thread, the one way netloom does: pthread_create behind a
 * test hook, so that the fallback of each place that starts threads (a
 * thread that cannot start, as under `ulimit -u`, a cgroup's pids.max or
 * a container's limit) can be run by a test (docs/scaling.md, "When a
 * thread cannot start"). */
#ifndef NETLOOM_CORE_THREAD_H
#define NETLOOM_CORE_THREAD_H

#include <pthread.h>
#include <stdint.h>

/* pthread_create(t, NULL, fn, arg): 0, or the error number it gave
 * (EAGAIN when the system is out of threads), *t then unset. For tests,
 * NETLOOM_TEST_FAIL_THREAD makes starts fail with EAGAIN, counted over
 * the process: `N` (1 to 4294967295) the Nth start alone, `N+` the Nth
 * and every later one, `all` every one; unset or anything else, none. */
int nl_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/* A test hook's count from environment variable `name`: a number from 1
 * to 4294967295, else 0 (off). NETLOOM_TEST_FAIL_ALLOC is read with it
 * (emu/net/flitnet.c, emu/layout/floor.c). */
uint32_t nl_test_env_count(const char *name);

#endif
