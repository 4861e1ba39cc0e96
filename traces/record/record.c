/* netloom-record core: MPI_Init/MPI_Finalize, the clock, compute gaps, the
 * failure policy and per-call scratch storage.
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

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"

#ifndef NETLOOM_VERSION
#define NETLOOM_VERSION "0.0.0"
#endif

#define REC_STR_MAX 4096
#define REC_POLL_REQS_MAX 64 /* longer request lists are never folded */

/* The one process-wide recorder state (see record_internal.h for why). */
static struct rec_state {
	bool is_enabled;        /* MPI_Init set us up; MPI_Finalize must assemble */
	bool is_active;         /* recording; false for good after a failure */
	bool is_sink_open;      /* the stream file exists and is ours */
	int depth;              /* >0 inside a recorded call: nested MPI calls pass through */
	int rank, size;         /* in MPI_COMM_WORLD */
	MPI_Comm priv;          /* private dup of world: finalize traffic only */
	MPI_Group world_group;
	uint64_t t0_ns;         /* CLOCK_MONOTONIC when PMPI_Init returned */
	uint64_t last_end_ps;   /* end of the previous recorded call */
	uint64_t last_end_cpu_ns; /* thread CPU time at that end */
	uint32_t hosts, ranks_per_host, cores_per_host; /* where the ranks run (MPI_Init) */
	bool is_cpu_time;       /* compute ops carry CPU time (NETLOOM_TRACE_CPU) */
	uint64_t start_unix;    /* rank 0's wall clock at MPI_Init, s */
	uint64_t unsup[REC_UNSUP__COUNT];
	bool is_writing;        /* inside the recorded window (NETLOOM_TRACE_START_BARRIER) */
	uint64_t start_barrier; /* world barriers to skip; 0 = record from MPI_Init */
	uint64_t n_world_barriers; /* MPI_Barrier(MPI_COMM_WORLD) calls returned so far */
	bool is_fold_polls;     /* NETLOOM_TRACE_POLLS=fold */
	bool is_poll_armed;     /* the last op written was an unsuccessful poll */
	struct trace_op poll;   /* that poll (reqs copied to poll_reqs) */
	uint32_t poll_reqs[REC_POLL_REQS_MAX];
	uint64_t n_folded;      /* polls not written */
	char out_path[PATH_MAX];
	char out_shown[PATH_MAX]; /* out_path as given (NETLOOM_TRACE or the default name) */
	char stream_path[PATH_MAX];
	char application[256];
	char command_line[REC_STR_MAX];
	char machine[512];
	char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING];
	/* scratch, grown on demand */
	uint64_t *counts[2];
	size_t n_counts[2];
	uint32_t *reqs;
	size_t n_reqs;
	MPI_Request *handles;
	size_t n_handles;
	int *ints;
	size_t n_ints;
	struct trace_op *ops;
	size_t n_ops;
} rec = {.priv = MPI_COMM_NULL, .world_group = MPI_GROUP_NULL};

static uint64_t rec_clock_ns(void)
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
 * (nl_str_one_line, \n and \xHH), never cut. One fprintf: ranks sharing
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
static void rec_window_open(void)
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

/* --- what the manifest says about the run ---------------------------------- */

/* Append s to out, single-quoted when it holds shell metacharacters, so the
 * recorded command line can be pasted back into a shell. */
static void rec_cmdline_append(char *out, size_t cap, const char *s)
{
	size_t len = strlen(out);
	bool needs_quote = !*s || strpbrk(s, " \t\n'\"\\$`*?[]{}()<>|&;~#!") != NULL;

	if (len && len + 1 < cap)
		out[len++] = ' ';
	if (needs_quote && len + 1 < cap)
		out[len++] = '\'';
	for (; *s && len + 5 < cap; s++) {
		if (*s == '\'' && needs_quote) {
			memcpy(out + len, "'\\''", 4);
			len += 4;
		} else {
			out[len++] = *s;
		}
	}
	if (needs_quote && len + 1 < cap)
		out[len++] = '\'';
	out[len] = '\0';
}

static void rec_read_cmdline(void)
{
	char buf[REC_STR_MAX];
	size_t n = 0;
	FILE *f = fopen("/proc/self/cmdline", "rb");

	snprintf(rec.application, sizeof rec.application, "unknown");
	rec.command_line[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n) {
		const char *slash = strrchr(buf, '/');
		snprintf(rec.application, sizeof rec.application, "%s", slash ? slash + 1 : buf);
	}
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		rec_cmdline_append(rec.command_line, sizeof rec.command_line, buf + i);
}

static void rec_read_machine(void)
{
	char host[256] = "unknown", model[256] = "";
	struct utsname u;
	char line[512];
	FILE *f;

	gethostname(host, sizeof host - 1);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && colon) {
			colon += 1 + (colon[1] == ' ');
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(model, sizeof model, ", %s", colon);
			break;
		}
	}
	if (f)
		fclose(f);
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	snprintf(rec.machine, sizeof rec.machine, "%s (%s %s %s, %ld CPUs%s)", host, u.sysname,
		 u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN), model);
}

/* "Open MPI v4.1.4, package: ..." -> "Open MPI 4.1.4". */
static void rec_read_mpi_library(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int len = 0;
	char *p;

	if (PMPI_Get_library_version(v, &len) != MPI_SUCCESS)
		v[0] = '\0';
	v[strcspn(v, ",\n")] = '\0';
	p = strstr(v, " v");
	if (p && p[2] >= '0' && p[2] <= '9')
		memmove(p + 1, p + 2, strlen(p + 2) + 1);
	snprintf(rec.mpi_library, sizeof rec.mpi_library, "%s", v);
}

/* path made absolute against the working directory now (in MPI_Init): a
 * program that changes directory later (a solver's output folder) still
 * writes its streams and archive where the recording began; relative,
 * they were looked for in the new directory and the trace was lost. */
static int rec_absolute(char *path, size_t cap)
{
	char cwd[PATH_MAX], tmp[PATH_MAX];
	if (path[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof cwd))
		return -1;
	int n = snprintf(tmp, sizeof tmp, "%s/%s", strcmp(cwd, "/") ? cwd : "", path);
	if (n < 0 || (size_t)n >= sizeof tmp || (size_t)n >= cap)
		return -1;
	memcpy(path, tmp, (size_t)n + 1);
	return 0;
}

/* The folder the stream files go in, into dir: tmpdir when set, else the
 * archive's folder ("." for a bare name, "/" for one at the root). The
 * one rule for rec_paths and the checks at MPI_Init (rec_check_name_length),
 * so the folder checked is the folder written in. */
static const char *rec_stream_folder(const char *out, const char *tmpdir, char *dir, size_t cap)
{
	const char *slash = out && *out ? strrchr(out, '/') : NULL;

	if (tmpdir && *tmpdir)
		snprintf(dir, cap, "%s", tmpdir);
	else if (!slash)
		snprintf(dir, cap, ".");
	else
		snprintf(dir, cap, "%.*s", slash == out ? 1 : (int)(slash - out), out);
	return dir;
}

/* NETLOOM_TRACE, or "<app>-<np>.nlt" in the working directory. The stream
 * files go beside the archive (NETLOOM_TRACE_TMPDIR overrides), named with
 * a run tag all ranks share so concurrent runs do not collide. */
static int rec_paths(const char *run_tag, int rank)
{
	const char *env = getenv("NETLOOM_TRACE");
	const char *tmp = getenv("NETLOOM_TRACE_TMPDIR");
	char dir[PATH_MAX];
	const char *base;
	int n;

	if (env && *env)
		n = snprintf(rec.out_path, sizeof rec.out_path, "%s", env);
	else
		n = snprintf(rec.out_path, sizeof rec.out_path, "%s-%d.nlt", rec.application, rec.size);
	if (n < 0 || (size_t)n >= sizeof rec.out_path)
		return -1;
	memcpy(rec.out_shown, rec.out_path, (size_t)n + 1);
	if (rec_absolute(rec.out_path, sizeof rec.out_path) < 0)
		return -1;
	rec_stream_folder(rec.out_path, tmp, dir, sizeof dir);
	if (tmp && *tmp && rec_absolute(dir, sizeof dir) < 0)
		return -1;
	base = strrchr(rec.out_path, '/');
	base = base ? base + 1 : rec.out_path;
	n = snprintf(rec.stream_path, sizeof rec.stream_path, "%s/.%s.%s.r%d.stream", dir, base,
		     run_tag, rank);
	return n < 0 || (size_t)n >= sizeof rec.stream_path ? -1 : 0;
}

/* Drop a stream file left behind when the program exits without
 * MPI_Finalize (MPI_Abort kills us before this runs; nothing to do then).
 * The user ran the program to get an archive and none will come: rank 0
 * says so, once for the run, unless recording had already stopped and
 * said why (rec_fail), since every rank that skips MPI_Finalize lands
 * here. */
static void rec_atexit(void)
{
	if (rec.rank == 0 && rec.is_active)
		fprintf(stderr, REC_NAME ": no trace written: the program exited without calling MPI_Finalize; "
				"expected MPI_Finalize before the program ends\n");
	if (rec.is_sink_open) {
		rec_sink_abort();
		rec.is_sink_open = false;
	}
}

/* Collective over rec.priv, inside MPI_Init: how many hosts the ranks run
 * on, the most ranks on one host, and the fewest CPUs the ranks of one
 * host may run on (the union of their affinity masks: with one rank bound
 * per core each mask has one CPU, oversubscribed ranks are not bound).
 * Replay uses ranks per core to say whether recorded times are CPU
 * time-sharing (issue 9). Leaves zeros (unknown) when a call fails. */
static void rec_read_hosts(void)
{
	MPI_Comm node = MPI_COMM_NULL;
	cpu_set_t set;
	int node_size = 0, node_rank = 0;
	int v[3];

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) == 0) {
		CPU_ZERO(&set);
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		for (long i = 0; i < n && i < CPU_SETSIZE; i++)
			CPU_SET((int)i, &set);
	}
	if (PMPI_Comm_split_type(rec.priv, MPI_COMM_TYPE_SHARED, rec.rank, MPI_INFO_NULL, &node) !=
		    MPI_SUCCESS ||
	    PMPI_Comm_size(node, &node_size) != MPI_SUCCESS || PMPI_Comm_rank(node, &node_rank) != MPI_SUCCESS ||
	    PMPI_Allreduce(MPI_IN_PLACE, &set, (int)sizeof set, MPI_BYTE, MPI_BOR, node) != MPI_SUCCESS)
		goto out;
	/* hosts (sum of node leaders), -(most ranks on a host), fewest CPUs. */
	int leaders = node_rank == 0, most = node_size, cores = CPU_COUNT(&set);
	if (PMPI_Allreduce(&leaders, &v[0], 1, MPI_INT, MPI_SUM, rec.priv) != MPI_SUCCESS ||
	    PMPI_Allreduce(&most, &v[1], 1, MPI_INT, MPI_MAX, rec.priv) != MPI_SUCCESS ||
	    PMPI_Allreduce(&cores, &v[2], 1, MPI_INT, MPI_MIN, rec.priv) != MPI_SUCCESS)
		goto out;
	rec.hosts = (uint32_t)v[0];
	rec.ranks_per_host = (uint32_t)v[1];
	rec.cores_per_host = (uint32_t)v[2];
out:
	if (node != MPI_COMM_NULL)
		PMPI_Comm_free(&node);
}

/* Whether folder (where setting var=value puts a file) can take files:
 * "" when it can, else the problem in bad. Checked in MPI_Init so that a
 * missing folder is said once, before the run, not found when the streams
 * are created (a line per rank) or, when only the archive goes there
 * (NETLOOM_TRACE_TMPDIR set), after the whole run by rank 0. */
static void rec_check_folder(const char *var, const char *value, const char *folder, char *bad, size_t cap)
{
	struct stat st;
	char what[PATH_MAX + 16] = ""; /* the folder, when the value is not the folder itself */

	if (strcmp(value, folder))
		snprintf(what, sizeof what, " folder '%s':", folder);
	if (stat(folder, &st) != 0)
		snprintf(bad, cap, "%s='%s':%s %s; expected an existing folder", var, value, what, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		snprintf(bad, cap, "%s='%s':%s not a folder; expected an existing folder", var, value, what);
	else if (access(folder, W_OK | X_OK) != 0)
		snprintf(bad, cap, "%s='%s':%s cannot write in it: %s; expected a folder the program can write in",
			 var, value, what, strerror(errno));
}

/* The folders the recording writes into: every rank its stream file's
 * (NETLOOM_TRACE_TMPDIR, else the archive's), rank 0 also the archive's. */
static void rec_check_folders(const char *out, const char *tmp, char *bad, size_t cap)
{
	const char *slash = out && *out ? strrchr(out, '/') : NULL;
	char dir[PATH_MAX];

	if (tmp && *tmp)
		rec_check_folder("NETLOOM_TRACE_TMPDIR", tmp, tmp, bad, cap);
	if (bad[0] || !slash || (tmp && *tmp && rec.rank != 0))
		return;
	snprintf(dir, sizeof dir, "%.*s", slash == out ? 1 : (int)(slash - out), out);
	rec_check_folder("NETLOOM_TRACE", out, dir, bad, cap);
}

/* The run tag in the stream files' names: rank 0's pid and clock, at a
 * fixed width so that the longest name the run creates is known before
 * the tag is (rec_check_name_length), not dependent on the pid. */
#define REC_RUN_TAG_FMT "%016llx-%016llx"
#define REC_RUN_TAG_LEN 33

/* The archive's name (NETLOOM_TRACE, or "<app>-<np>.nlt") against the
 * longest file name the run creates from it in folder: the last rank's
 * stream ".NAME.<run>.r<rank>.stream" (rank 0's ".xfer" copies and the
 * archive's temporary name are shorter). Past the folder's limit, every
 * rank found it creating its stream, a line each; now it is said once. */
static void rec_check_name_length(const char *out, const char *folder, char *bad, size_t cap)
{
	char def[REC_STR_MAX + 32];
	const char *name = out, *slash;
	long limit;

	if (!out || !*out) {
		snprintf(def, sizeof def, "%s-%d.nlt", rec.application, rec.size);
		name = def;
	}
	slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	int rank_digits = snprintf(NULL, 0, "%d", rec.size - 1);
	size_t extra = strlen(".") + strlen(".") + REC_RUN_TAG_LEN + strlen(".r") + (size_t)rank_digits +
		       strlen(".stream");
	limit = pathconf(folder, _PC_NAME_MAX);
	if (limit <= 0)
		limit = NAME_MAX; /* unknown or no limit: the usual one */
	if (strlen(base) + extra <= (size_t)limit)
		return;
	size_t most = (size_t)limit > extra ? (size_t)limit - extra : 0;
	if (out && *out)
		snprintf(bad, cap,
			 "NETLOOM_TRACE='%s': file name of %zu bytes; the ranks' stream files "
			 "(.NAME.<run>.r<rank>.stream) add %zu, past the folder's limit of %ld bytes a name; "
			 "expected a file name of at most %zu bytes",
			 out, strlen(base), extra, limit, most);
	else
		snprintf(bad, cap,
			 "default archive name '%s' (NETLOOM_TRACE unset): %zu bytes; the ranks' stream files "
			 "(.NAME.<run>.r<rank>.stream) add %zu, past the folder's limit of %ld bytes a name; "
			 "expected NETLOOM_TRACE set to a file name of at most %zu bytes",
			 name, strlen(base), extra, limit, most);
}

/* The same for the whole path: the last rank's stream path, made
 * absolute as rec_paths makes it, within PATH_MAX (every rank said
 * "output path too long (NETLOOM_TRACE)", naming no length or limit).
 * rec_paths fills rec's paths with a stand-in tag here; MPI_Init fills
 * them again with the real one. */
static void rec_check_path_length(const char *out, const char *tmpdir, char *bad, size_t cap)
{
	char tag[REC_RUN_TAG_LEN + 1];

	memset(tag, 'x', REC_RUN_TAG_LEN);
	tag[REC_RUN_TAG_LEN] = '\0';
	if (rec_paths(tag, rec.size - 1) == 0)
		return;
	if (tmpdir && *tmpdir)
		snprintf(bad, cap,
			 "NETLOOM_TRACE_TMPDIR='%s' (%zu bytes) with NETLOOM_TRACE='%s' (%zu bytes): the ranks' stream "
			 "file paths (.NAME.<run>.r<rank>.stream, absolute) pass the limit of %d bytes a path; expected "
			 "shorter paths",
			 tmpdir, strlen(tmpdir), out ? out : "", out ? strlen(out) : 0, PATH_MAX);
	else
		snprintf(bad, cap,
			 "NETLOOM_TRACE='%s': path of %zu bytes; the ranks' stream file paths beside it "
			 "(.NAME.<run>.r<rank>.stream, absolute) pass the limit of %d bytes a path; expected a shorter "
			 "path",
			 out ? out : "", out ? strlen(out) : 0, PATH_MAX);
}

/* The settings (environment variables), checked in MPI_Init: parsed into
 * rec (NETLOOM_TRACE_CPU into *cpu: 'a'uto, 'y' on, 'n' off), or the first
 * problem, as one line without the "netloom-record: " prefix, in bad
 * ("" when there is none). */
static void rec_read_settings(char *bad, size_t cap, char *cpu_mode)
{
	const char *cpu = getenv("NETLOOM_TRACE_CPU");
	const char *polls = getenv("NETLOOM_TRACE_POLLS");
	const char *out = getenv("NETLOOM_TRACE");
	const char *sb = getenv("NETLOOM_TRACE_START_BARRIER");
	const char *tmpdir = getenv("NETLOOM_TRACE_TMPDIR");
	char dir[PATH_MAX];
	struct stat st;

	bad[0] = '\0';
	*cpu_mode = 'a';
	if (cpu && *cpu && strcmp(cpu, "auto") && strcmp(cpu, "on") && strcmp(cpu, "off")) {
		snprintf(bad, cap, "NETLOOM_TRACE_CPU='%s': expected 'auto', 'on' or 'off'", cpu);
		return;
	}
	if (cpu && (!strcmp(cpu, "on") || !strcmp(cpu, "off")))
		*cpu_mode = cpu[1] == 'n' ? 'y' : 'n';
	if (polls && *polls && strcmp(polls, "all") && strcmp(polls, "fold")) {
		snprintf(bad, cap, "NETLOOM_TRACE_POLLS='%s': expected 'all' or 'fold'", polls);
		return;
	}
	rec.is_fold_polls = polls && !strcmp(polls, "fold");
	/* A directory is found now, once, not after the whole run as the
	 * archive cannot replace it (and on every rank). */
	if (out && *out && stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(bad, cap,
			 "NETLOOM_TRACE='%s': a directory; expected the archive's file name (e.g. %s/run.nlt)",
			 out, out);
		return;
	}
	/* As trace convert's OUT '-': not standard output, where the other
	 * netloom commands write (an archive is read back by offset), nor a
	 * file named '-' in the working folder. */
	if (out && !strcmp(out, "-")) {
		snprintf(bad, cap,
			 "NETLOOM_TRACE='-': not a file name (an archive cannot go to standard output); expected "
			 "the archive's file name (e.g. run.nlt)");
		return;
	}
	/* What the archive's writer refuses at MPI_Finalize (trace_afile_open,
	 * as trace convert refuses it as OUT), found now, once, not after the
	 * whole run with the trace lost: a symbolic link to a missing file, a
	 * device or FIFO (an archive is read back by offset), a socket. */
	if (out && *out && lstat(out, &st) == 0) {
		if (S_ISLNK(st.st_mode) && stat(out, &st) != 0) {
			snprintf(bad, cap,
				 "NETLOOM_TRACE='%s': a symbolic link to a missing file (%s); expected a file to write",
				 out, strerror(errno));
			return;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(bad, cap, "NETLOOM_TRACE='%s': %s; expected the archive's file name (e.g. run.nlt)", out,
				 S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ? "a device or FIFO" : "not a regular file");
			return;
		}
	}
	rec_check_folders(out, tmpdir, bad, cap);
	if (bad[0])
		return;
	rec_check_name_length(out, rec_stream_folder(out, tmpdir, dir, sizeof dir), bad, cap);
	if (bad[0])
		return;
	rec_check_path_length(out, tmpdir, bad, cap);
	if (bad[0])
		return;
	rec.start_barrier = 0;
	if (sb && *sb) {
		char *end = NULL;
		unsigned long long v;
		errno = 0;
		v = strtoull(sb, &end, 10);
		/* Digits only: strtoull would take " -1" (leading space, sign)
		 * as 2^64 - 1. */
		if (*sb < '0' || *sb > '9' || errno || !end || *end) {
			snprintf(bad, cap,
				 "NETLOOM_TRACE_START_BARRIER='%s': expected a count of MPI_Barrier "
				 "calls on MPI_COMM_WORLD (0 or more)",
				 sb);
			return;
		}
		rec.start_barrier = v;
	}
}

/* FNV-1a of a string: ranks compare their settings problems by it. */
static uint64_t rec_str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Collective over world, inside MPI_Init: agree on a run tag and the start
 * time, and on whether recording is possible at all. A settings problem
 * is printed by rank 0, and by every other rank whose problem differs
 * from rank 0's (a different value, or a problem rank 0 does not have),
 * so all ranks sharing one bad value give one line. */
static void rec_start(int provided)
{
	struct {
		uint64_t tag_pid, tag_ns, start_unix, bad_hash;
		int32_t is_multiple;
	} agree = {0};
	char run_tag[64], bad[2 * PATH_MAX], cpu_mode;

	if (PMPI_Comm_rank(MPI_COMM_WORLD, &rec.rank) != MPI_SUCCESS ||
	    PMPI_Comm_size(MPI_COMM_WORLD, &rec.size) != MPI_SUCCESS ||
	    PMPI_Comm_dup(MPI_COMM_WORLD, &rec.priv) != MPI_SUCCESS ||
	    PMPI_Comm_group(MPI_COMM_WORLD, &rec.world_group) != MPI_SUCCESS) {
		fprintf(stderr, REC_NAME ": cannot set up (MPI_Comm_dup failed); not recording\n");
		return;
	}
	PMPI_Comm_set_errhandler(rec.priv, MPI_ERRORS_RETURN);
	rec.is_enabled = true;

	rec_read_cmdline(); /* the default archive name is the program's */
	rec_read_settings(bad, sizeof bad, &cpu_mode);
	if (rec.rank == 0) {
		agree.tag_pid = (uint64_t)getpid();
		agree.tag_ns = rec_clock_ns();
		agree.start_unix = (uint64_t)time(NULL);
		agree.bad_hash = rec_str_hash(bad);
	}
	agree.is_multiple = provided == MPI_THREAD_MULTIPLE;
	if (PMPI_Bcast(&agree, 4, MPI_UINT64_T, 0, rec.priv) != MPI_SUCCESS ||
	    PMPI_Allreduce(MPI_IN_PLACE, &agree.is_multiple, 1, MPI_INT32_T, MPI_MAX, rec.priv) !=
		    MPI_SUCCESS) {
		fprintf(stderr, REC_NAME ": rank %d: cannot agree on a run tag; not recording\n", rec.rank);
		return;
	}
	if (agree.is_multiple) {
		if (rec.rank == 0)
			fprintf(stderr, REC_NAME ": MPI_THREAD_MULTIPLE is not supported; not recording\n");
		return;
	}
	rec.start_unix = agree.start_unix;
	rec_read_hosts(); /* collective: every rank, whatever its settings */
	if (bad[0]) {
		if (rec.rank == 0)
			rec_say("%s; not recording", bad);
		else if (rec_str_hash(bad) != agree.bad_hash)
			rec_say("rank %d: %s; not recording", rec.rank, bad);
		return;
	}
	/* auto: only when ranks share cores (unknown counts as shared). */
	rec.is_cpu_time = cpu_mode == 'y'   ? true
			  : cpu_mode == 'n' ? false
					    : !rec.cores_per_host || rec.ranks_per_host > rec.cores_per_host;
	snprintf(run_tag, sizeof run_tag, REC_RUN_TAG_FMT, (unsigned long long)agree.tag_pid,
		 (unsigned long long)agree.tag_ns);
	rec_read_machine();
	rec_read_mpi_library();
	rec.is_active = true; /* from here on, failures go through rec_fail */
	if (rec_paths(run_tag, rec.rank) < 0) {
		rec_fail("output path too long (NETLOOM_TRACE)");
		return;
	}
	if (rec_comm_setup() < 0 || rec_req_setup() < 0) {
		rec_fail("out of memory at MPI_Init");
		return;
	}
	if (rec_sink_open((uint32_t)rec.rank, rec.stream_path) < 0) {
		rec_fail("%s", rec_sink_error());
		return;
	}
	rec.is_sink_open = true;
	atexit(rec_atexit);

	/* Time zero: control returns to the program (or the window opens). */
	if (rec.start_barrier == 0)
		rec_window_open();
}

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		rec_start(MPI_THREAD_SINGLE);
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		rec_start(*provided);
	return rc;
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
