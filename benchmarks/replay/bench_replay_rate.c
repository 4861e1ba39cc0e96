/* Replay speed: MPI messages replayed per second on the analytic backend,
 * one core.
 *
 *   bench_replay_rate [RANKS [ITERS [WINDOW [BYTES]]]]   (16 20000 16 8)
 *
 * The trace is generated on the fly (an app_source whose ranks hold O(1)
 * state), so the figure is the replay engine's: matching, requests, the
 * event loop and the backend, without archive decoding (`netloom replay`
 * on an archive adds the decoder; see README.md). Pattern: pairs (2i,
 * 2i+1); per iteration the even rank isends WINDOW messages of BYTES with
 * distinct tags and waits for them, then receives a 0-byte ack the odd rank
 * sends after receiving them all. Messages = RANKS/2 x ITERS x (WINDOW + 1).
 * The last line is the figure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "core/error.h"
#include "core/progress.h"
#include "net/net.h"

struct gen {
	uint32_t ranks, window;
	uint64_t iters, bytes;
	uint64_t *iter; /* per rank: current iteration */
	uint32_t *k;    /* per rank: op within the iteration, 0 .. window+1 */
	uint32_t *reqs; /* 0 .. window-1 */
};

static int gen_next(void *ctx, uint32_t r, struct trace_op *op, struct nl_err *err)
{
	struct gen *g = ctx;
	(void)err;
	if (g->iter[r] >= g->iters)
		return 0;
	uint32_t k = g->k[r];
	if (++g->k[r] == g->window + 2) {
		g->k[r] = 0;
		g->iter[r]++;
	}
	memset(op, 0, sizeof *op);
	bool even = r % 2 == 0;
	int32_t peer = (int32_t)(even ? r + 1 : r - 1);
	if (k < g->window) {
		op->kind = even ? TOP_ISEND : TOP_IRECV;
		op->peer = peer;
		op->tag = (int32_t)k;
		op->bytes = g->bytes;
		op->req = k;
	} else if (k == g->window) {
		op->kind = TOP_WAITALL;
		op->reqs = g->reqs;
		op->n_reqs = g->window;
	} else {
		op->kind = even ? TOP_RECV : TOP_SEND;
		op->peer = peer;
	}
	return 1;
}

/* A decimal argument up to max: digits only (strtoull alone took "-2" as
 * 2^64 - 2 and "x" as 0). */
static bool arg_u64(const char *s, uint64_t max, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end || x > max)
		return false;
	*v = x;
	return true;
}

int main(int argc, char **argv)
{
	struct gen g = {.ranks = 16, .iters = 20000, .window = 16, .bytes = 8};
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: bench_replay_rate [RANKS(even) [ITERS [WINDOW [BYTES]]]]\n");
		return 0;
	}
	static const char *const names[4] = {"RANKS", "ITERS", "WINDOW", "BYTES"};
	/* RANKS: the replay's limit (app_new takes at most 2^24 - 1 ranks, for
	 * its map keys), so a larger value is this argument's error. */
	static const uint64_t maxes[4] = {(1u << 24) - 1, UINT64_MAX, 65536, UINT32_MAX};
	uint64_t a[4] = {g.ranks, g.iters, g.window, g.bytes};
	for (int i = 0; i < 4 && i + 1 < argc; i++)
		if (!arg_u64(argv[i + 1], maxes[i], &a[i])) {
			fprintf(stderr, "bench_replay_rate: %s '%s': expected a decimal integer up to %" PRIu64 "\n",
				names[i], argv[i + 1], maxes[i]);
			return 2;
		}
	/* The messages it counts (RANKS/2 x ITERS x (WINDOW + 1)) in 64 bits. */
	uint64_t iters_max = UINT64_MAX / (a[0] / 2 ? a[0] / 2 : 1) / (a[2] + 1);
	if (a[1] > iters_max) {
		fprintf(stderr, "bench_replay_rate: ITERS '%s': expected a decimal integer up to %" PRIu64
				" (RANKS/2 x ITERS x (WINDOW + 1) messages within 64 bits)\n",
			argv[2], iters_max);
		return 2;
	}
	g.ranks = (uint32_t)a[0];
	g.iters = a[1];
	g.window = (uint32_t)a[2];
	g.bytes = a[3];
	if (g.ranks < 2 || g.ranks % 2 || g.window < 1 || !g.iters) {
		fprintf(stderr, "usage: bench_replay_rate [RANKS(even) [ITERS [WINDOW [BYTES]]]]\n");
		return 2;
	}
	g.iter = calloc(g.ranks, sizeof *g.iter);
	g.k = calloc(g.ranks, sizeof *g.k);
	g.reqs = malloc(g.window * sizeof *g.reqs);
	for (uint32_t k = 0; k < g.window; k++)
		g.reqs[k] = k;

	struct nl_err err = {0};
	struct app_config cfg;
	struct net_backend net = {0};
	struct app *app = NULL;
	if (app_config_bind(NULL, &cfg, &err) < 0 || !(net.ops = net_backend_find("analytic", &err)) ||
	    net.ops->create(&net, NULL, NULL, &err) < 0) {
		fprintf(stderr, "bench_replay_rate: %s\n", err.msg);
		return 1;
	}
	struct app_source src = {.n_ranks = g.ranks, .next = gen_next, .ctx = &g};
	if (app_new(&app, &cfg, &src, &net, NULL, &err) < 0) {
		fprintf(stderr, "bench_replay_rate: %s\n", err.msg);
		return 1;
	}
	double t0 = nl_wall_seconds();
	int rc = app_run(app, NULL, &err);
	double dt = nl_wall_seconds() - t0;
	if (rc < 0) {
		fprintf(stderr, "bench_replay_rate: %s\n", err.msg);
		return 1;
	}
	const struct app_results *res = app_results(app);
	uint64_t want = (uint64_t)g.ranks / 2 * g.iters * (g.window + 1);
	if (res->msgs != want) {
		fprintf(stderr, "bench_replay_rate: replayed %" PRIu64 " messages, expected %" PRIu64 "\n", res->msgs,
			want);
		return 1;
	}
	printf("ranks %u, iterations %" PRIu64 ", window %u, %" PRIu64 "-byte messages\n", g.ranks, g.iters,
	       g.window, g.bytes);
	printf("messages %" PRIu64 ", engine events %" PRIu64 ", predicted runtime %.6f s\n", res->msgs, res->events,
	       (double)res->runtime_ps * 1e-12);
	printf("wall time %.3f s\n", dt);
	printf("replay rate: %.0f MPI messages/s\n", (double)res->msgs / dt);
	app_free(app);
	net.ops->destroy(&net);
	free(g.iter);
	free(g.k);
	free(g.reqs);
	return 0;
}
