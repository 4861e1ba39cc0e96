/* Importer "dumpi": DUMPI traces (sst-dumpi; SST, CODES and the DOE
 * mini-app trace collections): a .meta text file plus one binary file per
 * rank, <fileprefix>-NNNN.bin (dumpi_format.c reads the records).
 *
 * Two passes. Pass 1 walks all ranks in lock step to learn who belongs to
 * every communicator the program created: DUMPI records each rank's view
 * (split color/key, the group given to create, cartesian dims) with local
 * handle numbers, so the k-th creating call on a communicator is matched
 * across its members and resolved as MPI defines it (split: by color, then
 * key, then old rank; create: the group's order; cart_create: the first
 * prod(dims) ranks, reorder ignored; cart_sub: row-major coordinates).
 * Pass 2 converts each rank's records to ops, one rank at a time.
 *
 * Times: wall clock when recorded (else CPU), relative to the rank's first
 * record; the gap between two converted calls becomes TOP_COMPUTE, so the
 * time of calls that have no op (MPI_Comm_rank, MPI_Wtime, ...) counts as
 * computation.
 *
 * Message sizes are count x datatype size. A datatype's size is, in order:
 * what its constructor in the trace gives (contiguous, vector, indexed,
 * struct, dup, resized, subarray, ... from the sizes of the types it was
 * built from, as defined at that point of the trace); else the trace's own
 * size table (MPI_Type_size taken when libdumpi first saw the handle);
 * else, for predefined types, their LP64 size. Peers: a negative
 * destination is MPI_PROC_NULL; a source of -1 is MPI_ANY_SOURCE (DUMPI's
 * mapping) and other negative sources are MPI_PROC_NULL. Ibsend and Irsend
 * become isend, Bsend_init/Ssend_init/Rsend_init become send_init.
 */
#include "traces/traces_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* --- driver ------------------------------------------------------------------------ */

static void dimp_release(struct dumpi_import *d)
{
	for (uint32_t r = 0; d->p1 && r < d->n_ranks; r++) {
		struct dumpi_p1_rank *p = &d->p1[r];
		dumpi_stream_release(&p->st);
		free(p->comm);
		for (uint32_t i = 0; i < p->n_grp; i++)
			dumpi_group_free(&p->grp[i]);
		free(p->grp);
		free(p->seq);
		free(p->res);
	}
	free(d->p1);
	for (size_t i = 0; i < d->n_bk; i++) {
		if (d->bk[i].parts) {
			uint32_t n = dumpi_gc_size(d, d->bk[i].parent);
			for (uint32_t j = 0; j < n; j++)
				dumpi_part_free(&d->bk[i].parts[j]);
			free(d->bk[i].parts);
		}
	}
	free(d->bk);
	for (uint32_t i = 0; i < d->n_gc; i++) {
		free(d->gc[i].members);
		free(d->gc[i].dims);
	}
	free(d->gc);
	free(d->c1);
	free(d->c2);
	free(d->reqs);
	trace_builder_free(d->b);
}

/* Run both passes over n_ranks mapped files; out_path NULL = check mode. */
static int dimp_run(struct dumpi_import *d, const char *out_path, const struct trace_write_opts *opts,
		    const char *machine, uint64_t start_unix, const char *default_app)
{
	uint32_t g;
	uint32_t *world = malloc(d->n_ranks * sizeof *world);
	if (!world)
		return dumpi_nomem(d);
	for (uint32_t r = 0; r < d->n_ranks; r++)
		world[r] = r;
	int rc = dumpi_new_gcomm(d, d->n_ranks, world, &g); /* 0: world */
	free(world);
	if (!rc)
		rc = dumpi_new_gcomm(d, 1, NULL, &g); /* 1: self (per rank) */
	if (rc)
		return rc;
	d->p1 = calloc(d->n_ranks, sizeof *d->p1);
	if (!d->p1)
		return dumpi_nomem(d);
	for (uint32_t r = 0; r < d->n_ranks; r++) {
		struct dumpi_p1_rank *p = &d->p1[r];
		p->bucket = -1;
		dumpi_init_comm_map(&p->comm, &p->n_comm);
		if (!p->comm)
			return dumpi_nomem(d);
		if (r >= d->n_files) {
			p->done = true;
			continue;
		}
		NL_CHECK(dumpi_stream_open(&p->st, d->map[r], d->len[r], d->paths[r], r, d->err));
		if (r == 0)
			memcpy(d->ver, p->st.ver, 3);
	}
	NL_CHECK(dumpi_pass1(d));
	NL_CHECK(trace_builder_new(&d->b, out_path, d->n_ranks, opts, d->err));
	for (uint32_t r = 0; r < d->n_ranks; r++) {
		NL_CHECK(r < d->n_files ? dumpi_pass2_rank(d, r) : trace_builder_end_rank(d->b, r, d->err));
		if (d->progress)
			d->progress(d->progress_ctx, (double)(r + 1) / d->n_ranks);
	}

	struct trace_comm *comms = calloc(d->n_gc, sizeof *comms);
	if (!comms)
		return dumpi_nomem(d);
	uint32_t nc = 0;
	for (uint32_t i = 2; i < d->n_gc; i++)
		comms[nc++] = (struct trace_comm){i, d->gc[i].size, d->gc[i].members};
	char rec[128];
	snprintf(rec, sizeof rec, "netloom-import-dumpi %s (DUMPI %u.%u.%u)", NETLOOM_VERSION, d->ver[0], d->ver[1],
		 d->ver[2]);
	struct trace_manifest m = {
		.n_ranks = d->n_ranks,
		.application = d->app[0] ? d->app : (char *)default_app,
		.command_line = d->cmd,
		.machine = (char *)machine,
		.recorder = rec,
		.mpi_library = "",
		.start_unix = start_unix,
		.recorded_runtime_s = d->runtime_s,
		.n_comms = nc,
		.comms = comms,
	};
	rc = trace_builder_finish(d->b, &m, d->err);
	free(comms);
	return rc;
}

/* The .meta file's keys (dumpi/libdumpi/init.c create_meta_file). */
struct meta {
	char *hostname, *fileprefix;
	long long numprocs;
	uint64_t startime;
};

static int read_meta(const char *path, struct meta *m, struct nl_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t ln = 0;
	int rc = 0;
	FILE *f = fopen(path, "r");
	memset(m, 0, sizeof *m);
	m->numprocs = -1;
	if (!f)
		return nl_errf(err, errno == ENOENT ? NL_ENOTFOUND : NL_EIO, "%s: cannot open: %s", path,
			       strerror(errno));
	while (!rc && getline(&line, &cap, f) >= 0) {
		ln++;
		char *key = trace_skip_bom(line, ln);
		key[strcspn(key, "\r\n")] = '\0';
		char *eq = strchr(key, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *v = eq + 1;
		char *end;
		if (!strcmp(key, "numprocs")) {
			errno = 0;
			m->numprocs = strtoll(v, &end, 10);
			if (errno || *end || m->numprocs <= 0 || m->numprocs > TRACE_REPLAY_MAX_RANKS) {
				char esc[128];
				rc = nl_errf(err, NL_EFORMAT, "%s:%llu: numprocs '%s': expected 1 .. %u", path,
					     (unsigned long long)ln, trace_escape(esc, sizeof esc, v),
					     TRACE_REPLAY_MAX_RANKS);
			}
		} else if (!strcmp(key, "fileprefix")) {
			free(m->fileprefix);
			m->fileprefix = trace_strdup(v);
		} else if (!strcmp(key, "hostname")) {
			free(m->hostname);
			m->hostname = trace_strdup(v);
		} else if (!strcmp(key, "startime")) {
			m->startime = strtoull(v, &end, 10);
		}
	}
	free(line);
	fclose(f);
	if (!rc && (m->numprocs <= 0 || !m->fileprefix || !m->fileprefix[0]))
		rc = nl_errf(err, NL_EFORMAT, "%s: expected 'numprocs=' and 'fileprefix=' lines (a DUMPI .meta file)",
			     path);
	return rc;
}

/* Rank r's file for a prefix and zero-padding width (metadata.cc: widths 4
 * .. 9 then none). */
static char *rank_file(const char *prefix, int width, uint32_t r)
{
	size_t n = strlen(prefix) + 32;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s-%0*u.bin", prefix, width, r);
	return p;
}

/* Whether rank r's file exists, as a file of any type: one that is not
 * regular (a directory, a FIFO) is found, then said to be what it is
 * (check_rank_files_regular), not as missing. */
static bool rank_file_exists(const char *prefix, int width, uint32_t r)
{
	struct stat st;
	char *p = rank_file(prefix, width, r);
	bool ok = p && !stat(p, &st);
	free(p);
	return ok;
}

/* How many of the n rank files exist. */
static uint32_t count_existing(const char *prefix, int width, uint32_t n)
{
	uint32_t have = 0;
	for (uint32_t r = 0; r < n; r++)
		have += rank_file_exists(prefix, width, r);
	return have;
}

/* Some of the rank files of one prefix and width exist, not all: name the
 * missing ones (the first 3 of them). */
static int missing_rank_files(const char *meta_path, const char *prefix, int width, uint32_t n, uint32_t have,
			      struct nl_err *err)
{
	char list[NL_ERR_MSG_MAX / 2];
	size_t o = 0;
	uint32_t listed = 0, first = 0;
	list[0] = '\0';
	for (uint32_t r = 0; r < n && listed < 3; r++) {
		if (rank_file_exists(prefix, width, r))
			continue;
		if (!listed)
			first = r;
		char *p = rank_file(prefix, width, r);
		if (!p)
			return nl_errf(err, NL_ENOMEM, "out of memory");
		char esc[256];
		int w = snprintf(list + o, sizeof list - o, "%s'%s'", listed ? ", " : "",
				 trace_escape(esc, sizeof esc, p));
		free(p);
		if (w < 0 || (size_t)w >= sizeof list - o)
			break;
		o += (size_t)w;
		listed++;
	}
	uint32_t missing = n - have;
	if (missing == 1)
		return nl_errf(err, NL_ENOTFOUND,
			       "%s: rank %u's file %s was not found (the other %u of the %u rank files are there)",
			       meta_path, first, list, have, n);
	return nl_errf(err, NL_ENOTFOUND, "%s: %u of the %u rank files were not found: %s%s", meta_path, missing, n,
		       list, missing > listed ? ", ..." : "");
}

/* The rank files found are regular files, which are mapped: a FIFO
 * (never opened here, as opening one waits for a writer), a directory or
 * a device of a rank file's name is an error naming it. */
static int check_rank_files_regular(const char *meta_path, char *const *paths, uint32_t n, struct nl_err *err)
{
	for (uint32_t r = 0; r < n; r++) {
		struct stat st;
		if (stat(paths[r], &st) != 0 || S_ISREG(st.st_mode))
			continue;
		char esc[256];
		trace_escape(esc, sizeof esc, paths[r]);
		if (S_ISDIR(st.st_mode))
			return nl_errf(err, NL_EIO, "%s: rank %u's file '%s' is a directory, not a DUMPI rank file",
				       meta_path, r, esc);
		return nl_errf(err, NL_EIO, "%s: rank %u's file '%s' is not a regular file (%s), not a DUMPI rank file",
			       meta_path, r, esc, nl_file_kind(st.st_mode));
	}
	return 0;
}

/* Find the rank files: the recorded prefix (absolute, or relative to the
 * .meta's directory, as sst-dumpi's metadata.cc does), else the prefix's
 * basename beside the .meta (archives moved from the recording machine). */
static int find_rank_files(const char *meta_path, const struct meta *m, char ***paths, struct nl_err *err)
{
	char *dir = trace_strdup(meta_path);
	if (!dir)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	const char *bn = strrchr(m->fileprefix, '/');
	bn = bn ? bn + 1 : m->fileprefix;
	size_t cap = strlen(dir) + strlen(m->fileprefix) + 2;
	char *cand[3] = {NULL, NULL, NULL};
	int nc = 0;
	if (m->fileprefix[0] == '/')
		cand[nc++] = trace_strdup(m->fileprefix);
	cand[nc] = malloc(cap);
	if (cand[nc])
		snprintf(cand[nc], cap, "%s/%s", dir, m->fileprefix);
	nc++;
	cand[nc] = malloc(cap);
	if (cand[nc])
		snprintf(cand[nc], cap, "%s/%s", dir, bn);
	nc++;
	free(dir);
	int rc = 0;
	char *found = NULL;
	int width = 4;
	/* The candidate and width with the most rank files, when some but not
	 * all are there: those are the files meant, and the error names the
	 * ones missing. Only a set whose rank 0, 1 or last file exists is
	 * counted (a full count for each of 30 sets would stat 30 x n files). */
	int part = -1, part_width = 4;
	uint32_t part_have = 0, n = (uint32_t)m->numprocs;
	for (int i = 0; i < nc && !found; i++) {
		if (!cand[i]) {
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
			break;
		}
		for (int k = 0; k < 10 && !found; k++) {
			int w = (4 + k) % 10;
			if (!rank_file_exists(cand[i], w, 0) && (n < 2 || !rank_file_exists(cand[i], w, 1)) &&
			    !rank_file_exists(cand[i], w, n - 1))
				continue;
			uint32_t have = count_existing(cand[i], w, n);
			if (have == n) {
				found = cand[i];
				width = w;
			} else if (have > part_have) {
				part = i;
				part_width = w;
				part_have = have;
			}
		}
	}
	if (!rc && !found && part >= 0) {
		rc = missing_rank_files(meta_path, cand[part], part_width, n, part_have, err);
	} else if (!rc && !found) {
		char *p = rank_file(cand[nc - 1], 4, 0);
		char esc[256], esc_p[256];
		rc = nl_errf(err, NL_ENOTFOUND,
			     "%s: the %lld rank files of fileprefix '%s' were not found (tried the recorded path and "
			     "'%s' beside the .meta)",
			     meta_path, m->numprocs, trace_escape(esc, sizeof esc, m->fileprefix),
			     trace_escape(esc_p, sizeof esc_p, p ? p : bn));
		free(p);
	}
	if (!rc) {
		*paths = calloc((size_t)m->numprocs, sizeof **paths);
		if (!*paths)
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
		for (uint32_t r = 0; !rc && r < (uint32_t)m->numprocs; r++)
			if (!((*paths)[r] = rank_file(found, width, r)))
				rc = nl_errf(err, NL_ENOMEM, "out of memory");
		if (!rc)
			rc = check_rank_files_regular(meta_path, *paths, (uint32_t)m->numprocs, err);
		for (uint32_t r = 0; rc && *paths && r < (uint32_t)m->numprocs; r++)
			free((*paths)[r]);
		if (rc) {
			free(*paths);
			*paths = NULL;
		}
	}
	for (int i = 0; i < nc; i++)
		free(cand[i]);
	return rc;
}

/* Rank n's file, beside rank 0's (paths[0], "PREFIX-0000.bin" or
 * "PREFIX-0.bin"), when it exists; NULL otherwise. A peer past the world's
 * size then says that numprocs is short of the trace's ranks, not that the
 * rank file is damaged. */
static char *next_rank_file(const char *rank0, uint32_t n)
{
	const char *dash = strrchr(rank0, '-');
	if (!dash)
		return NULL;
	size_t digits = strspn(dash + 1, "0");
	char *prefix = malloc((size_t)(dash - rank0) + 1);
	if (!prefix)
		return NULL;
	memcpy(prefix, rank0, (size_t)(dash - rank0));
	prefix[dash - rank0] = '\0';
	int width = digits > 1 ? (int)digits : 0;
	char *p = rank_file_exists(prefix, width, n) ? rank_file(prefix, width, n) : NULL;
	free(prefix);
	return p;
}

static int map_file(const char *path, uint8_t **map, size_t *len, struct nl_err *err)
{
	struct stat st;
	int fd = trace_open_regular(path, "DUMPI rank file", &st, err);
	if (fd < 0)
		return fd;
	if (st.st_size == 0) {
		close(fd);
		return nl_errf(err, NL_EFORMAT, "%s: empty or unreadable", path);
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return nl_errf(err, NL_EIO, "%s: cannot map: %s", path, strerror(errno));
	*map = p;
	*len = (size_t)st.st_size;
	return 0;
}

static int dumpi_import(const char *in_path, const char *out_path, const struct trace_write_opts *opts,
			struct trace_skips *skips, trace_progress_fn progress, void *progress_ctx,
			bool *is_unwritten, struct nl_err *err)
{
	struct meta m;
	struct dumpi_import d = {.in = in_path, .skips = skips, .err = err, .progress = progress,
				 .progress_ctx = progress_ctx};
	int rc = read_meta(in_path, &m, err);
	if (!rc)
		rc = find_rank_files(in_path, &m, &d.paths, err);
	if (!rc) {
		d.n_ranks = d.n_files = (uint32_t)m.numprocs;
		d.map = calloc(d.n_ranks, sizeof *d.map);
		d.len = calloc(d.n_ranks, sizeof *d.len);
		if (!d.map || !d.len)
			rc = nl_errf(err, NL_ENOMEM, "out of memory");
	}
	for (uint32_t r = 0; !rc && r < d.n_ranks; r++)
		rc = map_file(d.paths[r], &d.map[r], &d.len[r], err);
	if (!rc) {
		char app[256];
		const char *bn = strrchr(in_path, '/');
		snprintf(app, sizeof app, "%s", bn ? bn + 1 : in_path);
		char *dot = strrchr(app, '.');
		if (dot && dot != app)
			*dot = '\0';
		rc = dimp_run(&d, out_path, opts, m.hostname ? m.hostname : "", m.startime, app);
	}
	char *extra = rc && d.is_peer_outside ? next_rank_file(d.paths[0], d.n_ranks) : NULL;
	if (extra) {
		char esc[256];
		nl_err_prefix(err, "%s: numprocs=%u, though rank file '%s' exists: fewer than the trace has ranks",
			      in_path, d.n_ranks, trace_escape(esc, sizeof esc, extra));
		free(extra);
	}
	if (rc && is_unwritten && trace_builder_is_unwritten(d.b))
		*is_unwritten = true;
	dimp_release(&d);
	for (uint32_t r = 0; d.paths && r < d.n_ranks; r++) {
		if (d.map && d.map[r])
			munmap(d.map[r], d.len[r]);
		free(d.paths[r]);
	}
	free(d.paths);
	free(d.map);
	free(d.len);
	free(m.hostname);
	free(m.fileprefix);
	return rc;
}

/* The rank files, found as dumpi_import finds them. */
static int dumpi_files(const char *in_path, trace_input_file_fn each, void *ctx, struct nl_err *err)
{
	struct meta m;
	char **paths = NULL;
	int rc = read_meta(in_path, &m, err);
	if (!rc)
		rc = find_rank_files(in_path, &m, &paths, err);
	for (uint32_t r = 0; !rc && r < (uint32_t)m.numprocs; r++)
		rc = each(ctx, &(struct trace_input_file){paths[r], r, "file"});
	for (uint32_t r = 0; paths && r < (uint32_t)m.numprocs; r++)
		free(paths[r]);
	free(paths);
	free(m.hostname);
	free(m.fileprefix);
	return rc;
}

int trace_dumpi_import_mem(const uint8_t *data, size_t len, struct nl_err *err)
{
	/* One rank's file, as rank 0 of a 16-rank job (peers up to 15 are
	 * valid; the other ranks have no records). */
	return trace_dumpi_import_mem_ranks(data, len, 16, err);
}

int trace_dumpi_import_mem_ranks(const uint8_t *data, size_t len, uint32_t n_ranks, struct nl_err *err)
{
	struct trace_skips skips = {0};
	char *path = "(memory)";
	uint8_t *map = (uint8_t *)data;
	if (n_ranks < 1 || n_ranks > 16)
		NL_BUG("trace_dumpi_import_mem_ranks: %u ranks", n_ranks);
	struct dumpi_import d = {.in = "(memory)", .skips = &skips, .err = err, .n_ranks = n_ranks, .n_files = 1,
			 .paths = &path, .map = &map, .len = &len};
	int rc = dimp_run(&d, NULL, NULL, "", 0, "memory");
	dimp_release(&d);
	trace_skips_release(&skips);
	return rc;
}

/* A .meta file: text key=value lines naming numprocs and fileprefix. */
static int dumpi_probe(const char *path, const uint8_t *head, size_t n)
{
	(void)path;
	bool procs = false, prefix = false;
	for (size_t i = 0; i < n; i++) {
		if (!head[i])
			return 0;
		if (i == 0 || head[i - 1] == '\n') {
			if (n - i >= 9 && !memcmp(head + i, "numprocs=", 9))
				procs = true;
			if (n - i >= 11 && !memcmp(head + i, "fileprefix=", 11))
				prefix = true;
		}
	}
	return procs && prefix;
}

const struct trace_importer_ops trace_import_dumpi_ops = {
	.name = "dumpi",
	.help = "DUMPI trace: the .meta file, rank files <fileprefix>-NNNN.bin beside it",
	.probe = dumpi_probe,
	.import = dumpi_import,
	.files = dumpi_files,
};
