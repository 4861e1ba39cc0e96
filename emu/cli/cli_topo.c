/* netloom topo: list the topology families, describe a topology (structure,
 * distances, bisection, Moore ratio, link-failure tolerance) and export it.
 *
 *   netloom topo list
 *   netloom topo describe SPEC [--json] [--bisection] [--faults] [--seed N] ...
 *   netloom topo export SPEC --format edgelist|dot|json [-o FILE]
 */
#include <float.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "layout/layout.h"
#include "topo/topo.h"
#include "topo/topo_tree.h"

/* topo's, describe's and export's (docs/analysis.md, the general rule). */
#define TOPO_EXIT_STATUS                                                                             \
	"Exit status: 0 done; 1 the work failed (out of memory, or -o FILE could not be written\n" \
	"after it); 2 a bad command line or SPEC, or an output that cannot be written (checked\n"  \
	"before the work). See docs/analysis.md.\n"

static const char topo_usage[] =
	"usage: netloom topo <list|describe|export> [options]\n"
	"\n"
	"  list                       the topology families and their parameters\n"
	"  describe SPEC [options]    structure and graph metrics of one topology\n"
	"  export SPEC --format F     the topology as an edge list, DOT or JSON\n"
	"\n"
	"'netloom topo <subcommand> --help' describes its options; docs/topologies.md the\n"
	"families, docs/analysis.md the metrics.\n"
	"\n"
	TOPO_EXIT_STATUS;

static const char describe_usage[] =
	"usage: netloom topo describe SPEC [options]\n"
	"\n"
	"Routers, endpoints, radix, links, diameter, average shortest path length,\n"
	"distance histogram, bisection formula and Moore-bound ratio of SPEC\n"
	"(e.g. flex:nx=6,ny=6,nz=3,p=10 or torus:k=8x8). Distances are exact (one\n"
	"BFS per vertex orbit) unless the graph is too large without symmetry.\n"
	"\n"
	"  --json            one JSON object on stdout\n"
	"  --bisection       also partition with METIS (several seeded runs)\n"
	"  --faults          also run the link-failure tolerance trials (FleX Table 5)\n"
	"  --seed N          seed of the METIS runs, fault trials and sampled sources\n"
	"                    (default 1); a random topology (dln, p1..p3) keeps its\n"
	"                    spec's seed=\n"
	"  --metis-runs N    seeded METIS runs, each recursive and k-way (default 8)\n"
	"  --trials N        fault trials per 5% step (default 100)\n"
	"                    (runs or trials past about an hour of work are refused,\n"
	"                    naming the most that fit)\n"
	"  --exact           exact distances whatever the cost (not with --sampled or\n"
	"                    --samples)\n"
	"  --sampled         sampled distances (see --samples)\n"
	"  --samples N       sampled distances from N BFS sources, at least 2 (--sampled\n"
	"                    alone: 1024, fewer where the sampling budget runs out)\n"
	"  -o, --output FILE write there (atomically; '-' = stdout, the default)\n"
	"  -h, --help        this text\n"
	"\n"
	TOPO_EXIT_STATUS;

static const char export_usage[] =
	"usage: netloom topo export SPEC --format edgelist|dot|json [-o FILE]\n"
	"\n"
	"  --format F        edgelist: '# ' header, then 'a b w' per router pair\n"
	"                    (w parallel links); dot: Graphviz undirected graph;\n"
	"                    json: routers with ports, endpoints and coordinates\n"
	"  -o, --output FILE write there (atomically; '-' = stdout, the default)\n"
	"  -h, --help        this text\n"
	"\n"
	TOPO_EXIT_STATUS;

static const char list_usage[] =
	"usage: netloom topo list\n"
	"\n"
	"Print every topology family with its parameters (name, type, default,\n"
	"range, meaning). A SPEC is 'family:key=value,key=value' (docs/topologies.md).\n";

static int topo_list_main(int argc, char **argv)
{
	/* --help anywhere, as getopt_long reads it (the only option). */
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	if (cli_help_asked(argc, argv, ":h", longopts)) {
		fputs(list_usage, stdout);
		return CLI_OK;
	}
	/* A last '--' ends the options, as getopt_long reads it in the other
	 * commands; an option is named as they name one. */
	if (argc == 2 && !strcmp(argv[1], "--"))
		argc = 1;
	if (argc > 2 && !strcmp(argv[1], "--"))
		return cli_usage_error("topo list", "unexpected argument '%s' after '--'", argv[2]);
	if (argc > 1 && argv[1][0] == '-' && argv[1][1])
		return cli_usage_error("topo list", "unknown option '%s' (see 'netloom topo list --help')", argv[1]);
	/* 'topo list torus', for one family's parameters: they are in the
	 * list, as every family's (it said only "unexpected argument"). */
	struct nl_err e = {0};
	if (argc > 1 && topo_find(argv[1], &e))
		return cli_usage_error("topo list",
				       "unexpected argument '%s': expected none (every family is listed, '%s' and its "
				       "parameters among them)",
				       argv[1], argv[1]);
	if (argc > 1)
		return cli_usage_error("topo list", "unexpected argument '%s': expected none (it lists every family)",
				       argv[1]);
	printf("topology families (SPEC = family:key=value,...):\n");
	topo_print_help(stdout);
	return CLI_OK;
}

/* A number that is integral prints as a JSON integer. */
static json_t *topo_json_num(double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

struct describe_opts {
	bool json, bisection, faults, seed_given;
	uint64_t seed, runs, trials, samples;
	enum analyze_dist_mode mode;
	const char *output;
	const char *spec;  /* the SPEC; NULL: not given */
	const char *extra; /* a word after the SPEC, refused; NULL: none */
	bool is_help;      /* --help: the usage is all there is to do */
};

/* Something random is asked for (METIS, the fault trials), which --seed
 * seeds whatever the distances. */
static bool describe_is_seeded(const struct describe_opts *o)
{
	return o->bisection || o->faults;
}

struct describe_result {
	struct topo *t;
	struct analyze_graph g;
	struct analyze_dist d;
	struct analyze_formula f;
	struct analyze_bisect b;
	struct analyze_faults fl;
	bool has_metis;
	double moore;
};

/* routers / Moore bound while both are doubles: a bound past 1.8e308
 * (degree 4 past diameter ~646) printed 'Moore bound inf' and ratio 0. */
static bool describe_moore_fits(uint32_t routers, double bound)
{
	return isfinite(bound) && (double)routers / bound >= DBL_MIN;
}

/* 10^x as text with `digits` significant digits ("5.21e+418"): the Moore
 * bound and ratio where a double cannot hold them. */
static const char *describe_pow10(char *buf, size_t cap, double x, int digits)
{
	double e = floor(x), m = pow(10, x - e), scale = pow(10, digits - 1);
	m = round(m * scale) / scale;
	if (m >= 10) {
		m /= 10;
		e += 1;
	}
	snprintf(buf, cap, "%.*ge%+.0f", digits, m, e);
	return buf;
}

/* The Moore bound for degree and diameter, and routers / it, as text:
 * %.10g and %.6g while they are doubles, else from its logarithm. */
static void describe_moore_text(char *bound, char *ratio, size_t cap, uint32_t routers, uint32_t degree,
				uint32_t diameter)
{
	double mb = analyze_moore_bound(degree, diameter);
	if (describe_moore_fits(routers, mb)) {
		snprintf(bound, cap, "%.10g", mb);
		snprintf(ratio, cap, "%.6g", (double)routers / mb);
		return;
	}
	double lg = analyze_moore_bound_log10(degree, diameter);
	describe_pow10(bound, cap, lg, 10);
	describe_pow10(ratio, cap, log10((double)routers) - lg, 6);
}

/* routers / the Moore bound for degree and diameter as JSON, null where
 * a double cannot hold it: from the logarithms when the bound is past a
 * double but the ratio is not (mesh:k=324x324: ratio 3.2e-304). */
static json_t *describe_json_moore_ratio(uint32_t routers, uint32_t degree, uint32_t diameter)
{
	double bound = analyze_moore_bound(degree, diameter);
	if (describe_moore_fits(routers, bound))
		return json_real((double)routers / bound);
	double ratio = pow(10, log10((double)routers) - analyze_moore_bound_log10(degree, diameter));
	return isfinite(ratio) && ratio >= DBL_MIN ? json_real(ratio) : json_null();
}

/* The cut the bisection ratios come from, and its name: the endpoint cut
 * of one router, else the smaller of METIS's cut and an exact formula
 * (METIS is a heuristic: one run cut 610 links of a 256 x 256 torus whose
 * bisection, 2P/k, is 512), never an upper bound. -1 when there is none. */
static double describe_ratio_basis(const struct describe_result *r, const char **name)
{
	bool has_exact_formula = r->f.has && !r->f.is_upper_bound;
	if (r->has_metis && r->b.is_endpoint_cut) {
		*name = "endpoint_cut";
		return (double)r->b.cut;
	}
	if (r->has_metis && !(has_exact_formula && r->f.value < (double)r->b.cut)) {
		*name = "metis";
		return (double)r->b.cut;
	}
	if (has_exact_formula) {
		*name = "formula";
		return r->f.value;
	}
	*name = NULL;
	return -1;
}

static json_t *describe_json(const struct describe_opts *o, const struct describe_result *r)
{
	const struct topo *t = r->t;
	const struct analyze_dist *d = &r->d;
	json_t *j = json_object();

	session_json_head(j, "topo describe");
	json_object_set_new(j, "spec", out_json_utf8(t->spec) /* a graph:file= path: any bytes */);
	json_object_set_new(j, "family", json_string(t->ops->name));
	json_object_set_new(j, "routers", json_integer(t->n_routers));
	json_object_set_new(j, "endpoints", json_integer(t->n_endpoints));
	json_object_set_new(j, "radix", json_integer(topo_max_radix(t)));
	json_object_set_new(j, "network_degree", json_integer(r->g.max_degree));
	const struct topo_tree *tr = topo_tree_of(t);
	if (tr)
		json_object_set_new(j, "physical_switches", json_integer(topo_tree_physical_switches(tr)));
	json_object_set_new(j, "links", json_integer((json_int_t)r->g.links));
	json_object_set_new(j, "physical_links", json_integer((json_int_t)r->g.phys_links));
	json_object_set_new(j, "connected", json_boolean(d->is_connected));
	json_object_set_new(j, "diameter", d->is_connected ? json_integer(d->diameter) : json_null());
	json_object_set_new(j, "aspl", d->is_connected ? json_real(d->aspl) : json_null());
	json_object_set_new(j, "exact", json_boolean(d->is_exact));
	json_object_set_new(j, "diameter_exact", json_boolean(d->is_diameter_exact));
	json_object_set_new(j, "distance_method", json_string(d->method));
	json_object_set_new(j, "bfs_sources", json_integer(d->n_sources));
	if (!d->is_exact) {
		json_object_set_new(j, "samples", json_integer(d->n_sources));
		json_object_set_new(j, "samples_requested", json_integer(d->samples_wanted));
		json_object_set_new(j, "confidence", json_real(0.95));
		json_object_set_new(j, "aspl_ci95", json_real(d->aspl_ci95));
		json_t *bounds = json_array();
		json_array_append_new(bounds, d->is_connected ? json_integer(d->diameter) : json_null());
		json_array_append_new(bounds, d->is_connected ? json_integer(d->diameter_hi) : json_null());
		json_object_set_new(j, "diameter_bounds", bounds);
	}
	json_t *h = json_array();
	for (uint32_t i = 0; i < d->hist_len; i++)
		json_array_append_new(h, json_integer((json_int_t)d->hist[i]));
	json_object_set_new(j, "histogram", h);

	json_t *b = json_object();
	const char *basis_name;
	double basis = describe_ratio_basis(r, &basis_name);
	if (r->has_metis && r->b.is_endpoint_cut) {
		/* One router (seed 002 §4.3): the endpoints halved, their links cut. */
		json_t *pw = json_array();
		for (int side = 0; side < 2; side++)
			json_array_append_new(pw, json_integer((json_int_t)r->b.part_weight[side]));
		json_object_set_new(b, "endpoint_cut", json_integer((json_int_t)r->b.cut));
		json_object_set_new(b, "endpoint_cut_part_endpoints", pw);
	} else if (r->has_metis) {
		json_object_set_new(b, "metis", json_integer((json_int_t)r->b.cut));
		json_object_set_new(b, "metis_runs", json_integer(r->b.runs));
		json_object_set_new(b, "metis_unbalanced_rejected", json_integer(r->b.unbalanced));
		/* With no endpoints METIS balances routers: part_weight then
		 * counts routers, not endpoints. */
		bool by_ep = t->n_endpoints > 0;
		json_t *pw = json_array(), *pr = json_array();
		for (int side = 0; side < 2; side++) {
			json_array_append_new(pw, json_integer(by_ep ? (json_int_t)r->b.part_weight[side] : 0));
			json_array_append_new(pr, json_integer((json_int_t)r->b.part_routers[side]));
		}
		json_object_set_new(b, "metis_part_endpoints", pw);
		json_object_set_new(b, "metis_part_routers", pr);
	}
	if (r->f.has && r->f.is_upper_bound) {
		json_object_set_new(b, "upper_bound", topo_json_num(r->f.value));
		json_object_set_new(b, "upper_bound_source", json_string(r->f.source));
	} else if (r->f.has) {
		json_object_set_new(b, "formula", topo_json_num(r->f.value));
		json_object_set_new(b, "formula_source", json_string(r->f.source));
	}
	if (basis_name) {
		json_object_set_new(b, "b_r", json_real(analyze_ratio_b(&r->g, basis)));
		/* B_r divides by the router links: none, no ratio. */
		json_object_set_new(b, "B_r", r->g.phys_links ? json_real(analyze_ratio_B(&r->g, basis)) : json_null());
		json_object_set_new(b, "ratios_from", json_string(basis_name));
	}
	json_object_set_new(j, "bisection", b);

	if (d->is_connected) {
		double lg = analyze_moore_bound_log10(r->g.max_degree, d->diameter);
		json_object_set_new(j, "moore_bound", isfinite(r->moore) ? topo_json_num(r->moore) : json_null());
		json_object_set_new(j, "moore_ratio", describe_json_moore_ratio(t->n_routers, r->g.max_degree, d->diameter));
		json_object_set_new(j, "moore_bound_log10", json_real(lg));
		json_object_set_new(j, "moore_ratio_log10", json_real(log10((double)t->n_routers) - lg));
		json_object_set_new(j, "moore_ratio_exact", json_boolean(d->is_diameter_exact));
		if (!d->is_diameter_exact) { /* from the diameter bounds: [at the upper, at the lower] */
			json_t *mb = json_array();
			json_array_append_new(mb, describe_json_moore_ratio(t->n_routers, r->g.max_degree, d->diameter_hi));
			json_array_append_new(mb, describe_json_moore_ratio(t->n_routers, r->g.max_degree, d->diameter));
			json_object_set_new(j, "moore_ratio_bounds", mb);
		}
	} else {
		json_object_set_new(j, "moore_bound", json_null());
		json_object_set_new(j, "moore_ratio", json_null());
	}
	if (o->faults) {
		const struct analyze_faults *fl = &r->fl;
		json_t *f = json_object(), *steps = json_array();
		json_object_set_new(f, "trials", json_integer(fl->trials));
		json_object_set_new(f, "step_pct", json_integer(fl->step_pct));
		json_object_set_new(f, "links", json_integer((json_int_t)fl->links));
		json_object_set_new(f, "tolerance_pct",
				    fl->tolerance_pct < 0 ? json_null() : json_integer(fl->tolerance_pct));
		for (uint32_t s = 0; s < fl->n_steps; s++) {
			json_t *st = json_object();
			json_object_set_new(st, "removed_pct", json_integer(s * fl->step_pct));
			json_object_set_new(st, "removed", json_integer((json_int_t)fl->removed[s]));
			json_object_set_new(st, "connected", json_integer(fl->connected[s]));
			json_array_append_new(steps, st);
		}
		json_object_set_new(f, "steps", steps);
		json_object_set_new(j, "faults", f);
	}
	json_object_set_new(j, "seed", json_integer((json_int_t)o->seed));
	return j;
}

/* The plural ending of a count's noun: "1 link", "2 links" (every count
 * here can be 1: full:n=2 has one link, --metis-runs 1 one run). */
static const char *describe_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* The text histogram's distances shown: all up to DESCRIBE_HIST_ALL, else
 * the first DESCRIBE_HIST_HEAD and the last DESCRIBE_HIST_TAIL. A path or a
 * ring has a distance per two routers, and one line of them all is no use
 * to read (dln:n=16777216,d=2 printed 8,388,608 entries, ~140 MB); --json
 * keeps every one. */
#define DESCRIBE_HIST_ALL 24
#define DESCRIBE_HIST_HEAD 16
#define DESCRIBE_HIST_TAIL 4

static void describe_hist_text(FILE *f, const struct analyze_dist *d)
{
	uint32_t n = d->hist_len ? d->hist_len - 1 : 0; /* distances 1..n */
	bool is_cut = n > DESCRIBE_HIST_ALL;

	fprintf(f, "histogram      ");
	for (uint32_t i = 1; i <= n; i++) {
		if (is_cut && i == DESCRIBE_HIST_HEAD + 1) {
			fprintf(f, " ... %u more (--json lists all) ...", n - DESCRIBE_HIST_HEAD - DESCRIBE_HIST_TAIL);
			i = n - DESCRIBE_HIST_TAIL + 1;
		}
		fprintf(f, " %u:%llu", i, (unsigned long long)d->hist[i]);
	}
	fprintf(f, "%s\n", d->is_exact ? " (router pairs)" : " (estimated router pairs)");
}

static void describe_text(FILE *f, const struct describe_opts *o, const struct describe_result *r)
{
	const struct topo *t = r->t;
	const struct analyze_dist *d = &r->d;

	fputs("topology        ", f);
	nl_fputs_one_line(t->spec, f); /* a graph:file= path can hold a newline */
	fputc('\n', f);
	fprintf(f, "routers         %u\n", t->n_routers);
	fprintf(f, "endpoints       %u\n", t->n_endpoints);
	fprintf(f, "radix           %u port%s per router (endpoints included), %u router neighbour%s\n",
		topo_max_radix(t), describe_s(topo_max_radix(t)), r->g.max_degree, describe_s(r->g.max_degree));
	const struct topo_tree *tr = topo_tree_of(t);
	if (tr && topo_tree_physical_switches(tr) != t->n_routers)
		fprintf(f, "physical        %u switch%s (small core switches packaged together, seed 001 §4.1)\n",
			topo_tree_physical_switches(tr), topo_tree_physical_switches(tr) == 1 ? "" : "es");
	else if (tr)
		fprintf(f, "physical        %u switch%s\n", topo_tree_physical_switches(tr),
			topo_tree_physical_switches(tr) == 1 ? "" : "es");
	fprintf(f, "links           %llu router-router (%llu physical)\n", (unsigned long long)r->g.links,
		(unsigned long long)r->g.phys_links);
	if (!d->is_connected) {
		fprintf(f, "diameter        disconnected\n");
	} else if (d->is_exact) {
		fprintf(f, "diameter        %u\n", d->diameter);
		fprintf(f, "aspl            %.6f\n", d->aspl);
	} else {
		if (d->is_diameter_exact)
			fprintf(f, "diameter        %u (closed form; distances sampled, %u source%s)\n", d->diameter,
				d->n_sources, describe_s(d->n_sources));
		else
			fprintf(f, "diameter        %u..%u (sampled, %u source%s)\n", d->diameter, d->diameter_hi,
				d->n_sources, describe_s(d->n_sources));
		fprintf(f, "aspl            %.6f +- %.6f (95%% confidence)\n", d->aspl, d->aspl_ci95);
	}
	fprintf(f, "distances       %s, %u BFS source%s", d->method, d->n_sources, describe_s(d->n_sources));
	if (!d->is_exact && d->n_sources < d->samples_wanted)
		fprintf(f, " of %u (the sampling budget ran out; --samples N runs N)", d->samples_wanted);
	fprintf(f, "\n");
	describe_hist_text(f, d);
	if (r->has_metis && r->b.is_endpoint_cut)
		fprintf(f, "bisection       %llu endpoint link%s (one router: endpoints %llu | %llu, the switch with the "
			   "first half; seed 002 §4.3)\n",
			(unsigned long long)r->b.cut, describe_s(r->b.cut), (unsigned long long)r->b.part_weight[0],
			(unsigned long long)r->b.part_weight[1]);
	else if (r->has_metis && t->n_endpoints > 0)
		fprintf(f, "bisection       %llu link%s by METIS (%u seeded run%s, endpoints %llu | %llu)\n",
			(unsigned long long)r->b.cut, describe_s(r->b.cut), r->b.runs, describe_s(r->b.runs),
			(unsigned long long)r->b.part_weight[0],
			(unsigned long long)r->b.part_weight[1]);
	else if (r->has_metis) /* no endpoints: the halves balance routers */
		fprintf(f, "bisection       %llu link%s by METIS (%u seeded run%s, routers %u | %u; no endpoints)\n",
			(unsigned long long)r->b.cut, describe_s(r->b.cut), r->b.runs, describe_s(r->b.runs),
			r->b.part_routers[0], r->b.part_routers[1]);
	if (r->f.has)
		fprintf(f, "bisection       %s%.10g link%s by %s\n", r->f.is_upper_bound ? "<= " : "", r->f.value,
			r->f.value == 1 ? "" : "s", r->f.source);
	const char *basis_name;
	double basis = describe_ratio_basis(r, &basis_name);
	if (basis >= 0 && r->g.phys_links)
		fprintf(f, "bisection ratio b_r %.4f, B_r %.4f (seed 002 §4.3)\n", analyze_ratio_b(&r->g, basis),
			analyze_ratio_B(&r->g, basis));
	else if (basis >= 0) /* B_r divides by the router links */
		fprintf(f, "bisection ratio b_r %.4f, B_r not defined (no router-router links) (seed 002 §4.3)\n",
			analyze_ratio_b(&r->g, basis));
	char mb[48], mr[48];
	if (d->is_connected)
		describe_moore_text(mb, mr, sizeof mb, t->n_routers, r->g.max_degree, d->diameter);
	if (d->is_connected && d->is_diameter_exact) {
		fprintf(f, "moore ratio     %s (%u router%s / Moore bound %s for degree %u, diameter %u)\n", mr,
			t->n_routers, describe_s(t->n_routers), mb, r->g.max_degree, d->diameter);
	} else if (d->is_connected) { /* the true diameter is only bracketed */
		char mb_hi[48], mr_hi[48];
		describe_moore_text(mb_hi, mr_hi, sizeof mb_hi, t->n_routers, r->g.max_degree, d->diameter_hi);
		fprintf(f,
			"moore ratio     <= %s, approximate (%u router%s / Moore bound %s for degree %u and the "
			"sampled diameter's lower bound %u; %s at its upper bound %u)\n",
			mr, t->n_routers, describe_s(t->n_routers), mb, r->g.max_degree, d->diameter, mr_hi, d->diameter_hi);
	}
	if (o->faults) {
		const struct analyze_faults *fl = &r->fl;
		if (fl->links == 0) /* one router: connected whatever fails */
			fprintf(f, "link faults     no router-router links to fail (one router): connected at every step\n");
		else if (fl->tolerance_pct < 0)
			fprintf(f, "link faults     not connected in most trials even with no failure\n");
		else {
			/* The links that share removes, rounded: in a small network
			 * "45% of 3 links" is 1 link, which the line says. */
			uint64_t removed = fl->removed[fl->tolerance_pct / fl->step_pct];
			fprintf(f,
				"link faults     tolerates %d%% of %llu link%s (%llu removed; more than half of %u trial%s "
				"connected)\n",
				fl->tolerance_pct, (unsigned long long)fl->links, describe_s(fl->links),
				(unsigned long long)removed, fl->trials, describe_s(fl->trials));
		}
		fprintf(f, "connected      ");
		for (uint32_t s = 0; s < fl->n_steps; s++)
			fprintf(f, " %u%%:%u", s * fl->step_pct, fl->connected[s]);
		fprintf(f, "\n");
	}
	fprintf(f, "seed            %llu\n", (unsigned long long)o->seed);
}

/* Read the options into *o (--help stops there, o->is_help set), the SPEC
 * and a word after it kept for describe_check_opts. The status: CLI_OK, or
 * a refusal said. */
static int describe_parse_args(const char *cmd, int argc, char **argv, struct describe_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},        {"bisection", no_argument, NULL, 'b'},
		{"faults", no_argument, NULL, 'f'},      {"seed", required_argument, NULL, 's'},
		{"metis-runs", required_argument, NULL, 'r'}, {"trials", required_argument, NULL, 't'},
		{"exact", no_argument, NULL, 'E'},       {"sampled", no_argument, NULL, 'S'},
		{"samples", required_argument, NULL, 'n'}, {"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	int c;
	uint64_t v;

	opterr = 0;
	optind = 0;
	struct cli_seen seen = {0};
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (cli_value_once(cmd, longopts, &seen, c))
			return CLI_USAGE;
		switch (c) {
		case 'j': o->json = true; break;
		case 'b': o->bisection = true; break;
		case 'f': o->faults = true; break;
		case 'E':
		case 'S': {
			enum analyze_dist_mode m = c == 'E' ? ANALYZE_DIST_EXACT : ANALYZE_DIST_SAMPLED;
			if (o->mode != ANALYZE_DIST_AUTO && o->mode != m)
				return cli_usage_error(cmd, "--exact and --sampled together: expected one distance method");
			o->mode = m;
			break;
		}
		case 'o':
			if (cli_output_file_once(cmd, "--output", &o->output, optarg))
				return CLI_USAGE;
			break;
		case 'h': o->is_help = true; return CLI_OK;
		case 's':
			if (cli_parse_u64(cmd, "--seed", optarg, 0, CLI_SEED_MAX, &o->seed) < 0)
				return CLI_USAGE;
			o->seed_given = true;
			break;
		case 'r':
			if (cli_parse_u64(cmd, "--metis-runs", optarg, 1, 10000, &o->runs) < 0)
				return CLI_USAGE;
			break;
		case 't':
			if (cli_parse_u64(cmd, "--trials", optarg, 1, 1000000, &o->trials) < 0)
				return CLI_USAGE;
			break;
		case 'n':
			/* At least two: the ASPL's 95% interval is the spread of
			 * per-source means, which one source cannot give (it
			 * printed +- 0). */
			if (cli_parse_u64(cmd, "--samples", optarg, 2, UINT32_MAX, &v) < 0)
				return CLI_USAGE;
			o->samples = v;
			break;
		default: return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	o->spec = optind < argc ? argv[optind] : NULL;
	o->extra = optind + 1 < argc ? argv[optind + 1] : NULL;
	return CLI_OK;
}

/* Refuse options that do nothing together, then check the SPEC's files and
 * the output (stdout by default) before the analysis. The status: CLI_OK,
 * or a refusal said. */
static int describe_check_opts(const char *cmd, struct describe_opts *o)
{
	struct nl_err err = {0};
	/* --samples N asks for sampled distances (docs/analysis.md): alone it
	 * was ignored wherever the run stayed exact. */
	if (o->samples && o->mode == ANALYZE_DIST_EXACT)
		return cli_usage_error(cmd, "--exact and --samples together: --samples N samples the distances; "
					    "expected one distance method");
	if (o->samples)
		o->mode = ANALYZE_DIST_SAMPLED;
	/* --metis-runs N and --trials N tune --bisection and --faults: alone
	 * they were accepted and ignored (nothing partitioned, no trial run),
	 * as --samples N was. Both are at least 1 when given. */
	if (o->runs && !o->bisection)
		return cli_usage_error(cmd, "--metis-runs %llu without --bisection: only the METIS partition runs it; "
					    "expected --bisection with it, or no --metis-runs",
				       (unsigned long long)o->runs);
	if (o->trials && !o->faults)
		return cli_usage_error(cmd, "--trials %llu without --faults: only the link-failure trials use it; "
					    "expected --faults with it, or no --trials",
				       (unsigned long long)o->trials);
	/* --seed with nothing seeded was accepted and printed as the seed of
	 * a description with nothing random in it. Distances left to AUTO
	 * may still be sampled (a large graph): said after, not refused. */
	if (o->seed_given && !describe_is_seeded(o) && o->mode == ANALYZE_DIST_EXACT)
		return cli_usage_error(cmd, "--seed %llu with --exact and without --bisection or --faults: nothing "
					    "is random here; expected --bisection, --faults or sampled distances with "
					    "it, or no --seed",
				       (unsigned long long)o->seed);
	if (!o->spec)
		return cli_usage_error(cmd, "missing SPEC (e.g. torus:k=8x8; see 'netloom topo list')");
	if (o->extra)
		return cli_usage_error(cmd,
				       "unexpected argument '%s' after SPEC; expected one SPEC (options begin "
				       "with '-')",
				       o->extra);
	/* Written after the analysis (minutes with --bisection, --faults on a
	 * large network): a path that cannot be written fails first. */
	if (!o->output)
		o->output = "-";
	struct cli_file out = {"--output", o->output};
	if (cli_check_spec_files(o->spec, &out, 1, &err) < 0)
		return cli_usage_error(cmd, "%s", err.msg);
	if (cli_check_output("--output", o->output, &err) < 0)
		return cli_report(&err);
	return CLI_OK;
}

/* Build the topology and analyse it into *r (which describe_result_release
 * frees, whatever this returns): graph, distances, the bisection formula,
 * and METIS and the fault trials when asked. 0 or a negative NL_E* code. */
static int describe_analyze(const char *cmd, const struct describe_opts *o, struct describe_result *r,
			    struct nl_err *err)
{
	int rc = topo_new_shown(o->spec, &r->t, err);
	if (rc < 0)
		return rc;
	rc = analyze_graph_init(&r->g, r->t, err);
	if (rc < 0)
		return rc;
	/* METIS runs and fault trials past their work limit are refused
	 * before the distances, which take minutes themselves on a graph
	 * that large. */
	struct analyze_bisect_opts bo = {.seed = o->seed, .runs = (uint32_t)o->runs};
	struct analyze_fault_opts fo = {.seed = o->seed, .trials = (uint32_t)o->trials};
	if (o->bisection && (rc = analyze_bisect_metis_check(&r->g, &bo, err)) < 0)
		return rc;
	if (o->faults && (rc = analyze_link_faults_check(r->t->n_routers, r->g.phys_links, &fo, err)) < 0)
		return rc;
	struct analyze_dist_opts dopt = {.mode = o->mode, .samples = (uint32_t)o->samples, .seed = o->seed};
	rc = analyze_distances(r->t, &r->g, &dopt, &r->d, err);
	if (rc < 0)
		return rc;
	if (o->seed_given && !describe_is_seeded(o) && r->d.is_exact)
		fprintf(stderr,
			"netloom %s: warning: --seed %llu: the distances are exact and neither --bisection nor "
			"--faults was given; nothing is random here, it has no effect\n",
			cmd, (unsigned long long)o->seed);
	rc = analyze_bisection_formula(r->t, &r->g, &r->f, err);
	if (rc < 0)
		return rc;
	if (o->bisection) {
		rc = analyze_bisect_metis(&r->g, &bo, &r->b, err);
		if (rc < 0)
			return rc;
		r->has_metis = true;
	}
	if (o->faults) {
		rc = analyze_link_faults(r->t, &fo, &r->fl, err);
		if (rc < 0)
			return rc;
	}
	r->moore = analyze_moore_bound(r->g.max_degree, r->d.diameter);
	return 0;
}

/* The description, JSON or text, to o->output. 0 or a negative NL_E* code. */
static int describe_write(const struct describe_opts *o, const struct describe_result *r, struct nl_err *err)
{
	int rc;
	if (o->json) {
		json_t *j = describe_json(o, r);
		rc = j ? out_write_json(o->output, j, err) : nl_errf(err, NL_ENOMEM, "out of memory");
		json_decref(j);
		return rc;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	if (!mf) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
	} else {
		describe_text(mf, o, r);
		fclose(mf);
		rc = out_write_atomic(o->output, buf, len, err);
	}
	free(buf);
	return rc;
}

static void describe_result_release(struct describe_result *r)
{
	analyze_dist_release(&r->d);
	analyze_graph_release(&r->g);
	topo_free(r->t);
}

static int topo_describe_main(int argc, char **argv)
{
	const char *cmd = "topo describe";
	struct describe_opts o = {.seed = 1, .mode = ANALYZE_DIST_AUTO};
	struct describe_result r;
	struct nl_err err = {0};
	int status, rc;

	memset(&r, 0, sizeof r);
	if ((status = describe_parse_args(cmd, argc, argv, &o)) != CLI_OK)
		return status;
	if (o.is_help) {
		fputs(describe_usage, stdout);
		return CLI_OK;
	}
	if ((status = describe_check_opts(cmd, &o)) != CLI_OK)
		return status;
	if (describe_analyze(cmd, &o, &r, &err) < 0) {
		describe_result_release(&r);
		return cli_report(&err);
	}
	rc = describe_write(&o, &r, &err);
	describe_result_release(&r);
	/* The analysis is done: a result that cannot be written now is the
	 * work failing, 1. */
	return rc < 0 ? cli_report_unwritten("--output", o.output, &err) : CLI_OK;
}

/* Puts the rendered export in place (out_stream_commit: the last flush,
 * the sync and the rename, or the copy to standard output), saying so on
 * a terminal when it is large: foldedhypercube:n=20 as JSON is 836 MB,
 * whose sync or copy takes seconds after the rendering's progress line
 * has gone. Below 32 MB (a fraction of a second) nothing is drawn, as no
 * progress line is. */
static int export_commit_shown(struct out_stream *os, struct nl_err *err)
{
	struct progress pr;
	char detail[64];
	fflush(os->f); /* os->bytes is then the whole document; a failure is the commit's to say */
	progress_init(&pr, strcmp(os->path, "-") ? os->path : "standard output");
	if (os->bytes >= ((unsigned long long)32 << 20)) {
		snprintf(detail, sizeof detail, "writing %.0f MB", (double)os->bytes / 1e6);
		progress_show(&pr, detail);
	}
	int rc = out_stream_commit(os, err);
	progress_done(&pr);
	return rc;
}

static int topo_export_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = "topo export", *output = NULL, *format = NULL;
	struct nl_err err = {0};
	struct topo *t = NULL;
	int c, rc;

	opterr = 0;
	optind = 0;
	struct cli_seen seen = {0};
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (cli_value_once(cmd, longopts, &seen, c))
			return CLI_USAGE;
		switch (c) {
		case 'F': format = optarg; break;
		case 'o':
			if (cli_output_file_once(cmd, "--output", &output, optarg))
				return CLI_USAGE;
			break;
		case 'h': fputs(export_usage, stdout); return CLI_OK;
		default: return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "missing SPEC (e.g. torus:k=8x8; see 'netloom topo list')");
	if (optind + 1 < argc)
		return cli_usage_error(cmd,
				       "unexpected argument '%s' after SPEC; expected one SPEC (options begin "
				       "with '-')",
				       argv[optind + 1]);
	if (!format)
		return cli_usage_error(cmd, "missing --format (edgelist, dot or json)");
	int fmt = analyze_format_parse(format);
	if (fmt < 0)
		return cli_usage_error(cmd, "--format '%s': expected edgelist, dot or json", format);
	/* Written after building and rendering the network: a path that
	 * cannot be written fails first. */
	if (!output)
		output = "-";
	struct cli_file out = {"--output", output};
	if (cli_check_spec_files(argv[optind], &out, 1, &err) < 0)
		return cli_usage_error(cmd, "%s", err.msg);
	if (cli_check_output("--output", output, &err) < 0)
		return cli_report(&err);
	/* Before the network is built, as the path is. */
	if (cli_probe_staging(output, &err) < 0)
		return cli_report(&err);

	rc = topo_new_shown(argv[optind], &t, &err);
	if (rc < 0)
		return cli_report(&err);
	bool is_unwritten = false;
	/* The cabinets are netloom cost's (the default packaging rule), not
	 * the topology's own hint, which is canonical 16 where the family has
	 * no rule of its own there: a dragonfly's 17 cabinets against cost's
	 * 33, one group each. */
	struct layout lo;
	rc = layout_pack(&lo, t, NULL, 0, &err);
	if (rc < 0) {
		topo_free(t);
		return cli_report(&err);
	}
	struct analyze_packing pk = {lo.cabinet, lo.n_cabinets, lo.rule->name};
	/* Streamed into a staged file, never held whole in memory (the JSON
	 * of foldedhypercube:n=20 is 836 MB). A signal removes the staged
	 * file (the rendering polls), so an interrupted export leaves the old
	 * output as it was and no temporary file (main's out_signals_catch). */
	struct out_stream os;
	rc = out_stream_open(&os, output, &err);
	is_unwritten = rc < 0;
	if (rc == 0) {
		rc = analyze_export(t, &pk, (enum analyze_format)fmt, os.f, &err);
		/* A failed write is the commit's to say, naming the output. */
		if (rc == 0 || ferror(os.f)) {
			is_unwritten = true;
			rc = export_commit_shown(&os, &err);
		} else {
			out_stream_abort(&os);
		}
	}
	layout_release(&lo);
	topo_free(t);
	if (rc == 0)
		return CLI_OK;
	return is_unwritten ? cli_report_unwritten("--output", output, &err) : cli_report(&err);
}

int cli_topo_main(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("topo", "missing subcommand (list, describe or export; see --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(topo_usage, stdout);
		return CLI_OK;
	}
	/* Its lines name the subcommand, as its usage errors do. */
	if (!strcmp(argv[1], "list") || !strcmp(argv[1], "describe") || !strcmp(argv[1], "export")) {
		char cmd[32];
		snprintf(cmd, sizeof cmd, "topo %s", argv[1]);
		cli_set_command(cmd);
	}
	if (!strcmp(argv[1], "list"))
		return topo_list_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "describe"))
		return topo_describe_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "export"))
		return topo_export_main(argc - 1, argv + 1);
	static const char *const subs[] = {"list", "describe", "export"};
	const char *near = config_name_near(argv[1], strlen(argv[1]), subs, sizeof subs / sizeof *subs);
	return cli_usage_error("topo", "unknown subcommand '%s' (%s%s%svalid: list, describe, export)", argv[1],
			       near ? "did you mean '" : "", near ? near : "", near ? "'? " : "");
}
