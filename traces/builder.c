/* Building an archive from a sequence of ops per rank (importers and
 * `trace encode`): one stream writer per rank, writing into temporary
 * files next to the output, assembled by trace_archive_write_streams at
 * the end. Ranks written one after another share one file, the spool,
 * each stream after the last (for a trace of many small ranks, creating
 * a file per rank was most of the time); a rank opened while another
 * writes in the spool gets a file of its own. The archive writer is told
 * what each writer wrote instead of scanning for it. The temporary files
 * are registered (out_staged_add), so a SIGINT or SIGTERM removes them
 * and ends the build at its next op (core/output.h). In
 * check mode (no output path) every op is instead encoded and decoded
 * again and compared, which is the fuzz targets' oracle.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/error.h"
#include "core/output.h"

enum { RANK_NEW, RANK_OPEN, RANK_DONE };

#define BUILDER_FD_SLACK 64u /* files beside the streams: the input, the archive, libraries' */

struct trace_builder {
	char *out_path;               /* NULL: check mode */
	uint32_t n_ranks;
	struct trace_write_opts opts;
	struct trace_stream_writer **w;
	char **paths;                 /* temporary stream files (spool_path or a rank's own) */
	struct trace_stream_summary *written; /* of each closed stream */
	FILE *spool;                  /* the file ranks written one after another share */
	char *spool_path;
	bool is_spool_busy;           /* an open rank writes in the spool */
	uint8_t *state;
	uint64_t *ops;
	uint32_t n_open;              /* streams open now (RANK_OPEN) */
	bool is_nofile;               /* a stream hit the limit on open files: */
	struct nl_err nofile;         /* its line, returned by finish */
	bool is_unwritten;            /* writing a stream or the archive failed (trace_out_rc) */
	/* check mode */
	uint8_t *scratch;
	size_t scratch_cap;
	struct trace_op_arrays arr;
};

int trace_builder_new(struct trace_builder **bp, const char *out_path, uint32_t n_ranks,
		      const struct trace_write_opts *opts, struct nl_err *err)
{
	struct trace_builder *b;
	*bp = NULL;
	if (!n_ranks)
		return nl_errf(err, NL_EINVAL, "%s: a trace needs at least one rank",
			       out_path ? out_path : "(check)");
	b = calloc(1, sizeof *b);
	if (!b)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	int rc = trace_write_opts_resolve(opts, &b->opts, err);
	if (rc) {
		free(b);
		return rc;
	}
	b->n_ranks = n_ranks;
	b->state = calloc(n_ranks, 1);
	b->ops = calloc(n_ranks, sizeof *b->ops);
	if (out_path) {
		b->out_path = trace_strdup(out_path);
		b->w = calloc(n_ranks, sizeof *b->w);
		b->paths = calloc(n_ranks, sizeof *b->paths);
		b->written = calloc(n_ranks, sizeof *b->written);
	}
	if (!b->state || !b->ops || (out_path && (!b->out_path || !b->w || !b->paths || !b->written))) {
		trace_builder_free(b);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	*bp = b;
	return 0;
}

/* A stream file the limit on open files refused (EMFILE): the trace's
 * ranks interleave past it, and the input line at hand is not at fault.
 * Said at finish, once the input is read, in one line naming the output,
 * the ranks, the limit and what to raise it to (as serve --record's
 * check, adapters/serve.c), not at the line: the importers prefix an
 * op's error with its input file:line. Every stream is closed now, so
 * the rest of the input is read with the files it needs. */
static void builder_nofile(struct trace_builder *b)
{
	struct rlimit rl = {0};
	getrlimit(RLIMIT_NOFILE, &rl);
	uint64_t limit = (uint64_t)rl.rlim_cur, others = limit > b->n_open ? limit - b->n_open : 0;
	uint64_t need = (uint64_t)b->n_ranks + (others > BUILDER_FD_SLACK ? others : BUILDER_FD_SLACK);
	nl_errf(&b->nofile, NL_ECONFIG,
		"%s: %u ranks need up to %" PRIu64 " open files (a temporary stream file per rank while the "
		"trace's ranks interleave, and %" PRIu64 " for the rest), above the limit of %" PRIu64
		" (ulimit -n, which netloom raises to the hard limit, ulimit -Hn); raise ulimit -n to at least %"
		PRIu64,
		b->out_path, b->n_ranks, need, need - b->n_ranks, limit, need);
	b->is_nofile = true;
	for (uint32_t r = 0; r < b->n_ranks; r++)
		if (b->w[r]) {
			trace_stream_abort(b->w[r]);
			b->w[r] = NULL;
		}
	b->n_open = 0;
	b->is_spool_busy = false;
}

/* A registered temporary file next to the output, out_path + tag +
 * ".tmpXXXXXX": its name in *pp and its fd in *fdp; or *fdp -1 when the
 * limit on open files refused it (builder_nofile has taken it). */
static int make_temp(struct trace_builder *b, const char *tag, char **pp, int *fdp, struct nl_err *err)
{
	size_t n = strlen(b->out_path) + strlen(tag) + 16;
	char *p = malloc(n);
	*pp = NULL;
	*fdp = -1;
	if (!p)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	snprintf(p, n, "%s%s.tmpXXXXXX", b->out_path, tag);
	/* Registered as a template that mkstemp fills in place: no signal
	 * finds the file made but not registered. */
	int rc = out_staged_add(p, err);
	if (rc < 0) {
		free(p);
		return rc;
	}
	int fd = mkstemp(p);
	if (fd < 0) {
		int e = errno;
		out_staged_del(p);
		free(p);
		if (e == EMFILE) {
			builder_nofile(b);
			return 0;
		}
		return trace_out_rc(&b->is_unwritten,
				    nl_errf(err, NL_EIO, "%s: cannot create a temporary stream file: %s",
					    b->out_path, strerror(e)));
	}
	*pp = p;
	*fdp = fd;
	return 0;
}

static int open_spool(struct trace_builder *b, struct nl_err *err)
{
	int fd;
	NL_CHECK(make_temp(b, ".ranks", &b->spool_path, &fd, err));
	if (fd < 0)
		return 0;
	b->spool = fdopen(fd, "wb");
	if (!b->spool) {
		int e = errno;
		close(fd);
		return trace_out_rc(&b->is_unwritten,
				    nl_errf(err, NL_EIO, "%s: cannot create a temporary stream file: %s",
					    b->out_path, strerror(e)));
	}
	return 0;
}

static int open_rank(struct trace_builder *b, uint32_t rank, struct nl_err *err)
{
	int rc;
	if (!b->is_spool_busy) {
		if (!b->spool)
			NL_CHECK(open_spool(b, err));
		if (b->is_nofile)
			return 0;
		b->paths[rank] = b->spool_path;
		rc = trace_stream_open_shared(&b->w[rank], rank, b->spool, b->spool_path, &b->opts, err);
		b->is_spool_busy = !rc;
	} else {
		char tag[24];
		int fd;
		snprintf(tag, sizeof tag, ".r%u", rank);
		NL_CHECK(make_temp(b, tag, &b->paths[rank], &fd, err));
		if (fd < 0)
			return 0;
		rc = trace_stream_open_fd(&b->w[rank], rank, fd, b->paths[rank], &b->opts, err);
	}
	if (rc)
		return trace_out_rc(&b->is_unwritten, rc);
	b->state[rank] = RANK_OPEN;
	b->n_open++;
	return 0;
}

static int check_op(struct trace_builder *b, const struct trace_op *op, struct nl_err *err)
{
	size_t need = trace_op_encoded_max(op);
	if (need > b->scratch_cap) {
		uint8_t *t = realloc(b->scratch, need);
		if (!t)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		b->scratch = t;
		b->scratch_cap = need;
	}
	uint64_t base_w = 0, base_r = 0;
	struct trace_op back;
	const char *what = NULL;
	size_t n = trace_op_encode(b->scratch, op, &base_w);
	int got = trace_op_decode(b->scratch, n, &back, &base_r, &b->arr, &what);
	if (got != (int)n || !trace_op_equal(op, &back))
		NL_BUG("op codec round trip failed for %s (%s)", trace_op_name(op->kind), what ? what : "differs");
	return 0;
}

/* An error of rank's stream writer names its temporary file, which is
 * gone once the build fails: name the output instead. Its input/output
 * errors are the output's (trace_out_rc). */
static int stream_err(struct trace_builder *b, uint32_t rank, int rc, struct nl_err *err)
{
	trace_out_rc(&b->is_unwritten, rc);
	const char *tmp = b->paths[rank];
	size_t n = tmp ? strlen(tmp) : 0;
	if (rc < 0 && err && n && !strncmp(err->msg, tmp, n) && err->msg[n] == ':') {
		char rest[NL_ERR_MSG_MAX];
		snprintf(rest, sizeof rest, "%s", err->msg + n);
		snprintf(err->msg, sizeof err->msg, "%s%s", b->out_path, rest);
	}
	return rc;
}

int trace_builder_op(struct trace_builder *b, uint32_t rank, const struct trace_op *op,
		     struct nl_err *err)
{
	if (rank >= b->n_ranks)
		NL_BUG("builder: rank %u of %u", rank, b->n_ranks);
	if (b->state[rank] == RANK_DONE)
		NL_BUG("builder: op for rank %u after end_rank", rank);
	NL_CHECK(trace_op_check(op, err));
	/* Checked here, not by the stream writer, whose message would
	 * name its temporary file (removed when the build fails). */
	if (trace_op_check_version(op, b->opts.format_version, err))
		return nl_err_prefix(err, "rank %u", rank);
	b->ops[rank]++;
	if (!b->out_path)
		return check_op(b, op, err);
	out_staged_poll(); /* a recorded SIGINT/SIGTERM: the streams removed, the process ended */
	if (b->state[rank] == RANK_NEW && !b->is_nofile)
		NL_CHECK(open_rank(b, rank, err));
	if (b->is_nofile)
		return 0; /* the input is read on, for its own errors; finish says it */
	return stream_err(b, rank, trace_stream_append(b->w[rank], op, err), err);
}

int trace_builder_end_rank(struct trace_builder *b, uint32_t rank, struct nl_err *err)
{
	if (!b->out_path) {
		b->state[rank] = RANK_DONE;
		return 0;
	}
	if (b->state[rank] == RANK_DONE)
		return 0;
	if (b->state[rank] == RANK_NEW && !b->is_nofile)
		NL_CHECK(open_rank(b, rank, err));
	if (b->is_nofile) {
		b->state[rank] = RANK_DONE;
		return 0;
	}
	struct trace_stream_writer *w = b->w[rank];
	b->w[rank] = NULL;
	b->state[rank] = RANK_DONE;
	b->n_open--;
	if (b->paths[rank] == b->spool_path)
		b->is_spool_busy = false;
	return stream_err(b, rank, trace_stream_close_summary(w, &b->written[rank], err), err);
}

uint64_t trace_builder_rank_ops(const struct trace_builder *b, uint32_t rank)
{
	return rank < b->n_ranks ? b->ops[rank] : 0;
}

bool trace_builder_is_unwritten(const struct trace_builder *b)
{
	return b && b->is_unwritten;
}

int trace_builder_finish(struct trace_builder *b, struct trace_manifest *m, struct nl_err *err)
{
	if (m->n_ranks != b->n_ranks)
		NL_BUG("builder: manifest has %u ranks, builder %u", m->n_ranks, b->n_ranks);
	for (uint32_t r = 0; r < b->n_ranks; r++)
		NL_CHECK(trace_builder_end_rank(b, r, err));
	if (!b->out_path)
		return 0;
	if (b->is_nofile) {
		*err = b->nofile;
		return err->code;
	}
	if (b->spool && fflush(b->spool) != 0)
		return trace_out_rc(&b->is_unwritten,
				    nl_errf(err, NL_EIO, "%s: write failed: %s", b->out_path, strerror(errno)));
	struct trace_manifest mm = *m;
	mm.rank_ops = mm.rank_bytes = mm.rank_hash = NULL;
	/* Its only input is the streams written here: its input/output
	 * errors are the output's; the manifest's are the trace's. */
	return trace_out_rc(&b->is_unwritten,
			    trace_archive_write_streams(b->out_path, &mm, (const char *const *)b->paths, b->written,
							err));
}

void trace_builder_free(struct trace_builder *b)
{
	if (!b)
		return;
	/* Last rank first: out_staged_del finds the latest registration first,
	 * so forgetting every stream costs O(ranks), not O(ranks^2). */
	for (uint32_t r = b->paths ? b->n_ranks : 0; r-- > 0;) {
		if (b->w && b->w[r])
			trace_stream_abort(b->w[r]);
		if (b->paths[r] && b->paths[r] != b->spool_path) {
			out_staged_remove(b->paths[r]); /* polls: a recorded signal ends the process here */
			free(b->paths[r]);
		}
	}
	if (b->spool)
		fclose(b->spool);
	if (b->spool_path) {
		out_staged_remove(b->spool_path);
		free(b->spool_path);
	}
	free(b->w);
	free(b->paths);
	free(b->written);
	free(b->state);
	free(b->ops);
	free(b->out_path);
	free(b->scratch);
	trace_op_arrays_release(&b->arr);
	free(b);
}
