/* `netloom compare`'s report (docs/procurement.md): per cell the seeds'
 * runtimes, slowdown against the best system, the weighted geometric mean
 * against the reference, cost, power and performance per dollar and per
 * watt, as report.json's document and report.md's Markdown. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/output.h"
#include "session/session_compare_internal.h"
#include "session/session_internal.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A cell (workload, system): its seeds' runtimes; ok only when every seed
 * ran to the end. */
struct cmp_cell {
	bool ok;
	double min, median, max;
	double comm_share; /* mean over the seeds */
	const char *why; /* the first failed seed's status */
};

static void cmp_cell(const struct cmp *c, uint32_t w, uint32_t s, struct cmp_cell *out)
{
	double v[CMP_MAX_SEEDS];
	const struct cmp_run *r = &c->runs[(w * c->n_sys + s) * c->n_seeds];
	*out = (struct cmp_cell){.ok = true};
	for (uint32_t k = 0; k < c->n_seeds; k++) {
		if (r[k].status) {
			out->ok = false;
			out->why = r[k].status == 1 ? "deadlock" : "error";
			return;
		}
		v[k] = r[k].runtime_s;
		out->comm_share += r[k].comm_share / c->n_seeds;
	}
	qsort(v, c->n_seeds, sizeof *v, cmp_dbl);
	uint32_t n = c->n_seeds;
	out->min = v[0];
	out->max = v[n - 1];
	out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* docs/procurement.md, "Aggregates": the weighted geometric mean over the
 * workloads of a system's median runtime over the reference's; NAN when a
 * cell of either failed. The weights are taken over the largest, which
 * changes nothing in the mean but keeps any positive finite weight in
 * range: two of 1e308 summed to inf, and 4e-324 times a logarithm to 0,
 * each giving a relative runtime of exactly 1. */
static double cmp_relative(const struct cmp *c, uint32_t s, uint32_t ref)
{
	double sum = 0, wsum = 0, wmax = 0;
	for (uint32_t w = 0; w < c->n_wl; w++)
		wmax = fmax(wmax, c->wl[w].weight);
	for (uint32_t w = 0; w < c->n_wl; w++) {
		struct cmp_cell a, b;
		cmp_cell(c, w, s, &a);
		cmp_cell(c, w, ref, &b);
		if (!a.ok || !b.ok || !(a.median > 0) || !(b.median > 0))
			return NAN;
		const double weight = c->wl[w].weight / wmax;
		sum += weight * log(a.median / b.median);
		wsum += weight;
	}
	return exp(sum / wsum);
}

/* docs/procurement.md, "Busiest links": each router-to-router channel's
 * use (flits on the flit backend, payload bytes on the analytic one with
 * link_model = links) summed over the cell's seeds; the top
 * CMP_TOP_LINKS by use, ties to the lower port. */
json_t *cmp_links_json(const struct cmp *c, uint32_t w, uint32_t s)
{
	const struct cmp_sys *y = &c->sys[s];
	const struct cmp_run *r = &c->runs[(w * c->n_sys + s) * c->n_seeds];
	json_t *o = json_object();
	/* A failed cell has no runtime, and no link use either: a seed's
	 * count would stand for the cell's. */
	for (uint32_t k = 0; k < c->n_seeds; k++)
		if (r[k].status) {
			char why[96];
			snprintf(why, sizeof why, "the cell failed (%s, seed %" PRIu64 "): no link use reported",
				 r[k].status == 1 ? "deadlock" : "error", cmp_seed(k));
			json_object_set_new(o, "unavailable", json_string(why));
			return o;
		}
	for (uint32_t k = 0; k < c->n_seeds; k++)
		if (r[k].links_why[0]) {
			json_object_set_new(o, "unavailable", out_json_utf8(r[k].links_why));
			return o;
		}
	uint64_t *use = calloc(y->n_ports ? y->n_ports : 1, sizeof *use), total = 0;
	if (!use) {
		json_decref(o);
		return NULL;
	}
	const char *unit = "";
	for (uint32_t k = 0; k < c->n_seeds; k++) {
		unit = r[k].links_unit;
		for (uint32_t i = 0; i < r[k].n_links; i++)
			if (r[k].links[i][0] < y->n_ports)
				use[r[k].links[i][0]] += r[k].links[i][1];
	}
	uint32_t top[CMP_TOP_LINKS], n_top = 0, used = 0;
	for (uint32_t g = 0; g < y->n_ports; g++) {
		if (!use[g])
			continue;
		total += use[g];
		used++;
		uint32_t pos = n_top < CMP_TOP_LINKS ? n_top++ : CMP_TOP_LINKS;
		while (pos > 0 && use[top[pos - 1]] < use[g]) {
			if (pos < CMP_TOP_LINKS)
				top[pos] = top[pos - 1];
			pos--;
		}
		if (pos < CMP_TOP_LINKS)
			top[pos] = g;
	}
	json_object_set_new(o, "unit", json_string(unit));
	json_object_set_new(o, "seeds", json_integer(c->n_seeds));
	json_object_set_new(o, "total", json_integer((json_int_t)total));
	json_object_set_new(o, "links_used", json_integer(used));
	json_t *arr = json_array();
	for (uint32_t i = 0; i < n_top; i++) {
		uint32_t g = top[i];
		json_array_append_new(arr, json_pack("{s:I, s:I, s:I, s:s, s:I, s:f}", "router",
						     (json_int_t)y->port_router[g], "port", (json_int_t)y->port_local[g],
						     "peer_router", (json_int_t)y->port_peer[g], "class", y->port_class[g],
						     "use", (json_int_t)use[g], "share", (double)use[g] / (double)total));
	}
	json_object_set_new(o, "top", arr);
	free(use);
	return o;
}

static json_t *cmp_num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static uint32_t cmp_ref(const struct cmp *c)
{
	for (uint32_t i = 0; c->reference && i < c->n_sys; i++)
		if (!strcmp(c->sys[i].name, c->reference))
			return i;
	return 0;
}

/* What the study's backend models of contention (study.contention): the
 * flit network, or the analytic backend's channel reservations, with the
 * path each system's path_select gives a pair's messages (NULL when out
 * of memory). */
static char *cmp_contention(const struct cmp *c)
{
	if (!strcmp(c->backend, "flit"))
		return strdup("modelled: flit-level network, queues and links");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fputs("analytic backend: with link_model = links, messages reserve each channel of their minimal route in "
	      "FIFO order (no packets, buffers or flow control), every message of a pair on one path, static, no "
	      "adaptive routing (",
	      f);
	/* One clause per path_select value, in the order of the systems;
	 * the systems named when they do not all share it. */
	for (uint32_t s = 0; s < c->n_sys; s++) {
		const char *v = c->sys[s].path_select ? c->sys[s].path_select : "spread";
		bool seen = false, all = true;
		for (uint32_t t = 0; t < c->n_sys; t++) {
			const char *u = c->sys[t].path_select ? c->sys[t].path_select : "spread";
			seen |= t < s && !strcmp(u, v);
			all &= !strcmp(u, v);
		}
		if (seen)
			continue;
		fprintf(f, "%spath_select = %s", s ? "; " : "", v);
		if (!all) {
			fputs(" on ", f);
			for (uint32_t t = 0, n = 0; t < c->n_sys; t++)
				if (!strcmp(c->sys[t].path_select ? c->sys[t].path_select : "spread", v))
					fprintf(f, "%s'%s'", n++ ? ", " : "", c->sys[t].name);
		}
		fputs(!strcmp(v, "spread")  ? ": a hash of the pair picks one of the equal-cost paths"
		      : !strcmp(v, "first") ? ": the lowest-numbered closer port at every router, for every pair"
					    : "",
		      f);
	}
	fputs("); with link_model = none, not modelled", f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The systems whose runtimes do not depend on their topology, in one
 * sentence grouped by reason ("analytic with link_model = none and
 * hop_latency_ns = 0 on 'torus', 'fattree'"), or NULL when there are none
 * (or out of memory). A study on analytic's defaults printed the same
 * runtime for every network, as a comparison of them. */
static char *cmp_topology_note(const struct cmp *c)
{
	uint32_t n_unused = 0;
	for (uint32_t s = 0; s < c->n_sys; s++)
		n_unused += c->sys[s].topology_unused != NULL;
	if (!n_unused)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "the backend does not see the topology of ");
	for (uint32_t s = 0, groups = 0; s < c->n_sys; s++) {
		const char *why = c->sys[s].topology_unused;
		bool seen = false;
		for (uint32_t t = 0; t < s && why; t++)
			seen |= c->sys[t].topology_unused && !strcmp(c->sys[t].topology_unused, why);
		if (!why || seen)
			continue;
		fprintf(f, "%s", groups++ ? "; " : "");
		for (uint32_t t = s, n = 0; t < c->n_sys; t++)
			if (c->sys[t].topology_unused && !strcmp(c->sys[t].topology_unused, why))
				fprintf(f, "%s'%s'", n++ ? ", " : "", c->sys[t].name);
		fprintf(f, " (%s with %s)", c->backend, why);
	}
	fprintf(f, ": %s (backend = flit models each network flit by "
		   "flit; link_model = links shares the channels of its routes; docs/replay.md)",
		n_unused == 1 ? "its runtimes do not depend on its network" : "their runtimes do not depend on their networks");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

json_t *cmp_doc(const struct cmp *c)
{
	uint32_t ref = cmp_ref(c);
	json_t *doc = json_object(), *st = json_object(), *sys = json_array(), *wls = json_array(),
	       *cells = json_array();
	session_json_head(doc, "compare");
	json_object_set_new(st, "path", out_json_utf8(c->path));
	json_object_set_new(st, "backend", json_string(c->backend));
	char *contention = cmp_contention(c);
	json_object_set_new(st, "contention", contention ? out_json_utf8(contention) : json_null());
	free(contention);
	char *note = cmp_topology_note(c);
	json_object_set_new(st, "topology_unused", note ? out_json_utf8(note) : json_null());
	free(note);
	json_object_set_new(st, "seeds", json_integer(c->n_seeds));
	json_object_set_new(st, "preset", out_json_utf8(c->preset));
	json_object_set_new(st, "reference", out_json_utf8(c->sys[ref].name));
	json_object_set_new(doc, "study", st);
	for (uint32_t w = 0; w < c->n_wl; w++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", out_json_utf8(c->wl[w].name));
		json_object_set_new(o, "trace", out_json_utf8(c->wl[w].trace));
		char h[20];
		snprintf(h, sizeof h, "%016" PRIx64, c->wl[w].trace_hash);
		json_object_set_new(o, "trace_xxh64", json_string(h));
		json_object_set_new(o, "ranks", json_integer(c->wl[w].trace_ranks));
		json_object_set_new(o, "weight", json_real(c->wl[w].weight));
		json_object_set_new(o, "placement", out_json_utf8(c->wl[w].placement ? c->wl[w].placement : "linear"));
		/* A placement that does not read the seed replays seed 1 alone
		 * (docs/procurement.md, [study] seeds). */
		json_object_set_new(o, "seeds_replayed", json_integer(c->wl[w].uses_seed ? c->n_seeds : 1));
		json_array_append_new(wls, o);
	}
	for (uint32_t s = 0; s < c->n_sys; s++) {
		const struct cmp_sys *y = &c->sys[s];
		json_t *o = json_object();
		double rel = cmp_relative(c, s, ref);
		json_object_set_new(o, "name", out_json_utf8(y->name));
		json_object_set_new(o, "topology", out_json_utf8(y->topology));
		json_object_set_new(o, "topology_unused", y->topology_unused ? json_string(y->topology_unused) : json_null());
		json_object_set_new(o, "routing", out_json_utf8(y->routing ? y->routing : "none"));
		json_object_set_new(o, "endpoints", json_integer(y->endpoints));
		json_object_set_new(o, "relative_runtime", cmp_num(rel));
		json_object_set_new(o, "performance", cmp_num(1 / rel));
		if (y->cost_ok) {
			json_t *cab = json_object();
			json_object_set_new(o, "cost_usd", out_json_usd(y->cost.cost_total));
			json_object_set_new(o, "power_w", json_real(y->cost.power_w));
			json_object_set_new(o, "perf_per_musd", cmp_num(1 / rel / (y->cost.cost_total / 1e6)));
			json_object_set_new(o, "perf_per_kw", cmp_num(1 / rel / (y->cost.power_w / 1e3)));
			json_object_set_new(cab, "links", json_integer((json_int_t)y->cost.links));
			json_object_set_new(cab, "copper", json_integer((json_int_t)y->cost.copper));
			json_object_set_new(cab, "fibre", json_integer((json_int_t)y->cost.fibre));
			json_object_set_new(cab, "length_m", json_real(y->cost.length_m));
			json_object_set_new(cab, "terminal_cables", json_integer((json_int_t)y->cost.terminal_cables));
			json_object_set_new(cab, "cabinets", json_integer(y->cost.cabinets));
			/* The layout behind them: the study's, or the system's own
			 * [layout] keys (docs/procurement.md). */
			json_object_set_new(cab, "layout", json_string(y->has_layout_keys ? "system" : "study"));
			json_object_set_new(cab, "preset", out_json_utf8(y->layout.preset));
			json_object_set_new(cab, "rule", json_string(y->cost_rule));
			json_object_set_new(cab, "placement", json_string(y->cost_annealed ? "anneal" : "rule"));
			json_object_set_new(o, "cables", cab);
		} else {
			json_object_set_new(o, "cost_error", out_json_utf8(y->cost_err));
		}
		json_array_append_new(sys, o);
	}
	for (uint32_t w = 0; w < c->n_wl; w++) {
		double best = INFINITY;
		struct cmp_cell cc[CMP_MAX_SYS];
		for (uint32_t s = 0; s < c->n_sys; s++) {
			cmp_cell(c, w, s, &cc[s]);
			if (cc[s].ok && cc[s].median < best)
				best = cc[s].median;
		}
		for (uint32_t s = 0; s < c->n_sys; s++) {
			json_t *o = json_object(), *seeds = json_array();
			json_object_set_new(o, "workload", out_json_utf8(c->wl[w].name));
			json_object_set_new(o, "system", out_json_utf8(c->sys[s].name));
			json_object_set_new(o, "status", out_json_utf8(cc[s].ok ? "ok" : cc[s].why));
			json_object_set_new(o, "runtime_s", cc[s].ok ? cmp_num(cc[s].median) : json_null());
			json_object_set_new(o, "runtime_min_s", cc[s].ok ? cmp_num(cc[s].min) : json_null());
			json_object_set_new(o, "runtime_max_s", cc[s].ok ? cmp_num(cc[s].max) : json_null());
			json_object_set_new(o, "slowdown_vs_best", cc[s].ok ? cmp_num(cc[s].median / best) : json_null());
			json_object_set_new(o, "comm_share", cc[s].ok ? cmp_num(cc[s].comm_share) : json_null());
			json_object_set_new(o, "busiest_links", cmp_links_json(c, w, s));
			for (uint32_t k = 0; k < c->n_seeds; k++) {
				const struct cmp_run *r = &c->runs[(w * c->n_sys + s) * c->n_seeds + k];
				json_t *e = json_object();
				json_object_set_new(e, "seed", json_integer((json_int_t)cmp_seed(k)));
				json_object_set_new(e, "status", json_string(r->status == 0   ? "ok"
									     : r->status == 1 ? "deadlock"
											      : "error"));
				json_object_set_new(e, "runtime_s", r->status ? json_null() : json_real(r->runtime_s));
				if (r->status)
					json_object_set_new(e, "error", out_json_utf8(r->err));
				json_object_set_new(e, "cache_key", json_string(r->key));
				if (r->reused)
					json_object_set_new(e, "same_as_seed", json_integer((json_int_t)cmp_seed(0)));
				json_array_append_new(seeds, e);
			}
			json_object_set_new(o, "seeds", seeds);
			json_array_append_new(cells, o);
		}
	}
	json_object_set_new(doc, "workloads", wls);
	json_object_set_new(doc, "systems", sys);
	json_object_set_new(doc, "cells", cells);
	return doc;
}

static void cmp_md_num(FILE *f, double x, const char *fmt)
{
	if (isfinite(x))
		fprintf(f, fmt, x);
	else
		fputs("n/a", f);
}

/* A study's name in a Markdown table cell: '|' would end the cell. */
static void cmp_md_name(FILE *f, const char *name)
{
	for (const char *p = name; *p; p++) {
		if (*p == '|' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
}

/* The head of a Markdown table with one row per workload and one column
 * per system. */
static void cmp_md_wl_header(FILE *f, const struct cmp *c)
{
	fprintf(f, "| workload |");
	for (uint32_t s = 0; s < c->n_sys; s++) {
		fputc(' ', f);
		cmp_md_name(f, c->sys[s].name);
		fputs(" |", f);
	}
	fprintf(f, "\n|---|");
	for (uint32_t s = 0; s < c->n_sys; s++)
		fprintf(f, "---|");
	fputc('\n', f);
}

/* Every seed that deadlocked or failed, with its message: the runtime
 * table says only "deadlock" or "error", and a reader of report.md should
 * not need report.json to learn why (nothing when every run ended). A
 * failed seed 1 whose result seeds 2..N reuse is one row, "1-N": they
 * did not run, and N copies of one message read as N failures. */
static void cmp_md_failed(FILE *f, const struct cmp *c)
{
	bool any = false;
	for (uint32_t i = 0; i < c->n_runs && !any; i++)
		any = c->runs[i].status != 0;
	if (!any)
		return;
	fprintf(f, "\n## Failed runs\n\n| workload | system | seed | status | message |\n|---|---|---|---|---|\n");
	for (uint32_t w = 0; w < c->n_wl; w++)
		for (uint32_t s = 0; s < c->n_sys; s++)
			for (uint32_t k = 0; k < c->n_seeds; k++) {
				const struct cmp_run *r = &c->runs[(w * c->n_sys + s) * c->n_seeds + k];
				if (!r->status || r->reused)
					continue;
				fputs("| ", f);
				cmp_md_name(f, c->wl[w].name);
				fputs(" | ", f);
				cmp_md_name(f, c->sys[s].name);
				fprintf(f, " | %" PRIu64, cmp_seed(k));
				if (k + 1 < c->n_seeds && r[1].reused)
					fprintf(f, "-%" PRIu64, cmp_seed(c->n_seeds - 1));
				fprintf(f, " | %s | ", r->status == 1 ? "deadlock" : "error");
				cmp_md_name(f, r->err);
				fputs(" |\n", f);
			}
}

/* The workloads whose placement does not read the seed, when there are
 * seeds to repeat: replayed with seed 1 alone, its result every seed's. */
static void cmp_md_unseeded(FILE *f, const struct cmp *c)
{
	for (uint32_t w = 0; w < c->n_wl && c->n_seeds > 1; w++) {
		if (c->wl[w].uses_seed)
			continue;
		fputs("Workload **", f);
		cmp_md_name(f, c->wl[w].name);
		fprintf(f, "** (placement `%s`, which does not use the seed): seed 1 replayed on each system, its result "
			   "also that of seeds 2..%u.\n\n",
			c->wl[w].placement ? c->wl[w].placement : "linear", c->n_seeds);
	}
}

char *cmp_md(const struct cmp *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	uint32_t ref = cmp_ref(c);
	fprintf(f, "# netloom compare: %s\n\n", c->path);
	fprintf(f, "Backend **%s** (contention %s), %u seed%s, cost preset **%s**, reference system **%s**.\n\n",
		c->backend,
		strcmp(c->backend, "flit") ? "approximated by FIFO channel reservations with link_model = links, "
					     "else not modelled"
					   : "modelled",
		c->n_seeds, c->n_seeds == 1 ? "" : "s", c->preset, c->sys[ref].name);
	char *note = cmp_topology_note(c);
	if (note) {
		fprintf(f, "**Warning:** %s.\n\n", note);
	}
	free(note);
	cmp_md_unseeded(f, c);
	fprintf(f, "## Runtime (median over seeds) and slowdown against the best system\n\n");
	cmp_md_wl_header(f, c);
	for (uint32_t w = 0; w < c->n_wl; w++) {
		struct cmp_cell cc[CMP_MAX_SYS];
		double best = INFINITY;
		for (uint32_t s = 0; s < c->n_sys; s++) {
			cmp_cell(c, w, s, &cc[s]);
			if (cc[s].ok && cc[s].median < best)
				best = cc[s].median;
		}
		fputs("| ", f);
		cmp_md_name(f, c->wl[w].name);
		fprintf(f, " (weight %g) |", c->wl[w].weight);
		for (uint32_t s = 0; s < c->n_sys; s++) {
			if (cc[s].ok)
				fprintf(f, " %.6g s (x%.3f) |", cc[s].median, cc[s].median / best);
			else
				fprintf(f, " %s |", cc[s].why);
		}
		fputc('\n', f);
	}
	cmp_md_failed(f, c);
	fprintf(f, "\n## Systems\n\n| system | topology | routing | endpoints | relative runtime | cost ($) | power (W) | "
		   "perf per M$ | perf per kW | cables (copper/fibre) | cable length (m) |\n"
		   "|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (uint32_t s = 0; s < c->n_sys; s++) {
		const struct cmp_sys *y = &c->sys[s];
		double rel = cmp_relative(c, s, ref);
		fputs("| ", f);
		cmp_md_name(f, y->name);
		fprintf(f, " | `%s` | `%s` | %u | ", y->topology, y->routing ? y->routing : "none",
			y->endpoints);
		cmp_md_num(f, rel, "%.4f");
		if (y->cost_ok) {
			fprintf(f, " | %.0f | %.1f | ", y->cost.cost_total, y->cost.power_w);
			cmp_md_num(f, 1 / rel / (y->cost.cost_total / 1e6), "%.4g");
			fputs(" | ", f);
			cmp_md_num(f, 1 / rel / (y->cost.power_w / 1e3), "%.4g");
			fprintf(f, " | %" PRIu64 "/%" PRIu64 " | %.1f |\n", y->cost.copper, y->cost.fibre,
				y->cost.length_m);
		} else {
			fprintf(f, " | n/a | n/a | n/a | n/a | n/a | n/a |\n");
		}
	}
	for (uint32_t s = 0; s < c->n_sys; s++) {
		const struct cmp_sys *y = &c->sys[s];
		if (!y->cost_ok || !y->has_layout_keys)
			continue;
		fputs("\nSystem ", f);
		cmp_md_name(f, y->name);
		fprintf(f, " is priced and cabled with its own layout keys: preset **%s**, packaging rule `%s`, "
			   "floor `%s` (`netloom cost --layout`).\n",
			y->layout.preset, y->cost_rule, y->cost_annealed ? "anneal" : "rule");
	}
	fprintf(f, "\n## Communication share (time in MPI over run time, mean over seeds)\n\n");
	cmp_md_wl_header(f, c);
	for (uint32_t w = 0; w < c->n_wl; w++) {
		fputs("| ", f);
		cmp_md_name(f, c->wl[w].name);
		fputs(" |", f);
		for (uint32_t s = 0; s < c->n_sys; s++) {
			struct cmp_cell cc;
			cmp_cell(c, w, s, &cc);
			if (cc.ok)
				fprintf(f, " %.1f%% |", 100 * cc.comm_share);
			else
				fprintf(f, " %s |", cc.why);
		}
		fputc('\n', f);
	}
	fprintf(f, "\n## Busiest links (router.port -> peer router, class: share of the cell's link use)\n\n"
		   "| workload | system | unit | links used | busiest |\n|---|---|---|---|---|\n");
	for (uint32_t w = 0; w < c->n_wl; w++)
		for (uint32_t s = 0; s < c->n_sys; s++) {
			json_t *l = cmp_links_json(c, w, s), *e;
			size_t i;
			fputs("| ", f);
			cmp_md_name(f, c->wl[w].name);
			fputs(" | ", f);
			cmp_md_name(f, c->sys[s].name);
			fputs(" | ", f);
			if (!l || json_object_get(l, "unavailable")) {
				fprintf(f, "n/a | n/a | %s |\n", l ? json_string_value(json_object_get(l, "unavailable")) : "");
				json_decref(l);
				continue;
			}
			fprintf(f, "%s | %" JSON_INTEGER_FORMAT " |", json_string_value(json_object_get(l, "unit")),
				json_integer_value(json_object_get(l, "links_used")));
			json_array_foreach(json_object_get(l, "top"), i, e)
			{
				if (i == 5)
					break;
				fprintf(f, "%s %" JSON_INTEGER_FORMAT ".%" JSON_INTEGER_FORMAT " -> %" JSON_INTEGER_FORMAT
					   " %s: %.1f%%",
					i ? ";" : "", json_integer_value(json_object_get(e, "router")),
					json_integer_value(json_object_get(e, "port")),
					json_integer_value(json_object_get(e, "peer_router")),
					json_string_value(json_object_get(e, "class")),
					100 * json_real_value(json_object_get(e, "share")));
			}
			fprintf(f, " |\n");
			json_decref(l);
		}
	fprintf(f, "\nRelative runtime: weighted geometric mean of each workload's runtime over the reference "
		   "system's (lower is better); performance = 1 / relative runtime (docs/procurement.md).\n");
	fclose(f);
	return buf;
}

