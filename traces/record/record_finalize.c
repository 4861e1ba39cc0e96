/* netloom-record at MPI_Finalize: gather what the manifest needs to rank 0,
 * which assembles the archive.
 *
 * All traffic runs on the recorder's private communicator, after the
 * program's last call, in a fixed order every rank follows whatever its
 * own state: a summary (status, stream op count/bytes/hash, runtime,
 * unsupported-call counts) from every rank, the stream paths, and the
 * communicator tables (each communicator sent once, by its lowest world
 * rank). Stream files rank 0 cannot open (ranks on other hosts without a
 * shared file system) are shipped to it over MPI. Only then does rank 0
 * write the archive; every rank removes its own stream file afterwards,
 * whether or not the archive was written.
 */
#include "traces/record/record_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REC_XFER_CHUNK (1 << 20) /* bytes per message when shipping a stream file */
#define REC_TAG_XFER 7001

struct rec_summary {
	uint64_t is_ok;
	uint64_t n_ops, n_bytes, hash;
	double runtime_s;
	uint64_t path_len;    /* bytes of the stream path, NUL included */
	uint64_t n_comm_words; /* uint32 words of communicator records */
	uint64_t n_folded;     /* polls folded into compute (NETLOOM_TRACE_POLLS=fold) */
	uint64_t unsup[REC_UNSUP__COUNT];
};

/* [id, size, world ranks...] for each communicator this rank is the
 * lowest member of (world and self are implicit). */
static uint32_t *rec_comm_records(size_t *n_words)
{
	size_t n = 0, k = 0;
	uint32_t *v;

	for (size_t i = 0; i < rec_comm_count(); i++) {
		const struct rec_comm *e = rec_comm_at(i);
		n += e->id > TRACE_COMM_SELF && e->id != REC_COMM_NONE ? 2 + e->size : 0;
	}
	v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < rec_comm_count(); i++) {
		const struct rec_comm *e = rec_comm_at(i);
		if (e->id <= TRACE_COMM_SELF || e->id == REC_COMM_NONE ||
		    (int)rec_comm_lowest(e) != rec_world_rank())
			continue;
		v[k++] = e->id;
		v[k++] = e->size;
		memcpy(v + k, e->world_ranks, e->size * sizeof *v);
		k += e->size;
	}
	*n_words = k;
	return v;
}

static int rec_cmp_comm(const void *a, const void *b)
{
	const struct trace_comm *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Rank 0: the manifest's communicator table from the gathered records
 * (world and self are implicit in the archive). Returns the count, or -1
 * on a collision or allocation failure (one line printed). */
static int rec_build_comms(const uint32_t *words, size_t n_words, struct trace_comm **out)
{
	size_t n = 0, k = 0;
	struct trace_comm *v;

	for (size_t i = 0; i + 1 < n_words; i += 2 + words[i + 1])
		n++;
	v = calloc(n ? n : 1, sizeof *v);
	if (!v) {
		fprintf(stderr, REC_NAME ": no trace written: out of memory\n");
		return -1;
	}
	for (size_t i = 0; i + 1 < n_words; i += 2 + words[i + 1]) {
		v[k].id = words[i];
		v[k].size = words[i + 1];
		v[k].world_ranks = (uint32_t *)(words + i + 2); /* the manifest only reads them */
		k++;
	}
	qsort(v, k, sizeof *v, rec_cmp_comm);
	for (size_t i = 1; i < k; i++) {
		if (v[i].id == v[i - 1].id) {
			fprintf(stderr,
				REC_NAME ": no trace written: communicator id collision (%" PRIu32 ")\n",
				v[i].id);
			free(v);
			return -1;
		}
	}
	*out = v;
	return (int)k;
}

/* Ship this rank's stream file to rank 0 (which cannot see it). */
static void rec_xfer_send(const char *path, MPI_Comm priv)
{
	uint64_t size = 0;
	char *buf = malloc(REC_XFER_CHUNK);
	FILE *f = fopen(path, "rb");

	if (f && fseek(f, 0, SEEK_END) == 0) {
		long end = ftell(f);
		size = end > 0 ? (uint64_t)end : 0;
		rewind(f);
	}
	if (!f || !buf)
		size = UINT64_MAX; /* tells rank 0 the file is unreadable */
	PMPI_Send(&size, 1, MPI_UINT64_T, 0, REC_TAG_XFER, priv);
	for (uint64_t done = 0; size != UINT64_MAX && done < size;) {
		size_t n = size - done < REC_XFER_CHUNK ? (size_t)(size - done) : REC_XFER_CHUNK;
		size_t got = fread(buf, 1, n, f);
		if (got != n)
			memset(buf + got, 0, n - got); /* the hash check will catch it */
		PMPI_Send(buf, (int)n, MPI_BYTE, 0, REC_TAG_XFER, priv);
		done += n;
	}
	if (f)
		fclose(f);
	free(buf);
}

/* Rank 0: receive rank r's stream into f, which it closes (NULL: the
 * messages received all the same, and nothing kept); 0 or -1. */
static int rec_xfer_recv(int r, FILE *f, MPI_Comm priv)
{
	uint64_t size = 0;
	char *buf = malloc(REC_XFER_CHUNK);
	int rc = 0;

	PMPI_Recv(&size, 1, MPI_UINT64_T, r, REC_TAG_XFER, priv, MPI_STATUS_IGNORE);
	if (size == UINT64_MAX)
		rc = -1;
	for (uint64_t done = 0; size != UINT64_MAX && done < size;) {
		int n = size - done < REC_XFER_CHUNK ? (int)(size - done) : REC_XFER_CHUNK;
		if (buf) {
			PMPI_Recv(buf, n, MPI_BYTE, r, REC_TAG_XFER, priv, MPI_STATUS_IGNORE);
			if (f && fwrite(buf, 1, (size_t)n, f) != (size_t)n)
				rc = -1;
		} else {
			char c;
			PMPI_Recv(&c, 0, MPI_BYTE, r, REC_TAG_XFER, priv, MPI_STATUS_IGNORE);
			rc = -1;
		}
		done += (uint64_t)n;
	}
	if (!f || fclose(f) != 0 || !buf)
		rc = -1;
	free(buf);
	return rc;
}

static void rec_report_unsupported(const struct rec_summary *s, int n)
{
	char line[2048];
	size_t len = 0;

	for (int u = 0; u < REC_UNSUP__COUNT; u++) {
		uint64_t total = 0;
		int n_ranks = 0;
		for (int r = 0; r < n; r++) {
			total += s[r].unsup[u];
			n_ranks += s[r].unsup[u] > 0;
		}
		if (total && len < sizeof line)
			len += (size_t)snprintf(line + len, sizeof line - len,
						"%s%s x%" PRIu64 " on %d rank%s", len ? "; " : "",
						rec_unsupported_text((enum rec_unsup)u), total,
						n_ranks, n_ranks == 1 ? "" : "s");
	}
	if (len)
		fprintf(stderr, REC_NAME ": not recorded (their time counts as compute): %s\n",
			line);
}

static void rec_report_folded(const struct rec_summary *s, int n)
{
	uint64_t total = 0;

	for (int r = 0; r < n; r++)
		total += s[r].n_folded;
	if (total)
		fprintf(stderr,
			REC_NAME ": %" PRIu64 " repeated unsuccessful polls folded into compute time "
				 "(NETLOOM_TRACE_POLLS=fold)\n",
			total);
}

/* Rank 0's part once everything is gathered; returns 0 when the archive
 * was written. */
static int rec_assemble(struct rec_run *run, const struct rec_summary *s, char **paths,
			const uint32_t *words, size_t n_words, bool *is_xfer)
{
	struct trace_manifest m = {0};
	struct trace_comm *comms = NULL;
	uint64_t *per_rank = NULL;
	int n = run->size, n_comms, rc = -1;
	uint64_t total_ops = 0;

	for (int r = 0; r < n; r++) {
		if (!s[r].is_ok) {
			fprintf(stderr,
				REC_NAME ": no trace written: rank %d stopped recording "
				"(see its message above)\n",
				r);
			return -1;
		}
	}
	for (int r = 0; r < n; r++) {
		if (is_xfer[r] && !paths[r][0]) {
			fprintf(stderr, REC_NAME ": no trace written: cannot fetch rank %d's stream\n",
				r);
			return -1;
		}
	}
	n_comms = rec_build_comms(words, n_words, &comms);
	if (n_comms < 0)
		return -1;
	per_rank = malloc(3 * (size_t)n * sizeof *per_rank);
	if (!per_rank) {
		fprintf(stderr, REC_NAME ": no trace written: out of memory\n");
		goto out;
	}
	m.format_version = TRACE_FORMAT_VERSION;
	m.n_ranks = (uint32_t)n;
	m.application = (char *)run->application;
	m.command_line = (char *)run->command_line;
	m.machine = (char *)run->machine;
	m.recorder = (char *)rec_version();
	m.mpi_library = (char *)run->mpi_library;
	m.start_unix = run->start_unix;
	m.has_host_info = true;
	m.hosts = run->hosts;
	m.ranks_per_host = run->ranks_per_host;
	m.cores_per_host = run->cores_per_host;
	m.has_compute_cpu = run->has_compute_cpu;
	m.n_comms = (uint32_t)n_comms;
	m.comms = comms;
	m.rank_ops = per_rank;
	m.rank_bytes = per_rank + n;
	m.rank_hash = per_rank + 2 * n;
	for (int r = 0; r < n; r++) {
		m.rank_ops[r] = s[r].n_ops;
		m.rank_bytes[r] = s[r].n_bytes;
		m.rank_hash[r] = s[r].hash;
		total_ops += s[r].n_ops;
		if (s[r].runtime_s > m.recorded_runtime_s)
			m.recorded_runtime_s = s[r].runtime_s;
	}
	if (rec_sink_archive(run->out_path, &m, (const char *const *)paths) < 0) {
		rec_say("no trace written: %s", rec_sink_error());
		goto out;
	}
	if (!rec.is_quiet)
		rec_say("wrote %s (%d rank%s, %" PRIu64 " op%s, %.3f s recorded)", run->out_shown, n,
			n == 1 ? "" : "s", total_ops, total_ops == 1 ? "" : "s", m.recorded_runtime_s);
	rc = 0;
out:
	free(per_rank);
	free(comms);
	return rc;
}

/* Rank 0's side of the gathers. */
struct rec_gather {
	struct rec_summary *all;           /* [n] */
	int *lens, *displs, *wcounts, *wdispls; /* [n] Gatherv layouts */
	char **paths;                      /* [n] stream path rank 0 reads */
	char **xfer;                       /* [n] local copy of a shipped stream, or NULL */
	bool *is_xfer;                     /* [n] */
	char *pathbuf;                     /* gathered stream paths */
	uint32_t *words;                   /* gathered communicator records */
	size_t n_words;
};

static void rec_gather_release(struct rec_gather *g, int n)
{
	for (int r = 0; g->xfer && r < n; r++) {
		if (g->xfer[r])
			unlink(g->xfer[r]);
		free(g->xfer[r]);
	}
	free(g->all);
	free(g->lens);
	free(g->displs);
	free(g->wcounts);
	free(g->wdispls);
	free(g->paths);
	free(g->xfer);
	free(g->is_xfer);
	free(g->pathbuf);
	free(g->words);
}

/* Rank 0: a stream it cannot read is shipped to it and read from a copy
 * beside the archive, DIR/.NAME.<run>.r<rank>.xfer: hidden, as the
 * streams, and named with the run's tag, so two recordings finishing in
 * one folder at once (or one killed there before) do not share a copy.
 * Made with O_EXCL: a file already there is not the run's, and is left
 * as it is (the stream is then not fetched, said once here). */
static void rec_fetch_stream(struct rec_run *run, struct rec_gather *g, int r)
{
	const char *slash = strrchr(run->out_path, '/'); /* absolute: one is there */
	size_t len = strlen(run->out_path) + strlen(run->run_tag) + 32;
	char *p = malloc(len);
	int fd = -1, e = ENOMEM;
	FILE *f = NULL;

	g->is_xfer[r] = true;
	if (p && slash) {
		snprintf(p, len, "%.*s/.%s.%s.r%d.xfer", (int)(slash - run->out_path), run->out_path, slash + 1,
			 run->run_tag, r);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		e = errno;
	}
	if (fd >= 0 && !(f = fdopen(fd, "wb"))) {
		e = errno;
		close(fd);
		unlink(p);
		fd = -1;
	}
	if (fd < 0)
		rec_say("cannot create '%s' for rank %d's stream: %s", p && slash ? p : run->out_path, r, strerror(e));
	if (rec_xfer_recv(r, f, run->priv) == 0 && f) {
		g->xfer[r] = p;
	} else {
		if (f)
			unlink(p);
		free(p);
	}
	g->paths[r] = g->xfer[r] ? g->xfer[r] : (char *)"";
}

void rec_finalize_assemble(struct rec_run *run)
{
	struct rec_summary mine = {0};
	struct rec_gather g = {0};
	int n = run->size, me = run->rank, go = 1, status = -1;
	size_t n_words = 0, total_path = 0;
	uint32_t *words = rec_comm_records(&n_words);

	mine.is_ok = run->is_ok && words != NULL;
	mine.n_ops = run->n_ops;
	mine.n_bytes = run->n_bytes;
	mine.hash = run->hash;
	mine.runtime_s = run->runtime_s;
	mine.path_len = strlen(run->stream_path) + 1;
	mine.n_comm_words = words ? n_words : 0;
	mine.n_folded = rec_folded_count();
	for (int u = 0; u < REC_UNSUP__COUNT; u++)
		mine.unsup[u] = rec_unsupported_count((enum rec_unsup)u);

	/* Every rank follows the same sequence of collectives whatever its
	 * own state; rank 0 says with `go` whether the next step happens. */
	if (me == 0) {
		g.all = calloc((size_t)n, sizeof *g.all);
		g.lens = calloc((size_t)n, sizeof *g.lens);
		g.displs = calloc((size_t)n, sizeof *g.displs);
		g.wcounts = calloc((size_t)n, sizeof *g.wcounts);
		g.wdispls = calloc((size_t)n, sizeof *g.wdispls);
		g.paths = calloc((size_t)n, sizeof *g.paths);
		g.xfer = calloc((size_t)n, sizeof *g.xfer);
		g.is_xfer = calloc((size_t)n, sizeof *g.is_xfer);
		go = g.all && g.lens && g.displs && g.wcounts && g.wdispls && g.paths && g.xfer &&
		     g.is_xfer;
	}
	PMPI_Bcast(&go, 1, MPI_INT, 0, run->priv);
	if (!go)
		goto out;
	PMPI_Gather(&mine, sizeof mine, MPI_BYTE, g.all, sizeof mine, MPI_BYTE, 0, run->priv);
	if (me == 0) {
		for (int r = 0; r < n; r++) {
			g.lens[r] = (int)g.all[r].path_len;
			g.displs[r] = (int)total_path;
			total_path += g.all[r].path_len;
			g.wcounts[r] = (int)g.all[r].n_comm_words;
			g.wdispls[r] = (int)g.n_words;
			g.n_words += g.all[r].n_comm_words;
		}
		g.pathbuf = malloc(total_path);
		g.words = malloc((g.n_words ? g.n_words : 1) * sizeof *g.words);
		go = g.pathbuf && g.words;
	}
	PMPI_Bcast(&go, 1, MPI_INT, 0, run->priv);
	if (!go)
		goto out;
	PMPI_Gatherv(run->stream_path, (int)mine.path_len, MPI_CHAR, g.pathbuf, g.lens, g.displs,
		     MPI_CHAR, 0, run->priv);
	PMPI_Gatherv(words, (int)mine.n_comm_words, MPI_UINT32_T, g.words, g.wcounts, g.wdispls,
		     MPI_UINT32_T, 0, run->priv);
	/* One rank at a time: rank 0 says whether it needs the stream shipped. */
	for (int r = 0; r < n; r++) {
		int is_missing = 0;
		if (me == 0) {
			g.paths[r] = g.pathbuf + g.displs[r];
			is_missing = g.all[r].is_ok && r > 0 &&
				     (access(g.paths[r], R_OK) != 0 ||
				      getenv("NETLOOM_TRACE_FORCE_TRANSFER"));
		}
		PMPI_Bcast(&is_missing, 1, MPI_INT, 0, run->priv);
		if (!is_missing)
			continue;
		if (me == r)
			rec_xfer_send(run->stream_path, run->priv);
		else if (me == 0)
			rec_fetch_stream(run, &g, r);
	}
	if (me == 0) {
		rec_report_unsupported(g.all, n);
		rec_report_folded(g.all, n);
		status = rec_assemble(run, g.all, g.paths, g.words, g.n_words, g.is_xfer);
	}
out:
	if (!go && me == 0)
		fprintf(stderr, REC_NAME ": no trace written: out of memory at MPI_Finalize\n");
	/* Stream files go whatever happened; rank 0 has read them by now. */
	PMPI_Bcast(&status, 1, MPI_INT, 0, run->priv);
	unlink(run->stream_path);
	if (me == 0)
		rec_gather_release(&g, n);
	free(words);
}
