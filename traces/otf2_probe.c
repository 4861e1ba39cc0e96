/* Importer "otf2": recognising an OTF2 anchor file, and the importer
 * that stands in for it when netloom is built without the OTF2 library
 * (the `otf2` dependency is optional: README "Dependencies"). */
#include "traces/traces_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"

/* The anchor file starts with a one-byte length, 'B' and "OTF2" (OTF2's
 * file magic); a name ending in .otf2 is enough when it is too short. */
int trace_otf2_probe(const char *path, const uint8_t *head, size_t n)
{
	if (n >= 6 && !memcmp(head + 2, "OTF2", 4))
		return 1;
	char anchor[4096];
	struct stat st;
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
	if (!stat(path, &st) && S_ISDIR(st.st_mode) && !stat(anchor, &st))
		return 1; /* a directory `netloom ... --otf2 DIR` wrote */
	size_t len = strlen(path);
	return len > 5 && !strcmp(path + len - 5, ".otf2");
}

#ifndef NETLOOM_HAVE_OTF2
static int otf2_unavailable(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
			    struct trace_skips *skips, trace_progress_fn progress, void *progress_ctx,
			    bool *is_unwritten, struct nl_err *err)
{
	(void)out_path, (void)opts, (void)skips, (void)progress, (void)progress_ctx, (void)is_unwritten;
	return nl_errf(err, NL_EUNSUPPORTED,
		       "%s: an OTF2 archive, but this netloom was built without the OTF2 library "
		       "(install libotf2-trace-dev and rebuild)",
		       in_path);
}

const struct trace_importer_ops trace_import_otf2_ops = {
	.name = "otf2",
	.help = "OTF2 archive (Score-P, EZTrace): not available, built without the OTF2 library",
	.probe = trace_otf2_probe,
	.import = otf2_unavailable,
};

static int no_export(const char *dir, struct nl_err *err)
{
	return nl_errf(err, NL_EUNSUPPORTED,
		       "%s: cannot write OTF2: this netloom was built without the OTF2 library "
		       "(install libotf2-trace-dev and rebuild)",
		       dir);
}

int trace_otf2_writer_new(struct trace_otf2_writer **w, const char *dir, const struct trace_manifest *m,
			  struct nl_err *err)
{
	(void)m;
	*w = NULL;
	return no_export(dir, err);
}

int trace_otf2_writer_op(struct trace_otf2_writer *w, uint32_t rank, const struct trace_op *op, uint64_t start_ps,
			 uint64_t end_ps, struct nl_err *err)
{
	(void)w, (void)rank, (void)op, (void)start_ps, (void)end_ps;
	return no_export("(none)", err);
}

int trace_otf2_writer_finish(struct trace_otf2_writer *w, trace_warn_fn warn, void *warn_ctx, struct nl_err *err)
{
	(void)w, (void)warn, (void)warn_ctx;
	return no_export("(none)", err);
}

void trace_otf2_writer_free(struct trace_otf2_writer *w)
{
	(void)w;
}

int trace_export_otf2(struct trace_archive *a, const char *dir, trace_warn_fn warn, void *warn_ctx,
		      bool *is_unwritten, struct nl_err *err)
{
	(void)a, (void)warn, (void)warn_ctx, (void)is_unwritten;
	return no_export(dir, err);
}
#endif
