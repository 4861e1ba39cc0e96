/* bench_live: messages per second through `netloom serve` and the server's
 * residence time per message (SEND received to DELIVER queued).
 *
 *   bench_live rate BACKEND [RANKS [MSGS_PER_RANK]]   (analytic or flit)
 *   bench_live residence [MSGS]
 *
 * The server runs in this process (live_serve on an ipc:// endpoint in
 * /tmp); each rank is a thread with its own libnetloom-client connection.
 * rate: ranks pair up (2i, 2i+1) and exchange 8-byte messages, windows of
 * 32 isends and irecvs then one waitall; figure: delivered messages per wall
 * second from the first HELLO to the last BYE. residence: 2 ranks, the
 * analytic backend, ping-pong; figure: median and p99 residence in us.
 * Last line: the figure.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapters/adapters.h"
#include "cli/cli.h"
#include "session/session.h"
#include "core/config.h"
#include "core/error.h"
#include "netloom/client.h"

#define WINDOW 32

struct rank_arg {
	const char *ep;
	uint32_t rank, n;
	uint64_t msgs;
	int pingpong;
	int rc;
};

static void *rank_main(void *p)
{
	struct rank_arg *a = p;
	char err[256];
	nl_client *c;
	a->rc = 1;
	for (int tries = 0; nl_client_connect(&c, a->ep, a->rank, 1, 0, 5000, err, sizeof err) < 0; tries++) {
		if (tries > 3) {
			fprintf(stderr, "bench_live: rank %u: %s\n", a->rank, err);
			return NULL;
		}
		usleep(20000);
	}
	uint32_t peer = a->rank ^ 1;
	uint64_t buf[WINDOW], in[WINDOW];
	uint32_t req[2 * WINDOW];
	for (uint64_t done = 0; done < a->msgs;) {
		if (a->pingpong) {
			if (a->rank == 0) {
				if (nl_client_send(c, 1, 0, &done, 8) < 0 || nl_client_recv(c, 1, 0, in, 8, NULL) < 0)
					goto out;
			} else if (nl_client_recv(c, 0, 0, in, 8, NULL) < 0 || nl_client_send(c, 0, 0, &done, 8) < 0) {
				goto out;
			}
			done++;
			continue;
		}
		uint32_t w = a->msgs - done < WINDOW ? (uint32_t)(a->msgs - done) : WINDOW;
		for (uint32_t i = 0; i < w; i++) {
			buf[i] = done + i;
			if (nl_client_irecv(c, (int32_t)peer, 0, &in[i], 8, &req[i]) < 0 ||
			    nl_client_isend(c, peer, 0, &buf[i], 8, &req[w + i]) < 0)
				goto out;
		}
		if (nl_client_waitall(c, req, 2 * w, NULL) < 0)
			goto out;
		done += w;
	}
	a->rc = 0;
out:
	if (a->rc)
		fprintf(stderr, "bench_live: rank %u: %s\n", a->rank, nl_client_error(c));
	nl_client_close(c);
	return NULL;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The argument `s` (the usage's `name`) as a positive integer written in
 * decimal digits only (strtoull alone takes "-2", "2x" and "" too); 0,
 * after one line on stderr, when it is not one. */
static uint64_t arg_count(const char *name, const char *s)
{
	char *end = NULL;
	errno = 0;
	unsigned long long v = *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
	if (!v || *end || errno) {
		fprintf(stderr, "bench_live: %s '%s': expected a positive integer\n", name, s);
		return 0;
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "rate") && strcmp(argv[1], "residence")) ||
	    argc > (strcmp(argv[1], "rate") ? 3 : 5)) {
		fprintf(stderr, "usage: bench_live rate BACKEND [RANKS [MSGS]] | residence [MSGS]\n");
		return 2;
	}
	int pingpong = !strcmp(argv[1], "residence");
	const char *backend = pingpong ? "analytic" : argc > 2 ? argv[2] : "analytic";
	const char *ranks_arg = pingpong || argc <= 3 ? NULL : argv[3];
	const char *msgs_arg = pingpong ? (argc > 2 ? argv[2] : NULL) : (argc > 4 ? argv[4] : NULL);
	uint64_t n_arg = ranks_arg ? arg_count("RANKS", ranks_arg) : pingpong ? 2 : 8;
	uint64_t msgs = n_arg && msgs_arg ? arg_count("MSGS", msgs_arg) : 20000;
	if (!n_arg || !msgs)
		return 2;
	if (n_arg > 64 || n_arg % 2) { /* ranks pair up (2i, 2i+1); th[] and args[] hold 64 */
		fprintf(stderr, "bench_live: RANKS '%s': expected an even number of ranks, at most 64\n", ranks_arg);
		return 2;
	}
	uint32_t n = (uint32_t)n_arg;
	char ep[128], json_path[128], kv[128];
	snprintf(ep, sizeof ep, "ipc:///tmp/bench_live.%d.sock", (int)getpid());
	snprintf(json_path, sizeof json_path, "/tmp/bench_live.%d.json", (int)getpid());

	struct nl_err err = {0};
	nl_sim *sim = NULL;
	snprintf(kv, sizeof kv, "backend=%s", backend);
	if (nl_sim_new(&sim, &err) < 0 || nl_sim_set(sim, kv, NULL, &err) < 0 ||
	    (!strcmp(backend, "flit") && nl_sim_set(sim, "topology=torus:k=8", NULL, &err) < 0)) {
		fprintf(stderr, "bench_live: %s\n", err.msg);
		nl_sim_free(sim);
		return 1;
	}
	struct live_opts o;
	live_opts_init(&o);
	o.listen = ep;
	o.n_ranks = n;
	o.json_path = json_path;
	o.log = NULL;
	o.timeout_ms = 30000;

	pthread_t th[64];
	struct rank_arg args[64];
	double t0 = wall();
	for (uint32_t r = 0; r < n; r++) {
		args[r] = (struct rank_arg){.ep = ep, .rank = r, .n = n, .msgs = msgs, .pingpong = pingpong};
		pthread_create(&th[r], NULL, rank_main, &args[r]);
	}
	/* From here the server may have written json_path: every return
	 * below goes through out, which removes it. */
	int rc = live_serve(&o, sim, &err);
	double t1 = wall();
	if (rc < 0) { /* the clients cannot finish without a server: not joined */
		fprintf(stderr, "bench_live: %s\n", err.msg);
		goto out;
	}
	for (uint32_t r = 0; r < n; r++) {
		pthread_join(th[r], NULL);
		if (args[r].rc) /* the rank said why */
			rc = -1;
	}
	if (rc < 0)
		goto out;
	json_error_t je;
	json_t *doc = json_load_file(json_path, 0, &je);
	if (!doc) {
		fprintf(stderr, "bench_live: %s: %s\n", json_path, je.text);
		rc = -1;
		goto out;
	}
	json_t *live = json_object_get(doc, "live");
	uint64_t delivered = (uint64_t)json_integer_value(json_object_get(live, "delivered"));
	double p50 = (double)json_integer_value(json_object_get(live, "residence_ns_p50")) * 1e-3;
	double p99 = (double)json_integer_value(json_object_get(live, "residence_ns_p99")) * 1e-3;
	json_decref(doc);
	printf("backend %s, %u ranks, %" PRIu64 " messages delivered in %.3f s; residence p50 %.1f us, p99 %.1f us\n",
	       backend, n, delivered, t1 - t0, p50, p99);
	if (pingpong)
		printf("residence median %.1f us p99 %.1f us\n", p50, p99);
	else
		printf("%.0f messages/s\n", (double)delivered / (t1 - t0));
out:
	unlink(json_path);
	nl_sim_free(sim);
	return rc < 0 ? 1 : 0;
}
