/* replay_mktrace: write synthetic MPI trace archives for the replay tests
 * and benchmarks, through the public trace writer (traces/trace.h).
 *
 *   replay_mktrace OUT.nlt pingpong ITERS BYTES
 *   replay_mktrace OUT.nlt deadlock BYTES
 *   replay_mktrace OUT.nlt stencil RANKS ITERS BYTES COMPUTE_NS
 *   replay_mktrace OUT.nlt msgrate RANKS ITERS WINDOW BYTES
 *   replay_mktrace OUT.nlt shift RANKS DIST BYTES
 *   replay_mktrace OUT.nlt comms COUNT
 *
 * pingpong: 2 ranks, rank 0 computes 1 us then sends, rank 1 answers.
 * deadlock: 2 ranks that both Send BYTES to each other before receiving.
 * stencil: ring halo exchange (irecv/isend both neighbours, waitall) and
 *   an 8-byte allreduce per iteration; rank r computes COMPUTE_NS x
 *   (1 + (r mod 3) / 10) per iteration.
 * msgrate: pairs (2i, 2i+1); per iteration the even rank isends WINDOW
 *   messages of BYTES, waits, then receives a 0-byte ack; the odd rank
 *   irecvs them, waits and sends the ack. In-flight messages stay bounded
 *   by WINDOW, so replay memory must not grow with ITERS.
 * shift: every rank irecvs BYTES from rank - DIST and isends BYTES to
 *   rank + DIST (mod RANKS), then waits: on a ring without VC classes
 *   the messages deadlock the network.
 * comms: 2 ranks that dup world and free the copy COUNT times, so the
 *   manifest lists COUNT communicators besides world and self (trace
 *   encode refuses more than replay numbers; this writer does not).
 * The manifest's recorded runtime is the sum of rank 0's compute times.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "traces/trace.h"

struct gen {
	uint32_t n;
	struct trace_stream_writer **w;
	char **paths;
	uint64_t *clock; /* per rank, ps: only to give ops increasing start times */
	uint64_t compute0;
	struct nl_err err;
};

static void die(struct gen *g, const char *what)
{
	fprintf(stderr, "replay_mktrace: %s: %s\n", what, g->err.msg);
	exit(1);
}

static void put(struct gen *g, uint32_t r, struct trace_op op)
{
	op.t_ps = g->clock[r];
	g->clock[r] += op.dur_ps + 1000;
	if (op.kind == TOP_COMPUTE && r == 0)
		g->compute0 += op.dur_ps;
	if (trace_stream_append(g->w[r], &op, &g->err) < 0)
		die(g, "append");
}

static void compute(struct gen *g, uint32_t r, uint64_t ps)
{
	put(g, r, (struct trace_op){.kind = TOP_COMPUTE, .dur_ps = ps});
}

static void p2p(struct gen *g, uint32_t r, uint16_t kind, int32_t peer, int32_t tag, uint64_t bytes, uint32_t req)
{
	put(g, r, (struct trace_op){.kind = kind, .peer = peer, .tag = tag, .bytes = bytes, .req = req});
}

static void waitall(struct gen *g, uint32_t r, const uint32_t *reqs, uint32_t n)
{
	put(g, r, (struct trace_op){.kind = TOP_WAITALL, .reqs = reqs, .n_reqs = n});
}

static uint64_t arg(int argc, char **argv, int i)
{
	if (i >= argc) {
		fprintf(stderr, "replay_mktrace: missing argument %d (see the file header for usage)\n", i);
		exit(2);
	}
	return strtoull(argv[i], NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: replay_mktrace OUT.nlt pingpong|deadlock|stencil|msgrate|shift|comms ARGS...\n");
		return 2;
	}
	const char *out = argv[1], *kind = argv[2];
	struct gen g = {0};
	struct trace_comm *comms = NULL; /* besides world and self: kind comms */
	uint32_t n_comms = 0, world2[] = {0, 1};
	if (!strcmp(kind, "pingpong") || !strcmp(kind, "deadlock") || !strcmp(kind, "comms"))
		g.n = 2;
	else if (!strcmp(kind, "stencil") || !strcmp(kind, "msgrate") || !strcmp(kind, "shift"))
		g.n = (uint32_t)arg(argc, argv, 3);
	else {
		fprintf(stderr, "replay_mktrace: unknown kind '%s'\n", kind);
		return 2;
	}
	if (g.n < 2 || g.n > 4096 || (!strcmp(kind, "msgrate") && g.n % 2)) {
		fprintf(stderr, "replay_mktrace: bad rank count %u\n", g.n);
		return 2;
	}
	g.w = calloc(g.n, sizeof *g.w);
	g.paths = calloc(g.n, sizeof *g.paths);
	g.clock = calloc(g.n, sizeof *g.clock);
	for (uint32_t r = 0; r < g.n; r++) {
		size_t len = strlen(out) + 32;
		g.paths[r] = malloc(len);
		snprintf(g.paths[r], len, "%s.rank%u.tmp", out, r);
		if (trace_stream_open(&g.w[r], r, g.paths[r], &g.err) < 0)
			die(&g, "open stream");
		put(&g, r, (struct trace_op){.kind = TOP_INIT});
	}

	if (!strcmp(kind, "pingpong")) {
		uint64_t iters = arg(argc, argv, 3), bytes = arg(argc, argv, 4);
		for (uint64_t i = 0; i < iters; i++) {
			compute(&g, 0, 1000000);
			p2p(&g, 0, TOP_SEND, 1, 0, bytes, 0);
			p2p(&g, 0, TOP_RECV, 1, 0, bytes, 0);
			p2p(&g, 1, TOP_RECV, 0, 0, bytes, 0);
			p2p(&g, 1, TOP_SEND, 0, 0, bytes, 0);
		}
	} else if (!strcmp(kind, "deadlock")) {
		uint64_t bytes = arg(argc, argv, 3);
		for (uint32_t r = 0; r < 2; r++) {
			compute(&g, r, 1000000);
			p2p(&g, r, TOP_SEND, (int32_t)(1 - r), 7, bytes, 0);
			p2p(&g, r, TOP_RECV, (int32_t)(1 - r), 7, bytes, 0);
		}
	} else if (!strcmp(kind, "stencil")) {
		uint64_t iters = arg(argc, argv, 4), bytes = arg(argc, argv, 5), c = arg(argc, argv, 6);
		static const uint32_t reqs[] = {0, 1, 2, 3};
		for (uint64_t i = 0; i < iters; i++)
			for (uint32_t r = 0; r < g.n; r++) {
				int32_t left = (int32_t)((r + g.n - 1) % g.n), right = (int32_t)((r + 1) % g.n);
				compute(&g, r, c * 1000 * (10 + r % 3) / 10);
				p2p(&g, r, TOP_IRECV, left, 1, bytes, 0);
				p2p(&g, r, TOP_IRECV, right, 2, bytes, 1);
				p2p(&g, r, TOP_ISEND, right, 1, bytes, 2);
				p2p(&g, r, TOP_ISEND, left, 2, bytes, 3);
				waitall(&g, r, reqs, 4);
				put(&g, r, (struct trace_op){.kind = TOP_ALLREDUCE, .bytes = 8, .recv_bytes = 8});
			}
	} else if (!strcmp(kind, "comms")) {
		n_comms = (uint32_t)arg(argc, argv, 3);
		comms = calloc(n_comms ? n_comms : 1, sizeof *comms);
		for (uint32_t i = 0; i < n_comms; i++) {
			comms[i] = (struct trace_comm){.id = i + 2, .size = 2, .world_ranks = world2};
			for (uint32_t r = 0; r < 2; r++) {
				put(&g, r, (struct trace_op){.kind = TOP_COMM_DUP, .new_comm = i + 2});
				put(&g, r, (struct trace_op){.kind = TOP_COMM_FREE, .comm = i + 2});
			}
		}
	} else if (!strcmp(kind, "shift")) {
		uint64_t dist = arg(argc, argv, 4) % g.n, bytes = arg(argc, argv, 5);
		static const uint32_t reqs[] = {0, 1};
		for (uint32_t r = 0; r < g.n; r++) {
			p2p(&g, r, TOP_IRECV, (int32_t)((r + g.n - dist) % g.n), 3, bytes, 0);
			p2p(&g, r, TOP_ISEND, (int32_t)((r + dist) % g.n), 3, bytes, 1);
			waitall(&g, r, reqs, 2);
		}
	} else {
		uint64_t iters = arg(argc, argv, 4), win = arg(argc, argv, 5), bytes = arg(argc, argv, 6);
		if (win == 0 || win > 4096) {
			fprintf(stderr, "replay_mktrace: WINDOW must be 1..4096\n");
			return 2;
		}
		uint32_t *reqs = malloc(win * sizeof *reqs);
		for (uint32_t k = 0; k < win; k++)
			reqs[k] = k;
		for (uint64_t i = 0; i < iters; i++)
			for (uint32_t r = 0; r < g.n; r += 2) {
				for (uint32_t k = 0; k < win; k++) {
					p2p(&g, r, TOP_ISEND, (int32_t)r + 1, (int32_t)k, bytes, k);
					p2p(&g, r + 1, TOP_IRECV, (int32_t)r, (int32_t)k, bytes, k);
				}
				waitall(&g, r, reqs, (uint32_t)win);
				waitall(&g, r + 1, reqs, (uint32_t)win);
				p2p(&g, r, TOP_RECV, (int32_t)r + 1, 0, 0, 0);
				p2p(&g, r + 1, TOP_SEND, (int32_t)r, 0, 0, 0);
			}
		free(reqs);
	}

	struct trace_manifest m = {0};
	m.format_version = TRACE_FORMAT_VERSION;
	m.n_ranks = g.n;
	m.n_comms = n_comms;
	m.comms = comms;
	char app[64];
	snprintf(app, sizeof app, "synthetic-%s", kind);
	m.application = app;
	m.command_line = "replay_mktrace";
	m.machine = "synthetic";
	m.recorder = "replay_mktrace";
	m.mpi_library = "";
	m.rank_ops = calloc(g.n, sizeof *m.rank_ops);
	m.rank_bytes = calloc(g.n, sizeof *m.rank_bytes);
	m.rank_hash = calloc(g.n, sizeof *m.rank_hash);
	for (uint32_t r = 0; r < g.n; r++) {
		put(&g, r, (struct trace_op){.kind = TOP_FINALIZE});
		if (trace_stream_close(g.w[r], &m.rank_ops[r], &m.rank_bytes[r], &m.rank_hash[r], &g.err) < 0)
			die(&g, "close stream");
	}
	m.recorded_runtime_s = (double)g.compute0 * 1e-12;
	if (trace_archive_write(out, &m, (const char *const *)g.paths, &g.err) < 0)
		die(&g, "write archive");
	for (uint32_t r = 0; r < g.n; r++) {
		unlink(g.paths[r]);
		free(g.paths[r]);
	}
	free(comms);
	free(m.rank_ops);
	free(m.rank_bytes);
	free(m.rank_hash);
	free(g.paths);
	free(g.w);
	free(g.clock);
	return 0;
}
