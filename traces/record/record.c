/* netloom-record core: the recorder's state, MPI_Finalize, the clock,
 * compute gaps, the failure policy and per-call scratch storage. MPI_Init,
 * and what it reads of the run and its settings, is record_init.c's.
 *
 * Time is CLOCK_MONOTONIC (vDSO, no system call) in ps since this rank's
 * PMPI_Init returned. Each recorded call appends the compute interval since
 * the previous recorded call ended (when non-empty) and then the call, so
 * a rank's stream tiles [0, MPI_Finalize] with no gaps or overlaps. Beside
 * each compute interval's wall-clock length the recorder keeps the calling
 * thread's CPU time over it (CLOCK_THREAD_CPUTIME_ID): when ranks share a
 * core, the wall-clock gap also holds the time the rank was descheduled
 * (issue 9). That clock is a system call on Linux (no vDSO), two per
 * recorded call (1.1 us per call together on the VM that records our samples), so
 * by default (NETLOOM_TRACE_CPU=auto) it is read only when the ranks of a
 * host outnumber its cores, the one case where wall and CPU time differ.
 * The hot path makes no allocation: the writer buffers encoded ops and
 * compresses a frame at a time.
 * With NETLOOM_TRACE_POLLS=fold, an unsuccessful poll (test*, iprobe) that
 * repeats the previous op exactly, with only compute in between, is not
 * written: its time joins the compute interval that follows the first one,
 * so the timeline is unchanged and a polling loop costs two ops.
 * With NETLOOM_TRACE_START_BARRIER=N, the trace starts when the program's
 * N-th MPI_Barrier on MPI_COMM_WORLD returns (on every rank at the same
 * point of the program): before it, communicators and persistent requests
 * are tracked but nothing is written, and time zero moves to the window's
 * start, where the persistent requests still alive get their
 * send_init/recv_init ops.
 */
#include "traces/record/record_internal.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"

#ifndef NETLOOM_VERSION
#define NETLOOM_VERSION "0.0.0"
#endif

/* The one process-wide recorder state (record_internal.h says why it is
 * extern). */
struct rec_state rec = {.priv = MPI_COMM_NULL, .world_group = MPI_GROUP_NULL};

uint64_t rec_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rec_cpu_ns(void)
{
	struct timespec ts;

	if (!rec.is_cpu_time)
		return 0;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rec_now_ps(void)
{
	return (rec_clock_ns() - rec.t0_ns) * 1000u;
}

int rec_world_rank(void)
{
	return rec.rank;
}

int rec_world_size(void)
{
	return rec.size;
}

MPI_Group rec_world_group(void)
{
	return rec.world_group;
}

bool rec_is_active(void)
{
	return rec.is_active;
}

/* Stop recording on this rank: no more ops, the stream file removed. */
static void rec_quit(void)
{
	rec.is_active = false;
	if (rec.is_sink_open) {
		rec_sink_abort();
		rec.is_sink_open = false;
	}
}

/* A path or setting quoted in a message may hold a newline or another
 * control byte (NETLOOM_TRACE_POLLS=$'x\ny' printed two lines, the second
 * without the prefix): escaped as the netloom CLI escapes its messages
 * (nl_str_one_line: \n, \xHH, and \\ for a backslash), never cut. One fprintf: ranks sharing
 * stderr write whole lines. */
void rec_say(const char *fmt, ...)
{
	char line[2 * PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	char *esc = malloc(4 * sizeof line);
	if (esc)
		nl_str_one_line(esc, 4 * sizeof line, line);
	fprintf(stderr, REC_NAME ": %s\n", esc ? esc : line);
	free(esc);
}

void rec_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!rec.is_active)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* The stream writer's messages name the rank already
	 * ("PATH: rank R: write failed: ..."): not twice. */
	char named[32];
	snprintf(named, sizeof named, ": rank %d: ", rec.rank);
	if (strstr(msg, named))
		rec_say("%s; recording stopped", msg);
	else
		rec_say("rank %d: %s; recording stopped", rec.rank, msg);
	rec_quit();
}

void rec_unsupported(enum rec_unsup what)
{
	if (rec.is_active && rec.is_writing)
		rec.unsup[what]++;
}

bool rec_is_writing(void)
{
	return rec.is_writing;
}

static void rec_append(const struct trace_op *op)
{
	if (rec.is_active && rec_sink_append(op) < 0)
		rec_fail("%s", rec_sink_error());
}

void rec_cancel_outcome(uint32_t req, int outcome)
{
	if (rec.is_active && rec_sink_cancel_outcome(req, outcome) < 0)
		rec_fail("%s", rec_sink_error());
}

/* Open the recorded window: time zero is now, the stream starts with init,
 * then the send_init/recv_init of the persistent requests created before
 * the window and still alive (instants at 0), so that their uses inside
 * it are recorded. */
void rec_window_open(void)
{
	struct trace_op init = {.kind = TOP_INIT};
	struct trace_op *inits;
	size_t n = 0;

	rec.t0_ns = rec_clock_ns();
	rec.last_end_ps = 0;
	rec.last_end_cpu_ns = rec_cpu_ns();
	rec.is_writing = true;
	rec_append(&init);
	inits = rec_req_window_open(&n);
	for (size_t i = 0; i < n; i++)
		rec_append(&inits[i]);
}

void rec_world_barrier_done(void)
{
	if (rec.is_active && !rec.is_writing && ++rec.n_world_barriers == rec.start_barrier)
		rec_window_open();
}

uint64_t rec_unsupported_count(enum rec_unsup what)
{
	return rec.unsup[what];
}

const char *rec_unsupported_text(enum rec_unsup what)
{
	static const char *const text[] = {
#define REC_UNSUP_TEXT_(name, t) t,
		REC_UNSUP_MAP(REC_UNSUP_TEXT_)
#undef REC_UNSUP_TEXT_
	};
	return (unsigned)what < REC_UNSUP__COUNT ? text[what] : "?";
}

void rec_begin(struct rec_call *c)
{
	if (!rec.is_active || rec.depth) {
		c->is_on = false;
		return;
	}
	rec.depth++;
	c->is_on = true;
	c->t_ps = rec_now_ps();
	c->cpu_ns = rec_cpu_ns();
}

void rec_skip(struct rec_call *c)
{
	c->is_on = false;
	rec.depth--;
}

void rec_end(struct rec_call *c, struct trace_op *op)
{
	rec_end_n(c, op, 1);
}

static bool rec_is_failed_poll(const struct trace_op *op)
{
	return op->n_done == 0 && (op->kind == TOP_TEST || op->kind == TOP_TESTANY ||
				   op->kind == TOP_TESTSOME || op->kind == TOP_TESTALL ||
				   op->kind == TOP_IPROBE);
}

/* For NETLOOM_TRACE_POLLS=fold: true when op repeats the armed poll. */
static bool rec_poll_repeats(const struct trace_op *op)
{
	const struct trace_op *p = &rec.poll;

	return rec.is_poll_armed && rec_is_failed_poll(op) && op->kind == p->kind &&
	       op->comm == p->comm && op->peer == p->peer && op->tag == p->tag &&
	       op->req == p->req && op->flags == p->flags && op->n_reqs == p->n_reqs &&
	       (!op->n_reqs || !memcmp(op->reqs, rec.poll_reqs, op->n_reqs * sizeof *op->reqs));
}

static void rec_poll_arm(const struct trace_op *op)
{
	rec.is_poll_armed = rec.is_fold_polls && rec_is_failed_poll(op) &&
			    op->n_reqs <= REC_POLL_REQS_MAX;
	if (!rec.is_poll_armed)
		return;
	rec.poll = *op;
	if (op->n_reqs)
		memcpy(rec.poll_reqs, op->reqs, op->n_reqs * sizeof *op->reqs);
}

uint64_t rec_folded_count(void)
{
	return rec.n_folded;
}

void rec_end_n(struct rec_call *c, struct trace_op *ops, size_t n)
{
	uint64_t t_end = rec_now_ps();

	if (!rec.is_writing) {
		c->is_on = false;
		rec.depth--;
		return;
	}
	if (n == 1 && rec_poll_repeats(ops)) {
		/* last_end_ps stays: the next compute interval covers this poll. */
		rec.n_folded++;
		c->is_on = false;
		rec.depth--;
		return;
	}

	if (c->t_ps > rec.last_end_ps) {
		struct trace_op gap = {
			.kind = TOP_COMPUTE,
			.t_ps = rec.last_end_ps,
			.dur_ps = c->t_ps - rec.last_end_ps,
		};
		/* One thread cannot use more CPU than wall time; the two clocks
		 * are read a few ns apart, so clamp the jitter. */
		if (rec.is_cpu_time && c->cpu_ns > rec.last_end_cpu_ns)
			gap.cpu_ps = (c->cpu_ns - rec.last_end_cpu_ns) * 1000u;
		if (gap.cpu_ps > gap.dur_ps)
			gap.cpu_ps = gap.dur_ps;
		rec_append(&gap);
	}
	for (size_t i = 0; i < n; i++) {
		ops[i].t_ps = i ? t_end : c->t_ps;
		ops[i].dur_ps = i ? 0 : t_end - c->t_ps;
		rec_append(&ops[i]);
	}
	rec_poll_arm(&ops[n - 1]);
	rec.last_end_ps = t_end;
	rec.last_end_cpu_ns = rec_cpu_ns();
	c->is_on = false;
	rec.depth--;
}

uint64_t rec_bytes(int count, MPI_Datatype dt)
{
	MPI_Count sz = 0;

	if (count <= 0 || dt == MPI_DATATYPE_NULL)
		return 0;
	if (PMPI_Type_size_x(dt, &sz) != MPI_SUCCESS || sz < 0)
		return 0;
	return (uint64_t)count * (uint64_t)sz;
}

/* Grow *buf to hold n items of `each` bytes; keeps the old contents. */
static void *rec_grow(void **buf, size_t *cap, size_t n, size_t each)
{
	size_t want;
	void *p;

	if (n <= *cap)
		return *buf;
	want = *cap ? *cap : 64;
	while (want < n)
		want *= 2;
	p = realloc(*buf, want * each);
	if (!p) {
		rec_fail("out of memory (%zu scratch entries)", want);
		return NULL;
	}
	*buf = p;
	*cap = want;
	return p;
}

uint64_t *rec_scratch_counts(int which, size_t n)
{
	return rec_grow((void **)&rec.counts[which], &rec.n_counts[which], n, sizeof(uint64_t));
}

uint32_t *rec_scratch_reqs(size_t n)
{
	return rec_grow((void **)&rec.reqs, &rec.n_reqs, n, sizeof(uint32_t));
}

MPI_Request *rec_scratch_handles(size_t n)
{
	return rec_grow((void **)&rec.handles, &rec.n_handles, n, sizeof(MPI_Request));
}

int *rec_scratch_ints(size_t n)
{
	return rec_grow((void **)&rec.ints, &rec.n_ints, n, sizeof(int));
}

struct trace_op *rec_scratch_ops(size_t n)
{
	return rec_grow((void **)&rec.ops, &rec.n_ops, n, sizeof(struct trace_op));
}

static void rec_stop(void)
{
	struct rec_run run = {
		.priv = rec.priv,
		.rank = rec.rank,
		.size = rec.size,
		.out_path = rec.out_path,
		.out_shown = rec.out_shown,
		.stream_path = rec.stream_path,
		.run_tag = rec.run_tag,
		.start_unix = rec.start_unix,
		.application = rec.application,
		.command_line = rec.command_line,
		.machine = rec.machine,
		.mpi_library = rec.mpi_library,
		.hosts = rec.hosts,
		.ranks_per_host = rec.ranks_per_host,
		.cores_per_host = rec.cores_per_host,
		.has_compute_cpu = rec.is_cpu_time,
	};
	struct rec_call c;

	/* MPI_Barrier on MPI_COMM_WORLD is collective, so every rank counted
	 * the same barriers and misses the window alike: rank 0 says it once
	 * for the run, as a bad setting is said, not one line per rank. */
	if (rec.is_active && !rec.is_writing) {
		if (rec.rank == 0)
			fprintf(stderr,
				REC_NAME ": the recorded window never opened: NETLOOM_TRACE_START_BARRIER=%llu, "
					 "but the program called MPI_Barrier on MPI_COMM_WORLD %llu time%s; "
					 "recording stopped\n",
				(unsigned long long)rec.start_barrier, (unsigned long long)rec.n_world_barriers,
				rec.n_world_barriers == 1 ? "" : "s");
		rec_quit();
	}
	rec_begin(&c);
	if (c.is_on) {
		struct trace_op op = {.kind = TOP_FINALIZE};
		run.runtime_s = (double)c.t_ps * 1e-12;
		rec_end(&c, &op);
	}
	if (rec.is_active) {
		if (rec_sink_close(&run.n_ops, &run.n_bytes, &run.hash) < 0)
			rec_fail("%s", rec_sink_error());
		else
			rec.is_sink_open = false;
	}
	run.is_ok = rec.is_active;
	rec.is_active = false;
	rec_finalize_assemble(&run);
}

int MPI_Finalize(void)
{
	if (rec.is_enabled) {
		rec_stop();
		rec.is_enabled = false;
	}
	if (rec.priv != MPI_COMM_NULL)
		PMPI_Comm_free(&rec.priv);
	if (rec.world_group != MPI_GROUP_NULL)
		PMPI_Group_free(&rec.world_group);
	rec_comm_teardown();
	rec_req_teardown();
	rec_mprobe_teardown();
	for (int i = 0; i < 2; i++) {
		free(rec.counts[i]);
		rec.counts[i] = NULL;
		rec.n_counts[i] = 0;
	}
	free(rec.reqs);
	free(rec.handles);
	free(rec.ints);
	free(rec.ops);
	rec.ops = NULL;
	rec.n_ops = 0;
	rec.reqs = NULL;
	rec.handles = NULL;
	rec.ints = NULL;
	rec.n_reqs = rec.n_handles = rec.n_ints = 0;
	return PMPI_Finalize();
}

const char *rec_version(void)
{
	return REC_NAME " " NETLOOM_VERSION;
}

/* Unlink dir's files named prefix...suffix (the run's, prefix being
 * ".NAME.<run>.r"), with path as scratch. */
static void rec_remove_run_files(const char *dir, const char *prefix, const char *suffix, char *path, size_t cap)
{
	size_t n_pre = strlen(prefix), n_suf = strlen(suffix);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, n_pre) == 0 && len > n_pre + n_suf &&
		    strcmp(e->d_name + len - n_suf, suffix) == 0 &&
		    (size_t)snprintf(path, cap, "%s/%s", dir, e->d_name) < cap)
			unlink(path);
	}
	if (d)
		closedir(d);
}

/* MPI_Abort ends every rank at once, with no MPI_Finalize and no exit
 * handlers (rec_atexit): no archive can be written, and each rank's stream
 * file stayed behind, hidden, without a word. The rank that calls it
 * removes every stream file of this run in the stream folder, its own and
 * those of the ranks about to be ended (one run tag: no other run's), and
 * the run's copies of shipped streams (.NAME.<run>.r<rank>.xfer, rank 0's
 * in MPI_Finalize: record_finalize.c) in the archive's folder, and says
 * so once. Ranks on other hosts without a shared folder keep theirs
 * (docs/recorder.md, section Failures). An open file unlinked under a
 * still-running rank is harmless: it disappears when the rank ends. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (rec.is_sink_open) {
		char dir[PATH_MAX], out_dir[PATH_MAX], prefix[PATH_MAX];
		const char *slash = strrchr(rec.stream_path, '/');
		const char *r = strrchr(rec.stream_path, '.');
		const char *out_slash = strrchr(rec.out_path, '/'); /* absolute (rec_paths) */

		rec_sink_abort();
		rec.is_sink_open = false;
		rec.is_active = false;
		/* stream_path is DIR/.NAME.<run>.r<rank>.stream: the run's files
		 * share DIR/.NAME.<run>.r (record_init.c, rec_paths). */
		while (r && r > rec.stream_path && r[-1] != '.')
			r--;
		if (slash && r && r > slash) {
			size_t n_dir = (size_t)(slash - rec.stream_path);
			memcpy(dir, rec.stream_path, n_dir);
			dir[n_dir] = '\0';
			size_t n_pre = (size_t)(r - slash - 1) + 1; /* ".NAME.<run>.r" */
			memcpy(prefix, slash + 1, n_pre);
			prefix[n_pre] = '\0';
			if (out_slash) {
				size_t n_out = (size_t)(out_slash - rec.out_path);
				memcpy(out_dir, rec.out_path, n_out);
				out_dir[n_out] = '\0';
				rec_remove_run_files(out_slash == rec.out_path ? "/" : out_dir, prefix, ".xfer",
						     rec.stream_path, sizeof rec.stream_path);
			}
			rec_remove_run_files(n_dir ? dir : "/", prefix, ".stream", rec.stream_path, sizeof rec.stream_path);
			rec_say("rank %d called MPI_Abort: no trace written; the run's stream files in '%s' removed",
				rec.rank, dir);
		}
	}
	return PMPI_Abort(comm, errorcode);
}
