/* netloom compare: candidate systems side by side under real workloads
 * (issue 15, docs/procurement.md). The work is session_compare's; this
 * file parses options, prints the problems and writes the report.
 *
 *   netloom compare STUDY.ini -o DIR [-j N]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_compare_html.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "core/version.h"
#include "net/net.h"

enum { CLI_COMPARE_FAILED_CELLS = 3 };

static const char compare_usage[] =
	"usage: netloom compare STUDY.ini -o DIR [-j N]\n"
	"\n"
	"Replays every workload of the study file on every candidate system\n"
	"(once per seed of [study] seeds, or once in all where the workload's\n"
	"placement does not use the seed: only random-node and random-router\n"
	"do), prices each system under the study's cost preset (or its own\n"
	"layout_* keys), and writes DIR/index.html (tables and gnuplot SVG\n"
	"plots, static: open it in a browser), DIR/report.json and DIR/report.md\n"
	"(docs/procurement.md).\n"
	"Results are cached in DIR/cache: a re-run computes only what changed.\n"
	"\n"
	"STUDY.ini (INI; relative paths from its folder):\n"
	"  [study]            backend (analytic or flit), seeds (1..64), preset\n"
	"                     (netloom cost --list-presets), reference (a system)\n"
	"  [system NAME]      one per candidate: topology (required), config =\n"
	"                     FILE.ini and/or configuration keys (netloom config\n"
	"                     --keys), not placement or placement_seed\n"
	"  [workload NAME]    one or more: trace (required), ranks, weight,\n"
	"                     placement (linear, or a policy of docs/placement.md)\n"
	"\n"
	"  -o, --output DIR  the report's directory (created)\n"
	"  -j, --jobs N      replays run at once (threads, 1..64, default 1; per\n"
	"                    rank under mpirun); results do not depend on N\n"
	"  -h, --help        this text\n"
	"\n"
	"Under 'mpirun -np N' (or srun) the replays are spread over the ranks,\n"
	"replay i on rank i mod N, with the same report; rank 0 writes it and\n"
	"the cache, which every rank reads (docs/scaling.md).\n"
	"\n"
	"Exit status: 0 every cell ran; 3 the report was written but some cells\n"
	"failed (deadlock or error, marked in the report); 1 an error while\n"
	"running or writing (no report, the previous one left whole); 2 a bad\n"
	"command line or study file, or a DIR the report cannot be written to\n"
	"or whose report files are files the study reads (nothing run, nothing\n"
	"written).\n";

/* The report's files, written together or not at all (compare_write). */
enum { COMPARE_N_FILES = 3 };
static const char *const compare_files[COMPARE_N_FILES] = {"report.json", "report.md", "index.html"};

/* Whether the report can be written into dir, checked before the study
 * runs: a directory where report.md goes, or a DIR or DIR/cache that is
 * a file, fails now with nothing run (exit 2, docs/procurement.md "every
 * problem is found before the first replay"), not after every replay (nor,
 * for DIR/cache, after the systems were built and priced). A DIR not yet
 * there is session_compare's to create, in a folder that must be there
 * and writable: checked as an output file's is, its line naming -o as
 * every output's names its option ("-o: nodir/x: nodir: no such
 * directory", where session_compare's mkdir said "nodir/x: cannot create
 * directory: No such file or directory"). */
static int compare_check_dir(const char *dir, struct nl_err *err)
{
	struct stat st;
	char path[4200];
	if (stat(dir, &st) != 0)
		return out_check_writable(dir, err) < 0 ? nl_err_prefix(err, "-o") : 0;
	if (!S_ISDIR(st.st_mode))
		return nl_errf(err, NL_EINVAL, "-o %s: not a directory; expected a directory to write the report to",
			       dir);
	snprintf(path, sizeof path, "%s/cache", dir);
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		return nl_errf(err, NL_EINVAL, "-o: %s: not a directory; expected a directory for the report's cache",
			       path);
	for (size_t i = 0; i < COMPARE_N_FILES; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, compare_files[i]);
		NL_CHECK(cli_check_output("-o", path, err));
	}
	return 0;
}

/* The report's files, against the files the study reads
 * (session_compare_opts check_file, check_config): a trace, a system's
 * configuration or a file its keys name, or the study itself, in DIR
 * under a report's name, was replaced by the report with status 0, as
 * every other command refuses an output naming an input (cli_check_files). */
struct compare_outs {
	struct cli_file f[COMPARE_N_FILES];
	char path[COMPARE_N_FILES][4200];
};

static void compare_outs_init(struct compare_outs *o, const char *dir)
{
	for (size_t i = 0; i < COMPARE_N_FILES; i++) {
		snprintf(o->path[i], sizeof o->path[i], "%s/%s", dir, compare_files[i]);
		o->f[i] = (struct cli_file){"-o", o->path[i]};
	}
}

static int compare_check_file(void *ctx, const char *what, const char *path, struct nl_err *err)
{
	const struct compare_outs *o = ctx;
	const struct cli_file in = {what, path};
	return cli_check_files(&in, 1, o->f, COMPARE_N_FILES, err);
}

/* Keys of the systems that nothing reads: warned of before the first
 * replay, once the study is valid (session_compare_opts on_systems). */
static void compare_on_systems(void *ctx, const struct config *const *cfgs, size_t n_sys,
			       const char *const *placements, size_t n_wl)
{
	(void)ctx;
	cli_warn_unread_study("compare", cfgs, n_sys, placements, n_wl);
}

static int compare_check_config(void *ctx, const struct config *cfg, struct nl_err *err)
{
	const struct compare_outs *o = ctx;
	return cli_check_config_files(cfg, o->f, COMPARE_N_FILES, err);
}

/* Take DIR/.report.lock (flock, exclusive, waiting) for the renames that
 * put the report in place: its descriptor, or -1 when the lock cannot be
 * had (no such lock on the filesystem: ENOLCK, ENOSYS; a directory one
 * cannot create a file in, where the renames fail and say why), and the
 * report is then put in place unlocked, as before. Each file is renamed
 * whole, but two compares writing one DIR at once (one study run twice,
 * two studies sharing a cache) interleaved their three renames: a
 * report.json of one beside an index.html of the other. Under the lock the
 * last to finish leaves all three. Held for the renames alone (micro-
 * seconds), so a second compare waits that long, never for the other's
 * runs; a process killed holding it releases it. The file stays: removing
 * it would let a waiter lock an unlinked file while a third makes a new
 * one. A signal while waiting ends the command as one while staging does
 * (out_staged_poll). */
static int compare_lock(const char *dir)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/.report.lock", dir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
		out_staged_poll();
	}
	return fd;
}

/* Write the report: its three files staged beside their places first,
 * renamed into place only once all three are written, so a write that
 * fails (a full disk) leaves the previous report whole rather than a new
 * report.json beside an old index.html. A rename failing after another
 * succeeded (rare: same directory) is said in the error line. */
static int compare_write(const json_t *doc, const char *md, const char *dir, struct nl_err *err)
{
	char *tmp[COMPARE_N_FILES] = {NULL}, path[COMPARE_N_FILES][4200];
	for (size_t i = 0; i < COMPARE_N_FILES; i++)
		snprintf(path[i], sizeof path[i], "%s/%s", dir, compare_files[i]);
	/* Registered for SIGINT/SIGTERM from before each file exists
	 * (out_stage_registered): the files are staged while gnuplot draws
	 * the plots, seconds, and an interrupt left report.json.tmpXXXXXX
	 * beside the old report. report.json as out_write_json writes it:
	 * with a trailing newline. */
	int rc = out_stage_json_registered(path[0], doc, &tmp[0], err);
	if (rc == 0)
		rc = out_stage_registered(path[1], md, strlen(md), &tmp[1], err);
	if (rc == 0)
		rc = cli_compare_html(doc, dir, &tmp[2], err);
	int lock = rc == 0 ? compare_lock(dir) : -1;
	for (size_t i = 0; rc == 0 && i < COMPARE_N_FILES; i++) {
		rc = out_commit(&tmp[i], path[i], err);
		if (rc < 0 && i > 0) {
			char why[NL_ERR_MSG_MAX];
			snprintf(why, sizeof why, "%s", err->msg);
			nl_errf(err, rc, "%s; %s%s%s already replaced, the rest not: a mixed report (run again)", why,
				compare_files[0], i > 1 ? " and " : "", i > 1 ? compare_files[1] : "");
		}
	}
	if (lock >= 0)
		close(lock);
	/* Forgotten only now: an interrupt before this point removes what
	 * is still staged, and one during the renames waits for the last. */
	for (size_t i = 0; i < COMPARE_N_FILES; i++)
		out_unstage(&tmp[i]);
	return rc;
}

/* The options: the report's directory into dir_buf (*dir points there),
 * --jobs into *jobs; the study is argv[optind] after it. -1 to go on,
 * COMPARE_HELP for --help (printed by the caller, once per launch), else
 * the exit status after a usage error, said. */
enum { COMPARE_HELP = -2 };

static void compare_say_usage(void *ctx)
{
	(void)ctx;
	fputs(compare_usage, stdout);
}
/* -o's value, refused as it is read when it is an option: in
 * 'compare S.ini -o --jobs 2' the directory was left out, and the '2' left
 * over was reported ("unexpected argument '2"). */
static int compare_output_dir(const char *value)
{
	struct nl_err err = {0};
	if (cli_value_not_option("-o", value, "directory", "a directory to write the report to", &err) < 0)
		return cli_usage_error("compare", "%s", err.msg);
	return 0;
}

static int compare_parse(int argc, char **argv, char *dir_buf, size_t size, const char **dir, uint64_t *jobs)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = "compare";
	int c;
	opterr = 0;
	optind = 0;
	struct cli_seen seen = {0};
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":ho:j:", longopts, &help_scanned)) != -1) {
		if (cli_value_once(cmd, longopts, &seen, c))
			return CLI_USAGE;
		switch (c) {
		case 'o': /* without trailing slashes: "DIR/index.html", not "DIR//index.html" */
			if (compare_output_dir(optarg) || cli_output_once(cmd, "--output", dir, dir_buf))
				return CLI_USAGE;
			snprintf(dir_buf, size, "%s", optarg);
			for (size_t n = strlen(dir_buf); n > 1 && dir_buf[n - 1] == '/'; n--)
				dir_buf[n - 1] = '\0';
			*dir = dir_buf;
			break;
		case 'j':
			if (cli_parse_u64(cmd, "--jobs", optarg, 1, 64, jobs))
				return CLI_USAGE;
			break;
		case 'h':
			return COMPARE_HELP;
		default:
			return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "missing STUDY.ini (see --help)");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' after STUDY.ini; expected one study file",
				       argv[optind + 1]);
	if (!*dir)
		return cli_usage_error(cmd, "missing -o DIR (the report's directory)");
	if (!**dir) {
		struct nl_err err = {0};
		cli_empty_name("-o", "directory", "a directory to write the report to", &err);
		return cli_usage_error(cmd, "%s", err.msg);
	}
	/* '-' is standard output for every output (docs/results.md), and as
	 * replay's --otf2 the report cannot go there: not a directory named so. */
	if (!strcmp(*dir, "-"))
		return cli_usage_error(cmd, "-o '-': not a directory name (the report is a directory of files, it cannot "
					    "go to standard output); expected a directory to write the report to (./- for "
					    "one of that name)");
	return -1;
}

int cli_compare_main(int argc, char **argv)
{
	const char *dir = NULL;
	char dir_buf[4096];
	uint64_t jobs = 1;
	/* The command line as given, for the ranks' comparison: getopt_long
	 * permutes argv (out of memory: argv, permuted alike on ranks given
	 * the same). */
	char **given = malloc((size_t)argc * sizeof *given);
	if (given)
		memcpy(given, argv, (size_t)argc * sizeof *given);
	int rc = compare_parse(argc, argv, dir_buf, sizeof dir_buf, &dir, &jobs);
	if (rc >= 0 || rc == COMPARE_HELP) {
		/* --help: said once per launch (cli_mpi_stop_say). */
		const bool help = rc == COMPARE_HELP;
		rc = help ? cli_mpi_stop_say(argc, given ? given : argv, CLI_OK, compare_say_usage, NULL)
			  : cli_mpi_stop(argc, given ? given : argv, rc);
		free(given);
		return rc;
	}
	struct net_mpi *mpi = NULL;
	rc = cli_mpi_open(argc, given ? given : argv, &mpi);
	free(given);
	if (rc)
		return rc;
	/* Under MPI rank 0 alone prints and writes; every rank computes the
	 * same status from the same gathered results. */
	const bool quiet = net_mpi_rank(mpi) != 0;
	struct progress pg;
	progress_init(&pg, "compare");
	struct compare_outs outs;
	compare_outs_init(&outs, dir);
	/* Rank 0 alone writes the report, so it alone compares it with the
	 * study's files. */
	struct session_compare_opts o = {.dir = dir,
					 .jobs = (unsigned)jobs,
					 .pg = quiet ? NULL : &pg,
					 .mpi = mpi,
					 .check_file = quiet ? NULL : compare_check_file,
					 .check_config = quiet ? NULL : compare_check_config,
					 .check_ctx = &outs,
					 .on_systems = quiet ? NULL : compare_on_systems};
	struct session_compare_result res = {0};
	struct nl_err err = {0};
	double t0 = nl_wall_seconds();
	/* Rank 0 alone writes the report, so it alone checks where. */
	rc = quiet ? 0 : compare_check_dir(dir, &err);
	if ((rc = net_mpi_agree(mpi, rc, &err)) == 0)
		rc = session_compare(argv[optind], &o, &res, &err);
	progress_done(&pg);
	if (rc < 0) {
		if (res.problems) {
			if (!quiet)
				cli_say_lines(res.problems);
			free(res.problems);
			rc = CLI_USAGE;
		} else {
			rc = quiet ? cli_exit_code(&err) : cli_report(&err);
		}
		goto out;
	}
	rc = 0;
	if (!quiet) {
		/* The only fields that differ between runs of the same study. */
		json_t *ex = json_object();
		json_object_set_new(ex, "runs", json_integer(res.runs));
		json_object_set_new(ex, "executed_runs", json_integer(res.executed));
		json_object_set_new(ex, "cached_runs", json_integer(res.cached));
		json_object_set_new(ex, "reused_runs", json_integer(res.reused));
		json_object_set_new(ex, "failed_runs", json_integer(res.failed));
		/* Replays and cost evaluations are cached apart: a new preset
		 * prices again and replays nothing. */
		json_object_set_new(ex, "simulations_executed", json_integer(res.executed));
		json_object_set_new(ex, "cost_evaluations", json_integer(res.cost_evaluated));
		json_object_set_new(ex, "cost_cached", json_integer(res.cost_cached));
		json_object_set_new(ex, "jobs", json_integer((json_int_t)jobs));
		/* The build of every run, cached or not (its identity is in the key). */
		json_object_set_new(ex, "build", json_string(version_build()));
		json_object_set_new(ex, "wall_seconds", json_real(nl_wall_seconds() - t0));
		json_object_set_new(res.doc, "execution", ex);
		rc = compare_write(res.doc, res.markdown, dir, &err);
		if (rc == 0)
			printf("%s/index.html, %s/report.json, %s/report.md: %u run%s (%u executed, %u from the cache, %u "
			       "reused from seed 1, %u failed); %u system%s priced, %u cost%s from the cache\n",
			       dir, dir, dir, res.runs, res.runs == 1 ? "" : "s", res.executed, res.cached, res.reused,
			       res.failed, res.cost_evaluated, res.cost_evaluated == 1 ? "" : "s", res.cost_cached,
			       res.cost_cached == 1 ? "" : "s");
		/* As replay's warning, beside the summary: the report says it too. */
		const char *blind = json_string_value(json_object_get(json_object_get(res.doc, "study"), "topology_unused"));
		if (rc == 0 && blind)
			fprintf(stderr, "netloom compare: warning: %s\n", blind);
	}
	json_decref(res.doc);
	free(res.markdown);
	/* The report is whole, but some cells failed (a deadlock, an error):
	 * a status of its own, so a script or CI job notices without parsing
	 * the report; 1 and 2 mean no report at all. A report not written
	 * after the runs is 1 whatever the cause (cli_exit_code would make
	 * an NL_EIO a 2, "nothing run", which is not so here); its line names
	 * -o, as this command's other lines about DIR. */
	if (rc < 0)
		rc = cli_report_unwritten("-o", dir, &err);
	else
		rc = res.failed ? CLI_COMPARE_FAILED_CELLS : CLI_OK;
out:
	/* A report rank 0 could not write fails every rank, and so does its
	 * summary line lost on stdout (cli_stdout_finish: 1). */
	rc = cli_stdout_finish(rc, 0);
	rc = net_mpi_agree_exit(mpi, rc);
	net_mpi_close(mpi);
	return rc;
}
