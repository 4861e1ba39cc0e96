/* Trace archive benchmarks: writer and reader throughput, compression, and
 * reader memory against trace length. The workload is a synthetic MPI-like
 * stream per rank (compute, irecv/isend to neighbours, waitall, allreduce)
 * with times jittered by a seeded counter-based RNG, so runs are
 * reproducible; or an existing archive given on the command line.
 *
 *   bench_trace write [OPS_PER_RANK]   ops/s written (last line)
 *   bench_trace read [FILE]            ops/s read (last line)
 *   bench_trace memory                 reader heap, 1x vs 10x longer trace
 *
 * The archive it writes (/tmp/bench_trace_XXXXXX, 32 MB for read) and its
 * per-rank streams (.r0 ...) are registered with core/staged.h: a SIGINT
 * or SIGTERM removes them (at the next op written or read) and ends the
 * process by that signal.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/staged.h"
#include "traces/trace.h"

#define RANKS 8
/* write's OPS_PER_RANK at most: ops * RANKS and a stream's virtual time
 * (below 2.7e5 ps an op: write_rank's durations and gaps) stay within 64
 * bits. */
#define WRITE_OPS_MAX 10000000000000ull

/* One rank's synthetic stream: cycles of compute, 4 irecv + 4 isend to
 * ring neighbours, waitall on the 8 requests, an allreduce every 10 cycles. */
static int write_rank(struct trace_stream_writer *w, uint32_t rank, uint64_t n_ops, struct nl_err *e)
{
	struct rng r;
	uint32_t reqs[8];
	uint64_t t = 0, done = 0;
	rng_init(&r, 42, RNG_CLASS_APP, rank);
	while (done < n_ops) {
		struct trace_op op;
		memset(&op, 0, sizeof op);
		op.kind = TOP_COMPUTE;
		op.t_ps = t;
		op.dur_ps = 2000000 + rng_u64(&r) % 500000;
		t += op.dur_ps;
		NL_CHECK(trace_stream_append(w, &op, e));
		done++;
		out_staged_poll(); /* a recorded SIGINT/SIGTERM: the files removed, the process ended */
		for (int i = 0; i < 8 && done < n_ops; i++, done++) {
			memset(&op, 0, sizeof op);
			op.kind = i < 4 ? TOP_IRECV : TOP_ISEND;
			op.peer = (int32_t)((rank + RANKS + (i % 4 < 2 ? 1 : -1) * (1 + i % 2)) % RANKS);
			op.tag = 100 + i % 4;
			op.bytes = 8192u << (i % 3);
			op.req = (uint32_t)i + 1;
			reqs[i] = op.req;
			op.t_ps = t;
			op.dur_ps = 300 + rng_u64(&r) % 700;
			t += op.dur_ps + rng_u64(&r) % 100;
			NL_CHECK(trace_stream_append(w, &op, e));
		}
		if (done >= n_ops)
			break;
		memset(&op, 0, sizeof op);
		op.kind = TOP_WAITALL;
		op.n_reqs = 8;
		op.reqs = reqs;
		op.t_ps = t;
		op.dur_ps = 10000 + rng_u64(&r) % 90000;
		t += op.dur_ps;
		NL_CHECK(trace_stream_append(w, &op, e));
		done++;
		if (done % 100 < 10 && done < n_ops) {
			memset(&op, 0, sizeof op);
			op.kind = TOP_ALLREDUCE;
			op.bytes = 8;
			op.t_ps = t;
			op.dur_ps = 5000 + rng_u64(&r) % 20000;
			t += op.dur_ps;
			NL_CHECK(trace_stream_append(w, &op, e));
			done++;
		}
	}
	return 0;
}

/* Write a RANKS-rank archive with ops_per_rank ops each through the
 * per-rank streams named spp (removed on every return); seconds taken. */
static double write_archive(const char *path, const char *const spp[RANKS], uint64_t ops_per_rank,
			    struct nl_err *e)
{
	double t0 = nl_wall_seconds();
	int rc = 0;
	for (uint32_t r = 0; r < RANKS && !rc; r++) {
		struct trace_stream_writer *w;
		rc = trace_stream_open(&w, r, spp[r], e);
		if (!rc && write_rank(w, r, ops_per_rank, e)) {
			trace_stream_abort(w);
			rc = -1;
		}
		if (!rc)
			rc = trace_stream_close(w, NULL, NULL, NULL, e);
	}
	struct trace_manifest m = {.n_ranks = RANKS, .application = "bench", .command_line = "", .machine = "",
				   .recorder = "bench_trace", .mpi_library = ""};
	if (!rc)
		rc = trace_archive_write(path, &m, spp, e);
	for (uint32_t r = 0; r < RANKS; r++)
		unlink(spp[r]);
	return rc ? -1 : nl_wall_seconds() - t0;
}

/* Stream every op; returns ops read, fills seconds and peak extra heap. */
static uint64_t read_all(const char *path, double *secs, size_t *peak_heap, struct nl_err *e)
{
	struct trace_archive *a;
	uint64_t n = 0;
	size_t base = mallinfo2().uordblks, peak = 0;
	double t0 = nl_wall_seconds();
	if (trace_archive_open(&a, path, e))
		return 0;
	const struct trace_manifest *m = trace_archive_manifest(a);
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		struct trace_rank_reader *rd;
		struct trace_op op;
		if (trace_rank_open(a, r, &rd, e))
			break;
		while (trace_rank_next(rd, &op, e) == 1)
			if ((++n & 65535) == 0) {
				out_staged_poll(); /* a recorded SIGINT/SIGTERM: the files removed, the process ended */
				size_t now = peak_heap ? mallinfo2().uordblks : 0;
				if (now > peak)
					peak = now;
			}
		trace_rank_close(rd);
	}
	trace_archive_close(a);
	*secs = nl_wall_seconds() - t0;
	if (peak_heap)
		*peak_heap = peak > base ? peak - base : 0;
	return n;
}

static uint64_t encoded_bytes(const char *path)
{
	struct nl_err e = {0};
	struct trace_archive *a;
	uint64_t b = 0;
	if (trace_archive_open(&a, path, &e))
		return 0;
	const struct trace_manifest *m = trace_archive_manifest(a);
	for (uint32_t r = 0; r < m->n_ranks; r++)
		b += m->rank_bytes[r];
	trace_archive_close(a);
	return b;
}

static uint64_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) ? 0 : (uint64_t)st.st_size;
}

int main(int argc, char **argv)
{
	struct nl_err e = {0};
	char path[] = "/tmp/bench_trace_XXXXXX";
	char sp[RANKS][sizeof path + 8];
	const char *spp[RANKS];
	/* Registered before they exist (core/staged.h): from mkstemp on, a
	 * SIGINT or SIGTERM leaves neither the archive nor a stream behind. */
	out_signals_catch();
	if (out_staged_add(path, &e) < 0) {
		fprintf(stderr, "bench_trace: %s\n", e.msg);
		return 1;
	}
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("bench_trace: /tmp/bench_trace_XXXXXX");
		return 1;
	}
	close(fd);
	for (uint32_t r = 0; r < RANKS; r++) {
		snprintf(sp[r], sizeof sp[r], "%s.r%u", path, r);
		spp[r] = sp[r];
		if (out_staged_add(sp[r], &e) < 0) {
			fprintf(stderr, "bench_trace: %s\n", e.msg);
			out_staged_unlink();
			return 1;
		}
	}
	const char *mode = argc > 1 ? argv[1] : "read";
	int rc = 0;

	if (!strcmp(mode, "write")) {
		char *end = "";
		uint64_t per = 1000000;
		/* Digits only (strtoull reads "-5" as 2^64 - 5) and in range
		 * (2^64 and more as 2^64 - 1, ERANGE). */
		errno = 0;
		if (argc > 2)
			per = argv[2][0] >= '0' && argv[2][0] <= '9' ? strtoull(argv[2], &end, 10) : 0;
		if (!per || *end || errno || per > WRITE_OPS_MAX) {
			fprintf(stderr, "bench_trace: write OPS '%s': expected a positive integer up to %" PRIu64 "\n",
				argv[2], (uint64_t)WRITE_OPS_MAX);
			rc = 2;
			goto out;
		}
		double s = write_archive(path, spp, per, &e);
		if (s < 0) {
			fprintf(stderr, "bench_trace: %s\n", e.msg);
			rc = 1;
		} else {
			uint64_t enc = encoded_bytes(path), fb = file_size(path), ops = per * RANKS;
			printf("ops %" PRIu64 ", encoded %.2f bytes/op, file %.2f bytes/op, compression %.2fx\n", ops,
			       (double)enc / (double)ops, (double)fb / (double)ops, (double)enc / (double)fb);
			printf("trace write: %.2f Mops/s (%.1f MB/s encoded)\n", (double)ops / s / 1e6,
			       (double)enc / s / 1e6);
		}
	} else if (!strcmp(mode, "read")) {
		const char *in = argc > 2 ? argv[2] : path;
		if (argc <= 2 && write_archive(path, spp, 1000000, &e) < 0) {
			fprintf(stderr, "bench_trace: %s\n", e.msg);
			rc = 1;
		} else {
			double s = 0, best = 1e30;
			uint64_t n = 0;
			for (int rep = 0; rep < 3; rep++) { /* best of 3: page cache warm */
				n = read_all(in, &s, NULL, &e);
				if (s < best)
					best = s;
			}
			if (!n) {
				fprintf(stderr, "bench_trace: %s\n", e.msg);
				rc = 1;
			} else {
				uint64_t enc = encoded_bytes(in), fb = file_size(in);
				printf("%s: %" PRIu64 " ops, %" PRIu64 " file bytes, %" PRIu64 " encoded bytes, compression %.2fx\n",
				       in, n, fb, enc, (double)enc / (double)fb);
				printf("trace read: %.2f Mops/s (%.1f MB/s decoded, %.1f MB/s of file)\n",
				       (double)n / best / 1e6, (double)enc / best / 1e6, (double)fb / best / 1e6);
			}
		}
	} else if (!strcmp(mode, "memory")) {
		size_t h1 = 0, h10 = 0;
		double s;
		uint64_t n1 = 0, n10 = 0;
		if (write_archive(path, spp, 200000, &e) >= 0)
			n1 = read_all(path, &s, &h1, &e);
		if (write_archive(path, spp, 2000000, &e) >= 0)
			n10 = read_all(path, &s, &h10, &e);
		if (!n1 || !n10) {
			fprintf(stderr, "bench_trace: %s\n", e.msg);
			rc = 1;
		} else {
			printf("%" PRIu64 " ops: peak reader heap %zu bytes\n", n1, h1);
			printf("%" PRIu64 " ops: peak reader heap %zu bytes\n", n10, h10);
			printf("trace reader memory: %zu bytes at 1x, %zu bytes at 10x length\n", h1, h10);
		}
	} else {
		fprintf(stderr, "usage: bench_trace write [OPS_PER_RANK] | read [FILE] | memory\n");
		rc = 2;
	}
out:
	unlink(path);
	out_staged_del(path);
	for (uint32_t r = 0; r < RANKS; r++)
		out_staged_del(sp[r]);
	return rc;
}
