/* live_halo: one rank of a periodic 2-D halo exchange over `netloom serve`.
 *   live_halo ENDPOINT RANK PX ITERS BYTES [JOB]
 * RANK is a world rank of job JOB (default 1; `netloom serve --jobs`,
 * docs/live.md "Jobs"). The job's ranks (all ranks without --jobs) form a
 * PX x (job size / PX) torus, in order from its first; each iteration posts receives
 * from the four neighbours, sends to them, waits for all eight requests (one waitall), checks every
 * payload and computes 2 us of virtual time. Prints each receive as
 * live_ring does. Exit 0 on success, 1 on any error or wrong payload. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netloom/client.h"

#define PROG "live_halo"

/* argv[i] as a decimal number min..max, or a line naming it and exit 2
 * (as the usage line): strtoul takes "1x" as 1 and "abc" as 0, so a typo
 * would connect as another process's rank and take it. */
static uint64_t arg_num(char **argv, int i, const char *name, uint64_t min, uint64_t max)
{
	const char *s = argv[i];
	char *end;
	errno = 0;
	unsigned long long v = s[0] >= '0' && s[0] <= '9' ? strtoull(s, &end, 10) : 0;
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < min || v > max) {
		fprintf(stderr, "%s: %s '%s': expected a decimal number %llu..%llu\n", PROG, name, s,
			(unsigned long long)min, (unsigned long long)max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: live_halo ENDPOINT RANK PX ITERS BYTES [JOB]\n");
		return 2;
	}
	/* PX 0 is no grid whatever the session's size: refused before the
	 * connect takes the rank (which its peers would then wait for). */
	uint32_t rank = (uint32_t)arg_num(argv, 2, "RANK", 0, UINT32_MAX),
		 px = (uint32_t)arg_num(argv, 3, "PX", 1, UINT32_MAX);
	int iters = (int)arg_num(argv, 4, "ITERS", 0, INT_MAX);
	size_t bytes = (size_t)arg_num(argv, 5, "BYTES", 0, UINT32_MAX);
	uint64_t job = argc == 7 ? arg_num(argv, 6, "JOB", 0, UINT32_MAX) : 1; /* HELLO's job field is 32 bits */
	if (bytes < 8)
		bytes = 8;
	char err[1024]; /* any reason, a server's whole ERROR text included */
	nl_client *c;
	if (nl_client_connect(&c, argv[1], rank, job, 0, 20000, err, sizeof err) < 0) {
		fprintf(stderr, "live_halo: connect: %s\n", err);
		return 1;
	}
	/* The grid is over the job's ranks, first..first+n-1 (world ranks on
	 * the wire): the server refuses a message to another job's rank. */
	uint32_t first = nl_client_job_first(c), n = nl_client_job_size(c);
	if (n % px) {
		fprintf(stderr, "%s: PX '%s': expected a divisor of the job's size (%" PRIu32
			"): its ranks form a grid PX wide\n", PROG, argv[3], n);
		nl_client_close(c);
		return 2;
	}
	uint32_t py = n / px, x = (rank - first) % px, y = (rank - first) / px;
	/* Directions: 0 east, 1 west, 2 north, 3 south; a message sent east
	 * arrives from the west, so the receive from direction d uses d's opposite tag. */
	uint32_t nb[4] = {first + y * px + (x + 1) % px, first + y * px + (x + px - 1) % px,
			  first + ((y + 1) % py) * px + x, first + ((y + py - 1) % py) * px + x};
	unsigned char *out = malloc(4 * bytes), *in = malloc(4 * bytes);
	int rc = 1;
	if (!out || !in)
		goto done;
	for (int it = 0; it < iters; it++) {
		uint32_t req[8];
		for (int d = 0; d < 4; d++)
			if (nl_client_irecv(c, (int32_t)nb[d], 4 * it + (d ^ 1), in + d * bytes, bytes, &req[d]) < 0)
				goto done;
		for (int d = 0; d < 4; d++) {
			unsigned char *p = out + d * bytes;
			memset(p, d, bytes);
			memcpy(p, &it, sizeof it);
			memcpy(p + 4, &rank, sizeof rank);
			if (nl_client_isend(c, nb[d], 4 * it + d, p, bytes, &req[4 + d]) < 0)
				goto done;
		}
		struct nl_client_status sts[8];
		if (nl_client_waitall(c, req, 8, sts) < 0)
			goto done;
		for (int d = 0; d < 4; d++) {
			const struct nl_client_status *stp = &sts[d];
			int got_it;
			uint32_t from;
			memcpy(&got_it, in + d * bytes, sizeof got_it);
			memcpy(&from, in + d * bytes + 4, sizeof from);
			if (got_it != it || from != nb[d] || in[d * bytes + bytes - 1] != (unsigned char)(d ^ 1)) {
				fprintf(stderr, "live_halo: rank %" PRIu32 " it %d dir %d: wrong payload\n", rank, it, d);
				goto done;
			}
			printf("recv %" PRIu32 " %d %zu %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", stp->source, stp->tag,
			       stp->bytes, stp->t_sent_ps, stp->t_arrived_ps, stp->t_done_ps);
		}
		if (nl_client_compute(c, 2000000) < 0)
			goto done;
	}
	printf("rank %" PRIu32 " done t=%" PRIu64 " ps\n", rank, nl_client_now_ps(c));
	rc = 0;
done:
	if (rc)
		fprintf(stderr, "live_halo: rank %" PRIu32 ": %s\n", rank, nl_client_error(c));
	free(out);
	free(in);
	if (nl_client_close(c) < 0 && rc == 0) {
		fprintf(stderr, "live_halo: rank %" PRIu32 ": close failed\n", rank);
		rc = 1;
	}
	return rc;
}
