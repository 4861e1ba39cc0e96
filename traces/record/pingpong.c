/* netloom-pingpong: latency and bandwidth of the MPI transport between the
 * ranks of one machine (Open MPI's shared-memory BTL, vader), printed as
 * JSON on rank 0's stdout, to configure replay as "the recording machine's
 * network" (docs/recorder.md, "Calibration").
 *
 * Ranks pair up (r, r + n/2) and all pairs ping-pong at once, so a run with
 * as many ranks as a recorded sample measures the transport under the same
 * load (oversubscription included). For each size, `reps` batches of
 * `iters` round trips are timed; a batch's one-way time is its mean round
 * trip / 2. The figure reported is the fastest batch over all pairs (the
 * transport itself: on a shared machine, slower batches measure the other
 * programs' load), with the median beside it. The model fitted to the
 * fastest batches is the analytical backend's: one_way(s) = L + s / B,
 * with L the one-way time of a 0-byte message and B the inverse
 * least-squares slope over the sizes from --fit-min up (beyond the
 * eager/rendezvous switch, where the line is straight).
 *
 * Then the same sizes are exchanged: both ranks of a pair MPI_Sendrecv at
 * once, and a batch's time per exchange is the one-way time of a message
 * that meets one going the other way ("exchange" in the JSON). On shared
 * memory the two copies compete for the memory system, so this is slower
 * than the ping-pong's one-way time for large messages; the analytical
 * backend uses it for messages sent while their endpoints carry traffic
 * the other way (docs/replay.md).
 */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define PP_TAG 17
#define PP_MAX_BYTES_MAX (1L << 30) /* --max-bytes: sizes are int counts of MPI_BYTE */
#define PP_ITERS_MAX 10000000L
#define PP_REPS_MAX 1000L

struct pp_opts {
	long min_bytes, max_bytes; /* sizes: 0, then min_bytes .. max_bytes by x2 */
	int iters;                 /* round trips per batch (scaled down for big sizes) */
	int reps;                  /* batches per size */
	long fit_min;              /* smallest size in the bandwidth fit */
};

static int pp_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The usage text, asked for (--help): on stdout, exit status 0. */
static void pp_usage(int rank)
{
	if (rank == 0)
		printf("usage: netloom-pingpong [--max-bytes N] [--iters N] [--reps N] "
				"[--fit-min N]\n"
				"  --max-bytes N  largest message, 1 .. 1073741824 (1 GiB), default 4194304\n"
				"  --iters N      round trips per batch, 1 .. 10000000, default 1000\n"
				"  --reps N       batches per size, 1 .. 1000, default 7\n"
				"  --fit-min N    smallest size in the bandwidth fit, default 65536\n"
				"  run with an even number of ranks >= 2 (mpirun -np 2 ...)\n");
}

/* A command line it cannot run: one line from rank 0, exit status 2. */
__attribute__((format(printf, 2, 3))) static int pp_refuse(int rank, const char *fmt, ...)
{
	va_list ap;

	if (rank != 0)
		return 2;
	/* The line quotes command-line words, which may hold a newline
	 * (--iters $'1\n2' printed two lines): escaped as netloom's messages
	 * are (nl_str_one_line). */
	char line[1024], out[4 * sizeof line];
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	nl_str_one_line(out, sizeof out, line);
	fprintf(stderr, "netloom-pingpong: %s\n", out);
	return 2;
}

/* The largest value option opt takes, or 0 for an unknown option. */
static long pp_max(const char *opt)
{
	return !strcmp(opt, "--max-bytes") ? PP_MAX_BYTES_MAX
	       : !strcmp(opt, "--iters")   ? PP_ITERS_MAX
	       : !strcmp(opt, "--reps")    ? PP_REPS_MAX
	       : !strcmp(opt, "--fit-min") ? LONG_MAX
					   : 0;
}

/* The options (argv), into *o: 0, -1 when --help was asked and said, or
 * 2 with one line said by rank 0. */
static int pp_parse(int argc, char **argv, struct pp_opts *o, int rank)
{
	*o = (struct pp_opts){.min_bytes = 1, .max_bytes = 4L << 20, .iters = 1000, .reps = 7,
			      .fit_min = 64L << 10};
	for (int i = 1; i < argc; i += 2) { /* option, value */
		long max = pp_max(argv[i]), v;
		char *end = NULL;
		char range[64] = "an integer >= 1";
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			pp_usage(rank);
			return -1;
		}
		if (argv[i][0] != '-')
			return pp_refuse(rank, "unexpected argument '%s'; expected options only (see --help)", argv[i]);
		if (!max)
			return pp_refuse(rank,
					 "unknown option '%s'; expected --max-bytes, --iters, --reps or --fit-min "
					 "(see --help)",
					 argv[i]);
		if (max != LONG_MAX)
			snprintf(range, sizeof range, "an integer from 1 to %ld", max);
		if (i + 1 >= argc)
			return pp_refuse(rank, "%s: missing value; expected %s", argv[i], range);
		errno = 0;
		v = strtol(argv[i + 1], &end, 10);
		if (errno || !end || *end || v < 1 || v > max)
			return pp_refuse(rank, "%s: value '%s': expected %s", argv[i], argv[i + 1], range);
		if (!strcmp(argv[i], "--max-bytes"))
			o->max_bytes = v;
		else if (!strcmp(argv[i], "--iters"))
			o->iters = (int)v;
		else if (!strcmp(argv[i], "--reps"))
			o->reps = (int)v;
		else
			o->fit_min = v;
	}
	return 0;
}

/* One batch of simultaneous exchanges; returns the time per exchange in s. */
static double pp_exchange_batch(char *buf, char *rbuf, long bytes, int iters, int peer)
{
	double t0;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++)
		MPI_Sendrecv(buf, (int)bytes, MPI_BYTE, peer, PP_TAG, rbuf, (int)bytes, MPI_BYTE, peer,
			     PP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	return (MPI_Wtime() - t0) / iters;
}

/* One batch of round trips; returns the one-way time in s. */
static double pp_batch(char *buf, long bytes, int iters, int peer, int is_pinger)
{
	double t0;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		if (is_pinger) {
			MPI_Send(buf, (int)bytes, MPI_BYTE, peer, PP_TAG, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, PP_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, PP_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, (int)bytes, MPI_BYTE, peer, PP_TAG, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / (2.0 * iters);
}

/* Fastest and median of size k's batches over all pairs; `all` holds each
 * rank's `per_rank` doubles, size k's batches of a table at `off + k * reps`. */
static void pp_summarize(const double *all, double *v, int half, int per_rank, int off, int k,
			 int reps, double *fastest, double *median)
{
	int m = half * reps;

	for (int p = 0; p < half; p++)
		memcpy(v + p * reps, all + (size_t)p * per_rank + off + k * reps, (size_t)reps * sizeof *v);
	qsort(v, (size_t)m, sizeof *v, pp_cmp_double);
	*fastest = v[0];
	*median = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

int main(int argc, char **argv)
{
	struct pp_opts o;
	int rank, n, rc, n_sizes = 1;
	long sizes[64];
	double *mine, *all = NULL, *v = NULL;
	char *buf, *rbuf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	rc = pp_parse(argc, argv, &o, rank);
	if (!rc && (n < 2 || n % 2))
		rc = pp_refuse(rank,
			       "%d rank%s: expected an even number of ranks, 2 or more (ranks pair up: "
			       "mpirun -np 2 ...)",
			       n, n == 1 ? "" : "s");
	if (rc) {
		MPI_Finalize();
		return rc < 0 ? 0 : rc;
	}
	sizes[0] = 0;
	for (long s = o.min_bytes; s <= o.max_bytes && n_sizes < 64; s *= 2)
		sizes[n_sizes++] = s;

	/* Per rank: the ping-pong table, then the exchange table. */
	int per_rank = 2 * n_sizes * o.reps, half = n / 2;
	buf = calloc((size_t)o.max_bytes, 1);
	rbuf = calloc((size_t)o.max_bytes, 1);
	mine = calloc((size_t)per_rank, sizeof *mine);
	if (rank == 0) {
		all = calloc((size_t)per_rank * n, sizeof *all);
		v = calloc((size_t)half * o.reps, sizeof *v);
	}
	if (!buf || !rbuf || !mine || (rank == 0 && (!all || !v))) {
		fprintf(stderr, "netloom-pingpong: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	int peer = rank < half ? rank + half : rank - half;
	for (int x = 0; x < 2; x++) {
		for (int k = 0; k < n_sizes; k++) {
			/* Keep each batch's volume near iters x 64 KiB for large sizes. */
			long iters = o.iters;
			if (sizes[k] > (64L << 10))
				iters = o.iters * (64L << 10) / sizes[k];
			if (iters < 10)
				iters = 10;
			double *out = mine + x * n_sizes * o.reps + k * o.reps;
			if (x == 0) {
				pp_batch(buf, sizes[k], (int)(iters / 10 + 1), peer, rank < half); /* warm-up */
				for (int r = 0; r < o.reps; r++)
					out[r] = pp_batch(buf, sizes[k], (int)iters, peer, rank < half);
			} else {
				pp_exchange_batch(buf, rbuf, sizes[k], (int)(iters / 10 + 1), peer);
				for (int r = 0; r < o.reps; r++)
					out[r] = pp_exchange_batch(buf, rbuf, sizes[k], (int)iters, peer);
			}
		}
	}
	/* Only the pingers' timings count (the pongers' are the same round trips
	 * and exchanges). */
	MPI_Gather(mine, per_rank, MPI_DOUBLE, all, per_rank, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0, bw = 0, lat = 0, fast, med;
		int nf = 0;
		char host[256] = "unknown";

		for (int k = 0; k < n_sizes; k++) {
			pp_summarize(all, v, half, per_rank, 0, k, o.reps, &fast, &med);
			if (k == 0)
				lat = fast;
			if (sizes[k] >= o.fit_min) {
				sx += (double)sizes[k];
				sy += fast;
				sxx += (double)sizes[k] * (double)sizes[k];
				sxy += (double)sizes[k] * fast;
				nf++;
			}
		}
		if (nf >= 2 && nf * sxx - sx * sx > 0) {
			double slope = (nf * sxy - sx * sy) / (nf * sxx - sx * sx);
			bw = slope > 0 ? 1.0 / slope : 0;
		}
		/* bandwidth_Bps 0 means "no fit": said, as a 0 in the file read
		 * like a measured figure (replay then uses the table alone). */
		if (bw == 0)
			fprintf(stderr,
				"netloom-pingpong: no bandwidth fit: %d size%s of at least --fit-min %ld bytes, the fit "
				"needs 2 with a rising time (raise --max-bytes or lower --fit-min); bandwidth_Bps is 0\n",
				nf, nf == 1 ? "" : "s", o.fit_min);
		MPI_Get_processor_name(host, &(int){0});
		printf("{\n  \"ranks\": %d,\n  \"pairs\": %d,\n  \"host\": \"%s\",\n", n, half, host);
		printf("  \"iters\": %d,\n  \"reps\": %d,\n  \"fit_min_bytes\": %ld,\n", o.iters, o.reps,
		       o.fit_min);
		printf("  \"latency_s\": %.6e,\n  \"bandwidth_Bps\": %.6e,\n", lat, bw);
		for (int x = 0; x < 2; x++) {
			printf("  \"%s\": [\n", x ? "exchange" : "one_way");
			for (int k = 0; k < n_sizes; k++) {
				pp_summarize(all, v, half, per_rank, x * n_sizes * o.reps, k, o.reps, &fast,
					     &med);
				printf("    {\"bytes\": %ld, \"seconds\": %.6e, \"median_seconds\": %.6e, "
				       "\"Bps\": %.6e}%s\n",
				       sizes[k], fast, med, sizes[k] ? (double)sizes[k] / fast : 0.0,
				       k + 1 < n_sizes ? "," : "");
			}
			printf("  ]%s\n", x ? "" : ",");
		}
		printf("}\n");
	}
	free(all);
	free(v);
	free(mine);
	free(buf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
