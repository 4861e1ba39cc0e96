/* Helpers for the trace archive tests: a deterministic op of every kind
 * and a small 3-rank archive built from them (test_trace.c,
 * test_trace_corrupt.c). */
#ifndef NETLOOM_TESTS_TRACE_SAMPLE_H
#define NETLOOM_TESTS_TRACE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "core/error.h"
#include "test.h"
#include "traces/trace.h"

/* --- ops of every kind --------------------------------------------------- */

static uint64_t sc[3] = {1, 200, 40000}, rc3[3] = {7, 0, 1u << 31};
static uint32_t rq[5] = {3, 4, 5, 9, 2};

/* A deterministic op of `kind`, varied by i, with the fields its kind uses. */
static inline struct trace_op sample_op(unsigned kind, uint64_t i, uint64_t t)
{
	struct trace_op op;
	memset(&op, 0, sizeof op);
	op.kind = (uint16_t)kind;
	op.t_ps = t;
	op.dur_ps = 1000 + (i % 7) * 333;
	switch (kind) {
	case TOP_COMPUTE:
		op.dur_ps = 1000000 + i;
		op.cpu_ps = i % 3 ? 900000 + i : 0; /* format 2; absent on some */
		break;
	case TOP_COMPUTE_FLOPS:
		op.flops = 1.5e9 + (double)i;
		break;
	case TOP_SEND: case TOP_SSEND: case TOP_BSEND: case TOP_RSEND:
		op.peer = (int32_t)(i % 2);
		op.tag = (int32_t)(i % 3) - 1;
		op.bytes = 8 * i;
		op.comm = (uint32_t)(i % 2) * 2;
		break;
	case TOP_ISEND: case TOP_ISSEND: case TOP_IRECV: case TOP_SEND_INIT: case TOP_RECV_INIT:
		op.peer = kind == TOP_IRECV ? TRACE_ANY_SOURCE : (int32_t)(i % 3);
		op.tag = 42;
		op.bytes = 1ull << (i % 40);
		op.req = (uint32_t)(i % 17) + 1;
		break;
	case TOP_RECV: case TOP_PROBE: case TOP_IPROBE:
		op.peer = TRACE_PROC_NULL;
		op.tag = TRACE_ANY_TAG;
		op.bytes = i;
		op.n_done = kind == TOP_IPROBE;
		break;
	case TOP_SENDRECV:
		op.peer = 1;
		op.tag = 5;
		op.bytes = 100;
		op.recv_peer = 2;
		op.recv_tag = -1;
		op.recv_bytes = 200;
		break;
	case TOP_START: case TOP_REQUEST_FREE: case TOP_WAIT: case TOP_TEST:
		op.req = (uint32_t)i + 1;
		op.n_done = kind == TOP_TEST ? 1 : 0;
		break;
	case TOP_WAITALL: case TOP_WAITANY: case TOP_WAITSOME:
	case TOP_TESTALL: case TOP_TESTANY: case TOP_TESTSOME:
		op.n_reqs = 1 + (uint32_t)(i % 5);
		op.reqs = rq;
		/* In range for trace verify: all of them for waitall and testall, one otherwise. */
		op.n_done = kind == TOP_WAITALL || kind == TOP_TESTALL ? op.n_reqs : 1;
		if (kind == TOP_TESTSOME)
			op.flags = TRACE_F_NO_OUTCOME;
		break;
	case TOP_GATHERV: case TOP_SCATTERV: case TOP_ALLGATHERV: case TOP_ALLTOALLV:
	case TOP_ALLTOALLW: case TOP_REDUCE_SCATTER:
		op.n_counts = 3;
		op.send_counts = kind == TOP_REDUCE_SCATTER ? NULL : sc;
		op.recv_counts = rc3;
		op.peer = kind == TOP_GATHERV || kind == TOP_SCATTERV ? 2 : 0;
		break;
	case TOP_COMM_SPLIT:
		op.color = (int32_t)(i % 2);
		op.key = -(int32_t)i;
		op.new_comm = 2;
		break;
	case TOP_COMM_DUP: case TOP_COMM_CREATE:
		op.new_comm = TRACE_COMM_NULL;
		break;
	case TOP_COMM_FREE:
		op.comm = 2;
		break;
	case TOP_CANCEL: /* cancelled, not cancelled, or unknown */
		op.req = (uint32_t)(i % 17) + 1;
		op.n_done = i % 3 == 1;
		op.flags = i % 3 == 2 ? TRACE_F_NO_OUTCOME : 0;
		break;
	default: /* the other collectives */
		op.peer = kind == TOP_BCAST || kind == TOP_REDUCE ? 2 : 0;
		op.bytes = 4096 + i;
		op.recv_bytes = kind == TOP_ALLGATHER ? 4096 : 0;
		op.flops = kind == TOP_ALLREDUCE ? 0.25 : 0;
		op.flags = kind == TOP_BARRIER ? TRACE_F_NONBLOCKING : 0;
		op.req = kind == TOP_BARRIER ? 77 : 0;
		break;
	}
	return op;
}

/* --- archives ------------------------------------------------------------ */

#define N_RANKS 3

static uint32_t comm2_ranks[] = {0, 2, 1}; /* every rank: each uses comm 2 (verify checks membership) */
static uint32_t comm5_ranks[] = {2, 1, 0};

/* Write a 3-rank archive: rank r has n_ops ops cycling through every kind
 * (rank 1 is empty when empty_rank1). Returns 0 or the error code. */
static inline int write_archive(const char *path, uint64_t n_ops, uint32_t frame_target, bool empty_rank1,
			 struct nl_err *e)
{
	const char *sp[N_RANKS];
	struct trace_write_opts o = {.frame_target = frame_target, .zstd_level = 3};
	for (uint32_t r = 0; r < N_RANKS; r++) {
		char name[64];
		snprintf(name, sizeof name, "rank%u.nls", r);
		sp[r] = test_tmppath(name);
		struct trace_stream_writer *w;
		int rc = trace_stream_open_opts(&w, r, sp[r], &o, e);
		if (rc)
			return rc;
		uint64_t t = 0;
		uint64_t n = (empty_rank1 && r == 1) ? 0 : n_ops;
		for (uint64_t i = 0; i < n; i++) {
			struct trace_op op = sample_op((unsigned)((i + r) % TOP__COUNT), i, t);
			t += op.dur_ps + (i % 3) * 10;
			rc = trace_stream_append(w, &op, e);
			if (rc) {
				trace_stream_abort(w);
				return rc;
			}
		}
		rc = trace_stream_close(w, NULL, NULL, NULL, e);
		if (rc)
			return rc;
	}
	struct trace_comm comms[] = {
		{5, 3, comm5_ranks},
		{2, 3, comm2_ranks},
		{0, N_RANKS, NULL}, /* world: skipped by the writer */
	};
	struct trace_manifest m = {
		.n_ranks = N_RANKS,
		.application = "unit \"test\"",
		.command_line = "./unit --flag\tx",
		.machine = "host-1",
		.recorder = "test 0.1",
		.mpi_library = "",
		.start_unix = 1700000000,
		.recorded_runtime_s = 12.5,
		.n_comms = 3,
		.comms = comms,
		/* compute ops carry cpu */
		.has_host_info = true,
		.hosts = 1,
		.ranks_per_host = N_RANKS,
		.cores_per_host = 4,
		.has_compute_cpu = true,
	};
	int rc = trace_archive_write(path, &m, sp, e);
	for (uint32_t r = 0; r < N_RANKS; r++)
		unlink(sp[r]);
	return rc;
}


#endif
