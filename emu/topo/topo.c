/* Topologies: parsing, lifecycle, the shared graph builder and queries
 * (the grid families' builder in grid.c). */
#include "topo/topo.h"
#include "topo/topo_internal.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/path.h"
#include "core/progress.h"
#include "core/registry.h"
#include "core/text.h"

const struct topo_ops *topo_find(const char *name, struct nl_err *err)
{
	size_t n;
	const struct topo_ops *const *all = topo_list(&n);
	return registry_find_spec((const void *const *)all, n, name, "topology", err);
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->release && t->state)
		t->ops->release(t);
	free(t->params);
	free(t->state);
	free(t->spec);
	free(t->port_base);
	free(t->peer);
	free(t->port_router);
	free(t->ep_port);
	free(t->cabinet);
	free(t);
}

/* Canonical spec: "name:k=v,..." with every parameter (defaults included,
 * an unset vector left out: clos's down= and up= without a value),
 * or "name(inner):k=v,..." when the family wraps a nested spec, so the
 * canonical text parses back to the same topology. */
static int topo_set_spec(struct topo *t, struct nl_err *err)
{
	char buf[16384], v[PARAM_STR_MAX];
	size_t used = (size_t)snprintf(buf, sizeof buf, "%s", t->ops->name);
	int n_plain = 0;

	if (t->ops->format_spec && t->ops->format_spec(t, buf, sizeof buf)) {
		if (strlen(buf) + 1 >= sizeof buf)
			return nl_errf(err, NL_ERANGE, "topology '%s': canonical spec longer than %zu characters",
				       t->ops->name, sizeof buf - 2);
		t->spec = strdup(buf);
		return t->spec ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (const struct param_def *d = t->ops->params; d && d->name; d++)
		if (d->type == PARAM_SPEC) {
			param_format(d, t->params, v, sizeof v);
			used += (size_t)snprintf(buf + used, used < sizeof buf ? sizeof buf - used : 0, "(%s)", v);
		}
	for (const struct param_def *d = t->ops->params; d && d->name; d++) {
		if (d->type == PARAM_SPEC || param_is_unset(d, t->params))
			continue;
		param_format(d, t->params, v, sizeof v);
		used += (size_t)snprintf(buf + used, used < sizeof buf ? sizeof buf - used : 0, "%s%s=%s",
					 n_plain++ ? "," : ":", d->name, v);
	}
	if (used >= sizeof buf)
		return nl_errf(err, NL_ERANGE, "topology '%s': canonical spec longer than %zu characters",
			       t->ops->name, sizeof buf - 1);
	t->spec = strdup(buf);
	if (!t->spec)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	return 0;
}

/* Read the spec file of "@path": lines are joined without separators,
 * blanks at either end of a line and lines starting with '#' dropped, so a
 * spec of any length can be wrapped over several lines. */
static int topo_read_spec_file(const char *path, char **out, struct nl_err *err)
{
	char *line = NULL, *buf = NULL;
	size_t cap = 0, len = 0, buf_cap = 0;
	unsigned lineno = 0;
	ssize_t n;

	*out = NULL;
	if (!path[0])
		return nl_errf(err, NL_EINVAL, "topology '@': expected a spec file name after '@'");
	/* '-' names no input of a key (docs/configuration.md), as graph's
	 * file=- says: '@-' read as a missing file ("cannot open spec file:
	 * No such file or directory"). A file named '-' is still read
	 * (nl_input_named). */
	if (!strcmp(path, "-") && access(path, F_OK) != 0)
		return nl_errf(err, NL_EIO, "topology '@-': standard input is not read here; expected a spec file's path");
	FILE *f = fopen(path, "r");
	if (!f)
		return nl_errf(err, NL_EIO, "topology '@%s': cannot open spec file: %s", path, strerror(errno));
	while ((n = text_getline(&line, &cap, f)) >= 0) {
		const char *s = line;
		lineno++;
		/* strlen below would stop at a NUL and drop the rest of the line. */
		if (memchr(line, '\0', (size_t)n)) {
			free(buf);
			free(line);
			fclose(f);
			return nl_errf(err, NL_EFORMAT, "%s:%u: unexpected NUL byte; expected a text spec file", path,
				       lineno);
		}
		/* A byte order mark was read into the family's name
		 * ("unknown topology 'mesh'") and hid a first line's '#'. */
		if (lineno == 1)
			s += text_bom_len(line, (size_t)n);
		while (*s && isspace((unsigned char)*s))
			s++;
		size_t k = strlen(s);
		while (k > 0 && isspace((unsigned char)s[k - 1]))
			k--;
		if (k == 0 || s[0] == '#')
			continue;
		if (len + k + 1 > buf_cap) {
			size_t nc = 2 * (len + k + 1);
			char *b = realloc(buf, nc);
			if (!b) {
				free(buf);
				free(line);
				fclose(f);
				return nl_errf(err, NL_ENOMEM, "topology '@%s': out of memory", path);
			}
			buf = b;
			buf_cap = nc;
		}
		memcpy(buf + len, s, k);
		len += k;
		buf[len] = '\0';
	}
	bool bad = ferror(f);
	int read_errno = errno; /* getline's, before free and fclose */
	free(line);
	fclose(f);
	if (bad) {
		free(buf);
		return nl_errf(err, NL_EIO, "topology '@%s': cannot read spec file: %s", path, strerror(read_errno));
	}
	if (len == 0) {
		free(buf);
		return nl_errf(err, NL_EINVAL, "topology '@%s': spec file holds no spec (only blank and '#' lines)", path);
	}
	*out = buf;
	return 0;
}

/* What each @FILE that is not a regular file (a FIFO, /dev/stdin, a
 * shell's <(...)) gave when first read in this process, by device and
 * inode: its text or its error. Such a file yields its text once, and a
 * spec is read more than once: topo_spec_files finds the files it names
 * (checked against the outputs, docs/results.md) before topo_new builds
 * it, and a session records the spec it read. Read again, the pipe would
 * be empty (a FIFO with no writer left: a wait forever). Kept here rather
 * than the CLI putting such an @FILE's text in place of its name, because
 * this one reader serves every caller, nested specs (p2(@/dev/stdin), an
 * @FILE naming one) included, and errors still name the @FILE. A process
 * reads a handful: never freed. A mutex: replays build networks on
 * several threads at once. */
struct topo_pipe_text {
	dev_t dev;
	ino_t ino;
	int rc;                       /* topo_read_spec_file's */
	char *text;                   /* rc 0: the spec text */
	struct nl_err err;            /* rc < 0: its error */
	struct topo_pipe_text *next;
};
static struct topo_pipe_text *topo_pipe_texts;
static pthread_mutex_t topo_pipe_lock = PTHREAD_MUTEX_INITIALIZER;

/* topo_read_spec_file, through topo_pipe_texts for a file that is not
 * regular. The lock is held while reading, so one thread reads a pipe. */
static int topo_spec_text(const char *path, char **out, struct nl_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return topo_read_spec_file(path, out, err);
	*out = NULL;
	pthread_mutex_lock(&topo_pipe_lock);
	struct topo_pipe_text *p = topo_pipe_texts;
	while (p && (p->dev != st.st_dev || p->ino != st.st_ino))
		p = p->next;
	if (!p && (p = calloc(1, sizeof *p))) {
		p->dev = st.st_dev;
		p->ino = st.st_ino;
		p->rc = topo_read_spec_file(path, &p->text, &p->err);
		p->next = topo_pipe_texts;
		topo_pipe_texts = p;
	}
	int rc = p ? p->rc : nl_errf(err, NL_ENOMEM, "out of memory");
	if (p && rc < 0 && err)
		*err = p->err;
	if (p && rc == 0 && !(*out = strdup(p->text)))
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	pthread_mutex_unlock(&topo_pipe_lock);
	return rc;
}

/* The text of spec file `path` as it is written (*raw) and the folder
 * its names are read from (*folder: path_file_folder, NULL for a pipe,
 * whose names are the working directory's); both the caller's to free. */
static int topo_spec_read(const char *path, char **raw, char **folder, struct nl_err *err)
{
	struct stat st;
	*folder = NULL;
	NL_CHECK(topo_spec_text(path, raw, err));
	if ((*raw)[0] == '@') {
		free(*raw);
		*raw = NULL;
		return nl_errf(err, NL_EINVAL, "topology '@%s': a spec file cannot name another spec file", path);
	}
	/* Out of memory here leaves the names the working directory's. */
	*folder = path_file_folder(path, stat(path, &st) == 0 && S_ISREG(st.st_mode));
	return 0;
}

/* A name a spec file writes, as read from its folder (ctx). */
static char *topo_in_folder(void *ctx, const char *name)
{
	return path_in_dir(ctx, name);
}

/* raw, a spec file's text, with the file names it writes (@FILE, file=,
 * nested specs') read from folder; raw as it is with no folder. */
static int topo_spec_resolve(const char *raw, char *folder, char **out, struct nl_err *err)
{
	*out = folder ? path_spec_files(raw, topo_in_folder, folder) : strdup(raw);
	return *out ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
}

/* A refusal's file names (topo_err_names): those of one spec file. */
struct topo_err_names {
	char *folder;     /* the spec file's */
	const char *file; /* the spec file, as named to the reader */
	struct nl_err *err;
};

static char *topo_err_name(void *ctx, const char *name)
{
	const struct topo_err_names *x = ctx;
	char *resolved = path_in_dir(x->folder, name), where[NL_ERR_MSG_MAX];
	snprintf(where, sizeof where, "the spec file %s", x->file);
	if (resolved)
		path_err_rename(x->err->msg, sizeof x->err->msg, name, resolved, where);
	free(resolved);
	return strdup(name);
}

/* A refusal of the spec that spec file `file` (text raw, folder folder)
 * holds quotes the names it writes as they were read (from its folder):
 * each becomes the name as written and where it was looked for, "cannot
 * open 'g.txt' (resolved to /home/me/exp/g.txt, relative to the spec file
 * exp/spec.txt)", as a -c file's names are (config_err_file_line). */
static void topo_err_names(const char *raw, char *folder, const char *file, struct nl_err *err)
{
	if (folder && err)
		free(path_spec_files(raw, topo_err_name, &(struct topo_err_names){folder, file, err}));
}

int topo_spec_expand(const char *spec, char **out, struct nl_err *err)
{
	*out = NULL;
	if (spec[0] != '@') {
		*out = strdup(spec);
		return *out ? 0 : nl_errf(err, NL_ENOMEM, "out of memory");
	}
	char *raw, *folder;
	NL_CHECK(topo_spec_read(spec + 1, &raw, &folder, err));
	int rc = topo_spec_resolve(raw, folder, out, err);
	free(raw);
	free(folder);
	return rc;
}

/* The family and parsed params of `spec` (not "@path"): a family's own
 * notation (e.g. Equality's N14K6[...](4)) first, then "family:k=v,...".
 * *params is the caller's to free; nothing is allocated on failure. */
static int topo_parse(const char *spec, const struct topo_ops **ops, void **params, struct nl_err *err)
{
	char name[64];
	size_t n;
	const struct topo_ops *const *all = topo_list(&n);
	int rc;

	*ops = NULL;
	*params = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!all[i]->parse_alias)
			continue;
		void *p;
		NL_CHECK(param_block_new(all[i]->params, all[i]->params_size, "topology", all[i]->name, NULL, &p,
					 err));
		rc = all[i]->parse_alias(spec, p, err);
		if (rc == 1) {
			*ops = all[i];
			*params = p;
			return 0;
		}
		free(p);
		if (rc < 0)
			return rc;
	}
	const char *tail = param_split_name(spec, "topology", name, sizeof name, err);
	if (!tail)
		return NL_EINVAL;
	const struct topo_ops *o = topo_find(name, err);
	if (!o)
		return NL_ENOTFOUND;
	NL_CHECK(param_block_new(o->params, o->params_size, "topology", o->name, tail, params, err));
	*ops = o;
	return 0;
}

/* Nested specs (a family's PARAM_SPEC, an @FILE) followed deeper than this
 * are refused: a spec file may name itself ("p2(@a.txt)" in a.txt). */
#define TOPO_SPEC_MAX_DEPTH 16

/* The refusal quotes the spec's first 200 bytes ("%.200s"); "..." after
 * them says the rest was cut, rather than showing a cut spec as whole. */
static const char *topo_spec_cut(const char *spec)
{
	return strlen(spec) > 200 ? "..." : "";
}

const struct topo_ops *topo_spec_family(const char *spec, struct nl_err *err)
{
	char *text;
	const struct topo_ops *ops = NULL;
	void *params = NULL;
	if (topo_spec_expand(spec, &text, err) < 0)
		return NULL;
	if (topo_parse(text, &ops, &params, err) < 0)
		ops = NULL;
	free(params);
	free(text);
	return ops;
}

/* The refusal of a spec nested too deep, said by topo_new and
 * topo_spec_files alike. */
static int topo_too_deep(const char *spec, struct nl_err *err)
{
	return nl_errf(err, NL_EINVAL,
		       "topology '%.200s%s': specs nested more than %d deep; expected %d levels at most (a spec file "
		       "that names itself never ends)",
		       spec, topo_spec_cut(spec), TOPO_SPEC_MAX_DEPTH, TOPO_SPEC_MAX_DEPTH);
}

/* How deep this thread is in topo_new (an @FILE's spec, a permuted
 * network's base): without a bound a spec file naming itself recursed
 * until the stack ran out (SIGSEGV). Per thread: replays build networks
 * on several at once. */
static _Thread_local int topo_new_depth;
static _Thread_local bool topo_new_too_deep;

static int topo_new_at(const char *spec, struct topo **out, struct nl_err *err);

int topo_new(const char *spec, struct topo **out, struct nl_err *err)
{
	*out = NULL;
	if (topo_new_depth > TOPO_SPEC_MAX_DEPTH) { /* the caller's spec and 16 levels in it, as topo_spec_files */
		topo_new_too_deep = true;
		return nl_errf(err, NL_EINVAL, "too deep");
	}
	topo_new_depth++;
	int rc = topo_new_at(spec, out, err);
	/* Said once, of the spec the caller gave, rather than under each
	 * level's "base topology" prefix. */
	if (--topo_new_depth == 0 && topo_new_too_deep) {
		topo_new_too_deep = false;
		if (rc < 0)
			rc = topo_too_deep(spec, err);
	}
	return rc;
}

/* The ports a build has filled, counted for its progress line. */
struct topo_build_progress {
	struct progress pg;
	uint64_t filled;
};

/* Set by topo_new_shown for its call: other callers (a compare's worker
 * threads, a sweep under its own progress line) build silently. */
static _Thread_local bool topo_new_show;

/* A build that links a few hundred million ports (foldedhypercube:n=24,
 * dragonfly or equality near 2^24 routers) runs for many seconds; on a
 * terminal it says how far it is. Only the caller's own spec: the base of
 * a permuted family is built inside that family's build, which shows its
 * own trials. */
static int topo_build_shown(struct topo *t, struct nl_err *err)
{
	struct topo_build_progress bp = {.filled = 0};

	if (topo_new_depth != 1 || !topo_new_show)
		return t->ops->build(t, err);
	progress_init(&bp.pg, "building topology");
	t->building = &bp;
	int rc = t->ops->build(t, err);
	t->building = NULL;
	progress_done(&bp.pg);
	return rc;
}

/* Called for each port filled; redraws every 2^16 ports (if due). */
static void topo_build_tick(struct topo *t, uint32_t ports)
{
	struct topo_build_progress *bp = t->building;

	if (!bp)
		return;
	uint64_t before = bp->filled;
	bp->filled += ports;
	if ((before ^ bp->filled) >> 16 == 0 || !t->n_ports)
		return;
	/* The second half of the line: topo_alloc's pass over the port
	 * arrays (the first) took as long at foldedhypercube:n=24. */
	char detail[64];
	snprintf(detail, sizeof detail, "%llu of %u ports linked", (unsigned long long)bp->filled, t->n_ports);
	progress_update(&bp->pg, 0.5 + 0.5 * (double)bp->filled / t->n_ports, detail);
}

/* topo_alloc's pass over the port arrays: `laid` of `total` ports set up. */
static void topo_build_laid(struct topo *t, uint64_t laid, uint64_t total)
{
	char detail[64];
	snprintf(detail, sizeof detail, "%llu of %llu ports laid out", (unsigned long long)laid,
		 (unsigned long long)total);
	progress_update(&t->building->pg, 0.5 * (double)laid / (double)total, detail);
}

int topo_new_shown(const char *spec, struct topo **out, struct nl_err *err)
{
	topo_new_show = true;
	int rc = topo_new(spec, out, err);
	topo_new_show = false;
	return rc;
}

static int topo_new_at(const char *spec, struct topo **out, struct nl_err *err)
{
	if (spec[0] == '@') {
		char *raw, *folder, *text = NULL;
		NL_CHECK(topo_spec_read(spec + 1, &raw, &folder, err));
		int rc = topo_spec_resolve(raw, folder, &text, err);
		if (rc == 0)
			rc = topo_new(text, out, err);
		if (rc < 0)
			topo_err_names(raw, folder, spec + 1, err);
		free(text);
		free(raw);
		free(folder);
		return rc;
	}

	struct topo *t;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof *t);
	if (!t)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	rc = topo_parse(spec, &t->ops, &t->params, err);
	if (rc < 0)
		goto fail;
	if (t->ops->state_size) {
		t->state = calloc(1, t->ops->state_size);
		if (!t->state) {
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
			goto fail;
		}
	}
	rc = topo_build_shown(t, err);
	if (rc < 0)
		goto fail;
	rc = topo_set_spec(t, err);
	if (rc < 0)
		goto fail;
	*out = t;
	return 0;
fail:
	topo_free(t);
	return rc;
}

/* topo_spec_files for `spec`, nested in `at`'s family and key (both NULL
 * for the spec itself) and read from the @FILE `in` (NULL: none), whose
 * names are read from `folder` (NULL: the working directory). */
static int topo_files_walk(const char *spec, const struct topo_spec_file *at, const char *in, char *folder,
			   int depth, topo_spec_file_fn each, void *ctx, struct nl_err *err)
{
	int rc = 0;

	if (depth > TOPO_SPEC_MAX_DEPTH)
		return topo_too_deep(spec, err);
	if (spec[0] == '@') {
		char *path = path_in_dir(folder ? folder : "", spec + 1), *raw = NULL, *inner = NULL;
		if (!path)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		struct topo_spec_file f = {path, spec + 1, true, at->family, at->key, in};
		rc = each(ctx, &f);
		/* A FIFO or /dev/stdin too: topo_new gets the same text
		 * (topo_pipe_texts). */
		if (rc >= 0)
			rc = topo_spec_read(path, &raw, &inner, err);
		if (rc >= 0)
			rc = topo_files_walk(raw, &(struct topo_spec_file){0}, path, inner, depth + 1, each, ctx, err);
		if (rc < 0 && raw)
			topo_err_names(raw, inner, path, err);
		free(raw);
		free(inner);
		free(path);
		return rc < 0 ? rc : 0;
	}
	const struct topo_ops *ops;
	void *params;
	NL_CHECK(topo_parse(spec, &ops, &params, err));
	for (const struct param_def *d = ops->params; rc >= 0 && d && d->name; d++) {
		const char *v = PARAM_FIELD(params, d, char);
		struct topo_spec_file f = {v, v, false, ops->name, d->name, in};
		if (d->type == PARAM_PATH && v[0]) {
			char *path = path_in_dir(folder ? folder : "", v);
			f.path = path;
			rc = path ? each(ctx, &f) : nl_errf(err, NL_ENOMEM, "out of memory");
			free(path);
		} else if (d->type == PARAM_SPEC && v[0]) {
			rc = topo_files_walk(v, &f, in, folder, depth + 1, each, ctx, err);
		}
	}
	free(params);
	return rc < 0 ? rc : 0;
}

int topo_spec_files(const char *spec, topo_spec_file_fn each, void *ctx, struct nl_err *err)
{
	return topo_files_walk(spec, &(struct topo_spec_file){0}, NULL, NULL, 0, each, ctx, err);
}

void topo_print_help(FILE *f)
{
	size_t n;
	const struct topo_ops *const *all = topo_list(&n);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  %-12s %s\n", all[i]->name, all[i]->help);
		param_print_help(f, all[i]->params, "      ");
	}
}

void topo_params_text(const struct topo *t, char *buf, size_t cap)
{
	char v[PARAM_STR_MAX];
	size_t used = (size_t)snprintf(buf, cap, "parameters");
	int n = 0;

	for (const struct param_def *d = t->ops->params; d && d->name && used < cap; d++) {
		if (d->type == PARAM_SPEC || param_is_unset(d, t->params))
			continue;
		param_format(d, t->params, v, sizeof v);
		used += (size_t)snprintf(buf + used, cap - used, "%s %s=%s", n++ ? "," : "", d->name, v);
	}
}

int topo_alloc(struct topo *t, uint32_t n_routers, const uint32_t *n_ports, uint32_t uniform,
	       uint32_t n_endpoints, struct nl_err *err)
{
	uint64_t total = 0;

	if (n_routers == 0)
		return nl_errf(err, NL_EINVAL, "topology '%s': no routers", t->ops->name);
	for (uint32_t r = 0; r < n_routers; r++)
		total += n_ports ? n_ports[r] : uniform;
	if (total >= TOPO_EP_BIT || n_endpoints >= TOPO_EP_BIT) {
		char given[256];
		topo_params_text(t, given, sizeof given);
		return topo_size_check(t, given, n_routers, (double)total, n_endpoints, err);
	}
	t->port_base = malloc(((size_t)n_routers + 1) * sizeof *t->port_base);
	t->peer = malloc((size_t)total * sizeof *t->peer);
	t->port_router = malloc((size_t)total * sizeof *t->port_router);
	t->ep_port = malloc((size_t)(n_endpoints ? n_endpoints : 1) * sizeof *t->ep_port);
	if (!t->port_base || !t->peer || !t->port_router || !t->ep_port)
		return nl_errf(err, NL_ENOMEM, "topology '%s': out of memory for %llu ports", t->ops->name,
			       (unsigned long long)total);
	/* One pass sets both arrays: at foldedhypercube:n=24 (436 million
	 * ports, 3.5 GB) the first touch of their pages is most of the build,
	 * 15 s that showed nothing. */
	uint32_t g = 0;
	for (uint32_t r = 0; r < n_routers; r++) {
		t->port_base[r] = g;
		uint32_t np = n_ports ? n_ports[r] : uniform;
		for (uint32_t i = 0; i < np; i++) {
			t->port_router[g + i] = r;
			t->peer[g + i] = TOPO_NONE;
		}
		g += np;
		if (t->building && !(r & 0xffff))
			topo_build_laid(t, g, total);
	}
	t->port_base[n_routers] = g;
	memset(t->ep_port, 0xff, (size_t)(n_endpoints ? n_endpoints : 1) * sizeof *t->ep_port);
	t->n_routers = n_routers;
	t->n_endpoints = n_endpoints;
	t->n_ports = (uint32_t)total;
	return 0;
}

void topo_connect(struct topo *t, uint32_t ra, uint32_t pa, uint32_t rb, uint32_t pb)
{
	uint32_t ga = t->port_base[ra] + pa, gb = t->port_base[rb] + pb;
	NL_ASSERT(pa < topo_router_ports(t, ra) && pb < topo_router_ports(t, rb));
	NL_ASSERT(t->peer[ga] == TOPO_NONE && t->peer[gb] == TOPO_NONE);
	t->peer[ga] = gb;
	t->peer[gb] = ga;
	topo_build_tick(t, 2);
}

void topo_attach(struct topo *t, uint32_t ep, uint32_t r, uint32_t p)
{
	uint32_t g = t->port_base[r] + p;
	NL_ASSERT(p < topo_router_ports(t, r) && ep < t->n_endpoints);
	NL_ASSERT(t->peer[g] == TOPO_NONE);
	t->peer[g] = TOPO_EP_BIT | ep;
	t->ep_port[ep] = g;
	topo_build_tick(t, 1);
}

uint32_t topo_router_degree(const struct topo *t, uint32_t r)
{
	uint32_t n = 0;
	for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++)
		if (topo_port_is_network(t, g))
			n++;
	return n;
}

uint32_t topo_max_radix(const struct topo *t)
{
	uint32_t m = 0;
	for (uint32_t r = 0; r < t->n_routers; r++)
		if (topo_router_ports(t, r) > m)
			m = topo_router_ports(t, r);
	return m;
}

uint64_t topo_count_links(const struct topo *t)
{
	uint64_t n = 0;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g)
			n++;
	return n;
}

void topo_bfs(const struct topo *t, uint32_t src, uint32_t *dist, uint32_t *queue)
{
	uint32_t head = 0, tail = 0;
	for (uint32_t r = 0; r < t->n_routers; r++)
		dist[r] = UINT32_MAX;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t r = queue[head++];
		for (uint32_t g = t->port_base[r]; g < t->port_base[r + 1]; g++) {
			if (!topo_port_is_network(t, g))
				continue;
			uint32_t s = t->port_router[t->peer[g]];
			if (dist[s] == UINT32_MAX) {
				dist[s] = dist[r] + 1;
				queue[tail++] = s;
			}
		}
	}
}

uint32_t topo_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	if (t->ops->distance)
		return t->ops->distance(t, a, b);
	uint32_t *dist = malloc((size_t)t->n_routers * sizeof *dist);
	uint32_t *queue = malloc((size_t)t->n_routers * sizeof *queue);
	uint32_t d = UINT32_MAX;
	if (dist && queue) {
		topo_bfs(t, a, dist, queue);
		d = dist[b];
	}
	free(dist);
	free(queue);
	return d;
}

int topo_check(const struct topo *t, struct nl_err *err)
{
	for (uint32_t g = 0; g < t->n_ports; g++) {
		uint32_t p = t->peer[g];
		if (p == TOPO_NONE)
			continue;
		if (p & TOPO_EP_BIT) {
			uint32_t e = p & ~TOPO_EP_BIT;
			if (e >= t->n_endpoints || t->ep_port[e] != g)
				return nl_errf(err, NL_ECORRUPT, "%s: terminal port %u and endpoint %u disagree",
					       t->spec, g, e);
			continue;
		}
		if (p >= t->n_ports || t->peer[p] != g)
			return nl_errf(err, NL_ECORRUPT, "%s: port %u -> %u is not paired", t->spec, g, p);
	}
	for (uint32_t e = 0; e < t->n_endpoints; e++)
		if (t->ep_port[e] >= t->n_ports || t->peer[t->ep_port[e]] != (TOPO_EP_BIT | e))
			return nl_errf(err, NL_ECORRUPT, "%s: endpoint %u is not attached", t->spec, e);
	uint32_t *dist = malloc((size_t)t->n_routers * sizeof *dist);
	uint32_t *queue = malloc((size_t)t->n_routers * sizeof *queue);
	int rc = 0;
	if (!dist || !queue) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	} else {
		topo_bfs(t, 0, dist, queue);
		for (uint32_t r = 0; r < t->n_routers; r++)
			if (dist[r] == UINT32_MAX) {
				rc = nl_errf(err, NL_ECORRUPT, "%s: router %u unreachable from router 0", t->spec, r);
				break;
			}
	}
	free(dist);
	free(queue);
	return rc;
}
