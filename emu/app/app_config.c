/* The [replay] configuration table and algorithm names.
 *
 * Defaults: eager_threshold = 4040 bytes is the largest payload Open MPI
 * 4.1 sends eagerly over shared memory, the transport our samples were
 * recorded on: btl/vader's eager limit is 4096 bytes per fragment
 * (btl_vader_component.c, without xpmem) and ob1 takes the largest PML
 * header, 56 bytes (mca_pml_ob1_rdma_hdr_t), off it (pml_ob1_sendreq.h);
 * its TCP limit, btl_tcp_eager_limit, is 65536; coll_knomial_radix = 4 is
 * Open MPI's coll_tuned_bcast_knomial_radix default. The network's keys
 * (topology, packet_bytes, ...) are the [network] table's.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "core/config.h"
#include "core/error.h"
#include "core/param.h"

static const char *const app_alg_names[APP_ALG__COUNT] = {
#define APP_ALG_NAME_(name, text) text,
	APP_ALG_MAP(APP_ALG_NAME_)
#undef APP_ALG_NAME_
};

static const char *const app_coll_names[APP_COLL__COUNT] = {
#define APP_COLL_NAME_(name, text) text,
	APP_COLL_MAP(APP_COLL_NAME_)
#undef APP_COLL_NAME_
};

const char *app_alg_name(unsigned alg)
{
	return alg < APP_ALG__COUNT ? app_alg_names[alg] : NULL;
}

const char *app_coll_name(unsigned coll)
{
	return coll < APP_COLL__COUNT ? app_coll_names[coll] : NULL;
}

/* Which algorithms each collective accepts (app_coll_plan implements
 * exactly these). */
static const char *const alg_barrier[] = {"auto", "linear", "binomial", "recursive_doubling", "bruck",
					  "ring", NULL};
static const char *const alg_bcast[] = {"auto", "linear", "binomial", "knomial", "binary", "chain",
					"scatter_allgather", "scatter_allgather_ring", NULL};
static const char *const alg_reduce[] = {"auto", "linear", "binomial", "binary", "chain", "rabenseifner",
					 NULL};
static const char *const alg_allreduce[] = {"auto", "linear", "reduce_bcast", "recursive_doubling", "ring",
					    "rabenseifner", NULL};
static const char *const alg_gather[] = {"auto", "linear", "binomial", NULL};
static const char *const alg_linear[] = {"auto", "linear", NULL};
static const char *const alg_allgather[] = {"auto", "linear", "gather_bcast", "recursive_doubling", "ring",
					    "bruck", "neighbor", NULL};
static const char *const alg_allgatherv[] = {"auto", "linear", "gather_bcast", "ring", "bruck", "neighbor",
					     NULL};
static const char *const alg_alltoall[] = {"auto", "linear", "pairwise", "bruck", NULL};
static const char *const alg_alltoallv[] = {"auto", "linear", "pairwise", NULL};
static const char *const alg_reduce_scatter[] = {"auto", "linear", "recursive_halving", "ring", NULL};
static const char *const alg_scan[] = {"auto", "linear", "recursive_doubling", NULL};

#define APP_KEY_ALG(coll, text, list)                                                                  \
	{"coll_" text "_algorithm", PARAM_CHOICE, offsetof(struct app_config, coll_alg) + (coll) * sizeof(int), \
	 "auto", 0, 0, "algorithm of the " text " collective and its non-blocking form (auto: as Open MPI 4.1.4 chooses)", list}

static const char *const app_rndv_names[] = {"rts_cts", "get", NULL};
static const char *const app_compute_time_names[] = {"auto", "wall", "cpu", NULL};
static const char *const app_inner_names[] = {"linear", "round_robin", NULL};

static const struct param_def app_keys[] = {
	{"backend", PARAM_STRING, offsetof(struct app_config, backend), "analytic", 0, 0,
	 "network model under the replay (see 'netloom replay --help')", NULL},
	{"eager_threshold", PARAM_INT, offsetof(struct app_config, eager_threshold), "4040", 0, 1099511627776.0,
	 "largest message sent eagerly, bytes; larger ones use rendezvous (RTS, CTS, data)", NULL},
	{"rndv_protocol", PARAM_CHOICE, offsetof(struct app_config, rndv_protocol), "rts_cts", 0, 0,
	 "rendezvous: rts_cts (RTS, CTS, then the sender pushes the data) or get (RTS, the receiver "
	 "pulls the data, then FIN; Open MPI's shared memory with CMA, RDMA-read transports)",
	 app_rndv_names},
	{"cpu_factor", PARAM_DOUBLE, offsetof(struct app_config, cpu_factor), "1", 1e-6, 1e6,
	 "multiplier of recorded compute intervals (0.5 = a CPU twice as fast)", NULL},
	{"compute_time", PARAM_CHOICE, offsetof(struct app_config, compute_time), "auto", 0, 0,
	 "what a recorded compute interval replays as: wall (the wall-clock gap between MPI calls), cpu "
	 "(the rank's thread CPU time in it, format 2 recordings) or auto (cpu when ranks shared cores "
	 "while recording and the trace has CPU time, else wall)",
	 app_compute_time_names},
	{"cpu_flops", PARAM_DOUBLE, offsetof(struct app_config, cpu_flops), "1e9", 1, 1e18,
	 "flop/s of a rank, for traces that give compute as flop counts", NULL},
	{"coll_knomial_radix", PARAM_INT, offsetof(struct app_config, knomial_radix), "4", 2, 64,
	 "radix of the k-nomial bcast tree", NULL},
	{"placement", PARAM_STRING, offsetof(struct app_config, placement), "linear", 0, 0,
	 "rank -> endpoint: linear (rank r on endpoint r) or a placement policy of emu/place (contiguous, "
	 "random-node, random-router, round-robin, packed, spread, map; docs/placement.md)", NULL},
	{"placement_seed", PARAM_INT, offsetof(struct app_config, placement_seed), "1", 0, 9007199254740992.0,
	 "seed of the random placement policies", NULL},
	{"ranks_per_node", PARAM_INT, offsetof(struct app_config, ranks_per_node), "1", 1, APP_MAX_RANKS_PER_NODE,
	 "ranks sharing one endpoint under a placement policy", NULL},
	{"placement_inner", PARAM_CHOICE, offsetof(struct app_config, placement_inner), "linear", 0, 0,
	 "ranks onto the job's nodes: linear (ranks_per_node consecutive ranks per node) or round_robin",
	 app_inner_names},
	{"placement_map", PARAM_PATH, offsetof(struct app_config, placement_map), "", 0, 0,
	 "file of 'rank endpoint' lines for placement = map", NULL},
	APP_KEY_ALG(APP_COLL_BARRIER, "barrier", alg_barrier),
	APP_KEY_ALG(APP_COLL_BCAST, "bcast", alg_bcast),
	APP_KEY_ALG(APP_COLL_REDUCE, "reduce", alg_reduce),
	APP_KEY_ALG(APP_COLL_ALLREDUCE, "allreduce", alg_allreduce),
	APP_KEY_ALG(APP_COLL_GATHER, "gather", alg_gather),
	APP_KEY_ALG(APP_COLL_GATHERV, "gatherv", alg_linear),
	APP_KEY_ALG(APP_COLL_SCATTER, "scatter", alg_gather),
	APP_KEY_ALG(APP_COLL_SCATTERV, "scatterv", alg_linear),
	APP_KEY_ALG(APP_COLL_ALLGATHER, "allgather", alg_allgather),
	APP_KEY_ALG(APP_COLL_ALLGATHERV, "allgatherv", alg_allgatherv),
	APP_KEY_ALG(APP_COLL_ALLTOALL, "alltoall", alg_alltoall),
	APP_KEY_ALG(APP_COLL_ALLTOALLV, "alltoallv", alg_alltoallv),
	APP_KEY_ALG(APP_COLL_ALLTOALLW, "alltoallw", alg_alltoallv),
	APP_KEY_ALG(APP_COLL_REDUCE_SCATTER, "reduce_scatter", alg_reduce_scatter),
	APP_KEY_ALG(APP_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatter_block", alg_reduce_scatter),
	APP_KEY_ALG(APP_COLL_SCAN, "scan", alg_scan),
	APP_KEY_ALG(APP_COLL_EXSCAN, "exscan", alg_scan),
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

const struct config_table app_config_table = {
	.section = "replay",
	.help = "MPI trace replay: protocols, CPU scaling, collective algorithms",
	.keys = app_keys,
	.struct_size = sizeof(struct app_config),
};

int app_config_bind(const struct config *cfg, struct app_config *out, struct nl_err *err)
{
	memset(out, 0, sizeof *out);
	NL_CHECK(cfg ? config_bind(cfg, &app_config_table, out, err)
		     : param_defaults(app_keys, out, "[replay] defaults", err));
	/* The choice index is into each key's own list; turn it into the
	 * algorithm enum. */
	for (const struct param_def *d = app_keys; d->name; d++) {
		if (d->type != PARAM_CHOICE || strncmp(d->name, "coll_", 5))
			continue;
		int *slot = (int *)(void *)((char *)out + d->offset);
		const char *name = d->choices[*slot];
		int alg = -1;
		for (int i = 0; i < APP_ALG__COUNT; i++)
			if (!strcmp(app_alg_names[i], name))
				alg = i;
		if (alg < 0)
			NL_BUG("replay: algorithm '%s' of %s has no enum", name, d->name);
		*slot = alg;
	}
	/* Linear placement puts rank r on endpoint r: ranks share endpoints
	 * only under a policy, and a ranks_per_node it ignored let a run
	 * look like one that shared them. */
	if (out->ranks_per_node <= 1 || strcmp(out->placement, "linear"))
		return 0;
	nl_errf(err, NL_ECONFIG,
		"key 'ranks_per_node': %lld ranks per endpoint need a placement policy (placement = linear puts rank r on endpoint r); set placement, e.g. contiguous (docs/placement.md)",
		(long long)out->ranks_per_node);
	return cfg ? config_err_file_line(cfg, "ranks_per_node", err) : err->code;
}

const char *app_compute_time_name(int v)
{
	return v >= 0 && v <= APP_COMPUTE_CPU ? app_compute_time_names[v] : NULL;
}

/* "16 ranks on 1 host of 2 cores (8 per core)" */
static void app_describe_hosts(const struct trace_manifest *m, char *buf, size_t cap)
{
	snprintf(buf, cap, "%u rank%s on %u host%s of %u core%s (%.3g per core)", m->n_ranks,
		 m->n_ranks == 1 ? "" : "s", m->hosts, m->hosts == 1 ? "" : "s", m->cores_per_host, m->cores_per_host == 1 ? "" : "s",
		 trace_manifest_ranks_per_core(m));
}

int app_recorded_comparable(const struct trace_manifest *m, char *why, size_t cap)
{
	char hosts[160];
	double rpc = trace_manifest_ranks_per_core(m);

	if (m->recorded_runtime_s <= 0) {
		snprintf(why, cap, "the trace has no recorded runtime");
		return -1;
	}
	if (rpc == 0) {
		snprintf(why, cap, "the archive (format %u, recorder '%s') does not say how many ranks shared a core",
			 m->format_version, m->recorder ? m->recorder : "");
		return -1;
	}
	app_describe_hosts(m, hosts, sizeof hosts);
	if (rpc > 1) {
		snprintf(why, cap, "recorded with %s, so it includes CPU time-sharing, which replay does not model",
			 hosts);
		return 0;
	}
	snprintf(why, cap, "recorded with %s", hosts);
	return 1;
}

int app_compute_time_resolve(struct app_config *ac, const struct trace_manifest *m, char *why, size_t cap,
			     struct nl_err *err)
{
	double rpc = trace_manifest_ranks_per_core(m);

	switch (ac->compute_time) {
	case APP_COMPUTE_CPU:
		if (!m->has_compute_cpu)
			return nl_errf(err, NL_ECONFIG,
				       "key 'compute_time': value 'cpu': the trace has no CPU time (format %u, recorder "
				       "'%s'); expected wall or auto",
				       m->format_version, m->recorder ? m->recorder : "");
		snprintf(why, cap, "cpu: the ranks' thread CPU time (compute_time = cpu)");
		return 0;
	case APP_COMPUTE_WALL:
		snprintf(why, cap, "wall: the wall-clock gaps between MPI calls (compute_time = wall)");
		return 0;
	default:
		break;
	}
	if (rpc > 1 && m->has_compute_cpu) {
		ac->compute_time = APP_COMPUTE_CPU;
		snprintf(why, cap, "cpu: the ranks' thread CPU time (auto: ranks shared cores when recorded, so the "
			 "wall-clock gaps include time they were descheduled)");
	} else if (rpc > 1) {
		ac->compute_time = APP_COMPUTE_WALL;
		snprintf(why, cap, "wall: the wall-clock gaps between MPI calls (auto: the trace has no CPU time; "
			 "ranks shared cores when recorded, so compute includes time-sharing)");
	} else if (rpc > 0) {
		ac->compute_time = APP_COMPUTE_WALL;
		snprintf(why, cap, "wall: the wall-clock gaps between MPI calls (auto: at most one rank per core when "
			 "recorded)");
	} else {
		ac->compute_time = APP_COMPUTE_WALL;
		snprintf(why, cap, "wall: the wall-clock gaps between MPI calls (auto: the archive does not say "
			 "whether ranks shared cores)");
	}
	return 0;
}
