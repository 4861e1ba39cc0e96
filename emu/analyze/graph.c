/* The router graph as a compact CSR of distinct neighbours.
 *
 * topo.h keeps one entry per port, so a trunk of K parallel links appears
 * K times; distances and cuts want each neighbour once with its width.
 * Invariant: adj[] of each router is strictly ascending, mult[] >= 1, and
 * the graph is symmetric (b in adj(a) iff a in adj(b), same mult).
 */
#include "analyze/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "topo/topo.h"

static int graph_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

void analyze_graph_release(struct analyze_graph *g)
{
	free(g->off);
	free(g->adj);
	free(g->mult);
	free(g->n_endpoints);
	memset(g, 0, sizeof *g);
}

int analyze_graph_init(struct analyze_graph *g, const struct topo *t, struct nl_err *err)
{
	uint32_t n = t->n_routers;
	uint64_t total = 0;

	memset(g, 0, sizeof *g);
	g->n = n;
	g->off = malloc(((size_t)n + 1) * sizeof *g->off);
	g->n_endpoints = calloc((size_t)n ? n : 1, sizeof *g->n_endpoints);
	if (!g->off || !g->n_endpoints)
		goto nomem;
	/* Upper bound on entries: network ports. */
	for (uint32_t g_port = 0; g_port < t->n_ports; g_port++)
		if (topo_port_is_network(t, g_port))
			total++;
	g->adj = malloc((size_t)(total ? total : 1) * sizeof *g->adj);
	g->mult = malloc((size_t)(total ? total : 1) * sizeof *g->mult);
	if (!g->adj || !g->mult)
		goto nomem;

	/* Millions of routers take seconds (foldedhypercube:n=24: 16.8
	 * million): say so on a terminal, checked every 2^14 routers. */
	struct progress pg;
	progress_init(&pg, "router graph");
	uint32_t w = 0;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t start = w;
		if (!(r & 0x3fff) && r) {
			char detail[64];
			snprintf(detail, sizeof detail, "%u of %u routers", r, n);
			progress_update(&pg, (double)r / n, detail);
		}
		g->off[r] = w;
		for (uint32_t p = t->port_base[r]; p < t->port_base[r + 1]; p++) {
			if (topo_port_is_terminal(t, p)) {
				g->n_endpoints[r]++;
				continue;
			}
			if (!topo_port_is_network(t, p))
				continue;
			uint32_t s = t->port_router[t->peer[p]];
			if (s == r)
				continue;
			g->adj[w++] = s;
		}
		qsort(g->adj + start, w - start, sizeof *g->adj, graph_cmp_u32);
		/* Merge runs of the same neighbour into (neighbour, width). */
		uint32_t out = start;
		for (uint32_t i = start; i < w;) {
			uint32_t j = i;
			while (j < w && g->adj[j] == g->adj[i])
				j++;
			g->adj[out] = g->adj[i];
			g->mult[out] = j - i;
			if (g->adj[i] > r) {
				g->links++;
				g->phys_links += j - i;
			}
			out++;
			i = j;
		}
		w = out;
		uint32_t deg = w - start;
		if (deg > g->max_degree)
			g->max_degree = deg;
		if (r == 0 || deg < g->min_degree)
			g->min_degree = deg;
	}
	g->off[n] = w;
	progress_done(&pg);
	return 0;
nomem:
	analyze_graph_release(g);
	return nl_errf(err, NL_ENOMEM, "%s: out of memory for the router graph", t->spec);
}

int analyze_repeats_check(const struct analyze_repeats *k, uint32_t n, uint32_t routers, uint64_t pairs,
			  struct nl_err *err)
{
	double size = (double)routers + (double)pairs, work = n * size;
	double max_work = ANALYZE_MAX_RUNS_WORK_S * k->steps_per_s;
	if (work <= max_work)
		return 0;
	double min = work / k->steps_per_s / 60;
	uint64_t most = (uint64_t)(max_work / size);
	char advice[80];
	if (most)
		snprintf(advice, sizeof advice, "%s %llu or fewer", k->count, (unsigned long long)most);
	else
		snprintf(advice, sizeof advice, "a smaller network, as one %s is %.5g", k->short_one, size);
	return nl_errf(err, NL_EINVAL,
		       "%s: %u %s%s x (%u routers + %llu %s) is %.5g steps, about %.0f %s of work at %.0g steps a "
		       "second; expected at most %.3g (about %.0f minutes): %s",
		       k->analysis, n, k->one, n == 1 ? "" : "s", routers, (unsigned long long)pairs, k->pairs, work,
		       min >= 120 ? min / 60 : min, min >= 120 ? "hours" : "minutes", k->steps_per_s, max_work,
		       ANALYZE_MAX_RUNS_WORK_S / 60, advice);
}
