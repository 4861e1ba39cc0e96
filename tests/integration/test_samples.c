/* The recorded samples in traces/samples/ (scripts/record-samples.sh): each
 * archive opens, verifies (stream hashes, op counts, every op against the
 * manifest), has the expected ranks and program, a stream per rank that
 * tiles its run from init to finalize, the runtime of its slowest rank,
 * and non-trivial point-to-point and collective traffic; the full HPCC
 * runs hold the MPI_Cancel calls ending their MPI RandomAccess sections
 * (16 per rank: every rank cancels its wildcard receives); the calibration
 * file has a well-formed table for 2, 8 and 16 ranks.
 */
#include <jansson.h>

#include "../unit/test.h"
#include "core/error.h"
#include "traces/trace.h"

#define SAMPLES NETLOOM_SOURCE_ROOT "/traces/samples/"

struct sample {
	const char *file;
	uint32_t ranks;
	const char *application;
	uint64_t min_p2p;  /* point-to-point messages (sendrecv once, not to PROC_NULL) */
	uint64_t min_coll; /* collective calls, all ranks */
	uint64_t cancels;  /* cancel ops, all ranks (exact) */
};

/* Minimums well below what the recordings hold (they vary a little from
 * one recording to the next), well above "trivially small". */
static const struct sample samples[] = {
	{"lammps-lj-2.nlt", 2, "lmp", 400, 20, 0},
	{"lammps-lj-8.nlt", 8, "lmp", 5000, 500, 0},
	{"lammps-lj-16.nlt", 16, "lmp", 10000, 1000, 0},
	{"hpcc-2.nlt", 2, "hpcc", 20000, 1000, 0}, /* a window without RandomAccess */
	{"hpcc-8.nlt", 8, "hpcc", 40000, 5000, 8 * 16},
	{"hpcc-16.nlt", 16, "hpcc", 80000, 10000, 16 * 16},
	{"pingpong-2.nlt", 2, "netloom-pingpong", 1000, 50, 0},
};

static bool is_send(unsigned k)
{
	return k == TOP_SEND || k == TOP_SSEND || k == TOP_BSEND || k == TOP_RSEND ||
	       k == TOP_ISEND || k == TOP_ISSEND || k == TOP_SENDRECV;
}

static bool is_collective(unsigned k)
{
	return k >= TOP_BARRIER && k <= TOP_EXSCAN;
}

static void check_sample(const struct sample *s)
{
	struct trace_archive *a = NULL;
	struct nl_err err = {0};
	const struct trace_manifest *m;
	uint64_t p2p = 0, coll = 0, cancels = 0, slowest_ps = 0;
	char path[4096];

	snprintf(path, sizeof path, SAMPLES "%s", s->file);
	fprintf(stderr, "  %s\n", s->file);
	if (trace_archive_open(&a, path, &err) < 0) {
		TEST_FAIL_("%s", err.msg);
		return;
	}
	if (trace_archive_verify(a, &err) < 0)
		TEST_FAIL_("%s: %s", s->file, err.msg);
	m = trace_archive_manifest(a);
	CHECK_UINT(m->n_ranks, ==, s->ranks);
	CHECK_STR(m->application, s->application);
	CHECK(m->recorder && !strncmp(m->recorder, "netloom-record ", 15));
	CHECK(m->mpi_library && !strncmp(m->mpi_library, "Open MPI ", 9));
	CHECK(m->recorded_runtime_s > 0);
	for (uint32_t r = 0; r < m->n_ranks; r++) {
		struct trace_rank_reader *rd = NULL;
		struct trace_op op;
		uint64_t n = 0, end_ps = 0, fin_ps = 0;
		int rc, last = -1;
		if (trace_rank_open(a, r, &rd, &err) < 0) {
			TEST_FAIL_("%s rank %u: %s", s->file, r, err.msg);
			continue;
		}
		while ((rc = trace_rank_next(rd, &op, &err)) == 1) {
			if (n == 0)
				CHECK(op.kind == TOP_INIT && op.t_ps == 0);
			else if (op.t_ps != end_ps) {
				TEST_FAIL_("%s rank %u op %" PRIu64 ": starts at %" PRIu64
					   " ps, previous ended at %" PRIu64,
					   s->file, r, n, op.t_ps, end_ps);
				break;
			}
			end_ps = op.t_ps + op.dur_ps;
			n++;
			last = op.kind;
			if (op.kind == TOP_FINALIZE)
				fin_ps = op.t_ps;
			if (is_send(op.kind) && op.peer != TRACE_PROC_NULL)
				p2p++;
			if (is_collective(op.kind))
				coll++;
			cancels += op.kind == TOP_CANCEL;
		}
		CHECK_INT(rc, ==, 0);
		CHECK_INT(last, ==, TOP_FINALIZE);
		CHECK_UINT(n, ==, m->rank_ops[r]);
		slowest_ps = fin_ps > slowest_ps ? fin_ps : slowest_ps;
		trace_rank_close(rd);
	}
	CHECK_NEAR(m->recorded_runtime_s, (double)slowest_ps * 1e-12, 1e-9);
	CHECK_UINT(p2p, >=, s->min_p2p);
	CHECK_UINT(coll, >=, s->min_coll);
	CHECK_UINT(cancels, ==, s->cancels);
	trace_archive_close(a);
}

static void test_archives(void)
{
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
		check_sample(&samples[i]);
}

static void test_calibration(void)
{
	json_error_t jerr;
	json_t *doc = json_load_file(SAMPLES "calibration-shm.json", 0, &jerr);
	const int want_ranks[] = {2, 8, 16};
	json_t *runs;

	if (!doc) {
		TEST_FAIL_("calibration-shm.json: line %d: %s", jerr.line, jerr.text);
		return;
	}
	runs = json_object_get(doc, "runs");
	CHECK(json_is_array(runs) && json_array_size(runs) == 3);
	for (size_t i = 0; i < json_array_size(runs) && i < 3; i++) {
		json_t *run = json_array_get(runs, i), *tab = json_object_get(run, "one_way");
		double lat = json_number_value(json_object_get(run, "latency_s"));
		double bw = json_number_value(json_object_get(run, "bandwidth_Bps"));
		CHECK_INT(json_integer_value(json_object_get(run, "ranks")), ==, want_ranks[i]);
		/* One-way latency of shared memory: between 10 ns and 10 ms,
		 * bandwidth between 10 MB/s and 1 TB/s. */
		CHECK(lat > 1e-8 && lat < 1e-2);
		CHECK(bw > 1e7 && bw < 1e12);
		for (int x = 0; x < 2; x++) {
			/* The ping-pong's one-way times, then the exchanges'. */
			json_t *t = x ? json_object_get(run, "exchange") : tab;
			CHECK(json_is_array(t) && json_array_size(t) == 24);
			for (size_t k = 0; k < json_array_size(t); k++) {
				json_t *row = json_array_get(t, k);
				json_int_t bytes = json_integer_value(json_object_get(row, "bytes"));
				CHECK_INT(bytes, ==, k ? (json_int_t)1 << (k - 1) : 0);
				double best = json_number_value(json_object_get(row, "seconds"));
				CHECK(best > 0);
				CHECK(json_number_value(json_object_get(row, "median_seconds")) >= best);
			}
		}
		CHECK_NEAR(json_number_value(json_object_get(json_array_get(tab, 0), "seconds")), lat,
			   1e-15);
	}
	json_decref(doc);
}

int main(void)
{
	TEST_RUN(test_archives);
	TEST_RUN(test_calibration);
	return test_done();
}
