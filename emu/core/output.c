/* Writing results: atomic replace and JSON serialisation. */
#include "core/output.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* The temporary file beside `path` that out_write_atomic renames over it
 * (mode 0600 until written); *tmp is malloc'd. */
static int out_tmp_open(const char *path, char **tmp, struct nl_err *err)
{
	size_t plen = strlen(path);
	*tmp = malloc(plen + 16);
	if (!*tmp)
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	snprintf(*tmp, plen + 16, "%s.tmpXXXXXX", path);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		int e = errno;
		free(*tmp);
		*tmp = NULL;
		return nl_errf(err, NL_EIO, "%s: cannot create temporary file: %s", path, strerror(e));
	}
	return fd;
}

int out_check_writable(const char *path, struct nl_err *err)
{
	if (!strcmp(path, "-"))
		return 0;
	char *tmp;
	int fd = out_tmp_open(path, &tmp, err);
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int out_stage(const char *path, const void *data, size_t len, char **tmp, struct nl_err *err)
{
	int fd = out_tmp_open(path, tmp, err);
	if (fd < 0)
		return fd;
	const char *p = data;
	size_t left = len;
	int rc = 0;
	while (left && rc == 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = nl_errf(err, NL_EIO, "%s: write failed: %s", path, strerror(errno));
		} else {
			p += w;
			left -= (size_t)w;
		}
	}
	if (rc == 0 && fsync(fd) != 0 && errno != EINVAL)
		rc = nl_errf(err, NL_EIO, "%s: sync failed: %s", path, strerror(errno));
	/* mkstemp makes 0600; results are ordinary files. */
	fchmod(fd, 0644);
	close(fd);
	if (rc < 0) {
		out_unstage(tmp);
		return rc;
	}
	return 0;
}

int out_commit(char **tmp, const char *path, struct nl_err *err)
{
	if (rename(*tmp, path) != 0) {
		int e = errno;
		out_unstage(tmp);
		return nl_errf(err, NL_EIO, "%s: cannot replace file: %s", path, strerror(e));
	}
	free(*tmp);
	*tmp = NULL;
	return 0;
}

void out_unstage(char **tmp)
{
	if (!*tmp)
		return;
	unlink(*tmp);
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
	char *tmp;
	NL_CHECK(out_stage(path, data, len, &tmp, err));
	return out_commit(&tmp, path, err);
}

char *out_json_string(const struct json_t *doc)
{
	return json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

int out_write_json(const char *path, const struct json_t *doc, struct nl_err *err)
{
	char *s = out_json_string(doc);
	if (!s)
		return nl_errf(err, NL_ENOMEM, "%s: cannot serialise JSON", path);
	size_t n = strlen(s);
	char *t = realloc(s, n + 2);
	if (!t) {
		free(s);
		return nl_errf(err, NL_ENOMEM, "%s: out of memory", path);
	}
	t[n] = '\n';
	t[n + 1] = '\0';
	int rc = out_write_atomic(path, t, n + 1, err);
	free(t);
	return rc;
}
