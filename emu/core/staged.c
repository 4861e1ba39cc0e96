/* Staged outputs and SIGINT/SIGTERM/SIGHUP (core/staged.h): the list of
 * what a signal must not leave behind, and the handler. Invariants: the
 * list is read and changed only under out_staged_mu, with the three
 * signals blocked in that thread, so threads take turns and the handler never
 * interrupts a change on its own thread; a handler on another thread
 * reads it only when no thread is changing it (out_staged_busy), and
 * then no thread starts again (out_staged_unlink). */
#include "core/staged.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* What a SIGINT, SIGTERM or SIGHUP must not leave behind, and the signal waiting
 * for the work's next poll. The only mutable globals of core: a signal
 * handler reaches no context. The handler writes out_pending_sig and
 * reads the list (a second signal unlinks its paths), which is changed
 * only with the list held (out_staged_lock), so the handler never sees an
 * entry half written or the array while realloc moves it. */
/* Lock-free atomics, not volatile sig_atomic_t: the handler may run on
 * another thread than the one changing them. */
static atomic_int out_pending_sig; /* the recorded signal, or 0 */
static atomic_int out_n_staged;    /* entries of out_staged in use */
static struct out_staged_entry {
	const char *path; /* the caller's string (out_stage_registered's name) */
	bool is_stage;    /* made by out_stage_registered: kept through out_commit */
	bool is_done;     /* ... and moved into place: its name is free again */
	bool is_dir;      /* made by out_staged_mkdir: the handler removes it with rmdir */
} *out_staged;                                /* in registration order */
static size_t out_staged_cap;

/* Threads take turns at the list (compare's workers stage their cache
 * entries while the main thread stages the report). The handler, which
 * cannot take a mutex, meets a changing thread through two lock-free
 * flags, Dekker's way (sequentially consistent): a thread sets busy and
 * then checks that no handler reads; the handler sets handler_reads and
 * then waits for busy to clear. One of the two always sees the other.
 * The wait is short: a change is a few stores, a realloc at most (no
 * file work is done with the list held but a poll's removal, which then
 * ends the process). */
static pthread_mutex_t out_staged_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int out_staged_busy;
static atomic_int out_handler_reads;

/* Async-signal-safe: records the first signal while something is
 * staged, else ends the process at once, as without the handler. A
 * second signal (coreutils `timeout -s INT` sends one to netloom, then
 * one to its process group) first unlinks the staged files: unlink is
 * async-signal-safe, out_remove_tree is not, so a staged directory
 * stays (docs/replay.md); one out_staged_mkdir made goes by rmdir, as
 * async-signal-safe, once the files registered after it are unlinked
 * (trace unpack's DIR and its entries). The raised signal is blocked until
 * the handler returns, then ends the process by its default action. */
static void out_on_signal(int sig)
{
	if (out_n_staged > 0 && !out_pending_sig) {
		out_pending_sig = sig;
		return;
	}
	out_staged_unlink();
	signal(sig, SIG_DFL);
	raise(sig);
}

void out_staged_unlink(void)
{
	int e = errno; /* called by signal handlers: kept for the code they interrupted */
	/* A thread changing the list has these signals blocked, so it is
	 * another thread: it finishes its change, and none starts another
	 * (out_staged_lock) before this ends the process. */
	atomic_store(&out_handler_reads, 1);
	while (atomic_load(&out_staged_busy))
		;
	/* Last registered first: a directory's files go before it. */
	for (size_t i = (size_t)out_n_staged; i-- > 0;)
		if (out_staged[i].is_dir)
			rmdir(out_staged[i].path);
		else if (!out_staged[i].is_done)
			unlink(out_staged[i].path);
	errno = e;
}

/* Take the list: the caught signals blocked in this thread (*old: the
 * mask to restore with out_staged_unlock), then the mutex, then the busy
 * flag a handler on another thread waits on. When a handler already
 * reads the list it is ending the process: this thread waits for that. */
static void out_staged_lock(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	out_signals_add(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
	pthread_mutex_lock(&out_staged_mu);
	atomic_store(&out_staged_busy, 1);
	if (atomic_load(&out_handler_reads)) {
		atomic_store(&out_staged_busy, 0);
		for (;;)
			pause();
	}
}

static void out_staged_unlock(const sigset_t *old)
{
	atomic_store(&out_staged_busy, 0);
	pthread_mutex_unlock(&out_staged_mu);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* SIGHUP is a closed terminal or a dropped ssh session: an interrupt the
 * user did not type, which must leave no more behind than one typed.
 * nohup ignores it, so an ignored one stays ignored and the work goes
 * on, as nohup's users expect. */
const int out_signals[OUT_N_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};

void out_signals_add(sigset_t *set)
{
	for (size_t i = 0; i < OUT_N_SIGNALS; i++)
		sigaddset(set, out_signals[i]);
}

void out_signals_catch(void)
{
	/* SA_RESTART: work that goes on after a recorded signal does not see
	 * EINTR. No SA_RESETHAND: a second signal goes through the handler,
	 * which removes the staged files before it ends the process. */
	struct sigaction sa = {.sa_handler = out_on_signal, .sa_flags = SA_RESTART}, old;
	sigemptyset(&sa.sa_mask);
	out_signals_add(&sa.sa_mask);
	for (size_t i = 0; i < OUT_N_SIGNALS; i++)
		if (sigaction(out_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(out_signals[i], &sa, NULL);
}

void out_signals_ignore_xfsz(void)
{
	signal(SIGXFSZ, SIG_IGN);
}

/* Append `path` to the list; the caller holds out_staged_lock. */
static int out_staged_push_locked(const char *path, bool is_stage, bool is_dir, struct nl_err *err)
{
	size_t n = (size_t)out_n_staged;
	if (n == out_staged_cap) {
		size_t cap = n ? 2 * n : 4;
		struct out_staged_entry *p = realloc(out_staged, cap * sizeof *p);
		if (!p)
			return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
		out_staged = p;
		out_staged_cap = cap;
	}
	out_staged[n] = (struct out_staged_entry){path, is_stage, false, is_dir};
	out_n_staged = (int)(n + 1);
	return 0;
}

static int out_staged_push(const char *path, bool is_stage, struct nl_err *err)
{
	sigset_t old;
	out_staged_lock(&old);
	int rc = out_staged_push_locked(path, is_stage, false, err);
	out_staged_unlock(&old);
	return rc;
}

int out_staged_add(const char *path, struct nl_err *err)
{
	return out_staged_push(path, false, err);
}

int out_staged_add_stage(const char *path, struct nl_err *err)
{
	return out_staged_push(path, true, err);
}

int out_staged_mkdir(const char *path, struct nl_err *err)
{
	/* Made and registered with the signals blocked: registered first, a
	 * second signal before mkdir failed with EEXIST would rmdir a
	 * directory that was there; made first, a signal in between would
	 * leave the new one. A signal now waits until both are done. */
	sigset_t old;
	out_staged_lock(&old);
	int rc;
	if (mkdir(path, 0755) != 0) {
		int e = errno;
		rc = e == EEXIST ? 0 : nl_errf(err, NL_EIO, "%s: cannot create directory: %s", path, strerror(e));
	} else if ((rc = out_staged_push_locked(path, false, true, err)) < 0) {
		rmdir(path);
	} else {
		rc = 1;
	}
	out_staged_unlock(&old);
	return rc;
}

int out_staged_mkstemp(char *tmpl, bool is_stage, int *mk_errno, struct nl_err *err)
{
	/* As out_staged_mkdir: the handler (whose wait on the busy flag
	 * also keeps it from reading the template while mkstemp fills it)
	 * and another thread's poll find no file, or a registered one. */
	sigset_t old;
	*mk_errno = 0;
	out_staged_lock(&old);
	int fd = out_staged_push_locked(tmpl, is_stage, false, err);
	if (fd == 0) {
		fd = mkstemp(tmpl);
		if (fd < 0) {
			*mk_errno = errno;
			out_n_staged--; /* the entry just pushed, last */
			fd = NL_EIO;
		}
	}
	out_staged_unlock(&old);
	if (*mk_errno)
		errno = *mk_errno;
	return fd;
}

/* The entry of the name out_stage_registered made at `path` (the pointer,
 * not the string), NULL when there is none; the caller holds the list. */
static struct out_staged_entry *out_stage_find(const char *path)
{
	for (size_t i = (size_t)out_n_staged; i-- > 0;)
		if (out_staged[i].path == path)
			return out_staged[i].is_stage ? &out_staged[i] : NULL;
	return NULL;
}

bool out_staged_is_stage(const char *path)
{
	sigset_t old;
	out_staged_lock(&old);
	bool is = out_stage_find(path) != NULL;
	out_staged_unlock(&old);
	return is;
}

bool out_staged_is_done(const char *path)
{
	sigset_t old;
	out_staged_lock(&old);
	struct out_staged_entry *e = out_stage_find(path);
	bool is = e && e->is_done;
	out_staged_unlock(&old);
	return is;
}

bool out_staged_set_done(const char *path)
{
	sigset_t old;
	out_staged_lock(&old);
	struct out_staged_entry *e = out_stage_find(path);
	if (e)
		e->is_done = true;
	out_staged_unlock(&old);
	return e != NULL;
}

void out_staged_del(const char *path)
{
	sigset_t old;
	out_staged_lock(&old);
	size_t n = (size_t)out_n_staged, i = n;
	while (i > 0 && out_staged[i - 1].path != path)
		i--;
	if (i > 0) {
		memmove(&out_staged[i - 1], &out_staged[i], (n - i) * sizeof *out_staged);
		out_n_staged = (int)(n - 1);
		if (n == 1) {
			free(out_staged);
			out_staged = NULL;
			out_staged_cap = 0;
		}
	}
	out_staged_unlock(&old);
	if (i > 0)
		out_staged_poll();
}

void out_staged_remove(const char *path)
{
	unlink(path);
	out_staged_del(path);
}

void out_staged_poll(void)
{
	int sig = out_pending_sig;
	if (!sig)
		return;
	/* Held until the process ends: another thread's poll waits here,
	 * and finds nothing to do should this one return. */
	sigset_t old;
	out_staged_lock(&old);
	for (size_t i = (size_t)out_n_staged; i-- > 0;)
		if (!out_staged[i].is_done)
			out_remove_tree(out_staged[i].path);
	out_n_staged = 0;
	/* Ended by the signal, as the user asked: the parent sees it. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	signal(sig, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

void out_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			char *sub;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			    asprintf(&sub, "%s/%s", path, e->d_name) < 0)
				continue;
			out_remove_tree(sub);
			free(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/* The process's umask, from /proc/self/status's "Umask:" line (Linux
 * 4.7 and later); -1 where it cannot be read. */
static int out_umask(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	int mask = -1;
	while (mask < 0 && fgets(line, sizeof line, f)) {
		unsigned m;
		if (sscanf(line, "Umask: %o", &m) == 1 && m <= 0777)
			mask = (int)m;
	}
	fclose(f);
	return mask;
}

mode_t out_file_mode(const char *path)
{
	struct stat st;
	if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	int mask = out_umask();
	return mask < 0 ? 0644 : (mode_t)(0666 & ~mask);
}
