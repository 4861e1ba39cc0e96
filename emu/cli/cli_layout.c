/* netloom layout: draw a topology's floor plan (cabinets on the grid and
 * its longest cables) as SVG, and optionally its per-link cable lengths.
 *
 *   netloom layout SPEC [--svg FILE] [--longest N] [--lengths FILE] [layout options]
 *
 * (at least one of --svg and --lengths). */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/output.h"
#include "layout/layout.h"
#include "topo/topo.h"
#include "core/text.h"

static const char layout_usage[] =
	"usage: netloom layout SPEC [--svg FILE] [--lengths FILE] [options]\n"
	"\n"
	"Packs SPEC into cabinets, places them on the floor and draws the plan:\n"
	"each cabinet with its index and routers, and the longest cables as\n"
	"Manhattan routes between cabinets (docs/layout.md). Give --svg, --lengths\n"
	"or both; they are written together or not at all.\n"
	"\n"
	"  --svg FILE        write the floor plan there (atomically; '-' = stdout)\n"
	"  --longest N       cables drawn, longest first, 0..2^32-1 (default 20; with --svg)\n"
	"  --lengths FILE    write one line per link: 'router port router port metres'\n"
	"                    (atomically; '-' = stdout; not with --svg -)\n"
	"  --preset P        cost and cable model (default flex; see netloom cost --help)\n"
	"  --layout L        auto (default), rule or anneal\n"
	"  --iterations N    annealing moves per trial, 0..2^40 (default 1000000); past\n"
	"                    about an hour of work with --trials, refused\n"
	"  --trials N        annealing trials, 1..1000 (default 5)\n"
	"  --seed N          annealing seed, 0..9.2e18 (default 1)\n"
	"  --threads N       threads running the trials, 0..1024 (default 0: one per\n"
	"                    processor, at most one per trial; the same plan for any\n"
	"                    N); these four are refused where nothing is annealed\n"
	"                    (rule, or auto on an own order)\n"
	"  --pack R          packaging rule by name (default: the family's own)\n"
	"  --per-cabinet N   routers per cabinet for the canonical rule, 1..2^24 (default 16,\n"
	"                    8 for 64 routers); refused with any other rule (--pack\n"
	"                    canonical forces it)\n"
	"  --radix K         as netloom cost's (router part priced, 1..2^20); the plan does\n"
	"                    not depend on it\n"
	"  -h, --help        this text\n"
	"\n"
	"Exit status: 0 done; 1 an output could not be written after the work (a full disk;\n"
	"neither is then replaced) or out of memory; 2 a bad command line or SPEC, or an\n"
	"output that cannot be written (checked before the work).\n";

struct lay_cable {
	uint32_t g;  /* lower global port of the link */
	double len;
};

static int lay_cable_cmp(const void *a, const void *b)
{
	const struct lay_cable *x = a, *y = b;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

/* The `cap` cables that sort first (lay_cable_cmp), kept in a heap whose
 * root is the one that sorts last among them, so a cable that sorts
 * before it replaces it. Only the drawn cables are kept: holding every
 * cable to sort them all took 16 bytes a port, some 350 MB of
 * foldedhypercube:n=20's 707 MB peak, to draw 20 of them. The order is
 * total (ports are unique), so the cables kept and their sorted order are
 * those a sort of all would give. */
static void lay_heap_down(struct lay_cable *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, top = i;
		if (l < n && lay_cable_cmp(&h[l], &h[top]) > 0)
			top = l;
		if (r < n && lay_cable_cmp(&h[r], &h[top]) > 0)
			top = r;
		if (top == i)
			return;
		struct lay_cable tmp = h[i];
		h[i] = h[top];
		h[top] = tmp;
		i = top;
	}
}

static void lay_keep_first(struct lay_cable *h, uint32_t *n, uint32_t cap, struct lay_cable c)
{
	if (*n < cap) {
		uint32_t i = (*n)++;
		h[i] = c;
		while (i > 0 && lay_cable_cmp(&h[(i - 1) / 2], &h[i]) < 0) {
			struct lay_cable tmp = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
	} else if (cap > 0 && lay_cable_cmp(&c, &h[0]) < 0) {
		h[0] = c;
		lay_heap_down(h, *n, 0);
	}
}

/* Pixels per metre, margin. */
#define LAY_PX 60.0
#define LAY_MARGIN 40.0

static void lay_cell_xy(const struct layout *lo, const struct layout_model *m, uint32_t cab, double *x, double *y)
{
	uint32_t cell = lo->cell[cab];
	*x = LAY_MARGIN + ((cell % lo->cols) + 0.5) * m->cab_width_m * LAY_PX;
	*y = LAY_MARGIN + 30 + (cell / lo->cols) * m->cab_depth_m * LAY_PX + 0.3 * LAY_PX;
}


/* Rows written between polls for a SIGINT/SIGTERM (out_staged_poll). */
#define LAY_POLL_ROWS 4096u

/* Render the floor plan onto f (an out_stream's: its write errors are the
 * commit's to report). */
static int lay_svg(FILE *f, const struct layout *lo, const struct layout_model *m, uint32_t longest,
		   struct nl_err *err)
{
	const struct topo *t = lo->t;
	double *len = malloc((size_t)t->n_ports * sizeof *len);
	const uint32_t cap = longest < t->n_ports ? longest : t->n_ports;
	struct lay_cable *cab = malloc((cap ? cap : 1) * sizeof *cab);
	uint32_t *count = calloc(lo->n_cabinets ? lo->n_cabinets : 1, sizeof *count);
	int rc;

	if (!len || !cab || !count) {
		rc = nl_errf(err, NL_ENOMEM, "layout: out of memory");
		goto out;
	}
	layout_port_lengths(lo, m, len);
	uint32_t n = 0, kept = 0;
	for (uint32_t g = 0; g < t->n_ports; g++)
		if (topo_port_is_network(t, g) && t->peer[g] > g) {
			n++;
			lay_keep_first(cab, &kept, cap, (struct lay_cable){g, len[g]});
		}
	qsort(cab, kept, sizeof *cab, lay_cable_cmp);
	for (uint32_t r = 0; r < t->n_routers; r++)
		count[lo->cabinet[r]]++;

	double w = 2 * LAY_MARGIN + lo->cols * m->cab_width_m * LAY_PX;
	double h = 2 * LAY_MARGIN + 30 + lo->rows * m->cab_depth_m * LAY_PX;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		w < 640 ? 640 : w, h, w < 640 ? 640 : w, h);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"13\">", LAY_MARGIN,
		LAY_MARGIN - 16);
	char *spec = text_utf8_clean(t->spec, true);
	cli_xml_escape(f, spec ? spec : "");
	free(spec);
	fprintf(f, "</text>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">%u cabinet%s (", LAY_MARGIN,
		LAY_MARGIN, lo->n_cabinets, lo->n_cabinets == 1 ? "" : "s");
	cli_xml_escape(f, lo->rule->name);
	const char *order = layout_order_words(lo);
	if (longest == 0 || n == 0)
		fprintf(f, ", %s), %u cable%s, none drawn</text>\n", order, n, n == 1 ? "" : "s");
	else
		fprintf(f, ", %s), red: the %u longest of %u cable%s</text>\n", order, longest < n ? longest : n, n,
			n == 1 ? "" : "s");
	for (uint32_t c = 0; c < lo->n_cabinets; c++) {
		if (c % LAY_POLL_ROWS == 0)
			out_staged_poll();
		double x, y;
		lay_cell_xy(lo, m, c, &x, &y);
		double cw = 0.9 * m->cab_width_m * LAY_PX, ch = 0.6 * LAY_PX;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#dde6f0\" stroke=\"#345\"/>\n",
			x - cw / 2, y - ch / 2, cw, ch);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" font-size=\"9\" text-anchor=\"middle\">"
			   "%u<tspan x=\"%.1f\" dy=\"10\">%ur</tspan></text>\n",
			x, y - 2, c, x, count[c]);
	}
	for (uint32_t i = 0; i < kept; i++) {
		uint32_t g = cab[i].g, a = lo->cabinet[t->port_router[g]], b = lo->cabinet[t->port_router[t->peer[g]]];
		double xa, ya, xb, yb, off = (double)(i % 7) - 3;
		lay_cell_xy(lo, m, a, &xa, &ya);
		lay_cell_xy(lo, m, b, &xb, &yb);
		fprintf(f, "<polyline points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#c33\" "
			   "stroke-opacity=\"0.7\"><title>routers %u-%u: %.2f m</title></polyline>\n",
			xa + off, ya + off, xb + off, ya + off, xb + off, yb + off, t->port_router[g],
			t->port_router[t->peer[g]], cab[i].len);
	}
	fprintf(f, "</svg>\n");
	rc = 0;
out:
	free(len);
	free(cab);
	free(count);
	return rc;
}

/* One line per router-router link onto f (an out_stream's), the form a
 * later session layer reads for cable latencies: 304 MB for
 * foldedhypercube:n=20, which is why it is streamed, not held. */
static int lay_lengths(FILE *f, const struct layout *lo, const struct layout_model *m, struct nl_err *err)
{
	const struct topo *t = lo->t;
	double *len = malloc((size_t)t->n_ports * sizeof *len);
	if (!len)
		return nl_errf(err, NL_ENOMEM, "layout: out of memory");
	layout_port_lengths(lo, m, len);
	fputs("# ", f);
	nl_fputs_one_line(t->spec, f); /* a newline in a graph:file= path would end the comment */
	fprintf(f, " preset=%s rule=%s", m->name, lo->rule->name);
	/* The header says how to get these lengths again in a replay: beside
	 * the preset and rule, the [layout] keys whose defaults would give
	 * other cables. The placement where auto places otherwise (rule order
	 * where the rule has none of its own, annealing where it has), the
	 * canonical rule's routers per cabinet where not seed 003's, and the
	 * annealing's budget and seed (0 moves included: a replay's default
	 * budget would move them). 'layout hypercube:n=8 --per-cabinet 4'
	 * gave the annealing keys alone: a replay with them packed 16
	 * cabinets of 16, 2,572.8 m where these lengths sum to 4,211.2 m. */
	if (lo->n_cabinets >= 2 && lo->is_annealed != layout_auto_anneals(lo))
		fprintf(f, " layout_placement=%s", lo->is_annealed ? "anneal" : "rule");
	if (!strcmp(lo->rule->name, "canonical") && lo->per_cabinet != layout_canonical_per_default(t))
		fprintf(f, " layout_per_cabinet=%u", lo->per_cabinet);
	if (lo->is_annealed && lo->n_cabinets >= 2)
		fprintf(f, " layout_iterations=%llu layout_trials=%u layout_seed=%llu", (unsigned long long)lo->iterations,
			lo->trials, (unsigned long long)lo->seed);
	fprintf(f, ": router port router port metres\n");
	for (uint32_t g = 0; g < t->n_ports; g++) {
		if (g % LAY_POLL_ROWS == 0)
			out_staged_poll();
		if (!topo_port_is_network(t, g) || t->peer[g] < g)
			continue;
		uint32_t p = t->peer[g], a = t->port_router[g], b = t->port_router[p];
		fprintf(f, "%u %u %u %u %.5f\n", a, g - t->port_base[a], b, p - t->port_base[b], len[g]);
	}
	free(len);
	return 0;
}

/* One output of the command: where it goes and the stream it is written
 * through (core/output.h). */
struct lay_out {
	const char *path; /* "-" = stdout */
	const char *opt;  /* the option it is the value of: "--svg" */
	struct out_stream s;
	bool is_svg;      /* the floor plan (lay_svg), else the lengths (lay_lengths) */
	bool is_open;     /* s opened: out_stream_abort has a name to forget */
};

/* Write every output or none. Each was rendered whole into its staged
 * file (a file's beside it, a device's, FIFO's or standard output's in
 * TMPDIR), and each is finished (its writes checked, synced) before any
 * is placed. Then what is written in place goes, devices and FIFOs, then
 * standard output, since those writes can still fail (a full device, a
 * closed pipe) and cannot be taken back; the files are renamed over
 * their targets last, so a failure before leaves every file target as it
 * was. On a failure every staged file is removed. What cannot be undone:
 * a device written before a later in-place write failed keeps its bytes,
 * and a rename failing after an earlier one succeeded (the target became
 * a directory meanwhile) leaves the earlier one replaced. SIGPIPE is
 * ignored while writing in place: a reader gone (`| head`) is a failed
 * write, said, with the staged files removed, not the end of the process
 * with them left behind. The staged names stay registered until every
 * output is in place: a SIGINT/SIGTERM meanwhile ends the process after
 * the last, not between two. On failure *failed is the output that
 * failed (its option leads the line: cli_report_unwritten). */
static int lay_write_all(struct lay_out *o, size_t n, size_t *failed, struct nl_err *err)
{
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if ((rc = out_stream_finish(&o[i].s, err)) < 0)
			*failed = i;
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!o[i].s.is_replace && strcmp(o[i].path, "-") && (rc = out_stream_place(&o[i].s, err)) < 0)
			*failed = i;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!strcmp(o[i].path, "-") && (rc = out_stream_place(&o[i].s, err)) < 0)
			*failed = i;
	sigaction(SIGPIPE, &old_pipe, NULL);
	for (size_t i = 0; i < n && rc == 0; i++)
		if (o[i].s.is_replace && (rc = out_stream_place(&o[i].s, err)) < 0)
			*failed = i;
	return rc;
}

int cli_layout_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LAYOUT_LONGOPTS,
		{"svg", required_argument, NULL, 's'},
		{"longest", required_argument, NULL, 'n'},
		{"lengths", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = "layout", *svg = NULL, *lengths = NULL;
	uint64_t longest = 20;
	bool has_longest = false;
	struct cli_layout_opts o;
	int c, bad;

	cli_layout_opts_init(&o);
	while ((c = cli_layout_getopt(&o, cmd, argc, argv, longopts, &bad)) != -1) {
		switch (c) {
		case 's':
			if (cli_output_file_once(cmd, "--svg", &svg, optarg))
				return CLI_USAGE;
			break;
		case 'n':
			if (cli_parse_u64(cmd, "--longest", optarg, 0, UINT32_MAX, &longest))
				return CLI_USAGE;
			has_longest = true;
			break;
		case 'l':
			if (cli_output_file_once(cmd, "--lengths", &lengths, optarg))
				return CLI_USAGE;
			break;
		case 'h':
			fputs(layout_usage, stdout);
			return CLI_OK;
		default:
			return cli_getopt_error(cmd, argv, longopts, c);
		}
	}
	if (bad)
		return bad;
	bad = cli_layout_spec_arg(cmd, argc, argv, "torus:k=8x8");
	if (bad)
		return bad;
	if (!svg && !lengths)
		return cli_usage_error(cmd, "nothing to write: give --svg FILE and/or --lengths FILE");
	/* --longest N counts the cables drawn: with --lengths alone, which
	 * lists every link, it was parsed and ignored. */
	if (has_longest && !svg)
		return cli_usage_error(cmd, "--longest %llu without --svg: only the drawing uses it (--lengths lists every "
				       "link); expected --svg with it, or no --longest", (unsigned long long)longest);
	if (svg && lengths && !strcmp(svg, "-") && !strcmp(lengths, "-"))
		return cli_usage_error(cmd, "--lengths - and --svg -: both on standard output; expected a file for one of "
				       "them");
	if (svg && lengths && out_same_file(svg, lengths))
		return cli_usage_error(cmd, "--lengths '%s': the same file as --svg; expected another file", lengths);

	struct nl_err err = {0};
	struct topo *t;
	struct layout lo;
	const struct layout_model *m;
	/* An output naming a file the SPEC reads would replace it. */
	struct cli_file outs[] = {{"--svg", svg}, {"--lengths", lengths}};
	if (cli_check_spec_files(argv[optind], outs, 2, &err) < 0)
		return cli_usage_error(cmd, "%s", err.msg);
	/* Written after the annealing (seconds to minutes): a path that
	 * cannot be written fails first. */
	if ((svg && cli_check_output("--svg", svg, &err) < 0) ||
	    (lengths && cli_check_output("--lengths", lengths, &err) < 0))
		return cli_report(&err);
	/* Before the annealing, as the paths are; the message names the
	 * output staged in TMPDIR, as interfere's and run's --plot do (alone,
	 * "$TMPDIR/netloom-out: ..." said neither which nor why). */
	for (size_t i = 0; i < 2; i++)
		if (outs[i].path && cli_probe_staging(outs[i].path, &err) < 0) {
			nl_err_prefix(&err, "%s", outs[i].opt);
			return cli_report(&err);
		}
	int rc = cli_layout_setup(&o, argv[optind], &t, &lo, &m, &err);
	if (rc < 0)
		return cli_report(&err);
	struct lay_out out[2] = {{0}};
	size_t n_out = 0;
	if (svg)
		out[n_out++] = (struct lay_out){.path = svg, .opt = "--svg", .is_svg = true};
	if (lengths)
		out[n_out++] = (struct lay_out){.path = lengths, .opt = "--lengths"};
	const struct lay_out *unwritten = NULL;
	size_t failed = 0;
	for (size_t i = 0; i < n_out && rc == 0; i++) {
		if ((rc = out_stream_open(&out[i].s, out[i].path, &err)) < 0)
			failed = i;
		out[i].is_open = rc == 0;
	}
	if (rc < 0)
		unwritten = &out[failed];
	for (size_t i = 0; i < n_out && rc == 0; i++)
		rc = out[i].is_svg ? lay_svg(out[i].s.f, &lo, m, (uint32_t)longest, &err)
					  : lay_lengths(out[i].s.f, &lo, m, &err);
	if (rc == 0 && (rc = lay_write_all(out, n_out, &failed, &err)) < 0)
		unwritten = &out[failed];
	for (size_t i = 0; i < n_out; i++)
		if (out[i].is_open)
			out_stream_abort(&out[i].s); /* removes what is staged; once placed, forgets the name (polls) */
	return cli_layout_finish(t, &lo, rc, &err, unwritten ? unwritten->opt : NULL,
				 unwritten ? unwritten->path : NULL);
}
