/* Error table and helpers: the strings come from NL_ERRNO_MAP only. */
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

const char *nl_err_name(int code)
{
	/* Success is 0 in netloom.h, with no NL_ name of its own. */
	if (code == 0)
		return "0";
	switch (code) {
#define NL_ERR_NAME_(name, val, msg) \
	case val:                    \
		return #name;
		NL_ERRNO_MAP(NL_ERR_NAME_)
#undef NL_ERR_NAME_
	}
	return "NL_E?";
}

const char *nl_strerror(int code)
{
	if (code == 0)
		return "success";
	switch (code) {
#define NL_ERR_STR_(name, val, msg) \
	case val:                   \
		return msg;
		NL_ERRNO_MAP(NL_ERR_STR_)
#undef NL_ERR_STR_
	}
	return "unknown error";
}

/* Store the len-byte text src in err->msg. A text that does not fit
 * keeps its start and its end around "...": an error names the file
 * first and says what was wrong last, and a long path (or a long quoted
 * value) must not push the reason off the end. Three eighths of the room
 * go to the start, the rest to the end. */
static void nl_err_store(struct nl_err *err, const char *src, size_t len)
{
	const size_t cap = sizeof err->msg;
	if (len < cap) {
		memmove(err->msg, src, len + 1);
		return;
	}
	static const char gap[] = "...";
	const size_t keep = cap - 1 - (sizeof gap - 1), head = keep * 3 / 8, tail = keep - head;
	memmove(err->msg, src, head);
	memcpy(err->msg + head, gap, sizeof gap - 1);
	memmove(err->msg + head + sizeof gap - 1, src + len - tail, tail);
	err->msg[cap - 1] = '\0';
}

/* Format into *err through nl_err_store: the whole text first (on the
 * stack when it fits there, which is every message but the rare long
 * one), so what is cut is its middle. */
static void nl_err_vformat(struct nl_err *err, const char *fmt, va_list ap)
{
	char small[4 * NL_ERR_MSG_MAX];
	va_list again;
	va_copy(again, ap);
	int len = vsnprintf(small, sizeof small, fmt, ap);
	if (len < 0) {
		snprintf(err->msg, sizeof err->msg, "%s", nl_strerror(err->code));
	} else if ((size_t)len < sizeof small) {
		nl_err_store(err, small, (size_t)len);
	} else {
		char *big = malloc((size_t)len + 1);
		if (big) {
			vsnprintf(big, (size_t)len + 1, fmt, again);
			nl_err_store(err, big, (size_t)len);
			free(big);
		} else {
			nl_err_store(err, small, sizeof small - 1);
		}
	}
	va_end(again);
}

static void nl_err_format(struct nl_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	nl_err_vformat(err, fmt, ap);
	va_end(ap);
}

int nl_errf(struct nl_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		nl_err_vformat(err, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* The next piece of p[0..n) as one line of well-formed text, written to
 * piece (NUL-terminated, at most 16 bytes: one kept sequence, or up to four
 * bytes as \xHH); *used is the bytes of p it stands for. Valid UTF-8 is
 * kept (a path or value in any script); a byte that starts no valid
 * sequence (a Latin-1 file, a cut one) is escaped, as are C0 and C1
 * controls (U+0080..U+009F, which terminals act on as they do on C0 ones).
 * With has_backslash_escape, a backslash is written \\, so that a name holding a
 * backslash and an n is not read as one holding a newline. */
static size_t one_line_piece(const unsigned char *p, size_t n, char piece[20], size_t *used, bool has_backslash_escape)
{
	if (has_backslash_escape && *p == '\\') {
		memcpy(piece, "\\\\", 3);
		*used = 1;
		return 2;
	}
	int len = *p >= 0x20 && *p != 0x7f ? text_utf8_len(p, n) : 0;
	if (len == 1 || (len > 1 && !(p[0] == 0xc2 && p[1] < 0xa0))) {
		memcpy(piece, p, (size_t)len);
		piece[len] = '\0';
		*used = (size_t)len;
		return (size_t)len;
	}
	size_t o = 0;
	*used = len > 1 ? (size_t)len : 1;
	for (size_t i = 0; i < *used; i++) {
		const char *esc = p[i] == '\n' ? "\\n" : p[i] == '\r' ? "\\r" : p[i] == '\t' ? "\\t" : NULL;
		if (esc)
			o += (size_t)snprintf(piece + o, 20 - o, "%s", esc);
		else
			o += (size_t)snprintf(piece + o, 20 - o, "\\x%02x", p[i]);
	}
	return o;
}

/* s escaped into dst piece by piece (one_line_piece), cut before the
 * first piece that does not fit. */
static size_t one_line_str(char *dst, size_t cap, const char *s, bool has_backslash_escape)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0, used;
	char piece[20];
	for (const unsigned char *q = p; *q; q += used) {
		size_t k = one_line_piece(q, n - (size_t)(q - p), piece, &used, has_backslash_escape);
		if (o + k >= cap)
			break;
		memcpy(dst + o, piece, k);
		o += k;
	}
	dst[o] = '\0';
	return o;
}

int nl_err_one_line(struct nl_err *err, int rc)
{
	if (rc >= 0 || !err)
		return rc;
	/* Each byte of the message becomes at most four (\xHH): never cut.
	 * A backslash stays as it is: a message is made one line again on its
	 * way up (the session API, then the command's report), and \\ would
	 * double at each pass. */
	char out[4 * NL_ERR_MSG_MAX];
	nl_err_store(err, out, one_line_str(out, sizeof out, err->msg, false));
	return rc;
}

size_t nl_str_one_line(char *dst, size_t cap, const char *s)
{
	return one_line_str(dst, cap, s, true);
}

void nl_fputs_one_line(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), used;
	char piece[20];
	for (const unsigned char *q = p; *q; q += used)
		fwrite(piece, 1, one_line_piece(q, n - (size_t)(q - p), piece, &used, false), f);
}

int nl_err_prefix(struct nl_err *err, const char *fmt, ...)
{
	char head[4 * NL_ERR_MSG_MAX], old[NL_ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return NL_EINVAL;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	nl_err_format(err, "%s: %s", head, old[0] ? old : nl_strerror(err->code));
	return err->code;
}

int nl_err_suffix(struct nl_err *err, const char *text)
{
	char old[NL_ERR_MSG_MAX];
	if (!err)
		return NL_EINVAL;
	memcpy(old, err->msg, sizeof old);
	nl_err_format(err, "%s%s", old, text);
	return err->code;
}

void nl_err_clear(struct nl_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

void nl_bug_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "netloom: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

const char *nl_file_kind(mode_t mode)
{
	return S_ISDIR(mode)	? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISSOCK(mode) ? "a socket"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
				: "not a file";
}

int nl_open_regular_fd(const char *path, struct stat *st)
{
	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a
	 * writer, forever when there is none. A regular file ignores it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (S_ISREG(st->st_mode))
		return fd;
	close(fd);
	errno = 0;
	return -1;
}

int nl_input_named(const char *path, const char *what, int code, struct nl_err *err)
{
	/* An empty name (-c '', --config=) read as ": cannot open config
	 * file: No such file or directory", the name shown as nothing. */
	if (!*path)
		return nl_errf(err, code, "'': empty file name; expected a %s to read", what);
	/* '-' names standard output for the results (--json -); as an input
	 * it read as "-: cannot open: No such file or directory", as if a
	 * file were missing. A file named '-' is still read. */
	if (!strcmp(path, "-") && access(path, F_OK) != 0)
		return nl_errf(err, code, "'-': standard input is not read here; expected a %s's path", what);
	return 0;
}

int nl_open_input(const char *path, const char *what, FILE **f, struct nl_err *err)
{
	*f = NULL;
	NL_CHECK(nl_input_named(path, what, NL_EIO, err));
	*f = fopen(path, "r");
	if (!*f)
		return nl_errf(err, NL_EIO, "%s: cannot open %s: %s", path, what, strerror(errno));
	struct stat st;
	if (fstat(fileno(*f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(*f);
		*f = NULL;
		return nl_errf(err, NL_EIO, "%s: is a directory, not a %s", path, what);
	}
	return 0;
}

int nl_path_folder_error(const char *path, struct nl_err *err)
{
	char d[PATH_MAX];
	struct stat st;
	for (const char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		snprintf(d, sizeof d, "%.*s", (int)(s - path), path);
		if (stat(d, &st) == 0 && !S_ISDIR(st.st_mode))
			return nl_errf(err, NL_EIO, "%s: %s: not a directory; expected a folder to write to", path, d);
	}
	const char *slash = strrchr(path, '/');
	snprintf(d, sizeof d, "%.*s", !slash ? 1 : slash == path ? 1 : (int)(slash - path), slash ? path : ".");
	/* The folder is there, but its file system makes no file in it
	 * (/proc, /sys: mkstemp's ENOENT). */
	if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
		return nl_errf(err, NL_EIO, "%s: %s: a folder no file can be created in; expected a folder to write to",
			       path, d);
	return nl_errf(err, NL_EIO, "%s: %s: no such directory; expected an existing folder to write to", path, d);
}

int nl_output_target(const char *path, char **real, struct nl_err *err)
{
	struct stat st;
	*real = NULL;
	if (lstat(path, &st) != 0) {
		if (errno == ENOTDIR)
			return nl_path_folder_error(path, err);
		if (errno != ENOENT)
			return nl_errf(err, NL_EIO, "%s: %s", path, strerror(errno));
		*real = strdup(path);
		return *real ? NL_OUT_FILE : nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	bool link = S_ISLNK(st.st_mode);
	if (link && stat(path, &st) != 0)
		return nl_errf(err, NL_EIO, "%s: a symbolic link to a missing file (%s); expected a file to write", path,
			       strerror(errno));
	/* A link to a file: the file it names (realpath), replaced, the link
	 * kept. A link to a device or FIFO (/dev/stdout -> /proc/self/fd/1 ->
	 * pipe:[...], which realpath cannot resolve) is opened through it. */
	*real = link && S_ISREG(st.st_mode) ? realpath(path, NULL) : strdup(path);
	if (!*real)
		return nl_errf(err, NL_EIO, "%s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode))
		return NL_OUT_FILE;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return NL_OUT_STREAM;
	free(*real);
	*real = NULL;
	return nl_errf(err, NL_EIO, "%s: %s; expected a file name to write", path,
		       S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file, device or FIFO");
}
