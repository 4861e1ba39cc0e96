/* Annealing speed of the cabinet floor placement (emu/layout, seed 003
 * §7.1): moves per second and the resulting cable length.
 *
 *   bench_layout LABEL SPEC ITERATIONS
 *
 * Builds SPEC, packs it by its family's rule, anneals one trial of
 * ITERATIONS moves with the fujiwara preset (seed 003's cabinet and
 * cables) and prints, as its last line, the wall time, moves per second,
 * total length and peak RSS (VmHWM, as benchmarks/analysis does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "layout/layout.h"
#include "topo/topo.h"

#include "../bench_mem.h"

int main(int argc, char **argv)
{
	struct topo *t = NULL;
	struct layout lo;
	struct layout_summary s;
	struct nl_err e = {0};

	if (argc != 4) {
		fprintf(stderr, "usage: bench_layout LABEL SPEC ITERATIONS\n");
		return 2;
	}
	char *end;
	uint64_t iters = strtoull(argv[3], &end, 10);
	if (!*argv[3] || *end || !iters) {
		fprintf(stderr, "bench_layout: ITERATIONS '%s': expected a positive integer\n", argv[3]);
		return 2;
	}
	const struct layout_model *m = layout_model_find("fujiwara", &e);
	if (!m || topo_new(argv[2], &t, &e) < 0 || layout_pack(&lo, t, NULL, 0, &e) < 0) {
		fprintf(stderr, "bench_layout: %s\n", e.msg);
		topo_free(t);
		return 1;
	}
	double t0 = nl_wall_seconds();
	if (layout_place_anneal(&lo, m, iters, 1, 1, 1, &e) < 0 || layout_summarise(&lo, m, 0, &s, &e) < 0) {
		fprintf(stderr, "bench_layout: %s\n", e.msg);
		return 1;
	}
	double dt = nl_wall_seconds() - t0;
	printf("%s: %s, %u cabinets on %u x %u, %llu moves in %.3f s = %.2f M moves/s, length %.1f m, peak RSS %ld KB\n",
	       argv[1], t->spec, lo.n_cabinets, lo.rows, lo.cols, (unsigned long long)iters, dt, iters / dt / 1e6,
	       s.length_m, bench_vmhwm_kb());
	layout_release(&lo);
	topo_free(t);
	return 0;
}
