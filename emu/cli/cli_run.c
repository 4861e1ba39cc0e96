/* netloom run / netloom sweep: synthetic-traffic experiments on the flit
 * model, as a table on stdout, CSV, and JSON. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "net/net.h"
#include "netloom/netloom.h"
#include "route/route.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

struct run_opts {
	struct cli_cfg_opts cfg;
	const char *json_path;
	const char *rates;     /* sweep: A:B:STEP */
	bool csv;
	bool reproducible;
	bool keep_going;       /* sweep: continue past the first unstable point */
	bool table;            /* print the table or CSV (not when JSON goes to stdout) */
};

struct run_env {
	struct config cfg;
	struct net_cfg nc;
	struct router_cfg rc;
	struct traffic_cfg tc;
	struct sim_cfg sc;
	struct topo *topo;
};

static void run_usage(FILE *f, const char *cmd)
{
	bool sweep = !strcmp(cmd, "sweep");
	fprintf(f,
		"usage: netloom %s [-c FILE] [-s key=value]... %s[--json FILE] [--csv] [--reproducible]\n\n"
		"%s\n\n"
		"options:\n"
		"  -c, --config FILE   INI configuration (BookSim2 key names; see 'netloom config --keys')\n"
		"  -s, --set KEY=VAL   override one key (repeatable, applied after the file)\n"
		"%s"
		"      --json FILE     write results as JSON, atomically ('-': stdout, instead of the table)\n"
		"      --csv           print CSV instead of the table\n"
		"      --reproducible  write wall_seconds as 0 so repeated runs compare byte for byte\n"
		"  -h, --help          this text\n\n"
		"Defaults: torus:k=8x8, dor, uniform traffic at 0.1 flits/cycle/endpoint.\n"
		"Topologies: 'netloom topo list'. Routing functions and traffic patterns:\n",
		cmd, sweep ? "--rates A:B:STEP [--continue] " : "",
		sweep ? "Load-latency curve: one operating point per injection rate, stopping after the\n"
			"first unstable (saturated) point unless --continue."
		      : "Simulate one operating point: warm-up, measurement until convergence, drain\n"
			"(BookSim2's method), and report latency, throughput, hops and channel use.",
		sweep ? "      --rates A:B:STEP  injection rates from A to B inclusive (flits/cycle/endpoint)\n"
			"      --continue      keep going after an unstable point\n"
		      : "");
	route_print_help(f);
	traffic_print_help(f);
}

static int run_parse(int argc, char **argv, struct run_opts *o)
{
	const char *cmd = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int c = cli_cfg_opt(&o->cfg, cmd, argc, argv, &i);
		if (c < 0)
			return -c;
		if (c > 0)
			continue;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout, cmd);
			return -1;
		} else if (!strcmp(a, "--json") && i + 1 < argc) {
			o->json_path = argv[++i];
		} else if (!strcmp(a, "--csv")) {
			o->csv = true;
		} else if (!strcmp(a, "--reproducible")) {
			o->reproducible = true;
		} else if (!strcmp(cmd, "sweep") && !strcmp(a, "--rates") && i + 1 < argc) {
			o->rates = argv[++i];
		} else if (!strcmp(cmd, "sweep") && !strcmp(a, "--continue")) {
			o->keep_going = true;
		} else if (!strcmp(a, "--json") || (!strcmp(cmd, "sweep") && !strcmp(a, "--rates"))) {
			return cli_usage_error(cmd, "option '%s' needs a value", a);
		} else {
			return cli_usage_error(cmd, "unknown option '%s' (see 'netloom %s --help')", a, cmd);
		}
	}
	if (!strcmp(cmd, "sweep") && !o->rates)
		return cli_usage_error(cmd, "--rates A:B:STEP is required (e.g. --rates 0.05:0.5:0.05)");
	/* With --json -, stdout carries the JSON document alone. */
	o->table = !(o->json_path && !strcmp(o->json_path, "-"));
	if (o->csv && !o->table)
		return cli_usage_error(cmd, "--csv and --json - both write to stdout");
	return 0;
}

static int run_setup(struct run_env *env, const struct run_opts *o, struct nl_err *err)
{
	NL_CHECK(cli_cfg_load(&env->cfg, &o->cfg, err));
	NL_CHECK(config_bind(&env->cfg, &net_network_table, &env->nc, err));
	NL_CHECK(config_bind(&env->cfg, &net_router_table, &env->rc, err));
	NL_CHECK(config_bind(&env->cfg, &traffic_table, &env->tc, err));
	NL_CHECK(config_bind(&env->cfg, &net_sim_table, &env->sc, err));
	return topo_new(env->nc.topology, &env->topo, err);
}

static void run_env_release(struct run_env *env)
{
	topo_free(env->topo);
	config_release(&env->cfg);
}

static void run_print_header(const struct run_env *env, bool csv)
{
	if (csv) {
		printf("offered,injected,accepted,latency_mean,latency_p50,latency_p99,latency_max,"
		       "network_latency_mean,hops_mean,stable,cycles,flit_hops,wall_seconds\n");
		return;
	}
	printf("netloom %s: %s, routing %s, traffic %s, %u routers, %u endpoints, seed %lld\n", nl_version(),
	       env->topo->spec, env->nc.routing_function, env->tc.traffic, env->topo->n_routers,
	       env->topo->n_endpoints, (long long)env->sc.seed);
	printf("%9s %9s %9s  %9s %6s %6s %7s  %9s %6s  %s\n", "offered", "injected", "accepted", "lat.mean",
	       "p50", "p99", "max", "net.mean", "hops", "stable");
}

static void run_print_point(const struct net_point *pt, bool csv, bool reproducible)
{
	if (pt->deadlock) {
		/* A deadlock is not a measurement: no figures, only where it stopped. */
		if (csv)
			printf("%.6g,,,,,,,,,0,%llu,%llu,%.3f\n", pt->offered, (unsigned long long)pt->cycles,
			       (unsigned long long)pt->flit_hops, reproducible ? 0.0 : pt->wall_seconds);
		else
			printf("%9.4f %9s %9s  %9s %6s %6s %7s  %9s %6s  deadlock at cycle %llu\n", pt->offered, "-", "-",
			       "-", "-", "-", "-", "-", "-", (unsigned long long)pt->dl.cycle);
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
	printf("%9.4f %9.4f %9.4f  %9.2f %6llu %6llu %7llu  %9.2f %6.2f  %s\n", pt->offered, pt->injected,
	       pt->accepted, pt->plat_mean, (unsigned long long)pt->plat_p50, (unsigned long long)pt->plat_p99,
	       (unsigned long long)pt->plat_max, pt->nlat_mean, pt->hops_mean,
	       pt->stable ? "yes" : "no (saturated)");
}

static json_t *run_doc(const struct run_env *env, const char *cmd)
{
	json_t *doc = json_object();
	json_t *meta = json_object();
	json_object_set_new(meta, "version", json_string(nl_version()));
	json_object_set_new(meta, "command", json_string(cmd));
	json_object_set_new(doc, "netloom", meta);
	json_t *topo = json_object();
	json_object_set_new(topo, "spec", json_string(env->topo->spec));
	json_object_set_new(topo, "routers", json_integer(env->topo->n_routers));
	json_object_set_new(topo, "endpoints", json_integer(env->topo->n_endpoints));
	json_object_set_new(doc, "topology", topo);
	json_object_set_new(doc, "config", config_to_json(&env->cfg));
	return doc;
}

/* Run one point. A deadlock is returned as a point (pt->deadlock) with
 * *deadlocked set and rc 0, its one-line report and the deadlocked VCs on
 * stderr, so the caller writes it as a result and then fails. */
static int run_point(struct run_env *env, double rate, struct net_point *pt, bool *deadlocked,
		     struct nl_err *err)
{
	int rc = net_run_point(&env->nc, &env->rc, &env->sc, &env->tc, env->topo, rate, pt, err);
	if (rc == NL_EDEADLOCK && pt->deadlock) {
		fprintf(stderr, "netloom: %s\ndeadlocked input VCs:\n%s", err->msg, pt->report ? pt->report : "");
		*deadlocked = true;
		return 0;
	}
	return rc;
}

static int run_finish(int rc, bool deadlocked, const struct nl_err *err)
{
	if (rc < 0)
		return cli_report(err);
	return deadlocked ? CLI_FAIL : CLI_OK;
}

int cli_run_main(int argc, char **argv)
{
	struct run_opts o = {0};
	struct run_env env = {0};
	struct net_point pt = {0};
	struct nl_err err = {0};
	int rc = run_parse(argc, argv, &o);
	if (rc)
		goto done_opts;
	bool deadlocked = false;
	rc = run_setup(&env, &o, &err);
	if (rc == 0)
		rc = run_point(&env, env.tc.injection_rate, &pt, &deadlocked, &err);
	if (rc == 0 && o.table) {
		run_print_header(&env, o.csv);
		run_print_point(&pt, o.csv, o.reproducible);
		if (!o.csv && !deadlocked)
			printf("%llu cycles, %llu flit-hops in %.2f s (%.2f M flit-hops/s)\n",
			       (unsigned long long)pt.cycles, (unsigned long long)pt.flit_hops, pt.wall_seconds,
			       pt.wall_seconds > 0 ? (double)pt.flit_hops / pt.wall_seconds / 1e6 : 0.0);
	}
	if (rc == 0 && o.json_path) {
		json_t *doc = run_doc(&env, "run");
		json_object_set_new(doc, "results", net_point_json(&pt, env.topo, o.reproducible));
		rc = out_write_json(o.json_path, doc, &err);
		json_decref(doc);
	}
	rc = run_finish(rc, deadlocked, &err);
	net_point_release(&pt);
	run_env_release(&env);
done_opts:
	cli_cfg_opts_release(&o.cfg);
	return rc < 0 ? 0 : rc;
}

static int sweep_parse_rates(const char *s, double *a, double *b, double *step)
{
	char *e;
	errno = 0;
	*a = strtod(s, &e);
	if (*e != ':')
		return -1;
	*b = strtod(e + 1, &e);
	if (*e != ':')
		return -1;
	*step = strtod(e + 1, &e);
	if (*e || errno || !(*step > 0) || *a < 0 || *b < *a || *b > 1)
		return -1;
	return 0;
}

int cli_sweep_main(int argc, char **argv)
{
	struct run_opts o = {0};
	struct run_env env = {0};
	struct nl_err err = {0};
	double a, b, step;
	json_t *doc = NULL, *points = NULL;
	bool deadlocked = false;
	int rc = run_parse(argc, argv, &o);
	if (rc)
		goto done_opts;
	if (sweep_parse_rates(o.rates, &a, &b, &step) < 0) {
		rc = cli_usage_error("sweep", "--rates '%s': expected A:B:STEP with 0 <= A <= B <= 1 and STEP > 0",
				     o.rates);
		goto done_opts;
	}
	rc = run_setup(&env, &o, &err);
	if (rc < 0)
		goto done;
	doc = run_doc(&env, "sweep");
	points = json_array();
	double last_stable = -1, sat_accepted = 0, first_unstable = -1, deadlock_rate = -1;
	long n_steps = lround(floor((b - a) / step + 1e-9));
	for (long k = 0; k <= n_steps; k++) {
		/* a + k*step to 12 significant digits, so 0.15 is 0.15. */
		char rate_txt[32];
		snprintf(rate_txt, sizeof rate_txt, "%.12g", a + (double)k * step);
		double rate = strtod(rate_txt, NULL);
		struct net_point pt = {0};
		rc = run_point(&env, rate, &pt, &deadlocked, &err);
		if (rc < 0) {
			net_point_release(&pt);
			break;
		}
		/* The header waits for the first point: routing, traffic and
		 * flow-control checks happen when a point is built, and a bad
		 * configuration must leave stdout empty. */
		if (o.table) {
			if (k == 0)
				run_print_header(&env, o.csv);
			run_print_point(&pt, o.csv, o.reproducible);
			fflush(stdout);
		}
		json_array_append_new(points, net_point_json(&pt, env.topo, o.reproducible));
		if (pt.stable) {
			last_stable = rate;
			if (pt.accepted > sat_accepted)
				sat_accepted = pt.accepted;
		} else if (first_unstable < 0 && !pt.deadlock) {
			first_unstable = rate;
		}
		/* A deadlock ends the sweep even with --continue: the points
		 * past it would only deadlock too, or mislead. */
		if (pt.deadlock)
			deadlock_rate = rate;
		bool stop = pt.deadlock || (!pt.stable && !o.keep_going);
		net_point_release(&pt);
		if (stop)
			break;
	}
	if (rc == 0) {
		json_t *sat = json_object();
		json_object_set_new(sat, "last_stable_rate", last_stable >= 0 ? json_real(last_stable) : json_null());
		json_object_set_new(sat, "first_unstable_rate",
				    first_unstable >= 0 ? json_real(first_unstable) : json_null());
		json_object_set_new(sat, "max_accepted", json_real(sat_accepted));
		json_object_set_new(sat, "deadlock_rate", deadlock_rate >= 0 ? json_real(deadlock_rate) : json_null());
		json_t *res = json_object();
		json_object_set_new(res, "points", points);
		points = NULL;
		json_object_set_new(res, "saturation", sat);
		json_object_set_new(doc, "results", res);
		char last_txt[32] = "none";
		if (last_stable >= 0)
			snprintf(last_txt, sizeof last_txt, "%.4g", last_stable);
		if (o.table && !o.csv && deadlock_rate >= 0)
			printf("deadlock at rate %.4g: the sweep stops (last stable rate %s)\n", deadlock_rate,
			       last_txt);
		else if (o.table && !o.csv && first_unstable >= 0)
			printf("saturation: last stable rate %.4g, first unstable %.4g, max accepted %.4f\n",
			       last_stable, first_unstable, sat_accepted);
		else if (o.table && !o.csv)
			printf("no saturation up to %.4g, max accepted %.4f\n", last_stable, sat_accepted);
		if (o.json_path)
			rc = out_write_json(o.json_path, doc, &err);
	}
done:
	rc = run_finish(rc, deadlocked, &err);
	json_decref(points);
	json_decref(doc);
	run_env_release(&env);
done_opts:
	cli_cfg_opts_release(&o.cfg);
	return rc < 0 ? 0 : rc;
}
