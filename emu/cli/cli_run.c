/* netloom run / netloom sweep: synthetic-traffic experiments on the flit
 * model, as a table on stdout, CSV, and JSON; the command line is
 * cli_run_options.c's. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_run.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "net/net.h"
#include "netloom/netloom.h"
#include "session/session.h"

/* The session from -c FILE and -s key=value, in that order (the file
 * first, whatever the order on the line). */
static int run_setup(nl_sim **out, struct run_opts *o, struct nl_sim_info *info, struct nl_err *err)
{
	nl_sim *s;
	/* The JSON is written after the runs: a path that cannot be written
	 * fails first (rank 0 writes it; the caller agrees over the ranks). */
	if (o->json_path)
		NL_CHECK(cli_check_output("--json", o->json_path, err));
	if (o->plot_path) {
		NL_CHECK(cli_check_output("--plot", o->plot_path, err));
		if (cli_probe_staging(o->plot_path, err) < 0)
			return nl_err_prefix(err, "--plot");
	}
	NL_CHECK(nl_sim_new(&s, err));
	int rc = cli_sim_load(s, &o->cfg, o->quiet ? NULL : o->cmd, err);
	/* The keys of a -c read from a pipe, now that it is read: a --json
	 * naming a file they name would replace it (cli_run_parse checked the
	 * others). Status 2, before any work. */
	if (rc == 0 && o->check_config_keys)
		rc = cli_check_config_files(session_config(s),
					    (struct cli_file[]){{"--json", o->json_path}, {"--plot", o->plot_path}}, 2, err);
	*info = (struct nl_sim_info){.size = sizeof *info};
	if (rc == 0 && (rc = nl_sim_info(s, info, err)) < 0)
		cli_config_spec_hint(o->cfg.config_path, err);
	if (rc < 0) {
		nl_sim_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static void run_print_header(const struct nl_sim_info *info, bool csv)
{
	if (csv) {
		printf("offered,injected,accepted,latency_mean,latency_p50,latency_p99,latency_max,"
		       "network_latency_mean,hops_mean,stable,cycles,flit_hops,wall_seconds\n");
		return;
	}
	char active[320];
	cli_traffic_active_note(active, sizeof active, info);
	printf("netloom %s: %s, routing %s, traffic %s, %u routers, %u endpoints%s, seed %lld\n", nl_version(),
	       info->topology, info->routing, info->traffic, info->n_routers, info->n_endpoints, active,
	       (long long)info->seed);
	printf("%9s %9s %9s  %9s %6s %6s %7s  %9s %6s  %s\n", "offered", "injected", "accepted", "lat.mean",
	       "p50", "p99", "max", "net.mean", "hops", "stable");
}

/* run and sweep read neither a replay's keys nor the analytic backend's
 * nor the layout's but cable_latency, which they read to refuse. */
static void run_warn_unread(const nl_sim *s, const struct run_opts *o)
{
	static const char *const sections[] = {"replay", "analytic", "layout", NULL};
	static const char *const read[] = {"cable_latency", NULL};
	static const struct config_unread u = {.sections = sections, .read = read};
	cli_warn_unread(o->cmd, session_config(s), o->cfg.sets, (size_t)o->cfg.n_sets, &u,
			"synthetic traffic on the flit model");
	cli_warn_unread_synthetic(o->cmd, o->cmd, session_config(s), o->cfg.sets, (size_t)o->cfg.n_sets);
}

/* max_samples below warmup_periods: BookSim counts warm-up periods in
 * max_samples, so every period is warm-up, nothing is measured, and each
 * point ends unstable ("Too many sample periods needed to converge").
 * With the two equal, warm-up ends with the last period, whose figures
 * are reported as a stable point, BookSim's result too (_SingleSim counts
 * the run converged once its state is "running"): kept, but said, since
 * no packet was measured or drained (a 65,535-cycle channel reported
 * latency 7, the packets a node sent itself). */
static bool run_warmup_only(const struct nl_sim_info *info)
{
	return info->warmup_periods > 0 && info->max_samples < info->warmup_periods;
}

static void run_warn_warmup_only(const struct nl_sim_info *info)
{
	if (run_warmup_only(info))
		cli_say("warning: max_samples = %d < warmup_periods = %d: every sample period is warm-up, "
			"nothing is measured, and each point is reported unstable (BookSim's rule); expected max_samples >= "
			"warmup_periods",
			info->max_samples, info->warmup_periods);
	else if (info->warmup_periods > 0 && info->max_samples == info->warmup_periods)
		cli_say("warning: max_samples = warmup_periods = %d: warm-up ends with the last sample period, "
			"so each point reports that warm-up period's figures, with no packet measured or drained "
			"(BookSim's rule); expected max_samples > warmup_periods",
			info->max_samples);
}

/* --spread chooses how the ranks of a launch share a sweep: started
 * without mpirun or srun there are no ranks, so --spread network has
 * nothing to spread over and the one process runs the points one after
 * another as without it (scripts that pass --spread whether launched or
 * not still run); --spread points runs them on threads instead
 * (session_set_mpi). */
static void run_warn_spread_alone(const struct run_opts *o)
{
	uint32_t rank, size;
	if (o->spread_set && o->spread == SESSION_SPREAD_NETWORK && !net_mpi_launched(&rank, &size))
		fprintf(stderr,
			"netloom sweep: warning: --spread network has no effect without mpirun/srun: this one process "
			"runs the points one after another, as without --spread (docs/scaling.md)\n");
}

/* A rate as the table shows it: 4 decimals, or 3 significant digits
 * below 0.001, where 4 decimals showed an offered 0.00003 as 0.0000. */
static const char *run_rate_text(char buf[24], double r)
{
	snprintf(buf, 24, r > 0 && r < 0.001 ? "%.2e" : "%.4f", r);
	return buf;
}

static void run_print_rate(double r)
{
	char b[24];
	printf("%9s", run_rate_text(b, r));
}

/* offered, injected and accepted, blank-separated. */
static void run_print_rates(const struct nl_point *pt)
{
	run_print_rate(pt->offered);
	putchar(' ');
	run_print_rate(pt->injected);
	putchar(' ');
	run_print_rate(pt->accepted);
}

/* warmup_only: the point's warm-up never ended (session_last_point_warmup_only). */
static void run_print_point(const struct nl_point *pt, const struct nl_sim_info *info, bool warmup_only, bool csv,
			    bool reproducible)
{
	if (pt->deadlock) {
		/* A deadlock is not a measurement: no figures, only where it stopped. */
		if (csv)
			printf("%.6g,,,,,,,,,0,%llu,%llu,%.3f\n", pt->offered, (unsigned long long)pt->cycles,
			       (unsigned long long)pt->flit_hops, reproducible ? 0.0 : pt->wall_seconds);
		else {
			run_print_rate(pt->offered);
			printf(" %9s %9s  %9s %6s %6s %7s  %9s %6s  deadlock at cycle %llu\n", "-", "-", "-", "-", "-",
			       "-", "-", "-", (unsigned long long)pt->deadlock_cycle);
		}
		return;
	}
	/* No packet measured (a rate so low, or packets so long, that none
	 * was created and arrived in the window): the latency and hop
	 * figures have no value. BookSim prints nan; 0.00 read as a
	 * latency, and in a curve as a point at zero. */
	if (pt->packets == 0 && !warmup_only) {
		if (csv)
			printf("%.6g,%.6g,%.6g,,,,,,,%d,%llu,%llu,%.3f\n", pt->offered, pt->injected, pt->accepted,
			       pt->stable, (unsigned long long)pt->cycles, (unsigned long long)pt->flit_hops,
			       reproducible ? 0.0 : pt->wall_seconds);
		else {
			run_print_rates(pt);
			printf("  %9s %6s %6s %7s  %9s %6s  %s\n", "-", "-", "-", "-", "-", "-",
			       pt->stable ? "yes (no packet measured)" : "no (saturated)");
		}
		return;
	}
	if (csv) {
		printf("%.6g,%.6g,%.6g,%.6g,%llu,%llu,%llu,%.6g,%.6g,%d,%llu,%llu,%.3f\n", pt->offered,
		       pt->injected, pt->accepted, pt->plat_mean, (unsigned long long)pt->plat_p50,
		       (unsigned long long)pt->plat_p99, (unsigned long long)pt->plat_max, pt->nlat_mean,
		       pt->hops_mean, pt->stable, (unsigned long long)pt->cycles,
		       (unsigned long long)pt->flit_hops, reproducible ? 0.0 : pt->wall_seconds);
		return;
	}
	run_print_rates(pt);
	printf("  %9.2f %6llu %6llu %7llu  %9.2f %6.2f  %s\n", pt->plat_mean, (unsigned long long)pt->plat_p50,
	       (unsigned long long)pt->plat_p99, (unsigned long long)pt->plat_max, pt->nlat_mean, pt->hops_mean,
	       pt->stable         ? "yes"
	       : !warmup_only     ? "no (saturated)"
	       : run_warmup_only(info) ? "no (warm-up only)"
				  : "no (warm-up did not end)");
}

/* A deadlock is a result, not a failure of the call: its one-line report
 * and the deadlocked VCs go to stderr, the caller writes the result and
 * then fails (exit 1). */
static void run_report_deadlock(const nl_sim *s, const struct nl_err *err)
{
	/* Under mpirun the list is not made (the message says so): no
	 * heading over nothing. */
	const char *list = nl_sim_deadlock_report(s);
	cli_say("%s", err->msg);
	if (*list)
		fprintf(stderr, "deadlocked input VCs:\n%s", list);
}

/* Exit status 1 is a deadlock's, or a result lost on its way to stdout
 * (docs/results.md): a network too large for memory is a configuration
 * this machine cannot run, 2 like the other refusals, not 1 as
 * cli_exit_code maps it for other commands. */
static int run_exit_code(const struct nl_err *err)
{
	return err->code == NL_ENOMEM ? CLI_USAGE : cli_exit_code(err);
}

/* The JSON file, or stdout for '-'. A failed write to stdout is reported
 * with err (cli_report then clears stdout's error flag, so that
 * cli_stdout_finish does not say so a second time). */
static int run_write_json(nl_sim *sim, const struct run_opts *o, struct nl_err *err)
{
	return nl_sim_write_json(sim, o->reproducible ? NL_JSON_REPRODUCIBLE : 0, o->json_path, err);
}

static void run_say_usage(void *cmd)
{
	cli_run_usage(stdout, cmd);
}

/* --help: under a launcher of several ranks the ranks' comparison of
 * command lines comes first, then rank 0 alone prints the usage while the
 * others wait (cli_mpi_stop_say), so a launch prints it once, as 'netloom
 * --help' (main.c); when the lines differ, rank 0's line naming the
 * difference is all. */
static int run_help(int argc, char **argv)
{
	return cli_mpi_stop_say(argc, argv, CLI_OK, run_say_usage, argv[0]);
}

/* quiet: an MPI rank other than 0, which prints nothing (rank 0 reports
 * the same error; every rank exits with the same code). unwritten: the
 * --json path when rc is its file's, which failed to be written after the
 * runs (a full disk, /dev/full; its path was checked before them): the
 * work failing, 1, not bad input (cli_report_unwritten), the table
 * already on stdout; else NULL. */
static int run_finish(int rc, bool deadlocked, const char *unwritten, const struct nl_err *err,
		      bool quiet)
{
	if (rc < 0 && unwritten)
		return quiet ? CLI_FAIL : cli_report_unwritten("--json", unwritten, err);
	if (rc < 0) {
		/* Before cli_report, which clears stdout's error flag that
		 * cli_exit_code reads. */
		int code = run_exit_code(err);
		if (!quiet)
			cli_report(err);
		return code;
	}
	return deadlocked ? CLI_FAIL : CLI_OK;
}

/* Under mpirun (or srun), one run spread over the ranks (emu/net/mpi.c;
 * docs/scaling.md); only rank 0 prints and writes files. Returns 0 (*m
 * NULL when not launched by MPI) or an exit code after saying why. */
static int run_mpi_open(int argc, char **argv, struct net_mpi **m, struct run_opts *o)
{
	int rc = cli_mpi_open(argc, argv, m);
	if (rc == 0 && net_mpi_rank(*m) != 0) {
		o->quiet = true;
		o->table = false;
		o->json_path = NULL;
		o->plot_path = NULL;
	}
	return rc;
}

/* The session's set-up, agreed over the ranks: a configuration file
 * unreadable on one node fails every rank with its line, before any
 * collective of the run. */
static int run_setup_agreed(nl_sim **out, struct run_opts *o, struct nl_sim_info *info, struct net_mpi *mpi,
			    struct nl_err *err)
{
	*out = NULL;
	int rc = run_setup(out, o, info, err);
	rc = net_mpi_agree(mpi, rc, err);
	if (rc == 0)
		rc = net_mpi_agree_same(mpi, session_config_hash(*out), "its resolved configuration (-c, -s)", err);
	if (rc < 0) {
		nl_sim_free(*out);
		*out = NULL;
		return rc;
	}
	session_set_mpi(*out, mpi, o->spread);
	session_set_progress(*out, true);
	return 0;
}

/* run's and sweep's opening: the options (or --help), then the ranks when
 * launched by MPI. False with *rc the exit code when the command stops
 * there (help printed, or an error said, on every rank alike). */
static bool run_open(int argc, char **argv, struct run_opts *o, struct net_mpi **mpi, int *rc)
{
	*rc = cli_run_parse(argc, argv, o);
	if (*rc) {
		*rc = *rc < 0 ? run_help(argc, argv) : cli_mpi_stop(argc, argv, *rc);
		return false;
	}
	*rc = run_mpi_open(argc, argv, mpi, o);
	return *rc == 0;
}

int cli_run_main(int argc, char **argv)
{
	struct run_opts o = {0};
	struct nl_sim_info info;
	struct nl_point pt = {0};
	struct nl_err err = {0};
	nl_sim *sim = NULL;
	struct net_mpi *mpi = NULL;
	int rc;
	if (!run_open(argc, argv, &o, &mpi, &rc))
		goto done_opts;
	const bool quiet = net_mpi_rank(mpi) != 0;
	bool deadlocked = false;
	rc = run_setup_agreed(&sim, &o, &info, mpi, &err);
	if (rc == 0 && !quiet) {
		run_warn_unread(sim, &o);
		run_warn_warmup_only(&info);
	}
	if (rc == 0) {
		rc = nl_sim_run(sim, &pt, &err);
		/* The routing function and traffic are built here. */
		if (rc < 0 && rc != NL_EDEADLOCK)
			cli_config_spec_hint(o.cfg.config_path, &err);
		if (rc == NL_EDEADLOCK && pt.deadlock) {
			if (!quiet)
				run_report_deadlock(sim, &err);
			deadlocked = true;
			rc = 0;
		}
	}
	if (rc == 0 && o.table) {
		run_print_header(&info, o.csv);
		run_print_point(&pt, &info, session_last_point_warmup_only(sim), o.csv, o.reproducible);
		/* --reproducible leaves out the wall time and the rate, the
		 * table's only wall-clock figures, as it zeroes wall_seconds. */
		if (!o.csv && !deadlocked && o.reproducible)
			printf("%llu cycles, %llu flit-hops\n", (unsigned long long)pt.cycles,
			       (unsigned long long)pt.flit_hops);
		else if (!o.csv && !deadlocked)
			printf("%llu cycles, %llu flit-hops in %.2f s (%.2f M flit-hops/s)\n",
			       (unsigned long long)pt.cycles, (unsigned long long)pt.flit_hops, pt.wall_seconds,
			       pt.wall_seconds > 0 ? (double)pt.flit_hops / pt.wall_seconds / 1e6 : 0.0);
	}
	bool is_unwritten = false;
	if (rc == 0 && o.json_path)
		is_unwritten = (rc = run_write_json(sim, &o, &err)) < 0;
	rc = cli_stdout_finish(run_finish(rc, deadlocked, is_unwritten ? o.json_path : NULL, &err, quiet), 0);
	nl_sim_free(sim);
	rc = net_mpi_agree_exit(mpi, rc);
done_opts:
	net_mpi_close(mpi);
	cli_cfg_opts_release(&o.cfg);
	return rc < 0 ? 0 : rc;
}

/* sweep's status when the table and JSON were written but --plot was not
 * (as interfere's). */
enum { CLI_SWEEP_NO_PLOT = 3 };

/* A point of the --plot chart. */
struct sweep_plot_pt {
	struct nl_point pt;
	bool is_warmup_only; /* its warm-up never ended: unstable, not saturated */
};

struct sweep_print {
	const nl_sim *sim;
	const struct run_opts *o;
	const struct nl_sim_info *info;
	const struct nl_err *err;
	uint32_t n;
	double max_accepted; /* the largest accepted rate of a stable point, as nl_sweep's */
	double max_offered;  /* the offered rate of that point */
	bool quiet; /* an MPI rank other than 0 */
	int stdout_errno; /* the first failed flush's errno, for cli_stdout_finish */
	struct sweep_plot_pt *pts; /* --plot: every point, in order */
	size_t n_pts, cap_pts;
	bool pts_oom;
};

/* One sweep point, as it comes. The header waits for the first point:
 * routing, traffic and flow-control checks happen when a point is built,
 * and a bad configuration must leave stdout empty. */
static int sweep_on_point(void *ctx, const struct nl_point *pt)
{
	struct sweep_print *sp = ctx;
	if (pt->deadlock && !sp->quiet)
		run_report_deadlock(sp->sim, sp->err);
	if (sp->o->plot_path && !sp->pts_oom) {
		if (sp->n_pts == sp->cap_pts) {
			size_t cap = sp->cap_pts ? 2 * sp->cap_pts : 32;
			struct sweep_plot_pt *p = realloc(sp->pts, cap * sizeof *p);
			if (p) {
				sp->pts = p;
				sp->cap_pts = cap;
			}
		}
		if (sp->n_pts < sp->cap_pts)
			sp->pts[sp->n_pts++] = (struct sweep_plot_pt){*pt, session_last_point_warmup_only(sp->sim)};
		else
			sp->pts_oom = true;
	}
	if (pt->stable && pt->accepted > sp->max_accepted) {
		sp->max_accepted = pt->accepted;
		sp->max_offered = pt->offered;
	}
	if (sp->o->table) {
		if (sp->n == 0)
			run_print_header(sp->info, sp->o->csv);
		run_print_point(pt, sp->info, session_last_point_warmup_only(sp->sim), sp->o->csv, sp->o->reproducible);
		if (fflush(stdout) != 0 && !sp->stdout_errno)
			sp->stdout_errno = errno;
	}
	sp->n++;
	return 0;
}

/* The load-latency curve of --plot: mean packet latency against offered
 * load, saturated (unstable) points drawn hollow, and accepted against
 * offered load on the right axis with the diagonal it would follow below
 * saturation, as BookSim users draw them. A deadlocked point has no
 * latency: left out (the table and JSON say so). */
static int sweep_plot(const struct sweep_print *sp, const char *written, struct nl_err *err)
{
	const char *out = sp->o->plot_path;
	if (sp->pts_oom)
		return nl_errf(err, NL_ENOMEM, "--plot %s: out of memory; %s", out, written);
	char *script = NULL;
	size_t len = 0;
	FILE *p = open_memstream(&script, &len);
	if (!p)
		return nl_errf(err, NL_ENOMEM, "--plot %s: out of memory; %s", out, written);
	double max_offered = 0;
	for (size_t i = 0; i < sp->n_pts; i++)
		if (sp->pts[i].pt.offered > max_offered)
			max_offered = sp->pts[i].pt.offered;
	fprintf(p, "set terminal svg size 800,480 dynamic noenhanced font 'sans,11' background rgb 'white'\n");
	fputs("set title ", p);
	char title[1024];
	snprintf(title, sizeof title, "netloom sweep: %s, %s, %s", sp->info->topology ? sp->info->topology : "?",
		 sp->info->routing ? sp->info->routing : "?", sp->info->traffic ? sp->info->traffic : "?");
	cli_gp_str(p, title);
	/* Columns: offered, latency if stable, latency if saturated,
	 * latency if the warm-up never ended (unstable, but not saturated:
	 * nothing was measured, as the table's "no (warm-up only)" says),
	 * each else '?'; accepted ('?' when deadlocked). */
	size_t n_stable = 0, n_unstable = 0, n_warmup = 0, n_accepted = 0;
	fprintf(p, "\nset datafile missing '?'\n$d << EOD\n");
	for (size_t i = 0; i < sp->n_pts; i++) {
		const struct nl_point *q = &sp->pts[i].pt;
		bool has_lat = !q->deadlock && q->packets > 0 && isfinite(q->plat_mean);
		int col = q->stable ? 0 : sp->pts[i].is_warmup_only ? 2 : 1;
		char lat[32] = "?";
		if (has_lat)
			snprintf(lat, sizeof lat, "%.12g", q->plat_mean);
		fprintf(p, "%.12g %s %s %s ", q->offered, col == 0 ? lat : "?", col == 1 ? lat : "?",
			col == 2 ? lat : "?");
		fprintf(p, q->deadlock ? "?\n" : "%.12g\n", q->accepted);
		n_stable += has_lat && col == 0;
		n_unstable += has_lat && col == 1;
		n_warmup += has_lat && col == 2;
		n_accepted += !q->deadlock;
	}
	fprintf(p, "EOD\n"
		   "set xlabel 'offered load (flits/cycle/endpoint)'\nset ylabel 'mean packet latency (cycles)'\n"
		   "set y2label 'accepted load (flits/cycle/endpoint)'\nset xrange [0:%.12g]\nset yrange [0:*]\n"
		   "set y2range [0:%.12g]\nset ytics nomirror\nset y2tics\nset grid\nset key top left\nplot ",
		   max_offered > 0 ? max_offered * 1.05 : 1.0, max_offered > 0 ? max_offered * 1.05 : 1.0);
	/* gnuplot warns on stderr of a series without a point: each drawn
	 * only when it has one. */
	if (n_stable)
		fputs("$d using 1:2 with linespoints pt 7 lc rgb '#1f77b4' title 'latency', ", p);
	if (n_unstable)
		fputs("$d using 1:3 with points pt 6 ps 1.5 lc rgb '#d62728' title 'latency, saturated (unstable)', ", p);
	if (n_warmup)
		fputs("$d using 1:4 with points pt 8 ps 1.5 lc rgb 'gray40' title 'latency, warm-up only (not measured)', ",
		      p);
	if (n_accepted)
		fputs("$d using 1:5 axes x1y2 with linespoints pt 5 dt 2 lc rgb '#2ca02c' title 'accepted', ", p);
	fputs("x axes x1y2 with lines dt 3 lc rgb 'gray' title 'accepted = offered'\n", p);
	if (fclose(p) != 0) {
		free(script);
		return nl_errf(err, NL_ENOMEM, "--plot %s: out of memory; %s", out, written);
	}
	int rc = cli_plot_write("--plot", out, script, written, err);
	free(script);
	return rc;
}

int cli_sweep_main(int argc, char **argv)
{
	struct run_opts o = {0};
	struct nl_sim_info info;
	struct nl_err err = {0};
	struct nl_sweep sw;
	nl_sim *sim = NULL;
	bool deadlocked = false, is_unwritten = false, is_unplotted = false;
	struct net_mpi *mpi = NULL;
	int rc;
	if (!run_open(argc, argv, &o, &mpi, &rc))
		goto done_opts;
	const bool quiet = net_mpi_rank(mpi) != 0;
	struct sweep_print sp = {.o = &o, .info = &info, .err = &err, .quiet = quiet};
	rc = run_setup_agreed(&sim, &o, &info, mpi, &err);
	if (rc < 0)
		goto done;
	if (!quiet) {
		run_warn_unread(sim, &o);
		run_warn_warmup_only(&info);
		run_warn_spread_alone(&o);
	}
	sp.sim = sim;
	rc = nl_sim_sweep(sim, o.a, o.b, o.step, o.keep_going ? NL_SWEEP_CONTINUE : 0, sweep_on_point, &sp, &sw, &err);
	if (rc < 0 && rc != NL_EDEADLOCK)
		cli_config_spec_hint(o.cfg.config_path, &err);
	if (rc == NL_EDEADLOCK) {
		deadlocked = true;
		rc = 0;
	}
	if (rc == 0) {
		char last_txt[32] = "none", at_txt[48] = "", max_txt[24];
		run_rate_text(max_txt, sw.max_accepted);
		if (sw.last_stable_rate >= 0)
			snprintf(last_txt, sizeof last_txt, "%.4g", sw.last_stable_rate);
		if (sp.max_accepted > 0)
			snprintf(at_txt, sizeof at_txt, " at offered %.4g", sp.max_offered);
		/* Throughput mode has no latency threshold: a point is unstable
		 * only when its warm-up never ended, so "no saturation" would
		 * claim what nothing judged (docs/results.md). */
		const char *sim_type = config_get(session_config(sim), "sim_type");
		const bool throughput = sim_type && !strcmp(sim_type, "throughput");
		if (o.table && !o.csv && sw.deadlock_rate >= 0)
			printf("deadlock at rate %.4g: the sweep stops (last stable rate %s)\n", sw.deadlock_rate,
			       last_txt);
		else if (o.table && !o.csv && throughput)
			printf("sim_type = throughput: saturation is not judged (stable only says the point measured); "
			       "last stable rate %s, max accepted %s%s\n",
			       last_txt, max_txt, at_txt);
		else if (o.table && !o.csv && sw.first_unstable_rate >= 0)
			printf("saturation: last stable rate %s, first unstable %.4g, max accepted %s\n",
			       last_txt, sw.first_unstable_rate, max_txt);
		else if (o.table && !o.csv && sw.last_stable_rate < 0)
			/* Neither stable nor unstable: every warm-up ran out, so
			 * there is no rate to say "up to" (it printed -1). */
			printf("no saturation judged: no point ended its warm-up (last stable rate none)\n");
		else if (o.table && !o.csv)
			printf("no saturation up to %.4g, max accepted %s\n", sw.last_stable_rate, max_txt);
		if (o.json_path)
			is_unwritten = (rc = run_write_json(sim, &o, &err)) < 0;
	}
	/* The results are out (table, JSON): a chart that cannot be drawn
	 * is a status of its own, not 2, which says nothing was written. A
	 * JSON that could not be written (status 1, said at the end) does
	 * not take the chart with it: it was left undrawn without a word. */
	if ((rc == 0 || is_unwritten) && o.plot_path) {
		const bool has_json = o.json_path && !is_unwritten;
		const char *written = o.table && o.csv ? (has_json ? "the CSV and JSON were written" : "the CSV was written")
				      : o.table	       ? (has_json ? "the table and JSON were written" : "the table was written")
						       : (has_json ? "the JSON was written" : "nothing was written");
		struct nl_err perr = {0};
		if (sweep_plot(&sp, written, &perr) < 0) {
			cli_report(&perr);
			is_unplotted = true;
		}
	}
done:
	rc = cli_stdout_finish(run_finish(rc, deadlocked, is_unwritten ? o.json_path : NULL, &err, quiet),
			       sp.stdout_errno);
	if (rc == CLI_OK && is_unplotted)
		rc = CLI_SWEEP_NO_PLOT;
	free(sp.pts);
	nl_sim_free(sim);
	rc = net_mpi_agree_exit(mpi, rc);
done_opts:
	net_mpi_close(mpi);
	cli_cfg_opts_release(&o.cfg);
	return rc < 0 ? 0 : rc;
}
