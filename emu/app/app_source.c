/* The archive as an op source: one streaming trace_rank_reader per rank,
 * opened when the rank first asks and closed at its end, so replay holds
 * a window of one decoded frame per active rank (traces/reader.c: a
 * budget shared among the ranks) whatever the trace's length. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/error.h"
#include "traces/trace.h"

struct app_archive_source {
	struct trace_archive *a;
	uint32_t n_ranks;
	struct trace_rank_reader **readers; /* [n_ranks], NULL until opened / after the end */
	uint8_t *ended;                      /* [n_ranks] */
	uint32_t repeat;                     /* passes over each stream (app_archive_source_set_repeat) */
	uint32_t *pass;                      /* [n_ranks] current pass, when repeat > 1 */
	bool failed;                         /* a stream did not open or read (app_archive_source_failed) */
};

/* Archives whose collective sizes can be 0 without the count being 0
 * (docs/trace-format.md): the DUMPI importer writes 0 bytes for a datatype
 * it cannot size; the OTF2 importer derives sizes from byte totals
 * (Score-P's count what a rank sent to and received from all members),
 * not from counts. The recorder, the SimGrid importer and hand-written
 * text write count x type size. */
static bool app_recorder_sizes_inexact(const char *recorder)
{
	static const char *const inexact[] = {"netloom-import-dumpi", "netloom-import-otf2"};
	for (size_t i = 0; recorder && i < sizeof inexact / sizeof *inexact; i++)
		if (!strncmp(recorder, inexact[i], strlen(inexact[i])))
			return true;
	return false;
}

static int app_archive_next(void *ctx, uint32_t rank, struct trace_op *op, struct nl_err *err)
{
	struct app_archive_source *s = ctx;
	if (rank >= s->n_ranks || s->ended[rank])
		return 0;
	for (;;) {
		int rc = s->readers[rank] ? 0 : trace_rank_open(s->a, rank, &s->readers[rank], err);
		if (rc < 0) {
			s->failed = true;
			return rc;
		}
		rc = trace_rank_next(s->readers[rank], op, err);
		if (rc < 0)
			s->failed = true;
		if (rc > 0 && s->pass) {
			/* One program run: Init on the first pass, Finalize on the last. */
			if ((op->kind == TOP_INIT && s->pass[rank] > 0) ||
			    (op->kind == TOP_FINALIZE && s->pass[rank] + 1 < s->repeat))
				continue;
		}
		if (rc > 0)
			return rc;
		trace_rank_close(s->readers[rank]);
		s->readers[rank] = NULL;
		if (rc < 0 || !s->pass || ++s->pass[rank] >= s->repeat) {
			s->ended[rank] = 1;
			return rc;
		}
	}
}

int app_archive_source_set_repeat(struct app_archive_source *s, struct app_source *src, uint32_t repeat,
				  struct nl_err *err)
{
	if (repeat <= 1)
		return 0;
	s->pass = calloc(s->n_ranks ? s->n_ranks : 1, sizeof *s->pass);
	if (!s->pass)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	s->repeat = repeat;
	src->total_ops *= repeat;
	return 0;
}

int app_archive_source_new(struct app_archive_source **out, struct trace_archive *a,
			   struct app_source *src, struct nl_err *err)
{
	const struct trace_manifest *m = trace_archive_manifest(a);
	struct app_archive_source *s = calloc(1, sizeof *s);
	if (!s)
		return nl_errf(err, NL_ENOMEM, "replay: out of memory");
	s->a = a;
	s->n_ranks = m->n_ranks;
	s->readers = calloc(m->n_ranks ? m->n_ranks : 1, sizeof *s->readers);
	s->ended = calloc(m->n_ranks ? m->n_ranks : 1, 1);
	if (!s->readers || !s->ended) {
		app_archive_source_free(s);
		return nl_errf(err, NL_ENOMEM, "replay: out of memory for %" PRIu32 " rank readers", m->n_ranks);
	}
	src->n_ranks = m->n_ranks;
	src->n_comms = m->n_comms;
	src->comms = m->comms;
	src->next = app_archive_next;
	src->ctx = s;
	src->total_ops = 0;
	for (uint32_t r = 0; m->rank_ops && r < m->n_ranks; r++)
		src->total_ops += m->rank_ops[r];
	src->zero_bytes_unknown = app_recorder_sizes_inexact(m->recorder);
	src->name = NULL; /* the caller's to set: the path it opened */
	*out = s;
	return 0;
}

int app_archive_source_check_rest(struct app_archive_source *s, struct nl_err *err)
{
	struct trace_op op;
	for (uint32_t r = 0; s && r < s->n_ranks; r++) {
		/* A stream read to its end once (an earlier pass) was checked. */
		if (s->ended[r] || (s->pass && s->pass[r] > 0))
			continue;
		int rc = s->readers[r] ? 0 : trace_rank_open(s->a, r, &s->readers[r], err);
		while (rc == 0 && (rc = trace_rank_next(s->readers[r], &op, err)) > 0)
			rc = 0;
		trace_rank_close(s->readers[r]);
		s->readers[r] = NULL;
		s->ended[r] = 1;
		if (rc < 0) {
			s->failed = true;
			return rc;
		}
	}
	return 0;
}

bool app_archive_source_failed(const struct app_archive_source *s)
{
	return s && s->failed;
}

void app_archive_source_free(struct app_archive_source *s)
{
	if (!s)
		return;
	for (uint32_t r = 0; s->readers && r < s->n_ranks; r++)
		trace_rank_close(s->readers[r]);
	free(s->readers);
	free(s->ended);
	free(s->pass);
	free(s);
}
