/* Memory and per-hop cost of minimal routing (`min`) on one topology:
 * closed-form next hops on structured families (issue 10 part 3) or the
 * n x n BFS table (`min:table=always`, and irregular graphs); and of the
 * other deterministic table-driven functions (`updown`: 2 n^2 bytes).
 *
 *   bench_min LABEL SPEC [ROUTE]       (ROUTE defaults to "min")
 *
 * Builds SPEC, instantiates ROUTE with 8 VCs, then routes 200,000 random
 * endpoint pairs hop by hop along the first candidate (select=first-like
 * walks whatever `select` says) and times route computations. Peak memory
 * is VmHWM from /proc/self/status after the topology and after the
 * routing set-up, so the difference is what routing costs. The last line
 * is the figure.
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "route/route.h"
#include "topo/topo.h"

#include "../bench_mem.h"

/* VmHWM in MiB (0 when unreadable). */
static double bench_hwm_mb(void)
{
	long kb = bench_vmhwm_kb();
	return kb < 0 ? 0 : (double)kb / 1024.0;
}

int main(int argc, char **argv)
{
	struct topo *t = NULL;
	struct route *rt = NULL;
	struct nl_err e = {0};
	const char *route_spec = argc > 3 ? argv[3] : "min";

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench_min LABEL SPEC [ROUTE]\n");
		return 2;
	}
	double t0 = nl_wall_seconds();
	if (topo_new(argv[2], &t, &e) < 0) {
		fprintf(stderr, "bench_min: %s\n", e.msg);
		return 1;
	}
	double t1 = nl_wall_seconds(), mb_topo = bench_hwm_mb();
	if (route_new(route_spec, t, 8, &rt, &e) < 0) {
		fprintf(stderr, "bench_min: %s\n", e.msg);
		topo_free(t);
		return 1;
	}
	double t2 = nl_wall_seconds(), mb_route = bench_hwm_mb();
	uint64_t hops = 0, calls = 0;
	struct route_cand c[ROUTE_MAX_CANDS];
	for (uint32_t k = 0; k < 200000; k++) {
		uint64_t h = rng_mix64(k + 1);
		uint32_t src = (uint32_t)(h % t->n_endpoints), dst = (uint32_t)((h >> 32) % t->n_endpoints);
		struct route_pkt p = {.src_ep = src, .dst_router = topo_ep_router(t, dst),
				      .dst_ep = dst};
		uint32_t r = topo_ep_router(t, src), in_port = topo_ep_local_port(t, src);
		for (;;) {
			/* The port the head arrived on, as the engine passes it:
			 * up*-down* reads it (a packet that came down stays down). */
			rt->ops->compute(rt, r, in_port, 0, &p, NULL, NULL, c);
			calls++;
			uint32_t g = t->port_base[r] + c[0].port;
			if (topo_port_is_terminal(t, g))
				break;
			r = t->port_router[t->peer[g]];
			in_port = t->peer[g] - t->port_base[r];
			p.hops++;
			hops++;
		}
	}
	double t3 = nl_wall_seconds();
	printf("spec          %s\n", t->spec);
	printf("routing       %s\n", route_spec);
	printf("routers       %u, endpoints %u\n", t->n_routers, t->n_endpoints);
	printf("build         %.3f s topology, %.3f s routing set-up\n", t1 - t0, t2 - t1);
	printf("peak RSS      %.1f MB after the topology, %.1f MB after routing set-up\n", mb_topo, mb_route);
	printf("%s: routing set-up %.3f s, +%.1f MB peak RSS (topology %.1f MB), %.0f ns per route computation over %llu hops\n",
	       argv[1], t2 - t1, mb_route - mb_topo, mb_topo, (t3 - t2) * 1e9 / (double)calls,
	       (unsigned long long)hops);
	route_free(rt);
	topo_free(t);
	return 0;
}
