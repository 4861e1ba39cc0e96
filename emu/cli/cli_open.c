/* Traces in and out of replay: opening a netloom archive as is, or a
 * foreign trace (DUMPI, SimGrid, OTF2) converted first into an unlinked
 * temporary archive, its dropped calls named on stderr as `trace convert`
 * does; and `replay --otf2`, the predicted timeline as OTF2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "cli/cli.h"
#include "core/error.h"
#include "core/output.h"
#include "traces/trace.h"

/* Who says a conversion's lines, and about which trace. */
struct cli_open_say {
	const char *cmd;  /* "replay", or NULL to say nothing */
	const char *job;  /* the key naming the trace, or NULL */
	const char *path; /* the trace, said after job */
};

static void cli_open_warn(void *ctx, const char *line)
{
	const struct cli_open_say *say = ctx;
	if (!say->cmd)
		return;
	if (say->job)
		fprintf(stderr, "netloom %s: %s: %s: %s\n", say->cmd, say->job, say->path, line);
	else
		fprintf(stderr, "netloom %s: %s\n", say->cmd, line);
}

int cli_open_trace(const char *cmd, const char *job, const char *path, struct trace_archive **a, struct nl_err *err)
{
	struct cli_open_say say = {.cmd = cmd, .job = job, .path = path};
	const char *importer;
	NL_CHECK(trace_input_format(path, &importer, err));
	if (!importer)
		return trace_archive_open(a, path, err);
	const char *env = getenv("TMPDIR"), *dir = env && *env ? env : "/tmp";
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s/netloom-import-XXXXXX.nlt", dir);
	/* Registered before mkstemps fills the template in place, so a
	 * SIGINT/SIGTERM during the conversion (polled by it) removes this
	 * file too, not only the conversion's own streams (core/staged.h). */
	NL_CHECK(out_staged_add(tmp, err));
	int fd = mkstemps(tmp, 4);
	if (fd < 0) {
		/* Named by the folder and its variable: the template, filled in
		 * by the failed call, names a file that never existed. */
		int e = errno;
		out_staged_del(tmp);
		return nl_errf(err, NL_EIO,
			       "%s: cannot create a temporary archive in %s '%s' to convert it into: %s; expected "
			       "TMPDIR to name a folder that can be written in",
			       path, env && *env ? "TMPDIR" : "the default temporary folder", dir, strerror(e));
	}
	close(fd);
	int rc = trace_import(path, tmp, cli_open_warn, &say, err);
	if (!rc)
		rc = trace_archive_open(a, tmp, err);
	/* The open archive keeps its descriptor. Polls: a recorded signal ends
	 * the process here. */
	out_staged_remove(tmp);
	return rc;
}

struct cli_timeline {
	struct trace_otf2_writer *w; /* --otf2, or NULL */
	struct cli_svg *svg;         /* --svg, or NULL */
	struct nl_err err;           /* the first write error, reported by finish */
	int rc;
};

static void cli_timeline_call(void *ctx, uint32_t rank, const struct trace_op *op, uint64_t start_ps,
			      uint64_t end_ps, uint64_t wait_ps)
{
	struct cli_timeline *t = ctx;
	if (t->w && !t->rc)
		t->rc = trace_otf2_writer_op(t->w, rank, op, start_ps, end_ps, &t->err);
	if (t->svg)
		cli_svg_call(t->svg, rank, op->kind == TOP_COMPUTE || op->kind == TOP_COMPUTE_FLOPS, start_ps, end_ps,
			     wait_ps);
}

int cli_timeline_start(struct cli_timeline **tp, struct app *app, const struct trace_manifest *m, const char *otf2_dir,
		       const char *svg_path, struct nl_err *err)
{
	struct cli_timeline *t = calloc(1, sizeof *t);
	if (!t)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	int rc = svg_path ? cli_svg_new(&t->svg, svg_path, m->n_ranks, err) : 0;
	if (!rc && otf2_dir && (rc = trace_otf2_writer_new(&t->w, otf2_dir, m, err)))
		nl_err_prefix(err, "--otf2");
	if (rc) {
		cli_svg_free(t->svg);
		free(t);
		return rc;
	}
	app_set_call_observer(app, cli_timeline_call, t);
	*tp = t;
	return 0;
}

static void cli_timeline_warn(void *ctx, const char *line)
{
	(void)ctx;
	cli_say("%s", line);
}

int cli_timeline_finish(struct cli_timeline *t, struct nl_err *err)
{
	if (t->rc) {
		*err = t->err;
		return t->rc;
	}
	if (t->w)
		NL_CHECK(trace_otf2_writer_finish(t->w, cli_timeline_warn, NULL, err));
	return t->svg ? cli_svg_finish(t->svg, err) : 0;
}

void cli_timeline_free(struct cli_timeline *t)
{
	if (!t)
		return;
	trace_otf2_writer_free(t->w);
	cli_svg_free(t->svg);
	free(t);
}
