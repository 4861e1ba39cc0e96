/* Writing results: atomic replace and JSON serialisation. */
#include "core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/path.h"
#include "core/text.h"

static int out_tmp_make(const char *path, char **tmp, bool is_registered, struct nl_err *err);

/* The temporary file beside `path` that out_write_atomic renames over it
 * (mode 0600 until written); *tmp is malloc'd. With is_registered, the
 * name is registered and the file made together (out_staged_mkstemp), so
 * no signal, and no other thread's poll, finds the file made but not
 * registered. */
static int out_tmp_open(const char *path, char **tmp, bool is_registered, struct nl_err *err)
{
	size_t plen = strlen(path);
	*tmp = malloc(plen + 16);
	if (!*tmp)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	snprintf(*tmp, plen + 16, "%s.tmpXXXXXX", path);
	int e = 0;
	int fd = is_registered ? out_staged_mkstemp(*tmp, true, &e, err) : mkstemp(*tmp);
	if (fd < 0 && is_registered && !e) {
		free(*tmp);
		*tmp = NULL;
		return fd;
	}
	if (fd < 0) {
		e = errno;
		free(*tmp);
		*tmp = NULL;
		if (e == ENOENT || e == ENOTDIR)
			return nl_path_folder_error(path, err);
		return nl_errf(err, NL_EIO, "%s: cannot create temporary file: %s", path, strerror(e));
	}
	return fd;
}

/* An empty name: out_tmp_open would make ".tmpXXXXXX" in the working
 * directory, and only the rename at the end would fail, naming nothing. */
static int out_empty_name(struct nl_err *err)
{
	return nl_errf(err, NL_EINVAL, "empty file name (expected a file to write, or '-' for standard output)");
}

bool out_sticky_refuses(mode_t dir_mode, uid_t dir_uid, uid_t file_uid, uid_t euid)
{
	return (dir_mode & S_ISVTX) && euid != 0 && file_uid != euid && dir_uid != euid;
}

/* The existing file `real` (what `path` names) can be replaced by a rename
 * in its folder: the temporary file beside it could be made, but a sticky
 * folder (/tmp) lets only the file's or the folder's owner replace it, and
 * out_commit's rename failed after the work ("cannot replace file:
 * Operation not permitted", status 1). A file not there yet is fine. */
static int out_check_replaceable(const char *path, const char *real, struct nl_err *err)
{
	struct stat file, dir;
	char folder[PATH_MAX];
	if (lstat(real, &file) != 0 || !path_dir_of(real, folder, sizeof folder))
		return 0; /* new, or a name too long for the check: the writer says */
	const char *d = *folder ? folder : ".";
	if (stat(d, &dir) != 0 || !out_sticky_refuses(dir.st_mode, dir.st_uid, file.st_uid, geteuid()))
		return 0;
	return nl_errf(err, NL_EIO,
		       "%s: cannot replace another user's file in sticky folder %s (only its owner or the folder's "
		       "may); expected a file of yours or a new name",
		       path, d);
}

int out_check_writable(const char *path, struct nl_err *err)
{
	if (!*path)
		return out_empty_name(err);
	if (!strcmp(path, "-"))
		return 0;
	char *real, *tmp;
	int kind = nl_output_target(path, &real, err);
	if (kind < 0)
		return kind;
	int rc = 0;
	if (kind == NL_OUT_STREAM) {
		if (access(real, W_OK) != 0)
			rc = nl_errf(err, NL_EIO, "%s: cannot write: %s", path, strerror(errno));
	} else {
		int fd = out_tmp_open(real, &tmp, false, err);
		if (fd < 0) {
			rc = fd;
		} else {
			close(fd);
			unlink(tmp);
			free(tmp);
			rc = out_check_replaceable(path, real, err);
		}
	}
	free(real);
	return rc;
}

/* Write all of data to fd; the message names path. */
static int out_write_all(int fd, const char *path, const void *data, size_t len, struct nl_err *err)
{
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return nl_errf(err, NL_EIO, "%s: write failed: %s", path, strerror(errno));
		p += w;
		left -= (size_t)w;
	}
	return 0;
}

/* A device or FIFO is written in place: it cannot be replaced atomically. */
static int out_write_stream(const char *path, const void *data, size_t len, struct nl_err *err)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return nl_errf(err, NL_EIO, "%s: cannot write: %s", path, strerror(errno));
	int rc = out_write_all(fd, path, data, len, err);
	if (close(fd) != 0 && rc == 0)
		rc = nl_errf(err, NL_EIO, "%s: write failed: %s", path, strerror(errno));
	return rc;
}

/* *tmp's file is gone (moved into place or copied out): free its name, or
 * one out_stage_registered made stays registered, marked done, until
 * out_unstage. */
static void out_stage_done(char **tmp)
{
	if (out_staged_set_done(*tmp))
		return;
	free(*tmp);
	*tmp = NULL;
}

/* Copy the staged file *tmp into the device or FIFO `path`, removing it
 * first: the copy reads it through its descriptor, so a reader that
 * closes the pipe early (SIGPIPE ends netloom, as any filter) leaves no
 * file in TMPDIR ('topo export ... -o /dev/stdout | head' left the whole
 * document there). */
static int out_copy_into(char **tmp, const char *path, struct nl_err *err)
{
	int in = open(*tmp, O_RDONLY), out = in < 0 ? -1 : open(path, O_WRONLY), rc = 0;
	unlink(*tmp);
	if (in < 0)
		rc = nl_errf(err, NL_EIO, "%s: cannot read back: %s", *tmp, strerror(errno));
	else if (out < 0)
		rc = nl_errf(err, NL_EIO, "%s: cannot write: %s", path, strerror(errno));
	char buf[65536];
	for (ssize_t got = 1; rc == 0 && got != 0;) {
		got = read(in, buf, sizeof buf);
		if (got < 0 && errno != EINTR)
			rc = nl_errf(err, NL_EIO, "%s: cannot read back: %s", *tmp, strerror(errno));
		else if (got > 0)
			rc = out_write_all(out, path, buf, (size_t)got, err);
	}
	if (out >= 0 && close(out) != 0 && rc == 0)
		rc = nl_errf(err, NL_EIO, "%s: write failed: %s", path, strerror(errno));
	if (in >= 0)
		close(in);
	out_stage_done(tmp);
	return rc;
}

static int out_stage_as(const char *path, const void *data, size_t len, char **tmp, bool is_registered,
			struct nl_err *err)
{
	NL_CHECK(out_tmp_make(path, tmp, is_registered, err));
	int fd = open(*tmp, O_WRONLY);
	if (fd < 0) {
		int e = errno;
		out_unstage(tmp);
		return nl_errf(err, NL_EIO, "%s: cannot write temporary file: %s", path, strerror(e));
	}
	int rc = out_write_all(fd, path, data, len, err);
	if (rc == 0 && fsync(fd) != 0 && errno != EINVAL)
		rc = nl_errf(err, NL_EIO, "%s: sync failed: %s", path, strerror(errno));
	close(fd); /* 0600 (mkstemp) until out_commit gives it the result's mode */
	if (rc < 0)
		out_unstage(tmp);
	return rc;
}

int out_stage(const char *path, const void *data, size_t len, char **tmp, struct nl_err *err)
{
	return out_stage_as(path, data, len, tmp, false, err);
}

int out_stage_registered(const char *path, const void *data, size_t len, char **tmp, struct nl_err *err)
{
	return out_stage_as(path, data, len, tmp, true, err);
}

int out_commit(char **tmp, const char *path, struct nl_err *err)
{
	char *real;
	if (!*path) {
		out_unstage(tmp);
		return out_empty_name(err);
	}
	int kind = nl_output_target(path, &real, err);
	if (kind < 0) {
		out_unstage(tmp);
		return kind;
	}
	if (kind == NL_OUT_STREAM) {
		free(real);
		return out_copy_into(tmp, path, err);
	}
	chmod(*tmp, out_file_mode(real)); /* mkstemp made it 0600 (gnuplot keeps that); results are ordinary files */
	int moved = rename(*tmp, real);
	free(real);
	if (moved != 0) {
		int e = errno;
		out_unstage(tmp);
		return nl_errf(err, NL_EIO, "%s: cannot replace file: %s", path, strerror(e));
	}
	out_stage_done(tmp);
	return 0;
}

void out_unstage(char **tmp)
{
	if (!*tmp)
		return;
	bool is_stage = out_staged_is_stage(*tmp);
	if (!is_stage || !out_staged_is_done(*tmp))
		unlink(*tmp);
	if (is_stage)
		out_staged_del(*tmp); /* polls: a recorded signal ends the process here */
	free(*tmp);
	*tmp = NULL;
}

int out_write_atomic(const char *path, const void *data, size_t len, struct nl_err *err)
{
	if (!strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
			return nl_errf(err, NL_EIO, "stdout: write failed: %s", strerror(errno));
		return 0;
	}
	if (!*path)
		return out_empty_name(err);
	char *real, *tmp;
	int kind = nl_output_target(path, &real, err);
	free(real);
	if (kind == NL_OUT_STREAM)
		return out_write_stream(path, data, len, err);
	if (kind < 0)
		return kind;
	/* Registered (out_stage_registered), so a SIGINT/SIGTERM caught by
	 * out_signals_catch removes the temporary file rather than leave
	 * PATH.tmpXXXXXX: replay's --svg, the topology SVGs. */
	NL_CHECK(out_stage_registered(path, data, len, &tmp, err));
	int rc = out_commit(&tmp, path, err);
	out_unstage(&tmp);
	return rc;
}

/* out_tmp_for, registered or not (out_tmp_open). */
static int out_tmp_make(const char *path, char **tmp, bool is_registered, struct nl_err *err)
{
	char *real;
	*tmp = NULL;
	if (!*path)
		return out_empty_name(err);
	/* "-", standard output, is staged as a device is: not as a file
	 * named "-" in the working directory. */
	int kind = strcmp(path, "-") ? nl_output_target(path, &real, err) : (real = NULL, NL_OUT_STREAM);
	if (kind < 0)
		return kind;
	bool is_env_dir = false;
	if (kind == NL_OUT_STREAM) {
		const char *dir = getenv("TMPDIR");
		is_env_dir = dir && *dir;
		free(real);
		real = NULL;
		if (asprintf(&real, "%s/netloom-out", is_env_dir ? dir : "/tmp") < 0)
			return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	int fd = out_tmp_open(real, tmp, is_registered, err);
	free(real);
	/* "/nonexist/netloom-out: /nonexist: no such directory" named a
	 * folder the command line never gave: say it is the environment's. */
	if (fd == NL_EIO && is_env_dir)
		nl_err_suffix(err, "; TMPDIR names that folder");
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int out_tmp_for(const char *path, char **tmp, struct nl_err *err)
{
	return out_tmp_make(path, tmp, false, err);
}

int out_tmp_for_registered(const char *path, char **tmp, struct nl_err *err)
{
	return out_tmp_make(path, tmp, true, err);
}

/* A streamed output's buffer: 1 MiB, so an 836 MB document is some 800
 * writes rather than the 4 KiB default's 200,000. */
#define OUT_STREAM_BUF ((size_t)1 << 20)

/* s->f's writes (fopencookie): all of buf, else -1 with the error kept in
 * s->write_errno, which stdio's error flag does not keep (a later call
 * may change errno before the commit reads it). After one failure every
 * write fails at once: a full disk is not tried again at each buffer. */
static ssize_t out_stream_write(void *cookie, const char *buf, size_t len)
{
	struct out_stream *s = cookie;
	size_t left = len;
	while (left && !s->write_errno) {
		ssize_t w = write(s->fd, buf, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			s->write_errno = errno;
			break;
		}
		buf += w;
		left -= (size_t)w;
		s->bytes += (unsigned long long)w;
	}
	return s->write_errno ? -1 : (ssize_t)len;
}

int out_stream_open(struct out_stream *s, const char *path, struct nl_err *err)
{
	*s = (struct out_stream){.path = path, .fd = -1};
	NL_CHECK(out_tmp_for_registered(path, &s->tmp, err));
	char *real = NULL;
	struct nl_err ignored; /* out_tmp_for_registered took the target: it does not fail now */
	s->is_replace = strcmp(path, "-") && nl_output_target(path, &real, &ignored) == NL_OUT_FILE;
	free(real);
	s->fd = open(s->tmp, O_WRONLY);
	if (s->fd < 0) {
		int e = errno;
		out_unstage(&s->tmp);
		return nl_errf(err, NL_EIO, "%s: cannot write temporary file: %s", path, strerror(e));
	}
	s->buf = malloc(OUT_STREAM_BUF);
	s->f = s->buf ? fopencookie(s, "w", (cookie_io_functions_t){.write = out_stream_write}) : NULL;
	if (!s->f || setvbuf(s->f, s->buf, _IOFBF, OUT_STREAM_BUF) != 0) {
		if (s->f)
			fclose(s->f);
		s->f = NULL;
		out_stream_abort(s);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	return 0;
}

/* Close s->f and the staged file, checking every write; with is_replace
 * the file is synced first, as out_stage's. The message names the output,
 * or the staged file where that is in TMPDIR. */
static int out_stream_close(struct out_stream *s, struct nl_err *err)
{
	const char *name = s->is_replace ? s->path : s->tmp;
	if ((fflush(s->f) != 0 || ferror(s->f)) && !s->write_errno)
		s->write_errno = EIO;
	fclose(s->f); /* nothing left to flush: its errors are write_errno's */
	s->f = NULL;
	free(s->buf);
	s->buf = NULL;
	int rc = 0;
	if (s->write_errno)
		rc = nl_errf(err, NL_EIO, "%s: write failed: %s", name, strerror(s->write_errno));
	else if (s->is_replace && fsync(s->fd) != 0 && errno != EINVAL)
		rc = nl_errf(err, NL_EIO, "%s: sync failed: %s", name, strerror(errno));
	if (close(s->fd) != 0 && rc == 0)
		rc = nl_errf(err, NL_EIO, "%s: write failed: %s", name, strerror(errno));
	s->fd = -1;
	return rc;
}

/* The staged file `file` onto standard output, 64 KiB at a time (never
 * the whole document in memory), polling between chunks: a SIGINT while
 * a slow reader drains hundreds of megabytes ends the copy there. The
 * file is removed once open, as out_copy_into's: 'topo export ... | head'
 * ended by SIGPIPE left the whole document in TMPDIR. */
static int out_copy_stdout(const char *file, struct nl_err *err)
{
	int in = open(file, O_RDONLY), rc = 0;
	if (in < 0)
		return nl_errf(err, NL_EIO, "%s: cannot read back: %s", file, strerror(errno));
	unlink(file);
	char buf[65536];
	for (;;) {
		ssize_t got = read(in, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			rc = nl_errf(err, NL_EIO, "%s: cannot read back: %s", file, strerror(errno));
		else if (got > 0 && fwrite(buf, 1, (size_t)got, stdout) != (size_t)got)
			rc = nl_errf(err, NL_EIO, "stdout: write failed: %s", strerror(errno));
		if (got <= 0 || rc < 0)
			break;
		out_staged_poll();
	}
	close(in);
	if (rc == 0 && fflush(stdout) != 0)
		rc = nl_errf(err, NL_EIO, "stdout: write failed: %s", strerror(errno));
	return rc;
}

int out_stream_finish(struct out_stream *s, struct nl_err *err)
{
	int rc = out_stream_close(s, err);
	if (rc < 0)
		out_unstage(&s->tmp);
	return rc;
}

int out_stream_place(struct out_stream *s, struct nl_err *err)
{
	if (!strcmp(s->path, "-"))
		return out_copy_stdout(s->tmp, err);
	return out_commit(&s->tmp, s->path, err);
}

int out_stream_commit(struct out_stream *s, struct nl_err *err)
{
	int rc = out_stream_finish(s, err);
	if (rc == 0)
		rc = out_stream_place(s, err);
	out_unstage(&s->tmp); /* polls: a recorded signal ends the process here */
	return rc;
}

void out_stream_abort(struct out_stream *s)
{
	if (s->f) {
		s->write_errno = ECANCELED; /* fclose's flush writes nothing */
		fclose(s->f);
		s->f = NULL;
	}
	free(s->buf);
	s->buf = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	out_unstage(&s->tmp);
}

int out_read_svg(const char *file, const char *path, char **svg, size_t *len, struct nl_err *err)
{
	*svg = NULL;
	*len = 0;
	FILE *f = fopen(file, "rb");
	char *text = NULL;
	size_t n = 0;
	FILE *m = f ? open_memstream(&text, &n) : NULL;
	if (!f)
		return nl_errf(err, NL_EIO, "%s: the SVG could not be written: cannot read back %s: %s", path, file,
			       strerror(errno));
	if (!m) {
		fclose(f);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, got, m);
	bool is_read = !ferror(f);
	fclose(f);
	if (fclose(m) != 0 || !text) {
		free(text);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	if (!is_read) {
		free(text);
		return nl_errf(err, NL_EIO, "%s: the SVG could not be written: cannot read back %s", path, file);
	}
	size_t end = n;
	while (end > 0 && memchr(" \t\r\n", text[end - 1], 4))
		end--;
	static const char close_tag[] = "</svg>";
	size_t k = sizeof close_tag - 1;
	if (!memmem(text, n, "<svg", 4) || end < k || memcmp(text + end - k, close_tag, k) != 0) {
		free(text);
		return nl_errf(err, NL_EIO,
			       "%s: the SVG could not be written: gnuplot's output is cut (%zu bytes, no closing "
			       "</svg>; a full disk?)",
			       path, n);
	}
	*svg = text;
	*len = n;
	return 0;
}

/* The canonical name of `path`'s folder, then its last component. */
static bool out_path_canonical(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX];
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (!realpath(dir, real))
		return false;
	snprintf(out, n, "%s/%s", real, slash ? slash + 1 : path);
	return true;
}

bool out_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	bool has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
	if (has_a || has_b)
		return has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
	return out_path_canonical(a, ca, sizeof ca) && out_path_canonical(b, cb, sizeof cb) && !strcmp(ca, cb);
}

/* The one serialisation of every JSON result (out_write_json). */
#define OUT_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

char *out_json_string(const struct json_t *doc)
{
	return json_dumps(doc, OUT_JSON_FLAGS);
}

char *out_json_text(const struct json_t *doc, size_t *len)
{
	char *s = out_json_string(doc);
	size_t n = s ? strlen(s) : 0;
	char *t = s ? realloc(s, n + 2) : NULL;
	if (!t) {
		free(s);
		return NULL;
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	*len = n + 1;
	return t;
}

json_t *out_json_utf8(const char *s)
{
	char *clean = text_utf8_clean(s ? s : "", false);
	json_t *j = clean ? json_string(clean) : NULL;
	free(clean);
	return j;
}

json_t *out_json_usd(double usd)
{
	return json_real((double)llround(usd * 100) / 100);
}

/* out_write_json of a file: the text goes through an out_stream, never
 * whole in memory. json_dumps's growing buffer and its copy were up to
 * three times the document beside the tree: replay --json of 65,536
 * ranks (20 MB) peaked 132 MB above the replay without it. */
static int out_write_json_streamed(const char *path, const struct json_t *doc, struct nl_err *err)
{
	struct out_stream s;
	NL_CHECK(out_stream_open(&s, path, err));
	/* json_dumpf fails on a failed write (s.write_errno set, the
	 * commit's to say) or on running out of memory. */
	if (json_dumpf(doc, s.f, OUT_JSON_FLAGS) != 0 && !s.write_errno && !ferror(s.f)) {
		out_stream_abort(&s);
		return nl_errf(err, NL_ENOMEM, "%s: cannot serialise JSON: out of memory", path);
	}
	fputc('\n', s.f);
	return out_stream_commit(&s, err);
}

int out_write_json(const char *path, const struct json_t *doc, struct nl_err *err)
{
	if (*path && strcmp(path, "-")) {
		char *real = NULL;
		struct nl_err ignored; /* a target refused is out_write_atomic's to say, as before */
		int kind = nl_output_target(path, &real, &ignored);
		free(real);
		if (kind == NL_OUT_FILE)
			return out_write_json_streamed(path, doc, err);
	}
	size_t n;
	char *t = out_json_text(doc, &n);
	if (!t)
		return nl_errf(err, NL_ENOMEM, "%s: cannot serialise JSON: out of memory", path);
	int rc = out_write_atomic(path, t, n, err);
	free(t);
	return rc;
}

int out_stage_json_registered(const char *path, const struct json_t *doc, char **tmp, struct nl_err *err)
{
	size_t n;
	char *t = out_json_text(doc, &n);
	*tmp = NULL;
	if (!t)
		return nl_errf(err, NL_ENOMEM, "%s: cannot serialise JSON: out of memory", path);
	int rc = out_stage_registered(path, t, n, tmp, err);
	free(t);
	return rc;
}

int out_write_json_registered(const char *path, const struct json_t *doc, struct nl_err *err)
{
	if (!strcmp(path, "-"))
		return out_write_json(path, doc, err);
	char *tmp;
	int rc = out_stage_json_registered(path, doc, &tmp, err);
	if (rc == 0)
		rc = out_commit(&tmp, path, err);
	out_unstage(&tmp); /* polls: a recorded signal ends the process here */
	return rc;
}
