/* netloom cost: routers, links, cables by class, length, cost by part and
 * power of a topology laid out in cabinets (emu/layout, docs/layout.md).
 *
 *   netloom cost SPEC [--preset P] [--layout auto|rule|anneal] [--json FILE]
 *
 * Also the options and set-up shared with `netloom layout` (cli_layout.c).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/progress.h"
#include "layout/layout.h"
#include "topo/topo.h"

static const char cost_usage[] =
	"usage: netloom cost SPEC [options]\n"
	"\n"
	"Packs SPEC's routers into cabinets by its family's packaging rule, places\n"
	"the cabinets on a floor grid, and prints routers, links, cables by medium\n"
	"and length class, total and mean cable length, cost by part and power\n"
	"under a cost preset (docs/layout.md).\n"
	"\n"
	"  --preset P        cost and cable model: flex (default), besta, equality,\n"
	"                    fujiwara, hyperx; --list-presets shows what each\n"
	"                    states and assumes\n"
	"  --layout L        auto (default: the rule's own floor order if it has one,\n"
	"                    else annealing), rule, or anneal\n"
	"  --iterations N    annealing moves per trial, 0..2^40 (default 1000000; seed\n"
	"                    003: 10^8); moves x trials past about an hour of work\n"
	"                    are refused, naming the most that fit\n"
	"  --trials N        annealing trials, shortest kept, 1..1000 (default 5, as seed 003)\n"
	"  --seed N          annealing seed, 0..9.2e18 (default 1)\n"
	"  --threads N       threads running the trials side by side, 0..1024 (default\n"
	"                    0: one per processor, at most one per trial; the same\n"
	"                    results for any N); these four are refused where nothing\n"
	"                    is annealed (rule, or auto on an own order)\n"
	"  --pack R          packaging rule by name (default: the family's own);\n"
	"                    canonical = routers in id order, --per-cabinet per cabinet\n"
	"  --per-cabinet N   routers per cabinet for canonical, 1..2^24 (default 16, 8\n"
	"                    for 64 routers); refused with any other rule\n"
	"  --radix K         ports of the router part priced, 1..2^20 (default: the\n"
	"                    largest radix of SPEC's routers)\n"
	"  --json FILE       also write a JSON document to FILE ('-' = stdout, instead of the table)\n"
	"  --list-presets    print the presets and exit\n"
	"  -h, --help        this text\n"
	"\n"
	"Exit status: 0 done; 1 --json could not be written after the work (a full disk;\n"
	"the table on stdout) or out of memory; 2 a bad command line or SPEC, or a --json\n"
	"that cannot be written (checked before the work).\n";

void cli_layout_opts_init(struct cli_layout_opts *o)
{
	*o = (struct cli_layout_opts){.preset = "flex", .placement = "auto", .iterations = 1000000, .trials = 5,
				      .seed = 1};
	opterr = 0;
	optind = 0;
}

int cli_layout_opt(struct cli_layout_opts *o, const char *cmd, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case CLI_LO_PRESET:
		o->preset = arg;
		return 1;
	case CLI_LO_LAYOUT:
		if (strcmp(arg, "auto") && strcmp(arg, "rule") && strcmp(arg, "anneal")) {
			/* A typo names the one meant, as key layout_placement's
			 * value does (core/param.c). */
			static const char *const placements[] = {"auto", "rule", "anneal"};
			const char *near = config_name_near(arg, strlen(arg), placements, 3);
			return -cli_usage_error(cmd, "--layout: expected auto, rule or anneal, got '%s'%s%s%s", arg,
						near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		}
		o->placement = arg;
		return 1;
	case CLI_LO_ITER:
		if (cli_parse_u64(cmd, "--iterations", arg, 0, UINT64_C(1) << 40, &o->iterations))
			return -CLI_USAGE;
		return 1;
	case CLI_LO_TRIALS:
		if (cli_parse_u64(cmd, "--trials", arg, 1, 1000, &v))
			return -CLI_USAGE;
		o->trials = (uint32_t)v;
		return 1;
	case CLI_LO_SEED:
		if (cli_parse_u64(cmd, "--seed", arg, 0, CLI_SEED_MAX, &o->seed))
			return -CLI_USAGE;
		return 1;
	case CLI_LO_THREADS:
		if (cli_parse_u64(cmd, "--threads", arg, 0, 1024, &v))
			return -CLI_USAGE;
		o->threads = (uint32_t)v;
		return 1;
	case CLI_LO_PACK:
		o->pack = arg;
		return 1;
	case CLI_LO_PERCAB:
		if (cli_parse_u64(cmd, "--per-cabinet", arg, 1, 1u << 24, &v))
			return -CLI_USAGE;
		o->per_cabinet = (uint32_t)v;
		return 1;
	case CLI_LO_RADIX:
		if (cli_parse_u64(cmd, "--radix", arg, 1, 1u << 20, &v))
			return -CLI_USAGE;
		o->radix = (uint32_t)v;
		return 1;
	default:
		return 0;
	}
}

/* Was the option of getopt code `code` given? */
static bool cli_layout_seen(const struct cli_layout_opts *o, int code)
{
	for (unsigned k = 0; k < o->seen.n; k++)
		if (o->seen.code[k] == code)
			return true;
	return false;
}

/* The first annealing option given (--iterations, --trials, --seed,
 * --threads), or NULL. */
static const char *cli_layout_anneal_opt(const struct cli_layout_opts *o)
{
	static const struct {
		int code;
		const char *opt;
	} anneal[] = {{CLI_LO_ITER, "--iterations"},
		      {CLI_LO_TRIALS, "--trials"},
		      {CLI_LO_SEED, "--seed"},
		      {CLI_LO_THREADS, "--threads"}};
	for (size_t i = 0; i < sizeof anneal / sizeof *anneal; i++)
		if (cli_layout_seen(o, anneal[i].code))
			return anneal[i].opt;
	return NULL;
}

int cli_layout_getopt(struct cli_layout_opts *o, const char *cmd, int argc, char **argv,
		      const struct option *longopts, int *status)
{
	int c;
	*status = 0;
	while ((c = cli_getopt_long(argc, argv, ":h", longopts, &o->help_scanned)) != -1) {
		/* Every option with a value, the command's own too (--json,
		 * --svg, --longest), once. */
		if (cli_value_once(cmd, longopts, &o->seen, c)) {
			*status = CLI_USAGE;
			return -1;
		}
		int r = cli_layout_opt(o, cmd, c, optarg);
		if (r < 0) {
			*status = -r;
			return -1;
		}
		if (r == 0)
			return c;
	}
	/* The annealing's options where nothing is annealed are refused once
	 * the topology is packed (cli_layout_setup). */
	return -1;
}


int cli_layout_setup(const struct cli_layout_opts *o, const char *spec, struct topo **t,
		     struct layout *lo, const struct layout_model **m, struct nl_err *err)
{
	int rc;
	*t = NULL;
	*m = layout_model_find(o->preset, err);
	if (!*m)
		return nl_err_prefix(err, "--preset");
	NL_CHECK(topo_new(spec, t, err));
	/* layout takes --radix too and never prices: it accepted a part too
	 * small for the routers, which cost refused, after the annealing. */
	rc = layout_check_radix(*t, o->radix, err);
	if (rc < 0)
		goto fail_topo;
	rc = layout_pack(lo, *t, o->pack, o->per_cabinet, err);
	if (rc < 0)
		goto fail_topo;
	if (o->per_cabinet && strcmp(lo->rule->name, "canonical")) {
		/* Only the canonical rule counts routers per cabinet: ignoring
		 * the option would price another packing than asked for. */
		rc = nl_errf(err, NL_ECONFIG,
			     "--per-cabinet %u: only the canonical rule takes it, and %s is packed by rule '%s'; "
			     "expected --pack canonical with it, or no --per-cabinet",
			     o->per_cabinet, (*t)->spec, lo->rule->name);
		goto fail_layout;
	}
	bool anneal = !strcmp(o->placement, "anneal") || (!strcmp(o->placement, "auto") && layout_auto_anneals(lo));
	/* --layout rule places the cabinets in the rule's order, annealing
	 * nothing, and so does auto on a rule with its own floor order: the
	 * annealing's options were parsed and ignored ('--layout rule
	 * --iterations 7' printed "rule order"). Auto is suggested only where
	 * it anneals (it refuses them on FleX, HyperX, folded tori). */
	const char *opt = anneal ? NULL : cli_layout_anneal_opt(o);
	if (opt && !strcmp(o->placement, "rule")) {
		rc = nl_errf(err, NL_ECONFIG,
			     "%s with --layout rule: only the annealing uses it (rule keeps the packaging rule's floor "
			     "order); expected --layout anneal%s with it, or no %s",
			     opt, layout_auto_anneals(lo) ? " or auto" : "", opt);
		goto fail_layout;
	}
	if (opt) {
		rc = nl_errf(err, NL_ECONFIG,
			     "%s with --layout auto%s: only the annealing uses it, and auto keeps the floor order of "
			     "rule '%s' (%s); expected --layout anneal with it, or no %s",
			     opt, cli_layout_seen(o, CLI_LO_LAYOUT) ? "" : " (the default)", lo->rule->name, (*t)->spec, opt);
		goto fail_layout;
	}
	if (anneal) {
		/* A long annealing shows where it is (stderr, terminals only). */
		struct progress pg;
		progress_init(&pg, "annealing");
		lo->progress = pg.enabled ? &pg : NULL;
		rc = layout_place_anneal(lo, *m, o->iterations, o->trials, o->seed, o->threads, err);
		lo->progress = NULL;
		progress_done(&pg);
	} else {
		rc = layout_place_rule(lo, err);
	}
	if (rc < 0)
		goto fail_layout;
	return 0;
fail_layout:
	layout_release(lo);
fail_topo:
	topo_free(*t);
	*t = NULL;
	return rc;
}

int cli_layout_spec_arg(const char *cmd, int argc, char **argv, const char *example)
{
	if (optind >= argc)
		return cli_usage_error(cmd, "missing topology SPEC (e.g. %s; see --help)", example);
	if (optind + 1 < argc)
		return cli_usage_error(cmd,
				       "unexpected argument '%s' after SPEC; expected one SPEC (options begin "
				       "with '-')",
				       argv[optind + 1]);
	return 0;
}

int cli_layout_finish(struct topo *t, struct layout *lo, int rc, const struct nl_err *err, const char *unwritten_opt,
		      const char *path)
{
	layout_release(lo);
	topo_free(t);
	if (rc == 0)
		return CLI_OK;
	return unwritten_opt ? cli_report_unwritten(unwritten_opt, path, err) : cli_report(err);
}


json_t *cli_layout_json(const struct layout *lo, const struct layout_model *m, const struct layout_summary *s)
{
	json_t *o = json_object(), *cls = json_array(), *cost = json_object(), *cab = json_object();
	session_json_head(o, "cost");
	json_object_set_new(o, "spec", out_json_utf8(lo->t->spec)); /* a graph:file= path: any bytes */
	json_object_set_new(o, "preset", json_string(m->name));
	json_object_set_new(o, "rule", json_string(lo->rule->name));
	json_object_set_new(o, "placement", json_string(lo->is_annealed ? "anneal" : "rule"));
	if (lo->is_annealed) {
		/* false in one cabinet or with 0 moves: nothing moved, as the text says. */
		json_object_set_new(o, "annealed", json_boolean(layout_anneal_moved(lo)));
		json_object_set_new(o, "iterations", json_integer((json_int_t)lo->iterations));
		json_object_set_new(o, "trials", json_integer(lo->trials));
		json_object_set_new(o, "seed", json_integer((json_int_t)lo->seed));
		json_object_set_new(o, "best_trial", json_integer(lo->best_trial));
	}
	json_object_set_new(o, "routers", json_integer(s->routers));
	json_object_set_new(o, "router_parts", json_integer(s->parts));
	json_object_set_new(o, "endpoints", json_integer(s->endpoints));
	json_object_set_new(o, "radix", json_integer(s->radix));
	json_object_set_new(o, "links", json_integer((json_int_t)s->links));
	json_object_set_new(o, "intra_cabinet_links", json_integer((json_int_t)s->intra_links));
	json_object_set_new(o, "inter_cabinet_links", json_integer((json_int_t)s->inter_links));
	json_object_set_new(cab, "count", json_integer(s->cabinets));
	json_object_set_new(cab, "rows", json_integer(s->rows));
	json_object_set_new(cab, "cols", json_integer(s->cols));
	json_object_set_new(cab, "max_units", json_integer(s->max_units));
	json_object_set_new(cab, "over_units", json_integer(s->over_units));
	json_object_set_new(o, "cabinets", cab);
	json_object_set_new(o, "copper_cables", json_integer((json_int_t)s->copper));
	json_object_set_new(o, "fibre_cables", json_integer((json_int_t)s->fibre));
	json_object_set_new(o, "terminal_cables", json_integer((json_int_t)s->terminal_cables));
	for (int c = 0; c < LAYOUT_N_CLASSES; c++) {
		json_t *e = json_object();
		if (c < LAYOUT_N_CLASSES - 1)
			json_object_set_new(e, "max_m", json_real(layout_class_max_m[c]));
		else
			json_object_set_new(e, "max_m", json_null());
		json_object_set_new(e, "cables", json_integer((json_int_t)s->by_class[c]));
		json_array_append_new(cls, e);
	}
	json_object_set_new(o, "length_classes", cls);
	json_object_set_new(o, "length_m", json_real(s->length_m));
	json_object_set_new(o, "mean_length_m", json_real(s->mean_m));
	json_object_set_new(o, "max_length_m", json_real(s->max_m));
	json_object_set_new(o, "copper_length_m", json_real(s->copper_m));
	json_object_set_new(o, "fibre_length_m", json_real(s->fibre_m));
	json_object_set_new(o, "terminal_length_m", json_real(s->terminal_length_m));
	json_object_set_new(cost, "routers", out_json_usd(s->cost_routers));
	json_object_set_new(cost, "copper", out_json_usd(s->cost_copper));
	json_object_set_new(cost, "fibre", out_json_usd(s->cost_fibre));
	json_object_set_new(cost, "terminal_cables", out_json_usd(s->cost_terminals));
	json_object_set_new(cost, "total", out_json_usd(s->cost_total));
	json_object_set_new(cost, "router_price_floored", json_boolean(s->router_price_floored));
	json_object_set_new(o, "cost_usd", cost);
	json_object_set_new(o, "ports_used", json_integer((json_int_t)s->ports_used));
	json_object_set_new(o, "ports_part", json_integer((json_int_t)s->ports_part));
	json_object_set_new(o, "power_w", json_real(s->power_w));
	json_object_set_new(o, "power_part_w", json_real(s->power_part_w));
	return o;
}

static void cost_text(FILE *f, const struct layout *lo, const struct layout_model *m, const struct layout_summary *s)
{
	fputs("topology     ", f);
	nl_fputs_one_line(lo->t->spec, f); /* a graph:file= path can hold a newline */
	fputc('\n', f);
	fprintf(f, "preset       %s (%s)\n", m->name, m->help);
	fprintf(f, "packaging    %s: %u cabinet%s, floor %u x %u, ", lo->rule->name, s->cabinets,
		s->cabinets == 1 ? "" : "s", s->rows, s->cols);
	if (layout_anneal_moved(lo))
		fprintf(f, "annealed (%llu move%s x %u trial%s, seed %llu, best trial %u)\n",
			(unsigned long long)lo->iterations, lo->iterations == 1 ? "" : "s", lo->trials,
			lo->trials == 1 ? "" : "s", (unsigned long long)lo->seed, lo->best_trial);
	else if (lo->is_annealed && lo->n_cabinets < 2)
		fprintf(f, "one cabinet, nothing to anneal\n");
	else if (lo->is_annealed)
		fprintf(f, "not annealed (0 moves), row-major on the square grid\n");
	else
		fprintf(f, "rule order\n");
	fprintf(f, "cabinet fill largest %uU of %uU (%u cabinets over)\n", s->max_units, m->cab_units, s->over_units);
	if (s->parts != s->routers)
		fprintf(f, "routers      %u in %u physical switches (priced at radix %u)\n", s->routers, s->parts,
			s->radix);
	else
		fprintf(f, "routers      %u (priced at radix %u)\n", s->routers, s->radix);
	fprintf(f, "endpoints    %u\n", s->endpoints);
	fprintf(f, "links        %llu (%llu intra-cabinet, %llu inter-cabinet)\n", (unsigned long long)s->links,
		(unsigned long long)s->intra_links, (unsigned long long)s->inter_links);
	fprintf(f, "cables       %llu copper, %llu fibre; %llu terminal cables\n", (unsigned long long)s->copper,
		(unsigned long long)s->fibre, (unsigned long long)s->terminal_cables);
	fprintf(f, "length class");
	for (int c = 0; c < LAYOUT_N_CLASSES; c++) {
		if (c < LAYOUT_N_CLASSES - 1)
			fprintf(f, "  <=%gm:%llu", layout_class_max_m[c], (unsigned long long)s->by_class[c]);
		else
			fprintf(f, "  >%gm:%llu", layout_class_max_m[c - 1], (unsigned long long)s->by_class[c]);
	}
	fprintf(f, "\nlength       total %.2f m, mean %.3f m, longest %.2f m\n", s->length_m, s->mean_m, s->max_m);
	fprintf(f, "cost         routers $%.0f + copper $%.0f + fibre $%.0f + terminal cables $%.0f = $%.0f\n",
		s->cost_routers, s->cost_copper, s->cost_fibre, s->cost_terminals, s->cost_total);
	if (s->router_price_floored)
		fprintf(f, "note         the preset's router price line is below $0 at radix %u (outside the "
			   "radixes it was fitted to): routers priced $0 (docs/layout.md)\n", s->radix);
	fprintf(f, "power        %.1f W (%llu ports used x %u lanes x %g W); all ports of the parts: %.1f W\n",
		s->power_w, (unsigned long long)s->ports_used, m->lanes, m->mw_per_lane / 1000.0, s->power_part_w);
}

static void cost_list_presets(void)
{
	size_t n;
	const struct layout_model *const *ms = layout_model_list(&n);
	for (size_t i = 0; i < n; i++)
		printf("%-10s %s\n           %s\n", ms[i]->name, ms[i]->help, ms[i]->notes);
}

int cli_cost_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LAYOUT_LONGOPTS,
		{"json", required_argument, NULL, 'j'},
		{"list-presets", no_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = "cost", *json_path = NULL;
	struct cli_layout_opts o;
	int c, bad;
	bool list = false;

	cli_layout_opts_init(&o);
	while ((c = cli_layout_getopt(&o, cmd, argc, argv, longopts, &bad)) != -1) {
		switch (c) {
		case 'j':
			if (cli_output_file_once(cmd, "--json", &json_path, optarg))
				return CLI_USAGE;
			break;
		case 'L':
			list = true;
			break;
		case 'h':
			fputs(cost_usage, stdout);
			return CLI_OK;
		default:
			return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (bad)
		return bad;
	/* The listing stands alone: what else the line asks for is refused,
	 * not ignored ('cost --list-presets extra' listed and exited 0). */
	if (list) {
		if (optind < argc)
			return cli_usage_error(cmd, "unexpected argument '%s' with --list-presets (it prints the presets alone)",
					       argv[optind]);
		if (argc > 2)
			return cli_usage_error(cmd, "--list-presets prints the presets alone; expected no other option with it");
		cost_list_presets();
		return CLI_OK;
	}
	bad = cli_layout_spec_arg(cmd, argc, argv, "flex:nx=6,ny=6,nz=3,p=10");
	if (bad)
		return bad;

	struct nl_err err = {0};
	struct topo *t;
	struct layout lo;
	const struct layout_model *m;
	struct layout_summary s;
	/* A --json naming a file the SPEC reads would replace it. */
	struct cli_file out = {"--json", json_path};
	if (cli_check_spec_files(argv[optind], &out, 1, &err) < 0)
		return cli_usage_error(cmd, "%s", err.msg);
	/* The JSON is written after the annealing (seconds to minutes): a
	 * path that cannot be written fails first. */
	if (json_path && cli_check_output("--json", json_path, &err) < 0)
		return cli_report(&err);
	int rc = cli_layout_setup(&o, argv[optind], &t, &lo, &m, &err);
	if (rc < 0)
		return cli_report(&err);
	rc = layout_summarise(&lo, m, o.radix, &s, &err);
	if (rc < 0)
		return cli_layout_finish(t, &lo, rc, &err, NULL, NULL);
	/* The table first, as run's: a JSON file that then fails to write
	 * (a full disk) loses only itself, status 1. */
	if (!(json_path && !strcmp(json_path, "-")))
		cost_text(stdout, &lo, m, &s);
	if (json_path) {
		json_t *doc = cli_layout_json(&lo, m, &s);
		rc = doc ? out_write_json(json_path, doc, &err) : nl_errf(&err, NL_ENOMEM, "out of memory");
		json_decref(doc);
	}
	return cli_layout_finish(t, &lo, rc, &err, "--json", json_path);
}
