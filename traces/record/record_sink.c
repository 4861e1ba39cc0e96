/* netloom-record's only contact with the archive writer (traces/trace.h):
 * one stream writer per rank, and the archive assembly at MPI_Finalize.
 * Failures leave their one-line message in rec_sink_error() for the
 * caller's single stderr line.
 *
 * A cancel op carries its recorded outcome (trace.h), but MPI_Cancel only
 * marks the request: whether it was cancelled is known when the request
 * completes (MPI_Test_cancelled on its status). The sink therefore holds a
 * cancel, and every op after it, until rec_sink_cancel_outcome() gives the
 * outcome, then writes them in order. Programs cancel and then complete at
 * once (HPCC waits right after MPI_Cancel), so the held ops are few; past
 * REC_HOLD_MAX held ops, or at the end, a cancel still open is written
 * with no_outcome and the held ops follow. Invariant: held[0], if any, is
 * an open cancel.
 */
#include "traces/record/record_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define REC_HOLD_MAX 65536u

/* One held op with its own copies of the arrays it points to. */
struct rec_held {
	struct trace_op op;
	bool is_open; /* a cancel waiting for its outcome */
};

static struct trace_stream_writer *rec_writer;
static struct nl_err rec_sink_err; /* static: no 512-byte clear per op */
static struct {
	struct rec_held *ops;
	size_t n, cap;
	size_t n_open; /* open cancels among ops[0..n) */
} hold;

const char *rec_sink_error(void)
{
	return rec_sink_err.msg[0] ? rec_sink_err.msg : nl_strerror(rec_sink_err.code);
}

int rec_sink_open(uint32_t rank, const char *path)
{
	return trace_stream_open(&rec_writer, rank, path, &rec_sink_err);
}

static void rec_held_release(struct rec_held *h)
{
	free((void *)h->op.send_counts);
	free((void *)h->op.recv_counts);
	free((void *)h->op.reqs);
}

static void *rec_dup(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

static int rec_hold_push(const struct trace_op *op, bool is_open)
{
	struct rec_held *h;

	if (hold.n == hold.cap) {
		size_t cap = hold.cap ? 2 * hold.cap : 64;
		struct rec_held *v = realloc(hold.ops, cap * sizeof *v);
		if (!v)
			return nl_errf(&rec_sink_err, NL_ENOMEM, "out of memory (%zu ops held behind MPI_Cancel)",
				       hold.n);
		hold.ops = v;
		hold.cap = cap;
	}
	h = &hold.ops[hold.n];
	h->op = *op;
	h->is_open = is_open;
	h->op.send_counts = op->send_counts ? rec_dup(op->send_counts, op->n_counts * sizeof(uint64_t)) : NULL;
	h->op.recv_counts = op->recv_counts ? rec_dup(op->recv_counts, op->n_counts * sizeof(uint64_t)) : NULL;
	h->op.reqs = op->n_reqs ? rec_dup(op->reqs, op->n_reqs * sizeof(uint32_t)) : NULL;
	if ((op->send_counts && !h->op.send_counts) || (op->recv_counts && !h->op.recv_counts) ||
	    (op->n_reqs && !h->op.reqs)) {
		rec_held_release(h);
		return nl_errf(&rec_sink_err, NL_ENOMEM, "out of memory (%zu ops held behind MPI_Cancel)", hold.n);
	}
	hold.n++;
	hold.n_open += is_open;
	return 0;
}

/* Write held ops from the front up to the first open cancel (all of them
 * when force: open cancels go out with no_outcome). */
static int rec_hold_drain(bool force)
{
	size_t i = 0;
	int rc = 0;

	for (; i < hold.n; i++) {
		struct rec_held *h = &hold.ops[i];
		if (h->is_open && !force)
			break;
		if (h->is_open) {
			h->is_open = false;
			hold.n_open--;
		}
		if (!rc)
			rc = trace_stream_append(rec_writer, &h->op, &rec_sink_err);
		rec_held_release(h);
	}
	memmove(hold.ops, hold.ops + i, (hold.n - i) * sizeof *hold.ops);
	hold.n -= i;
	return rc;
}

int rec_sink_append(const struct trace_op *op)
{
	bool is_open = op->kind == TOP_CANCEL && (op->flags & TRACE_F_NO_OUTCOME);

	if (!hold.n && !is_open)
		return trace_stream_append(rec_writer, op, &rec_sink_err);
	NL_CHECK(rec_hold_push(op, is_open));
	while (hold.n > REC_HOLD_MAX) {
		/* Give up on the oldest open cancel: out with no_outcome. */
		hold.ops[0].is_open = false;
		hold.n_open--;
		NL_CHECK(rec_hold_drain(false));
	}
	return 0;
}

int rec_sink_cancel_outcome(uint32_t req, int outcome)
{
	for (size_t i = 0; i < hold.n; i++) {
		struct rec_held *h = &hold.ops[i];
		if (!h->is_open || h->op.req != req)
			continue;
		h->is_open = false;
		hold.n_open--;
		if (outcome >= 0) {
			h->op.flags &= (uint16_t)~TRACE_F_NO_OUTCOME;
			h->op.n_done = outcome > 0;
		}
		return i == 0 ? rec_hold_drain(false) : 0;
	}
	return 0;
}

int rec_sink_close(uint64_t *n_ops, uint64_t *n_bytes, uint64_t *hash)
{
	int rc = rec_hold_drain(true);

	if (rc < 0) {
		trace_stream_abort(rec_writer);
		rec_writer = NULL;
		return rc;
	}
	rc = trace_stream_close(rec_writer, n_ops, n_bytes, hash, &rec_sink_err);
	rec_writer = NULL;
	free(hold.ops);
	memset(&hold, 0, sizeof hold);
	return rc;
}

void rec_sink_abort(void)
{
	while (hold.n)
		rec_held_release(&hold.ops[--hold.n]);
	free(hold.ops);
	memset(&hold, 0, sizeof hold);
	if (rec_writer)
		trace_stream_abort(rec_writer);
	rec_writer = NULL;
}

int rec_sink_archive(const char *path, const struct trace_manifest *m,
		     const char *const *stream_paths)
{
	return trace_archive_write_hidden(path, m, stream_paths, &rec_sink_err);
}
