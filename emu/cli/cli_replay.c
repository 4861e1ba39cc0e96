/* netloom replay TRACE [-c SYSTEM.ini] [-s key=value ...] [-t SPEC ...] [-j N] [--json FILE] [--csv]
 *
 * Replays an MPI trace archive on the configured network model and prints
 * the predicted runtime against the recorded one, the per-rank breakdown,
 * message latencies by size class, collective algorithms used and the
 * busiest links. Exit status: 0 done, 1 the replay deadlocked (report on
 * stderr) or failed, or a result could not be written; 2 bad usage or bad
 * input; 3 the report and --json written, the --otf2 / --svg timeline not.
 *
 * This file: the sessions that replay the trace on each network, and
 * which results go where. The command line and its checks are
 * cli_replay_args.c's; what the results say (the report, the CSV, the
 * table of networks, the JSON of several) is written by
 * cli_replay_report.c (cli_replay.h).
 */
#include "cli/cli_replay.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/pool.h"
#include "core/progress.h"
#include "net/net.h"
#include "netloom/netloom.h"
#include "session/session.h"
#include "traces/trace.h"

struct cli_replay_ctx {
	FILE *f;
};

static void cli_replay_line(void *ctx, const char *line)
{
	fprintf(((struct cli_replay_ctx *)ctx)->f, "  %s\n", line);
}

/* Exit status: the report and --json written, the --otf2 archive or the
 * --svg drawing not (interfere's 3 for its --plot: docs/placement.md). */
enum { CLI_REPLAY_NO_TIMELINE = 3 };

/* How each run opens the trace and what watches it: a foreign trace
 * (DUMPI, SimGrid, OTF2) is converted for each run, its dropped calls
 * named on stderr once; the first run carries the --otf2 / --svg
 * timeline. */
struct cli_replay_hooks {
	const struct cli_replay_opts *o;
	struct cli_timeline *tl; /* the first run's timeline, or NULL */
	size_t n_opened;
};

static int cli_replay_open(void *ctx, const char *path, struct trace_archive **a, struct nl_err *err)
{
	struct cli_replay_hooks *h = ctx;
	return cli_open_trace(h->n_opened++ ? NULL : "replay", NULL, path, a, err);
}

static int cli_replay_on_app(void *ctx, struct app *app, const struct trace_manifest *m, struct nl_err *err)
{
	struct cli_replay_hooks *h = ctx;
	if (h->n_opened > 1 || !(h->o->otf2 || h->o->svg))
		return 0;
	return cli_timeline_start(&h->tl, app, m, h->o->otf2, h->o->svg, err);
}

/* The session options of a run on one network: the same when it is
 * prepared and when it runs (pg only then). */
static struct session_replay_opts cli_replay_ro(const struct cli_replay_run *run, bool pick_routing,
						struct cli_replay_hooks *hooks, struct progress *pg)
{
	return (struct session_replay_opts){.topology = run->topology,
					    .pick_routing = pick_routing,
					    .pg = pg,
					    .open_trace = cli_replay_open,
					    .on_app = cli_replay_on_app,
					    .ctx = hooks};
}

/* A network's replay that deadlocked, said on stderr: its line (err,
 * session_replay's) and which ranks wait for what. */
static void cli_replay_say_deadlock(const struct cli_replay_run *run, const struct nl_err *err)
{
	if (run->v->deadlock) {
		struct cli_replay_ctx lc = {stderr};
		/* The topology spec is the user's (an anynet file's path): one
		 * line of clean text, as every other error (nl_err_one_line). */
		struct nl_err line = *err;
		if (run->topology)
			nl_err_prefix(&line, "%s", run->topology);
		nl_err_one_line(&line, NL_EDEADLOCK);
		cli_say("%s", line.msg);
		app_deadlock_report(run->v->app, cli_replay_line, &lc);
	}
}

/* Replay on one network, prepared (session_replay_prepare). A deadlock
 * is a result (report on stderr); other failures fill *err. */
static int cli_replay_run_one(struct cli_replay_run *run, const char *trace, bool pick_routing,
			      struct cli_replay_hooks *hooks, struct nl_err *err)
{
	struct progress prog;
	progress_init(&prog, "replay");
	struct session_replay_opts ro = cli_replay_ro(run, pick_routing, hooks, prog.enabled ? &prog : NULL);
	int rc = session_replay(run->sim, trace, &ro, NULL, err);
	progress_done(&prog);
	if (rc < 0 && rc != NL_EDEADLOCK)
		return rc;
	run->v = session_replay_view(run->sim);
	cli_replay_say_deadlock(run, err);
	return 0;
}

/* The first network's timeline (--otf2, --svg) could not be written, as
 * tl_err says: one line naming the option, said after the report and the
 * JSON, which a drawing that fails (/dev/full) must not take with it.
 * Returns the exit status: status when that is already a failure (a
 * deadlock, the JSON lost), else CLI_REPLAY_NO_TIMELINE. */
static int cli_replay_timeline_lost(const struct cli_replay_opts *o, const struct nl_err *tl_err, int status)
{
	/* The archive is finished first, into DIR that was new: when it is
	 * there, the drawing failed; else the archive did, and the drawing
	 * was not made either. */
	bool is_svg = o->svg && (!o->otf2 || access(o->otf2, F_OK) == 0);
	struct nl_err line = *tl_err;
	if (is_svg)
		nl_err_prefix(&line, "--svg %s: not written", o->svg);
	else
		nl_err_prefix(&line, "--otf2 %s: not written%s%s%s", o->otf2, o->svg ? " (nor --svg " : "",
			      o->svg ? o->svg : "", o->svg ? ")" : "");
	if (status == CLI_OK) {
		const char *out = o->csv ? "the CSV" : "the report";
		char said[64] = "";
		if (o->json && !strcmp(o->json, "-"))
			snprintf(said, sizeof said, "; the JSON was written");
		else if (o->svg && !strcmp(o->svg, "-")) /* no report beside the SVG */
			snprintf(said, sizeof said, "%s", o->json ? "; --json was written" : "");
		else
			snprintf(said, sizeof said, "; %s%s written", out, o->json ? " and --json were" : " was");
		nl_err_suffix(&line, said);
	}
	cli_report(&line);
	return status == CLI_OK ? CLI_REPLAY_NO_TIMELINE : status;
}

/* A timeline asked for is not drawn of a replay that deadlocked (the
 * first network's, whose timeline it is): said after the report and the
 * JSON, so that it is not missing silently. The status stays 1. */
static void cli_replay_timeline_deadlocked(const struct cli_replay_opts *o, bool is_first_of_several)
{
	struct nl_err line = {0};
	const char *why = is_first_of_several ? "the first network's replay deadlocked" : "the replay deadlocked";
	if (o->svg && o->otf2)
		nl_errf(&line, NL_EDEADLOCK, "--svg %s and --otf2 %s: not written: %s (a timeline is of a run every rank "
			"finished)", o->svg, o->otf2, why);
	else
		nl_errf(&line, NL_EDEADLOCK, "--%s %s: not written: %s (a timeline is of a run every rank finished)",
			o->svg ? "svg" : "otf2", o->svg ? o->svg : o->otf2, why);
	cli_report(&line);
}

/* Under mpirun (or srun) each replay is spread over the ranks: every rank
 * runs the application model and its share of the flit network
 * (docs/scaling.md); only rank 0 prints and writes. Returns 0 (*m NULL
 * when not launched by MPI) or an exit code after saying why. */
static int cli_replay_mpi_open(int argc, char **argv, struct net_mpi **m, struct cli_replay_opts *o)
{
	int rc = cli_mpi_open(argc, argv, m);
	if (rc || net_mpi_rank(*m) == 0)
		return rc;
	/* The same report, files and errors as rank 0's: said once. */
	o->json = o->otf2 = o->svg = NULL;
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		return CLI_FAIL;
	return 0;
}

/* One 'netloom replay': its options, its networks and how they went. */
struct cli_replay_job {
	struct cli_replay_opts o;
	struct cli_replay_hooks hooks;
	struct cli_replay_run runs[CLI_REPLAY_MAX_TOPOS];
	size_t n_runs;
	struct net_mpi *mpi;
	bool pick_routing; /* --topology without routing_function: each network's default */
	bool any_deadlock;
	bool is_tl_lost;      /* the timeline could not be written */
	struct nl_err tl_err; /* why */
};

/* Rank 0's warnings about the inputs: an empty -c file, keys a replay
 * does not read. */
static void cli_replay_warn_inputs(const struct cli_replay_job *j, nl_sim *sim0)
{
	const struct cli_replay_opts *o = &j->o;
	if (net_mpi_rank(j->mpi) != 0)
		return;
	for (size_t i = 0; i < o->n_files; i++)
		if (o->files_empty[i])
			cli_warn_config_empty("replay", NULL, o->files[i]);
	cli_warn_unread_replay("replay", session_config(sim0), o->sets, o->n_sets);
	cli_warn_unread_placement("replay", session_config(sim0), o->sets, o->n_sets);
	/* As compare takes -j under mpirun (per rank), not refused: the
	 * same command line works with and without a launcher. */
	if (j->mpi && o->jobs > 1)
		fprintf(stderr,
			"netloom replay: warning: -j %" PRIu64 " not taken under mpirun: each network is spread over "
			"the %u MPI rank%s, one network after another (docs/scaling.md)\n",
			o->jobs, net_mpi_size(j->mpi), net_mpi_size(j->mpi) == 1 ? "" : "s");
}

/* Every network is prepared (topology, routing, placement, the backend)
 * before the first replays: a --topology its routing does not run on was
 * refused only after the networks before it had replayed, minutes of
 * flit simulation thrown away (exit 2 is "checked first"). The networks
 * stay built until the end either way, for the report. The first takes
 * *sim0. */
static int cli_replay_prepare_all(struct cli_replay_job *j, nl_sim **sim0, struct nl_err *err)
{
	const struct cli_replay_opts *o = &j->o;
	size_t want = o->n_topos ? o->n_topos : 1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < want; i++) {
		struct cli_replay_run *run = &j->runs[i];
		run->topology = o->n_topos ? o->topos[i] : NULL;
		if (i == 0) {
			run->sim = *sim0;
			*sim0 = NULL;
		} else {
			rc = net_mpi_agree(j->mpi, cli_replay_session(o, &run->sim, err), err);
			if (rc < 0) {
				nl_sim_free(run->sim); /* made on a rank where it did not fail */
				run->sim = NULL;
				break;
			}
			session_set_mpi(run->sim, j->mpi, SESSION_SPREAD_NETWORK);
		}
		j->n_runs++;
		struct session_replay_opts ro = cli_replay_ro(run, j->pick_routing, &j->hooks, NULL);
		rc = session_replay_prepare(run->sim, o->trace, &ro, err);
	}
	/* Said once the networks are built: a refused one needs no warning. */
	if (rc == 0 && net_mpi_rank(j->mpi) == 0 &&
	    (o->n_topos || config_get(session_config(j->runs[0].sim), "topology"))) {
		char what[64];
		if (o->n_topos > 1)
			snprintf(what, sizeof what, "the %zu networks predict the same runtime", o->n_topos);
		else
			snprintf(what, sizeof what, "the topology changes no prediction");
		cli_warn_topology_unused("replay", session_config(j->runs[0].sim), what, "docs/replay.md");
	}
	return rc;
}

/* The first network is done (rc its status, a deadlock 0): its timeline
 * is written unless it deadlocked, and its staged archive removed
 * (cli_timeline_free) before the next network, whose replay no longer
 * polls for a signal (out_staged_poll). One that cannot be written is
 * said at the end, after the report and the JSON. */
static void cli_replay_first_done(void *ctx, int rc)
{
	struct cli_replay_job *j = ctx;
	if (rc == 0 && j->hooks.tl && !session_replay_view(j->runs[0].sim)->deadlock)
		j->is_tl_lost = cli_timeline_finish(j->hooks.tl, &j->tl_err) < 0;
	cli_timeline_free(j->hooks.tl);
	j->hooks.tl = NULL;
}

/* The trace replayed on each network in turn. */
static int cli_replay_run_seq(struct cli_replay_job *j, struct nl_err *err)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < j->n_runs; i++) {
		struct cli_replay_run *run = &j->runs[i];
		rc = cli_replay_run_one(run, j->o.trace, j->pick_routing, &j->hooks, err);
		if (rc == 0)
			j->any_deadlock |= run->v->deadlock;
		if (i == 0)
			cli_replay_first_done(j, rc);
		/* Rank 0 alone writes the timeline: the next network waits for it. */
		rc = net_mpi_agree(j->mpi, rc, err);
	}
	return rc;
}

/* Network i of -j's threads: session_replay alone, no progress line of
 * its own and nothing said (cli_replay_run_threads says it, in order). */
static int cli_replay_run_net(void *ctx, size_t i, struct nl_err *err)
{
	struct cli_replay_job *j = ctx;
	struct cli_replay_run *run = &j->runs[i];
	struct session_replay_opts ro = cli_replay_ro(run, j->pick_routing, &j->hooks, NULL);
	int rc = session_replay(run->sim, j->o.trace, &ro, NULL, err);
	return rc == NL_EDEADLOCK ? 0 : rc;
}

/* -j N: the networks on up to N threads (pool_run), then what
 * the sequential replay says as each ends, in network order: a deadlock's
 * report, or the first failure's line, the networks after it dropped. */
static int cli_replay_run_threads(struct cli_replay_job *j, struct nl_err *err)
{
	int rcs[CLI_REPLAY_MAX_TOPOS];
	struct nl_err *errs = calloc(j->n_runs, sizeof *errs);
	if (!errs)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	/* One line counting the networks ("replay: networks 1/3 (2
	 * running)"), not each network's own. */
	struct progress pg;
	progress_init(&pg, "replay");
	const struct pool_opts o = {.n = j->n_runs,
				    .threads = (unsigned)j->o.jobs,
				    .run = cli_replay_run_net,
				    .first_done = cli_replay_first_done,
				    .ctx = j,
				    .pg = pg.enabled ? &pg : NULL,
				    .what = "networks",
				    .place = NL_THREAD_POOL};
	int rc = pool_run(&o, rcs, errs, err);
	for (size_t i = 0; rc == 0 && i < j->n_runs; i++) {
		struct cli_replay_run *run = &j->runs[i];
		if (rcs[i] < 0) {
			*err = errs[i];
			rc = rcs[i];
			break;
		}
		run->v = session_replay_view(run->sim);
		cli_replay_say_deadlock(run, &errs[i]);
		j->any_deadlock |= run->v->deadlock;
	}
	free(errs);
	return rc;
}

/* The networks replayed: one after another, or with -j on threads. Under
 * mpirun each network is spread over the ranks (SESSION_SPREAD_NETWORK),
 * whose collectives one thread calls (MPI_THREAD_FUNNELED): -j is not
 * taken there (cli_replay_warn_inputs says so). */
static int cli_replay_run_all(struct cli_replay_job *j, struct nl_err *err)
{
	if (j->mpi || j->o.jobs <= 1 || j->n_runs <= 1)
		return cli_replay_run_seq(j, err);
	return cli_replay_run_threads(j, err);
}

/* The report on stdout: the table of networks (text or CSV) and the first
 * network's detail. Not when the JSON or the SVG goes to stdout, as the
 * only thing there (as interfere's --json - and --plot -). */
static void cli_replay_print(const struct cli_replay_job *j)
{
	const struct cli_replay_opts *o = &j->o;
	const struct session_replay_view *v0 = j->runs[0].v;
	const struct trace_manifest *m = v0->m;
	struct cli_replay_info info = {
		.compute_why = v0->compute_why, .comparable = v0->comparable, .comparable_why = v0->comparable_why,
		.placement = v0->placement, .placement_seed = v0->ac->placement_seed, .ranks_per_node = v0->ac->ranks_per_node,
		.placement_map = v0->ac->placement_map};
	if ((o->json && !strcmp(o->json, "-")) || (o->svg && !strcmp(o->svg, "-")))
		return;
	if (o->csv && j->n_runs > 1) {
		cli_replay_table_csv(stdout, j->runs, j->n_runs, m, &info);
	} else if (o->csv) {
		if (!j->any_deadlock)
			cli_replay_csv(stdout, app_results(v0->app));
		if (info.comparable == 0)
			fprintf(stderr, "netloom replay: the recorded runtime is not comparable with a prediction (%s)\n",
				info.comparable_why);
	} else {
		if (j->n_runs > 1) {
			cli_replay_table(stdout, j->runs, j->n_runs, m, o->trace, v0->backend, &info);
			if (!v0->deadlock)
				fprintf(stdout, "\ndetail for the first network:\n\n");
		}
		if (!v0->deadlock)
			cli_replay_report(stdout, v0->app, m, o->trace, v0->backend, v0->net_report, &info);
	}
}

/* --json: one network's results as nl_sim_write_json writes them, several
 * networks' as one document. The status, a lost file said. */
static int cli_replay_write_json(const struct cli_replay_job *j, double t0, int status)
{
	const char *path = j->o.json;
	struct nl_err err = {0};
	json_t *doc = NULL;
	int rc;
	if (j->n_runs == 1)
		rc = nl_sim_write_json(j->runs[0].sim, 0, path, &err);
	else if ((doc = cli_replay_doc_multi(j->runs, j->n_runs, j->pick_routing, t0)))
		rc = out_write_json(path, doc, &err);
	else
		rc = nl_errf(&err, NL_ENOMEM, "%s: out of memory", path);
	json_decref(doc);
	return rc < 0 ? cli_report_unwritten("--json", path, &err) : status;
}

int cli_replay_main(int argc, char **argv)
{
	struct nl_err err = {0};
	struct cli_replay_job j = {.hooks = {.o = &j.o}};
	nl_sim *sim0 = NULL;
	bool help = false;
	int status = CLI_OK, rc;
	double t0 = nl_wall_seconds();

	/* The command line as given, for the ranks' comparison: getopt_long
	 * permutes argv, and stops early at a file it cannot read (out of
	 * memory: argv, the same on ranks that parsed alike). */
	char **given = malloc((size_t)argc * sizeof *given);
	if (given)
		memcpy(given, argv, (size_t)argc * sizeof *given);
	rc = cli_replay_args(argc, argv, &sim0, &j.o, &err, &help);
	if (rc == 0 && help) {
		/* Said once per launch, by rank 0 after the ranks compared
		 * their command lines (cli_mpi_stop_say). */
		status = cli_mpi_stop_say(argc, given ? given : argv, CLI_OK, cli_replay_say_usage, NULL);
		goto out;
	}
	/* Every rank opens MPI, then all agree on the command line and files. */
	if ((status = cli_replay_mpi_open(argc, given ? given : argv, &j.mpi, &j.o)) != CLI_OK)
		goto out;
	rc = net_mpi_agree(j.mpi, rc, &err);
	if (rc == 0) {
		session_set_mpi(sim0, j.mpi, SESSION_SPREAD_NETWORK);
		cli_replay_warn_inputs(&j, sim0);
		j.pick_routing = j.o.n_topos > 0 && !config_get(session_config(sim0), "routing_function");
		rc = cli_replay_prepare_all(&j, &sim0, &err);
	}
	if (rc == 0)
		rc = cli_replay_run_all(&j, &err);
	/* A spec of a -c file ('topology = torus;') is refused as the
	 * network is built, not as the file is read. */
	for (size_t i = 0; rc < 0 && i < j.o.n_files; i++)
		cli_config_spec_hint(j.o.files[i], &err);
	if (rc < 0) {
		status = cli_report(&err);
		goto out;
	}
	if (j.any_deadlock)
		status = CLI_FAIL;
	cli_replay_print(&j);
	if (j.o.json)
		status = cli_replay_write_json(&j, t0, status);
	if (j.is_tl_lost)
		status = cli_replay_timeline_lost(&j.o, &j.tl_err, status);
	if (j.runs[0].v->deadlock && (j.o.svg || j.o.otf2))
		cli_replay_timeline_deadlocked(&j.o, j.n_runs > 1);
out:
	cli_timeline_free(j.hooks.tl);
	for (size_t i = 0; i < j.n_runs; i++)
		nl_sim_free(j.runs[i].sim);
	nl_sim_free(sim0);
	free(j.o.files);
	free(j.o.files_empty);
	free(j.o.sets);
	free(given);
	/* Here, not only in main.c's: a report lost on rank 0's stdout fails
	 * every rank. */
	status = cli_stdout_finish(status, 0);
	status = net_mpi_agree_exit(j.mpi, status);
	net_mpi_close(j.mpi);
	return status;
}
