/* Shared helpers for the engine benchmarks and validation runs: build a
 * configuration from key=value strings and run one operating point. */
#ifndef NETLOOM_BENCH_COMMON_H
#define NETLOOM_BENCH_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/error.h"
#include "net/net.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

#include "../bench_mem.h"

static const struct config_table *const bench_tables[] = {
	&net_network_table,
	&net_router_table,
	&traffic_table,
	&net_sim_table,
};

/* For a check that takes no arguments: -1 to go on; else the exit status
 * (its usage on stdout for -h/--help, 0; on stderr otherwise, 2). */
static inline int bench_no_args(int argc, char **argv)
{
	if (argc < 2)
		return -1;
	const bool help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
	fprintf(help ? stdout : stderr, "usage: %s (no arguments: runs the whole check; see the file's header)\n",
		argv[0]);
	return help ? 0 : 2;
}

/* Run one point of the configuration kv[] (NULL-terminated) plus the
 * extra overrides. Returns 0 or prints the error and returns its code. */
static inline int bench_point(const char *const *kv, const char *const *extra, struct net_point *pt)
{
	struct config cfg;
	struct nl_err e = {0};
	int r = 0;

	memset(pt, 0, sizeof *pt);
	config_init(&cfg, bench_tables, sizeof bench_tables / sizeof *bench_tables);
	for (int i = 0; kv[i] && r == 0; i++)
		r = config_set(&cfg, kv[i], NULL, "setting", &e);
	for (int i = 0; extra && extra[i] && r == 0; i++)
		r = config_set(&cfg, extra[i], NULL, "setting", &e);
	if (r == 0)
		r = net_run_point_cfg(&cfg, pt, &e);
	if (r < 0)
		fprintf(stderr, "bench: %s\n", e.msg);
	config_release(&cfg);
	return r;
}

/* Peak resident memory of this process in bytes (VmHWM; getrusage's
 * ru_maxrss survives exec and would count the launcher). */
static inline unsigned long long bench_peak_rss(void)
{
	long kb = bench_vmhwm_kb();
	return kb < 0 ? 0 : (unsigned long long)kb * 1024;
}

/* The BookSim2 reference configuration (booksim-reference/torus8x8.cfg
 * converted with netloom config --from-booksim), radix and dimensions
 * overridable. */
#define BENCH_BOOKSIM_TORUS                                                                        \
	"routing_function=dor", "channel_latency=2", "num_vcs=2", "vc_buf_size=8", "routing_delay=1", \
		"vc_alloc_delay=1", "sw_alloc_delay=1", "st_prepare_delay=0", "st_final_delay=1",     \
		"credit_delay=0", "vc_allocator=islip", "sw_allocator=islip", "alloc_iters=1",        \
		"traffic=uniform", "warmup_periods=3", "sample_period=1000", "max_samples=10",        \
		"latency_thres=500"

#endif
