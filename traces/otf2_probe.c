/* Importer "otf2": recognising an OTF2 anchor file, and the importer
 * that stands in for it when netloom is built without the OTF2 library
 * (the `otf2` dependency is optional: README "Dependencies"). */
#include "traces/traces_internal.h"

#include <string.h>

#include "core/error.h"

/* The anchor file starts with a one-byte length, 'B' and "OTF2" (OTF2's
 * file magic); a name ending in .otf2 is enough when it is too short. */
int trace_otf2_probe(const char *path, const uint8_t *head, size_t n)
{
	if (n >= 6 && !memcmp(head + 2, "OTF2", 4))
		return 1;
	size_t len = strlen(path);
	return len > 5 && !strcmp(path + len - 5, ".otf2");
}

#ifndef NETLOOM_HAVE_OTF2
static int otf2_unavailable(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
			    struct trace_skips *skips, trace_progress_fn progress, void *progress_ctx,
			    struct nl_err *err)
{
	(void)out_path, (void)opts, (void)skips, (void)progress, (void)progress_ctx;
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
#endif
