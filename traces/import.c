/* Importers: the registry of foreign trace formats and trace_import(),
 * which picks one by probing the input's first bytes. A new format is one
 * file exporting a trace_importer_ops plus one line here. */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

static const struct trace_importer_ops *const trace_importers[] = {
	&trace_import_dumpi_ops,
	&trace_import_simgrid_ops,
	&trace_import_otf2_ops,
};

enum { PROBE_BYTES = 4096 };

/* What detect learnt of an input besides its importer. */
struct input_probe {
	int err_no;  /* errno when the file cannot be opened, EISDIR for a directory no importer takes */
	bool is_nlt; /* the first bytes are the netloom archive magic or, for a shorter file, a prefix
		      * of it (a cut archive) */
	mode_t mode; /* the file's type and mode, 0 when it could not be opened */
};

/* Up to cap bytes from fd's start (fewer at its end or on an error). */
static size_t read_head(int fd, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap) {
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	return n;
}

/* The importer for path's first bytes, or NULL. A directory is read as no
 * bytes (the OTF2 probe takes a directory holding traces.otf2); a FIFO,
 * socket or device is not read at all and no importer takes it: opening
 * a FIFO would wait for a writer, and the bytes probed would be gone for
 * the importer, which reads its input from the start, some of it twice. */
static const struct trace_importer_ops *detect(const char *path, struct input_probe *p)
{
	uint8_t head[PROBE_BYTES];
	struct stat st;
	*p = (struct input_probe){0};
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		p->err_no = errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p->mode = st.st_mode;
	bool dir = S_ISDIR(st.st_mode);
	size_t n = S_ISREG(st.st_mode) ? read_head(fd, head, sizeof head) : 0;
	close(fd);
	if (!dir && !S_ISREG(st.st_mode))
		return NULL;
	size_t m = n < 8 ? n : 8;
	if (m && !memcmp(head, TRACE_MAGIC, m)) {
		p->is_nlt = true;
		return NULL;
	}
	/* The text formats' probes see the text after a byte order mark. */
	size_t bom = trace_utf8_bom_len(head, n);
	for (size_t i = 0; i < sizeof trace_importers / sizeof *trace_importers; i++)
		if (trace_importers[i]->probe(path, head + bom, n - bom))
			return trace_importers[i];
	if (dir)
		p->err_no = EISDIR;
	return NULL;
}

const char *trace_import_detect(const char *in_path)
{
	struct input_probe p;
	const struct trace_importer_ops *ops = detect(in_path, &p);
	return ops ? ops->name : NULL;
}

#define FOREIGN_FORMATS                                                                                        \
	"a DUMPI .meta file ('numprocs=' and 'fileprefix=' lines) or a SimGrid time-independent trace ('<rank> " \
	"<action> ...' lines, or a list of such files) or an OTF2 anchor file (NAME.otf2)"

/* Why in_path is not a foreign trace: it cannot be read, or its format is
 * unknown (nlt_ok: a netloom archive would have been read too). */
static int not_foreign(const char *in_path, const struct input_probe *p, bool nlt_ok, struct nl_err *err)
{
	int e = p->err_no;
	NL_CHECK(nl_input_named(in_path, "trace file", NL_ENOTFOUND, err));
	if (e == EISDIR)
		return trace_dir_error(in_path,
				       "an OTF2 archive is given by its anchor file, NAME.otf2, or the directory "
				       "holding traces.otf2",
				       err);
	if (e)
		return nl_errf(err, e == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", in_path, strerror(e));
	if (!S_ISREG(p->mode))
		return trace_not_regular(in_path, p->mode, "trace file", err);
	const enum trace_takes takes = nlt_ok ? TRACE_TAKES_ANY : TRACE_TAKES_FOREIGN;
	if (trace_bundle_given(in_path, takes, err) || trace_text_given(in_path, takes, err) ||
	    trace_stream_given(in_path, err))
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
	struct input_probe p;
	const struct trace_importer_ops *ops = detect(in_path, &p);
	*importer = ops ? ops->name : NULL;
	return ops || p.is_nlt ? 0 : not_foreign(in_path, &p, true, err);
}

int trace_input_files(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err)
{
	struct input_probe p;
	const struct trace_importer_ops *ops = detect(in_path, &p);
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
	struct input_probe p;
	const struct trace_importer_ops *ops = detect(in_path, &p);
	if (!ops && p.is_nlt) {
		/* The reader's error for a cut or damaged archive. */
		struct trace_archive *a;
		NL_CHECK(trace_archive_open(&a, in_path, err));
		trace_archive_close(a);
		return nl_errf(err, NL_EINVAL, "%s: already a netloom trace archive: nothing to convert", in_path);
	}
	if (!ops)
		return not_foreign(in_path, &p, false, err);
	struct trace_skips skips = {0};
	int rc = ops->import(in_path, out_path, NULL, &skips, progress, progress_ctx, is_unwritten, err);
	if (!rc)
		trace_skips_report(&skips, warn, warn_ctx);
	trace_skips_release(&skips);
	return rc;
}
