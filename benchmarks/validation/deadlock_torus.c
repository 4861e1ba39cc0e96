/* No false deadlock alarm past saturation (issue 9, part 4): the 8x8
 * torus of the BookSim2 reference (dateline DOR, deadlock-free; 2 VCs,
 * 2-cycle channels, iSLIP, uniform 1-flit packets) at injection 1.0 for
 * 200,000 cycles, with 1- and 2-flit VC buffers and four seeds. Every run
 * must end without a deadlock report and with the accepted rate of a
 * saturated, moving network. tests/unit/test_deadlock.c runs the same
 * for 25,000 cycles (it also runs under the sanitizers).
 * Exit status 1 on any report; the summary is the last line. */
#include <stdio.h>

#include "../engine/bench_common.h"

int main(int argc, char **argv)
{
	int usage = bench_no_args(argc, argv);
	if (usage >= 0)
		return usage;
	static const char *const bufs[] = {"vc_buf_size=1", "vc_buf_size=2"};
	static const char *const seeds[] = {"seed=1", "seed=2", "seed=3", "seed=4"};
	int bad = 0, runs = 0;
	for (int b = 0; b < 2; b++)
		for (int s = 0; s < 4; s++) {
			const char *kv[] = {"topology=torus:k=8x8", BENCH_BOOKSIM_TORUS, "injection_rate=1.0", NULL};
			/* 20 periods of 10,000 cycles, never converged: 200,000 cycles,
			 * then the throughput drain (docs/engine.md). */
			const char *extra[] = {bufs[b], seeds[s], "sim_type=throughput", "sample_period=10000",
					       "max_samples=20", "acc_stopping_thres=0", NULL};
			struct net_point pt;
			int r = bench_point(kv, extra, &pt);
			runs++;
			bool ok = r == 0 && !pt.deadlock && pt.cycles >= 200000 && pt.accepted > 0.03;
			printf("%s %s: %s, %llu cycles, accepted %.4f%s\n", bufs[b], seeds[s],
			       r == 0 ? "no deadlock" : "deadlock reported", (unsigned long long)pt.cycles,
			       pt.accepted, ok ? "" : "  <- FAIL");
			bad += !ok;
			net_point_release(&pt);
		}
	printf("%d runs of 200000 cycles at injection 1.0: %d passed, %d failed\n", runs, runs - bad, bad);
	return bad ? 1 : 0;
}
