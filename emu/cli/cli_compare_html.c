/* `netloom compare`'s HTML report, DIR/index.html (issue 15,
 * docs/procurement.md "The HTML report"). Built from report.json's
 * document alone, so its tables cannot say anything the JSON does not:
 * every figure is a <span data-k="JSON path" data-v="exact value">, which
 * the e2e test (tests/e2e/compare_html.py) checks against report.json in
 * a headless Chromium. The page is static: no script, no stylesheet or
 * font to fetch; the plots are gnuplot's SVG inlined. gnuplot is optional
 * at run time: without it each plot is a one-line note and the tables
 * still carry the figures. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_compare_html.h"
#include "core/output.h"

struct html {
	FILE *f;                 /* the page being written (a memstream) */
	const json_t *doc;
	const char *dir;
	bool gnuplot;            /* gnuplot on PATH */
	const json_t *sys, *wl, *cells;
	size_t n_sys, n_wl;
	unsigned n_plots;        /* plots inlined so far: each one's id prefix */
};


static const char *jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* JSON number at o.k, NAN when null or absent. */
static double jnum(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* One figure: its JSON path (printf-formatted) and exact value as
 * attributes, its text as fmt shows v x scale (100 for a percentage);
 * "n/a" for null. */
static void h_num(struct html *h, double v, double scale, const char *fmt, const char *path, ...)
	__attribute__((format(printf, 5, 6)));
static void h_num(struct html *h, double v, double scale, const char *fmt, const char *path, ...)
{
	char p[256];
	va_list ap;
	va_start(ap, path);
	vsnprintf(p, sizeof p, path, ap);
	va_end(ap);
	if (!isfinite(v)) {
		fprintf(h->f, "<span data-k=\"%s\" data-v=\"null\">n/a</span>", p);
		return;
	}
	fprintf(h->f, "<span data-k=\"%s\" data-v=\"%.17g\">", p, v);
	fprintf(h->f, fmt, v * scale);
	fputs("</span>", h->f);
}

/* Write gnuplot's SVG with its ids made unique in the page: every plot
 * defines the same ones (its markers 'gpPt0'.., 'gnuplot_canvas', ...),
 * and an HTML document's ids must be unique (HTML Living Standard, "The
 * id attribute"), so each id and each reference to one ("#id" of an href,
 * "url(#id)") gets the prefix "pN-" of plot N. Only inside tags: the
 * text between them (a system's name) is left as written. */
static void h_svg_ids(FILE *f, const char *svg, unsigned plot)
{
	static const char *const marks[] = {" id='", " id=\"", "href='#", "href=\"#", "url(#"};
	bool in_tag = false;
	for (const char *p = svg; *p;) {
		if (*p == '<' || *p == '>') {
			in_tag = *p == '<';
		} else if (in_tag) {
			size_t i = 0, n = 0;
			for (; i < sizeof marks / sizeof *marks; i++)
				if (!strncmp(p, marks[i], n = strlen(marks[i])))
					break;
			if (i < sizeof marks / sizeof *marks) {
				fprintf(f, "%.*sp%u-", (int)n, p, plot);
				p += n;
				continue;
			}
		}
		fputc(*p++, f);
	}
}

/* Run gnuplot on body (terminal and title set here) and inline its
 * SVG; a one-line note in its place when it cannot be drawn. */
static void h_plot(struct html *h, const char *title, const char *body)
{
	fprintf(h->f, "<figure>\n");
	char why[256] = "";
	char *svg = NULL;
	size_t len = 0;
	if (!h->gnuplot) {
		snprintf(why, sizeof why, "gnuplot not found on PATH (Debian: apt-get install gnuplot-nox)");
	} else {
		char tmp[4200];
		/* A name of this process's own (mkstemp), made and registered
		 * together (out_staged_mkstemp) so an interrupt does not leave
		 * it in the report's directory: the one fixed name, .plot.svg.tmp,
		 * was shared by every compare writing to DIR, and two at once
		 * (one study run twice, two studies sharing a cache) truncated,
		 * read and removed each other's plot: a page with a plot "not
		 * drawn", or with the other study's. */
		snprintf(tmp, sizeof tmp, "%s/.plot.svg.tmpXXXXXX", h->dir);
		char *script = NULL;
		size_t script_len = 0;
		FILE *p = open_memstream(&script, &script_len);
		if (p) {
			fprintf(p, "set terminal svg size 820,420 noenhanced font 'sans,11' background rgb 'white'\n"
				   "set datafile missing '?'\nset title ");
			cli_gp_str(p, title);
			fprintf(p, "\n%s\n", body);
		}
		struct nl_err re = {0};
		int mk_errno = 0, fd = -1;
		if (!p || fclose(p) != 0 || (fd = out_staged_mkstemp(tmp, false, &mk_errno, &re)) == NL_ENOMEM) {
			snprintf(why, sizeof why, "out of memory");
		} else if (fd < 0) {
			snprintf(why, sizeof why, "cannot create its temporary file in %s: %s", h->dir, strerror(mk_errno));
		} else {
			close(fd); /* gnuplot's shell opens it again by name */
			if (cli_gnuplot_run(script, tmp, &re) < 0) {
				snprintf(why, sizeof why, "%s", re.msg);
			} else if (out_read_svg(tmp, tmp, &svg, &len, &re) < 0) {
				/* gnuplot exits 0 after a failed write (a full
				 * disk): its SVG, cut mid-element or empty, was
				 * pasted into the page. The note gives why
				 * without the temporary file's name. */
				static const char lead[] = "could not be written: ";
				const char *at = strstr(re.msg, lead);
				snprintf(why, sizeof why, "%s", at ? at + sizeof lead - 1 : re.msg);
			}
			out_staged_remove(tmp); /* and ends the process here if it was interrupted */
		}
		free(script);
	}
	const char *start = svg ? strstr(svg, "<svg") : NULL; /* without the XML prologue and doctype */
	if (start) {
		h_svg_ids(h->f, start, ++h->n_plots);
		fputc('\n', h->f);
	} else {
		/* why may hold markup ("no closing </svg>"). */
		fprintf(h->f, "<p class=\"noplot\">Plot &ldquo;%s&rdquo; not drawn: ", title);
		cli_xml_escape(h->f, why[0] ? why : "gnuplot wrote no SVG");
		fprintf(h->f, "; the table below has its figures.</p>\n");
	}
	free(svg);
	fprintf(h->f, "</figure>\n");
}

static const json_t *h_cell(const struct html *h, size_t w, size_t s)
{
	return json_array_get(h->cells, w * h->n_sys + s);
}

/* A histogram of one cell field: workloads on x, a bar per system. */
static void h_plot_cells(struct html *h, const char *title, const char *field, const char *ylabel)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return;
	/* A system whose every cell failed has no bar: its column, all
	 * undefined, made gnuplot warn, and with no column left fail and lose
	 * the chart. */
	bool *has = calloc(h->n_sys ? h->n_sys : 1, sizeof *has);
	size_t n_has = 0;
	/* Names as string constants (cli_gp_str), the data numbers only. */
	fprintf(f, "array wl[%zu]\n", h->n_wl);
	for (size_t w = 0; w < h->n_wl; w++) {
		fprintf(f, "wl[%zu] = ", w + 1);
		cli_gp_str(f, jstr(json_array_get(h->wl, w), "name"));
		fputc('\n', f);
	}
	fprintf(f, "$d << EOD\n");
	for (size_t w = 0; w < h->n_wl; w++) {
		for (size_t y = 0; y < h->n_sys; y++) {
			double v = jnum(h_cell(h, w, y), field);
			isfinite(v) ? fprintf(f, " %.12g", v) : fprintf(f, " ?");
			if (has && isfinite(v) && !has[y])
				has[y] = true, n_has++;
		}
		fputc('\n', f);
	}
	fprintf(f, "EOD\nset ylabel '%s'\nset yrange [0:*]\nset style data histograms\n"
		   "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
		   "set key outside right top\nset grid ytics\nset xrange [-0.5:%zu.5]\nplot ", ylabel, h->n_wl - 1);
	for (size_t y = 0, k = 0; has && y < h->n_sys; y++) {
		if (!has[y])
			continue;
		fprintf(f, "%s using %zu%s title ", k ? ", ''" : "$d", y + 1, k ? "" : ":xtic(wl[int($0) + 1])");
		cli_gp_str(f, jstr(json_array_get(h->sys, y), "name"));
		k++;
	}
	fclose(f);
	if (n_has)
		h_plot(h, title, s);
	else
		fprintf(h->f, "<p class=\"noplot\">Plot &ldquo;%s&rdquo; not drawn: no cell ran to the end.</p>\n", title);
	free(has);
	free(s);
}

/* Cost, power, perf per M$, perf per kW: four bar charts, one SVG. */
static void h_plot_systems(struct html *h)
{
	static const char *const k[] = {"cost_usd", "power_w", "perf_per_musd", "perf_per_kw"};
	static const char *const t[] = {"cost ($)", "power (W)", "performance per M$", "performance per kW"};
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return;
	bool any[4] = {false};
	fprintf(f, "array sys[%zu]\n", h->n_sys);
	for (size_t y = 0; y < h->n_sys; y++) {
		fprintf(f, "sys[%zu] = ", y + 1);
		cli_gp_str(f, jstr(json_array_get(h->sys, y), "name"));
		fputc('\n', f);
	}
	fprintf(f, "$s << EOD\n");
	for (size_t y = 0; y < h->n_sys; y++) {
		const json_t *o = json_array_get(h->sys, y);
		for (size_t i = 0; i < 4; i++) {
			double v = jnum(o, k[i]);
			isfinite(v) ? fprintf(f, " %.12g", v) : fprintf(f, " ?");
			any[i] |= isfinite(v) != 0;
		}
		fputc('\n', f);
	}
	fprintf(f, "EOD\nunset title\nset multiplot layout 2,2 title 'cost, power and performance per system'\n"
		   "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset yrange [0:*]\nset grid ytics\n"
		   "set xtics rotate by -20\nset xrange [-0.5:%zu.5]\n", /* one system: no empty x range */
		h->n_sys - 1);
	for (size_t i = 0; i < 4; i++) {
		if (!any[i]) {
			/* No system has it (performance with a failed cell): gnuplot
			 * refuses a column of undefined points and the whole chart
			 * was lost; the panel says so instead. */
			fprintf(f, "set title '%s: no value (a workload failed on every system)'\nset yrange [0:1]\n"
				   "plot -1 notitle\nset yrange [0:*]\n",
				t[i]);
			continue;
		}
		fprintf(f, "set title '%s'\nplot $s using 0:%zu:xtic(sys[int($0) + 1]) with boxes notitle lc %zu\n", t[i],
			i + 1, i + 1);
	}
	fprintf(f, "unset multiplot\n");
	fclose(f);
	h_plot(h, "cost, power and performance per system", s);
	free(s);
}

/* The workloads whose placement does not read the seed, as report.md
 * names them: seed 1 replayed, its result every seed's. */
static void h_unseeded(struct html *h)
{
	const double seeds = jnum(json_object_get(h->doc, "study"), "seeds");
	for (size_t w = 0; w < h->n_wl; w++) {
		const json_t *wl = json_array_get(h->wl, w);
		if (!(seeds > 1) || !(jnum(wl, "seeds_replayed") < seeds))
			continue;
		fputs("<p>Workload <b>", h->f);
		cli_xml_escape(h->f, jstr(wl, "name"));
		fputs("</b> (placement <code>", h->f);
		cli_xml_escape(h->f, jstr(wl, "placement"));
		fprintf(h->f, "</code>, which does not use the seed): seed 1 replayed on each system, its result also "
			      "that of seeds 2..%.0f.</p>\n", seeds);
	}
}

/* Placement sensitivity: each cell's median with its min..max over seeds. */
static void h_plot_seeds(struct html *h)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return;
	size_t n = 0;
	for (size_t i = 0; i < h->n_wl * h->n_sys; i++)
		n += isfinite(jnum(json_array_get(h->cells, i), "runtime_s")) != 0;
	/* The cells that ran: their labels in an array of string constants
	 * (cli_gp_str), their figures in the data, in the same order. */
	if (n)
		fprintf(f, "array cell[%zu]\n", n);
	for (size_t i = 0, k = 0; i < h->n_wl * h->n_sys; i++) {
		const json_t *c = json_array_get(h->cells, i);
		if (!isfinite(jnum(c, "runtime_s")))
			continue;
		char label[512];
		snprintf(label, sizeof label, "%s / %s", jstr(c, "workload"), jstr(c, "system"));
		fprintf(f, "cell[%zu] = ", ++k);
		cli_gp_str(f, label);
		fputc('\n', f);
	}
	fprintf(f, "$p << EOD\n");
	for (size_t i = 0; i < h->n_wl * h->n_sys; i++) {
		const json_t *c = json_array_get(h->cells, i);
		if (isfinite(jnum(c, "runtime_s")))
			fprintf(f, "%.12g %.12g %.12g\n", jnum(c, "runtime_min_s"), jnum(c, "runtime_s"),
				jnum(c, "runtime_max_s"));
	}
	fprintf(f, "EOD\nset ylabel 'runtime (s)'\nset yrange [0:*]\nset xtics rotate by -30\nset grid ytics\n"
		   "set xrange [-0.5:%zu.5]\nset key below\n", n ? n - 1 : 0);
	if (n)
		fprintf(f, "plot $p using 0:2:1:3:xtic(cell[int($0) + 1]) with yerrorbars pt 7 title 'median, "
			   "min..max over the placement seeds'\n");
	fclose(f);
	if (n)
		h_plot(h, "placement sensitivity: runtime over the seeds", s);
	else
		fprintf(h->f, "<p class=\"noplot\">Plot &ldquo;placement sensitivity&rdquo; not drawn: no cell ran "
			      "to the end.</p>\n");
	free(s);
}

/* The busiest links: share of the cell's link use by rank, a line per cell. */
static void h_plot_links(struct html *h)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return;
	size_t n = 0, max_top = 0;
	for (size_t i = 0; i < json_array_size(h->cells); i++) {
		json_t *top = json_object_get(json_object_get(json_array_get(h->cells, i), "busiest_links"), "top");
		if (!json_array_size(top))
			continue;
		fprintf(f, "$l%zu << EOD\n", i);
		for (size_t r = 0; r < json_array_size(top); r++)
			fprintf(f, "%zu %.12g\n", r + 1, 100 * jnum(json_array_get(top, r), "share"));
		fprintf(f, "EOD\n");
		n++;
		max_top = json_array_size(top) > max_top ? json_array_size(top) : max_top;
	}
	fprintf(f, "set xlabel 'link rank (busiest first)'\nset ylabel 'share of the cell''s link use (%%)'\n"
		   "set yrange [0:*]\nset xtics 1\nset grid\nset key outside right top\nset xrange [0.5:%zu.5]\nplot ",
		   max_top);
	for (size_t i = 0, k = 0; i < json_array_size(h->cells); i++) {
		const json_t *c = json_array_get(h->cells, i);
		if (!json_array_size(json_object_get(json_object_get(c, "busiest_links"), "top")))
			continue;
		char label[512];
		snprintf(label, sizeof label, "%s / %s", jstr(c, "workload"), jstr(c, "system"));
		fprintf(f, "%s$l%zu using 1:2 with linespoints title ", k++ ? ", " : "", i);
		cli_gp_str(f, label);
	}
	fputc('\n', f);
	fclose(f);
	if (n)
		h_plot(h, "busiest links: share of each cell's link use", s);
	else
		fprintf(h->f, "<p class=\"noplot\">Plot &ldquo;busiest links&rdquo; not drawn: no cell counted link "
			      "use (see the table below for why).</p>\n");
	free(s);
}

static void h_tables_runtime(struct html *h)
{
	FILE *f = h->f;
	fprintf(f, "<table id=\"runtime\"><caption>Runtime: median over the seeds (min &ndash; max), slowdown "
		   "against the best system</caption>\n<tr><th>workload</th>");
	for (size_t y = 0; y < h->n_sys; y++) {
		fputs("<th>", f);
		cli_xml_escape(f, jstr(json_array_get(h->sys, y), "name"));
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t w = 0; w < h->n_wl; w++) {
		const json_t *wl = json_array_get(h->wl, w);
		fputs("<tr><th>", f);
		cli_xml_escape(f, jstr(wl, "name"));
		fputs(" (weight ", f);
		h_num(h, jnum(wl, "weight"), 1, "%g", "workloads/%zu/weight", w);
		fputs(")</th>", f);
		for (size_t y = 0; y < h->n_sys; y++) {
			size_t i = w * h->n_sys + y;
			const json_t *c = h_cell(h, w, y);
			if (strcmp(jstr(c, "status"), "ok")) {
				fprintf(f, "<td class=\"failed\" data-k=\"cells/%zu/status\">", i);
				cli_xml_escape(f, jstr(c, "status"));
				fputs("</td>", f);
				continue;
			}
			fputs("<td>", f);
			h_num(h, jnum(c, "runtime_s"), 1, "%.6g s", "cells/%zu/runtime_s", i);
			fputs(" (", f);
			h_num(h, jnum(c, "runtime_min_s"), 1, "%.6g", "cells/%zu/runtime_min_s", i);
			fputs(" &ndash; ", f);
			h_num(h, jnum(c, "runtime_max_s"), 1, "%.6g", "cells/%zu/runtime_max_s", i);
			fputs("), &times;", f);
			h_num(h, jnum(c, "slowdown_vs_best"), 1, "%.4f", "cells/%zu/slowdown_vs_best", i);
			fputs(", comm. ", f);
			h_num(h, jnum(c, "comm_share"), 100, "%.1f%%", "cells/%zu/comm_share", i);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Every seed that deadlocked or failed, with report.json's message: the
 * runtime table's cell says only "deadlock" or "error" (no table when
 * every run ended). */
static void h_tables_failed(struct html *h)
{
	FILE *f = h->f;
	bool head = false;
	for (size_t i = 0; i < json_array_size(h->cells); i++) {
		const json_t *c = json_array_get(h->cells, i), *seeds = json_object_get(c, "seeds");
		for (size_t k = 0; k < json_array_size(seeds); k++) {
			const json_t *e = json_array_get(seeds, k);
			/* A seed given seed 1's result is that row's ("1-N"). */
			if (!strcmp(jstr(e, "status"), "ok") || json_object_get(e, "same_as_seed"))
				continue;
			if (!head)
				fputs("<table id=\"failed\"><caption>Failed runs: the message of every seed that deadlocked "
				      "or failed</caption>\n<tr><th>workload</th><th>system</th><th>seed</th><th>status</th>"
				      "<th>message</th></tr>\n",
				      f);
			head = true;
			fputs("<tr><td>", f);
			cli_xml_escape(f, jstr(c, "workload"));
			fputs("</td><td>", f);
			cli_xml_escape(f, jstr(c, "system"));
			fputs("</td><td>", f);
			h_num(h, jnum(e, "seed"), 1, "%.0f", "cells/%zu/seeds/%zu/seed", i, k);
			const json_t *next = json_array_get(seeds, k + 1);
			if (next && json_object_get(next, "same_as_seed"))
				h_num(h, jnum(json_array_get(seeds, json_array_size(seeds) - 1), "seed"), 1, "-%.0f",
				      "cells/%zu/seeds/%zu/seed", i, json_array_size(seeds) - 1);
			fputs("</td><td class=\"failed\">", f);
			cli_xml_escape(f, jstr(e, "status"));
			fprintf(f, "</td><td class=\"msg\" data-k=\"cells/%zu/seeds/%zu/error\">", i, k);
			cli_xml_escape(f, jstr(e, "error"));
			fputs("</td></tr>\n", f);
		}
	}
	if (head)
		fputs("</table>\n", f);
}

static void h_tables_systems(struct html *h)
{
	static const char *const k[] = {"relative_runtime", "performance", "cost_usd", "power_w", "perf_per_musd",
					"perf_per_kw"};
	static const char *const fmt[] = {"%.4f", "%.4f", "%.0f", "%.1f", "%.4g", "%.4g"};
	static const char *const ck[] = {"links", "copper", "fibre", "length_m", "cabinets"};
	FILE *f = h->f;
	fprintf(f, "<table id=\"systems\"><caption>Systems: relative runtime (weighted geometric mean against the "
		   "reference), cost, power, performance per M$ and per kW, cables</caption>\n"
		   "<tr><th>system</th><th>topology</th><th>routing</th><th>endpoints</th><th>relative runtime</th><th>performance</th>"
		   "<th>cost ($)</th><th>power (W)</th><th>perf per M$</th><th>perf per kW</th><th>links</th>"
		   "<th>copper</th><th>fibre</th><th>cable length (m)</th><th>cabinets</th></tr>\n");
	for (size_t y = 0; y < h->n_sys; y++) {
		const json_t *o = json_array_get(h->sys, y);
		fputs("<tr><th>", f);
		cli_xml_escape(f, jstr(o, "name"));
		fputs("</th><td><code>", f);
		cli_xml_escape(f, jstr(o, "topology"));
		fputs("</code></td><td><code>", f);
		cli_xml_escape(f, jstr(o, "routing"));
		fputs("</code></td><td>", f);
		h_num(h, jnum(o, "endpoints"), 1, "%.0f", "systems/%zu/endpoints", y);
		for (size_t i = 0; i < 6; i++) {
			fputs("</td><td>", f);
			h_num(h, jnum(o, k[i]), 1, fmt[i], "systems/%zu/%s", y, k[i]);
		}
		const json_t *cab = json_object_get(o, "cables");
		for (size_t i = 0; i < 5; i++) {
			fputs("</td><td>", f);
			h_num(h, jnum(cab, ck[i]), 1, i == 3 ? "%.1f" : "%.0f", "systems/%zu/cables/%s", y, ck[i]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	/* A system priced on its own layout keys, not the study's preset
	 * (docs/procurement.md), says so under the table. */
	for (size_t y = 0; y < h->n_sys; y++) {
		const json_t *o = json_array_get(h->sys, y), *cab = json_object_get(o, "cables");
		if (strcmp(jstr(cab, "layout"), "system"))
			continue;
		fputs("<p>System <b>", f);
		cli_xml_escape(f, jstr(o, "name"));
		fputs("</b> is priced and cabled with its own layout keys: preset <b>", f);
		cli_xml_escape(f, jstr(cab, "preset"));
		fputs("</b>, packaging rule <code>", f);
		cli_xml_escape(f, jstr(cab, "rule"));
		fputs("</code>, floor <code>", f);
		cli_xml_escape(f, jstr(cab, "placement"));
		fputs("</code>.</p>\n", f);
	}
}

static void h_tables_links(struct html *h)
{
	FILE *f = h->f;
	fprintf(f, "<table id=\"links\"><caption>Busiest links per cell, summed over the seeds (router.port "
		   "&rarr; peer router)</caption>\n<tr><th>workload</th><th>system</th><th>rank</th><th>link</th>"
		   "<th>class</th><th>use</th><th>share</th></tr>\n");
	for (size_t i = 0; i < json_array_size(h->cells); i++) {
		const json_t *c = json_array_get(h->cells, i), *bl = json_object_get(c, "busiest_links");
		const json_t *top = json_object_get(bl, "top");
		fputs("<tr><td>", f);
		cli_xml_escape(f, jstr(c, "workload"));
		fputs("</td><td>", f);
		cli_xml_escape(f, jstr(c, "system"));
		if (!json_array_size(top)) {
			fputs("</td><td colspan=\"5\">none counted: ", f);
			cli_xml_escape(f, json_object_get(bl, "unavailable") ? jstr(bl, "unavailable") : jstr(c, "status"));
			fputs("</td></tr>\n", f);
			continue;
		}
		for (size_t r = 0; r < json_array_size(top); r++) {
			const json_t *l = json_array_get(top, r);
			if (r)
				fputs("<tr><td></td><td>", f);
			fprintf(f, "</td><td>%zu</td><td>", r + 1);
			h_num(h, jnum(l, "router"), 1, "%.0f", "cells/%zu/busiest_links/top/%zu/router", i, r);
			fputs(".", f);
			h_num(h, jnum(l, "port"), 1, "%.0f", "cells/%zu/busiest_links/top/%zu/port", i, r);
			fputs(" &rarr; ", f);
			h_num(h, jnum(l, "peer_router"), 1, "%.0f", "cells/%zu/busiest_links/top/%zu/peer_router", i, r);
			fputs("</td><td>", f);
			cli_xml_escape(f, jstr(l, "class"));
			fputs("</td><td>", f);
			h_num(h, jnum(l, "use"), 1, "%.0f", "cells/%zu/busiest_links/top/%zu/use", i, r);
			fputs(" ", f);
			cli_xml_escape(f, jstr(bl, "unit"));
			fputs("</td><td>", f);
			h_num(h, jnum(l, "share"), 100, "%.2f%%", "cells/%zu/busiest_links/top/%zu/share", i, r);
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

static void h_execution(struct html *h)
{
	static const char *const k[] = {"runs", "simulations_executed", "cached_runs", "reused_runs", "failed_runs",
					"cost_evaluations", "cost_cached", "jobs", "wall_seconds"};
	const size_t n = sizeof k / sizeof *k;
	const json_t *ex = json_object_get(h->doc, "execution");
	FILE *f = h->f;
	fprintf(f, "<table id=\"execution\"><caption>This run (the only figures that differ between runs of the "
		   "same study)</caption>\n<tr>");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "<th>%s</th>", k[i]);
	fputs("</tr>\n<tr>", f);
	for (size_t i = 0; i < n; i++) {
		fputs("<td>", f);
		h_num(h, jnum(ex, k[i]), 1, i == n - 1 ? "%.2f" : "%.0f", "execution/%s", k[i]);
		fputs("</td>", f);
	}
	fputs("</tr>\n</table>\n", f);
}

int cli_compare_html(const json_t *doc, const char *dir, char **tmp, struct nl_err *err)
{
	struct html h = {.doc = doc, .dir = dir};
	h.sys = json_object_get(doc, "systems");
	h.wl = json_object_get(doc, "workloads");
	h.cells = json_object_get(doc, "cells");
	h.n_sys = json_array_size(h.sys);
	h.n_wl = json_array_size(h.wl);
	h.gnuplot = system("command -v gnuplot >/dev/null 2>&1") == 0;
	const json_t *st = json_object_get(doc, "study");
	char *page = NULL;
	size_t len = 0;
	h.f = open_memstream(&page, &len);
	if (!h.f)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	FILE *f = h.f;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>netloom compare: ", f);
	cli_xml_escape(f, jstr(st, "path"));
	fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;color:#222;background:#fff}\n"
	      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:0.25em 0.6em;"
	      "text-align:right}th{background:#eef}caption{font-weight:bold;text-align:left;padding:0.3em 0}\n"
	      "td.failed{background:#fdd;color:#900;font-weight:bold}td.msg{text-align:left}figure{margin:1em 0}\n"
	      ".limits{border-left:4px solid #c80;padding:0.4em 0.8em;background:#fff8e8}\n"
	      ".noplot{color:#666;font-style:italic}\n</style></head><body>\n<h1>netloom compare: ",
	      f);
	cli_xml_escape(f, jstr(st, "path"));
	fputs("</h1>\n<p>Backend <b>", f);
	cli_xml_escape(f, jstr(st, "backend"));
	fputs("</b>, ", f);
	h_num(&h, jnum(st, "seeds"), 1, "%.0f", "study/seeds");
	fputs(jnum(st, "seeds") == 1 ? " placement seed, cost preset <b>" : " placement seeds, cost preset <b>", f);
	cli_xml_escape(f, jstr(st, "preset"));
	fputs("</b>, reference system <b>", f);
	cli_xml_escape(f, jstr(st, "reference"));
	fputs("</b>; netloom ", f);
	cli_xml_escape(f, jstr(doc, "netloom_version"));
	fputs(". Definitions: docs/procurement.md.</p>\n<p class=\"limits\">Contention: ", f);
	/* The analytic backend's limits stand next to its figures (issue 15). */
	cli_xml_escape(f, jstr(st, "contention"));
	if (!strcmp(jstr(st, "backend"), "analytic"))
		fputs(". Runtimes are a latency-bandwidth model's (no packets, buffers, flow control or adaptive "
		      "routing): systems can tie where a flit-level network would differ, and slowdowns under load "
		      "are approximations; link use is counted only with link_model = links.", f);
	fputs("</p>\n", f);
	const char *blind = json_string_value(json_object_get(st, "topology_unused"));
	if (blind) {
		fputs("<p class=\"limits\"><b>Warning:</b> ", f);
		cli_xml_escape(f, blind);
		fputs(".</p>\n", f);
	}
	fputs("<h2>Runtime</h2>\n", f);
	h_plot_cells(&h, "runtime per workload and system (median over the seeds)", "runtime_s", "runtime (s)");
	h_plot_cells(&h, "slowdown against the best system", "slowdown_vs_best", "runtime / best runtime");
	h_tables_runtime(&h);
	h_tables_failed(&h);
	fputs("<h2>Placement sensitivity</h2>\n", f);
	h_unseeded(&h);
	h_plot_seeds(&h);
	fputs("<h2>Cost, power, performance per dollar and per watt</h2>\n", f);
	h_plot_systems(&h);
	h_tables_systems(&h);
	fputs("<h2>Busiest links</h2>\n", f);
	h_plot_links(&h);
	h_tables_links(&h);
	fputs("<h2>Execution</h2>\n", f);
	h_execution(&h);
	fputs("</body></html>\n", f);
	if (fclose(f) != 0 || !page) {
		free(page);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	char path[4200];
	snprintf(path, sizeof path, "%s/index.html", dir);
	int rc = out_stage_registered(path, page, len, tmp, err);
	free(page);
	return rc;
}
