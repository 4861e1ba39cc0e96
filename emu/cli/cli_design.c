/* netloom design: design-space searches of the papers.
 *
 *   netloom design hyperx --terminals N --radix R --bisection B   (seed 001 §3.1.2)
 *   netloom design equality --routers N --radix K [--endpoints P] [--seed S] (seed 002 §3.3)
 *   netloom design flex|dragonfly|slimfly --terminals N --radix R (seed 000 §III-B)
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze.h"
#include "cli/cli.h"
#include "core/config.h"
#include "core/error.h"
#include "core/output.h"
#include "core/param.h"
#include "topo/topo.h"

static const char design_usage[] =
	"usage: netloom design <family> [options]\n"
	"\n"
	"  hyperx --terminals N --radix R --bisection B\n"
	"        fewest-switch regular and general HyperX (seed 001 §3.1.2)\n"
	"  equality --routers N --radix K [--endpoints P] [--seed S]\n"
	"        Equality chords minimising average distance x diameter by a\n"
	"        genetic algorithm (seed 002 §3.3)\n"
	"  flex|dragonfly|slimfly --terminals N --radix R\n"
	"        configurations with full global bandwidth (seed 000 §III-B)\n"
	"\n"
	"'netloom design <family> --help' describes its options; docs/analysis.md the\n"
	"searches.\n"
	"\n"
	"Exit status: 0 a design found; 1 no configuration meets the request\n"
	"(hyperx, flex, dragonfly, slimfly: one line on stderr says why) or the\n"
	"work failed; 2 bad input.\n";

/* Every design family's --help ends with it (docs/analysis.md). */
#define DESIGN_EXIT_STATUS                                                                        \
	"Exit status: 0 a design found; 1 no configuration meets the request (one line on\n"     \
	"stderr says why), out of memory, or -o FILE could not be written after the search;\n" \
	"2 a bad command line, or an output that cannot be written (checked before the\n"        \
	"search). See docs/analysis.md.\n"

static const char hyperx_usage[] =
	"usage: netloom design hyperx --terminals N --radix R --bisection B [--json] [-o FILE]\n"
	"\n"
	"Exhaustive search with pruning (seed 001 §3.1.2, eqs. 2-9) for the HyperX\n"
	"with the fewest switches that has at least N terminals, at most R ports per\n"
	"switch and relative bisection beta = min(K S)/2T >= B. Prints the best\n"
	"regular (all S and K equal) and general design: L, S, K, T (fewest\n"
	"terminals per switch; T_max the most that still fit), switches.\n"
	"Dimensions go up to R - 1 and 16, the most the hyperx family builds.\n"
	"The search is analytical: a design past what the hyperx family builds\n"
	"(2^30 switches, 2^31 ports, ...) ends its line with '(beyond what netloom\n"
	"can build: REASON)' and has \"buildable\": false in --json.\n"
	"A search that passes 5x10^7 steps (about 5 s; e.g. 10^10 terminals at\n"
	"radix 128) is refused with one line.\n"
	"When neither a regular nor a general HyperX meets the request, one line\n"
	"on stderr says why ('netloom design hyperx: no configuration meets the\n"
	"request: within radix R and bisection B the most terminals are ...'),\n"
	"the text output is empty, --json writes null for both, and the exit\n"
	"status is 1.\n"
	"\n"
	"  --terminals N     network size N, 1..2^63-1\n"
	"  --radix R         switch radix R, 2..100000\n"
	"  --bisection B     relative bisection bandwidth B, 1e-9..1e9 (e.g. 0.5)\n"
	"  --json            a JSON object on stdout\n"
	"  -o, --output FILE write there (atomically; '-' = stdout, the default)\n"
	"  -h, --help        this text\n"
	"\n"
	DESIGN_EXIT_STATUS;

static const char equality_usage[] =
	"usage: netloom design equality --routers N --radix K [options]\n"
	"\n"
	"Genetic-algorithm search (seed 002 §3.3) for the chords S_A (odd) and S_B\n"
	"(even) of an Equality network of N routers and network radix K minimising\n"
	"a x d (average distance times diameter). Same seed, same result.\n"
	"A search past about 6 minutes of work (population x (generations + 1)\n"
	"BFS of N x K steps, at a rate that falls with N) is refused with one line.\n"
	"A spec past what the equality family builds (N x (K + P) ports or N x P\n"
	"endpoints of 2^31 or more) ends its line with '(beyond what netloom can\n"
	"build: REASON)' and has \"buildable\": false in --json.\n"
	"\n"
	"  --routers N       routers (even, 6..16777216)\n"
	"  --radix K         network radix (router-to-router ports, 3..N-1)\n"
	"  --endpoints P     endpoints per router in the printed spec, 0..65536 (default\n"
	"                    0: the family's default; the paper's n64000k64p16 is P 16)\n"
	"  --seed S          random seed, 0..9.2e18 (default 1)\n"
	"  --population P    individuals per generation, 2..100000 (default 40)\n"
	"  --generations G   generations, 1..1000000 (default 60)\n"
	"  --mutation M      mutation probability per child, 0..1 (default 0.3)\n"
	"  --json            a JSON object on stdout\n"
	"  -o, --output FILE write there (atomically; '-' = stdout, the default)\n"
	"  -h, --help        this text\n"
	"\n"
	DESIGN_EXIT_STATUS;

static const char fullbw_usage[] =
	"usage: netloom design flex|dragonfly|slimfly --terminals N --radix R [--json] [-o FILE]\n"
	"\n"
	"Configurations with at least N terminals on routers of at most R ports and\n"
	"full global bandwidth as FleX §III-B defines it (FleX: Nx = Ny, p = links\n"
	"to the next layer = floor(k/3); Dragonfly: a = 2p = 2h; Slim Fly:\n"
	"p = ceil(k'/2)). For each shape the smallest configuration reaching N is\n"
	"listed with routers, endpoints, radix, links (router pairs joined),\n"
	"physical links (cables: a dragonfly with fewer than a*h+1 groups joins\n"
	"two groups by several) and measured diameter.\n"
	"Every configuration is built, so a request whose configurations total\n"
	"more than 5x10^7 router ports (about 5 s; e.g. Slim Fly beyond radix\n"
	"~250 for 1,000 terminals) is refused, naming the total and a --radix or\n"
	"--terminals that is listed.\n"
	"When no configuration meets the request, one line on stderr says why\n"
	"('netloom design dragonfly: no configuration meets the request: within\n"
	"radix R the most terminals are ...'), the text output is empty, --json\n"
	"writes [], and the exit status is 1.\n"
	"\n"
	"  --terminals N     terminals N, 1..2^63-1\n"
	"  --radix R         router radix R (ports, endpoints included), 2..100000\n"
	"  --json            a JSON array on stdout\n"
	"  -o, --output FILE write there (atomically; '-' = stdout, the default)\n"
	"  -h, --help        this text\n"
	"\n"
	DESIGN_EXIT_STATUS;

/* Exit status when no configuration meets the request: an answer, but no
 * design, so a script looping over requests tells found (0) from none, as
 * grep's 1 tells "no match" from a match. 1 is also the work failing (out
 * of memory, an output lost after the search), which says its own line. */
enum { CLI_DESIGN_NONE = 1 };

/* Say why no configuration meets the request, one line on stderr ("netloom
 * design dragonfly: no configuration meets the request: within radix
 * ..."), and return CLI_DESIGN_NONE. why is the rest of the line after
 * "request": ": REASON", " (REASON)" or "". */
static int design_none(const char *cmd, const char *why)
{
	fprintf(stderr, "netloom %s: no configuration meets the request%s\n", cmd, why);
	return CLI_DESIGN_NONE;
}

/* Render to a buffer, then replace the output atomically. The output was
 * checked before the search (cli_check_output), so a write failing now is
 * the work failing (cli_report_unwritten: 1), not bad input. */
static int design_emit_text(const char *path, char *buf, size_t len, struct nl_err *err)
{
	int rc = out_write_atomic(path, buf, len, err);
	free(buf);
	return rc;
}

/* --- hyperx ------------------------------------------------------------------------ */

/* A word left after a search's options: they take no argument. */
static int design_extra_arg(const char *cmd, const char *arg)
{
	return cli_usage_error(cmd, "unexpected argument '%s'; expected options only (see 'netloom %s --help')", arg,
			       cmd);
}

/* A required option that was not given, by name: "missing --radix
 * (required: --routers, --radix)". names[i] was given when given[i]. */
struct design_required {
	const char *name;
	bool is_given;
};

static int design_missing(const char *cmd, const struct design_required *req, size_t n)
{
	char missing[128] = "", all[128] = "";
	size_t m = 0, a = 0;
	for (size_t i = 0; i < n; i++) {
		a += (size_t)snprintf(all + a, a < sizeof all ? sizeof all - a : 0, "%s%s", i ? ", " : "", req[i].name);
		if (!req[i].is_given)
			m += (size_t)snprintf(missing + m, m < sizeof missing ? sizeof missing - m : 0, "%s%s",
					      m ? ", " : "", req[i].name);
	}
	if (!m)
		return 0;
	cli_usage_error(cmd, "missing %s (required: %s)", missing, all);
	return -1;
}

static void hx_vec_text(FILE *f, const uint32_t *v, uint32_t n, char sep)
{
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? (sep == 'x' ? "x" : ",") : "", v[i]);
}

/* The topology SPEC that builds h ("" when out of memory). */
static void hx_spec(char *spec, size_t cap, const struct analyze_hx *h)
{
	FILE *f = fmemopen(spec, cap, "w");

	if (!f) {
		spec[0] = '\0';
		return;
	}
	fprintf(f, "hyperx:s=");
	hx_vec_text(f, h->S, h->L, 'x');
	fprintf(f, ",k=");
	hx_vec_text(f, h->K, h->L, 'x');
	fprintf(f, ",t=%u", h->T);
	fputc('\0', f);
	fclose(f);
}

static json_t *hx_json(const struct analyze_hx *h)
{
	if (!h->found)
		return json_null();
	json_t *o = json_object(), *S = json_array(), *K = json_array();
	char spec[512];
	for (uint32_t i = 0; i < h->L; i++) {
		json_array_append_new(S, json_integer(h->S[i]));
		json_array_append_new(K, json_integer(h->K[i]));
	}
	hx_spec(spec, sizeof spec, h);
	json_object_set_new(o, "L", json_integer(h->L));
	json_object_set_new(o, "S", S);
	json_object_set_new(o, "K", K);
	json_object_set_new(o, "T", json_integer(h->T));
	json_object_set_new(o, "T_max", json_integer(h->T_max));
	json_object_set_new(o, "switches", json_integer((json_int_t)h->switches));
	json_object_set_new(o, "terminals", json_integer((json_int_t)(h->switches * h->T)));
	json_object_set_new(o, "ports", json_integer(h->ports));
	json_object_set_new(o, "beta", json_real(h->beta));
	json_object_set_new(o, "spec", json_string(spec));
	json_object_set_new(o, "buildable", json_boolean(h->is_buildable));
	json_object_set_new(o, "designs_examined", json_integer((json_int_t)h->visited));
	return o;
}

/* Why no HyperX (regular, or general) meets the request: the most
 * terminals one of the radix and bisection reaches, and which, so the
 * architect knows how far to lower --terminals or raise --radix. Written
 * to why as the rest of a line after "meets the request": ": within radix
 * ...", or " (REASON)" when that most was not found. */
static void hx_none_reason(char *why, size_t cap, bool regular, const struct analyze_hx_req *req)
{
	struct analyze_hx most;
	struct nl_err err = {0};
	char spec[512];

	if (analyze_hyperx_reach(req, regular, &most, &err) < 0) {
		snprintf(why, cap, " (%s)", err.msg);
		return;
	}
	uint64_t terminals = most.switches * most.T;
	hx_spec(spec, sizeof spec, &most);
	snprintf(why, cap,
		 ": within radix %u and bisection %g the most terminals are %llu (%s%s%s); expected --terminals %llu or "
		 "fewer, a larger --radix or a smaller --bisection",
		 req->R, req->B, (unsigned long long)terminals, spec,
		 most.is_buildable ? "" : "; beyond what netloom can build: ", most.build_limit,
		 (unsigned long long)terminals);
}

static void hx_text(FILE *f, const char *what, const struct analyze_hx *h, const struct analyze_hx_req *req)
{
	if (!h->found) {
		char why[2048];
		hx_none_reason(why, sizeof why, !strcmp(what, "regular"), req);
		fprintf(f, "%-8s no HyperX meets the request%s\n", what, why);
		return;
	}
	fprintf(f, "%-8s L=%u S=(", what, h->L);
	hx_vec_text(f, h->S, h->L, ',');
	fprintf(f, ") K=(");
	hx_vec_text(f, h->K, h->L, ',');
	fprintf(f, ") T=%u (fits up to %u)  switches %llu  terminals %llu  ports %u  beta %.4f", h->T, h->T_max,
		(unsigned long long)h->switches, (unsigned long long)(h->switches * h->T), h->ports, h->beta);
	/* The search is analytical: say so when the model cannot hold it. */
	if (!h->is_buildable)
		fprintf(f, "  (beyond what netloom can build: %s)", h->build_limit);
	fputc('\n', f);
}

static int design_hyperx_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"terminals", required_argument, NULL, 'N'}, {"radix", required_argument, NULL, 'R'},
		{"bisection", required_argument, NULL, 'B'}, {"json", no_argument, NULL, 'j'},
		{"output", required_argument, NULL, 'o'},    {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = "design hyperx", *output = NULL;
	uint64_t N = 0, R = 0;
	double B = -1;
	bool json = false;
	struct nl_err err = {0};
	int c, rc;

	opterr = 0;
	optind = 0;
	struct cli_seen seen = {0};
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (cli_value_once(cmd, longopts, &seen, c))
			return CLI_USAGE;
		switch (c) {
		case 'N':
			if (cli_parse_u64(cmd, "--terminals", optarg, 1, UINT64_MAX / 2, &N) < 0)
				return CLI_USAGE;
			break;
		case 'R':
			if (cli_parse_u64(cmd, "--radix", optarg, 2, 100000, &R) < 0)
				return CLI_USAGE;
			break;
		case 'B':
			if (cli_parse_double(cmd, "--bisection", optarg, 1e-9, 1e9, &B) < 0)
				return CLI_USAGE;
			break;
		case 'j': json = true; break;
		case 'o':
			if (cli_output_file_once(cmd, "--output", &output, optarg))
				return CLI_USAGE;
			break;
		case 'h': fputs(hyperx_usage, stdout); return CLI_OK;
		default: return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (optind < argc)
		return design_extra_arg(cmd, argv[optind]);
	const struct design_required required[] = {{"--terminals", N != 0}, {"--radix", R != 0}, {"--bisection", B >= 0}};
	if (design_missing(cmd, required, sizeof required / sizeof required[0]))
		return CLI_USAGE;
	if (!output)
		output = "-";
	if (cli_check_output("--output", output, &err) < 0)
		return cli_report(&err);

	struct analyze_hx_req req = {.N = N, .R = (uint32_t)R, .B = B};
	struct analyze_hx reg, gen;
	rc = analyze_hyperx_design(&req, true, &reg, &err);
	if (rc == 0)
		rc = analyze_hyperx_design(&req, false, &gen, &err);
	if (rc < 0)
		return cli_report(&err);
	/* The general search holds every regular design: a regular none with
	 * a general design is still an answer, its "regular" line saying why. */
	bool is_none = !reg.found && !gen.found;
	if (json) {
		json_t *o = json_object();
		session_json_head(o, "design hyperx");
		json_object_set_new(o, "terminals", json_integer((json_int_t)N));
		json_object_set_new(o, "radix", json_integer((json_int_t)R));
		json_object_set_new(o, "bisection", json_real(B));
		json_object_set_new(o, "regular", hx_json(&reg));
		json_object_set_new(o, "general", hx_json(&gen));
		rc = out_write_json(output, o, &err);
		json_decref(o);
	} else if (!is_none) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f)
			return cli_report(&(struct nl_err){NL_ENOMEM, "out of memory"});
		fprintf(f, "HyperX with >= %llu terminals, radix <= %llu, relative bisection >= %g (seed 001 §3.1.2)\n",
			(unsigned long long)N, (unsigned long long)R, B);
		hx_text(f, "regular", &reg, &req);
		hx_text(f, "general", &gen, &req);
		fclose(f);
		rc = design_emit_text(output, buf, len, &err);
	}
	if (rc < 0)
		return cli_report_unwritten("--output", output, &err);
	if (is_none) {
		char why[2048];
		hx_none_reason(why, sizeof why, false, &req);
		return design_none(cmd, why);
	}
	return CLI_OK;
}

/* --- equality ---------------------------------------------------------------------- */

static void eq_list_text(FILE *f, const int64_t *v, uint32_t n, const char *sep)
{
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? sep : "", (long long)v[i]);
}

/* The options of 'netloom design equality', as given. */
struct eq_opts {
	uint64_t N;             /* --routers; 0: not given */
	uint64_t K;             /* --radix, once checked against --routers */
	uint64_t seed;          /* --seed */
	uint64_t population;    /* --population; 0: the search's default */
	uint64_t generations;   /* --generations; 0: the search's default */
	uint64_t P;             /* --endpoints in the printed spec; 0: the family's default */
	double mutation;        /* --mutation; -1: the search's default */
	const char *radix_arg;  /* --radix as given; NULL: not given */
	const char *output;     /* --output; "-" (stdout) once checked */
	bool is_json;           /* --json */
	bool is_help;           /* --help: the usage is all there is to do */
};

/* Read the options into *o (--help stops there, o->is_help set). --routers
 * and --endpoints go into the printed spec: the equality family's bounds on
 * n and p are theirs. The status: CLI_OK, or a refusal said. */
static int eq_parse_args(const char *cmd, int argc, char **argv, struct eq_opts *o)
{
	static const struct option longopts[] = {
		{"routers", required_argument, NULL, 'N'},     {"radix", required_argument, NULL, 'K'},
		{"seed", required_argument, NULL, 's'},        {"population", required_argument, NULL, 'P'},
		{"generations", required_argument, NULL, 'G'}, {"mutation", required_argument, NULL, 'M'},
		{"json", no_argument, NULL, 'j'},              {"output", required_argument, NULL, 'o'},
		{"endpoints", required_argument, NULL, 'p'},   {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct nl_err err = {0};
	int c;
	const struct topo_ops *fam = topo_find("equality", &err);
	if (!fam)
		return cli_report(&err);
	uint64_t max_n = (uint64_t)param_find(fam->params, "n")->max;
	uint64_t max_p = (uint64_t)param_find(fam->params, "p")->max;

	opterr = 0;
	optind = 0;
	struct cli_seen seen = {0};
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (cli_value_once(cmd, longopts, &seen, c))
			return CLI_USAGE;
		switch (c) {
		case 'N':
			if (cli_parse_u64(cmd, "--routers", optarg, 6, max_n, &o->N) < 0)
				return CLI_USAGE;
			break;
		case 'K': o->radix_arg = optarg; break;
		case 's':
			if (cli_parse_u64(cmd, "--seed", optarg, 0, CLI_SEED_MAX, &o->seed) < 0)
				return CLI_USAGE;
			break;
		case 'P':
			if (cli_parse_u64(cmd, "--population", optarg, 2, 100000, &o->population) < 0)
				return CLI_USAGE;
			break;
		case 'G':
			if (cli_parse_u64(cmd, "--generations", optarg, 1, 1000000, &o->generations) < 0)
				return CLI_USAGE;
			break;
		case 'M':
			if (cli_parse_double(cmd, "--mutation", optarg, 0, 1, &o->mutation) < 0)
				return CLI_USAGE;
			break;
		case 'p':
			if (cli_parse_u64(cmd, "--endpoints", optarg, 0, max_p, &o->P) < 0)
				return CLI_USAGE;
			break;
		case 'j': o->is_json = true; break;
		case 'o':
			if (cli_output_file_once(cmd, "--output", &o->output, optarg))
				return CLI_USAGE;
			break;
		case 'h': o->is_help = true; return CLI_OK;
		default: return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (optind < argc)
		return design_extra_arg(cmd, argv[optind]);
	return CLI_OK;
}

/* Check what needs every option read: --radix against --routers, the
 * required options, the output (stdout by default). The status: CLI_OK, or
 * a refusal said. */
static int eq_check_opts(const char *cmd, struct eq_opts *o)
{
	struct nl_err err = {0};
	/* An Equality network pairs its routers (seed 002 §3.3): N is even.
	 * Said as the range is ('--routers 15: expected an even number >= 6'
	 * read unlike every other option's refusal). */
	if (o->N % 2) {
		const struct topo_ops *fam = topo_find("equality", &err);
		if (!fam)
			return cli_report(&err);
		return cli_usage_error(cmd, "--routers: expected an even integer in 6..%llu, got '%llu'",
				       (unsigned long long)param_find(fam->params, "n")->max, (unsigned long long)o->N);
	}
	/* --radix's bound is N - 1 (a router has N - 1 others to link to), so
	 * it is checked once --routers, given before or after it, is known. */
	if (o->radix_arg) {
		char why[48] = "";
		uint64_t max_k = 1u << 30;
		if (o->N) {
			max_k = o->N - 1;
			snprintf(why, sizeof why, " for %llu routers", (unsigned long long)o->N);
		}
		if (cli_parse_u64_for(cmd, "--radix", o->radix_arg, 3, max_k, why, &o->K) < 0)
			return CLI_USAGE;
	}
	const struct design_required required[] = {{"--routers", o->N != 0}, {"--radix", o->radix_arg != NULL}};
	if (design_missing(cmd, required, sizeof required / sizeof required[0]))
		return CLI_USAGE;
	if (!o->output)
		o->output = "-";
	if (cli_check_output("--output", o->output, &err) < 0)
		return cli_report(&err);
	return CLI_OK;
}

/* The design's spec (topology family syntax) into *spec and the paper's
 * notation into *nota, both the caller's to free. 0, or -1 out of memory
 * (nothing to free). */
static int eq_names(const struct analyze_eq *e, uint64_t P, char **spec, char **nota)
{
	size_t sl = 0, nl = 0;
	*spec = *nota = NULL;
	FILE *fs = open_memstream(spec, &sl), *fn = open_memstream(nota, &nl);
	if (!fs || !fn) {
		if (fs)
			fclose(fs);
		if (fn)
			fclose(fn);
		free(*spec);
		free(*nota);
		*spec = *nota = NULL;
		return -1;
	}
	/* key=value lists hold PARAM_VEC_MAX values; longer sets use the
	 * paper's notation, which the equality family also reads. */
	if (e->n_sa <= PARAM_VEC_MAX && e->n_sb <= PARAM_VEC_MAX) {
		fprintf(fs, "equality:n=%u,sa=", e->N);
		eq_list_text(fs, e->sa, e->n_sa, "/");
		if (e->n_sb) {
			fprintf(fs, ",sb=");
			eq_list_text(fs, e->sb, e->n_sb, "/");
		}
		if (P)
			fprintf(fs, ",p=%llu", (unsigned long long)P);
	} else {
		fprintf(fs, "N%uK%u", e->N, e->K);
		if (P)
			fprintf(fs, "P%llu", (unsigned long long)P);
		fprintf(fs, "[");
		eq_list_text(fs, e->sa, e->n_sa, ",");
		fprintf(fs, "](");
		eq_list_text(fs, e->sb, e->n_sb, ",");
		fprintf(fs, ")");
	}
	fprintf(fn, "N%uK%u", e->N, e->K);
	if (P)
		fprintf(fn, "P%llu", (unsigned long long)P);
	fprintf(fn, "[");
	eq_list_text(fn, e->sa, e->n_sa, ",");
	fprintf(fn, "](");
	eq_list_text(fn, e->sb, e->n_sb, ",");
	fprintf(fn, ")");
	fclose(fs);
	fclose(fn);
	return 0;
}

/* --json: the request, the chords, their names and scores, to o->output. */
static int eq_write_json(const struct eq_opts *o, const struct analyze_eq *e, const char *spec, const char *nota,
			 const char *build_limit, struct nl_err *err)
{
	json_t *doc = json_object(), *sa = json_array(), *sb = json_array();
	for (uint32_t i = 0; i < e->n_sa; i++)
		json_array_append_new(sa, json_integer(e->sa[i]));
	for (uint32_t i = 0; i < e->n_sb; i++)
		json_array_append_new(sb, json_integer(e->sb[i]));
	session_json_head(doc, "design equality");
	json_object_set_new(doc, "routers", json_integer(e->N));
	json_object_set_new(doc, "radix", json_integer(e->K));
	json_object_set_new(doc, "seed", json_integer((json_int_t)o->seed));
	json_object_set_new(doc, "sa", sa);
	json_object_set_new(doc, "sb", sb);
	json_object_set_new(doc, "notation", json_string(nota));
	json_object_set_new(doc, "spec", json_string(spec));
	json_object_set_new(doc, "buildable", json_boolean(!build_limit[0]));
	json_object_set_new(doc, "diameter", json_integer(e->diameter));
	json_object_set_new(doc, "aspl", json_real(e->aspl));
	json_object_set_new(doc, "score", json_real(e->score));
	json_object_set_new(doc, "generations", json_integer(e->generations));
	json_object_set_new(doc, "evaluations", json_integer(e->evaluations));
	int rc = out_write_json(o->output, doc, err);
	json_decref(doc);
	return rc;
}

/* The text report: the design's names and scores, to o->output. */
static int eq_write_text(const struct eq_opts *o, const struct analyze_eq *e, const char *spec, const char *nota,
			 const char *build_limit, struct nl_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	fprintf(f, "Equality %s (seed 002 §3.3 GA, seed %llu)\n", nota, (unsigned long long)o->seed);
	fprintf(f, "spec       %s", spec);
	if (build_limit[0])
		fprintf(f, "  (beyond what netloom can build: %s)", build_limit);
	fputc('\n', f);
	fprintf(f, "diameter   %u\n", e->diameter);
	fprintf(f, "aspl       %.6f\n", e->aspl);
	fprintf(f, "a x d      %.6f\n", e->score);
	fprintf(f, "search     %u generation%s, %u evaluation%s\n", e->generations, e->generations == 1 ? "" : "s",
		e->evaluations, e->evaluations == 1 ? "" : "s");
	fclose(f);
	return design_emit_text(o->output, buf, len, err);
}

static int design_equality_main(int argc, char **argv)
{
	const char *cmd = "design equality";
	struct eq_opts o = {.seed = 1, .mutation = -1};
	struct nl_err err = {0};
	int status, rc;

	if ((status = eq_parse_args(cmd, argc, argv, &o)) != CLI_OK)
		return status;
	if (o.is_help) {
		fputs(equality_usage, stdout);
		return CLI_OK;
	}
	if ((status = eq_check_opts(cmd, &o)) != CLI_OK)
		return status;

	struct analyze_eq_req req = {
		.N = (uint32_t)o.N, .K = (uint32_t)o.K, .seed = o.seed, .population = (uint32_t)o.population,
		.generations = (uint32_t)o.generations, .mutation = o.mutation,
	};
	struct analyze_eq e;
	rc = analyze_equality_design(&req, &e, &err);
	if (rc < 0)
		return cli_report(&err);
	char *spec, *nota;
	if (eq_names(&e, o.P, &spec, &nota) < 0) {
		analyze_eq_release(&e);
		return cli_report(&(struct nl_err){NL_ENOMEM, "out of memory"});
	}
	/* --routers and --endpoints each fit the family's ranges, their
	 * product may not: N x (K + P) ports, N x P endpoints. */
	struct nl_err limit = {0};
	topo_equality_fits(e.N, e.K, o.P, &limit);
	if (o.is_json)
		rc = eq_write_json(&o, &e, spec, nota, limit.msg, &err);
	else
		rc = eq_write_text(&o, &e, spec, nota, limit.msg, &err);
	free(spec);
	free(nota);
	analyze_eq_release(&e);
	return rc < 0 ? cli_report_unwritten("--output", o.output, &err) : CLI_OK;
}

/* --- flex, dragonfly, slimfly -------------------------------------------------------- */

/* Why a listing is empty, so the architect knows whether the radix or the
 * terminals were out of reach. Written to why as the rest of a line after
 * "meets the request": ": the smallest ...", ": within radix ...", or ""
 * when the family's reach is unknown. */
static void fullbw_none_reason(char *why, size_t cap, const char *family, uint32_t R)
{
	struct analyze_fullbw_reach r;
	struct nl_err err = {0};

	if (analyze_fullbw_reach(family, R, &r, &err) < 0 || !r.min_radix)
		why[0] = '\0';
	else if (R < r.min_radix)
		snprintf(why, cap, ": the smallest %s with full global bandwidth has radix %u; expected --radix %u or more",
			 family, r.min_radix, r.min_radix);
	else if (!r.is_listable && r.listable_radix) /* that count would be refused by the port limit */
		snprintf(why, cap,
			 ": within radix %u every listing builds more than %llu router ports (the limit); at radix %u "
			 "the most terminals are %llu (%s); expected --radix %u with --terminals %llu or fewer",
			 R, (unsigned long long)ANALYZE_FULLBW_MAX_PORTS, r.listable_radix,
			 (unsigned long long)r.listable_terminals, r.listable_spec, r.listable_radix,
			 (unsigned long long)r.listable_terminals);
	else
		snprintf(why, cap,
			 ": within radix %u the most terminals are %llu (%s); expected --terminals %llu or fewer, or a "
			 "larger --radix",
			 R, (unsigned long long)r.max_terminals, r.max_spec, (unsigned long long)r.max_terminals);
}

static int design_fullbw_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"terminals", required_argument, NULL, 'N'}, {"radix", required_argument, NULL, 'R'},
		{"json", no_argument, NULL, 'j'},            {"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
	};
	char cmd[64];
	const char *output = NULL;
	uint64_t N = 0, R = 0;
	bool json = false;
	struct nl_err err = {0};
	int c, rc;

	snprintf(cmd, sizeof cmd, "design %s", argv[0]);
	opterr = 0;
	optind = 0;
	struct cli_seen seen = {0};
	bool help_scanned = false;
	while ((c = cli_getopt_long(argc, argv, ":o:h", longopts, &help_scanned)) != -1) {
		if (cli_value_once(cmd, longopts, &seen, c))
			return CLI_USAGE;
		switch (c) {
		case 'N':
			if (cli_parse_u64(cmd, "--terminals", optarg, 1, UINT64_MAX / 2, &N) < 0)
				return CLI_USAGE;
			break;
		case 'R':
			if (cli_parse_u64(cmd, "--radix", optarg, 2, 100000, &R) < 0)
				return CLI_USAGE;
			break;
		case 'j': json = true; break;
		case 'o':
			if (cli_output_file_once(cmd, "--output", &output, optarg))
				return CLI_USAGE;
			break;
		case 'h': fputs(fullbw_usage, stdout); return CLI_OK;
		default: return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (optind < argc)
		return design_extra_arg(cmd, argv[optind]);
	const struct design_required required[] = {{"--terminals", N != 0}, {"--radix", R != 0}};
	if (design_missing(cmd, required, sizeof required / sizeof required[0]))
		return CLI_USAGE;
	if (!output)
		output = "-";
	if (cli_check_output("--output", output, &err) < 0)
		return cli_report(&err);

	struct analyze_cfg *cfg = NULL;
	size_t n = 0;
	rc = analyze_fullbw_configs(argv[0], N, (uint32_t)R, &cfg, &n, &err);
	if (rc < 0)
		return cli_report(&err);
	if (json) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "spec", json_string(cfg[i].spec));
			json_object_set_new(o, "routers", json_integer((json_int_t)cfg[i].routers));
			json_object_set_new(o, "endpoints", json_integer((json_int_t)cfg[i].endpoints));
			json_object_set_new(o, "p", json_integer(cfg[i].p));
			json_object_set_new(o, "radix", json_integer(cfg[i].radix));
			json_object_set_new(o, "links", json_integer((json_int_t)cfg[i].links));
			json_object_set_new(o, "physical_links", json_integer((json_int_t)cfg[i].physical_links));
			json_object_set_new(o, "diameter",
					    cfg[i].diameter == UINT32_MAX ? json_null() : json_integer(cfg[i].diameter));
			json_array_append_new(a, o);
		}
		rc = out_write_json(output, a, &err);
		json_decref(a);
	} else if (n) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (f) {
			fprintf(f, "%s with >= %llu terminals, radix <= %llu, full global bandwidth (seed 000 §III-B)\n",
				argv[0], (unsigned long long)N, (unsigned long long)R);
			fprintf(f, "%-40s %9s %10s %5s %10s %10s %8s\n", "spec", "routers", "endpoints", "radix", "links",
				"physical", "diameter");
			for (size_t i = 0; i < n; i++) {
				fprintf(f, "%-40s %9llu %10llu %5u %10llu %10llu ", cfg[i].spec,
					(unsigned long long)cfg[i].routers, (unsigned long long)cfg[i].endpoints,
					cfg[i].radix, (unsigned long long)cfg[i].links,
					(unsigned long long)cfg[i].physical_links);
				if (cfg[i].diameter == UINT32_MAX)
					fprintf(f, "%8s\n", "-");
				else
					fprintf(f, "%8u\n", cfg[i].diameter);
			}
			fclose(f);
			rc = design_emit_text(output, buf, len, &err);
		} else {
			rc = nl_errf(&err, NL_ENOMEM, "out of memory");
		}
	}
	free(cfg);
	if (rc < 0)
		return cli_report_unwritten("--output", output, &err);
	if (!n) {
		char why[512];
		fullbw_none_reason(why, sizeof why, argv[0], (uint32_t)R);
		return design_none(cmd, why);
	}
	return CLI_OK;
}

/* The design searches, by the family they design (`netloom design NAME`). */
static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} design_searches[] = {
	{"hyperx", design_hyperx_main},  {"equality", design_equality_main}, {"flex", design_fullbw_main},
	{"dragonfly", design_fullbw_main}, {"slimfly", design_fullbw_main},
};

int cli_design_main(int argc, char **argv)
{
	const size_t n = sizeof design_searches / sizeof design_searches[0];
	char names[128] = "";
	size_t used = 0;

	if (argc < 2)
		return cli_usage_error("design", "missing family (hyperx, equality, flex, dragonfly or slimfly; see --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(design_usage, stdout);
		return CLI_OK;
	}
	const char *family[sizeof design_searches / sizeof design_searches[0]];
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(argv[1], design_searches[i].name)) {
			/* Its lines name the family, as its usage errors do. */
			char cmd[32];
			snprintf(cmd, sizeof cmd, "design %s", argv[1]);
			cli_set_command(cmd);
			return design_searches[i].main(argc - 1, argv + 1);
		}
		used += (size_t)snprintf(names + used, used < sizeof names ? sizeof names - used : 0, "%s%s",
					 i ? ", " : "", design_searches[i].name);
		family[i] = design_searches[i].name;
	}
	const char *near = config_name_near(argv[1], strlen(argv[1]), family, n);
	return cli_usage_error("design", "unknown family '%s' (%s%s%svalid: %s)", argv[1], near ? "did you mean '" : "",
			       near ? near : "", near ? "'? " : "", names);
}
