/* Export a topology as an edge list, a Graphviz DOT graph or JSON.
 *
 * Written as a stream (no document tree), so a million-endpoint topology
 * costs no more memory than its graph; the caller streams it into a
 * staged file that replaces the target atomically (core/output.h,
 * out_stream_open). Output depends only on the topology.
 */
#include "analyze/analyze.h"

#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/staged.h"
#include "topo/topo.h"
#include "core/text.h"

int analyze_format_parse(const char *name)
{
	if (!strcmp(name, "edgelist"))
		return ANALYZE_FMT_EDGELIST;
	if (!strcmp(name, "dot"))
		return ANALYZE_FMT_DOT;
	if (!strcmp(name, "json"))
		return ANALYZE_FMT_JSON;
	return -1;
}


/* The terminal's progress line while rendering: a million-router export
 * renders hundreds of megabytes for seconds after the router graph
 * (foldedhypercube:n=20 as JSON, 836 MB, about 2.5 s). `row` of `n_rows`
 * is what the line names; `fraction` weighs rows by their text (a JSON
 * router's line holds all its ports). Checked every 4,096 rows so the
 * clock is not read per line. Also the poll for SIGINT/SIGTERM
 * (out_staged_poll): the file being written is staged, and a signal
 * recorded meanwhile removes it and ends the process here, not seconds
 * later when the rendering is done. */
static void export_progress(struct progress *p, uint64_t row, uint64_t n_rows, double fraction, const char *what)
{
	if (row % 4096)
		return;
	out_staged_poll();
	char detail[64];
	snprintf(detail, sizeof detail, "%s %llu of %llu", what, (unsigned long long)row, (unsigned long long)n_rows);
	progress_update(p, fraction, detail);
}

/* How export_text writes what a document cannot hold raw. */
enum export_quote {
	EXPORT_JSON,    /* JSON string body: \u00XX, invalid UTF-8 as U+FFFD */
	EXPORT_DOT,     /* DOT quoted ID body: \" and \\, others as visible \xHH */
	EXPORT_COMMENT, /* one '#' comment line: \\ and visible \xHH, nothing ends the line */
};

/* The spec can hold anything a path can (graph:file= with a tab, a newline
 * or bytes that are not UTF-8): every output must stay well formed, so
 * control characters and invalid UTF-8 are escaped. */
static void export_text(FILE *f, const char *str, enum export_quote q)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		int n = text_utf8_len(s, strnlen((const char *)s, 4)); /* -1: cut off by the end */
		if (n <= 0 || *s < 0x20 || *s == 0x7f) {
			if (q != EXPORT_JSON)
				fprintf(f, "\\x%02x", *s);
			else if (n <= 0)
				fputs("\\ufffd", f);
			else
				fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		if (*s == '\\' || (q != EXPORT_COMMENT && *s == '"'))
			fputc('\\', f);
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
}

/* A JSON string (also a DOT quoted ID, with its own escapes). */
static void export_quoted(FILE *f, const char *s, enum export_quote q)
{
	fputc('"', f);
	export_text(f, s, q);
	fputc('"', f);
}

static void export_edgelist(const struct topo *t, const struct analyze_graph *g, struct progress *pr, FILE *f)
{
	fprintf(f, "# netloom edgelist ");
	export_text(f, t->spec, EXPORT_COMMENT);
	fputc('\n', f);
	fprintf(f, "# routers %u endpoints %u links %llu physical_links %llu\n", t->n_routers, t->n_endpoints,
		(unsigned long long)g->links, (unsigned long long)g->phys_links);
	fprintf(f, "# router_a router_b parallel_links\n");
	/* A router without links (the one router of a crossbar) is a line of
	 * its own: graph:file= reads it, where a file of no links is refused. */
	for (uint32_t a = 0; a < g->n; a++) {
		export_progress(pr, a, g->n, (double)a / g->n, "router");
		if (g->off[a] == g->off[a + 1])
			fprintf(f, "%u\n", a);
		for (uint32_t i = g->off[a]; i < g->off[a + 1]; i++)
			if (g->adj[i] > a)
				fprintf(f, "%u %u %u\n", a, g->adj[i], g->mult[i]);
	}
}

static uint32_t export_cabinet(const struct topo *t, const struct analyze_packing *pk, uint32_t r)
{
	return pk ? pk->cabinet[r] : topo_router_cabinet(t, r);
}

/* The drawing extent of each coordinate, for pos=: a grid's radixes, or for
 * another family with coordinates (hyperx, flatfly, dragonfly, trees...)
 * the largest value seen plus one. 0 when routers have no coordinates or
 * not all the same number of them (no layout then). */
static int export_pos_extent(const struct topo *t, uint32_t *k)
{
	if (t->grid) {
		for (int d = 0; d < t->grid->n_dims; d++)
			k[d] = t->grid->k[d];
		return t->grid->n_dims;
	}
	int n = 0;
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t c[TOPO_MAX_COORDS];
		int nc = topo_coords(t, r, c);
		if (nc <= 0 || (r && nc != n))
			return 0;
		if (!r) {
			n = nc;
			for (int d = 0; d < n; d++)
				k[d] = 0;
		}
		for (int d = 0; d < n; d++)
			if (c[d] + 1 > k[d])
				k[d] = c[d] + 1;
	}
	return n;
}

/* A router's drawing position: dimension 0 across, 1 up (Graphviz's y
 * axis points up), as the coordinates; a third dimension's layers (and a
 * fifth's) are placed side by side across, a fourth's (and a sixth's)
 * above one another, each layer one column or row apart from the next,
 * so no two routers share a position (torus:k=4x4x4 drew its 4 layers on
 * the same 16 points). */
static void export_pos(const uint32_t *k, const uint32_t *c, int n, uint64_t *x, uint64_t *y)
{
	uint64_t pos[2] = {0, 0}, place[2] = {1, 1};
	for (int d = 0; d < n; d++) {
		int axis = d % 2;
		pos[axis] += place[axis] * c[d];
		place[axis] *= d < 2 ? (uint64_t)k[d] + 1 : k[d];
	}
	*x = pos[0];
	*y = pos[1];
}

static void export_dot(const struct topo *t, const struct analyze_packing *pk, const struct analyze_graph *g,
		       struct progress *pr, FILE *f)
{
	fprintf(f, "graph ");
	export_quoted(f, t->spec, EXPORT_DOT);
	fprintf(f, " {\n  node [shape=circle];\n");
	uint32_t k[TOPO_MAX_COORDS];
	int n_pos = export_pos_extent(t, k);
	for (uint32_t r = 0; r < g->n; r++) {
		uint32_t c[TOPO_MAX_COORDS];
		int nc = topo_coords(t, r, c);
		export_progress(pr, r, g->n, r / (2.0 * g->n), "router");
		fprintf(f, "  r%u [label=\"%u\", endpoints=%u, cabinet=%u", r, r, g->n_endpoints[r],
			export_cabinet(t, pk, r));
		if (nc > 0) {
			fprintf(f, ", coord=\"");
			for (int d = 0; d < nc; d++)
				fprintf(f, "%s%u", d ? "," : "", c[d]);
			fprintf(f, "\"");
		}
		if (n_pos && nc == n_pos) {
			uint64_t x, y;
			export_pos(k, c, n_pos, &x, &y);
			fprintf(f, ", pos=\"%llu,%llu!\"", (unsigned long long)x, (unsigned long long)y);
		}
		fprintf(f, "];\n");
	}
	for (uint32_t a = 0; a < g->n; a++) {
		export_progress(pr, a, g->n, (g->n + a) / (2.0 * g->n), "links of router");
		for (uint32_t i = g->off[a]; i < g->off[a + 1]; i++) {
			if (g->adj[i] <= a)
				continue;
			if (g->mult[i] > 1)
				fprintf(f, "  r%u -- r%u [links=%u, penwidth=%u];\n", a, g->adj[i], g->mult[i], g->mult[i]);
			else
				fprintf(f, "  r%u -- r%u;\n", a, g->adj[i]);
		}
	}
	fprintf(f, "}\n");
}

static void export_json(const struct topo *t, const struct analyze_packing *pk, const struct analyze_graph *g,
			struct progress *pr, FILE *f)
{
	double text = (double)t->n_ports + t->n_endpoints; /* a port or an endpoint each */
	fprintf(f, "{\n  \"spec\": ");
	export_quoted(f, t->spec, EXPORT_JSON);
	fprintf(f, ",\n  \"family\": ");
	export_quoted(f, t->ops->name, EXPORT_JSON);
	fprintf(f, ",\n  \"n_routers\": %u,\n  \"n_endpoints\": %u,\n  \"n_ports\": %u,\n", t->n_routers,
		t->n_endpoints, t->n_ports);
	fprintf(f, "  \"links\": %llu,\n  \"physical_links\": %llu,\n", (unsigned long long)g->links,
		(unsigned long long)g->phys_links);
	fprintf(f, "  \"cabinets\": %u,\n", pk ? pk->n_cabinets : topo_cabinet_count(t));
	if (pk) {
		fprintf(f, "  \"packaging\": ");
		export_quoted(f, pk->rule, EXPORT_JSON);
		fprintf(f, ",\n");
	}
	fprintf(f, "  \"routers\": [");
	for (uint32_t r = 0; r < t->n_routers; r++) {
		uint32_t c[TOPO_MAX_COORDS];
		int nc = topo_coords(t, r, c);
		export_progress(pr, r, t->n_routers, t->port_base[r] / text, "router");
		fprintf(f, "%s\n    {\"id\": %u, \"endpoints\": %u, \"cabinet\": %u", r ? "," : "", r,
			g->n_endpoints[r], export_cabinet(t, pk, r));
		if (nc > 0) {
			fprintf(f, ", \"coord\": [");
			for (int d = 0; d < nc; d++)
				fprintf(f, "%s%u", d ? ", " : "", c[d]);
			fprintf(f, "]");
		}
		fprintf(f, ", \"ports\": [");
		for (uint32_t p = t->port_base[r]; p < t->port_base[r + 1]; p++) {
			uint32_t q = t->peer[p];
			if (p > t->port_base[r])
				fprintf(f, ", ");
			if (q == TOPO_NONE)
				fprintf(f, "null");
			else if (q & TOPO_EP_BIT)
				fprintf(f, "{\"endpoint\": %u}", q & ~TOPO_EP_BIT);
			else
				fprintf(f, "{\"router\": %u, \"port\": %u}", t->port_router[q],
					q - t->port_base[t->port_router[q]]);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ],\n  \"endpoints\": [");
	for (uint32_t e = 0; e < t->n_endpoints; e++) {
		export_progress(pr, e, t->n_endpoints, (t->n_ports + e) / text, "endpoint");
		fprintf(f, "%s\n    {\"id\": %u, \"router\": %u, \"port\": %u}", e ? "," : "", e, topo_ep_router(t, e),
			topo_ep_local_port(t, e));
	}
	fprintf(f, "\n  ]\n}\n");
}

int analyze_export(const struct topo *t, const struct analyze_packing *pk, enum analyze_format fmt, FILE *f,
		   struct nl_err *err)
{
	static const char *const label[] = {
		[ANALYZE_FMT_EDGELIST] = "rendering edgelist",
		[ANALYZE_FMT_DOT] = "rendering dot",
		[ANALYZE_FMT_JSON] = "rendering json",
	};
	struct analyze_graph g;
	struct progress pr;
	NL_CHECK(analyze_graph_init(&g, t, err));
	progress_init(&pr, label[fmt]);
	switch (fmt) {
	case ANALYZE_FMT_EDGELIST:
		export_edgelist(t, &g, &pr, f);
		break;
	case ANALYZE_FMT_DOT:
		export_dot(t, pk, &g, &pr, f);
		break;
	case ANALYZE_FMT_JSON:
		export_json(t, pk, &g, &pr, f);
		break;
	}
	progress_done(&pr);
	analyze_graph_release(&g);
	if (fflush(f) != 0 || ferror(f))
		return nl_errf(err, NL_EIO, "%s: writing the export failed", t->spec);
	return 0;
}
