/* netloom-record's only contact with the archive writer (traces/trace.h):
 * one stream writer per rank, and the archive assembly at MPI_Finalize.
 * Failures leave their one-line message in rec_sink_error() for the
 * caller's single stderr line.
 */
#include "traces/record/record_internal.h"

#include <stdio.h>

#include "core/error.h"

static struct trace_stream_writer *rec_writer;
static struct nl_err rec_sink_err; /* static: no 512-byte clear per op */

const char *rec_sink_error(void)
{
	return rec_sink_err.msg[0] ? rec_sink_err.msg : nl_strerror(rec_sink_err.code);
}

int rec_sink_open(uint32_t rank, const char *path)
{
	return trace_stream_open(&rec_writer, rank, path, &rec_sink_err);
}

int rec_sink_append(const struct trace_op *op)
{
	return trace_stream_append(rec_writer, op, &rec_sink_err);
}

int rec_sink_close(uint64_t *n_ops, uint64_t *n_bytes, uint64_t *hash)
{
	int rc = trace_stream_close(rec_writer, n_ops, n_bytes, hash, &rec_sink_err);

	rec_writer = NULL;
	return rc;
}

void rec_sink_abort(void)
{
	if (rec_writer)
		trace_stream_abort(rec_writer);
	rec_writer = NULL;
}

int rec_sink_archive(const char *path, const struct trace_manifest *m,
		     const char *const *stream_paths)
{
	return trace_archive_write(path, m, stream_paths, &rec_sink_err);
}
