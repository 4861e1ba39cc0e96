/* Importers: the registry of foreign trace formats and trace_import(),
 * which picks one by probing the input's first bytes. A new format is one
 * file exporting a trace_importer_ops plus one line here. */
#include "traces/traces_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

static const struct trace_importer_ops *const trace_importers[] = {
	&trace_import_dumpi_ops,
	&trace_import_simgrid_ops,
	&trace_import_otf2_ops,
};

enum { PROBE_BYTES = 4096 };

static const struct trace_importer_ops *detect(const char *path, int *err_no)
{
	uint8_t head[PROBE_BYTES];
	FILE *f = fopen(path, "rb");
	*err_no = 0;
	if (!f) {
		*err_no = errno;
		return NULL;
	}
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	for (size_t i = 0; i < sizeof trace_importers / sizeof *trace_importers; i++)
		if (trace_importers[i]->probe(path, head, n))
			return trace_importers[i];
	return NULL;
}

const char *trace_import_detect(const char *in_path)
{
	int e;
	const struct trace_importer_ops *ops = detect(in_path, &e);
	return ops ? ops->name : NULL;
}

int trace_import(const char *in_path, const char *out_path, trace_warn_fn warn, void *warn_ctx,
		 struct nl_err *err)
{
	return trace_import_ex(in_path, out_path, warn, warn_ctx, NULL, NULL, err);
}

int trace_import_ex(const char *in_path, const char *out_path, trace_warn_fn warn, void *warn_ctx,
		    trace_progress_fn progress, void *progress_ctx, struct nl_err *err)
{
	int e;
	const struct trace_importer_ops *ops = detect(in_path, &e);
	if (!ops) {
		if (e)
			return nl_errf(err, e == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", in_path,
				       strerror(e));
		return nl_errf(err, NL_EFORMAT,
			       "%s: unknown trace format: expected a DUMPI .meta file ('numprocs=' and "
			       "'fileprefix=' lines) or a SimGrid time-independent trace ('<rank> <action> ...' "
			       "lines, or a list of such files) or an OTF2 anchor file (NAME.otf2)",
			       in_path);
	}
	struct trace_skips skips = {0};
	int rc = ops->import(in_path, out_path, NULL, &skips, progress, progress_ctx, err);
	if (!rc)
		trace_skips_report(&skips, warn, warn_ctx);
	trace_skips_release(&skips);
	return rc;
}
