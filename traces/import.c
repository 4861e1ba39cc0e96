/* Importers: the registry of foreign trace formats and trace_import(),
 * which picks one by probing the input's first bytes. A new format is one
 * file exporting a trace_importer_ops plus one line here. */
#include "traces/traces_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/error.h"

static const struct trace_importer_ops *const trace_importers[] = {
	&trace_import_dumpi_ops,
	&trace_import_simgrid_ops,
	&trace_import_otf2_ops,
};

enum { PROBE_BYTES = 4096 };

/* The importer for in_path's first bytes, or NULL (*err_no = errno when
 * the file cannot be read, EISDIR for a directory no importer takes). *nlt is set when those bytes are the netloom
 * archive magic or, for a shorter file, a prefix of it (a cut archive). */
static const struct trace_importer_ops *detect(const char *path, int *err_no, bool *nlt)
{
	uint8_t head[PROBE_BYTES];
	FILE *f = fopen(path, "rb");
	*err_no = 0;
	*nlt = false;
	if (!f) {
		*err_no = errno;
		return NULL;
	}
	/* A directory opens and reads nothing: the probes see no bytes (the
	 * OTF2 one takes a directory holding traces.otf2), and one none takes
	 * is named as a directory, not as an unknown format. */
	struct stat st;
	bool dir = fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
	size_t n = dir ? 0 : fread(head, 1, sizeof head, f);
	fclose(f);
	size_t m = n < 8 ? n : 8;
	if (m && !memcmp(head, TRACE_MAGIC, m)) {
		*nlt = true;
		return NULL;
	}
	for (size_t i = 0; i < sizeof trace_importers / sizeof *trace_importers; i++)
		if (trace_importers[i]->probe(path, head, n))
			return trace_importers[i];
	if (dir)
		*err_no = EISDIR;
	return NULL;
}

const char *trace_import_detect(const char *in_path)
{
	int e;
	bool nlt;
	const struct trace_importer_ops *ops = detect(in_path, &e, &nlt);
	return ops ? ops->name : NULL;
}

#define FOREIGN_FORMATS                                                                                        \
	"a DUMPI .meta file ('numprocs=' and 'fileprefix=' lines) or a SimGrid time-independent trace ('<rank> " \
	"<action> ...' lines, or a list of such files) or an OTF2 anchor file (NAME.otf2)"

/* Why in_path is not a foreign trace: it cannot be read, or its format is
 * unknown (nlt_ok: a netloom archive would have been read too). */
static int not_foreign(const char *in_path, int e, bool nlt_ok, struct nl_err *err)
{
	NL_CHECK(nl_input_named(in_path, "trace file", NL_ENOTFOUND, err));
	if (e == EISDIR)
		return trace_dir_error(in_path,
				       "an OTF2 archive is given by its anchor file, NAME.otf2, or the directory "
				       "holding traces.otf2",
				       err);
	if (e)
		return nl_errf(err, e == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", in_path, strerror(e));
	if (trace_bundle_given(in_path, err))
		return err->code;
	/* An empty file has no format to be unknown: say it is empty (as the
	 * archive reader does for an empty .nlt). */
	struct stat st;
	const bool empty = stat(in_path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
	return nl_errf(err, NL_EFORMAT, "%s: %s: expected %s" FOREIGN_FORMATS, in_path,
		       empty ? "empty file" : "unknown trace format", nlt_ok ? "a netloom trace archive (.nlt) or " : "");
}

int trace_input_format(const char *in_path, const char **importer, struct nl_err *err)
{
	int e;
	bool nlt;
	const struct trace_importer_ops *ops = detect(in_path, &e, &nlt);
	*importer = ops ? ops->name : NULL;
	return ops || nlt ? 0 : not_foreign(in_path, e, true, err);
}

int trace_input_files(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err)
{
	int e;
	bool nlt;
	const struct trace_importer_ops *ops = detect(in_path, &e, &nlt);
	return ops && ops->files ? ops->files(in_path, each, ctx, err) : 0;
}

int trace_import(const char *in_path, const char *out_path, trace_warn_fn warn, void *warn_ctx,
		 struct nl_err *err)
{
	return trace_import_ex(in_path, out_path, warn, warn_ctx, NULL, NULL, NULL, err);
}

int trace_import_ex(const char *in_path, const char *out_path, trace_warn_fn warn, void *warn_ctx,
		    trace_progress_fn progress, void *progress_ctx, bool *is_unwritten, struct nl_err *err)
{
	int e;
	bool nlt;
	const struct trace_importer_ops *ops = detect(in_path, &e, &nlt);
	if (!ops && nlt) {
		/* The reader's error for a cut or damaged archive. */
		struct trace_archive *a;
		NL_CHECK(trace_archive_open(&a, in_path, err));
		trace_archive_close(a);
		return nl_errf(err, NL_EINVAL, "%s: already a netloom trace archive: nothing to convert", in_path);
	}
	if (!ops)
		return not_foreign(in_path, e, false, err);
	struct trace_skips skips = {0};
	int rc = ops->import(in_path, out_path, NULL, &skips, progress, progress_ctx, is_unwritten, err);
	if (!rc)
		trace_skips_report(&skips, warn, warn_ctx);
	trace_skips_release(&skips);
	return rc;
}
