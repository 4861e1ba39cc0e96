/* netloom-record's MPI_Init (and MPI_Init_thread): what the manifest says
 * about the run (the program's command line, the machine, the MPI
 * library, where the ranks run), the archive's and stream files' paths,
 * the NETLOOM_TRACE* settings, checked here so that a bad one is said
 * once, before the run, and the collective start: the ranks agree on a
 * run tag, a start time and whether recording is possible at all. It
 * fills the recorder's state (rec, record_internal.h); record.c does the
 * recording and MPI_Finalize.
 */
#include "traces/record/record_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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
 * MPI_Finalize (MPI_Abort ends us before this runs: its wrapper in
 * record.c removes the stream files instead).
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

/* The archive's name (NETLOOM_TRACE, or "<app>-<np>.nlt") against the
 * longest file name the run creates from it in each folder it writes in:
 * the last rank's stream ".NAME.<run>.r<rank>.stream" in the stream
 * folder; with NETLOOM_TRACE_TMPDIR set, rank 0 also the last rank's
 * shipped copy ".NAME.<run>.r<rank>.xfer" in the archive's folder (the
 * archive's temporary ".NAME.tmpXXXXXX" is shorter), whose limit may be
 * another file system's. Past a folder's limit, every rank found it
 * creating its stream, a line each, or rank 0 fetching a stream after the
 * whole run; now it is said once, here. */
static void rec_check_name_length(const char *out, const char *tmpdir, char *bad, size_t cap)
{
	char def[REC_STR_MAX + 32], folder[PATH_MAX];
	const char *name = out, *slash;
	int rank_digits = snprintf(NULL, 0, "%d", rec.size - 1);
	size_t run_part = strlen(".") + strlen(".") + REC_RUN_TAG_LEN + strlen(".r") + (size_t)rank_digits;
	bool is_tmpdir = tmpdir && *tmpdir;

	if (!out || !*out) {
		snprintf(def, sizeof def, "%s-%d.nlt", rec.application, rec.size);
		name = def;
	}
	slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	for (int pass = 0; pass < 2 && !bad[0]; pass++) {
		if (pass == 1 && (!is_tmpdir || rec.rank != 0))
			break;
		/* pass 0: the streams; pass 1: rank 0's copies beside the archive */
		const char *files = pass ? "rank 0's copies of shipped streams (.NAME.<run>.r<rank>.xfer)"
					 : "the ranks' stream files (.NAME.<run>.r<rank>.stream)";
		size_t extra = run_part + strlen(pass ? ".xfer" : ".stream");
		rec_stream_folder(out, pass ? NULL : tmpdir, folder, sizeof folder);
		long limit = pathconf(folder, _PC_NAME_MAX);
		if (limit <= 0)
			limit = NAME_MAX; /* unknown or no limit: the usual one */
		if (strlen(base) + extra <= (size_t)limit)
			continue;
		size_t most = (size_t)limit > extra ? (size_t)limit - extra : 0;
		char where[PATH_MAX + 32] = ""; /* the folder, when it is not the streams' only one */
		if (is_tmpdir)
			snprintf(where, sizeof where, " in '%s'", folder);
		if (out && *out)
			snprintf(bad, cap,
				 "NETLOOM_TRACE='%s': file name of %zu bytes; %s%s add %zu, past the folder's limit of "
				 "%ld bytes a name; expected a file name of at most %zu bytes",
				 out, strlen(base), files, where, extra, limit, most);
		else
			snprintf(bad, cap,
				 "default archive name '%s' (NETLOOM_TRACE unset): %zu bytes; %s%s add %zu, past the "
				 "folder's limit of %ld bytes a name; expected NETLOOM_TRACE set to a file name of at "
				 "most %zu bytes",
				 name, strlen(base), files, where, extra, limit, most);
	}
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
	if (rec_paths(tag, rec.size - 1) == 0) {
		/* With the streams elsewhere, rank 0's shipped copies beside the
		 * archive, DIR/.NAME.<run>.r<rank>.xfer, are the longest paths
		 * there (the archive's temporary DIR/.NAME.tmpXXXXXX is shorter). */
		size_t xfer = strlen(rec.out_path) + strlen("..") + REC_RUN_TAG_LEN + strlen(".r") +
			      (size_t)snprintf(NULL, 0, "%d", rec.size - 1) + strlen(".xfer");
		if (tmpdir && *tmpdir && rec.rank == 0 && xfer >= PATH_MAX)
			snprintf(bad, cap,
				 "NETLOOM_TRACE='%s': path of %zu bytes; rank 0's copies of shipped streams beside it "
				 "(.NAME.<run>.r<rank>.xfer, absolute) pass the limit of %d bytes a path; expected a "
				 "shorter path",
				 out ? out : "", out ? strlen(out) : 0, PATH_MAX);
		return;
	}
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
	const char *quiet = getenv("NETLOOM_TRACE_QUIET");
	const char *out = getenv("NETLOOM_TRACE");
	const char *sb = getenv("NETLOOM_TRACE_START_BARRIER");
	const char *tmpdir = getenv("NETLOOM_TRACE_TMPDIR");
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
	/* 0 and empty mean "not quiet", as users write them (any value set,
	 * 0 too, was quiet); anything else is a typo, said like the others. */
	if (quiet && *quiet && strcmp(quiet, "0") && strcmp(quiet, "1")) {
		snprintf(bad, cap, "NETLOOM_TRACE_QUIET='%s': expected '0' or '1'", quiet);
		return;
	}
	rec.is_quiet = quiet && !strcmp(quiet, "1");
	/* A directory is found now, once, not after the whole run as the
	 * archive cannot replace it (and on every rank). */
	if (out && *out && stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		size_t n = strlen(out);
		snprintf(bad, cap,
			 "NETLOOM_TRACE='%s': a directory; expected the archive's file name (e.g. %s%srun.nlt)",
			 out, out, out[n - 1] == '/' ? "" : "/");
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
	rec_check_name_length(out, tmpdir, bad, cap);
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
				 "calls on MPI_COMM_WORLD, digits from 0 to %llu",
				 sb, ULLONG_MAX);
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
	char bad[2 * PATH_MAX], cpu_mode;

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
	/* A problem only rank 0 checks (the archive's folder, its names there
	 * with the streams elsewhere): every rank stops here, rank 0 said why.
	 * Recording on, the others' streams were lost at MPI_Finalize, after
	 * rank 0 failed fetching them. */
	if (agree.bad_hash != rec_str_hash(""))
		return;
	/* auto: only when ranks share cores (unknown counts as shared). */
	rec.is_cpu_time = cpu_mode == 'y'   ? true
			  : cpu_mode == 'n' ? false
					    : !rec.cores_per_host || rec.ranks_per_host > rec.cores_per_host;
	snprintf(rec.run_tag, sizeof rec.run_tag, REC_RUN_TAG_FMT, (unsigned long long)agree.tag_pid,
		 (unsigned long long)agree.tag_ns);
	rec_read_machine();
	rec_read_mpi_library();
	rec.is_active = true; /* from here on, failures go through rec_fail */
	if (rec_paths(rec.run_tag, rec.rank) < 0) {
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
