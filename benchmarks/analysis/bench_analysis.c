/* Wall time and peak memory of the exact graph analysis (diameter, ASPL,
 * distance histogram) of one topology.
 *
 *   bench_analysis LABEL SPEC [nosym]
 *
 * Builds SPEC, then times analyze_graph_init + analyze_distances in exact
 * mode (one BFS per vertex orbit). "nosym" hides the family's symmetry
 * (flags and orbits callback), so every router is a BFS source: the cost
 * of exactness without symmetry. Peak memory is the process's maximum
 * resident set size, topology included: VmHWM from /proc/self/status,
 * because getrusage's ru_maxrss survives execve and so also counts the
 * parent (meson's Python) before exec; ru_maxrss is printed too. The
 * last line is the figure. Exit 77 (skip) when SPEC's family is not
 * registered.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "analyze/analyze.h"
#include "core/error.h"
#include "core/progress.h"
#include "topo/topo.h"

#include "../bench_mem.h"

int main(int argc, char **argv)
{
	struct topo *t = NULL;
	struct analyze_graph g;
	struct analyze_dist d;
	struct analyze_dist_opts o = {.mode = ANALYZE_DIST_EXACT};
	struct nl_err e = {0};

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "nosym"))) {
		fprintf(stderr, "usage: bench_analysis LABEL SPEC [nosym]\n");
		return 2;
	}
	double t0 = nl_wall_seconds();
	int rc = topo_new(argv[2], &t, &e);
	if (rc == NL_ENOTFOUND) {
		printf("skip: %s\n", e.msg);
		return 77;
	}
	if (rc < 0) {
		fprintf(stderr, "bench_analysis: %s\n", e.msg);
		return 1;
	}
	struct topo_ops plain;
	if (argc == 4) {
		plain = *t->ops;
		plain.flags &= ~(unsigned)TOPO_F_VERTEX_TRANSITIVE;
		plain.orbits = NULL;
		t->ops = &plain; /* same build/release; only the symmetry hints go */
	}
	double t1 = nl_wall_seconds();
	if (analyze_graph_init(&g, t, &e) < 0 || analyze_distances(t, &g, &o, &d, &e) < 0) {
		fprintf(stderr, "bench_analysis: %s\n", e.msg);
		topo_free(t);
		return 1;
	}
	double t2 = nl_wall_seconds();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long hwm_kb = bench_vmhwm_kb();
	double hwm_mb = (double)(hwm_kb < 0 ? ru.ru_maxrss : hwm_kb) / 1024.0;

	printf("spec          %s\n", t->spec);
	printf("routers       %u, endpoints %u, links %llu, network degree %u\n", t->n_routers, t->n_endpoints,
	       (unsigned long long)g.links, g.max_degree);
	printf("distances     %s, %u BFS source(s), exact %s\n", d.method, d.n_sources, d.is_exact ? "yes" : "no");
	printf("diameter      %u\n", d.diameter);
	printf("aspl          %.6f\n", d.aspl);
	printf("build         %.3f s\n", t1 - t0);
	printf("analysis      %.3f s\n", t2 - t1);
	printf("getrusage     ru_maxrss %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	printf("%s: exact analysis %.3f s wall (topology build %.3f s), peak RSS %.1f MB\n", argv[1], t2 - t1,
	       t1 - t0, hwm_mb);
	analyze_dist_release(&d);
	analyze_graph_release(&g);
	topo_free(t);
	return 0;
}
