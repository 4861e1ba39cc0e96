/* live_ring: one rank of a ring over `netloom serve`.
 *   live_ring ENDPOINT RANK ITERS BYTES [RING [JOB]]
 * RANK is a world rank of job JOB (default 1; `netloom serve --jobs`,
 * docs/live.md "Jobs"), and the ring is the job's ranks in order
 * (nl_client_job_first, nl_client_job_size): all ranks without --jobs.
 * With RING (0 < RING < the job's ranks), only the job's first RING ranks
 * form the ring and the allreduce and barrier (which need every rank of
 * the job) are skipped; RING 0 is the whole job.
 * Each iteration: compute (1 + rank mod 3) us of virtual time, send BYTES
 * to the right neighbour, receive from the left one, check the payload
 * (its first 8 bytes name the iteration and the sender, the rest is a
 * fill byte of both; BYTES below 8 is raised to 8), then one allreduce of the
 * ranks' numbers checks the sum. Prints each receive's virtual times:
 *   recv SRC TAG BYTES T_SENT T_ARRIVED T_DONE
 * Exit 0 on success, 1 on any error or wrong payload. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netloom/client.h"

#define PROG "live_ring"

/* argv[i] as a decimal number 0..max, or a line naming it and exit 2 (as
 * the usage line): strtoul takes "1x" as 1 and "abc" as 0, so a typo
 * would connect as another process's rank and take it. */
static uint64_t arg_num(char **argv, int i, const char *name, uint64_t max)
{
	const char *s = argv[i];
	char *end;
	errno = 0;
	unsigned long long v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
	if (s[0] < '0' || s[0] > '9' || *end || errno || v > max) {
		fprintf(stderr, "%s: %s '%s': expected a decimal number 0..%llu\n", PROG, name, s, (unsigned long long)max);
		exit(2);
	}
	return v;
}

/* Report, close and free the buffers (out, in: NULL before they exist). */
static int fail(nl_client *c, const char *what, void *out, void *in)
{
	fprintf(stderr, "live_ring: %s: %s\n", what, c ? nl_client_error(c) : "");
	nl_client_close(c);
	free(out);
	free(in);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: live_ring ENDPOINT RANK ITERS BYTES [RING [JOB]]\n");
		return 2;
	}
	uint32_t rank = (uint32_t)arg_num(argv, 2, "RANK", UINT32_MAX);
	int iters = (int)arg_num(argv, 3, "ITERS", INT_MAX);
	size_t bytes = (size_t)arg_num(argv, 4, "BYTES", UINT32_MAX);
	uint64_t ring = argc >= 6 ? arg_num(argv, 5, "RING", UINT32_MAX) : 0;
	uint64_t job = argc == 7 ? arg_num(argv, 6, "JOB", UINT32_MAX) : 1; /* HELLO's job field is 32 bits */
	if (bytes < 8)
		bytes = 8;
	char err[1024]; /* any reason, a server's whole ERROR text included */
	nl_client *c;
	/* Over CURVE when both key files are named (docs/live.md "Encryption").
	 * One alone connected in plain text, with no word: refused, so a
	 * user who meant CURVE never runs unencrypted. */
	const char *srv = getenv("NETLOOM_CURVE_SERVER"), *key = getenv("NETLOOM_CURVE_KEY");
	if (!srv != !key) {
		fprintf(stderr, "%s: %s set without %s, expected both (CURVE) or neither\n", PROG,
			srv ? "NETLOOM_CURVE_SERVER" : "NETLOOM_CURVE_KEY", srv ? "NETLOOM_CURVE_KEY" : "NETLOOM_CURVE_SERVER");
		return 2;
	}
	if ((srv && key ? nl_client_connect_curve(&c, argv[1], rank, job, 0, 20000, srv, key, err, sizeof err)
			: nl_client_connect(&c, argv[1], rank, job, 0, 20000, err, sizeof err)) < 0) {
		fprintf(stderr, "live_ring: connect: %s\n", err);
		return 1;
	}
	/* The ring is over the job's ranks, first..first+n-1 (world ranks on
	 * the wire): the server refuses a message to another job's rank. */
	uint32_t first = nl_client_job_first(c), size = nl_client_job_size(c), n = size;
	if (ring > 0 && ring < size)
		n = (uint32_t)ring;
	uint32_t i = rank - first, right = first + (i + 1) % n, left = first + (i + n - 1) % n;
	unsigned char *out = calloc(1, bytes), *in = calloc(1, bytes);
	if (!out || !in)
		return fail(c, "out of memory", out, in);
	for (int it = 0; it < iters; it++) {
		if (nl_client_compute(c, 1000000ull * (1 + rank % 3)) < 0)
			return fail(c, "compute", out, in);
		memset(out, (int)(rank + it) & 0xff, bytes);
		memcpy(out, &it, sizeof it);
		memcpy(out + 4, &rank, sizeof rank);
		uint32_t req;
		struct nl_client_status st;
		if (nl_client_isend(c, right, it, out, bytes, &req) < 0)
			return fail(c, "isend", out, in);
		if (nl_client_recv(c, (int32_t)left, it, in, bytes, &st) < 0)
			return fail(c, "recv", out, in);
		int got_it;
		uint32_t got_from;
		memcpy(&got_it, in, sizeof got_it);
		memcpy(&got_from, in + 4, sizeof got_from);
		if (got_it != it || got_from != left || st.source != left || st.bytes != bytes ||
		    (bytes > 8 && in[bytes - 1] != (unsigned char)((left + (uint32_t)it) & 0xff))) {
			fprintf(stderr, "live_ring: rank %" PRIu32 " iteration %d: wrong payload (it %d from %" PRIu32 ")\n",
				rank, it, got_it, got_from);
			return fail(c, "payload", out, in);
		}
		printf("recv %" PRIu32 " %d %zu %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", st.source, st.tag, st.bytes,
		       st.t_sent_ps, st.t_arrived_ps, st.t_done_ps);
		if (nl_client_wait(c, req, NULL) < 0)
			return fail(c, "wait", out, in);
	}
	double v = rank;
	if (n < size)
		goto bye;
	if (nl_client_allreduce_sum(c, &v, 1) < 0)
		return fail(c, "allreduce", out, in);
	/* The sum of the job's world ranks, first .. first + n - 1. */
	double want = (double)n * first + (double)n * (n - 1) / 2;
	if (v != want) {
		fprintf(stderr, "live_ring: allreduce gave %g, expected %g\n", v, want);
		return fail(c, "allreduce", out, in);
	}
	if (nl_client_barrier(c) < 0)
		return fail(c, "barrier", out, in);
bye:
	printf("rank %" PRIu32 " done t=%" PRIu64 " ps\n", rank, nl_client_now_ps(c));
	free(out);
	free(in);
	if (nl_client_close(c) < 0) {
		fprintf(stderr, "live_ring: close failed\n");
		return 1;
	}
	return 0;
}
