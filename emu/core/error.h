/* Error codes and one-line user-facing error messages.
 *
 * Library functions return 0 or a negative NL_E* code. Failures caused by
 * user input also fill a caller-provided struct nl_err with one line naming
 * the file/field/value and what was expected, so the CLI can print it as is.
 */
#ifndef NETLOOM_CORE_ERROR_H
#define NETLOOM_CORE_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h> /* mode_t */

#include "netloom/netloom.h"

/* The codes (NL_ERRNO_MAP, enum nl_errno), struct nl_err, nl_err_name()
 * and nl_strerror() are public: include/netloom/netloom.h. */

/* Record code and a printf-style message in *err (err may be NULL) and
 * return code, so a failure is one statement: return nl_errf(err, ...). */
int nl_errf(struct nl_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Make the message in *err one line of well-formed text, whatever user
 * text it quotes: control characters are written as \n, \r, \t or \xHH,
 * and so is each byte that starts no valid UTF-8 sequence (and a C1
 * control's two bytes); valid UTF-8 is kept. A backslash is kept too: a
 * message may be made one line again on its way up (the session API, then
 * a command's report), which must change nothing. Returns rc, so
 * a call ends `return nl_err_one_line(err, f(...));` (nothing done for
 * rc >= 0). */
int nl_err_one_line(struct nl_err *err, int rc);

/* Write s to dst (cap > 0 bytes, NUL-terminated) escaped as
 * nl_err_one_line escapes a message, and a backslash as \\ (a name
 * holding a backslash and an n is then not read as one holding a
 * newline), cut before the first piece that does not fit; for a line
 * longer than a struct nl_err holds, escaped once and printed. At most
 * 4 * strlen(s) + 1 bytes. Returns its length. */
size_t nl_str_one_line(char *dst, size_t cap, const char *s);

/* Write s to f escaped as nl_err_one_line escapes a message (a backslash
 * kept): user text (a graph:file= path) printed on a line of a report
 * stays on it, and reads as the errors quoting it do. */
void nl_fputs_one_line(const char *s, FILE *f);

/* Prefix the message already in *err with "prefix: " (for adding the file
 * name or the enclosing component on the way up). Returns err->code. */
int nl_err_prefix(struct nl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append text to the message already in *err. Returns err->code.
 * Every helper here that writes a message keeps it within
 * NL_ERR_MSG_MAX by cutting its middle ("..."), never its end: the
 * reason, which comes last, survives a long path. */
int nl_err_suffix(struct nl_err *err, const char *text);

/* Open path for reading (*f) as an input file described by what ("config
 * file", "BookSim config"). Fails with "PATH: cannot open WHAT: <reason>",
 * or "PATH: is a directory, not a WHAT" for a directory (which fopen
 * opens and whose first read fails with a less helpful message), or
 * "'': empty file name; expected a WHAT to read" or the refusal of '-'
 * (nl_input_named). */
int nl_open_input(const char *path, const char *what, FILE **f, struct nl_err *err);

/* What a file that is not regular is, for messages ("PATH: is not a
 * regular file (a FIFO)"): "a directory", "a FIFO", "a socket", "a
 * character device", "a block device". */
const char *nl_file_kind(mode_t mode);

/* Open path read-only without waiting on a FIFO (O_NONBLOCK, which a
 * regular file ignores) and fstat it into *st: the descriptor when it is
 * a regular file; else -1, errno open(2)'s or fstat(2)'s, or errno 0 when
 * the file is not regular (*st says what it is; nothing left open). */
struct stat;
int nl_open_regular_fd(const char *path, struct stat *st);

/* An input named '' refused with error `code` ("'': empty file name;
 * expected a WHAT to read"), and '-' when no file has that name ("'-':
 * standard input is not read here; expected a WHAT's path"), else 0: for
 * readers that open their file otherwise than nl_open_input (open(2), an
 * archive's reader). */
int nl_input_named(const char *path, const char *what, int code, struct nl_err *err);

/* Where an output written by temporary file and rename goes. A results
 * file, archive or drawing is replaced by renaming a complete temporary
 * file over it, which would replace a symbolic link, a device node or a
 * FIFO by a regular file (as root, '--json /dev/null' would delete
 * /dev/null). Returns NL_OUT_FILE with *real (malloc'd) the file to
 * replace: `path`, or the file a symbolic link names, so the link stays;
 * NL_OUT_STREAM with *real for a character device or FIFO
 * (/dev/stdout, /dev/null, a pipe), which is written in place (it cannot
 * be replaced atomically, and need not be); or an error naming `path`:
 * a directory, a socket, a link to a missing file. A missing `path` is
 * NL_OUT_FILE (created). */
enum { NL_OUT_FILE = 0, NL_OUT_STREAM = 1 };
int nl_output_target(const char *path, char **real, struct nl_err *err);

/* `path` cannot be made because a folder of it is missing or is a file:
 * the line names that folder and what was expected ("x/y.json: x: not a
 * directory; expected a folder to write to" for the first part of the
 * path that is a file, else "nodir/y.json: nodir: no such directory;
 * expected an existing folder to write to" for its folder, or
 * "/proc/x.nlt: /proc: a folder no file can be created in; expected a
 * folder to write to" when it exists), where strerror's "Not a directory"
 * or mkstemp's "No such file or directory" named nothing.
 * NL_EIO. */
int nl_path_folder_error(const char *path, struct nl_err *err);

/* Reset to "no error". */
void nl_err_clear(struct nl_err *err);

/* Forward an error code: evaluate e once, return it if negative. */
#define NL_CHECK(e)                  \
	do {                         \
		int nl_check_rc_ = (e); \
		if (nl_check_rc_ < 0)   \
			return nl_check_rc_; \
	} while (0)

/* Programmer errors. NL_BUG is always on; NL_ASSERT only in debug and
 * sanitizer builds (NDEBUG unset). Both abort with file:line. */
void nl_bug_(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define NL_BUG(...) nl_bug_(__FILE__, __LINE__, __VA_ARGS__)
#ifdef NDEBUG
#define NL_ASSERT(c) ((void)0)
#else
#define NL_ASSERT(c) ((c) ? (void)0 : nl_bug_(__FILE__, __LINE__, "assertion failed: %s", #c))
#endif

#endif
