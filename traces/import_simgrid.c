/* Importer "simgrid": SimGrid time-independent (TI) traces, the text format
 * SMPI's replay reads (simgrid/simgrid src/smpi/internals/smpi_replay.cpp,
 * src/xbt/xbt_replay.cpp; docs/source/app_smpi.rst "Offline SMPI").
 *
 * Input: an actions file ("<rank> <action> args..." lines, one or several
 * ranks) or an index file listing one actions file per rank (line i is
 * rank i). Blank lines and lines starting with '#' are skipped, fields are
 * separated by spaces or tabs, as in xbt_replay.
 *
 * Sizes in the trace are element counts of the datatype given as an
 * optional trailing id (SimGrid's Datatype ids, sized as on x86-64, where
 * SMPI runs) or, when absent, of the default type: MPI_BYTE, or MPI_DOUBLE
 * once the rank's `init` carries an argument (InitAction). Traces have no
 * times, so every op has t = dur = 0, and `compute F` becomes
 * TOP_COMPUTE_FLOPS.
 *
 * Two generations of the format exist: before SimGrid 3.20 (March 2018,
 * commit b55fc9b "Replay: Enable usage of tags") point-to-point actions had
 * no tag ("send dst size [dt]") and wait/test took no arguments and applied
 * to the last request; since then "send dst tag size [dt]" and "wait src dst
 * tag". The generation is decided once per trace from the argument counts;
 * a trace that shows both is refused.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/error.h"

/* Parse one non-comment line; rank_filter >= 0 keeps only that rank's
 * lines (per-rank files), counting the others. */
static int sg_line(struct simgrid_import *s, char *line, int64_t rank_filter)
{
	char *tok[SIMGRID_MAX_TOKENS];
	char name[32];
	long long rk;
	int n = simgrid_tokenize(line, tok, SIMGRID_MAX_TOKENS);
	if (n < 0)
		return simgrid_err(s, "more than %d fields on one line", SIMGRID_MAX_TOKENS);
	if (n == 0)
		return 0;
	if (n < 2 || !simgrid_parse_int(tok[0], 0, (long long)s->n_ranks - 1, &rk))
		return simgrid_err(s, "expected '<rank> <action> ...' with a rank 0 .. %u", s->n_ranks - 1);
	if (rank_filter >= 0 && rk != rank_filter)
		return simgrid_skip(s, "line for another rank", "xbt_replay ignores lines not for the file's rank");
	return simgrid_action(s, (uint32_t)rk, simgrid_canonical(tok[1], name, sizeof name), tok + 2, n - 2);
}

/* Appended to errors about an actions file's ranks. */
static const char sg_actions_hint[] = " (ranks are the ones this file has actions for; a per-rank file of a larger "
				      "trace is converted through the index file that lists every rank's file)";

/* What a first pass over the input learns. The generation evidence
 * gathers over every file; the ranks are one file's. */
struct sg_scan {
	int hint_tag, hint_untag; /* first line of each generation's evidence, 0: none */
	long long min_rank, max_rank; /* of the lines of the file, -1 when it has none */
	long long own_rank;       /* an index's file: the rank it is listed for; -1 otherwise */
	long long comm_size;      /* the largest 'comm_size N' of the file (SMPI writes the
				   * size of the communicator asked), 0 when none */
	uint64_t comm_size_line;
	bool has_own;             /* own_rank has a line in the file */
};

/* First pass over one file: its ranks and the generation evidence; when
 * seen is not NULL (SIMGRID_MAX_RANKS bits), the ranks that have lines. */
static int sg_prescan(struct simgrid_import *s, FILE *f, struct sg_scan *sc, uint8_t *seen)
{
	char *line = NULL, *tok[8];
	size_t cap = 0;
	char name[32];
	s->line_no = 0;
	sc->min_rank = sc->max_rank = -1;
	sc->has_own = false;
	sc->comm_size = 0;
	while (getline(&line, &cap, f) >= 0) {
		s->line_no++;
		char *text = trace_skip_bom(line, s->line_no);
		if (simgrid_blank(text))
			continue;
		/* Only the first few fields matter here; the count of fields is
		 * taken from a second tokenisation limited to what is needed. */
		int n = 0;
		for (char *p = text; *p;) {
			while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
				p++;
			if (!*p)
				break;
			if (n < 8)
				tok[n] = p;
			n++;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				p++;
			if (*p)
				*p++ = '\0';
		}
		long long rk;
		if (n < 2 || !simgrid_parse_int(tok[0], 0, SIMGRID_MAX_RANKS - 1, &rk)) {
			free(line);
			return simgrid_err(s, "expected '<rank> <action> ...' with a rank 0 .. %u", SIMGRID_MAX_RANKS - 1);
		}
		if (rk > sc->max_rank)
			sc->max_rank = rk;
		if (sc->min_rank < 0 || rk < sc->min_rank)
			sc->min_rank = rk;
		sc->has_own |= rk == sc->own_rank;
		if (seen)
			seen[rk >> 3] |= (uint8_t)(1u << (rk & 7));
		const char *act = simgrid_canonical(tok[1], name, sizeof name);
		long long size;
		if (n >= 3 && !strcmp(act, "comm_size") && simgrid_parse_int(tok[2], 1, LLONG_MAX, &size) &&
		    size > sc->comm_size) {
			sc->comm_size = size;
			sc->comm_size_line = s->line_no;
		}
		int h = simgrid_generation_hint(act, n - 2);
		if (h > 0 && !sc->hint_tag)
			sc->hint_tag = (int)s->line_no;
		if (h < 0 && !sc->hint_untag)
			sc->hint_untag = (int)s->line_no;
	}
	free(line);
	if (ferror(f))
		return nl_errf(s->err, NL_EIO, "%s: read failed", s->file);
	return 0;
}

static int sg_convert_file(struct simgrid_import *s, FILE *f, int64_t rank_filter)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	s->line_no = 0;
	while (!rc && getline(&line, &cap, f) >= 0) {
		s->line_no++;
		char *text = trace_skip_bom(line, s->line_no);
		if (!simgrid_blank(text))
			rc = sg_line(s, text, rank_filter);
	}
	free(line);
	if (!rc && ferror(f))
		rc = nl_errf(s->err, NL_EIO, "%s: read failed", s->file);
	return rc;
}

static void sg_release(struct simgrid_import *s)
{
	for (uint32_t r = 0; s->ranks && r < s->n_ranks; r++) {
		free(s->ranks[r].pend);
		free(s->ranks[r].free_ids);
	}
	free(s->ranks);
	free(s->sc);
	free(s->rc);
	free(s->reqs);
	trace_builder_free(s->b);
}

static int sg_setup(struct simgrid_import *s, uint32_t n_ranks, const char *out_path, const struct trace_write_opts *opts)
{
	s->n_ranks = n_ranks;
	s->ranks = calloc(n_ranks, sizeof *s->ranks);
	s->sc = calloc(n_ranks, sizeof *s->sc);
	s->rc = calloc(n_ranks, sizeof *s->rc);
	if (!s->ranks || !s->sc || !s->rc)
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < n_ranks; r++)
		s->ranks[r].dt_default = 1;
	return trace_builder_new(&s->b, out_path, n_ranks, opts, s->err);
}

static int sg_decide(struct simgrid_import *s, const char *file, int hint_tag, int hint_untag)
{
	if (hint_tag && hint_untag)
		return nl_errf(s->err, NL_EFORMAT,
			       "%s: mixes the tagged form (line %d: 4 point-to-point arguments or wait/test with 3) "
			       "and the older untagged form (line %d)",
			       file, hint_tag, hint_untag);
	s->tagged = hint_untag ? 0 : 1;
	return 0;
}

static int sg_finish(struct simgrid_import *s, const char *in_path)
{
	const char *base = strrchr(in_path, '/');
	base = base ? base + 1 : in_path;
	char app[256];
	snprintf(app, sizeof app, "%s", base);
	char *dot = strrchr(app, '.');
	if (dot && dot != app)
		*dot = '\0';
	char rec[128];
	snprintf(rec, sizeof rec, "netloom-import-simgrid %s (SimGrid time-independent, %s form)", NETLOOM_VERSION,
		 s->tagged ? "tagged" : "untagged");
	struct trace_manifest m = {
		.n_ranks = s->n_ranks,
		.application = app,
		.command_line = "",
		.machine = "",
		.recorder = rec,
		.mpi_library = "",
	};
	return trace_builder_finish(s->b, &m, s->err);
}

/* Is buf a regular file? When it exists as another type (a directory, a
 * FIFO), the first such path is kept in *odd (malloc'd) with its mode, so
 * that it is named as what it is rather than as missing. */
static bool listed_regular(const char *buf, char **odd, mode_t *odd_mode)
{
	struct stat st;
	if (stat(buf, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	if (!*odd && (*odd = trace_strdup(buf)))
		*odd_mode = st.st_mode;
	return false;
}

/* Resolve a path listed in an index file: as given, beside the index, in
 * the index's ancestors (SMPI resolves against its working directory,
 * usually a parent), then by basename beside the index. NULL when no
 * regular file is found; *odd is then the first path found that is not
 * regular (listed_regular), or NULL. */
static char *resolve_listed_in(const char *index, const char *p, char **odd, mode_t *odd_mode)
{
	size_t cap = strlen(index) + strlen(p) + 16;
	char *buf = malloc(cap);
	*odd = NULL;
	if (!buf)
		return NULL;
	if (p[0] == '/') {
		snprintf(buf, cap, "%s", p);
		if (listed_regular(buf, odd, odd_mode))
			return buf;
	}
	char *dir = trace_strdup(index);
	if (!dir) {
		free(buf);
		return NULL;
	}
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	for (int up = 0; up < 8; up++) {
		snprintf(buf, cap, "%s/%s", dir, p);
		if (listed_regular(buf, odd, odd_mode)) {
			free(dir);
			return buf;
		}
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (!*dir)
			break;
	}
	free(dir);
	const char *bn = strrchr(p, '/');
	bn = bn ? bn + 1 : p;
	dir = trace_strdup(index);
	if (!dir) {
		free(buf);
		return NULL;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	snprintf(buf, cap, "%s/%s", dir, bn);
	free(dir);
	if (listed_regular(buf, odd, odd_mode))
		return buf;
	free(buf);
	return NULL;
}

static char *resolve_listed(const char *index, const char *p, char **odd, mode_t *odd_mode)
{
	char *path = resolve_listed_in(index, p, odd, odd_mode);
	if (path) {
		free(*odd);
		*odd = NULL;
	}
	return path;
}

/* Is the first meaningful line a single field (an index file)? */
static int first_line_fields(FILE *f)
{
	char *line = NULL, *tok[4];
	size_t cap = 0;
	uint64_t ln = 0;
	int n = -1;
	while (getline(&line, &cap, f) >= 0) {
		char *text = trace_skip_bom(line, ++ln);
		if (!simgrid_blank(text)) {
			n = simgrid_tokenize(text, tok, 4);
			if (n < 0)
				n = 4;
			break;
		}
	}
	free(line);
	rewind(f);
	return n;
}

/* The actions files an index lists, resolved (resolve_listed), into
 * *files[0..*n), and the index line of each into *lines: the caller's to
 * free, those before an error too. */
static int index_files(FILE *idx, const char *in_path, char ***files_out, uint64_t **lines_out, size_t *n_out,
		       struct nl_err *err)
{
	char **files = NULL, *line = NULL, *tok[2];
	uint64_t *lines = NULL;
	size_t n = 0, cap = 0, lcap = 0;
	int rc = 0;
	uint64_t ln = 0;

	while (!rc && getline(&line, &lcap, idx) >= 0) {
		char *text = trace_skip_bom(line, ++ln);
		if (simgrid_blank(text))
			continue;
		if (simgrid_tokenize(text, tok, 2) != 1) {
			rc = nl_errf(err, NL_EFORMAT, "%s:%llu: expected one trace file name per line", in_path,
				     (unsigned long long)ln);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **t = realloc(files, cap * sizeof *t);
			if (t)
				files = t;
			uint64_t *l = t ? realloc(lines, cap * sizeof *l) : NULL;
			if (!l) {
				rc = nl_errf(err, NL_ENOMEM, "out of memory");
				break;
			}
			lines = l;
		}
		lines[n] = ln;
		char *odd;
		mode_t odd_mode = 0;
		files[n] = resolve_listed(in_path, tok[0], &odd, &odd_mode);
		if (!files[n] && odd) {
			char name[256];
			trace_escape(name, sizeof name, odd);
			rc = S_ISDIR(odd_mode)
				     ? nl_errf(err, NL_EIO, "%s:%llu: rank %zu trace '%s' is a directory, not a SimGrid trace file",
					       in_path, (unsigned long long)ln, n, name)
				     : nl_errf(err, NL_EIO,
					       "%s:%llu: rank %zu trace '%s' is not a regular file (%s), not a SimGrid trace file",
					       in_path, (unsigned long long)ln, n, name, nl_file_kind(odd_mode));
			free(odd);
			break;
		}
		if (!files[n]) {
			char name[256];
			rc = nl_errf(err, NL_ENOTFOUND,
				     "%s:%llu: rank %zu trace '%s' not found (the file was read as a SimGrid index, one "
				     "rank's trace file per line; looked beside it, in its parent directories and by "
				     "basename)",
				     in_path, (unsigned long long)ln, n, trace_escape(name, sizeof name, tok[0]));
			break;
		}
		n++;
		if (n > SIMGRID_MAX_RANKS)
			rc = nl_errf(err, NL_ERANGE, "%s: more than %u rank files", in_path, SIMGRID_MAX_RANKS);
	}
	free(line);
	if (!rc && !n)
		rc = nl_errf(err, NL_EFORMAT, "%s: the index lists no trace files", in_path);
	*files_out = files;
	*lines_out = lines;
	*n_out = n;
	return rc;
}

/* Rank r's file (line `ln` of the index) against the index: SimGrid
 * replays rank i from the file on line i and ignores the lines of other
 * ranks, so a file without rank r's lines is listed on the wrong line
 * (or once too often: more files than the trace has ranks), and one with
 * lines of a rank past the last file's is part of a trace of more ranks. */
static int sg_check_listed(struct simgrid_import *s, const char *in_path, uint64_t ln, size_t n_files,
			   const char *file, const struct sg_scan *sc)
{
	char name[256];
	trace_escape(name, sizeof name, file);
	if (sc->max_rank >= (long long)n_files)
		return nl_errf(s->err, NL_EFORMAT,
			       "%s: lists %zu rank file%s, but rank %lld's file '%s' has lines of rank %lld: expected "
			       "one file per rank of the trace, line i naming rank i's",
			       in_path, n_files, n_files == 1 ? "" : "s", sc->own_rank, name, sc->max_rank);
	if (sc->comm_size > (long long)n_files)
		return nl_errf(s->err, NL_EFORMAT,
			       "%s: lists %zu rank file%s, but the trace has at least %lld ranks ('%s' line %llu: "
			       "comm_size %lld): expected one file per rank of the trace, line i naming rank i's",
			       in_path, n_files, n_files == 1 ? "" : "s", sc->comm_size, name, (unsigned long long)sc->comm_size_line,
			       sc->comm_size);
	if (sc->has_own)
		return 0;
	char has[96];
	if (sc->max_rank < 0)
		snprintf(has, sizeof has, "it has no actions");
	else if (sc->min_rank == sc->max_rank)
		snprintf(has, sizeof has, "its lines are rank %lld's", sc->max_rank);
	else
		snprintf(has, sizeof has, "its lines are of ranks %lld .. %lld", sc->min_rank, sc->max_rank);
	return nl_errf(s->err, NL_EFORMAT,
		       "%s:%llu: rank %lld's file '%s' has no line of rank %lld (%s): expected one file per rank "
		       "of the trace, line i naming rank i's; the index lists %zu",
		       in_path, (unsigned long long)ln, sc->own_rank, name, sc->own_rank, has, n_files);
}

/* Pass 1 over an index's files: the format generation, and each file
 * against its line (sg_check_listed). */
static int index_prescan(struct simgrid_import *s, const char *in_path, char **files, const uint64_t *lines,
			 size_t n)
{
	struct sg_scan sc = {0};
	int rc = 0;
	for (size_t r = 0; !rc && r < n; r++) {
		FILE *f = fopen(files[r], "r");
		if (!f)
			return nl_errf(s->err, NL_EIO, "%s: cannot open: %s", files[r], strerror(errno));
		s->file = files[r];
		sc.own_rank = (long long)r;
		rc = sg_prescan(s, f, &sc, NULL);
		fclose(f);
		if (!rc && (sc.hint_tag && sc.hint_untag))
			rc = sg_decide(s, files[r], sc.hint_tag, sc.hint_untag);
		if (!rc)
			rc = sg_check_listed(s, in_path, lines[r], n, files[r], &sc);
	}
	if (!rc)
		rc = sg_decide(s, in_path, sc.hint_tag, sc.hint_untag);
	return rc;
}

static int import_index(struct simgrid_import *s, FILE *idx, const char *in_path, const char *out_path,
			const struct trace_write_opts *opts)
{
	char **files;
	uint64_t *lines;
	size_t n;
	int rc = index_files(idx, in_path, &files, &lines, &n, s->err);
	if (!rc)
		rc = index_prescan(s, in_path, files, lines, n);
	if (!rc)
		rc = sg_setup(s, (uint32_t)n, out_path, opts);
	/* Pass 2: convert rank by rank. */
	for (size_t r = 0; !rc && r < n; r++) {
		FILE *f = fopen(files[r], "r");
		if (!f) {
			rc = nl_errf(s->err, NL_EIO, "%s: cannot open: %s", files[r], strerror(errno));
			break;
		}
		s->file = files[r];
		rc = sg_convert_file(s, f, (int64_t)r);
		fclose(f);
		if (!rc)
			rc = trace_builder_end_rank(s->b, (uint32_t)r, s->err);
		if (!rc && s->progress)
			s->progress(s->progress_ctx, (double)(r + 1) / (double)n);
	}
	/* A rank or a count list beyond the files: the index is what is
	 * short, not the line (its counts were read as datatypes). */
	if (rc && s->is_rank_count_short)
		nl_err_prefix(s->err, "%s: lists %zu rank file%s, fewer than the trace has ranks", in_path, n,
			      n == 1 ? "" : "s");
	if (!rc)
		rc = sg_finish(s, in_path);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(lines);
	return rc;
}

/* The ranks of an actions file are 0 .. its largest rank, each with at
 * least one line: a gap is a per-rank file of a larger trace (SimGrid's
 * actions1.txt has only rank 1's lines), whose replay could only wait on
 * the missing ranks forever. */
static int sg_check_ranks(struct simgrid_import *s, const char *in_path, const uint8_t *seen, long long maxr)
{
	for (uint32_t r = 0; r < (uint32_t)maxr; r++)
		if (!(seen[r >> 3] & (1u << (r & 7))))
			return nl_errf(s->err, NL_EFORMAT,
				       "%s: rank %u has no actions, though rank %lld has: expected actions for every "
				       "rank 0 .. %lld%s",
				       in_path, r, maxr, maxr, sg_actions_hint);
	return 0;
}

static int import_actions(struct simgrid_import *s, FILE *f, const char *in_path, const char *out_path,
			  const struct trace_write_opts *opts, uint32_t max_ranks)
{
	struct sg_scan sc = {.own_rank = -1};
	uint8_t *seen = calloc(SIMGRID_MAX_RANKS / 8, 1);
	int rc;
	if (!seen)
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	s->file = in_path;
	rc = sg_prescan(s, f, &sc, seen);
	long long maxr = sc.max_rank;
	if (!rc && maxr < 0)
		rc = nl_errf(s->err, NL_EFORMAT, "%s: no actions", in_path);
	if (!rc && maxr >= max_ranks)
		rc = nl_errf(s->err, NL_ERANGE, "%s: rank %lld: at most %u ranks in one actions file", in_path, maxr,
			     max_ranks);
	if (!rc)
		rc = sg_check_ranks(s, in_path, seen, maxr);
	/* SMPI writes the size of the communicator asked: more than the
	 * file's ranks is a per-rank file of a larger trace (as a gap is),
	 * said before its first collective's count list does not fit. */
	if (!rc && sc.comm_size > maxr + 1) {
		char ranks[64];
		snprintf(ranks, sizeof ranks, maxr ? "ranks 0 .. %lld" : "rank 0 only", maxr);
		rc = nl_errf(s->err, NL_EFORMAT,
			     "%s: actions of %s, but line %llu says comm_size %lld: expected actions for every rank "
			     "0 .. %lld%s",
			     in_path, ranks, (unsigned long long)sc.comm_size_line, sc.comm_size, sc.comm_size - 1,
			     sg_actions_hint);
	}
	free(seen);
	NL_CHECK(rc);
	NL_CHECK(sg_decide(s, in_path, sc.hint_tag, sc.hint_untag));
	NL_CHECK(sg_setup(s, (uint32_t)maxr + 1, out_path, opts));
	s->hint = sg_actions_hint;
	rewind(f);
	NL_CHECK(sg_convert_file(s, f, -1));
	uint64_t empty = 0;
	for (uint32_t r = 0; r < s->n_ranks; r++)
		empty += trace_builder_rank_ops(s->b, r) == 0;
	if (empty && trace_skips_add(s->skips, "ranks without actions", "their streams are empty", empty))
		return nl_errf(s->err, NL_ENOMEM, "out of memory");
	return sg_finish(s, in_path);
}

static int sg_import(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
		     struct trace_skips *skips, trace_progress_fn progress, void *progress_ctx,
		     bool *is_unwritten, struct nl_err *err)
{
	struct simgrid_import s = {.err = err, .skips = skips, .tagged = -1, .progress = progress,
		       .progress_ctx = progress_ctx};
	FILE *f = fopen(in_path, "r");
	int rc;
	if (!f)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", in_path,
			       strerror(errno));
	if (first_line_fields(f) == 1)
		rc = import_index(&s, f, in_path, out_path, opts);
	else
		rc = import_actions(&s, f, in_path, out_path, opts, SIMGRID_MAX_RANKS);
	fclose(f);
	if (rc && is_unwritten && trace_builder_is_unwritten(s.b))
		*is_unwritten = true;
	sg_release(&s);
	return rc;
}

/* An index's actions files, rank by rank; an actions file reads no other. */
static int sg_files(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err)
{
	FILE *f = fopen(in_path, "r");
	if (!f)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", in_path,
			       strerror(errno));
	char **files = NULL;
	uint64_t *lines = NULL;
	size_t n = 0;
	int rc = first_line_fields(f) == 1 ? index_files(f, in_path, &files, &lines, &n, err) : 0;
	fclose(f);
	/* Those listed before an error too (trace_input_files). */
	int rc_each = 0;
	for (size_t r = 0; !rc_each && r < n; r++)
		rc_each = each(ctx, &(struct trace_input_file){files[r], (int64_t)r, "file"});
	for (size_t r = 0; r < n; r++)
		free(files[r]);
	free(files);
	free(lines);
	return rc_each ? rc_each : rc;
}

int trace_simgrid_import_mem(const uint8_t *data, size_t len, struct nl_err *err)
{
	struct trace_skips skips = {0};
	struct simgrid_import s = {.err = err, .skips = &skips, .tagged = -1};
	if (!len)
		return nl_errf(err, NL_EFORMAT, "(memory): empty");
	FILE *f = fmemopen((void *)data, len, "r");
	if (!f)
		return nl_errf(err, NL_ENOMEM, "fmemopen failed");
	/* Bounded so a fuzzed rank id cannot demand a huge allocation. */
	int rc = import_actions(&s, f, "(memory)", NULL, NULL, 4096);
	fclose(f);
	sg_release(&s);
	trace_skips_release(&skips);
	return rc;
}

/* An actions file starts "<int> <word>"; an index file lists one path per
 * line. Both are text, and neither contains '=' on its first line (DUMPI
 * .meta does). */
static int sg_probe(const char *path, const uint8_t *head, size_t n)
{
	char buf[512], *tok[sizeof buf / 2]; /* every field of buf: "0 send 1 0 8" is 5 */
	size_t i = 0, o = 0;
	(void)path;
	/* skip blank and comment lines */
	while (i < n) {
		size_t j = i;
		while (j < n && (head[j] == ' ' || head[j] == '\t' || head[j] == '\r'))
			j++;
		if (j < n && head[j] != '\n' && head[j] != '#')
			break;
		while (j < n && head[j] != '\n')
			j++;
		i = j + 1;
	}
	for (; i < n && head[i] != '\n' && o + 1 < sizeof buf; i++) {
		if (!head[i] || head[i] == '=')
			return 0;
		buf[o++] = (char)head[i];
	}
	/* Text up to there: a binary file (a netloom archive cut to a few
	 * bytes reads as one field, an index line) is no SimGrid trace. */
	if (!trace_is_text(head, i))
		return 0;
	buf[o] = '\0';
	int t = simgrid_tokenize(buf, tok, (int)(sizeof tok / sizeof *tok));
	long long rk;
	if (t == 1)
		return 1;
	if (t >= 2 && simgrid_parse_int(tok[0], 0, LLONG_MAX, &rk)) {
		for (const char *p = tok[1]; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
				return 0;
		return 1;
	}
	return 0;
}

const struct trace_importer_ops trace_import_simgrid_ops = {
	.name = "simgrid",
	.help = "SimGrid time-independent trace (actions file or index of per-rank files)",
	.probe = sg_probe,
	.import = sg_import,
	.files = sg_files,
};
