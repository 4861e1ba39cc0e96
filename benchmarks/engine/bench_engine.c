/* Engine speed and memory (issue 2 targets), on BookSim2's reference
 * torus configuration with k and n changed, as booksim-reference/README.md
 * measured BookSim:
 *   bench_engine speed   32x32 torus, 1-flit packets at 0.05: flit-hops
 *                        (router-to-router channel traversals) per wall
 *                        second; BookSim: ~141,000, packet latency 109.85;
 *   bench_engine memory  32x32x32 torus at 0.02 with a 200-cycle sample:
 *                        peak resident bytes per endpoint; BookSim ~59 KB;
 *   bench_engine wheel [injection_rate=R]  BookSim2's dragonfly with the
 *                        FleX router settings (speedup 2, 256-flit VCs):
 *                        peak resident MB (issue 10 part 4).
 * The figure is the last line. */
#include <stdio.h>
#include <string.h>

#include "bench_common.h"

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "speed";
	struct net_point pt;
	if (!strcmp(mode, "-h") || !strcmp(mode, "--help")) {
		printf("usage: bench_engine speed|memory|wheel [injection_rate=R] (the rate: wheel only)\n");
		return 0;
	}
	/* Only wheel takes a rate: speed and memory are the README's fixed
	 * points, so anything more is refused rather than ignored. */
	if (argc > 3 || (argc > 2 && strcmp(mode, "wheel")) ||
	    (argc > 2 && strncmp(argv[2], "injection_rate=", 15))) {
		fprintf(stderr, "usage: bench_engine speed|memory|wheel [injection_rate=R] (the rate: wheel only)\n");
		return 2;
	}

	if (!strcmp(mode, "speed")) {
		const char *kv[] = {"topology=torus:k=32x32", BENCH_BOOKSIM_TORUS, "injection_rate=0.05", "seed=0", NULL};
		if (bench_point(kv, NULL, &pt) < 0)
			return 1;
		double rate = (double)pt.flit_hops / pt.wall_seconds;
		printf("32x32 torus, uniform, 1-flit packets at 0.05 flits/cycle/endpoint\n");
		printf("packet latency %.2f cycles (BookSim2: 109.85), accepted %.4f, hops %.2f\n", pt.plat_mean,
		       pt.accepted, pt.hops_mean);
		printf("%llu cycles, %llu flit-hops in %.3f s\n", (unsigned long long)pt.cycles,
		       (unsigned long long)pt.flit_hops, pt.wall_seconds);
		printf("flit-hops per second: %.0f\n", rate);
		net_point_release(&pt);
		return 0;
	}
	if (!strcmp(mode, "memory")) {
		const char *kv[] = {"topology=torus:k=32x32x32", BENCH_BOOKSIM_TORUS, "injection_rate=0.02", "seed=0", NULL};
		const char *sample[] = {"warmup_periods=1", "sample_period=200", "max_samples=2", NULL};
		if (bench_point(kv, sample, &pt) < 0)
			return 1;
		unsigned long long peak = bench_peak_rss();
		printf("32x32x32 torus (32768 endpoints), uniform, 1-flit packets at 0.02, 200-cycle samples\n");
		printf("packet latency %.2f cycles, %llu cycles, %llu flit-hops in %.2f s\n", pt.plat_mean,
		       (unsigned long long)pt.cycles, (unsigned long long)pt.flit_hops, pt.wall_seconds);
		printf("peak RSS %.1f MB\n", peak / 1e6);
		printf("bytes per endpoint: %.0f\n", (double)peak / 32768.0);
		net_point_release(&pt);
		return 0;
	}
	if (!strcmp(mode, "wheel")) {
		/* Issue 10 part 4: BookSim2's dragonfly with the FleX router
		 * settings (internal_speedup 2, 256-flit VCs), where output
		 * backlogs put events far ahead of the wheel. */
		const char *rate = argc > 2 ? argv[2] : "injection_rate=0.3";
		const char *kv[] = {"topology=dragonfly:a=8,p=4,h=4", "routing_function=min", "internal_speedup=2.0",
				    "num_vcs=4", "vc_buf_size=256", rate, "seed=0", NULL};
		const char *sample[] = {"max_samples=4", NULL};
		if (bench_point(kv, sample, &pt) < 0)
			return 1;
		unsigned long long peak = bench_peak_rss();
		printf("dragonfly a=8,p=4,h=4 (1056 endpoints), min routing, speedup 2, 4 x 256-flit VCs, %s\n", rate);
		printf("packet latency %.2f cycles, accepted %.4f, %llu cycles, %llu flit-hops in %.2f s\n",
		       pt.plat_mean, pt.accepted, (unsigned long long)pt.cycles, (unsigned long long)pt.flit_hops,
		       pt.wall_seconds);
		printf("peak RSS MB: %.1f\n", peak / 1e6);
		net_point_release(&pt);
		return 0;
	}
	fprintf(stderr, "usage: bench_engine speed|memory|wheel [injection_rate=R] (the rate: wheel only)\n");
	return 2;
}
