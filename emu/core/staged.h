/* Staged outputs and SIGINT/SIGTERM/SIGHUP: the list of files and directories a
 * signal must not leave behind, and the handler that removes them. A unit
 * of its own, apart from output.h's writers, so that code built without
 * them (the PMPI recorder's archive writer, traces/record/meson.build)
 * registers its temporary files too.
 *
 * Any thread may register, forget and poll: threads take turns at the
 * list, and a handler on any thread sees it whole (core/staged.c). A path
 * is forgotten by the thread that owns it, once.
 */
#ifndef NETLOOM_CORE_STAGED_H
#define NETLOOM_CORE_STAGED_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct nl_err;

/* An output staged during long work (replay --otf2's temporary archive
 * directory) must not be left behind when the user interrupts the work.
 * Removing a directory tree is not async-signal-safe, so the handler does
 * not remove it: while anything is staged, it records the signal, and the
 * work removes what is staged and ends the process by the same signal
 * (exit status 128 + signal number) at its next poll. With nothing staged
 * the signal ends the process at once, as without a handler; a second
 * signal always does, after unlinking the staged files (a staged directory
 * stays: removing a tree is not async-signal-safe).
 *
 * out_signals_catch installs the handler for SIGINT, SIGTERM and SIGHUP
 * (a closed terminal: treated as SIGTERM), not for one ignored when the
 * process started (nohup's SIGHUP, a background job's SIGINT): called by netloom's main before
 * any command runs; without it the functions below only keep their list,
 * and a library user's signals are untouched. out_staged_add registers `path` (a file
 * or directory; the caller keeps the string, which may be a mkdtemp
 * template filled in later, valid and unmoved until out_staged_del):
 * call it before creating what `path` names, so there is no moment when
 * a signal would leave it. out_staged_del forgets it, after its owner
 * moved it into place or removed it. out_staged_poll is the poll, cheap
 * enough for every replayed op: a recorded signal removes every
 * registered path (recursively) and re-raises the signal with its
 * default action; out_staged_del polls too. */
void out_signals_catch(void);

/* Add the signals out_signals_catch catches (SIGINT, SIGTERM, SIGHUP) to
 * *set: for code that blocks them (threads that must not take them, a
 * wait that takes them itself) or masks them in a handler of its own. */
void out_signals_add(sigset_t *set);
/* The same signals as a list, for code that sets or waits for each (the
 * live server's own handler, the wait for gnuplot). */
enum { OUT_N_SIGNALS = 3 };
extern const int out_signals[OUT_N_SIGNALS];

/* Ignore SIGXFSZ for the process, so that a write past a file size limit
 * (ulimit -f) fails with EFBIG, as one to a full disk fails with ENOSPC:
 * the writer's error path then says so in one line, status 1, and
 * removes its temporary file. By default the signal ended the process
 * (status 153) with the temporary file left. Called by netloom's main,
 * for every command; a library user's signals, and those of a program
 * the recorder is preloaded into, are untouched (as with
 * out_signals_catch). */
void out_signals_ignore_xfsz(void);
int out_staged_add(const char *path, struct nl_err *err);
void out_staged_del(const char *path);
/* Unlink the file `path` and forget it (out_staged_del, which polls): an
 * owner giving up a file it registered, which was never put in place. */
void out_staged_remove(const char *path);
void out_staged_poll(void);

/* Make the directory `path` (mode 0755) and register it as out_staged_add
 * does, with the caught signals held off between the two, so a signal
 * finds no directory or a registered one, never a directory that was
 * there: 1 made (out_staged_del forgets it), 0 when `path` exists (not
 * made, not registered; whether it is a directory is the caller's to
 * check), else NL_EIO "PATH: cannot create directory: ..." or NL_ENOMEM,
 * and nothing made. Its poll removes it with all it holds, as any
 * registered directory; a second signal, which cannot remove a tree,
 * removes it with rmdir after unlinking the files registered after it:
 * register what goes in it (trace unpack's entries, their temporary
 * files), before each is made, and nothing of it is left. */
int out_staged_mkdir(const char *path, struct nl_err *err);

/* mkstemp(tmpl) with the name registered as out_staged_add (is_stage:
 * out_staged_add_stage) does, both with the list held, so neither a
 * signal nor another thread's poll finds the file made but not
 * registered, or the name half filled in. The file's descriptor, or a
 * negative code and nothing made or registered: NL_ENOMEM (err says
 * so), or NL_EIO with *mk_errno (and errno) mkstemp's error, err
 * untouched, for the caller to word. *mk_errno is 0 otherwise. */
int out_staged_mkstemp(char *tmpl, bool is_stage, int *mk_errno, struct nl_err *err);

/* Unlink every registered file not in place yet (a directory stays, but
 * for an out_staged_mkdir one, removed by rmdir when empty by then), at
 * once: async-signal-safe, for a command with a SIGINT/SIGTERM/SIGHUP handler of
 * its own that ends the process (netloom serve's second signal,
 * docs/live.md "Stopping"). The list is left as it is. */
void out_staged_unlink(void);

/* Remove `path`: a file, or a directory with everything in it (what
 * remains when a part cannot be removed stays). Not async-signal-safe. */
void out_remove_tree(const char *path);

/* For core/output.c's out_stage_registered, whose names stay registered
 * through out_commit (output.h). out_staged_add_stage registers `path` as
 * out_staged_add does, marked as such a name. out_staged_is_stage: is the
 * latest registration of the pointer `path` one? out_staged_is_done: ...
 * and is its file in place (out_staged_set_done)? out_staged_set_done
 * marks it so (a signal no longer removes it); false when `path` is no
 * such name, which is left as it is. */
int out_staged_add_stage(const char *path, struct nl_err *err);
bool out_staged_is_stage(const char *path);
bool out_staged_is_done(const char *path);
bool out_staged_set_done(const char *path);

/* The mode a result written to `path` gets: that of the regular file
 * there now, which it replaces (kept, as editors keep it), else what
 * creating the file would give, 0666 less the process's umask (read from
 * /proc/self/status: umask(2) cannot read it without setting it, which
 * would race with other threads creating files; 0644 where /proc does
 * not say). Results were 0644 whatever the umask. */
mode_t out_file_mode(const char *path);

#endif
