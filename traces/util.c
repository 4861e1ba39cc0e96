/* Small helpers shared by traces/: atomic files, full preads, manifests,
 * write options and the importers' list of skipped calls. */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "core/error.h"
#include "core/staged.h"
#include "core/text.h"

char *trace_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int trace_dir_error(const char *path, const char *hint, struct nl_err *err)
{
	return nl_errf(err, NL_EIO, "%s: is a directory, not a trace file%s%s%s", path, hint ? " (" : "", hint ? hint : "",
		       hint ? ")" : "");
}

int trace_not_regular(const char *path, mode_t mode, const char *what, struct nl_err *err)
{
	return nl_errf(err, NL_EIO, "%s: is not a regular file (%s), not a %s", path, nl_file_kind(mode), what);
}

int trace_open_regular(const char *path, const char *what, struct stat *st, struct nl_err *err)
{
	int fd = nl_open_regular_fd(path, st);
	if (fd >= 0)
		return fd;
	if (errno)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", path,
			       strerror(errno));
	return S_ISDIR(st->st_mode) ? nl_errf(err, NL_EIO, "%s: is a directory, not a %s", path, what)
				    : trace_not_regular(path, st->st_mode, what, err);
}

size_t trace_utf8_bom_len(const uint8_t *p, size_t n)
{
	return n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0;
}

char *trace_skip_bom(char *line, uint64_t line_no)
{
	return line_no == 1 ? line + trace_utf8_bom_len((const uint8_t *)line, strlen(line)) : line;
}

static bool is_ctl(uint8_t c)
{
	return c < 0x20 || c == 0x7f;
}

bool trace_is_text(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (is_ctl(p[i]) && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
			return false;
		int len = text_utf8_len(p + i, n - i);
		if (len < 0)
			return true;
		if (!len)
			return false;
		i += (size_t)len;
	}
	return true;
}

const char *trace_escape(char *buf, size_t cap, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s), o = 0;
	for (size_t i = 0; i < n;) {
		int len = is_ctl(p[i]) ? 0 : text_utf8_len(p + i, n - i);
		if (len > 0) {
			if (o + (size_t)len >= cap)
				break;
			memcpy(buf + o, p + i, (size_t)len);
			o += (size_t)len;
			i += (size_t)len;
		} else {
			if (o + 4 >= cap)
				break;
			snprintf(buf + o, cap - o, "\\x%02x", p[i]);
			o += 4;
			i++;
		}
	}
	buf[o] = '\0';
	return buf;
}

int trace_afile_open(struct trace_afile *f, const char *path, struct nl_err *err)
{
	char *real;
	f->fd = -1;
	f->path = f->tmp = NULL;
	int kind = nl_output_target(path, &real, err);
	if (kind == NL_OUT_STREAM) {
		free(real);
		return nl_errf(err, NL_EIO, "%s: a device or FIFO; expected a file name for the archive", path);
	}
	if (kind < 0)
		return kind;
	/* The temporary file goes beside the file a link names, and is
	 * renamed over it (trace_afile_commit), so the link stays. */
	size_t plen = strlen(real);
	f->path = trace_strdup(path);
	f->tmp = malloc(plen + 17);
	if (!f->path || !f->tmp) {
		free(real);
		free(f->path);
		free(f->tmp);
		f->path = f->tmp = NULL; /* a failed open leaves nothing to abort */
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	/* Hidden (a dot before the file's name), as the recorder's stream
	 * files are: what a process killed while writing leaves (SIGKILL,
	 * mpirun's end of a job) is a dot file, not NAME.tmpXXXXXX shown
	 * beside the archives. */
	const char *base = strrchr(real, '/');
	size_t dlen = base ? (size_t)(base + 1 - real) : 0;
	snprintf(f->tmp, plen + 17, "%.*s%s%s.tmpXXXXXX", (int)dlen, real, f->is_hidden ? "." : "", real + dlen);
	free(real);
	/* Registered as a template that mkstemp fills in place, so a
	 * SIGINT/SIGTERM removes the file (core/staged.h) from the moment it
	 * exists until it is renamed into place or removed. */
	int rc = out_staged_add(f->tmp, err);
	if (rc < 0) {
		free(f->path);
		free(f->tmp);
		f->path = f->tmp = NULL;
		return rc;
	}
	f->fd = mkstemp(f->tmp);
	if (f->fd < 0) {
		int e = errno;
		out_staged_del(f->tmp);
		free(f->path);
		free(f->tmp);
		f->path = f->tmp = NULL;
		return nl_errf(err, NL_EIO, "%s: cannot create temporary file: %s", path, strerror(e));
	}
	return 0;
}

int trace_afile_write(struct trace_afile *f, const void *data, size_t len, struct nl_err *err)
{
	const char *p = data;
	out_staged_poll(); /* a recorded SIGINT/SIGTERM: the file removed, the process ended */
	while (len) {
		ssize_t w = write(f->fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return nl_errf(err, NL_EIO, "%s: write failed: %s", f->path, strerror(errno));
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int trace_afile_commit(struct trace_afile *f, struct nl_err *err)
{
	int rc = 0;
	if (fsync(f->fd) != 0 && errno != EINVAL)
		rc = nl_errf(err, NL_EIO, "%s: sync failed: %s", f->path, strerror(errno));
	/* The temporary name less ".tmpXXXXXX": the file a link names. */
	char *target = rc ? NULL : trace_strdup(f->tmp);
	if (!rc && !target)
		rc = nl_errf(err, NL_ENOMEM, "%s: out of memory", f->path);
	if (!rc) {
		target[strlen(f->tmp) - strlen(".tmpXXXXXX")] = '\0';
		if (f->is_hidden) { /* less the dot before the name */
			char *base = strrchr(target, '/');
			base = base ? base + 1 : target;
			memmove(base, base + 1, strlen(base));
		}
		/* mkstemp makes 0600; archives are ordinary files. */
		fchmod(f->fd, out_file_mode(target));
	}
	close(f->fd);
	f->fd = -1;
	if (!rc && rename(f->tmp, target) != 0)
		rc = nl_errf(err, NL_EIO, "%s: cannot replace file: %s", f->path, strerror(errno));
	free(target);
	if (rc)
		unlink(f->tmp);
	out_staged_del(f->tmp); /* polls: a recorded signal ends the process here */
	free(f->tmp);
	free(f->path);
	f->tmp = f->path = NULL;
	return rc;
}

void trace_afile_abort(struct trace_afile *f)
{
	if (!f->tmp)
		return;
	if (f->fd >= 0)
		close(f->fd);
	out_staged_remove(f->tmp);
	free(f->tmp);
	free(f->path);
	f->tmp = f->path = NULL;
	f->fd = -1;
}

int trace_bytes_reserve(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	uint8_t *t = realloc(*buf, c);
	if (!t)
		return NL_ENOMEM;
	*buf = t;
	*cap = c;
	return 0;
}

int trace_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;
	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = 0;
			return -1;
		}
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

int trace_write_opts_resolve(const struct trace_write_opts *in, struct trace_write_opts *out,
			     struct nl_err *err)
{
	out->frame_target = in && in->frame_target ? in->frame_target : TRACE_FRAME_TARGET_DEFAULT;
	out->zstd_level = in && in->zstd_level ? in->zstd_level : TRACE_ZSTD_LEVEL_DEFAULT;
	out->format_version = in && in->format_version ? in->format_version : TRACE_FORMAT_VERSION;
	if (out->format_version < TRACE_FORMAT_VERSION_MIN || out->format_version > TRACE_FORMAT_VERSION)
		return nl_errf(err, NL_ERANGE, "format_version %u: expected %u .. %u", out->format_version,
			       TRACE_FORMAT_VERSION_MIN, TRACE_FORMAT_VERSION);
	if (out->frame_target < TRACE_FRAME_TARGET_MIN || out->frame_target > TRACE_FRAME_TARGET_MAX)
		return nl_errf(err, NL_ERANGE, "frame_target %u: expected %u .. %u bytes",
			       out->frame_target, TRACE_FRAME_TARGET_MIN, TRACE_FRAME_TARGET_MAX);
	if (out->zstd_level < 1 || out->zstd_level > ZSTD_maxCLevel())
		return nl_errf(err, NL_ERANGE, "zstd_level %d: expected 1 .. %d", out->zstd_level,
			       ZSTD_maxCLevel());
	return 0;
}

double trace_manifest_ranks_per_core(const struct trace_manifest *m)
{
	if (!m->ranks_per_host || !m->cores_per_host)
		return 0;
	return (double)m->ranks_per_host / m->cores_per_host;
}

int trace_comms_over_limit(struct nl_err *err, const char *where, uint64_t n_comms)
{
	/* The count, not only "more than": the manifest keeps freed
	 * communicators, so a run creating one per step grows it. */
	return nl_errf(err, NL_EUNSUPPORTED,
		       "%strace manifest: %llu communicators (world, self and every one the program created, "
		       "freed ones too); expected at most %u, replay's limit",
		       where, (unsigned long long)n_comms, TRACE_REPLAY_MAX_COMMS);
}

const struct trace_comm *trace_comms_find(const struct trace_comm *comms, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (comms[mid].id == id)
			return &comms[mid];
		if (comms[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct trace_comm *trace_manifest_find_comm(const struct trace_manifest *m, uint32_t id)
{
	return trace_comms_find(m->comms, m->n_comms, id);
}

void trace_manifest_release(struct trace_manifest *m)
{
	free(m->application);
	free(m->command_line);
	free(m->machine);
	free(m->recorder);
	free(m->mpi_library);
	for (uint32_t i = 0; i < m->n_comms; i++)
		free(m->comms[i].world_ranks);
	free(m->comms);
	free(m->rank_ops);
	free(m->rank_bytes);
	free(m->rank_hash);
	memset(m, 0, sizeof *m);
}

int trace_skips_add(struct trace_skips *s, const char *name, const char *why, uint64_t count)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name) && !strcmp(s->v[i].why, why)) {
			s->v[i].count += count;
			return 0;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct trace_skip *t = realloc(s->v, cap * sizeof *t);
		if (!t)
			return NL_ENOMEM;
		s->v = t;
		s->cap = cap;
	}
	s->v[s->n].name = trace_strdup(name);
	s->v[s->n].why = trace_strdup(why);
	if (!s->v[s->n].name || !s->v[s->n].why) {
		free(s->v[s->n].name);
		free(s->v[s->n].why);
		return NL_ENOMEM;
	}
	s->v[s->n].count = count;
	s->n++;
	return 0;
}

void trace_skips_report(const struct trace_skips *s, trace_warn_fn warn, void *ctx)
{
	char line[512];
	if (!warn)
		return;
	for (size_t i = 0; i < s->n; i++) {
		snprintf(line, sizeof line, "not converted: %s x%llu (%s)", s->v[i].name,
			 (unsigned long long)s->v[i].count, s->v[i].why);
		warn(ctx, line);
	}
}

void trace_skips_release(struct trace_skips *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].why);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}
