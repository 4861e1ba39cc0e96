/* Writing results: atomic file replacement and JSON documents.
 *
 * A results file is either the complete new content or the old file: data
 * goes to a temporary file in the same directory, is flushed and synced,
 * then renamed over the target.
 */
#ifndef NETLOOM_CORE_OUTPUT_H
#define NETLOOM_CORE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/staged.h"

struct nl_err;
struct json_t;

/* Replace `path` with `len` bytes of `data`, atomically. "-" writes stdout.
 * The temporary file is registered (out_stage_registered), so a caught
 * SIGINT/SIGTERM removes it. */
int out_write_atomic(const char *path, const void *data, size_t len, struct nl_err *err);

/* out_write_atomic in two steps, for several files written together or
 * not at all: out_stage writes data to a temporary file (synced, mode
 * 0600; *tmp its malloc'd name); out_commit moves it to `path` with mode
 * out_file_mode (and frees
 * *tmp, unless out_stage_registered made it); out_unstage removes a
 * staged file (NULL: none) and frees its name. Both set *tmp to NULL when
 * done with it. out_tmp_for makes the
 * temporary file empty, for a program that writes it itself (gnuplot).
 *
 * Where `path` goes (nl_output_target, core/error.h): a file, or the file
 * a symbolic link names (the link stays), is replaced by renaming the
 * temporary file, made beside it, over it; a device or FIFO
 * (/dev/stdout, a pipe) is written in place, the temporary file made in
 * TMPDIR; a directory, socket or dangling link is refused, by
 * out_check_writable before any work.
 *
 * "-" (standard output) is staged as a device is, never as a file named
 * "-": out_tmp_for("-") (and out_stage("-")) makes *tmp
 * "$TMPDIR/netloom-out.tmpXXXXXX" ("/tmp/..." when TMPDIR is unset or
 * empty), mode 0600, registered by out_tmp_for_registered as any other,
 * and writes nothing to standard output. A failure names that file, not
 * "-" ("$TMPDIR/netloom-out: $TMPDIR: no such directory"), and comes only
 * here: out_check_writable("-") is always 0. out_commit does not take
 * "-" (it would rename the file to "./-"): the caller reads the file back
 * (out_read_svg), writes standard output itself (out_write_atomic("-"))
 * and removes the file (out_unstage), as interfere --plot - does;
 * out_stream_commit, below, does all three for a streamed output. */
int out_stage(const char *path, const void *data, size_t len, char **tmp, struct nl_err *err);
int out_tmp_for(const char *path, char **tmp, struct nl_err *err);
int out_commit(char **tmp, const char *path, struct nl_err *err);
void out_unstage(char **tmp);

/* out_stage for a file to be removed on SIGINT/SIGTERM (out_staged_add,
 * core/staged.h) until it is in place: the temporary name is registered
 * before the file exists (a template that mkstemp fills in place), so
 * there is no moment when a signal would leave it. The name stays
 * registered, and *tmp set, through out_commit, which moves the file into
 * place but keeps the name: a signal while several files staged together
 * are committed waits until all are in place, not one new file beside
 * old ones. Then out_unstage (after out_commit or instead of it) removes
 * the file if it is still staged, forgets the name (out_staged_del, which
 * polls) and frees it; *tmp is NULL after it. */
int out_stage_registered(const char *path, const void *data, size_t len, char **tmp, struct nl_err *err);

/* out_tmp_for, its name registered as out_stage_registered's: a signal
 * removes the file (one a program such as gnuplot is writing) until
 * out_unstage. */
int out_tmp_for_registered(const char *path, char **tmp, struct nl_err *err);

/* One output written as a stream, for a document too large to hold in
 * memory first (topo export's JSON of a million routers is 836 MB). The
 * text goes through a 1 MiB stdio buffer into a file staged as
 * out_tmp_for_registered's (beside `path`; in TMPDIR for "-", a device
 * or a FIFO, which then need room there for the whole document), so a
 * SIGINT/SIGTERM removes it (the writer polls out_staged_poll), a
 * failure leaves an old file at `path` as it was, and nothing reaches
 * standard output before the whole document is written.
 *
 * out_stream_open stages the file and opens s->f on it; `path` is
 * borrowed, and *s must stay where it is (s->f writes through it),
 * until the commit or abort. It fails as out_tmp_for_registered does,
 * with nothing staged. The caller writes only s->f and never closes it.
 * out_stream_commit checks every write (the first one that failed, then
 * the flush, the sync and the close): "PATH: write failed: No space
 * left on device", PATH the output, or for one staged in TMPDIR the
 * temporary file (TMPDIR's disk failed, not the output), the file
 * removed; then puts the file in place as out_commit does, "-" copied
 * to standard output in 64 KiB chunks ("stdout: write failed: ..."),
 * and removes what is left (out_unstage, which polls).
 * out_stream_abort, instead of the commit (the rendering failed),
 * closes and removes the file. Each leaves s->f and s->tmp NULL.
 * s->bytes counts the bytes that reached the staged file (f's buffer
 * flushes): after fflush(s->f), the whole document, for a progress line
 * naming its size. */
struct out_stream {
	FILE *f;          /* the caller's stream onto the staged file */
	char *tmp;        /* the staged file's name (registered), NULL when none */
	const char *path; /* the output, borrowed; "-" for standard output */
	int fd;           /* the staged file, written by f's buffer flushes */
	char *buf;        /* f's buffer, malloc'd */
	int write_errno;  /* errno of the first failed write, 0 while none failed */
	bool is_replace;  /* renamed over path (synced first), not copied out */
	unsigned long long bytes; /* written to the staged file so far */
};
int out_stream_open(struct out_stream *s, const char *path, struct nl_err *err);
int out_stream_commit(struct out_stream *s, struct nl_err *err);
void out_stream_abort(struct out_stream *s);

/* out_stream_commit in two steps, for several streamed outputs written
 * together or not at all (layout's --svg and --lengths): the caller
 * finishes every one before it places any. out_stream_finish checks the
 * writes, flush, sync and close as out_stream_commit does (on failure
 * the file is removed, s->tmp NULL) and leaves the file staged and
 * registered. out_stream_place then puts it in place as out_commit does,
 * "-" copied to standard output, but keeps the name registered: a signal
 * meanwhile waits until the caller's out_unstage(&s->tmp) for each, after
 * the last is in place, so it never leaves one new file beside old ones.
 * out_stream_abort, at any step, removes what is still staged and
 * forgets the name. */
int out_stream_finish(struct out_stream *s, struct nl_err *err);
int out_stream_place(struct out_stream *s, struct nl_err *err);

/* Read back the SVG a program wrote to `file` for the output `path`
 * (*svg malloc'd and NUL-terminated, *len its bytes), checked whole: an
 * <svg element and, trailing white space aside, its closing </svg> last.
 * gnuplot exits 0 after a failed write (a full disk), leaving the file
 * cut mid-element or empty: that is NL_EIO, "PATH: the SVG could not be
 * written: ...", and *svg NULL. To write it, stage the text (out_stage),
 * which checks its own writes. */
int out_read_svg(const char *file, const char *path, char **svg, size_t *len, struct nl_err *err);

/* Can out_write_atomic create its temporary file beside `path`? Tried
 * and removed at once, so a command whose output cannot be written fails
 * before its work, not after ("-" is always fine). Its message is the
 * one out_write_atomic would give. An empty name is refused (NL_EINVAL,
 * "empty file name (expected ...)"), here and by the functions above,
 * which would otherwise make their temporary file in the working
 * directory and fail only at the rename. */
int out_check_writable(const char *path, struct nl_err *err);

/* Whether the rename that replaces an existing file would be refused
 * because its folder is sticky (/tmp, mode 1777): only the file's owner,
 * the folder's owner or a privileged process (euid 0, CAP_FOWNER) may
 * remove or replace a file there (unlink(2), rename(2): EPERM), whatever
 * the file's own mode. out_check_writable refuses such a file before the
 * work ("PATH: cannot replace another user's file in sticky folder
 * DIR; ..."); out_commit's rename would fail only after it. */
bool out_sticky_refuses(mode_t dir_mode, uid_t dir_uid, uid_t file_uid, uid_t euid);

/* The staged list (out_signals_catch, out_staged_add, out_staged_del,
 * out_staged_poll, out_staged_unlink, out_remove_tree) is core/staged.h,
 * included above. */

/* Whether two output paths name one file (so one write would lose the
 * other): the same device and inode when either exists (./a.svg and
 * a.svg, a link and its target), else the same canonical folder and name;
 * "-" (standard output) only matches "-". */
bool out_same_file(const char *a, const char *b);

/* Serialise `doc` (indented, keys in insertion order, doubles to 17
 * significant digits so a re-run compares byte for byte) and write it
 * atomically to `path` ("-" = stdout), with a trailing newline. A file
 * (or a link to one) gets the text streamed into its staged file
 * (out_stream: registered, so a SIGINT/SIGTERM caught by
 * out_signals_catch removes it), never whole in memory; standard
 * output, a device or a FIFO gets it from memory in one write, as
 * out_write_atomic writes them, nothing staged in TMPDIR. */
int out_write_json(const char *path, const struct json_t *doc, struct nl_err *err);

/* out_write_json of a file registered as out_stage_registered's, so a
 * SIGINT/SIGTERM removes its temporary file until it is in place (then
 * the final out_unstage's poll ends the process): compare's cache
 * entries, serve's --json. out_stage_json_registered only stages it
 * (*tmp set, as out_stage_registered), for files committed together
 * (compare's report.json); "-" is not staged (out_write_json_registered
 * writes stdout as out_write_json). */
int out_write_json_registered(const char *path, const struct json_t *doc, struct nl_err *err);
int out_stage_json_registered(const char *path, const struct json_t *doc, char **tmp, struct nl_err *err);

/* The same serialisation into a malloc'd string (caller frees). */
char *out_json_string(const struct json_t *doc);

/* The bytes out_write_json writes: out_json_string plus the trailing
 * newline, its length (without the terminating NUL) in *len. NULL when
 * out of memory. For writers that hand the text to a caller
 * (nl_sim_json). */
char *out_json_text(const struct json_t *doc, size_t *len);

/* A new JSON string of s, which may be any bytes (a path, a job name, a
 * spec, a manifest field, a config value; NULL as ""), with each byte
 * that is not UTF-8 as U+FFFD (docs/layout.md). json_string refuses
 * invalid UTF-8 and returns NULL, which json_object_set_new takes without
 * a word: the key went missing from the results. Use it for every string
 * that did not come from the program itself. NULL when out of memory. */
struct json_t *out_json_utf8(const char *s);

/* A new JSON real of a price in dollars, rounded to the cent, the least a
 * price means: sums of per-cable and per-metre prices carry float noise
 * (2 terminal cables of 39.40 $ came to 78.79999999999998). Every
 * cost_usd written (cost --json, compare's report.json) goes through it,
 * so the same price reads the same in each. NULL when out of memory. */
struct json_t *out_json_usd(double usd);

#endif
